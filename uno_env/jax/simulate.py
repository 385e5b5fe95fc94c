"""Whole games of random play in JAX: ``uno_env.simulate(agents="random")``'s games.

The numba ``random`` agent picks the ``k``-th legal action in id order, ``k`` uniform
from the game's own stream (``engine/dispatch.random_pick``; its classic shortcut
``plays.official_random_play`` picks the same one). ``random_action`` does the same on
``State.rng``, so ``simulate`` here returns the numba engine's winners, turns, steps
and points game by game (tests/jax/test_identity.py).
"""
from __future__ import annotations

from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import uno_env.jax._rng as _rng
import uno_env.jax.core as core


def random_action(state: core.State):
    """The numba random agent's action for the decider: (state with its stream
    advanced, int32 action). Call it only while the game is on."""
    mask = state.legal_action_mask
    rng, k = _rng.below(state.rng, mask.sum(dtype=jnp.int32))
    action = jnp.argmax(jnp.cumsum(mask, dtype=jnp.int32) > k).astype(jnp.int32)
    return state._replace(rng=rng), action


def play_random(params: core.Params, state: core.State) -> core.State:
    """Play ``state`` to its end with the random agent in every seat (a
    ``lax.while_loop``; vmapped, it runs until the batch's longest game ends)."""

    def body(s):
        s, action = random_action(s)
        return core.step(params, s, action)

    return lax.while_loop(lambda s: s.status == 0, body, state)


@lru_cache(maxsize=32)
def _play_batch(params: core.Params):
    def run(seed_pair, indices):
        def one(index):
            s = core.init(params, _rng.seed_stream(seed_pair, index))
            s = play_random(params, s)
            return s.winner, s.turns, s.steps, s.points
        return jax.vmap(one)(indices)
    return jax.jit(run)


def simulate(preset: str = "classic", num_players: int = 4, num_games: int = 1000,
             seed: int = 0, first_game: int = 0, batch_size: int = 256,
             **flags) -> dict:
    """Play games ``first_game .. first_game + num_games - 1`` of ``seed`` with the
    random agent in every seat; returns numpy arrays ``winner`` (-1: truncated),
    ``turns`` (of the last round), ``steps`` (decisions) and ``points`` ([games, P]),
    equal game by game to ``uno_env.simulate(preset, num_players, agents="random",
    num_games, seed, first_game=first_game, **flags)``. Games run ``batch_size`` at a
    time through one compiled program (the last batch padded)."""
    from uno_env.rules import check_seed
    params = core.make_params(preset, num_players, **flags)
    seed = check_seed(seed)
    for name, value in (("num_games", num_games), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if isinstance(first_game, bool) or not isinstance(first_game, (int, np.integer)) \
            or not 0 <= first_game or first_game + num_games >= 2 ** 31:
        raise ValueError(f"first_game must be an integer with 0 <= first_game and "
                         f"first_game + num_games < 2**31, got {first_game!r}")
    batch = min(int(batch_size), int(num_games))
    run = _play_batch(params)
    seed_pair = jnp.asarray([seed >> 32, seed & 0xFFFFFFFF], jnp.uint32)
    parts = []
    for lo in range(0, num_games, batch):
        idx = np.arange(first_game + lo, first_game + lo + batch, dtype=np.int32)
        parts.append([np.asarray(x) for x in run(seed_pair, jnp.asarray(idx))])
    winner, turns, steps, points = (np.concatenate(col)[:num_games] for col in zip(*parts))
    return {"winner": winner.astype(np.int32), "turns": turns.astype(np.int32),
            "steps": steps.astype(np.int32), "points": points.astype(np.int32)}


__all__ = ["simulate", "play_random", "random_action"]
