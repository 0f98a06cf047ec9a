"""The support of a binomial outcome: the counts carrying all but ``BOUND`` of the probability.

Exact engines on large test sets compute intervals only there. For K ~ Binomial(n, p) the
Chernoff (method-of-types) bound gives P(K >= k) <= exp(-n·KL(k/n ‖ p)) for k >= np and
P(K <= k) <= exp(-n·KL(k/n ‖ p)) for k <= np (Cover & Thomas, "Elements of Information
Theory", 2nd ed., Theorem 11.4.1 / Sanov). n·KL(x/n ‖ p) is convex in x and zero at x = np, so
the counts with n·KL < t form one range lo..hi, and each tail beyond it has probability below
exp(-t). With t = log(2/bound) the mass outside lo..hi is below ``bound``; so is the change of
every measure that is a weighted mean of numbers in [0, 1] (coverage, miss rates, the mean
width of intervals inside [0, 1]; a difference's width is at most 2: 2·bound).

The range holds about ±sqrt(2t) ≈ ±8.4 standard deviations of K around np: ~2,700 counts at
n = 10⁵, p = 0.5, ~270,000 at n = 10⁹.
"""

from __future__ import annotations

import numpy as np

from .._lazy import stats

BOUND = 1e-15  # probability outside the support, at most
RECTANGLE_LIMIT = 10_000_000  # most outcomes of one point's two-binomial support (measured: 1.2 GB, 1.3 CPU-s at 7.3 million)
_BISECTIONS = 80  # halvings of [0, n] (n <= 2^53): the bracket ends up narrower than one count


def _n_kl(x: np.ndarray, n: int, p: np.ndarray) -> np.ndarray:
    """n·KL(x/n ‖ p) = x log(x/(np)) + (n - x) log((n - x)/(n(1 - p))), 0·log 0 = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(x > 0, x * np.log(x / (n * p)), 0.0)
        b = np.where(x < n, (n - x) * np.log((n - x) / (n * (1 - p))), 0.0)
    return a + b


def window(n, p, bound: float = BOUND) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``, int64 arrays over ``n`` and ``p`` (broadcast): P(K < lo) + P(K > hi) < ``bound``
    for K ~ Binomial(n, p).

    Each end is found by bisection of n·KL(x/n ‖ p) = log(2/bound) on its side of np and
    rounded outward (which only adds counts). p = 0 and 1 are point masses at 0 and n."""
    n, p = np.broadcast_arrays(np.asarray(n, dtype=float), np.atleast_1d(np.asarray(p, dtype=float)))
    t = np.log(2.0 / bound)
    inner = (p > 0) & (p < 1) & (n > 0)
    q = np.where(inner, p, 0.5)
    mean = n * q
    ends = []
    for far in (np.zeros_like(q), n.copy()):  # lower end, then upper end
        near = mean.copy()  # n·KL(near) = 0 < t; n·KL(far) may be below t: then far is the end
        reach = _n_kl(far, n, q) < t
        for _ in range(_BISECTIONS):
            mid = 0.5 * (near + far)
            out = _n_kl(mid, n, q) >= t
            far = np.where(out, mid, far)
            near = np.where(out, near, mid)
        ends.append(np.where(reach, far, near))
    lo = np.clip(np.floor(ends[0]) - 1, 0, n).astype(np.int64)
    hi = np.clip(np.ceil(ends[1]) + 1, 0, n).astype(np.int64)
    point = np.rint(n * p).astype(np.int64)
    lo = np.where(inner, lo, point)
    hi = np.where(inner, hi, point)
    return lo, hi


