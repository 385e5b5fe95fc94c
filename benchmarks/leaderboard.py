"""Regenerate the leaderboard: every reference agent's report card, the panel's anchor
ratings, ``docs/leaderboard.md`` and the README's headline table.

    python benchmarks/leaderboard.py                         # play every reference card
    python benchmarks/leaderboard.py --play random,greedy,heuristic --tracks all
    python benchmarks/leaderboard.py --play mcts:10 --tracks classic-2p
    python benchmarks/leaderboard.py --play none             # refit and rewrite only
    python benchmarks/leaderboard.py --complete              # only the missing games

``--complete`` plays, for every stored card (``--play`` narrows the agents), only the
games against panel members missing from it: after a version that adds a member and
changes nothing else, a stored card of the earlier version is carried over (its games
are the same games, ``BenchmarkCard.from_dict(carry=True)`` checks the protocol) and
gains its results against the new member alone.

Steps: (1) play the cards asked for (``uno_env.evaluation.benchmark.benchmark``, the standard
protocol) and store each agent's raw card in ``uno_env/evaluation/stored_cards/``
(package data; a track played again replaces the stored one); (2) fit every track's anchors (the panel's ratings, ``random``
fixed at 0) by maximum likelihood over the stored cards of panel members, and write
``uno_env/evaluation/benchmark_anchors.json``; (3) rate every stored card against the new anchors,
and write ``docs/leaderboard.md`` (cards, PNGs under ``docs/figures/cards/``; the spread
per track, a table and ``docs/figures/leaderboard.png``) and the README's tables between
its ``leaderboard`` markers.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import time

from uno_env.evaluation.benchmark import (ANCHOR_ZERO, ANCHORS_PATH, BENCHMARK_VERSION, TRACKS,
                               BenchmarkCard, benchmark, fit_ratings, get_tracks,
                               win_probability)

ROOT = pathlib.Path(__file__).resolve().parents[1]
CARDS = ROOT / "uno_env" / "evaluation" / "stored_cards"  # package data
PAGE = ROOT / "docs" / "leaderboard.md"
FIGURES = ROOT / "docs" / "figures" / "cards"
SPREAD_FIGURE = ROOT / "docs" / "figures" / "leaderboard.png"
README = ROOT / "README.md"
MARKERS = ("<!-- leaderboard:start -->", "<!-- leaderboard:end -->")


def reference_agents() -> list[str]:
    """Every panel member of every track, in panel order."""
    out: list[str] = []
    for t in TRACKS.values():
        out += [m for m in t.panel if m not in out]
    return out


def _file(agent: str) -> str:
    return agent.replace(":", "_").replace("/", "_")


def stored_cards() -> dict[str, BenchmarkCard]:
    cards = {}
    for path in sorted(CARDS.glob("*.json")):
        card = BenchmarkCard.from_dict(json.loads(path.read_text()), carry=True)
        cards[card.agent] = card
    return cards


def play(agents, tracks, threads) -> None:
    CARDS.mkdir(parents=True, exist_ok=True)
    for agent in agents:
        start = time.perf_counter()
        card = benchmark(agent, [t.name for t in tracks], threads=threads, progress=True,
                         anchors={})
        print(f"{agent}: {time.perf_counter() - start:.0f} s "
              f"({', '.join(f'{t.track.name} {t.seconds:.0f} s' for t in card.tracks)})",
              flush=True)
        path = CARDS / f"{_file(agent)}.json"
        if path.exists():          # keep the tracks not played now
            old = BenchmarkCard.from_dict(json.loads(path.read_text()), carry=True)
            played = {t.track.name for t in card.tracks}
            card.tracks = [t for t in old.tracks if t.track.name not in played] + card.tracks
            order = list(TRACKS)
            card.tracks.sort(key=lambda t: order.index(t.track.name))
            card.seconds = sum(t.seconds for t in card.tracks)
        path.write_text(json.dumps(card.to_dict(), indent=2) + "\n")


def duplicate_for(agent: str, track, threads=None, play_missing: bool = True):
    """``TrackResult.duplicate`` of ``agent`` on ``track``: a panel member's are its
    stored reference results (the same games: ``play_duplicate`` made them, and
    ``tests/evaluation/test_duplicate.py`` replays a slice of them); any other agent's
    are played (None when ``play_missing`` is false)."""
    from uno_env.evaluation.benchmark import make_candidate, play_track_duplicate
    from uno_env.evaluation.duplicate import encode, load_references, paired_edge
    from uno_env.rules.config import make_config
    record: dict = {}
    refs = load_references(track, provenance=record)
    if agent in refs:
        won, points = refs[agent]
        return {"deals": int(won.shape[0]), "games": int(won.size),
                "opponent": track.duplicate.opponent,
                "win_rate": round(float(won.mean()), 6),
                "points": round(float(points.mean()), 4),
                "edges": {m: paired_edge(won, points, *refs[m]) for m in track.panel
                          if m in refs},
                "records": encode(won, points), "seconds": 0.0,
                "from": "the stored reference results (benchmarks/duplicate_refs.py)",
                "provenance": record or None}
    if not play_missing:
        return None
    config = make_config(track.preset, track.num_players, **track.rules)
    cand, _ = make_candidate(agent, config, track.seed)
    return play_track_duplicate(cand, track, track.duplicate.deals, threads)


def complete(agents, threads, play_duplicates: bool = True) -> None:
    """Play every stored card's missing games (its tracks' panel members it has not
    played, and its duplicate deals on the 4-player tracks: a panel member's are the
    stored references, another agent's are played unless ``play_duplicates`` is false)
    and store the card again, results in panel order."""
    for agent, card in stored_cards().items():
        if agents is not None and agent not in agents:
            continue
        for t in card.tracks:
            if t.track.duplicate and not t.skipped and t.duplicate is None:
                start = time.perf_counter()
                t.duplicate = duplicate_for(agent, t.track, threads, play_duplicates)
                if t.duplicate is not None:
                    print(f"{agent}: {t.track.name} duplicate deals "
                          f"{time.perf_counter() - start:.0f} s", flush=True)
            if not t.missing:
                continue
            start = time.perf_counter()
            new = benchmark(agent, t.track.name, threads=threads, progress=True,
                            anchors={}, opponents=t.missing).tracks[0]
            order = list(t.track.panel)
            t.results = sorted(t.results + new.results,
                               key=lambda r: order.index(r["opponent"]))
            t.seconds += new.seconds
            card.seconds += new.seconds
            print(f"{agent}: {t.track.name} against {', '.join(r['opponent'] for r in new.results)}"
                  f" {time.perf_counter() - start:.0f} s", flush=True)
        (CARDS / f"{_file(agent)}.json").write_text(json.dumps(card.to_dict(), indent=2) + "\n")


def fit_anchors(cards: dict[str, BenchmarkCard]) -> dict:
    """Every track's panel ratings from the stored standard cards of panel members."""
    out = {"benchmark": BENCHMARK_VERSION, "fixed": {ANCHOR_ZERO: 0.0}, "tracks": {}}
    for name, track in TRACKS.items():
        pairs, used = [], []
        for card in cards.values():
            if not card.standard or card.agent not in track.panel:
                continue
            for t in card.tracks:
                if t.track.name == name and not t.skipped:
                    pairs += [(card.agent, r["opponent"], r["wins"], r["games"])
                              for r in t.results]
                    used.append(card.agent)
        members = {x for a, b, _, _ in pairs for x in (a, b)}
        if not pairs or set(track.panel) - members:
            continue
        fit = fit_ratings(pairs, track.num_players, {ANCHOR_ZERO: 0.0})
        out["tracks"][name] = {
            "ratings": {m: 0.0 if m == ANCHOR_ZERO else round(fit[m][0], 1)
                        for m in track.panel},
            "standard_errors": {m: round(fit[m][1], 1) for m in track.panel if m in fit},
            "cards": used, "games": int(sum(p[3] for p in pairs))}
    return out


