"""Helpers the test folders share, importable as ``support`` (``pythonpath`` in
pyproject.toml puts ``tests/`` and the repository root on the path, so no test edits
``sys.path``; the repository root makes ``benchmarks.<script>`` and
``examples.<script>`` importable as modules)."""
from __future__ import annotations

import pathlib

#: the repository's root
ROOT = pathlib.Path(__file__).resolve().parents[1]
#: the golden hashes and replays (``tests/engine/test_golden*.py``)
GOLDEN_HASHES = ROOT / "tests" / "golden_hashes.json"
GOLDEN_REPLAYS = ROOT / "tests" / "golden"

#: the engine's modules by layer (``uno_env/engine/__init__.py``, docs/architecture.md):
#: a module may import modules of strictly lower layers only (``tests/engine/test_layers.py``)
LAYERS = [
    ["_cache", "_link_only", "codes", "variants", "names"],
    ["jit", "obs_layout"],
    ["rng", "state", "bits"],
    ["faces", "tallies"],
    ["piles"],
    ["turns"],
    ["plays", "rounds"],
    ["classic", "house", "flip", "onepiece"],
    ["dispatch"],
    ["observe", "determinize"],
    ["policies", "belief", "public_record"],
    ["batch", "learner"],
    ["search", "soak"],
    ["entry"],
]
LAYER_OF = {name: k for k, names in enumerate(LAYERS) for name in names}
#: uno_env's packages, lowest first: a module imports from its own package and the
#: packages below it only
PACKAGES = ["engine", "rules", "envs", "players", "evaluation", "integrations", "jax", "apps"]
