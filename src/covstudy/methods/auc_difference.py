"""Intervals for the difference of two AUCs, AUC(first) - AUC(second), on the same cases (paired).

A kernel maps ``(pos_first, neg_first, pos_second, neg_second, delta, rng=None, **params)`` to
``(lower, upper)`` in [-1, 1]: the two classifiers' scores of the same m positives, shapes
(..., m), and of the same n negatives, (..., n) (example i of ``pos_first`` is example i of
``pos_second``); leading axes index test sets. Higher score = more likely positive.

DeLong, DeLong & Clarke-Pearson (1988): with the placements V10 (m × k) and V01 (n × k) of k
classifiers (methods/auc.py), Âᵣ = mean of V10[:, r] and

    Cov(Â) = S10/m + S01/n,  S10, S01 the sample covariance matrices (divisor m - 1, n - 1)

of the placements; for a contrast c (here (1, -1)) Var(cᵀÂ) = cᵀ·Cov·c. pROC's
``roc.test(paired = TRUE, method = "delong")`` reports Z = cᵀÂ/sqrt(Var) and the interval
cᵀÂ ± z·sqrt(Var) (``delong`` matches pROC 1.18 on its aSAH data: tests/data).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._lazy import stats
from .. import validate
from .auc import _frozen, _resample_blocks, _scores, delong_placements
from .binomial import _z
from .registry import draws_param, register, register_kind

COUNTS = ("pos_first", "neg_first", "pos_second", "neg_second")


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for two classifiers' scores of the same cases (intervals.py)."""
    arrays = [_scores(name, v) for name, v in zip(COUNTS, counts)]
    for a, b, what in ((0, 2, "positives"), (1, 3, "negatives")):
        if arrays[a].shape != arrays[b].shape:
            raise ValueError(f"{COUNTS[a]}, {COUNTS[b]}: the two classifiers must score the same {what}, got "
                             f"{arrays[a].size} and {arrays[b].size} scores")
    return m.bounds(tuple(arrays), float(validate.delta(validate.scalar("delta", delta))), side, rng=rng, **params)


register_kind("paired_scores", COUNTS, "AUC difference", per_test_set=True, kind="auc_difference",
              prefix="auc_difference_", why_mc_only="takes a test set's scores, which cannot be enumerated",
              route=_door)

_BLOCK = 1 << 20  # scores ranked at once, to bound memory


def delong_covariance(scores_pos, scores_neg) -> tuple[np.ndarray, np.ndarray]:
    """The AUCs of k classifiers on the same cases and DeLong's covariance matrix of them.

    Cov = S10/m + S01/n, S10 and S01 the sample covariance matrices of the placements (module
    docstring); a contrast c of the models has variance cᵀ·Cov·c (several models at once).

    Parameters
    ----------
    scores_pos : array, shape (..., k, m)
        Row r: classifier r's scores of the m positives (the same positives in every row).
    scores_neg : array, shape (..., k, n)
        Row r: classifier r's scores of the n negatives.

    Returns
    -------
    tuple
        (Â of shape (..., k), Cov of shape (..., k, k)).

    Examples
    --------
    >>> from covstudy import delong_covariance
    >>> auc, cov = delong_covariance([[0.9, 0.8, 0.4], [0.7, 0.9, 0.2]], [[0.3, 0.5, 0.1], [0.4, 0.1, 0.3]])
    >>> auc.round(4).tolist(), cov.shape
    ([0.8889, 0.7778], (2, 2))
    """
    # integer arrays (the designs' ranks) keep their type: their placements are counted, not sorted
    pos, neg = (v if isinstance(v, np.ndarray) and v.dtype.kind in "ui" and v.ndim >= 2
                else validate.array(name, v, "arrays of scores (models × examples)", float)
                for name, v in (("scores_pos", scores_pos), ("scores_neg", scores_neg)))
    k, m, n = pos.shape[-2], pos.shape[-1], neg.shape[-1]
    lead = np.broadcast_shapes(pos.shape[:-2], neg.shape[:-2])
    pos = np.broadcast_to(pos, lead + (k, m)).reshape(-1, m)
    neg = np.broadcast_to(neg, lead + (k, n)).reshape(-1, n)
    v10, v01 = delong_placements(pos, neg)  # (test sets·k, m), (test sets·k, n)
    v10, v01 = v10.reshape(-1, k, m), v01.reshape(-1, k, n)
    auc = v10.mean(axis=2)
    c10 = v10 - auc[..., None]
    c01 = v01 - v01.mean(axis=2)[..., None]
    cov = (c10 @ np.swapaxes(c10, 1, 2)) / ((m - 1) * m) + (c01 @ np.swapaxes(c01, 1, 2)) / ((n - 1) * n)
    return auc.reshape(lead + (k,)), cov.reshape(lead + (k, k))