def _cell(card, track) -> str:
    for t in card.tracks:
        if t.track.name == track:
            if t.skipped:
                return "n/a"
            r = t.rating
            return "-" if r is None else f"{r['elo']:.0f} [{r['ci_low']:.0f}, {r['ci_high']:.0f}]"
    return "not run yet"


def headline_table(cards) -> str:
    lines = ["| agent | " + " | ".join(TRACKS) + " |", "|---|" + "---|" * len(TRACKS)]
    lines += [f"| {a} | " + " | ".join(_cell(c, t) for t in TRACKS) + " |"
              for a, c in cards.items()]
    return "\n".join(lines)


def _edge_cell(card, track) -> str:
    for t in card.tracks:
        if t.track.name == track:
            if t.skipped:
                return "n/a"
            e = (t.duplicate or {}).get("edges", {}).get(t.track.duplicate.opponent)
            if e is None:
                return "-"
            w = e["win_rate"]
            return (f"{100 * w['edge']:+.2f} [{100 * w['ci'][0]:+.2f}, "
                    f"{100 * w['ci'][1]:+.2f}]")
    return "not run yet"


def edge_table(cards) -> str:
    """Every card's paired edge over ``heuristic`` on every 4-player track."""
    names = [t for t, tr in TRACKS.items() if tr.duplicate]
    lines = ["| agent | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    lines += [f"| {a} | " + " | ".join(_edge_cell(c, t) for t in names) + " |"
              for a, c in cards.items()]
    return "\n".join(lines)


