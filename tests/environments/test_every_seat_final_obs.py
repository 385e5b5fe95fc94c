"""``EverySeatBatch(final_obs=True)`` and ``EverySeatBatch.observe``: every seat's
observation of a game that ended in a step (before the auto-reset deals the next one),
and any seat's observation of the game now in a slot, both checked against the same
games replayed move by move with ``Game``."""
import numpy as np
import pytest

import uno_env
from uno_env.envs.every_seat import EverySeatBatch


def _games(venv, seed, **rules):
    """A ``Game`` per slot, dealt as the slot's game (``game_index``)."""
    games = []
    for b in range(venv.num_envs):
        game = uno_env.Game(num_players=venv.num_players, **rules)
        game.reset(seed, int(venv.game_index[b]))
        games.append(game)
    return games


# short games (3 cards each; cut at 60 turns), so that many end in a few hundred steps
@pytest.mark.parametrize("rules, obs_dtype", [
    ({"hand_size": 3}, "float32"), ({"hand_size": 3, "max_turns": 60}, "uint8"),
    ({"hand_size": 3, "max_turns": 60}, None)])
def test_final_obs_is_every_seats_view_of_the_ended_game(rules, obs_dtype):
    """final_obs[b, q] is seat q's observation of the game that ended in slot b (won or
    truncated), whatever obs_dtype; rows of games still playing keep what they held;
    the batch steps exactly as one without final_obs."""
    B, P, seed = 8, 3, 11
    venv = EverySeatBatch(B, num_players=P, seed=seed, obs_dtype=obs_dtype,
                          final_obs=True, **rules)
    plain = EverySeatBatch(B, num_players=P, seed=seed, obs_dtype=obs_dtype, **rules)
    assert venv.final_obs.shape == (B, P, venv.layout.obs_size)
    assert venv.final_obs.dtype == np.float32
    out, out_plain = venv.reset(), plain.reset()
    games = _games(venv, seed, **rules)
    rng = np.random.default_rng(3)
    ended = {"terminated": 0, "truncated": 0}
    for _ in range(600):
        actions = venv.random_actions(rng)
        for b in range(B):
            games[b].step(int(actions[b]))
        before = venv.final_obs.copy()
        out, out_plain = venv.step(actions), plain.step(actions)
        for x, y in zip(out, out_plain):   # the same games, with or without final_obs
            if x is None:
                assert y is None
            else:
                np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(venv.game_index, plain.game_index)
        terminated, truncated = out[4], out[5]
        over = terminated | truncated
        np.testing.assert_array_equal(venv.final_obs[~over], before[~over])
        for b in np.flatnonzero(over):
            game = games[b]
            assert terminated[b] == game.terminated and truncated[b] == game.truncated
            for q in range(P):
                np.testing.assert_array_equal(venv.final_obs[b, q], game.observe(q))
            ended["terminated" if game.terminated else "truncated"] += 1
            game.reset(seed, int(venv.game_index[b]))
    assert ended["terminated"] >= 2, ended
    if "max_turns" in rules:
        assert ended["truncated"] >= 2, ended
    # the seats differ: a view of its own hand each, not one observation copied
    assert any(not np.array_equal(before[b, 0], before[b, 1]) for b in range(B))


def test_final_obs_without_auto_reset():
    """Without auto_reset the ended game stays in its slot: final_obs holds every seat's
    view of it from the step it ended, and later steps do not touch the row."""
    B, P, seed = 4, 2, 2
    venv = EverySeatBatch(B, num_players=P, seed=seed, auto_reset=False, final_obs=True,
                          max_turns=200)
    venv.reset()
    games = _games(venv, seed, max_turns=200)
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(1000):
        if venv.done.all():
            break
        actions = venv.random_actions(rng)
        for b in np.flatnonzero(~venv.done):
            games[b].step(int(actions[b]))
        *_, terminated, truncated = venv.step(actions)
        for b in np.flatnonzero(terminated | truncated):
            seen.add(int(b))
            for q in range(P):
                np.testing.assert_array_equal(venv.final_obs[b, q], games[b].observe(q))
                # the game is still there: observe() gives the same view
                np.testing.assert_array_equal(venv.observe([b], [q])[0], games[b].observe(q))
    assert venv.done.all() and seen == set(range(B))
    for b in range(B):                          # untouched by the steps after each end
        for q in range(P):
            np.testing.assert_array_equal(venv.final_obs[b, q], games[b].observe(q))


