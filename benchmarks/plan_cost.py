"""CPU and wall time of plan() answers under every design (exact and Monte Carlo), cold caches.

    cd <repo> && PYTHONPATH=src python benchmarks/plan_cost.py

The issue's budget: an exact answer in under 2 s, a Monte Carlo answer in under 60 s on the
2-core machine. Each case runs once in this process after clearing the interval and outcome caches.
"""

from __future__ import annotations

import time

from covstudy import plan
from covstudy.engine.core import clear_cache

CASES = [  # label, method, keywords
    ("binomial, E[width]", "wilson", dict(p=0.9, width=0.05)),
    ("binomial, assurance 0.9", "wilson", dict(p=0.9, width=0.05, assurance=0.9)),
    ("stratified recall, E[width]", "wilson", dict(design="stratified", metric="recall", prevalence=0.2, tpr=0.9,
                                                   tnr=0.8, width=0.1)),
    ("stratified recall, assurance 0.9", "wilson", dict(design="stratified", metric="recall", prevalence=0.2,
                                                        tpr=0.9, tnr=0.8, width=0.1, assurance=0.9)),
    ("stratified balanced accuracy, E[width]", "cp_union", dict(design="stratified", prevalence=0.3, tpr=0.9,
                                                                tnr=0.8, width=0.2)),
    ("iid balanced accuracy, E[width]", "wilson_union", dict(design="iid", prevalence=0.3, tpr=0.9, tnr=0.8,
                                                             width=0.35)),
    ("unpaired, assurance 0.9", "newcombe", dict(design="unpaired", p1=0.8, p2=0.7, width=0.2, assurance=0.9)),
    ("paired (tango), assurance 0.9", "tango", dict(design="paired", acc_first=0.85, acc_second=0.8, correlation=0.4,
                                            width=0.1, assurance=0.9)),
    ("multiclass macro recall, E[width]", "union_wilson", dict(design="multiclass", K=3, recall=0.8, imbalance=2.0,
                                                               width=0.4)),
    ("clustered (exact), E[width]", "wilson", dict(design="clustered", cluster_size=5, p=0.8, icc=0.1, width=0.1)),
    ("binomial by Monte Carlo, assurance 0.9", "wilson", dict(p=0.9, width=0.05, assurance=0.9, reps=1000)),
    ("binormal AUC (DeLong), assurance 0.9", "delong", dict(design="binormal", prevalence=0.3, auc=0.85,
                                                            width=0.1, assurance=0.9, reps=1000)),
    ("clustered (wilson_vif, MC), E[width]", "wilson_vif", dict(design="clustered", cluster_size=5, p=0.8, icc=0.1,
                                                                width=0.1, reps=1000)),
    ("multiclass by Monte Carlo, assurance 0.8", "union_wilson", dict(design="multiclass", K=3, recall=0.8,
                                                                    imbalance=2.0, width=0.4, assurance=0.8,
                                                                    reps=1000)),
]


def main() -> None:
    print("| case | engine | size | answer | 95% interval | CPU s | wall s |")
    print("|---|---|---|---|---|---|---|")
    for label, method, kw in CASES:
        clear_cache()
        c0, w0 = time.process_time(), time.perf_counter()
        r = plan(method, **kw)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        ci = f"[{r.n_interval[0]:.1f}, {r.n_interval[1]:.1f}]" if r.n_interval else ""
        print(f"| {label} | {r.engine} | {r.size_axis} | {r.n} | {ci} | {cpu:.2f} | {wall:.2f} |", flush=True)


if __name__ == "__main__":
    main()
