"""Matplotlib figures of ``uno_env.evaluation.analysis`` results, shared by the notebooks and
``benchmarks/figures.py``. Each function takes computed results and returns a Figure
(pyplot figures, so a notebook shows them inline; scripts save and close them)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

PLAYER_COLORS = {2: "tab:blue", 4: "tab:orange", 6: "tab:green"}
AGENT_COLORS = {"random": "tab:gray", "greedy": "tab:blue", "heuristic": "tab:orange"}


def _presets_in_order(cells) -> list[str]:
    seen: list[str] = []
    for c in cells:
        if c.preset not in seen:
            seen.append(c.preset)
    return seen


def turns_boxplot(cells, title="Turns per game"):
    """One panel per player count: the distribution of turns per game for each preset
    (box: quartiles and median; whiskers: 5th and 95th percentiles)."""
    counts = sorted({c.num_players for c in cells})
    presets = _presets_in_order(cells)
    size = (4.2 * len(counts), 0.42 * len(presets) + 1.6)
    fig, axes = plt.subplots(1, len(counts), figsize=size, sharey=True, squeeze=False)
    for ax, p in zip(axes[0], counts):
        data, labels = [], []
        for name in presets:
            cell = next((c for c in cells if c.preset == name and c.num_players == p), None)
            data.append(cell.turns if cell is not None else np.array([np.nan]))
            labels.append(name)
        ax.boxplot(data, orientation="horizontal", whis=(5, 95), showfliers=False, widths=0.6,
                   medianprops={"color": "black"},
                   boxprops={"facecolor": PLAYER_COLORS.get(p, "tab:blue"), "alpha": 0.6},
                   patch_artist=True)
        ax.set_yticks(range(1, len(labels) + 1), labels)
        ax.invert_yaxis()
        ax.set_xlabel("turns per game")
        ax.set_title(f"{p} players")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def _grouped_errorbars(ax, presets, counts, values):
    """``values[(preset, p)] = (centre, lo, hi)``; one marker per (preset, p)."""
    offsets = np.linspace(-0.25, 0.25, len(counts)) if len(counts) > 1 else [0.0]
    for off, p in zip(offsets, counts):
        ys, xs, lo, hi = [], [], [], []
        for i, name in enumerate(presets):
            if (name, p) in values:
                c, a, b = values[(name, p)]
                ys.append(i + off)
                xs.append(c)
                lo.append(c - a)
                hi.append(b - c)
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o", capsize=3, ms=4,
                    color=PLAYER_COLORS.get(p), label=f"{p} players")
    ax.set_yticks(range(len(presets)), presets)
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)


def first_seat_plot(cells):
    """First-seat win rate minus the fair share 1/P, with 95% intervals."""
    presets = _presets_in_order(cells)
    counts = sorted({c.num_players for c in cells})
    values = {(c.preset, c.num_players): c.first_seat_advantage for c in cells}
    fig, ax = plt.subplots(figsize=(7, 0.42 * len(presets) + 1.6))
    _grouped_errorbars(ax, presets, counts, values)
    ax.axvline(0.0, color="black", lw=0.8)
    ax.set_xlabel("first seat's win rate minus 1/P (95% interval)")
    ax.set_title("First-seat advantage")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def rates_grid(rows, fields, titles):
    """Small multiples: one bar panel per field of ``rows`` (dicts of
    ``VariantStats.row()``), presets down, one bar per player count."""
    presets: list[str] = []
    for r in rows:
        if r["preset"] not in presets:
            presets.append(r["preset"])
    counts = sorted({r["players"] for r in rows})
    cols = min(3, len(fields))
    nrows = -(-len(fields) // cols)
    size = (4.2 * cols, (0.3 * len(presets) + 1.2) * nrows)
    fig, axes = plt.subplots(nrows, cols, figsize=size, sharey=True, squeeze=False)
    height = 0.8 / len(counts)
    for k, (name, title) in enumerate(zip(fields, titles)):
        ax = axes[k // cols][k % cols]
        for j, p in enumerate(counts):
            ys, xs = [], []
            for i, pr in enumerate(presets):
                row = next((r for r in rows if r["preset"] == pr and r["players"] == p), None)
                if row is not None:
                    ys.append(i - 0.4 + height * (j + 0.5))
                    xs.append(0.0 if np.isnan(row[name]) else row[name])
            ax.barh(ys, xs, height=height, color=PLAYER_COLORS.get(p), label=f"{p} players")
        ax.set_yticks(range(len(presets)), presets)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].invert_yaxis()
    for k in range(len(fields), nrows * cols):
        axes[k // cols][k % cols].axis("off")
    axes[0][-1].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def skill_plot(edges, title="How much skill decides a game", xlabel=None):
    """Skill edge (0 luck .. 1 skill) with 95% intervals, per preset and player count
    (``xlabel`` names the measure; default: the first edge's agent over its opponent)."""
    presets = _presets_in_order(edges)
    counts = sorted({e.num_players for e in edges})
    values = {(e.preset, e.num_players): (e.edge, *e.edge_interval) for e in edges}
    fig, ax = plt.subplots(figsize=(7, 0.42 * len(presets) + 1.6))
    _grouped_errorbars(ax, presets, counts, values)
    agent, opp = edges[0].agent, edges[0].opponent
    ax.set_xlabel(xlabel or f"{agent}'s edge over {opp}: (win rate - 1/P) / (1 - 1/P)")
    ax.set_title(title)
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    return fig


def ablation_plot(labels, turns_mean, turns_ci, edge_series):
    """Two panels over the ablation rows: mean turns per game (95% interval of the mean)
    and skill edges (95% intervals), one bar per series of ``edge_series`` (a dict
    ``name -> [SkillEdge per label]``). Dashed lines mark the first row (the baseline)."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 0.45 * len(labels) + 1.6), sharey=True)
    y = np.arange(len(labels))
    turns_mean = np.asarray(turns_mean)
    a1.barh(y, turns_mean, xerr=np.abs(np.asarray(turns_ci).T - turns_mean), capsize=3,
            color=["tab:gray"] + ["tab:blue"] * (len(labels) - 1))
    a1.axvline(turns_mean[0], color="black", lw=0.8, ls="--")
    a1.set_yticks(y, labels)
    a1.invert_yaxis()
    a1.set_xlabel("mean turns per game")
    a1.set_title("Game length")
    height = 0.8 / len(edge_series)
    colors = ["tab:orange", "tab:purple", "tab:green"]
    for j, (name, edges) in enumerate(edge_series.items()):
        e = np.array([x.edge for x in edges])
        ci = np.array([x.edge_interval for x in edges])
        ys = y - 0.4 + height * (j + 0.5)
        a2.barh(ys, e, height=height, xerr=np.abs(ci.T - e), capsize=2,
                color=colors[j % len(colors)], label=name)
        a2.axvline(e[0], color=colors[j % len(colors)], lw=0.8, ls="--")
    a2.set_xlabel("skill edge: (win rate - 1/P) / (1 - 1/P), 0 luck .. 1 skill")
    a2.set_title("Skill gap")
    a2.legend(fontsize=8, loc="lower right")
    for ax in (a1, a2):
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def win_rate_plot(results, title="Win rates by preset"):
    """Grouped bars: each agent's tournament win rate (95% Wilson interval) per preset;
    ``results`` maps a label to a ``TournamentResult``."""
    labels = list(results)
    agents: list[str] = []
    for r in results.values():
        for a in r.agents:
            if a not in agents:
                agents.append(a)
    width = 0.8 / len(agents)
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(labels) + 2), 4))
    for j, a in enumerate(agents):
        xs, ys, err = [], [], [[], []]
        for i, lab in enumerate(labels):
            row = next((d for d in results[lab].stats() if d["agent"] == a), None)
            if row is None:
                continue
            xs.append(i - 0.4 + width * (j + 0.5))
            ys.append(row["win_rate"])
            err[0].append(row["win_rate"] - row["ci_low"])
            err[1].append(row["ci_high"] - row["win_rate"])
        ax.bar(xs, ys, width=width, yerr=err, capsize=2,
               color=AGENT_COLORS.get(a), label=a)
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def ratings_plot(tracks, title="The leaderboard: anchored ratings, 95% intervals"):
    """One panel per track: every rated agent's rating with its 95% interval, highest
    on top. ``tracks`` maps a track's name to rows ``(agent, elo, ci_low, ci_high)``."""
    tracks = {t: sorted(rows, key=lambda r: -r[1]) for t, rows in tracks.items() if rows}
    rows_max = max((len(r) for r in tracks.values()), default=1)
    fig, axes = plt.subplots(1, max(1, len(tracks)), squeeze=False,
                             figsize=(3.3 * max(1, len(tracks)), 0.32 * rows_max + 1.6))
    for ax, (name, rows) in zip(axes[0], tracks.items()):
        ys = np.arange(len(rows))
        elo = np.array([r[1] for r in rows])
        err = np.array([elo - [r[2] for r in rows], np.array([r[3] for r in rows]) - elo])
        colors = [AGENT_COLORS.get(r[0], "tab:purple") for r in rows]
        ax.errorbar(elo, ys, xerr=err, fmt="none", ecolor="black", capsize=3, lw=1)
        ax.scatter(elo, ys, c=colors, s=18, zorder=3)
        ax.set_yticks(ys, [r[0] for r in rows], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(name, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=8)
    axes[0][0].set_xlabel("rating (Elo, random = 0)", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
