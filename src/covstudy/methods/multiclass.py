"""Two-sided intervals for multi-class metrics: macro recall and macro-F1.

Convention: a K×K confusion matrix C has **rows = true class, columns = predicted class**
(C_ij = examples of class i predicted as j; Takahashi et al.'s code uses the transpose).

* Macro recall (the mean of the K class recalls, multi-class balanced accuracy) methods take
  the classes' correct counts and sizes (``takes="classes"``): ``k`` = diag C and ``n`` = the
  row sums, both shape (..., K). They generalise the balanced-accuracy methods
  (methods/balanced.py), which they equal at K = 2. An empty class (n_i = 0, possible with
  i.i.d. examples) has an unknown recall: the union and Wald methods bound it by [0, 1], the
  posterior methods by its prior.
* Macro-F1 methods take the matrix (``takes="multiclass"``, shape (..., K, K));
  ``mf1_bayes`` and ``mf1_bootstrap`` draw random numbers (``takes="multiclass_draws"``, one
  interval per test set, from ``rng``). F1_i = 2C_ii/(r_i + c_i) with r_i, c_i the row and
  column sums; a class with r_i + c_i = 0 (absent and never predicted) has no F1, so macro-F1
  is undefined there: the delta method and the bootstrap return [0, 1].

Accuracy, micro-F1 (equal to accuracy for single-label data: every error is one false
positive and one false negative, so micro precision = micro recall = trace/n) and the
binary-equivalent accuracy take the binomial methods (estimands.py).
"""

from __future__ import annotations

import numpy as np

from .. import validate
from . import beta_mean_k
from .balanced import class_bounds
from .binomial import _z
from .counts import confusion_matrices
from .f1 import _BLOCK, row_quantiles
from .registry import Param, draws_param, register, register_kind


def _classes_door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for K classes' correct counts and sizes (intervals.py)."""
    k, n = (validate.counts(name, v) for name, v in zip(("k", "n"), counts))
    try:
        k, n = np.broadcast_arrays(k, n)
    except ValueError:
        raise ValueError(f"k and n must broadcast together, got shapes {k.shape} and {n.shape}") from None
    if k.ndim == 0 or k.shape[-1] < 2:
        raise ValueError(f"k, n: need K >= 2 classes on the last axis, got shape {k.shape}")
    if np.any(n < 1) or np.any(k > n):
        raise ValueError("k, n: every class needs n >= 1 and 0 <= k <= n")
    return m.bounds((k, n), validate.delta(delta), side, **params)


