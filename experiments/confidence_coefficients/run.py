"""The exact confidence coefficient and average coverage of every binomial method.

For each registered proportion method (``bayes`` at its default a = b = ½ is the same
interval as ``jeffreys_equal_tailed`` and is left out), n ∈ {10, 20, 50, 100, 200, 500, 1000}
and δ ∈ {0.01, 0.05, 0.1}: inf over p ∈ (0, 1) of the exact coverage C(p), where it is
reached, and ∫₀¹ C(p) dp (covstudy.confidence_coefficient, covstudy.average_coverage).
No randomness: the files regenerate byte for byte.

    python experiments/confidence_coefficients/run.py [out]     # default results/confidence_coefficients
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from covstudy import average_coverage, confidence_coefficient, methods
from covstudy.plots.style import method_colors, method_order, save_figure

N = (10, 20, 50, 100, 200, 500, 1000)
DELTA = (0.01, 0.05, 0.1)
SKIP = ("bayes",)  # its default prior is jeffreys_equal_tailed


def table() -> pd.DataFrame:
    rows = []
    for name in (m.short for m in methods("proportion").values()):
        if name in SKIP:
            continue
        for delta in DELTA:
            for n in N:
                cc = confidence_coefficient(name, n, delta)
                avg = average_coverage(name, n, delta)
                rows.append({"method": name, "n": n, "delta": delta, "confidence_coefficient": cc.value,
                             "at": cc.at, "approach": cc.side, "endpoints": cc.endpoints,
                             "irregular_pieces": cc.irregular, "average_coverage": avg.value,
                             "average_width": avg.mean_width})
    return pd.DataFrame(rows)


def figure(t: pd.DataFrame, path: Path) -> None:
    t = t.assign(label=t["method"])
    colours, order = method_colors(t), method_order(t)
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    axes = fig.subplots(1, len(DELTA), sharey=True)
    styles = ("-", "--", ":")
    for ax, delta in zip(axes, DELTA):
        sub = t[t["delta"] == delta]
        for i, label in enumerate(order):
            m = sub[sub["label"] == label]
            ax.plot(m["n"], m["confidence_coefficient"], styles[i % 3], marker="o", ms=3, lw=1.2,
                    color=colours[label], label=label)
        ax.axhline(1 - delta, color="black", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(0.5, 1.0)
        ax.set_title(f"δ = {delta:g} (nominal {1 - delta:.0%})")
        ax.set_xlabel("sample size n (test examples)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("confidence coefficient inf_p C(p)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    fig.suptitle("Exact confidence coefficient of every binomial interval (below 0.5: off scale, e.g. Wald = 0)",
                 fontsize=10)
    save_figure(fig, path, dpi=150)


def main(out: str = "results/confidence_coefficients") -> None:
    start = time.perf_counter()
    folder = Path(out)
    (folder / "figures").mkdir(parents=True, exist_ok=True)
    t = table()
    t.to_csv(folder / "confidence_coefficients.csv", index=False, float_format="%.10g")
    figure(t, folder / "figures" / "confidence_coefficient_vs_n.png")
    wall = time.perf_counter() - start
    print(f"{len(t)} rows in {wall:.1f} s -> {folder}")
    at50 = t[(t["n"] == 50) & (t["delta"] == 0.05)]
    print(at50[["method", "confidence_coefficient", "at", "approach", "average_coverage"]].to_string(index=False))


if __name__ == "__main__":
    main(*sys.argv[1:])