def delong_contrast(scores_pos, scores_neg, contrast, delta=0.05) -> dict:
    """A contrast cᵀÂ of k models' AUCs on the same cases: estimate, DeLong interval cᵀÂ ± z·sqrt(cᵀ·Cov·c),
    Z = cᵀÂ/sqrt(cᵀ·Cov·c) and its two-sided p-value (``delong_covariance``).

    Parameters
    ----------
    scores_pos : array, shape (k, m)
        Row r: model r's scores of the m positives.
    scores_neg : array, shape (k, n)
        Row r: model r's scores of the n negatives.
    contrast : array, shape (k,)
        The weights c, e.g. (1, -1, 0) for the first against the second, (1, -1/2, -1/2) for the
        first against the mean of two others.
    delta : float
        The miss rate in (0, 1).

    Returns
    -------
    dict
        estimate, lower, upper, z, p_value (not clipped: a contrast need not lie in [-1, 1]).

    Examples
    --------
    >>> from covstudy import delong_contrast
    >>> pos = [[0.9, 0.8, 0.4, 0.7], [0.7, 0.9, 0.2, 0.6], [0.5, 0.4, 0.6, 0.3]]
    >>> neg = [[0.3, 0.5, 0.1], [0.4, 0.1, 0.3], [0.2, 0.6, 0.5]]
    >>> round(delong_contrast(pos, neg, [1, -0.5, -0.5])["estimate"], 4)
    0.25
    """
    from .. import validate

    auc, cov = delong_covariance(np.asarray(scores_pos, dtype=float), np.asarray(scores_neg, dtype=float))
    c = np.asarray(contrast, dtype=float)
    if c.shape != auc.shape:
        raise ValueError(f"contrast: one weight per model ({auc.size}), got shape {c.shape}")
    d = float(validate.delta(delta))
    estimate, sd = float(c @ auc), float(np.sqrt(max(c @ cov @ c, 0.0)))
    z = estimate / sd if sd > 0 else float("nan")
    half = float(_z(d)) * sd
    return {"estimate": estimate, "lower": estimate - half, "upper": estimate + half, "z": z,
            "p_value": float(2 * stats.norm.sf(abs(z))) if sd > 0 else float("nan")}


_KEPT = 4  # results kept for read-only test sets (the core's shared simulated ones): a few points'
_LAST: list = []  # [((pos_first, neg_first, pos_second, neg_second), (auc, cov)), ...], the newest last


