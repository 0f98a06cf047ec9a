"""Seconds to compute all n + 1 intervals of every registered method (two-sided and lower), n = 10^4.

Run: PYTHONPATH=src python benchmarks/methods_speed.py [n]
"""

import sys
import time

import numpy as np

import covstudy

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
k = np.arange(n + 1)
print(f"n = {n}: best of 3, seconds for all {n + 1} intervals")
for name in covstudy.methods("proportion"):
    row = []
    for side in ("two-sided", "lower"):
        best = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            covstudy.interval(name, k, n, 0.05, side=side)
            best = min(best, time.perf_counter() - t0)
        row.append(best)
    print(f"{name:24s} two-sided {row[0]:8.4f}   lower {row[1]:8.4f}")
