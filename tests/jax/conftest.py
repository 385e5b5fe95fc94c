"""tests/jax: the JAX engine (``uno_env.jax``, the ``jax`` extra).

Without jax every test module of this directory is reported skipped, naming the extra;
in CI (``CI`` set, as ``.ci/run`` runs, which installs the extra) nothing skips: a
missing jax is an ImportError there, and tests/conftest.py fails a CI run that skipped
anything.
"""
from __future__ import annotations

import os

import pytest

NEEDS_JAX = 'needs the "jax" extra (CPU jax): pip install -e ".[jax]"'


def _in_ci() -> bool:
    # tests/conftest.py's ``in_ci`` (this directory's conftest cannot import that one
    # by module name: both are "conftest")
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


if _in_ci():
    import jax  # noqa: F401  (CI installs the extra: a missing jax fails loudly)
    MISSING = False
else:
    try:
        import jax  # noqa: F401
        MISSING = False
    except ImportError:
        MISSING = True


class _SkippedModule(pytest.Module):
    """A test module collected without importing it: skipped, naming the extra."""

    def collect(self):
        pytest.skip(NEEDS_JAX)


if MISSING:
    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makemodule(module_path, parent):
        return _SkippedModule.from_parent(parent, path=module_path)
