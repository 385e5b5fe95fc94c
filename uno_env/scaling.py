"""Observation scaling shared by the training integrations (SB3, RLlib), torch-free.

``observation_scale`` gives the factor that brings every entry of the observation vector
(``uno_env.engine.observe``) to about unit scale; the policy networks multiply their
input by it, and the exported ``agents.PPOAgent`` stores it with the weights.
"""
from __future__ import annotations

import numpy as np

from uno_env.engine.observe import observation_slices

#: divisor per observation field (the rest are one-hot or 0/1 flags)
_FIELD_SCALE = {"hand": 2.0, "played": 4.0, "pending_draw": 4.0, "opponent_cards": 7.0,
                "draw_pile": 50.0, "scores": 100.0}


def observation_scale(num_types: int, num_players: int,
                      size: int | None = None) -> np.ndarray:
    """float32[D]: the factor that brings each observation entry to about unit scale.
    ``size`` (the configuration's ``layout.obs_size``) extends it with 1.0 over fields
    appended after the classic ones (house-rule flags)."""
    slices = observation_slices(num_types, num_players)
    scale = np.ones(max(s.stop for s in slices.values()), np.float32)
    for name, div in _FIELD_SCALE.items():
        scale[slices[name]] = 1.0 / div
    if size is not None and size > len(scale):
        scale = np.concatenate([scale, np.ones(size - len(scale), np.float32)])
    return scale


def config_scale(config) -> np.ndarray:
    """``observation_scale`` for a ``uno_env.config.Config``, one entry per observation
    entry."""
    return observation_scale(config.deck.num_types, config.num_players,
                             config.layout.obs_size)
