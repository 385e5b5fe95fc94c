"""A slow, obviously-correct plain-Python model of the classic UNO rules and the house
rules.

Written from ``docs/rules.md`` sections 1, 2, 3, 4 and 7 (not from the engine's code), as a
second, independent reading of the contract to cross-check the numba engine
(``tests/rules/test_reference.py``, ``tests/rules/test_reference_house.py``). The house rules
follow the readings documented in ``uno_env/engine/house.py`` where docs/rules.md is silent.

Cards are the notation strings of docs/rules.md section 1 (``"R5"``, ``"GS"``, ``"BD2"``,
``"W"``, ``"W4"``); moves are the move strings (``"R5"``, ``"W4:G"``, ``"draw"``,
``"pass"``, ``"challenge"``, ``"accept"``, ``"uno"``, ``"catch"``, ``"color:R"``).

The model cannot know the engine's shuffle order, so ``apply`` takes an optional
``reshuffle`` callable that orders the cards of a reshuffled discard pile, and reports
whether a reshuffle happened; the lockstep test passes an oracle that reads the order
from the engine (so everything else is still predicted exactly), and re-syncs from the
engine when a new round of a match is dealt.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

COLORS = "RYGB"
WILDS = ("W", "W4", "WS", "WX")
NUMBER_RANKS = tuple(str(i) for i in range(10))
ACTION_RANKS = ("S", "R", "D2")

PLAY, DRAWN, CHALLENGE, COLOR, OVER = "play", "drawn", "challenge", "color", "over"
STACK, JUMP_IN, SWAP, MULTI = "stack", "jump_in", "swap", "multi"
PLAYING, TERMINATED, TRUNCATED, NEXT_ROUND = "playing", "over", "truncated", "next_round"


# --- cards --------------------------------------------------------------------------------
def is_wild(card: str) -> bool:
    return card in WILDS


def color_of(card: str) -> str | None:
    return None if is_wild(card) else card[0]


def rank_of(card: str) -> str:
    return card if is_wild(card) else card[1:]


def points(card: str) -> int:
    """docs/rules.md 2 "Points": numbers face value; S R D2 20; W W4 50."""
    rank = rank_of(card)
    if rank in NUMBER_RANKS:
        return int(rank)
    if rank in ACTION_RANKS:
        return 20
    if rank in ("W", "W4"):
        return 50
    if rank in ("WS", "WX"):
        return 40
    raise ValueError(card)


def classic_deck() -> list[str]:
    """The 108 cards: per colour one 0, two each 1-9, S, R, D2; four W, four W4."""
    deck = []
    for c in COLORS:
        deck.append(c + "0")
        for rank in (*NUMBER_RANKS[1:], *ACTION_RANKS):
            deck += [c + rank] * 2
    deck += ["W"] * 4 + ["W4"] * 4
    return deck


def deck_of(rules: "Rules") -> list[str]:
    """docs/rules.md 4: classic112 adds one WS and three WX."""
    return classic_deck() + (["WS"] + ["WX"] * 3 if rules.deck == "classic112" else [])


# --- rules and state ----------------------------------------------------------------------
@dataclass(frozen=True)
class Rules:
    num_players: int
    bluff: bool = True
    uno_call: bool = True
    scoring: str = "winner"      # "winner" | "penalty"
    target_score: int = 0        # 0: a single round
    max_turns: int = 1000
    reward: str = "win"          # "win" | "score"
    hand_size: int = 7
    dealer: int = 0
    # house rules (docs/rules.md 3, 4)
    deck: str = "classic108"
    stack: str = "none"          # "none" | "same" | "any"
    seven_zero: bool = False
    jump_in: bool = False
    force_play: bool = False
    no_draw_if_playable: bool = False
    draw_until_playable: bool = False
    multi_play: bool = False
    teams: bool = False
    wx_rule: str = "wild"        # "wild" | "draw1" | "swap"
    ws_last_card_wins: bool = False

    @property
    def house(self) -> bool:
        return (self.stack != "none" or self.seven_zero or self.jump_in or self.force_play
                or self.no_draw_if_playable or self.draw_until_playable or self.multi_play
                or self.deck == "classic112")


@dataclass
class State:
    hands: list[list[str]]
    draw: list[str]              # top first
    discard: list[str]           # bottom first; discard[-1] is the top card
    color: str | None            # colour in force (named colour after a wild)
    direction: int
    current: int                 # seat that must decide now
    phase: str                   # play | drawn | challenge | color | over
    uno_called: int = -1         # seat that declared UNO in the current turn
    catchable: int = -1          # seat the next decider may catch
    catch_pending: int = -1      # seat whose play left one card without a call, this turn
    w4_player: int = -1          # challenge phase: who played the W4
    w4_guilty: bool = False      # challenge phase: the verdict (judged when played)
    drawn: str | None = None     # drawn phase: the card just drawn
    turns: int = 0               # turns ended in this round
    status: str = PLAYING        # playing | over | truncated | next_round
    round_winner: int = -1
    winner: int = -1             # winner of the match (of the round if target_score=0)
    dealer: int = 0
    round_points: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    # house rules
    pending: int = 0             # draw total the decider takes by `accept` (stacking)
    jump_from: int = -1          # jump-in window: whose card is open to a jump-in
    resume_seat: int = -1        # ... and the decision that follows if all pass
    resume_phase: str = PLAY
    multi_count: int = 0         # cards of the current multi-play sequence
    swaps_left: int = 0          # 7-0: swaps still to choose

    @property
    def n(self) -> int:
        return len(self.hands)

    @property
    def top(self) -> str:
        return self.discard[-1]

    def copy(self) -> "State":
        return State(
            hands=[list(h) for h in self.hands], draw=list(self.draw),
            discard=list(self.discard), color=self.color, direction=self.direction,
            current=self.current, phase=self.phase, uno_called=self.uno_called,
            catchable=self.catchable, catch_pending=self.catch_pending,
            w4_player=self.w4_player, w4_guilty=self.w4_guilty, drawn=self.drawn,
            turns=self.turns, status=self.status, round_winner=self.round_winner,
            winner=self.winner, dealer=self.dealer, round_points=list(self.round_points),
            scores=list(self.scores), rewards=list(self.rewards), pending=self.pending,
            jump_from=self.jump_from, resume_seat=self.resume_seat,
            resume_phase=self.resume_phase, multi_count=self.multi_count,
            swaps_left=self.swaps_left)

    def all_cards(self) -> Counter:
        c = Counter(self.draw) + Counter(self.discard)
        for h in self.hands:
            c += Counter(h)
        return c


def seat_after(state: State, seat: int, k: int = 1) -> int:
    return (seat + k * state.direction) % state.n


def holds_color(hand: list[str], color: str | None) -> bool:
    """A coloured card of ``color`` (wilds never count)."""
    return any(color_of(c) == color for c in hand)


def matches(state: State, card: str) -> bool:
    """Colour (the named colour after a wild), number or symbol, or any wild."""
    if is_wild(card):
        return True
    return color_of(card) == state.color or rank_of(card) == rank_of(state.top)


def may_play(state: State, seat: int, card: str, rules: Rules) -> bool:
    """``matches`` plus the W4 restriction when bluffing is off: no card of the colour
    in force may be held (checked on the hand as it is, the W4 itself never counts)."""
    if not matches(state, card):
        return False
    if card == "W4" and not rules.bluff:
        return not holds_color(state.hands[seat], state.color)
    return True


def _card_moves(card: str) -> list[str]:
    return [f"{card}:{c}" for c in COLORS] if is_wild(card) else [card]


def _parse_play(move: str) -> tuple[str, str | None]:
    card, _, chosen = move.partition(":")
    return card, (chosen or None)


# --- legal moves --------------------------------------------------------------------------
def legal_moves(state: State, rules: Rules) -> set[str]:
    if rules.house:
        return house_legal_moves(state, rules)
    s, p = state, state.current
    if s.status != PLAYING or s.phase == OVER:
        return set()
    if s.phase == COLOR:
        return {f"color:{c}" for c in COLORS}
    moves: set[str] = set()
    if rules.uno_call and s.catchable >= 0:
        moves.add("catch")
    if s.phase == CHALLENGE:
        return moves | {"challenge", "accept"}
    hand = s.hands[p]
    if s.phase == PLAY:
        plays = {m for card in set(hand) if may_play(s, p, card, rules)
                 for m in _card_moves(card)}
        moves |= plays | {"draw"}
    elif s.phase == DRAWN:
        plays = set(_card_moves(s.drawn))
        moves |= plays | {"pass"}
    else:
        raise AssertionError(s.phase)
    if rules.uno_call and len(hand) == 2 and s.uno_called != p and plays:
        moves.add("uno")
    return moves


# --- transitions --------------------------------------------------------------------------
class _Ctx:
    def __init__(self, reshuffle):
        self.reshuffle = reshuffle
        self.reshuffled = False


def _default_reshuffle(cards: list[str]) -> list[str]:
    cards = list(cards)
    random.shuffle(cards)
    return cards


def _draw(s: State, seat: int, k: int, ctx: _Ctx) -> list[str]:
    """``seat`` draws up to ``k`` cards; an empty draw pile is refilled once from the
    discard pile except its top card; if both are dry the player draws fewer."""
    got: list[str] = []
    reshuffled = False
    while len(got) < k:
        if not s.draw:
            if reshuffled or len(s.discard) <= 1:
                break
            pile = s.discard[:-1]
            s.discard = s.discard[-1:]
            s.draw = list(ctx.reshuffle(pile))
            assert Counter(s.draw) == Counter(pile), "reshuffle must keep the cards"
            reshuffled = ctx.reshuffled = True
            continue
        got.append(s.draw.pop(0))
    s.hands[seat].extend(got)
    return got


def _begin(s: State, seat: int, phase: str) -> None:
    """Hand the next decision to ``seat``; if that is the UNO offender, the chance is
    gone (a player never catches themselves)."""
    if s.catchable == seat:
        s.catchable = -1
    s.current = seat
    s.phase = phase


def _end_turn(s: State, seat: int, nxt: int, rules: Rules, phase: str = PLAY) -> None:
    s.turns += 1
    s.uno_called = -1
    s.drawn = None
    s.catchable = s.catch_pending
    s.catch_pending = -1
    if s.turns >= rules.max_turns:
        s.status = TRUNCATED
        s.phase = OVER
        s.catchable = -1
        s.rewards = [0.0] * s.n
        return
    _begin(s, nxt, phase)


def _end_round(s: State, w: int, rules: Rules) -> None:
    n = s.n
    own = [sum(points(c) for c in h) for h in s.hands]
    assert own[w] == 0
    if rules.teams:
        _end_round_teams(s, w, rules, own)
        return
    if rules.scoring == "winner":
        rp = [0] * n
        rp[w] = sum(own)
    else:
        rp = own
    s.round_points = rp
    s.scores = [a + b for a, b in zip(s.scores, rp)]
    s.round_winner = w
    s.catchable = s.catch_pending = s.uno_called = s.w4_player = -1
    s.drawn = None
    over = False
    if rules.target_score == 0:
        over, s.winner = True, w
    elif rules.scoring == "winner":
        if s.scores[w] >= rules.target_score:
            over, s.winner = True, w
    elif max(s.scores) >= rules.target_score:
        low = min(s.scores)
        leaders = [i for i in range(n) if s.scores[i] == low]
        over, s.winner = True, (leaders[0] if len(leaders) == 1 else -2)  # -2: a tie
    if rules.target_score == 0:
        if rules.reward == "win":
            s.rewards = [1.0 if i == w else -1.0 / (n - 1) for i in range(n)]
        else:
            # winner + the others' points (whatever the scoring), others - their own
            s.rewards = [float(sum(own)) if i == w else -float(own[i]) for i in range(n)]
    if over:
        s.status, s.phase = TERMINATED, OVER
    else:
        s.status = NEXT_ROUND  # a new deal follows: the test re-syncs from the engine


def _play(s: State, p: int, card: str, chosen: str | None, rules: Rules,
          ctx: _Ctx) -> None:
    hand = s.hands[p]
    hand.remove(card)
    s.discard.append(card)
    prev_color = s.color
    s.color = chosen if is_wild(card) else color_of(card)
    s.drawn = None
    rank = rank_of(card)
    if not hand:
        # going out ends the round at once: only the draws of a last D2 / W4 (no challenge)
        victim = seat_after(s, p, 1)
        if rank == "D2":
            _draw(s, victim, 2, ctx)
        elif card == "W4":
            _draw(s, victim, 4, ctx)
        _end_round(s, p, rules)
        return
    if rules.uno_call and len(hand) == 1 and s.uno_called != p:
        s.catch_pending = p
    if rank == "S":
        _end_turn(s, p, seat_after(s, p, 2), rules)
    elif rank == "R":
        s.direction = -s.direction
        _end_turn(s, p, p if s.n == 2 else seat_after(s, p, 1), rules)
    elif rank == "D2":
        _draw(s, seat_after(s, p, 1), 2, ctx)
        _end_turn(s, p, seat_after(s, p, 2), rules)
    elif card == "W4":
        victim = seat_after(s, p, 1)
        if rules.bluff:
            s.w4_player = p
            s.w4_guilty = holds_color(hand, prev_color)
            _end_turn(s, p, victim, rules, CHALLENGE)
        else:
            _draw(s, victim, 4, ctx)
            _end_turn(s, p, seat_after(s, p, 2), rules)
    else:  # number or W
        _end_turn(s, p, seat_after(s, p, 1), rules)


def apply(state: State, move: str, rules: Rules, reshuffle=None,
          ws_deal=None) -> tuple[State, bool]:
    """The state after ``move`` (the input is not changed) and whether the draw pile was
    refilled from the discard pile (its order came from ``reshuffle(cards) -> list``).
    ``ws_deal(cards, first_seat) -> list`` orders the cards a Wild Shuffle Hands deals
    out (default: a random shuffle)."""
    legal = legal_moves(state, rules)
    if move not in legal:
        raise ValueError(f"{move!r} is not legal; legal: {sorted(legal)}")
    ctx = _Ctx(reshuffle or _default_reshuffle)
    ctx.ws_deal = ws_deal or (lambda cards, first: _default_reshuffle(cards))
    if rules.house:
        return _apply_house(state, move, rules, ctx)
    s = state.copy()
    s.rewards = [0.0] * s.n
    p = s.current

    if move == "catch":  # the offender draws 2; the catcher's decision goes on
        _draw(s, s.catchable, 2, ctx)
        s.catchable = -1
        return s, ctx.reshuffled
    s.catchable = -1  # any other move (also `uno`) closes the chance to catch
    if move == "uno":
        s.uno_called = p
        return s, ctx.reshuffled
    if move.startswith("color:"):
        s.color = move.split(":")[1]
        _begin(s, p, PLAY)
    elif move == "draw":
        got = _draw(s, p, 1, ctx)
        if got and may_play(s, p, got[0], rules):
            s.drawn = got[0]
            _begin(s, p, DRAWN)
        else:
            _end_turn(s, p, seat_after(s, p, 1), rules)
    elif move == "pass":
        _end_turn(s, p, seat_after(s, p, 1), rules)
    elif move in ("accept", "challenge"):
        w, guilty = s.w4_player, s.w4_guilty
        s.w4_player, s.w4_guilty = -1, False
        if move == "accept":
            _draw(s, p, 4, ctx)
            _begin(s, seat_after(s, p, 1), PLAY)
        elif guilty:
            _draw(s, w, 4, ctx)
            _begin(s, p, PLAY)  # the challenger takes a normal turn
        else:
            _draw(s, p, 6, ctx)
            _begin(s, seat_after(s, p, 1), PLAY)
    else:
        card, chosen = _parse_play(move)
        _play(s, p, card, chosen, rules, ctx)
    return s, ctx.reshuffled


# --- start of a round ---------------------------------------------------------------------
def round_start_problems(s: State, rules: Rules, dealer: int) -> list[str]:
    """What is wrong with a freshly dealt round (docs/rules.md 2, "Dealer and order" and
    "First card turned up"); an empty list when it is consistent."""
    n, hs = s.n, rules.hand_size
    out = []
    top = s.top
    if len(s.discard) != 1:
        out.append(f"discard should hold only the first card, holds {s.discard}")
    if top == "W4":
        out.append("a W4 turned up first must be put back")
    first = (dealer + 1) % n
    sizes = [hs] * n
    rank = rank_of(top)
    exp_dir, exp_phase, exp_color = 1, PLAY, color_of(top)
    if rank == "S":
        exp_cur = (dealer + 2) % n
    elif rank == "R":
        exp_cur, exp_dir = dealer, -1
    elif rank == "D2":
        exp_cur = (dealer + 2) % n
        sizes[first] += 2
    elif top == "W":
        exp_cur, exp_phase, exp_color = first, COLOR, None
    else:
        exp_cur = first
    got = dict(current=s.current, direction=s.direction, phase=s.phase,
               sizes=[len(h) for h in s.hands], draw=len(s.draw), turns=s.turns,
               catchable=s.catchable, uno_called=s.uno_called, status=s.status)
    want = dict(current=exp_cur, direction=exp_dir, phase=exp_phase, sizes=sizes,
                draw=len(deck_of(rules)) - sum(sizes) - 1, turns=0, catchable=-1,
                uno_called=-1,
                status=PLAYING)
    if s.phase != COLOR or s.color is not None:
        got["color"], want["color"] = s.color, exp_color
    for k in want:
        if got[k] != want[k]:
            out.append(f"first card {top}, dealer {dealer}: {k} is {got[k]!r}, "
                       f"expected {want[k]!r}")
    if top in ("WS", "WX"):
        out.append(f"a {top} turned up first must be put back (docs/rules.md 4)")
    if s.all_cards() != Counter(deck_of(rules)):
        out.append("the deck is not whole")
    return out


# --- teams (docs/rules.md 2 "Teams", 3 precise points, 7) --------------------------------------
def _end_round_teams(s: State, w: int, rules: Rules, own: list[int]) -> None:
    """Seats 0+2 against 1+3: the winner's entry holds the other team's points; the team
    shares the reward (+1 / -1 each, or +/- the points with reward="score")."""
    same = [(q - w) % 2 == 0 for q in range(4)]
    total = sum(own[q] for q in range(4) if not same[q])
    rp = [0] * 4
    rp[w] = total
    s.round_points = rp
    s.scores = [a + b for a, b in zip(s.scores, rp)]
    s.round_winner = w
    s.catchable = s.catch_pending = s.uno_called = s.w4_player = -1
    s.drawn = None
    over = rules.target_score == 0 or \
        s.scores[w] + s.scores[(w + 2) % 4] >= rules.target_score
    if rules.target_score == 0:
        if rules.reward == "win":
            s.rewards = [1.0 if same[q] else -1.0 for q in range(4)]
        else:
            s.rewards = [float(total) if same[q] else -float(total) for q in range(4)]
    if over:
        s.winner = w
        s.status, s.phase = TERMINATED, OVER
    else:
        s.status = NEXT_ROUND


# --- house rules (docs/rules.md 3 and 4) --------------------------------------------------------
def draw_value(card: str, rules: Rules) -> int:
    """Cards the next player draws: D2 2, W4 4, WX 1 with wx_rule="draw1" (docs/rules.md 4)."""
    if rank_of(card) == "D2":
        return 2
    if card == "W4":
        return 4
    if card == "WX" and rules.wx_rule == "draw1":
        return 1
    return 0


def can_stack(s: State, p: int, card: str, rules: Rules) -> bool:
    """docs/rules.md 3 stack: "same" the same draw card, "any" any draw card of equal or
    higher draw value than the top card; colour ignored; W4 keeps its colour rule."""
    dv = draw_value(card, rules)
    if dv == 0:
        return False
    if rules.stack == "same":
        ok = rank_of(card) == rank_of(s.top)
    else:
        ok = dv >= draw_value(s.top, rules)
    if ok and card == "W4" and not rules.bluff:
        ok = not holds_color(s.hands[p], s.color)
    return ok


def house_legal_moves(s: State, rules: Rules) -> set[str]:
    p = s.current
    if s.status != PLAYING or s.phase == OVER:
        return set()
    if s.phase == COLOR:
        return {f"color:{c}" for c in COLORS}
    moves: set[str] = set()
    if rules.uno_call and s.catchable >= 0:
        moves.add("catch")
    if s.phase == CHALLENGE:
        return moves | {"challenge", "accept"}
    if s.phase == SWAP:
        return moves | {f"swap:+{k}" for k in range(1, s.n)}
    hand = s.hands[p]
    if s.phase == PLAY:
        plays = {m for card in set(hand) if may_play(s, p, card, rules)
                 for m in _card_moves(card)}
        moves |= plays
        if not (rules.no_draw_if_playable and plays):
            moves.add("draw")
    elif s.phase == DRAWN:
        plays = set(_card_moves(s.drawn))
        moves |= plays
        bluff = s.drawn == "W4" and holds_color(hand, s.color)
        if not rules.force_play or bluff:
            moves.add("pass")
    elif s.phase == STACK:
        plays = {m for card in set(hand) if can_stack(s, p, card, rules)
                 for m in _card_moves(card)}
        moves |= plays | {"accept"}
        if s.top == "W4" and rules.bluff:
            moves.add("challenge")
    elif s.phase == JUMP_IN:
        plays = {s.top}
        moves |= plays | {"pass"}
    elif s.phase == MULTI:
        plays = {c for c in hand if not is_wild(c) and rank_of(c) == rank_of(s.top)}
        moves |= plays | {"pass"}
    else:
        raise AssertionError(s.phase)
    if rules.uno_call and len(hand) == 2 and s.uno_called != p and plays:
        moves.add("uno")
    return moves


def _holder_after(s: State, after: int, origin: int, card: str) -> int:
    """The first seat after ``after`` in turn order, before ``origin``, holding ``card``."""
    seat = seat_after(s, after, 1)
    while seat != origin:
        if card in s.hands[seat]:
            return seat
        seat = seat_after(s, seat, 1)
    return -1


def _finish(s: State, p: int, nxt: int, phase: str, rules: Rules,
            window: bool = True) -> None:
    """End p's turn (docs/rules.md 2); then, with jump_in after a coloured card, ask the
    holders of an identical card in turn order before ``nxt`` decides (docs/rules.md 3)."""
    s.turns += 1
    s.uno_called = -1
    s.drawn = None
    cp = s.catch_pending
    # catchable only if they still hold one card when the turn ends (docs/rules.md 3)
    s.catchable = cp if cp >= 0 and len(s.hands[cp]) == 1 else -1
    s.catch_pending = -1
    if s.turns >= rules.max_turns:
        s.status, s.phase, s.catchable = TRUNCATED, OVER, -1
        s.rewards = [0.0] * s.n
        return
    if window and rules.jump_in and not is_wild(s.top):
        j = _holder_after(s, p, p, s.top)
        if j >= 0:
            s.jump_from, s.resume_seat, s.resume_phase = p, nxt, phase
            _begin(s, j, JUMP_IN)
            return
    _begin(s, nxt, phase)


def _ws(s: State, p: int, ctx) -> None:
    """docs/rules.md 4 WS: gather all hands, shuffle, deal one at a time from seat p + 1."""
    cards = [c for h in s.hands for c in h]
    order = list(ctx.ws_deal(cards, (p + 1) % s.n))
    assert Counter(order) == Counter(cards), "the shuffle must keep the cards"
    s.hands = [[] for _ in range(s.n)]
    for i, card in enumerate(order):
        s.hands[(p + 1 + i) % s.n].append(card)


def _resolve(s: State, p: int, rules: Rules, ctx) -> None:
    """The effect of the k cards just played (all of the top card's rank)."""
    card = s.top
    rank = rank_of(card)
    k = max(s.multi_count, 1)
    s.multi_count = 0
    dv = draw_value(card, rules)
    nxt = seat_after(s, p, 1)
    if not s.hands[p]:
        if card == "WS" and not rules.ws_last_card_wins:
            _ws(s, p, ctx)
        if not s.hands[p]:
            total = s.pending + k * dv
            s.pending = 0
            if total:
                _draw(s, nxt, total, ctx)
            _end_round(s, p, rules)
            return
        _finish(s, p, nxt, PLAY, rules)
        return
    if rank == "S":
        _finish(s, p, seat_after(s, p, k + 1), PLAY, rules)
    elif rank == "R":
        if k % 2:
            s.direction = -s.direction
        again = p if s.n == 2 and k % 2 else seat_after(s, p, 1)
        _finish(s, p, again, PLAY, rules)
    elif dv:
        if rules.stack != "none":
            s.pending += k * dv
            _finish(s, p, nxt, STACK, rules)
        elif card == "W4" and rules.bluff:
            _finish(s, p, nxt, CHALLENGE, rules)
        else:
            _draw(s, nxt, k * dv, ctx)
            _finish(s, p, seat_after(s, p, 2), PLAY, rules)
    elif (rank == "7" and rules.seven_zero) or (card == "WX" and rules.wx_rule == "swap"):
        s.swaps_left = k
        _begin(s, p, SWAP)
    elif rank == "0" and rules.seven_zero:
        for _ in range(k):
            old = [list(h) for h in s.hands]
            for q in range(s.n):
                s.hands[seat_after(s, q, 1)] = old[q]
        _finish(s, p, nxt, PLAY, rules)
    elif card == "WS":
        _ws(s, p, ctx)
        _finish(s, p, nxt, PLAY, rules)
    else:
        _finish(s, p, nxt, PLAY, rules)


def _play_house(s: State, p: int, card: str, chosen: str | None, rules: Rules,
                ctx) -> None:
    hand = s.hands[p]
    prev_color = s.color
    hand.remove(card)
    s.discard.append(card)
    s.color = chosen if is_wild(card) else color_of(card)
    s.drawn = None
    if card == "W4":
        s.w4_player, s.w4_guilty = p, holds_color(hand, prev_color)
    if rules.uno_call and len(hand) == 1 and s.uno_called != p:
        s.catch_pending = p
    if rules.multi_play and not is_wild(card):
        s.multi_count += 1
        if any(not is_wild(c) and rank_of(c) == rank_of(card) for c in hand):
            _begin(s, p, MULTI)
            return
    _resolve(s, p, rules, ctx)


def _apply_house(state: State, move: str, rules: Rules, ctx) -> tuple[State, bool]:
    s = state.copy()
    s.rewards = [0.0] * s.n
    p = s.current
    if move == "catch":
        _draw(s, s.catchable, 2, ctx)
        s.catchable = -1
        return s, ctx.reshuffled
    s.catchable = -1
    if move == "uno":
        s.uno_called = p
        return s, ctx.reshuffled
    if move.startswith("color:"):
        s.color = move.split(":")[1]
        _begin(s, p, PLAY)
    elif move.startswith("swap:+"):
        q = seat_after(s, p, int(move[6:]))
        s.hands[p], s.hands[q] = s.hands[q], s.hands[p]
        s.swaps_left -= 1
        if s.swaps_left == 0:
            _finish(s, p, seat_after(s, p, 1), PLAY, rules)
    elif move == "draw":
        got = _draw(s, p, 1, ctx)
        while rules.draw_until_playable and got and not may_play(s, p, got[0], rules):
            got = _draw(s, p, 1, ctx)
        if got and may_play(s, p, got[0], rules):
            s.drawn = got[0]
            _begin(s, p, DRAWN)
        else:
            _finish_plain(s, p, rules)
    elif move == "pass":
        if s.phase == JUMP_IN:
            if s.uno_called == p:
                s.uno_called = -1
            j = _holder_after(s, p, s.jump_from, s.top)
            if j >= 0:
                _begin(s, j, JUMP_IN)
            else:
                s.jump_from = -1
                _begin(s, s.resume_seat, s.resume_phase)
        elif s.phase == MULTI:
            _resolve(s, p, rules, ctx)
        else:
            _finish_plain(s, p, rules)
    elif move in ("accept", "challenge") and s.phase == CHALLENGE:
        w, guilty = s.w4_player, s.w4_guilty
        if move == "accept":
            _draw(s, p, 4, ctx)
            _begin(s, seat_after(s, p, 1), PLAY)
        elif guilty:
            _draw(s, w, 4, ctx)
            _begin(s, p, PLAY)
        else:
            _draw(s, p, 6, ctx)
            _begin(s, seat_after(s, p, 1), PLAY)
    elif move in ("accept", "challenge"):  # a pending total (docs/rules.md 3 stacking)
        total, s.pending = s.pending, 0
        if s.uno_called == p:
            s.uno_called = -1
        if move == "accept":
            _draw(s, p, total, ctx)
            _begin(s, seat_after(s, p, 1), PLAY)
        elif s.w4_guilty:
            _draw(s, s.w4_player, total, ctx)
            _begin(s, p, PLAY)
        else:
            _draw(s, p, total + 2, ctx)
            _begin(s, seat_after(s, p, 1), PLAY)
    else:
        if s.phase == JUMP_IN:
            s.jump_from = -1
        card, chosen = _parse_play(move)
        _play_house(s, p, card, chosen, rules, ctx)
    return s, ctx.reshuffled


def _finish_plain(s: State, p: int, rules: Rules) -> None:
    """A turn that ends without a card played (no jump-in window)."""
    _finish(s, p, seat_after(s, p, 1), PLAY, rules, window=False)
