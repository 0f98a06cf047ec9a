"""The clustered confusion design: a binary classifier on m clusters of s examples each.

Images of one patient, utterances of one speaker: a cluster shares its prevalence and how hard
its cases are. Three independent beta random effects, one per cluster i (the beta-binomial
model of the clustered design, designs/clustered.py, applied three times):

    π_i ~ Beta(mean prevalence, ICC icc_prevalence)     n_pos,i ~ Binomial(s, π_i)
    τ_i ~ Beta(mean tpr, ICC icc_tpr)                   tp_i ~ Binomial(n_pos,i, τ_i)
    ν_i ~ Beta(mean tnr, ICC icc_tnr)                   tn_i ~ Binomial(s - n_pos,i, ν_i)

with fn_i = n_pos,i - tp_i, fp_i = n_neg,i - tn_i; a Beta with mean μ and ICC ρ has
α = μ(1 - ρ)/ρ, β = (1 - μ)(1 - ρ)/ρ (``clustered.beta_parameters``; ρ = 0: the constant μ).
Two labels of one cluster are correlated ρ = icc_prevalence; two positives' correctness
icc_tpr; two negatives' icc_tnr (the ICC of a beta-binomial is 1/(α + β + 1): Crowder 1978,
"Beta-binomial anova for proportions"; Ridout, Demétrio & Firth 1999, "Estimating
intraclass correlation for binary data"). So, unconditionally,

    E[n_pos,i] = s·prevalence,  Var[n_pos,i] = s·prevalence(1 - prevalence)(1 + (s - 1)·icc_prevalence),
    E[tp_i | n_pos,i] = n_pos,i·tpr,  Var[tp_i | n_pos,i] = n_pos,i·tpr(1 - tpr)(1 + (n_pos,i - 1)·icc_tpr).

The effects are independent of one another, a simplification: a real cluster's prevalence and
difficulty may go together. Estimands: precision, recall and F1 of the population, i.e. the
ratios of the expected cluster totals (what Σy_i/Σx_i estimates as m grows):
precision = q·tpr/(q·tpr + (1 - q)(1 - tnr)), recall = tpr, F1 = 2q·tpr/(q(1 + tpr) + (1 - q)(1 - tnr))
(``confusion.truth``). Methods: the cluster-aware ones on the per-cluster counts
(methods/clustered_metrics.py) and, as the naive baseline, every proportion method on the
totals as if the examples were i.i.d. (``confusion.ratio_bounds``). Monte Carlo only: a test set
is kept as 3m counts (n_pos, tp, tn per cluster). Each point's test sets come from the stream keyed
by the point, drawn in fixed blocks: a multinomial count of each cluster type (n_pos, tp, tn) a test
set where the types are few (``cluster_confusions``), else π, n_pos, τ, tp, ν, tn for each block.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..estimands import Estimand, register_estimand
from ..methods.clustered_metrics import CELLS, ratio_terms
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .clustered import beta_parameters
from .confusion import PREVALENCE, ratio_bounds, truth
from .registry import register
from .sampling import BLOCK

CLUSTER_LIMIT = 100_000  # clusters of a point: each test set keeps 4 counts a cluster
MC_ONLY = "clustered_confusion: no exact engine (per-cluster counts cannot be enumerated); give reps for Monte Carlo"
ICCS = ("icc_prevalence", "icc_tpr", "icc_tnr")


def beta_effect(mean: float, icc: float, shape, rng: np.random.Generator):
    """Each cluster's rate: Beta with mean ``mean`` and ICC ``icc``; the constant ``mean`` at icc = 0
    or a mean of 0 or 1 (no random numbers drawn then)."""
    if icc == 0 or mean in (0.0, 1.0):
        return np.full(shape, float(mean))
    return rng.beta(*beta_parameters(mean, icc), size=shape)


TYPES_PER_CLUSTER = 4  # a test set is drawn as its cluster types when they number at most this many per cluster


def cluster_types(cluster_size: int, prevalence: float, tpr: float, tnr: float, icc_prevalence: float,
                  icc_tpr: float, icc_tnr: float) -> tuple[np.ndarray, np.ndarray]:
    """Every (n_pos, tp, tn) a cluster of s examples can have, shape (T, 3) with T = (s + 1)(s + 2)(s + 3)/6,
    and its probability under the module's three beta-binomial stages:
    P(n_pos)·P(tp | n_pos)·P(tn | s - n_pos), each a ``clustered.cluster_pmf``."""
    from .clustered import cluster_pmf

    types, probabilities = [], []
    for n_pos, p_pos in enumerate(cluster_pmf(cluster_size, prevalence, icc_prevalence)):
        p_tp, p_tn = cluster_pmf(n_pos, tpr, icc_tpr), cluster_pmf(cluster_size - n_pos, tnr, icc_tnr)
        tp, tn = np.meshgrid(np.arange(n_pos + 1), np.arange(cluster_size - n_pos + 1), indexing="ij")
        types.append(np.stack([np.full(tp.size, n_pos), tp.ravel(), tn.ravel()], axis=1))
        probabilities.append(p_pos * np.outer(p_tp, p_tn).ravel())
    return np.concatenate(types), np.concatenate(probabilities)


def cluster_confusions(clusters: int, cluster_size: int, prevalence: float, tpr: float, tnr: float,
                       icc_prevalence: float, icc_tpr: float, icc_tnr: float, reps: int,
                       rng: np.random.Generator) -> np.ndarray:
    """Per-cluster (tp, fn, fp, tn) of ``reps`` test sets, shape (4, reps, clusters) (module docstring), in
    the smallest unsigned type that holds a cluster's size (uint8 up to 255: an eighth of int64, so the
    core keeps a point's test sets for the next method more often).

    Clusters are i.i.d. and exchangeable, so where a cluster's possible (n_pos, tp, tn) number at most
    TYPES_PER_CLUSTER·m (``cluster_types``; 286 at s = 10) a test set is how many clusters have each,
    one Multinomial(m, their probabilities) variate, its clusters listed type by type: the same law as
    the three stages drawn cluster by cluster, at T binomial variates a test set instead of 6m (at
    m = 1,000, s = 10: 0.06-0.15 CPU-s for 2,000 test sets, 0.51 stage by stage). Otherwise π, n_pos, τ, tp, ν, tn for each cluster. Rows are drawn in
    blocks of a fixed size, so the numbers depend only on the stream and (point, reps)."""
    out = np.empty((4, reps, clusters), dtype=np.min_scalar_type(cluster_size))
    step = max(1, BLOCK // clusters)
    by_type = (cluster_size + 1) * (cluster_size + 2) * (cluster_size + 3) // 6 <= TYPES_PER_CLUSTER * clusters
    if by_type:
        types, probabilities = cluster_types(cluster_size, prevalence, tpr, tnr, icc_prevalence, icc_tpr, icc_tnr)
    for start in range(0, reps, step):
        shape = (min(step, reps - start), clusters)
        if by_type:
            count = rng.multinomial(clusters, probabilities, size=shape[0]).ravel()
            n_pos, tp, tn = (np.repeat(np.tile(column, shape[0]), count).reshape(shape) for column in types.T)
        else:
            n_pos = rng.binomial(cluster_size, beta_effect(prevalence, icc_prevalence, shape, rng))
            tp = rng.binomial(n_pos, beta_effect(tpr, icc_tpr, shape, rng))
            tn = rng.binomial(cluster_size - n_pos, beta_effect(tnr, icc_tnr, shape, rng))
        rows = slice(start, start + shape[0])
        out[0, rows], out[1, rows], out[2, rows], out[3, rows] = tp, n_pos - tp, cluster_size - n_pos - tn, tn
    return out


@register
class ClusteredConfusion(Design):
    name = "clustered_confusion"
    data = "clustered_confusion"
    estimand = "f1"
    exact_engine = False
    axes = (Axis("clusters", True, 2), Axis("cluster_size", True, 1), PREVALENCE,
            Axis("tpr", False, 0.0, 1.0), Axis("tnr", False, 0.0, 1.0),
            *(Axis(a, False, 0.0, 1.0, high_open=True) for a in ICCS))
    parametrisations = (("clusters", "cluster_size", "prevalence", "tpr", "tnr", *ICCS),)
    summary = ("m clusters of s examples; each cluster's prevalence, tpr and tnr ~ Beta around their means "
               "with intra-cluster correlations icc_prevalence, icc_tpr, icc_tnr")
    example: ClassVar[dict] = {"clusters": 6, "cluster_size": 4, "prevalence": 0.4, "tpr": 0.8, "tnr": 0.7,
                               "icc_prevalence": 0.1, "icc_tpr": 0.2, "icc_tnr": 0.1}
    size_axis = "clusters"

    def points(self, grid: dict) -> list[dict]:
        import itertools

        names = self.parametrisations[0]
        return [dict(zip(names, v)) for v in itertools.product(*(grid[k] for k in names))]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        if exact:
            return MC_ONLY
        if point["clusters"] > CLUSTER_LIMIT:
            return f"clusters: Monte Carlo keeps every cluster's counts; needs clusters <= {CLUSTER_LIMIT:,}, " \
                   f"got {point['clusters']:,}"
        return None

    keeps_test_sets = True
    sized_by = "clusters"

    def test_set_numbers(self, point: dict) -> int:
        return 3 * point["clusters"]

    def table_key(self, point: dict) -> tuple:
        return (point["clusters"], point["cluster_size"])

    def stream_identity(self, point: dict) -> dict:
        return {"design": "clustered_confusion", **{a.name: point[a.name] for a in self.axes}}

    def truth_inputs(self, point: dict) -> dict:
        return {"prevalence": point["prevalence"], "tpr": point["tpr"], "tnr": point["tnr"]}

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        """One outcome per simulated test set (weight 1): columns n_pos, tp, tn of shape (reps, clusters) and the
        cluster size (fn = n_pos - tp, fp = size - n_pos - tn: ``cells``); three small columns, so the core keeps
        a point's test sets for the next method and metric more often."""
        [pt] = points
        tp, fn, fp, tn = cluster_confusions(*(pt[a.name] for a in self.axes), reps,
                                            stream(seed, **self.stream_identity(pt)))
        return Outcomes({"n_pos": tp + fn, "tp": tp, "tn": tn, "size": np.full(reps, pt["cluster_size"])},
                        np.ones((1, reps), dtype=np.int64))


