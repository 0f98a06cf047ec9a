"""Unpaired Monte Carlo coverage against a plain numpy loop doing the same work.

    PYTHONPATH=src python benchmarks/unpaired_mc.py

600 points (n1 ∈ {20, 50}, n2 ∈ {30, 50}, p1, p2 on grids) × 10⁴ simulated test-set pairs, the Wald
difference interval. covstudy: ``coverage("diff_wald", design="unpaired", ..., reps=10_000)`` per
point (in one process, in turn). The loop: per point, k1 and k2 drawn with numpy, the Wald
interval vectorised over the pairs, the coverage counted. CPU seconds, best of 3, interleaved.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
from scipy import stats

from covstudy import coverage

P1, P2 = np.linspace(0.05, 0.95, 10), np.linspace(0.05, 0.95, 15)
POINTS = list(itertools.product([20, 50], [30, 50], P1, P2))
REPS = 10_000
Z = stats.norm.ppf(0.975)


def ours():
    return [coverage("diff_wald", design="unpaired", n1=a, n2=b, p1=p, p2=q, reps=REPS, seed=1).coverage
            for a, b, p, q in POINTS]


def loop():
    rng = np.random.default_rng(1)
    out = []
    for a, b, p, q in POINTS:
        h1, h2 = rng.binomial(a, p, REPS) / a, rng.binomial(b, q, REPS) / b
        half = Z * np.sqrt(h1 * (1 - h1) / a + h2 * (1 - h2) / b)
        d = h1 - h2
        out.append(np.mean((d - half <= p - q) & (p - q <= d + half)))
    return out


if __name__ == "__main__":
    best = {"covstudy": np.inf, "loop": np.inf}
    for _ in range(3):
        for name, fn in (("covstudy", ours), ("loop", loop)):
            c = time.process_time()
            result = fn()
            best[name] = min(best[name], time.process_time() - c)
            if name == "covstudy":
                a = np.array(result)
            else:
                b = np.array(result)
    print(f"{len(POINTS)} points x {REPS:,} pairs: covstudy {best['covstudy']:.2f} CPU-s, "
          f"numpy loop {best['loop']:.2f} CPU-s ({best['loop'] / best['covstudy']:.1f}x); "
          f"mean |coverage difference| {np.mean(np.abs(a - b)):.4f} (independent draws)")