def test_final_obs_is_off_by_default():
    venv = EverySeatBatch(2, num_players=2)
    assert venv.final_obs is None
    assert EverySeatBatch(2, num_players=2, final_obs=False).final_obs is None
    with pytest.raises(ValueError, match="final_obs must be True or False"):
        EverySeatBatch(2, final_obs="yes")


def test_observe_is_any_seats_view_mid_game():
    """observe(rows, seats) equals Game.observe(seat) of the game in each slot, for the
    decider and every other seat, and leaves the games as they were."""
    B, P, seed = 4, 4, 9
    venv = EverySeatBatch(B, num_players=P, seed=seed)
    twin = EverySeatBatch(B, num_players=P, seed=seed)
    obs, _, player = venv.reset()
    twin.reset()
    games = _games(venv, seed)
    rng = np.random.default_rng(1)
    rows = np.repeat(np.arange(B), P)
    seats = np.tile(np.arange(P), B)
    for t in range(120):
        if t % 40 == 7:                         # a few moments, mid-game
            got = venv.observe(rows, seats)
            assert got.shape == (B * P, venv.layout.obs_size)
            assert got.dtype == np.float32
            for i, (b, q) in enumerate(zip(rows, seats)):
                np.testing.assert_array_equal(got[i], games[b].observe(q))
            # the decider's rows are the step's obs; one seat for every row
            np.testing.assert_array_equal(venv.observe(np.arange(B), player), obs)
            np.testing.assert_array_equal(venv.observe(np.arange(B), 2), got[2::P])
            np.testing.assert_array_equal(venv.observe([3, 3, 0], [1, 1, 0]),
                                          got[[13, 13, 0]])
            assert venv.observe([], []).shape == (0, venv.layout.obs_size)
        actions = venv.random_actions(rng)
        for b in range(B):
            games[b].step(int(actions[b]))
        obs, _, player, _, terminated, truncated = venv.step(actions)
        # observing consumed nothing: the batch steps on as its twin
        for x, y in zip((obs, player, terminated), twin.step(actions)[::2]):
            np.testing.assert_array_equal(x, y)
        for b in np.flatnonzero(terminated | truncated):
            games[b].reset(seed, int(venv.game_index[b]))


def test_observe_refuses_bad_rows_and_seats():
    venv = EverySeatBatch(3, num_players=2, seed=0)
    with pytest.raises(ValueError, match="reset"):
        venv.observe([0], [0])
    venv.reset()
    with pytest.raises(ValueError, match=r"rows must be slot indices 0 to 2, got \[3\]"):
        venv.observe([3], [0])
    with pytest.raises(ValueError, match="rows must be slot indices 0 to 2"):
        venv.observe([-1], [0])
    with pytest.raises(ValueError, match=r"seats must be seat indices 0 to 1, got \[0, 2\]"):
        venv.observe([0, 1], [0, 2])
    with pytest.raises(ValueError, match="rows must be a 1-D sequence of integers"):
        venv.observe([[0, 1]], [0, 1])
    with pytest.raises(ValueError, match="rows must be a 1-D sequence of integers"):
        venv.observe(0, 0)
    with pytest.raises(ValueError, match="seats must be a 1-D sequence of integers"):
        venv.observe([0], [0.5])
    with pytest.raises(ValueError, match="2 rows and 3 seats"):
        venv.observe([0, 1], [0, 1, 1])
