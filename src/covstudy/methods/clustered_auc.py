"""Cluster-aware intervals for the AUC: scores of examples grouped in clusters (patients, speakers).

A kernel maps ``(scores, labels, clusters, delta, rng=None, **params)`` to ``(lower, upper)``:
arrays of shape (..., n), the last axis a test set's examples (score, label 1 = positive, cluster
id), the leading axes test sets. The estimate is the Mann–Whitney AUC over every positive–negative
pair, ties counted ½,

    Â = Σ_{positives k} Σ_{negatives l} ψ(X_k, Y_l)/(M·N),  ψ(x, y) = 1[x > y] + ½·1[x = y],

M, N the numbers of positives and negatives. Placements (DeLong, DeLong & Clarke-Pearson 1988):
V10_k = (1/N)·Σ_l ψ(X_k, Y_l), V01_l = (1/M)·Σ_k ψ(X_k, Y_l), from midranks in O(n log n) a test
set (methods/auc.py). Clusters are the independent units: the methods resample or sum whole
clusters. Bounds are clipped to [0, 1]; a test set without a positive or a negative gets [0, 1].
"""

from __future__ import annotations

import numpy as np

from .. import validate
from .binomial import _z
from .f1 import row_quantiles
from .distinct import unique_inverse
from .registry import draws_param, register, register_kind

COUNTS = ("scores", "labels", "clusters")
_BLOCK = 1 << 21  # bootstrap numbers held at once (resamples × examples)


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for scores, labels and cluster ids (intervals.py)."""
    scores = validate.array("scores", counts[0], "finite numbers", dtype=float)
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores must be finite numbers")
    labels = validate.counts("labels", counts[1], maximum=1)
    clusters = np.asarray(counts[2])
    if scores.ndim == 0 or scores.shape != labels.shape or scores.shape != clusters.shape:
        raise ValueError(f"scores, labels, clusters: need arrays of one shape (examples on the last axis), got "
                         f"shapes {scores.shape}, {labels.shape}, {clusters.shape}")
    ids = unique_inverse(clusters.reshape(-1))[1].reshape(clusters.shape)
    if ids.max() < 1:
        raise ValueError("clusters: need at least 2 clusters")
    return est.bounds(m, dict(scores=scores, labels=labels, clusters=ids),
                      validate.delta(validate.scalar("delta", delta)), side, rng=rng, **params)


# a test set's scores, labels and cluster ids (examples on the last axis): Monte Carlo only
register_kind("clustered_scores", COUNTS, "clustered AUC", per_test_set=True, kind="clustered_auc", prefix="ca_",
              why_mc_only="takes a test set's scores, which cannot be enumerated", route=_door)


def _rows(scores, labels, clusters):
    s, lab, c = np.broadcast_arrays(np.asarray(scores, dtype=float), np.asarray(labels), np.asarray(clusters))
    shape, n = s.shape[:-1], s.shape[-1]
    return s.reshape(-1, n), lab.reshape(-1, n).astype(bool), c.reshape(-1, n).astype(np.int64), shape


def sorted_placements(scores, labels) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(Â, V10, V01, order) of rows of scores (test sets, n) and boolean labels, in each row's sorted order
    ``order`` (one stable sort a row): V10 on the positives' places and V01 on the negatives' (0 elsewhere).
    With P_g, N_g the positives and negatives of tie group g (equal scores), a positive of group g has
    V10 = (N_{<g} + ½N_g)/N and a negative V01 = (P_{>g} + ½P_g)/M: the midrank placements of methods/auc.py."""
    rows, n = scores.shape
    order = np.argsort(scores, axis=1, kind="stable")
    ss, ll = np.take_along_axis(scores, order, 1), np.take_along_axis(labels, order, 1)
    new = np.ones((rows, n), dtype=bool)
    new[:, 1:] = ss[:, 1:] != ss[:, :-1]  # a row's first example always opens a group: rows share none
    gid = np.cumsum(new.ravel()) - 1
    groups = int(gid[-1]) + 1
    pos = ll.ravel().astype(float)
    P = np.bincount(gid, weights=pos, minlength=groups)
    N = np.bincount(gid, weights=1.0 - pos, minlength=groups)
    first = gid[::n]  # each row's first group
    row = np.repeat(np.arange(rows), np.diff(np.append(first, groups)))
    cN, cP = np.cumsum(N), np.cumsum(P)
    last = np.append(first[1:], groups) - 1  # each row's last group
    M_row = cP[last] - (cP[first] - P[first])
    N_row = cN[last] - (cN[first] - N[first])
    with np.errstate(invalid="ignore", divide="ignore"):
        v10 = (cN - N - (cN[first] - N[first])[row] + 0.5 * N) / N_row[row]
        v01 = (cP[last][row] - cP + 0.5 * P) / M_row[row]
        auc = np.bincount(row, weights=P * v10, minlength=rows) / M_row
    v10, v01 = v10[gid].reshape(rows, n), v01[gid].reshape(rows, n)
    return auc, np.where(ll, v10, 0.0), np.where(ll, 0.0, v01), order


