"""``uno-bench play``: what the terminal prints against the ``Game`` it plays.

Whole games are played with piped input; every screen printed for the person's
decisions is parsed and compared with a fresh ``Game`` replayed to that decision from
the finished game's action history (top card, colour, draw pile, hand sizes, the
person's hand and moves, pending draws, UNO catches; for Flip the side in play, faces in
play first, and the backs shown equal to the other side of each opponent's cards,
docs/rules.md section 5). Hidden cards: two positions that differ only in what the
person cannot see print the same screen.
"""
from __future__ import annotations

import io
import re
import sys

import pytest
from typer.testing import CliRunner

from uno_env.apps.cli import app
from uno_env.engine import codes as C
from uno_env.envs.game import Game
from uno_env.apps.play import make_console, play_game, render_view
from uno_env.apps.seat_view import seat_view, track_uno


# --- helpers that know the notation, not the renderer --------------------------------
def shown(name: str, side: str) -> str:
    """A card or move as a player sees it: Flip face in play first, other side in
    brackets (``R5|P7`` on the dark side -> ``P7(R5)``); other decks unchanged."""
    head, sep, tail = name.partition(":")
    if head in ("color", "swap", "give") or "|" not in head:
        return name
    light, _, dark = head.partition("|")
    up, down = (light, dark) if side == "light" else (dark, light)
    return f"{up}({down})" + sep + tail


def other_side(name: str, side: str) -> str:
    light, _, dark = name.partition("|")
    return dark if side == "light" else light


def run(preset, players, seed, lines, monkeypatch, seat=0, opponents="heuristic", **rules):
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{x}\n" for x in lines)))
    buf = io.StringIO()
    game = play_game(players=players, opponents=opponents, seed=seed, seat=seat,
                     preset=preset, console=make_console(file=buf), **rules)
    return game, buf.getvalue()


def screens(text: str) -> list[list[str]]:
    """Each decision screen's lines, from its title to its prompt (exclusive)."""
    out = []
    for chunk in text.split("=== your turn")[1:]:
        lines = ("=== your turn" + chunk).splitlines()
        end = next(k for k, line in enumerate(lines) if line.startswith("your move ["))
        out.append(lines[:end])
    return out


SEAT_LINE = re.compile(r"^ ([> ]) (you|player (\d+) \([^)]*\))\s+(\d+) cards?")


def parse(screen: list[str], me: int = 0) -> dict:
    info = {"seats": {}, "moves": [], "extra": []}
    in_moves = False
    for line in screen:
        if line.startswith("=== your turn"):
            info["title"] = line
        elif line.startswith("top: "):
            info["top"] = line.split()[1]
            info["colour"] = line.split("colour: ")[1].split()[0]
        elif line.startswith("draw pile: "):
            info["draw"] = int(line.split()[2])
            m = re.search(r"its top card shows (\S+)", line)
            info["draw_back"] = m.group(1) if m else None
        elif line.startswith("phase: "):
            info["phase"] = line.split()[1]
        elif line.startswith("your hand ("):
            info["hand"] = line.split(": ", 1)[1].split() if ": " in line else []
        elif line == "moves:":
            in_moves = True
        elif in_moves:
            info["moves"].append(line.split(". ", 1)[1].split()[0])
        elif SEAT_LINE.match(line):
            m = SEAT_LINE.match(line)
            seat = me if m.group(2) == "you" else int(m.group(3))
            backs = line.split("backs: ")[1].split() if "backs: " in line else []
            info["seats"][seat] = {"current": m.group(1) == ">", "cards": int(m.group(4)),
                                   "backs": backs, "uno": "UNO! (declared)" in line,
                                   "catchable": "can be caught" in line}
        else:
            info["extra"].append(line)
    return info


LOG_LINE = re.compile(r"^  (you|player \d+ \([^)]*\))"
                      r"(?:: | (?=shows you their hand))(.*)$")


