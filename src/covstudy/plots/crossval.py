"""Cross-validation (crossval design): coverage against n, one panel per method and one line per
Bayes error, at fixed d and folds (one figure per metric: Err_XY or Err); and the intervals'
mean width against n, one panel per Bayes error and a line per method. n is on a log scale;
Monte Carlo estimates carry a ±2·MCSE band; the nominal 1 - delta line is dashed."""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .clustered import MARKERS, _lighten
from .kind import Plot, describe, file_stem, register_plot
from .style import LINESTYLES, _coverage_ylim, _fmt, _label_outer, _legend, _new_figure, _nominal, _panel_labels

AXES = ("n", "d", "bayes_error", "folds")
TARGET = {"err_xy": "Err_XY (the error of the model fit on this data set)",
          "err": "Err (the mean error of models fit on data sets of size n)"}


LEARNERS = {"lda": "LDA", "logistic": "logistic regression"}  # as figures name them


def _learner(sub) -> str:
    """", learner: LDA" (or logistic regression) when the table names its learner."""
    if "learner" not in sub:
        return ""
    return ", learner: " + "/".join(LEARNERS.get(name, name) for name in sorted(sub["learner"].dropna().unique()))


def _at(sub, sel):
    return sub[(sub["d"] == sel["d"]) & (sub["folds"] == sel["folds"])]


def _log_n(ax, ns):
    ax.set_xscale("log")
    ax.set_xticks(ns, [f"{v:g}" for v in ns])
    ax.minorticks_off()


@register_plot
class CrossvalCoverageVsN(Plot):
    """Coverage against n at fixed d and folds, one panel per method, a line per Bayes error."""

    name, axes, position = "crossval_coverage_vs_n", AXES, 10

    def selections(self, sub, combo):
        return [{"d": d, "folds": k} for d in sorted(sub["d"].unique()) for k in sorted(sub["folds"].unique())
                if _at(sub, {"d": d, "folds": k})["n"].nunique() >= 2]

    def draw(self, sub, combo, sel, colors, order):
        d = _at(sub, sel)
        delta = combo["delta"]
        labels, note = _panel_labels(d, order)
        fig, axes, ncols, spare = _new_figure(len(labels))
        ylo, yhi = _coverage_ylim(d["coverage"].to_numpy() - 2 * d["mcse"].to_numpy(), delta)
        errors = sorted(d["bayes_error"].unique())
        light = dict(zip(errors, np.linspace(0.0, 0.6, len(errors)) if len(errors) > 1 else [0.0]))
        ns = sorted(d["n"].unique())
        for ax, label in zip(axes, labels):
            _nominal(ax, delta)
            for i, e in enumerate(errors):
                line = d[(d["label"] == label) & np.isclose(d["bayes_error"], e)].sort_values("n")
                xs, cov, se = (line[c].to_numpy(float) for c in ("n", "coverage", "mcse"))
                color = _lighten(colors[label], light[e])
                ax.fill_between(xs, cov - 2 * se, np.minimum(cov + 2 * se, 1), color=color, alpha=0.15, lw=0)
                ax.plot(xs, cov, color=color, lw=1.0, ls=LINESTYLES[i % len(LINESTYLES)],
                        marker=MARKERS[i % len(MARKERS)], ms=2.8)
            _log_n(ax, ns)
            ax.set_title(label, color="black", fontweight="bold")
            ax.set_ylim(ylo, yhi)
            ax.grid(True, lw=0.3, color="0.85")
            rows = d[d["label"] == label]
            if (rows["coverage"] < ylo).any():
                worst = rows.loc[rows["coverage"].idxmin()]
                ax.text(0.5, 0.03, f"min {worst['coverage']:.2f} at n = {worst['n']:g}, Bayes error "
                        f"{_fmt(worst['bayes_error'])} (below axis)", transform=ax.transAxes, ha="center",
                        va="bottom", fontsize=7, color="0.25",
                        bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8})
        _label_outer(axes, ncols, "data set size n (log scale)", f"coverage of {combo.get('metric', 'err_xy')}")
        handles = [Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)), label=f"nominal 1 − δ = {_fmt(1 - delta)}")]
        handles += [Line2D([], [], color=_lighten("#000000", light[e]), lw=1.0, ls=LINESTYLES[i % len(LINESTYLES)],
                           marker=MARKERS[i % len(MARKERS)], ms=2.8, label=f"Bayes error {_fmt(e)}")
                    for i, e in enumerate(errors)]
        handles.append(Patch(color="0.3", alpha=0.15, lw=0, label="± 2·MCSE"))
        _legend(fig, handles, spare)
        target = TARGET.get(combo.get("metric", "err_xy"), combo.get("metric", ""))
        fig.suptitle(f"Coverage of {target}{note}{_learner(sub)}\n{describe(combo, **sel)}")
        return fig

    def caption(self, sub, combo, sel):
        target = TARGET.get(combo.get("metric", "err_xy"), combo.get("metric", ""))
        return (f"Coverage of {target} against n, d = {sel['d']}, {sel['folds']} folds, one line per Bayes "
                f"error{_learner(sub)}, {describe(combo)}.")

    def stem(self, combo, sel):
        return file_stem(f"{combo.get('metric', 'err_xy')}_{self.name}", combo, **sel)


@register_plot
class CrossvalWidthVsN(Plot):
    """Mean interval width against n at fixed d and folds, one panel per Bayes error, a line per method
    (widths do not depend on the metric: drawn once, with Err_XY)."""

    name, axes, position = "crossval_width_vs_n", AXES, 20

    def selections(self, sub, combo):
        if combo.get("metric", "err_xy") != "err_xy":
            return []
        return CrossvalCoverageVsN.selections(self, sub, combo)

    def draw(self, sub, combo, sel, colors, order):
        d = _at(sub, sel)
        errors = sorted(d["bayes_error"].unique())
        # fewer than three panels keep the three-panel width: room for the title and the legend
        fig, axes, ncols, spare = _new_figure(len(errors), panel=(9.0 / min(3, len(errors)), 2.3), sharey=False)
        ns = sorted(d["n"].unique())
        labels = [label for label in order if label in set(d["label"])]
        for ax, e in zip(axes, errors):
            for label in labels:
                line = d[(d["label"] == label) & np.isclose(d["bayes_error"], e)].sort_values("n")
                ax.plot(line["n"], line["mean_width"], color=colors[label], lw=1.0, marker="o", ms=2.5)
            _log_n(ax, ns)
            ax.set_yscale("log")
            ax.set_title(f"Bayes error {_fmt(e)}", color="black", fontweight="bold")
            ax.grid(True, lw=0.3, color="0.85")
        _label_outer(axes, ncols, "data set size n (log scale)", "mean width (log scale)")
        handles = [Line2D([], [], color=colors[label], lw=1.0, marker="o", ms=2.5, label=label) for label in labels]
        _legend(fig, handles, spare)
        fig.suptitle(f"Mean interval width{_learner(sub)}\n{describe(combo, **sel)}")
        return fig

    def caption(self, sub, combo, sel):
        return (f"Mean width of each interval against n, d = {sel['d']}, {sel['folds']} folds, one panel per Bayes "
                f"error{_learner(sub)}, {describe(combo)}.")
