"""One agent's win rate in one seat against opponents, on fixed deals: ``evaluate``
(``uno_env.evaluate``).

    >>> evaluate(agent, opponents="heuristic", num_games=2000, preset="classic",
    ...          num_players=2, seed=1)["win_rate"]

Every agent evaluated with the same seed meets the same deals, so two agents compare
game by game; the games are those of ``LearnerBatch`` (``uno_env.envs.single_seat``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.engine.batch import STAT_SLOTS
from uno_env.engine.entry import kernels
from uno_env.engine.rng import seed_stream_py
from uno_env.engine.search import OP_DECIDE, SEARCH_SALT, idle_arguments
from uno_env.envs.single_seat import LearnerBatch
from uno_env.evaluation.stats import wilson


def evaluate(agent, opponents: Any = "random", num_games: int = 10_000,
             preset: str = "classic", num_players: int = 4, seed: int = 0,
             seat: int | str = "random", batch: int = 1024, per_game: bool = False,
             **rules) -> dict:
    """Play ``agent`` (an object with ``act_batch``, or a search agent such as
    ``agents.MCTSAgent``, which searches each game's position inside numba) in games ``0 .. num_games - 1`` of
    ``seed`` against ``opponents`` (as in ``LearnerBatch``). Returns a dict: ``games``,
    ``wins``, ``truncated``, ``win_rate`` with its 95% Wilson interval ``ci``, and
    ``mean_reward`` (the learner's return per game). Every agent evaluated with the same
    seed meets the same deals, so two agents can be compared game by game: with
    ``per_game=True`` the dict also holds ``won``, bool[num_games], game ``i`` won or
    not (``uno_env.evaluation.stats.paired_difference`` compares two such runs).

    A search agent decides without the belief of the public moves, unless an opponent
    searches too: then it shares the game's belief and search stream with the search
    opponents, and the games are those of ``simulate`` with the same seats."""
    search_code = getattr(agent, "search_code", None)  # a search agent (agents.MCTSAgent)
    if search_code is None and not callable(getattr(agent, "act_batch", None)):
        raise ValueError(f"agent must have act_batch(observations, masks), got {agent!r}")
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) \
            or num_games < 1:
        raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
    wins = truncated = 0
    total_reward = 0.0
    won = np.zeros(num_games, np.bool_)
    for lo in range(0, num_games, batch):
        size = min(batch, num_games - lo)
        lb = LearnerBatch(size, preset, num_players, opponents, seat, seed,
                          auto_reset=False, **rules)
        obs, mask = lb.reset(first_game=lo)
        actions = np.zeros(size, np.int64)
        returns = np.zeros(size)
        if search_code is not None:
            # the search reads the position: each game searches from a stream of its own
            search = kernels(lb.config.variant).search
            streams = np.array([seed_stream_py(int(seed) ^ int(SEARCH_SALT), lo + g)
                                for g in range(size)], np.uint64)
            # the opponents move inside the learner kernel, unseen: no belief here,
            # unless a search opponent makes the batch keep each game's belief and
            # stream: then the agent shares them, as the search seats of simulate do
            codes = np.array([search_code], np.int64)
            beliefs = np.zeros((size, *lb.engine_state.hands.shape[1:]), np.uint8)
            if lb.searches:
                streams, beliefs = lb._search_rng, lb._belief
            no_moves = np.zeros(0, np.int64)
            outputs, no_learner = idle_arguments(lb.config.num_players,
                                                 lb.layout.obs_size, lb.layout.size)
            idle = (*outputs, *no_learner)
        while not (done := lb.done).all():
            rows = np.flatnonzero(~done)
            if search_code is None:
                actions[rows] = agent.act_batch(obs[rows], mask[rows])
            else:
                for g in rows:
                    actions[g] = search(OP_DECIDE, lb.engine_state, lb.engine_state,
                                        lb.config.spec,
                                        codes, np.uint64(0), int(g), STAT_SLOTS, streams,
                                        beliefs[g:g + 1], no_moves, *idle)
            obs, mask, reward, _, _ = lb.step(actions)
            returns += reward
        winner = lb.winner
        won[lo:lo + size] = winner == lb.learner_seat
        wins += int((winner == lb.learner_seat).sum())
        truncated += int((winner < 0).sum())
        total_reward += float(returns.sum())
    low, high = wilson(wins, num_games)
    result = {"games": int(num_games), "wins": wins, "truncated": truncated,
              "win_rate": wins / num_games, "ci": (low, high),
              "mean_reward": total_reward / num_games}
    if per_game:
        result["won"] = won
    return result

