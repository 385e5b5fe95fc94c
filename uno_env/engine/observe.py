"""The observation kernel: a flat float32 vector per agent, and its documented layout.

This module documents the layout; ``engine/obs_layout.py`` computes it (plain Python,
no kernel): ``observation_slices`` names the fields of a configuration, ``Spec.obs_at``
holds their offsets for the kernels (``observe`` writes them, the policies read them),
and each variant module writes its own fields (``observe_fields``).

Only public information and the observer's own hand go in; no other hand and no draw
pile order (``tests/engine/test_observation.py`` proves it). ``K`` card types, ``P`` players;
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

UNO Flip (the ``flip`` deck, docs/rules.md section 5) appends, with ``F`` faces of the deck (107):
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

With ``bluff`` on (every preset's default: a challenge can show a hand, docs/rules.md
2.5), two fields come last, after every field above:

=====================  =========  ======================================================
``shown_hand``         K          copies of each card type in the hand that the
                                  observer's last challenge showed it, as shown; 0
                                  when there is none
``shown_by``           P          one-hot by relative seat: whose hand that was, else 0
=====================  =========  ======================================================

They are set when the observer challenges (whatever the verdict) and stay in its
observation until the end of its next turn: the turn a guilty verdict gives it, or,
innocent, the turn after the one it lost; a new deal clears them. They are a snapshot:
what that player played, drew or exchanged since is not subtracted (``opponent_cards``
has the hand's size now). Only the challenger sees them (the other seats' vectors hold
zeros there). They came in with ``uno_env/UnoSingleSeat-v3`` and ``uno_v1`` (the AEC
env): the vector before them (``legacy_observation_size``) is the whole observation of
the earlier ids, so a model trained on it reads the first entries of today's
(``agents.PPOAgent`` does).
"""
from uno_env.engine.jit import njit
from uno_env.engine import codes as C
from uno_env.engine.dispatch import observe_fields
# the layout, in a module of its own that imports no kernel (the rules model reads it)
from uno_env.engine.obs_layout import (  # noqa: F401  (re-exported)
    BASE_FIELDS, FLIP_NUM_FACES, SHOWN_FIELDS, field_offsets, legacy_observation_size,
    observation_size, observation_slices)

@njit
def observe(st, g, sp, seat, out):
    """Fill ``out`` (float32[D]) with ``seat``'s observation of game ``g``."""
    out[:] = 0.0
    at = sp.obs_at
    num_players = sp.rules[C.R_NUM_PLAYERS]
    k = st.hands.shape[2]
    hand, played, info = st.hands[g, seat], st.discard_counts[g], st.info[g]
    # copied through views: ``out[at[...] + t]`` could be a negative index for the
    # compiler, which then scatters lane by lane instead of storing a vector
    out_hand = out[at[C.O_HAND]:at[C.O_HAND] + k]
    out_played = out[at[C.O_PLAYED]:at[C.O_PLAYED] + k]
    for t in range(k):
        out_hand[t] = hand[t]
    for t in range(k):
        out_played[t] = played[t]
    if info[C.I_DISCARD_LEN] > 0:
        out[at[C.O_TOP] + st.discard[g, info[C.I_DISCARD_LEN] - 1]] = 1.0
    if info[C.I_COLOR] != C.NO_COLOR:
        out[at[C.O_COLOR] + info[C.I_COLOR] % 4] = 1.0
    out[at[C.O_DIRECTION]] = 1.0 if info[C.I_DIRECTION] > 0 else 0.0
    out[at[C.O_PHASE] + info[C.I_PHASE]] = 1.0
    out[at[C.O_PENDING_DRAW]] = info[C.I_PENDING_DRAW]
    o_cards, o_scores = at[C.O_OPPONENT_CARDS], at[C.O_SCORES]
    q = seat
    for r in range(num_players):
        out[o_scores + r] = st.scores[g, q]
        if r > 0:
            out[o_cards + r - 1] = st.hand_size[g, q]
        q = q + 1 if q + 1 < num_players else 0
    if info[C.I_CATCHABLE] >= 0:
        out[at[C.O_CATCHABLE] + (info[C.I_CATCHABLE] - seat) % num_players] = 1.0
    out[at[C.O_UNO_CALLED]] = 1.0 if info[C.I_UNO_CALLED] == seat else 0.0
    out[at[C.O_DRAW_PILE]] = info[C.I_DRAW_LEN]
    out[at[C.O_SIDE]] = info[C.I_SIDE]
    observe_fields(st, g, sp, seat, out)
    o_shown = at[C.O_SHOWN_HAND]
    if o_shown >= 0 and info[C.I_SHOWN_TO] == seat:
        out_shown, shown = out[o_shown:o_shown + k], st.shown[g]  # views, as above
        for t in range(k):
            out_shown[t] = shown[t]
        out[at[C.O_SHOWN_BY] + (info[C.I_SHOWN_BY] - seat) % num_players] = 1.0
