"""The clustered design's costs: the exact convolution against m·s, and one Monte Carlo point per method.

Run: PYTHONPATH=src python benchmarks/clustered.py
Prints wall and CPU seconds (best of 3 for the exact engine).
"""

import time

from covstudy import coverage
from covstudy.designs.clustered import total_pmf


def timed(call, repeat=1):
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


print("exact total pmf (m-fold beta-binomial convolution), best of 3")
for m, s in [(20, 20), (100, 20), (250, 20), (500, 20), (1000, 20)]:
    wall, cpu = timed(lambda: total_pmf(m, s, 0.9, 0.1), repeat=3)
    print(f"  m = {m:5d}, s = {s}: n = {m * s:6d}  wall {wall:7.4f} s  cpu {cpu:7.4f} s")

point = {"design": "clustered", "clusters": 20, "cluster_size": 20, "p": 0.9, "icc": 0.1}
print(f"one Monte Carlo point, reps = 4000, {point}")
for name, params in [("wilson", {}), ("wilson_vif", {}), ("scas_vif", {}), ("ratio_wald", {}),
                     ("cluster_bootstrap", {"draws": 500}), ("wilson_deff", {})]:
    wall, cpu = timed(lambda: coverage(name, **point, reps=4000, seed=1, **params))
    print(f"  {name:18s} wall {wall:7.3f} s  cpu {cpu:7.3f} s")
