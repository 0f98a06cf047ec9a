"""CPU and wall seconds of the binormal design's simulation and of every AUC method on 1000
simulated test sets, n_pos = n_neg in {10, 100, 500}, continuous and 5-level scores.

Run: PYTHONPATH=src python benchmarks/auc.py [reps]
"""

import sys
import time

import numpy as np

from covstudy.designs.binormal import binormal_scores
from covstudy.methods import auc_methods

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000


def timed(f, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    f(*args, **kwargs)
    return time.process_time() - cpu, time.perf_counter() - wall


print(f"{reps} test sets per row: CPU s / wall s (the bootstrap with draws = 500)")
for levels in (0, 5):
    for size in (10, 100, 500):
        out = {}
        out["simulate"] = timed(binormal_scores, size, size, 0.9, 1.0, levels, reps, 1)
        pos, neg = binormal_scores(size, size, 0.9, 1.0, levels, reps, 1)
        for name, m in auc_methods().items():
            params = {"draws": 500} if name == "bootstrap" else {}
            out[name] = timed(m.bounds, (pos, neg), 0.05, rng=np.random.default_rng(1), **params)
        cells = "  ".join(f"{k} {c:.3f}/{w:.3f}" for k, (c, w) in out.items())
        print(f"levels {levels} n_pos = n_neg = {size:4d}: {cells}")
