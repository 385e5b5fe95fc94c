"""``uno_env.jax.policies``: the JAX greedy and heuristic agents choose the numba
agents' moves (``agents.GreedyAgent``, ``agents.HeuristicAgent``), move by move.

The same games on both engines, the agent in every seat (``_identity.compare_policy``):
``uno_env.EverySeatBatch`` stepped with the numba agent's ``act_batch`` on its own
observations, a JAX batch stepped with the JAX policy on its own states; the actions
and rewards must agree at every step of every game. One compiled program plays both
policies and both table sizes (a traced switch, ``core.table_params``), so the tests
pay for one compile; ``benchmarks/jax_policies.py`` plays thousands of games (teams
and more table sizes too).
"""
from __future__ import annotations

import pytest

from uno_env.jax._identity import compare_policy

GAMES = 24
SEED = 4242


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_jax_policy_plays_the_numba_agents_moves(name, players):
    done = compare_policy(name, "classic", players, GAMES, SEED + players, max_players=4)
    assert done["games"] == GAMES and done["steps"] > 20 * GAMES

