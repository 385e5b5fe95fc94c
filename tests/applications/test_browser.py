"""The pages in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright plays a whole game through ``uno-bench serve``'s page against a uvicorn server
on 127.0.0.1, and steps through a viewer file; what the pages show is checked against a
``Game`` re-played here. Screenshots go to docs/figures/ (serve.png, replay_viewer.png).

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


SHOWN = """() => ({
  top: document.querySelector('#top .card').dataset.card,
  colour: document.querySelector('#colour').dataset.colour || null,
  sizes: [...document.querySelectorAll('.seat .hand-size')].map(e => +e.textContent),
  hands: [...document.querySelectorAll('.seat')].map(
      s => [...s.querySelectorAll('.hand .card')].map(c => c.dataset.card)),
  current: [...document.querySelectorAll('.seat.current')].map(s => +s.dataset.seat),
  log: [...document.querySelectorAll('#log li')].map(li => [+li.dataset.seat, li.dataset.move]),
  highlighted: [...document.querySelectorAll('#log li.current')].map(li => +li.dataset.step),
  buttons: [...document.querySelectorAll('#moves button')].map(b => b.dataset.move),
  legalCards: [...document.querySelectorAll('.seat .card.legal')].map(c => c.dataset.card),
  result: document.querySelector('#result').textContent,
})"""


def _play_in_page(page, server, preset, opponents, seed, seat=0, screenshot=None):
    """Play a whole game through the serve page, checking every position shown against a
    Game re-played here; returns (game, the last state shown, turns checked)."""
    players = len(opponents) + 1
    page.goto(server + "/?delay=0")
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
    game = Game(preset, players, seed=seed)     # the same deal, re-played here
    checked = shot = 0
    for _ in range(1000):
        page.wait_for_function("document.querySelector('#moves button') !== null || "
                               "document.querySelector('#result a') !== null")
        shown = page.evaluate(SHOWN)
        for s, m in shown["log"][len(game.history):]:
            assert game.current_player == s
            game.play(m)                     # ValueError if the page logged a bad move
        assert shown["log"] == [list(x) for x in game.history]
        assert shown["top"] == game.top and shown["sizes"] == game.hand_sizes
        assert shown["hands"][seat] == game.hand(seat)
        for s in others:                     # backs; in UNO Flip their far side
            far = 1 if game.side == "light" else 0
            assert shown["hands"][s] == ([c.split("|")[far] for c in game.hand(s)]
                                         if "|" in game.top else ["?"] * game.hand_sizes[s])
        if game.is_over:
            break
        assert game.current_player == seat and shown["current"] == [seat]
        # only the legal moves can be chosen: one button per move, legal cards marked
        assert shown["buttons"] == game.legal_moves()
        marked = {m.split(":")[0].split("+")[0] for m in game.legal_moves()} \
            & set(game.hand(seat))
        assert set(shown["legalCards"]) == marked
        checked += 1
        if screenshot and checked == 6 and not shot:
            page.screenshot(path=str(screenshot))
            shot = 1
        if shown["legalCards"] and checked % 2:
            card = shown["legalCards"][0]
            moves = [m for m in game.legal_moves()
                     if m.split(":")[0].split("+")[0] == card]
            page.click(f"#seats .seat[data-seat='{seat}'] .card.legal[data-card='{card}']")
            if len(moves) > 1:               # a wild: then its colour
                page.click(f"#moves button[data-move='{moves[-1]}']")
        else:
            page.click(f"#moves button[data-move='{game.legal_moves()[-1]}']")
        page.wait_for_function(f"document.querySelectorAll('#log li').length > "
                               f"{len(game.history)}")
    assert game.is_over
    if screenshot and not shot:
        page.screenshot(path=str(screenshot))
    return game, shown, checked


def test_play_a_whole_game_in_the_serve_page(browser, server, tmp_path):
    page = browser.new_page()
    errors = _errors(page)
    game, shown, checked = _play_in_page(page, server, "classic", ["heuristic", "greedy"],
                                         seed=21, screenshot=FIGURES / "serve.png")
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
    game, shown, checked = _play_in_page(page, server, "flip", ["heuristic"], seed=3,
                                         seat=1)
    assert checked >= 1 and game.is_over and errors == []


def test_play_against_the_search_agent_in_the_serve_page(browser, server):
    """The page offers mcts (issue #46: its first move was a 500): a whole game."""
    page = browser.new_page()
    errors = _errors(page)
    game, shown, checked = _play_in_page(page, server, "classic", ["mcts"], seed=4)
    assert checked >= 1 and game.is_over and errors == []
    assert "(mcts)" in page.inner_text("#seats")


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
                          ".map(c => [c.firstChild.textContent, c.querySelector('.other')"
                          ".textContent])")
    assert faces == [[c.split("|")[0][1:], c.split("|")[1]] for c in game.hand(0)]
