"""The search agent ``mcts``: determinized Monte Carlo search, in numba.

For each decision with more than one legal action, the agent samples ``D``
determinizations of the position for its own seat (``engine/determinize.py``: the
cards it cannot see, redrawn from what it has not seen, then dealt again so that a
player who drew instead of playing holds nothing that was playable then:
``engine/belief.py``) and, in each, plays every legal action followed by a rollout to
the end of the round, every seat (its own included) played by a fast rollout policy
(``heuristic`` by default, or ``greedy``/``random``; ``policies.choose_action``). The
budget is the number of rollouts per decision: ``D = budget // legal`` (at least 1),
so every action is judged on the same deals (common random numbers). A round won
(by itself, or its team with ``teams``) is worth 1, lost 0, truncated ``1/P``.

It plays the move the rollout policy itself would play unless another action won
more often on the same deals by more than ``CONFIDENCE_Z`` standard errors of the
paired difference (one with 2 players, two with more) (``mcts_action``): following the best mean alone made it weaker
than its own rollout policy, because with a few dozen deals a mean's noise exceeds
most differences between moves. It assumes that restricted wilds are played legally
(``sample``), so it does not challenge. The variant ``ucb`` spends the budget by
UCB1 over the actions instead, with a fresh determinization for each rollout, and
takes the best mean.

It decides from what its seat may know: the true state is read only through
``determinize``, whose sample depends on the seat's observation and the search stream
only, and the belief, which depends on the public moves only. Its random numbers come from a search stream of its own (``rng[r]``, one per game
in ``simulate``): it never draws from the game's stream, so the games it plays are
reproducible whatever the thread count.

Agent codes. A search agent is an integer code like the other agents' (``AGENT_*``),
``>= MCTS_BASE``, that carries its budget, rollout policy and mode; ``engine/names.py``
makes the codes (``mcts_code``) and reads the names (``mcts``, ``mcts:400``,
``mcts-greedy:400``, ``mcts-ucb``, ...); ``choose_search_action`` plays any code.

The kernel called from Python is ``search_kernel`` (the ``search`` entry point of
``engine.entry``): one decision for ``agents.MCTSAgent``, a chunk of ``simulate``'s
games when a seat is a search agent, or an operation of a learner batch
(``uno_env.envs.single_seat.LearnerBatch``) whose opponents include a search agent: the loops of
``engine.learner`` with the hooks registered here for ``LearnerSearch``, which keep
each game's belief and search stream as ``play_search_game`` does. The plain
``simulate`` and ``learner`` entry points never reach this module, so users who do not
search never compile it.
"""
from collections import namedtuple

import numpy as np
from uno_env.engine.jit import njit
from uno_env.engine import codes as C
from uno_env.engine import learner
from uno_env.engine.batch import STAT_SLOTS, _record
from uno_env.engine.belief import redeal, watch
from uno_env.engine.determinize import determinize
from uno_env.engine.policies import WORK_SIZE, choose_action
# the agents' names and codes (plain Python), used by the kernels here and re-exported
from uno_env.engine.names import (  # noqa: F401
    AGENT_CODES, AGENT_GREEDY, AGENT_RANDOM, BUDGET_LIMIT, DEFAULT_BUDGET, DEFAULT_ROLLOUT, MCTS_BASE, MODE_FLAT,
    MODE_UCB, MODES, ROLLOUTS, agent_code, is_search_name, mcts_code, parse_search_name)
from uno_env.engine.rng import seed_stream
from uno_env.engine.rounds import reset_game
from uno_env.engine.state import State, allocate, as_record
from uno_env.engine.dispatch import apply_action, legal_mask, scratch_mask

#: flat search: leave the rollout policy's move only for one better by this many
#: standard errors of the paired difference (``mcts_action``): with 2 players, and with
#: more (noisier values: three opponents move before the searcher again). Measured,
#: classic, 200 rollouts, 600 games: 2 players vs heuristic 0.518 at 0.5, 0.572 at 1;
#: 4 players vs three heuristic 0.225 at 1, 0.263 at 2.
CONFIDENCE_Z_2P = 1.0
CONFIDENCE_Z = 2.0
#: UCB1's exploration constant (values are in [0, 1])
UCB_C = 0.7
#: mixes the seed so a game's search stream differs from its card stream
SEARCH_SALT = np.uint64(0x5EA2_C4ED_0000_0017)


# --- kernels ------------------------------------------------------------------------------


