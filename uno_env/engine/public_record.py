"""The public record: what a careful player keeps about each other seat from the public
play, appended to the observation by the opt-in ``public_record=True`` (docs/
environments.md, "The public record"; the fields and their offsets are declared once in
``engine/obs_layout.py``, ``record_slices``).

The record is history, not state: the observation kernel (``engine/observe.py``) sees
the table as it is now, and a player's past draws, the colours it named and what it
played are gone from it. So whoever applies the moves keeps the record beside the
state, as ``engine/belief.py`` keeps the search's belief: ``record_apply`` applies a
move and notes what it showed, ``record_dealt`` clears a game's record at a new deal,
``record_observe`` writes an observation with the record after it. They are hooks
chosen by the class of their ``record`` argument when a loop is compiled
(``uno_env.engine.jit.by_class``): ``None`` is the plain observation and move (the loops
of ``engine.batch`` and ``engine.learner`` compiled as before, for everyone who does not
ask for the record), a :data:`PublicRecord` keeps the record; only the entry points of
the record (``vector_record``, ``learner_record``, ``game_record``: ``engine.entry``)
compile it.

The arrays of a :data:`PublicRecord` (``B`` games, ``P`` players, ``K`` card types):

=============  ==================  ====================================================
field          dtype, shape        holds
=============  ==================  ====================================================
``counts``     int16[B, P, W]      per game and seat (absolute), the public columns
                                   ``REC_*`` below (``W = REC_WIDTH``)
``known``      int8[B, P, P, K]    ``known[g, o, q, t]``: copies of type ``t`` that seat
                                   ``o`` saw in seat ``q``'s hand (a challenge's
                                   shown hand) and knows are still there
``sizes``      int16[B, P]         scratch: the hand sizes before a move
``at``         int64[F]            the first index in the observation of each record
                                   field (``obs_layout.RECORD_FIELDS`` order)
=============  ==================  ====================================================

What counts as what (docs/environments.md has the table a user reads):

* a seat *chose to draw* when it drew in phase ``play`` with no draw pending (the
  draw ``engine/belief.py`` reads): it held no card it was willing to play on the
  colour in force and the top card's rank, so both are noted (``REC_DREW_COLOR``,
  ``REC_DREW_RANK``) until the seat next plays a card;
* a card *played* is one of the play, wild or Ace blocks of the action (the card(s) the
  action names); a wild's named colour counts in ``REC_NAMED``;
* cards *taken* are every growth of a hand, however it came (its own draw, a penalty, a
  gift), except a hand exchange (7-0, Wild Shuffle, Wild Customizable's swap), which
  clears what is known about hands (``REC_DREW_*``, ``REC_TAKEN_SINCE``, ``known``) and
  keeps what the players did (plays, colours named, draws);
* ``known`` is filled when seat ``o`` challenges and the engine shows it a hand
  (``State.shown``, docs/rules.md 2.5), loses each card the owner plays, and is cleared
  for a seat that gives a card (One Piece's Shanks) or exchanges hands.

A new round (``I_ROUND`` changes) or a new deal clears the whole record of the game.
Single-sided decks only: UNO Flip's cards change colour and rank with the side in play
(``uno_env.rules`` refuses ``public_record`` with the flip deck).
"""
from collections import namedtuple

import numpy as np

from uno_env.engine.jit import by_class, njit
from uno_env.engine import codes as C
from uno_env.engine.observe import observe
from uno_env.engine.dispatch import apply_action

#: the record's arrays (module docstring); a class of its own, which the hooks dispatch on
PublicRecord = namedtuple("PublicRecord", ["counts", "known", "sizes", "at"])

#: columns of ``PublicRecord.counts`` (per seat); widths as ``obs_layout.RECORD_WIDTHS``
NUM_DREW_RANKS = C.FIRST_WILD_RANK  # the coloured ranks: numbers, then actions
REC_DREW_COLOR = 0                          # 4: chose to draw on this colour slot
REC_DREW_RANK = REC_DREW_COLOR + 4          # 17: ... on a top card of this rank
REC_NAMED = REC_DREW_RANK + NUM_DREW_RANKS  # 4: colours named with wilds
REC_PLAYED_COLOR = REC_NAMED + 4            # 5: cards played per colour slot (4: wild)
REC_PLAYED_RANK = REC_PLAYED_COLOR + 5      # 27: cards played per rank
REC_TAKEN = REC_PLAYED_RANK + C.NUM_RANKS   # 1: cards taken into the hand
REC_DRAW_CHOICES = REC_TAKEN + 1            # 1: times it chose to draw
REC_TAKEN_SINCE = REC_DRAW_CHOICES + 1      # 1: cards taken since it last played
REC_WIDTH = REC_TAKEN_SINCE + 1


