"""Calibration: intervals for a reliability diagram's bins, bands over all bins, the ECE, and tests.

A test set is scores s_i in [0, 1] and labels y_i in {0, 1}, binned by edges e_0 = 0 < ... < e_B = 1
(a score on an edge in the lower bin, as scikit-learn's ``calibration_curve``); per bin j the count
m_j, the positives k_j and the scores' sum S_j. Every function takes test sets as rows (2-d arrays,
one row per test set) unless it says otherwise.

* **Per bin** (the true frequency f_j = E[y | s in bin j]): any proportion method on (k_j, m_j)
  (Wilson, Clopper–Pearson, Jeffreys: methods/binomial.py), or ``bin_bootstrap``, the percentile
  bootstrap of the bin's frequency given its count, whose resampling law Binomial(m, k/m)/m is
  known, so its quantiles are exact (no draws); it has width 0 when k = 0 or k = m (scikit-learn
  issue 30664). An empty bin gets [0, 1].
* **The whole curve**: ``band`` gives every bin the per-bin interval at an adjusted level,
  Bonferroni δ/B or Šidák 1 - (1 - δ)^{1/B}. Given the bin counts the bins' labels are
  independent, so with a method whose conditional coverage is at least 1 - δ' for every f
  (Clopper–Pearson) Šidák's band holds the whole curve with probability at least 1 - δ: the
  honest simultaneous choice here. Sison & Glaz (1995) intervals are for the cell probabilities
  of one multinomial (here the bins' masses w_j), not for the frequencies within bins, so they
  do not apply to a reliability diagram.
* **ECE** (binned, L1: Σ_j (m_j/n)·|k_j/m_j - S_j/m_j| = (1/n)·Σ_j |k_j - S_j|, Naeini, Cooper
  & Hauskrecht 2015, "Obtaining well calibrated probabilities using Bayesian binning"): the
  registered kind ``ece`` (prefix ``ece_``), kernels ``(scores, labels, delta, rng, edges=...,
  draws=...) -> (lower, upper)`` over rows: ``ece.plugin`` (the plug-in with a percentile
  bootstrap of the examples) and ``ece.debiased`` (Kumar, Liang & Ma 2019, "Verified uncertainty
  calibration": 2·plug-in minus the plug-in's expectation when each bin's frequency is
  redrawn from N(ȳ_j, ȳ_j(1 - ȳ_j)/m_j), here in closed form, the folded normal's mean, instead
  of their Monte Carlo average; its interval the bootstrap distribution of the debiased estimate
  recentred on it, floored at 0). Resamples are drawn in blocks of whole draws (``resampled_bin_stats``:
  memory never draws × n), or by (bin, label) cells in O(draws·B) (``cell_resampled_bin_stats``, the
  same law but for a normal score sum in cells of many distinct scores).
* **Tests of perfect calibration**: ``hosmer_lemeshow`` (Hosmer & Lemeshow 1980, "Goodness of fit
  tests for the multiple logistic regression model", Communications in Statistics A 9; with the
  scores given, not fitted to this test set, the statistic is referred to χ² on the number of
  non-empty groups, the external-validation form) and ``spiegelhalter_z`` (Spiegelhalter 1986,
  "Probabilistic prediction in patient management and clinical trials", Statistics in Medicine 5).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .. import validate
from .._lazy import stats
from .registry import draws_param, get, register, register_kind


def _no_door(m, est, counts, delta, side, rng, params, icc):
    raise ValueError(f"method: {m.qualified} is a calibration error interval over a test set's scores and labels; "
                     "call it from covstudy.methods.calibration or run the calibration study")


register_kind("calibration", ("scores", "labels"), "calibration error", per_test_set=True, kind="ece", prefix="ece_",
              why_mc_only="takes a test set's scores, which cannot be enumerated", route=_no_door, interval=False)


# --------------------------------------------------------------------------- binning

def bin_index(scores, edges) -> np.ndarray:
    """The 0-based bin of each score (searchsorted on the inner edges: a score on an edge goes to the lower bin)."""
    return np.searchsorted(np.asarray(edges)[1:-1], scores)


def bin_stats(scores, labels, edges) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(m, k, S), each (rows, B): per bin the count, the positives and the sum of the scores."""
    scores, labels = validate.test_sets(scores, labels)
    edges = validate.bin_edges(edges)
    rows, B = scores.shape[0], len(edges) - 1
    key = (np.arange(rows)[:, None] * B + bin_index(scores, edges)).ravel()
    shape = (rows, B)
    m = np.bincount(key, minlength=rows * B).reshape(shape)
    k = np.bincount(key, weights=labels.ravel(), minlength=rows * B).reshape(shape)
    S = np.bincount(key, weights=scores.ravel(), minlength=rows * B).reshape(shape)
    return m, np.rint(k).astype(np.int64), S


