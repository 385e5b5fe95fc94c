"""``uno-bench serve``: UNO in the browser against agents (a Starlette app on uvicorn).

    uno-bench serve                 # http://127.0.0.1:8000, this machine only
    uno-bench serve --port 9000 --host 0.0.0.0

The page opens ready to play: the last game chosen (kept in the browser's
localStorage), else 2 players against the heuristic; a link such as
``/?preset=flip&players=3&opponents=mcts`` (also ``seat``, ``seed``, ``opponents`` one
name or one per opponent, comma-separated) starts that game, and a bad value is the
API's 400 message on the page. Cards are drawn as cards; a legal card is played by
clicking it (a wild then asks for its colour), the other legal moves (draw, pass,
challenge, UNO, ...) are buttons in words. The page asks the server to make the
opponents' moves one at a time and says what each did in words
(``seat_view.narrate``: "seat 2 challenges your Wild Draw Four: it was legal, seat 2
draws 6"); when the game is over it offers it as a replay file
(``uno_env.apps.replay``).

The games live on the server, one ``Game`` per session. Session ids are
``secrets.token_urlsafe(24)``; a session idle for ``idle_seconds`` is forgotten. Places
are for live games: at most ``max_sessions`` exist at once and a new game past that
takes the place of a finished one (its replay is downloadable until then), else of a
live one idle for ``evict_idle_seconds``, longest idle first; only when there is none
is it refused, 429 with ``Retry-After``. One client address may have at most
``max_per_client`` live games (429 and ``Retry-After`` past that). An opponent's move
runs in a worker thread (search agents in ``FairSearch``: ``search_workers`` threads at
a lower priority, each client's searches in their own queue, the clients served in
turn, a search cut short while other clients search) while the event loop serves other
sessions; requests to
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
from uno_env.apps.seat_view import narrate, seat_view, snapshot
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
    from uno_env.players.registry import agent_names as registered
    return registered()


def _check_opponent(name: str, valid: list) -> bool:
    """Is ``name`` an agent the server plays: a registered name, or a search agent with
    a budget up to ``MAX_SEARCH_BUDGET`` (``mcts:200``, ``mcts-ucb:50``)? A malformed or
    too costly search name is a 400 naming what is valid."""
    if name in valid:
        return True
    from uno_env.engine.names import parse_search_name
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
    snap: dict = field(default_factory=dict)   # seat_view.snapshot before the next move
    story: list = field(default_factory=list)  # each move in words (seat_view.narrate)


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
    rules = g.config.rules
    out.update(id=sid, preset=g.config.preset, players=g.num_players, seat=s.seat,
               agents=s.names, step=len(g.history), hand=st["hands"][s.seat],
               far_sides=others, flip=flip, legal=g.legal_moves() if mine else [],
               your_turn=mine, history=[[seat, m] for seat, m in g.history],
               events=s.events, thinking=s.thinking is not None,
               said=s.story[-1] if s.story else [], story=s.story,
               match=rules.target_score > 0, target_score=rules.target_score,
               stacking=rules.stack != "none", teams=rules.teams,
               far_top=seat_view(g, s.seat).draw_back if flip else None)
    return out


def _record(s: Session) -> None:
    """After a move: what it did (draws, challenges, ...), for the page."""
    seat, move = s.game.history[-1]
    new, stats = public_state(s.game), s.game.stats
    s.events = _events(s.prev, new, s.stats, stats, seat, move)
    s.prev, s.stats = new, stats
    snap = snapshot(s.game)
    s.story.append(narrate(s.snap, snap, seat, move, viewer=s.seat))
    s.snap = snap


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
    search agent (``agents.MCTSAgent``), the rollouts of this decision if not its own
    (through its ``with_budget``)."""
    if budget is None or budget == getattr(agent, "budget", None):
        return int(agent.act(game.observe(seat), game.action_mask().copy()))
    with agent.with_budget(budget):
        return int(agent.act(game.observe(seat), game.action_mask().copy()))


