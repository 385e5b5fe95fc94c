"""The agent protocol: an agent is an object with ``act(observation, action_mask=None)
-> int`` and, optionally, ``act_batch(observations, action_masks) -> int64[B]``.

``act`` takes the AEC env's observation dict (``{"observation", "action_mask"}``) or a
vector and its mask; :func:`split_observation` reads either.
"""
from __future__ import annotations


def split_observation(observation, action_mask=None):
    """``(observation vector, action mask)`` from the AEC dict ``{"observation",
    "action_mask"}`` or from a vector plus a mask; a ValueError if there is no mask."""
    if isinstance(observation, dict):
        if action_mask is None:
            action_mask = observation["action_mask"]
        observation = observation["observation"]
    if action_mask is None:
        raise ValueError("act() needs the action mask: pass the AEC observation dict or "
                         "(observation, action_mask)")
    return observation, action_mask


def is_agent(obj) -> bool:
    """Does ``obj`` follow the protocol (a callable ``act``)?"""
    return callable(getattr(obj, "act", None))
