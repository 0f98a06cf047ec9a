"""Two-sided intervals for the area under the ROC curve from a test set's scores.

An AUC kernel maps ``(scores_pos, scores_neg, delta, rng=None, **params)`` to ``(lower, upper)``:
``scores_pos`` has shape (..., m), ``scores_neg`` (..., n) (the last axis is the test set's
examples, the leading axes index test sets), ``delta`` broadcasts over the leading axes. A
higher score means "more likely positive". The estimate is the Mann–Whitney AUC

    Â = (1/mn)·Σ_i Σ_j ψ(X_i, Y_j),  ψ(x, y) = 1[x > y] + ½·1[x = y],

an unbiased estimate of θ = P(X > Y) + ½·P(X = Y). Every kernel depends on the scores only
through their order in the pooled sample, ties included, so ranks may stand in for scores
(the binormal design stores ranks). Bounds are clipped to [0, 1], as pROC does; m, n >= 2.

Placements (DeLong, DeLong & Clarke-Pearson 1988): V10_i = (1/n)·Σ_j ψ(X_i, Y_j) for each
positive, V01_j = (1/m)·Σ_i ψ(X_i, Y_j) for each negative; Â is the mean of either. With R
the midranks in the pooled sample and R⁺, R⁻ those within each class,
V10_i = (R(X_i) - R⁺(X_i))/n and V01_j = 1 - (R(Y_j) - R⁻(Y_j))/m: O((m + n) log(m + n))
per test set, vectorised over test sets (in blocks of at most ``_BLOCK`` scores).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._lazy import stats
from .. import validate
from .binomial import _z
from .registry import draws_param, register, register_kind


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for a test set's scores (intervals.py)."""
    pos, neg = (_scores(name, v) for name, v in zip(("scores_pos", "scores_neg"), counts))
    return m.bounds((pos, neg), float(validate.delta(validate.scalar("delta", delta))), side, rng=rng, **params)


# a test set's scores, positives' (..., m) and negatives' (..., n)
register_kind("scores", ("scores_pos", "scores_neg"), "AUC", per_test_set=True,
              why_mc_only="takes a test set's scores, which cannot be enumerated", kind="auc", route=_door)

_BLOCK = 1 << 20  # scores ranked at once (test sets × examples), to bound memory


def _rows(scores_pos, scores_neg):
    """The scores as arrays of shape (test sets, m) and (test sets, n), and the leading shape; integer
    scores (the binormal design's ranks) keep their type: a float copy is made one block at a time."""
    pos, neg = np.asarray(scores_pos), np.asarray(scores_neg)
    shape = np.broadcast_shapes(pos.shape[:-1], neg.shape[:-1])
    pos = np.broadcast_to(pos, shape + pos.shape[-1:]).reshape(-1, pos.shape[-1])
    neg = np.broadcast_to(neg, shape + neg.shape[-1:]).reshape(-1, neg.shape[-1])
    return pos, neg, shape


def delong_placements(scores_pos, scores_neg) -> tuple[np.ndarray, np.ndarray]:
    """(V10, V01): the placements of the positives (test sets, m) and of the negatives (test sets, n)
    (module docstring); ``scores_pos``, ``scores_neg`` of shape (test sets, m) and (test sets, n)."""
    m, n = scores_pos.shape[-1], scores_neg.shape[-1]
    values = _values(scores_pos, scores_neg)
    if values:
        return _counted_placements(scores_pos, scores_neg, values)
    v10, v01 = np.empty(scores_pos.shape), np.empty(scores_neg.shape)
    for t in range(scores_pos.shape[0]):
        v10[t], v01[t] = _kept_placements(scores_pos[t], scores_neg[t])
    return v10, v01


_KEPT_SCORES = 100_000  # a test set of at least this many scores keeps its placements (a user's file: every
_KEPT_PLACEMENTS = 400_000_000  # AUC method and region of covstudy-evaluate meets it), in at most these bytes
_PLACEMENTS: list = []  # [(pos, neg, v10, v01), ...] of one test set each, the newest last


