"""Kernels for training one seat (the *learner*) while the other seats play inside numba.

Slot ``g`` of a batch holds one game; ``lb.seat_kind[g, p]`` says who decides for seat
``p`` of that game:

* ``>= 0``: a numba agent (``policies.AGENT_*``), played here without leaving numba;
* ``LEARNER``: the learner; the kernels stop when it has to decide;
* ``<= EXTERNAL``: Python opponent ``EXTERNAL - kind`` (a trained network, say); the
  kernels stop and the Python side decides for it (``external_observe``/``external_step``).

``lb.waiting[g]`` is the kind of the seat the game waits for (``LEARNER`` or a Python
opponent) and ``DONE`` for a finished game that is not reset. The learner's reward is the
sum of ``state.rewards[g, learner]`` over every move between two of its decisions,
whoever makes them, so the learner sees its loss when an opponent goes out.

``learner_kernel`` is the one entry point (``engine.entry`` compiles it per variant);
its operations are ``OP_*`` (``learner_op``).

Search opponents (``mcts``) are played by the same loops, compiled into the ``search``
entry point instead (``engine.search``), so a user who never searches never compiles
the search: every loop takes a ``search`` argument, ``None`` here, and makes each move
through three hooks chosen by its class when the loop is compiled
(``uno_env.engine.jit.by_class``): ``dealt`` (a game starts in a slot), ``opponent_action``
(a numba opponent's move) and ``play`` (apply any move). Their ``None``
implementations below are the plain learner; ``engine.search`` registers the ones that
keep each game's belief and search stream.

Game ``i`` of a seed deals ``seed_stream(seed, i)`` as everywhere else, and its learner
seat and opponent line-up come from a second stream of ``(seed, i)``, so a game never
depends on the batch size or on the order in which slots finish.
"""
from collections import namedtuple

import numpy as np

from uno_env.engine.jit import by_class, njit
from uno_env.engine import codes as C
from uno_env.engine.state import as_record
from uno_env.engine.observe import observe
from uno_env.engine.policies import WORK_SIZE, choose_action
from uno_env.engine.rng import seed_stream
from uno_env.engine.rounds import reset_game
from uno_env.engine.dispatch import apply_action, legal_mask
from uno_env.engine.public_record import (
    PublicRecord, clear_record, watch, write_record)

LEARNER = -1
EXTERNAL = -2
DONE = -100
#: a game that ended in a step split over threads (``OP_STEP_ROWS``), waiting for
#: ``OP_DEAL_ENDED`` to deal its successor: successors take game indices in slot order,
#: as in the one-thread step, so the games do not depend on the threads
ENDED = -101
#: ``lb.params[1]`` (auto-reset) while a step is split over threads: a game that ends
#: is marked ``ENDED``, not replaced (``OP_STEP_ROWS``)
LATER = 2

#: mixes the seed so the seat stream differs from the card stream of the same game
SEAT_SALT = np.uint64(0x5EA7_1EA2_0000_0001)

#: the learner-side buffers of a batch (all arrays; ``B`` games, ``P`` players,
#: ``D`` observation size, ``A`` actions, ``M`` opponent line-ups)
LearnerBuffers = namedtuple("LearnerBuffers", [
    "seat_kind",     # int32[B, P]: who decides for each seat (module docstring)
    "learner",       # int32[B]: the learner's seat
    "waiting",       # int32[B]: kind of the seat the game waits for, or DONE
    "game_index",    # int64[B]: index of the game in each slot
    "next_index",    # int64[1]: the next game index to deal
    "reward",        # float32[B]: the learner's reward since its last decision
    "terminated",    # bool[B]: the learner's episode ended in this step
    "truncated",     # bool[B]: ... by max_turns
    "obs",           # float32[B, D]: the learner's observation (when waiting == LEARNER)
    "mask",          # uint8[B, A]: the learner's legal actions
    "final_obs",     # float32[B, D]: the learner's last observation of an ended episode
    "lineups",       # int32[M, P-1]: opponent kinds by seat after the learner
    "params",        # int64[2]: [learner seat or -1 for a random seat, auto_reset]
    "scratch_mask",  # uint8[A]: numba opponents' scratch
    "scratch_obs",   # float32[D]
    "scratch_work",  # int64[policies.WORK_SIZE]
])


