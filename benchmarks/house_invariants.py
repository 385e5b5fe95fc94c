"""Random play with invariant checks after every step, inside numba (issue [house-rules]:
"random play with all flags on runs a million games without a broken invariant").

    python benchmarks/house_invariants.py --preset chaos --players 4 --games 1000000

Every game is game ``i`` of the seed, played by the random agent exactly as ``simulate``
plays it, so the winners and turns must equal ``simulate``'s game by game (checked on
the first ``--compare`` games). After every step: each card of the deck is in exactly
one place (hands, draw pile, discard pile), ``hand_size`` and ``discard_counts`` agree
with the contents, the legal-action count equals the mask's set entries and is > 0
while playing, the decider is a seat, the pending draw is 0 outside the phases that
hold one (stack, challenge, jump-in window, multi-play). At the end: a terminated game
has one empty hand (the winner's), zero-sum rewards, and round points as docs/rules.md 2/3
define them (teams: the other team's cards).
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from uno_env import make_config
from uno_env._jit import njit
from uno_env.engine import codes as C
from uno_env.engine.rounds import hand_points, reset_game
from uno_env.engine.variants import apply_action, legal_mask, random_legal
from uno_env.engine.rng import seed_stream
from uno_env.engine.state import allocate
from uno_env.simulation import simulate

ERRORS = ("ok", "conservation", "hand_size", "discard_counts", "no legal action",
          "count != mask", "decider", "pending draw", "winner hand", "rewards",
          "round points", "stuck")


@njit
def _check(st, g, sp, counts):
    k = st.hands.shape[2]
    counts[:] = 0
    for s in range(sp.rules[C.R_NUM_PLAYERS]):
        n = 0
        for t in range(k):
            if st.hands[g, s, t] < 0:
                return 1
            counts[t] += st.hands[g, s, t]
            n += st.hands[g, s, t]
        if n != st.hand_size[g, s]:
            return 2
    for i in range(st.info[g, C.I_DRAW_LEN]):
        counts[st.draw_pile[g, i]] += 1
    disc = np.zeros(k, np.int64)
    for i in range(st.info[g, C.I_DISCARD_LEN]):
        disc[st.discard[g, i]] += 1
    for t in range(k):
        if disc[t] != st.discard_counts[g, t]:
            return 3
        if counts[t] + disc[t] != sp.type_count[t]:
            return 1
    phase = st.info[g, C.I_PHASE]
    if st.info[g, C.I_STATUS] == C.STATUS_PLAYING:
        cur = st.info[g, C.I_CURRENT]
        if cur < 0 or cur >= sp.rules[C.R_NUM_PLAYERS]:
            return 6
        pend = st.info[g, C.I_PENDING_DRAW]
        # a total is pending while it is answered, held back by a jump-in window, or
        # grown by a multi-card play of draw cards
        if pend < 0 or (pend > 0 and phase != C.PHASE_STACK and phase != C.PHASE_CHALLENGE
                        and phase != C.PHASE_JUMP_IN and phase != C.PHASE_MULTI):
            return 7
    return 0


@njit
def _check_end(st, g, sp):
    if st.info[g, C.I_STATUS] != C.STATUS_OVER:
        return 0
    p = sp.rules[C.R_NUM_PLAYERS]
    w = st.info[g, C.I_WINNER]
    if w < 0 or st.hand_size[g, w] != 0:
        return 8
    total_r = 0.0
    for q in range(p):
        total_r += st.rewards[g, q]
        if q != w and st.hand_size[g, q] == 0:
            return 8
    if abs(total_r) > 1e-3:
        return 9
    if sp.rules[C.R_TARGET_SCORE] == 0 and sp.rules[C.R_SCORING] == C.SCORING_WINNER:
        expect = 0
        for q in range(p):
            if q != w and (sp.rules[C.R_TEAMS] == 0 or (q - w) % 2 != 0):
                expect += hand_points(st, g, sp, q)
        for q in range(p):
            if st.round_points[g, q] != (expect if q == w else 0):
                return 10
    return 0


@njit
def run_checked(st, sp, seed, first, out_winner, out_turns, out_steps, max_steps):
    """Play games ``first ..`` (one per slot) with random legal actions, checking after
    every step. Returns (error code, game index) of the first failure, or (0, -1)."""
    mask = np.zeros(sp.layout[C.L_SIZE], np.uint8)
    counts = np.zeros(st.hands.shape[2], np.int64)
    for g in range(st.info.shape[0]):
        st.rng[g] = seed_stream(seed, first + g)
        reset_game(st, g, sp)
        e = _check(st, g, sp, counts)
        if e:
            return e, first + g
        steps = 0
        while st.info[g, C.I_STATUS] == C.STATUS_PLAYING:
            n = legal_mask(st, g, sp, mask)
            if n == 0:
                return 4, first + g
            set_entries = 0
            for a in range(mask.shape[0]):
                if mask[a] != 0:
                    set_entries += 1
            if set_entries != n:
                return 5, first + g
            a = random_legal(st, g, sp, mask)
            apply_action(st, g, sp, a)
            steps += 1
            e = _check(st, g, sp, counts)
            if e:
                return e, first + g
            if steps > max_steps:
                return 11, first + g
        e = _check_end(st, g, sp)
        if e:
            return e, first + g
        out_winner[g] = st.info[g, C.I_MATCH_WINNER]
        out_turns[g] = st.info[g, C.I_TURNS]
        out_steps[g] = steps
    return 0, -1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="chaos")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=10_000)
    ap.add_argument("--compare", type=int, default=20_000,
                    help="games compared with simulate() game by game")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--progress", action="store_true", help="print a line per chunk")
    args = ap.parse_args(argv)
    cfg = make_config(args.preset, args.players)
    winners, turns, steps = (np.empty(args.games, np.int32) for _ in range(3))
    start = time.perf_counter()
    for lo in range(0, args.games, args.chunk):
        hi = min(lo + args.chunk, args.games)
        st = allocate(hi - lo, cfg.num_players, cfg.deck.num_types, cfg.deck.num_cards)
        err, game = run_checked(st, cfg.spec, np.uint64(args.seed), lo, winners[lo:hi],
                                turns[lo:hi], steps[lo:hi], 100 * cfg.rules.max_turns)
        if err:
            raise SystemExit(f"broken invariant {ERRORS[err]!r} in game {game} of seed "
                             f"{args.seed} ({args.preset}, {args.players} players)")
        if args.progress:
            print(f"{hi:,} games checked, {time.perf_counter() - start:.0f} s", flush=True)
    elapsed = time.perf_counter() - start
    n_cmp = min(args.compare, args.games)
    sim = simulate(args.preset, args.players, num_games=n_cmp, seed=args.seed, threads=1)
    same = bool((sim.winner == winners[:n_cmp]).all() and (sim.turns == turns[:n_cmp]).all()
                and (sim.steps == steps[:n_cmp]).all())
    report = {"preset": args.preset, "players": args.players, "games": args.games,
              "seed": args.seed, "broken_invariants": 0, "steps": int(steps.sum()),
              "elapsed_s": round(elapsed, 1), "truncated": int((winners < 0).sum()),
              "mean_turns": float(turns.mean()), "same_as_simulate": same,
              "compared": n_cmp}
    print(json.dumps(report, indent=2) if args.json else report)
    if not same:
        raise SystemExit("the checked run and simulate() disagree")


if __name__ == "__main__":
    main()
