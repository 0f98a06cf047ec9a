"""Classifier metrics of a confusion matrix: definitions, true values, and their intervals.

A test set of n examples gives a confusion matrix (TP, FN, FP, TN). A design with positive
prevalence q and class accuracies tpr, tnr gives each example the cell probabilities

    π_TP = q·tpr,  π_FN = q·(1 - tpr),  π_FP = (1 - q)·(1 - tnr),  π_TN = (1 - q)·tnr,

and a metric's true value is its formula applied to π instead of the counts. For the
stratified design q = n_pos/n.

Ratio metrics are k/(k + l) for sums k, l of cells (``RATIO_CELLS``):

    metric       k         l          truth
    accuracy     TP + TN   FN + FP    π_TP + π_TN
    precision    TP        FP         π_TP/(π_TP + π_FP)
    recall       TP        FN         tpr
    specificity  TN        FP         tnr
    npv          TN        FN         π_TN/(π_TN + π_FN)
    jaccard      TP        FP + FN    π_TP/(π_TP + π_FP + π_FN)

Any binomial method gives their interval as ``interval(method, k, k + l)``; a zero
denominator k + l = 0 (e.g. no predicted positives, for precision) carries no information
and gives the vacuous interval [0, 1].

F1 = 2TP/(2TP + FP + FN) = 2J/(1 + J) with J the Jaccard index, a strictly increasing map,
so a binomial method on F1 is the Jaccard interval mapped through x -> 2x/(1 + x): it
covers the true F1 exactly when the Jaccard interval covers the true J. The F1-specific
methods (f1_delta, f1_bayes, f1_bootstrap) are in methods/f1.py. Balanced accuracy
(tpr + tnr)/2 uses the methods of methods/balanced.py with k_pos = TP, n_pos = TP + FN,
k_neg = TN, n_neg = TN + FP.
"""

from __future__ import annotations

import numpy as np

from . import validate
from .methods import SIDES, get, side_message
from .methods.balanced import get_balanced
from .methods.f1 import f1_methods, get_f1, validate_f1_params

METRICS = ("accuracy", "balanced_accuracy", "precision", "recall", "specificity", "npv", "jaccard", "f1")
CELLS = ("tp", "fn", "fp", "tn")
RATIO_CELLS = {  # metric -> (cells summed into k, cells summed into l); f1 through the Jaccard index
    "accuracy": (("tp", "tn"), ("fn", "fp")),
    "precision": (("tp",), ("fp",)),
    "recall": (("tp",), ("fn",)),
    "specificity": (("tn",), ("fp",)),
    "npv": (("tn",), ("fn",)),
    "jaccard": (("tp",), ("fp", "fn")),
    "f1": (("tp",), ("fp", "fn")),
}


def check_metric(metric) -> str:
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    return metric


def cell_probabilities(prevalence, tpr, tnr) -> dict[str, np.ndarray]:
    """π_TP, π_FN, π_FP, π_TN of one example (module docstring)."""
    q, t1, t0 = (np.asarray(v, dtype=float) for v in (prevalence, tpr, tnr))
    return {"tp": q * t1, "fn": q * (1 - t1), "fp": (1 - q) * (1 - t0), "tn": (1 - q) * t0}


def ratio_counts(metric: str, cells: dict) -> tuple[np.ndarray, np.ndarray]:
    """(k, l) of a ratio metric (or f1, through the Jaccard index) from cell counts or probabilities."""
    k_cells, l_cells = RATIO_CELLS[metric]
    return sum(np.asarray(cells[c]) for c in k_cells), sum(np.asarray(cells[c]) for c in l_cells)


def f1_from_jaccard(j):
    """F1 = 2J/(1 + J), increasing on [0, 1] with 0 -> 0 and 1 -> 1."""
    j = np.asarray(j, dtype=float)
    return 2 * j / (1 + j)


def truth(metric: str, prevalence, tpr, tnr):
    """The true value of ``metric`` at (prevalence, tpr, tnr) (module docstring).

    Precision is undefined when π_TP + π_FP = 0 (tpr = 0 and tnr = 1) and npv when
    π_TN + π_FN = 0 (tnr = 0 and tpr = 1); those raise ValueError.
    """
    check_metric(metric)
    if metric == "balanced_accuracy":
        return (np.asarray(tpr, dtype=float) + np.asarray(tnr, dtype=float)) / 2
    k, l = ratio_counts(metric, cell_probabilities(prevalence, tpr, tnr))
    if np.any(k + l <= 0):
        raise ValueError(f"tpr, tnr: {metric} is undefined at tpr={tpr!r}, tnr={tnr!r} "
                         f"(its denominator has probability 0)")
    ratio = k / (k + l)
    return f1_from_jaccard(ratio) if metric == "f1" else ratio


