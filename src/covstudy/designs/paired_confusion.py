"""The paired confusion design: two classifiers on the same n examples, any metric's difference.

Each example is positive with probability ``prevalence``; within its class the two classifiers'
correctness is a 2×2 multinomial with the class's accuracies of each (``tpr_first``,
``tpr_second`` for the positives, ``tnr_first``, ``tnr_second`` for the negatives) and the
correlation ρ of their correctness indicators (``correlation``, the same within both classes, or
``correlation_pos`` and ``correlation_neg``, one per class):

    P(both correct | class) = a₁a₂ + ρ·sqrt(a₁(1 - a₁)a₂(1 - a₂)),  only the first = a₁ - both,
    only the second = a₂ - both,  neither = 1 - a₁ - a₂ + both  (designs/paired.py).

So a test set is an 8-cell multinomial over (truth, first correct, second correct), the cells
of methods/paired_metrics.py (``COUNTS``). Estimands: the differences first - second of
recall, specificity, precision, npv, f1, balanced accuracy and accuracy (``<metric>_difference``),
each the metric's formula at the cell probabilities (methods/paired_metrics.py).

Exact coverage enumerates all C(n + 7, 7) tables, n <= EXACT_LIMIT (888,030 tables at n = 20);
Monte Carlo beyond (n <= MC_LIMIT). Every point of one n shares the interval tables. Monte
Carlo draws the tables from the stream keyed by (n, the 8 cell probabilities) and keeps the
distinct ones with their counts.

Methods: the paired-metric methods (delta, mover, bootstrap, dirichlet) apply to every
difference; for recall and specificity (a paired proportion within one class) and accuracy
(the table summed over the classes) every paired method (methods/paired.py) applies to the
class's 2×2 table, vacuous [-1, 1] when the class is empty.
"""

from __future__ import annotations

import itertools
import math
from typing import ClassVar

import numpy as np
from scipy import special

from ..estimands import MetricDifference, register_estimand
from ..methods.paired_metrics import COUNTS, METRICS, difference
from ..seeds import stream
from .base import Axis, Design, Outcomes, Segment
from .confusion import PREVALENCE
from .paired import cells_from_accuracies, correlation_range
from .registry import register
from .sampling import BLOCK

EXACT_LIMIT = 20  # C(n + 7, 7) tables: 888,030 at n = 20, 2.6 million at n = 24
MC_LIMIT = 1_000_000
_RATES = ("tpr_first", "tpr_second", "tnr_first", "tnr_second")
_TOLERANCE = 1e-12


def cell_probabilities(point: dict) -> np.ndarray:
    """The 8 cell probabilities of a point, in the order of ``COUNTS`` (module docstring)."""
    q = point["prevalence"]
    pos = cells_from_accuracies(point["tpr_first"], point["tpr_second"], point["correlation_pos"])
    neg = cells_from_accuracies(point["tnr_first"], point["tnr_second"], point["correlation_neg"])
    return np.array([q * v for v in pos.values()] + [(1 - q) * v for v in neg.values()])


def all_tables(n: int) -> dict:
    """Every 8-cell table with total n (C(n + 7, 7) of them), in lexicographic order of the cells."""
    # stars and bars: 7 bars among n + 7 positions
    bars = np.array(list(itertools.combinations(range(n + 7), 7)), dtype=np.int64)
    edges = np.concatenate([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), n + 7)], axis=1)
    counts = np.diff(edges, axis=1) - 1
    return {c: counts[:, i] for i, c in enumerate(COUNTS)}


def table_pmf(tables: dict, p: np.ndarray) -> np.ndarray:
    """Multinomial(n; p) probability of each table: n!/Π xᵢ!·Π pᵢ^xᵢ."""
    counts = [tables[c] for c in COUNTS]
    n = sum(c[0] for c in counts)
    log = special.gammaln(n + 1) + sum(special.xlogy(c, pc) - special.gammaln(c + 1) for c, pc in zip(counts, p))
    return np.exp(log)


