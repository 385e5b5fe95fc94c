"""uno-bench serve (uno_env.apps.server) through Starlette's TestClient: every malformed,
illegal or out-of-turn request is a 4xx with a message and leaves the game unchanged;
concurrent sessions each get their own game; places are for live games (finished ones
give theirs up, one client cannot take them all); a slow agent does not hold up the
other sessions."""
import asyncio
import json
import os
import re
import threading
import time

import pytest

from conftest import require_web  # noqa: E402

require_web()

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
    with TestClient(create_app(max_sessions=5, idle_seconds=60, clock=clock)) as c:
        yield c


def new(client, **body):
    body = {"preset": "classic", "players": 3, "opponents": "heuristic", "seed": 4, **body}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def to_my_turn(client, g):
    """Advance the agents until the person's turn; a 202 (an agent still thinking past
    the time budget, as a loaded machine may make a search) is asked again, as the page
    does."""
    while not g["over"] and not g["your_turn"]:
        r = client.post(f"/api/games/{g['id']}/advance", json={"step": g["step"]})
        assert r.status_code in (200, 202), r.text
        if r.status_code == 202:
            assert r.json()["thinking"]
            time.sleep(0.05)
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
    # the longest idle game expires after 60 s (before it could be evicted, 300 s)
    assert r.headers["retry-after"] == "60" and r.json()["retry_after"] == 60
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


def play_to_the_end(client, g):
    while not g["over"]:
        g = to_my_turn(client, g)
        if not g["over"]:
            r = client.post(f"/api/games/{g['id']}/move",
                            json={"move": g["legal"][0], "step": g["step"]})
            assert r.status_code == 200, r.text
            g = r.json()
    return g


def test_finished_games_give_up_their_places():
    """Six games played to the end with max_sessions=3 leave room for a seventh; a
    finished game's replay stays downloadable until its place is taken."""
    with TestClient(create_app(max_sessions=3)) as client:
        ids = []
        for k in range(6):
            g = play_to_the_end(client, new(client, players=2, seed=k))
            ids.append(g["id"])
            assert client.get(f"/api/games/{g['id']}/replay").status_code == 200
        seventh = new(client, players=2, seed=6)
        assert seventh["step"] >= 0 and len(client.app.state.uno.sessions) == 3
        # the oldest finished games went first; the last two still have their replays
        assert client.get(f"/api/games/{ids[0]}").status_code == 404
        assert "given its place" in client.get(f"/api/games/{ids[0]}").json()["error"]
        assert [client.get(f"/api/games/{i}/replay").status_code for i in ids[-2:]] \
            == [200, 200]


def test_eviction_order_finished_then_longest_idle(clock):
    app = create_app(max_sessions=3, idle_seconds=3600, clock=clock,
                     evict_idle_seconds=100)
    with TestClient(app) as client:
        a, b, c = (new(client, seed=k) for k in range(3))
        clock.now = 50
        r = client.post("/api/games", json={"players": 2})
        assert r.status_code == 429 and r.headers["retry-after"] == "50"
        assert len(app.state.uno.sessions) == 3         # nothing was evicted
        clock.now = 120                                   # all idle 120 s >= 100 s
        client.get(f"/api/games/{a['id']}")               # a is used again
        clock.now = 130
        client.get(f"/api/games/{c['id']}")
        d = new(client, seed=3)                           # b: the longest idle
        assert client.get(f"/api/games/{b['id']}").status_code == 404
        d = play_to_the_end(client, d)                    # d is finished: goes first
        new(client, seed=4)
        assert client.get(f"/api/games/{d['id']}").status_code == 404
        assert client.get(f"/api/games/{a['id']}").status_code == 200
        assert client.get(f"/api/games/{c['id']}").status_code == 200


