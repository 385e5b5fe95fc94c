"""Invariants of the engine on thousands of random games, with the batch kernels.

* card conservation after every step: each of the deck's cards is in exactly one place
  (hands + draw pile + discard pile), per type equal to ``deck.type_count``;
* ``hand_size`` is the sum of the hand's counts; no negative counts;
* every game still playing has at least one legal action;
* a finished game has a winner with an empty hand (and consistent round points and
  rewards), or it was truncated at ``max_turns``;
* determinism: the same seed gives the same games, and game ``i`` of a batch is
  ``Game(seed=s)`` reset with ``index=i``.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from uno_env import Game, make_config
from uno_env._jit import njit
from uno_env.engine import codes as C
from uno_env.engine import variants
from uno_env.engine.entry import GameOps
from uno_env.engine.rounds import reset_game
from uno_env.engine.rng import seed_stream_py as seed_stream
from uno_env.engine.state import allocate

GAMES_PER_COUNT = 1500


@njit
def step_games(st, sp, active, scratch, legal_counts):
    """One random legal action in each game of ``active``; ``legal_counts`` gets the
    number of legal actions each had before it (-1 for a game no longer playing)."""
    for i in range(active.shape[0]):
        g = active[i]
        if st.info[g, C.I_STATUS] != C.STATUS_PLAYING:
            legal_counts[i] = -1
            continue
        n = variants.legal_mask(st, g, sp, scratch)
        legal_counts[i] = n
        if n == 0:
            continue
        if n != scratch.sum():      # the count is what random_legal draws from
            legal_counts[i] = -2
        a = variants.random_legal(st, g, sp, scratch)
        variants.apply_action(st, g, sp, a)


@njit
def reset_batch(st, sp):
    for g in range(st.info.shape[0]):
        reset_game(st, g, sp)


@njit
def play_random_games(st, sp, max_steps):
    """Play every game of the batch to its end with the random agent's kernel."""
    scratch = np.zeros(sp.layout[C.L_SIZE], np.uint8)
    for g in range(st.info.shape[0]):
        for _ in range(max_steps):
            a = variants.random_legal(st, g, sp, scratch)
            if a < 0:
                break
            variants.apply_action(st, g, sp, a)


def new_batch(config, batch: int, seed: int):
    deck = config.deck
    st = allocate(batch, config.num_players, deck.num_types, deck.num_cards)
    for g in range(batch):
        st.rng[g] = seed_stream(seed, g)
    reset_batch(st, config.spec)
    return st


def pile_counts(pile: np.ndarray, length: np.ndarray, num_types: int) -> np.ndarray:
    """int[A, K]: copies of each type in the first ``length[a]`` slots of ``pile[a]``."""
    a, n = pile.shape
    valid = np.arange(n)[None, :] < length[:, None]
    rows = np.broadcast_to(np.arange(a)[:, None], (a, n))
    idx = rows[valid] * num_types + pile[valid].astype(np.int64)
    return np.bincount(idx, minlength=a * num_types).reshape(a, num_types)


def check_conservation(st, config, games: np.ndarray, where: str) -> None:
    deck = config.deck
    k, total = deck.num_types, deck.num_cards
    hands = st.hands[games].astype(np.int64)                  # [A, P, K]
    info = st.info[games]
    draw_len, disc_len = info[:, C.I_DRAW_LEN], info[:, C.I_DISCARD_LEN]
    assert (hands >= 0).all(), f"{where}: a negative hand count"
    assert ((draw_len >= 0) & (draw_len <= total) & (disc_len >= 1)
            & (disc_len <= total)).all(), f"{where}: a pile length out of range"
    sizes = hands.sum(axis=2)
    bad = np.flatnonzero((sizes != st.hand_size[games]).any(axis=1))
    assert not len(bad), (f"{where}: game {games[bad[0]]}: hand_size "
                          f"{st.hand_size[games[bad[0]]]} != counts' sums {sizes[bad[0]]}")
    discard_counts = pile_counts(st.discard[games], disc_len, k)
    bad = np.flatnonzero((discard_counts != st.discard_counts[games]).any(axis=1))
    assert not len(bad), f"{where}: game {games[bad[0]] if len(bad) else -1}: " \
        "discard_counts differ from the discard pile's contents"
    counts = (hands.sum(axis=1) + pile_counts(st.draw_pile[games], draw_len, k)
              + discard_counts)
    bad = np.flatnonzero((counts != deck.type_count[None, :]).any(axis=1))
    if len(bad):
        g, row = games[bad[0]], counts[bad[0]]
        wrong = {deck.type_name(t): (int(row[t]), int(deck.type_count[t]))
                 for t in np.flatnonzero(row != deck.type_count)}
        raise AssertionError(f"{where}: game {g} does not conserve the deck "
                             f"(type: (counted, deck)): {wrong}")


