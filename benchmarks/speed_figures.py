"""The speed figures of the front page (README, "Fast") and of docs/performance.md, in one
run beside RLCard, and (``--write``) written into both.

    pip install -e ".[bench]"                         # RLCard, measured in the same run
    python benchmarks/speed_figures.py --write        # 3 runs of the table, about 2 minutes

Each repeat runs ``uno-bench bench --json`` (``uno_env.apps.throughput``: simulate,
EverySeatBatch, LearnerBatch, the AEC env and RLCard's UNO, each row for ``--seconds``)
in a fresh process, with the 1-minute load average before it. Per row it reports the
median decisions/s over the repeats with the spread (min to max), and the ratio to
RLCard's decisions/s of the same run (median and spread over the repeats: the ratio is the
figure to compare across days, the machine's own speed varies). ``--write`` replaces the
text between the ``speed`` markers of README.md and docs/performance.md; ``--json PATH``
keeps the raw runs. Without rlcard installed it stops: the figures are ratios to it.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README, PERFORMANCE = ROOT / "README.md", ROOT / "docs" / "performance.md"
RLCARD = "RLCard uno (2 players)"
#: the rows of uno-bench bench as docs/performance.md names them
LABELS = {
    "simulate, 1 thread": "`simulate`, 1 thread",
    "simulate, 2 threads": "`simulate`, 2 threads",
    "EverySeatBatch B=1024": "`EverySeatBatch`, B = 1024 (obs + mask included)",
    "EverySeatBatch B=1024, uint8 obs": "`EverySeatBatch`, B = 1024, `obs_dtype=\"uint8\"`",
    "EverySeatBatch B=1024, final_obs": "`EverySeatBatch`, B = 1024, `final_obs=True`",
    "LearnerBatch B=1024 vs heuristic":
        "`LearnerBatch`, B = 1024, against the heuristic (learner steps)",
    "LearnerBatch vs heuristic, 2 thr": "`LearnerBatch`, the same on 2 threads",
    "AEC env()": "AEC `env()`, random actions chosen in Python",
    RLCARD: "RLCard UNO (2 players, simplified rules)",
}


def bench_once(seconds: float) -> dict:
    """One ``uno-bench bench --json`` in a fresh process of this checkout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), UNO_ENV_QUIET="1")
    out = subprocess.run([sys.executable, "-m", "uno_env.apps.cli", "bench", "--json",
                          "--seconds", str(seconds)], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out[out.index("{"):])


def summarize(runs: list[dict]) -> dict:
    """Per row: median and min/max of decisions/s and of the ratio to RLCard."""
    rows = {}
    for name in runs[0]["rows"]:
        steps = [r["rows"][name]["steps_per_s"] for r in runs if name in r["rows"]]
        ratios = [r["ratios_vs_rlcard_steps"][name] for r in runs
                  if name in r.get("ratios_vs_rlcard_steps", {})]
        rows[name] = {"steps": statistics.median(steps), "low": min(steps),
                      "high": max(steps), "ratio": statistics.median(ratios),
                      "ratio_low": min(ratios), "ratio_high": max(ratios)}
    return rows


def _m(x: float) -> str:
    return f"{x / 1e6:.1f}M" if x >= 1e6 else f"{x / 1e3:.0f}k"


def readme_text(rows: dict, meta: dict) -> str:
    sim, esb, aec = rows["simulate, 1 thread"], rows["EverySeatBatch B=1024"], rows["AEC env()"]
    text = (
        f"on one thread `simulate` plays {_m(sim['steps'])} decisions a second, about "
        f"{sim['ratio']:.0f}x RLCard's UNO in the same run; `EverySeatBatch` steps 1,024 "
        f"games with masks and observations at {_m(esb['steps'])} steps/s (about "
        f"{esb['ratio']:.0f}x), the AEC env {_m(aec['steps'])} (about {aec['ratio']:.0f}x). "
        f"Classic, 4 players, random agents (RLCard: 2 players, its simplified rules), "
        f"median of {meta['repeats']} runs (`simulate` {sim['ratio_low']:.0f}x to "
        f"{sim['ratio_high']:.0f}x) on this project's 2-core machine, "
        f"{machine_state([meta['load_high']])} (load average {meta['load_low']:.1f} to "
        f"{meta['load_high']:.1f}), "
        f"{meta['date']}, `benchmarks/speed_figures.py`")
    # the README's bullet: its continuation lines indented by two
    return "\n  " + "\n  ".join(textwrap.wrap(text, 86, break_on_hyphens=False))


