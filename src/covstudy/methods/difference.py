"""Intervals for the difference p1 - p2 of two independent proportions (two test sets).

Every kernel maps ``(k1, n1, k2, n2, delta, **params)`` (broadcasting arrays, already
validated: 0 <= k <= n, n >= 1) to ``(lower, upper)`` in [-1, 1] for p1 - p2. Notation:
p̂i = ki/ni, q̂i = 1 - p̂i, d̂ = p̂1 - p̂2, z = Φ⁻¹(1 - delta/2), N = n1 + n2.
The methods are registered with the prefix ``diff_`` (``diff_wald``, ...): the registry keys
methods by name across kinds, and the prefix keeps them apart from the single-proportion
methods of the same name, as ``ba_`` does for balanced accuracy.
Main references: Newcombe (1998a), "Interval estimation for the difference between
independent proportions: comparison of eleven methods", Statistics in Medicine 17, 873-890
(methods numbered as there); Fagerland, Lydersen & Laake (2015), "Recommended confidence
intervals for two independent binomial proportions", Stat. Methods Med. Res. 24, 224-254.
"""

from __future__ import annotations

import numpy as np

from .. import validate
from .binomial import _z, wilson, wilson_cc
from .counts import difference_counts
from .posterior_difference import UnpairedLaw, equal_tailed
from .registry import Param, register, register_kind


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for two independent test sets' counts (intervals.py)."""
    return m.bounds(difference_counts(*counts), validate.delta(delta), side, **params)


# two independent test sets
register_kind("difference", ("k1", "n1", "k2", "n2"), "difference", kind="difference", prefix="diff_", data="unpaired", route=_door)
from .roots import solve_increasing


def _floats(*arrays):
    return tuple(np.asarray(a, dtype=float) for a in arrays)


def _clip(lower, upper):
    return np.clip(lower, -1.0, 1.0), np.clip(upper, -1.0, 1.0)


def _wald(p1, n1, p2, n2, delta, extra=0.0):
    """(p1 - p2) ± (z·sqrt(p1(1-p1)/n1 + p2(1-p2)/n2) + extra), clipped."""
    half = _z(delta) * np.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2) + extra
    return _clip(p1 - p2 - half, p1 - p2 + half)


@register("diff_wald", display="Wald (difference)", family="approximate", guaranteed=False, takes="difference",
          reference="Newcombe (1998a) method 1")
def diff_wald(k1, n1, k2, n2, delta):
    """Wald interval d̂ ± z·sqrt(p̂1q̂1/n1 + p̂2q̂2/n2), clipped to [-1, 1] (Newcombe's method 1)."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    return _wald(k1 / n1, n1, k2 / n2, n2, delta)


@register("diff_wald_cc", display="Wald cc (difference)", family="approximate", guaranteed=False, takes="difference",
          reference="Newcombe (1998a) method 2")
def diff_wald_cc(k1, n1, k2, n2, delta):
    """Wald interval with continuity correction: d̂ ± (z·sqrt(p̂1q̂1/n1 + p̂2q̂2/n2) + (1/n1 + 1/n2)/2)."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    return _wald(k1 / n1, n1, k2 / n2, n2, delta, (1 / n1 + 1 / n2) / 2)


@register("diff_agresti_caffo", display="Agresti–Caffo", family="approximate", guaranteed=False, takes="difference",
          reference="Agresti & Caffo (2000), Am. Stat. 54, 280-288")
