"""The environments as the ids before ``shown_hand`` made them: the same games, with the
observation of those ids (the vector before ``shown_hand`` and ``shown_by``,
``uno_env.engine.observe.legacy_observation_size``, a prefix of today's).

``uno_env/UnoSingleSeat-v2`` (Gymnasium, ``make`` and ``make_vec``), ``uno_env/UnoAEC-v0``
and 0.1's ``uno_env/Uno-v0`` (PettingZoo) build these, with a ``DeprecationWarning``
naming the current id (:mod:`uno_env.envs.registration`), until 0.3. Everything but the
observation and its space is the current env's: a model or a pipeline written for those
ids runs unchanged, and one that moves to the current ids reads the first
``legacy_observation_size`` entries of the observation to see what it saw before.
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector.utils import batch_space

from uno_env.engine.obs_layout import legacy_observation_size
from uno_env.envs.aec import raw_env
from uno_env.envs.gym_vector import GymVectorEnv
from uno_env.envs.single_seat import SingleAgentEnv


def legacy_size(config) -> int:
    """The observation length of the earlier ids for ``config``."""
    return legacy_observation_size(config.deck.num_types, config.num_players, config.rules)


def legacy_space(config) -> gymnasium.spaces.Box:
    """``config.observation_space`` cut to the earlier ids' observation."""
    full, n = config.observation_space, legacy_size(config)
    return gymnasium.spaces.Box(full.low[:n], full.high[:n], (n,), np.float32)


class LegacySingleAgentEnv(SingleAgentEnv):
    """``SingleAgentEnv`` v2: the observation before ``shown_hand``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._n = legacy_size(self.config)
        self.observation_space = legacy_space(self.config)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = super().reset(seed=seed, options=options)
        return obs[:self._n].copy(), info

    def step(self, action):
        obs, *rest = super().step(action)
        return (obs[:self._n].copy(), *rest)


class LegacyGymVectorEnv(GymVectorEnv):
    """``GymVectorEnv`` v2: the observations before ``shown_hand``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._n = legacy_size(self.config)
        self.single_observation_space = legacy_space(self.config)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, infos = super().reset(seed=seed, options=options)
        return obs[:, :self._n], infos

    def step(self, actions):
        obs, *rest, infos = super().step(actions)
        final = infos.get("final_obs")
        if final is not None:
            for i in np.flatnonzero(infos["_final_obs"]):
                final[i] = final[i][:self._n]
        return (obs[:, :self._n], *rest, infos)


class legacy_raw_env(raw_env):
    """The AEC env v0 (``metadata["name"] == "uno_v0"``): the observation before
    ``shown_hand``."""

    metadata = {**raw_env.metadata, "name": "uno_v0"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._n = legacy_size(self.config)
        space = gymnasium.spaces.Dict({
            "observation": legacy_space(self.config),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.layout.size,), np.int8),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}

    def observe(self, agent):
        out = super().observe(agent)
        out["observation"] = out["observation"][:self._n].copy()
        return out
