"""The figures of docs/benchmark.md's "Duplicate play": per 4-player track, from the
stored reference results alone (``uno_env/evaluation/duplicate_refs``), for the
members that differ from the heuristic (``greedy``, the track's PPO model):

* the 95% interval of the edge over ``heuristic`` at equal games, under uno-bench/5
  (independent games, the agent's seat rotated: the interval of its win rate) and
  under uno-bench/6 (duplicate deals, paired: the per-deal differences);
* the games needed to detect a 1- and a 2-point edge (points of win rate) over
  ``heuristic`` at 5% two-sided and 80% power, under each (``n = ((z_.975 + z_.8)
  sd / edge)^2`` with the per-game sd measured here: ``sqrt(p (1 - p))`` under /5,
  the per-deal sd times 2 (four games a deal) under /6);
* the variance a control variate removes beyond the pairing: the mean result of the
  other reference agents on the same deal (their win rate, or round points), with its
  coefficient fitted on the first half of the deals and measured on the second half.

    python benchmarks/duplicate_power.py
"""
from __future__ import annotations

import numpy as np

from uno_env.evaluation.benchmark import TRACKS
from uno_env.evaluation.duplicate import load_references

Z, ZP = 1.959963984540054, 0.8416212335729143


def main() -> None:
    print("| track | agent | deals | edge over heuristic | 95% half-width /5 | /6 | "
          "variance ratio /6 : /5 | games for 1 pt /5 | /6 | games for 2 pt /5 | /6 | "
          "control variate: variance removed (win rate, points) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, tr in TRACKS.items():
        refs = load_references(tr)
        if not refs:
            continue
        hw, hp = refs["heuristic"]
        for agent in ("greedy", tr.model):
            won, pts = refs[agent]
            n, games = won.shape[0], won.size
            p = won.mean()
            d = won.mean(axis=1) - hw.mean(axis=1)
            sd5, sd6 = np.sqrt(p * (1 - p)), 2 * d.std(ddof=1)   # per game
            half5, half6 = Z * sd5 / np.sqrt(games), Z * sd6 / np.sqrt(games)
            need = [int(np.ceil(((Z + ZP) * sd / e) ** 2)) for e in (0.01, 0.02)
                    for sd in (sd5, sd6)]
            removed = []
            for mine, ref_key in ((won, 0), (pts, 1)):
                others = [m for m in tr.panel if m not in (agent, "heuristic")]
                c = np.mean([refs[m][ref_key].mean(axis=1) for m in others], axis=0)
                y = mine.mean(axis=1) - refs["heuristic"][ref_key].mean(axis=1)
                h = n // 2
                beta = np.cov(y[:h], c[:h])[0, 1] / c[:h].var(ddof=1)
                adj = y[h:] - beta * (c[h:] - c[:h].mean())
                removed.append(1 - adj.var(ddof=1) / y[h:].var(ddof=1))
            print(f"| {name} | {agent} | {n:,} | {100 * d.mean():+.2f} | "
                  f"{100 * half5:.2f} | {100 * half6:.2f} | {(sd6 / sd5) ** 2:.2f} | "
                  f"{need[0]:,} | {need[1]:,} | {need[2]:,} | {need[3]:,} | "
                  f"{100 * removed[0]:+.1f}%, {100 * removed[1]:+.1f}% |", flush=True)


if __name__ == "__main__":
    main()
