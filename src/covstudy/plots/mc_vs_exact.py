"""Monte Carlo against exact, for mc rows that carry their cell's exact coverage: coverage vs p
with exact as a thin line and MC as points with ±2·MCSE bars, and a histogram of the
standardised differences against N(0, 1)."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from ..study.summary import standardised_difference
from .coverage import coverage_panels
from .kind import Plot, describe, fixed_n, has_exact, register_plot
from .style import DPI, OKABE_ITO


def standardised_differences(sub, combo, title):
    """Histogram of z = (MC - exact)/sqrt(exact(1 - exact)/reps) over all cells, against N(0, 1).

    The denominator is the true standard error of the MC estimate (from the exact coverage),
    not the estimated MCSE, which is 0 whenever an estimate is 0 or 1.
    """
    z_all = standardised_difference(sub)
    ok = np.isfinite(z_all)
    z = z_all[ok]
    fig = Figure(figsize=(6.8, 3.8), dpi=DPI, layout="constrained")
    ax = fig.subplots()
    lim = max(4.0, math.ceil(np.max(np.abs(z))) if z.size else 4.0)
    bins = np.arange(-lim, lim + 0.5, 0.5)  # wide enough to smooth the lattice of a discrete estimate
    ax.hist(z, bins=bins, density=True, color=OKABE_ITO["blue"], alpha=0.55, edgecolor="white", lw=0.3,
            label=f"standardised difference ({z.size} cells)")
    grid = np.linspace(-lim, lim, 400)
    ax.plot(grid, np.exp(-grid**2 / 2) / math.sqrt(2 * math.pi), color="black", lw=1.1, label="N(0, 1) density")
    ax.set_xlabel("(MC coverage − exact coverage) / SE   [SE = √(C(1 − C)/reps)]")
    ax.set_ylabel("density")
    ax.grid(True, lw=0.3, color="0.85")
    stats = None
    if z.size:
        sd = z.std(ddof=1) if z.size > 1 else float("nan")
        stats = f"mean {z.mean():+.3f}, sd {sd:.3f}\n|z| > 2: {np.mean(np.abs(z) > 2):.1%} (N(0, 1): 4.6%)"
        if (~ok).any():
            stats += f"\n{int((~ok).sum())} cells with exact coverage 0 or 1 left out"
    # the tails are low, so the upper left corner is free of bars
    ax.legend(loc="upper left", frameon=True, edgecolor="0.8", title=stats, alignment="left",
              title_fontsize=7.5)
    fig.suptitle(title)
    return fig


@register_plot
class McVsExact(Plot):
    """Monte Carlo coverage (±2·MCSE) against exact coverage vs p at fixed n; replaces coverage_vs_p."""

    name, axes, position = "mc_vs_exact", ("n", "p"), 10  # in place of coverage_vs_p

    def selections(self, sub, combo):
        return [{"n": n} for n in fixed_n(sub)] if has_exact(sub, combo) else []

    def draw(self, sub, combo, sel, colors, order):
        return coverage_panels(sub[sub["n"] == sel["n"]], "p", combo, colors, order, style="vs_exact",
                               title=f"Monte Carlo vs exact coverage\n{describe(combo, **sel)}")

    def caption(self, sub, combo, sel):
        return (f"Monte Carlo coverage (points, ±2·MCSE) against exact coverage (grey line) vs p at n = {sel['n']}, "
                f"{describe(combo)}.")


@register_plot
class StandardisedDifference(Plot):
    """Histogram of (MC − exact)/SE over all cells against N(0, 1)."""

    name, axes, position = "standardised_difference", ("n", "p"), 70

    def selections(self, sub, combo):
        return [{}] if has_exact(sub, combo) and sub["reps"].notna().all() else []

    def draw(self, sub, combo, sel, colors, order):
        return standardised_differences(sub, combo, f"Standardised MC − exact differences\n{describe(combo)}")

    def caption(self, sub, combo, sel):
        return f"Standardised differences of Monte Carlo from exact coverage against N(0, 1), {describe(combo)}."
