"""``benchmark``: the fixed protocol that turns an agent into a comparable result.

    >>> card = benchmark("heuristic", "classic-2p")          # or tracks="all"
    >>> card.save("out/")        # card.json, card.md, card.png
    >>> card.tracks[0].rating    # {"elo": ..., "ci_low": ..., "ci_high": ...}

``uno-bench benchmark --agent SPEC --track NAME|all`` on the command line.

Tracks. A track (``TRACKS``) fixes everything a result depends on: the preset and rule
flags, the number of players, the seed of the deals, the reference panel, and the games
against each panel member. Against panel member ``B`` with ``N`` players, the
evaluated agent ``A`` holds one seat and ``B`` every other seat; ``A`` sits in seat ``s``
for games ``s*D .. s*D + D - 1`` of the track's seed (``D = games / N``: the seat is
rotated evenly over every seat, the scheme of ``uno_env.evaluation.tournament``, whose match loop
``play_lineups`` plays them). Game ``i`` of the seed is the same deal for every agent
evaluated, so two agents' cards differ by the agents alone. Any change to a track (its
rules, seed, games, panel, or the anchors below) bumps ``BENCHMARK_VERSION``, which
every card carries.

The panel (since ``uno-bench/5``). Every track: ``random``, ``greedy``, ``heuristic`` and the
track's PPO model. ``classic-2p`` also holds its strongest cheap agent,
``EXIT_MEMBER`` (expert iteration's network, 0.06 ms a decision), and one search
member, ``SEARCH_MEMBER``, at a budget measured stronger than its own rollout policy
(the heuristic). The 4-player tracks hold no search member: there no budget measured
beats the heuristic by more than its interval, and three of the four seats would
search (docs/benchmark.md, "The panel").

Rating, anchored on the panel. The rating model is Luce's choice rule (Bradley-Terry
for two players, the winner's marginal of Plackett-Luce for more): an agent rated
``R_A`` in one seat against ``N - 1`` seats of an agent rated ``R_B`` wins with
probability ``1 / (1 + (N - 1) * 10 ** ((R_B - R_A) / 400))``, on the Elo scale:
equal ratings win ``1/N`` (chance), 400 points more win 10 times the odds. The panel's
own ratings, the anchors, are fitted once per track by maximum likelihood over the
panel's cross-table (every reference agent's card, ``benchmarks/leaderboard.py``), with
``random`` fixed at 0, and stored in ``uno_env/evaluation/benchmark_anchors.json``. An evaluated
agent's rating is then fitted against the anchors alone, which stay fixed: it depends on
its own games only, never on who else was evaluated. Its 95% interval comes from the
likelihood's curvature (the Fisher information).

Duplicate play (``uno-bench/6``, the 4-player tracks). Each 4-player track also fixes
a set of duplicate deals (``Track.duplicate``: a seed of its own, a number of deals, the
opponent ``heuristic``): the agent plays every deal once in each seat against three
heuristics, and the reference agents (the panel) played the same deals in the same
seats, from the same random streams; their results are stored with the track
(``uno_env.evaluation.duplicate``), so a card plays only its agent's games. The card
gives the agent's **paired edge** over every reference (win rate and round points, 95%
intervals from the per-deal differences); the edge over ``heuristic`` is the 4-player
headline, beside the anchored rating. An agent identical to a member scores exactly 0.
The card keeps every duplicate game (``records``) so two cards compare game by game
(``uno-bench compare``). Budgets by cost: a fast (numba) agent plays every deal; a slow one
(``benchmark(budget="auto")``, the default) plays them in looks of 1/8, 1/4, 1/2 and all
of them and stops once its headline interval, at a Bonferroni-adjusted level, is at most
``duplicate.TARGET_HALF_WIDTH`` (0.4 points of win rate) each side or excludes 0. The rating games below are ``uno-bench/5``'s, unchanged.

Headline. The score of a track is the anchored rating; ``mean_ratio``, the win rate
against the panel over chance (``1/N``) averaged over the members, is reported beside it.

Agents. ``SPEC`` is a numba agent's name (``random``, ``greedy``, ``heuristic``,
``mcts``, ``mcts:400``), a registered agent's name (a shipped model such as
``ppo_classic_2p``, a plug-in's agent), a ``.npz`` policy file, or ``module:Factory``:
``Factory(config)`` returns an object with ``act(observation, action_mask=None) -> int``
and, for speed, ``act_batch(observations, masks) -> actions`` (``config`` is the track's
``uno_env.Config``); ``module`` is imported as ``python -m`` finds it, from the current
directory first, then the installed packages. A model made for another game (a 2-player model on a 4-player
track) is not played on that track: the card says so.
"""
from __future__ import annotations

import importlib
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from uno_env.evaluation.duplicate import play_duplicate
from uno_env.evaluation.stats import Z95, wilson

#: the benchmark's version: every card carries it; any change to a track bumps it
BENCHMARK_VERSION = "uno-bench/6"
#: the panel's search member (classic-2p only): the budget measured stronger than its
#: rollout policy, the heuristic (docs/benchmark.md, "The panel")
SEARCH_MEMBER = "mcts:400"
#: classic-2p's strongest cheap agent: expert iteration's network (docs/agents.md)
EXIT_MEMBER = "exit_classic_2p"
ANCHORS_PATH = Path(__file__).with_name("benchmark_anchors.json")
#: the member whose rating is 0 on every track
ANCHOR_ZERO = "random"
ELO = 400 / math.log(10)       # Elo points per unit of natural log-odds


