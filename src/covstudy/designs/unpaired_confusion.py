"""The unpaired confusion design: two classifiers, each on its own independent test set.

Test set r (n1 examples for the first classifier, n2 for the second) is iid with positive
prevalence ``prevalence`` (the same population), so its confusion matrix is
Multinomial(nᵣ; q·tprᵣ, q·(1 - tprᵣ), (1 - q)·(1 - tnrᵣ), (1 - q)·tnrᵣ) (designs/confusion.py),
the two independent. Estimands: ``<metric>_difference`` = metric(first) - metric(second) at
those cell probabilities, for the metrics of methods/paired_metrics.py.

Exact coverage enumerates both test sets' C(nᵣ + 3, 3) matrices, their product (n1, n2 <=
EXACT_LIMIT: 666,756 outcomes at 15 and 15); Monte Carlo beyond. Methods: the unpaired-metric
methods (methods/unpaired_metrics.py) for every difference; for recall, specificity and accuracy
also every difference method (methods/difference.py) on (k1, n1, k2, n2) of the class (or of all
examples), [-1, 1] when a class is empty.
"""

from __future__ import annotations

import itertools
import math
from typing import ClassVar

import numpy as np
from scipy import special

from ..estimands import MetricDifference, register_estimand
from ..methods.paired_metrics import METRICS
from ..methods.unpaired_metrics import COUNTS, difference
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .confusion import PREVALENCE, cell_probabilities
from .registry import register

EXACT_LIMIT = 15
MC_LIMIT = 1_000_000
_RATES = ("tpr_first", "tnr_first", "tpr_second", "tnr_second")


def _matrices(n: int) -> np.ndarray:
    """Every confusion matrix (tp, fn, fp, tn) with total n, shape (C(n + 3, 3), 4)."""
    return np.array([(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a)
                     for c in range(n + 1 - a - b)], dtype=np.int64)


def _pmf(x: np.ndarray, p: np.ndarray) -> np.ndarray:
    n = x[0].sum()
    return np.exp(special.gammaln(n + 1) + np.sum(special.xlogy(x, p) - special.gammaln(x + 1), axis=1))


def _cells(point: dict, r: str) -> np.ndarray:
    c = cell_probabilities(point["prevalence"], point[f"tpr_{r}"], point[f"tnr_{r}"])
    return np.array([float(c[k]) for k in ("tp", "fn", "fp", "tn")])


@register
class UnpairedConfusion(Design):
    name = "unpaired_confusion"
    data = "unpaired_confusion"
    axes = (Axis("n1", True, 1), Axis("n2", True, 1), PREVALENCE, *(Axis(r, False, 0.0, 1.0) for r in _RATES))
    parametrisations = (("n1", "n2", "prevalence", *_RATES),)
    estimand = "f1_difference"
    summary = "two classifiers, each on its own iid test set: two independent confusion matrices"
    example: ClassVar[dict] = {"n1": 8, "n2": 10, "prevalence": 0.4, "tpr_first": 0.8, "tnr_first": 0.7,
                               "tpr_second": 0.6, "tnr_second": 0.8}

    def points(self, grid: dict) -> list[dict]:
        names = self.parametrisations[0]
        return [dict(zip(names, values)) for values in itertools.product(*(grid[k] for k in names))]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        for key in ("n1", "n2"):
            if exact and point[key] > EXACT_LIMIT:
                return (f"{key}: exact unpaired-confusion coverage needs n1, n2 <= {EXACT_LIMIT} "
                        f"(C(n1 + 3, 3)·C(n2 + 3, 3) outcomes), got {point[key]}; give reps for Monte Carlo")
            if point[key] > MC_LIMIT:
                return f"{key}: unpaired-confusion Monte Carlo needs n1, n2 <= {MC_LIMIT:,}, got {point[key]:,}"
        return None

    def table_key(self, point: dict) -> tuple:
        return (point["n1"], point["n2"])

    def outcome_count(self, point: dict) -> int:
        return math.comb(point["n1"] + 3, 3) * math.comb(point["n2"] + 3, 3)

    def test_set_numbers(self, point: dict) -> int:
        return 8

    def stream_identity(self, point: dict) -> dict:
        return {"design": "unpaired_confusion", **point}

    def truth_inputs(self, point: dict) -> dict:
        return {"cells": np.concatenate([_cells(point, "first"), _cells(point, "second")])}

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        a, b = _matrices(pt["n1"]), _matrices(pt["n2"])
        i, j = np.indices((len(a), len(b))).reshape(2, -1)
        x = np.concatenate([a[i], b[j]], axis=1)
        weight = _pmf(a, _cells(pt, "first"))[i] * _pmf(b, _cells(pt, "second"))[j]
        return Outcomes({c: x[:, k] for k, c in enumerate(COUNTS)}, weight[None, :])

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        """Per point: the first test sets' matrices (reps × 4), then the second's."""
        [pt] = points
        rng = stream(seed, **self.stream_identity(pt))
        x = np.concatenate([rng.multinomial(pt["n1"], _cells(pt, "first"), size=reps),
                            rng.multinomial(pt["n2"], _cells(pt, "second"), size=reps)], axis=1)
        tables, count = np.unique(x, axis=0, return_counts=True)
        columns = {c: tables[:, k].astype(np.int64) for k, c in enumerate(COUNTS)}
        return Outcomes(columns, count.astype(np.int64)[None, :])


_CLASS = {"recall": ("tp", "fn"), "specificity": ("tn", "fp"), "accuracy": None}


class UnpairedMetricDifference(MetricDifference):
    """metric(first) - metric(second) on two test sets (module docstring); for recall, specificity
    and accuracy also the two-proportion methods on the class's (or all) counts."""

    COUNTS = COUNTS
    AXES = "prevalence, tpr_first, tnr_first, tpr_second, tnr_second"
    difference = staticmethod(difference)

    def counts(self, columns: dict) -> tuple:
        """(k1, n1, k2, n2) of the class (recall, specificity) or of all examples (accuracy)."""
        out = []
        for r in "12":
            c = {k: np.asarray(columns[f"{k}{r}"]) for k in ("tp", "fn", "fp", "tn")}
            if _CLASS[self.metric] is None:
                out += [c["tp"] + c["tn"], c["tp"] + c["fn"] + c["fp"] + c["tn"]]
            else:
                k, l = _CLASS[self.metric]
                out += [c[k], c[k] + c[l]]
        return tuple(out)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        if method.takes == "difference":
            k1, n1, k2, n2 = self.counts(columns)
            empty = (n1 == 0) | (n2 == 0)
            stand_in = (k1, np.where(n1 == 0, 1, n1), k2, np.where(n2 == 0, 1, n2))  # replaced by [-1, 1]
            lower, upper = method.bounds(stand_in, delta, side, **params)
            return np.where(empty, -1.0, lower), np.where(empty, 1.0, upper)
        return method.bounds(tuple(columns[c] for c in COUNTS), delta, side, rng=rng, metric=self.metric, **params)


for _metric in METRICS:
    _takes = ("unpaired_confusion", "difference") if _metric in _CLASS else ("unpaired_confusion",)
    register_estimand("unpaired_confusion", f"{_metric}_difference", null=0.0, takes=_takes)(UnpairedMetricDifference)
