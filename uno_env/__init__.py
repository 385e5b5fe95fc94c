"""uno-env: a fast, faithful UNO environment and agent benchmark.

Public API: ``Game`` (scenarios and moves), ``env``/``raw_env`` (PettingZoo AEC),
``SingleAgentEnv`` and ``LearnerBatch`` (one learning seat against opponents played
inside numba), ``presets``, ``make_rules``, ``make_config``. Stable-Baselines3 support
is in ``uno_env.sb3`` (the ``rl`` extra). See the README for a tour.
"""
from uno_env.config import Config, make_config
from uno_env.aec import env, raw_env
from uno_env.game import Game
from uno_env.learner import LearnerBatch, SingleAgentEnv, evaluate
from uno_env.rules import PRESETS, Rules, make_rules, presets

__all__ = ["Config", "Game", "LearnerBatch", "PRESETS", "Rules", "SingleAgentEnv", "env",
           "evaluate", "make_config", "make_rules", "presets", "raw_env"]
__version__ = "0.1.0"
