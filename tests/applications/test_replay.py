"""Replays (uno_env.apps.replay): every preset round-trips through JSON, and every kind of bad
file gets its own clear error."""
import copy
import json

import pytest

from uno_env import Game
from uno_env.apps.replay import FORMAT, from_replay, record, steps
from uno_env.rules import PRESETS


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_round_trips_through_json(preset, tmp_path):
    players = 4 if preset == "teams" else 3
    paths = record(["heuristic", "greedy", "random", "heuristic"][:players], preset,
                   players, games=2, seed=11, out_dir=tmp_path)
    assert [p.name for p in paths] == [f"{preset}_{players}p_seed11_game{i}.json"
                                       for i in (0, 1)]
    for index, path in enumerate(paths):
        data = json.loads(path.read_text())
        assert data["format"] == FORMAT and data["preset"] == preset
        assert data["index"] == index and data["seed"] == 11
        assert data["agents"] == ["heuristic", "greedy", "random", "heuristic"][:players]
        assert data["rules"]["deck"] == PRESETS[preset].deck
        assert (data["pairing"] is not None) == (preset == "flip")
        game = Game.from_replay(path)
        assert game.is_over and [list(m) for m in game.history] == data["moves"]
        # the same deal played again by hand reaches the same table
        fresh = Game(preset, players, seed=11)
        fresh.reset(11, index)
        for seat, move in data["moves"]:
            assert fresh.current_player == seat
            fresh.play(move)
        assert [fresh.hand(s) for s in range(players)] == \
            [game.hand(s) for s in range(players)]
        assert fresh.winner == game.winner == data["result"]["winner"]
        again = game.to_replay(agents=data["agents"])
        # made a moment after the file: its provenance's date may be the next second
        assert again["provenance"].pop("date") >= data["provenance"].pop("date")
        assert again == data


def test_unfinished_game_and_rule_overrides_round_trip():
    game = Game("classic", 2, seed=3, stack="any", target_score=200)
    game.reset(3, 5)
    for _ in range(6):
        game.play(game.legal_moves()[-1])
    data = game.to_replay(index=5)
    assert data["result"] is None and data["rules"]["stack"] == "any"
    again = from_replay(json.dumps(data))
    assert again.config.rules == game.config.rules
    assert again.hand(0) == game.hand(0) and again.current_player == game.current_player


def test_a_wrong_index_is_refused_rather_than_written():
    game = Game("classic", 3, seed=5)
    game.reset(5, 2)
    game.play(game.legal_moves()[0])
    with pytest.raises(ValueError, match="pass the index= or scenario="):
        game.to_replay()                       # it says game 0: not this deal
    assert game.to_replay(index=2)["index"] == 2


def test_scenario_and_flip_pairing_round_trip():
    hands = [["R5|P7", "W|W", "G2|T4"], ["B3|T1", "Y9|O6"]]
    game = Game.from_scenario("flip", hands=hands, top="R8|O3", seed=2)
    game.play("R5|P7")
    data = game.to_replay(scenario={"hands": hands, "top": "R8|O3"})
    assert "index" not in data and data["scenario"]["hands"] == hands
    assert data["pairing"] == game.pairing and len(data["pairing"]) == 112
    again = from_replay(data)
    assert again.history == [(0, "R5|P7")] and again.hand(1) == game.hand(1)
    # a custom Flip pairing (reset(pairing=...)) is kept too
    g = Game("flip", 2, seed=4)
    swapped = list(reversed(g.pairing))
    pairing = [p.split("|")[0] + "|" + q.split("|")[1]
               for p, q in zip(g.pairing, swapped)]
    g.reset(4, 0, pairing)
    g.play(g.legal_moves()[0])
    assert from_replay(g.to_replay()).pairing == pairing


@pytest.fixture(scope="module")
def good():
    game = Game("classic", 3, seed=9)
    while not game.is_over:
        game.play(game.legal_moves()[0])
    return game.to_replay(agents=["a", "b", "c"])


