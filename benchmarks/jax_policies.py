"""The JAX baseline agents against the numba ones on many games
(``uno_env.jax.policies``; tests/jax/test_policies.py at thousands of games).

    python benchmarks/jax_policies.py                      # 500 games a configuration
    python benchmarks/jax_policies.py --games 100 --configs classic-2,teams-4

For each configuration and agent (greedy, heuristic): the agent in every seat on both
engines, ``EverySeatBatch`` with the numba agent and a JAX batch with the JAX policy,
the same games by seed; the actions and rewards must agree at every step
(``_identity.compare_policy``). Prints the games and steps compared per configuration,
with the time; exits non-zero at the first difference. Needs the ``jax`` extra.
"""
from __future__ import annotations

import argparse
import sys
import time

from uno_env.jax._identity import compare_policy

CONFIGS = [("classic", p) for p in range(2, 11)] + [("teams", 4)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games a configuration")
    parser.add_argument("--batch", type=int, default=250, help="games per batch")
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--configs", default="",
                        help="comma-separated (classic-4, teams-4, ...); default all")
    args = parser.parse_args(argv)
    names = [f"{p}-{n}" for p, n in CONFIGS]
    chosen = [c for c, n in zip(CONFIGS, names)
              if not args.configs or n in args.configs.split(",")]
    if not chosen:
        parser.error(f"no configuration named {args.configs!r}; valid: {', '.join(names)}")
    start, games, steps = time.perf_counter(), 0, 0
    print(f"{'configuration':14} {'agent':10} {'games':>7} {'steps':>9} {'s':>6}")
    for preset, players in chosen:
        largest = 4 if preset == "teams" else 10   # one program per preset
        for agent in ("greedy", "heuristic"):
            t0, done = time.perf_counter(), {"games": 0, "steps": 0}
            for lo in range(0, args.games, args.batch):
                n = min(args.batch, args.games - lo)
                out = compare_policy(agent, preset, players, n, args.seed + lo,
                                     max_players=largest)
                done["games"] += out["games"]
                done["steps"] += out["steps"]
            games, steps = games + done["games"], steps + done["steps"]
            print(f"{preset}-{players:<6} {agent:10} {done['games']:>7,} "
                  f"{done['steps']:>9,} {time.perf_counter() - t0:>6.0f}", flush=True)
    print(f"identical: {games:,} games, {steps:,} moves compared, "
          f"in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
