"""The paired Bayes and score intervals as computed before issue 25 (commit cb89fe5): slow references.

Each end solved by the bracketed root finder (roots.solve_increasing) to a few ulps: Bayes from
the bracket mean ± 6 sd of the posterior (widened to [-1, 1] where that misses), the score
intervals from [-1, 1]. The CDF and the score statistic are copied from that commit, so that
tests/test_paired_speed.py compares the faster solvers with the old numbers, not with themselves.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from covstudy.methods.binomial import _z
from covstudy.methods.difference import skew_corrected
from covstudy.methods.posterior_difference import U, WEIGHTS
from covstudy.methods.roots import solve_increasing


def bayes_cdf(s1, s2, r1, r2, t):
    """P(D <= t) = 1[t > 0]·F_S(|t|) + ∫_{F_S(|t|)}^1 I((1 + t/Q_S(u))/2; r1, r2) du (rows)."""
    s1, s2, r1, r2 = (v[:, None] for v in (s1, s2, r1, r2))
    lo = special.betainc(s1[:, 0], s2[:, 0], np.abs(t))
    width = 1 - lo
    u = lo[:, None] + width[:, None] * U
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = width * np.sum(special.betainc(r1, r2, np.clip((1 + t[:, None] / special.betaincinv(s1, s2, u)) / 2,
                                                                0, 1)) * WEIGHTS, axis=-1)
    return np.where(t > 0, lo, 0.0) + inner


def bayes_interval(a, b, c, d, delta=0.05, prior=0.5):
    """Equal-tailed interval of θ12 - θ21 under the Dirichlet(prior, ...) posterior (flat arrays)."""
    a, b, c, d = (np.asarray(v, dtype=float).ravel() for v in np.broadcast_arrays(a, b, c, d))
    s1, s2, r1, r2 = b + c + 2 * prior, a + d + 2 * prior, b + prior, c + prior
    total = s1 + s2
    p12, p21 = s1 / total * r1 / (r1 + r2), s1 / total * r2 / (r1 + r2)
    mean, sd = p12 - p21, np.sqrt((p12 * (1 - p12) + p21 * (1 - p21) + 2 * p12 * p21) / (total + 1))
    rows = np.arange(a.size)

    def cdf(t, i):
        return bayes_cdf(s1[i], s2[i], r1[i], r2[i], t)

    ends = []
    half = np.broadcast_to(np.asarray(delta, dtype=float) / 2, a.shape)
    for q in (half, 1 - half):
        lo, hi = np.clip(mean - 6 * sd, -1, 1), np.clip(mean + 6 * sd, -1, 1)
        lo = np.where(cdf(lo, rows) > q, -1.0, lo)
        hi = np.where(cdf(hi, rows) < q, 1.0, hi)
        ends.append(np.clip(solve_increasing(lambda t, i, q=q: cdf(t, i) - q[i], lo, hi), -1, 1))
    return tuple(ends)


def score_statistic(a, b, c, d, theta, bias_correction, skew, z_crit):
    """Tango's statistic, optionally with the bias and skewness corrections (paired.py at cb89fe5)."""
    n = a + b + c + d
    big_a = 2 * n
    big_b = -b - c + (2 * n - b + c) * theta
    big_c = -c * theta * (1 - theta)
    root = -big_b + np.sqrt(np.maximum(big_b * big_b - 4 * big_a * big_c, 0.0))
    p21 = np.where(root == 0, 0.0, root / (2 * big_a))
    p12 = p21 + theta
    lam = np.where(n > 1, n / np.maximum(n - 1, 1), 1.0) if bias_correction else 1.0
    variance = np.maximum(2 * p21 + theta * (1 - theta), 0.0) / n * lam
    s = (b - c) / n - theta
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(s == 0, 0.0, s / np.sqrt(variance))
        if not skew:
            return z
        p11 = np.where(a == 0, 0.0, a / (a + d) * (1 - p12 - p21))
        p2 = np.clip(p21 + p11, 0, 1)
        p1 = p2 + theta
        q1, q2 = 1 - p1, 1 - p2
        mu3 = (p1 * q1 * (1 - 2 * p1) - p2 * q2 * (1 - 2 * p2)
               - 3 * (p11 * q1 ** 2 + p21 * p1 ** 2 - p1 * p2 * q1)
               + 3 * (p11 * q2 ** 2 + p12 * p2 ** 2 - p1 * p2 * q2)) / n ** 2
        gamma = np.where((np.abs(mu3) < 1e-10) | (variance < 1e-10), 0.0, mu3 / (6 * variance ** 1.5))
        return skew_corrected(z, gamma, z_crit)


def score_interval(a, b, c, d, delta=0.05, bias_correction=True, skew=True):
    """Tango (False, False) or SCAS (True, True) ends, each from the bracket [-1, 1] (flat arrays);
    SCAS is [-1, 1] at n = 1."""
    a, b, c, d = (np.asarray(v, dtype=float).ravel() for v in np.broadcast_arrays(a, b, c, d))
    crit = _z(delta)
    z = np.arctan(crit)
    lo, hi = np.full(a.size, -1.0), np.full(a.size, 1.0)

    def stat(t, i):
        return np.arctan(score_statistic(a[i], b[i], c[i], d[i], t, bias_correction, skew, crit))

    lower = solve_increasing(lambda t, i: z - stat(t, i), lo, hi)
    upper = solve_increasing(lambda t, i: -z - stat(t, i), lo, hi)
    if skew:
        single = a + b + c + d == 1
        lower, upper = np.where(single, -1.0, lower), np.where(single, 1.0, upper)
    return lower, upper
