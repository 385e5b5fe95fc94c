"""Duplicate play: the 4-player tracks' paired comparison (``uno-bench/6``).

A track's ``Duplicate`` fixes a seed, a number of deals and an opponent (``heuristic``).
Deal ``j`` is game ``j`` of that seed, played once with the agent in each seat, the
opponent in the other seats: every agent holds every hand of every deal, against the
same opponents, from the same random stream (one stream per game carries the shuffle,
the reshuffles and every agent's own random draws, ``uno_env.engine.rng``), so two
identical agents play identical games. The reference agents (the track's panel) played
these deals once; their per-game results are stored with the track
(``duplicate_refs/<track>.npz``), so a card plays only the candidate's games, and its
**paired edge** over a reference is the mean over deals of (the agent's wins over the
four seats minus the reference's), with a 95% interval from those per-deal differences
(the deal is the unit: its four games are not independent).

Records. ``encode``/``decode`` turn ``won`` (bool ``[deals, seats]``) and ``points``
(the agent's round points, ``[deals, seats]``) into two short strings for ``card.json``,
so two cards of the same track compare game by game (``compare``).
"""
from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import numpy as np

from uno_env.evaluation.stats import Z95

#: the stored references' results, one ``.npz`` per 4-player track
REFERENCES_DIR = Path(__file__).with_name("duplicate_refs")


def _lineups(agent: str, opponent: str, num_players: int) -> list[tuple]:
    return [tuple(agent if s == seat else opponent for s in range(num_players))
            for seat in range(num_players)]


#: games a Python agent's duplicate deals play at once (``tournament._play_batched``):
#: 4x the tournament's 1024 halves their time (ppo_classic_4p, 2,048 deals, the same
#: games), the per-step cost of the batch (four seats' calls and a step) amortised
DUPLICATE_BATCH = 4096


def play_duplicate(agent, track, deals: int | None = None, threads: int | None = None,
                   bar=None, start: int = 0,
                   batch: int = DUPLICATE_BATCH) -> tuple[np.ndarray, np.ndarray]:
    """``agent`` (a numba agent's name, or an object with ``act_batch``: ``make_candidate``)
    on ``track``'s duplicate deals ``start .. deals - 1`` (default: ``0 ..`` the track's),
    one game per deal and seat: ``(won bool[deals - start, P], points int32[...])``, the
    agent's win and round points with the agent in seat ``s`` of deal ``start + j`` at
    ``[j, s]`` (deal ``j`` is the same game whatever ``start``: a sequential budget plays
    its looks as consecutive ranges). ``batch``: a Python agent's games at once (the
    same games whatever it is, unless the agent keeps a state across calls, like
    ``NoisyHeuristic``'s own generator)."""
    from uno_env.evaluation.tournament import CHUNK, _play_chunk
    dup = track.duplicate
    if dup is None:
        raise ValueError(f"track {track.name!r} has no duplicate deals (4-player tracks "
                         f"only)")
    n = dup.deals if deals is None else int(deals)
    if n < 1 or n > dup.deals:
        raise ValueError(f"deals must be in 1..{dup.deals} on {track.name!r}, got {deals!r}")
    if not 0 <= start < n:
        raise ValueError(f"start must be in 0..{n - 1}, got {start!r}")
    p = track.num_players
    me, python = agent, {}
    if not isinstance(agent, str):
        me = "__agent__"
        python[me] = agent
    won = np.zeros((n - start, p), np.bool_)
    points = np.zeros((n - start, p), np.int32)
    for seat, lineup in enumerate(_lineups(me, dup.opponent, p)):
        for lo in range(start, n, CHUNK):
            hi = min(lo + CHUNK, n)
            winner, pts, _ = _play_chunk(track.preset, p, lineup, python, hi - lo, dup.seed,
                                         lo, threads, track.rules, batch)
            won[lo - start:hi - start, seat] = winner == seat
            points[lo - start:hi - start, seat] = pts[:, seat]
            if bar is not None:
                bar.update(hi - lo)
    return won, points


