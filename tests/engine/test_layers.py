"""The code's layers point one way, and each variant compiles only its own code.

* inside ``uno_env.engine`` a module imports only modules of lower layers (the list in
  ``uno_env/engine/__init__.py``), so there is no circular import and no variant module
  reaches another;
* no module of ``uno_env`` imports the ``agents`` package (it sits above ``uno_env``),
  at module level or inside a function, and the imports among the modules of
  ``uno_env`` and ``agents`` form no cycle (function bodies included);
* a variant's cache key covers exactly the files it compiles, and compiling classic UNO
  types no house, Flip or One Piece kernel.
"""
from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest

from uno_env.engine import jit as _jit
from support import LAYER_OF, LAYERS, PACKAGES, ROOT

ENGINE = ROOT / "uno_env" / "engine"



def _imports(path: pathlib.Path) -> set[str]:
    """Every module path imported anywhere in the file (function bodies included); a
    relative import (``from .ppo import x``, as the ``agents`` package's modules import
    each other) by the absolute path it resolves to from the file's place under ROOT."""
    rel = path.resolve().relative_to(ROOT).with_suffix("").parts
    package = rel[:-1]                    # __init__.py's package is its folder, too
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module
            out.add(module)
            out.update(f"{module}.{a.name}" for a in node.names)
    return out


def test_every_engine_module_has_a_layer():
    names = {p.stem for p in ENGINE.glob("*.py")} - {"__init__"}
    assert names == set(LAYER_OF), "add the module to LAYERS (and the engine docstring)"


@pytest.mark.parametrize("name", sorted(LAYER_OF))
def test_engine_module_imports_only_lower_layers(name):
    for imported in _imports(ENGINE / f"{name}.py"):
        if imported.startswith("uno_env.engine."):
            other = imported.split(".")[2]
            assert LAYER_OF[other] < LAYER_OF[name], \
                f"engine/{name}.py imports {other}, which is not in a lower layer"
        elif imported.startswith("uno_env"):
            assert imported in ("uno_env.engine", "uno_env.engine.jit") or \
                imported.startswith("uno_env.engine.jit."), \
                f"engine/{name}.py imports {imported}, above the engine"


#: top-level modules below every package: any module may import them; they import only
#: each other (uno_env.provenance imports uno_env.version), never a package or a kernel
BASE = ("uno_env.version", "uno_env.provenance")


def test_the_base_modules_import_nothing_above_them():
    for name in BASE:
        path = ROOT / (name.replace(".", "/") + ".py")
        above = sorted(m for m in _imports(path) if m.startswith("uno_env")
                       and not m.startswith(BASE))
        assert above == [], f"{name} imports {above}: it sits below every package"


def _uno_env_graph(roots=("uno_env",), keep_roots=False) -> dict[str, set[str]]:
    """module -> the modules it imports; an import of a root package itself (its
    ``__init__``) is an edge only with ``keep_roots`` (the packages test checks who may)."""
    modules = {}
    for path in (p for root in roots for p in (ROOT / root).rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        modules[".".join(p for p in rel.parts if p != "__init__")] = path
    graph = {}
    for name, path in modules.items():
        deps = set()
        for imported in _imports(path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name and (keep_roots or imported not in roots):
                deps.add(imported)
        graph[name] = deps
    return graph


def test_uno_env_never_imports_agents():
    for path in (ROOT / "uno_env").rglob("*.py"):
        bad = sorted(m for m in _imports(path)
                     if m.split(".")[0] in ("agents", "uno_agents"))
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}: agents sit above uno_env"


def test_no_import_cycle_in_uno_env_or_agents():
    graph = _uno_env_graph(("uno_env", "agents"))
    # the agents' relative imports are edges too (module level and in functions)
    assert {"agents.base", "agents.onnx_export"} <= graph["agents.ppo"]
    assert "agents.train" in graph["agents.exit"]
    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for dep in graph[node]:
            if state.get(dep) == 1:
                pytest.fail("import cycle: " + " -> ".join(trail + [node, dep]))
            if dep not in state:
                visit(dep, trail + [node])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [])


def test_variant_cache_keys_cover_only_their_files():
    names = {v: {p.name for p in _jit.variant_files(v)} for v in _jit.VARIANT_MODULES}
    for variant, files in names.items():
        mine = f"{_jit.VARIANT_MODULES[variant]}.py"
        assert mine in files and "jit.py" in files and "dispatch.py" in files
        others = {f"{m}.py" for m in _jit.VARIANT_MODULES.values()} - {mine}
        assert not files & others, f"{variant}'s cache key covers {files & others}"


def test_cache_dirs_differ_per_variant(tmp_path, monkeypatch):
    dirs = {_jit.cache_dir(v) for v in _jit.VARIANT_MODULES}
    assert len(dirs) == len(_jit.VARIANT_MODULES)


