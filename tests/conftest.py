"""Suite-wide hooks: tests of optional extras skip when the extra is missing, and a CI
run (``CI`` set, as ``.ci/run`` runs) fails if any test was skipped. Hypothesis runs a
bounded number of examples, and under CI the same ones every run (profile ``ci``).

A contributor with only ``pip install -e ".[dev]"`` runs every test that needs nothing
more; the tests of torch/SB3 (``rl`` extra), Ray (``ray``), RLlib (``rllib``) and the
notebooks (a ``python3`` Jupyter kernel) skip with the install line in their reason.
CI installs every extra, so there a skip means a test silently stopped running: the
session then exits non-zero and lists the skipped tests.
"""
from __future__ import annotations

import importlib
import os
import time

import pytest

TORCH = ('torch (the CPU build, installed first: pip install torch==2.13.0 '
         '--extra-index-url https://download.pytorch.org/whl/cpu; see the README)')
#: ``reason=`` texts, one per extra, naming what to install
NEEDS = {
    "rl": f'needs the "rl" extra and {TORCH}: pip install -e ".[rl]"',
    "ray": 'needs the "ray" extra: pip install -e ".[ray]"',
    "rllib": f'needs the "rllib" extra and {TORCH}: pip install -e ".[rllib]"',
    "clients": f'needs the "clients" extra (torchrl, tianshou) and {TORCH}: pip install '
               f'-e ".[clients]"',
    "openspiel": 'needs the "openspiel" extra (OpenSpiel\'s pyspiel): pip install -e '
                 '".[openspiel]"',
    "onnx": 'needs the "onnx" extra (onnx, onnxruntime): pip install -e ".[onnx]"',
    "jax": 'needs the "jax" extra (CPU jax, flax, optax, pgx; JaxMARL: the "jaxmarl" extra): '
           'pip install -e ".[jax,jaxmarl]"',
    "kernel": 'needs a "python3" Jupyter kernel (nbclient, nbformat and ipykernel, all in '
              'the "dev" extra): pip install -e ".[dev]"',
}


def require_web() -> None:
    """The ``web`` extra (Starlette, httpx): in CI installed, so a missing one is an
    ImportError (a failure); elsewhere the calling test module skips, naming the extra."""
    if in_ci():
        import httpx  # noqa: F401
        import starlette  # noqa: F401
        return
    for module in ("starlette", "httpx"):
        pytest.importorskip(module, reason="the web extra is not installed "
                            "(pip install -e '.[web]')")


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
    warm = getattr(config, "_uno_warmup", None)
    if warm:
        total, times = warm
        each = ", ".join(f"{v} {s:.0f} s" for v, s in times.items())
        terminalreporter.line(f"uno-env warm-up before the tests (compiling or loading "
                              f"every variant's kernels): {total:.0f} s ({each})")
    start = getattr(config, "_uno_start", None)
    if start is not None:
        # pytest's own "passed in" figure starts after pytest_configure, so it leaves
        # the warm-up out; this is the whole wait
        terminalreporter.line(f"uno-env: the whole pytest run, warm-up included: "
                              f"{time.perf_counter() - start:.0f} s")
    skips = getattr(config, "_ci_skips", None)
    if skips:
        terminalreporter.section("skipped tests fail a CI run", red=True, bold=True)
        terminalreporter.line(f"CI is set and {len(skips)} test(s) were skipped; CI "
                              f"installs every extra, so each one must run:")
        for line in skips:
            terminalreporter.line(f"  {line}")


# --- hypothesis (tests/engine/test_fuzz.py): bounded, and the same examples on every CI run ---
#: the bounds of both profiles: few examples, so a cold test run stays fast; no
#: deadline (the first example of a test may load kernels from the cache)
HYPOTHESIS_BOUNDS = {"max_examples": 20, "stateful_step_count": 30, "deadline": None}

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # the "dev" extra is missing; the hypothesis tests skip
    pass
else:
    _quiet = {"suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
    settings.register_profile("ci", derandomize=True, database=None, print_blob=True,
                              **HYPOTHESIS_BOUNDS, **_quiet)
    settings.register_profile("dev", **HYPOTHESIS_BOUNDS, **_quiet)
    # a longer search by hand: HYPOTHESIS_PROFILE=thorough pytest tests/engine/test_fuzz.py
    settings.register_profile("thorough", max_examples=500, stateful_step_count=100,
                              deadline=None, **_quiet)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                          or ("ci" if in_ci() else "dev"))


