"""The replay viewer: one self-contained HTML file that steps through a replay.

    >>> write_viewer("replays/classic_4p_seed0_game0.json", "game.html", seat=None)

Everything is inline (CSS, JavaScript, the replay and the table after every move as
JSON); the page fetches nothing. The states are computed here, by re-playing the
replay through ``Game`` (``uno_env.apps.replay.steps``); the page only draws them: the
discard pile's top card and the colour in force, every seat's hand size and cards
(every hand face up, or one seat's view: the other hands as card backs, showing their
far side in UNO Flip, docs/rules.md section 5), the move log with the current move
highlighted, what each move did (draws, challenges, catches, flips), and the result.
Buttons, the arrow keys (Home/End too) and a step number move through the game.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from uno_env.apps import _web
from uno_env.apps.replay import load, steps


def _embed(obj) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(obj, separators=(",", ":")).replace("</", "<\\/").replace(
        "<!--", "<\\!--")


def render_html(replay, seat: int | None = None) -> str:
    """The viewer page of a replay (dict, JSON text or path) as HTML text. ``seat``:
    open in that seat's view (None: every hand face up)."""
    data = load(replay)
    states = steps(data)
    players = data["players"]
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < players):
        raise ValueError(f"seat must be 0..{players - 1}, got {seat!r}")
    agents = data.get("agents") or [f"player {s}" for s in range(players)]
    deal = (f"seed {data['seed']}, game {data['index']}" if "index" in data
            else f"scenario (seed {data['seed']})")
    title = f"UNO replay: {data['preset']}, {players} players, {deal}"
    payload = {"replay": data, "states": states, "agents": agents, "seat": seat}
    return _PAGE.format(title=html.escape(title), css=_web.CSS, js=_web.JS,
                        viewer_js=_VIEWER_JS, data=_embed(payload))


def write_viewer(replay, out, seat: int | None = None) -> Path:
    """Write the viewer page of ``replay`` to ``out``; returns the path."""
    out = Path(out)
    text = render_html(replay, seat)
    if out.parent != Path(""):
        out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{title}</title>
<style>{css}</style></head>
<body>
<header>
  <h1 id="title">{title}</h1>
  <span>
    <button id="first" title="first step (Home)">&laquo; first</button>
    <button id="prev" title="previous move (left arrow)">&#x25C0; prev</button>
    <button id="next" title="next move (right arrow)">next &#x25B6;</button>
    <button id="last" title="last step (End)">last &raquo;</button>
  </span>
  <span id="step-label"></span>
  <label>jump to <input id="jump" type="number" min="0" style="width:5em"></label>
  <button id="go">go</button>
  <label>view <select id="view"></select></label>
</header>
<main>
  <section class="table">
    <div class="centre">
      <div><div class="muted">discard top</div><div id="top"></div></div>
      <div><div class="muted">colour in force</div>
           <div id="colour"></div></div>
      <div><div class="muted">direction</div><div id="direction"></div></div>
      <div><div class="muted">draw pile</div><div id="draw-pile"></div></div>
      <div id="side-box"><div class="muted">side in play</div><div id="side"></div></div>
      <div><div class="muted">phase</div><div id="phase"></div></div>
      <div><div class="muted">to draw</div><div id="pending"></div></div>
    </div>
    <div id="result"></div>
    <div class="events" id="events"></div>
    <div id="seats"></div>
  </section>
  <aside class="log"><b>moves</b><ol id="log" start="1"></ol></aside>
</main>
<script type="application/json" id="replay-data">{data}</script>
<script>{js}</script>
<script>{viewer_js}</script>
</body></html>
"""

_VIEWER_JS = r"""
const DATA = JSON.parse(document.getElementById("replay-data").textContent);
const S = DATA.states, R = DATA.replay, P = R.players;
const flip = R.pairing !== null && R.pairing !== undefined;
let step = 0;
let view = DATA.seat === null ? "all" : String(DATA.seat);
const viewSel = document.getElementById("view");
viewSel.append(h("option", {value: "all"}, "every hand face up"));
for (let s = 0; s < P; s++) viewSel.append(h("option", {value: String(s)},
                                               "seat " + s + "'s view only"));
viewSel.value = view;
viewSel.onchange = () => { view = viewSel.value; render(); };
if (!flip) document.getElementById("side-box").style.display = "none";
const who = s => "seat " + s + " (" + DATA.agents[s] + ")";

