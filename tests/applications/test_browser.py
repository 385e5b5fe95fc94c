"""The pages in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright plays a whole game through ``uno-bench serve``'s page against a uvicorn server
on 127.0.0.1 by clicking cards (classic, Flip, One Piece; from a link and from the form),
and steps through a viewer file; what the pages show (cards, the fields of the preset,
every move in words) is checked against a ``Game`` re-played here. Screenshots go to
docs/figures/ (serve_{classic,flip,onepiece}_{desktop,phone}.png, serve.png,
replay_viewer.png).

Skipped only when Playwright, the web extra or /usr/bin/chromium is missing and the
``CI`` variable is unset (in CI a missing piece fails the test)."""
import json
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest
from support import ROOT

pytestmark = pytest.mark.slow  # drives Chromium (pyproject.toml markers)


CHROMIUM = os.environ.get("UNO_CHROMIUM", "/usr/bin/chromium")
FIGURES = ROOT / "docs" / "figures"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

if not os.environ.get("CI"):
    for module in ("playwright", "starlette", "uvicorn"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e "
                            f"'.[web,browser]')")
    if not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)",
                    allow_module_level=True)

import uvicorn  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from uno_env import Game  # noqa: E402
from uno_env.apps.replay import from_replay, record  # noqa: E402
from uno_env.apps.seat_view import narrate, snapshot  # noqa: E402
from uno_env.apps.server import create_app  # noqa: E402
from uno_env.apps.viewer import write_viewer  # noqa: E402


@pytest.fixture(scope="module")
def browser():
    profile = tempfile.mkdtemp(prefix="uno-chromium-")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=ARGS,
            viewport={"width": 1280, "height": 900}, accept_downloads=True)
        yield ctx
        ctx.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port,
                                        log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


def _errors(page):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return errors


SHOWN = """() => {
  const seats = [...document.querySelectorAll('.seat')].sort(
      (a, b) => +a.dataset.seat - +b.dataset.seat);
  return {
  top: document.querySelector('#top .card').dataset.card,
  colour: document.querySelector('#colour').dataset.colour || null,
  sizes: seats.map(s => +s.querySelector('.hand-size').textContent),
  hands: seats.map(s => [...s.querySelectorAll('.hand .card')].map(c => c.dataset.card)),
  current: [...document.querySelectorAll('.seat.current')].map(s => +s.dataset.seat),
  log: [...document.querySelectorAll('#log li')].map(li => [+li.dataset.seat, li.dataset.move]),
  logText: [...document.querySelectorAll('#log li')].map(li => li.textContent),
  said: [...document.querySelectorAll('#said li')].map(li => li.textContent),
  highlighted: [...document.querySelectorAll('#log li.current')].map(li => +li.dataset.step),
  buttons: [...document.querySelectorAll('#actions button')].map(b => b.dataset.move),
  buttonText: [...document.querySelectorAll('#actions button')].map(b => b.textContent),
  legalCards: [...document.querySelectorAll('.seat .card.legal')].map(c => c.dataset.card),
  shownFields: [...document.querySelectorAll('.facts .fact')].filter(
      f => getComputedStyle(f).display !== 'none').map(f => f.querySelector('span:last-child').id),
  result: document.querySelector('#result').textContent,
}}"""

#: a move that plays (or gives) a card: clicked on the card, never a button
def _card_of(move: str, hand: list) -> str | None:
    if move.startswith("give:"):
        return move[5:]
    head = move.split(":")[0]
    return head if head in hand else (head.split("+")[0] if head.split("+")[0] in hand
                                      else None)


def _said(story: list) -> str:
    """How the page says a move above the hand: its sentences, capitalized."""
    return " ".join(w[0].upper() + w[1:] + ("" if w.endswith("!") else ".")
                    for w in story)


def _link(preset, opponents, seed, seat):
    return (f"/?preset={preset}&players={len(opponents) + 1}&opponents="
            f"{','.join(opponents)}&seat={seat}&seed={seed}&delay=0")


