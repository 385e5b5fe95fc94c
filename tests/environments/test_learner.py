"""The learner side: ``LearnerBatch`` and ``SingleAgentEnv`` (uno_env.envs.single_seat).

Reward bookkeeping is checked on scenarios with exact outcomes, and the whole adapter is
checked against a replay of the same games through ``Game`` with the Python agents."""
from __future__ import annotations

import numba
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents import GreedyAgent, HeuristicAgent
from uno_env import Game
from uno_env.envs.single_seat import LearnerBatch, SingleAgentEnv, parse_opponents
from uno_env.evaluation.win_rate import evaluate


def test_learner_sees_its_loss_when_an_opponent_goes_out():
    """docs/rules.md 7: the learner plays R1, then the greedy opponent plays its last card;
    the learner's step returns -1 and ends its episode, with its B9 still in hand."""
    game = Game.from_scenario(hands=[["R1", "B9"], ["R3"]], top="R8", uno_call=False)
    batch = LearnerBatch.from_game(game, seat=0, opponents="greedy")
    layout = batch.layout
    assert batch.mask[0, layout.encode("R1")] and batch.mask[0, layout.encode("draw")]
    obs, mask, reward, terminated, truncated = batch.step(
        np.array([layout.encode("R1")]))
    assert reward[0] == -1.0 and terminated[0] and not truncated[0]
    assert batch.done[0] and not mask[0].any()
    hand = batch.final_obs[0, :batch.config.deck.num_types]
    assert hand[batch.config.deck.parse_type("B9")] == 1 and hand.sum() == 1


def test_learner_loss_in_four_players_is_minus_a_third():
    """Zero-sum win reward (docs/rules.md 7): a loser gets -1/(N-1). The learner (seat 0)
    draws Y1 and keeps it (not playable on R8), seat 1 draws B1 likewise, and seat 2
    goes out with R3 before the learner decides again."""
    game = Game.from_scenario(hands=[["G1", "G2"], ["B5", "B6"], ["R3"], ["Y7", "Y8"]],
                              top="R8", draw_pile=["Y1", "B1"], uno_call=False)
    batch = LearnerBatch.from_game(game, seat=0, opponents="greedy")
    layout = batch.layout
    _, _, reward, terminated, _ = batch.step(np.array([layout.encode("draw")]))
    assert terminated[0]
    assert reward[0] == pytest.approx(-1 / 3)


def test_learner_win_is_rewarded_on_its_own_move():
    game = Game.from_scenario(hands=[["R1"], ["B9", "G4"]], top="R8", uno_call=False)
    batch = LearnerBatch.from_game(game, seat=0, opponents="heuristic")
    _, _, reward, terminated, _ = batch.step(np.array([batch.layout.encode("R1")]))
    assert reward[0] == 1.0 and terminated[0]


def test_opponents_move_first_when_it_is_not_the_learners_turn():
    """The learner sits at seat 1; seat 0 (greedy) plays R3 on R8 before the learner
    gets its first observation."""
    game = Game.from_scenario(hands=[["R3", "B2", "B3"], ["G1", "G2"]], top="R8",
                              uno_call=False)
    batch = LearnerBatch.from_game(game, seat=1, opponents="greedy")
    top = batch.obs[0, batch.config.deck.num_types:2 * batch.config.deck.num_types]
    assert top[batch.config.deck.parse_type("R3")] == 1
    assert game.current_player == 0 and game.top == "R8"   # the Game is untouched


def _replay(batch, seed, actions_by_slot, agents_by_kind):
    """Replay each slot's episode through Game with the recorded learner actions and
    the Python agents; return (final rewards of the learner, observations seen)."""
    rewards, seen = [], []
    for slot, actions in enumerate(actions_by_slot):
        game = Game("classic", batch.num_players, seed=seed)
        game.reset(seed, index=int(batch.game_index[slot]))
        learner = int(batch.learner_seat[slot])
        kinds = batch._lb.seat_kind[slot]
        obs_seen = []
        it = iter(actions)
        while not game.is_over:
            seat = game.current_player
            if seat == learner:
                obs_seen.append(game.observe(seat).copy())
                game.step(next(it))
            else:
                agent = agents_by_kind[int(kinds[seat])]
                game.step(agent.act(game.observe(seat), game.action_mask()))
        rewards.append(game.rewards[learner])
        seen.append(obs_seen)
    return rewards, seen


