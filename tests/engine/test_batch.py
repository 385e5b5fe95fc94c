"""simulate, EverySeatBatch and Game agree: the same seed and actions give the same games,
whatever the batch size, chunking or thread count (issue [throughput] item 5)."""
import numpy as np
import pytest

import uno_env
from uno_env.evaluation import simulation as sim_mod
from uno_env.engine.entry import GameOps
from uno_env.evaluation.simulation import simulate
from uno_env.envs.every_seat import EverySeatBatch


def _replay_random_game(seed, index, num_players, **rules):
    """Play game ``index`` of ``seed`` through Game with the random agent's kernel."""
    game = uno_env.Game(num_players=num_players, **rules)
    game.reset(seed, index)
    scratch = np.zeros(game.layout.size, np.uint8)
    steps = 0
    while not game.is_over:
        game.step(GameOps(game.config).random_legal(game._state, 0, scratch))
        steps += 1
    return game, steps


def test_simulate_is_identical_for_any_thread_count_and_chunk(monkeypatch):
    a = simulate(num_players=3, num_games=300, seed=7, threads=1)
    b = simulate(num_players=3, num_games=300, seed=7, threads=2)
    monkeypatch.setattr(sim_mod, "CHUNK", 64)
    c = simulate(num_players=3, num_games=300, seed=7, threads=2)
    for other in (b, c):
        np.testing.assert_array_equal(a.winner, other.winner)
        np.testing.assert_array_equal(a.turns, other.turns)
        np.testing.assert_array_equal(a.points, other.points)
        np.testing.assert_array_equal(a.counters["cards_drawn"], other.counters["cards_drawn"])


def test_simulate_game_i_is_game_i_of_the_game_api():
    result = simulate(num_players=4, num_games=12, seed=3, max_turns=5000)
    for i in (0, 5, 11):
        game, steps = _replay_random_game(3, i, 4, max_turns=5000)
        assert result.steps[i] == steps
        assert result.turns[i] == game.turns
        assert result.winner[i] == (game.winner if game.winner is not None else -1)
        assert result.points[i].tolist() == game.round_points


def test_simulate_first_game_splits_a_run():
    whole = simulate(num_players=2, num_games=40, seed=1)
    tail = simulate(num_players=2, num_games=20, seed=1, first_game=20)
    np.testing.assert_array_equal(whole.winner[20:], tail.winner)


def test_simulate_result_counts_add_up():
    r = simulate(num_players=4, num_games=200, seed=0)
    assert r.wins.sum() + r.truncated == 200
    won = r.winner >= 0
    # the winner scores the others' points; nobody else scores (docs/rules.md 2)
    assert (r.points[won].sum(axis=1) == r.points[won, r.winner[won]]).all()
    t = r.totals
    assert t["challenges_won"] <= t["challenges"] and t["w4_bluffs"] <= t["w4_played"]
    assert "games/s" in r.summary()


def test_simulate_bad_arguments():
    with pytest.raises(ValueError, match="unknown agent"):
        simulate(agents=("random", "alphazero", "random", "random"))
    with pytest.raises(ValueError, match="one agent per seat"):
        simulate(num_players=3, agents=("random", "random"))
    with pytest.raises(ValueError, match="threads"):
        simulate(threads=0)
    with pytest.raises(ValueError, match="num_games"):
        simulate(num_games=0)


def test_vector_env_replays_through_game():
    venv = EverySeatBatch(8, num_players=3, seed=5)
    obs, mask, player = venv.reset()
    rng = np.random.default_rng(0)
    games = []
    for b in range(8):
        g = uno_env.Game(num_players=3)
        g.reset(5, int(venv.game_index[b]))
        games.append(g)
    finished = 0
    for _ in range(3000):
        for b in range(8):
            np.testing.assert_array_equal(obs[b], games[b].observe(games[b].current_player))
            np.testing.assert_array_equal(mask[b], games[b].action_mask())
            assert player[b] == games[b].current_player
        actions = venv.random_actions(rng)
        for b in range(8):
            games[b].step(int(actions[b]))
        obs, mask, player, rewards, terminated, truncated = venv.step(actions)
        for b in range(8):
            g = games[b]
            assert terminated[b] == g.terminated and truncated[b] == g.truncated
            np.testing.assert_allclose(rewards[b], g.rewards)
            if g.is_over:
                finished += 1
                g.reset(5, int(venv.game_index[b]))
    assert finished >= 3


def test_vector_env_refuses_an_illegal_action_without_stepping():
    venv = EverySeatBatch(4, seed=0)
    obs, mask, player = venv.reset()
    before = (obs.copy(), mask.copy(), venv._state.info.copy())
    actions = venv.random_actions(np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(mask[2] == 0)[0])
    with pytest.raises(ValueError, match="not legal in game 2.*legal moves"):
        venv.step(actions)
    np.testing.assert_array_equal(venv._state.info, before[2])
    np.testing.assert_array_equal(obs, before[0])
    with pytest.raises(ValueError, match="shape"):
        venv.step(actions[:3])