def _row_copies_source() -> str:
    """The source of ``clone_row`` and ``copy_into``, written from ``State``'s fields and
    their number of dimensions, so that a field added to ``State`` is copied too (a
    field the copies missed once made the search 5x slower with every test green).
    ``copy_into`` copies element by element: a slice assignment goes through
    reference-counted temporaries."""
    probe = allocate(1, 2, 2, 2, True)
    rows = ", ".join(f"st.{name}[g:g + 1].copy()" for name in State._fields)
    lines = ["def clone_row(st, g):",
             '    """A state of one game: a copy of game ``g`` of ``st``."""',
             f"    return State({rows})", "", "",
             "def copy_into(src, dst):",
             '    """``dst`` (a one-game state of ``clone_row``) becomes a copy of ``src``."""']
    for name, array in zip(State._fields, probe):
        at, indent = ["0"], "    "
        for axis in range(1, array.ndim):
            lines.append(f"{indent}for i{axis} in range(src.{name}.shape[{axis}]):")
            at.append(f"i{axis}")
            indent += "    "
        index = ", ".join(at)
        lines.append(f"{indent}dst.{name}[{index}] = src.{name}[{index}]")
    return "\n".join(lines) + "\n"


exec(compile(_row_copies_source(), "<uno_env.engine.search: State's row copies>", "exec"))
clone_row = njit(allocates=True)(clone_row)  # noqa: F821  (defined by the exec above)
copy_into = njit(copy_into)  # noqa: F821


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
def rollout(st, sp, seat, kind, mask, obs, work):
    """Play the one-game state ``st`` to the end of its round with the agent ``kind``
    in every seat; the round's value for ``seat`` (``round_value``)."""
    first_round = st.info[0, C.I_ROUND]
    while st.info[0, C.I_STATUS] == C.STATUS_PLAYING and st.info[0, C.I_ROUND] == first_round:
        apply_action(st, 0, sp, choose_action(kind, st, 0, sp, mask, obs, work))
    return round_value(st, sp, seat, first_round)


@njit
def sample(root, dst, sp, seat, rng, r, banned):
    """``dst`` becomes a determinization of the one-game state ``root`` for ``seat``,
    dealt again to respect what the public play says (``belief.redeal``).
    A pending challenge is judged innocent: the search assumes that the other players
    play their restricted wilds (W4 ...) legally, as the baselines do; a uniform redraw
    of that player's hand would make a challenge look right most of the time."""
    copy_into(root, dst)
    determinize(dst, 0, sp, seat, rng, r)
    redeal(dst, 0, sp, seat, rng, r, banned)
    if dst.info[0, C.I_W4_PLAYER] != seat:
        dst.info[0, C.I_W4_GUILTY] = 0


@njit(allocates=True)
def mcts_action(st, g, sp, code, rng, r, banned):
    """The search agent ``code``'s action for the current decider of game ``g``, with
    random numbers from ``rng[r]`` and the public belief ``banned`` (``engine.belief``);
    -1 if the game is over (module docstring)."""
    num_actions = sp.layout[C.L_SIZE]
    mask = scratch_mask(sp)
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
    return _search(st, g, sp, code, rng, r, banned, mask, actions, clone_row(st, g),
                   clone_row(st, g), clone_row(st, g))


