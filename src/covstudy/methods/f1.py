"""Two-sided intervals for F1 = 2TP/(2TP + FP + FN) from a confusion matrix.

An F1 kernel maps ``(tp, fn, fp, tn, delta, rng, **params)`` (broadcasting arrays, already
validated) to ``(lower, upper)`` with ``0 <= lower <= upper <= 1``. ``rng`` (a numpy
Generator) feeds the bootstrap draws of the sampling method (f1_bootstrap); it draws in a
fixed order, in blocks of at most ``_BLOCK`` numbers, so the same rng state and inputs give
the same intervals. Notation: k = TP, l = FP + FN, s = k + l, d = 2k + l, F̂ = 2k/d.

Zero denominator (s = 0: no positives and no predicted positives) leaves F1 undefined:
f1_delta and f1_bootstrap return the vacuous [0, 1]; f1_bayes returns the prior's interval.

The F1 methods are registered as taking a confusion matrix (``methods("confusion")``);
proportion methods apply to F1 through the Jaccard index (estimands.py).
"""

from __future__ import annotations


import numpy as np

from .. import validate
from .binomial import _z, beta_interval
from .counts import CELLS, confusion_counts
from .registry import Param, draws_param, register, register_kind


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for a confusion matrix (tp, fn, fp, tn) and a metric (intervals.py)."""
    columns = dict(zip(CELLS, confusion_counts(*counts)))
    return est.bounds(m, columns, validate.delta(delta), side, rng=rng, **params)


register_kind("confusion", ("tp", "fn", "fp", "tn"), "F1", per_test_set=True, kind="f1", prefix="f1_", route=_door)

_BLOCK = 1 << 21  # random numbers drawn at once (rows × draws), to bound memory


def _counts(tp, fn, fp, tn, delta):
    tp, fn, fp, tn, delta = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (tp, fn, fp, tn, delta)))
    return tp, fn, fp, tn, delta


def row_quantiles(samples: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Quantile ``q[i]`` of the finite values of row i (linear interpolation, as numpy's default).

    NaN marks an undefined sample and is left out; a row without finite values gives NaN.
    """
    x = np.sort(samples, axis=1)  # NaN sorts last
    valid = np.sum(~np.isnan(x), axis=1)
    pos = q * np.maximum(valid - 1, 0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(valid - 1, 0))
    rows = np.arange(x.shape[0])
    a, b = x[rows, lo], x[rows, hi]
    return np.where(valid > 0, a + (pos - lo) * (b - a), np.nan)


