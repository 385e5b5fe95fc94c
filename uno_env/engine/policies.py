"""Agent kernels: the baseline agents' policies as numba functions, chosen by an integer
code so that whole games run inside numba (``simulate``).

The random agent draws from the game's own stream. The greedy and heuristic agents
decide from the decider's OBSERVATION VECTOR (``observe.py``) and the legal mask only,
so they cannot see hidden cards, and they consume no random numbers (a game played by
them through the Python API replays exactly inside ``simulate``). ``agents/`` calls the
very same kernels (``greedy_policy``, ``heuristic_policy``), so the Python agents and
the numba agents are identical by construction. Inside the kernels the heuristic reads
the same numbers from the state instead, without writing the observation
(``heuristic_from_state``, single-sided decks); its decision stage is shared, and
``tests/evaluation/test_agents.py`` replays every preset's games both ways.

Adding an agent: give it a code here, a branch in ``choose_action``, and a name in
``AGENT_CODES``; its Python class in ``agents/`` names the same code.
"""
import numpy as np

from uno_env.engine.jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.state import as_record
from uno_env.engine.observe import observe
from uno_env.engine.variants import DOUBLE_SIDED, SINGLE_SIDED
from uno_env.engine.dispatch import legal_mask, next_marked, random_action
# the agents' codes (``engine/names.py``: the names too)
from uno_env.engine.names import (AGENT_CODES, AGENT_GREEDY,  # noqa: F401
                                  AGENT_HEURISTIC, AGENT_RANDOM)


#: heuristic: the next player is "close to going out" at this many cards or fewer
DANGER_CARDS = 2
#: heuristic: "close to going out" itself at this many cards or fewer
FREE_CARDS = 3
#: heuristic: challenge a W4 when the estimated chance that its player held the
#: previous colour is at least this (estimated for the most favourable colour). The
#: estimate ignores that the player chose the card, and the players it meets rarely
#: bluff, so only a huge hand is worth the risk of drawing six (a measured choice:
#: 0.75 lost games against greedy, which never bluffs; benchmarks/heuristic_strength.py)
CHALLENGE_THRESHOLD = 0.98
#: heuristic card scores (higher is played first; tuned with
#: benchmarks/heuristic_strength.py): the base of each kind of card, and what is added
#: when the next player is in danger (DANGER_CARDS) or the heuristic is near out
NUMBER_SCORE = 200.0
DRAW_SCORE, DRAW_DANGER = 150.0, 250.0            # D2 (and D1, D5)
SKIP_SCORE, SKIP_DANGER = 150.0, 100.0            # S, SE, and R with two players
REVERSE_SCORE, REVERSE_DANGER = 150.0, 100.0      # R: next in danger minus previous
WILD_SCORE, WILD_DANGER = 30.0, 120.0
DRAW_WILD_SCORE, DRAW_WILD_DANGER = 20.0, 300.0   # W4 (and W2, WC) with no bluff
BLUFF_SCORE = 150.0                               # a W4 bluff, only in danger
FREE_ACTION, FREE_WILD = 150.0, 30.0              # near out: stop holding back
#: per card of the played card's colour kept in hand, and per other card of its rank
SAME_COLOR_WEIGHT, SAME_RANK_WEIGHT = 8.0, 5.0
#: times the estimated chance that the player who moves next can follow the card
FOLLOW_WEIGHT = 50.0
#: naming a colour: cards held of it, minus this times its unseen share (x4)
NAME_UNSEEN_WEIGHT = 1.0
NEVER = -1.0e9  # a score: not to be played

#: the policies' int64 scratch (``work``), given by the caller so that a decision
#: allocates nothing: cards per colour slot held, unseen per colour slot (wilds in the
#: fifth) and per rank, ranks held, the other players' hand sizes by relative seat
#: (``opponent_cards`` of ``observe.py``)
W_COUNTS, W_BY_COLOR, W_BY_RANK = 0, 4, 9
W_RANKS_HELD = W_BY_RANK + C.NUM_RANKS
W_OPPONENTS = W_RANKS_HELD + C.NUM_RANKS
WORK_SIZE = W_OPPONENTS + C.MAX_PLAYERS - 1


# --- reading the observation vector -----------------------------------------------------


