"""What the two confusion-matrix designs (stratified, iid) share.

An outcome is a confusion matrix (tp, fn, fp, tn): of the n_pos = tp + fn positives, tp are
classified correctly, of the n_neg = tn + fp negatives, tn. Each example of class sizes
(n_pos, n_neg) is correct with probability tpr (positives) or tnr (negatives), so for fixed
class sizes tp ~ Binomial(n_pos, tpr) and tn ~ Binomial(n_neg, tnr), independent. One
example's cell probabilities, with positive prevalence q, are

    π_TP = q·tpr,  π_FN = q·(1 - tpr),  π_FP = (1 - q)·(1 - tnr),  π_TN = (1 - q)·tnr.

Interval tables are per class sizes (n_pos, n_neg): the (n_pos + 1)(n_neg + 1) outcomes in
the order tp-major, tn-minor (``table_columns``).

Metrics (estimands, registered below). A metric's true value is its formula applied to π.
Ratio metrics are k/(k + l) for sums k, l of cells (``RATIO_CELLS``):

    metric       k         l          truth
    accuracy     TP + TN   FN + FP    π_TP + π_TN
    precision    TP        FP         π_TP/(π_TP + π_FP)
    recall       TP        FN         tpr
    specificity  TN        FP         tnr
    npv          TN        FN         π_TN/(π_TN + π_FN)
    jaccard      TP        FP + FN    π_TP/(π_TP + π_FP + π_FN)

Proportion methods give their interval as ``interval(method, k, k + l)``; a zero
denominator k + l = 0 (e.g. no predicted positives, for precision) carries no information
and gives the vacuous interval [0, 1]. F1 = 2TP/(2TP + FP + FN) = 2J/(1 + J) with J the
Jaccard index, a strictly increasing map, so a proportion method on F1 is the Jaccard
interval mapped through x -> 2x/(1 + x): it covers the true F1 exactly when the Jaccard
interval covers the true J. F1 also takes the confusion-matrix methods (methods/f1.py).
``balanced_accuracy`` (tpr + tnr)/2 takes the two-class methods (methods/balanced.py)
with k_pos = TP, n_pos = TP + FN, k_neg = TN, n_neg = TN + FP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._lazy import stats
from ..estimands import Estimand, get_estimand, register_estimand
from ..methods.counts import CELLS
from .base import Axis, Design

if TYPE_CHECKING:
    from ..methods.registry import Method

METRICS = ("accuracy", "balanced_accuracy", "precision", "recall", "specificity", "npv", "jaccard", "f1")
"""The metrics of a two-class confusion matrix that the stratified and iid designs estimate.

