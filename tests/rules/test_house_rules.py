"""Scenario tests of the house rules (docs/rules.md section 3), the 112-card deck (section 4),
teams and their rewards (sections 2 "Teams" and 7).

Same style as ``test_rules_classic.py``: a position from ``Game.from_scenario``, moves in
the notation of docs/rules.md section 1, exact outcomes. Each docstring cites the paragraph it
checks; "reading" marks a point docs/rules.md leaves open (see ``uno_env/engine/house.py``).
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest


import uno_env  # noqa: E402
from uno_env import Game  # noqa: E402
from test_rules_classic import hand, moves, snapshot, wilds  # noqa: E402


def scen(hands, top="R5", **kw) -> Game:
    """A scenario; ``uno_call`` is off unless a test turns it on (UNO bookkeeping has
    its own tests here and in ``test_rules_classic.py``)."""
    kw.setdefault("uno_call", False)
    return Game.from_scenario(hands=hands, top=top, **kw)


def play(game: Game, *seq: str) -> Game:
    for m in seq:
        game.play(m)
    return game


# --- stacking -----------------------------------------------------------------------------


def test_stack_same_draw_two_on_draw_two_total_passes_on():
    """docs/rules.md 3 stack "same": D2 on D2; the total passes on; accept draws it all and
    loses the turn; no draw while a draw is pending."""
    g = scen([["RD2", "R1"], ["YD2", "B3"], ["G4", "G5"], ["B6", "B7"]], top="R5",
             stack="same", draw_pile=["Y1", "Y2", "Y3", "Y4", "Y5"])
    g.play("RD2")
    assert (g.current_player, g.phase, g.pending_draw) == (1, "stack", 2)
    assert moves(g) == {"YD2", "accept"}
    g.play("YD2")
    assert (g.current_player, g.phase, g.pending_draw) == (2, "stack", 4)
    assert moves(g) == {"accept"}  # a decision even when accept is the only move
    g.play("accept")
    assert hand(g, 2) == sorted(["G4", "G5", "Y1", "Y2", "Y3", "Y4"])
    assert (g.current_player, g.phase, g.pending_draw) == (3, "play", 0)
    assert g.top == "YD2" and g.color == "Y"


def test_stack_same_does_not_mix_draw_two_and_draw_four_nor_plain_wild():
    """docs/rules.md 3: "same" is D2 on D2 and W4 on W4 only; a plain W cannot answer."""
    g = scen([["RD2", "R1"], ["W4", "W", "BD2", "B3"], ["G4"], ["B6"]], stack="same")
    g.play("RD2")
    assert moves(g) == {"BD2", "accept"}
    g = scen([["W4", "R1"], ["W4", "W", "BD2", "B3"], ["G4"], ["B6"]], stack="same")
    g.play("W4:G")
    assert moves(g) == wilds("W4") | {"accept", "challenge"}


def test_stack_any_higher_or_equal_draw_value_colour_ignored():
    """docs/rules.md 3 stack "any": any draw card of equal or higher draw value, colour
    ignored; compared with the top card, not the running total."""
    g = scen([["RD2", "R1"], ["W4", "GD2", "B3"], ["YD2", "W4", "G9"], ["B6", "B8"]],
             stack="any")
    g.play("RD2")
    assert moves(g) == {"GD2", "accept"} | wilds("W4")
    g.play("GD2")  # total 4, top value 2: a D2 still stacks
    assert g.pending_draw == 4
    assert moves(g) == {"YD2", "accept"} | wilds("W4")
    g.play("W4:B")
    assert (g.current_player, g.pending_draw) == (3, 8)
    assert moves(g) == {"accept", "challenge"}  # nothing of value >= 4 to stack


def test_stack_any_draw_two_cannot_go_on_draw_four():
    g = scen([["W4", "R1"], ["YD2", "B3"], ["G4"], ["B6"]], stack="any")
    g.play("W4:R")
    assert moves(g) == {"accept", "challenge"}


def test_stack_challenge_guilty_w4_player_draws_whole_total():
    """docs/rules.md 3: with stacking a challenge settles the whole pending total: guilty,
    the W4 player draws it and the challenger plays on with the named colour."""
    g = scen([["RD2", "R1", "R2"], ["W4", "B3", "B4"], ["G4", "G5"], ["B6"]],
             stack="any", draw_pile=["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8"])
    g.play("RD2")
    g.play("W4:G")
    assert g.pending_draw == 6 and g.current_player == 2
    g.play("challenge")
    # red was in force before the W4 and seat 1 held no red card: innocent
    assert hand(g, 2) == sorted(["G4", "G5", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7",
                                 "Y8"])
    assert (g.current_player, g.phase, g.pending_draw) == (3, "play", 0)

    g = scen([["RD2", "R1", "R2"], ["W4", "R3", "B4"], ["G4", "G5"], ["B6"]],
             stack="any", draw_pile=["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8"])
    play(g, "RD2", "W4:G", "challenge")
    # seat 1 held R3 when red was in force: guilty, draws the whole total of 6
    assert hand(g, 1) == sorted(["R3", "B4", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6"])
    assert (g.current_player, g.phase, g.color) == (2, "play", "G")
    assert hand(g, 2) == ["G4", "G5"]


def test_stack_only_topmost_w4_can_be_challenged():
    """docs/rules.md 3 precise points: only the topmost W4 can be challenged; a stacked W4
    is judged against the colour in force before it (the first W4's named colour)."""
    g = scen([["W4", "R1", "R2"], ["W4", "G3", "B4"], ["G4", "G5"], ["B6"]],
             stack="same", draw_pile=["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8",
                                      "Y9", "B1"])
    g.play("W4:G")      # seat 0 held red: a bluff, but it is no longer on top
    g.play("W4:B")      # seat 1 held G3 with green in force: guilty
    assert g.pending_draw == 8
    g.play("challenge")
    assert len(hand(g, 1)) == 2 + 8 and len(hand(g, 0)) == 2
    assert (g.current_player, g.color) == (2, "B")


def test_stack_w4_obeys_colour_rule_without_bluff():
    """docs/rules.md 3: a stacked W4 still obeys the colour rule; bluff=False masks it and
    offers no challenge."""
    g = scen([["RD2", "R1"], ["W4", "R3"], ["G4"], ["B6"]], stack="any", bluff=False)
    g.play("RD2")
    assert moves(g) == {"accept"}
    g = scen([["RD2", "R1"], ["W4", "B3"], ["G4"], ["B6"]], stack="any", bluff=False)
    g.play("RD2")
    assert moves(g) == {"accept"} | wilds("W4")
    g.play("W4:Y")
    assert moves(g) == {"accept"} and g.pending_draw == 6


def test_stack_last_card_draw_makes_next_draw_whole_total():
    """docs/rules.md 3: a draw card played as the last card makes the next player draw the
    whole pending total (no challenge); docs/rules.md 2: those cards count."""
    g = scen([["RD2", "R1"], ["YD2"], ["G4", "G5"], ["B6"]], stack="same",
             draw_pile=["Y1", "Y2", "Y3", "Y4", "B1"])
    play(g, "RD2", "YD2")
    assert g.is_over and g.winner == 1
    assert hand(g, 2) == sorted(["G4", "G5", "Y1", "Y2", "Y3", "Y4"])
    assert g.round_points[1] == 1 + (4 + 5 + 1 + 2 + 3 + 4) + 6


def test_stack_none_keeps_classic_draw_two():
    g = scen([["RD2", "R1"], ["YD2", "B3"], ["G4"], ["B6"]], draw_pile=["Y1", "Y2"])
    g.play("RD2")
    assert (g.current_player, g.phase) == (2, "play") and len(hand(g, 1)) == 4


# --- 7-0 ----------------------------------------------------------------------------------


def test_seven_swaps_hands_with_chosen_player():
    """docs/rules.md 3 seven_zero: a 7 swaps hands with a chosen player (``swap:+k``, k seats
    ahead in the current direction); the swap is compulsory."""
    g = scen([["R7", "R1"], ["Y1", "Y2"], ["G1", "G2", "G3"], ["B1", "B2", "B3", "B4"]],
             seven_zero=True)
    g.play("R7")
    assert (g.current_player, g.phase) == (0, "swap")
    assert moves(g) == {"swap:+1", "swap:+2", "swap:+3"}
    g.play("swap:+2")
    assert hand(g, 0) == ["G1", "G2", "G3"] and hand(g, 2) == ["R1"]
    assert (g.current_player, g.phase) == (1, "play")


def test_seven_swap_counts_seats_in_the_current_direction():
    g = scen([["R7", "R1"], ["Y1", "Y2"], ["G1", "G2", "G3"], ["B1", "B2", "B3", "B4"]],
             seven_zero=True, direction=-1)
    play(g, "R7", "swap:+1")
    assert hand(g, 3) == ["R1"] and hand(g, 0) == ["B1", "B2", "B3", "B4"]
    assert g.current_player == 3


def test_zero_passes_every_hand_one_seat_in_direction_of_play():
    """docs/rules.md 3: a 0 passes every hand one seat in the direction of play."""
    hands = [["R0", "R1"], ["Y1", "Y2"], ["G1", "G2", "G3"], ["B1", "B2", "B3", "B4"]]
    g = scen(hands, seven_zero=True)
    g.play("R0")
    assert [hand(g, s) for s in range(4)] == [["B1", "B2", "B3", "B4"], ["R1"],
                                              ["Y1", "Y2"], ["G1", "G2", "G3"]]
    assert g.current_player == 1
    g = scen(hands, seven_zero=True, direction=-1)
    g.play("R0")
    assert [hand(g, s) for s in range(4)] == [["Y1", "Y2"], ["G1", "G2", "G3"],
                                              ["B1", "B2", "B3", "B4"], ["R1"]]
    assert g.current_player == 3


def test_seven_as_last_card_wins_without_swap():
    """docs/rules.md 3: no effect when it was the player's last card."""
    g = scen([["R7"], ["Y1", "Y2"], ["G1"], ["B1"]], seven_zero=True, uno_call=False)
    g.play("R7")
    assert g.is_over and g.winner == 0 and hand(g, 0) == []
    assert g.round_points[0] == 1 + 2 + 1 + 1


def test_seven_zero_off_seven_is_a_number():
    g = scen([["R7", "R1"], ["Y1"], ["G1"], ["B1"]])
    g.play("R7")
    assert (g.current_player, g.phase) == (1, "play")
    with pytest.raises(ValueError, match="seven_zero"):
        g.play("swap:+1")


def test_catch_after_swap_only_if_one_card_still_held():
    """docs/rules.md 3 precise points: after hand exchanges a player is catchable only if a
    play left them one card, no call, and they still hold one card at the turn's end."""
    g = scen([["R7", "R1"], ["Y1", "Y2", "Y3"], ["G1"], ["B1", "B2"]], seven_zero=True,
             uno_call=True)
    play(g, "R7", "swap:+1")  # seat 0 played to one card without a call, then swapped
    assert hand(g, 0) == ["Y1", "Y2", "Y3"] and hand(g, 1) == ["R1"]
    assert g.catchable is None and "catch" not in moves(g)
    g = scen([["R7", "R1"], ["Y1"], ["G1", "G2"], ["B1", "B2"]], seven_zero=True,
             uno_call=True)
    play(g, "R7", "swap:+1")  # swapped for a one-card hand: still one card, no call
    assert hand(g, 0) == ["Y1"] and g.catchable == 0
    assert "catch" in moves(g)


def test_first_card_seven_or_zero_does_nothing():
    """docs/rules.md 3 precise points: a 7 or 0 turned up first does nothing."""
    found = set()
    g = Game(num_players=4, seven_zero=True)
    for seed in range(400):
        g.reset(seed)
        if g.top[1:] in ("7", "0"):
            found.add(g.top[1:])
            assert (g.current_player, g.phase) == (1, "play")
            assert all(n == 7 for n in g.hand_sizes)
    assert found == {"7", "0"}


# --- jump-in ------------------------------------------------------------------------------


def test_jump_in_identical_card_play_continues_from_jumper():
    """docs/rules.md 3 jump_in: a player holding an identical card may play it out of turn;
    play continues from that player; the jump-in counts as the jumper's turn."""
    g = scen([["R5", "R1"], ["Y1", "Y2"], ["R5", "G2"], ["B1", "B2"]], top="R3",
             jump_in=True)
    g.play("R5")
    assert (g.current_player, g.phase) == (2, "jump_in")
    assert moves(g) == {"R5", "pass"}
    g.play("R5")
    assert (g.current_player, g.phase, g.turns) == (3, "play", 2)
    assert hand(g, 2) == ["G2"] and hand(g, 1) == ["Y1", "Y2"]


def test_jump_in_pass_resumes_the_held_back_decision():
    g = scen([["R5", "R1"], ["Y1", "Y2"], ["R5", "G2"], ["B1", "B2"]], top="R3",
             jump_in=True)
    play(g, "R5", "pass")
    assert (g.current_player, g.phase, g.turns) == (1, "play", 1)
    assert hand(g, 2) == ["G2", "R5"]


def test_jump_in_never_asks_the_player_nor_offers_wilds():
    """docs/rules.md 3: never the player who played; wilds cannot jump in."""
    g = scen([["R5", "R5", "R1"], ["Y1", "Y2"], ["G2"], ["B1"]], top="R3", jump_in=True)
    g.play("R5")
    assert (g.current_player, g.phase) == (1, "play")
    g = scen([["W", "R1"], ["W", "Y2"], ["G2"], ["B1"]], top="R3", jump_in=True)
    g.play("W:G")
    assert (g.current_player, g.phase) == (1, "play")


def test_jump_in_skipped_player_is_asked_after_the_skip():
    """docs/rules.md 3 precise points: asked after the effect is applied, in turn order
    starting after the player; skipped players are asked too."""
    g = scen([["RS", "R1"], ["RS", "Y2"], ["G2"], ["B1"]], top="R3", jump_in=True)
    g.play("RS")
    assert (g.current_player, g.phase) == (1, "jump_in")
    obs = g.observe(1)
    s = uno_env.engine.observe.observation_slices(g.config.deck.num_types, 4,
                                                  g.config.rules)
    assert list(obs[s["jump_from"]]) == [0, 0, 0, 1]    # seat 0 is 3 seats after seat 1
    assert list(obs[s["jump_resume"]]) == [0, 1, 0, 0]  # seat 2 would move next
    g.play("RS")  # seat 1 jumps in with its own skip: seat 2 is skipped, seat 3 moves
    assert (g.current_player, g.phase) == (3, "play")


def test_jump_in_on_draw_two_without_stacking():
    """Interaction (docs/rules.md 3): jump-in on a draw card. The effect comes first (seat 1
    draws 2 and is skipped); the jumper's D2 makes the player after the jumper draw."""
    g = scen([["RD2", "R1"], ["Y1"], ["RD2", "G2"], ["B1"]], jump_in=True,
             draw_pile=["Y5", "Y6", "G7", "G8"])
    g.play("RD2")
    assert hand(g, 1) == ["Y1", "Y5", "Y6"]
    assert (g.current_player, g.phase) == (2, "jump_in")
    g.play("RD2")
    assert hand(g, 3) == ["B1", "G7", "G8"]
    assert (g.current_player, g.phase) == (0, "play")


def test_jump_in_on_draw_two_with_stacking_total_passes_after_jumper():
    """docs/rules.md 3 precise points: with stacking a jumped-in D2 adds to the total, which
    passes to the player after the jumper."""
    g = scen([["RD2", "R1"], ["Y1"], ["RD2", "G2"], ["B1"]], jump_in=True,
             stack="same", draw_pile=["Y5", "Y6", "G7", "G8"])
    g.play("RD2")
    assert (g.current_player, g.phase, g.pending_draw) == (2, "jump_in", 2)
    g.play("RD2")
    assert (g.current_player, g.phase, g.pending_draw) == (3, "stack", 4)
    g.play("accept")
    assert hand(g, 3) == sorted(["B1", "Y5", "Y6", "G7", "G8"]) and hand(g, 1) == ["Y1"]
    assert g.current_player == 0


def test_jump_in_uno_and_catch():
    """The jumper may call ``uno`` first (two cards); a jump to one card without a call
    makes the jumper catchable by the next decider."""
    g = scen([["R5", "R1", "R2"], ["Y1", "Y2"], ["R5", "G2"], ["B1", "B2"]], top="R3",
             jump_in=True, uno_call=True)
    g.play("R5")
    assert moves(g) == {"R5", "pass", "uno"}
    g.play("R5")
    assert g.catchable == 2 and "catch" in moves(g) and g.current_player == 3


# --- force_play, no_draw_if_playable, draw_until_playable ---------------------------------


def test_force_play_playable_drawn_card_must_be_played():
    """docs/rules.md 3 force_play: a playable card just drawn must be played."""
    g = scen([["B1", "G2", "Y3"], ["Y1"]], draw_pile=["R9"], force_play=True)
    g.play("draw")
    assert moves(g) == {"R9"}


def test_force_play_does_not_force_a_w4_bluff():
    """docs/rules.md 3 precise points: force_play does not force a drawn W4 that would be a
    bluff (the player holds the colour in force); a W4 that is no bluff is forced."""
    g = scen([["R1", "G2", "Y3"], ["Y1"]], draw_pile=["W4"], force_play=True)
    g.play("draw")
    assert moves(g) == wilds("W4") | {"pass"}
    g = scen([["B1", "G2", "Y3"], ["Y1"]], draw_pile=["W4"], force_play=True)
    g.play("draw")
    assert moves(g) == wilds("W4")


def test_no_draw_if_playable_masks_draw():
    """docs/rules.md 3 no_draw_if_playable: draw is masked while a playable card is held."""
    g = scen([["R1", "G2"], ["Y1"]], no_draw_if_playable=True)
    assert moves(g) == {"R1"}
    g = scen([["B1", "G2"], ["Y1"]], no_draw_if_playable=True)
    assert moves(g) == {"draw"}


def test_draw_until_playable_stops_at_first_playable_card():
    """docs/rules.md 3 draw_until_playable: drawing continues until a playable card comes."""
    g = scen([["B1", "G2"], ["Y1"]], draw_pile=["Y4", "G7", "R9", "R2"],
             draw_until_playable=True)
    g.play("draw")
    assert hand(g, 0) == sorted(["B1", "G2", "Y4", "G7", "R9"])
    assert (g.phase, moves(g)) == ("drawn", {"R9", "pass"})


def test_draw_until_playable_w4_counts_while_bluffing():
    """docs/rules.md 3 precise points: any W4 counts while bluffing is allowed."""
    g = scen([["R1", "G2"], ["Y1"]], top="B5", draw_pile=["Y4", "W4", "B9"],
             draw_until_playable=True)
    g.play("draw")
    assert g.phase == "drawn" and hand(g, 0) == sorted(["R1", "G2", "Y4", "W4"])
    g = scen([["B1", "G2"], ["Y1"]], top="B5", draw_pile=["Y4", "W4", "B9"],
             draw_until_playable=True, bluff=False)
    g.play("draw")  # the W4 would be illegal (B1 held): drawing goes on to B9
    assert g.phase == "drawn" and "B9" in g.hand(0) and "B9" in moves(g)


def test_draw_until_playable_with_dry_piles_ends_the_turn():
    g = scen([["B1", "G2"], ["Y1"]], draw_pile=["Y4", "G7"], draw_until_playable=True)
    # put every other card out of reach: seat 1 holds the rest of the deck
    rest = g.draw_pile[2:]
    g = scen([["B1", "G2"], ["Y1", *rest]], draw_pile=["Y4", "G7"],
             draw_until_playable=True)
    assert g.draw_pile == ["Y4", "G7"]
    g.play("draw")
    assert hand(g, 0) == sorted(["B1", "G2", "Y4", "G7"])
    assert (g.current_player, g.phase) == (1, "play")


# --- multi-play ---------------------------------------------------------------------------


def test_multi_play_same_number_any_colour_then_pass():
    """docs/rules.md 3 multi_play: after a play the player may go on with cards of the same
    number or symbol (any colour) before ``pass``; no wilds."""
    g = scen([["R5", "G5", "B5", "W", "R1"], ["Y1"], ["G1"], ["B1"]], top="R3",
             multi_play=True)
    g.play("R5")
    assert (g.current_player, g.phase) == (0, "multi")
    assert moves(g) == {"G5", "B5", "pass"}
    g.play("G5")
    assert g.color == "G" and moves(g) == {"B5", "pass"}
    g.play("pass")
    assert (g.current_player, g.phase, g.turns) == (1, "play", 1)
    assert hand(g, 0) == ["B5", "R1", "W"]


def test_multi_play_ends_by_itself_when_no_card_of_the_rank_is_left():
    g = scen([["R5", "G5", "R1"], ["Y1"], ["G1"], ["B1"]], top="R3", multi_play=True)
    play(g, "R5", "G5")
    assert (g.current_player, g.phase) == (1, "play")


def test_multi_play_of_skips_moves_play_k_plus_one_seats():
    """Interaction (docs/rules.md 3): two S skip two players: k skips move play k+1 seats."""
    g = scen([["RS", "GS", "R1"], ["Y1"], ["G1"], ["B1"], ["Y2"]], top="R3",
             multi_play=True)
    play(g, "RS", "GS")
    assert (g.current_player, g.phase) == (3, "play")


def test_multi_play_draw_twos_add_up():
    """docs/rules.md 3: two D2 make the next draw 4 (and skip them)."""
    g = scen([["RD2", "BD2", "R1"], ["Y1"], ["G1"], ["B1"]], top="R3", multi_play=True,
             draw_pile=["Y5", "Y6", "Y7", "Y8", "Y9"])
    play(g, "RD2", "BD2")
    assert hand(g, 1) == sorted(["Y1", "Y5", "Y6", "Y7", "Y8"])
    assert (g.current_player, g.color) == (2, "B")


def test_multi_play_two_reverses_restore_direction():
    g = scen([["RR", "GR", "R1"], ["Y1"], ["G1"], ["B1"]], top="R3", multi_play=True)
    play(g, "RR", "GR")
    assert (g.direction, g.current_player) == (1, 1)
    g = scen([["RR", "GR", "YR", "R1"], ["Y1"], ["G1"], ["B1"]], top="R3",
             multi_play=True)
    play(g, "RR", "GR", "YR")
    assert (g.direction, g.current_player) == (-1, 3)


def test_multi_play_sevens_give_k_swaps():
    """docs/rules.md 3 precise points: k sevens give k swaps."""
    g = scen([["R7", "G7", "R1"], ["Y1", "Y2"], ["G1", "G2", "G3"], ["B1"]], top="R3",
             multi_play=True, seven_zero=True)
    play(g, "R7", "G7")
    assert (g.current_player, g.phase) == (0, "swap")
    g.play("swap:+3")  # seat 0 (R1) <-> seat 3 (B1)
    assert g.phase == "swap" and hand(g, 0) == ["B1"]
    g.play("swap:+1")  # seat 0 (B1) <-> seat 1 (Y1 Y2)
    assert hand(g, 0) == ["Y1", "Y2"] and hand(g, 1) == ["B1"] and hand(g, 3) == ["R1"]
    assert (g.current_player, g.phase) == (1, "play")


def test_multi_play_with_stacking_adds_to_pending_total():
    g = scen([["RD2", "R1"], ["YD2", "BD2", "B3"], ["G4"], ["B6"]], stack="same",
             multi_play=True)
    play(g, "RD2", "YD2")
    assert (g.current_player, g.phase) == (1, "multi")
    g.play("BD2")
    assert (g.current_player, g.phase, g.pending_draw) == (2, "stack", 6)


def test_multi_play_observation_counts_the_sequence():
    g = scen([["R5", "G5", "B5", "R1"], ["Y1"], ["G1"], ["B1"]], top="R3",
             multi_play=True)
    s = uno_env.engine.observe.observation_slices(g.config.deck.num_types, 4,
                                                  g.config.rules)
    play(g, "R5", "G5")
    assert g.observe(0)[s["multi_count"]][0] == 2


# --- classic112: WS and WX ----------------------------------------------------------------


def test_classic112_deck_has_ws_and_three_wx_worth_40():
    """docs/rules.md 4: the 108 cards plus one WS and three WX, 40 points each."""
    deck = uno_env.make_config("classic112").deck
    assert deck.num_cards == 112
    names = Counter({deck.type_name(t): int(deck.type_count[t])
                     for t in range(deck.num_types)})
    assert names["WS"] == 1 and names["WX"] == 3 and names["W"] == 4 and names["W4"] == 4
    pts = {deck.type_name(t): int(deck.face_points[deck.type_face[t, 0]])
           for t in range(deck.num_types)}
    assert pts["WS"] == 40 and pts["WX"] == 40


def test_classic112_ws_and_wx_are_never_the_first_card():
    """docs/rules.md 2/4: W4, WS and WX turned up first go back into the draw pile."""
    for seed in range(300):
        g = Game("classic112", num_players=4, seed=seed)
        assert g.top not in ("W4", "WS", "WX")
        assert g.draw_pile_size + sum(g.hand_sizes) + len(g.discard) == 112


def test_ws_gathers_shuffles_and_deals_from_next_seat():
    """docs/rules.md 4: WS gathers all hands, shuffles, deals one at a time starting with the
    seat after the player (+1, whatever the direction); that player names the colour."""
    hands = [["WS", "R1", "R2"], ["Y1", "Y2", "Y3", "Y4"], ["G1", "G2"], ["B1"]]
    g = scen(hands, preset="classic112", direction=-1)
    g.play("WS:G")
    # 9 cards left, dealt from seat 1: seats 1 and 2 get 3, seats 3 and 0 get 2 cards
    assert g.hand_sizes == [2, 3, 2, 2]
    assert sorted(sum((g.hand(s) for s in range(4)), [])) == sorted(
        ["R1", "R2", "Y1", "Y2", "Y3", "Y4", "G1", "G2", "B1"])
    assert (g.color, g.current_player, g.phase) == ("G", 3, "play")


def test_ws_deal_counts_follow_seat_order_from_the_next_seat():
    hands = [["R1"], ["WS", "Y1", "Y2", "Y3"], ["G1", "G2"], ["B1", "B2"]]
    g = scen(hands, preset="classic112", current=1)
    g.play("WS:B")
    assert g.hand_sizes == [2, 2, 2, 2]  # 8 cards from seat 2: 2 3 0 1 2 3 0 1
    assert g.current_player == 2


def test_ws_as_last_card_is_still_dealt_out():
    """Interaction (docs/rules.md 4, project's reading): WS as the last card: the cards are
    still dealt out (ws_last_card_wins=False) and the round goes on."""
    g = scen([["WS"], ["Y1", "Y2"], ["G1", "G2"], ["B1"]], preset="classic112",
             uno_call=False)
    g.play("WS:R")
    assert not g.is_over
    assert g.hand_sizes == [1, 2, 1, 1]  # 5 cards from seat 1: 1 2 3 0 1
    assert (g.current_player, g.color) == (1, "R")


def test_ws_as_last_card_with_too_few_cards_leaves_the_player_out():
    """Reading: with fewer cards than seats the player may be dealt none: they win."""
    g = scen([["WS"], ["Y1"], ["G1"], ["B1"]], preset="classic112", uno_call=False)
    g.play("WS:R")
    assert g.is_over and g.winner == 0 and g.hand_sizes == [0, 1, 1, 1]


def test_ws_last_card_wins_flag():
    g = scen([["WS"], ["Y1", "Y2"], ["G1", "G2"], ["B1"]], preset="classic112",
             uno_call=False, ws_last_card_wins=True)
    g.play("WS:R")
    assert g.is_over and g.winner == 0
    assert g.round_points[0] == 1 + 2 + 1 + 2 + 1


def test_wx_rules_wild_draw1_swap():
    """docs/rules.md 4: WX acts as wx_rule: "wild" (a W), "draw1" (next draws 1 and is
    skipped), "swap" (like a 7)."""
    hands = [["WX", "R1"], ["Y1"], ["G1"], ["B1"]]
    g = scen(hands, preset="classic112", draw_pile=["Y9"])
    g.play("WX:B")
    assert (g.current_player, g.color, hand(g, 1)) == (1, "B", ["Y1"])
    g = scen(hands, preset="classic112", wx_rule="draw1", draw_pile=["Y9"])
    g.play("WX:B")
    assert (g.current_player, hand(g, 1)) == (2, ["Y1", "Y9"])
    g = scen(hands, preset="classic112", wx_rule="swap")
    g.play("WX:B")
    assert g.phase == "swap" and moves(g) == {"swap:+1", "swap:+2", "swap:+3"}
    g.play("swap:+2")
    assert hand(g, 0) == ["G1"] and hand(g, 2) == ["R1"] and g.color == "B"


def test_wx_draw1_stacks_as_value_one():
    """docs/rules.md 4: draw1 is a draw card of value 1 for stacking."""
    g = scen([["WX", "R1"], ["RD2", "WX", "Y1"], ["G1"], ["B1"]], preset="classic112",
             wx_rule="draw1", stack="any")
    g.play("WX:R")
    assert moves(g) == {"RD2", "accept"} | wilds("WX")
    g.play("RD2")
    assert g.pending_draw == 3 and moves(g) == {"accept"}


def test_wx_rule_needs_a_deck_with_wx():
    with pytest.raises(ValueError, match="classic112"):
        Game(wx_rule="draw1")


# --- teams --------------------------------------------------------------------------------


def test_teams_winner_scores_other_team_and_team_shares_reward():
    """docs/rules.md 2 Teams, 3 precise points, 7: seats 0+2 against 1+3; the winner's entry
    holds the other team's points, every other entry 0; the team shares the reward."""
    g = scen([["R1"], ["Y9"], ["G5", "W"], ["B2", "BS"]], teams=True,
             uno_call=False)
    g.play("R1")
    assert g.is_over and g.winner == 0 and g.winning_team == (0, 2)
    assert g.round_points == [9 + 2 + 20, 0, 0, 0]
    assert g.rewards == [1.0, -1.0, 1.0, -1.0]


def test_teams_reward_score_and_match():
    g = scen([["Y9", "B7"], ["R1"], ["G5"], ["B2"]], top="R3", teams=True,
             uno_call=False, reward="score", current=1)
    g.play("R1")
    assert g.round_points == [0, 9 + 7 + 5, 0, 0]
    assert g.rewards == [-21.0, 21.0, -21.0, 21.0]
    g = scen([["Y9", "B7"], ["R1"], ["G5"], ["B2"]], top="R3", teams=True,
             uno_call=False, target_score=25, current=1)
    g._state.scores[0] = [0, 0, 0, 5]  # the team has 5 from seat 3: 21 + 5 >= 25
    g.play("R1")
    assert g.is_over and g.winner == 1 and g.rewards == [-1.0, 1.0, -1.0, 1.0]


def test_teams_match_goes_on_below_target():
    g = scen([["Y9", "B7"], ["R1"], ["G5"], ["B2"]], top="R3", teams=True,
             uno_call=False, target_score=30, current=1)
    g.play("R1")
    assert not g.is_over and g.round == 2 and g.scores == [0, 21, 0, 0]
    assert g.dealer == 1


def test_teams_need_four_players_and_winner_scoring():
    with pytest.raises(ValueError, match="exactly 4 players"):
        Game(num_players=3, teams=True)
    with pytest.raises(ValueError, match="scoring"):
        Game(num_players=4, teams=True, scoring="penalty")


# --- presets, layout, errors --------------------------------------------------------------


def test_presets_list_every_preset_with_flags():
    table = uno_env.presets()
    assert {"classic", "classic112", "street"} <= set(table)
    assert table["street"]["stack"] == "any" and table["street"]["seven_zero"]
    assert table["street"]["jump_in"] and table["street"]["draw_until_playable"]
    assert not table["street"]["multi_play"]
    assert table["classic112"]["deck"] == "classic112"
    for name in table:  # every preset builds (teams needs four players)
        uno_env.make_config(name, 4)


def test_flags_off_keep_the_classic_layout_and_observation():
    """Issue item 5: with every flag off the layout and observation are unchanged; a
    flag adds only what it needs."""
    base = uno_env.make_config("classic", 4).layout
    # 3 * 54 + 30, then the hand a challenge showed and who showed it (54 + 4, #48)
    assert (base.size, base.obs_size, base.NUM_SWAP) == (70, 3 * 54 + 30 + 54 + 4, 0)
    for flags in (dict(stack="any"), dict(force_play=True), dict(no_draw_if_playable=True),
                  dict(draw_until_playable=True), dict(teams=True)):
        lay = uno_env.make_config("classic", 4, **flags).layout
        assert (lay.size, lay.obs_size) == (base.size, base.obs_size)
    lay = uno_env.make_config("classic", 4, seven_zero=True).layout
    assert (lay.size, lay.SWAP, lay.obs_size) == (73, 70, base.obs_size)
    assert lay.decode(72) == "swap:+3" and lay.encode("swap:+1") == 70
    assert uno_env.make_config("classic", 4, jump_in=True).layout.obs_size == base.obs_size + 8
    assert uno_env.make_config("classic", 4, multi_play=True).layout.obs_size == base.obs_size + 1


def test_classic_observation_identical_with_house_flags_that_add_no_field():
    a = Game(num_players=4, seed=3)
    b = Game(num_players=4, seed=3, force_play=True)
    np.testing.assert_array_equal(a.observe(1), b.observe(1))


def test_bad_swap_move_and_refused_move_leave_state_unchanged():
    g = scen([["R7", "R1"], ["Y1", "Y2"], ["G1"], ["B1"]], seven_zero=True)
    g.play("R7")
    before = snapshot(g)
    with pytest.raises(ValueError, match="swap:\\+1, swap:\\+2, swap:\\+3"):
        g.play("swap:+4")
    with pytest.raises(ValueError, match="not legal"):
        g.play("R1")
    assert snapshot(g) == before


def test_bad_stack_value_names_valid_values():
    with pytest.raises(ValueError, match="'none', 'same', 'any'"):
        Game(stack="all")


# --- moved from test_house_invariants.py (its invariant loops are now tests/environments/test_contract.py)
def test_every_phase_is_reached_by_random_play():
    """Random play with every flag exercises the new phases and events (counters of
    stacked cards, jump-ins, multi-plays, exchanges and challenges are > 0)."""
    from uno_env.evaluation.simulation import simulate
    t = simulate("chaos", 4, num_games=500, seed=2, threads=1).totals
    assert t["stacked"] > 0 and t["jump_ins"] > 0 and t["multi_extra"] > 0
    assert t["exchanges"] > 0 and t["challenges"] > 0


def test_teams_rewards_through_env_are_shared_and_zero_sum():
    env = uno_env.env(preset="chaos", num_players=4, teams=True, max_turns=100_000)
    rng = np.random.default_rng(0)
    for seed in range(4):
        env.reset(seed=seed)
        totals = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        w = env.unwrapped.game.winner
        assert [totals[f"player_{q}"] for q in range(4)] == \
            [1.0 if (q - w) % 2 == 0 else -1.0 for q in range(4)]


def test_vector_env_rejects_illegal_house_actions_unchanged():
    from uno_env.envs.every_seat import EverySeatBatch
    venv = EverySeatBatch(3, preset="street", num_players=4, seed=1)
    obs, mask, player = venv.reset()
    before = obs.copy()
    bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in mask])
    with pytest.raises(ValueError, match="not legal"):
        venv.step(bad)
    np.testing.assert_array_equal(venv._obs, before)


