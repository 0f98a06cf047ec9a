"""Data-generating mechanisms: the distribution of a test set's outcome, exactly or by simulation.

Binomial design: a test set of n examples, each correct with probability p, so the
number of correct predictions k ~ Binomial(n, p). Its outcome space is k = 0..n.

Simulation only ever needs the histogram of k over ``reps`` test sets, because k is a
sufficient statistic for every interval method. Two samplers draw that histogram:

- ``"replicates"``: draw the ``reps`` values of k one by one and count them (cost ∝ reps);
- ``"histogram"``: draw the histogram at once from Multinomial(reps, Binomial(n, p) pmf)
  (cost ∝ the support of the pmf, whatever reps). The counts of ``reps`` independent
  Binomial(n, p) draws *are* Multinomial(reps, pmf) distributed, so both samplers give the
  same distribution of results; they consume the random stream differently, so their
  numbers for one seed differ.

Two-class designs (stratified, iid) for balanced accuracy are at the end of the module.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import special, stats

from .seeds import stream

_BLOCK = 1 << 20  # draw at most this many replicates at once to bound memory
SAMPLERS = ("auto", "histogram", "replicates")
_LOG_TINY = 700.0  # k with n·KL(k/n ‖ p) > this have pmf(k) < e^-700 ≈ 1e-304


def binomial_pmf(n: int, p: np.ndarray) -> np.ndarray:
    """Exact outcome probabilities, shape (len(p), n + 1): Binomial(k; n, p) for k = 0..n."""
    p = np.atleast_1d(np.asarray(p, dtype=float))
    k = np.arange(n + 1)
    out = np.empty((len(p), n + 1))
    step = max(1, _BLOCK // (n + 1))  # rows at a time, to bound scipy's temporaries
    for s in range(0, len(p), step):
        out[s:s + step] = stats.binom.pmf(k, n, p[s:s + step, None])
    return out


def choose_sampler(n: int, reps: int) -> str:
    """The faster sampler for (n, reps): per replicate when reps is small next to n.

    The histogram sampler costs about 0.1 µs per outcome k = 0..n plus the pmf on its
    support; drawing replicates costs about 0.05-0.2 µs each. The choice depends only on
    (n, reps), so results stay reproducible from the arguments.
    """
    return "replicates" if reps < 2 * (n + 1) else "histogram"


def binomial_counts(n: int, p, reps: int, seed: int, sampler: str = "auto") -> np.ndarray:
    """Histogram over k = 0..n of ``reps`` simulated test sets (each k ~ Binomial(n, p)).

    Shape ``np.shape(p) + (n + 1,)``: one histogram per p. Each p has its own stream,
    keyed by the grid point (n, p), so its histogram is the same whichever other points or
    methods are computed. ``sampler`` is ``"histogram"``, ``"replicates"`` or ``"auto"``
    (:func:`choose_sampler`); see the module docstring.
    """
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    if sampler == "auto":
        sampler = choose_sampler(n, reps)
    p_flat = np.asarray(p, dtype=float).reshape(-1)
    rngs = [stream(seed, design="binomial", n=n, p=pi) for pi in p_flat.tolist()]
    if sampler == "histogram":
        hists = [_multinomial(n, lo, pmf, reps, rng) for (lo, pmf), rng in zip(_supported_pmf(n, p_flat), rngs)]
    else:
        hists = [_replicates(n, pi, reps, rng) for pi, rng in zip(p_flat.tolist(), rngs)]
    return np.stack(hists).reshape(np.shape(p) + (n + 1,))


def _replicates(n: int, p: float, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Draw k for every replicate, ``_BLOCK`` at a time, and count them."""
    hist = np.zeros(n + 1, dtype=np.int64)
    for start in range(0, reps, _BLOCK):
        k = rng.binomial(n, p, size=min(_BLOCK, reps - start))
        hist += np.bincount(k, minlength=n + 1)
    return hist


