"""``resample_from_infostate`` stays inside the player's information set
(``uno_env.integrations.openspiel.resample``): a resample is the real moves replayed on
another deal, and its information-state string, recomputed from its own history, is the
original's, over thousands of resamples on a small and the full deck, with Wild Draw
Four challenges and without; the hand a challenge showed the player stays with its owner
(less the cards played since)."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import NEEDS

pyspiel = pytest.importorskip("pyspiel", reason=NEEDS["openspiel"])

from uno_env.integrations.openspiel import game as uno_spiel  # noqa: E402
from uno_env.integrations.openspiel import tree as ot  # noqa: E402

SMALL = dict(colors=2, numbers=3, copies=1, hand_size=3, chance="sampled")


def recomputed(sample, player):
    """The player's information-state string of ``sample`` rebuilt from its own history
    (its deal, moves and reshuffled piles)."""
    return sample.replayed().information_state_string(player)


def sweep(params, games, moves, per, challenge, seed=0):
    """Resample ``per`` times at every fifth decision (and after every challenge) of
    ``games`` random games; returns (resamples, challenges seen)."""
    game = pyspiel.load_game("python_uno", params)
    rng = np.random.default_rng(seed)
    resamples = challenges = 0
    for _ in range(games):
        state = game.new_initial_state()
        for m in range(moves):
            legal = state.legal_actions()
            layout = state.uno.layout
            if layout.CHALLENGE in legal:  # always challenge, or never
                legal = [a for a in legal if a != layout.CHALLENGE] or legal
                if challenge:
                    legal = [layout.CHALLENGE]
            action = int(rng.choice(legal))
            challenges += action == layout.CHALLENGE
            state.apply_action(action)
            if state.is_terminal():
                break
            if m % 5 and action != layout.CHALLENGE:
                continue
            player = state.current_player()
            mine = state.information_state_string(player)
            for _ in range(per):
                sample = state.resample_from_infostate(player, rng.uniform)
                resamples += 1
                assert sample.history() == state.history()
                assert recomputed(sample, player) == mine
                assert sample.information_state_string(player) == mine
                assert sample.observation_tensor(player) == \
                    state.observation_tensor(player)
                assert sample.legal_actions() == state.legal_actions()
                assert sample.current_player() == player
    assert sum(game.resample_counts.values()) == resamples
    assert game.resample_counts["real"] == 0
    return resamples, challenges


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("challenge", [False, True])
def test_small_deck_resamples_recompute_the_same_information_state(players, challenge):
    resamples, challenges = sweep({**SMALL, "players": players}, games=4, moves=40,
                                  per=6, challenge=challenge)
    assert resamples >= 120 and (challenges > 0) == challenge


@pytest.mark.parametrize("challenge", [False, True])
def test_full_deck_resamples_recompute_the_same_information_state(challenge):
    resamples, challenges = sweep({"players": 2}, games=3, moves=50, per=12,
                                  challenge=challenge, seed=3)
    assert resamples >= 120 and (challenges > 0) == challenge


def test_a_shown_hand_stays_with_its_owner_in_every_resample():
    """After challenging a Wild Draw Four the challenger saw its player's hand: every
    resample gives that player those cards (with the card the verdict made it draw)."""
    game = pyspiel.load_game("python_uno", {"players": 2})
    rng = np.random.default_rng(7)
    for _ in range(40):
        state = game.new_initial_state()
        while not state.is_terminal():
            layout = state.uno.layout
            if layout.CHALLENGE in state.legal_actions():
                owner, shown = state.uno.challenge_hand
                state.apply_action(layout.CHALLENGE)
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        else:
            continue
        if state.is_terminal():
            continue
        challenger = 1 - owner
        kept = 0
        for _ in range(30):
            sample = state.resample_from_infostate(challenger, rng.uniform)
            # the owner's hand holds the shown cards (a guilty owner drew 4 on top)
            assert np.all(sample.uno.hand_counts(owner) >= np.minimum(
                shown, state.uno.hand_counts(owner)))
            kept += np.array_equal(sample.uno.hand_counts(owner),
                                   state.uno.hand_counts(owner))
        assert kept < 30 or state.uno.hand_counts(owner).sum() == shown.sum()
        return
    pytest.fail("no challenge in 40 games")


#: small decks whose whole trees the test enumerates (``benchmarks/resample_sweep.py``
#: sweeps every small-deck preset): R0 R1 Y0 Y1 W, two cards each, three turns (2,635
#: nodes, 870 information sets; ``Game.determinize`` put 11 of 424 resamples outside
#: their set); R0 R1 Y0 Y1 W4 with bluffing, one card each, always challenged
#: (6,754 nodes, 1,276 sets)
W5 = dict(players=2, colors=2, numbers=2, copies=1, action_cards="", wilds=1,
          wild_draw_fours=0, hand_size=2, uno_call=False, bluff=False, max_turns=3)
CHALLENGE = dict(W5, wilds=0, wild_draw_fours=1, hand_size=1, bluff=True)
TREES = {"w5": (W5, 2635, 870), "challenge": (CHALLENGE, 6754, 1276)}


@pytest.fixture(scope="module")
def tree_sets():
    """The trees' information sets, enumerated once for the module."""
    cache = {}

    def get(name):
        if name not in cache:
            params, nodes, infosets = TREES[name]
            sets, count = ot.infoset_positions(ot.load(params))
            assert (count, len(sets)) == (nodes, infosets)
            cache[name] = sets
        return cache[name]
    return get


