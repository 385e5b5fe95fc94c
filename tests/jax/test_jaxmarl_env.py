"""``uno_env.jax.UnoJaxMARL`` through JaxMARL's own interface: ``MultiAgentEnv.step``
(with its auto-reset), ``LogWrapper`` (what the IPPO/MAPPO baselines wrap), the spaces,
Hanabi's turn-based conventions (a no-op for the seats not to move), and the same games
as the numba engine."""
from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason='needs the "jax" extra: pip install -e ".[jax]"')
jaxmarl = pytest.importorskip("jaxmarl",
                              reason='needs the "jaxmarl" extra: pip install -e ".[jaxmarl]"')
import jax.numpy as jnp  # noqa: E402
from jaxmarl.environments.multi_agent_env import MultiAgentEnv  # noqa: E402
from jaxmarl.wrappers.baselines import LogWrapper  # noqa: E402

import uno_env  # noqa: E402
from uno_env.jax.jaxmarl_env import UnoJaxMARL  # noqa: E402


@pytest.fixture(scope="module")
def env():
    return UnoJaxMARL("classic", 3)


def _random_actions(env, key, avail):
    """Hanabi-style: every agent samples from its available actions."""
    keys = jax.random.split(key, env.num_agents)
    return {a: jax.random.categorical(k, jnp.log(avail[a].astype(jnp.float32)))
            for a, k in zip(env.agents, keys)}


def test_interface(env):
    assert isinstance(env, MultiAgentEnv)
    assert env.agents == ["agent_0", "agent_1", "agent_2"] and env.num_agents == 3
    assert env.num_actions == env.num_moves == 71 and env.noop == 70
    key = jax.random.PRNGKey(0)
    obs, state = env.reset(key)
    assert set(obs) == set(env.agents)
    for a in env.agents:
        assert obs[a].shape == env.observation_space(a).shape == (env.params.observation_size,)
        assert obs[a].dtype == jnp.float32
        assert bool(env.observation_space(a).contains(obs[a]))
        assert bool(env.action_space(a).contains(env.action_space(a).sample(key)))
    avail = env.get_avail_actions(state)
    seat = int(state.game.current_player)
    for i, a in enumerate(env.agents):
        assert avail[a].shape == (71,) and avail[a].dtype == jnp.bool_
        if i == seat:
            assert not bool(avail[a][env.noop]) and int(avail[a].sum()) >= 1
        else:
            assert int(avail[a].sum()) == 1 and bool(avail[a][env.noop])
    assert env.agent_classes == {"players": env.agents}
    assert UnoJaxMARL("teams", 4).agent_classes == {"team_0": ["agent_0", "agent_2"],
                                                    "team_1": ["agent_1", "agent_3"]}


def test_same_game_as_every_seat_batch(env):
    """Stepped through ``MultiAgentEnv.step`` with the numba batch's actions (the other
    agents send random no-ops or anything: ignored): the same seats, observations of
    every seat, masks and rewards, until the game ends and auto-reset deals a new one."""
    obs, state = env.deal(11, 0)
    batch = uno_env.EverySeatBatch(1, "classic", 3, seed=11)
    bobs, mask, player = batch.reset()
    step = jax.jit(env.step)
    rng = np.random.default_rng(0)
    key = jax.random.PRNGKey(0)
    for n in range(3000):
        seat = int(player[0])
        avail = env.get_avail_actions(state)
        np.testing.assert_array_equal(np.asarray(avail[f"agent_{seat}"][:-1]), mask[0] == 1)
        np.testing.assert_array_equal(np.asarray(obs[f"agent_{seat}"]), bobs[0])
        action = batch.random_actions(rng)
        actions = {a: jnp.int32(action[0] if i == seat else rng.integers(0, 71))
                   for i, a in enumerate(env.agents)}
        key, sub = jax.random.split(key)
        obs, state, rewards, dones, infos = step(sub, state, actions)
        bobs, mask, player, brew, term, trunc = batch.step(action)
        np.testing.assert_array_equal(np.array([rewards[a] for a in env.agents]), brew[0])
        assert bool(dones["__all__"]) == bool(term[0] or trunc[0])
        assert all(bool(dones[a]) == bool(dones["__all__"]) for a in env.agents)
        if dones["__all__"]:
            break
    assert bool(dones["__all__"]) and n > 5
    # auto-reset: the state returned is a fresh game
    assert not bool(state.done) and int(state.step) == 0 and int(state.game.turns) == 0
    assert int(state.game.current_player) >= 0


def test_log_wrapper_and_vmapped_rollout():
    """JaxMARL's ``LogWrapper`` over a vmapped batch of games, random available actions
    for every agent, inside one ``lax.scan``: episodes finish and are logged, and every
    finished game's rewards add up to zero (one winner, +1; the others -1/2; all 0 in a
    game cut by the turn limit, 60 turns here so that games end within the scan)."""
    env = UnoJaxMARL("classic", 3, max_turns=60)
    wrapped = LogWrapper(env)
    num_envs, steps = 8, 200
    keys = jax.random.split(jax.random.PRNGKey(1), num_envs)
    obs, state = jax.vmap(wrapped.reset)(keys)

    def body(carry, key):
        obs, state = carry
        avail = jax.vmap(env.get_avail_actions)(state.env_state)
        k1, k2 = jax.random.split(key)
        actions = jax.vmap(lambda k, av: _random_actions(env, k, av))(
            jax.random.split(k1, num_envs), avail)
        obs, state, rewards, dones, infos = jax.vmap(wrapped.step)(
            jax.random.split(k2, num_envs), state, actions)
        return (obs, state), (jnp.stack([rewards[a] for a in env.agents], -1),
                              dones["__all__"], infos["returned_episode"],
                              infos["truncated"])

    (_, state), (rewards, dones, returned, truncated) = jax.jit(
        lambda c, k: jax.lax.scan(body, c, k))((obs, state), jax.random.split(
            jax.random.PRNGKey(2), steps))
    finished = np.asarray(dones)
    assert finished.sum() >= num_envs
    assert np.asarray(returned)[finished].all()
    ends = np.asarray(rewards)[finished]
    cut = np.asarray(truncated)[finished].all(axis=1)
    np.testing.assert_allclose(ends.sum(axis=1), 0.0, atol=1e-5)
    assert (ends[~cut].max(axis=1) == 1.0).all() and (~cut).any()
    assert not ends[cut].any()
    assert not np.asarray(rewards)[~finished].any()        # rewards at the ends only
    assert np.asarray(state.returned_episode_lengths).max() > 0


def test_an_illegal_action_ends_the_game(env):
    obs, state = env.reset(jax.random.PRNGKey(3))
    seat = int(state.game.current_player)
    actions = {a: jnp.int32(env.noop) for a in env.agents}  # the no-op: illegal to move
    obs2, after, rewards, dones, infos = env.step_env(jax.random.PRNGKey(0), state, actions)
    expected = np.full(3, 0.5, np.float32)
    expected[seat] = -1.0
    np.testing.assert_allclose(np.array([rewards[a] for a in env.agents]), expected)
    assert bool(dones["__all__"]) and not bool(infos["truncated"].any())
    assert all(int(v.sum()) == 1 for v in env.get_avail_actions(after).values())
    for a in env.agents:       # the game was left where it was
        np.testing.assert_array_equal(np.asarray(obs2[a]), np.asarray(obs[a]))


def test_bad_preset():
    with pytest.raises(ValueError, match="flip"):
        UnoJaxMARL("flip", 4)