def _matrix_door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for K×K confusion matrices and a metric (intervals.py)."""
    c = confusion_matrices(counts[0])
    K = c.shape[-1]
    columns = {"K": np.full(c.shape[:-2], K), **{f"c{i}_{j}": c[..., i, j] for i in range(K) for j in range(K)}}
    columns = {name: np.reshape(v, -1) for name, v in columns.items()}
    lower, upper = est.bounds(m, columns, validate.delta(delta), side, rng=rng, **params)
    shape = c.shape[:-2]
    return np.asarray(lower, dtype=float).reshape(shape), np.asarray(upper, dtype=float).reshape(shape)


# K classes' correct counts k and sizes n, each shape (..., K): macro recall
register_kind("classes", ("k", "n"), "macro-recall", kind="macro_recall", prefix="mr_", route=_classes_door, plain=True)
# a K×K confusion matrix (..., K, K), rows = true class, columns = predicted: macro-F1
register_kind("multiclass", ("confusion",), "macro-F1", kind="macro_f1", prefix="mf1_", route=_matrix_door)
register_kind("multiclass_draws", ("confusion",), "sampled macro-F1", per_test_set=True, kind="macro_f1", prefix="mf1_",
              data="multiclass")


# ---------------------------------------------------------------------------------------------
# Macro recall: k, n of shape (..., K).


def _union(binomial, k, n, delta):
    # Ends of a two-sided interval at delta/K are one-sided bounds at delta/(2K): the 2K bounds
    # all hold with probability >= 1 - delta (union bound), and then so does their average.
    part = np.asarray(delta, dtype=float)[..., None] / k.shape[-1]
    lower, upper = class_bounds(binomial, k, n, part)
    return np.mean(lower, axis=-1), np.mean(upper, axis=-1)


@register("mr_union_cp", takes="classes", family="exact", guaranteed=True,
          display="Clopper–Pearson union (macro-recall)",
          reference="Langford (2005), JMLR 6, 273-306; Sandler & Dirac (2024), Groundlight blog (K = 2)")
def mr_union_cp(k, n, delta):
    """Union bound of Clopper-Pearson class bounds: (mean L_i, mean U_i), each one-sided at delta/(2K).

    All 2K bounds hold together with probability >= 1 - delta, so coverage >= 1 - delta for
    every recall vector and class sizes. K = 2: ``ba_cp_union``. Empty class: [0, 1].
    """
    return _union("clopper_pearson", k, n, delta)


@register("mr_union_wilson", takes="classes", family="approximate", guaranteed=False,
          display="Wilson union (macro-recall)",
          reference="Wilson (1927); union construction of Langford (2005)")
def mr_union_wilson(k, n, delta):
    """Union bound of Wilson class bounds: (mean L_i, mean U_i), each one-sided at delta/(2K).

    K = 2: ``ba_wilson_union``. Empty class: [0, 1].
    """
    return _union("wilson", k, n, delta)


@register("mr_union_jeffreys", takes="classes", family="bayesian", guaranteed=False,
          display="Jeffreys union (macro-recall)",
          reference="BCD (2001) §4.1.2; union construction of Langford (2005)")
def mr_union_jeffreys(k, n, delta):
    """Union bound of Jeffreys class bounds (BCD's boundary rule), each one-sided at delta/(2K).

    K = 2: ``ba_jeffreys_union``. Empty class: [0, 1].
    """
    return _union("jeffreys", k, n, delta)


@register("mr_wald", display="Wald (macro-recall)", takes="classes", family="approximate", guaranteed=False,
          reference="normal approximation to the mean of K independent class recalls")
def mr_wald(k, n, delta):
    """Wald interval mean(r̂_i) ± z·sqrt(Σ r̂_i(1 - r̂_i)/n_i)/K, z = Φ⁻¹(1 - delta/2), clipped.

    An empty class adds [0, 1]/K (its recall unknown) and no variance, as ``ba_wald`` (K = 2).
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    K = k.shape[-1]
    empty = n == 0
    n_safe = np.where(empty, 1.0, n)
    r = k / n_safe
    var = np.sum(r * (1 - r) / n_safe, axis=-1)
    centre = np.sum(r, axis=-1) / K
    half = _z(delta) * np.sqrt(var) / K
    upper = centre + half + np.sum(empty, axis=-1) / K
    return np.clip(centre - half, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


@register("mr_price_bonett", display="Price–Bonett (macro-recall)", takes="classes", family="approximate",
          guaranteed=False,
          reference="Price & Bonett (2004), An improved confidence interval for a linear function of binomial "
                    "proportions, Comput Stat Data Anal 45(3), 449-456")
def mr_price_bonett(k, n, delta):
    """Adjusted Wald interval for the mean of K independent recalls (Price & Bonett 2004): each class gets
    2/K pseudo-successes and 4/K pseudo-trials, r̃_i = (k_i + 2/K)/(n_i + 4/K), and
    mean(r̃) ± z·sqrt(Σ r̃_i(1 - r̃_i)/(n_i + 4/K))/K, clipped to [0, 1]. K = 2 is the Agresti–Caffo
    adjustment. An empty class is one with no data: its r̃ = 1/2, as the adjustment gives.
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    K = k.shape[-1]
    n_adj = n + 4 / K
    r = (k + 2 / K) / n_adj
    centre = np.mean(r, axis=-1)
    half = _z(delta) * np.sqrt(np.sum(r * (1 - r) / n_adj, axis=-1)) / K
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


@register("mr_posterior", display="posterior (macro-recall)", takes="classes", family="bayesian", guaranteed=False,
          reference="Brodersen, Ong, Stephan & Buhmann (2010), Proc. ICPR (K = 2), generalised to K classes",
          params=(Param("prior", 0.0, above=0.0, doc="Beta(a, a) prior of each class recall", auto="1/(2K)"),),
          estimate=lambda k, n, prior=0.0: posterior_median(k, n, _prior(k, prior)))
def mr_posterior(k, n, delta, prior=0.0):
    """Equal-tailed credible interval of the mean of K independent Beta(k_i + a, n_i - k_i + a) posteriors.

    a = 1/(2K) by default (``prior=0``): one pseudo-example in all, half a success and half a failure
    spread over the K classes, as macro-F1's Dirichlet prior 1/K² per cell (``mf1_bayes``). Uniform
    priors (a = 1, Brodersen et al.; ``ba_posterior`` at K = 2) add 2K pseudo-examples that pull
    every recall toward ½ together: the bias of the mean stays ~a/n_i while its spread shrinks as
    1/sqrt(K), so on [[18,0,0],[0,20,1],[0,0,15]] (macro recall 0.9841) a = 1 gives [0.8624, 0.9815]
    and a = 1/6 gives [0.9251, 0.9981]; in results/multiclass a = 1 covered 0.52 at K = 10, n = 50.
    Quantiles of the exact distribution of the mean (``beta_mean_k``: K = 2 by ``beta_mean``,
    K >= 3 by lattice convolution, both within 1e-6).
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    a = _prior(k, prior)
    return beta_mean_k.interval(k + a, n - k + a, delta)


def _prior(k, prior: float) -> float:
    """The Beta(a, a) prior's a: ``prior`` if given (> 0), else 1/(2K) for K = k.shape[-1] classes."""
    return prior if prior > 0 else 1.0 / (2 * np.shape(k)[-1])


def posterior_median(k, n, a: float):
    """The posterior median of macro recall, the 0.5 quantile of the mean of Beta(k_i + a, n_i - k_i + a):
    the point estimate of the posterior methods, always inside their equal-tailed intervals."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    return beta_mean_k.quantile(np.full((*k.shape[:-1], 1), 0.5), k + a, n - k + a)[..., 0]


@register("mr_posterior_jeffreys", takes="classes", family="bayesian", guaranteed=False,
          display="posterior, Jeffreys (macro-recall)",
          reference="Brodersen et al. (2010) with Jeffreys priors Beta(½, ½), K classes",
          estimate=lambda k, n: posterior_median(k, n, 0.5))
def mr_posterior_jeffreys(k, n, delta):
    """Equal-tailed credible interval of the mean of K independent Beta(k_i + ½, n_i - k_i + ½) posteriors.

    As ``mr_posterior`` with Jeffreys priors. K = 2: ``ba_posterior_jeffreys``. Jeffreys' prior is
    kept as it is named, so from K = 4 its interval can lie below the plug-in macro recall (a 5-class
    table with one error: recall 0.9905, interval [0.9055, 0.9897]); its estimate is the posterior
    median (``posterior_median``), which its interval always holds.
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    return beta_mean_k.interval(k + 0.5, n - k + 0.5, delta)


# ---------------------------------------------------------------------------------------------
# Macro-F1: confusion matrices of shape (..., K, K).


def macro_f1(confusion) -> np.ndarray:
    """Macro-F1 = mean_i 2C_ii/(r_i + c_i) of matrices (..., K, K) (counts or probabilities);
    NaN where some class has r_i + c_i = 0."""
    c = np.asarray(confusion, dtype=float)
    d = c.sum(-1) + c.sum(-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.mean(2 * np.diagonal(c, axis1=-2, axis2=-1) / d, axis=-1)


def macro_f1_variance(confusion) -> np.ndarray:
    """Delta-method variance of macro-F1 under Multinomial(n, p), the construction of Takahashi
    et al. (2022) (closed form derived here; the tests check it against a numerical gradient):

        Var = 2/(n·K²)·[Σ_i F_i(1 - F_i)(1 - F_i/2)/d_i + Σ_{i≠j} p_ij·F_i·F_j/(d_i·d_j)]

    with p = C/n, d_i = p_i· + p_·i and F_i = 2p_ii/d_i: the gradient of mean_i F_i over the
    cells is G_ii = 2(1 - F_i)/(K·d_i), G_ij = -(F_i/d_i + F_j/d_j)/K (i ≠ j), and
    Var = Σ G_ij²·p_ij/n (Σ G_ij·p_ij = 0: macro-F1 is scale-free). NaN where
    some d_i = 0.
    """
    c = np.asarray(confusion, dtype=float)
    K = c.shape[-1]
    n = c.sum(axis=(-2, -1))
    p = c / n[..., None, None]
    d = p.sum(-1) + p.sum(-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        f = 2 * np.diagonal(p, axis1=-2, axis2=-1) / d
        own = np.sum(f * (1 - f) * (1 - f / 2) / d, axis=-1)
        ratio = f / d
        off = p * ratio[..., :, None] * ratio[..., None, :]
        cross = np.sum(off, axis=(-2, -1)) - np.sum(np.diagonal(off, axis1=-2, axis2=-1), axis=-1)
    return 2 * (own + cross) / (n * K * K)


@register("mf1_takahashi", display="macro-F1 Takahashi", takes="multiclass", family="approximate", guaranteed=False,
          reference="Takahashi, Yamamoto, Kuchiba & Koyama (2022), Applied Intelligence 52, 4961-4972, §3.2")
def mf1_takahashi(confusion, delta):
    """Delta-method (Wald) interval macro-F1 ± z·sqrt(Var), z = Φ⁻¹(1 - delta/2), clipped to [0, 1].

    Var is ``macro_f1_variance`` (Takahashi et al.'s multinomial delta method). A class absent
    and never predicted (undefined macro-F1): [0, 1].
    """
    f = macro_f1(confusion)
    half = _z(delta) * np.sqrt(macro_f1_variance(confusion))
    undefined = np.isnan(f)
    lower = np.where(undefined, 0.0, np.clip(f - half, 0.0, 1.0))
    upper = np.where(undefined, 1.0, np.clip(f + half, 0.0, 1.0))
    return lower, upper


def _sampled(confusion, delta, draws: int, sample):
    """(delta/2, 1 - delta/2) quantiles of macro-F1 over the matrices ``sample(counts)`` draws
    for rows of counts (rows, K²) -> (rows, draws, K²); rows in blocks of at most _BLOCK numbers."""
    c, d = np.broadcast_arrays(np.asarray(confusion, dtype=float), np.asarray(delta, dtype=float)[..., None, None])
    shape, K = c.shape[:-2], c.shape[-1]
    flat, d = c.reshape(-1, K * K), d[..., 0, 0].reshape(-1)
    lower, upper = np.empty(flat.shape[0]), np.empty(flat.shape[0])
    step = max(1, _BLOCK // (draws * K * K))
    for start in range(0, flat.shape[0], step):
        rows = slice(start, start + step)
        values = macro_f1(sample(flat[rows]).reshape(-1, draws, K, K))
        lower[rows] = row_quantiles(values, d[rows] / 2)
        upper[rows] = row_quantiles(values, 1 - d[rows] / 2)
    return lower.reshape(shape), upper.reshape(shape)


@register("mf1_bayes", display="macro-F1 Bayes", takes="multiclass_draws", family="bayesian", guaranteed=False,
          reference="Dirichlet-multinomial posterior of the cells; cf. Goutte & Gaussier (2005) for binary F1",
          params=(draws_param(2000, "posterior samples"),
                  Param("alpha", 0.0, above=0.0, doc="Dirichlet prior count of each cell", auto="1/K²")))
def mf1_bayes(confusion, delta, rng=None, draws=2000, alpha=0.0):
    """Equal-tailed credible interval of macro-F1 from ``draws`` Dirichlet(C + α) posterior samples of the K² cells.

    α = 1/K² by default (``alpha=0``): one pseudo-example in all, spread over the K² cells. A count of 1
    per cell (α = 1) adds K² pseudo-examples, K(K - 1) of them errors, and pulls the posterior of a good
    classifier below its estimate (on [[18,0,0],[0,20,1],[0,0,15]], macro-F1 0.981, α = 1 gives
    [0.794, 0.951]); α = 1/K² keeps the prior's weight at one example whatever K (results/multiclass).

    A Dirichlet vector is independent Gamma(C_ij + α) variates over their sum; macro-F1 is
    scale-free, so the Gamma variates are used as they are. The interval is the
    (delta/2, 1 - delta/2) sample quantiles (linear interpolation). Draws per block of rows:
    all Gamma variates, row by row.
    """
    rng = np.random.default_rng() if rng is None else rng
    K = np.shape(confusion)[-1]
    alpha = alpha if alpha > 0 else 1.0 / (K * K)
    return _sampled(confusion, delta, draws, lambda c: rng.standard_gamma(
        np.broadcast_to(c[:, None, :] + alpha, (c.shape[0], draws, c.shape[1]))))


@register("mf1_bootstrap", takes="multiclass_draws", family="approximate", guaranteed=False,
          display="macro-F1 bootstrap",
          reference="Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 13 (percentile interval)",
          params=(draws_param(2000, "bootstrap resamples"),))
def mf1_bootstrap(confusion, delta, rng=None, draws=2000):
    """Percentile bootstrap: (delta/2, 1 - delta/2) quantiles of macro-F1 over ``draws`` resamples of the n examples.

    A resample is a matrix ~ Multinomial(n, C/n) over the K² cells; resamples in which some
    class is absent and never predicted have no macro-F1 and are left out; none left: [0, 1].
    """
    rng = np.random.default_rng() if rng is None else rng

    def sample(c):
        n = c.sum(-1).astype(np.int64)
        return rng.multinomial(n[:, None], (c / c.sum(-1, keepdims=True))[:, None, :],
                               size=(c.shape[0], draws)).astype(float)

    lower, upper = _sampled(confusion, delta, draws, sample)
    empty = np.isnan(lower)
    return np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)
