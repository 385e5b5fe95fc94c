"""A fuzz test of uno-bench serve's JSON API (issue #46, hypothesis): random sequences of
requests (new games, the person's moves, opponents' moves, views, replays, raw requests
to any path) with random bodies (JSON of every type, the fields with values of the wrong
type or range, bytes that are no JSON, bodies over the size limit) get only 2xx or 4xx
answers, and a refused request changes no game (every game's view is the same after
it). Legal moves are mixed in, so games advance, finish and give up their places.

Example counts are bounded by the profiles of ``tests/conftest.py`` (fixed seed in CI).
"""
from __future__ import annotations

import json

import pytest

hypothesis = pytest.importorskip("hypothesis", reason='needs the "dev" extra: '
                                 'pip install -e ".[dev]"')
from conftest import require_web  # noqa: E402

require_web()

from hypothesis import note  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.stateful import (  # noqa: E402
    RuleBasedStateMachine, initialize, invariant, precondition, rule)
from starlette.testclient import TestClient  # noqa: E402

from uno_env.apps.server import MAX_BODY, create_app  # noqa: E402

FIELDS = ("preset", "players", "opponents", "seat", "seed", "move", "step")
#: any JSON value
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                              max_size=4),
    max_leaves=12)
#: values close to valid ones, and garbage, per field
PLAUSIBLE = {
    "preset": st.sampled_from(["classic", "flip", "onepiece", "street", "Classic", "",
                               "uno-deluxe"]),
    "players": st.integers(-1, 12),
    "opponents": st.sampled_from(["heuristic", "greedy", "random", "mcts:5", "mcts:0",
                                  "mcts:99999", "mcts-x", "ppo_classic_2p", "alphago"])
    | st.lists(st.sampled_from(["random", "heuristic", "mcts:3", "nobody", ""]),
               max_size=4),
    "seat": st.integers(-1, 11),
    "seed": st.integers(-5, 2**64),
    "move": st.sampled_from(["draw", "pass", "R5", "W4:R", "W", "swap:+1", "", "\x00",
                             "catch", "uno"]),
    "step": st.integers(-1, 400),
}
FIELD_BODY = st.fixed_dictionaries({}, optional={
    k: st.one_of(PLAUSIBLE[k], JSON) for k in FIELDS})
BODY = st.one_of(
    FIELD_BODY.map(lambda d: json.dumps(d).encode()),
    JSON.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=64),
    st.integers(MAX_BODY - 8, MAX_BODY + 64).map(
        lambda n: json.dumps({"move": "x" * n}).encode()),
)
PATHS = st.sampled_from(["", "/move", "/advance", "/replay", "/nowhere"])
METHODS = st.sampled_from(["GET", "POST", "PUT", "DELETE"])


class ServerMachine(RuleBasedStateMachine):
    """Games on a small server (4 places, 3 per client) driven by random requests."""

    def __init__(self):
        super().__init__()
        self.app = create_app(max_sessions=4, max_per_client=3)
        self.client = TestClient(self.app).__enter__()
        self.ids: list[str] = []

    def teardown(self):
        self.client.__exit__(None, None, None)

    # --- helpers ------------------------------------------------------------------------
    def views(self) -> dict:
        out = {}
        for sid in self.ids:
            r = self.client.get(f"/api/games/{sid}")
            assert r.status_code in (200, 404), r.text
            if r.status_code == 200:
                out[sid] = r.json()
        return out

    def send(self, method, path, body: bytes | None):
        """One request; a refused one (4xx) leaves every game as it was."""
        before = self.views()
        r = self.client.request(method, path, content=body)
        note(f"{method} {path} {body[:80] if body else body!r} -> {r.status_code}")
        assert 200 <= r.status_code < 300 or 400 <= r.status_code < 500, \
            (method, path, body, r.status_code, r.text)
        assert r.headers["content-type"].startswith(("application/json", "text/html"))
        if r.status_code >= 400:
            if r.headers["content-type"].startswith("application/json"):
                assert r.json()["error"]
            if r.status_code == 429:
                assert int(r.headers["retry-after"]) >= 1
            assert self.views() == before, (method, path, body)
        return r

    # --- rules --------------------------------------------------------------------------
    @initialize()
    def first_game(self):
        r = self.send("POST", "/api/games",
                      json.dumps({"players": 2, "opponents": "random"}).encode())
        assert r.status_code == 201
        self.ids.append(r.json()["id"])

    @rule(body=BODY)
    def new_game(self, body):
        r = self.send("POST", "/api/games", body)
        if r.status_code == 201:
            g = r.json()
            assert g["step"] == 0 and not g["over"] and g["id"] not in self.ids
            self.ids.append(g["id"])

    # (games are dealt from random seeds, so what is drawn must not depend on them: a
    # game and a move are picked by an index, modulo what there is)
    @precondition(lambda self: self.ids)
    @rule(pick=st.integers(0, 99), path=PATHS, method=METHODS, body=BODY)
    def any_request_to_a_game(self, pick, path, method, body):
        sid = self.ids[pick % len(self.ids)]
        self.send(method, f"/api/games/{sid}{path}", body)

    @rule(path=st.text(st.characters(categories=("L", "N"), include_characters="/._-~"),
                       max_size=30), method=METHODS, body=st.none() | BODY)
    def any_request_anywhere(self, path, method, body):
        # "//x" would be a network-path reference: the client would read x as a host
        self.send(method, "/" + path.lstrip("/"), body)

    @precondition(lambda self: self.ids)
    @rule(pick=st.integers(0, 99), move=st.integers(0, 99),
          stale=st.sampled_from([0, None, -1]))
    def play_on(self, pick, move, stale):
        """A legal move or an opponent's move (with or without a stale step)."""
        sid = self.ids[pick % len(self.ids)]
        r = self.client.get(f"/api/games/{sid}")
        if r.status_code != 200:
            return
        g = r.json()
        step = None if stale is None else g["step"] + stale
        extra = {} if step is None else {"step": step}
        if g["your_turn"]:
            body = {"move": g["legal"][move % len(g["legal"])], **extra}
            r = self.send("POST", f"/api/games/{sid}/move", json.dumps(body).encode())
        else:
            r = self.send("POST", f"/api/games/{sid}/advance", json.dumps(extra).encode())
        if step == -1:
            assert r.status_code == 400
        elif g["over"] or step == g["step"] - 1:
            assert r.status_code == 409
        elif r.status_code == 200:
            assert r.json()["step"] == g["step"] + 1

    @invariant()
    def no_more_games_than_places(self):
        assert len(self.app.state.uno.sessions) <= 4


test_the_api_under_random_requests = ServerMachine.TestCase
