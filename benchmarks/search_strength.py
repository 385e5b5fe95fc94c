"""Strength and speed of the search agent ``mcts`` (``uno_env.engine.search``).

What is measured (one run, seeded; every figure from ``simulate`` inside numba)
    * 2-player classic: ``mcts:B`` against ``greedy`` at each budget ``B`` of
      ``--budgets``, half of the games with mcts in each seat;
    * 4-player classic: one ``mcts:B`` against three ``greedy``, mcts in each seat for a
      quarter of the games (chance is 0.25);
    * the variants at the first budget, 2-player classic against greedy: random
      rollouts (``mcts-random``) and UCB1 over the actions (``mcts-ucb``) beside the
      default (flat, greedy rollouts);
    * speed: decisions per second and the median milliseconds of one decision with at
      least two legal actions (``MCTSAgent.act_game`` on positions of 2- and 4-player
      games, one thread), at each budget.

Win rates are printed with 95% Wilson intervals. Games of the same seed are the same
deals for every budget. The machine is shared: keep ``--games`` modest.

    python benchmarks/search_strength.py --games 400 --budgets 50,200 --json out.json
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from agents import MCTSAgent
from uno_env import Game
from uno_env import simulate
from uno_env.stats import wilson


def seat_rotated(preset, players, agent, opponent, games, seed, threads):
    """Win rate of one ``agent`` against ``players - 1`` copies of ``opponent``, the
    agent in each seat for an equal share of ``games``."""
    wins = total = 0
    elapsed = 0.0
    decisions = 0
    share = -(-games // players)
    for seat in range(players):
        lineup = [opponent] * players
        lineup[seat] = agent
        r = simulate(preset, players, agents=lineup, num_games=share, seed=seed,
                     first_game=seat * share, threads=threads)
        wins += int(r.wins[seat])
        total += r.num_games
        elapsed += r.elapsed
        decisions += int(r.steps.sum())
    lo, hi = wilson(wins, total)
    return {"agent": agent, "opponent": opponent, "players": players, "games": total,
            "win_rate": wins / total, "ci": [lo, hi], "seconds": elapsed,
            "decisions": decisions}


def decision_speed(budget, positions, seed=0):
    """Median ms and decisions/s of ``mcts:budget`` over ``positions`` (Games)."""
    times = []
    for k, g in enumerate(positions):
        bot = MCTSAgent(g.config, budget=budget, seed=seed + k)
        t = time.perf_counter()
        bot.act_game(g)
        times.append(time.perf_counter() - t)
    times = np.array(times)
    return {"budget": budget, "decisions": len(times),
            "median_ms": float(np.median(times) * 1e3),
            "p90_ms": float(np.percentile(times, 90) * 1e3),
            "decisions_per_s": float(len(times) / times.sum())}


def positions(players, count, seed):
    """Positions with at least two legal moves, from greedy-ish random games."""
    out, rng = [], np.random.default_rng(seed)
    game = 0
    while len(out) < count:
        g = Game("classic", players, seed=seed)
        g.reset(seed, game)
        game += 1
        for _ in range(int(rng.integers(0, 40))):
            if g.is_over:
                break
            legal = g.legal_actions()
            g.step(int(legal[rng.integers(len(legal))]))
        if not g.is_over and len(g.legal_actions()) >= 2:
            out.append(g)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=400, help="games per row")
    ap.add_argument("--budgets", default="50,200", help="comma-separated budgets")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--speed-positions", type=int, default=100)
    ap.add_argument("--skip-variants", action="store_true")
    ap.add_argument("--json", default=None, help="write the figures here")
    args = ap.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    # compile both entry points first (not counted)
    simulate("classic", 2, agents=["mcts:4", "greedy"], num_games=1, threads=args.threads)
    MCTSAgent(Game("classic", 2).config, budget=4).act_game(Game("classic", 2, seed=1))

    rows = []

    def show(row):
        lo, hi = row["ci"]
        print(f"{row['players']}p  {row['agent']:>20s} vs {row['opponent']:8s}  "
              f"{row['games']:6d} games  win rate {row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]"
              f"  ({row['seconds']:.0f} s)", flush=True)
        rows.append(row)

    for b in budgets:
        show(seat_rotated("classic", 2, f"mcts:{b}", "greedy", args.games, args.seed,
                          args.threads))
        show(seat_rotated("classic", 4, f"mcts:{b}", "greedy", args.games, args.seed,
                          args.threads))
    if not args.skip_variants:
        b = budgets[0]
        for name in (f"mcts-random:{b}", f"mcts-ucb:{b}"):
            show(seat_rotated("classic", 2, name, "greedy", args.games, args.seed,
                              args.threads))
    speed = []
    for players in (2, 4):
        pos = positions(players, args.speed_positions, args.seed)
        for b in budgets:
            s = {"players": players, **decision_speed(b, pos)}
            print(f"speed {players}p mcts:{b}: median {s['median_ms']:.1f} ms, p90 "
                  f"{s['p90_ms']:.1f} ms, {s['decisions_per_s']:.1f} decisions/s "
                  f"(one thread, {s['decisions']} decisions)", flush=True)
            speed.append(s)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "rows": rows, "speed": speed}, f, indent=2)


if __name__ == "__main__":
    main()