def allocate_record(batch: int, num_players: int, num_types: int, at) -> PublicRecord:
    """Zeroed record arrays for ``batch`` games; ``at``: ``obs_layout.record_offsets``."""
    return PublicRecord(np.zeros((batch, num_players, REC_WIDTH), np.int16),
                        np.zeros((batch, num_players, num_players, num_types), np.int8),
                        np.zeros((batch, num_players), np.int16),
                        np.ascontiguousarray(at, np.int64))


# --- the record's kernels -----------------------------------------------------------------


@njit
def clear_record(rec, g):
    """Forget everything about game ``g`` (a new deal or round)."""
    rec.counts[g] = 0
    rec.known[g] = 0


@njit
def _played(rec, g, sp, seat, t, n):
    """Seat ``seat`` played ``n`` cards of type ``t`` (public)."""
    f = sp.type_face[t, 0]
    c = sp.face_color[f]
    rec.counts[g, seat, REC_PLAYED_COLOR + (c % 4 if c < C.NO_COLOR else 4)] += n
    rec.counts[g, seat, REC_PLAYED_RANK + sp.face_rank[f]] += n
    for o in range(rec.known.shape[1]):
        left = rec.known[g, o, seat, t] - n
        rec.known[g, o, seat, t] = left if left > 0 else 0


@njit
def _forget_hand(rec, g, seat):
    """What was known about ``seat``'s hand no longer holds."""
    for j in range(4):
        rec.counts[g, seat, REC_DREW_COLOR + j] = 0
    for j in range(NUM_DREW_RANKS):
        rec.counts[g, seat, REC_DREW_RANK + j] = 0
    rec.counts[g, seat, REC_TAKEN_SINCE] = 0
    for o in range(rec.known.shape[1]):
        rec.known[g, o, seat] = 0


