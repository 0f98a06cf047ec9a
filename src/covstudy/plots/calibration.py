"""Figures of a calibration study (calibration/study.py): one reliability diagram with its bands, exact
per-bin coverage, whole-curve coverage of the bands over bins, and the ECE intervals' coverage and the
estimates' bias. Drawn from the study's table and the example test set it computed: figures only draw."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .style import LINESTYLES, band_colours, save_figure

DPI = 110


def _figure(nrows, ncols, panel=(3.0, 2.5), **kwargs):
    fig = Figure(figsize=(panel[0] * ncols + 0.6, panel[1] * nrows + 0.8), layout="constrained")
    return fig, fig.subplots(nrows, ncols, squeeze=False, **kwargs)


def _nominal(ax, delta):
    ax.axhline(1 - delta, color="black", lw=0.9, ls=(0, (4, 2.5)), zorder=1)


def calibration_figures(study, table, example: dict) -> list:
    """The four figures in <out>/figures; ``example`` from calibration/study.py ``example_diagram``."""
    out = study.out / "figures"
    out.mkdir(parents=True, exist_ok=True)
    paths = [_example(study, example, out / "reliability_example.png")]
    smooth = table[table.target == "smooth_ece"]
    if not smooth.empty:
        paths.append(_smooth(study, smooth, out / "smooth_ece.png"))
    if "scores" in table:  # the other figures compare methods on the Beta scores (the binormal's are in the table)
        table = table[table.scores.fillna("beta") == "beta"]
    bins = table[table.target == "bin"]
    colours = band_colours(list(dict.fromkeys(bins.method)))
    if not bins.empty:
        paths.append(_bin_coverage(study, bins, colours, out / "bin_coverage.png"))
    curve = table[table.target == "curve"]
    if not curve.empty:
        paths.append(_curve_coverage(study, curve, colours, out / "curve_coverage.png"))
    ece = table[table.target == "ece"]
    if not ece.empty:
        paths.append(_ece(study, ece, out / "ece.png"))
    return paths


def _example(study, ex, path):
    p = ex["point"]
    lo, hi = ex["band"]
    held = bool(np.all(((lo <= ex["f"]) & (ex["f"] <= hi)) | (ex["m"] == 0)))
    title = (f"One test set: n = {p['n']}, {p['bins']} {p['binning'].replace('_', ' ')} bins, slope {p['slope']:g}, "
             f"intercept {p['intercept']:g}\nthe {1 - study.delta:.0%} band {'holds' if held else 'misses'} the true curve")
    return reliability_diagram(ex["edges"], ex["m"], ex["k"], ex["S"], ex["band"], ex["pointwise"], path, title,
                               truth=ex["f"])


def reliability_diagram(e, m, k, S, band, pointwise, path, title="", truth=None):
    """One reliability diagram: per bin (edges ``e``; count m, positives k, sum of scores S) the observed
    (mean score, frequency), the per-bin interval ``pointwise`` and the band ``band`` (each (lower, upper)
    per bin), and with ``truth`` the true bin frequencies; written to ``path``."""
    full = m > 0
    fig, axes = _figure(1, 1, panel=(4.6, 4.0))
    ax = axes[0, 0]
    lo, hi = band
    plo, phi = pointwise
    for j in range(len(m)):
        ax.fill_between([e[j], e[j + 1]], lo[j], hi[j], color="#0072B2", alpha=0.18, lw=0,
                        label="Šidák band (Clopper–Pearson)" if j == 0 else None)
        ax.fill_between([e[j], e[j + 1]], plo[j], phi[j], color="#0072B2", alpha=0.3, lw=0,
                        label="per bin (Clopper–Pearson)" if j == 0 else None)
        if truth is not None:
            ax.plot([e[j], e[j + 1]], [truth[j]] * 2, color="#D55E00", lw=1.6, label="true bin frequency" if j == 0 else None)
    ax.plot(S[full] / m[full], k[full] / m[full], "ko", ms=3.5, label="observed (mean score, frequency)")
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls=":")
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="score", ylabel="frequency of positives")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    save_figure(fig, path, dpi=DPI)
    return path


def _bin_coverage(study, bins, colours, path):
    sub = bins[(bins.binning == "equal_width") & (bins.bins == (10 if (bins.bins == 10).any() else bins.bins.max()))]
    slopes, ns = sorted(sub.slope.unique()), sorted(sub.n.unique())
    fig, axes = _figure(len(slopes), len(ns), sharex=True, sharey=True)
    for i, slope in enumerate(slopes):
        for j, n in enumerate(ns):
            ax = axes[i, j]
            part = sub[(sub.slope == slope) & (sub.n == n)]
            for method, rows in part.groupby("method", sort=False):
                ax.plot(rows.bin, rows.exact_coverage, marker="o", ms=3, lw=1.2, color=colours[method], label=method)
            _nominal(ax, study.delta)
            ax.set_title(f"n = {n}, slope {slope:g}", fontsize=9)
            ax.set_ylim(max(0.0, min(0.8, np.nanmin(sub.exact_coverage) - 0.02)), 1.005)
    for ax in axes[-1]:
        ax.set_xlabel(f"bin (of {int(sub.bins.iloc[0])}, equal width)")
    for ax in axes[:, 0]:
        ax.set_ylabel("exact coverage | bin non-empty")
    axes[0, 0].legend(fontsize=7, loc="lower left")
    fig.suptitle("Per-bin coverage of the true bin frequency (exact)", fontsize=10)
    save_figure(fig, path, dpi=DPI)
    return path


def _curve_coverage(study, curve, colours, path):
    parts = curve.method.str.split("+", expand=True)
    curve = curve.assign(base=parts[0], adjust=parts[1])
    adjusts, nbins = list(dict.fromkeys(curve.adjust)), sorted(curve.bins.unique())
    fig, axes = _figure(1, len(adjusts), panel=(3.2, 3.2), sharey=True)
    for j, adjust in enumerate(adjusts):
        ax = axes[0, j]
        for b_i, b in enumerate(nbins):
            part = curve[(curve.adjust == adjust) & (curve.bins == b)]
            worst = part.groupby(["base", "n"], sort=False).coverage.min().reset_index()
            for base, rows in worst.groupby("base", sort=False):
                ax.plot(rows.n, rows.coverage, marker="o", ms=3, color=colours.get(base, "grey"),
                        ls=LINESTYLES[b_i % len(LINESTYLES)], label=f"{base}, {b} bins")
        _nominal(ax, study.delta)
        ax.set_xscale("log")
        ax.set_title(f"adjustment: {adjust}", fontsize=9)
        ax.set_xlabel("n")
    axes[0, 0].set_ylabel("whole-curve coverage\n(worst over slope and binning)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="outside lower center", ncol=len(nbins))
    fig.suptitle("Does the band over all bins hold every non-empty bin's true frequency at once?", fontsize=10)
    save_figure(fig, path, dpi=DPI)
    return path


def _ece(study, ece, path):
    sub = ece[ece.binning == "equal_width"]
    slopes, nbins = sorted(sub.slope.unique()), sorted(sub.bins.unique())
    colours = band_colours(list(dict.fromkeys(sub.method)))
    fig, axes = _figure(2, len(slopes), sharex=True)
    for j, slope in enumerate(slopes):
        for b_i, b in enumerate(nbins):
            for method, rows in sub[(sub.slope == slope) & (sub.bins == b)].groupby("method", sort=False):
                style = dict(marker="o", ms=3, color=colours[method], ls=LINESTYLES[b_i % len(LINESTYLES)],
                             label=f"{method}, {b} bins")
                axes[0, j].plot(rows.n, rows.coverage, **style)
                axes[1, j].errorbar(rows.n, rows.bias, yerr=2 * rows.bias_mcse, capsize=2, **style)
        _nominal(axes[0, j], study.delta)
        axes[1, j].axhline(0, color="black", lw=0.8)
        axes[0, j].set_title(f"slope {slope:g}" + (" (perfect)" if slope == 1 else ""), fontsize=9)
        axes[0, j].set_ylim(-0.02, 1.02)
        axes[1, j].set_xscale("log")
        axes[1, j].set_xlabel("n")
    axes[0, 0].set_ylabel("coverage of the true binned ECE")
    axes[1, 0].set_ylabel("mean estimate - true binned ECE")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="outside lower center", ncol=len(nbins))
    fig.suptitle("Binned ECE (equal width): interval coverage and the estimate's bias (±2 MCSE)", fontsize=10)
    save_figure(fig, path, dpi=DPI)
    return path


def _smooth(study, smooth, path):
    """The smooth ECE's coverage of the population's smooth ECE and its bias, by n, per slope and score law."""
    law = smooth.scores.fillna("beta") if "scores" in smooth else np.full(len(smooth), "beta")
    smooth = smooth.assign(law=np.asarray(law))
    slopes, laws = sorted(smooth.slope.unique()), list(dict.fromkeys(smooth.law))
    fig, axes = _figure(2, len(slopes), sharex=True)
    for j, slope in enumerate(slopes):
        for i, name in enumerate(laws):
            rows = smooth[(smooth.slope == slope) & (smooth.law == name)].sort_values("n")
            style = dict(marker="o", ms=3, color="#009E73", ls=LINESTYLES[i % len(LINESTYLES)], label=f"{name} scores")
            axes[0, j].plot(rows.n, rows.coverage, **style)
            axes[1, j].errorbar(rows.n, rows.bias, yerr=2 * rows.bias_mcse, capsize=2, **style)
        _nominal(axes[0, j], study.delta)
        axes[1, j].axhline(0, color="black", lw=0.8)
        axes[0, j].set_title(f"slope {slope:g}" + (" (perfect)" if slope == 1 else ""), fontsize=9)
        axes[0, j].set_ylim(-0.02, 1.02)
        axes[1, j].set_xscale("log")
        axes[1, j].set_xlabel("n")
    axes[0, 0].set_ylabel("coverage of the true smooth ECE")
    axes[1, 0].set_ylabel("mean estimate - true smooth ECE")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="outside lower center", ncol=len(laws))
    fig.suptitle("Smooth ECE (Błasiok & Nakkiran): basic-bootstrap coverage and the estimate's bias (±2 MCSE)",
                 fontsize=10)
    save_figure(fig, path, dpi=DPI)
    return path
