"""The exact headline grid through the public API against a plain log-space numpy floor.

    PYTHONPATH=src python benchmarks/exact_floor.py

Grid: 5 methods x n in {10, 20, 50, 100, 200, 500, 1000} x p = 0.01..0.99 (99 values), delta = 0.05.
D: ``coverage(method, n, p=<99 values>)`` per (method, n) (interval tables warm, as in a session).
Floor: the same sums written plainly: per n, the pmf exp(log C(n, k) + k log p + (n - k) log(1 - p))
once, then per method the coverage, miss rates and width moments as row sums against the
(precomputed) interval table. Both timed in CPU seconds and wall seconds, best of 9, interleaved in one run.
"""

from __future__ import annotations

import time

import numpy as np
from scipy import special

from covstudy import coverage
from covstudy.intervals import interval

METHODS = ("wald", "wilson", "agresti_coull", "jeffreys", "clopper_pearson")
NS = (10, 20, 50, 100, 200, 500, 1000)
PS = np.round(np.arange(1, 100) / 100, 2)
DELTA = 0.05


def public_api():
    return {(m, n): coverage(m, n, PS, DELTA) for m in METHODS for n in NS}


TABLES = {(m, n): interval(m, np.arange(n + 1), n, DELTA) for m in METHODS for n in NS}


def floor():
    out = {}
    for n in NS:
        k = np.arange(n + 1)
        log_choose = special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
        pmf = np.exp(log_choose + k * np.log(PS)[:, None] + (n - k) * np.log1p(-PS)[:, None])
        t = PS[:, None]
        for m in METHODS:
            lower, upper = TABLES[m, n]
            width = upper - lower
            low, high = t < lower, t > upper
            mean = np.sum(pmf * width, axis=1)
            out[m, n] = (1 - np.sum(pmf * (low | high), axis=1), np.sum(pmf * low, axis=1),
                         np.sum(pmf * high, axis=1), mean, np.sqrt(np.sum(pmf * width**2, axis=1) - mean**2))
    return out


def timed(fns, repeat=9):
    """Each of ``fns`` run ``repeat`` times, interleaved so that both see the same machine
    load; the best CPU and wall time of each."""
    best = [[np.inf, np.inf] for _ in fns]
    results = [None] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            c, w = time.process_time(), time.perf_counter()
            results[i] = fn()
            best[i] = [min(best[i][0], time.process_time() - c), min(best[i][1], time.perf_counter() - w)]
    return results, best


if __name__ == "__main__":
    public_api()  # warm the interval tables and imports
    (api, ref), ((api_cpu, api_wall), (floor_cpu, floor_wall)) = timed([public_api, floor])
    diff = max(np.max(np.abs(api[key].coverage - ref[key][0])) for key in ref)
    print(f"public coverage(): {api_cpu * 1e3:.1f} ms CPU, {api_wall * 1e3:.1f} ms wall")
    print(f"log-space floor:   {floor_cpu * 1e3:.1f} ms CPU, {floor_wall * 1e3:.1f} ms wall")
    print(f"ratio: {api_cpu / floor_cpu:.2f}x CPU, {api_wall / floor_wall:.2f}x wall; "
          f"max |coverage difference| {diff:.1e}")