def rated(cards, track: str) -> list[tuple[str, float, float, float]]:
    """``(agent, elo, ci_low, ci_high)`` of every card rated on ``track``."""
    return [(a, t.rating["elo"], t.rating["ci_low"], t.rating["ci_high"])
            for a, c in cards.items() for t in c.tracks
            if t.track.name == track and t.rating is not None]


def spread_table(cards) -> str:
    """Per track, the spread of the rated cards: the strongest against ``heuristic``, in
    rating points and as the win rate the rating model gives the strongest against
    ``heuristic`` in every other seat, and the median width of a 95% interval."""
    lines = ["| track | strongest | rating [95%] | heuristic | strongest - heuristic | "
             "its win rate vs heuristic (model) | median 95% interval width |",
             "|---|---|---|---|---:|---:|---:|"]
    for name, track in TRACKS.items():
        rows = rated(cards, name)
        heur = next((r for r in rows if r[0] == "heuristic"), None)
        if not rows or heur is None:
            continue
        top = max(rows, key=lambda r: r[1])
        widths = sorted(r[3] - r[2] for r in rows)
        lines.append(f"| {name} | {top[0]} | {top[1]:.0f} [{top[2]:.0f}, {top[3]:.0f}] | "
                     f"{heur[1]:.0f} [{heur[2]:.0f}, {heur[3]:.0f}] | {top[1] - heur[1]:+.0f} "
                     f"| {win_probability(top[1], heur[1], track.num_players):.3f} "
                     f"(chance {1 / track.num_players:.2f}) | {widths[len(widths) // 2]:.0f} |")
    return "\n".join(lines)


