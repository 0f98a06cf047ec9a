"""Intervals for a proportion from clustered examples: m clusters, y_i correct of s_i in cluster i.

Two kinds of method (declared below with ``register_kind``):

* ``clustered``: kernels on the per-cluster counts ``(successes, sizes, delta, rng)``, arrays
  of shape (..., m) with the clusters on the last axis; one interval per leading index (test
  set). They need each test set, so their coverage is Monte Carlo only.
* ``deff``: *oracle* kernels on the totals and the true design effect ``(k, n, deff, delta)``:
  a binomial interval on the effective sample (k/deff, n/deff). The design effect
  deff = 1 + (Σ s_i²/n - 1)·icc (= 1 + (s - 1)·icc for equal sizes) comes from the *true*
  icc: the clustered design fills it from its point, ``clustered_interval`` takes ``icc=``.
  No data set tells the true icc; these are a reference point for what a known design effect
  would buy, not intervals to report.

Proportion methods apply to the totals (k = Σ y_i, n = Σ s_i) as if the examples were i.i.d.:
the naive baseline. Notation: p̂ = k/n, z = Φ⁻¹(1 - delta/2).
References: Saha, Miller & Wang (2016), "A comparison of some approximate confidence intervals
for a single proportion for clustered binary outcome data", Int. J. Biostat. 12, 1-18;
Short, Cabral, Weinberg, LaValley & Massaro (2020), "A novel confidence interval for a single
proportion in the presence of clustered binary outcome data", Stat. Methods Med. Res. 29, 111-121.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .. import validate
from .binomial import _z, wilson
from .f1 import row_quantiles
from .registry import draws_param, register, register_kind


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for per-cluster counts (intervals.py): clustered methods, the
    oracles (given the true ``icc``) and proportion methods on the totals."""
    y = validate.counts("successes", counts[0])
    s = validate.counts("sizes", counts[1], minimum=1)
    y, s = same_clusters(y, s)
    if y.shape[-1] < 2:
        raise ValueError(f"successes, sizes: need at least 2 clusters on the last axis, got shape {y.shape}")
    if np.any(y > s):
        raise ValueError("successes must be <= sizes in every cluster")
    if m.takes == "deff":
        if icc is None:
            raise ValueError(f"icc: {m.short} is an oracle on the true intra-cluster correlation; give icc in [0, 1)")
        icc = validate.interval("icc", validate.scalar("icc", icc), 0.0, 1.0, False, True)
    elif icc is not None:
        raise ValueError(f"icc: only the oracle methods (deff.wilson_deff, deff.clopper_pearson_deff) take the "
                         f"true icc; {m.short} does not")
    d = validate.delta(validate.scalar("delta", delta))
    columns = {"k": y.sum(axis=-1), "n": s.sum(axis=-1), "deff": design_effect(s, 0.0 if icc is None else icc),
               "successes": y, "sizes": s}
    return clustered_bounds(m, columns, d, side, rng=rng, **params)


