"""Behaviour lock: seeded runs of every preset hash to the values in ``golden_hashes.json``.

Each case plays seeded games through one API and hashes everything they produce:
``simulate`` (winners, turns, decisions, points and every counter of every game, for
several agent line-ups), ``EverySeatBatch`` (observations, masks, rewards and flags of every
step with seeded random legal actions), the learner path (``LearnerBatch`` against numba
opponents) and ``Game`` (the move log of a seeded random game). A refactor keeps every
hash; a rules fix changes the hashes of the presets it touches, in its own commit that
says why. Regenerate after such a fix with::

    python tests/engine/test_golden.py --write
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from support import GOLDEN_HASHES

GOLDEN = GOLDEN_HASHES

PRESETS = ("classic", "classic112", "flip", "street", "progressive", "seven_o", "jump_in",
           "strict", "multi", "teams", "chaos", "onepiece")
#: (players, agents per seat); teams is four players only
LINEUPS = {
    2: (("random", "random"), ("heuristic", "greedy")),
    3: (("random", "greedy", "heuristic"),),
    4: (("random",) * 4, ("heuristic", "greedy", "random", "heuristic"),
        ("greedy",) * 4),
}
#: a few non-default rule flags per variant, so the golden set covers them too
RULE_CASES = (
    ("classic", 4, {"target_score": 200, "scoring": "penalty", "bluff": False}),
    ("classic", 3, {"uno_call": False, "reward": "score"}),
    ("teams", 4, {"target_score": 300}),
    ("flip", 3, {"bluff": False, "target_score": 250}),
    ("onepiece", 4, {"challenge": "classic", "bbd_challenge": True,
                     "shanks_give": "two_players"}),
    ("onepiece", 2, {"scoring": "elimination", "target_score": 100}),
    ("classic112", 4, {"wx_rule": "swap", "ws_last_card_wins": True}),
)
NUM_GAMES = 120


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:20]


def _simulate_hash(preset, players, agents, **rules) -> str:
    from uno_env.evaluation.simulation import simulate
    r = simulate(preset, players, agents=agents, num_games=NUM_GAMES, seed=2026,
                 threads=1, **rules)
    counters = np.stack([r.counters[k] for k in sorted(r.counters)])
    return _digest(r.winner, r.turns, r.steps, r.points, counters)


def _vector_hash(preset, players, **rules) -> str:
    from uno_env.envs.every_seat import EverySeatBatch
    env = EverySeatBatch(6, preset, num_players=players, seed=7, **rules)
    rng = np.random.default_rng(11)
    out = list(env.reset())
    for _ in range(150):
        out += list(env.step(env.random_actions(rng)))
    return _digest(*out)


def _learner_hash(preset, players, opponents, **rules) -> str:
    from uno_env.envs.single_seat import LearnerBatch
    batch = LearnerBatch(5, preset, num_players=players, opponents=opponents, seed=3, **rules)
    rng = np.random.default_rng(5)
    batch.reset()
    parts = [batch.obs.copy(), batch.mask.copy()]
    for _ in range(120):
        mask = batch.mask
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        out = batch.step(actions)
        parts += [np.asarray(x).copy() for x in out]
        parts += [batch.obs.copy(), batch.final_obs.copy(), batch.learner_seat.copy()]
    return _digest(*parts)


def _search_hash(preset, players) -> str:
    """A searching seat (``mcts``) among heuristics: its rollouts copy and determinize
    the state (a field left out of the copy once changed every search game)."""
    from uno_env.evaluation.simulation import simulate
    agents = ("mcts:30",) + ("heuristic",) * (players - 1)
    r = simulate(preset, players, agents=agents, num_games=12, seed=2026, threads=1)
    return _digest(r.winner, r.turns, r.steps, r.points)


def _game_hash(preset, players, **rules) -> str:
    from uno_env.envs.game import Game
    rng = np.random.default_rng(13)
    log = []
    for index in range(3):
        g = Game(preset, num_players=players, seed=99, **rules)
        g.reset(99, index=index)
        for _ in range(400):
            moves = sorted(g.legal_moves())
            if not moves:
                break
            move = moves[int(rng.integers(len(moves)))]
            log.append(f"{g.current_player}:{move}")
            g.play(move)
        log.append(f"winner={g.winner} points={list(g.round_points)}")
    return hashlib.sha256("\n".join(log).encode()).hexdigest()[:20]


def cases() -> dict[str, tuple]:
    """Case name -> (function, args, kwargs)."""
    out = {}
    for preset in PRESETS:
        for players, lineups in LINEUPS.items():
            if preset == "teams" and players != 4:
                continue
            for agents in lineups:
                out[f"simulate/{preset}/{players}p/{','.join(agents)}"] = (
                    _simulate_hash, (preset, players, agents), {})
        out[f"vector/{preset}/4p"] = (_vector_hash, (preset, 4), {})
        out[f"learner/{preset}/4p/heuristic"] = (_learner_hash, (preset, 4, "heuristic"), {})
        if preset != "teams":
            out[f"learner/{preset}/2p/random"] = (_learner_hash, (preset, 2, "random"), {})
        out[f"game/{preset}/{2 if preset != 'teams' else 4}p"] = (
            _game_hash, (preset, 2 if preset != "teams" else 4), {})
    for preset in ("classic", "flip"):
        out[f"search/{preset}/4p/mcts"] = (_search_hash, (preset, 4), {})
    for preset, players, rules in RULE_CASES:
        flags = ",".join(f"{k}={v}" for k, v in sorted(rules.items()))
        out[f"simulate/{preset}/{players}p/mixed/{flags}"] = (
            _simulate_hash, (preset, players, ("heuristic",) + ("random",) * (players - 1)),
            rules)
        out[f"vector/{preset}/{players}p/{flags}"] = (_vector_hash, (preset, players), rules)
    return out


def _load() -> dict[str, str]:
    return json.loads(GOLDEN.read_text())


CASES = cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    golden = _load()
    assert name in golden, f"no golden hash for {name}: regenerate (module docstring)"
    fn, args, kwargs = CASES[name]
    assert fn(*args, **kwargs) == golden[name], (
        f"{name}: seeded behaviour changed. A refactor must keep it; a rules fix "
        f"regenerates golden_hashes.json in its own commit (module docstring)")


def test_golden_file_covers_every_case():
    assert sorted(_load()) == sorted(CASES)


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python tests/engine/test_golden.py --write")
    result = {name: fn(*args, **kwargs) for name, (fn, args, kwargs) in sorted(CASES.items())}
    GOLDEN.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(result)} hashes to {GOLDEN}")
