"""Scenario tests of UNO Flip (docs/rules.md section 5, issue [flip]) with exact outcomes.

Cards are named light side first (``R5|P7``); a scenario's listed cards fix their own
pairing, the rest of the deck is paired from the seed. "reading" marks a point docs/rules.md
leaves open (see ``uno_env/engine/flip.py``).
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from uno_env import Game
from uno_env.engine import codes as C


def scen(hands, top, **kw) -> Game:
    kw.setdefault("uno_call", False)
    return Game.from_scenario(preset="flip", hands=hands, top=top, **kw)


def hand(g: Game, seat: int) -> list[str]:
    return sorted(g.hand(seat))


def moves(g: Game) -> set[str]:
    return set(g.legal_moves())


def colours(card: str, side: str = "light") -> set[str]:
    letters = "RYGB" if side == "light" else "PTOV"
    return {f"{card}:{c}" for c in letters}


def whole_deck(g: Game) -> Counter:
    cards = [c for q in range(g.num_players) for c in g.hand(q)] + g.draw_pile + g.discard
    return Counter(cards)


# --- deck and pairing ----------------------------------------------------------------------


def test_deck_is_112_cards_with_the_faces_of_rules_5():
    g = Game("flip", 4, seed=3)
    pairs = g.pairing
    assert len(pairs) == 112
    light = Counter(p.split("|")[0] for p in pairs)
    dark = Counter(p.split("|")[1] for p in pairs)
    for c, d in zip("RYGB", "PTOV"):
        for r in [*map(str, range(1, 10)), "D1", "R", "S", "F"]:
            assert light[c + r] == 2
        for r in [*map(str, range(1, 10)), "D5", "R", "SE", "F"]:
            assert dark[d + r] == 2
        assert light[c + "0"] == 0 and dark[d + "0"] == 0
    assert light["W"] == light["W2"] == dark["W"] == dark["WC"] == 4
    assert sum(light.values()) == sum(dark.values()) == 112
    assert g.side == "light"


def test_pairing_is_per_match_from_the_seed_and_settable():
    a, b = Game("flip", 4, seed=1), Game("flip", 4, seed=1)
    assert a.pairing == b.pairing
    b.reset(2)
    assert a.pairing != b.pairing
    hands_before = a.hand(0)
    own = sorted(b.pairing)
    a.reset(1, pairing=own)
    assert sorted(a.pairing) == own
    # the deal is the same card for card by light face
    assert [h.split("|")[0] for h in a.hand(0)] == [h.split("|")[0] for h in hands_before]
    with pytest.raises(ValueError, match="both sides"):
        a.reset(1, pairing=["R5"] * 112)
    with pytest.raises(ValueError, match="112"):
        a.reset(1, pairing=own[:5])


def test_the_rest_of_a_scenario_deck_is_paired_from_the_seed():
    a = scen([["R5|P7", "W2|WC"], ["B1|T1"]], top="R3|O3", seed=4)
    b = scen([["R5|P7", "W2|WC"], ["B1|T1"]], top="R3|O3", seed=5)
    assert a.hand(0) == ["R5|P7", "W2|WC"] and a.top == "R3|O3"
    assert a.pairing != b.pairing
    assert whole_deck(a) == Counter(a.pairing)


# --- moves name the whole card ---------------------------------------------------------------


def test_same_face_in_play_different_hidden_faces_are_different_moves():
    """docs/rules.md 5: a move names the whole card; identical cards are one move."""
    g = scen([["R5|P7", "R5|T2", "G2|OSE", "G2|OSE"], ["B1|T1"]], top="R1|P1")
    assert moves(g) == {"R5|P7", "R5|T2", "draw"}
    g = scen([["R5|P7", "R5|T2", "G2|OSE", "G2|OSE"], ["B1|T1"]], top="G3|P1")
    assert moves(g) == {"G2|OSE", "draw"}
    g.play("G2|OSE")
    assert hand(g, 0) == sorted(["R5|P7", "R5|T2", "G2|OSE"])
    g = scen([["R5|P7", "R5|T2"], ["B1|T1"]], top="R1|P1")
    g.play("R5|T2")
    assert hand(g, 0) == sorted(["R5|P7"]) and g.top == "R5|T2"


def test_move_codec_round_trips_on_both_sides():
    g = scen([["R5|P7", "W2|P1", "Y3|WC"], ["B1|T1"]], top="R1|P2")
    for a in g.legal_actions():
        assert g.layout.encode(g.layout.decode(a, 0, g._dark()), 0, g._dark(), g._mask) == a
    assert moves(g) == {"R5|P7", "draw"} | colours("W2|P1")
    g = scen([["R5|P7", "W2|P1", "Y3|WC"], ["B1|T1"]], top="R1|P2", side="dark")
    assert moves(g) == {"R5|P7", "W2|P1", "draw"} | colours("Y3|WC", "dark")
    for a in g.legal_actions():
        assert g.layout.encode(g.layout.decode(a, 1, g._dark()), 1, g._dark(), g._mask) == a
    with pytest.raises(ValueError, match="colour must be one of P, T, O, V"):
        g.play("Y3|WC:R")


# --- light side effects ----------------------------------------------------------------------


def test_draw_one_next_draws_one_and_is_skipped():
    g = scen([["RD1|P1", "R2|P3"], ["Y1|T1", "Y2|T2"], ["G1|O1"]], top="R5|P5",
             draw_pile=["B9|V9", "B8|V8"])
    g.play("RD1|P1")
    assert hand(g, 1) == sorted(["Y1|T1", "Y2|T2", "B9|V9"])
    assert (g.current_player, g.phase, g.top, g.color) == (2, "play", "RD1|P1", "R")


def test_skip_and_reverse_on_the_light_side():
    g = scen([["RS|P1", "R2|P3"], ["Y1|T1"], ["G1|O1"]], top="R5|P5")
    g.play("RS|P1")
    assert g.current_player == 2
    g = scen([["RR|P1", "R2|P3"], ["Y1|T1"], ["G1|O1"]], top="R5|P5")
    g.play("RR|P1")
    assert (g.current_player, g.direction) == (2, -1)


def test_wild_draw_two_restriction_without_bluffing():
    """W2 only without a card of the colour in force (other colours' same numbers and
    other wilds do not count)."""
    g = scen([["W2|P1", "B5|T5", "W|V1"], ["Y1|T1"]], top="R5|P5", bluff=False)
    assert moves(g) == {"B5|T5", "draw"} | colours("W2|P1") | colours("W|V1")
    g = scen([["W2|P1", "R9|T5"], ["Y1|T1"]], top="R5|P5", bluff=False)
    assert moves(g) == {"R9|T5", "draw"}
    g = scen([["W2|P1", "R9|T5"], ["Y1|T1"]], top="R5|P5", bluff=True)
    assert moves(g) == {"R9|T5", "draw"} | colours("W2|P1")


def test_wild_draw_two_accept_challenge_guilty_and_innocent():
    pile = ["B1|V1", "B2|V2", "B3|V3", "B4|V4", "B6|V6"]
    hands = [["W2|P1", "R9|T5", "G1|O1"], ["Y1|T1"], ["Y2|T2"]]
    g = scen(hands, top="R5|P5", draw_pile=pile)
    g.play("W2|P1:G")
    assert (g.current_player, g.phase, g.pending_draw) == (1, "challenge", 2)
    assert moves(g) == {"challenge", "accept"}
    g.play("accept")
    assert hand(g, 1) == sorted(["B1|V1", "B2|V2", "Y1|T1"])
    assert (g.current_player, g.color) == (2, "G")
    # guilty (held R9 with red in force): the player draws 2, the challenger plays
    g = scen(hands, top="R5|P5", draw_pile=pile)
    g.play("W2|P1:G")
    g.play("challenge")
    assert hand(g, 0) == sorted(["R9|T5", "B1|V1", "B2|V2", "G1|O1"])
    assert (g.current_player, g.phase, g.color) == (1, "play", "G")
    assert g.stats["challenges_won"] == 1 and g.stats["w4_bluffs"] == 1
    # innocent: the challenger draws 4 and loses the turn
    g = scen([["W2|P1", "Y9|T5"], ["Y1|T1"], ["Y2|T2"]], top="R5|P5", draw_pile=pile)
    g.play("W2|P1:G")
    g.play("challenge")
    assert hand(g, 1) == sorted(["Y1|T1", "B1|V1", "B2|V2", "B3|V3", "B4|V4"])
    assert g.current_player == 2
    assert g.stats == {**g.stats, "w4_played": 1, "w4_bluffs": 0, "challenges": 1,
                       "challenges_won": 0, "cards_drawn": 4}


# --- dark side effects -----------------------------------------------------------------------


def test_draw_five_on_the_dark_side():
    pile = ["B1|V1", "B2|V2", "B3|V3", "B4|V4", "B6|V6", "B7|V7"]
    g = scen([["R1|PD5", "R2|P3"], ["Y1|T1"], ["G1|O1"]], top="B5|P6", side="dark",
             draw_pile=pile)
    g.play("R1|PD5")
    assert hand(g, 1) == sorted(["Y1|T1", "B1|V1", "B2|V2", "B3|V3", "B4|V4", "B6|V6"])
    assert (g.current_player, g.color, g.side) == (2, "P", "dark")


def test_skip_everyone_the_same_player_plays_again():
    """The UNO Flip instruction sheet: after A's skip-everyone the next to act is A again."""
    g = scen([["R1|PSE", "R2|P3", "R3|P4"], ["Y1|T1"], ["G1|O1"], ["B1|V1"]],
             top="B5|P6", side="dark")
    g.play("R1|PSE")
    assert (g.current_player, g.phase, g.turns) == (0, "play", 1)
    assert moves(g) == {"R2|P3", "R3|P4", "draw"}