@dataclass(frozen=True)
class Duplicate:
    """A 4-player track's duplicate deals (module docstring, "Duplicate play"): deals
    ``0 .. deals - 1`` of ``seed``, each played with the agent in every seat against
    ``opponent`` in the other seats."""

    seed: int
    deals: int
    opponent: str = "heuristic"

    def to_dict(self) -> dict:
        return {"seed": self.seed, "deals": self.deals, "opponent": self.opponent,
                "seats": "every deal with the agent in each seat in turn, the opponent "
                         "in the others; game j of the seed in every seat"}


@dataclass(frozen=True)
class Track:
    """One protocol of the benchmark (module docstring). ``games`` maps every panel
    member to its number of games (a multiple of ``num_players``); ``model`` is the
    track's trained PPO member, in the panel when ``models`` is true (the shipped model
    exists), else listed as absent on every card of this version."""

    name: str
    preset: str
    num_players: int
    seed: int
    games: dict
    model: str
    models: bool
    description: str
    rules: dict = field(default_factory=dict)
    duplicate: Duplicate | None = None

    @property
    def panel(self) -> tuple[str, ...]:
        return tuple(m for m in self.games if m != self.model or self.models)

    @property
    def absent(self) -> tuple[str, ...]:
        return () if self.models else (self.model,)

    def to_dict(self) -> dict:
        return {"name": self.name, "preset": self.preset, "num_players": self.num_players,
                "rules": dict(self.rules), "seed": self.seed, "panel": list(self.panel),
                "games": {m: self.games[m] for m in self.panel},
                "absent": list(self.absent), "description": self.description,
                "seats": f"the agent in one seat, the panel member in the other "
                         f"{self.num_players - 1}; the agent's seat rotated evenly over "
                         f"all {self.num_players} seats",
                **({"duplicate": self.duplicate.to_dict()} if self.duplicate else {})}


def _games(model: str, games: int = 4000, **more: int) -> dict:
    """The baselines and the PPO ``model``, ``games`` each, then the ``more`` members."""
    return {"random": games, "greedy": games, "heuristic": games, model: games, **more}


TRACKS: dict[str, Track] = {t.name: t for t in (
    Track("classic-2p", "classic", 2, 1802,
          _games("ppo_classic_2p", **{EXIT_MEMBER: 4000, SEARCH_MEMBER: 1000}),
          "ppo_classic_2p", True, "classic rules (docs/rules.md), two players"),
    Track("classic-4p", "classic", 4, 1804, _games("ppo_classic_4p"),
          "ppo_classic_4p", True, "classic rules, four players",
          duplicate=Duplicate(2804, 10_000)),
    Track("house-4p", "street", 4, 1814, _games("ppo_house_4p"),
          "ppo_house_4p", True,
          "the house rules most people actually play (preset street: stack any +2/+4 "
          "on each other, 7-0 swaps, jump-in, draw until playable), four players",
          duplicate=Duplicate(2814, 5_000)),
    Track("flip-4p", "flip", 4, 1824, _games("ppo_flip_4p"),
          "ppo_flip_4p", True, "UNO Flip (preset flip), four players",
          duplicate=Duplicate(2824, 5_000)),
    Track("onepiece-4p", "onepiece", 4, 1834, _games("ppo_onepiece_4p"),
          "ppo_onepiece_4p", True, "UNO One Piece (preset onepiece), four players",
          duplicate=Duplicate(2834, 5_000)),
)}


def track_names() -> list[str]:
    return list(TRACKS)


def get_tracks(tracks) -> list[Track]:
    """``"all"``, a track's name, or a list of names -> the tracks; ValueError naming the
    valid tracks."""
    names = list(TRACKS) if tracks == "all" else \
        [tracks] if isinstance(tracks, str) else list(tracks)
    bad = [t for t in names if t not in TRACKS]
    if bad or not names:
        raise ValueError(f"unknown track(s) {bad or names!r}; valid tracks: "
                         f"{', '.join(TRACKS)}, or all")
    return [TRACKS[t] for t in names]


# --- ratings ---------------------------------------------------------------------------
def win_probability(r_a: float, r_b: float, num_players: int) -> float:
    """The rating model: ``A`` in one seat against ``num_players - 1`` seats of ``B``."""
    return 1.0 / (1.0 + (num_players - 1) * 10.0 ** ((r_b - r_a) / 400.0))


def fit_ratings(pairs, num_players: int, fixed: dict, prior_sd: float = 2000.0):
    """Maximum-likelihood ratings (Elo scale) of the agents in ``pairs`` not in
    ``fixed``. ``pairs``: ``(a, b, wins, games)``: ``a`` in one seat against ``b`` in
    the others won ``wins`` of ``games``. A wide Gaussian prior (``prior_sd``, centred
    on 0) keeps an agent that never won or never lost finite. Returns ``{name: (rating,
    standard error)}``, by damped Newton steps on the (concave) log-likelihood."""
    pairs = [(a, b, float(w), float(n)) for a, b, w, n in pairs if a != b and n > 0]
    free = sorted({x for a, b, _, _ in pairs for x in (a, b)} - set(fixed))
    index = {x: i for i, x in enumerate(free)}
    theta = np.zeros(len(free))            # natural log-odds scale
    offset = math.log(num_players - 1)

    def value(x):
        return theta[index[x]] if x in index else fixed[x] / ELO

    var = (prior_sd / ELO) ** 2
    for _ in range(500):
        grad = -theta / var
        hess = -np.eye(len(free)) / var
        for a, b, w, n in pairs:
            x = min(max(offset + value(b) - value(a), -700.0), 700.0)
            p = 1.0 / (1.0 + math.exp(x))
            g, h = w - n * p, n * p * (1 - p)
            for x, sign in ((a, 1.0), (b, -1.0)):
                if x in index:
                    grad[index[x]] += sign * g
                    for y, sign2 in ((a, 1.0), (b, -1.0)):
                        if y in index:
                            hess[index[x], index[y]] -= sign * sign2 * h
        # damped Newton: at most one unit of log-odds (174 Elo) per step, so a start
        # far from a lopsided result (99% wins) does not overshoot
        step = np.clip(np.linalg.solve(hess, grad), -1.0, 1.0)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    se = np.sqrt(np.diag(np.linalg.inv(-hess)))
    return {x: (float(theta[i] * ELO), float(se[i] * ELO)) for x, i in index.items()}


