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
.card { width: 60px; height: 90px; border-radius: 8px; border: 3px solid #fff;
        box-shadow: 1px 2px 4px rgba(0,0,0,.55); position: relative; flex: none;
        box-sizing: border-box; user-select: none; overflow: hidden; color: #fff;
        font-weight: 800; background: var(--K); }
.card .oval { position: absolute; left: 8%; top: 19%; width: 84%; height: 62%;
              border-radius: 50%; background: #fff; transform: rotate(-28deg); }
.card .sym { position: absolute; left: 0; right: 0; top: 50%; transform: translateY(-50%);
             text-align: center; font-size: 27px; line-height: 1;
             -webkit-text-stroke: 1px rgba(0,0,0,.55); letter-spacing: -1px; }
.card .sym.long { font-size: 13px; letter-spacing: 0; }
.card .corner { position: absolute; font-size: 11px; line-height: 1; color: #fff;
                text-shadow: 0 0 2px #000, 0 0 2px #000; }
.card .corner.tl { top: 3px; left: 4px; }
.card .corner.br { bottom: 3px; right: 4px; }
.card .label { position: absolute; left: 0; right: 0; bottom: 3px; font-size: 8px;
               text-align: center; color: #fff; text-shadow: 0 0 2px #000; }
.card.wild .oval { background: conic-gradient(var(--R) 0 25%, var(--Y) 0 50%,
                   var(--G) 0 75%, var(--B) 0); }
.card.wild.dark .oval { background: conic-gradient(var(--P) 0 25%, var(--T) 0 50%,
                        var(--O) 0 75%, var(--V) 0); }
.card.wild .sym { color: #fff; text-shadow: 0 0 3px #000, 0 0 3px #000; }
.card.sp-SHK { background: linear-gradient(160deg, #8b0000, #1d1d1d); }
.card.sp-BBD { background: linear-gradient(160deg, #3b1f5c, #111); }
.card.sp-ACE { background: linear-gradient(160deg, #f08c00, #b00000); }
.card.sp-HAN { background: linear-gradient(160deg, #d6338a, #5c1040); }
.card.special .sym { color: #1d1d1d; text-shadow: none; }
.card.special .corner.br { display: none; }
.card .other { position: absolute; bottom: 0; left: 0; right: 0; height: 17px;
               border-top: 2px solid #fff; font-size: 11px; line-height: 15px;
               text-align: center; color: #fff; text-shadow: 0 0 2px #000; }
.card.has-other .corner.br { display: none; }
.card.has-other .oval { top: 12%; height: 56%; }
.card.has-other .sym { top: 42%; }
.card.big { width: 92px; height: 136px; border-width: 4px; border-radius: 10px; }
.card.big .sym { font-size: 42px; } .card.big .sym.long { font-size: 20px; }
.card.big .corner { font-size: 15px; } .card.big .label { font-size: 12px; }
.card.big .other { height: 24px; font-size: 14px; line-height: 22px; }
.card.back { background: #1d1d1d; }
.card.back .oval { background: #d72600; }
.card.back .sym { font-size: 13px; color: #ffd54a; transform: translateY(-50%) rotate(-28deg);
                  text-shadow: 1px 1px 0 #000; }
.card.back.has-other .oval { background: #d72600; }
.card.legal { cursor: pointer; outline: 3px solid #ffd54a; outline-offset: 1px; }
.card.legal:hover { box-shadow: 0 0 12px 4px #ffd54a; }
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
// what a face shows: the symbol on the card and its name in words
const RANKS = {S: ["\u2298", "Skip"], R: ["\u21c4", "Reverse"], D2: ["+2", "Draw Two"],
               D1: ["+1", "Draw One"], D5: ["+5", "Draw Five"],
               SE: ["\u2298\u2298", "Skip Everyone"], F: ["FLIP", "Flip"]};
const WILD_FACES = {W: ["", "Wild"], W4: ["+4", "Wild Draw Four"], W2: ["+2", "Wild Draw Two"],
                    WC: ["+?", "Wild Draw Colour"], WS: ["\u21c6", "Wild Shuffle Hands"],
                    WX: ["\u270e", "Wild Customizable"]};
const SPECIAL_FACES = {SHK: ["S", "Shanks"], BBD: ["B", "Blackbeard"],
                       ACE: ["A", "Fire Fist Ace"], HAN: ["H", "Hancock"]};
// one face "R5", "W4", "PSE", "SHK": {colour letter or null, rank, kind, symbol, words}
function parseFace(face) {
  if (WILDS.has(face)) { const [sym, words] = WILD_FACES[face];
    return {colour: null, rank: face, kind: "wild", symbol: sym, words: words}; }
  if (SPECIAL.has(face)) { const [sym, words] = SPECIAL_FACES[face];
    return {colour: null, rank: face, kind: "special", symbol: sym, words: words}; }
  const colour = face[0], rank = face.slice(1);
  const [sym, words] = RANKS[rank] || [rank, rank];
  const name = COLOURS[colour] || colour;
  return {colour: colour, rank: rank, kind: "colour", symbol: sym,
          words: name.charAt(0).toUpperCase() + name.slice(1) + " " + words};
}
function faceWords(face) { return parseFace(face).words; }
function faceStyle(el, f, dark) {
  if (f.kind === "colour") el.style.background = "var(--" + f.colour + ")";
  else if (f.kind === "wild") el.classList.add("wild");
  else el.classList.add("special", "sp-" + f.rank);
  if (f.kind === "wild" && dark) el.classList.add("dark");
}
function span(cls, text) { const e = document.createElement("div"); e.className = cls;
                           e.textContent = text; return e; }
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
  el.dataset.face = up;
  faceStyle(el, f, faces.length === 2 && up === faces[1]);
  const sym = f.symbol;
  el.append(span("corner tl", f.kind === "special" ? f.rank : (sym || "W")),
            span("oval", ""),
            span("sym" + (sym.length > 2 ? " long" : ""), sym),
            span("corner br", f.kind === "special" ? f.rank : (sym || "W")));
  if (f.kind === "colour") el.querySelector(".sym").style.color = "var(--" + f.colour + ")";
  if (f.kind === "special") el.append(span("label", f.words.split(" ").pop()));
  el.title = f.words;
  if (other !== null) {
    const g = parseFace(other);
    const o = span("other", g.kind === "special" ? g.rank : (g.symbol || "W"));
    o.dataset.face = other;
    o.style.background = g.kind === "colour" ? "var(--" + g.colour + ")" : "var(--K)";
    el.classList.add("has-other");
    el.appendChild(o);
    el.title += " (other side: " + g.words + ")";
  }
  return el;
}
function backEl() { const el = document.createElement("div"); el.className = "card back";
                    el.dataset.card = "?"; el.append(span("oval", ""), span("sym", "UNO"));
                    return el; }
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