def test_wild_draw_colour_seed_example_four_cards_and_failed_challenge_two_more():
    """The UNO Flip instruction sheet: top purple 6, A (no purple) plays WC naming orange; B draws pink 2, a
    wild, teal 7, orange 4: four cards, and is skipped. A failed challenge: two more."""
    pile = ["R1|P2", "B2|W", "G3|T7", "B4|O4", "B6|V6", "B7|V7"]
    hands = [["Y1|WC", "R2|P3"], ["Y2|T1"], ["G1|O1"]]
    g = scen(hands, top="B1|V6", side="dark", draw_pile=pile)
    assert moves(g) == {"draw"} | colours("Y1|WC", "dark")
    g.play("Y1|WC:O")
    assert (g.current_player, g.phase, g.pending_draw) == (1, "challenge", 0)
    g.play("accept")
    assert hand(g, 1) == sorted(["R1|P2", "G3|T7", "Y2|T1", "B2|W", "B4|O4"])
    assert (g.current_player, g.color) == (2, "O")
    g = scen(hands, top="B1|V6", side="dark", draw_pile=pile)
    g.play("Y1|WC:O")
    g.play("challenge")  # A held no purple: innocent
    assert len(g.hand(1)) == 1 + 6
    assert "B6|V6" in g.hand(1) and "B7|V7" in g.hand(1)
    assert g.current_player == 2


