"""The one interval door: ``interval(method, *counts, design=..., metric=..., **counts)``.

A method is named within its kind (``Registry.get``): the kind comes from the ``design``, the
``metric`` or the counts given, whose argument names are the designs' (``COUNTS``). Each kind of
method declares, where it is registered (``register_kind``), what data its counts are and the route
that checks them and calls the method; the tables here are read off those declarations. The
per-kind functions (``balanced_interval``, ``metric_interval``, ``multiclass_interval``,
``difference_interval``, ``paired_interval``, ``auc_interval``, ``clustered_interval``) are thin
wrappers over it, kept because their positional arguments read well: ``difference_interval`` and
``paired_interval`` live in comparison.py, the others here. ``methods(takes, design)``
lists the methods, by design too: it joins the method registry (methods/, below) with the
designs' estimands (designs/, estimands.py), which only this level sees.

Place: the top of the core; it imports designs, estimands and methods, none of which imports it.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from . import validate
from .designs import get_design
from .estimands import ESTIMANDS, estimands_for, get_estimand
from .methods import registry
from .methods.registry import INPUTS, Method, MethodTable, get

DEFAULT_SEED = 0  # the seed of every sampling method's draws by default: the same call, the same interval


class Interval(NamedTuple):
    """An interval ``(lower, upper)``: floats for scalar counts, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import interval
    >>> ci = interval("wilson", 3, 10, delta=0.05)
    >>> round(ci.lower, 4), round(ci.upper, 4)
    (0.1078, 0.6032)
    >>> lower, upper = ci    # a tuple
    """

    lower: float | np.ndarray
    upper: float | np.ndarray


# The door's tables, from the kinds of method (``register_kind`` in each methods module):
# what the counts are -> their argument names and the route that takes them; kind -> its data.
COUNTS: dict[str, tuple[str, ...]] = {}
ROUTES: dict = {}
for _input in INPUTS.values():  # in registration order: the first kind of each data names it
    COUNTS.setdefault(_input.data, _input.counts)
    if _input.route is not None:
        ROUTES.setdefault(_input.data, _input.route)
NATURAL = {takes: i.data for takes, i in INPUTS.items()}
_PLAIN = {i.data: (takes,) for takes, i in INPUTS.items() if i.plain}  # the counts alone say which kind
assert set(ROUTES) == set(COUNTS), "every kind of data needs a route"


def interval(method: str, *counts, design: str | None = None, metric: str | None = None, delta=0.05,
             side: str = "two-sided", seed: int | None = DEFAULT_SEED, **kwargs) -> Interval:
    """The ``1 - delta`` interval of ``method`` for any kind of data: the one interval door.

    Parameters
    ----------
    method : str
        A short name within its kind (``"wilson"``, ``"tango"``, ``"delong"``), a qualified name
        (``"paired.tango"``, ``methods()``) or a registered prefixed name (``"paired_tango"``).
        A short name naming several methods of the kinds that apply (``"newcombe"`` without a
        design; ``"bayes"`` for F1, ``proportion.bayes`` and ``f1.bayes``) is an error naming them.
    *counts
        The counts positionally, in the order of the keyword names below, then ``delta``. Without
        a design, metric or named counts, a name that is a proportion method reads them as k, n.
    design : str, optional
        A design (``DESIGNS``): its data say which counts and methods apply.
    metric : str, optional
        The estimand (``METRICS``, ``MULTICLASS_METRICS``, ``"difference"``, ``"auc"``): needed
        for a proportion method on a confusion matrix (``"precision"``).
    delta : float or array
        The miss rate in (0, 1); broadcasts with the counts.
    side : {"two-sided", "lower", "upper"}
        One-sided bounds for proportion methods (and the metrics computed through them).
    seed : int or None
        Seeds the draws of sampling methods (default 0: the same call, the same interval; None:
        fresh entropy).
    **kwargs
        The counts by name, as the designs name them: ``k, n`` (a proportion; with
        ``metric="macro_recall"`` K classes' arrays); ``k, n, deff`` (oracles);
        ``k_pos, n_pos, k_neg, n_neg``; ``tp, fn, fp, tn``; ``confusion`` (K×K); ``k1, n1, k2, n2``;
        ``both, only_first, only_second, neither``; ``scores_pos, scores_neg``; ``successes,
        sizes`` (and ``icc`` for the oracles). Other keywords are the method's parameters.

    Returns
    -------
    Interval
        ``(lower, upper)``: floats for scalar counts, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import interval
    >>> interval("wilson", 3, 10)
    Interval(lower=0.10779126740630104, upper=0.6032218525388546)
    >>> lo, hi = interval("tango", both=20, only_first=12, only_second=2, neither=16)
    >>> round(lo, 4), round(hi, 4)
    (0.0611, 0.3447)
    >>> lo, hi = interval("newcombe", design="unpaired", k1=56, n1=70, k2=48, n2=80)
    >>> round(lo, 4), round(hi, 4)
    (0.0524, 0.3339)
    """
    m, est, data, values, delta, full, icc = _resolved(method, counts, design, metric, delta, side, kwargs)
    rng = np.random.default_rng(None if seed is None else validate.seed(seed)) if m.per_test_set else None
    lower, upper = ROUTES[data](m, est, values, delta, side, rng, full, icc)
    return Interval(*validate.bounds_out(lower, upper))


def point_estimate(method: str, *counts, design: str | None = None, metric: str | None = None,
                   seed: int | None = DEFAULT_SEED, **kwargs):
    """``method``'s own point estimate of the data ``interval`` takes, the centre its interval is built around.

    The estimate it declares (``register(estimate=...)``: a posterior's median, PPI's estimator) or its
    kind's plug-in (``register_kind(estimate=...)``: a proportion's k/n, of the counts as the estimand
    gives them to it: the human labels alone for Clopper–Pearson on judged data). A sampling
    posterior's estimate is the median of the very draws its interval (of the same ``seed``) takes
    its quantiles from, so its interval holds it. ``covstudy.evaluate`` reports it in each row.

    Parameters
    ----------
    method : str
        As for ``interval``.
    *counts, design, metric, seed, **kwargs
        As for ``interval`` (no ``delta``: an estimate has none).

    Returns
    -------
    float, array or None
        The estimate (an array for array counts); None where neither the method nor its kind
        declares one (the metric's plug-in estimate is then the method's).

    Examples
    --------
    >>> from covstudy import point_estimate
    >>> point_estimate("clopper_pearson", design="judged", tp=30, fn=9, fp=5, tn=56, u_pos=300, u_neg=600)
    0.39
    >>> round(point_estimate("ppi", design="judged", tp=30, fn=9, fp=5, tn=56, u_pos=300, u_neg=600), 4)
    0.3733
    >>> round(point_estimate("posterior", metric="macro_recall", confusion=[[18, 0, 0], [0, 20, 1], [0, 0, 15]]), 4)
    0.98
    """
    m, est, data, values, delta, full, icc = _resolved(method, counts, design, metric, 0.05, "two-sided", kwargs)
    own = m.estimate or m.input.estimate
    if own is None:
        return None
    accepts = set(inspect.signature(own).parameters)  # of the method's parameters (and rng), those it reads

    def kernel(*args, rng=None, **params):  # the route calls it as the method's kernel: counts, delta, params
        value = own(*args[:-1], **{k: v for k, v in {**params, "rng": rng}.items() if k in accepts})
        return value, value

    rng = np.random.default_rng(None if seed is None else validate.seed(seed)) if m.per_test_set else None
    value, _ = ROUTES[data](replace(m, kernel=kernel, one_sided=None), est, values, delta, "two-sided", rng, full, icc)
    return float(value) if np.ndim(value) == 0 else np.asarray(value, dtype=float)


def _resolved(method, counts, design, metric, delta, side, kwargs):
    """The method, estimand, data kind, count values, delta, parameters and icc of an ``interval`` call."""
    kwargs = dict(kwargs)
    given = {name: kwargs.pop(name) for name in list(kwargs) if any(name in c for c in COUNTS.values())}
    icc = kwargs.pop("icc", None)
    data = _data(design, metric, given)
    kinds = _kinds(data, design, metric)
    m = None
    if kinds is None and counts:  # bare positional counts: a proportion's k, n (the historical signature) first
        try:
            m = get(method, "proportion")
        except ValueError:
            pass
    m = m or get(method, kinds)
    data = data or ("classes" if metric == "macro_recall" and m.takes == "proportion" else NATURAL[m.takes])
    names = COUNTS[data]
    if len(counts) > len(names) + 1:
        raise TypeError(f"interval: {m.short} takes at most {len(names) + 1} positional counts and delta "
                        f"({', '.join(names)}, delta), got {len(counts)}")
    for name, value in zip(names, counts):
        if name in given:
            raise TypeError(f"interval: {name} given twice")
        given[name] = value
    if len(counts) > len(names):
        delta = counts[-1]
    if set(given) != set(names):
        why = f"design {design}" if design else f"{m.qualified}"
        raise ValueError(f"counts: {why} takes {', '.join(names)}; got {', '.join(given) or 'none'}")
    if icc is not None and data != "clustered":
        raise ValueError(f"icc: only the clustered oracles take the true icc; {m.short} does not")
    est = _estimand(data, design, metric, m)
    full = m.prepare(side, kwargs)
    return m, est, data, [given[k] for k in names], delta, full, icc


def methods(takes: str | None = None, design: str | None = None) -> dict[str, Method]:
    """Every registered method, by qualified name (``"paired.tango"``), in registration order.

    Parameters
    ----------
    takes : str, optional
        Only the methods of one kind: a public kind (``KINDS``: "proportion", "balanced", "f1",
        "macro_recall", "macro_f1", "difference", "paired", "auc", "clustered", "deff", "roc_band",
        "pr_band") or a
        kind of input (``INPUTS``: "two_class", "confusion", "scores", ...).
    design : str, optional
        Only the methods that apply to one of the design's metrics (``DESIGNS``).

    Returns
    -------
    dict
        Qualified name -> ``Method``; ``str(method)`` is its one-line description, ``.short``
        the name to give where its kind is known, ``.display`` its name in figures.

    Examples
    --------
    >>> from covstudy import methods
    >>> list(methods("paired"))[:3]
    ['paired.wald', 'paired.wald_cc', 'paired.agresti_min']
    >>> str(methods()["proportion.wilson"]).split(":")[0]
    'Wilson score interval'
    >>> sorted(m.short for m in methods(design="binormal").values())
    ['bootstrap', 'delong', 'hanley_mcneil', 'logit_delong', 'newcombe']
    """
    found = registry.methods(takes)  # checks takes first
    if design is None:
        return found
    applies = {t for e in estimands_for(get_design(design).data) for t in e.takes}
    return MethodTable({q: m for q, m in found.items() if m.takes in applies})


def _data(design, metric, given) -> str | None:
    """What the counts are: from the design, else from the counts' names, else from the metric."""
    if design is not None:
        return get_design(design).data
    if given:
        keys = set(given)
        found = [d for d, names in COUNTS.items() if set(names) == keys]
        if not found:
            sets = "; ".join(", ".join(c) for c in dict.fromkeys(COUNTS.values()))
            raise ValueError(f"counts: give one of these sets of counts: {sets}; got {', '.join(given)}")
        return "classes" if found[0] == "count" and metric == "macro_recall" else found[0]
    datas = {d for (d, name) in ESTIMANDS if name == metric}
    return datas.pop() if len(datas) == 1 else None


