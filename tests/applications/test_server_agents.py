"""uno-bench serve against every agent it offers (issue #46): a whole game through the
JSON API against each agent of /api/options on each preset family (classic, house
rules, UNO Flip, UNO One Piece), with no 5xx; a search agent plays attached to its game;
a shipped model plays on the table it was trained for and is refused elsewhere with a
400 that says so."""

import pytest

from conftest import require_web  # noqa: E402

require_web()

from starlette.testclient import TestClient  # noqa: E402

from uno_env.players.registry import is_configured, make_agent  # noqa: E402
from uno_env.apps.replay import from_replay  # noqa: E402
from uno_env.apps.server import create_app  # noqa: E402

#: one preset of each family the page offers: each deck, and the house rules
FAMILIES = ("classic", "street", "flip", "onepiece")


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(max_sessions=200, max_per_client=None)) as c:
        yield c


def offered(client):
    return client.get("/api/options").json()["agents"]


def play_through(client, body):
    """Create a game and play it to the end (the person plays its first legal move);
    every answer is 2xx. Returns the last view."""
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, (body, r.text)
    g = r.json()
    for _ in range(3000):
        if g["over"]:
            break
        if g["your_turn"]:
            r = client.post(f"/api/games/{g['id']}/move",
                            json={"move": g["legal"][0], "step": g["step"]})
        else:
            r = client.post(f"/api/games/{g['id']}/advance", json={"step": g["step"]})
        assert r.status_code in (200, 202), (body, g["step"], r.status_code, r.text)
        g = r.json()
    assert g["over"], body
    return g


def test_the_server_offers_the_baselines_models_and_search(client):
    names = offered(client)
    assert {"random", "greedy", "heuristic", "mcts", "ppo_classic_2p"} <= set(names)


@pytest.mark.parametrize("preset", FAMILIES)
def test_every_offered_agent_plays_whole_games(client, preset):
    played = []
    for name in offered(client):
        if is_configured(name):                  # a shipped model: its own table size
            model = make_agent(name, None)
            players = model.config.num_players
            body = {"preset": preset, "players": players, "opponents": name, "seed": 1}
            if model.config.preset != preset:
                r = client.post("/api/games", json=body)
                if r.status_code == 400:         # another deck or rules: refused, clearly
                    assert f"trained for {model.config.preset}" in r.json()["error"]
                    continue
        else:
            # the search agent as offered on classic (its default budget), elsewhere a
            # small budget keeps the test short
            opp = "mcts:20" if name == "mcts" and preset != "classic" else name
            players = 2 if name == "mcts" else 3
            body = {"preset": preset, "players": players, "opponents": opp, "seed": 1,
                    "seat": players - 1}
        g = play_through(client, body)
        data = client.get(f"/api/games/{g['id']}/replay").json()
        assert [list(m) for m in from_replay(data).history] == g["history"]
        played.append(name)
    # every baseline and the search plays on every family; each model on its own
    models = [n for n in offered(client) if is_configured(n)]
    assert set(offered(client)) - set(models) <= set(played)
    own = [n for n in models if make_agent(n, None).config.preset == preset]
    assert set(own) <= set(played)


def test_every_shipped_model_has_a_family_here(client):
    models = [n for n in offered(client) if is_configured(n)]
    assert models and {make_agent(n, None).config.preset for n in models} <= \
        set(FAMILIES) | {"classic"}


@pytest.mark.parametrize("opponents, message", [
    ("mcts:0", "from 1 to"), ("mcts:5001", "at most 5000 rollouts"),
    ("mcts-fast:20", "unknown mcts option 'fast'"), ("mcts:x", "from 1 to"),
])
def test_search_budgets_are_bounded(client, opponents, message):
    r = client.post("/api/games", json={"players": 2, "opponents": opponents})
    assert r.status_code == 400 and message in r.json()["error"], r.text


def test_mixed_opponents_with_a_search_budget(client):
    g = play_through(client, {"preset": "classic", "players": 4, "seat": 1, "seed": 2,
                              "opponents": ["mcts-ucb:30", "ppo_classic_4p", "random"]})
    assert g["agents"] == ["mcts-ucb:30", "you", "ppo_classic_4p", "random"]
