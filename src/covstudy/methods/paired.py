"""Intervals for the difference of two accuracies measured on the same test set (paired proportions).

Two classifiers score the same n examples; the outcome is the 2 x 2 table of correctness
(a, b, c, d) = (both, only_first, only_second, neither), n = a + b + c + d. The accuracies are
p̂1 = (a + b)/n, p̂2 = (a + c)/n and their difference d̂ = p̂1 - p̂2 = (b - c)/n depends on the
discordant pairs b, c only. Every kernel maps ``(both, only_first, only_second, neither, delta,
**params)`` (broadcasting arrays, already validated, n >= 1) to ``(lower, upper)`` in [-1, 1];
z = Φ⁻¹(1 - delta/2). Names carry the prefix ``paired_`` (see difference.py for why).

Most of these methods read the table only through (b, c, n); ``NEEDS_CONCORDANT`` names the
ones that also need a and d separately, so that the paired design can enumerate the
trinomial (b, c) outcomes alone for the others (designs/paired.py).
Main references: Newcombe (1998b), "Improved confidence intervals for the difference between
binomial proportions based on paired data", Stat. Med. 17, 2635-2650; Tango (1998), Stat. Med.
17, 891-908; Fagerland, Lydersen & Laake (2014), "Recommended tests and confidence intervals for
paired binomial proportions", Stat. Med. 33, 2850-2875.
"""

from __future__ import annotations

import numpy as np