def _kinds(data, design, metric) -> tuple[str, ...] | None:
    """The kinds of method (INPUTS keys) that apply."""
    if data in _PLAIN:
        return _PLAIN[data]
    if data is None:
        if metric is None:
            return None
        kinds = tuple(dict.fromkeys(t for (_, name), e in ESTIMANDS.items() if name == metric for t in e.takes))
        if not kinds:
            valid = ", ".join(sorted({name for _, name in ESTIMANDS}))
            raise ValueError(f"metric must be one of {valid}, got {metric!r}")
        return kinds
    name = metric or (get_design(design).estimand if design else None)
    if name is not None:
        return get_estimand(data, name).takes
    return tuple(dict.fromkeys(t for e in estimands_for(data) for t in e.takes))


def _estimand(data, design, metric, m: Method):
    if data in _PLAIN:
        return None
    name = metric or (get_design(design).estimand if design else None)
    if name is not None:
        return get_estimand(data, name)
    fits = [e for e in estimands_for(data) if m.takes in e.takes]
    if len(fits) > 1:
        raise ValueError(f"metric: {m.qualified} on these counts needs metric=, one of "
                         f"{', '.join(e.name for e in fits)}")
    return fits[0]


def metric_interval(metric: str, method: str, tp, fn, fp, tn, delta=0.05, side: str = "two-sided",
                    seed: int | None = DEFAULT_SEED, **params):
    """The ``1 - delta`` interval ``(lower, upper)`` for ``metric`` from a confusion matrix.

    A thin wrapper: ``interval(method, metric=metric, tp=..., fn=..., fp=..., tn=..., ...)``.
    Ratio metrics (and f1) take any proportion method and ``side``; a zero denominator gives
    [0, 1]. ``balanced_accuracy`` takes the balanced methods, f1 also the F1 methods (two-sided
    only; ``bayes`` is then ambiguous: give ``proportion.bayes`` or ``f1.bayes``).

    Parameters
    ----------
    metric : str
        One of ``METRICS``.
    method : str
        A method of a kind the metric takes, e.g. ``"wilson"``, ``"delta"`` (F1), ``"cp_union"``.
    tp, fn, fp, tn : int or array
        The confusion matrix's cells; broadcast.
    delta : float or array
        The miss rate in (0, 1).
    side : {"two-sided", "lower", "upper"}
        One-sided bounds for proportion methods.
    seed : int or None
        Seeds the draws of F1's bootstrap (default ``DEFAULT_SEED`` = 0; None: fresh entropy).
    **params
        The method's parameters.

    Returns
    -------
    Interval
        ``(lower, upper)``: floats for scalar counts, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import metric_interval
    >>> lo, hi = metric_interval("precision", "wilson", tp=40, fn=10, fp=5, tn=45)
    >>> round(lo, 4), round(hi, 4)
    (0.765, 0.9516)
    """
    return interval(method, metric=metric, tp=tp, fn=fn, fp=fp, tn=tn, delta=delta, side=side, seed=seed, **params)


