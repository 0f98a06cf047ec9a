"""The clustered design: a test set of m clusters of s examples each, correlated within a cluster.

Frames of one video, utterances of one speaker, images of one patient: examples of a cluster
share its difficulty. Cluster i's accuracy π_i ~ Beta(α, β) with mean p and intra-cluster
correlation icc = 1/(α + β + 1), i.e.

    α = p(1 - icc)/icc,   β = (1 - p)(1 - icc)/icc,

and its correct count y_i ~ Binomial(s, π_i), so y_i ~ BetaBinomial(s, α, β) with
E[y_i] = s·p and Var[y_i] = s·p(1 - p)·(1 + (s - 1)·icc) (Saha, Miller & Wang 2016;
Short et al. 2020). icc = 0 is the binomial design: every π_i = p. The estimand is p.

Exact: the total k = Σ y_i of m independent clusters has the m-fold convolution of the
beta-binomial pmf, computed by repeated squaring with direct (FFT-free) convolution, so
every term is a sum of non-negative products. That serves the methods that read only
(k, n = m·s): the proportion methods applied naively to the totals, and the oracle intervals
on the effective sample size (``deff`` = 1 + (s - 1)·icc, the true design effect).
Monte Carlo: each test set's per-cluster counts y_1..y_m (what the cluster-aware methods
read), from the stream keyed by the point; clusters of equal size are exchangeable, so a test
set is kept as its sorted counts and equal test sets once, with their count.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..seeds import stream
from ..estimands import Estimand, register_estimand
from ..methods.clustered import clustered_bounds
from .base import Axis, Design, Outcomes, Segment
from .registry import register
from .sampling import BLOCK

EXACT_LIMIT = 20_000  # examples m·s of an exact point: the last squaring costs ~(m·s)²/4 products
CLUSTER_LIMIT = 100_000  # clusters of a Monte Carlo point: each test set keeps its m counts


@register
class Clustered(Design):
    name = "clustered"
    data = "clustered"
    axes = (Axis("clusters", True, 2), Axis("cluster_size", True, 1),
            Axis("p", False, 0.0, 1.0), Axis("icc", False, 0.0, 1.0, high_open=True))
    parametrisations = (("clusters", "cluster_size", "p", "icc"),)
    estimand = "accuracy"
    summary = "m clusters of s examples; cluster accuracy ~ Beta(mean p, intra-cluster correlation icc)"
    example = {"clusters": 4, "cluster_size": 3, "p": 0.7, "icc": 0.2}

    size_axis = "clusters"  # at a given cluster size

    def points(self, grid: dict) -> list[dict]:
        return [{"clusters": m, "cluster_size": s, "p": p, "icc": r}
                for m in grid["clusters"] for s in grid["cluster_size"] for p in grid["p"] for r in grid["icc"]]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        n = point["clusters"] * point["cluster_size"]
        if exact and n > EXACT_LIMIT:
            return (f"clusters, cluster_size: exact clustered coverage needs clusters·cluster_size <= "
                    f"{EXACT_LIMIT:,} examples, got {n:,}")
        if point["clusters"] > CLUSTER_LIMIT:
            return f"clusters: Monte Carlo keeps every cluster's count; needs clusters <= {CLUSTER_LIMIT:,}, " \
                   f"got {point['clusters']:,}"
        return None

    keeps_test_sets = True
    sized_by = "clusters"

    def test_set_numbers(self, point: dict) -> int:
        return 2 * point["clusters"]  # successes and sizes of every cluster

    def table_key(self, point: dict) -> tuple:
        return (point["clusters"], point["cluster_size"], point["icc"])

    def outcome_count(self, point: dict) -> int:
        return point["clusters"] * point["cluster_size"] + 1

    def stream_identity(self, point: dict) -> dict:
        return {"design": "clustered", **{a.name: point[a.name] for a in self.axes}}

    def truth_inputs(self, point: dict) -> dict:
        return {"p": point["p"]}

    def table_columns(self, key: tuple) -> dict:
        m, s, icc = key
        return {"k": np.arange(m * s + 1), "n": m * s, "deff": equal_clusters_deff(s, icc)}

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        key = self.table_key(pt)
        pmf = total_pmf(pt["clusters"], pt["cluster_size"], pt["p"], pt["icc"])
        return Outcomes(self.table_columns(key), pmf[None, :], (Segment(key, slice(None)),))

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        m, s = pt["clusters"], pt["cluster_size"]
        y = cluster_counts(m, s, pt["p"], pt["icc"], reps, stream(seed, **self.stream_identity(pt)))
        # Clusters of equal size are exchangeable: a test set is its sorted counts, and equal
        # test sets are kept once with their count.
        y.sort(axis=1)
        y, count = np.unique(y, axis=0, return_counts=True)
        k, size = y.sum(axis=1), len(y)
        columns = {"k": k, "n": np.full(size, m * s), "deff": np.full(size, equal_clusters_deff(s, pt["icc"])),
                   "successes": y, "sizes": np.full((size, m), s)}
        # The methods on totals look their intervals up in the table over k = 0..m·s.
        return Outcomes(columns, count[None, :].astype(np.int64), (Segment(self.table_key(pt), slice(None), k),))


def equal_clusters_deff(cluster_size, icc):
    """The design effect of equal clusters of size s: 1 + (s - 1)·icc (Kish 1965; methods.clustered.design_effect for any sizes)."""
    return 1.0 + (np.asarray(cluster_size, dtype=float) - 1.0) * icc


def beta_parameters(p: float, icc: float) -> tuple[float, float]:
    """(α, β) of the Beta with mean p and intra-cluster correlation icc in (0, 1)."""
    scale = (1.0 - icc) / icc
    return p * scale, (1.0 - p) * scale


def cluster_pmf(cluster_size: int, p: float, icc: float) -> np.ndarray:
    """P(y = j), j = 0..s, of one cluster's correct count: BetaBinomial(s, α, β); Binomial(s, p) at icc = 0
    and a point mass at s·p when p is 0 or 1."""
    j = np.arange(cluster_size + 1)
    if p in (0.0, 1.0):
        return (j == round(cluster_size * p)).astype(float)
    if icc == 0:
        return stats.binom.pmf(j, cluster_size, p)
    return stats.betabinom.pmf(j, cluster_size, *beta_parameters(p, icc))


def total_pmf(clusters: int, cluster_size: int, p: float, icc: float) -> np.ndarray:
    """P(k), k = 0..m·s, of the total of m independent clusters: the m-fold convolution of
    ``cluster_pmf`` by repeated squaring (about log2(m) direct convolutions)."""
    out = np.ones(1)
    power = cluster_pmf(cluster_size, p, icc)
    m = clusters
    while True:
        if m & 1:
            out = np.convolve(out, power)
        m >>= 1
        if not m:
            return out
        power = np.convolve(power, power)


def cluster_counts(clusters: int, cluster_size: int, p: float, icc: float, reps: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Per-cluster correct counts of ``reps`` simulated test sets, shape (reps, clusters), int64.

    Rows are drawn in blocks of a fixed size (π then y for each block), so the numbers depend
    only on the stream and (point, reps).
    """
    out = np.empty((reps, clusters), dtype=np.int64)
    step = max(1, BLOCK // clusters)
    for start in range(0, reps, step):
        shape = (min(step, reps - start), clusters)
        if icc == 0 or p in (0.0, 1.0):
            pi = p
        else:
            pi = rng.beta(*beta_parameters(p, icc), size=shape)
        out[start:start + shape[0]] = rng.binomial(cluster_size, pi, size=shape)
    return out


@register_estimand("clustered", "accuracy", takes=("proportion", "deff", "clustered"))
class ClusteredAccuracy(Estimand):
    """p of the clustered design: clustered methods on the per-cluster counts, oracles on the
    totals and the true design effect, proportion methods on the totals (methods/clustered.py)."""

    def truth(self, inputs: dict) -> float:
        return inputs["p"]

    def valid(self, columns):
        return np.ones(np.shape(columns["k"]), dtype=bool)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return clustered_bounds(method, columns, delta, side, rng=rng, **params)
