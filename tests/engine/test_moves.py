"""The legal moves gathered from candidate rows (engine #44): the Spec's rows hold
exactly the types that can match, the random agent's shortcut picks what its mask
picks, and a mask is walked a word at a time without missing a mark."""
from __future__ import annotations

import numba
import numpy as np
import pytest

import uno_env
from uno_env import simulate
from uno_env.engine import codes as C
from uno_env.engine.dispatch import kth_marked, next_marked
from uno_env.rules.config import make_config

from engine.test_batch import _replay_random_game


def _row(table, key):
    row = table[key]
    return set(row[row >= 0].tolist())


@pytest.mark.parametrize("preset", ["classic", "street", "flip", "onepiece"])
def test_candidate_rows_hold_exactly_the_types_that_can_match(preset):
    spec = make_config(preset, 4).spec
    light = spec.type_face[:, 0]
    color, rank = spec.face_color[light], spec.face_rank[light]
    wild = rank >= C.FIRST_WILD_RANK
    assert _row(spec.wild_types[None], 0) == set(np.flatnonzero(wild).tolist())
    for c in range(4):
        for r in range(C.NUM_RANKS):
            gathered = _row(spec.match_types, (c, r)) | _row(spec.wild_types[None], 0)
            matching = wild | (color == c) | (rank == r)
            assert gathered == set(np.flatnonzero(matching).tolist()), (c, r)
    slot = spec.type_play_slot
    for row in (*spec.match_types.reshape(-1, spec.match_types.shape[-1]),
                spec.wild_types):
        kept = row[row >= 0]
        # in action-id order (the wilds by type), then -1 to the end
        assert (np.diff(slot[kept] if row is not spec.wild_types else kept) > 0).all()
        assert (row[len(kept):] == -1).all()
    # the same rows as bit sets (bit t: type t), for decks of at most 64 types
    for c in range(C.NO_COLOR + 1):
        for r in range(C.NUM_RANKS):
            bits = int(spec.match_bits[c, r])
            want = _row(spec.match_types, (c, r)) if len(light) <= 64 else set()
            assert {t for t in range(64) if bits >> t & 1} == want, (c, r)


def test_held_types_are_the_nonzero_counts():
    """``bits.held_types`` and ``held_range`` read a row eight counts at a time, the
    last word overlapping: every length from 1 to 130 (UNO Flip's rows are 112 long),
    counts up to the int8 maximum, rows of a wider array."""
    import numba
    from uno_env.engine.bits import held_range, held_types
    held = numba.njit(lambda hand: held_types(hand))
    held_from = numba.njit(lambda row, start: held_range(row, start))
    rng = np.random.default_rng(3)
    for k in range(1, 131):
        for _ in range(10):
            hand = np.where(rng.random(k) < 0.3, rng.integers(1, 128, k), 0).astype(np.int8)
            # a row of a wider array (the engine's hands[g, seat]), not its own buffer
            rows = np.ones((3, k), np.int8)
            rows[1] = hand
            for row in (hand, rows[1]):
                for start in range(0, k, 64):
                    want = sum(1 << j for j in range(min(k - start, 64))
                               if row[start + j] > 0)
                    assert int(held_from(row, start)) == want, (k, start, row)
                if k <= 64:
                    assert int(held(row)) == sum(1 << t for t in range(k) if row[t] > 0)


def test_the_deck_counts_are_the_decks():
    spec = make_config("classic", 4).spec
    assert spec.deck_tallies[C.T_SLOT:C.T_SLOT + 5].tolist() == [25, 25, 25, 25, 8]
    assert spec.deck_tallies[C.T_RANK + 0] == 4 and spec.deck_tallies[C.T_RANK + 5] == 8
    assert spec.deck_tallies.sum() == 2 * 108


@pytest.mark.parametrize("num_players, rules", [
    (2, {}), (4, {"bluff": False}), (3, {"uno_call": False}),
    (4, {"bluff": False, "uno_call": False})])
def test_the_random_agents_shortcut_picks_what_its_mask_picks(num_players, rules):
    """``simulate``'s random agent takes a play decision without a mask
    (``plays.official_random_play``); ``Game``'s random move picks from the legal
    mask: the games must be the same, decision for decision."""
    result = simulate(num_players=num_players, num_games=3, seed=11, max_turns=1500,
                      **rules)
    for i in range(3):
        game, steps = _replay_random_game(11, i, num_players, max_turns=1500, **rules)
        assert result.steps[i] == steps
        assert result.turns[i] == game.turns


@numba.njit(cache=True)
def _first_marked(mask, a, end):
    return next_marked(mask, a, end)


@numba.njit(cache=True)
def _kth(mask, k):
    return kth_marked(mask.view(np.uint64), k)


def test_a_mask_walked_a_word_at_a_time_finds_every_mark():
    rng = np.random.default_rng(0)
    for _ in range(2000):
        n = int(rng.choice([70, 72, 80]))
        mask = (rng.random(n) < rng.random() * 0.3).astype(np.uint8)
        a = int(rng.integers(0, n))
        end = int(rng.integers(a, n + 1))
        assert _first_marked(mask, a, end) == next((i for i in range(a, end) if mask[i]), end)
        if n % 8 == 0 and mask.any():
            marked = np.flatnonzero(mask)
            k = int(rng.integers(0, len(marked)))
            assert _kth(mask, k) == marked[k]
