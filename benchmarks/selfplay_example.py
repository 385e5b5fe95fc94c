"""A full run of ``examples/selfplay_ppo.py``: its learning curve against three
``greedy`` agents at 4 players, beside what ``greedy`` and ``heuristic`` themselves win
in the same seat on the same deals, and a figure of it.

    python benchmarks/selfplay_example.py --advice none --json-out plain.json
    python benchmarks/selfplay_example.py --json-out advised.json --also plain.json

The references play the evaluation's games (the same seed, deals and seats as the
example's ``evaluate``) with ``greedy`` (the opponents' own play: about chance, 1/4) and
``heuristic`` in the learner's seat. Writes ``docs/figures/selfplay_ppo_curve.png``
unless ``--figure`` says otherwise (``--also``: earlier runs on the same figure). Exit
status 1 if the example's final verdict (its policy and greedy in the same seat of the
same games) does not put it above greedy. Other options go to the example. Needs torch:
``pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu``.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import sys
import time

import uno_env

ROOT = pathlib.Path(__file__).resolve().parents[1]
FIGURE = ROOT / "docs" / "figures" / "selfplay_ppo_curve.png"


def load_example():
    path = ROOT / "examples" / "selfplay_ppo.py"
    spec = importlib.util.spec_from_file_location("selfplay_ppo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def references(example, args) -> dict:
    """Win rates of ``greedy`` and ``heuristic`` in the learner's seat on the example's
    evaluation games."""
    from agents import GreedyAgent, HeuristicAgent
    from uno_env.rules.config import make_config

    config = make_config(args.preset, args.num_players)
    out = {}
    for name, agent in (("greedy", GreedyAgent(config)), ("heuristic", HeuristicAgent(config))):
        r = uno_env.evaluate(agent, opponents="greedy", num_games=args.eval_games,
                             preset=args.preset, num_players=args.num_players,
                             seed=20_000 + args.seed, batch=min(args.eval_games, 512))
        out[name] = {"win_rate": r["win_rate"], "ci": list(r["ci"])}
    return out


def label(run: dict) -> str:
    advice = run["settings"].get("advice")
    return f"self-play PPO, advice {advice}" if advice else "self-play PPO, no advice"


def plot(runs, refs, out: pathlib.Path, title: str) -> pathlib.Path:
    """Win rate (95% interval) against learner decisions, one line per run."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for run in runs:
        rows = run["evaluations"]
        x = [r["learner_steps"] / 1e6 for r in rows]
        ax.plot(x, [r["win_rate"] for r in rows], marker="o", ms=3, label=label(run))
        ax.fill_between(x, [r["ci"][0] for r in rows], [r["ci"][1] for r in rows],
                        alpha=0.2)
    for (name, ref), style in zip(refs.items(), (":", "-.")):
        ax.axhline(ref["win_rate"], color="black", ls=style, lw=1,
                   label=f"{name} in that seat ({ref['win_rate']:.3f})")
    ax.set_xlabel("learner decisions (millions)")
    ax.set_ylabel("win rate vs 3 greedy (95% interval)")
    ax.set_ylim(0.15, 0.32)
    ax.set_title(title, fontsize=8)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                epilog="other options go to the example "
                                       "(python examples/selfplay_ppo.py --help)")
    p.add_argument("--figure", default=str(FIGURE), help="where the PNG goes")
    p.add_argument("--json-out", default=None, help="write this run's figures here")
    p.add_argument("--also", nargs="*", default=[],
                   help="earlier runs (--json-out files) to draw on the same figure")
    ours, passed = p.parse_known_args(argv)
    example = load_example()
    args = example.parse_args(passed)
    refs = references(example, args)
    load = os.getloadavg()[0]
    start = time.time()
    rows = example.train(args)
    wall = (time.time() - start) / 60
    run = {"settings": {k: v for k, v in vars(args).items()
                        if k not in ("metrics", "save")},
           "load_at_start": round(load, 2), "wall_minutes": round(wall, 2),
           "references": refs, "evaluations": rows}
    if ours.json_out:
        pathlib.Path(ours.json_out).write_text(json.dumps(run, indent=1))
    runs = [json.loads(pathlib.Path(f).read_text()) for f in ours.also] + [run]
    last = rows[-1]
    title = (f"examples/selfplay_ppo.py, classic, 4 players, seed {args.seed}; "
             f"evaluations on the same {args.eval_games:,} deals")
    path = plot(runs, refs, pathlib.Path(ours.figure), title)
    print()
    print(f"{label(run)} (examples/selfplay_ppo.py), 4-player classic, seed {args.seed}, "
          f"{args.num_envs} games in parallel: {last['learner_steps']:,} learner decisions "
          f"in {last['minutes']:.1f} min of training ({wall:.1f} min with the "
          f"evaluations; load average {load:.2f} at the start); {args.eval_games:,} "
          f"evaluation games against three greedy agents, the same deals each time")
    print("| player in the seat | minutes | learner decisions | win rate [95% CI] |")
    print("|---|---:|---:|---|")
    for name, ref in refs.items():
        print(f"| `{name}` (reference) | - | - | {ref['win_rate']:.3f} "
              f"[{ref['ci'][0]:.3f}, {ref['ci'][1]:.3f}] |")
    for r in rows:
        print(f"| {label(run)}, update {r['update']} | {r['minutes']:.1f} | "
              f"{r['learner_steps']:,} | {r['win_rate']:.3f} "
              f"[{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] |")
    verdict = last.get("verdict")
    beat = bool(verdict) and verdict["ci"][0] > 0
    for v in last.get("verdicts", []):
        print(f"verdict on {v['games']:,} games (the curve's first): {v['win_rate']:.4f} "
              f"against {v['against']}'s {v['reference_win_rate']:.4f} in the same seat: "
              f"{v['difference']:+.4f} [{v['ci'][0]:+.4f}, {v['ci'][1]:+.4f}]: "
              f"{'beats' if v['ci'][0] > 0 else 'does NOT beat'} {v['against']}")
    print(f"figure: {path}")
    return 0 if beat else 1


if __name__ == "__main__":
    sys.exit(main())
