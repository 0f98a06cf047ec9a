"""Confidence bands for a test set's ROC and precision–recall curves (two kinds of method).

A band kernel maps ``(scores_pos, scores_neg, delta, rng=None, grid=..., **params)`` to
``(lower, upper)``, arrays over ``grid``: FPR values in (0, 1) for a ROC band (``roc_band``),
recall values in (0, 1] for a PR band (``pr_band``); one test set (1-d scores) per call, a
higher score meaning "more likely positive". The public doors are ``covstudy.roc_band`` and
``covstudy.pr_band`` (bands/coverage.py), which validate; kernels never do.

The empirical ROC curve (as pROC's ``coords(..., input = "specificity")``): with the pooled
scores' distinct values v_1 > ... > v_K, the vertices after the first k of them are
(FPR_k, TPR_k) = (#{negatives >= v_k}/n, #{positives >= v_k}/m), k = 0..K, joined by
segments (ties between the classes give diagonal ones). At a given FPR t, R̂(t) is the
segment's height at t between the last vertex with FPR <= t and the next one; where several
vertices share FPR = t, the highest. The same computation serves a stratified bootstrap
resample as weights (how often each example is drawn), so a test set is sorted once.

Pointwise bands hold R(t) at each t with probability about 1 - delta; simultaneous bands
(``working_hotelling``, ``ks``, ``fixed_width``, ``sup_t``) aim to hold the whole curve on
the grid at once.

Long because the ROC and PR bands (two kinds, 13 methods) share one machinery: the sorted test
set, the empirical curves at a grid, the weighted bootstrap resamples and the binormal fits.
Split by curve, the shared part would be a third module and the registration order of the
methods and kinds (listings, error messages) would follow file names instead of this file.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special

from .._lazy import stats
from .auc import _resample_blocks
from .binomial import clopper_pearson, jeffreys, wilson
from .registry import draws_param, register, register_kind


def _no_door(m, est, counts, delta, side, rng, params, icc):
    raise ValueError(f"method: {m.qualified} is a band, not an interval; call covstudy.{m.kind}"
                     f"({m.short!r}, scores_pos, scores_neg, delta=...)")


register_kind("roc_band", ("scores_pos", "scores_neg"), "ROC band", per_test_set=True, kind="roc_band",
              prefix="roc_band_", why_mc_only="takes a test set's scores, which cannot be enumerated",
              route=_no_door, interval=False)
register_kind("pr_band", ("scores_pos", "scores_neg"), "PR band", per_test_set=True, kind="pr_band",
              prefix="pr_band_", why_mc_only="takes a test set's scores, which cannot be enumerated",
              route=_no_door, interval=False)

# Bands for the latent binormal curve: on rating data (levels) they are scored against it, not against
# the polyline through the operating points the other bands estimate (both agree at those points).
LATENT_TARGET = frozenset({"roc_band_working_hotelling"})
FPR_GRID = np.round(np.arange(1, 20) / 20, 2)  # 0.05, 0.10, ..., 0.95: the default ROC grid
RECALL_GRID = np.round(np.arange(1, 20) / 20, 2)  # the default PR grid
_EPS = 1e-9  # count comparisons t·n against whole numbers


# --------------------------------------------------------------------------- the empirical curves

class Sorted:
    """One test set sorted once: its pooled scores in decreasing order, which are positives,
    and the last position of each group of tied scores (vertices sit only there)."""

    def __init__(self, scores_pos, scores_neg):
        pos, neg = np.asarray(scores_pos, dtype=float), np.asarray(scores_neg, dtype=float)
        self.m, self.n = pos.size, neg.size
        values = np.concatenate([pos, neg])
        self.order = np.argsort(-values, kind="stable")
        v = values[self.order]
        self.is_pos = self.order < self.m
        ends = np.r_[v[1:] != v[:-1], True]
        # every position takes its tie group's last position: repeated vertices leave the segments unchanged
        idx = np.where(ends, np.arange(v.size), v.size)
        self.group_end = np.minimum.accumulate(idx[::-1])[::-1]

    def vertices(self, weights_pos=None, weights_neg=None) -> tuple[np.ndarray, np.ndarray]:
        """(P, Q): positives' and negatives' counts above each vertex, shape (rows, m + n + 1),
        with (bootstrap) weights of shape (rows, m) and (rows, n); one row without."""
        if weights_pos is None:
            w = np.ones((1, self.m + self.n))
        else:
            w = np.concatenate([weights_pos, weights_neg], axis=1)[:, self.order]
        p = np.cumsum(w * self.is_pos, axis=1)[:, self.group_end]
        q = np.cumsum(w * ~self.is_pos, axis=1)[:, self.group_end]
        zero = np.zeros((w.shape[0], 1))
        return np.concatenate([zero, p], axis=1), np.concatenate([zero, q], axis=1)


def _last_at_most(q, x):
    """Per row, the index of the last column of ``q`` (non-decreasing rows) with q <= x (-1 if none);
    x broadcast over rows, shape (G,)."""
    rows, cols = q.shape
    span = np.max(q) + np.max(np.abs(x)) + 2.0
    flat = (q + span * np.arange(rows)[:, None]).ravel()
    at = np.searchsorted(flat, (x[None, :] + span * np.arange(rows)[:, None]).ravel(), side="right")
    return at.reshape(rows, -1) - 1 - cols * np.arange(rows)[:, None]


def roc_at(p, q, m, n, fpr) -> np.ndarray:
    """R̂(t) for each row of vertices (P, Q) (``Sorted.vertices``) at FPR values ``fpr`` in (0, 1):
    shape (rows, G)."""
    k = _last_at_most(q, np.asarray(fpr) * n + _EPS)
    k = np.minimum(k, q.shape[1] - 2)  # t < 1: a later vertex exists (Q_K = n)
    q0, q1 = np.take_along_axis(q, k, 1), np.take_along_axis(q, k + 1, 1)
    p0, p1 = np.take_along_axis(p, k, 1), np.take_along_axis(p, k + 1, 1)
    tn = np.asarray(fpr) * n
    share = np.where(q1 > q0, (tn - q0) / np.where(q1 > q0, q1 - q0, 1.0), 0.0)
    return np.clip((p0 + np.clip(share, 0.0, 1.0) * (p1 - p0)) / m, 0.0, 1.0)


def empirical_roc(scores_pos, scores_neg, fpr=FPR_GRID) -> np.ndarray:
    """The empirical ROC curve R̂(t) at ``fpr`` (module docstring)."""
    s = Sorted(scores_pos, scores_neg)
    p, q = s.vertices()
    return roc_at(p, q, s.m, s.n, np.asarray(fpr, dtype=float))[0]


def precision_at(p, q, m, recall) -> np.ndarray:
    """Precision at the first vertex whose recall reaches each of ``recall`` (the highest threshold
    with TPR >= r), for each row of vertices: shape (rows, G); 1 where no example is above."""
    k = _last_at_most(p, np.asarray(recall) * m - _EPS) + 1  # first column with P >= r·m
    pk, qk = np.take_along_axis(p, k, 1), np.take_along_axis(q, k, 1)
    return np.where(pk + qk > 0, pk / np.where(pk + qk > 0, pk + qk, 1.0), 1.0)


def empirical_pr(scores_pos, scores_neg, recall=RECALL_GRID) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(precision, true positives, predicted positives) at each recall of ``recall``."""
    s = Sorted(scores_pos, scores_neg)
    p, q = s.vertices()
    recall = np.asarray(recall, dtype=float)
    k = _last_at_most(p, recall * s.m - _EPS) + 1
    tp, fp = np.take_along_axis(p, k, 1)[0], np.take_along_axis(q, k, 1)[0]
    return precision_at(p, q, s.m, recall)[0], tp, tp + fp


