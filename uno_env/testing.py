"""The engine's contract, checked on random games of any configuration: run it on a
preset or rule flag you add (the idea of pgx's ``api_test``, applied to this engine).

    >>> from uno_env.testing import check_contract
    >>> report = check_contract("classic", 2, games=4, seed=0)
    >>> report.decisions > 0 and report.finished == 4
    True

``check_contract(preset, num_players, games, seed, **rules)`` runs every check below on
one configuration; each is also a function of its own, for a pytest parametrisation.
A broken contract raises ``AssertionError`` whose message names the configuration, the
seed, the game (the slot, or the game index of the seed) and the step.

* ``check_random_play``: random games batched through ``EverySeatBatch`` (random legal
  actions drawn in numpy from the masks; finished games stay finished). After the deal
  and after every step, for every game: each card of the deck is in exactly one place
  (hands + draw pile + discard pile = the deck's copies of each type; UNO Flip: the
  match's dark faces are the deck's), ``hand_size`` and ``discard_counts`` agree with
  the contents, no count is negative, the decider is a seat, a pending draw is held only
  in the phases that hold one, a live game has a legal action and a finished one none,
  the observation is finite and inside ``observation_space``. On every
  ``mask_every``-th step the ``GameOps.legal_mask`` count equals the mask's entries. On
  every ``hidden_every``-th step one game is copied into a ``Game``: its observation
  and mask equal ``EverySeatBatch``'s, and exchanging an opponent's card with a draw-pile
  card (same visible back with Flip), permuting the draw pile (below its visible top
  card with Flip) leaves the decider's observation and mask unchanged; with Flip,
  changing the back an opponent shows does change it. A finished game has a winner
  with an empty hand, zero-sum rewards as ``reward`` defines them and round points as
  docs/rules.md 2 defines them, or was truncated at ``max_turns`` with zero rewards.
* ``check_vector_matches_game``: each ``EverySeatBatch`` game, replayed action by action
  through ``Game.reset(seed, index)``, ends in the same state.
* ``check_vector_batch_size``: a smaller ``EverySeatBatch`` dealing a later part of the
  games and fed the same actions ends in the same states.
* ``check_simulate_matches_game``: ``simulate``'s random-agent game ``i`` is game ``i``
  of ``Game`` played by the same agent (``GameOps.random_legal``): steps, turns,
  winner, points and counters.
* ``check_simulate_independence``: ``simulate`` gives the same games on 1 thread and
  on 2, and run whole or split in parts (other chunk sizes) with ``first_game``.

Everything runs through the engine's cached entry points (``engine/entry.py``), so
after ``uno_env.apps.warmup.warmup()`` the checks compile nothing.

For many games, ``soak`` plays ``simulate``'s games inside numba with the state
invariants above checked after the deal and after every step (the ``soak`` entry
point, ``uno_env.engine.soak``; it compiles on its first use, and ``warmup`` does not
compile it), and ``soak_check`` runs those checks on one ``Game``'s position.
``benchmarks/soak.py`` runs ``soak`` on every preset.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numba
import numpy as np

from uno_env.rules.config import Config, make_config
from uno_env.engine import codes as C
from uno_env.engine import soak as soak_kernel
from uno_env.engine.entry import GameOps, kernels
from uno_env.engine.names import AGENT_CODES, AGENT_GREEDY, AGENT_HEURISTIC
from uno_env.engine.state import allocate
from uno_env.engine.tallies import recount_state
from uno_env.envs.game import Game
from uno_env.rules import check_seed
from uno_env.evaluation.simulation import simulate
from uno_env.envs.every_seat import EverySeatBatch

__all__ = ["ContractReport", "check_contract", "check_random_play",
           "check_vector_matches_game", "check_vector_batch_size",
           "check_simulate_matches_game", "check_simulate_independence",
           "SoakReport", "soak", "soak_check"]

#: phases in which a total to draw may be pending (answered, held back by a jump-in
#: window, or grown by a multi-card play; docs/rules.md 3)
PENDING_PHASES = (C.PHASE_STACK, C.PHASE_CHALLENGE, C.PHASE_JUMP_IN, C.PHASE_MULTI)

#: the numba agents of the ``policy`` entry point
_POLICIES = {"greedy": AGENT_GREEDY, "heuristic": AGENT_HEURISTIC}


@dataclass
class ContractReport:
    """What ``check_random_play`` (and ``check_contract``) checked."""

    preset: str
    num_players: int
    seed: int
    rules: dict
    games: int = 0
    decisions: int = 0          # steps of live games, each checked
    finished: int = 0           # games that ended (terminated or truncated)
    truncated: int = 0
    mask_checks: int = 0        # GameOps.legal_mask counts compared with the mask
    hidden_checks: int = 0      # positions whose hidden cards were changed
    agent: str = "random"
    first_game: int = 0
    phases: set = field(default_factory=set)  # phase names reached
    sides: set = field(default_factory=set)   # "light", "dark" (UNO Flip)
    #: per slot, the actions played in it (for the replays)
    actions: list = field(default_factory=list, repr=False)
    game_index: np.ndarray = field(default=None, repr=False)


def _where(cfg: Config, seed: int, rules: dict) -> str:
    flags = "".join(f", {k}={v!r}" for k, v in rules.items())
    return f"{cfg.preset}{flags}, {cfg.num_players} players, seed {seed}"


def _pile_counts(pile: np.ndarray, length: np.ndarray, k: int) -> np.ndarray:
    """int[B, K]: copies of each type in the first ``length[b]`` slots of ``pile[b]``."""
    b, n = pile.shape
    valid = np.arange(n)[None, :] < length[:, None]
    rows = np.broadcast_to(np.arange(b)[:, None], (b, n))
    idx = rows[valid] * k + pile[valid].astype(np.int64)
    return np.bincount(idx, minlength=b * k).reshape(b, k)


def _faces(cfg: Config, st, g: int) -> np.ndarray:
    """Face id of each card type on the side in play of game ``g``."""
    if cfg.deck.double_sided and st.info[g, C.I_SIDE] == 1:
        return st.dark_face[g].astype(np.int64)
    return cfg.deck.type_face[:, 0].astype(np.int64)


def _visible_backs(cfg: Config, st, g: int) -> np.ndarray:
    """UNO Flip: the face of each type that the other players see (docs/rules.md 5)."""
    if st.info[g, C.I_SIDE] == 0:
        return st.dark_face[g].astype(np.int64)
    return cfg.deck.type_face[:, 0].astype(np.int64)


# --- the state of every game ------------------------------------------------------------
def _check_cards(cfg: Config, st, where: str) -> None:
    """Every card in exactly one place, sizes and public counts agreeing."""
    deck = cfg.deck
    k, total = deck.num_types, deck.num_cards
    hands = st.hands.astype(np.int64)
    draw_len, disc_len = st.info[:, C.I_DRAW_LEN], st.info[:, C.I_DISCARD_LEN]

    def fail(g, what):
        raise AssertionError(f"{where}, game {g}: {what}")

    neg = np.flatnonzero((hands < 0).any(axis=(1, 2)))
    if len(neg):
        fail(neg[0], f"a negative hand count: {hands[neg[0]].min(axis=1)}")
    bad = np.flatnonzero((draw_len < 0) | (draw_len > total) | (disc_len < 1)
                         | (disc_len > total))
    if len(bad):
        fail(bad[0], f"pile lengths out of range: draw {draw_len[bad[0]]}, discard "
                     f"{disc_len[bad[0]]}")
    sizes = hands.sum(axis=2)
    bad = np.flatnonzero((sizes != st.hand_size).any(axis=1))
    if len(bad):
        fail(bad[0], f"hand_size {st.hand_size[bad[0]]} != the counts' sums {sizes[bad[0]]}")
    discard = _pile_counts(st.discard, disc_len, k)
    bad = np.flatnonzero((discard != st.discard_counts).any(axis=1))
    if len(bad):
        fail(bad[0], "discard_counts differ from the discard pile's contents")
    counts = hands.sum(axis=1) + _pile_counts(st.draw_pile, draw_len, k) + discard
    bad = np.flatnonzero((counts != deck.type_count[None, :]).any(axis=1))
    if len(bad):
        row = counts[bad[0]]
        wrong = {deck.type_name(t): (int(row[t]), int(deck.type_count[t]))
                 for t in np.flatnonzero(row != deck.type_count)}
        fail(bad[0], f"the deck is not whole (type: (counted, in the deck)): {wrong}")
    if deck.double_sided:
        dark = np.sort(deck.type_face[:, 1])
        bad = [g for g in range(len(st.info)) if not np.array_equal(
            np.sort(st.dark_face[g]), dark)]
        if bad:
            fail(bad[0], "the dark faces of the match are not the deck's dark faces")


def _check_decisions(cfg: Config, venv: EverySeatBatch, obs, mask, player, where: str) -> None:
    """Deciders, pending draws, masks and observations of every game."""
    st = venv.engine_state
    live = st.info[:, C.I_STATUS] == C.STATUS_PLAYING
    legal = mask.astype(np.int64).sum(axis=1)
    n = cfg.num_players
    for g in np.flatnonzero(live):
        cur = st.info[g, C.I_CURRENT]
        if not 0 <= cur < n or player[g] != cur:
            raise AssertionError(f"{where}, game {g}: decider {cur}, player {player[g]}")
        if legal[g] == 0:
            raise AssertionError(f"{where}, game {g}: playing with no legal action (phase "
                                 f"{C.PHASE_NAMES[st.info[g, C.I_PHASE]]})")
        pend, phase = st.info[g, C.I_PENDING_DRAW], st.info[g, C.I_PHASE]
        if pend < 0 or (pend > 0 and phase not in PENDING_PHASES):
            raise AssertionError(f"{where}, game {g}: pending draw {pend} in phase "
                                 f"{C.PHASE_NAMES[phase]}")
    done = np.flatnonzero(~live & (legal > 0))
    if len(done):
        raise AssertionError(f"{where}, game {done[0]}: finished with legal actions")
    space = venv.observation_space
    bad = np.flatnonzero(~np.isfinite(obs).all(axis=1)
                         | (obs < space.low).any(axis=1) | (obs > space.high).any(axis=1))
    if len(bad):
        g = bad[0]
        out = np.flatnonzero(~np.isfinite(obs[g]) | (obs[g] < space.low)
                             | (obs[g] > space.high))
        raise AssertionError(f"{where}, game {g}: observation entries {out[:8].tolist()} "
                             f"= {obs[g, out[:8]].tolist()} not finite or outside "
                             f"observation_space")


def _check_finished(cfg: Config, st, games, where: str) -> None:
    """Games that have just ended: winner, rewards, round points (docs/rules.md 2)."""
    rules, n = cfg.rules, cfg.num_players
    for g in games:
        info, rewards = st.info[g], st.rewards[g].astype(np.float64)
        at = f"{where}, game {g}"
        assert info[C.I_PHASE] == C.PHASE_OVER, \
            f"{at}: over but in phase {C.PHASE_NAMES[info[C.I_PHASE]]}"
        if info[C.I_STATUS] == C.STATUS_TRUNCATED:
            assert info[C.I_TURNS] >= rules.max_turns, \
                f"{at}: truncated after {info[C.I_TURNS]} turns (max_turns {rules.max_turns})"
            assert info[C.I_MATCH_WINNER] == -1 and (rewards == 0).all(), \
                f"{at}: truncated with a winner or rewards {rewards}"
            continue
        assert info[C.I_STATUS] == C.STATUS_OVER, f"{at}: status {info[C.I_STATUS]}"
        w = int(info[C.I_MATCH_WINNER])
        assert 0 <= w < n, f"{at}: match winner {w}"
        assert abs(rewards.sum()) < 1e-3, f"{at}: rewards {rewards} are not zero-sum"
        if rules.scoring == "elimination":  # docs/rules.md 6.5: the lowest total wins
            assert st.scores[g, w] == st.scores[g].min(), \
                f"{at}: winner {w} without the lowest total {st.scores[g]}"
            continue
        rw = int(info[C.I_WINNER])
        assert 0 <= rw < n and (rules.target_score > 0 or rw == w), \
            f"{at}: round winner {rw}, match winner {w}"
        assert st.hand_size[g, rw] == 0, f"{at}: the winner {rw} holds cards"
        assert (st.hand_size[g] == 0).sum() == 1, \
            f"{at}: several empty hands {st.hand_size[g]}"
        points = st.hands[g].astype(np.int64) @ cfg.deck.face_points[_faces(cfg, st, g)]
        if rules.teams:
            losers = (np.arange(n) - rw) % 2 == 1
        else:
            losers = np.arange(n) != rw
        expect = np.zeros(n, np.int64)
        if rules.scoring == "penalty":
            expect[losers] = points[losers]
        else:
            expect[rw] = points[losers].sum()
        assert (st.round_points[g] == expect).all(), \
            f"{at}: round points {st.round_points[g]}, expected {expect} (hands {points})"
        total = float(points[losers].sum())
        if rules.reward == "win" and rules.teams:
            want = np.where(losers, -1.0, 1.0)
        elif rules.reward == "win":
            want = np.full(n, -1.0 / (n - 1))
            want[w] = 1.0
        elif rules.teams:                   # "score": the round's points, shared
            want = np.where(losers, -total, total)
        else:
            want = np.where(losers, -points, 0.0)
            want[rw] = total
        assert np.allclose(rewards, want, atol=1e-6), \
            f"{at}: rewards {rewards}, expected {want} (reward={rules.reward!r})"


# --- hidden information -------------------------------------------------------------------
def _copy_into(game: Game, st, g: int) -> None:
    for name in st._fields:
        getattr(game.engine_state, name)[0] = getattr(st, name)[g]
    game.refresh()


def _exchange(st, q: int, tp: int, i: int) -> int:
    """Exchange one ``tp`` of hand ``q`` with draw-pile slot ``i``; returns the type
    that came into the hand."""
    tu = int(st.draw_pile[0, i])
    st.hands[0, q, tp] -= 1
    st.hands[0, q, tu] += 1
    st.draw_pile[0, i] = tp
    return tu


def _check_hidden(cfg: Config, game: Game, obs, mask, rng, where: str) -> int:
    """``game`` holds a copy of a position whose decider saw ``obs`` and ``mask``.
    Changes what the decider cannot see; returns 1 if something could be changed."""
    seat = game.current_player
    flip = cfg.deck.double_sided
    assert np.array_equal(game.observe(seat), obs), \
        f"{where}: Game.observe differs from EverySeatBatch's observation of the same state"
    assert np.array_equal(game.action_mask(), mask), \
        f"{where}: Game's mask differs from EverySeatBatch's for the same state"
    moves = game.legal_moves()
    assert len(set(moves)) == len(moves) == int(mask.sum()), \
        f"{where}: the legal moves' names are not one per legal action: {moves}"
    st = game.engine_state
    n = int(st.info[0, C.I_DRAW_LEN])
    hidden = n - 1 if flip else n          # Flip: the top card's back is public
    others = [q for q in range(cfg.num_players) if q != seat and st.hand_size[0, q] > 0]
    if hidden < 2 or not others:
        return 0
    st.draw_pile[0, :hidden] = rng.permutation(st.draw_pile[0, :hidden])
    q = int(rng.choice(others))
    backs = _visible_backs(cfg, st, 0) if flip else None
    changed = False
    for tp in rng.permutation(np.flatnonzero(st.hands[0, q])):
        pile = st.draw_pile[0, :hidden]
        same = (pile != tp) & ((backs[pile] == backs[tp]) if flip else True)
        if same.any():
            _exchange(st, q, int(tp), int(rng.choice(np.flatnonzero(same))))
            changed = True
            break
    recount_state(st, 0, cfg.spec)
    game.refresh()
    assert np.array_equal(game.observe(seat), obs), \
        f"{where}: the decider's observation changed when hidden cards changed " \
        f"(player {q}'s hand and the draw pile)"
    assert np.array_equal(game.action_mask(), mask), \
        f"{where}: the decider's legal actions changed when hidden cards changed"
    if flip:  # the back an opponent shows is public: changing it shows
        tp = int(np.flatnonzero(st.hands[0, q])[0])
        pile = st.draw_pile[0, :hidden]
        other = np.flatnonzero(backs[pile] != backs[tp])
        if len(other):
            _exchange(st, q, tp, int(other[0]))
            recount_state(st, 0, cfg.spec)
            game.refresh()
            assert not np.array_equal(game.observe(seat), obs), \
                f"{where}: player {q} shows another back, the observation is unchanged"
    return int(changed)


# --- the checks -------------------------------------------------------------------------
def check_random_play(preset: str = "classic", num_players: int = 4, games: int = 16,
                      seed: int = 0, mask_every: int = 1, hidden_every: int = 5,
                      agent: str = "random", first_game: int = 0,
                      **rules) -> ContractReport:
    """Play games ``first_game .. first_game + games - 1`` of ``seed`` through one
    ``EverySeatBatch`` and check the state of every game after every step (see the module
    docstring). ``agent``: "random" (uniform legal actions drawn in numpy, seeded), or
    "greedy"/"heuristic" in every seat (the ``policy`` entry point; its every choice
    must be legal). Returns what was checked, with the actions played in each slot."""
    cfg = make_config(preset, num_players, **rules)
    base = _where(cfg, seed, rules) + ("" if agent == "random" else f", {agent} agents")
    if agent not in ("random",) + tuple(_POLICIES):
        raise ValueError(f"agent must be one of random, {', '.join(_POLICIES)}; got "
                         f"{agent!r}")
    venv = EverySeatBatch(games, preset, num_players, seed=seed, auto_reset=False, **rules)
    ops = GameOps(cfg)
    game = Game(preset, num_players, seed=seed, **rules)
    rng = np.random.default_rng(seed)
    report = ContractReport(preset, cfg.num_players, seed, dict(rules), games=games,
                            agent=agent, first_game=first_game,
                            actions=[[] for _ in range(games)])
    scratch = np.zeros(cfg.layout.size, np.uint8)
    chosen = np.zeros(games, np.int64)
    obs, mask, player = venv.reset(first_game=first_game)
    report.game_index = venv.game_index.copy()
    st = venv.engine_state
    step = 0
    limit = 100 * cfg.rules.max_turns
    while True:
        where = f"{base}, step {step}"
        _check_cards(cfg, st, where)
        _check_decisions(cfg, venv, obs, mask, player, where)
        live = np.flatnonzero(st.info[:, C.I_STATUS] == C.STATUS_PLAYING)
        if not len(live):
            break
        assert step < limit, f"{where}: games {live.tolist()} still playing"
        for g in live:
            report.phases.add(C.PHASE_NAMES[st.info[g, C.I_PHASE]])
            report.sides.add(("light", "dark")[st.info[g, C.I_SIDE]])
        if step % mask_every == 0:
            for g in live:
                count = ops.legal_mask(st, g, scratch)
                assert count == int(mask[g].sum()) and np.array_equal(scratch, mask[g]), \
                    f"{where}, game {g}: GameOps.legal_mask counts {count}, the mask has " \
                    f"{int(mask[g].sum())} entries"
            report.mask_checks += len(live)
        if step % hidden_every == 0:
            g = int(live[(step // hidden_every) % len(live)])
            _copy_into(game, st, g)
            report.hidden_checks += _check_hidden(cfg, game, obs[g], mask[g], rng,
                                                  f"{where}, game {g}")
        if agent == "random":
            actions = venv.random_actions(rng)
        else:
            picked = np.zeros(len(live), np.int64)
            kernels(cfg.variant).policy(_POLICIES[agent], obs[live], mask[live], cfg.spec,
                                        picked)
            actions = chosen
            actions[live] = picked
            bad = [g for g in live if not 0 <= actions[g] < mask.shape[1]
                   or not mask[g, actions[g]]]
            assert not bad, f"{where}, game {bad[0]}: the {agent} agent chose the " \
                            f"illegal action {actions[bad[0]]}"
        for g in live:
            report.actions[g].append(int(actions[g]))
        report.decisions += len(live)
        obs, mask, player, rewards, terminated, truncated = venv.step(actions)
        step += 1
        ended = live[st.info[live, C.I_STATUS] != C.STATUS_PLAYING]
        _check_finished(cfg, st, ended, f"{base}, step {step}")
        bad = ended[~(terminated[ended] | truncated[ended])]
        assert not len(bad), f"{base}, step {step}, game {bad[0]}: ended unreported"
        assert np.array_equal(rewards[ended], st.rewards[ended]), \
            f"{base}, step {step}: the step's rewards differ from the games' rewards"
        report.finished += len(ended)
        report.truncated += int(truncated[ended].sum())
    return report


def _state_of(st, g: int) -> dict:
    """Game ``g``'s state; of the piles only the live part."""
    out = {name: np.array(getattr(st, name)[g]) for name in st._fields}
    out["draw_pile"] = out["draw_pile"][:st.info[g, C.I_DRAW_LEN]]
    out["discard"] = out["discard"][:st.info[g, C.I_DISCARD_LEN]]
    return out


