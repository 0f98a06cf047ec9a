"""Slow, independent reference for the mean of two Betas: adaptive QUADPACK quadrature (test-only)."""

import numpy as np
from scipy import integrate, optimize, special, stats


def sum_cdf(s, a1, b1, a2, b2):
    """P(X + Y <= s) for X ~ Beta(a1, b1), Y ~ Beta(a2, b2) independent.

    For s <= 1 it is ∫_0^s f_X(x) F_Y(s - x) dx; when a1 < 1, QUADPACK's algebraic-weight
    rule (QAWS) carries the x^(a1-1) factor of the Beta density, so the singular endpoint is
    integrated exactly; otherwise adaptive quadrature with breakpoints at X's quantiles. For s > 1 use 1 - P((1-X) + (1-Y) < 2 - s) (reflection).
    """
    if s > 1:
        return 1.0 - sum_cdf(2.0 - s, b1, a1, b2, a2)
    if s <= 0:
        return 0.0
    log_norm = special.betaln(a1, b1)

    def g(x):  # f_X(x) / x^(a1 - 1), times F_Y(s - x)
        return np.exp((b1 - 1) * np.log1p(-x) - log_norm) * stats.beta.cdf(s - x, a2, b2)

    if a1 < 1:
        value, _ = integrate.quad(g, 0.0, s, weight="alg", wvar=(a1 - 1, 0.0), limit=1000)
        return value
    # No singularity: plain adaptive quadrature, told where X's mass is.
    points = [x for x in stats.beta.ppf([1e-9, 0.01, 0.5, 0.99, 1 - 1e-9], a1, b1) if 0 < x < s]
    value, _ = integrate.quad(lambda x: stats.beta.pdf(x, a1, b1) * stats.beta.cdf(s - x, a2, b2), 0.0, s, points=points or None, limit=1000)
    return value


def mean_quantile(q, a1, b1, a2, b2, bracket=(0.0, 1.0)):
    """The q-quantile of (X + Y)/2 by root finding on ``sum_cdf`` inside ``bracket``.

    A narrow bracket around a candidate saves time; brentq raises if the root is outside it.
    """
    return optimize.brentq(lambda m: sum_cdf(2 * m, a1, b1, a2, b2) - q, *bracket, xtol=1e-14, rtol=1e-14)