def _kept_placements(pos, neg) -> tuple[np.ndarray, np.ndarray]:
    """``_placements`` of one test set, kept for large ones: a hit is checked value by value (a copy of the
    scores is kept), so a changed array is never mistaken for a kept one."""
    if pos.size + neg.size < _KEPT_SCORES:
        return _placements(pos, neg)
    for i, (p, q, v10, v01) in enumerate(_PLACEMENTS):
        if p.shape == pos.shape and q.shape == neg.shape and np.array_equal(p, pos) and np.array_equal(q, neg):
            _PLACEMENTS.append(_PLACEMENTS.pop(i))
            return v10, v01
    v10, v01 = _placements(pos, neg)
    _PLACEMENTS.append((pos.copy(), neg.copy(), v10, v01))
    while len(_PLACEMENTS) > 1 and sum(sum(a.nbytes for a in e) for e in _PLACEMENTS) > _KEPT_PLACEMENTS:
        del _PLACEMENTS[0]
    return v10, v01


def _placements(pos, neg) -> tuple[np.ndarray, np.ndarray]:
    """(V10, V01) of one test set (1-d scores): each class sorted once, then merged by binary search (no pooled
    ranking)."""
    order_pos, order_neg = np.argsort(pos), np.argsort(neg)
    sorted_pos, sorted_neg = pos[order_pos], neg[order_neg]
    v10, v01 = np.empty(pos.size), np.empty(neg.size)
    v10[order_pos] = _below_and_half_at(sorted_neg, sorted_pos) / neg.size
    v01[order_neg] = 1 - _below_and_half_at(sorted_pos, sorted_neg) / pos.size
    return v10, v01


def _below_and_half_at(ordered, x) -> np.ndarray:
    """#(ordered < x) + ½·#(ordered = x) for each x (sorted, so the searches sweep ``ordered`` once): the pooled
    mid-rank less the own mid-rank, whole and half numbers exact in floats, so the same bits as that
    difference of ``rankdata``."""
    lo = np.searchsorted(ordered, x, side="left")
    return lo + 0.5 * (np.searchsorted(ordered, x, side="right") - lo)


def _values(pos, neg) -> int:
    """1 + the largest score if the scores are non-negative integers below 4·(m + n) + 1 (the designs'
    ranks and levels: counted, not sorted), else 0."""
    if pos.dtype.kind not in "ui" or neg.dtype.kind not in "ui":
        return 0
    top = int(max(pos.max(initial=0), neg.max(initial=0)))
    low = min(pos.min(initial=0), neg.min(initial=0))
    return top + 1 if low >= 0 and top <= 4 * (pos.shape[-1] + neg.shape[-1]) else 0


def _counted_placements(pos, neg, values) -> tuple[np.ndarray, np.ndarray]:
    """``delong_placements`` of small non-negative integer scores (the designs' ranks and levels) by
    counting, O(m + n + values) a test set, not sorting: V10_i = (#neg < x_i + ½·#neg = x_i)/n, the same
    numerator as the pooled mid-rank less the own mid-rank (exact in floats), so the same bits."""
    def placement(a):
        c = _value_counts(a, values)
        return np.cumsum(c, axis=1) - c + 0.5 * c  # the count below each value plus half the count at it

    v10 = np.take_along_axis(placement(neg), pos, 1) / neg.shape[1]
    v01 = 1 - np.take_along_axis(placement(pos), neg, 1) / pos.shape[1]
    return v10, v01


def _value_counts(a, values) -> np.ndarray:
    """(test sets, values): how many scores of each row equal each value 0 .. values - 1."""
    rows = a.shape[0]
    offset = (np.arange(rows, dtype=np.int64) * values)[:, None]
    return np.bincount((a + offset).ravel(), minlength=rows * values).reshape(rows, values).astype(float)


def _counted_moments(pos, neg, values) -> tuple[np.ndarray, np.ndarray]:
    """(Â, Var_DeLong) of small non-negative integer scores from the counts per value, with no
    example-by-example gather: every positive at value v has the placement V10(v) = (#neg < v +
    ½·#neg = v)/n and every negative V01(v) = 1 - (#pos < v + ½·#pos = v)/m, so the sums over examples
    are sums over values weighted by the counts (the same numbers as ``_counted_placements`` to
    rounding, in about half the time)."""
    m, n = pos.shape[1], neg.shape[1]
    c_pos, c_neg = _value_counts(pos, values), _value_counts(neg, values)
    v10 = (np.cumsum(c_neg, axis=1) - 0.5 * c_neg) / n
    v01 = 1 - (np.cumsum(c_pos, axis=1) - 0.5 * c_pos) / m
    auc = np.sum(c_pos * v10, axis=1) / m
    s10 = np.sum(c_pos * (v10 - auc[:, None]) ** 2, axis=1) / (m - 1)
    s01 = np.sum(c_neg * (v01 - auc[:, None]) ** 2, axis=1) / (n - 1)
    return auc, s10 / m + s01 / n


