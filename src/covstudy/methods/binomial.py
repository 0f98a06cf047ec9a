"""Closed-form intervals for a binomial proportion p from k successes in n trials.

Every kernel maps ``(k, n, delta, **params)`` (broadcasting arrays) to ``(lower, upper)`` in
[0, 1] and aims at coverage ``1 - delta``. Notation: ``p̂ = k/n``, ``q = delta/2`` the tail
probability of each end, and ``z = Φ⁻¹(1 - q)``. All methods here are equal-tailed: each end
is the one-sided bound at tail ``q``, and the formulas are written with the *signed* z so
they stay valid for ``q`` ≥ ½ (one-sided bounds at ``delta`` ≥ ½, see registry.py).
References: Brown, Cai & DasGupta (2001), "Interval estimation for a binomial proportion",
Statistical Science 16(2), 101-133 (BCD); Agresti & Coull (1998), The American
Statistician 52(2), 119-126; Newcombe (1998), "Two-sided confidence intervals for the
single proportion: comparison of seven methods", Statistics in Medicine 17, 857-872.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .. import validate
from .registry import Param, register, register_kind


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for k successes of n (intervals.py)."""
    k, n = validate.k_and_n(*counts)
    return m.bounds((k, n), validate.delta(delta), side, **params)


register_kind("proportion", ("k", "n"), "", data="count", route=_door, plain=True,
              estimate=lambda k, n: np.asarray(k, dtype=float) / np.asarray(n, dtype=float))


def _z(delta):
    """Normal critical value z = Φ⁻¹(1 - delta/2); negative when delta > 1 (a one-sided bound below 50 %)."""
    return -special.ndtri(np.asarray(delta, dtype=float) / 2)


def _floats(k, n):
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    return k, n


def _clip(lower, upper):
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


def beta_interval(a, b, delta):
    """Equal-tailed quantiles (delta/2, 1 - delta/2) of Beta(a, b), elementwise (a, b > 0)."""
    q = np.asarray(delta, dtype=float) / 2
    # 1 - I⁻¹(1 - q) via the reflected Beta keeps full precision for upper ends near 1.
    lower, upper = special.betaincinv(a, b, q), 1 - special.betaincinv(b, a, q)
    # With a tiny shape both ends underflow to 0, the lower one to 2.2e-308: keep lower <= upper.
    return np.minimum(lower, upper), upper


@register("wald", display="Wald", aliases=("normal",), family="approximate", guaranteed=False,
          reference="Laplace (1812); BCD (2001) §2.1")
def wald(k, n, delta):
    """Wald (normal approximation) interval p̂ ± z·sqrt(p̂(1-p̂)/n), clipped to [0, 1].

    Degenerate at k = 0 and k = n (zero width), the failure BCD (2001) document.
    """
    k, n = _floats(k, n)
    p_hat = k / n
    half = _z(delta) * np.sqrt(p_hat * (1 - p_hat) / n)
    return _clip(p_hat - half, p_hat + half)


@register("wilson", display="Wilson", family="approximate", guaranteed=False,
          reference="Wilson (1927), JASA 22, 209-212")