def machine_state(loads) -> str:
    """How busy the 2-core machine was: the benchmark itself keeps about one core busy
    (a load average near 1), so more than 1.5 means other jobs shared it."""
    return ("while other jobs shared it" if max(loads) > 1.5
            else "otherwise quiet")


def performance_text(rows: dict, meta: dict) -> str:
    lines = ["| row | decisions/s (median) | min to max | x RLCard (median) | "
             "x RLCard, min to max |", "|---|---:|---:|---:|---:|"]
    for name, r in rows.items():
        lines.append(f"| {LABELS.get(name, name)} | {r['steps']:,.0f} | {r['low']:,.0f} to "
                     f"{r['high']:,.0f} | {r['ratio']:,.1f} | {r['ratio_low']:,.1f} to "
                     f"{r['ratio_high']:,.1f} |")
    loads = ", ".join(f"{x:.1f}" for x in meta["loads"])
    lines += ["", *textwrap.wrap(f"Measured by `python benchmarks/speed_figures.py --write` on "
              f"{meta['date']} (commit {meta['commit']}): {meta['repeats']} runs of "
              f"`uno-bench bench` ({meta['seconds']:g} s a row), each in a fresh process, "
              f"on this project's 2-core machine, {machine_state(meta['loads'])} "
              f"(1-minute load average before each run: {loads}). The medians are those "
              f"of the runs; a loaded machine slows every row, RLCard's included, so the "
              f"ratios to RLCard in the same run are the figures to compare across days.",
              88, break_on_hyphens=False)]
    return "\n".join(lines)


def replace_between(path: Path, text: str) -> None:
    """Put ``text`` between ``<!-- speed:start -->`` and ``<!-- speed:end -->``."""
    old = path.read_text()
    pattern = re.compile(r"(<!-- speed:start -->).*?(<!-- speed:end -->)", re.S)
    if not pattern.search(old):
        raise SystemExit(f"{path}: no <!-- speed:start --> ... <!-- speed:end --> markers")
    path.write_text(pattern.sub(lambda m: m.group(1) + text + m.group(2), old, count=1))


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3, help="runs of the table (>= 2)")
    p.add_argument("--seconds", type=float, default=3.0, help="seconds measured per row")
    p.add_argument("--write", action="store_true",
                   help="write the figures into README.md and docs/performance.md")
    p.add_argument("--json", default=None, help="write the raw runs here")
    p.add_argument("--from-json", default=None,
                   help="no measuring: the runs a --json file kept (to write them again)")
    args = p.parse_args(argv)
    if args.from_json:
        kept = json.loads(Path(args.from_json).read_text())
        return report(kept["runs"], kept["meta"], args)
    if args.repeat < 2:
        p.error("--repeat must be at least 2: the spread over the runs is reported")
    try:
        import rlcard  # noqa: F401
    except ImportError:
        raise SystemExit("the figures are ratios to RLCard in the same run: "
                         "pip install -e \".[bench]\" (rlcard)") from None
    runs, loads = [], []
    for k in range(args.repeat):
        loads.append(os.getloadavg()[0])
        runs.append(bench_once(args.seconds))
        sim = runs[-1]["rows"]["simulate, 1 thread"]["steps_per_s"]
        print(f"run {k + 1}/{args.repeat}: load average {loads[-1]:.2f} before; simulate "
              f"{sim:,.0f} decisions/s, "
              f"{runs[-1]['ratios_vs_rlcard_steps']['simulate, 1 thread']:.0f}x RLCard",
              flush=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    meta = {"date": datetime.date.today().isoformat(), "commit": commit,
            "repeats": args.repeat, "seconds": args.seconds, "loads": loads,
            "load_low": min(loads), "load_high": max(loads)}
    return report(runs, meta, args)


def report(runs: list[dict], meta: dict, args) -> dict:
    """Print the figures of ``runs``; write them (``--write``) and keep them (``--json``)."""
    rows = summarize(runs)
    print(performance_text(rows, meta))
    print()
    print("README:", readme_text(rows, meta).replace("\n  ", " ").strip())
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "runs": runs, "rows": rows},
                                              indent=1))
    if args.write:
        replace_between(README, readme_text(rows, meta))
        replace_between(PERFORMANCE, "\n" + performance_text(rows, meta) + "\n")
        print(f"wrote {README.name} and docs/{PERFORMANCE.name}")
    return {"meta": meta, "rows": rows}


if __name__ == "__main__":
    main()
