"""The counts the state keeps as cards move (``engine/tallies.py``):
after every move of random games of every single-sided preset, they equal a count of
the hands and the discard pile made from scratch; the heuristic reads them, so its
games keep their golden hashes (``test_golden.py``)."""
from __future__ import annotations

import numpy as np
import pytest

from uno_env import Game
from uno_env.rules.config import make_config
from uno_env.engine import codes as C
from uno_env.engine.tallies import recount_state, tallies
from uno_env.envs.every_seat import EverySeatBatch

#: every single-sided variant, with rules that move cards in their own ways: 7-0 and
#: hand shuffles (chaos), jump-ins, stacking, One Piece's gives and returned challenges
CASES = (
    ("classic", 4, {}),
    ("classic112", 3, {"wx_rule": "swap"}),
    ("street", 4, {}),
    ("chaos", 4, {}),
    ("teams", 4, {}),
    ("onepiece", 4, {"challenge": "return", "shanks_give": "two_players"}),
    ("onepiece", 2, {}),
)


def _expected(state, g, spec) -> np.ndarray:
    """The tallies of game ``g`` counted again, card type by card type."""
    copy = type(state)(*(a.copy() for a in state))
    recount_state(copy, g, spec)
    return tallies(copy, g)


def _by_hand(state, g, spec) -> np.ndarray:
    """The same counts from a plain loop over every card (independent of
    ``recount_state``)."""
    players = state.hands.shape[1]
    out = np.zeros((players + 1, C.NUM_TALLIES), np.int64)
    for t in range(state.hands.shape[2]):
        face = spec.type_face[t, 0]
        color, rank = int(spec.face_color[face]), int(spec.face_rank[face])
        slot = color % 4 if color < C.NO_COLOR else 4
        for row in range(players + 1):
            n = int(state.hands[g, row, t]) if row < players else \
                int(spec.type_count[t]) - int(state.discard_counts[g, t])
            out[row, C.T_SLOT + slot] += n
            out[row, C.T_RANK + rank] += n
    return out


@pytest.mark.parametrize("preset,players,rules", CASES,
                         ids=[f"{p}-{n}p" for p, n, _ in CASES])
def test_tallies_follow_every_move(preset, players, rules):
    env = EverySeatBatch(6, preset, num_players=players, seed=5, **rules)
    spec = env.config.spec
    rng = np.random.default_rng(3)
    env.reset()
    st = env._state
    checked = 0
    for step in range(400):
        for g in range(env.num_envs):
            assert np.array_equal(tallies(st, g), _expected(st, g, spec)), \
                f"{preset}: game {g} after step {step}: tallies {tallies(st, g)}"
            checked += 1
        env.step(env.random_actions(rng))
    assert checked == 400 * env.num_envs
    assert np.array_equal(_expected(st, 0, spec), _by_hand(st, 0, spec))


def test_a_single_sided_face_is_coloured_exactly_below_the_wild_ranks():
    """What ``policies._situation_from_state`` assumes when it reads the unseen cards
    per rank from the tallies (the scan it replaced counted coloured faces)."""
    for preset, players, rules in CASES:
        spec = make_config(preset, players, **rules).spec
        face = spec.type_face[:, 0]
        coloured = spec.face_color[face] < C.NO_COLOR
        assert np.array_equal(coloured, spec.face_rank[face] < C.FIRST_WILD_RANK), preset


def test_a_scenario_and_its_moves_keep_the_counts():
    game = Game.from_scenario(hands=[["R5", "R7", "W4"], ["B7", "G2"]], top="R8",
                              draw_pile=["Y3", "Y4"])
    st, spec = game._state, game.config.spec
    assert np.array_equal(tallies(st, 0), _by_hand(st, 0, spec))
    assert tallies(st, 0)[0, C.T_SLOT + C.RED] == 2 and tallies(st, 0)[0, C.T_SLOT + 4] == 1
    assert tallies(st, 0)[0, C.T_RANK + C.WILD4] == 1
    game.play("R5")
    game.play("draw")
    assert np.array_equal(tallies(st, 0), _by_hand(st, 0, spec))
    assert tallies(st, 0)[0, C.T_SLOT + C.RED] == 1


def test_a_determinized_copy_counts_its_own_cards():
    game = Game("street", 4, seed=3)
    game.reset(3)
    for _ in range(30):
        game.play(sorted(game.legal_moves())[0])
    copy = game.determinize(game.current_player, seed=4)
    st = copy._state
    assert not np.array_equal(st.hands[0], game._state.hands[0])
    assert np.array_equal(tallies(st, 0), _by_hand(st, 0, copy.config.spec))


def test_flip_keeps_no_counts():
    """A Flip card's colour depends on the side in play: no counts to keep."""
    game = Game("flip", 4, seed=1)
    assert tallies(game._state, 0).shape == (5, 0)
    assert game._state.info.shape == (1, C.NUM_INFO)
