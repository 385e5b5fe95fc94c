"""The JAX engine plays the numba engine's games (docs/jax-identity.md): the classic
preset with 2 to 6 players here, the other player counts, ``teams`` and the flag
groups in test_identity_configs.py (two files, so that two test workers share them).

The random agent in every seat, drawing from each game's own stream, on both engines
(one compiled JAX program a configuration, ``_identity.compare_random_play``): a JAX
batch and ``uno_env.EverySeatBatch`` take the same actions and report the same
decider, legal mask, float32 observation, rewards and terminations at every step, and
the games' winner, turns, steps and points are ``uno_env.simulate(agents="random")``'s.
The compile of each JAX program is most of a test's time, so the counts are small;
``benchmarks/jax_identity.py`` runs thousands of games on every configuration. A rule
changed in one engine fails here until the other follows.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import uno_env.jax._identity as identity
import uno_env.jax.core as core
from uno_env.jax._identity import CONFIGS, compare_random_play, config_name

#: games a configuration, and the seed of configuration ``players``
GAMES = 200
SEED = 2026
HERE = [c for c in CONFIGS if c[0] == "classic" and not c[2] and c[1] <= 6]


@pytest.mark.parametrize("preset, players, flags", HERE,
                         ids=[config_name(*c) for c in HERE])
def test_random_play_is_simulate_and_every_seat_batch(preset, players, flags):
    x64 = jax.config.jax_enable_x64
    done = compare_random_play(preset, players, GAMES, SEED + players, **flags)
    assert done["games"] == GAMES and done["steps"] > 10 * GAMES
    assert jax.config.jax_enable_x64 == x64  # whole games never switched it on


def test_a_finished_game_steps_to_itself_with_zero_rewards():
    """Games played to their end (the 2-player program above, compiled once) step to
    themselves: the same state, rewards zeroed, no decider, no legal action."""
    params = core.make_params("classic", 2)
    chunk, blank = identity._replay(params)
    seed, indices = identity._seed_pair(SEED + 2), jnp.arange(GAMES, dtype=jnp.int32)
    none = jnp.zeros((identity.CHUNK, GAMES), jnp.int32)
    state, fresh = blank(GAMES), True
    while fresh or not np.asarray(state.status != 0).all():
        state, _, _ = chunk(state, seed, indices, fresh, True, none)
        fresh = False
    again, _, out = chunk(state._replace(rewards=state.rewards + 1.0), seed, indices,
                          False, True, none)
    for name in ("hands", "seat", "winner", "turns", "steps", "points", "rng", "status",
                 "draw_pile", "discard", "scores"):
        assert (np.asarray(getattr(again, name)) == np.asarray(getattr(state, name))).all()
    assert not np.asarray(again.rewards).any() and not np.asarray(out[3]).any()
    assert not np.asarray(again.legal_action_mask).any()
    assert (np.asarray(again.current_player) == -1).all()
    assert (np.asarray(out[6]) == -1).all()  # the random agent took no action


def test_a_changed_rule_fails_the_comparison(monkeypatch):
    """The guard works: the JAX engine with one rule changed (a Draw Two that makes the
    next player draw one card) no longer plays the numba engine's games."""
    tables = core._tables

    def changed(params):
        t = tables(params)
        return t._replace(type_draw=np.where(t.type_draw == 2, 1, t.type_draw))

    monkeypatch.setattr(core, "_tables", changed)
    # flags of no other test: the changed program is compiled afresh, and no other test
    # meets it in the cache (clearing the cache would recompile the classic table
    # program that the tests of 2..10 players share)
    with pytest.raises(AssertionError, match="differs"):
        compare_random_play("classic", 3, 8, SEED, hand_size=3, max_turns=300)
