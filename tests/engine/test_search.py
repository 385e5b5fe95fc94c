"""The search API: ``Game.clone`` and ``Game.determinize`` (``engine/determinize.py``).

Over random positions of every preset, a determinization for a seat keeps that seat's
observation, every hand size and the deck, changes the hidden cards, and depends on
what the seat observes only (two positions that look the same to it give the same
sample for the same seed)."""
from __future__ import annotations

import numpy as np
import pytest

from uno_env import Game
from uno_env.engine import codes as C
from uno_env.rules import PRESETS


def _random_position(preset, num_players, seed, moves):
    """A position ``moves`` random legal moves into game ``seed`` (None if it ended)."""
    g = Game(preset, num_players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if g.is_over:
            return None
        legal = g.legal_actions()
        g.step(int(legal[rng.integers(len(legal))]))
    return None if g.is_over else g


def _positions(preset):
    players = (4,) if PRESETS[preset].teams else (2, 4)
    out = []
    for n in players:
        for seed, moves in ((1, 3), (2, 25), (3, 60), (4, 120)):
            g = _random_position(preset, n, seed, moves)
            if g is not None:
                out.append(g)
    assert len(out) >= 3
    return out


def _deck_counts(g):
    st = g._state
    return (st.hands[0].sum(axis=0).astype(np.int64)
            + np.bincount(st.draw_pile[0, :g.draw_pile_size],
                          minlength=st.hands.shape[2])
            + st.discard_counts[0])


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_determinize_keeps_what_the_seat_observes(preset):
    varied = 0
    for g in _positions(preset):
        before = {f: a.copy() for f, a in g._state._asdict().items()}
        for seat in range(g.num_players):
            samples = [g.determinize(seat, seed) for seed in range(4)]
            for d in samples:
                assert np.array_equal(d.observe(seat), g.observe(seat))
                assert d.hand_sizes == g.hand_sizes
                assert d.hand(seat) == g.hand(seat)
                assert d.discard == g.discard
                assert d.draw_pile_size == g.draw_pile_size
                assert np.array_equal(_deck_counts(d), g.config.deck.type_count)
                if g.config.deck.double_sided:
                    assert sorted(d._state.dark_face[0]) == sorted(g._state.dark_face[0])
                assert d.current_player == g.current_player and d.phase == g.phase
                assert np.array_equal(d.action_mask(), g.action_mask()) \
                    or seat != g.current_player
            hidden = {(tuple(tuple(d.hand(q)) for q in range(g.num_players) if q != seat),
                       tuple(d.draw_pile)) for d in samples}
            varied += len(hidden) > 1
        # the original game is untouched
        for f, a in g._state._asdict().items():
            assert np.array_equal(a, before[f]), f
    assert varied > 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_determinize_depends_on_the_observation_only(preset):
    """A sample of the same seed from another position that looks the same to the seat
    (itself a determinization) is the same sample: the true hidden cards are not read."""
    for g in _positions(preset)[:3]:
        seat = g.current_player
        other = g.determinize(seat, 99)
        a, b = g.determinize(seat, 5), other.determinize(seat, 5)
        for f in a._state._fields:   # every field, the card counts too
            assert np.array_equal(getattr(a._state, f), getattr(b._state, f)), f


@pytest.mark.parametrize("preset", ["classic", "flip", "chaos", "onepiece"])
def test_a_determinization_plays_on_to_the_end(preset):
    g = _random_position(preset, 3, 7, 30)
    d = g.determinize(g.current_player, 1)
    rng = np.random.default_rng(0)
    while not d.is_over:
        legal = d.legal_actions()
        d.step(int(legal[rng.integers(len(legal))]))
        assert np.array_equal(_deck_counts(d), d.config.deck.type_count)


def test_clone_is_independent():
    g = Game("classic", 3, seed=4)
    c = g.clone()
    assert c.hand(0) == g.hand(0) and c.draw_pile == g.draw_pile
    c.step(int(c.legal_actions()[0]))
    assert g.history == [] and len(c.history) == 1
    assert g.hand_sizes != c.hand_sizes or g.current_player != c.current_player \
        or g.discard != c.discard
    g.step(int(g.legal_actions()[0]))
    assert g.history == c.history and np.array_equal(g._state.hands, c._state.hands)


def test_w4_verdict_follows_the_redrawn_hand():
    g = Game.from_scenario(hands=[["W4", "R1", "B2"], ["G5", "G6"]], top="R8",
                           draw_pile=["Y1"] * 2)
    g.play("W4:G")
    assert g.phase == "challenge" and g._state.info[0, C.I_W4_GUILTY] == 1
    verdicts = {int(g.determinize(1, s)._state.info[0, C.I_W4_GUILTY]) for s in range(40)}
    assert verdicts == {0, 1}  # the hand of the W4 player is redrawn, and its verdict


def test_a_hand_a_challenge_showed_the_seat_stays_with_its_owner():
    """docs/rules.md 2.5: challenging a Wild Draw Four shows the challenger the hand; a
    determinization for the challenger keeps those cards (less any played since) in
    their owner's hand and redraws only the rest (a guilty owner's 4 drawn cards)."""
    g = Game.from_scenario(hands=[["W4", "R1", "B2", "B3"], ["G5", "G6", "Y7"]],
                           top="R8", draw_pile=["Y1", "Y2", "G1", "G2", "Y3", "G3"])
    g.play("W4:G")
    g.play("challenge")  # guilty (R1): seat 0 takes 4 cards, seat 1 saw R1 B2 B3
    assert g.current_player == 1 and g._state.info[0, C.I_SHOWN_TO] == 1
    shown = g._state.shown[0].copy()
    assert shown.sum() == 3
    owners = set()
    for s in range(40):
        d = g.determinize(1, s)
        assert np.all(d._state.hands[0, 0] >= shown)
        owners.add(tuple(d._state.hands[0, 0]))
        np.testing.assert_array_equal(d.observe(1), g.observe(1))
    assert len(owners) > 1  # the 4 cards it drew are redrawn
    # seat 0 saw nothing: its own determinization redraws seat 1's whole hand
    assert len({tuple(g.determinize(0, s)._state.hands[0, 1]) for s in range(20)}) > 1


@pytest.mark.parametrize("preset", ["classic", "flip"])
def test_a_determinization_has_a_random_stream_of_its_own(preset):
    """The copy's stream comes from the sample (engine/determinize.py): the same seed
    gives the same stream, another seed another, and neither is the game's, so the
    samples' later reshuffles differ; the game itself is untouched."""
    g = _positions(preset)[1]
    seat, before = g.current_player, int(g._state.rng[0])
    a, b, c = (g.determinize(seat, seed=s) for s in (5, 5, 6))
    assert int(g._state.rng[0]) == before
    assert a._state.rng[0] == b._state.rng[0]
    assert len({before, int(a._state.rng[0]), int(c._state.rng[0])}) == 3
    for copy in (a, c):
        np.testing.assert_array_equal(copy.observe(seat), g.observe(seat))


def test_determinize_rejects_a_bad_seat():
    g = Game("classic", 2, seed=0)
    with pytest.raises(ValueError, match="seat must be"):
        g.determinize(2)
    with pytest.raises(ValueError, match="seat must be"):
        g.determinize(True)


@pytest.mark.parametrize("preset", ["classic", "flip"])
def test_the_searchs_state_copy_copies_every_field(preset):
    """``search.copy_into`` resets a rollout's working state to the root before each
    rollout: every field of ``State`` must come across (a field it forgot, the card
    counts, once let every rollout after the first play from stale counts)."""
    from uno_env.engine.jit import python_callable
    from uno_env.engine.search import copy_into
    from uno_env.engine.state import State
    a, b = Game(preset, 4, seed=3), Game(preset, 4, seed=4)
    for g, moves in ((a, 7), (b, 12)):
        rng = np.random.default_rng(moves)
        for _ in range(moves):
            legal = g.legal_actions()
            g.step(int(legal[rng.integers(len(legal))]))
    src = State(*(x.copy() for x in a._state))
    dst = State(*(x.copy() for x in b._state))
    assert any(not np.array_equal(x, y) for x, y in zip(src, dst) if x.size)
    python_callable(copy_into)(src, dst)
    for name, x, y in zip(State._fields, src, dst):
        np.testing.assert_array_equal(x, y, err_msg=name)
