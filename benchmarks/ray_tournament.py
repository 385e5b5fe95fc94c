"""Tournament throughput: the Ray backend on local workers against the local backend.

    python benchmarks/ray_tournament.py                      # 1,000,000 games, all cores
    python benchmarks/ray_tournament.py --games 200000 --repeat 3 --json

Both backends play the same games on every core of this machine: the local backend runs
``simulate`` on all numba threads chunk after chunk; the Ray backend starts a local Ray
instance with ``--cpus`` CPUs and runs one single-threaded task per chunk. Warm-up (numba
compilation or cache load in the driver and in every Ray worker, Ray's start-up) is
excluded; each measured figure is ``TournamentResult.elapsed`` (playing the games,
rating excluded) and the runs alternate local, ray, local, ray... so that load from other
processes hits both alike. Overhead = local games/s / Ray games/s - 1 (best run of each).
The two backends' winners are checked to be identical.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--agents", default="random,greedy,heuristic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--cpus", type=int, default=os.cpu_count())
    parser.add_argument("--repeat", type=int, default=2, help="measured runs per backend")
    parser.add_argument("--address", default=None, help="an existing Ray cluster "
                        "(default: start a local instance with --cpus CPUs)")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args(argv)

    import ray

    from uno_env.evaluation.tournament import CHUNK, tournament

    agents = tuple(a.strip() for a in args.agents.split(","))
    common = dict(preset=args.preset, num_players=args.players, seed=0, progress=False,
                  rating_games=0)
    say = (lambda *a: None) if args.json else print

    t0 = time.perf_counter()
    tournament(agents, num_games=len(agents) * 1000, **common)          # numba warm-up
    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
                 _node_ip_address="127.0.0.1")
    workers = int(ray.cluster_resources().get("CPU", 1))
    # enough chunks that every worker process loads the kernels before the measurement
    tournament(agents, num_games=len(agents) * CHUNK * 2, backend="ray", **common)
    say(f"warm-up (numba, Ray start, {workers} workers): {time.perf_counter() - t0:.1f} s")

    rates = {"local": [], "ray": []}
    winners = {}
    for rep in range(args.repeat):
        for backend in ("local", "ray"):
            r = tournament(agents, num_games=args.games, backend=backend, **common)
            rates[backend].append(r.num_games / r.elapsed)
            winners[backend] = r.winner
            say(f"run {rep + 1} {backend:5s}: {r.num_games:,} games in {r.elapsed:6.2f} s "
                f"= {rates[backend][-1]:10,.0f} games/s")
    identical = bool(np.array_equal(winners["local"], winners["ray"]))
    best = {b: max(v) for b, v in rates.items()}
    overhead = best["local"] / best["ray"] - 1
    out = {"games": args.games, "agents": list(agents), "players": args.players,
           "cpus": workers, "chunk": CHUNK,
           "local_games_per_s": [round(x) for x in rates["local"]],
           "ray_games_per_s": [round(x) for x in rates["ray"]],
           "best_local": round(best["local"]), "best_ray": round(best["ray"]),
           "overhead_percent": round(100 * overhead, 2), "identical_results": identical}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"best: local {best['local']:,.0f} games/s, ray {best['ray']:,.0f} games/s "
              f"on {workers} CPUs: Ray overhead {100 * overhead:+.1f}% "
              f"(target < 10%); identical results: {identical}")
    ray.shutdown()
    return out


if __name__ == "__main__":
    main()