def load_anchors(path=ANCHORS_PATH) -> dict:
    """The committed anchors: ``{"benchmark": version, "tracks": {track: {"ratings":
    {member: elo}, ...}}}`` (``benchmarks/leaderboard.py`` writes them)."""
    path = Path(path)
    if not path.exists():
        return {"benchmark": BENCHMARK_VERSION, "tracks": {}}
    return json.loads(path.read_text())


def anchor_ratings(track: Track, anchors: dict | None = None) -> dict | None:
    """The fixed ratings of ``track``'s panel, or None if the anchors were fitted for
    another benchmark version or panel (run ``benchmarks/leaderboard.py``)."""
    anchors = load_anchors() if anchors is None else anchors
    entry = anchors.get("tracks", {}).get(track.name)
    if anchors.get("benchmark") != BENCHMARK_VERSION or entry is None or \
            sorted(entry["ratings"]) != sorted(track.panel):
        return None
    return entry["ratings"]


def rate_agent(results: list[dict], num_players: int, anchors: dict | None) -> dict | None:
    """The agent's anchored rating and 95% interval from its results against the panel
    (``TrackResult.results``), or None without anchors."""
    if anchors is None:
        return None
    pairs = [("agent", r["opponent"], r["wins"], r["games"]) for r in results
             if r["opponent"] in anchors]
    (elo, se), = fit_ratings(pairs, num_players, anchors).values()
    return {"elo": round(elo, 1), "ci_low": round(elo - Z95 * se, 1),
            "ci_high": round(elo + Z95 * se, 1)}


# --- agents ----------------------------------------------------------------------------
class _Batched:
    """An agent with ``act`` only, given ``act_batch`` (one ``act`` per row)."""

    def __init__(self, agent, name):
        self.agent, self.name = agent, name

    def act_batch(self, observations, masks):
        return np.array([self.agent.act(o, m) for o, m in zip(observations, masks)],
                        np.int64)


def _import_as_python_m(module: str):
    """Import ``module`` as ``python -m`` would find it: the current directory first on
    the import path (a console script such as ``uno-bench`` has its own directory
    there instead), for this import only."""
    import os
    import sys
    cwd = os.getcwd()
    added = cwd not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, cwd)
        importlib.invalidate_caches()
    try:
        return importlib.import_module(module)
    finally:
        if added:
            sys.path.remove(cwd)


def _factory(spec: str):
    module, _, attr = spec.partition(":")
    try:
        mod = _import_as_python_m(module)
    except ImportError as err:
        import os
        raise ValueError(f"agent {spec!r}: cannot import module {module!r} from the "
                         f"current directory ({os.getcwd()}) or the installed packages "
                         f"({err}); an agent is a name, a .npz file or module:Factory"
                         ) from None
    if not callable(getattr(mod, attr, None)):
        raise ValueError(f"agent {spec!r}: module {module!r} has no callable {attr!r}")
    return getattr(mod, attr)


def make_candidate(spec: str, config, seed: int):
    """The evaluated agent for one track: a numba agent's name stays a name (played
    inside ``simulate``); anything else becomes an object with ``act_batch``. Returns
    ``(agent, None)``, or ``(None, reason)`` when a model was made for another game."""
    from uno_env.engine.names import agent_code
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"an agent spec is a non-empty string, got {spec!r}")
    from uno_env.players.registry import (agent_names, is_configured,
                                             is_position_agent, make_agent)
    if agent_code(spec) is not None or is_position_agent(spec):
        return spec, None  # played by name (a position agent: game by game)
    if ":" in spec and not spec.endswith(".npz") and spec not in agent_names() \
            and not is_configured(spec):
        agent = _factory(spec)(config)
    else:
        try:
            agent = make_agent(spec, None if is_configured(spec) else config, seed=seed)
        except ValueError as err:
            raise ValueError(f"{err}, or module:Factory") from None
        if is_configured(spec):
            try:
                agent.check_config(config)
            except ValueError as err:
                return None, " ".join(str(err).split())
    if not callable(getattr(agent, "act_batch", None)):
        if not callable(getattr(agent, "act", None)):
            raise ValueError(f"agent {spec!r}: {type(agent).__name__} has neither "
                             f"act(observation, action_mask) nor act_batch")
        agent = _Batched(agent, spec)
    return agent, None


def _member(name: str, config, seed: int):
    """A panel member: a numba name, or a registered agent (a shipped model)."""
    from uno_env.engine.names import agent_code
    if agent_code(name) is not None:
        return name
    from uno_env.players.registry import agent_names, make_agent
    if name not in agent_names():
        raise ValueError(f"panel member {name!r} is not installed (the track's shipped "
                         f"model): reinstall the agents package (pip install -e .)")
    agent = make_agent(name, None, seed=seed)
    agent.check_config(config)
    agent.name = name
    return agent


# --- where a card stands ---------------------------------------------------------------
#: the stored leaderboard's cards (package data, ``uno_env/evaluation/stored_cards``, as
#: ``uno_env.evaluation.reproduce.STORED_CARDS``; a wheel has them too)
CARDS_DIR = Path(__file__).with_name("stored_cards")