def multiclass_interval(metric: str, method: str, confusion, delta=0.05, side: str = "two-sided",
                        seed: int | None = DEFAULT_SEED, **params):
    """The ``1 - delta`` interval ``(lower, upper)`` for a multi-class ``metric`` from confusion matrices.

    A thin wrapper: ``interval(method, metric=metric, confusion=confusion, ...)``.

    Parameters
    ----------
    metric : str
        One of ``MULTICLASS_METRICS``: ``macro_recall`` (``methods("macro_recall")``), ``macro_f1``
        (``methods("macro_f1")``), and ``accuracy``, ``micro_f1``, ``bea`` (proportion methods, with ``side``).
    method : str
        A method of a kind the metric takes, e.g. ``"union_cp"`` (macro recall), ``"takahashi"``.
    confusion : array
        A K×K array of counts, **rows = true class, columns = predicted class** (or an array of
        them, shape (..., K, K)).
    delta : float or array
        The miss rate in (0, 1).
    side : {"two-sided", "lower", "upper"}
        One-sided bounds for proportion methods.
    seed : int or None
        Seeds the draws of macro-F1's bayes and bootstrap (default ``DEFAULT_SEED`` = 0; None: fresh entropy).
    **params
        The method's parameters.

    Returns
    -------
    Interval
        ``(lower, upper)``: floats for one matrix, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import multiclass_interval
    >>> lo, hi = multiclass_interval("macro_recall", "union_cp", [[40, 5, 5], [3, 20, 2], [1, 1, 8]])
    >>> round(lo, 4), round(hi, 4)
    (0.5198, 0.9498)
    """
    return interval(method, metric=metric, confusion=confusion, delta=delta, side=side, seed=seed, **params)


