"""UNO agents: the baselines ``RandomAgent``, ``GreedyAgent``, ``HeuristicAgent``,
``MCTSAgent`` (the search agent ``mcts``, attached to the game it plays in), and
``PPOAgent`` (a trained policy network run in numpy; ``agents.train`` trains one with
PPO, ``agents.exit`` with expert iteration on the search's decisions).

    >>> import uno_env, agents
    >>> cfg = uno_env.make_config("classic", 4)
    >>> agent = agents.make_agent("heuristic", cfg)
    >>> env = uno_env.env("classic", 4); env.reset(seed=0)
    >>> obs, *_ = env.last(); action = agent.act(obs)

The greedy and heuristic agents call the numba policy kernels of
``uno_env.engine.policies`` that ``uno_env.evaluation.simulation.simulate`` runs, so an agent here and
``simulate(agents=(agent.kernel, ...))`` play identically.

==================  ==============================================================
module              holds
==================  ==============================================================
``base``            ``Agent``, the base class, and ``config_of``
``baselines``       ``random``, ``greedy``, ``heuristic`` and ``make_agent``
``search``          ``MCTSAgent``: the ``mcts`` search attached to a ``Game``
``search_values``   the flat search's value of every legal move
``ppo``             ``PPOAgent``: a policy network run in numpy (the shipped models)
``belief``          ``BeliefModel``: a learned belief over the hidden hands (numpy)
``train``           PPO training with MaskablePPO (the ``rl`` extra)
``exit``            expert iteration: the search's decisions as a network's targets
``onnx_export``     a ``PPOAgent``'s policy written as an ONNX graph (the ``onnx`` extra)
``onnx_policy``     an ONNX policy file played as an agent, ``onnx:PATH`` (onnxruntime)
==================  ==============================================================
"""
from .baselines import (AGENTS, Agent, GreedyAgent, HeuristicAgent, RandomAgent,
                        make_agent)
from .belief import BeliefModel
from .ppo import PPOAgent, shipped_models
from .search import MCTSAgent

__all__ = ["AGENTS", "Agent", "BeliefModel", "GreedyAgent", "HeuristicAgent", "MCTSAgent",
           "PPOAgent", "RandomAgent", "make_agent", "shipped_models"]


def _load_model(spec, config, seed=None):
    agent = PPOAgent.load(spec, name=spec.rsplit("/", 1)[-1].removesuffix(".npz"))
    if config is not None:
        agent.check_config(config)
    return agent


def _load_onnx(spec, config, seed=None):
    """``onnx:PATH``: an exported policy played through onnxruntime (the onnx extra)."""
    from .onnx_policy import OnnxAgent
    agent = OnnxAgent(spec.removeprefix("onnx:"), seed=seed)
    if config is not None:
        agent.check_config(config)
    return agent


def register() -> None:
    """Make this package's agents known to ``uno_env`` by name (the entry point of the
    ``uno_env.agents`` group, ``uno_env.players.registry``): the baselines, every shipped
    model, ``.npz`` model files, ``onnx:PATH`` exported policies, and the trained-policy
    constructor."""
    from uno_env.players import registry
    for name in AGENTS:
        registry.register_agent(name, lambda config, seed=None, _n=name:
                                make_agent(_n, config, seed=seed))
    for name in shipped_models():
        registry.register_agent(name, lambda config, seed=None, _n=name:
                                _load_model(_n, config, seed), configured=True)
    registry.register_agent("mcts", lambda config, seed=None:
                            make_agent("mcts", config, seed=seed))
    registry.register_resolver(lambda spec: (
        (lambda config, seed=None: _load_model(spec, config, seed))
        if spec.endswith(".npz") else None))
    registry.register_resolver(lambda spec: (
        (lambda config, seed=None: make_agent(spec, config, seed=seed))
        if spec.startswith("mcts") else None))
    registry.register_resolver(lambda spec: (
        (lambda config, seed=None: _load_onnx(spec, config, seed))
        if spec.startswith("onnx:") else None), configured=True)
    registry.register_policy(PPOAgent)
    registry.register_trainer("ppo", _train_ppo)
    registry.register_trainer("exit", _train_exit)


def _train_ppo(**options):
    """``uno-bench train``'s job: ``agents.train.train`` (imported when it runs: it needs
    torch and the ``rl`` extra)."""
    from .train import train
    return train(**options)


def _train_exit(**options):
    """``uno-bench exit``'s job: ``agents.exit.exit_train`` (expert iteration; imported
    when it runs: it needs torch)."""
    from .exit import exit_train
    return exit_train(**options)
