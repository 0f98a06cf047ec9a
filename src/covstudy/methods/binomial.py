"""Two-sided intervals for a binomial proportion p from k successes in n trials.

Every kernel maps ``(k, n, delta)`` (broadcasting arrays) to ``(lower, upper)`` with
``0 <= lower <= upper <= 1`` and aims at coverage ``1 - delta``. Notation:
``p̂ = k/n`` and ``z = Φ⁻¹(1 - delta/2)``. References: Brown, Cai & DasGupta (2001),
"Interval estimation for a binomial proportion", Statistical Science 16(2), 101-133 (BCD);
Agresti & Coull (1998), The American Statistician 52(2), 119-126.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .registry import register


def _z(delta):
    """Two-sided normal critical value z = Φ⁻¹(1 - delta/2)."""
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
    return special.betaincinv(a, b, q), special.betaincinv(a, b, 1 - q)


@register("wald", aliases=("normal",), family="approximate", guaranteed=False,
          reference="Laplace (1812); BCD (2001) §2.1")
def wald(k, n, delta):
    """Wald (normal approximation) interval p̂ ± z·sqrt(p̂(1-p̂)/n), clipped to [0, 1].

    Degenerate at k = 0 and k = n (zero width), the failure BCD (2001) document.
    """
    k, n = _floats(k, n)
    p_hat = k / n
    half = _z(delta) * np.sqrt(p_hat * (1 - p_hat) / n)
    return _clip(p_hat - half, p_hat + half)


@register("wilson", family="approximate", guaranteed=False,
          reference="Wilson (1927), JASA 22, 209-212")
def wilson(k, n, delta):
    """Wilson score interval: (p̂ + z²/2n ± z·sqrt(p̂(1-p̂)/n + z²/4n²)) / (1 + z²/n).

    Inverts the score test |p̂ - p| <= z·sqrt(p(1-p)/n); always inside [0, 1]
    (clipped only against rounding).
    """
    k, n = _floats(k, n)
    p_hat = k / n
    z2 = _z(delta) ** 2
    centre = (p_hat + z2 / (2 * n)) / (1 + z2 / n)
    half = np.sqrt(z2 * (p_hat * (1 - p_hat) / n + z2 / (4 * n * n))) / (1 + z2 / n)
    return _clip(centre - half, centre + half)


@register("clopper_pearson", aliases=("exact",), family="exact", guaranteed=True,
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
    upper = np.where(k == n, 1.0, special.betaincinv(k + 1, np.maximum(n - k, 1), 1 - q))
    return lower, upper


@register("jeffreys", family="bayesian", guaranteed=False,
          reference="BCD (2001) §4.1.2 (Jeffreys prior, boundary-modified)")
def jeffreys(k, n, delta):
    """Jeffreys interval: equal-tailed Beta(k+½, n-k+½) quantiles, lower = 0 at k = 0, upper = 1 at k = n.

    The Beta(½, ½)-prior posterior's (delta/2, 1-delta/2) quantiles, with BCD's (2001)
    boundary modification so that the interval contains p̂ at the edges.
    """
    k, n = _floats(k, n)
    lower, upper = beta_interval(k + 0.5, n - k + 0.5, delta)
    return np.where(k == 0, 0.0, lower), np.where(k == n, 1.0, upper)


@register("agresti_coull", family="approximate", guaranteed=False,
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