# --- the stored references -------------------------------------------------------------
def _meta(track) -> dict:
    return {"track": track.name, "preset": track.preset, "num_players": track.num_players,
            "rules": dict(track.rules), **track.duplicate.to_dict()}


def save_references(track, results: dict, path=None, record: dict | None = None) -> Path:
    """Store ``{member: (won, points)}`` (``play_duplicate``) for ``track``, with the
    ``uno_env.provenance`` ``record`` of the run that played them."""
    path = Path(path) if path is not None else REFERENCES_DIR / f"{track.name}.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {"meta": np.array(json.dumps(_meta(track)))}
    if record is not None:
        arrays["provenance"] = np.array(json.dumps(record))
    for name, (won, points) in results.items():
        arrays[f"{name}__won"] = np.packbits(won.astype(np.bool_), axis=None)
        arrays[f"{name}__points"] = points.astype(np.int16)
    np.savez_compressed(path, **arrays)
    return path


def load_references(track, path=None, provenance: dict | None = None) -> dict:
    """``{member: (won bool[deals, P], points int32[deals, P])}``: the panel's stored
    results on ``track``'s duplicate deals; empty when none are stored. ValueError when
    the stored file was played under another definition of the deals. ``provenance``
    (a dict) receives the record of the run that played them, when stored."""
    path = Path(path) if path is not None else REFERENCES_DIR / f"{track.name}.npz"
    if track.duplicate is None or not path.is_file():
        return {}
    with np.load(path) as z:
        meta = json.loads(str(z["meta"]))
        if meta != _meta(track):
            raise ValueError(f"{path}: stored for {meta}, not for the track's duplicate "
                             f"deals {_meta(track)}: run benchmarks/duplicate_refs.py")
        out = {}
        if "provenance" in z.files and provenance is not None:
            provenance.update(json.loads(str(z["provenance"])))
        for key in z.files:
            if key.endswith("__won"):
                name = key[:-len("__won")]
                pts = z[f"{name}__points"].astype(np.int32)
                won = np.unpackbits(z[key], count=pts.size).astype(np.bool_)
                out[name] = (won.reshape(pts.shape), pts)
    return out


# --- paired edges ----------------------------------------------------------------------
def t95(dof: int) -> float:
    """The two-sided 95% quantile of Student's t with ``dof`` degrees of freedom
    (Cornish-Fisher expansion around the normal's: 3.159 for 3 degrees, not 3.182; within 0.001 from 19 degrees on;
    1.960 in the limit), so a card on few deals gets an honest interval."""
    return t_quantile(dof, Z95)


def t_quantile(dof: int, z: float) -> float:
    """Student's t quantile with ``dof`` degrees of freedom at the level of the normal
    quantile ``z`` (``t95``'s expansion; ``z_two_sided`` gives ``z`` for a level)."""
    v = float(dof)
    return z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v * v) \
        + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3)


def z_two_sided(alpha: float) -> float:
    """The normal quantile of a two-sided interval of level ``1 - alpha``."""
    from statistics import NormalDist
    return NormalDist().inv_cdf(1.0 - alpha / 2.0)


def _mean_ci(d: np.ndarray, z: float = Z95) -> dict:
    mean = float(d.mean())
    half = float(t_quantile(len(d) - 1, z) * d.std(ddof=1) / np.sqrt(len(d))) \
        if len(d) > 1 else float("inf")
    return {"edge": round(mean, 6), "ci": [round(mean - half, 6), round(mean + half, 6)],
            "sd": round(float(d.std(ddof=1)) if len(d) > 1 else 0.0, 6)}


