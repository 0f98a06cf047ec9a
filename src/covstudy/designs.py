"""Data-generating mechanisms: the distribution of a test set's outcome, exactly or by simulation.

Binomial design: a test set of n examples, each correct with probability p, so the
number of correct predictions k ~ Binomial(n, p). Its outcome space is k = 0..n.
Two-class designs (stratified, iid) for balanced accuracy are at the end of the module.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from .seeds import stream

_BLOCK = 1 << 20  # draw at most this many replicates at once to bound memory


def binomial_pmf(n: int, p: np.ndarray) -> np.ndarray:
    """Exact outcome probabilities, shape (len(p), n + 1): Binomial(k; n, p) for k = 0..n."""
    p = np.atleast_1d(np.asarray(p, dtype=float))
    return stats.binom.pmf(np.arange(n + 1), n, p[:, None])


def binomial_counts(n: int, p: float, reps: int, seed: int) -> np.ndarray:
    """Histogram over k = 0..n of ``reps`` simulated test sets (each k ~ Binomial(n, p)).

    The replicates are drawn one by one from the stream of the grid point (n, p), so
    the histogram is the same whichever other points or methods are computed.
    """
    rng = stream(seed, design="binomial", n=n, p=p)
    hist = np.zeros(n + 1, dtype=np.int64)
    for start in range(0, reps, _BLOCK):
        k = rng.binomial(n, p, size=min(_BLOCK, reps - start))
        hist += np.bincount(k, minlength=n + 1)
    return hist


# ---------------------------------------------------------------------------------------------
# Two-class designs (balanced accuracy). An outcome is (n_pos, k_pos, n_neg, k_neg): k_pos of
# the n_pos positives and k_neg of the n_neg negatives are classified correctly.
#
# stratified: fixed n_pos, n_neg; k_pos ~ Binomial(n_pos, tpr), k_neg ~ Binomial(n_neg, tnr).
# iid:        n examples with positive prevalence: n_pos ~ Binomial(n, prevalence),
#             n_neg = n - n_pos, then k_pos, k_neg as above (a class can be empty).


class Outcomes(NamedTuple):
    """A distribution over two-class outcomes as flat arrays, one entry per distinct outcome.

    ``weight`` is a probability (exact engine) or a count of simulated test sets (Monte Carlo).
    """

    n_pos: np.ndarray
    k_pos: np.ndarray
    n_neg: np.ndarray
    k_neg: np.ndarray
    weight: np.ndarray


IID_SKIP = 1e-17  # iid_pmf leaves out class sizes n_pos with P(n_pos) below IID_SKIP/(n + 1)


def stratified_pmf(n_pos: int, n_neg: int, tpr: float, tnr: float) -> np.ndarray:
    """P(k_pos, k_neg) = Binomial(k_pos; n_pos, tpr)·Binomial(k_neg; n_neg, tnr), shape (n_pos + 1, n_neg + 1)."""
    return np.outer(stats.binom.pmf(np.arange(n_pos + 1), n_pos, tpr),
                    stats.binom.pmf(np.arange(n_neg + 1), n_neg, tnr))


def stratified_counts(n_pos: int, n_neg: int, tpr: float, tnr: float, reps: int, seed: int) -> Outcomes:
    """The distinct outcomes of ``reps`` simulated stratified test sets and how often each occurred.

    Drawn in fixed blocks from the stream of the grid point (design, n_pos, n_neg, tpr, tnr).
    """
    rng = stream(seed, design="stratified", n_pos=n_pos, n_neg=n_neg, tpr=tpr, tnr=tnr)
    keys = []
    for start in range(0, reps, _BLOCK):
        size = min(_BLOCK, reps - start)
        k_pos = rng.binomial(n_pos, tpr, size=size)
        k_neg = rng.binomial(n_neg, tnr, size=size)
        keys.append(_unique_counts(k_pos.astype(np.int64) * (n_neg + 1) + k_neg))
    key, count = _merge(keys)
    k_pos, k_neg = np.divmod(key, n_neg + 1)
    return Outcomes(np.full_like(key, n_pos), k_pos, np.full_like(key, n_neg), k_neg, count)


def iid_pmf(n: int, prevalence: float, tpr: float, tnr: float) -> Outcomes:
    """Every outcome of the iid design with its probability P(n_pos)·P(k_pos | n_pos)·P(k_neg | n_neg).

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
    return Outcomes(*(np.concatenate(parts) for parts in zip(*blocks)))


def iid_counts(n: int, prevalence: float, tpr: float, tnr: float, reps: int, seed: int) -> Outcomes:
    """The distinct outcomes of ``reps`` simulated iid test sets and how often each occurred.

    Drawn in fixed blocks from the stream of the grid point (design, n, prevalence, tpr, tnr):
    per block n_pos, then k_pos, then k_neg. Requires n < 2·10⁶ (outcomes are keyed in int64).
    """
    rng = stream(seed, design="iid", n=n, prevalence=prevalence, tpr=tpr, tnr=tnr)
    base = n + 1
    keys = []
    for start in range(0, reps, _BLOCK):
        size = min(_BLOCK, reps - start)
        n_pos = rng.binomial(n, prevalence, size=size)
        k_pos = rng.binomial(n_pos, tpr)
        k_neg = rng.binomial(n - n_pos, tnr)
        keys.append(_unique_counts((n_pos.astype(np.int64) * base + k_pos) * base + k_neg))
    key, count = _merge(keys)
    rest, k_neg = np.divmod(key, base)
    n_pos, k_pos = np.divmod(rest, base)
    return Outcomes(n_pos, k_pos, n - n_pos, k_neg, count)


def _unique_counts(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.unique(key, return_counts=True)


def _merge(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Sum the counts of equal keys over blocks; keys come out sorted."""
    keys = np.concatenate([k for k, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    key, inverse = np.unique(keys, return_inverse=True)
    return key, np.bincount(inverse, weights=counts, minlength=key.size).astype(np.int64)
