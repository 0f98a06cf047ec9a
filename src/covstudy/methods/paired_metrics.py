"""Intervals for the difference of a metric between two classifiers scored on the same test set.

Each example has a true class and, for each classifier, correct or not: eight cells
(``COUNTS``): of the positives, both correct (``pos_both``), only the first, only the second,
neither; of the negatives likewise. Every kernel maps ``(pos_both, ..., neg_neither, delta,
metric=..., rng=None, **params)`` (broadcasting arrays, already validated, n >= 1) to
``(lower, upper)`` in [-1, 1] for θ = metric(first) - metric(second); ``metric`` is set by the
estimand (designs/paired_confusion.py), never by a user. z = Φ⁻¹(1 - delta/2).

Every metric is a weighted sum of *terms* c·K/(c·K + L) (``TERMS``), K and L sums of cells:
for the first classifier TP = pos_both + pos_only_first, FN = pos_only_second + pos_neither,
TN = neg_both + neg_only_first, FP = neg_only_second + neg_neither (for the second, swap
"only_first" and "only_second"), and

    recall = TP/(TP + FN), specificity = TN/(TN + FP), precision = TP/(TP + FP),
    npv = TN/(TN + FN), accuracy = (TP + TN)/n, f1 = 2TP/(2TP + FP + FN) (c = 2),
    balanced_accuracy = ½·recall + ½·specificity.

A metric is undefined when a term's denominator is 0 (no predicted positives, for precision);
then the methods give the vacuous [-1, 1].
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .. import validate
from .binomial import _z, wilson
from .counts import paired_confusion_counts
from .registry import Param, draws_param, register, register_kind

COUNTS = ("pos_both", "pos_only_first", "pos_only_second", "pos_neither",
          "neg_both", "neg_only_first", "neg_only_second", "neg_neither")


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for an eight-cell paired table and a metric (intervals.py)."""
    columns = dict(zip(COUNTS, paired_confusion_counts(*counts)))
    return est.bounds(m, columns, validate.delta(delta), side, rng=rng, **params)


# one test set, two classifiers, the true class of each example: the 8-cell table
register_kind("paired_confusion", COUNTS, "paired metric", kind="paired_metric", prefix="pm_", per_test_set=True,
              data="paired_confusion", route=_door)

# Cells (indices into COUNTS) whose sum is each count of the first and of the second classifier.
_FIRST = {"tp": (0, 1), "fn": (2, 3), "tn": (4, 5), "fp": (6, 7)}
_SECOND = {"tp": (0, 2), "fn": (1, 3), "tn": (4, 6), "fp": (5, 7)}
# metric -> terms (weight, c, K counts, L counts): Σ weight·c·K/(c·K + L)
TERMS = {
    "recall": ((1.0, 1, ("tp",), ("fn",)),),
    "specificity": ((1.0, 1, ("tn",), ("fp",)),),
    "precision": ((1.0, 1, ("tp",), ("fp",)),),
    "npv": ((1.0, 1, ("tn",), ("fn",)),),
    "accuracy": ((1.0, 1, ("tp", "tn"), ("fn", "fp")),),
    "f1": ((1.0, 2, ("tp",), ("fp", "fn")),),
    "balanced_accuracy": ((0.5, 1, ("tp",), ("fn",)), (0.5, 1, ("tn",), ("fp",))),
}
METRICS = tuple(TERMS)


def _mask(cells: dict, names) -> np.ndarray:
    out = np.zeros(8)
    out[[i for name in names for i in cells[name]]] = 1.0
    return out


def _terms(metric: str, which: dict):
    return [(w, c, _mask(which, k), _mask(which, l)) for w, c, k, l in TERMS[metric]]


