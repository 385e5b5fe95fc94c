"""Module paths that moved: each still imports, for one minor release, with a
``DeprecationWarning`` that names its new path. Names exported by ``uno_env`` itself
(``from uno_env import SingleAgentEnv``) never warn.

* The paths of uno-env 0.1, before the package was laid out by concern (``MOVED``,
  CHANGELOG.md, 0.2.0): ``from uno_env.learner import SingleAgentEnv`` warns and returns
  ``uno_env.envs.single_seat.SingleAgentEnv``. Each is an alias module in
  ``sys.modules``: the new module is imported only when a name is first read through it.
* The paths of 0.2 that left ``uno_env.envs`` and ``uno_env.apps`` for the integrations
  and players packages (``MOVED_MODULES``, CHANGELOG.md): importing one warns and
  imports the new module under the old name too, so that what an import does still
  happens (``import uno_env.envs.openspiel`` registers ``python_uno`` with pyspiel).
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
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
    "uno_env.sb3": "uno_env.integrations.sb3",
    "uno_env.rllib": "uno_env.integrations.rllib",
    "uno_env.scaling": "uno_env.integrations.scaling",
    "uno_env.agent_registry": "uno_env.players.registry",
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


#: module paths of 0.2 -> their new paths: imported eagerly (module docstring)
MOVED_MODULES = {
    "uno_env.envs.sb3": "uno_env.integrations.sb3",
    "uno_env.envs.rllib": "uno_env.integrations.rllib",
    "uno_env.envs.scaling": "uno_env.integrations.scaling",
    "uno_env.envs.ray_runtime": "uno_env.evaluation.ray_runtime",
    "uno_env.apps.train_rllib": "uno_env.integrations.train_rllib",
    "uno_env.envs.openspiel": "uno_env.integrations.openspiel.game",
    "uno_env.envs.explicit_chance": "uno_env.integrations.openspiel.explicit_chance",
    "uno_env.envs.openspiel_tree": "uno_env.integrations.openspiel.tree",
    "uno_env.envs.openspiel_agents": "uno_env.integrations.openspiel.agents",
    "uno_env.envs.agent_registry": "uno_env.players.registry",
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


class _MovedLoader(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the paths of ``MOVED_MODULES``: the module made for one is the new module
    itself, imported when the old path is (``import uno_env.envs.sb3`` is
    ``uno_env.integrations.sb3``, with a warning naming it)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        new = MOVED_MODULES[spec.name]
        warnings.warn(f"{spec.name} is deprecated: import {new} (the module moved "
                      f"there; the old path goes in a later minor release)", DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module):
        pass   # the new module ran when it was imported


def install() -> None:
    """Put an alias in ``sys.modules`` for every 0.1 path not imported yet, and the finder
    of the 0.2 paths on ``sys.meta_path``."""
    for old, new in MOVED.items():
        if old not in sys.modules:
            sys.modules[old] = MovedModule(old, new)
    if not any(isinstance(f, _MovedLoader) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedLoader())


def alias(name: str):
    """``uno_env.<name>`` for an old top-level module path (``uno_env.__getattr__``)."""
    module = sys.modules.get(f"uno_env.{name}")
    if isinstance(module, MovedModule):
        return module
    raise AttributeError(f"module 'uno_env' has no attribute {name!r}")
