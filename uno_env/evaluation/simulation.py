"""``simulate``: whole games inside numba, in parallel, with agents chosen by name.

    >>> r = simulate("classic", num_players=4, num_games=10_000, seed=0)
    >>> r.win_rate, r.games_per_second

Game ``i`` of a seed is the same game whatever ``threads`` or the chunk size, so results
are identical on 1 thread and on all of them.
"""
from __future__ import annotations

import functools
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numba
import numpy as np

from uno_env.rules.config import make_config
from uno_env.engine import codes as C
from uno_env.engine.batch import STAT_NAMES, STAT_SLOTS
from uno_env.engine.entry import kernels
from uno_env.engine.names import AGENT_CODES, agent_code, is_search_name
from uno_env.engine.search import OP_SIMULATE, idle_arguments
from uno_env.engine.state import allocate
from uno_env.rules import check_seed

CHUNK = 4096


@dataclass
class SimResult:
    """Outcome of ``simulate``. Arrays are per game unless named per seat."""

    preset: str
    num_players: int
    agents: tuple[str, ...]
    seed: int
    winner: np.ndarray = field(repr=False)   # int32[games]: winning seat, -1 truncated
    turns: np.ndarray = field(repr=False)    # int32[games]: turns of the (last) round
    steps: np.ndarray = field(repr=False)    # int32[games]: decisions taken
    points: np.ndarray = field(repr=False)   # int32[games, seats]: round points / scores
    counters: dict = field(repr=False)       # name -> int64[games] (STAT_NAMES)
    elapsed: float = 0.0
    threads: int = 1

    @property
    def num_games(self) -> int:
        return len(self.winner)

    @property
    def wins(self) -> np.ndarray:
        """Wins per seat."""
        return np.bincount(self.winner[self.winner >= 0], minlength=self.num_players)

    @property
    def win_rate(self) -> np.ndarray:
        return self.wins / self.num_games

    @property
    def truncated(self) -> int:
        return int((self.winner < 0).sum())

    @property
    def mean_points(self) -> np.ndarray:
        """Mean points per seat per game."""
        return self.points.mean(axis=0)

    @property
    def games_per_second(self) -> float:
        return self.num_games / self.elapsed if self.elapsed else float("inf")

    @property
    def totals(self) -> dict[str, int]:
        """Sum of each counter over all games (cards drawn, challenges ...)."""
        return {name: int(v.sum()) for name, v in self.counters.items()}

    def summary(self) -> str:
        t = self.totals
        lines = [
            f"{self.num_games:,} games of {self.preset}, {self.num_players} players "
            f"({', '.join(self.agents)}), seed {self.seed}: {self.elapsed:.2f} s on "
            f"{self.threads} thread(s), {self.games_per_second:,.0f} games/s",
            "win rate by seat: " + "  ".join(f"{w:.3f}" for w in self.win_rate)
            + f"   truncated {self.truncated}",
            f"turns per game: mean {self.turns.mean():.1f}, median "
            f"{np.median(self.turns):.0f}, 90th pct {np.percentile(self.turns, 90):.0f}",
            f"per game: {t['cards_drawn'] / self.num_games:.1f} cards drawn, "
            f"{t['reshuffles'] / self.num_games:.2f} reshuffles, "
            f"{t['w4_played'] / self.num_games:.2f} W4 ({t['w4_bluffs']} bluffs), "
            f"{t['challenges'] / self.num_games:.2f} challenges "
            f"({t['challenges_won']} won), {t['catches'] / self.num_games:.2f} catches",
        ]
        return "\n".join(lines)


def _agent_codes(agents, num_players) -> np.ndarray:
    if isinstance(agents, str):
        agents = (agents,) * num_players
    agents = tuple(agents)
    if len(agents) != num_players:
        raise ValueError(f"agents must name one agent per seat ({num_players}), got "
                         f"{len(agents)}: {agents}")
    unknown = sorted({a for a in agents if not isinstance(a, str) or agent_code(a) is None})
    if unknown:
        raise ValueError(f"unknown agent(s) {unknown}; simulate runs the numba agents "
                         f"{', '.join(AGENT_CODES)} and the search agent mcts "
                         f"(mcts:BUDGET, e.g. mcts:400)")
    return agents, np.array([agent_code(a) for a in agents], np.int64)


