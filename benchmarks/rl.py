"""RL benchmark: training throughput and the strength of a trained PPO agent.

    python benchmarks/rl.py                      # the shipped model, 10,000 games each
    python benchmarks/rl.py --model runs/ppo/policy.npz --games 20000 --json

Rows:
* env steps/s of the training env (``UnoVecEnv``, opponents inside numba) with random
  learner actions, i.e. the ceiling the environment puts on training;
* MaskablePPO training steps/s on this machine (a short run, one torch thread);
* the model's win rate with its 95% Wilson interval against copies of random, greedy
  and heuristic, the seat drawn per game (RLCard's best published UNO payoff against
  random is about +0.03, roughly 51.5% wins).
Needs the ``rl`` extra.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time

import numpy as np


def env_steps_per_second(num_envs: int, opponents: str, seconds: float) -> float:
    from uno_env.integrations.sb3 import UnoVecEnv
    venv = UnoVecEnv(num_envs, "classic", 2, opponents=opponents, seed=0)
    venv.reset()
    rng = np.random.default_rng(0)
    venv.step((rng.random((num_envs, venv.config.layout.size)) * venv.action_masks())
              .argmax(axis=1))   # compile
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = venv.action_masks()
        venv.step((rng.random(masks.shape) * masks).argmax(axis=1))
        steps += num_envs
    return steps / (time.perf_counter() - start)


def training_steps_per_second(timesteps: int) -> float:
    from agents.train import train
    with tempfile.TemporaryDirectory() as out:
        result = train(out=out, progress=False, timesteps=timesteps,
                       opponents="heuristic", eval_every=10**9, eval_games=10)
    return result.steps_per_second


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="ppo_classic_2p",
                        help="a .npz model or a shipped model's name")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--train-steps", type=int, default=65_536,
                        help="length of the timed training run (0 skips it)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from agents.ppo import PPOAgent
    from uno_env.evaluation.win_rate import evaluate

    from agents import make_agent

    agent = PPOAgent.load(args.model)
    cfg = agent.config
    report = {"model": args.model, "preset": cfg.preset, "players": cfg.num_players,
              "trained_steps": agent.meta.get("trained_steps"), "games": args.games,
              "seed": args.seed, "win_rates": {}}
    # the model, then the baselines on the same deals for scale
    players = [(args.model, agent)] + [(n, make_agent(n, cfg, seed=args.seed))
                                       for n in ("greedy", "heuristic")]
    for name, who in players:
        for opp in ("random", "greedy", "heuristic"):
            t0 = time.perf_counter()
            r = evaluate(who, opp, args.games, cfg.preset, cfg.num_players,
                         seed=args.seed, **cfg.rule_overrides())
            report["win_rates"][f"{name} vs {opp}"] = {
                "agent": name, "opponent": opp, "win_rate": r["win_rate"],
                "ci": list(r["ci"]), "mean_reward": r["mean_reward"],
                "seconds": time.perf_counter() - t0}
    report["env_steps_per_s"] = {
        opp: env_steps_per_second(256, opp, 3.0) for opp in ("random", "heuristic")}
    if args.train_steps:
        report["train_steps_per_s"] = training_steps_per_second(args.train_steps)
    if args.json:
        print(json.dumps(report, indent=2))
        return report
    print(f"{args.model}: {cfg.preset}, {cfg.num_players} players, trained "
          f"{report['trained_steps'] or '?':,} steps; {args.games:,} games per opponent, "
          f"seed {args.seed}")
    print(f"{'agent':<16}{'opponent':<12}{'win rate':>10}  {'95% interval':<18}"
          f"{'mean reward':>12}")
    for r in report["win_rates"].values():
        lo, hi = r["ci"]
        print(f"{r['agent']:<16}{r['opponent']:<12}{r['win_rate']:>10.4f}  "
              f"[{lo:.4f}, {hi:.4f}]  {r['mean_reward']:>+11.3f}")
    for opp, v in report["env_steps_per_s"].items():
        print(f"training env, {opp} opponent, random learner: {v:,.0f} steps/s")
    if "train_steps_per_s" in report:
        print(f"MaskablePPO training (128 envs, 1 torch thread): "
              f"{report['train_steps_per_s']:,.0f} steps/s")
    return report


if __name__ == "__main__":
    main()
