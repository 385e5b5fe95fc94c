"""The benchmark (``uno_env.evaluation.benchmark``, ``uno-bench benchmark``): fixed tracks, report
cards that depend on the agent alone, anchored ratings, clear errors.

Game counts are tiny (``games=`` makes a non-standard card); the panel's search agents
play a few games each."""
import json
import math
import pathlib
import textwrap

import pytest
from typer.testing import CliRunner

from uno_env.evaluation import benchmark as B
from uno_env.apps.cli import app
from uno_env.rules.config import make_config
from support import ROOT

runner = CliRunner()


def _same_card(a: dict, b: dict) -> None:
    """The same results: everything but how (``run``) and where (``provenance``: the
    date, the command) the card was played."""
    a, b = dict(a), dict(b)
    a.pop("run"), b.pop("run")
    a.pop("provenance"), b.pop("provenance")
    assert a == b


# --- the protocol ------------------------------------------------------------------------
def test_tracks_fix_rules_seats_seeds_games_and_panel():
    assert list(B.TRACKS) == ["classic-2p", "classic-4p", "house-4p", "flip-4p",
                              "onepiece-4p"]
    assert B.TRACKS["house-4p"].preset == "street"
    seeds = [t.seed for t in B.TRACKS.values()]
    assert len(set(seeds)) == len(seeds)
    for t in B.TRACKS.values():
        assert t.panel[:4] == ("random", "greedy", "heuristic", t.model)
        assert all(t.games[m] % t.num_players == 0 for m in t.panel)
        # the PPO member: in the panel once shipped, else listed as absent
        assert (t.model in t.panel) == t.models and (t.model in t.absent) != t.models
        d = t.to_dict()
        assert d["panel"] == list(t.panel) and d["absent"] == list(t.absent)
    # uno-bench/5: classic-2p gains expert iteration's network and one search member;
    # the 4-player tracks hold no search member (none measured above the heuristic)
    assert B.TRACKS["classic-2p"].panel == ("random", "greedy", "heuristic",
                                            "ppo_classic_2p", B.EXIT_MEMBER,
                                            B.SEARCH_MEMBER)
    assert B.TRACKS["classic-2p"].games[B.SEARCH_MEMBER] == 1000
    assert [m for t in B.TRACKS.values() for m in t.panel if m.startswith("mcts")] == \
        [B.SEARCH_MEMBER]
    assert B.BENCHMARK_VERSION == "uno-bench/6"


def test_the_panel_holds_its_reason_for_being():
    """What chose the uno-bench/5 panel holds in the committed anchors: the search
    member and expert iteration's network rate above the heuristic, by more than their
    standard errors (the search is stronger than its own rollout policy), and the
    network is the top of classic-2p's panel but for the search."""
    two = B.load_anchors()["tracks"]["classic-2p"]
    ratings, se = two["ratings"], two["standard_errors"]
    for member in (B.SEARCH_MEMBER, B.EXIT_MEMBER):
        assert ratings[member] - ratings["heuristic"] > se[member] + se["heuristic"]
    cheap = [m for m in B.TRACKS["classic-2p"].panel if m != B.SEARCH_MEMBER]
    assert max(cheap, key=ratings.get) == B.EXIT_MEMBER


def test_committed_anchors_cover_every_track_with_random_at_zero():
    anchors = B.load_anchors()
    assert anchors["benchmark"] == B.BENCHMARK_VERSION
    for t in B.TRACKS.values():
        ratings = B.anchor_ratings(t, anchors)
        assert ratings is not None, f"no anchors for {t.name}: run benchmarks/leaderboard.py"
        assert ratings["random"] == 0.0 and ratings["heuristic"] > ratings["random"]


