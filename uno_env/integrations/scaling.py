"""Observation scaling shared by the training integrations (SB3, RLlib), torch-free.

``observation_scale`` gives the factor that brings every entry of the observation vector
(``uno_env.engine.observe``) to about unit scale; the policy networks multiply their
input by it, and the exported ``agents.PPOAgent`` stores it with the weights.
"""
from __future__ import annotations

import numpy as np

from uno_env.engine import codes as C
from uno_env.engine.obs_layout import observation_slices

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
    """``observation_scale`` for a ``uno_env.rules.config.Config``, one entry per observation
    entry; ``shown_hand`` is scaled as ``hand``."""
    scale = observation_scale(config.deck.num_types, config.num_players,
                              config.layout.obs_size)
    shown = observation_slices(config.deck.num_types, config.num_players,
                               config.rules).get("shown_hand")
    if shown is not None:
        scale[shown] = 1.0 / _FIELD_SCALE["hand"]
    return scale


def dark_face_table(config):
    """UNO Flip: how the policies read the observation's ``hand_dark`` field, or None for
    single-sided decks.

    ``hand_dark[t]`` holds, for each card type ``t`` held, 1 + the id of the dark face
    that card carries in this match (0 if not held): a category written as a number,
    which a network reading it as a magnitude cannot use (yet on the dark side, every
    play is of a type whose dark face matters). The policies append ``table[hand_dark
    [t]]`` for every type: the dark face's colour and rank as one-hots (a zero row for a
    type not held). Returns ``(slice of hand_dark in the observation, float32[F + 1, E]
    table)``; the features added are ``E`` per type."""
    deck = config.deck
    if not deck.double_sided:
        return None
    where = observation_slices(deck.num_types, config.num_players, config.rules)["hand_dark"]
    dark = np.unique(deck.type_face[:, 1])          # the faces a dark side can show
    ranks = sorted({int(deck.face_rank[f]) for f in dark})
    table = np.zeros((len(deck.face_color) + 1, 4 + len(ranks)), np.float32)
    for f in dark:
        color = int(deck.face_color[f])
        if color != C.NO_COLOR:                   # a wild face has no colour
            table[f + 1, color % 4] = 1.0
        table[f + 1, 4 + ranks.index(int(deck.face_rank[f]))] = 1.0
    return where, table


def dark_face_features(observations: np.ndarray, where: slice,
                       table: np.ndarray) -> np.ndarray:
    """float32[B, K * E]: ``dark_face_table``'s features of observations[B, D]."""
    index = np.clip(observations[:, where].astype(np.int64), 0, len(table) - 1)
    return table[index].reshape(len(observations), -1)
