"""Evals (the eval design): coverage against the number of questions (log scale), one panel per
method and one line per K (answers per question), at fixed groups, accuracy p and icc_group.
Monte Carlo estimates carry a ±2·MCSE band; the nominal 1 - delta line is dashed."""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .clustered import MARKERS, _lighten
from .kind import Plot, describe, pick, register_plot
from .style import LABELS, LINESTYLES, _coverage_ylim, _fmt, _label_outer, _legend, _new_figure, _nominal, _panel_labels


@register_plot
class CoverageVsQuestions(Plot):
    """Coverage against questions at fixed groups, p and icc_group, one panel per method, a line per K."""

    name, axes, position = "coverage_vs_questions", ("questions", "groups", "answers", "p", "icc_group"), 10

    def selections(self, sub, combo):
        return [{"groups": g, "p": p, "icc_group": r} for g in pick(sub["groups"].unique())
                for p in pick(sub["p"].unique(), targets=[0.5, 0.99], k=2) for r in pick(sub["icc_group"].unique())
                if sub[(sub["groups"] == g) & np.isclose(sub["p"], p)]["questions"].nunique() >= 2]

    def draw(self, sub, combo, sel, colors, order):
        d = sub[(sub["groups"] == sel["groups"]) & np.isclose(sub["p"], sel["p"])
                & np.isclose(sub["icc_group"], sel["icc_group"])]
        delta, mc = combo["delta"], combo["engine"] != "exact"
        labels, note = _panel_labels(d, order)
        fig, axes, ncols, spare = _new_figure(len(labels))
        band = 2 * d["mcse"].to_numpy() if mc else 0
        ylo, yhi = _coverage_ylim(d["coverage"].to_numpy() - band, delta)
        ylo = min(ylo, max(0.0, float(np.min(d["coverage"].to_numpy() - band)) - 0.02))  # show the naive bars' fall
        ks = sorted(d["answers"].unique())
        light = dict(zip(ks, np.linspace(0.6, 0.0, len(ks)) if len(ks) > 1 else [0.0]))
        for ax, label in zip(axes, labels):
            _nominal(ax, delta)
            for i, k in enumerate(ks):
                line = d[(d["label"] == label) & (d["answers"] == k)].sort_values("questions")
                xs, cov = line["questions"].to_numpy(float), line["coverage"].to_numpy(float)
                color = _lighten(colors[label], light[k])
                if mc:
                    se = line["mcse"].to_numpy(float)
                    ax.fill_between(xs, cov - 2 * se, np.minimum(cov + 2 * se, 1), color=color, alpha=0.18, lw=0)
                ax.plot(xs, cov, color=color, lw=1.0, ls=LINESTYLES[i % len(LINESTYLES)],
                        marker=MARKERS[i % len(MARKERS)], ms=2.8)
            ax.set_xscale("log")
            ax.set_title(label, color="black", fontweight="bold")
            ax.set_ylim(ylo, yhi)
            ax.grid(True, lw=0.3, color="0.85")
        _label_outer(axes, ncols, "questions m", LABELS["coverage"])
        handles = [Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)), label=f"nominal 1 − δ = {_fmt(1 - delta)}")]
        handles += [Line2D([], [], color=_lighten("#000000", light[k]), lw=1.0, ls=LINESTYLES[i % len(LINESTYLES)],
                           marker=MARKERS[i % len(MARKERS)], ms=2.8, label=f"K = {k:g} answers")
                    for i, k in enumerate(ks)]
        if mc:
            handles.append(Patch(color="0.3", alpha=0.18, lw=0, label="± 2·MCSE"))
        _legend(fig, handles, spare)
        fig.suptitle(f"Coverage vs questions{note}\n{describe(combo, **sel)}")
        return fig

    def caption(self, sub, combo, sel):
        return (f"Coverage vs the number of questions m (log scale) in {sel['groups']} groups, one line per K "
                f"answers per question, at accuracy p = {_fmt(sel['p'])} and icc_group = {_fmt(sel['icc_group'])}, "
                f"{describe(combo)}.")