def _cuttable(agent) -> bool:
    """May this search agent's budget be cut for one decision (``with_budget``)?"""
    return isinstance(getattr(agent, "budget", None), int) and \
        callable(getattr(agent, "with_budget", None))


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

    def __init__(self, workers: int = 1, slice_seconds: float = 0.1,
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
                 search_workers=None, workers=4, search_slice=0.1, search_queue=4):
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
        s.prev, s.stats, s.snap = public_state(game), game.stats, snapshot(game)
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
               search_workers: int | None = None, search_slice: float = 0.1,
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
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<style>""" + _web.CSS + """
header .grow { flex: 1; }
header button { background: #ffd54a; border: 0; border-radius: 6px; padding: 6px 12px;
                font-weight: 600; cursor: pointer; }
#lobby { display: none; background: #25492e; margin: 12px 16px; border-radius: 10px;
         padding: 12px 16px; }
#lobby.open { display: block; }
#lobby .row { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: center;
              margin-bottom: 8px; }
#lobby label { display: inline-flex; gap: 6px; align-items: center; }
#lobby button#start { background: #ffd54a; border: 0; border-radius: 6px;
                      padding: 8px 16px; font-weight: 700; cursor: pointer; }
#game { display: none; }
.board { flex: 1; min-width: 0; display: flex; flex-direction: column; gap: 10px; }
.opponents { display: flex; flex-wrap: wrap; gap: 8px; }
.opponents .seat { flex: 1 1 220px; margin: 0; }
.seat .hand.mini .card { width: 34px; height: 51px; border-width: 2px; border-radius: 5px;
                         margin-right: -8px; }
.seat .hand.mini .card .sym { font-size: 14px; } .seat .hand.mini .card .sym.long {
  font-size: 8px; } .seat .hand.mini .card .corner,
.seat .hand.mini .card .label, .seat .hand.mini .card.back .sym { display: none; }
.seat .hand.mini .card .other { height: 12px; font-size: 8px; line-height: 10px; }
.seat .hand.mini { gap: 0; min-height: 52px; padding-right: 8px; }
.seat .hand.mini .card.back .oval { left: 22%; width: 56%; top: 24%; height: 52%; }
.tablecloth { display: flex; flex-wrap: wrap; gap: 18px; align-items: center;
              justify-content: center; background: #25492e; border-radius: 12px;
              padding: 12px; }
.pile { display: flex; flex-direction: column; align-items: center; gap: 4px; }
.facts { display: flex; flex-direction: column; gap: 6px; font-size: 15px; }
.facts .fact { display: flex; gap: 6px; align-items: center; }
.facts .muted { min-width: 6.5em; }
.badge { background: #1d1d1d; border-radius: 12px; padding: 2px 10px; font-weight: 700; }
#draw-card.can { cursor: pointer; outline: 3px solid #ffd54a; outline-offset: 1px; }
#said { background: #fffbe6; color: #1d1d1d; border-radius: 10px; padding: 8px 12px;
        font-size: 16px; min-height: 22px; margin: 0; list-style: none; }
#said li { padding: 1px 0; color: #555; } #said li:last-child { color: #1d1d1d;
        font-weight: 600; }