def stored_ratings(track: str, cards_dir=CARDS_DIR) -> dict:
    """``{agent: elo}`` of the stored leaderboard's cards rated on ``track`` (the
    README's table); empty when there are no stored cards."""
    out = {}
    for path in sorted(Path(cards_dir).glob("*.json")) if Path(cards_dir).is_dir() else ():
        card = json.loads(path.read_text())
        for t in card.get("tracks", ()):
            if t["track"]["name"] == track and t.get("rating"):
                out[card["agent"]] = float(t["rating"]["elo"])
    return out


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def standing(elo: float, others: dict, exclude=()) -> dict | None:
    """The place of a rating ``elo`` among ``others`` (``{name: elo}``; names in
    ``exclude``, the agent's own, left out): ``{"place": k, "of": n, "above": [name,
    elo] | None, "below": [name, elo] | None}``, ``above`` the lowest-rated agent above
    it and ``below`` the highest at or under it; None when ``others`` is empty."""
    rest = {k: float(v) for k, v in others.items() if k not in set(exclude)}
    if not rest:
        return None
    higher = sorted((v, k) for k, v in rest.items() if v > elo)
    lower = sorted(((v, k) for k, v in rest.items() if v <= elo), reverse=True)
    return {"place": len(higher) + 1, "of": len(rest) + 1,
            "above": [higher[0][1], round(higher[0][0], 1)] if higher else None,
            "below": [lower[0][1], round(lower[0][0], 1)] if lower else None}


def standing_line(where: dict, what: str) -> str:
    """``standing``'s dict in words: "7th of 12 on the stored leaderboard (between
    greedy 761 and heuristic 760)"."""
    near = [f"{x[0]} {x[1]:.0f}" for x in (where["above"], where["below"]) if x]
    side = ("between " + " and ".join(near) if len(near) == 2 else
            ("below " if where["above"] else "above ") + near[0])
    return f"{_ordinal(where['place'])} of {where['of']} {what} ({side})"


# --- the cards -------------------------------------------------------------------------
@dataclass
class TrackResult:
    track: Track
    results: list = field(default_factory=list)   # one dict per panel member
    rating: dict | None = None
    skipped: str | None = None
    seconds: float = 0.0
    member_seconds: dict = field(default_factory=dict)   # member -> seconds playing it
    #: the duplicate deals (4-player tracks): ``{"deals", "games", "opponent",
    #: "win_rate", "points", "edges": {reference: paired_edge}, "records": encode(...),
    #: "seconds"}``; None when not played (a card of uno-bench/5, or ``deals=0``)
    duplicate: dict | None = None

    def standing(self, agent: str, anchors: dict | None = None,
                 cards_dir=CARDS_DIR) -> dict:
        """Where the rating stands: ``{"panel": standing(...) among the track's anchors,
        "leaderboard": standing(...) among the stored cards}`` (``agent``, its own
        entry, left out); empty when the track is unrated."""
        if self.rating is None:
            return {}
        elo = self.rating["elo"]
        panel = anchor_ratings(self.track, anchors) or {}
        # a panel member is placed at its anchor on both lists (its stored card's own
        # rating differs a little: one rating cannot fit every pairing), so the two
        # places never name one agent both above and below the card
        board = {**stored_ratings(self.track.name, cards_dir), **panel}
        return {"panel": standing(elo, panel, [agent]),
                "leaderboard": standing(elo, board, [agent])}

    @property
    def chance(self) -> float:
        return 1.0 / self.track.num_players

    @property
    def missing(self) -> list[str]:
        """The panel members this result has not played (none on a complete card)."""
        if self.skipped:
            return []
        played = {r["opponent"] for r in self.results}
        return [m for m in self.track.panel if m not in played]

    @property
    def mean_ratio(self) -> float | None:
        if not self.results:
            return None
        return float(np.mean([r["win_rate"] for r in self.results]) / self.chance)

    def to_dict(self, agent: str | None = None) -> dict:
        return {"track": self.track.to_dict(), "skipped": self.skipped,
                "results": self.results, "rating": self.rating,
                "standing": self.standing(agent) if agent else {},
                "headline": None if self.rating is None else self.rating["elo"],
                "mean_ratio": None if self.mean_ratio is None else round(self.mean_ratio, 4),
                "chance": self.chance, "duplicate": self.duplicate}


