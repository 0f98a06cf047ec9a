"""Intervals for a learner's error from k-fold cross-validation, and from a held-out test set.

Two kinds of method (declared below with ``register_kind``):

* ``crossval``: kernels on one data set's cross-validation counts, arrays with the data sets on
  the first axis: ``fold_errors``, ``fold_sizes`` (..., R, K), the out-of-fold errors and size of
  fold k in repeat r (repeat 0 is "the" K-fold CV), and ``inner_errors``, ``inner_sizes``
  (..., R, K), the errors of the inner cross-validation over the other K - 1 folds when fold k is
  the outer test fold (nested CV; the model for inner fold j is fit without folds j and k).
* ``holdout``: kernels on a held-out test set's errors ``k_test`` of ``n_test``.

The proportion methods (Wilson, Clopper–Pearson, Wald) apply to the pooled out-of-fold counts
(k = Σ_k e_0k of n) as if they were n independent tests: the naive interval.
Notation: e_rk errors of fold k (size m_rk) in repeat r, ê_rk = e_rk/m_rk, J = R·K.
"""

from __future__ import annotations

import numpy as np

from .._lazy import stats
from .. import validate
from .binomial import _z, clopper_pearson, wilson
from .registry import Param, draws_param, register, register_kind

CROSSVAL_COUNTS = ("fold_errors", "fold_sizes", "inner_errors", "inner_sizes")


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for cross-validation counts: shapes (..., R, K), errors <= sizes."""
    arrays = [validate.counts(name, c) for name, c in zip(CROSSVAL_COUNTS, counts)]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1 or arrays[0].ndim < 2 or arrays[0].shape[-1] < 3:
        raise ValueError(f"{', '.join(CROSSVAL_COUNTS)}: need one shape (..., repeats, folds >= 3), got "
                         f"{sorted(shapes)}")
    if np.any(arrays[0] > arrays[1]) or np.any(arrays[2] > arrays[3]) or np.any(arrays[1] < 2):
        raise ValueError("fold_errors <= fold_sizes (>= 2) and inner_errors <= inner_sizes in every fold")
    return m.bounds(tuple(arrays), validate.delta(validate.scalar("delta", delta)), side, rng=rng, **params)


def _holdout_door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for a held-out test set: k_test errors of n_test."""
    k, n = validate.k_and_n(*counts)
    return m.bounds((k, n), validate.delta(delta), side, **params)


register_kind("crossval", CROSSVAL_COUNTS, "cross-validation", per_test_set=True,
              why_mc_only="reads a data set's cross-validation folds, which no design enumerates",
              kind="crossval", route=_door, plain=True)
register_kind("holdout", ("k_test", "n_test"), "held-out test set", kind="holdout", route=_holdout_door, plain=True)


def _rates(errors, sizes):
    return np.asarray(errors, dtype=float) / np.asarray(sizes, dtype=float)


@register("cv_t", display="t over folds", family="approximate", guaranteed=False, takes="crossval",
          reference="the usual 'mean ± t·sd/sqrt(K)' over folds, e.g. Dietterich (1998), Neural Comput. 10, 1895-1923")
def cv_t(fold_errors, fold_sizes, inner_errors, inner_sizes, delta, rng=None):
    """t interval over the K fold error rates of one K-fold CV: ē ± t_{K-1, 1-δ/2}·s/sqrt(K).

    s the sample sd of the K rates ê_0k. Treats the folds as independent, which they are not
    (their training sets overlap); clipped to [0, 1]."""
    rate = _rates(fold_errors[..., 0, :], fold_sizes[..., 0, :])
    K = rate.shape[-1]
    half = stats.t.ppf(1 - np.asarray(delta) / 2, K - 1) * rate.std(axis=-1, ddof=1) / np.sqrt(K)
    mean = rate.mean(axis=-1)
    return np.clip(mean - half, 0.0, 1.0), np.clip(mean + half, 0.0, 1.0)


@register("nadeau_bengio", display="Nadeau–Bengio", family="approximate", guaranteed=False, takes="crossval",
          reference="Nadeau & Bengio (2003), Mach. Learn. 52, 239-281 (corrected resampled t); "
                    "Bouckaert & Frank (2004), PAKDD, for repeated k-fold CV")
