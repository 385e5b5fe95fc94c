"""Scenario tests of the classic rules (docs/rules.md section 2, rewards of section 7).

Each test sets up a position with ``Game.from_scenario`` (or deals with ``Game`` and a
seed), plays moves in the notation of docs/rules.md section 1 and asserts exact outcomes:
hands, who moves, phase, colour, direction, points, rewards and legal moves. The
docstring of every test cites the paragraph of docs/rules.md it checks.

Draws are made exact by listing the draw pile (``draw_pile=[...]``, top first); when a
test needs a short draw pile, the rest of the 108 cards is placed in hands or in the
discard pile so that nothing else can be drawn.
"""
from __future__ import annotations

from collections import Counter

import pytest

from uno_env import Game

COLORS = "RYGB"


def full_deck() -> list[str]:
    """The 108 cards of docs/rules.md 2: per colour one 0, two each 1-9, S, R, D2; 4 W, 4 W4."""
    cards = []
    for c in COLORS:
        cards.append(c + "0")
        for rank in (*"123456789", "S", "R", "D2"):
            cards += [c + rank] * 2
    return cards + ["W"] * 4 + ["W4"] * 4


def remaining(*groups) -> list[str]:
    """The deck less every card listed in ``groups`` (lists of cards), in deck order."""
    left = Counter(full_deck())
    for group in groups:
        left.subtract(Counter(group))
    assert all(n >= 0 for n in left.values()), "test set-up names too many copies"
    return sorted(left.elements())


def spread(fixed: list[list[str]], num_players: int, *other) -> list[list[str]]:
    """Hands for ``num_players`` seats: seat i starts with ``fixed[i]`` (if given); every
    card not in the hands nor in ``other`` goes round-robin to the seats after the fixed
    ones (so both piles are exactly what the test lists)."""
    hands = [list(fixed[i]) if i < len(fixed) else [] for i in range(num_players)]
    rest = remaining(*hands, *other)
    free = list(range(len(fixed), num_players)) or list(range(num_players))
    for k, card in enumerate(rest):
        hands[free[k % len(free)]].append(card)
    return hands


def wilds(name: str) -> set[str]:
    """The four moves of playing wild ``name``."""
    return {f"{name}:{c}" for c in COLORS}


def moves(game: Game) -> set[str]:
    legal = game.legal_moves()
    assert len(legal) == len(set(legal)), "legal moves must be distinct strings"
    return set(legal)


def hand(game: Game, seat: int) -> list[str]:
    return sorted(game.hand(seat))


def scen(hands, top="R5", **kw) -> Game:
    return Game.from_scenario(hands=hands, top=top, **kw)


def snapshot(game: Game) -> tuple:
    """Everything a move could change, for "state unchanged" checks."""
    return (tuple(tuple(hand(game, s)) for s in range(game.num_players)), game.top,
            game.color, game.current_player, game.phase, game.direction,
            tuple(game.draw_pile), tuple(game.discard), game.turns, game.catchable,
            tuple(game.legal_moves()), len(game.history))


def rank(card: str) -> str:
    return card if card in ("W", "W4") else card[1:]


def seed_with_first_card(pred, num_players: int, **rules) -> int:
    """A seed whose first card turned up satisfies ``pred`` (searched by resetting)."""
    game = Game(num_players=num_players, seed=0, **rules)
    for seed in range(3000):
        game.reset(seed)
        if pred(game.discard[0]):
            return seed
    raise AssertionError("no seed found")


def all_cards(game: Game) -> Counter:
    cards = [c for s in range(game.num_players) for c in game.hand(s)]
    return Counter(cards + game.draw_pile + game.discard)


def check_first_card_effect(game: Game) -> None:
    """The table of docs/rules.md 2 "First card turned up", for a freshly dealt round."""
    n, dealer = game.num_players, game.dealer
    first = (dealer + 1) % n
    assert len(game.discard) == 1
    top = game.discard[0]
    sizes = [7] * n
    assert game.turns == 0
    if rank(top) == "W":
        assert (game.current_player, game.phase, game.color, game.direction) == \
            (first, "color", None, 1)
    elif rank(top) == "S":
        assert (game.current_player, game.phase, game.direction) == \
            ((dealer + 2) % n, "play", 1)
    elif rank(top) == "R":
        assert (game.current_player, game.phase, game.direction) == (dealer, "play", -1)
    elif rank(top) == "D2":
        sizes[first] = 9
        assert (game.current_player, game.phase, game.direction) == \
            ((dealer + 2) % n, "play", 1)
    else:
        assert rank(top) in "0123456789"
        assert (game.current_player, game.phase, game.direction) == (first, "play", 1)
    if top not in ("W", "W4"):
        assert game.color == top[0]
    assert game.hand_sizes == sizes
    assert all_cards(game) == Counter(full_deck())


# =====================================================================================
# Deck, dealing, dealer
# =====================================================================================


def test_deck_is_108_cards_and_seven_dealt_to_each_player():
    """docs/rules.md 2 (Deck, 108 cards ...; 2-10 players, 7 cards each)."""
    assert len(full_deck()) == 108
    for n in (2, 3, 4, 7, 10):
        for seed in (0, 1, 2):
            game = Game(num_players=n, seed=seed)
            assert all_cards(game) == Counter(full_deck())
            check_first_card_effect(game)
            assert game.draw_pile_size == 108 - sum(game.hand_sizes) - 1
            assert (game.round, game.dealer, game.is_over) == (1, 0, False)


def test_same_seed_deals_same_cards_and_reset_matches_constructor():
    """docs/rules.md 2 (dealing; explicit seeds): ``Game(seed=s)`` and ``reset(s)`` agree."""
    a = Game(num_players=4, seed=11)
    b = Game(num_players=4, seed=5)
    b.reset(11)
    assert snapshot(a) == snapshot(b)
    c = Game(num_players=4, seed=12)
    assert [a.hand(s) for s in range(4)] != [c.hand(s) for s in range(4)]


def test_dealer_default_seat0_play_starts_left_of_dealer():
    """docs/rules.md 2 (Dealer and order): seat 0 deals; play starts at dealer + 1."""
    seed = seed_with_first_card(lambda c: rank(c) in "123456789", 4)
    game = Game(num_players=4, seed=seed)
    assert game.dealer == 0
    assert (game.current_player, game.phase, game.direction) == (1, "play", 1)


@pytest.mark.parametrize("dealer, first", [(2, 3), (3, 0)])
def test_dealer_flag_play_starts_left_of_named_dealer(dealer, first):
    """docs/rules.md 2 (Dealer and order): ``dealer=`` names the dealer; play starts left of
    them (wrapping round the table)."""
    seed = seed_with_first_card(lambda c: rank(c) in "123456789", 4, dealer=dealer)
    game = Game(num_players=4, seed=seed, dealer=dealer)
    assert game.dealer == dealer
    assert (game.current_player, game.phase, game.direction) == (first, "play", 1)
    check_first_card_effect(game)


def test_dealer_flag_out_of_range_is_an_error():
    """docs/rules.md 2 (Dealer and order): the dealer must be a seat of the table."""
    with pytest.raises(ValueError, match="dealer"):
        Game(num_players=3, dealer=3)


# =====================================================================================
# First card turned up
# =====================================================================================


@pytest.mark.parametrize("dealer", [0, 3])
def test_first_card_skip_skips_first_player(dealer):
    """docs/rules.md 2 (First card turned up, S): the first player is skipped."""
    seed = seed_with_first_card(lambda c: rank(c) == "S", 4, dealer=dealer)
    game = Game(num_players=4, seed=seed, dealer=dealer)
    assert game.current_player == (dealer + 2) % 4
    assert game.hand_sizes == [7, 7, 7, 7]
    check_first_card_effect(game)


