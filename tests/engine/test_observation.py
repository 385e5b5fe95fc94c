"""The observation holds nothing hidden (issue [engine] item 5): states that differ only
in cards the observer cannot see give identical observations."""
import numpy as np
import pytest

import uno_env
from uno_env.engine import codes as C
from uno_env.engine.observe import observation_slices


def test_other_hands_and_draw_order_do_not_leak():
    base = dict(top="R8", draw_pile=["Y3", "G5", "B9"], current=0)
    a = uno_env.Game.from_scenario(hands=[["R5", "W4"], ["B7", "G2", "Y1"], ["RS", "G9"]],
                                   **base, seed=1)
    b = uno_env.Game.from_scenario(hands=[["R5", "W4"], ["GD2", "W", "B1"], ["Y7", "BR"]],
                                   top="R8", draw_pile=["G7", "Y0", "R2"], current=0, seed=2)
    np.testing.assert_array_equal(a.observe(0), b.observe(0))
    assert not np.array_equal(a.observe(1), b.observe(1))  # seat 1's own hand differs


@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_shuffling_hidden_cards_mid_game_changes_no_observation(num_players):
    """Play a random game; at every 7th step move cards between two *other* hands and
    permute the draw pile (keeping sizes): the mover's observation must not change."""
    rng = np.random.default_rng(num_players)
    game = uno_env.Game(num_players=num_players, seed=5)
    for step in range(400):
        if game.is_over:
            break
        seat = game.current_player
        if step % 7 == 0:
            before = game.observe(seat)
            st = game._state
            others = [q for q in range(num_players) if q != seat]
            n = st.info[0, C.I_DRAW_LEN]
            st.draw_pile[0, :n] = rng.permutation(st.draw_pile[0, :n])
            if len(others) >= 2:
                p, q = others[:2]
                # swap one card of p with one card of q: sizes stay, contents change
                tp = rng.choice(np.flatnonzero(st.hands[0, p]))
                tq = rng.choice(np.flatnonzero(st.hands[0, q]))
                st.hands[0, p, tp] -= 1
                st.hands[0, q, tp] += 1
                st.hands[0, q, tq] -= 1
                st.hands[0, p, tq] += 1
            game._refresh()  # recompute the cached observation from the edited state
            np.testing.assert_array_equal(game.observe(seat), before)
        game.step(int(rng.choice(game.legal_actions())))


def test_observation_fields_hold_what_the_docstring_says():
    game = uno_env.Game.from_scenario(hands=[["R5", "R5", "W4"], ["B7", "G2"], ["G9"]],
                                      top="RS", discard=["R1", "R2"],
                                      draw_pile=["Y3"], current=0)
    obs = game.observe(0)
    s = observation_slices(game.config.deck.num_types, 3)
    deck = game.config.deck
    assert obs[s["hand"]][deck.parse_type("R5")] == 2
    assert obs[s["hand"]][deck.parse_type("W4")] == 1
    assert obs[s["top"]].argmax() == deck.parse_type("RS") and obs[s["top"]].sum() == 1
    assert obs[s["color"]].tolist() == [1, 0, 0, 0]
    assert obs[s["direction"]].tolist() == [1]
    assert obs[s["phase"]].argmax() == C.PHASE_PLAY
    assert obs[s["opponent_cards"]].tolist() == [2, 1]
    assert obs[s["draw_pile"]][0] == game.draw_pile_size
    assert obs[s["played"]].sum() == 3  # R1, R2 and RS are on the discard pile
    assert len(obs) == game.layout.obs_size


@pytest.mark.parametrize("num_players", [2, 5, 10])
def test_policy_kernels_read_the_fields_where_observe_writes_them(num_players):
    """The agents' kernels locate fields by arithmetic (policies._offsets); it must agree
    with the documented layout."""
    from uno_env.engine.jit import python_callable
    from uno_env.engine.policies import _offsets

    cfg = uno_env.make_config("classic", num_players)
    s = observation_slices(cfg.deck.num_types, num_players)
    names = ("hand", "color", "direction", "phase", "opponent_cards", "played", "side")
    assert tuple(python_callable(_offsets)(cfg.spec)) == tuple(s[n].start for n in names)
