"""The numba engine's random streams (``uno_env/engine/rng.py``) in 32-bit JAX.

A 64-bit word is a pair of uint32 ``(hi, lo)``: splitmix64 seeding, the xorshift64*
step and the multiply-shift ``below`` are computed on pairs, so the streams are the
numba engine's bit for bit without JAX's 64-bit mode (``jax_enable_x64`` is never
touched). A game's stream is ``uint32[2]`` (hi, lo) in ``State.rng``.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

_U32 = jnp.uint32
_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
_STAR = 2685821657736338717  # xorshift64*'s multiplier
#: the engine's replacement of a zero seed (xorshift needs a non-zero state)
_NONZERO = 0x2545F4914F6CDD1D


def _pair(value: int):
    """A Python int as a (hi, lo) pair of uint32 constants."""
    value &= _M64
    return _U32(value >> 32), _U32(value & _M32)


def mul32(a, b):
    """The full 64-bit product of two uint32 words, as (hi, lo), in 16-bit pieces."""
    a0, a1 = a & _U32(0xFFFF), a >> _U32(16)
    b0, b1 = b & _U32(0xFFFF), b >> _U32(16)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> _U32(16)) + (p01 & _U32(0xFFFF)) + (p10 & _U32(0xFFFF))
    lo = (mid << _U32(16)) | (p00 & _U32(0xFFFF))
    hi = p11 + (p01 >> _U32(16)) + (p10 >> _U32(16)) + (mid >> _U32(16))
    return hi, lo


def mul64(a, b):
    """``a * b`` modulo 2**64 of two pairs."""
    hi, lo = mul32(a[1], b[1])
    return hi + a[1] * b[0] + a[0] * b[1], lo


def add64(a, b):
    lo = a[1] + b[1]
    return a[0] + b[0] + (lo < a[1]).astype(_U32), lo


def xor64(a, b):
    return a[0] ^ b[0], a[1] ^ b[1]


def shr64(a, s: int):
    if s >= 32:
        return jnp.zeros_like(a[0]), a[0] >> _U32(s - 32)
    return a[0] >> _U32(s), (a[1] >> _U32(s)) | (a[0] << _U32(32 - s))


def shl64(a, s: int):
    if s >= 32:
        return a[1] << _U32(s - 32), jnp.zeros_like(a[1])
    return (a[0] << _U32(s)) | (a[1] >> _U32(32 - s)), a[1] << _U32(s)


def _check_seed(seed: int) -> int:
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, got {seed}")
    return seed


def seed_words(seed):
    """``seed`` as ``seed_stream`` takes it, a Python int (checked as there) made its
    uint32[2] (hi, lo) pair, so that a jitted function can take any seed as an argument
    (a traced integer has 32 bits); a pair comes back as given."""
    if isinstance(seed, int):
        seed = _check_seed(seed)
        return np.asarray([seed >> 32, seed & _M32], np.uint32)
    return seed


def seed_stream(seed, index):
    """splitmix64 of ``(seed, index)``: the engine's ``rng.seed_stream``, as uint32[2]
    (hi, lo). ``seed``: a Python int 0..2**64-1 or a uint32[2] pair; ``index``: a game
    index, a Python int or a (traced) integer 0..2**31-1."""
    if isinstance(seed, int):
        z = _pair(_check_seed(seed) * _GOLDEN)
    else:
        seed = jnp.asarray(seed, _U32)
        if seed.shape != (2,):
            raise ValueError(f"seed must be a Python int or a uint32[2] (hi, lo) pair, "
                             f"got shape {seed.shape}")
        z = mul64((seed[0], seed[1]), _pair(_GOLDEN))
    idx = jnp.asarray(index).astype(jnp.int32) + 1
    z = add64(z, mul64((jnp.zeros((), _U32), idx.astype(_U32)), _pair(_MIX1)))
    for _ in range(2):
        z = add64(z, _pair(_GOLDEN))
        z = mul64(xor64(z, shr64(z, 30)), _pair(_MIX1))
        z = mul64(xor64(z, shr64(z, 27)), _pair(_MIX2))
        z = xor64(z, shr64(z, 31))
    zero = (z[0] == 0) & (z[1] == 0)
    hi, lo = _pair(_NONZERO)
    return jnp.stack([jnp.where(zero, hi, z[0]), jnp.where(zero, lo, z[1])]).astype(_U32)


def _next_hi(rng):
    """One xorshift64* step: the new state and the top 32 bits of its output."""
    x = (rng[0], rng[1])
    x = xor64(x, shr64(x, 12))
    x = xor64(x, shl64(x, 25))
    x = xor64(x, shr64(x, 27))
    m_hi, m_lo = _pair(_STAR)
    hi, _ = mul32(x[1], m_lo)
    out_hi = hi + x[1] * m_hi + x[0] * m_lo
    return jnp.stack([x[0], x[1]]), out_hi


def below(rng, n):
    """A uniform integer in [0, n) (0 < n < 2**31) as the engine's ``rng.below``:
    returns (new rng, int32)."""
    rng, hi = _next_hi(rng)
    k, _ = mul32(hi, jnp.asarray(n).astype(_U32))
    return rng, k.astype(jnp.int32)


def shuffle_prefix(rng, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` as the engine's ``rng.shuffle_prefix``:
    returns (new rng, new arr). ``n`` may be traced; the loop runs ``n - 1`` times."""

    def body(carry):
        i, rng, arr = carry
        rng, j = below(rng, i + 1)
        ai, aj = arr[i], arr[j]
        arr = arr.at[i].set(aj).at[j].set(ai)
        return i - 1, rng, arr

    _, rng, arr = lax.while_loop(lambda c: c[0] > 0, body,
                                 (jnp.asarray(n, jnp.int32) - 1, rng, arr))
    return rng, arr