@njit(inline="always")
def _offsets(sp):
    """Start of each field used by the policies (``Spec.obs_at``, the layout of
    ``observe.py``): (hand, color, direction, phase, opponent_cards, played, side)."""
    at = sp.obs_at
    return (at[C.O_HAND], at[C.O_COLOR], at[C.O_DIRECTION], at[C.O_PHASE],
            at[C.O_OPPONENT_CARDS], at[C.O_PLAYED], at[C.O_SIDE])


@by_spec
def _face(obs, sp, t, side):
    """Face of card type ``t`` on ``side``, as the observer knows it."""


@_face.register(*SINGLE_SIDED)
def _single_face(obs, sp, t, side):
    return sp.type_face[t, 0]


@_face.register(*DOUBLE_SIDED)
def _flip_face(obs, sp, t, side):
    # UNO Flip pairs sides per match: a dark face is read from the observer's
    # ``hand_dark`` field (its own cards); for a card it does not hold, the deck's
    # canonical dark face stands in (an estimate only)
    if side == 0:
        return sp.type_face[t, 0]
    d = int(obs[sp.obs_at[C.O_HAND_DARK] + t]) - 1
    if d >= 0:
        return d
    return sp.type_face[t, 1]


@by_spec
def _hidden_worth(obs, sp, t, side):
    """UNO Flip: how strong card ``t``'s other face is (its points / 20: a wild or a
    draw card is worth keeping for after the next flip); 0 for single-sided decks."""


@_hidden_worth.register(*SINGLE_SIDED)
def _no_hidden_worth(obs, sp, t, side):
    return 0.0


@_hidden_worth.register(*DOUBLE_SIDED)
def _flip_hidden_worth(obs, sp, t, side):
    return sp.face_points[_face(obs, sp, t, 1 - side)] / 20.0


@njit
def _argmax_onehot(obs, start, n):
    """Index of the set entry of a one-hot field, -1 if none is set."""
    for i in range(n):
        if obs[start + i] > 0.5:
            return i
    return -1


@njit
def _color_counts(obs, sp, side, counts):
    """Cards of each colour slot in the observer's hand (wilds count nowhere)."""
    counts[:] = 0
    for t in range(sp.type_face.shape[0]):
        n = obs[t]
        if n > 0:
            c = sp.face_color[_face(obs, sp, t, side)]
            if c < C.NO_COLOR:
                counts[c % 4] += int(n)


@njit
def _best_color(counts):
    """Colour slot held most (ties: lowest slot)."""
    best = 0
    for c in range(1, 4):
        if counts[c] > counts[best]:
            best = c
    return best


@njit
def _is_draw_wild(rank):
    """Wild ranks that make the next player draw and may be challenged."""
    return rank == C.WILD4 or rank == C.WILD2 or rank == C.WILD_COLOR


