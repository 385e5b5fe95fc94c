"""uno-bench serve (uno_env.apps.server) through Starlette's TestClient: every malformed,
illegal or out-of-turn request is a 4xx with a message and leaves the game unchanged;
concurrent sessions each get their own game."""
import json
import os

import pytest

if os.environ.get("CI"):
    import starlette  # noqa: F401  in CI the web extra is installed: a failure, not a skip
else:
    pytest.importorskip("starlette", reason="the web extra is not installed "
                        "(pip install -e '.[web]')")
    pytest.importorskip("httpx", reason="the web extra is not installed "
                        "(pip install -e '.[web]')")

from starlette.testclient import TestClient  # noqa: E402

from uno_env import Game  # noqa: E402
from uno_env.apps.replay import from_replay  # noqa: E402
from uno_env.apps.server import create_app  # noqa: E402


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def client(clock):
    return TestClient(create_app(max_sessions=5, idle_seconds=60, clock=clock))


def new(client, **body):
    body = {"preset": "classic", "players": 3, "opponents": "heuristic", "seed": 4, **body}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def to_my_turn(client, g):
    while not g["over"] and not g["your_turn"]:
        r = client.post(f"/api/games/{g['id']}/advance", json={"step": g["step"]})
        assert r.status_code == 200, r.text
        g = r.json()
    return g


def unchanged(client, g):
    """The session's game is exactly as ``g`` shows it."""
    now = client.get(f"/api/games/{g['id']}").json()
    assert now == g


def test_the_page_and_options(client):
    r = client.get("/")
    assert r.status_code == 200 and "UNO against the agents" in r.text
    o = client.get("/api/options").json()
    assert "flip" in o["presets"] and {"heuristic", "ppo_classic_2p"} <= set(o["agents"])


def test_a_new_game_matches_game_with_its_seed(client):
    g = new(client, seat=1, seed=12)
    game = Game("classic", 3, seed=12)
    assert g["hand"] == game.hand(1) and g["top"] == game.top
    assert g["hand_sizes"] == game.hand_sizes and g["current"] == game.current_player
    assert g["agents"] == ["heuristic", "you", "heuristic"]
    assert "hands" not in g           # the other hands are not sent


@pytest.mark.parametrize("body, status, message", [
    (b"{not json", 400, "not valid JSON"),
    (b"[1, 2]", 400, "must be a JSON object"),
    (json.dumps({"preset": "uno-deluxe"}).encode(), 400, "unknown preset 'uno-deluxe'; valid"),
    (json.dumps({"players": 11}).encode(), 400, "'players' must be an integer from 2 to 10"),
    (json.dumps({"players": "3"}).encode(), 400, "'players' must be an integer"),
    (json.dumps({"players": 3, "seat": 3}).encode(), 400, "'seat' must be an integer from 0 to 2"),
    (json.dumps({"opponents": ["alphago"]}).encode(), 400, "unknown opponent.*'alphago'.*valid"),
    (json.dumps({"players": 4, "opponents": ["random", "greedy"]}).encode(), 400,
     "one name per opponent"),
    (json.dumps({"players": 4, "opponents": "ppo_classic_2p"}).encode(), 400,
     "trained for classic with 2 players"),
    (json.dumps({"seed": -1}).encode(), 400, "'seed' must be an integer"),
    (b"x" * 20000, 413, "over 16384 bytes"),
])
def test_bad_new_game_requests(client, body, status, message):
    import re
    r = client.post("/api/games", content=body)
    assert r.status_code == status
    assert re.search(message, r.json()["error"]), r.json()
    assert len(client.app.state.uno.sessions) == 0


def test_malformed_illegal_and_out_of_turn_moves_change_nothing(client):
    g = new(client, seat=2)
    sid = g["id"]
    assert not g["your_turn"] and g["current"] == 1  # dealer 0: seat 1 starts, not us
    r = client.post(f"/api/games/{sid}/move", json={"move": "draw"})
    assert r.status_code == 409 and "not your turn: it is seat 1's" in r.json()["error"]
    unchanged(client, g)
    g = to_my_turn(client, g)
    legal = g["legal"]
    assert legal and g["your_turn"]
    illegal = next(m for m in ("R0", "B9", "G7", "Y3", "W4:R", "swap:+1") if m not in legal)
    for body, status, message in [
            (b"{", 400, "not valid JSON"), (b'"draw"', 400, "must be a JSON object"),
            (json.dumps({}).encode(), 400, "'move' must be a move string"),
            (json.dumps({"move": 5}).encode(), 400, "'move' must be a move string"),
            (json.dumps({"move": illegal}).encode(), 422, f"'{illegal}' is not a legal move"),
            (json.dumps({"move": legal[0], "step": g["step"] - 1}).encode(), 409,
             "stale request"),
            (json.dumps({"move": legal[0], "step": "x"}).encode(), 400, "'step' must be")]:
        r = client.post(f"/api/games/{sid}/move", content=body)
        assert r.status_code == status, (body, r.text)
        assert message in r.json()["error"]
        unchanged(client, g)
    r = client.post(f"/api/games/{sid}/move", json={"move": illegal})
    assert r.json()["legal"] == legal
    # an opponent asked to move on our turn
    r = client.post(f"/api/games/{sid}/advance", json={})
    assert r.status_code == 409 and "it is your turn" in r.json()["error"]
    unchanged(client, g)
    # a legal move is made
    r = client.post(f"/api/games/{sid}/move", json={"move": legal[0], "step": g["step"]})
    assert r.status_code == 200 and r.json()["history"][-1] == [2, legal[0]]


