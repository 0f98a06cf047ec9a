"""The (1 - delta) region of an operating point: the intervals and grids the audit's worst coverage ranges over.

Pure arithmetic on counts (no design, no method): the Clopper–Pearson interval of a proportion (``cp``), a
grid axis from the plug-in estimate over a range (``axis``), the AUC's maximum-variance interval
(``auc_region``) and a multiclass rate matrix moved to other recalls (``with_recalls``). ``metrics`` calls
them to attach each metric's region points; ``audit`` evaluates the coverage over those points.
"""

from __future__ import annotations

import math

import numpy as np

from .._lazy import stats

GRID = 3  # points per axis of the region grid (ends and the plug-in point)


def cp(k, n, level):
    """The Clopper–Pearson interval of k of n at ``level``."""
    a = 1 - level
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


def axis(est, lo, hi, grid=GRID):
    """``grid`` points from lo to hi, the plug-in estimate first (repeats dropped)."""
    out = []
    for v in [est, *np.linspace(lo, hi, grid).tolist()]:
        v = float(v)
        if not out or all(abs(v - o) > 1e-12 for o in out):
            out.append(v)
    return out


def with_recalls(rates, recalls):
    """The rate matrix with row i's recall set to recalls[i] and its misclassifications scaled to
    the rest (in their observed proportions; equal shares where the row had none)."""
    rates = np.asarray(rates, dtype=float)
    K = rates.shape[0]
    out = np.empty_like(rates)
    for i in range(K):
        off = np.delete(rates[i], i)
        share = off / off.sum() if off.sum() > 0 else np.full(K - 1, 1 / (K - 1))
        out[i] = np.insert(share * (1 - recalls[i]), i, recalls[i])
    return out


def auc_region(auc, n_pos, n_neg, delta):
    """A (1 - delta) interval for the AUC from the largest variance any pair of score
    distributions with that AUC allows, θ(1 - θ)/min(n_pos, n_neg) (van Dantzig 1951; Bamber
    1975, J. Math. Psychol. 12, 387-415): |AUĈ - θ| <= z·sqrt(θ(1 - θ)/m) solved for θ, a Wilson
    interval with m = min(n_pos, n_neg). Conservative up to the normal approximation."""
    z = float(stats.norm.ppf(1 - delta / 2))
    m = min(n_pos, n_neg)
    centre = (auc + z * z / (2 * m)) / (1 + z * z / m)
    half = z * math.sqrt(auc * (1 - auc) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return max(0.0, centre - half), min(1.0, centre + half)