@njit
def _action_type(sp, a):
    """Card type played by action ``a`` of the PLAY or WILD block, else -1."""
    lay = sp.layout
    if lay[C.L_PLAY] <= a < lay[C.L_WILD]:
        return sp.play_slot_type[a - lay[C.L_PLAY]]
    if lay[C.L_WILD] <= a < lay[C.L_DRAW]:
        return sp.wild_slot_type[(a - lay[C.L_WILD]) // 4]
    return -1


@njit
def _lowest_legal(mask):
    a = next_marked(mask, 0, mask.shape[0])
    return a if a < mask.shape[0] else -1


@njit
def _fewest_cards_swap(sp, forward, opponent_cards, at):
    """7-0 (docs/rules.md 3): ``swap:+k`` with the player holding the fewest cards (ties: the
    smallest k). ``swap:+k`` is k seats ahead in the direction of play; the hand size of
    relative seat ``r`` is ``opponent_cards[at + r - 1]`` (the observation's field, or
    the policies' scratch)."""
    p = sp.rules[C.R_NUM_PLAYERS]
    best_k, best_n = 1, 1 << 30
    for k in range(1, p):
        rel = k if forward else p - k
        n = int(opponent_cards[at + rel - 1])
        if n < best_n:
            best_k, best_n = k, n
    return sp.layout[C.L_SWAP] + best_k - 1


@njit
def _best_give(mask, sp, side):
    """One Piece Shanks (docs/rules.md 6): give away the card worth most points (lowest id
    on ties); -1 outside the give phase."""
    lay = sp.layout
    best, best_pts = -1, -1
    for t in range(lay[C.L_NUM_GIVE]):
        if mask[lay[C.L_GIVE] + t] != 0:
            pts = sp.face_points[sp.type_face[t, side]]
            if pts > best_pts:
                best, best_pts = lay[C.L_GIVE] + t, pts
    return best


@njit
def _greedy_ace(mask, sp, side):
    """One Piece Ace combination (docs/rules.md 6) for greedy: a draw card first
    (D2 > S > R); -1 if none is legal."""
    lay = sp.layout
    best, best_score = -1, 0
    for k in range(lay[C.L_NUM_ACE]):
        a = lay[C.L_ACE] + k
        if mask[a] != 0:
            rank = sp.face_rank[sp.type_face[sp.ace_slot_type[k], side]]
            s = 3 if rank == C.DRAW2 else (2 if rank == C.SKIP else 1)
            if s > best_score:
                best, best_score = a, s
    return best


GO_ON = -2  # _reflex: no reflex applies, the policy decides


@njit(inline="always")
def _phase_side(obs, sp):
    offsets = _offsets(sp)
    return _argmax_onehot(obs, offsets[3], C.NUM_PHASES), int(obs[offsets[6]])


@njit(inline="always")
def _reflex(mask, sp, phase, best_color):
    """What both baselines do before any thought: -1 when nothing is legal, always
    catch, and name the colour held most (``best_color``) for a wild turned up first;
    else GO_ON."""
    if _lowest_legal(mask) < 0:
        return -1
    if mask[sp.layout[C.L_CATCH]] != 0:
        return sp.layout[C.L_CATCH]
    if phase == C.PHASE_COLOR:
        return sp.layout[C.L_COLOR] + best_color
    return GO_ON


# --- greedy -----------------------------------------------------------------------------


@njit
def greedy_policy(obs, mask, sp, work):
    """Greedy baseline (see ``agents.GreedyAgent``). Deterministic; -1 if nothing is legal.
    ``work``: int64[WORK_SIZE] scratch.

    Catches and calls UNO whenever offered; plays the playable coloured card worth most
    points, wilds only when no coloured card is playable, a W4 only when it holds no
    card of the colour in force (never bluffs); names the colour it holds most; plays a
    playable drawn card; draws only when nothing is playable; never challenges.
    House rules: stacks a draw card whenever it can (else accepts), jumps in and goes
    on with a multi-card play whenever it can, swaps hands with the player holding the
    fewest cards. One Piece: plays an Ace combination first (with a D2 if it can),
    gives away its highest-point card, breaks a Hancock whenever it can."""
    _, o_col, o_dir, _, o_opp, _, _ = _offsets(sp)
    phase, side = _phase_side(obs, sp)
    _color_counts(obs, sp, side, work[W_COUNTS:W_COUNTS + 4])
    _opponents_from_obs(obs, sp, o_opp, work)
    return _greedy_decide(obs, mask, sp, work, phase, side, _argmax_onehot(obs, o_col, 4),
                          obs[o_dir] > 0.5)


@njit(inline="always")
def _opponents_from_obs(obs, sp, o_opp, work):
    """The other players' hand sizes by relative seat, from the observation's
    ``opponent_cards`` (at ``o_opp``), into ``work[W_OPPONENTS:]``."""
    for r in range(sp.rules[C.R_NUM_PLAYERS] - 1):
        work[W_OPPONENTS + r] = int(obs[o_opp + r])


@njit(inline="always")
def _seen_from_state(st, g, sp, seat, work):
    """What both baselines read first, from the state (single-sided decks): ``seat``'s
    cards per colour slot (``work[W_COUNTS:]``, from the counts of engine/tallies.py)
    and the other players' hand sizes by relative seat (``work[W_OPPONENTS:]``, as the
    observation's ``opponent_cards``). Returns the colour slot in force (-1: none)."""
    info = st.info[g]
    mine = st.tallies[g, seat]
    for s in range(4):
        work[W_COUNTS + s] = mine[C.T_SLOT + s]
    players = sp.rules[C.R_NUM_PLAYERS]
    q = seat
    for r in range(players - 1):
        q = q + 1 if q + 1 < players else 0
        work[W_OPPONENTS + r] = st.hand_size[g, q]
    return info[C.I_COLOR] % 4 if info[C.I_COLOR] != C.NO_COLOR else -1


@by_spec
def greedy_from_state(st, g, sp, seat, mask, obs, work):
    """``greedy_policy`` of ``seat``, the decider of game ``g``, with its legal ``mask``
    filled; the same action, without the observation where the deck allows (``obs``:
    float32 scratch of the observation size)."""


@greedy_from_state.register(*SINGLE_SIDED)
def _greedy_single_sided(st, g, sp, seat, mask, obs, work):
    # what greedy_policy reads from the observation, from the state and its counts
    info = st.info[g]
    color = _seen_from_state(st, g, sp, seat, work)
    return _greedy_decide(obs, mask, sp, work, info[C.I_PHASE], 0, color,
                          info[C.I_DIRECTION] > 0)


@greedy_from_state.register(*DOUBLE_SIDED)
def _greedy_flip(st, g, sp, seat, mask, obs, work):
    # faces depend on the side and the match's pairing: read from the observation
    observe(st, g, sp, seat, obs)
    return greedy_policy(obs, mask, sp, work)


@njit
def _greedy_decide(obs, mask, sp, work, phase, side, color, forward):
    """Greedy's decision from its situation: ``work`` holds its cards per colour slot
    and the other players' hand sizes (``W_COUNTS``, ``W_OPPONENTS``); ``color`` is
    the colour slot in force (-1: none). ``obs`` is read only by UNO Flip's faces."""
    lay = sp.layout
    counts = work[W_COUNTS:W_COUNTS + 4]
    best_color = _best_color(counts)
    reflex = _reflex(mask, sp, phase, best_color)
    if reflex != GO_ON:
        return reflex
    if phase == C.PHASE_CHALLENGE:
        if mask[lay[C.L_ACCEPT]] != 0:
            return lay[C.L_ACCEPT]
        return _lowest_legal(mask)
    if phase == C.PHASE_SWAP:
        return _fewest_cards_swap(sp, forward, work, W_OPPONENTS)
    if mask[lay[C.L_UNO]] != 0:
        return lay[C.L_UNO]
    if phase == C.PHASE_GIVE:
        return _best_give(mask, sp, side)
    holds_color = color >= 0 and counts[color] > 0
    # One Piece: an Ace combination sheds the most points (a draw card first)
    best = _greedy_ace(mask, sp, side)
    if best >= 0:
        return best
    # coloured cards: most points, lowest id on ties
    best, best_pts = -1, -1
    a = next_marked(mask, lay[C.L_PLAY], lay[C.L_WILD])
    while a < lay[C.L_WILD]:
        pts = sp.face_points[_face(obs, sp, _action_type(sp, a), side)]
        if pts > best_pts:
            best, best_pts = a, pts
        a = next_marked(mask, a + 1, lay[C.L_WILD])
    if best >= 0:
        return best
    # wilds, naming the colour held most; a draw wild only when it is no bluff
    for w in range(lay[C.L_NUM_WILD]):
        a = lay[C.L_WILD] + 4 * w + best_color
        if mask[a] != 0:
            rank = sp.face_rank[_face(obs, sp, sp.wild_slot_type[w], side)]
            if _is_draw_wild(rank) and holds_color:
                continue
            pts = sp.face_points[_face(obs, sp, sp.wild_slot_type[w], side)]
            if pts > best_pts:
                best, best_pts = a, pts
    if best >= 0:
        return best
    # keep the drawn card; decline a jump-in or end a multi-card play (pass is legal
    # only in those phases); accept a pending draw it cannot stack
    if mask[lay[C.L_PASS]] != 0:
        return lay[C.L_PASS]
    if mask[lay[C.L_ACCEPT]] != 0:
        return lay[C.L_ACCEPT]
    if mask[lay[C.L_DRAW]] != 0:
        return lay[C.L_DRAW]
    return _lowest_legal(mask)


# --- heuristic --------------------------------------------------------------------------


@njit
def _challenge_odds(named, n_prev, by_color, unseen):
    """Estimated chance that the Wild Draw Four player held the previous colour.

    The previous colour is not observable; the estimate takes the colour (other than
    ``named``, the one just named) that the player most plausibly lacked. For colour ``c``
    with ``u`` unseen cards among ``U`` unseen cards (not in the observer's hand, not in
    the discard pile), a hand of ``n_prev`` cards (the W4 player's: the previous player
    in the direction of play) holds none of it with the hypergeometric chance
    ``prod_i (U - u - i) / (U - i)``. ``by_color`` and ``unseen``: ``_tally``'s counts."""
    best_innocent = 0.0
    for c in range(4):
        if c == named:
            continue
        q = 1.0
        for i in range(n_prev):
            if unseen - i <= 0:
                break
            q *= max(0.0, (unseen - by_color[c] - i) / (unseen - i))
        if q > best_innocent:
            best_innocent = q
    return 1.0 - best_innocent


@njit
def _tally(hand, played, obs, sp, side, work):
    """One pass over the card types of the observer's ``hand`` and the discard pile's
    ``played`` counts (the observation's fields, or the state's rows): the observer's
    cards per colour slot (``W_COUNTS``, wilds count nowhere) and per rank
    (``W_RANKS_HELD``), and the cards it has not seen (not in its hand, not in the
    discard pile) per colour slot (``W_BY_COLOR``, the fifth: wild faces) and per rank of
    coloured faces (``W_BY_RANK``). Returns (cards held, cards unseen). UNO Flip: by the
    face each type shows on ``side`` as ``_face`` knows it (from ``obs``)."""
    work[W_BY_RANK:W_OPPONENTS] = 0
    held_total, unseen_total = 0, 0
    # the colour sums in registers: the types come colour by colour, so a sum kept in
    # memory would wait on its own previous store at every type. No branch on the
    # counts: which types are held or unseen is a coin toss for the branch predictor;
    # adding zeros costs less than its misses (the same sums)
    h0, h1, h2, h3 = 0, 0, 0, 0
    u0, u1, u2, u3, u4 = 0, 0, 0, 0, 0
    for t in range(sp.type_face.shape[0]):
        held = int(hand[t])
        u = sp.type_count[t] - held - int(played[t])
        u = u if u > 0 else 0
        f = _face(obs, sp, t, side)
        c = sp.face_color[f]
        r = sp.face_rank[f]
        slot = c % 4 if c < C.NO_COLOR else 4
        held_total += held
        unseen_total += u
        work[W_RANKS_HELD + r] += held
        work[W_BY_RANK + r] += u if slot < 4 else 0
        h0 += held if slot == 0 else 0
        h1 += held if slot == 1 else 0
        h2 += held if slot == 2 else 0
        h3 += held if slot == 3 else 0
        u0 += u if slot == 0 else 0
        u1 += u if slot == 1 else 0
        u2 += u if slot == 2 else 0
        u3 += u if slot == 3 else 0
        u4 += u if slot == 4 else 0
    work[W_COUNTS], work[W_COUNTS + 1], work[W_COUNTS + 2], work[W_COUNTS + 3] = \
        h0, h1, h2, h3
    work[W_BY_COLOR], work[W_BY_COLOR + 1], work[W_BY_COLOR + 2] = u0, u1, u2
    work[W_BY_COLOR + 3], work[W_BY_COLOR + 4] = u3, u4
    return held_total, unseen_total


@njit
def _situation_from_obs(obs, sp, work):
    """What the heuristic reads from an observation vector: fills ``work`` (``_tally``,
    and the other players' hand sizes at ``W_OPPONENTS``) and returns (phase, side,
    colour slot in force or -1, play goes to higher seats, cards held, cards unseen)."""
    o_hand, o_col, o_dir, o_phase, o_opp, o_played, o_side = _offsets(sp)
    phase, side = _phase_side(obs, sp)
    k = sp.type_face.shape[0]
    held, unseen = _tally(obs[o_hand:o_hand + k], obs[o_played:o_played + k], obs, sp,
                          side, work)
    _opponents_from_obs(obs, sp, o_opp, work)
    return phase, side, _argmax_onehot(obs, o_col, 4), obs[o_dir] > 0.5, held, unseen


@njit
def _situation_from_state(st, g, sp, seat, obs, work):
    """``_situation_from_obs`` of ``seat``'s observation, read from the state itself
    (single-sided decks: a card type shows one face, so ``obs`` is not read): the same
    numbers without writing the observation (the opponents inside ``simulate``, the
    learner envs and the search rollouts). ``_tally``'s counts come from the counts
    kept in the state (``engine/tallies.py``): what ``seat`` has not seen is the cards
    off the discard pile less its own; on a single-sided deck a face is coloured
    exactly when its rank is below the wild ranks (``tests/engine/test_tallies.py``)."""
    info = st.info[g]
    players = sp.rules[C.R_NUM_PLAYERS]
    mine = st.tallies[g, seat]       # the seat's row of the counts
    off = st.tallies[g, players]     # the cards off the discard pile
    color = _seen_from_state(st, g, sp, seat, work)
    unseen = 0
    for s in range(5):
        u = np.int64(off[C.T_SLOT + s]) - mine[C.T_SLOT + s]
        work[W_BY_COLOR + s] = u
        unseen += u
    # the coloured ranks only: _card_score reads the per-rank counts of coloured cards
    for r in range(C.FIRST_WILD_RANK):
        held_r = np.int64(mine[C.T_RANK + r])
        work[W_RANKS_HELD + r] = held_r
        work[W_BY_RANK + r] = off[C.T_RANK + r] - held_r
    held = st.hand_size[g, seat]
    return info[C.I_PHASE], 0, color, info[C.I_DIRECTION] > 0, held, unseen


@njit
def _name_color(counts, by_color, unseen):
    """Colour slot to name for a wild: held most, and (a little) the fewest unseen cards
    of it, so the others are less likely to follow (ties: lowest slot)."""
    best, best_v = 0, -1.0e9
    for c in range(4):
        v = counts[c] - NAME_UNSEEN_WEIGHT * 4.0 * by_color[c] / max(unseen, 1)
        if v > best_v:
            best, best_v = c, v
    return best


@njit
def _card_score(obs, sp, t, named, side, ctx):
    """Heuristic preference for playing card type ``t`` (naming colour slot ``named``
    if it is a wild); higher first, ``NEVER``: not at all. ``ctx`` is the situation
    ``heuristic_policy`` reads once (see there).

    Holds draw cards, skips and wilds until the next player is close to going out (or
    the heuristic is), keeps to the colour it holds most and to ranks it holds twice,
    and avoids cards the player who moves next can likely follow: with ``u`` unseen
    cards that match (colour, rank, wilds) among ``U``, a hand of ``n`` holds one with
    chance ``1 - (1 - u/U)^n``. A reverse with more than two players weighs the next
    player's danger against the previous one's. UNO Flip: a card whose other face is a
    strong card (many points: a wild or a draw card) is kept a little longer."""
    (work, color, holds_color, unseen, danger, danger_prev, free, my_cards, players,
     n_next, n_skip, n_prev) = ctx
    f = _face(obs, sp, t, side)
    rank = sp.face_rank[f]
    d = 1.0 if danger else 0.0
    if rank >= C.FIRST_WILD_RANK:
        c = named
        mover = n_next
        if _is_draw_wild(rank):
            mover = n_skip
            if not holds_color:
                s = DRAW_WILD_SCORE + DRAW_WILD_DANGER * d
            elif danger and my_cards > 1:   # a bluff: only to stop a player about to go out
                s = BLUFF_SCORE
            else:
                return NEVER
        else:
            s = WILD_SCORE + WILD_DANGER * d
        if free:
            s += FREE_WILD
        same = work[W_COUNTS + c]
        match = work[W_BY_COLOR + c] + work[W_BY_COLOR + 4]
    else:
        c = sp.face_color[f] % 4
        same = work[W_COUNTS + c] - 1         # cards of that colour left after playing it
        mover = n_next
        if rank == C.DRAW2 or rank == C.DRAW1 or rank == C.DRAW5:
            s = DRAW_SCORE + DRAW_DANGER * d + (FREE_ACTION if free else 0.0)
            mover = n_skip
        elif rank == C.SKIP or rank == C.SKIP_EVERYONE or \
                (rank == C.REVERSE and players == 2):
            s = SKIP_SCORE + SKIP_DANGER * d + (FREE_ACTION if free else 0.0)
            mover = n_skip
        elif rank == C.REVERSE:
            s = REVERSE_SCORE + REVERSE_DANGER * (d - (1.0 if danger_prev else 0.0))
            mover = n_prev
        else:
            s = NUMBER_SCORE
        s += SAME_RANK_WEIGHT * (work[W_RANKS_HELD + rank] - 1)
        if c == color:
            s += 1.0
        match = work[W_BY_COLOR + c] + work[W_BY_COLOR + 4] + work[W_BY_RANK + rank]
    follow = 1.0
    if mover >= 0:
        miss = 1.0 - min(1.0, match / max(unseen, 1))
        for _ in range(mover):
            follow *= miss
        follow = 1.0 - follow
    return (s + SAME_COLOR_WEIGHT * same + sp.face_points[f] / 10.0 - FOLLOW_WEIGHT * follow
            - _hidden_worth(obs, sp, t, side))


@njit
def heuristic_policy(obs, mask, sp, work):
    """Heuristic baseline (see ``agents.HeuristicAgent``). Deterministic; -1 if nothing
    is legal.

    Catches and calls UNO; keeps to its strongest colour and to ranks it holds twice;
    avoids cards the next player can likely follow (card counting over the unseen
    cards); holds skips, draw cards and wilds until the next player has few cards (plays
    numbers first), and keeps a drawn wild then; rather than play a wild the next player
    likely follows while it holds little of the colour, it draws; reverses when the next
    player is close to going out and the previous one is not; bluffs a W4 only to stop a
    next player close to going out; challenges a W4 only when card counting says its
    player almost surely held the previous colour; names the colour it holds most,
    preferring one with few unseen cards. House rules: facing a pending draw it
    challenges as above, else stacks with the card it prefers (a W4 bluff only in
    danger), else accepts; jumps in and goes on with a multi-card play when it prefers
    the card; swaps hands with the player holding the fewest cards. One Piece: scores
    an Ace combination as its action card plus the Ace's points, gives away its
    highest-point card, breaks a Hancock whenever it can. ``work``: int64[WORK_SIZE]
    scratch."""
    return _heuristic_decide(obs, mask, sp, work, *_situation_from_obs(obs, sp, work))


@by_spec
def heuristic_from_state(st, g, sp, seat, mask, obs, work):
    """``heuristic_policy`` of ``seat``, the decider of game ``g``, with its legal
    ``mask`` filled; the same action, without the observation where the deck allows
    (``obs``: float32 scratch of the observation size)."""


@heuristic_from_state.register(*SINGLE_SIDED)
def _heuristic_single_sided(st, g, sp, seat, mask, obs, work):
    return _heuristic_decide(obs, mask, sp, work,
                             *_situation_from_state(st, g, sp, seat, obs, work))


@heuristic_from_state.register(*DOUBLE_SIDED)
def _heuristic_flip(st, g, sp, seat, mask, obs, work):
    # a card's face depends on the side in play and the match's pairing: read as the
    # observer knows it, from its observation
    observe(st, g, sp, seat, obs)
    return heuristic_policy(obs, mask, sp, work)


@njit
def _heuristic_decide(obs, mask, sp, work, phase, side, color, forward, my_cards, unseen):
    """The heuristic's decision from its situation (``_situation_from_obs``; ``work``
    filled by it). ``obs`` is read only by UNO Flip's faces."""
    lay = sp.layout
    counts = work[W_COUNTS:W_COUNTS + 4]
    by_color = work[W_BY_COLOR:W_BY_RANK]
    best_color = _best_color(counts)
    reflex = _reflex(mask, sp, phase, best_color)
    named = _name_color(counts, by_color, unseen)
    if reflex != GO_ON:
        if phase == C.PHASE_COLOR and reflex == lay[C.L_COLOR] + best_color:
            return lay[C.L_COLOR] + named
        return reflex
    # the situation: hand sizes of the players who move after this play (-1: the
    # heuristic itself, after a skip with two players), danger on either side
    players = sp.rules[C.R_NUM_PLAYERS]
    n_next = work[W_OPPONENTS + (0 if forward else players - 2)]
    n_prev = work[W_OPPONENTS + (players - 2 if forward else 0)]
    n_skip = work[W_OPPONENTS + (1 if forward else players - 3)] if players > 2 else -1
    if phase == C.PHASE_CHALLENGE or phase == C.PHASE_STACK:
        if mask[lay[C.L_CHALLENGE]] != 0 and \
                _challenge_odds(color, n_prev, by_color, unseen) >= CHALLENGE_THRESHOLD:
            return lay[C.L_CHALLENGE]
        if phase == C.PHASE_CHALLENGE:
            if mask[lay[C.L_ACCEPT]] != 0:
                return lay[C.L_ACCEPT]
            return _lowest_legal(mask)
    if phase == C.PHASE_SWAP:
        return _fewest_cards_swap(sp, forward, work, W_OPPONENTS)
    if mask[lay[C.L_UNO]] != 0:
        return lay[C.L_UNO]
    if phase == C.PHASE_GIVE:
        return _best_give(mask, sp, side)
    danger, free = n_next <= DANGER_CARDS, my_cards <= FREE_CARDS
    # the counts travel as ``work`` itself (one array, not four slices of it)
    ctx = (work, color, color >= 0 and counts[color] > 0, unseen, danger,
           n_prev <= DANGER_CARDS, free, my_cards, players, n_next, n_skip, n_prev)
    best, best_score = -1, NEVER
    for k in range(lay[C.L_NUM_ACE]):   # One Piece: ACE+X sheds the Ace's points too
        a = lay[C.L_ACE] + k
        if mask[a] != 0:
            s = _card_score(obs, sp, sp.ace_slot_type[k], 0, side, ctx) + 60.0
            if s > best_score:
                best, best_score = a, s
    a = next_marked(mask, lay[C.L_PLAY], lay[C.L_WILD])
    while a < lay[C.L_WILD]:
        s = _card_score(obs, sp, _action_type(sp, a), 0, side, ctx)
        if s > best_score:
            best, best_score = a, s
        a = next_marked(mask, a + 1, lay[C.L_WILD])
    for w in range(lay[C.L_NUM_WILD]):
        a = lay[C.L_WILD] + 4 * w + named
        if mask[a] != 0:
            s = _card_score(obs, sp, sp.wild_slot_type[w], named, side, ctx)
            if s > best_score:
                best, best_score = a, s
    if best >= 0 and phase == C.PHASE_DRAWN and mask[lay[C.L_PASS]] != 0:
        # keep a drawn wild while nobody is close to going out; play anything else
        wild = sp.face_rank[_face(obs, sp, _action_type(sp, best), side)] \
            >= C.FIRST_WILD_RANK
        if best_score < 0.0 or (wild and not danger and not free):
            return lay[C.L_PASS]
        return best
    # a turn's play with a negative score (a wild the next player likely follows):
    # it draws instead; stacking, jumping in and going on take any card it would play
    if best >= 0 and (best_score >= 0.0 or (phase != C.PHASE_PLAY and best_score > NEVER)):
        return best
    if mask[lay[C.L_PASS]] != 0:    # decline a jump-in, end a multi-card play
        return lay[C.L_PASS]
    if mask[lay[C.L_ACCEPT]] != 0:  # a pending draw it will not stack onto
        return lay[C.L_ACCEPT]
    if mask[lay[C.L_DRAW]] != 0:    # rather than a card it does not want to play
        return lay[C.L_DRAW]
    if best >= 0 and best_score > NEVER:
        return best
    return _lowest_legal(mask)


# --- dispatch ---------------------------------------------------------------------------


@njit
def choose_action(kind, st, g, sp, mask, obs, work):
    """The action of the agent of type ``kind`` for the current decider of game ``g``
    (``mask`` is scratch space of the action-space size, ``obs`` float32 scratch of the
    observation size, ``work`` int64[WORK_SIZE]). -1 if the game is over."""
    if kind == AGENT_GREEDY or kind == AGENT_HEURISTIC:
        if legal_mask(st, g, sp, mask) == 0:
            return -1
        seat = st.info[g, C.I_CURRENT]
        if kind == AGENT_HEURISTIC:
            return heuristic_from_state(st, g, sp, seat, mask, obs, work)
        return greedy_from_state(st, g, sp, seat, mask, obs, work)
    # the random agent draws from the game's own stream
    return random_action(st, g, sp, mask)


def policy_batch(kind, obs, mask, tables, out):
    """``out[b]``: the greedy (``kind`` AGENT_GREEDY) or heuristic policy's action for
    row ``b`` of ``obs[B, D]`` and ``mask[B, A]`` (the Python agents' ``act`` and
    ``act_batch``; the ``policy`` entry point of ``engine.entry``)."""
    sp = as_record(tables)  # one pointer, for the kernels
    work = np.empty(WORK_SIZE, np.int64)
    for b in range(obs.shape[0]):
        if kind == AGENT_GREEDY:
            out[b] = greedy_policy(obs[b], mask[b], sp, work)
        else:
            out[b] = heuristic_policy(obs[b], mask[b], sp, work)
