"""Stable-Baselines3 integration (needs the ``rl`` extra): ``UnoVecEnv``, a ``VecEnv`` of
many learner games on the numba engine, and ``ScaledObservation``, the features
extractor that brings the raw counts of the observation to unit scale inside the policy.

    >>> from sb3_contrib import MaskablePPO
    >>> set_threads()    # torch on 1 thread (uno_env.integrations.threads)
    >>> venv = UnoVecEnv(128, "classic", 2, opponents="heuristic", seed=0)
    >>> model = MaskablePPO("MlpPolicy", venv, **ppo_kwargs(venv))
    >>> model.learn(1_000_000)

``ppo_kwargs`` gives the settings that learn (those of ``uno-bench train``): SB3's own
defaults (2,048 steps per env per update, mini-batches of 64, 10 epochs) are sized for
one env, and over 128 games they make an update of 262,144 samples in 4,096
mini-batches: minutes per update and little learning in the first few minutes.

One ``step`` applies the learner's action in every game and plays the opponents up to
the learner's next decision (``uno_env.envs.single_seat.LearnerBatch``); finished games restart at
once with the next game index, and their last observation is in
``infos[i]["terminal_observation"]`` as SB3 expects. ``action_masks()`` gives the legal
actions of every game, which ``MaskablePPO`` reaches through ``env_method``.
"""
from __future__ import annotations

import time
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from stable_baselines3.common.vec_env import VecEnv

from uno_env.envs.single_seat import LearnerBatch
from uno_env.integrations.threads import set_threads  # noqa: F401 (re-exported)
from uno_env.integrations.scaling import (_FIELD_SCALE, dark_face_table,  # noqa: F401 (re-exported)
                             observation_scale)


class ScaledObservation(BaseFeaturesExtractor):
    """Multiplies the observation by a fixed ``scale`` vector (stored with the model).
    UNO Flip (``dark``: ``(start, stop, table)`` of ``scaling.dark_face_table``): appends
    the dark face of every card held as colour and rank one-hots."""

    def __init__(self, observation_space: gymnasium.spaces.Box, scale, dark=None):
        size = int(np.prod(observation_space.shape))
        table = None if dark is None else np.asarray(dark[2], np.float32)
        extra = 0 if dark is None else (dark[1] - dark[0]) * table.shape[1]
        super().__init__(observation_space, size + extra)
        self.register_buffer("scale", torch.as_tensor(np.asarray(scale, np.float32)))
        self.dark = None if dark is None else (int(dark[0]), int(dark[1]))
        if table is not None:
            self.register_buffer("dark_table", torch.as_tensor(table))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = observations.flatten(1) * self.scale
        if self.dark is None:
            return x
        start, stop = self.dark
        index = observations[:, start:stop].long().clamp(0, len(self.dark_table) - 1)
        return torch.cat([x, self.dark_table[index].flatten(1)], dim=1)


#: the ``MaskablePPO`` settings of ``ppo_kwargs`` (and of ``agents.train``, ``uno-bench
#: train``): a rollout of 128 steps per game, mini-batches of 2,048, 4 epochs
PPO_SETTINGS = {"n_steps": 128, "batch_size": 2048, "n_epochs": 4, "learning_rate": 3e-4,
                "gamma": 0.995, "ent_coef": 0.01}
#: the policy's and the value's hidden layers
PPO_HIDDEN = (256, 256)


def ppo_kwargs(venv, hidden=PPO_HIDDEN, **overrides) -> dict:
    """Keyword arguments for ``MaskablePPO("MlpPolicy", venv, **ppo_kwargs(venv))`` that
    learn on a ``UnoVecEnv``: ``PPO_SETTINGS`` (the batch size capped at the rollout's
    ``n_steps * num_envs`` samples) and ``policy_kwargs`` of ``venv.config`` with
    ``hidden`` layers. ``overrides`` replace any of them (``seed=0``, ``verbose=1``,
    ``n_steps=256`` ...); one that is None keeps the recommended value.

    With ``UnoVecEnv(128, "classic", 2, opponents="random")`` these settings reach a
    win rate of about 0.98 against ``random`` within minutes on 2 cores
    (docs/examples.md has the measured figures)."""
    overrides = {k: v for k, v in overrides.items() if v is not None}
    kwargs = dict(PPO_SETTINGS)
    if "policy_kwargs" not in overrides:
        kwargs["policy_kwargs"] = policy_kwargs(venv.config, tuple(hidden))
    kwargs.update(overrides)
    kwargs["batch_size"] = min(int(kwargs["batch_size"]),
                               int(kwargs["n_steps"]) * int(venv.num_envs))
    return kwargs


