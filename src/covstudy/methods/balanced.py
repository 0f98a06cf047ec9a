"""Two-sided intervals for balanced accuracy BA = (tpr + tnr)/2 from two classes' outcomes.

A BA kernel maps ``(k_pos, n_pos, k_neg, n_neg, delta)`` (broadcasting arrays, already
validated) to ``(lower, upper)`` with ``0 <= lower <= upper <= 1``: ``k_pos`` of the
``n_pos`` positives and ``k_neg`` of the ``n_neg`` negatives are classified correctly, so
tpr̂ = k_pos/n_pos and tnr̂ = k_neg/n_neg. Each kernel is a small composition of the
binomial registry's kernels (union methods) or of the Beta-mean distribution (posterior).

Empty class (n_pos = 0 or n_neg = 0, possible in the iid design): that class's accuracy is
unknown, and every method bounds it by [0, 1] (union and Wald methods) or by its prior
(posterior methods) -- see each kernel and docs/balanced.md.

The BA methods are registered as taking two classes (``methods("two_class")``), so they
never appear among the proportion methods and vice versa.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .. import validate
from . import beta_mean
from .distinct import unique_rows
from .registry import get, register, register_kind


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for two classes' counts (intervals.py)."""
    return m.bounds(validate.class_counts(*counts), validate.delta(delta), side, **params)


register_kind("two_class", ("k_pos", "n_pos", "k_neg", "n_neg"), "balanced-accuracy", kind="balanced", prefix="ba_", route=_door, plain=True)


# ---------------------------------------------------------------------------------------------
# Union-bound methods (Groundlight / Langford): per-class one-sided bounds at delta/4, averaged.


def class_bounds(binomial: str, k, n, delta):
    """Two-sided ``1 - delta`` bounds of one class accuracy by binomial method ``binomial``; [0, 1] if n = 0."""
    k, n, delta = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (k, n, delta)))
    shape = k.shape
    # Many outcomes share a class's (k, n) (every k_neg with one k_pos): each distinct one once
    distinct, inverse = unique_rows(np.stack([k.ravel(), n.ravel(), delta.ravel()], axis=1))
    k, n, delta = distinct.T
    empty = n == 0
    lower, upper = get(binomial, "proportion").kernel(k, np.where(empty, 1, n), delta)  # n = 1, k = 0: a safe stand-in
    return np.where(empty, 0.0, lower)[inverse].reshape(shape), np.where(empty, 1.0, upper)[inverse].reshape(shape)


def _union(binomial, k_pos, n_pos, k_neg, n_neg, delta):
    # The ends of a two-sided interval at delta/2 are one-sided bounds at delta/4 (equal tails),
    # so the four bounds miss with total probability <= 4·delta/4 = delta (union bound).
    half = np.asarray(delta, dtype=float) / 2
    lp, up = class_bounds(binomial, k_pos, n_pos, half)
    ln, un = class_bounds(binomial, k_neg, n_neg, half)
    return (lp + ln) / 2, (up + un) / 2


@register("ba_cp_union", display="Clopper–Pearson union", takes="two_class", family="exact", guaranteed=True,
          reference="Langford (2005), JMLR 6, 273-306; Sandler & Dirac (2024), \"Tales from the Binomial "
                    "Tail: Confidence intervals for balanced accuracy\", Groundlight blog")
def ba_cp_union(k_pos, n_pos, k_neg, n_neg, delta):
    """Union bound of Clopper-Pearson class bounds: ((L⁺ + L⁻)/2, (U⁺ + U⁻)/2), each one-sided at delta/4.

    L, U are the one-sided Clopper-Pearson bounds at level delta/4 (the ends of the two-sided
    Clopper-Pearson interval at delta/2). All four hold together with probability >= 1 - delta,
    so coverage >= 1 - delta for every (tpr, tnr) and class sizes. Empty class: [0, 1].
    """
    return _union("clopper_pearson", k_pos, n_pos, k_neg, n_neg, delta)


@register("ba_wilson_union", display="Wilson union", takes="two_class", family="approximate", guaranteed=False,
          reference="Wilson (1927); union construction of Langford (2005)")
def ba_wilson_union(k_pos, n_pos, k_neg, n_neg, delta):
    """Union bound of Wilson class bounds: ((L⁺ + L⁻)/2, (U⁺ + U⁻)/2), each one-sided at delta/4.

    L, U are one-sided Wilson score bounds with z = Φ⁻¹(1 - delta/4). Not guaranteed
    (Wilson's one-sided coverage dips below nominal), but the union slack usually covers it.
    Empty class: [0, 1].
    """
    return _union("wilson", k_pos, n_pos, k_neg, n_neg, delta)


@register("ba_jeffreys_union", display="Jeffreys union", takes="two_class", family="bayesian", guaranteed=False,
          reference="BCD (2001) §4.1.2; union construction of Langford (2005)")
