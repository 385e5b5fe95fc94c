"""benchmarks/compile_time.py: which runs it plans and in which order (nothing is timed or
compiled here; the benchmark itself runs only by hand)."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT

import benchmarks.compile_time as ct  # noqa: E402  (the repository root is on the path)


def test_the_parent_process_never_imports_uno_env_or_numba():
    # only the fresh children may: a parent import would not slow them, but planning a
    # run must stay instant and must not depend on which checkout is importable
    code = ("import runpy, sys; m = runpy.run_path(sys.argv[1]); m['plan'](m['parse_args']"
            "(['--cases', 'game:classic'])); print(sorted(n for n in sys.modules "
            "if n.split('.')[0] in ('uno_env', 'numba')))")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "benchmarks" /
                          "compile_time.py")], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_case_with_a_preset_runs_that_pair_only_and_others_every_preset():
    args = ct.parse_args(["--cases", "tournament:classic,simulate", "--cases", "vector:flip",
                          "--presets", "classic,onepiece"])
    assert args.pairs == [("tournament", "classic"), ("simulate", "classic"),
                          ("simulate", "onepiece"), ("vector", "flip")]


def test_defaults_are_every_case_on_the_four_presets_of_this_checkout():
    args = ct.parse_args([])
    assert len(args.pairs) == len(ct.CASES) * 4
    assert {p for _, p in args.pairs} == {"classic", "street", "flip", "onepiece"}
    assert args.checkouts == [str(ROOT)] and args.repeat == 1


def test_checkouts_are_interleaved_innermost(tmp_path):
    other = tmp_path / "before"
    (other / "uno_env").mkdir(parents=True)
    (other / "uno_env" / "__init__.py").write_text("")
    args = ct.parse_args(["--checkout", str(other), "--checkout", str(ROOT),
                          "--cases", "game:classic,env:flip", "--repeat", "2"])
    order = [(r, case, c) for r, case, _, c in ct.plan(args)]
    b, a = str(other), str(ROOT)
    assert order == [(0, "game", b), (0, "game", a), (0, "env", b), (0, "env", a),
                     (1, "game", b), (1, "game", a), (1, "env", b), (1, "env", a)]


@pytest.mark.parametrize("argv", [["--cases", "bogus"], ["--repeat", "0"],
                                  ["--checkout", "/"], ["--checkout", ".", "--checkout",
                                                        str(ROOT)]])
def test_bad_arguments_are_refused(argv, monkeypatch):
    monkeypatch.chdir(ROOT)
    with pytest.raises(SystemExit) as stop:
        ct.parse_args(argv)
    assert stop.value.code == 2


def test_each_child_gets_its_own_cache_and_the_checkout_first_on_the_path(monkeypatch):
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    env = ct.child_env("/some/checkout", "/tmp/x")
    assert env["PYTHONPATH"] == "/some/checkout"
    assert env["NUMBA_CACHE_DIR"].startswith("/tmp/x")
    assert env["XDG_CACHE_HOME"].startswith("/tmp/x")
    assert "NUMBA_DISABLE_JIT" not in env  # a cold compile is what is measured
