"""Figures of AUC studies (the binormal design): coverage against the true AUC and against the
test-set size, expected width against the size, and the coverage–width trade-off. Methods
are overlaid (Monte Carlo ±2·MCSE bands), one panel per size or per AUC, one figure per score
scale (levels: continuous or ordinal) and sd_ratio."""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, NullFormatter

from .kind import Plot, describe, file_stem, pick, register_plot
from .style import (
    LABELS,
    LINESTYLES,
    _coverage_ylim,
    _fmt,
    _legend,
    _new_figure,
    _nominal,
)
from .tradeoff import tradeoff

AXES = ("n_pos", "n_neg", "auc", "sd_ratio", "levels")
X_LABELS = {"auc": "true AUC", "n_pos": "n_pos = n_neg (log scale)"}


def scale(levels) -> str:
    return "continuous" if int(levels) == 0 else f"{int(levels)} levels (ties)"


def scales(sub) -> list[dict]:
    """One selection per (levels, sd_ratio) of the combination."""
    pairs = sub[["levels", "sd_ratio"]].drop_duplicates().sort_values(["levels", "sd_ratio"])
    return [{"levels": int(lv), "sd_ratio": float(sd)} for lv, sd in pairs.itertuples(index=False)]


def at_scale(sub, sel):
    return sub[(sub["levels"] == sel["levels"]) & np.isclose(sub["sd_ratio"], sel["sd_ratio"])]


def balanced(sub):
    """The rows with n_pos = n_neg (the size axis of the coverage-vs-n figures)."""
    return sub[sub["n_pos"] == sub["n_neg"]]


def panels(sub, x, fixed, values, measure, combo, colors, order, title):
    """``measure`` against ``x``, methods overlaid (±2·MCSE bands), one panel per value of ``fixed``
    (a column, or the pair n_pos, n_neg)."""
    delta = combo["delta"]
    coverage = measure == "coverage"
    fig, axes, ncols, spare = _new_figure(len(values), panel=(3.0, 2.4), sharey=coverage)
    if not len(spare):  # the legend goes below the panels: make room for it
        width, height = fig.get_size_inches()
        fig.set_size_inches(width, height + 1.0)
    labels = [lab for lab in order if lab in set(sub["label"])]
    if coverage:
        ylo, yhi = _coverage_ylim((sub["coverage"] - 2 * sub["mcse"]).to_numpy(), delta)
    for ax, value in zip(axes, values):
        if fixed == "size":
            d_fixed, name = sub[(sub["n_pos"] == value[0]) & (sub["n_neg"] == value[1])], \
                f"n_pos = {value[0]}, n_neg = {value[1]}"
        else:
            d_fixed, name = sub[np.isclose(sub[fixed], value)], f"AUC = {_fmt(value)}"
        if coverage:
            _nominal(ax, delta)
        for i, label in enumerate(labels):
            d = d_fixed[d_fixed["label"] == label].sort_values(x)
            xs, ys = d[x].to_numpy(float), d[measure].to_numpy(float)
            se = (d["mcse"] if coverage else d["sd_width"] / np.sqrt(d["reps"])).to_numpy(float)
            ax.fill_between(xs, ys - 2 * se, np.minimum(ys + 2 * se, 1), color=colors[label], alpha=0.18, lw=0)
            if coverage:  # points below the axis: a triangle on its bottom edge (the values are in the report)
                low, edge = ys < ylo, ylo + 0.015 * (yhi - ylo)
                ax.plot(xs[low], np.full(low.sum(), edge), "v", color=colors[label], ms=5, zorder=4)
                ys = np.where(low, edge, ys)
            ax.plot(xs, ys, color=colors[label], lw=1.1, ls=LINESTYLES[i % len(LINESTYLES)], marker="o", ms=2.5,
                    label=label)
        if x == "n_pos":
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _fmt(v)))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xticks(sorted(d_fixed["n_pos"].unique()))
        if coverage:
            ax.set_ylim(ylo, yhi)
        else:
            ax.set_ylim(bottom=0)
        ax.set_title(name, fontweight="bold")
        ax.grid(True, lw=0.3, color="0.85")
    for i, ax in enumerate(axes):
        if i % ncols == 0:
            ax.set_ylabel(LABELS["coverage"] if coverage else "expected interval width (AUC units)")
        if i + ncols >= len(axes):
            ax.set_xlabel(X_LABELS[x])
            ax.xaxis.set_tick_params(labelbottom=True)
    handles = axes[0].get_legend_handles_labels()[0]
    if coverage:
        handles += [Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)), label=f"nominal 1 − δ = {_fmt(1 - delta)}")]
        if (sub["coverage"] < ylo).any():
            handles += [Line2D([], [], color="0.3", marker="v", ls="", label=f"below {ylo:.2f} (drawn at the axis)")]
    handles += [Patch(color="0.3", alpha=0.18, lw=0, label="± 2·MCSE")]
    _legend(fig, handles, spare, title="method")  # in a spare panel, else below the panels
    fig.suptitle(title)
    return fig