def test_one_client_cannot_take_every_place(clock):
    app = create_app(max_sessions=10, clock=clock, max_per_client=3,
                     evict_idle_seconds=100)
    greedy = TestClient(app, client=("10.0.0.1", 5000))
    other = TestClient(app, client=("10.0.0.2", 5000))
    with greedy, other:
        games = [new(greedy, seed=k) for k in range(3)]
        clock.now = 40
        r = greedy.post("/api/games", json={"players": 2})
        assert r.status_code == 429 and r.headers["retry-after"] == "60"
        assert "this client (10.0.0.1) has 3 games in progress" in r.json()["error"]
        assert new(other, seed=1)["id"]                   # the others still get places
        # a finished game does not count against the client
        play_to_the_end(greedy, games[0])
        assert new(greedy, seed=5)["id"]
        assert len(app.state.uno.sessions) == 5
        # past evict_idle_seconds the client's longest idle game gives up its place
        clock.now = 200
        greedy.get(f"/api/games/{games[2]['id']}")
        assert new(greedy, seed=6)["id"]
        assert greedy.get(f"/api/games/{games[1]['id']}").status_code == 404


def _slow_decide(monkeypatch, seconds):
    """Make every agent's move take ``seconds`` longer (in its worker thread)."""
    import uno_env.apps.server as server
    real = server._decide
    threads = []

    def slow(agent, game, seat, budget=None):
        threads.append(threading.current_thread().name)
        time.sleep(seconds)
        return real(agent, game, seat, budget)

    monkeypatch.setattr(server, "_decide", slow)
    return threads


def test_a_slow_agent_thinks_off_the_event_loop(monkeypatch):
    """While one session's opponent thinks (1 s), another session's requests answer
    at once: the move runs in a worker thread, not in the event loop."""
    import httpx
    app = create_app()

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            body = {"players": 2, "opponents": "heuristic", "seat": 0, "seed": 3}
            a = (await c.post("/api/games", json=body)).json()
            b = (await c.post("/api/games", json=body)).json()
            assert not a["your_turn"]           # seat 1 starts: the agent moves first
            threads = _slow_decide(monkeypatch, 1.0)
            t0 = time.perf_counter()
            slow = asyncio.ensure_future(c.post(f"/api/games/{a['id']}/advance", json={}))
            await asyncio.sleep(0.1)
            # the same session waits its turn (serialised); the others do not wait
            same = asyncio.ensure_future(c.get(f"/api/games/{a['id']}"))
            quick = await c.get(f"/api/games/{b['id']}")
            quick_at = time.perf_counter() - t0
            moved, now = await slow, await same
            return quick, quick_at, moved, now, time.perf_counter() - t0, threads

    quick, quick_at, moved, now, total, threads = asyncio.run(scenario())
    assert quick.status_code == 200 and quick_at < 0.8, quick_at   # blocked: >= 1 s
    assert moved.status_code == 200 and moved.json()["step"] == 1 and total >= 1.0
    assert now.json()["step"] == 1            # read after the move, not in the middle
    assert threads and all(t.startswith("uno-agent") for t in threads)


def test_searches_run_in_their_own_lower_priority_threads(monkeypatch):
    import uno_env.apps.server as server
    seen = []
    real = server._decide

    def spy(agent, game, seat, budget=None):
        tid = threading.get_native_id()
        seen.append((threading.current_thread().name, os.getpriority(os.PRIO_PROCESS, tid)))
        return real(agent, game, seat, budget)

    monkeypatch.setattr(server, "_decide", spy)
    with TestClient(create_app()) as client:
        for opponents in ("mcts:5", "heuristic"):
            g = new(client, players=2, seed=3, opponents=opponents)
            to_my_turn(client, g)
    search = [p for name, p in seen if name.startswith("uno-search")]
    quick = [p for name, p in seen if name.startswith("uno-agent")]
    assert search and quick and len(search) + len(quick) == len(seen)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    assert set(search) == {min(19, base + server.SEARCH_NICE)} and set(quick) == {base}


