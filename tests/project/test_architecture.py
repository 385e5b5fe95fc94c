"""docs/architecture.md is the map of the package: every module it names exists, and
every module of ``uno_env`` and of ``agents`` is named there (a new module must be placed
on the map). Each package's ``__init__`` docstring lists its modules (and the engine's,
its layers) as they are."""
from __future__ import annotations

import ast
import pathlib
import re

import pytest
from support import LAYER_OF, LAYERS, PACKAGES, ROOT

PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _named() -> set[str]:
    packages = "|".join(PACKAGES)
    paths = set(re.findall(rf"`((?:uno_env/)?(?:{packages})/(?:\w+/)*\w+\.py)`", PAGE))
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


PACKAGE_DIRS = sorted(p.parent.relative_to(ROOT).as_posix()
                      for p in [*(ROOT / "uno_env").rglob("__init__.py"),
                                ROOT / "agents" / "__init__.py"]
                      if p.parent != ROOT / "uno_env")


def _docstring(package: str) -> str:
    return ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text())) or ""


@pytest.mark.parametrize("package", PACKAGE_DIRS)
def test_each_package_docstring_lists_its_modules(package):
    """The first column of the docstring's table (``name`` at the start of a row, then
    two spaces or more; or the modules after a layer number) is exactly the package's modules and
    subpackages."""
    here = ROOT / package
    modules = {p.stem for p in here.glob("*.py") if p.name != "__init__.py"} | \
        {p.parent.name for p in here.glob("*/__init__.py")}
    listed = set()
    for row in re.findall(r"^(?:\d+\s+)?((?:``\w+``,? ?)+) {2,}\S", _docstring(package),
                          re.M):
        listed.update(re.findall(r"``(\w+)``", row))
    assert listed == modules, (f"{package}/__init__.py lists {sorted(listed - modules)} "
                               f"that are not modules and leaves out "
                               f"{sorted(modules - listed)}")


def test_the_engine_docstring_has_the_layers_of_the_layers_test():
    rows = re.findall(r"^(\d+)\s+((?:``\w+``,? ?)+)", _docstring("uno_env/engine"), re.M)
    layers: dict[int, list[str]] = {}
    for k, cell in rows:
        layers.setdefault(int(k), []).extend(re.findall(r"``(\w+)``", cell))
    assert {k: sorted(v) for k, v in layers.items()} == \
        {k: sorted(names) for k, names in enumerate(LAYERS)}