@dataclass
class BenchmarkCard:
    """The report card of one agent on one or more tracks (``to_dict``, ``save``)."""

    agent: str
    tracks: list
    games_override: int | None = None
    seconds: float = 0.0
    threads: int | None = None
    backend: str = "local"
    cpu_seconds: float = 0.0      # this process's CPU time (all threads)
    #: where the card came from (``uno_env.provenance``); None for a card written
    #: before uno-env 0.2.0 (reported as unknown)
    provenance: dict | None = None
    name: str | None = None       # the agent's name as given (``name=``), else ``agent``
    #: ``benchmark``'s ``deals`` when fewer than the tracks' duplicate deals were played
    deals_override: int | None = None

    @property
    def standard(self) -> bool:
        return self.games_override is None and self.deals_override is None

    def to_dict(self) -> dict:
        """Everything but ``run`` (wall time, threads, backend) and ``provenance``
        (``uno_env.provenance``: the code, libraries, machine, date and command that
        played it) is a function of the agent and the benchmark version alone."""
        from uno_env.version import __version__
        return {"benchmark": BENCHMARK_VERSION, "uno_env": __version__,
                "agent": self.agent, "name": self.name or self.agent,
                "standard": self.standard,
                "games_override": self.games_override,
                "deals_override": self.deals_override,
                "tracks": [t.to_dict(self.name or self.agent) for t in self.tracks],
                "run": {"wall_seconds": round(self.seconds, 1),
                        "cpu_seconds": round(self.cpu_seconds, 1), "threads": self.threads,
                        "backend": self.backend,
                        "track_seconds": {t.track.name: round(t.seconds, 1)
                                          for t in self.tracks},
                        "member_seconds": {t.track.name: {m: round(s, 1) for m, s in
                                                          t.member_seconds.items()}
                                           for t in self.tracks}},
                "provenance": self.provenance}

    @classmethod
    def from_dict(cls, d: dict, carry: bool = False) -> "BenchmarkCard":
        """A card back from its ``to_dict`` (``card.json``); ValueError for a card of
        another benchmark version, unless ``carry``: then a card of an earlier version
        is taken over when every result it holds was played under a protocol this
        version keeps (the same preset, players, rules, seed, and games against that
        member: the same games, so the same result), and ValueError names what changed.
        Results against members that left the panel are dropped; members that joined it
        are missing from the card (``TrackResult.missing``) until played."""
        if d.get("benchmark") != BENCHMARK_VERSION:
            if not carry:
                raise ValueError(f"a card of benchmark {d.get('benchmark')!r}, not "
                                 f"{BENCHMARK_VERSION!r}")
            d = _carried(d)
        run = d.get("run", {})
        tracks = [TrackResult(TRACKS[t["track"]["name"]], list(t["results"]), t["rating"],
                              t["skipped"], run.get("track_seconds", {}).get(
                                  t["track"]["name"], 0.0),
                              dict(run.get("member_seconds", {}).get(t["track"]["name"], {})),
                              t.get("duplicate"))
                  for t in d["tracks"]]
        return cls(d["agent"], tracks, d["games_override"], run.get("wall_seconds", 0.0),
                   run.get("threads"), run.get("backend", "local"),
                   run.get("cpu_seconds", 0.0), d.get("provenance"), d.get("name"),
                   d.get("deals_override"))

    def rerate(self, anchors: dict) -> None:
        """Rate every track again against ``anchors`` (``load_anchors()``'s form)."""
        for t in self.tracks:
            if not t.skipped:
                t.rating = None if t.missing else rate_agent(
                    t.results, t.track.num_players, anchor_ratings(t.track, anchors))

    def markdown(self, heading: str = "#") -> str:
        d = self.to_dict()
        title = self.agent if d["name"] == self.agent else f"{d['name']} ({self.agent})"
        lines = [f"{heading} {title} ({BENCHMARK_VERSION})", "",
                 f"uno-env {d['uno_env']}; wall time {d['run']['wall_seconds']:.0f} s ("
                 + (f"{d['run']['cpu_seconds']:.0f} s of CPU, "
                    if d['run']['cpu_seconds'] else "")
                 + (f"{d['run']['threads']} thread(s)" if d['run']['threads'] is not None
                    else "numba's default threads")
                 + f", {d['run']['backend']} backend; "
                 f"per track: " + ", ".join(f"{k} {v:.0f} s" for k, v in
                                            d['run']['track_seconds'].items()) + ")."]
        from uno_env.provenance import describe
        lines += ["", *describe(self.provenance)]
        if self.games_override is not None:
            lines.append(f"**Non-standard run** ({self.games_override} games per opponent "
                         f"instead of the track's): not comparable with the benchmark.")
        elif self.deals_override is not None:
            lines.append(f"**Non-standard run** ({self.deals_override} duplicate deals "
                         f"instead of the track's): its paired edges are wider.")
        lines.append("")
        for t in self.tracks:
            tr = t.track
            lines += [f"{heading}# {tr.name}", "",
                      f"{tr.description}; seed {tr.seed}; chance {t.chance:.3f}.", ""]
            if t.skipped:
                lines += [f"Not played: {t.skipped}", ""]
                continue
            r = t.rating
            lines.append(("Rating: " if t.duplicate else "Rating (headline): ") + (
                f"**{r['elo']:.0f}** [{r['ci_low']:.0f}, {r['ci_high']:.0f}]" if r else
                f"none (not played yet against {', '.join(t.missing)})" if t.missing else
                "none (no anchors for this benchmark version: run "
                "benchmarks/leaderboard.py)") + "; mean win rate / chance "
                + ("n/a." if t.mean_ratio is None else f"{t.mean_ratio:.2f}."))
            lines += _standing_lines(d["tracks"][self.tracks.index(t)]["standing"], tr.name)
            if tr.absent:
                lines.append(f"Not in this version's panel (no anchor rating yet): "
                             f"{', '.join(tr.absent)}.")
            lines += ["", "| opponent | games | win rate | 95% interval |",
                      "|---|---:|---:|---|"]
            lines += [f"| {x['opponent']} | {x['games']:,} | {x['win_rate']:.3f} | "
                      f"[{x['ci_low']:.3f}, {x['ci_high']:.3f}] |" for x in t.results]
            lines += _time_lines(t)
            lines += _duplicate_lines(t)
            lines.append("")
        return "\n".join(lines)

    def plot(self, path) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        played = [t for t in self.tracks if not t.skipped]
        fig = Figure(figsize=(4.2 * max(1, len(played)), 3.8))
        FigureCanvasAgg(fig)
        for k, t in enumerate(played):
            ax = fig.add_subplot(1, max(1, len(played)), k + 1)
            names = [r["opponent"] for r in t.results]
            rate = np.array([r["win_rate"] for r in t.results])
            err = np.array([rate - [r["ci_low"] for r in t.results],
                            np.array([r["ci_high"] for r in t.results]) - rate])
            ax.bar(names, rate, yerr=err, capsize=4, color="tab:blue")
            ax.axhline(t.chance, color="grey", linestyle="--", linewidth=1)
            ax.set_ylim(0, 1)
            ax.tick_params(axis="x", labelrotation=45, labelsize=8)
            title = t.track.name if t.rating is None else \
                f"{t.track.name}: rating {t.rating['elo']:.0f}"
            ax.set_title(title, fontsize=10)
            if k == 0:
                ax.set_ylabel(f"{self.agent}: win rate (95% interval)")
        fig.tight_layout()
        from uno_env.provenance import png_metadata
        fig.savefig(path, format="png", metadata=png_metadata(self.provenance))

    def save(self, out_dir) -> dict[str, Path]:
        """Write card.json, card.md and card.png to ``out_dir``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {k: out / f"card.{k}" for k in ("json", "md", "png")}
        paths["json"].write_text(json.dumps(self.to_dict(), indent=2))
        paths["md"].write_text(self.markdown() + "\n")
        self.plot(paths["png"])
        return paths


def _standing_lines(where: dict, track: str) -> list[str]:
    """The card's place line: on the stored leaderboard and among the panel."""
    parts = [standing_line(where[k], what) for k, what in (
        ("leaderboard", f"on {track}'s stored leaderboard"),
        ("panel", "among its panel's anchors")) if where.get(k)]
    return [f"Place: {'; '.join(parts)}."] if parts else []