def policy_kwargs(config, hidden=(256, 256), extra_inputs: int = 0) -> dict:
    """``policy_kwargs`` for ``MaskablePPO("MlpPolicy", ...)`` on ``config``: scaled
    observations (UNO Flip: with the dark faces of the cards held decoded,
    ``scaling.dark_face_table``), ReLU MLPs of ``hidden`` units for the policy and the
    value. ``extra_inputs``: entries a wrapper appends to the observation (unscaled; the
    advice of ``agents.train``)."""
    scale = observation_scale(config.deck.num_types, config.num_players,
                              config.layout.obs_size + extra_inputs)
    dark = dark_face_table(config)
    if dark is not None:   # the raw face ids, kept (as "held") but brought to unit scale
        scale[dark[0]] = 1.0 / len(dark[1])
    extractor = {"scale": scale.tolist()}
    if dark is not None:
        extractor["dark"] = (dark[0].start, dark[0].stop, dark[1].tolist())
    return {"features_extractor_class": ScaledObservation,
            "features_extractor_kwargs": extractor,
            "net_arch": {"pi": list(hidden), "vf": list(hidden)},
            "activation_fn": torch.nn.ReLU}


class _AdviceSkip(torch.nn.Module):
    """``MlpExtractor`` whose policy latent ends with the advice one-hot itself (features
    ``start:stop``), so that the action layer reads it past the hidden layers."""

    def __init__(self, inner: MlpExtractor, start: int, stop: int):
        super().__init__()
        self.start, self.stop = int(start), int(stop)
        # the inner extractor's networks, registered once (under their usual names)
        self.policy_net, self.value_net = inner.policy_net, inner.value_net
        self.hidden_dim_pi = inner.latent_dim_pi
        self.latent_dim_pi = inner.latent_dim_pi + self.stop - self.start
        self.latent_dim_vf = inner.latent_dim_vf

    def forward(self, features):
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features):
        return torch.cat([self.policy_net(features), features[:, self.start:self.stop]],
                         dim=1)

    def forward_critic(self, features):
        return self.value_net(features)


class AdvisedPolicy(MaskableActorCriticPolicy):
    """A residual policy over an adviser (``agents.train``'s ``advice``): the observation
    ends with a one-hot of the adviser's move (features ``advice[0]:advice[1]``, where the
    ``ScaledObservation`` extractor leaves them unscaled), which the hidden layers read
    and the action layer reads once more directly, starting at ``advice[2]`` times the
    identity: the logits are the network's plus ``advice[2]`` on the advised move, so
    before any training the policy follows the adviser, and training learns where to
    depart from it."""

    def __init__(self, *args, advice=(0, 0, 5.0), **kwargs):
        self.advice = (int(advice[0]), int(advice[1]), float(advice[2]))
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        self.mlp_extractor = _AdviceSkip(self.mlp_extractor, *self.advice[:2])

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        start, stop, weight = self.advice
        hidden = self.mlp_extractor.hidden_dim_pi
        with torch.no_grad():
            self.action_net.weight[:, hidden:] = weight * torch.eye(stop - start)

    def _get_constructor_parameters(self):
        return {**super()._get_constructor_parameters(), "advice": self.advice}


class UnoVecEnv(VecEnv):
    """``num_envs`` learner games as an SB3 ``VecEnv`` (see the module docstring).
    Arguments are those of ``LearnerBatch`` (``num_players`` defaults to 4, as
    everywhere). ``seed(s)`` (SB3's call) takes effect at the
    next ``reset()``. An illegal action raises a ValueError naming the legal moves."""

    def __init__(self, num_envs: int = 64, preset: str = "classic", num_players: int = 4,
                 opponents: Any = "random", seat: int | str = "random", seed: int = 0,
                 **rules):
        self.batch = LearnerBatch(num_envs, preset, num_players, opponents, seat, seed,
                                  auto_reset=True, **rules)
        self.config = self.batch.config
        self.render_mode = None
        super().__init__(num_envs, self.config.observation_space, self.config.action_space)
        self._actions = np.zeros(num_envs, np.int64)
        self._episode_return = np.zeros(num_envs, np.float64)
        self._episode_length = np.zeros(num_envs, np.int64)
        self._start = time.time()
        self._pending_seed: int | None = None

    # --- VecEnv ---------------------------------------------------------------------------
    def reset(self):
        seed, self._pending_seed = self._pending_seed, None
        obs, _ = self.batch.reset(seed=seed)
        self._episode_return[:] = 0.0
        self._episode_length[:] = 0
        self._reset_seeds()
        self._reset_options()
        return obs.copy()

    def seed(self, seed: int | None = None):
        if seed is not None:
            self._pending_seed = int(seed)
        return [seed] * self.num_envs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions[:] = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        obs, _, reward, terminated, truncated = self.batch.step(self._actions)
        self._episode_return += reward
        self._episode_length += 1
        done = terminated | truncated
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(done):
            infos[i] = {
                "terminal_observation": self.batch.final_obs[i].copy(),
                "TimeLimit.truncated": bool(truncated[i]),
                "episode": {"r": float(self._episode_return[i]),
                            "l": int(self._episode_length[i]),
                            "t": round(time.time() - self._start, 6)},
            }
        self._episode_return[done] = 0.0
        self._episode_length[done] = 0
        return obs.copy(), reward.astype(np.float32), done.copy(), infos

    def action_masks(self) -> np.ndarray:
        """bool[B, A]: the legal actions of the learner in every game."""
        return self.batch.mask.astype(bool)

    def close(self) -> None:
        pass

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        rows = self._indices(indices)
        if method_name == "action_masks":
            return list(self.action_masks()[rows])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self):
        return [None for _ in range(self.num_envs)]
