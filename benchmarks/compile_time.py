"""First-run cost of uno-env: what a new user waits for before anything happens.

What is measured
    Every case runs in a FRESH Python subprocess whose numba cache is an EMPTY directory
    (``NUMBA_CACHE_DIR`` and ``XDG_CACHE_HOME`` point into a new ``tempfile.mkdtemp()``,
    deleted afterwards). So each figure is the cost of a first run after a clean install:
    interpreter start, imports, numba typing/lowering/optimising every kernel the case
    reaches, writing the on-disk cache, and the (tiny) work itself. Nothing is shared
    between cases: no kernel compiled by one case helps the next.

    Cases (public APIs only, so the same script runs before and after an engine refactor):

    ==============  ======================================================================
    ``tournament``  the README's first command, ``uno-bench tournament --agents
                    random,greedy,heuristic --games 30000 --out DIR`` (run in-process as
                    ``uno_env.apps.cli.main()``, i.e. ``python -m uno_env.apps.cli``; ``--preset P``
                    is added for a preset other than classic)
    ``game+env``    a first ``Game(preset)`` move (``g.play(g.legal_moves()[0])``) and a
                    first ``uno_env.env(preset=...)`` step (reset, first legal action of
                    the mask), in one process: what a person trying the API meets
    ``game``        the ``Game`` part alone
    ``env``         the ``env()`` part alone
    ``simulate``    ``simulate(preset, 4 players, random agents, 100 games)``
    ``vector``      ``EverySeatBatch(16, preset)``: reset and one step with legal actions
    ``single``      ``SingleAgentEnv(preset)``: reset and one step with a legal action
    ==============  ======================================================================

    for each preset of ``--presets`` (default: classic, street (house rules), flip,
    onepiece). ``--cases simulate:flip,game+env:classic`` picks single (case, preset)
    pairs; a case without ``:preset`` runs for every preset of ``--presets``.

How to read the table
    ``seconds`` is the wall time of the whole subprocess (the headline: what the user
    waits), the median over ``--repeat`` runs with the min-max spread beside it. ``CPU s``
    is the subprocess's user + system CPU time: numba compiles on one thread, so on a
    quiet machine it is close to the wall time, and on a loaded one it is the steadier
    figure (wall time grows with the load, CPU time much less). ``load`` is the machine's
    1-minute load average when each run started (above the number of cores: the wall
    times are inflated). ``split`` is the child's own clock for its phases (``import``
    of uno_env, then each first call; interpreter start-up is the rest): nearly all of a
    first call is numba compiling. ``cache MB`` is what the case left in its numba cache
    (how much was compiled).
    With several ``--checkout`` the same cases run against each checkout IN THE SAME RUN,
    interleaved (case by case, checkout by checkout, repeat by repeat), so a before/after
    comparison shares the machine's load; ``ratio`` and ``CPU ratio`` are medians against
    the first checkout's (below 1: faster than the first). On a shared machine the
    figures are noisy: look at the spread, and prefer ``--repeat 3`` for anything close.

    A checkout is run with ``PYTHONPATH=<checkout>`` (ahead of an editable install); the
    child checks that ``uno_env`` really comes from that checkout and fails otherwise.

Examples
    python benchmarks/compile_time.py                              # every case, this checkout
    python benchmarks/compile_time.py --cases game+env:classic,tournament:classic --repeat 3
    nice -n 5 python benchmarks/compile_time.py --checkout ../before --checkout . \\
        --cases tournament:classic,game+env:classic --json compile.json
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

CASES = ("tournament", "game+env", "game", "env", "simulate", "vector", "single")
PRESETS = ("classic", "street", "flip", "onepiece")
HERE_CHECKOUT = Path(__file__).resolve().parents[1]
MARK = "@@compile_time "

#: The README's quick-start tournament (``--out`` and ``--preset`` are added per run).
TOURNAMENT_ARGS = ["tournament", "--agents", "random,greedy,heuristic", "--games", "30000"]
SIMULATE_GAMES = 100
VECTOR_ENVS = 16

# Runs inside the fresh subprocess: python -c CHILD CASE PRESET CHECKOUT WORKDIR.
# Prints one line "@@compile_time {json}" with its phases (seconds on its own clock).
CHILD = r'''
import json, os, sys, time
T0 = time.perf_counter()
case, preset, checkout, workdir = sys.argv[1:5]
phases = []
def lap(name, t=[T0]):
    now = time.perf_counter(); phases.append([name, now - t[0]]); t[0] = now

def first_legal(mask):
    import numpy as np
    return int(np.flatnonzero(np.asarray(mask))[0])

def load_simulate():
    # the function is ``uno_env.simulate``; before it was exported the attribute was
    # the module (``uno_env/simulate.py``, now ``uno_env/evaluation/simulation.py``), and this
    # script also times older commits
    from uno_env import simulate
    if not callable(simulate):
        simulate = simulate.simulate
    return simulate

import numpy as np
import uno_env
lap("import")
origin = os.path.realpath(uno_env.__file__)
if not origin.startswith(os.path.realpath(checkout) + os.sep):
    sys.exit(f"uno_env imported from {origin}, not from the checkout {checkout}")

def game():
    g = uno_env.Game(preset); lap("Game()")
    g.play(g.legal_moves()[0]); lap("Game.play")

def env():
    e = uno_env.env(preset=preset); lap("env()")
    e.reset(seed=0); lap("env.reset")
    obs = e.last()[0]
    e.step(first_legal(obs["action_mask"])); lap("env.step")

if case == "tournament":
    # uno_env.cli before the 0.2 layout (asked by path: an editable install of another
    # checkout could lend its uno_env.apps to an import attempt)
    if os.path.isdir(os.path.join(checkout, "uno_env", "apps")):
        import uno_env.apps.cli as cli
    else:
        import uno_env.cli as cli
    lap("import cli")
    extra = [] if preset == "classic" else ["--preset", preset]
    sys.argv = ["uno-bench", *json.loads(os.environ["COMPILE_TIME_TOURNAMENT"]), *extra,
                "--out", os.path.join(workdir, "results")]
    try:
        cli.main()
    except SystemExit as stop:
        if stop.code not in (0, None):
            raise
    lap("tournament")
elif case == "game+env":
    game(); env()
elif case == "game":
    game()
elif case == "env":
    env()
elif case == "simulate":
    simulate = load_simulate(); lap("import simulate")
    r = simulate(preset, num_players=4, agents="random",
                 num_games=int(os.environ["COMPILE_TIME_GAMES"]), seed=0)
    lap("simulate")
elif case == "vector":
    if os.path.isdir(os.path.join(checkout, "uno_env", "envs")):
        from uno_env.envs.every_seat import EverySeatBatch
    else:                                 # VectorEnv in uno_env.vector before 0.2
        from uno_env.vector import VectorEnv as EverySeatBatch
    lap("import vector")
    v = EverySeatBatch(int(os.environ["COMPILE_TIME_ENVS"]), preset=preset, seed=0)
    lap("EverySeatBatch()")
    out = v.reset(); lap("reset")
    mask = np.asarray(out[1])
    v.step(mask.argmax(axis=1).astype(np.int64)); lap("step")
elif case == "single":
    s = uno_env.SingleAgentEnv(preset, seed=0); lap("SingleAgentEnv()")
    obs, info = s.reset(seed=0); lap("reset")
    s.step(first_legal(info["action_mask"])); lap("step")
else:
    sys.exit(f"unknown case {case!r}")
sys.stdout.flush()
print("\n@@compile_time " + json.dumps({"phases": phases, "uno_env": origin}), flush=True)
'''


@dataclass
class Run:
    case: str
    preset: str
    checkout: str
    repeat: int
    seconds: float | None = None            # wall time of the subprocess
    cpu_seconds: float | None = None        # its user + system CPU time (all threads)
    load1: float = 0.0                      # the machine's 1-minute load when it started
    phases: list = field(default_factory=list)  # [name, seconds] on the child's clock
    cache_bytes: int = 0
    cache_files: int = 0
    error: str | None = None


def parse_pairs(cases: list[str], presets: list[str]) -> list[tuple[str, str]]:
    """(case, preset) pairs from ``--cases`` items (``case`` or ``case:preset``, comma
    separated) and the ``--presets`` list, in the order given, without duplicates."""
    pairs: list[tuple[str, str]] = []
    for item in (x.strip() for c in cases for x in c.split(",")):
        if not item:
            continue
        case, _, preset = item.partition(":")
        if case not in CASES:
            raise ValueError(f"unknown case {case!r}; cases: {', '.join(CASES)}")
        for p in ([preset] if preset else presets):
            if (case, p) not in pairs:
                pairs.append((case, p))
    return pairs


def split_list(values: list[str]) -> list[str]:
    return [x.strip() for v in values for x in v.split(",") if x.strip()]


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the module docstring for how to read it.")
    ap.add_argument("--cases", action="append", default=None, metavar="CASE[:PRESET],...",
                    help=f"cases to run (default: all of {', '.join(CASES)}); "
                         "case:preset runs that pair only")
    ap.add_argument("--presets", action="append", default=None, metavar="P,...",
                    help=f"presets for cases given without one (default: {','.join(PRESETS)})")
    ap.add_argument("--checkout", action="append", default=None, metavar="PATH",
                    help="a checkout to measure (repeatable; default: the one holding "
                         "this script); the ratio column is against the first")
    ap.add_argument("--repeat", type=int, default=1, help="runs of every case (default 1)")
    ap.add_argument("--timeout", type=float, default=1800.0,
                    help="seconds before a case is killed (default 1800)")
    ap.add_argument("--json", dest="json_path", metavar="PATH", help="save the results")
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter for the subprocesses (default: this one)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the planned runs and exit")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    presets = split_list(args.presets) if args.presets else list(PRESETS)
    try:
        args.pairs = parse_pairs(args.cases or [",".join(CASES)], presets)
    except ValueError as err:
        ap.error(str(err))
    if not args.pairs:
        ap.error("no case selected")
    checkouts = [Path(c).resolve() for c in (args.checkout or [HERE_CHECKOUT])]
    for c in checkouts:
        if not (c / "uno_env" / "__init__.py").is_file():
            ap.error(f"{c} is not a checkout of uno-env (no uno_env/__init__.py)")
    if len(set(checkouts)) != len(checkouts):
        ap.error("a checkout is given twice")
    args.checkouts = [str(c) for c in checkouts]
    return args


def plan(args) -> list[tuple[int, str, str, str]]:
    """(repeat, case, preset, checkout) in run order: checkouts interleaved innermost, so
    the runs compared with each other are next to each other in time."""
    return [(r, case, preset, c) for r in range(args.repeat)
            for case, preset in args.pairs for c in args.checkouts]


def describe(checkout: str) -> dict:
    def git(*cmd):
        try:
            return subprocess.run(["git", "-C", checkout, *cmd], capture_output=True,
                                  text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    commit = git("rev-parse", "--short", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", "uno_env",
                     "agents"))
    return {"path": checkout, "commit": commit + ("+dirty" if dirty else ""),
            "subject": git("log", "-1", "--format=%s")}


def child_env(checkout: str, cache: str) -> dict:
    env = dict(os.environ)
    for var in ("NUMBA_DISABLE_JIT", "NUMBA_CACHE_DIR", "PYTHONPATH"):
        env.pop(var, None)
    env.update(PYTHONPATH=checkout, NUMBA_CACHE_DIR=os.path.join(cache, "numba"),
               XDG_CACHE_HOME=os.path.join(cache, "xdg"),
               COMPILE_TIME_TOURNAMENT=json.dumps(TOURNAMENT_ARGS),
               COMPILE_TIME_GAMES=str(SIMULATE_GAMES), COMPILE_TIME_ENVS=str(VECTOR_ENVS))
    return env


def run_one(args, repeat: int, case: str, preset: str, checkout: str) -> Run:
    run = Run(case, preset, checkout, repeat)
    tmp = tempfile.mkdtemp(prefix="uno-compile-")
    try:
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        run.load1 = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        try:
            proc = subprocess.run([args.python, "-c", CHILD, case, preset, checkout, work],
                                  cwd=work, env=child_env(checkout, tmp),
                                  capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            run.error = f"timed out after {args.timeout:.0f} s"
            return run
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # only this child ran
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        marks = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
        if proc.returncode != 0 or not marks:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            run.error = f"exit {proc.returncode}: " + " | ".join(tail)
            return run
        run.seconds, run.cpu_seconds = wall, cpu
        run.phases = json.loads(marks[-1][len(MARK):])["phases"]
        for root, _, files in os.walk(os.path.join(tmp, "numba")):
            for f in files:
                run.cache_files += 1
                run.cache_bytes += os.path.getsize(os.path.join(root, f))
        return run
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fmt_split(phases) -> str:
    return ", ".join(f"{name} {sec:.1f}" for name, sec in phases if sec >= 0.05) or "-"


def summarise(runs: list[Run], args, labels: dict[str, str]) -> list[dict]:
    rows = []
    for case, preset in args.pairs:
        base = None
        for c in args.checkouts:
            mine = [r for r in runs if (r.case, r.preset, r.checkout) == (case, preset, c)]
            if not mine:  # not run (yet)
                continue
            ok = [r for r in mine if r.seconds is not None]
            row = {"case": case, "preset": preset, "checkout": labels[c], "path": c,
                   "runs": len(mine), "failed": len(mine) - len(ok),
                   "errors": sorted({r.error for r in mine if r.error})}
            if ok:
                secs = [r.seconds for r in ok]
                # the split of the median run (by wall time)
                mid = sorted(ok, key=lambda r: r.seconds)[(len(ok) - 1) // 2]
                cpus = [r.cpu_seconds for r in ok]
                row.update(median=statistics.median(secs), min=min(secs), max=max(secs),
                           cpu_median=statistics.median(cpus), cpu_min=min(cpus),
                           cpu_max=max(cpus), load1=[r.load1 for r in ok],
                           split=mid.phases, cache_mb=mid.cache_bytes / 1e6)
                if base is None and c == args.checkouts[0]:
                    base = row["median"], row["cpu_median"]
                row["ratio"] = row["median"] / base[0] if base else None
                row["cpu_ratio"] = row["cpu_median"] / base[1] if base else None
            rows.append(row)
    return rows


def markdown(rows: list[dict], several: bool) -> str:
    head = ["case", "preset"] + (["checkout"] if several else []) + \
        ["seconds (median)", "min-max", "CPU s (median)", "min-max", "runs"] + \
        (["ratio", "CPU ratio"] if several else []) + \
        ["load", "cache MB", "split (child's clock, s)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if "median" in r:
            cells = [f"{r['median']:.1f}", f"{r['min']:.1f}-{r['max']:.1f}",
                     f"{r['cpu_median']:.1f}", f"{r['cpu_min']:.1f}-{r['cpu_max']:.1f}",
                     f"{r['runs'] - r['failed']}" + (f" ({r['failed']} failed)"
                                                     if r["failed"] else "")]
            ratio = [f"{r[k]:.2f}" if r.get(k) is not None else "-"
                     for k in ("ratio", "cpu_ratio")]
            tail = ["/".join(f"{x:.1f}" for x in r["load1"]), f"{r['cache_mb']:.1f}",
                    fmt_split(r["split"])]
        else:
            cells = ["FAILED", "-", "-", "-", f"0 ({r['failed']} failed)"]
            ratio = ["-", "-"]
            tail = ["-", "-", "; ".join(r["errors"])[:200]]
        lines.append("| " + " | ".join([r["case"], r["preset"]]
                                       + ([r["checkout"]] if several else []) + cells
                                       + (ratio if several else []) + tail) + " |")
    return "\n".join(lines)


def save(args, runs, labels, info, started, load_start) -> None:
    rows = summarise(runs, args, labels)
    try:
        import numba
        numba_version = numba.__version__
    except ImportError:
        numba_version = None
    meta = {"started": started, "saved": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "complete": len(runs) == len(plan(args)),
            "python": platform.python_version(), "numba": numba_version,
            "machine": platform.machine(), "cpus": os.cpu_count(),
            "niceness": os.nice(0), "loadavg_start": load_start,
            "loadavg_end": os.getloadavg(), "repeat": args.repeat,
            "tournament_args": TOURNAMENT_ARGS, "simulate_games": SIMULATE_GAMES,
            "vector_envs": VECTOR_ENVS, "checkouts": list(info.values())}
    Path(args.json_path).write_text(json.dumps(
        {"meta": meta, "rows": rows, "runs": [asdict(r) for r in runs],
         "markdown": markdown(rows, len(args.checkouts) > 1)}, indent=2) + "\n")


def main(argv=None) -> int:
    args = parse_args(argv)
    todo = plan(args)
    info = {c: describe(c) for c in args.checkouts}
    labels = {c: f"{Path(c).name}@{info[c]['commit'] or '?'}" for c in args.checkouts}
    if args.dry_run:
        for r, case, preset, c in todo:
            print(f"repeat {r + 1}: {case:10s} {preset:10s} {labels[c]}")
        return 0
    print(f"{len(todo)} cold runs, each in a fresh process with an empty numba cache; "
          f"checkouts: {', '.join(labels.values())}", file=sys.stderr)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_start = os.getloadavg()
    runs = []
    for i, (r, case, preset, c) in enumerate(todo, 1):
        run = run_one(args, r, case, preset, c)
        runs.append(run)
        what = f"{run.seconds:.1f} s" if run.seconds is not None else run.error
        print(f"[{i}/{len(todo)}] {case} {preset} {labels[c]} (repeat {r + 1}): {what}",
              file=sys.stderr, flush=True)
        if args.json_path:  # after every run, so an interrupted run keeps its figures
            save(args, runs, labels, info, started, load_start)
    rows = summarise(runs, args, labels)
    print(markdown(rows, len(args.checkouts) > 1))
    if args.json_path:
        print(f"wrote {args.json_path}", file=sys.stderr)
    return 0 if all(r.seconds is not None for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
