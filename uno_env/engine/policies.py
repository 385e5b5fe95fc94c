"""Agent kernels: the baseline agents' policies as numba functions, chosen by an integer
code so that whole games run inside numba (``simulate``).

The random agent draws from the game's own stream. The greedy and heuristic agents
decide from the decider's OBSERVATION VECTOR (``observe.py``) and the legal mask only,
so they cannot see hidden cards, and they consume no random numbers (a game played by
them through the Python API replays exactly inside ``simulate``). ``agents/`` calls the
very same kernels (``greedy_policy``, ``heuristic_policy``), so the Python agents and
the numba agents are identical by construction.

Adding an agent: give it a code here, a branch in ``choose_action``, and a name in
``AGENT_CODES``; its Python class in ``agents/`` names the same code.
"""
import numpy as np

from uno_env._jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.observe import observe
from uno_env.engine.state import SINGLE_SIDED, FlipSpec
from uno_env.engine.variants import legal_mask, random_legal

AGENT_RANDOM = 0
AGENT_GREEDY = 1
AGENT_HEURISTIC = 2
#: name -> code, for ``simulate(agents=...)``
AGENT_CODES = {"random": AGENT_RANDOM, "greedy": AGENT_GREEDY, "heuristic": AGENT_HEURISTIC}

#: heuristic: the next player is "close to going out" at this many cards or fewer
DANGER_CARDS = 2
#: heuristic: challenge a W4 when the estimated chance that its player held the
#: previous colour is at least this (estimated for the most favourable colour)
CHALLENGE_THRESHOLD = 0.75


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


@_face.register(FlipSpec)
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


@_hidden_worth.register(FlipSpec)
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
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            return a
    return -1


@njit
def _next_opponent_cards(obs, sp, o_dir, o_opp):
    """Hand size of the player who moves after the observer (direction of play)."""
    p = sp.rules[C.R_NUM_PLAYERS]
    rel = 1 if obs[o_dir] > 0.5 else p - 1
    return int(obs[o_opp + rel - 1])


@njit
def _fewest_cards_swap(obs, sp, o_dir, o_opp):
    """7-0 (docs/rules.md 3): ``swap:+k`` with the player holding the fewest cards (ties: the
    smallest k). ``swap:+k`` is k seats ahead in the direction of play."""
    p = sp.rules[C.R_NUM_PLAYERS]
    best_k, best_n = 1, 1 << 30
    for k in range(1, p):
        rel = k if obs[o_dir] > 0.5 else p - k
        n = int(obs[o_opp + rel - 1])
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
def _best_ace(obs, mask, sp, side, counts, color, holds_color, danger, free, my_cards, greedy):
    """One Piece Ace combination (docs/rules.md 6) to play, -1 if none: greedy prefers a draw
    card (D2 > S > R), the heuristic scores the action card as ``_card_score`` does,
    plus the Ace's worth of shed points. Returns (action, score)."""
    lay = sp.layout
    best, best_score = -1, 0.0
    for k in range(lay[C.L_NUM_ACE]):
        a = lay[C.L_ACE] + k
        if mask[a] == 0:
            continue
        t = sp.ace_slot_type[k]
        rank = sp.face_rank[sp.type_face[t, side]]
        if greedy:
            s = 3.0 if rank == C.DRAW2 else (2.0 if rank == C.SKIP else 1.0)
        else:
            s = _card_score(obs, sp, t, side, counts, color, holds_color, danger, free,
                            my_cards) + 60.0
        if s > best_score:
            best, best_score = a, s
    return best, best_score


GO_ON = -2  # _reflexes: no reflex applies, the policy decides


@njit
def _reflexes(obs, mask, sp, counts):
    """What both baselines do before any thought: -1 when nothing is legal, always
    catch, and name the colour held most for a wild turned up first. Fills ``counts``
    (cards per colour slot) and returns (action or GO_ON, phase, side, best colour)."""
    offsets = _offsets(sp)
    o_phase, o_side = offsets[3], offsets[6]
    side = int(obs[o_side])
    phase = _argmax_onehot(obs, o_phase, C.NUM_PHASES)
    _color_counts(obs, sp, side, counts)
    best_color = _best_color(counts)
    if _lowest_legal(mask) < 0:
        return -1, phase, side, best_color
    if mask[sp.layout[C.L_CATCH]] != 0:
        return sp.layout[C.L_CATCH], phase, side, best_color
    if phase == C.PHASE_COLOR:
        return sp.layout[C.L_COLOR] + best_color, phase, side, best_color
    return GO_ON, phase, side, best_color


# --- greedy -----------------------------------------------------------------------------


