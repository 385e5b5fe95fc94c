"""Evaluation of the shipped 4-player PPO models (issue 18), and their training curves.

    python benchmarks/models.py                          # every shipped 4-player model
    python benchmarks/models.py --models ppo_flip_4p --games 4000 --json out.json
    python benchmarks/models.py --curve runs/flip/eval.csv --name ppo_flip_4p

Each row is ONE model seat against ``players - 1`` copies of an opponent (``random``,
``greedy``, ``heuristic``), in the model's own preset. The model sits in every seat
equally: seat ``s`` plays games ``0 .. games/players - 1`` of the seed (``uno_env.envs.single_seat
.evaluate`` with ``seat=s``), so every seat meets the same deals and the rotation
balances them. The win rate is the model's share of all games (a truncated game is no
win), with its 95% Wilson interval; chance is ``1 / players``.

``--curve`` plots a training run's ``eval.csv`` (``uno-bench train``) -- win rate with its
95% interval against each evaluation opponent, over the training steps (step 0: the
network after the ``--imitate`` warm start) -- to ``docs/figures/<name>_curve.png``.
"""
from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"
OPPONENTS = ("heuristic", "greedy", "random")


def seat_rotated(agent, opponent: str, games: int, seed: int) -> dict:
    """The model's wins against ``players - 1`` ``opponent`` seats over ``games`` games
    (rounded down to a multiple of the player count), each seat equally."""
    from uno_env.evaluation.win_rate import evaluate
    from uno_env.evaluation.stats import wilson

    cfg = agent.config
    players = cfg.num_players
    per_seat = games // players
    wins, truncated, by_seat, t0 = 0, 0, [], time.perf_counter()
    for s in range(players):
        r = evaluate(agent, opponent, per_seat, cfg.preset, players, seed=seed, seat=s,
                     **cfg.rule_overrides())
        wins += r["wins"]
        truncated += r["truncated"]
        by_seat.append(round(r["win_rate"], 4))
    n = per_seat * players
    low, high = wilson(wins, n)
    return {"opponent": opponent, "games": n, "wins": wins, "win_rate": wins / n,
            "ci": [low, high], "by_seat": by_seat, "truncated": truncated,
            "chance": 1 / players, "seconds": round(time.perf_counter() - t0, 1)}


def evaluate_model(name: str, games: int, seed: int, opponents=OPPONENTS) -> dict:
    from agents.ppo import PPOAgent
    agent = PPOAgent.load(name)
    cfg = agent.config
    return {"model": name, "preset": cfg.preset, "players": cfg.num_players,
            "trained_steps": agent.meta.get("trained_steps"), "seed": seed,
            "rows": [seat_rotated(agent, opp, games, seed) for opp in opponents]}


def plot_curve(eval_csv, name: str, out=None) -> Path:
    """``eval.csv`` of a training run -> a PNG of win rate (95% interval) vs steps."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(eval_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        sel = [r for r in rows if r["opponent"] == opp]
        x = [int(r["steps"]) / 1e6 for r in sel]
        y = [float(r["win_rate"]) for r in sel]
        lo = [float(r["ci_low"]) for r in sel]
        hi = [float(r["ci_high"]) for r in sel]
        ax.plot(x, y, marker="o", ms=3, label=f"vs {opp} ({sel[0]['games']} games)")
        ax.fill_between(x, lo, hi, alpha=0.25)
    if rows and int(rows[0]["steps"]) == 0:
        ax.annotate("after imitating\nthe heuristic", (0, float(rows[0]["win_rate"])),
                    xytext=(6, -24), textcoords="offset points", fontsize=7)
    players = int(name.rsplit("_", 1)[-1].rstrip("p"))   # ppo_<track>_<N>p
    ax.axhline(1 / players, color="grey", ls="--", lw=1, label=f"chance 1/{players}")
    ax.set_xlabel("training steps (millions)")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(f"{name}: evaluation during training")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = Path(out) if out else FIGURES / f"{name}_curve.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=None,
                    help="comma-separated models (default: every shipped 4-player model)")
    ap.add_argument("--games", type=int, default=2000, help="games per row")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--opponents", default=",".join(OPPONENTS))
    ap.add_argument("--json", default=None, help="also write the results to this file")
    ap.add_argument("--curve", default=None, help="a training run's eval.csv to plot")
    ap.add_argument("--name", default=None, help="the model name of --curve")
    args = ap.parse_args(argv)
    if args.curve:
        print(f"wrote {plot_curve(args.curve, args.name or Path(args.curve).parent.name)}")
        return None

    from agents.ppo import shipped_models
    names = args.models.split(",") if args.models else \
        [m for m in shipped_models() if m.endswith("_4p")]
    results = []
    for name in names:
        res = evaluate_model(name, args.games, args.seed, args.opponents.split(","))
        results.append(res)
        print(f"{name}: {res['preset']}, {res['players']} players, trained "
              f"{res['trained_steps'] or 0:,} steps; seed {args.seed}, model seat rotated")
        for r in res["rows"]:
            lo, hi = r["ci"]
            print(f"  vs {res['players'] - 1} {r['opponent']:<10} {r['win_rate']:.4f} "
                  f"[{lo:.4f}, {hi:.4f}]  "
                  f"{r['games']} games, by seat {r['by_seat']}, {r['seconds']} s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
