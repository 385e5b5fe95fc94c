"""UNO Flip over random play (issue [flip]): card conservation and the exact legal-action
count after every step, PettingZoo's api_test for 2-10 players, agreement of
``simulate``, ``VectorEnv`` and ``Game`` whatever the batch size or thread count, the
numba agents' legality, and no leak of hidden information."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

sys.path.insert(0, str(Path(__file__).parent))

import uno_env  # noqa: E402
from uno_env import Game, make_config  # noqa: E402
from uno_env.engine import codes as C  # noqa: E402
from uno_env.engine.entry import GameOps  # noqa: E402
from uno_env.engine.policies import AGENT_CODES  # noqa: E402
from uno_env.engine.state import allocate  # noqa: E402
from uno_env.simulation import simulate  # noqa: E402
from uno_env.vector import VectorEnv  # noqa: E402
from test_house_invariants import _agents_stay_legal  # noqa: E402


def _check(game: Game, scratch: np.ndarray) -> None:
    st, sp = game._state, game.config.spec
    n_draw, n_disc = int(st.info[0, C.I_DRAW_LEN]), int(st.info[0, C.I_DISCARD_LEN])
    total = st.hands[0].sum(axis=0).astype(int)
    total += np.bincount(st.draw_pile[0, :n_draw], minlength=112)
    total += np.bincount(st.discard[0, :n_disc], minlength=112)
    assert (total == 1).all(), "the 112 cards are not all there exactly once"
    assert (st.hands[0].sum(axis=1) == st.hand_size[0]).all()
    assert (np.bincount(st.discard[0, :n_disc], minlength=112) == st.discard_counts[0]).all()
    assert sorted(st.dark_face[0]) == sorted(sp.type_face[:, 1])
    n = GameOps(game.config).legal_mask(st, 0, scratch)
    assert n == int(scratch.sum()) == len(game.legal_actions())
    moves = game.legal_moves()
    assert len(set(moves)) == len(moves)
    if game.is_over:
        assert n == 0
        if game.terminated:
            assert game.hand_sizes[game.round_winner] == 0
    else:
        assert n > 0


@pytest.mark.parametrize("num_players", [2, 3, 5, 10])
def test_conservation_and_exact_legal_count_every_step(num_players):
    game = Game("flip", num_players, seed=0)
    scratch = np.zeros(game.layout.size, np.uint8)
    rng = np.random.default_rng(num_players)
    sides = set()
    for i in range(6):
        game.reset(7, i)
        _check(game, scratch)
        while not game.is_over:
            game.step(int(rng.choice(game.legal_actions())))
            sides.add(game.side)
            _check(game, scratch)
    assert sides == {"light", "dark"}


@pytest.mark.parametrize("num_players", range(2, 11))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_for_2_to_10_players(num_players):
    api_test(uno_env.env(preset="flip", num_players=num_players), num_cycles=150)


def test_simulate_game_i_is_game_i_of_the_game_api():
    result = simulate("flip", 4, num_games=8, seed=3, threads=1)
    assert result.totals["flips"] > 0 and result.totals["w4_played"] > 0
    for i in (0, 5):
        game = Game("flip", 4)
        game.reset(3, i)
        scratch = np.zeros(game.layout.size, np.uint8)
        steps = 0
        while not game.is_over:
            game.step(GameOps(game.config).random_legal(game._state, 0, scratch))
            steps += 1
        assert (result.steps[i], result.turns[i]) == (steps, game.turns)
        assert result.winner[i] == (game.winner if game.winner is not None else -1)
        assert result.points[i].tolist() == game.round_points
        assert result.counters["flips"][i] == game.stats["flips"]


def test_results_do_not_depend_on_batch_size_or_threads(monkeypatch):
    import numba

    from uno_env import simulation as sim_mod
    a = simulate("flip", 5, num_games=120, seed=9, threads=1, agents=("heuristic",))
    monkeypatch.setattr(sim_mod, "CHUNK", 32)
    b = simulate("flip", 5, num_games=120, seed=9, agents=("heuristic",),
                 threads=min(2, numba.config.NUMBA_NUM_THREADS))
    np.testing.assert_array_equal(a.winner, b.winner)
    np.testing.assert_array_equal(a.steps, b.steps)
    np.testing.assert_array_equal(a.counters["flips"], b.counters["flips"])
    small, big = VectorEnv(2, preset="flip", seed=4), VectorEnv(5, preset="flip", seed=4)
    o1, _, _ = small.reset()
    o2, _, _ = big.reset()
    np.testing.assert_array_equal(o1, o2[:2])
    np.testing.assert_array_equal(small._state.dark_face, big._state.dark_face[:2])


@pytest.mark.parametrize("agent", ["random", "greedy", "heuristic"])
def test_numba_agents_choose_legal_actions(agent):
    config = make_config("flip", 4)
    st = allocate(1, 4, config.deck.num_types, config.deck.num_cards, True)
    seen = np.zeros(C.NUM_PHASES, np.int64)
    bad = _agents_stay_legal(st, config.spec, AGENT_CODES[agent], np.uint64(3), 40, seen)
    assert bad == -1, f"{agent} chose an illegal action in game {bad}"
    for phase in (C.PHASE_PLAY, C.PHASE_DRAWN, C.PHASE_CHALLENGE, C.PHASE_COLOR):
        assert seen[phase] > 0, C.PHASE_NAMES[phase]


def test_heuristic_beats_random_in_flip():
    r = simulate("flip", 2, num_games=300, seed=1, agents=("heuristic", "random"), threads=1)
    assert r.wins[0] > 1.5 * r.wins[1]


def _visible(st, g, sp, t):
    """The face of type ``t`` that the other players see (not the one in play)."""
    return int(st.dark_face[g, t]) if st.info[g, C.I_SIDE] == 0 else int(sp.type_face[t, 0])


@pytest.mark.parametrize("num_players", [2, 4])
def test_observation_holds_nothing_hidden_but_shows_the_public_backs(num_players):
    """Hidden: the faces in play of opponents' cards and the draw pile below its top
    card's visible back. Exchanging an opponent's card for a draw-pile card with the
    same visible back, and permuting the draw pile under its top card, never changes the
    mover's observation; changing the back an opponent shows always does."""
    rng = np.random.default_rng(num_players)
    game = Game("flip", num_players, seed=8)
    sp = game.config.spec
    swaps = checked = 0
    for step in range(2500):
        if game.is_over:
            game.reset(8, step)
        seat = game.current_player
        st = game._state
        n = int(st.info[0, C.I_DRAW_LEN])
        if step % 3 == 0 and n > 2:
            before = game.observe(seat)
            st.draw_pile[0, :n - 1] = rng.permutation(st.draw_pile[0, :n - 1])
            q = (seat + 1) % num_players
            for tp in np.flatnonzero(st.hands[0, q]):
                same = [i for i in range(n - 1) if _visible(st, 0, sp, st.draw_pile[0, i])
                        == _visible(st, 0, sp, tp) and st.draw_pile[0, i] != tp]
                if same:
                    i = same[0]
                    tu = int(st.draw_pile[0, i])
                    st.hands[0, q, tp] -= 1
                    st.hands[0, q, tu] += 1
                    st.draw_pile[0, i] = tp
                    swaps += 1
                    break
            game._refresh()
            np.testing.assert_array_equal(game.observe(seat), before)
            # a different visible back is public: the observation changes
            tp = int(np.flatnonzero(st.hands[0, q])[0])
            other = [i for i in range(n - 1) if _visible(st, 0, sp, st.draw_pile[0, i])
                     != _visible(st, 0, sp, tp)]
            if other:
                i = other[0]
                tu = int(st.draw_pile[0, i])
                st.hands[0, q, tp] -= 1
                st.hands[0, q, tu] += 1
                st.draw_pile[0, i] = tp
                game._refresh()
                assert not np.array_equal(game.observe(seat), before)
                st.hands[0, q, tu] -= 1
                st.hands[0, q, tp] += 1
                st.draw_pile[0, i] = tu
                game._refresh()
                checked += 1
        game.step(int(rng.choice(game.legal_actions())))
    assert swaps > 50 and checked > 50
