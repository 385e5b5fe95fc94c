"""What every agent of this package shares: the base class ``Agent`` and the reading of
a configuration from an environment (``config_of``). The baselines, the search and the
networks build on it; it imports none of them."""
from __future__ import annotations

import numpy as np

from uno_env.envs.legacy import legacy_size
from uno_env.players.protocol import split_observation  # noqa: F401  (the agents' own)
from uno_env.rules.config import Config, make_config


def config_of(config) -> Config:
    """The ``Config`` of ``config``: a ``Config``, None (classic, 4 players), or an
    environment, ``Game`` or wrapper that has one."""
    if isinstance(config, Config):
        return config
    if config is None:
        return make_config("classic", 4)
    for attr in ("config", "game"):       # an AEC env, a Game, or an env wrapper
        inner = getattr(config, attr, None)
        if isinstance(inner, Config):
            return inner
        if inner is not None and isinstance(getattr(inner, "config", None), Config):
            return inner.config
    unwrapped = getattr(config, "unwrapped", None)
    if unwrapped is not None and unwrapped is not config:
        return config_of(unwrapped)
    raise ValueError(f"expected a uno_env Config (uno_env.make_config(...)) or an "
                     f"environment, got {type(config).__name__}")


def policy_batch(observations, action_masks, config, input_size: int, num_actions: int):
    """``(obs float32[B, W], mask bool[B, A])`` checked for a policy network that reads
    the first ``input_size`` entries: ``W`` is today's observation or the earlier ids'
    (without ``shown_hand``) when the network does not read the shown hand; a ValueError
    names the shapes expected, or a row with no legal action."""
    obs = np.asarray(observations, np.float32)
    mask = np.asarray(action_masks) != 0
    widths = sorted({w for w in (config.layout.obs_size, legacy_size(config))
                     if w >= input_size})
    if obs.ndim != 2 or obs.shape[1] not in widths or mask.shape != (obs.shape[0], num_actions):
        raise ValueError(f"act_batch takes observations[B, {' or '.join(map(str, widths))}]"
                         f" and masks[B, {num_actions}], got {obs.shape} and {mask.shape}")
    if not mask.any(axis=1).all():
        raise ValueError("no legal action in some row: those episodes are over")
    return obs, mask


def choose_from_logits(logits: np.ndarray, deterministic: bool, rng) -> np.ndarray:
    """One action per row of masked ``logits[B, A]`` (illegal actions at -inf): the best
    (the first of equal maxima) when ``deterministic``, else a draw from the softmax with
    ``rng`` (one uniform per row, so a seeded agent's draws are the same in any tool)."""
    if deterministic:
        return logits.argmax(axis=1)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    c = p.cumsum(axis=1)
    u = rng.random((len(p), 1)) * c[:, -1:]
    return (c < u).sum(axis=1)


class Agent:
    """Base class: ``act(observation, action_mask) -> int`` and ``act_batch``."""

    #: display name, and the ``simulate(agents=...)`` name of the numba twin
    name = "agent"
    kernel = None

    def __init__(self, config=None):
        self.config = config_of(config)

    @classmethod
    def for_env(cls, env, **kwargs):
        """The agent for an environment's configuration (AEC env, ``Game``, vector env)."""
        return cls(config_of(env), **kwargs)

    def act(self, observation, action_mask=None) -> int:
        raise NotImplementedError

    def act_batch(self, observations, action_masks) -> np.ndarray:
        """One action per row of ``observations[B, D]`` and ``action_masks[B, A]``."""
        return np.array([self.act(o, m) for o, m in zip(observations, action_masks)],
                        np.int64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config.preset!r}, {self.config.num_players})"
