"""The panel's baseline agents in pure JAX: ``greedy`` and ``heuristic`` choose the
numba agents' moves (``uno_env.engine.policies``, ``agents.GreedyAgent`` and
``agents.HeuristicAgent``) on the JAX engine's games, so training can meet them
without leaving the device.

    action = greedy(params, state)               # int32[]: state.current_player's move
    action = heuristic(params, state)            # -1 once the game is over
    actions = jax.vmap(heuristic, in_axes=(None, 0))(params, states)

Both are pure functions of the state (what the decider's observation shows: its hand,
the discard pile's counts, the hand sizes, the colour in force, the direction, the
phase) and its legal mask (``state.legal_action_mask``, or ``mask`` if given); no
branch depends on the data, so ``jit`` and ``vmap`` run them as they are, for
``make_params`` and ``table_params`` configurations alike. Neither draws a random
number: the numba agents consume none either (ties go to the lowest action id), so a
game played by them consumes the game's stream exactly as in the numba engine.

The numba heuristic computes in float64; JAX here in float32 (``jax_enable_x64`` is
never switched on). Its colour naming and its Wild Draw Four challenge are read from
tables of the float64 decisions (``_float64_tables``: exact integers ordered 4,872
reachable pairs of naming values differently from float64, float32 decided 2 of 273,372
reachable challenge inputs differently). Its card scores are float32: two cards whose
float64 scores lie within float32's rounding of each other (about 1e-5 of a score of a
few hundred) could be ordered differently.
``tests/jax/test_policies.py`` plays the numba agents' games move by move.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from uno_env.engine import codes as C
from uno_env.engine import policies as P
import uno_env.jax.core as core

_I32, _F32 = jnp.int32, jnp.float32


class _PolicyTables(NamedTuple):
    slot: np.ndarray        # int32[K]: colour slot of each type (4: wild)
    count: np.ndarray       # int32[K]: copies in the deck
    rank: np.ndarray        # int32[K]
    points: np.ndarray      # int32[K]
    color_rank: np.ndarray  # int32[K]: the rank of a coloured type, else NUM_RANKS (none)


@lru_cache(maxsize=64)
def _ptables(params: core.Params) -> _PolicyTables:
    T = core._tables(params)
    color = T.type_color
    slot = np.where(color < C.NO_COLOR, color % 4, 4).astype(np.int32)
    count = np.bincount(T.deck, minlength=T.K).astype(np.int32)
    rank = T.type_rank.astype(np.int32)
    color_rank = np.where(slot < 4, rank, C.NUM_RANKS).astype(np.int32)
    return _PolicyTables(slot, count, rank, T.type_points.astype(np.int32), color_rank)


def _situation(params, s, mask):
    """What both baselines read (``policies._situation_from_state``): the decider's
    cards per colour slot, unseen cards per colour slot (fifth: wilds) and per
    coloured rank, its cards per rank, the other players' hand sizes by relative seat,
    the colour slot in force (-1: none), the direction, its hand size, the cards
    unseen."""
    T, Q = core._tables(params), _ptables(params)
    players = core._players(s, T)
    seat = s.seat
    hand = s.hands[seat]
    unseen_t = jnp.maximum(jnp.asarray(Q.count) - hand - s.discard_counts, 0)
    slot = jnp.asarray(Q.slot)
    onehot = slot[:, None] == jnp.arange(5, dtype=_I32)[None, :]     # [K, 5]
    counts = (onehot * hand[:, None]).sum(0)[:4]
    by_color = (onehot * unseen_t[:, None]).sum(0)
    ranks = jnp.asarray(Q.color_rank)[:, None] == jnp.arange(C.NUM_RANKS)[None, :]
    by_rank = (ranks * unseen_t[:, None]).sum(0)
    held_rank = ((jnp.asarray(Q.rank)[:, None] == jnp.arange(C.NUM_RANKS)[None, :])
                 * hand[:, None]).sum(0)
    rel = (seat + 1 + jnp.arange(T.P - 1, dtype=_I32)) % players
    opponents = s.hand_size[rel]
    color = jnp.where(s.color != C.NO_COLOR, s.color % 4, -1)
    return dict(players=players, counts=counts, by_color=by_color, by_rank=by_rank,
                held_rank=held_rank, opponents=opponents, color=color,
                forward=s.direction > 0, my_cards=s.hand_size[seat],
                unseen=by_color.sum(), phase=s.phase)


def _best_color(counts):
    return jnp.argmax(counts).astype(_I32)   # ties: the lowest slot


def _lowest_legal(mask):
    return jnp.where(mask.any(), jnp.argmax(mask), -1).astype(_I32)


def _first_of(*pairs):
    """The action of the first (condition, action) pair whose condition holds."""
    out = pairs[-1][1]
    for cond, action in reversed(pairs[:-1]):
        out = jnp.where(cond, action, out)
    return jnp.asarray(out, _I32)


def _legal(params, state, mask):
    mask = state.legal_action_mask if mask is None else mask
    return jnp.asarray(mask).astype(bool)


def greedy(params: core.Params, state: core.State, mask=None):
    """The greedy baseline's action (``agents.GreedyAgent``) for ``state``'s decider:
    catches and calls UNO; plays the legal coloured card worth most points (lowest id
    on ties), a wild only when no coloured card is playable (a Wild Draw Four only
    without a card of the colour in force) naming the colour it holds most; plays a
    playable drawn card; draws only when nothing is playable; never challenges.
    int32[]; -1 when nothing is legal."""
    T, Q = core._tables(params), _ptables(params)
    lay = T.layout
    mask = _legal(params, state, mask)
    x = _situation(params, state, mask)
    counts, phase, color = x["counts"], x["phase"], x["color"]
    best_color = _best_color(counts)
    holds_color = (color >= 0) & (counts[jnp.maximum(color, 0)] > 0)
    ids = jnp.arange(T.num_actions, dtype=_I32)
    atype = jnp.asarray(T.action_type)
    pts = jnp.asarray(Q.points)[atype]
    coloured = mask & (ids >= lay["PLAY"]) & (ids < lay["WILD"])
    c_score = jnp.where(coloured, pts, -1)
    c_best = jnp.argmax(c_score).astype(_I32)
    draw_wild = jnp.asarray(np.isin(Q.rank, (C.WILD4, C.WILD2, C.WILD_COLOR)))[atype]
    wild = (mask & (ids >= lay["WILD"]) & (ids < lay["DRAW"])
            & (jnp.asarray(T.action_slot) == best_color) & ~(draw_wild & holds_color))
    w_score = jnp.where(wild, pts, -1)
    w_best = jnp.argmax(w_score).astype(_I32)
    return _first_of(
        (~mask.any(), -1),
        (mask[lay["CATCH"]], lay["CATCH"]),
        (phase == C.PHASE_COLOR, lay["COLOR"] + best_color),
        ((phase == C.PHASE_CHALLENGE) & mask[lay["ACCEPT"]], lay["ACCEPT"]),
        (phase == C.PHASE_CHALLENGE, _lowest_legal(mask)),
        (mask[lay["UNO"]], lay["UNO"]),
        (coloured.any(), c_best),
        (wild.any(), w_best),
        (mask[lay["PASS"]], lay["PASS"]),
        (mask[lay["ACCEPT"]], lay["ACCEPT"]),
        (mask[lay["DRAW"]], lay["DRAW"]),
        (True, _lowest_legal(mask)))


#: the largest unseen count and hand (the 108-card deck) and cards of a colour slot
_MAX_CARDS, _MAX_SLOT = 108, 25


@lru_cache(maxsize=1)
def _float64_tables():
    """The numba heuristic's float64 decisions as tables, computed here in numpy with
    its very operations (float32 would decide a few reachable inputs differently):

    ``name_rank[U, c, b]``: the order of ``c - 4.0 b / max(U, 1)`` (``_name_color``'s
    value of a colour slot held ``c`` times with ``b`` unseen) among every value of the
    same ``U``: equal values, equal ranks, so a first maximum picks the slot numba picks.
    ``challenge_from[U, u]``: the least hand size ``n`` from which
    ``1 - prod_{i<n} (U - u - i) / (U - i) >= CHALLENGE_THRESHOLD`` (``_challenge_odds``
    for one colour; the product only falls as ``n`` grows, so the test holds from
    there on; ``_MAX_CARDS + 1``: never)."""
    U = np.arange(_MAX_CARDS + 1, dtype=np.float64)[:, None, None]
    c = np.arange(_MAX_SLOT + 1, dtype=np.float64)[None, :, None]
    b = np.arange(_MAX_SLOT + 1, dtype=np.float64)[None, None, :]
    value = c - P.NAME_UNSEEN_WEIGHT * 4.0 * b / np.maximum(U, 1.0)
    name_rank = np.empty(value.shape, np.int32)
    for u in range(value.shape[0]):
        _, inverse = np.unique(value[u], return_inverse=True)
        name_rank[u] = inverse.reshape(value.shape[1:])
    challenge_from = np.full((_MAX_CARDS + 1, _MAX_SLOT + 1), _MAX_CARDS + 1, np.int32)
    for total in range(_MAX_CARDS + 1):
        for u in range(_MAX_SLOT + 1):
            q = 1.0
            for n in range(_MAX_CARDS + 1):
                if 1.0 - q >= P.CHALLENGE_THRESHOLD:   # (a hand of n cards)
                    challenge_from[total, u] = n
                    break
                if total - n <= 0:
                    break
                q *= max(0.0, (total - u - n) / (total - n))
    return name_rank, challenge_from


def _name_color(counts, by_color, unseen):
    """``policies._name_color``: the colour slot held most, less (a little) its unseen
    share; first maximum of the float64 values' order (``_float64_tables``)."""
    name_rank, _ = _float64_tables()
    u = jnp.clip(unseen, 0, _MAX_CARDS)
    ranks = jnp.asarray(name_rank)[u, jnp.clip(counts, 0, _MAX_SLOT),
                                   jnp.clip(by_color[:4], 0, _MAX_SLOT)]
    return jnp.argmax(ranks).astype(_I32)


