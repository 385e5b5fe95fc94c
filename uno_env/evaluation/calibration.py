"""Agents of known edge, to check that the benchmark's intervals cover at their nominal
rate (``tests/evaluation/test_duplicate.py``, ``benchmarks/duplicate_calibration.py``).

``NoisyHeuristic(config, p, seed)`` plays the heuristic's move, except with probability
``p`` a uniformly random legal one, drawn from its own generator (seeded: the same
``seed`` plays the same games). Two of them with the same ``p`` and different seeds
have the same strength, so the true edge of one over the other is exactly 0, yet their
games differ: what an interval must cover 95% of the time.
"""
from __future__ import annotations

import numpy as np


class NoisyHeuristic:
    """The heuristic's move, or with probability ``p`` a random legal one."""

    def __init__(self, config, p: float = 0.1, seed: int = 0):
        from uno_env.players.registry import make_agent
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
        self.p, self.seed = float(p), int(seed)
        self.name = f"noisy_heuristic:{p:g}:{seed}"
        self.base = make_agent("heuristic", config, seed=seed)
        self.rng = np.random.default_rng(seed)

    def act_batch(self, observations, masks) -> np.ndarray:
        out = np.asarray(self.base.act_batch(observations, masks), np.int64).copy()
        flip = self.rng.random(len(out)) < self.p
        for i in np.flatnonzero(flip):
            legal = np.flatnonzero(masks[i])
            out[i] = legal[self.rng.integers(len(legal))]
        return out

    def act(self, observation, action_mask=None) -> int:
        return int(self.act_batch(np.asarray(observation)[None],
                                  np.asarray(action_mask)[None])[0])


def _play_pair(track, p, deals, seed, against, threads):
    """``NoisyHeuristic(p, seed)`` and its comparison (``coverage``) on ``deals`` deals
    of seed ``seed``."""
    import dataclasses

    from uno_env.evaluation.duplicate import play_duplicate
    from uno_env.rules.config import make_config
    config = make_config(track.preset, track.num_players, **track.rules)
    moved = dataclasses.replace(track, duplicate=dataclasses.replace(
        track.duplicate, seed=seed, deals=deals))
    # batch 1024: the games of the figures in docs/benchmark.md (a NoisyHeuristic's
    # draws from its own generator depend on the batch)
    a = play_duplicate(NoisyHeuristic(config, p, seed), moved, threads=threads,
                       batch=1024)
    b = play_duplicate(NoisyHeuristic(config, p, seed + 1) if against == "twin"
                       else against, moved, threads=threads, batch=1024)
    return a, b


def coverage(track, p: float, deals: int, blocks: int, seed: int = 0,
             against: str = "twin", threads=None) -> dict:
    """How often the 95% interval of a paired edge holds the true edge, over ``blocks``
    independent replications: ``NoisyHeuristic(p, seed)`` plays ``deals`` duplicate
    deals of seed ``seed`` (``track``'s deals moved there: unseen deals), cut into
    ``blocks`` blocks of consecutive deals, each block one replication with its own
    interval. ``against="twin"``: the edge over ``NoisyHeuristic(p, seed + 1)`` on the
    same deals, true value exactly 0; ``against="heuristic"``: over the heuristic, true
    value estimated by all the blocks pooled (``blocks`` times the games of one, so
    the truth's own error is small beside a block's interval)."""
    import dataclasses

    from uno_env.evaluation.duplicate import paired_edge, play_duplicate
    from uno_env.rules.config import make_config
    if blocks < 2 or deals % blocks:
        raise ValueError(f"deals ({deals}) must split into blocks ({blocks}) >= 2 equal "
                         f"blocks")
    a, b = _play_pair(track, p, deals, seed, against, threads)
    pooled = paired_edge(*a, *b)
    truth = {k: 0.0 if against == "twin" else pooled[k]["edge"]
             for k in ("win_rate", "points")}
    hits = {"win_rate": 0, "points": 0}
    n = deals // blocks
    for k in range(blocks):
        part = slice(k * n, (k + 1) * n)
        e = paired_edge(a[0][part], a[1][part], b[0][part], b[1][part])
        for key in hits:
            hits[key] += e[key]["ci"][0] <= truth[key] <= e[key]["ci"][1]
    return {"p": p, "against": against, "deals": deals, "blocks": blocks,
            "truth": truth, "pooled": pooled,
            **{key: hits[key] / blocks for key in hits}}


def sequential_coverage(track, p: float, deals: int, blocks: int, seed: int = 0,
                        against: str = "twin", target: float | None = None,
                        threads=None) -> dict:
    """``coverage`` of the sequential budget's stopping rule (``duplicate.
    sequential_edge``, on the win-rate edge): each block of ``deals / blocks`` deals is
    one card's planned deals, looked at after 1/8, 1/4, 1/2 and all of them. ``target``
    (the half-width that stops a card; default ``TARGET_HALF_WIDTH`` scaled to the
    block, ``* sqrt(10000 / block)``, as stringent as classic-4p's 0.4 points on its
    10,000 deals). Returns the coverage, the truth, and how many blocks stopped at each
    look and why."""
    from uno_env.evaluation.duplicate import (TARGET_HALF_WIDTH, paired_edge,
                                              sequential_edge)
    if blocks < 2 or deals % blocks:
        raise ValueError(f"deals ({deals}) must split into blocks ({blocks}) >= 2 equal "
                         f"blocks")
    n = deals // blocks
    target = TARGET_HALF_WIDTH * np.sqrt(10_000 / n) if target is None else target
    a, b = _play_pair(track, p, deals, seed, against, threads)
    d = a[0].mean(axis=1) - b[0].mean(axis=1)
    truth = 0.0 if against == "twin" else paired_edge(*a, *b)["win_rate"]["edge"]
    hits, stops, reasons = 0, {}, {}
    for k in range(blocks):
        e = sequential_edge(d[k * n:(k + 1) * n], target=target)
        hits += e["ci"][0] - 1e-9 <= truth <= e["ci"][1] + 1e-9
        stops[e["deals"]] = stops.get(e["deals"], 0) + 1
        why = e["reason"].split(":")[0].split(" (")[0]
        reasons[why] = reasons.get(why, 0) + 1
    return {"p": p, "against": against, "deals": deals, "blocks": blocks,
            "target": target, "truth": truth, "coverage": hits / blocks,
            "stops": dict(sorted(stops.items())), "reasons": reasons}
