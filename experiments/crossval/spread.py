"""How much Err_XY varies between data sets, against the CV estimate (experiments/crossval/README.md).

    PYTHONPATH=src python experiments/crossval/spread.py

For 300 data sets at each (n, d), K = 10, Bayes error 0.15 (one 10-fold CV each): the sd of the
fitted model's exact error Err_XY, the sd of the CV estimate and their correlation. Seeded: the
same table every run.
"""

import numpy as np

from covstudy.designs.crossval import simulate_sets

print("| n, d | sd of Err_XY | sd of the CV estimate | correlation |")
print("|---|---|---|---|")
for n, d in [(50, 20), (100, 5), (100, 20), (1000, 20)]:
    c = simulate_sets(n, d, 0.15, 0.5, 10, 1, 0.2, 0.01, 300, np.random.default_rng(1))
    cv = c["fold_errors"].sum(axis=(1, 2)) / n
    print(f"| {n}, {d} | {c['err_xy'].std():.4f} | {cv.std():.4f} | {np.corrcoef(cv, c['err_xy'])[0, 1]:.2f} |")
