"""The public ``coverage()``: coverage, miss rates and width of an interval method under any design.

Exact:       C = Σ_outcomes P(outcome) · 1[L(outcome) <= truth <= U(outcome)]
             e.g. the binomial design: C(p) = Σ_{k=0..n} Binomial(k; n, p)·1[L(k) <= p <= U(k)]
             (Brown, Cai & DasGupta 2001, eq. 2)
Monte Carlo: the same sum with P replaced by the frequencies over ``reps`` simulated test
             sets; MCSE = sqrt(C(1 - C)/reps).

``balanced_coverage``, ``metric_coverage`` and ``multiclass_coverage`` are thin wrappers over
``coverage`` that give the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import validate
from ..designs import DESIGNS, Design, get_design
from ..estimands import get_estimand
from .core import Analysis, Evaluator, infeasible
from .measures import MEASURES, NULL_MEASURES


def _column(value, size):
    """An axis of the point(s) as ``size`` rows; a vector-valued axis of one point (multiclass
    ``prevalence``, ``rates``: tuples) is the same whole tuple in every row, not spread over them."""
    return [value] * size if isinstance(value, tuple) else np.broadcast_to(value, size)


@dataclass(frozen=True)
class CoverageResult:
    """Performance of one method at one or more design points.

    The measures (``result.coverage``, ``mcse``, ``miss_low``, ``miss_high``, ``mean_width``,
    ``sd_width``, ``n_valid``; for a difference of two classifiers also ``excludes_zero`` and
    ``excludes_zero_mcse``) and the point's axes (``result.n``, ``result.p``, ``result.tpr``,
    ...) are attributes; they are numbers, or arrays over the points when an axis was given as
    an array.
    ``miss_low`` = P(truth < lower), ``miss_high`` = P(truth > upper); ``n_valid`` counts the
    simulated test sets that carry information (None for exact).

    Examples
    --------
    >>> from covstudy import coverage
    >>> c = coverage("wilson", n=50, p=[0.1, 0.5], delta=0.05)
    >>> c.coverage.round(4), c.n, c.engine
    (array([0.9703, 0.9351]), 50, 'exact')
    >>> print(c.to_frame()[["p", "coverage"]].round(4).to_string(index=False))
      p  coverage
    0.1    0.9703
    0.5    0.9351
    """

    method: str
    design: str
    metric: str
    point: dict  # axis -> value (or array over the points)
    truth: float | np.ndarray
    delta: float
    side: str
    engine: str  # "exact" or "mc"
    reps: int | None  # simulated test sets (None for exact)
    seed: int | None  # study seed of the Monte Carlo streams (None for exact)
    params: dict = field(default_factory=dict)  # the method's parameters, defaults filled in
    measures: dict = field(default_factory=dict)  # measures.MEASURES and n_valid

    def __getattr__(self, name):
        for where in ("measures", "point"):
            values = self.__dict__.get(where, {})
            if name in values:
                return values[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def to_frame(self):
        """One row per point: method, design, metric, the axes, delta, side, engine, reps, seed, truth, measures."""
        import pandas as pd

        size = np.size(self.coverage)
        data = {"method": self.method, "design": self.design, "metric": self.metric,
                **{k: _column(v, size) for k, v in self.point.items()},
                "delta": self.delta, "side": self.side, "engine": self.engine, "reps": self.reps,
                "seed": self.seed, "truth": np.broadcast_to(self.truth, size)}
        data.update({m: np.broadcast_to(np.asarray(getattr(self, m), dtype=float), size)
                     for m in MEASURES + NULL_MEASURES if m in self.measures})
        data["n_valid"] = np.broadcast_to(np.asarray(self.n_valid, dtype=object), size)
        return pd.DataFrame(data, index=range(size))

    def __repr__(self) -> str:
        def show(v):
            v = np.asarray(v)
            if v.ndim == 0:
                return f"{v.item():g}" if isinstance(v.item(), (int, float)) else repr(v.item())
            return f"[{v.min():g} … {v.max():g}] ({v.size} values)"

        where = ", ".join(f"{k}={show(v)}" for k, v in self.point.items())
        how = "exact" if self.engine == "exact" else f"Monte Carlo, reps={self.reps}, seed={self.seed}"
        cov = show(self.coverage) if np.ndim(self.coverage) else f"{self.coverage:.4f} ± {self.mcse:.4f}"
        return (f"CoverageResult({self.method} for {self.metric}, {self.design} design at {where}, "
                f"delta={self.delta:g}, {self.side}, {how}: coverage {cov}, mean width {show(self.mean_width)})")


def coverage(method: str, n=None, p=None, delta: float = 0.05, reps: int | None = None, seed: int | None = 0,
             side: str = "two-sided", *, design: str = "binomial", metric: str | None = None,
             **point_and_params) -> CoverageResult:
    """Coverage, miss rates and width of ``method``'s 1 - delta interval at a design point.

    The one coverage door: ``balanced_coverage``, ``metric_coverage`` and
    ``multiclass_coverage`` are thin wrappers over it that give the same numbers.

    Parameters
    ----------
    method : str
        Named within its kind, which the design and metric give: ``coverage("tango",
        design="paired", ...)``, ``coverage("newcombe", design="unpaired", ...)`` (the
        difference method), ``coverage("newcombe", design="binormal", ...)`` (the AUC's).
        Qualified (``"paired.tango"``) and prefixed (``"paired_tango"``) names work too.
    n, p : int or float or 1-d array, optional
        The binomial design's axes (test-set size, true accuracy), positionally.
    delta : float
        The two-sided miss rate in (0, 1): the interval's level is 1 - delta.
    reps : int, optional
        None (default) computes exactly; an integer estimates from that many simulated test
        sets (each point has its own stream, so its numbers do not depend on the other points).
    seed : int, optional
        Seed of the Monte Carlo streams (default 0, fixed: the same call, the same numbers);
        None draws fresh entropy and records it in the result.
    side : {"two-sided", "lower", "upper"}
        A one-sided 1 - delta bound for proportion methods.
    design : str
        A registered design (``DESIGNS``: binomial, stratified, iid, unpaired, paired,
        multiclass, binormal, clustered, ...).
    metric : str, optional
        The estimand (default: the design's, e.g. accuracy for binomial, balanced accuracy for
        the confusion-matrix designs).
    **point_and_params
        The design's axes (stratified: ``n_pos``, ``n_neg`` or ``n``, ``prevalence``, and
        ``tpr``, ``tnr``; paired: ``n``, ``acc_first``, ``acc_second``, ``correlation``; ...),
        each a number or a 1-d array (arrays broadcast); other keywords are the method's
        parameters.

    Returns
    -------
    CoverageResult
        ``.coverage``, ``.mcse``, ``.miss_low``, ``.miss_high``, ``.mean_width``, ... and the
        point's axes as attributes: floats, or arrays over the points when an axis was an array.

    Examples
    --------
    >>> from covstudy import coverage
    >>> r = coverage("wilson", n=20, p=0.3)
    >>> round(r.coverage, 4), round(r.mean_width, 4)
    (0.9752, 0.3643)
    >>> coverage("wilson", n=[10, 20], p=0.3).coverage.round(4)
    array([0.9244, 0.9752])
    >>> round(coverage("tango", design="paired", n=30, acc_first=0.8, acc_second=0.7,
    ...                correlation=0.3).coverage, 4)
    0.9569
    >>> round(coverage("cp_union", design="stratified", n_pos=10, n_neg=20, tpr=0.9, tnr=0.8).coverage, 4)
    0.9996
    >>> r = coverage("wilson", n=20, p=0.3, reps=1000, seed=1)
    >>> round(r.coverage, 3), round(r.mcse, 3)
    (0.977, 0.005)
    """
    d = get_design(design)
    est = get_estimand(d.data, d.estimand if metric is None else metric)
    m = est.method(method)
    m.check_side(side)  # before the axes, whose names are told apart from the parameters next
    given = {**({"n": n} if n is not None else {}), **({"p": p} if p is not None else {}), **point_and_params}
    axes = {k: v for k, v in given.items() if k in {a.name for a in d.axes}}
    params = {k: v for k, v in given.items() if k not in axes}
    for key in params:
        if any(key in {a.name for a in other.axes} for other in DESIGNS.values()):
            raise ValueError(f"{key}: not an axis of design {d.name}; its axes are "
                             f"{' or '.join(', '.join(o) for o in d.parametrisations)}")
    params = m.validate_params(params)
    points, arrays = design_points(d, axes)
    scalar = not arrays
    delta = float(validate.delta(validate.scalar("delta", delta)))
    reps, seed = validate.reps_and_seed(reps, seed)
    analysis = Analysis(m, tuple(params.items()), est, delta, side, reps, seed)
    problem, pt = infeasible(d, points, analysis)
    if problem:
        mc_ok = reps is None and d.check(pt, False) is None
        raise ValueError(problem + ("; use Monte Carlo (reps=...)" if mc_ok else ""))
    # A repeated point is computed once and given to each of its places (its stream is keyed by
    # the point, so it is the same number either way).
    keys = [tuple(pt.items()) for pt in points]
    first = {key: i for i, key in reversed(list(enumerate(keys)))}
    distinct = sorted(set(first.values()))
    [out] = Evaluator(d).score([points[i] for i in distinct], [(analysis, list(range(len(distinct))))])
    if len(distinct) < len(points):
        at = np.searchsorted(distinct, [first[key] for key in keys])
        out = {k: v[at] for k, v in out.items()}
    if scalar:
        out = {k: (v[0] if k == "n_valid" else float(v[0])) for k, v in out.items()}
    point = {k: (np.array(v) if k in arrays or (k not in axes and len(set(v)) > 1) else v[0])
             for k, v in _columns(points).items()}
    return CoverageResult(m.name, d.name, est.name, point, out.pop("truth"), delta, side,
                          "exact" if reps is None else "mc", reps, seed, params, out)


def design_points(d, axes: dict) -> tuple[list[dict], list[str]]:
    """Validated axes (numbers or 1-d arrays, broadcast together) as a list of points, and
    the names of the axes given as arrays."""
    extra = set(axes) & set(d.optional)
    wanted = [o for o in d.parametrisations if set(o) == set(axes) - extra]
    if not wanted:
        options = " or ".join(", ".join(o) for o in d.parametrisations)
        optional = f" (optional: {', '.join(d.optional)})" if d.optional else ""
        raise ValueError(f"design {d.name} needs the axes {options}{optional}; got {', '.join(axes) or 'none'}")
    values = {}
    for name in [*wanted[0], *(a for a in d.optional if a in extra)]:
        arr = d.axis(name).values(axes[name])
        if arr.ndim > 1:
            raise ValueError(f"{name} must be a number or a 1-d array, got shape {arr.shape}")
        values[name] = arr
    arrays = [k for k, v in values.items() if v.ndim == 1]
    try:
        flat = np.broadcast_arrays(*(np.atleast_1d(v) for v in values.values()))
    except ValueError:
        names = ", ".join(arrays[:-1]) + f" and {arrays[-1]}"
        shapes = " and ".join(str(values[k].shape) for k in arrays)
        raise ValueError(f"{names} must broadcast together, got shapes {shapes}") from None
    columns = [(v if d.axis(k).choices else v.astype(np.int64) if d.axis(k).integer else v.astype(float)).tolist()
               for k, v in zip(values, flat)]
    if type(d).derive is Design.derive:  # nothing to derive: the given axes in column order (~3x faster)
        order = [list(values).index(a.name) for a in d.axes if a.name in values]
        names, columns = [list(values)[i] for i in order], [columns[i] for i in order]
        return [dict(zip(names, row)) for row in zip(*columns)], arrays
    points = [d.derive(dict(zip(values, row))) for row in zip(*columns)]
    return points, arrays


def _columns(points: list[dict]) -> dict[str, list]:
    return {k: [pt[k] for pt in points] for k in points[0]}


def balanced_coverage(method: str, tpr, tnr, n_pos: int | None = None, n_neg: int | None = None,
                      n: int | None = None, prevalence: float | None = None, design: str = "stratified",
                      delta: float = 0.05, reps: int | None = None, seed: int | None = 0) -> CoverageResult:
    """``coverage`` of a balanced-accuracy method: a thin wrapper over ``coverage(method,
    design=..., metric="balanced_accuracy", ...)`` that gives the same numbers.

    Parameters
    ----------
    method : str
        A balanced-accuracy method: its short name (``"cp_union"``), qualified
        (``"balanced.cp_union"``) or prefixed (``"ba_cp_union"``) name.
    tpr, tnr : float or 1-d array
        The true positive and true negative rates (the recall of each class).
    n_pos, n_neg : int or 1-d array, optional
        The class sizes, for ``design="stratified"``.
    n : int, optional
        The test-set size, for ``design="iid"``.
    prevalence : float, optional
        The positive share of the population, for ``design="iid"``.
    design : {"stratified", "iid"}
        Fixed class sizes, or one i.i.d. sample of size n (class sizes random).
    delta, reps, seed
        As for ``coverage``.

    Returns
    -------
    CoverageResult
        As ``coverage``.

    Examples
    --------
    >>> from covstudy import balanced_coverage
    >>> r = balanced_coverage("cp_union", tpr=0.9, tnr=0.8, n_pos=10, n_neg=20)
    >>> round(r.coverage, 4), r.method
    (0.9996, 'ba_cp_union')
    >>> round(balanced_coverage("wilson_union", tpr=0.9, tnr=0.8, n=30, prevalence=0.3, design="iid").coverage, 4)
    0.996
    """
    if design == "stratified":
        if n is not None or prevalence is not None:
            raise ValueError("design='stratified' takes n_pos and n_neg, not n or prevalence (use design='iid')")
        if n_pos is None or n_neg is None:
            raise ValueError("design='stratified' needs both n_pos and n_neg (whole numbers >= 1)")
        sizes = {"n_pos": n_pos, "n_neg": n_neg}
    elif design == "iid":
        if n_pos is not None or n_neg is not None:
            raise ValueError("design='iid' takes n and prevalence, not n_pos or n_neg (use design='stratified')")
        if n is None or prevalence is None:
            raise ValueError("design='iid' needs both n (whole number >= 1) and prevalence in (0, 1)")
        sizes = {"n": validate.scalar("n", n), "prevalence": validate.scalar("prevalence", prevalence)}
    else:
        raise ValueError(f"design must be one of stratified, iid, got {design!r}")
    return coverage(method, design=design, metric="balanced_accuracy", tpr=tpr, tnr=tnr, delta=delta, reps=reps,
                    seed=seed, **{k: validate.scalar(k, v) for k, v in sizes.items()})


def metric_coverage(metric: str, method: str, n: int, prevalence: float, tpr: float, tnr: float,
                    design: str = "iid", delta: float = 0.05, reps: int | None = None,
                    seed: int | None = 0, side: str = "two-sided", **params) -> CoverageResult:
    """``coverage`` of ``method``'s interval for ``metric`` under a confusion-matrix design
    ("iid" or "stratified"), at one point: a thin wrapper over ``coverage(method,
    design=design, metric=metric, n=..., prevalence=..., tpr=..., tnr=...)``.

    Parameters
    ----------
    metric : str
        A binary metric (``METRICS``: "accuracy", "precision", "recall", "f1", ...).
    method : str
        A method for that metric, by short name within its kind: a proportion method
        (``"wilson"``) for a metric that is a proportion, an F1 method (``"delta"``,
        ``"bootstrap"``, ``"f1.bayes"``) for F1.
    n : int
        The test-set size.
    prevalence, tpr, tnr : float
        The positive share, true positive rate and true negative rate.
    design : {"iid", "stratified"}
        One i.i.d. sample of size n, or fixed class sizes n·prevalence and n·(1 - prevalence).
    delta, reps, seed, side
        As for ``coverage``.
    **params
        The method's parameters (e.g. ``draws``).

    Returns
    -------
    CoverageResult
        As ``coverage``; ``.truth`` is the metric's true value.

    Examples
    --------
    >>> from covstudy import metric_coverage
    >>> round(metric_coverage("precision", "wilson", n=20, prevalence=0.4, tpr=0.8, tnr=0.7).coverage, 4)
    0.9577
    >>> r = metric_coverage("f1", "delta", n=20, prevalence=0.4, tpr=0.8, tnr=0.7)
    >>> round(r.coverage, 4), round(r.truth, 4)
    (0.9146, 0.7111)
    """
    if design not in ("iid", "stratified"):
        raise ValueError(f"design must be one of iid, stratified, got {design!r}")
    axes = {k: validate.scalar(k, v) for k, v in
            (("n", n), ("prevalence", prevalence), ("tpr", tpr), ("tnr", tnr))}
    return coverage(method, design=design, metric=metric, delta=delta, reps=reps, seed=seed, side=side,
                    **axes, **params)


def multiclass_coverage(metric: str, method: str, n: int, prevalence, rates, design: str = "multiclass",
                        delta: float = 0.05, reps: int | None = None, seed: int | None = 0,
                        side: str = "two-sided", **params) -> CoverageResult:
    """``coverage`` of ``method``'s interval for a multi-class ``metric`` at a full confusion
    structure. The simple axes (K, recall, imbalance) go through ``coverage(...,
    design="multiclass")`` instead.

    Parameters
    ----------
    metric : str
        A multi-class metric (``MULTICLASS_METRICS``: "macro_recall", "macro_f1", ...).
    method : str
        A method for that metric, by short name (``"union_cp"``) or qualified name
        (``"macro_recall.union_cp"``).
    n : int
        The test-set size.
    prevalence : sequence of float
        K class shares > 0 summing to 1.
    rates : K×K array-like
        Row i = P(predicted j | true class i); rows sum to 1.
    design : {"multiclass", "multiclass_iid"}
        Fixed class sizes ≈ n·prevalence, or one i.i.d. sample of size n.
    delta, reps, seed, side
        As for ``coverage``.
    **params
        The method's parameters.

    Returns
    -------
    CoverageResult
        As ``coverage``.

    Examples
    --------
    >>> from covstudy import multiclass_coverage
    >>> r = multiclass_coverage("macro_recall", "union_cp", n=9, prevalence=[0.5, 0.5],
    ...                         rates=[[0.8, 0.2], [0.3, 0.7]])
    >>> round(r.coverage, 4), round(r.truth, 4)
    (0.9999, 0.75)
    """
    d = get_design(design)
    if d.data != "multiclass":
        raise ValueError(f"design must be one of multiclass, multiclass_iid, got {design!r}")
    est = get_estimand(d.data, metric)
    m = est.method(method)
    m.check_side(side)
    params = m.validate_params(params)
    pi = validate.interval("prevalence", prevalence, 0.0, 1.0, True, False)
    if pi.ndim != 1 or pi.size < 2 or abs(pi.sum() - 1) > 1e-9:
        raise ValueError(f"prevalence must be K >= 2 numbers in (0, 1] summing to 1, got {np.asarray(prevalence)!r}")
    R = validate.interval("rates", rates, 0.0, 1.0, False, False)
    if R.shape != (pi.size, pi.size) or np.any(np.abs(R.sum(1) - 1) > 1e-9):
        raise ValueError(f"rates must be a {pi.size}×{pi.size} matrix (rows = true class) whose rows sum to 1, "
                         f"got shape {R.shape}")
    n = int(validate.counts("n", validate.scalar("n", n), minimum=1))
    delta = float(validate.delta(validate.scalar("delta", delta)))
    reps, seed = validate.reps_and_seed(reps, seed)
    point = {"K": pi.size, "n": n, "prevalence": tuple(pi.tolist()), "rates": tuple(map(tuple, R.tolist()))}
    analysis = Analysis(m, tuple(params.items()), est, delta, side, reps, seed)
    problem, _ = infeasible(d, [point], analysis)
    if problem:
        raise ValueError(problem + ("; use Monte Carlo (reps=...)" if reps is None and d.check(point, False) is None
                                    else ""))
    [out] = Evaluator(d).score([point], [(analysis, [0])])
    out = {k: (v[0] if k == "n_valid" else float(v[0])) for k, v in out.items()}
    return CoverageResult(m.name, d.name, est.name, point, out.pop("truth"), delta, side,
                          "exact" if reps is None else "mc", reps, seed, params, out)
