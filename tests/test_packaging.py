"""Project conventions that a reviewer would otherwise have to remember."""
import pathlib
import re

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