def _play_in_page(page, server, preset, opponents, seed, seat=0, screenshot=None,
                  form=False):
    """Play a whole game through the serve page by clicking cards (the draw pile or a
    button when no card is legal), checking every position shown against a Game
    re-played here, and every move's words; returns (game, last state shown, turns
    checked). ``form``: start it from the new-game form, else from a link."""
    players = len(opponents) + 1
    if form:
        page.goto(server + "/?delay=0")
        page.wait_for_selector("#top .card")       # the last game chosen starts at once
        first = page.evaluate("document.body.dataset.game")
        page.click("#new")
        page.select_option("#preset", preset)
        page.fill("#players", str(players))
        page.dispatch_event("#players", "input")
        page.fill("#seat", str(seat))
        page.dispatch_event("#seat", "input")
        page.fill("#seed", str(seed))
        others = [s for s in range(players) if s != seat]
        for s, name in zip(others, opponents):
            page.select_option(f".opponent[data-seat='{s}']", name)
        page.click("#start")
        page.wait_for_function(f"document.body.dataset.game !== {first!r}")
    else:
        page.goto(server + _link(preset, opponents, seed, seat))
    game = Game(preset, players, seed=seed)     # the same deal, re-played here
    checked = shot = 0
    words = []
    for _ in range(1000):
        page.wait_for_function(
            f"document.querySelector('#result a') !== null || (document.querySelector("
            f"'.me.current:not(.waiting)') !== null && document.querySelector("
            f"'#log').children.length >= {len(game.history)})")
        shown = page.evaluate(SHOWN)
        for s, m in shown["log"][len(game.history):]:
            assert game.current_player == s
            before = snapshot(game)
            game.play(m)                     # ValueError if the page logged a bad move
            words.append(narrate(before, snapshot(game), s, m, viewer=seat))
        assert shown["log"] == [list(x) for x in game.history]
        # what happened, in words: the log, and the moves since yours above the hand
        assert shown["logText"] == ["; ".join(w) for w in words]
        if words:
            assert shown["said"][-1] == _said(words[-1])
        assert shown["top"] == game.top and shown["sizes"] == game.hand_sizes
        assert shown["hands"][seat] == game.hand(seat)
        for s in range(players):             # backs; in UNO Flip their far side
            if s == seat:
                continue
            far = 1 if game.side == "light" else 0
            assert shown["hands"][s] == ([c.split("|")[far] for c in game.hand(s)]
                                         if "|" in game.top else ["?"] * game.hand_sizes[s])
        # only the fields of this preset: the side in play for Flip alone
        assert shown["shownFields"] == ["colour", "direction"] + (
            ["side"] if "|" in game.top else []) + (["pending"] if game.pending_draw else [])
        if game.is_over:
            break
        assert game.current_player == seat and shown["current"] == [seat]
        legal = game.legal_moves()
        hand = game.hand(seat)
        # card moves are on the cards; the others are buttons in words (no notation)
        assert shown["buttons"] == [m for m in legal if _card_of(m, hand) is None]
        assert not [t for t, m in zip(shown["buttonText"], shown["buttons"])
                    if t == m and m not in ("pass", "challenge")], shown["buttonText"]
        assert set(shown["legalCards"]) == {_card_of(m, hand) for m in legal} - {None}
        checked += 1
        # the pictures: a hand with a wild or a special card in it, if one comes
        special = any(f in SPECIAL_FACES for c in hand for f in c.split("|"))
        if screenshot and not shot and (checked == 14 or checked >= 3 and special
                                         and shown["legalCards"]):
            _screenshots(page, screenshot)
            shot = 1
        if shown["legalCards"]:               # click a card (the last legal one)
            card = shown["legalCards"][-1]
            moves = [m for m in legal if _card_of(m, hand) == card]
            page.click(f".me .card.legal[data-card='{card}']")
            if len(moves) > 1:               # a wild: then its colour
                page.wait_for_selector("#choose.open")
                page.click(f"#choose button[data-move='{moves[-1]}']")
        elif "draw" in legal and checked % 2:
            page.click("#draw-card.can")      # the draw pile
        else:
            page.click(f"#actions button[data-move='{legal[-1]}']")
        page.wait_for_function(f"document.querySelectorAll('#log li').length > "
                               f"{len(game.history)}")
    assert game.is_over
    if screenshot and not shot:
        _screenshots(page, screenshot)
    return game, shown, checked


