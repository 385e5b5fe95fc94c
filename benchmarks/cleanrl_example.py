"""A longer run of ``examples/cleanrl_ppo_masked.py``: the win rate against ``random``
before training and at the end, on the same deals (2-player classic).

    python benchmarks/cleanrl_example.py                          # a few minutes here
    python benchmarks/cleanrl_example.py --total-timesteps 2000000 --json

The example's own evaluation runs before the first update, every ``--eval-every``
updates and at the end: the greedy policy against random on the same
``--eval-games`` deals each time, with a 95% Wilson interval. A uniformly random legal
move on the same deals (the opponent's own play) is the reference row; such games often
reach ``max_turns`` and count as not won, so it wins well under half.
Exit status 1 if the final interval does not lie above the first. Needs torch (the
``rl`` extra).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import sys
import time

import numpy as np

import uno_env

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load_example():
    path = ROOT / "examples" / "cleanrl_ppo_masked.py"
    spec = importlib.util.spec_from_file_location("cleanrl_ppo_masked", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class UniformLegal:
    """The reference: a uniformly random legal action (what ``random`` itself plays)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, observations, masks):
        return (self.rng.random(np.shape(masks)) * (np.asarray(masks) != 0)).argmax(axis=1)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-timesteps", type=int, default=250_000)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval-games", type=int, default=2000)
    p.add_argument("--eval-every", type=int, default=10)
    p.add_argument("--json", action="store_true", help="print the figures as JSON too")
    ours = p.parse_args(argv)
    example = load_example()
    args = example.parse_args([
        "--total-timesteps", str(ours.total_timesteps), "--num-envs", str(ours.num_envs),
        "--seed", str(ours.seed), "--eval-games", str(ours.eval_games),
        "--eval-every", str(ours.eval_every)])
    reference = uno_env.evaluate(UniformLegal(ours.seed), **example.eval_settings(args))
    start = time.time()
    rows = example.train(args)
    minutes = (time.time() - start) / 60
    first, last = rows[0], rows[-1]
    print()
    print(f"masked PPO (examples/cleanrl_ppo_masked.py), 2-player classic vs random, "
          f"{last['global_step']:,} steps in {minutes:.1f} min, {args.num_envs} envs, "
          f"seed {args.seed}; {args.eval_games} evaluation games (same deals each time)")
    print("| policy | update | steps | win rate vs random [95% CI] |")
    print("|---|---|---|---|")
    print(f"| uniform random legal move (reference; {reference['truncated']} games cut "
          f"at max_turns) | - | - | {reference['win_rate']:.3f} "
          f"[{reference['ci'][0]:.3f}, {reference['ci'][1]:.3f}] |")
    for name, r in (("PPO greedy, start (untrained)", first), ("PPO greedy, end", last)):
        print(f"| {name} | {r['update']} | {r['global_step']:,} | {r['win_rate']:.3f} "
              f"[{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] |")
    rose = last["ci"][0] > first["ci"][1]
    print(f"the win rate {'rose' if rose else 'did NOT rise clearly'}: "
          f"{first['win_rate']:.3f} -> {last['win_rate']:.3f}")
    if ours.json:
        print(json.dumps({"minutes": round(minutes, 2), "reference": reference["win_rate"],
                          "evaluations": rows}))
    return 0 if rose else 1


if __name__ == "__main__":
    sys.exit(main())
