"""Project conventions that a reviewer would otherwise have to remember."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_kernel_goes_through_the_one_jit_config():
    """Jit options live in uno_env/_jit.py only."""
    offenders = []
    for path in (ROOT / "uno_env").rglob("*.py"):
        if path.name == "_jit.py":
            continue
        text = path.read_text()
        if re.search(r"numba\.(njit|jit)\b|from numba import .*\b(njit|jit)\b", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_entry_points_are_cached_per_variant():
    """The kernels called from Python are cached on disk, each variant in its own
    directory (``uno_env._jit.entry_point``)."""
    from uno_env._jit import cache_dir
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
    assert project["version"] == uno_env.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{uno_env.__version__}]" in changelog


def test_py_typed_ships_with_the_package():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard "
                                  "library from Python 3.11")
    assert (ROOT / "uno_env" / "py.typed").is_file()
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in meta["tool"]["setuptools"]["package-data"]["uno_env"]
