"""House rules over a table of flag combinations (each flag alone and all together, 2/4/7
players): card conservation and the other invariants after every step of random games,
PettingZoo's api_test, the numba agents' legality in every new phase, and the agreement
of ``simulate``, ``VectorEnv`` and ``Game`` (issue [house-rules] items 5 and 6)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))

import uno_env  # noqa: E402
from uno_env import Game, make_config  # noqa: E402
from uno_env._jit import njit  # noqa: E402
from uno_env.engine import codes as C  # noqa: E402
from uno_env.engine import variants  # noqa: E402
from uno_env.engine.entry import GameOps  # noqa: E402
from uno_env.engine.rounds import reset_game  # noqa: E402
from uno_env.engine.policies import AGENT_CODES, choose_action  # noqa: E402
from uno_env.engine.rng import seed_stream  # noqa: E402
from uno_env.engine.state import allocate  # noqa: E402
from uno_env.simulation import simulate  # noqa: E402
from uno_env.vector import VectorEnv  # noqa: E402
from house_invariants import ERRORS, run_checked  # noqa: E402
from test_invariants import check_conservation, new_batch, step_games  # noqa: E402

#: every house flag alone, then all together (docs/rules.md 3, 4)
ALONE = [
    ("classic", dict(stack="same")),
    ("classic", dict(stack="any")),
    ("classic", dict(seven_zero=True)),
    ("classic", dict(jump_in=True)),
    ("classic", dict(force_play=True)),
    ("classic", dict(no_draw_if_playable=True)),
    ("classic", dict(draw_until_playable=True)),
    ("classic", dict(multi_play=True)),
    ("classic112", dict()),
    ("classic112", dict(wx_rule="draw1")),
    ("classic112", dict(wx_rule="swap", ws_last_card_wins=True)),
]
ALL_FLAGS = ("chaos", dict())  # every flag at once (stack any, WX draw1 ...)
TABLE = [(p, f, n) for p, f in ALONE + [ALL_FLAGS] for n in (2, 4, 7)] + [
    ("classic", dict(teams=True), 4), ("chaos", dict(teams=True), 4),
    ("chaos", dict(wx_rule="swap", bluff=False), 4), ("street", dict(), 4)]


def _id(row):
    preset, flags, n = row
    return f"{preset}-{n}p-" + "-".join(f"{k}={v}" for k, v in flags.items())


@pytest.mark.parametrize("row", TABLE, ids=[_id(r) for r in TABLE])
def test_conservation_and_invariants_with_house_flags(row):
    """After every step: the deck is whole, hand sizes agree, every game still playing
    has a legal action whose count is exact; finished games have exactly one empty hand
    (the winner's), zero-sum rewards and the round points of docs/rules.md 2/3."""
    preset, flags, n = row
    config = make_config(preset, n, **flags)
    games = 250
    st = allocate(games, n, config.deck.num_types, config.deck.num_cards)
    winners = np.zeros(games, np.int32)
    turns = np.zeros(games, np.int32)
    steps = np.zeros(games, np.int32)
    err, game = run_checked(st, config.spec, np.uint64(11), 0, winners, turns, steps,
                            100 * config.rules.max_turns)
    assert err == 0, f"broken invariant {ERRORS[err]!r} in game {game}"
    # games do end (uniform random play draws a lot: with draw_until_playable most
    # two-player games reach max_turns, as many classic two-player games do)
    assert (winners >= 0).sum() > 0.04 * games
    if n > 2:
        assert len(set(winners[winners >= 0].tolist())) > 1


@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_conservation_checked_by_the_classic_test_helpers(num_players):
    """The classic suite's own numpy checks, stepping a batch of all-flags games."""
    config = make_config("chaos", num_players)
    st = new_batch(config, 200, seed=5)
    scratch = np.zeros(config.layout.size, np.uint8)
    active = np.arange(200, dtype=np.int64)
    while len(active):
        legal = np.zeros(len(active), np.int64)
        step_games(st, config.spec, active, scratch, legal)
        assert (legal != 0).all()
        check_conservation(st, config, active, f"chaos {num_players}p")
        active = active[st.info[active, C.I_STATUS] == C.STATUS_PLAYING]


def test_every_phase_is_reached_by_random_play():
    """The table above exercises the new phases and events (not a smoke run: counters of
    stacked cards, jump-ins, multi-plays, exchanges and swap decisions must be > 0)."""
    r = simulate("chaos", 4, num_games=500, seed=2, threads=1)
    t = r.totals
    assert t["stacked"] > 0 and t["jump_ins"] > 0 and t["multi_extra"] > 0
    assert t["exchanges"] > 0 and t["challenges"] > 0


@njit
def _agents_stay_legal(st, sp, kind, seed, games, phases_seen):
    """Play ``games`` games with agent ``kind`` in every seat; return the index of the
    first game where it picked an illegal action, else -1."""
    mask = np.zeros(sp.layout[C.L_SIZE], np.uint8)
    check = np.zeros(sp.layout[C.L_SIZE], np.uint8)
    obs = np.zeros(sp.layout[C.L_OBS_SIZE], np.float32)
    for i in range(games):
        st.rng[0] = seed_stream(seed, i)
        reset_game(st, 0, sp)
        while st.info[0, C.I_STATUS] == C.STATUS_PLAYING:
            phases_seen[st.info[0, C.I_PHASE]] += 1
            a = choose_action(kind, st, 0, sp, mask, obs)
            variants.legal_mask(st, 0, sp, check)
            if a < 0 or check[a] == 0:
                return i
            variants.apply_action(st, 0, sp, a)
    return -1


@pytest.mark.parametrize("agent", ["random", "greedy", "heuristic"])
@pytest.mark.parametrize("preset,flags", [("chaos", {}), ("chaos", dict(wx_rule="swap")),
                                          ("street", {}), ("progressive", {}),
                                          ("multi", dict(seven_zero=True))])
def test_numba_agents_choose_legal_actions_in_every_phase(agent, preset, flags):
    config = make_config(preset, 4, **flags)
    st = allocate(1, 4, config.deck.num_types, config.deck.num_cards)
    seen = np.zeros(C.NUM_PHASES, np.int64)
    bad = _agents_stay_legal(st, config.spec, AGENT_CODES[agent], np.uint64(3), 150, seen)
    assert bad == -1, f"{agent} chose an illegal action in game {bad}"
    if preset == "chaos":
        for phase in (C.PHASE_STACK, C.PHASE_JUMP_IN, C.PHASE_MULTI, C.PHASE_DRAWN):
            assert seen[phase] > 0, C.PHASE_NAMES[phase]
        assert seen[C.PHASE_SWAP] > 0 or not flags


API_TABLE = [(p, f, 4) for p, f in ALONE] + [("chaos", {}, n) for n in (2, 4, 7)] + [
    ("chaos", dict(teams=True), 4), ("classic", dict(teams=True, reward="score"), 4),
    ("street", dict(target_score=200), 3)]


@pytest.mark.parametrize("row", API_TABLE, ids=[_id(r) for r in API_TABLE])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_with_house_flags(row):
    preset, flags, n = row
    api_test(uno_env.env(preset=preset, num_players=n, **flags), num_cycles=200)


def test_teams_rewards_through_env_are_shared_and_zero_sum():
    env = uno_env.env(preset="chaos", num_players=4, teams=True, max_turns=100_000)
    rng = np.random.default_rng(0)
    for seed in range(4):
        env.reset(seed=seed)
        totals = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        w = env.unwrapped.game.winner
        assert [totals[f"player_{q}"] for q in range(4)] == \
            [1.0 if (q - w) % 2 == 0 else -1.0 for q in range(4)]


def test_simulate_game_i_is_game_i_of_the_game_api_with_all_flags():
    result = simulate("chaos", 4, num_games=10, seed=3, threads=1)
    for i in (0, 4, 9):
        game = Game("chaos", 4)
        game.reset(3, i)
        scratch = np.zeros(game.layout.size, np.uint8)
        steps = 0
        while not game.is_over:
            game.step(GameOps(game.config).random_legal(game._state, 0, scratch))
            steps += 1
        assert (result.steps[i], result.turns[i]) == (steps, game.turns)
        assert result.winner[i] == (game.winner if game.winner is not None else -1)
        assert result.points[i].tolist() == game.round_points


def test_simulate_with_house_flags_does_not_depend_on_threads_or_chunks(monkeypatch):
    import numba

    from uno_env import simulation as sim_mod
    a = simulate("street", 5, num_games=200, seed=9, threads=1)
    monkeypatch.setattr(sim_mod, "CHUNK", 48)
    b = simulate("street", 5, num_games=200, seed=9,
                 threads=min(2, numba.config.NUMBA_NUM_THREADS))
    np.testing.assert_array_equal(a.winner, b.winner)
    np.testing.assert_array_equal(a.steps, b.steps)
    np.testing.assert_array_equal(a.counters["jump_ins"], b.counters["jump_ins"])


@pytest.mark.parametrize("preset", sorted(uno_env.PRESETS))
def test_vector_env_games_replay_through_game_with_every_preset(preset):
    """VectorEnv slot b plays game ``game_index[b]``: replaying its actions through
    ``Game`` gives the same first observation and the same outcome, for every preset."""
    venv = VectorEnv(6, preset=preset, num_players=4, seed=21, auto_reset=False,
                     max_turns=400)
    obs, mask, player = venv.reset()
    rng = np.random.default_rng(0)
    log = [[] for _ in range(6)]
    first_obs = [o.copy() for o in obs]
    while not venv.done.all():
        actions = venv.random_actions(rng)
        for b in range(6):
            if not venv.done[b]:
                log[b].append(int(actions[b]))
        obs, mask, player, rewards, term, trunc = venv.step(actions)
    for b in range(6):
        game = Game(preset, 4, max_turns=400)
        game.reset(21, int(venv.game_index[b]))
        np.testing.assert_array_equal(game.observe(game.current_player), first_obs[b])
        for a in log[b]:
            game.step(a)
        assert game.is_over
        assert (game.winner if game.winner is not None else -1) == venv.winner[b]
        assert game.round_points == venv.round_points[b].tolist()


def test_vector_env_rejects_illegal_house_actions_unchanged():
    venv = VectorEnv(3, preset="street", num_players=4, seed=1)
    obs, mask, player = venv.reset()
    before = obs.copy()
    bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in mask])
    with pytest.raises(ValueError, match="not legal"):
        venv.step(bad)
    np.testing.assert_array_equal(venv._obs, before)


