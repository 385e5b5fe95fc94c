"""Statistics for comparing rule variants and agents, computed from ``simulate`` runs.

The notebooks in ``notebooks/`` and ``benchmarks/figures.py`` build every table and
figure from these functions, so a number quoted anywhere is computed at run time from
a fixed seed::

    >>> from uno_env.evaluation.analysis import variant_stats, skill_edge
    >>> v = variant_stats("classic", 4, num_games=100_000, seed=0)
    >>> v.turns_median, v.first_seat, v.bluff_rate
    >>> skill_edge("classic", 4, num_games=100_000).edge

``variant_stats`` plays every seat with the same agent (``heuristic`` by default, the
strongest baseline, so the figures describe sensible play rather than random moves).
``skill_edge`` seats one skilled agent against random ones and rotates it through
every seat: its win rate above ``1/P``, rescaled to ``[0, 1]``, is a luck-versus-skill
measure (0: the skilled agent wins no more than chance, 1: it always wins).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from uno_env.rules import PRESETS, Rules, make_rules
from uno_env.evaluation.simulation import simulate
from uno_env.evaluation.stats import wilson


@dataclass
class VariantStats:
    """One (preset, players) cell: per-game arrays and the derived rates."""

    preset: str
    num_players: int
    agent: str
    seed: int
    turns: np.ndarray = field(repr=False)        # int32[games], turns of the round
    winner: np.ndarray = field(repr=False)       # int32[games], -1 when truncated
    round_points: np.ndarray = field(repr=False)  # int64[games], points the round scored
    counters: dict = field(repr=False)           # simulate's counters, int64[games] each
    elapsed: float = 0.0

    @property
    def num_games(self) -> int:
        return len(self.turns)

    @property
    def turns_mean(self) -> float:
        return float(self.turns.mean())

    @property
    def turns_median(self) -> float:
        return float(np.median(self.turns))

    @property
    def first_seat_index(self) -> int:
        """The seat that moves first: left of the dealer (seat 0 deals)."""
        return 1 % self.num_players

    @property
    def first_seat(self) -> tuple[float, float, float]:
        """Win rate of the first seat to move, with its 95% Wilson interval."""
        wins = int((self.winner == self.first_seat_index).sum())
        lo, hi = wilson(wins, self.num_games)
        return wins / self.num_games, lo, hi

    @property
    def first_seat_advantage(self) -> tuple[float, float, float]:
        """``first_seat`` minus the fair share ``1/P`` (and its interval)."""
        fair = 1.0 / self.num_players
        rate, lo, hi = self.first_seat
        return rate - fair, lo - fair, hi - fair

    def per_game(self, counter: str) -> float:
        return float(self.counters[counter].mean())

    def _ratio(self, num: str, den: str) -> float:
        d = int(self.counters[den].sum())
        return int(self.counters[num].sum()) / d if d else float("nan")

    @property
    def bluff_rate(self) -> float:
        """Of the challengeable wild draws played (W4; Flip's W2 and WC), the fraction
        played while holding the colour in force (nan if none was played)."""
        return self._ratio("w4_bluffs", "w4_played")

    @property
    def challenge_rate(self) -> float:
        """Challenges per challengeable wild draw played."""
        return self._ratio("challenges", "w4_played")

    @property
    def challenge_success(self) -> float:
        """Of the challenges, the fraction that caught a bluff."""
        return self._ratio("challenges_won", "challenges")

    @property
    def truncated(self) -> float:
        return float((self.winner < 0).mean())

    def row(self) -> dict:
        """The cell as a flat dict (one table row)."""
        adv, lo, hi = self.first_seat_advantage
        return {"preset": self.preset, "players": self.num_players,
                "games": self.num_games, "turns_mean": self.turns_mean,
                "turns_median": self.turns_median,
                "turns_p90": float(np.percentile(self.turns, 90)),
                "first_seat_adv": adv, "first_seat_lo": lo, "first_seat_hi": hi,
                "cards_drawn": self.per_game("cards_drawn"),
                "wild_draws": self.per_game("w4_played"),
                "bluff_rate": self.bluff_rate, "challenge_rate": self.challenge_rate,
                "challenge_success": self.challenge_success,
                "reshuffles": self.per_game("reshuffles"),
                "round_points": float(self.round_points.mean()),
                "truncated": self.truncated}


def preset_players(preset: str, player_counts=(2, 4, 6)) -> tuple[int, ...]:
    """The player counts of ``player_counts`` a preset can be played with (``teams``
    needs exactly four)."""
    rules = make_rules(preset)
    return tuple(p for p in player_counts if not rules.teams or p == 4)


def variant_stats(preset: str, num_players: int, num_games: int, seed: int = 0,
                  agent: str = "heuristic", threads: int | None = None,
                  **rules) -> VariantStats:
    """Play ``num_games`` single rounds of ``preset`` with ``agent`` in every seat."""
    r = simulate(preset, num_players, agent, num_games=num_games, seed=seed,
                 threads=threads, target_score=0, **rules)
    return VariantStats(preset, num_players, agent, seed, r.turns, r.winner,
                        r.points.sum(axis=1).astype(np.int64), r.counters, r.elapsed)


@dataclass
class SkillEdge:
    """A skilled agent in one seat against ``opponent`` in the others, every seat alike.
    ``games`` counts the decided games; ``truncated`` ones (``max_turns`` reached) are
    left out of the rates, so two identical agents have an edge of zero."""

    preset: str
    num_players: int
    agent: str
    opponent: str
    wins: int
    games: int
    turns_mean: float
    truncated: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def edge(self) -> float:
        """``(win_rate - 1/P) / (1 - 1/P)``: 0 is pure luck, 1 is pure skill."""
        return _rescale(self.win_rate, self.num_players)

    @property
    def edge_interval(self) -> tuple[float, float]:
        lo, hi = self.interval
        return _rescale(lo, self.num_players), _rescale(hi, self.num_players)


def _rescale(rate: float, num_players: int) -> float:
    fair = 1.0 / num_players
    return (rate - fair) / (1.0 - fair)


def skill_edge(preset: str, num_players: int, num_games: int, seed: int = 0,
               agent: str = "heuristic", opponent: str = "random",
               threads: int | None = None, **rules) -> SkillEdge:
    """``agent`` in seat ``s`` against ``opponent`` everywhere else, for each seat ``s``
    in turn (``num_games // P`` games per seat, each seat on its own deals). ``agent``
    is a numba agent's name (played inside ``simulate``) or an object with ``act_batch``
    (a trained network, named by its ``name``), played by the tournament's match loop on
    the same deals; that loop counts no turns (``turns_mean`` is NaN)."""
    per_seat = max(1, num_games // num_players)
    if not isinstance(agent, str):
        from uno_env.evaluation.tournament import play_lineups
        name = str(getattr(agent, "name", type(agent).__name__))
        lus = [tuple(name if s == seat else opponent for s in range(num_players))
               for seat in range(num_players)]
        winner = np.empty((num_players, per_seat), np.int32)
        points = np.empty((num_players, per_seat, num_players), np.int32)
        play_lineups(lus, per_seat, preset, num_players, {name: agent}, seed, threads,
                     dict(rules, target_score=0), winner, points)
        wins = sum(int((winner[s] == s).sum()) for s in range(num_players))
        truncated = int((winner < 0).sum())
        return SkillEdge(preset, num_players, name, opponent, wins,
                         per_seat * num_players - truncated, float("nan"), truncated)
    wins = games = truncated = 0
    turns = 0.0
    for s in range(num_players):
        lineup = [opponent] * num_players
        lineup[s] = agent
        r = simulate(preset, num_players, lineup, num_games=per_seat, seed=seed,
                     first_game=s * per_seat, threads=threads, target_score=0, **rules)
        wins += int((r.winner == s).sum())
        games += per_seat - r.truncated
        truncated += r.truncated
        turns += float(r.turns.sum())
    return SkillEdge(preset, num_players, agent, opponent, wins, games,
                     turns / (per_seat * num_players), truncated)


#: The house-rule ablation of ``notebooks/house_rules.ipynb``: the classic rules with
#: one house rule changed (each value but the default of every flag the ``Rules``
#: declaration marks ``house``, in declaration order: ``stack=same``, ``seven_zero``,
#: ...), then the exceptions, stated here: the 112-card deck, and every house rule at
#: once (the ``chaos`` preset).
ABLATION_EXTRA = {"deck=classic112": {"deck": "classic112"}, "all (chaos)": "chaos"}


def _ablation() -> dict:
    rows = {"classic": {}}
    for f in fields(Rules):
        flag = f.metadata["flag"]
        if not flag.house:
            continue
        for value in (flag.values or (not f.default,)):
            if value != f.default:
                label = f.name if isinstance(value, bool) else f"{f.name}={value}"
                rows[label] = {f.name: value}
    return {**rows, **ABLATION_EXTRA}


ABLATION = _ablation()


def ablation_configs() -> dict[str, tuple[str, dict]]:
    """Label -> (preset, rule overrides) for every row of ``ABLATION``."""
    return {label: (spec, {}) if isinstance(spec, str) else ("classic", dict(spec))
            for label, spec in ABLATION.items()}


def variant_presets() -> tuple[str, ...]:
    """Every preset, in the order ``uno_env.rules.PRESETS`` lists them."""
    return tuple(PRESETS)


def variant_grid(num_games: int, seed: int = 0, agent: str = "heuristic",
                 player_counts=(2, 4, 6), presets=None) -> list[VariantStats]:
    """``variant_stats`` for every preset (default: all) and playable player count."""
    return [variant_stats(p, n, num_games, seed=seed, agent=agent)
            for p in (presets or variant_presets()) for n in preset_players(p, player_counts)]


def skill_grid(num_games: int, seed: int = 0, agent: str = "heuristic",
               opponent: str = "random", player_counts=(2, 4, 6),
               presets=None) -> list[SkillEdge]:
    """``skill_edge`` for every preset (default: all) and playable player count."""
    return [skill_edge(p, n, num_games, seed=seed, agent=agent, opponent=opponent)
            for p in (presets or variant_presets()) for n in preset_players(p, player_counts)]


def markdown_table(rows, columns, formats=None) -> str:
    """A Markdown table of ``rows`` (dicts): ``columns`` maps a key to its header,
    ``formats`` a key to a format spec (``".3f"``) or a function of the value."""
    formats = formats or {}

    def cell(key, value):
        f = formats.get(key)
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return "-"
        if callable(f):
            return f(value)
        return format(value, f) if f else str(value)

    head = "| " + " | ".join(columns.values()) + " |"
    rule = "|" + "|".join("---" if k in ("preset", "label", "agent") else "---:"
                          for k in columns) + "|"
    body = ["| " + " | ".join(cell(k, r.get(k)) for k in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body])
