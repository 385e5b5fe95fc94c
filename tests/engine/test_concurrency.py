"""Threads and processes give exactly the serial results, and a kernel cache that cannot
be used (unwritable, or garbage in its files) warns and recompiles instead of crashing.

Cost: seconds per test on a warm cache. The threaded tests use the classic game and
vector kernels, and two fresh processes run the classic simulate kernel from this
session's cache (warm in a whole-suite run: the warm-up fills it; on a cold cache they
compile it side by side). The cache cases (an empty directory filled by two processes at
once, a corrupt one, a read-only one) run the machinery of every engine entry point
(``_jit.entry_point``) on a one-line kernel, in this process and in fresh ones: a
process start each, no engine compile from scratch.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from uno_env import Game, EverySeatBatch, simulate
from uno_env.engine import _cache
from uno_env.engine import jit as _jit
from support import ROOT



def at_once(fn, calls: list[tuple]) -> list:
    """``fn(*args)`` for every ``args`` of ``calls``, each in its own thread, all
    released together by a barrier."""
    barrier = threading.Barrier(len(calls))

    def run(args):
        barrier.wait()
        return fn(*args)

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


# --- threads --------------------------------------------------------------------------


def play_games(seeds, preset: str = "classic", num_players: int = 3) -> list:
    """Whole games of random legal play (the choices drawn from a generator seeded per
    game): each game's moves, final observations, winner and scores."""
    out = []
    for seed in seeds:
        game = Game(preset, num_players=num_players, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            game.step(rng.choice(game.legal_actions()))
        out.append((game.action_history, [game.observe(q).tobytes()
                                          for q in range(num_players)],
                    game.winner, game.scores))
    return out


def test_games_stepped_in_threads_match_serial():
    parts = [(range(k, 16, 4),) for k in range(4)]
    serial = [play_games(*p) for p in parts]
    assert at_once(play_games, parts) == serial
    assert at_once(play_games, parts[:1] * 4) == serial[:1] * 4  # same seeds, same games


def run_vector(seed: int, steps: int = 80) -> str:
    """A digest of everything ``EverySeatBatch.step`` returned over ``steps`` random steps."""
    venv = EverySeatBatch(16, "classic", num_players=4, seed=seed)
    digest = hashlib.sha256(b"".join(a.tobytes() for a in venv.reset()))
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        for a in venv.step(venv.random_actions(rng)) + (venv.game_index,):
            digest.update(a.tobytes())
    return digest.hexdigest()


def test_vector_envs_stepped_in_threads_match_serial():
    seeds = [(0,), (1,), (2,), (0,)]
    serial = [run_vector(*s) for s in seeds]
    assert serial[0] == serial[3] and len(set(serial)) == 3
    assert at_once(run_vector, seeds) == serial


# --- the cache: in this process, on a one-line kernel --------------------------------


def plus_one(x):
    return x + 1


def fresh_plus_one():
    """A new dispatcher of ``plus_one`` through ``_jit.entry_point`` (the way every
    engine entry point is made), with nothing compiled in memory."""
    return _jit.entry_point(plus_one, "classic")


def test_an_unwritable_cache_directory_is_refused_with_a_warning(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.warns(_cache.CacheWarning, match=r"cannot write the kernel cache .*a-file"
                                                 r"/cache .*Set NUMBA_CACHE_DIR"):
        assert not _cache.writable(str(blocker / "cache"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _cache.writable(str(tmp_path / "fine"))


def test_garbage_in_the_cache_files_warns_and_recompiles():
    assert fresh_plus_one()(1) == 2  # compiled, or loaded from a previous run
    kernel = fresh_plus_one()
    index = Path(kernel._cache._cache_file._index_path)
    files = [index, *index.parent.glob(index.name.replace(".nbi", ".*.nbc"))]
    assert index.exists() and len(files) >= 2
    # garbage in the index and the data file, an empty one, a bad data file alone; a
    # pickle's persistent id (numba's loader refuses it in a two-line message)
    for broken, which in ((os.urandom(64), files), (b"\x80\x04garbage", files),
                          (b"", files), (os.urandom(64), files[1:]), (b"P1\n.", files)):
        for path in which:
            path.write_bytes(broken)
        with pytest.warns(_cache.CacheWarning, match=r"the cached classic plus_one kernel "
                                                     r"in .* does not load .*recompiling"):
            assert fresh_plus_one()(41) == 42
        with warnings.catch_warnings():  # rewritten: the next process loads it
            warnings.simplefilter("error")
            again = fresh_plus_one()
            assert again(1) == 2 and again.stats.cache_hits


# --- fresh processes: the simulate engine on the suite's cache -----------------------

SIMULATE = ("import hashlib; from uno_env import simulate; "
            "r = simulate('classic', 3, agents='random', num_games=40, seed=11, threads=1);"
            " print(hashlib.sha256(r.winner.tobytes() + r.turns.tobytes() + "
            "r.points.tobytes()).hexdigest())")


def simulate_digest() -> str:
    r = simulate("classic", 3, agents="random", num_games=40, seed=11, threads=1)
    return hashlib.sha256(r.winner.tobytes() + r.turns.tobytes()
                          + r.points.tobytes()).hexdigest()


def python(code: str, cache: Path | None, *args: str) -> subprocess.Popen:
    """A fresh interpreter running ``code`` (with ``args`` in ``sys.argv[1:]``) with
    ``cache`` as its NUMBA_CACHE_DIR (``None``: this session's cache, inherited)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    env.pop("UNO_ENV_QUIET", None)  # keep the "compiling ..." notice: it shows a compile
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen) -> tuple[str, str]:
    out, err = proc.communicate(timeout=1200)
    assert proc.returncode == 0, err[-3000:]
    return out.strip(), err


def test_simulate_in_two_processes_sharing_one_cache_matches_serial():
    """Two fresh processes run the classic simulate kernel at once from this session's
    cache directory, which the serial run has filled if it was empty (in a run of the
    whole suite the warm-up already has): both load it side by side, in seconds. Two
    processes filling an empty cache at once, and what a later process then finds, are
    proven on a one-line kernel below (an engine compile takes minutes)."""
    serial = simulate_digest()
    runs = [finish(p) for p in [python(SIMULATE, None), python(SIMULATE, None)]]
    assert [out for out, _ in runs] == [serial, serial]
    assert not any("Warning" in err for _, err in runs), runs


# --- fresh processes on an empty, corrupt or read-only cache: a one-line kernel ------
# The same machinery as every engine entry point (``_jit.entry_point``: its cache
# directory, ``_cache.writable`` and ``_cache.tolerate_corrupt``), on a kernel that
# compiles in a fraction of a second, so each case costs a process start (seconds).

TINY = """\
import json, sys
sys.path.insert(0, sys.argv[1])
from tiny import plus_one
from uno_env.engine import jit as _jit
kernel = _jit.entry_point(plus_one, "classic")
print("ready", flush=True)
sys.stdin.readline()  # the test releases the processes together
result = kernel(41)
print(json.dumps({"result": result, "hits": sum(kernel.stats.cache_hits.values()),
                  "misses": sum(kernel.stats.cache_misses.values())}))
"""


@pytest.fixture
def tiny(tmp_path):
    """A directory holding ``tiny.py``, the one-line kernel's module (numba would
    cache in its ``__pycache__`` if it fell back to the source tree)."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "tiny.py").write_text("def plus_one(x):\n    return x + 1\n")
    return source


def run_tiny(source: Path, cache: Path, processes: int = 1) -> list[tuple[dict, str]]:
    """Start ``processes`` fresh interpreters that make the one-line kernel with
    ``cache`` as NUMBA_CACHE_DIR, release them together once all are ready, and return
    what each printed (result, cache hits and misses) and its stderr."""
    procs = [python(TINY, cache, str(source)) for _ in range(processes)]
    for proc in procs:
        ready = proc.stdout.readline()
        assert ready == "ready\n", ready + proc.stderr.read()[-3000:]
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    return [(json.loads(out.splitlines()[-1]), err) for out, err in map(finish, procs)]


def cache_files(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc"))


def test_two_processes_filling_one_empty_cache_at_once(tiny, tmp_path):
    cache = tmp_path / "cache"
    runs = run_tiny(tiny, cache, processes=2)
    assert [r["result"] for r, _ in runs] == [42, 42]
    assert all(r["hits"] + r["misses"] == 1 for r, _ in runs)
    assert sum(r["misses"] for r, _ in runs) >= 1  # compiled, not found
    assert not any("Warning" in err for _, err in runs), runs
    assert len(cache_files(cache)) >= 2  # an index and a data file
    [(again, err)] = run_tiny(tiny, cache)  # what they wrote loads, nothing compiles
    assert again == {"result": 42, "hits": 1, "misses": 0} and "Warning" not in err


def test_a_corrupt_cache_warns_and_recompiles_in_a_fresh_process(tiny, tmp_path):
    """What a user sees: the warning printed by a process with default filters."""
    cache = tmp_path / "cache"
    run_tiny(tiny, cache)
    files = cache_files(cache)
    assert files
    for k, path in enumerate(files):
        path.write_bytes(os.urandom(97 + k))
    [(run, err)] = run_tiny(tiny, cache)
    assert run == {"result": 42, "hits": 0, "misses": 1}
    assert "CacheWarning: uno-env: the cached classic plus_one kernel in" in err, err
    assert "recompiling it" in err
    [(again, err)] = run_tiny(tiny, cache)  # replaced: it loads again
    assert again == {"result": 42, "hits": 1, "misses": 0} and "Warning" not in err


def _can_write(path: Path) -> bool:
    try:
        (path / "probe").write_text("")
    except OSError:
        return False
    (path / "probe").unlink()
    return True


@pytest.fixture
def read_only_dir(tmp_path):
    """An empty directory nobody may write to (root ignores modes: then ``chattr +i``)."""
    path = tmp_path / "read-only"
    path.mkdir()
    path.chmod(0o555)
    immutable = False
    if _can_write(path) and shutil.which("chattr"):
        immutable = subprocess.run(["chattr", "+i", str(path)],
                                   capture_output=True).returncode == 0
    try:
        if _can_write(path):
            pytest.skip("cannot make a directory read-only here (running as root "
                        "without chattr +i)")
        yield path
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o755)


def test_a_read_only_cache_directory_warns_and_compiles(tiny, read_only_dir):
    """numba alone would cache in the ``__pycache__`` next to the kernel's source
    instead (for the engine: unkeyed by the variant's files); uno-env must not."""
    [(run, err)] = run_tiny(tiny, read_only_dir)
    assert run["result"] == 42 and run["hits"] == 0
    assert f"CacheWarning: uno-env: cannot write the kernel cache {read_only_dir}/" in err
    assert "compiles without a disk cache" in err
    assert not any(read_only_dir.iterdir())
    assert not list(tiny.rglob("*.nb[ic]"))  # nothing in tiny's __pycache__ either
