"""Which cards may be played, shared by every variant (docs/rules.md section 2, "A
turn"): matching the pile, the restriction of the draw wilds, and the legal mask of the
official rules, which classic UNO and UNO Flip both use. Faces are read through
``faces.face``, so one loop serves single-sided decks and Flip's two sides."""
import numpy as np

from uno_env.engine.jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.bits import held_range, held_types, popcount, trailing_zeros
from uno_env.engine.faces import face, is_restricted, same_card_below
from uno_env.engine.rng import below
from uno_env.engine.turns import top_type
from uno_env.engine.variants import DOUBLE_SIDED, SINGLE_SIDED


@by_spec
def holds_color(st, g, sp, seat, color):
    """Does ``seat`` hold a coloured card of ``color``? (wilds never count)"""


@holds_color.register(*SINGLE_SIDED)
def _holds_color_counted(st, g, sp, seat, color):
    # the hand's cards per colour are kept as cards move (engine/tallies.py)
    if 0 <= color < 4:
        return st.tallies[g, seat, C.T_SLOT + color] > 0
    return False


@holds_color.register(*DOUBLE_SIDED)
def _holds_color_scanned(st, g, sp, seat, color):
    for t in range(st.hands.shape[2]):
        if st.hands[g, seat, t] > 0 and sp.face_color[face(st, g, sp, t)] == color:
            return True
    return False


@njit(inline="always")
def top_rank(st, g, sp):
    return sp.face_rank[face(st, g, sp, top_type(st, g))]


@njit(inline="always")
def matches_pile(st, g, sp, t):
    """Colour, number/symbol or wild match against the pile."""
    f = face(st, g, sp, t)
    rank = sp.face_rank[f]
    if rank >= C.FIRST_WILD_RANK:
        return True
    if sp.face_color[f] == st.info[g, C.I_COLOR]:
        return True
    return top_rank(st, g, sp) == rank


@njit(inline="always")
def may_play(st, g, sp, seat, t):
    """``matches_pile``, plus the restriction of ``W4`` (and Flip's ``W2``/``WC``) when
    bluffing is off: only without a card of the colour in force."""
    if not matches_pile(st, g, sp, t):
        return False
    if is_restricted(sp, sp.face_rank[face(st, g, sp, t)]) and sp.rules[C.R_BLUFF] == 0:
        return not holds_color(st, g, sp, seat, st.info[g, C.I_COLOR])
    return True


@njit(inline="always")
def set_play_actions(st, g, sp, t, mask):
    """Mark the actions that play card type ``t``; returns how many (4 for a wild)."""
    f = face(st, g, sp, t)
    if sp.face_rank[f] >= C.FIRST_WILD_RANK:
        base = sp.layout[C.L_WILD] + 4 * sp.type_wild_slot[t]
        for c in range(4):
            mask[base + c] = 1
        return 4
    mask[sp.layout[C.L_PLAY] + sp.type_play_slot[t]] = 1
    return 1


@njit(inline="always")
def restricted_allowed(st, g, sp, seat, color):
    """May ``seat`` play its restricted wilds (W4 ...)? With bluffing always; without,
    only holding no card of the colour in force (docs/rules.md 2)."""
    return sp.rules[C.R_BLUFF] != 0 or not holds_color(st, g, sp, seat, color)


@njit(inline="always")
def mark_wild(sp, t, rank, allowed, mask):
    """Mark the four moves of the wild type ``t`` showing ``rank`` (one per colour to
    name), unless it is restricted and not ``allowed``; returns how many (4 or 0)."""
    if not allowed and is_restricted(sp, rank):
        return 0
    base = sp.layout[C.L_WILD] + 4 * sp.type_wild_slot[t]
    for c in range(4):
        mask[base + c] = 1
    return 4


@by_spec
def set_hand_plays(st, g, sp, seat, mask):
    """Mark every card of ``seat``'s hand that may be played (``may_play``, with the
    per-position lookups hoisted out of the loop: this is the hottest loop of the
    engine). Returns the number of actions marked (a wild marks one per colour)."""


@set_hand_plays.register(*SINGLE_SIDED)
def _single_sided_hand_plays(st, g, sp, seat, mask):
    return gather_hand_plays(st, g, sp, seat, mask)


