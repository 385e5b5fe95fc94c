"""The environments in Gymnasium's and PettingZoo's registries (``import uno_env`` runs
:func:`register_envs`). One id names one environment, in one registry:

===========================  ========================================================
``gymnasium.make`` id        ``uno_env/UnoSingleSeat-v3``:
                             :class:`uno_env.envs.single_seat.SingleAgentEnv`, one
                             learning seat against opponents played in numba
``gymnasium.make_vec`` id    the same id: :class:`uno_env.envs.gym_vector.GymVectorEnv`
                             (``vector_entry_point``), ``num_envs`` such games
``pettingzoo.make`` id       ``uno_env/UnoAEC-v1`` (``env_type="aec"``):
                             :func:`uno_env.env`, every seat an agent
===========================  ========================================================

The version in an id is the environment's own (the Version History of
:mod:`uno_env.envs.aec` and :mod:`uno_env.envs.single_seat`; CHANGELOG.md). Presets,
rule flags and every other constructor argument pass as keywords::

    gymnasium.make("uno_env/UnoSingleSeat-v3", preset="flip", num_players=3,
                   opponents="heuristic")
    pettingzoo.make("aec", "uno_env/UnoAEC-v1", preset="street", num_players=4,
                    stack="same")

``gymnasium.make_vec("uno_env/UnoSingleSeat-v3", num_envs=8)`` builds
:class:`uno_env.envs.gym_vector.GymVectorEnv`, the id's ``vector_entry_point``: all games in
one numba call per step (same-step autoreset), the keywords as for ``gymnasium.make``.
``vectorization_mode="sync"`` (or ``"async"``) gives Gymnasium's own vector env of
single envs instead (next-step autoreset, one Python call per game): the step after a
game ends is ignored, and the ended game's mask marks every action so that a masked
sampler still returns one (``SingleAgentEnv`` since v2); ``vector_kwargs={"autoreset_mode":
gymnasium.vector.AutoresetMode.SAME_STEP}`` makes them reset as the default does.
docs/environments.md has a loop that runs in all three modes.

The observation gained ``shown_hand`` and ``shown_by`` (the hand a challenge showed the
observer, ``uno_env.engine.observe``; appended after every other field), so the ids went
from ``UnoSingleSeat-v2`` to ``-v3`` and from ``UnoAEC-v0`` to ``-v1``. The earlier ids
still make their environment, with a ``DeprecationWarning`` naming the current id, until
0.3: the same games, with their own observation (the vector before ``shown_hand``, a
prefix of today's; :mod:`uno_env.envs.legacy`). That holds for ``make`` and
``make_vec`` of ``uno_env/UnoSingleSeat-v2`` and for ``pettingzoo.make`` of
``uno_env/UnoAEC-v0``.

The ids of uno-env 0.1 named two environments: ``uno_env/Uno-v0`` was the AEC env in
PettingZoo and a single-seat env in Gymnasium. In PettingZoo it still builds the AEC env
v0 (as ``uno_env/UnoAEC-v0`` does) with a ``DeprecationWarning``; Gymnasium's
``uno_env/Uno-v0`` and ``uno_env/Uno-v1`` raise an error naming ``uno_env/UnoSingleSeat-v3``
(the env changed in v2: a finished game's mask, and in v3: the observation;
CHANGELOG.md).

PettingZoo's registry (``pettingzoo.register``/``pettingzoo.make``) is new in PettingZoo
1.27; with an older PettingZoo only the Gymnasium id is registered and ``uno_env.env``
is the way in.
"""
from __future__ import annotations

import warnings

