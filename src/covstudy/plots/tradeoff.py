"""The coverage–width trade-off: each method at (mean width, mean coverage) over all cells of a
combination, with a bar down to its minimum coverage."""

from __future__ import annotations

import textwrap

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from .kind import Plot, describe, estimand, file_stem, register_plot
from .style import DPI, LABELS, _coverage_ylim, _fmt


def tradeoff(sub, combo, colors, order, title, unit="p"):
    """Each method at (mean width, mean coverage) over the grid, with a bar down to its minimum coverage."""
    fig = Figure(figsize=(5.8, 3.8), dpi=DPI, layout="constrained")
    ax = fig.subplots()
    labels = [lab for lab in order if lab in set(sub["label"])]
    delta = combo["delta"]
    ax.axhline(1 - delta, color="black", lw=0.9, ls=(0, (4, 2.5)), zorder=1,
               label=f"nominal 1 − δ = {_fmt(1 - delta)}")
    means = sub.groupby("label").agg(w=("mean_width", "mean"), c=("coverage", "mean"), lo=("coverage", "min"))
    ylo = _coverage_ylim(means["lo"].to_numpy(), delta)[0]
    lowest_mean = means["c"].min()
    ylo = min(ylo, lowest_mean - 0.05 * (1 - lowest_mean))  # every mean stays on the axis
    # Minima below the axis are written there, each stacked above those to its left that are too
    # close to read side by side (a label takes ~20% of the axis).
    span = (means["w"].max() - means["w"].min()) or 1.0
    below = means.loc[[lab for lab in labels if means.loc[lab].lo < ylo], "w"].sort_values()
    level = {lab: int(sum(w - below.iloc[:i] < 0.2 * span)) for i, (lab, w) in enumerate(below.items())}
    for label in labels:
        m = means.loc[label]
        ax.plot([m.w, m.w], [max(m.lo, ylo), m.c], color=colors[label], lw=1.2, zorder=2)
        ax.plot(m.w, m.c, "o", color=colors[label], ms=6, zorder=3, label=label)
        ax.plot(m.w, max(m.lo, ylo), "v" if m.lo < ylo else "_", color=colors[label], ms=7, mew=1.5, zorder=3)
        if label in level:
            ax.annotate(f"min {m.lo:.3f}", (m.w, ylo), xytext=(4, 4 + 9 * level[label]), textcoords="offset points",
                        fontsize=7, color=colors[label])
    ax.set_ylim(ylo, 1 + 0.02 * (1 - ylo))
    ax.set_xlabel(f"mean expected interval width over the grid\n(units of {unit})")
    ax.set_ylabel(LABELS["coverage"])
    ax.grid(True, lw=0.3, color="0.85")
    handles, _ = ax.get_legend_handles_labels()
    handles += [Line2D([], [], color="0.3", marker="o", ls="", label="mean coverage"),
                Line2D([], [], color="0.3", marker="_", ms=7, mew=1.5, ls="", label="minimum coverage")]
    if (means["lo"] < ylo).any():
        handles.append(Line2D([], [], color="0.3", marker="v", ls="", label="minimum below the axis"))
    ax.xaxis.set_major_locator(MaxNLocator(6))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0, frameon=False)
    fig.suptitle("\n".join(textwrap.fill(line, 64) for line in title.split("\n")))  # the figure is narrow
    return fig


def _several_methods(sub) -> bool:
    """At least two methods, one of them over more than one cell: else there is nothing to trade off."""
    return sub["label"].nunique() >= 2 and len(sub) > sub["label"].nunique()


@register_plot
class Tradeoff(Plot):
    """Mean and minimum coverage against mean width over the (n, p) cells."""

    name, axes, position = "tradeoff", ("n", "p"), 60

    def selections(self, sub, combo):
        return [{}] if _several_methods(sub) else []

    def draw(self, sub, combo, sel, colors, order):
        return tradeoff(sub, combo, colors, order, title=f"Coverage and width over all cells\n{describe(combo)}")

    def caption(self, sub, combo, sel):
        return (f"Mean coverage (dot) and minimum coverage (bar end) against mean width over all "
                f"{sub[['n', 'p']].drop_duplicates().shape[0]} (n, p) cells, {describe(combo)}.")


@register_plot
class MetricTradeoff(Plot):
    """Mean and minimum coverage of a confusion-matrix metric against mean width over its cells."""

    name, axes, position = "metric_tradeoff", ("n", "prevalence", "tpr", "tnr"), 60

    def selections(self, sub, combo):
        return [{}] if _several_methods(sub) else []

    def stem(self, combo, sel):
        return file_stem(f"{estimand(combo)[1]}_tradeoff", combo)

    def draw(self, sub, combo, sel, colors, order):
        what = estimand(combo)[0]
        return tradeoff(sub, combo, colors, order, unit=what.lower(),
                        title=f"{what}: coverage and width over all cells\n{describe(combo)}")

    def caption(self, sub, combo, sel):
        return (f"{estimand(combo)[0]}: mean coverage (dot) and minimum coverage (bar end) against mean width "
                f"over all {len(sub) // sub['label'].nunique()} cells per method, {describe(combo)}.")