_PROBE = """
import json
from uno_env import Game
from uno_env.engine import classic, flip, house, onepiece
g = Game("classic", num_players=3, seed=1)
g.play(g.legal_moves()[0])
print(json.dumps({m.__name__.split(".")[-1]: len(m.apply_action.signatures)
                  for m in (classic, house, flip, onepiece)}))
"""


def test_classic_compiles_no_other_variant(tmp_path):
    """A first classic game, from an empty cache, types classic's kernels only."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), UNO_ENV_QUIET="1")
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, check=True, cwd=ROOT)
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    assert counts["classic"] >= 1, counts
    assert counts["house"] == counts["flip"] == counts["onepiece"] == 0, counts


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in PACKAGES else None


@pytest.mark.parametrize("package", PACKAGES)
def test_packages_import_only_packages_below(package):
    graph = _uno_env_graph(keep_roots=True)
    bad = []
    for module, deps in graph.items():
        if _package(module) != package:
            continue
        for dep in deps:
            other = _package(dep)
            if dep == "uno_env":   # the package's __init__: it imports every package
                if package != "apps":
                    bad.append(f"{module} imports the uno_env package itself, which "
                               f"imports every package (__version__: uno_env.version)")
            elif other is None and dep not in BASE and not dep.startswith(
                    tuple(f"uno_env.{p}" for p in PACKAGES)):
                bad.append(f"{module} imports {dep}, a top-level module above the packages")
            elif other is not None and PACKAGES.index(other) > PACKAGES.index(package):
                bad.append(f"{module} imports {dep} ({other} is above {package})")
    assert bad == []


def _game_private_names() -> set[str]:
    """The private attributes and methods of ``Game`` (``uno_env/envs/game.py``)."""
    tree = ast.parse((ROOT / "uno_env" / "envs" / "game.py").read_text())
    game = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Game")
    names = set()
    for node in ast.walk(game):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "self":
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.Assign)):
            names.update([node.name] if isinstance(node, ast.FunctionDef) else
                         [t.id for t in node.targets if isinstance(t, ast.Name)])
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _library_modules():
    return sorted([*(ROOT / "uno_env").rglob("*.py"), *(ROOT / "agents").glob("*.py")])


def test_no_module_touches_a_private_attribute_of_game():
    """``Game`` keeps its own state: outside ``envs/game.py``, code uses its public
    methods and properties (``engine_state``, ``refresh``, ``moves_since``, ...), never
    one of its private names on another object (the batches' records are public as
    ``engine_state`` too, so no ``x._state`` is needed anywhere)."""
    private = _game_private_names()
    assert {"_state", "_actions", "_mask", "_load_scenario", "_setup"} <= private
    bad = []
    for path in _library_modules():
        rel = path.relative_to(ROOT).as_posix()
        if rel == "uno_env/envs/game.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in private and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                bad.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    assert bad == []


#: the modules that may read the engine's raw ``info`` slots (``C.I_*``): the engine, the
#: environments built directly on its kernels, the engine's contract checks, and a kernel
#: compiled beside the engine's
SLOT_READERS = ("uno_env/engine/", "uno_env/envs/", "uno_env/testing.py",
                "agents/search_values.py")


def test_only_the_engine_and_the_environments_read_raw_engine_slots():
    """Above the environments, a game's state is read through ``Game``'s (and the
    batches') public API: no module reads an ``info`` slot such as ``I_W4_PLAYER``."""
    bad = []
    for path in _library_modules():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(SLOT_READERS):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.attr] if isinstance(node, ast.Attribute) else \
                [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else []
            bad += [f"{rel}:{node.lineno}: {n}" for n in names
                    if n.startswith("I_") and n[2:].isupper()]
    assert bad == []


_RULES_PROBE = """
import json, sys
import uno_env.rules, uno_env.rules.actions, uno_env.rules.cards, uno_env.rules.config
print(json.dumps(sorted(m for m in sys.modules if m.startswith("uno_env."))))
"""


def test_the_rules_model_loads_no_kernel():
    """``import uno_env.rules`` (its modules included) imports no kernel module: only the
    engine's plain layer 0 and the ``State``/``Spec`` classes, nothing of the
    environments above (``import uno_env`` imports its public names when first used)."""
    env = dict(os.environ, UNO_ENV_QUIET="1")
    out = subprocess.run([sys.executable, "-c", _RULES_PROBE], env=env, capture_output=True,
                         text=True, check=True, cwd=ROOT)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    engine = {m.split(".")[2] for m in loaded if m.startswith("uno_env.engine.")}
    # plain Python, and the State record and Spec classes (numba structrefs, no kernel)
    allowed = {"codes", "variants", "names", "obs_layout", "state"}
    assert engine <= allowed, sorted(engine - allowed)
    assert not {m for m in loaded if m.startswith(("uno_env.envs.game", "uno_env.evaluation",
                                                   "uno_env.players"))}, sorted(loaded)