#: the single-seat env (``SingleAgentEnv`` and, vectorised, ``GymVectorEnv``)
SINGLE_SEAT_ID = "uno_env/UnoSingleSeat-v3"
#: the AEC env (``uno_env.env``)
AEC_ID = "uno_env/UnoAEC-v1"
#: Gymnasium ids -> constructor defaults that differ from ``SingleAgentEnv``'s
GYMNASIUM_IDS = {SINGLE_SEAT_ID: {}}
#: PettingZoo (AEC) ids
PETTINGZOO_AEC_IDS = (AEC_ID,)
#: uno-env 0.1's Gymnasium ids: making one raises an error naming the current id
RETIRED_GYMNASIUM_IDS = ("uno_env/Uno-v1", "uno_env/Uno-v0")
#: the single-seat id before ``shown_hand``: its env (``uno_env.envs.legacy``), with a
#: warning naming the current id
DEPRECATED_GYMNASIUM_IDS = {"uno_env/UnoSingleSeat-v2": SINGLE_SEAT_ID}
#: the AEC ids before ``shown_hand`` (0.1's ``uno_env/Uno-v0`` among them): the AEC env
#: v0 (``uno_env.envs.legacy``), with a warning naming the current id
DEPRECATED_AEC_IDS = {"uno_env/Uno-v0": AEC_ID, "uno_env/UnoAEC-v0": AEC_ID}
#: what the current ids changed (the deprecation warning says it)
_CHANGE = "v3 and UnoAEC-v1 add the observation fields shown_hand and shown_by"


def _retired(env_id: str):
    def make(*args, **kwargs):
        raise ValueError(
            f"{env_id!r} is an id of uno-env 0.1, retired in 0.2 (it named a different "
            f"environment in PettingZoo). The single-seat env is {SINGLE_SEAT_ID!r} "
            f"(gymnasium.make / make_vec; v2 changed the mask a finished game reports "
            f"and v3 added the observation fields shown_hand and shown_by: "
            f"CHANGELOG.md; 0.1's Uno-v0 defaulted to num_players=2: pass it); "
            f"the AEC env is {AEC_ID!r} (pettingzoo.make('aec', ...)).")
    return make


def _warn(env_id: str, new_id: str) -> None:
    warnings.warn(f"{env_id!r} is deprecated: use {new_id!r} (the same games; {_CHANGE}, "
                  f"after every other field, so this id's observation is the first "
                  f"entries of the new one: CHANGELOG.md). {env_id!r} keeps its own "
                  f"observation until it goes in 0.3", DeprecationWarning, stacklevel=4)


def _deprecated_gymnasium(env_id: str, vector: bool = False):
    def make(*args, **kwargs):
        from uno_env.envs import legacy
        _warn(env_id, DEPRECATED_GYMNASIUM_IDS[env_id])
        cls = legacy.LegacyGymVectorEnv if vector else legacy.LegacySingleAgentEnv
        return cls(*args, **kwargs)
    return make


def _deprecated_aec(env_id: str):
    def make(**kwargs):
        from uno_env.envs import legacy
        _warn(env_id, DEPRECATED_AEC_IDS[env_id])
        return legacy.legacy_raw_env(**kwargs)
    return make


def register_envs() -> None:
    """Register every id above that is not registered yet (so a re-import or a second
    call does not warn about overriding)."""
    import gymnasium

    for env_id, kwargs in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id,
                               entry_point="uno_env.envs.single_seat:SingleAgentEnv",
                               vector_entry_point="uno_env.envs.gym_vector:GymVectorEnv",
                               kwargs=dict(kwargs))
    for env_id in DEPRECATED_GYMNASIUM_IDS:
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=_deprecated_gymnasium(env_id),
                               vector_entry_point=_deprecated_gymnasium(env_id, True))
    for env_id in RETIRED_GYMNASIUM_IDS:
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=_retired(env_id),
                               vector_entry_point=_retired(env_id))
    import pettingzoo
    register = getattr(pettingzoo, "register", None)
    if register is None:  # PettingZoo < 1.27 has no registry
        return
    for env_id in PETTINGZOO_AEC_IDS:
        if env_id not in pettingzoo.aec_registry:
            register("aec", env_id, entry_point="uno_env.envs.aec:env")
    for env_id in DEPRECATED_AEC_IDS:
        if env_id not in pettingzoo.aec_registry:
            register("aec", env_id, entry_point=_deprecated_aec(env_id))
