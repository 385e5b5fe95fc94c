"""The on-disk kernel cache when it cannot be used: an unwritable directory, corrupt files.

numba on its own handles neither well (checked with numba 0.68):

- a ``NUMBA_CACHE_DIR`` it cannot write (read-only, or not a directory) makes it cache
  silently in the ``__pycache__`` next to the engine's sources instead. That cache is
  not keyed by the hash of the variant's files (``uno_env.engine.jit.cache_dir``), so an edit
  of a module a kernel calls could load stale code. Here the kernels are then compiled
  without a disk cache, with one :class:`CacheWarning` per directory saying so.
- a cache file holding garbage (a disk full while writing, a bad copy) makes the first
  call of the kernel raise ``pickle.UnpicklingError`` or ``EOFError``. Here a cache
  file that does not load is dropped, with a :class:`CacheWarning`, and the kernel is
  recompiled (and cached again).

``tests/engine/test_concurrency.py`` runs both cases in fresh processes.
"""
from __future__ import annotations

import functools
import os
import tempfile
import warnings


class CacheWarning(UserWarning):
    """The kernel cache on disk could not be used; the engine compiles instead."""


@functools.lru_cache(maxsize=None)
def writable(path: str) -> bool:
    """Can the kernels be cached in ``path``? Makes it if missing; False (and one
    :class:`CacheWarning`) if it cannot be made or written, the test numba makes."""
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError as err:
        warnings.warn(f"uno-env: cannot write the kernel cache {path} ({err}); the "
                      f"engine compiles without a disk cache, at every start. Set "
                      f"NUMBA_CACHE_DIR to a writable directory to cache it.",
                      CacheWarning, stacklevel=3)
        return False
    return True


def tolerate_corrupt(dispatcher, name: str) -> None:
    """Make ``dispatcher`` (a numba dispatcher with ``cache=True``) recompile, instead of
    raising, when its cache files do not load."""
    cache = getattr(dispatcher, "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    if index is None:  # NUMBA_DISABLE_JIT=1, or a numba without these internals
        return
    load = cache.load_overload

    def load_overload(sig, target_context):
        try:
            return load(sig, target_context)
        except Exception as err:  # noqa: BLE001 - whatever a garbage file raises
            # one line: some unpickling errors span two ("... was encountered,\nbut ...")
            reason = " ".join(str(err).split())
            warnings.warn(f"uno-env: the cached {name} kernel in {os.path.dirname(index)} "
                          f"does not load ({type(err).__name__}: {reason}); recompiling "
                          f"it and replacing the cache file", CacheWarning, stacklevel=2)
            try:  # numba rewrites the index (and the data file) after compiling
                os.remove(index)
            except OSError:
                pass
            return None

    cache.load_overload = load_overload
