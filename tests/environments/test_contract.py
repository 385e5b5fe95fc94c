"""The engine's contract (``uno_env.testing``) over every preset, several player counts
and the rule flags of every variant: card conservation, exact legal masks, live games
with a legal action, observations in their space and without hidden information, and
finished games consistent after every step of random games; ``simulate`` = ``EverySeatBatch``
= ``Game`` game by game; results independent of threads and batch size; the greedy and
heuristic agents always legal.

Only the engine's cached entry points run (``engine/entry.py``): once ``warmup`` has
compiled them (the ``warm_engine`` fixture of conftest.py) this file compiles nothing.
"""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from uno_env import Game, make_config
from uno_env.rules import MAX_PLAYERS, PRESETS, Rules
from uno_env.testing import (
    check_contract,
    check_random_play,
    check_simulate_independence,
)

pytestmark = pytest.mark.usefixtures("warm_engine")

#: the player counts of each preset (teams: four players only)
COUNTS = {name: (4,) if rules.teams else (2, 4, MAX_PLAYERS)
          for name, rules in PRESETS.items()}
ROWS = [(preset, n) for preset in PRESETS for n in COUNTS[preset]]

#: rule flags over the presets: each house flag alone, the other options of every
#: variant (docs/rules.md 2-6)
#: the exceptions to the rows derived below, stated once: a value to try for each integer
#: flag (the derived rows take every other value of a choice or yes/no flag)
SAMPLE_VALUES = {"hand_size": 3, "target_score": 200, "max_turns": 30, "dealer": 2}
#: flags a value needs beside it to be a valid configuration
NEEDS_WITH = {("scoring", "elimination"): {"target_score": 100}}
#: rows that combine flags, for how they interact
COMBINED_ROWS = [
    ("classic", 3, dict(max_turns=30, hand_size=3)),
    ("classic", 3, dict(target_score=200, scoring="penalty", reward="score")),
    ("classic", 4, dict(teams=True, reward="score")),
    ("classic", 4, dict(force_play=True, no_draw_if_playable=True)),
    ("classic112", 4, dict(wx_rule="swap", ws_last_card_wins=True)),
    ("chaos", 4, dict(teams=True)), ("chaos", 4, dict(wx_rule="swap", bluff=False)),
    ("street", 3, dict(target_score=200)),
    ("flip", 3, dict(bluff=False, target_score=250)),
    ("onepiece", 4, dict(challenge="classic", bbd_challenge=True,
                         shanks_give="two_players")),
    ("onepiece", 4, dict(bluff=False, bbd_challenge=True)),
    ("onepiece", 4, dict(force_play=True, no_draw_if_playable=True, uno_call=False)),
]


def _flag_rows() -> list:
    """A row for each value but the default of every flag the kernels read (a ``Flag``
    with a ``slot``; the others build the deck: tests/rules/test_small_decks.py), on the
    first preset and player count (3, then 4, then 2) that take it, then
    ``COMBINED_ROWS``. A new flag gets its rows here without an edit."""
    rows = []
    for f in dataclasses.fields(Rules):
        spec = f.metadata["flag"]
        if spec.slot is None:
            continue
        values = spec.values or ((not f.default,) if isinstance(f.default, bool)
                                 else (SAMPLE_VALUES[f.name],))
        for value in (v for v in values if v != f.default):
            flags = {f.name: value, **NEEDS_WITH.get((f.name, value), {})}
            rows.append(next((preset, n, flags) for preset in PRESETS for n in (3, 4, 2)
                             if _valid(preset, n, flags)))
    return rows + COMBINED_ROWS


def _valid(preset, num_players, flags) -> bool:
    try:
        make_config(preset, num_players, **flags)
    except ValueError:
        return False
    return True


FLAG_ROWS = _flag_rows()


#: phases random play must reach (not a smoke run: the checks saw them)
MUST_REACH = {"chaos": {"stack", "jump_in", "multi", "swap", "drawn"},
              "flip": {"play", "drawn", "challenge", "color"},
              "onepiece": {"give", "challenge", "drawn"}}
