"""Distribution-free intervals for the AUC and for a paired AUC difference: coverage >= 1 - δ for every pair
of score laws, ties allowed (the AUC with ties counted ½, θ = P(X > Y) + ½·P(X = Y), methods/auc.py).

Both are Chernoff bounds of a two-sample U-statistic with k = min(m, n) (methods/chernoff.py, Hoeffding 1963):

* ``chernoff_hoeffding`` (AUC): the kernel ψ(x, y) in [0, 1]; {θ : k·KL(Â || θ) <= log(2/δ)}, Hoeffding's
  relative-entropy bound, which is never wider than his 2t² bound (Pinsker) and much narrower near 0 and 1.
* ``auc_difference_chernoff_hoeffding``: the kernel h = ψ(x₁, y₁) - ψ(x₂, y₂) in [-1, 1] (first minus second
  classifier on the same positive and negative), whose mean is D = θ₁ - θ₂. Two models that mostly agree
  have E|h| = s small, and a [-1, 1] variable with small E|h| has a small variance: s̄, an upper bound of s
  (the U-statistic of |h|, Bernoulli divergence at level δ/4), enters the trinomial rate of chernoff.py and the
  interval {D : k·I(D̂; D, s̄) <= log(2/(3δ/4))} takes the rest of δ. Union bound: miss <= δ/4 + 3δ/4.

For comparison (docs/methods.md), not registered: ``dkw_bounds`` (Massart's DKW band of each class at
√(1 - δ), θ monotone under stochastic order) and ``hoeffding_bounds`` (Â ± sqrt(log(2/δ)/(2k))).
"""

from __future__ import annotations

import math

import numpy as np

from .auc import _rows, auc_and_delong_variance
from .auc_difference import _paired_covariance
from .chernoff import kl_bounds, kl_upper, trinomial_bounds
from .registry import register

S_SHARE = 0.25  # the share of δ spent on the upper bound s̄ of E|h| (the rest on D)
_CELLS = 1 << 22  # pairs compared at once in the mean |h| (memory)
_PAIRS = 1 << 24  # beyond these pairs a test set, the mean |h| counts dominated pairs (O(N log N))

REFERENCE = ("Hoeffding (1963), Probability inequalities for sums of bounded random variables, JASA 58, "
             "13-30: Theorem 1 and section 5 (two-sample U-statistics, k = min(m, n))")


@register("chernoff_hoeffding", display="Chernoff–Hoeffding (AUC)", takes="scores", family="exact", guaranteed=True,
          reference=REFERENCE)
def chernoff_hoeffding(scores_pos, scores_neg, delta, rng=None):
    """{θ : k·KL(Â || θ) <= log(2/δ)}, KL the Bernoulli divergence, k = min(m, n): guaranteed for every score law.

    Each end misses with probability at most δ/2 (module docstring; methods/chernoff.py ``kl_bounds``)."""
    auc, _ = auc_and_delong_variance(scores_pos, scores_neg)
    k = min(np.shape(scores_pos)[-1], np.shape(scores_neg)[-1])
    return kl_bounds(auc, k, np.log(2 / np.asarray(delta, dtype=float)))


