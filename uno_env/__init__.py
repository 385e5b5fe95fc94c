"""uno-env: a fast, faithful UNO environment and agent benchmark.

Public API: ``Game`` (scenarios and moves), ``env``/``raw_env`` (PettingZoo AEC),
``presets``, ``make_rules``, ``make_config``. See the README for a tour.
"""
from uno_env.config import Config, make_config
from uno_env.aec import env, raw_env
from uno_env.game import Game
from uno_env.rules import PRESETS, Rules, make_rules, presets

__all__ = ["Config", "Game", "env", "raw_env", "PRESETS", "Rules", "make_config", "make_rules", "presets"]
__version__ = "0.1.0"