def check_screens(game: Game, text: str, seat: int = 0, typed_one: bool = True
                  ) -> list[tuple[Game, dict]]:
    """Replay ``game`` and compare every printed screen with the replayed state, and
    the printed moves with its history (each as seen on the side it was made on)."""
    cfg = game.config
    replay = Game(cfg.preset, cfg.num_players, seed=game.seed,
                  **{k: getattr(cfg.rules, k) for k in ("target_score",)})
    parsed = [parse(s, seat) for s in screens(text)]
    mine = [a for s, a in game.action_history if s == seat]
    assert len(parsed) == len(mine) > 0
    log = [LOG_LINE.match(line).groups() for line in text.splitlines()
           if LOG_LINE.match(line)]
    expected = []
    k = 0
    seen = []
    armed, declared = None, set()  # who said "uno" this decision; who went out to one
    flips = []
    for s, action in game.action_history:
        side, move = replay.side, replay.move_name(action)
        if s == seat:
            check_screen(replay, parsed[k], seat)
            if typed_one:  # the person typed "1": the first move printed was made
                assert parsed[k]["moves"][0] == shown(move, side)
            assert {q for q, row in parsed[k]["seats"].items() if row["uno"]} == declared
            seen.append((replay.phase, parsed[k]))
            k += 1
        if move.startswith("give:") and s != seat:
            expected.append((s, "gives a card to the next player"))
        else:
            expected.append((s, shown(move, side)))
        if s == seat and move == "challenge":  # the W4 player's hand is shown
            w4 = int(replay._state.info[0, C.I_W4_PLAYER])
            expected.append((w4, sorted(shown(c, side) for c in replay.hand(w4))))
        before = replay.hand_sizes
        replay.step(action)
        after = replay.hand_sizes
        if replay.side != side and not replay._state.info[0, C.I_LAST_ROUND_OVER]:
            flips.append(replay.side.upper())
        if move == "uno":
            armed = s
        elif move != "catch":  # a call covers the play it is made for
            if armed == s and before[s] >= 2 and after[s] == 1:
                declared.add(s)
            armed = None
        declared = {q for q in declared if after[q] == 1}
        if replay._state.info[0, C.I_LAST_ROUND_OVER]:
            declared = set()
    assert replay.is_over and replay.winner == game.winner
    got = []
    for who, rest in log:
        s = 0 if who == "you" else int(who.split()[1])
        s = seat if who == "you" else s
        if rest.startswith("shows you their hand"):
            got.append((s, sorted(rest.split(": ", 1)[1].split())))
        else:
            got.append((s, rest))
    assert got == expected
    assert re.findall(r"^  -- the cards flip: (\w+) side in play", text, re.M) == flips
    return seen


def check_screen(g: Game, info: dict, seat: int) -> None:
    side = g.side
    flip = g.config.deck.double_sided
    assert g.current_player == seat
    assert (f"{side.upper()} side in play" in info["title"]) == flip
    assert info["top"] == shown(g.top, side)
    assert info["colour"] == (g.color or "-")
    assert info["draw"] == g.draw_pile_size
    if flip and g.draw_pile_size:
        assert info["draw_back"] == other_side(g.draw_pile[0], side)
    else:
        assert info["draw_back"] is None
    assert info["phase"] == g.phase
    assert sorted(info["hand"]) == sorted(shown(c, side) for c in g.hand(seat))
    assert sorted(info["moves"]) == sorted(shown(m, side) for m in g.legal_moves())
    assert len(set(info["moves"])) == len(info["moves"])
    assert sorted(info["seats"]) == list(range(g.num_players))
    for s, row in info["seats"].items():
        assert row["cards"] == g.hand_sizes[s]
        assert row["current"] == (s == seat)
        assert row["catchable"] == (g.catchable == s)
        if row["uno"]:
            assert g.hand_sizes[s] == 1
        if flip and s != seat:  # the faces this hand shows to the table
            assert sorted(row["backs"]) == sorted(other_side(c, side) for c in g.hand(s))
        else:
            assert row["backs"] == []
    pending = [x for x in info["extra"] if x.startswith("pending draw")]
    if g.pending_draw:
        assert len(pending) == 1 and f" {g.pending_draw} card" in pending[0]
    else:
        assert pending == []
    # no card of another hand is printed unless the person can see that same card
    public = {shown(c, side) for c in g.hand(seat)} | {shown(g.top, side)}
    tokens = {t for line in screen_text(info) for t in line.split()}
    for s in range(g.num_players):
        if s != seat:
            for c in g.hand(s):
                if shown(c, side) not in public:
                    assert shown(c, side) not in tokens, (c, s)


