"""Seconds (wall and CPU) for the exact confidence coefficient and average coverage, n = 10^3 … 10^5.

Run: python benchmarks/exact_curve.py [methods...]   (default: wilson clopper_pearson blaker logit)
The interval table over k = 0..n is part of the time (Blaker's dominates at large n).
"""

import sys
import time

import covstudy

names = sys.argv[1:] or ["wilson", "clopper_pearson", "blaker", "logit"]
print(f"{'method':18s} {'n':>7s} {'coefficient wall':>17s} {'cpu':>7s} {'average wall':>13s} {'cpu':>7s}  value")
for name in names:
    for n in (1_000, 10_000, 100_000):
        times = []
        for f in (covstudy.confidence_coefficient, covstudy.average_coverage):
            w0, c0 = time.perf_counter(), time.process_time()
            r = f(name, n, 0.05)
            times += [time.perf_counter() - w0, time.process_time() - c0]
            if f is covstudy.confidence_coefficient:
                value = r.value
        print(f"{name:18s} {n:7d} {times[0]:17.3f} {times[1]:7.3f} {times[2]:13.3f} {times[3]:7.3f}  {value:.6f}")
