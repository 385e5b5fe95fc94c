"""uno-env: a fast, faithful UNO environment and agent benchmark.

Public API: ``Game`` (scenarios and moves), ``env``/``raw_env`` (PettingZoo AEC),
``SingleAgentEnv`` and ``LearnerBatch`` (one learning seat against opponents played
inside numba), ``GymVectorEnv`` (many such games as a
``gymnasium.vector.VectorEnv``, one numba call per step), ``EverySeatBatch`` (many games,
every seat, one kernel call per step),
``simulate`` (whole games in numba, agents by name; returns a ``SimResult``),
``tournament`` (agents in every seat: leaderboard and ratings), ``presets``,
``make_rules``, ``make_config``. Stable-Baselines3 support is in ``uno_env.integrations.sb3``
(the ``rl`` extra). docs/architecture.md maps the packages, lowest first:

- ``uno_env.engine``: the numba kernels (and how they compile);
- ``uno_env.rules``: the rules model (rules, presets, decks, actions, configurations);
- ``uno_env.envs``: the environments (``Game``, Gymnasium, PettingZoo);
- ``uno_env.players``: agents by name, the agent protocol, position agents;
- ``uno_env.evaluation``: simulate, tournaments, the benchmark, statistics, plots;
- ``uno_env.integrations``: other frameworks (SB3, RLlib, OpenSpiel) and their jobs;
- ``uno_env.apps``: the ``uno-bench`` command line, terminal play, the browser server,
  replays.

Importing the package registers the environments (``uno_env.envs.registration``); each
public name is imported when first used, so ``import uno_env`` loads no kernel.
"""
import importlib

from uno_env import _moved
from uno_env.version import __version__
from uno_env.envs.registration import register_envs

#: the public names, each read from its module when first asked for: ``import uno_env``
#: (and so ``import uno_env.rules``) loads no kernel until a name that needs one is used
_PUBLIC = {
    "env": "uno_env.envs.aec", "raw_env": "uno_env.envs.aec",
    "EverySeatBatch": "uno_env.envs.every_seat", "Game": "uno_env.envs.game",
    "GymVectorEnv": "uno_env.envs.gym_vector", "LearnerBatch": "uno_env.envs.single_seat",
    "SingleAgentEnv": "uno_env.envs.single_seat",
    # the function and its result class (the module is ``uno_env.evaluation.simulation``)
    "SimResult": "uno_env.evaluation.simulation", "simulate": "uno_env.evaluation.simulation",
    "tournament": "uno_env.evaluation.tournament", "evaluate": "uno_env.evaluation.win_rate",
    "PRESETS": "uno_env.rules", "Rules": "uno_env.rules", "make_rules": "uno_env.rules",
    "presets": "uno_env.rules", "Config": "uno_env.rules.config",
    "make_config": "uno_env.rules.config",
}
#: the packages and modules under ``uno_env``, importable as attributes (``uno_env.envs``)
_SUBMODULES = ("engine", "rules", "envs", "players", "evaluation", "integrations", "apps",
               "testing")

register_envs()
_moved.install()


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"uno_env.{name}")
    if name == "VectorEnv":  # the every-seat batch's 0.1 name (uno_env.envs.every_seat)
        from uno_env.envs import every_seat
        return every_seat.__getattr__(name)
    # the 0.1 module paths (uno_env.learner, uno_env.cards, ...): uno_env._moved
    return _moved.alias(name)


def __dir__():
    return sorted({*globals(), *_PUBLIC, *_SUBMODULES})


__all__ = ["Config", "EverySeatBatch", "Game", "GymVectorEnv", "LearnerBatch", "PRESETS",
           "Rules", "SimResult", "SingleAgentEnv", "env", "evaluate", "make_config",
           "make_rules", "presets", "raw_env", "simulate", "tournament"]
