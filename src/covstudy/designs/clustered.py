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
Beyond m·s = TRIM_FROM only the support is computed (``support_pmf``): each convolution's
result is cut, from both ends, to all but a share of its mass, the shares chosen so that
the final total leaves out less than support.BOUND (an account kept by the union bound);
icc = 0 is Binomial(m·s, p) on its window (support.window_pmf).
Monte Carlo: each test set's per-cluster counts y_1..y_m (what the cluster-aware methods
read), from the stream keyed by the point; clusters of equal size are exchangeable, so a test
set is kept as its sorted counts and equal test sets once, with their count.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from threadpoolctl import ThreadpoolController

from .._lazy import stats
from ..seeds import stream
from ..estimands import Estimand, register_estimand
from ..methods.clustered import clustered_bounds
from .base import Axis, Design, Outcomes, Segment
from .registry import register
from .sampling import BLOCK
from .support import BOUND, window, window_pmf

TRIM_FROM = 20_000  # up to this many examples m·s the whole table k = 0..m·s is convolved (the old limit)
EXACT_LIMIT = 1_000_000_000  # examples m·s of an exact point (as the binomial design's EXACT_N_LIMIT)
SUPPORT_LIMIT = 150_000  # totals k on an icc > 0 point's support: the convolutions cost ~its square products
# (measured, one BLAS thread: 1.4 CPU-s at 116,000 kept, 5 CPU-s at 205,000)
SIZE_LIMIT = 100_000  # cluster_size of an icc > 0 exact point beyond TRIM_FROM: one cluster's pmf is enumerated
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
        m, s, p, icc = (point[a] for a in ("clusters", "cluster_size", "p", "icc"))
        n = m * s
        if exact and n > EXACT_LIMIT:
            return (f"clusters, cluster_size: exact clustered coverage needs clusters·cluster_size <= "
                    f"{EXACT_LIMIT:,} examples, got {n:,}")
        if exact and n > TRIM_FROM and icc > 0 and 0 < p < 1:
            if s > SIZE_LIMIT:
                return (f"cluster_size: exact clustered coverage with icc > 0 and more than {TRIM_FROM:,} examples "
                        f"needs cluster_size <= {SIZE_LIMIT:,}, got {s:,}")
            width = support_size(m, s, p, icc)
            if width > SUPPORT_LIMIT:
                return (f"clusters, cluster_size: exact clustered coverage needs at most {SUPPORT_LIMIT:,} totals k "
                        f"carrying all but {BOUND:g} of the probability, got {width:,} at clusters = {m:,}, "
                        f"cluster_size = {s:,}, p = {p:g}, icc = {icc:g}")
        if not exact and m > CLUSTER_LIMIT:
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
        m, s = point["clusters"], point["cluster_size"]
        if m * s <= TRIM_FROM or (point["icc"] > 0 and s > SIZE_LIMIT):
            return m * s + 1
        return support_size(m, s, point["p"], point["icc"])  # an exact point beyond TRIM_FROM holds only these

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
        m, s = pt["clusters"], pt["cluster_size"]
        if m * s <= TRIM_FROM:
            pmf = total_pmf(m, s, pt["p"], pt["icc"])
            return Outcomes(self.table_columns(key), pmf[None, :], (Segment(key, slice(None)),))
        # The support only: totals lo..lo + len - 1, looked up in the table over k = 0..m·s.
        lo, pmf = support_pmf(m, s, pt["p"], pt["icc"])
        k = np.arange(lo, lo + pmf.size)
        columns = {"k": k, "n": m * s, "deff": equal_clusters_deff(s, pt["icc"])}
        return Outcomes(columns, pmf[None, :], (Segment(key, slice(None), k),))

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        m, s = pt["clusters"], pt["cluster_size"]
        rng = stream(seed, **self.stream_identity(pt))
        # Clusters of equal size are exchangeable: a test set is its sorted counts (its histogram over
        # 0..s), and equal test sets are kept once with their count.
        if s + 1 < m:
            hist, count = distinct_histograms(cluster_histograms(m, s, pt["p"], pt["icc"], reps, rng))
            y = sorted_counts(hist)
        else:
            y, count = np.unique(np.sort(cluster_counts(m, s, pt["p"], pt["icc"], reps, rng), axis=1), axis=0,
                                 return_counts=True)
        k, size = y.sum(axis=1), len(y)
        columns = {"k": k, "n": np.full(size, m * s), "deff": np.full(size, equal_clusters_deff(s, pt["icc"])),
                   "successes": y, "sizes": np.broadcast_to(np.int64(s), (size, m))}  # a view: no copy
        # The methods on totals look their intervals up in the table over k = 0..m·s.
        return Outcomes(columns, count[None, :].astype(np.int64), (Segment(self.table_key(pt), slice(None), k),))