def allocate_learner(num_envs, num_players, obs_size, num_actions, lineups, seat,
                     auto_reset):
    b = num_envs
    return LearnerBuffers(
        np.zeros((b, num_players), np.int32), np.zeros(b, np.int32),
        np.full(b, DONE, np.int32), np.zeros(b, np.int64), np.zeros(1, np.int64),
        np.zeros(b, np.float32), np.zeros(b, np.bool_), np.zeros(b, np.bool_),
        np.zeros((b, obs_size), np.float32), np.zeros((b, num_actions), np.uint8),
        np.zeros((b, obs_size), np.float32), np.ascontiguousarray(lineups, np.int32),
        np.array([seat, int(auto_reset)], np.int64),
        np.zeros((num_actions + 7) // 8 * 8, np.uint8),  # whole words: dispatch.scratch_mask
        np.zeros(obs_size, np.float32), np.zeros(WORK_SIZE, np.int64))


# --- the hooks (module docstring): plain here, with search in engine.search ------------


@by_class("search")
def dealt(st, g, sp, search, seed, index):
    """Game ``index`` of ``seed`` starts in slot ``g`` (dealt, or continued)."""


@dealt.register(type(None))
def _dealt_plain(st, g, sp, search, seed, index):
    pass


@by_class("search")
def opponent_action(kind, st, g, sp, lb, search):
    """The action of numba opponent ``kind`` for the current decider of game ``g``."""


@opponent_action.register(type(None))
def _opponent_plain(kind, st, g, sp, lb, search):
    # the code as the int64 of simulate's codes (the seat kinds are int32): a process
    # that runs both (the warm-up, the tests) compiles the policies once
    return choose_action(np.int64(kind), st, g, sp, lb.scratch_mask, lb.scratch_obs,
                         lb.scratch_work)


@by_class("search")
def play(st, g, sp, search, action):
    """Apply the current decider's legal ``action`` in game ``g``."""


@play.register(type(None))
def _play_plain(st, g, sp, search, action):
    apply_action(st, g, sp, action)


@by_class("search")
def observe_seat(st, g, sp, search, seat, out):
    """``seat``'s observation of game ``g`` into ``out``."""


@observe_seat.register_default
def _observe_plain(st, g, sp, search, seat, out):
    observe(st, g, sp, seat, out)


# the public record (``engine.public_record``) is kept by the same hooks: the
# ``learner_record`` entry point passes a ``PublicRecord`` as ``search``


@dealt.register(PublicRecord)
def _dealt_record(st, g, sp, search, seed, index):
    clear_record(search, g)


@opponent_action.register(PublicRecord)
def _opponent_record(kind, st, g, sp, lb, search):
    return choose_action(np.int64(kind), st, g, sp, lb.scratch_mask, lb.scratch_obs,
                         lb.scratch_work)


@play.register(PublicRecord)
def _play_record(st, g, sp, search, action):
    watch(st, g, sp, search, action)


@observe_seat.register(PublicRecord)
def _observe_record(st, g, sp, search, seat, out):
    observe(st, g, sp, seat, out)
    write_record(st, g, search, seat, out)


# --- the loops ----------------------------------------------------------------------------


@njit
def seat_draw(seed, index, n):
    """A uniform integer in [0, n) from the seat stream of game ``index``."""
    x = seed_stream(seed ^ SEAT_SALT, index) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))


