"""CSS and JavaScript shared by the replay viewer (``uno_env.apps.viewer``) and the browser
game (``uno_env.apps.server``): cards drawn as cards from their names (docs/rules.md
section 1), both faces of a UNO Flip card (section 5)."""

CSS = r"""
:root { --R:#d72600; --Y:#ecd407; --G:#379711; --B:#0956bf; --P:#d6338a; --T:#139a9a;
        --O:#f08c00; --V:#6a3fb5; --K:#1d1d1d; }
body { font-family: system-ui, sans-serif; margin: 0; background: #2f5d3a; color: #f4f4f4; }
header { padding: 8px 16px; background: #1f3f27; display: flex; gap: 16px;
         align-items: center; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0; }
main { display: flex; gap: 16px; padding: 12px 16px; align-items: flex-start; }
button, select, input { font-size: 14px; }
.table { flex: 1; min-width: 0; }
.centre { display: flex; gap: 24px; align-items: center; background: #25492e;
          border-radius: 10px; padding: 10px 16px; margin-bottom: 10px; flex-wrap: wrap; }
.seat { background: #25492e; border-radius: 10px; padding: 8px 12px; margin-bottom: 8px;
        border: 3px solid transparent; }
.seat.current { border-color: #ffd54a; }
.seat.winner { border-color: #7CFC00; }
.seat h3 { margin: 0 0 6px 0; font-size: 15px; font-weight: 600; }
.hand { display: flex; flex-wrap: wrap; gap: 4px; min-height: 64px; }
.card { width: 44px; height: 64px; border-radius: 6px; border: 2px solid #fff;
        box-shadow: 1px 1px 3px rgba(0,0,0,.5); position: relative; display: flex;
        align-items: center; justify-content: center; font-weight: 700; color: #fff;
        text-shadow: 0 0 2px #000, 0 0 2px #000; font-size: 15px; box-sizing: border-box;
        user-select: none; overflow: hidden; }
.card.big { width: 66px; height: 96px; font-size: 22px; }
.card .other { position: absolute; bottom: 0; left: 0; right: 0; height: 16px;
               font-size: 10px; line-height: 16px; text-align: center;
               border-top: 1px solid #fff; }
.card.back { background: repeating-linear-gradient(45deg, #111, #111 4px, #b00 4px, #b00 8px); }
.card.wild { background: conic-gradient(var(--R) 0 25%, var(--Y) 0 50%, var(--G) 0 75%,
             var(--B) 0); }
.card.wild.dark { background: conic-gradient(var(--P) 0 25%, var(--T) 0 50%,
                  var(--O) 0 75%, var(--V) 0); }
.card.special { background: var(--K); }
.card.legal { cursor: pointer; outline: 3px solid #ffd54a; }
.card.legal:hover { transform: translateY(-4px); }
.swatch { display: inline-block; width: 22px; height: 22px; border-radius: 50%;
          border: 2px solid #fff; vertical-align: middle; }
.log { width: 300px; max-height: 80vh; overflow-y: auto; background: #1f3f27;
       border-radius: 10px; padding: 8px; font-size: 13px; }
.log ol { margin: 0; padding-left: 34px; }
.log li { padding: 1px 4px; cursor: pointer; border-radius: 4px; }
.log li.current { background: #ffd54a; color: #000; }
.log .ev { color: #ffcf8a; font-size: 12px; }
.log li.current .ev { color: #5a3a00; }
.events { color: #ffcf8a; min-height: 20px; margin: 4px 0 10px 0; }
.result { background: #ffd54a; color: #000; border-radius: 10px; padding: 8px 12px;
          margin-bottom: 10px; font-weight: 600; }
.moves { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
.moves button { padding: 4px 10px; }
.muted { color: #b8cbb9; font-size: 13px; }
.error { background: #b00020; color: #fff; padding: 6px 10px; border-radius: 6px; }
"""

JS = r"""
const COLOURS = {R:"red", Y:"yellow", G:"green", B:"blue", P:"pink", T:"teal",
                 O:"orange", V:"purple"};
const WILDS = new Set(["W", "W4", "W2", "WC", "WS", "WX"]);
const SPECIAL = new Set(["SHK", "BBD", "ACE", "HAN"]);
// one face "R5", "W4", "PSE", "SHK": {colour letter or null, rank, kind}
function parseFace(face) {
  if (WILDS.has(face)) return {colour: null, rank: face, kind: "wild"};
  if (SPECIAL.has(face)) return {colour: null, rank: face, kind: "special"};
  return {colour: face[0], rank: face.slice(1), kind: "colour"};
}
function faceStyle(el, f, dark) {
  if (f.kind === "colour") el.style.background = "var(--" + f.colour + ")";
  else el.classList.add(f.kind === "wild" ? "wild" : "special");
  if (f.kind === "wild" && dark) el.classList.add("dark");
}
// a card element; name "R5" or "R5|P7" (Flip: light|dark); side: the side in play
function cardEl(name, side, opts) {
  opts = opts || {};
  const el = document.createElement("div");
  el.className = "card" + (opts.big ? " big" : "");
  el.dataset.card = name;
  const faces = name.split("|");
  let up = faces[0], other = null;
  if (faces.length === 2) { up = side === "dark" ? faces[1] : faces[0];
                            other = side === "dark" ? faces[0] : faces[1]; }
  if (opts.backOnly && other !== null) {   // Flip: only the far side shows
    up = other; other = null; el.dataset.card = up; }
  const f = parseFace(up);
  faceStyle(el, f, faces.length === 2 && up === faces[1]);
  el.appendChild(document.createTextNode(f.rank === "" ? up : f.rank));
  el.title = name;
  if (other !== null) {
    const o = document.createElement("div");
    o.className = "other";
    const g = parseFace(other);
    o.textContent = other;
    if (g.kind === "colour") o.style.background = "var(--" + g.colour + ")";
    else o.style.background = "var(--K)";
    el.appendChild(o);
  }
  return el;
}
function backEl() { const el = document.createElement("div"); el.className = "card back";
                    el.dataset.card = "?"; return el; }
function swatch(letter) {
  const s = document.createElement("span"); s.className = "swatch";
  s.style.background = letter ? "var(--" + letter + ")" : "transparent";
  s.title = letter ? COLOURS[letter] : "none"; return s;
}
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") el.className = v; else if (k.startsWith("on")) el[k] = v;
    else el.setAttribute(k, v);
  }
  for (const k of kids) el.append(k instanceof Node ? k : document.createTextNode(k));
  return el;
}
"""