def paired_edge(won, points, ref_won, ref_points, z: float = Z95) -> dict:
    """The edge of ``won``/``points`` over the reference's, on the same deals and seats
    (the first ``len(won)`` deals of both): win rate and mean round points per game,
    each with a 95% interval from the per-deal differences (the mean over the seats);
    ``z`` another level's normal quantile (a sequential budget's look: ``Sequential``)."""
    n = len(won)
    if len(ref_won) < n or won.shape[1:] != ref_won.shape[1:]:
        raise ValueError(f"the reference holds {ref_won.shape} games, fewer than the "
                         f"agent's {won.shape}")
    dw = won.mean(axis=1) - ref_won[:n].mean(axis=1)
    dp = points.mean(axis=1) - ref_points[:n].mean(axis=1)
    return {"deals": n, "games": int(won.size), "win_rate": _mean_ci(dw, z),
            "points": _mean_ci(dp, z)}


# --- budgets by cost: a sequential design ---------------------------------------------
#: a sequential budget's looks: after these fractions of the planned deals (a prefix of
#: the track's deal order, so a card stopped early compares game by game with any other)
LOOK_DIVISORS = (8, 4, 2, 1)
#: the error an interim look spends (two-sided); the last look spends the rest of ALPHA
INTERIM_ALPHA = 0.005
ALPHA = 0.05
#: stop once the headline interval (the edge over the track's opponent, in win rate) is
#: at most this wide each side: 0.4 points of win rate, the classic-4p target
TARGET_HALF_WIDTH = 0.004


