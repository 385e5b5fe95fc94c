"""The result files of ``uno-bench simulate --out`` and ``uno-bench evaluate --out``: the
figures the command printed, as JSON, with their provenance (``uno_env.provenance``)."""
from __future__ import annotations

import json
from pathlib import Path

#: the layout of these files
RESULTS_FORMAT = "uno-env-results/1"


def _write(data: dict, path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=2) + "\n")
    return p


def save_simulation(result, rules: dict, path) -> Path:
    """``uno-bench simulate``'s result (a ``SimResult``) as JSON at ``path``."""
    from uno_env.provenance import provenance
    from uno_env.rules.config import make_config
    config = make_config(result.preset, result.num_players, **rules)
    return _write({
        "format": RESULTS_FORMAT, "command": "simulate", "preset": result.preset,
        "num_players": result.num_players, "rules": dict(rules),
        "agents": list(result.agents), "seed": int(result.seed),
        "games": result.num_games, "wins_by_seat": result.wins.tolist(),
        "win_rate_by_seat": [round(float(w), 6) for w in result.win_rate],
        "truncated": result.truncated, "totals": result.totals,
        "mean_turns": round(float(result.turns.mean()), 4),
        "mean_points_by_seat": [round(float(p), 4) for p in result.mean_points],
        "elapsed": round(result.elapsed, 3), "threads": result.threads,
        "summary": result.summary(),
        "provenance": provenance(config, [result.seed], agents=list(result.agents)),
    }, path)


def save_evaluation(model: str, rows: list[dict], config, games: int, seed: int,
                    path) -> Path:
    """``uno-bench evaluate``'s rows (one per opponent) as JSON at ``path``."""
    from uno_env.provenance import provenance
    return _write({
        "format": RESULTS_FORMAT, "command": "evaluate", "agent": model,
        "preset": config.preset, "num_players": config.num_players,
        "rules": config.rule_overrides(), "games_per_opponent": int(games),
        "seed": int(seed), "results": rows,
        "provenance": provenance(config, [seed], agent=model,
                                 opponents=[r["opponent"] for r in rows]),
    }, path)
