"""The documentation stays inside the repository and builds.

- Every relative link (and every ``#anchor`` into a Markdown file) in README.md and
  docs/**/*.md resolves to a file inside the repository: on GitHub, in a clone and in a
  wheel's sdist nothing may point at ``../shared`` or at a heading that was renamed.
  Anchors are GitHub's heading slugs (mkdocs' own slugs are checked by its build).
- No file of README.md, docs/, uno_env/, agents/ points at ``../shared``.
- ``mkdocs build --strict`` (mkdocs.yml) passes: broken links, anchors or API
  references fail it. It skips only when mkdocs is missing outside CI.
"""
from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest
from support import ROOT


pytestmark = pytest.mark.slow  # builds the docs site (pyproject.toml markers)


#: inline links and images: [text](target) / ![alt](target "title")
_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: reference definitions: [label]: target
_REF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
#: HTML href/src attributes
_HTML = re.compile(r"""(?:href|src)\s*=\s*["']([^"']+)["']""")
_FENCE = re.compile(r"^([ \t]*)(```|~~~).*?^\1\2[^\n]*$", re.M | re.S)
_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files() -> list[pathlib.Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _strip_code(text: str) -> str:
    """Markdown without fenced blocks and inline code (links there are not links)."""
    text = _FENCE.sub("", text)
    return _CODE.sub("", text)


def links(text: str) -> list[str]:
    body = _strip_code(text)
    return _LINK.findall(body) + _REF.findall(body) + _HTML.findall(body)


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed
    (letters, digits, ``-``, ``_`` and spaces kept), each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # links keep their text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: pathlib.Path) -> set[str]:
    """Every anchor a Markdown file offers: heading slugs (duplicates get -1, -2 as on
    GitHub), explicit ``id``/``name`` attributes and the objects of mkdocstrings'
    ``::: name`` lines."""
    text = path.read_text(encoding="utf-8")
    found: set[str] = set()
    counts: dict[str, int] = {}
    for line in _FENCE.sub("", text).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            slug = github_slug(m.group(1))
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
    found.update(re.findall(r"""(?:id|name)\s*=\s*["']([^"']+)["']""", text))
    # mkdocstrings gives the object of a ``::: module`` line the anchor #module
    found.update(re.findall(r"^:::\s+(\S+)", text, re.M))
    return found


def broken_links(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    """Relative links of ``path`` that leave ``root``, name no file, or name an anchor
    that the target Markdown file does not have."""
    problems = []
    for target in links(path.read_text(encoding="utf-8")):
        if _SCHEME.match(target) or target.startswith("//"):
            continue  # an absolute URL (https:, mailto:)
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path.resolve()
        where = f"{path.relative_to(root)}: {target}"
        if file_part.startswith("/"):
            problems.append(f"{where} (absolute path)")
        elif not dest.is_relative_to(root.resolve()):
            problems.append(f"{where} (outside the repository)")
        elif not dest.exists():
            problems.append(f"{where} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{where} (no heading with anchor #{anchor} in {dest.name})")
    return problems


def test_relative_links_and_anchors_resolve_inside_the_repository():
    files = markdown_files()
    assert (ROOT / "docs" / "rules.md") in files
    problems = [p for f in files for p in broken_links(f)]
    assert problems == [], "broken links:\n" + "\n".join(problems)


def test_the_link_checker_finds_what_is_broken(tmp_path):
    """The checker itself: each kind of broken link is reported, good ones are not."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        "# Title\n## 2. Classic official rules\n\n```python\nx = 1\n```\n\n"
        "## After the code\n\n```bash\ny\n```\n\n::: pkg.module\n")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/a.md) [ok](docs/a.md#2-classic-official-rules) [ok](#here) "
        "[ok](docs/a.md#after-the-code) [ok](docs/a.md#pkg.module) "
        "\n\n```\n[fenced](nowhere.md)\n```\n\n"
        "[web](https://example.org/x) `[code](nowhere.md)`\n# Here\n"
        "[gone](docs/b.md) [anchor](docs/a.md#3-house-rules) "
        "[out](../shared/RULES.md) [self](#nowhere)\n")
    problems = broken_links(page, root=tmp_path)
    assert [p.split(": ", 1)[1].split(" (")[0] for p in problems] == [
        "docs/b.md", "docs/a.md#3-house-rules", "../shared/RULES.md", "#nowhere"]


def test_rules_keeps_the_contract_section_numbers():
    """Code cites "docs/rules.md section N": sections 1-7 exist with stable anchors."""
    found = anchors(ROOT / "docs" / "rules.md")
    for anchor in ("1-notation", "2-classic-official-rules", "3-house-rules",
                   "4-wild-shuffle-hands-and-wild-customizable", "5-uno-flip",
                   "6-uno-one-piece", "7-rewards"):
        assert anchor in found


def test_nothing_points_outside_the_repository():
    offenders = []
    paths = [ROOT / "README.md", ROOT / "mkdocs.yml"]
    for folder in ("docs", "uno_env", "agents"):
        paths += [p for p in (ROOT / folder).rglob("*") if p.is_file()]
    for path in paths:
        if "__pycache__" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary (figures, models)
        for n, line in enumerate(text.splitlines(), 1):
            if "../shared" in line or "shared/RULES.md" in line or "shared/seeds" in line:
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == [], "points outside the repository:\n" + "\n".join(offenders)


def test_docs_site_builds_strictly(tmp_path):
    if importlib.util.find_spec("mkdocs") is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but mkdocs is not installed: install the docs extra "
                        "(pip install -e '.[dev]' includes it)")
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    log = run.stdout + run.stderr
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{log[-6000:]}"
    site = tmp_path / "site"
    for page in ("index.html", "rules/index.html", "api/envs/index.html",
                 "examples/index.html", "_repo/notebooks/variants.ipynb",
                 "_repo/examples/cleanrl_ppo_masked.py"):
        assert (site / page).is_file(), page
    api = (site / "api" / "envs" / "index.html").read_text(encoding="utf-8")
    for name in ("uno_env.envs.single_seat.SingleAgentEnv", "uno_env.envs.every_seat.EverySeatBatch",
                 "uno_env.envs.aec.raw_env", "uno_env.envs.gym_vector.GymVectorEnv"):
        assert f'id="{name}"' in api, name


def test_rules_page_lists_every_flag_and_preset():
    """docs/rules.md's flag table names every field of ``Rules``, and every preset is
    described in the rules or the variants page (a new flag must be documented)."""
    from uno_env.rules import PRESETS, rule_names

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    table = text[text.index("## Rule flags at a glance"):]
    rows = set(re.findall(r"^\| `(\w+)` \|", table, re.M))
    assert rows == set(rule_names())
    pages = text + (ROOT / "docs" / "variants.md").read_text(encoding="utf-8")
    assert [p for p in PRESETS if f"`{p}`" not in pages] == []


def test_readme_index_and_ci_show_the_same_setup_commands():
    """The README's two set-up commands (the main job; the tests) are the quick start's
    of the docs site, and the test command is the one .ci/run runs."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"```bash\n(python3 -m venv[^\n]*)\n```", readme)
    assert len(commands) == 2 and commands[1].endswith("&& pytest"), commands
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert re.findall(r"```bash\n(python3 -m venv[^\n]*)\n```", index) == commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines()


def test_readme_is_a_front_page():
    """At most 200 lines, and no figure placeholder or stale marker left in it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert not re.search(r"\b(SPEED|TIMING|QUICK|PRESETS|LEADERBOARD)\b|stale|not yet done",
                         readme)