def check_finished(st, config, games: np.ndarray, where: str) -> None:
    """Games that just left STATUS_PLAYING."""
    n = config.num_players
    face_points = config.deck.face_points[config.deck.type_face[:, 0]]
    max_turns = config.rules.max_turns
    for g in games:
        info = st.info[g]
        status = info[C.I_STATUS]
        assert info[C.I_PHASE] == C.PHASE_OVER, f"{where}: game {g} over but phase " \
                                                f"{C.PHASE_NAMES[info[C.I_PHASE]]}"
        if status == C.STATUS_TRUNCATED:
            assert info[C.I_TURNS] >= max_turns, f"{where}: game {g} truncated early"
            assert (st.rewards[g] == 0).all(), f"{where}: game {g}: truncation rewards"
            continue
        assert status == C.STATUS_OVER, f"{where}: game {g}: status {status}"
        w = info[C.I_WINNER]
        assert 0 <= w < n and info[C.I_MATCH_WINNER] == w, \
            f"{where}: game {g}: winner {w}, match winner {info[C.I_MATCH_WINNER]}"
        assert st.hand_size[g, w] == 0, f"{where}: game {g}: winner {w} holds cards"
        assert (st.hand_size[g] > 0).sum() == n - 1, f"{where}: game {g}: two empty hands"
        own = st.hands[g].astype(np.int64) @ face_points
        expected = np.zeros(n, np.int64)
        expected[w] = own.sum()
        assert (st.round_points[g] == expected).all(), \
            f"{where}: game {g}: round points {st.round_points[g]}, cards {own}"
        rewards = np.full(n, -1.0 / (n - 1))
        rewards[w] = 1.0
        assert np.allclose(st.rewards[g], rewards, atol=1e-6), \
            f"{where}: game {g}: rewards {st.rewards[g]}"


@pytest.mark.parametrize("num_players", range(2, 11))
def test_conservation_and_invariants(num_players):
    config = make_config("classic", num_players)
    sp = config.spec
    st = new_batch(config, GAMES_PER_COUNT, seed=4242 + num_players)
    everyone = np.arange(GAMES_PER_COUNT)
    check_conservation(st, config, everyone, f"{num_players}p after the deal")
    assert (st.info[:, C.I_STATUS] == C.STATUS_PLAYING).all()
    scratch = np.zeros(config.layout.size, np.uint8)
    active = everyone.astype(np.int64)
    steps, step_no = 0, 0
    while len(active):
        step_no += 1
        legal = np.zeros(len(active), np.int64)
        step_games(st, sp, active, scratch, legal)
        where = f"{num_players}p, seed {4242 + num_players}, step {step_no}"
        stuck = active[legal == 0]
        assert not len(stuck), f"{where}: game {stuck[0]} is playing with no legal action"
        miscounted = active[legal == -2]
        assert not len(miscounted), f"{where}: game {miscounted[0]}: legal_mask's count " \
            "differs from the actions it marked"
        steps += len(active)
        check_conservation(st, config, active, where)
        playing = st.info[active, C.I_STATUS] == C.STATUS_PLAYING
        check_finished(st, config, active[~playing], where)
        active = active[playing]
        assert step_no < 20 * config.rules.max_turns, f"{where}: games never end"
    status = st.info[:, C.I_STATUS]
    # uniform random play draws a lot: many 2-player games reach max_turns
    assert (status == C.STATUS_OVER).sum() > 0.4 * GAMES_PER_COUNT
    assert ((status == C.STATUS_OVER) | (status == C.STATUS_TRUNCATED)).all()
    assert steps > 50 * GAMES_PER_COUNT