def test_first_card_reverse_dealer_plays_first_and_play_goes_the_other_way():
    """docs/rules.md 2 (First card turned up, R): the dealer plays first, direction -1."""
    seed = seed_with_first_card(lambda c: rank(c) == "R", 4)
    game = Game(num_players=4, seed=seed)
    assert (game.current_player, game.direction) == (0, -1)
    check_first_card_effect(game)
    # the dealer's turn ends (draw, then pass if the drawn card is playable): seat 3 next
    game.play("draw")
    if game.phase == "drawn":
        game.play("pass")
    assert (game.current_player, game.direction, game.turns) == (3, -1, 1)


def test_first_card_draw_two_first_player_draws_two_and_is_skipped():
    """docs/rules.md 2 (First card turned up, D2): the first player draws 2, is skipped."""
    seed = seed_with_first_card(lambda c: rank(c) == "D2", 4)
    game = Game(num_players=4, seed=seed)
    assert game.hand_sizes == [7, 9, 7, 7]
    assert game.current_player == 2
    assert game.draw_pile_size == 108 - 30 - 1
    check_first_card_effect(game)


def test_first_card_wild_first_player_names_colour_then_plays():
    """docs/rules.md 2 (First card turned up, W): the first player chooses the colour
    (``color:X``), then plays."""
    seed = seed_with_first_card(lambda c: c == "W", 4)
    game = Game(num_players=4, seed=seed)
    check_first_card_effect(game)
    assert moves(game) == {"color:R", "color:Y", "color:G", "color:B"}
    before = hand(game, 1)
    game.play("color:G")
    assert (game.current_player, game.phase, game.color, game.top) == (1, "play", "G", "W")
    assert hand(game, 1) == before and game.turns == 0
    expected = {c for c in before if c not in ("W", "W4") and c[0] == "G"}
    expected |= {m for c in before if c in ("W", "W4") for m in wilds(c)}
    expected.add("draw")
    assert moves(game) == expected


def test_first_card_w4_is_never_the_first_discard_and_deck_stays_whole():
    """docs/rules.md 2 (First card turned up, W4): put back at a random place, another is
    turned; the deck stays whole."""
    firsts = Counter()
    for n in (2, 4):
        game = Game(num_players=n, seed=0)
        for seed in range(400):
            game.reset(seed)
            firsts[game.discard[0]] += 1
            assert game.discard[0] != "W4"
            assert len(game.discard) == 1
            assert all_cards(game) == Counter(full_deck())
    # the other wild does turn up (so the check above is not vacuous about wilds)
    assert firsts["W"] > 0


@pytest.mark.parametrize("kind", ["S", "R", "D2"])
def test_first_card_two_players_action_gives_dealer_the_first_move(kind):
    """docs/rules.md 2 (First card turned up; Two players): with two players a first S, R or
    D2 skips seat 1, so the dealer moves first (D2: seat 1 draws 2)."""
    seed = seed_with_first_card(lambda c: rank(c) == kind, 2)
    game = Game(num_players=2, seed=seed)
    assert game.current_player == 0
    assert game.hand_sizes == ([7, 9] if kind == "D2" else [7, 7])
    check_first_card_effect(game)


# =====================================================================================
# A turn: matching, drawing, draw-then-play
# =====================================================================================


def test_play_matches_colour_number_symbol_or_wild():
    """docs/rules.md 2 (A turn): a card matching the top card's colour, number or symbol, or
    any wild, may be played; nothing else."""
    game = scen([["R3", "G5", "B9", "YS", "W", "W4"], ["G1"] * 2, ["B1"] * 2])
    assert moves(game) == {"R3", "G5", "draw"} | wilds("W") | wilds("W4")
    game = scen([["R3", "G5", "BS", "Y7"], ["G1"], ["B1"]], top="GS")
    assert moves(game) == {"G5", "BS", "draw"}
    game = scen([["R3", "G5", "BD2", "Y7"], ["G1"], ["B1"]], top="YD2")
    assert moves(game) == {"BD2", "Y7", "draw"}


def test_play_after_wild_matches_named_colour_only():
    """docs/rules.md 2 (A turn): after a wild the named colour is matched (no rank match)."""
    game = scen([["R3", "B1", "Y7"], ["G1"], ["G2"]], top="W", color="B")
    assert moves(game) == {"B1", "draw"}
    game = scen([["Y2", "R4", "W"], ["G1"], ["G2"]], top="W4", color="Y")
    assert moves(game) == {"Y2", "draw"} | wilds("W")


def test_play_number_card_moves_card_and_passes_turn():
    """docs/rules.md 2 (A turn): the played card becomes the top card; play passes on."""
    game = scen([["R3", "G5", "B9"], ["G1", "G2"], ["B1", "B2"], ["Y1", "Y2"]])
    game.play("G5")
    assert hand(game, 0) == ["B9", "R3"]
    assert (game.top, game.color, game.current_player, game.phase) == ("G5", "G", 1, "play")
    assert game.hand_sizes == [2, 2, 2, 2]
    assert game.discard == ["R5", "G5"]
    assert game.turns == 1 and game.history == [(0, "G5")]


def test_identical_cards_are_one_move():
    """docs/rules.md 2 precise points: legal moves are distinct strings (two identical cards,
    one move)."""
    game = scen([["R3", "R3", "W", "W"], ["G1"], ["G2"]])
    assert game.legal_moves().count("R3") == 1
    assert moves(game) == {"R3", "draw"} | wilds("W")
    game.play("R3")
    assert hand(game, 0) == ["R3", "W", "W"]


def test_draw_allowed_with_playable_card_unplayable_draw_ends_turn():
    """docs/rules.md 2 (A turn): drawing is allowed even with a playable card; if the drawn
    card is not playable the turn ends with no further decision."""
    game = scen([["R3", "G7", "B1"], ["G1", "G2"], ["B1", "B2"]], draw_pile=["Y9", "R8"])
    assert "draw" in moves(game) and "R3" in moves(game)
    game.play("draw")
    assert hand(game, 0) == ["B1", "G7", "R3", "Y9"]
    assert (game.current_player, game.phase, game.top, game.turns) == (1, "play", "R5", 1)
    assert game.draw_pile[0] == "R8"


def test_draw_then_play_only_the_drawn_card():
    """docs/rules.md 2 (A turn): a playable drawn card may be played (only that card)."""
    game = scen([["R3", "G7", "B1"], ["G1", "G2"], ["B1", "B2"]], draw_pile=["R9"])
    game.play("draw")
    assert (game.current_player, game.phase, game.turns) == (0, "drawn", 0)
    assert moves(game) == {"R9", "pass"}  # R3 is playable but not the drawn card
    with pytest.raises(ValueError, match="legal moves"):
        game.play("R3")
    game.play("R9")
    assert hand(game, 0) == ["B1", "G7", "R3"]
    assert (game.top, game.color, game.current_player, game.phase) == ("R9", "R", 1, "play")
    assert game.turns == 1


def test_draw_then_pass_keeps_the_card():
    """docs/rules.md 2 (A turn): ... or ``pass`` (keep the card; the turn ends)."""
    game = scen([["R3", "G7", "B1"], ["G1", "G2"], ["B1", "B2"]], draw_pile=["G5"])
    game.play("draw")
    assert moves(game) == {"G5", "pass"}
    game.play("pass")
    assert hand(game, 0) == ["B1", "G5", "G7", "R3"]
    assert (game.top, game.current_player, game.phase, game.turns) == ("R5", 1, "play", 1)


def test_drawn_wild_may_be_played_naming_a_colour():
    """docs/rules.md 2 (A turn): a drawn wild is playable: the four colour moves or pass."""
    game = scen([["G7", "B1", "Y3"], ["G1", "G2"], ["B1", "B2"]], draw_pile=["W"])
    game.play("draw")
    assert moves(game) == wilds("W") | {"pass"}
    game.play("W:Y")
    assert (game.top, game.color, game.current_player) == ("W", "Y", 1)
    assert hand(game, 0) == ["B1", "G7", "Y3"]