# --- the longest test files first ----------------------------------------------------------
#: the test files that take longest, longest first (their tests' seconds summed, from
#: ``pytest --durations=0`` of the whole suite, 2026-12-06). pytest-xdist hands whole
#: files to the workers in the order of the run (``--no-loadscope-reorder`` in
#: pyproject.toml: its own order, by number of tests, put the one-test files last): a
#: long file started last kept one worker busy after the other had finished (814 s for
#: the tests there, where 747 s of work on each worker would do). The other files keep
#: their order after these; a stale entry costs balance only, and
#: tests/project/test_ci_skips.py checks that each file is there.
LONG_FILES = (
    "tests/evaluation/test_scale.py",
    "tests/jax/test_identity_configs.py",
    "tests/jax/test_pgx_env.py",
    "tests/jax/test_identity.py",
    "tests/project/test_release.py",
    "tests/applications/test_notebooks.py",
    "tests/jax/test_jaxmarl_env.py",
    "tests/environments/test_learner.py",
    "tests/jax/test_ppo_example.py",
    "tests/environments/test_contract.py",
    "tests/engine/test_layers.py",
    "tests/rules/test_reference.py",
)


def pytest_collection_modifyitems(config, items):
    """The files of ``LONG_FILES`` first, in its order; each file's tests stay together
    and in their order (a stable sort)."""
    rank = {path: i for i, path in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


# --- compile once, before the workers start -------------------------------------------
#: the variants, largest first (so two compiling side by side finish close together)
WARMUP_ORDER = ("onepiece", "house", "flip", "classic")


def _whole_suite(config) -> bool:
    """Is this run the whole suite (no file or node named on the command line)?"""
    root = config.rootpath
    return all(root.joinpath(arg.split("::")[0]).resolve() in (root, root / "tests")
               for arg in config.args)


def pytest_configure(config):
    """On a run of the whole suite, compile every variant's kernels (``uno_env.apps.warmup``,
    and classic's soak kernel) in parallel processes, one per core, before the test
    workers start. Otherwise each
    xdist worker compiles, from an empty cache, the same engine code as the other worker
    at the same time. ``UNO_ENV_TEST_WARMUP=0`` turns it off; a cache that is already
    warm makes it take about a second per variant."""
    if hasattr(config, "workerinput"):
        return
    config._uno_start = time.perf_counter()
    if not _whole_suite(config) or os.environ.get("UNO_ENV_TEST_WARMUP", "1") == "0":
        return
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    from uno_env.apps.warmup import VARIANT_PRESETS

    def compile_variant(variant):
        start = time.perf_counter()
        code = ("from uno_env.apps.warmup import warmup; "
                f"warmup([{VARIANT_PRESETS[variant]!r}], progress=False)")
        if variant == "classic":
            # tests/engine/test_soak.py soaks classic: compiled here, after the other classic
            # kernels typed the engine, it takes about 6 s; alone in a test worker, 30
            code += ("; from uno_env.testing import soak; "
                     "soak('classic', 4, games=2, seed=0)")
        env = dict(os.environ, UNO_ENV_QUIET="1")
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True)
        if done.returncode != 0:  # the tests will report it; say what happened here
            print(f"warm-up of {variant} failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return variant, time.perf_counter() - start

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, min(cores, len(WARMUP_ORDER)))) as pool:
        times = dict(pool.map(compile_variant, WARMUP_ORDER))
    config._uno_warmup = (time.perf_counter() - start, times)


@pytest.fixture(scope="session")
def warm_engine():
    """Compile (or load from the cache) once, before the tests that use them
    (``tests/environments/test_contract.py``), the entry points ``uno_env.testing`` calls (game,
    vector, simulate, policy; not the learner's) of every variant: after it those
    tests compile nothing."""
    from uno_env.evaluation.simulation import simulate
    from uno_env.testing import check_random_play
    from uno_env.apps.warmup import VARIANT_PRESETS
    for preset in VARIANT_PRESETS.values():
        simulate(preset, 2, num_games=1, seed=0, threads=1)
        check_random_play(preset, 2, games=1, seed=0, agent="greedy")


# --- tests/jax: the JAX engine (``uno_env.jax``, the ``jax`` extra) ----------------------
# Without jax, each test module under tests/jax is reported skipped, naming the extra,
# without being imported; in CI (which installs the extra) nothing skips: a missing jax
# is an ImportError there. (Here rather than in a tests/jax/conftest.py: a second module
# named ``conftest`` would shadow this one for ``from conftest import ...``.)
JAX_TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax")


def _jax_missing() -> bool:
    if in_ci():
        import jax  # noqa: F401  (CI installs the extra: a missing jax fails loudly)
        return False
    return not importable("jax")


class _SkippedModule(pytest.Module):
    """A test module collected without importing it: skipped, naming the extra."""

    def collect(self):
        pytest.skip(NEEDS["jax"])


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path, parent):
    if str(module_path).startswith(JAX_TESTS + os.sep) and _jax_missing():
        return _SkippedModule.from_parent(parent, path=module_path)
    return None
