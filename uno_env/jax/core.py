"""Classic UNO in pure JAX: the numba engine's classic variant (docs/rules.md section 2),
game for game by seed (docs/jax-identity.md).

    params = make_params("classic", num_players=4)
    state = init(params, seed_stream(seed, game_index))
    state = step(params, state, action)          # by state.current_player
    obs = observe(params, state, seat)           # float32[params.observation_size]

``init``, ``step`` and ``observe`` are pure functions of fixed-shape arrays: ``jax.jit``
them with ``params`` static (``jax.jit(step, static_argnums=0)``) and ``jax.vmap`` them
over games. Each mirrors the numba kernels it is named after (``engine/rounds.py``,
``engine/classic.py``, ``engine/turns.py``, ``engine/piles.py``, ``engine/plays.py``,
``engine/observe.py``) and draws from the same per-game stream in the same order
(``_rng.py``), so a game dealt from ``seed_stream(seed, i)`` is game ``i`` of ``seed``
in ``uno_env.simulate`` and ``uno_env.EverySeatBatch``. Work that happens in only some
games (a reshuffle, a new deal in a match) runs as a loop whose trip count is zero
elsewhere, so a vmapped batch pays for it only in the steps where some game needs it.

Action ids, the observation layout and the rewards are uno_env's own: they are read
from ``uno_env.rules.config.make_config`` when ``make_params`` builds the tables.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from uno_env.engine import codes as C
import uno_env.jax._rng as _rng
from uno_env.jax._rng import seed_stream  # noqa: F401  (part of this module's API)

#: the presets the JAX engine plays (the classic variant, docs/rules.md section 2)
SUPPORTED_PRESETS = ("classic", "teams")
#: rule flags of the classic variant that the JAX engine follows (docs/jax-identity.md)
_SUPPORTED_FLAGS = ("hand_size", "bluff", "uno_call", "scoring", "target_score",
                    "max_turns", "dealer", "reward", "settle_cut", "teams")
#: presets that stay with the numba engine, and why (named by the ValueError)
_NUMBA_ONLY = {
    "flip": "UNO Flip (double-sided cards, docs/rules.md 5)",
    "onepiece": "UNO One Piece (docs/rules.md 6)",
    "classic112": "the 112-card deck's Wild Shuffle Hands and Wild Customizable "
                  "(docs/rules.md 4)",
}


def supported_flags() -> tuple[str, ...]:
    """The rule flags ``make_params`` accepts (the classic variant's that need no new
    phase); every other flag is refused with a ValueError naming it."""
    return _SUPPORTED_FLAGS


class Params(NamedTuple):
    """A configuration: hashable, so it is a static argument of ``jax.jit``.

    ``make_params`` fixes the player count (``num_players`` seats, arrays of that
    size). ``table_params`` leaves it to the state: ``num_players`` is then the
    largest table the arrays hold (``any_players``), ``init`` takes the count (a
    traced int32 if you like), and one compiled program plays every table size."""

    preset: str
    num_players: int
    #: the rule flags given to ``make_params``, as sorted (name, value) pairs
    flags: tuple = ()
    #: the player count is ``State.num_players`` (2 .. ``num_players``), not static
    any_players: bool = False

    @property
    def num_actions(self) -> int:
        return _tables(self).num_actions

    @property
    def observation_size(self) -> int:
        return _tables(self).obs_size

    @property
    def config(self):
        """The ``uno_env.rules.config.Config`` of this configuration (the numba engine's)."""
        return _config(self)


def make_params(preset: str = "classic", num_players: int = 4, **flags) -> Params:
    """Validate a configuration for the JAX engine; ValueError naming an unsupported
    preset or flag (UNO Flip, One Piece, the 112-card deck and the house rules stay
    with the numba engine)."""
    if not isinstance(preset, str) or preset not in SUPPORTED_PRESETS:
        why = _NUMBA_ONLY.get(preset) if isinstance(preset, str) else None
        if why is None and isinstance(preset, str):
            from uno_env.rules import PRESETS
            if preset in PRESETS:
                why = f"house rules ({PRESETS[preset].variant} variant, docs/rules.md 3)"
        raise ValueError(
            f"the JAX engine does not support preset {preset!r}"
            + (f" ({why}: numba engine only)" if why else "")
            + f"; supported presets: {', '.join(SUPPORTED_PRESETS)}")
    unsupported = sorted(set(flags) - set(_SUPPORTED_FLAGS))
    if unsupported:
        raise ValueError(
            f"the JAX engine does not support rule flag(s) {', '.join(map(repr, unsupported))}"
            f" (numba engine only); supported flags: {', '.join(_SUPPORTED_FLAGS)}")
    from uno_env.rules.config import make_config
    cfg = make_config(preset, num_players, **flags)  # the engine's own validation
    if cfg.variant != "classic":
        raise ValueError(f"the JAX engine plays the classic variant only; "
                         f"{preset!r} with {flags} compiles {cfg.variant!r}")
    if cfg.rules.scoring not in ("winner", "penalty"):
        raise ValueError(f"the JAX engine does not support scoring={cfg.rules.scoring!r}; "
                         f"valid: 'winner', 'penalty'")
    params = Params(preset, cfg.num_players, tuple(sorted(flags.items())))
    hash(params)  # flags of unhashable values would break jax.jit's static argument
    return params


def table_params(preset: str = "classic", max_players: int | None = None,
                 **flags) -> Params:
    """A configuration whose player count is traced, not static: ``init(params, rng,
    num_players)`` deals a table of any size from 2 to ``max_players`` (default: the
    largest the preset and ``hand_size`` allow, 10 for classic, 4 for teams), so one
    compiled program plays them all (the identity tests compile one program a preset
    and flag group instead of one a player count).

    The cost (docs/jax.md): every table carries ``max_players`` seats. ``rewards``,
    ``points``, the hands and the scores are ``[max_players]`` arrays whose seats from
    ``num_players`` on stay zero; ``observe`` returns ``observation_size`` (the largest
    table's) floats: the ``num_players``-seat vector of ``make_params(preset,
    num_players)`` followed by zeros. A 2-player game in a 10-seat program does about
    the work of a 10-player one."""
    largest = None
    for players in ([max_players] if max_players is not None else range(10, 1, -1)):
        try:
            largest = make_params(preset, players, **flags)
            break
        except ValueError:
            if max_players is not None:
                raise
    if largest is None:  # no table size fits: the 2-player error names why
        make_params(preset, 2, **flags)
    return largest._replace(any_players=True)


@lru_cache(maxsize=64)
def _config(params: Params):
    from uno_env.rules.config import make_config
    return make_config(params.preset, params.num_players, **dict(params.flags))


def check_players(params: Params, num_players) -> None:
    """ValueError unless ``num_players`` (a Python int) is a table ``params`` plays:
    its own count, or with ``table_params`` 2 .. ``params.num_players`` seats that
    ``make_params(preset, num_players, **flags)`` accepts. A traced count is not
    checked (give a valid one)."""
    try:
        n = int(num_players)
    except TypeError:  # traced (jax's ConcretizationTypeError is a TypeError)
        return
    if not params.any_players:
        if n != params.num_players:
            raise ValueError(f"num_players={n} for a {params.num_players}-player "
                             f"configuration; use table_params for any table size")
        return
    if not 2 <= n <= params.num_players:
        raise ValueError(f"num_players must be 2 .. {params.num_players} for this "
                         f"table, got {n}")
    make_params(params.preset, n, **dict(params.flags))


class _Tables(NamedTuple):
    """Read-only numpy tables and ints of one configuration (constants in the traces)."""

    P: int                     # seats the arrays hold (the player count unless any_players)
    fixed: bool                # the player count is P (else State.num_players)
    K: int
    N: int
    num_actions: int
    obs_size: int
    layout: dict
    obs_at: dict
    hand_size: int
    bluff: bool
    uno_call: bool
    scoring: int
    target: int
    max_turns: int
    dealer: int
    reward: int
    settle_cut: bool
    teams: bool
    type_color: np.ndarray     # int32[K] colour of each type's face (NO_COLOR for wilds)
    type_rank: np.ndarray      # int32[K]
    type_points: np.ndarray    # int32[K]
    type_wild: np.ndarray      # bool[K]
    type_draw: np.ndarray      # int32[K]: cards the next player draws
    type_redo: np.ndarray      # bool[K]: goes back when turned up first
    deck: np.ndarray           # int32[N]: the unshuffled deck, type by type
    action_type: np.ndarray    # int32[A]: type a play/wild action plays (0 elsewhere)
    action_plays: np.ndarray   # bool[A]: a play or wild action
    action_slot: np.ndarray    # int32[A]: the colour slot a wild action names
    obs_by_players: np.ndarray  # int32[P + 1, fields]: obs_at of each table size
    loss_by_players: np.ndarray  # float32[P + 1]: a loser's win reward, -1/(players - 1)
    share_by_players: np.ndarray  # float32[P + 1, P + 1]: settle_cut's share of k leaders


@lru_cache(maxsize=64)
def _tables(params: Params) -> _Tables:
    cfg = _config(params)
    sp, rules, lay = cfg.spec, cfg.rules, cfg.layout
    face = sp.type_face[:, 0]
    rank = sp.face_rank[face].astype(np.int32)
    A = lay.size
    action_type = np.zeros(A, np.int32)
    action_plays = np.zeros(A, bool)
    action_slot = np.zeros(A, np.int32)
    for slot, t in enumerate(sp.play_slot_type):
        action_type[lay.PLAY + slot] = t
        action_plays[lay.PLAY + slot] = True
    for slot, t in enumerate(sp.wild_slot_type):
        for c in range(4):
            a = lay.WILD + 4 * slot + c
            action_type[a], action_plays[a], action_slot[a] = t, True, c
    draw = {C.DRAW2: 2, C.WILD4: 4}
    from uno_env.rules.config import FIRST_CARD_REDO
    from uno_env.engine.obs_layout import field_offsets
    sizes = [max(p, 2) for p in range(cfg.num_players + 1)]
    obs_by_players = np.stack([field_offsets(cfg.deck.num_types, p, rules)
                               for p in sizes]).astype(np.int32)
    loss = np.array([np.float32(-1.0 / (p - 1)) for p in sizes], np.float32)
    # (P / k - 1) / (P - 1) in float64 then float32, as engine/turns.settle_cut computes it
    share = np.array([[(p / max(k, 1) - 1.0) / (p - 1) for k in range(len(sizes))]
                      for p in sizes]).astype(np.float32)
    return _Tables(
        P=cfg.num_players, fixed=not params.any_players, K=cfg.deck.num_types, N=cfg.deck.num_cards, num_actions=A,
        obs_size=lay.obs_size,
        layout={name: int(getattr(lay, name)) for name in
                ("PLAY", "WILD", "DRAW", "PASS", "CHALLENGE", "ACCEPT", "UNO", "CATCH",
                 "COLOR")},
        obs_at={name: int(sp.obs_at[i]) for i, name in enumerate(C.OBS_FIELDS)},
        hand_size=rules.hand_size, bluff=bool(rules.bluff), uno_call=bool(rules.uno_call),
        scoring=int(sp.rules[C.R_SCORING]), target=rules.target_score,
        max_turns=rules.max_turns, dealer=rules.dealer, reward=int(sp.rules[C.R_REWARD]),
        settle_cut=bool(rules.settle_cut), teams=bool(rules.teams),
        type_color=sp.face_color[face].astype(np.int32), type_rank=rank,
        type_points=sp.face_points[face].astype(np.int32),
        type_wild=rank >= C.FIRST_WILD_RANK,
        type_draw=np.array([draw.get(int(r), 0) for r in rank], np.int32),
        type_redo=np.isin(rank, FIRST_CARD_REDO),
        deck=np.repeat(np.arange(len(face), dtype=np.int32), sp.type_count),
        action_type=action_type, action_plays=action_plays, action_slot=action_slot,
        obs_by_players=obs_by_players, loss_by_players=loss, share_by_players=share)


class State(NamedTuple):
    """One game (no batch axis; ``jax.vmap`` adds one). The first nine fields are the
    public ones of the interface; the others are internal (the numba state's ``info``
    slots of the same names, ``engine/codes.py``)."""

    current_player: jax.Array     # int32[]: the decider; -1 once the game is over
    legal_action_mask: jax.Array  # bool[A]: the decider's legal actions
    rewards: jax.Array            # float32[P]: this step's, by seat
    terminated: jax.Array         # bool[]: won (round, or match with target_score)
    truncated: jax.Array          # bool[]: max_turns reached
    winner: jax.Array             # int32[]: the match winner, -1 if none
    turns: jax.Array              # int32[]: turns of the round (as simulate reports)
    steps: jax.Array              # int32[]: decisions taken
    points: jax.Array             # int32[P]: as simulate reports them
    # --- internal ---
    seat: jax.Array               # int32[]: I_CURRENT (kept when the game ends)
    hands: jax.Array              # int32[P, K]
    hand_size: jax.Array          # int32[P]
    draw_pile: jax.Array          # int32[N], bottom first
    draw_len: jax.Array           # int32[]
    discard: jax.Array            # int32[N], bottom first
    discard_len: jax.Array        # int32[]
    discard_counts: jax.Array     # int32[K]
    direction: jax.Array          # int32[]: +1 / -1
    color: jax.Array              # int32[]: colour in force (NO_COLOR: none)
    phase: jax.Array              # int32[]: PHASE_*
    drawn_type: jax.Array         # int32[]
    uno_called: jax.Array         # int32[]
    catch_pending: jax.Array      # int32[]
    catchable: jax.Array          # int32[]
    w4_player: jax.Array          # int32[]
    w4_guilty: jax.Array          # bool[]
    pending_draw: jax.Array       # int32[]
    shown_to: jax.Array           # int32[]
    shown_by: jax.Array           # int32[]
    shown: jax.Array              # int32[K]
    scores: jax.Array             # int32[P]: match totals
    status: jax.Array             # int32[]: STATUS_*
    rng: jax.Array                # uint32[2]: the game's stream (hi, lo)
    num_players: jax.Array        # int32[]: the seats at the table (<= the arrays' P)


_I32 = jnp.int32


def _i(x):
    return jnp.asarray(x, _I32)


def _players(s: State, T: _Tables):
    """The player count: a Python int for a fixed table, else the state's (traced)."""
    return T.P if T.fixed else s.num_players


def _seated(s: State, T: _Tables):
    """bool[P]: the seats at the table (all of them for a fixed table)."""
    return jnp.arange(T.P, dtype=_I32) < _players(s, T)


# --- piles (engine/piles.py) ------------------------------------------------------------

#: most cards one step makes a seat draw (an innocent Wild Draw Four challenge: 4 + 2)
_MAX_DRAW = 6


def _take(s: State, T: _Tables, seat, count):
    """``seat`` takes ``count`` (<= _MAX_DRAW, <= draw_len) cards off the draw pile."""
    i = jnp.arange(_MAX_DRAW, dtype=_I32)
    pos = jnp.maximum(s.draw_len - 1 - i, 0)
    take = i < count
    types = s.draw_pile[pos]
    hands = s.hands.at[seat, types].add(take.astype(_I32))
    hand_size = s.hand_size.at[seat].add(count)
    last = jnp.where(count > 0, s.draw_pile[jnp.maximum(s.draw_len - count, 0)], -1)
    return s._replace(hands=hands, hand_size=hand_size, draw_len=s.draw_len - count), last


def _reshuffle(s: State, T: _Tables, active):
    """Where ``active`` (the draw pile is empty): the discard pile but its top becomes
    the draw pile, shuffled (engine ``piles.reshuffle`` with ``keep=1``, base 0)."""
    n = s.discard_len - 1
    do = active & (n > 0)
    idx = jnp.arange(T.N, dtype=_I32)
    below_n = idx < n
    pile = jnp.where(do & below_n, s.discard, s.draw_pile)
    counts = s.discard_counts.at[s.discard].add(-(do & below_n).astype(_I32))
    rng, pile = _rng.shuffle_prefix(s.rng, pile, jnp.where(do, n, 0))
    top = s.discard[jnp.maximum(n, 0)]
    return s._replace(
        draw_pile=pile, rng=rng, discard_counts=counts,
        discard=jnp.where(do, s.discard.at[0].set(top), s.discard),
        discard_len=jnp.where(do, 1, s.discard_len),
        draw_len=jnp.where(do, n, s.draw_len))


def _draw_cards(s: State, T: _Tables, seat, count):
    """``seat`` draws up to ``count`` cards, reshuffling at most once (engine
    ``piles.draw_cards``); returns (state, type of the last card drawn or -1)."""
    first = jnp.minimum(count, s.draw_len)
    s, last1 = _take(s, T, seat, first)
    rest = count - first
    s = _reshuffle(s, T, rest > 0)
    second = jnp.minimum(rest, s.draw_len)
    s, last2 = _take(s, T, seat, second)
    return s, jnp.where(second > 0, last2, last1)


def _to_discard(s: State, t, active):
    n = s.discard_len
    return s._replace(
        discard=jnp.where(active, s.discard.at[n].set(t), s.discard),
        discard_counts=s.discard_counts.at[t].add(active.astype(_I32)),
        discard_len=n + active.astype(_I32))


# --- plays (engine/plays.py) ----------------------------------------------------------------


def _holds_color(s: State, T: _Tables, seat, color):
    held = (s.hands[seat] > 0) & (jnp.asarray(T.type_color) == color)
    return ((color >= 0) & (color < 4)) & held.any()


def _top_rank(s: State, T: _Tables):
    return jnp.asarray(T.type_rank)[s.discard[jnp.maximum(s.discard_len - 1, 0)]]


def _may_play(s: State, T: _Tables, seat, t):
    rank = jnp.asarray(T.type_rank)[t]
    matches = (jnp.asarray(T.type_wild)[t] | (jnp.asarray(T.type_color)[t] == s.color)
               | (_top_rank(s, T) == rank))
    if T.bluff:
        return matches
    return matches & ((rank != C.WILD4) | ~_holds_color(s, T, seat, s.color))


def _legal_mask(s: State, T: _Tables):
    """The decider's legal actions (engine ``plays.official_legal_mask``); all False
    once the game is over."""
    lay = T.layout
    seat, phase = s.seat, s.phase
    ids = jnp.arange(T.num_actions, dtype=_I32)
    hand = s.hands[seat]
    wild = jnp.asarray(T.type_wild)
    # play phase: the held cards that match, the wilds (W4 restricted without bluff)
    matches = (jnp.asarray(T.type_color) == s.color) | (jnp.asarray(T.type_rank) == _top_rank(s, T))
    allowed = jnp.asarray(T.bluff) | ~_holds_color(s, T, seat, s.color)
    type_ok = (hand > 0) & jnp.where(wild, allowed | (jnp.asarray(T.type_rank) != C.WILD4),
                                     matches)
    plays_in_play = jnp.asarray(T.action_plays) & type_ok[jnp.asarray(T.action_type)]
    # drawn phase: only the card just drawn (every colour of a wild)
    plays_in_drawn = jnp.asarray(T.action_plays) & (jnp.asarray(T.action_type) == s.drawn_type)
    in_play, in_drawn = phase == C.PHASE_PLAY, phase == C.PHASE_DRAWN
    uno_rule = T.uno_call
    uno_ok = uno_rule & (s.hand_size[seat] == 2) & (s.uno_called != seat)
    mask = (in_play & plays_in_play) | (in_drawn & plays_in_drawn)
    mask = mask | (in_play & (ids == lay["DRAW"])) | (in_drawn & (ids == lay["PASS"]))
    mask = mask | ((ids == lay["UNO"]) & uno_ok & ((in_play & plays_in_play.any()) | in_drawn))
    in_color = phase == C.PHASE_COLOR
    mask = mask | (in_color & (ids >= lay["COLOR"]) & (ids < lay["COLOR"] + 4))
    in_chal = phase == C.PHASE_CHALLENGE
    mask = mask | (in_chal & ((ids == lay["CHALLENGE"]) | (ids == lay["ACCEPT"])))
    catch = uno_rule & (s.catchable >= 0) & (s.catchable != seat)
    mask = mask | ((ids == lay["CATCH"]) & catch & (phase <= C.PHASE_COLOR))
    return mask & (s.status == C.STATUS_PLAYING)


# --- rounds (engine/rounds.py) --------------------------------------------------------------


def _deal(s: State, T: _Tables, dealer, active):
    """Where ``active``: shuffle the whole deck, deal, turn up the first card and apply
    its effect (engine ``rounds.deal`` and ``start_round``); elsewhere ``s`` unchanged
    and its stream not advanced."""
    K, N = T.K, T.N
    P = _players(s, T)
    rng, pile = _rng.shuffle_prefix(s.rng, jnp.asarray(T.deck), jnp.where(active, N, 0))
    # one card at a time from the top, starting left of the dealer
    dealt = T.hand_size * P
    i = jnp.arange(T.hand_size * T.P, dtype=_I32)
    seats = (dealer + 1 + i % P) % P
    hands = jnp.zeros((T.P, K), _I32).at[seats, pile[N - 1 - i]].add(
        (i < dealt).astype(_I32))
    n = N - dealt

    # the first card: W4 goes back into the pile at a random place, until another shows
    def redo(c):
        n, pile, rng = c
        return active & jnp.asarray(T.type_redo)[pile[n - 1]]

    def put_back(c):
        n, pile, rng = c
        top = n - 1
        t = pile[top]
        rng, pos = _rng.below(rng, n)
        idx = jnp.arange(N, dtype=_I32)
        shifted = jnp.where((idx > pos) & (idx <= top), pile[jnp.maximum(idx - 1, 0)], pile)
        return n, shifted.at[pos].set(t), rng

    _, pile, rng = lax.while_loop(redo, put_back, (_i(n), pile, rng))
    t = pile[n - 1]
    new = s._replace(
        hands=hands, hand_size=jnp.where(_seated(s, T), T.hand_size, 0).astype(_I32),
        draw_pile=pile,
        draw_len=_i(n - 1), discard=jnp.zeros(N, _I32).at[0].set(t), discard_len=_i(1),
        discard_counts=jnp.zeros(K, _I32).at[t].set(1), direction=_i(1),
        drawn_type=_i(-1), uno_called=_i(-1), catch_pending=_i(-1), catchable=_i(-1),
        w4_player=_i(-1), w4_guilty=jnp.asarray(False), pending_draw=_i(0),
        shown_to=_i(-1), shown_by=_i(-1), shown=jnp.zeros(K, _I32), turns=_i(0),
        status=_i(C.STATUS_PLAYING), rng=rng)
    # start_round: the first card's effect
    rank = jnp.asarray(T.type_rank)[t]
    first = (dealer + 1) % P
    is_wild = rank >= C.FIRST_WILD_RANK
    is_rev = rank == C.REVERSE
    draws = jnp.where(rank == C.DRAW2, 2, 0)
    new, _ = _draw_cards(new, T, first, draws)
    seat = jnp.where(is_wild, first,
                     jnp.where((rank == C.SKIP) | (draws > 0), (dealer + 2) % P,
                               jnp.where(is_rev, dealer, first)))
    new = new._replace(
        color=jnp.where(is_wild, C.NO_COLOR, jnp.asarray(T.type_color)[t]),
        direction=jnp.where(is_rev, -1, 1),
        seat=_i(seat), phase=jnp.where(is_wild, C.PHASE_COLOR, C.PHASE_PLAY))
    return jax.tree.map(lambda a, b: jnp.where(active, a, b), new, s)


def _end_round(s: State, T: _Tables, winner, active):
    """Where ``active``: ``winner`` went out; score the round, end the match or deal
    the next round (engine ``rounds.end_round`` and ``_end_round_teams``)."""
    P = _players(s, T)
    seats = jnp.arange(T.P, dtype=_I32)
    seated = _seated(s, T)
    hand_pts = (s.hands * jnp.asarray(T.type_points)).sum(axis=1)
    rewards = s.rewards
    if T.teams:
        same = (seats - winner) % 2 == 0
        total = jnp.where(same, 0, hand_pts).sum()
        round_points = jnp.where(seats == winner, total, 0)
        if T.reward == C.REWARD_SCORE:
            rewards = jnp.where(seated, jnp.where(same, total, -total), 0).astype(
                jnp.float32)
    else:
        others = (seats != winner) & seated
        total = jnp.where(others, hand_pts, 0).sum()
        if T.scoring == C.SCORING_PENALTY:
            round_points = jnp.where(others, hand_pts, 0)
        else:
            round_points = jnp.where(seats == winner, total, 0)
        if T.reward == C.REWARD_SCORE:
            rewards = jnp.where(others, -hand_pts, jnp.where(seated, total, 0)).astype(
                jnp.float32)
    scores = s.scores
    if T.target == 0:
        match_winner = winner
    else:
        scores = scores + round_points
        if T.teams:
            match_winner = jnp.where(scores[winner] + scores[(winner + 2) % 4] >= T.target,
                                     winner, -1)
        elif T.scoring == C.SCORING_WINNER:
            match_winner = jnp.where(scores[winner] >= T.target, winner, -1)
        else:  # the lowest total wins (ties: the lower seat)
            lowest = jnp.argmin(jnp.where(seated, scores, jnp.iinfo(np.int32).max))
            match_winner = jnp.where((scores >= T.target).any(), lowest, -1)
    over = match_winner >= 0
    if T.reward == C.REWARD_WIN:
        if T.teams:
            win = jnp.where((seats - winner) % 2 == 0, 1.0, -1.0)
        else:
            loss = (np.float32(-1.0 / (P - 1)) if T.fixed
                    else jnp.asarray(T.loss_by_players)[P])
            win = jnp.where(seats == match_winner, 1.0, jnp.where(seated, loss, 0.0))
        rewards = jnp.where(over, win.astype(jnp.float32), rewards)
    points = scores if T.target > 0 else round_points
    new = s._replace(
        rewards=rewards, scores=scores, points=_i(points),
        winner=jnp.where(over, _i(match_winner), s.winner),
        status=jnp.where(over, C.STATUS_OVER, s.status),
        phase=jnp.where(over, C.PHASE_OVER, s.phase))
    new = jax.tree.map(lambda a, b: jnp.where(active, a, b), new, s)
    if T.target > 0:  # a match: the round's winner deals the next round
        new = _deal(new, T, winner, active & ~over)
    return new


def _settle_cut(s: State, T: _Tables):
    """``settle_cut=True``: the rewards of a round cut by ``max_turns``, by each seat's
    standing (engine ``turns.settle_cut``, docs/rules.md 7): the fewest cards share the
    win (``reward="win"``), or each pair of seats settles the difference of their
    points in hand (``"score"``); teams by the team's total."""
    P = _players(s, T)
    seats = jnp.arange(T.P, dtype=_I32)
    seated = _seated(s, T)
    score = T.reward == C.REWARD_SCORE
    if score:
        stand = (s.hands * jnp.asarray(T.type_points)).sum(axis=1)
    else:
        stand = s.hand_size
    if T.teams:
        even, odd = stand[0] + stand[2], stand[1] + stand[3]
        value = ((odd - even).astype(jnp.float32) if score else
                 jnp.where(even < odd, 1.0, jnp.where(even > odd, -1.0, 0.0)))
        return jnp.where(seats % 2 == 0, value, -value).astype(jnp.float32)
    if score:
        total = jnp.where(seated, stand, 0).sum()
        return jnp.where(seated, total - P * stand, 0).astype(jnp.float32)
    low = jnp.where(seated, stand, jnp.iinfo(np.int32).max).min()
    lead = seated & (stand == low)
    share = jnp.asarray(T.share_by_players)[P, lead.sum()]
    loss = jnp.asarray(T.loss_by_players)[P]
    return jnp.where(lead, share, jnp.where(seated, loss, 0.0)).astype(jnp.float32)


def _finalize(s: State, T: _Tables) -> State:
    """The public fields derived from the internal ones."""
    over = s.status != C.STATUS_PLAYING
    return s._replace(
        current_player=jnp.where(over, -1, s.seat),
        legal_action_mask=_legal_mask(s, T),
        terminated=s.status == C.STATUS_OVER,
        truncated=s.status == C.STATUS_TRUNCATED)


def init(params: Params, rng, num_players=None) -> State:
    """A new game (a match with ``target_score``) dealt from ``rng`` (``seed_stream``):
    the numba engine's ``reset_game``. ``num_players``: the table's size, required by a
    ``table_params`` configuration (an int, or a traced int32 of 2 .. its
    ``num_players``), else ``params.num_players`` if given."""
    T = _tables(params)
    P, K, N = T.P, T.K, T.N
    if num_players is None:
        if not T.fixed:
            raise ValueError("init of a table_params configuration needs num_players "
                             f"(2 .. {P})")
        num_players = P
    check_players(params, num_players)
    s = State(
        current_player=_i(0), legal_action_mask=jnp.zeros(T.num_actions, bool),
        rewards=jnp.zeros(P, jnp.float32), terminated=jnp.asarray(False),
        truncated=jnp.asarray(False), winner=_i(-1), turns=_i(0), steps=_i(0),
        points=jnp.zeros(P, _I32), seat=_i(0), hands=jnp.zeros((P, K), _I32),
        hand_size=jnp.zeros(P, _I32), draw_pile=jnp.zeros(N, _I32), draw_len=_i(0),
        discard=jnp.zeros(N, _I32), discard_len=_i(0), discard_counts=jnp.zeros(K, _I32),
        direction=_i(1), color=_i(C.NO_COLOR), phase=_i(C.PHASE_PLAY), drawn_type=_i(-1),
        uno_called=_i(-1), catch_pending=_i(-1), catchable=_i(-1), w4_player=_i(-1),
        w4_guilty=jnp.asarray(False), pending_draw=_i(0), shown_to=_i(-1), shown_by=_i(-1),
        shown=jnp.zeros(K, _I32), scores=jnp.zeros(P, _I32), status=_i(C.STATUS_PLAYING),
        rng=jnp.asarray(rng, jnp.uint32), num_players=_i(num_players))
    s = _deal(s, T, _i(T.dealer), jnp.asarray(True))
    return _finalize(s, T)


# --- a decision (engine/classic.py, engine/turns.py) ------------------------------------------


def _apply(s: State, T: _Tables, action) -> State:
    lay = T.layout
    P = _players(s, T)
    seat, phase = s.seat, s.phase
    action = _i(action)
    # common_move: catch, uno and naming a first card's colour; every other move closes
    # the chance to catch
    is_catch = action == lay["CATCH"]
    is_uno = action == lay["UNO"]
    common = is_catch | is_uno
    is_color = ~common & (phase == C.PHASE_COLOR)
    is_chal = ~common & (phase == C.PHASE_CHALLENGE)
    rest = ~common & ~is_color & ~is_chal
    is_draw = rest & (action == lay["DRAW"])
    is_pass = rest & (action == lay["PASS"])
    is_play = rest & ~is_draw & ~is_pass
    offender = jnp.maximum(s.catchable, 0)
    s = s._replace(rewards=jnp.zeros(T.P, jnp.float32), catchable=_i(-1),
                   uno_called=jnp.where(is_uno, seat, s.uno_called))

    # a card played: judged (W4 guilt) on the hand as played, then discarded
    t = jnp.asarray(T.action_type)[action]
    rank = jnp.asarray(T.type_rank)[t]
    prev_color = s.color
    guilty = (rank == C.WILD4) & _holds_color(s, T, seat, prev_color)
    s = s._replace(
        hands=s.hands.at[seat, t].add(-is_play.astype(_I32)),
        hand_size=s.hand_size.at[seat].add(-is_play.astype(_I32)))
    s = _to_discard(s, t, is_play)
    played_color = jnp.where(jnp.asarray(T.type_wild)[t], jnp.asarray(T.action_slot)[action],
                             jnp.asarray(T.type_color)[t])
    s = s._replace(color=jnp.where(is_play, played_color, s.color))
    nxt = (seat + s.direction) % P
    going_out = is_play & (s.hand_size[seat] == 0)
    challengeable = (rank == C.WILD4) & T.bluff & ~going_out
    play_draw = jnp.where(challengeable, 0, jnp.asarray(T.type_draw)[t])

    # a Wild Draw Four answered: a challenge shows the player's hand (before its draw)
    challenge = is_chal & (action == lay["CHALLENGE"])
    w4_guilty = s.w4_guilty
    s = s._replace(
        shown_to=jnp.where(challenge, seat, s.shown_to),
        shown_by=jnp.where(challenge, s.w4_player, s.shown_by),
        shown=jnp.where(challenge, s.hands[jnp.maximum(s.w4_player, 0)], s.shown))
    payer = jnp.where(challenge & w4_guilty, s.w4_player, seat)
    chal_draw = s.pending_draw + jnp.where(challenge & ~w4_guilty, 2, 0)
    s = s._replace(pending_draw=jnp.where(is_chal, 0, s.pending_draw))

    # the one draw of this decision
    draw_seat = jnp.where(is_catch, offender, jnp.where(is_chal, payer,
                                                        jnp.where(is_play, nxt, seat)))
    count = jnp.where(is_catch, 2, jnp.where(is_chal, chal_draw, jnp.where(
        is_draw, 1, jnp.where(is_play, play_draw, 0))))
    s, last = _draw_cards(s, T, draw_seat, count)

    # draw-then-play: the drawn card, if playable, may be played at once (or passed)
    keeps = is_draw & (last >= 0) & _may_play(s, T, seat, jnp.maximum(last, 0))
    s = s._replace(drawn_type=jnp.where(keeps, last, s.drawn_type),
                   phase=jnp.where(keeps, C.PHASE_DRAWN, s.phase))

    # a play that leaves one card without a call can be caught after the turn
    plays_on = is_play & ~going_out
    s = s._replace(catch_pending=jnp.where(
        plays_on & (s.hand_size[seat] == 1) & T.uno_call & (s.uno_called != seat),
        seat, s.catch_pending))
    # who decides next after a play
    is_rev = rank == C.REVERSE
    s = s._replace(direction=jnp.where(plays_on & is_rev, -s.direction, s.direction))
    after2 = (seat + 2 * s.direction) % P   # (the direction is unchanged unless reversed)
    play_target = jnp.where(rank == C.SKIP, after2, jnp.where(
        is_rev, jnp.where(P == 2, seat, (seat + s.direction) % P),
        jnp.where(challengeable, nxt, jnp.where(play_draw > 0, after2, nxt))))
    play_phase = jnp.where(challengeable, C.PHASE_CHALLENGE, C.PHASE_PLAY)
    s = s._replace(
        w4_player=jnp.where(plays_on & challengeable, seat, s.w4_player),
        w4_guilty=jnp.where(plays_on & challengeable, guilty, s.w4_guilty))

    # finish_turn: a pass, a draw kept back, a play that does not go out
    ends = is_pass | (is_draw & ~keeps) | plays_on
    turns = s.turns + ends.astype(_I32)
    caught_next = ends & (s.catch_pending == seat) & (s.hand_size[seat] == 1)
    truncated = ends & (turns >= T.max_turns)
    s = s._replace(
        turns=turns,
        shown_to=jnp.where(ends & (s.shown_to == seat), -1, s.shown_to),
        catchable=jnp.where(caught_next, seat, s.catchable),
        catch_pending=jnp.where(ends, -1, s.catch_pending),
        uno_called=jnp.where(ends, -1, s.uno_called),
        drawn_type=jnp.where(ends, -1, s.drawn_type),
        status=jnp.where(truncated, C.STATUS_TRUNCATED, s.status),
        phase=jnp.where(truncated, C.PHASE_OVER, s.phase),
        pending_draw=jnp.where(plays_on & ~truncated & challengeable, 4, s.pending_draw))
    if T.settle_cut:
        s = s._replace(rewards=jnp.where(truncated, _settle_cut(s, T), s.rewards))

    # begin_decision
    chal_target = jnp.where(challenge & w4_guilty, seat, (seat + s.direction) % P)
    begins = (ends & ~truncated) | is_chal | is_color
    target = jnp.where(plays_on, play_target, jnp.where(
        is_chal, chal_target, jnp.where(is_color, seat, nxt)))
    new_phase = jnp.where(plays_on, play_phase, C.PHASE_PLAY)
    s = s._replace(
        seat=jnp.where(begins, target, s.seat),
        phase=jnp.where(begins, new_phase, s.phase),
        catchable=jnp.where(begins & (s.catchable == target), -1, s.catchable),
        color=jnp.where(is_color, action - lay["COLOR"], s.color))

    # go_out: the round ends at once, counting as the end of a turn
    s = s._replace(turns=s.turns + going_out.astype(_I32),
                   uno_called=jnp.where(going_out, -1, s.uno_called),
                   drawn_type=jnp.where(going_out, -1, s.drawn_type))
    return _end_round(s, T, seat, going_out)


def step(params: Params, state: State, action) -> State:
    """Apply ``action`` (a legal action id of ``state.current_player``). A finished
    game comes back unchanged, with its rewards zeroed."""
    T = _tables(params)
    playing = state.status == C.STATUS_PLAYING
    new = _apply(state, T, action)
    new = _finalize(new._replace(steps=new.steps + 1), T)
    done = state._replace(rewards=jnp.zeros(T.P, jnp.float32))
    return jax.tree.map(lambda a, b: jnp.where(playing, a, b), new, done)


# --- the observation (engine/observe.py) ------------------------------------------------------


def _put(out, start, values, count=None):
    """``out`` with ``values`` written from ``start`` (the first ``count`` of them, all
    if None); a static slice when ``start`` and ``count`` are Python ints."""
    n = values.shape[0]
    if count is None:
        count = n
    if isinstance(start, int) and isinstance(count, int):
        return out.at[start:start + count].set(values[:count])
    lane = jnp.arange(n, dtype=_I32)
    idx = jnp.where(lane < count, start + lane, out.shape[0])   # past the end: dropped
    return out.at[idx].set(values, mode="drop")


def observe(params: Params, state: State, seat) -> jax.Array:
    """``seat``'s observation: float32[observation_size], the vector ``EverySeatBatch``
    gives that seat (layout: engine/observe.py). With ``table_params``, the vector of
    the state's table size followed by zeros up to the largest table's size."""
    T = _tables(params)
    s = state
    K = T.K
    P = _players(s, T)
    if T.fixed:
        at = T.obs_at
    else:
        row = jnp.asarray(T.obs_by_players)[P]
        at = {name: row[i] for i, name in enumerate(C.OBS_FIELDS)}
    seat = _i(seat)
    out = jnp.zeros(T.obs_size, jnp.float32)
    f32 = jnp.float32
    out = _put(out, at["hand"], s.hands[seat].astype(f32))
    out = _put(out, at["played"], s.discard_counts.astype(f32))
    top = s.discard[jnp.maximum(s.discard_len - 1, 0)]
    out = out.at[at["top"] + top].add(jnp.where(s.discard_len > 0, 1.0, 0.0))
    out = out.at[at["color"] + s.color % 4].add(jnp.where(s.color != C.NO_COLOR, 1.0, 0.0))
    out = out.at[at["direction"]].set(jnp.where(s.direction > 0, 1.0, 0.0))
    out = out.at[at["phase"] + s.phase].set(1.0)
    out = out.at[at["pending_draw"]].set(s.pending_draw.astype(f32))
    rel = (seat + jnp.arange(T.P, dtype=_I32)) % P
    out = _put(out, at["scores"], s.scores[rel].astype(f32), P)
    out = _put(out, at["opponent_cards"], s.hand_size[rel[1:]].astype(f32), P - 1)
    out = out.at[at["catchable"] + (s.catchable - seat) % P].add(
        jnp.where(s.catchable >= 0, 1.0, 0.0))
    out = out.at[at["uno_called"]].set(jnp.where(s.uno_called == seat, 1.0, 0.0))
    out = out.at[at["draw_pile"]].set(s.draw_len.astype(f32))
    if T.obs_at["shown_hand"] >= 0:
        shown = s.shown_to == seat
        out = _put(out, at["shown_hand"], jnp.where(shown, s.shown, 0).astype(f32))
        out = out.at[at["shown_by"] + (s.shown_by - seat) % P].add(
            jnp.where(shown, 1.0, 0.0))
    return out
