"""tournament(): fair seating, reproducibility, statistics, saved files, CLI; play CLI."""
import csv
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from uno_env.apps.cli import app
from uno_env.evaluation.tournament import lineups, tournament, wilson

AGENTS = ("random", "greedy", "heuristic")
runner = CliRunner()


@pytest.fixture(scope="module")
def result():
    return tournament(AGENTS, "classic", 4, num_games=3000, seed=0, threads=1,
                      progress=False)


@pytest.mark.parametrize("k,p", [(3, 4), (2, 3), (3, 2), (4, 4), (2, 5)])
def test_every_agent_sits_every_seat_equally_often(k, p):
    names = ["random", "greedy", "heuristic", "x"][:k]
    counts = np.zeros((k, p), int)
    for lineup in lineups(names, p):
        assert len(lineup) == p
        for seat, name in enumerate(lineup):
            counts[names.index(name), seat] += 1
    assert (counts == 1).all()


def test_seat_counts_of_a_result_are_equal(result):
    counts = result.seat_counts()
    assert counts.shape == (3, 4)
    assert (counts == counts[0, 0]).all() and counts[0, 0] == 1000
    assert result.num_games == 3000


def test_num_games_is_rounded_up_to_a_multiple_of_the_agents():
    r = tournament(AGENTS, num_players=3, num_games=10, threads=1, progress=False)
    assert r.num_games == 12 and r.games_per_lineup == 4


def test_same_seed_same_results_on_one_and_two_threads(result):
    other = tournament(AGENTS, "classic", 4, num_games=3000, seed=0, threads=2,
                       progress=False)
    assert np.array_equal(result.winner, other.winner)
    assert np.array_equal(result.points, other.points)
    assert result.stats() == other.stats()
    assert result.ratings == other.ratings


def test_lineups_play_disjoint_games():
    r = tournament(("random", "greedy"), num_players=2, num_games=400, seed=3, threads=1,
                   progress=False)
    from uno_env.evaluation.simulation import simulate
    second = simulate("classic", 2, agents=r.lineups[1], num_games=200, seed=3,
                      threads=1, first_game=200)
    assert np.array_equal(r.winner[1], second.winner)


