"""Comparison designs (paired, unpaired): coverage and the rate of excluding 0 against the true
difference, one panel per method, one colour per test-set size.

Each point is one design point (the other axes, e.g. the correlation, vary among the points at
one true difference). At a true difference of 0 the exclusion rate is the rate of a false
"A is better/worse" (nominal delta); elsewhere it is the power to tell the classifiers apart.
"""

from __future__ import annotations

import re

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from .kind import Plot, describe, register_plot
from .style import (
    _coverage_ylim,
    _fmt,
    _label_outer,
    _legend,
    _new_figure,
    _nominal,
    _panel_labels,
)

_SIZE_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


def _sizes(sub):
    """Test-set size of every row as a label: "n = 50" (paired), "n1, n2 = 20, 40" (unpaired),
    "n_pos, n_neg = 30, 60" (paired binormal given by class sizes, not n) or "m = 100, K = 5" (paired eval: questions, answers per question)."""
    if "questions" in sub and sub["questions"].notna().all():
        return "m = " + sub["questions"].astype(int).astype(str) + ", K = " + sub["answers"].astype(int).astype(str)
    if "n1" in sub and sub["n1"].notna().all():
        return "n1, n2 = " + sub["n1"].astype(int).astype(str) + ", " + sub["n2"].astype(int).astype(str)
    if "n" not in sub or sub["n"].isna().any():  # paired binormal given by its class sizes
        return "n_pos, n_neg = " + sub["n_pos"].astype(int).astype(str) + ", " + sub["n_neg"].astype(int).astype(str)
    return "n = " + sub["n"].astype(int).astype(str)


def _note_below(ax, values):
    """Say how many points lie below the axis, and the lowest, rather than squash the panel."""
    below = values < ax.get_ylim()[0]
    if below.any():
        ax.text(0.5, 0.03, f"{below.sum()} below axis, min {values.min():.3f}", transform=ax.transAxes,
                ha="center", va="bottom", fontsize=7, color="0.25",
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8})


class _DifferencePlot(Plot):
    measure: str
    ylabel: str

    def selections(self, sub, combo):
        return [{}]

    def draw(self, sub, combo, sel, colors, order):
        delta = combo["delta"]
        labels, note = _panel_labels(sub, order)
        fig, axes, ncols, spare = _new_figure(len(labels))
        sizes = _sizes(sub)
        keys = sorted(set(sizes), key=lambda s: [int(v) for v in re.findall(r"\d+", s)])
        size_color = {k: _SIZE_COLORS[i % len(_SIZE_COLORS)] for i, k in enumerate(keys)}
        for ax, label in zip(axes, labels):
            rows = sub["label"] == label
            for key in keys:
                d = sub[rows & (sizes == key)]
                ax.scatter(d["truth"], d[self.measure], s=6, color=size_color[key], lw=0, alpha=0.8, zorder=3)
            self.reference(ax, delta)
            ax.set_title(label, fontweight="bold")
            ax.grid(True, lw=0.3, color="0.85")
        self.limits(axes, sub, delta)
        for ax in axes:  # four panels a row leave room for about five tick labels
            ax.xaxis.set_major_locator(MaxNLocator(5))
        for ax, label in zip(axes, labels):
            _note_below(ax, sub.loc[sub["label"] == label, self.measure].to_numpy(float))
        _label_outer(axes, ncols, "true difference", self.ylabel)
        handles = [Line2D([], [], color=c, marker="o", lw=0, ms=4, label=k) for k, c in size_color.items()]
        handles.append(self.reference_handle(delta))
        _legend(fig, handles, spare)
        fig.suptitle(f"{self.ylabel} against the true difference{note}\n{describe(combo)}", fontsize=9)
        return fig


@register_plot
class DifferenceCoverage(_DifferencePlot):
    """Coverage against the true difference (comparison designs)."""

    name, axes, position = "difference_coverage", ("truth", "excludes_zero"), 10
    measure, ylabel = "coverage", "coverage"

    def reference(self, ax, delta):
        _nominal(ax, delta)

    def reference_handle(self, delta):
        return Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)), label=f"nominal 1 − δ = {_fmt(1 - delta)}")

    def limits(self, axes, sub, delta):
        ylo, yhi = _coverage_ylim(sub["coverage"].to_numpy(float), delta)
        axes[0].set_ylim(ylo, yhi)

    def caption(self, sub, combo, sel):
        return (f"Coverage against the true difference, one panel per method, one colour per test-set size "
                f"({describe(combo)}).")


@register_plot
class DifferenceExclusion(_DifferencePlot):
    """The rate of excluding 0 against the true difference (size at 0, power elsewhere)."""

    name, axes, position = "difference_excludes_zero", ("truth", "excludes_zero"), 20
    measure, ylabel = "excludes_zero", "P(interval excludes 0)"

    def reference(self, ax, delta):
        ax.axvline(0, color="0.6", lw=0.6, zorder=1)
        ax.axhline(delta, color="black", lw=0.9, ls=(0, (4, 2.5)), zorder=1)

    def reference_handle(self, delta):
        return Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)), label=f"δ = {_fmt(delta)} (size at 0)")

    def limits(self, axes, sub, delta):
        axes[0].set_ylim(-0.02, 1.02)
        axes[0].set_yticks(np.linspace(0, 1, 6))

    def caption(self, sub, combo, sel):
        return (f"Probability that the interval excludes 0 against the true difference: at 0 the rate of a false "
                f"'A is better/worse' (dashed: δ), elsewhere the power ({describe(combo)}).")