@njit
def greedy_policy(obs, mask, sp):
    """Greedy baseline (see ``agents.GreedyAgent``). Deterministic; -1 if nothing is legal.

    Catches and calls UNO whenever offered; plays the playable coloured card worth most
    points, wilds only when no coloured card is playable, a W4 only when it holds no
    card of the colour in force (never bluffs); names the colour it holds most; plays a
    playable drawn card; draws only when nothing is playable; never challenges.
    House rules: stacks a draw card whenever it can (else accepts), jumps in and goes
    on with a multi-card play whenever it can, swaps hands with the player holding the
    fewest cards. One Piece: plays an Ace combination first (with a D2 if it can),
    gives away its highest-point card, breaks a Hancock whenever it can."""
    lay = sp.layout
    counts = np.zeros(4, np.int64)
    reflex, phase, side, best_color = _reflexes(obs, mask, sp, counts)
    if reflex != GO_ON:
        return reflex
    o_hand, o_col, o_dir, o_phase, o_opp, o_played, o_side = _offsets(sp)
    if phase == C.PHASE_CHALLENGE:
        if mask[lay[C.L_ACCEPT]] != 0:
            return lay[C.L_ACCEPT]
        return _lowest_legal(mask)
    if phase == C.PHASE_SWAP:
        return _fewest_cards_swap(obs, sp, o_dir, o_opp)
    if mask[lay[C.L_UNO]] != 0:
        return lay[C.L_UNO]
    if phase == C.PHASE_GIVE:
        return _best_give(mask, sp, side)
    color = _argmax_onehot(obs, o_col, 4)
    holds_color = color >= 0 and counts[color] > 0
    # One Piece: an Ace combination sheds the most points (a draw card first)
    best, _ = _best_ace(obs, mask, sp, side, counts, color, holds_color, False, False, 0, True)
    if best >= 0:
        return best
    # coloured cards: most points, lowest id on ties
    best, best_pts = -1, -1
    for a in range(lay[C.L_PLAY], lay[C.L_WILD]):
        if mask[a] != 0:
            pts = sp.face_points[_face(obs, sp, _action_type(sp, a), side)]
            if pts > best_pts:
                best, best_pts = a, pts
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
def _challenge_odds(obs, sp, side, o_col, o_dir, o_opp, o_played):
    """Estimated chance that the Wild Draw Four player held the previous colour.

    The previous colour is not observable; the estimate takes the colour (other than the
    one just named) that the player most plausibly lacked. For colour ``c`` with ``u``
    unseen cards among ``U`` unseen cards (not in the observer's hand, not in the discard
    pile), a hand of ``n`` cards holds none of it with the hypergeometric chance
    ``prod_i (U - u - i) / (U - i)``."""
    k = sp.type_face.shape[0]
    p = sp.rules[C.R_NUM_PLAYERS]
    rel = p - 1 if obs[o_dir] > 0.5 else 1   # the previous player in the direction of play
    n = int(obs[o_opp + rel - 1])
    named = _argmax_onehot(obs, o_col, 4)
    unseen_color = np.zeros(4, np.int64)
    unseen = 0
    for t in range(k):
        u = sp.type_count[t] - int(obs[t]) - int(obs[o_played + t])
        if u <= 0:
            continue
        unseen += u
        c = sp.face_color[_face(obs, sp, t, side)]
        if c < C.NO_COLOR:
            unseen_color[c % 4] += u
    best_innocent = 0.0
    for c in range(4):
        if c == named:
            continue
        q = 1.0
        for i in range(n):
            if unseen - i <= 0:
                break
            q *= max(0.0, (unseen - unseen_color[c] - i) / (unseen - i))
        if q > best_innocent:
            best_innocent = q
    return 1.0 - best_innocent


@njit
def _card_score(obs, sp, t, side, counts, color, holds_color, danger, free, my_cards):
    """Heuristic preference for playing card type ``t`` (higher first; < 0: never).
    UNO Flip: a card whose other face is a strong card (many points: a wild or a draw
    card) is kept a little longer, to be played after the next flip."""
    f = _face(obs, sp, t, side)
    hidden = _hidden_worth(obs, sp, t, side)
    rank = sp.face_rank[f]
    pts = sp.face_points[f]
    if rank >= C.FIRST_WILD_RANK:
        if _is_draw_wild(rank):
            if holds_color:          # a bluff: only to stop a player about to go out
                return 5.0 if danger and my_cards > 1 else -1.0
            return 320.0 if danger else (60.0 if free else 20.0)
        return 150.0 if danger else (60.0 if free else 30.0)
    c = sp.face_color[f] % 4
    same = counts[c] - 1             # cards of that colour left after playing it
    if rank == C.DRAW2 or rank == C.DRAW1 or rank == C.DRAW5:
        base = 300.0 if danger else (200.0 if free else 50.0)
    elif rank == C.SKIP or rank == C.SKIP_EVERYONE or rank == C.REVERSE:
        base = 250.0 if danger else 150.0
    elif rank <= 9:
        base = 100.0 if danger else 200.0
    else:
        base = 120.0
    # colour management: keep (or move to) the colour held most; shed points first
    bonus = 8.0 * same + pts / 10.0
    if c == color:
        bonus += 1.0
    return base + bonus - hidden


