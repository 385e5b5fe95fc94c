"""``tournament``: agents play each other in every seat; win rates, head-to-head, OpenSkill.

    >>> r = tournament(("random", "greedy", "heuristic"), "classic", num_players=4,
    ...                num_games=100_000, seed=0)
    >>> print(r.leaderboard()); r.save("out/")

Seating scheme. With ``K`` agents ``a[0..K-1]`` and ``P`` seats there are ``K`` lineups;
lineup ``r`` seats ``a[(r + s) % K]`` at seat ``s``. So when ``K < P`` the seats are filled
by cycling through the agents (one agent may hold several seats), and when ``K > P`` each
lineup holds a window of ``P`` consecutive agents. For every seat ``s`` the values
``(r + s) % K`` over ``r = 0..K-1`` are each agent exactly once, so every agent sits in
every seat in exactly one lineup. Every lineup plays the same number of games,
``ceil(num_games / K)`` (the total is rounded up to a multiple of ``K``), hence each agent
plays exactly that many games in each seat.

Schedules. ``schedule="rotate"`` (the default) plays the ``K`` lineups above, all
agents together. ``schedule="pairs"`` plays every pair of agents alone at the table
instead: for each pair ``(a[i], a[j])``, ``i < j``, in agent order, the two lineups of
the rotation above over those two agents (``A B A B`` and ``B A B A`` with 4 seats), so
each agent of a pair sits every seat equally often, and ``h2h[A][B]`` is A's win rate in
games of A and B alone: a head-to-head that measures the pair. With the rotation and
``K <= P`` every game seats every agent, so "A won with B at the table" is A's overall
win rate: ``leaderboard()`` prints no head-to-head table then, but the line saying so
(``TournamentResult.head_to_head_note``).

Reproducibility. Lineup ``r`` plays games ``r*G .. r*G + G - 1`` of ``seed``
(``G`` games per lineup), so no deal is played twice and the whole run is a function of
the seed alone: identical for any ``threads`` (``simulate``'s guarantee) and any chunking.

Statistics per agent: ``games`` (games it took part in), ``wins`` (games one of its seats
won), the win rate with a 95% Wilson interval, ``seat_games`` (seats held, summed over
games) and mean round points per seat held (the winner scores the other hands' points,
the others score 0). Head-to-head ``h2h[A][B]``: over the games where both A and B sat,
the fraction A won. Skill estimates (``OPENSKILL_NOTE``; not the benchmark's anchored Elo
"rating"): ``openskill`` Plackett-Luce, one ``mu``/``sigma`` per agent, updated
game by game (lineups interleaved: game ``i`` of every lineup before game ``i + 1``) with
the winner's agent ranked first and the other agents at the table tied second (the
engine reports points for the winner only, so no finer order is available); truncated
games are not rated. ``rating_games`` limits rating to the first that many games of
that order (default 20,000, where the ratings have long settled with ``tau=0``; ``None``
rates all; rating costs about 20 us per game, as long as playing 5 games).

Agents are names of numba agents (``uno_env.engine.names.AGENT_CODES``), played
inside ``simulate``, or Python objects with ``act_batch(obs, mask)`` (a trained network),
played through ``EverySeatBatch`` in batches of the same game indices: a lineup's results
are the same either way when the policies are.

Backends. The games are cut into chunks of at most ``CHUNK`` games of one lineup
(``_chunks``), each a pure function of the seed (``_play_chunk``). ``backend="local"``
plays them here; ``backend="ray"`` runs each as a Ray task on a cluster or local workers
(``uno_env.evaluation.distributed``) and writes every result to its own slot, so the results are
bit-identical to the local backend's.
"""
from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from uno_env.engine.names import AGENT_CODES, agent_code, is_search_name
from uno_env.engine.search import SEARCH_SALT
from uno_env.players.registry import is_position_agent
from uno_env.evaluation.stats import Z95, wilson  # noqa: F401  (re-exported)
from uno_env.evaluation.simulation import simulate

