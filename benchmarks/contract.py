"""The contract suite (``uno_env.testing``) on many games: random play (or an agent in
every seat) with every invariant checked after every step, in chunks of games.

    python benchmarks/contract.py --preset chaos --players 4 --games 100000

Chunk ``c`` plays games ``c * chunk ..`` of the seed through one ``EverySeatBatch``
(``check_random_play``), then (``--replay``) replays them through ``Game`` and a smaller
``EverySeatBatch``. ``simulate`` = ``Game`` and the thread/batch-size independence are
checked once on ``--compare`` games. Prints the games, decisions and truncations
checked, and the time; exits non-zero with the check's message on a broken contract.
"""
from __future__ import annotations

import argparse
import json
import time

from uno_env.testing import (
    check_random_play,
    check_simulate_independence,
    check_simulate_matches_game,
    check_vector_batch_size,
    check_vector_matches_game,
)


def run(preset: str, players: int, games: int, seed: int = 0, chunk: int = 256,
        agent: str = "random", replay: bool = False, compare: int = 200,
        progress: bool = False, **rules) -> dict:
    start = time.perf_counter()
    decisions = truncated = hidden = 0
    phases: set = set()
    for lo in range(0, games, chunk):
        n = min(chunk, games - lo)
        report = check_random_play(preset, players, n, seed, agent=agent, first_game=lo,
                                   hidden_every=7, **rules)
        if replay:
            check_vector_matches_game(report)
            check_vector_batch_size(report)
        decisions += report.decisions
        truncated += report.truncated
        hidden += report.hidden_checks
        phases |= report.phases
        if progress:
            print(f"{lo + n:,} games checked, {time.perf_counter() - start:.0f} s",
                  flush=True)
    checked = time.perf_counter() - start
    n_cmp = min(compare, games)
    check_simulate_matches_game(preset, players, n_cmp, seed, **rules)
    check_simulate_independence(preset, players, n_cmp, seed, **rules)
    return {"preset": preset, "players": players, "rules": rules, "agent": agent,
            "games": games, "seed": seed, "decisions": decisions, "broken_contracts": 0,
            "truncated": truncated, "hidden_checks": hidden, "phases": sorted(phases),
            "checked_s": round(checked, 1),
            "decisions_per_s": round(decisions / max(checked, 1e-9)),
            "simulate_compared": n_cmp}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="chaos")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=256, help="games per EverySeatBatch")
    ap.add_argument("--agent", default="random", choices=("random", "greedy", "heuristic"))
    ap.add_argument("--replay", action="store_true",
                    help="also replay every chunk through Game and a smaller EverySeatBatch")
    ap.add_argument("--compare", type=int, default=200,
                    help="games compared with simulate() game by game")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--progress", action="store_true", help="print a line per chunk")
    args = ap.parse_args(argv)
    try:
        report = run(args.preset, args.players, args.games, args.seed, args.chunk,
                     args.agent, args.replay, args.compare, args.progress)
    except AssertionError as err:
        raise SystemExit(f"broken contract: {err}") from None
    print(json.dumps(report, indent=2) if args.json else report)


if __name__ == "__main__":
    main()
