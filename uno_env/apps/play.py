"""A person plays UNO in the terminal against agents (``uno-bench play``).

Each of the person's decisions shows what a player at the table sees
(``uno_env.apps.seat_view.seat_view``): the top card and the colour in force, the draw pile, the
phase and any pending draw or stack total, every player's hand size, who has declared
UNO and who can be caught, jump-in and Hancock windows, the scores of a match; with UNO
Flip the side in play, every card with its face in play first and its other side after
it in brackets (dimmed), the faces every opponent's hand shows to the table and the face
the draw pile's top card shows (docs/rules.md section 5). Then the person's hand and the
legal moves, numbered: type a number or a move (``R5``, ``W4:B``; for Flip ``R5|P7`` or
as shown, ``P7(R5)``). Every move is printed as it is made; a round and a match end with
a summary of points, winner and scores. End of input (Ctrl-D) abandons the game.

Cards are in their colours with rich; the text reads the same without colour
(``--no-color``, and whenever the output is not a terminal).
"""
from __future__ import annotations

import sys

from rich.console import Console
from rich.text import Text

from uno_env.envs.game import Game
from uno_env.apps.seat_view import (
    COLOR_NAMES, TableView, card, face_color, move_faces, narrate, seat_view, snapshot,
    track_uno,
)

#: rich style of each colour letter; wild faces are bold without a colour. The four
#: dark colours stay distinct on a 16-colour terminal too (rich maps orange to bright
#: red and purple to magenta there; no light colour is on the dark side with them).
STYLES = {"R": "bold red", "Y": "bold yellow", "G": "bold green", "B": "bold blue",
          "P": "bold bright_magenta", "T": "bold cyan", "O": "bold dark_orange",
          "V": "bold purple"}
WILD_STYLE = "bold"
OTHER_STYLE = "dim"

PHASE_HELP = {
    "play": "play a card or draw",
    "drawn": "play the card just drawn, or pass",
    "challenge": "a wild draw card was played on you: challenge or accept",
    "color": "a wild is the top card: name the colour",
    "stack": "a draw is pending: stack a draw card on it, or accept",
    "jump_in": "out of turn: play an identical card, or pass",
    "swap": "7-0: choose whom to swap hands with",
    "give": "Shanks: choose the card to give",
    "multi": "multi-play: go on with the same number or symbol, or pass",
}


def make_console(color: bool | None = None, file=None) -> Console:
    """A rich console on ``file`` (stdout): colour when ``color`` is True, none when
    False, and by default colour exactly when the output is a terminal."""
    file = sys.stdout if file is None else file
    tty = bool(getattr(file, "isatty", lambda: False)())
    if color is None:
        color = tty
    return Console(file=file, no_color=not color, force_terminal=True if color else None,
                   highlight=False, markup=False, emoji=False, soft_wrap=True)


# --- text of cards and moves ---------------------------------------------------------
def face_text(face: str) -> Text:
    return Text(face, style=STYLES.get(face_color(face) or "", WILD_STYLE))


def card_text(c) -> Text:
    """A ``table.Card``: face in play, then the other side in brackets (Flip)."""
    out = face_text(c.face)
    if c.other is not None:
        out.append("(" + c.other + ")", style=OTHER_STYLE)
    return out


def move_label(move: str, side: str) -> str:
    """The move as printed (no styles): Flip cards face in play first, ``P7(R5)``."""
    up, down, rest = move_faces(move, side)
    return up + (f"({down})" if down is not None else "") + rest


def move_text(move: str, side: str) -> Text:
    up, down, rest = move_faces(move, side)
    if down is None and not rest and ":" in up:  # color:X, swap:+k, give:X
        head, _, arg = up.partition(":")
        out = Text(head + ":")
        out.append(arg, style=STYLES.get(arg, "") if head == "color" else "")
        return out
    out = Text(up) if up in _SIMPLE else face_text(up)
    if down is not None:
        out.append("(" + down + ")", style=OTHER_STYLE)
    if rest:
        out.append(":")
        out.append(rest[1:], style=STYLES.get(rest[1:], ""))
    return out


