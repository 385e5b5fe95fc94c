"""Fair search time at the server (issue #59): ``FairSearch`` serves clients in turn,
cuts a search's budget while others search, bounds each client's queue; and a small
run of benchmarks/serve_fairness.py on loopback answers no 5xx and lets the client of
the light search finish games beside a client that keeps heavy searches queued."""
import asyncio
import contextlib
import os
import threading

import numpy as np
import pytest

from uno_env import Game
from uno_env.apps.server import FairSearch, _decide


class Blocking:
    """A stand-in search agent: records its turn, waits until released."""

    def __init__(self, name, order, gate=None, budget=1000):
        self.name, self.order, self.gate = name, order, gate
        self.budget, self.search_code = budget, 7 * (1 << 18) + budget
        self._codes = np.array([self.search_code], np.int64)
        self.seen_codes = []

    def attach(self, game):
        return self

    @contextlib.contextmanager
    def with_budget(self, budget):   # as agents.MCTSAgent.with_budget
        own, self._codes = self._codes, np.array([7 * (1 << 18) + budget], np.int64)
        try:
            yield self
        finally:
            self._codes = own

    def act(self, obs, mask):
        self.seen_codes.append(int(self._codes[0]))
        self.order.append(self.name)
        if self.gate is not None:
            assert self.gate.wait(10)
        return int(np.flatnonzero(mask)[0])


def test_a_client_that_comes_waits_only_for_the_search_in_progress():
    game = Game("classic", 2, seed=0)
    order, gate = [], threading.Event()
    fair = FairSearch(workers=1, max_queued=4)
    first = Blocking("heavy-0", order, gate)
    futures = [fair.submit("10.0.0.1", first, game, game.current_player)]
    for _ in range(1000):                  # heavy-0 is in progress
        if order:
            break
        threading.Event().wait(0.01)
    futures += [fair.submit("10.0.0.1", Blocking(f"heavy-{k}", order), game,
                            game.current_player) for k in (1, 2, 3, 4)]
    # the heavy client's queue is full: a sixth search is not queued
    assert fair.submit("10.0.0.1", Blocking("heavy-5", order), game, 0) is None
    assert fair.queued("10.0.0.1") == 4
    futures.append(fair.submit("10.0.0.2", Blocking("light", order), game,
                               game.current_player))
    gate.set()
    for f in futures:
        assert f.result(10) == int(np.flatnonzero(game.action_mask())[0])
    assert order == ["heavy-0", "light", "heavy-1", "heavy-2", "heavy-3", "heavy-4"]


def test_round_robin_between_clients_with_queues():
    game = Game("classic", 2, seed=0)
    order, gate = [], threading.Event()
    fair = FairSearch(workers=1, max_queued=3)
    futures = [fair.submit("a", Blocking("a0", order, gate), game, 0)]
    for _ in range(1000):
        if order:
            break
        threading.Event().wait(0.01)
    futures += [fair.submit(c, Blocking(f"{c}{k}", order), game, 0)
                for c in "ab" for k in (1, 2)]
    gate.set()
    for f in futures:
        f.result(10)
    assert order == ["a0", "b1", "a1", "b2", "a2"]


def test_a_search_is_cut_only_while_other_clients_search():
    game = Game("classic", 2, seed=0)
    fair = FairSearch(workers=1, slice_seconds=0.01, min_budget=50)
    agent = Blocking("x", [], budget=5000)
    assert fair.budget(agent, game, contended=True) is None      # nothing measured yet
    fair._per_rollout[("classic", 2)] = [1e-4]                   # 0.1 ms a rollout
    assert fair.budget(agent, game, contended=False) is None     # alone: its full budget
    assert fair.budget(agent, game, contended=True) == 100       # 0.01 s / 0.1 ms
    fair._per_rollout[("classic", 2)] = [1e-2]
    assert fair.budget(agent, game, contended=True) == 50        # never below min_budget
    # the cut budget reaches the search for that decision only
    _decide(agent, game, game.current_player, 100)
    _decide(agent, game, game.current_player)
    assert agent.seen_codes == [7 * (1 << 18) + 100, 7 * (1 << 18) + 5000]
    assert int(agent._codes[0]) == agent.search_code


def test_a_dropped_games_search_is_not_run():
    game = Game("classic", 2, seed=0)
    order, gate = [], threading.Event()
    fair = FairSearch(workers=1)
    busy = fair.submit("a", Blocking("busy", order, gate), game, 0)
    for _ in range(1000):
        if order:
            break
        threading.Event().wait(0.01)
    dropped = fair.submit("b", Blocking("dropped", order), game, 0)
    assert dropped.cancel()
    gate.set()
    busy.result(10)
    after = fair.submit("b", Blocking("after", order), game, 0)
    after.result(10)
    assert order == ["busy", "after"]


if not os.environ.get("CI"):
    for module in ("starlette", "uvicorn", "httpx"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e "
                            f"'.[web]')")


def test_a_small_fairness_run_has_no_server_errors_and_the_light_client_finishes():
    import benchmarks.serve_fairness as fairness
    from benchmarks.serve_load import server_thread
    clients = (("heavy", "mcts:300", 4, 3), ("light", "mcts:20", 2, 1),
               ("quick", "heuristic", 2, 1))
    with server_thread(search_queue=2) as (url, _):
        assert url.startswith("http://127.0.0.1:")
        s = asyncio.run(fairness.run_fair(url, seconds=4.0, seed=3, clients=clients,
                                          think=0.01))
    print(fairness.report(s))
    assert s["errors"] == []
    assert set(s["status"]) <= {200, 201, 202}, s["status"]
    rows = {r["client"]: r for r in s["clients_table"]}
    assert rows["light"]["games_finished"] >= 1 and rows["quick"]["games_finished"] >= 1
    assert rows["heavy"]["moves"] >= 1
    assert [r["address"] for r in s["clients_table"]] == ["127.0.0.2", "127.0.0.3",
                                                         "127.0.0.4"]
    assert s["requests"] < 5000 and 3.9 <= s["seconds"] < 30