CHUNK = 8192
BACKENDS = ("local", "ray")
#: ``tournament(schedule=...)``: who meets whom (module docstring, Schedules)
SCHEDULES = ("rotate", "pairs")


def lineups(agents, num_players: int) -> list[tuple[str, ...]]:
    """The ``K`` rotated lineups (see the module docstring)."""
    k = len(agents)
    return [tuple(agents[(r + s) % k] for s in range(num_players)) for r in range(k)]


def schedule_lineups(agents, num_players: int, schedule: str = "rotate"
                     ) -> list[tuple[str, ...]]:
    """The lineups of a ``schedule`` (module docstring, Schedules)."""
    if schedule == "rotate":
        return lineups(agents, num_players)
    if schedule == "pairs":
        return [lu for i, a in enumerate(agents) for b in agents[i + 1:]
                for lu in lineups((a, b), num_players)]
    raise ValueError(f"unknown schedule {schedule!r}; valid: {', '.join(SCHEDULES)}")


def _check_agents(agents) -> tuple[tuple[str, ...], dict]:
    """Agent names, and the Python agents among them by name. An agent is a numba
    agent's name (``AGENT_CODES``) or an object with ``act_batch(obs, mask)`` (a trained
    network, say), named by its ``name`` attribute."""
    if isinstance(agents, str):
        agents = tuple(a.strip() for a in agents.split(",") if a.strip())
    agents = tuple(agents)
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {agents!r}")
    names, python_agents, bad = [], {}, []
    for a in agents:
        if isinstance(a, str):
            known = agent_code(a) is not None or is_position_agent(a)
            (names if known else bad).append(a)
        elif callable(getattr(a, "act_batch", None)):
            name = str(getattr(a, "name", type(a).__name__))
            names.append(name)
            python_agents[name] = a
        else:
            bad.append(type(a).__name__)
    if bad:
        raise ValueError(f"unsupported agent(s) {bad}: pass the name of a numba agent "
                         f"({', '.join(AGENT_CODES)}, mcts, mcts:BUDGET) or an object with "
                         f"act_batch(obs, mask)")
    if len(set(names)) != len(names):
        raise ValueError(f"agents must have distinct names, got {names!r}")
    return tuple(names), python_agents


def _play_batched(preset, num_players, lineup, python_agents, num_games, seed,
                  first_game, rules, batch=1024):
    """Games ``first_game ..`` of ``seed`` through the EverySeatBatch, for lineups with Python
    agents; each agent acts on the observations of its seat in batches. Named numba
    agents play through their Python classes (the same kernels), and ``random`` draws
    from the game's own stream as in ``simulate``, so the games are ``simulate``'s when
    the Python agents play the same policies; a lineup with a search agent plays
    through ``_play_games``."""
    if any(is_search_name(n) or is_position_agent(n) for n in lineup
           if n not in python_agents):
        return _play_games(preset, num_players, lineup, python_agents, num_games, seed,
                           first_game, rules)
    from uno_env.players.registry import make_agent

    from uno_env.rules.config import make_config
    from uno_env.envs.every_seat import EverySeatBatch

    config = make_config(preset, num_players, **rules)
    # a "random" seat draws from the game's own stream, as inside simulate (None below)
    seat_agents = [python_agents[n] if n in python_agents else
                   None if n == "random" else make_agent(n, config, seed=seed)
                   for n in lineup]
    winner = np.empty(num_games, np.int32)
    points = np.empty((num_games, num_players), np.int32)
    for lo in range(0, num_games, batch):
        size = min(batch, num_games - lo)
        venv = EverySeatBatch(size, preset, num_players, seed=seed, auto_reset=False, **rules)
        obs, mask, player = venv.reset(first_game=first_game + lo)
        actions = np.zeros(size, np.int64)
        while not (done := venv.done).all():
            actions[:] = 0
            for seat, agent in enumerate(seat_agents):
                idx = np.flatnonzero(~done & (player == seat))
                if len(idx):
                    actions[idx] = venv.stream_random_actions(idx) if agent is None \
                        else agent.act_batch(obs[idx], mask[idx])
            obs, mask, player = venv.step(actions)[:3]
        winner[lo:lo + size] = venv.winner
        points[lo:lo + size] = venv.engine_state.scores if config.rules.target_score > 0 \
            else venv.round_points
    return winner, points


