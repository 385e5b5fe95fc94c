"""Lockstep cross-check of the engine against the plain-Python reference ``naive.py``.

At every step of many seeded random games: the engine's legal moves must equal the
reference's, and after a random legal move the engine's new state must equal the
reference's prediction (hands, draw pile, discard pile, colour, direction, current
player, phase, UNO bookkeeping, W4 verdict, drawn card, turns, scores, rewards).

Reshuffles: the reference cannot know the engine's shuffle order, so its ``reshuffle``
hook is answered by an oracle that reads the order off the engine's draw pile after the
step (the cards drawn from the new pile are the reshuffled cards not left in it). The
multiset is still checked (discard pile except its top card) and so is everything else.
When a match deals a new round the reference re-syncs from the engine and checks the
new deal against docs/rules.md 2 ("Dealer and order", "First card turned up").
"""
from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

import pytest


import naive  # noqa: E402
from uno_env import Game  # noqa: E402
from uno_env.engine import codes as C  # noqa: E402

STATS: Counter = Counter()


# --- engine -> reference state ----------------------------------------------------------
def extract(game: Game) -> naive.State:
    info = game._state.info[0]
    hands = [game.hand(i) for i in range(game.num_players)]
    assert game.hand_sizes == [len(h) for h in hands], (game.hand_sizes, hands)
    assert game.draw_pile_size == len(game.draw_pile)
    assert game.top == game.discard[-1]
    deck = game.config.deck
    drawn_t = int(info[C.I_DRAWN_TYPE])
    status = (naive.TERMINATED if game.terminated else
              naive.TRUNCATED if game.truncated else naive.PLAYING)
    none_to = lambda v: -1 if v is None else v  # noqa: E731
    return naive.State(
        hands=hands, draw=game.draw_pile, discard=game.discard, color=game.color,
        direction=game.direction, current=game.current_player, phase=game.phase,
        uno_called=int(info[C.I_UNO_CALLED]), catchable=none_to(game.catchable),
        catch_pending=int(info[C.I_CATCH_PENDING]), w4_player=int(info[C.I_W4_PLAYER]),
        w4_guilty=bool(info[C.I_W4_GUILTY]),
        drawn=deck.type_name(drawn_t) if drawn_t >= 0 else None,
        turns=game.turns, status=status, round_winner=none_to(game.round_winner),
        winner=none_to(game.winner), dealer=game.dealer,
        round_points=game.round_points, scores=game.scores, rewards=game.rewards,
        pending=int(info[C.I_PENDING_DRAW]), jump_from=int(info[C.I_JUMP_FROM]),
        resume_seat=int(info[C.I_RESUME_SEAT]),
        resume_phase=C.PHASE_NAMES[info[C.I_RESUME_PHASE]],
        multi_count=int(info[C.I_MULTI_COUNT]), swaps_left=int(info[C.I_SWAPS_LEFT]))


def naive_rules(n: int, flags: dict) -> naive.Rules:
    return naive.Rules(num_players=n, **flags)


def view(s: naive.State, rules: naive.Rules) -> dict:
    """The fields docs/rules.md determines, for comparison (depends on the status)."""
    v = dict(status=s.status, hands=[sorted(h) for h in s.hands], draw=list(s.draw),
             discard=list(s.discard), color=s.color, direction=s.direction)
    if rules.target_score == 0:
        v["rewards"] = [round(float(r), 5) for r in s.rewards]
    if s.status == naive.PLAYING:
        v.update(current=s.current, phase=s.phase, uno_called=s.uno_called,
                 catchable=s.catchable, catch_pending=s.catch_pending, turns=s.turns)
        if s.phase == naive.CHALLENGE:
            v.update(w4_player=s.w4_player, w4_guilty=s.w4_guilty)
        if s.phase == naive.DRAWN:
            v.update(drawn=s.drawn)
        if rules.house and s.phase in (naive.STACK, naive.JUMP_IN, naive.MULTI):
            v.update(pending=s.pending)
        if s.phase == naive.JUMP_IN:
            v.update(jump_from=s.jump_from, resume_seat=s.resume_seat,
                     resume_phase=s.resume_phase)
        if s.phase == naive.MULTI:
            v.update(multi_count=s.multi_count)
        if s.phase == naive.SWAP:
            v.update(swaps_left=s.swaps_left)
    elif s.status == naive.TERMINATED:
        v.update(phase=s.phase, round_winner=s.round_winner, round_points=s.round_points)
        if rules.target_score > 0:  # match totals (a single round keeps no totals)
            v.update(scores=s.scores)
        if s.winner != -2:  # -2: the reference saw a tie for the lowest penalty total
            v.update(winner=s.winner)
    elif s.status == naive.TRUNCATED:
        v.update(phase=s.phase, turns=s.turns)
    return v


