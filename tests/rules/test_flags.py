"""Each rule flag is declared once, as a field of ``Rules`` with its ``Flag``
(``uno_env/rules/ruleset.py``): the engine's slots, validation, the docs table and the
command line's help all follow from that declaration."""
from __future__ import annotations

import dataclasses
import pathlib
import re

import pytest

from uno_env.engine import codes as C
from uno_env.engine.variants import BY_NAME
from uno_env.rules import PRESETS, Rules, make_rules
from uno_env.rules.ruleset import FLAGS, flag_table
from support import ROOT



def test_every_field_of_rules_is_a_declared_flag():
    assert list(FLAGS) == [f.name for f in dataclasses.fields(Rules)]
    for name, spec in FLAGS.items():
        assert spec.doc and spec.sections, name
        for v in spec.variants or ():
            assert v in BY_NAME, (name, v)


def test_compiled_slots_are_the_engines_r_constants_one_each():
    slots = {name: spec.slot for name, spec in FLAGS.items() if spec.slot is not None}
    engine = {n: v for n, v in vars(C).items() if n.startswith("R_")}
    assert sorted([*slots.values(), C.R_NUM_PLAYERS]) == sorted(engine.values())
    assert sorted(engine.values()) == list(range(C.NUM_RULES)), "R_* fill 0..NUM_RULES-1"


@pytest.mark.parametrize("name", [n for n, s in FLAGS.items() if s.values])
def test_each_value_of_a_choice_flag_compiles_to_its_own_code(name):
    spec = FLAGS[name]
    seen = set()
    for value in spec.values:
        base = next((p for p, r in PRESETS.items()
                     if spec.variants is None or r.variant in spec.variants), None)
        overrides = {name: value}
        if name == "scoring" and value == "elimination":
            base, overrides = "onepiece", {name: value, "target_score": 500}
        rules = make_rules(base, **overrides)
        code = int(rules.compile(4)[spec.slot])
        assert code == spec.encode(value)
        seen.add(code)
    assert len(seen) == len(spec.values)


@pytest.mark.parametrize("name", [n for n, s in FLAGS.items() if s.variants])
def test_a_flag_off_its_variants_names_itself_and_where_it_applies(name):
    spec = FLAGS[name]
    default = Rules.__dataclass_fields__[name].default
    other = {bool: (not default)}.get(type(default))
    if other is None and spec.low is not None:
        other = spec.low if default != spec.low else spec.high  # an in-range int
    if other is None:
        other = next(v for v in spec.values if v != default) if spec.values else (1, 1, 1, 1)
    outside = next(p for p, r in PRESETS.items() if r.variant not in spec.variants
                   and r.variant != "house")
    with pytest.raises(ValueError, match=f"{name}.*not supported with the"):
        make_rules(outside, **{name: other})


def _anchors(page: str) -> dict[str, str]:
    """Section number -> the heading's anchor, as mkdocs' toc makes it."""
    out = {}
    for number, title in re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? (.+)$", page, re.M):
        slug = re.sub(r"[^\w\s-]", "", f"{number} {title}".lower()).strip()
        out[number] = re.sub(r"[\s]+", "-", slug)
    return out


def test_docs_flag_table_is_the_declaration():
    """docs/rules.md's "Rule flags at a glance" is ``flag_table()``: regenerate it with
    ``python -c "from uno_env.rules.ruleset import flag_table; print(flag_table())"``
    (this test prints the expected table, anchors included)."""
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    expected = flag_table(_anchors(page))
    table = page[page.index("## Rule flags at a glance"):]
    table = table[table.index("| flag |"):]
    table = table[:table.index("\n\n") + 1] if "\n\n" in table else table
    assert table == expected, "\n" + expected


def test_cli_rule_help_names_every_flag():
    from uno_env.apps.cli import RULE_HELP
    for name in FLAGS:
        assert name in RULE_HELP