def _weights(idx):
    """Bootstrap weights from indices (rows × size): how often each example is drawn, a row each."""
    rows, size = idx.shape
    return np.bincount((idx + size * np.arange(rows)[:, None]).ravel(), minlength=idx.size).reshape(rows, size)


_CURVES: dict = {}  # the last few bootstrap_curves results, by their inputs and the generator's state
_CURVES_KEPT = 8


def bootstrap_curves(scores_pos, scores_neg, grid, rng, draws, curve="roc") -> tuple[np.ndarray, np.ndarray]:
    """(the test set's curve at ``grid``, ``draws`` stratified bootstrap curves (draws, G)): positives
    and negatives resampled with replacement within their class (pROC's ``boot.stratified``).

    Remembered for the last few calls by (scores, grid, draws, curve, the generator's state), and
    the generator left in the state the draws leave it: band methods built on the same resamples
    (``bootstrap``, ``fixed_width``, ``sup_t`` given generators in the same state) compute them once."""
    key = (np.asarray(scores_pos).tobytes(), np.asarray(scores_neg).tobytes(), np.asarray(grid).tobytes(),
           int(draws), curve, str(rng.bit_generator.state))
    if key in _CURVES:
        centre, curves, state = _CURVES[key]
        rng.bit_generator.state = state
        return centre, curves
    centre, curves = _bootstrap_curves(scores_pos, scores_neg, grid, rng, draws, curve)
    _CURVES[key] = (centre, curves, rng.bit_generator.state)
    while len(_CURVES) > _CURVES_KEPT:
        _CURVES.pop(next(iter(_CURVES)))
    return centre, curves