def _told(e: dict) -> str:
    lo, hi = e["ci"]
    if lo == hi == e["edge"] == 0 and e.get("sd") == 0:
        return "the same games"
    return "above" if lo > 0 else "below" if hi < 0 else "not told apart"


def _duplicate_lines(t: TrackResult) -> list[str]:
    """The duplicate deals: the paired edge over each reference, in points of win rate
    (percentage points) and in round points per game; the headline is over the
    opponent (``heuristic``)."""
    d = t.duplicate
    if not d:
        return []
    lines = ["", f"Duplicate deals: {d['deals']:,} deals of seed {t.track.duplicate.seed}, "
                 f"the agent in every seat, {d['opponent']} in the other three ({d['games']:,} "
                 f"games, {d.get('seconds', 0):.0f} s): win rate {d['win_rate']:.4f}, "
                 f"round points {d['points']:.2f} a game."]
    plan = d.get("budget")
    if plan and plan["rule"] == "sequential":
        lines.append(f"Budget: sequential (a slow agent), looks at "
                     f"{', '.join(f'{n:,}' for n in plan['looks'])} of {plan['planned']:,} "
                     f"deals; stopped at {plan['stopped_at']:,}: {plan['reason']}. Its "
                     f"intervals are at that look's adjusted level (z = {plan['z']:.3f}, "
                     f"Bonferroni across the looks), so they cover with at least 95%.")
    elif plan:
        lines.append(f"Budget: {plan['planned']:,} deals ({plan['reason']}).")
    if d.get("from"):
        from uno_env.provenance import describe
        lines += [f"These are {d['from']}:", *describe(d.get("provenance"))]
    head = d["edges"].get(d["opponent"])
    if head:
        w = head["win_rate"]
        lines.append(f"**Paired edge over {d['opponent']}** (headline, 4 players): "
                     f"**{100 * w['edge']:+.2f}** points of win rate [{100 * w['ci'][0]:+.2f}, "
                     f"{100 * w['ci'][1]:+.2f}] ({_told(w)}).")
    if d["edges"]:
        lines += ["", "| reference | edge, points of win rate | 95% interval | "
                      "edge, round points | 95% interval | |",
                  "|---|---:|---|---:|---|---|"]
        for m, e in d["edges"].items():
            w, p = e["win_rate"], e["points"]
            lines.append(f"| {m} | {100 * w['edge']:+.2f} | [{100 * w['ci'][0]:+.2f}, "
                         f"{100 * w['ci'][1]:+.2f}] | {p['edge']:+.2f} | [{p['ci'][0]:+.2f}, "
                         f"{p['ci'][1]:+.2f}] | {_told(w)} |")
    else:
        lines.append("No stored reference results for these deals (run "
                     "benchmarks/duplicate_refs.py): no paired edge.")
    return lines


def _time_lines(t: TrackResult) -> list[str]:
    """The time spent against each panel member, slowest first (search members are
    most of a card's time)."""
    if not t.member_seconds:
        return []
    total = sum(t.member_seconds.values()) or 1.0
    slow = sorted(t.member_seconds.items(), key=lambda kv: -kv[1])
    return ["", "Time per panel member: " + ", ".join(
        f"{m} {s:.{1 if s < 10 else 0}f} s ({100 * s / total:.0f}%)" for m, s in slow) + "."]


def _carried(d: dict) -> dict:
    """``d`` (a card of an earlier version) with the results this version keeps
    (``BenchmarkCard.from_dict``)."""
    where = f"the {d.get('agent')!r} card of {d.get('benchmark')!r}"
    if d.get("games_override") is not None:
        raise ValueError(f"{where} is non-standard: play it again")
    tracks = []
    for t in d["tracks"]:
        old, name = t["track"], t["track"]["name"]
        if name not in TRACKS:
            raise ValueError(f"{where}: track {name!r} is not in {BENCHMARK_VERSION!r}")
        now = TRACKS[name]
        for key in ("preset", "num_players", "rules", "seed"):
            if old[key] != now.to_dict()[key]:
                raise ValueError(f"{where}: track {name!r} changed its {key} "
                                 f"({old[key]!r} -> {now.to_dict()[key]!r}): play it again")
        results = []
        for r in t["results"]:
            if r["opponent"] not in now.panel:
                continue
            if r["games"] != now.games[r["opponent"]]:
                raise ValueError(f"{where}: track {name!r} now plays "
                                 f"{now.games[r['opponent']]} games against "
                                 f"{r['opponent']!r}, not {r['games']}: play it again")
            results.append(r)
        dup = t.get("duplicate")
        if dup and (now.duplicate is None or dup["deals"] > now.duplicate.deals or
                    old.get("duplicate") != now.to_dict().get("duplicate")):
            dup = None             # other deals: not this version's
        tracks.append(dict(t, results=results, rating=None, duplicate=dup))
    return dict(d, tracks=tracks, benchmark=BENCHMARK_VERSION)


