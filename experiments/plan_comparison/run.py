"""Plug-in (presize-style) against expected-width and assurance test-set sizes, for a few
common planning questions; writes table.md beside this file (docs/planning.md shows it).

    cd <repo> && PYTHONPATH=src python experiments/plan_comparison/run.py

Every number is exact (the designs enumerate their outcomes): for the plug-in size, the
expected width there and the probability that a test set of that size reaches the width.
"""

from __future__ import annotations

from pathlib import Path

from covstudy import plan, size_performance
from covstudy.designs import get_design

CASES = [  # label, method, design, metric, axes, width
    ("accuracy 0.9", "wilson", "binomial", None, {"p": 0.9}, 0.1),
    ("accuracy 0.75", "clopper_pearson", "binomial", None, {"p": 0.75}, 0.1),
    ("recall 0.9 at prevalence 0.2", "wilson", "stratified", "recall",
     {"prevalence": 0.2, "tpr": 0.9, "tnr": 0.8}, 0.1),
    ("difference 0.8 - 0.7 (n2 = n1)", "newcombe", "unpaired", None, {"p1": 0.8, "p2": 0.7}, 0.2),
    ("paired difference 0.85 - 0.80, correlation 0.4", "tango", "paired", None,
     {"acc_first": 0.85, "acc_second": 0.8, "correlation": 0.4}, 0.1),
]


def main() -> None:
    lines = ["| question | method | size | plug-in | P(width ≤ w) at plug-in | E[width] ≤ w | assurance 0.8 "
             "| assurance 0.9 |", "|---|---|---|---|---|---|---|---|"]
    for label, method, design, metric, axes, width in CASES:
        kw = dict(design=design, metric=metric, width=width, **axes)
        plug = plan(method, plugin=True, **kw)
        mean = plan(method, **kw)
        a8 = plan(method, assurance=0.8, **kw)
        a9 = plan(method, assurance=0.9, **kw)
        row = size_performance(method, plug.n, width, design=design, metric=metric, **axes)
        axis = get_design(design).size_axis
        lines.append(f"| {label}, w = {width:g} | {method} | {axis} | {plug.n} | {row['prob_width']:.2f} "
                     f"(E[width] {row['mean_width']:.4f}) | {mean.n} | {a8.n} | {a9.n} |")
    out = Path(__file__).with_name("table.md")
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