def _bootstrap_curves(scores_pos, scores_neg, grid, rng, draws, curve):
    s = Sorted(scores_pos, scores_neg)
    at = (lambda p, q: roc_at(p, q, s.m, s.n, grid)) if curve == "roc" else (lambda p, q: precision_at(p, q, s.m, grid))
    curves = np.empty((draws, np.size(grid)))
    for rows, jp, jn in _resample_blocks(rng, draws, s.m, s.n):  # the positives' weights, then the negatives'
        curves[rows] = at(*s.vertices(_weights(jp), _weights(jn)))
    return at(*s.vertices())[0], curves


# --------------------------------------------------------------------------- ROC bands: pointwise

def _binomial(interval, scores_pos, scores_neg, delta, fpr):
    m = np.size(scores_pos)
    return interval(m * empirical_roc(scores_pos, scores_neg, fpr), m, delta)


_BINOMIAL_DOC = ("At each t the interval for a proportion of k = m·R̂(t) successes in m, m the positives (k is "
                 "fractional on a tie segment); the threshold is taken as known, so its own variability is ignored.")


@register("roc_band_wilson", display="Wilson (pointwise)", takes="roc_band", family="approximate", guaranteed=False,
          reference="Wilson (1927), JASA 22, 209-212; at the empirical threshold, e.g. Pepe (2003), sec. 5.2")
def roc_band_wilson(scores_pos, scores_neg, delta, rng=None, grid=FPR_GRID):
    """Pointwise Wilson interval for TPR at each FPR of the grid, at the empirical threshold."""
    return _binomial(wilson, scores_pos, scores_neg, delta, grid)


@register("roc_band_clopper_pearson", display="Clopper–Pearson (pointwise)", takes="roc_band", family="exact",
          guaranteed=False, reference="Clopper & Pearson (1934), Biometrika 26, 404-413; at the empirical threshold")
def roc_band_clopper_pearson(scores_pos, scores_neg, delta, rng=None, grid=FPR_GRID):
    """Pointwise Clopper–Pearson interval for TPR at each FPR of the grid, at the empirical threshold."""
    return _binomial(clopper_pearson, scores_pos, scores_neg, delta, grid)


@register("roc_band_jeffreys", display="Jeffreys (pointwise)", takes="roc_band", family="bayesian",
          guaranteed=False, reference="Brown, Cai & DasGupta (2001), Stat Sci 16, 101-133; at the empirical threshold")
def roc_band_jeffreys(scores_pos, scores_neg, delta, rng=None, grid=FPR_GRID):
    """Pointwise Jeffreys interval for TPR at each FPR of the grid, at the empirical threshold."""
    return _binomial(jeffreys, scores_pos, scores_neg, delta, grid)


for _k in (roc_band_wilson, roc_band_clopper_pearson, roc_band_jeffreys):
    _k.__doc__ = _k.__doc__.strip() + "\n\n" + _BINOMIAL_DOC

DRAWS = draws_param(1000, "bootstrap resamples (stratified: within each class)")


@register("roc_band_bootstrap", display="bootstrap (pointwise, pROC ci.se)", takes="roc_band",
          family="approximate", guaranteed=False, params=(DRAWS,),
          reference="Robin et al. (2011), BMC Bioinformatics 12, 77 (pROC ci.se, boot.stratified = TRUE)")
def roc_band_bootstrap(scores_pos, scores_neg, delta, rng=None, grid=FPR_GRID, draws=1000):
    """Pointwise stratified percentile bootstrap of R̂(t): the delta/2 and 1 - delta/2 quantiles (pROC's ``ci.se``).

    Quantiles as R's default (type 7, numpy's "linear").
    """
    _, curves = bootstrap_curves(scores_pos, scores_neg, np.asarray(grid, float), rng, draws)
    return np.quantile(curves, delta / 2, axis=0), np.quantile(curves, 1 - delta / 2, axis=0)


