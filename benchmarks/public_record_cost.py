"""What the public record (``public_record=True``, docs/environments.md) costs a step.

Two loops, each with and without the record, interleaved (``--repeat`` rounds, medians):

* ``EverySeatBatch``: B games (default 1,024, classic, 4 players), random legal actions
  drawn before the timed step (as ``../shared/limit/limit.py`` times its ``VectorEnv``
  row): nanoseconds per game step (mask + observation of the next decider);
* ``LearnerBatch``: B / 4 games with ``heuristic`` opponents played inside numba, the
  learner's first legal action: the learner's decisions per second (each step also
  plays the opponents' moves up to the learner's next decision).

Kernels are compiled (or loaded) before timing. Prints one table; ``--json`` writes it.

    nice -n 5 python benchmarks/public_record_cost.py --seconds 3 --repeat 3
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from uno_env.envs.every_seat import EverySeatBatch
from uno_env.envs.single_seat import LearnerBatch


def time_vector(record: bool, batch: int, players: int, seconds: float) -> float:
    """ns per game step of ``EverySeatBatch``."""
    env = EverySeatBatch(batch, "classic", players, seed=1, public_record=record)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        env.step(env.random_actions(rng))
    steps, spent = 0, 0.0
    while spent < seconds:
        actions = env.random_actions(rng)
        t = time.perf_counter()
        env.step(actions)
        spent += time.perf_counter() - t
        steps += 1
    return spent / (steps * batch) * 1e9


def time_learner(record: bool, batch: int, players: int, seconds: float) -> float:
    """The learner's decisions per second in ``LearnerBatch`` (the opponents' moves,
    made inside the same step, are noted in the record too)."""
    env = LearnerBatch(batch, "classic", players, opponents="heuristic", seed=1,
                       threads=1, public_record=record)
    obs, mask = env.reset()
    steps, spent = 0, 0.0
    while spent < seconds:
        actions = mask.argmax(axis=1).astype(np.int64)
        t = time.perf_counter()
        obs, mask, *_ = env.step(actions)
        spent += time.perf_counter() - t
        steps += 1
    return steps * batch / spent


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    for record in (False, True):  # compile or load both before timing
        time_vector(record, 16, args.players, 0.01)
        time_learner(record, 16, args.players, 0.01)
    rows = {"vector ns/game-step": {False: [], True: []},
            "learner decisions/s": {False: [], True: []}}
    for _ in range(args.repeat):
        for record in (False, True):
            rows["vector ns/game-step"][record].append(
                time_vector(record, args.batch, args.players, args.seconds))
            rows["learner decisions/s"][record].append(
                time_learner(record, args.batch // 4, args.players, args.seconds))
    out = {}
    print(f"classic, {args.players} players, {args.repeat} interleaved repeats (median, "
          f"min-max)")
    print(f"{'row':24s} {'plain':>22s} {'public_record':>22s} {'ratio':>7s}")
    for name, by in rows.items():
        a, b = statistics.median(by[False]), statistics.median(by[True])
        out[name] = {"plain": by[False], "public_record": by[True]}
        fmt = (lambda v: f"{v:,.0f}")
        print(f"{name:24s} {fmt(a):>10s} ({fmt(min(by[False]))}-{fmt(max(by[False]))})"
              f" {fmt(b):>10s} ({fmt(min(by[True]))}-{fmt(max(by[True]))}) "
              f"{b / a:7.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
