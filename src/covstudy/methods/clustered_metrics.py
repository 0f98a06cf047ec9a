"""Cluster-aware intervals for precision, recall and F1 from per-cluster confusion counts.

Examples of one cluster (a patient's images, a speaker's utterances) are correlated, so the
i.i.d. intervals on the totals are too narrow when the intra-cluster correlation is positive.
Each of these metrics is a ratio of cluster totals,

    R = Σ y_i / Σ x_i,   (y_i, x_i) = (tp_i, tp_i + fp_i) for precision, (tp_i, tp_i + fn_i)
                         for recall, (2tp_i, 2tp_i + fp_i + fn_i) for F1  (``RATIOS``),

so the methods are those of a ratio estimator over clusters (Cochran 1977, "Sampling
Techniques", ch. 6), with the clusters as the independent units. Kernels map ``(tp, fn, fp,
tn, delta, metric=..., rng=None, **params)``, arrays of shape (..., m) with the clusters on
the last axis (one interval per leading index, a test set), to ``(lower, upper)`` in [0, 1];
``metric`` is set by the estimand (designs/clustered_confusion.py). z = Φ⁻¹(1 - delta/2).
Where Σ x_i = 0 the metric is undefined and the interval is the vacuous [0, 1].
"""

from __future__ import annotations

import numpy as np

from .. import validate
from .binomial import _z
from .f1 import row_quantiles
from .registry import draws_param, register, register_kind

CELLS = ("tp", "fn", "fp", "tn")
# metric -> (weights of tp, fn, fp, tn in y_i, weights in x_i)
RATIOS = {"precision": ((1, 0, 0, 0), (1, 0, 1, 0)),
          "recall": ((1, 0, 0, 0), (1, 1, 0, 0)),
          "f1": ((2, 0, 0, 0), (2, 1, 1, 0))}
_BLOCK = 1 << 21  # bootstrap random numbers drawn at once (test sets × draws × clusters)


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for per-cluster confusion counts and a metric (intervals.py)."""
    cells = [validate.counts(name, v) for name, v in zip(CELLS, counts)]
    if len({c.shape for c in cells}) != 1 or cells[0].ndim == 0:
        raise ValueError(f"tp, fn, fp, tn: need arrays of one shape with the clusters on the last axis, got "
                         f"shapes {', '.join(str(c.shape) for c in cells)}")
    if cells[0].shape[-1] < 2:
        raise ValueError(f"tp, fn, fp, tn: need at least 2 clusters on the last axis, got shape {cells[0].shape}")
    columns = dict(zip(CELLS, cells))
    return est.bounds(m, columns, validate.delta(validate.scalar("delta", delta)), side, rng=rng, **params)


# per-cluster confusion counts (clusters on the last axis) and the metric: Monte Carlo only
register_kind("clustered_confusion", CELLS, "clustered metric", per_test_set=True, kind="clustered_metric",
              prefix="cm_", why_mc_only="reads per-cluster counts, which no design enumerates", route=_door)


def ratio_terms(metric: str, tp, fn, fp, tn) -> tuple[np.ndarray, np.ndarray]:
    """(y, x) per cluster of the metric's ratio Σy/Σx (module docstring), as floats."""
    wy, wx = RATIOS[metric]
    cells = [np.asarray(c, dtype=float) for c in (tp, fn, fp, tn)]
    return sum(w * c for w, c in zip(wy, cells) if w), sum(w * c for w, c in zip(wx, cells) if w)


def _vacuous(lower, upper, defined):
    return np.where(defined, lower, 0.0), np.where(defined, upper, 1.0)


@register("cm_ratio_wald", display="ratio Wald (clusters)", takes="clustered_confusion", family="approximate",
          guaranteed=False, reference="Cochran (1977) Sampling Techniques ch. 6 (ratio estimator); "
          "Rao & Scott (1992) Biometrics 48, 577-585")
def cm_ratio_wald(tp, fn, fp, tn, delta, metric="f1", rng=None):
    """R̂ ± z·sqrt(m/(m - 1)·Σ(y_i - R̂·x_i)²)/Σx_i, clipped to [0, 1]: the linearised (sandwich)
    variance of the ratio estimator R̂ = Σy_i/Σx_i with the clusters as units, with the small-sample
    factor m/(m - 1); clusters with x_i = 0 (no predicted positives, for precision) add their y_i = 0."""
    y, x = ratio_terms(metric, tp, fn, fp, tn)
    m = y.shape[-1]
    total = x.sum(axis=-1)
    defined = total > 0
    r = y.sum(axis=-1) / np.where(defined, total, 1)
    residual = y - r[..., None] * x
    half = _z(delta) * np.sqrt(m / (m - 1) * np.sum(residual * residual, axis=-1)) / np.where(defined, total, 1)
    return _vacuous(np.clip(r - half, 0.0, 1.0), np.clip(r + half, 0.0, 1.0), defined)


@register("cm_cluster_bootstrap", display="cluster bootstrap", takes="clustered_confusion", family="approximate",
          guaranteed=False, reference="Field & Welsh (2007) Bootstrapping clustered data, JRSS B 69, 369-390; "
          "Davison & Hinkley (1997) ch. 3.8", params=(draws_param(1000, "bootstrap resamples"),))
def cm_cluster_bootstrap(tp, fn, fp, tn, delta, metric="f1", rng=None, draws=1000):
    """Percentile bootstrap over clusters: the (delta/2, 1 - delta/2) quantiles of Σy*/Σx* over
    ``draws`` resamples of m whole clusters drawn with replacement, test set by test set, resample by
    resample, from ``rng`` (``cluster_resampling.resampled_totals``: the multiplicities of the distinct
    clusters where they repeat, else cluster ⌊u·m⌋ of u ~ U[0, 1)); resamples with Σx* = 0 are left
    out (``f1.row_quantiles``, linear interpolation). draws × m at most ``validate.RESAMPLE_WORK_MAX``."""
    from .cluster_resampling import resampled_totals

    y, x = ratio_terms(metric, tp, fn, fp, tn)
    y, x = np.broadcast_arrays(y, x)
    shape, m = y.shape[:-1], y.shape[-1]
    validate.resample_work("draws", draws, m, "clusters")
    rng = np.random.default_rng() if rng is None else rng
    q = np.broadcast_to(np.asarray(delta, dtype=float), shape).reshape(-1) / 2
    lower, upper = np.empty(q.size), np.empty(q.size)
    columns = np.stack([y, x], axis=-1).reshape(-1, m, 2).astype(float)
    for rows, totals in resampled_totals(columns, draws, rng, _BLOCK):
        num, den = totals[..., 0], totals[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        lower[rows] = row_quantiles(ratio, q[rows])
        upper[rows] = row_quantiles(ratio, 1 - q[rows])
    defined = ~np.isnan(lower)
    lower, upper = _vacuous(lower, upper, defined)
    return lower.reshape(shape), upper.reshape(shape)