def test_wild_draw_colour_guilty_player_draws_until_the_colour():
    pile = ["R1|P2", "B4|O4", "B6|V6"]
    g = scen([["Y1|WC", "R2|V3"], ["Y2|T1"], ["G1|O1"]], top="B1|V6", side="dark",
             draw_pile=pile, bluff=True)
    g.play("Y1|WC:O")
    g.play("challenge")
    assert hand(g, 0) == sorted(["R1|P2", "R2|V3", "B4|O4"])
    assert (g.current_player, g.phase, g.color) == (1, "play", "O")


def test_wild_draw_colour_restricted_without_bluffing():
    g = scen([["Y1|WC", "R2|V3"], ["Y2|T1"]], top="B1|V6", side="dark", bluff=False)
    assert moves(g) == {"R2|V3", "draw"}


# --- flip ------------------------------------------------------------------------------------


def test_flip_turns_discard_draw_pile_and_hands_seed_example():
    """The UNO Flip instruction sheet: top red 6, A plays red Flip; the whole discard pile turns, so the new
    top is the dark side of the oldest discard (purple 8); B with teal 8, orange 3 and
    pink reverse may play only teal 8. The draw pile's order reverses."""
    g = scen([["RF|T1", "R2|P3"], ["Y1|T8", "Y2|O3", "Y4|PR"], ["G1|O1"]], top="R6|P9",
             discard=["G7|V8", "B3|T3"], draw_pile=["B1|V1", "B2|V2"])
    before = g.draw_pile
    g.play("RF|T1")
    assert g.side == "dark"
    assert g.discard == ["RF|T1", "R6|P9", "B3|T3", "G7|V8"]
    assert (g.top, g.color, g.current_player, g.phase) == ("G7|V8", "V", 1, "play")
    assert g.draw_pile == before[::-1]
    assert g.draw_pile[-2:] == ["B2|V2", "B1|V1"]
    assert hand(g, 1) == sorted(["Y1|T8", "Y2|O3", "Y4|PR"])  # hands keep their cards
    assert moves(g) == {"Y1|T8", "draw"}
    assert g.stats["flips"] == 1
    g.play("Y1|T8")
    assert (g.current_player, g.color) == (2, "T")


