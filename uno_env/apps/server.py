"""``uno-bench serve``: UNO in the browser against agents (a Starlette app on uvicorn).

    uno-bench serve                 # http://127.0.0.1:8000, this machine only
    uno-bench serve --port 9000 --host 0.0.0.0

A person picks the preset, the number of players, the opponents (baselines or shipped
models, docs in ``agents``) and their own seat, then plays: the page offers only the
legal moves the server sends (``Game.legal_moves()``, read from the action mask), asks
the server to make the opponents' moves one at a time and shows each, and when the game
is over offers it as a replay file (``uno_env.apps.replay``).

The games live on the server, one ``Game`` per session. Session ids are
``secrets.token_urlsafe(24)``; a session idle for ``idle_seconds`` is forgotten. Places
are for live games: at most ``max_sessions`` exist at once and a new game past that
takes the place of a finished one (its replay is downloadable until then), else of a
live one idle for ``evict_idle_seconds``, longest idle first; only when there is none
is it refused, 429 with ``Retry-After``. One client address may have at most
``max_per_client`` live games (429 and ``Retry-After`` past that). An opponent's move
runs in a worker thread (search agents in a pool of their own, ``search_workers``
threads at a lower priority) while the event loop serves other sessions; requests to
one session wait their turn on an ``asyncio.Lock``. ``advance`` waits up to
``move_seconds`` for the move, then answers 202 with ``"thinking": true`` (the move goes
on; ask ``advance`` again). docs/serve.md has the limits and their load figures. Every
bad request gets a 4xx JSON ``{"error": message}`` and leaves the game as it was:
malformed JSON or fields (400), an unknown session (404), a move when it is not the
person's turn or an opponent move when it is (409), a stale ``step`` (409), an illegal
move (422, naming the legal moves). The JSON API:

    GET  /api/options                  presets, agents, player range
    POST /api/games                    {preset, players, opponents, seat?, seed?}
    GET  /api/games/{id}               the person's view of the table
    POST /api/games/{id}/move          {move, step?}: the person's move
    POST /api/games/{id}/advance       {step?}: the next opponent makes its move (200),
                                       or is still thinking (202)
    GET  /api/games/{id}/replay        the finished game as a replay (a download)
"""
from __future__ import annotations

import asyncio
import json
import math
import os
import secrets
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from uno_env.apps import _web
from uno_env.envs.game import Game
from uno_env.apps.replay import _events, make_seat_agent, public_state, to_replay
from uno_env.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS

MAX_BODY = 16_384
#: the most rollouts a decision an ``mcts:N`` opponent may be given
MAX_SEARCH_BUDGET = 5000
#: the niceness of search threads (Linux): a search yields the CPU to the event loop
SEARCH_NICE = 10


class RequestError(Exception):
    """A request the server refuses: HTTP ``status`` with ``message``."""

    def __init__(self, status: int, message: str, retry_after: int | None = None,
                 **extra):
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra
        self.headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        if retry_after is not None:
            self.extra["retry_after"] = retry_after


def agent_names() -> list[str]:
    """What an opponent can be: the baselines and the shipped models."""
    from uno_env.envs.agent_registry import agent_names as registered
    return registered()


def _check_opponent(name: str, valid: list) -> bool:
    """Is ``name`` an agent the server plays: a registered name, or a search agent with
    a budget up to ``MAX_SEARCH_BUDGET`` (``mcts:200``, ``mcts-ucb:50``)? A malformed or
    too costly search name is a 400 naming what is valid."""
    if name in valid:
        return True
    from uno_env.engine.search import parse_search_name
    try:
        search = parse_search_name(name)
    except ValueError as err:
        raise RequestError(400, str(err)) from None
    if search is not None and search[0] > MAX_SEARCH_BUDGET:
        raise RequestError(400, f"{name!r}: this server gives a search at most "
                                f"{MAX_SEARCH_BUDGET} rollouts a decision, e.g. "
                                f"'mcts:{MAX_SEARCH_BUDGET}'")
    return search is not None


@dataclass
class Session:
    game: Game
    seat: int
    names: list
    agents: list
    last_used: float
    client: str = ""
    # requests to this session, one at a time (acquired in the event loop)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    thinking: Future | None = None   # an opponent's move under way in a worker thread
    prev: dict = field(default_factory=dict)   # public_state before the last move
    stats: dict = field(default_factory=dict)
    events: list = field(default_factory=list)


