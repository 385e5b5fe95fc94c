"""The baseline agents (see the package docstring)."""
from __future__ import annotations

import numpy as np

from .base import Agent, config_of, split_observation
from .search import MCTSAgent
from uno_env.engine.entry import kernels
from uno_env.engine.names import AGENT_GREEDY, AGENT_HEURISTIC, parse_search_name
from uno_env.envs.legacy import legacy_size


class RandomAgent(Agent):
    """A uniformly random legal action from its own ``numpy`` generator (``seed``).

    ``simulate``'s "random" agent draws from the game's own stream instead, so the two
    play the same policy but not the same games."""

    name = kernel = "random"

    def __init__(self, config=None, seed=None):
        if isinstance(config, (int, np.integer)) and not isinstance(config, bool) \
                and seed is None:        # RandomAgent(seed) reads naturally too
            config, seed = None, int(config)
        self.config = None if config is None else config_of(config)
        self.rng = np.random.default_rng(seed)

    def act_batch(self, observations, action_masks) -> np.ndarray:
        """A uniformly random legal action per row, vectorised."""
        mask = np.asarray(action_masks)
        if not mask.any(axis=1).all():
            raise ValueError("no legal action in some row: those episodes are over")
        return (self.rng.random(mask.shape) * (mask != 0)).argmax(axis=1)

    def act(self, observation, action_mask=None) -> int:
        _, mask = split_observation(observation, action_mask)
        legal = np.flatnonzero(np.asarray(mask))
        if len(legal) == 0:
            raise ValueError("no legal action: the episode is over for this agent")
        return int(legal[self.rng.integers(len(legal))])

    def __repr__(self) -> str:
        return "RandomAgent()"


class _KernelAgent(Agent):
    """An agent whose decision is a numba policy kernel (``engine.policies``), run by
    the engine's ``policy`` entry point for one row (``act``) or many (``act_batch``)."""

    _code = None

    def __init__(self, config=None):
        super().__init__(config)
        cfg = self.config
        self._obs = np.zeros((1, cfg.layout.obs_size), np.float32)
        self._mask = np.zeros((1, cfg.layout.size), np.uint8)
        self._out = np.zeros(1, np.int64)
        self._policy = kernels(cfg.variant).policy
        # a direct entry point for these argument types (skips numba's type dispatch)
        self._kernel = self._policy.bind(self._code, self._obs, self._mask, cfg.spec,
                                         self._out)

    def __reduce__(self):
        # rebuilt from its configuration: the compiled entry points do not pickle (Ray
        # sends Python agents to its workers, a residual PPO model holds one of these)
        return type(self), (self.config,)

    def _widen(self, obs: np.ndarray) -> np.ndarray:
        """An observation of the earlier env ids (``uno_env.envs.legacy``: without
        ``shown_hand``, which the policies do not read) padded to today's layout."""
        d = self._obs.shape[1]
        if obs.ndim and obs.shape[-1] == legacy_size(self.config) < d:
            pad = np.zeros((*obs.shape[:-1], d - obs.shape[-1]), np.float32)
            return np.concatenate([np.asarray(obs, np.float32), pad], axis=-1)
        return obs

    def act(self, observation, action_mask=None) -> int:
        obs, mask = split_observation(observation, action_mask)
        obs = self._widen(np.asarray(obs))
        mask = np.asarray(mask)
        if obs.shape != self._obs.shape[1:] or mask.shape != self._mask.shape[1:]:
            raise ValueError(f"observation/mask shapes {obs.shape}/{mask.shape} do not fit "
                             f"this agent's configuration {self._obs.shape[1:]}/"
                             f"{self._mask.shape[1:]}")
        self._obs[0] = obs
        self._mask[0] = mask
        self._kernel(self._code, self._obs, self._mask, self.config.spec, self._out)
        action = int(self._out[0])
        if action < 0:
            raise ValueError("no legal action: the episode is over for this agent")
        return action

    def act_batch(self, observations, action_masks) -> np.ndarray:
        """One action per row, all rows in one kernel call (same policy as ``act``)."""
        obs = np.ascontiguousarray(self._widen(np.asarray(observations)), dtype=np.float32)
        mask = np.ascontiguousarray(action_masks, dtype=np.uint8)
        if obs.ndim != 2 or obs.shape[1:] != self._obs.shape[1:] \
                or mask.shape != (len(obs), *self._mask.shape[1:]):
            raise ValueError(f"act_batch takes observations[B, {self._obs.shape[1]}] and "
                             f"masks[B, {self._mask.shape[1]}], got {obs.shape} and "
                             f"{mask.shape}")
        out = np.empty(len(obs), np.int64)
        self._policy(self._code, obs, mask, self.config.spec, out)
        if (out < 0).any():
            raise ValueError("no legal action in some row: those episodes are over")
        return out


class GreedyAgent(_KernelAgent):
    """Plays the legal coloured card worth most points, wilds last, never bluffs or
    challenges, always calls UNO and catches (``uno_env.engine.policies.greedy_policy``)."""

    name = kernel = "greedy"
    _code = AGENT_GREEDY


class HeuristicAgent(_KernelAgent):
    """Counts unseen cards to avoid what the next player can likely follow and to name
    a colour, keeps to its strongest colour, holds skips, draw cards and wilds for a
    next player close to going out, challenges only a huge hand
    (``uno_env.engine.policies.heuristic_policy``)."""

    name = kernel = "heuristic"
    _code = AGENT_HEURISTIC


AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "heuristic": HeuristicAgent}


def make_agent(name: str, config=None, seed=None) -> Agent:
    """An agent by name ("random", "greedy", "heuristic", or the search agent "mcts",
    "mcts:400" ...: ``agents.search.MCTSAgent``) for a configuration
    (``uno_env.make_config(...)``) or an environment."""
    search = parse_search_name(name)
    if search is not None:
        budget, rollout, mode = search
        return MCTSAgent(config, budget, rollout, mode, seed=seed)
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; choose one of {', '.join(AGENTS)}, "
                         f"mcts (mcts:BUDGET)")
    if name == "random":
        return RandomAgent(config, seed=seed)
    return AGENTS[name](config)
