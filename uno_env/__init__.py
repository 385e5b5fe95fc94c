"""uno-env: a fast, faithful UNO environment and agent benchmark.

Public API: ``Game`` (scenarios and moves), ``env``/``raw_env`` (PettingZoo AEC),
``SingleAgentEnv`` and ``LearnerBatch`` (one learning seat against opponents played
inside numba), ``GymVectorEnv`` (many such games as a
``gymnasium.vector.VectorEnv``, one numba call per step), ``VectorEnv`` (many games,
every seat, one kernel call per step),
``simulate`` (whole games in numba, agents by name; returns a ``SimResult``),
``tournament`` (agents in every seat: leaderboard and ratings), ``presets``,
``make_rules``, ``make_config``. Stable-Baselines3 support is in ``uno_env.sb3`` (the
``rl`` extra). See the README for a tour.

Importing the package registers the environments (``uno_env.registration``):
``gymnasium.make("uno_env/Uno-v1", ...)`` builds ``SingleAgentEnv``,
``gymnasium.make_vec("uno_env/Uno-v1", num_envs=8, ...)`` builds ``GymVectorEnv`` and
``pettingzoo.make("aec", "uno_env/Uno-v0", ...)`` builds ``env``; presets and rule
flags pass as keywords.
"""
from uno_env.config import Config, make_config
from uno_env.aec import env, raw_env
from uno_env.game import Game
from uno_env.gym_vector import GymVectorEnv
from uno_env.learner import LearnerBatch, SingleAgentEnv, evaluate
from uno_env.registration import register_envs
from uno_env.rules import PRESETS, Rules, make_rules, presets
# the function and its result class (the module is ``uno_env.simulation``)
from uno_env.simulation import SimResult, simulate
from uno_env.vector import VectorEnv
# the function, not its module (``uno_env.tournament`` the attribute is the function;
# the module stays importable as ``from uno_env.tournament import ...``)
from uno_env.tournament import tournament

register_envs()

__all__ = ["Config", "Game", "GymVectorEnv", "LearnerBatch", "PRESETS", "Rules",
           "SimResult", "SingleAgentEnv", "VectorEnv", "env", "evaluate", "make_config",
           "make_rules", "presets", "raw_env", "simulate", "tournament"]
__version__ = "0.1.0"