@register
class PairedConfusion(Design):
    name = "paired_confusion"
    data = "paired_confusion"
    axes = (Axis("n", True, 1), PREVALENCE, *(Axis(r, False, 0.0, 1.0) for r in _RATES),
            Axis("correlation", False, -1.0, 1.0), Axis("correlation_pos", False, -1.0, 1.0),
            Axis("correlation_neg", False, -1.0, 1.0))
    parametrisations = (("n", "prevalence", *_RATES, "correlation"),
                        ("n", "prevalence", *_RATES, "correlation_pos", "correlation_neg"))
    estimand = "f1_difference"
    summary = ("one test set, two classifiers, the truth: 8-cell multinomial over (class, first correct, "
               "second correct)")
    example: ClassVar[dict] = {"n": 10, "prevalence": 0.4, "tpr_first": 0.8, "tpr_second": 0.6,
                               "tnr_first": 0.7, "tnr_second": 0.8, "correlation": 0.3}

    def derive(self, point: dict) -> dict:
        """One correlation for both classes, or one per class (then ``correlation`` is left out); column order."""
        point = dict(point)
        if "correlation" in point:
            point["correlation_pos"] = point["correlation_neg"] = point["correlation"]
        return {a.name: point[a.name] for a in self.axes if a.name in point}

    def points(self, grid: dict) -> list[dict]:
        names = next(o for o in self.parametrisations if all(grid.get(k) is not None for k in o))
        return [self.derive(dict(zip(names, values))) for values in itertools.product(*(grid[k] for k in names))]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        for cls, first, second in (("pos", "tpr_first", "tpr_second"), ("neg", "tnr_first", "tnr_second")):
            lo, hi = correlation_range(point[first], point[second])
            rho = point[f"correlation_{cls}"]
            if not lo - _TOLERANCE <= rho <= hi + _TOLERANCE:
                name = "correlation" if "correlation" in point else f"correlation_{cls}"
                return (f"{name}: with {first}={point[first]:g} and {second}={point[second]:g} the correlation "
                        f"of the {'positives' if cls == 'pos' else 'negatives'} must lie in [{lo:.4g}, {hi:.4g}], "
                        f"got {rho:g}")
        n = point["n"]
        if exact and n > EXACT_LIMIT:
            return (f"n: exact paired-confusion coverage needs n <= {EXACT_LIMIT} (C(n + 7, 7) tables), got {n}; "
                    f"give reps for Monte Carlo")
        if n > MC_LIMIT:
            return f"n: paired-confusion Monte Carlo needs n <= {MC_LIMIT:,}, got {n:,}"
        return None

    def table_key(self, point: dict) -> tuple:
        return (point["n"],)

    def outcome_count(self, point: dict) -> int:
        return math.comb(point["n"] + 7, 7)

    def test_set_numbers(self, point: dict) -> int:
        return 8

    def stream_identity(self, point: dict) -> dict:
        return {"design": "paired_confusion", "n": point["n"],
                **dict(zip(COUNTS, (float(p) for p in cell_probabilities(point))))}

    def truth_inputs(self, point: dict) -> dict:
        return {"cells": _cells(point)}

    def table_columns(self, key: tuple) -> dict:
        return all_tables(key[0])

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        key = (pt["n"],)
        tables = self.table_columns(key)
        return Outcomes(tables, table_pmf(tables, _cells(pt))[None, :], (Segment(key, slice(None)),))

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        n = pt["n"]
        rng = stream(seed, **self.stream_identity(pt))
        p = _cells(pt)
        parts = []
        for start in range(0, reps, BLOCK // 8):
            parts.append(rng.multinomial(n, p, size=min(BLOCK // 8, reps - start)).astype(np.int32))
        tables, count = np.unique(np.concatenate(parts), axis=0, return_counts=True)
        tables = tables.astype(np.int64)
        return Outcomes({c: tables[:, i] for i, c in enumerate(COUNTS)}, count.astype(np.int64)[None, :])


def _cells(point: dict) -> np.ndarray:
    p = np.maximum(cell_probabilities(point), 0.0)
    return p / p.sum()


_CLASS_CELLS = {"recall": COUNTS[:4], "specificity": COUNTS[4:]}


class PairedMetricDifference(MetricDifference):
    """metric(first) - metric(second) (module docstring): paired-metric methods on the 8 cells; for
    recall, specificity and accuracy also the paired methods on the class's (or the summed) 2×2 table."""

    COUNTS = COUNTS
    AXES = "prevalence, tpr_first, tpr_second, tnr_first, tnr_second"
    difference = staticmethod(difference)

    def table(self, columns: dict) -> tuple:
        """The 2×2 (both, only_first, only_second, neither) the paired methods read."""
        if self.metric in _CLASS_CELLS:
            return tuple(np.asarray(columns[c]) for c in _CLASS_CELLS[self.metric])
        return tuple(np.asarray(columns[p]) + np.asarray(columns[q]) for p, q in zip(COUNTS[:4], COUNTS[4:]))

    def bounds(self, method, columns, delta, side, rng=None, **params):
        if method.takes == "paired":
            table = self.table(columns)
            empty = sum(table) == 0
            table = (*table[:3], np.where(empty, 1, table[3]))  # a stand-in, replaced by [-1, 1]
            lower, upper = method.bounds(table, delta, side, **params)
            return np.where(empty, -1.0, lower), np.where(empty, 1.0, upper)
        return method.bounds(tuple(columns[c] for c in COUNTS), delta, side, rng=rng, metric=self.metric, **params)


# Registered in the order of METRICS; a class's paired proportion (and the summed table) also takes the paired methods.
_PAIRED = ("recall", "specificity", "accuracy")
for _metric in METRICS:
    _takes = ("paired_confusion", "paired") if _metric in _PAIRED else ("paired_confusion",)
    register_estimand("paired_confusion", f"{_metric}_difference", null=0.0, takes=_takes)(PairedMetricDifference)
