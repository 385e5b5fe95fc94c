"""The observation kernel: a flat float32 vector per agent, and its documented layout.

Only public information and the observer's own hand go in; no other hand and no draw
pile order (``tests/test_observation.py`` proves it). ``K`` card types, ``P`` players;
"relative" seat ``k`` is the seat ``k`` places after the observer in seat order
(``(observer + k) % P``), whatever the direction of play.

=====================  =========  ======================================================
name                   length     content
=====================  =========  ======================================================
``hand``               K          copies of each card type in the observer's hand
``top``                K          one-hot: card type on top of the discard pile
``color``              4          one-hot: colour in force (slot of the active side)
``direction``          1          1 if play goes to higher seats, else 0
``phase``              10         one-hot: the decision being made (``PHASE_*``)
``pending_draw``       1          cards the decider draws by accepting (4 facing a W4)
``opponent_cards``     P - 1      hand sizes of relative seats 1 .. P-1
``catchable``          P          one-hot by relative seat: who can be caught for UNO
``uno_called``         1          1 if the observer declared UNO this turn
``draw_pile``          1          cards left in the draw pile
``played``             K          copies of each type in the discard pile (public)
``scores``             P          match scores by relative seat (0 is the observer)
``side``               1          UNO Flip: 1 on the dark side
=====================  =========  ======================================================

House rules append fields only when their flag is on (with every flag off the vector
is exactly the table above). With ``stack``, ``pending_draw`` holds the running total;
it also shows a total held back by a jump-in window or being added to by a multi-card
play of draw cards:

=====================  =========  ======================================================
``jump_from``          P          ``jump_in``: one-hot by relative seat, the player whose
                                  card is open to a jump-in (phase ``jump_in``), else 0
``jump_resume``        P          ``jump_in``: one-hot by relative seat, who decides next
                                  if nobody jumps in (phase ``jump_in``), else 0
``multi_count``        1          ``multi_play``: cards played so far in the current
                                  multi-card sequence (0 outside one)
=====================  =========  ======================================================

UNO One Piece (deck ``onepiece110``) appends one field:

=====================  =========  ======================================================
``hancock``            P          one-hot by relative seat: the Hancock player whose
                                  petrification may be broken (phase ``jump_in``), else 0
=====================  =========  ======================================================

UNO Flip (the ``flip`` deck, RULES.md 5) appends, with ``F`` faces of the deck (107):
``hand``/``top``/``played`` above are by card type, whose light face is fixed
(``cards.flip_deck``); ``side`` tells which face is in play. Opponents see the other side
of every card in a hand, and the draw pile's top card shows its other side: both public.
The draw pile's order and faces beyond that one visible side are not in the vector.

=====================  =========  ======================================================
``hand_dark``          K          1 + face id of the dark face of each type the
                                  observer holds (0 if not held): with ``hand``, both
                                  sides of the observer's cards
``opponent_backs``     (P-1) * F  per relative seat 1 .. P-1, counts of the faces that
                                  seat's hand shows to the others (the side not in play)
``draw_back``          F          one-hot: visible other side of the draw pile's top
``top_other``          F          one-hot: the other side of the discard pile's top
``played_dark``        F          copies of each dark face in the discard pile (the
                                  light faces are ``played``)
=====================  =========  ======================================================
"""
import numpy as np

from uno_env._jit import njit
from uno_env.engine import codes as C

OBS_FIELDS = ("hand", "top", "color", "direction", "phase", "pending_draw",
              "opponent_cards", "catchable", "uno_called", "draw_pile", "played", "scores",
              "side")


def _fields(rules) -> tuple[str, ...]:
    extra = ()
    if rules is not None and rules.jump_in:
        extra += ("jump_from", "jump_resume")
    if rules is not None and rules.multi_play:
        extra += ("multi_count",)
    if rules is not None and rules.deck == "onepiece110":
        extra += ("hancock",)
    if rules is not None and rules.deck == "flip":
        extra += FLIP_FIELDS
    return OBS_FIELDS + extra


FLIP_FIELDS = ("hand_dark", "opponent_backs", "draw_back", "top_other", "played_dark")
#: faces of the flip deck (``cards.flip_deck``): 52 light and 52 dark coloured, W W2 WC
FLIP_NUM_FACES = 107


def observation_slices(num_types: int, num_players: int, rules=None) -> dict[str, slice]:
    """Name -> slice of the observation vector (the tables in this module's docstring);
    ``rules`` (a ``uno_env.rules.Rules``) adds the house-rule fields it turns on."""
    lengths = {"hand": num_types, "top": num_types, "color": 4, "direction": 1,
               "phase": C.NUM_PHASES, "pending_draw": 1, "opponent_cards": num_players - 1,
               "catchable": num_players, "uno_called": 1, "draw_pile": 1,
               "played": num_types, "scores": num_players, "side": 1,
               "jump_from": num_players, "jump_resume": num_players, "multi_count": 1,
               "hancock": num_players,
               "hand_dark": num_types, "opponent_backs": (num_players - 1) * FLIP_NUM_FACES,
               "draw_back": FLIP_NUM_FACES, "top_other": FLIP_NUM_FACES,
               "played_dark": FLIP_NUM_FACES}
    out, start = {}, 0
    for name in _fields(rules):
        out[name] = slice(start, start + lengths[name])
        start += lengths[name]
    return out


