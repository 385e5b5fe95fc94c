"""The rules model: what a game of UNO is, before any kernel runs (pure Python and numpy).

==============  ==================================================================
module          holds
==============  ==================================================================
``ruleset``     the ``Rules`` record, the named presets, validation and compilation
                to the ``int32`` array the kernels read
``cards``       the decks (card faces, types and copies)
``actions``     the action ids of a configuration (the layout)
``config``      one configuration, (preset, rules, players), and the read-only
                tables (``Spec``) its kernels take
==============  ==================================================================

The names of :mod:`~uno_env.rules.ruleset` are importable from here:
``from uno_env.rules import Rules, PRESETS, make_rules``.
"""
from uno_env.rules.ruleset import (DECKS_WITH_WS_WX, DOUBLE_SIDED_DECKS, MAX_PLAYERS,
                                   MIN_PLAYERS, ONEPIECE_UNSUPPORTED, PRESETS, Rules,
                                   check_num_players, check_seat, check_seed, make_rules,
                                   presets, rule_names)

__all__ = ["DECKS_WITH_WS_WX", "DOUBLE_SIDED_DECKS", "MAX_PLAYERS", "MIN_PLAYERS",
           "ONEPIECE_UNSUPPORTED", "PRESETS", "Rules", "check_num_players", "check_seat",
           "check_seed", "make_rules", "presets", "rule_names"]
