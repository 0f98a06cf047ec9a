"""The clustered binormal design: a classifier's scores on m clusters of s examples each.

Cluster i has a prevalence π_i ~ Beta(mean prevalence, ICC icc_prevalence) (the beta-binomial
random effect of designs/clustered.py) and a score shift u_i ~ N(0, icc_score) shared by all its
examples; example j of cluster i is positive with probability π_i and scores

    S_ij = μ·label_ij + u_i + e_ij,   e_ij ~ N(0, 1 - icc_score),   μ = √2·Φ⁻¹(auc),

so within a class the scores are N(0, 1) (negatives) or N(μ, 1) (positives), two scores of one
cluster and class are correlated icc_score (a random-intercept binormal model: Obuchowski 1997,
"Nonparametric analysis of clustered ROC curve data"; Beam 1998, "Analysis of clustered data in
receiver operating characteristic studies"), and a positive and a negative of different clusters
differ by N(μ, 2): the estimand, the population AUC, is P(X > Y) = Φ(μ/√2) = auc. (A pair within
one cluster shares u_i, so its AUC is Φ(μ/sqrt(2(1 - icc_score))), higher; such pairs are about a
1/m share of all pairs, so the Mann–Whitney AUC of a test set is biased up by O(1/m), which the
coverage counts.)

Monte Carlo only. A test set is kept as its scores (reps, m·s), labels (int8) and the cluster
ids (example j of cluster i at i·s + j; one row shared by all test sets). Each point's test sets
come from the stream keyed by the point, drawn in fixed blocks (π, labels, u, e for each block).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._lazy import stats
from ..estimands import Estimand, register_estimand
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .clustered_confusion import beta_effect
from .confusion import PREVALENCE
from .registry import register
from .sampling import BLOCK

MC_LIMIT = 2_000_000  # examples m·s of a point: each test set keeps every score
MC_ONLY = "clustered_binormal: no exact engine (continuous scores); give reps for Monte Carlo"


def clustered_scores(clusters: int, cluster_size: int, prevalence: float, auc: float, icc_prevalence: float,
                     icc_score: float, reps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(scores (reps, m·s) float64, labels (reps, m·s) int8) of ``reps`` test sets (module docstring);
    drawn in blocks of a fixed number of test sets, so the numbers depend only on the stream and (point, reps)."""
    n = clusters * cluster_size
    mu = np.sqrt(2.0) * float(stats.norm.ppf(auc))
    scores, labels = np.empty((reps, n)), np.empty((reps, n), dtype=np.int8)
    step = max(1, BLOCK // n)
    for start in range(0, reps, step):
        k = min(step, reps - start)
        pi = beta_effect(prevalence, icc_prevalence, (k, clusters), rng)
        lab = rng.random((k, clusters, cluster_size)) < pi[:, :, None]
        shift = rng.normal(0.0, np.sqrt(icc_score), (k, clusters, 1)) if icc_score > 0 else 0.0
        noise = rng.normal(0.0, np.sqrt(1.0 - icc_score), (k, clusters, cluster_size))
        rows = slice(start, start + k)
        scores[rows] = (mu * lab + shift + noise).reshape(k, n)
        labels[rows] = lab.reshape(k, n)
    return scores, labels


@register
class ClusteredBinormal(Design):
    name = "clustered_binormal"
    data = "clustered_scores"
    estimand = "auc"
    exact_engine = False
    axes = (Axis("clusters", True, 2), Axis("cluster_size", True, 1), PREVALENCE,
            Axis("auc", False, 0.0, 1.0, low_open=True, high_open=True),
            Axis("icc_prevalence", False, 0.0, 1.0, high_open=True), Axis("icc_score", False, 0.0, 1.0, high_open=True))
    parametrisations = (("clusters", "cluster_size", "prevalence", "auc", "icc_prevalence", "icc_score"),)
    summary = ("m clusters of s examples; cluster prevalence ~ Beta (icc_prevalence), scores binormal with a "
               "per-cluster shift (icc_score); true AUC auc")
    example: ClassVar[dict] = {"clusters": 6, "cluster_size": 5, "prevalence": 0.4, "auc": 0.8,
                               "icc_prevalence": 0.1, "icc_score": 0.3}
    size_axis = "clusters"

    def points(self, grid: dict) -> list[dict]:
        import itertools

        names = self.parametrisations[0]
        return [dict(zip(names, v)) for v in itertools.product(*(grid[k] for k in names))]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        if exact:
            return MC_ONLY
        n = point["clusters"] * point["cluster_size"]
        if n > MC_LIMIT:
            return f"clusters, cluster_size: Monte Carlo keeps every score; needs clusters·cluster_size <= " \
                   f"{MC_LIMIT:,}, got {n:,}"
        return None

    keeps_test_sets = True
    sized_by = "clusters, cluster_size"

    def test_set_numbers(self, point: dict) -> int:
        return 2 * point["clusters"] * point["cluster_size"]

    def table_key(self, point: dict) -> tuple:
        return (point["clusters"], point["cluster_size"])

    def stream_identity(self, point: dict) -> dict:
        return {"design": "clustered_binormal", **{a.name: point[a.name] for a in self.axes}}

    def truth_inputs(self, point: dict) -> dict:
        return {"auc": point["auc"]}

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        """One outcome per simulated test set (weight 1): scores, labels (reps, m·s) and the cluster ids."""
        [pt] = points
        scores, labels = clustered_scores(*(pt[a.name] for a in self.axes), reps,
                                          stream(seed, **self.stream_identity(pt)))
        ids = np.repeat(np.arange(pt["clusters"]), pt["cluster_size"])
        return Outcomes({"scores": scores, "labels": labels, "clusters": np.broadcast_to(ids, scores.shape)},
                        np.ones((1, reps), dtype=np.int64))


@register_estimand("clustered_scores", "auc", takes=("clustered_scores",))
class ClusteredAUC(Estimand):
    """The population AUC of the clustered binormal design: clustered AUC methods on each test set's
    scores, labels and cluster ids (methods/clustered_auc.py)."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["auc"])

    def valid(self, columns):
        lab = np.asarray(columns["labels"])
        pos = lab.sum(axis=-1)
        return (pos > 0) & (pos < lab.shape[-1])

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((columns["scores"], columns["labels"], columns["clusters"]), delta, side, rng=rng,
                             **params)