_BLOCK_SCORES = 1 << 21  # scores of the test sets handled at once (~15 arrays of them: ~250 MB)
_LAST: list = []  # [((scores, labels), placements)]: the last read-only test sets' (the core's shared ones)
_KEPT_SCORES = 100_000  # ... or the last test set of at least this many scores (a user's file: every method
_BY_VALUE: list = []  # meets it), kept as [(scores, labels, placements)] with a copy, checked value by value


def _kept(scores, labels, s, lab):
    """``sorted_placements(s, lab)``, kept for the last read-only ``scores`` and ``labels`` (the core's cached
    test sets, as methods/auc.py keeps DeLong's), so the methods at a point sort them once; and for the last
    large test set, whose copy is compared value by value (a changed array is never taken for it)."""
    frozen = all(isinstance(a, np.ndarray) and not a.flags.writeable and a.base is None for a in (scores, labels))
    if frozen and _LAST and _LAST[0][0][0] is scores and _LAST[0][0][1] is labels:
        return _LAST[0][1]
    large = not frozen and s.size >= _KEPT_SCORES
    if large and _BY_VALUE and all(a.shape == b.shape and np.array_equal(a, b) for a, b in zip(_BY_VALUE[0], (s, lab))):
        return _BY_VALUE[0][2]
    result = sorted_placements(s, lab)
    if frozen:
        _LAST[:] = [((scores, labels), result)]
    elif large:
        _BY_VALUE[:] = [(s.copy(), lab.copy(), result)]
    return result


