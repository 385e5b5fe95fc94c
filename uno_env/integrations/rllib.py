"""RLlib integration (needs the ``rllib`` extra): a native multi-agent env, self-play PPO
with RLlib's action-masking RLModule, and export of the trained policy as an agent.

    >>> from uno_env.integrations.rllib import UnoMultiAgentEnv, ppo_config
    >>> algo = ppo_config("classic", num_players=2).build_algo()

``uno_env.integrations.train_rllib.train_rllib`` runs the whole self-play job
(``uno-bench train --framework rllib ...`` on the command line).

The functions (``ppo_config``, ``export_policy``,
``agent_from_checkpoint``) default to ``num_players=2``, as the SB3 job does
(``agents.train``: the shipped model's and the README figures' setting; a checkpoint is
read back with the default it was trained with); ``UnoMultiAgentEnv`` defaults to 4, as
every environment does.

``UnoMultiAgentEnv`` is an RLlib ``MultiAgentEnv`` (RLlib's new API stack) over the AEC
game (``uno_env.envs.aec.raw_env``): agents ``player_0 .. player_{N-1}``; each step returns the
observation of the agent to move only (turn-based, as RLlib's ``PettingZooEnv`` wrapper
does), and the final step returns every agent's. An agent's reward is everything it was
owed since its last decision (the AEC env's cumulative reward), delivered with its next
observation or at the end. The observation is ``{"observations": float32[D] scaled to
about unit size (uno_env.integrations.scaling), "action_mask": float32[A]}``: the layout RLlib's
``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes``) expects, so
the policy never samples an illegal action. A native env rather than RLlib's
``PettingZooEnv`` wrapper because that module needs those key names and a float mask.

Self-play: every agent maps to the one module ``"shared"`` (``SHARED``), so each game's
experience from every seat trains the same policy.

``export_policy`` turns the trained module into an ``agents.PPOAgent`` (the actor MLP's
weights and the observation scale, numpy only): it plays in tournaments (both backends),
the AEC env and ``evaluate``, and saves to the ``.npz`` format ``uno-bench tournament
--agents model.npz`` reads.
"""
from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np

from uno_env.evaluation.ray_runtime import MissingExtra

RLLIB_EXTRA = ('RLlib training needs the "rllib" extra: pip install torch==2.13.0 '
               '--extra-index-url https://download.pytorch.org/whl/cpu && '
               'pip install -e ".[rllib]"')
SHARED = "shared"


def require_rllib():
    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as err:
        raise MissingExtra(f"{RLLIB_EXTRA} ({err})") from None


require_rllib()

from ray.rllib.env.multi_agent_env import MultiAgentEnv  # noqa: E402


class UnoMultiAgentEnv(MultiAgentEnv):
    """UNO for RLlib's multi-agent API (module docstring). ``config`` (RLlib's
    ``env_config``): ``preset``, ``num_players`` and rule flags."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        from uno_env.envs.aec import raw_env
        from uno_env.integrations.scaling import config_scale
        config = dict(config or {})
        preset = config.pop("preset", "classic")
        num_players = config.pop("num_players", 4)
        self.aec = raw_env(preset, num_players, **config)
        cfg = self.aec.config
        self.config = cfg
        self.scale = config_scale(cfg)
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        d, a = cfg.layout.obs_size, cfg.layout.size
        space = gymnasium.spaces.Dict({
            "observations": gymnasium.spaces.Box(-np.inf, np.inf, (d,), np.float32),
            "action_mask": gymnasium.spaces.Box(0.0, 1.0, (a,), np.float32),
        })
        self.observation_spaces = {name: space for name in self.possible_agents}
        self.action_spaces = {name: cfg.action_space for name in self.possible_agents}
        self.observation_space = gymnasium.spaces.Dict(self.observation_spaces)
        self.action_space = gymnasium.spaces.Dict(self.action_spaces)

    def _obs(self, agent):
        o = self.aec.observe(agent)
        return {"observations": (o["observation"] * self.scale).astype(np.float32),
                "action_mask": o["action_mask"].astype(np.float32)}

    def reset(self, *, seed=None, options=None):
        """With ``seed`` the games that follow are games 0, 1, ... of that seed."""
        self.aec.reset(seed=seed)
        self.agents = list(self.possible_agents)
        agent = self.aec.agent_selection
        return {agent: self._obs(agent)}, {}

    def step(self, action_dict):
        aec = self.aec
        agent = aec.agent_selection
        aec.step(int(action_dict[agent]))
        cum = aec._cumulative_rewards
        terminated = all(aec.terminations.values())
        truncated = all(aec.truncations.values())
        if terminated or truncated:      # the game is over: every agent's last word
            names = list(self.possible_agents)
            obs = {n: self._obs(n) for n in names}
            rewards = {n: float(cum[n]) for n in names}
            return obs, rewards, {"__all__": terminated}, {"__all__": truncated}, {}
        nxt = aec.agent_selection
        return ({nxt: self._obs(nxt)}, {nxt: float(cum[nxt])}, {"__all__": False},
                {"__all__": False}, {})


def ppo_config(preset: str = "classic", num_players: int = 2, seed: int = 0,
               hidden=(256, 256), activation: str = "tanh", env_runners: int = 0,
               train_batch_size: int = 4000, minibatch_size: int = 500,
               num_epochs: int = 4, lr: float = 3e-4, gamma: float = 0.995,
               entropy_coeff: float = 0.01, **rules):
    """RLlib ``PPOConfig`` for self-play on ``UnoMultiAgentEnv`` with the action-masking
    RLModule (new API stack). ``env_runners=0`` samples in the driver; more puts that
    many EnvRunner actors on the Ray cluster."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    if activation not in ("tanh", "relu"):
        raise ValueError(f"activation must be tanh or relu, got {activation!r}")
    env_config = {"preset": preset, "num_players": num_players, **rules}
    UnoMultiAgentEnv(env_config)        # bad rules fail here, not in an EnvRunner
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"fcnet_hiddens": [int(h) for h in hidden],
                                        "fcnet_activation": activation,
                                        "vf_share_layers": False})
    return (PPOConfig()
            # RLlib's env pre-check steps with unmasked random actions, which the env
            # rejects as illegal (as RLlib's own ActionMaskEnv does); the tests and
            # UnoMultiAgentEnv(env_config) above check the env instead
            .environment(UnoMultiAgentEnv, env_config=env_config,
                         disable_env_checking=True)
            .env_runners(num_env_runners=int(env_runners))
            .multi_agent(policies={SHARED},
                         policy_mapping_fn=lambda agent_id, episode, **kw: SHARED)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED: module}))
            .training(train_batch_size_per_learner=int(train_batch_size),
                      minibatch_size=int(minibatch_size), num_epochs=int(num_epochs),
                      lr=lr, gamma=gamma, entropy_coeff=entropy_coeff)
            .debugging(seed=int(seed)))


