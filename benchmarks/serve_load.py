"""Loopback load benchmark of ``uno-bench serve`` (issue #46, figures in docs/serve.md).

N clients play whole games through the JSON API (``POST /api/games``, ``.../move``,
``.../advance``, ``GET .../replay``) for S seconds against a server on 127.0.0.1 (its own
process by default, the app of ``uno_env.apps.server.create_app`` with its default limits),
some of them against the search agent ``mcts``. Each client has its own loopback
address (127.0.0.2, 127.0.0.3, ...), so the per-client limit sees N clients. A client
plays a random legal card on its turn (a random legal move if it has none), asks
``advance`` otherwise (again on a 202), and on a 429 waits as long as ``Retry-After``
says (at most 1 s) before it tries again. Before the clock starts one game against
each kind of opponent warms the server up (a search kernel loads from numba's cache).
Prints requests/s, status counts, games finished per client, and p50/p99/max latency
per kind of opponent (all requests of clients playing it, and its ``advance`` requests
alone)::

    python benchmarks/serve_load.py                  # 20 clients, 30 s, 3 vs mcts
    python benchmarks/serve_load.py --clients 20 --seconds 60 --mcts 4 --json load.json
    python benchmarks/serve_load.py --clients 4 --seconds 3 --mcts 1 --search mcts:20

Only 127.0.0.1 is targeted; the run is bounded by ``--seconds`` (and a game in progress
at the deadline is left unfinished) and stops by itself.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(port: int, seconds: float, alive=lambda: True) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end and alive():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server on 127.0.0.1:{port} did not start")


@contextmanager
def server_process(**app_kwargs):
    """``create_app(**app_kwargs)`` on uvicorn in a process of its own; yields its URL."""
    port = free_port()
    code = ("import uvicorn; from uno_env.apps.server import create_app; "
            f"uvicorn.run(create_app(**{app_kwargs!r}), host='127.0.0.1', port={port}, "
            "log_level='warning')")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        _wait_for(port, 300, lambda: proc.poll() is None)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def server_thread(**app_kwargs):
    """The same app in a thread of this process (for the test suite)."""
    import uvicorn

    from uno_env.apps.server import create_app
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(**app_kwargs), host="127.0.0.1",
                                        port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    try:
        _wait_for(port, 60)
        yield f"http://127.0.0.1:{port}", None
    finally:
        srv.should_exit = True
        thread.join(10)


class Stats:
    def __init__(self):
        self.latency = defaultdict(list)      # (opponent, endpoint) -> seconds
        self.status = Counter()
        self.kind_status = Counter()          # (opponent, status) -> requests
        self.games = Counter()                # client -> games finished
        self.errors = []                      # 5xx and transport errors, with context
        self.slowest = []                     # (seconds, opponent, endpoint, at second)
        self.t0 = time.perf_counter()

    def summary(self, elapsed: float, clients: dict) -> dict:
        by_kind = defaultdict(list)
        for (kind, endpoint), xs in self.latency.items():
            by_kind[kind].extend(xs)

        def pct(xs):
            a = np.asarray(xs) * 1000
            return {"requests": len(a), "p50_ms": round(float(np.percentile(a, 50)), 2),
                    "p99_ms": round(float(np.percentile(a, 99)), 2),
                    "max_ms": round(float(a.max()), 2)} if len(a) else {"requests": 0}
        total = sum(self.status.values())
        return {
            "seconds": round(elapsed, 1), "clients": len(clients),
            "requests": total, "requests_per_s": round(total / elapsed, 1),
            "status": dict(sorted(self.status.items())),
            "games_finished": sum(self.games.values()),
            "games_per_client": {k: self.games[k] for k in clients},
            "latency": {kind: pct(xs) for kind, xs in sorted(by_kind.items())},
            "advance_latency": {kind: pct(xs) for (kind, ep), xs
                                in sorted(self.latency.items()) if ep == "advance"},
            "by_endpoint": {f"{kind} {ep}": pct(xs) for (kind, ep), xs
                            in sorted(self.latency.items())},
            "slowest": [{"ms": round(x * 1000, 1), "opponent": k, "endpoint": e,
                         "at_s": round(at, 2)} for x, k, e, at in
                        sorted(self.slowest, reverse=True)[:8]],
            "errors": self.errors[:20],
        }


async def _request(c, stats, kind, endpoint, method, path, body=None):
    t = time.perf_counter()
    try:
        r = await c.request(method, path, json=body)
    except Exception as err:               # a dropped connection is a failure too
        stats.errors.append(f"{endpoint} {path}: {type(err).__name__}: {err}")
        stats.status["error"] += 1
        return None
    took = time.perf_counter() - t
    stats.latency[kind, endpoint].append(took)
    if took > 0.1:
        stats.slowest.append((took, kind, endpoint, t - stats.t0))
    stats.status[r.status_code] += 1
    stats.kind_status[kind, r.status_code] += 1
    if r.status_code >= 500:
        stats.errors.append(f"{endpoint} {path}: {r.status_code} {r.text[:200]}")
    return r


def _client(k, url):
    """Client ``k``'s HTTP client, from loopback address 127.0.0.(2 + k). (Made before
    the clock starts: making one takes tens of ms, which would count as latency.)"""
    import httpx
    transport = httpx.AsyncHTTPTransport(local_address=f"127.0.0.{2 + k % 250}")
    return httpx.AsyncClient(base_url=url, transport=transport, timeout=120)


async def play_client(c, opponent, players, deadline, stats, seed, k=0, warm=False,
                      think=0.0, label=None, close=True):
    """Client ``k`` (HTTP client ``c``) plays whole games against ``opponent`` until
    ``deadline``, pausing ``think`` seconds after each answer (0: as fast as it can).
    ``label``: the name its figures go under (default: the opponent without its
    budget); ``close=False`` leaves ``c`` open (several games of one client share it)."""
    rng = random.Random(seed)
    kind = label or opponent.split(":")[0]
    async with (c if close else _Open()):
        while time.monotonic() < deadline:
            body = {"players": players, "opponents": opponent,
                    "seat": rng.randrange(players), "seed": rng.randrange(2**31)}
            r = await _request(c, stats, kind, "create", "POST", "/api/games", body)
            if r is None or r.status_code >= 500:
                return
            if r.status_code == 429:
                await asyncio.sleep(min(1.0, float(r.headers.get("retry-after", 1))))
                continue
            if r.status_code != 201:
                stats.errors.append(f"create: {r.status_code} {r.text[:200]}")
                return
            g = r.json()
            sid = g["id"]
            while not g["over"] and time.monotonic() < deadline:
                if g["your_turn"]:      # a random card if one is legal, as people do
                    cards = [m for m in g["legal"] if m[0].isupper()]
                    r = await _request(c, stats, kind, "move", "POST",
                                       f"/api/games/{sid}/move",
                                       {"move": rng.choice(cards or g["legal"]),
                                        "step": g["step"]})
                else:
                    r = await _request(c, stats, kind, "advance", "POST",
                                       f"/api/games/{sid}/advance", {"step": g["step"]})
                if r is None or r.status_code not in (200, 202):
                    if r is not None and r.status_code < 500:
                        stats.errors.append(f"play: {r.status_code} {r.text[:200]}")
                    return
                g = r.json()
                if think:
                    await asyncio.sleep(think)
            if g["over"]:
                r = await _request(c, stats, kind, "replay", "GET",
                                   f"/api/games/{sid}/replay")
                if r is not None and r.status_code == 200:
                    stats.games[k] += 1
                if warm:
                    return


class _Open:
    """A context that leaves the client open."""

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False


def _cpu_seconds(pid) -> float | None:
    """CPU time (user + system) of process ``pid`` and its threads so far."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


