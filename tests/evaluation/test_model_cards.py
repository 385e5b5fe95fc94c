"""Every shipped model has a model card beside it (``agents/models/NAME.md``, package
data), listed in docs/agents.md, whose figures agree with the stored benchmark cards and
the anchors: a model or card that changes without its model card fails here."""
from __future__ import annotations

import re

import pytest

from agents.ppo import MODELS_DIR, PPOAgent, shipped_models
from support import ROOT
from uno_env.envs.legacy import legacy_size
from uno_env.evaluation.benchmark import load_anchors
from uno_env.evaluation.reproduce import stored_card

SECTIONS = ("trained on", "algorithm", "samples", "seeds", "when", "observation",
            "benchmark", "provenance", "licence")


def test_every_model_card_is_listed_in_the_agents_page():
    page = (ROOT / "docs" / "agents.md").read_text()
    for name in shipped_models():
        assert f"`agents/models/{name}.md`" in page, name
    assert sorted(p.stem for p in MODELS_DIR.glob("*.md") if p.stem != "README") == \
        shipped_models()


@pytest.mark.parametrize("name", shipped_models())
def test_the_model_card_agrees_with_the_model_and_its_benchmark_card(name):
    text = (MODELS_DIR / f"{name}.md").read_text()
    assert text.startswith(f"# Model card: `{name}`")
    rows = dict(re.findall(r"^\| (\w[\w ]*) \| (.+) \|$", text, re.M))
    assert set(SECTIONS) <= set(rows), set(SECTIONS) - set(rows)
    model = PPOAgent.load(name)
    # how it was trained: the command, with the seed of the file's record
    command = re.search(r"```bash\n(.+?)```", text, re.S).group(1)
    assert command.startswith(("uno-bench train", "uno-bench exit"))
    assert f"--preset {model.config.preset}" in command or \
        (model.config.preset == "classic" and "--preset" not in command)
    if model.meta.get("seed"):
        assert f"--seed {model.meta['seed']}" in command
    assert f"{model.meta.get('trained_steps', model.meta.get('decisions')):,}" \
        in rows["samples"]
    # the observation it reads
    legacy = model.input_size == legacy_size(model.config)
    assert f"first {model.input_size} entries" in rows["observation"] if legacy \
        else f"({model.input_size} entries)" in rows["observation"]
    # its benchmark card: the rating and every result of the stored card, and the anchor
    card = stored_card(name)
    (track,) = [t for t in card["tracks"] if t["rating"]]
    r = track["rating"]
    assert f"{r['elo']:.0f} [{r['ci_low']:.0f}, {r['ci_high']:.0f}]" in rows["benchmark"]
    anchor = load_anchors()["tracks"][track["track"]["name"]]["ratings"][name]
    assert f"anchor {anchor:.0f}" in rows["benchmark"]
    for x in track["results"]:
        assert f"| {x['opponent']} | {x['games']:,} | {x['win_rate']:.3f} |" in text
    # what is known of its provenance is said, not invented
    assert ("provenance" in model.meta) != rows["provenance"].startswith("unknown")
    assert "MIT" in rows["licence"]
    assert f"uno-bench export {name} --format onnx" in text