def _assert_same_state(a, ga: int, b, gb: int, where: str) -> None:
    sa, sb = _state_of(a, ga), _state_of(b, gb)
    for name in sa:
        assert np.array_equal(sa[name], sb[name]), f"{where}: field {name} differs"


def check_vector_matches_game(report: ContractReport, sample=None) -> None:
    """Replay the actions of ``report``'s games (``check_random_play``) through
    ``Game.reset(seed, index)``: the same first observation and the same final state.
    ``sample``: the slots to replay (default: all)."""
    cfg = make_config(report.preset, report.num_players, **report.rules)
    base = _where(cfg, report.seed, report.rules)
    venv = EverySeatBatch(report.games, report.preset, report.num_players, seed=report.seed,
                     auto_reset=False, **report.rules)
    first, _, _ = venv.reset(first_game=report.first_game)
    first, dealt = first.copy(), venv.engine_state.hands.copy()
    final = _replay_vector(venv, report.actions)
    other = EverySeatBatch(report.games, report.preset, report.num_players,
                      seed=report.seed + 1, auto_reset=False, **report.rules)
    other.reset(first_game=report.first_game)
    assert not np.array_equal(other.engine_state.hands, dealt), \
        f"{base}: seed {report.seed + 1} deals the same hands"
    game = Game(report.preset, report.num_players, seed=report.seed, **report.rules)
    if report.first_game == 0:
        assert np.array_equal(game.observe(game.current_player), first[0]), \
            f"{base}: Game(seed=...) does not deal game 0 of the seed"
    for b in (range(report.games) if sample is None else sample):
        index = int(report.game_index[b])
        where = f"{base}, game {index} (slot {b})"
        game.reset(report.seed, index)
        assert np.array_equal(game.observe(game.current_player), first[b]), \
            f"{where}: Game's first observation differs from EverySeatBatch's"
        for step, a in enumerate(report.actions[b]):
            mask = game.action_mask()
            assert mask[a], f"{where}, step {step}: EverySeatBatch's legal action {a} is " \
                            f"illegal in Game"
            game.step(a)
        assert game.is_over, f"{where}: not over after EverySeatBatch's actions"
        _assert_same_state(final, b, game.engine_state, 0, f"{where}: Game vs EverySeatBatch")


