"""The audit at the plug-in point only: Monte Carlo coverage of a method on the design fitted to the data.

For the grouped metrics ``clustered_precision``, ``clustered_recall``, ``clustered_f1``
(design ``clustered_confusion``), ``clustered_auc`` (``clustered_binormal``) and two eval runs'
``eval_accuracy_difference`` (``paired_eval``), whose test sets
(per-cluster counts, or scores with cluster ids) cannot be enumerated and whose region would have
five or more coordinates: the coverage is estimated at the operating point the data estimate
(``Spec.points[0]``, built in ``metrics``), with the same seed for every method (common random
numbers), and reported as both the coverage at the estimate and the worst (``audit`` = "plug-in":
no region searched). Test sets: at most PLUG_IN_REPS, at most SCORE_BUDGET/n for the AUC (each
test set ranks n scores; SCORE_MIN_REPS for the naive DeLong row, whose coverage only shows how far
the i.i.d. interval falls short); a bootstrap is audited with at most BOOT_REPS test sets of AUDIT_DRAWS
resamples each (its interval on the data uses the method's default draws; fewer resamples make
the percentile ends noisier, so the audit errs low if at all). Flow: metrics -> audit (dispatches
here for a spec with ``plug_in_only``) -> recommend.
"""

from __future__ import annotations

import numpy as np

PLUG_IN_REPS = 2000  # Monte Carlo test sets of a deterministic method (MCSE ≈ 0.005 at 0.95), as audit.REPS
SCORE_BUDGET = 4_000_000  # AUC: test sets × scores (400 test sets of 10,000 scores), audit.AUC_BUDGET's value
# (audit dispatches here: importing it back would close an import circle)
SCORE_MIN_REPS = 200
BOOTSTRAP = {"cluster_bootstrap", "bootstrap"}  # the clustered designs' and the paired eval's (over groups)
BOOT_REPS = 200  # test sets for a cluster bootstrap (MCSE ≈ 0.015 at 0.95) ...
AUDIT_DRAWS = 200  # ... each with this many resamples
BOOT_WORK = 100_000_000  # test sets × draws × numbers resampled a draw, at most (fewer test sets beyond)
BOOT_MIN_REPS = 50  # below: not audited


def examples(point: dict) -> int:
    if "clusters" not in point:  # the paired eval design: answers
        return int(point["questions"] * point["answers"])
    return int(point["clusters"] * point["cluster_size"])


def plug_in_reps(method: str, design: str, point: dict, reps: int) -> tuple[int | None, dict]:
    """(test sets, the method's parameters) of a plug-in audit (module docstring); None: too costly to audit."""
    n = examples(point)
    if method in BOOTSTRAP:
        # a resample sums y and x a cluster (a difference and a size a group in the paired eval)
        size = n if design == "clustered_binormal" else 2 * point.get("clusters", point.get("groups", 0))
        r = min(int(reps), BOOT_REPS, BOOT_WORK // (AUDIT_DRAWS * size))
        return (r if r >= BOOT_MIN_REPS else None), {"draws": AUDIT_DRAWS}
    if design == "clustered_binormal":
        budget = SCORE_MIN_REPS if method == "delong" else max(SCORE_MIN_REPS, SCORE_BUDGET // n)  # the naive baseline
        return int(min(reps, PLUG_IN_REPS, budget)), {}
    return int(min(reps, PLUG_IN_REPS)), {}


def audit_plug_in(s, method, qualified, delta, reps, seed) -> dict:
    """The audit columns of one metric × method: Monte Carlo coverage at ``s.points[0]`` on ``s.design``."""
    from ..engine.coverage import coverage

    point = s.points[0]
    r, params = plug_in_reps(method, s.design, point, reps)
    if r is None:
        return {"note": f"not audited: {BOOT_MIN_REPS} test sets of {AUDIT_DRAWS} resamples would pass "
                        f"{BOOT_WORK:.0e} resampled numbers (evaluation.plug_in.BOOT_WORK)"}
    cov, mcse, width, engine = mc_coverage(s, qualified, delta, r, seed, params)
    return {"coverage_at_estimate": cov, "coverage_mcse": mcse, "worst_coverage": cov, "worst_mcse": mcse,
            "worst_bound": np.nan, "worst_at": "", "mean_width": width, "engine": engine, "reps": r,
            "audit": "plug-in"}


def piece_reps(s, params) -> int:
    """The most test sets the engine holds at once at the plug-in point (``engine.core.mc_bytes``: the clustered
    designs keep every test set and a method's draws, MC_BYTES_PER_NUMBER a number, within
    validate.MC_BYTES_MAX); 0: not one."""
    from .. import validate
    from ..designs import get_design
    from ..engine.core import MC_BYTES_PER_NUMBER

    numbers = get_design(s.design).test_set_numbers(s.points[0])
    return max(int(validate.MC_BYTES_MAX // (MC_BYTES_PER_NUMBER * numbers)) - params.get("draws", 0), 0)


def mc_coverage(s, qualified, delta, reps, seed, params) -> tuple[float, float, float, str]:
    """(coverage, MCSE, mean width, engine) of ``reps`` test sets at the plug-in point: one call where the engine
    holds them all at once, else (its memory check refuses them: a 10⁶-row grouped file's test sets take 10-60 MB
    each, 250 of them GBs) pooled over pieces of ``piece_reps``, piece i drawn from seed·1000 + i (as
    ``audit._batch``): c = Σ r_i·c_i / Σ r_i, MCSE = sqrt(Σ r_i²·MCSE_i²) / Σ r_i, the width likewise averaged.
    The memory stays within the engine's limit; the time is the test sets' (``cost`` forecasts them)."""
    from ..engine.coverage import coverage

    def one(r, at_seed):
        res = coverage(qualified, design=s.design, metric=s.coverage_metric, delta=delta, reps=r, seed=at_seed,
                       **s.points[0], **params)
        return *(float(np.atleast_1d(getattr(res, a))[0]) for a in ("coverage", "mcse", "mean_width")), res.engine

    try:
        return one(reps, seed)
    except ValueError as e:  # the engine's memory check, before any work
        piece = piece_reps(s, params)
        if not str(e).startswith("reps: Monte Carlo") or not 0 < piece < reps:  # not one test set fits: its error
            raise
    total, weighted, variance, wide, engine = 0, 0.0, 0.0, 0.0, "mc"
    for i, start in enumerate(range(0, reps, piece)):
        size = min(piece, reps - start)
        cov, se, width, engine = one(size, seed * 1000 + i)
        total, weighted, variance, wide = total + size, weighted + size * cov, variance + (size * se) ** 2, \
            wide + size * width
    return weighted / total, float(np.sqrt(variance)) / total, wide / total, engine