def screen_text(info: dict) -> list[str]:
    return [info["title"], *info["extra"], *info["hand"], *info["moves"],
            info["top"], *(" ".join(r["backs"]) for r in info["seats"].values())]


# --- whole games ---------------------------------------------------------------------
@pytest.mark.parametrize("preset,players,seed", [
    ("classic", 3, 0), ("classic", 2, 5), ("street", 4, 1), ("chaos", 3, 2),
    ("flip", 3, 2), ("flip", 4, 7), ("onepiece", 3, 3), ("onepiece", 2, 1),
    ("teams", 4, 0),
])
def test_whole_game_screens_match_the_game(preset, players, seed, monkeypatch):
    game, text = run(preset, players, seed, ["1"] * 2000, monkeypatch)
    assert game is not None and game.is_over
    check_screens(game, text)
    assert "\x1b[" not in text  # not a terminal: no colour codes
    who = {0: "you", **{s: f"player {s} (heuristic)" for s in range(1, players)}}
    if game.terminated and game.config.rules.teams:
        w = game.winner
        assert f"=== game over: the winning team is {who[w % 2]} + {who[w % 2 + 2]} ===" \
            in text
    elif game.terminated:
        assert f"=== game over: the winner is {who[game.winner]} ===" in text
        assert f"=== round 1 over: {who[game.round_winner]} went out ===" in text
        assert "round points: " + ", ".join(
            f"{who[s]} {p}" for s, p in enumerate(game.round_points)) in text


def test_another_seat_and_random_opponents(monkeypatch):
    game, text = run("flip", 3, 11, ["1"] * 2000, monkeypatch, seat=1,
                     opponents="random,heuristic")
    assert game.is_over and "you are player 1" in text
    check_screens(game, text, seat=1)


def test_flip_dark_side_is_shown_face_first(monkeypatch):
    """Over a few Flip games the person plays on the dark side too, and every screen
    there lists faces in play (dark colours) first."""
    dark = 0
    for seed in range(4):
        game, text = run("flip", 3, seed, ["1"] * 2000, monkeypatch)
        for phase, info in check_screens(game, text):
            if "DARK side" in info["title"]:
                assert "-- the cards flip: DARK side in play" in text
                dark += 1
                assert all(c[0] in "PTOVW" for c in info["hand"]), info["hand"]
                # the card moves are listed in the order of the hand shown
                at = [info["hand"].index(m.split(":")[0]) for m in info["moves"]
                      if "(" in m]
                assert at == sorted(at), (info["hand"], info["moves"])
    assert dark > 0


def test_house_screens_show_pending_totals_and_jump_in(monkeypatch):
    """``street`` (stack any, jump-in, 7-0): some screens show a stack total, some a
    jump-in window naming who played and who decides next, some a declared UNO."""
    stack = jump = uno = 0
    for seed in range(6):
        game, text = run("street", 4, seed, ["1"] * 3000, monkeypatch)
        for phase, info in check_screens(game, text):
            windows = [x for x in info["extra"] if x.startswith("jump-in window")]
            assert bool(windows) == (phase == "jump_in")
            jump += bool(windows)
            stack += any("stack total" in x for x in info["extra"])
            uno += any(row["uno"] for row in info["seats"].values())
    assert stack > 0 and jump > 0 and uno > 0