from .. import validate
from .binomial import _z, wilson
from .counts import paired_counts
from .difference import invert_score, skew_corrected
from .distinct import unique_rows
from .posterior_difference import paired_equal_tailed
from .roots import solve_increasing, solve_near
from .registry import Param, register, register_kind


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for a paired table (intervals.py)."""
    return m.bounds(paired_counts(*counts), validate.delta(delta), side, **params)


# one test set, two classifiers
register_kind("paired", ("both", "only_first", "only_second", "neither"), "paired", kind="paired", prefix="paired_", route=_door)

NEEDS_CONCORDANT = ("paired_newcombe", "paired_scas")
_TOL = 1e-11  # ends within ~1e-11 of the exact root (roots.solve_near)


def _floats(*arrays):
    return tuple(np.asarray(x, dtype=float) for x in arrays)


def _clip(lower, upper):
    return np.clip(lower, -1.0, 1.0), np.clip(upper, -1.0, 1.0)


def _wald(b, c, n, delta, extra=0.0):
    """(b - c)/n ± (z·sqrt((b + c) - (b - c)²/n)/n + extra), clipped."""
    half = _z(delta) * np.sqrt(np.maximum((b + c) - (b - c) ** 2 / n, 0.0)) / n + extra
    return _clip((b - c) / n - half, (b - c) / n + half)


@register("paired_wald", display="Wald (paired)", family="approximate", guaranteed=False, takes="paired",
          reference="Newcombe (1998b) method 1; Fagerland, Lydersen & Laake (2014)")
def paired_wald(both, only_first, only_second, neither, delta):
    """Wald interval (b - c)/n ± z·sqrt((b + c) - (b - c)²/n)/n, clipped to [-1, 1]."""
    a, b, c, d = _floats(both, only_first, only_second, neither)
    return _wald(b, c, a + b + c + d, delta)


@register("paired_wald_cc", display="Wald cc (paired)", family="approximate", guaranteed=False, takes="paired",
          reference="Newcombe (1998b) method 2")
def paired_wald_cc(both, only_first, only_second, neither, delta):
    """Wald interval with continuity correction: (b - c)/n ± (z·sqrt((b + c) - (b - c)²/n)/n + 1/n)."""
    a, b, c, d = _floats(both, only_first, only_second, neither)
    n = a + b + c + d
    return _wald(b, c, n, delta, 1 / n)


def _adjusted_wald(b, c, n, delta, add):
    """Wald with ``add`` pseudo-observations in each discordant cell and n + 2:
    p̃12 - p̃21 ± z·sqrt((p̃12 + p̃21 - (p̃12 - p̃21)²)/(n + 2)), p̃12 = (b + add)/(n + 2), p̃21 likewise."""
    m = n + 2
    p12, p21 = (b + add) / m, (c + add) / m
    half = _z(delta) * np.sqrt(np.maximum(p12 + p21 - (p12 - p21) ** 2, 0.0) / m)
    return _clip(p12 - p21 - half, p12 - p21 + half)


@register("paired_agresti_min", display="Agresti–Min", family="approximate", guaranteed=False, takes="paired",
          reference="Agresti & Min (2005), Stat. Med. 24, 729-740")
def paired_agresti_min(both, only_first, only_second, neither, delta):
    """Agresti-Min: the Wald interval after adding 1/2 to every cell, p̃12 = (b + 1/2)/(n + 2),
    p̃21 = (c + 1/2)/(n + 2): p̃12 - p̃21 ± z·sqrt((p̃12 + p̃21 - (p̃12 - p̃21)²)/(n + 2))."""
    a, b, c, d = _floats(both, only_first, only_second, neither)
    return _adjusted_wald(b, c, a + b + c + d, delta, 0.5)


@register("paired_bonett_price", display="Bonett–Price", family="approximate", guaranteed=False, takes="paired",
          reference="Bonett & Price (2012), J. Educ. Behav. Stat. 37, 479-488")
def paired_bonett_price(both, only_first, only_second, neither, delta):
    """Bonett-Price adjusted Wald: p̃12 = (b + 1)/(n + 2), p̃21 = (c + 1)/(n + 2),
    p̃12 - p̃21 ± z·sqrt((p̃12 + p̃21 - (p̃12 - p̃21)²)/(n + 2))."""
    a, b, c, d = _floats(both, only_first, only_second, neither)
    return _adjusted_wald(b, c, a + b + c + d, delta, 1.0)


@register("paired_newcombe", display="Newcombe (paired)", family="approximate", guaranteed=False, takes="paired",
          reference="Newcombe (1998b) method 10")
def paired_newcombe(both, only_first, only_second, neither, delta):
    """Newcombe's method 10: Wilson limits (li, ui) of p̂1 = (a + b)/n and p̂2 = (a + c)/n combined with
    the correlation φ of the table:
        lower = d̂ - sqrt((p̂1 - l1)² - 2φ(p̂1 - l1)(u2 - p̂2) + (u2 - p̂2)²),
        upper = d̂ + sqrt((u1 - p̂1)² - 2φ(u1 - p̂1)(p̂2 - l2) + (p̂2 - l2)²),
    φ = (ad - bc)/sqrt((a + b)(c + d)(a + c)(b + d)), with ad - bc replaced by max(ad - bc - n/2, 0)
    when ad > bc (Newcombe's correction), and φ = 0 when a margin is empty.
    """
    a, b, c, d = _floats(both, only_first, only_second, neither)
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n, delta)
    l2, u2 = wilson(a + c, n, delta)
    cross = a * d - b * c
    cross = np.where(cross > 0, np.maximum(cross - n / 2, 0.0), cross)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(margins > 0, cross / np.sqrt(margins), 0.0)
    dl = np.sqrt(np.maximum((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    du = np.sqrt(np.maximum((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return _clip(p1 - p2 - dl, p1 - p2 + du)


def paired_score_statistic(a, b, c, d, theta, bias_correction: bool, skew: bool, z_crit=None):
    """Tango's score statistic of H: p1 - p2 = θ, decreasing in θ, optionally corrected (Laud 2017).

    Z = ((b - c)/n - θ)/sqrt(λ·(2p̃21 + θ(1 - θ))/n), p̃21 the restricted MLE of the cell (second only),
    p̃21 = (-B + sqrt(B² - 4AC))/(2A), A = 2n, B = -b - c + (2n - b + c)θ, C = -cθ(1 - θ) (Tango
    1998); λ = n/(n - 1) with the bias correction (infinite at n = 1: see ``paired_scas``), else 1. Skewness correction as for two samples
    (difference.score_statistic), with μ3 of the paired difference at the restricted MLE
    (p̃11 = a/(a + d)·(1 - p̃12 - p̃21)) as in Laud's ratesci (2017).
    """
    z, gamma = _z_and_gamma(a, b, c, d, theta, bias_correction, skew)
    if not skew:
        return z
    with np.errstate(divide="ignore", invalid="ignore"):
        return skew_corrected(z, gamma, z_crit)


def _z_and_gamma(a, b, c, d, theta, bias_correction, skew=True):
    """Tango's statistic z (bias-corrected or not) and the skewness γ of ``paired_score_statistic``
    (None without ``skew``)."""
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
            return z, None
        p11 = np.where(a == 0, 0.0, a / (a + d) * (1 - p12 - p21))
        p2 = np.clip(p21 + p11, 0, 1)
        p1 = p2 + theta
        q1, q2 = 1 - p1, 1 - p2
        mu3 = (p1 * q1 * (1 - 2 * p1) - p2 * q2 * (1 - 2 * p2)
               - 3 * (p11 * q1 ** 2 + p21 * p1 ** 2 - p1 * p2 * q1)
               + 3 * (p11 * q2 ** 2 + p12 * p2 ** 2 - p1 * p2 * q2)) / n ** 2
        gamma = np.where((np.abs(mu3) < 1e-10) | (variance < 1e-10), 0.0, mu3 / (6 * variance ** 1.5))
    return z, gamma


def _scas_ends(a, b, c, d, crit):
    """SCAS ends of flat arrays of tables (critical values ``crit``), each started near its root:

    1. x₀, the end of the bias-corrected score interval without the skewness correction (z(θ) = ±z_c),
       depends on (b, c, n, z_c) only: solved once per distinct row with the bracketed root finder,
       with the slope z'(x₀) by a central difference;
    2. SCAS's statistic is ±z_c where γ·z_c² ± z_c = z + γ, i.e. z(θ) = ±z_c + γ(θ)(z_c² - 1); one
       linearised step from x₀ with γ at x₀ (which reads a/(a + d)), x₁ = x₀ + (±z_c + γ(x₀)(z_c² - 1) - z(x₀))/z'(x₀);
    3. secant steps from x₀ and x₁ on ±arctan(z_c) - arctan(statistic), as ``invert_score`` inverts it
       (roots.solve_near: bracket-safeguarded, two or three evaluations an end).
    """
    n = a + b + c + d
    key, inverse = unique_rows(np.stack([b, c, n, crit], axis=1))
    kb, kc, kn, kz = key.T
    rest = kn - kb - kc

    def tango(t, i):
        return _z_and_gamma(rest[i], kb[i], kc[i], 0.0, t, True, False)[0]

    starts = [solve_increasing(lambda t, i: side * np.arctan(kz[i]) - np.arctan(tango(t, i)), -1.0, np.ones(len(key)))
              for side in (1, -1)]
    lim = np.arctan(crit)
    ends = []
    for sign, x0_key in zip((1, -1), starts):
        up, down = np.minimum(x0_key + 1e-6, 1), np.maximum(x0_key - 1e-6, -1)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope_key = (tango(up, slice(None)) - tango(down, slice(None))) / (up - down)
        x0, slope = x0_key[inverse], slope_key[inverse]
        z0, gamma0 = _z_and_gamma(a, b, c, d, x0, True)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            f0 = sign * lim - np.arctan(skew_corrected(z0, gamma0, crit))
            x1 = x0 + (sign * crit + gamma0 * (crit * crit - 1) - z0) / slope

        def f(t, i):
            with np.errstate(invalid="ignore"):
                return sign * lim[i] - np.arctan(paired_score_statistic(a[i], b[i], c[i], d[i], t, True, True, crit[i]))

        ends.append(solve_near(f, x0, f0, x1, -1.0, 1.0, tol=_TOL))
    return ends


def _score_interval(both, only_first, only_second, neither, delta, bias_correction, skew):
    a, b, c, d = _floats(both, only_first, only_second, neither)
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape, d.shape, np.shape(delta))
    fa, fb, fc, fd = (np.broadcast_to(x, shape).ravel() for x in (a, b, c, d))
    crit = np.broadcast_to(_z(delta), shape).ravel()
    return invert_score(lambda t, i: paired_score_statistic(fa[i], fb[i], fc[i], fd[i], t, bias_correction, skew,
                                                            crit[i]), shape, delta)


@register("paired_tango", display="Tango", family="approximate", guaranteed=False, takes="paired",
          reference="Tango (1998), Stat. Med. 17, 891-908")
def paired_tango(both, only_first, only_second, neither, delta):
    """Tango's score interval: the θ with |b - c - nθ| <= z·sqrt(n(2p̃21 + θ(1 - θ))), p̃21 the
    restricted MLE (see ``paired_score_statistic``)."""
    return _score_interval(both, only_first, only_second, neither, delta, False, False)


@register("paired_scas", display="SCAS (paired)", family="approximate", guaranteed=False, takes="paired",
          reference="Laud (2017), Pharm. Stat. 16, 334-348; ratesci's pairbinci (Score, skew, bcf)")
def paired_scas(both, only_first, only_second, neither, delta):
    """Skewness-corrected asymptotic score interval for paired data: Tango's statistic with the
    variance times n/(n - 1) and Laud's skewness correction.

    At n = 1 the factor n/(n - 1) is infinite (one pair carries no estimate of the variance): the
    statistic is 0 at every θ, no θ is rejected and the interval is [-1, 1], the limit of the
    interval as the factor grows, and what ratesci's pairbinci gives (Laud's own implementation).
    """
    a, b, c, d = _floats(both, only_first, only_second, neither)
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape, d.shape, np.shape(delta))
    lower, upper = (end.reshape(shape) for end in _scas_ends(*(np.broadcast_to(x, shape).ravel() for x in (a, b, c, d)),
                                                             np.broadcast_to(_z(delta), shape).ravel()))
    single = np.asarray(both) + only_first + only_second + neither == 1
    return np.where(single, -1.0, lower), np.where(single, 1.0, upper)


@register("paired_bayes", display="Bayes (paired)", family="bayesian", guaranteed=False, takes="paired",
          reference="Dirichlet-multinomial posterior (e.g. Gelman et al., Bayesian Data Analysis, 3rd ed., ch. 3)",
          params=(Param("prior", 0.5, above=0.0, doc="Dirichlet prior count added to each of the four cells"),))
def paired_bayes(both, only_first, only_second, neither, delta, prior=0.5):
    """Equal-tailed credible interval of θ12 - θ21 under a Dirichlet(prior, ..., prior) prior on the
    four cells: with S = θ12 + θ21 ~ Beta(b + c + 2·prior, a + d + 2·prior) and R = θ12/S ~
    Beta(b + prior, c + prior) independent, θ12 - θ21 = S(2R - 1); its quantiles by quadrature
    (posterior_difference.py), not sampled; lower(b, c) = -upper(c, b) exactly."""
    a, b, c, d = _floats(both, only_first, only_second, neither)
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape, d.shape, np.shape(delta))
    return paired_equal_tailed(b + c + 2 * prior, a + d + 2 * prior, b + prior, c + prior, shape, delta)