def test_drawn_w4_with_bluff_opens_play_or_pass_even_holding_colour():
    """docs/rules.md 2 precise points: a drawn W4 opens the play-or-pass decision (always with
    ``bluff=True``)."""
    game = scen([["R3", "G1", "B2"], ["G1", "G2"], ["B1", "B2"]], draw_pile=["W4"])
    game.play("draw")
    assert game.phase == "drawn"
    assert moves(game) == wilds("W4") | {"pass"}


def test_drawn_w4_without_bluff_ends_turn_when_holding_colour():
    """docs/rules.md 2 precise points: with ``bluff=False`` a drawn W4 opens the decision only
    when it could be played from the hand at that moment."""
    game = scen([["R3", "G1", "B2"], ["G1", "G2"], ["B1", "B2"]], draw_pile=["W4"],
                bluff=False)
    game.play("draw")
    assert (game.current_player, game.phase) == (1, "play")
    assert hand(game, 0) == ["B2", "G1", "R3", "W4"]
    game = scen([["Y3", "G1", "B2"], ["G1", "G2"], ["B1", "B2"]], draw_pile=["W4"],
                bluff=False)
    game.play("draw")
    assert (game.current_player, game.phase) == (0, "drawn")
    assert moves(game) == wilds("W4") | {"pass"}


# =====================================================================================
# Wild Draw Four: the colour rule, bluffing and the challenge
# =====================================================================================


def test_w4_offered_with_bluff_even_when_holding_colour():
    """docs/rules.md 2 (W4): with ``bluff=True`` (default) the mask still offers an illegal W4."""
    game = scen([["R3", "W4", "G1"], ["G1", "G2"], ["B1", "B2"]])
    assert moves(game) == {"R3", "draw"} | wilds("W4")


def test_w4_masked_without_bluff_when_holding_colour():
    """docs/rules.md 2 (W4): with ``bluff=False`` an illegal W4 is masked."""
    game = scen([["R3", "W4", "G1"], ["G1", "G2"], ["B1", "B2"]], bluff=False)
    assert moves(game) == {"R3", "draw"}
    with pytest.raises(ValueError):
        game.play("W4:G")


def test_w4_colour_rule_ignores_other_colours_numbers_and_other_wilds():
    """docs/rules.md 2 (W4): numbers or symbols of other colours and other wilds do not count."""
    game = scen([["G5", "W4", "W", "BS"], ["G1", "G2"], ["B1", "B2"]], bluff=False)
    assert moves(game) == {"G5", "draw"} | wilds("W") | wilds("W4")
    game = scen([["G5", "W4"], ["G1", "G2"], ["B1", "B2"]], top="W", color="B",
                bluff=False)
    assert moves(game) == {"draw", "uno"} | wilds("W4")


def test_w4_without_bluff_next_draws_four_and_is_skipped_no_challenge():
    """docs/rules.md 2 (W4; Effects): the next player draws 4 and is skipped; with
    ``bluff=False`` no challenge is offered."""
    game = scen([["G3", "W4", "B1"], ["G1", "G2"], ["B1", "B2"], ["Y1", "Y2"]],
                draw_pile=["R1", "R2", "Y3", "Y4", "B9"], bluff=False)
    game.play("W4:Y")
    assert hand(game, 1) == ["G1", "G2", "R1", "R2", "Y3", "Y4"]
    assert (game.current_player, game.phase, game.color, game.top) == (2, "play", "Y", "W4")
    assert game.draw_pile[0] == "B9"
    assert game.turns == 1


def test_w4_accept_draws_four_and_loses_turn():
    """docs/rules.md 2 (W4): the next player chooses ``accept`` (draw 4, lose the turn)."""
    game = scen([["R3", "W4", "B1"], ["G1", "G2"], ["B1", "B2"], ["Y1", "Y2"]],
                draw_pile=["R1", "R2", "Y3", "Y4", "B9"])
    game.play("W4:G")
    assert (game.current_player, game.phase, game.color, game.top) == \
        (1, "challenge", "G", "W4")
    assert moves(game) == {"challenge", "accept"}
    assert game.turns == 1
    game.play("accept")
    assert hand(game, 1) == ["G1", "G2", "R1", "R2", "Y3", "Y4"]
    assert hand(game, 0) == ["B1", "R3"]
    assert (game.current_player, game.phase, game.color) == (2, "play", "G")
    assert game.turns == 1  # the skipped player had no turn


def test_w4_challenge_guilty_w4_player_draws_four_challenger_plays_named_colour():
    """docs/rules.md 2 (W4): guilty: the W4 player draws 4 and the challenger takes a normal
    turn with the named colour."""
    game = scen([["R3", "W4", "B1"], ["G7", "Y2", "B3"], ["B1", "B2"], ["Y1", "Y2"]],
                draw_pile=["R1", "R2", "Y3", "Y4", "B9"])
    game.play("W4:G")
    game.play("challenge")
    assert hand(game, 0) == ["B1", "R1", "R2", "R3", "Y3", "Y4"]
    assert hand(game, 1) == ["B3", "G7", "Y2"]
    assert (game.current_player, game.phase, game.color, game.top) == (1, "play", "G", "W4")
    assert moves(game) == {"G7", "draw"}
    game.play("G7")
    assert (game.current_player, game.top, game.turns) == (2, "G7", 2)
    assert game.stats["challenges"] == 1 and game.stats["challenges_won"] == 1


def test_w4_challenge_innocent_challenger_draws_six_and_loses_turn():
    """docs/rules.md 2 (W4): innocent: the challenger draws 6 and loses the turn."""
    six = ["R1", "R2", "Y3", "Y4", "B8", "B9"]
    game = scen([["G3", "W4", "B1"], ["G7", "Y2"], ["B1", "B2"], ["Y1", "Y2"]],
                draw_pile=[*six, "G9"])
    game.play("W4:Y")
    game.play("challenge")
    assert hand(game, 1) == sorted(["G7", "Y2", *six])
    assert hand(game, 0) == ["B1", "G3"]
    assert (game.current_player, game.phase, game.color) == (2, "play", "Y")
    assert game.draw_pile[0] == "G9"
    assert game.stats["challenges"] == 1 and game.stats["challenges_won"] == 0


def test_w4_guilt_judged_against_colour_in_force_before_it():
    """docs/rules.md 2 precise points: guilt is judged against the colour in force before the
    W4 (the named colour after a wild), not the colour it names."""
    # colour in force B, no blue held: innocent, even naming red while holding R2
    game = scen([["W4", "R2", "G3"], ["G7", "Y2"], ["B1", "B2"]], top="W", color="B",
                draw_pile=["R1", "R2", "R3", "R4", "R6", "R7"])
    game.play("W4:R")
    game.play("challenge")
    assert game.hand_sizes == [2, 8, 2]
    assert game.current_player == 2
    # colour in force B and a blue card held: guilty
    game = scen([["W4", "B7", "G3"], ["G7", "Y2"], ["B1", "B2"]], top="W", color="B",
                draw_pile=["R1", "R2", "R3", "R4"])
    game.play("W4:R")
    game.play("challenge")
    assert hand(game, 0) == ["B7", "G3", "R1", "R2", "R3", "R4"]
    assert (game.current_player, game.color) == (1, "R")


def test_w4_guilt_ignores_number_matches_and_other_wilds():
    """docs/rules.md 2 precise points: other wilds never count; a number match of another
    colour is not a card of the current colour."""
    game = scen([["W4", "G5", "W"], ["G7", "Y2"], ["B1", "B2"]],
                draw_pile=["R1", "R2", "R3", "R4", "R6", "R7"])
    game.play("W4:G")
    game.play("challenge")
    assert hand(game, 0) == ["G5", "W"]
    assert game.hand_sizes == [2, 8, 2]
    assert game.current_player == 2