_SIMPLE = {"draw", "pass", "challenge", "accept", "uno", "catch"}


def _join(parts, sep=" ") -> Text:
    out = Text()
    for k, p in enumerate(parts):
        if k:
            out.append(sep)
        out.append(p)
    return out


def _colour(letter: str | None) -> Text:
    if letter is None:
        return Text("-")
    return Text(f"{letter} ({COLOR_NAMES[letter]})", style=STYLES[letter])


# --- screens -------------------------------------------------------------------------
def render_view(view: TableView, who: dict[int, str]) -> list[Text]:
    """The lines of ``view`` (a ``table.TableView``) as shown to its seat."""
    lines = []
    title = f"=== your turn: round {view.round}, turn {view.turn + 1}"
    if view.flip:
        title += f", {view.side.upper()} side in play"
    lines.append(Text(title + " ===", style="bold"))
    top = Text("top: ")
    top.append(card_text(view.top))
    top.append("   colour: ")
    top.append(_colour(view.color))
    top.append(f"   direction: {'+1' if view.direction > 0 else '-1'} (seat order"
               f"{'' if view.direction > 0 else ' reversed'})")
    lines.append(top)
    pile = Text(f"draw pile: {view.draw_pile} card{'s' if view.draw_pile != 1 else ''}")
    if view.draw_back is not None:
        pile.append(", its top card shows ")
        pile.append(face_text(view.draw_back))
    lines.append(pile)
    lines.append(Text(f"phase: {view.phase} ({PHASE_HELP.get(view.phase, '')})"))
    if view.pending_draw:
        n = view.pending_draw
        if view.phase == "jump_in":
            what = f"pending draw held back: {n} card(s), for the player after the window"
        elif view.stacking:
            what = f"pending draw: {n} card(s) (stack total); accept draws them all"
        else:
            what = f"pending draw: {n} card(s); accept draws them"
        lines.append(Text(what, style="bold"))
    if view.phase == "challenge" and view.top.face == "WC":
        t = Text("Wild Draw Colour: accept draws until a card of ")
        t.append(_colour(view.color))
        t.append(" comes (docs/rules.md section 5)")
        lines.append(t)
    if view.uno_called is not None:
        lines.append(Text(f"{who[view.uno_called]} declared UNO this turn", style="bold"))
    if view.multi_count:
        lines.append(Text(f"multi-play: {view.multi_count} card(s) played this turn"))
    if view.jump_in_from is not None:
        t = Text(f"jump-in window: {who[view.jump_in_from]} played ")
        t.append(card_text(view.top))
        t.append(f"; an identical card may jump in; if nobody does, next to decide: "
                 f"{who[view.jump_in_resume]}")
        lines.append(t)
    if view.hancock_from is not None:
        t = Text(f"Hancock window: {who[view.hancock_from]} petrified everyone naming ")
        t.append(_colour(view.color))
        t.append("; a Luffy card (a 1) of that colour breaks it "
                 "(docs/rules.md section 6)")
        lines.append(t)
    lines.append(Text("players:"))
    for s in view.seats:
        mark = ">" if s.seat == view.current else " "
        plural = "s" if s.cards != 1 else " "
        t = Text(f" {mark} {who[s.seat]:<24} {s.cards:2d} card{plural}")
        if view.match:
            t.append(f"   score {s.score}")
        if s.declared_uno:
            t.append("   UNO! (declared)", style="bold")
        if s.catchable:
            t.append("   one card, UNO not declared: can be caught", style="bold")
        if s.backs:
            t.append("   backs: ")
            t.append(_join(face_text(f) for f in s.backs))
        lines.append(t)
    if view.teams:
        p = view.num_players
        lines.append(Text("teams: " + " vs ".join(
            " + ".join(who[s] for s in range(k, p, 2)) for k in range(2))))
    if view.match:
        lines.append(Text(f"match to {view.target_score} points: " + ", ".join(
            f"{who[s.seat]} {s.score}" for s in view.seats)))
    hand = Text(f"your hand ({len(view.hand)}): ")
    hand.append(_join(card_text(c) for c in view.hand))
    lines.append(hand)
    if view.moves:
        lines.append(Text("moves:"))
        for n, move in enumerate(view.moves, 1):
            t = Text(f"  {n:2d}. ")
            t.append(move_text(move, view.side))
            if move.startswith("swap:+"):  # 7-0: whom the swap is with
                k = int(move[len("swap:+"):])
                other = (view.seat + k * view.direction) % view.num_players
                t.append(f" (with {who[other]})")
            lines.append(t)
    return lines


