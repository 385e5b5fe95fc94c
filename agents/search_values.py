"""The flat search's value of every legal move, not only its choice: the training
targets of expert iteration (``agents.exit``).

``uno_env.engine.search`` returns the move of ``mcts``; its per-move values stay inside
the kernel. This module compiles, from the engine's own search pieces (``sample``: a
determinization for the decider's seat; ``rollout``: the round played out by a
numba policy; ``copy_into``, ``clone_row``), a kernel that returns the ``deals x moves``
table of rollout results, on the same deals for every move (common random numbers),
exactly the table ``mcts``'s flat search decides from. It lives beside the engine, not
in it (the engine is being rewritten, issue 44); it uses only functions the engine's
search uses, through ``uno_env.engine.jit.entry_point`` (compiled once per variant,
cached on disk).

``search_values(lb, g, stream, budget)`` gives, for game ``g`` of a ``LearnerBatch``:
the legal moves, their mean values, and the search's move by ``mcts``'s rule
(``decide``: the heuristic's move unless another beat it on the same deals by more than
``CONFIDENCE_Z_2P`` (2 players) or ``CONFIDENCE_Z`` standard errors of the paired
difference)."""
from __future__ import annotations

import functools

import numpy as np

from uno_env.engine import codes as C
from uno_env.engine.dispatch import apply_action, legal_mask, scratch_mask
from uno_env.engine.jit import entry_point, njit, python_callable
from uno_env.engine.policies import AGENT_HEURISTIC, WORK_SIZE, choose_action
from uno_env.engine.search import clone_row, copy_into, flat_choice, rollout, sample
from uno_env.engine.state import as_record


@njit(allocates=True)
def _values(st, g, sp, rng, banned, deals, kind, root_state, deal_state, work_state):
    root, deal, work = as_record(root_state), as_record(deal_state), as_record(work_state)
    num_actions = sp.layout[C.L_SIZE]
    mask = scratch_mask(sp)
    n = legal_mask(st, g, sp, mask)
    actions = np.empty(n, np.int64)
    j = 0
    for a in range(num_actions):
        if mask[a] != 0:
            actions[j] = a
            j += 1
    seat = st.info[g, C.I_CURRENT]
    obs = np.zeros(sp.layout[C.L_OBS_SIZE], np.float32)
    scratch = np.zeros(WORK_SIZE, np.int64)
    prior = choose_action(kind, root, 0, sp, mask, obs, scratch)
    value = np.zeros((deals, n + 1), np.float64)
    for k in range(n):
        if actions[k] == prior:
            value[0, n] = k                    # the rollout policy's move, by index
    for d in range(deals):
        sample(root, deal, sp, seat, rng, g, banned)
        for k in range(n):
            copy_into(deal, work)
            apply_action(work, 0, sp, actions[k])
            value[d, k] = rollout(work, sp, seat, kind, mask, obs, scratch)
    return actions, value


def _values_kernel(state, tables, g, rng, banned, budget, kind):
    """Entry point: ``(actions, table)``; ``table[:, :n]`` the rollout results (deals x
    moves), ``table[0, n]`` the index of the rollout policy's own move."""
    st, sp = as_record(state), as_record(tables)
    mask = scratch_mask(sp)
    n = legal_mask(st, g, sp, mask)
    deals = max(1, budget // max(n, 1))
    return _values(st, g, sp, rng, banned, deals, kind, clone_row(st, g), clone_row(st, g),
                   clone_row(st, g))


@functools.lru_cache(maxsize=None)
def values_kernel(variant: str):
    return entry_point(_values_kernel, variant)


def decide(actions, table, num_players: int) -> tuple[int, np.ndarray]:
    """``mcts``'s flat rule on a values table (``engine.search.flat_choice``, the same
    kernel): ``(move, mean value per move)``."""
    n = len(actions)
    value = np.ascontiguousarray(table[:, :n])
    best = python_callable(flat_choice)(value, int(table[0, n]), num_players)
    return int(actions[best]), value.mean(axis=0)


def search_values(lb, g: int, streams: np.ndarray, beliefs: np.ndarray, budget: int):
    """For game ``g`` of the ``LearnerBatch`` ``lb`` (the learner to move): ``(actions,
    means, move)``: the legal moves, their mean rollout values over ``budget // n``
    deals (heuristic rollouts), and the move ``mcts:<budget>`` makes from that table.
    ``streams[g]`` is the game's search stream (advanced), ``beliefs[g]`` its belief."""
    kernel = values_kernel(lb.config.variant)
    actions, table = kernel(lb.engine_state, lb.config.spec, np.int64(g), streams,
                            beliefs[g], np.int64(budget), np.int64(AGENT_HEURISTIC))
    move, means = decide(actions, table, lb.config.num_players)
    return actions, means, move
