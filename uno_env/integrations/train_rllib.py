"""Self-play PPO with RLlib (``uno-bench train --framework rllib``; needs the ``rllib``
extra): ``train_rllib`` trains the shared policy of ``uno_env.integrations.rllib`` on every seat,
evaluates it against baseline agents as it goes and exports it as an agent.

    >>> from uno_env.integrations.train_rllib import train_rllib
    >>> result = train_rllib("runs/rllib", num_players=2, timesteps=200_000)
    >>> agent = result.agent            # act_batch(observations, masks) and a name
    >>> tournament((agent, "random", "heuristic"), num_players=2, backend="ray")

It defaults to ``num_players=2``, as the SB3 job does (``agents.train``: the shipped
model's and the README figures' setting).
"""
from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import numpy as np

from uno_env.integrations.rllib import SHARED, export_policy, ppo_config
from uno_env.players.training import TrainResult, evaluation_row

#: 0.2's name of the job's result (the record every training job returns)
RLlibTrainResult = TrainResult


def train_rllib(out="runs/rllib", preset: str = "classic", num_players: int = 2,
                timesteps: int = 200_000, iterations: int | None = None, seed: int = 0,
                hidden=(256, 256), env_runners: int = 0, train_batch_size: int = 4000,
                minibatch_size: int = 500, num_epochs: int = 4, lr: float = 3e-4,
                eval_games: int = 2000, eval_opponents=("random", "heuristic"),
                max_minutes: float | None = None, address: str | None = None,
                progress: bool = True, threads: int | None = 1,
                **rules) -> TrainResult:
    """Self-play PPO with RLlib until ``timesteps`` environment steps (or ``iterations``
    training iterations, or ``max_minutes``), then export and evaluate the policy.

    Connects to Ray (``address``, default: the instance already connected or a new local
    one). Writes to ``out``: ``checkpoint/`` (``Algorithm.save_to_path``; restore with
    ``Algorithm.from_checkpoint``), ``policy.npz`` (``agents.PPOAgent.load``),
    ``progress.csv`` (one row per iteration, written as it goes), ``eval.csv`` (win
    rate of the greedy policy against each evaluation opponent, seat drawn per game)
    and ``summary.json``. ``threads``: torch threads of the learner in this process (1 by
    default: the MLP is small and more threads fight the env for the cores)."""
    from uno_env.evaluation.ray_runtime import connect
    from uno_env.envs.single_seat import parse_opponents
    from uno_env.evaluation.win_rate import evaluate
    for key, value in (("timesteps", timesteps), ("eval_games", eval_games)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{key} must be a positive integer, got {value!r}")
    if iterations is not None and (not isinstance(iterations, (int, np.integer))
                                   or iterations < 1):
        raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
    for opp in eval_opponents:
        parse_opponents(opp, num_players)
    config = ppo_config(preset, num_players, seed=seed, hidden=hidden,
                        env_runners=env_runners, train_batch_size=train_batch_size,
                        minibatch_size=minibatch_size, num_epochs=num_epochs, lr=lr,
                        **rules)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if threads:
        import torch
        torch.set_num_threads(int(threads))
    connect(address)
    algo = config.build_algo()
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=timesteps, unit="step", desc="train (rllib)", mininterval=1.0)
    history, steps, it = [], 0, 0
    start = time.perf_counter()
    try:
        while steps < timesteps and (iterations is None or it < iterations):
            res = algo.train()
            it += 1
            runners = res.get("env_runners", {})
            new_steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
            learner = res.get("learners", {}).get(SHARED, {})
            row = {"iteration": it, "steps": new_steps,
                   "seconds": round(time.perf_counter() - start, 2),
                   "episode_len_mean": runners.get("episode_len_mean"),
                   "episodes": runners.get("num_episodes_lifetime"),
                   "policy_loss": learner.get("policy_loss"),
                   "vf_loss": learner.get("vf_loss"), "entropy": learner.get("entropy"),
                   "mean_kl": learner.get("mean_kl_loss")}
            row = {k: (float(v) if isinstance(v, (np.floating, np.integer)) else v)
                   for k, v in row.items()}
            history.append(row)
            with open(out / "progress.csv", "w" if it == 1 else "a", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(row))
                if it == 1:
                    w.writeheader()
                w.writerow(row)
            if bar is not None:
                bar.update(min(new_steps, timesteps) - min(steps, timesteps))
            steps = new_steps
            if max_minutes is not None and time.perf_counter() - start > 60 * max_minutes:
                break
        seconds = time.perf_counter() - start
        algo.save_to_path(str((out / "checkpoint").resolve()))
        agent = export_policy(algo.get_module(SHARED), preset, num_players,
                              trained_steps=steps, iterations=it, seed=seed, **rules)
    finally:
        if bar is not None:
            bar.close()
        algo.stop()
    agent.save(out / "policy.npz")
    evaluations = []
    for opp in eval_opponents:
        r = evaluate(agent, opp, eval_games, preset, num_players, seed=seed + 1_000_003,
                     **rules)
        evaluations.append(evaluation_row(steps, opp, r))
    if evaluations:
        with open(out / "eval.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(evaluations[0]))
            w.writeheader()
            w.writerows(evaluations)
    result = TrainResult(out, steps, seconds, evaluations, agent=agent, iterations=it,
                         history=history)
    (out / "summary.json").write_text(json.dumps({
        "framework": "rllib", "preset": preset, "num_players": num_players, "seed": seed,
        "rules": rules, "hidden": list(hidden), "iterations": it, "timesteps": steps,
        "seconds": round(seconds, 1), "steps_per_second": round(result.steps_per_second, 1),
        "final_evaluation": evaluations}, indent=2))
    return result