Examples
--------
>>> from covstudy import METRICS, metric_interval
>>> METRICS[:3]
('accuracy', 'balanced_accuracy', 'precision')
>>> [round(x, 4) for x in metric_interval("precision", "wilson", tp=40, fn=10, fp=5, tn=45)]
[0.765, 0.9516]
"""
RATIO_CELLS = {  # metric -> (cells summed into k, cells summed into l); f1 through the Jaccard index
    "accuracy": (("tp", "tn"), ("fn", "fp")),
    "precision": (("tp",), ("fp",)),
    "recall": (("tp",), ("fn",)),
    "specificity": (("tn",), ("fp",)),
    "npv": (("tn",), ("fn",)),
    "jaccard": (("tp",), ("fp", "fn")),
    "f1": (("tp",), ("fp", "fn")),
}
TABLE_LIMIT = 1_000_000  # outcomes (n_pos + 1)(n_neg + 1) of one exact table, e.g. 999 x 999
RATES = (Axis("tpr", False, 0.0, 1.0),
         Axis("tnr", False, 0.0, 1.0))
PREVALENCE = Axis("prevalence", False, 0.0, 1.0, low_open=True, high_open=True)


def class_sizes(n: int, prevalence: float) -> tuple[int, int]:
    """Stratified class sizes from (n, prevalence): n_pos = round(n·prevalence) kept in [1, n - 1]."""
    n_pos = min(n - 1, max(1, round(n * prevalence)))
    return n_pos, n - n_pos


def cell_probabilities(prevalence, tpr, tnr) -> dict[str, np.ndarray]:
    """π_TP, π_FN, π_FP, π_TN of one example (module docstring)."""
    q, t1, t0 = (np.asarray(v, dtype=float) for v in (prevalence, tpr, tnr))
    return {"tp": q * t1, "fn": q * (1 - t1), "fp": (1 - q) * (1 - t0), "tn": (1 - q) * t0}


def stratified_pmf(n_pos: int, n_neg: int, tpr: float, tnr: float) -> np.ndarray:
    """P(tp, tn) = Binomial(tp; n_pos, tpr)·Binomial(tn; n_neg, tnr), shape (n_pos + 1, n_neg + 1)."""
    return np.outer(stats.binom.pmf(np.arange(n_pos + 1), n_pos, tpr),
                    stats.binom.pmf(np.arange(n_neg + 1), n_neg, tnr))


def cells(n_pos, tp, n_neg, tn) -> dict[str, np.ndarray]:
    """The confusion-matrix columns of outcomes given as class sizes and correct counts."""
    return {"tp": tp, "fn": n_pos - tp, "fp": n_neg - tn, "tn": tn}


class ConfusionDesign(Design):
    """Base of the designs whose outcome is a confusion matrix; the estimand defaults to balanced accuracy."""

    data = "confusion"
    estimand = "balanced_accuracy"

    def expected(self, axes: dict, size: float) -> dict | None:
        if "prevalence" not in axes:
            return None
        n_pos, n_neg = size * axes["prevalence"], size * (1 - axes["prevalence"])
        return cells(n_pos, n_pos * axes["tpr"], n_neg, n_neg * axes["tnr"])

    def table_columns(self, key: tuple) -> dict:
        n_pos, n_neg = key
        tp, tn = np.indices((n_pos + 1, n_neg + 1)).reshape(2, -1)
        return cells(n_pos, tp, n_neg, tn)

    def truth_inputs(self, point: dict) -> dict:
        return {"prevalence": point["prevalence"], "tpr": point["tpr"], "tnr": point["tnr"]}


# Registered in the order of METRICS (the order of errors and --help).
@register_estimand("confusion", "accuracy", takes=("proportion",))
class Ratio(Estimand):
    """k/(k + l) over cells of the confusion matrix (module docstring); F1 through the Jaccard index."""

    def truth(self, inputs: dict) -> float:
        return float(truth(self.name, **inputs))

    def merge(self, method):
        return RATIO_CELLS[self.name] if method.takes == "proportion" else None

    def counts(self, columns: dict) -> tuple[np.ndarray, np.ndarray]:
        if "k" in columns:  # a design's outcomes already merged to (k, l)
            return np.asarray(columns["k"]), np.asarray(columns["l"])
        return ratio_counts(self.name, columns)

    def valid(self, columns):
        k, l = self.counts(columns)
        return (k + l) > 0

    def bounds(self, method, columns, delta, side, rng=None, **params):
        if method.takes == "confusion":
            return method.bounds(tuple(columns[c] for c in CELLS), delta, side, rng=rng, **params)
        k, l = self.counts(columns)
        return ratio_bounds(self.name, method, k, l, delta, side, **params)


@register_estimand("confusion", "balanced_accuracy", takes=("two_class",))
class BalancedAccuracy(Estimand):
    """(tpr + tnr)/2: two-class methods on (tp, tp + fn, tn, tn + fp)."""

    def truth(self, inputs: dict) -> float:
        return float(truth(self.name, **inputs))

    def valid(self, columns):
        return (columns["tp"] + columns["fn"] > 0) & (columns["tn"] + columns["fp"] > 0)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        c = columns
        return method.bounds((c["tp"], c["tp"] + c["fn"], c["tn"], c["tn"] + c["fp"]), delta, side, **params)


register_estimand("confusion", "precision", "recall", "specificity", "npv", "jaccard", takes=("proportion",))(Ratio)
register_estimand("confusion", "f1", takes=("proportion", "confusion"))(Ratio)


def ratio_counts(metric: str, cells: dict) -> tuple[np.ndarray, np.ndarray]:
    """(k, l) of a ratio metric (or f1, through the Jaccard index) from cell counts or probabilities."""
    k_cells, l_cells = RATIO_CELLS[metric]
    return sum(np.asarray(cells[c]) for c in k_cells), sum(np.asarray(cells[c]) for c in l_cells)


def f1_from_jaccard(j):
    """F1 = 2J/(1 + J), increasing on [0, 1] with 0 -> 0 and 1 -> 1."""
    j = np.asarray(j, dtype=float)
    return 2 * j / (1 + j)


def check_metric(metric) -> str:
    get_estimand("confusion", metric)
    return metric


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


def ratio_bounds(metric: str, method: Method, k, l, delta, side: str = "two-sided", **params):
    """Proportion method ``method`` on (k, k + l); [0, 1] where k + l = 0; mapped to F1 for f1.

    Arguments already validated (``params`` complete).
    """
    k, m = np.asarray(k), np.asarray(k) + np.asarray(l)
    empty = m == 0
    lower, upper = method.bounds((k, np.where(empty, 1, m)), delta, side, **params)  # k = 0, n = 1: a stand-in
    lower, upper = np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)
    if metric == "f1":
        lower, upper = f1_from_jaccard(lower), f1_from_jaccard(upper)
    return lower, upper
