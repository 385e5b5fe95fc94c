"""The module paths of uno-env 0.1, before the package was laid out by concern: each
still imports, for one minor release, with a ``DeprecationWarning`` that names its new
path (CHANGELOG.md, 0.2.0). ``from uno_env.learner import SingleAgentEnv`` warns and
returns ``uno_env.envs.single_seat.SingleAgentEnv``; names exported by ``uno_env``
itself (``from uno_env import SingleAgentEnv``) never warn.

Each old path is an alias module in ``sys.modules``: the new module is imported only
when a name is first read through the alias.
"""
from __future__ import annotations

import importlib
import sys
import types
import warnings

#: old module path -> new module path (removed in 0.3)
MOVED = {
    "uno_env.cards": "uno_env.rules.cards",
    "uno_env.actions": "uno_env.rules.actions",
    "uno_env.config": "uno_env.rules.config",
    "uno_env.game": "uno_env.envs.game",
    "uno_env.replay_format": "uno_env.envs.replay_format",
    "uno_env.aec": "uno_env.envs.aec",
    "uno_env.learner": "uno_env.envs.single_seat",
    "uno_env.gym_vector": "uno_env.envs.gym_vector",
    "uno_env.vector": "uno_env.envs.every_seat",
    "uno_env.registration": "uno_env.envs.registration",
    "uno_env.sb3": "uno_env.envs.sb3",
    "uno_env.rllib": "uno_env.envs.rllib",
    "uno_env.scaling": "uno_env.envs.scaling",
    "uno_env.agent_registry": "uno_env.envs.agent_registry",
    "uno_env.simulation": "uno_env.evaluation.simulation",
    "uno_env.tournament": "uno_env.evaluation.tournament",
    "uno_env.distributed": "uno_env.evaluation.distributed",
    "uno_env.benchmark": "uno_env.evaluation.benchmark",
    "uno_env.analysis": "uno_env.evaluation.analysis",
    "uno_env.plots": "uno_env.evaluation.plots",
    "uno_env.stats": "uno_env.evaluation.stats",
    "uno_env.cli": "uno_env.apps.cli",
    "uno_env.play": "uno_env.apps.play",
    "uno_env.table": "uno_env.apps.seat_view",
    "uno_env.server": "uno_env.apps.server",
    "uno_env.viewer": "uno_env.apps.viewer",
    "uno_env.replay": "uno_env.apps.replay",
    "uno_env.demo": "uno_env.apps.demo",
    "uno_env.warmup": "uno_env.apps.warmup",
    "uno_env.bench": "uno_env.apps.throughput",
}


#: names that left their 0.1 module for another: old module -> {name: new module}
MOVED_NAMES = {"uno_env.learner": {"evaluate": "uno_env.evaluation.win_rate"}}


class MovedModule(types.ModuleType):
    """An old module path: reading a name warns once per name and returns the new
    module's attribute."""

    def __init__(self, old: str, new: str):
        super().__init__(old, f"Moved to {new} (uno-env 0.2); this path is deprecated.")
        self.__dict__["_new"] = new

    def _target(self, name: str | None = None):
        new = MOVED_NAMES.get(self.__name__, {}).get(name, self.__dict__["_new"])
        return importlib.import_module(new)

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        target = self._target(name)
        warnings.warn(f"{self.__name__} is deprecated: import {name!r} from "
                      f"{target.__name__} (uno-env 0.2 moved it; the old path goes "
                      f"in 0.3)", DeprecationWarning, stacklevel=2)
        return getattr(target, name)

    def __dir__(self):
        return dir(self._target())


def install() -> None:
    """Put an alias in ``sys.modules`` for every old path not imported yet."""
    for old, new in MOVED.items():
        if old not in sys.modules:
            sys.modules[old] = MovedModule(old, new)


def alias(name: str):
    """``uno_env.<name>`` for an old top-level module path (``uno_env.__getattr__``)."""
    module = sys.modules.get(f"uno_env.{name}")
    if isinstance(module, MovedModule):
        return module
    raise AttributeError(f"module 'uno_env' has no attribute {name!r}")