_KEPT_BYTES = 64_000_000  # ... and the test sets they hold, at most
_KEPT = 8  # results kept for read-only inputs (auc_and_delong_variance): a few points' test sets
_LAST: list = []  # [((scores_pos, scores_neg), result), ...], the newest last


def _frozen(a) -> bool:
    """An array no one can change in place: read-only and owning its data (the core's cached test sets)."""
    return isinstance(a, np.ndarray) and not a.flags.writeable and a.base is None


def auc_and_delong_variance(scores_pos, scores_neg) -> tuple[np.ndarray, np.ndarray]:
    """(Â, Var_DeLong): Â = mean V10 and Var = S10/m + S01/n, with S10, S01 the sample variances
    (divisor m - 1, n - 1) of the placements (DeLong, DeLong & Clarke-Pearson 1988, eq. 2-4).
    Test sets in blocks of at most ``_BLOCK`` scores, so memory does not grow with their number.

    Every AUC method but the bootstrap needs these: for read-only test sets (the core's shared
    simulated ones) the last few results are kept, so the methods at a point rank them once."""
    if not (_frozen(scores_pos) and _frozen(scores_neg)):
        return _auc_and_delong_variance(scores_pos, scores_neg)
    for i, ((p, n), result) in enumerate(_LAST):
        if p is scores_pos and n is scores_neg:  # the arrays are held here, so their ids are not reused
            _LAST.append(_LAST.pop(i))
            return result
    result = _auc_and_delong_variance(scores_pos, scores_neg)
    for a in result:
        a.setflags(write=False)
    _LAST.append(((scores_pos, scores_neg), result))
    del _LAST[:-_KEPT]
    while len(_LAST) > 1 and sum(p.nbytes + n.nbytes for (p, n), _ in _LAST) > _KEPT_BYTES:
        del _LAST[0]
    return result