@njit(allocates=True)
def _search(st, g, sp, code, rng, r, banned, mask, actions, root_state, deal_state,
            work_state):
    """``mcts_action``'s search over its ``n > 1`` legal ``actions``, on three one-game
    copies of game ``g`` (arguments, so that they outlive the records made of them)."""
    n = actions.shape[0]
    root, deal, work = as_record(root_state), as_record(deal_state), as_record(work_state)
    budget = (code - MCTS_BASE) % BUDGET_LIMIT
    options = (code - MCTS_BASE) // BUDGET_LIMIT
    kind = options % 4
    seat = st.info[g, C.I_CURRENT]
    obs = np.zeros(sp.layout[C.L_OBS_SIZE], np.float32)
    scratch = np.zeros(WORK_SIZE, np.int64)
    # the default: what the rollout policy itself would play (greedy's for random)
    prior = choose_action(AGENT_GREEDY if kind == AGENT_RANDOM else kind, root, 0, sp,
                          mask, obs, scratch)
    p = 0
    for k in range(n):
        if actions[k] == prior:
            p = k
    if options // 4 == MODE_UCB:
        visits = np.zeros(n, np.float64)
        total = np.zeros(n, np.float64)
        for i in range(budget):
            if i < n:
                j = i
            else:
                j, best = 0, -1.0
                for k in range(n):
                    u = total[k] / visits[k] + UCB_C * np.sqrt(np.log(i) / visits[k])
                    if u > best:
                        j, best = k, u
            sample(root, work, sp, seat, rng, r, banned)
            apply_action(work, 0, sp, actions[j])
            total[j] += rollout(work, sp, seat, kind, mask, obs, scratch)
            visits[j] += 1.0
        best, best_mean = p, total[p] / max(visits[p], 1.0)
        for k in range(n):
            if visits[k] > 0 and total[k] / visits[k] > best_mean:
                best, best_mean = k, total[k] / visits[k]
        return actions[best]
    deals = max(1, budget // n)
    value = np.zeros((deals, n), np.float64)
    for d in range(deals):
        sample(root, deal, sp, seat, rng, r, banned)
        for k in range(n):
            copy_into(deal, work)
            apply_action(work, 0, sp, actions[k])
            value[d, k] = rollout(work, sp, seat, kind, mask, obs, scratch)
    return actions[flat_choice(value, p, st.hands.shape[1])]


@njit(allocates=True)
def flat_choice(value, p, num_players):
    """The flat search's move, by index, from its ``deals x moves`` table of rollout
    results on common deals; ``p`` is the rollout policy's own move. Leave it only for
    a move that beat it on the same deals by more than z standard errors
    (``CONFIDENCE_Z``): with a few dozen deals the noise of a mean is larger than most
    differences, and following it plays worse than the rollout policy."""
    deals, n = value.shape[0], value.shape[1]
    z = CONFIDENCE_Z_2P if num_players == 2 else CONFIDENCE_Z
    best, best_gain = p, 0.0
    for k in range(n):
        if k != p:
            diff = value[:, k] - value[:, p]
            gain = diff.mean()
            # at least 1/deals: a few deals can agree by chance (variance 0)
            se = max(np.sqrt(diff.var() / deals), 1.0 / deals)
            if gain > z * se and gain > best_gain:
                best, best_gain = k, gain
    return best


@njit
def choose_search_action(kind, st, g, sp, mask, obs, work, rng, banned):
    """``policies.choose_action`` for any agent code, search agents included (they draw
    from ``rng[g]``, the game's search stream, and read the belief ``banned``)."""
    if kind >= MCTS_BASE:
        return mcts_action(st, g, sp, kind, rng, g, banned)
    return choose_action(kind, st, g, sp, mask, obs, work)


@njit(allocates=True)
def play_search_game(st, g, sp, seat_agents, seed, index, mask, obs, rng):
    """``batch.play_game`` with search agents: game ``index`` of ``seed`` into slot
    ``g``, played to its end; the search stream ``rng[g]`` is seeded from the game."""
    st.rng[g] = seed_stream(seed, index)
    rng[g] = seed_stream(np.uint64(seed) ^ SEARCH_SALT, index)
    reset_game(st, g, sp)
    banned = np.zeros((st.hands.shape[1], st.hands.shape[2]), np.uint8)
    sizes = np.zeros(st.hands.shape[1], np.int64)
    work = np.zeros(WORK_SIZE, np.int64)
    steps = 0
    while st.info[g, C.I_STATUS] == C.STATUS_PLAYING:
        action = choose_search_action(seat_agents[st.info[g, C.I_CURRENT]], st, g, sp,
                                      mask, obs, work, rng, banned)
        watch(st, g, sp, banned, sizes, action)
        steps += 1
    return steps


@njit(allocates=True)
def simulate_search_chunk(st, sp, seat_agents, seed, first_index, stat_slots, rng,
                          out_winner, out_turns, out_steps, out_points, out_stats):
    """``batch.simulate_chunk`` when a seat is a search agent; ``rng`` (uint64[B])
    holds the games' search streams."""
    obs_size = sp.layout[C.L_OBS_SIZE]
    for g in range(st.info.shape[0]):
        mask = scratch_mask(sp)
        obs = np.empty(obs_size, np.float32)
        out_steps[g] = play_search_game(st, g, sp, seat_agents, seed, first_index + g,
                                        mask, obs, rng)
        _record(st, g, sp, stat_slots, out_winner, out_turns, out_points, out_stats)


# --- learner batches with search opponents (engine.learner's hooks) ---------------------

#: the search side of a learner batch: ``rng`` (uint64[B]) the games' search streams,
#: ``banned`` (uint8[B, P, K]) their beliefs (``engine.belief``), ``sizes`` (int64[P])
#: scratch for ``watch``
LearnerSearch = namedtuple("LearnerSearch", ["rng", "banned", "sizes"])


@learner.dealt.register(LearnerSearch)
def _dealt_search(st, g, sp, search, seed, index):
    """As ``play_search_game``: the search stream of game ``index`` of ``seed``, and no
    belief yet."""
    search.rng[g] = seed_stream(np.uint64(seed) ^ SEARCH_SALT, index)
    search.banned[g] = 0


@learner.opponent_action.register(LearnerSearch)
def _opponent_search(kind, st, g, sp, lb, search):
    # the code as the int64 of simulate's codes (the seat kinds are int32): one
    # compiled search, not a second one for int32 codes
    return choose_search_action(np.int64(kind), st, g, sp, lb.scratch_mask,
                                lb.scratch_obs, lb.scratch_work, search.rng,
                                search.banned[g])


@learner.play.register(LearnerSearch)
def _play_search(st, g, sp, search, action):
    watch(st, g, sp, search.banned[g], search.sizes, action)


def idle_arguments(num_players: int, obs_size: int, num_actions: int):
    """Empty arrays of the types of the ``search_kernel`` arguments that an operation
    does not read: ``(outputs, learner)``, ``outputs`` the five ``out_*`` of
    ``OP_SIMULATE``, ``learner`` the ``lb, rows, obs, mask`` of the learner operations
    (one type for every call: the kernel compiles once)."""
    outputs = (np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32),
               np.zeros((0, num_players), np.int32),
               np.zeros((0, len(STAT_SLOTS)), np.int64))
    lb = learner.allocate_learner(0, num_players, obs_size, num_actions,
                                  np.zeros((1, num_players - 1), np.int32), -1, False)
    return outputs, (lb, np.zeros(0, np.int64), np.zeros((0, obs_size), np.float32),
                     np.zeros((0, num_actions), np.uint8))