def obuchowski_variance(scores, labels, clusters) -> tuple[np.ndarray, np.ndarray]:
    """(Â, var Â) per row by Obuchowski (1997), "Nonparametric analysis of clustered ROC curve data",
    Biometrics 53, 567-578: with V10_i = Σ V10_k over cluster i's m_i positives, V01_i = Σ V01_l over its
    n_i negatives, I10 (I01) the clusters holding a positive (negative), I the clusters,

        S10 = I10/((I10 - 1)M)·Σ_i (V10_i - m_i·Â)²,   S01 = I01/((I01 - 1)N)·Σ_i (V01_i - n_i·Â)²,
        S11 = I/(I - 1)·Σ_i (V10_i - m_i·Â)(V01_i - n_i·Â),   var Â = S10/M + S01/N + 2·S11/(M·N).

    With one example a cluster it is DeLong's variance. NaN where I10 or I01 < 2 (not estimable)."""
    s, lab, c, shape = _rows(scores, labels, clusters)
    rows, n = s.shape
    step = max(1, _BLOCK_SCORES // n)
    if rows > step:  # in blocks of test sets: memory bounded by _BLOCK_SCORES, not by test sets × n
        parts = [obuchowski_variance(s[i:i + step], lab[i:i + step], c[i:i + step]) for i in range(0, rows, step)]
        return (np.concatenate([p[0] for p in parts]).reshape(shape),
                np.concatenate([p[1] for p in parts]).reshape(shape))
    G = int(c.max()) + 1
    auc, v10, v01, order = _kept(scores, labels, s, lab)
    lab, c = np.take_along_axis(lab, order, 1), np.take_along_axis(c, order, 1)
    flat = (np.arange(rows)[:, None] * G + c).ravel()
    per = lambda w: np.bincount(flat, weights=w.ravel(), minlength=rows * G).reshape(rows, G)  # noqa: E731
    m_i, n_i, V10, V01 = per(lab.astype(float)), per((~lab).astype(float)), per(v10), per(v01)
    M, N = m_i.sum(axis=1), n_i.sum(axis=1)
    i10, i01, i_all = (m_i > 0).sum(axis=1), (n_i > 0).sum(axis=1), ((m_i + n_i) > 0).sum(axis=1)
    a = auc[:, None]
    d10, d01 = V10 - m_i * a, V01 - n_i * a
    with np.errstate(invalid="ignore", divide="ignore"):
        s10 = i10 / ((i10 - 1) * M) * np.sum(d10 * d10, axis=1)
        s01 = i01 / ((i01 - 1) * N) * np.sum(d01 * d01, axis=1)
        s11 = i_all / (i_all - 1) * np.sum(d10 * d01, axis=1)
        var = s10 / M + s01 / N + 2 * s11 / (M * N)
    var = np.where((i10 >= 2) & (i01 >= 2), np.maximum(var, 0.0), np.nan)
    return auc.reshape(shape), var.reshape(shape)


@register("ca_obuchowski", display="Obuchowski (clusters)", takes="clustered_scores", family="approximate",
          guaranteed=False, reference="Obuchowski (1997) Nonparametric analysis of clustered ROC curve data, "
          "Biometrics 53, 567-578")
def ca_obuchowski(scores, labels, clusters, delta, rng=None):
    """Wald interval Â ± z·sqrt(var Â) with Obuchowski's clustered variance (``obuchowski_variance``),
    clipped to [0, 1]; [0, 1] where fewer than 2 clusters hold a positive or a negative."""
    auc, var = obuchowski_variance(scores, labels, clusters)
    half = _z(delta) * np.sqrt(var)
    ok = ~np.isnan(var)
    return (np.where(ok, np.clip(auc - np.where(ok, half, 0), 0.0, 1.0), 0.0),
            np.where(ok, np.clip(auc + np.where(ok, half, 0), 0.0, 1.0), 1.0))


def weighted_auc(weights, labels, starts) -> np.ndarray:
    """The AUC of one test set's examples (sorted by score; tie groups beginning at ``starts``) with a row
    of example weights per resample (resamples, n): Σ_g P_g·(N_{<g} + ½N_g)/(ΣP·ΣN), P_g and N_g the
    positives' and negatives' weight in tie group g, N_{<g} the negatives' below it. NaN where ΣP·ΣN = 0."""
    pos = weights * labels
    neg = weights - pos
    if starts.size < labels.size:  # ties: sums over each tie group
        pos, neg = np.add.reduceat(pos, starts, axis=1), np.add.reduceat(neg, starts, axis=1)
    below = np.cumsum(neg, axis=1) - neg
    num = np.sum(pos * (below + 0.5 * neg), axis=1)
    den = pos.sum(axis=1) * neg.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


@register("ca_cluster_bootstrap", display="cluster bootstrap (AUC)", takes="clustered_scores",
          family="approximate", guaranteed=False,
          reference="Field & Welsh (2007) Bootstrapping clustered data, JRSS B 69, 369-390; "
          "Obuchowski (1997) Biometrics 53, 567-578", params=(draws_param(1000, "bootstrap resamples"),))
def ca_cluster_bootstrap(scores, labels, clusters, delta, rng=None, draws=1000):
    """Percentile bootstrap over clusters: the (delta/2, 1 - delta/2) quantiles of the AUC over ``draws``
    resamples of G whole clusters drawn with replacement (cluster ⌊u·G⌋ of u ~ U[0, 1) from ``rng``,
    G the clusters present, test set by test set); a resample is the data weighted by each cluster's
    multiplicity (``weighted_auc``: one sort a test set, O(n) a resample). Resamples without a positive
    or a negative are left out. draws × n at most ``validate.RESAMPLE_WORK_MAX``."""
    s, lab, c, shape = _rows(scores, labels, clusters)
    rows, n = s.shape
    validate.resample_work("draws", draws, n, "examples")
    rng = np.random.default_rng() if rng is None else rng
    q = np.broadcast_to(np.asarray(delta, dtype=float), shape).reshape(-1) / 2
    lower, upper = np.empty(rows), np.empty(rows)
    chunk = max(1, _BLOCK // n)
    for r in range(rows):
        order = np.argsort(s[r], kind="stable")
        ss, ll = s[r][order], lab[r][order]
        present, ids = np.unique(c[r][order], return_inverse=True)
        G = present.size
        starts = np.flatnonzero(np.concatenate([[True], ss[1:] != ss[:-1]]))
        auc = np.empty(draws)
        for d in range(0, draws, chunk):
            k = min(chunk, draws - d)
            pick = (rng.random((k, G)) * G).astype(np.int64)
            times = np.bincount((pick + np.arange(k)[:, None] * G).ravel(), minlength=k * G).reshape(k, G)
            auc[d:d + k] = weighted_auc(times[:, ids].astype(float), ll, starts)
        lower[r] = row_quantiles(auc[None, :], q[r:r + 1])[0]
        upper[r] = row_quantiles(auc[None, :], 1 - q[r:r + 1])[0]
    ok = ~np.isnan(lower)
    return np.where(ok, lower, 0.0).reshape(shape), np.where(ok, upper, 1.0).reshape(shape)


@register("ca_delong", display="DeLong (ignores clusters)", takes="clustered_scores", family="approximate",
          guaranteed=False, reference="DeLong, DeLong & Clarke-Pearson (1988) Biometrics 44, 837-845")
def ca_delong(scores, labels, clusters, delta, rng=None):
    """The naive baseline: DeLong's Wald interval on the pooled scores as if the examples were i.i.d.
    (``ca_obuchowski`` with every example its own cluster, which is DeLong's variance)."""
    n = np.shape(scores)[-1]
    return ca_obuchowski(scores, labels, np.broadcast_to(np.arange(n), np.broadcast_shapes(np.shape(scores),
                                                                                            np.shape(labels))), delta)