def value_and_gradient(metric: str, x: np.ndarray, second: bool = False):
    """(value, gradient wrt the 8 cells, defined) of the metric of one classifier at cells ``x`` (..., 8).

    A term c·K/(c·K + L) has ∂/∂K = c·L/(cK + L)², ∂/∂L = -c·K/(cK + L)²; undefined (value
    NaN) where cK + L = 0. Cells may be counts or probabilities (the metric is homogeneous of degree 0).
    """
    x = np.asarray(x, dtype=float)
    value = np.zeros(x.shape[:-1])
    grad = np.zeros(x.shape)
    defined = np.ones(x.shape[:-1], dtype=bool)
    for w, c, km, lm in _terms(metric, _SECOND if second else _FIRST):
        k, l = x @ km, x @ lm
        d = c * k + l
        defined &= d > 0
        ds = np.where(d > 0, d, 1.0)
        value = value + w * c * k / ds
        grad = grad + w * ((c * l / ds**2)[..., None] * km + (-c * k / ds**2)[..., None] * lm)
    return np.where(defined, value, np.nan), grad, defined


def value(metric: str, x: np.ndarray, second: bool = False) -> np.ndarray:
    """The metric of one classifier at cells ``x`` (..., 8): ``value_and_gradient``'s value (the same
    operations, without the gradient the bootstrap and the posterior draws do not need)."""
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape[:-1])
    defined = np.ones(x.shape[:-1], dtype=bool)
    for w, c, km, lm in _terms(metric, _SECOND if second else _FIRST):
        k, l = x @ km, x @ lm
        d = c * k + l
        defined &= d > 0
        out = out + w * c * k / np.where(d > 0, d, 1.0)
    return np.where(defined, out, np.nan)


def difference(metric: str, x: np.ndarray) -> np.ndarray:
    """metric(first) - metric(second) at cells ``x`` (..., 8); NaN where either is undefined."""
    return value(metric, x) - value(metric, x, True)


def _stack(counts) -> np.ndarray:
    arrays = np.broadcast_arrays(*(np.asarray(c, dtype=float) for c in counts))
    return np.stack(arrays, axis=-1)


def _rows(cells_and_delta) -> tuple[np.ndarray, np.ndarray, tuple]:
    """(cells, delta, shape) for the methods that take one outcome at a time: the 8 cells of each
    outcome as a row (m, 8), its delta, and the outcomes' shape to give the bounds back in."""
    *counts, delta = cells_and_delta
    x = _stack(counts)
    shape = x.shape[:-1]
    return x.reshape(-1, 8), np.broadcast_to(np.asarray(delta, dtype=float), shape).reshape(-1), shape


def _covariance(ga, gb, x, n):
    """Multinomial delta-method covariance Σ gaᵢgbᵢxᵢ - (Σ gaᵢxᵢ)(Σ gbᵢxᵢ)/n of two functions of counts x."""
    return np.sum(ga * gb * x, axis=-1) - np.sum(ga * x, axis=-1) * np.sum(gb * x, axis=-1) / n


def _vacuous(lower, upper, defined):
    return np.where(defined, np.clip(lower, -1.0, 1.0), -1.0), np.where(defined, np.clip(upper, -1.0, 1.0), 1.0)


@register("pm_delta", display="delta method (paired)", family="approximate", guaranteed=False,
          takes="paired_confusion", random=False,
          reference="delta method under the 8-cell multinomial (e.g. Agresti, Categorical Data Analysis, 3rd ed., "
                    "sec. 16.1); for balanced accuracy the Wald interval")
def pm_delta(*cells_and_delta, metric="f1", rng=None):
    """D̂ ± z·sqrt(Σ gᵢ²xᵢ - (Σ gᵢxᵢ)²/n), g the gradient of D = metric(first) - metric(second) in the counts x,
    clipped to [-1, 1]; the paired covariance of the two estimates is in it, since both read the same cells."""
    *counts, delta = cells_and_delta
    x = _stack(counts)
    n = x.sum(axis=-1)
    fa, ga, da = value_and_gradient(metric, x)
    fb, gb, db = value_and_gradient(metric, x, True)
    g = ga - gb
    var = np.maximum(_covariance(g, g, x, n), 0.0)
    d = np.where(da & db, fa - fb, 0.0)
    half = _z(delta) * np.sqrt(var)
    return _vacuous(d - half, d + half, da & db)