def _vertex_tpr(scores_pos, scores_neg):
    s = Sorted(scores_pos, scores_neg)
    p, q = s.vertices()
    return p[0], q[0], s.m, s.n


def polyline(x, y, t, low=False) -> np.ndarray:
    """The polyline through the points (x_k, y_k) (both non-decreasing in k) at ``t``: where it is
    vertical at t, its highest point (its lowest with ``low``); y_0 left of x_0, y_K right of x_K."""
    x, y, t = np.asarray(x, float), np.asarray(y, float), np.asarray(t, float)
    if low:  # the mirror image: the highest point of the reversed polyline in -x
        return -polyline(-x[::-1], -y[::-1], -t)
    k = np.searchsorted(x, t + _EPS, side="right") - 1
    inside = (k >= 0) & (k < x.size - 1)
    k0 = np.clip(k, 0, x.size - 2)
    x0, x1, y0, y1 = x[k0], x[k0 + 1], y[k0], y[k0 + 1]
    share = np.clip(np.where(x1 > x0, (t - x0) / np.where(x1 > x0, x1 - x0, 1.0), 0.0), 0.0, 1.0)
    value = y0 + share * (y1 - y0)
    return np.where(inside, value, np.where(k < 0, y[0], y[-1]))


@register("roc_band_credible", display="credible hull (pointwise)", takes="roc_band", family="bayesian",
          guaranteed=False, reference="the credible package (Anjos et al., 'ROC and Precision Recall Curves', "
                                      "credible.readthedocs.io): per-threshold Beta intervals 'in all four directions'")
def roc_band_credible(scores_pos, scores_neg, delta, rng=None, grid=FPR_GRID):
    """Hull of per-threshold Jeffreys Beta intervals in both directions: the upper curve joins the points
    (FPR_lo, TPR_hi) of every threshold, the lower one the points (FPR_hi, TPR_lo).

    At each vertex (FP, TP), FPR ∈ Beta(FP + ½, n - FP + ½) and TPR ∈ Beta(TP + ½, m - TP + ½)
    equal-tailed 1 - delta intervals (Jeffreys, boundary-modified as ``proportion.jeffreys``:
    0 at a count of 0, 1 at a full count); each curve is the polyline through its corner points
    (up and to the left for the upper one, down and to the right for the lower one).
    """
    p, q, m, n = _vertex_tpr(scores_pos, scores_neg)
    fpr_lo, fpr_hi = jeffreys(q, n, delta)
    tpr_lo, tpr_hi = jeffreys(p, m, delta)
    return polyline(fpr_hi, tpr_lo, grid, low=True), polyline(fpr_lo, tpr_hi, grid)


# --------------------------------------------------------------------------- ROC bands: simultaneous

def binormal_fit(scores_pos, scores_neg) -> tuple[float, float, np.ndarray]:
    """(a, b, covariance of (a, b)): the binormal ROC probit(TPR) = a + b·probit(FPR) from the classes'
    normal moments, a = (x̄ - ȳ)/s_x, b = s_y/s_x, with the delta-method covariance under normality

        Var a = 1/m + b²/n + a²/(2(m - 1)),  Var b = b²/(2(m - 1)) + b²/(2(n - 1)),  Cov = ab/(2(m - 1))

    (Var s ≈ σ²/(2(size - 1)); x̄ - ȳ independent of the standard deviations); NaN where a class's
    scores are all tied."""
    x, y = np.asarray(scores_pos, float), np.asarray(scores_neg, float)
    m, n = x.size, y.size
    sx, sy = np.std(x, ddof=1), np.std(y, ddof=1)
    if sx == 0 or sy == 0:  # a class all tied: no binormal curve fits
        return np.nan, np.nan, np.full((2, 2), np.nan)
    a, b = (np.mean(x) - np.mean(y)) / sx, sy / sx
    va = 1 / m + b * b / n + a * a / (2 * (m - 1))
    vb = b * b / (2 * (m - 1)) + b * b / (2 * (n - 1))
    cov = a * b / (2 * (m - 1))
    return float(a), float(b), np.array([[va, cov], [cov, vb]])


