"""Exact game theory on small decks, and OpenSpiel's IS-MCTS against this project's
search (docs/game-theory.md; issue #48).

    python benchmarks/game_theory.py solve tiny     # export, CFR+ curve, exploitability
    python benchmarks/game_theory.py solve bluff --seconds 600
    python benchmarks/game_theory.py match --games 100 --simulations 20
    python benchmarks/game_theory.py all            # both solves and the match
    python benchmarks/game_theory.py solve short --quick   # seconds, to check it runs

``solve`` writes the game's tree as an EFG game (``uno_env.integrations.openspiel.tree``), runs
OpenSpiel's C++ CFR+ until NashConv is at most ``--target`` or ``--seconds`` have passed
(printing the curve), trains a small PPO agent on the same deck (``agents.train``), and
prints the exploitability of ``random``, ``greedy``, ``heuristic``, the PPO agent and
CFR+'s average policy; ``--policy`` saves that policy for the ``cfr:<file>`` agent.
``match`` plays ``openspiel-ismcts:N`` against ``mcts-random:N`` (both: N simulations
a decision, each leaf valued by one uniformly random rollout) on classic with two
players, both seats equally often, and prints the win rate with its 95% interval.
Results go to ``benchmarks/results/game_theory_<what>.json``.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def solve(name: str, seconds: float, target: float | None, every: int,
          ppo_steps: int, policy: str | None = None) -> dict:
    from uno_env.integrations.openspiel import tree as ot

    start = time.perf_counter()
    print(f"== {name}: {ot.CONFIGS[name]}", flush=True)
    study = ot.solve(name, seconds=seconds, target=target, every=every, progress=True)
    print(json.dumps(study.summary()), flush=True)
    for iterations, conv, t in study.curve:
        print(f"  CFR+ {iterations:6d} iterations  NashConv {conv:.6f}  {t:7.1f} s")
    agents = {"random": "random", "greedy": "greedy", "heuristic": "heuristic"}
    if ppo_steps:
        with tempfile.TemporaryDirectory() as out:
            agents["ppo"] = ot.train_learned(study.params, out, timesteps=ppo_steps)
    rows = ot.exploitability_table(study, agents)
    for row in rows:
        print(f"  {row['agent']:10s} exploitability {row['exploitability']:.4f}  "
              f"return against CFR+ {row['against CFR+']:+.4f}")
    if policy:
        from uno_env.integrations.openspiel.agents import save_policy
        print("  policy saved to", save_policy(policy, study.params, study.tree,
                                                study.cfr_policy))
    record = {"summary": study.summary(), "params": study.params,
              "curve": study.curve, "exploitability": rows, "ppo_steps": ppo_steps,
              "seconds": round(time.perf_counter() - start, 1)}
    _save(f"solve_{name}", record)
    return record


def match(games: int, simulations: int, seed: int, rollout: str = "random") -> dict:
    from uno_env.evaluation.stats import wilson
    from uno_env.evaluation.tournament import tournament

    ours = f"mcts-{rollout}:{simulations}" if rollout != "greedy" else \
        f"mcts:{simulations}"
    theirs = f"openspiel-ismcts:{simulations}"
    start = time.perf_counter()
    result = tournament((theirs, ours), "classic", num_players=2, num_games=games,
                        seed=seed, progress=True)
    stats = {d["agent"]: d for d in result.stats()}
    wins, played = stats[theirs]["wins"], stats[theirs]["games"]
    truncated = int((result.winner < 0).sum())
    low, high = wilson(wins, played)
    record = {"ismcts": theirs, "mcts": ours, "games": played, "ismcts_wins": wins,
              "mcts_wins": stats[ours]["wins"], "truncated": truncated,
              "ismcts_win_rate": wins / played, "ci95": [low, high], "seed": seed,
              "seconds": round(time.perf_counter() - start, 1)}
    print(f"{theirs} against {ours}, classic 2 players, {played} games: IS-MCTS wins "
          f"{wins} ({wins / played:.3f}, 95% interval [{low:.3f}, {high:.3f}]), "
          f"truncated {truncated}, {record['seconds']} s", flush=True)
    _save("match", record)
    return record


def _save(what: str, record: dict) -> None:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"game_theory_{what}.json"
    path.write_text(json.dumps(record, indent=1, default=float) + "\n")
    print("  saved", path)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("solve", help="CFR+ and exploitability on a small deck")
    s.add_argument("config", choices=("tiny", "bluff", "short", "bluff-short"))
    s.add_argument("--seconds", type=float, default=600, help="CFR+ time budget")
    s.add_argument("--target", type=float, default=0.001, help="stop at this NashConv")
    s.add_argument("--every", type=int, default=5, help="NashConv every N iterations")
    s.add_argument("--ppo-steps", type=int, default=100_000,
                   help="PPO training steps (0: no learned agent)")
    s.add_argument("--policy", default=None, help="save CFR+'s policy to this file")
    s.add_argument("--quick", action="store_true", help="20 s of CFR+, 20,000 PPO steps")
    m = sub.add_parser("match", help="IS-MCTS against mcts, classic 2 players")
    m.add_argument("--games", type=int, default=100)
    m.add_argument("--simulations", type=int, default=20)
    m.add_argument("--rollout", default="random", choices=("random", "greedy"))
    m.add_argument("--seed", type=int, default=48)
    sub.add_parser("all", help="solve tiny and bluff, then the match")
    args = parser.parse_args(argv)
    if args.what == "solve":
        seconds, steps = (20, 20_000) if args.quick else (args.seconds, args.ppo_steps)
        solve(args.config, seconds, args.target, args.every, steps, args.policy)
    elif args.what == "match":
        match(args.games, args.simulations, args.seed, args.rollout)
    else:
        solve("tiny", 600, 0.001, 5, 100_000)
        solve("bluff", 600, 0.001, 5, 100_000)
        match(100, 20, 48)


if __name__ == "__main__":
    main()