@njit
def heuristic_policy(obs, mask, sp):
    """Heuristic baseline (see ``agents.HeuristicAgent``). Deterministic; -1 if nothing
    is legal.

    Catches and calls UNO; keeps to its strongest colour; holds wilds and draw cards
    until the next player has few cards (plays numbers first); challenges a W4 when card
    counting says its player very likely held the previous colour; bluffs a W4 only to
    stop a next player close to going out when nothing else is playable; names the
    colour it holds most. House rules: facing a pending draw it challenges as above,
    else stacks with the card it prefers (a W4 bluff only in danger), else accepts;
    jumps in and goes on with a multi-card play whenever it can; swaps hands with the
    player holding the fewest cards. One Piece: scores an Ace combination as its action
    card plus the Ace's points, gives away its highest-point card, breaks a Hancock
    whenever it can."""
    lay = sp.layout
    counts = np.zeros(4, np.int64)
    reflex, phase, side, best_color = _reflexes(obs, mask, sp, counts)
    if reflex != GO_ON:
        return reflex
    o_hand, o_col, o_dir, o_phase, o_opp, o_played, o_side = _offsets(sp)
    if phase == C.PHASE_CHALLENGE or phase == C.PHASE_STACK:
        if mask[lay[C.L_CHALLENGE]] != 0 and \
                _challenge_odds(obs, sp, side, o_col, o_dir, o_opp, o_played) \
                >= CHALLENGE_THRESHOLD:
            return lay[C.L_CHALLENGE]
        if phase == C.PHASE_CHALLENGE:
            if mask[lay[C.L_ACCEPT]] != 0:
                return lay[C.L_ACCEPT]
            return _lowest_legal(mask)
    if phase == C.PHASE_SWAP:
        return _fewest_cards_swap(obs, sp, o_dir, o_opp)
    if mask[lay[C.L_UNO]] != 0:
        return lay[C.L_UNO]
    if phase == C.PHASE_GIVE:
        return _best_give(mask, sp, side)
    color = _argmax_onehot(obs, o_col, 4)
    holds_color = color >= 0 and counts[color] > 0
    next_cards = _next_opponent_cards(obs, sp, o_dir, o_opp)
    danger = next_cards <= DANGER_CARDS
    my_cards = 0
    for t in range(sp.type_face.shape[0]):
        my_cards += int(obs[t])
    free = my_cards <= 3             # close to going out: stop holding anything back
    best, best_score = _best_ace(obs, mask, sp, side, counts, color, holds_color, danger, free,
                                 my_cards, False)
    for a in range(lay[C.L_PLAY], lay[C.L_WILD]):
        if mask[a] != 0:
            s = _card_score(obs, sp, _action_type(sp, a), side, counts, color, holds_color,
                            danger, free, my_cards)
            if s > best_score:
                best, best_score = a, s
    for w in range(lay[C.L_NUM_WILD]):
        a = lay[C.L_WILD] + 4 * w + best_color
        if mask[a] != 0:
            s = _card_score(obs, sp, sp.wild_slot_type[w], side, counts, color, holds_color,
                            danger, free, my_cards)
            if s > best_score:
                best, best_score = a, s
    if phase == C.PHASE_DRAWN:
        # keep a drawn card that is being held back (a draw card or wild while the
        # next player is far from going out); play anything else
        if best >= 0 and best_score > 55.0:
            return best
        if mask[lay[C.L_PASS]] != 0:
            return lay[C.L_PASS]
    if best >= 0:
        return best
    if mask[lay[C.L_PASS]] != 0:    # decline a jump-in, end a multi-card play
        return lay[C.L_PASS]
    if mask[lay[C.L_ACCEPT]] != 0:  # a pending draw it will not stack onto
        return lay[C.L_ACCEPT]
    if mask[lay[C.L_DRAW]] != 0:
        return lay[C.L_DRAW]
    return _lowest_legal(mask)


# --- dispatch ---------------------------------------------------------------------------


@njit
def choose_action(kind, st, g, sp, mask, obs):
    """The action of the agent of type ``kind`` for the current decider of game ``g``
    (``mask`` is scratch space of the action-space size, ``obs`` float32 scratch of the
    observation size). -1 if the game is over."""
    if kind == AGENT_GREEDY or kind == AGENT_HEURISTIC:
        if legal_mask(st, g, sp, mask) == 0:
            return -1
        observe(st, g, sp, st.info[g, C.I_CURRENT], obs)
        if kind == AGENT_GREEDY:
            return greedy_policy(obs, mask, sp)
        return heuristic_policy(obs, mask, sp)
    # the random agent draws from the game's own stream
    return random_legal(st, g, sp, mask)


def policy_batch(kind, obs, mask, sp, out):
    """``out[b]``: the greedy (``kind`` AGENT_GREEDY) or heuristic policy's action for
    row ``b`` of ``obs[B, D]`` and ``mask[B, A]`` (the Python agents' ``act`` and
    ``act_batch``; the ``policy`` entry point of ``engine.entry``)."""
    for b in range(obs.shape[0]):
        if kind == AGENT_GREEDY:
            out[b] = greedy_policy(obs[b], mask[b], sp)
        else:
            out[b] = heuristic_policy(obs[b], mask[b], sp)