class Sessions:
    """The games: unguessable ids, idle expiry, a cap on all games and on each client's
    live games; a new game past the cap takes a finished game's place, else a live one
    idle for ``evict_idle_seconds`` (longest idle first), else is refused (429)."""

    def __init__(self, max_sessions: int = 100, idle_seconds: float = 1800.0,
                 clock=time.monotonic, max_per_client: int | None = 10,
                 evict_idle_seconds: float = 300.0):
        self.max_sessions, self.idle_seconds, self.clock = max_sessions, idle_seconds, clock
        self.max_per_client, self.evict_idle_seconds = max_per_client, evict_idle_seconds
        self._items: dict[str, Session] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = self.clock()
        for sid in [s for s, v in self._items.items()
                    if now - v.last_used > self.idle_seconds]:
            self._drop(sid)

    def _drop(self, sid: str) -> None:
        """Forget a game; a search queued for it is not run."""
        session = self._items.pop(sid)
        if session.thinking is not None:
            session.thinking.cancel()

    def _retry_after(self, live: list, now: float) -> int:
        """Seconds until the longest idle of ``live`` may be evicted or expires (at
        least 1)."""
        idle = max((now - s.last_used for s in live), default=0.0)
        return max(1, math.ceil(min(self.evict_idle_seconds, self.idle_seconds) - idle))

    def _evict_one(self, sids: list, now: float) -> bool:
        """Drop the first finished game of ``sids``, else the longest idle live one past
        ``evict_idle_seconds``; False if none may go."""
        items = self._items
        done = [sid for sid in sids if items[sid].game.is_over]
        stale = [sid for sid in sids if not items[sid].game.is_over
                 and now - items[sid].last_used >= self.evict_idle_seconds]
        for group in (done, stale):
            if group:
                self._drop(min(group, key=lambda sid: items[sid].last_used))
                return True
        return False

    def add(self, session: Session, client: str = "") -> str:
        with self._lock:
            self._expire()
            now, items = self.clock(), self._items
            session.client = client
            mine = [sid for sid, s in items.items()
                    if s.client == client and not s.game.is_over]
            if self.max_per_client is not None and len(mine) >= self.max_per_client \
                    and not self._evict_one(mine, now):
                wait = self._retry_after([items[sid] for sid in mine], now)
                raise RequestError(429, f"this client ({client}) has {len(mine)} games in "
                                        f"progress, the most one client may have; finish "
                                        f"one (finished games do not count) or retry in "
                                        f"{wait} s, when its longest idle game may give "
                                        f"up its place", retry_after=wait)
            if len(items) >= self.max_sessions and not self._evict_one(list(items), now):
                wait = self._retry_after(list(items.values()), now)
                raise RequestError(429, f"the server is at its limit of "
                                        f"{self.max_sessions} games in progress; retry in "
                                        f"{wait} s, when the longest idle game may give up "
                                        f"its place (a finished game gives it up at once)",
                                   retry_after=wait)
            sid = secrets.token_urlsafe(24)
            items[sid] = session
            return sid

    def get(self, sid: str) -> Session:
        with self._lock:
            self._expire()
            session = self._items.get(sid)
            if session is None:
                raise RequestError(404, "no such game (it may have expired after "
                                        f"{self.idle_seconds / 60:g} idle minutes, or "
                                        "finished and given its place to a new game)")
            session.last_used = self.clock()
            return session

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._items)


# --- the person's view ----------------------------------------------------------------
def view(sid: str, s: Session) -> dict:
    g = s.game
    st = public_state(g)
    flip = g.config.deck.double_sided
    mine = g.current_player == s.seat and not g.is_over
    others = {str(k): ([c.split("|")[0 if g.side == "dark" else 1] for c in st["hands"][k]]
                       if flip else None)
              for k in range(g.num_players) if k != s.seat}
    out = {k: st[k] for k in ("current", "phase", "top", "color", "direction", "side",
                              "draw_pile", "hand_sizes", "pending_draw", "catchable",
                              "turns", "round", "scores", "over", "result")}
    out.update(id=sid, preset=g.config.preset, players=g.num_players, seat=s.seat,
               agents=s.names, step=len(g.history), hand=st["hands"][s.seat],
               far_sides=others, flip=flip, legal=g.legal_moves() if mine else [],
               your_turn=mine, history=[[seat, m] for seat, m in g.history],
               events=s.events, thinking=s.thinking is not None)
    return out