def diff_agresti_caffo(k1, n1, k2, n2, delta):
    """Agresti-Caffo: the Wald interval after adding one success and one failure to each sample,
    p̃i = (ki + 1)/(ni + 2): p̃1 - p̃2 ± z·sqrt(p̃1(1-p̃1)/(n1+2) + p̃2(1-p̃2)/(n2+2))."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    return _wald((k1 + 1) / (n1 + 2), n1 + 2, (k2 + 1) / (n2 + 2), n2 + 2, delta)


@register("diff_brown_li_jeffreys", display="Brown–Li Jeffreys", family="approximate", guaranteed=False, takes="difference",
          reference="Brown & Li (2005), J. Stat. Plann. Inference 130, 359-375")
def diff_brown_li_jeffreys(k1, n1, k2, n2, delta):
    """Brown-Li Jeffreys interval: Wald at p̃i = (ki + 1/2)/(ni + 1) with the sample sizes ni,
    p̃1 - p̃2 ± z·sqrt(p̃1(1-p̃1)/n1 + p̃2(1-p̃2)/n2)."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    return _wald((k1 + 0.5) / (n1 + 1), n1, (k2 + 0.5) / (n2 + 1), n2, delta)


@register("diff_hauck_anderson", display="Hauck–Anderson", family="approximate", guaranteed=False, takes="difference",
          reference="Hauck & Anderson (1986), Am. Stat. 40, 318-322")
def diff_hauck_anderson(k1, n1, k2, n2, delta):
    """Hauck-Anderson: d̂ ± (z·sqrt(p̂1q̂1/(n1-1) + p̂2q̂2/(n2-1)) + 1/(2·min(n1, n2))).

    Undefined for a sample of size 1 (division by n - 1 = 0): [-1, 1] there.
    """
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    p1, p2 = k1 / n1, k2 / n2
    with np.errstate(divide="ignore", invalid="ignore"):
        half = _z(delta) * np.sqrt(p1 * (1 - p1) / (n1 - 1) + p2 * (1 - p2) / (n2 - 1)) + 1 / (2 * np.minimum(n1, n2))
    half = np.where((n1 > 1) & (n2 > 1), half, np.inf)
    return _clip(p1 - p2 - half, p1 - p2 + half)


def _haldane(p1, n1, p2, n2, delta, psi, holds_estimate):
    """Newcombe's methods 3 and 4: the interval θ* ± w solving the quadratic of the Wald test with
    the variance at ψ; u = (1/n1 + 1/n2)/4, v = (1/n1 - 1/n2)/4,
        θ* = (d̂ + z²v(1 - 2ψ)) / (1 + z²u),
        w  = z/(1 + z²u) · sqrt(u(4ψ(1-ψ) - d̂²) + 2v(1 - 2ψ)d̂ + 4z²u²(1-ψ)ψ + z²v²(1 - 2ψ)²).

    The interval is {θ: (d̂ - θ)² <= z²·V(θ)}, V(θ) = (ψ + θ/2)(1 - ψ - θ/2)/n1 + (ψ - θ/2)(1 - ψ + θ/2)/n2,
    i.e. (1 + z²u)θ² - 2(d̂ + z²v(1 - 2ψ))θ + d̂² - 4z²uψ(1 - ψ) <= 0. The end nearer 0 is taken as
    the product of the roots over the other, (d̂² - 4z²uψ(1 - ψ))/((1 + z²u)·far), which is exactly 0
    at d̂ = 0, ψ ∈ {0, 1} (θ* - w gave ∓1.4e-17 there, outside the interval's own estimate); and
    where V(d̂) >= 0 (``holds_estimate``) the interval holds d̂, so no rounding may leave it out."""
    z = _z(delta)
    z2 = z * z
    d = p1 - p2
    u = (1 / n1 + 1 / n2) / 4
    v = (1 / n1 - 1 / n2) / 4
    a = 1 + z2 * u
    centre = (d + z2 * v * (1 - 2 * psi)) / a
    radicand = u * (4 * psi * (1 - psi) - d * d) + 2 * v * (1 - 2 * psi) * d \
        + 4 * z2 * u * u * (1 - psi) * psi + z2 * v * v * (1 - 2 * psi) ** 2
    half = z / a * np.sqrt(np.maximum(radicand, 0.0))
    far = np.where(centre >= 0, centre + half, centre - half)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.where(far == 0, 0.0, (d * d - 4 * z2 * u * psi * (1 - psi)) / (a * far))
    lower, upper = np.minimum(far, near), np.maximum(far, near)
    lower = np.where(holds_estimate, np.minimum(lower, d), lower)
    upper = np.where(holds_estimate, np.maximum(upper, d), upper)
    return _clip(lower, upper)


