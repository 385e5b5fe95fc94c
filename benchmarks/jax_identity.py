"""The JAX engine against the numba engine on many games (docs/jax-identity.md):
the identity tests of tests/jax/test_identity.py at thousands of games a configuration.

    python benchmarks/jax_identity.py                 # 2,000 + 500 games a configuration
    python benchmarks/jax_identity.py --games 200 --step-games 64 --configs classic-4

For each configuration (every supported preset and player count, and the flag groups
of the tests): ``uno_env.jax.simulate`` against ``uno_env.simulate(agents="random")``
game by game (``--games``); a JAX batch against ``EverySeatBatch`` step by step with the
random agent drawing from the games' own streams, its games' results against
``uno_env.simulate`` too (``--step-games``, in batches of ``--batch``); and step by step
with actions drawn by numpy (a fifth as many games). Prints the games and steps
compared per configuration and in all, with the time; exits non-zero at the first
difference.
Needs the ``jax`` extra.
"""
from __future__ import annotations

import argparse
import sys
import time

from uno_env.jax._identity import (
    CONFIGS, compare_every_seat, compare_random_play, compare_simulate, config_name)

name = config_name


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000,
                        help="random games a configuration against uno_env.simulate")
    parser.add_argument("--step-games", type=int, default=500,
                        help="games a configuration stepped beside EverySeatBatch")
    parser.add_argument("--batch", type=int, default=250,
                        help="games per JAX batch (simulate) / EverySeatBatch")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--configs", default="",
                        help="comma-separated names (classic-4, teams-4, ...); default all")
    args = parser.parse_args(argv)
    chosen = [c for c in CONFIGS
              if not args.configs or name(*c) in args.configs.split(",")]
    if not chosen:
        parser.error(f"no configuration named {args.configs!r}; valid: "
                     f"{', '.join(name(*c) for c in CONFIGS)}")
    totals = {"sim_games": 0, "sim_steps": 0, "step_games": 0, "step_steps": 0}
    start = time.perf_counter()
    print(f"{'configuration':52} {'sim games':>9} {'sim steps':>11} {'step games':>10} "
          f"{'steps':>10} {'s':>6}")
    for preset, players, flags in chosen:
        t0 = time.perf_counter()
        sim = compare_simulate(preset, players, args.games, args.seed,
                               batch_size=min(args.batch, args.games), **flags)
        stepped = {"games": 0, "steps": 0}
        for lo in range(0, args.step_games, args.batch):
            n = min(args.batch, args.step_games - lo)
            # each batch from its own seed: EverySeatBatch deals games 0..n-1 of a seed
            for out in (compare_random_play(preset, players, n, args.seed + 1 + lo,
                                            **flags),
                        compare_every_seat(preset, players, max(1, n // 5),
                                           args.seed + 2 + lo, action_seed=lo, **flags)):
                stepped["games"] += out["games"]
                stepped["steps"] += out["steps"]
        totals["sim_games"] += sim["games"]
        totals["sim_steps"] += sim["steps"]
        totals["step_games"] += stepped["games"]
        totals["step_steps"] += stepped["steps"]
        print(f"{name(preset, players, flags):52} {sim['games']:>9,} {sim['steps']:>11,} "
              f"{stepped['games']:>10,} {stepped['steps']:>10,} "
              f"{time.perf_counter() - t0:>6.0f}", flush=True)
    print(f"all {len(chosen)} configurations identical: {totals['sim_games']:,} whole games "
          f"({totals['sim_steps']:,} decisions) against uno_env.simulate, "
          f"{totals['step_games']:,} games ({totals['step_steps']:,} steps) compared step "
          f"by step against EverySeatBatch, in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
