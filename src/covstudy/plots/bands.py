"""Figures of a band study (bands/study.py): one test set's bands around the true ROC curve, pointwise
coverage against FPR, whole-curve containment against n. Drawn from the study's tables and, for
the example, from the bands the study computed on the one test set it shows (``example_bands``):
figures only draw, and import nothing of the bands wing."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .style import band_colours, save_figure

DPI = 110


def _subplots(nrows, ncols, figsize, **kwargs):
    """A figure and its axes, without pyplot: the caller's backend and open figures are left alone."""
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, **kwargs)


def band_figures(study, table, pointwise, example: dict) -> list:
    """The band study's three figures in <out>/figures; ``example``: one test set's bands
    (bands/study.py ``example_bands``: point, grid, truth, empirical, [(name, label, lower, upper)])."""
    out = study.out / "figures"
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    roc = table[table.curve == "roc"]
    names = list(dict.fromkeys(roc.method))
    colours = band_colours(names)
    # 1. one test set's bands around the true curve
    pt, grid, truth = example["point"], example["grid"], example["truth"]
    shown = example["bands"]
    fig, axes = _subplots(1, len(shown), figsize=(3.2 * len(shown), 3.4), sharey=True)
    for ax, (name, label, lower, upper) in zip(np.atleast_1d(axes), shown):
        held = bool(np.all((lower <= truth + 1e-12) & (truth <= upper + 1e-12)))
        ax.fill_between(grid, lower, upper, color=colours.get(label, "grey"), alpha=0.3, lw=0)
        ax.plot(grid, truth, "k-", lw=1.5, label="true ROC")
        ax.plot(grid, example["empirical"], color="0.4", lw=0.8, ls="--", label="empirical")
        ax.plot([0, 1], [0, 1], color="0.8", lw=0.6)
        ax.set_title(f"{name}\n{'holds' if held else 'misses'} the true curve (FPR 0.01..0.99)", fontsize=9)
        ax.set_xlabel("FPR")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.01)
    np.atleast_1d(axes)[0].set_ylabel("TPR")
    np.atleast_1d(axes)[0].legend(fontsize=7, loc="lower right")
    fig.suptitle(f"One test set (n_pos = {pt.n_pos}, n_neg = {pt.n_neg}, AUC {pt.auc:g}, sd_ratio {pt.sd_ratio:g}): "
                 f"{1 - study.delta:.0%} bands", fontsize=10)
    fig.tight_layout()
    paths.append(out / "band_example.png")
    save_figure(fig, paths[-1], dpi=DPI)
    # 2. pointwise coverage against FPR, continuous scores, sd_ratio 1
    sub = pointwise[(pointwise.curve == "roc") & (pointwise.levels == 0) & (pointwise.sd_ratio == 1.0)]
    ns, aucs = sorted(sub.n_pos.unique()), sorted(sub.auc.unique())
    fig, axes = _subplots(len(aucs), len(ns), figsize=(3.2 * len(ns), 2.8 * len(aucs)), sharex=True, sharey=True,
                             squeeze=False)
    for i, auc in enumerate(aucs):
        for j, n in enumerate(ns):
            ax = axes[i, j]
            for name in names:
                d = sub[(sub.auc == auc) & (sub.n_pos == n) & (sub.method == name)]
                ax.plot(d["at"], d.coverage, color=colours[name], lw=1.2, label=name)
            ax.axhline(1 - study.delta, color="k", lw=0.7, ls=":")
            ax.set_title(f"n per class {n}, AUC {auc:g}", fontsize=9)
            ax.set_ylim(0.3, 1.01)
            if i == len(aucs) - 1:
                ax.set_xlabel("FPR")
        axes[i, 0].set_ylabel("pointwise coverage")
    axes[0, -1].legend(fontsize=6, loc="lower left")
    fig.suptitle("Pointwise coverage of the true TPR at each FPR (continuous scores, sd_ratio 1)", fontsize=10)
    fig.tight_layout()
    paths.append(out / "pointwise_coverage.png")
    save_figure(fig, paths[-1], dpi=DPI)
    # 3. containment against n
    combos = roc[["sd_ratio", "levels"]].drop_duplicates().sort_values(["levels", "sd_ratio"]).to_numpy()
    fig, axes = _subplots(len(aucs), len(combos), figsize=(3.2 * len(combos), 2.8 * len(aucs)), sharey=True,
                             squeeze=False)
    for i, auc in enumerate(aucs):
        for j, (sd, lv) in enumerate(combos):
            ax = axes[i, j]
            for name in names:
                d = roc[(roc.auc == auc) & (roc.sd_ratio == sd) & (roc.levels == lv) & (roc.method == name)]
                d = d.sort_values("n_pos")
                ax.errorbar(d.n_pos, d.containment, yerr=2 * d.containment_mcse, color=colours[name], lw=1.2,
                            marker="o", ms=3, capsize=2, label=name)
            ax.axhline(1 - study.delta, color="k", lw=0.7, ls=":")
            ax.set_xscale("log")
            ax.set_xticks(ns, [str(int(n)) for n in ns])
            ax.minorticks_off()
            ax.set_title(f"AUC {auc:g}, sd_ratio {sd:g}, {'continuous' if lv == 0 else f'{int(lv)} levels'}",
                         fontsize=9)
            ax.set_ylim(-0.02, 1.02)
            if i == len(aucs) - 1:
                ax.set_xlabel("n per class")
        axes[i, 0].set_ylabel("whole-curve containment")
    axes[0, 0].legend(fontsize=6, loc="lower left")
    fig.suptitle("Share of test sets whose band holds the whole true ROC curve (FPR 0.05..0.95), ± 2 MCSE",
                 fontsize=10)
    fig.tight_layout()
    paths.append(out / "containment_vs_n.png")
    save_figure(fig, paths[-1], dpi=DPI)
    return paths