@njit
def _deal(st, g, sp, lb, seed, index, search):
    """Deal game ``index`` into slot ``g``: cards, learner seat, opponent line-up."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    lb.game_index[g] = index
    st.rng[g] = seed_stream(seed, index)
    reset_game(st, g, sp)
    dealt(st, g, sp, search, seed, index)
    draws = seat_draw(seed, index, num_players * lb.lineups.shape[0])
    seat = lb.params[0]
    if seat < 0:
        seat = draws % num_players
    lineup = draws // num_players
    lb.learner[g] = seat
    lb.seat_kind[g, seat] = LEARNER
    for k in range(1, num_players):
        lb.seat_kind[g, (seat + k) % num_players] = lb.lineups[lineup, k - 1]


@njit
def _settle(st, g, sp, lb, seed, search):
    """Play numba seats until the learner or a Python opponent must decide; on the way
    record an ended episode and, with auto-reset, deal the next game (or, while a step
    is split over threads, ``lb.params[1] == LATER``, mark the slot ``ENDED`` for
    ``_deal_ended``)."""
    while True:
        while st.info[g, C.I_STATUS] == C.STATUS_PLAYING:
            kind = lb.seat_kind[g, st.info[g, C.I_CURRENT]]
            if kind < 0:
                break
            play(st, g, sp, search, np.int64(opponent_action(kind, st, g, sp, lb, search)))
            lb.reward[g] += st.rewards[g, lb.learner[g]]
        status = st.info[g, C.I_STATUS]
        if status == C.STATUS_PLAYING:
            kind = lb.seat_kind[g, st.info[g, C.I_CURRENT]]
            lb.waiting[g] = kind
            if kind == LEARNER:
                legal_mask(st, g, sp, lb.mask[g])
                observe_seat(st, g, sp, search, lb.learner[g], lb.obs[g])
            return
        lb.terminated[g] = status == C.STATUS_OVER
        lb.truncated[g] = status == C.STATUS_TRUNCATED
        observe_seat(st, g, sp, search, lb.learner[g], lb.final_obs[g])
        if lb.params[1] == 0:
            lb.waiting[g] = DONE
            lb.mask[g] = 0
            for j in range(lb.obs.shape[1]):  # a loop: an array copy would allocate
                lb.obs[g, j] = lb.final_obs[g, j]
            return
        if lb.params[1] == LATER:
            lb.waiting[g] = ENDED
            return
        index = lb.next_index[0]
        lb.next_index[0] = index + 1
        _deal(st, g, sp, lb, seed, index, search)


@njit(inline="always")
def _move(st, g, sp, lb, seed, action, search):
    """Apply a checked ``action`` of the current decider, credit the learner, play on."""
    play(st, g, sp, search, action)
    lb.reward[g] += st.rewards[g, lb.learner[g]]
    _settle(st, g, sp, lb, seed, search)


@njit(inline="always")
def _learner_reset(st, sp, lb, seed, first_index, search):
    """Deal games ``first_index ..`` into every slot and play to the learner's turn."""
    lb.next_index[0] = first_index + st.info.shape[0]
    for g in range(st.info.shape[0]):
        lb.reward[g] = 0.0
        lb.terminated[g] = False
        lb.truncated[g] = False
        _deal(st, g, sp, lb, seed, first_index + g, search)
        _settle(st, g, sp, lb, seed, search)


@njit(inline="always")
def _learner_step(st, sp, lb, seed, actions, search):
    """Apply the learner's ``actions[g]`` in every game waiting for it and play on to its
    next decision. Returns -1, or the first slot whose action is illegal (then nothing
    changed). Games waiting for a Python opponent or done are left alone."""
    num_actions = lb.mask.shape[1]
    for g in range(st.info.shape[0]):
        if lb.waiting[g] == LEARNER:
            a = actions[g]
            if a < 0 or a >= num_actions or lb.mask[g, a] == 0:
                return g
    for g in range(st.info.shape[0]):
        lb.reward[g] = 0.0
        lb.terminated[g] = False
        lb.truncated[g] = False
        if lb.waiting[g] == LEARNER:
            _move(st, g, sp, lb, seed, actions[g], search)
    return -1


@njit(inline="always")
def _learner_step_rows(st, sp, lb, seed, rows, actions, search):
    """``_learner_step`` on the slots ``rows`` alone, its actions checked before, without
    dealing the games that end (``ENDED``; ``lb.params[1] == LATER`` meanwhile): one
    thread's share of a step; the slots are independent but for the next game index,
    which ``_deal_ended`` hands out. (The per-slot body repeats ``_learner_step``'s:
    one inline helper for both measured 0.83x on the two-thread step, 2026-12-05.)"""
    for i in range(rows.shape[0]):
        g = rows[i]
        lb.reward[g] = 0.0
        lb.terminated[g] = False
        lb.truncated[g] = False
        if lb.waiting[g] == LEARNER:
            _move(st, g, sp, lb, seed, actions[g], search)


@njit(inline="always")
def _deal_ended(st, sp, lb, seed, search):
    """Deal the successor of every ``ENDED`` game in slot order and play on, as the
    one-thread step would have."""
    for g in range(st.info.shape[0]):
        if lb.waiting[g] == ENDED:
            index = lb.next_index[0]
            lb.next_index[0] = index + 1
            _deal(st, g, sp, lb, seed, index, search)
            _settle(st, g, sp, lb, seed, search)


@njit(inline="always")
def _external_observe(st, sp, rows, obs, mask, search):
    """Observation and legal mask of the current decider of each game in ``rows``."""
    for i in range(rows.shape[0]):
        g = rows[i]
        legal_mask(st, g, sp, mask[i])
        observe_seat(st, g, sp, search, st.info[g, C.I_CURRENT], obs[i])


