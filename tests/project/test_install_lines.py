"""Every example and notebook says, in its first lines and in the error it raises when a
dependency is missing, the exact command that installs it (torch's CPU line as in the
README); the ``notebooks`` extra brings what the notebooks need, and docs/notebooks.md
shows the command that runs them."""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys

import nbformat

from support import ROOT

TORCH = "pip install torch==2.13.0 --extra-index-url https://download.pytorch.org/whl/cpu"
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _install(path) -> str:
    """The module-level ``INSTALL`` string of an example."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets
                                             if isinstance(t, ast.Name)] == ["INSTALL"]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path.name} has no INSTALL")


def test_the_readme_installs_torch_with_the_line_the_examples_give():
    assert TORCH in (ROOT / "README.md").read_text()


def test_every_example_names_its_install_command_in_its_first_lines():
    assert len(EXAMPLES) >= 5
    for path in EXAMPLES:
        install = _install(path)
        head = "\n".join(path.read_text().splitlines()[:6])
        for command in install.split(" && "):
            assert command in head, (path.name, command)
        if re.search(r"^\s*import torch\b", path.read_text(), re.M):
            assert TORCH in install, path.name          # the CPU build, never PyPI's


# every example run with its extra dependencies hidden: each must stop at its first
# missing one with the command that installs it
_PROBE = """
import importlib.abc, json, runpy, sys
HIDDEN = {"torch", "jax", "flax", "optax", "tianshou", "torchrl", "tensordict", "pyspiel"}

class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Hide())
out = {}
for path in sys.argv[1:]:
    try:
        if path.endswith(".ipynb"):         # the notebook's first code cell
            import nbformat
            cell = next(c for c in nbformat.read(path, as_version=4).cells
                        if c.cell_type == "code")
            exec(compile(cell.source, path, "exec"), {})
        else:
            runpy.run_path(path, run_name="probe")
        out[path] = None
    except ModuleNotFoundError as err:
        out[path] = [str(err), err.name]
print(json.dumps(out))
"""


def test_a_missing_dependency_stops_each_example_with_its_install_command():
    game_theory = ROOT / "notebooks" / "game_theory.ipynb"
    env = dict(os.environ, PYTHONPATH=str(ROOT), UNO_ENV_QUIET="1")
    done = subprocess.run([sys.executable, "-c", _PROBE, *map(str, EXAMPLES),
                           str(game_theory)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    for path in EXAMPLES:
        message, name = out[str(path)]
        assert message == f"this example needs {name}: {_install(path)}" or \
            message == f"this example needs {name} (the jax extra): {_install(path)}", \
            (path.name, message)
    message, name = out[str(game_theory)]
    assert name == "pyspiel" and message.endswith(
        f"{TORCH} && pip install -e '.[notebooks]'"), message


def test_every_notebook_says_how_to_install_and_run_it_first():
    for path in NOTEBOOKS:
        first = nbformat.read(path, as_version=4).cells[0].source
        assert TORCH in first and 'pip install -e ".[notebooks]"' in first, path.name
        assert f"jupyter nbconvert --to notebook --execute --inplace notebooks/" \
               f"{path.name}" in first, path.name


def test_the_notebooks_extra_brings_jupyter_and_what_the_notebooks_import():
    text = (ROOT / "pyproject.toml").read_text()
    extra = re.search(r"^notebooks = \[(.*?)\]", text, re.M | re.S).group(1)
    for needed in ("nbconvert", "nbclient", "ipykernel", "openspiel", "rl"):
        assert needed in extra, needed
    page = (ROOT / "docs" / "notebooks.md").read_text()
    assert f'{TORCH} && pip install -e ".[notebooks]"' in page
    assert "UNO_QUICK=1 jupyter nbconvert --to notebook --execute --output-dir executed " \
           "notebooks/*.ipynb" in page