def _actor_layers(module):
    """The actor's path through an RLlib PPO module: (Linear layers, activation)."""
    import torch
    enc = module.encoder
    actor = getattr(enc, "actor_encoder", None) or getattr(enc, "encoder", None)
    if actor is None:
        raise ValueError(f"cannot find the actor encoder of {type(module).__name__}")
    layers, activations = [], set()
    for part in (actor, module.pi):
        for m in part.modules():
            if isinstance(m, torch.nn.Linear):
                layers.append((m.weight.detach().cpu().numpy(),
                               m.bias.detach().cpu().numpy()))
            elif isinstance(m, torch.nn.ReLU):
                activations.add("relu")
            elif isinstance(m, torch.nn.Tanh):
                activations.add("tanh")
            elif len(list(m.children())) == 0 and not isinstance(m, torch.nn.Identity):
                raise ValueError(f"cannot export layer {type(m).__name__}: the export "
                                 f"takes a plain MLP (Linear, ReLU or Tanh)")
    if len(activations) > 1:
        raise ValueError(f"cannot export mixed activations {sorted(activations)}")
    return layers, (activations.pop() if activations else "relu")


def export_policy(module, preset: str = "classic", num_players: int = 2,
                  name: str = "rllib_ppo", **meta_and_rules):
    """A trained-policy agent (``agents.PPOAgent``, numpy, through
    ``uno_env.players.registry``) playing like the RLlib module's greedy policy: the same
    masked logits, argmax over the legal actions."""
    from uno_env.players.policy_file import policy_record
    from uno_env.players.registry import policy_agent
    from uno_env.rules.config import make_config
    from uno_env.integrations.scaling import config_scale
    meta = {k: meta_and_rules.pop(k) for k in list(meta_and_rules)
            if k in ("trained_steps", "iterations", "seed")}
    config = make_config(preset, num_players, **meta_and_rules)
    layers, activation = _actor_layers(module)
    record = policy_record(config, activation, name=name, trainer="rllib-ppo-selfplay",
                           **meta)
    return policy_agent(layers, config_scale(config), record, name=name)


def load_module(checkpoint):
    """The trained ``"shared"`` RLModule of a checkpoint written by ``train_rllib`` (or
    any ``Algorithm.save_to_path`` of ``ppo_config``)."""
    from ray.rllib.core.rl_module.rl_module import RLModule
    path = Path(checkpoint)
    path = path / "learner_group" / "learner" / "rl_module" / SHARED \
        if (path / "learner_group").exists() else path
    if not path.exists():
        raise ValueError(f"no RLlib checkpoint at {str(checkpoint)!r}")
    return RLModule.from_checkpoint(str(path.resolve()))


def agent_from_checkpoint(checkpoint, preset: str = "classic", num_players: int = 2,
                          name: str = "rllib_ppo", **rules):
    """``export_policy`` of a checkpoint's module: an agent for tournaments."""
    return export_policy(load_module(checkpoint), preset, num_players, name=name, **rules)