_ROOT_2PI = np.sqrt(2 * np.pi)
RATING_CATEGORIES_MAX = 20  # at most this many distinct scores: rating data, fitted as grouped (Dorfman–Alf)


# measured on 300 simulated rating sets: finite maxima's information has cond <= 2.5e3; runaway paths pass 1e10
_INFORMATION_COND_MAX = 1e10


def binormal_fit_grouped(scores_pos, scores_neg, iterations: int = 50) -> tuple[float, float, np.ndarray]:
    """(a, b, covariance of (a, b)): Dorfman & Alf's (1969) maximum-likelihood binormal fit to rating data.

    The K distinct scores are ordered categories; a latent negative is N(0, 1), a latent positive
    N(a/b, 1/b²), cut at z_1 < ... < z_{K-1}: P⁻(k) = Φ(z_k) - Φ(z_{k-1}), P⁺(k) = Φ(b·z_k - a) -
    Φ(b·z_{k-1} - a), so probit(TPR) = a + b·probit(FPR) through the operating points. Fisher scoring
    from the least-squares line through the probit-probit points (step halving on the likelihood);
    the covariance is the inverse expected information. NaN where fewer than 3 categories or no
    finite maximum (e.g. the classes separated): recognised by the information at the end, whose
    condition number passes 1e10 only where the likelihood flattens towards infinity."""
    x, y = np.asarray(scores_pos, float), np.asarray(scores_neg, float)
    values, codes = np.unique(np.concatenate([x, y]), return_inverse=True)
    k = values.size
    fail = (np.nan, np.nan, np.full((2, 2), np.nan))
    if k < 3:
        return fail
    pos = np.bincount(codes[:x.size], minlength=k).astype(float)
    neg = np.bincount(codes[x.size:], minlength=k).astype(float)
    # start: the empirical operating points (shrunk off 0 and 1), least squares in probit space
    fpr = (np.cumsum(neg[::-1])[:-1] + 0.5) / (y.size + 1)
    tpr = (np.cumsum(pos[::-1])[:-1] + 0.5) / (x.size + 1)
    u, v = special.ndtri(fpr), special.ndtri(tpr)
    spread = np.sum((u - u.mean()) ** 2)
    b = max(float(np.sum((u - u.mean()) * (v - v.mean())) / spread), 0.1) if spread > 0 else 1.0
    a = float(np.mean(v) - b * np.mean(u))
    theta = np.r_[a, b, -u[::-1]]  # z_j = -probit(FPR at the j-th cut from the bottom)

    def parts(t):
        a, b, z = t[0], t[1], t[2:]
        pn = np.diff(np.r_[0.0, special.ndtr(z), 1.0])
        pp = np.diff(np.r_[0.0, special.ndtr(b * z - a), 1.0])
        return pn, pp

    def loglik(t):
        if t[1] <= 0 or np.any(np.diff(t[2:]) <= 0):
            return -np.inf
        pn, pp = parts(t)
        if np.any(pn <= 0) or np.any(pp <= 0):
            return -np.inf
        return float(neg @ np.log(pn) + pos @ np.log(pp))

    def information(t):
        a, b, z = t[0], t[1], t[2:]
        pn, pp = parts(t)
        dn = np.zeros((k + 1, k + 1))  # d(cumulative)/d(theta) at the k + 1 edges (first and last fixed)
        dp = np.zeros((k + 1, k + 1))
        phi_n, phi_p = np.exp(-z * z / 2) / _ROOT_2PI, np.exp(-(b * z - a) ** 2 / 2) / _ROOT_2PI
        idx = np.arange(1, k)
        dn[idx, idx + 1] = phi_n
        dp[idx, 0], dp[idx, 1], dp[idx, idx + 1] = -phi_p, z * phi_p, b * phi_p
        jn, jp = np.diff(dn, axis=0), np.diff(dp, axis=0)  # d(category probability)/d(theta), (k, k + 1)
        score = jn.T @ (neg / pn) + jp.T @ (pos / pp)
        info = y.size * (jn.T / pn) @ jn + x.size * (jp.T / pp) @ jp
        return score, info

    ll = loglik(theta)
    if not np.isfinite(ll):
        return fail
    for _ in range(iterations):
        score, info = information(theta)
        try:
            step = np.linalg.solve(info, score)
        except np.linalg.LinAlgError:
            return fail
        for _ in range(30):  # step halving: stay in the parameter space, never lose likelihood
            new = loglik(theta + step)
            if new >= ll - 1e-12:
                break
            step = step / 2
        else:
            return fail
        theta, ll = theta + step, new
        if np.max(np.abs(step)) < 1e-9:
            break
    else:
        return fail
    _, info = information(theta)
    # Where the supremum lies at infinity (e.g. a category's only class sits at an end) the path runs
    # outward with the likelihood flattening along it: the information turns singular to rounding, and
    # where the steps stop (halved to nothing, or out of iterations) depends on the libraries' rounding.
    # A maximum is finite only where the information is well conditioned there.
    if not np.all(np.isfinite(info)) or np.linalg.cond(info) > _INFORMATION_COND_MAX:
        return fail
    try:
        cov = np.linalg.inv(info)[:2, :2]
    except np.linalg.LinAlgError:
        return fail
    if not np.all(np.isfinite(cov)) or abs(theta[0]) > 20:
        return fail
    return float(theta[0]), float(theta[1]), cov