def _challenges(named, n_prev, by_color, unseen):
    """``policies._challenge_odds(...) >= CHALLENGE_THRESHOLD``: for every colour
    other than ``named`` (the one in force), a hand of ``n_prev`` unseen cards holds
    one of it almost surely (``_float64_tables``)."""
    _, challenge_from = _float64_tables()
    least = jnp.asarray(challenge_from)[jnp.clip(unseen, 0, _MAX_CARDS),
                                        jnp.clip(by_color[:4], 0, _MAX_SLOT)]
    return ((n_prev >= least) | (jnp.arange(4) == named)).all()


def heuristic(params: core.Params, state: core.State, mask=None):
    """The heuristic baseline's action (``agents.HeuristicAgent``) for ``state``'s
    decider: card counting over the unseen cards to avoid what the next player can
    follow and to name a colour, keeps to its strongest colour and to ranks it holds
    twice, holds skips, draw cards and wilds for a next player close to going out,
    challenges only a huge hand (``uno_env.engine.policies.heuristic_policy``).
    int32[]; -1 when nothing is legal."""
    T, Q = core._tables(params), _ptables(params)
    lay = T.layout
    mask = _legal(params, state, mask)
    x = _situation(params, state, mask)
    counts, by_color, by_rank = x["counts"], x["by_color"], x["by_rank"]
    opp, players, forward = x["opponents"], x["players"], x["forward"]
    phase, color, unseen, my_cards = x["phase"], x["color"], x["unseen"], x["my_cards"]
    named = _name_color(counts, by_color, unseen)
    n_next = opp[jnp.where(forward, 0, players - 2)]
    n_prev = opp[jnp.where(forward, players - 2, 0)]
    n_skip = jnp.where(players > 2, opp[jnp.where(forward, 1, jnp.maximum(players - 3, 0))],
                       -1)
    challenge = mask[lay["CHALLENGE"]] & (
        _challenges(color, n_prev, by_color, unseen))
    danger, free = n_next <= P.DANGER_CARDS, my_cards <= P.FREE_CARDS
    danger_prev = n_prev <= P.DANGER_CARDS
    holds_color = (color >= 0) & (counts[jnp.maximum(color, 0)] > 0)
    d = danger.astype(_F32)

    # every play and wild action's score (policies._card_score), one lane an action
    ids = jnp.arange(T.num_actions, dtype=_I32)
    t = jnp.asarray(T.action_type)
    rank = jnp.asarray(Q.rank)[t]
    is_wild = rank >= C.FIRST_WILD_RANK
    draw_wild = (rank == C.WILD4) | (rank == C.WILD2) | (rank == C.WILD_COLOR)
    c = jnp.where(is_wild, named, jnp.asarray(Q.slot)[t] % 4)
    freef = jnp.where(free, 1.0, 0.0)
    wild_s = jnp.where(draw_wild, jnp.where(~holds_color, P.DRAW_WILD_SCORE
                                            + P.DRAW_WILD_DANGER * d, P.BLUFF_SCORE),
                       P.WILD_SCORE + P.WILD_DANGER * d) + P.FREE_WILD * freef
    never = is_wild & draw_wild & holds_color & ~(danger & (my_cards > 1))
    is_draw = (rank == C.DRAW2) | (rank == C.DRAW1) | (rank == C.DRAW5)
    is_skip = (rank == C.SKIP) | (rank == C.SKIP_EVERYONE) | (
        (rank == C.REVERSE) & (players == 2))
    is_rev = (rank == C.REVERSE) & ~is_skip
    col_s = jnp.where(
        is_draw, P.DRAW_SCORE + P.DRAW_DANGER * d + P.FREE_ACTION * freef,
        jnp.where(is_skip, P.SKIP_SCORE + P.SKIP_DANGER * d + P.FREE_ACTION * freef,
                  jnp.where(is_rev, P.REVERSE_SCORE + P.REVERSE_DANGER * (
                      d - danger_prev.astype(_F32)), P.NUMBER_SCORE)))
    col_rank = jnp.minimum(rank, C.NUM_RANKS - 1)
    col_s = (col_s + P.SAME_RANK_WEIGHT * (x["held_rank"][col_rank] - 1).astype(_F32)
             + jnp.where(c == color, 1.0, 0.0))
    s = jnp.where(is_wild, wild_s, col_s)
    same = jnp.where(is_wild, counts[c], counts[c] - 1)
    match = by_color[c] + by_color[4] + jnp.where(is_wild, 0, by_rank[col_rank])
    mover = jnp.where(is_wild, jnp.where(draw_wild, n_skip, n_next),
                      jnp.where(is_draw | is_skip, n_skip, jnp.where(is_rev, n_prev,
                                                                     n_next)))
    miss = 1.0 - jnp.minimum(1.0, match.astype(_F32) / jnp.maximum(unseen, 1).astype(_F32))
    follow = jnp.where(mover >= 0, 1.0 - miss ** jnp.maximum(mover, 0).astype(_F32), 1.0)
    score = (s + P.SAME_COLOR_WEIGHT * same.astype(_F32)
             + jnp.asarray(Q.points)[t].astype(_F32) / 10.0 - P.FOLLOW_WEIGHT * follow)
    score = jnp.where(never, P.NEVER, score).astype(_F32)
    candidate = mask & (((ids >= lay["PLAY"]) & (ids < lay["WILD"])) | (
        (ids >= lay["WILD"]) & (ids < lay["DRAW"]) & (jnp.asarray(T.action_slot) == named)))
    score = jnp.where(candidate, score, -jnp.inf)
    best = jnp.argmax(score).astype(_I32)      # ties: the lowest id, as the numba scan
    best_score = score[best]
    has_best = best_score > P.NEVER
    best_wild = is_wild[best]
    drawn_pass = has_best & (phase == C.PHASE_DRAWN) & mask[lay["PASS"]]
    keeps = (best_score < 0.0) | (best_wild & ~danger & ~free)
    return _first_of(
        (~mask.any(), -1),
        (mask[lay["CATCH"]], lay["CATCH"]),
        (phase == C.PHASE_COLOR, lay["COLOR"] + named),
        ((phase == C.PHASE_CHALLENGE) & challenge, lay["CHALLENGE"]),
        ((phase == C.PHASE_CHALLENGE) & mask[lay["ACCEPT"]], lay["ACCEPT"]),
        (phase == C.PHASE_CHALLENGE, _lowest_legal(mask)),
        (mask[lay["UNO"]], lay["UNO"]),
        (drawn_pass, jnp.where(keeps, lay["PASS"], best)),
        (has_best & ((best_score >= 0.0) | (phase != C.PHASE_PLAY)), best),
        (mask[lay["PASS"]], lay["PASS"]),
        (mask[lay["ACCEPT"]], lay["ACCEPT"]),
        (mask[lay["DRAW"]], lay["DRAW"]),
        (has_best, best),
        (True, _lowest_legal(mask)))


#: the policies by the numba agents' names
POLICIES = {"greedy": greedy, "heuristic": heuristic}