def _auc_and_delong_variance(scores_pos, scores_neg) -> tuple[np.ndarray, np.ndarray]:
    pos, neg, shape = _rows(scores_pos, scores_neg)
    m, n = pos.shape[1], neg.shape[1]
    auc, var = np.empty(pos.shape[0]), np.empty(pos.shape[0])
    step = max(1, _BLOCK // (m + n))
    for s in range(0, pos.shape[0], step):
        rows = slice(s, s + step)
        values = _values(pos[rows], neg[rows])
        if values:
            auc[rows], var[rows] = _counted_moments(pos[rows], neg[rows], values)
            continue
        v10, v01 = delong_placements(pos[rows], neg[rows])
        auc[rows] = np.mean(v10, axis=1)
        s10 = np.sum((v10 - auc[rows, None]) ** 2, axis=1) / (m - 1)
        s01 = np.sum((v01 - auc[rows, None]) ** 2, axis=1) / (n - 1)
        var[rows] = s10 / m + s01 / n
    return auc.reshape(shape), var.reshape(shape)


def _wald(estimate, se, delta):
    half = _z(delta) * se
    return np.clip(estimate - half, 0.0, 1.0), np.clip(estimate + half, 0.0, 1.0)


@register("delong", display="DeLong", takes="scores", family="approximate", guaranteed=False,
          reference="DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44(3), 837-845; as pROC's ci.auc "
                    "(Robin et al. 2011, BMC Bioinformatics 12, 77)")
def delong(scores_pos, scores_neg, delta, rng=None):
    """DeLong interval Â ± z·sqrt(S10/m + S01/n) from the placement values, z = Φ⁻¹(1 - delta/2), clipped to [0, 1].

    Ties count ½. The variance is 0 (a zero-width interval) when the classes are perfectly
    separated (Â = 0 or 1).
    """
    auc, var = auc_and_delong_variance(scores_pos, scores_neg)
    return _wald(auc, np.sqrt(var), delta)


@register("logit_delong", display="logit DeLong", takes="scores", family="approximate", guaranteed=False,
          reference="DeLong variance on the logit scale, e.g. Pepe (2003), The Statistical Evaluation of "
                    "Medical Tests, sec. 5.2; Qin & Hotilovac (2008), Stat Methods Med Res 17, 207-221")
def logit_delong(scores_pos, scores_neg, delta, rng=None):
    """expit(logit Â ± z·SE/(Â(1 - Â))), SE the DeLong standard error: the DeLong interval on the logit scale.

    By the delta method Var(logit Â) ≈ Var(Â)/(Â(1 - Â))²; the back-transformed interval
    stays inside (0, 1). At Â = 0 or 1 the logit is infinite and the interval is the point
    [Â, Â] (as DeLong's there).
    """
    auc, var = auc_and_delong_variance(scores_pos, scores_neg)
    inside = (auc > 0) & (auc < 1)
    a = np.where(inside, auc, 0.5)
    centre = np.log(a / (1 - a))
    half = _z(delta) * np.sqrt(var) / (a * (1 - a))
    lower, upper = special.expit(centre - half), special.expit(centre + half)
    return np.where(inside, lower, auc), np.where(inside, upper, auc)


def hanley_mcneil_variance(auc, m, n):
    """[Â(1 - Â) + (m - 1)(Q1 - Â²) + (n - 1)(Q2 - Â²)]/(mn), Q1 = Â/(2 - Â), Q2 = 2Â²/(1 + Â)
    (Hanley & McNeil 1982, eq. 2; m positives, n negatives)."""
    q1, q2 = auc / (2 - auc), 2 * auc**2 / (1 + auc)
    return (auc * (1 - auc) + (m - 1) * (q1 - auc**2) + (n - 1) * (q2 - auc**2)) / (m * n)


@register("hanley_mcneil", display="Hanley–McNeil", takes="scores", family="approximate", guaranteed=False,
          reference="Hanley & McNeil (1982), Radiology 143(1), 29-36")
def hanley_mcneil(scores_pos, scores_neg, delta, rng=None):
    """Hanley–McNeil interval Â ± z·SE, SE² from exponential-model Q1, Q2 (``hanley_mcneil_variance``), clipped to [0, 1]."""
    auc, _ = auc_and_delong_variance(scores_pos, scores_neg)
    m, n = np.shape(scores_pos)[-1], np.shape(scores_neg)[-1]
    return _wald(auc, np.sqrt(np.maximum(hanley_mcneil_variance(auc, m, n), 0.0)), delta)


def newcombe_variance(theta, m, n):
    """Newcombe's (2006) variance with N* = (m + n)/2 - 1 in place of m - 1 and n - 1 in Hanley–McNeil's:
    θ(1 - θ)/(mn)·[1 + N*·((1 - θ)/(2 - θ) + θ/(1 + θ))]."""
    n_star = (m + n) / 2 - 1
    return theta * (1 - theta) / (m * n) * (1 + n_star * ((1 - theta) / (2 - theta) + theta / (1 + theta)))


@register("newcombe", display="Newcombe (AUC)", takes="scores", family="approximate", guaranteed=False,
          reference="Newcombe (2006), Confidence intervals for an effect size measure based on the Mann-Whitney "
                    "statistic. Part 2: asymptotic methods and evaluation, Stat Med 25(4), 559-573: method 5")
def newcombe(scores_pos, scores_neg, delta, rng=None):
    """Newcombe's method 5: the Wilson-type score interval {θ : (Â - θ)² <= z²·V(θ)}, V the N*-modified Hanley–McNeil variance.

    V(θ) = θ(1 - θ)/(mn)·[1 + N*·((1 - θ)/(2 - θ) + θ/(1 + θ))], N* = (m + n)/2 - 1
    (``newcombe_variance``). Like Wilson's interval for a proportion, the variance is taken at
    the candidate θ, not at Â, so the interval is not degenerate at Â = 0 or 1. The bounds
    are the roots of (Â - θ)² - z²V(θ) in [0, Â] and [Â, 1], found by bisection to 1e-15.
    """
    auc, _ = auc_and_delong_variance(scores_pos, scores_neg)
    m, n = np.shape(scores_pos)[-1], np.shape(scores_neg)[-1]
    z2 = _z(delta) ** 2

    def excess(theta):  # <= 0 inside the interval
        return (auc - theta) ** 2 - z2 * newcombe_variance(theta, m, n)

    def root(outside, inside):
        for _ in range(60):  # bisection halves |outside - inside| from at most 1 to below 1e-18
            mid = (outside + inside) / 2
            out = excess(mid) > 0
            outside, inside = np.where(out, mid, outside), np.where(out, inside, mid)
        return inside

    zero, one = np.zeros_like(auc), np.ones_like(auc)
    lower = np.where(auc > 0, root(zero, auc), 0.0)
    upper = np.where(auc < 1, root(one, auc), 1.0)
    return lower, upper


@register("bootstrap", display="percentile bootstrap", takes="scores", family="approximate", guaranteed=False,
          reference="Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 13 (percentile); "
                    "stratified as pROC's ci.auc(method = 'bootstrap')",
          params=(draws_param(2000, "bootstrap resamples"),))
def bootstrap(scores_pos, scores_neg, delta, rng=None, draws=2000):
    """Stratified percentile bootstrap: (delta/2, 1 - delta/2) quantiles of Â over ``draws`` resamples.

    Each resample draws m positives and n negatives with replacement, each class from its
    own (stratified, as pROC). Quantiles by linear interpolation (numpy's default, R's
    type 7). Per test set, in order: indices into the negatives sorted ascending
    (draws × n), then into the positives sorted ascending (draws × m), from ``rng``.
    A resample's Â needs no pairwise comparison: with W_k the number of resampled negatives
    among the k lowest (a cumulative count), a positive x with lo(x) negatives below it and
    hi(x) at or below it contributes (W_lo + W_hi)/2 (ties ½), so
    Â* = Σ_i (W_lo(X*_i) + W_hi(X*_i))/(2mn): O((m + n)·draws) per test set, in blocks of
    resamples of bounded memory (the same numbers as one block); draws × (m + n) at most
    ``validate.RESAMPLE_WORK_MAX``.
    """
    pos, neg, shape = _rows(scores_pos, scores_neg)
    delta = np.broadcast_to(np.asarray(delta, dtype=float), shape).reshape(-1)
    m, n = pos.shape[1], neg.shape[1]
    validate.resample_work("draws", draws, m + n, "scores")
    rng = np.random.default_rng() if rng is None else rng
    lower, upper = np.empty(pos.shape[0]), np.empty(pos.shape[0])
    for t in range(pos.shape[0]):
        neg_sorted = np.sort(neg[t])
        pos_sorted = np.sort(pos[t])
        lo = np.searchsorted(neg_sorted, pos_sorted, side="left")
        hi = np.searchsorted(neg_sorted, pos_sorted, side="right")
        aucs = np.empty(draws)
        for s, j, i in _resample_blocks(rng, draws, n, m):
            row = np.arange(len(j))[:, None]
            cumulative = np.zeros((len(j), n + 1), dtype=np.int64)
            np.cumsum(np.bincount((j + row * n).ravel(), minlength=j.size).reshape(j.shape), axis=1,
                      out=cumulative[:, 1:])
            flat, start = cumulative.ravel(), row * (n + 1)
            below = flat[lo[i] + start].sum(axis=1)
            at_or_below = below if np.array_equal(lo, hi) else flat[hi[i] + start].sum(axis=1)  # no ties: the same
            aucs[s] = (below + at_or_below) / (2 * m * n)
        lower[t], upper[t] = np.quantile(aucs, [delta[t] / 2, 1 - delta[t] / 2])
    return lower.reshape(shape), upper.reshape(shape)


_RESAMPLE_BLOCK = 1 << 20  # resampled indices held at once (~100 MB of work arrays), whatever draws × sample size


def _resample_blocks(rng, draws: int, n: int, m: int):
    """``(rows, j, i)`` for consecutive blocks of the draws: j (rows × n) indices into n, then i
    (rows × m) into m, the numbers that ``rng.integers(0, n, (draws, n))`` followed by
    ``rng.integers(0, m, (draws, m))`` give, in blocks of at most ~``_RESAMPLE_BLOCK`` indices.

    Split calls of ``integers`` continue one stream, so a block of j comes from a copy of the
    generator and the real one is first advanced past all of j; ``rng`` ends where one call
    of each leaves it. One block: no copy, no second pass."""
    rows = max(1, _RESAMPLE_BLOCK // max(n, m, 1))
    if rows >= draws:
        yield slice(0, draws), rng.integers(0, n, size=(draws, n)), rng.integers(0, m, size=(draws, m))
        return
    first = np.random.Generator(type(rng.bit_generator)())
    first.bit_generator.state = rng.bit_generator.state
    for s in range(0, draws, rows):
        rng.integers(0, n, size=(min(rows, draws - s), n))
    for s in range(0, draws, rows):
        c = min(rows, draws - s)
        yield slice(s, s + c), first.integers(0, n, size=(c, n)), rng.integers(0, m, size=(c, m))


def _scores(name: str, value) -> np.ndarray:
    try:
        if validate.not_numbers(value):
            raise TypeError
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 1-d array of at least 2 finite numbers, got {value!r}") from None
    if arr.ndim != 1 or arr.size < 2 or not np.all(np.isfinite(arr)):
        what = f"shape {arr.shape}" if arr.ndim != 1 or arr.size < 2 else "non-finite values"
        raise ValueError(f"{name} must be a 1-d array of at least 2 finite numbers, got {what}")
    return arr