def diff(pred: dict, got: dict) -> list[str]:
    return [f"{k}: reference {pred[k]!r}\n{' ' * (len(k) + 2)}engine    {got.get(k)!r}"
            for k in pred if pred[k] != got.get(k)]


def scenario_call(s: naive.State, n: int, flags: dict) -> str:
    kw = ", ".join(f"{k}={v!r}" for k, v in flags.items())
    color = f", color={s.color!r}" if naive.is_wild(s.top) else ""
    return (f"Game.from_scenario(hands={[sorted(h) for h in s.hands]!r}, top={s.top!r}"
            f"{color}, draw_pile={s.draw!r}, discard={s.discard[:-1]!r}, "
            f"current={s.current}, direction={s.direction}{', ' if kw else ''}{kw})")


def reshuffle_oracle(after: naive.State):
    """Order a reshuffled pile as the engine did: the cards the step drew from it (any
    order: they all went into one hand) on top of what is left in the engine's pile."""
    def order(cards):
        left = Counter(after.draw)
        if left - Counter(cards):  # the engine's pile is no sub-multiset: show the diff
            return list(cards)
        drawn = sorted((Counter(cards) - left).elements())
        if after.drawn in drawn:  # draw_until_playable: the playable card came last
            drawn.remove(after.drawn)
            drawn.append(after.drawn)
        return drawn + list(after.draw)
    return order


def ws_oracle(after: naive.State):
    """Order the cards a Wild Shuffle Hands dealt as the engine did: one at a time from
    ``first``, each seat's cards taken from the engine's hand after the step."""
    def order(cards, first):
        hands = [sorted(h) for h in after.hands]
        n = len(hands)
        out = []
        for i in range(len(cards)):
            h = hands[(first + i) % n]
            if not h:  # the engine dealt differently: let the comparison show it
                return list(cards)
            out.append(h.pop())
        return out if Counter(out) == Counter(cards) else list(cards)
    return order


# --- the lockstep driver ------------------------------------------------------------------
def choose(rng: random.Random, moves: list[str], policy: str) -> str:
    moves = sorted(moves)
    if policy == "eager":  # prefer playing cards (shorter games, more endings)
        plays = [m for m in moves if m not in ("draw", "pass", "uno", "catch")
                 and not m.startswith("color:")]
        specials = [m for m in moves if m in ("uno", "catch")]
        if specials and rng.random() < 0.5:
            return rng.choice(specials)
        if plays and rng.random() < 0.8:
            return rng.choice(plays)
    return rng.choice(moves)