def write_spread_figure(cards) -> None:
    """``docs/figures/leaderboard.png``: every rated card per track with its 95% interval
    (``random``, far below, left out)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from uno_env.evaluation.plots import ratings_plot
    fig = ratings_plot({t: [r for r in rated(cards, t) if r[0] != ANCHOR_ZERO]
                        for t in TRACKS},
                       f"{BENCHMARK_VERSION}: anchored ratings with 95% intervals "
                       f"(random, far below, left out)")
    fig.savefig(SPREAD_FIGURE, dpi=110)
    plt.close(fig)


def write_page(cards, anchors) -> None:
    FIGURES.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Leaderboard", "",
        f"Benchmark version `{BENCHMARK_VERSION}` (the protocol: "
        "[The benchmark](benchmark.md)). Generated by `python benchmarks/leaderboard.py` "
        "from the stored cards in `uno_env/evaluation/stored_cards/`; do not edit by hand.", "",
        "## Headline: the anchored rating", "",
        "Elo scale, `random` = 0 on every track, 95% interval in brackets; `n/a`: a "
        "model made for another game; `not run yet`: the card has not been played on "
        "that track.", "", headline_table(cards), "",
        "## The spread", "",
        "How far the strongest card on each track sits above `heuristic`, and how wide "
        "an interval is: two agents whose ratings differ by less than about half the "
        "interval width are not told apart by one card.", "", spread_table(cards), "",
        f"![{BENCHMARK_VERSION}: every card's rating with its 95% interval]"
        f"(figures/{SPREAD_FIGURE.name})", "",
        "## Paired edges over the heuristic (4 players)", "",
        "The headline of a 4-player track since `uno-bench/6`: on the track's duplicate "
        "deals (every deal played with the agent in each seat against three "
        "`heuristic`, the same games for every agent), the agent's win rate minus "
        "the heuristic's, in points of win rate, with its 95% interval from the "
        "per-deal differences ([The benchmark](benchmark.md), \"Duplicate play\"). "
        "`-`: the card has not played the deals.", "", edge_table(cards), "",
        "## The anchors (the panel's fixed ratings)", "",
        "Fitted by maximum likelihood over the panel members' cards below; every "
        "evaluated agent is rated against these, which stay fixed.", "",
        "| member | " + " | ".join(TRACKS) + " |", "|---|" + "---|" * len(TRACKS)]
    members = reference_agents()
    for m in members:
        cells = []
        for t in TRACKS:
            entry = anchors["tracks"].get(t)
            if m not in TRACKS[t].panel:
                cells.append("absent" if m in TRACKS[t].absent else "")
            elif entry is None:
                cells.append("not fitted")
            else:
                cells.append(f"{entry['ratings'][m]:.0f}")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    absent = sorted({m for t in TRACKS.values() for m in t.absent})
    if absent:
        lines += ["", f"Not in this version's panel (no anchor rating yet): "
                  f"{', '.join(absent)}."]
    lines += ["", "## Cards", ""]
    for agent, card in cards.items():
        png = FIGURES / f"{_file(agent)}.png"
        card.plot(png)
        lines += [card.markdown(heading="###"), "",
                  f"![{agent}: win rates](figures/cards/{png.name})", ""]
    PAGE.write_text("\n".join(lines).rstrip() + "\n")


def write_readme(cards) -> None:
    text = README.read_text()
    start, end = MARKERS
    if start not in text:
        raise SystemExit(f"README.md has no {start} marker")
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1]
    README.write_text(f"{head}{start}\n{headline_table(cards)}\n\nThe spread per track "
                      f"([the figure](docs/figures/{SPREAD_FIGURE.name})):\n\n"
                      f"{spread_table(cards)}\n{end}{tail}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--play", default="all", help="comma-separated agents to play, all "
                    "(every reference agent) or none")
    ap.add_argument("--tracks", default="all", help="tracks to play them on (comma-"
                    "separated or all)")
    ap.add_argument("--complete", action="store_true", help="play only the stored "
                    "cards' missing games (of the --play agents, or every card)")
    ap.add_argument("--no-play-duplicates", action="store_true", help="with --complete: "
                    "leave the duplicate deals of agents outside the panel unplayed "
                    "(a search agent's are dear)")
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    agents = reference_agents() if args.play == "all" else \
        [] if args.play == "none" else [a for a in args.play.split(",") if a]
    if args.complete:
        complete(None if args.play == "all" else agents, args.threads,
                 not args.no_play_duplicates)
    else:
        tracks = get_tracks("all" if args.tracks == "all" else args.tracks.split(","))
        play(agents, tracks, args.threads)
    cards = stored_cards()
    anchors = fit_anchors(cards)
    ANCHORS_PATH.write_text(json.dumps(anchors, indent=2) + "\n")
    for card in cards.values():
        card.rerate(anchors)
        path = CARDS / f"{_file(card.agent)}.json"
        path.write_text(json.dumps(card.to_dict(), indent=2) + "\n")
    write_page(cards, anchors)
    write_spread_figure(cards)
    write_readme(cards)
    print(f"wrote {ANCHORS_PATH}, {PAGE}, {README}")


if __name__ == "__main__":
    main()
