"""The one place that sets numba's jit options.

Every kernel in :mod:`uno_env.engine` is compiled through :func:`njit` so that the
on-disk cache (``cache=True``) and the other options are never forgotten. A test
(``tests/test_packaging.py``) checks that no module calls ``numba.njit`` directly.
"""
from __future__ import annotations

import numba

#: Options shared by every kernel. ``cache=True`` keeps a second import fast;
#: ``nogil=True`` lets threads run kernels side by side.
JIT_OPTIONS = {"cache": True, "nogil": True, "boundscheck": False}


def njit(fn=None, **extra):
    """``numba.njit`` with the project's options; ``extra`` adds to them (e.g. parallel)."""
    options = {**JIT_OPTIONS, **extra}
    if fn is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(fn)


def bind(kernel, *example_args):
    """Compile ``kernel`` for the types of ``example_args`` and return its entry point.

    Calling the entry point skips numba's per-call type dispatch, which dominates the
    cost of a kernel that takes the state record (about 3.6 us -> 1.1 us a call). Only
    call it with arguments of exactly those types."""
    if not hasattr(kernel, "typeof_pyval"):  # NUMBA_DISABLE_JIT=1: a plain function
        return kernel
    signature = tuple(kernel.typeof_pyval(a) for a in example_args)
    return kernel.compile(signature)