def _play_games(preset, num_players, lineup, python_agents, num_games, seed, first_game,
                rules, batch=256):
    """Games ``first_game ..`` of ``seed`` as ``Game`` objects, for lineups that mix
    Python agents with search agents (``mcts``: an ``agents.MCTSAgent`` searches the one
    ``Game`` it is attached to, so it cannot act on an EverySeatBatch's batch). The search
    seats of game ``i`` share its search stream, ``seed_stream(seed ^ SEARCH_SALT, i)``,
    as inside ``simulate``, so with the same policies a game is the same on either
    path; the other agents act on the observations of their seat in batches."""
    from uno_env.players.registry import make_agent
    from uno_env.rules.config import make_config
    from uno_env.engine.rng import seed_stream_py
    from uno_env.envs.game import Game

    config = make_config(preset, num_players, **rules)
    # a "random" seat draws from the game's own stream, as inside simulate (None below)
    batch_agents = {s: python_agents[n] if n in python_agents else
                    None if n == "random" else make_agent(n, config)
                    for s, n in enumerate(lineup)
                    if n in python_agents or not (is_search_name(n)
                                                  or is_position_agent(n))}
    winner = np.empty(num_games, np.int32)
    points = np.empty((num_games, num_players), np.int32)
    for lo in range(0, num_games, batch):
        games = []
        for i in range(first_game + lo, first_game + min(lo + batch, num_games)):
            game = Game(preset, num_players, seed=seed, **rules)
            game.reset(seed, index=i)
            games.append(game)
        searchers = []
        for i, game in enumerate(games, first_game + lo):
            stream = np.array([seed_stream_py(seed ^ int(SEARCH_SALT), i)], np.uint64)
            searchers.append({s: make_agent(lineup[s], config).share_stream(stream)
                              .attach(game)
                              for s in range(num_players) if s not in batch_agents})
        while live := [i for i, game in enumerate(games) if not game.is_over]:
            deciders = [games[i].current_player for i in live]    # one move per game
            for seat in range(num_players):
                idx = [i for i, d in zip(live, deciders) if d == seat]
                if not idx:
                    continue
                if seat in batch_agents and batch_agents[seat] is None:
                    actions = [games[i].random_action() for i in idx]
                elif seat in batch_agents:
                    obs = np.stack([games[i].observe(seat) for i in idx])
                    mask = np.stack([games[i].action_mask() for i in idx])
                    actions = batch_agents[seat].act_batch(obs, mask)
                else:
                    actions = [searchers[i][seat].act_game(games[i]) for i in idx]
                for i, a in zip(idx, actions):
                    games[i].step(int(a))
                    for agent in searchers[i].values():  # position agents follow
                        if hasattr(agent, "observe_move"):
                            agent.observe_move(games[i])
        for k, game in enumerate(games):
            winner[lo + k] = -1 if game.winner is None else game.winner
            points[lo + k] = game.scores if config.rules.target_score > 0 \
                else game.round_points
    return winner, points


def _chunks(lus, games_per_lineup: int) -> list[tuple[int, tuple, int, int]]:
    """The work list, in a fixed order: ``(lineup index, lineup, lo, hi)`` for games
    ``lo .. hi - 1`` of each lineup, at most ``CHUNK`` games each."""
    return [(r, lineup, lo, min(lo + CHUNK, games_per_lineup))
            for r, lineup in enumerate(lus) for lo in range(0, games_per_lineup, CHUNK)]


