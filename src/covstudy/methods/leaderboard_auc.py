"""AUC leaderboard methods: k classifiers' AUCs on the same cases, every pairwise difference and rank at once.

A kernel takes r test sets' AUCs (r, k) and DeLong's covariance of them (r, k, k)
(``methods.auc_difference.delong_covariance``: DeLong, DeLong & Clarke-Pearson (1988), "Comparing the
areas under two or more correlated receiver operating characteristic curves") and returns a
``methods.leaderboard.Family``: intervals d̂_ij ± c·se_ij with se_ij² = Cov_ii + Cov_jj - 2Cov_ij,

* ``delong``: c = z_{1-δ/2}, each pair on its own (pROC's ``roc.test`` per pair);
* ``bonferroni``: c = z_{1-δ/(2P)};
* ``max_t``: c the 1 - δ quantile of max |Z_ij| under N(0, Cov) (``leaderboard.max_t_critical``);
* ``chernoff_hoeffding`` (guaranteed): each pair's distribution-free Chernoff–Hoeffding interval of the paired AUC
  difference (methods/auc_distribution_free.py) at δ/P, Bonferroni over the P pairs; it reads the test set's scores
  (``scores_pos``, ``scores_neg``: the door passes them to the methods in FROM_SCORES), not DeLong's covariance.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import validate
from .._lazy import stats
from .auc_distribution_free import REFERENCE as HOEFFDING, auc_difference_chernoff_hoeffding
from .leaderboard import contrast_matrix, from_intervals, max_t_critical, pairs
from .registry import Param, register, register_kind

FROM_SCORES = {"leaderboard_auc_chernoff_hoeffding"}  # kernels that read the scores (keywords scores_pos, scores_neg)


def _no_door(m, est, counts, delta, side, rng, params, icc):
    raise ValueError(f"method: {m.qualified} gives a family of AUC intervals and rank sets, not one interval; "
                     f"call covstudy.leaderboard.coverage.auc_leaderboard_coverage")


register_kind("leaderboard_auc", ("auc", "cov"), "AUC leaderboard", kind="leaderboard_auc", prefix="leaderboard_auc_",
              route=_no_door, interval=False)


def _checked(kernel):
    """``kernel`` with its inputs checked first: AUCs (..., k), k >= 2, in [0, 1]; a covariance (..., k, k),
    finite, symmetric, with variances >= 0; delta in (0, 1)."""
    @functools.wraps(kernel)
    def checked(auc, cov, delta, *args, **kwargs):
        a = validate.unit_interval("auc", auc, open_=False)
        if a.ndim < 1 or a.shape[-1] < 2:
            raise ValueError(f"auc: give at least 2 classifiers' AUCs (last axis), got shape {a.shape}")
        c = validate.array("cov", cov, "a covariance matrix of the AUCs", dtype=float)
        if c.shape != a.shape + a.shape[-1:]:
            raise ValueError(f"cov: must have shape {a.shape + a.shape[-1:]} (auc's shape and k), got {c.shape}")
        if not np.all(np.isfinite(c)) or np.any(np.abs(c - np.swapaxes(c, -1, -2)) > 1e-12) or \
                np.any(np.diagonal(c, axis1=-2, axis2=-1) < 0):
            raise ValueError("cov: must be a finite symmetric matrix with variances >= 0 (DeLong's covariance)")
        validate.interval("delta", validate.scalar("delta", delta), 0.0, 1.0, True, True)
        return kernel(auc, cov, delta, *args, **kwargs)
    return checked


def _family(auc, cov, c):
    auc, cov = np.asarray(auc, float), np.asarray(cov, float)
    C = contrast_matrix(auc.shape[-1])
    d = auc @ C.T
    se = np.sqrt(np.clip(np.einsum("pa,...ab,pb->...p", C, cov, C), 0, None))
    c = np.asarray(c, float)[..., None]
    return from_intervals(np.clip(d - c * se, -1, 1), np.clip(d + c * se, -1, 1), auc.shape[-1])


@register("leaderboard_auc_delong", family="approximate", guaranteed=False, takes="leaderboard_auc",
          reference="DeLong, DeLong, Clarke-Pearson (1988), per pair, no adjustment", display="per-pair DeLong")
@_checked
def delong(auc, cov, delta):
    """Each pair's DeLong interval at 1 - delta: no adjustment."""
    return _family(auc, cov, np.full(np.shape(auc)[:-1], stats.norm.isf(delta / 2)))


