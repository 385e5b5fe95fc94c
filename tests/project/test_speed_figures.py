"""``benchmarks/speed_figures.py``: the README's and docs/performance.md's speed figures
come from one command (its summary and its writing are checked here on made-up runs; the
measuring is ``uno-bench bench``'s, tested in tests/applications/test_cli.py)."""
from __future__ import annotations

import importlib

import pytest

from support import ROOT


def _run(scale: float) -> dict:
    rows = {"simulate, 1 thread": 10e6 * scale, "EverySeatBatch B=1024": 5e6 * scale,
            "AEC env()": 300e3 * scale, "RLCard uno (2 players)": 40e3}
    return {"rows": {k: {"games_per_s": v / 100, "steps_per_s": v} for k, v in rows.items()},
            "ratios_vs_rlcard_steps": {k: v / 40e3 for k, v in rows.items()}}


def test_medians_spreads_and_ratios_and_both_pages_written(tmp_path, monkeypatch):
    sf = importlib.import_module("benchmarks.speed_figures")
    runs = [_run(1.0), _run(1.2), _run(0.9)]
    rows = sf.summarize(runs)
    sim = rows["simulate, 1 thread"]
    assert sim["steps"] == pytest.approx(10e6) and sim["low"] == pytest.approx(9e6)
    assert sim["high"] == pytest.approx(12e6) and sim["ratio"] == pytest.approx(250)
    assert (sim["ratio_low"], sim["ratio_high"]) == pytest.approx((225, 300))
    meta = {"date": "2026-12-07", "commit": "abc1234", "repeats": 3, "seconds": 3.0,
            "loads": [11.0, 12.5, 9.0], "load_low": 9.0, "load_high": 12.5}
    readme, page = tmp_path / "README.md", tmp_path / "performance.md"
    readme.write_text("- **Fast.** x: <!-- speed:start -->old<!-- speed:end --> (docs).\n")
    page.write_text("# P\n<!-- speed:start -->\nold table\n<!-- speed:end -->\nrest\n")
    monkeypatch.setattr(sf, "README", readme)
    monkeypatch.setattr(sf, "PERFORMANCE", page)
    sf.replace_between(readme, sf.readme_text(rows, meta))
    sf.replace_between(page, "\n" + sf.performance_text(rows, meta) + "\n")
    text = readme.read_text()
    assert "\n  " in text and max(map(len, text.splitlines())) <= 88   # the bullet's lines
    text = " ".join(text.split())
    assert "`simulate` plays 10.0M decisions a second, about 250x RLCard's UNO in the same" \
           " run" in text
    assert "median of 3 runs" in text and "load average 9.0 to 12.5" in text
    assert "225x to 300x" in text and text.endswith("<!-- speed:end --> (docs).")
    table = page.read_text()
    assert "old table" not in table and table.endswith("<!-- speed:end -->\nrest\n")
    assert "| `simulate`, 1 thread | 10,000,000 | 9,000,000 to 12,000,000 | 250.0 | " \
           "225.0 to 300.0 |" in table
    flat = " ".join(table.split())
    assert "11.0, 12.5, 9.0" in flat and "commit abc1234" in flat
    assert "while other jobs shared it" in flat and "while other jobs shared it" in text
    assert sf.machine_state([0.9, 1.0]) == "otherwise quiet"   # the benchmark's own core
    (tmp_path / "none.md").write_text("no markers")
    with pytest.raises(SystemExit, match="no <!-- speed:start -->"):
        sf.replace_between(tmp_path / "none.md", "y")


def test_the_pages_carry_the_markers_the_script_writes_between():
    for path in (ROOT / "README.md", ROOT / "docs" / "performance.md"):
        text = path.read_text()
        assert text.count("<!-- speed:start -->") == text.count("<!-- speed:end -->") == 1
