"""uno-env: a fast, faithful UNO environment and agent benchmark.

Public API: ``Game`` (scenarios and moves), ``env``/``raw_env`` (PettingZoo AEC),
``SingleAgentEnv`` and ``LearnerBatch`` (one learning seat against opponents played
inside numba), ``GymVectorEnv`` (many such games as a
``gymnasium.vector.VectorEnv``, one numba call per step), ``EverySeatBatch`` (many games,
every seat, one kernel call per step),
``simulate`` (whole games in numba, agents by name; returns a ``SimResult``),
``tournament`` (agents in every seat: leaderboard and ratings), ``presets``,
``make_rules``, ``make_config``. Stable-Baselines3 support is in ``uno_env.envs.sb3``
(the ``rl`` extra). docs/architecture.md maps the packages:

- ``uno_env.engine``: the numba kernels (and how they compile);
- ``uno_env.rules``: the rules model (rules, presets, decks, actions, configurations);
- ``uno_env.envs``: the environments and the integrations (Gymnasium, PettingZoo, SB3,
  RLlib);
- ``uno_env.evaluation``: simulate, tournaments, the benchmark, statistics, plots;
- ``uno_env.apps``: the ``uno-bench`` command line, terminal play, the browser server,
  replays.

Importing the package registers the environments (``uno_env.envs.registration``).
"""
from uno_env import _moved
from uno_env.version import __version__
from uno_env.envs.aec import env, raw_env
from uno_env.envs.every_seat import EverySeatBatch
from uno_env.envs.game import Game
from uno_env.envs.gym_vector import GymVectorEnv
from uno_env.envs.registration import register_envs
from uno_env.envs.single_seat import LearnerBatch, SingleAgentEnv
# the function and its result class (the module is ``uno_env.evaluation.simulation``)
from uno_env.evaluation.simulation import SimResult, simulate
from uno_env.evaluation.tournament import tournament
from uno_env.evaluation.win_rate import evaluate
from uno_env.rules import PRESETS, Rules, make_rules, presets
from uno_env.rules.config import Config, make_config

register_envs()
_moved.install()


def __getattr__(name: str):
    if name == "VectorEnv":  # the every-seat batch's 0.1 name (uno_env.envs.every_seat)
        from uno_env.envs import every_seat
        return every_seat.__getattr__(name)
    # the 0.1 module paths (uno_env.learner, uno_env.cards, ...): uno_env._moved
    return _moved.alias(name)


__all__ = ["Config", "EverySeatBatch", "Game", "GymVectorEnv", "LearnerBatch", "PRESETS",
           "Rules", "SimResult", "SingleAgentEnv", "env", "evaluate", "make_config",
           "make_rules", "presets", "raw_env", "simulate", "tournament"]