def test_w4_guilt_judged_at_play_time_not_after_later_draws():
    """docs/rules.md 2 precise points: cards drawn after the W4 do not change the verdict.
    Here the W4 player is caught (UNO) and draws a red card before the challenge."""
    six = ["Y3", "Y4", "Y5", "Y6", "Y7", "Y8"]
    game = scen([["W4", "G3"], ["G7", "Y2"], ["B1", "B2"], ["Y1", "Y2"]],
                draw_pile=["R9", "R1", *six])
    game.play("W4:B")
    assert moves(game) == {"challenge", "accept", "catch"}
    game.play("catch")
    assert hand(game, 0) == ["G3", "R1", "R9"]  # now holds red, the colour before
    game.play("challenge")
    assert hand(game, 1) == sorted(["G7", "Y2", *six])  # still innocent: draws 6
    assert (game.current_player, game.phase, game.color) == (2, "play", "B")


# =====================================================================================
# Effects with three or four players
# =====================================================================================


def test_skip_skips_next_player():
    """docs/rules.md 2 (Effects): ``S`` skips the next player."""
    game = scen([["RS", "G1", "B2"], ["R1", "G2"], ["B1", "B2"], ["Y1", "Y2"]])
    game.play("RS")
    assert (game.current_player, game.top, game.color, game.direction) == (2, "RS", "R", 1)
    assert hand(game, 1) == ["G2", "R1"]
    assert game.turns == 1  # the skipped player had no turn


def test_skip_counter_clockwise():
    """docs/rules.md 2 (Effects): ``S`` skips the next player in the current direction."""
    game = scen([["Y1", "Y2"], ["GS", "G1", "B2"], ["B1", "B2"], ["Y1", "Y2"]], top="G5",
                current=1, direction=-1)
    game.play("GS")
    assert (game.current_player, game.direction) == (3, -1)


def test_reverse_changes_direction_four_players():
    """docs/rules.md 2 (Effects): ``R`` reverses direction."""
    game = scen([["RR", "G1", "B2"], ["R1", "G2"], ["B1", "B2"], ["R7", "Y2", "Y3"]])
    game.play("RR")
    assert (game.current_player, game.direction, game.top) == (3, -1, "RR")
    game.play("R7")
    assert (game.current_player, game.direction) == (2, -1)
    game = scen([["B1", "G2"], ["RR", "G1", "B2"], ["B1", "B2"]], current=1, direction=-1)
    game.play("RR")
    assert (game.current_player, game.direction) == (2, 1)


def test_draw_two_next_draws_two_and_is_skipped_no_stacking():
    """docs/rules.md 2 (Effects): ``D2``: the next player draws 2 and is skipped (no stacking:
    holding a D2 gives them no decision)."""
    game = scen([["RD2", "G1", "B2"], ["BD2", "G2"], ["B1", "B2"], ["Y1", "Y2"]],
                draw_pile=["G9", "Y4", "B7"])
    game.play("RD2")
    assert hand(game, 1) == ["BD2", "G2", "G9", "Y4"]
    assert (game.current_player, game.phase, game.top, game.color) == (2, "play", "RD2", "R")
    assert game.draw_pile[0] == "B7"
    assert game.turns == 1


def test_draw_two_counter_clockwise():
    """docs/rules.md 2 (Effects): the D2 victim is the next player in the current direction."""
    game = scen([["RD2", "G1", "B2"], ["B9", "G2"], ["B1", "B2"], ["Y1", "Y2"]],
                draw_pile=["G9", "Y4"], direction=-1)
    game.play("RD2")
    assert hand(game, 3) == ["G9", "Y1", "Y2", "Y4"]
    assert game.current_player == 2


def test_wild_names_colour_next_player_moves():
    """docs/rules.md 2 (Effects): ``W`` names a colour; the next player plays to it."""
    game = scen([["W", "G1", "B2"], ["B4", "R7", "G5"], ["B1", "B2"]])
    game.play("W:B")
    assert (game.top, game.color, game.current_player, game.phase) == ("W", "B", 1, "play")
    assert moves(game) == {"B4", "draw"}
    assert hand(game, 0) == ["B2", "G1"]


# =====================================================================================
# Two players
# =====================================================================================


def test_two_players_reverse_acts_as_skip_and_flips_direction():
    """docs/rules.md 2 (Two players; precise points): ``R`` acts as ``S``; it flips the
    direction and the same player moves again."""
    game = scen([["RR", "R1", "B2"], ["G1", "G2"]])
    game.play("RR")
    assert (game.current_player, game.direction, game.phase, game.turns) == (0, -1, "play", 1)
    assert moves(game) == {"R1", "draw", "uno"}  # a new turn with two cards
    game.play("R1")
    assert (game.current_player, game.turns) == (1, 2)


def test_two_players_skip_same_player_again():
    """docs/rules.md 2 (Two players): after ``S`` the same player moves again."""
    game = scen([["RS", "R1", "B2"], ["G1", "G2"]])
    game.play("RS")
    assert (game.current_player, game.direction, game.phase) == (0, 1, "play")
    assert hand(game, 1) == ["G1", "G2"]


def test_two_players_draw_two_same_player_again():
    """docs/rules.md 2 (Two players): after ``D2`` the same player moves again."""
    game = scen([["RD2", "R1", "B2"], ["G1", "G2"]], draw_pile=["Y5", "Y6"])
    game.play("RD2")
    assert hand(game, 1) == ["G1", "G2", "Y5", "Y6"]
    assert (game.current_player, game.phase) == (0, "play")


def test_two_players_wild_passes_the_turn():
    """docs/rules.md 2 (Two players): a plain ``W`` is not in the list: the other player moves."""
    game = scen([["W", "R1", "B2"], ["G1", "G2"]])
    game.play("W:G")
    assert (game.current_player, game.color) == (1, "G")


def test_two_players_w4_without_bluff_same_player_again():
    """docs/rules.md 2 (Two players): after ``W4`` the same player moves again."""
    game = scen([["W4", "G1", "B2"], ["G1", "G2"]], bluff=False,
                draw_pile=["Y5", "Y6", "Y7", "Y8"])
    game.play("W4:B")
    assert hand(game, 1) == ["G1", "G2", "Y5", "Y6", "Y7", "Y8"]
    assert (game.current_player, game.phase, game.color) == (0, "play", "B")
    assert moves(game) == {"B2", "draw", "uno"}  # a new turn with two cards


@pytest.mark.parametrize("answer, guilty, drawer, drawn, next_seat", [
    ("accept", False, 1, 4, 0),
    ("challenge", False, 1, 6, 0),
    ("challenge", True, 0, 4, 1),
])
def test_two_players_w4_challenge_outcomes(answer, guilty, drawer, drawn, next_seat):
    """docs/rules.md 2 (W4; Two players): accept or an innocent verdict: the W4 player moves
    again; a guilty verdict: the challenger plays."""
    own = ["W4", "R1", "B2"] if guilty else ["W4", "G1", "B2"]
    game = scen([own, ["G1", "G2"]], draw_pile=["Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9"])
    game.play("W4:B")
    assert (game.current_player, game.phase) == (1, "challenge")
    game.play(answer)
    sizes = [2, 2]
    sizes[drawer] += drawn
    assert game.hand_sizes == sizes
    assert (game.current_player, game.phase, game.color) == (next_seat, "play", "B")


# =====================================================================================
# UNO call and catch
# =====================================================================================


def test_uno_offered_only_with_exactly_two_cards_and_a_playable_card():
    """docs/rules.md 2 precise points: ``uno`` is offered holding exactly two cards at a
    decision where a card may be played."""
    assert moves(scen([["R3", "G7"], ["G1", "G2"], ["B1"]])) == {"R3", "draw", "uno"}
    assert moves(scen([["B3", "G7"], ["G1", "G2"], ["B1"]])) == {"draw"}
    assert moves(scen([["R3", "G7", "B1"], ["G1", "G2"], ["B1"]])) == {"R3", "draw"}
    assert moves(scen([["R3"], ["G1", "G2"], ["B1"]])) == {"R3", "draw"}
    # with bluff=False a masked W4 is not a playable card
    assert moves(scen([["R3", "W4"], ["G1"], ["B1"]], top="R5", bluff=False)) == \
        {"R3", "draw", "uno"}
    assert moves(scen([["Y3", "W4"], ["G1"], ["B1"]], top="W", color="R")) == \
        {"draw", "uno"} | wilds("W4")


