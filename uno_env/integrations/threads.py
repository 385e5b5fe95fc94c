"""Threads for training beside the engine: ``set_threads()``, the one call every training
recipe of the project makes (the README's and the docs' snippets, the examples,
``uno-bench train``) before it builds a model.

    >>> from uno_env.integrations.threads import set_threads
    >>> set_threads()           # torch on 1 thread; the env keeps its own default
    {'torch': 1}

Why one torch thread: the policies of these recipes are small MLPs (256 x 256) on
batches of 128 to 2,048 rows, and torch's OpenMP threads wait for each other by
spinning. On a machine whose cores are all busy (a second run, a notebook, CI, other
users) one of those threads is descheduled and every matrix product waits for it:
measured on the project's 2-core machine under load, the README's SB3 snippet ran 3x to
16x slower on two torch threads (torch's default there, one per core) than on one, for 5
to 9 times the CPU, while one thread lost 7% beside a busy process
(``benchmarks/recipes.py`` measures it; docs/performance.md has the figures). The
engine's kernels are numba code on Python threads (``LearnerBatch(threads=)``), which
leave the GIL and do not spin, so the env keeps its own default (one thread up to 255
games a step).

Needs torch (the ``rl`` extra); importing this module does not import it.
"""
from __future__ import annotations

#: torch's intra-op threads in every recipe (measured: see the module docstring)
TORCH_THREADS = 1


def set_threads(torch_threads: int | None = TORCH_THREADS) -> dict:
    """Set torch's intra-op threads to ``torch_threads`` (default ``TORCH_THREADS``,
    1; None leaves torch's own choice, one per core) and return what was set,
    ``{"torch": n}``. Call it once, before training."""
    if torch_threads is not None and (isinstance(torch_threads, bool) or not isinstance(
            torch_threads, int) or torch_threads < 1):
        raise ValueError(f"torch_threads must be None or an integer >= 1, got "
                         f"{torch_threads!r}")
    import torch

    if torch_threads is not None:
        torch.set_num_threads(int(torch_threads))
    return {"torch": int(torch.get_num_threads())}
