"""The judged design (a judge labels every example, humans n of them): coverage against the human
labels n (log scale), and each method's mean width as a share of the classical interval's in the
same cell, one panel per method and one line per judge (sensitivity, specificity), at fixed
examples N, p and sampling. Monte Carlo estimates carry a ±2·MCSE band; the nominal 1 - delta
line is dashed."""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .clustered import MARKERS, _lighten
from .kind import Plot, describe, pick, register_plot
from .style import LABELS, LINESTYLES, _coverage_ylim, _fmt, _label_outer, _legend, _new_figure, _nominal, _panel_labels

AXES = ("examples", "labelled", "p", "sensitivity", "specificity", "sampling")
CLASSICAL = ("judged.classical", "judged_classical", "classical")  # the reference of the width ratios, by any name


def _cell(d, sel):
    return d[(d["examples"] == sel["examples"]) & np.isclose(d["p"], sel["p"]) & (d["sampling"] == sel["sampling"])]


def _judges(d):
    """The (sensitivity, specificity) pairs present, best judge first, and their line styles."""
    pairs = sorted({(float(a), float(b)) for a, b in zip(d["sensitivity"], d["specificity"])}, key=lambda x: -sum(x))
    light = dict(zip(pairs, np.linspace(0.0, 0.6, len(pairs)) if len(pairs) > 1 else [0.0]))
    return pairs, light


def _handles(pairs, light, delta, mc, nominal=True):
    handles = [Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)),
                      label=f"nominal 1 − δ = {_fmt(1 - delta)}" if nominal else "as wide as classical")]
    handles += [Line2D([], [], color=_lighten("#000000", light[j]), lw=1.0, ls=LINESTYLES[i % len(LINESTYLES)],
                       marker=MARKERS[i % len(MARKERS)], ms=2.8, label=f"se = {_fmt(j[0])}, sp = {_fmt(j[1])}")
                for i, j in enumerate(pairs)]
    if mc:
        handles.append(Patch(color="0.3", alpha=0.18, lw=0, label="± 2·MCSE"))
    return handles


class _Judged(Plot):
    axes = AXES

    def selections(self, sub, combo):
        return [{"examples": N, "p": p, "sampling": s} for s in sorted(sub["sampling"].unique())
                for N in pick(sub["examples"].unique()) for p in pick(sub["p"].unique())
                if _cell(sub, {"examples": N, "p": p, "sampling": s})["labelled"].nunique() >= 2]


@register_plot
class JudgedCoverage(_Judged):
    """Coverage against the human labels n at fixed N, p and sampling, a panel per method, a line per judge."""

    name, position = "judged_coverage", 10

    def draw(self, sub, combo, sel, colors, order):
        d = _cell(sub, sel)
        delta, mc = combo["delta"], combo["engine"] != "exact"
        labels, note = _panel_labels(d, order)
        fig, axes, ncols, spare = _new_figure(len(labels))
        band = 2 * d["mcse"].to_numpy() if mc else 0
        ylo, yhi = _coverage_ylim(d["coverage"].to_numpy() - band, delta)
        ylo = max(0.0, min(ylo, float(np.min(d["coverage"].to_numpy() - band)) - 0.02))  # show where methods fall
        pairs, light = _judges(d)
        for ax, label in zip(axes, labels):
            _nominal(ax, delta)
            for i, j in enumerate(pairs):
                line = d[(d["label"] == label) & np.isclose(d["sensitivity"], j[0])
                         & np.isclose(d["specificity"], j[1])].sort_values("labelled")
                xs, cov = line["labelled"].to_numpy(float), line["coverage"].to_numpy(float)
                color = _lighten(colors[label], light[j])
                if mc:
                    se = line["mcse"].to_numpy(float)
                    ax.fill_between(xs, cov - 2 * se, np.minimum(cov + 2 * se, 1), color=color, alpha=0.18, lw=0)
                ax.plot(xs, cov, color=color, lw=1.0, ls=LINESTYLES[i % len(LINESTYLES)],
                        marker=MARKERS[i % len(MARKERS)], ms=2.8)
            ax.set_xscale("log")
            ax.set_title(label, color="black", fontweight="bold")
            ax.set_ylim(ylo, yhi)
            ax.grid(True, lw=0.3, color="0.85")
        _label_outer(axes, ncols, "human labels n", LABELS["coverage"])
        _legend(fig, _handles(pairs, light, delta, mc), spare)
        fig.suptitle(f"Coverage vs human labels{note}\n{describe(combo, **sel)}")
        return fig

    def caption(self, sub, combo, sel):
        return (f"Coverage vs the number of human labels n (log scale) of N = {sel['examples']:,} judged examples "
                f"({sel['sampling']} sampling), one line per judge (sensitivity, specificity), at p = {_fmt(sel['p'])}, "
                f"{describe(combo)}.")


@register_plot
class JudgedWidth(_Judged):
    """Mean width as a share of the classical interval's, against n, a panel per method, a line per judge."""

    name, position = "judged_width", 40

    def selections(self, sub, combo):
        if not set(CLASSICAL) & set(sub["method"]):
            return []
        return [s for s in super().selections(sub, combo) if s["sampling"] == "random"]

    def draw(self, sub, combo, sel, colors, order):
        d = _cell(sub, sel)
        keys = ["labelled", "sensitivity", "specificity"]
        base = d[d["method"].isin(CLASSICAL)].set_index(keys)["mean_width"]
        d = d[~d["method"].isin(CLASSICAL)].join(base.rename("classical_width"), on=keys)
        labels, note = _panel_labels(d, order)
        fig, axes, ncols, spare = _new_figure(len(labels))
        pairs, light = _judges(d)
        for ax, label in zip(axes, labels):
            ax.axhline(1.0, color="black", lw=0.9, ls=(0, (4, 2.5)), zorder=1)
            for i, j in enumerate(pairs):
                line = d[(d["label"] == label) & np.isclose(d["sensitivity"], j[0])
                         & np.isclose(d["specificity"], j[1])].sort_values("labelled")
                ratio = line["mean_width"].to_numpy(float) / line["classical_width"].to_numpy(float)
                ax.plot(line["labelled"].to_numpy(float), ratio, color=_lighten(colors[label], light[j]), lw=1.0,
                        ls=LINESTYLES[i % len(LINESTYLES)], marker=MARKERS[i % len(MARKERS)], ms=2.8)
            ax.set_xscale("log")
            ax.set_title(label, color="black", fontweight="bold")
            ax.set_ylim(0, 1.6)
            ax.grid(True, lw=0.3, color="0.85")
        _label_outer(axes, ncols, "human labels n", "mean width / classical's")
        _legend(fig, _handles(pairs, light, combo["delta"], False, nominal=False), spare)
        fig.suptitle(f"Width as a share of the classical interval's{note}\n{describe(combo, **sel)}")
        return fig

    def caption(self, sub, combo, sel):
        return (f"Mean width as a share of the classical (human labels only, Wald) interval's in the same cell, vs "
                f"the number of human labels n (log scale) of N = {sel['examples']:,} judged examples (random "
                f"sampling), one line per judge, at p = {_fmt(sel['p'])}, {describe(combo)}. Read it beside the "
                f"coverage figure: a narrow interval that misses is no gain.")