def test_uno_call_once_per_turn_then_play_is_not_catchable():
    """docs/rules.md 2 (UNO call; precise points): once per turn; a player who called and then
    plays down to one card cannot be caught."""
    game = scen([["R3", "G7"], ["G1", "G2", "R8"], ["B1", "B2"]])
    game.play("uno")
    assert (game.current_player, game.phase, game.turns) == (0, "play", 0)
    assert hand(game, 0) == ["G7", "R3"]
    assert moves(game) == {"R3", "draw"}
    game.play("R3")
    assert game.catchable is None
    assert (game.current_player, moves(game)) == (1, {"R8", "draw"})


def test_uno_after_drawing_a_playable_card():
    """docs/rules.md 2 precise points: ``uno`` is also offered right after drawing a playable
    card (two cards held); calling it protects the play."""
    game = scen([["G7"], ["G1", "G2", "R8"], ["B1", "B2"]], draw_pile=["R9"])
    game.play("draw")
    assert (game.phase, moves(game)) == ("drawn", {"R9", "pass", "uno"})
    game.play("uno")
    assert moves(game) == {"R9", "pass"}
    game.play("R9")
    assert game.catchable is None
    assert moves(game) == {"R8", "draw"}


def test_uno_not_offered_after_drawing_an_unplayable_card_or_with_three():
    """docs/rules.md 2 precise points: no ``uno`` when no card may be played."""
    game = scen([["G7"], ["G1", "G2", "R8"], ["B1", "B2"]], draw_pile=["B9"])
    game.play("draw")
    assert (game.current_player, game.phase) == (1, "play")
    # called with two cards, then drew: three cards, no second call
    game = scen([["R3", "G7"], ["G1", "G2", "R8"], ["B1", "B2"]], draw_pile=["R9"])
    game.play("uno")
    game.play("draw")
    assert moves(game) == {"R9", "pass"}


def test_uno_catch_offender_draws_two_catcher_decision_stays_open():
    """docs/rules.md 2 (UNO call; precise points): the next player's first action may be
    ``catch`` (the offender draws 2); ``catch`` does not end that decision."""
    game = scen([["R3", "G7"], ["R8", "B1", "Y1"], ["G2", "G3", "G4"]],
                draw_pile=["B6", "Y6", "Y9"])
    game.play("R3")
    assert game.catchable == 0
    assert (game.current_player, moves(game)) == (1, {"R8", "draw", "catch"})
    game.play("catch")
    assert hand(game, 0) == ["B6", "G7", "Y6"]
    assert (game.current_player, game.phase, game.turns) == (1, "play", 1)
    assert moves(game) == {"R8", "draw"}
    assert game.catchable is None and game.stats["catches"] == 1
    game.play("R8")
    assert (game.current_player, game.top) == (2, "R8")


def test_uno_catch_chance_closed_by_any_other_move():
    """docs/rules.md 2 precise points: any other move closes the chance to catch."""
    game = scen([["R3", "G7"], ["R8", "B1", "Y1"], ["G2", "G3", "G4"]])
    game.play("R3")
    game.play("R8")
    assert game.catchable is None
    assert moves(game) == {"draw"}
    assert hand(game, 0) == ["G7"]
    # a draw closes it too
    game = scen([["R3", "G7"], ["R8", "B1", "Y1"], ["G2", "G3", "G4"]], draw_pile=["B9"])
    game.play("R3")
    game.play("draw")
    assert (game.current_player, game.catchable) == (2, None)
    assert "catch" not in moves(game)


def test_uno_catch_offered_beside_challenge_and_accept():
    """docs/rules.md 2 precise points: the chance is offered with whatever else is legal there
    (also beside ``challenge``/``accept``); after it the decision stays open."""
    game = scen([["W4", "G3"], ["G7", "Y2"], ["B1", "B2"]],
                draw_pile=["B6", "Y6", "R1", "R2", "R3", "R4"])
    game.play("W4:G")
    assert (game.phase, moves(game)) == ("challenge", {"challenge", "accept", "catch"})
    game.play("catch")
    assert hand(game, 0) == ["B6", "G3", "Y6"]
    assert (game.current_player, game.phase, moves(game)) == \
        (1, "challenge", {"challenge", "accept"})
    game.play("accept")
    assert hand(game, 1) == ["G7", "R1", "R2", "R3", "R4", "Y2"]
    assert game.current_player == 2


def test_uno_catch_after_playing_a_drawn_card_without_call():
    """docs/rules.md 2 precise points: catchable when a play in their turn leaves one card
    without a call, also the play of a card just drawn."""
    game = scen([["G7"], ["G1", "G2", "R8"], ["B1", "B2"]], draw_pile=["R9", "B5", "B6"])
    game.play("draw")
    game.play("R9")
    assert game.catchable == 0
    assert moves(game) == {"R8", "draw", "catch"}
    game.play("catch")
    assert hand(game, 0) == ["B5", "B6", "G7"]


def test_uno_not_catchable_when_one_card_is_left_without_a_play():
    """docs/rules.md 2 precise points: only a *play* in the turn that leaves one card makes
    the player catchable (holding one card after a fruitless draw does not)."""
    hands = spread([["G7"], ["B1", "B2"]], 3, ["R5"])
    game = scen(hands, top="R5")
    game.play("draw")  # both piles dry: nothing drawn, the turn ends with one card
    assert (game.current_player, game.hand_sizes[0], game.catchable) == (1, 1, None)
    assert "catch" not in moves(game)


def test_uno_call_covers_that_turn_only():
    """docs/rules.md 2 precise points: a call covers that turn only; a later play down to one
    card without a new call is catchable."""
    game = scen([["R3", "G7"], ["B1", "B2", "B3"]], draw_pile=["R9", "Y1", "G1", "Y5", "Y6"])
    game.play("uno")
    game.play("draw")  # R9: playable, kept
    game.play("pass")
    game.play("draw")  # seat 1: Y1, not playable
    assert (game.current_player, hand(game, 0)) == (0, ["G7", "R3", "R9"])
    game.play("R3")
    game.play("draw")  # seat 1: G1, not playable
    assert moves(game) == {"R9", "draw", "uno"}  # the old call does not carry over
    game.play("R9")
    assert game.catchable == 0
    assert moves(game) == {"draw", "catch"}
    game.play("catch")
    assert hand(game, 0) == ["G7", "Y5", "Y6"]


def test_uno_catch_chance_passes_over_skipped_player():
    """docs/rules.md 2 precise points: a skipped player makes no decision, so the chance passes
    over them to the next decider."""
    game = scen([["RS", "G7"], ["R8", "B1", "Y1"], ["G2", "G3", "G4"]],
                draw_pile=["B6", "Y6"])
    game.play("RS")
    assert (game.current_player, game.catchable) == (2, 0)
    assert moves(game) == {"draw", "catch"}
    game.play("catch")
    assert hand(game, 0) == ["B6", "G7", "Y6"]
    assert hand(game, 1) == ["B1", "R8", "Y1"]
    # the same after a D2: the victim draws and has no decision
    game = scen([["RD2", "G7"], ["R8", "B1", "Y1"], ["G2", "G3", "G4"]],
                draw_pile=["B6", "Y6", "Y7", "Y8"])
    game.play("RD2")
    assert hand(game, 1) == ["B1", "B6", "R8", "Y1", "Y6"]
    assert (game.current_player, moves(game)) == (2, {"draw", "catch"})
    game.play("catch")
    assert hand(game, 0) == ["G7", "Y7", "Y8"]


@pytest.mark.parametrize("card", ["RS", "RR", "RD2"])
def test_uno_no_catch_when_next_decision_is_offenders_own(card):
    """docs/rules.md 2 precise points: if the next decision is the offender's own (two players
    after S, R, D2), there is no chance to catch."""
    game = scen([[card, "G7"], ["R8", "B1", "Y1"]], draw_pile=["B6", "Y6"])
    game.play(card)
    assert game.current_player == 0
    assert game.catchable is None
    assert moves(game) == {"draw"}


