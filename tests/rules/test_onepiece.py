"""Scenario tests of UNO One Piece (docs/rules.md section 6, the One Piece rule sheet; issue #7 [onepiece]).

Same style as ``test_house_rules.py``: a position from ``Game.from_scenario``, moves in
the notation of docs/rules.md section 1, exact outcomes. "reading" marks a point docs/rules.md 6
leaves open (see ``uno_env/engine/onepiece.py``).
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest


from uno_env import Game, make_config  # noqa: E402
from uno_env.rules.cards import make_deck  # noqa: E402
from test_rules_classic import hand, moves, snapshot, wilds  # noqa: E402


def scen(hands, top="R5", **kw) -> Game:
    """A One Piece scenario; ``uno_call`` off unless a test turns it on."""
    kw.setdefault("uno_call", False)
    return Game.from_scenario("onepiece", hands=hands, top=top, **kw)


def play(game: Game, *seq: str) -> Game:
    for m in seq:
        game.play(m)
    return game


def empty_draw_pile(hands, top, extra_discard=()):
    """A ``discard=`` list holding every card not in the hands/top, so the draw pile is
    empty (the deck stays whole)."""
    deck = make_deck("onepiece110")
    left = Counter({deck.type_name(t): int(deck.type_count[t])
                    for t in range(deck.num_types)})
    for cards in hands:
        left.subtract(cards)
    left.subtract([top, *extra_discard])
    return [c for c, n in sorted(left.items()) for _ in range(n)] + list(extra_discard)


# --- the deck -----------------------------------------------------------------------------


def test_deck_is_110_cards_with_the_special_cards_and_their_points():
    """docs/rules.md 6: the classic 108 with two W -> SHK, two W4 -> BBD, plus ACE and HAN;
    special cards 50 points; the Luffy cards are the eight 1s."""
    deck = make_deck("onepiece110")
    count = {deck.type_name(t): int(deck.type_count[t]) for t in range(deck.num_types)}
    assert deck.num_cards == 110
    assert {k: count[k] for k in ("W", "W4", "SHK", "BBD", "ACE", "HAN")} == \
        {"W": 2, "W4": 2, "SHK": 2, "BBD": 2, "ACE": 1, "HAN": 1}
    assert sum(n for k, n in count.items() if len(k) == 2 and k[1] == "1") == 8
    points = {deck.type_name(t): int(deck.face_points[deck.type_face[t, 0]])
              for t in range(deck.num_types)}
    assert [points[k] for k in ("SHK", "BBD", "ACE", "HAN", "W", "W4", "RS", "G7")] == \
        [50, 50, 50, 50, 50, 50, 20, 7]


def test_deck_counts_are_configurable():
    cfg = make_config("onepiece", 4, onepiece_cards=(4, 1, 2, 3))
    deck = cfg.deck
    count = {deck.type_name(t): int(deck.type_count[t]) for t in range(deck.num_types)}
    assert (count["W"], count["SHK"], count["W4"], count["BBD"], count["ACE"],
            count["HAN"]) == (0, 4, 3, 1, 2, 3)
    assert deck.num_cards == 113
    with pytest.raises(ValueError, match="onepiece_cards"):
        make_config("onepiece", 4, onepiece_cards=(2, 2))
    with pytest.raises(ValueError, match="at most 4"):
        make_config("onepiece", 4, onepiece_cards=(5, 2, 1, 1))


def test_onepiece_flags_need_the_onepiece_deck_and_unsupported_house_rules_are_named():
    with pytest.raises(ValueError, match="challenge"):
        make_config("classic", 4, challenge="return")
    with pytest.raises(ValueError, match="elimination"):
        make_config("classic", 4, scoring="elimination")
    for flag, value in (("stack", "any"), ("jump_in", True), ("seven_zero", True),
                        ("multi_play", True), ("draw_until_playable", True)):
        with pytest.raises(ValueError, match=flag):
            make_config("onepiece", 4, **{flag: value})


def test_move_codec_round_trips_every_action():
    for n in (2, 4, 10):
        lay = make_config("onepiece", n).layout
        for a in range(lay.size):
            assert lay.encode(lay.decode(a)) == a
    lay = make_config("onepiece", 4).layout
    assert (lay.ACE, lay.NUM_ACE, lay.GIVE, lay.NUM_GIVE, lay.size) == (86, 12, 98, 58, 156)
    assert lay.decode(lay.encode("ACE+BD2")) == "ACE+BD2"
    assert lay.decode(lay.encode("give:HAN")) == "give:HAN"
    for bad, match in (("ACE+R5", "action card"), ("give:Q9", "not a card"),
                       ("HAN", "name a colour")):
        with pytest.raises(ValueError, match=match):
            lay.encode(bad)
    with pytest.raises(ValueError, match="onepiece"):
        make_config("classic", 4).layout.encode("ACE+RS")


# --- Fire Fist Ace --------------------------------------------------------------------------


def test_fire_fist_skip_skips_two_players():
    """The One Piece rule sheet's example "Fire Fist skip": ACE+S skips two players; the top card is
    the S and the colour its colour (docs/rules.md 6 precise points)."""
    g = scen([["ACE", "RS", "B3", "G7"], ["R1"], ["R2"], ["R3"], ["R4"]], top="BS")
    g.play("ACE+RS")
    assert (g.current_player, g.phase, g.top, g.color) == (3, "play", "RS", "R")
    assert g.discard[-2:] == ["ACE", "RS"]
    assert hand(g, 0) == ["B3", "G7"]
    assert g.stats["ace_combos"] == 1


def test_blue_skip_accepts_a_red_skip_or_a_blue_three():
    """The One Piece rule sheet's example: a blue skip on the pile accepts a red skip or a blue 3 (and
    an Ace with the red skip), not a red 3."""
    g = scen([["RS", "B3", "R3", "ACE", "G7"], ["R1"], ["R2"]], top="BS")
    assert moves(g) == {"RS", "B3", "ACE+RS", "draw"}


def test_ace_draw_two_makes_the_next_player_draw_four_and_skips_them():
    g = scen([["ACE", "YD2", "G7"], ["R1"], ["R2"], ["R3"]], top="Y5",
             draw_pile=["B1", "B2", "B3", "B4", "B5"])
    g.play("ACE+YD2")
    assert hand(g, 1) == ["B1", "B2", "B3", "B4", "R1"]
    assert (g.current_player, g.top, g.color) == (2, "YD2", "Y")


def test_ace_reverse_reverses_twice():
    """Reading: reverse twice = unchanged direction, the next player moves."""
    g = scen([["ACE", "GR", "G7"], ["R1"], ["R2"], ["R3"]], top="G5")
    g.play("ACE+GR")
    assert (g.current_player, g.direction, g.top) == (1, 1, "GR")


def test_ace_alone_only_as_the_last_card():
    g = scen([["ACE", "B3"], ["R1"], ["R2"]], top="R5")
    assert moves(g) == {"draw"}
    g = scen([["ACE"], ["R1", "Y9"], ["R2"]], top="R5")
    assert moves(g) == wilds("ACE") | {"draw"}
    g.play("ACE:B")
    assert (g.is_over, g.winner, g.round_points) == (True, 0, [1 + 9 + 2, 0, 0])


def test_ace_draw_two_as_last_cards_still_makes_the_next_player_draw():
    g = scen([["ACE", "RD2"], ["R1"], ["R2"]], top="R5",
             draw_pile=["B1", "B2", "B3", "B4"])
    g.play("ACE+RD2")
    assert g.winner == 0 and hand(g, 1) == ["B1", "B2", "B3", "B4", "R1"]
    assert g.round_points == [1 + 2 + 3 + 4 + 1 + 2, 0, 0]


def test_a_drawn_card_is_played_alone():
    """docs/rules.md 6: a card just drawn is played alone, no Ace combination."""
    g = scen([["ACE", "B7"], ["R1"], ["R2"]], top="RS", draw_pile=["GS"])
    g.play("draw")
    assert (g.phase, moves(g)) == ("drawn", {"GS", "pass"})


def test_a_drawn_ace_is_never_playable():
    g = scen([["B7"], ["R1"], ["R2"]], top="RS", draw_pile=["ACE"])
    g.play("draw")
    assert (g.current_player, g.phase, hand(g, 0)) == (1, "play", ["ACE", "B7"])


def test_uno_is_offered_when_an_ace_combination_leaves_one_card():
    g = scen([["ACE", "RS", "B7"], ["R1"], ["R2"]], top="R5", uno_call=True)
    assert "uno" in moves(g)
    g = scen([["W", "RS", "B7"], ["R1"], ["R2"]], top="R5", uno_call=True)
    assert "uno" not in moves(g)
    g = scen([["ACE", "RS", "B7"], ["R1"], ["R2"], ["R3", "Y1"]], top="R5", uno_call=True)
    g.play("ACE+RS")  # one card left, no call: the next decider may catch
    assert g.current_player == 3 and "catch" in moves(g)


# --- Shanks ----------------------------------------------------------------------------------


def test_shanks_names_a_colour_then_gives_a_card_to_the_next_player():
    g = scen([["SHK", "R5", "W4", "G2"], ["B1"], ["Y2"], ["Y3"]], top="R7")
    g.play("SHK:G")
    assert (g.current_player, g.phase, g.color, g.top) == (0, "give", "G", "SHK")
    assert moves(g) == {"give:R5", "give:W4", "give:G2"}
    g.play("give:W4")
    assert hand(g, 0) == ["G2", "R5"] and hand(g, 1) == ["B1", "W4"]
    assert (g.current_player, g.phase, g.color, g.turns) == (1, "play", "G", 1)
    assert g.stats["gives"] == 1


def test_shanks_give_follows_the_direction_of_play():
    g = scen([["SHK", "R5", "G2"], ["B1"], ["Y2"], ["Y3"]], top="R7", direction=-1)
    play(g, "SHK:Y", "give:R5")
    assert hand(g, 3) == ["R5", "Y3"] and g.current_player == 3


def test_shanks_two_players_only_flag():
    """shanks_give="two_players" (the One Piece rule sheet's text): with three players SHK is a wild;
    with two it gives."""
    g = scen([["SHK", "R5"], ["B1"], ["Y2"]], top="R7", shanks_give="two_players")
    g.play("SHK:B")
    assert (g.current_player, g.phase, hand(g, 0)) == (1, "play", ["R5"])
    g = scen([["SHK", "R5", "R6"], ["B1"]], top="R7", shanks_give="two_players")
    play(g, "SHK:B", "give:R6")
    assert (g.current_player, hand(g, 1)) == (1, ["B1", "R6"])


def test_shanks_as_last_card_ends_the_round_with_no_give():
    g = scen([["SHK"], ["B1", "B9"], ["Y2"]], top="R7")
    g.play("SHK:R")
    assert g.winner == 0 and hand(g, 1) == ["B1", "B9"] and g.round_points == [12, 0, 0]


def test_a_give_that_empties_the_hand_wins():
    g = scen([["SHK", "R5"], ["B1"], ["Y2"]], top="R7")
    play(g, "SHK:R", "give:R5")
    assert g.winner == 0 and hand(g, 1) == ["B1", "R5"]
    assert g.round_points == [1 + 5 + 2, 0, 0]


def test_uno_is_offered_before_a_give_that_leaves_one_card():
    g = scen([["SHK", "R5", "G2"], ["B1"], ["Y2"]], top="R7", uno_call=True)
    assert "uno" not in moves(g)
    g.play("SHK:R")
    assert moves(g) == {"give:R5", "give:G2", "uno"}
    g.play("give:R5")  # no call: player 1 may catch
    assert "catch" in moves(g)


# --- Blackbeard -----------------------------------------------------------------------------


def test_blackbeard_next_draws_two_and_is_skipped_without_challenge():
    """docs/rules.md 6 (project's reading): no restriction, no challenge; even holding the
    colour in force."""
    g = scen([["BBD", "R3"], ["B1"], ["Y2"], ["G4"]], top="R7", draw_pile=["G8", "G9"])
    assert {"BBD:Y", "R3"} <= moves(g)
    g.play("BBD:Y")
    assert hand(g, 1) == ["B1", "G8", "G9"]
    assert (g.current_player, g.phase, g.color, g.top) == (2, "play", "Y", "BBD")


def test_blackbeard_as_last_card_still_makes_the_next_player_draw():
    g = scen([["BBD"], ["B1"], ["Y2"]], top="R7", draw_pile=["G8", "G9"])
    g.play("BBD:G")
    assert g.winner == 0 and hand(g, 1) == ["B1", "G8", "G9"]
    assert g.round_points == [1 + 8 + 9 + 2, 0, 0]


def test_blackbeard_challengeable_flag():
    """bbd_challenge=True (the One Piece rule sheet groups BBD with W4): a challenge on a guilty BBD
    returns it (challenge="return") and its player draws 2."""
    g = scen([["BBD", "R3"], ["B1"], ["Y2"]], top="R7", bbd_challenge=True,
             draw_pile=["G8", "G9"])
    g.play("BBD:Y")
    assert (g.current_player, g.phase, g.pending_draw) == (1, "challenge", 2)
    g.play("challenge")
    assert hand(g, 0) == ["BBD", "G8", "G9", "R3"]
    assert (g.current_player, g.top, g.color) == (1, "R7", "R")
    g = scen([["BBD", "R3"], ["B1"], ["Y2"]], top="R7", bbd_challenge=True, bluff=False)
    assert "BBD:Y" not in moves(g)


# --- Hancock ------------------------------------------------------------------------------


def test_hancock_petrifies_everyone_when_nobody_holds_the_luffy_card():
    g = scen([["HAN", "R3", "G5"], ["B1"], ["Y1"], ["G4"]], top="R7")
    g.play("HAN:G")
    assert (g.current_player, g.phase, g.color, g.turns) == (0, "play", "G", 1)
    assert moves(g) == {"G5", "draw"}
    assert g.stats["petrifications"] == 1 and g.stats["breaks"] == 0


def test_hancock_break_by_a_luffy_card_then_the_player_after_hancock_moves():
    g = scen([["HAN", "R3", "G5"], ["Y9"], ["B1", "B7"], ["G4"]], top="R7")
    g.play("HAN:B")
    assert (g.current_player, g.phase, moves(g)) == (2, "jump_in", {"B1", "pass"})
    g.play("B1")
    assert (g.top, g.color, hand(g, 2)) == ("B1", "B", ["B7"])
    assert (g.current_player, g.phase) == (1, "play")
    assert g.stats["breaks"] == 1


def test_hancock_breakers_are_asked_in_turn_order():
    g = scen([["HAN", "R3"], ["B1", "Y1"], ["Y9"], ["B1", "G4"]], top="R7", direction=-1)
    g.play("HAN:B")
    assert (g.current_player, g.phase) == (3, "jump_in")
    g.play("pass")
    assert (g.current_player, g.phase) == (1, "jump_in")
    g.play("pass")
    assert (g.current_player, g.phase, g.top) == (0, "play", "HAN")


def test_hancock_break_by_the_next_player_gives_them_a_normal_turn():
    g = scen([["HAN", "R3"], ["Y1", "Y7", "B9"], ["Y9"]], top="R7")
    play(g, "HAN:Y", "Y1")
    assert (g.current_player, g.phase, g.top) == (1, "play", "Y1")
    assert moves(g) == {"Y7", "draw"}


def test_a_luffy_card_of_another_colour_does_not_break():
    g = scen([["HAN", "R3"], ["R1", "G1"], ["Y1"]], top="R7")
    g.play("HAN:B")
    assert (g.current_player, g.phase) == (0, "play")


def test_a_break_from_two_cards_offers_uno_and_a_break_can_win():
    g = scen([["HAN", "R3"], ["B1", "Y7"], ["Y9"]], top="R7", uno_call=True)
    g.play("HAN:B")
    # Hancock left one card uncalled: the first one asked may also catch
    assert moves(g) == {"B1", "pass", "uno", "catch"}
    g = scen([["HAN", "R3"], ["Y7"], ["B1"]], top="R7")
    play(g, "HAN:B", "B1")
    assert g.winner == 2 and g.round_points == [0, 0, 3 + 7]


def test_hancock_as_last_card_ends_the_round():
    g = scen([["HAN"], ["B1"], ["Y9"]], top="R7")
    g.play("HAN:B")
    assert g.winner == 0 and g.round_points == [10, 0, 0]


# --- first card ---------------------------------------------------------------------------


def test_ace_hancock_blackbeard_and_w4_cannot_start_a_game_and_shanks_is_a_wild():
    """docs/rules.md 6: W4, BBD, ACE, HAN go back; SHK is answered like W (colour only)."""
    game = Game("onepiece", 4, seed=0)
    firsts = Counter()
    for seed in range(600):
        game.reset(seed)
        firsts[game.top] += 1
        if game.top in ("SHK", "W"):
            assert (game.phase, game.current_player, game.color) == ("color", 1, None)
            game.play("color:G")
            assert (game.phase, game.current_player, game.color) == ("play", 1, "G")
    assert not {"ACE", "HAN", "BBD", "W4"} & set(firsts)
    assert firsts["SHK"] > 0


# --- the challenge ------------------------------------------------------------------------


def guilty_w4(**kw):
    g = scen([["W4", "R3", "G5"], ["B1", "B2"], ["Y2"]], top="R7",
             draw_pile=["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], **kw)
    g.play("W4:B")
    assert (g.current_player, g.phase, g.pending_draw) == (1, "challenge", 4)
    return g


def test_challenge_guilty_returns_the_w4_and_reverts_top_and_colour():
    """The One Piece rule sheet (challenge="return", the onepiece default): the W4 goes back to its
    player's hand, who draws 4; top card and colour revert; the challenger plays."""
    g = guilty_w4()
    g.play("challenge")
    assert hand(g, 0) == ["G5", "R3", "W4", "Y4", "Y5", "Y6", "Y7"]
    assert (g.top, g.color, g.discard[-1]) == ("R7", "R", "R7")
    assert (g.current_player, g.phase, g.pending_draw) == (1, "play", 0)
    assert hand(g, 1) == ["B1", "B2"]
    assert (g.stats["challenges"], g.stats["challenges_won"], g.stats["w4_bluffs"]) == \
        (1, 1, 1)


def test_challenge_classic_flag_keeps_the_w4_on_the_pile():
    g = guilty_w4(challenge="classic")
    g.play("challenge")
    assert hand(g, 0) == ["G5", "R3", "Y4", "Y5", "Y6", "Y7"]
    assert (g.top, g.color, g.current_player) == ("W4", "B", 1)


def test_challenge_innocent_challenger_draws_six():
    g = scen([["W4", "G5"], ["B1"], ["Y2"]], top="R7",
             draw_pile=["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"])
    play(g, "W4:B", "challenge")
    assert hand(g, 1) == ["B1", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9"]
    assert (g.top, g.color, g.current_player) == ("W4", "B", 2)
    assert (g.stats["challenges"], g.stats["challenges_won"]) == (1, 0)


def test_accept_draws_four_and_loses_the_turn():
    g = guilty_w4()
    g.play("accept")
    assert hand(g, 1) == ["B1", "B2", "Y4", "Y5", "Y6", "Y7"]
    assert (g.top, g.color, g.current_player) == ("W4", "B", 2)


def test_a_reshuffle_during_a_pending_challenge_keeps_the_card_under_the_w4():
    hands = [["W4", "R3"], ["B1", "B2"], ["Y2"]]
    g = scen(hands, top="R7", uno_call=True, discard=empty_draw_pile(hands, "R7"))
    assert g.draw_pile_size == 0
    g.play("W4:B")  # one card left, no call
    assert moves(g) == {"challenge", "accept", "catch"}
    g.play("catch")
    assert len(hand(g, 0)) == 3 and g.discard == ["R7", "W4"]
    g.play("challenge")
    assert (g.top, g.color, g.discard) == ("R7", "R", ["R7"])
    assert "W4" in hand(g, 0) and len(hand(g, 0)) == 8


# --- two players --------------------------------------------------------------------------


@pytest.mark.parametrize("seq,again", [
    (("RS",), 0), (("RR",), 0), (("RD2",), 0), (("BBD:R",), 0), (("ACE+RS",), 0),
    (("ACE+RR",), 0), (("ACE+RD2",), 0), (("W4:R", "accept"), 0), (("SHK:R", "give:G9"), 1),
    (("R3",), 1),
])
def test_two_player_rules(seq, again):
    """The One Piece rule sheet two players: R and S let the player move again; after D2, W4, BBD the
    same player moves again; so do ACE+S and ACE+R; Shanks gives then the other plays."""
    g = scen([["RS", "RR", "RD2", "BBD", "ACE", "W4", "SHK", "R3", "G9"], ["B1", "Y1"]],
             top="R5")
    play(g, *seq)
    assert (g.current_player, g.phase) == (again, "play")
    if "RD2" in seq[0] or seq[0] == "BBD:R":
        assert len(hand(g, 1)) == 2 + (4 if "ACE" in seq[0] else 2)


# --- scoring ------------------------------------------------------------------------------


def test_winner_scores_the_sum_of_the_others_cards():
    """The One Piece rule sheet's scoring example shape: B wins, A, C, D hold 118 points together."""
    g = scen([["SHK", "R9"], ["R4"], ["HAN", "B5"], ["Y4"]], top="R7", current=1)
    g.play("R4")
    assert g.winner == 1 and g.round_points == [0, 118, 0, 0]


# --- bad input and house rules ------------------------------------------------------------


def test_illegal_moves_leave_the_state_untouched():
    g = scen([["SHK", "R5", "G2"], ["B1"], ["Y2"]], top="R7")
    before = snapshot(g)
    for bad in ("give:R5", "ACE+RS", "HAN:B", "B1"):
        with pytest.raises(ValueError):
            g.play(bad)
    assert snapshot(g) == before
    g.play("SHK:G")
    before = snapshot(g)
    with pytest.raises(ValueError, match="not legal"):
        g.play("give:B1")
    with pytest.raises(ValueError, match="not legal"):
        g.play("R5")
    assert snapshot(g) == before


def test_force_play_and_no_draw_if_playable_work_with_onepiece():
    g = scen([["ACE", "B7"], ["R1"], ["R2"]], top="RS", draw_pile=["GS"], force_play=True)
    g.play("draw")
    assert moves(g) == {"GS"}
    g = scen([["R3", "B7"], ["R1"], ["R2"]], top="R5", no_draw_if_playable=True)
    assert moves(g) == {"R3"}


def test_teams_work_with_onepiece():
    g = scen([["R4"], ["SHK", "R9"], ["HAN"], ["Y4"]], top="R7", teams=True)
    g.play("R4")
    assert g.round_points == [59 + 4, 0, 0, 0]


def test_observation_shows_the_hancock_player_during_a_break():
    from uno_env.engine.observe import observation_slices
    g = scen([["HAN", "R3"], ["Y9"], ["B1", "B7"]], top="R7")
    s = observation_slices(g.config.deck.num_types, 3, g.config.rules)
    # last but the shown hand's fields, appended after every other (#48)
    assert list(s)[-3:] == ["hancock", "shown_hand", "shown_by"]
    assert s["shown_by"].stop == g.layout.obs_size
    assert g.observe(0)[s["hancock"]].tolist() == [0, 0, 0]
    g.play("HAN:B")
    assert g.observe(2)[s["hancock"]].tolist() == [0, 1, 0]  # seat 0 = relative 1
    np.testing.assert_array_equal(g.observe(2)[s["phase"]][5], 1.0)


# --- elimination scoring (the One Piece rule sheet, "challenge UNO") --------------------------------------


def test_elimination_scoring_counts_the_hand_of_a_caught_player():
    """A caught player adds their hand's points (after the 2-card penalty) to their
    total; below target_score the game goes on."""
    g = scen([["R3", "G9"], ["R1", "Y1"], ["Y2"]], top="R7", uno_call=True,
             scoring="elimination", target_score=500, draw_pile=["B5", "B6"])
    play(g, "R3", "catch")
    assert hand(g, 0) == ["B5", "B6", "G9"] and g.scores == [20, 0, 0]
    assert (g.is_over, g.current_player, g.phase) == (False, 1, "play")


def test_elimination_scoring_a_guilty_player_reaching_the_target_loses():
    """Two players (the sheet's final one-on-one): the guilty W4 player's hand after the
    return and the penalty (W4 50 + R3 + G5 + Y4..Y7 = 80) reaches 60: eliminated, the
    other player wins the match."""
    g = scen([["W4", "R3", "G5"], ["B1", "B2"]], top="R7", scoring="elimination",
             target_score=60, draw_pile=["Y4", "Y5", "Y6", "Y7"])
    play(g, "W4:B", "challenge")
    assert g.scores == [50 + 3 + 5 + 4 + 5 + 6 + 7, 0]
    assert (g.is_over, g.winner, g.rewards) == (True, 1, [-1.0, 1.0])


def test_elimination_scoring_a_round_won_by_going_out_scores_nothing():
    g = scen([["R3"], ["B1", "B9"], ["Y2"]], top="R7", scoring="elimination",
             target_score=500)
    g.play("R3")
    assert g.round_winner == 0 and g.scores == [0, 0, 0] and not g.is_over
    assert g.round == 2 and g.dealer == 0
    with pytest.raises(ValueError, match="target_score"):
        make_config("onepiece", 3, scoring="elimination")


def test_elimination_scoring_max_turns_bounds_the_match_not_the_round():
    """Rounds won by going out score nothing, so a match of players who always call UNO
    and never bluff would never end (``simulate`` with heuristic agents hung): with
    elimination scoring ``max_turns`` counts the turns of the whole match
    (docs/rules.md 2.13, 6.5). Here the first round ends after 1 turn, the second is
    truncated when the match has had 3 turns, though that round has had only 2."""
    g = scen([["R3"], ["B1", "B9"]], top="R7", scoring="elimination",
             target_score=100, max_turns=3)
    g.play("R3")
    assert (g.round, g.turns, g.is_over) == (2, 1, False)
    while not g.is_over:                    # both draw (and keep the card) each turn
        moves = g.legal_moves()
        g.play(next((m for m in ("draw", "pass") if m in moves), sorted(moves)[0]))
    assert (g.round, g.turns, g.truncated, g.winner) == (2, 3, True, None)
    assert g.rewards == [0.0, 0.0] and g.scores == [0, 0]


def test_elimination_scoring_matches_of_careful_players_end():
    """Heuristic agents (always call UNO, never bluff a W4) are never penalised: their
    elimination match ends by the turn limit, at the latest ``max_turns`` turns in."""
    from uno_env.engine.entry import kernels
    from uno_env.engine.names import AGENT_HEURISTIC
    g = Game("onepiece", 2, scoring="elimination", target_score=100, max_turns=150)
    pick = np.zeros(1, np.int64)
    for index in range(2):
        g.reset(5, index)
        for _ in range(10 * 150):
            if g.is_over:
                break
            kernels(g.config.variant).policy(
                AGENT_HEURISTIC, g.observe(g.current_player)[None],
                g.action_mask()[None], g.config.spec, pick)
            g.step(int(pick[0]))
        assert g.is_over and g.turns <= 150 + 1, (index, g.round, g.turns)


# --- moved from test_onepiece_invariants.py (its invariant loops: tests/environments/test_contract.py)
def test_every_card_and_phase_is_reached_by_random_play():
    from uno_env.evaluation.simulation import simulate
    t = simulate("onepiece", 4, num_games=300, seed=2, threads=1).totals
    for name in ("petrifications", "breaks", "ace_combos", "gives", "challenges",
                 "challenges_won", "w4_played", "catches"):
        assert t[name] > 0, name
    assert simulate("classic", 4, num_games=50, seed=2, threads=1).totals["gives"] == 0


def test_greedy_uses_the_new_cards():
    """Greedy combines the Ace with a draw card, gives its highest-point card, breaks."""
    from agents import GreedyAgent
    g = Game.from_scenario("onepiece", hands=[["ACE", "RD2", "RS", "R9"], ["B1"], ["Y1"]],
                           top="R5", uno_call=False)
    agent = GreedyAgent(g.config)
    assert g.layout.decode(agent.act(g.observe(0), g.action_mask())) == "ACE+RD2"
    g = Game.from_scenario("onepiece", hands=[["SHK", "R3", "W4", "G2"], ["B1"], ["Y1"]],
                           top="R5", uno_call=False)
    g.play("SHK:R")
    assert g.layout.decode(agent.act(g.observe(0), g.action_mask())) == "give:W4"
    g = Game.from_scenario("onepiece", hands=[["HAN", "R3"], ["B1", "B7"], ["Y1"]],
                           top="R5", uno_call=False)
    g.play("HAN:B")
    assert g.layout.decode(agent.act(g.observe(1), g.action_mask())) == "B1"