def nadeau_bengio(fold_errors, fold_sizes, inner_errors, inner_sizes, delta, rng=None):
    """Corrected repeated-CV t interval: ē ± t_{J-1, 1-δ/2}·sqrt((1/J + n_test/n_train)·s²).

    Over the J = R·K fold rates ê_rk of R repeats of K-fold CV, ē their mean, s² their sample
    variance; n_test/n_train = m̄/(n - m̄) (= 1/(K - 1) for equal folds) inflates the naive 1/J
    for the correlation of overlapping training sets. Clipped to [0, 1]."""
    rate = _rates(fold_errors, fold_sizes)
    J = rate.shape[-1] * rate.shape[-2]
    flat = rate.reshape(*rate.shape[:-2], J)
    sizes = np.asarray(fold_sizes, dtype=float)
    n = sizes[..., 0, :].sum(axis=-1)
    test = sizes.mean(axis=(-1, -2))
    variance = (1 / J + test / (n - test)) * flat.var(axis=-1, ddof=1)
    half = stats.t.ppf(1 - np.asarray(delta) / 2, J - 1) * np.sqrt(variance)
    mean = flat.mean(axis=-1)
    return np.clip(mean - half, 0.0, 1.0), np.clip(mean + half, 0.0, 1.0)


def nested_parts(fold_errors, fold_sizes, inner_errors, inner_sizes):
    """Bates, Hastie & Tibshirani's (2023) nested-CV ingredients: (Err_NCV, sd, MSE-hat, Err_CV, n, K).

    For each repeat r and outer fold k: a_rk = ē_in - ē_out (mean inner-CV loss minus mean
    loss on fold k), b_rk = var(e_out)/m_rk (sample variance of fold k's 0/1 losses);
    MSE-hat = mean(a² - b). Err_NCV and sd are the mean and sd of every inner loss of every
    repeat; Err_CV the mean out-of-fold loss over the R repeats of plain K-fold CV."""
    e_out, m = np.asarray(fold_errors, float), np.asarray(fold_sizes, float)
    e_in, m_in = np.asarray(inner_errors, float), np.asarray(inner_sizes, float)
    out = e_out / m
    a = e_in / m_in - out
    b = out * (1 - out) * m / (m - 1) / m
    mse = np.mean(a * a - b, axis=(-1, -2))
    total, count = e_in.sum(axis=(-1, -2)), m_in.sum(axis=(-1, -2))
    err_ncv = total / count
    sd = np.sqrt(err_ncv * (1 - err_ncv) * count / (count - 1))
    err_cv = e_out.sum(axis=(-1, -2)) / m.sum(axis=(-1, -2))
    return err_ncv, sd, mse, err_cv, m[..., 0, :].sum(axis=-1), m.shape[-1]


@register("nested", display="nested CV", family="approximate", guaranteed=False, takes="crossval",
          reference="Bates, Hastie & Tibshirani (2023), JASA 119, 1434-1445, Algorithm 1 (nestedcv R package, "
                    "nested_cv)")
def nested(fold_errors, fold_sizes, inner_errors, inner_sizes, delta, rng=None):
    """Nested CV interval: Err̂ ± z·(sd/sqrt(n))·infl (Bates, Hastie & Tibshirani 2023).

    infl = sqrt(max(MSE-hat, 0))/(sd/sqrt(n_sub)) clipped to [1, sqrt(K)], n_sub = ⌊n(K-1)/K⌋
    (the standard error lies between the naive one and sqrt(K) times it); bias-corrected
    centre Err̂ = Err_NCV - (Err_NCV - Err_CV)·(1 + ((K - 2)/K)^1.5) (the authors' package:
    nested CV fits on n(K-2)/K examples, plain CV on n(K-1)/K). Err_CV is the mean of the same
    R repeats' plain CV (the package draws ⌈R/5⌉ fresh ones). Clipped to [0, 1]."""
    err_ncv, sd, mse, err_cv, n, K = nested_parts(fold_errors, fold_sizes, inner_errors, inner_sizes)
    n_sub = np.floor(n * (K - 1) / K)
    naive = sd / np.sqrt(n_sub)
    with np.errstate(divide="ignore", invalid="ignore"):
        inflation = np.where(naive > 0, np.sqrt(np.maximum(mse, 0.0)) / naive, 1.0)
    inflation = np.clip(inflation, 1.0, np.sqrt(K))
    centre = err_ncv - (err_ncv - err_cv) * (1 + ((K - 2) / K) ** 1.5)
    half = _z(delta) * sd / np.sqrt(n) * inflation
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