@register("leaderboard_auc_bonferroni", family="approximate", guaranteed=False, takes="leaderboard_auc",
          reference="Bonferroni: each pair's DeLong interval at delta/P")
@_checked
def bonferroni(auc, cov, delta):
    """Each pair's DeLong interval at delta/P, P = k(k - 1)/2."""
    k = np.shape(auc)[-1]
    return _family(auc, cov, np.full(np.shape(auc)[:-1], stats.norm.isf(delta / (k * (k - 1)))))


@register("leaderboard_auc_max_t", family="approximate", guaranteed=False, takes="leaderboard_auc",
          reference="Max-t with DeLong's covariance of the k AUCs (Hothorn, Bretz, Westfall (2008))",
          params=(Param("points", 8192, above=99, integer=True, at_most=100_000,
                        doc="quasi-random normal points for the max-t critical value"),), display="max-t (DeLong)")
@_checked
def max_t(auc, cov, delta, points=8192):
    """d̂ ± c·se with c the 1 - delta quantile of the maximum |t| over the P pairs under N(0, DeLong's Cov)."""
    cov = np.asarray(cov, float)
    P = cov.shape[-1] * (cov.shape[-1] - 1) // 2
    chunk = max(1, 2_000_000 // (points * P))
    c = np.concatenate([max_t_critical(cov[s:s + chunk], delta, points) for s in range(0, len(cov), chunk)])
    return _family(auc, cov, c)


@register("leaderboard_auc_chernoff_hoeffding", family="exact", guaranteed=True, takes="leaderboard_auc",
          reference=f"Each pair's Chernoff–Hoeffding AUC-difference interval at delta/P (Bonferroni); {HOEFFDING}; "
                    "rank sets: Mogstad, Romano, Shaikh & Wilhelm (2024)",
          display="Chernoff–Hoeffding, Bonferroni")
@_checked
def chernoff_hoeffding(auc, cov, delta, scores_pos=None, scores_neg=None):
    """Each pair's ``auc_difference.chernoff_hoeffding`` interval at delta/P, P = k(k - 1)/2, from the scores
    (``scores_pos`` (..., k, m), ``scores_neg`` (..., k, n): the same cases in every row, as ``delong_covariance``).

    Each pair's interval covers its AUC difference with probability >= 1 - delta/P for every joint law of the
    scores, so all P cover together with probability >= 1 - delta (union bound), and then every model's true
    rank lies in its rank set (``leaderboard.from_intervals``): guaranteed, ties included."""
    if scores_pos is None or scores_neg is None:
        raise ValueError("scores_pos, scores_neg: leaderboard_auc.chernoff_hoeffding reads the scores themselves "
                         "(arrays (..., k, m) and (..., k, n)), not only the AUCs and their covariance")
    pos, neg = np.asarray(scores_pos, dtype=float), np.asarray(scores_neg, dtype=float)
    k = np.shape(auc)[-1]
    if pos.shape[-2:-1] != (k,) or neg.shape[-2:-1] != (k,):
        raise ValueError(f"scores_pos, scores_neg: shapes (..., {k}, m) and (..., {k}, n) for {k} models, "
                         f"got {pos.shape} and {neg.shape}")
    first, second = pairs(k)
    level = np.asarray(delta, dtype=float) / first.size
    ends = [auc_difference_chernoff_hoeffding(pos[..., i, :], neg[..., i, :], pos[..., j, :], neg[..., j, :], level)
            for i, j in zip(first, second)]
    lower = np.stack([np.asarray(lo, dtype=float) for lo, _ in ends], axis=-1)
    upper = np.stack([np.asarray(hi, dtype=float) for _, hi in ends], axis=-1)
    return from_intervals(lower, upper, k)
