"""``import uno_env`` registers the environments with Gymnasium and PettingZoo; the
top-level API exports what the README uses; the preset table is read-only."""
import re
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest

import uno_env
from uno_env.envs.aec import raw_env
from uno_env.envs.single_seat import SingleAgentEnv
from uno_env.envs.registration import RETIRED_GYMNASIUM_IDS, register_envs


def test_gymnasium_make_builds_the_single_seat_env_with_presets_and_rule_flags():
    env = gymnasium.make("uno_env/UnoSingleSeat-v3", preset="street", num_players=3,
                         opponents="heuristic", stack="same", seed=4)
    inner = env.unwrapped
    assert isinstance(inner, SingleAgentEnv)
    cfg = inner.config
    assert (cfg.preset, cfg.num_players) == ("street", 3)
    assert cfg.rules.stack == "same" and cfg.rules.seven_zero is True   # preset kept
    obs, info = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
    assert env.observation_space.contains(obs) and isinstance(reward, float)
    # the registered env deals what the class deals
    direct = SingleAgentEnv("street", 3, opponents="heuristic", stack="same", seed=4)
    np.testing.assert_array_equal(direct.reset(seed=4)[0], env.reset(seed=4)[0])


def test_the_gymnasium_id_defaults_to_four_players_and_takes_flags():
    assert gymnasium.make("uno_env/UnoSingleSeat-v3").unwrapped.config.num_players == 4
    flip = gymnasium.make("uno_env/UnoSingleSeat-v3", preset="flip", num_players=3,
                          bluff=False)
    assert flip.unwrapped.config.rules.deck == "flip"


def test_gymnasium_make_names_the_valid_flags_for_an_unknown_keyword():
    with pytest.raises(ValueError, match="unknown rule flag.*'colour'.*valid flags: deck"):
        gymnasium.make("uno_env/UnoSingleSeat-v3", colour="red")
    with pytest.raises(ValueError, match="unknown preset 'uno2'; valid presets: classic"):
        gymnasium.make("uno_env/UnoSingleSeat-v3", preset="uno2")


def test_gymnasium_make_vec_steps_single_envs():
    """``vectorization_mode="sync"`` gives Gymnasium's SyncVectorEnv of the single-seat
    env (the default mode is the id's vector_entry_point, tests/environments/test_gym_vector.py)."""
    venv = gymnasium.make_vec("uno_env/UnoSingleSeat-v3", num_envs=3,
                              vectorization_mode="sync", num_players=2)
    obs, infos = venv.reset(seed=1)
    assert obs.shape == (3, *venv.single_observation_space.shape)
    actions = np.array([m.argmax() for m in infos["action_mask"]])
    obs, rewards, terminated, truncated, infos = venv.step(actions)
    assert obs.shape[0] == 3 and rewards.shape == (3,)
    assert isinstance(venv, gymnasium.vector.SyncVectorEnv)
    venv.close()


def test_pettingzoo_make_builds_the_aec_env_with_presets_and_rule_flags():
    env = pettingzoo.make("aec", "uno_env/UnoAEC-v1", preset="street", num_players=3,
                          stack="same", illegal_action="lose")
    assert isinstance(env, raw_env)
    assert (env.config.preset, env.config.num_players) == ("street", 3)
    assert env.config.rules.stack == "same" and env.illegal_action == "lose"
    env.reset(seed=0)
    assert env.agents == ["player_0", "player_1", "player_2"]
    assert pettingzoo.make("aec", "uno_env/UnoAEC-v1").config.num_players == 4
    with pytest.raises(ValueError, match="unknown rule flag"):
        pettingzoo.make("aec", "uno_env/UnoAEC-v1", colour="red")


def test_registering_again_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register_envs()
    assert "uno_env/UnoSingleSeat-v3" in gymnasium.registry
    assert "uno_env/UnoAEC-v1" in pettingzoo.aec_registry