#: moves it must have played: with stacking (chaos) a W4 is challenged in the stack
#: phase, there is no challenge phase (docs/rules.md 3)
MUST_PLAY = {"chaos": ("challenge",)}


def _id(row):
    preset, n, *flags = row
    return f"{preset}-{n}p" + "".join(f"-{k}={v}" for k, v in (flags or [{}])[0].items())


@pytest.mark.parametrize("preset,num_players", ROWS, ids=[_id(r) for r in ROWS])
def test_contract_of_every_preset(preset, num_players):
    report = check_contract(preset, num_players, games=4, seed=num_players)
    assert report.finished == report.games
    assert report.decisions > 20 * report.games
    assert report.hidden_checks > 0
    assert {"play", "drawn"} <= report.phases


@pytest.mark.parametrize("preset,num_players,flags", FLAG_ROWS,
                         ids=[_id(r) for r in FLAG_ROWS])
def test_contract_with_rule_flags(preset, num_players, flags):
    report = check_contract(preset, num_players, games=3, seed=11, **flags)
    assert report.finished == report.games


@pytest.mark.parametrize("preset", sorted(MUST_REACH))
def test_random_play_reaches_every_phase_of_the_variant(preset):
    """The checks above ran in the phases that make each variant (4 players)."""
    report = check_random_play(preset, 4, games=12, seed=2, hidden_every=3)
    assert MUST_REACH[preset] <= report.phases, MUST_REACH[preset] - report.phases
    played = {a for actions in report.actions for a in actions}
    layout = make_config(preset, 4).layout
    for move in MUST_PLAY.get(preset, ()):
        assert layout.encode(move) in played, move
    if preset == "flip":
        assert report.sides == {"light", "dark"}


def test_agents_stay_legal_over_many_phases():
    for agent in ("greedy", "heuristic"):
        report = check_random_play("chaos", 4, games=10, seed=3, agent=agent)
        assert {"stack", "jump_in", "multi", "drawn"} <= report.phases, agent
        report = check_random_play("onepiece", 4, games=10, seed=3, agent=agent)
        assert {"give", "challenge", "drawn"} <= report.phases, agent


def test_a_broken_contract_names_the_game_and_step(monkeypatch):
    """A check that fails says where: preset, players, seed, game and step."""
    from uno_env import testing
    real = testing._check_cards

    def breaks_at_step_3(cfg, st, where):
        if where.endswith("step 3"):
            st.hands[1, 0, 0] += 1          # a card from nowhere in game 1
            st.hand_size[1, 0] += 1
        real(cfg, st, where)
    monkeypatch.setattr(testing, "_check_cards", breaks_at_step_3)
    with pytest.raises(AssertionError, match=r"classic, 2 players, seed 5, step 3, "
                                             r"game 1: the deck is not whole"):
        check_random_play("classic", 2, games=3, seed=5)


def test_simulate_does_not_depend_on_threads_with_agent_lineups():
    check_simulate_independence("flip", 5, games=30, seed=9,
                                agents=("heuristic", "greedy", "random", "heuristic",
                                        "greedy"))


@pytest.mark.parametrize("preset", ["classic", "chaos", "flip", "onepiece"])
def test_same_seed_same_history(preset):
    """Two ``Game``s with one seed and the same move choices play the same game, and
    ``reset`` with the seed replays the deal."""
    for seed in range(3):
        games = [Game(preset, 3, seed=seed) for _ in range(2)]
        rngs = [random.Random(seed), random.Random(seed)]
        while not games[0].is_over:
            moves = [g.legal_moves() for g in games]
            assert moves[0] == moves[1]
            for g, r in zip(games, rngs):
                g.play(r.choice(sorted(moves[0])))
        assert games[1].is_over and games[0].history == games[1].history
        first = Game(preset, 3, seed=seed)
        games[0].reset(seed)
        assert np.array_equal(first.observe(first.current_player),
                              games[0].observe(games[0].current_player))
        assert first.hand(1) == games[0].hand(1)
