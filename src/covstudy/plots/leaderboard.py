"""Figures of a leaderboard study (leaderboard/study.py): family-wise coverage, false claims and rank sets
against the number of models k. Drawn from the study's results table only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .style import band_colours, save_figure

DPI = 110


def _panels(table, measure: str, ylabel: str, title: str, path: Path, target: float | None = None,
            logy: bool = False, colours: dict | None = None) -> Path:
    """One panel per test-set size n, a line per method over k (rows already selected)."""
    sizes = sorted(table.n.unique())
    methods = [m for m in dict.fromkeys(table.method) if table.loc[table.method == m, measure].notna().any()]
    colours = colours or band_colours(methods)
    fig = Figure(figsize=(3.3 * len(sizes), 3.3))
    axes = np.atleast_1d(fig.subplots(1, len(sizes), sharey=True, squeeze=False)[0])
    fig.suptitle(title, fontsize=10)
    for ax, n in zip(axes, sizes):
        for m in methods:
            d = table[(table.n == n) & (table.method == m)].groupby("k")[measure].mean()
            ax.plot(d.index, d.values, marker="o", ms=3, lw=1.0, color=colours[m], label=m)
        if target is not None:
            ax.axhline(target, color="k", lw=0.7, ls=":")
        ax.set_xscale("log")
        ax.set_xticks(sorted(table.k.unique()), [str(k) for k in sorted(table.k.unique())])
        ax.minorticks_off()
        ax.set_title(f"n = {n:,}", fontsize=9)
        ax.set_xlabel("models k")
        if logy:
            ax.set_yscale("log")
    axes[0].set_ylabel(ylabel)
    axes[-1].legend(fontsize=7, loc="best")
    fig.tight_layout()
    return save_figure(fig, path, dpi=DPI)


def plot_leaderboard(table, folder) -> list[Path]:
    """The study's figures in ``folder`` (PNG; the false-claims figure only with a spread of 0)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    delta = float(table.delta.iloc[0])
    null = table[table.spread == 0]
    spread = table[table.spread == table.spread[table.spread > 0].min()] if (table.spread > 0).any() else table
    s = float(spread.spread.iloc[0])
    colours = band_colours(list(dict.fromkeys(table.method)))  # one colour per method in every figure
    return [
        _panels(table, "family_coverage", "P(every pairwise interval covers)",
                "Simultaneous coverage of all k(k-1)/2 differences (mean over spread and rho)",
                folder / "leaderboard_family_coverage.png", 1 - delta, colours=colours),
        *([_panels(null, "false_claim", "P(some false 'A beats B')",  # only with equal models (spread 0)
                   "k equal models: the chance of at least one false claim (mean over rho)",
                   folder / "leaderboard_false_claims.png", delta, colours=colours)] if len(null) else []),
        _panels(spread, "rank_coverage", "P(every rank set holds its true rank)",
                f"Rank sets, accuracies spread over {s:g} (mean over rho)", folder / "leaderboard_rank_coverage.png",
                1 - delta, colours=colours),
        _panels(spread, "rank_size", "mean rank-set size (ranks)",
                f"Rank-set size, accuracies spread over {s:g} (mean over rho)", folder / "leaderboard_rank_size.png", colours=colours),
        _panels(spread, "power", "share of true differences claimed",
                f"Power, accuracies spread over {s:g} (mean over rho)", folder / "leaderboard_power.png",
                colours=colours),
    ]


def leaderboard_figure(models, path, delta: float) -> Path:
    """A leaderboard (covstudy-evaluate --model ...): each model's accuracy and interval, best on top, its rank set
    beside it."""
    m = models.reset_index(drop=True)
    fig = Figure(figsize=(6.0, 0.9 + 0.32 * len(m)))
    ax = fig.subplots()
    y = np.arange(len(m))[::-1]
    ax.errorbar(m.accuracy, y, xerr=[m.accuracy - m.lower, m.upper - m.accuracy], fmt="o", ms=4, color="#0072B2",
                capsize=2, lw=1)
    labels = [f"{name}  (rank {lo}" + ("" if lo == hi else f"–{hi}") + ")"
              for name, lo, hi in zip(m.model, m.rank_low, m.rank_high)]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel(f"accuracy, {1 - delta:.0%} interval per model; rank sets simultaneous (max-t)")
    fig.tight_layout()
    return save_figure(fig, path, dpi=DPI)
