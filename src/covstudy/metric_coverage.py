"""Coverage of an interval method for a classifier metric under a confusion-matrix design.

Designs (designs.py): ``iid`` draws each of the n examples' cell independently, i.e. the
confusion matrix ~ Multinomial(n; π_TP, π_FN, π_FP, π_TN) (metrics.py); ``stratified`` fixes
n_pos = round(n·prevalence) (kept in [1, n - 1]) and n_neg = n - n_pos, with TP ~ Bin(n_pos, tpr),
TN ~ Bin(n_neg, tnr). The truth is the metric at (prevalence, tpr, tnr), with prevalence
n_pos/n for the stratified design. The measures are those of measures.py:

    exact:       Σ_outcomes P(outcome) · 1[L(outcome) <= truth <= U(outcome)], etc.
    Monte Carlo: the same sum over ``reps`` simulated test sets (frequencies).

Engines by method kind:

* ratio metrics and f1 with a binomial method: the interval depends on (k, l) only.
  Exact iid enumerates the (n + 1)(n + 2)/2 values of (k, l) ~ Multinomial (n <= RATIO_IID_EXACT_LIMIT);
  exact stratified the (n_pos + 1)(n_neg + 1) values of (TP, TN) (<= balanced.TABLE_LIMIT).
* balanced accuracy: balanced.point_measures (exact iid for n <= balanced.IID_EXACT_LIMIT).
* F1 methods (f1_delta, f1_bayes, f1_bootstrap): Monte Carlo only. Every simulated test set
  gets its own interval; the posterior/bootstrap draws come from a stream keyed by the point
  and the method, so they are reproducible and independent of the other methods.

Monte Carlo test sets come from the design point's stream (designs.iid_counts /
stratified_counts), shared by every metric and method at the point. Coverage is over all
``reps`` test sets (a zero denominator gives [0, 1], which covers); ``n_valid`` counts those
whose metric has a non-zero denominator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import balanced, designs, validate
from .measures import measures
from .methods import SIDES, get, side_message
from .methods.f1 import get_f1, validate_f1_params
from .metrics import cell_probabilities, check_metric, method_kind, ratio_bounds, ratio_counts, truth
from .seeds import stream

DESIGNS = ("iid", "stratified")
RATIO_IID_EXACT_LIMIT = 2000  # exact iid ratio metrics: (n + 1)(n + 2)/2 ≈ 2 million outcomes


@dataclass(frozen=True)
class MetricCoverageResult:
    """Performance of one method for one metric at one design point."""

    metric: str
    method: str
    design: str  # "iid" or "stratified"
    n: int
    n_pos: int | None  # stratified class sizes (None for iid)
    n_neg: int | None
    prevalence: float  # as given; the stratified truth uses n_pos/n
    tpr: float
    tnr: float
    truth: float
    delta: float
    engine: str  # "exact" or "mc"
    reps: int | None
    seed: int | None
    coverage: float
    mcse: float
    miss_low: float  # P(truth < lower)
    miss_high: float  # P(truth > upper)
    mean_width: float
    sd_width: float
    n_valid: int | None  # MC test sets with a non-zero denominator (BA: both classes non-empty); None if exact
    side: str = "two-sided"
    params: dict = field(default_factory=dict)


def point_truth(metric: str, design: str, n: int, prevalence: float, tpr: float, tnr: float) -> float:
    """The metric's truth at a design point (stratified: prevalence n_pos/n)."""
    if design == "stratified":
        prevalence = designs.class_sizes(n, prevalence)[0] / n
    return float(truth(metric, prevalence, tpr, tnr))


def point_measures(metric: str, method: str, params: dict, design: str, n: int, prevalence: float,
                   tpr: float, tnr: float, delta: float, side: str, reps: int | None, seed: int | None) -> dict:
    """Measures (and n_valid) of ``method`` for ``metric`` at one design point; arguments validated.

    The runner's hook: ``params`` complete, ``reps=None`` exact.
    """
    kind = method_kind(metric, method)
    if kind == "f1":
        params = validate_f1_params(method, params)  # whole-number draws: the same stream from every caller
    t = point_truth(metric, design, n, prevalence, tpr, tnr)
    n_pos, n_neg = designs.class_sizes(n, prevalence) if design == "stratified" else (None, None)
    if kind == "balanced":
        sizes = (n_pos, n_neg) if design == "stratified" else (n, prevalence)
        return balanced.point_measures(method, design, sizes, tpr, tnr, delta, reps, seed)
    if reps is None:
        if design == "iid":
            p_k, p_l = ratio_counts(metric, cell_probabilities(prevalence, tpr, tnr))
            k, l, weight = designs.ratio_pmf(n, float(p_k), float(p_l))
        else:
            weight = designs.stratified_pmf(n_pos, n_neg, tpr, tnr).ravel()
            tp, tn = np.indices((n_pos + 1, n_neg + 1)).reshape(2, -1)
            k, l = ratio_counts(metric, {"tp": tp, "fn": n_pos - tp, "fp": n_neg - tn, "tn": tn})
        lower, upper = ratio_bounds(metric, method, k, l, delta, side, **params)
        result = _measures(weight, lower, upper, t, None)
        result["n_valid"] = None
        return result
    if design == "iid":
        outcomes = designs.iid_counts(n, prevalence, tpr, tnr, reps, seed)
        where = {"design": "iid", "n": n, "prevalence": prevalence, "tpr": tpr, "tnr": tnr}
    else:
        outcomes = designs.stratified_counts(n_pos, n_neg, tpr, tnr, reps, seed)
        where = {"design": "stratified", "n_pos": n_pos, "n_neg": n_neg, "tpr": tpr, "tnr": tnr}
    cells = designs.confusion(outcomes)
    count = outcomes.weight
    if kind == "binomial":
        k, l = ratio_counts(metric, cells)
        lower, upper = ratio_bounds(metric, method, k, l, delta, side, **params)
        weight = count / reps
    else:  # one interval per simulated test set, each with its own draws
        cells = {c: np.repeat(v, count) for c, v in cells.items()}
        k, l = ratio_counts(metric, cells)
        rng = stream(seed, **where, purpose="f1 draws", method=method, **params)
        lower, upper = get_f1(method).kernel(cells["tp"], cells["fn"], cells["fp"], cells["tn"], delta,
                                             rng=rng, **params)
        weight, count = np.full(k.size, 1 / reps), np.ones(k.size, dtype=np.int64)
    result = _measures(weight, lower, upper, t, reps)
    result["n_valid"] = int(np.sum(count[(k + l) > 0]))
    return result