def observation_size(num_types: int, num_players: int, rules=None) -> int:
    return observation_slices(num_types, num_players, rules)[_fields(rules)[-1]].stop


@njit
def observe(st, g, sp, seat, out):
    """Fill ``out`` (float32[D]) with ``seat``'s observation of game ``g``."""
    out[:] = 0.0
    num_players = sp.rules[C.R_NUM_PLAYERS]
    k = st.hands.shape[2]
    for t in range(k):
        out[t] = st.hands[g, seat, t]
    o = k
    if st.info[g, C.I_DISCARD_LEN] > 0:
        out[o + st.discard[g, st.info[g, C.I_DISCARD_LEN] - 1]] = 1.0
    o += k
    if st.info[g, C.I_COLOR] != C.NO_COLOR:
        out[o + st.info[g, C.I_COLOR] % 4] = 1.0
    o += 4
    out[o] = 1.0 if st.info[g, C.I_DIRECTION] > 0 else 0.0
    o += 1
    out[o + st.info[g, C.I_PHASE]] = 1.0
    o += C.NUM_PHASES
    out[o] = st.info[g, C.I_PENDING_DRAW]
    o += 1
    for r in range(1, num_players):
        out[o + r - 1] = st.hand_size[g, (seat + r) % num_players]
    o += num_players - 1
    if st.info[g, C.I_CATCHABLE] >= 0:
        out[o + (st.info[g, C.I_CATCHABLE] - seat) % num_players] = 1.0
    o += num_players
    out[o] = 1.0 if st.info[g, C.I_UNO_CALLED] == seat else 0.0
    o += 1
    out[o] = st.info[g, C.I_DRAW_LEN]
    o += 1
    for t in range(k):
        out[o + t] = st.discard_counts[g, t]
    o += k
    for r in range(num_players):
        out[o + r] = st.scores[g, (seat + r) % num_players]
    o += num_players
    out[o] = st.info[g, C.I_SIDE]
    o += 1
    # house-rule fields, present only with their flag (see the module docstring)
    if sp.rules[C.R_JUMP_IN] != 0:
        if st.info[g, C.I_PHASE] == C.PHASE_JUMP_IN:
            out[o + (st.info[g, C.I_JUMP_FROM] - seat) % num_players] = 1.0
            out[o + num_players + (st.info[g, C.I_RESUME_SEAT] - seat) % num_players] = 1.0
        o += 2 * num_players
    if sp.rules[C.R_MULTI_PLAY] != 0:
        out[o] = st.info[g, C.I_MULTI_COUNT]
        o += 1
    if sp.rules[C.R_ONEPIECE] != 0:
        if st.info[g, C.I_PHASE] == C.PHASE_JUMP_IN:
            out[o + (st.info[g, C.I_JUMP_FROM] - seat) % num_players] = 1.0
        o += num_players
    if sp.rules[C.R_FLIP] != 0:
        _observe_flip(st, g, sp, seat, out, o)


@njit
def _observe_flip(st, g, sp, seat, out, o):
    """The UNO Flip fields (module docstring), from offset ``o``."""
    num_players = sp.rules[C.R_NUM_PLAYERS]
    k = st.hands.shape[2]
    nf = sp.face_rank.shape[0]
    side = st.info[g, C.I_SIDE]
    for t in range(k):
        if st.hands[g, seat, t] > 0:
            out[o + t] = 1 + st.dark_face[g, t]
    o += k
    for r in range(1, num_players):
        q = (seat + r) % num_players
        for t in range(k):
            if st.hands[g, q, t] > 0:
                back = st.dark_face[g, t] if side == 0 else sp.type_face[t, 0]
                out[o + back] += st.hands[g, q, t]
        o += nf
    n = st.info[g, C.I_DRAW_LEN]
    if n > 0:
        t = st.draw_pile[g, n - 1]
        out[o + (st.dark_face[g, t] if side == 0 else sp.type_face[t, 0])] = 1.0
    o += nf
    if st.info[g, C.I_DISCARD_LEN] > 0:
        t = st.discard[g, st.info[g, C.I_DISCARD_LEN] - 1]
        out[o + (st.dark_face[g, t] if side == 0 else sp.type_face[t, 0])] = 1.0
    o += nf
    for t in range(k):
        if st.discard_counts[g, t] > 0:
            out[o + st.dark_face[g, t]] += st.discard_counts[g, t]


@njit
def observe_batch(st, sp, out):
    """Each game's observation for its current decider: ``out`` float32[B, D]."""
    for g in range(st.info.shape[0]):
        observe(st, g, sp, st.info[g, C.I_CURRENT], out[g])

