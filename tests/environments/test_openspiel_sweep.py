"""``python_uno`` under OpenSpiel's own checks, swept: ``pyspiel.random_sim_test`` on every
preset at 2, 3, 4, 5, 7 and 10 players (teams: 4), and on one configuration per value of
every rule flag, generated from the flag declarations (``uno_env.rules.ruleset.FLAGS``),
with explicit chance too where it applies (the classic deck made small, docs/rules.md 8);
the GameType and GameInfo each game declares against what it returns.

Kept cheap for the cold suite: one simulation of a short game (``max_turns``) each.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import NEEDS

pyspiel = pytest.importorskip("pyspiel", reason=NEEDS["openspiel"])

from uno_env.rules import PRESETS, make_rules  # noqa: E402
from uno_env.rules.ruleset import FLAGS, SMALL_DECK_FLAGS, Rules  # noqa: E402
from uno_env.integrations.openspiel import game as uno_spiel  # noqa: E402

PLAYERS = (2, 3, 4, 5, 7, 10)
TURNS = 12  # max_turns of the swept games: a short game, truncated or not
#: a small classic deck on which explicit chance runs (hands of 2 cards)
SMALL = dict(colors=2, numbers=3, copies=1, action_cards="S/R/D2", wilds=1,
             wild_draw_fours=1, hand_size=2)
_DEFAULT = Rules()
#: the preset whose deck takes a flag's values (``Flag.variants``)
_HOME = {None: "classic", "classic": "classic", "house": "classic112",
         "onepiece": "onepiece"}


def preset_configs():
    for preset, rules in PRESETS.items():
        for players in ((4,) if rules.teams else PLAYERS):
            yield preset, players, {}


def flag_values(name, spec):
    """The values other than the classic default that the declaration names: a choice
    flag's values, a bool's other value, an integer's bounds."""
    default = getattr(_DEFAULT, name)
    if spec.values:
        return [v for v in spec.values if v != default]
    if isinstance(default, bool):
        return [not default]
    if spec.low is not None:
        return [v for v in (spec.low, spec.high) if v != default]
    if name == "onepiece_cards":
        return ["3/1/2/1"]
    if name == "action_cards":
        return ["S", ""]
    return []  # the deck: the presets set it


def flag_configs():
    """(preset, players, flags) per value of every flag; a value the flag's home preset
    refuses (e.g. target_score without elimination) tries the elimination sheet, else
    is dropped (``refused``)."""
    configs, refused = [], []
    for name, spec in FLAGS.items():
        homes = spec.variants or (None,)
        home = _HOME[next(v for v in homes if v in _HOME)]
        for value in flag_values(name, spec):
            preset, flags = home, {name: value}
            players = 4 if name == "teams" else 2
            if name == "dealer":
                flags[name] = players - 1
            if name == "target_score" or (name == "scoring" and value == "elimination"):
                preset, flags = "onepiece", {**flags, "scoring": "elimination",
                                             "target_score": 50}
            if name in SMALL_DECK_FLAGS:  # a small deck of 7-card hands: sampled
                flags["chance"] = "sampled"
            try:
                uno_spiel.UnoGame({"preset": preset, "players": players, **flags})
            except ValueError:
                refused.append((name, value))
                continue
            if (preset, players, flags) not in configs:
                configs.append((preset, players, flags))
    return configs, refused


FLAG_CONFIGS, REFUSED = flag_configs()
#: explicit chance: the small deck at 2, 3 and 4 players, each small-deck flag's values
#: on it, and each other flag of the classic deck on it
EXPLICIT = [("classic", n, {}) for n in (2, 3, 4)] + [
    ("classic", 2, {name: value}) for name in SMALL_DECK_FLAGS
    for value in flag_values(name, FLAGS[name]) if value != SMALL[name]] + [
    ("classic", p, f) for _, p, f in FLAG_CONFIGS
    if next(iter(f)) not in SMALL_DECK_FLAGS + ("hand_size", "scoring", "target_score")
    and FLAGS[next(iter(f))].variants in (None, ("classic", "house"),
                                          ("classic", "house", "onepiece"))]


def _id(config):
    preset, players, flags = config
    return f"{preset}-{players}-" + ",".join(f"{k}={v}" for k, v in flags.items())


def check(game, sims=1):
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)
    declared(game)


