"""docs/jax.md's Python snippets: each compiles, and the pgx one draws a fresh key every
step and sums the rewards over the steps (pgx's rewards are the step's). Running them
as printed compiles several programs at the docs' batch sizes, beyond the suite's
budget: ``python benchmarks/jax_docs_snippets.py`` does, and checks what the pgx one
prints."""
from __future__ import annotations

import importlib.util

from support import ROOT

SPEC = importlib.util.spec_from_file_location(
    "jax_docs_snippets", ROOT / "benchmarks" / "jax_docs_snippets.py")
SCRIPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(SCRIPT)


def test_every_snippet_compiles():
    found = SCRIPT.snippets()
    assert len(found) >= 4
    for i, code in enumerate(found):
        compile(code, f"docs/jax.md snippet {i}", "exec")


def test_the_pgx_snippet_draws_a_fresh_key_and_sums_the_rewards():
    (code,) = [s for s in SCRIPT.snippets() if "UnoPgx(" in s and "while " in s]
    loop = code[code.index("while "):]
    assert "jax.random.split(key)" in loop and "PRNGKey(" not in loop
    assert "outcome = outcome + state.rewards" in loop


def test_the_pgx_check_refuses_what_the_old_snippet_printed():
    """The script's check fails on the outcome the old snippet showed (the last step's
    rewards: all zero once every game is over)."""
    import numpy as np

    class X:
        truncated = np.zeros(4, bool)

    class S:
        _x = X()

    try:
        SCRIPT.check_pgx({"outcome": np.zeros((4, 4), np.float32), "state": S()})
    except AssertionError as err:
        assert "won" in str(err)
    else:
        raise AssertionError("an all-zero outcome passed the check")