def test_match_prints_every_round_and_the_scores(monkeypatch):
    game, text = run("classic", 2, 4, ["1"] * 5000, monkeypatch, target_score=150)
    assert game.is_over and game.config.rules.target_score == 150
    check_screens(game, text)
    summaries = re.findall(r"=== round (\d+) over: (.*) went out ===", text)
    assert [int(r) for r, _ in summaries] == list(range(1, game.round + 1))
    final = text.rsplit("scores (match to 150): ", 1)[1].splitlines()[0]
    assert final == f"you {game.scores[0]}, player 1 (heuristic) {game.scores[1]}"
    assert max(game.scores) >= 150
    assert "match to 150 points: " in text  # the scores on each screen


# --- hidden information ----------------------------------------------------------------
def _screen(game: Game, seat: int = 0, declared=frozenset()) -> str:
    buf = io.StringIO()
    console = make_console(file=buf)
    who = {s: ("you" if s == seat else f"player {s}") for s in range(game.num_players)}
    for line in render_view(seat_view(game, seat, declared), who):
        console.print(line)
    return buf.getvalue()


def test_hidden_cards_are_not_printed_classic():
    a = Game.from_scenario(hands=[["R5", "G2"], ["Y7", "B9", "W4"], ["G8", "BS"]],
                           top="R8", draw_pile=["Y1"])
    b = Game.from_scenario(hands=[["R5", "G2"], ["B1", "G6", "W"], ["YR", "Y3"]],
                           top="R8", draw_pile=["Y1"])
    text = _screen(a)
    assert text == _screen(b)
    for name in ("Y7", "B9", "W4", "G8", "BS", "Y1"):
        assert name not in text.split()
    assert "R5 G2" in text  # the seat's own hand is


def test_flip_shows_backs_and_hides_faces_in_play():
    """Opponents' cards with the same backs but other faces in play print the same;
    the backs are the dark sides (the light side is in play)."""
    a = Game.from_scenario("flip", hands=[["R5|P7", "G2|T3"], ["Y7|O4", "B9|VSE"]],
                           top="R8|T9", draw_pile=["Y1|PD5"])
    b = Game.from_scenario("flip", hands=[["R5|P7", "G2|T3"], ["G3|O4", "R1|VSE"]],
                           top="R8|T9", draw_pile=["Y1|PD5"])
    text = _screen(a)
    assert text == _screen(b)
    assert "backs: O4 VSE" in text
    assert "its top card shows PD5" in text
    assert "top: R8(T9)" in text and "R5(P7) G2(T3)" in text
    for hidden in ("Y7", "B9", "Y1"):
        assert hidden not in re.split(r"[\s()]+", text)
    dark = Game.from_scenario("flip", hands=[["R5|P7", "G2|T3"], ["Y7|O4", "B9|VSE"]],
                              top="R8|T9", draw_pile=["Y1|PD5"], side="dark")
    text = _screen(dark)
    assert "DARK side in play" in text and "backs: Y7 B9" in text
    assert "your hand (2): P7(R5) T3(G2)" in text and "top: T9(R8)" in text
    assert "its top card shows Y1" in text