def _one_interval(metric: str, x, delta, second: bool):
    """One classifier's estimate and interval: Wilson on each term's K of cK + L (for F1 the Jaccard
    interval mapped through 2j/(1 + j)); two terms (balanced accuracy) combined by square-and-add,
    the classes' counts being independent given the class sizes (Newcombe 1998a)."""
    which = _SECOND if second else _FIRST
    est, low, up = 0.0, 0.0, 0.0
    for w, c, km, lm in _terms(metric, which):
        k, l = x @ km, x @ lm
        m = k + l
        lo, hi = wilson(k, np.where(m > 0, m, 1), delta)
        if c == 2:
            lo, hi = 2 * lo / (1 + lo), 2 * hi / (1 + hi)
        d = c * k + l
        theta = np.where(d > 0, c * k / np.where(d > 0, d, 1), 0.0)
        est = est + w * theta
        low = low + (w * (theta - lo)) ** 2
        up = up + (w * (hi - theta)) ** 2
    return est, est - np.sqrt(low), est + np.sqrt(up)


@register("pm_mover", display="MOVER (paired)", family="approximate", guaranteed=False,
          takes="paired_confusion", random=False,
          reference="Newcombe (1998b) method 10 / Zou & Donner (2008), Comput. Stat. Data Anal. 52, 2395-2403 "
                    "(MOVER), with the delta-method correlation")
def pm_mover(*cells_and_delta, metric="f1", rng=None):
    """MOVER: each classifier's interval (lᵢ, uᵢ) around θ̂ᵢ (Wilson per term; square-and-add over
    the classes for balanced accuracy), combined with r the delta-method correlation of θ̂₁, θ̂₂:
        lower = D̂ - sqrt((θ̂₁ - l₁)² - 2r(θ̂₁ - l₁)(u₂ - θ̂₂) + (u₂ - θ̂₂)²),
        upper = D̂ + sqrt((u₁ - θ̂₁)² - 2r(u₁ - θ̂₁)(θ̂₂ - l₂) + (θ̂₂ - l₂)²)."""
    *counts, delta = cells_and_delta
    x = _stack(counts)
    n = x.sum(axis=-1)
    _, ga, da = value_and_gradient(metric, x)
    _, gb, db = value_and_gradient(metric, x, True)
    va, vb, cab = _covariance(ga, ga, x, n), _covariance(gb, gb, x, n), _covariance(ga, gb, x, n)
    scale = np.sqrt(np.maximum(va * vb, 0.0))
    r = np.clip(np.where(scale > 0, cab / np.where(scale > 0, scale, 1.0), 0.0), -1.0, 1.0)
    ta, la, ua = _one_interval(metric, x, delta, False)
    tb, lb, ub = _one_interval(metric, x, delta, True)
    d = ta - tb
    dl = np.sqrt(np.maximum((ta - la) ** 2 - 2 * r * (ta - la) * (ub - tb) + (ub - tb) ** 2, 0.0))
    du = np.sqrt(np.maximum((ua - ta) ** 2 - 2 * r * (ua - ta) * (tb - lb) + (tb - lb) ** 2, 0.0))
    return _vacuous(d - dl, d + du, da & db)


_BLOCK = 1 << 22  # cells drawn at once (rows × draws × 8), to bound memory


def _row_quantiles(samples, q):
    from .f1 import row_quantiles

    return row_quantiles(samples, q)


@register("pm_bootstrap", display="paired bootstrap", family="approximate", guaranteed=False,
          takes="paired_confusion",
          reference="Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 13 (percentile interval)",
          params=(draws_param(2000, "bootstrap resamples"),))
