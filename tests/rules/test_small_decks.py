"""Small decks (docs/rules.md 8): six flags shrink the classic deck, the classic and
house kernels play it unchanged, and every rule still applies (scenarios below)."""
from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env.rules import make_rules
from uno_env.rules.config import make_config

#: the 7-card deck of docs/rules.md 8: R0 R1 RS Y0 Y1 YS W, two cards each
TINY = dict(colors=2, numbers=2, copies=1, action_cards="S", wilds=1, wild_draw_fours=0,
            hand_size=2)


def cards(config) -> dict[str, int]:
    deck = config.deck
    return {deck.type_name(t): int(deck.type_count[t]) for t in range(deck.num_types)}


def test_the_flags_build_the_documented_deck_and_default_to_the_108_cards():
    assert cards(make_config("classic", 2, **TINY)) == {
        "R0": 1, "R1": 1, "RS": 1, "Y0": 1, "Y1": 1, "YS": 1, "W": 1}
    full = make_config("classic", 2)
    assert full.deck.name == "classic108" and full.deck.num_cards == 108
    assert full.layout.size == 70
    deck = make_config("classic", 3, colors=3, numbers=3, copies=2, action_cards="R/D2",
                       wilds=2, wild_draw_fours=1).deck
    # per colour one 0, two 1 and 2, two R and D2: 9 cards; then 2 W and 1 W4
    assert deck.num_cards == 3 * 9 + 3
    assert cards(make_config("classic", 2, **TINY)).keys() <= {
        deck.type_name(t) for t in range(deck.num_types)} | {"RS", "YS", "W"}
    # a small deck with house rules compiles the house kernels, still table-driven
    assert make_config("classic", 2, stack="any", **TINY).variant == "house"


@pytest.mark.parametrize("flags,message", [
    ({"colors": 5}, "'colors' must be an integer from 1 to 4"),
    ({"action_cards": "S/X"}, "each of S, R, D2 at most once"),
    ({"numbers": 0, "action_cards": ""}, "needs coloured cards"),
])
def test_bad_small_deck_flags_name_the_valid_values(flags, message):
    with pytest.raises(ValueError, match=message):
        make_rules("classic", **flags)


def test_small_deck_flags_are_for_the_classic_deck_and_the_deal_must_fit():
    with pytest.raises(ValueError, match="colors.*not supported with the 'flip' deck"):
        make_rules("flip", colors=2)
    with pytest.raises(ValueError, match="do not leave a draw pile"):
        make_config("classic", 2, **{**TINY, "hand_size": 4})  # 8 cards of 7
    make_config("classic", 3, **TINY)  # 6 of 7: the deck less a fifth (one card)
    # W4 cannot start the pile: 6 dealt of 8 cards, but only 6 can start
    with pytest.raises(ValueError, match="no card that can start"):
        make_config("classic", 3, colors=1, numbers=3, copies=2, action_cards="",
                    wilds=0, wild_draw_fours=3, hand_size=2)


def test_a_wild_names_a_colour_the_deck_lacks_and_then_only_a_wild_follows():
    g = uno_env.Game.from_scenario("classic", hands=[["W", "R1"], ["R0", "YS"]],
                                   top="Y1", draw_pile=["Y0"], **TINY)
    assert sorted(g.legal_moves()) == ["R1", "W:B", "W:G", "W:R", "W:Y", "draw", "uno"]
    g.play("uno")
    g.play("W:G")
    assert g.color == "G" and g.current_player == 1
    assert g.legal_moves() == ["draw"]  # R0 and YS match neither green nor a wild
    g.play("draw")                       # Y0 drawn, no match: the turn ends
    assert g.hand(1) == ["R0", "Y0", "YS"] and g.current_player == 0


def test_an_empty_draw_pile_is_reshuffled_from_the_discard_pile():
    # every card placed: the draw pile is empty, the discard pile holds RS under R0
    g = uno_env.Game.from_scenario("classic", hands=[["R1", "W", "Y0"], ["Y1", "YS"]],
                                   top="R0", discard=["RS"], draw_pile=[], current=1,
                                   **TINY)
    assert g.draw_pile_size == 0 and g.legal_moves() == ["draw"]
    g.play("draw")  # RS is reshuffled in (the only card) and drawn: it matches red
    assert g.hand(1) == ["RS", "Y1", "YS"] and g.discard == ["R0"]
    assert sorted(g.legal_moves()) == ["RS", "pass"] and g.draw_pile_size == 0
    g.play("pass")
    assert g.current_player == 0


def test_the_engine_plays_small_decks_in_simulate_deterministically():
    a = uno_env.simulate("classic", 2, agents=("heuristic", "random"), num_games=300,
                         seed=3, threads=1, max_turns=60, **TINY)
    b = uno_env.simulate("classic", 2, agents=("heuristic", "random"), num_games=300,
                         seed=3, threads=1, max_turns=60, **TINY)
    np.testing.assert_array_equal(a.winner, b.winner)
    wins = a.wins
    assert wins.sum() + a.truncated == 300 and wins[0] > wins[1]  # heuristic beats random
    c = uno_env.simulate("classic", 3, agents="greedy", num_games=100, seed=1, threads=1,
                         colors=3, numbers=4, copies=2, action_cards="S/R/D2", wilds=2,
                         wild_draw_fours=2, hand_size=3, stack="any", max_turns=200)
    assert c.wins.sum() + c.truncated == 100
