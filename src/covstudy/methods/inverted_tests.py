"""Intervals that invert a test of p = p₀ and have no closed form: solved per k by root finding.

Each end is found for all k at once by ``roots.solve_increasing`` inside a bracket known
in closed form (Clopper-Pearson ends or a large-deviation bound), so no Python loop runs
over k. Only lower ends are solved: by the symmetry k -> n - k, p -> 1 - p of the binomial
family all three methods satisfy upper(k; n) = 1 - lower(n - k; n).
Notation: X ~ Binomial(n, p), q = delta/2 the tail probability of each end, I_p(a, b)
the regularised incomplete beta function, so P(X >= k) = I_p(k, n - k + 1) for k >= 1.
"""

from __future__ import annotations

import numpy as np
from scipy import special

try:  # the ufuncs behind scipy.stats.binom (scipy >= 1.11), without importing scipy.stats
    from scipy.special._ufuncs import _binom_pmf, _binom_ppf
except ImportError:  # pragma: no cover
    from scipy.stats import binom as _binom

    _binom_pmf, _binom_ppf = _binom.pmf, _binom.ppf
from .binomial import clopper_pearson
from .registry import register
from .roots import solve_increasing


def _grid(k, n, delta):
    """Flat float arrays k, n, q = delta/2 of the broadcast problem, and its shape."""
    k, n, d = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float),
                                  np.asarray(delta, dtype=float))
    return k.reshape(-1), n.reshape(-1), d.reshape(-1) / 2, k.shape


def _sf_ge(k, n, p):
    """P(X >= k) for X ~ Binomial(n, p), 1 at k <= 0 and 0 at k > n."""
    inside = (k >= 1) & (k <= n)
    value = special.betainc(np.where(inside, k, 1.0), np.where(inside, n - k + 1, 1.0), p)
    return np.where(k <= 0, 1.0, np.where(inside, value, 0.0))


def _pmf(j, n, p):
    """P(X = j), 0 outside 0..n (cheaper than a second incomplete beta): scipy.stats.binom.pmf's own ufunc, the
    same numbers without importing scipy.stats (~1 CPU-s of an intervals-only run)."""
    j, n = np.asarray(j, dtype=float), np.asarray(n, dtype=float)
    inside = (j >= 0) & (j <= n) & (j == np.floor(j))
    return np.where(inside, _binom_pmf(np.where(inside, j, 0.0), n, p), 0.0)


def _cdf(j, n, p):
    """P(X <= j), 0 at j < 0 and 1 at j >= n."""
    return 1.0 - _sf_ge(j + 1, n, p)


def _cp_lower(k, n, q):
    """The p with P(X >= k) = q (the Clopper-Pearson lower end at tail q); 0 at k = 0, 1 at k > n."""
    inside = (k >= 1) & (k <= n)
    value = special.betaincinv(np.where(inside, k, 1.0), np.where(inside, n - k + 1, 1.0), q)
    return np.where(k <= 0, 0.0, np.where(inside, value, 1.0))


def _symmetric(lower_end):
    """Kernel (lower(k), 1 - lower(n - k)) from a solver of the lower end over flat arrays."""
    def kernel(k, n, delta):
        kf, nf, q, shape = _grid(k, n, delta)
        both = lower_end(np.concatenate([kf, nf - kf]), np.concatenate([nf, nf]), np.concatenate([q, q]))
        return both[:kf.size].reshape(shape), (1.0 - both[kf.size:]).reshape(shape)
    return kernel


# --- Lancaster's mid-p -------------------------------------------------------------

def _mid_p_lower(k, n, q):
    """The p with P(X > k) + ½P(X = k) = q, or 0 (1) when the left side stays above (below) q."""
    def f(p, i):
        return _sf_ge(k[i] + 1, n[i], p) + _pmf(k[i], n[i], p) / 2 - q[i]
    # The mid-p tail lies between P(X >= k + 1) and P(X >= k), so its root lies between
    # the Clopper-Pearson lower ends of k and k + 1.
    return solve_increasing(f, _cp_lower(k, n, q), _cp_lower(k + 1, n, q))


_mid_p = _symmetric(_mid_p_lower)


@register("mid_p", display="mid-p", family="approximate", guaranteed=False,
          reference="Lancaster (1961), JASA 56, 223-234; Berry & Armitage (1995), The Statistician 44, 417-423")
def mid_p(k, n, delta):
    """Lancaster's mid-p interval: P(X > k) + ½P(X = k) = delta/2 (lower), P(X < k) + ½P(X = k) = delta/2 (upper).

    The Clopper-Pearson equations with the observed k counted half, solved per k by root
    finding between the Clopper-Pearson ends of k and k ± 1. lower = 0 at k = 0 and
    upper = 1 at k = n (for delta < 1). Not guaranteed: coverage hovers around 1 - delta.
    """
    return _mid_p(k, n, delta)


# --- Blaker's exact interval ----------------------------------------------------------

