"""The soak kernel (``uno_env.engine.soak``, ``uno_env.testing.soak``): it plays
``simulate``'s games, finds no break in them, and does report a planted one.

Only classic UNO is compiled here (the kernel is an entry point of its own, 1-5
minutes cold); ``benchmarks/soak.py`` runs it on every preset."""
from __future__ import annotations

import numpy as np
import pytest

from uno_env import Game, simulate
from uno_env.engine import codes as C
from uno_env.engine import soak as K
from uno_env.engine.entry import kernels
from uno_env.engine.state import allocate
from uno_env.engine.tallies import tallies
from uno_env.testing import _soak_tables, soak, soak_check

GAMES, SEED = 300, 11


@pytest.fixture(scope="module")
def soaked():
    return soak("classic", 4, games=GAMES, seed=SEED)


def test_soak_plays_simulates_games_without_a_break(soaked):
    sim = simulate("classic", 4, num_games=GAMES, seed=SEED, threads=1)
    assert soaked.broken == 0 and soaked.first_break is None
    assert set(soaked.breaks) == set(K.BREAK_NAMES) and not any(soaked.breaks.values())
    assert np.array_equal(soaked.steps, sim.steps)
    assert np.array_equal(soaked.winner, sim.winner)
    assert soaked.decisions == int(sim.steps.sum()) > 0
    assert soaked.truncated == sim.truncated
    assert soaked.games == GAMES


def test_soak_game_index_is_the_seeds_game_index(soaked):
    """Games 100..149 played on their own are games 100..149 of the whole run, and
    checking the observation less often changes no game."""
    part = soak("classic", 4, games=50, seed=SEED, first_game=100, obs_every=7)
    assert part.broken == 0
    assert np.array_equal(part.steps, soaked.steps[100:150])
    assert np.array_equal(part.winner, soaked.winner[100:150])


def _dealt(seed=3):
    game = Game("classic", 4, seed=seed)
    assert soak_check(game) == ()
    return game


def test_a_card_taken_from_a_hand_is_reported():
    game = _dealt()
    t = int(np.flatnonzero(game._state.hands[0, 0])[0])
    game._state.hands[0, 0, t] -= 1
    # a card that left a hand without its count (engine/tallies.py) breaks that too
    assert soak_check(game) == ("hand_size", "deck", "tallies")
    game._state.hand_size[0, 0] -= 1  # the size agrees now: the deck is still short
    assert soak_check(game) == ("deck", "tallies")


def test_planted_state_breaks_are_reported_by_kind():
    game = _dealt()
    st = game._state
    top = int(st.discard[0, st.info[0, C.I_DISCARD_LEN] - 1])
    st.discard_counts[0, top] += 1
    assert soak_check(game) == ("discard_counts", "tallies")

    game = _dealt()  # a count kept as cards move that no longer matches the hand
    tallies(game._state, 0)[2, C.T_RANK + C.SKIP] += 1
    assert soak_check(game) == ("tallies",)

    game = _dealt()
    game._state.info[0, C.I_CURRENT] = 4
    assert soak_check(game) == ("decider",)

    game = _dealt()
    game._state.info[0, C.I_PENDING_DRAW] = 2  # in the play phase: docs/rules.md 3
    assert soak_check(game) == ("pending",)

    game = _dealt()
    game._state.info[0, C.I_DRAW_LEN] = game._state.draw_pile.shape[1] + 1
    assert soak_check(game) == ("piles",)

    game = _dealt()
    t = int(np.flatnonzero(game._state.hands[0, 1])[0])
    game._state.hands[0, 1, t] = -1
    assert "negative" in soak_check(game)


def test_a_game_over_without_an_empty_hand_is_reported():
    game = _dealt()
    game._state.info[0, C.I_STATUS] = C.STATUS_OVER
    game._state.info[0, C.I_PHASE] = C.PHASE_OVER
    game._state.info[0, C.I_WINNER] = game._state.info[0, C.I_MATCH_WINNER] = 0
    assert soak_check(game) == ("finished",)
    game._state.info[0, C.I_STATUS] = C.STATUS_TRUNCATED  # before max_turns
    game._state.info[0, C.I_MATCH_WINNER] = -1
    assert soak_check(game) == ("finished",)


def test_a_played_game_outside_the_bounds_is_counted_and_the_first_recorded():
    """The play loop with an observation bound of 0 everywhere: every game breaks at
    its deal, and the first one is recorded for its replay."""
    game = Game("classic", 4)
    cfg = game.config
    dark, high = _soak_tables(cfg)
    st = allocate(1, 4, cfg.deck.num_types, cfg.deck.num_cards)
    steps, winner = np.zeros(5, np.int32), np.zeros(5, np.int32)
    breaks, first = np.zeros(K.NUM_KINDS, np.int64), np.full(3, -1, np.int64)
    agents = np.zeros(4, np.int64)
    broken = kernels("classic").soak(K.OP_PLAY, st, cfg.spec, agents, np.uint64(2), 40,
                                     1000, 1, dark, np.zeros_like(high), steps, winner,
                                     breaks, first)
    assert broken == 5 and breaks[K.K_OBS] == 5 and breaks.sum() == 5
    assert first.tolist() == [40, 0, 1 << K.K_OBS]
    assert (winner == -2).all() and (steps == 0).all()


@pytest.mark.parametrize("bad", [{"games": 0}, {"obs_every": 1.5}, {"agent": "mcts"}])
def test_soak_refuses_bad_arguments(bad):
    with pytest.raises(ValueError):
        soak("classic", 4, **{"games": 2, **bad})


def _soak_bench():
    import benchmarks.soak as module  # the worker processes unpickle its functions
    return module


def test_the_benchmark_gives_the_same_games_on_one_worker_and_on_two(soaked):
    """benchmarks/soak.py splits the games by index: 1 or 2 processes, several chunks,
    the same games, decisions and truncations (those of ``soak`` in one call)."""
    bench = _soak_bench()
    runs = [bench.soak_all(["classic"], {"random": 20_000}, workers=w, seed=SEED,
                           chunk_decisions=4000, pilot_games=10, progress=False)
            for w in (1, 2)]
    (one,), (two,) = runs
    for key in ("games", "decisions", "truncated", "broken", "breaks"):
        assert one[key] == two[key], key
    assert one["decisions"] >= 20_000 and one["broken"] == 0
    n = one["games"]
    assert n <= GAMES and one["decisions"] == int(soaked.steps[:n].sum())
    assert one["truncated"] == int((soaked.winner[:n] == -1).sum())
    assert "| classic | random |" in bench.table(runs[0])