def sequential_looks(planned: int) -> list[tuple[int, float]]:
    """``[(deals, z)]``: the looks of a sequential budget of ``planned`` deals (1/8, 1/4,
    1/2 and all of them, at least 2 deals each) and the normal quantile of each look's
    interval: ``INTERIM_ALPHA`` spent at every interim look, the rest of ``ALPHA`` at the
    last. By Bonferroni's inequality the chance that any look's interval misses the true
    edge is at most the sum, ``ALPHA``, so the interval at whichever look the card stops
    covers with at least 95%, whatever the stopping rule looked at."""
    planned = int(planned)
    if planned < 1:
        raise ValueError(f"a sequential budget needs at least 1 deal, got {planned!r}")
    ns = sorted({-(-planned // k) for k in LOOK_DIVISORS})
    ns = [n for n in ns if n >= 2 or n == planned]
    alphas = [INTERIM_ALPHA] * (len(ns) - 1) + [ALPHA - INTERIM_ALPHA * (len(ns) - 1)]
    return [(n, z_two_sided(a)) for n, a in zip(ns, alphas)]


def stop_reason(win_rate: dict, last: bool, target: float = TARGET_HALF_WIDTH) -> str | None:
    """Why a sequential budget stops at a look whose headline edge (``paired_edge``'s
    ``win_rate``, at the look's quantile) is ``win_rate``; None: play on."""
    lo, hi = win_rate["ci"]
    half = (hi - lo) / 2
    if half <= target:
        return (f"interval narrow enough: +-{100 * half:.2f} <= +-{100 * target:.2f} "
                f"points of win rate")
    if lo > 0 or hi < 0:
        return f"the edge excludes 0 ({'above' if lo > 0 else 'below'})"
    return "the last look: every planned deal" if last else None


def sequential_edge(d: np.ndarray, planned: int | None = None,
                    target: float = TARGET_HALF_WIDTH) -> dict:
    """The sequential rule on per-deal differences ``d`` (in deal order; the first
    ``planned`` of them, default all): ``{"deals", "reason", "edge", "ci", "z"}`` at the
    look where it stops. What ``play_track_duplicate`` does with the headline edge, for
    testing the rule's coverage on many replications cheaply."""
    d = np.asarray(d, np.float64)
    planned = len(d) if planned is None else int(planned)
    looks = sequential_looks(planned)
    for i, (n, z) in enumerate(looks):
        e = _mean_ci(d[:n], z)
        why = stop_reason(e, i == len(looks) - 1, target)
        if why:
            return {"deals": n, "reason": why, "edge": e["edge"], "ci": e["ci"], "z": z}
    raise AssertionError("the last look always stops")


# --- records in card.json --------------------------------------------------------------
def _pack(a: np.ndarray) -> str:
    return base64.b64encode(zlib.compress(a.tobytes(), 9)).decode("ascii")


def encode(won: np.ndarray, points: np.ndarray) -> dict:
    """``won``/``points`` as ``card.json`` strings: ``{"deals", "seats", "won", "points"}``
    (deal-major, seat-minor: game ``j * seats + s`` is deal ``j``, seat ``s``; ``won``
    bit-packed, ``points`` int16 little-endian; both zlib, base64)."""
    return {"deals": int(won.shape[0]), "seats": int(won.shape[1]),
            "won": _pack(np.packbits(won.astype(np.bool_), axis=None)),
            "points": _pack(points.astype("<i2"))}


def decode(record: dict) -> tuple[np.ndarray, np.ndarray]:
    """``encode``'s inverse: ``(won bool[deals, seats], points int32[deals, seats])``."""
    shape = (int(record["deals"]), int(record["seats"]))
    raw = np.frombuffer(zlib.decompress(base64.b64decode(record["won"])), np.uint8)
    won = np.unpackbits(raw, count=shape[0] * shape[1]).astype(np.bool_).reshape(shape)
    pts = np.frombuffer(zlib.decompress(base64.b64decode(record["points"])), "<i2")
    return won, pts.astype(np.int32).reshape(shape)


# --- comparing two agents on the same deals --------------------------------------------
def _card_records(source) -> dict:
    """``{track: (won, points)}`` of a card (a ``card.json``, its folder, or its data)."""
    if isinstance(source, dict):
        data = source
    else:
        path = Path(source)
        if path.is_dir():
            path = path / "card.json"
        if not path.is_file():
            raise ValueError(f"no card at {str(source)!r} (a card.json or its folder)")
        data = json.loads(path.read_text())
    out = {}
    for t in data.get("tracks", ()):
        d = t.get("duplicate")
        if d and d.get("records"):
            out[t["track"]["name"]] = (decode(d["records"]), t["track"].get("duplicate"),
                                       data.get("name") or data.get("agent"))
    return out


def compare_cards(a, b) -> list[dict]:
    """The paired edge of card ``a``'s agent over card ``b``'s on every track both
    played duplicate deals of (the same deals: the first ``min`` of both); ValueError
    when they share none."""
    ra, rb = _card_records(a), _card_records(b)
    rows = []
    for name in ra:
        if name not in rb:
            continue
        (wa, pa), deals_a, agent_a = ra[name]
        (wb, pb), deals_b, agent_b = rb[name]
        if deals_a != deals_b:
            raise ValueError(f"{name}: the cards played different duplicate deals "
                             f"({deals_a} and {deals_b}): not comparable game by game")
        n = min(len(wa), len(wb))
        rows.append({"track": name, "agent": agent_a, "reference": agent_b,
                     **paired_edge(wa[:n], pa[:n], wb[:n], pb[:n])})
    if not rows:
        raise ValueError("the two cards share no track with duplicate deals (cards of "
                         "uno-bench/6 on a 4-player track hold them)")
    return rows


def edge_line(row: dict) -> str:
    """A ``compare`` row in words."""
    w, p = row["win_rate"], row["points"]
    told = "above" if w["ci"][0] > 0 else "below" if w["ci"][1] < 0 else "not told apart from"
    return (f"{row['track']}: {row['agent']} over {row['reference']}, {row['deals']:,} "
            f"deals ({row['games']:,} games each): {100 * w['edge']:+.2f} points of win "
            f"rate [{100 * w['ci'][0]:+.2f}, {100 * w['ci'][1]:+.2f}], {p['edge']:+.2f} "
            f"round points [{p['ci'][0]:+.2f}, {p['ci'][1]:+.2f}]: {told}")
