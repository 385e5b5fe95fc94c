"""Per-game random numbers: one 64-bit xorshift* state per game (``state.rng[g]``).

Each game owns its stream, seeded from ``(seed, game index)`` by splitmix64, so a game's
cards never depend on the batch size, the thread count or the other games.
"""
import numpy as np

from uno_env.engine.jit import njit

@njit
def seed_stream(seed, index):
    """splitmix64 of (seed, index): the initial state of game ``index`` of ``seed``.
    Callable from Python and from kernels; never returns 0 (xorshift needs non-zero)."""
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) \
        + np.uint64(index + 1) * np.uint64(0xBF58476D1CE4E5B9)
    for _ in range(2):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(0x2545F4914F6CDD1D)
    return z


@njit
def next_u64(rng, g):
    x = rng[g]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[g] = x
    return x * np.uint64(2685821657736338717)


@njit
def below(rng, g, n):
    """A uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift on the top 32 bits)."""
    hi = next_u64(rng, g) >> np.uint64(32)
    return np.int64((hi * np.uint64(n)) >> np.uint64(32))


@njit
def shuffle_prefix(rng, g, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = below(rng, g, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


# --- the same streams in plain Python, for the Python layer (no kernel to compile) ------

_M64 = (1 << 64) - 1


def seed_stream_py(seed: int, index: int) -> np.uint64:
    """``seed_stream`` computed in Python (``tests/engine/test_batch.py`` checks they agree)."""
    z = (int(seed) * 0x9E3779B97F4A7C15 + (int(index) + 1) * 0xBF58476D1CE4E5B9) & _M64
    for _ in range(2):
        z = (z + 0x9E3779B97F4A7C15) & _M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        z ^= z >> 31
    return np.uint64(z or 0x2545F4914F6CDD1D)


def shuffle_prefix_py(rng, g, arr, n) -> None:
    """``shuffle_prefix`` in Python: the same permutation, the same stream advance."""
    x = int(rng[g])
    for i in range(n - 1, 0, -1):
        x ^= x >> 12
        x = (x ^ (x << 25)) & _M64
        x ^= x >> 27
        hi = ((x * 2685821657736338717) & _M64) >> 32
        j = (hi * (i + 1)) >> 32
        arr[i], arr[j] = arr[j], arr[i]
    rng[g] = np.uint64(x)
