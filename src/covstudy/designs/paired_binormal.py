"""The paired binormal design: two classifiers' scores of the same n_pos positives and n_neg negatives.

Within each class the two scores of a case are bivariate normal with unit variances and
correlation ρ (``correlation``, the same in both classes): negatives (Y₁, Y₂) ~ N((0, 0), Σ),
positives (X₁, X₂) ~ N((μ₁, μ₂), Σ), Σ = [[1, ρ], [ρ, 1]], with μᵣ = √2·Φ⁻¹(aucᵣ) so that
the true AUCs are P(Xᵣ > Yᵣ) = Φ(μᵣ/√2) = aucᵣ and the true difference is
auc_first - auc_second, in closed form.

A study gives the class sizes (``n_pos``, ``n_neg``) or a test-set size and a prevalence
(n_pos = round(n·prevalence), as the stratified design). Monte Carlo only (continuous
scores); each point's test sets come from the stream keyed by (n_pos, n_neg, auc_first,
auc_second, correlation), in blocks of test sets (negatives, then positives), shared by all
methods.
"""

from __future__ import annotations

import itertools
from typing import ClassVar

import numpy as np
from scipy import special

from ..estimands import Estimand, register_estimand
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .confusion import PREVALENCE, class_sizes
from .registry import register
from .sampling import BLOCK, dense_ranks

MC_LIMIT = 200_000  # n_pos + n_neg of one simulated test set
MC_ONLY = ("reps: the paired_binormal design has Monte Carlo coverage only (its test sets are continuous "
           "scores, which cannot be enumerated); give reps (e.g. reps=2000)")
_AUC = dict(low=0.0, high=1.0, low_open=True, high_open=True)


def paired_binormal_scores(n_pos: int, n_neg: int, auc_first: float, auc_second: float, correlation: float,
                           reps: int, seed: int) -> dict:
    """``reps`` test sets: columns pos_first, pos_second (reps, n_pos) and neg_first, neg_second (reps, n_neg).

    Per block of test sets: the negatives' two standard normals (Z₁, Z₂), then the positives';
    the second score is ρZ₁ + sqrt(1 - ρ²)Z₂. Each model's scores are stored as their pooled dense ranks
    (unsigned integers, as designs/binormal.py): every method reads only their order, the ranks are made
    once per point for all methods, and the DeLong placements of ranks are counted, not sorted."""
    rng = stream(seed, design="paired_binormal", n_pos=n_pos, n_neg=n_neg, auc_first=auc_first,
                 auc_second=auc_second, correlation=correlation)
    mu = np.sqrt(2) * special.ndtri([auc_first, auc_second])
    rest = np.sqrt(1 - correlation**2)
    dtype = np.min_scalar_type(n_pos + n_neg)
    out = {c: np.empty((reps, size), dtype=dtype) for c, size in (("pos_first", n_pos), ("neg_first", n_neg),
                                                                  ("pos_second", n_pos), ("neg_second", n_neg))}
    step = max(1, BLOCK // (2 * (n_pos + n_neg)))
    for start in range(0, reps, step):
        rows = slice(start, min(reps, start + step))
        count = rows.stop - rows.start
        y = rng.standard_normal((2, count, n_neg))
        x = rng.standard_normal((2, count, n_pos))
        for model, (pos, neg) in (("first", (mu[0] + x[0], y[0])),
                                  ("second", (mu[1] + correlation * x[0] + rest * x[1], correlation * y[0] + rest * y[1]))):
            ranked = dense_ranks(np.concatenate([pos, neg], axis=1))
            out[f"pos_{model}"][rows], out[f"neg_{model}"][rows] = ranked[:, :n_pos], ranked[:, n_pos:]
    return out


@register
class PairedBinormal(Design):
    name = "paired_binormal"
    data = "paired_scores"
    estimand = "auc_difference"
    exact_engine = False
    axes = (Axis("n", True, 4), PREVALENCE, Axis("n_pos", True, 2), Axis("n_neg", True, 2),
            Axis("auc_first", False, **_AUC), Axis("auc_second", False, **_AUC),
            Axis("correlation", False, -1.0, 1.0, low_open=True, high_open=True))
    parametrisations = (("n_pos", "n_neg", "auc_first", "auc_second", "correlation"),
                        ("n", "prevalence", "auc_first", "auc_second", "correlation"))
    summary = ("two classifiers' scores of the same cases: bivariate binormal per class (correlation), "
               "true AUCs auc_first, auc_second")
    example: ClassVar[dict] = {"n_pos": 12, "n_neg": 18, "auc_first": 0.8, "auc_second": 0.7, "correlation": 0.5}

    def derive(self, point: dict) -> dict:
        point = dict(point)
        if "n_pos" not in point:
            point["n_pos"], point["n_neg"] = class_sizes(point["n"], point["prevalence"])
        return {a.name: point[a.name] for a in self.axes if a.name in point}

    def points(self, grid: dict) -> list[dict]:
        given = next(o for o in self.parametrisations if all(grid.get(k) is not None for k in o))
        return [self.derive(dict(zip(given, combo))) for combo in itertools.product(*(grid[a] for a in given))]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        if point["n_pos"] < 2 or point["n_neg"] < 2:
            return (f"n_pos, n_neg: the paired_binormal design needs n_pos, n_neg >= 2, got n_pos = {point['n_pos']}, "
                    f"n_neg = {point['n_neg']}")
        if exact:
            return MC_ONLY
        size = point["n_pos"] + point["n_neg"]
        if size > MC_LIMIT:
            return f"n_pos, n_neg: paired_binormal Monte Carlo needs n_pos + n_neg <= {MC_LIMIT:,}, got {size:,}"
        return None

    keeps_test_sets = True
    sized_by = "n_pos, n_neg"

    def test_set_numbers(self, point: dict) -> int:
        return 2 * (point["n_pos"] + point["n_neg"])

    def table_key(self, point: dict) -> tuple:
        return (point["n_pos"], point["n_neg"])

    def stream_identity(self, point: dict) -> dict:
        return {"design": "paired_binormal",
                **{k: point[k] for k in ("n_pos", "n_neg", "auc_first", "auc_second", "correlation")}}

    def truth_inputs(self, point: dict) -> dict:
        return {"auc_first": point["auc_first"], "auc_second": point["auc_second"]}

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        """One outcome per simulated test set (weight 1)."""
        [pt] = points
        columns = paired_binormal_scores(pt["n_pos"], pt["n_neg"], pt["auc_first"], pt["auc_second"],
                                         pt["correlation"], reps, seed)
        return Outcomes(columns, np.ones((1, reps), dtype=np.int64))


@register_estimand("paired_scores", "auc_difference", takes=("paired_scores",), null=0.0)
class AUCDifference(Estimand):
    """AUC(first) - AUC(second) on the same cases: paired AUC-difference methods on each test set's scores."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["auc_first"] - inputs["auc_second"])

    def valid(self, columns):
        return np.ones(np.shape(columns["pos_first"])[0], dtype=bool)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds(tuple(columns[c] for c in ("pos_first", "neg_first", "pos_second", "neg_second")),
                             delta, side, rng=rng, **params)
