"""UNO agents: the baselines ``RandomAgent``, ``GreedyAgent``, ``HeuristicAgent``, and
``PPOAgent`` (a trained policy network run in numpy; ``agents.train`` trains one).

    >>> import uno_env, agents
    >>> cfg = uno_env.make_config("classic", 4)
    >>> agent = agents.make_agent("heuristic", cfg)
    >>> env = uno_env.env("classic", 4); env.reset(seed=0)
    >>> obs, *_ = env.last(); action = agent.act(obs)

The greedy and heuristic agents call the numba policy kernels of
``uno_env.engine.policies`` that ``uno_env.simulate.simulate`` runs, so an agent here and
``simulate(agents=(agent.kernel, ...))`` play identically.
"""
from agents.baselines import (AGENTS, Agent, GreedyAgent, HeuristicAgent, RandomAgent,
                              make_agent)
from agents.ppo import PPOAgent, shipped_models

__all__ = ["AGENTS", "Agent", "GreedyAgent", "HeuristicAgent", "PPOAgent", "RandomAgent",
           "make_agent", "shipped_models"]
