"""Golden playthroughs: recorded games of every preset (tests/golden/, written by
tests/golden/make_golden.py) re-played move by move; every step's public state must be
what it was, so a change of behaviour fails naming the first move that differs."""
import json
from pathlib import Path

import pytest

from uno_env.apps.replay import GOLDEN_FIELDS, golden_states, new_game, public_state
from uno_env.rules import PRESETS
from support import GOLDEN_REPLAYS

GOLDEN = sorted(GOLDEN_REPLAYS.glob("*.json"))


def test_every_preset_has_golden_games():
    counts = {}
    for path in GOLDEN:
        preset = json.loads(path.read_text())["replay"]["preset"]
        counts[preset] = counts.get(preset, 0) + 1
    assert counts == {preset: 2 for preset in PRESETS}


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_playthrough(path):
    golden = json.loads(path.read_text())
    data, expected = golden["replay"], golden["states"]
    assert len(expected) == len(data["moves"]) + 1
    game = new_game(data)
    for n, want in enumerate(expected):
        if n:
            seat, move = data["moves"][n - 1]
            where = f"{path.stem}: move {n} (seat {seat}, {move!r})"
            legal = game.legal_moves() if not game.is_over else []
            assert game.current_player == seat and move in legal, \
                f"{where} is no longer legal; legal now: {legal}"
            game.play(move)
        else:
            where = f"{path.stem}: the deal"
        got = public_state(game)
        diff = {k: (want[k], got[k]) for k in GOLDEN_FIELDS if want[k] != got[k]}
        assert not diff, f"{where}: " + "; ".join(
            f"{k} was {a!r}, now {b!r}" for k, (a, b) in diff.items())
    assert game.is_over and game.winner == data["result"]["winner"]
    # the events shown by the viewer, too
    assert [s["events"] for s in golden_states(data)] == [s["events"] for s in expected]


def test_a_changed_step_is_reported_by_move(tmp_path):
    """The comparison can fail: a golden state edited at move 3 names move 3."""
    golden = json.loads(GOLDEN[0].read_text())
    golden["states"][3]["top"] = "XX"
    bad = tmp_path / GOLDEN[0].name
    bad.write_text(json.dumps(golden))
    with pytest.raises(AssertionError, match=r": move 3 \(seat \d, '[^']+'\): top was 'XX'"):
        test_golden_playthrough(bad)
