"""``PPOAgent``: a policy network trained with PPO (``agents.train``), run in numpy.

    >>> agent = PPOAgent.load("ppo_classic_2p")        # the model shipped in the package
    >>> agent = PPOAgent.load("runs/ppo/policy.npz")   # or one you trained

A model file is a ``.npz`` holding the policy's layers (``w0, b0, w1, b1, ...``, the last
pair giving one logit per action), the observation ``scale`` the network multiplies its
input by, and a JSON ``meta`` record (preset, players, rule overrides, sizes, training
details); an UNO Flip model may add ``dark_table`` and ``meta["dark"]``, the features it
appends for the dark faces of the cards held (``uno_env.integrations.scaling.dark_face_table``). A model
trained with advice (``meta["advice"]``, an agent name: ``uno-bench train --advice
heuristic``) reads one more input per action: a one-hot of the move that agent would make
in the same position (``advice_features``), appended to the observation before scaling
and again to the last hidden layer's output (``uno_env.integrations.sb3.AdvisedPolicy``); such a model
needs the action mask to compute its logits. Playing needs only numpy: no
torch, no Stable-Baselines3. The agent picks the legal action with the highest logit
(``deterministic=True``, the default) or samples from the masked softmax.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from .base import (Agent, choose_from_logits, config_of, policy_batch,
                   split_observation)
from uno_env.rules.config import make_config
from uno_env.envs.legacy import legacy_size
from uno_env.integrations.scaling import dark_face_features

from uno_env.players.policy_file import POLICY_FORMAT as FORMAT  # noqa: E402
from uno_env.players.policy_file import policy_record  # noqa: E402
MODELS_DIR = Path(__file__).with_name("models")
_ACTIVATIONS = {"relu": lambda x: np.maximum(x, 0.0, out=x), "tanh": np.tanh}


def advice_features(advisor, observations, action_masks) -> np.ndarray:
    """float32[B, A]: one-hot of ``advisor``'s action (``act_batch``) in each row; a zero
    row where no action is legal (a finished game's last observation)."""
    obs = np.asarray(observations, np.float32)
    mask = np.asarray(action_masks)
    out = np.zeros(mask.shape, np.float32)
    live = np.flatnonzero(mask.any(axis=1))
    if len(live):
        out[live, advisor.act_batch(obs[live], mask[live])] = 1.0
    return out


def input_size(config, obs_size=None) -> int:
    """The observation entries a model of ``config`` reads: ``obs_size`` from its record,
    which is the configuration's observation or the vector before its ``shown_hand``
    (a model trained before that field came in); the whole observation if not given."""
    full = config.layout.obs_size
    if obs_size is None:
        return full
    legacy = legacy_size(config)
    if obs_size not in (full, legacy):
        raise ValueError(f"the model reads {obs_size} observation entries; "
                         f"{config.preset} with {config.num_players} players has {full}"
                         + (f" ({legacy} before shown_hand)" if legacy != full else ""))
    return int(obs_size)


def shipped_models() -> list[str]:
    """Names of the models shipped in the package (``PPOAgent.load(name)``)."""
    return sorted(p.stem for p in MODELS_DIR.glob("*.npz"))


class PPOAgent(Agent):
    """A trained policy network (see the module docstring)."""

    kernel = None

    def __init__(self, layers, scale, meta: dict, deterministic: bool = True, seed=None,
                 name: str | None = None, dark_table=None):
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32))
                       for w, b in layers]
        self.scale = np.asarray(scale, np.float32)
        self.meta = dict(meta)
        #: UNO Flip: the dark-face features (``uno_env.integrations.scaling.dark_face_table``) of
        #: ``hand_dark`` at observation slice ``meta["dark"]``; None when not used
        self.dark_table = None if dark_table is None else np.asarray(dark_table, np.float32)
        self._dark = None if self.dark_table is None else slice(*self.meta["dark"])
        self.activation = self.meta.get("activation", "relu")
        if self.activation not in _ACTIVATIONS:
            raise ValueError(f"unknown activation {self.activation!r}; valid: "
                             f"{', '.join(_ACTIVATIONS)}")
        self.deterministic = bool(deterministic)
        self.rng = np.random.default_rng(seed)
        self.name = name or self.meta.get("name", "ppo")
        self.config = make_config(self.meta["preset"], self.meta["num_players"],
                                  **self.meta.get("rules", {}))
        #: the observation entries the network reads: the first ``input_size`` of an
        #: observation (a model trained before ``shown_hand`` came in reads the vector
        #: before it, the earlier env ids' layout; ``uno_env.engine.observe``)
        self.input_size = input_size(self.config, self.meta.get("obs_size"))
        #: the agent whose move is an input of the network (``advice_features``), or None
        self.advisor = None
        if self.meta.get("advice"):
            from .baselines import make_agent
            self.advisor = make_agent(self.meta["advice"], self.config)
        self._check_shapes()

    # --- files ------------------------------------------------------------------------
    @classmethod
    def load(cls, path, deterministic: bool = True, seed=None, name: str | None = None):
        """Load a model file, or a shipped model by name (``shipped_models()``).
        ValueError for a missing, corrupt or foreign file."""
        p = Path(path)
        if not p.exists() and not p.suffix and (MODELS_DIR / f"{p.name}.npz").exists():
            p = MODELS_DIR / f"{p.name}.npz"
        if not p.exists():
            raise ValueError(f"no model file {str(path)!r}; shipped models: "
                             f"{', '.join(shipped_models()) or 'none'}")
        try:
            with np.load(p, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                n = len([k for k in data.files if k.startswith("w")])
                layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
                scale = data["scale"]
                dark_table = data["dark_table"] if "dark_table" in data.files else None
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError,
                json.JSONDecodeError) as err:
            raise ValueError(f"{str(path)!r} is not a uno-env PPO model file (.npz written "
                             f"by PPOAgent.save or uno-bench train): {err}") from None
        if meta.get("format") != FORMAT:
            raise ValueError(f"{str(path)!r} has format {meta.get('format')!r}; this "
                             f"version reads {FORMAT!r}")
        return cls(layers, scale, meta, deterministic=deterministic, seed=seed, name=name,
                   dark_table=dark_table)

    def save(self, path) -> Path:
        """Write the model file; its record gets the provenance of the process that
        made the model (``uno_env.provenance``) unless it already has one."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        if "provenance" not in self.meta:
            from uno_env.provenance import provenance
            self.meta["provenance"] = provenance(self.config, [self.meta.get("seed")])
        arrays = {"scale": self.scale, "meta": np.array(json.dumps(self.meta))}
        if self.dark_table is not None:
            arrays["dark_table"] = self.dark_table
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        with open(p, "wb") as f:
            np.savez_compressed(f, **arrays)
        return p

    def export_onnx(self, path) -> Path:
        """Write the policy as ONNX (observation and mask in, masked action logits out;
        ``agents.onnx_export``; the ``onnx`` extra). ``onnx:PATH`` plays it back
        (``agents.onnx_policy``)."""
        from .onnx_export import export_onnx
        return export_onnx(self, path)

    @classmethod
    def from_sb3(cls, model, config, **meta):
        """The policy of a trained sb3-contrib ``MaskablePPO`` (MLP policy with the
        ``uno_env.integrations.sb3`` features extractor) for ``config``; ``meta`` entries go to the
        file's record (``name=`` names the agent). Save it for the benchmark::

            uno_env.integrations.sb3.set_threads()   # torch on 1 thread
            model = MaskablePPO("MlpPolicy", venv, **uno_env.integrations.sb3.ppo_kwargs(venv))
            model.learn(1_000_000)
            PPOAgent.from_sb3(model, venv.config, name="mine").save("mine.npz")
            # uno-bench benchmark --agent mine.npz --track classic-2p

        (docs/your-agent.md)."""
        policy = model.policy
        extractor = policy.features_extractor
        dark_table = None
        if getattr(extractor, "dark", None) is not None:
            meta = {"dark": list(extractor.dark), **meta}
            dark_table = extractor.dark_table.detach().cpu().numpy()
        return cls.from_torch(list(policy.mlp_extractor.policy_net) + [policy.action_net],
                              extractor.scale, config, dark_table=dark_table, **meta)

    @classmethod
    def from_torch(cls, modules, scale, config, dark_table=None, **meta):
        """The policy of a torch actor: ``modules`` in order (``torch.nn.Linear`` layers
        with ``ReLU`` or ``Tanh`` between them, the last layer giving one logit per
        action; an ``nn.Sequential`` is such a list), applied to the observation times
        ``scale`` (float32[obs_size], a tensor or array), for ``config``; ``meta`` entries
        go to the file's record (``name=`` names the agent); ``dark_table``: UNO Flip's
        dark-face features (``from_sb3``). The self-play and CleanRL examples export their
        actors this way::

            PPOAgent.from_torch(agent.actor, agent.scale, config, name="mine").save("mine.npz")
        """
        import torch
        layers, activation = [], None
        for module in modules:
            if isinstance(module, torch.nn.Linear):
                layers.append((module.weight.detach().cpu().numpy(),
                               module.bias.detach().cpu().numpy()))
            elif isinstance(module, torch.nn.ReLU):
                activation = "relu"
            elif isinstance(module, torch.nn.Tanh):
                activation = "tanh"
            else:
                raise ValueError(f"cannot export layer {type(module).__name__}: Linear, "
                                 f"ReLU and Tanh only")
        if isinstance(scale, torch.Tensor):
            scale = scale.detach().cpu().numpy()
        record = policy_record(config, activation or "relu", **meta)
        return cls(layers, np.asarray(scale, np.float32), record, dark_table=dark_table)

    # --- checks -----------------------------------------------------------------------
    def _check_shapes(self) -> None:
        cfg = self.config
        d, a = self.input_size, cfg.layout.size
        width = d + (a if self.advisor is not None else 0)
        if self.scale.shape != (width,):
            raise ValueError(f"model scale has shape {self.scale.shape}, expected "
                             f"({width},) for {cfg.preset} with {cfg.num_players} players"
                             + (" and advice" if self.advisor is not None else ""))
        if self.dark_table is not None:
            where = self._dark
            if where.start < 0 or where.stop > d or where.stop <= where.start:
                raise ValueError(f"model dark-face slice {self.meta['dark']} does not fit "
                                 f"an observation of {d}")
            width += (where.stop - where.start) * self.dark_table.shape[1]
        for i, (w, b) in enumerate(self.layers):
            if i == len(self.layers) - 1 and self.advisor is not None:
                width += a                       # the advice, read again (``logits``)
            if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
                raise ValueError(f"model layer {i} has weights {w.shape} and bias "
                                 f"{b.shape}; expected ({b.shape[0] if b.ndim else '?'}, "
                                 f"{width}) weights")
            width = w.shape[0]
        if width != a:
            raise ValueError(f"model outputs {width} logits; {cfg.preset} with "
                             f"{cfg.num_players} players has {a} actions")

    def check_config(self, config) -> None:
        """ValueError unless this model was trained for ``config``'s shapes."""
        cfg = config_of(config)
        mine = self.config
        # the fields the network reads must be where it reads them: the vector before
        # shown_hand alike, and the shown hand too if the model reads it
        fits = cfg.layout.size == mine.layout.size \
            and legacy_size(cfg) == legacy_size(mine) \
            and (self.input_size == legacy_size(mine)
                 or cfg.layout.obs_size == mine.layout.obs_size)
        if not fits:
            raise ValueError(
                f"this model was trained for {mine.preset} with {mine.num_players} "
                f"players (observation {self.input_size}, {mine.layout.size} actions); "
                f"the environment has observation {cfg.layout.obs_size} and "
                f"{cfg.layout.size} actions")

    @classmethod
    def for_env(cls, env, path="ppo_classic_2p", **kwargs):
        agent = cls.load(path, **kwargs)
        agent.check_config(env)
        return agent

    # --- acting -----------------------------------------------------------------------
    def logits(self, observations, action_masks=None) -> np.ndarray:
        """float32[B, A]: the network's action logits (before masking). A model with
        advice needs ``action_masks`` (its advisor's move is an input)."""
        full = np.asarray(observations, np.float32)
        obs = full[:, :self.input_size]
        if self.advisor is not None:
            if action_masks is None:
                raise ValueError(f"this model reads the {self.meta['advice']!r} agent's "
                                 f"move as an input: pass action_masks to logits()")
            obs = np.concatenate([obs, advice_features(self.advisor, full, action_masks)],
                                 axis=1)
        x = obs * self.scale
        if self.dark_table is not None:
            x = np.concatenate([x, dark_face_features(obs, self._dark, self.dark_table)],
                               axis=1)
        act = _ACTIVATIONS[self.activation]
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            if i == last and self.advisor is not None:     # the advice skips ahead
                x = np.concatenate([x, obs[:, self.input_size:]], axis=1)
            x = x @ w.T + b
            if i < last:
                x = act(x)
        return x

    def act_batch(self, observations, action_masks) -> np.ndarray:
        obs, mask = policy_batch(observations, action_masks, self.config, self.input_size,
                                 self.layers[-1][0].shape[0])
        logits = np.where(mask, self.logits(obs, mask), -np.inf)
        return choose_from_logits(logits, self.deterministic, self.rng)

    def act(self, observation, action_mask=None) -> int:
        obs, mask = split_observation(observation, action_mask)
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def __repr__(self) -> str:
        return (f"PPOAgent({self.name!r}, {self.config.preset!r}, "
                f"{self.config.num_players} players)")