def test_windows_and_uno_catch_are_shown():
    jump = Game.from_scenario("jump_in", hands=[["R5", "G2"], ["R5", "B1", "Y3"],
                                                ["G7", "Y4"]], top="R8")
    jump.play("R5")
    assert jump.phase == "jump_in" and jump.current_player == 1
    text = _screen(jump, 1)
    assert "jump-in window: player 0 played R5; an identical card may jump in; if " \
           "nobody does, next to decide: you" in text
    han = Game.from_scenario("onepiece", hands=[["HAN", "G2", "G3"], ["B1", "Y3"],
                                                ["G7", "Y4"]], top="B8")
    han.play("HAN:B")
    assert han.phase == "jump_in" and han.current_player == 1
    text = _screen(han, 1)
    assert "Hancock window: player 0 petrified everyone naming B (blue)" in text
    uno = Game.from_scenario(hands=[["R5", "G2"], ["R7", "B1", "Y3"], ["G7", "Y4"]],
                             top="R8")
    uno.play("R5")  # one card left, no call
    assert uno.catchable == 0
    text = _screen(uno, 1)
    assert "one card, UNO not declared: can be caught" in text and "catch" in text
    called = Game.from_scenario(hands=[["R5", "G2"], ["R7", "B1", "Y3"], ["G7", "Y4"]],
                                top="R8")
    declared = set()  # the engine keeps a call for its turn only; play.py tracks it
    called.play("uno")
    track_uno(called, declared)
    assert "UNO! (declared)" not in _screen(called, 0, declared)  # two cards still
    called.play("R5")
    track_uno(called, declared)
    text = _screen(called, 1, declared)
    assert "UNO! (declared)" in text and "can be caught" not in text
    swap = Game.from_scenario("seven_o", hands=[["R7", "G2", "B3"], ["R1", "B1", "Y3"],
                                                ["G7", "Y4"]], top="R8", direction=-1)
    swap.play("R7")
    assert swap.phase == "swap"
    text = _screen(swap, 0)
    assert "swap:+1 (with player 2)" in text and "swap:+2 (with player 1)" in text
    swap.play("swap:+1")  # the engine agrees: player 2's hand is now seat 0's
    assert sorted(swap.hand(0)) == ["G7", "Y4"]
    stack = Game.from_scenario("progressive", hands=[["RD2", "G2"], ["BD2", "Y3"],
                                                     ["G7", "Y4"]], top="R8")
    stack.play("RD2")
    text = _screen(stack, 1)
    assert "pending draw: 2 card(s) (stack total)" in text


# --- input -----------------------------------------------------------------------------
def test_unknown_move_names_the_valid_moves(monkeypatch):
    game, text = run("flip", 2, 1, ["DRAW NOW", "0", "99", "R5|P7|X"] + ["1"] * 2000,
                     monkeypatch)
    assert game is not None and game.is_over
    first = screens(text)[0]
    moves = [line.split(". ", 1)[1] for line in first[first.index("moves:") + 1:]]
    for bad in ("'DRAW NOW'", "'0'", "'99'", "'R5|P7|X'"):
        line = next(x for x in text.splitlines()
                    if x.startswith(f"not a legal move: {bad}"))
        assert all(m in line for m in moves), line
    assert "Traceback" not in text


def test_flip_moves_can_be_typed_as_shown(monkeypatch):
    """Typing a Flip move as printed (face in play first, any case) or face-first with
    a bar plays the same move as typing its number."""
    game, text = run("flip", 2, 1, ["1"] * 2000, monkeypatch)
    first = screens(text)[0]
    move = first[first.index("moves:") + 1].split(". ", 1)[1]
    assert "(" in move  # a card: R5(P7)
    up, down = move.rstrip(")").split("(")
    for typed in (move.lower(), f"{up}|{down}"):
        again, text2 = run("flip", 2, 1, [typed] + ["1"] * 2000, monkeypatch)
        assert "not a legal move" not in text2
        assert again.action_history == game.action_history


def test_end_of_input_abandons(monkeypatch):
    game, text = run("classic", 2, 0, [], monkeypatch)
    assert game is None and text.rstrip().endswith("end of input: game abandoned.")


