"""The search agent ``mcts``: determinized Monte Carlo search, in numba.

For each decision with more than one legal action, the agent samples ``D``
determinizations of the position for its own seat (``engine/determinize.py``: the
cards it cannot see, redrawn from what it has not seen) and, in each, plays every legal
action followed by a rollout to the end of the round, every seat (its own included)
played by a fast rollout policy (``greedy`` by default, or ``random``/``heuristic``;
``policies.choose_action``). It takes the action whose rollouts it won most often
(a round won by itself, or by its team with ``teams``; a truncated round counts
``1/P``); ties go to the action the rollout policy itself would play. It assumes
that restricted wilds are played legally (``sample``), so it does not challenge. The budget is the number of rollouts per decision: ``D = budget // legal``
(at least 1), so every action is judged on the same deals (common random numbers).
The variant ``ucb`` spends the budget by UCB1 over the actions instead, with a fresh
determinization for each rollout.

It decides from what its seat may know: the true state is read only through
``determinize``, whose sample depends on the seat's observation and the search stream
only. Its random numbers come from a search stream of its own (``rng[r]``, one per game
in ``simulate``): it never draws from the game's stream, so the games it plays are
reproducible whatever the thread count.

Agent codes. A search agent is an integer code like the other agents' (``AGENT_*`` of
``engine.policies``), ``>= MCTS_BASE``, that carries its budget, rollout policy and
mode (``mcts_code``); ``agent_code`` reads the names ``mcts``, ``mcts:400``,
``mcts-random:400``, ``mcts-ucb``, ... ``choose_search_action`` plays any code.

The kernels called from Python (``engine.entry``): ``search_kernel`` (one decision:
the ``search`` entry point) and ``simulate_search_chunk`` (``simulate`` when a seat is
a search agent: the ``simulate_search`` entry point). The plain ``simulate`` entry
point never reaches this module, so users who do not search never compile it.
"""
import numpy as np
from uno_env._jit import njit
from uno_env.engine import codes as C
from uno_env.engine.batch import _record
from uno_env.engine.determinize import determinize
from uno_env.engine.policies import (AGENT_CODES, AGENT_GREEDY, AGENT_HEURISTIC,
                                     AGENT_RANDOM, choose_action)
from uno_env.engine.rng import seed_stream
from uno_env.engine.rounds import reset_game
from uno_env.engine.state import State
from uno_env.engine.variants import apply_action, legal_mask

#: agent codes at or above this are search agents
MCTS_BASE = 1 << 24
#: budgets are below this (rollouts per decision)
BUDGET_LIMIT = 1 << 18
#: rollouts per decision of ``"mcts"``
DEFAULT_BUDGET = 200
MODE_FLAT, MODE_UCB = 0, 1
ROLLOUTS = {"random": AGENT_RANDOM, "greedy": AGENT_GREEDY, "heuristic": AGENT_HEURISTIC}
MODES = {"flat": MODE_FLAT, "ucb": MODE_UCB}
#: UCB1's exploration constant (values are in [0, 1])
UCB_C = 0.7
#: mixes the seed so a game's search stream differs from its card stream
SEARCH_SALT = np.uint64(0x5EA2_C4ED_0000_0017)


