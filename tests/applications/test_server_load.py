"""A small run of benchmarks/serve_load.py (issue #46): 4 clients play whole games for
4 s against a uvicorn server on 127.0.0.1, one of them against the search agent
(``mcts:20``); no request answers 5xx or fails, and every client finishes games."""
import asyncio
import os

import pytest

if not os.environ.get("CI"):
    for module in ("starlette", "uvicorn", "httpx"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e "
                            f"'.[web]')")

import benchmarks.serve_load as serve_load  # noqa: E402  (the repository root is on the path)


def test_a_short_load_run_has_no_server_errors_and_every_client_finishes_games():
    with serve_load.server_thread() as (url, _):
        assert url.startswith("http://127.0.0.1:")
        s = asyncio.run(serve_load.run_load(url, clients=4, seconds=4.0, mcts=1,
                                            search="mcts:20", players=2, seed=1))
    print(serve_load.report(s))
    assert s["errors"] == []
    assert not [k for k in s["status"] if k == "error" or int(k) >= 500], s["status"]
    assert set(s["status"]) <= {200, 201, 202}, s["status"]
    assert s["clients"] == 4 and min(s["games_per_client"].values()) >= 1, s
    assert set(s["latency"]) == {"heuristic", "mcts"}
    assert 3.9 <= s["seconds"] < 30