def _screenshots(page, shots):
    """The page at each (path, viewport size), as small PNGs (256 colours when Pillow
    is there), then back to the test's size."""
    for path, size in shots:
        page.set_viewport_size(size)
        png = page.screenshot(full_page=True)
        try:
            import io

            from PIL import Image
            Image.open(io.BytesIO(png)).convert("RGB").quantize(256).save(
                path, optimize=True)
        except ImportError:
            path.write_bytes(png)
    page.set_viewport_size({"width": 1280, "height": 900})


SPECIAL_FACES = {"W", "W4", "W2", "WC", "WS", "WX", "SHK", "BBD", "ACE", "HAN"}
DESKTOP, PHONE = {"width": 1280, "height": 860}, {"width": 390, "height": 844}


def _shots(name):
    return [(FIGURES / f"serve_{name}_desktop.png", DESKTOP),
            (FIGURES / f"serve_{name}_phone.png", PHONE)]


def test_play_a_whole_game_in_the_serve_page(browser, server, tmp_path):
    page = browser.new_page()
    errors = _errors(page)
    game, shown, checked = _play_in_page(  # serve.png: the picture in docs/tour.md
        page, server, "classic", ["heuristic", "greedy"], seed=21,
        screenshot=_shots("classic") + [(FIGURES / "serve.png", DESKTOP)])
    assert checked >= 3
    winner = "you win!" if game.winner == 0 else f"seat {game.winner} ("
    assert winner in shown["result"]
    with page.expect_download() as dl:
        page.click("#result a")
    path = tmp_path / "replay.json"
    dl.value.save_as(path)
    rebuilt = from_replay(path)
    assert rebuilt.history == game.history and rebuilt.winner == game.winner
    assert json.loads(path.read_text())["agents"] == ["you", "heuristic", "greedy"]
    assert errors == []


def test_play_uno_flip_in_the_serve_page_from_seat_1(browser, server):
    page = browser.new_page()
    errors = _errors(page)
    game, shown, checked = _play_in_page(page, server, "flip", ["heuristic", "heuristic"],
                                         seed=3, seat=1, screenshot=_shots("flip"))
    assert checked >= 1 and game.is_over and errors == []


def test_play_one_piece_from_the_form(browser, server):
    page = browser.new_page()
    errors = _errors(page)
    game, shown, checked = _play_in_page(page, server, "onepiece",
                                         ["heuristic", "random", "heuristic"], seed=0,
                                         form=True, screenshot=_shots("onepiece"))
    assert checked >= 1 and game.is_over and errors == []


def test_play_against_the_search_agent_in_the_serve_page(browser, server):
    """The page offers mcts (issue #46: its first move was a 500): a whole game."""
    page = browser.new_page()
    errors = _errors(page)
    game, shown, checked = _play_in_page(page, server, "classic", ["mcts"], seed=4)
    assert checked >= 1 and game.is_over and errors == []
    assert "(mcts)" in page.inner_text("#opponents-row")


def test_the_page_opens_ready_to_play_and_remembers_the_last_choice(browser, server):
    page = browser.new_page()
    errors = _errors(page)
    page.goto(server + "/?preset=none")          # the page, no game started
    page.wait_for_selector("#link-error")
    page.evaluate("localStorage.clear()")
    errors.clear()                               # (the bad link's 400)
    page.goto(server + "/?delay=0")             # no choice yet: 2 players, heuristic
    page.wait_for_selector("#top .card")
    assert page.evaluate("document.querySelectorAll('.seat').length") == 2
    assert "(heuristic)" in page.inner_text("#opponents-row")
    assert not page.is_visible("#lobby")
    # a link starts its game, and is remembered
    page.goto(server + "/?preset=flip&players=3&opponents=mcts:50,greedy&delay=0")
    page.wait_for_selector("#top .card")
    assert page.evaluate("document.querySelectorAll('.seat').length") == 3
    assert page.is_visible("#side-fact")
    assert "(mcts:50)" in page.inner_text("#opponents-row")
    assert "(greedy)" in page.inner_text("#opponents-row")
    page.goto(server + "/?delay=0")
    page.wait_for_selector("#top .card")
    assert page.evaluate("document.querySelectorAll('.seat').length") == 3
    assert page.is_visible("#side-fact") and page.input_value("#preset") == "flip"
    assert errors == []