def test_unknown_sessions_and_pages(client):
    for r in (client.get("/api/games/nope"),
              client.post("/api/games/nope/move", json={"move": "draw"}),
              client.post("/api/games/nope/advance"), client.get("/api/games/nope/replay"),
              client.get("/nowhere")):
        assert r.status_code == 404 and "error" in r.json()
    r = client.get("/api/games")
    assert r.status_code == 405 and "error" in r.json()


def test_a_whole_game_and_its_replay(client):
    g = new(client, players=2, opponents="ppo_classic_2p", seed=8)
    sid = g["id"]
    assert client.get(f"/api/games/{sid}/replay").status_code == 409
    while not g["over"]:
        g = to_my_turn(client, g)
        if g["over"]:
            break
        r = client.post(f"/api/games/{sid}/move", json={"move": g["legal"][-1],
                                                         "step": g["step"]})
        assert r.status_code == 200, r.text
        g = r.json()
    for path in ("move", "advance"):
        r = client.post(f"/api/games/{sid}/{path}", json={"move": "draw"})
        assert r.status_code == 409 and "the game is over" in r.json()["error"]
    r = client.get(f"/api/games/{sid}/replay")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    data = r.json()
    assert data["agents"] == ["you", "ppo_classic_2p"] and data["seed"] == 8
    game = from_replay(data)
    assert [list(m) for m in game.history] == g["history"]
    assert game.winner == g["result"]["winner"]


def test_concurrent_sessions_get_their_own_games(client):
    a = new(client, seed=1)
    b = new(client, seed=1)
    c = new(client, seed=2, preset="flip")
    assert len({a["id"], b["id"], c["id"]}) == 3 and len(a["id"]) >= 32
    assert a["hand"] == b["hand"] and a["hand"] != c["hand"]
    a = to_my_turn(client, a)
    if not a["over"]:
        client.post(f"/api/games/{a['id']}/move", json={"move": a["legal"][0]})
    b_now = client.get(f"/api/games/{b['id']}").json()
    assert b_now == b                       # a's moves did not touch b
    assert client.get(f"/api/games/{a['id']}").json()["step"] > b_now["step"]
    assert client.get(f"/api/games/{c['id']}").json()["preset"] == "flip"


def test_sessions_are_capped_and_idle_ones_expire(client, clock):
    games = [new(client, seed=k) for k in range(5)]
    r = client.post("/api/games", json={"players": 2})
    assert r.status_code == 429 and "limit of 5 games" in r.json()["error"]
    clock.now = 30
    client.get(f"/api/games/{games[0]['id']}")     # keeps game 0 alive
    clock.now = 70                                 # the others idle for 70 s > 60 s
    assert client.get(f"/api/games/{games[1]['id']}").status_code == 404
    assert client.get(f"/api/games/{games[0]['id']}").status_code == 200
    assert new(client, seed=9)["id"]


@pytest.mark.parametrize("body", [
    b"null", b"true", b"3", b'"x"', b"\xff\xfe", b'{"move": null}', b'{"move": ["R5"]}',
    b'{"move": "R5", "step": 1.5}', b'{"move": "R5", "step": -1}', b'{"move": "\\u0000"}',
    b'{"move": "' + b"W" * 5000 + b'"}', b'{"step": true}', b'{"move": {"a": 1}}',
])
def test_no_request_is_a_server_error_or_changes_the_game(client, body):
    g = new(client, seat=1)
    sid = g["id"]
    for path in ("move", "advance"):
        r = client.post(f"/api/games/{sid}/{path}", content=body)
        assert 400 <= r.status_code < 500, (path, body, r.status_code, r.text)
        assert r.json()["error"]
    unchanged(client, g)
    for body2 in (body, b'{"players": 1e3}', b'{"seed": 1e100}', b'{"opponents": [1]}',
                  b'{"opponents": []}', b'{"preset": ["classic"]}', b'{"seed": 99999999999999999999999}'):
        r = client.post("/api/games", content=body2)
        assert r.status_code in (201, 400), (body2, r.text)
    assert client.get(f"/api/games/{sid}").json() == g