def window_pmf(n: int, p: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Binomial(k; n, p) for k = lo..hi, shape (len(p), hi - lo + 1), without touching k outside.

    As ``binomial_pmf``, relative to the mode m of each p (clipped into lo..hi):
    pmf(k) = pmf(m)·exp(log C(n, k) - log C(n, m) + (k - m)·logit p), the log-binomial
    coefficients as cumulative sums of log((n - j)/(j + 1)) from lo, and the exponent, in
    extended precision (its two terms nearly cancel); pmf(m) from scipy. At n = 10⁹, p = 0.3
    the ratios pmf(k)/pmf(m) are within 1e-12 (relative) of exact products in 50-digit decimal
    arithmetic over the whole support, scipy's binom.pmf within 2e-11."""
    p = np.atleast_1d(np.asarray(p, dtype=float))
    j = np.arange(lo, hi, dtype=np.longdouble)
    log_choose = np.concatenate([np.zeros(1, dtype=np.longdouble), np.cumsum(np.log((n - j) / (j + 1)))])
    k = np.arange(lo, hi + 1, dtype=np.longdouble)
    out = np.zeros((len(p), hi - lo + 1))
    for row, q in enumerate(p.tolist()):
        if q == 0.0 or q == 1.0:
            at = round(n * q) - lo
            if 0 <= at <= hi - lo:
                out[row, at] = 1.0
            continue
        m = min(max(int(np.floor((n + 1) * q)), lo), hi)
        # in extended precision: the two terms nearly cancel (each up to ~(k - m)·|logit p|)
        logit = np.log(np.longdouble(q)) - np.log1p(-np.longdouble(q))
        ratio = (log_choose - log_choose[m - lo]) + (k - m) * logit
        out[row] = np.exp(ratio.astype(float)) * stats.binom.pmf(m, n, q)
    return out


def rectangle(n1: int, p1, n2: int, p2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The support of two independent binomials at several points: ``(k1, k2, weight)``.

    k1 and k2 (k1-major) span every point's range carrying all but BOUND/2 of Binomial(n1, p1)
    and of Binomial(n2, p2), so the pairs outside carry less than BOUND; ``weight`` (points,
    pairs) is the product of the two pmfs."""
    ranges, pmfs = [], []
    for n, p in ((n1, p1), (n2, p2)):
        p = np.atleast_1d(np.asarray(p, dtype=float))
        lo, hi = window(n, p, BOUND / 2)
        lo, hi = int(lo.min()), int(hi.max())
        ranges.append(np.arange(lo, hi + 1))
        pmfs.append(window_pmf(n, p, lo, hi))
    k1, k2 = (a.ravel() for a in np.meshgrid(*ranges, indexing="ij"))
    weight = (pmfs[0][:, :, None] * pmfs[1][:, None, :]).reshape(len(pmfs[0]), -1)
    return k1, k2, weight


def rectangle_size(n1: int, p1: float, n2: int, p2: float) -> int:
    """How many pairs ``rectangle`` holds at one point."""
    (lo1, hi1), (lo2, hi2) = window(n1, p1, BOUND / 2), window(n2, p2, BOUND / 2)
    return int(hi1[0] - lo1[0] + 1) * int(hi2[0] - lo2[0] + 1)


def bucket(n: int, p: float) -> int:
    """Points of one n whose supports overlap share a bucket: p on the variance-stabilised scale
    2·sqrt(n)·asin(sqrt(p)) (sd ~1), in steps of 16 (about one support width)."""
    return int(2 * np.sqrt(n) * np.arcsin(np.sqrt(p)) // 16.0)


def _ratio(num: float, den: float) -> float:
    """num/den as a probability; 0 where den is 0 (the conditional binomial then has no trials)."""
    return min(max(num / den, 0.0), 1.0) if den > 0 else 0.0


def _nested_ranges(n: int, p_first: float, p_a: float, p_b: float | None):
    share = BOUND / (2 if p_b is None else 3)
    lo, hi = window(n, p_first, share)
    first = np.arange(int(lo[0]), int(hi[0]) + 1)
    a = window(first, p_a, share)
    b = window(n - first, p_b, share) if p_b is not None else (np.zeros_like(first), np.zeros_like(first))
    return share, first, a, b


def nested_size(n: int, p_first: float, p_a: float, p_b: float | None = None) -> int:
    """How many outcomes ``nested`` holds."""
    _, _, (alo, ahi), (blo, bhi) = _nested_ranges(n, p_first, p_a, p_b)
    return int(np.sum((ahi - alo + 1) * (bhi - blo + 1)))


def nested(n: int, p_first: float, p_a: float, p_b: float | None = None):
    """The support of first ~ Binomial(n, p_first), a | first ~ Binomial(first, p_a) and (if
    ``p_b`` is given) b | first ~ Binomial(n - first, p_b), a and b independent given first:
    ``(first, a, b, weight)``, ordered by first, then a, then b (b is 0 without ``p_b``).

    The iid design's (n_pos, tp, tn) and the paired design's (discordant, only_first, both) are
    of this form; a trinomial (k, l) is (k + l, k) with p_a = p_k/(p_k + p_l). Each of the two or
    three levels leaves out less than BOUND/2 or BOUND/3 (``window``; given first, of its
    conditional law), so the outcomes outside carry less than BOUND in all (union bound)."""
    _, first, (alo, ahi), (blo, bhi) = _nested_ranges(n, p_first, p_a, p_b)
    width_b = bhi - blo + 1
    size = (ahi - alo + 1) * width_b
    at = np.repeat(np.arange(first.size), size)
    offset = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
    f = first[at]
    a = alo[at] + offset // width_b[at]
    b = blo[at] + offset % width_b[at]
    w_first = window_pmf(n, np.array([p_first]), int(first[0]), int(first[-1]))[0]
    weight = w_first[at] * stats.binom.pmf(a, f, p_a)
    if p_b is not None:
        weight = weight * stats.binom.pmf(b, n - f, p_b)
    return f, a, b, weight