def simulate(preset: str = "classic", num_players: int = 4, agents=("random",),
             num_games: int = 10_000, seed: int = 0, threads: int | None = None,
             first_game: int = 0, **rules) -> SimResult:
    """Play ``num_games`` whole games (matches when ``target_score > 0``) in numba.

    Args:
        agents: one agent name per seat (a single name is used for every seat): the
            numba agents ``random``, ``greedy``, ``heuristic`` and the search agent
            ``mcts`` (``mcts:400`` for 400 rollouts a decision; ``uno_env.engine.search``).
        threads: worker threads (default: all cores). Results do not depend on it.
        first_game: index of the first game (to split a run into parts).
    """
    cfg = make_config(preset, num_players, **rules)
    if isinstance(agents, (list, tuple)) and len(agents) == 1:
        agents = agents[0]
    names, codes = _agent_codes(agents, cfg.num_players)
    seed = check_seed(seed)
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) \
            or num_games < 1:
        raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
    max_threads = numba.config.NUMBA_NUM_THREADS
    threads = max_threads if threads is None else threads
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) \
            or not 1 <= threads <= max_threads:
        raise ValueError(f"threads must be an integer from 1 to {max_threads}, got "
                         f"{threads!r}")
    winner = np.empty(num_games, np.int32)
    turns = np.empty(num_games, np.int32)
    steps = np.empty(num_games, np.int32)
    points = np.empty((num_games, cfg.num_players), np.int32)
    stats = np.empty((num_games, len(STAT_SLOTS)), np.int64)
    search = any(is_search_name(a) for a in names)
    # the search agent has its own entry point: the plain one never compiles it
    simulate_chunk = kernels(cfg.variant).simulate
    if search:
        simulate_chunk = functools.partial(search_simulate_chunk, kernels(cfg.variant).search)
    # Games are split into chunks played by `threads` Python threads: the kernel releases
    # the GIL, and each game is dealt from its own index, so the split changes nothing.
    # (A numba `parallel=True` kernel would double the first-run compile.)
    chunk = min(CHUNK, -(-num_games // threads))
    bounds = [(lo, min(lo + chunk, num_games)) for lo in range(0, num_games, chunk)]

    def play(bound):
        lo, hi = bound
        st = allocate(hi - lo, cfg.num_players, cfg.deck.num_types, cfg.deck.num_cards,
                      cfg.deck.double_sided)
        simulate_chunk(st, cfg.spec, codes, np.uint64(seed), first_game + lo, STAT_SLOTS,
                       winner[lo:hi], turns[lo:hi], steps[lo:hi], points[lo:hi],
                       stats[lo:hi])

    start = time.perf_counter()
    if threads == 1 or len(bounds) == 1:
        for bound in bounds:
            play(bound)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(play, bounds))
    elapsed = time.perf_counter() - start
    counters = {name: stats[:, k] for k, name in enumerate(STAT_NAMES)}
    return SimResult(preset, cfg.num_players, names, seed, winner, turns, steps, points,
                     counters, elapsed, threads)


def search_simulate_chunk(search, st, spec, codes, seed, first_index, stat_slots, *out):
    """A chunk of games with search agents: the ``search`` entry point's
    ``OP_SIMULATE`` (``engine.search.search_kernel``) with the arguments of
    ``batch.simulate_chunk``."""
    _, no_learner = idle_arguments(st.hands.shape[1], spec.layout[C.L_OBS_SIZE],
                                   spec.layout[C.L_SIZE])
    search(OP_SIMULATE, st, st, spec, codes, seed, first_index, stat_slots,
           np.zeros(st.info.shape[0], np.uint64),
           np.zeros((1, *st.hands.shape[1:]), np.uint8), np.zeros(0, np.int64), *out,
           *no_learner)


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
