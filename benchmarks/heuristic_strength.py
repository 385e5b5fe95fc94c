"""Strength of the ``heuristic`` baseline against ``greedy`` (issue 17, "the heuristic
earns its name"), measured with ``uno_env.simulate``.

    python benchmarks/heuristic_strength.py --games 40000 --seed 0
    python benchmarks/heuristic_strength.py --presets classic --players 4 --games 200000

Each line-up is ONE ``--agent`` (default ``heuristic``) against ``players - 1`` copies of
``--opponent`` (default ``greedy``), the agent rotated over every seat with equal games
per seat (in 2-player games the seats alternate). Every rotation plays the same deals
(games ``0 .. games/players - 1`` of the seed), so the seat rotation also balances the
deals. The win rate is the agent's share of all games (a truncated game is no win),
with its 95% Wilson interval; "chance" is ``1 / players``.
"""
from __future__ import annotations

import argparse
import json
import time

from uno_env.rules import PRESETS
from uno_env import simulate
from uno_env.evaluation.stats import wilson

#: the line-ups of issue 17: classic at 4 and 2 players, then every other preset at 4
DEFAULT = [("classic", 4), ("classic", 2)] + [(p, 4) for p in PRESETS if p != "classic"]


def seat_rotated(agent, opponent, preset, players, games, seed, threads=None):
    """Wins of one ``agent`` against ``players - 1`` ``opponent`` seats over ``games``
    games (rounded down to a multiple of ``players``), the agent in each seat equally.
    Returns (wins, games, wins per seat, truncated, seconds)."""
    per_seat = games // players
    wins, truncated, by_seat, elapsed = 0, 0, [], 0.0
    for s in range(players):
        names = [opponent] * players
        names[s] = agent
        r = simulate(preset, players, agents=tuple(names), num_games=per_seat, seed=seed,
                     threads=threads)
        w = int((r.winner == s).sum())
        wins += w
        by_seat.append(w / per_seat)
        truncated += r.truncated
        elapsed += r.elapsed
    return wins, per_seat * players, by_seat, truncated, elapsed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40_000, help="games per line-up")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--agent", default="heuristic")
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--presets", default=None,
                    help="comma-separated presets (default: classic at 4 and 2 players, "
                         "then every other preset at --players)")
    ap.add_argument("--players", type=int, default=None,
                    help="player count for --presets (default 4)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    args = ap.parse_args(argv)
    if args.presets is None:
        lineups = DEFAULT if args.players is None else \
            [(p, args.players) for p in PRESETS]
    else:
        lineups = [(p, args.players or 4) for p in args.presets.split(",")]
    print(f"{args.agent} (one seat, rotated) against {args.opponent}; "
          f"{args.games:,} games per line-up, seed {args.seed}")
    print(f"{'preset':<12} {'players':>7} {'win rate':>9}  {'95% interval':<17} "
          f"{'chance':>6}  by seat")
    rows = []
    start = time.perf_counter()
    for preset, players in lineups:
        wins, n, by_seat, trunc, _ = seat_rotated(args.agent, args.opponent, preset,
                                                  players, args.games, args.seed,
                                                  args.threads)
        lo, hi = wilson(wins, n)
        rate = wins / n
        print(f"{preset:<12} {players:>7} {rate:>9.4f}  [{lo:.4f}, {hi:.4f}]  "
              f"{1 / players:>6.3f}  " + " ".join(f"{x:.3f}" for x in by_seat)
              + (f"  ({trunc} truncated)" if trunc else ""), flush=True)
        rows.append({"preset": preset, "players": players, "games": n, "wins": wins,
                     "win_rate": rate, "ci": [lo, hi], "by_seat": by_seat,
                     "truncated": trunc, "seed": args.seed, "agent": args.agent,
                     "opponent": args.opponent})
    print(f"({time.perf_counter() - start:.0f} s including compilation)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