def test_batches_take_strided_and_narrow_action_arrays():
    """The step's entry point is bound to contiguous int64 actions (no numba dispatch):
    a strided view or an int32 array must give the same games as contiguous int64."""
    from uno_env.envs.single_seat import LearnerBatch
    rng = np.random.default_rng(4)
    for make in (lambda: EverySeatBatch(6, seed=2),
                 lambda: LearnerBatch(6, opponents="heuristic", seed=2)):
        plain, odd = make(), make()
        plain.reset(), odd.reset()
        for k in range(60):
            mask = plain.mask if hasattr(plain, "mask") else plain._mask
            actions = (rng.random(mask.shape) * mask).argmax(1).astype(np.int64)
            wide = np.stack([actions, -np.ones_like(actions)], axis=1)  # a column: stride 2
            given = wide[:, 0] if k % 2 else actions.astype(np.int32)
            out_plain, out_odd = plain.step(actions), odd.step(given)
            for x, y in zip(out_plain, out_odd):
                np.testing.assert_array_equal(x, y)


def test_random_actions_are_legal_even_when_every_draw_is_zero():
    class Zeros:  # float32 draws of 0.0 happen (odds 2**-24 each): all at once here
        def random(self, shape, dtype):
            return np.zeros(shape, dtype)
    venv = EverySeatBatch(8, seed=1)
    _, mask, _ = venv.reset()
    actions = venv.random_actions(Zeros())
    np.testing.assert_array_equal(actions, mask.argmax(axis=1))  # each row's first legal
    assert mask[np.arange(8), actions].all()


def test_state_memory_per_game_is_under_4_kb():
    for n in (2, 4, 10):
        assert EverySeatBatch(2, num_players=n).state_bytes_per_game <= 4096


def test_python_streams_equal_the_kernels():
    """The Python twins of the per-game streams (used by ``Game`` without compiling a
    kernel) give the kernels' numbers and permutations exactly."""
    from uno_env.engine.jit import python_callable
    from uno_env.engine import rng
    from uno_env.engine.rng import seed_stream_py, shuffle_prefix_py
    seed_stream = python_callable(rng.seed_stream)
    shuffle_prefix = python_callable(rng.shuffle_prefix)
    for seed, index in [(0, 0), (1, 7), (2**40 + 3, 12345), (2**62, 2**31)]:
        assert seed_stream_py(seed, index) == seed_stream(seed, index)
        a = np.arange(60, dtype=np.int16)
        b = a.copy()
        ra = np.array([seed_stream(seed, index)], np.uint64)
        rb = ra.copy()
        shuffle_prefix(ra, 0, a, 50)
        shuffle_prefix_py(rb, 0, b, 50)
        assert (a == b).all() and ra[0] == rb[0]


@pytest.mark.parametrize("preset", ["classic", "flip"])
def test_vector_env_obs_dtype_writes_the_same_games(preset):
    """obs_dtype="uint8" holds the float32 observation's values exactly, and None writes
    none; the games, masks and rewards are the same whatever the choice."""
    envs = {dtype: EverySeatBatch(16, preset=preset, num_players=3, seed=5, obs_dtype=dtype)
            for dtype in ("float32", "uint8", None)}
    outs = {dtype: venv.reset() for dtype, venv in envs.items()}
    assert outs["uint8"][0].dtype == np.uint8 and outs[None][0] is None
    assert envs["uint8"].observation_space.dtype == np.uint8
    rng = np.random.default_rng(0)
    for _ in range(60):
        np.testing.assert_array_equal(outs["uint8"][0], outs["float32"][0])
        assert all(row in envs["uint8"].observation_space for row in outs["uint8"][0])
        for dtype in ("uint8", None):
            for a, b in zip(outs[dtype][1:], outs["float32"][1:]):
                np.testing.assert_array_equal(a, b)
        actions = envs["float32"].random_actions(rng)
        outs = {dtype: venv.step(actions) for dtype, venv in envs.items()}
    assert outs["float32"][0].max() > 1  # counts above a one-hot's 1 were compared


def test_vector_env_obs_dtype_refuses_what_it_cannot_hold():
    with pytest.raises(ValueError, match="'float32', 'uint8' or None"):
        EverySeatBatch(2, obs_dtype="int64")
    with pytest.raises(ValueError, match="target_score"):
        EverySeatBatch(2, obs_dtype="uint8", target_score=500)
    assert EverySeatBatch(2, obs_dtype=np.uint8).obs_dtype == "uint8"
