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
    assert game.resample_fallbacks == 0  # every one replayed, none determinized
    return resamples, challenges


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("challenge", [False, True])
def test_small_deck_resamples_recompute_the_same_information_state(players, challenge):
    resamples, challenges = sweep({**SMALL, "players": players}, games=4, moves=40,
                                  per=12, challenge=challenge)
    assert resamples >= 300 and (challenges > 0) == challenge


@pytest.mark.parametrize("challenge", [False, True])
def test_full_deck_resamples_recompute_the_same_information_state(challenge):
    resamples, challenges = sweep({"players": 2}, games=3, moves=50, per=12,
                                  challenge=challenge, seed=3)
    assert resamples >= 150 and (challenges > 0) == challenge


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
