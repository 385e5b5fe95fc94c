"""Threads and processes give exactly the serial results, and a kernel cache that cannot
be used (unwritable, or garbage in its files) warns and recompiles instead of crashing.

Cost: the threaded tests and the in-process cache tests take seconds (classic game and
vector kernels, and a one-line kernel). The three tests marked ``COLD`` run fresh Python
processes on an empty, corrupt or read-only cache directory: four compiles of an engine
kernel from scratch between them (about 1-3 minutes each on a 2-core machine; the two
simulate processes run side by side). They carry the ``cold`` marker: ``pytest -m "not
cold"`` leaves them out.
"""
from __future__ import annotations

import hashlib
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

from uno_env import Game, VectorEnv, simulate
from uno_env import _cache, _jit

ROOT = Path(__file__).resolve().parents[1]


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
    """A digest of everything ``VectorEnv.step`` returned over ``steps`` random steps."""
    venv = VectorEnv(16, "classic", num_players=4, seed=seed)
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
    # garbage in the index and the data file, an empty one, a bad data file alone
    for broken, which in ((os.urandom(64), files), (b"\x80\x04garbage", files),
                          (b"", files), (os.urandom(64), files[1:])):
        for path in which:
            path.write_bytes(broken)
        with pytest.warns(_cache.CacheWarning, match=r"the cached classic plus_one kernel "
                                                     r"in .* does not load .*recompiling"):
            assert fresh_plus_one()(41) == 42
        with warnings.catch_warnings():  # rewritten: the next process loads it
            warnings.simplefilter("error")
            again = fresh_plus_one()
            assert again(1) == 2 and again.stats.cache_hits


# --- processes on a cold cache directory (COLD: each compiles an engine kernel) ------

SIMULATE = ("import hashlib; from uno_env import simulate; "
            "r = simulate('classic', 3, agents='random', num_games=40, seed=11, threads=1);"
            " print(hashlib.sha256(r.winner.tobytes() + r.turns.tobytes() + "
            "r.points.tobytes()).hexdigest())")


def simulate_digest() -> str:
    r = simulate("classic", 3, agents="random", num_games=40, seed=11, threads=1)
    return hashlib.sha256(r.winner.tobytes() + r.turns.tobytes()
                          + r.points.tobytes()).hexdigest()


def python(code: str, cache: Path) -> subprocess.Popen:
    """A fresh interpreter running ``code`` with ``cache`` as its NUMBA_CACHE_DIR."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("UNO_ENV_QUIET", None)  # keep the "compiling ..." notice: it shows a compile
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen) -> tuple[str, str]:
    out, err = proc.communicate(timeout=1200)
    assert proc.returncode == 0, err[-3000:]
    return out.strip(), err


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """COLD. A cache directory that two processes filled at the same time, each
    compiling the classic simulate kernel, and the digests they printed."""
    cache = tmp_path_factory.mktemp("shared") / "cache"
    runs = [finish(p) for p in [python(SIMULATE, cache), python(SIMULATE, cache)]]
    return cache, runs


@pytest.mark.cold
def test_simulate_in_two_processes_sharing_a_cold_cache_matches_serial(shared_cache):
    """COLD (the fixture's two compiles, side by side)."""
    cache, runs = shared_cache
    serial = simulate_digest()
    assert [out for out, _ in runs] == [serial, serial]
    assert all("compiling the classic simulate kernel" in err for _, err in runs)
    out, err = finish(python(SIMULATE, cache))  # the cache both wrote loads
    assert out == serial and "compiling" not in err and "CacheWarning" not in err


@pytest.mark.cold
def test_a_corrupt_engine_cache_warns_and_recompiles(shared_cache):
    """COLD (one recompile). Garbage in every cache file of the shared directory."""
    cache, _ = shared_cache
    files = [p for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert files
    for k, path in enumerate(files):
        path.write_bytes(os.urandom(97 + k))
    out, err = finish(python(SIMULATE, cache))
    assert out == simulate_digest()
    assert "CacheWarning: uno-env: the cached classic simulate_chunk kernel" in err, err
    assert "recompiling it" in err
    out, err = finish(python(SIMULATE, cache))  # replaced: it loads again
    assert out == simulate_digest() and "compiling" not in err and "Warning" not in err


GAME = ("import hashlib; from uno_env import Game; g = Game('classic', 2, seed=5); "
        "[g.step(g.legal_actions()[0]) for _ in range(30) if not g.is_over]; "
        "print(hashlib.sha256(repr(g.action_history).encode()).hexdigest())")


def game_digest() -> str:
    g = Game("classic", 2, seed=5)
    for _ in range(30):
        if not g.is_over:
            g.step(g.legal_actions()[0])
    return hashlib.sha256(repr(g.action_history).encode()).hexdigest()


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


@pytest.mark.cold
def test_a_read_only_cache_directory_warns_and_compiles(read_only_dir):
    """COLD (one compile, not cached). numba alone would cache in the engine's
    ``__pycache__`` instead, unkeyed by the variant's files; uno-env must not."""
    in_tree = ROOT / "uno_env" / "engine" / "__pycache__"
    before = sorted(in_tree.glob("*.nb[ic]"))
    out, err = finish(python(GAME, read_only_dir))
    assert out == game_digest()
    assert f"CacheWarning: uno-env: cannot write the kernel cache {read_only_dir}/" in err
    assert "compiles without a disk cache" in err
    assert sorted(in_tree.glob("*.nb[ic]")) == before and not any(read_only_dir.iterdir())