def distinct_histograms(hist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``hist`` (test sets' histograms over 0..s) and how often each occurs, in the
    order ``np.unique`` gives their sorted counts (``sorted_counts``): ascending sorted rows compare as
    their histograms do in descending order. Sorting s + 1 counts a test set, not m entries."""
    order = np.lexsort(-hist.T[::-1])  # the last key is the primary one: -hist[:, 0]
    ordered = hist[order]
    first = np.flatnonzero(np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)])
    return ordered[first], np.diff(np.r_[first, len(hist)])


def sorted_counts(hist: np.ndarray) -> np.ndarray:
    """(test sets, m): each test set's per-cluster counts in ascending order, from its histogram over 0..s."""
    values = np.broadcast_to(np.arange(hist.shape[1]), hist.shape)
    return np.repeat(values.ravel(), hist.ravel()).reshape(len(hist), -1)


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
    return betabinomial_pmf(cluster_size, p, icc)  # not scipy's betabinom: see there


def betabinomial_pmf(cluster_size: int, p: float, icc: float) -> np.ndarray:
    """BetaBinomial(j; s, α, β), j = 0..s, for 0 < p < 1 and icc > 0, summing to 1: the ratios
    f(j + 1)/f(j) = (s - j)(j + α)/((j + 1)(s - j - 1 + β)), their logs summed in extended
    precision and taken relative to the largest (the mode), then normalised by the sum.
    Within 1.4e-14 (relative) of exact rational arithmetic (tests/test_support_clustered.py).

    Both exact engines read it. scipy's betabinom.pmf, which they read before, subtracts
    log-beta values that grow with α + β = (1 - icc)/icc: up to 3e-12 relative at
    icc = 0.01-0.5, 4e-11 at 1e-4, 5e-7 at 1e-8, 2e-3 at 1e-12 (Wilson's exact coverage at
    m = 1000, s = 20, p = 0.9 was off by 3e-4 at icc = 1e-8)."""
    a, b = beta_parameters(p, icc)
    j = np.arange(cluster_size, dtype=np.longdouble)
    log_ratio = (np.log((cluster_size - j) * (j + np.longdouble(a)))
                 - np.log((j + 1) * (cluster_size - j - 1 + np.longdouble(b))))
    log_f = np.concatenate([np.zeros(1, dtype=np.longdouble), np.cumsum(log_ratio)])
    f = np.exp((log_f - log_f.max()).astype(float))
    return f / math.fsum(f)


@functools.cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()  # finds the BLAS libraries once (~8 ms); a limit then costs ~10 µs


def _one_blas_thread():
    return _controller().limit(limits=1, user_api="blas")


def total_pmf(clusters: int, cluster_size: int, p: float, icc: float) -> np.ndarray:
    """P(k), k = 0..m·s, of the total of m independent clusters: the m-fold convolution of
    ``cluster_pmf`` by repeated squaring (about log2(m) direct convolutions), on one BLAS
    thread (``support_pmf``: as in studies' workers, so the bits never depend on the threads)."""
    out = np.ones(1)
    power = cluster_pmf(cluster_size, p, icc)
    m = clusters
    with _one_blas_thread():
        while True:
            if m & 1:
                out = np.convolve(out, power)
            m >>= 1
            if not m:
                return out
            power = np.convolve(power, power)


def _events(clusters: int) -> int:
    """How many cuts ``support_pmf`` makes: the cluster pmf, then one per halving of m."""
    return clusters.bit_length()


def _cut(lo: int, pmf: np.ndarray, share: float) -> tuple[int, np.ndarray]:
    """``pmf`` (placed at lo) without its longest runs at each end that carry at most share/2
    each, scaled to sum to 1."""
    half = share / 2
    left = int(np.searchsorted(np.cumsum(pmf), half, side="right"))
    right = int(np.searchsorted(np.cumsum(pmf[::-1]), half, side="right"))
    right = min(right, pmf.size - 1 - left)  # never all of it (share is far below the mass)
    kept = pmf[left:pmf.size - right]
    return lo + left, kept / math.fsum(kept)


def support_pmf(clusters: int, cluster_size: int, p: float, icc: float) -> tuple[int, np.ndarray]:
    """``(lo, pmf)``: P(k) of the total for k = lo..lo + len(pmf) - 1, the totals carrying all but
    less than BOUND of the probability.

    The sum of m clusters is the square of the sum of ⌊m/2⌋, times one cluster if m is odd
    (m's bits from the top: about log2(m) direct convolutions, every term a sum of
    non-negative products; the last costs ~(the support)²/2 products). Each result is cut
    from both ends (``_cut``: at most a share d of its mass) and rescaled to sum 1.

    The account, in total variation (TV: the most any weighted mean of numbers in [0, 1] can
    move): cutting and rescaling a law moves it by d; a convolution's TV distance from the
    exact one is at most the sum of its factors'. A law of c clusters enters the final total
    at most m/c times (each time as c distinct clusters), and its cut's share is at most
    BOUND·c/(m·E), E the number of cuts (``_events``): so the final total is within
    E·BOUND/E = BOUND of the exact law (union bound), and so are coverage, the miss rates
    and the mean width. Rescaling also keeps the mass at 1 to rounding; without it the
    rounding of the cluster pmf's sum would grow m-fold, as it does in ``total_pmf`` (2e-12 at
    m = 1000, measured with scipy's pmf). icc = 0 is Binomial(m·s, p) on its window
    (support.window_pmf); p = 0 or 1 a point mass."""
    m, n = clusters, clusters * cluster_size
    if p in (0.0, 1.0):
        return round(n * p), np.ones(1)
    if icc == 0:
        lo, hi = (int(v[0]) for v in window(n, p, BOUND))
        return lo, window_pmf(n, np.array([p]), lo, hi)[0]
    share = BOUND / (m * _events(m))  # per cluster
    one_lo, one = _cut(0, betabinomial_pmf(cluster_size, p, icc), share)
    lo, pmf, c = one_lo, one, 1
    # np.convolve sums with BLAS's dot: one thread, as its threads' busy waiting cost 10-40x
    # the CPU on a loaded machine (measured), and the summation order then never depends on them.
    with _one_blas_thread():
        for bit in bin(m)[3:]:  # m's bits after the leading one
            lo, pmf, c = 2 * lo, np.convolve(pmf, pmf), 2 * c
            if bit == "1":
                lo, pmf, c = lo + one_lo, np.convolve(pmf, one), c + 1
            lo, pmf = _cut(lo, pmf, share * c)
    return lo, pmf


def _tilted(log_f: np.ndarray, j: np.ndarray, theta: float) -> tuple[float, float]:
    """(mean, rate) of one cluster's count under the pmf tilted by e^(θ·j): the rate
    I = θ·mean - log M(θ), M the moment generating function."""
    a = log_f + theta * j
    top = a.max()
    w = np.exp(a - top)
    total = w.sum()
    mean = float(w @ j / total)
    return mean, theta * mean - (top + np.log(total))


@functools.lru_cache(maxsize=64)
def support_size(clusters: int, cluster_size: int, p: float, icc: float) -> int:
    """How many totals ``support_pmf`` keeps, at most (checked before any work; one cluster's pmf
    and ~200 sums over it).

    The Cramér–Chernoff bound: P(K >= m·x) <= exp(-m·I(x)) for x above the mean, I(x) =
    sup_θ θx - log M(θ) (and the mirror below), M the moment generating function of one
    cluster's count. The last cut removes from each end up to BOUND/(2E) of the mass, so it
    keeps no total beyond the x with m·I(x) = log(2E/BOUND) (up to the rounding of what it
    cuts): x is found by bisection of θ (the tilted mean x(θ) and I are monotone in θ),
    rounded outward. The bound is not tight, so the count is a few % above what is kept."""
    m = clusters
    if p in (0.0, 1.0):
        return 1
    if icc == 0:
        lo, hi = window(m * cluster_size, p, BOUND)
        return int(hi[0] - lo[0] + 1)
    f = betabinomial_pmf(cluster_size, p, icc)
    j = np.flatnonzero(f).astype(float)  # counts of zero pmf (underflow) add nothing to M
    log_f = np.log(f[f > 0])
    t = np.log(2 * _events(m) / BOUND)
    ends = []
    for sign, far_end in ((-1.0, j[0]), (1.0, j[-1])):
        # a single count holding more than e^(-t/m): the sum of m can reach m·far_end
        if -m * log_f[0 if sign < 0 else -1] < t:
            ends.append(m * far_end)
            continue
        near, far = 0.0, 1.0 / (cluster_size + 1)
        while m * _tilted(log_f, j, sign * far)[1] < t and far < 1e6:
            near, far = far, 2 * far
        if m * _tilted(log_f, j, sign * far)[1] < t:  # the rate's limit is t to rounding: no cut
            ends.append(m * far_end)
            continue
        for _ in range(60):
            mid = 0.5 * (near + far)
            if m * _tilted(log_f, j, sign * mid)[1] < t:
                near = mid
            else:
                far = mid
        ends.append(m * _tilted(log_f, j, sign * far)[0])
    lo, hi = max(0, int(np.floor(ends[0])) - 1), min(m * cluster_size, int(np.ceil(ends[1])) + 1)
    return hi - lo + 1


def cluster_histograms(clusters: int, cluster_size: int, p: float, icc: float, reps: int,
                       rng: np.random.Generator) -> np.ndarray:
    """(reps, s + 1) int64: how many of each of ``reps`` simulated test sets' m clusters have 0, 1, ..., s
    correct, for s + 1 < m (the sizes ``cluster_counts`` draws as histograms).

    With icc > 0 the clusters of a test set are i.i.d. beta-binomial and exchangeable, so a test set
    is its histogram, one Multinomial(m, ``betabinomial_pmf``) variate: the same law as π ~ Beta then
    y ~ Binomial(s, π) for each cluster, at s + 1 numbers a test set instead of 2m (the audit of a
    grouped file draws ~10⁸ cluster counts). With icc = 0 (or p = 0, 1) a binomial variate a cluster,
    counted. Rows are drawn in blocks of a fixed size, so the numbers depend only on the stream and
    (point, reps).
    """
    hist = np.empty((reps, cluster_size + 1), dtype=np.int64)
    plain = icc == 0 or p in (0.0, 1.0)
    pmf = None if plain else betabinomial_pmf(cluster_size, p, icc)
    step = max(1, BLOCK // clusters)
    for start in range(0, reps, step):
        rows = slice(start, min(reps, start + step))
        size = rows.stop - start
        if plain:
            y = rng.binomial(cluster_size, p, size=(size, clusters))
            offset = (np.arange(size, dtype=np.int64) * (cluster_size + 1))[:, None]
            hist[rows] = np.bincount((y + offset).ravel(), minlength=size * (cluster_size + 1)).reshape(size, -1)
        else:
            hist[rows] = rng.multinomial(clusters, pmf, size=size)
    return hist


def cluster_counts(clusters: int, cluster_size: int, p: float, icc: float, reps: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Per-cluster correct counts of ``reps`` simulated test sets, shape (reps, clusters), int64.

    Clusters fewer than s + 1: the counts of ``cluster_histograms`` (the same draws), ascending within
    a test set. Otherwise one draw a cluster: with icc > 0 the inverse of the beta-binomial CDF at one
    uniform, y = #{j < s : F(j) <= u}; with icc = 0 (or p = 0, 1) a binomial variate. Rows are drawn
    in blocks of a fixed size, so the numbers depend only on the stream and (point, reps).
    """
    if cluster_size + 1 < clusters:
        return sorted_counts(cluster_histograms(clusters, cluster_size, p, icc, reps, rng))
    out = np.empty((reps, clusters), dtype=np.int64)
    plain = icc == 0 or p in (0.0, 1.0)
    cdf = None if plain else np.cumsum(betabinomial_pmf(cluster_size, p, icc))[:-1]  # F(0), ..., F(s - 1)
    step = max(1, BLOCK // clusters)
    for start in range(0, reps, step):
        shape = (min(step, reps - start), clusters)
        if plain:
            out[start:start + shape[0]] = rng.binomial(cluster_size, p, size=shape)
        else:
            out[start:start + shape[0]] = np.searchsorted(cdf, rng.random(shape), side="right")
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
