"""``uno-bench serve``: UNO in the browser against agents (a Starlette app on uvicorn).

    uno-bench serve                 # http://127.0.0.1:8000, this machine only
    uno-bench serve --port 9000 --host 0.0.0.0

A person picks the preset, the number of players, the opponents (baselines or shipped
models, docs in ``agents``) and their own seat, then plays: the page offers only the
legal moves the server sends (``Game.legal_moves()``, read from the action mask), asks
the server to make the opponents' moves one at a time and shows each, and when the game
is over offers it as a replay file (``uno_env.apps.replay``).

The games live on the server, one ``Game`` per session. Session ids are
``secrets.token_urlsafe(24)``; a session idle for ``idle_seconds`` is forgotten; at most
``max_sessions`` exist at once (a new game past that is 429). Every bad request gets a
4xx JSON ``{"error": message}`` and leaves the game as it was: malformed JSON or fields
(400), an unknown session (404), a move when it is not the person's turn or an opponent
move when it is (409), a stale ``step`` (409), an illegal move (422, naming the legal
moves). The JSON API:

    GET  /api/options                  presets, agents, player range
    POST /api/games                    {preset, players, opponents, seat?, seed?}
    GET  /api/games/{id}               the person's view of the table
    POST /api/games/{id}/move          {move, step?}: the person's move
    POST /api/games/{id}/advance       {step?}: the next opponent makes its move
    GET  /api/games/{id}/replay        the finished game as a replay (a download)
"""
from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field

from uno_env.apps import _web
from uno_env.envs.game import Game
from uno_env.apps.replay import _events, make_seat_agent, public_state, to_replay
from uno_env.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS

MAX_BODY = 16_384


class RequestError(Exception):
    """A request the server refuses: HTTP ``status`` with ``message``."""

    def __init__(self, status: int, message: str, **extra):
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def agent_names() -> list[str]:
    """What an opponent can be: the baselines and the shipped models."""
    from uno_env.envs.agent_registry import agent_names as registered
    return registered()


@dataclass
class Session:
    game: Game
    seat: int
    names: list
    agents: list
    last_used: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    prev: dict = field(default_factory=dict)   # public_state before the last move
    stats: dict = field(default_factory=dict)
    events: list = field(default_factory=list)


class Sessions:
    """The games in progress: unguessable ids, idle expiry, a cap."""

    def __init__(self, max_sessions: int = 100, idle_seconds: float = 1800.0,
                 clock=time.monotonic):
        self.max_sessions, self.idle_seconds, self.clock = max_sessions, idle_seconds, clock
        self._items: dict[str, Session] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = self.clock()
        for sid in [s for s, v in self._items.items()
                    if now - v.last_used > self.idle_seconds]:
            del self._items[sid]

    def add(self, session: Session) -> str:
        with self._lock:
            self._expire()
            if len(self._items) >= self.max_sessions:
                raise RequestError(429, f"the server is at its limit of "
                                        f"{self.max_sessions} games in progress; try "
                                        f"again when one has finished or expired")
            sid = secrets.token_urlsafe(24)
            self._items[sid] = session
            return sid

    def get(self, sid: str) -> Session:
        with self._lock:
            self._expire()
            session = self._items.get(sid)
            if session is None:
                raise RequestError(404, "no such game (it may have expired after "
                                        f"{self.idle_seconds / 60:g} idle minutes)")
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
               events=s.events)
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


class App:
    def __init__(self, max_sessions=100, idle_seconds=1800.0, clock=time.monotonic):
        self.sessions = Sessions(max_sessions, idle_seconds, clock)

    def new_game(self, data: dict) -> tuple[str, Session]:
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
        bad = [o for o in opponents if o not in valid]
        if bad:
            raise RequestError(400, f"unknown opponent(s) {', '.join(map(repr, bad))}; "
                                    f"valid: {', '.join(valid)}")
        try:
            game = Game(preset, players, seed=seed)
            names, agents = [], []
            others = iter(opponents)
            for k in range(players):
                name = "you" if k == seat else next(others)
                names.append(name)
                agents.append(None if k == seat else
                              make_seat_agent(name, game.config, seed=seed + k))
        except (ValueError, NotImplementedError) as err:
            raise RequestError(400, str(err)) from None
        game._replay_origin = {"index": 0}
        s = Session(game, seat, names, agents, self.sessions.clock())
        s.prev, s.stats = public_state(game), game.stats
        return self.sessions.add(s), s

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

    def advance(self, s: Session, data: dict) -> None:
        g = s.game
        if g.is_over:
            raise RequestError(409, "the game is over: no move is legal")
        _check_step(data, s)
        seat = g.current_player
        if seat == s.seat:
            raise RequestError(409, "it is your turn: an opponent cannot move now")
        action = int(s.agents[seat].act(g.observe(seat), g.action_mask().copy()))
        g.step(action)
        _record(s)

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
                                        status_code=err.status)
            return endpoint

        async def index(request):
            return HTMLResponse(PAGE)

        async def options(request):
            return JSONResponse({"presets": list(PRESETS), "agents": agent_names(),
                                 "min_players": MIN_PLAYERS, "max_players": MAX_PLAYERS})

        async def create(request):
            data = await _body(request)
            sid, s = self.new_game(data)
            with s.lock:
                return JSONResponse(view(sid, s), status_code=201)

        def session_of(request) -> tuple[str, Session]:
            sid = request.path_params["sid"]
            return sid, self.sessions.get(sid)

        async def show(request):
            sid, s = session_of(request)
            with s.lock:
                return JSONResponse(view(sid, s))

        async def move(request):
            data = await _body(request)
            sid, s = session_of(request)
            with s.lock:
                self.move(s, data)
                return JSONResponse(view(sid, s))

        async def advance(request):
            data = await _body(request)
            sid, s = session_of(request)
            with s.lock:
                self.advance(s, data)
                return JSONResponse(view(sid, s))

        async def replay(request):
            sid, s = session_of(request)
            with s.lock:
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
               clock=time.monotonic):
    """The ASGI app (state in memory, one process)."""
    return App(max_sessions, idle_seconds, clock).starlette()


def cli_serve(host="127.0.0.1", port=8000, max_sessions=100, idle_minutes=30.0):
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
    uvicorn.run(create_app(max_sessions, idle_minutes * 60), host=host, port=port,
                log_level="warning")


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
