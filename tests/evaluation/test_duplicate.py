"""Duplicate play (``uno_env.evaluation.duplicate``, uno-bench/6): the stored
references replay, an agent identical to a panel member scores an edge of exactly 0,
the intervals cover at their nominal rate, cards carry their games and compare.

Small deal counts throughout (the figures are ``benchmarks/duplicate_calibration.py``'s)."""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from uno_env.apps.cli import app
from uno_env.evaluation import benchmark as B
from uno_env.evaluation import duplicate as D

runner = CliRunner()
FOUR = [t for t in B.TRACKS.values() if t.duplicate]


def test_every_four_player_track_has_duplicate_deals_and_stored_references():
    assert [t.name for t in FOUR] == ["classic-4p", "house-4p", "flip-4p", "onepiece-4p"]
    assert B.TRACKS["classic-2p"].duplicate is None
    seeds = [t.duplicate.seed for t in FOUR] + [t.seed for t in B.TRACKS.values()]
    assert len(set(seeds)) == len(seeds)          # deals of their own
    for t in FOUR:
        assert t.duplicate.opponent == "heuristic"
        refs = D.load_references(t)
        assert sorted(refs) == sorted(t.panel), t.name
        for won, points in refs.values():
            assert won.shape == points.shape == (t.duplicate.deals, t.num_players)
            assert ((points > 0) == won).all()     # the winner alone scores the round
        # three heuristics and a fourth: every deal has exactly one winner
        assert (refs["heuristic"][0].sum(axis=1) == 1).all()


@pytest.mark.parametrize("track", FOUR, ids=lambda t: t.name)
def test_the_stored_references_replay(track):
    """A slice of the stored results, played again, is the same games (the numba
    members on every track, the track's PPO model on a few deals)."""
    refs = D.load_references(track)
    from uno_env.rules.config import make_config
    config = make_config(track.preset, track.num_players, **track.rules)
    for member in track.panel:
        deals = 4 if member == track.model else 16
        won, points = D.play_duplicate(B._member(member, config, track.seed), track, deals,
                                       threads=1)
        assert (won == refs[member][0][:deals]).all(), (track.name, member)
        assert (points == refs[member][1][:deals]).all(), (track.name, member)


def test_an_agent_identical_to_a_panel_member_scores_exactly_zero():
    """The same games, so every per-deal difference is 0: edge 0, interval [0, 0]."""
    card = B.benchmark("greedy", "classic-4p", games=64, threads=1)
    dup = card.tracks[0].duplicate
    assert dup["deals"] == 16 and dup["games"] == 64
    same = dup["edges"]["greedy"]
    assert same["win_rate"] == same["points"] == {"edge": 0.0, "ci": [0.0, 0.0], "sd": 0.0}
    # over the heuristic: the stored greedy's own edge on those deals
    refs = D.load_references(B.TRACKS["classic-4p"])
    assert dup["edges"]["heuristic"] == D.paired_edge(*[a[:16] for a in refs["greedy"]],
                                                      *refs["heuristic"])
    assert not card.standard
    # the heuristic against three heuristics wins every deal exactly once: chance
    won, _ = D.play_duplicate("heuristic", B.TRACKS["onepiece-4p"], 8, threads=1)
    assert (won.sum(axis=1) == 1).all()


def test_the_paired_interval_covers_a_known_edge_at_its_nominal_rate():
    """Two heuristics that play a random move 20% of the time, of their own seeds: the
    same strength, so the true edge is 0, but different games. Over 24 blocks of 20
    unseen deals (the first of benchmarks/duplicate_calibration.py's run, whose
    coverage on 200 blocks docs/benchmark.md gives) the 95% interval holds 0 in at
    least 20 (a true 95% coverage falls below that with probability 0.006)."""
    from uno_env.evaluation.calibration import coverage
    out = coverage(B.TRACKS["classic-4p"], 0.2, deals=480, blocks=24, seed=70001)
    assert out["truth"] == {"win_rate": 0.0, "points": 0.0}
    assert out["win_rate"] >= 20 / 24 and out["points"] >= 20 / 24
    assert out["pooled"]["win_rate"]["sd"] > 0       # the games do differ


