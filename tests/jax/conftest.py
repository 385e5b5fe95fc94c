"""tests/jax: the JAX engine (``uno_env.jax``, the ``jax`` extra).

Without jax the whole directory skips, naming the extra; in CI (``CI`` set, as
``.ci/run`` runs, which installs the extra) it never skips: a missing jax is an
ImportError there, and tests/conftest.py fails a CI run that skipped anything.
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
else:
    pytest.importorskip("jax", reason=NEEDS_JAX)
