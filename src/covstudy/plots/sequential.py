"""Figures of a sequential study (sequential/study.py): what peeking costs a fixed-n interval, and what a
confidence sequence costs in labels and width. Drawn from the study's results table only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .style import band_colours, save_figure

DPI = 110


def _axes(ncols: int, title: str, sharey: bool = True):
    fig = Figure(figsize=(3.3 * ncols, 3.1))
    axes = np.atleast_1d(fig.subplots(1, ncols, sharey=sharey, squeeze=False)[0])
    fig.suptitle(title, fontsize=10)
    return fig, axes


def _by_looks(table, rule: str, measure: str, ylabel: str, title: str, delta: float, path: Path):
    """One panel per method, a line per number of looks (the largest n_max of the table)."""
    sub = table[(table.rule == rule) & (table.n_max == table.n_max.max())]
    methods = list(dict.fromkeys(sub.method))
    looks = sorted(sub.looks.unique())
    colours = band_colours([str(x) for x in looks])
    fig, axes = _axes(len(methods), title.format(n_max=int(sub.n_max.max())))
    for ax, method in zip(axes, methods):
        for L in looks:
            d = sub[(sub.method == method) & (sub.looks == L)]
            ax.plot(d.p, d[measure], color=colours[str(L)], lw=1.0, label=f"{L} look{'s' if L > 1 else ''}")
        ax.axhline(1 - delta, color="k", lw=0.7, ls=":")
        ax.set_title(method, fontsize=9)
        ax.set_xlabel("true accuracy p")
    axes[0].set_ylabel(ylabel)
    axes[-1].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return save_figure(fig, path, dpi=DPI)


def sequential_figures(table, out: Path, delta: float) -> list[Path]:
    """The figures the table supports, in <out>: peeking (simultaneous coverage and coverage at a
    threshold stop against p, a line per number of looks) and cost (labels to reach a width, and
    the width at the last look, against p, a line per procedure)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    peek = table[table.part == "peek"]
    if len(peek) and (peek.rule == "never").any():
        paths.append(_by_looks(peek, "never", "simultaneous", "P(every look covers p)",
                               "Looking after every batch: simultaneous coverage (n_max = {n_max})", delta,
                               out / "peeking_simultaneous.png"))
    if len(peek) and (peek.rule == "threshold").any():
        value = peek[peek.rule == "threshold"].rule_value.iloc[0]
        paths.append(_by_looks(peek, "threshold", "coverage", "coverage at stopping",
                               f"Stopping once the interval excludes {value:g}: coverage at stopping " + "(n_max = {n_max})",
                               delta, out / "peeking_threshold.png"))
    cost = table[table.part == "cost"]
    if len(cost) and (cost.rule == "width").any():
        fig, axes = _axes(2, "What anytime validity costs", sharey=False)
        methods = list(dict.fromkeys(cost.method))
        colours = band_colours(methods)
        width = cost[cost.rule == "width"]
        for method in methods:
            d = width[width.method == method]
            axes[0].plot(d.p, d.expected_n, color=colours[method], lw=1.0, label=method)
            d = cost[(cost.rule == "never") & (cost.method == method)]
            if len(d):
                axes[1].plot(d.p, d.width, color=colours[method], lw=1.0, label=method)
        axes[0].set_title(f"expected labels until width <= {width.rule_value.iloc[0]:g} "
                          f"(at most {int(width.n_max.max())})", fontsize=9)
        axes[1].set_title(f"width at n = {int(cost.n_max.max())}", fontsize=9)
        for ax in axes:
            ax.set_xlabel("true accuracy p")
        axes[0].set_ylabel("expected labels")
        axes[1].set_ylabel("width")
        fig.set_size_inches(7.6, 3.8)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=7, frameon=False)
        fig.tight_layout(rect=(0, 0.13, 1, 1))
        paths.append(save_figure(fig, out / "cost.png", dpi=DPI))
    return paths
