"""Coverage of a balanced-accuracy interval method: exact by enumeration, or by Monte Carlo.

Truth BA = (tpr + tnr)/2. An outcome is (n_pos, k_pos, n_neg, k_neg) (see designs.py) and
the measures are those of measures.py over the outcome distribution, flattened:

    exact:       C = Σ_outcomes P(outcome) · 1[L(outcome) <= BA <= U(outcome)]
    Monte Carlo: the same sum with P replaced by frequencies over ``reps`` simulated test sets.

Where the intervals come from:

* stratified design: the table of intervals over all (k_pos, k_neg) is computed once per
  (method, n_pos, n_neg, delta) by ``balanced_table`` (cached) and reused for every truth,
  by both engines. Tables have at most TABLE_LIMIT cells; beyond that the exact engine
  refuses and Monte Carlo evaluates the method on the simulated outcomes only.
* iid design, exact: all ~n³/6 outcomes, one cached table per class size n_pos
  (n <= IID_EXACT_LIMIT).
* iid design, Monte Carlo: the method is evaluated directly on the distinct simulated
  outcomes (many class sizes each need a few cells only, so whole tables would be waste).

Every method returns an interval for an empty class too, so Monte Carlo coverage is over all
``reps`` test sets; ``n_valid`` reports how many had both classes non-empty.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from . import designs, validate
from .measures import measures
from .methods.balanced import get_balanced

DESIGNS = ("stratified", "iid")
TABLE_LIMIT = 1_000_000  # cells (n_pos + 1)(n_neg + 1) of one interval table, e.g. 999 x 999
IID_EXACT_LIMIT = 200  # largest n for the exact iid engine (~n³/6 = 1.4 million outcomes)
IID_MC_LIMIT = 1_000_000  # largest n for the iid Monte Carlo engine (outcomes are int64 keys)
_CACHE_CELLS = 20_000_000  # the table cache keeps at most this many cells (~320 MB)


@dataclass(frozen=True)
class BalancedCoverageResult:
    """Performance of one BA method at one design point; measures are arrays when tpr/tnr are."""

    method: str
    design: str  # "stratified" or "iid"
    n_pos: int | None  # class sizes (stratified; None for iid)
    n_neg: int | None
    n: int  # test-set size (n_pos + n_neg for stratified)
    prevalence: float | None  # positive prevalence (iid; None for stratified)
    tpr: float | np.ndarray
    tnr: float | np.ndarray
    truth: float | np.ndarray  # (tpr + tnr)/2
    delta: float
    engine: str  # "exact" or "mc"
    reps: int | None
    seed: int | None
    coverage: float | np.ndarray
    mcse: float | np.ndarray
    miss_low: float | np.ndarray  # P(BA < lower)
    miss_high: float | np.ndarray  # P(BA > upper)
    mean_width: float | np.ndarray
    sd_width: float | np.ndarray
    n_valid: int | np.ndarray | None  # MC test sets with both classes non-empty (None for exact)


# ---------------------------------------------------------------------------------------------
# Interval tables (runner hooks).

_TABLES: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()


def balanced_table(method: str, n_pos: int, n_neg: int, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Intervals of every outcome: ``lower[k_pos, k_neg]``, ``upper[k_pos, k_neg]``, shape (n_pos + 1, n_neg + 1).

    Cached per (method, n_pos, n_neg, delta) (least recently used tables are dropped beyond
    20 million cells); the arrays are read-only.
    """
    m = get_balanced(method)
    _, n_pos, _, n_neg = (int(v) for v in validate.class_counts(0, n_pos, 0, n_neg))
    d = float(validate.delta(delta))
    cells = (n_pos + 1) * (n_neg + 1)
    if cells > TABLE_LIMIT:
        raise ValueError(f"n_pos, n_neg: a table has (n_pos + 1)(n_neg + 1) <= {TABLE_LIMIT:,} cells, "
                         f"got {cells:,}")
    key = (m.name, n_pos, n_neg, d)
    if key in _TABLES:
        _TABLES.move_to_end(key)
        return _TABLES[key]
    k_pos, k_neg = np.indices((n_pos + 1, n_neg + 1))
    lower, upper = (np.asarray(v, dtype=float) for v in m.kernel(k_pos, n_pos, k_neg, n_neg, d))
    lower.setflags(write=False)
    upper.setflags(write=False)
    _TABLES[key] = (lower, upper)
    while sum(t[0].size for t in _TABLES.values()) > _CACHE_CELLS and len(_TABLES) > 1:
        _TABLES.popitem(last=False)
    return lower, upper


