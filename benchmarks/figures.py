"""Regenerate the headline figures in ``docs/figures/`` (the README shows them).

    python benchmarks/figures.py            # 100,000 games per cell (a few minutes)
    python benchmarks/figures.py --quick    # 2,000 games per cell, to check it runs

Writes ``game_length.png`` (turns per game for every preset at 2, 4 and 6 players,
``heuristic`` in every seat) and ``skill_gap.png`` (the heuristic's edge over random
players per preset and player count), from the same functions as the notebooks."""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from uno_env.evaluation import plots  # noqa: E402
from uno_env.evaluation.analysis import skill_grid, variant_grid  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "docs" / "figures"


def main(argv=None) -> dict[str, Path]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 games per cell")
    parser.add_argument("--games", type=int, default=None, help="games per cell")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    games = args.games or (2_000 if args.quick else 100_000)
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    cells = variant_grid(games, seed=args.seed)
    edges = skill_grid(games, seed=args.seed)
    figures = {
        "game_length.png": plots.turns_boxplot(
            cells, f"Turns per game ({games:,} games per cell, heuristic agents)"),
        "skill_gap.png": plots.skill_plot(
            edges, f"How much skill decides a game ({games:,} games per cell)"),
    }
    paths = {}
    for name, fig in figures.items():
        paths[name] = args.out / name
        fig.savefig(paths[name], dpi=110)
        plt.close(fig)
        print(f"wrote {paths[name]}")
    print(f"{len(cells)} cells, {games:,} games each, in {time.perf_counter() - start:.0f} s")
    return paths


if __name__ == "__main__":
    main()