def test_uno_two_players_opponent_may_catch():
    """docs/rules.md 2 (UNO call): with two players the opponent is the next decider."""
    game = scen([["R3", "G7"], ["R8", "B1", "Y1"]], draw_pile=["B6", "Y6"])
    game.play("R3")
    assert moves(game) == {"R8", "draw", "catch"}
    game.play("catch")
    assert hand(game, 0) == ["B6", "G7", "Y6"]
    assert game.current_player == 1


def test_uno_call_false_has_no_uno_or_catch_moves():
    """docs/rules.md 2 (UNO call): ``uno_call=False`` makes the call implicit."""
    game = scen([["R3", "G7"], ["R8", "B1", "Y1"], ["G2", "G3"]], uno_call=False)
    assert moves(game) == {"R3", "draw"}
    game.play("R3")
    assert game.catchable is None
    assert moves(game) == {"R8", "draw"}
    with pytest.raises(ValueError):
        game.play("catch")
    game = scen([["G7"], ["R8", "B1", "Y1"], ["G2", "G3"]], draw_pile=["R9"],
                uno_call=False)
    game.play("draw")
    assert moves(game) == {"R9", "pass"}


def test_uno_catch_does_not_count_as_a_turn():
    """docs/rules.md 2 precise points (``max_turns`` counts turns that have ended): a catch
    is not a turn."""
    game = scen([["R3", "G7"], ["R8", "B1", "Y1"], ["G2", "G3"]], draw_pile=["B6", "Y6"],
                max_turns=2)
    game.play("R3")
    game.play("catch")
    assert (game.turns, game.is_over) == (1, False)
    game.play("R8")
    assert game.truncated


# =====================================================================================
# Empty draw pile, reshuffle, dry piles
# =====================================================================================


def test_reshuffle_keeps_top_card_exact():
    """docs/rules.md 2 (Empty draw pile): the discard pile except its top card becomes the new
    draw pile. With one card under the top the result is exact."""
    hands = spread([], 4, ["R5", "B9"])
    game = scen(hands, top="R5", discard=["B9"])
    assert game.draw_pile_size == 0
    before = hand(game, 0)
    game.play("draw")
    assert hand(game, 0) == sorted(before + ["B9"])
    assert game.discard == ["R5"] and game.draw_pile == []
    assert game.stats["reshuffles"] == 1
    assert (game.current_player, game.phase) == (1, "play")


def test_reshuffle_of_a_long_discard_pile():
    """docs/rules.md 2 (Empty draw pile): shuffle the discard pile except its top card into a
    new draw pile; the top card stays."""
    hands = [["R3", "G7", "B1"], ["G1", "G2", "B4"], ["B1", "B2", "G4"], ["Y1", "G3", "B3"]]
    old = remaining(*hands, ["R5", "Y2"])
    game = scen(hands, top="R5", draw_pile=["Y2"], discard=old)
    assert game.draw_pile == ["Y2"]
    game.play("draw")  # Y2: not playable, the turn ends
    assert (game.current_player, game.draw_pile_size) == (1, 0)
    game.play("draw")
    new = Counter(game.hand(1)) - Counter(["G1", "G2", "B4"])
    assert sum(new.values()) == 1
    assert game.discard == ["R5"]
    assert Counter(game.draw_pile) + new == Counter(old)
    assert game.draw_pile != sorted(game.draw_pile)  # shuffled, not in deck order
    assert game.stats["reshuffles"] == 1
    assert all_cards(game) == Counter(full_deck())


def test_both_piles_dry_draw_ends_the_turn():
    """docs/rules.md 2 (Empty draw pile): if no card can be drawn at all, ``draw`` ends the
    turn."""
    hands = spread([["G7", "B1", "Y3"]], 3, ["R5"])
    game = scen(hands, top="R5")
    assert (game.draw_pile_size, game.discard) == (0, ["R5"])
    assert "draw" in moves(game)
    before = [hand(game, s) for s in range(3)]
    game.play("draw")
    assert [hand(game, s) for s in range(3)] == before
    assert (game.current_player, game.phase, game.turns) == (1, "play", 1)
    assert game.stats["reshuffles"] == 0


def test_penalty_draw_with_one_reshuffle():
    """docs/rules.md 2 precise points: penalty draws take what can be drawn after one
    reshuffle (the D2 itself stays on top)."""
    hands = spread([["RD2", "G7", "B1"], ["G1", "G2"]], 4, ["R5", "Y2"])
    game = scen(hands, top="R5", draw_pile=["Y2"])
    game.play("RD2")
    assert hand(game, 1) == ["G1", "G2", "R5", "Y2"]
    assert game.discard == ["RD2"] and game.draw_pile == []
    assert game.current_player == 2


def test_penalty_draw_short_when_both_piles_run_dry():
    """docs/rules.md 2 precise points: if both piles are dry the player draws fewer."""
    hands = spread([["W4", "G7", "B1"], ["G1", "G2"]], 4, ["R5", "Y2"])
    game = scen(hands, top="R5", draw_pile=["Y2"])
    game.play("W4:G")
    game.play("accept")
    assert hand(game, 1) == ["G1", "G2", "R5", "Y2"]  # 2 of 4
    assert game.discard == ["W4"] and game.draw_pile == []
    assert (game.current_player, game.color) == (2, "G")
    # an innocent challenge on dry piles: draws what there is
    hands = spread([["W4", "G7", "B1"], ["G1", "G2"]], 4, ["R5"])
    game = scen(hands, top="R5")
    game.play("W4:Y")
    game.play("challenge")
    assert hand(game, 1) == ["G1", "G2", "R5"]
    assert game.current_player == 2


def test_catch_on_dry_piles_draws_what_there_is():
    """docs/rules.md 2 precise points: the catch penalty follows the penalty-draw rule."""
    hands = spread([["R3", "G7"], ["R8", "B1"]], 3, ["R5"])
    game = scen(hands, top="R5")
    game.play("R3")
    game.play("catch")
    assert hand(game, 0) == ["G7", "R5"]
    assert game.discard == ["R3"]


# =====================================================================================
# Round end and scoring
# =====================================================================================


def test_going_out_wins_round_winner_scores_others_points():
    """docs/rules.md 2 (Round end; Points; ``scoring="winner"``): numbers face value, S R D2
    20, W W4 50; the winner scores everyone else's points."""
    p1 = ["R0", "Y9", "GS", "BR", "RD2", "W", "W4"]  # 0+9+20+20+20+50+50 = 169
    game = scen([["R3"], p1, ["B5", "G1"]])
    game.play("R3")
    assert (game.phase, game.is_over, game.terminated, game.truncated) == \
        ("over", True, True, False)
    assert (game.winner, game.round_winner) == (0, 0)
    assert game.round_points == [175, 0, 0]
    assert game.rewards == pytest.approx([1.0, -0.5, -0.5])
    assert game.hand_sizes == [0, 7, 2]
    assert game.legal_moves() == []
    assert game.turns == 1
    with pytest.raises(ValueError, match="over"):
        game.play("draw")


def test_going_out_ends_round_at_once_no_skip_or_reverse():
    """docs/rules.md 2 precise points: going out ends the round at once: skip and reverse
    effects are not applied."""
    game = scen([["RR"], ["G1", "G2"], ["B1"]])
    game.play("RR")
    assert (game.phase, game.winner, game.direction) == ("over", 0, 1)
    assert game.round_points == [4, 0, 0]
    game = scen([["RS"], ["G1", "G2"], ["B1"]])
    game.play("RS")
    assert (game.phase, game.winner, game.round_points) == ("over", 0, [4, 0, 0])


def test_last_card_draw_two_still_makes_next_draw_and_cards_count():
    """docs/rules.md 2 (Round end): a last ``D2`` still makes the next player draw; those cards
    count."""
    game = scen([["RD2"], ["G7"], ["B3"]], draw_pile=["Y9", "W"])
    game.play("RD2")
    assert hand(game, 1) == ["G7", "W", "Y9"]
    assert (game.phase, game.winner) == ("over", 0)
    assert game.round_points == [7 + 9 + 50 + 3, 0, 0]


