"""The CI rule of tests/conftest.py: with ``CI`` set a run that skipped tests fails and
names them; without it a skip is only a skip. And its order of the test files: the
longest first."""
from support import ROOT

pytest_plugins = ["pytester"]

CONFTEST = (ROOT / "tests" / "conftest.py").read_text()
TESTS = '''
import pytest

def test_runs():
    assert True

@pytest.mark.skipif(True, reason="needs the frobnicate extra")
def test_skipped():
    pass
'''


def _run(pytester, monkeypatch, ci):
    # the copied conftest would warm the engine up (four processes) for a suite of two
    # tests that use none of it
    monkeypatch.setenv("UNO_ENV_TEST_WARMUP", "0")
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_some=TESTS)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")


def test_a_skip_fails_a_ci_run_and_is_listed(pytester, monkeypatch):
    result = _run(pytester, monkeypatch, "true")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*skipped tests fail a CI run*",
                                 "*test_some.py::test_skipped*needs the frobnicate extra*"])


def test_a_skip_is_only_a_skip_outside_ci(pytester, monkeypatch):
    for ci in (None, "false", "0"):
        result = _run(pytester, monkeypatch, ci)
        assert result.ret == 0, ci
        result.assert_outcomes(passed=1, skipped=1)
        assert "fail a CI run" not in result.stdout.str()


def test_a_ci_run_without_skips_passes(pytester, monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("UNO_ENV_TEST_WARMUP", "0")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_some="def test_runs():\n    assert True\n")
    assert pytester.runpytest_subprocess("-p", "no:cacheprovider").ret == 0


def test_the_long_files_exist_and_run_first():
    """``LONG_FILES`` names test files that exist; the hook puts their tests first, in
    its order, each file's tests together and in their order; and pytest-xdist keeps
    that order (``--no-loadscope-reorder``)."""
    import tomllib

    import conftest
    assert [p for p in conftest.LONG_FILES if not (ROOT / p).is_file()] == []

    class Item:                     # what the hook reads of a test item
        def __init__(self, nodeid):
            self.nodeid = nodeid

    first, second = conftest.LONG_FILES[:2]
    given = ["tests/a.py::t1", "tests/a.py::t2", f"{second}::x", f"{second}::y",
             "tests/b.py::t", f"{first}::z"]
    items = [Item(n) for n in given]
    conftest.pytest_collection_modifyitems(None, items)
    assert [i.nodeid for i in items] == [f"{first}::z", f"{second}::x", f"{second}::y",
                                         "tests/a.py::t1", "tests/a.py::t2", "tests/b.py::t"]
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["addopts"].split()
    assert "--no-loadscope-reorder" in addopts and "loadfile" in addopts