// the move log, built once; render() moves the highlight
const log = document.getElementById("log");
S.slice(1).forEach((st, i) => {
  const li = h("li", {"data-step": String(i + 1), "data-seat": String(st.move[0]),
                     "data-move": st.move[1]}, who(st.move[0]) + ": " + st.move[1]);
  if (st.events.length) li.append(h("div", {class: "ev"}, st.events.join("; ")));
  li.onclick = () => go(i + 1);
  log.append(li);
});

function go(n) { step = Math.max(0, Math.min(S.length - 1, n)); render(); }
document.getElementById("first").onclick = () => go(0);
document.getElementById("prev").onclick = () => go(step - 1);
document.getElementById("next").onclick = () => go(step + 1);
document.getElementById("last").onclick = () => go(S.length - 1);
const jump = document.getElementById("jump");
jump.max = String(S.length - 1);
document.getElementById("go").onclick = () => go(parseInt(jump.value || "0", 10));
jump.onkeydown = e => { if (e.key === "Enter") { go(parseInt(jump.value || "0", 10));
                                                  e.stopPropagation(); } };
document.addEventListener("keydown", e => {
  if (e.target === jump) return;
  if (e.key === "ArrowRight") { go(step + 1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") { go(step - 1); e.preventDefault(); }
  else if (e.key === "Home") go(0);
  else if (e.key === "End") go(S.length - 1);
});

function resultText(r) {
  if (r.truncated) return "Game over: truncated after " + r.turns + " turns (turn limit), no winner.";
  let t = "Game over: " + who(r.winner) + " wins";
  t += ". Round points: " + r.round_points.map((p, s) => "seat " + s + " " + p).join(", ");
  if (R.rules.target_score > 0) t += ". Scores: " + r.scores.join(", ");
  return t + ".";
}

function render() {
  const st = S[step];
  document.getElementById("step-label").textContent =
    "step " + step + " / " + (S.length - 1) +
    (st.move ? " - " + who(st.move[0]) + " played " + st.move[1] : " - the deal");
  jump.value = String(step);
  const top = document.getElementById("top"); top.replaceChildren(cardEl(st.top, st.side, {big: true}));
  const col = document.getElementById("colour");
  col.replaceChildren(swatch(st.color), " " + (st.color ? COLOURS[st.color] : "-"));
  col.dataset.colour = st.color || "";
  document.getElementById("direction").textContent = st.direction > 0 ? "clockwise (+1)" : "counter-clockwise (-1)";
  document.getElementById("draw-pile").textContent = st.draw_pile + " cards";
  document.getElementById("side").textContent = st.side;
  document.getElementById("phase").textContent = st.phase;
  document.getElementById("pending").textContent = st.pending_draw ? String(st.pending_draw) : "-";
  document.getElementById("events").textContent = st.events.join("; ");
  const res = document.getElementById("result");
  res.replaceChildren(); res.className = "";
  if (st.over) { res.className = "result"; res.textContent = resultText(st.result); }
  const seats = document.getElementById("seats"); seats.replaceChildren();
  for (let s = 0; s < P; s++) {
    const visible = view === "all" || view === String(s);
    let cls = "seat";
    if (st.current === s) cls += " current";
    if (st.over && st.result && st.result.winner === s) cls += " winner";
    const box = h("div", {class: cls, "data-seat": String(s)});
    const size = h("span", {class: "hand-size"}, String(st.hand_sizes[s]));
    box.append(h("h3", {}, who(s) + " - ", size, " card" + (st.hand_sizes[s] === 1 ? "" : "s"),
                 R.rules.target_score > 0 ? "  - score " + st.scores[s] : "",
                 st.current === s ? "  - to move" : "", st.catchable === s ? "  - catchable (no UNO)" : ""));
    const hand = h("div", {class: "hand"});
    if (visible) st.hands[s].forEach(c => hand.append(cardEl(c, st.side)));
    else if (flip) st.hands[s].forEach(c => hand.append(cardEl(c, st.side, {backOnly: true})));
    else for (let k = 0; k < st.hand_sizes[s]; k++) hand.append(backEl());
    box.append(hand);
    if (st.current === s && visible && st.legal.length)
      box.append(h("div", {class: "muted legal-moves"}, "legal: " + st.legal.join(", ")));
    seats.append(box);
  }
  for (const li of log.children) {
    const on = li.dataset.step === String(step);
    li.classList.toggle("current", on);
    if (on) li.scrollIntoView({block: "nearest"});
  }
}
render();
"""


def cli_view(replay, out, seat=None) -> Path:
    """``uno-bench view``: a replay that does not replay is a usage error saying why."""
    import typer
    try:
        path = write_viewer(replay, out, seat)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None
    typer.echo(f"wrote {path} (open it in a browser; arrow keys step through the game)")
    return path
