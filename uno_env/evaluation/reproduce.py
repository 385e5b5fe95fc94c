"""Play a benchmark card's games again and say whether the results are identical.

    >>> report = reproduce("out/card.json")      # or a stored card: reproduce("greedy")
    >>> report.identical, print(report.text())

``uno-bench benchmark --reproduce card.json`` on the command line. A card's games are a
function of its agent, its tracks (preset, rules, players, seed, panel) and its games
per member (``uno_env.evaluation.benchmark``), so playing the same agent on the same
tracks against the same members must give the same wins, seat by seat, on any machine,
thread count or backend, for the numba agents and the shipped models alike. The card's
provenance (``uno_env.provenance``) is shown beside this run's: a difference there
(another version, commit or library) is what to look at when a result differs.

The stored cards (``stored_card``) are the leaderboard's: package data under
``uno_env/evaluation/stored_cards/``, one per reference agent, written by
``benchmarks/leaderboard.py``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from uno_env.evaluation.benchmark import BENCHMARK_VERSION, BenchmarkCard, benchmark
from uno_env.provenance import describe

#: the leaderboard's stored cards (package data)
STORED_CARDS = Path(__file__).with_name("stored_cards")
#: the entries of a result that the games decide (the rest is derived from them)
COMPARED = ("games", "wins", "wins_by_seat", "truncated")


def stored_cards() -> list[str]:
    """The agents with a stored card (``stored_card(name)``)."""
    return sorted(json.loads(p.read_text())["agent"] for p in STORED_CARDS.glob("*.json"))


def stored_card(agent: str) -> dict:
    """The stored card of a reference agent (``greedy``, ``mcts:10``, ...), as its
    ``card.json`` data; ValueError naming the stored ones."""
    path = STORED_CARDS / f"{agent.replace(':', '_').replace('/', '_')}.json"
    if not path.is_file():
        raise ValueError(f"no stored card for {agent!r}; stored: "
                         f"{', '.join(stored_cards())}, or give a card.json file")
    return json.loads(path.read_text())


def load_card(source) -> dict:
    """A card's data from a ``card.json`` path or a stored card's agent name."""
    if isinstance(source, dict):
        return source
    path = Path(source)
    if path.is_file():
        try:
            return json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as err:
            raise ValueError(f"{str(source)!r} is not a card.json ({err})") from None
    if path.suffix == ".json" or "/" in str(source):
        raise ValueError(f"no card file {str(source)!r}")
    return stored_card(str(source))


@dataclass
class Reproduction:
    """The outcome of ``reproduce``: ``rows`` one per (track, member) with the card's and
    this run's result, ``identical`` when every row is."""

    card: BenchmarkCard
    again: BenchmarkCard
    rows: list = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return all(r["identical"] for r in self.rows)

    def text(self) -> str:
        kind = "" if self.card.standard else \
            f", non-standard: {self.card.games_override} games per member"
        lines = [f"reproducing the {self.card.agent!r} card ({BENCHMARK_VERSION}{kind})",
                 "the card:", *("  " + x for x in describe(self.card.provenance)),
                 "this run:", *("  " + x for x in describe(self.again.provenance)), ""]
        for r in self.rows:
            ours, theirs = r["card"], r["again"]
            state = "identical" if r["identical"] else "DIFFERENT"
            lines.append(f"{r['track']:12s} vs {r['opponent']:16s} {state}: wins "
                         f"{ours['wins']}/{ours['games']} by seat {ours['wins_by_seat']}"
                         + ("" if r["identical"] else
                            f" -> {theirs['wins']}/{theirs['games']} by seat "
                            f"{theirs['wins_by_seat']}"))
        for old, new in zip(self.card.tracks, self.again.tracks):
            if old.rating and new.rating and old.rating != new.rating:
                lines.append(f"{old.track.name}: rating {old.rating['elo']} on the card, "
                             f"{new.rating['elo']} now (other anchors)")
        n = len(self.rows)
        lines.append(f"results: {'identical' if self.identical else 'NOT identical'} "
                     f"({sum(r['identical'] for r in self.rows)} of {n} results)")
        return "\n".join(lines)


def reproduce(source, threads: int | None = None, backend: str = "local", address=None,
              progress: bool = False, anchors: dict | None = None) -> Reproduction:
    """Play the games of a card (``source``: a ``card.json`` path, its data, or a stored
    card's agent name) again: the same agent, tracks, members and games; compare every
    result (``COMPARED``). ValueError for a card of another benchmark version (its
    tracks are not this version's: ``BenchmarkCard.from_dict``)."""
    data = load_card(source)
    try:
        # a card of an earlier version (uno-bench/5) replays the games it holds, when
        # this version keeps their protocol (``BenchmarkCard.from_dict(carry=True)``)
        card = BenchmarkCard.from_dict(data, carry=True)
    except (KeyError, TypeError) as err:
        raise ValueError(f"not a benchmark card: missing {err}") from None
    played = [t for t in card.tracks if t.results]
    if not played:
        raise ValueError(f"the {card.agent!r} card holds no results to reproduce")
    again_tracks, records = [], []
    for t in played:
        again = benchmark(card.agent, t.track.name, games=card.games_override,
                          threads=threads, backend=backend, address=address,
                          progress=progress, anchors=anchors,
                          opponents=[r["opponent"] for r in t.results])
        if t.duplicate:            # the duplicate deals it played, again
            from uno_env.evaluation.benchmark import make_candidate, play_track_duplicate
            from uno_env.rules.config import make_config
            tr = t.track
            cand, _ = make_candidate(card.agent, make_config(tr.preset, tr.num_players,
                                                             **tr.rules), tr.seed)
            plan = t.duplicate.get("budget") or {}
            again.tracks[0].duplicate = play_track_duplicate(  # the same rule, same stop
                cand, tr, plan.get("planned", t.duplicate["deals"]), threads,
                budget=plan.get("rule", "full"))
        again_tracks += again.tracks
        records.append(again.provenance)
    again = BenchmarkCard(card.agent, again_tracks, card.games_override,
                          provenance=records[0])
    rows = []
    for old, new in zip(played, again_tracks):
        found = {r["opponent"]: r for r in new.results}
        for r in old.results:
            n = found[r["opponent"]]
            rows.append({"track": old.track.name, "opponent": r["opponent"], "card": r,
                         "again": n, "identical": all(r.get(k) == n.get(k)
                                                      for k in COMPARED)})
        if old.duplicate:
            a, b = old.duplicate, new.duplicate
            rows.append({"track": old.track.name, "opponent": f"{a['opponent']} (duplicate)",
                         "card": _dup_row(a), "again": _dup_row(b),
                         "identical": a["records"] == b["records"]})
    return Reproduction(card, again, rows)


def _dup_row(d: dict) -> dict:
    """A duplicate result in ``Reproduction.text``'s terms."""
    from uno_env.evaluation.duplicate import decode
    won, _ = decode(d["records"])
    return {"games": int(won.size), "wins": int(won.sum()),
            "wins_by_seat": [int(x) for x in won.sum(axis=0)]}