def test_records_round_trip_and_two_cards_compare_game_by_game(tmp_path):
    rng = np.random.default_rng(0)
    won = rng.random((37, 4)) < 0.25
    points = np.where(won, rng.integers(1, 300, (37, 4)), 0).astype(np.int32)
    back = D.decode(json.loads(json.dumps(D.encode(won, points))))
    assert (back[0] == won).all() and (back[1] == points).all()
    a = B.benchmark("greedy", "classic-4p", games=16, threads=1)
    b = B.benchmark("heuristic", "classic-4p", games=16, threads=1)
    a.save(tmp_path / "a"), b.save(tmp_path / "b")
    (row,) = D.compare_cards(tmp_path / "a", tmp_path / "b" / "card.json")
    assert row["win_rate"] == a.tracks[0].duplicate["edges"]["heuristic"]["win_rate"]
    result = runner.invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("classic-4p: greedy over heuristic, 4 deals")
    result = runner.invoke(app, ["compare", "--agent", "greedy", "--agent", "heuristic",
                                 "--track", "classic-4p", "--deals", "4", "--threads", "1"])
    assert result.exit_code == 0 and result.output == runner.invoke(
        app, ["compare", str(tmp_path / "a"), str(tmp_path / "b")]).output
    text = (tmp_path / "a" / "card.md").read_text()
    assert "**Paired edge over heuristic** (headline, 4 players)" in text
    result = runner.invoke(app, ["compare", str(tmp_path / "a")])
    assert result.exit_code != 0 and "give two cards" in result.output
    # --reproduce replays the duplicate deals too
    from uno_env.evaluation.reproduce import reproduce
    report = reproduce(str(tmp_path / "a" / "card.json"), threads=1)
    assert report.identical and report.rows[-1]["opponent"] == "heuristic (duplicate)"


def test_a_card_of_uno_bench_5_loads_and_its_games_replay():
    """A stored card of the previous version (its games are this version's games)
    carries over, without duplicate deals, and its games against a member replay."""
    from uno_env.evaluation.reproduce import reproduce
    data = json.loads(json.dumps(B.BenchmarkCard.from_dict(
        json.loads((B.CARDS_DIR / "random.json").read_text()), carry=True).to_dict()))
    data["benchmark"] = "uno-bench/5"
    for t in data["tracks"]:
        t.pop("duplicate", None)
        t["track"].pop("duplicate", None)
        t["results"] = [r for r in t["results"] if r["opponent"] == "greedy"]
    data["tracks"] = [t for t in data["tracks"] if t["track"]["name"] == "classic-4p"]
    card = B.BenchmarkCard.from_dict(data, carry=True)
    assert card.tracks[0].duplicate is None
    report = reproduce(data, threads=1)
    assert report.identical and len(report.rows) == 1


def _naive_sequential(d, looks):
    """The same looks and stopping rule at the plain 95% level at every look: what
    goes wrong without the adjustment (the negative control)."""
    for i, (n, _) in enumerate(looks):
        e = D._mean_ci(d[:n])
        if D.stop_reason(e, i == len(looks) - 1):
            return e["ci"]


