"""Resampling inside a player's information set, for ``python_uno``'s
``resample_from_infostate`` (docs/openspiel.md). Pure Python and numpy over ``uno_env.Game``;
no pyspiel.

OpenSpiel requires a resample to be a history the player cannot tell from the real one.
Redrawing the hidden cards of the current position (``Game.determinize``) is not enough:
the player also knows the hand a challenge showed it (less the cards played since), the
cards it can place by elimination (after a reshuffle the new draw pile holds the discard
pile it saw) and what the plays and draws it watched imply. Here the real history is
followed card by card instead:

* :func:`track` replays the real game from its start and gives every card a *token*
  that follows it from hand to pile to hand to discard (cards of one type are matched
  by type, preferring another seat's card for a hand that receives, so a 7-0 swap moves
  whole hands). A token is *revealed* to the player when it lands on the discard pile
  or in the player's hand, or sits in the hand a challenge shows the player. Tokens are
  grouped by where their order was hidden: the deal (every card outside the player's
  hand and the discard pile), then each reshuffle (the discard pile it turns over: the
  player saw those cards, not their new order).
* :func:`sample` gives every unrevealed token a card type: within each group a uniformly
  random arrangement of the group's cards less its revealed ones, so the counts close by
  elimination. The deal is rebuilt from it and the real moves are replayed
  (:func:`replay`, each reshuffle's new pile rearranged the same way); the resample's
  information-state strings are the replay's own. A replay in which a move is illegal,
  or the player's record differs from the real one (e.g. a challenge's verdict, which
  depends on a hidden hand), is rejected and another drawn.

Cards drawn by the very move that reshuffles keep their real types (the replay uses the
real random stream there). Not followed (``track`` returns None): UNO Flip's two-sided
cards, and moves that put cards back into the draw pile or take them from the discard
pile other than by a reshuffle; the caller then redraws the deal by ``Game.determinize``
and replays it. Where independent draws find no consistent history, the caller walks
from the real one instead (:func:`exchange`, :func:`exchange_cards`): every step a
replay the player's record accepts, so every resample is in the information set.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from uno_env.engine.tallies import recount_state
from uno_env.envs.game import Game

#: independent draws tried before the random walk from the real history (``chain``)
MAX_TRIES = 100
#: UNO Flip: deals redrawn by ``Game.determinize`` and replayed before the walk
FLIP_TRIES = 20
#: proposals of the random walk from the real history (each one a replay)
CHAIN_STEPS = 60
#: explicit chance: states the search may visit before it returns the real history
SEARCH_NODES = 1500


@dataclass
class Tracking:
    """What :func:`track` learns of a real game, for one player."""

    player: int
    real: list            # token -> its real card type
    group: list           # token -> the group whose order hid it
    revealed: list        # token -> the player has seen its type
    start_hands: list     # seat -> tokens in its hand at the start (other seats)
    start_pile: list      # pile position (bottom first) -> token, at the start
    reshuffles: dict = field(default_factory=dict)  # move index -> [(position, token)]
    pinned: set = field(default_factory=set)       # tokens drawn by a reshuffling move
    #: move index -> (the pile's tokens before it, bottom first; the tokens it drew to
    #: another seat's hand): a move whose draws are hidden from the player
    draws: dict = field(default_factory=dict)


def _snapshot(game: Game):
    """(hands as counts, draw pile and discard pile as types bottom first, reshuffles)."""
    st = game.engine_state
    return (np.array([game.hand_counts(q) for q in range(game.num_players)], np.int64),
            game.draw_pile_types().tolist(),
            st.discard[0, :len(game.discard)].astype(np.int64).tolist(),
            game.stats["reshuffles"])


def track(start: Game, actions: list[int], player: int,
          rewrites: dict | None = None) -> Tracking | None:
    """Follow the cards of ``start`` through ``actions`` (module docstring), the draw
    pile after move ``i`` set as ``rewrites[i]`` says (``[(position, type)]``: the
    reshuffles of a resample); None where this is not supported."""
    if start.config.deck.double_sided:
        return None
    game = start.clone()
    hands, pile, discard, shuffles = _snapshot(game)
    n = game.num_players
    real, group, revealed = [], [], []

    def new(t, g, seen):
        real.append(int(t))
        group.append(g)
        revealed.append(seen)
        return len(real) - 1

    hand_tok = [{} for _ in range(n)]
    start_hands = [[] for _ in range(n)]
    for q in range(n):
        for t in np.flatnonzero(hands[q]).tolist():
            toks = [new(t, 0, q == player) for _ in range(int(hands[q][t]))]
            hand_tok[q][t] = toks
            start_hands[q] += toks
    pile_tok = [new(t, 0, False) for t in pile]
    disc_tok = [new(t, -1, True) for t in discard]
    tr = Tracking(player, real, group, revealed, start_hands, list(pile_tok))
    groups = 1
    for i, action in enumerate(actions):
        seat = game.current_player
        if action == game.layout.CHALLENGE and seat == player:
            shown = game.challenge_hand
            if shown is not None:  # the challenger sees the whole hand
                for toks in hand_tok[shown[0]].values():
                    for tok in toks:
                        revealed[tok] = True
        game.step(action)
        if rewrites and i in rewrites:
            set_pile(game, rewrites[i])
        hands2, pile2, discard2, shuffles2 = _snapshot(game)
        if shuffles2 - shuffles > 1:
            return None
        # sources: the cards that left a hand, the old pile's drawn cards
        removed = [[] for _ in range(n)]  # seat -> tokens that left its hand
        for q in range(n):
            for t in np.flatnonzero(hands[q] > hands2[q]).tolist():
                k = int(hands[q][t] - hands2[q][t])
                toks = hand_tok[q][t]
                removed[q] += toks[len(toks) - k:]
                del toks[len(toks) - k:]
        reshuffled = shuffles2 > shuffles
        if reshuffled:
            drawn_old = pile_tok
            pile_tok = []
        else:
            if len(pile2) > len(pile) or pile2 != pile[:len(pile2)]:
                return None  # cards put back into the pile
            drawn_old = pile_tok[len(pile2):]
            pile_tok = pile_tok[:len(pile2)]
        if not reshuffled:
            if len(discard2) < len(disc_tok) or discard2[:len(disc_tok)] != discard:
                return None  # cards taken from the discard pile
            keep, old_disc = disc_tok, []
        else:
            keep, old_disc = [], disc_tok
        # reshuffle: the new pile's cards form a new group; those this move drew from it
        # keep their real types (the replay reshuffles with the real stream)
        new_drawn = []
        if reshuffled:
            st = game.engine_state
            taken = st.draw_pile[0, len(pile2):].astype(np.int64).tolist()
            # the cards the hands gained, less the old pile's, plus the cards played
            k = int(hands2.sum() - hands.sum()) - len(drawn_old) \
                + sum(len(r) for r in removed)
            k = max(0, min(k, len(taken)))
            new_drawn = [new(t, groups, False) for t in taken[:k][::-1]]
            tr.pinned.update(new_drawn)
            pile_tok = [new(t, groups, False) for t in pile2]
            tr.reshuffles[i] = list(enumerate(pile_tok))
            groups += 1
        # sinks: the discard pile's new cards, then each hand's new cards
        pool: dict[int, list] = {}
        for tok in drawn_old + new_drawn:
            pool.setdefault(real[tok], []).append(("pile", tok))
        for q in range(n):
            for tok in removed[q]:
                pool.setdefault(real[tok], []).append((q, tok))

        def take(t, receiver):
            """A card of type ``t`` for ``receiver``: a hand takes the pile's card, else
            another seat's, else its own; the discard pile a hand's card only."""
            options = pool.get(t, [])
            rank = [(0 if src == "pile" else 1 if src != receiver else 2)
                    if receiver != "discard" else (0 if src != "pile" else None)
                    for src, _ in options]
            allowed = [j for j, r in enumerate(rank) if r is not None]
            if not allowed:
                return None
            return options.pop(min(allowed, key=lambda j: rank[j]))[1]

        new_disc = list(keep)
        olds = {}
        for tok in old_disc:
            olds.setdefault(real[tok], []).append(tok)
        for j, t in enumerate(discard2[len(keep):]):
            top = disc_tok[-1] if disc_tok else None
            if reshuffled and j == 0 and top is not None and real[top] == t:
                tok = top  # the reshuffle keeps the old discard pile's top
                olds[t].remove(top)
            else:
                tok = take(t, "discard")
            if tok is None:
                if not olds.get(t):
                    return None
                tok = olds[t].pop()
            revealed[tok] = True
            new_disc.append(tok)
        hidden_draws = []
        from_pile = set(drawn_old)
        for q in range(n):
            for t in np.flatnonzero(hands2[q] > hands[q]).tolist():
                for _ in range(int(hands2[q][t] - hands[q][t])):
                    tok = take(t, q)
                    if tok is None:
                        return None
                    hand_tok[q].setdefault(t, []).append(tok)
                    if q == player:
                        revealed[tok] = True
                    elif tok in from_pile and not reshuffled:
                        hidden_draws.append(tok)
        if hidden_draws:
            tr.draws[i] = (list(pile_tok) + drawn_old, hidden_draws)
        if any(pool.values()):
            return None  # a card went somewhere this does not follow
        disc_tok = new_disc
        hands, pile, discard, shuffles = hands2, pile2, discard2, shuffles2
    return tr


def sample(tr: Tracking, rng: np.random.Generator) -> list[int]:
    """A card type per token: revealed and pinned tokens keep theirs, the others of each
    group get the group's remaining cards in a random order."""
    types = list(tr.real)
    members: dict[int, list] = {}
    for tok, g in enumerate(tr.group):
        if g >= 0:
            members.setdefault(g, []).append(tok)
    for toks in members.values():
        hidden = [tok for tok in toks if not tr.revealed[tok] and tok not in tr.pinned]
        cards = np.array([tr.real[tok] for tok in hidden], np.int64)
        rng.shuffle(cards)
        for tok, t in zip(hidden, cards.tolist()):
            types[tok] = t
    return types


