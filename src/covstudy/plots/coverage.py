"""Coverage against one grid axis, one panel per method: vs p at fixed n, vs n at fixed p, and
(confusion-matrix designs) vs prevalence at a fixed n and operating point (tpr, tnr).

Exact results are drawn as the jagged curves they are; Monte Carlo ones with a ±2·MCSE band;
the nominal 1 - delta line is dashed.
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .kind import (
    Plot,
    describe,
    estimand,
    file_stem,
    fixed_n,
    fixed_p,
    has_exact,
    pick,
    register_plot,
)
from .style import (
    LABELS,
    _coverage_ylim,
    _fmt,
    _label_outer,
    _legend,
    _new_figure,
    _nominal,
    _note_off_scale,
    _panel_labels,
)


def coverage_panels(sub, x, combo, colors, order, title, style="auto"):
    """One panel per method of coverage against column ``x`` (``sub`` has one row per x and method).

    style "auto": exact rows as thin jagged lines, mc rows as a line with a ±2·MCSE band;
    style "vs_exact": exact coverage as a thin grey line, MC as points with ±2·MCSE bars.
    """
    delta = combo["delta"]
    labels, note = _panel_labels(sub, order)
    fig, axes, ncols, spare = _new_figure(len(labels))
    mc = combo["engine"] != "exact"
    band = 2 * sub["mcse"].to_numpy()
    shown = [sub["coverage"].to_numpy() - (band if mc else 0)]
    if style == "vs_exact":
        shown.append(sub["exact_coverage"].to_numpy())
    ylo, yhi = _coverage_ylim(np.concatenate(shown), delta)
    for ax, label in zip(axes, labels):
        d = sub[sub["label"] == label].sort_values(x)
        xs, cov, se = d[x].to_numpy(float), d["coverage"].to_numpy(float), d["mcse"].to_numpy(float)
        color = colors[label]
        marker = "o" if len(xs) <= 25 else None
        _nominal(ax, delta)
        if style == "vs_exact":
            ax.plot(xs, d["exact_coverage"], color="0.35", lw=0.8, zorder=2)
            ax.errorbar(xs, cov, yerr=2 * se, fmt="o", ms=2.2, color=color, ecolor=color, elinewidth=0.7,
                        capsize=0, zorder=3)
        elif mc:
            ax.fill_between(xs, cov - 2 * se, np.minimum(cov + 2 * se, 1), color=color, alpha=0.25, lw=0,
                            zorder=2)
            ax.plot(xs, cov, color=color, lw=1.0, marker=marker, ms=2.5, zorder=3)
        else:
            ax.plot(xs, cov, color=color, lw=0.8, marker=marker, ms=2.5, zorder=3)
        ax.set_title(label, color="black", fontweight="bold")
        ax.set_ylim(ylo, yhi)
        ax.grid(True, lw=0.3, color="0.85")
        _note_off_scale(ax, xs, cov, ylo, x)
    _label_outer(axes, ncols, LABELS.get(x, x), LABELS["coverage"])
    if x in ("p", "prevalence", "tpr", "tnr"):
        lo, hi = sub[x].min(), sub[x].max()
        pad = 0.02 * (hi - lo) if hi > lo else 0.05
        axes[0].set_xlim(lo - pad, hi + pad)
    handles = [Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)), label=f"nominal 1 − δ = {_fmt(1 - delta)}")]
    if style == "vs_exact":
        handles += [Line2D([], [], color="0.35", lw=0.8, label="exact coverage"),
                    Line2D([], [], color="0.2", marker="o", ms=3, ls="-", lw=0.7,
                           label="Monte Carlo estimate ± 2·MCSE")]
    elif mc:
        handles += [Line2D([], [], color="0.3", lw=1.0, label="Monte Carlo estimate"),
                    Patch(color="0.3", alpha=0.25, lw=0, label="± 2·MCSE")]
    else:
        handles += [Line2D([], [], color="0.3", lw=0.8, label="exact coverage (as computed, not smoothed)")]
    _legend(fig, handles, spare)
    fig.suptitle(title + note)
    return fig


@register_plot
class CoverageVsP(Plot):
    """Coverage against p at up to three fixed n, one panel per method."""

    name, axes, position = "coverage_vs_p", ("n", "p"), 10

    def selections(self, sub, combo):
        return [] if has_exact(sub, combo) else [{"n": n} for n in fixed_n(sub)]  # then mc_vs_exact instead

    def draw(self, sub, combo, sel, colors, order):
        return coverage_panels(sub[sub["n"] == sel["n"]], "p", combo, colors, order,
                               title=f"Coverage vs p\n{describe(combo, **sel)}")

    def caption(self, sub, combo, sel):
        return f"Coverage vs true proportion p at n = {sel['n']}, {describe(combo)}."


@register_plot
class CoverageVsN(Plot):
    """Coverage against n at up to three fixed p (the oscillation of Brown, Cai & DasGupta 2001, Fig. 1)."""

    name, axes, position = "coverage_vs_n", ("n", "p"), 20

    def selections(self, sub, combo):
        return [{"p": p} for p in fixed_p(sub)]

    def draw(self, sub, combo, sel, colors, order):
        return coverage_panels(sub[np.isclose(sub["p"], sel["p"])], "n", combo, colors, order,
                               title=f"Coverage vs n\n{describe(combo, **sel)}")

    def caption(self, sub, combo, sel):
        return f"Coverage vs sample size n at p = {_fmt(sel['p'])}, {describe(combo)}."


@register_plot
class CoverageVsPrevalence(Plot):
    """Coverage of a confusion-matrix metric against prevalence at fixed n, tpr and tnr."""

    name, axes, position = "coverage_vs_prevalence", ("n", "prevalence", "tpr", "tnr"), 10

    def selections(self, sub, combo):
        """Per n (up to three), every operating point (tpr, tnr) with two or more prevalences: a
        figure each, so no operating point of the study goes undrawn."""
        out = []
        for n in pick(sub["n"].unique()):
            counts = sub[sub["n"] == n].groupby(["tpr", "tnr"])["prevalence"].nunique()
            out += [{"n": n, "tpr": tpr, "tnr": tnr} for tpr, tnr in counts[counts >= 2].index]
        return out

    def draw(self, sub, combo, sel, colors, order):
        d = sub[(sub["n"] == sel["n"]) & np.isclose(sub["tpr"], sel["tpr"]) & np.isclose(sub["tnr"], sel["tnr"])]
        what = estimand(combo)[0]
        return coverage_panels(d, "prevalence", combo, colors, order,
                               title=f"{what}: coverage vs prevalence\n{describe(combo, **sel)}")

    def stem(self, combo, sel):
        return file_stem(f"{estimand(combo)[1]}_{self.name}", combo, **sel)

    def caption(self, sub, combo, sel):
        return f"{estimand(combo)[0]} coverage vs prevalence at {describe(combo, **sel)}."
