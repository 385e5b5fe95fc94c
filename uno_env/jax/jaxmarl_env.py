"""UNO as a `JaxMARL <https://github.com/FLAIROx/JaxMARL>`_ environment: ``UnoJaxMARL``, a
``MultiAgentEnv`` over the pure-JAX engine (``uno_env.jax.core``) in the style of
JaxMARL's Hanabi, its turn-based card game, so that its IPPO and MAPPO baselines (and
wrappers such as ``LogWrapper``) run on UNO:

    >>> env = UnoJaxMARL(preset="classic", num_players=4)
    >>> obs, state = env.reset(key)                      # obs: {"agent_0": float32[obs], ...}
    >>> avail = env.get_avail_actions(state)             # {"agent_0": bool[num_moves], ...}
    >>> obs, state, rewards, dones, infos = env.step(key, state, actions)

Every agent (``agent_0`` .. ``agent_{P-1}``, seat ``i`` = ``agent_i``) sends an action
every step, as in Hanabi; only the seat to move acts. The action ids are uno-env's
(``Config.actions``) plus, as Hanabi's last action, a **no-op**
(``env.noop = num_moves - 1``), the one available action of every seat not to move;
what those seats send is ignored. ``rewards`` are each seat's rewards of this step (the
engine's, as ``EverySeatBatch`` reports them); ``dones[agent]`` and ``dones["__all__"]``
are True when the game ended (won, or cut by the turn limit, then
``infos["truncated"]`` is True for every agent); ``MultiAgentEnv.step`` then deals a new
game from its reset key (auto-reset).

As the pgx adapter (``uno_env.jax.pgx_env``, docs/jax.md): ``reset(key)`` deals game 0 of
the seed made of ``jax.random.bits(key, (2,), uint32)`` (high word first, top bit
cleared: uno-env's seeds are below 2**63), the numba engine's game of that seed (``deal(seed, game_index)`` deals any game); the key of ``step_env`` is not
used (the draws come from the game's own stream); an illegal action by the seat to move
(the no-op included) ends the game: -1 for that seat and +1/(P-1) for each other one
(with teams, -1 for its team and +1 for the other), where uno-env's own APIs raise a
``ValueError``.
"""
from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from flax import struct
from jaxmarl.environments import spaces
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.multi_agent_env import State as BaseState

from uno_env.jax import _rng, core


@struct.dataclass
class UnoJaxMARLState(BaseState):
    """JaxMARL's ``done`` and ``step`` (decisions taken) over the engine's state
    ``game`` (``uno_env.jax.core.State``)."""

    game: core.State