def declared(game):
    """GameType and GameInfo against the rules and what random games return."""
    rules, players = game.config.rules, game.num_players()
    kind = game.get_type()
    zero = rules.reward == "win"
    assert kind.utility == (pyspiel.GameType.Utility.ZERO_SUM if zero
                            else pyspiel.GameType.Utility.GENERAL_SUM)
    assert game.utility_sum() == (0.0 if zero else None)
    assert kind.chance_mode == (pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
                                if game.explicit else
                                pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC)
    assert kind.provides_information_state_tensor == game.explicit
    assert (kind.min_num_players, kind.max_num_players) == (2, 10)
    assert game.num_distinct_actions() == game.config.layout.size
    if zero:
        low, high = uno_spiel.win_values(players, rules.teams)
        assert (game.min_utility(), game.max_utility()) == (low, high)
        assert low == pytest.approx(-1 / (1 if rules.teams else players - 1), rel=1e-12)
        assert high == pytest.approx(1.0, rel=1e-12) and high <= 1.0
    rng = np.random.default_rng(players)
    for _ in range(2):
        state, steps = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
            steps += 1
        returns = state.returns()
        assert steps <= game.max_game_length()
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
        if zero:  # exactly, in either order
            assert sum(returns) == 0.0 and sum(reversed(returns)) == 0.0
            assert returns == pytest.approx(state.uno.rewards, abs=1e-6)
        if not game.explicit:
            with pytest.raises(RuntimeError, match="chance='explicit'"):
                state.information_state_tensor(0)


@pytest.mark.parametrize("config", list(preset_configs()), ids=_id)
def test_random_sim_test_on_every_preset_and_player_count(config):
    preset, players, flags = config
    check(pyspiel.load_game("python_uno", {"preset": preset, "players": players,
                                           "max_turns": TURNS, **flags}))


#: the presets on which issue #65 saw returns past ``max_utility`` at 4, 6, 7 and 10
#: players (where -1/(N-1) is inexact in float64)
_INEXACT = ("classic", "classic112", "flip", "progressive", "seven_o", "jump_in",
            "strict", "multi")
#: (preset, players) of games played to a winner: every preset, at 2 to 10 players in
#: turn (teams: 4), and the presets above at 4, 6, 7 and 10 in turn (cheap: the suite's
#: budget)
WINNER_CONFIGS = sorted({(preset, 4 if rules.teams else 2 + i % 9)
                         for i, (preset, rules) in enumerate(PRESETS.items())} |
                        {(preset, (4, 6, 7, 10)[i % 4]) for i, preset in enumerate(_INEXACT)})


@pytest.mark.parametrize("config", WINNER_CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}")
def test_a_winners_returns_lie_within_the_declared_bounds(config):
    """Rounds that end with a winner (hands of 1 card, so that random play often
    finishes one within 40 turns): OpenSpiel's ``random_sim_test``, which checks every return against
    ``min_utility``/``max_utility``, and the winner's return is ``max_utility`` exactly,
    a loser's ``min_utility`` exactly, the returns summing to exactly 0."""
    preset, players = config
    game = pyspiel.load_game("python_uno", {"preset": preset, "players": players,
                                            "hand_size": 1, "max_turns": 40})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    low, high = game.min_utility(), game.max_utility()
    assert (low, high) == uno_spiel.win_values(players, game.config.rules.teams)
    rng = np.random.default_rng(players)
    for _ in range(10):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
        returns = state.returns()
        assert all(low <= r <= high for r in returns) and sum(returns) == 0.0
        if any(returns):  # a winner, not a truncation
            assert max(returns) == high and min(returns) == low
            return
    pytest.fail(f"no winner in 10 random games of {preset} at {players} players")


@pytest.mark.parametrize("config", FLAG_CONFIGS, ids=_id)
def test_random_sim_test_on_every_flag_value(config):
    preset, players, flags = config
    params = {"preset": preset, "players": players, "max_turns": TURNS, **flags}
    if "onepiece_cards" in params:
        params["onepiece_cards"] = str(params["onepiece_cards"])
    check(pyspiel.load_game("python_uno", params))


@pytest.mark.parametrize("config", EXPLICIT, ids=_id)
def test_random_sim_test_with_explicit_chance(config):
    preset, players, flags = config
    game = pyspiel.load_game("python_uno", {"preset": preset, "players": players,
                                            "max_turns": 4, **SMALL, **flags})
    assert game.explicit
    check(game)
    sampled = pyspiel.load_game("python_uno", {"preset": preset, "players": players,
                                               "max_turns": 4, "chance": "sampled",
                                               **SMALL, **flags})
    assert not sampled.explicit
    check(sampled)


def test_the_sweep_covers_every_flag():
    covered = {name for _, _, flags in FLAG_CONFIGS for name in flags}
    # the deck is set by the presets, which the preset sweep covers
    assert covered >= set(FLAGS) - {"deck"}
    # what the declarations allow but python_uno refuses: a match of several rounds,
    # a game longer than OpenSpiel counts (max_turns=1e9), 20 cards each for 2
    assert {name for name, _ in REFUSED} <= {"target_score", "hand_size", "max_turns"}
    assert len(FLAG_CONFIGS) >= 30 and len(EXPLICIT) >= 20
    assert {f.name for f in dataclasses.fields(Rules)} == set(FLAGS)
