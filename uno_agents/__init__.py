"""The agents shipped with uno-env, under a name that no folder of yours can shadow.

    from uno_agents import PPOAgent, GreedyAgent, make_agent, shipped_models

The shipped agents live in the top-level package ``agents`` (beside ``uno_env`` and above
it: docs/architecture.md). ``agents`` is also what many RL projects call a folder of
their own, and Python finds the current directory (a script's folder) first: with such a
folder there, ``import agents`` imports that one. ``uno_agents`` finds the shipped
package by its place beside this file instead, from any directory:

* when ``import agents`` would find the shipped package (no folder of yours in the
  way), ``uno_agents`` hands out that package's own objects
  (``uno_agents.PPOAgent is agents.PPOAgent``);
* when another ``agents`` takes the name, the shipped package is loaded from its
  folder as ``uno_agents.shipped`` (its modules import each other relatively, so none
  of them reaches your ``agents``), and your ``agents`` stays yours.

Either way ``uno_agents.shipped`` is the package that answers, and the ``uno_env.agents``
entry point (``pyproject.toml``: ``uno_agents:register``) registers its agents with
``uno_env`` by name, so ``uno-bench`` and ``uno_env.evaluate(..., opponents="greedy")``
work from such a directory too. Only the package's public names are here (those of
``agents.__all__``, and ``register``); its modules are attributes of
``uno_agents.shipped`` once imported (``uno_agents.shipped.ppo``).
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

#: the folder of the shipped ``agents`` package (beside this package, in a checkout and
#: in an installed wheel alike)
FOLDER = Path(__file__).resolve().parent.parent / "agents"


def _is_shipped(origin) -> bool:
    return origin is not None and Path(origin).resolve() == FOLDER / "__init__.py"


def _load():
    """The shipped ``agents`` package: the one ``import agents`` finds, if that is it;
    else loaded from ``FOLDER`` under this package's name (``uno_agents.shipped``)."""
    if not (FOLDER / "__init__.py").is_file():
        raise ImportError(f"uno_agents: the shipped agents package is not at {FOLDER} "
                          "(reinstall uno-env: pip install -e . in a checkout)")
    # find_spec looks at sys.modules first, then the path, without running anything
    try:
        found = importlib.util.find_spec("agents")
    except ValueError:          # an "agents" in sys.modules without a spec: not ours
        found = None
    if found is not None and _is_shipped(found.origin):
        return importlib.import_module("agents")
    name = f"{__name__}.shipped"
    spec = importlib.util.spec_from_file_location(
        name, FOLDER / "__init__.py", submodule_search_locations=[str(FOLDER)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


#: the shipped ``agents`` package (the same module as ``agents`` when that name finds it)
shipped = _load()
register = shipped.register
__all__ = [*shipped.__all__, "register", "shipped"]
globals().update({name: getattr(shipped, name) for name in shipped.__all__})