@njit(inline="always")
def _external_step(st, sp, lb, seed, rows, actions, mask, search):
    """Apply a Python opponent's ``actions[i]`` in game ``rows[i]`` (``mask[i]`` from
    ``external_observe``) and play on. Returns -1 or the first illegal ``i``."""
    for i in range(rows.shape[0]):
        a = actions[i]
        if a < 0 or a >= mask.shape[1] or mask[i, a] == 0:
            return i
    for i in range(rows.shape[0]):
        _move(st, rows[i], sp, lb, seed, actions[i], search)
    return -1


@njit(inline="always")
def _learner_resume(st, sp, lb, seed, lineup, search):
    """Slot 0 holds a game already under way (copied from a ``Game``): seat the learner
    at ``lb.params[0]`` and the opponents of ``lb.lineups[lineup]``, then play on to the
    learner's decision (as game ``lb.game_index[0]`` of ``seed`` for ``dealt``)."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    seat = lb.params[0]
    lb.learner[0] = seat
    lb.seat_kind[0, seat] = LEARNER
    for k in range(1, num_players):
        lb.seat_kind[0, (seat + k) % num_players] = lb.lineups[lineup, k - 1]
    lb.reward[0] = 0.0
    lb.terminated[0] = False
    lb.truncated[0] = False
    dealt(st, 0, sp, search, seed, lb.game_index[0])
    _settle(st, 0, sp, lb, seed, search)


#: ``learner_kernel`` operations
OP_RESET = 0            # deal games ``arg ..`` into every slot, play to the learner's turn
OP_STEP = 1             # the learner's ``actions[g]``; returns -1 or the first illegal slot
OP_EXTERNAL_OBSERVE = 2  # observation and mask of the decider of each game in ``rows``
OP_EXTERNAL_STEP = 3    # a Python opponent's ``actions[i]`` in game ``rows[i]``
OP_RESUME = 4           # slot 0 holds a game under way; opponents of line-up ``arg``
#: ``learner_rows_kernel`` operations
OP_STEP_ROWS = 5        # one thread's share of OP_STEP: the slots ``rows``, no deals
OP_DEAL_ENDED = 6       # deal the successors of the ENDED games, in slot order


# a kernel of its own, not inlined into the reference-counted entry point: there each
# game's inlined ``_move`` took and released a reference to every array of the state,
# the spec and the buffers (``engine.batch.vector_kernel``)
@njit
def learner_op(op, st, sp, lb, seed, arg, rows, actions, obs, mask, search):
    """One operation ``op`` (``OP_*``) on the learner batch, its moves made through the
    hooks of ``search`` (module docstring); returns -1 or the index of the first illegal
    action (then nothing changed)."""
    if op == OP_RESET:
        _learner_reset(st, sp, lb, seed, arg, search)
    elif op == OP_STEP:
        return _learner_step(st, sp, lb, seed, actions, search)
    elif op == OP_EXTERNAL_OBSERVE:
        _external_observe(st, sp, rows, obs, mask, search)
    elif op == OP_EXTERNAL_STEP:
        return _external_step(st, sp, lb, seed, rows, actions, mask, search)
    else:
        _learner_resume(st, sp, lb, seed, arg, search)
    return -1


def learner_kernel(op, state, tables, lb, seed, arg, rows, actions, obs, mask):
    """The ``learner`` entry point: ``learner_op`` without search."""
    st, sp = as_record(state), as_record(tables)  # one pointer each, for the kernels
    return learner_op(op, st, sp, lb, seed, arg, rows, actions, obs, mask, None)


def learner_record_kernel(op, state, tables, lb, seed, arg, rows, actions, obs, mask,
                          record):
    """The ``learner_record`` entry point: ``learner_op`` keeping the public record
    ``record`` (``engine.public_record``; observations with the record after them)."""
    st, sp = as_record(state), as_record(tables)
    return learner_op(op, st, sp, lb, seed, arg, rows, actions, obs, mask, record)


def learner_rows_kernel(op, state, tables, lb, seed, rows, actions):
    """The ``learner_rows`` entry point: a step split over threads, without search
    (``OP_STEP_ROWS``, ``OP_DEAL_ENDED``). An entry point of its own: compiled into
    ``learner_kernel``, these loops made the one-thread step about 10% slower."""
    st, sp = as_record(state), as_record(tables)  # one pointer each, for the kernels
    if op == OP_STEP_ROWS:
        _learner_step_rows(st, sp, lb, seed, rows, actions, None)
    else:
        _deal_ended(st, sp, lb, seed, None)
