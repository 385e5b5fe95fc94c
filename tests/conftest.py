"""Suite-wide hooks: tests of optional extras skip when the extra is missing, and a CI
run (``CI`` set, as ``.ci/run`` runs) fails if any test was skipped.

A contributor with only ``pip install -e ".[dev]"`` runs every test that needs nothing
more; the tests of torch/SB3 (``rl`` extra), Ray (``ray``), RLlib (``rllib``) and the
notebooks (a ``python3`` Jupyter kernel) skip with the install line in their reason.
CI installs every extra, so there a skip means a test silently stopped running: the
session then exits non-zero and lists the skipped tests.
"""
from __future__ import annotations

import importlib
import os

import pytest

TORCH = ('torch (the CPU build, installed first: pip install torch==2.13.0, or from '
         "PyTorch's CPU wheel index; see the README)")
#: ``reason=`` texts, one per extra, naming what to install
NEEDS = {
    "rl": f'needs the "rl" extra and {TORCH}: pip install -e ".[rl]"',
    "ray": 'needs the "ray" extra: pip install -e ".[ray]"',
    "rllib": f'needs the "rllib" extra and {TORCH}: pip install -e ".[rllib]"',
    "kernel": 'needs a "python3" Jupyter kernel (nbclient, nbformat and ipykernel, all in '
              'the "dev" extra): pip install -e ".[dev]"',
}


def importable(*modules: str) -> bool:
    """True if every module imports (a package may be present yet fail on a missing
    dependency, as ``ray.rllib`` does without the ``rllib`` extra)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            return False
    return True


def has_python3_kernel() -> bool:
    if not importable("nbclient", "nbformat", "ipykernel"):
        return False
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        return False
    return True


def in_ci() -> bool:
    """``CI`` set to anything but an empty, ``0``, ``false`` or ``no`` value."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _skip_lines(stats) -> list[str]:
    lines = []
    for report in stats.get("skipped", []):
        reason = report.longrepr
        if isinstance(reason, tuple):           # (path, line, "Skipped: reason")
            reason = reason[2]
        lines.append(f"{report.nodeid or report.fspath}: {reason}")
    return lines


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    """Under CI, a run with skipped tests fails (exit status 1). Runs on the controller
    only when tests run in xdist workers: it holds every worker's reports."""
    if not in_ci() or hasattr(session.config, "workerinput"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or not _skip_lines(reporter.stats):
        return
    session.config._ci_skips = _skip_lines(reporter.stats)
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skips = getattr(config, "_ci_skips", None)
    if skips:
        terminalreporter.section("skipped tests fail a CI run", red=True, bold=True)
        terminalreporter.line(f"CI is set and {len(skips)} test(s) were skipped; CI "
                              f"installs every extra, so each one must run:")
        for line in skips:
            terminalreporter.line(f"  {line}")


@pytest.fixture(scope="session")
def warm_engine():
    """Compile (or load from the cache) once, before the tests that use them
    (``tests/test_contract.py``), the entry points ``uno_env.testing`` calls (game,
    vector, simulate, policy; not the learner's) of every variant: after it those
    tests compile nothing."""
    from uno_env.simulate import simulate
    from uno_env.testing import check_random_play
    from uno_env.warmup import VARIANT_PRESETS
    for preset in VARIANT_PRESETS.values():
        simulate(preset, 2, num_games=1, seed=0, threads=1)
        check_random_play(preset, 2, games=1, seed=0, agent="greedy")