def test_every_stored_card_is_of_this_version_and_complete_against_its_panel():
    """The leaderboard's cards (``uno_env/evaluation/stored_cards/``) are read without
    carrying over: each is of ``BENCHMARK_VERSION``, standard, holds every track as this version
    defines it (panel, games, seed) and on each track it plays one rated result per
    panel member, with the track's games. Every panel member with a card of its own
    (all but the search member) has one, the committed anchors are the fit of these
    cards, and the README's table is theirs: a panel change that leaves a card, the
    anchors or the leaderboard behind fails here (``benchmarks/leaderboard.py``)."""
    import importlib
    lb = importlib.import_module("benchmarks.leaderboard")
    cards = {}
    for path in sorted((ROOT / "uno_env" / "evaluation" / "stored_cards").glob("*.json")):
        d = json.loads(path.read_text())
        card = B.BenchmarkCard.from_dict(d)           # ValueError for another version
        assert card.standard, path.name
        assert [t["track"] for t in d["tracks"]] == [t.to_dict() for t in B.TRACKS.values()]
        for t in card.tracks:                          # all of a track's deals, or none
            assert t.duplicate is None or t.duplicate["deals"] == t.track.duplicate.deals
        for t in card.tracks:
            if t.skipped:
                assert not t.results, (path.name, t.track.name)
                continue
            assert [r["opponent"] for r in t.results] == list(t.track.panel), \
                (path.name, t.track.name)
            assert [r["games"] for r in t.results] == \
                [t.track.games[m] for m in t.track.panel], (path.name, t.track.name)
            assert t.rating is not None, (path.name, t.track.name)
        cards[card.agent] = card
    assert set(lb.reference_agents()) - {B.SEARCH_MEMBER} <= set(cards)
    fitted, committed = lb.fit_anchors(cards), B.load_anchors()
    assert fitted["benchmark"] == committed["benchmark"] == B.BENCHMARK_VERSION
    for name in B.TRACKS:
        new, old = fitted["tracks"][name], committed["tracks"][name]
        assert (new["cards"], new["games"]) == (old["cards"], old["games"])
        assert new["ratings"] == pytest.approx(old["ratings"], abs=0.11)
    assert lb.headline_table(cards) in (ROOT / "README.md").read_text()
    assert lb.edge_table(cards) in (ROOT / "docs" / "leaderboard.md").read_text()
    # uno-bench/6: every panel member's card holds its duplicate deals on every
    # 4-player track it plays, and they are its stored reference results
    from uno_env.evaluation.duplicate import decode, load_references
    for name, track in B.TRACKS.items():
        if track.duplicate is None:
            continue
        refs = load_references(track)
        for member in track.panel:
            (t,) = [t for t in cards[member].tracks if t.track.name == name]
            if t.skipped:
                continue
            won, points = decode(t.duplicate["records"])
            assert (won == refs[member][0]).all() and (points == refs[member][1]).all()


# --- ratings -----------------------------------------------------------------------------
def test_a_place_is_counted_among_the_others_and_said_in_words():
    table = {"exit": 790.0, "greedy": 761.0, "heuristic": 760.0, "random": -137.0,
             "mine": 700.0}
    where = B.standing(760.5, table, exclude=["mine"])
    assert where == {"place": 3, "of": 5, "above": ["greedy", 761.0],
                     "below": ["heuristic", 760.0]}
    assert B.standing_line(where, "on classic-2p's stored leaderboard") == (
        "3rd of 5 on classic-2p's stored leaderboard (between greedy 761 and heuristic 760)")
    top = B.standing(900.0, table)
    assert top["place"] == 1 and top["above"] is None
    assert B.standing_line(top, "x") == "1st of 6 x (above exit 790)"
    assert B.standing_line(B.standing(-500.0, table), "x") == "6th of 6 x (below random -137)"
    assert B.standing(1.0, {}) is None
    stored = B.stored_ratings("classic-2p")
    assert stored["greedy"] == pytest.approx(761.0, abs=0.5)   # the README's table


def test_win_probability_is_chance_at_equal_ratings_and_ten_to_one_at_400():
    assert B.win_probability(100, 100, 4) == pytest.approx(0.25)
    p = B.win_probability(400, 0, 2)
    assert p / (1 - p) == pytest.approx(10.0)