def _deff_door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for totals and a design effect (intervals.py): the oracles."""
    k, n = validate.k_and_n(*counts[:2])
    deff = validate.interval("deff", counts[2], 1.0, None, False, False)
    return m.bounds(tuple(np.broadcast_arrays(k, n, deff)), validate.delta(delta), side, **params)


# per-cluster counts (clusters on the last axis): kernels need each test set
register_kind("clustered", ("successes", "sizes"), "clustered", per_test_set=True,
              why_mc_only="reads per-cluster counts, which no design enumerates", kind="clustered", route=_door)
# totals and the true design effect: oracle intervals on the effective sample size
register_kind("deff", ("k", "n", "deff"), "oracle", kind="deff", route=_deff_door, plain=True)

_BLOCK = 1 << 21  # bootstrap random numbers drawn at once (test sets × draws × clusters)


def same_clusters(successes, sizes):
    """``(successes, sizes)`` broadcast over their leading axes (test sets) only: the clusters on the
    last axis must match one for one (broadcasting [3] against [5, 5, 5, 4] would invent clusters)."""
    y, s = np.asarray(successes), np.asarray(sizes)
    count = [a.shape[-1] if a.ndim else "a scalar" for a in (y, s)]
    if y.ndim == 0 or s.ndim == 0 or count[0] != count[1]:
        raise ValueError(f"successes, sizes: need the same number of clusters on the last axis, "
                         f"got {count[0]} and {count[1]}")
    try:
        return np.broadcast_arrays(y, s)
    except ValueError:
        raise ValueError(f"successes, sizes: leading axes (test sets) must broadcast together, "
                         f"got shapes {y.shape} and {s.shape}") from None


def _per_cluster(successes, sizes):
    y, s = same_clusters(np.asarray(successes, dtype=float), np.asarray(sizes, dtype=float))
    return y, s, y.sum(axis=-1), s.sum(axis=-1)


def anova_icc(successes, sizes):
    """ANOVA estimate of the intra-cluster correlation, one per test set (Saha et al. 2016):

        BMS = (Σ y_i²/s_i - k²/n)/(m - 1),   WMS = (k - Σ y_i²/s_i)/Σ(s_i - 1),
        s* = (n² - Σ s_i²)/((m - 1)·n),     icc = (BMS - WMS)/(BMS + (s* - 1)·WMS).

    Not truncated (it can be negative). 0 where it is undefined: every cluster of size 1
    (no within-cluster pairs) or BMS = WMS = 0 (p̂ = 0 or 1).
    """
    y, s, k, n = _per_cluster(successes, sizes)
    m = y.shape[-1]
    between = np.sum(y * y / s, axis=-1)
    within_df = np.sum(s - 1, axis=-1)
    bms = (between - k * k / n) / (m - 1)
    wms = (k - between) / np.where(within_df > 0, within_df, 1)
    s_star = (n * n - np.sum(s * s, axis=-1)) / ((m - 1) * n)
    denominator = bms + (s_star - 1) * wms
    defined = (within_df > 0) & (denominator > 0)
    return np.where(defined, (bms - wms) / np.where(defined, denominator, 1), 0.0)


def variance_inflation(successes, sizes):
    """ξ̂ = Σ s_i(1 + (s_i - 1)·icc⁺)/n = 1 + (Σ s_i²/n - 1)·icc⁺, icc⁺ = max(ANOVA icc, 0).

    A negative estimate is truncated at 0: a variance inflation below 1 would make the
    interval narrower than the i.i.d. Wilson interval. (ratesci's ``clusterpci`` does not
    truncate; both agree wherever the estimate is >= 0.)
    """
    y, s, _, n = _per_cluster(successes, sizes)
    return 1 + (np.sum(s * s, axis=-1) / n - 1) * np.maximum(anova_icc(y, s), 0.0)


def design_effect(sizes, icc):
    """1 + (Σ s_i²/n - 1)·icc: the variance of the total over its binomial variance (sizes on the last axis)."""
    s = np.asarray(sizes, dtype=float)
    return 1 + (np.sum(s * s, axis=-1) / s.sum(axis=-1) - 1) * np.asarray(icc, dtype=float)


@register("wilson_vif", display="Wilson (VIF)", takes="clustered", family="approximate", guaranteed=False,
          reference="Saha, Miller & Wang (2016); Short et al. (2020); ratesci clusterpci(skew = FALSE)")
def wilson_vif(successes, sizes, delta, rng=None):
    """Wilson interval with variance inflation ξ̂ from the ANOVA icc: Wilson with z² replaced by ξ̂·z².

    Equivalently the Wilson interval of the effective counts (k/ξ̂, n/ξ̂); ξ̂ as in
    ``variance_inflation`` (negative icc estimates truncated at 0).
    """
    _, _, k, n = _per_cluster(successes, sizes)
    xi = variance_inflation(successes, sizes)
    return wilson(k / xi, n / xi, delta)


@register("scas_vif", display="SCAS (VIF)", takes="clustered", family="approximate", guaranteed=False,
          reference="Laud (2017), Pharm. Stat. 16, 334-348, App. A.4; ratesci clusterpci(skew = TRUE)")
def scas_vif(successes, sizes, delta, rng=None):
    """Skewness-corrected score interval (SCAS) with variance inflation ξ̂: Laud's closed form.

    With c = (z² - 1)/(6nξ̂), E = 2c - 1, A = ξ̂z²/n + E², the lower end is the smaller root
    of A·θ² + (2E·D - ξ̂z²/n)·θ + D² = 0 with D = max(0, p̂ - c) (0 at k = 0); the upper end
    is 1 minus the lower end of (n - k) (1 at k = n). ξ̂ as in ``variance_inflation``.
    """
    _, _, k, n = _per_cluster(successes, sizes)
    xi = variance_inflation(successes, sizes)
    z = _z(delta)
    c = (z * z - 1) / (6 * n * xi)
    e = 2 * c - 1
    a = xi * z * z / n + e * e

    def lower_end(x):
        d = np.maximum(0.0, x / n - c)
        b = 2 * e * d - xi * z * z / n
        return (-b - np.sqrt(np.maximum(0.0, b * b - 4 * a * d * d))) / (2 * a)

    lower = np.where(k == 0, 0.0, lower_end(k))
    upper = np.where(k == n, 1.0, 1 - lower_end(n - k))
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


@register("ratio_wald", display="ratio Wald", takes="clustered", family="approximate", guaranteed=False,
          reference="Cochran (1977) ch. 6, ratio estimator; Liang & Zeger (1986) sandwich; Rao & Scott (1992)")
def ratio_wald(successes, sizes, delta, rng=None):
    """Ratio-estimator Wald interval p̂ ± z·sqrt(m/(m - 1)·Σ(y_i - p̂·s_i)²/n²), clipped to [0, 1].

    The cluster-robust (sandwich) variance of p̂ = Σy_i/Σs_i, i.e. GEE with an independence
    working correlation, with the small-sample factor m/(m - 1). Zero width when every
    cluster has the same proportion (e.g. all correct).
    """
    y, s = same_clusters(np.asarray(successes), np.asarray(sizes))  # counts stay integers: no float copies
    m = y.shape[-1]
    k, n = y.sum(axis=-1), s.sum(axis=-1)
    p_hat = k / n
    residual = p_hat[..., None] * s
    np.subtract(y, residual, out=residual)
    half = _z(delta) * np.sqrt(m / (m - 1) * np.einsum("...i,...i->...", residual, residual)) / n
    return np.clip(p_hat - half, 0.0, 1.0), np.clip(p_hat + half, 0.0, 1.0)


@register("cluster_bootstrap", display="cluster bootstrap", takes="clustered", family="approximate", guaranteed=False,
          reference="Davison & Hinkley (1997) ch. 3; Field & Welsh (2007), JRSS B 69, 369-390",
          params=(draws_param(1000, "bootstrap resamples"),))
def cluster_bootstrap(successes, sizes, delta, rng=None, draws=1000):
    """Percentile bootstrap over clusters: (delta/2, 1 - delta/2) quantiles of Σy*/Σs* over ``draws`` resamples.

    Each resample draws m clusters with replacement, test set by test set, resample by resample,
    from ``rng`` (``cluster_resampling.resampled_totals``: the multiplicities of the distinct
    clusters where they repeat, else index ⌊u·m⌋ of u ~ U[0, 1)); quantiles interpolate linearly
    (numpy's default). Resamples are drawn in blocks of bounded memory (the same numbers as at
    once); draws × m at most ``validate.RESAMPLE_WORK_MAX``.
    """
    from .cluster_resampling import resampled_totals

    y, s = same_clusters(np.asarray(successes, dtype=float), np.asarray(sizes, dtype=float))
    shape, m = y.shape[:-1], y.shape[-1]
    validate.resample_work("draws", draws, m, "clusters")
    rng = np.random.default_rng() if rng is None else rng
    q = np.asarray(delta, dtype=float) / 2
    lower, upper = np.empty(int(np.prod(shape))), np.empty(int(np.prod(shape)))
    for rows, totals in resampled_totals(np.stack([y, s], axis=-1).reshape(-1, m, 2), draws, rng, _BLOCK):
        estimate = totals[..., 0] / totals[..., 1]
        lower[rows] = row_quantiles(estimate, np.broadcast_to(q, len(estimate)))
        upper[rows] = row_quantiles(estimate, np.broadcast_to(1 - q, len(estimate)))
    return lower.reshape(shape), upper.reshape(shape)


@register("wilson_deff", display="Wilson (true deff)", takes="deff", family="approximate", guaranteed=False,
          reference="Kish (1965) design effect; Wilson (1927); oracle: the true icc")
def wilson_deff(k, n, deff, delta):
    """Oracle: the Wilson interval of the effective counts (k/deff, n/deff), deff from the true icc."""
    k, n, deff = (np.asarray(v, dtype=float) for v in (k, n, deff))
    return wilson(k / deff, n / deff, delta)


@register("clopper_pearson_deff", display="Clopper–Pearson (true deff)", takes="deff", family="approximate", guaranteed=False,
          reference="Kish (1965) design effect; Clopper & Pearson (1934); oracle: the true icc")
def clopper_pearson_deff(k, n, deff, delta):
    """Oracle: the Clopper-Pearson interval of the effective counts k' = k/deff, n' = n/deff.

    [B(delta/2; k', n' - k' + 1), B(1 - delta/2; k' + 1, n' - k')] with B the Beta quantile
    (non-integer counts allowed); lower = 0 at k = 0, upper = 1 at k = n.
    """
    k, n, deff = (np.asarray(v, dtype=float) for v in (k, n, deff))
    k_eff, n_eff = k / deff, n / deff
    q = np.asarray(delta, dtype=float) / 2
    lower = np.where(k == 0, 0.0, special.betaincinv(np.where(k == 0, 1, k_eff), n_eff - k_eff + 1, q))
    upper = np.where(k == n, 1.0, 1 - special.betaincinv(np.where(k == n, 1, n_eff - k_eff), k_eff + 1, q))
    return lower, upper


def clustered_bounds(method, columns: dict, delta, side: str = "two-sided", rng=None, **params):
    """``method``'s interval from clustered ``columns`` (k, n, deff; successes, sizes) as its kind takes them.

    One-sided bounds exist for the proportion methods only (``Method.sides``, checked before)."""
    if method.takes == "proportion":
        return method.bounds((columns["k"], columns["n"]), delta, side, **params)
    if method.takes == "deff":
        return method.bounds((columns["k"], columns["n"], columns["deff"]), delta, side, **params)
    return method.bounds((columns["successes"], columns["sizes"]), delta, side, rng=rng, **params)