# --------------------------------------------------------------------------- per bin and the whole curve

def bin_bootstrap(k, m, delta):
    """The percentile bootstrap of k/m given m, with infinitely many resamples: the δ/2 and 1 - δ/2
    quantiles of Binomial(m, k/m)/m (m >= 1)."""
    k, m = np.asarray(k, dtype=float), np.asarray(m, dtype=float)
    p = k / m
    return stats.binom.ppf(delta / 2, m, p) / m, stats.binom.ppf(1 - delta / 2, m, p) / m


ADJUSTMENTS = {  # the per-bin miss rate of a band over B bins at overall miss rate delta
    "none": lambda delta, B: delta,
    "bonferroni": lambda delta, B: delta / B,
    "sidak": lambda delta, B: -np.expm1(np.log1p(-delta) / B),
}


def bin_intervals(method: str, k, m, delta):
    """Per-bin intervals (arrays like k) of ``method`` (``bootstrap`` or a proportion method's name);
    [0, 1] for an empty bin."""
    k, m = np.asarray(k), np.asarray(m)
    empty = m == 0
    counts = (np.where(empty, 0, k), np.where(empty, 1, m))
    if method == "bootstrap":
        lower, upper = bin_bootstrap(*counts, delta)
    else:
        lower, upper = get(method, "proportion").bounds(counts, delta, "two-sided")
    return np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)


def band(method: str, k, m, delta, adjust: str = "sidak"):
    """A band over the B bins (the last axis): every bin's interval at ADJUSTMENTS[adjust](delta, B)."""
    return bin_intervals(method, k, m, ADJUSTMENTS[adjust](delta, np.shape(k)[-1]))


# --------------------------------------------------------------------------- ECE

def plugin_ece(m, k, S):
    """(1/n)·Σ_j |k_j - S_j|: the binned L1 ECE of the test set, over the last axis."""
    m, k, S = np.asarray(m), np.asarray(k), np.asarray(S)
    return np.abs(k - S).sum(axis=-1) / m.sum(axis=-1)


def folded_normal_mean(mu, sigma):
    """E|X| for X ~ N(mu, sigma²): sigma·sqrt(2/π)·exp(-mu²/2sigma²) + mu·(1 - 2Φ(-mu/sigma)); |mu| at sigma = 0."""
    mu, sigma = np.asarray(mu, dtype=float), np.asarray(sigma, dtype=float)
    safe = np.where(sigma > 0, sigma, 1.0)
    value = safe * np.sqrt(2 / np.pi) * np.exp(-0.5 * (mu / safe) ** 2) + mu * (1 - 2 * special.ndtr(-mu / safe))
    return np.where(sigma > 0, value, np.abs(mu))


def debiased_ece(m, k, S):
    """Kumar, Liang & Ma's (2019) debiased ECE: Σ_j (m_j/n)·(2|d_j| - E|N(d_j, ȳ_j(1 - ȳ_j)/m_j)|), with
    d_j = ȳ_j - s̄_j, over the last axis (empty bins add 0)."""
    m, k, S = (np.asarray(x, dtype=float) for x in (m, k, S))
    safe = np.maximum(m, 1)
    y, s = k / safe, S / safe
    d = y - s
    sigma = np.sqrt(y * (1 - y) / safe)
    per_bin = np.where(m > 0, m * (2 * np.abs(d) - folded_normal_mean(d, sigma)), 0.0)
    return per_bin.sum(axis=-1) / m.sum(axis=-1)


RESAMPLE_BLOCK = 1 << 21  # resampled examples held at once (whole draws; one draw where n is larger): ~80 MB
DISTINCT = 64  # a cell with at most this many distinct scores is resampled exactly by its values' multiplicities


