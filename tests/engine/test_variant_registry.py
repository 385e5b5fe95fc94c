"""Each variant is declared once (``uno_env/engine/variants.py``), and the declaration is
complete: a variant missing its module, an entry name, a deck, a by-spec kernel, a
preset, a rules section or a golden hash fails here (docs/adding-a-variant.md)."""
from __future__ import annotations

import importlib
import json
import pathlib
import re

import pytest

from uno_env.engine import jit
from uno_env.engine.variants import BY_DECK, VARIANTS
from uno_env.rules import PRESETS
from uno_env.rules.cards import DECKS
from support import ROOT

NAMES = [v.name for v in VARIANTS]


def test_names_modules_and_spec_classes_are_unique():
    assert len(set(NAMES)) == len(NAMES)
    assert len({v.module for v in VARIANTS}) == len(VARIANTS)
    assert len({v.spec_class.__name__ for v in VARIANTS}) == len(VARIANTS)


def test_every_deck_selects_exactly_one_variant():
    claimed = [d for v in VARIANTS for d in v.decks]
    assert sorted(claimed) == sorted(DECKS), "each deck of cards.DECKS in one variant"
    assert set(BY_DECK) == set(DECKS)


@pytest.mark.parametrize("name", NAMES)
def test_variant_module_has_the_entry_names(name):
    variant = next(v for v in VARIANTS if v.name == name)
    module = importlib.import_module(f"uno_env.engine.{variant.module}")
    for entry in ("legal_mask", "apply_action", "observe_fields"):
        assert callable(getattr(module, entry, None)), f"engine/{variant.module}.py: {entry}"


def test_the_jit_and_the_state_derive_from_the_declaration():
    from uno_env.engine import state
    assert jit.VARIANT_MODULES == {v.name: v.module for v in VARIANTS}
    assert state.SPEC_CLASSES == {v.name: v.spec_class for v in VARIANTS}


def _by_spec_stubs():
    """Every by-spec function of the engine (``jit.by_spec``), by module."""
    from uno_env.engine import entry  # noqa: F401  (imports every engine module)
    out = []
    for path in sorted((ROOT / "uno_env" / "engine").glob("*.py")):
        module = importlib.import_module(f"uno_env.engine.{path.stem}")
        for name, obj in vars(module).items():
            impls = getattr(obj, "implementations", None)
            if impls is not None and getattr(obj, "__module__", None) == module.__name__ \
                    and getattr(obj, "dispatch_argument", None) == "sp":
                out.append((f"{path.stem}.{name}", impls))
    return out


#: by-spec kernels that only double-sided decks call (the face on a card's other side)
DOUBLE_SIDED_ONLY = {"faces.other_face"}


def test_every_by_spec_kernel_has_an_implementation_for_every_variant():
    stubs = _by_spec_stubs()
    assert len(stubs) >= 15, [s for s, _ in stubs]
    missing = [(stub, v.name) for stub, impls in stubs for v in VARIANTS
               if v.spec_class not in impls and None not in impls
               and (v.double_sided or stub not in DOUBLE_SIDED_ONLY)]
    assert missing == [], "register these (docs/adding-a-variant.md)"


@pytest.mark.parametrize("name", NAMES)
def test_variant_has_a_preset_a_rules_section_a_warmup_preset_and_golden_hashes(name):
    from uno_env.apps.warmup import VARIANT_PRESETS
    variant = next(v for v in VARIANTS if v.name == name)
    presets = [p for p, r in PRESETS.items() if r.variant == name]
    assert presets, f"no preset compiles {name}"
    assert PRESETS[VARIANT_PRESETS[name]].variant == name
    rules_md = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for section in re.findall(r"\d+", variant.section):
        assert re.search(rf"^## {section}\. ", rules_md, re.M), f"docs/rules.md ## {section}."
    golden = json.loads((ROOT / "tests" / "golden_hashes.json").read_text())
    keys = " ".join(golden) if isinstance(golden, dict) else json.dumps(golden)
    assert any(f"/{p}/" in keys for p in presets), f"no golden hash plays {name}"


@pytest.mark.parametrize("name", NAMES)
def test_observation_fields_and_action_blocks_are_known(name):
    from uno_env.engine import codes as C
    variant = next(v for v in VARIANTS if v.name == name)
    assert set(variant.obs_fields) <= set(C.OBS_FIELDS)
    assert set(variant.action_blocks) <= {"ace", "give"}
