"""Writes paired_bayes_reference.npz: paired Bayes ends as computed before issue 25 (commit cb89fe5,
reproduced by tests/_paired_reference.py), for tests/test_paired_speed.py.

    PYTHONPATH=src:tests python tests/data/paired_bayes_reference.py   # ~20 s

Rows (the posterior reads (b, c, a + d) only, so d = 0): every table with 1 <= n <= 30 at
delta = 0.05 and prior 1/2; every table with n <= 12 at delta = 0.01 and 0.2, and with prior 1
and 0.1; 1,500 tables drawn at n = 150 (seed 25).
"""

from pathlib import Path

import numpy as np

import _paired_reference as reference


def tables(n):
    b, c = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = b + c <= n
    return n - b[keep] - c[keep], b[keep], c[keep]


if __name__ == "__main__":
    parts = []
    for ns, delta, prior in (((range(1, 31)), 0.05, 0.5), (range(1, 13), 0.01, 0.5), (range(1, 13), 0.2, 0.5),
                             (range(1, 13), 0.05, 1.0), (range(1, 13), 0.05, 0.1)):
        a, b, c = (np.concatenate(v) for v in zip(*(tables(n) for n in ns)))
        parts.append((a, b, c, np.full(a.size, delta), np.full(a.size, prior)))
    a, b, c = tables(150)
    pick = np.random.default_rng(25).choice(a.size, 1500, replace=False)
    parts.append((a[pick], b[pick], c[pick], np.full(1500, 0.05), np.full(1500, 0.5)))
    a, b, c, delta, prior = (np.concatenate(v) for v in zip(*parts))
    lower, upper = np.empty(a.size), np.empty(a.size)
    for key in np.unique(np.stack([delta, prior], 1), axis=0):
        rows = (delta == key[0]) & (prior == key[1])
        lower[rows], upper[rows] = reference.bayes_interval(a[rows], b[rows], c[rows], 0, key[0], key[1])
    np.savez_compressed(Path(__file__).with_suffix(".npz"), both=a, only_first=b, only_second=c, delta=delta,
                        prior=prior, lower=lower, upper=upper)
    print(f"{a.size} rows")