def _supported_pmf(n: int, p: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """For each p, ``(lo, pmf)``: Binomial(k; n, p) for k = lo..hi, the non-negligible support.

    pmf(k) <= exp(-n·KL(k/n ‖ p)) (the Chernoff / method-of-types bound), so the k with
    n·KL > 700 carry total mass below (n + 1)·1e-304 and are left out. n·KL is convex in
    k, so the rest is the contiguous range lo..hi. One scipy call evaluates every row.
    """
    k = np.arange(n + 1, dtype=float)
    lo = np.zeros(len(p), dtype=np.int64)
    hi = np.full(len(p), n, dtype=np.int64)
    step = max(1, _BLOCK // (n + 1))  # rows per block, to bound memory
    for s in range(0, len(p), step):
        q = p[s:s + step, None]
        with np.errstate(divide="ignore", invalid="ignore"):  # p = 0 or 1 is set below
            n_kl = special.xlogy(k, k / (n * q)) + special.xlogy(n - k, (n - k) / (n * (1 - q)))
        inside = n_kl <= _LOG_TINY
        lo[s:s + step] = np.argmax(inside, axis=1)
        hi[s:s + step] = n - np.argmax(inside[:, ::-1], axis=1)
    point = (p == 0) | (p == 1)  # a point mass at k = n·p
    lo[point] = hi[point] = np.rint(n * p[point])
    sizes = hi - lo + 1
    k_all = np.concatenate([np.arange(a, b + 1) for a, b in zip(lo.tolist(), hi.tolist())])
    pmf_all = stats.binom.pmf(k_all, n, np.repeat(p, sizes))
    return list(zip(lo.tolist(), np.split(pmf_all, np.cumsum(sizes)[:-1])))


def _multinomial(n: int, lo: int, pmf: np.ndarray, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Histogram over k = 0..n of Multinomial(reps, pmf) placed at k = lo, lo + 1, ...

    Dropping the k outside the support changes the draw with probability below
    reps·(n + 1)·1e-304, far under the precision of the pmf itself. numpy draws a
    multinomial as a chain of conditional binomials Binomial(left, p_j / mass not yet
    visited), tracking that mass by subtraction; visiting both tails first and the mode
    last keeps it >= pmf(mode), so every conditional probability keeps full relative precision.
    """
    mode = int(np.argmax(pmf))
    order = np.concatenate((np.arange(mode), np.arange(len(pmf) - 1, mode - 1, -1)))  # mode last
    hist = np.zeros(n + 1, dtype=np.int64)
    hist[lo + order] = rng.multinomial(reps, pmf[order] / pmf.sum())
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


# ---------------------------------------------------------------------------------------------
# Confusion matrices. The two-class outcomes above *are* confusion matrices: TP = k_pos,
# FN = n_pos - k_pos, TN = k_neg, FP = n_neg - k_neg (the iid design draws n_pos, then the
# class outcomes: the same law as Multinomial(n; π_TP, π_FN, π_FP, π_TN)). All metrics at a
# point therefore share its simulated test sets and stream.


def class_sizes(n: int, prevalence: float) -> tuple[int, int]:
    """Stratified class sizes from (n, prevalence): n_pos = round(n·prevalence) kept in [1, n - 1]."""
    n_pos = min(n - 1, max(1, round(n * prevalence)))
    return n_pos, n - n_pos


def confusion(outcomes: Outcomes) -> dict[str, np.ndarray]:
    """The cells tp, fn, fp, tn of two-class outcomes."""
    return {"tp": outcomes.k_pos, "fn": outcomes.n_pos - outcomes.k_pos,
            "fp": outcomes.n_neg - outcomes.k_neg, "tn": outcomes.k_neg}


def ratio_pmf(n: int, p_k: float, p_l: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (k, l) with k + l <= n and its Multinomial(n; p_k, p_l, 1 - p_k - p_l) probability.

    Written as m = k + l ~ Binomial(n, p_k + p_l) and k | m ~ Binomial(m, p_k/(p_k + p_l));
    (n + 1)(n + 2)/2 outcomes, ordered by m, then k.
    """
    m, k = np.tril_indices(n + 1)
    p_m = p_k + p_l
    theta = p_k / p_m if p_m > 0 else 0.0
    weight = stats.binom.pmf(m, n, min(p_m, 1.0)) * stats.binom.pmf(k, m, theta)
    return k, m - k, weight