@pytest.mark.parametrize("query, message", [
    ("preset=bogus", "unknown preset 'bogus'; valid presets: classic"),
    ("players=abc", "'players' must be an integer from 2 to 10, got 'abc'"),
    ("players=11", "'players' must be an integer from 2 to 10, got 11"),
    ("opponents=nobody", "unknown opponent(s) 'nobody'; valid: random"),
    ("opponents=mcts:99999", "at most 5000 rollouts"),
    ("seat=5&players=2", "'seat' must be an integer from 0 to 1, got 5"),
])
def test_a_bad_link_says_what_is_wrong(browser, server, query, message):
    page = browser.new_page()
    page.goto(server + "/?" + query)
    page.wait_for_selector("#link-error")
    text = page.inner_text("#link-error")
    assert text.startswith("This link's game cannot start: ") and message in text, text
    assert page.is_visible("#lobby") and not page.is_visible("#game")


def test_step_through_a_viewer_file(browser, tmp_path):
    [path] = record("heuristic,greedy,random", "classic", 3, games=1, seed=5,
                    out_dir=tmp_path)
    html = write_viewer(path, tmp_path / "game.html", seat=None)
    data = json.loads(path.read_text())
    page = browser.new_page()
    errors = _errors(page)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(html.as_uri())
    game = Game("classic", 3, seed=5)
    moves = data["moves"]
    for step in range(len(moves) + 1):
        if step:
            game.play(moves[step - 1][1])
            page.keyboard.press("ArrowRight")
        shown = page.evaluate(SHOWN)
        where = f"step {step}"
        assert shown["top"] == game.top, where
        assert shown["colour"] == game.color, where
        assert shown["sizes"] == game.hand_sizes, where
        assert shown["hands"] == [game.hand(s) for s in range(3)], where
        assert shown["highlighted"] == ([step] if step else []), where
        assert shown["current"] == ([] if game.is_over else [game.current_player]), where
        if step == 12:
            page.screenshot(path=str(FIGURES / "replay_viewer.png"))
    assert game.is_over and f"seat {game.winner} (" in shown["result"]
    assert shown["log"] == [list(m) for m in moves]
    page.keyboard.press("ArrowRight")            # past the end: stays on the last step
    assert page.evaluate(SHOWN)["highlighted"] == [len(moves)]
    # back, jump, and one seat's view
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(SHOWN)["highlighted"] == [len(moves) - 1]
    page.fill("#jump", "3")
    page.click("#go")
    replayed = Game("classic", 3, seed=5)
    for _, m in moves[:3]:
        replayed.play(m)
    shown = page.evaluate(SHOWN)
    assert shown["highlighted"] == [3] and shown["top"] == replayed.top
    page.select_option("#view", "1")
    shown = page.evaluate(SHOWN)
    assert shown["hands"][1] == replayed.hand(1)
    assert shown["hands"][0] == ["?"] * replayed.hand_sizes[0]
    assert shown["hands"][2] == ["?"] * replayed.hand_sizes[2]
    page.click("#prev")
    assert page.evaluate(SHOWN)["highlighted"] == [2]
    page.click("#first")
    assert page.evaluate(SHOWN)["highlighted"] == []
    assert requests == [html.as_uri()], "the viewer fetched something"
    assert errors == []


def test_viewer_shows_both_faces_of_flip_cards(browser, tmp_path):
    [path] = record("heuristic", "flip", 2, games=1, seed=3, out_dir=tmp_path)
    html = write_viewer(path, tmp_path / "flip.html", seat=0)
    page = browser.new_page()
    page.goto(html.as_uri())
    game = Game("flip", 2, seed=3)
    shown = page.evaluate(SHOWN)
    assert shown["hands"][0] == game.hand(0)            # seat 0's view: its own cards
    # the other hand shows only its far (dark) side, as in UNO Flip
    assert shown["hands"][1] == [c.split("|")[1] for c in game.hand(1)]
    faces = page.evaluate("[...document.querySelectorAll('.seat[data-seat=\"0\"] .card')]"
                          ".map(c => [c.dataset.face, c.querySelector('.other')"
                          ".dataset.face])")
    assert faces == [c.split("|") for c in game.hand(0)]