def _result(opponent: str, winner: np.ndarray, num_players: int) -> dict:
    """The agent's wins against one member: ``winner[s, i]`` is the winning seat of game
    ``i`` with the agent in seat ``s``."""
    wins_by_seat = [int((winner[s] == s).sum()) for s in range(num_players)]
    wins, games = sum(wins_by_seat), int(winner.size)
    lo, hi = wilson(wins, games)
    return {"opponent": opponent, "games": games, "wins": wins,
            "win_rate": round(wins / games, 6), "ci_low": round(lo, 6),
            "ci_high": round(hi, 6), "truncated": int((winner < 0).sum()),
            "wins_by_seat": wins_by_seat}


def _given_name(plan) -> str | None:
    """The name the evaluated agent was given (``name=`` of a saved policy, a factory's
    ``name``), or None for a name-played agent."""
    for _, cand, _ in plan:
        name = getattr(getattr(cand, "agent", cand), "name", None) \
            if not isinstance(cand, str) and cand is not None else None
        if isinstance(name, str) and name:
            return name
    return None


def benchmark(agent: str, tracks="all", games: int | None = None,
              threads: int | None = None, backend: str = "local", address=None,
              progress: bool = False, anchors: dict | None = None,
              opponents=None, deals: int | None = None,
              budget: str = "auto") -> BenchmarkCard:
    """Play ``agent`` (a spec, module docstring) on ``tracks`` (``"all"``, a name or a
    list) against every panel member; the report card. ``games`` overrides every
    member's number of games (rounded up to a multiple of the players): the card is then
    marked non-standard. ``threads`` and ``backend`` (``"local"`` or ``"ray"``) change
    the speed, never the card (but its ``run`` entry). ``opponents`` (a list of panel
    members) plays only those (the leaderboard's way to add a new member's games to the
    stored cards): such a card is incomplete (``TrackResult.missing``) and unrated; it
    plays no duplicate deals. ``deals`` plays the first ``deals`` of each 4-player
    track's duplicate deals (0: none) instead of all of them (with ``games``, a quick
    look, ``games / players`` of them): a card with fewer deals is marked non-standard
    too, and its paired edges are wider. ``budget`` (``BUDGETS``): ``"auto"`` (the
    default) plays every duplicate deal with a fast (numba) agent and a sequential
    budget with any other (a Python agent, a search, a service), which stops early once
    the headline interval is narrow enough or excludes 0 (``play_track_duplicate``;
    the card says how many deals it played and why); ``"full"`` every deal whatever the
    agent; ``"sequential"`` the sequential budget whatever the agent. A card stopped by
    the rule is standard: the rule is part of the benchmark."""
    from uno_env.rules.config import make_config
    from uno_env.evaluation.tournament import BACKENDS, play_lineups
    chosen = get_tracks(tracks)
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if games is not None and (isinstance(games, bool) or not isinstance(games, int)
                              or games < 1):
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if opponents is not None:
        opponents = [opponents] if isinstance(opponents, str) else list(opponents)
        members = {m for tr in chosen for m in tr.panel}
        bad = [m for m in opponents if m not in members]
        if bad or not opponents:
            raise ValueError(f"opponents {bad or opponents!r} are not panel members of "
                             f"the track(s); valid: {', '.join(sorted(members))}")
    if deals is not None and (isinstance(deals, bool) or not isinstance(deals, int)
                              or deals < 0):
        raise ValueError(f"deals must be a non-negative integer, got {deals!r}")
    if budget not in BUDGETS:
        raise ValueError(f"budget must be one of {', '.join(BUDGETS)}, got {budget!r}")
    anchors = load_anchors() if anchors is None else anchors
    plan = []                      # (track result, candidate, [(member, games)])
    for tr in chosen:
        config = make_config(tr.preset, tr.num_players, **tr.rules)
        cand, skipped = make_candidate(agent, config, tr.seed)
        members = [] if skipped else [
            (_member(m, config, tr.seed),
             tr.games[m] if games is None else -(-games // tr.num_players) * tr.num_players)
            for m in tr.panel if opponents is None or m in opponents]
        plan.append((TrackResult(tr, skipped=skipped), cand, members))
    n_deals = {r.track.name: _deals(r.track, games, deals) if not r.skipped and
               opponents is None else 0 for r, _, _ in plan}
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=sum(n for *_, ms in plan for _, n in ms) + sum(
            n * r.track.num_players for (r, _, _) in plan for n in [n_deals[r.track.name]]),
            unit="game", desc="benchmark")
    start, cpu = time.perf_counter(), time.process_time()
    used = threads
    try:
        for result, cand, members in plan:
            tr, t0 = result.track, time.perf_counter()
            for member, n in members:
                name = member if isinstance(member, str) else member.name
                python = {} if isinstance(member, str) else {name: member}
                me = cand
                if not isinstance(cand, str):
                    me = "__agent__"
                    python[me] = cand
                p = tr.num_players
                lus = [tuple(me if s == seat else name for s in range(p))
                       for seat in range(p)]
                g = n // p
                winner = np.empty((p, g), np.int32)
                points = np.empty((p, g, p), np.int32)
                if bar is not None:
                    bar.set_description(f"{tr.name} vs {name}")
                m0 = time.perf_counter()
                ran = play_lineups(lus, g, tr.preset, p, python, tr.seed, threads,
                                   tr.rules, winner, points, backend, address, bar)
                result.member_seconds[name] = time.perf_counter() - m0
                used = used if ran is None else ran
                result.results.append(_result(name, winner, p))
            if not result.missing:
                result.rating = rate_agent(result.results, tr.num_players,
                                           anchor_ratings(tr, anchors))
            if n_deals[tr.name]:
                if bar is not None:
                    bar.set_description(f"{tr.name} duplicate deals")
                result.duplicate = play_track_duplicate(cand, tr, n_deals[tr.name],
                                                        threads, bar, budget)
            result.seconds = time.perf_counter() - t0
    finally:
        if bar is not None:
            bar.close()
    from uno_env.provenance import provenance
    record = provenance([make_config(r.track.preset, r.track.num_players, **r.track.rules)
                         for r, _, _ in plan], [r.track.seed for r, _, _ in plan],
                        agent=agent, opponents=opponents)
    short = any(r.track.duplicate and n_deals[r.track.name] < r.track.duplicate.deals
                for r, _, _ in plan if not r.skipped and opponents is None)
    return BenchmarkCard(agent, [r for r, _, _ in plan], games, time.perf_counter() - start,
                         used, backend, time.process_time() - cpu, record,
                         _given_name(plan), deals if short and games is None else None)


def _deals(track: Track, games: int | None, deals: int | None) -> int:
    """The duplicate deals a card plays on ``track`` (``benchmark``'s ``deals``)."""
    if track.duplicate is None:
        return 0
    if deals is None and games is not None:
        deals = -(-games // track.num_players)
    return track.duplicate.deals if deals is None else min(deals, track.duplicate.deals)


def compare_agents(a: str, b: str, track, deals: int | None = None,
                   threads: int | None = None) -> dict:
    """Play agents ``a`` and ``b`` (specs, as ``benchmark`` takes them) on ``track``'s
    duplicate deals: the paired edge of ``a`` over ``b``."""
    from uno_env.evaluation.duplicate import paired_edge
    from uno_env.rules.config import make_config
    config = make_config(track.preset, track.num_players, **track.rules)
    played = []
    for spec in (a, b):
        cand, skipped = make_candidate(spec, config, track.seed)
        if skipped:
            raise ValueError(f"{spec!r} does not play {track.name!r}: {skipped}")
        played.append(play_duplicate(cand, track, deals, threads))
    return {"track": track.name, "agent": a, "reference": b,
            **paired_edge(*played[0], *played[1])}


#: ``benchmark``'s ``budget``: how many duplicate deals a card plays (docs/benchmark.md,
#: "Budgets by cost")
BUDGETS = ("auto", "full", "sequential")


def is_fast(cand) -> bool:
    """Whether ``make_candidate``'s ``cand`` plays inside the numba engine (a numba
    agent's name): such a candidate always plays every duplicate deal."""
    from uno_env.evaluation.tournament import is_position_agent
    return isinstance(cand, str) and not is_position_agent(cand)


def play_track_duplicate(cand, track: Track, deals: int, threads=None, bar=None,
                         budget: str = "full") -> dict:
    """``cand`` (``make_candidate``'s) on the first ``deals`` of ``track``'s duplicate
    deals: ``TrackResult.duplicate`` (its paired edge over every stored reference).
    ``budget="sequential"`` plays them in looks (``duplicate.sequential_looks``: 1/8,
    1/4, 1/2, all) and stops at the first whose headline interval (over the opponent,
    at the look's Bonferroni-adjusted level) is narrow enough or excludes 0; every edge
    is then given at the stopping look's level. ``"auto"``: sequential unless ``cand``
    is fast (``is_fast``); ``"full"``: every deal, plain 95% intervals."""
    from uno_env.evaluation.duplicate import (TARGET_HALF_WIDTH, encode, load_references, paired_edge,
                                              sequential_looks, stop_reason)
    if budget not in BUDGETS:
        raise ValueError(f"budget must be one of {', '.join(BUDGETS)}, got {budget!r}")
    t0 = time.perf_counter()
    refs = load_references(track)
    opp = track.duplicate.opponent
    rule = budget if budget != "auto" else "full" if is_fast(cand) else "sequential"
    if rule == "sequential" and opp not in refs:
        rule = "full"              # no headline to watch: every deal
    if rule == "full":
        won, points = play_duplicate(cand, track, deals, threads, bar)
        z = Z95
        why = ("budget full: every deal" if budget == "full" else
               "a fast (numba) agent plays every deal" if is_fast(cand) else
               "no stored headline reference: every deal")
        plan = {"rule": "full", "planned": int(deals), "reason": why}
    else:
        looks = sequential_looks(deals)
        parts, done = [], 0
        for i, (n, z) in enumerate(looks):
            parts.append(play_duplicate(cand, track, n, threads, bar, start=done))
            done = n
            won = np.concatenate([w for w, _ in parts])
            points = np.concatenate([p for _, p in parts])
            head = paired_edge(won, points, *refs[opp], z=z)
            why = stop_reason(head["win_rate"], i == len(looks) - 1)
            if why:
                break
        if bar is not None and done < deals:
            bar.update((deals - done) * track.num_players)
        plan = {"rule": "sequential", "planned": int(deals),
                "looks": [n for n, _ in looks], "stopped_at": int(done),
                "z": round(z, 4), "target_half_width": TARGET_HALF_WIDTH, "reason": why}
    edges = {m: paired_edge(won, points, *refs[m], z=z) for m in track.panel if m in refs}
    return {"deals": int(len(won)), "games": int(won.size),
            "opponent": opp,
            "win_rate": round(float(won.mean()), 6),
            "points": round(float(points.mean()), 4), "edges": edges,
            "records": encode(won, points), "budget": plan,
            "seconds": round(time.perf_counter() - t0, 1)}
