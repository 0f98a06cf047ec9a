"""Guaranteed intervals for a difference of accuracies, by melding exact one-sample intervals.

Melding (Fay, Proschan & Brittain 2015, "Combining one-sample confidence procedures for
inference in the two-sample case", Biometrics 71, 146-156): a one-sample exact
(Clopper-Pearson) interval for p from k of n is the pair of quantiles of the random variables
L ~ Beta(k, n - k + 1) and U ~ Beta(k + 1, n - k) (Beta(0, ·) is 0, Beta(·, 0) is 1); the
melded interval for a function of two parameters takes the delta/2 quantile of the function of
the variables that push it down and the 1 - delta/2 quantile of those that push it up.

* ``diff_melded`` (two test sets): p1 - p2 in [q_{δ/2}(L₁ - U₂), q_{1-δ/2}(U₁ - L₂)] (Fay et al.
  2015; exact2x2's ``binomMeld.test(parmtype = "difference")``, which reports p2 - p1).
* ``paired_exact_mcnemar`` (one test set): p1 - p2 = ψ(2τ - 1) with ψ the chance of a discordant
  pair (m = b + c of n) and τ the chance that a discordant pair favours the first (b of m);
  the lower bound is the smaller of the δ/2 quantiles of T(2B_L - 1) for T = T_L and T = T_U,
  the upper the larger of the 1 - δ/2 quantiles of T(2B_U - 1) (Fay & Lumbard 2021, "Confidence
  intervals for difference in proportions for matched pairs compatible with exact McNemar's or
  sign tests", Stat. Med. 40, 1147-1159; exact2x2's ``mcnemarExactDP``), compatible with the
  exact McNemar (sign) test.

Both are guaranteed: coverage >= 1 - delta at every truth and size (tests/test_melded.py
shows it with the exact engines over whole grids). The quantiles of a difference of Betas and
of S(2R - 1) come from the quadrature laws of posterior_difference.py, with the point masses
(a parameter 0) written out.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .posterior_difference import PairedLaw, UnpairedLaw
from .registry import register


def _floats(*arrays):
    return tuple(np.asarray(x, dtype=float) for x in arrays)


def _beta_quantile(a, b, q):
    """Beta(a, b) quantile with the point masses: a = 0 -> 0, b = 0 -> 1."""
    safe = special.betaincinv(np.where(a > 0, a, 1.0), np.where(b > 0, b, 1.0), q)
    return np.where(a <= 0, 0.0, np.where(b <= 0, 1.0, safe))


def _difference_quantile(a1, b1, a2, b2, q):
    """q-quantile of X - Y, X ~ Beta(a1, b1), Y ~ Beta(a2, b2) independent (flat arrays), point masses allowed."""
    px, py = (a1 <= 0) | (b1 <= 0), (a2 <= 0) | (b2 <= 0)
    out = _beta_quantile(a1, b1, q) - _beta_quantile(a2, b2, 1 - q)  # exact when X or Y is a point mass
    both = ~px & ~py
    if np.any(both):
        law = UnpairedLaw(a1[both], b1[both], a2[both], b2[both])
        out[both] = law.quantile(q[both], law.size)
    return out


def _scaled_quantile(s1, s2, r1, r2, q):
    """q-quantile of S(2R - 1), S ~ Beta(s1, s2), R ~ Beta(r1, r2) independent (flat arrays), point masses allowed."""
    ps, pr = (s1 <= 0) | (s2 <= 0), (r1 <= 0) | (r2 <= 0)
    s0 = np.where(s1 <= 0, 0.0, 1.0)  # the value of a point-mass S
    r0 = np.where(r1 <= 0, 0.0, 1.0)
    out = np.where(ps, s0 * (2 * _beta_quantile(r1, r2, q) - 1), 0.0)
    # R a point mass: S(2r - 1) = ±S
    out = np.where(pr & ~ps, np.where(r0 > 0, _beta_quantile(s1, s2, q), -_beta_quantile(s1, s2, 1 - q)), out)
    out = np.where(pr & ps, s0 * (2 * r0 - 1), out)
    both = ~ps & ~pr
    if np.any(both):
        law = PairedLaw(s1[both], s2[both], r1[both], r2[both])
        out[both] = law.quantile(q[both], law.size)
    return out


def _flat(shape, *arrays):
    return tuple(np.broadcast_to(a, shape).ravel().astype(float) for a in arrays)


@register("diff_melded", display="melded (difference)", family="exact", guaranteed=True, takes="difference",
          reference="Fay, Proschan & Brittain (2015), Biometrics 71, 146-156; exact2x2's binomMeld.test")
def diff_melded(k1, n1, k2, n2, delta):
    """Melded Clopper-Pearson interval for p1 - p2: [q_{δ/2}(L₁ - U₂), q_{1-δ/2}(U₁ - L₂)], Lᵢ ~ Beta(kᵢ, nᵢ - kᵢ + 1),
    Uᵢ ~ Beta(kᵢ + 1, nᵢ - kᵢ); a guaranteed (exact) interval."""
    k1, n1, k2, n2 = _floats(k1, n1, k2, n2)
    shape = np.broadcast_shapes(k1.shape, n1.shape, k2.shape, n2.shape, np.shape(delta))
    k1, n1, k2, n2, d = _flat(shape, k1, n1, k2, n2, delta)
    lower = _difference_quantile(k1, n1 - k1 + 1, k2 + 1, n2 - k2, d / 2)
    upper = _difference_quantile(k1 + 1, n1 - k1, k2, n2 - k2 + 1, 1 - d / 2)
    return np.clip(lower, -1, 1).reshape(shape), np.clip(upper, -1, 1).reshape(shape)


@register("paired_exact_mcnemar", display="exact McNemar (Fay–Lumbard)", family="exact", guaranteed=True,
          takes="paired",
          reference="Fay & Lumbard (2021), Stat. Med. 40, 1147-1159; exact2x2's mcnemarExactDP")
def paired_exact_mcnemar(both, only_first, only_second, neither, delta):
    """Interval for p1 - p2 compatible with the exact McNemar test (melding): with m = b + c of n discordant,
    T_L ~ Beta(m, n - m + 1), T_U ~ Beta(m + 1, n - m), B_L ~ Beta(b, c + 1), B_U ~ Beta(b + 1, c):
    lower = min over T of q_{δ/2}(T(2B_L - 1)), upper = max over T of q_{1-δ/2}(T(2B_U - 1)); guaranteed."""
    a, b, c, d = _floats(both, only_first, only_second, neither)
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape, d.shape, np.shape(delta))
    a, b, c, d, q = _flat(shape, a, b, c, d, delta)
    n, m = a + b + c + d, b + c
    low, high = q / 2, 1 - q / 2
    lower = np.minimum(_scaled_quantile(m, n - m + 1, b, c + 1, low), _scaled_quantile(m + 1, n - m, b, c + 1, low))
    upper = np.maximum(_scaled_quantile(m, n - m + 1, b + 1, c, high), _scaled_quantile(m + 1, n - m, b + 1, c, high))
    return np.clip(lower, -1, 1).reshape(shape), np.clip(upper, -1, 1).reshape(shape)
