"""Strength and speed of the search agent ``mcts`` (``uno_env.engine.search``).

What is measured (one run, seeded, 95% Wilson intervals; games of one seed are the
same deals in every row):

* strength, inside numba (``simulate``), the searcher seat-rotated over the games:
  2-player classic against ``greedy`` and ``heuristic`` at every budget of
  ``--budgets``; 4-player classic, one ``mcts`` against three ``heuristic`` (chance
  0.25) at every budget; 4 players of ``flip``, ``onepiece`` and ``chaos`` against three
  ``heuristic`` at the default budget;
* against the shipped PPO model (2-player classic, a Python ``Game`` loop with
  ``agents.MCTSAgent``), at the default budget;
* speed: the median milliseconds of one decision with at least two legal actions
  (``MCTSAgent.act_game``, one thread) and decisions per second, at every budget;
* tournament rate: a 4-player ``tournament`` of ``mcts:<budget>``, ``heuristic`` and
  ``greedy`` (so a searcher sits in every game) on ``--threads`` (default all cores),
  games per second and the minutes 100,000 such games take, at every budget
  (``--tournament-games``; 0 skips it);
* a plot of win rate against budget (``--plot``, default docs/figures/search_budget.png).

    python benchmarks/search.py --games 2000 --budgets 50,200,800 --json search.json

The machine is shared: the run prints its load average; speed figures are upper bounds
when it is loaded.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import time

import numpy as np
from tqdm.auto import tqdm

from agents import MCTSAgent, PPOAgent, shipped_models
from uno_env import Game, simulate, tournament
from uno_env.engine.names import DEFAULT_BUDGET
from uno_env.evaluation.stats import wilson

ROOT = pathlib.Path(__file__).resolve().parents[1]


def seat_rotated(preset, players, agent, opponent, games, seed, threads=None):
    """Win rate of one ``agent`` against ``players - 1`` copies of ``opponent``, the
    agent in each seat for an equal share of ``games``."""
    wins = total = decisions = 0
    elapsed = 0.0
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
    return {"preset": preset, "players": players, "agent": agent, "opponent": opponent,
            "games": total, "win_rate": wins / total, "ci": [lo, hi], "seconds": elapsed}


def against_python_agent(budget, opponent_factory, games, seed, players=2,
                         preset="classic"):
    """``mcts:budget`` against a Python agent in ``Game`` loops (seat-rotated)."""
    wins = 0
    start = time.perf_counter()
    for i in tqdm(range(games), desc=f"mcts:{budget} vs python agent", leave=False):
        g = Game(preset, players, seed=seed)
        g.reset(seed, i)
        me = i % players
        bot = MCTSAgent(g.config, budget=budget, seed=seed * 100_003 + i).attach(g)
        other = opponent_factory(g.config)
        while not g.is_over:
            if g.current_player == me:
                g.step(bot.act_game(g))
            else:
                g.step(int(other.act(g.observe(g.current_player), g.action_mask())))
        wins += int(g.winner == me)
    lo, hi = wilson(wins, games)
    return {"preset": preset, "players": players, "agent": f"mcts:{budget}",
            "games": games, "win_rate": wins / games, "ci": [lo, hi],
            "seconds": time.perf_counter() - start}


def tournament_rate(budget, games, seed, threads=None):
    """Games per second of a 4-player ``tournament`` with ``mcts:budget`` in every game
    (the agents ``mcts:budget``, ``heuristic`` and ``greedy`` rotate over the seats),
    compiling excluded (a first short tournament compiles)."""
    agents = [f"mcts:{budget}", "heuristic", "greedy"]
    tournament(agents, num_players=4, num_games=3, seed=seed, threads=threads,
               progress=False, rating_games=0)
    r = tournament(agents, num_players=4, num_games=games, seed=seed, threads=threads,
                   progress=False, rating_games=0)
    rate = r.num_games / r.elapsed
    return {"budget": budget, "games": r.num_games, "seconds": r.elapsed,
            "games_per_s": rate, "minutes_per_100k": 100_000 / rate / 60,
            "threads": r.threads or os.cpu_count()}


def positions(players, count, seed):
    """Positions with at least two legal moves, from random play."""
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


def decision_speed(budget, games, seed=0):
    """Median (and 90th percentile) ms of one decision, and decisions per second."""
    times = []
    for k, g in enumerate(games):
        bot = MCTSAgent(g.config, budget=budget, seed=seed + k)
        t = time.perf_counter()
        bot.act_game(g)
        times.append(time.perf_counter() - t)
    times = np.array(times)
    return {"budget": budget, "decisions": len(times),
            "median_ms": float(np.median(times) * 1e3),
            "p90_ms": float(np.percentile(times, 90) * 1e3),
            "decisions_per_s": float(len(times) / times.sum())}


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    series = {}
    for r in rows:
        if r["preset"] == "classic" and r["agent"].startswith("mcts:") \
                and "opponent" in r:
            key = f"{r['players']} players vs {r['opponent']}"
            series.setdefault(key, []).append(r)
    for key, rs in sorted(series.items()):
        rs.sort(key=lambda r: int(r["agent"].split(":")[1]))
        b = [int(r["agent"].split(":")[1]) for r in rs]
        p = np.array([r["win_rate"] for r in rs])
        lo = p - np.array([r["ci"][0] for r in rs])
        hi = np.array([r["ci"][1] for r in rs]) - p
        ax.errorbar(b, p, yerr=[lo, hi], marker="o", capsize=3, label=key)
        ax.axhline(1 / rs[0]["players"], color="grey", lw=0.6, ls=":")
    ax.set_xscale("log")
    budgets = sorted({int(r["agent"].split(":")[1]) for rs in series.values() for r in rs})
    ax.set_xticks(budgets, [str(b) for b in budgets])
    ax.minorticks_off()
    ax.set_xlabel("rollouts per decision (budget)")
    ax.set_ylabel("win rate of one mcts (95% interval)")
    ax.set_title("mcts: strength against budget (classic)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=2000, help="games per simulate row")
    ap.add_argument("--python-games", type=int, default=200,
                    help="games against the shipped PPO model")
    ap.add_argument("--budgets", default=f"50,200,{DEFAULT_BUDGET}",
                    help="comma-separated budgets")
    ap.add_argument("--variants", default="flip,onepiece,chaos",
                    help="presets measured at 4 players against three heuristic")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--speed-positions", type=int, default=60)
    ap.add_argument("--tournament-games", type=int, default=1500,
                    help="games of each tournament-rate row (0: skip them)")
    ap.add_argument("--json", default=None, help="write the figures here")
    ap.add_argument("--plot", default=str(ROOT / "docs" / "figures" / "search_budget.png"))
    args = ap.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f}; seed {args.seed}", flush=True)
    rows = []

    def show(row):
        lo, hi = row["ci"]
        vs = row.get("opponent", "ppo_classic_2p")
        print(f"{row['preset']:9s} {row['players']}p {row['agent']:>10s} vs {vs:14s} "
              f"{row['games']:6d} games  win rate {row['win_rate']:.3f} "
              f"[{lo:.3f}, {hi:.3f}]  ({row['seconds']:.0f} s)", flush=True)
        rows.append(row)

    for b in budgets:
        for opp in ("greedy", "heuristic"):
            show(seat_rotated("classic", 2, f"mcts:{b}", opp, args.games, args.seed,
                              args.threads))
        show(seat_rotated("classic", 4, f"mcts:{b}", "heuristic", args.games, args.seed,
                          args.threads))
    # the reference for the 4-player rows: heuristic in the searcher's seat, same deals
    # (not exactly chance on a few thousand games)
    show(seat_rotated("classic", 4, "heuristic", "heuristic", args.games, args.seed,
                      args.threads))
    for preset in [v for v in args.variants.split(",") if v]:
        show(seat_rotated(preset, 4, f"mcts:{DEFAULT_BUDGET}", "heuristic", args.games,
                          args.seed, args.threads))
    if args.python_games and "ppo_classic_2p" in shipped_models():
        model = PPOAgent.load("ppo_classic_2p")
        row = against_python_agent(DEFAULT_BUDGET, lambda cfg: model, args.python_games,
                                   args.seed)
        show(row)
    speed = []
    for players in (2, 4):
        pos = positions(players, args.speed_positions, args.seed)
        for b in budgets:
            s = {"players": players, **decision_speed(b, pos)}
            print(f"speed {players}p mcts:{b}: median {s['median_ms']:.1f} ms, p90 "
                  f"{s['p90_ms']:.1f} ms, {s['decisions_per_s']:.1f} decisions/s "
                  f"(one thread, {s['decisions']} decisions)", flush=True)
            speed.append(s)
    rates = []
    for b in budgets if args.tournament_games > 0 else []:
        t = tournament_rate(b, args.tournament_games, args.seed, args.threads)
        print(f"tournament 4p mcts:{b},heuristic,greedy: {t['games_per_s']:.1f} games/s on "
              f"{t['threads']} threads ({t['games']} games): 100,000 games in "
              f"{t['minutes_per_100k']:.0f} min", flush=True)
        rates.append(t)
    if args.plot:
        plot(rows, args.plot)
        print(f"plot: {args.plot}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "rows": rows, "speed": speed,
                       "tournament": rates,
                       "load": os.getloadavg()[0]}, f, indent=2)


if __name__ == "__main__":
    main()