@pytest.mark.parametrize("tree", ["w5", "challenge"])
@pytest.mark.parametrize("chance", ["explicit", "sampled"])
def test_every_resample_is_a_position_of_its_information_set(tree_sets, tree, chance):
    """The strongest check: the whole tree's information sets enumerated, each with the
    positions of its histories (hands, piles, seat to move); every resample along random
    games (challenging every Wild Draw Four) is one of its set's positions. The
    recomputed string alone misses a resample that drops an inference, e.g. that a card
    drawn without a play-or-keep choice was unplayable (issue #65)."""
    params = TREES[tree][0]
    sets = tree_sets(tree)
    game = pyspiel.load_game("python_uno", {**params, "chance": chance})
    checked = ot.check_resamples(game, sets, 12, 3, np.random.default_rng(1))
    resamples, challenges = checked["resamples"], checked["challenges"]
    assert checked["outside"] == 0
    counts = game.resample_counts
    assert resamples >= 100 and sum(counts.values()) - counts["real"] == resamples
    assert counts["real"] == 0 and counts["search" if chance == "explicit" else
                                          "draw"] > 0
    assert (challenges > 0) == (tree == "challenge")


@pytest.mark.parametrize("preset,players", [("street", 4), ("seven_o", 3), ("flip", 3)])
def test_house_rules_and_flip_resamples_never_leave_the_information_set(preset, players):
    """Where independent draws of the hidden cards find no consistent history (house
    rules that make draws and answers reveal more, UNO Flip's sides facing the table),
    the random walk from the real history does: no resample falls back to a state of
    another information set, and each rebuilds the player's string, seat to move and
    legal moves from its own history."""
    game = pyspiel.load_game("python_uno", {"preset": preset, "players": players,
                                            "max_turns": 40})
    rng = np.random.default_rng(players)
    state, resamples = game.new_initial_state(), 0
    for m in range(36):
        if state.is_terminal():
            break
        if m % 6 == 5:
            p = state.current_player()
            mine = state.information_state_string(p)
            sample = state.resample_from_infostate(p, rng.uniform)
            resamples += 1
            assert recomputed(sample, p) == mine
            assert sample.information_state_string(p) == mine
            assert sample.current_player() == p
            assert sample.legal_actions() == state.legal_actions()
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert resamples >= 5 and sum(game.resample_counts.values()) == resamples
    if preset == "flip":
        assert game.resample_counts["chain"] == resamples