def test_last_card_w4_draws_four_without_challenge():
    """docs/rules.md 2 (Round end; precise points): a last ``W4`` still makes the next player
    draw 4, with no challenge (the player is innocent); those cards count."""
    game = scen([["W4"], ["R7"], ["B3"]], draw_pile=["R1", "R2", "GS", "W"])
    assert moves(game) == wilds("W4") | {"draw"}
    game.play("W4:B")
    assert (game.phase, game.winner) == ("over", 0)
    assert hand(game, 1) == ["GS", "R1", "R2", "R7", "W"]
    assert game.round_points == [7 + 1 + 2 + 20 + 50 + 3, 0, 0]
    assert game.stats["challenges"] == 0


def test_last_card_w4_goes_out_while_catch_is_open_two_players():
    """docs/rules.md 2 (Round end): the round ends on the last card even when a catch was
    possible; the draws of a last ``W4`` apply to the next player."""
    game = scen([["R3", "G7"], ["W4"]], draw_pile=["B1", "B2", "Y1", "Y2"])
    game.play("R3")
    assert moves(game) == {"catch", "draw"} | wilds("W4")
    game.play("W4:R")  # closes the catch chance and goes out
    assert hand(game, 0) == ["B1", "B2", "G7", "Y1", "Y2"]
    assert (game.winner, game.round_points) == (1, [0, 7 + 1 + 2 + 1 + 2])


def test_penalty_scoring_each_player_scores_own_points():
    """docs/rules.md 2 (``scoring="penalty"``): each player adds their own remaining points;
    non-winners' entries hold their points, the winner 0."""
    p1 = ["R0", "Y9", "GS", "BR", "RD2", "W", "W4"]
    game = scen([["R3"], p1, ["B5", "G1"]], scoring="penalty")
    game.play("R3")
    assert game.round_points == [0, 169, 6]
    assert (game.winner, game.phase) == (0, "over")
    assert game.rewards == pytest.approx([1.0, -0.5, -0.5])


# =====================================================================================
# Matches (target_score)
# =====================================================================================


def test_match_scores_accumulate_and_winner_deals_next_round():
    """docs/rules.md 2 (Round end; Dealer and order): scores accumulate; in a match the
    round's winner deals the next round."""
    game = scen([["R0", "Y9"], ["G3"], ["B5", "W"]], top="G5", current=1,
                target_score=500)
    game.play("G3")
    assert game.round_points == [0, 64, 0]
    assert game.scores == [0, 64, 0]
    assert (game.round, game.dealer, game.round_winner, game.winner) == (2, 1, 1, None)
    assert (game.is_over, game.terminated) == (False, False)
    assert game.rewards == [0.0, 0.0, 0.0]
    check_first_card_effect(game)  # a fresh deal: 7 each, first card applied from seat 2


def test_match_ends_when_winner_reaches_target():
    """docs/rules.md 2 (``scoring="winner"``): first to ``target_score`` wins the match."""
    game = scen([["R3"], ["W", "W", "W4"]], target_score=150)
    game.play("R3")
    assert game.scores == [150, 0] and game.round_points == [150, 0]
    assert (game.winner, game.round_winner, game.round) == (0, 0, 1)
    assert (game.is_over, game.terminated, game.phase) == (True, True, "over")
    assert game.rewards == [1.0, -1.0]


def test_match_not_over_one_point_below_target():
    """docs/rules.md 2 (``scoring="winner"``): below the target the match goes on."""
    game = scen([["R3"], ["W", "W", "W4"]], target_score=151)
    game.play("R3")
    assert (game.winner, game.round, game.dealer, game.scores) == (None, 2, 0, [150, 0])
    check_first_card_effect(game)


def test_match_penalty_scoring_lowest_total_wins_when_one_reaches_target():
    """docs/rules.md 2 (``scoring="penalty"``): each adds their own points; when one reaches
    the target the lowest total wins."""
    game = scen([["R3"], ["W", "W", "RS"], ["BS", "Y9", "R1"]], scoring="penalty",
                target_score=100)
    game.play("R3")
    assert game.scores == [0, 120, 30]
    assert (game.winner, game.is_over) == (0, True)
    assert game.rewards == pytest.approx([1.0, -0.5, -0.5])
    game = scen([["R3"], ["W", "Y9"], ["BS", "Y9", "R1"]], scoring="penalty",
                target_score=100)
    game.play("R3")
    assert game.scores == [0, 59, 30]
    assert (game.winner, game.round, game.dealer) == (None, 2, 0)


def test_match_reward_score_every_round():
    """docs/rules.md 7: ``reward="score"`` gives the round points at the end of each round,
    also between the rounds of a match."""
    game = scen([["R3"], ["R1", "R9"], ["GS", "B7", "Y3"]], reward="score",
                target_score=500)
    game.play("R3")
    assert (game.round, game.dealer, game.winner, game.scores) == (2, 0, None, [40, 0, 0])
    assert game.rewards == [40.0, -10.0, -30.0]


def _play_round_out(game: Game, limit: int = 3000) -> None:
    """Deterministic policy until the round (or match) changes: catch if possible, call
    UNO when offered, else the first card play, else draw/pass."""
    start = game.round
    for _ in range(limit):
        if game.is_over or game.round != start:
            return
        legal = game.legal_moves()
        if "catch" in legal or "uno" in legal:
            game.play("catch" if "catch" in legal else "uno")
            continue
        plays = [m for m in legal if m not in ("draw", "pass", "uno", "accept")]
        game.play(plays[0] if plays else ("pass" if "pass" in legal else legal[0]))
    raise AssertionError("round did not end")


def test_match_played_to_target_scores_dealer_and_rewards():
    """docs/rules.md 2 (matches) and 7: a whole match: each round adds its points, the round
    winner deals the next, the match ends at the target and only then rewards come."""
    game = Game(num_players=3, seed=0, target_score=200)
    rounds = 0
    while not game.is_over:
        scores = game.scores
        _play_round_out(game)
        rounds += 1
        assert not game.truncated
        w = game.round_winner
        assert game.scores == [s + p for s, p in zip(scores, game.round_points)]
        assert [p for q, p in enumerate(game.round_points) if q != w] == [0, 0]
        if not game.is_over:
            assert game.rewards == [0.0, 0.0, 0.0]
            assert (game.round, game.dealer) == (rounds + 1, w)
            assert game.scores[w] < 200
            check_first_card_effect(game)
    assert game.winner == game.round_winner
    assert game.scores[game.winner] >= 200
    assert rounds >= 2
    expected = [-0.5, -0.5, -0.5]
    expected[game.winner] = 1.0
    assert game.rewards == pytest.approx(expected)


# =====================================================================================
# max_turns
# =====================================================================================


def test_max_turns_truncates_round():
    """docs/rules.md 2 (Turn limit) and 7: ``max_turns`` ends a round by truncation; no
    winner, rewards 0."""
    game = scen([["R3", "G1"], ["R4", "G2"], ["R6", "G4"]], max_turns=2, uno_call=False)
    game.play("R3")
    assert (game.turns, game.is_over) == (1, False)
    game.play("R4")
    assert (game.turns, game.is_over, game.truncated, game.terminated) == (2, True, True, False)
    assert (game.phase, game.winner, game.round_winner) == ("over", None, None)
    assert game.rewards == [0.0, 0.0, 0.0]
    assert game.legal_moves() == []


@pytest.mark.parametrize("hands, rewards", [
    # the fewest cards at the cut: one leader takes the win reward
    ([["R3", "G1"], ["R4", "G2", "B5"], ["R6", "G4"]], [1.0, -0.5, -0.5]),
    # two leaders share it: (3/2 - 1)/(3 - 1) each
    ([["R3", "G1"], ["R4", "G2"], ["R6", "G4", "B1"]], [0.25, 0.25, -0.5])])
