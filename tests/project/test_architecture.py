"""docs/architecture.md is the map of the package: every module it names exists, and
every module of ``uno_env`` and of ``agents`` is named there (a new module must be placed
on the map)."""
from __future__ import annotations

import pathlib
import re
from support import LAYER_OF, ROOT

PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _named() -> set[str]:
    paths = set(re.findall(r"`((?:uno_env/)?(?:engine|rules|envs|evaluation|apps|jax)/\w+\.py)`",
                           PAGE))
    paths |= set(re.findall(r"`(uno_env/\w+\.py)`", PAGE))
    named = {p if p.startswith("uno_env/") else f"uno_env/{p}" for p in paths}
    return named | set(re.findall(r"`(agents/\w+\.py)`", PAGE))


def _modules() -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / "uno_env").rglob("*.py")
            if p.name != "__init__.py" or p.parent.name == "uno_env"} | \
        {p.relative_to(ROOT).as_posix() for p in (ROOT / "agents").glob("*.py")
         if p.name != "__init__.py"}


def test_every_module_named_exists():
    missing = sorted(p for p in _named() if not (ROOT / p).is_file())
    assert missing == []


def test_every_module_is_named():
    unnamed = sorted(_modules() - _named())
    assert unnamed == [], "add them to docs/architecture.md"


def test_the_layers_of_the_engine_agree_with_the_layers_test():
    """The engine's table names each module once, at the layers ``test_layers`` keeps."""
    rows = re.findall(r"^\| (\d+)(?:-(\d+))? \| (.+?) \|",
                      PAGE[PAGE.index("## `uno_env.engine`"):], re.M)
    named = []
    for low, high, cell in rows:
        for module in re.findall(r"engine/(\w+)\.py", cell):
            named.append(module)
            assert int(low) <= LAYER_OF[module] <= int(high or low), (module, low, high)
    assert sorted(named) == sorted(LAYER_OF)
