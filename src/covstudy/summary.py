"""Per-method summary of a results table: how close to nominal, how wide.

For each (label, delta, side, engine): mean and minimum coverage over the grid, the
fraction of cells below nominal 1 - delta, mean |coverage - (1 - delta)| and mean width.
A Monte Carlo cell counts as below nominal only when coverage + 2·mcse < 1 - delta, so
simulation noise alone does not make a method look anti-conservative.
"""

from __future__ import annotations

import pandas as pd

KEYS = ["label", "delta", "side", "engine"]
COLUMNS = ["mean_coverage", "min_coverage", "frac_below", "mean_abs_error", "mean_width", "cells"]


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (label, delta, side, engine) with the columns in ``COLUMNS``.

    Monte Carlo rows that also carry exact values (engine=both) are summarised twice,
    once as "mc" and once as "exact", so the two can be compared line by line.
    """
    if "exact_coverage" in table and table["exact_coverage"].notna().any():
        exact = table[table["exact_coverage"].notna()].assign(
            engine="exact", coverage=lambda t: t["exact_coverage"], mean_width=lambda t: t["exact_mean_width"],
            mcse=0.0)
        table = pd.concat([table, exact], ignore_index=True)
    t = table.assign(nominal=1 - table["delta"], mcse=table["mcse"].fillna(0.0))
    t["below"] = t["coverage"] + 2 * t["mcse"] < t["nominal"] - 1e-12
    t["abs_error"] = (t["coverage"] - t["nominal"]).abs()
    keys = [k for k in KEYS if k in t.columns]
    out = t.groupby(keys, sort=False).agg(
        mean_coverage=("coverage", "mean"), min_coverage=("coverage", "min"),
        frac_below=("below", "mean"), mean_abs_error=("abs_error", "mean"),
        mean_width=("mean_width", "mean"), cells=("coverage", "size"))
    return out.reset_index()


def format_summary(summary: pd.DataFrame) -> str:
    """A fixed-width text table for the terminal."""
    shown = summary.copy()
    for col in ("mean_coverage", "min_coverage", "mean_abs_error", "mean_width"):
        shown[col] = shown[col].map(lambda v: f"{v:.4f}")
    shown["frac_below"] = shown["frac_below"].map(lambda v: f"{100 * v:.1f}%")
    return shown.to_string(index=False)