def test_cli_presets_prints_house_presets():
    from typer.testing import CliRunner

    from uno_env.cli import app
    out = CliRunner().invoke(app, ["presets"])
    assert out.exit_code == 0
    for name in ("classic112", "street", "progressive", "teams", "chaos"):
        assert f"{name}:" in out.output


@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_house_observation_holds_nothing_hidden(num_players):
    """With every flag on: moving cards between two other hands and permuting the draw
    pile (sizes kept) never changes the mover's observation, in any phase."""
    from uno_env.engine.observe import observation_slices
    rng = np.random.default_rng(num_players)
    game = Game("chaos", num_players, seed=8)
    phases = set()
    for step in range(3000):
        if game.is_over:
            game.reset(8, step)
        seat = game.current_player
        phases.add(game.phase)
        if step % 3 == 0:
            before = game.observe(seat)
            st = game._state
            n = st.info[0, C.I_DRAW_LEN]
            st.draw_pile[0, :n] = rng.permutation(st.draw_pile[0, :n])
            others = [q for q in range(num_players) if q != seat]
            if len(others) >= 2:
                p, q = others[:2]
                tp = rng.choice(np.flatnonzero(st.hands[0, p]))
                tq = rng.choice(np.flatnonzero(st.hands[0, q]))
                st.hands[0, p, tp] -= 1
                st.hands[0, q, tp] += 1
                st.hands[0, q, tq] -= 1
                st.hands[0, p, tq] += 1
            game._refresh()
            np.testing.assert_array_equal(game.observe(seat), before)
        game.step(int(rng.choice(game.legal_actions())))
    assert {"stack", "jump_in", "multi", "swap"} <= phases
    s = observation_slices(game.config.deck.num_types, num_players, game.config.rules)
    assert list(s)[-3:] == ["jump_from", "jump_resume", "multi_count"]
    assert s["multi_count"].stop == game.layout.obs_size


@pytest.mark.parametrize("preset", ["street", "chaos"])
def test_policy_offsets_unchanged_by_house_fields(preset):
    from uno_env.engine.observe import observation_slices
    from uno_env.engine.policies import _offsets
    cfg = make_config(preset, 4)
    s = observation_slices(cfg.deck.num_types, 4, cfg.rules)
    names = ("hand", "color", "direction", "phase", "opponent_cards", "played", "side")
    assert tuple(_offsets(cfg.spec)) == tuple(s[n].start for n in names)


@pytest.mark.parametrize("preset,n", [("chaos", 3), ("street", 4), ("teams", 4)])
def test_pettingzoo_seed_with_house_flags(preset, n):
    from pettingzoo.test import seed_test
    seed_test(lambda: uno_env.env(preset=preset, num_players=n), num_cycles=200)
