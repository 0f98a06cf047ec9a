"""Timings of the balanced-accuracy engine (run: PYTHONPATH=src python benchmarks/balanced.py)."""

import time

from covstudy import balanced_coverage
from covstudy.engine import core
from covstudy.designs import get_design
from covstudy.estimands import get_estimand
from covstudy.methods import get


def balanced_table(method, n_pos, n_neg, delta):
    """The interval table of class sizes (n_pos, n_neg), as the evaluation core builds and caches it."""
    a = core.Analysis(get(method), (), get_estimand("confusion", "balanced_accuracy"), delta, "two-sided",
                          None, None)
    return core.Evaluator(get_design("stratified")).table((n_pos, n_neg), a, {})


def timed(label, f):
    core.clear_cache()  # measure cold tables
    start = time.perf_counter()
    f()
    print(f"{label:<58} {time.perf_counter() - start:7.2f} s")


for method in ("ba_cp_union", "ba_wald", "ba_posterior", "ba_posterior_jeffreys"):
    timed(f"table {method} n_pos = n_neg = 100", lambda: balanced_table(method, 100, 100, 0.05))
timed("table ba_posterior n_pos = n_neg = 400", lambda: balanced_table("ba_posterior", 400, 400, 0.05))
timed("exact stratified ba_posterior 30/70, 1 truth", lambda: balanced_coverage("ba_posterior", 0.9, 0.8, n_pos=30, n_neg=70))
timed("exact iid ba_cp_union n=200 prevalence=0.5", lambda: balanced_coverage("ba_cp_union", 0.9, 0.8, n=200, prevalence=0.5, design="iid"))
timed("exact iid ba_posterior n=100 prevalence=0.3", lambda: balanced_coverage("ba_posterior", 0.9, 0.8, n=100, prevalence=0.3, design="iid"))
timed("mc iid ba_posterior n=1000 prevalence=0.1 reps=1e5", lambda: balanced_coverage("ba_posterior", 0.9, 0.8, n=1000, prevalence=0.1, design="iid", reps=100_000, seed=1))
timed("mc stratified ba_wald 30/70 reps=1e6", lambda: balanced_coverage("ba_wald", 0.9, 0.8, n_pos=30, n_neg=70, reps=1_000_000, seed=1))
