"""Figures of a coverage study, drawn from its tidy results table (<folder>/results.csv).

``plot_results(folder)`` looks at which columns and grid axes the table has and draws the
figures that make sense for it, as PNG (150 dpi) and PDF in <folder>/figures/:

- coverage vs p at fixed n, one panel per method, nominal 1 - delta line (dashed);
  exact results as the jagged curves they are, Monte Carlo with a ±2·MCSE band;
- coverage vs n at fixed p (the oscillation of Brown, Cai & DasGupta 2001, Fig. 1);
- expected width vs p and vs n, methods overlaid;
- a heatmap of coverage over (p, n) per method, diverging colours centred on 1 - delta;
- Monte Carlo against exact (when mc rows carry ``exact_coverage`` or the table has both
  engines): exact as a thin line, MC as points with ±2·MCSE bars, and a histogram of the
  standardised differences against N(0, 1);
- balanced accuracy (tables with ``prevalence``/``tpr``/``tnr``): coverage vs prevalence
  per method and a coverage heatmap over (tpr, tnr).

Each method keeps one colour in every figure (Okabe & Ito's colour-blind-safe palette, in
registry order). This is the only module that imports matplotlib; it uses the
object-oriented API (``Figure`` + Agg), so it never touches pyplot's global state.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from . import report, summary

DPI = 150
MAX_FIXED = 3  # at most this many fixed n (or p) values per figure kind and combination
MAX_PANELS = 16  # at most this many method panels per figure (the first in registry order)

# Okabe & Ito (2008), "Color Universal Design"; yellow dropped (invisible as a thin line on white).
OKABE_ITO = {"blue": "#0072B2", "vermillion": "#D55E00", "green": "#009E73", "purple": "#CC79A7",
             "orange": "#E69F00", "sky": "#56B4E9", "black": "#000000"}
# A union-bound balanced-accuracy method wears the colour of the binomial interval it is built on.
_FIXED_COLOURS = {
    "wald": "vermillion", "wilson": "blue", "clopper_pearson": "green", "jeffreys": "purple",
    "agresti_coull": "orange",
    "ba_wald": "vermillion", "ba_wilson_union": "blue", "ba_cp_union": "green",
    "ba_jeffreys_union": "purple", "ba_posterior": "sky", "ba_posterior_jeffreys": "black",
}
# Paul Tol's "muted" scheme (colour-blind safe) for methods without a fixed colour.
FALLBACK = ("#332288", "#117733", "#882255", "#44AA99", "#999933", "#AA4499", "#88CCEE",
            "#CC6677", "#DDCC77")
LINESTYLES = ("-", (0, (5, 1.5)), (0, (1.5, 1)), (0, (5, 1.5, 1.5, 1.5)))

LABELS = {
    "p": "true proportion p",
    "n": "sample size n (test examples)",
    "coverage": "coverage probability",
    "mean_width": "expected interval width (units of p)",
    "prevalence": "prevalence (fraction of positives)",
    "tpr": "true positive rate (tpr)",
    "tnr": "true negative rate (tnr)",
}
BALANCED_COLUMNS = ("design", "prevalence", "tpr", "tnr")
_RC = {"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 8,
       "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.titlesize": 10}


# --------------------------------------------------------------------------- colours and order

def method_order(table: pd.DataFrame) -> list[str]:
    """Display labels in registry order (binomial methods, then balanced ones, then the rest by name)."""
    pairs = table[["method", "label"]].drop_duplicates()
    pairs = sorted(pairs.itertuples(index=False), key=lambda r: (summary.method_rank(r.method), r.method, r.label))
    return list(dict.fromkeys(r.label for r in pairs))


def method_colors(table: pd.DataFrame) -> dict[str, str]:
    """Colour of each display label: the method's fixed colour, else the next unused fallback.

    The first label of a known method gets the method's colour; further labels of the same
    method and unknown methods take Tol's muted colours in registry-then-name order, so the
    mapping depends only on the set of (method, label) pairs in the table.
    """
    colors: dict[str, str] = {}
    taken: set[str] = set()
    pairs = table[["method", "label"]].drop_duplicates()
    first_label = pairs.groupby("method", sort=False)["label"].agg(lambda s: sorted(s)[0])
    for label in method_order(table):
        method = pairs.loc[pairs["label"] == label, "method"].iloc[0]
        if method in _FIXED_COLOURS and first_label[method] == label:
            colors[label] = OKABE_ITO[_FIXED_COLOURS[method]]
            taken.add(colors[label])
    free = [c for c in FALLBACK if c not in taken] or list(FALLBACK)
    for i, label in enumerate(lab for lab in method_order(table) if lab not in colors):
        colors[label] = free[i % len(free)]
    return colors


# --------------------------------------------------------------------------- reading the table

def load_results(folder) -> pd.DataFrame:
    """<folder>/results.csv as ``report.read_results`` reads it (defaults filled, exact joined onto mc rows)."""
    return summary.read_results(folder)


def is_balanced(df: pd.DataFrame) -> bool:
    if "design" in df and df["design"].notna().any():
        return bool((df["design"].dropna() != "binomial").any())
    return any(c in df and df[c].notna().any() for c in BALANCED_COLUMNS)


# --------------------------------------------------------------------------- small helpers

def _fmt(x) -> str:
    return f"{float(x):g}"


def _pick(values, targets=None, k: int = MAX_FIXED) -> list:
    """Up to k of the sorted ``values``: nearest to each target, else spread evenly (ends included)."""
    values = sorted(set(values))
    if len(values) <= k:
        return values
    if targets is not None:
        chosen = []
        for t in targets:
            best = min((v for v in values if v not in chosen), key=lambda v: (abs(v - t), v))
            chosen.append(best)
        return sorted(chosen[:k])
    idx = np.unique(np.round(np.linspace(0, len(values) - 1, k)).astype(int))
    return [values[i] for i in idx]


def _combos(df: pd.DataFrame, cols=("delta", "side", "engine")):
    """(key dict, sub-table) per combination of ``cols``, in a stable order."""
    for key, sub in df.groupby(list(cols), sort=True):
        combo = dict(zip(cols, key))
        reps = sub["reps"].dropna().unique()
        if combo["engine"] == "mc" and len(reps) == 1:
            combo["reps"] = int(reps[0])
        yield combo, sub


def _describe(combo: dict, **fixed) -> str:
    parts = [f"{k} = {_fmt(v) if isinstance(v, (int, float, np.number)) else v}" for k, v in fixed.items()]
    parts.append(f"nominal 1 − δ = {_fmt(1 - combo['delta'])}")
    engine = combo["engine"]
    reps = f" (reps = {combo['reps']})" if combo.get("reps") else ""
    parts.append("exact" if engine == "exact" else f"Monte Carlo{reps}" if engine == "mc" else engine)
    parts.append(combo["side"])
    if "design" in combo:
        parts.append(f"{combo['design']} design")
    if "metric" in combo:
        parts.append(f"metric {combo['metric']}")
    return ", ".join(parts)


def _stem(kind: str, combo: dict, **fixed) -> str:
    bits = [kind, *(f"{k}{_fmt(v) if not isinstance(v, str) else v}" for k, v in fixed.items()),
            f"delta{_fmt(combo['delta'])}", str(combo["side"]), str(combo["engine"]), combo.get("design", "")]
    bits = [b for b in bits if b]
    return "_".join(bits).replace(" ", "-").replace("/", "-")


def _new_figure(n_panels: int, panel=(3.0, 2.3), ncols_max: int = 3, extra_h: float = 0.6, sharey=True):
    """A grid of panels; returns (figure, used axes, ncols, spare axes turned off: room for a legend)."""
    ncols = min(n_panels, ncols_max if n_panels <= 9 else ncols_max + 1)  # 4 columns beyond 9 panels
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(figsize=(panel[0] * ncols + 0.4, panel[1] * nrows + extra_h), dpi=DPI, layout="constrained")
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=sharey, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_axis_off()
    return fig, axes[:n_panels], ncols, axes[n_panels:]


def _label_outer(axes, ncols: int, xlabel: str, ylabel: str):
    n = len(axes)
    for i, ax in enumerate(axes):
        if i % ncols == 0:
            ax.set_ylabel(ylabel)
        if i + ncols >= n:  # bottom panel in its column
            ax.set_xlabel(xlabel)
            ax.xaxis.set_tick_params(labelbottom=True)


def _coverage_ylim(values, delta) -> tuple[float, float]:
    """From the lowest value shown (but not below 1 - 4·delta, so the region near nominal stays legible) to 1."""
    lo = max(np.nanmin(values), 1 - 4 * delta)
    lo = min(lo, 1 - 1.5 * delta)
    return lo - 0.02 * (1 - lo), 1 + 0.02 * (1 - lo)


def _nominal(ax, delta):
    ax.axhline(1 - delta, color="black", lw=0.9, ls=(0, (4, 2.5)), zorder=1)


def _note_off_scale(ax, x, y, ylo, xname):
    """Say where a curve leaves the axis at the bottom, rather than squash the interesting part."""
    below = y < ylo
    if below.any():
        i = int(np.nanargmin(y))
        ax.text(0.5, 0.03, f"min {y[i]:.3f} at {xname} = {_fmt(x[i])} (below axis)", transform=ax.transAxes,
                ha="center", va="bottom", fontsize=7, color="0.25",
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.8))


class _Output:
    """Where the figures go: saves each in every format and remembers (paths, caption) in order."""

    def __init__(self, folder: Path, formats):
        self.folder = folder
        self.formats = ("png", *(f for f in formats if f != "png"))  # the report embeds the PNG
        self.written: list[tuple[list[Path], str]] = []

    def save(self, fig: Figure, stem: str, caption: str) -> None:
        paths = [self.folder / f"{stem}.{ext}" for ext in self.formats]
        for path in paths:
            # No creation date in the PDF: the same table gives byte-identical figures.
            metadata = {"CreationDate": None} if path.suffix == ".pdf" else None
            fig.savefig(path, dpi=DPI, metadata=metadata)
        self.written.append((paths, caption))


def _legend(fig, handles, spare, title=None):
    """In an empty panel when there is one (it covers no data there), else below the panels."""
    if len(spare):
        spare[0].legend(handles=handles, loc="center", frameon=False, title=title)
    else:
        fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 4), frameon=False,
                   title=title)


# --------------------------------------------------------------------------- figure kinds

def _panel_labels(sub, order):
    """The labels to draw as panels: all, or the first MAX_PANELS in registry order (and a note saying so)."""
    present = [lab for lab in order if lab in set(sub["label"])]
    note = f" (first {MAX_PANELS} of {len(present)} methods)" if len(present) > MAX_PANELS else ""
    return present[:MAX_PANELS], note


def coverage_panels(sub, x, combo, colors, order, title, style="auto"):
    """One panel per method of coverage against column ``x`` (``sub`` has one row per x and method).

    style "auto": exact rows as thin jagged lines, mc rows as a line with a ±2·MCSE band;
    style "vs_exact": exact coverage as a thin grey line, MC as points with ±2·MCSE bars.
    """
    delta = combo["delta"]
    labels, note = _panel_labels(sub, order)
    fig, axes, ncols, spare = _new_figure(len(labels))
    mc = combo["engine"] != "exact"
    band = 2 * sub["mcse"].to_numpy()
    shown = [sub["coverage"].to_numpy() - (band if mc else 0)]
    if style == "vs_exact":
        shown.append(sub["exact_coverage"].to_numpy())
    ylo, yhi = _coverage_ylim(np.concatenate(shown), delta)
    for ax, label in zip(axes, labels):
        d = sub[sub["label"] == label].sort_values(x)
        xs, cov, se = d[x].to_numpy(float), d["coverage"].to_numpy(float), d["mcse"].to_numpy(float)
        color = colors[label]
        marker = "o" if len(xs) <= 25 else None
        _nominal(ax, delta)
        if style == "vs_exact":
            ax.plot(xs, d["exact_coverage"], color="0.35", lw=0.8, zorder=2)
            ax.errorbar(xs, cov, yerr=2 * se, fmt="o", ms=2.2, color=color, ecolor=color, elinewidth=0.7,
                        capsize=0, zorder=3)
        elif mc:
            ax.fill_between(xs, cov - 2 * se, np.minimum(cov + 2 * se, 1), color=color, alpha=0.25, lw=0,
                            zorder=2)
            ax.plot(xs, cov, color=color, lw=1.0, marker=marker, ms=2.5, zorder=3)
        else:
            ax.plot(xs, cov, color=color, lw=0.8, marker=marker, ms=2.5, zorder=3)
        ax.set_title(label, color="black", fontweight="bold")
        ax.set_ylim(ylo, yhi)
        ax.grid(True, lw=0.3, color="0.85")
        _note_off_scale(ax, xs, cov, ylo, x)
    _label_outer(axes, ncols, LABELS.get(x, x), LABELS["coverage"])
    if x in ("p", "prevalence", "tpr", "tnr"):
        lo, hi = sub[x].min(), sub[x].max()
        pad = 0.02 * (hi - lo) if hi > lo else 0.05
        axes[0].set_xlim(lo - pad, hi + pad)
    handles = [Line2D([], [], color="black", lw=0.9, ls=(0, (4, 2.5)), label=f"nominal 1 − δ = {_fmt(1 - delta)}")]
    if style == "vs_exact":
        handles += [Line2D([], [], color="0.35", lw=0.8, label="exact coverage"),
                    Line2D([], [], color="0.2", marker="o", ms=3, ls="-", lw=0.7,
                           label="Monte Carlo estimate ± 2·MCSE")]
    elif mc:
        handles += [Line2D([], [], color="0.3", lw=1.0, label="Monte Carlo estimate"),
                    Patch(color="0.3", alpha=0.25, lw=0, label="± 2·MCSE")]
    else:
        handles += [Line2D([], [], color="0.3", lw=0.8, label="exact coverage (as computed, not smoothed)")]
    _legend(fig, handles, spare)
    fig.suptitle(title + note)
    return fig


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
    for label in labels:
        m = means.loc[label]
        ax.plot([m.w, m.w], [max(m.lo, ylo), m.c], color=colors[label], lw=1.2, zorder=2)
        ax.plot(m.w, m.c, "o", color=colors[label], ms=6, zorder=3, label=label)
        ax.plot(m.w, max(m.lo, ylo), "v" if m.lo < ylo else "_", color=colors[label], ms=7, mew=1.5, zorder=3)
        if m.lo < ylo:
            ax.annotate(f"min {m.lo:.3f}", (m.w, ylo), xytext=(4, 4), textcoords="offset points", fontsize=7,
                        color=colors[label])
    ax.set_ylim(ylo, 1 + 0.02 * (1 - ylo))
    ax.set_xlabel(f"mean expected interval width over the grid (units of {unit})")
    ax.set_ylabel(LABELS["coverage"])
    ax.grid(True, lw=0.3, color="0.85")
    handles, _ = ax.get_legend_handles_labels()
    handles += [Line2D([], [], color="0.3", marker="o", ls="", label="mean coverage"),
                Line2D([], [], color="0.3", marker="_", ms=7, mew=1.5, ls="", label="minimum coverage")]
    if (means["lo"] < ylo).any():
        handles.append(Line2D([], [], color="0.3", marker="v", ls="", label="minimum below the axis"))
    ax.xaxis.set_major_locator(MaxNLocator(6))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0, frameon=False)
    fig.suptitle(title)
    return fig


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
    ys_all = np.sort(sub[y].unique())
    log_y = y == "n" and ys_all[-1] / ys_all[0] >= 10 and not _even(ys_all)
    mesh = None
    for ax, label in zip(axes, labels):
        grid = sub[sub["label"] == label].pivot_table(index=y, columns=x, values="coverage", aggfunc="mean")
        grid = grid.reindex(index=ys_all, columns=np.sort(sub[x].unique()))
        mesh = ax.pcolormesh(grid.columns.to_numpy(float), grid.index.to_numpy(float),
                             np.ma.masked_invalid(grid.to_numpy(float)), cmap="RdBu", norm=norm,
                             shading="nearest", rasterized=True)
        if log_y:
            ax.set_yscale("log")
        if square:
            ax.set_aspect("equal")
        ax.set_title(label, fontweight="bold")
    _label_outer(axes, ncols, LABELS.get(x, x), LABELS.get(y, y))
    extend = "min" if np.nanmin(cov) < vmin else "neither"
    cb = fig.colorbar(mesh, ax=list(axes), shrink=0.9, extend=extend, pad=0.02)
    cb.set_label(f"coverage probability (centred on 1 − δ = {_fmt(1 - delta)})")
    fig.suptitle(title + note)
    return fig


def _even(values) -> bool:
    steps = np.diff(values)
    return len(steps) == 0 or np.allclose(steps, steps[0], rtol=1e-6)


def standardised_differences(sub, combo, title):
    """Histogram of z = (MC - exact)/sqrt(exact(1 - exact)/reps) over all cells, against N(0, 1).

    The denominator is the true standard error of the MC estimate (from the exact coverage),
    not the estimated MCSE, which is 0 whenever an estimate is 0 or 1.
    """
    z_all = summary.standardised_difference(sub)
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


# --------------------------------------------------------------------------- choosing the figures

def plot_results(folder, formats=("png", "pdf")) -> list[Path]:
    """Draw every figure the results table in ``folder`` supports; return the paths written.

    ``formats``: file types written per figure; the PNG is always among them (the report embeds it).
    Also writes <folder>/figures/index.csv (file, caption) listing this run's figures in
    order, which ``covstudy.report.write_report`` embeds.
    """
    folder = Path(folder)
    df = load_results(folder)
    out_dir = folder / "figures"
    out_dir.mkdir(parents=True, exist_ok=True)
    _remove_previous(out_dir)
    colors, order = method_colors(df), method_order(df)
    out = _Output(out_dir, formats)
    import matplotlib

    with matplotlib.rc_context(_RC):
        if is_balanced(df):
            _balanced_figures(df, out, colors, order)
        else:
            _binomial_figures(df, out, colors, order)
    index = pd.DataFrame({"file": [f"figures/{paths[0].name}" for paths, _ in out.written],
                          "caption": [cap for _, cap in out.written]})
    index.to_csv(out_dir / "index.csv", index=False)
    return [path for paths, _ in out.written for path in paths]


def _filled(sub, x, y) -> float:
    """Fraction of the (x, y) grid that has a cell, per method on average."""
    size = sub[x].nunique() * sub[y].nunique() * sub["label"].nunique()
    return len(sub[["label", x, y]].drop_duplicates()) / size


def _remove_previous(out_dir: Path) -> None:
    """Delete the figures an earlier run listed in index.csv, so none of them lingers stale."""
    index = out_dir / "index.csv"
    if index.is_file():
        for rel in pd.read_csv(index)["file"]:
            png = out_dir / Path(rel).name
            png.unlink(missing_ok=True)
            png.with_suffix(".pdf").unlink(missing_ok=True)


def _binomial_figures(df, out: _Output, colors, order):
    for combo, sub in _combos(df):
        desc = _describe(combo)
        p_per_n = sub.groupby("n")["p"].nunique()
        n_per_p = sub.groupby("p")["n"].nunique()
        ns = _pick(p_per_n[p_per_n >= 2].index)
        ps = _pick(n_per_p[n_per_p >= 3].index, targets=(0.2, 0.05, 0.5))
        has_exact = combo["engine"] == "mc" and sub["exact_coverage"].notna().all()
        for n in ns:
            d = sub[sub["n"] == n]
            if has_exact:
                fig = coverage_panels(d, "p", combo, colors, order, style="vs_exact",
                                      title=f"Monte Carlo vs exact coverage\n{_describe(combo, n=n)}")
                out.save(fig, _stem("mc_vs_exact", combo, n=n),
                      f"Monte Carlo coverage (points, ±2·MCSE) against exact coverage (grey line) vs p at n = {n}, "
                      f"{desc}.")
            else:
                fig = coverage_panels(d, "p", combo, colors, order, title=f"Coverage vs p\n{_describe(combo, n=n)}")
                out.save(fig, _stem("coverage_vs_p", combo, n=n),
                      f"Coverage vs true proportion p at n = {n}, {desc}.")
        for p in ps:
            d = sub[np.isclose(sub["p"], p)]
            fig = coverage_panels(d, "n", combo, colors, order, title=f"Coverage vs n\n{_describe(combo, p=p)}")
            out.save(fig, _stem("coverage_vs_n", combo, p=p),
                  f"Coverage vs sample size n at p = {_fmt(p)}, {desc}.")
        if ns:
            fig = width_panels(sub, "p", "n", ns, combo, colors, order, title=f"Expected width vs p\n{desc}")
            out.save(fig, _stem("width_vs_p", combo),
                  f"Expected interval width vs p at n = {', '.join(map(_fmt, ns))}, {desc}.")
        if ps:
            fig = width_panels(sub, "n", "p", ps, combo, colors, order, title=f"Expected width vs n\n{desc}")
            out.save(fig, _stem("width_vs_n", combo),
                  f"Expected interval width vs n at p = {', '.join(map(_fmt, ps))}, {desc}.")
        if sub["n"].nunique() >= 2 and sub["p"].nunique() >= 2 and _filled(sub, "p", "n") >= 0.5:
            fig = heatmap_panels(sub, "p", "n", combo, colors, order, title=f"Coverage over (p, n)\n{desc}")
            out.save(fig, _stem("heatmap", combo),
                  f"Coverage over the (p, n) grid per method, {desc}; red is below nominal, blue above.")
        if sub["label"].nunique() >= 2 and len(sub) > sub["label"].nunique():
            fig = tradeoff(sub, combo, colors, order, title=f"Coverage and width over all cells\n{desc}")
            out.save(fig, _stem("tradeoff", combo),
                  f"Mean coverage (dot) and minimum coverage (bar end) against mean width over all "
                  f"{sub[['n', 'p']].drop_duplicates().shape[0]} (n, p) cells, {desc}.")
        if has_exact and sub["reps"].notna().all():
            fig = standardised_differences(sub, combo, f"Standardised MC − exact differences\n{desc}")
            out.save(fig, _stem("standardised_difference", combo),
                  f"Standardised differences of Monte Carlo from exact coverage against N(0, 1), {desc}.")


def _balanced_figures(df, out: _Output, colors, order):
    df = df.copy()
    for col, default in (("design", "stratified"), ("prevalence", np.nan), ("tpr", np.nan), ("tnr", np.nan)):
        if col not in df:
            df[col] = default
    df["design"] = df["design"].fillna("stratified").astype(str)
    # confusion-matrix studies with a metric axis: one set of figures per metric
    per_metric = "metric" in df and df["metric"].notna().all()
    cols = ("delta", "side", "engine", "design") + (("metric",) if per_metric else ())
    for combo, sub in _combos(df, cols):
        metric = combo.get("metric", "balanced_accuracy")
        what = metric.replace("_", " ").capitalize()  # e.g. "Balanced accuracy", "Precision"
        kind = "ba" if metric == "balanced_accuracy" else metric
        # coverage vs prevalence at the (tpr, tnr) operating point with the most prevalences
        for n in _pick(sub["n"].unique()):
            d = sub[sub["n"] == n]
            counts = d.groupby(["tpr", "tnr"])["prevalence"].nunique()
            counts = counts[counts >= 2]
            if counts.empty:
                continue
            tpr, tnr = counts.sort_values(ascending=False, kind="stable").index[0]
            d = d[np.isclose(d["tpr"], tpr) & np.isclose(d["tnr"], tnr)]
            fixed = dict(n=n, tpr=tpr, tnr=tnr)
            fig = coverage_panels(d, "prevalence", combo, colors, order,
                                  title=f"{what}: coverage vs prevalence\n{_describe(combo, **fixed)}")
            out.save(fig, _stem(f"{kind}_coverage_vs_prevalence", combo, **fixed),
                  f"{what} coverage vs prevalence at {_describe(combo, **fixed)}.")
        # heatmap over (tpr, tnr) at the (n, prevalence) with the most operating points
        counts = sub.groupby(["n", "prevalence"]).apply(lambda g: g[["tpr", "tnr"]].drop_duplicates().shape[0],
                                                        include_groups=False)
        for (n, prev), count in counts.sort_values(ascending=False, kind="stable").head(1).items():
            d = sub[(sub["n"] == n) & np.isclose(sub["prevalence"], prev)]
            if count < 4 or d["tpr"].nunique() < 2 or d["tnr"].nunique() < 2:
                continue
            fixed = dict(n=n, prevalence=prev)
            fig = heatmap_panels(d, "tpr", "tnr", combo, colors, order,
                                 title=f"{what}: coverage over (tpr, tnr)\n{_describe(combo, **fixed)}")
            out.save(fig, _stem(f"{kind}_heatmap", combo, **fixed),
                  f"{what} coverage over (tpr, tnr) at {_describe(combo, **fixed)}; red is below nominal.")
        if sub["label"].nunique() >= 2 and len(sub) > sub["label"].nunique():
            fig = tradeoff(sub, combo, colors, order, unit=what.lower(),
                           title=f"{what}: coverage and width over all cells\n{_describe(combo)}")
            out.save(fig, _stem(f"{kind}_tradeoff", combo),
                  f"{what}: mean coverage (dot) and minimum coverage (bar end) against mean width over "
                  f"all {len(sub) // sub['label'].nunique()} cells per method, {_describe(combo)}.")


# --------------------------------------------------------------------------- command line

def main(argv=None) -> int:
    """``covstudy-plot <results folder>``: write the figures and report.md/report.tex, print their paths."""
    parser = argparse.ArgumentParser(prog="covstudy-plot",
                                     description="Draw the figures and write the report of a covstudy results folder.")
    parser.add_argument("folder", type=Path, help="folder holding results.csv (and study.yaml)")
    parser.add_argument("--no-report", action="store_true", help="only draw the figures")
    args = parser.parse_args(argv)
    if not (args.folder / "results.csv").is_file():
        parser.exit(2, f"covstudy-plot: error: no results.csv in {args.folder}\n")
    try:
        paths = plot_results(args.folder)
        if not args.no_report:
            paths += list(report.write_report(args.folder))
    except ValueError as exc:
        parser.exit(2, f"covstudy-plot: error: {exc}\n")
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
