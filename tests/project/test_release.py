"""The release leaves the repository: everything the commands read at run time is
package data, and (in CI) the built wheel, installed into a fresh venv, runs the
README's main job, loads every shipped model and writes a benchmark card from a
directory outside the checkout."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from fnmatch import fnmatch
from pathlib import Path

import pytest

from conftest import in_ci
from support import ROOT


def _package_data() -> dict:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard "
                                  "library from Python 3.11")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]


def test_every_data_file_of_the_packages_is_package_data():
    """A file the code reads at run time (anchors, stored cards, models and their cards)
    is in the wheel: every non-Python file under uno_env/ and agents/ that git tracks
    matches a package-data pattern."""
    data = _package_data()
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "uno_env", "agents"],
                             capture_output=True, text=True, check=True).stdout.split()
    missing = []
    for path in tracked:
        package, _, rest = path.partition("/")
        if path.endswith(".py"):
            continue
        if not any(fnmatch(rest, pattern) for pattern in data.get(package, [])):
            missing.append(path)
    assert missing == [], f"not package data (pyproject.toml): {missing}"
    assert any(p.startswith("uno_env/evaluation/stored_cards/") for p in tracked)


def _run(args, cwd, env, timeout=900):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.skipif(not in_ci(), reason="runs in CI only (CI=true): it builds the sdist "
                    "and the wheel, installs the wheel into a fresh venv and compiles "
                    "the engine there from an empty kernel cache (about 3 minutes)")
def test_the_wheel_runs_the_main_job_outside_the_checkout(tmp_path):
    from agents.ppo import shipped_models
    import uno_env
    dist, venv, away = tmp_path / "dist", tmp_path / "venv", tmp_path / "elsewhere"
    away.mkdir()
    # python -m build: the sdist, then the wheel built from the sdist (not the tree);
    # no isolation, so it builds offline with this environment's setuptools
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist),
          str(ROOT)], ROOT, os.environ)
    (wheel,) = dist.glob("uno_env-*.whl")
    (sdist,) = dist.glob("uno_env-*.tar.gz")
    assert wheel.name == f"uno_env-{uno_env.__version__}-py3-none-any.whl"
    _run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
         ROOT, os.environ)
    names = zipfile.ZipFile(wheel).namelist()
    assert not any(n.startswith(("tests/", "docs/", "benchmarks/")) for n in names)
    # a fresh venv that does not see the tree: no pip of its own (this environment's
    # pip installs the wheel into it, offline), then the dependencies from this
    # environment's site-packages by a path line (the .pth files there, such as an
    # editable install of this checkout, are not run)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "cache"), UNO_ENV_QUIET="1",
               MPLBACKEND="Agg", PATH=f"{venv / 'bin'}:{env.get('PATH', '')}")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
          "--no-index", str(wheel)], away, env)
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                      "['purelib'])"], away, env).strip())
    assert (site / "uno_env" / "version.py").is_file()
    (site / "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = json.loads(_run([str(python), "-c", "import json, uno_env, agents, uno_agents; "
                             "print(json.dumps([uno_env.__file__, agents.__file__, "
                             "uno_agents.__file__, uno_agents.shipped.__file__]))"],
                            away, env))
    assert all(Path(p).is_relative_to(site) for p in where), where
    bench = str(venv / "bin" / "uno-bench")
    assert _run([bench, "--version"], away, env).strip() == \
        f"uno-bench (uno-env) {uno_env.__version__}"      # no commit: not a checkout
    # the README's main job, at a small game count
    readme = (ROOT / "README.md").read_text()
    job = re.search(r"&& (uno-bench tournament [^\n]+)", readme).group(1).split()
    job[job.index("--games") + 1] = "300"
    _run([bench, *job[1:], "--no-progress"], away, env)
    results = json.loads((away / "results" / "results.json").read_text())
    assert results["num_games"] >= 300
    assert results["provenance"]["uno_env"] == {"version": uno_env.__version__,
                                                "commit": None, "dirty": None}
    # every shipped model by name, with its model card, and the stored cards
    code = ("import json\nfrom uno_env.players.registry import make_agent\n"
            "from agents.ppo import MODELS_DIR, shipped_models\n"
            "from uno_env.evaluation.reproduce import stored_cards\n"
            "names = shipped_models()\n"
            "agents = [make_agent(n, None) for n in names]\n"
            "assert all((MODELS_DIR / f'{n}.md').is_file() for n in names)\n"
            "print(json.dumps([names, [a.config.preset for a in agents], stored_cards()]))")
    names, presets, cards = json.loads(_run([str(python), "-c", code], away, env))
    assert names == shipped_models() and len(presets) == len(names)
    assert "heuristic" in cards
    # the benchmark at a small game count, on a 4-player track so that its duplicate
    # deals read the stored references (package data), and the rules text the CLI shows
    # (classic-2p's panel would compile the search's kernels here: 30 s of CI for them)
    _run([bench, "benchmark", "--agent", "heuristic", "--track", "classic-4p", "--games",
          "20", "--deals", "50", "--out", "card", "--no-progress"], away, env)
    card = json.loads((away / "card" / "card.json").read_text())
    track = card["tracks"][0]
    assert track["rating"] is not None and card["provenance"]["seeds"] == [1804]
    assert track["duplicate"]["deals"] == 50
    assert track["duplicate"]["edges"]["heuristic"]["win_rate"]["edge"] == 0
    assert "stack" in _run([bench, "flags"], away, env)