@register("roc_band_working_hotelling", display="Working–Hotelling (binormal)", takes="roc_band",
          family="approximate", guaranteed=False,
          reference="Ma & Hall (1993), Med Decis Making 13, 191-197; Working & Hotelling (1929), JASA 24, 73-85")
def roc_band_working_hotelling(scores_pos, scores_neg, delta, rng=None, grid=FPR_GRID):
    """Working–Hotelling band of the binormal ROC: Φ(a + b·z ± k·sqrt(V(z))), z = Φ⁻¹(t), k² = χ²₂(1 - delta).

    (a, b) and their covariance from ``binormal_fit`` (normal moments: continuous scores) or, for
    rating data (at most ``RATING_CATEGORIES_MAX`` distinct scores), ``binormal_fit_grouped``
    (Dorfman–Alf maximum likelihood, as Ma & Hall fit ratings; the band is then for the latent curve);
    V(z) = Var a + z²·Var b + 2z·Cov(a, b). The band is the envelope of
    the binormal curves whose (a, b) lie in the asymptotic 1 - delta confidence ellipse, so it
    holds the whole curve (every t) with probability about 1 - delta if the scores are binormal.
    Where a class's scores are all tied no binormal curve fits, and the band is [0, 1].
    """
    pooled = np.concatenate([np.asarray(scores_pos), np.asarray(scores_neg)])
    fit = binormal_fit_grouped if np.unique(pooled).size <= RATING_CATEGORIES_MAX else binormal_fit
    a, b, cov = fit(scores_pos, scores_neg)
    z = special.ndtri(np.asarray(grid, float))
    k = np.sqrt(stats.chi2.ppf(1 - delta, 2))
    half = k * np.sqrt(np.maximum(cov[0, 0] + z * z * cov[1, 1] + 2 * z * cov[0, 1], 0.0))
    centre = a + b * z
    lower, upper = special.ndtr(centre - half), special.ndtr(centre + half)
    return np.where(np.isnan(lower), 0.0, lower), np.where(np.isnan(upper), 1.0, upper)


@functools.lru_cache(maxsize=1024)
def ks_critical(delta: float, size: int) -> float:
    """The two-sided Kolmogorov–Smirnov critical value at level sqrt(1 - delta) for ``size`` observations."""
    return float(stats.kstwo.ppf(np.sqrt(1 - delta), size))


@register("roc_band_ks", display="Kolmogorov–Smirnov (Campbell)", takes="roc_band", family="exact", guaranteed=True,
          reference="Campbell (1994), Stat Med 13, 499-508; Kolmogorov–Smirnov critical values (scipy.stats.kstwo)")
def roc_band_ks(scores_pos, scores_neg, delta, rng=None, grid=FPR_GRID):
    """Campbell's band from Kolmogorov–Smirnov bands for each class: [R̂⁻(t - d_n) - d_m, R̂⁺(t + d_n) + d_m].

    d_n, d_m are the exact two-sided KS critical values at level sqrt(1 - delta) for n
    negatives and m positives, so both empirical survival functions lie within them everywhere
    with probability >= 1 - delta (independent classes); then the true curve R(t) = G(F⁻¹(t))
    lies below R̂⁺(t + d_n) + d_m, R̂⁺(s) the highest vertex with FPR <= s, and above
    R̂⁻(t - d_n) - d_m, R̂⁻(s) the lowest vertex with FPR >= s. Here R̂⁺ and R̂⁻ are the
    empirical polyline (its highest and its lowest point where it is vertical), which for
    untied scores is exactly those steps and with ties follows their diagonal segments.
    Guaranteed for continuous scores (conservative).
    """
    p, q, m, n = _vertex_tpr(scores_pos, scores_neg)
    dn, dm = ks_critical(float(delta), n), ks_critical(float(delta), m)
    t = np.asarray(grid, float)
    upper = polyline(q / n, p / m, t + dn) + dm
    lower = polyline(q / n, p / m, t - dn, low=True) - dm
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