def _blaker_lower(k, n, q):
    """inf{p : β(p) > 2q} where β is Blaker's acceptability of k (see ``blaker``); 0 at k = 0.

    Below a = CP lower end at tail q, β <= 2·P(X >= k) < 2q. Above a, on the stretch where
    the matching lower-tail cut-off j(p) = max{x : P(X <= x) <= P(X >= k)} keeps its
    value j0 = j(a), β = 1 - P(j0 < X < k) is decreasing-then-increasing in p; the stretch
    ends at t, where P(X <= j0 + 1) = P(X >= k) and β jumps up to 2·P(X >= k) > 2q. So the
    bound is the single sign change on [a, b] of
        ψ(p) = max(β_j0(p) - 2q, P(X >= k) - P(X <= j0 + 1)),
    with b the CP lower end at tail 2q, where β >= P(X >= k) = 2q.
    """
    delta = 2 * q
    a = _cp_lower(k, n, q)
    b = _cp_lower(k, n, delta)
    # j0: the largest x with P_a(X <= x) <= q; the quantile, corrected against rounding.
    with np.errstate(invalid="ignore"):
        j0 = np.nan_to_num(_binom_ppf(q, n, a), nan=-1.0)  # scipy.stats.binom.ppf's ufunc (0 < q < 1)
    j0 = np.where(_cdf(j0, n, a) > q, j0 - 1, j0)
    j0 = np.where(_cdf(j0 + 1, n, a) <= q, j0 + 1, j0)
    j0 = np.minimum(j0, k - 2)  # P(X <= k - 1) = 1 - q > q, so j0 <= k - 2

    def psi(p, i):
        upper_tail = _sf_ge(k[i], n[i], p)
        lower_tail = _cdf(j0[i], n[i], p)
        return np.maximum(upper_tail + lower_tail - delta[i],
                          upper_tail - lower_tail - _pmf(j0[i] + 1, n[i], p))

    # Ends of different k coincide at the jump points t (e.g. upper(0) = lower(10) at n = 17,
    # delta = 0.01), and coverage there relies on the tie; a relative 1e-12 outward margin,
    # far above the solver's and the special functions' errors, keeps rounding from opening
    # an ulp-wide hole in the coverage guarantee
    # (never below a, which keeps the interval inside Clopper-Pearson's).
    return np.where(k == 0, 0.0, np.maximum(a, solve_increasing(psi, a, b) * (1 - 1e-12)))


_blaker = _symmetric(_blaker_lower)


def _blaker_one_sided(k, n, delta):
    """Blaker's one-sided bounds are the Clopper-Pearson one-sided bounds (Blaker 2000, §2)."""
    return clopper_pearson(k, n, 2 * np.asarray(delta, dtype=float))


@register("blaker", display="Blaker", family="exact", guaranteed=True,
          reference="Blaker (2000), Canad. J. Statist. 28, 783-798", one_sided=_blaker_one_sided)
def blaker(k, n, delta):
    """Blaker's exact interval: the p whose acceptability β(p) = P_p(T(X) <= T(k)) exceeds delta.

    T(x) = min(P(X <= x), P(X >= x)) is the smaller tail at x, so β adds to the observed
    tail the largest opposite tail not exceeding it. The confidence set {p : β(p) > delta}
    is reported by its hull [inf, sup] (the set itself can have gaps). It lies inside the
    Clopper-Pearson interval and has coverage >= 1 - delta. Not equal-tailed: its
    one-sided bounds are the Clopper-Pearson ones.
    """
    return _blaker(k, n, delta)


# --- Likelihood ratio ---------------------------------------------------------------

def _lrt_lower(k, n, q):
    """The p <= p̂ with signed root r(p) = Φ⁻¹(1 - q), for q < ½ (see ``lrt``); 0 at k = 0."""
    z2 = special.ndtri(q) ** 2
    p_hat = k / n

    def f(p, i):  # z² - G(p), increasing on [0, p̂]
        with np.errstate(divide="ignore"):
            g = 2 * n[i] * (special.rel_entr(p_hat[i], p) + special.rel_entr(1 - p_hat[i], 1 - p))
        return z2[i] - g

    # Bracket: P(X = k) >= exp(-G(p)/2)/(n + 1) (method of types), so where P(X >= k) =
    # exp(-z²/2)/(n + 1)², G(p) >= z²: the root lies above that CP lower end.
    lo = _cp_lower(k, n, np.exp(-z2 / 2) / (n + 1) ** 2)
    return np.where(k == 0, 0.0, solve_increasing(f, lo, p_hat))


def _lrt_signed_lower(k, n, q):
    """Lower end at any tail q in (0, 1): for q > ½ it is the reflected upper end 1 - lower(n - k)."""
    below = q < 0.5
    qs = np.where(below, q, 1 - q)
    kk = np.where(below, k, n - k)
    root = _lrt_lower(kk, n, np.minimum(qs, 0.5 - 1e-16))
    return np.where(q == 0.5, k / n, np.where(below, root, 1 - root))


_lrt = _symmetric(_lrt_signed_lower)


@register("lrt", display="likelihood ratio", aliases=("likelihood_ratio",), family="approximate", guaranteed=False,
          reference="Wilks (1938), Ann. Math. Statist. 9, 60-62; Newcombe (1998) method 7")
def lrt(k, n, delta):
    """Likelihood-ratio (profile-likelihood) interval {p : G(p) <= z²}, G(p) = 2[ℓ(p̂) - ℓ(p)].

    G(p) = 2k·log(p̂/p) + 2(n-k)·log((1-p̂)/(1-p)) (0·log 0 = 0), ℓ the binomial
    log-likelihood. Its ends are where the signed root r(p) = sign(p̂ - p)·sqrt(G(p)) equals
    ±z, z = Φ⁻¹(1 - delta/2), so each end is the one-sided signed-root bound at tail
    delta/2 and the interval is equal-tailed in r. Closed form at the edges: [0, 1 - exp(-z²/2n)]
    at k = 0 and [exp(-z²/2n), 1] at k = n.
    """
    return _lrt(k, n, delta)
