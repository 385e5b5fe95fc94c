"""docs/environments.md's self-play block (``EverySeatBatch``): run as written, its
credit assignment is checked against the same games replayed move by move with ``Game``:
each seat's final reward lands on that seat's last decision of the game, and nowhere
else; a game still running at the end of the rollout is bootstrapped from each seat's
view of it now (``EverySeatBatch.observe``)."""
import re

import numpy as np

from support import ROOT
from uno_env import Game


def _block() -> str:
    page = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", page, re.S)
                if "last_of_game" in b]
    return block


def _replay(index: int, players: int, moves: int | None = None):
    """Game ``index`` of seed 0 played by the block's policy (the first legal move), to
    its end or for ``moves`` decisions: the seat of every decision, the final rewards
    and the game."""
    game = Game("classic", players)
    game.reset(seed=0, index=index)
    seats = []
    while not game.is_over and len(seats) != moves:
        seats.append(game.current_player)
        game.step(int(game.legal_actions().min()))
    return seats, np.array(game.rewards, np.float32), game


def test_each_seats_final_reward_reaches_its_last_decision():
    scope: dict = {}
    exec(compile(_block(), "docs/environments.md", "exec"), scope)
    seats, reward, last = scope["seats"], scope["reward"], scope["last_of_game"]
    B, P, T = scope["B"], scope["P"], scope["T"]
    checked = 0
    for b in range(B):                         # the first game of slot b is game b
        order, final, _ = _replay(b, P)
        if len(order) > T:                     # still running at the end of the rollout
            continue
        n = len(order)
        np.testing.assert_array_equal(seats[:n, b], order)
        # by hand: the last index of each seat in the replayed game
        expected = {s: max(i for i, x in enumerate(order) if x == s) for s in set(order)}
        assert sorted(np.flatnonzero(last[:n, b]).tolist()) == sorted(expected.values())
        for s, i in expected.items():
            assert reward[i, b] == final[s]
        others = np.ones(n, bool)
        others[list(expected.values())] = False
        assert not reward[:n, b][others].any()  # every other decision: no reward
        assert abs(final.sum()) < 1e-6 and final.max() == 1.0   # a winner, zero-sum
        checked += 1
    assert checked >= B // 2                   # most first games ended within T steps


def test_each_running_game_is_bootstrapped_from_its_seats_views_now():
    scope: dict = {}
    exec(compile(_block(), "docs/environments.md", "exec"), scope)
    venv, seats, last, latest = scope["venv"], scope["seats"], scope["last_of_game"], \
        scope["latest"]
    rows, open_seats, views = scope["open_rows"], scope["open_seats"], scope["bootstrap_obs"]
    T = scope["T"]
    assert len(rows) == len(views) > 0
    for b in range(scope["B"]):
        # the game now in slot b began after the last decision of the one before
        ended = np.flatnonzero(last[:, b])
        start = ended.max() + 1 if len(ended) else 0
        order, _, game = _replay(int(venv.game_index[b]), scope["P"], moves=T - start)
        np.testing.assert_array_equal(seats[start:, b], order)
        # every seat that decided in it waits for a value, from its view of the game now
        assert sorted(open_seats[rows == b]) == sorted(set(order))
        for s, view in zip(open_seats[rows == b], views[rows == b]):
            np.testing.assert_array_equal(view, game.observe(int(s)))
            assert latest[b, s] == start + max(i for i, x in enumerate(order) if x == s)
