"""Figures of a coverage study, drawn from its tidy results table (<folder>/results.csv).

``plot_results(folder)`` splits the table into combinations of delta, side and engine (and
design and metric where the table is split by them, see ``summary.split_columns``) and draws,
for each, every registered figure kind whose grid axes the combination has (``PLOTS``; one
module per kind or family of kinds), as PNG (150 dpi) and PDF in <folder>/figures/:

- coverage vs p at fixed n, vs n at fixed p, vs prevalence at a fixed operating point (coverage.py);
- expected width vs p and vs n (width.py);
- coverage heatmaps over (p, n) and over (tpr, tnr) (heatmap.py);
- the coverage–width trade-off (tradeoff.py);
- coverage vs intra-cluster correlation, a line per cluster size (clustered.py);
- Monte Carlo against exact, and the standardised differences against N(0, 1) (mc_vs_exact.py);
- AUC (binormal design): coverage vs the true AUC and vs n_pos = n_neg, width vs n_pos, the
  trade-off (auc.py).
- with ``exact_curve: true``, exact coverage vs p drawn on both sides of every interval end (exact_curve.py).
- evals: coverage vs the number of questions, a line per K answers (evals.py);
- comparison designs: coverage and the rate of excluding 0 against the true difference (comparison.py).
- cross-validation: coverage of Err_XY or Err against n, a line per Bayes error; widths against n (crossval.py).
- judged (a judge labels all, humans n): coverage and width as a share of the classical interval's against n, a line per judge (judged.py).

This package is the only part of covstudy that imports matplotlib (style.py says how).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..study.summary import read_results, split_columns
from . import auc, clustered, crossval, comparison, coverage, evals, heatmap, judged, mc_vs_exact, multiclass, tradeoff, width
from .exact_curve import exact_curve_figures
from .kind import PLOTS, Plot, register_plot
from .style import _RC, OKABE_ITO, _Output, method_colors, method_order

__all__ = ["OKABE_ITO", "PLOTS", "Plot", "method_colors", "method_order", "plot_results", "register_plot"]


def plot_results(folder, formats=("png", "pdf")) -> list[Path]:
    """Draw every figure the results table in ``folder`` supports; return the paths written.

    ``formats``: file types written per figure; the PNG is always among them (the report embeds it).
    Also writes <folder>/figures/index.csv (file, caption) listing this run's figures in
    order, which ``covstudy.report.markdown.write_report`` embeds.
    """
    import matplotlib

    folder = Path(folder)
    df = read_results(folder)
    out_dir = folder / "figures"
    out_dir.mkdir(parents=True, exist_ok=True)
    _remove_previous(out_dir)
    colors, order = method_colors(df), method_order(df)
    out = _Output(out_dir, formats)
    with matplotlib.rc_context(_RC):
        for combo, sub in _combos(df):
            for kind in PLOTS:
                if kind.applies(sub):
                    for sel in kind.selections(sub, combo):
                        out.save(kind.draw(sub, combo, sel, colors, order), kind.stem(combo, sel),
                                 kind.caption(sub, combo, sel))
    if (folder / "exact_curve_points.csv").is_file():  # a study with exact_curve: true
        with matplotlib.rc_context(_RC):
            exact_curve_figures(folder, out, colors, order)
    index = pd.DataFrame({"file": [f"figures/{paths[0].name}" for paths, _ in out.written],
                          "caption": [cap for _, cap in out.written]})
    index.to_csv(out_dir / "index.csv", index=False)
    return [path for paths, _ in out.written for path in paths]


def _combos(df: pd.DataFrame):
    """(key dict, sub-table) per combination of delta, side, engine and the split columns, in a stable order."""
    cols = ["delta", "side", "engine", *split_columns(df)]
    if "design" in cols:
        df = df.assign(design=df["design"].fillna("").astype(str))
    for key, sub in df.groupby(cols, sort=True):
        combo = dict(zip(cols, key))
        reps = sub["reps"].dropna().unique()
        if combo["engine"] == "mc" and len(reps) == 1:
            combo["reps"] = int(reps[0])
        yield combo, sub


def _remove_previous(out_dir: Path) -> None:
    """Delete the figures an earlier run listed in index.csv, so none of them lingers stale."""
    index = out_dir / "index.csv"
    if index.is_file():
        for rel in pd.read_csv(index)["file"]:
            png = out_dir / Path(rel).name
            png.unlink(missing_ok=True)
            png.with_suffix(".pdf").unlink(missing_ok=True)
