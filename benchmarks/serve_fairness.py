"""Fair search time at ``uno-bench serve`` (issue #59, figures in docs/serve.md).

Three clients, each at its own loopback address, play at once for S seconds against a
server on 127.0.0.1 (its own process, ``create_app``'s defaults):

- **heavy** (127.0.0.2) keeps its 10 allowed games going at once, each of 10 players
  against 9 ``mcts:5000`` opponents (the most a search may be given), asking
  ``advance`` again as soon as an answer comes;
- **light** (127.0.0.3) plays game after game of 3 players against ``mcts:200``;
- **quick** (127.0.0.4) plays game after game of 3 players against the heuristic.

The light and quick clients play a random legal card on their turn, as people do. The
targets (quiet 2-core machine): the light client's ``advance`` p99 <= 750 ms and it
finishes games, the quick client's p99 <= 50 ms, no 5xx. Prints a table per client and
the load average before and after (other work on the machine shows there)::

    python benchmarks/serve_fairness.py                     # 40 s
    python benchmarks/serve_fairness.py --seconds 20 --json fair.json

Only 127.0.0.1 is targeted; the run stops by itself after ``--seconds``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serve_load import (Stats, _client, _cpu_seconds, play_client,  # noqa: E402
                                   server_process, server_thread)

#: the clients: (label, opponent, players, games at once)
CLIENTS = (("heavy mcts:5000", "mcts:5000", 10, 10), ("light mcts:200", "mcts:200", 3, 1),
           ("quick heuristic", "heuristic", 3, 1))


async def run_fair(url, seconds=40.0, seed=0, clients=CLIENTS, server_pid=None,
                   think=0.0) -> dict:
    """The run against ``url``; returns its figures. ``clients``: (label, opponent,
    players, games at once) each; ``think``: seconds a client pauses after an answer."""
    warm = Stats()             # one short game of each kind, not counted
    await asyncio.gather(*(play_client(_client(200 + i, url), o, 3,
                                       time.monotonic() + 300, warm, seed - 1 - i,
                                       warm=True)
                           for i, o in enumerate(("mcts:20", "heuristic"))))
    if warm.errors:
        raise RuntimeError(f"the warm-up failed: {warm.errors}")
    http = [_client(k, url) for k in range(len(clients))]
    stats = Stats()
    load0 = os.getloadavg()[0]
    cpu0 = _cpu_seconds(server_pid) if server_pid else None
    start = time.monotonic()
    deadline = start + seconds
    jobs = []
    for k, (label, opponent, players, games) in enumerate(clients):
        jobs += [play_client(http[k], opponent, players, deadline, stats,
                             seed + 100 * k + g, k=k, label=label, close=False,
                             think=think)
                 for g in range(games)]
    await asyncio.gather(*jobs)
    for c in http:
        await c.aclose()
    elapsed = time.monotonic() - start
    s = stats.summary(elapsed, dict(enumerate(c[0] for c in clients)))
    s["load_average_before"] = round(load0, 2)
    s["load_average_after"] = round(os.getloadavg()[0], 2)
    s["cpus"] = os.cpu_count()
    cpu1 = _cpu_seconds(server_pid) if server_pid else None
    if cpu0 is not None and cpu1 is not None:
        s["server_cpu_share"] = round((cpu1 - cpu0) / elapsed, 2)
    s["clients_table"] = []
    for k, (label, opponent, players, games) in enumerate(clients):
        adv = s["advance_latency"].get(label, {})
        s["clients_table"].append({
            "client": label, "address": f"127.0.0.{2 + k}", "players": players,
            "games_at_once": games, "games_finished": s["games_per_client"][k],
            # the opponents' moves made: advance answers but the 202s (still thinking)
            "moves": adv.get("requests", 0) - stats.kind_status[label, 202],
            "thinking_202": stats.kind_status[label, 202],
            "advance": adv, "all": s["latency"].get(label, {}),
            "status": {str(code): n for (kind, code), n in
                       sorted(stats.kind_status.items()) if kind == label}})
    return s


def report(s: dict) -> str:
    lines = [f"{s['seconds']} s on {s['cpus']} cores, load average {s['load_average_before']}"
             f" before, {s['load_average_after']} after; server "
             f"{s.get('server_cpu_share')} cores busy; status counts {s['status']}",
             f"{'client':<17}{'games':>6}{'moves':>6}{'202s':>6}   advance p50 / p99 / max "
             f"ms   all requests p99 ms"]
    for row in s["clients_table"]:
        a = row["advance"]
        lines.append(f"{row['client']:<17}{row['games_finished']:>6}{row['moves']:>6}"
                     f"{row['thinking_202']:>6}   {a.get('p50_ms')} / {a.get('p99_ms')} / "
                     f"{a.get('max_ms')}   {row['all'].get('p99_ms')}")
    if s["errors"]:
        lines.append("errors: " + "; ".join(s["errors"]))
    return "\n".join(lines)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=40.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--search-slice", type=float, default=None,
                   help="the server's search_slice (s; default: create_app's)")
    p.add_argument("--in-process", action="store_true",
                   help="run the server in a thread of this process, not its own")
    p.add_argument("--json", help="also write the figures to this file")
    a = p.parse_args(argv)
    if not 0 < a.seconds <= 600:
        p.error("--seconds: more than 0, at most 600")
    serve = server_thread if a.in_process else server_process
    options = {} if a.search_slice is None else {"search_slice": a.search_slice}
    with serve(**options) as (url, pid):
        s = asyncio.run(run_fair(url, a.seconds, a.seed, server_pid=pid))
    s["command"] = "python benchmarks/serve_fairness.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    print(report(s))
    if a.json:
        Path(a.json).write_text(json.dumps(s, indent=1))
    return s


if __name__ == "__main__":
    main()