.me { border-color: transparent; }
.me.current { border-color: #ffd54a; }
.me .hand { gap: 6px; min-height: 96px; }
.me .hand .card:not(.legal) { filter: brightness(.72); }
.me.waiting .hand .card:not(.legal) { filter: none; }
#actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; min-height: 36px; }
#actions button, #choose button { font-size: 15px; padding: 7px 14px; border-radius: 18px;
  border: 2px solid #fff; background: #1f3f27; color: #fff; cursor: pointer; }
#actions button:hover, #choose button:hover { background: #2f6d42; }
#choose { display: none; gap: 8px; flex-wrap: wrap; align-items: center;
          background: #1f3f27; border-radius: 10px; padding: 8px 10px; margin-top: 8px; }
#choose.open { display: flex; }
#choose button.colour { width: 44px; height: 44px; padding: 0; border-radius: 50%; }
.log li { cursor: default; }
@media (max-width: 720px) {
  main { flex-direction: column; padding: 8px; gap: 10px; }
  .log { width: auto; max-height: 30vh; align-self: stretch; }
  .opponents .seat { flex-basis: 140px; }
  .card { width: 48px; height: 72px; } .card .sym { font-size: 21px; }
  .card.big { width: 70px; height: 104px; } .card.big .sym { font-size: 32px; }
  .tablecloth { gap: 12px; padding: 8px; } .facts { font-size: 13px; }
  .me .hand { gap: 4px; min-height: 70px; }
  header h1 { font-size: 16px; }
}
</style></head><body>
<header><h1>UNO against the agents</h1><span id="status" class="grow"></span>
  <button id="new">new game</button></header>
<section id="lobby">
  <div class="row">
    <label>game <select id="preset"></select></label>
    <label>players <input id="players" type="number" value="2" style="width:4em"></label>
    <label>your seat <input id="seat" type="number" value="0" min="0" style="width:4em"></label>
    <label>seed <input id="seed" type="number" min="0" placeholder="random" style="width:8em"></label>
  </div>
  <div class="row" id="opponents"></div>
  <div class="row"><button id="start">start the game</button>
    <span class="muted">or open a link such as /?preset=flip&amp;players=3&amp;opponents=mcts</span></div>
  <div id="lobby-error"></div>
</section>
<main id="game">
  <section class="board">
    <div class="opponents" id="opponents-row"></div>
    <div class="tablecloth">
      <div class="pile"><div id="draw-card"></div><div class="muted" id="draw-pile"></div></div>
      <div class="pile"><div id="top"></div><div class="muted">discard pile</div></div>
      <div class="facts">
        <div class="fact"><span class="muted">colour</span><span id="colour"></span></div>
        <div class="fact"><span class="muted">direction</span><span id="direction"></span></div>
        <div class="fact" id="side-fact"><span class="muted">side in play</span><span id="side" class="badge"></span></div>
        <div class="fact" id="pending-fact"><span class="muted">to draw</span><span id="pending" class="badge"></span></div>
        <div class="fact" id="scores-fact"><span class="muted">scores</span><span id="scores"></span></div>
        <div class="fact" id="teams-fact"><span class="muted">teams</span><span id="teams"></span></div>
      </div>
    </div>
    <ul id="said" aria-live="polite"></ul>
    <div id="result"></div>
    <div id="me"></div>
    <div id="error"></div>
  </section>
  <aside class="log"><b>what happened</b><ol id="log"></ol></aside>
</main>
<script>""" + _web.JS + r"""
const params = new URLSearchParams(location.search);
const DELAY = parseInt(params.get("delay") || "700", 10);
const SAVED = "uno-env-last-game";
let G = null, busy = false, AGENTS = [], OPTIONS = null;
async function api(path, body) {
  const opts = body === undefined ? {} : {method: "POST", body: JSON.stringify(body),
                                          headers: {"Content-Type": "application/json"}};
  const r = await fetch(path, opts);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
  return data;
}
const $ = id => document.getElementById(id);
function opponentsForm(chosen) {
  const n = parseInt($("players").value, 10) || 2;
  const seat = parseInt($("seat").value, 10) || 0;
  const box = $("opponents"); box.replaceChildren();
  const others = [...Array(n).keys()].filter(s => s !== seat);
  others.forEach((s, k) => {
    const sel = h("select", {class: "opponent", "data-seat": String(s)});
    for (const a of AGENTS) sel.append(h("option", {value: a}, a));
    const want = chosen ? (chosen.length === 1 ? chosen[0] : chosen[k]) : null;
    if (want && !AGENTS.includes(want)) sel.append(h("option", {value: want}, want));
    sel.value = want || (AGENTS.includes("heuristic") ? "heuristic" : AGENTS[0]);
    box.append(h("label", {}, "seat " + s, sel));
  });
}
function fillForm(c) {
  if (OPTIONS.presets.includes(c.preset)) $("preset").value = c.preset;
  if (Number.isInteger(c.players)) $("players").value = c.players;
  if (Number.isInteger(c.seat)) $("seat").value = c.seat;
  $("seed").value = Number.isInteger(c.seed) ? c.seed : "";
  opponentsForm(Array.isArray(c.opponents) ? c.opponents : [c.opponents || "heuristic"]);
}
function formChoice() {
  const c = {preset: $("preset").value, players: parseInt($("players").value, 10),
             seat: parseInt($("seat").value, 10),
             opponents: [...document.querySelectorAll(".opponent")].map(s => s.value)};
  if ($("seed").value !== "") c.seed = parseInt($("seed").value, 10);
  return c;
}
// the game a link asks for: /?preset=flip&players=3&opponents=mcts[,heuristic]&seat=0&seed=7
// (values go to the server as given: it answers a bad one with a 400 naming what is valid)
function linkChoice() {
  const keys = ["preset", "players", "opponents", "seat", "seed"];
  if (!keys.some(k => params.has(k))) return null;
  const c = {};
  if (params.has("preset")) c.preset = params.get("preset");
  for (const k of ["players", "seat", "seed"])
    if (params.has(k)) { const v = params.get(k).trim();
                         c[k] = /^[0-9]+$/.test(v) ? parseInt(v, 10) : v; }
  if (params.has("opponents")) {
    const o = params.get("opponents").split(",").map(x => x.trim()).filter(x => x);
    c.opponents = o.length === 1 ? o[0] : o;
  }
  return c;
}
async function start(choice, fromLink) {
  $("lobby-error").replaceChildren();
  try { G = await api("/api/games", choice); busy = false; }
  catch (e) {
    $("lobby").classList.add("open");
    $("lobby-error").replaceChildren(h("div", {class: "error", id: "link-error"},
      (fromLink ? "This link's game cannot start: " : "") + e.message));
    return;
  }
  const keep = Object.assign({}, choice); delete keep.seed;
  try { localStorage.setItem(SAVED, JSON.stringify(keep)); } catch (e) {}
  $("lobby").classList.remove("open");
  $("game").style.display = "flex";
  $("error").replaceChildren();
  render(); opponents();
}
async function lobby() {
  OPTIONS = await api("/api/options");
  AGENTS = OPTIONS.agents;
  for (const x of OPTIONS.presets) $("preset").append(h("option", {value: x}, x));
  $("players").min = OPTIONS.min_players; $("players").max = OPTIONS.max_players;
  $("players").oninput = () => opponentsForm(); $("seat").oninput = () => opponentsForm();
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(SAVED) || "null"); } catch (e) {}
  const link = linkChoice();
  const choice = link || saved || {preset: "classic", players: 2, seat: 0, opponents: "heuristic"};
  fillForm(choice);
  start(choice, link !== null);
}
$("new").onclick = () => $("lobby").classList.toggle("open");
$("start").onclick = () => start(formChoice(), false);
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function opponents() {          // the opponents' moves, one at a time
  const id = G.id;                      // (a new game started meanwhile stops this one)
  busy = true; render();
  try {
    while (G.id === id && !G.over && !G.your_turn) {
      await sleep(DELAY);
      if (G.id !== id) return;
      const next = await api("/api/games/" + id + "/advance", {step: G.step});
      if (G.id !== id) return;
      G = next; render();
    }
  } catch (e) { if (G.id === id) showError(e); }
  if (G.id === id) { busy = false; render(); }
}
async function play(move) {
  if (busy) return;
  const id = G.id;
  busy = true; closeChooser();
  let next;
  try { next = await api("/api/games/" + id + "/move", {move: move, step: G.step}); }
  catch (e) { showError(e); busy = false; render(); return; }
  if (G.id !== id) return;
  G = next; busy = false; render(); opponents();
}
function showError(e) { $("error").replaceChildren(h("div", {class: "error"}, e.message)); }
const who = s => s === G.seat ? "you" : "seat " + s + " (" + G.agents[s] + ")";
const PHASES = {play: "play a card or draw", drawn: "play the card you drew, or keep it",
  challenge: "challenge the wild draw card, or accept the draw",
  color: "name the colour", stack: "stack a draw card, or accept the draw",
  jump_in: "jump in with the same card, or pass", swap: "choose whom to swap hands with",
  give: "choose a card to give", multi: "play another of the same, or stop"};
