"""The JAX engine plays the numba engine's games (docs/jax-identity.md), on every
supported preset and player count and on configurations that turn each supported flag:

* ``uno_env.jax.simulate`` against ``uno_env.simulate(agents="random")``: winner, turns,
  steps and points of every game;
* a JAX batch against ``uno_env.EverySeatBatch`` stepped with the same random legal
  actions: current player, legal mask, observation, rewards and terminations at every
  step.

A few hundred games a configuration (each program compiles once per configuration);
``benchmarks/jax_identity.py`` runs thousands. A rule changed in one engine fails here
until the other follows.
"""
from __future__ import annotations

import pytest

from uno_env.jax._identity import compare_every_seat, compare_simulate

#: (preset, players, flags): every supported preset and player count, then one
#: configuration per group of supported flags
CONFIGS = [("classic", players, {}) for players in range(2, 11)] + [("teams", 4, {})] + [
    # whole matches: rounds dealt by the last winner, match scores in the observation
    ("classic", 3, {"target_score": 200, "dealer": 2}),
    ("classic", 4, {"scoring": "penalty", "target_score": 120, "reward": "score"}),
    ("teams", 4, {"target_score": 150, "reward": "score"}),
    # no bluff (the W4 masked while holding the colour; no shown hand), implicit UNO,
    # small hands, and rounds cut by max_turns
    ("classic", 5, {"bluff": False, "uno_call": False, "hand_size": 4, "max_turns": 50}),
]
IDS = [f"{p}-{n}" + "".join(f"-{k}={v}" for k, v in f.items()) for p, n, f in CONFIGS]

#: games a configuration: whole random games, and games stepped side by side
SIM_GAMES = 200
STEP_GAMES = 24
SEED = 2026


@pytest.mark.parametrize("preset, players, flags", CONFIGS, ids=IDS)
def test_random_games_equal_uno_env_simulate(preset, players, flags):
    done = compare_simulate(preset, players, SIM_GAMES, SEED, batch_size=SIM_GAMES, **flags)
    assert done["games"] == SIM_GAMES and done["steps"] > 10 * SIM_GAMES


@pytest.mark.parametrize("preset, players, flags", CONFIGS, ids=IDS)
def test_steps_equal_every_seat_batch(preset, players, flags):
    done = compare_every_seat(preset, players, STEP_GAMES, SEED + 1, action_seed=players,
                              **flags)
    assert done["games"] == STEP_GAMES and done["steps"] > 10 * STEP_GAMES


def test_a_changed_rule_fails_the_comparison(monkeypatch):
    """The guard works: the JAX engine with one rule changed (a Draw Two that makes the
    next player draw one card) no longer plays the numba engine's games."""
    import numpy as np

    import uno_env.jax._identity as identity
    import uno_env.jax.core as core
    tables = core._tables

    def changed(params):
        t = tables(params)
        return t._replace(type_draw=np.where(t.type_draw == 2, 1, t.type_draw))

    monkeypatch.setattr(core, "_tables", changed)
    identity._replay.cache_clear()
    try:
        with pytest.raises(AssertionError, match="differs"):
            compare_every_seat("classic", 3, 8, SEED, hand_size=3, max_turns=300)
    finally:
        identity._replay.cache_clear()
