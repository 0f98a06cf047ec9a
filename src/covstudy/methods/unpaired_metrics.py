"""Intervals for the difference of a metric between two classifiers on two independent test sets.

The outcome is the two confusion matrices ``COUNTS`` = (tp1, fn1, fp1, tn1, tp2, fn2, fp2, tn2);
every kernel maps ``(*COUNTS, delta, metric=..., rng=None, **params)`` to ``(lower, upper)`` in
[-1, 1] for θ = metric(first) - metric(second), ``metric`` set by the estimand
(designs/unpaired_confusion.py). The metrics are those of methods/paired_metrics.py (the same
terms), each read from its own test set; the two estimates are independent, so:

* ``delta``: D̂ ± z·sqrt(V₁ + V₂), Vᵣ the multinomial delta-method variance of test set r.
* ``mover``: Newcombe's square-and-add (MOVER with correlation 0) of the two classifiers' intervals.
* ``bootstrap``: each test set resampled from its own multinomial.
* ``dirichlet``: independent Dirichlet(xᵣ + prior) posteriors, as Goutte & Gaussier (2005) compare
  two systems; sampled, Monte Carlo error of each bound at most ``mc_error``.

A metric undefined on either test set gives [-1, 1].
"""

from __future__ import annotations

import numpy as np

from .. import validate
from .binomial import _z
from .counts import confusion_counts
from .paired_metrics import (_draws_needed, _MAX_DRAWS, _MIN_DRAWS, _one_interval, _rows, _stack,
                             value_and_gradient)
from .registry import Param, draws_param, register, register_kind

COUNTS = ("tp1", "fn1", "fp1", "tn1", "tp2", "fn2", "fp2", "tn2")
_EMBED = (1, 3, 7, 5)  # a confusion matrix (tp, fn, fp, tn) as the first classifier's cells of an 8-cell table


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for two confusion matrices and a metric (intervals.py)."""
    first, second = confusion_counts(*counts[:4]), confusion_counts(*counts[4:])
    columns = dict(zip(COUNTS, np.broadcast_arrays(*first, *second)))
    return est.bounds(m, columns, validate.delta(delta), side, rng=rng, **params)


register_kind("unpaired_confusion", COUNTS, "unpaired metric", kind="unpaired_metric", prefix="um_",
              per_test_set=True, data="unpaired_confusion", route=_door)


def embed(x4: np.ndarray) -> np.ndarray:
    """(..., 4) confusion matrices as (..., 8) tables whose first classifier has them (paired_metrics)."""
    out = np.zeros(x4.shape[:-1] + (8,))
    out[..., list(_EMBED)] = x4
    return out


def one(metric: str, x4: np.ndarray):
    """(value, variance, defined) of ``metric`` on confusion matrices x4 (..., 4) (multinomial delta method)."""
    x = embed(np.asarray(x4, dtype=float))
    value, g, defined = value_and_gradient(metric, x)
    n = x.sum(axis=-1)
    var = np.sum(g * g * x, axis=-1) - np.sum(g * x, axis=-1) ** 2 / n
    return value, np.maximum(var, 0.0), defined


def difference(metric: str, x: np.ndarray) -> np.ndarray:
    """metric(first) - metric(second) from (..., 8) = two confusion matrices; NaN where undefined."""
    return one(metric, x[..., :4])[0] - one(metric, x[..., 4:])[0]


@register("um_delta", display="delta method (unpaired)", family="approximate", guaranteed=False,
          takes="unpaired_confusion", random=False,
          reference="delta method under two independent multinomials")
def um_delta(*cells_and_delta, metric="f1", rng=None):
    """D̂ ± z·sqrt(V₁ + V₂), Vᵣ = Σ gᵢ²xᵢ - (Σ gᵢxᵢ)²/nᵣ on test set r, clipped to [-1, 1]."""
    *counts, delta = cells_and_delta
    x = _stack(counts)
    f1, v1, d1 = one(metric, x[..., :4])
    f2, v2, d2 = one(metric, x[..., 4:])
    ok = d1 & d2
    d = np.where(ok, f1 - f2, 0.0)
    half = _z(delta) * np.sqrt(v1 + v2)
    return np.where(ok, np.clip(d - half, -1, 1), -1.0), np.where(ok, np.clip(d + half, -1, 1), 1.0)


@register("um_mover", display="MOVER (unpaired)", family="approximate", guaranteed=False,
          takes="unpaired_confusion", random=False,
          reference="Newcombe (1998a) method 10 / Zou & Donner (2008): square-and-add of the two intervals")
def um_mover(*cells_and_delta, metric="f1", rng=None):
    """Square-and-add: D̂ - sqrt((θ̂₁ - l₁)² + (u₂ - θ̂₂)²), D̂ + sqrt((u₁ - θ̂₁)² + (θ̂₂ - l₂)²), each classifier's
    interval as paired_metrics' mover builds it (Wilson per term)."""
    *counts, delta = cells_and_delta
    x = _stack(counts)
    t1, l1, u1 = _one_interval(metric, embed(x[..., :4]), delta, False)
    t2, l2, u2 = _one_interval(metric, embed(x[..., 4:]), delta, False)
    ok = one(metric, x[..., :4])[2] & one(metric, x[..., 4:])[2]
    d = t1 - t2
    lower, upper = d - np.hypot(t1 - l1, u2 - t2), d + np.hypot(u1 - t1, t2 - l2)
    return np.where(ok, np.clip(lower, -1, 1), -1.0), np.where(ok, np.clip(upper, -1, 1), 1.0)


