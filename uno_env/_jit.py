"""The one place that sets numba's jit options.

Every kernel in :mod:`uno_env.engine` is compiled through :func:`njit` so that the
on-disk cache (``cache=True``) and the other options are never forgotten. A test
(``tests/test_packaging.py``) checks that no module calls ``numba.njit`` directly.

Cache safety: numba checks a cached kernel against its *own* source file only, so a
kernel that inlines code from another module would keep a stale compiled copy after
that module changes. Kernels are therefore cached in a directory named after a hash of
every engine source file: any change to the engine starts a fresh cache.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

#: Options shared by every kernel. ``cache=True`` keeps a second import fast;
#: ``nogil=True`` lets threads run kernels side by side.
JIT_OPTIONS = {"cache": True, "nogil": True, "boundscheck": False}


def _engine_fingerprint() -> str:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha1()
    for path in sorted([here / "_jit.py", *(here / "engine").glob("*.py")]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _cache_dir() -> str:
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"),
        "uno_env", "numba")
    return os.path.join(base, f"engine-{_engine_fingerprint()}")


CACHE_DIR = _cache_dir()


def njit(fn=None, **extra):
    """``numba.njit`` with the project's options; ``extra`` adds to them (e.g. parallel)."""
    options = {**JIT_OPTIONS, **extra}

    def decorate(f):
        previous = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = CACHE_DIR  # read once, when the cache locator is made
        try:
            return numba.njit(**options)(f)
        finally:
            numba.config.CACHE_DIR = previous

    return decorate if fn is None else decorate(fn)


def bind(kernel, *example_args):
    """Compile ``kernel`` for the types of ``example_args`` and return its entry point.

    Calling the entry point skips numba's per-call type dispatch, which dominates the
    cost of a kernel that takes the state record (about 3.6 us -> 1.1 us a call). Only
    call it with arguments of exactly those types."""
    if not hasattr(kernel, "typeof_pyval"):  # NUMBA_DISABLE_JIT=1: a plain function
        return kernel
    signature = tuple(kernel.typeof_pyval(a) for a in example_args)
    return kernel.compile(signature)