def _record(s: Session) -> None:
    """After a move: what it did (draws, challenges, ...), for the page."""
    seat, move = s.game.history[-1]
    new, stats = public_state(s.game), s.game.stats
    s.events = _events(s.prev, new, s.stats, stats, seat, move)
    s.prev, s.stats = new, stats


# --- requests ---------------------------------------------------------------------------
async def _body(request) -> dict:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise RequestError(413, f"request body over {MAX_BODY} bytes")
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise RequestError(400, f"the request body is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise RequestError(400, "the request body must be a JSON object")
    return data


def _int(data, key, default=None, lo=None, hi=None):
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) \
            or (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = f" from {lo} to {hi}" if hi is not None else (f" >= {lo}" if lo is not None
                                                            else "")
        raise RequestError(400, f"{key!r} must be an integer{rng}, got {value!r}")
    return value


def _check_step(data, s: Session) -> None:
    if "step" in data:
        step = _int(data, "step", lo=0)
        if step != len(s.game.history):
            raise RequestError(409, f"stale request: it was sent at step {step} but the "
                                    f"game is at step {len(s.game.history)}")


def _nice_thread() -> None:
    """Lower this thread's priority (Linux: a thread's id is a process id here)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                       os.getpriority(os.PRIO_PROCESS, 0) + SEARCH_NICE)
    except (AttributeError, OSError):    # not Linux: the search shares the CPU evenly
        pass


def _decide(agent, game: Game, seat: int, budget: int | None = None) -> int:
    """An opponent's move (in a worker thread; the game is only read). ``budget``: for a
    search agent (``agents.MCTSAgent``), the rollouts of this decision if not its own."""
    if budget is None or budget == getattr(agent, "budget", None):
        return int(agent.act(game.observe(seat), game.action_mask().copy()))
    own = agent._codes
    # the search code carries the budget in its low digits (engine.search.mcts_code)
    agent._codes = np.array([agent.search_code - agent.budget + budget], np.int64)
    try:
        return int(agent.act(game.observe(seat), game.action_mask().copy()))
    finally:
        agent._codes = own


def _cuttable(agent) -> bool:
    """May this search agent's budget be cut for one decision?"""
    return isinstance(getattr(agent, "budget", None), int) and \
        getattr(agent, "_codes", None) is not None and hasattr(agent, "search_code")


class FairSearch:
    """The search agents' moves, shared fairly between clients (docs/serve.md, "Fair
    search time").

    Each client (address) has its own queue of searches, at most ``max_queued`` long;
    ``workers`` threads (at niceness ``SEARCH_NICE``) take the next search from the
    clients in turn, the client served least recently first (round-robin; a client
    that has just come goes first), so a client waits for the searches in progress and
    at most one search of each other client, never for another client's whole queue.
    While other clients are searching (a search queued, or one finished in the last
    ``recent_seconds``), a search is cut to the rollouts that fit in ``slice_seconds``
    (at least ``min_budget``), from the longest a rollout took in this server's last 8
    searches of the same variant and player count; alone, a search has its full
    budget. ``submit`` returns None when the client's queue is full."""

    def __init__(self, workers: int = 1, slice_seconds: float = 0.25,
                 max_queued: int = 4, recent_seconds: float = 2.0, min_budget: int = 100,
                 clock=time.monotonic):
        self.workers, self.slice_seconds, self.max_queued = workers, slice_seconds, \
            max_queued
        self.recent_seconds, self.min_budget, self.clock = recent_seconds, min_budget, \
            clock
        self._queues: dict[str, deque] = {}
        self._turns: deque = deque()          # clients with searches queued, in turn
        self._recent: dict[str, float] = {}   # client -> when it last had a search
        self._served: dict[str, int] = {}     # client -> when its last search began
        self._count = 0
        # (variant, players) -> seconds a rollout took in the last searches
        self._per_rollout: dict[tuple, deque] = {}
        self._cv = threading.Condition()
        self._threads: list[threading.Thread] = []
        self.counts = {"searches": 0, "cut": 0}

    def submit(self, client: str, agent, game: Game, seat: int) -> Future | None:
        """Queue ``agent``'s move for ``game``; the Future's result is the action."""
        with self._cv:
            queue = self._queues.setdefault(client, deque())
            if len(queue) >= self.max_queued:
                return None
            future: Future = Future()
            queue.append((future, agent, game, seat))
            if client not in self._turns:
                self._turns.append(client)
            self._recent[client] = self.clock()
            if len(self._threads) < self.workers:       # started on first use
                t = threading.Thread(target=self._work, daemon=True,
                                     name=f"uno-search-{len(self._threads)}")
                self._threads.append(t)
                t.start()
            self._cv.notify()
        return future

    def queued(self, client: str) -> int:
        with self._cv:
            return len(self._queues.get(client, ()))

    def _next(self):
        with self._cv:
            while not self._turns:
                self._cv.wait()
            # the client served least recently first: one that has just come waits
            # only for the searches in progress
            client = min(self._turns, key=lambda c: self._served.get(c, -1))
            self._turns.remove(client)
            self._served[client] = self._count = self._count + 1
            queue = self._queues[client]
            job = queue.popleft()
            if queue:
                self._turns.append(client)
            else:
                del self._queues[client]
            now = self.clock()
            self._recent = {c: t for c, t in self._recent.items()
                            if now - t <= self.recent_seconds or c in self._queues}
            self._recent[client] = now
            self._served = {c: n for c, n in self._served.items() if c in self._recent}
            return client, job, len(self._recent) > 1

    def budget(self, agent, game: Game, contended: bool) -> int | None:
        """The rollouts this decision gets (None: the agent's own)."""
        if not contended or not _cuttable(agent):
            return None
        recent = self._per_rollout.get((game.config.variant, game.num_players))
        if not recent:
            return None
        per = max(recent)          # the slowest of the last 8: positions differ
        cut = max(min(self.min_budget, agent.budget), int(self.slice_seconds / per))
        return cut if cut < agent.budget else None

    def _work(self) -> None:
        _nice_thread()
        while True:
            client, (future, agent, game, seat), contended = self._next()
            if not future.set_running_or_notify_cancel():
                continue                               # its game was dropped
            try:
                budget = self.budget(agent, game, contended)
                t = time.perf_counter()
                action = _decide(agent, game, seat, budget)
                took = time.perf_counter() - t
                if _cuttable(agent):
                    key = (game.config.variant, game.num_players)
                    self._per_rollout.setdefault(key, deque(maxlen=8)).append(
                        took / (budget or agent.budget))
                self.counts["searches"] += 1
                self.counts["cut"] += budget is not None
                future.set_result(action)
            except BaseException as err:               # the request reports it
                future.set_exception(err)
            with self._cv:
                self._recent[client] = self.clock()


class App:
    def __init__(self, max_sessions=100, idle_seconds=1800.0, clock=time.monotonic,
                 max_per_client=10, evict_idle_seconds=300.0, move_seconds=5.0,
                 search_workers=None, workers=4, search_slice=0.25, search_queue=4):
        self.sessions = Sessions(max_sessions, idle_seconds, clock, max_per_client,
                                 evict_idle_seconds)
        self.move_seconds = move_seconds
        # load the agent plug-ins now, so that no request pays it
        agent_names()
        # searches get their own threads (one core left for the event loop and the
        # quick agents), so a queue of searches does not delay a heuristic's move
        search = search_workers or max(1, (os.cpu_count() or 2) - 1)
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="uno-agent")
        self.search = FairSearch(search, search_slice, search_queue)

    def new_game(self, data: dict, client: str = "") -> tuple[str, Session]:
        preset = data.get("preset", "classic")
        if not isinstance(preset, str) or preset not in PRESETS:
            raise RequestError(400, f"unknown preset {preset!r}; valid presets: "
                                    f"{', '.join(PRESETS)}")
        players = _int(data, "players", 2, MIN_PLAYERS, MAX_PLAYERS)
        seat = _int(data, "seat", 0, 0, players - 1)
        seed = _int(data, "seed", secrets.randbelow(2**62), 0, 2**63 - 1)
        opponents = data.get("opponents", "heuristic")
        if isinstance(opponents, str):
            opponents = [opponents]
        valid = agent_names()
        if not isinstance(opponents, list) or not opponents \
                or not all(isinstance(o, str) for o in opponents):
            raise RequestError(400, "'opponents' must be an agent name or a list of "
                                    f"them; valid: {', '.join(valid)}")
        if len(opponents) == 1:
            opponents = opponents * (players - 1)
        if len(opponents) != players - 1:
            raise RequestError(400, f"'opponents': one name per opponent ({players - 1}) "
                                    f"or one for all, got {len(opponents)}")
        bad = [o for o in opponents if not _check_opponent(o, valid)]
        if bad:
            raise RequestError(400, f"unknown opponent(s) {', '.join(map(repr, bad))}; "
                                    f"valid: {', '.join(valid)}, or mcts:N (N rollouts "
                                    f"a decision, 1 to {MAX_SEARCH_BUDGET})")
        try:
            game = Game(preset, players, seed=seed)
            names, agents = [], []
            others = iter(opponents)
            for k in range(players):
                name = "you" if k == seat else next(others)
                names.append(name)
                agent = None if k == seat else \
                    make_seat_agent(name, game.config, seed=seed + k)
                if callable(getattr(agent, "attach", None)):
                    agent.attach(game)     # a search agent reads the position it plays
                agents.append(agent)
        except (ValueError, NotImplementedError) as err:
            raise RequestError(400, str(err)) from None
        game._replay_origin = {"index": 0}
        s = Session(game, seat, names, agents, self.sessions.clock())
        s.prev, s.stats = public_state(game), game.stats
        return self.sessions.add(s, client), s

    def move(self, s: Session, data: dict) -> None:
        g = s.game
        move = data.get("move")
        if not isinstance(move, str):
            raise RequestError(400, f"'move' must be a move string such as 'R5' or "
                                    f"'draw', got {move!r}")
        if g.is_over:
            raise RequestError(409, "the game is over: no move is legal")
        _check_step(data, s)
        if g.current_player != s.seat:
            raise RequestError(409, f"not your turn: it is seat {g.current_player}'s "
                                    f"({s.names[g.current_player]}); ask it to move with "
                                    f"POST advance")
        legal = g.legal_moves()
        if move not in legal:
            raise RequestError(422, f"{move!r} is not a legal move now; legal moves: "
                                    f"{', '.join(legal)}", legal=legal)
        g.play(move)
        _record(s)

    async def advance(self, s: Session, data: dict) -> bool:
        """The next opponent's move (call under ``s.lock``): True once made, False if
        the agent is still thinking after ``move_seconds`` (it goes on in its thread)."""
        g = s.game
        if g.is_over:
            raise RequestError(409, "the game is over: no move is legal")
        _check_step(data, s)
        seat = g.current_player
        if seat == s.seat:
            raise RequestError(409, "it is your turn: an opponent cannot move now")
        end = time.monotonic() + self.move_seconds
        agent = s.agents[seat]
        while s.thinking is None:
            if not hasattr(agent, "attach"):
                s.thinking = self.pool.submit(_decide, agent, g, seat)
                break
            # a search: in this client's queue, once it has room (FairSearch)
            s.thinking = self.search.submit(s.client, agent, g, seat)
            if s.thinking is None:
                if time.monotonic() >= end:
                    return False
                await asyncio.sleep(0.05)
        done, _ = await asyncio.wait([asyncio.wrap_future(s.thinking)],
                                     timeout=max(0.0, end - time.monotonic()))
        if not done:
            return False
        future, s.thinking = s.thinking, None
        g.step(future.result())       # only here, in the event loop, is the game changed
        _record(s)
        return True

    # --- the Starlette app -------------------------------------------------------------
    def starlette(self):
        """The Starlette app (imported here: the web extra is optional)."""
        try:
            from starlette.applications import Starlette
            from starlette.responses import HTMLResponse, JSONResponse, Response
            from starlette.routing import Route
        except ImportError as err:
            raise ImportError(f"uno-bench serve needs the web extra: pip install "
                              f"'uno-env[web]' ({err})") from None
        def handle(fn):
            async def endpoint(request):
                try:
                    return await fn(request)
                except RequestError as err:
                    return JSONResponse({"error": err.message, **err.extra},
                                        status_code=err.status, headers=err.headers)
            return endpoint

        async def index(request):
            return HTMLResponse(PAGE)

        async def options(request):
            return JSONResponse({"presets": list(PRESETS), "agents": agent_names(),
                                 "min_players": MIN_PLAYERS, "max_players": MAX_PLAYERS,
                                 "max_search_budget": MAX_SEARCH_BUDGET})

        async def create(request):
            data = await _body(request)
            client = request.client.host if request.client else ""
            # a new game loads its agents (a model file, a first compile): off the loop
            sid, s = await asyncio.wrap_future(self.pool.submit(self.new_game, data,
                                                                client))
            async with s.lock:
                return JSONResponse(view(sid, s), status_code=201)

        def session_of(request) -> tuple[str, Session]:
            sid = request.path_params["sid"]
            return sid, self.sessions.get(sid)

        async def show(request):
            sid, s = session_of(request)
            async with s.lock:
                return JSONResponse(view(sid, s))

        async def move(request):
            data = await _body(request)
            sid, s = session_of(request)
            async with s.lock:
                self.move(s, data)
                return JSONResponse(view(sid, s))

        async def advance(request):
            data = await _body(request)
            sid, s = session_of(request)
            async with s.lock:
                moved = await self.advance(s, data)
                return JSONResponse(view(sid, s), status_code=200 if moved else 202)

        async def replay(request):
            sid, s = session_of(request)
            async with s.lock:
                if not s.game.is_over:
                    raise RequestError(409, "the game is not over: its replay (which "
                                            "shows every hand) comes at the end")
                data = to_replay(s.game, agents=s.names)
            name = f"uno_{data['preset']}_{data['players']}p_seed{data['seed']}.json"
            return Response(json.dumps(data, indent=1), media_type="application/json",
                            headers={"Content-Disposition":
                                     f'attachment; filename="{name}"'})

        async def not_found(request, exc):
            return JSONResponse({"error": f"no such page: {request.url.path}"},
                                status_code=getattr(exc, "status_code", 404))

        routes = [Route("/", index), Route("/api/options", handle(options)),
                  Route("/api/games", handle(create), methods=["POST"]),
                  Route("/api/games/{sid}", handle(show)),
                  Route("/api/games/{sid}/move", handle(move), methods=["POST"]),
                  Route("/api/games/{sid}/advance", handle(advance), methods=["POST"]),
                  Route("/api/games/{sid}/replay", handle(replay))]
        app = Starlette(routes=routes, exception_handlers={404: not_found,
                                                           405: not_found})
        app.state.uno = self
        return app