def test_past_the_time_budget_advance_answers_202_and_the_move_goes_on(monkeypatch):
    _slow_decide(monkeypatch, 0.5)
    with TestClient(create_app(move_seconds=0.05)) as client:
        g = new(client, players=2, seat=0, seed=3)
        assert not g["your_turn"]
        r = client.post(f"/api/games/{g['id']}/advance", json={"step": 0})
        assert r.status_code == 202 and r.json()["thinking"] and r.json()["step"] == 0
        # meanwhile the game is as it was, and the person cannot move
        r = client.post(f"/api/games/{g['id']}/move", json={"move": "draw"})
        assert r.status_code == 409
        assert client.get(f"/api/games/{g['id']}").json()["history"] == []
        for _ in range(100):
            r = client.post(f"/api/games/{g['id']}/advance", json={"step": 0})
            if r.status_code == 200:
                break
            assert r.status_code == 202
        assert r.status_code == 200 and not r.json()["thinking"]
        assert r.json()["step"] == 1 and r.json()["history"][0][0] == 1


def test_the_first_games_made_at_once_all_find_their_agents(monkeypatch):
    """New games are made in worker threads; the agent registry is loaded before any."""
    import concurrent.futures

    import uno_env.players.registry as registry
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "_FACTORIES", {})
    monkeypatch.setattr(registry, "_RESOLVERS", [])
    with TestClient(create_app(max_per_client=None)) as client:
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(
                lambda k: client.post("/api/games", json={"players": 2, "seed": k,
                                                          "opponents": "heuristic"}),
                range(8)))
    assert [r.status_code for r in answers] == [201] * 8, [r.text for r in answers]


def test_every_move_is_said_in_words_a_challenge_with_its_verdict_and_penalty():
    """The view says what each move did (seat_view.narrate, "you" for the person):
    after a challenge, whose Wild Draw Four it was, the verdict and who draws how many;
    only the fields of the preset (side and far faces for Flip alone)."""
    with TestClient(create_app()) as client:
        g = new(client, players=3, seed=10, opponents="random")
        challenges, verdicts = 0, set()
        while not g["over"]:
            g = to_my_turn(client, g)
            assert len(g["story"]) == len(g["history"]) == g["step"]
            assert g["said"] == (g["story"][-1] if g["story"] else [])
            for (seat, move), said in zip(g["history"], g["story"]):
                who = "you" if seat == 0 else f"seat {seat}"
                assert said[0].startswith(who + " "), (move, said)
            if g["over"]:
                break
            move = "challenge" if "challenge" in g["legal"] else g["legal"][0]
            sizes = g["hand_sizes"]
            r = client.post(f"/api/games/{g['id']}/move", json={"move": move,
                                                                "step": g["step"]})
            assert r.status_code == 200, r.text
            g = r.json()
            if move == "challenge":
                challenges += 1
                said = g["said"][0]
                m = re.fullmatch(r"you challenge seat (\d)'s Wild Draw Four: it was "
                                 r"(legal|a bluff), (you|seat \d) draws? (\d+)", said)
                assert m, said
                loser = 0 if m[3] == "you" else int(m[3][-1])
                assert loser == (int(m[1]) if m[2] == "a bluff" else 0)
                assert int(m[4]) == g["hand_sizes"][loser] - sizes[loser]
                verdicts.add(m[2])
        assert challenges >= 2 and verdicts == {"legal", "a bluff"}
        assert g["match"] is False and g["flip"] is False and g["far_top"] is None
        f = new(client, preset="flip", players=2, seed=3)
        assert f["flip"] is True and f["far_top"] is not None and "|" not in f["far_top"]


def test_a_clients_search_queue_is_bounded_and_a_game_past_it_waits_its_turn(monkeypatch):
    """search_queue=1: one search runs, one waits in the client's queue; a third game's
    advance finds no room, answers 202 without queuing (thinking false), and gets its
    move later like the others."""
    _slow_decide(monkeypatch, 0.4)
    with TestClient(create_app(search_queue=1, move_seconds=0.1)) as client:
        games = []
        for seed in range(3, 40):               # three deals where the agent moves first
            g = new(client, players=2, seat=0, seed=seed, opponents="mcts:5")
            games += [] if g["your_turn"] else [g]
            if len(games) == 3:
                break
        answers = [client.post(f"/api/games/{g['id']}/advance", json={"step": 0})
                   for g in games]
        assert [r.status_code for r in answers] == [202, 202, 202]
        assert [r.json()["thinking"] for r in answers] == [True, True, False]
        for g in games:
            assert to_my_turn(client, g)["step"] >= 1