@register("diff_haldane", display="Haldane", family="approximate", guaranteed=False, takes="difference",
          reference="Newcombe (1998a) method 3")
def diff_haldane(k1, n1, k2, n2, delta):
    """Haldane interval (Newcombe's method 3): θ* ± w with ψ = (p̂1 + p̂2)/2 (see ``_haldane``);
    it always holds d̂, since V(d̂) = p̂1q̂1/n1 + p̂2q̂2/n2 >= 0."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    return _haldane(k1 / n1, n1, k2 / n2, n2, delta, (k1 / n1 + k2 / n2) / 2, True)


@register("diff_jeffreys_perks", display="Jeffreys–Perks", family="approximate", guaranteed=False, takes="difference",
          reference="Newcombe (1998a) method 4")
def diff_jeffreys_perks(k1, n1, k2, n2, delta):
    """Jeffreys-Perks interval (Newcombe's method 4): Haldane's θ* ± w with
    ψ = ((k1 + 1/2)/(n1 + 1) + (k2 + 1/2)/(n2 + 1))/2; it holds d̂ where V(d̂) >= 0 (which
    ψ ± d̂/2 outside [0, 1] could break, but does on no table with n1, n2 <= 100)."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    p1, p2 = k1 / n1, k2 / n2
    psi = ((k1 + 0.5) / (n1 + 1) + (k2 + 0.5) / (n2 + 1)) / 2
    a1, a2 = psi + (p1 - p2) / 2, psi - (p1 - p2) / 2
    return _haldane(p1, n1, p2, n2, delta, psi, a1 * (1 - a1) / n1 + a2 * (1 - a2) / n2 >= 0)


def _mover(p1, l1, u1, p2, l2, u2):
    """Square-and-add (MOVER) limits from single-proportion limits (li, ui) around p̂i:
    d̂ - sqrt((p̂1 - l1)² + (u2 - p̂2)²), d̂ + sqrt((u1 - p̂1)² + (p̂2 - l2)²)."""
    d = p1 - p2
    return _clip(d - np.hypot(p1 - l1, u2 - p2), d + np.hypot(u1 - p1, p2 - l2))


@register("diff_newcombe", display="Newcombe hybrid score", family="approximate", guaranteed=False, takes="difference",
          reference="Newcombe (1998a) method 10")
def diff_newcombe(k1, n1, k2, n2, delta):
    """Newcombe's hybrid score interval (method 10): Wilson limits (li, ui) of each proportion combined
    by square-and-add, d̂ - sqrt((p̂1 - l1)² + (u2 - p̂2)²), d̂ + sqrt((u1 - p̂1)² + (p̂2 - l2)²)."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    return _mover(k1 / n1, *wilson(k1, n1, delta), k2 / n2, *wilson(k2, n2, delta))


@register("diff_newcombe_cc", display="Newcombe hybrid score (cc)", family="approximate", guaranteed=False, takes="difference",
          reference="Newcombe (1998a) method 11")
def diff_newcombe_cc(k1, n1, k2, n2, delta):
    """Newcombe's method 11: method 10 with the continuity-corrected Wilson limits of each proportion."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    return _mover(k1 / n1, *wilson_cc(k1, n1, delta), k2 / n2, *wilson_cc(k2, n2, delta))


def restricted_mle(k1, n1, k2, n2, theta):
    """The maximum-likelihood (p̃1, p̃2) under p1 - p2 = θ (Farrington & Manning 1990, closed form):
    p̃2 = 2u·cos(w) - L2/(3L3), p̃1 = p̃2 + θ, where L3 = N, L2 = (n1 + 2n2)θ - N - k,
    L1 = (n2θ - N - 2k2)θ + k, L0 = k2·θ(1 - θ), k = k1 + k2, v = (L2/3L3)³ - L1L2/(6L3²) + L0/(2L3),
    u = sign(v)·sqrt((L2/3L3)² - L1/(3L3)), w = (π + arccos(v/u³))/3."""
    big_n, k = n1 + n2, k1 + k2
    l3 = big_n
    l2 = (n1 + 2 * n2) * theta - big_n - k
    l1 = (n2 * theta - big_n - 2 * k2) * theta + k
    l0 = k2 * theta * (1 - theta)
    b = l2 / (3 * l3)
    v = b ** 3 - l1 * l2 / (6 * l3 * l3) + l0 / (2 * l3)
    u = np.where(v > 0, 1.0, -1.0) * np.sqrt(np.maximum(b * b - l1 / (3 * l3), 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = np.where((u == 0) & (v == 0), 0.0, np.clip(v / u ** 3, -1, 1))
    w = (np.pi + np.arccos(cosine)) / 3
    # Rounded to 1e-10 (as ratesci does): the cubic's rounding noise near θ = ±1 (p̃2 ~ 1e-16
    # instead of 0) would otherwise make the skewness-corrected statistic cross its critical value there.
    p2 = np.clip(np.round(2 * u * np.cos(w) - b, 10), 0, 1)
    return np.clip(p2 + theta, 0, 1), p2


def score_statistic(k1, n1, k2, n2, theta, bias_correction: bool, skew: bool, z_crit=None):
    """The score statistic of H: p1 - p2 = θ, decreasing in θ (Miettinen & Nurminen 1985; Laud 2017).

    Z = (d̂ - θ)/sqrt(V), V = λ·(p̃1(1-p̃1)/n1 + p̃2(1-p̃2)/n2) at the restricted MLE, λ = N/(N - 1)
    with the bias correction (Miettinen-Nurminen), 1 without (Mee). With the skewness correction
    (Laud 2017, SCAS) the statistic is the root Z_s of Z = Z_s + γ·(Z_s² - 1), i.e.
    γ·Z_s² + Z_s - (Z + γ) = 0, γ = μ3/(6V^{3/2}), μ3 = p̃1q̃1(1 - 2p̃1)/n1² - p̃2q̃2(1 - 2p̃2)/n2².
    """
    p1, p2 = restricted_mle(k1, n1, k2, n2, theta)
    lam = (n1 + n2) / (n1 + n2 - 1) if bias_correction else 1.0
    variance = np.maximum(lam * (p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2), 0.0)
    s = k1 / n1 - k2 / n2 - theta
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(s == 0, 0.0, s / np.sqrt(variance))
        if not skew:
            return z
        mu3 = p1 * (1 - p1) * (1 - 2 * p1) / n1 ** 2 - p2 * (1 - p2) * (1 - 2 * p2) / n2 ** 2
        gamma = np.where(mu3 == 0, 0.0, mu3 / (6 * variance ** 1.5))
        return skew_corrected(z, gamma, z_crit)


def skew_corrected(z, gamma, z_crit):
    """Root of γ·x² + x - (z + γ) = 0 nearest z (Laud 2017): (-1 + sqrt(1 + 4γ(z + γ)))/(2γ); z where γ = 0.

    Written as 2(z + γ)/(1 + sqrt(1 + 4γ(z + γ))) to stay accurate for small γ. Where the
    quadratic has no real root (extreme tables near θ = ±1), Laud's simplified correction
    z - (z_crit² - 1)·γ, z_crit the interval's critical value, as ratesci does.
    """
    c = z + gamma
    discriminant = 1 + 4 * gamma * c
    with np.errstate(invalid="ignore"):
        root = 2 * c / (1 + np.sqrt(np.maximum(discriminant, 0.0)))
    root = np.where(discriminant < 0, z - (z_crit * z_crit - 1) * gamma, root)
    return np.where(np.isfinite(z) & (gamma != 0), root, z)


def invert_score(statistic, shape, delta):
    """The interval {θ: -z <= statistic(θ) <= z} of a statistic decreasing in θ on [-1, 1]:
    lower end where statistic = z, upper end where statistic = -z (both found by bracketing)."""
    # Compared through arctan: the same roots, but finite where the statistic is infinite (its
    # variance vanishes at θ = ±1), which keeps the secant steps of the root finder useful.
    z = np.arctan(np.broadcast_to(_z(delta), shape).ravel())
    size = z.size
    lo, hi = np.full(size, -1.0), np.full(size, 1.0)
    lower = solve_increasing(lambda t, i: z[i] - np.arctan(statistic(t, i)), lo, hi)
    upper = solve_increasing(lambda t, i: -z[i] - np.arctan(statistic(t, i)), lo, hi)
    return lower.reshape(shape), upper.reshape(shape)


def _score_interval(k1, n1, k2, n2, delta, bias_correction, skew):
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    shape = np.broadcast_shapes(k1.shape, n1.shape, k2.shape, n2.shape, np.shape(delta))
    f1, m1, f2, m2 = (np.broadcast_to(a, shape).ravel() for a in (k1, n1, k2, n2))
    crit = np.broadcast_to(_z(delta), shape).ravel()
    return invert_score(lambda t, i: score_statistic(f1[i], m1[i], f2[i], m2[i], t, bias_correction, skew, crit[i]),
                        shape, delta)


@register("diff_mee", display="Mee", family="approximate", guaranteed=False, takes="difference",
          reference="Mee (1984), Biometrics 40, 1175-1176; Newcombe (1998a) method 5")
def diff_mee(k1, n1, k2, n2, delta):
    """Mee's score interval: the θ with |d̂ - θ| <= z·sqrt(p̃1q̃1/n1 + p̃2q̃2/n2), p̃ the MLE under p1 - p2 = θ."""
    return _score_interval(k1, n1, k2, n2, delta, False, False)


@register("diff_miettinen_nurminen", display="Miettinen–Nurminen", family="approximate", guaranteed=False, takes="difference",
          reference="Miettinen & Nurminen (1985), Stat. Med. 4, 213-226; Newcombe (1998a) method 6")
def diff_miettinen_nurminen(k1, n1, k2, n2, delta):
    """Miettinen-Nurminen score interval: Mee's with the variance times N/(N - 1)."""
    return _score_interval(k1, n1, k2, n2, delta, True, False)


@register("diff_scas", display="SCAS (difference)", family="approximate", guaranteed=False, takes="difference",
          reference="Laud (2017), Pharm. Stat. 16, 334-348 (SCAS)")
def diff_scas(k1, n1, k2, n2, delta):
    """Skewness-corrected asymptotic score interval (SCAS): Miettinen-Nurminen's statistic corrected
    for skewness, γ·Z_s² + Z_s = Z + γ with γ = μ3/(6V^{3/2}) (see ``score_statistic``)."""
    return _score_interval(k1, n1, k2, n2, delta, True, True)


@register("diff_bayes", display="Bayes (difference)", family="bayesian", guaranteed=False, takes="difference",
          reference="Pham-Gia, Turkkan & Eng (1993), Commun. Stat. Theory Methods 22, 1755-1771",
          params=(Param("a", 0.5, above=0.0, doc="prior successes, Beta(a, b) prior on each p"),
                  Param("b", 0.5, above=0.0, doc="prior failures, Beta(a, b) prior on each p")))
def diff_bayes(k1, n1, k2, n2, delta, a=0.5, b=0.5):
    """Equal-tailed credible interval of p1 - p2 under independent Beta(a, b) priors: the delta/2 and
    1 - delta/2 quantiles of Beta(k1 + a, n1 - k1 + b) - Beta(k2 + a, n2 - k2 + b), computed by
    quadrature of the convolution (posterior_difference.py), not sampled."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    shape = np.broadcast_shapes(k1.shape, n1.shape, k2.shape, n2.shape, np.shape(delta))
    f1, m1, f2, m2 = (np.broadcast_to(x, shape) for x in (k1, n1, k2, n2))
    law = UnpairedLaw(f1 + a, m1 - f1 + b, f2 + a, m2 - f2 + b)
    return equal_tailed(law, shape, delta)