def create_app(max_sessions: int = 100, idle_seconds: float = 1800.0,
               clock=time.monotonic, max_per_client: int | None = 10,
               evict_idle_seconds: float = 300.0, move_seconds: float = 5.0,
               search_workers: int | None = None, search_slice: float = 0.25,
               search_queue: int = 4):
    """The ASGI app (state in memory, one process). ``max_per_client``: live games one
    client address may have (None: no limit); ``evict_idle_seconds``: how long a live
    game must be idle before a new game may take its place; ``move_seconds``: how long
    ``advance`` waits for an agent's move before answering 202 (still thinking);
    ``search_workers``: threads for search agents (default: the cores but one);
    ``search_slice``: the seconds a search is cut to while other clients search;
    ``search_queue``: the searches one client may have queued (``FairSearch``)."""
    for key, value in (("search_slice", search_slice), ("move_seconds", move_seconds)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ValueError(f"{key} must be a positive number of seconds, got {value!r}")
    if isinstance(search_queue, bool) or not isinstance(search_queue, int) \
            or search_queue < 1:
        raise ValueError(f"search_queue must be a positive integer, got {search_queue!r}")
    return App(max_sessions, idle_seconds, clock, max_per_client, evict_idle_seconds,
               move_seconds, search_workers, search_slice=search_slice,
               search_queue=search_queue).starlette()


def cli_serve(host="127.0.0.1", port=8000, max_sessions=100, idle_minutes=30.0,
              max_per_client=10, move_seconds=5.0):
    """``uno-bench serve``."""
    import typer
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        typer.echo("uno-bench serve needs the web extra: pip install 'uno-env[web]'",
                   err=True)
        raise typer.Exit(1) from None
    typer.echo(f"UNO in the browser: http://{host}:{port}/  (Ctrl-C stops)")
    uvicorn.run(create_app(max_sessions, idle_minutes * 60,
                           max_per_client=max_per_client, move_seconds=move_seconds),
                host=host, port=port, log_level="warning")


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>UNO against the agents</title>
<link rel="icon" href="data:,">
<style>""" + _web.CSS + """
#lobby { padding: 16px; } #lobby label { display: block; margin: 8px 0; }
#game { display: none; }
</style></head><body>
<header><h1>UNO against the agents</h1><span id="status"></span></header>
<section id="lobby">
  <label>preset <select id="preset"></select></label>
  <label>players <input id="players" type="number" value="3" style="width:4em"></label>
  <label>your seat <input id="seat" type="number" value="0" min="0" style="width:4em"></label>
  <div id="opponents"></div>
  <label>seed (empty: random) <input id="seed" type="number" min="0" style="width:10em"></label>
  <button id="start">start the game</button>
  <div id="lobby-error"></div>
</section>
<main id="game">
  <section class="table">
    <div class="centre">
      <div><div class="muted">discard top</div><div id="top"></div></div>
      <div><div class="muted">colour in force</div><div id="colour"></div></div>
      <div><div class="muted">direction</div><div id="direction"></div></div>
      <div><div class="muted">draw pile</div><div id="draw-pile"></div></div>
      <div><div class="muted">side in play</div><div id="side"></div></div>
      <div><div class="muted">to draw</div><div id="pending"></div></div>
    </div>
    <div id="result"></div>
    <div class="events" id="events"></div>
    <div id="seats"></div>
    <div id="error"></div>
  </section>
  <aside class="log"><b>moves</b><ol id="log"></ol></aside>
</main>
<script>""" + _web.JS + r"""
const params = new URLSearchParams(location.search);
const DELAY = parseInt(params.get("delay") || "700", 10);
let G = null, busy = false, AGENTS = [];
async function api(path, body) {
  const opts = body === undefined ? {} : {method: "POST", body: JSON.stringify(body),
                                          headers: {"Content-Type": "application/json"}};
  const r = await fetch(path, opts);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
  return data;
}
function opponentsForm() {
  const n = parseInt(document.getElementById("players").value, 10) || 2;
  const seat = parseInt(document.getElementById("seat").value, 10) || 0;
  const box = document.getElementById("opponents"); box.replaceChildren();
  for (let s = 0; s < n; s++) {
    if (s === seat) continue;
    const sel = h("select", {class: "opponent", "data-seat": String(s)});
    for (const a of AGENTS) sel.append(h("option", {value: a}, a));
    sel.value = AGENTS.includes("heuristic") ? "heuristic" : AGENTS[0];
    box.append(h("label", {}, "seat " + s + " ", sel));
  }
}
async function lobby() {
  const o = await api("/api/options");
  AGENTS = o.agents;
  const p = document.getElementById("preset");
  for (const x of o.presets) p.append(h("option", {value: x}, x));
  document.getElementById("players").min = o.min_players;
  document.getElementById("players").max = o.max_players;
  document.getElementById("players").oninput = opponentsForm;
  document.getElementById("seat").oninput = opponentsForm;
  opponentsForm();
}
document.getElementById("start").onclick = async () => {
  const body = {preset: document.getElementById("preset").value,
                players: parseInt(document.getElementById("players").value, 10),
                seat: parseInt(document.getElementById("seat").value, 10),
                opponents: [...document.querySelectorAll(".opponent")].map(s => s.value)};
  const seed = document.getElementById("seed").value;
  if (seed !== "") body.seed = parseInt(seed, 10);
  try { G = await api("/api/games", body); }
  catch (e) { document.getElementById("lobby-error").replaceChildren(h("div", {class: "error"}, e.message)); return; }
  document.getElementById("lobby").style.display = "none";
  document.getElementById("game").style.display = "flex";
  render(); opponents();
};
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function opponents() {          // the opponents' moves, one at a time
  busy = true; render();
  try {
    while (!G.over && !G.your_turn) {
      await sleep(DELAY);
      G = await api("/api/games/" + G.id + "/advance", {step: G.step});
      render();
    }
  } catch (e) { showError(e); }
  busy = false; render();
}
async function play(move) {
  if (busy) return;
  busy = true;
  try { G = await api("/api/games/" + G.id + "/move", {move: move, step: G.step}); }
  catch (e) { showError(e); busy = false; return; }
  busy = false; render(); opponents();
}
function showError(e) { document.getElementById("error").replaceChildren(h("div", {class: "error"}, e.message)); }
const who = s => s === G.seat ? "you (seat " + s + ")" : "seat " + s + " (" + G.agents[s] + ")";
function cardOf(move, hand) {        // the hand card a move plays, if any
  const base = move.split(/[:+]/)[0];
  return hand.includes(base) ? base : null;
}
function render() {
  document.getElementById("status").textContent = G.over ? "game over" :
    (G.your_turn ? (busy ? "..." : "your turn") : who(G.current) + " is thinking...");
  document.getElementById("top").replaceChildren(cardEl(G.top, G.side, {big: true}));
  const col = document.getElementById("colour");
  col.replaceChildren(swatch(G.color), " " + (G.color ? COLOURS[G.color] : "-"));
  col.dataset.colour = G.color || "";
  document.getElementById("direction").textContent = G.direction > 0 ? "clockwise (+1)" : "counter-clockwise (-1)";
  document.getElementById("draw-pile").textContent = G.draw_pile + " cards";
  document.getElementById("side").textContent = G.side;
  document.getElementById("pending").textContent = G.pending_draw ? String(G.pending_draw) : "-";
  document.getElementById("events").textContent = G.events.join("; ");
  const res = document.getElementById("result"); res.replaceChildren(); res.className = "";
  if (G.over) {
    res.className = "result";
    const r = G.result;
    res.append(r.truncated ? "Game over: truncated (turn limit), no winner. " :
               "Game over: " + (r.winner === G.seat ? "you win!" : who(r.winner) + " wins.") +
               " Round points: " + r.round_points.join(", ") + ". ");
    res.append(h("a", {id: "download", href: "/api/games/" + G.id + "/replay",
                      download: ""}, "download the replay"));
  }
  const seats = document.getElementById("seats"); seats.replaceChildren();
  const clickable = G.your_turn && !busy;
  for (let s = 0; s < G.players; s++) {
    let cls = "seat" + (G.current === s ? " current" : "") +
              (G.over && G.result.winner === s ? " winner" : "");
    const box = h("div", {class: cls, "data-seat": String(s)});
    box.append(h("h3", {}, who(s) + " - ", h("span", {class: "hand-size"}, String(G.hand_sizes[s])),
                 " card(s)", G.catchable === s ? " - catchable (no UNO)" : ""));
    const hand = h("div", {class: "hand"});
    if (s === G.seat) {
      for (const c of G.hand) {
        const el = cardEl(c, G.side);
        const moves = G.legal.filter(m => cardOf(m, G.hand) === c);
        if (clickable && moves.length) {
          el.classList.add("legal");
          el.onclick = () => moves.length === 1 ? play(moves[0]) : choose(moves);
        }
        hand.append(el);
      }
    } else if (G.flip) G.far_sides[String(s)].forEach(f => hand.append(cardEl(f, G.side)));
    else for (let k = 0; k < G.hand_sizes[s]; k++) hand.append(backEl());
    box.append(hand);
    if (s === G.seat && clickable) {
      const mv = h("div", {class: "moves", id: "moves"});
      for (const m of G.legal) mv.append(h("button", {class: "move", "data-move": m,
                                                       onclick: () => play(m)}, m));
      box.append(mv);
    }
    seats.append(box);
  }
  const log = document.getElementById("log"); log.replaceChildren();
  G.history.forEach(([s, m], i) => {
    const li = h("li", {"data-step": String(i + 1), "data-seat": String(s),
                        "data-move": m}, who(s) + ": " + m);
    if (i === G.history.length - 1) { li.classList.add("current");
      if (G.events.length) li.append(h("div", {class: "ev"}, G.events.join("; "))); }
    log.append(li);
  });
  if (log.lastChild) log.lastChild.scrollIntoView({block: "nearest"});
}
function choose(moves) {
  for (const b of document.querySelectorAll("#moves button"))
    b.style.outline = moves.includes(b.dataset.move) ? "3px solid #ffd54a" : "";
}
lobby();
</script></body></html>
"""