def _measures(weight, lower, upper, t, reps) -> dict:
    return {name: float(v) for name, v in measures(weight, lower, upper, t, reps).items()}


def metric_coverage(metric: str, method: str, n: int, prevalence: float, tpr: float, tnr: float,
                    design: str = "iid", delta: float = 0.05, reps: int | None = None,
                    seed: int | None = None, side: str = "two-sided", **params) -> MetricCoverageResult:
    """Coverage, miss rates and width of ``method``'s 1 - delta interval for ``metric``.

    A test set of ``n`` examples with positive ``prevalence`` in (0, 1) and class accuracies
    ``tpr``, ``tnr`` (numbers in [0, 1]); ``design`` "iid" or "stratified" (module docstring).
    ``reps=None`` is exact (ratio metrics and f1 with binomial methods: iid n <= 2000;
    balanced accuracy: see balanced_coverage); an integer ``reps`` is Monte Carlo from
    ``seed`` (fresh entropy, recorded, if None). F1 methods need ``reps``. ``side`` applies to
    binomial methods; ``params`` are the method's parameters (e.g. ``draws=1000`` for f1_bayes).
    """
    kind = method_kind(check_metric(metric), method)
    if side not in SIDES:
        raise ValueError(side_message(side))
    if kind != "binomial" and side != "two-sided":
        raise ValueError(f"side: {metric} method {method!r} has two-sided intervals only, got {side!r}")
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {', '.join(DESIGNS)}, got {design!r}")
    if kind == "binomial":
        params = get(method).validate_params(params)
    elif kind == "f1":
        params = validate_f1_params(method, params)
    elif params:
        raise ValueError(f"{method}: unknown parameter {next(iter(params))!r}; valid parameters: none")
    n = int(validate.counts("n", validate.scalar("n", n), minimum=2 if design == "stratified" else 1))
    q = float(validate.unit_interval("prevalence", validate.scalar("prevalence", prevalence), open_=True))
    tpr = float(validate.unit_interval("tpr", validate.scalar("tpr", tpr), open_=False))
    tnr = float(validate.unit_interval("tnr", validate.scalar("tnr", tnr), open_=False))
    d = float(validate.delta(validate.scalar("delta", delta)))
    reps, seed = validate.reps_and_seed(reps, seed)
    _check_engine(metric, kind, design, n, q, reps)
    result = point_measures(metric, method, params, design, n, q, tpr, tnr, d, side, reps, seed)
    n_pos, n_neg = designs.class_sizes(n, q) if design == "stratified" else (None, None)
    name = get(method).name if kind == "binomial" else method  # canonical name of an alias
    return MetricCoverageResult(metric, name, design, n, n_pos, n_neg, q, tpr, tnr,
                                point_truth(metric, design, n, q, tpr, tnr), d,
                                "exact" if reps is None else "mc", reps, seed, **result, side=side, params=params)


def _check_engine(metric, kind, design, n, prevalence, reps):
    if reps is None:
        if kind == "f1":
            raise ValueError("reps: F1 methods have Monte Carlo coverage only; give reps (e.g. reps=2000)")
        if design == "iid" and kind == "binomial" and n > RATIO_IID_EXACT_LIMIT:
            raise ValueError(f"n: exact iid coverage of {metric} needs n <= {RATIO_IID_EXACT_LIMIT}, got {n}; "
                             f"use Monte Carlo (reps=...)")
        if design == "iid" and kind == "balanced" and n > balanced.IID_EXACT_LIMIT:
            raise ValueError(f"n: exact iid coverage of balanced_accuracy needs n <= {balanced.IID_EXACT_LIMIT}, "
                             f"got {n}; use Monte Carlo (reps=...)")
        if design == "stratified":
            n_pos, n_neg = designs.class_sizes(n, prevalence)
            cells = (n_pos + 1) * (n_neg + 1)
            if cells > balanced.TABLE_LIMIT:
                raise ValueError(f"n: exact stratified coverage needs (n_pos + 1)(n_neg + 1) <= "
                                 f"{balanced.TABLE_LIMIT:,} outcomes, got {cells:,}; use Monte Carlo (reps=...)")
    elif design == "iid" and n > balanced.IID_MC_LIMIT:
        raise ValueError(f"n: iid Monte Carlo needs n <= {balanced.IID_MC_LIMIT:,}, got {n:,}")