async def _play_part(url, part, players, start, seconds, seed, think) -> Stats:
    """Clients ``part`` ({client: opponent}) play from wall-clock ``start`` for
    ``seconds``."""
    http = {k: _client(k, url) for k in part}
    await asyncio.sleep(max(0.0, start - time.time()))
    stats = Stats()
    deadline = time.monotonic() + seconds
    await asyncio.gather(*(play_client(http[k], o, players, deadline, stats, seed + k,
                                       k=k, think=think) for k, o in part.items()))
    return stats


def _part_in_process(args) -> Stats:
    return asyncio.run(_play_part(*args))


async def run_load(url, clients=20, seconds=30.0, mcts=3, search="mcts",
                   baseline="heuristic", players=3, seed=0, server_pid=None,
                   think=0.0, procs=1) -> dict:
    """The load run against ``url``; returns its summary (``Stats.summary``); with
    ``server_pid`` (Linux) also the server's CPU time per request. ``procs`` > 1 splits
    the clients among that many processes (one Python event loop driving many clients
    is slow enough to add its own queueing to the latencies)."""
    kinds = {k: search if k < mcts else baseline for k in range(clients)}
    # warm-up: one game against each kind of opponent, not counted
    warm = Stats()
    await asyncio.gather(*(play_client(_client(200 + i, url), o, players,
                                       time.monotonic() + 300, warm, seed - 1 - i,
                                       warm=True)
                           for i, o in enumerate(sorted(set(kinds.values())))))
    if warm.errors:
        raise RuntimeError(f"the warm-up failed: {warm.errors}")
    parts = [{k: o for k, o in kinds.items() if k % procs == i} for i in range(procs)]
    start = time.time() + (0.5 if procs == 1 else 3.0)
    args = [(url, part, players, start, seconds, seed, think) for part in parts if part]
    cpu0 = _cpu_seconds(server_pid) if server_pid else None
    if procs == 1:
        results = [await _play_part(*args[0])]
    else:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(len(args)) as pool:
            results = await asyncio.get_running_loop().run_in_executor(
                None, pool.map, _part_in_process, args)
    elapsed = time.time() - start
    stats = results[0]
    for more in results[1:]:
        for key, xs in more.latency.items():
            stats.latency[key].extend(xs)
        stats.status.update(more.status)
        stats.kind_status.update(more.kind_status)
        stats.games.update(more.games)
        stats.errors += more.errors
        stats.slowest += more.slowest
    s = stats.summary(elapsed, kinds)
    s["think_ms"] = think * 1000
    s["client_processes"] = len(args)
    s["cpus"] = os.cpu_count()
    s["load_average_after"] = round(os.getloadavg()[0], 2)   # other work on the machine
    cpu1 = _cpu_seconds(server_pid) if server_pid else None
    if cpu0 is not None and cpu1 is not None and s["requests"]:
        s["server_cpu_ms_per_request"] = round((cpu1 - cpu0) * 1000 / s["requests"], 2)
        s["server_cpu_share"] = round((cpu1 - cpu0) / s["seconds"], 2)
    return s


