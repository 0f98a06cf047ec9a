"""Exact coverage curves over p, drawn from <folder>/exact_curve_points.csv (a study with
``exact_curve: true``): every jump at an interval end is drawn as the vertical step it is, and
the confidence coefficient (exact_curve.csv) is marked where it is reached.

Not a registered kind: these figures read the two exact-curve tables, not the results table.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.lines import Line2D

from ..study.summary import display_labels
from .kind import describe, file_stem
from .style import (
    LABELS,
    _coverage_ylim,
    _fmt,
    _label_outer,
    _legend,
    _new_figure,
    _nominal,
    _panel_labels,
)


def exact_curve_figures(folder: Path, out, colors: dict, order: list) -> None:
    """One figure per (n, delta, side) of the exact curves, a panel per method, saved through ``out``."""
    # the labels as the results table shows them (display names), so colours and order match
    points = display_labels(pd.read_csv(folder / "exact_curve_points.csv"))
    summary = display_labels(pd.read_csv(folder / "exact_curve.csv"))
    for (n, delta, side), sub in points.groupby(["n", "delta", "side"], sort=True):
        combo = {"delta": delta, "side": side, "engine": "exact"}
        inf = summary[(summary["n"] == n) & (summary["delta"] == delta) & (summary["side"] == side)]
        out.save(_draw(sub, inf, combo, n, colors, order), file_stem("exact_coverage_vs_p", combo, n=n),
                 f"Exact coverage vs p at n = {n}, evaluated on both sides of every interval end "
                 f"(no grid), with the confidence coefficient marked; {describe(combo)}.")


def _draw(sub, inf, combo, n, colors, order):
    delta = combo["delta"]
    labels, note = _panel_labels(sub, [lab for lab in order if lab in set(sub["label"])])
    fig, axes, ncols, spare = _new_figure(len(labels))
    ylo, yhi = _coverage_ylim(sub["coverage"].to_numpy(), delta)
    for ax, label in zip(axes, labels):
        d = sub[sub["label"] == label]  # already in curve order: each end twice, left limit first
        _nominal(ax, delta)
        ax.plot(d["p"], d["coverage"], color=colors.get(label, "0.3"), lw=0.7, zorder=3)
        row = inf[inf["label"] == label]
        if len(row):
            r = row.iloc[0]
            shown = max(r["confidence_coefficient"], ylo)
            ax.plot([r["at"]], [shown], marker="v" if shown > r["confidence_coefficient"] else "o", ms=4,
                    color="black", zorder=4)
            how = {"left": "as p ↑", "right": "as p ↓", "at": "at p ="}[r["approach"]]
            ax.text(0.5, 0.03, f"inf {r['confidence_coefficient']:.4f} {how} {_fmt(r['at'])}",
                    transform=ax.transAxes, ha="center", va="bottom", fontsize=7, color="0.25",
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8})
        ax.set_title(label, fontweight="bold")
        ax.set_ylim(ylo, yhi)
        ax.grid(True, lw=0.3, color="0.85")
    _label_outer(axes, ncols, LABELS["p"], LABELS["coverage"])
    handles = [Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)), label=f"nominal 1 − δ = {_fmt(1 - delta)}"),
               Line2D([], [], color="0.3", lw=0.7, label="exact coverage (every jump)"),
               Line2D([], [], color="black", marker="o", ls="", ms=4, label="confidence coefficient (▼: below axis)")]
    _legend(fig, handles, spare)
    fig.suptitle(f"Exact coverage vs p\n{describe(combo, n=n)}{note}")
    return fig