def test_flip_back_to_light_and_flip_on_flip():
    g = scen([["RF|T1", "R2|P3"], ["Y1|TF", "Y2|O3"], ["G1|O1"]], top="R6|P9",
             discard=["G7|V8"])
    g.play("RF|T1")
    assert moves(g) == {"draw"}  # V8 on top: neither T F nor O3 matches
    g = scen([["RF|T1", "R2|P3"], ["Y1|TF", "Y2|O3"], ["G1|O1"]], top="R6|P9",
             discard=["G7|T8"])
    g.play("RF|T1")
    g.play("Y1|TF")  # teal flip on teal 8: back to light, oldest = RF|T1 shows RF
    assert g.side == "light"
    assert g.discard == ["Y1|TF", "G7|T8", "R6|P9", "RF|T1"]
    assert (g.top, g.color, g.current_player) == ("RF|T1", "R", 2)


def test_action_face_turned_up_by_a_flip_has_no_effect():
    g = scen([["RF|T1", "R2|P3"], ["Y1|T8"], ["G1|O1"]], top="R6|P9",
             discard=["G7|PD5"])
    g.play("RF|T1")
    assert (g.top, g.color, g.current_player, g.hand_sizes) == ("G7|PD5", "P", 1, [1, 1, 1])


def test_wild_turned_up_by_a_flip_is_answered_by_the_next_player():
    g = scen([["RF|T1", "R2|P3"], ["Y1|T8", "Y2|O3"], ["G1|O1"]], top="R6|P9",
             discard=["G7|WC"])
    g.play("RF|T1")
    assert (g.current_player, g.phase) == (1, "color")
    assert moves(g) == {"color:P", "color:T", "color:O", "color:V"}
    g.play("color:O")
    assert (g.current_player, g.phase, g.color) == (1, "play", "O")
    assert moves(g) == {"Y2|O3", "draw"}


def test_flip_as_last_card_ends_the_round_without_turning():
    g = scen([["RF|T1"], ["Y1|T8", "W2|WC"], ["G9|O1"]], top="R6|P9")
    g.play("RF|T1")
    assert g.is_over and g.side == "light" and g.winner == 0
    assert g.round_points == [1 + 50 + 9, 0, 0]


