"""Agent kernels: the baseline agents' policies as numba functions, chosen by an integer
code so that whole games run inside numba (``simulate``). Each policy reads only what
its seat may see (the state's public fields and its own hand) and the legal mask.

Adding an agent: give it a code here, a branch in ``choose_action``, and a name in
``AGENT_CODES``; its Python class in ``agents/`` names the same code.
"""
from uno_env._jit import njit
from uno_env.engine.core import random_legal

AGENT_RANDOM = 0
#: name -> code, for ``simulate(agents=...)``
AGENT_CODES = {"random": AGENT_RANDOM}


@njit
def choose_action(kind, st, g, sp, mask):
    """The action of the agent of type ``kind`` for the current decider of game ``g``
    (``mask`` is scratch space of the action-space size). -1 if the game is over."""
    # one branch per agent kind; the random agent draws from the game's own stream
    return random_legal(st, g, sp, mask)