_CREDIBLE_BLOCK = 1 << 21  # Beta variates drawn at once (data sets × draws × folds)


def average_posterior_draws(errors, sizes, prior: float, draws: int, rng: np.random.Generator) -> np.ndarray:
    """``draws`` draws of the mean over folds of independent Beta(e_k + λ, m_k - e_k + λ), shape (..., draws)."""
    e, m = np.asarray(errors, float), np.asarray(sizes, float)
    return rng.beta((e + prior)[..., None, :], (m - e + prior)[..., None, :],
                    size=(*e.shape[:-1], draws, e.shape[-1])).mean(axis=-1)


@register("credible", display="credible", family="bayesian", guaranteed=False,
          takes="crossval",
          params=(draws_param(2000, "Monte Carlo draws of the average posterior"),
                  Param("prior", 1.0, above=0.0, doc="λ of the Beta(λ, λ) prior: 1 flat, 0.5 Jeffreys")),
          reference="Anjos et al., 'credible' (Idiap): 'Credible Regions in k-Fold Cross-Validation' "
                    "(bayesian.kfold; Goutte & Gaussier 2005, eq. 7)")
def credible(fold_errors, fold_sizes, inner_errors, inner_sizes, delta, rng=None, draws=2000, prior=1.0):
    """Equal-tailed interval of the Monte Carlo average of the K per-fold Beta posteriors.

    Fold k's error rate has posterior Beta(e_k + λ, m_k - e_k + λ); ``draws`` draws of their
    mean over the folds of one K-fold CV (repeat 0), sorted; the ends are the order statistics
    ⌊draws·δ/2⌉ and ⌊draws·(1 - δ/2)⌉ (1-based, rounded), as the credible package's average_beta."""
    e, m = fold_errors[..., 0, :], fold_sizes[..., 0, :]
    lead = e.shape[:-1]
    e, m = e.reshape(-1, e.shape[-1]), m.reshape(-1, m.shape[-1])
    q = np.asarray(delta, dtype=float)
    lo_at = max(int(round(draws * float(q) / 2)), 1) - 1
    hi_at = int(round(draws * (1 - float(q) / 2))) - 1
    lower, upper = np.empty(len(e)), np.empty(len(e))
    step = max(1, _CREDIBLE_BLOCK // (draws * e.shape[-1]))
    for start in range(0, len(e), step):
        rows = slice(start, start + step)
        sample = np.sort(average_posterior_draws(e[rows], m[rows], prior, draws, rng), axis=-1)
        lower[rows], upper[rows] = sample[:, lo_at], sample[:, hi_at]
    return lower.reshape(lead), upper.reshape(lead)


@register("holdout_wilson", display="holdout (Wilson)", family="approximate", guaranteed=False, takes="holdout",
          reference="Wilson (1927) on a held-out test set: exact binomial errors given the model fit on the rest")
def holdout_wilson(k_test, n_test, delta):
    """Wilson interval on the held-out test set's errors (the model fit on the other examples)."""
    return wilson(k_test, n_test, delta)


@register("holdout_cp", display="holdout (Clopper–Pearson)", family="exact", guaranteed=True, takes="holdout",
          reference="Clopper & Pearson (1934) on a held-out test set")
def holdout_cp(k_test, n_test, delta):
    """Clopper–Pearson interval on the held-out test set's errors: coverage >= 1 - δ of its model's Err_XY."""
    return clopper_pearson(k_test, n_test, delta)


__all__ = ["credible", "cv_t", "holdout_cp", "holdout_wilson", "nadeau_bengio", "nested", "nested_parts",
           "average_posterior_draws"]