def lockstep(game: Game, flags: dict, rng: random.Random, policy: str, label: str,
             max_steps: int = 5000, moves=None, stop_early: bool = False) -> int:
    """Play ``game`` to its end (or through ``moves``) checking every step; returns the
    number of steps. ``label`` says how to rebuild the starting position."""
    n = game.num_players
    rules = naive_rules(n, flags)
    s = extract(game)
    history: list[str] = []
    steps = 0

    def fail(msg: str, before: naive.State):
        raise AssertionError(
            f"{msg}\n-- {label}\nposition before the step (phase {before.phase}, "
            f"catchable {before.catchable}, uno_called {before.uno_called}, turns "
            f"{before.turns}):\n  {scenario_call(before, n, flags)}\n"
            f"moves from the start ({len(history)}): {history}")

    while not game.is_over and steps < max_steps:
        engine_moves = game.legal_moves()
        if len(engine_moves) != len(set(engine_moves)):
            fail(f"duplicate legal moves: {sorted(engine_moves)}", s)
        ref_moves = naive.legal_moves(s, rules)
        if ref_moves != set(engine_moves):
            fail(f"legal moves differ:\n  reference only: {sorted(ref_moves - set(engine_moves))}"
                 f"\n  engine only:    {sorted(set(engine_moves) - ref_moves)}\n"
                 f"  (phase {s.phase}, player {s.current})", s)
        if moves is not None:
            if steps >= len(moves):
                break
            move = moves[steps]
        else:
            move = choose(rng, engine_moves, policy)
        round_before = game.round
        if s.phase == naive.PLAY and len(s.hands[s.current]) == 2 \
                and not (set(engine_moves) - {"draw", "catch", "uno"}):
            STATS["two_cards_no_play"] += 1  # (no `uno` is offered there)
        hand = s.hands[s.current]
        if not flags.get("bluff", True) and s.phase == naive.PLAY and "W4" in hand \
                and naive.holds_color(hand, s.color):
            STATS["w4_masked"] += 1
        game.play(move)
        history.append(move)
        steps += 1
        STATS[move.split(":")[0] if ":" in move and not move.startswith("color")
              else move] += 1
        after = extract(game)
        pred, reshuffled = naive.apply(s, move, rules, reshuffle=reshuffle_oracle(after),
                                       ws_deal=ws_oracle(after))
        STATS["reshuffles"] += reshuffled
        held = sum(map(len, pred.hands)) - sum(map(len, s.hands))
        if move == "draw" and held == 0:
            STATS["dry_draw"] += 1
        if move in ("catch", "accept", "challenge") and held < {"catch": 2, "accept": 4}.get(
                move, 4 if s.w4_guilty else 6):
            STATS["short_penalty"] += 1
        if move == "challenge":
            STATS["guilty" if s.w4_guilty else "innocent"] += 1
        if pred.status == naive.NEXT_ROUND:
            # a match goes on: the engine has dealt a new round, the winner dealing
            STATS["next_round"] += 1
            want = dict(round=round_before + 1, dealer=pred.round_winner,
                        round_winner=pred.round_winner)
            got = dict(round=game.round, dealer=game.dealer,
                       round_winner=after.round_winner)
            if not reshuffled:  # else the last D2/W4 drew cards of unknown value
                want["round_points"], got["round_points"] = pred.round_points, \
                    after.round_points
                want["scores"], got["scores"] = pred.scores, after.scores
            problems = diff(want, got)
            problems += naive.round_start_problems(after, rules, pred.round_winner)
            if problems:
                fail(f"after {move!r} (new round):\n" + "\n".join(problems), s)
            s = after
            continue
        problems = diff(view(pred, rules), view(after, rules))
        if problems:
            fail(f"after {move!r}" + (" (with a reshuffle)" if reshuffled else "") + ":\n"
                 + "\n".join(problems), s)
        s = pred
    if moves is None and not game.is_over and not stop_early:
        raise AssertionError(f"{label}: not over after {max_steps} steps")
    STATS[s.status] += 1
    return steps


# --- random games from a deal ---------------------------------------------------------------
CONFIGS = [(n, bluff, uno) for n in (2, 3, 4, 7, 10) for bluff in (True, False)
           for uno in (True, False)]
GAMES_PER_CONFIG = 8


@pytest.mark.parametrize("n,bluff,uno_call", CONFIGS)
def test_lockstep_random_games(n, bluff, uno_call):
    flags = dict(bluff=bluff, uno_call=uno_call)
    steps = 0
    for k in range(GAMES_PER_CONFIG):
        seed = 1000 * n + 100 * bluff + 10 * uno_call + k
        game = Game(num_players=n, seed=seed, **flags)
        s = extract(game)
        problems = naive.round_start_problems(s, naive_rules(n, flags), 0)
        assert not problems, f"Game(num_players={n}, seed={seed}, **{flags}): {problems}"
        rng = random.Random(seed)
        policy = "eager" if k % 2 else "uniform"
        label = (f"Game(num_players={n}, seed={seed}, **{flags}); "
                 f"policy {policy}, random.Random({seed})")
        steps += lockstep(game, flags, rng, policy, label)
    assert steps > 0


# other rule flags of the classic preset: short hands (UNO calls early), truncation,
# score rewards, penalty scoring, matches (re-sync at each new deal), another dealer
EXTRA = [
    (2, dict(hand_size=2)), (3, dict(hand_size=2, bluff=False)), (4, dict(hand_size=3)),
    (5, dict(hand_size=1)), (10, dict(hand_size=2)),
    (3, dict(max_turns=25)), (2, dict(max_turns=7, hand_size=3)),
    (4, dict(reward="score")), (3, dict(reward="score", hand_size=3)),
    (4, dict(scoring="penalty")), (2, dict(scoring="penalty", reward="score")),
    (3, dict(target_score=200)), (4, dict(target_score=150, scoring="penalty")),
    (2, dict(target_score=300, hand_size=4)),
    (5, dict(dealer=3)), (3, dict(dealer=2, hand_size=4)),
]


@pytest.mark.parametrize("n,flags", EXTRA, ids=[f"{n}-{f}" for n, f in EXTRA])
def test_lockstep_rule_flags(n, flags):
    for k in range(5):
        seed = 7_000 + 97 * k + n
        game = Game(num_players=n, seed=seed, **flags)
        s = extract(game)
        problems = naive.round_start_problems(s, naive_rules(n, flags),
                                              flags.get("dealer", 0))
        assert not problems, f"Game(num_players={n}, seed={seed}, **{flags}): {problems}"
        policy = "eager" if k % 2 else "uniform"
        label = (f"Game(num_players={n}, seed={seed}, **{flags}); "
                 f"policy {policy}, random.Random({seed})")
        lockstep(game, flags, random.Random(seed), policy, label)