def render_summary(view: TableView, who: dict[int, str], round_no: int | None = None
                   ) -> list[Text]:
    """Lines for the end of round ``round_no`` (default ``view.round``; in a match the
    next round is dealt by the move that ends one) and of the match, when it is over."""
    lines = []
    if view.truncated:
        lines.append(Text("=== game over: truncated (turn limit reached), no winner ===",
                          style="bold"))
        return lines
    rw = view.round_winner
    lines.append(Text(f"=== round {round_no or view.round} over: {who[rw]} went out ===",
                      style="bold"))
    lines.append(Text("round points: " + ", ".join(
        f"{who[s]} {p}" for s, p in enumerate(view.round_points))))
    if view.match:
        lines.append(Text(f"scores (match to {view.target_score}): " + ", ".join(
            f"{who[s.seat]} {s.score}" for s in view.seats)))
    if view.over:
        w = view.winner
        if view.teams:
            p = view.num_players
            team = " + ".join(who[s] for s in range(w % 2, p, 2))
            text = f"=== game over: the winning team is {team} ==="
        else:
            text = f"=== game over: the winner is {who[w]} ==="
        lines.append(Text(text, style="bold"))
        if w == view.seat or (view.teams and w % 2 == view.seat % 2):
            lines.append(Text("well played!"))
    return lines


# --- input ---------------------------------------------------------------------------
def _opponent_names(opponents, players: int, seat: int) -> list[str]:
    if isinstance(opponents, str):
        opponents = [o.strip() for o in opponents.split(",") if o.strip()]
    opponents = list(opponents)
    if len(opponents) == 1:
        opponents = opponents * (players - 1)
    if len(opponents) != players - 1:
        raise ValueError(f"give one opponent name for every opponent seat, or a single "
                         f"name: {players - 1} needed, got {len(opponents)}")
    return opponents


def _read(prompt: str, console: Console) -> str | None:
    console.print(prompt, end="")
    console.file.flush()
    try:
        line = sys.stdin.readline()
    except KeyboardInterrupt:  # Ctrl-C at the prompt: like end of input, no traceback
        line = ""
    if not line:
        return None
    if not sys.stdin.isatty():  # piped input is not echoed: end the prompt's line
        console.print()
    return line.strip()


def _choose(text: str, moves: list[str], side: str = "light") -> str | None:
    """The legal move named by ``text``: a 1-based number, a move string (``R5|P7``),
    or a Flip card as shown, face in play first (``P7(R5)``, ``P7|R5``); else None."""
    if text.isdigit():
        n = int(text)
        return moves[n - 1] if 1 <= n <= len(moves) else None
    want = text.upper().replace(" ", "")
    for move in moves:
        up, down, rest = move_faces(move, side)
        forms = {move.upper(), move_label(move, side).upper()}
        if down is not None:
            forms.add(f"{up}|{down}{rest}".upper())
        if want in forms:
            return move
    return None


def _moves_help(moves: list[str], side: str) -> str:
    return ", ".join(f"{n}. {move_label(m, side)}" for n, m in enumerate(moves, 1))