@njit
def watch(st, g, sp, rec, action):
    """Apply the current decider's legal ``action`` to game ``g`` and note in ``rec``
    what it showed (module docstring)."""
    info = st.info[g]
    lay = sp.layout
    seat = info[C.I_CURRENT]
    phase = info[C.I_PHASE]
    num_players = st.hand_size.shape[1]
    for q in range(num_players):
        rec.sizes[g, q] = st.hand_size[g, q]
    exchanges, round_no = info[C.I_STAT_EXCHANGES], info[C.I_ROUND]
    challenges = info[C.I_STAT_CHALLENGES]
    # before the move: a chosen draw, and what lay on the pile
    chose_draw = phase == C.PHASE_PLAY and action == lay[C.L_DRAW] \
        and info[C.I_PENDING_DRAW] == 0
    if chose_draw:
        rec.counts[g, seat, REC_DRAW_CHOICES] += 1
        if info[C.I_COLOR] < C.NO_COLOR:
            rec.counts[g, seat, REC_DREW_COLOR + info[C.I_COLOR] % 4] = 1
        if info[C.I_DISCARD_LEN] > 0:
            rank = sp.face_rank[sp.type_face[st.discard[g, info[C.I_DISCARD_LEN] - 1], 0]]
            if rank < NUM_DREW_RANKS:
                rec.counts[g, seat, REC_DREW_RANK + rank] = 1
    # the cards the action names
    t1, t2, named = -1, -1, -1
    if lay[C.L_PLAY] <= action < lay[C.L_WILD]:
        t1 = sp.play_slot_type[action - lay[C.L_PLAY]]
    elif lay[C.L_WILD] <= action < lay[C.L_DRAW]:
        t1 = sp.wild_slot_type[(action - lay[C.L_WILD]) // 4]
        named = (action - lay[C.L_WILD]) % 4
    elif lay[C.L_NUM_ACE] > 0 and lay[C.L_ACE] <= action < lay[C.L_ACE] + lay[C.L_NUM_ACE]:
        t1 = sp.ace_slot_type[action - lay[C.L_ACE]]
        t2 = sp.rank_type[C.ACE]
    gave = phase == C.PHASE_GIVE
    apply_action(st, g, sp, action)
    if info[C.I_ROUND] != round_no:  # the move ended a round and dealt the next
        clear_record(rec, g)
        return
    if t1 >= 0:
        _played(rec, g, sp, seat, t1, 1)
        if t2 >= 0:
            _played(rec, g, sp, seat, t2, 1)
        if named >= 0:
            rec.counts[g, seat, REC_NAMED + named] += 1
        for j in range(4):
            rec.counts[g, seat, REC_DREW_COLOR + j] = 0
        for j in range(NUM_DREW_RANKS):
            rec.counts[g, seat, REC_DREW_RANK + j] = 0
        rec.counts[g, seat, REC_TAKEN_SINCE] = 0
    if gave:
        _forget_hand(rec, g, seat)
    if info[C.I_STAT_EXCHANGES] != exchanges:
        for q in range(num_players):
            _forget_hand(rec, g, q)
    else:
        played = (t1 >= 0) + (t2 >= 0)
        for q in range(num_players):
            grow = st.hand_size[g, q] - rec.sizes[g, q] + (played if q == seat else 0)
            if grow > 0:
                rec.counts[g, q, REC_TAKEN] += grow
                rec.counts[g, q, REC_TAKEN_SINCE] += grow
    # a challenge that showed a hand: its challenger knows it (as shown)
    if info[C.I_STAT_CHALLENGES] != challenges and info[C.I_SHOWN_TO] >= 0:
        o, q = info[C.I_SHOWN_TO], info[C.I_SHOWN_BY]
        for t in range(rec.known.shape[3]):
            rec.known[g, o, q, t] = st.shown[g, t]


@njit(inline="always")
def _copy_block(counts, first, width, out, start, num_players, seat):
    """Columns ``first .. first + width - 1`` of each other seat's counts, by relative
    seat, into ``out[start:]`` (through a view: non-negative indices, which the
    compiler can vectorise; ``engine/observe.py`` says why)."""
    view = out[start:start + (num_players - 1) * width]
    q = seat
    for i in range(num_players - 1):
        q = q + 1 if q + 1 < num_players else 0
        row = counts[q, first:first + width]
        for j in range(width):
            view[i * width + j] = row[j]


@njit
def write_record(st, g, rec, seat, out):
    """Append ``seat``'s view of game ``g``'s record to ``out`` at ``rec.at`` (the
    fields of ``obs_layout.RECORD_FIELDS``, each by relative seat 1 .. P-1)."""
    num_players = st.hand_size.shape[1]
    at = rec.at
    counts = rec.counts[g]
    _copy_block(counts, REC_DREW_COLOR, 4, out, at[0], num_players, seat)
    _copy_block(counts, REC_DREW_RANK, NUM_DREW_RANKS, out, at[1], num_players, seat)
    _copy_block(counts, REC_NAMED, 4, out, at[2], num_players, seat)
    _copy_block(counts, REC_PLAYED_COLOR, 5, out, at[3], num_players, seat)
    _copy_block(counts, REC_PLAYED_RANK, C.NUM_RANKS, out, at[4], num_players, seat)
    _copy_block(counts, REC_TAKEN, 1, out, at[5], num_players, seat)
    _copy_block(counts, REC_DRAW_CHOICES, 1, out, at[6], num_players, seat)
    _copy_block(counts, REC_TAKEN_SINCE, 1, out, at[7], num_players, seat)
    _copy_block(rec.known[g, seat], 0, rec.known.shape[3], out, at[8], num_players, seat)


# --- the hooks of the loops (module docstring) ---------------------------------------------


@by_class("record")
def record_dealt(st, g, sp, record):
    """A new game was dealt into slot ``g``."""


@record_dealt.register(type(None))
def _dealt_plain(st, g, sp, record):
    pass


@record_dealt.register(PublicRecord)
def _dealt_record(st, g, sp, record):
    clear_record(record, g)


@by_class("record")
def record_apply(st, g, sp, record, action):
    """Apply the current decider's legal ``action`` in game ``g``."""


@record_apply.register(type(None))
def _apply_plain(st, g, sp, record, action):
    apply_action(st, g, sp, action)


@record_apply.register(PublicRecord)
def _apply_record(st, g, sp, record, action):
    watch(st, g, sp, record, action)


@by_class("record")
def record_observe(st, g, sp, record, seat, out):
    """``seat``'s observation of game ``g`` into ``out`` (with the record after it)."""


@record_observe.register(type(None))
def _observe_plain(st, g, sp, record, seat, out):
    observe(st, g, sp, seat, out)


@record_observe.register(PublicRecord)
def _observe_record(st, g, sp, record, seat, out):
    observe(st, g, sp, seat, out)
    write_record(st, g, record, seat, out)
