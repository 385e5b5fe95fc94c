"""``BeliefModel``: a learned belief over the hidden hands, run in numpy.

    >>> belief = BeliefModel.load("belief_classic_4p")   # agents/models/belief
    >>> game = Game("classic", 4, seed=0, public_record=True)
    >>> q = belief.predict(game.observe(0)[None])              # [1, P-1, K]
    >>> expected = belief.expected_hands(game.observe(0)[None])  # [1, P-1, K] counts
    >>> deal = belief.sample_hands(game.observe(0), rng)        # int[P-1, K]

It reads one seat's observation with the public record (``public_record=True``,
docs/environments.md) and gives, for each other seat (relative seat 1 .. P-1, as the
observation orders them), a distribution over the card types of the cards in its hand
that the observer does not know: ``predict``. Everything it needs is in that vector: the
cards the observer has not seen (the deck less its hand and the discard pile,
``hidden_pool``), each hand's size, and the cards the observer knows are in a hand
(``rec_known``, from a challenge). Those are the hard facts, and the other two methods
keep them exactly:

* ``expected_hands``: each seat's expected count of each type: the known cards plus the
  predicted share of the rest, scaled (iterative proportional fitting, with the draw pile
  as the last row) so that each hand sums to its size and no type is expected more often
  than the hidden cards hold it;
* ``sample_hands``: a deal of the hidden cards: every hand its size, the known cards in
  their hands, each type at most as often as it is hidden.

A model file is a ``.npz``: the layers ``w0, b0, w1, b1, ...`` (ReLU between them; the
last gives ``(P - 1) * K`` logits, added to the log of the hidden pool's counts, so an
untrained network is a uniform redraw) and a JSON ``meta`` (preset, players, the
observation's size and record version, sizes, training). The input is
``log1p(observation)``. ``benchmarks/belief_train.py`` trains one;
``benchmarks/belief_quality.py`` measures it on held-out games.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from uno_env.engine.obs_layout import RECORD_VERSION, observation_slices, record_slices
from uno_env.rules.config import make_config

#: the shipped belief models, apart from the policies of ``agents/models`` (which
#: ``agents.ppo.shipped_models`` registers as agents)
MODELS_DIR = Path(__file__).with_name("models") / "belief"
#: iterative proportional fitting sweeps of ``expected_hands``
FIT_SWEEPS = 30


class BeliefModel:
    """A belief network and the configuration it was trained for (module docstring)."""

    def __init__(self, weights: list[np.ndarray], meta: dict):
        self.meta = meta
        self.config = make_config(meta["preset"], meta["players"],
                                  **meta.get("rules", {}))
        cfg = self.config
        if meta.get("record_version") != RECORD_VERSION:
            raise ValueError(f"the model reads record version {meta.get('record_version')}"
                             f", this uno-env writes version {RECORD_VERSION}")
        self.num_types, self.num_players = cfg.deck.num_types, cfg.num_players
        self.obs_size = cfg.observation_size(True)
        if meta.get("obs_size") != self.obs_size:
            raise ValueError(f"the model reads {meta.get('obs_size')} observation entries; "
                             f"{cfg.preset} with {cfg.num_players} players and the record "
                             f"has {self.obs_size}")
        self.weights = [np.asarray(w, np.float32) for w in weights]
        base = observation_slices(self.num_types, self.num_players, cfg.rules)
        rec = record_slices(self.num_types, self.num_players, cfg.rules)
        self._hand, self._played = base["hand"], base["played"]
        self._sizes, self._pile = base["opponent_cards"], base["draw_pile"]
        self._known = rec["rec_known"]
        self._deck = np.asarray(cfg.deck.type_count, np.float32)

    # --- files --------------------------------------------------------------------------
    @classmethod
    def load(cls, name_or_path) -> "BeliefModel":
        """A shipped model by name (``agents/models/belief/<name>.npz``) or a path."""
        path = Path(name_or_path)
        if not path.suffix:
            path = MODELS_DIR / f"{name_or_path}.npz"
        if not path.exists():
            shipped = sorted(p.stem for p in MODELS_DIR.glob("*.npz"))
            raise ValueError(f"no belief model {str(name_or_path)!r}; shipped: "
                             f"{', '.join(shipped) or 'none'}")
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            n = sum(1 for k in data.files if k.startswith("w"))
            weights = []
            for i in range(n):
                weights += [data[f"w{i}"], data[f"b{i}"]]
        return cls(weights, meta)

    def save(self, path) -> None:
        arrays = {}
        for i in range(len(self.weights) // 2):
            arrays[f"w{i}"], arrays[f"b{i}"] = self.weights[2 * i], self.weights[2 * i + 1]
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, a in {**arrays, "meta": np.array(json.dumps(self.meta))}.items():
                with z.open(f"{name}.npy", "w") as f:
                    np.lib.format.write_array(f, np.asarray(a))

    # --- what the observation says for certain --------------------------------------------
    def _rows(self, obs) -> np.ndarray:
        obs = np.asarray(obs, np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"observations[B, {self.obs_size}] with the public record "
                             f"(public_record=True) are expected, got {obs.shape}")
        return obs

    def hidden_pool(self, obs) -> np.ndarray:
        """float32[B, K]: copies of each type the observer has not seen (the deck less
        its hand and the discard pile): the other hands and the draw pile."""
        obs = self._rows(obs)
        return np.maximum(self._deck - obs[:, self._hand] - obs[:, self._played], 0.0)

    def hand_sizes(self, obs) -> np.ndarray:
        """float32[B, P-1]: each other seat's hand size."""
        return self._rows(obs)[:, self._sizes]

    def known(self, obs) -> np.ndarray:
        """float32[B, P-1, K]: the cards the observer knows are in each hand."""
        obs = self._rows(obs)
        return obs[:, self._known].reshape(len(obs), self.num_players - 1, self.num_types)

    # --- the network ---------------------------------------------------------------------
    def predict(self, obs) -> np.ndarray:
        """float32[B, P-1, K]: for each other seat, the distribution of the type of a
        card of its hand the observer does not know (0 for types none of which is
        hidden)."""
        obs = self._rows(obs)
        x = np.log1p(np.maximum(obs, 0.0))
        w = self.weights
        for i in range(0, len(w) - 2, 2):
            x = np.maximum(x @ w[i] + w[i + 1], 0.0)
        logits = (x @ w[-2] + w[-1]).reshape(len(obs), self.num_players - 1,
                                             self.num_types)
        pool = self.hidden_pool(obs)[:, None, :] - self.known(obs).sum(axis=1)[:, None, :]
        pool = np.maximum(pool, 0.0)
        with np.errstate(divide="ignore"):
            logits = logits + np.log(pool)
        logits -= logits.max(axis=2, keepdims=True)
        p = np.exp(logits)
        return (p / np.maximum(p.sum(axis=2, keepdims=True), 1e-30)).astype(np.float32)

    def expected_hands(self, obs) -> np.ndarray:
        """float32[B, P-1, K]: each other seat's expected count of each type: its known
        cards plus the predicted rest, fitted so that each hand sums to its size and
        the hands with the draw pile hold exactly the hidden cards (module docstring)."""
        obs = self._rows(obs)
        known = self.known(obs)
        rest = np.maximum(self.hidden_pool(obs) - known.sum(axis=1), 0.0)    # [B, K]
        need = np.maximum(self.hand_sizes(obs) - known.sum(axis=2), 0.0)     # [B, P-1]
        pile = np.maximum(rest.sum(axis=1) - need.sum(axis=1), 0.0)           # [B]
        total = np.maximum(rest.sum(axis=1, keepdims=True), 1e-9)
        m = np.concatenate([need[:, :, None] * self.predict(obs),
                            (pile[:, None] * rest / total)[:, None, :]], axis=1)
        rows = np.concatenate([need, pile[:, None]], axis=1)
        for _ in range(FIT_SWEEPS):
            m *= (rest / np.maximum(m.sum(axis=1), 1e-9))[:, None, :]
            m *= (rows / np.maximum(m.sum(axis=2), 1e-9))[:, :, None]
        return (known + m[:, :-1]).astype(np.float32)

    def sample_hands(self, obs, rng: np.random.Generator,
                     sharpness: float = 1.0) -> np.ndarray:
        """int64[P-1, K]: the other hands of one deal drawn from the belief for one
        observation (float32[D]): the known cards where they are, the rest drawn card by
        card without replacement, seat by seat in a random order, each type weighted by
        the seat's expected count per hidden copy (``expected_hands``) raised to the
        power ``sharpness`` (1: as the belief says; above 1, deals nearer its most
        likely hands)."""
        obs = self._rows(np.asarray(obs, np.float32)[None])
        known = self.known(obs)[0].astype(np.int64)
        left = np.maximum(self.hidden_pool(obs)[0].astype(np.int64) - known.sum(axis=0), 0)
        need = np.maximum(self.hand_sizes(obs)[0].astype(np.int64) - known.sum(axis=1), 0)
        expected = self.expected_hands(obs)[0] - known
        rate = (np.maximum(expected, 0.0) / np.maximum(left, 1)[None, :] + 1e-6) \
            ** float(sharpness)
        hands = known.copy()
        for k in rng.permutation(self.num_players - 1):
            for _ in range(int(min(need[k], left.sum()))):
                w = left * rate[k]
                t = int(np.searchsorted(np.cumsum(w), rng.random() * w.sum(), side="right"))
                t = min(t, self.num_types - 1)
                while left[t] == 0:   # float edge: the next type with a card left
                    t = (t + 1) % self.num_types
                left[t] -= 1
                hands[k, t] += 1
        return hands