@njit(inline="always")
def gather_hand_plays(st, g, sp, seat, mask):
    """``set_hand_plays`` from the candidate rows of the types' light faces: a
    single-sided deck, or UNO Flip on its light side."""
    # only the types that can match are looked at: the row of the colour in force and
    # the pile's rank, and the wilds (``Spec.match_types``, ``wild_types``); 18 of the
    # classic deck's 54 types. No branch on "held" (a coin toss for the branch
    # predictor): each candidate's mark is or-ed in, 0 or 1.
    color = st.info[g, C.I_COLOR]
    play = mask[sp.layout[C.L_PLAY]:]
    slot_of = sp.type_play_slot
    hand = st.hands[g, seat]
    plays = 0
    row = sp.match_types[color, top_rank(st, g, sp)]
    for i in range(row.shape[0]):
        t = row[i]
        if t < 0:
            break
        # (UNO Flip: a twin held below is the move; faces.same_card_below)
        held = np.uint8(hand[t] > 0 and not same_card_below(st, g, sp, seat, t))
        play[slot_of[t]] |= held
        plays += held
    allowed = restricted_allowed(st, g, sp, seat, color)
    for i in range(sp.wild_types.shape[0]):
        t = sp.wild_types[i]
        if t < 0:
            break
        if hand[t] > 0 and not same_card_below(st, g, sp, seat, t):
            plays += mark_wild(sp, t, sp.face_rank[sp.type_face[t, 0]], allowed, mask)
    return plays


@njit(inline="always")
def bit_hand_plays(st, g, sp, seat, mask):
    """``gather_hand_plays`` on bit sets, for decks of at most 64 types without a face
    below (the classic variant, which registers it): the held candidates are the held
    types and the match row (``Spec.match_bits``), and each play is stored once. The
    ``|=`` of the gather read the mask bytes the zeroing had just written, and waited
    on its stores (half of a legal mask's time)."""
    color = st.info[g, C.I_COLOR]
    hand = st.hands[g, seat]
    held = held_types(hand) & sp.match_bits[color, top_rank(st, g, sp)]
    plays = np.int64(popcount(held))
    play = mask[sp.layout[C.L_PLAY]:]
    slot_of = sp.type_play_slot
    while held:
        play[slot_of[trailing_zeros(held)]] = 1
        held &= held - np.uint64(1)
    allowed = restricted_allowed(st, g, sp, seat, color)
    for i in range(sp.wild_types.shape[0]):
        t = sp.wild_types[i]
        if t < 0:
            break
        if hand[t] > 0:
            plays += mark_wild(sp, t, sp.face_rank[sp.type_face[t, 0]], allowed, mask)
    return plays


@set_hand_plays.register(*DOUBLE_SIDED)
def _flip_hand_plays(st, g, sp, seat, mask):
    # UNO Flip: the light faces are the deck's, the dark ones this match's pairing
    if st.info[g, C.I_SIDE] == 0:
        return gather_hand_plays(st, g, sp, seat, mask)
    return scan_hand_plays(st, g, sp, seat, mask)


@njit(inline="always")
def scan_hand_plays(st, g, sp, seat, mask):
    """``set_hand_plays`` by the face on the side in play of every type held (UNO
    Flip's dark side, whose faces are paired with the types per match). The held
    types come 64 at a time as bit sets (a hand holds about a tenth of Flip's 112):
    no branch on whether each type is held."""
    color = st.info[g, C.I_COLOR]
    pile_rank = top_rank(st, g, sp)
    play_base = sp.layout[C.L_PLAY]
    allowed = restricted_allowed(st, g, sp, seat, color)
    hand = st.hands[g, seat]
    plays = 0
    for start in range(0, hand.shape[0], 64):
        held = held_range(hand, start)
        while held:
            t = start + np.int64(trailing_zeros(held))
            held &= held - np.uint64(1)
            if same_card_below(st, g, sp, seat, t):
                continue
            f = face(st, g, sp, t)
            rank = sp.face_rank[f]
            if rank >= C.FIRST_WILD_RANK:
                plays += mark_wild(sp, t, rank, allowed, mask)
            elif sp.face_color[f] == color or rank == pile_rank:
                mask[play_base + sp.type_play_slot[t]] = 1
                plays += 1
    return plays


@njit(inline="always")
def mark_catch(st, g, sp, seat, mask):
    """The chance to catch belongs to the next decider, beside whatever else is legal;
    returns 1 if offered."""
    catchable = st.info[g, C.I_CATCHABLE]
    if sp.rules[C.R_UNO_CALL] != 0 and catchable >= 0 and catchable != seat:
        mask[sp.layout[C.L_CATCH]] = 1
        return 1
    return 0


