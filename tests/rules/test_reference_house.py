"""Lockstep cross-check of the house rules (docs/rules.md 3, 4; teams) against the plain-Python
reference ``naive.py``: at every step of seeded random games the engine's legal moves
equal the reference's, and the state after a random legal move equals its prediction
(hands, piles, colour, direction, decider, phase, pending total, jump-in window,
multi-play count, swaps left, UNO bookkeeping, turns, rewards and round points).

The reference cannot know the engine's shuffles, so a reshuffled draw pile and the deal
of a Wild Shuffle Hands are ordered by oracles that read the engine's state after the
step (the cards' multisets are still checked); everything else is predicted."""
from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

import pytest


import naive  # noqa: E402
from test_reference import STATS, extract, lockstep, naive_rules  # noqa: E402
from uno_env import Game  # noqa: E402

ALL = dict(deck="classic112", stack="any", seven_zero=True, jump_in=True, force_play=True,
           no_draw_if_playable=True, draw_until_playable=True, multi_play=True,
           wx_rule="draw1")
FLAGS = [
    dict(stack="same"), dict(stack="any"), dict(stack="any", bluff=False),
    dict(seven_zero=True), dict(jump_in=True), dict(force_play=True),
    dict(no_draw_if_playable=True), dict(draw_until_playable=True),
    dict(multi_play=True), dict(deck="classic112"),
    dict(deck="classic112", wx_rule="draw1", stack="same"),
    dict(deck="classic112", wx_rule="swap", ws_last_card_wins=True),
    dict(stack="any", jump_in=True), dict(multi_play=True, stack="same", jump_in=True),
    dict(multi_play=True, seven_zero=True), dict(seven_zero=True, jump_in=True),
    dict(draw_until_playable=True, force_play=True),
    dict(ALL), dict(ALL, wx_rule="swap", uno_call=False), dict(ALL, bluff=False),
    dict(ALL, hand_size=3), dict(ALL, max_turns=40),
]
CONFIGS = [(n, f) for f in FLAGS for n in (2, 4)] + [
    (3, dict(ALL)), (7, dict(ALL)), (5, dict(multi_play=True, seven_zero=True)),
    (4, dict(teams=True)), (4, dict(ALL, teams=True)),
    (4, dict(teams=True, reward="score")), (4, dict(ALL, teams=True, target_score=150)),
    (3, dict(ALL, target_score=200)),
]
GAMES = 4


@pytest.mark.parametrize("n,flags", CONFIGS, ids=[f"{n}-{f}" for n, f in CONFIGS])
def test_lockstep_house_rules(n, flags):
    for k in range(GAMES):
        seed = 31_000 + 101 * k + n
        game = Game(num_players=n, seed=seed, **flags)
        s = extract(game)
        problems = naive.round_start_problems(s, naive_rules(n, flags), 0)
        assert not problems, f"Game(num_players={n}, seed={seed}, **{flags}): {problems}"
        policy = "eager" if k % 2 else "uniform"
        label = (f"Game(num_players={n}, seed={seed}, **{flags}); "
                 f"policy {policy}, random.Random({seed})")
        lockstep(game, flags, random.Random(seed), policy, label, max_steps=20_000)


def test_house_coverage_report():
    """Runs last in this module: the random walks reached the house rules' corners."""
    if STATS["accept"] == 0 or not any(k.startswith("swap") for k in STATS):
        for n, flags in CONFIGS:
            test_lockstep_house_rules(n, flags)
    moves = Counter({k: v for k, v in STATS.items()})
    assert sum(v for k, v in moves.items() if k.startswith("swap")) > 0, dict(STATS)
    assert moves["WS"] > 0 and moves["WX"] > 0, dict(STATS)
    for key in ("accept", "challenge", "pass", "catch", "uno", "reshuffles",
                naive.TERMINATED):
        assert moves[key] > 0, (key, dict(STATS))