def test_cli_colour_flags():
    runner = CliRunner()
    plain = runner.invoke(app, ["play", "--players", "2", "--seed", "3"],
                          input="1\n" * 2000)
    assert plain.exit_code == 0, plain.output
    assert "\x1b[" not in plain.output and "game over" in plain.output
    coloured = runner.invoke(app, ["play", "--players", "2", "--seed", "3", "--color"],
                             input="1\n" * 2000)
    assert coloured.exit_code == 0 and "\x1b[" in coloured.output
    no = runner.invoke(app, ["play", "--players", "2", "--seed", "3", "--no-color"],
                       input="1\n" * 2000)
    assert no.exit_code == 0 and no.output == plain.output
    match = runner.invoke(app, ["play", "--players", "2", "--seed", "3",
                                "--target-score", "100"], input="1\n" * 5000)
    assert match.exit_code == 0 and "scores (match to 100)" in match.output


def test_a_shanks_give_is_seen_by_its_giver_only():
    from uno_env.apps.play import _log
    lines = []
    who = {0: "you", 1: "player 1 (x)"}
    _log(lambda t: lines.append(str(t)), who, 1, "give:R5", "light", 0)
    _log(lambda t: lines.append(str(t)), who, 0, "give:R5", "light", 0)
    assert lines == ["  player 1 (x): gives a card to the next player", "  you: give:R5"]


VERDICT = re.compile(r"^    (you|player (\d+) \([^)]*\)) challenges? (your|player (\d+) "
                     r"\([^)]*\)'s) Wild Draw Four: it was (legal|a bluff), "
                     r"(you|player (\d+) \([^)]*\)) draws? (\d+)$", re.M)


def test_a_challenge_says_the_verdict_and_the_penalty(monkeypatch):
    """After every challenge (the person's or an agent's) the verdict and who draws how
    many are printed; checked against a replay of the game."""
    game, text = run("classic", 3, 5, ["challenge", "1"] * 600, monkeypatch,
                     opponents="random")
    said = [(int(g[1] or 0), int(g[3] or 0), g[4] == "a bluff", int(g[6] or 0), int(g[7]))
            for g in (m.groups() for m in VERDICT.finditer(text))]
    replay, expected, last_card = Game("classic", 3, seed=5), [], None
    for s, move in game.history:
        before, won = replay.hand_sizes, replay.stats["challenges_won"]
        replay.play(move)
        if move.startswith("W4"):
            last_card = s
        if move == "challenge":
            bluff = replay.stats["challenges_won"] > won
            loser = last_card if bluff else s
            expected.append((s, last_card, bluff, loser,
                             replay.hand_sizes[loser] - before[loser]))
    assert len(expected) >= 5 and {e[2] for e in expected} == {True, False}
    assert 0 in {e[0] for e in expected} and 0 in {e[1] for e in expected}
    assert said == expected


@pytest.mark.parametrize("preset", ["classic112", "flip", "street", "chaos", "multi",
                                    "onepiece"])
def test_every_move_of_every_variant_is_said(preset):
    """narrate says every move of a random game of each family of rules (7-0, stacking,
    jump-in, multi-card, Flip, One Piece): its actor first, nobody unnamed, and the
    cards a seat draws as its hand grows."""
    import random

    from uno_env.apps.seat_view import narrate, snapshot
    game, rng = Game(preset, 3, seed=1), random.Random(1)
    while not game.is_over:
        before, seat = snapshot(game), game.current_player
        move = rng.choice(game.legal_moves())
        game.play(move)
        said = narrate(before, snapshot(game), seat, move, viewer=0)
        assert said[0].startswith("you " if seat == 0 else f"seat {seat} "), said
        assert not [x for x in said if "None" in x or re.search(r"draws? 0\b", x)], said
        grew = [s for s in range(3) if game.hand_sizes[s] > before["sizes"][s]]
        if move == "draw" or (grew and not move.startswith(("swap", "give"))
                              and "hands are exchanged" not in said):
            for s in grew:
                n = game.hand_sizes[s] - before["sizes"][s]
                who = "you" if s == 0 else f"seat {s}"
                assert any(re.search(rf"\b{who} (draws?|accepts? and draws?|takes? it back "
                                     rf"and draws?) {n - (1 if 'back' in x else 0)}\b", x)
                           for x in said), (move, said)