def test_last_draw_cards_still_draw_and_count():
    g = scen([["RD1|P1"], ["Y1|T8"], ["G9|O1"]], top="R6|P9", draw_pile=["B5|V5"])
    g.play("RD1|P1")
    assert g.is_over and hand(g, 1) == sorted(["Y1|T8", "B5|V5"])
    assert g.round_points == [1 + 5 + 9, 0, 0]
    g = scen([["Y1|WC"], ["Y5|T8"], ["G9|O1"]], top="R6|V9", side="dark",
             draw_pile=["B5|V5", "B6|O6", "B7|V7"])
    g.play("Y1|WC:O")  # no challenge: the next player draws until orange
    assert g.is_over and hand(g, 1) == sorted(["B5|V5", "B6|O6", "Y5|T8"])
    assert g.round_points == [5 + 6 + 8 + 1, 0, 0]


# --- two players, first card, scoring ----------------------------------------------------------


@pytest.mark.parametrize("card,side,extra", [
    ("RS|P1", "light", 0), ("RR|P1", "light", 0), ("RD1|P1", "light", 1),
    ("R1|PD5", "dark", 5), ("R1|PSE", "dark", 0), ("R1|PR", "dark", 0)])
def test_two_players_action_cards_give_another_move(card, side, extra):
    pile = ["B1|V1", "B2|V2", "B3|V3", "B4|V4", "B6|V6", "B7|V7"]
    g = scen([[card, "R2|P3"], ["Y1|T1"]], top="R6|P6", side=side, draw_pile=pile)
    g.play(card)
    assert g.current_player == 0 and len(g.hand(1)) == 1 + extra


def test_two_players_draw_wilds_after_accept_same_player_again():
    pile = ["B1|V1", "B2|O2", "B3|V3"]
    g = scen([["W2|P1", "Y2|P3"], ["Y1|T1"]], top="R6|P6", draw_pile=pile)
    g.play("W2|P1:B")
    g.play("accept")
    assert g.current_player == 0 and len(g.hand(1)) == 3
    g = scen([["Y1|WC", "Y2|P3"], ["Y3|T1"]], top="R6|V6", side="dark", draw_pile=pile)
    g.play("Y1|WC:O")
    g.play("accept")
    assert g.current_player == 0 and len(g.hand(1)) == 3


def test_first_card_is_never_wild_draw_two_or_flip_and_draw_one_applies():
    """docs/rules.md 5: a first W2 or F goes back (project's reading for F); a first D1
    makes the first player draw 1 and skips them."""
    seen_d1 = 0
    for seed in range(150):
        g = Game("flip", 3, seed=seed, uno_call=False)
        light = g.top.split("|")[0]
        assert light not in ("W2",) and not light.endswith("F")
        assert g.side == "light" and g.discard == [g.top]
        if light.endswith("D1"):
            seen_d1 += 1
            assert g.hand_sizes == [7, 8, 7] and g.current_player == 2
    assert seen_d1 > 0


def test_scoring_on_the_dark_side_seed_example_98_points():
    """The UNO Flip instruction sheet: A goes out on the dark side; B holds 8 and D5, C holds SE and W:
    8 + 20 + 30 + 40 = 98 (the light faces, worth 149, do not count)."""
    g = scen([["R3|V4"], ["R9|P8", "W2|TD5"], ["W|OSE", "W2|W"]], top="B1|V6",
             side="dark")
    g.play("R3|V4")
    assert g.is_over and g.round_points == [98, 0, 0]
    assert g.rewards == [1.0, -0.5, -0.5]


def test_match_scoring_keeps_the_pairing_and_restarts_on_the_light_side():
    g = scen([["R3|V4"], ["R9|P8", "W2|TD5"], ["W|OSE", "W2|W"]], top="B1|V6",
             side="dark", target_score=200)
    pairing = g.pairing
    g.play("R3|V4")
    assert not g.is_over and g.scores == [98, 0, 0] and g.round == 2
    assert g.side == "light" and g.dealer == 0 and g.pairing == pairing
    g2 = scen([["R3|V4"], ["R9|P8", "W2|TD5"], ["W|OSE", "W2|W"]], top="B1|V6",
              side="dark", target_score=70, scoring="penalty")
    g2.play("R3|V4")
    assert g2.is_over and g2.scores == [0, 28, 70] and g2.winner == 0


