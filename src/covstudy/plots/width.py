"""Expected interval width against p (at a few fixed n) and against n (at a few fixed p),
methods overlaid, one panel per fixed value."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .kind import Plot, describe, file_stem, fixed_n, fixed_p, register_plot
from .style import LABELS, LINESTYLES, _fmt, _legend, _new_figure


def width_panels(sub, x, fixed, values, combo, colors, order, title):
    """Expected width against ``x``, methods overlaid, one panel per value of column ``fixed``.

    Width against n is drawn on log-log axes, where width ∝ 1/√n is a straight line and the
    ratio between two methods is a constant vertical gap.
    """
    panel = (3.3, 2.6) if len(values) > 1 else (5.0, 3.4)
    fig, axes, ncols, spare = _new_figure(len(values), panel=panel, sharey=False)
    labels = [lab for lab in order if lab in set(sub["label"])]
    log = x == "n" and sub["n"].max() >= 4 * sub["n"].min()
    for ax, value in zip(axes, values):
        d_fixed = sub[np.isclose(sub[fixed], value)]
        for i, label in enumerate(labels):
            d = d_fixed[d_fixed["label"] == label].sort_values(x)
            xs, ys = d[x].to_numpy(float), d["mean_width"].to_numpy(float)
            ax.plot(xs, ys, color=colors[label], lw=1.1, ls=LINESTYLES[i % len(LINESTYLES)], label=label,
                    marker="o" if len(xs) <= 25 else None, ms=2.5)
            if combo["engine"] != "exact" and d["reps"].notna().all() and d["sd_width"].notna().all():
                se = d["sd_width"].to_numpy(float) / np.sqrt(d["reps"].to_numpy(float))  # MCSE of the mean
                ax.fill_between(xs, ys - 2 * se, ys + 2 * se, color=colors[label], alpha=0.25, lw=0)
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
            for axis, subs in ((ax.xaxis, (1, 2, 5)), (ax.yaxis, (1, 1.5, 2, 3, 5, 7))):
                axis.set_major_locator(LogLocator(subs=subs))
                axis.set_major_formatter(FuncFormatter(lambda v, _: _fmt(v)))
                axis.set_minor_formatter(NullFormatter())
        else:
            ax.set_ylim(bottom=0)
        ax.set_title(f"{fixed} = {_fmt(value)}", fontweight="bold")
        ax.grid(True, which="major", lw=0.3, color="0.85")
    for i, ax in enumerate(axes):
        if i % ncols == 0:
            ax.set_ylabel(LABELS["mean_width"])
        ax.set_xlabel(LABELS.get(x, x) + (" (log scale)" if log else ""))
        ax.xaxis.set_tick_params(labelbottom=True)
    handles = axes[0].get_legend_handles_labels()[0]
    if len(spare):
        _legend(fig, handles, spare, title="method")
    else:  # beside the last panel, level with it, clear of the title
        axes[-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0,
                        frameon=False, title="method")
    fig.suptitle(title)
    return fig


class _WidthVs(Plot):
    """Width against ``x`` with one panel per fixed value of ``fixed`` (the n or p the coverage kinds use)."""
    x: str
    fixed: str

    def selections(self, sub, combo):
        values = fixed_n(sub) if self.fixed == "n" else fixed_p(sub)
        return [{self.fixed: values}] if values else []

    def stem(self, combo, sel):
        return file_stem(self.name, combo)  # one figure per combination: no fixed values in the name

    def draw(self, sub, combo, sel, colors, order):
        return width_panels(sub, self.x, self.fixed, sel[self.fixed], combo, colors, order,
                            title=f"Expected width vs {self.x}\n{describe(combo)}")

    def caption(self, sub, combo, sel):
        at = ", ".join(map(_fmt, sel[self.fixed]))
        return f"Expected interval width vs {self.x} at {self.fixed} = {at}, {describe(combo)}."


@register_plot
class WidthVsP(_WidthVs):
    """Expected width against p, one panel per fixed n."""

    name, axes, position, x, fixed = "width_vs_p", ("n", "p"), 30, "p", "n"


@register_plot
class WidthVsN(_WidthVs):
    """Expected width against n (log-log), one panel per fixed p."""

    name, axes, position, x, fixed = "width_vs_n", ("n", "p"), 40, "n", "p"
