"""Run every Python snippet of docs/jax.md as printed, each in a fresh namespace, in
order, and print how long each took (its compiles included); exit 1 at the first that
fails. The pgx snippet must also play what it says: random games whose outcome, summed
over the steps, is zero-sum game by game, most of them won (not cut by the turn limit).

    python benchmarks/jax_docs_snippets.py

Needs the ``jax`` and ``jaxmarl`` extras. A script rather than a test: the snippets
compile several programs at the docs' batch sizes (6.5 minutes on the shared 2-core
machine at a load of 13, 2026-12-07), beyond the suite's budget;
tests/jax/test_docs_snippets.py checks their text (they compile, a fresh key per step,
outcomes summed over the steps).
"""
from __future__ import annotations

import pathlib
import re
import sys
import time

import numpy as np

PAGE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "jax.md"


def snippets(page: pathlib.Path = PAGE) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def check_pgx(space: dict) -> str:
    outcome = np.asarray(space["outcome"])
    games = outcome.shape[0]
    assert np.abs(outcome.sum(axis=1)).max() < 1e-5, "outcomes not zero-sum"
    won = int((outcome > 0).any(axis=1).sum())
    cut = int(np.asarray(space["state"]._x.truncated).sum())
    assert won + cut == games, f"{won} won + {cut} cut != {games} games"
    assert won > games // 2, f"only {won} of {games} games won"
    return f"{won} of {games} games won, {cut} cut by the turn limit"


def main() -> int:
    for index, code in enumerate(snippets()):
        first = code.strip().splitlines()[-1][:60]
        start = time.perf_counter()
        space: dict = {"__name__": f"docs_jax_snippet_{index}"}
        try:
            exec(compile(code, f"docs/jax.md snippet {index}", "exec"), space)  # noqa: S102
            note = check_pgx(space) if "outcome" in space else ""
        except Exception as err:  # noqa: BLE001  (report which snippet, then fail)
            print(f"snippet {index} FAILED ({first!r}): {type(err).__name__}: {err}")
            return 1
        print(f"snippet {index}: ok in {time.perf_counter() - start:.1f} s {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