def test_learner_batch_matches_a_replay_through_game():
    """Learner seats drawn per game, a mixed line-up, random learner moves: every
    observation the learner gets and its episode return equal a replay of the same game
    index through ``Game`` with the Python twins of the opponents."""
    seed, n = 7, 24
    batch = LearnerBatch(n, "classic", 3, opponents=[["greedy", "heuristic"],
                                                      ["heuristic", "heuristic"]],
                         seat="random", seed=seed, auto_reset=False)
    obs, mask = batch.reset()
    rng = np.random.default_rng(0)
    actions = [[] for _ in range(n)]
    observed = [[obs[g].copy()] for g in range(n)]
    returns = np.zeros(n)
    while not batch.done.all():
        live = ~batch.done
        a = (rng.random(mask.shape) * mask).argmax(axis=1)
        for g in np.flatnonzero(live):
            actions[g].append(int(a[g]))
        obs, mask, reward, _, _ = batch.step(a)
        returns += reward
        for g in np.flatnonzero(live & ~batch.done):
            observed[g].append(obs[g].copy())
    assert len(set(batch.learner_seat.tolist())) > 1
    cfg = batch.config
    agents = {1: GreedyAgent(cfg), 2: HeuristicAgent(cfg)}
    rewards, seen = _replay(batch, seed, actions, agents)
    np.testing.assert_allclose(returns, rewards, atol=1e-6)
    for g in range(n):
        assert len(seen[g]) == len(observed[g])
        np.testing.assert_array_equal(np.array(seen[g]), np.array(observed[g]))


def episode_returns(num_envs, opponents, steps, seed=3):
    """Each finished episode's return by game index, the learner playing its first
    legal action (deterministic) for ``steps`` steps of a 2-player classic batch."""
    batch = LearnerBatch(num_envs, "classic", 2, opponents=opponents, seed=seed)
    obs, mask = batch.reset()
    totals = {}
    acc = np.zeros(num_envs)
    for _ in range(steps):
        index = batch.game_index.copy()
        obs, mask, reward, term, trunc = batch.step(mask.argmax(axis=1))
        acc += reward
        for g in np.flatnonzero(term | trunc):
            totals[int(index[g])] = acc[g]
            acc[g] = 0
    return totals


def assert_batch_size_free(opponents, sizes, steps, min_common):
    """The games of one seed do not depend on the batch size."""
    small, large = (episode_returns(n, opponents, steps) for n in sizes)
    common = set(small) & set(large)
    assert len(common) >= min_common
    assert all(small[i] == large[i] for i in common)


def test_same_seed_same_games_whatever_the_batch_size():
    assert_batch_size_free("heuristic", (4, 16), steps=300, min_common=10)


def test_illegal_action_is_refused_and_nothing_changes():
    batch = LearnerBatch(3, "classic", 2, opponents="random", seed=0)
    obs, mask = batch.reset()
    before = obs.copy()
    bad = np.array([mask[0].argmax(), mask[1].argmin(), mask[2].argmax()])
    with pytest.raises(ValueError, match="not legal in game 1; legal moves: "):
        batch.step(bad)
    np.testing.assert_array_equal(batch.obs, before)


TWO = min(2, numba.config.NUMBA_NUM_THREADS)


def _run_steps(threads, preset, opponents, auto_reset=True, num_envs=40, steps=120):
    """Every output of ``steps`` steps (deterministic legal actions) on ``threads``."""
    batch = LearnerBatch(num_envs, preset, 4, opponents=opponents, seed=9,
                         auto_reset=auto_reset, threads=threads)
    assert batch.threads == threads
    obs, mask = batch.reset()
    rng = np.random.default_rng(3)
    out = []
    for _ in range(steps):
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, mask, reward, term, trunc = batch.step(actions)
        out.append([x.copy() for x in (obs, mask, reward, term, trunc, batch.final_obs,
                                       batch.game_index)])
    return out


@pytest.mark.parametrize("preset, opponents, auto_reset", [
    ("classic", "heuristic", True),
    ("classic", [["greedy"], ["random", "heuristic", "greedy"]], False),
    ("street", "heuristic", True),
    ("flip", "greedy", True),
    ("onepiece", "heuristic", True),
])
def test_same_games_on_one_thread_and_on_two(preset, opponents, auto_reset):
    """A step split over threads plays each slot's share on its own and deals the
    successors of ended games in slot order: the games are the one-thread games."""
    one = _run_steps(1, preset, opponents, auto_reset)
    two = _run_steps(TWO, preset, opponents, auto_reset)
    ended = sum(int(step[3].sum() + step[4].sum()) for step in one)
    assert ended >= 40            # every slot ended at least once (once without auto-reset)
    for a, b in zip(one, two):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_threads_with_a_python_opponent_and_an_illegal_action():
    greedy = GreedyAgent(LearnerBatch(1, "classic", 4).config)
    one = _run_steps(1, "classic", [["heuristic"], [greedy]], steps=60)
    two = _run_steps(TWO, "classic", [["heuristic"], [greedy]], steps=60)
    for a, b in zip(one, two):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    batch = LearnerBatch(6, "classic", 2, opponents="random", seed=0, threads=TWO)
    obs, mask = batch.reset()
    state = [x.copy() for x in batch._state]
    bad = mask.argmax(axis=1)
    bad[4] = mask[4].argmin()
    with pytest.raises(ValueError, match="not legal in game 4; legal moves: "):
        batch.step(bad)
    for x, y in zip(state, batch._state):
        np.testing.assert_array_equal(x, y)


