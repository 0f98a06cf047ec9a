"""Coverage over two grid axes per method, diverging colours centred on 1 - delta (red: below
nominal): over (p, n), and (confusion-matrix designs) over (tpr, tnr) at a fixed n and prevalence."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import TwoSlopeNorm

from .kind import Plot, describe, estimand, file_stem, register_plot
from .style import LABELS, _fmt, _label_outer, _new_figure, _panel_labels


def heatmap_panels(sub, x, y, combo, colors, order, title):
    """Coverage over (x, y) per method, diverging colours centred on 1 - delta (red: below nominal)."""
    delta = combo["delta"]
    labels, note = _panel_labels(sub, order)
    square = x in ("tpr", "tnr")
    fig, axes, ncols, _ = _new_figure(len(labels), panel=(2.8, 2.6 if square else 2.2), extra_h=0.5)
    cov = sub["coverage"].to_numpy(float)
    vmin = max(np.nanmin(cov), 1 - 4 * delta)
    vmin = min(vmin, 1 - 1.5 * delta)
    norm = TwoSlopeNorm(vcenter=1 - delta, vmin=vmin, vmax=1.0)
    ys_all, xs_all = np.sort(sub[y].unique()), np.sort(sub[x].unique())
    # n, and any unevenly spaced axis, is drawn as one row (column) per computed value, evenly
    # spaced and labelled, so that no band suggests a value in between was computed.
    rows, cols = (np.arange(len(v)) if _discrete(name, v) else v.astype(float)
                  for name, v in ((y, ys_all), (x, xs_all)))
    mesh = None
    for ax, label in zip(axes, labels):
        grid = sub[sub["label"] == label].pivot_table(index=y, columns=x, values="coverage", aggfunc="mean")
        grid = grid.reindex(index=ys_all, columns=xs_all)
        mesh = ax.pcolormesh(cols, rows, np.ma.masked_invalid(grid.to_numpy(float)),
                             cmap="RdBu", norm=norm, shading="nearest", rasterized=True)
        for axis, name, values in ((ax.yaxis, y, ys_all), (ax.xaxis, x, xs_all)):
            if _discrete(name, values):
                ticks = np.unique(np.round(np.linspace(0, len(values) - 1, min(len(values), 8))).astype(int))
                axis.set_ticks(ticks, [_fmt(values[i]) for i in ticks])
                axis.set_tick_params(length=0)
        if square:
            ax.set_aspect("equal")
        ax.set_title(label, fontweight="bold")
    _label_outer(axes, ncols, LABELS.get(x, x), LABELS.get(y, y))
    extend = "min" if np.nanmin(cov) < vmin else "neither"
    cb = fig.colorbar(mesh, ax=list(axes), shrink=0.9, extend=extend, pad=0.02)
    cb.set_label(f"coverage (centre: 1 − δ = {_fmt(1 - delta)})")  # short: it must fit one panel's height
    fig.suptitle(title + note)
    return fig


def _discrete(name: str, values) -> bool:
    """Draw an axis as labelled rows/columns: always n (test-set sizes), and any unevenly spaced axis."""
    steps = np.diff(values.astype(float))
    return name == "n" or (len(steps) > 0 and not np.allclose(steps, steps[0], rtol=1e-6))


def _filled(sub, x, y) -> float:
    """Fraction of the (x, y) grid that has a cell, per method on average."""
    size = sub[x].nunique() * sub[y].nunique() * sub["label"].nunique()
    return len(sub[["label", x, y]].drop_duplicates()) / size


@register_plot
class Heatmap(Plot):
    """Coverage over the (p, n) grid, one panel per method."""

    name, axes, position = "heatmap", ("n", "p"), 50

    def selections(self, sub, combo):
        """One heatmap when (p, n) is a grid at least half filled (a sparse cross is better drawn as curves)."""
        grid = sub["n"].nunique() >= 2 and sub["p"].nunique() >= 2 and _filled(sub, "p", "n") >= 0.5
        return [{}] if grid else []

    def draw(self, sub, combo, sel, colors, order):
        return heatmap_panels(sub, "p", "n", combo, colors, order, title=f"Coverage over (p, n)\n{describe(combo)}")

    def caption(self, sub, combo, sel):
        return f"Coverage over the (p, n) grid per method, {describe(combo)}; red is below nominal, blue above."


@register_plot
class RateHeatmap(Plot):
    """Coverage of a confusion-matrix metric over (tpr, tnr) at a fixed n and prevalence."""

    name, axes, position = "rate_heatmap", ("n", "prevalence", "tpr", "tnr"), 50

    def selections(self, sub, combo):
        """The (n, prevalence) with the most operating points, if they span a (tpr, tnr) grid."""
        counts = sub.groupby(["n", "prevalence"]).apply(lambda g: g[["tpr", "tnr"]].drop_duplicates().shape[0],
                                                        include_groups=False)
        for (n, prev), count in counts.sort_values(ascending=False, kind="stable").head(1).items():
            d = self._rows(sub, {"n": n, "prevalence": prev})
            if count >= 4 and d["tpr"].nunique() >= 2 and d["tnr"].nunique() >= 2:
                return [{"n": n, "prevalence": prev}]
        return []

    @staticmethod
    def _rows(sub, sel):
        return sub[(sub["n"] == sel["n"]) & np.isclose(sub["prevalence"], sel["prevalence"])]

    def stem(self, combo, sel):
        return file_stem(f"{estimand(combo)[1]}_heatmap", combo, **sel)

    def draw(self, sub, combo, sel, colors, order):
        title = f"{estimand(combo)[0]}: coverage over (tpr, tnr)\n{describe(combo, **sel)}"
        return heatmap_panels(self._rows(sub, sel), "tpr", "tnr", combo, colors, order, title=title)

    def caption(self, sub, combo, sel):
        return f"{estimand(combo)[0]} coverage over (tpr, tnr) at {describe(combo, **sel)}; red is below nominal."
