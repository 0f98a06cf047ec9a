"""The planner's figure: expected width (and P(width <= w), the assurance) against the size the
planner solved for, from a ``PlanResult``'s table, with the target and the answer marked."""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .style import _RC, OKABE_ITO, save_figure


def plan_figure(result, path) -> Path:
    """Write the figure of ``result`` (plan()) to ``path`` (PNG or PDF by its suffix); return the path."""
    rows = result.table
    x = np.array([r[result.size_axis] for r in rows], dtype=float)
    width_col = "plugin_width" if "plugin_width" in rows[0] else "mean_width"
    panels = []  # (column, label, target line)
    if "width" in result.targets:
        label = "width at the expected counts" if width_col == "plugin_width" else "expected width"
        panels.append((width_col, label, result.targets["width"]))
    if "prob_width" in rows[0]:
        panels.append(("prob_width", f"P(width ≤ {result.targets['width']:g})", result.targets.get("assurance")))
    if "coverage" in result.targets:
        panels.append(("coverage", "coverage", result.targets["coverage"]))
    if "power" in result.targets:
        panels.append(("power", f"P(interval excludes {result.targets['null']:g})", result.targets["power"]))
    with mpl.rc_context(_RC):  # an explicit Figure: the caller's pyplot backend is left alone
        fig = Figure(figsize=(3.6 * len(panels), 3.0))
        axes = fig.subplots(1, len(panels), squeeze=False)
        for ax, (col, label, target) in zip(axes[0], panels):
            y = np.array([r[col] for r in rows], dtype=float)
            order = np.argsort(x)
            ax.plot(x[order], y[order], marker="o", ms=3, lw=1.1, color=OKABE_ITO["blue"])
            if result.reps is not None:
                se = (np.array([r["mcse_width"] for r in rows]) if col == "mean_width"
                      else np.sqrt(np.clip(y * (1 - y), 0, None) / result.reps))
                ax.fill_between(x[order], (y - 2 * se)[order], (y + 2 * se)[order], color=OKABE_ITO["blue"],
                                alpha=0.25, lw=0)
            if target is not None:
                ax.axhline(target, color="0.4", lw=0.8, ls="--")
            ax.axvline(result.n, color=OKABE_ITO["vermillion"], lw=0.9, ls=":")
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # plain numbers
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel(result.size_axis)
            ax.set_ylabel(label)
        how = {"exact": "exact", "mc": f"Monte Carlo, {result.reps:,} test sets a size" if result.reps else "",
               "plug-in": "plug-in"}[result.engine]
        fig.suptitle(f"{result.method} ({result.design}, {how}): {result.size_axis} = {result.n}", fontsize=9)
        fig.tight_layout()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        save_figure(fig, path, dpi=150)
    return path