@register("um_bootstrap", display="bootstrap (unpaired)", family="approximate", guaranteed=False,
          takes="unpaired_confusion",
          reference="Efron & Tibshirani (1993), ch. 13 (percentile), each test set resampled on its own",
          params=(draws_param(2000, "bootstrap resamples"),))
def um_bootstrap(*cells_and_delta, metric="f1", rng=None, draws=2000):
    """Percentile bootstrap: each test set's resample ~ Multinomial(nᵣ, its observed proportions); the
    (delta/2, 1 - delta/2) quantiles of D̂*, undefined resamples left out (none defined: [-1, 1])."""
    from .f1 import row_quantiles

    x, delta, shape = _rows(cells_and_delta)
    rng = np.random.default_rng() if rng is None else rng
    lower, upper = np.empty(len(x)), np.empty(len(x))
    for i, row in enumerate(x):
        parts = [rng.multinomial(int(part.sum()), part / part.sum(), size=draws) for part in (row[:4], row[4:])]
        d = difference(metric, np.concatenate(parts, axis=1).astype(float))[None, :]
        lower[i], upper[i] = row_quantiles(d, delta[i:i + 1] / 2)[0], row_quantiles(d, 1 - delta[i:i + 1] / 2)[0]
    empty = np.isnan(lower)
    return np.where(empty, -1.0, lower).reshape(shape), np.where(empty, 1.0, upper).reshape(shape)


@register("um_dirichlet", display="Dirichlet posterior (unpaired)", family="bayesian", guaranteed=False,
          takes="unpaired_confusion",
          reference="Goutte & Gaussier (2005), ECIR, LNCS 3408, 345-359: independent Dirichlet posteriors",
          params=(Param("prior", 1.0, above=0.0, doc="Dirichlet prior count of each cell", at_most=1e10),
                  Param("mc_error", 1e-3, above=0.0, at_most=0.1,
                        doc="Monte Carlo standard error of the bounds, at most")))
def um_dirichlet(*cells_and_delta, metric="f1", rng=None, prior=1.0, mc_error=1e-3):
    """Equal-tailed credible interval of D under independent Dirichlet(xᵣ + prior) posteriors of the two
    confusion matrices, sampled: a pilot of _MIN_DRAWS, then as many draws as keep the bounds' Monte
    Carlo standard error at most ``mc_error`` (as paired_metrics' dirichlet)."""
    x, delta, shape = _rows(cells_and_delta)
    rng = np.random.default_rng() if rng is None else rng
    lower, upper = np.empty(len(x)), np.empty(len(x))
    for i, row in enumerate(x):
        a = row + prior
        d = difference(metric, rng.gamma(a, size=(_MIN_DRAWS, 8)))
        need = min(_MAX_DRAWS, _draws_needed(float(np.nanstd(d)), mc_error, delta[i] / 2))
        if need > _MIN_DRAWS:
            d = np.concatenate([d, difference(metric, rng.gamma(a, size=(need - _MIN_DRAWS, 8)))])
        lower[i], upper[i] = np.quantile(d, [delta[i] / 2, 1 - delta[i] / 2])
    return lower.reshape(shape), upper.reshape(shape)
