"""Project conventions that a reviewer would otherwise have to remember."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_kernel_goes_through_the_one_jit_config():
    """Jit options live in uno_env/_jit.py only (cache=True everywhere)."""
    offenders = []
    for path in (ROOT / "uno_env").rglob("*.py"):
        if path.name == "_jit.py":
            continue
        text = path.read_text()
        if re.search(r"numba\.(njit|jit)\b|from numba import .*\b(njit|jit)\b", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_jit_options_cache_kernels():
    from uno_env._jit import JIT_OPTIONS
    assert JIT_OPTIONS["cache"] is True


def test_engine_imports_nothing_above_it():
    """Dependencies point one way: agents -> uno_env -> uno_env.engine."""
    for path in (ROOT / "uno_env" / "engine").glob("*.py"):
        for line in path.read_text().splitlines():
            if line.startswith(("import uno_env", "from uno_env")):
                assert line.startswith(("from uno_env.engine", "from uno_env._jit")), \
                    f"{path.name}: {line}"