def _bad(good, edit):
    data = copy.deepcopy(good)
    edit(data)
    return data


def test_wrong_format_version(good):
    data = _bad(good, lambda d: d.update(format="uno-env-replay/99"))
    with pytest.raises(ValueError, match=r"unsupported replay format 'uno-env-replay/99'.*"
                                         r"reads 'uno-env-replay/1'"):
        from_replay(data)
    with pytest.raises(ValueError, match="unsupported replay format None"):
        from_replay({"moves": []})


def test_illegal_move_names_its_number_and_the_legal_moves(good):
    g = Game("classic", 3, seed=9)
    for seat, move in good["moves"][:4]:
        g.play(move)
    legal = g.legal_moves()
    illegal = next(m for m in ("R0", "B9", "G7", "Y3", "W4:R") if m not in legal)
    data = _bad(good, lambda d: d["moves"].__setitem__(4, [good["moves"][4][0], illegal]))
    with pytest.raises(ValueError) as err:
        from_replay(data)
    text = str(err.value)
    assert f"move 5 of {len(good['moves'])}" in text and repr(illegal) in text
    assert "the legal moves were: " + ", ".join(legal) in text


def test_a_move_out_of_turn(good):
    seat = good["moves"][2][0]
    data = _bad(good, lambda d: d["moves"].__setitem__(2, [(seat + 1) % 3,
                                                           good["moves"][2][1]]))
    with pytest.raises(ValueError, match=rf"move 3 of \d+ .*it is seat {seat}'s turn"):
        from_replay(data)


def test_truncated_json_text(good):
    text = json.dumps(good)
    with pytest.raises(ValueError, match="not valid JSON .truncated or corrupt"):
        from_replay(text[: len(text) // 2])


def test_truncated_move_list(good, tmp_path):
    data = _bad(good, lambda d: d["moves"].__delitem__(slice(-3, None)))
    path = tmp_path / "short.json"
    path.write_text(json.dumps(data))
    n = len(good["moves"]) - 3
    with pytest.raises(ValueError, match=rf"truncated replay: it ends after move {n} but "
                                         r"the game is not over"):
        from_replay(path)


def test_moves_after_the_end(good):
    data = _bad(good, lambda d: d["moves"].append([0, "draw"]))
    with pytest.raises(ValueError, match=r"already over after move"):
        from_replay(data)


def test_a_different_result(good):
    data = _bad(good, lambda d: d["result"].update(winner=(good["result"]["winner"] + 1) % 3))
    with pytest.raises(ValueError, match=r"does not reach its recorded result: winner "
                                         r"recorded"):
        from_replay(data)


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.pop("moves"), "missing moves"),
    (lambda d: d.pop("index"), r"missing index \(or scenario\)"),
    (lambda d: d.update(moves={"0": "R5"}), "'moves' must be a list"),
    (lambda d: d["moves"].__setitem__(0, ["0", "R5"]), r"move 1 is \['0', 'R5'\]"),
    (lambda d: d["rules"].update(turbo=True), "unknown rule flag.*'turbo'.*valid flags"),
    (lambda d: d.update(preset="uno-deluxe"), "unknown preset 'uno-deluxe'; valid presets"),
    (lambda d: d.update(players=1), "num_players must be an integer from 2 to 10"),
    (lambda d: d.update(index=-1), "'index' must be a non-negative integer"),
    (lambda d: d.update(pairing=["R5|P7"]), "pairing applies to the flip deck"),
])
def test_malformed_fields(good, edit, message):
    with pytest.raises(ValueError, match=message):
        from_replay(_bad(good, edit))


def test_not_a_replay(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        from_replay(tmp_path / "nothing.json")
    path = tmp_path / "list.json"
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="a replay is a JSON object, got list"):
        from_replay(path)
    with pytest.raises(ValueError, match="a replay is a dict, JSON text or a file path"):
        from_replay(42)