def _replay_vector(venv: EverySeatBatch, actions: list) -> object:
    """Step a reset ``venv`` slot ``b`` with ``actions[b]`` (then 0 once it is over)."""
    longest = max((len(a) for a in actions), default=0)
    row = np.zeros(venv.num_envs, np.int64)
    for step in range(longest):
        for b, played in enumerate(actions):
            row[b] = played[step] if step < len(played) else 0
        venv.step(row)
    return venv.engine_state


def check_vector_batch_size(report: ContractReport) -> None:
    """A ``EverySeatBatch`` of a third of the games (at least one), dealing from the middle
    slot on (``reset(first_game=...)``), ends each game in the state of
    ``check_random_play``'s batch when fed the same actions."""
    cfg = make_config(report.preset, report.num_players, **report.rules)
    base = _where(cfg, report.seed, report.rules)
    size = max(1, report.games // 3)
    lo = min(report.games // 2, report.games - size)
    venv = EverySeatBatch(report.games, report.preset, report.num_players, seed=report.seed,
                     auto_reset=False, **report.rules)
    venv.reset(first_game=report.first_game)
    whole = _replay_vector(venv, report.actions)
    part = EverySeatBatch(size, report.preset, report.num_players, seed=report.seed,
                     auto_reset=False, **report.rules)
    part.reset(first_game=int(report.game_index[lo]))
    small = _replay_vector(part, report.actions[lo:lo + size])
    for b in range(size):
        _assert_same_state(whole, lo + b, small, b,
                           f"{base}, game {int(report.game_index[lo + b])}: EverySeatBatch of "
                           f"{report.games} games vs one of {size}")


def check_simulate_matches_game(preset: str = "classic", num_players: int = 4,
                                games: int = 8, seed: int = 0, sample=None,
                                **rules) -> None:
    """``simulate``'s random-agent game ``i`` equals game ``i`` of ``Game`` played by
    the random agent's kernel (``GameOps.random_legal``, the game's own stream):
    steps, turns, winner, points and every counter ``Game.stats`` reports."""
    cfg = make_config(preset, num_players, **rules)
    base = _where(cfg, seed, rules)
    result = simulate(preset, num_players, num_games=games, seed=seed, threads=1, **rules)
    game = Game(preset, num_players, **rules)
    ops = GameOps(game.config)
    scratch = np.zeros(game.layout.size, np.uint8)
    for i in (range(games) if sample is None else sample):
        game.reset(seed, i)
        steps = 0
        while not game.is_over:
            game.step(ops.random_legal(game.engine_state, 0, scratch))
            steps += 1
        where = f"{base}, game {i}: simulate vs Game"
        winner = game.winner if game.winner is not None else -1
        assert (result.steps[i], result.turns[i], result.winner[i]) == \
            (steps, game.turns, winner), \
            f"{where}: (steps, turns, winner) {(result.steps[i], result.turns[i], result.winner[i])} " \
            f"vs {(steps, game.turns, winner)}"
        expect = game.scores if cfg.rules.target_score > 0 else game.round_points
        assert result.points[i].tolist() == expect, \
            f"{where}: points {result.points[i].tolist()} vs {expect}"
        for name, value in game.stats.items():
            if name in result.counters:
                assert result.counters[name][i] == value, \
                    f"{where}: counter {name} {result.counters[name][i]} vs {value}"


def check_simulate_independence(preset: str = "classic", num_players: int = 4,
                                games: int = 24, seed: int = 0, agents="random",
                                **rules) -> None:
    """``simulate`` with ``agents`` gives the same games on 1 thread and on 2 (if
    numba has 2), and whole or split into two parts of other chunk sizes with
    ``first_game``."""
    cfg = make_config(preset, num_players, **rules)
    base = _where(cfg, seed, rules) + f", agents {agents}"
    run = lambda n, first=0, threads=1: simulate(
        preset, num_players, agents=agents, num_games=n, seed=seed, threads=threads,
        first_game=first, **rules)
    whole = run(games)
    cut = max(1, games // 3)
    head, tail = run(cut), run(games - cut, cut)
    runs = {"split in parts": (np.concatenate, (head, tail))}
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    if threads > 1:
        runs["on 2 threads"] = (None, run(games, threads=threads))
    for what, (join, parts) in runs.items():
        for name in ("winner", "turns", "steps", "points"):
            got = join([getattr(p, name) for p in parts]) if join else getattr(parts, name)
            bad = np.flatnonzero((np.asarray(got) != getattr(whole, name)).reshape(
                games, -1).any(axis=1))
            assert not len(bad), f"{base}, game {bad[0] if len(bad) else -1}: simulate " \
                                 f"{what} gives another {name}"
        for name, value in whole.counters.items():
            got = join([p.counters[name] for p in parts]) if join else parts.counters[name]
            bad = np.flatnonzero(got != value)
            assert not len(bad), f"{base}, game {bad[0] if len(bad) else -1}: simulate " \
                                 f"{what} gives another counter {name}"


def check_contract(preset: str = "classic", num_players: int = 4, games: int = 16,
                   seed: int = 0, **rules) -> ContractReport:
    """Every check of this module on one configuration (``games`` random games of
    ``seed``, with the rule flags ``rules`` over the preset's). Raises AssertionError
    naming the configuration, seed, game and step of the first broken contract;
    returns ``check_random_play``'s report."""
    report = check_random_play(preset, num_players, games, seed, **rules)
    check_vector_matches_game(report)
    check_vector_batch_size(report)
    check_simulate_matches_game(preset, num_players, max(1, games // 2), seed, **rules)
    for agents in ("random", "heuristic"):
        check_simulate_independence(preset, num_players, games, seed, agents, **rules)
    for agent in _POLICIES:
        check_random_play(preset, num_players, max(1, games // 4), seed, agent=agent,
                          hidden_every=10**9, **rules)
    return report


# --- soak: the state invariants inside numba, for many games ----------------------------
@dataclass
class SoakReport:
    """What ``soak`` played and checked. ``first_break`` is ``(game index, step, kinds)``
    of the first broken game (``Game.reset(seed, index)`` replays it), else None."""

    preset: str
    num_players: int
    agent: str
    seed: int
    first_game: int
    rules: dict
    games: int = 0
    decisions: int = 0          # steps of live games, each followed by the checks
    truncated: int = 0
    broken: int = 0             # games with at least one broken invariant
    breaks: dict = field(default_factory=dict)  # break kind -> games broken in it
    first_break: tuple | None = None
    elapsed: float = 0.0
    steps: np.ndarray = field(default=None, repr=False)   # int32[games]
    winner: np.ndarray = field(default=None, repr=False)  # int32[games]: -1 truncated,
                                                          # -2 broken


def _soak_tables(cfg: Config) -> tuple[np.ndarray, np.ndarray]:
    """The soak kernel's bounds: copies of each face among the deck's dark faces
    (empty for a single-sided deck) and the observation space's upper bounds."""
    deck = cfg.deck
    dark = np.zeros(0, np.int64)
    if deck.double_sided:
        dark = np.bincount(deck.type_face[:, 1].astype(np.int64),
                           minlength=len(deck.face_points)).astype(np.int64)
    return dark, np.ascontiguousarray(cfg.observation_space.high, np.float32)


def _kinds(bits: int) -> tuple[str, ...]:
    return tuple(name for k, name in enumerate(soak_kernel.BREAK_NAMES) if bits >> k & 1)


def soak(preset: str = "classic", num_players: int = 4, games: int = 1000, seed: int = 0,
         first_game: int = 0, agent: str = "random", obs_every: int = 1,
         **rules) -> SoakReport:
    """Play games ``first_game .. first_game + games - 1`` of ``seed`` with ``agent``
    ("random", "greedy", "heuristic") in every seat, inside numba, checking after the
    deal and after every step the invariants listed in ``uno_env.engine.soak`` (cards,
    counts, decider, pending draws, the legal count, the chosen action, the end of the
    game, and every ``obs_every``-th step the observation against
    ``observation_space``). Game ``i`` is ``simulate``'s game ``i`` of the seed. The
    ``soak`` entry point compiles on the first call (1-5 minutes per variant)."""
    cfg = make_config(preset, num_players, **rules)
    if agent not in AGENT_CODES:
        raise ValueError(f"agent must be one of {', '.join(AGENT_CODES)}; got {agent!r}")
    for name, value in (("games", games), ("obs_every", obs_every)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    seed = check_seed(seed)
    dark, high = _soak_tables(cfg)
    st = allocate(1, cfg.num_players, cfg.deck.num_types, cfg.deck.num_cards,
                  cfg.deck.double_sided)
    agents = np.full(cfg.num_players, AGENT_CODES[agent], np.int64)
    steps = np.zeros(games, np.int32)
    winner = np.zeros(games, np.int32)
    breaks = np.zeros(soak_kernel.NUM_KINDS, np.int64)
    first = np.full(3, -1, np.int64)
    start = time.perf_counter()
    broken = kernels(cfg.variant).soak(
        soak_kernel.OP_PLAY, st, cfg.spec, agents, np.uint64(seed), int(first_game),
        100 * cfg.rules.max_turns, int(obs_every), dark, high, steps, winner, breaks, first)
    elapsed = time.perf_counter() - start
    first_break = None if first[0] < 0 else (int(first[0]), int(first[1]),
                                             _kinds(int(first[2])))
    return SoakReport(preset, cfg.num_players, agent, seed, int(first_game), dict(rules),
                      games=games, decisions=int(steps.sum(dtype=np.int64)),
                      truncated=int((winner == -1).sum()), broken=int(broken),
                      breaks={name: int(n) for name, n in zip(soak_kernel.BREAK_NAMES,
                                                              breaks)},
                      first_break=first_break, elapsed=elapsed, steps=steps, winner=winner)


def soak_check(game: Game) -> tuple[str, ...]:
    """The soak kernel's checks of ``game``'s position as it stands (no step): the
    names of the broken invariant kinds (``uno_env.engine.soak.BREAK_NAMES``), empty if
    none. For tests of the checker: corrupt a copy of a state, see it reported."""
    cfg = game.config
    dark, high = _soak_tables(cfg)
    empty = np.zeros(0, np.int32)
    bits = kernels(cfg.variant).soak(
        soak_kernel.OP_CHECK, game.engine_state, cfg.spec,
        np.zeros(cfg.num_players, np.int64), np.uint64(0), 0, 1, 1, dark, high, empty,
        empty, np.zeros(soak_kernel.NUM_KINDS, np.int64), np.full(3, -1, np.int64))
    return _kinds(int(bits))