def test_settle_cut_pays_the_fewest_cards(hands, rewards):
    """docs/rules.md 7: ``settle_cut=True`` settles a round cut by ``max_turns`` by the
    cards each seat holds, zero-sum."""
    game = scen(hands, max_turns=2, uno_call=False, settle_cut=True)
    game.play("R3")
    game.play("R4")
    assert game.truncated and game.winner is None
    assert game.rewards == rewards


def test_settle_cut_with_score_rewards_settles_the_points_in_hand():
    """docs/rules.md 7: with ``reward="score"`` each pair of seats settles the difference
    of their points: G1 (1 point), G2 B5 (7) and R6 G4 (10) give 18 - 3 x points."""
    game = scen([["R3", "G1"], ["R4", "G2", "B5"], ["R6", "G4"]], max_turns=2,
                uno_call=False, reward="score", settle_cut=True)
    game.play("R3")
    game.play("R4")
    assert game.rewards == [15.0, -3.0, -12.0]


def test_settle_cut_with_teams_pays_the_team_holding_fewer_cards():
    """docs/rules.md 7: teams are settled by the cards of both partners (seats 0+2 hold
    1 + 3, seats 1+3 hold 2 + 2: a tie, then 1 + 3 against 2 + 3)."""
    hands = [["R3", "G1"], ["R4", "G2", "B5"], ["R6", "G4", "B1", "Y2"], ["R7", "G7", "B7"]]
    game = scen(hands, max_turns=2, uno_call=False, teams=True, settle_cut=True)
    game.play("R3")
    game.play("R4")
    assert game.rewards == [0.0, 0.0, 0.0, 0.0]
    game = scen(hands, max_turns=3, uno_call=False, teams=True, settle_cut=True)
    for card in ("R3", "R4", "R6"):
        game.play(card)
    assert game.rewards == [1.0, -1.0, 1.0, -1.0]


def test_max_turns_counts_only_ended_turns():
    """docs/rules.md 2 precise points: ``max_turns`` counts turns that have ended (a skipped
    player has no turn; a decision after a draw is still the same turn)."""
    game = scen([["RS", "G1", "G5"], ["R4", "G2", "G6"], ["R6", "G4", "G8"]], max_turns=2)
    game.play("RS")
    assert (game.turns, game.current_player) == (1, 2)
    game.play("R6")
    assert game.truncated and game.turns == 2
    game = scen([["R3", "G1", "G5"], ["R4", "G2", "G6"], ["R6", "G4", "G8"]],
                draw_pile=["R9"], max_turns=1)
    game.play("draw")
    assert (game.phase, game.turns, game.is_over) == ("drawn", 0, False)
    game.play("pass")
    assert game.truncated and game.turns == 1
    # the victim of a W4 (accept) has no turn
    game = scen([["W4", "G1", "G5"], ["R4", "G2", "G6"], ["R6", "G4", "G8"]],
                max_turns=2)
    game.play("W4:R")
    game.play("accept")
    assert (game.turns, game.current_player, game.is_over) == (1, 2, False)
    game.play("R6")
    assert game.truncated


def test_max_turns_going_out_on_last_turn_is_a_win():
    """docs/rules.md 2 (Round end): going out on the turn that reaches ``max_turns`` still
    wins the round."""
    game = scen([["R3"], ["G2", "G6"], ["G4", "G8"]], max_turns=1)
    game.play("R3")
    assert (game.terminated, game.truncated, game.winner) == (True, False, 0)


# =====================================================================================
# Rewards (section 7)
# =====================================================================================


def test_rewards_win_is_zero_sum_four_players():
    """docs/rules.md 7: the winner gets +1, every other player -1/(N-1)."""
    game = scen([["Y1", "Y2"], ["R3"], ["G1"], ["B1"]], current=1)
    assert game.rewards == [0.0] * 4
    game.play("R3")
    assert game.rewards == pytest.approx([-1 / 3, 1.0, -1 / 3, -1 / 3])
    assert sum(game.rewards) == pytest.approx(0.0, abs=1e-6)  # float32 rewards


def test_rewards_zero_during_play():
    """docs/rules.md 7: rewards come only with the end of the episode."""
    game = scen([["R3", "G1", "B1"], ["R4", "G2"], ["R6", "G4"]])
    game.play("R3")
    assert game.rewards == [0.0, 0.0, 0.0]


def test_rewards_score_gives_round_points():
    """docs/rules.md 7: ``reward="score"``: the winner +points, others their own points
    negative."""
    game = scen([["R3"], ["R1", "R9"], ["GS", "B7", "Y3"]], reward="score")
    game.play("R3")
    assert game.rewards == [40.0, -10.0, -30.0]
    assert game.round_points == [40, 0, 0]


# =====================================================================================
# Errors
# =====================================================================================


def test_illegal_move_raises_naming_legal_moves_state_unchanged():
    """docs/rules.md 1 (moves): a move that is not legal raises ValueError naming the legal
    moves; the state is unchanged."""
    game = scen([["R3", "G7", "B1"], ["G1", "G2"], ["B1", "B2"]], draw_pile=["Y1"])
    before = snapshot(game)
    for bad in ("G7", "W:R", "pass", "challenge", "catch", "uno", "color:R"):
        with pytest.raises(ValueError, match="legal moves: .*R3") as err:
            game.play(bad)
        assert "draw" in str(err.value)
        assert snapshot(game) == before
    for malformed in ("R3:G", "W4", "X9", "R10", "", "color:Q", 3.5):
        with pytest.raises(ValueError):
            game.play(malformed)
        assert snapshot(game) == before
    with pytest.raises(ValueError, match="legal moves"):
        game.step(10_000)
    assert snapshot(game) == before
    game.play("R3")
    assert game.current_player == 1


def test_scenario_naming_too_many_copies_is_an_error():
    """docs/rules.md 2 (Deck): naming more copies of a card than the deck has raises."""
    with pytest.raises(ValueError, match="only 1 'R0'"):
        scen([["R0", "R0"], ["G1"]])
    with pytest.raises(ValueError, match="W"):
        scen([["W", "W", "W"], ["W"]], top="W", color="R")
    with pytest.raises(ValueError, match="RS"):
        scen([["RS"], ["G1"]], draw_pile=["RS", "RS"])
    with pytest.raises(ValueError, match="R5"):
        scen([["R5"], ["G1"]], top="R5", discard=["R5"])
    with pytest.raises(ValueError):
        scen([["Q5"], ["G1"]])
    with pytest.raises(ValueError, match="colour"):
        scen([["R1"], ["G1"]], top="W")


def test_scenario_bad_colour_seat_or_direction_are_errors():
    """docs/rules.md 1 (scenario set-up): contradictory or impossible positions raise."""
    with pytest.raises(ValueError, match="contradicts"):
        scen([["R1"], ["G1"]], top="R5", color="G")
    with pytest.raises(ValueError, match="current"):
        scen([["R1"], ["G1"]], current=2)
    with pytest.raises(ValueError, match="direction"):
        scen([["R1"], ["G1"]], direction=0)


def test_unknown_preset_rule_flag_players_or_seed_are_errors():
    """docs/rules.md 2 (preset ``classic``; 2-10 players) and rule flags: clear ValueErrors."""
    with pytest.raises(ValueError, match="preset"):
        Game(preset="nope")
    with pytest.raises(ValueError, match="preset"):
        Game.from_scenario(preset="nope", hands=[["R1"], ["G1"]])
    with pytest.raises(ValueError, match="no_such_rule"):
        Game(no_such_rule=True)
    with pytest.raises(ValueError, match="scoring"):
        Game(scoring="most")
    for n in (1, 11, 0, 2.5, "4", True):
        with pytest.raises(ValueError, match="num_players"):
            Game(num_players=n)
    with pytest.raises(ValueError, match="num_players"):
        scen([["R1"]])
    for seed in (-1, 2**63, 1.5, "1", True):
        with pytest.raises(ValueError, match="seed"):
            Game(seed=seed)
    game = Game(seed=1)
    with pytest.raises(ValueError, match="seed"):
        game.reset(-5)