def _slide(n_pos: int, n_neg: int) -> tuple[float, float]:
    """(cos θ, sin θ) of the fixed-width band's sliding direction: up-left along the line of slope
    -sqrt(n_neg/n_pos), each rate moved in proportion to its standard error (slope -1 for equal classes)."""
    theta = np.arctan(np.sqrt(n_neg / n_pos))
    return float(np.cos(theta)), float(np.sin(theta))


def slide_distance(x, y, t, value, cos, sin) -> np.ndarray:
    """Distance along the sliding line from (t, value) to the polyline through the vertices (x, y):
    the smallest d for which the polyline slid by d (up-left for the upper edge, down-right for the
    lower) passes on the right side of (t, value); ``t`` shape (G,), ``value`` (rows, G).

    The line through (t, value) of slope -r (r = sin/cos) meets the non-decreasing polyline once,
    where w = y + r·x (non-decreasing along it) equals value + r·t: interpolate there."""
    r = sin / cos
    w = y + r * x
    target = value + r * np.asarray(t)
    k = np.clip(np.searchsorted(w, target, side="left") - 1, 0, w.size - 2)
    w0, w1 = w[k], w[k + 1]
    share = np.clip(np.where(w1 > w0, (target - w0) / np.where(w1 > w0, w1 - w0, 1.0), 0.0), 0.0, 1.0)
    crossing = x[k] + share * (x[k + 1] - x[k])
    return np.abs(crossing - t) / cos


@register("roc_band_fixed_width", display="fixed-width (Macskassy–Provost)", takes="roc_band", family="approximate",
          guaranteed=False, params=(DRAWS,),
          reference="Macskassy, Provost & Rosset (2005), ICML, 'ROC confidence bands: an empirical evaluation' "
                    "(fixed-width bands, FWB); Campbell (1994), Stat Med 13, 499-508")
def roc_band_fixed_width(scores_pos, scores_neg, delta, rng=None, grid=FPR_GRID, draws=1000):
    """The empirical ROC curve slid a distance d up-left and down-right along the line of slope
    -sqrt(n/m) (n negatives, m positives): upper(t) = R̂(t + d·cos θ) + d·sin θ, lower(t) =
    R̂(t - d·cos θ) - d·sin θ, tan θ = sqrt(n/m), clipped to [0, 1].

    d is the 1 - delta quantile over stratified bootstrap curves R̂* of the smallest distance that
    puts R̂* inside the band at every t of the grid (Macskassy et al.'s bootstrap width). The band's
    width is fixed along the sliding direction, not vertically; with equal classes it slides at 45°.
    """
    grid = np.asarray(grid, float)
    _, curves = bootstrap_curves(scores_pos, scores_neg, grid, rng, draws)
    p, q, m, n = _vertex_tpr(scores_pos, scores_neg)
    cos, sin = _slide(m, n)
    x, y = q / n, p / m
    d = np.quantile(np.max(slide_distance(x, y, grid, curves, cos, sin), axis=1), 1 - delta)
    upper = polyline(x, y, grid + d * cos) + d * sin
    lower = polyline(x, y, grid - d * cos, low=True) - d * sin
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


@register("roc_band_sup_t", display="sup-t bootstrap", takes="roc_band", family="approximate", guaranteed=False,
          params=(DRAWS,),
          reference="Montiel Olea & Plagborg-Møller (2019), J Appl Econometrics 34, 1-17 (sup-t bands); "
                    "Macskassy et al. (2005) for ROC curves")