def _paired_covariance(pos_first, neg_first, pos_second, neg_second):
    """(Â of shape (..., 2), Cov of shape (..., 2, 2)) of the two models on every test set
    (``delong_covariance``), in blocks of bounded memory. For read-only test sets (the core's shared
    simulated ones) the last few results are kept, so the methods at a point rank them once."""
    inputs = (pos_first, neg_first, pos_second, neg_second)
    if all(_frozen(a) for a in inputs):
        for i, (kept, result) in enumerate(_LAST):
            if all(a is b for a, b in zip(kept, inputs)):  # held here, so their ids are not reused
                _LAST.append(_LAST.pop(i))
                return result
    pos = np.stack(np.broadcast_arrays(np.asarray(pos_first), np.asarray(pos_second)), axis=-2)
    neg = np.stack(np.broadcast_arrays(np.asarray(neg_first), np.asarray(neg_second)), axis=-2)
    lead = np.broadcast_shapes(pos.shape[:-2], neg.shape[:-2])
    pos = np.broadcast_to(pos, lead + pos.shape[-2:]).reshape((-1,) + pos.shape[-2:])
    neg = np.broadcast_to(neg, lead + neg.shape[-2:]).reshape((-1,) + neg.shape[-2:])
    auc, cov = np.empty((len(pos), 2)), np.empty((len(pos), 2, 2))
    step = max(1, _BLOCK // (2 * (pos.shape[-1] + neg.shape[-1])))
    for s in range(0, len(pos), step):
        rows = slice(s, s + step)
        auc[rows], cov[rows] = delong_covariance(pos[rows], neg[rows])
    result = auc.reshape(lead + (2,)), cov.reshape(lead + (2, 2))
    if all(_frozen(a) for a in inputs):
        for a in result:
            a.setflags(write=False)
        _LAST.append((inputs, result))
        del _LAST[:-_KEPT]
    return result


def _difference_and_variance(pos_first, neg_first, pos_second, neg_second):
    """(Â₁ - Â₂, Var_DeLong(Â₁ - Â₂)) for every test set."""
    auc, cov = _paired_covariance(pos_first, neg_first, pos_second, neg_second)
    return auc[..., 0] - auc[..., 1], np.maximum(cov[..., 0, 0] + cov[..., 1, 1] - 2 * cov[..., 0, 1], 0.0)


@register("auc_difference_delong", display="DeLong (paired)", takes="paired_scores", family="approximate",
          guaranteed=False,
          reference="DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44(3), 837-845; as pROC's "
                    "roc.test(paired = TRUE, method = 'delong') (Robin et al. 2011)")
def auc_difference_delong(pos_first, neg_first, pos_second, neg_second, delta, rng=None):
    """Paired DeLong interval D̂ ± z·sqrt(Var₁₁ + Var₂₂ - 2Cov₁₂), D̂ = Â₁ - Â₂, clipped to [-1, 1]."""
    d, v = _difference_and_variance(pos_first, neg_first, pos_second, neg_second)
    half = _z(delta) * np.sqrt(v)
    return np.clip(d - half, -1.0, 1.0), np.clip(d + half, -1.0, 1.0)


@register("auc_difference_logit_delong", display="logit DeLong (paired)", takes="paired_scores",
          family="approximate", guaranteed=False,
          reference="DeLong covariance with each AUC on the logit scale, combined by MOVER: Zou & Donner (2008), "
                    "Comput. Stat. Data Anal. 52, 2395-2403; Pepe (2003), sec. 5.2 (logit AUC)")
def auc_difference_logit_delong(pos_first, neg_first, pos_second, neg_second, delta, rng=None):
    """MOVER from each AUC's logit DeLong interval expit(logit Âᵣ ± z·SEᵣ/(Âᵣ(1 - Âᵣ))) and the DeLong
    correlation r of Â₁, Â₂:
        lower = D̂ - sqrt((Â₁ - l₁)² - 2r(Â₁ - l₁)(u₂ - Â₂) + (u₂ - Â₂)²), upper likewise;
    an AUC of 0 or 1 has the point interval (as methods/auc.py's logit_delong)."""
    auc, cov = _paired_covariance(pos_first, neg_first, pos_second, neg_second)
    z = _z(delta)
    ends = []
    for r in (0, 1):
        a, se = auc[..., r], np.sqrt(np.maximum(cov[..., r, r], 0.0))
        inside = (a > 0) & (a < 1)
        s = np.where(inside, a, 0.5)
        centre, half = np.log(s / (1 - s)), z * se / (s * (1 - s))
        lo, hi = special.expit(centre - half), special.expit(centre + half)
        ends.append((a, np.where(inside, lo, a), np.where(inside, hi, a)))
    (a1, l1, u1), (a2, l2, u2) = ends
    scale = np.sqrt(np.maximum(cov[..., 0, 0] * cov[..., 1, 1], 0.0))
    rho = np.clip(np.where(scale > 0, cov[..., 0, 1] / np.where(scale > 0, scale, 1.0), 0.0), -1.0, 1.0)
    d = a1 - a2
    dl = np.sqrt(np.maximum((a1 - l1) ** 2 - 2 * rho * (a1 - l1) * (u2 - a2) + (u2 - a2) ** 2, 0.0))
    du = np.sqrt(np.maximum((u1 - a1) ** 2 - 2 * rho * (u1 - a1) * (a2 - l2) + (a2 - l2) ** 2, 0.0))
    return np.clip(d - dl, -1.0, 1.0), np.clip(d + du, -1.0, 1.0)


def _resampled_auc(pos, neg, i, count):
    """The AUC of each resample (rows): positives pos[i] (draws × m indices), negatives with ``count``
    copies each (draws × n). With W_k the resampled negatives among the k lowest scores (cumulative
    counts in sorted order), a positive with lo negatives below it and hi at or below contributes
    (W_lo + W_hi)/2 (ties ½), as methods/auc.py's bootstrap: O((m + n)·draws), no sorting per resample."""
    order = np.argsort(neg, kind="stable")
    sorted_neg = neg[order]
    draws, n = count.shape
    cumulative = np.zeros((draws, n + 1), dtype=np.int64)
    np.cumsum(count[:, order], axis=1, out=cumulative[:, 1:])
    lo = np.searchsorted(sorted_neg, pos, side="left")
    hi = np.searchsorted(sorted_neg, pos, side="right")
    start = np.arange(draws)[:, None] * (n + 1)
    flat = cumulative.ravel()
    total = flat[lo[i] + start].sum(axis=1) + flat[hi[i] + start].sum(axis=1)
    return total / (2 * i.shape[1] * n)


@register("auc_difference_bootstrap", display="paired bootstrap (AUC)", takes="paired_scores", family="approximate",
          guaranteed=False,
          reference="Efron & Tibshirani (1993), ch. 13 (percentile); stratified and paired as pROC's "
                    "roc.test(method = 'bootstrap', paired = TRUE)",
          params=(draws_param(2000, "bootstrap resamples"),))
def auc_difference_bootstrap(pos_first, neg_first, pos_second, neg_second, delta, rng=None, draws=2000):
    """Paired stratified percentile bootstrap: resample the m positives and the n negatives with
    replacement, each case keeping both classifiers' scores; (delta/2, 1 - delta/2) quantiles of
    Â₁* - Â₂*. Per test set, from ``rng``: the negatives' indices (draws × n), then the positives', drawn
    in blocks of resamples (methods/auc.py ``_resample_blocks``); draws × (m + n) at most
    ``validate.RESAMPLE_WORK_MAX``."""
    arrays = [np.asarray(a) for a in (pos_first, neg_first, pos_second, neg_second)]
    lead = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
    p1, n1, p2, n2 = (np.broadcast_to(a, lead + a.shape[-1:]).reshape(-1, a.shape[-1]) for a in arrays)
    delta = np.broadcast_to(np.asarray(delta, dtype=float), lead).reshape(-1)
    rng = np.random.default_rng() if rng is None else rng
    m, n = p1.shape[1], n1.shape[1]
    validate.resample_work("draws", draws, m + n, "cases")
    lower, upper = np.empty(len(p1)), np.empty(len(p1))
    for t in range(len(p1)):
        d = np.empty(draws)
        for rows, j, i in _resample_blocks(rng, draws, n, m):  # memory bounded, the same numbers as one block
            count = np.bincount((j + np.arange(len(j))[:, None] * n).ravel(), minlength=j.size).reshape(j.shape)
            d[rows] = _resampled_auc(p1[t], n1[t], i, count) - _resampled_auc(p2[t], n2[t], i, count)
        lower[t], upper[t] = np.quantile(d, [delta[t] / 2, 1 - delta[t] / 2])
    return lower.reshape(lead), upper.reshape(lead)


def unpaired_delong(scores_pos_first, scores_neg_first, scores_pos_second, scores_neg_second) -> dict:
    """DeLong's comparison of two AUCs on independent test sets (pROC's roc.test(paired = FALSE)).

    D = (Â₁ - Â₂)/sqrt(V₁ + V₂), V the DeLong variances, referred to Student's t with the
    Welch-Satterthwaite degrees of freedom (V₁ + V₂)²/(V₁²/(N₁ - 1) + V₂²/(N₂ - 1)), Nᵣ = mᵣ + nᵣ:
    pROC's statistic D and df (matched on aSAH, tests/data).

    Parameters
    ----------
    scores_pos_first, scores_neg_first : array
        The first classifier's scores of its test set's positives and negatives (1-d).
    scores_pos_second, scores_neg_second : array
        The second classifier's, on its own test set.

    Returns
    -------
    dict
        auc_first, auc_second, statistic (D), df and the two-sided p_value.

    Examples
    --------
    >>> from covstudy import unpaired_delong
    >>> out = unpaired_delong([0.9, 0.8, 0.4], [0.3, 0.5, 0.1, 0.2], [0.6, 0.7, 0.2], [0.3, 0.5, 0.4])
    >>> round(out["auc_first"] - out["auc_second"], 4)
    0.25
    """
    from .auc import auc_and_delong_variance

    given = {"scores_pos_first": scores_pos_first, "scores_neg_first": scores_neg_first,
             "scores_pos_second": scores_pos_second, "scores_neg_second": scores_neg_second}
    s = {name: validate.array(name, v, "an array of scores", float) for name, v in given.items()}
    a1, v1 = auc_and_delong_variance(s["scores_pos_first"], s["scores_neg_first"])
    a2, v2 = auc_and_delong_variance(s["scores_pos_second"], s["scores_neg_second"])
    n1 = np.shape(scores_pos_first)[-1] + np.shape(scores_neg_first)[-1]
    n2 = np.shape(scores_pos_second)[-1] + np.shape(scores_neg_second)[-1]
    d = (a1 - a2) / np.sqrt(v1 + v2)
    df = (v1 + v2) ** 2 / (v1**2 / (n1 - 1) + v2**2 / (n2 - 1))
    return {"auc_first": float(a1), "auc_second": float(a2), "statistic": float(d), "df": float(df),
            "p_value": float(2 * stats.t.sf(abs(d), df))}
