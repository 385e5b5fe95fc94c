"""The environments in Gymnasium's and PettingZoo's registries (``import uno_env`` runs
:func:`register_envs`).

==========================  =========================================================
``gymnasium.make`` id       ``uno_env/Uno-v1``: :class:`uno_env.envs.single_seat.SingleAgentEnv`,
                            one learning seat against opponents played in numba
                            (``uno_env/Uno-v0``: the same env with v0's default of 2
                            players, for results reported against v0)
``gymnasium.make_vec`` id   the same ids: :class:`uno_env.envs.gym_vector.GymVectorEnv`
                            (``vector_entry_point``), ``num_envs`` such games
``pettingzoo.make`` id      ``uno_env/Uno-v0`` (``env_type="aec"``): :func:`uno_env.env`,
                            every seat an agent
==========================  =========================================================

The version in an id is the environment's own (the Version History of
:mod:`uno_env.envs.aec` and :mod:`uno_env.envs.single_seat`; CHANGELOG.md): the two ids above share a
name but are different environments in different registries. Presets, rule flags and
every other constructor argument pass as keywords::

    gymnasium.make("uno_env/Uno-v1", preset="flip", num_players=3, opponents="heuristic")
    pettingzoo.make("aec", "uno_env/Uno-v0", preset="street", num_players=4, stack="same")

``gymnasium.make_vec("uno_env/Uno-v1", num_envs=8)`` builds
:class:`uno_env.envs.gym_vector.GymVectorEnv`, the id's ``vector_entry_point``: all games in
one numba call per step (same-step autoreset), the keywords as for ``gymnasium.make``.
``vectorization_mode="sync"`` (or ``"async"``) gives Gymnasium's own vector env of
single envs instead (next-step autoreset, one Python call per game): the step after a
game ends is ignored, and the ended game's mask marks every action so that a masked
sampler still returns one (``SingleAgentEnv`` v2); ``vector_kwargs={"autoreset_mode":
gymnasium.vector.AutoresetMode.SAME_STEP}`` makes them reset as the default does.
docs/environments.md has a loop that runs in all three modes.

PettingZoo's registry (``pettingzoo.register``/``pettingzoo.make``) is new in PettingZoo
1.27; with an older PettingZoo only the Gymnasium id is registered and ``uno_env.env``
is the way in.
"""
from __future__ import annotations

#: Gymnasium ids -> constructor defaults that differ from ``SingleAgentEnv``'s
GYMNASIUM_IDS = {"uno_env/Uno-v1": {}, "uno_env/Uno-v0": {"num_players": 2}}
#: PettingZoo (AEC) ids
PETTINGZOO_AEC_IDS = ("uno_env/Uno-v0",)


def register_envs() -> None:
    """Register every id above that is not registered yet (so a re-import or a second
    call does not warn about overriding)."""
    import gymnasium

    for env_id, kwargs in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="uno_env.envs.single_seat:SingleAgentEnv",
                               vector_entry_point="uno_env.envs.gym_vector:GymVectorEnv",
                               kwargs=dict(kwargs))
    import pettingzoo
    register = getattr(pettingzoo, "register", None)
    if register is None:  # PettingZoo < 1.27 has no registry
        return
    for env_id in PETTINGZOO_AEC_IDS:
        if env_id not in pettingzoo.aec_registry:
            register("aec", env_id, entry_point="uno_env.envs.aec:env")