def cells(columns: dict) -> list[np.ndarray]:
    """tp, fn, fp, tn per cluster from outcome columns: given as such (the interval door), or as the design's
    n_pos, tp, tn and cluster size."""
    if "fn" in columns:
        return [np.asarray(columns[c]) for c in CELLS]
    n_pos, tp, tn = (np.asarray(columns[c], dtype=np.int32) for c in ("n_pos", "tp", "tn"))
    size = np.asarray(columns["size"], dtype=np.int32).reshape(-1, *(1,) * (n_pos.ndim - 1))
    return [tp, n_pos - tp, size - n_pos - tn, tn]


@register_estimand("clustered_confusion", "precision", "recall", "f1", takes=("clustered_confusion", "proportion"))
class ClusteredRatio(Estimand):
    """A ratio of cluster totals Σy_i/Σx_i (methods/clustered_metrics.py): the cluster-aware methods on
    the per-cluster counts; proportion methods on the totals as if i.i.d. (mapped to F1 for f1)."""

    def truth(self, inputs: dict) -> float:
        return float(truth(self.name, **inputs))

    def valid(self, columns):
        _, x = ratio_terms(self.name, *cells(columns))
        return x.sum(axis=-1) > 0

    def bounds(self, method, columns, delta, side, rng=None, **params):
        counts = cells(columns)
        if method.takes == "clustered_confusion":
            return method.bounds(tuple(counts), delta, side, rng=rng, metric=self.name, **params)
        tp, fn, fp, tn = (c.sum(axis=-1) for c in counts)
        k, l = {"precision": (tp, fp), "recall": (tp, fn), "f1": (tp, fp + fn)}[self.name]
        return ratio_bounds(self.name, method, k, l, delta, side, **params)
