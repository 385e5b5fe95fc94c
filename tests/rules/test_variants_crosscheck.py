"""Independent cross-check of UNO Flip (docs/rules.md 5) and UNO One Piece (docs/rules.md 6).

Written from the rules text (docs/rules.md sections 1, 2, 5, 6 and the "project's reading"
docstrings of ``engine/flip.py`` / ``engine/onepiece.py``) without reading the variant
test files. Every test sets up a position with ``Game.from_scenario``, plays moves and
asserts the exact outcome. Tests marked ``xfail(strict=True)`` document engine bugs.
"""
from __future__ import annotations

import random

import pytest

from uno_env.envs.game import Game


def flip(hands, top, **kw):
    return Game.from_scenario(preset="flip", hands=hands, top=top, **kw)


def op(hands, top="R3", **kw):
    return Game.from_scenario(preset="onepiece", hands=hands, top=top, **kw)


def snapshot(g: Game):
    return (tuple(tuple(sorted(g.hand(s))) for s in range(g.num_players)), g.top, g.color,
            g.current_player, g.phase, g.direction, tuple(g.draw_pile), tuple(g.discard),
            g.side, tuple(g.hand_sizes), g.turns, g.is_over)


# =====================================================================================
# UNO Flip (docs/rules.md 5)
# =====================================================================================

