"""Calibration of the paired edge (docs/benchmark.md, "Duplicate play"): how often its
95% interval holds the true edge, on unseen deals of classic-4p.

    python benchmarks/duplicate_calibration.py --deals 5000 --blocks 200

``NoisyHeuristic(p)`` (the heuristic's move, with probability ``p`` a random one;
``uno_env.evaluation.calibration``) against (a) a twin of its own strength (another
seed: true edge exactly 0) and (b) the heuristic (true edge: all blocks pooled); each
block of ``deals / blocks`` consecutive deals is one replication. Prints the coverage
and its binomial standard error.

    nice -n 5 python benchmarks/duplicate_calibration.py --sequential --deals 8000 --blocks 100

``--sequential``: the coverage of the sequential budget (a slow agent's early stop,
docs/benchmark.md "Budgets by cost"): each block is one card's planned deals, looked at
after 1/8, 1/4, 1/2 and all of them, stopped when the win-rate interval (at its
Bonferroni-adjusted level) is narrow enough (``--target``, default 0.4 points scaled to
the block) or excludes 0; prints the coverage of the stopped interval and where the
blocks stopped.

    python benchmarks/duplicate_calibration.py --resample --reps 1000

``--resample``: the same rule at a card's real size (the track's deals planned) on
resamplings of the stored references' per-deal edges over the heuristic (deals drawn
with replacement: a population whose true edge is known), as they are and centred
(true edge 0); prints the coverage and the deals a card would play (numpy only).
"""
from __future__ import annotations

import argparse
import math
import time

from uno_env.evaluation.benchmark import TRACKS
from uno_env.evaluation.calibration import coverage, sequential_coverage


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--track", default="classic-4p")
    ap.add_argument("--deals", type=int, default=5000)
    ap.add_argument("--blocks", type=int, default=200)
    ap.add_argument("--p", default="0.05,0.2")
    ap.add_argument("--seed", type=int, default=70001)
    ap.add_argument("--sequential", action="store_true",
                    help="the sequential budget's stopping rule instead")
    ap.add_argument("--target", type=float, default=None,
                    help="--sequential: the half-width that stops (win rate; default "
                         "0.004 * sqrt(10000 / block))")
    ap.add_argument("--resample", action="store_true",
                    help="the sequential rule on resampled stored references")
    ap.add_argument("--reps", type=int, default=1000)
    args = ap.parse_args(argv)
    if args.resample:
        return _resample(args)
    if args.sequential:
        return _sequential(args)
    print("| p | against | blocks x deals | true edge (win rate, points) | coverage, "
          "win rate | coverage, round points |")
    print("|---:|---|---|---|---:|---:|")
    for p in [float(x) for x in args.p.split(",")]:
        for against in ("twin", "heuristic"):
            t0 = time.perf_counter()
            r = coverage(TRACKS[args.track], p, args.deals, args.blocks, args.seed, against)
            se = math.sqrt(0.95 * 0.05 / args.blocks)
            print(f"| {p:g} | {against} | {args.blocks} x {args.deals // args.blocks} | "
                  f"{100 * r['truth']['win_rate']:+.2f} pt, {r['truth']['points']:+.2f} | "
                  f"{r['win_rate']:.3f} (+-{se:.3f}) | {r['points']:.3f} | "
                  f"<!-- {time.perf_counter() - t0:.0f} s -->", flush=True)


def _sequential(args) -> None:
    print("| p | against | blocks x deals | target (pt) | true edge (pt) | coverage, win "
          "rate | stopped at (deals: blocks) | why |")
    print("|---:|---|---|---:|---:|---:|---|---|")
    for p in [float(x) for x in args.p.split(",")]:
        for against in ("twin", "heuristic"):
            t0 = time.perf_counter()
            r = sequential_coverage(TRACKS[args.track], p, args.deals, args.blocks,
                                    args.seed, against, args.target)
            se = math.sqrt(0.95 * 0.05 / args.blocks)
            print(f"| {p:g} | {against} | {args.blocks} x {args.deals // args.blocks} | "
                  f"{100 * r['target']:.2f} | {100 * r['truth']:+.2f} | "
                  f"{r['coverage']:.3f} (+-{se:.3f}) | "
                  f"{', '.join(f'{n}: {c}' for n, c in r['stops'].items())} | "
                  f"{', '.join(f'{k}: {c}' for k, c in r['reasons'].items())} | "
                  f"<!-- {time.perf_counter() - t0:.0f} s -->", flush=True)


def _resample(args) -> None:
    import numpy as np

    from uno_env.evaluation.duplicate import load_references, sequential_edge
    track = TRACKS[args.track]
    refs = load_references(track)
    planned = track.duplicate.deals
    rng = np.random.default_rng(args.seed)
    print(f"{args.track}: {planned:,} deals planned, {args.reps} resamplings each")
    print("| member | true edge (pt) | coverage | stopped at (deals: share) | mean deals "
          "played |")
    print("|---|---:|---:|---|---:|")
    for m in refs:
        if m == track.duplicate.opponent:
            continue
        d = refs[m][0].mean(axis=1) - refs[track.duplicate.opponent][0].mean(axis=1)
        for centred in (False, True):
            pop = d - d.mean() if centred else d
            truth, hits, stops = pop.mean(), 0, []
            for _ in range(args.reps):
                e = sequential_edge(pop[rng.integers(0, len(pop), planned)])
                hits += e["ci"][0] - 1e-9 <= truth <= e["ci"][1] + 1e-9
                stops.append(e["deals"])
            ns, counts = np.unique(stops, return_counts=True)
            print(f"| {m}{' (centred)' if centred else ''} | {100 * truth:+.2f} | "
                  f"{hits / args.reps:.3f} | "
                  f"{', '.join(f'{n:,}: {c / args.reps:.2f}' for n, c in zip(ns, counts))}"
                  f" | {np.mean(stops):,.0f} |", flush=True)


if __name__ == "__main__":
    main()