def outcome_intervals(method: str, outcomes: designs.Outcomes, delta: float,
                      tables: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Intervals of flat ``outcomes``: looked up in ``balanced_table`` per class size if ``tables``,
    else by calling the method on the outcomes themselves."""
    m = get_balanced(method)
    if not tables:
        return m.kernel(outcomes.k_pos, outcomes.n_pos, outcomes.k_neg, outcomes.n_neg, delta)
    lower = np.empty(outcomes.k_pos.size)
    upper = np.empty(outcomes.k_pos.size)
    order = np.argsort(outcomes.n_pos, kind="stable")
    sizes, starts = np.unique(outcomes.n_pos[order], return_index=True)
    for n_pos, idx in zip(sizes, np.split(order, starts[1:])):
        n_neg = int(outcomes.n_neg[idx[0]])
        table_lower, table_upper = balanced_table(m.name, int(n_pos), n_neg, delta)
        lower[idx] = table_lower[outcomes.k_pos[idx], outcomes.k_neg[idx]]
        upper[idx] = table_upper[outcomes.k_pos[idx], outcomes.k_neg[idx]]
    return lower, upper


def outcome_measures(lower, upper, outcomes: designs.Outcomes, truth: float, reps: int | None) -> dict:
    """measures.measures of flat outcomes; weights are probabilities (reps None) or counts out of reps."""
    weight = outcomes.weight if reps is None else outcomes.weight / reps
    result = {name: float(v) for name, v in measures(weight, lower, upper, truth, reps).items()}
    valid = (outcomes.n_pos > 0) & (outcomes.n_neg > 0)
    result["n_valid"] = None if reps is None else int(np.sum(outcomes.weight[valid]))
    return result


# ---------------------------------------------------------------------------------------------
# Public API.


def balanced_coverage(method: str, tpr, tnr, n_pos: int | None = None, n_neg: int | None = None,
                      n: int | None = None, prevalence: float | None = None, design: str = "stratified",
                      delta: float = 0.05, reps: int | None = None,
                      seed: int | None = None) -> BalancedCoverageResult:
    """Coverage, miss rates and width of ``method``'s 1 - delta interval for BA = (tpr + tnr)/2.

    ``design="stratified"`` takes class sizes ``n_pos``, ``n_neg`` (>= 1); ``design="iid"``
    takes the test-set size ``n`` and the positive ``prevalence``. ``tpr`` and ``tnr`` are
    numbers or 1-d arrays broadcasting together. ``reps=None`` is exact (stratified: tables up
    to TABLE_LIMIT cells; iid: n <= IID_EXACT_LIMIT); an integer ``reps`` is Monte Carlo with
    one stream per (design point, tpr, tnr) from ``seed`` (fresh entropy, recorded, if None).
    """
    m = get_balanced(method)
    sizes = _design_sizes(design, n_pos, n_neg, n, prevalence)
    tpr_arr = validate.unit_interval("tpr", tpr, open_=False)
    tnr_arr = validate.unit_interval("tnr", tnr, open_=False)
    if tpr_arr.ndim > 1 or tnr_arr.ndim > 1:
        raise ValueError(f"tpr and tnr must be numbers or 1-d arrays, got shapes {tpr_arr.shape} and {tnr_arr.shape}")
    try:
        tpr_vec, tnr_vec = np.broadcast_arrays(np.atleast_1d(tpr_arr), np.atleast_1d(tnr_arr))
    except ValueError:
        raise ValueError(f"tpr and tnr must broadcast together, got shapes {tpr_arr.shape} and {tnr_arr.shape}") from None
    d = float(validate.delta(validate.scalar("delta", delta)))
    reps, seed = validate.reps_and_seed(reps, seed)
    _check_engine(design, sizes, reps)

    rows = [point_measures(m.name, design, sizes, float(t1), float(t0), d, reps, seed) for t1, t0 in zip(tpr_vec, tnr_vec)]
    scalar = tpr_arr.ndim == 0 and tnr_arr.ndim == 0
    result = {name: (rows[0][name] if scalar else np.array([r[name] for r in rows])) for name in rows[0]}
    truth = (tpr_vec + tnr_vec) / 2
    if scalar:
        tpr_out, tnr_out, truth_out = float(tpr_arr), float(tnr_arr), float(truth[0])
    else:
        tpr_out, tnr_out, truth_out = tpr_vec, tnr_vec, truth
    if design == "stratified":
        n_pos, n_neg = sizes
        n_total, prev = n_pos + n_neg, None
    else:
        n_pos = n_neg = None
        n_total, prev = sizes
    return BalancedCoverageResult(m.name, design, n_pos, n_neg, n_total, prev, tpr_out, tnr_out, truth_out, d,
                                  "exact" if reps is None else "mc", reps, seed, **result)


def point_measures(method, design, sizes, tpr, tnr, delta, reps, seed) -> dict:
    """Measures of ``method`` at one design point (sizes: (n_pos, n_neg) or (n, prevalence)) and truth (tpr, tnr)."""
    truth = (tpr + tnr) / 2
    if design == "stratified":
        n_pos, n_neg = sizes
        small = (n_pos + 1) * (n_neg + 1) <= TABLE_LIMIT
        if reps is None:
            lower, upper = balanced_table(method, n_pos, n_neg, delta)
            pmf = designs.stratified_pmf(n_pos, n_neg, tpr, tnr).ravel()
            k_pos, k_neg = np.indices(lower.shape).reshape(2, -1)
            outcomes = designs.Outcomes(np.full_like(k_pos, n_pos), k_pos, np.full_like(k_pos, n_neg), k_neg, pmf)
            return outcome_measures(lower.ravel(), upper.ravel(), outcomes, truth, None)
        outcomes = designs.stratified_counts(n_pos, n_neg, tpr, tnr, reps, seed)
        lower, upper = outcome_intervals(method, outcomes, delta, tables=small)
        return outcome_measures(lower, upper, outcomes, truth, reps)
    n, prevalence = sizes
    if reps is None:
        outcomes = designs.iid_pmf(n, prevalence, tpr, tnr)
        lower, upper = outcome_intervals(method, outcomes, delta, tables=True)
        return outcome_measures(lower, upper, outcomes, truth, None)
    outcomes = designs.iid_counts(n, prevalence, tpr, tnr, reps, seed)
    lower, upper = outcome_intervals(method, outcomes, delta, tables=False)
    return outcome_measures(lower, upper, outcomes, truth, reps)


def _design_sizes(design, n_pos, n_neg, n, prevalence) -> tuple:
    if design == "stratified":
        if n is not None or prevalence is not None:
            raise ValueError("design='stratified' takes n_pos and n_neg, not n or prevalence (use design='iid')")
        if n_pos is None or n_neg is None:
            raise ValueError("design='stratified' needs both n_pos and n_neg (whole numbers >= 1)")
        return (int(validate.counts("n_pos", validate.scalar("n_pos", n_pos), minimum=1)),
                int(validate.counts("n_neg", validate.scalar("n_neg", n_neg), minimum=1)))
    if design == "iid":
        if n_pos is not None or n_neg is not None:
            raise ValueError("design='iid' takes n and prevalence, not n_pos or n_neg (use design='stratified')")
        if n is None or prevalence is None:
            raise ValueError("design='iid' needs both n (whole number >= 1) and prevalence in (0, 1)")
        return (int(validate.counts("n", validate.scalar("n", n), minimum=1)),
                float(validate.unit_interval("prevalence", validate.scalar("prevalence", prevalence), open_=True)))
    raise ValueError(f"design must be one of {DESIGNS}, got {design!r}")


def _check_engine(design, sizes, reps):
    if design == "stratified" and reps is None:
        cells = (sizes[0] + 1) * (sizes[1] + 1)
        if cells > TABLE_LIMIT:
            raise ValueError(f"n_pos, n_neg: exact coverage needs (n_pos + 1)(n_neg + 1) <= {TABLE_LIMIT:,} "
                             f"outcomes, got {cells:,}; use Monte Carlo (reps=...)")
    if design == "iid" and reps is None and sizes[0] > IID_EXACT_LIMIT:
        raise ValueError(f"n: exact iid coverage needs n <= {IID_EXACT_LIMIT} (~n³/6 outcomes), "
                         f"got {sizes[0]}; use Monte Carlo (reps=...)")
    if design == "iid" and reps is not None and sizes[0] > IID_MC_LIMIT:
        raise ValueError(f"n: iid Monte Carlo needs n <= {IID_MC_LIMIT:,}, got {sizes[0]:,}")