def test_first_cards_of_many_deals():
    """Every first-card case (S, R, D2, W, W4 put back) on many deals and dealers."""
    seen = Counter()
    for n in (2, 3, 4, 6, 10):
        for dealer in range(0, n, max(1, n // 3)):
            game = Game(num_players=n, seed=0, dealer=dealer)
            for seed in range(300):
                game.reset(seed)
                s = extract(game)
                problems = naive.round_start_problems(s, naive_rules(n, {}), dealer)
                assert not problems, f"Game(num_players={n}, seed={seed}, " \
                                     f"dealer={dealer}): {problems}"
                seen[naive.rank_of(s.top)] += 1
    for rank in ("S", "R", "D2", "W"):
        assert seen[rank] > 0, seen
    assert seen["W4"] == 0


# --- random positions -----------------------------------------------------------------------
def random_position(rng: random.Random, n: int, dry: bool):
    """Random hands / top / colour / piles for ``Game.from_scenario``."""
    deck = naive.classic_deck()
    rng.shuffle(deck)
    if dry:  # nearly every card in hands: draws run the piles dry
        sizes = [rng.randint(1, 4) for _ in range(n)]
        big = rng.randrange(n)
        sizes[big] = 0
        spare = rng.randint(1, 6)
        sizes[big] = len(deck) - sum(sizes) - 1 - spare
    else:
        sizes = [rng.choice((1, 2, 2, 3, rng.randint(1, 12))) for _ in range(n)]
    hands = []
    for k in sizes:
        hands.append([deck.pop() for _ in range(k)])
    top = deck.pop()
    n_discard = rng.randint(0, min(len(deck), 30 if not dry else len(deck)))
    discard = [deck.pop() for _ in range(n_discard)]
    n_draw = rng.randint(0, min(len(deck), 5))
    draw_pile = [deck.pop() for _ in range(n_draw)]
    color = rng.choice(naive.COLORS) if naive.is_wild(top) else None
    return dict(hands=hands, top=top, color=color, draw_pile=draw_pile, discard=discard,
                current=rng.randrange(n), direction=rng.choice((1, -1)))


@pytest.mark.parametrize("bluff", [True, False])
@pytest.mark.parametrize("uno_call", [True, False])
def test_random_positions(bluff, uno_call):
    rng = random.Random(1 + 2 * bluff + uno_call)
    w4_masked = 0
    for i in range(250):
        n = rng.choice((2, 2, 3, 4, 5, 7, 10))
        pos = random_position(rng, n, dry=(i % 5 == 0))
        flags = dict(bluff=bluff, uno_call=uno_call)
        game = Game.from_scenario(seed=i, **pos, **flags)
        s = extract(game)
        hand = s.hands[s.current]
        if "W4" in hand and not bluff and naive.holds_color(hand, s.color):
            w4_masked += 1
        assert naive.legal_moves(s, naive_rules(n, flags)) == set(game.legal_moves()), \
            f"Game.from_scenario(seed={i}, **{pos}, **{flags})"
        policy = "eager" if i % 2 else "uniform"
        label = (f"Game.from_scenario(seed={i}, **{pos}, **{flags}); policy {policy}, "
                 f"random.Random({i})")
        lockstep(game, flags, random.Random(i), policy, label, max_steps=80,
                 stop_early=True)
    if not bluff:
        assert w4_masked > 0


# --- directed positions (rules the random walk hits rarely) ---------------------------------
DIRECTED = [
    # W4 with bluff=False is masked while a card of the colour in force is held
    (dict(hands=[["W4", "R1", "G5"], ["B7", "Y2"]], top="R8", bluff=False), []),
    (dict(hands=[["W4", "G1", "G5"], ["B7", "Y2"]], top="R8", bluff=False), ["W4:B"]),
    # guilt judged against the colour before the W4; a W in hand does not count
    (dict(hands=[["W4", "W", "G5"], ["B7", "Y2"], ["R1"]], top="R8"),
     ["W4:G", "challenge"]),
    (dict(hands=[["W4", "R1", "G5"], ["B7", "Y2"], ["R1"]], top="R8"),
     ["W4:G", "challenge", "draw"]),
    (dict(hands=[["W4", "R1", "G5"], ["B7", "Y2"], ["R1"]], top="R8"), ["W4:G", "accept"]),
    # UNO: call, no call and catch (also beside challenge / accept), skipped players
    (dict(hands=[["R1", "R2"], ["B7", "Y2", "Y3"], ["R3", "G4"]], top="R8"),
     ["uno", "R1", "draw"]),
    (dict(hands=[["R1", "R2"], ["B7", "Y2", "Y3"], ["R3", "G4"]], top="R8"),
     ["R1", "catch", "draw"]),
    (dict(hands=[["RS", "R2"], ["B7", "Y2", "Y3"], ["R3", "G4"]], top="R8"),
     ["RS", "catch", "R3"]),
    (dict(hands=[["W4", "R2"], ["B7", "Y2", "Y3"], ["R3", "G4"]], top="R8"),
     ["W4:G", "catch", "accept"]),
    (dict(hands=[["RS", "R2"], ["B7", "Y2"]], top="R8"), ["RS", "R2"]),
    (dict(hands=[["W4", "G2"], ["B7", "Y2"], ["R3", "G4"]], top="R8", bluff=False),
     ["W4:G", "catch", "G4"]),
    (dict(hands=[["R1", "R2"], ["B7", "Y2", "Y3"], ["R3", "G4"]], top="R8", uno_call=False),
     ["R1", "draw"]),
    # max_turns counts ended turns; the last turn's D2 / W4 draws happen first
    (dict(hands=[["W4", "R1", "G5"], ["B7", "Y2"], ["R3"]], top="R8", max_turns=1),
     ["W4:G"]),
    (dict(hands=[["RD2", "R1", "G5"], ["B7", "Y2"], ["R3"]], top="R8", max_turns=1),
     ["RD2"]),
    (dict(hands=[["G1", "G2"], ["B7", "Y2"], ["R3"]], top="R8", draw_pile=["R5", "Y9"],
          max_turns=2), ["draw", "R5", "draw"]),
    # last-card D2 / W4 still make the next player draw; reverse not applied
    (dict(hands=[["RD2"], ["B7", "Y2"], ["R3"]], top="R8"), ["RD2"]),
    (dict(hands=[["W4"], ["B7", "Y2"], ["R3"]], top="R8", direction=-1), ["W4:Y"]),
    (dict(hands=[["RR"], ["B7", "Y2"], ["R3"]], top="R8"), ["RR"]),
    # two players: R, S, D2, W4 give the same player another move
    (dict(hands=[["RR", "R2", "G3"], ["B7", "Y2"]], top="R8"), ["RR", "R2"]),
    (dict(hands=[["RD2", "G2", "G3"], ["B7", "Y2"]], top="R8"), ["RD2", "draw"]),
    # draw then play / pass; drawn W4 with bluff=False
    (dict(hands=[["G1", "R2"], ["B7", "Y2"]], top="R8", draw_pile=["R9"]), ["draw", "R9"]),
    (dict(hands=[["G1", "R2"], ["B7", "Y2"]], top="R8", draw_pile=["W4"], bluff=False),
     ["draw"]),
    (dict(hands=[["G1", "B2"], ["B7", "Y2"]], top="R8", draw_pile=["W4"], bluff=False),
     ["draw", "W4:Y"]),
    (dict(hands=[["R1"], ["B7", "Y2"]], top="R8", draw_pile=["R9"]),
     ["draw", "uno", "R9"]),
]


@pytest.mark.parametrize("scenario,moves", DIRECTED)
def test_directed_positions(scenario, moves):
    scenario = dict(scenario)
    place = ("hands", "top", "color", "draw_pile", "discard", "current", "direction")
    flags = {k: scenario.pop(k) for k in list(scenario) if k not in place}
    game = Game.from_scenario(**scenario, **flags)
    label = f"Game.from_scenario(**{scenario}, **{flags})"
    steps = lockstep(game, flags, random.Random(0), "uniform", label, moves=moves)
    assert steps == len(moves)


def test_coverage_report():
    """Runs last in this module: the random walks reached the rules' corners (run
    alone, it first plays the random games itself)."""
    if STATS["draw"] == 0:
        for n, bluff, uno_call in CONFIGS:
            test_lockstep_random_games(n, bluff, uno_call)
        for n, flags in EXTRA:
            test_lockstep_rule_flags(n, flags)
    print(dict(STATS))
    for key in ("catch", "uno", "challenge", "accept", "guilty", "innocent", "pass",
                "reshuffles", "next_round", naive.TERMINATED, naive.TRUNCATED,
                "two_cards_no_play", "w4_masked", "dry_draw", "short_penalty"):
        assert STATS[key] > 0, (key, dict(STATS))
    assert sum(v for k, v in STATS.items() if k.startswith("color:")) > 0, dict(STATS)