def report(s: dict) -> str:
    lines = [f"{s['clients']} clients in {s['client_processes']} process(es), "
             f"{s['seconds']} s, pausing {s['think_ms']:g} ms "
             f"after each answer: {s['requests']} requests, "
             f"{s['requests_per_s']} requests/s, {s['games_finished']} games finished "
             f"(per client: min {min(s['games_per_client'].values())}, "
             f"max {max(s['games_per_client'].values())})",
             f"status counts: {s['status']}",
             f"server CPU: {s.get('server_cpu_ms_per_request')} ms a request, "
             f"{s.get('server_cpu_share')} cores busy; {s.get('cpus')} cores, load "
             f"average {s.get('load_average_after')} at the end",
             f"{'opponent':<12}{'requests':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
             f"   advance only: p50 / p99 / max ms"]
    for kind, x in s["latency"].items():
        a = s["advance_latency"].get(kind, {})
        lines.append(f"{kind:<12}{x['requests']:>9}{x['p50_ms']:>9}{x['p99_ms']:>9}"
                     f"{x['max_ms']:>9}   {a.get('p50_ms')} / {a.get('p99_ms')} / "
                     f"{a.get('max_ms')}")
    if s["errors"]:
        lines.append("errors: " + "; ".join(s["errors"]))
    return "\n".join(lines)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--mcts", type=int, default=3, help="clients playing the search agent")
    p.add_argument("--search", default="mcts", help="its name (mcts, mcts:400, ...)")
    p.add_argument("--baseline", default="heuristic", help="the other clients' opponent")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--think", type=float, default=0.0,
                   help="ms a client pauses after each answer (the page waits 700 ms "
                        "between opponents' moves; 0: as fast as it can)")
    p.add_argument("--procs", type=int, default=2,
                   help="client processes (the clients are split among them)")
    p.add_argument("--in-process", action="store_true",
                   help="run the server in a thread of this process, not its own")
    p.add_argument("--json", help="also write the figures to this file")
    a = p.parse_args(argv)
    if not 1 <= a.clients <= 250 or not 0 < a.seconds <= 600 \
            or not 0 <= a.mcts <= a.clients:
        p.error("--clients 1..250, --seconds up to 600, --mcts 0..clients")
    serve = server_thread if a.in_process else server_process
    with serve() as (url, pid):
        s = asyncio.run(run_load(url, a.clients, a.seconds, a.mcts, a.search, a.baseline,
                                 a.players, a.seed, pid, a.think / 1000,
                                 max(1, min(a.procs, a.clients))))
    s["command"] = "python benchmarks/serve_load.py " + " ".join(argv or sys.argv[1:])
    print(report(s))
    if a.json:
        Path(a.json).write_text(json.dumps(s, indent=1))
    return s


if __name__ == "__main__":
    main()
