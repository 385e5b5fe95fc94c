"""Agents by name, without ``uno_env`` depending on any agent's code.

``uno_env`` defines the agent protocol (an object with ``act(observation,
action_mask=None) -> int`` and, optionally, ``act_batch(observations, masks)``) and this
registry; packages that provide agents register them. The ``agents`` package of this
project does so through the entry-point group ``uno_env.agents`` (``pyproject.toml``),
so ``uno-bench tournament --agents heuristic,ppo_classic_2p`` finds its agents while the
imports still point one way (``agents`` -> ``uno_env``). A plug-in of your own::

    # pyproject.toml of your package
    [project.entry-points."uno_env.agents"]
    mine = "my_package:register"

    # my_package/__init__.py
    def register():
        from uno_env.players.registry import register_agent
        register_agent("mine", lambda config, seed=None: MyAgent(config))
"""
from __future__ import annotations

import threading
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Callable

from uno_env.players.policy_file import POLICY_FORMAT  # noqa: F401  (0.2's place of it)

#: name -> factory(config, seed=None) -> agent
_FACTORIES: dict[str, Callable] = {}
#: names of agents that carry their own configuration (trained models)
_CONFIGURED: set[str] = set()
#: functions(spec) -> factory or None, asked for names no factory has (e.g. a file path)
_RESOLVERS: list[Callable] = []
#: the resolvers whose agents carry their own configuration (``onnx:PATH``)
_CONFIGURED_RESOLVERS: list[Callable] = []
#: the trained-policy constructor (``agents.PPOAgent``), for exporters such as RLlib's
_POLICY: dict[str, Callable] = {}
#: name -> training job (``uno-bench train`` runs one by name)
_TRAINERS: dict[str, Callable] = {}
_loaded = False
_LOADING = threading.RLock()  # re-entrant: a plug-in may ask the registry

#: the entry-point group of the plug-ins that register agents
GROUP = "uno_env.agents"
#: uno_env's own plug-ins, loaded as the installed ones are (by their ``module:function``
#: name, so that this module imports none of them, and they work from a source tree
#: without reinstalling): OpenSpiel's IS-MCTS and CFR agents (they import pyspiel only
#: when made: the ``openspiel`` extra)
BUILT_IN = (EntryPoint("openspiel", "uno_env.integrations.openspiel.agents:register", GROUP),)



def register_agent(name: str, factory: Callable, configured: bool = False) -> None:
    """Make ``name`` an agent: ``factory(config, seed=None)`` returns a new one.
    ``configured``: the agent carries its own configuration (a trained model), so
    ``config`` may be None."""
    _FACTORIES[name] = factory
    if configured:
        _CONFIGURED.add(name)


def is_configured(spec: str) -> bool:
    """Does this agent carry its own configuration (a trained model or a model file)?"""
    _load_plugins()
    return spec in _CONFIGURED or spec.endswith(".npz") or \
        any(r(spec) is not None for r in _CONFIGURED_RESOLVERS)


def register_resolver(resolver: Callable, configured: bool = False) -> None:
    """``resolver(spec)`` returns a factory for agent specs that are not names (a file
    path, say), or None; ``configured``: its agents carry their own configuration."""
    _RESOLVERS.append(resolver)
    if configured:
        _CONFIGURED_RESOLVERS.append(resolver)


def register_policy(constructor: Callable) -> None:
    """The constructor of trained policy networks: ``constructor(layers, scale, record,
    name=...)`` (``agents.PPOAgent``)."""
    _POLICY["constructor"] = constructor


def register_trainer(name: str, job: Callable) -> None:
    """Make ``job(**options)`` the training job ``name`` (``uno-bench train`` calls
    ``trainer("ppo")``; the ``agents`` package registers it). The job imports what it
    needs when it runs, so registering costs nothing; a missing extra is an ImportError
    whose message says what to install."""
    _TRAINERS[name] = job


def trainer(name: str) -> Callable:
    """The registered training job ``name``; ValueError naming the registered ones."""
    _load_plugins()
    if name not in _TRAINERS:
        names = ", ".join(_TRAINERS) or "none (is the agents package installed?)"
        raise ValueError(f"no training job {name!r}: registered: {names}")
    return _TRAINERS[name]


def _load_plugins() -> None:
    """Load the ``uno_env.agents`` entry points once. Threads asking at once (the
    server makes games in worker threads) wait for the one loading: none sees a
    half-filled registry."""
    global _loaded
    if _loaded:
        return
    with _LOADING:
        if _loaded:
            return
        for point in (*BUILT_IN, *entry_points(group=GROUP)):
            point.load()()
        _loaded = True


#: spec prefixes (before ``:``) of position agents: agents that play the ``Game`` they
#: are attached to (``attach``, ``act_game``, ``share_stream``, ``observe_move``), which
#: ``tournament`` and ``benchmark`` run game by game
_POSITION: set[str] = set()


def register_position_agents(prefixes, resolver: Callable) -> None:
    """Specs ``prefix`` or ``prefix:arg`` name position agents; ``resolver(spec)``
    returns the factory of one (or None)."""
    _POSITION.update(prefixes)
    register_resolver(resolver)


def is_position_agent(spec) -> bool:
    """Is ``spec`` the name of a position agent (``openspiel-ismcts:200``, ``cfr:...``)?"""
    _load_plugins()
    return isinstance(spec, str) and spec.partition(":")[0] in _POSITION


def agent_names() -> list[str]:
    """Every registered agent name (the baselines, shipped models, plug-ins)."""
    _load_plugins()
    return list(_FACTORIES)


def make_agent(spec: str, config, seed=None):
    """A new agent for ``config`` from a registered name or a spec a resolver knows (a
    ``.npz`` model file); an object that has ``act`` is returned as it is."""
    if not isinstance(spec, str):
        if callable(getattr(spec, "act", None)):
            return spec
        raise ValueError(f"an agent is a name or an object with act(obs, mask), got "
                         f"{type(spec).__name__}")
    _load_plugins()
    factory = _FACTORIES.get(spec)
    for resolver in _RESOLVERS:
        if factory is not None:
            break
        factory = resolver(spec)
    if factory is None:
        names = ", ".join(_FACTORIES) or "none (is the agents package installed?)"
        raise ValueError(f"unknown agent {spec!r}: use one of {names}, or a .npz model "
                         f"file")
    return factory(config, seed=seed)


def policy_agent(layers, scale, record: dict, name: str):
    """A trained-policy agent built from network weights (for exporters)."""
    _load_plugins()
    if "constructor" not in _POLICY:
        raise ValueError("no policy constructor is registered: install the agents "
                         "package (pip install -e .)")
    return _POLICY["constructor"](layers, scale, record, name=name)


def model_name(spec: str) -> str:
    """A readable name for a model file or a shipped model's name."""
    return Path(spec).name.removesuffix(".npz")