def _play_chunk(preset, num_players, lineup, python_agents, num_games, seed, first_game,
                threads, rules, batch: int | None = None):
    """Games ``first_game .. first_game + num_games - 1`` of ``seed`` for one lineup:
    ``(winner int32[n], points int32[n, P], threads used or None)``. Inside
    ``simulate`` for numba agents only, else batched through the EverySeatBatch
    (``batch`` games at once, default ``_play_batched``'s: the same games whatever it
    is, for agents whose moves depend on their observations only). A pure function of
    its arguments: the local and the Ray backend both run it."""
    if any(a in python_agents or is_position_agent(a) for a in lineup):
        winner, points = _play_batched(preset, num_players, lineup, python_agents,
                                       num_games, seed, first_game, rules,
                                       **({} if batch is None else {"batch": batch}))
        return winner, points, None
    res = simulate(preset, num_players, agents=lineup, num_games=num_games, seed=seed,
                   threads=threads, first_game=first_game, **rules)
    return res.winner, res.points, res.threads


def play_lineups(lus, games_per_lineup: int, preset, num_players, python_agents, seed,
                 threads, rules, winner: np.ndarray, points: np.ndarray,
                 backend: str = "local", address=None, bar=None):
    """Play games ``r*G .. r*G + G - 1`` of ``seed`` for every lineup ``r`` of ``lus``
    (``G = games_per_lineup``) into ``winner[r]`` and ``points[r]``, in ``_chunks``, on
    the local or the Ray backend (bit-identical results); ``bar`` (tqdm) advances by
    chunk. Returns the threads used. The match loop of ``tournament`` and of
    ``uno_env.evaluation.benchmark``: a lineup may hold any agent names, one per seat."""
    used_threads = threads
    chunks = _chunks(lus, games_per_lineup)
    if backend == "ray":
        from uno_env.evaluation.distributed import play_chunks
        return play_chunks(_play_chunk, chunks, preset, num_players, python_agents, seed,
                           threads, rules, winner, points, bar, address)
    for r, lineup, lo, hi in chunks:
        winner[r, lo:hi], points[r, lo:hi], used = _play_chunk(
            preset, num_players, lineup, python_agents, hi - lo, seed,
            r * games_per_lineup + lo, threads, rules)
        used_threads = used if used is not None else used_threads
        if bar is not None:
            bar.update(hi - lo)
    return used_threads


#: what the tournament's OpenSkill columns are, in one line (output and results.json):
#: they are not the benchmark's "rating", the anchored Elo scale (docs/benchmark.md)
OPENSKILL_NOTE = ("OpenSkill (Plackett-Luce) skill estimate mu and its uncertainty sigma, "
                  "on OpenSkill's own scale (every agent starts at 25 and 8.33) and "
                  "relative to this tournament's agents; not the benchmark's anchored "
                  "Elo rating")


