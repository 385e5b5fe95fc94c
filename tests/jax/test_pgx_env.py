"""``uno_env.jax.UnoPgx``: pgx's own ``api_test`` passes on it, and the conventions where
pgx and uno-env differ (docs/jax.md) hold: the deal comes from the key (game 0 of the
key's 64-bit seed, the numba engine's game), an illegal action ends the game with pgx's
penalty, a finished game steps to itself with zero rewards and an all-True mask."""
from __future__ import annotations

import typing

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason='needs the "jax" extra: pip install -e ".[jax]"')
pgx = pytest.importorskip("pgx", reason='needs the "jax" extra: pip install -e ".[jax]"')
import jax.numpy as jnp  # noqa: E402

import uno_env  # noqa: E402
from uno_env.jax.pgx_env import ENV_ID, UnoPgx  # noqa: E402


@pytest.fixture(scope="module")
def env4():
    return UnoPgx("classic", 4)


@pytest.fixture(scope="module")
def fns4(env4):
    return jax.jit(env4.init), jax.jit(env4.step)


def _actions(batch, rng) -> np.ndarray:
    """Mostly the lowest legal id (a card played where one can be: short games), else
    a random legal action."""
    first = batch._mask.argmax(axis=1)
    return np.where(rng.random(len(first)) < 0.7, first, batch.random_actions(rng))


def _seed(key) -> int:
    hi, lo = (int(w) for w in np.asarray(jax.random.bits(key, (2,), jnp.uint32)))
    return ((hi & 0x7FFFFFFF) << 32) | lo


@pytest.fixture
def pgx_api_test(monkeypatch):
    """pgx's ``api_test`` module, with two mends that change none of its checks:

    - its valid ids are pgx's closed ``Literal`` of its own games: widened by ``"uno"``;
    - its random player (``pgx.experimental.act_randomly``) samples along ``axis=1``,
      which jax >= 0.5 refuses for one game's 1-D mask (pgx 2.6.0's own tic-tac-toe
      fails ``api_test`` the same way here): the same draw along the last axis."""
    from pgx._src import api_test as module
    ids = typing.get_args(module.EnvId)
    monkeypatch.setattr(module, "EnvId", typing.Literal[ids + (ENV_ID,)])

    @jax.jit
    def act_randomly(key, legal_action_mask):
        logits = jnp.log(legal_action_mask.astype(jnp.float32))
        return jax.random.categorical(key, logits=logits, axis=-1)

    monkeypatch.setattr(module, "act_randomly", act_randomly)
    return module


def test_pgx_api_test_passes(pgx_api_test):
    """pgx's ``api_test``: single games and vmapped batches, with and without keys
    (``pgx_api_test``: with the random player mended, pgx's tic-tac-toe passes too).
    A turn limit of 40 keeps the random games short (most reach it, and end
    ``terminated`` as pgx wants); every check is pgx's."""
    pgx_api_test.api_test(pgx.make("tic_tac_toe"), num=1)
    env = UnoPgx("classic", 3, max_turns=40)
    pgx_api_test.api_test(env, num=2, use_key=True)
    pgx_api_test.api_test_single(env, num=1, use_key=False)


def test_init_deals_game_0_of_the_keys_seed_as_the_numba_engine(env4, fns4):
    """``init(key)``: the observation, mask and seat to move of the numba engine's game 0
    of the seed made of the key's first two 32-bit draws."""
    init, _ = fns4
    for k in range(3):
        key = jax.random.PRNGKey(k)
        state = init(key)
        batch = uno_env.EverySeatBatch(1, "classic", 4, seed=_seed(key))
        obs, mask, player = batch.reset()
        assert int(state.current_player) == int(player[0])
        np.testing.assert_array_equal(np.asarray(state.legal_action_mask), mask[0] == 1)
        np.testing.assert_array_equal(np.asarray(state.observation), obs[0])
        assert state.observation.dtype == jnp.float32


def test_deal_numbers_games_as_every_seat_batch(env4):
    deal = jax.jit(jax.vmap(lambda i: env4.deal(7, i)))
    states = deal(jnp.arange(3, dtype=jnp.int32))
    obs, mask, player = uno_env.EverySeatBatch(3, "classic", 4, seed=7).reset()
    np.testing.assert_array_equal(np.asarray(states.current_player), player)
    np.testing.assert_array_equal(np.asarray(states.observation), obs)
    np.testing.assert_array_equal(np.asarray(states.legal_action_mask), mask == 1)


def test_steps_follow_every_seat_batch(env4, fns4):
    """The same actions give the same seats, masks, observations and rewards as the
    numba engine's ``EverySeatBatch``, through one whole game."""
    _, step = fns4
    state = env4.deal(0, 0)
    batch = uno_env.EverySeatBatch(1, "classic", 4, seed=0)
    obs, mask, player = batch.reset()
    rng = np.random.default_rng(0)
    for _ in range(2000):
        action = _actions(batch, rng)
        state = step(state, jnp.int32(action[0]))
        obs, mask, player, rewards, terminated, truncated = batch.step(action)
        np.testing.assert_array_equal(np.asarray(state.rewards), rewards[0])
        # pgx: the turn limit terminates the game (the engine's state says truncated)
        assert bool(state.terminated) == bool(terminated[0] or truncated[0])
        assert bool(state._x.truncated) == bool(truncated[0]) and not bool(state.truncated)
        if terminated[0] or truncated[0]:
            break
        assert int(state.current_player) == int(player[0])
        np.testing.assert_array_equal(np.asarray(state.observation), obs[0])
        np.testing.assert_array_equal(np.asarray(state.legal_action_mask), mask[0] == 1)
    assert bool(state.terminated) and not bool(state._x.truncated)
    assert float(state.rewards.max()) == 1.0


