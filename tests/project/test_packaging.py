"""Project conventions that a reviewer would otherwise have to remember."""
import os
import pathlib
import re

import pytest
from support import ROOT



def test_every_kernel_goes_through_the_one_jit_config():
    """Jit options live in uno_env/engine/jit.py only."""
    offenders = []
    for path in (ROOT / "uno_env").rglob("*.py"):
        if path.relative_to(ROOT).as_posix() == "uno_env/engine/jit.py":
            continue
        text = path.read_text()
        if re.search(r"numba\.(njit|jit)\b|from numba import .*\b(njit|jit)\b", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_entry_points_are_cached_per_variant():
    """The kernels called from Python are cached on disk, each variant in its own
    directory (``uno_env.engine.jit.entry_point``)."""
    from uno_env.engine.jit import cache_dir
    from uno_env.engine.entry import ENTRY_POINTS, kernels
    for variant in ("classic", "flip"):
        for name in ENTRY_POINTS:
            dispatcher = getattr(kernels(variant), name).dispatcher
            assert type(dispatcher._cache).__name__ == "FunctionCache"
            assert dispatcher._cache._cache_path.startswith(cache_dir(variant))


def test_license_citation_and_changelog_agree_with_the_package():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard "
                                  "library from Python 3.11")

    import uno_env
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = meta["project"]
    assert project["license"] == {"text": "MIT"}
    assert "License :: OSI Approved :: MIT License" in project["classifiers"]
    assert "Typing :: Typed" in project["classifiers"]
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "uno-env developers" in license_text
    citation = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^cff-version: 1\.2\.0$", citation, re.M)
    assert re.search(rf"^version: {re.escape(uno_env.__version__)}$", citation, re.M)
    assert "version" not in project and project["dynamic"] == ["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{uno_env.__version__}]" in changelog


def test_one_version_everywhere():
    """uno_env/version.py is the one source: pyproject reads it, the package re-exports
    it, CITATION.cff and the CHANGELOG's newest section carry it with its date, and
    ``uno-bench --version`` prints it (tests/applications/test_cli.py)."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard "
                                  "library from Python 3.11")
    import uno_env
    from uno_env import version
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == \
        {"attr": "uno_env.version.__version__"}
    assert uno_env.__version__ is version.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version.__version__)
    citation = (ROOT / "CITATION.cff").read_text()
    assert re.search(rf"^version: {re.escape(version.__version__)}$", citation, re.M)
    assert re.search(rf'^date-released: "{version.RELEASE_DATE}"$', citation, re.M)
    assert "commit" in citation       # how to cite a specific commit
    changelog = (ROOT / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## \[([^\]]+)\](.*)$", changelog, re.M)
    assert versions[0] == (version.__version__, f" - {version.RELEASE_DATE}"), \
        f"the CHANGELOG's newest section is {versions[0]}, not the version's"
    assert not any(v == "Unreleased" and version.__version__ in rest
                   for v, rest in versions)
    # nothing else holds a version of its own
    for path in (ROOT / "uno_env").rglob("*.py"):
        if path.name != "version.py":
            assert not re.search(r"^__version__\s*=", path.read_text(), re.M), path


def test_py_typed_ships_with_the_package():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard "
                                  "library from Python 3.11")
    assert (ROOT / "uno_env" / "py.typed").is_file()
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in meta["tool"]["setuptools"]["package-data"]["uno_env"]


def _returns_an_argument_array(fn):
    """Does ``fn`` return one of its parameters, a part of one (``st.hands``,
    ``mask[1:]``), or a tuple holding such a value?"""
    import ast
    params = {a.arg for a in fn.args.args}

    def argument_array(node):
        if isinstance(node, ast.Tuple):
            return any(argument_array(e) for e in node.elts)
        if isinstance(node, ast.Name):
            return node.id in params
        if isinstance(node, ast.Attribute):
            return argument_array(node.value)
        if isinstance(node, ast.Subscript):  # a slice of an argument is a view of it
            index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return any(isinstance(i, ast.Slice) for i in index) and argument_array(node.value)
        return False
    return any(isinstance(n, ast.Return) and n.value is not None and argument_array(n.value)
               for n in ast.walk(fn))


def test_kernels_without_reference_counting_return_no_array():
    """Engine kernels compile without numba's reference counting unless they say
    ``allocates=True`` (``uno_env.engine.jit.njit``). numba then refuses to compile a kernel
    that allocates or returns a new array, but not one that returns an array it was
    passed: its caller would release a reference it never got. No such kernel may
    return an argument, a view of one, or a tuple holding one. (A scalar argument is
    flagged too, since the check reads names, not types; kernels inlined into their
    caller, ``inline="always"``, are left out: they have no call boundary.)"""
    import ast
    offenders = []
    for path in sorted((ROOT / "uno_env" / "engine").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef) or not node.decorator_list:
                continue
            source = [ast.unparse(d) for d in node.decorator_list]
            jitted = any(s.startswith(("njit", "by_spec")) or ".register(" in s
                         for s in source)
            inlined = any("inline='always'" in s for s in source)
            if jitted and not inlined and not any("allocates=True" in s for s in source) \
                    and _returns_an_argument_array(node):
                offenders.append(f"{path.name}:{node.lineno} {node.name}")
    assert offenders == []


def test_inner_kernels_are_linked_into_entry_points_without_machine_code_of_their_own():
    """``_link_only``: an inner kernel's library holds LLVM code for linking only (no
    module optimisation, no machine code); the entry point that calls it links it in
    and computes as the plain Python function does."""
    import numba

    from uno_env.engine import _link_only
    from uno_env.engine import jit as _jit

    assert _link_only.AVAILABLE, f"numba {numba.__version__}'s internals changed: " \
        "uno_env.engine._link_only no longer applies (the inner kernels compile the slow way)"

    @_jit.njit
    def leaf(x):
        return 3 * x + 1

    @_jit.njit
    def middle(x):
        return leaf(x) + leaf(x + 1)

    def top(x):
        return middle(x) * 2

    entry = numba.njit(**_jit.JIT_OPTIONS)(top)
    assert entry(5) == 2 * ((3 * 5 + 1) + (3 * 6 + 1))
    for inner in (leaf, middle):
        (result,) = inner.overloads.values()
        assert isinstance(result.library, _link_only.LinkOnlyLibrary)
        assert result.library.get_pointer_to_function(result.fndesc.llvm_func_name) == 0
    (result,) = entry.overloads.values()
    assert not isinstance(result.library, _link_only.LinkOnlyLibrary)


def test_an_inner_kernel_called_from_python_raises_a_clear_error():
    """Engine kernels are compiled without numba's Python wrapper (``_jit.INNER_OPTIONS``,
    a fifth of a first compile); a call from Python must say so instead of crashing, and
    ``python_callable`` must give a copy that computes the same as the kernel inside."""
    import numpy as np

    from uno_env.engine.jit import InnerKernel, python_callable
    from uno_env.engine import rng

    assert isinstance(rng.seed_stream, InnerKernel)
    with pytest.raises(TypeError, match=r"uno_env\.engine\.rng\.seed_stream .*python_callable"):
        rng.seed_stream(0, 0)
    stream = python_callable(rng.seed_stream)(3, 5)
    assert stream == rng.seed_stream_py(3, 5)
    assert python_callable(rng.seed_stream) is python_callable(rng.seed_stream)
    state = np.array([stream], np.uint64)
    draws = [python_callable(rng.below)(state, 0, 10) for _ in range(50)]
    assert set(draws) <= set(range(10)) and len(set(draws)) > 1


def test_game_plays_in_plain_python_with_numba_disabled():
    """``NUMBA_DISABLE_JIT=1`` (for stepping through the rules in a debugger) runs the
    kernels as Python: ``Game`` makes its ``GameBox`` as a namedtuple there, and plays."""
    import subprocess
    import sys
    code = ("from uno_env.envs.game import Game\n"
            "g = Game('classic', num_players=2, seed=0)\n"
            "before = g.hand_sizes\n"
            "g.play(g.legal_moves()[0])\n"
            "print(before, g.hand_sizes, g.current_player, len(g.observe(1)))\n")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "UNO_ENV_QUIET": "1"}
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    from uno_env.envs.game import Game
    g = Game("classic", num_players=2, seed=0)
    before = g.hand_sizes
    g.play(g.legal_moves()[0])
    assert done.stdout.split("\n")[0] == \
        f"{before} {g.hand_sizes} {g.current_player} {len(g.observe(1))}"