def test_fit_ratings_recovers_the_ratings_that_made_the_results():
    true = {"random": 0.0, "greedy": 250.0, "heuristic": 420.0, "mcts": 600.0}
    pairs = [(a, b, 10_000 * B.win_probability(true[a], true[b], 4), 10_000)
             for a in true for b in true if a != b]
    fit = B.fit_ratings(pairs, 4, {"random": 0.0})
    for name in ("greedy", "heuristic", "mcts"):
        assert fit[name][0] == pytest.approx(true[name], abs=0.5)
        assert 0 < fit[name][1] < 20


def test_fit_ratings_converges_on_lopsided_results():
    """99% wins (heuristic against random, two players) and no loss at all: finite."""
    fit = B.fit_ratings([("h", "random", 3959, 4000), ("h", "g", 1971, 4000)], 2,
                        {"random": 0.0})
    p = B.win_probability(fit["h"][0], 0.0, 2)
    assert p == pytest.approx(3959 / 4000, abs=1e-4)
    (elo, se), = B.fit_ratings([("h", "random", 4000, 4000)], 2, {"random": 0}).values()
    assert 800 < elo < 4000 and se > 100


def test_an_agents_rating_is_fitted_against_the_fixed_anchors_alone():
    anchors = {"random": 0.0, "heuristic": 300.0}
    results = [{"opponent": o, "games": 4000,
                "wins": 4000 * B.win_probability(500.0, r, 2)} for o, r in anchors.items()]
    rating = B.rate_agent(results, 2, anchors)
    assert rating["elo"] == pytest.approx(500.0, abs=1)
    assert rating["ci_low"] < 500 < rating["ci_high"]
    # a result against an agent without an anchor does not move it
    extra = results + [{"opponent": "someone", "games": 4000, "wins": 0}]
    assert B.rate_agent(extra, 2, anchors) == rating
    assert B.rate_agent(results, 2, None) is None


