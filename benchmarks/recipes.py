"""Does the README's training recipe stay fast on a busy machine?

Runs the README's Stable-Baselines3 snippet ("**Training one seat**") exactly as written
but for the step count (``model.learn(1_000_000)`` becomes ``model.learn(--steps)``,
timed), each run in a fresh Python process, twice: idle, and beside one core-bound
process this script starts itself (a busy loop, ended with the run). Prints the
learner steps/s of both, with the load average before each run (the machine is shared:
a figure is only "idle" when the load says so) and the process's CPU seconds (all its
threads, set-up included: a torch that spins shows there).

``--compare`` runs, back to back in the same conditions, the snippet without its
``set_threads()`` line (torch's own default, one thread per core) and with
``set_threads(2)``: the measurement behind ``uno_env.integrations.threads``.

    python benchmarks/recipes.py                      # 300,000 steps, idle and busy
    python benchmarks/recipes.py --steps 100000 --compare --json recipes.json

Targets (issue #57, the project's 2-core machine): >= 7,000 steps/s idle and >= 4,000
beside one busy process.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import resource
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: the learn call of the snippet, the one line the benchmark changes
LEARN = re.compile(r"^model\.learn\(([\d_]+)\)\s*$", re.M)


def readme_snippet(readme: pathlib.Path = README) -> str:
    """The README's SB3 training snippet: the first ```python block after the line
    starting with ``**Training one seat**``."""
    text = readme.read_text()
    start = text.index("**Training one seat**")
    match = re.search(r"```python\n(.*?)```", text[start:], re.S)
    if match is None or "MaskablePPO" not in match.group(1):
        raise ValueError(f"no SB3 snippet after '**Training one seat**' in {readme}")
    return match.group(1)


def timed(snippet: str, steps: int) -> str:
    """``snippet`` with its ``model.learn(...)`` line replaced by a timed
    ``model.learn(steps)`` that prints ``{"steps": ..., "seconds": ...}``."""
    if len(LEARN.findall(snippet)) != 1:
        raise ValueError("the snippet must hold exactly one 'model.learn(N)' line")
    timing = ("import json as _json, time as _time\n"
              "_start = _time.perf_counter()\n"
              f"model.learn({int(steps)})\n"
              "_seconds = _time.perf_counter() - _start\n"
              f"print('RECIPE ' + _json.dumps({{'steps': model.num_timesteps, "
              f"'seconds': _seconds}}))\n")
    return LEARN.sub(lambda _: timing, snippet)


def variant(snippet: str, threads: str | None) -> str:
    """The snippet with its ``set_threads()`` call replaced: ``None`` drops the line
    (torch's default), else ``set_threads(<threads>)``."""
    call = re.compile(r"^set_threads\(\)[^\n]*$", re.M)
    if not call.search(snippet):
        raise ValueError("the snippet has no 'set_threads()' line")
    return call.sub("" if threads is None else f"set_threads({threads})", snippet)


def busy(seconds: float) -> subprocess.Popen:
    """A core-bound process (a Python busy loop) that ends by itself after
    ``seconds`` (and is ended by the caller when the run is done)."""
    loop = f"import time\nend = time.time() + {seconds}\nwhile time.time() < end:\n    pass\n"
    return subprocess.Popen([sys.executable, "-c", loop])


def run(code: str, timeout: float) -> dict:
    """Run ``code`` in a fresh interpreter (this checkout first on the path); its
    ``RECIPE`` line as a dict with ``steps_per_s``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
               UNO_ENV_QUIET="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"the snippet failed:\n{done.stderr[-3000:]}")
    line = next(l for l in done.stdout.splitlines() if l.startswith("RECIPE "))
    row = json.loads(line[len("RECIPE "):])
    row["steps_per_s"] = row["steps"] / row["seconds"]
    # the whole process's CPU time (imports and set-up included, all threads): on a
    # loaded machine, steps per CPU second say what the recipe does with the CPU it gets
    row["cpu_seconds"] = (after.ru_utime + after.ru_stime) - (before.ru_utime +
                                                               before.ru_stime)
    return row


def measure(code: str, busy_processes: int, timeout: float) -> dict:
    """One run of ``code`` beside ``busy_processes`` busy loops, with the load average
    (1 minute) before it."""
    load = os.getloadavg()[0]
    others = [busy(timeout) for _ in range(busy_processes)]
    try:
        if others:
            time.sleep(1.0)     # let the busy loop start before the clock does
        row = run(code, timeout)
    finally:
        for p in others:
            p.kill()
            p.wait()
    row.update(load_before=round(load, 2), busy=busy_processes)
    return row


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300_000, help="learner steps per run")
    p.add_argument("--compare", action="store_true",
                   help="also run the snippet without set_threads() and with "
                        "set_threads(2)")
    p.add_argument("--busy", default="0,1",
                   help="the numbers of busy processes to run beside it (default 0,1)")
    p.add_argument("--timeout", type=float, default=900.0,
                   help="seconds one run may take (the busy loop ends then too)")
    p.add_argument("--json", type=pathlib.Path, help="write the rows here")
    args = p.parse_args(argv)

    snippet = readme_snippet()
    variants = {"as written": timed(snippet, args.steps)}
    if args.compare:
        variants["torch default threads"] = timed(variant(snippet, None), args.steps)
        variants["set_threads(2)"] = timed(variant(snippet, "2"), args.steps)
    print(f"README SB3 snippet, {args.steps:,} steps a run, {os.cpu_count()} cores")
    rows = []
    for count in (int(c) for c in args.busy.split(",")):
        for name, code in variants.items():       # back to back in each condition
            row = measure(code, count, args.timeout)
            row["variant"] = name
            rows.append(row)
            where = "idle" if count == 0 else f"beside {count} busy process" + \
                ("es" if count > 1 else "")
            print(f"{name:24s} {where:26s} {row['steps_per_s']:9,.0f} steps/s  "
                  f"({row['seconds']:.1f} s; process CPU {row['cpu_seconds']:.1f} s; "
                  f"load average before: {row['load_before']:.2f})", flush=True)
    result = {"steps": args.steps, "cores": os.cpu_count(), "rows": rows,
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