def test_stronger_agents_beat_random_with_separated_intervals(result):
    rows = {d["agent"]: d for d in result.stats()}
    for strong in ("greedy", "heuristic"):
        assert rows[strong]["ci_low"] > rows["random"]["ci_high"]
    assert sum(d["wins"] for d in rows.values()) == result.num_games - result.truncated
    h2h = result.head_to_head()
    assert h2h["heuristic"]["random"]["rate"] > h2h["random"]["heuristic"]["rate"]
    assert h2h["greedy"]["random"]["games"] == 3000       # K < P: everyone meets always
    assert rows["heuristic"]["openskill_mu"] > rows["random"]["openskill_mu"]
    assert result.rated_games == result.num_games - result.truncated


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    # no rounding past the observed rate at the edges (a negative chart error bar)
    for n in (3, 100, 300, 30_000):
        assert wilson(0, n)[0] == 0.0 and wilson(n, n)[1] == 1.0
        for wins in (0, 1, n // 2, n - 1, n):
            lo, hi = wilson(wins, n)
            assert lo <= wins / n <= hi


def test_leaderboard_and_saved_files(result, tmp_path):
    board = result.leaderboard()
    for name in AGENTS:
        assert name in board
    paths = result.save(tmp_path / "out")
    data = json.loads(paths["results.json"].read_text())
    for key in ("agents", "lineups", "leaderboard", "head_to_head", "openskill",
                "openskill_note", "seat_counts", "num_games", "seed"):
        assert key in data
    # one word per measure: OpenSkill's values are named as such, never "rating"
    # (the benchmark's anchored Elo scale), in the JSON and in the printed table
    assert not [k for k in data if "rating" in k]
    assert not [k for k in data["leaderboard"][0] if "rating" in k]
    assert data["openskill"]["heuristic"]["mu"] == data["leaderboard"][0]["openskill_mu"] \
        or data["leaderboard"][0]["agent"] != "heuristic"
    assert "OS mu" in board and "OpenSkill (Plackett-Luce)" in board
    assert data["num_games"] == 3000
    with open(paths["leaderboard.csv"]) as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["agent"] for r in rows) == sorted(AGENTS)
    assert all(0 <= float(r["win_rate"]) <= 1 for r in rows)
    with open(paths["head_to_head.csv"]) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6
    assert paths["win_rates.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _png_width(path) -> int:
    return int.from_bytes(path.read_bytes()[16:20], "big")      # the IHDR chunk


def test_a_table_of_agents_that_always_meet_is_not_printed_but_said(result, tmp_path):
    """3 agents on 4 seats: every game seats all three, so "A won with B at the table"
    is A's overall rate; the leaderboard says so in one line instead of a table, and
    says what was played; results.json records the line-ups, their games and seats."""
    board = result.leaderboard()
    note = result.head_to_head_note
    assert note is not None and note in board and "schedule 'pairs'" in note
    assert "head to head (" not in board
    assert "rotate: all agents rotated through the seats; 3 line-ups x 1,000 games; " \
           "every agent in every seat 1,000 times" in board
    data = json.loads(result.save(tmp_path)["results.json"].read_text())
    assert data["schedule"] == "rotate" and data["head_to_head_note"] == note
    assert data["lineup_games"] == [
        {"lineup": list(lu), "games": 1000, "first_game": 1000 * r}
        for r, lu in enumerate(lineups(AGENTS, 4))]
    assert data["played"] == result.played()


def test_pairs_schedule_plays_each_pair_alone_and_prints_a_real_head_to_head(tmp_path):
    r = tournament(AGENTS, "classic", 4, num_games=500, seed=2, threads=1,
                   progress=False, schedule="pairs")
    assert r.games_per_lineup == 84 and r.num_games == 504    # 6 line-ups
    assert [set(lu) for lu in r.lineups] == [{"random", "greedy"}] * 2 + \
        [{"random", "heuristic"}] * 2 + [{"greedy", "heuristic"}] * 2
    assert r.lineups[:2] == [("random", "greedy") * 2, ("greedy", "random") * 2]
    assert (r.seat_counts() == 2 * 84).all()      # two pairs each, every seat alike
    h2h = r.head_to_head()
    for a in AGENTS:
        for b in AGENTS:
            if a != b:      # the pair's own games: each game won by one of the two
                assert h2h[a][b]["games"] == 168
                assert h2h[a][b]["wins"] + h2h[b][a]["wins"] <= 168
    assert h2h["heuristic"]["random"]["rate"] > 0.6 > h2h["random"]["heuristic"]["rate"]
    for a in AGENTS:        # each cell with its 95% Wilson interval, printed and saved
        for b in AGENTS:
            if a != b:
                c = h2h[a][b]
                assert c["ci"] == list(wilson(c["wins"], c["games"]))
                assert c["ci"][0] <= c["rate"] <= c["ci"][1]
                assert c["ci"][1] > c["ci"][0]                  # 168 games: an interval
    assert h2h["heuristic"]["random"]["ci"][0] > h2h["random"]["heuristic"]["ci"][1]
    assert r.head_to_head_note is None
    board = r.leaderboard()
    assert "row's win rate in the 168 games of row and column alone [95% Wilson " \
           "interval]" in board
    c = h2h["heuristic"]["greedy"]
    assert f"{c['rate']:.3f} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}]" in board
    with open(r.save(tmp_path / "h2h")["head_to_head.csv"]) as f:
        saved = {(row["agent"], row["opponent"]): row for row in csv.DictReader(f)}
    assert float(saved["heuristic", "greedy"]["ci_low"]) == pytest.approx(c["ci"][0])
    assert float(saved["heuristic", "greedy"]["ci_high"]) == pytest.approx(c["ci"][1])
    assert "pairs: each pair of agents alone at the table; 6 line-ups x 84 games" in board
    from uno_env.evaluation.simulation import simulate
    again = simulate("classic", 4, agents=r.lineups[3], num_games=84, seed=2,
                     threads=1, first_game=3 * 84)
    np.testing.assert_array_equal(r.winner[3], again.winner)
    wide = r.save(tmp_path / "pairs")["win_rates.png"]
    narrow = tournament(AGENTS, "classic", 4, num_games=30, seed=2, threads=1,
                        progress=False).save(tmp_path / "rotate")["win_rates.png"]
    assert _png_width(wide) > _png_width(narrow)        # the head-to-head panel


def test_more_agents_than_seats_print_the_table_of_games_where_both_sat():
    r = tournament(AGENTS, "classic", 2, num_games=30, seed=0, threads=1,
                   progress=False)
    assert r.head_to_head_note is None       # 2 seats: each game is one pair's
    assert "in the games of row and column alone" in r.leaderboard()
    r = tournament(AGENTS + ("mcts:2",), "classic", 3, num_games=8, seed=0, threads=1,
                   progress=False)
    assert r.head_to_head_note is None
    assert "where row and column both sat; other agents sat too" in r.leaderboard()
    with pytest.raises(ValueError, match="unknown schedule 'round-robin'; valid: "
                                         "rotate, pairs"):
        tournament(AGENTS, num_games=10, progress=False, schedule="round-robin")


def test_unknown_agents_and_objects_without_act_batch_are_refused_clearly():
    with pytest.raises(ValueError, match="unsupported agent.*random, greedy, heuristic"):
        tournament(("random", "alphazero"), num_games=10, progress=False)
    with pytest.raises(ValueError, match="unsupported agent.*object"):
        tournament(("random", object()), num_games=10, progress=False)
    with pytest.raises(ValueError, match="at least two"):
        tournament(("random",), num_games=10, progress=False)


def test_cli_tournament_writes_files(tmp_path):
    out = tmp_path / "cli"
    res = runner.invoke(app, ["tournament", "--agents", "random,greedy,heuristic",
                              "--players", "3", "--games", "300", "--threads", "1",
                              "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "heuristic" in res.output and "95% interval" in res.output
    for name in ("results.json", "leaderboard.csv", "head_to_head.csv", "win_rates.png"):
        assert (out / name).exists() and str(out / name) in res.output


def test_cli_tournament_bad_agent():
    res = runner.invoke(app, ["tournament", "--agents", "random,alphazero",
                              "--games", "10"])
    assert res.exit_code != 0
    assert "alphazero" in res.output and "heuristic" in res.output


def test_cli_play_to_the_end_with_piped_input():
    res = runner.invoke(app, ["play", "--players", "3", "--opponents", "heuristic",
                              "--seed", "0", "--seat", "0"], input="1\n" * 3000)
    assert res.exit_code == 0, res.output
    assert "top: " in res.output and "your hand" in res.output
    assert "  1. " in res.output and "player 1 (heuristic):" in res.output
    assert "game over" in res.output


def test_cli_play_reprompts_bad_choices_and_exits_on_eof():
    res = runner.invoke(app, ["play", "--players", "2", "--opponents", "random",
                              "--seed", "1", "--seat", "1"], input="nonsense\n999\n")
    assert res.exit_code == 0, res.output
    assert res.output.count("not a legal move") == 2
    assert "end of input" in res.output


def test_cli_play_accepts_a_move_string():
    from uno_env.envs.game import Game
    g = Game("classic", 2, seed=4)
    # opponents move first when seat 0 is not the first player; use seat of the
    # first decider so the first prompt is for this position
    seat = g.current_player
    move = g.legal_moves()[-1]
    res = runner.invoke(app, ["play", "--players", "2", "--opponents", "greedy",
                              "--seed", "4", "--seat", str(seat)],
                        input=f"{move.lower()}\n")
    assert res.exit_code == 0, res.output
    assert "not a legal move" not in res.output
    assert "end of input" in res.output or "game over" in res.output


def test_cli_play_bad_opponent():
    res = runner.invoke(app, ["play", "--opponents", "alphazero"], input="1\n")
    assert res.exit_code != 0 and "alphazero" in res.output


def test_python_agents_play_through_the_vector_env_and_match_the_numba_path():
    """A Python agent object (here the greedy policy's Python class, as a trained network
    would be) plays the same game indices through EverySeatBatch: with the same policy the
    results equal the numba agent's exactly."""
    import uno_env
    from agents import GreedyAgent

    config = uno_env.make_config("classic", 3)
    # "random" beside a Python agent draws from the game's own stream, as in simulate
    numba_run = tournament(("heuristic", "greedy", "random"), num_players=3,
                           num_games=300, seed=4, progress=False)
    python_run = tournament(("heuristic", GreedyAgent(config), "random"), num_players=3,
                            num_games=300, seed=4, progress=False)
    assert python_run.agents == ("heuristic", "greedy", "random")
    np.testing.assert_array_equal(numba_run.winner, python_run.winner)
    np.testing.assert_array_equal(numba_run.points, python_run.points)


def test_python_agents_meet_search_agents_through_games_as_in_simulate():
    """A lineup of a Python agent and ``mcts`` plays through ``Game`` objects, the
    search seats of a game sharing its search stream: the same games as inside
    ``simulate`` (an EverySeatBatch cannot host the search agent)."""
    import uno_env
    from agents import GreedyAgent

    config = uno_env.make_config("classic", 3)
    kw = dict(num_players=3, num_games=12, seed=5, progress=False, threads=1)
    numba_run = tournament(("mcts:30", "greedy", "random"), **kw)
    python_run = tournament(("mcts:30", GreedyAgent(config), "random"), **kw)
    np.testing.assert_array_equal(numba_run.winner, python_run.winner)
    np.testing.assert_array_equal(numba_run.points, python_run.points)
    # the search changed moves here (its rollout policy alone plays other games), so
    # the equality above checks the search streams, not only the rollout policy
    rollout_only = tournament(("heuristic", "greedy", "random"), **kw)
    assert (rollout_only.points != numba_run.points).any()


def test_the_stream_random_agent_of_game_and_vector_env_plays_simulates_games():
    """``Game.random_action`` and ``EverySeatBatch.stream_random_actions`` draw simulate's
    ``random`` agent from the game's own stream: the same games as inside simulate."""
    from uno_env import Game, simulate
    from uno_env.envs.every_seat import EverySeatBatch

    res = simulate("classic", 3, agents="random", num_games=5, seed=8, threads=1)
    venv = EverySeatBatch(5, num_players=3, seed=8, auto_reset=False)
    venv.reset()
    while not venv.done.all():
        live = np.flatnonzero(~venv.done)
        actions = np.zeros(5, np.int64)
        actions[live] = venv.stream_random_actions(live)
        venv.step(actions)
    np.testing.assert_array_equal(venv.winner, res.winner)
    np.testing.assert_array_equal(venv.round_points, res.points)
    for i in range(5):
        game = Game("classic", 3, seed=8)
        game.reset(8, index=i)
        while not game.is_over:
            game.step(game.random_action())
        assert (-1 if game.winner is None else game.winner) == res.winner[i]
        np.testing.assert_array_equal(game.round_points, res.points[i])
    with pytest.raises(ValueError, match="game is over"):
        game.random_action()


def test_vector_env_without_auto_reset_keeps_finished_games():
    from uno_env.envs.every_seat import EverySeatBatch

    venv = EverySeatBatch(6, num_players=2, seed=1, auto_reset=False, max_turns=40)
    obs, mask, player = venv.reset(first_game=10)
    assert venv.game_index.tolist() == list(range(10, 16))
    rng = np.random.default_rng(0)
    for _ in range(200):
        if venv.done.all():
            break
        venv.step(venv.random_actions(rng))
    assert venv.done.all()
    assert venv.game_index.tolist() == list(range(10, 16))  # nothing was dealt again
    from uno_env.engine import codes as C
    status = venv._state.info[:, C.I_STATUS]
    assert ((venv.winner >= 0) == (status == C.STATUS_OVER)).all()
