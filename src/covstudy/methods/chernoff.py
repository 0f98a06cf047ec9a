"""Chernoff bounds for the mean of a bounded U-statistic: distribution-free, variance-adaptive near the edges.

Hoeffding (1963, "Probability inequalities for sums of bounded random variables", JASA 58, sections 1
and 5): a two-sample U-statistic Û = (1/mn)·Σ_i Σ_j h(X_i, Y_j), with the X_i i.i.d., the Y_j i.i.d. and
independent of them, is the average over pairings of a mean W of k = min(m, n) *independent* terms
h(X_π(i), Y_σ(i)). exp is convex, so E exp(λÛ) <= E exp(λW) = (E exp(λh/k))^k, and every bound proven from
the moment generating function of a mean of k i.i.d. terms holds for Û with k in place of the sample size.

The moment generating function. For h in [-1, 1] with mean D and E|h| = s (so |D| <= s <= 1), writing h
as a convex combination of -1, 0 and 1 (h⁺ of 1, h⁻ of -1, the rest of 0) gives

    E exp(μh) <= 1 + s·(cosh μ - 1) + D·sinh μ,

the generating function of the trinomial law P(+1) = (s + D)/2, P(-1) = (s - D)/2, P(0) = 1 - s,
increasing in s (cosh μ >= 1): an upper bound s̄ >= s may stand in for s. Chernoff's bound is then
P(Û >= w) <= exp(-k·I(w; D, s̄)) for w >= D (and the mirror image below), I the trinomial's rate function,
the Kullback–Leibler divergence from the trinomial to its exponential tilt with mean w (``rate``). With
s̄ = 1 the trinomial is a ±1 coin and I the Bernoulli divergence of (1 + w)/2 from (1 + D)/2: Hoeffding's
Theorem 1 in its relative-entropy form, which is what ``kl_bounds`` inverts.

Inversion: {D : k·I(ŵ; D, s̄) <= log(2/δ)} is an interval (I is convex in D, 0 at D = ŵ) with two-sided
miss probability at most δ; its ends are found by bisection, the returned end the outer end of the last
bracket (never inside the exact root).
"""

from __future__ import annotations

import numpy as np
from scipy import special

_STEPS = 60  # bisection halvings: a bracket of width <= 2 shrinks below 2e-18


def kl_bernoulli(a, b):
    """KL(a || b) = a·log(a/b) + (1 - a)·log((1 - a)/(1 - b)) of Bernoulli laws (0·log 0 = 0)."""
    return special.rel_entr(a, b) + special.rel_entr(1 - a, 1 - b)


def rate(w, D, s):
    """I(w; D, s): the Chernoff rate of the trinomial law on {-1, 0, 1} with P(±1) = (s ± D)/2 at mean w,
    sup_μ [μw - log(1 - s + p·e^μ + q·e^{-μ})], p = (s + D)/2, q = (s - D)/2; for |w| < 1, p, q > 0.

    The supremum is at x = e^μ, the positive root of p(1 - w)x² - w(1 - s)x - q(1 + w) = 0 (the tilted
    law's mean set to w)."""
    p, q = (s + D) / 2, (s - D) / 2
    a, b, c = p * (1 - w), w * (1 - s), q * (1 + w)
    x = (b + np.sqrt(b * b + 4 * a * c)) / (2 * a)
    return w * np.log(x) - np.log(1 - s + p * x + q / x)


def _bisect(inside, outside, too_far):
    """The outer end of the last bracket of [inside, outside] whose inside end satisfies the bound and whose
    outside end does not (``too_far(x)``: x lies beyond the bound), elementwise."""
    for _ in range(_STEPS):
        mid = (inside + outside) / 2
        far = too_far(mid)
        inside, outside = np.where(far, inside, mid), np.where(far, mid, outside)
    return outside


def kl_bounds(mean, k, log_level):
    """[L, U] = {θ in [0, 1] : k·KL(mean || θ) <= log_level}: for a [0, 1] kernel's U-statistic ``mean``
    with k = min(m, n), each end misses with probability at most exp(-log_level) (module docstring)."""
    mean, k = np.asarray(mean, dtype=float), np.asarray(k, dtype=float)
    zero, one = np.zeros_like(mean), np.ones_like(mean)
    lower = np.where(k * kl_bernoulli(mean, zero) <= log_level, 0.0,
                     _bisect(mean, zero, lambda t: k * kl_bernoulli(mean, t) > log_level))
    upper = np.where(k * kl_bernoulli(mean, one) <= log_level, 1.0,
                     _bisect(mean, one, lambda t: k * kl_bernoulli(mean, t) > log_level))
    return lower, upper


def kl_upper(mean, k, log_level):
    """The one-sided upper bound sup{θ >= mean : k·KL(mean || θ) <= log_level} (misses with probability at
    most exp(-log_level))."""
    return kl_bounds(mean, k, log_level)[1]


def trinomial_bounds(w, s_bar, k, log_level):
    """[L, U] = {D : k·I(w; D, s̄) <= log_level} within [-s̄, s̄] for the U-statistic w of a [-1, 1] kernel
    whose E|h| is at most s̄ < 1 (``rate``); each end misses with probability at most exp(-log_level) when
    s̄ >= E|h|. Requires |w| < s̄ (so that every D tried is interior: p, q > 0)."""
    w, s_bar = np.broadcast_arrays(np.asarray(w, dtype=float), np.asarray(s_bar, dtype=float))
    far = lambda D: k * rate(w, D, s_bar) > log_level  # noqa: E731
    return _bisect(w, -s_bar, far), _bisect(w, s_bar.copy(), far)