def deal(start: Game, tr: Tracking, types: list[int]) -> Game:
    """``start`` with the other seats' hands and the draw pile rebuilt from ``types``."""
    game = start.clone()
    st = game.engine_state
    k = st.hands.shape[2]
    for q, toks in enumerate(tr.start_hands):
        if q != tr.player:
            st.hands[0, q] = np.bincount([types[tok] for tok in toks], minlength=k)
    for pos, tok in enumerate(tr.start_pile):
        st.draw_pile[0, pos] = types[tok]
    recount_state(st, 0, game.config.spec)
    game.refresh()
    return game


def redraw(game: Game, tr: Tracking, types: list[int], i: int,
           rng: np.random.Generator) -> bool:
    """Before move ``i`` (which draws cards the player does not see): swap the type of
    each card it draws with that of a random hidden card left below in the pile (same
    group), in ``types`` and in ``game``'s draw pile; False if there is none. A replay
    that the move's public outcome rejects (a drawn card playable or not) tries
    again so, keeping every earlier move as it was."""
    pile, drawn = tr.draws[i]
    below = [pos for pos, tok in enumerate(pile) if tok not in drawn
             and not tr.revealed[tok] and tok not in tr.pinned]
    if not below:
        return False
    st = game.engine_state
    for tok in drawn:
        if tr.revealed[tok] or tok in tr.pinned:
            continue
        pos = below[int(rng.integers(len(below)))]
        other = pile[pos]
        if tr.group[other] != tr.group[tok]:
            continue
        types[tok], types[other] = types[other], types[tok]
    for pos, tok in enumerate(pile):  # the whole pile: earlier tries swapped too
        st.draw_pile[0, pos] = types[tok]
    recount_state(st, 0, game.config.spec)
    game.refresh()
    return True


