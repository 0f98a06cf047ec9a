"""Clustered test sets: coverage against the intra-cluster correlation, one panel per method and one
line per cluster size, at a fixed number of clusters and p. The icc values are evenly spaced on
the x axis (the small ones matter most); Monte Carlo estimates carry a ±2·MCSE band; the nominal
1 - delta line is dashed."""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .kind import Plot, describe, pick, register_plot
from .style import (
    LABELS,
    LINESTYLES,
    _coverage_ylim,
    _fmt,
    _label_outer,
    _legend,
    _new_figure,
    _nominal,
    _panel_labels,
)

MARKERS = ("o", "s", "^", "D")


@register_plot
class CoverageVsIcc(Plot):
    """Coverage against icc at fixed clusters and p, one panel per method, a line per cluster size."""

    name, axes, position = "coverage_vs_icc", ("clusters", "cluster_size", "p", "icc"), 10

    def selections(self, sub, combo):
        return [{"clusters": m, "p": p} for m in pick(sub["clusters"].unique()) for p in pick(sub["p"].unique())
                if sub[(sub["clusters"] == m) & np.isclose(sub["p"], p)]["icc"].nunique() >= 2]

    def draw(self, sub, combo, sel, colors, order):
        d = sub[(sub["clusters"] == sel["clusters"]) & np.isclose(sub["p"], sel["p"])]
        delta, mc = combo["delta"], combo["engine"] != "exact"
        labels, note = _panel_labels(d, order)
        fig, axes, ncols, spare = _new_figure(len(labels))
        band = 2 * d["mcse"].to_numpy() if mc else 0
        ylo, yhi = _coverage_ylim(d["coverage"].to_numpy() - band, delta)
        sizes = sorted(d["cluster_size"].unique())
        iccs = np.sort(d["icc"].unique())  # evenly spaced: the small correlations matter most
        # the method's colour, lighter for smaller clusters (the largest in full colour)
        light = dict(zip(sizes, np.linspace(0.6, 0.0, len(sizes)) if len(sizes) > 1 else [0.0]))
        for ax, label in zip(axes, labels):
            _nominal(ax, delta)
            for i, s in enumerate(sizes):
                line = d[(d["label"] == label) & (d["cluster_size"] == s)].sort_values("icc")
                cov, se = line["coverage"].to_numpy(float), line["mcse"].to_numpy(float)
                xs = np.searchsorted(iccs, line["icc"].to_numpy(float))
                color = _lighten(colors[label], light[s])
                if mc:
                    ax.fill_between(xs, cov - 2 * se, np.minimum(cov + 2 * se, 1), color=color, alpha=0.18, lw=0)
                ax.plot(xs, cov, color=color, lw=1.0, ls=LINESTYLES[i % len(LINESTYLES)],
                        marker=MARKERS[i % len(MARKERS)], ms=2.8)
            ax.set_xticks(range(len(iccs)), [_fmt(v) for v in iccs])
            ax.set_title(label, color="black", fontweight="bold")
            ax.set_ylim(ylo, yhi)
            ax.grid(True, lw=0.3, color="0.85")
            low = d[d["label"] == label]
            if (low["coverage"] < ylo).any():
                worst = low.loc[low["coverage"].idxmin()]
                ax.text(0.5, 0.03, f"min {worst['coverage']:.3f} at s = {worst['cluster_size']:g}, "
                        f"icc = {_fmt(worst['icc'])} (below axis)", transform=ax.transAxes, ha="center",
                        va="bottom", fontsize=7, color="0.25",
                        bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8})
        _label_outer(axes, ncols, LABELS["icc"], LABELS["coverage"])
        handles = [Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)), label=f"nominal 1 − δ = {_fmt(1 - delta)}")]
        handles += [Line2D([], [], color=_lighten("#000000", light[s]), lw=1.0,
                           ls=LINESTYLES[i % len(LINESTYLES)], marker=MARKERS[i % len(MARKERS)], ms=2.8,
                           label=f"cluster size s = {s:g}") for i, s in enumerate(sizes)]
        if mc:
            handles.append(Patch(color="0.3", alpha=0.18, lw=0, label="± 2·MCSE"))
        _legend(fig, handles, spare)
        fig.suptitle(f"Coverage vs intra-cluster correlation{note}\n{describe(combo, **sel)}")
        return fig

    def caption(self, sub, combo, sel):
        return (f"Coverage vs intra-cluster correlation icc with {sel['clusters']} clusters of size s "
                f"(one line per s) at p = {_fmt(sel['p'])}, {describe(combo)}.")


def _lighten(color: str, amount: float) -> str:
    """``color`` moved towards white by ``amount`` (0: unchanged)."""
    from matplotlib.colors import to_hex, to_rgb

    return to_hex(tuple(c + (1 - c) * amount for c in to_rgb(color)))