def roc_band_sup_t(scores_pos, scores_neg, delta, rng=None, grid=FPR_GRID, draws=1000):
    """R̂(t) ± c·s(t), s(t) the bootstrap SD of R̂*(t) and c the 1 - delta quantile of max_t |R̂*(t) - R̂(t)|/s(t).

    Stratified bootstrap; grid points where every resample agrees (s = 0) are left out of the
    maximum and get a band of width 0.
    """
    centre, curves = bootstrap_curves(scores_pos, scores_neg, np.asarray(grid, float), rng, draws)
    sd = np.std(curves, axis=0, ddof=1)
    ratio = np.abs(curves - centre) / np.where(sd > 0, sd, 1.0)
    c = np.quantile(np.max(np.where(sd > 0, ratio, 0.0), axis=1), 1 - delta)
    return np.clip(centre - c * sd, 0.0, 1.0), np.clip(centre + c * sd, 0.0, 1.0)


# --------------------------------------------------------------------------- PR bands

@register("pr_band_wilson", display="Wilson (pointwise)", takes="pr_band", family="approximate", guaranteed=False,
          reference="Wilson (1927), JASA 22, 209-212, for precision TP/(TP + FP) at the empirical threshold")
def pr_band_wilson(scores_pos, scores_neg, delta, rng=None, grid=RECALL_GRID):
    """Pointwise Wilson interval for precision at each recall r of the grid: TP of TP + FP at the highest
    threshold with recall >= r (the threshold and the number predicted positive taken as known)."""
    _, tp, predicted = empirical_pr(scores_pos, scores_neg, grid)
    return wilson(tp, predicted, delta)


@register("pr_band_clopper_pearson", display="Clopper–Pearson (pointwise)", takes="pr_band", family="exact",
          guaranteed=False, reference="Clopper & Pearson (1934), Biometrika 26, 404-413, for precision")
def pr_band_clopper_pearson(scores_pos, scores_neg, delta, rng=None, grid=RECALL_GRID):
    """Pointwise Clopper–Pearson interval for precision at each recall of the grid (as ``pr_band.wilson``)."""
    _, tp, predicted = empirical_pr(scores_pos, scores_neg, grid)
    return clopper_pearson(tp, predicted, delta)


@register("pr_band_bootstrap", display="bootstrap (pointwise)", takes="pr_band", family="approximate",
          guaranteed=False, params=(DRAWS,), reference="stratified percentile bootstrap, as pROC's ci.se for precision")
def pr_band_bootstrap(scores_pos, scores_neg, delta, rng=None, grid=RECALL_GRID, draws=1000):
    """Pointwise stratified percentile bootstrap of precision at each recall of the grid."""
    _, curves = bootstrap_curves(scores_pos, scores_neg, np.asarray(grid, float), rng, draws, curve="pr")
    return np.quantile(curves, delta / 2, axis=0), np.quantile(curves, 1 - delta / 2, axis=0)


@register("pr_band_credible", display="credible hull (pointwise)", takes="pr_band", family="bayesian",
          guaranteed=False, reference="the credible package (Anjos et al., 'ROC and Precision Recall Curves', "
                                      "credible.readthedocs.io): per-threshold Beta intervals 'in all four directions'")
def pr_band_credible(scores_pos, scores_neg, delta, rng=None, grid=RECALL_GRID):
    """Hull of per-threshold Jeffreys Beta intervals for recall and precision: at recall r, the highest
    upper and the lowest lower precision bound of the thresholds whose recall interval holds r.

    At each threshold (TP, FP), recall ∈ Beta(TP + ½, m - TP + ½) and precision ∈
    Beta(TP + ½, FP + ½) equal-tailed 1 - delta intervals (boundary-modified Jeffreys, as
    ``proportion.jeffreys``: precision's upper end is 1 where FP = 0); a recall no threshold's interval holds
    takes the threshold whose interval is nearest.
    """
    p, q, m, n = _vertex_tpr(scores_pos, scores_neg)
    p, q = p[1:], q[1:]  # the thresholds that predict at least one positive
    r = np.asarray(grid, float)[:, None]
    rec_lo, rec_hi = jeffreys(p, m, delta)
    prec_lo, prec_hi = jeffreys(p, p + q, delta)
    gap = np.maximum(rec_lo - r, 0.0) + np.maximum(r - rec_hi, 0.0)  # 0 where the recall interval holds r
    near = gap <= gap.min(axis=1, keepdims=True)
    return np.min(np.where(near, prec_lo, 1.0), axis=1), np.max(np.where(near, prec_hi, 0.0), axis=1)