def test_one_id_names_one_environment_across_the_registries():
    """No id is in both registries (0.1's uno_env/Uno-v0 was the AEC env in PettingZoo
    and a single-seat env in Gymnasium); the retired Gymnasium ids say which id to use,
    and PettingZoo's old id builds the same AEC env with a warning."""
    ours = {i for i in gymnasium.registry if i.startswith("uno_env/")}
    working = ours - set(RETIRED_GYMNASIUM_IDS)
    assert not working & set(pettingzoo.aec_registry)
    for old in RETIRED_GYMNASIUM_IDS:
        with pytest.raises(ValueError, match="uno_env/UnoSingleSeat-v3"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # Gymnasium: "v0 is out of date"
                gymnasium.make(old)
        with pytest.raises(ValueError, match="uno_env/UnoAEC-v1"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gymnasium.make_vec(old, num_envs=2)
    with pytest.warns(DeprecationWarning, match="uno_env/UnoAEC-v1"):
        old = pettingzoo.make("aec", "uno_env/Uno-v0", num_players=3)
    assert isinstance(old.unwrapped, raw_env) and old.unwrapped.config.num_players == 3
    assert old.unwrapped.metadata["name"] == "uno_v0"


def _quiet_make(make, *args, **kwargs):
    """``make`` of a deprecated id: our DeprecationWarning (checked), Gymnasium's "out of
    date" note aside."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = make(*args, **kwargs)
    ours = [w for w in caught if issubclass(w.category, DeprecationWarning)
            and "keeps its own observation" in str(w.message)]
    assert ours, [str(w.message) for w in caught]
    return env, str(ours[0].message)


def test_the_ids_before_shown_hand_warn_and_keep_their_observation():
    """``UnoSingleSeat-v2`` (make and make_vec) and ``UnoAEC-v0``: the same games, the
    observation before shown_hand (a prefix of today's), a warning naming the new id."""
    from uno_env.envs.legacy import legacy_size
    old, text = _quiet_make(gymnasium.make, "uno_env/UnoSingleSeat-v2", num_players=2,
                            opponents="heuristic", seed=3)
    assert "uno_env/UnoSingleSeat-v3" in text
    new = gymnasium.make("uno_env/UnoSingleSeat-v3", num_players=2, opponents="heuristic",
                         seed=3)
    n = legacy_size(new.unwrapped.config)
    assert n == 186 and old.observation_space.shape == (186,)
    assert new.observation_space.shape == (242,)
    (a, ia), (b, ib) = old.reset(seed=3), new.reset(seed=3)
    for _ in range(200):
        assert old.observation_space.contains(a)
        np.testing.assert_array_equal(a, b[:n])
        np.testing.assert_array_equal(ia["action_mask"], ib["action_mask"])
        action = int(np.flatnonzero(ib["action_mask"])[-1])
        a, ra, done_a, trunc_a, ia = old.step(action)
        b, rb, done_b, trunc_b, ib = new.step(action)
        assert (ra, done_a, trunc_a) == (rb, done_b, trunc_b)
        if done_a or trunc_a:
            (a, ia), (b, ib) = old.reset(), new.reset()
    venv, text = _quiet_make(gymnasium.make_vec, "uno_env/UnoSingleSeat-v2", num_envs=3,
                             num_players=2)
    assert "uno_env/UnoSingleSeat-v3" in text
    obs, infos = venv.reset(seed=1)
    assert obs.shape == (3, 186) and venv.single_observation_space.shape == (186,)
    for _ in range(60):
        obs, _, term, trunc, infos = venv.step(
            np.array([np.flatnonzero(m)[0] for m in infos["action_mask"]]))
        assert obs.shape == (3, 186)
        for i in np.flatnonzero(infos.get("_final_obs", np.zeros(3, bool))):
            assert infos["final_obs"][i].shape == (186,)
    aec, text = _quiet_make(pettingzoo.make, "aec", "uno_env/UnoAEC-v0", num_players=4)
    assert "uno_env/UnoAEC-v1" in text and aec.metadata["name"] == "uno_v0"
    assert aec.observation_space("player_0")["observation"].shape == (192,)
    aec.reset(seed=0)
    current = uno_env.env(num_players=4)
    current.reset(seed=0)
    for agent in ("player_0", "player_2"):
        np.testing.assert_array_equal(aec.observe(agent)["observation"],
                                      current.observe(agent)["observation"][:192])
        assert aec.observation_space(agent).contains(aec.observe(agent))


def test_top_level_exports():
    from uno_env.evaluation.tournament import tournament as tournament_function
    from uno_env.envs.every_seat import EverySeatBatch
    assert uno_env.EverySeatBatch is EverySeatBatch and uno_env.tournament is tournament_function
    assert {"EverySeatBatch", "tournament"} <= set(uno_env.__all__)
    assert all(hasattr(uno_env, name) for name in uno_env.__all__)
    result = uno_env.tournament(("random", "greedy"), num_players=2, num_games=20,
                                seed=0, threads=1, progress=False)
    assert result.num_games == 20


def test_simulate_is_the_function_and_simresult_the_class():
    """``uno_env.simulate`` is the function (not its module, ``uno_env.evaluation.simulation``)."""
    import inspect
    from uno_env.evaluation import simulation
    assert callable(uno_env.simulate) and inspect.isfunction(uno_env.simulate)
    assert uno_env.simulate is simulation.simulate
    assert inspect.isclass(uno_env.SimResult) and uno_env.SimResult is simulation.SimResult
    assert {"simulate", "SimResult"} <= set(uno_env.__all__)
    result = uno_env.simulate("classic", num_players=2, agents="random", num_games=8,
                              seed=0, threads=1)
    assert isinstance(result, uno_env.SimResult) and result.num_games == 8


def test_presets_are_read_only():
    with pytest.raises(TypeError):
        uno_env.PRESETS["mine"] = uno_env.Rules()
    with pytest.raises(TypeError):
        del uno_env.PRESETS["classic"]
    assert "classic" in uno_env.PRESETS
    assert uno_env.make_rules("classic", bluff=False).bluff is False


@pytest.mark.parametrize("old", sorted(__import__("uno_env._moved", fromlist=["MOVED"]).MOVED))
def test_old_module_paths_warn_and_name_the_new_one(old):
    """The 0.1 module paths still import for one minor release: a name read through one
    warns with its new path and is the new module's object (uno_env._moved)."""
    import importlib
    import warnings

    from uno_env._moved import MOVED
    new = importlib.import_module(MOVED[old])
    public = [n for n in vars(new) if not n.startswith("_")]
    name = public[0]
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=re.escape(MOVED[old])):
        value = getattr(module, name)
    assert value is getattr(new, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(uno_env, "Game") is uno_env.Game  # the top level never warns


#: the extra each moved module needs (``conftest.NEEDS``), if any
_EXTRA_OF = {"uno_env.envs.sb3": ("sb3_contrib", "rl"), "uno_env.envs.rllib": ("ray.rllib", "rllib"),
             "uno_env.apps.train_rllib": ("ray.rllib", "rllib"),
             "uno_env.envs.openspiel": ("pyspiel", "openspiel"),
             "uno_env.envs.openspiel_tree": ("pyspiel", "openspiel")}


@pytest.mark.parametrize("old", sorted(__import__("uno_env._moved", fromlist=["_"])
                                       .MOVED_MODULES))
def test_moved_module_paths_warn_and_are_the_new_module(old, monkeypatch):
    """A module path that moved out of ``uno_env.envs``/``uno_env.apps`` still imports:
    the import warns with the new path and gives the new module itself, run as its own
    import would run it (``import uno_env.envs.openspiel`` registers ``python_uno``)."""
    import importlib
    import sys

    from conftest import NEEDS
    from uno_env._moved import MOVED_MODULES
    if old in _EXTRA_OF:
        pytest.importorskip(_EXTRA_OF[old][0], reason=NEEDS[_EXTRA_OF[old][1]])
    new = importlib.import_module(MOVED_MODULES[old])
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=re.escape(MOVED_MODULES[old])):
        module = importlib.import_module(old)
    assert module is new
    parent, _, name = old.rpartition(".")
    monkeypatch.delitem(sys.modules, old)
    monkeypatch.delattr(sys.modules[parent], name, raising=False)
    with pytest.warns(DeprecationWarning, match=re.escape(MOVED_MODULES[old])):
        assert getattr(importlib.import_module(parent), name, None) is None
        exec(f"from {parent} import {name} as found", scope := {})
    assert scope["found"] is new


def test_the_old_openspiel_path_registers_the_game():
    pytest.importorskip("pyspiel", reason=__import__("conftest").NEEDS["openspiel"])
    import subprocess
    import sys
    probe = ("import warnings; warnings.simplefilter('ignore'); import uno_env.envs.openspiel;"
             " import pyspiel; print(pyspiel.load_game('python_uno').num_players())")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "2"


def test_plugins_load_once_for_threads_that_ask_at_once(monkeypatch):
    """The first look-ups from several threads at once (the server makes games in
    worker threads) all see every agent: none sees a half-loaded registry."""
    import threading

    from uno_env.players import registry
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "_FACTORIES", {})
    seen, start = [], threading.Barrier(8)

    def look():
        start.wait()
        seen.append(set(registry.agent_names()))

    threads = [threading.Thread(target=look) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and all("heuristic" in s and "mcts" in s for s in seen), seen
    assert all(s == seen[0] for s in seen)
