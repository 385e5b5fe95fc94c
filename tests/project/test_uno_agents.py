"""``uno_agents``: the shipped agents from any directory, even one holding a folder
``agents`` of the user's own (which ``import agents`` finds first there)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from support import ROOT


def _declared_entry_points() -> str:
    """The ``uno_env.agents`` entry points of pyproject.toml, as a wheel's
    entry_points.txt writes them."""
    text = (ROOT / "pyproject.toml").read_text()
    body = re.search(r'\[project\.entry-points\."uno_env\.agents"\]\n(.*?)\n\n', text,
                     re.S).group(1)
    pairs = [re.fullmatch(r'(\S+)\s*=\s*"([^"]+)"', line).groups()
             for line in body.splitlines() if line and not line.startswith("#")]
    return "[uno_env.agents]\n" + "".join(f"{k} = {v}\n" for k, v in pairs)


_PROBE = """
import json
import agents                                   # the user's own folder
from uno_agents import GreedyAgent, PPOAgent, shipped
import uno_env
from uno_env.players.registry import make_agent

model = PPOAgent.load("ppo_classic_2p")
result = uno_env.evaluate(model, opponents="greedy", num_games=8, preset="classic",
                          num_players=2, seed=0)
greedy = make_agent("greedy", uno_env.make_config("classic", 2))
print(json.dumps({"mine": agents.MINE, "shipped": shipped.__name__,
                  "file": shipped.__file__, "games": result["games"],
                  "greedy": type(greedy).__module__,
                  "same": type(greedy) is GreedyAgent}))
"""


def test_uno_agents_finds_the_shipped_agents_beside_a_folder_agents_of_your_own(tmp_path):
    """From a directory with its own ``agents/``: ``import agents`` is the user's,
    ``from uno_agents import PPOAgent`` the shipped one, and the agents registered by
    name through pyproject's entry point (an ``evaluate`` against ``greedy``) are the
    shipped ones too, the same classes as ``uno_agents``'s."""
    work = tmp_path / "project"
    (work / "agents").mkdir(parents=True)
    (work / "agents" / "__init__.py").write_text("MINE = True\n")
    # this checkout's metadata as an install of it would write it: the entry points
    # pyproject.toml declares (importlib.metadata takes the first uno-env on the path)
    meta = tmp_path / "meta" / "uno_env-0.0.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: uno-env\nVersion: 0.0\n")
    (meta / "entry_points.txt").write_text(_declared_entry_points())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(meta.parent)]),
               UNO_ENV_QUIET="1")
    done = subprocess.run([sys.executable, "-c", _PROBE], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["mine"] is True                      # the user's agents is untouched
    assert out["shipped"] == "uno_agents.shipped"   # loaded from its own folder
    assert out["file"] == str(ROOT / "agents" / "__init__.py")
    assert out["games"] == 8
    assert out["greedy"] == "uno_agents.shipped.baselines" and out["same"] is True


def test_without_a_folder_of_your_own_uno_agents_is_the_agents_package():
    import agents
    import uno_agents
    assert uno_agents.shipped is agents
    assert uno_agents.PPOAgent is agents.PPOAgent and uno_agents.register is agents.register
    assert set(agents.__all__) <= set(uno_agents.__all__)
