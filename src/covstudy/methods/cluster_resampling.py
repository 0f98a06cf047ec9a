"""Totals over bootstrap resamples of whole clusters, drawn as multiplicities where clusters repeat.

A cluster bootstrap resample draws m of a test set's m clusters with replacement and sums their
columns (successes and sizes; a ratio's numerator and denominator). When the clusters take few
distinct values — the simulated designs' equal clusters hold 0..s successes, so at most s + 1 —
a resample is the same as how many times each distinct cluster is drawn, which is one
Multinomial(m, its share of the clusters) variate, and the totals are those counts times the
distinct rows: D binomial variates a resample instead of m uniforms and m gathers (~8× faster at
m = 1,000, D = 11). Otherwise a resample is m indices ⌊u·m⌋, u ~ U[0, 1). Both draw from the
same law; the numbers differ, so a call takes one path for all its test sets (``_distinct``).
Flow: methods/clustered.py and methods/clustered_metrics.py (their ``cluster_bootstrap``).
"""

from __future__ import annotations

import numpy as np

SHARE = 4  # the multiplicities path when every test set has at most m / SHARE distinct clusters
KEY_MAX = 2**52  # ... and its clusters' columns, whole numbers, pack into one exact float key


def resampled_totals(values: np.ndarray, draws: int, rng, block: int):
    """Yield (rows, totals): slices of test sets and their resamples' column totals, (len(rows), draws, k),
    for ``values`` of shape (test sets, m, k), test set by test set and resample by resample from ``rng``.
    Multiplicities where every test set has at most m / SHARE distinct clusters (module docstring); else
    indices, in blocks of at most ``block`` random numbers (one test set's resamples in blocks beyond it)."""
    sets, m, k = values.shape
    distinct = _distinct(values)
    if distinct is not None:
        for t, (rows, counts) in enumerate(distinct):
            multiplicity = rng.multinomial(m, counts / m, size=draws)  # (draws, D)
            yield slice(t, t + 1), (multiplicity @ rows)[None]
        return
    step = max(1, block // (draws * m))
    chunk = max(1, block // m) if draws * m > block else draws
    for start in range(0, sets, step):
        rows = slice(start, min(sets, start + step))
        size = rows.stop - start
        totals = np.empty((size, draws, k))
        for d in range(0, draws, chunk):
            c = min(chunk, draws - d)
            pick = (rng.random((size, c, m)) * m).astype(np.int64)
            totals[:, d:d + c] = values[rows][np.arange(size)[:, None, None], pick].sum(axis=2)
        yield rows, totals


def _distinct(values):
    """Per test set (distinct cluster rows (D, k), how many clusters each), if every test set has at most
    m / SHARE of them and the columns are non-negative whole numbers that pack into one exact key; else None."""
    sets, m, k = values.shape
    if m < SHARE or not np.all((values >= 0) & (values == np.floor(values))):
        return None
    base = values.max(axis=(0, 1)) + 1
    if np.prod(base) > KEY_MAX:
        return None
    weights = np.concatenate([[1.0], np.cumprod(base[:-1])])
    keys = np.sort(values @ weights, axis=1)  # one exact whole number a cluster
    new = np.ones((sets, m), dtype=bool)
    np.not_equal(keys[:, 1:], keys[:, :-1], out=new[:, 1:])
    if np.any(new.sum(axis=1) * SHARE > m):
        return None
    out = []
    for t in range(sets):
        first = np.flatnonzero(new[t])
        key = keys[t, first]
        counts = np.diff(np.append(first, m)).astype(float)
        rows = np.stack([(key // w) % b for w, b in zip(weights, base)], axis=1)
        out.append((rows, counts))
    return out