@dataclass
class TournamentResult:
    agents: tuple[str, ...]
    preset: str
    num_players: int
    seed: int
    rules: dict
    lineups: list[tuple[str, ...]]
    games_per_lineup: int
    winner: np.ndarray = field(repr=False)   # int32[K, G]: winning seat (-1 truncated)
    points: np.ndarray = field(repr=False)   # int32[K, G, P]
    ratings: dict = field(default_factory=dict)   # name -> OpenSkill {"mu", "sigma", "ordinal"}
    rated_games: int = 0
    elapsed: float = 0.0          # seconds playing the games
    threads: int | None = None
    rating_seconds: float = 0.0   # seconds computing the ratings
    schedule: str = "rotate"      # SCHEDULES: who met whom (module docstring)
    #: where the result came from (``uno_env.provenance``); None for a result loaded
    #: from a file written before uno-env 0.2.0
    provenance: dict | None = None

    # --- derived tables ----------------------------------------------------------------
    @property
    def num_games(self) -> int:
        return int(self.winner.size)

    @property
    def truncated(self) -> int:
        return int((self.winner < 0).sum())

    @property
    def games_per_hour(self) -> float:
        return self.num_games / self.elapsed * 3600 if self.elapsed else float("inf")

    def _seat_matrix(self) -> np.ndarray:
        """int[K lineups, P seats] -> agent index."""
        idx = {a: i for i, a in enumerate(self.agents)}
        return np.array([[idx[a] for a in lu] for lu in self.lineups], np.int64)

    def seat_counts(self) -> np.ndarray:
        """int[agents, seats]: games each agent played in each seat."""
        seats = self._seat_matrix()
        out = np.zeros((len(self.agents), self.num_players), np.int64)
        for r in range(len(self.lineups)):
            for s in range(self.num_players):
                out[seats[r, s], s] += self.winner.shape[1]
        return out

    def _winning_agent(self) -> np.ndarray:
        """int[K, G]: index of the agent that won each game, -1 if truncated."""
        seats = self._seat_matrix()
        k = np.arange(len(self.lineups))[:, None]
        w = self.winner
        return np.where(w >= 0, seats[k, np.maximum(w, 0)], -1)

    def stats(self) -> list[dict]:
        seats = self._seat_matrix()
        win_agent = self._winning_agent()
        g = self.winner.shape[1]
        out = []
        for i, name in enumerate(self.agents):
            present = np.array([i in seats[r] for r in range(len(self.lineups))])
            games = int(present.sum()) * g
            wins = int((win_agent == i).sum())
            mask = seats == i                                  # [K, P]
            seat_games = int(mask.sum()) * g
            pts = float(sum(self.points[r][:, mask[r]].sum() for r in range(len(mask))))
            lo, hi = wilson(wins, games)
            rating = self.ratings.get(name, {})
            out.append({"agent": name, "games": games, "wins": wins,
                        "win_rate": wins / games if games else 0.0,
                        "ci_low": lo, "ci_high": hi, "seat_games": seat_games,
                        "mean_points": pts / seat_games if seat_games else 0.0,
                        "openskill_mu": rating.get("mu"),
                        "openskill_sigma": rating.get("sigma"),
                        "openskill_ordinal": rating.get("ordinal")})
        out.sort(key=lambda d: -d["win_rate"])
        return out

    def head_to_head(self) -> dict[str, dict[str, dict]]:
        """``h2h[A][B] = {"wins": A's wins with B at the table, "games": games with both,
        "rate": wins / games, "ci": [low, high]}``, the rate's 95% Wilson interval (A !=
        B; pairs that never met have games 0, and rate and ci None)."""
        seats = self._seat_matrix()
        win_agent = self._winning_agent()
        g = self.winner.shape[1]
        table: dict = {}
        for i, a in enumerate(self.agents):
            table[a] = {}
            for j, b in enumerate(self.agents):
                if i == j:
                    continue
                both = [r for r in range(len(self.lineups))
                        if i in seats[r] and j in seats[r]]
                games = len(both) * g
                wins = int(sum((win_agent[r] == i).sum() for r in both))
                table[a][b] = {"wins": wins, "games": games,
                               "rate": wins / games if games else None,
                               "ci": list(wilson(wins, games)) if games else None}
        return table

    @property
    def head_to_head_note(self) -> str | None:
        """None when the head-to-head table measures pairings; else the one line that
        says why it is not printed (every game seated every agent)."""
        seats = self._seat_matrix()
        if any(len(set(seats[r].tolist())) < len(self.agents)
               for r in range(len(self.lineups))):
            return None
        return (f"no head-to-head table: every game seated all {len(self.agents)} agents "
                f"({self.num_players} seats), so 'A won with B at the table' is only A's "
                f"overall win rate; schedule 'pairs' plays each pair alone")

    def played(self) -> str:
        """One line on what was played: schedule, lineups, games, seats."""
        per_seat = self.seat_counts()
        seats = ("every agent in every seat "
                 f"{int(per_seat.max()):,} times" if (per_seat == per_seat.max()).all()
                 else "seats per agent in seat_counts")
        what = ("each pair of agents alone at the table" if self.schedule == "pairs"
                else "all agents rotated through the seats")
        return (f"{self.schedule}: {what}; {len(self.lineups)} line-ups x "
                f"{self.games_per_lineup:,} games; {seats}")

    def _pairs_alone(self) -> bool:
        """Did every game seat two agents only (schedule 'pairs', or 2 seats)?"""
        return all(len(set(lu)) == 2 for lu in self.lineups)

    def _h2h_caption(self) -> str:
        ci = " [95% Wilson interval]"
        if self.schedule == "pairs":
            return (f"head to head (row's win rate in the {2 * self.games_per_lineup:,} "
                    f"games of row and column alone{ci}):")
        if self._pairs_alone():
            return f"head to head (row's win rate in the games of row and column alone{ci}):"
        return ("head to head (row's win rate in the games where row and column both "
                f"sat; other agents sat too{ci}):")

    # --- output ------------------------------------------------------------------------
    def leaderboard(self) -> str:
        rows = self.stats()
        lines = [f"{self.num_games:,} games of {self.preset}, {self.num_players} players, "
                 f"seed {self.seed}, {len(self.lineups)} lineups x "
                 f"{self.games_per_lineup:,} games; {self.elapsed:.1f} s "
                 f"({self.games_per_hour:,.0f} games/hour); truncated {self.truncated}",
                 self.played(),
                 f"{'#':>2} {'agent':12s} {'games':>9s} {'wins':>8s} {'win rate':>9s} "
                 f"{'95% interval':>17s} {'pts/seat':>9s} {'OS mu':>7s} {'sigma':>6s}"]
        for n, d in enumerate(rows, 1):
            mu, sigma = d["openskill_mu"], d["openskill_sigma"]
            mu = f"{mu:7.2f}" if mu is not None else f"{'-':>7s}"
            sg = f"{sigma:6.2f}" if sigma is not None else f"{'-':>6s}"
            lines.append(f"{n:2d} {d['agent']:12s} {d['games']:9,d} {d['wins']:8,d} "
                         f"{d['win_rate']:9.4f} [{d['ci_low']:.4f}, {d['ci_high']:.4f}] "
                         f"{d['mean_points']:9.2f} {mu} {sg}")
        note = self.head_to_head_note
        if note is not None:
            lines.append(note)
        else:
            h2h = self.head_to_head()
            lines.append(self._h2h_caption())
            # a cell: the rate and its 95% interval, "0.512 [0.501, 0.523]"
            width = max(22, *(len(b) + 2 for b in self.agents))
            lines.append(" " * 12 + "".join(f"{b:>{width}s}" for b in self.agents))
            for a in self.agents:
                cells = []
                for b in self.agents:
                    c = None if a == b else h2h[a][b]
                    cells.append(f"{'-':>{width}s}" if c is None or c["rate"] is None else
                                 f"{c['rate']:.3f} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}]"
                                 .rjust(width))
                lines.append(f"{a:12s}" + "".join(cells))
        if self.ratings:
            lines.append(f"OS mu, sigma: {OPENSKILL_NOTE}; over {self.rated_games:,} games "
                         f"({self.rating_seconds:.1f} s)")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "agents": list(self.agents), "preset": self.preset,
            "num_players": self.num_players, "seed": self.seed, "rules": self.rules,
            "num_games": self.num_games, "games_per_lineup": self.games_per_lineup,
            "schedule": self.schedule, "played": self.played(),
            "lineups": [list(lu) for lu in self.lineups],
            # lineup r (seat 0 first) played games first_game .. first_game + games - 1
            "lineup_games": [{"lineup": list(lu), "games": self.games_per_lineup,
                              "first_game": r * self.games_per_lineup}
                             for r, lu in enumerate(self.lineups)],
            "seat_counts": {a: c.tolist() for a, c in zip(self.agents, self.seat_counts())},
            "truncated": self.truncated, "elapsed": self.elapsed,
            "openskill_seconds": self.rating_seconds,
            "games_per_hour": self.games_per_hour, "threads": self.threads,
            "leaderboard": self.stats(), "head_to_head": self.head_to_head(),
            "head_to_head_note": self.head_to_head_note,
            "openskill": self.ratings, "openskill_games": self.rated_games,
            "openskill_model": "openskill PlackettLuce; winner first, the others tied",
            "openskill_note": OPENSKILL_NOTE,
            "provenance": self.provenance,
        }

    def save(self, out_dir) -> dict[str, Path]:
        """Write results.json, leaderboard.csv, head_to_head.csv and win_rates.png."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {name: out / name for name in ("results.json", "leaderboard.csv",
                                               "head_to_head.csv", "win_rates.png")}
        paths["results.json"].write_text(json.dumps(self.to_dict(), indent=2))
        rows = self.stats()
        with open(paths["leaderboard.csv"], "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        h2h = self.head_to_head()
        with open(paths["head_to_head.csv"], "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["agent", "opponent", "wins", "games", "rate", "ci_low", "ci_high"])
            for a in self.agents:
                for b in self.agents:
                    if a != b:
                        c = h2h[a][b]
                        w.writerow([a, b, c["wins"], c["games"],
                                    *(["", "", ""] if c["rate"] is None else
                                      [c["rate"], *c["ci"]])])
        self._plot(paths["win_rates.png"], rows)
        return paths

    def _plot(self, path, rows) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        h2h = self.head_to_head_note is None
        width = max(4, 1.3 * len(rows) + 2)
        fig = Figure(figsize=(width + (1.1 * len(rows) + 3 if h2h else 0), 4.6))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 2, 1) if h2h else fig.add_subplot()
        names = [d["agent"] for d in rows]
        rates = np.array([d["win_rate"] for d in rows])
        err = np.array([[d["win_rate"] - d["ci_low"] for d in rows],
                        [d["ci_high"] - d["win_rate"] for d in rows]])
        ax.bar(names, rates, yerr=err, capsize=6, color="tab:blue")
        ax.set_ylabel("win rate (95% Wilson interval)")
        ax.set_title(f"{self.preset}, {self.num_players} players, "
                     f"{self.num_games:,} games")
        # what was played, under the chart: schedule, line-ups, games per line-up
        shown = "; ".join(" ".join(lu) for lu in self.lineups[:4])
        more = f" (+{len(self.lineups) - 4} more)" if len(self.lineups) > 4 else ""
        fig.text(0.01, 0.01, f"{self.played()}\nline-ups (seat 0 first): {shown}{more}",
                 fontsize=7, va="bottom")
        if h2h:
            table = self.head_to_head()
            k = len(self.agents)
            grid = np.full((k, k), np.nan)
            for i, a in enumerate(self.agents):
                for j, b in enumerate(self.agents):
                    if i != j and table[a][b]["rate"] is not None:
                        grid[i, j] = table[a][b]["rate"]
            hx = fig.add_subplot(1, 2, 2)
            hx.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
            for i in range(k):
                for j in range(k):
                    if not np.isnan(grid[i, j]):
                        hx.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center",
                                fontsize=8, color="white" if abs(grid[i, j] - 0.5) > 0.3
                                else "black")
            hx.set_xticks(range(k), self.agents, rotation=30, ha="right")
            hx.set_yticks(range(k), self.agents)
            hx.set_title("head to head: row's win rate" + (
                "\n(the pair alone)" if self._pairs_alone() else "\n(both at the table)"), fontsize=9)
        fig.tight_layout(rect=(0, 0.09, 1, 1))
        from uno_env.provenance import png_metadata
        fig.savefig(path, format="png", metadata=png_metadata(self.provenance))


def _rate(agents, seats, win_agent, limit):
    from openskill.models import PlackettLuce
    # tau=0: no added drift, so the final ratings weigh every game alike (with the
    # default tau the last few thousand games decide the order)
    model = PlackettLuce(tau=0.0)
    ratings = {a: model.rating(name=a) for a in agents}
    k, g = win_agent.shape
    present = [sorted(set(int(x) for x in seats[r])) for r in range(k)]
    rated = 0
    total = k * g if limit is None else min(limit, k * g)
    for n in range(total):
        i, r = divmod(n, k)          # interleave lineups: game i of every lineup
        w = int(win_agent[r, i])
        if w < 0:
            continue
        members = present[r]
        teams = [[ratings[agents[m]]] for m in members]
        ranks = [1 if m == w else 2 for m in members]
        new = model.rate(teams, ranks=ranks)
        for m, team in zip(members, new):
            ratings[agents[m]] = team[0]
        rated += 1
    return ({a: {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())}
             for a, r in ratings.items()}, rated)


def tournament(agents=("random", "greedy", "heuristic"), preset: str = "classic",
               num_players: int = 4, num_games: int = 100_000, seed: int = 0,
               threads: int | None = None, progress: bool = True,
               rating_games: int | None = 20_000, backend: str = "local",
               address: str | None = None, schedule: str = "rotate",
               **rules) -> TournamentResult:
    """Play every agent in every seat equally often (see the module docstring).

    ``schedule``: ``"rotate"`` (all agents together, rotated through the seats) or
    ``"pairs"`` (every pair of agents alone at the table, for a head-to-head table that
    measures pairings; module docstring, Schedules). ``num_games`` is rounded up to a
    multiple of the number of lineups (the number of agents for ``"rotate"``, ``K(K-1)``
    for ``"pairs"``). ``rating_games``
    rates only the first that many games (default 20,000; None rates all).

    ``backend="local"`` plays the chunks one after the other in this process (numba
    threads inside each); ``backend="ray"`` makes every chunk a Ray task
    (``uno_env.evaluation.distributed``; needs the ``ray`` extra), on the Ray instance at
    ``address`` (default: the one already connected, else a new local one). The same
    seed gives exactly the same results on either backend."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ValueError("address is the Ray cluster's address: use it with "
                         "backend='ray'")
    agents, python_agents = _check_agents(agents)
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) \
            or num_games < 1:
        raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
    if schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {schedule!r}; valid: {', '.join(SCHEDULES)}")
    lus = schedule_lineups(agents, num_players, schedule)
    k = len(lus)
    g = -(-int(num_games) // k)
    winner = np.empty((k, g), np.int32)
    points = np.empty((k, g, num_players), np.int32)
    bar = None
    if progress:
        from tqdm.auto import tqdm
        from uno_env.engine.entry import kernels
        from uno_env.rules.config import make_config
        # "compiling" only when the kernel the games need is not in the cache yet
        entry = kernels(make_config(preset, num_players, **rules).variant)
        compiling = not (entry.vector if python_agents else entry.simulate).cached()
        bar = tqdm(total=k * g, unit="game",
                   desc="compiling the engine (first run only)" if compiling
                   else "tournament")
    # One game first: numba compiles the kernels (a minute or two on first use, cached
    # on disk after), which games/hour should not count.
    _play_chunk(preset, num_players, lus[0], python_agents, 1, seed, 0, threads, rules)
    if bar is not None:
        bar.reset(total=k * g)  # the clock and the rate start after the compile
        bar.set_description("tournament")
    start = time.perf_counter()
    try:
        used_threads = play_lineups(lus, g, preset, num_players, python_agents, seed,
                                    threads, rules, winner, points, backend, address, bar)
    finally:
        if bar is not None:
            bar.close()
    elapsed = time.perf_counter() - start
    result = TournamentResult(agents, preset, num_players, int(seed), dict(rules), lus, g,
                              winner, points, elapsed=elapsed, threads=used_threads,
                              schedule=schedule)
    from uno_env.provenance import provenance
    from uno_env.rules.config import make_config
    result.provenance = provenance(make_config(preset, num_players, **rules), [seed],
                                   agents=list(agents))
    t0 = time.perf_counter()
    result.ratings, result.rated_games = _rate(
        agents, result._seat_matrix(), result._winning_agent(), rating_games)
    result.rating_seconds = time.perf_counter() - t0
    return result