def balanced_interval(method: str, k_pos, n_pos, k_neg, n_neg, delta=0.05) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided ``1 - delta`` interval ``(lower, upper)`` for balanced accuracy (tpr + tnr)/2.

    ``k_pos`` of ``n_pos`` positives and ``k_neg`` of ``n_neg`` negatives are correct; all
    arguments broadcast. One class may be empty (n = 0); see docs/balanced.md. A thin wrapper:
    ``interval(method, k_pos=..., n_pos=..., k_neg=..., n_neg=..., delta=...)``.

    Parameters
    ----------
    method : str
        A balanced-accuracy method (``methods("balanced")``), e.g. ``"cp_union"``, ``"wald"``.
    k_pos, n_pos, k_neg, n_neg : int or array
        Correct positives of ``n_pos``, correct negatives of ``n_neg``.
    delta : float or array
        The miss rate in (0, 1).

    Returns
    -------
    Interval
        ``(lower, upper)``: floats for scalar counts, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import balanced_interval
    >>> lo, hi = balanced_interval("cp_union", 45, 50, 80, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.7294, 0.927)
    """
    return interval(method, k_pos=k_pos, n_pos=n_pos, k_neg=k_neg, n_neg=n_neg, delta=delta)


def auc_interval(method: str, scores_pos, scores_neg, delta=0.05, seed: int | None = 0, **params):
    """The ``1 - delta`` interval ``(lower, upper)`` for the AUC from one test set's scores.

    A thin wrapper: ``interval(method, scores_pos=..., scores_neg=..., delta=..., seed=...)``.

    Parameters
    ----------
    method : str
        An AUC method (``methods("auc")``): delong, logit_delong, hanley_mcneil, newcombe, bootstrap.
    scores_pos, scores_neg : array
        The classifier's scores of the positives and of the negatives (1-d, at least 2 finite
        numbers each; higher = more likely positive).
    delta : float
        The miss rate in (0, 1).
    seed : int or None
        Seeds the bootstrap's draws (default 0, as every interval function: the same call, the
        same interval; None: fresh entropy).
    **params
        The method's parameters (``draws`` of bootstrap).

    Returns
    -------
    Interval
        ``(lower, upper)`` as floats.

    Examples
    --------
    >>> from covstudy import auc_interval
    >>> lo, hi = auc_interval("delong", [0.9, 0.8, 0.4], [0.3, 0.5, 0.1, 0.2])
    >>> round(lo, 4), round(hi, 4)
    (0.6857, 1.0)
    >>> auc_interval("bootstrap", [0.9, 0.8, 0.4], [0.3, 0.5, 0.1]) == auc_interval("bootstrap", [0.9, 0.8, 0.4], [0.3, 0.5, 0.1])
    True
    """
    return interval(method, scores_pos=scores_pos, scores_neg=scores_neg, delta=delta, seed=seed, **params)


def clustered_interval(method: str, successes, sizes, delta=0.05, icc=None, seed: int | None = 0, **params):
    """Two-sided ``1 - delta`` interval ``(lower, upper)`` for the accuracy p from per-cluster counts.

    A thin wrapper: ``interval(method, successes=..., sizes=..., icc=..., delta=..., seed=...)``.

    Parameters
    ----------
    method : str
        A clustered method (``methods("clustered")``: wilson_vif, scas_vif, ratio_wald,
        cluster_bootstrap), an oracle (``methods("deff")``: wilson_deff, clopper_pearson_deff,
        which need the true ``icc``) or any proportion method, applied naively to the totals.
    successes, sizes : array
        ``successes[..., i]`` of ``sizes[..., i]`` examples of cluster i are correct (clusters on
        the last axis, at least 2; leading axes are separate test sets).
    delta : float
        The miss rate in (0, 1).
    icc : float, optional
        The true intra-cluster correlation in [0, 1), for the oracles only.
    seed : int or None
        Seeds cluster_bootstrap (default 0, fixed; None: fresh entropy).
    **params
        The method's parameters (e.g. ``draws=2000``).

    Returns
    -------
    Interval
        ``(lower, upper)``: floats for one test set, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import clustered_interval
    >>> lo, hi = clustered_interval("wilson_vif", [3, 5, 4], [5, 5, 5])
    >>> round(lo, 4), round(hi, 4)
    (0.5286, 0.9345)
    """
    return interval(method, successes=successes, sizes=sizes, icc=icc, delta=delta, seed=seed, **params)