// the hand card a move plays (or gives), if any
function cardOf(move) {
  if (move.startsWith("give:")) return move.slice(5);
  const head = move.split(":")[0];
  return G.hand.includes(head) ? head : (G.hand.includes(head.split("+")[0]) ? head.split("+")[0] : null);
}
function colourOf(move) { const c = move.split(":")[1]; return c && COLOURS[c] ? c : null; }
function moveWords(m) {
  if (m === "draw") return "draw a card";
  if (m === "pass") return G.phase === "drawn" ? "keep it" : "pass";
  if (m === "challenge") return "challenge";
  if (m === "accept") return "accept: draw " + (G.pending_draw || "");
  if (m === "uno") return "say UNO!";
  if (m === "catch") return "catch seat " + G.catchable + " (no UNO)";
  if (m.startsWith("swap:")) { const k = parseInt(m.slice(5), 10);
    const t = ((G.current + k * G.direction) % G.players + G.players) % G.players;
    return "swap hands with " + who(t); }
  if (m.startsWith("color:")) return COLOURS[m.slice(6)];
  const head = m.split(":")[0], up = head.split("+").map(x => x.split("|")[G.side === "dark" ? 1 : 0] || x);
  return up.map(faceWords).join(" with ") + (colourOf(m) ? ", " + COLOURS[colourOf(m)] : "");
}
function closeChooser() { const c = $("choose"); if (c) { c.classList.remove("open"); c.replaceChildren(); } }
function choose(moves) {              // a wild's colour, or which play of this card
  const c = $("choose"); c.replaceChildren(); c.classList.add("open");
  const colours = moves.every(m => colourOf(m)) && new Set(moves.map(m => m.split(":")[0])).size === 1;
  c.append(h("span", {}, colours ? "choose the colour:" : "play it how?"));
  for (const m of moves) {
    const b = colours ? h("button", {class: "colour", "data-move": m, title: COLOURS[colourOf(m)],
                                     onclick: () => play(m)})
                      : h("button", {"data-move": m, onclick: () => play(m)}, moveWords(m));
    if (colours) b.style.background = "var(--" + colourOf(m) + ")";
    c.append(b);
  }
  c.append(h("button", {onclick: closeChooser, "data-move": ""}, "cancel"));
}
function render() {
  if (!G) return;
  document.body.dataset.game = G.id;
  const clickable = G.your_turn && !busy;
  $("status").textContent = G.over ? "game over" :
    (G.your_turn ? (busy ? "..." : "your turn: " + (PHASES[G.phase] || G.phase)) :
     who(G.current) + " is thinking...");
  $("top").replaceChildren(cardEl(G.top, G.side, {big: true}));
  const col = $("colour");
  col.replaceChildren(swatch(G.color), " " + (G.color ? COLOURS[G.color] : "-"));
  col.dataset.colour = G.color || "";
  $("direction").textContent = G.direction > 0 ? "\u21bb clockwise" : "\u21ba counter-clockwise";
  $("draw-pile").textContent = G.draw_pile + " to draw";
  const drawCard = G.flip && G.far_top ? cardEl(G.far_top, G.side) : backEl();
  drawCard.id = "draw-card-face";
  $("draw-card").replaceChildren(drawCard);
  const canDraw = clickable && G.legal.includes("draw");
  $("draw-card").className = canDraw ? "can" : "";
  $("draw-card").title = canDraw ? "draw a card" : "";
  $("draw-card").onclick = canDraw ? () => play("draw") : null;
  $("side-fact").style.display = G.flip ? "" : "none";
  $("side").textContent = G.side;
  $("pending-fact").style.display = G.pending_draw ? "" : "none";
  $("pending").textContent = String(G.pending_draw);
  $("scores-fact").style.display = G.match ? "" : "none";
  $("scores").textContent = G.match ? G.scores.map((x, s) => (s === G.seat ? "you " : "seat " + s + " ") + x).join(", ") + " (to " + G.target_score + ")" : "";
  // what happened since your last move, in words (the last move in bold)
  const said = $("said"); said.replaceChildren();
  let from = G.history.length - 1;
  while (from > 0 && G.history[from][0] !== G.seat && G.history.length - from < 6) from--;
  for (let i = Math.max(0, from); i < G.history.length; i++) {
    const words = G.story[i] && G.story[i].length ? G.story[i] : [who(G.history[i][0]) + ": " + G.history[i][1]];
    said.append(h("li", {}, words.map(w => w.charAt(0).toUpperCase() + w.slice(1) +
                                           (w.endsWith("!") ? "" : ".")).join(" ")));
  }
  if (!G.history.length) said.append(h("li", {}, G.your_turn ? "You start: " + PHASES[G.phase] + "." : "The game begins."));
  $("teams-fact").style.display = G.teams ? "" : "none";
  const team = t => [t, t + 2].map(s => s === G.seat ? "you" : "seat " + s).join(" + ");
  $("teams").textContent = G.teams ? team(G.seat % 2) + " against " + team(1 - G.seat % 2) : "";
  const res = $("result"); res.replaceChildren(); res.className = "";
  if (G.over) {
    res.className = "result";
    const r = G.result;
    const won = G.teams ? (r.winner % 2 === G.seat % 2 ? "your team wins!" :
                           team(r.winner % 2) + " win.") :
                (r.winner === G.seat ? "you win!" : who(r.winner) + " wins.");
    res.append(r.truncated ? "Game over: truncated (turn limit), no winner. " :
               "Game over: " + won +
               " Round points: " + r.round_points.join(", ") + ". ");
    res.append(h("a", {id: "download", href: "/api/games/" + G.id + "/replay",
                      download: ""}, "download the replay"));
  }
  // the opponents: name, cards left, their backs (Flip: the faces they show you)
  const row = $("opponents-row"); row.replaceChildren();
  for (let s = 0; s < G.players; s++) {
    if (s === G.seat) continue;
    const cls = "seat" + (G.current === s ? " current" : "") +
                (G.over && G.result.winner === s ? " winner" : "");
    const box = h("div", {class: cls, "data-seat": String(s)});
    box.append(h("h3", {}, who(s) + " - ", h("span", {class: "hand-size"}, String(G.hand_sizes[s])),
                 G.hand_sizes[s] === 1 ? " card" : " cards",
                 G.catchable === s ? " - forgot to say UNO!" : ""));
    const hand = h("div", {class: "hand mini"});
    if (G.flip) G.far_sides[String(s)].forEach(f => hand.append(cardEl(f, G.side)));
    else for (let k = 0; k < G.hand_sizes[s]; k++) hand.append(backEl());
    box.append(hand); row.append(box);
  }
  // your hand: click a legal card to play it; other moves are the buttons below it
  const me = h("div", {class: "seat me" + (G.current === G.seat && !G.over ? " current" : "") +
                       (clickable ? "" : " waiting") +
                       (G.over && G.result.winner === G.seat ? " winner" : ""),
                       "data-seat": String(G.seat)});
  me.append(h("h3", {}, "your hand - ", h("span", {class: "hand-size"}, String(G.hand_sizes[G.seat])),
              G.hand_sizes[G.seat] === 1 ? " card" : " cards"));
  const hand = h("div", {class: "hand"});
  const seen = new Set();
  for (const c of G.hand) {
    const el = cardEl(c, G.side);
    const moves = G.legal.filter(m => cardOf(m) === c);
    if (clickable && moves.length && !seen.has(c)) {
      seen.add(c);
      el.classList.add("legal");
      el.onclick = () => moves.length === 1 ? play(moves[0]) : choose(moves);
    }
    hand.append(el);
  }
  me.append(hand);
  const acts = h("div", {id: "actions"});
  if (clickable) {
    for (const m of G.legal) {
      if (cardOf(m) !== null) continue;
      const b = h("button", {"data-move": m, onclick: () => play(m)}, moveWords(m));
      if (m.startsWith("color:")) { b.classList.add("colour-name");
        b.style.background = "var(--" + m.slice(6) + ")"; }
      acts.append(b);
    }
  }
  me.append(acts, h("div", {id: "choose"}));
  $("me").replaceChildren(me);
  const log = $("log"); log.replaceChildren();
  G.history.forEach(([s, m], i) => {
    const words = G.story[i] && G.story[i].length ? G.story[i] : [who(s) + ": " + m];
    const li = h("li", {"data-step": String(i + 1), "data-seat": String(s), "data-move": m,
                        title: m}, words.join("; "));
    if (i === G.history.length - 1) li.classList.add("current");
    log.append(li);
  });
  if (log.lastChild) log.lastChild.scrollIntoView({block: "nearest"});
}
lobby();
</script></body></html>
"""