def test_cli_presets_prints_house_presets():
    from typer.testing import CliRunner

    from uno_env.apps.cli import app
    out = CliRunner().invoke(app, ["presets"])
    assert out.exit_code == 0
    for name in ("classic112", "street", "progressive", "teams", "chaos"):
        assert f"{name}:" in out.output


def test_house_observation_fields_come_last():
    from uno_env.engine.observe import observation_slices
    cfg = uno_env.make_config("chaos", 4)
    s = observation_slices(cfg.deck.num_types, 4, cfg.rules)
    # then only the shown hand's fields, appended last of all (#48)
    assert list(s)[-5:] == ["jump_from", "jump_resume", "multi_count", "shown_hand",
                            "shown_by"]
    assert s["shown_by"].stop == cfg.layout.obs_size


@pytest.mark.parametrize("preset", ["street", "chaos"])
def test_policy_offsets_unchanged_by_house_fields(preset):
    from uno_env.engine.observe import observation_slices
    from uno_env.engine.jit import python_callable
    from uno_env.engine.policies import _offsets
    cfg = uno_env.make_config(preset, 4)
    s = observation_slices(cfg.deck.num_types, 4, cfg.rules)
    names = ("hand", "color", "direction", "phase", "opponent_cards", "played", "side")
    assert tuple(python_callable(_offsets)(cfg.spec)) == tuple(s[n].start for n in names)