# --- bad input ------------------------------------------------------------------------------


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="both, light side first"):
        scen([["R5"], ["B1|T1"]], top="R3|O3")
    with pytest.raises(ValueError, match="not a card"):
        scen([["X9|P1"], ["B1|T1"]], top="R3|O3")
    with pytest.raises(ValueError, match="not a dark face"):
        scen([["R5|B1"], ["B1|T1"]], top="R3|O3")
    with pytest.raises(ValueError, match="not a light face"):
        scen([["P5|R1"], ["B1|T1"]], top="R3|O3")
    with pytest.raises(ValueError, match="only 2 cards with dark side"):
        scen([["R5|P7", "R6|P7", "R7|P7"], ["B1|T1"]], top="R3|O3")
    with pytest.raises(ValueError, match="side must be"):
        scen([["R5|P7"], ["B1|T1"]], top="R3|O3", side="grey")
    with pytest.raises(ValueError, match="side='dark' needs the flip deck"):
        Game.from_scenario(hands=[["R5"], ["B1"]], top="R3", side="dark")
    with pytest.raises(ValueError, match="not supported with the 'flip' deck"):
        Game("flip", 4, stack="any")
    g = scen([["R5|P7", "R6|P6"], ["B1|T1"]], top="R3|O3")
    before = [a.copy() for a in g._state]
    with pytest.raises(ValueError, match="without a colour"):
        g.play("R6|P6:R")
    with pytest.raises(ValueError, match="no card"):
        g.play("R5|P1")
    with pytest.raises(ValueError, match="not a move of the flip deck.*draw, pass"):
        g.play("DRAW")
    with pytest.raises(ValueError, match="not legal"):
        g.step(g.layout.PLAY + 111)
    for a, b in zip(before, g._state):
        np.testing.assert_array_equal(a, b)


def test_observation_layout_classic_unchanged_and_flip_fields():
    from uno_env.engine.observe import observation_slices
    classic, flip = Game("classic", 4), Game("flip", 4)
    s = observation_slices(112, 4, flip.config.rules)
    # Flip's fields, then the shown hand's, appended after every other (#48)
    assert list(s)[-7:] == ["hand_dark", "opponent_backs", "draw_back", "top_other",
                            "played_dark", "shown_hand", "shown_by"]
    assert s["shown_by"].stop == flip.layout.obs_size
    assert classic.layout.obs_size == \
        observation_slices(54, 4, classic.config.rules)["shown_by"].stop
    assert flip.layout.size == 112 * 5 + 10
    assert int(flip._state.info[0, C.I_SIDE]) == 0


def test_catch_is_offered_beside_the_colour_after_a_flip_turns_up_a_wild():
    g = Game.from_scenario(preset="flip", hands=[["RF|T1", "R2|P3"], ["Y1|T8", "Y2|O3"]],
                           top="R6|P9", discard=["G7|W"], draw_pile=["B1|V1", "B2|V2"])
    g.play("RF|T1")  # no uno call: player 0 is down to one card
    assert moves(g) == {"color:P", "color:T", "color:O", "color:V", "catch"}
    g.play("catch")
    assert len(g.hand(0)) == 3 and g.phase == "color"
    g.play("color:T")
    assert (g.current_player, g.phase, g.color) == (1, "play", "T")


# --- moved from test_flip_invariants.py (its invariant loops are now tests/environments/test_contract.py)
def test_random_play_flips_and_plays_wild_draws():
    from uno_env.evaluation.simulation import simulate
    t = simulate("flip", 4, num_games=8, seed=3, threads=1).totals
    assert t["flips"] > 0 and t["w4_played"] > 0


def test_heuristic_beats_random_in_flip():
    from uno_env.evaluation.simulation import simulate
    r = simulate("flip", 2, num_games=300, seed=1, agents=("heuristic", "random"), threads=1)
    assert r.wins[0] > 1.5 * r.wins[1]
