"""Card counts kept up to date as cards move: each hand's cards per colour and per rank,
and the deck's cards not on the discard pile, counted the same way: ``State.tallies``,
int8 (no count of a deck reaches 128).

An agent that counts cards (the heuristic, and through it every search rollout) needs,
at each decision, its cards per colour and rank and the cards it has not seen per colour
and rank. Summed over the 54+ card types at every decision, that was half the
heuristic's time; kept here, it is a few subtractions (``policies._situation_from_state``).

A table of ``P + 1`` rows of ``NUM_TALLIES`` columns, row by row: ``T_SLOT + s`` for
colour slot ``s`` (the colour modulo 4; slot 4: wild faces, which have no colour),
``T_RANK + r`` for rank ``r``. Rows: one per seat (its hand), then row ``P`` (the number
of players): every card of the deck that is not on the discard pile. A seat has not seen
``row P - its row``: the cards outside its hand and the discard pile. (They were once
int32 slots at the end of ``info``, when every kernel received the state's arrays one by
one and another array cost time; with the state passed by reference an array of its own
costs nothing, and as int8 a game's five rows take three cache lines instead of ten.)

Single-sided decks only. In UNO Flip a card's colour and rank depend on the side in play
(and the match's pairing), so ``State.tallies`` has no columns there and
``count_card`` and ``recount`` do nothing; Flip's heuristic counts from its observation.

Every kernel that moves a card into or out of a hand or the discard pile calls
``count_card``; a deal starts from ``start_counts`` and counts the cards it deals; one
that rebuilds hands wholesale (a swap of hands, a determinization) calls ``recount``. ``engine.soak`` checks the counts against a recount
after every move of its soak games.
"""
import numpy as np

from uno_env.engine.jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.variants import DOUBLE_SIDED, SINGLE_SIDED

T_SLOT, T_RANK = C.T_SLOT, C.T_RANK


@njit(inline="always")
def off_pile_row(st):
    """The row of the cards off the discard pile: the number of players."""
    return st.hands.shape[1]


@njit(inline="always")
def type_columns(sp, t):
    """The two columns that count a card of type ``t``: its colour slot's and its
    rank's (single-sided decks)."""
    f = sp.type_face[t, 0]
    c = sp.face_color[f]
    return T_SLOT + (c % 4 if c < C.NO_COLOR else 4), T_RANK + sp.face_rank[f]


@njit(inline="always")
def add_type(st, g, sp, row, t, n):
    """Count ``n`` more cards of type ``t`` in ``row`` (single-sided decks)."""
    slot, rank = type_columns(sp, t)
    st.tallies[g, row, slot] += n
    st.tallies[g, row, rank] += n


@by_spec
def count_card(st, g, sp, row, t, n):
    """``n`` cards of type ``t`` entered (``n > 0``) or left (``n < 0``) ``row``: a
    seat's hand, or ``P`` (the number of players) for the cards off the discard pile."""


@count_card.register(*SINGLE_SIDED)
def _count_single_sided(st, g, sp, row, t, n):
    add_type(st, g, sp, row, t, n)


@count_card.register(*DOUBLE_SIDED)
def _count_nothing(st, g, sp, row, t, n):
    pass


@by_spec
def start_counts(st, g, sp):
    """Game ``g``'s counts before a deal: empty hands, and the whole deck off the
    discard pile (``Spec.deck_tallies``); the deal then counts each card it moves."""


@start_counts.register(*SINGLE_SIDED)
def _start_single_sided(st, g, sp):
    players = st.hands.shape[1]
    st.tallies[g, :players] = 0
    for i in range(C.NUM_TALLIES):
        st.tallies[g, players, i] = sp.deck_tallies[i]


@start_counts.register(*DOUBLE_SIDED)
def _start_nothing(st, g, sp):
    pass


@by_spec
def recount(st, g, sp):
    """Count game ``g``'s tallies again from its hands and discard pile."""


@recount.register(*SINGLE_SIDED)
def _recount_single_sided(st, g, sp):
    start_counts(st, g, sp)
    players = st.hands.shape[1]
    for t in range(sp.type_count.shape[0]):
        slot, rank = type_columns(sp, t)
        # every seat's count added, zero or not: whether a type is held is a coin toss
        # for the branch predictor (the search recounts after every determinization)
        for p in range(players):
            n = st.hands[g, p, t]
            st.tallies[g, p, slot] += n
            st.tallies[g, p, rank] += n
        d = st.discard_counts[g, t]
        st.tallies[g, players, slot] -= d
        st.tallies[g, players, rank] -= d


@recount.register(*DOUBLE_SIDED)
def _recount_nothing(st, g, sp):
    pass


def tallies(st, g) -> np.ndarray:
    """Game ``g``'s counts, ``(P + 1, NUM_TALLIES)`` (``(P + 1, 0)`` in UNO Flip): a view
    of ``State.tallies``, for Python code and tests."""
    return st.tallies[g]


def recount_state(st, g, sp) -> None:
    """``recount`` from Python, for code that writes hands or the discard pile there
    (``Game``'s scenarios, the contract suite's hidden-card changes)."""
    if st.tallies.shape[2] == 0:
        return
    face = sp.type_face[:, 0]
    color = sp.face_color[face]
    columns = np.zeros((len(face), C.NUM_TALLIES), np.int64)
    types = np.arange(len(face))
    columns[types, C.T_SLOT + np.where(color < C.NO_COLOR, color % 4, 4)] = 1
    columns[types, C.T_RANK + sp.face_rank[face]] = 1
    rows = np.vstack([st.hands[g], sp.type_count - st.discard_counts[g]]).astype(np.int64)
    tallies(st, g)[:] = rows @ columns