def _equal_tailed(sampler, n_rows: int, draws: int, delta: np.ndarray):
    """(delta/2, 1 - delta/2) quantiles of ``sampler(rows, draws)`` samples, rows in blocks."""
    lower, upper = np.empty(n_rows), np.empty(n_rows)
    step = max(1, _BLOCK // draws)
    for s in range(0, n_rows, step):
        rows = slice(s, min(n_rows, s + step))
        x = sampler(rows)
        lower[rows] = row_quantiles(x, delta[rows] / 2)
        upper[rows] = row_quantiles(x, 1 - delta[rows] / 2)
    return lower, upper


@register("f1_delta", takes="confusion", family="approximate", guaranteed=False, random=False,
          display="F1 delta method",
          reference="delta method under the multinomial; cf. Takahashi, Yamamoto, Kuchiba & Koyama (2022), "
                    "Applied Intelligence 52, 4961-4972")
def f1_delta(tp, fn, fp, tn, delta, rng=None):
    """Delta-method interval F̂ ± z·sqrt(4·k·l·s/d⁴), z = Φ⁻¹(1 - delta/2), clipped to [0, 1].

    With cell proportions a = TP/n, b = FP/n, c = FN/n ~ Multinomial/n, F1 = g = 2a/(2a + b + c)
    has gradient (2(b + c), -2a, -2a)/D² (D = 2a + b + c) and Σ gᵢ'πᵢ = 0 (g is homogeneous of
    degree 0), so Var F̂ ≈ Σ gᵢ'²πᵢ/n = 4a(b + c)(a + b + c)/(n·D⁴); with counts n cancels:
    4·k·l·s/d⁴. Degenerate (zero width) at F̂ = 0 (k = 0 < l) and F̂ = 1 (l = 0 < k);
    s = 0: [0, 1]. TN does not enter.
    """
    tp, fn, fp, tn, delta = _counts(tp, fn, fp, tn, delta)
    k, l = tp, fp + fn
    s, d = k + l, 2 * tp + l
    empty = s == 0
    ds = np.where(empty, 1.0, d)
    f = 2 * k / ds
    se = np.sqrt(4 * k * l * s) / ds**2
    half = _z(delta) * se
    lower = np.where(empty, 0.0, np.clip(f - half, 0.0, 1.0))
    upper = np.where(empty, 1.0, np.clip(f + half, 0.0, 1.0))
    return lower, upper


@register("f1_bayes", display="F1 Bayes", takes="confusion", family="bayesian", guaranteed=False, random=False,
          reference="Goutte & Gaussier (2005), ECIR, LNCS 3408, 345-359",
          params=(Param("alpha", 0.25, above=0.0, doc="Dirichlet prior count of each cell (1/K², K = 2)",
                        at_most=1e10),))
def f1_bayes(tp, fn, fp, tn, delta, rng=None, alpha=0.25):
    """Equal-tailed credible interval of F1 under the Dirichlet(TP+α, FN+α, FP+α, TN+α) posterior, exactly.

    α = 1/4 by default (1/K², one pseudo-example over the four cells, as macro-F1's ``mf1_bayes``): with
    α = 1 the prior's two made-up errors pull the interval of a near-perfect classifier below its
    estimate (tp, fn, fp, tn = 40, 0, 1, 39: coverage 0.736 at the estimate).

    A Dirichlet vector is independent Gamma variates over their sum and F1 is scale-free, so
    F = 2U/(2U + V), U ~ Gamma(TP + α), V ~ Gamma(FP + FN + 2α) (Goutte & Gaussier's
    construction; the TN variate cancels), i.e. F = 2B/(1 + B) with B = U/(U + V) ~
    Beta(TP + α, FP + FN + 2α). The map is increasing, so the (delta/2, 1 - delta/2)
    quantiles of F are 2b/(1 + b) at B's quantiles b: exact, no sampling (``rng`` unused).
    s = 0: the interval of the prior's F1.
    """
    tp, fn, fp, tn, delta = _counts(tp, fn, fp, tn, delta)
    lower, upper = beta_interval(tp + alpha, fp + fn + 2 * alpha, delta)
    return 2 * lower / (1 + lower), 2 * upper / (1 + upper)


@register("f1_bootstrap", display="F1 bootstrap", takes="confusion", family="approximate", guaranteed=False,
          reference="Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 13 (percentile interval)",
          params=(draws_param(2000, "bootstrap resamples"),))
def f1_bootstrap(tp, fn, fp, tn, delta, rng=None, draws=2000):
    """Percentile bootstrap: (delta/2, 1 - delta/2) quantiles of F1 over ``draws`` resamples of the n examples.

    A resample of the n examples is a confusion matrix ~ Multinomial(n, observed proportions);
    F1 needs only TP* and L* = FP* + FN*, drawn as TP* ~ Bin(n, TP/n), L* ~ Bin(n - TP*, l/(n - TP))
    (the rest are TN*). Resamples with 2TP* + L* = 0 have no F1 and are left out; s = 0 gives
    [0, 1]. Draws per block of rows: all TP*, then all L*.
    """
    tp, fn, fp, tn, delta = _counts(tp, fn, fp, tn, delta)
    shape = tp.shape
    tp, rest = np.reshape(tp, -1), np.reshape(fp + fn, -1)
    n = (tp + rest + np.reshape(tn, -1)).astype(np.int64)
    p_tp = tp / n
    p_rest = np.where(n > tp, rest / np.maximum(n - tp, 1), 0.0)
    rng = np.random.default_rng() if rng is None else rng

    def sample(rows):
        size = (len(n[rows]), draws)
        tp_s = rng.binomial(n[rows, None], p_tp[rows, None], size=size)
        rest_s = rng.binomial(n[rows, None] - tp_s, p_rest[rows, None])
        d = 2 * tp_s + rest_s
        return np.where(d > 0, 2 * tp_s / np.maximum(d, 1), np.nan)

    lower, upper = _equal_tailed(sample, n.size, draws, np.reshape(delta, -1))
    empty = np.isnan(lower)
    lower, upper = np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)
    return lower.reshape(shape), upper.reshape(shape)