class UnoJaxMARL(MultiAgentEnv):
    """UNO on the pure-JAX engine with JaxMARL's API (module docstring). ``preset``,
    ``num_players`` and rule flags as ``uno_env.jax.make_params`` takes them."""

    def __init__(self, preset: str = "classic", num_players: int = 4, **rules):
        #: the engine's static parameters (``uno_env.jax.core.Params``)
        self.params = core.make_params(preset=preset, num_players=num_players, **rules)
        super().__init__(num_agents=self.params.num_players)
        self.agents = [f"agent_{i}" for i in range(self.num_agents)]
        #: uno-env's actions and the no-op
        self.num_moves = self.params.num_actions + 1
        #: the no-op of the seats not to move (Hanabi's convention: the last action)
        self.noop = self.params.num_actions
        self._teams = _teams(self.params)
        high = jnp.asarray(self.params.config.observation_space.high, jnp.float32)
        self.observation_spaces = {
            a: spaces.Box(0.0, high, (self.params.observation_size,), jnp.float32)
            for a in self.agents}
        self.action_spaces = {a: spaces.Discrete(self.num_moves) for a in self.agents}

    @partial(jax.jit, static_argnums=[0])
    def reset(self, key):
        """Deal game 0 of the key's seed; returns ``(observations, state)``."""
        return self._start(core.init(self.params, core.seed_stream(_seed_of(key), 0)))

    def deal(self, seed, game_index=0):
        """Game ``game_index`` of ``seed`` as the numba engine deals it (``seed``: a
        Python int or uint32[2] (high, low)); returns ``(observations, state)``. One
        compiled program (run op by op, the deal compiles a few hundred small ones)."""
        return self._deal(_rng.seed_words(seed), game_index)

    @partial(jax.jit, static_argnums=[0])
    def _deal(self, seed, game_index):
        return self._start(core.init(self.params, core.seed_stream(seed, game_index)))

    def _start(self, game):
        state = UnoJaxMARLState(done=jnp.bool_(False), step=jnp.int32(0), game=game)
        return self.get_obs(state), state

    @partial(jax.jit, static_argnums=[0])
    def step_env(self, key, state: UnoJaxMARLState, actions):
        """One decision: the action of the seat to move (the others' are ignored)."""
        del key                   # the game's draws come from its own stream
        game = state.game
        seat = game.current_player
        action = jnp.stack([jnp.asarray(actions[a]) for a in self.agents])[
            jnp.maximum(seat, 0)].astype(jnp.int32)
        over = game.terminated | game.truncated
        legal = game.legal_action_mask[jnp.minimum(action, self.params.num_actions - 1)] \
            & (action >= 0) & (action < self.params.num_actions)
        stepped = core.step(self.params, game, action)
        # an illegal action leaves the game where it was and ends the episode
        game = jax.tree.map(lambda new, old: jnp.where(legal | over, new, old), stepped, game)
        rewards = jnp.where(legal | over, game.rewards.astype(jnp.float32),
                            self._illegal_rewards(seat))
        done = game.terminated | game.truncated | ~(legal | over)
        state = state.replace(done=done, step=state.step + (~over).astype(jnp.int32),
                              game=game)
        obs = jax.lax.stop_gradient(self.get_obs(state))
        reward = {a: rewards[i] for i, a in enumerate(self.agents)}
        dones = {a: done for a in self.agents}
        dones["__all__"] = done
        infos = {"truncated": jnp.full((self.num_agents,), game.truncated & legal)}
        return obs, jax.lax.stop_gradient(state), reward, dones, infos

    def _illegal_rewards(self, seat):
        num_players = self.num_agents
        if self._teams is None:
            return jnp.full(num_players, 1.0 / (num_players - 1), jnp.float32) \
                .at[seat].set(-1.0)
        teams = jnp.asarray(self._teams)
        return jnp.where(teams == teams[seat], -1.0, 1.0).astype(jnp.float32)

    def get_obs(self, state: UnoJaxMARLState):
        """Every agent's observation: the vector ``EverySeatBatch`` gives that seat."""
        seats = jnp.arange(self.num_agents, dtype=jnp.int32)
        obs = jax.vmap(lambda s: core.observe(self.params, state.game, s))(seats)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    @partial(jax.jit, static_argnums=[0])
    def get_avail_actions(self, state: UnoJaxMARLState):
        """bool[num_moves] per agent: the seat to move's legal actions (never the
        no-op); every other seat, and every seat of a finished game, only the no-op."""
        seats = jnp.arange(self.num_agents, dtype=jnp.int32)
        to_move = (seats == state.game.current_player) & ~state.done
        legal = state.game.legal_action_mask[None, :] & to_move[:, None]
        avail = jnp.concatenate([legal, ~to_move[:, None]], axis=1)
        return {a: avail[i] for i, a in enumerate(self.agents)}

    def get_legal_moves(self, state: UnoJaxMARLState):
        """``get_avail_actions`` under Hanabi's name."""
        return self.get_avail_actions(state)

    @property
    def name(self) -> str:
        return "UNO"

    @property
    def num_actions(self) -> int:
        return self.num_moves

    @property
    def agent_classes(self) -> dict:
        if self._teams is None:
            return {"players": list(self.agents)}
        return {f"team_{t}": [a for a, team in zip(self.agents, self._teams) if team == t]
                for t in sorted(set(self._teams))}


def _seed_of(key):
    """The seed (uint32[2], high word first) a key deals: its first two 32-bit draws,
    the top bit cleared (uno-env's seeds are below 2**63)."""
    bits = jax.random.bits(key, (2,), jnp.uint32)
    return bits.at[0].set(bits[0] & jnp.uint32(0x7FFFFFFF))   # uno-env's seeds: < 2**63


def _teams(params):
    """Each seat's team with the ``teams`` rule (partners opposite: s and s + P/2)."""
    if not params.config.rules.teams:
        return None
    half = params.num_players // 2
    return tuple(seat % half for seat in range(params.num_players))