def mcts_code(budget: int = DEFAULT_BUDGET, rollout: str = "greedy",
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

    ``mcts`` (``DEFAULT_BUDGET`` rollouts, greedy rollouts, flat), ``mcts:400`` (400
    rollouts a decision), options after dashes: ``mcts-random:400``, ``mcts-ucb``,
    ``mcts-heuristic-ucb:100``. A malformed ``mcts`` name is a ValueError."""
    if not isinstance(name, str):
        return None
    head, sep, budget = name.partition(":")
    words = head.split("-")
    if words[0] != "mcts":
        return None
    rollout, mode = "greedy", "flat"
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


# --- kernels ------------------------------------------------------------------------------


@njit
def clone_row(st, g):
    """A state of one game: a copy of game ``g`` of ``st``."""
    return State(st.hands[g:g + 1].copy(), st.hand_size[g:g + 1].copy(),
                 st.draw_pile[g:g + 1].copy(), st.discard[g:g + 1].copy(),
                 st.discard_counts[g:g + 1].copy(), st.info[g:g + 1].copy(),
                 st.scores[g:g + 1].copy(), st.round_points[g:g + 1].copy(),
                 st.rewards[g:g + 1].copy(), st.rng[g:g + 1].copy(),
                 st.dark_face[g:g + 1].copy())


@njit
def copy_into(src, dst):
    """``dst`` (a one-game state of ``clone_row``) becomes a copy of ``src`` (another)."""
    dst.hands[:] = src.hands
    dst.hand_size[:] = src.hand_size
    dst.draw_pile[:] = src.draw_pile
    dst.discard[:] = src.discard
    dst.discard_counts[:] = src.discard_counts
    dst.info[:] = src.info
    dst.scores[:] = src.scores
    dst.round_points[:] = src.round_points
    dst.rewards[:] = src.rewards
    dst.rng[:] = src.rng
    dst.dark_face[:] = src.dark_face


@njit
def round_value(st, sp, seat, first_round):
    """What the round that began as ``first_round`` gave ``seat``: 1 won (by itself, or
    its team with ``teams``), 0 lost, ``1/P`` truncated."""
    if st.info[0, C.I_ROUND] == first_round and st.info[0, C.I_STATUS] == C.STATUS_TRUNCATED:
        return 1.0 / sp.rules[C.R_NUM_PLAYERS]
    w = st.info[0, C.I_WINNER]
    if w < 0:
        return 1.0 / sp.rules[C.R_NUM_PLAYERS]
    if sp.rules[C.R_TEAMS] != 0:
        return 1.0 if (w - seat) % 2 == 0 else 0.0
    return 1.0 if w == seat else 0.0


@njit
def rollout(st, sp, seat, kind, mask, obs):
    """Play the one-game state ``st`` to the end of its round with the agent ``kind``
    in every seat; the round's value for ``seat`` (``round_value``)."""
    first_round = st.info[0, C.I_ROUND]
    while st.info[0, C.I_STATUS] == C.STATUS_PLAYING and st.info[0, C.I_ROUND] == first_round:
        apply_action(st, 0, sp, choose_action(kind, st, 0, sp, mask, obs))
    return round_value(st, sp, seat, first_round)


@njit
def sample(root, dst, sp, seat, rng, r):
    """``dst`` becomes a determinization of the one-game state ``root`` for ``seat``.
    A pending challenge is judged innocent: the search assumes that the other players
    play their restricted wilds (W4 ...) legally, as the baselines do; a uniform redraw
    of that player's hand would make a challenge look right most of the time."""
    copy_into(root, dst)
    determinize(dst, 0, sp, seat, rng, r)
    if dst.info[0, C.I_W4_PLAYER] != seat:
        dst.info[0, C.I_W4_GUILTY] = 0


@njit
def mcts_action(st, g, sp, code, rng, r):
    """The search agent ``code``'s action for the current decider of game ``g``, with
    random numbers from ``rng[r]`` (module docstring); -1 if the game is over."""
    num_actions = sp.layout[C.L_SIZE]
    mask = np.zeros(num_actions, np.uint8)
    n = legal_mask(st, g, sp, mask)
    if n == 0:
        return -1
    actions = np.empty(n, np.int64)
    j = 0
    for a in range(num_actions):
        if mask[a] != 0:
            actions[j] = a
            j += 1
    if n == 1:
        return actions[0]
    budget = (code - MCTS_BASE) % BUDGET_LIMIT
    options = (code - MCTS_BASE) // BUDGET_LIMIT
    kind = options % 4
    seat = st.info[g, C.I_CURRENT]
    root = clone_row(st, g)
    deal = clone_row(st, g)
    work = clone_row(st, g)
    obs = np.zeros(sp.layout[C.L_OBS_SIZE], np.float32)
    visits = np.zeros(n, np.float64)
    total = np.zeros(n, np.float64)
    if options // 4 == MODE_UCB:
        for i in range(budget):
            if i < n:
                j = i
            else:
                j, best = 0, -1.0
                for k in range(n):
                    u = total[k] / visits[k] + UCB_C * np.sqrt(np.log(i) / visits[k])
                    if u > best:
                        j, best = k, u
            sample(root, work, sp, seat, rng, r)
            apply_action(work, 0, sp, actions[j])
            total[j] += rollout(work, sp, seat, kind, mask, obs)
            visits[j] += 1.0
    else:
        for _ in range(max(1, budget // n)):
            sample(root, deal, sp, seat, rng, r)
            for k in range(n):
                copy_into(deal, work)
                apply_action(work, 0, sp, actions[k])
                total[k] += rollout(work, sp, seat, kind, mask, obs)
                visits[k] += 1.0
    # ties (few rollouts give few distinct means) go to the rollout policy's own choice
    prior = -1
    if kind != AGENT_RANDOM:
        prior = choose_action(kind, root, 0, sp, mask, obs)
    best, best_mean = 0, -1.0
    for k in range(n):
        if visits[k] > 0:
            m = total[k] / visits[k] + (1e-9 if actions[k] == prior else 0.0)
            if m > best_mean:
                best, best_mean = k, m
    return actions[best]


@njit
def choose_search_action(kind, st, g, sp, mask, obs, rng):
    """``policies.choose_action`` for any agent code, search agents included (they draw
    from ``rng[g]``, the game's search stream)."""
    if kind >= MCTS_BASE:
        return mcts_action(st, g, sp, kind, rng, g)
    return choose_action(kind, st, g, sp, mask, obs)


def search_kernel(st, g, sp, code, rng, r):
    """The ``search`` entry point: search agent ``code``'s action for the current
    decider of game ``g`` (the state is not changed), drawing from ``rng[r]``."""
    return mcts_action(st, g, sp, code, rng, r)


@njit
def play_search_game(st, g, sp, seat_agents, seed, index, mask, obs, rng):
    """``batch.play_game`` with search agents: game ``index`` of ``seed`` into slot
    ``g``, played to its end; the search stream ``rng[g]`` is seeded from the game."""
    st.rng[g] = seed_stream(seed, index)
    rng[g] = seed_stream(np.uint64(seed) ^ SEARCH_SALT, index)
    reset_game(st, g, sp)
    steps = 0
    while st.info[g, C.I_STATUS] == C.STATUS_PLAYING:
        action = choose_search_action(seat_agents[st.info[g, C.I_CURRENT]], st, g, sp,
                                      mask, obs, rng)
        apply_action(st, g, sp, action)
        steps += 1
    return steps


def simulate_search_chunk(st, sp, seat_agents, seed, first_index, stat_slots, rng,
                          out_winner, out_turns, out_steps, out_points, out_stats):
    """``batch.simulate_chunk`` when a seat is a search agent (the ``simulate_search``
    entry point; ``simulate`` runs chunks of games on threads); ``rng`` (uint64[B]) holds the games' search
    streams."""
    num_actions = sp.layout[C.L_SIZE]
    obs_size = sp.layout[C.L_OBS_SIZE]
    for g in range(st.info.shape[0]):
        mask = np.empty(num_actions, np.uint8)
        obs = np.empty(obs_size, np.float32)
        out_steps[g] = play_search_game(st, g, sp, seat_agents, seed, first_index + g,
                                        mask, obs, rng)
        _record(st, g, sp, stat_slots, out_winner, out_turns, out_points, out_stats)