# --- the cards ---------------------------------------------------------------------------
def test_cli_card_of_a_baseline_on_classic_2p(tmp_path):
    result = runner.invoke(app, ["benchmark", "--agent", "heuristic", "--track",
                                 "classic-2p", "--games", "4", "--threads", "1",
                                 "--no-progress", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    card = json.loads((tmp_path / "card.json").read_text())
    assert card["benchmark"] == B.BENCHMARK_VERSION and card["uno_env"]
    assert card["standard"] is False and card["games_override"] == 4
    (track,) = card["tracks"]
    assert track["track"]["name"] == "classic-2p" and track["track"]["seed"] == 1802
    assert [r["opponent"] for r in track["results"]] == list(B.TRACKS["classic-2p"].panel)
    for r in track["results"]:
        assert r["games"] == 4 and sum(r["wins_by_seat"]) == r["wins"]
        assert r["ci_low"] <= r["win_rate"] <= r["ci_high"]
    assert track["rating"] is not None and track["headline"] == track["rating"]["elo"]
    assert "Non-standard run" in (tmp_path / "card.md").read_text()
    assert (tmp_path / "card.png").read_bytes()[:4] == b"\x89PNG"


def test_same_agent_same_card_on_one_or_two_threads():
    one = B.benchmark("greedy", "classic-2p", games=8, threads=1).to_dict()
    two = B.benchmark("greedy", "classic-2p", games=8, threads=2).to_dict()
    _same_card(one, two)
    assert one["tracks"][0]["results"][0]["games"] == 8


def test_a_module_factory_agent_gets_a_card(tmp_path, monkeypatch):
    """Any Python agent: ``module:Factory``, with ``act`` only (no ``act_batch``)."""
    (tmp_path / "my_bot.py").write_text(textwrap.dedent("""
        import numpy as np

        class FirstLegal:
            def __init__(self, config):
                self.config = config
                self.name = "first_legal"

            def act(self, observation, action_mask=None):
                return int(np.flatnonzero(action_mask)[0])
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    card = B.benchmark("my_bot:FirstLegal", "classic-2p", games=4, threads=1)
    again = B.benchmark("my_bot:FirstLegal", "classic-2p", games=4, threads=1)
    _same_card(card.to_dict(), again.to_dict())
    (track,) = card.tracks
    assert card.agent == "my_bot:FirstLegal"
    assert [r["games"] for r in track.results] == [4] * len(B.TRACKS["classic-2p"].panel)
    assert track.results[0]["wins"] >= 2          # first legal move beats random
    paths = card.save(tmp_path / "out")
    text = paths["md"].read_text()
    assert "my_bot:FirstLegal" in text
    # the card says where it stands: its name as given, its place, its time per member
    data = json.loads(paths["json"].read_text())
    assert data["name"] == "first_legal" and text.startswith("# first_legal (my_bot:")
    where = data["tracks"][0]["standing"]
    panel = B.anchor_ratings(B.TRACKS["classic-2p"])
    assert where["panel"]["of"] == len(panel) + 1
    assert where["panel"] == B.standing(track.rating["elo"], panel)
    assert "Place: " in text and " among its panel's anchors (" in text
    seconds = data["run"]["member_seconds"]["classic-2p"]
    assert sorted(seconds) == sorted(B.TRACKS["classic-2p"].panel)
    assert all(s >= 0 for s in seconds.values())
    assert "Time per panel member: " in text and "mcts:400" in text


def test_a_module_factory_in_the_current_directory_is_found_as_python_m_would(
        tmp_path, monkeypatch):
    """``uno-bench benchmark --agent my_cwd_bot:Factory`` run where my_cwd_bot.py is,
    though a console script has no current directory on its import path; the path is
    left as it was."""
    import sys
    (tmp_path / "my_cwd_bot.py").write_text(textwrap.dedent("""
        import numpy as np

        def Factory(config):
            class LastLegal:
                def act_batch(self, observations, masks):
                    return np.array([np.flatnonzero(m)[-1] for m in masks])
            return LastLegal()
    """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path
                                      if p not in ("", ".", str(tmp_path))])
    before = list(sys.path)
    monkeypatch.delitem(sys.modules, "my_cwd_bot", raising=False)
    res = runner.invoke(app, ["benchmark", "--agent", "my_cwd_bot:Factory", "--track",
                              "classic-2p", "--games", "2", "--threads", "1",
                              "--out", "card", "--no-progress"])
    assert res.exit_code == 0, res.output
    card = json.loads((tmp_path / "card" / "card.json").read_text())
    assert card["agent"] == "my_cwd_bot:Factory"
    assert [r["games"] for r in card["tracks"][0]["results"]] == \
        [2] * len(B.TRACKS["classic-2p"].panel)
    assert sys.path == before
    monkeypatch.delitem(sys.modules, "my_cwd_bot")
    monkeypatch.chdir(tmp_path.parent)          # elsewhere it is not found
    with pytest.raises(ValueError, match="cannot import module 'my_cwd_bot' from the "
                                         "current directory"):
        B.benchmark("my_cwd_bot:Factory", "classic-2p", games=2)


def test_a_model_is_not_played_on_a_track_of_another_game():
    agent, reason = B.make_candidate("ppo_classic_2p", make_config("classic", 4), 0)
    assert agent is None and "2" in reason
    agent, reason = B.make_candidate("ppo_classic_2p", make_config("classic", 2), 0)
    assert reason is None and callable(agent.act_batch)


def test_the_card_round_trips_through_json_and_rerates():
    card = B.benchmark("random", "classic-2p", games=2, threads=1, anchors={})
    assert card.tracks[0].rating is None
    back = B.BenchmarkCard.from_dict(json.loads(json.dumps(card.to_dict())))
    _same_card(back.to_dict(), card.to_dict())
    back.rerate(B.load_anchors())
    assert back.tracks[0].rating is not None
    assert "1 thread(s), local backend" in card.markdown()
    card.threads = None                          # a run left to numba's default
    assert "numba's default threads, local backend" in card.markdown()


def test_the_games_against_some_members_replay_the_committed_cards_and_carry_over():
    """``opponents=`` plays some members only (an incomplete, unrated card); its results
    equal the committed leaderboard card's (the same games today), and a card of an
    earlier version is carried over only while its protocol is unchanged."""
    committed = json.loads((ROOT / "uno_env" / "evaluation" / "stored_cards"
                            / "greedy.json").read_text())
    card = B.benchmark("greedy", "classic-2p", threads=1, opponents=["random", "greedy"])
    (track,) = card.tracks
    assert track.missing == [m for m in B.TRACKS["classic-2p"].panel
                             if m not in ("random", "greedy")]
    assert track.rating is None and "not played yet against heuristic" in card.markdown()
    stored = {r["opponent"]: r for r in committed["tracks"][0]["results"]}
    assert [r["games"] for r in track.results] == [4000, 4000]
    for r in track.results:
        assert r == stored[r["opponent"]]
    old = dict(card.to_dict(), benchmark="uno-bench/0")
    with pytest.raises(ValueError, match="a card of benchmark 'uno-bench/0'"):
        B.BenchmarkCard.from_dict(old)
    back = B.BenchmarkCard.from_dict(old, carry=True)
    assert back.tracks[0].results == track.results
    assert back.tracks[0].missing == track.missing
    # a card of the previous version: its results against members that left the
    # panel (the search agents at 10 and 50 rollouts) are dropped, the new members are
    # missing until played
    former = json.loads(json.dumps(old))
    former["tracks"][0]["results"].append(dict(track.results[0], opponent="mcts:10"))
    carried = B.BenchmarkCard.from_dict(former, carry=True).tracks[0]
    assert [r["opponent"] for r in carried.results] == ["random", "greedy"]
    assert B.EXIT_MEMBER in carried.missing and B.SEARCH_MEMBER in carried.missing
    changed = json.loads(json.dumps(old))
    changed["tracks"][0]["track"]["seed"] = 7
    with pytest.raises(ValueError, match="changed its seed .7 -> 1802.: play it again"):
        B.BenchmarkCard.from_dict(changed, carry=True)
    changed = json.loads(json.dumps(old))
    changed["tracks"][0]["results"][1]["games"] = 400
    with pytest.raises(ValueError, match="now plays 4000 games against 'greedy', not 400"):
        B.BenchmarkCard.from_dict(changed, carry=True)
    with pytest.raises(ValueError, match=r"opponents \['ppo_flip_4p'\] are not panel members"):
        B.benchmark("greedy", "classic-2p", opponents=["ppo_flip_4p"])


# --- bad input ---------------------------------------------------------------------------
@pytest.mark.parametrize("spec, message", [
    ("alphazero", "unknown agent 'alphazero'"),
    ("no_such_module_xyz:Agent", "cannot import module 'no_such_module_xyz'"),
    ("math:NoSuchFactory", "module 'math' has no callable 'NoSuchFactory'"),
])
def test_bad_agent_spec_names_what_is_valid(spec, message):
    with pytest.raises(ValueError, match=message):
        B.benchmark(spec, "classic-2p", games=2)
    line = runner.invoke(app, ["benchmark", "--agent", spec, "--track", "classic-2p",
                               "--no-progress"]).output.strip().splitlines()[-1]
    assert line.startswith("Error: ") and message in line


def test_unknown_track_names_the_valid_tracks():
    with pytest.raises(ValueError, match="valid tracks: classic-2p, classic-4p"):
        B.benchmark("random", "classic-3p")
    result = runner.invoke(app, ["benchmark", "--agent", "random", "--track", "uno-9p"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "unknown track(s) ['uno-9p']; valid tracks: " + ", ".join(B.TRACKS) \
        in result.output.strip().splitlines()[-1]


def test_a_missing_panel_model_is_a_clear_error():
    with pytest.raises(ValueError, match="panel member 'ppo_nowhere' is not installed"):
        B._member("ppo_nowhere", make_config("classic", 4), 0)
    with pytest.raises(ValueError, match="games must be a positive integer"):
        B.benchmark("random", "classic-2p", games=0)
    assert not math.isnan(B.win_probability(0, 0, 2))
