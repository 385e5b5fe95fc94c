"""docs/environments.md's self-play block (``EverySeatBatch``): run as written, its
credit assignment is checked against the same games replayed move by move with ``Game``:
each seat's final reward lands on that seat's last decision of the game, and nowhere
else."""
import re

import numpy as np

from support import ROOT
from uno_env import Game


def _block() -> str:
    page = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", page, re.S)
                if "last_of_game" in b]
    return block


def _replay(index: int, players: int):
    """Game ``index`` of seed 0 played by the block's policy (the first legal move):
    the seat of every decision and the final rewards."""
    game = Game("classic", players)
    game.reset(seed=0, index=index)
    seats = []
    while not game.is_over:
        seats.append(game.current_player)
        game.step(int(game.legal_actions().min()))
    return seats, np.array(game.rewards, np.float32)


def test_each_seats_final_reward_reaches_its_last_decision():
    scope: dict = {}
    exec(compile(_block(), "docs/environments.md", "exec"), scope)
    seats, reward, last = scope["seats"], scope["reward"], scope["last_of_game"]
    B, P, T = scope["B"], scope["P"], scope["T"]
    checked = 0
    for b in range(B):                         # the first game of slot b is game b
        order, final = _replay(b, P)
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