@pytest.mark.parametrize("num_players", [2, 4, 10])
def test_conservation_with_other_flags(num_players):
    """bluff=False / uno_call=False / short turn limits keep the deck whole too."""
    for flags in (dict(bluff=False), dict(uno_call=False), dict(max_turns=30, hand_size=3)):
        config = make_config("classic", num_players, **flags)
        st = new_batch(config, 300, seed=99)
        scratch = np.zeros(config.layout.size, np.uint8)
        active = np.arange(300, dtype=np.int64)
        while len(active):
            legal = np.zeros(len(active), np.int64)
            step_games(st, config.spec, active, scratch, legal)
            assert (legal != 0).all(), f"{flags}: a playing game with no legal action"
            check_conservation(st, config, active, f"{num_players}p {flags}")
            playing = st.info[active, C.I_STATUS] == C.STATUS_PLAYING
            over = active[~playing]
            if "max_turns" not in flags:
                check_finished(st, config, over, f"{num_players}p {flags}")
            else:  # the winner still has an empty hand, or the limit was reached
                for g in over:
                    info = st.info[g]
                    assert (info[C.I_STATUS] == C.STATUS_TRUNCATED
                            and info[C.I_TURNS] >= 30) or (
                        info[C.I_STATUS] == C.STATUS_OVER
                        and st.hand_size[g, info[C.I_WINNER]] == 0)
            active = active[playing]


# --- determinism ----------------------------------------------------------------------------
def _arrays(st, g):
    """Game ``g``'s state; of the piles only the live part (slots past a pile's length
    hold stale values that mean nothing)."""
    out = {name: np.array(getattr(st, name)[g]) for name in st._fields}
    out["draw_pile"] = out["draw_pile"][:st.info[g, C.I_DRAW_LEN]]
    out["discard"] = out["discard"][:st.info[g, C.I_DISCARD_LEN]]
    return out


def _assert_same(a: dict, b: dict, where: str) -> None:
    for name in a:
        assert np.array_equal(a[name], b[name]), f"{where}: field {name} differs"


@pytest.mark.parametrize("num_players", [2, 3, 4, 7, 10])
def test_same_seed_same_games(num_players):
    config = make_config("classic", num_players)
    runs = []
    for _ in range(2):
        st = new_batch(config, 200, seed=31337)
        play_random_games(st, config.spec, 100_000)
        runs.append(st)
    for g in range(200):
        _assert_same(_arrays(runs[0], g), _arrays(runs[1], g), f"game {g}")
    # another seed deals other games
    other = new_batch(config, 200, seed=31338)
    assert not np.array_equal(other.hands, new_batch(config, 200, seed=31337).hands)


@pytest.mark.parametrize("num_players", [2, 3, 4, 7, 10])
def test_batch_game_equals_game_with_index(num_players):
    seed = 2024 + num_players
    config = make_config("classic", num_players)
    dealt = new_batch(config, 64, seed)
    played = new_batch(config, 64, seed)
    play_random_games(played, config.spec, 100_000)
    scratch = np.zeros(config.layout.size, np.uint8)
    game = Game(num_players=num_players, seed=0)
    ops = GameOps(config)
    for i in (0, 1, 7, 33, 63):
        game.reset(seed, index=i)
        _assert_same(_arrays(dealt, i), _arrays(game._state, 0),
                     f"deal of game {i}, seed {seed}")
        # the same random-agent kernel on the Game's state replays batch game i
        while True:
            a = ops.random_legal(game._state, 0, scratch)
            if a < 0:
                break
            ops.apply_action(game._state, 0, a)
        _assert_same(_arrays(played, i), _arrays(game._state, 0),
                     f"game {i}, seed {seed}, played out")
    # index 0 is the default
    game.reset(seed)
    _assert_same(_arrays(dealt, 0), _arrays(game._state, 0), "reset(seed) vs index 0")


@pytest.mark.parametrize("num_players", [2, 4, 10])
def test_same_seed_same_history(num_players):
    """Two ``Game``s with one seed and the same move choices play the same game."""
    for seed in range(20):
        games = [Game(num_players=num_players, seed=seed) for _ in range(2)]
        rngs = [random.Random(seed), random.Random(seed)]
        while not games[0].is_over:
            moves = [g.legal_moves() for g in games]
            assert moves[0] == moves[1]
            for g, r in zip(games, rngs):
                g.play(r.choice(sorted(moves[0])))
        assert games[1].is_over
        assert games[0].history == games[1].history
        _assert_same(_arrays(games[0]._state, 0), _arrays(games[1]._state, 0),
                     f"seed {seed}")
        # reset() with the same seed replays the same deal
        first = _arrays(Game(num_players=num_players, seed=seed)._state, 0)
        games[0].reset(seed)
        _assert_same(first, _arrays(games[0]._state, 0), f"reset({seed})")
