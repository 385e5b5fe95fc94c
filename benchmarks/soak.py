"""Soak every preset: random play (and the greedy and heuristic agents) inside numba
with the engine's invariants checked after the deal and after every step
(``uno_env.testing.soak``, the kernel ``uno_env.engine.soak``), on several processes.

    python benchmarks/soak.py                       # 10^8 random decisions a preset
    python benchmarks/soak.py --presets classic,flip --decisions 1000000 --json out.json

Per preset and agent, a pilot chunk (game 0 on) gives the mean decisions per game; the
run then plays games ``0 .. G - 1`` of the seed, with ``G`` chosen from the pilot to
reach the decision target (topped up chunk by chunk if it falls short). Chunks are
ranges of game indices, so the games played and every figure but the times are the
same whatever ``--workers``. Game ``i`` is ``simulate``'s game ``i`` of the seed.

Prints a markdown table (games, decisions, invariant breaks, truncations, kernel time
summed over the workers, decisions per second of one worker process); exits 1 on any
break, naming the first broken game and how to replay it.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from tqdm.auto import tqdm

from uno_env.rules import PRESETS


def run_chunk(preset: str, players: int, agent: str, seed: int, first: int, games: int,
              obs_every: int) -> dict:
    """One range of games, checked (``uno_env.testing.soak``); its totals."""
    from uno_env.testing import soak
    r = soak(preset, players, games=games, seed=seed, first_game=first, agent=agent,
             obs_every=obs_every)
    return {"games": r.games, "decisions": r.decisions, "truncated": r.truncated,
            "broken": r.broken, "breaks": r.breaks, "first_break": r.first_break,
            "elapsed": r.elapsed, "first": first}


def _warm(preset: str, players: int) -> float:
    """Compile (or load) the preset's variant's soak kernel; seconds taken."""
    start = time.perf_counter()
    run_chunk(preset, players, "random", 0, 0, 1, 1)
    return time.perf_counter() - start


def _merge(parts: list[dict]) -> dict:
    parts = sorted(parts, key=lambda p: p["first"])
    out = {k: sum(p[k] for p in parts) for k in ("games", "decisions", "truncated",
                                                  "broken", "elapsed")}
    out["breaks"] = {k: sum(p["breaks"][k] for p in parts) for k in parts[0]["breaks"]}
    out["first_break"] = next((p["first_break"] for p in parts if p["first_break"]), None)
    return out


def soak_all(presets, agents: dict, players: int = 4, seed: int = 0, workers: int = 2,
             obs_every: int = 1, chunk_decisions: int = 2_000_000,
             pilot_games: int = 300, progress: bool = True, on_row=None) -> list[dict]:
    """Soak ``presets`` with ``agents`` (name -> decision target); returns one row per
    (preset, agent) in that order. ``on_row(row)`` is called as each row completes."""
    from uno_env.rules.config import make_config
    variants = {}
    for p in presets:
        variants.setdefault(make_config(p, players).variant, p)
    jobs = [(p, a) for p in presets for a in agents]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        # one compile per variant, `workers` of them at a time, before any chunk
        start = time.perf_counter()
        warm = {v: pool.submit(_warm, p, players) for v, p in variants.items()}
        compile_s = {v: round(f.result(), 1) for v, f in warm.items()}
        print(f"soak kernels ready in {time.perf_counter() - start:.0f} s "
              f"(per variant: {compile_s})", flush=True)
        pilots = {(p, a): pool.submit(run_chunk, p, players, a, seed, 0, pilot_games,
                                      obs_every) for p, a in jobs}
        plan, futures = {}, {}
        for (p, a) in jobs:
            pilot = pilots[(p, a)].result()
            per_game = max(pilot["decisions"] / pilot["games"], 1.0)
            target = agents[a]
            total = max(pilot_games, math.ceil(1.04 * target / per_game))
            size = max(1, round(chunk_decisions / per_game))
            plan[(p, a)] = (target, size, per_game)
            futures[(p, a)] = [pilot] + [
                pool.submit(run_chunk, p, players, a, seed, lo, min(size, total - lo),
                            obs_every) for lo in range(pilot_games, total, size)]
        bar = tqdm(total=sum(agents[a] for _, a in jobs), unit="dec", unit_scale=True,
                   disable=not progress, mininterval=20, smoothing=0.05, file=sys.stderr)
        bar.update(sum(f.result()["decisions"] for f in pilots.values()))
        rows = []
        for (p, a) in jobs:
            target, size, per_game = plan[(p, a)]
            parts = [futures[(p, a)][0]]
            for f in futures[(p, a)][1:]:
                parts.append(f.result())
                bar.update(parts[-1]["decisions"])
            merged = _merge(parts)
            # short of the target: top up in order (not when a chunk made no decision:
            # games broken at the deal would top up forever; the row reports them)
            while merged["decisions"] < target and parts[-1]["decisions"] > 0:
                lo, per_game = merged["games"], merged["decisions"] / merged["games"]
                more = math.ceil(1.04 * (target - merged["decisions"]) / max(per_game, 1))
                parts.append(run_chunk(p, players, a, seed, lo, max(1, min(size, more)),
                                       obs_every))
                bar.update(parts[-1]["decisions"])
                merged = _merge(parts)
            row = {"preset": p, "variant": make_config(p, players).variant, "agent": a,
                   "players": players, "seed": seed, "obs_every": obs_every, **merged,
                   "decisions_per_s": round(merged["decisions"] / max(merged["elapsed"],
                                                                      1e-9))}
            rows.append(row)
            if on_row:
                on_row(row)
        bar.close()
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| preset | agent | games | decisions | invariant breaks | truncations "
             "| time (s) | decisions/s per worker |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['preset']} | {r['agent']} | {r['games']:,} | "
                     f"{r['decisions']:,} | {r['broken']} | {r['truncated']:,} | "
                     f"{r['elapsed']:,.0f} | {r['decisions_per_s']:,} |")
    return "\n".join(lines)


def replay_hint(row: dict) -> str:
    game, step, kinds = row["first_break"]
    agent = row["agent"]
    how = ("GameOps(g.config).random_legal(g._state, 0, mask) each step"
           if agent == "random" else f"the {agent} agent each step")
    return (f"first broken game: {row['preset']} ({row['players']} players), agent "
            f"{agent}, seed {row['seed']}, game {game}, at step {step}: {', '.join(kinds)}."
            f" Replay: g = Game({row['preset']!r}, {row['players']}); "
            f"g.reset({row['seed']}, {game}); then {how}; uno_env.testing.soak_check(g) "
            f"after each step (or soak({row['preset']!r}, games=1, first_game={game}, "
            f"seed={row['seed']}, agent={agent!r}))")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", default=",".join(PRESETS),
                    help="comma-separated presets (default: all)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--decisions", type=float, default=1e8,
                    help="random-agent decisions per preset (default 10^8)")
    ap.add_argument("--agent-decisions", type=float, default=1e6,
                    help="decisions per preset of each other agent (default 10^6)")
    ap.add_argument("--agents", default="random,greedy,heuristic")
    ap.add_argument("--workers", type=int, default=2, help="processes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--obs-every", type=int, default=1,
                    help="check the observation every k-th step (default: every step)")
    ap.add_argument("--chunk-decisions", type=float, default=2e6,
                    help="about this many decisions per task")
    ap.add_argument("--json", metavar="OUT", help="write the rows (and the run) here")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    presets = [p for p in args.presets.split(",") if p]
    unknown = [p for p in presets if p not in PRESETS]
    if unknown:
        ap.error(f"unknown presets {unknown}; valid: {', '.join(PRESETS)}")
    agents = {}
    for a in args.agents.split(","):
        if a not in ("random", "greedy", "heuristic"):
            ap.error(f"unknown agent {a!r}; valid: random, greedy, heuristic")
        agents[a] = int(args.decisions if a == "random" else args.agent_decisions)
    start = time.perf_counter()
    run = {"command": "python benchmarks/soak.py " + " ".join(argv or sys.argv[1:]),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                      f"{platform.python_version()}", "workers": args.workers}

    def save(rows):
        if args.json:
            with open(args.json, "w") as fh:
                json.dump({**run, "wall_s": round(time.perf_counter() - start, 1),
                           "rows": rows}, fh, indent=1)

    done: list[dict] = []

    def on_row(row):
        done.append(row)
        print(f"{row['preset']} {row['agent']}: {row['games']:,} games, "
              f"{row['decisions']:,} decisions, {row['broken']} broken, "
              f"{row['truncated']} truncated, {row['elapsed']:.0f} s", flush=True)
        save(done)

    rows = soak_all(presets, agents, args.players, args.seed, args.workers,
                    args.obs_every, int(args.chunk_decisions),
                    progress=not args.no_progress, on_row=on_row)
    wall = time.perf_counter() - start
    save(rows)
    print(table(rows))
    print(f"wall time {wall:.0f} s on {args.workers} worker processes")
    broken = [r for r in rows if r["broken"]]
    for r in broken:
        print(replay_hint(r), file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
