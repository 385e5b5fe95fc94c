"""Strength and speed of an expert-iteration network (``agents.exit``, issue 47) on
held-out deals: the figures of docs/agents.md, "Expert iteration".

* the network alone against ``--opponent`` (default ``heuristic``), ``--games``
  seat-rotated games (each seat the same deals) of ``--seed`` (2026: never used for
  training data, evaluation during training nor checkpoint choice);
* the heuristic itself in the same seats on the same deals (its own baseline: 0.5 in
  expectation with 2 players, not exactly on a finite set of deals);
* one decision of the network alone: median and 99th percentile milliseconds of
  ``act`` on one position (numpy, one thread; the heuristic's move is an input of a
  residual network, so its kernel call is included);
* with ``--guided-games N``: network and search together (``agents.exit.evaluate_guided``,
  ``mcts:<--budget>``), and with ``--search-games N`` the search alone, seat-rotated on the
  first N games of the same deals.

    OMP_NUM_THREADS=1 python benchmarks/exit_strength.py --model exit_classic_2p \\
        --games 3000 --guided-games 1000 --search-games 1000 --json exit.json
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from tqdm.auto import tqdm

from agents.exit import evaluate_guided, seat_rotated
from agents.ppo import PPOAgent
from agents.search import MCTSAgent
from uno_env import Game
from uno_env.evaluation.stats import wilson


def decision_ms(agent, positions: int, seed: int) -> dict:
    """Milliseconds of ``agent.act`` on ``positions`` positions from heuristic games."""
    from agents.baselines import HeuristicAgent
    cfg = agent.config
    heuristic = HeuristicAgent(cfg)
    rng = np.random.default_rng(seed)
    times, game = [], 0
    agent.act(*_position(cfg, seed, 0, rng, heuristic))               # warm
    while len(times) < positions:
        obs, mask = _position(cfg, seed, game, rng, heuristic)
        game += 1
        t = time.perf_counter()
        agent.act(obs, mask)
        times.append(time.perf_counter() - t)
    t = np.array(times) * 1e3
    return {"positions": positions, "median_ms": float(np.median(t)),
            "p99_ms": float(np.percentile(t, 99)), "mean_ms": float(t.mean())}


def _position(cfg, seed, index, rng, heuristic):
    while True:
        g = Game(cfg.preset, cfg.num_players, seed=seed, **cfg.rule_overrides())
        g.reset(seed, index)
        for _ in range(int(rng.integers(0, 30))):
            if g.is_over:
                break
            obs = g.observe(g.current_player)
            g.step(int(heuristic.act(obs, g.action_mask())))
        if not g.is_over:
            return g.observe(g.current_player), g.action_mask()
        index += 100_000


def summary(r) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in r.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="exit_classic_2p")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--budget", type=int, default=1200)
    ap.add_argument("--guided-games", type=int, default=0)
    ap.add_argument("--search-games", type=int, default=0)
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    agent = PPOAgent.load(args.model)
    cfg = agent.config
    rules = cfg.rule_overrides()
    P = cfg.num_players
    out = {"model": args.model, "opponent": args.opponent, "seed": args.seed,
           "load_average": os.getloadavg()}
    r = seat_rotated(agent, args.opponent, args.games, cfg.preset, P, args.seed, **rules)
    out["network"] = summary(r)
    print(f"network alone vs {args.opponent}: {r['win_rate']:.4f} "
          f"[{r['ci'][0]:.4f}, {r['ci'][1]:.4f}] over {r['games']} games, by seat "
          f"{', '.join(f'{x:.3f}' for x in r['by_seat'])}", flush=True)
    from agents.baselines import HeuristicAgent
    h = seat_rotated(HeuristicAgent(cfg), args.opponent, args.games, cfg.preset, P,
                     args.seed, **rules)
    out["heuristic_same_deals"] = summary(h)
    print(f"heuristic in the same seats: {h['win_rate']:.4f} "
          f"[{h['ci'][0]:.4f}, {h['ci'][1]:.4f}]", flush=True)
    out["decision"] = decision_ms(agent, args.positions, args.seed)
    print(f"one decision: median {out['decision']['median_ms']:.3f} ms, 99th percentile "
          f"{out['decision']['p99_ms']:.3f} ms", flush=True)
    for key, games in (("guided", args.guided_games), ("search", args.search_games)):
        if not games:
            continue
        per_seat = games // P
        wins, by_seat, extra = 0, [], {}
        with tqdm(total=per_seat * P, desc=key, unit="game", mininterval=2.0) as bar:
            for seat in range(P):
                if key == "guided":
                    r = evaluate_guided(agent, args.budget, args.opponent, per_seat,
                                        cfg.preset, P, seed=args.seed, seat=seat, bar=bar,
                                        **rules)
                    extra.setdefault("overrides", []).append(r["overrides"])
                else:
                    from uno_env.evaluation.win_rate import evaluate
                    r = evaluate(MCTSAgent(cfg, budget=args.budget), args.opponent,
                                 per_seat, cfg.preset, P, seed=args.seed, seat=seat,
                                 **rules)
                    bar.update(per_seat)
                wins += r["wins"]
                by_seat.append(r["win_rate"])
        n = per_seat * P
        lo, hi = wilson(wins, n)
        out[key] = {"games": n, "wins": wins, "win_rate": wins / n, "ci": [lo, hi],
                    "by_seat": by_seat, "budget": args.budget, **extra}
        print(f"{key} (mcts:{args.budget}) vs {args.opponent}: {wins / n:.4f} "
              f"[{lo:.4f}, {hi:.4f}] over {n} games", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