def test_the_turn_limit_terminates_the_game():
    """pgx's convention: a game cut by ``max_turns`` is ``terminated`` (zero rewards);
    the engine's own state says it was truncated, as uno-env reports it."""
    env = UnoPgx("classic", 2, max_turns=12)
    step = jax.jit(env.step)
    state = env.deal(1, 0)
    batch = uno_env.EverySeatBatch(1, "classic", 2, seed=1, max_turns=12)
    batch.reset()
    rng = np.random.default_rng(0)
    while not bool(state.terminated):
        action = batch.random_actions(rng)
        state = step(state, jnp.int32(action[0]))
        *_, rewards, terminated, truncated = batch.step(action)
    assert bool(truncated[0]) and not bool(terminated[0])
    assert bool(state._x.truncated) and not bool(state.truncated)
    assert not bool(state.rewards.any()) and bool(state.legal_action_mask.all())
    assert int(state.current_player) >= 0


def test_finished_game_steps_to_itself(env4, fns4):
    _, step = fns4
    state = env4.deal(0, 0)
    rng = np.random.default_rng(1)
    while not bool(state.terminated):
        last = int(state.current_player)
        state = step(state, jnp.int32(rng.choice(np.flatnonzero(state.legal_action_mask))))
    assert float(state.rewards.sum()) == pytest.approx(0.0, abs=1e-6)
    assert int(state.current_player) == last            # the winner moved last
    assert int(state._x.winner) == last
    assert bool(state.legal_action_mask.all())
    again = step(state, jnp.int32(0))
    assert not bool(again.rewards.any())
    assert bool(again.terminated)
    assert int(again._step_count) == int(state._step_count)
    np.testing.assert_array_equal(np.asarray(again.observation), np.asarray(state.observation))


def test_an_illegal_action_ends_the_game_with_pgx_penalty(env4, fns4):
    init, step = fns4
    state = init(jax.random.PRNGKey(2))
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    seat = int(state.current_player)
    after = step(state, jnp.int32(illegal))
    expected = np.full(4, 1 / 3, np.float32)
    expected[seat] = -1.0
    np.testing.assert_allclose(np.asarray(after.rewards), expected, rtol=1e-6)
    assert bool(after.terminated) and not bool(after.truncated)
    assert bool(after.legal_action_mask.all())
    assert int(after.current_player) == seat
    # the engine's state is the position where the illegal move was tried
    np.testing.assert_array_equal(np.asarray(env4.observe_all(after)),
                                  np.asarray(env4.observe_all(state)))
    assert not bool(step(after, jnp.int32(illegal)).rewards.any())


def test_teams_illegal_action_costs_the_team():
    env = UnoPgx("teams", 4)
    state = jax.jit(env.init)(jax.random.PRNGKey(0))   # jitted: op by op, 180 compiles
    seat = int(state.current_player)
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    rewards = np.asarray(jax.jit(env.step)(state, jnp.int32(illegal)).rewards)
    partner = (seat + 2) % 4
    assert rewards[seat] == rewards[partner] == -1.0
    assert sorted(rewards) == [-1.0, -1.0, 1.0, 1.0]


def test_observe_any_seat_and_batches(env4):
    keys = jax.random.split(jax.random.PRNGKey(5), 3)
    states = jax.jit(jax.vmap(env4.init))(keys)
    assert states.observation.shape == (3,) + env4.observation_shape
    assert states.legal_action_mask.shape == (3, env4.num_actions)
    every = jax.vmap(env4.observe_all)(states)
    assert every.shape == (3, 4) + env4.observation_shape
    for b in range(3):
        cp = int(states.current_player[b])
        np.testing.assert_array_equal(np.asarray(every[b, cp]),
                                      np.asarray(states.observation[b]))
    # jitted (op by op, the slices and the observation compile some 70 small programs)
    one = jax.jit(lambda s: jax.tree.map(lambda a: a[0], s))(states)
    with pytest.warns(DeprecationWarning):            # pgx deprecates player_id
        seat2 = jax.jit(env4.observe)(one, jnp.int32(2))
    np.testing.assert_array_equal(np.asarray(seat2), np.asarray(every[0, 2]))
    # players see different things (their own hands)
    assert not np.array_equal(np.asarray(every[0, 0]), np.asarray(every[0, 1]))


def test_properties_and_bad_arguments(env4, fns4, tmp_path):
    assert (env4.id, env4.num_players, env4.num_actions) == (ENV_ID, 4, 70)
    assert env4.observation_shape == (uno_env.EverySeatBatch(1).observation_space.shape[0],)
    assert isinstance(env4, pgx.Env)
    state = fns4[0](jax.random.PRNGKey(0))
    state.save_svg(tmp_path / "uno.svg")
    assert "current_player" in (tmp_path / "uno.svg").read_text()
    with pytest.raises(ValueError, match=".svg"):
        state.save_svg(tmp_path / "uno.png")
    with pytest.raises(ValueError, match="flip"):
        UnoPgx("flip", 4)


def test_uno_env_jax_loads_the_adapters_lazily():
    """``import uno_env.jax`` imports neither pgx nor JaxMARL; ``uno_env.jax.UnoPgx`` and
    ``uno_env.jax.UnoJaxMARL`` load them on first use."""
    import subprocess
    import sys
    code = ("import sys, uno_env.jax as j\n"
            "assert 'pgx' not in sys.modules and 'jaxmarl' not in sys.modules\n"
            "from uno_env.jax.pgx_env import UnoPgx\n"
            "from uno_env.jax.jaxmarl_env import UnoJaxMARL\n"
            "assert j.UnoPgx is UnoPgx and j.UnoJaxMARL is UnoJaxMARL\n")
    import os
    from support import ROOT
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
