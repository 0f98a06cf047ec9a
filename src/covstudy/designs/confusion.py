"""What the two confusion-matrix designs (stratified, iid) share.

An outcome is a confusion matrix (tp, fn, fp, tn): of the n_pos = tp + fn positives, tp are
classified correctly, of the n_neg = tn + fp negatives, tn. Each example of class sizes
(n_pos, n_neg) is correct with probability tpr (positives) or tnr (negatives), so for fixed
class sizes tp ~ Binomial(n_pos, tpr) and tn ~ Binomial(n_neg, tnr), independent. One
example's cell probabilities, with positive prevalence q, are

    π_TP = q·tpr,  π_FN = q·(1 - tpr),  π_FP = (1 - q)·(1 - tnr),  π_TN = (1 - q)·tnr.

Interval tables are per class sizes (n_pos, n_neg): the (n_pos + 1)(n_neg + 1) outcomes in
the order tp-major, tn-minor (``table_columns``).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .base import Axis, Design

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

    def table_columns(self, key: tuple) -> dict:
        n_pos, n_neg = key
        tp, tn = np.indices((n_pos + 1, n_neg + 1)).reshape(2, -1)
        return cells(n_pos, tp, n_neg, tn)

    def truth_inputs(self, point: dict) -> dict:
        return {"prevalence": point["prevalence"], "tpr": point["tpr"], "tnr": point["tnr"]}