@njit
def official_legal_mask(st, g, sp, mask):
    """The legal actions under the official rules (classic UNO, UNO Flip): ``mask`` is
    zeroed and the game is on. Returns the number of legal actions."""
    seat = st.info[g, C.I_CURRENT]
    phase = st.info[g, C.I_PHASE]
    uno_rule = sp.rules[C.R_UNO_CALL] != 0
    lay = sp.layout
    n = 0
    if phase == C.PHASE_COLOR:
        # a wild turned up by the deal or a flip
        for c in range(4):
            mask[lay[C.L_COLOR] + c] = 1
        n = 4
    elif phase == C.PHASE_CHALLENGE:
        mask[lay[C.L_CHALLENGE]] = 1
        mask[lay[C.L_ACCEPT]] = 1
        n = 2
    elif phase == C.PHASE_PLAY:
        plays = set_hand_plays(st, g, sp, seat, mask)
        # drawing is always allowed (the official rules); with both piles dry it simply
        # ends the turn, so a decision always has a legal action
        mask[lay[C.L_DRAW]] = 1
        n = plays + 1
        if uno_rule and plays > 0 and st.hand_size[g, seat] == 2 \
                and st.info[g, C.I_UNO_CALLED] != seat:
            mask[lay[C.L_UNO]] = 1
            n += 1
    elif phase == C.PHASE_DRAWN:
        n = set_play_actions(st, g, sp, st.info[g, C.I_DRAWN_TYPE], mask) + 1
        mask[lay[C.L_PASS]] = 1
        if uno_rule and st.hand_size[g, seat] == 2 and st.info[g, C.I_UNO_CALLED] != seat:
            mask[lay[C.L_UNO]] = 1
            n += 1
    return n + mark_catch(st, g, sp, seat, mask)


@njit
def official_random_play(st, g, sp):
    """The random agent's move in a play decision under the official rules on a
    single-sided deck, without a mask: the ``k``-th legal action in id order, ``k``
    uniform from the game's own stream, exactly as ``dispatch.random_pick`` picks it
    from ``official_legal_mask`` (``tests/engine/test_batch.py`` compares the two).
    The candidates are those of ``set_hand_plays``; the ids run PLAY (by type), WILD
    (by type, then colour), DRAW, UNO, CATCH."""
    seat = st.info[g, C.I_CURRENT]
    color = st.info[g, C.I_COLOR]
    hand = st.hands[g, seat]
    # the held candidates as a set of types (bit t), in id order (Spec.match_bits)
    held = held_types(hand) & sp.match_bits[color, top_rank(st, g, sp)]
    plays = np.int64(popcount(held))
    allowed = restricted_allowed(st, g, sp, seat, color)
    wilds = 0
    for i in range(sp.wild_types.shape[0]):
        t = sp.wild_types[i]
        if t < 0:
            break
        if hand[t] > 0 and (allowed or not is_restricted(sp, sp.face_rank[sp.type_face[t, 0]])):
            wilds += 1
    uno_rule = sp.rules[C.R_UNO_CALL] != 0
    uno = uno_rule and plays + wilds > 0 and st.hand_size[g, seat] == 2 \
        and st.info[g, C.I_UNO_CALLED] != seat
    catchable = st.info[g, C.I_CATCHABLE]
    catch = uno_rule and catchable >= 0 and catchable != seat
    lay = sp.layout
    k = below(st.rng, g, plays + 4 * wilds + 1 + np.int64(uno) + np.int64(catch))
    if k < plays:
        # the k-th held candidate in id order: drop k lowest bits, take the next
        for _ in range(k):
            held &= held - np.uint64(1)
        return lay[C.L_PLAY] + sp.type_play_slot[trailing_zeros(held)]
    k -= plays
    if k < 4 * wilds:
        for i in range(sp.wild_types.shape[0]):
            t = sp.wild_types[i]
            if hand[t] > 0 and (allowed or not is_restricted(sp, sp.face_rank[sp.type_face[t, 0]])):
                if k < 4:
                    return lay[C.L_WILD] + 4 * sp.type_wild_slot[t] + k
                k -= 4
    k -= 4 * wilds
    if k == 0:
        return lay[C.L_DRAW]
    if uno and k == 1:
        return lay[C.L_UNO]
    return lay[C.L_CATCH]