def resampled_bin_stats(scores, labels, edges, draws: int, rng: np.random.Generator, block: int = RESAMPLE_BLOCK):
    """(m*, k*, S*), each (draws, B): the bin statistics of ``draws`` bootstrap resamples of one test set
    (1-d scores and labels; n examples drawn with replacement, the indices ``rng.integers(0, n, (draws, n))``).

    In blocks of whole draws, at most ``block`` indices (one draw where n is larger), so memory is
    O(block + n + draws·B), never draws × n. The numbers do not depend on the block: split calls of
    ``integers`` continue one stream, and a draw's sums are added in the same order."""
    scores, labels = (x[0] for x in validate.test_sets(scores, labels))
    edges = validate.bin_edges(edges)
    draws = validate.whole("draws", draws, 1, validate.DRAWS_MAX)
    n, B = scores.size, len(edges) - 1
    bins = bin_index(scores, edges)
    m, k, S = np.empty((draws, B), dtype=np.int64), np.empty((draws, B)), np.empty((draws, B))
    step = max(1, block // max(n, 1))
    for d in range(0, draws, step):
        c = min(step, draws - d)
        pick = rng.integers(0, n, size=(c, n))
        key = (np.arange(c)[:, None] * B + bins[pick]).ravel()
        m[d:d + c] = np.bincount(key, minlength=c * B).reshape(c, B)
        k[d:d + c] = np.bincount(key, weights=labels[pick].ravel(), minlength=c * B).reshape(c, B)
        S[d:d + c] = np.bincount(key, weights=scores[pick].ravel(), minlength=c * B).reshape(c, B)
    return m, k, S


def cell_resampled_bin_stats(scores, labels, edges, draws: int, rng: np.random.Generator):
    """(m*, k*, S*), each (draws, B): ``draws`` bootstrap resamples of one test set drawn by cells, in
    O(draws·B·DISTINCT) rather than O(draws·n) time and memory.

    The n examples fall into 2B cells (bin j, label y) of N_c examples. A resample's counts per cell are
    Multinomial(n, N_c/n), exactly the law n indices drawn with replacement give; then k*_j is the count of
    cell (j, 1) and m*_j the sum of both. Given its count c, a cell's score sum is the sum of c draws with
    replacement from its scores: drawn exactly, as Multinomial(c, the shares of its distinct scores) times
    those scores, where the cell holds at most DISTINCT distinct scores (ties, exact 0 and 1, any cell of
    at most DISTINCT examples); otherwise from N(c·μ_c, c·σ_c²), the sum's exact mean and variance
    (μ_c, σ_c² the cell's mean and population variance; the central limit theorem over c, about N_c >
    DISTINCT, draws), clipped to [c·min, c·max]. ``bin_bootstrap`` is the same idea for one bin's frequency."""
    scores, labels = (x[0] for x in validate.test_sets(scores, labels))
    edges = validate.bin_edges(edges)
    draws = validate.whole("draws", draws, 1, validate.DRAWS_MAX)
    n, B = scores.size, len(edges) - 1
    cell = (2 * bin_index(scores, edges) + (labels > 0.5)).astype(np.int32 if 2 * B >= 2**15 else np.int16)
    order = np.argsort(cell, kind="stable")  # a radix sort for 16-bit keys: O(n)
    sizes = np.bincount(cell, minlength=2 * B)
    counts = rng.multinomial(n, sizes / n, size=draws)  # (draws, 2B)
    sums = np.zeros((draws, 2 * B))
    for c, part in enumerate(np.split(scores[order], np.cumsum(sizes)[:-1])):
        if part.size == 0:
            continue
        values, mult = _few_distinct(part)
        if values is not None:
            sums[:, c] = rng.multinomial(counts[:, c], mult / part.size) @ values
        else:
            mu, sd = part.mean(), part.std()
            drawn = rng.normal(counts[:, c] * mu, np.sqrt(counts[:, c]) * sd)
            sums[:, c] = np.clip(drawn, counts[:, c] * part.min(), counts[:, c] * part.max())
    counts = counts.reshape(draws, B, 2)
    return counts.sum(axis=-1), counts[..., 1].astype(float), sums.reshape(draws, B, 2).sum(axis=-1)


def _few_distinct(x):
    """(distinct values, their counts) of ``x`` if it has at most DISTINCT of them, else (None, None); a first
    look at 4·DISTINCT values spares the full sort of a column of continuous scores."""
    if np.unique(x[:4 * DISTINCT]).size > DISTINCT:
        return None, None
    values, mult = np.unique(x, return_counts=True)
    return (values, mult) if values.size <= DISTINCT else (None, None)


def _quantiles(x, delta):
    return np.quantile(x, delta / 2, axis=-1), np.quantile(x, 1 - delta / 2, axis=-1)


def _rows(kernel):
    """Run a one-test-set ECE computation over the rows of (scores, labels)."""
    def over_rows(scores, labels, delta, rng=None, *, edges, draws=500):
        scores, labels = validate.test_sets(scores, labels)
        edges = validate.bin_edges(edges)
        delta = float(validate.delta(validate.scalar("delta", delta)))
        draws = validate.whole("draws", draws, 1, validate.DRAWS_MAX)
        validate.resample_work("draws", draws, scores.shape[-1], "examples")
        rng = rng if rng is not None else np.random.default_rng(0)
        out = np.array([kernel(s, y, delta, rng, edges, draws) for s, y in zip(scores, labels)]).reshape(-1, 2)
        return out[:, 0], out[:, 1]
    over_rows.__doc__ = kernel.__doc__
    over_rows.__name__ = kernel.__name__
    return over_rows


DRAWS = draws_param(500, "bootstrap resamples of the test set")


def plugin_interval(observed, resampled, delta):
    """The plug-in's percentile interval from the resamples' bin statistics (m*, k*, S*), each (draws, B)."""
    return _quantiles(plugin_ece(*resampled), delta)


def debiased_interval(observed, resampled, delta):
    """The debiased ECE's bootstrap distribution recentred on the estimate (from the observed (m, k, S)), floored at 0."""
    estimate = debiased_ece(*observed)
    boot = debiased_ece(*resampled)
    lower, upper = _quantiles(boot - boot.mean() + estimate, delta)
    return max(lower, 0.0), max(upper, 0.0)


# The binned ECE intervals from one test set's bin statistics and its resamples' (the kernels below, and the
# audit of covstudy-evaluate's rows, which shares one set of resamples between them).
BINNED_INTERVALS = {"plugin": plugin_interval, "debiased": debiased_interval}


@register("ece_plugin", takes="calibration", family="approximate", guaranteed=False, params=(DRAWS,),
          reference="Naeini, Cooper & Hauskrecht (2015); percentile bootstrap (Efron & Tibshirani 1993)",
          display="plug-in ECE, percentile bootstrap")
@_rows
def ece_plugin(scores, labels, delta, rng, edges, draws):
    """Plug-in binned ECE with the percentile bootstrap of the examples."""
    return plugin_interval(None, resampled_bin_stats(scores, labels, edges, draws, rng), delta)


@register("ece_debiased", takes="calibration", family="approximate", guaranteed=False, params=(DRAWS,),
          reference="Kumar, Liang & Ma (2019), Verified uncertainty calibration (the debiased estimator)",
          display="debiased ECE, recentred bootstrap")
@_rows
def ece_debiased(scores, labels, delta, rng, edges, draws):
    """Debiased binned ECE with its bootstrap distribution recentred on the estimate, floored at 0."""
    observed = tuple(x[0] for x in bin_stats(scores, labels, edges))
    return debiased_interval(observed, resampled_bin_stats(scores, labels, edges, draws, rng), delta)


# Each ECE method's point estimate over rows, from (scores, labels, edges), and the estimands its interval is
# for (the calibration study's targets); methods/smooth_ece.py adds its own.
ESTIMATES = {"plugin": lambda s, y, edges: plugin_ece(*bin_stats(s, y, edges)),
             "debiased": lambda s, y, edges: debiased_ece(*bin_stats(s, y, edges))}
TARGETS = {"plugin": ("ece", "ece_unbinned"), "debiased": ("ece", "ece_unbinned")}


# --------------------------------------------------------------------------- tests of perfect calibration

def hosmer_lemeshow(scores, labels, edges) -> tuple[np.ndarray, np.ndarray]:
    """(H, p): H = Σ_g (O_g - E_g)²/(E_g(1 - E_g/n_g)) over the groups (bins) with E_g(1 - E_g/n_g) > 0,
    O_g the positives and E_g the scores' sum of group g; p from χ² on that many groups (rows)."""
    m, k, S = bin_stats(scores, labels, edges)
    var = S * (1 - S / np.maximum(m, 1))
    used = (m > 0) & (var > 0)
    H = np.where(used, (k - S) ** 2 / np.where(used, var, 1.0), 0.0).sum(axis=-1)
    return H, stats.chi2.sf(H, used.sum(axis=-1))


def spiegelhalter_z(scores, labels) -> tuple[np.ndarray, np.ndarray]:
    """(Z, p): Z = Σ(y - s)(1 - 2s)/sqrt(Σ(1 - 2s)²s(1 - s)) over each row, two-sided p = 2Φ(-|Z|)."""
    s, y = validate.test_sets(scores, labels)
    Z = ((y - s) * (1 - 2 * s)).sum(axis=-1) / np.sqrt(((1 - 2 * s) ** 2 * s * (1 - s)).sum(axis=-1))
    return Z, 2 * special.ndtr(-np.abs(Z))


TESTS = {"hosmer_lemeshow": lambda s, y, edges: hosmer_lemeshow(s, y, edges)[1],
         "spiegelhalter": lambda s, y, edges: spiegelhalter_z(s, y)[1]}