def ba_jeffreys_union(k_pos, n_pos, k_neg, n_neg, delta):
    """Union bound of Jeffreys class bounds: ((L⁺ + L⁻)/2, (U⁺ + U⁻)/2), each one-sided at delta/4.

    L, U are the delta/4 and 1 - delta/4 quantiles of Beta(k+½, n-k+½), with BCD's boundary
    rule (L = 0 at k = 0, U = 1 at k = n) as in the binomial ``jeffreys``. Empty class: [0, 1].
    """
    return _union("jeffreys", k_pos, n_pos, k_neg, n_neg, delta)


# ---------------------------------------------------------------------------------------------
# Normal approximation.


@register("ba_wald", display="Wald (BA)", takes="two_class", family="approximate", guaranteed=False,
          reference="normal approximation; e.g. Brodersen et al. (2010) §2 (the BA estimator)")
def ba_wald(k_pos, n_pos, k_neg, n_neg, delta):
    """Wald interval BÂ ± z·sqrt(tpr̂(1-tpr̂)/n_pos + tnr̂(1-tnr̂)/n_neg)/2, z = Φ⁻¹(1 - delta/2), clipped.

    Degenerate (zero width) when both classes are all right or all wrong. Empty class: its
    accuracy spans [0, 1] and adds no variance term, i.e. the interval is
    ((L + 0)/2, (U + 1)/2) with (L, U) the Wald interval tpr̂ ± z·sqrt(tpr̂(1-tpr̂)/n_pos)
    of the observed class -- the formula above with the empty class's estimate replaced by [0, 1].
    """
    k_pos, n_pos, k_neg, n_neg = (np.asarray(v, dtype=float) for v in (k_pos, n_pos, k_neg, n_neg))
    z = -special.ndtri(np.asarray(delta, dtype=float) / 2)
    pos_empty, neg_empty = n_pos == 0, n_neg == 0
    n_pos_safe, n_neg_safe = np.where(pos_empty, 1.0, n_pos), np.where(neg_empty, 1.0, n_neg)
    tpr, tnr = k_pos / n_pos_safe, k_neg / n_neg_safe  # 0 for an empty class (k = 0)
    var = tpr * (1 - tpr) / n_pos_safe + tnr * (1 - tnr) / n_neg_safe  # empty class: 0·(1 - 0)/1 = 0
    half = z * np.sqrt(var) / 2
    centre = (tpr + tnr) / 2
    # An empty class contributes [0, 1]/2 around the other class's half-estimate.
    lower = centre - half
    upper = centre + half + (pos_empty | neg_empty) * 0.5
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


# ---------------------------------------------------------------------------------------------
# Posterior of the average (Brodersen et al. 2010).


@register("ba_posterior", display="Brodersen posterior", takes="two_class", family="bayesian", guaranteed=False,
          reference="Brodersen, Ong, Stephan & Buhmann (2010), Proc. ICPR, 3121-3124")
def ba_posterior(k_pos, n_pos, k_neg, n_neg, delta):
    """Equal-tailed credible interval of (X + Y)/2, X ~ Beta(k_pos+1, n_pos-k_pos+1), Y ~ Beta(k_neg+1, n_neg-k_neg+1).

    Uniform priors on both class accuracies; the quantiles (delta/2, 1 - delta/2) of the
    average come from the exact convolution of the two Beta posteriors (``beta_mean``).
    Empty class: its posterior is the prior, Uniform(0, 1).
    """
    k_pos, n_pos, k_neg, n_neg = (np.asarray(v, dtype=float) for v in (k_pos, n_pos, k_neg, n_neg))
    return beta_mean.interval(k_pos + 1, n_pos - k_pos + 1, k_neg + 1, n_neg - k_neg + 1, delta)


@register("ba_posterior_jeffreys", takes="two_class", family="bayesian", guaranteed=False,
          display="Brodersen posterior (Jeffreys)",
          reference="Brodersen et al. (2010) with Jeffreys priors Beta(½, ½)")
def ba_posterior_jeffreys(k_pos, n_pos, k_neg, n_neg, delta):
    """Equal-tailed credible interval of (X + Y)/2, X ~ Beta(k_pos+½, n_pos-k_pos+½), Y ~ Beta(k_neg+½, n_neg-k_neg+½).

    As ``ba_posterior`` with Jeffreys priors (no boundary modification). Empty class: its
    posterior is the prior, Beta(½, ½).
    """
    k_pos, n_pos, k_neg, n_neg = (np.asarray(v, dtype=float) for v in (k_pos, n_pos, k_neg, n_neg))
    return beta_mean.interval(k_pos + 0.5, n_pos - k_pos + 0.5, k_neg + 0.5, n_neg - k_neg + 0.5, delta)
