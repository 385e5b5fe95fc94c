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


# --- the hand a challenge shows (docs/rules.md 2.5; observe.py's ``shown_hand``) ----------


def _challenged(players=2, guilty=True, **rules):
    """Seat 0 plays a W4 (holding red: guilty, or not) on R8; seat 1 challenges."""
    first = ["R5", "W4", "G2"] if guilty else ["B5", "W4", "G2"]
    hands = [first] + [["B7", "Y2", "G1"], ["Y5", "G7"], ["B1", "B2"]][:players - 1]
    game = uno_env.Game.from_scenario(hands=hands, top="R8", current=0, **rules)
    game.play("W4:G")
    shown = game._state.hands[0, 0].copy()
    game.play("challenge")
    return game, shown


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("guilty", [True, False])
def test_the_challenger_sees_the_hand_it_was_shown_and_nobody_else_does(players, guilty):
    game, shown = _challenged(players, guilty)
    s = observation_slices(game.config.deck.num_types, players, game.config.rules)
    deck = game.config.deck
    challenger = game.observe(1)
    np.testing.assert_array_equal(challenger[s["shown_hand"]], shown)
    assert challenger[s["shown_hand"]][deck.parse_type("W4")] == 0  # played: not in it
    assert challenger[s["shown_by"]].tolist() == [0] * (players - 1) + [1]  # seat 0
    for q in (0, *range(2, players)):
        obs = game.observe(q)
        assert not obs[s["shown_hand"]].any() and not obs[s["shown_by"]].any()
    assert list(s)[-2:] == ["shown_hand", "shown_by"]   # last, after every other field


def test_the_shown_hand_stays_until_the_end_of_the_challengers_next_turn():
    # guilty: the challenger's next turn comes at once; it ends with its play
    game, shown = _challenged(2, guilty=True)
    s = observation_slices(game.config.deck.num_types, 2, game.config.rules)
    assert game.current_player == 1 and game.observe(1)[s["shown_hand"]].any()
    game.play("draw")
    if game.phase == "drawn":
        game.play("pass")
    assert not game.observe(1)[s["shown_hand"]].any()
    # innocent: the challenger loses the turn; seat 0 moves (two players), then seat 1,
    # who still sees the hand until its own turn ends
    game, shown = _challenged(2, guilty=False)
    assert game.current_player == 0
    game.play("draw")
    if game.phase == "drawn":
        game.play("pass")
    assert game.current_player == 1
    np.testing.assert_array_equal(game.observe(1)[s["shown_hand"]], shown)
    game.play("draw")
    if game.phase == "drawn":
        game.play("pass")
    assert not game.observe(1)[s["shown_hand"]].any()


def test_accepting_shows_nothing_and_without_bluff_there_is_no_field():
    game = uno_env.Game.from_scenario(hands=[["R5", "W4", "G2"], ["B7", "Y2"]], top="R8")
    game.play("W4:G")
    game.play("accept")
    s = observation_slices(game.config.deck.num_types, 2, game.config.rules)
    assert not game.observe(1)[s["shown_hand"]].any()
    cfg = uno_env.make_config("classic", 2, bluff=False)
    assert "shown_hand" not in observation_slices(cfg.deck.num_types, 2, cfg.rules)


@pytest.mark.parametrize("preset", ["classic", "street", "flip", "onepiece"])
def test_the_layout_before_the_shown_hand_is_the_earlier_layout(preset):
    """``legacy_observation_size`` is the vector of the earlier env ids: every field of
    today's but the shown hand, at the same offsets."""
    from uno_env.engine.observe import legacy_observation_size
    cfg = uno_env.make_config(preset, 4)
    k, rules = cfg.deck.num_types, cfg.rules
    s = observation_slices(k, 4, rules)
    n = legacy_observation_size(k, 4, rules)
    assert n == s["shown_hand"].start == cfg.layout.obs_size - k - 4
    assert all(v.stop <= n for name, v in s.items() if not name.startswith("shown"))


def test_a_shown_hand_leaks_to_no_other_seat():
    """The hand shown to seat 1 is hidden from the others: a state that differs only in
    it (and in the hidden hands) gives them identical observations."""
    game, _ = _challenged(4, guilty=True)
    before = [game.observe(q) for q in range(4)]
    st = game._state
    st.shown[0] = np.roll(st.shown[0], 3)
    st.info[0, C.I_SHOWN_BY] = 3
    game._refresh()
    for q in (0, 2, 3):
        np.testing.assert_array_equal(game.observe(q), before[q])
    assert not np.array_equal(game.observe(1), before[1])


def test_determinizing_for_another_seat_forgets_the_shown_hand():
    game, _ = _challenged(4, guilty=True)
    s = observation_slices(game.config.deck.num_types, 4, game.config.rules)
    assert game.determinize(1, seed=3).observe(1)[s["shown_hand"]].any()
    other = game.determinize(2, seed=3)
    np.testing.assert_array_equal(other.observe(2), game.observe(2))
    assert not other.observe(1)[s["shown_hand"]].any()