def method_kind(metric: str, method: str) -> str:
    """Which registry ``method`` comes from for ``metric``: "balanced", "f1" or "binomial"."""
    if metric == "balanced_accuracy":
        get_balanced(method)
        return "balanced"
    if metric == "f1" and method in f1_methods():
        return "f1"
    try:
        get(method)
    except ValueError as err:
        if metric == "f1":
            raise ValueError(f"{err}; or an F1 method: {', '.join(sorted(f1_methods()))}") from None
        raise
    return "binomial"


def ratio_bounds(metric: str, method: str, k, l, delta, side: str = "two-sided", **params):
    """Binomial method ``method`` on (k, k + l); [0, 1] where k + l = 0; mapped to F1 for f1.

    Arguments already validated (``params`` complete).
    """
    k, m = np.asarray(k), np.asarray(k) + np.asarray(l)
    empty = m == 0
    lower, upper = get(method).bounds(k, np.where(empty, 1, m), delta, side, **params)  # k = 0, n = 1: a stand-in
    lower, upper = np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)
    if metric == "f1":
        lower, upper = f1_from_jaccard(lower), f1_from_jaccard(upper)
    return lower, upper


def confusion_counts(tp, fn, fp, tn) -> tuple[np.ndarray, ...]:
    """Validated cell counts: whole numbers >= 0 broadcasting together, each test set non-empty."""
    arrays = {name: validate.counts(name, value) for name, value in zip(CELLS, (tp, fn, fp, tn))}
    try:
        out = np.broadcast_arrays(*arrays.values())
    except ValueError:
        shapes = ", ".join(f"{name} {a.shape}" for name, a in arrays.items())
        raise ValueError(f"tp, fn, fp and tn must broadcast together, got shapes {shapes}") from None
    if np.any(sum(out) == 0):
        raise ValueError("tp + fn + fp + tn must be >= 1 (a test set has at least one example), got 0")
    return tuple(out)


def metric_interval(metric: str, method: str, tp, fn, fp, tn, delta=0.05, side: str = "two-sided",
                    seed: int | None = None, **params) -> tuple[np.ndarray, np.ndarray]:
    """The ``1 - delta`` interval ``(lower, upper)`` for ``metric`` from a confusion matrix.

    ``metric`` is one of METRICS. Ratio metrics (and f1) take any binomial method and
    ``side``; a zero denominator gives [0, 1]. ``balanced_accuracy`` takes the methods of
    ``balanced_methods()``, f1 also those of ``f1_methods()`` (two-sided only). ``seed``
    makes the posterior / bootstrap draws of f1_bayes and f1_bootstrap reproducible
    (fresh entropy if None). Counts broadcast; e.g.
    ``metric_interval("precision", "wilson", tp=40, fn=10, fp=5, tn=45)``.
    """
    kind = method_kind(check_metric(metric), method)
    if side not in SIDES:
        raise ValueError(side_message(side))
    if kind != "binomial" and side != "two-sided":
        raise ValueError(f"side: {metric} method {method!r} has two-sided intervals only, got {side!r}")
    tp, fn, fp, tn = confusion_counts(tp, fn, fp, tn)
    d = validate.delta(delta)
    if kind == "balanced":
        if params:
            raise ValueError(f"{method}: unknown parameter {next(iter(params))!r}; valid parameters: none")
        lower, upper = get_balanced(method).kernel(tp, tp + fn, tn, tn + fp, d)
    elif kind == "f1":
        full = validate_f1_params(method, params)
        rng = np.random.default_rng(None if seed is None else validate.seed(seed))
        lower, upper = get_f1(method).kernel(tp, fn, fp, tn, d, rng=rng, **full)
    else:
        full = get(method).validate_params(params)
        k, l = ratio_counts(metric, {"tp": tp, "fn": fn, "fp": fp, "tn": tn})
        lower, upper = ratio_bounds(metric, method, k, l, d, side, **full)
    return np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