# --- the game ------------------------------------------------------------------------
def play_game(players: int = 4, opponents="heuristic", seed: int = 0, seat: int = 0,
              preset: str = "classic", console: Console | None = None,
              color: bool | None = None, **rules) -> Game | None:
    """Run the interactive game, reading moves from standard input; returns the
    finished ``Game`` (None if input ended). ``color``: see :func:`make_console`."""
    from uno_env.players.registry import make_agent

    console = console if console is not None else make_console(color)
    out = console.print
    game = Game(preset, players, seed=seed, **rules)
    if not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1}, got {seat}")
    names = _opponent_names(opponents, game.num_players, seat)
    others = [s for s in range(game.num_players) if s != seat]
    bots = {}
    for s, name in zip(others, names):
        bots[s] = make_agent(name, game.config, seed=seed * 1000 + s) \
            if name == "random" or name.startswith("mcts") else make_agent(name, game.config)
        if callable(getattr(bots[s], "attach", None)):  # a search agent reads the position
            bots[s].attach(game)
    who = {seat: "you"}
    who.update({s: f"player {s} ({names[k]})" for k, s in enumerate(others)})
    target = game.config.rules.target_score
    kind = f"a match to {target} points" if target else "one round"
    out(f"UNO ({preset}, {game.num_players} players, {kind}): you are player {seat}. "
        f"Type a move's number or its name; Ctrl-D quits.")
    if game.config.deck.double_sided:
        out("Flip: cards show their face in play first and their other side in brackets; "
            "opponents' 'backs' are the faces their hands show you "
            "(docs/rules.md section 5).")
    declared: set[int] = set()
    while not game.is_over:
        current = game.current_player
        side, round_no = game.side, game.round
        before = snapshot(game)
        if current != seat:
            action = bots[current].act(game.observe(current), game.action_mask().copy())
            move = game.move_name(action)
            game.step(action)
            _log(out, who, current, move, side, seat)
        else:
            view = seat_view(game, seat, track_uno(game, declared))
            for line in render_view(view, who):
                out(line)
            moves = list(view.moves)
            while True:
                text = _read(f"your move [1-{len(moves)}]: ", console)
                if text is None:
                    out("")
                    out("end of input: game abandoned.")
                    return None
                move = _choose(text, moves, side)
                if move is not None:
                    break
                out(f"not a legal move: {text!r}. Type a number from 1 to {len(moves)}, "
                    f"or a move: {_moves_help(moves, side)}")
            shown = _challenged_hand(game, move)
            game.play(move)
            _log(out, who, seat, move, side, seat)
            if shown is not None:
                w4, cards = shown
                t = Text(f"  {who[w4]} shows you their hand "
                         f"(challenge, docs/rules.md section 2): ")
                t.append(_join(card_text(c) for c in cards) if cards else Text("(empty)"))
                out(t)
        _say(out, narrate(before, snapshot(game), current, move, seat, who, ends=False),
             move)
        track_uno(game, declared)
        if game.side != side and not game.round_just_ended:
            out(Text(f"  -- the cards flip: {game.side.upper()} side in play "
                     f"(docs/rules.md section 5)", style="bold"))
        if game.is_over or game.round_just_ended:
            out("")
            for line in render_summary(seat_view(game, seat, declared), who, round_no):
                out(line)
            declared.clear()
    return game


def _challenged_hand(game: Game, move: str):
    """Before a ``challenge``: (seat, cards) of the hand shown to the challenger."""
    if move != "challenge":
        return None
    shown = game.challenge_hand
    if shown is None:
        return None
    w4, hands = shown
    return w4, [card(game, t) for t in range(len(hands)) for _ in range(hands[t])]


def _say(out, sentences: list[str], move: str) -> None:
    """What a move did, in words, under its log line: a challenge's verdict and
    penalty, an accepted draw, a catch, the cards others draw."""
    spoken = sentences if move in ("challenge", "accept", "catch") \
        or move.startswith("swap:") else sentences[1:]
    for sentence in spoken:
        out(Text(f"    {sentence}", style=OTHER_STYLE))


def _log(out, who, mover: int, move: str, side: str, seat: int) -> None:
    """Print a move as the table sees it (a Shanks give is seen by its giver only)."""
    t = Text(f"  {who[mover]}: ")
    if move.startswith("give:") and mover != seat:
        t.append("gives a card to the next player")
    else:
        t.append(move_text(move, side))
    out(t)