def test_flip_turns_discard_pile_draw_pile_and_hands():
    """F: the whole discard pile turns (new top = other side of the oldest discard), the
    draw pile's order reverses, every hand turns; play continues on the dark side."""
    g = flip([["RF|V8", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9", "G6|O7"], ["G2|O3", "B2|V2"]],
             top="R7|O2", discard=["B3|P4", "G5|T6"], draw_pile=["Y1|T2", "Y4|T3"])
    draw_before = g.draw_pile
    g.play("RF|V8")
    assert g.side == "dark"
    assert g.top == "B3|P4"            # the oldest discard, now showing P4
    assert g.color == "P"
    assert g.discard == ["RF|V8", "R7|O2", "G5|T6", "B3|P4"]
    assert g.draw_pile == draw_before[::-1]
    assert g.current_player == 1 and g.phase == "play"
    # seat 1's hand now plays by its dark faces: P5 matches P4; T9 and O7 do not
    moves = g.legal_moves()
    assert "B9|P5" in moves
    assert "Y3|T9" not in moves and "G6|O7" not in moves
    assert sorted(g.hand(0)) == sorted(["Y2|T8", "G4|V1"])


def test_flip_back_from_dark_to_light():
    g = flip([["B4|PF", "Y2|T8", "G4|V1"], ["R9|P5", "Y3|T9", "G6|O7"], ["G2|O3", "B2|V2"]],
             top="R2|P6", discard=["G5|T6"], side="dark")
    g.play("B4|PF")
    assert g.side == "light"
    assert g.top == "G5|T6" and g.color == "G"
    assert g.current_player == 1
    moves = g.legal_moves()
    assert "G6|O7" in moves and "R9|P5" not in moves


@pytest.mark.parametrize("oldest", ["B3|PD5", "B3|PSE", "B3|PR", "B3|PF"])
def test_flip_action_face_turned_up_has_no_effect(oldest):
    g = flip([["RF|V8", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9", "G6|O7"],
              ["G2|O3", "B2|V2", "Y6|T1"]],
             top="R7|O2", discard=[oldest])
    g.play("RF|V8")
    assert g.side == "dark" and g.top == oldest and g.color == "P"
    assert g.hand_sizes == [2, 3, 3]
    assert g.current_player == 1 and g.direction == 1 and g.phase == "play"


@pytest.mark.parametrize("oldest", ["B3|W", "B3|WC"])
def test_flip_wild_turned_up_answered_by_color(oldest):
    g = flip([["RF|V8", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9", "G6|O7"],
              ["G2|O3", "B2|V2", "Y6|T1"]],
             top="R7|O2", discard=[oldest])
    g.play("RF|V8")
    assert g.side == "dark" and g.top == oldest
    assert g.current_player == 1 and g.phase == "color"
    assert sorted(g.legal_moves()) == sorted(["color:P", "color:T", "color:O", "color:V"])
    g.play("color:O")
    assert g.color == "O"
    assert g.hand_sizes == [2, 3, 3]       # a turned-up WC makes nobody draw
    assert g.current_player == 1 and g.phase == "play"
    assert "G6|O7" in g.legal_moves()
    g.play("G6|O7")
    assert g.top == "G6|O7" and g.current_player == 2


def test_flip_f_as_last_card_ends_round_without_turning():
    g = flip([["RF|P1"], ["R9|PSE", "Y2|T3"], ["RD1|V2", "W|O3"]],
             top="R5|T5", discard=["B3|P4"])
    g.play("RF|P1")
    assert g.is_over and g.terminated and g.winner == 0
    assert g.side == "light"
    assert g.top == "RF|P1"
    # light side points: 9 + 2 + D1 10 + W 40
    assert g.round_points[0] == 61


def test_flip_scoring_example_98_on_dark_side():
    """docs/rules.md 5 worked example: winner in dark, others hold 8, D5, SE, W = 98."""
    g = flip([["R3|P5"], ["R1|T8", "R2|OD5"], ["R4|VSE", "B5|W"]],
             top="B1|P2", side="dark")
    g.play("R3|P5")
    assert g.is_over and g.winner == 0
    assert g.round_points == [98, 0, 0]


def test_flip_scoring_after_flip_to_dark_counts_dark_faces():
    """A round that ends on the dark side scores the dark faces even though it started
    on light."""
    g = flip([["RF|V8", "Y2|P9", "Y5|P7"], ["B9|T5", "Y3|T9", "G6|O7"], ["G2|O3"]],
             top="R7|O2", discard=["B3|P4"])
    g.play("RF|V8")                       # now dark, top P4, seat 1 to move
    g.play("draw")
    if g.phase == "drawn":
        g.play("pass")
    assert g.current_player == 2
    g.play("draw")
    if g.phase == "drawn":
        g.play("pass")
    assert g.current_player == 0
    g.play("Y2|P9")
    g.play("draw")
    if g.phase == "drawn":
        g.play("pass")
    g.play("draw")
    if g.phase == "drawn":
        g.play("pass")
    assert g.current_player == 0
    g.play("Y5|P7")
    assert g.is_over and g.winner == 0
    expected = 0
    for seat in (1, 2):
        for card in g.hand(seat):
            dark = card.split("|")[1]
            rank = dark[1:] if dark[0] in "PTOV" else dark
            expected += {"D5": 20, "R": 20, "SE": 30, "F": 20, "W": 40, "WC": 60}.get(
                rank, int(rank) if rank.isdigit() else -999)
    assert g.round_points[0] == expected


def test_flip_skip_everyone_same_player_again():
    g = flip([["R3|PSE", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="B1|P2", side="dark")
    g.play("R3|PSE")
    assert g.current_player == 0 and g.phase == "play"
    assert g.hand_sizes == [2, 2, 2]
    assert g.top == "R3|PSE" and g.color == "P"


def test_flip_d5_next_draws_five_and_is_skipped():
    pile = ["R1|T2", "R2|T3", "R4|T4", "R6|O5", "R7|O6", "R8|O8"]
    g = flip([["R3|PD5", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="B1|P2", side="dark", draw_pile=pile)
    g.play("R3|PD5")
    assert sorted(g.hand(1)) == sorted(["B9|P5", "Y3|T9"] + pile[:5])
    assert g.draw_pile[0] == "R8|O8"
    assert g.current_player == 2 and g.top == "R3|PD5" and g.color == "P"


def test_flip_d1_next_draws_one_and_is_skipped():
    g = flip([["RD1|P3", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="R5|T1", draw_pile=["Y7|V7"])
    g.play("RD1|P3")
    assert sorted(g.hand(1)) == sorted(["B9|P5", "Y3|T9", "Y7|V7"])
    assert g.current_player == 2


def test_flip_w2_accept():
    g = flip([["W2|P3", "G7|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="R5|T1", draw_pile=["Y7|V7", "Y8|V8"])
    g.play("W2|P3:B")
    assert g.phase == "challenge" and g.current_player == 1
    g.play("accept")
    assert sorted(g.hand(1)) == sorted(["B9|P5", "Y3|T9", "Y7|V7", "Y8|V8"])
    assert g.current_player == 2 and g.color == "B" and g.top == "W2|P3"


def test_flip_w2_guilty_challenge():
    """W2 played while holding the colour in force (red): guilty, the W2 player draws 2,
    the challenger takes a normal turn with the named colour."""
    g = flip([["W2|P3", "R7|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="R5|T1", draw_pile=["Y7|V7", "Y8|V8"])
    assert "W2|P3:B" in g.legal_moves()   # bluff=True: still offered
    g.play("W2|P3:B")
    g.play("challenge")
    assert sorted(g.hand(0)) == sorted(["R7|T8", "G4|V1", "Y7|V7", "Y8|V8"])
    assert sorted(g.hand(1)) == sorted(["B9|P5", "Y3|T9"])
    assert g.current_player == 1 and g.phase == "play" and g.color == "B"
    assert "B9|P5" in g.legal_moves()


def test_flip_w2_innocent_challenge():
    pile = ["Y7|V7", "Y8|V8", "Y9|V9", "Y6|V6"]
    g = flip([["W2|P3", "G7|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="R5|T1", draw_pile=pile)
    g.play("W2|P3:B")
    g.play("challenge")
    assert sorted(g.hand(1)) == sorted(["B9|P5", "Y3|T9"] + pile)
    assert g.hand_sizes[0] == 2
    assert g.current_player == 2 and g.color == "B"


def test_flip_wc_accept_readme_example():
    """Draws P2, W, T7, O4: four cards (a wild does not count as the colour)."""
    g = flip([["Y1|WC", "R2|P3", "G4|T4"], ["Y2|T1"], ["G1|O1", "G3|P1"]],
             top="B1|V6", side="dark", draw_pile=["R1|P2", "B2|W", "G3|T7", "B4|O4", "B5|O5"])
    g.play("Y1|WC:O")
    g.play("accept")
    assert sorted(g.hand(1)) == sorted(["Y2|T1", "R1|P2", "B2|W", "G3|T7", "B4|O4"])
    assert g.draw_pile[0] == "B5|O5"
    assert g.current_player == 2 and g.color == "O"


def test_flip_wc_innocent_challenge_draws_until_colour_plus_two():
    pile = ["R1|P2", "B2|W", "G3|T7", "B4|O4", "B5|O5", "B6|P6", "B7|P7"]
    g = flip([["Y1|WC", "R2|P3", "G4|T4"], ["Y2|T1"], ["G1|O1", "G3|P1"]],
             top="B1|V6", side="dark", draw_pile=pile)
    g.play("Y1|WC:O")
    g.play("challenge")
    assert sorted(g.hand(1)) == sorted(["Y2|T1"] + pile[:6])   # 4 + 2 more
    assert g.draw_pile[0] == "B7|P7"
    assert g.hand_sizes[0] == 2
    assert g.current_player == 2 and g.color == "O"


def test_flip_wc_guilty_challenge():
    pile = ["R1|P2", "B4|O4", "B5|O5"]
    g = flip([["Y1|WC", "R2|V3", "G4|T4"], ["Y2|T1", "B6|P6"], ["G1|O1", "G3|P1"]],
             top="B1|V6", side="dark", draw_pile=pile)
    g.play("Y1|WC:O")
    g.play("challenge")
    assert sorted(g.hand(0)) == sorted(["R2|V3", "G4|T4", "R1|P2", "B4|O4"])
    assert sorted(g.hand(1)) == sorted(["Y2|T1", "B6|P6"])
    assert g.current_player == 1 and g.phase == "play" and g.color == "O"


@pytest.mark.parametrize("card,side,top,drawn", [
    ("RS|P3", "light", "R5|T1", 0),
    ("RR|P3", "light", "R5|T1", 0),
    ("RD1|P3", "light", "R5|T1", 1),
    ("R3|PD5", "dark", "B1|P2", 5),
    ("R3|PSE", "dark", "B1|P2", 0),
    ("R3|PR", "dark", "B1|P2", 0),
])
def test_flip_two_players_same_player_again(card, side, top, drawn):
    g = flip([[card, "Y2|T8", "G4|V1"], ["B9|O5", "Y3|T9"]], top=top, side=side)
    g.play(card)
    assert g.current_player == 0 and g.phase == "play"
    assert g.hand_sizes == [2, 2 + drawn]


def test_flip_two_players_w2_accept_same_player_again():
    g = flip([["W2|P3", "G7|T8", "G4|V1"], ["B9|P5", "Y3|T9"]], top="R5|T1")
    g.play("W2|P3:Y")
    g.play("accept")
    assert g.hand_sizes == [2, 4]
    assert g.current_player == 0 and g.color == "Y"


def test_flip_same_active_face_different_hidden_faces_are_different_moves():
    g = flip([["R5|P7", "R5|T2", "G4|V1"], ["B9|P5", "Y3|T9"]], top="R3|O1")
    moves = g.legal_moves()
    assert "R5|P7" in moves and "R5|T2" in moves
    g.play("R5|T2")
    assert sorted(g.hand(0)) == sorted(["R5|P7", "G4|V1"])
    assert g.top == "R5|T2"


def test_flip_identical_cards_are_one_move():
    g = flip([["R5|P7", "R5|P7", "G4|V1"], ["B9|P5", "Y3|T9"]], top="R3|O1")
    assert g.legal_moves().count("R5|P7") == 1


def test_flip_last_d5_still_makes_next_draw_and_counts():
    pile = ["R1|T2", "R2|T3", "R4|T4", "R6|T1", "R7|O5"]
    g = flip([["R3|PD5"], ["R8|T8"], ["B2|O9"]], top="B1|P2", side="dark", draw_pile=pile)
    g.play("R3|PD5")
    assert g.is_over and g.winner == 0
    assert g.hand_sizes == [0, 6, 1]
    assert g.round_points[0] == 8 + (2 + 3 + 4 + 1 + 5) + 9


def test_flip_first_card_never_w2_or_f():
    for seed in range(200):
        g = Game(preset="flip", num_players=3, seed=seed)
        light = g.discard[-1].split("|")[0]
        assert light not in ("W2",) and not light.endswith("F"), (seed, g.discard)
        assert g.side == "light"


# =====================================================================================
# UNO One Piece (docs/rules.md 6)
# =====================================================================================

def test_op_ace_skip_skips_two_players():
    g = op([["ACE", "RS", "G5", "B6"], ["B2", "B3"], ["Y2", "Y3"], ["G7", "G8"]], top="R3")
    g.play("ACE+RS")
    assert g.current_player == 3
    assert g.top == "RS" and g.color == "R"
    assert g.discard[-3:] == ["R3", "ACE", "RS"]
    assert sorted(g.hand(0)) == ["B6", "G5"]
    assert g.hand_sizes == [2, 2, 2, 2]


def test_op_ace_skip_three_players_comes_back():
    g = op([["ACE", "RS", "G5", "B6"], ["B2", "B3"], ["Y2", "Y3"]], top="R3")
    g.play("ACE+RS")
    assert g.current_player == 0


def test_op_ace_draw_two_next_draws_four():
    pile = ["Y4", "Y5", "Y6", "Y7", "Y8"]
    g = op([["ACE", "RD2", "G5", "B6"], ["B2", "B3"], ["Y2", "Y3"], ["G7", "G8"]],
           top="R3", draw_pile=pile)
    g.play("ACE+RD2")
    assert sorted(g.hand(1)) == sorted(["B2", "B3"] + pile[:4])
    assert g.current_player == 2 and g.top == "RD2" and g.color == "R"


def test_op_ace_reverse_twice_is_unchanged():
    g = op([["ACE", "RR", "G5", "B6"], ["B2", "B3"], ["Y2", "Y3"], ["G7", "G8"]], top="R3")
    g.play("ACE+RR")
    assert g.direction == 1 and g.current_player == 1
    assert g.top == "RR" and g.color == "R"


def test_op_ace_on_wild_colour_top_is_x_and_colour_x():
    """ACE+X where X matches the named colour of a wild: top is X, colour X's."""
    g = op([["ACE", "GS", "B5", "B6"], ["B2", "B3"], ["Y2", "Y3"], ["G7", "G8"]],
           top="W", color="G")
    g.play("ACE+GS")
    assert g.top == "GS" and g.color == "G" and g.current_player == 3


def test_op_ace_needs_a_playable_action_card():
    g = op([["ACE", "GS", "B5", "GD2"], ["B2", "B3"], ["Y2", "Y3"]], top="R3")
    moves = g.legal_moves()
    assert not any(m.startswith("ACE") for m in moves)


def test_op_ace_alone_only_as_last_card():
    g = op([["ACE", "B5", "G9"], ["B2", "B3"], ["Y2", "Y3"]], top="R3")
    assert not any(m.startswith("ACE") for m in g.legal_moves())
    g = op([["ACE"], ["B2", "SHK"], ["Y2", "HAN"]], top="R3")
    assert {"ACE:R", "ACE:Y", "ACE:G", "ACE:B"} <= set(g.legal_moves())
    g.play("ACE:G")
    assert g.is_over and g.winner == 0
    assert g.round_points[0] == 2 + 50 + 2 + 50


def test_op_uno_offered_for_ace_combo_from_three_cards():
    g = op([["ACE", "RS", "G5"], ["B2", "B3", "B4"], ["Y2", "Y3", "Y4"]], top="R3")
    assert "uno" in g.legal_moves()
    g = op([["ACE", "RS", "G5", "G6"], ["B2", "B3", "B4"], ["Y2", "Y3", "Y4"]], top="R3")
    assert "uno" not in g.legal_moves()


def test_op_drawn_card_is_played_alone():
    g = op([["ACE", "G5", "B7"], ["B2", "B3"], ["Y2", "Y3"]], top="R3", draw_pile=["RS"])
    g.play("draw")
    assert g.phase == "drawn"
    moves = g.legal_moves()
    assert "RS" in moves and "pass" in moves
    assert not any(m.startswith("ACE") for m in moves)


def test_op_hancock_nobody_breaks_player_moves_again():
    g = op([["HAN", "B5", "G9"], ["R2", "Y1"], ["Y2", "G1"], ["G3", "R1"]], top="R3")
    g.play("HAN:B")
    assert g.current_player == 0 and g.phase == "play" and g.color == "B"
    assert g.hand_sizes == [2, 2, 2, 2]


def test_op_hancock_break_in_turn_order_then_after_hancock_player():
    g = op([["HAN", "B5", "G9"], ["R2", "Y1"], ["Y2", "B1", "G4"], ["G3", "B1", "R4"]],
           top="R3")
    g.play("HAN:B")
    assert g.current_player == 2 and g.phase == "jump_in"   # seat 1 has no B1
    assert "B1" in g.legal_moves() and "pass" in g.legal_moves()
    g.play("B1")
    assert g.top == "B1" and g.color == "B"
    assert sorted(g.hand(2)) == ["G4", "Y2"]
    assert g.current_player == 1 and g.phase == "play"
    assert g.hand_sizes == [2, 2, 2, 3]


def test_op_hancock_first_passes_second_breaks():
    g = op([["HAN", "B5", "G9"], ["R2", "Y1"], ["Y2", "B1", "G4"], ["G3", "B1", "R4"]],
           top="R3")
    g.play("HAN:B")
    g.play("pass")
    assert g.current_player == 3 and g.phase == "jump_in"
    g.play("B1")
    assert g.current_player == 1 and g.phase == "play" and g.top == "B1"
    assert g.hand_sizes == [2, 2, 3, 2]


def test_op_hancock_all_pass_player_moves_again():
    g = op([["HAN", "B5", "G9"], ["R2", "Y1"], ["Y2", "B1", "G4"], ["G3", "B1", "R4"]],
           top="R3")
    g.play("HAN:B")
    g.play("pass")
    g.play("pass")
    assert g.current_player == 0 and g.phase == "play" and g.top == "HAN"


def test_op_hancock_breaker_is_next_player_takes_normal_turn():
    g = op([["HAN", "B5", "G9"], ["R2", "B1", "G4"], ["Y2", "G1"], ["G3", "R1"]],
           top="R3", direction=-1)
    g.play("HAN:B")
    # direction -1: seat 3 is asked first, seat 1 last
    assert g.current_player == 1 and g.phase == "jump_in"
    g.play("B1")
    assert g.current_player == 3 and g.phase == "play"


def test_op_shanks_give_to_next_player():
    g = op([["SHK", "R5", "G7", "B8"], ["B2", "B3"], ["Y2", "Y3"], ["G3", "G4"]], top="R3")
    g.play("SHK:B")
    assert g.phase == "give" and g.current_player == 0
    assert sorted(g.legal_moves()) == ["give:B8", "give:G7", "give:R5"]
    g.play("give:G7")
    assert sorted(g.hand(1)) == ["B2", "B3", "G7"]
    assert sorted(g.hand(0)) == ["B8", "R5"]
    assert g.current_player == 1 and g.phase == "play" and g.color == "B"
    assert g.top == "SHK"


def test_op_shanks_give_follows_direction():
    g = op([["SHK", "R5", "G7", "B8"], ["B2", "B3"], ["Y2", "Y3"], ["G3", "G4"]], top="R3",
           direction=-1)
    g.play("SHK:Y")
    g.play("give:R5")
    assert sorted(g.hand(3)) == ["G3", "G4", "R5"]
    assert g.current_player == 3 and g.color == "Y"


def test_op_shanks_uno_offered_for_give_from_two():
    g = op([["SHK", "R5", "G7"], ["B2", "B3", "B4"], ["Y2", "Y3", "Y4"]], top="R3")
    g.play("SHK:B")
    assert "uno" in g.legal_moves()


def test_op_shanks_last_card_wins_without_give():
    g = op([["SHK"], ["B2", "B3"], ["Y2", "Y3"]], top="R3")
    g.play("SHK:R")
    assert g.is_over and g.winner == 0
    assert g.hand_sizes == [0, 2, 2]
    assert g.round_points[0] == 10


def test_op_shanks_give_that_empties_hand_wins():
    g = op([["SHK", "R5"], ["B2", "B3"], ["Y2", "Y3"]], top="R3")
    g.play("SHK:B")
    g.play("give:R5")
    assert g.is_over and g.winner == 0
    assert sorted(g.hand(1)) == ["B2", "B3", "R5"]
    assert g.round_points[0] == 5 + 5 + 5


def test_op_blackbeard_next_draws_two_and_is_skipped_no_challenge():
    g = op([["BBD", "R5", "G7"], ["B2", "B3"], ["Y2", "Y3"], ["G3", "G4"]], top="R3",
           draw_pile=["Y7", "Y8"])
    assert "BBD:G" in g.legal_moves()    # no restriction: red is held
    g.play("BBD:G")
    assert g.phase == "play"
    assert sorted(g.hand(1)) == ["B2", "B3", "Y7", "Y8"]
    assert g.current_player == 2 and g.color == "G" and g.top == "BBD"


def test_op_blackbeard_last_card_still_draws():
    g = op([["BBD"], ["B2", "B3"], ["Y2", "Y3"]], top="R3", draw_pile=["Y7", "Y8"])
    g.play("BBD:G")
    assert g.is_over and g.winner == 0
    assert g.hand_sizes == [0, 4, 2]
    assert g.round_points[0] == 5 + 7 + 8 + 5


def test_op_challenge_guilty_w4_goes_back_top_and_colour_revert():
    pile = ["Y4", "Y5", "Y6", "Y7"]
    g = op([["W4", "G5", "B7"], ["B2", "B3"], ["Y2", "Y3"]], top="W", color="G",
           discard=["R3"], draw_pile=pile)
    g.play("W4:B")
    assert g.phase == "challenge" and g.current_player == 1
    g.play("challenge")
    assert sorted(g.hand(0)) == sorted(["W4", "G5", "B7"] + pile)
    assert g.top == "W" and g.color == "G"
    assert g.discard == ["R3", "W"]
    assert sorted(g.hand(1)) == ["B2", "B3"]
    assert g.current_player == 1 and g.phase == "play"


def test_op_challenge_innocent_challenger_draws_six():
    pile = ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9", "G2"]
    g = op([["W4", "G5", "B7"], ["B2", "B3"], ["Y2", "Y3"]], top="R3", draw_pile=pile)
    g.play("W4:B")
    g.play("challenge")
    assert sorted(g.hand(1)) == sorted(["B2", "B3"] + pile[:6])
    assert g.top == "W4" and g.color == "B"
    assert g.current_player == 2


def test_op_challenge_accept_draws_four():
    g = op([["W4", "G5", "B7"], ["B2", "B3"], ["Y2", "Y3"]], top="R3",
           draw_pile=["Y4", "Y5", "Y6", "Y7"])
    g.play("W4:B")
    g.play("accept")
    assert g.hand_sizes == [2, 6, 2] and g.current_player == 2


@pytest.mark.parametrize("card,drawn", [
    ("RR", 0), ("RS", 0), ("RD2", 2), ("BBD:G", 2), ("ACE+RS", 0), ("ACE+RR", 0),
    ("ACE+RD2", 4),
])
def test_op_two_players_same_player_again(card, drawn):
    g = op([["ACE", "RR", "RS", "RD2", "BBD", "G5"], ["B2", "B3"]], top="R3")
    g.play(card)
    assert g.current_player == 0 and g.phase == "play"
    assert g.hand_sizes[1] == 2 + drawn


def test_op_two_players_w4_accept_same_player_again():
    g = op([["W4", "G5", "B7"], ["B2", "B3"]], top="R3")
    g.play("W4:G")
    g.play("accept")
    assert g.current_player == 0 and g.hand_sizes == [2, 6]


def test_op_two_players_hancock_break_then_breaker_moves():
    g = op([["HAN", "B5", "G9"], ["R2", "B1", "G4"]], top="R3")
    g.play("HAN:B")
    assert g.current_player == 1 and g.phase == "jump_in"
    g.play("B1")
    assert g.current_player == 1 and g.phase == "play"


def test_op_special_cards_score_fifty():
    g = op([["R5"], ["SHK", "BBD"], ["ACE", "HAN"]], top="R3")
    g.play("R5")
    assert g.is_over and g.round_points[0] == 200


def test_op_first_card_handling():
    seen_shk = False
    for seed in range(400):
        g = Game(preset="onepiece", num_players=3, seed=seed)
        first = g.discard[0]
        assert first not in ("W4", "BBD", "ACE", "HAN"), (seed, g.discard)
        if g.top == "SHK" and len(g.discard) == 1:
            seen_shk = True
            assert g.phase == "color"
            assert sorted(g.legal_moves()) == ["color:B", "color:G", "color:R", "color:Y"]
            g.play("color:G")
            assert g.phase == "play" and g.color == "G"
            assert sum(g.hand_sizes) == 21
    assert seen_shk


# =====================================================================================
# Cross-variant checks
# =====================================================================================

@pytest.mark.parametrize("preset,deck_size", [("flip", 112), ("onepiece", 110)])
def test_card_conservation_random_games(preset, deck_size):
    rng = random.Random(7)
    for seed in range(3):
        g = Game(preset=preset, num_players=3 + seed, seed=seed)
        for _ in range(400):
            if g.is_over:
                break
            g.play(rng.choice(g.legal_moves()))
            total = sum(g.hand_sizes) + g.draw_pile_size + len(g.discard)
            assert total == deck_size, (seed, g.history[-1])
            assert [len(g.hand(s)) for s in range(g.num_players)] == g.hand_sizes


@pytest.mark.parametrize("preset,hands,top,bad", [
    ("flip", [["R5|P7", "G4|V1", "B2|T2"], ["B9|P5", "Y3|T9"]], "R3|O1", "G4|V1"),
    ("flip", [["R5|P7", "G4|V1", "B2|T2"], ["B9|P5", "Y3|T9"]], "R3|O1", "R5|P8"),
    ("onepiece", [["ACE", "GS", "B5"], ["B2", "B3"]], "R3", "ACE+GS"),
    ("onepiece", [["ACE", "GS", "B5"], ["B2", "B3"]], "R3", "ACE:R"),
    ("onepiece", [["SHK", "GS", "B5"], ["B2", "B3"]], "R3", "give:GS"),
])
def test_illegal_move_raises_and_leaves_state(preset, hands, top, bad):
    g = Game.from_scenario(preset=preset, hands=hands, top=top)
    before = snapshot(g)
    with pytest.raises(ValueError, match="legal moves"):
        g.play(bad)
    assert snapshot(g) == before


# =====================================================================================
# More edge cases
# =====================================================================================

def test_flip_f_matches_f_by_symbol_and_two_players_next_is_other():
    g = flip([["RF|V8", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"]], top="BF|O2",
             discard=["G5|T6"])
    assert "RF|V8" in g.legal_moves()
    g.play("RF|V8")
    assert g.side == "dark" and g.top == "G5|T6" and g.color == "T"
    assert g.current_player == 1


def test_flip_wild_turned_up_direction_minus_one():
    g = flip([["RF|V8", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="R7|O2", discard=["B3|W"], direction=-1)
    g.play("RF|V8")
    assert g.current_player == 2 and g.phase == "color"


def test_flip_w2_turned_up_by_flip_back_to_light_draws_nothing():
    g = flip([["B4|PF", "Y2|T8", "G4|V1"], ["R9|P5", "Y3|T9", "G6|O7"], ["G2|O3", "B2|V2"]],
             top="R2|P6", discard=["W2|T6"], side="dark")
    g.play("B4|PF")
    assert g.side == "light" and g.top == "W2|T6"
    assert g.phase == "color" and g.current_player == 1
    g.play("color:G")
    assert g.color == "G" and g.hand_sizes == [2, 3, 2]
    assert g.current_player == 1 and g.phase == "play"


def test_flip_f_last_card_on_dark_scores_dark():
    g = flip([["R2|PF"], ["R9|PSE", "Y2|T3"], ["RD1|V2", "W|O3"]],
             top="B1|P5", side="dark")
    g.play("R2|PF")
    assert g.is_over and g.winner == 0 and g.side == "dark" and g.top == "R2|PF"
    assert g.round_points[0] == 30 + 3 + 2 + 3


def test_flip_w2_other_wilds_do_not_count_for_guilt():
    pile = ["Y7|V7", "Y8|V8", "Y9|V9", "Y6|V6"]
    g = flip([["W2|P3", "W|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="R5|T1", draw_pile=pile)
    g.play("W2|P3:B")
    g.play("challenge")
    assert g.hand_sizes == [2, 6, 2] and g.current_player == 2


def test_flip_two_players_wc_accept_same_player_again():
    g = flip([["Y1|WC", "R2|P3", "G4|T4"], ["Y2|T1"]], top="B1|V6", side="dark",
             draw_pile=["R1|P2", "B4|O4"])
    g.play("Y1|WC:O")
    g.play("accept")
    assert g.hand_sizes == [2, 3] and g.current_player == 0 and g.color == "O"


def test_flip_drawn_f_can_be_played_and_flips():
    g = flip([["Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="R7|O2", discard=["B3|P4"], draw_pile=["RF|V8"])
    g.play("draw")
    assert g.phase == "drawn" and "RF|V8" in g.legal_moves()
    g.play("RF|V8")
    assert g.side == "dark" and g.top == "B3|P4" and g.current_player == 1


def test_op_ace_combo_matching_by_symbol():
    g = op([["ACE", "RS", "B5", "B6"], ["B2", "B3"], ["Y2", "Y3"], ["G7", "G8"]], top="GS")
    g.play("ACE+RS")
    assert g.top == "RS" and g.color == "R" and g.current_player == 3


def test_op_ace_skip_direction_minus_one_five_players():
    g = op([["ACE", "RS", "B5", "B6"], ["B2", "B3"], ["Y2", "Y3"], ["G7", "G8"],
            ["G2", "G3"]], top="R3", direction=-1)
    g.play("ACE+RS")
    assert g.current_player == 2 and g.direction == -1


def test_op_ace_d2_as_last_cards_still_draws_four():
    pile = ["Y4", "Y5", "Y6", "Y7"]
    g = op([["ACE", "RD2"], ["B2", "B3"], ["Y2", "Y3"]], top="R3", draw_pile=pile)
    moves = g.legal_moves()
    assert "ACE+RD2" in moves and not any(m.startswith("ACE:") for m in moves)
    g.play("ACE+RD2")
    assert g.is_over and g.winner == 0
    assert g.hand_sizes == [0, 6, 2]
    assert g.round_points[0] == 5 + 22 + 5


def test_op_hancock_break_with_last_card_wins():
    g = op([["HAN", "B5", "G9"], ["R2", "Y1"], ["B1"], ["G3", "R4"]], top="R3")
    g.play("HAN:B")
    assert g.current_player == 2 and g.phase == "jump_in"
    g.play("B1")
    assert g.is_over and g.winner == 2


def test_op_hancock_uno_offered_for_break_from_two():
    g = op([["HAN", "B5", "G9"], ["R2", "Y1"], ["B1", "G4"], ["G3", "R4"]], top="R3")
    g.play("HAN:B")
    assert g.current_player == 2
    assert "uno" in g.legal_moves()


def test_op_w4_other_colour_same_number_is_innocent():
    g = op([["W4", "G3", "B7"], ["B2", "B3"], ["Y2", "Y3"]], top="R3")
    g.play("W4:B")
    g.play("challenge")
    assert g.hand_sizes == [2, 8, 2] and g.current_player == 2


def test_op_challenge_guilty_two_players_challenger_moves():
    g = op([["W4", "R5", "B7"], ["B2", "R9"]], top="R3",
           draw_pile=["Y4", "Y5", "Y6", "Y7"])
    g.play("W4:B")
    g.play("challenge")
    assert g.hand_sizes == [7, 2] and g.top == "R3" and g.color == "R"
    assert g.current_player == 1 and "R9" in g.legal_moves()


def test_op_shanks_two_players_give_then_opponent_moves():
    g = op([["SHK", "R5", "G7"], ["B2", "B3"]], top="R3")
    g.play("SHK:B")
    g.play("give:R5")
    assert sorted(g.hand(1)) == ["B2", "B3", "R5"] and g.current_player == 1
    assert g.color == "B"


def _full_deck(preset):
    from collections import Counter
    g = Game(preset=preset, num_players=3, seed=0)
    cards = Counter(g.draw_pile) + Counter(g.discard)
    for s in range(3):
        cards += Counter(g.hand(s))
    return cards


def test_op_guilty_challenge_after_catch_reshuffle_restores_card_under_w4():
    """A catch during a pending challenge reshuffles the pile; the card under the W4
    is kept so the guilty verdict can restore it (docs/rules.md 6, precise points)."""
    from collections import Counter
    hands = [["W4", "R5"], ["B2", "B3"], ["Y2", "Y3"]]
    rest = _full_deck("onepiece") - Counter(c for h in hands for c in h) \
        - Counter(["R3", "Y9"])
    g = op(hands, top="R3", draw_pile=["Y9"], discard=sorted(rest.elements()))
    assert g.draw_pile_size == 1
    g.play("W4:B")                      # no uno: catchable
    assert g.phase == "challenge" and "catch" in g.legal_moves()
    g.play("catch")
    assert g.hand_sizes[0] == 3 and g.discard == ["R3", "W4"]
    g.play("challenge")
    assert g.top == "R3" and g.color == "R" and g.discard == ["R3"]
    assert "W4" in g.hand(0) and g.hand_sizes[0] == 8
    assert g.current_player == 1 and g.phase == "play"
    assert sum(g.hand_sizes) + g.draw_pile_size + len(g.discard) == 110


def test_flip_wc_draws_through_reshuffle_until_colour():
    from collections import Counter
    g0 = Game(preset="flip", num_players=3, seed=0)
    deck = Counter(g0.pairing)
    hands = [[c for c in deck if c.endswith("|WC")][:1], [], []]
    dark = lambda c: c.split("|")[1]
    plain = sorted(c for c in deck if dark(c)[0] in "PTV" and dark(c)[1:].isdigit())
    hands[0] += plain[:2]
    hands[1] = plain[2:4]
    hands[2] = plain[4:6]
    top = plain[6]
    first = plain[7]                         # the only card left in the draw pile
    rest = deck - Counter(c for h in hands for c in h) - Counter([top, first])
    g = flip(hands, top=top, side="dark", draw_pile=[first],
             discard=sorted(rest.elements()), seed=0)
    assert g.draw_pile_size == 1
    g.play(hands[0][0] + ":O")
    g.play("accept")
    new = Counter(g.hand(1)) - Counter(hands[1])
    assert sum(new.values()) >= 2
    assert sum(n for c, n in new.items() if dark(c).startswith("O")) == 1
    assert g.discard == [hands[0][0]]
    assert sum(g.hand_sizes) + g.draw_pile_size + len(g.discard) == 112
    assert g.current_player == 2 and g.color == "O"


def test_op_hancock_as_last_card_wins():
    g = op([["HAN"], ["B2", "B1"], ["Y2", "Y3"]], top="R3")
    g.play("HAN:B")
    assert g.is_over and g.winner == 0 and g.round_points[0] == 2 + 1 + 2 + 3


def test_flip_last_wc_still_draws_until_colour_and_counts_dark():
    g = flip([["Y1|WC"], ["Y2|T1", "G2|T3"], ["G1|O1"]], top="B1|V6", side="dark",
             draw_pile=["R1|P2", "B2|W", "G3|T7", "B4|O4"])
    g.play("Y1|WC:O")
    assert g.is_over and g.winner == 0 and g.hand_sizes == [0, 6, 1]
    assert g.round_points[0] == (1 + 3 + 2 + 40 + 7 + 4) + 1


def test_flip_two_players_w2_challenges():
    g = flip([["W2|P3", "G7|T8"], ["B9|P5", "Y3|T9"]], top="R5|T1")
    g.play("W2|P3:B")
    g.play("challenge")                  # innocent: challenger draws 4, loses the turn
    assert g.hand_sizes == [1, 6] and g.current_player == 0
    g = flip([["W2|P3", "R7|T8"], ["B9|P5", "Y3|T9"]], top="R5|T1")
    g.play("W2|P3:B")
    g.play("challenge")                  # guilty: W2 player draws 2, challenger plays
    assert g.hand_sizes == [3, 2] and g.current_player == 1 and g.phase == "play"


def test_flip_match_next_round_light_side_same_pairing():
    g = flip([["R3|P5"], ["R1|T8", "R2|OD5"], ["R4|VSE", "B5|W"]], top="B1|P2",
             side="dark", target_score=500)
    pairing = g.pairing
    g.play("R3|P5")
    assert not g.is_over and g.scores == [98, 0, 0]
    assert g.round == 2 and g.side == "light" and g.pairing == pairing
    assert g.hand_sizes == [7, 7, 7]


def test_flip_deck_composition_and_seeded_pairing():
    from collections import Counter
    g = Game(preset="flip", num_players=2, seed=5)
    pairing = g.pairing
    assert len(pairing) == 112
    light = Counter(c.split("|")[0] for c in pairing)
    dark = Counter(c.split("|")[1] for c in pairing)
    for col in "RYGB":
        for rank in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "D1", "R", "S", "F"]:
            assert light[col + rank] == 2, col + rank
    assert light["W"] == 4 and light["W2"] == 4
    for col in "PTOV":
        for rank in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "D5", "R", "SE", "F"]:
            assert dark[col + rank] == 2, col + rank
    assert dark["W"] == 4 and dark["WC"] == 4
    assert Game(preset="flip", num_players=2, seed=5).pairing == pairing
    assert Game(preset="flip", num_players=2, seed=6).pairing != pairing


def test_op_deck_composition():
    deck = _full_deck("onepiece")
    assert sum(deck.values()) == 110
    assert deck["SHK"] == 2 and deck["BBD"] == 2 and deck["ACE"] == 1 and deck["HAN"] == 1
    assert deck["W"] == 2 and deck["W4"] == 2
    for col in "RYGB":
        assert deck[col + "0"] == 1
        for rank in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "D2"]:
            assert deck[col + rank] == 2


def test_op_uncalled_give_is_catchable_by_next_player():
    g = op([["SHK", "B5", "G7"], ["R2", "Y4"], ["R1", "G4"], ["G3", "R4"]])
    g.play("SHK:B")
    g.play("give:G7")
    assert g.current_player == 1 and "catch" in g.legal_moves()
    g.play("catch")
    assert g.hand_sizes[0] == 3
    g = op([["SHK", "B5", "G7"], ["R2", "Y4"], ["R1", "G4"], ["G3", "R4"]])
    g.play("SHK:B")
    g.play("uno")
    g.play("give:G7")
    assert "catch" not in g.legal_moves()


def test_op_match_scores_and_winner_deals():
    g = op([["R5"], ["SHK", "BBD"], ["ACE", "HAN"]], target_score=500)
    g.play("R5")
    assert not g.is_over and g.scores == [200, 0, 0] and g.round == 2
    assert g.dealer == 0 and g.current_player in (1, 2)


@pytest.mark.parametrize("preset", ["flip", "onepiece"])
def test_first_card_effects(preset):
    seen = set()
    for seed in range(250):
        g = Game(preset=preset, num_players=3, seed=seed)
        assert len(g.discard) == 1
        face = g.top.split("|")[0]
        rank = face if face in ("W", "SHK") else face[1:]
        if rank in ("S",):
            assert (g.current_player, g.direction, g.hand_sizes) == (2, 1, [7, 7, 7])
        elif rank == "R":
            assert (g.current_player, g.direction, g.hand_sizes) == (0, -1, [7, 7, 7])
        elif rank in ("D1", "D2"):
            extra = 1 if rank == "D1" else 2
            assert (g.current_player, g.hand_sizes) == (2, [7, 7 + extra, 7])
        elif rank in ("W", "SHK"):
            assert g.current_player == 1 and g.phase == "color"
        else:
            assert rank.isdigit(), (seed, g.top)
            assert (g.current_player, g.phase, g.hand_sizes) == (1, "play", [7, 7, 7])
        seen.add(rank if not rank.isdigit() else "n")
    assert {"S", "R", "W", "n"} <= seen


@pytest.mark.parametrize("preset,hands,top,kw,setup,bad", [
    # flip: a wild turned up by a flip waits for color:X; a card play is refused
    ("flip", [["RF|V8", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3"]], "R7|O2",
     {"discard": ["B3|W"]}, ["RF|V8"], "B9|P5"),
    # flip: a light colour after the flip to dark
    ("flip", [["RF|V8", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3"]], "R7|O2",
     {"discard": ["B3|W"]}, ["RF|V8"], "color:R"),
    # flip: facing a W2, a card play is refused
    ("flip", [["W2|P3", "G7|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3"]], "R5|T1",
     {}, ["W2|P3:B"], "B9|P5"),
    # one piece: the Shanks give is compulsory (no draw, no other card play)
    ("onepiece", [["SHK", "R5", "G7"], ["B2", "B3"], ["Y2"]], "R3", {}, ["SHK:B"], "draw"),
    ("onepiece", [["SHK", "R5", "G7"], ["B2", "B3"], ["Y2"]], "R3", {}, ["SHK:B"], "give:B2"),
    # one piece: during the Hancock window only the asked seat's Luffy card or pass
    ("onepiece", [["HAN", "B5", "G9"], ["R2", "Y1"], ["B1", "G4"], ["G3", "R4"]], "R3", {},
     ["HAN:B"], "G4"),
    # one piece: facing a W4 the challenged seat cannot play a card
    ("onepiece", [["W4", "G5", "B7"], ["B2", "B3"], ["Y2"]], "R3", {}, ["W4:B"], "B2"),
])
def test_illegal_move_mid_phase_raises_and_leaves_state(preset, hands, top, kw, setup, bad):
    g = Game.from_scenario(preset=preset, hands=hands, top=top, **kw)
    for move in setup:
        g.play(move)
    before = snapshot(g)
    with pytest.raises(ValueError, match="legal moves"):
        g.play(bad)
    assert snapshot(g) == before


def test_flip_bluff_false_masks_illegal_w2_and_skips_challenge():
    g = flip([["W2|P3", "R7|T8", "G1|T1"], ["B9|P5", "Y3|T9"], ["G2|O3"]], top="R5|T1",
             bluff=False)
    assert not any(m.startswith("W2|P3") for m in g.legal_moves())
    g = flip([["W2|P3", "G7|T8", "G1|T2"], ["B9|P5", "Y3|T9"], ["G2|O3"]], top="R5|T1",
             bluff=False)
    g.play("W2|P3:B")
    assert g.phase == "play" and g.current_player == 2 and g.hand_sizes == [2, 4, 1]


def test_flip_opponents_see_the_other_side():
    """docs/rules.md 5: the other side of every card in a hand is public (observation)."""
    from uno_env.engine.observe import observation_slices
    g = flip([["RF|V8", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="R7|O2", discard=["B3|P4"])
    deck = g.config.deck
    sl = observation_slices(deck.num_types, 3, g.config.rules)

    def backs(viewer):
        rows = g.observe(viewer)[sl["opponent_backs"]].reshape(2, -1)
        return [{i: int(v) for i, v in enumerate(row) if v} for row in rows]

    ids = lambda *faces: {deck.face_id(f): 1 for f in faces}
    assert backs(1) == [ids("O3", "V2"), ids("V8", "T8", "V1")]   # seats 2 and 0
    g.play("RF|V8")                                                # now dark
    assert backs(1) == [ids("G2", "B2"), ids("Y2", "G4")]


def test_flip_pending_draw_and_se_counts_one_turn():
    g = flip([["W2|P3", "G7|T8", "G1|T2"], ["B9|P5", "Y3|T9"], ["G2|O3"]], top="R5|T1")
    g.play("W2|P3:B")
    assert g.pending_draw == 2
    g = flip([["Y1|WC", "R2|P3", "G4|T4"], ["Y2|T1"], ["G1|O1"]], top="B1|V6", side="dark")
    g.play("Y1|WC:O")
    assert g.pending_draw == 0
    g = flip([["R3|PSE", "Y2|T8", "G4|V1"], ["B9|P5", "Y3|T9"], ["G2|O3", "B2|V2"]],
             top="B1|P2", side="dark")
    g.play("R3|PSE")
    assert g.turns == 1 and g.current_player == 0


def test_op_drawn_shanks_give_and_uno():
    g = op([["R5", "G7"], ["B2", "B9"], ["Y2"]], top="B3", draw_pile=["SHK"])
    g.play("draw")
    assert g.phase == "drawn"
    assert "uno" not in g.legal_moves()          # SHK leaves two cards
    g.play("SHK:B")
    assert g.phase == "give" and "uno" in g.legal_moves()   # a give from two
    g.play("give:R5")
    assert sorted(g.hand(1)) == ["B2", "B9", "R5"] and g.current_player == 1


def test_op_last_w4_still_draws_no_challenge():
    g = op([["W4"], ["B2"], ["Y2"]], draw_pile=["Y4", "Y5", "Y6", "Y7"])
    g.play("W4:G")
    assert g.is_over and g.winner == 0 and g.hand_sizes == [0, 5, 1]
    assert g.round_points[0] == 2 + 4 + 5 + 6 + 7 + 2


def test_teams_score_on_side_ended_and_special_cards():
    g = flip([["R3|P5"], ["R1|T8", "R2|OD5"], ["R4|VSE", "B5|W"], ["G1|T1"]],
             top="B1|P2", side="dark", teams=True)
    g.play("R3|P5")
    assert g.round_points == [8 + 20 + 1, 0, 0, 0] and g.winning_team == (0, 2)
    g = op([["R5"], ["SHK", "BBD"], ["ACE", "HAN"], ["G2"]], teams=True)
    g.play("R5")
    assert g.round_points == [102, 0, 0, 0]


def test_moving_again_offers_uno_and_no_stacking_on_flip_penalties():
    g = op([["HAN", "B5", "B6"], ["R2", "Y4"], ["R1", "G4"], ["G3", "R4"]])
    g.play("HAN:B")                        # nobody holds B1: moves again with two cards
    assert g.current_player == 0 and "uno" in g.legal_moves()
    g = flip([["R3|PSE", "R4|P6", "R5|P8"], ["B9|O5", "Y3|T9"], ["G2|O3"]],
             top="B1|P2", side="dark")
    g.play("R3|PSE")
    assert g.current_player == 0 and "uno" in g.legal_moves()
    g = flip([["W2|P3", "G7|T8", "G1|T2"], ["W2|P4", "Y3|T9", "RD1|V1"], ["G2|O3"]],
             top="R5|T1")
    g.play("W2|P3:B")
    assert sorted(g.legal_moves()) == ["accept", "challenge"]   # no stacking a W2
    g = flip([["RD1|P3", "G7|T8", "G1|T2"], ["RD1|P4", "Y3|T9"], ["G2|O3"]], top="R5|T1")
    g.play("RD1|P3")
    assert g.current_player == 2 and g.hand_sizes == [2, 3, 1]