def mean_abs_difference(pos_first, neg_first, pos_second, neg_second, auc=None) -> np.ndarray:
    """Ŝ = (1/mn)·Σ_i Σ_j |ψ(x₁ᵢ, y₁ⱼ) - ψ(x₂ᵢ, y₂ⱼ)| per test set, ψ = (sign(x - y) + 1)/2 (ties ½).

    Small test sets compare every pair, by blocks of positives so that at most ``_CELLS`` pairs are held at
    once; a large one (m·n > ``_PAIRS``) counts in O(N log N): |a - b| = a + b - 2·min(a, b), so
    Σ|ψ₁ - ψ₂| = mn(Â₁ + Â₂) - 2·Σ min(ψ₁, ψ₂), and min(ψ₁, ψ₂) = ½·1[x₁ ≥ y₁, x₂ ≥ y₂] + ½·1[x₁ > y₁, x₂ > y₂]
    (ψ = ½·1[x ≥ y] + ½·1[x > y]; check the nine cases): two counts of dominated pairs (``dominated_pairs``).
    ``auc``: the two AUCs, shape (..., 2), if known (Σψ = mn·Â)."""
    p1, n1, shape = _rows(pos_first, neg_first)
    p2, n2, _ = _rows(pos_second, neg_second)
    m, n = p1.shape[1], n1.shape[1]
    if m * n > _PAIRS:
        out = np.empty(p1.shape[0])
        known = None if auc is None else np.broadcast_to(auc, shape + (2,)).reshape(-1, 2).sum(axis=1) * (m * n)
        for t in range(p1.shape[0]):
            strict, loose = dominated_pairs(p1[t], p2[t], n1[t], n2[t])
            auc_sum = known[t] if known is not None else _psi_sum(p1[t], n1[t]) + _psi_sum(p2[t], n2[t])
            out[t] = (auc_sum - (strict + loose)) / (m * n)
        return out.reshape(shape)
    total = np.zeros(p1.shape[0])
    step = max(1, _CELLS // (n * p1.shape[0]))
    for i in range(0, m, step):
        rows = slice(i, i + step)
        d = (np.sign(p1[:, rows, None] - n1[:, None, :]) - np.sign(p2[:, rows, None] - n2[:, None, :]))
        total += np.abs(d).sum(axis=(1, 2)) / 2
    return (total / (m * n)).reshape(shape)


def _psi_sum(pos, neg) -> float:
    """Σ_i Σ_j ψ(x_i, y_j) = #{y < x} + ½·#{y = x}, by binary search in the sorted negatives."""
    neg = np.sort(neg)
    below, upto = np.searchsorted(neg, pos, "left"), np.searchsorted(neg, pos, "right")
    return float(below.sum(dtype=np.int64)) + 0.5 * float((upto - below).sum(dtype=np.int64))


def _dense_ranks(values) -> np.ndarray:
    """0, 1, ... in the order of the distinct values (ties share one)."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.size, np.int64)
    s = values[order]
    ranks[order] = np.concatenate([[0], np.cumsum(s[1:] != s[:-1])])
    return ranks


def dominated_pairs(pos_x, pos_y, neg_x, neg_y) -> tuple[int, int]:
    """(#{(i, j): xᵢ > x'ⱼ and yᵢ > y'ⱼ}, #{(i, j): xᵢ ≥ x'ⱼ and yᵢ ≥ y'ⱼ}) for the points (pos_x, pos_y) and
    (neg_x, neg_y), in O(N log N): repeated points become one with a weight, then ``_dominance_count``
    (the second count is the first when no positive shares a coordinate's value with a negative)."""
    m = pos_x.size
    xr, yr = _dense_ranks(np.concatenate([pos_x, neg_x])), _dense_ranks(np.concatenate([pos_y, neg_y]))
    base = int(yr.max()) + 1
    if (int(xr.max()) + 1) * base <= _GRID_CELLS:  # few distinct values (rounded probabilities, ratings)
        return _grid_dominated_pairs(xr[:m], yr[:m], xr[m:], yr[m:], int(xr.max()) + 1, base)
    key = xr * base + yr
    kp, wp = np.unique(key[:m], return_counts=True)
    kn, wn = np.unique(key[m:], return_counts=True)
    x, y = np.concatenate([kp // base, kn // base]), np.concatenate([kp % base, kn % base])
    weight = np.concatenate([wp, wn])
    is_neg = np.concatenate([np.zeros(kp.size, bool), np.ones(kn.size, bool)])
    strict = _dominance_count(x, y, weight, is_neg, strict=True)
    ties = (np.intersect1d(x[:kp.size], x[kp.size:]).size or np.intersect1d(y[:kp.size], y[kp.size:]).size)
    return strict, (_dominance_count(x, y, weight, is_neg, strict=False) if ties else strict)


_GRID_CELLS = 1 << 22  # distinct x values × distinct y values up to which the pairs are counted on a grid


def _grid_dominated_pairs(px, py, nx, ny, rx, ry) -> tuple[int, int]:
    """``dominated_pairs`` on the rx × ry grid of dense ranks: the negatives' counts cumulated over both ranks,
    C[x, y] = #{j: x'ⱼ <= x, y'ⱼ <= y}, so #{(i, j): xᵢ ≥ x'ⱼ, yᵢ ≥ y'ⱼ} = Σ_cells H_pos·C and the strict count
    reads C one rank below in both (O(rx·ry), exact integers)."""
    pos = np.bincount(px * ry + py, minlength=rx * ry).reshape(rx, ry)
    below = np.bincount(nx * ry + ny, minlength=rx * ry).reshape(rx, ry).cumsum(axis=0).cumsum(axis=1)
    loose = int(np.sum(pos * below, dtype=np.int64))
    strict = int(np.sum(pos[1:, 1:] * below[:-1, :-1], dtype=np.int64))
    return strict, loose


_SHIFT = 26  # packed element: position (bits 0-24), negative (bit 25), weight (from bit 26); N < 2^25


def _dominance_count(x, y, weight, is_neg, strict) -> int:
    """Σ weightᵢ·weightⱼ over positives i and negatives j with xᵢ ⊳ xⱼ and yᵢ ⊳ yⱼ (⊳: > if strict, else ≥).

    The points sorted by x give each a position; in y order, a negative counts for a positive when it comes
    before it in both orders (ties: a negative first for ≥, last for >). Counted as merge sort counts
    inversions, top down: at each bit b of the position, within each block of 2^(b+1) positions (kept in y
    order), a positive in the upper half counts the negatives of the lower half before it (a cumulative sum);
    then each block is split, stably, into its halves. log₂ N passes of O(N) array operations."""
    n = x.size
    top = max(1, int(n - 1).bit_length())
    size = 1 << top  # padded to a power of two: the blocks are the rows of a reshape
    tie = is_neg if strict else ~is_neg  # (points of one class in any order: pairs within a class never count)
    at = np.empty(size, np.int64)
    at[np.argsort(2 * x + tie)] = np.arange(n)
    at[n:] = np.arange(n, size)  # the padding: after every point, weight 0
    seq = np.argsort(2 * y + tie)
    v = at[np.concatenate([seq, np.arange(n, size)])]
    v[:n] |= (is_neg[seq].astype(np.int64) << (_SHIFT - 1)) | (weight[seq].astype(np.int64) << _SHIFT)
    total = 0
    for b in range(top - 1, -1, -1):
        width = 1 << (b + 1)
        block = v.reshape(-1, width)
        upper = (block >> b) & 1
        w, neg = block >> _SHIFT, (block >> (_SHIFT - 1)) & 1
        before = np.cumsum(w * neg * (1 - upper), axis=1)
        total += int(np.sum(before * (w * (upper & (1 - neg)))))
        lower_upto = np.cumsum(1 - upper, axis=1)
        dest = np.where(upper, (1 << b) + np.arange(width) - lower_upto, lower_upto - 1)
        dest += (np.arange(block.shape[0]) * width)[:, None]
        split = np.empty(size, np.int64)
        split[dest.ravel()] = v
        v = split
    return total


@register("auc_difference_chernoff_hoeffding", display="Chernoff–Hoeffding (AUC difference)", takes="paired_scores",
          family="exact", guaranteed=True, reference=REFERENCE)
def auc_difference_chernoff_hoeffding(pos_first, neg_first, pos_second, neg_second, delta, rng=None):
    """{D : k·I(D̂; D, s̄) <= log(2/δ_D)}, s̄ = the KL upper bound of E|h| at δ_s = δ/4, δ_D = 3δ/4, k = min(m, n).

    I is the rate of the trinomial law with P(±1) = (s̄ ± D)/2 (methods/chernoff.py); guaranteed for every
    pair of bivariate score laws (module docstring). With s̄ = 1 it is the Bernoulli bound on (D + 1)/2."""
    auc, _ = _paired_covariance(pos_first, neg_first, pos_second, neg_second)
    k = min(np.shape(pos_first)[-1], np.shape(neg_first)[-1])
    s_hat = mean_abs_difference(pos_first, neg_first, pos_second, neg_second, auc)
    return difference_bounds(auc[..., 0] - auc[..., 1], s_hat, k, delta)


def difference_bounds(d, s_hat, k, delta):
    """``auc_difference_chernoff_hoeffding``'s ends from its statistics: the difference D̂, the mean |h| Ŝ and
    k = min(m, n) (a closed form of the three: the width at another k follows without the scores)."""
    delta, d, k = np.asarray(delta, dtype=float), np.asarray(d, dtype=float), np.asarray(k, dtype=float)
    s_bar = kl_upper(s_hat, k, np.log(1 / (S_SHARE * delta)))
    level = np.log(2 / ((1 - S_SHARE) * delta))
    coin_lo, coin_hi = kl_bounds((d + 1) / 2, k, level)
    interior = s_bar < 1
    with np.errstate(all="ignore"):  # s̄ = 1 rows take the coin's bounds; their trinomial is not read
        lo, hi = trinomial_bounds(np.where(interior, d, 0.0), np.where(interior, s_bar, 0.5), k, level)
    return np.where(interior, lo, 2 * coin_lo - 1), np.where(interior, hi, 2 * coin_hi - 1)


def hoeffding_bounds(auc, m, n, delta):
    """Â ± sqrt(log(2/δ)/(2k)), k = min(m, n), clipped to [0, 1]: Hoeffding's (1963) 2t² bound (comparison only)."""
    half = math.sqrt(math.log(2 / delta) / (2 * min(m, n)))
    return max(auc - half, 0.0), min(auc + half, 1.0)


def dkw_bounds(scores_pos, scores_neg, delta) -> tuple[float, float]:
    """The AUC's range over the two classes' DKW bands (Massart 1990, "The tight constant in the
    Dvoretzky–Kiefer–Wolfowitz inequality"), each at √(1 - δ): ε = sqrt(log(2/α)/(2·size)), α = 1 - √(1 - δ).

    θ rises when the positives' law moves up and the negatives' down, so the lower end moves ε_pos of the
    positives' mass from the top to -∞ and ε_neg of the negatives' from the bottom to +∞, the upper end the
    reverse; ties counted ½. One test set (1-d arrays); comparison only (docs/methods.md)."""
    x, y = np.sort(np.asarray(scores_pos, dtype=float)), np.sort(np.asarray(scores_neg, dtype=float))
    alpha = 1 - math.sqrt(1 - delta)
    eps = [math.sqrt(math.log(2 / alpha) / (2 * s)) for s in (x.size, y.size)]
    psi = (np.sign(x[:, None] - y[None, :]) + 1) / 2

    def trimmed(size, e, from_top):
        """1/size each, e of the mass taken from the top (or the bottom) end."""
        cut = np.clip(np.cumsum(np.full(size, 1 / size)[::-1 if from_top else 1]) - e, 0.0, 1 / size)
        return cut[::-1] if from_top else cut

    ex, ey = min(eps[0], 1.0), min(eps[1], 1.0)
    low = trimmed(x.size, ex, True) @ psi @ trimmed(y.size, ey, False)  # the -∞ positives and +∞ negatives add 0
    high = trimmed(x.size, ex, False) @ psi @ trimmed(y.size, ey, True) + 1 - (1 - ex) * (1 - ey)
    return float(max(low, 0.0)), float(min(high, 1.0))
