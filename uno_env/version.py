"""The version of uno-env, in one place: ``pyproject.toml`` reads it (a dynamic version,
``[tool.setuptools.dynamic]``), ``uno_env.__version__`` re-exports it, and CITATION.cff
and CHANGELOG.md carry the same number (``tests/project/test_packaging.py`` checks
that they agree). This module imports nothing of ``uno_env``, so any module may import it without
importing the package above it.

``commit()`` is the git commit of the source tree this module was imported from, when
that tree is a git checkout (``None`` for an installed wheel or sdist), with whether the
checkout has uncommitted changes to tracked files: a result written from a dirty tree
cannot be traced to a commit alone.
"""
from __future__ import annotations

import functools
import subprocess
from pathlib import Path

__version__ = "0.3.0"
#: the date of this version's release (CHANGELOG.md's heading, CITATION.cff's date-released)
RELEASE_DATE = "2026-12-07"

#: the directory above the ``uno_env`` package: a git checkout's root when run from one
_ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(_ROOT), *args], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@functools.lru_cache(maxsize=None)
def commit() -> tuple[str | None, bool | None]:
    """``(commit, dirty)``: the full hash of HEAD of the git checkout that holds this
    package, and whether any tracked file differs from it (untracked files do not count);
    ``(None, None)`` when the package was not imported from a git checkout (an installed
    wheel: its version is then the whole story). Asked once per process."""
    if not (_ROOT / ".git").exists():       # a directory, or a worktree's .git file
        return None, None
    head = _git("rev-parse", "HEAD")
    if not head:
        return None, None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return head, None if status is None else bool(status)


def describe() -> str:
    """``0.2.0``, or ``0.2.0 (commit 1a2b3c4d5e6f, dirty)`` in a git checkout."""
    head, dirty = commit()
    if head is None:
        return __version__
    return f"{__version__} (commit {head[:12]}{', dirty' if dirty else ''})"