#: ``search_kernel``'s operations: one decision, a chunk of simulate, and learner
#: operation ``k`` (``engine.learner.OP_*``) as ``OP_LEARNER + k``
OP_DECIDE, OP_SIMULATE, OP_LEARNER = 0, 1, 16


def search_kernel(op, state, watched_state, tables, codes, seed, first_index, stat_slots, rng, banned,
                  moves, out_winner, out_turns, out_steps, out_points, out_stats,
                  lb, rows, obs, mask):
    """The ``search`` entry point: one kernel for every use, so that a variant compiles
    the search once. ``banned`` is uint8[B, P, K]; ``idle_arguments`` gives the
    arguments an operation does not read.

    ``OP_DECIDE`` (``agents.MCTSAgent``, which follows a game from Python, and
    ``learner.evaluate``): the ``moves`` made since the last call are replayed on the
    follower's copy of the game ``watched`` (a one-game state), updating its belief
    ``banned[0]``; then the action of search agent ``codes[0]`` for the current decider
    of game ``g = first_index`` of ``st`` (not changed), drawing from ``rng[g]``.

    ``OP_SIMULATE`` (``simulate`` when a seat is a search agent):
    ``simulate_search_chunk`` on ``st`` with the agents ``codes``; returns 0.

    ``OP_LEARNER + k`` (``uno_env.envs.single_seat.LearnerBatch`` with a search opponent):
    ``engine.learner.learner_op(k, st, sp, lb, seed, first_index, rows, moves, obs,
    mask, ...)``, the games' search streams in ``rng`` and beliefs in ``banned``."""
    st, sp = as_record(state), as_record(tables)  # one pointer each, for the kernels
    watched = as_record(watched_state)
    if op >= OP_LEARNER:
        search = LearnerSearch(rng, banned, np.zeros(st.hands.shape[1], np.int64))
        return learner.learner_op(op - OP_LEARNER, st, sp, lb, seed, first_index, rows,
                                  moves, obs, mask, search)
    if op == OP_SIMULATE:
        simulate_search_chunk(st, sp, codes, seed, first_index, stat_slots, rng,
                              out_winner, out_turns, out_steps, out_points, out_stats)
        return 0
    sizes = np.zeros(watched.hands.shape[1], np.int64)
    belief = banned[0]
    for i in range(moves.shape[0]):
        watch(watched, 0, sp, belief, sizes, moves[i])
    return mcts_action(st, first_index, sp, codes[0], rng, first_index, belief)