class _AUCPlot(Plot):
    axes = AXES

    def selections(self, sub, combo):
        return [sel for sel in scales(sub) if self.values(at_scale(sub, sel))]

    def values(self, sub) -> list:
        raise NotImplementedError

    def stem(self, combo, sel):
        return file_stem(self.name, combo, **sel)

    def where(self, combo, sel) -> str:
        return describe(combo, scores=scale(sel["levels"]), sd_ratio=sel["sd_ratio"])


@register_plot
class AUCCoverageVsAUC(_AUCPlot):
    """Coverage against the true AUC, one panel per test-set size (up to six), methods overlaid."""

    name, position = "auc_coverage_vs_auc", 10

    def values(self, sub):
        per_size = sub.groupby(["n_pos", "n_neg"])["auc"].nunique()
        sizes = [s for s, k in per_size.items() if k >= 2]
        return [sizes[i] for i in sorted({round(j) for j in np.linspace(0, len(sizes) - 1, min(6, len(sizes)))})] \
            if sizes else []

    def draw(self, sub, combo, sel, colors, order):
        d = at_scale(sub, sel)
        return panels(d, "auc", "size", self.values(d), "coverage", combo, colors, order,
                      title=f"AUC: coverage vs true AUC\n{self.where(combo, sel)}")

    def caption(self, sub, combo, sel):
        return f"AUC coverage vs the true AUC, one panel per test-set size, {self.where(combo, sel)}."


@register_plot
class AUCCoverageVsN(_AUCPlot):
    """Coverage against n_pos = n_neg (log scale), one panel per true AUC (up to six)."""

    name, position = "auc_coverage_vs_n", 20

    def values(self, sub):
        d = balanced(sub)
        per_auc = d.groupby("auc")["n_pos"].nunique()
        return pick(per_auc[per_auc >= 2].index, k=6)

    def draw(self, sub, combo, sel, colors, order):
        d = balanced(at_scale(sub, sel))
        return panels(d, "n_pos", "auc", self.values(d), "coverage", combo, colors, order,
                      title=f"AUC: coverage vs test-set size\n{self.where(combo, sel)}")

    def caption(self, sub, combo, sel):
        return f"AUC coverage vs n_pos = n_neg, one panel per true AUC, {self.where(combo, sel)}."


@register_plot
class AUCWidthVsN(_AUCPlot):
    """Expected width against n_pos = n_neg (log scale), one panel per true AUC (up to six)."""

    name, position = "auc_width_vs_n", 40

    values = AUCCoverageVsN.values

    def draw(self, sub, combo, sel, colors, order):
        d = balanced(at_scale(sub, sel))
        return panels(d, "n_pos", "auc", self.values(d), "mean_width", combo, colors, order,
                      title=f"AUC: expected width vs test-set size\n{self.where(combo, sel)}")

    def caption(self, sub, combo, sel):
        return f"Expected width of the AUC intervals vs n_pos = n_neg, one panel per true AUC, {self.where(combo, sel)}."


@register_plot
class AUCTradeoff(_AUCPlot):
    """Mean and minimum coverage against mean width over all cells of one score scale."""

    name, position = "auc_tradeoff", 60

    def values(self, sub):
        return [True] if sub["label"].nunique() >= 2 and len(sub) > sub["label"].nunique() else []

    def draw(self, sub, combo, sel, colors, order):
        return tradeoff(at_scale(sub, sel), combo, colors, order, unit="AUC",
                        title=f"AUC: coverage and width over all cells\n{self.where(combo, sel)}")

    def caption(self, sub, combo, sel):
        cells = len(at_scale(sub, sel)) // sub["label"].nunique()
        return (f"AUC: mean coverage (dot) and minimum coverage (bar end) against mean width over all "
                f"{cells} cells per method, {self.where(combo, sel)}.")