def pm_bootstrap(*cells_and_delta, metric="f1", rng=None, draws=2000):
    """Percentile bootstrap: (delta/2, 1 - delta/2) quantiles of D̂* over ``draws`` resamples of the n
    examples, each an 8-cell table ~ Multinomial(n, observed proportions) (both classifiers' results
    on an example stay together: paired). Resamples where the metric is undefined are left out;
    none defined: [-1, 1]. Rows in blocks, in order, from ``rng``."""
    x, delta, shape = _rows(cells_and_delta)
    n = x.sum(axis=1).astype(np.int64)
    rng = np.random.default_rng() if rng is None else rng
    lower, upper = np.empty(len(x)), np.empty(len(x))
    step = max(1, _BLOCK // (8 * draws))
    for s in range(0, len(x), step):
        rows = slice(s, min(len(x), s + step))
        p = x[rows] / n[rows, None]
        sample = rng.multinomial(n[rows, None], p[:, None, :], size=(len(p), draws))
        d = difference(metric, sample)
        lower[rows] = _row_quantiles(d, delta[rows] / 2)
        upper[rows] = _row_quantiles(d, 1 - delta[rows] / 2)
    empty = np.isnan(lower)
    return np.where(empty, -1.0, lower).reshape(shape), np.where(empty, 1.0, upper).reshape(shape)


_MIN_DRAWS = 1000  # the pilot: its sd sets how many draws the bounds need
_MAX_DRAWS = 4_000_000


def _draws_needed(sd, mc_error, q):
    """N with sqrt(q(1 - q)/N)·sd/φ(Φ⁻¹(q)) <= mc_error: the sample quantile's standard error under normality."""
    density = np.exp(-0.5 * special.ndtri(q) ** 2) / np.sqrt(2 * np.pi)
    return int(np.ceil(q * (1 - q) * (sd / (density * mc_error)) ** 2))


def posterior_differences(x: np.ndarray, metric: str, prior: float, mc_error: float, delta: float, rng,
                          probability: bool = True):
    """Draws of D under the Dirichlet(x + prior) posterior of one table x (8 cells): a pilot of
    _MIN_DRAWS, then as many more as make the Monte Carlo standard error of the delta/2 quantile
    (``_draws_needed`` with the pilot's sd) and, with ``probability``, of P(D > 0) (0.25/mc_error²
    draws) at most ``mc_error``; at most _MAX_DRAWS."""
    a = np.asarray(x, dtype=float) + prior
    d = difference(metric, rng.gamma(a, size=(_MIN_DRAWS, 8)))
    need = _draws_needed(float(np.nanstd(d)), mc_error, delta / 2)
    if probability:
        need = max(need, int(np.ceil(0.25 / mc_error**2)))
    need = min(_MAX_DRAWS, need)
    parts = [d]
    done = _MIN_DRAWS
    while done < need:
        k = min(need - done, 1 << 18)
        parts.append(difference(metric, rng.gamma(a, size=(k, 8))))
        done += k
    return np.concatenate(parts)


@register("pm_dirichlet", display="Dirichlet posterior", family="bayesian", guaranteed=False,
          takes="paired_confusion",
          reference="Goutte & Gaussier (2005), ECIR, LNCS 3408, 345-359, paired: a Dirichlet posterior over the 8 "
                    "cells (as the paired design's Bayes: Gelman et al., Bayesian Data Analysis, 3rd ed., ch. 3)",
          params=(Param("prior", 1.0, above=0.0, doc="Dirichlet prior count of each of the 8 cells", at_most=1e10),
                  Param("mc_error", 1e-3, above=0.0, at_most=0.1,
                        doc="Monte Carlo standard error of each bound, at most")))
def pm_dirichlet(*cells_and_delta, metric="f1", rng=None, prior=1.0, mc_error=1e-3):
    """Equal-tailed credible interval of D = metric(first) - metric(second) under the Dirichlet(x + prior)
    posterior of the 8 cell probabilities (Dirichlet as independent Gammas over their sum; D is
    scale-free, so the Gammas are used directly). No closed form: sampled, a pilot of _MIN_DRAWS
    and then as many draws as keep the Monte Carlo standard error of each bound, sqrt(q(1 - q)/N)·sd/φ(z_q)
    (the sample quantile's, normal approximation), at most ``mc_error`` (``posterior_differences``)."""
    x, delta, shape = _rows(cells_and_delta)
    rng = np.random.default_rng() if rng is None else rng
    lower, upper = np.empty(len(x)), np.empty(len(x))
    for i in range(len(x)):
        d = posterior_differences(x[i], metric, prior, mc_error, float(delta[i]), rng, probability=False)
        d = d[~np.isnan(d)]
        lower[i], upper[i] = np.quantile(d, [delta[i] / 2, 1 - delta[i] / 2]) if d.size else (-1.0, 1.0)
    return lower.reshape(shape), upper.reshape(shape)