def _step_in_child(queue):
    batch = LearnerBatch(8, "classic", 2, opponents="heuristic", seed=1, threads=TWO)
    obs, mask = batch.reset()
    for _ in range(5):
        obs, mask, *_ = batch.step(mask.argmax(axis=1))
    queue.put(obs.sum())


def test_a_forked_child_steps_on_threads_of_its_own():
    """A pool made before a fork has no threads in the child (SubprocVecEnv workers are
    forked): the child makes its own, and its games are the parent's."""
    import multiprocessing
    batch = LearnerBatch(8, "classic", 2, opponents="heuristic", seed=1, threads=TWO)
    obs, mask = batch.reset()
    for _ in range(5):
        obs, mask, *_ = batch.step(mask.argmax(axis=1))
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_step_in_child, args=(queue,))
    child.start()
    child.join(timeout=120)
    assert child.exitcode == 0, "the forked child did not finish its steps"
    assert queue.get(timeout=5) == obs.sum()


def test_a_python_opponent_without_auto_reset_plays_every_game_to_its_end():
    """A finished game (no auto-reset) waits for no opponent: stepping on past it once
    raised an IndexError from the Python-opponent loop."""
    greedy = GreedyAgent(LearnerBatch(1, "classic", 2).config)
    for threads in (1, TWO):
        batch = LearnerBatch(4, "classic", 2, opponents=greedy, seed=0, auto_reset=False,
                             threads=threads)
        obs, mask = batch.reset()
        ends = np.zeros(4, int)
        for _ in range(400):
            if not mask.any():
                break
            obs, mask, reward, term, trunc = batch.step(
                np.where(mask.any(axis=1), mask.argmax(axis=1), 0))
            ends += term | trunc
        assert not mask.any() and batch.done.all()
        np.testing.assert_array_equal(ends, 1)      # each game ended exactly once


def test_threads_default_and_bad_values():
    cores = numba.config.NUMBA_NUM_THREADS
    assert LearnerBatch(8, "classic", 2).threads == 1
    assert LearnerBatch(4096, "classic", 2).threads == min(cores, 4096 // 128)
    assert LearnerBatch(8, "classic", 2, opponents="mcts:2", threads=TWO).threads == 1
    for bad in (0, True, cores + 1, 1.5):
        with pytest.raises(ValueError, match=f"threads must be None or an integer from 1 "
                                             f"to {cores}, got {bad!r}"):
            LearnerBatch(8, "classic", 2, threads=bad)


@pytest.mark.parametrize("opponents, message", [
    ("champion", "unknown opponent 'champion'"),
    (["random", "greedy"], "a line-up names 1 or num_players - 1 = 1"),
    (42, "an opponent is a name"),
])
def test_bad_opponents_are_named(opponents, message):
    with pytest.raises(ValueError, match=message):
        parse_opponents(opponents, 2)


def test_bad_seat_and_seed():
    with pytest.raises(ValueError, match="seat must be 'random' or a seat 0..1"):
        LearnerBatch(2, "classic", 2, seat=2)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        SingleAgentEnv(seed=-1)


def test_single_agent_env_passes_the_gymnasium_checker():
    env = SingleAgentEnv("classic", 2, opponents="heuristic", seed=0)
    check_env(env, skip_render_check=True)


def test_ansi_render_shows_the_learners_hand_and_the_top_card():
    game = Game.from_scenario(hands=[["R1", "B9"], ["G3", "Y4"]], top="R8")
    env = SingleAgentEnv("classic", 2, render_mode="ansi")
    env.batch = LearnerBatch.from_game(game, seat=0, opponents="greedy")
    env._ready = True
    text = env.render()
    assert "top R8" in text and "hand R1 B9" in text and "legal: R1 draw" in text


def test_single_agent_env_masks_and_illegal_actions():
    env = SingleAgentEnv("classic", 3, opponents="greedy", seed=1)
    obs, info = env.reset(seed=5)
    assert obs.shape == env.observation_space.shape
    mask = env.action_masks()
    np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
    illegal = int(np.flatnonzero(~mask)[0])
    obs2, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    # an ended episode's mask marks every action (v2: next-step autoreset samples one)
    assert info["illegal_action"] and env.action_masks().all() and info["action_mask"].all()
    with pytest.raises(ValueError, match="the episode is over"):
        env.step(int(np.flatnonzero(mask)[0]))
    strict = SingleAgentEnv("classic", 3, opponents="greedy", seed=1,
                            illegal_action="raise")
    strict.reset(seed=5)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)