def test_steps_show_draws_challenges_and_the_end():
    g = Game.from_scenario("classic", hands=[["W4", "R5", "G7"], ["B1", "B2"], ["Y1"]],
                           top="B9", draw_pile=["G1", "G2", "G3", "G4", "G5"])
    g.play("W4:R")
    g.play("challenge")           # seat 0 held no blue card: the challenge fails
    data = g.to_replay(scenario={"hands": [["W4", "R5", "G7"], ["B1", "B2"], ["Y1"]],
                                 "top": "B9",
                                 "draw_pile": ["G1", "G2", "G3", "G4", "G5"]})
    s = steps(data)
    assert [x["move"] for x in s] == [None, [0, "W4:R"], [1, "challenge"]]
    assert s[1]["top"] == "W4" and s[1]["color"] == "R"
    assert s[2]["events"][0] == "challenge fails" and "seat 1 draws 6" in s[2]["events"]
    assert s[2]["hand_sizes"] == [2, 8, 1]
    assert {"B1", "B2", "G1", "G2", "G3", "G4", "G5"} <= set(s[2]["hands"][1])


def test_record_rejects_a_wrong_number_of_agents(tmp_path):
    with pytest.raises(ValueError, match="3 seats, got 2 agents"):
        record("heuristic,random", "classic", 3, games=1, out_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown agent 'alphago'.*ppo_classic_2p"):
        record("alphago", "classic", 2, games=1, out_dir=tmp_path)


def test_record_plays_a_shipped_model(tmp_path):
    [path] = record("ppo_classic_2p,heuristic", "classic", 2, games=1, seed=1,
                    out_dir=tmp_path)
    data = json.loads(path.read_text())
    assert data["agents"] == ["ppo_classic_2p", "heuristic"]
    assert from_replay(data).winner == data["result"]["winner"]


def test_cli_record_and_view(tmp_path):
    from typer.testing import CliRunner

    from uno_env.apps.cli import app
    runner = CliRunner()
    out = tmp_path / "replays"
    r = runner.invoke(app, ["record", "--agents", "heuristic,random", "--preset", "flip",
                            "--players", "2", "--games", "2", "--seed", "3",
                            "--out", str(out)])
    assert r.exit_code == 0, r.output
    paths = sorted(out.glob("*.json"))
    assert [p.name for p in paths] == ["flip_2p_seed3_game0.json", "flip_2p_seed3_game1.json"]
    assert f"wrote {paths[0]}" in r.output and "moves, " in r.output
    html = tmp_path / "game.html"
    r = runner.invoke(app, ["view", str(paths[1]), "--out", str(html), "--seat", "1"])
    assert r.exit_code == 0, r.output
    text = html.read_text()
    data = json.loads(paths[1].read_text())
    assert '"seat":1' in text and data["moves"][-1][1] in text
    assert "http://" not in text and "https://" not in text and "<link" not in text
    # errors are usage errors that say what is wrong
    r = runner.invoke(app, ["record", "--agents", "alphago", "--players", "2",
                            "--out", str(out)])
    assert r.exit_code == 2 and "unknown agent 'alphago'" in _flat(r.output)
    bad = tmp_path / "bad.json"
    bad.write_text(paths[0].read_text()[:200])
    r = runner.invoke(app, ["view", str(bad), "--out", str(html)])
    assert r.exit_code == 2 and "is not valid JSON (truncated or corrupt?)" in _flat(r.output)
    r = runner.invoke(app, ["view", str(paths[0]), "--out", str(html), "--seat", "5"])
    assert r.exit_code == 2 and "seat must be 0..1, got 5" in _flat(r.output)


def _flat(text):
    """Typer's boxed error message as one line."""
    import re
    return " ".join(re.sub("[│╭╮╰╯─]", " ", text).split())