def wilson(k, n, delta):
    """Wilson score interval: (p̂ + z²/2n ± z·sqrt(p̂(1-p̂)/n + z²/4n²)) / (1 + z²/n).

    Inverts the score test |p̂ - p| <= z·sqrt(p(1-p)/n); always inside [0, 1]
    (clipped only against rounding). Lower = 0 at k = 0 and upper = 1 at k = n exactly (for
    z >= 0): in floating point centre - half can be 3e-17 there, which would leave a sliver
    (0, 3e-17) of p where coverage tends to 0.
    """
    k, n = _floats(k, n)
    p_hat = k / n
    z = _z(delta)
    z2 = z * z
    centre = (p_hat + z2 / (2 * n)) / (1 + z2 / n)
    half = z * np.sqrt(p_hat * (1 - p_hat) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    lower, upper = _clip(centre - half, centre + half)
    return np.where((k == 0) & (z >= 0), 0.0, lower), np.where((k == n) & (z >= 0), 1.0, upper)


@register("clopper_pearson", display="Clopper–Pearson", aliases=("exact",), family="exact", guaranteed=True,
          reference="Clopper & Pearson (1934), Biometrika 26, 404-413")
def clopper_pearson(k, n, delta):
    """Clopper-Pearson exact interval: [B(delta/2; k, n-k+1), B(1-delta/2; k+1, n-k)].

    B(q; a, b) is the Beta(a, b) quantile, equivalently the p solving
    P(X >= k | p) = delta/2 (lower) and P(X <= k | p) = delta/2 (upper);
    lower = 0 at k = 0 and upper = 1 at k = n. Coverage >= 1 - delta for every p.
    """
    k, n = _floats(k, n)
    q = np.asarray(delta, dtype=float) / 2
    # np.maximum keeps the Beta parameters positive where the end is set by the boundary rule.
    lower = np.where(k == 0, 0.0, special.betaincinv(np.maximum(k, 1), n - k + 1, q))
    upper = np.where(k == n, 1.0, 1 - special.betaincinv(np.maximum(n - k, 1), k + 1, q))
    return lower, upper


@register("jeffreys", display="Jeffreys", family="bayesian", guaranteed=False,
          reference="Jeffreys (1946); BCD (2001) §4.1.2 (boundary-modified)")
def jeffreys(k, n, delta):
    """Jeffreys interval: equal-tailed Beta(k+½, n-k+½) quantiles, lower = 0 at k = 0, upper = 1 at k = n.

    The Beta(½, ½)-prior posterior's (delta/2, 1-delta/2) quantiles, with BCD's (2001)
    boundary modification so that the interval contains p̂ at the edges.
    """
    k, n = _floats(k, n)
    lower, upper = beta_interval(k + 0.5, n - k + 0.5, delta)
    return np.where(k == 0, 0.0, lower), np.where(k == n, 1.0, upper)


@register("agresti_coull", display="Agresti–Coull", family="approximate", guaranteed=False,
          reference="Agresti & Coull (1998), Am. Stat. 52, 119-126")
def agresti_coull(k, n, delta):
    """Agresti-Coull interval p̃ ± z·sqrt(p̃(1-p̃)/ñ), ñ = n + z², p̃ = (k + z²/2)/ñ, clipped to [0, 1].

    The Wald interval around Wilson's centre ("add z²/2 successes and failures").
    """
    k, n = _floats(k, n)
    z = _z(delta)
    n_tilde = n + z * z
    p_tilde = (k + z * z / 2) / n_tilde
    half = z * np.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
    return _clip(p_tilde - half, p_tilde + half)


@register("wald_cc", display="Wald (cc)", family="approximate", guaranteed=False,
          reference="Newcombe (1998) method 2")
def wald_cc(k, n, delta):
    """Wald interval with continuity correction: p̂ ± (z·sqrt(p̂(1-p̂)/n) + 1/(2n)), clipped to [0, 1].

    Newcombe's (1998) method 2. At k = 0 it is [0, 1/(2n)], at k = n [1 - 1/(2n), 1].
    """
    k, n = _floats(k, n)
    p_hat = k / n
    half = _z(delta) * np.sqrt(p_hat * (1 - p_hat) / n) + 1 / (2 * n)
    return _clip(p_hat - half, p_hat + half)


@register("wilson_cc", display="Wilson (cc)", family="approximate", guaranteed=False,
          reference="Newcombe (1998) method 4")
def wilson_cc(k, n, delta):
    """Wilson score interval with continuity correction (Newcombe 1998, method 4).

    Inverts |p̂ - p| - 1/(2n) <= z·sqrt(p(1-p)/n); with d = 2(n + z²):
        lower = (2k + z² - 1 - z·sqrt(z² - 2 - 1/n + 4p̂(n(1-p̂) + 1))) / d,   0 at k = 0,
        upper = (2k + z² + 1 + z·sqrt(z² + 2 - 1/n + 4p̂(n(1-p̂) - 1))) / d,   1 at k = n,
    the same as scipy's ``binomtest(k, n).proportion_ci(method="wilsoncc")``.
    """
    k, n = _floats(k, n)
    p_hat = k / n
    z = _z(delta)
    z2 = z * z
    d = 2 * (n + z2)
    # The radicands are positive for 0 < k (lower) and k < n (upper); np.maximum only
    # keeps the discarded edge branch of np.where free of NaN.
    root_lo = np.sqrt(np.maximum(z2 - 2 - 1 / n + 4 * p_hat * (n * (1 - p_hat) + 1), 0.0))
    root_hi = np.sqrt(np.maximum(z2 + 2 - 1 / n + 4 * p_hat * (n * (1 - p_hat) - 1), 0.0))
    lower = np.where(k == 0, 0.0, (2 * k + z2 - 1 - z * root_lo) / d)
    upper = np.where(k == n, 1.0, (2 * k + z2 + 1 + z * root_hi) / d)
    return _clip(lower, upper)


@register("bayes", display="Bayes (Beta prior)", family="bayesian", guaranteed=False,
          reference="BCD (2001) §4.1.2 (conjugate Beta prior)",
          params=(Param("a", 0.5, above=0.0, doc="prior successes, Beta(a, b) prior", at_most=1e10),
                  Param("b", 0.5, above=0.0, doc="prior failures, Beta(a, b) prior", at_most=1e10)))
def bayes(k, n, delta, a=0.5, b=0.5):
    """Equal-tailed credible interval under a Beta(a, b) prior: Beta(k + a, n - k + b) quantiles.

    The (delta/2, 1 - delta/2) quantiles of the posterior; no boundary modification.
    a = b = ½ is ``jeffreys_equal_tailed``, a = b = 1 is ``bayes_flat``; default a = b = ½.
    """
    k, n = _floats(k, n)
    return beta_interval(k + a, n - k + b, delta)


@register("jeffreys_equal_tailed", display="Jeffreys (equal-tailed)", family="bayesian", guaranteed=False,
          reference="Jeffreys (1946); BCD (2001) §4.1.2")
def jeffreys_equal_tailed(k, n, delta):
    """Equal-tailed Jeffreys interval: Beta(k+½, n-k+½) quantiles (delta/2, 1 - delta/2), unmodified.

    ``bayes`` with a = b = ½; statsmodels' ``proportion_confint(method="jeffreys")``.
    Unlike ``jeffreys``, lower > 0 at k = 0 and upper < 1 at k = n.
    """
    return bayes(k, n, delta, a=0.5, b=0.5)


@register("bayes_flat", display="Bayes (flat prior)", aliases=("bayes_uniform",), family="bayesian", guaranteed=False,
          reference="Bayes (1763); Laplace (1774)")
def bayes_flat(k, n, delta):
    """Equal-tailed credible interval under the uniform prior: Beta(k+1, n-k+1) quantiles.

    ``bayes`` with a = b = 1.
    """
    return bayes(k, n, delta, a=1.0, b=1.0)


@register("arcsine", display="arcsine", family="approximate", guaranteed=False,
          reference="Anscombe (1948), Biometrika 35, 246-254; BCD (2001) §4.2.2")
def arcsine(k, n, delta):
    """Variance-stabilised interval sin²(arcsin√p̂ ± z/(2√n)), the angle clipped to [0, π/2].

    Clipping the angle (not the result) keeps the map monotone, so the ends stay in [0, 1]
    and 0 <= lower <= p̂ <= upper. Uses p̂ itself; BCD (2001) use Anscombe's
    (k + 3/8)/(n + 3/4) instead, which is not implemented here.
    """
    k, n = _floats(k, n)
    theta = np.arcsin(np.sqrt(k / n))
    h = _z(delta) / (2 * np.sqrt(n))
    return (np.sin(np.clip(theta - h, 0.0, np.pi / 2)) ** 2,
            np.sin(np.clip(theta + h, 0.0, np.pi / 2)) ** 2)


@register("logit", display="logit", family="approximate", guaranteed=False,
          reference="BCD (2001) §4.2.1")
def logit(k, n, delta):
    """Wald interval on the log-odds scale: expit(λ̂ ± z·sqrt(n/(k(n-k)))), λ̂ = log(k/(n-k)).

    Convention at the edges, where λ̂ is infinite: the Clopper-Pearson ends,
    [0, 1 - (delta/2)^(1/n)] at k = 0 and [(delta/2)^(1/n), 1] at k = n.
    Not monotone in k everywhere: e.g. n = 103, delta = 1/64 gives upper(1) > upper(2).
    """
    k, n = _floats(k, n)
    inner = (k > 0) & (k < n)
    ks = np.where(inner, k, 1.0)  # safe arguments for the edge branch of np.where
    fs = np.where(inner, n - k, 1.0)
    lam = np.log(ks / fs)
    half = _z(delta) * np.sqrt(1 / ks + 1 / fs)
    cp_lower, cp_upper = clopper_pearson(k, n, delta)
    lower = np.where(inner, special.expit(lam - half), cp_lower)
    upper = np.where(inner, special.expit(lam + half), cp_upper)
    return lower, upper