def rearrange(game: Game, placed: list, types: list[int]) -> None:
    """After a reshuffle: the new pile's positions get their tokens' sampled types."""
    set_pile(game, [(pos, types[tok]) for pos, tok in placed])


def set_pile(game: Game, cards: list) -> None:
    """Put card type ``t`` at position ``pos`` (bottom first) of the draw pile for each
    ``(pos, t)`` of ``cards``."""
    st = game.engine_state
    for pos, t in cards:
        st.draw_pile[0, pos] = t
    recount_state(st, 0, game.config.spec)
    game.refresh()


def exchange(tr: Tracking, types: list[int], rng: np.random.Generator) -> list | None:
    """A proposal of the random walk from the real history: ``types`` with two hidden
    cards of one group (neither seen by the player nor pinned) of different types
    exchanged; None if no group has two."""
    hidden = [tok for tok, g in enumerate(tr.group) if g >= 0 and not tr.revealed[tok]
              and tok not in tr.pinned]
    for _ in range(10):
        if not hidden:
            return None
        a = hidden[int(rng.integers(len(hidden)))]
        others = [b for b in hidden if tr.group[b] == tr.group[a] and types[b] != types[a]]
        if others:
            b = others[int(rng.integers(len(others)))]
            out = list(types)
            out[a], out[b] = out[b], out[a]
            return out
    return None


def exchange_cards(deal: Game, player: int, rng: np.random.Generator) -> Game | None:
    """UNO Flip's proposal of the random walk: ``deal`` with two cards exchanged among
    the other seats' hands and the draw pile, of different types that share a side
    (the other side is what the player may see); None if there is no such pair."""
    face = deal.config.deck.type_face
    slots = [("hand", q, t) for q in range(deal.num_players) if q != player
             for t in np.flatnonzero(deal.hand_counts(q)).tolist()
             for _ in range(int(deal.hand_counts(q)[t]))]
    slots += [("pile", pos, t) for pos, t in enumerate(deal.draw_pile_types().tolist())]
    for _ in range(10):
        a = slots[int(rng.integers(len(slots)))]
        others = [b for b in slots if b[2] != a[2] and b[:2] != a[:2]
                  and (face[b[2], 0] == face[a[2], 0] or face[b[2], 1] == face[a[2], 1])]
        if not others:
            continue
        b = others[int(rng.integers(len(others)))]
        out = deal.clone()
        hands = out.engine_state.hands
        pile = out.engine_state.draw_pile
        for (kind, where, t), new in ((a, b[2]), (b, a[2])):
            if kind == "hand":
                hands[0, where, t] -= 1
                hands[0, where, new] += 1
            else:
                pile[0, where] = new
        recount_state(out.engine_state, 0, out.config.spec)
        out.refresh()
        return out
    return None
