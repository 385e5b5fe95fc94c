"""The names of the numba agents and their integer codes (plain Python: no kernel).

The kernels take an agent as an integer code: the baselines' ``AGENT_*`` (the policies
of ``engine/policies.py``), and the search agent's codes ``>= MCTS_BASE``, which carry
its budget, rollout policy and mode (``mcts_code``; ``engine/search.py`` decodes them).
``agent_code`` reads a name: ``random``, ``greedy``, ``heuristic``, ``mcts``,
``mcts:400``, ``mcts-greedy:400``, ``mcts-ucb``, ... Every API that takes agents by name
reads them here (``LearnerBatch``'s opponents, ``simulate``, ``tournament``, the
benchmark, the command line); the agents registered by name in Python are the
registry's (``uno_env.players.registry``).
"""
import numpy as np

AGENT_RANDOM = 0
AGENT_GREEDY = 1
AGENT_HEURISTIC = 2
#: the baselines' names -> their codes
AGENT_CODES = {"random": AGENT_RANDOM, "greedy": AGENT_GREEDY, "heuristic": AGENT_HEURISTIC}

#: agent codes at or above this are search agents
MCTS_BASE = 1 << 24
#: budgets are below this (rollouts per decision)
BUDGET_LIMIT = 1 << 18
#: rollouts per decision of ``"mcts"``: the most that keeps the median decision within
#: 50 ms on one core with 4 players (the measurements: docs/agents.md, "The default
#: budget")
DEFAULT_BUDGET = 1200
#: the rollout policy of ``"mcts"``
DEFAULT_ROLLOUT = "heuristic"
MODE_FLAT, MODE_UCB = 0, 1
ROLLOUTS = {"random": AGENT_RANDOM, "greedy": AGENT_GREEDY, "heuristic": AGENT_HEURISTIC}
MODES = {"flat": MODE_FLAT, "ucb": MODE_UCB}

def mcts_code(budget: int = DEFAULT_BUDGET, rollout: str = DEFAULT_ROLLOUT,
              mode: str = "flat") -> int:
    """The agent code of a search agent (module docstring)."""
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) \
            or not 1 <= budget < BUDGET_LIMIT:
        raise ValueError(f"the mcts budget is an integer from 1 to {BUDGET_LIMIT - 1}, "
                         f"got {budget!r}")
    if rollout not in ROLLOUTS:
        raise ValueError(f"unknown rollout policy {rollout!r}; valid: {', '.join(ROLLOUTS)}")
    if mode not in MODES:
        raise ValueError(f"unknown mcts mode {mode!r}; valid: {', '.join(MODES)}")
    return MCTS_BASE + (ROLLOUTS[rollout] + 4 * MODES[mode]) * BUDGET_LIMIT + int(budget)


def parse_search_name(name: str):
    """``(budget, rollout, mode)`` of a search agent name, None for another name.

    ``mcts`` (``DEFAULT_BUDGET`` rollouts, heuristic rollouts, flat), ``mcts:400`` (400
    rollouts a decision), options after dashes: ``mcts-greedy:400``, ``mcts-ucb``,
    ``mcts-heuristic-ucb:100``. A malformed ``mcts`` name is a ValueError."""
    if not isinstance(name, str):
        return None
    head, sep, budget = name.partition(":")
    words = head.split("-")
    if words[0] != "mcts":
        return None
    rollout, mode = DEFAULT_ROLLOUT, "flat"
    for w in words[1:]:
        if w in ROLLOUTS:
            rollout = w
        elif w in MODES:
            mode = w
        else:
            raise ValueError(f"{name!r}: unknown mcts option {w!r}; options: "
                             f"{', '.join([*ROLLOUTS, *MODES])}, e.g. 'mcts-random:400'")
    if sep:
        if not budget.isdigit() or not 1 <= int(budget) < BUDGET_LIMIT:
            raise ValueError(f"{name!r}: the budget after ':' is a number of rollouts "
                             f"from 1 to {BUDGET_LIMIT - 1}, e.g. 'mcts:400'")
        n = int(budget)
    else:
        n = DEFAULT_BUDGET
    return n, rollout, mode


def agent_code(name: str):
    """The agent code of a numba agent name (the baselines' ``AGENT_CODES`` and the
    search names of ``parse_search_name``), None if it is not one."""
    if name in AGENT_CODES:
        return AGENT_CODES[name]
    parsed = parse_search_name(name)
    return None if parsed is None else mcts_code(*parsed)


def is_search_name(name) -> bool:
    return parse_search_name(name) is not None
