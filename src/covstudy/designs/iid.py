"""The iid design: n examples, each positive with probability ``prevalence``, so a class can be empty.

n_pos ~ Binomial(n, prevalence), n_neg = n - n_pos, then tp ~ Binomial(n_pos, tpr) and
tn ~ Binomial(n_neg, tnr): the confusion matrix is Multinomial(n; π_TP, π_FN, π_FP, π_TN)
(confusion.py). Exact coverage enumerates all ~n³/6 outcomes (n <= FULL_EXACT_LIMIT), or,
for a method that needs only the sums k, l of two groups of cells (a ratio metric with a
proportion method, ``merge``), the (n + 1)(n + 2)/2 trinomial outcomes of (k, l)
(n <= MERGED_EXACT_LIMIT). Beyond those sizes, only the support (support.nested: the outcomes
carrying all but 1e-15 of the probability, at most support.RECTANGLE_LIMIT of them). Monte Carlo draws each test set from the stream keyed by
(n, prevalence, tpr, tnr) and keeps the distinct outcomes with their counts.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from .._lazy import stats
from ..seeds import stream
from .base import Axis, Outcomes, Segment
from .confusion import PREVALENCE, RATES, ConfusionDesign, cell_probabilities, cells, stratified_pmf
from .registry import register
from .sampling import BLOCK, merge as merge_counts
from .stratified import _spread
from .support import BOUND, RECTANGLE_LIMIT, nested, nested_size

FULL_EXACT_LIMIT = 200  # up to here every outcome is enumerated, ~n³/6 = 1.4 million; beyond, the support
MERGED_EXACT_LIMIT = 2000  # likewise the (n + 1)(n + 2)/2 ≈ 2 million (k, l)
MC_LIMIT = 1_000_000  # Monte Carlo outcomes are keyed (n_pos·(n + 1) + tp)·(n + 1) + tn in int64
IID_SKIP = 1e-17  # exact enumeration leaves out class sizes n_pos with P(n_pos) below IID_SKIP/(n + 1)


class ClassOutcomes(NamedTuple):
    """Distinct two-class outcomes as flat arrays; ``weight`` a probability or a count."""

    n_pos: np.ndarray
    k_pos: np.ndarray
    n_neg: np.ndarray
    k_neg: np.ndarray
    weight: np.ndarray


@register
class IID(ConfusionDesign):
    name = "iid"
    axes = (Axis("n", True, 1), PREVALENCE, *RATES)
    parametrisations = (("n", "prevalence", "tpr", "tnr"),)
    summary = "n examples, n_pos ~ Bin(n, prevalence) (a class can be empty); tp, tn as stratified"
    example = {"n": 10, "prevalence": 0.3, "tpr": 0.8, "tnr": 0.7}

    def points(self, grid: dict) -> list[dict]:
        return [{"n": n, "prevalence": q, "tpr": t1, "tnr": t0}
                for n, q, t1, t0 in itertools.product(grid["n"], grid["prevalence"], grid["tpr"], grid["tnr"])]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        n = point["n"]
        if exact and n > (FULL_EXACT_LIMIT if merge is None else MERGED_EXACT_LIMIT):
            size = nested_size(n, *_levels(point, merge))
            if size > RECTANGLE_LIMIT:
                what = "(n_pos, tp, tn)" if merge is None else "(k, l)"
                return (f"n: exact iid coverage needs at most {RECTANGLE_LIMIT:,} outcomes {what} carrying all but "
                        f"{BOUND:g} of the probability, got {size:,} at n = {n:,}, prevalence = {point['prevalence']:g}, "
                        f"tpr = {point['tpr']:g}, tnr = {point['tnr']:g}")
        if not exact and n > MC_LIMIT:
            return f"n: iid Monte Carlo needs n <= {MC_LIMIT:,} (outcomes are int64 keys), got {n:,}"
        return None

    def table_key(self, point: dict) -> tuple:
        return (point["n"],)

    def outcome_count(self, point: dict) -> int:
        n = point["n"]
        return (n + 1) * (n + 2) * (n + 3) // 6  # Σ over n_pos of (n_pos + 1)(n - n_pos + 1)

    def likely_outcomes(self, point: dict) -> float:
        n, q = point["n"], point["prevalence"]
        return _spread(n, q) * _spread(n * q, point["tpr"]) * _spread(n * (1 - q), point["tnr"])

    def stream_identity(self, point: dict) -> dict:
        return {"design": "iid", **point}

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        n = pt["n"]
        if n > (FULL_EXACT_LIMIT if merge is None else MERGED_EXACT_LIMIT):
            # The support only (support.nested); (n_pos, tp, tn) sit in the stratified tables by index.
            first, a, b, weight = nested(n, *_levels(pt, merge))
            if merge is not None:  # first = k + l, a = k
                return Outcomes({"k": a, "l": first - a}, weight[None, :])
            n_neg = n - first
            ends = np.flatnonzero(np.diff(first)) + 1
            starts, stops = np.r_[0, ends], np.r_[ends, first.size]
            tables = tuple(Segment((int(first[i]), int(n_neg[i])), slice(i, j), a[i:j] * (n_neg[i] + 1) + b[i:j])
                           for i, j in zip(starts.tolist(), stops.tolist()))
            return Outcomes(cells(first, a, n_neg, b), weight[None, :], tables)
        if merge is not None:
            pi = cell_probabilities(pt["prevalence"], pt["tpr"], pt["tnr"])
            p_k, p_l = (sum(np.asarray(pi[c]) for c in group) for group in merge)
            k, l, weight = ratio_pmf(pt["n"], float(p_k), float(p_l))
            return Outcomes({"k": k, "l": l}, weight[None, :])
        out = iid_pmf(pt["n"], pt["prevalence"], pt["tpr"], pt["tnr"])
        ends = np.flatnonzero(np.diff(out.n_pos)) + 1
        starts, stops = np.r_[0, ends], np.r_[ends, out.n_pos.size]
        tables = tuple(Segment((int(out.n_pos[a]), int(out.n_neg[a])), slice(a, b))
                       for a, b in zip(starts.tolist(), stops.tolist()))
        return Outcomes(cells(out.n_pos, out.k_pos, out.n_neg, out.k_neg), out.weight[None, :], tables)

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        out = iid_counts(pt["n"], pt["prevalence"], pt["tpr"], pt["tnr"], reps, seed)
        return Outcomes(cells(out.n_pos, out.k_pos, out.n_neg, out.k_neg), out.weight[None, :])


def _levels(point: dict, merge) -> tuple:
    """(p_first, p_a, p_b) of support.nested: n_pos, tp | n_pos, tn | n_neg; or, for a merged
    (k, l), m = k + l and k | m."""
    if merge is None:
        return point["prevalence"], point["tpr"], point["tnr"]
    pi = cell_probabilities(point["prevalence"], point["tpr"], point["tnr"])
    p_k, p_l = (float(sum(np.asarray(pi[c]) for c in group)) for group in merge)
    p_m = p_k + p_l
    return min(p_m, 1.0), (min(p_k / p_m, 1.0) if p_m > 0 else 0.0), None


def iid_pmf(n: int, prevalence: float, tpr: float, tnr: float) -> ClassOutcomes:
    """Every outcome with its probability P(n_pos)·P(k_pos | n_pos)·P(k_neg | n_neg).

    Ordered by n_pos, k_pos, k_neg. Class sizes with P(n_pos) < IID_SKIP/(n + 1) are left out
    (together less than 1e-17 of probability), which keeps the table small at extreme prevalence.
    There are sum over n_pos of (n_pos + 1)(n - n_pos + 1) ~ n³/6 outcomes.
    """
    sizes = np.arange(n + 1)
    p_size = stats.binom.pmf(sizes, n, prevalence)
    blocks = []
    for n_pos in sizes[p_size >= IID_SKIP / (n + 1)]:
        n_neg = n - n_pos
        joint = p_size[n_pos] * stratified_pmf(n_pos, n_neg, tpr, tnr)
        k_pos, k_neg = np.indices(joint.shape).reshape(2, -1)
        blocks.append((np.full_like(k_pos, n_pos), k_pos, np.full_like(k_pos, n_neg), k_neg, joint.ravel()))
    return ClassOutcomes(*(np.concatenate(parts) for parts in zip(*blocks)))


def iid_counts(n: int, prevalence: float, tpr: float, tnr: float, reps: int, seed: int) -> ClassOutcomes:
    """The distinct outcomes of ``reps`` simulated test sets and how often each occurred.

    Drawn in fixed blocks from the stream of the point (design, n, prevalence, tpr, tnr):
    per block n_pos, then k_pos, then k_neg.
    """
    rng = stream(seed, design="iid", n=n, prevalence=prevalence, tpr=tpr, tnr=tnr)
    base = n + 1
    parts = []
    for start in range(0, reps, BLOCK):
        size = min(BLOCK, reps - start)
        n_pos = rng.binomial(n, prevalence, size=size)
        k_pos = rng.binomial(n_pos, tpr)
        k_neg = rng.binomial(n - n_pos, tnr)
        parts.append(np.unique((n_pos.astype(np.int64) * base + k_pos) * base + k_neg, return_counts=True))
    key, count = merge_counts(parts)
    rest, k_neg = np.divmod(key, base)
    n_pos, k_pos = np.divmod(rest, base)
    return ClassOutcomes(n_pos, k_pos, n - n_pos, k_neg, count)


def ratio_pmf(n: int, p_k: float, p_l: float, lo: int = 0, hi: int | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (k, l) with k + l <= n and its Multinomial(n; p_k, p_l, 1 - p_k - p_l) probability.

    Written as m = k + l ~ Binomial(n, p_k + p_l) and k | m ~ Binomial(m, p_k/(p_k + p_l));
    (n + 1)(n + 2)/2 outcomes, ordered by m, then k; only those with lo <= m <= hi if given
    (the rows lo(lo + 1)/2 .. (hi + 1)(hi + 2)/2 - 1 of the whole list, the same numbers).
    """
    m, k = np.tril_indices((n if hi is None else hi) + 1)
    m, k = m[lo * (lo + 1) // 2:], k[lo * (lo + 1) // 2:]
    p_m = p_k + p_l
    theta = p_k / p_m if p_m > 0 else 0.0
    weight = stats.binom.pmf(m, n, min(p_m, 1.0)) * stats.binom.pmf(k, m, theta)
    return k, m - k, weight