def test_the_sequential_budget_covers_at_its_nominal_rate():
    """The stopping rule (looks at 1/8, 1/4, 1/2, all; stop when the headline interval is
    narrow enough or excludes 0) on 600 resamplings of greedy's stored per-deal
    differences over the heuristic on classic-4p, centred (true edge 0: the case where
    stopping on 'excludes 0' is the danger) and as they are (true edge: their mean).
    The Bonferroni-adjusted intervals hold the truth at least 93% of the time (a true
    95% falls below that with probability < 0.01); the same rule at the plain 95% level
    at every look does not (0.879 at 10,000 planned deals, docs/benchmark.md), so the
    test can fail. Numpy only: well under a
    second. benchmarks/duplicate_calibration.py --sequential measures it on games."""
    refs = D.load_references(B.TRACKS["classic-4p"])
    d = refs["greedy"][0].mean(axis=1) - refs["heuristic"][0].mean(axis=1)
    assert D.sequential_looks(2000) == [(250, D.z_two_sided(0.005)),
                                        (500, D.z_two_sided(0.005)),
                                        (1000, D.z_two_sided(0.005)),
                                        (2000, D.z_two_sided(0.035))]
    rng = np.random.default_rng(63)
    looks = D.sequential_looks(2000)
    for centred in (True, False):
        pop = d - d.mean() if centred else d
        truth = pop.mean()
        hits = naive = 0
        stops = []
        for _ in range(600):
            x = pop[rng.integers(0, len(pop), 2000)]
            e = D.sequential_edge(x)
            assert e["deals"] in (250, 500, 1000, 2000)
            stops.append(e["deals"])
            hits += e["ci"][0] - 1e-6 <= truth <= e["ci"][1] + 1e-6
            lo, hi = _naive_sequential(x, looks)
            naive += lo - 1e-6 <= truth <= hi + 1e-6
        assert hits / 600 >= 0.93, (centred, hits)
        if centred:
            assert naive / 600 < 0.93, naive       # the adjustment is what covers
            assert np.mean(np.array(stops) == 2000) > 0.9
        else:                                        # -2.4 points: told apart early
            assert np.mean(np.array(stops) <= 1000) > 0.5


def test_a_slow_agent_stops_early_and_says_why_a_fast_one_plays_every_deal():
    from uno_env.evaluation.calibration import NoisyHeuristic
    from uno_env.rules.config import make_config
    tr = B.TRACKS["classic-4p"]
    with pytest.raises(ValueError, match="budget must be one of auto, full, sequential"):
        B.benchmark("greedy", "classic-4p", games=16, budget="fast")
    result = runner.invoke(app, ["benchmark", "--agent", "greedy", "--track", "classic-4p",
                                 "--games", "16", "--budget", "fast"])
    assert result.exit_code != 0 and "budget must be one of" in result.output
    # a fast agent, default budget: every deal
    full = B.benchmark("greedy", "classic-4p", games=64, threads=1).tracks[0].duplicate
    assert full["deals"] == 16 and full["budget"]["rule"] == "full"
    assert "fast (numba)" in full["budget"]["reason"]
    # the sequential rule forced on it: a prefix of the same games, and why it stopped
    card = B.benchmark("greedy", "classic-4p", games=64, threads=1, budget="sequential")
    seq = card.tracks[0].duplicate
    plan = seq["budget"]
    assert plan["rule"] == "sequential" and plan["looks"] == [2, 4, 8, 16]
    assert seq["deals"] == plan["stopped_at"] in plan["looks"] and plan["reason"]
    won, points = D.decode(seq["records"])
    fw, fp = D.decode(full["records"])
    assert (won == fw[:len(won)]).all() and (points == fp[:len(won)]).all()
    refs = D.load_references(tr)
    assert seq["edges"]["heuristic"] == D.paired_edge(won, points, *refs["heuristic"],
                                                      z=D.sequential_looks(16)[
                                                          plan["looks"].index(
                                                              seq["deals"])][1])
    assert "Budget: sequential" in card.markdown()
    # a Python agent, default budget (auto): sequential; a random player is told apart
    # from the heuristic at the first look (8 of 64 deals)
    config = make_config(tr.preset, tr.num_players, **tr.rules)
    dup = B.play_track_duplicate(NoisyHeuristic(config, 1.0, 5), tr, 64, threads=1,
                                 budget="auto")
    assert dup["budget"]["rule"] == "sequential" and dup["deals"] == 8
    assert dup["budget"]["stopped_at"] == 8 and dup["games"] == 32
    assert dup["edges"]["heuristic"]["win_rate"]["ci"][1] < 0
