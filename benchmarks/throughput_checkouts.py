"""Throughput of two (or more) checkouts of uno-env, interleaved in one run.

Each repeat runs ``python -m uno_env.apps.cli bench --json`` (``python -m uno_env.bench``
in a checkout older than the 0.2 layout) once per checkout, in turn (A, B,
A, B, ...), with that checkout first on ``PYTHONPATH`` and its kernels already compiled
(a warm-up call first, in its own cache directory), so a shared, noisy machine loads
both alike. It prints, per row of the throughput table, the median decisions/s of each
checkout over the repeats, the spread (min-max), and the ratio to the first checkout.

    python benchmarks/throughput_checkouts.py --checkout ../previous --checkout . \
        --repeat 3 --seconds 3

``--bench uno_env/apps/throughput.py`` (or ``uno_env/bench.py`` of a checkout before 0.2)
runs that one file (a copy) against every checkout
instead of each checkout's own table: rows added since an older commit are
then measured on it too, wherever its API allows (a row it cannot run is left out).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def _run(checkout: Path, cache: str, args: list[str], python: str,
         bench: Path | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout), NUMBA_CACHE_DIR=cache,
               UNO_ENV_QUIET="1")
    # the table's module in that checkout (uno_env.bench before the 0.2 layout)
    table = ["-m", "uno_env.apps.cli", "bench"] if (checkout / "uno_env" / "apps").is_dir() \
        else ["-m", "uno_env.bench"]
    if bench is not None and "def run(" in bench.read_text():
        # a 0.2 table module (uno_env/apps/throughput.py): its run() with these options
        opts = dict(zip(args[::2], args[1::2]))
        call = (f"import runpy; runpy.run_path({str(bench)!r})['run']("
                f"{float(opts['--seconds'])}, {int(opts['--players'])}, "
                f"{opts['--preset']!r}, True)")
        command = ["-c", call]
    else:  # a table with its own command line (uno_env/bench.py before 0.2)
        command = ([str(bench)] if bench else table) + ["--json"]
    out = subprocess.run([python, *command, *args] if command[0] != "-c" else
                         [python, *command], env=env,
                         cwd=checkout, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout[out.stdout.index("{"):])
    # the every-seat batch's rows were "VectorEnv ..." before 0.2
    result["rows"] = {k.replace("VectorEnv", "EverySeatBatch", 1) if k.startswith(
        "VectorEnv") else k: v for k, v in result["rows"].items()}
    return result


def _label(checkout: Path) -> str:
    try:
        commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short",
                                 "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    return f"{checkout.name}@{commit}" if commit else checkout.name


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", type=Path, required=True,
                        help="a checkout to measure (repeatable; ratios are against the "
                             "first)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per checkout")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter (default: this one)")
    parser.add_argument("--json", type=Path, help="save every run here")
    parser.add_argument("--bench", type=Path,
                        help="run this bench.py against every checkout (module docstring)")
    args = parser.parse_args(argv)
    bench = None
    if args.bench:  # a copy outside any checkout, so that `import uno_env` finds each one
        bench = Path(tempfile.mkdtemp(prefix="uno-bench-rows-")) / "uno_bench_rows.py"
        shutil.copy(args.bench, bench)
    checkouts = [c.resolve() for c in args.checkout]
    bench_args = ["--seconds", str(args.seconds), "--players", str(args.players),
                  "--preset", args.preset]
    caches = {c: tempfile.mkdtemp(prefix=f"uno-bench-{c.name}-") for c in checkouts}
    for c in checkouts:  # compile outside the timed runs
        print(f"compiling {_label(c)} ...", file=sys.stderr, flush=True)
        _run(c, caches[c], ["--seconds", "0.2", "--players", str(args.players),
                            "--preset", args.preset], args.python, bench)
    runs: dict[Path, list[dict]] = {c: [] for c in checkouts}
    for r in range(args.repeat):
        for c in checkouts:
            print(f"repeat {r + 1}/{args.repeat}: {_label(c)}", file=sys.stderr,
                  flush=True)
            runs[c].append(_run(c, caches[c], bench_args, args.python, bench))
    rows = [k for k in runs[checkouts[0]][0]["rows"]
            if all(k in runs[c][0]["rows"] for c in checkouts)]
    labels = [_label(c) for c in checkouts]
    print(f"decisions (steps) per second, {args.preset}, {args.players} players, random "
          f"agents; median of {args.repeat} interleaved runs [min-max]")
    print("| row | " + " | ".join(labels) + " | ratio |")
    print("|---|" + "---:|" * (len(labels) + 1))
    for k in rows:
        cells, medians = [], []
        for c in checkouts:
            values = [run["rows"][k]["steps_per_s"] for run in runs[c]]
            med = statistics.median(values)
            medians.append(med)
            cells.append(f"{med / 1e3:,.0f}k [{min(values) / 1e3:,.0f}-"
                         f"{max(values) / 1e3:,.0f}k]")
        ratio = " / ".join(f"{m / medians[0]:.2f}" for m in medians[1:])
        print(f"| {k} | " + " | ".join(cells) + f" | {ratio} |")
    if args.json:
        args.json.write_text(json.dumps({_label(c): runs[c] for c in checkouts},
                                        indent=1))


if __name__ == "__main__":
    main()