def test_single_agent_env_episodes_follow_the_seed():
    def first_obs(env, k):
        out = []
        for i in range(k):
            obs, info = env.reset(seed=11) if i == 0 else env.reset()
            out.append((obs.copy(), info["game_index"], info["seat"]))
        return out
    a = first_obs(SingleAgentEnv(seed=0), 4)
    b = first_obs(SingleAgentEnv(seed=99), 4)
    assert [x[1] for x in a] == [0, 1, 2, 3]
    for (oa, _, sa), (ob, _, sb) in zip(a, b):
        np.testing.assert_array_equal(oa, ob)
        assert sa == sb


def test_evaluate_counts_wins_of_a_known_agent():
    """The heuristic beats random in 2-player classic almost always; against a copy of
    itself it wins about half of the games."""
    from uno_env import make_config
    agent = HeuristicAgent(make_config("classic", 2))
    vs_random = evaluate(agent, "random", 400, "classic", 2, seed=1)
    assert vs_random["win_rate"] > 0.9
    lo, hi = vs_random["ci"]
    assert lo < vs_random["win_rate"] < hi
    vs_self = evaluate(agent, "heuristic", 400, "classic", 2, seed=1)
    assert 0.4 < vs_self["win_rate"] < 0.6
    assert vs_self["games"] == 400 and vs_self["wins"] + vs_self["truncated"] <= 400


def test_evaluate_per_game_and_the_paired_difference_of_two_agents():
    """``per_game=True`` gives each game's outcome, consistent with the counts; the
    same agent twice differs in no game; greedy against heuristic on the same deals
    differs only in the games one of them won, counted both ways."""
    from uno_env import make_config
    from uno_env.evaluation.stats import paired_difference

    config = make_config("classic", 4)
    runs = {}
    for name, agent in (("heuristic", HeuristicAgent(config)),
                        ("greedy", GreedyAgent(config))):
        runs[name] = evaluate(agent, "greedy", 300, "classic", 4, seed=2, batch=128,
                              per_game=True)
        won = runs[name]["won"]
        assert won.dtype == np.bool_ and won.shape == (300,)
        assert won.sum() == runs[name]["wins"]
    assert "won" not in evaluate(GreedyAgent(config), "greedy", 20, "classic", 4, seed=2)
    again = evaluate(GreedyAgent(config), "greedy", 300, "classic", 4, seed=2, batch=64,
                     per_game=True)["won"]
    np.testing.assert_array_equal(again, runs["greedy"]["won"])  # batch size: same games
    same = paired_difference(again, runs["greedy"]["won"])
    assert same == {"difference": 0.0, "ci": (0.0, 0.0), "only_won": 0,
                    "only_reference_won": 0}
    h, g = runs["heuristic"]["won"], runs["greedy"]["won"]
    diff = paired_difference(h, g)
    assert diff["only_won"] == int((h & ~g).sum()) > 0
    assert diff["only_reference_won"] == int((g & ~h).sum()) > 0
    assert diff["difference"] == pytest.approx(h.mean() - g.mean())
    assert diff["ci"][0] < diff["difference"] < diff["ci"][1]
    with pytest.raises(ValueError, match="the same games"):
        paired_difference(h, g[:-1])


def test_a_python_opponents_actions_of_the_wrong_shape_are_refused():
    """The step's entry point reads the opponents' actions as int64[n] without numba's
    type checks: a column (n, 1), as ``argmax(keepdims=True)`` gives, is refused."""
    greedy = GreedyAgent(LearnerBatch(1, "classic", 2).config)

    class Column:
        def act_batch(self, obs, mask):
            return greedy.act_batch(obs, mask)[:, None]

    batch = LearnerBatch(3, "classic", 2, opponents=[Column()], seed=1)
    with pytest.raises(ValueError, match=r"act_batch returned actions of shape \(\d+, 1\)"):
        batch.reset()
        for _ in range(20):
            batch.step(batch.mask.argmax(axis=1))


def test_batches_pickle_and_step_on_the_same():
    """Ray and multiprocessing send environments by pickle; the bound entry point is
    dropped and bound again on the next call."""
    import pickle
    from uno_env.envs.every_seat import EverySeatBatch
    for make in (lambda: EverySeatBatch(3, seed=2),
                 lambda: LearnerBatch(3, opponents="heuristic", seed=2)):
        batch = make()
        batch.reset()
        mask = batch.mask if isinstance(batch, LearnerBatch) else batch._mask
        batch.step(mask.argmax(axis=1))
        copy = pickle.loads(pickle.dumps(batch))
        for _ in range(30):
            mask = batch.mask if isinstance(batch, LearnerBatch) else batch._mask
            actions = mask.argmax(axis=1)
            for x, y in zip(batch.step(actions), copy.step(actions.copy())):
                np.testing.assert_array_equal(x, y)
