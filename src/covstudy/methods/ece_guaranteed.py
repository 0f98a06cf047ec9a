"""A guaranteed interval for the binned L1 ECE: Clopper–Pearson per bin at Šidák's level, projected onto the ECE.

The estimand, with weights and mean scores conditioned on the test set: E = Σ_j (m_j/n)·|s̄_j - f_j|, m_j the
bin's count, s̄_j its mean score (both observed) and f_j = P(y = 1 | s in bin j) the population's frequency in
the bin (methods/calibration.py's notation). Given which bin each example falls in, bin j's labels are m_j
independent Bernoulli(f_j) draws and the bins are independent, so Clopper–Pearson intervals at per-bin miss
rate 1 - (1 - δ)^{1/B'} over the B' non-empty bins hold every f_j at once with probability >= 1 - δ (Šidák's
product, exact under independence; the band of ``calibration.band``). On that event E lies between the
minimum and the maximum of Σ_j w_j·|s̄_j - f_j| over the box, and both are separable by bin:

    min_j = distance from s̄_j to [l_j, u_j] (0 inside),  max_j = max(|s̄_j - l_j|, |s̄_j - u_j|).

Empty bins have weight 0. The plug-in ECE (f_j = ȳ_j, inside every Clopper–Pearson interval) lies inside.
As the sample grows, m_j/n → P(bin j) and s̄_j → E[s | bin j], so E → the population's binned ECE; at a
finite n the interval covers E, not that limit, by proof (the audit measures the other).
"""

from __future__ import annotations

import numpy as np

from .calibration import BINNED_INTERVALS, ESTIMATES, TARGETS, bin_intervals, bin_stats, plugin_ece
from .registry import register


def box_ece(m, k, S, delta):
    """(lower, upper) of the ECE over the Šidák box of per-bin Clopper–Pearson intervals, from the bins'
    counts m, positives k and score sums S (last axis: bins; module docstring)."""
    m, k, S = (np.asarray(x, dtype=float) for x in (m, k, S))
    full = m > 0
    used = np.maximum(full.sum(axis=-1, keepdims=True), 1)
    per_bin = -np.expm1(np.log1p(-np.asarray(delta, dtype=float)[..., None]) / used)
    lo, hi = bin_intervals("clopper_pearson", k.astype(np.int64), m.astype(np.int64), per_bin)
    s = S / np.maximum(m, 1)
    near = np.maximum(np.maximum(lo - s, s - hi), 0.0)
    far = np.maximum(np.abs(s - lo), np.abs(s - hi))
    w = m / m.sum(axis=-1, keepdims=True)
    return np.sum(np.where(full, w * near, 0.0), axis=-1), np.sum(np.where(full, w * far, 0.0), axis=-1)


@register("ece_clopper_pearson_sidak", display="Clopper–Pearson Šidák box (ECE)", takes="calibration",
          family="exact", guaranteed=True,
          reference="Clopper & Pearson (1934), Biometrika 26, 404-413; Šidák (1967), JASA 62, 626-633; "
                    "binned ECE: Naeini, Cooper & Hauskrecht (2015)")
def ece_clopper_pearson_sidak(scores, labels, delta, rng=None, *, edges, draws=None):
    """[min, max] of Σ_j (m_j/n)|s̄_j - f_j| over the Šidák box of per-bin Clopper–Pearson intervals of f_j
    (rows: test sets; ``draws`` is accepted as every ECE kernel's and unused: nothing is resampled)."""
    return box_ece(*bin_stats(scores, labels, edges), np.asarray(delta, dtype=float))


ESTIMATES["clopper_pearson_sidak"] = lambda s, y, edges: plugin_ece(*bin_stats(s, y, edges))
TARGETS["clopper_pearson_sidak"] = ("ece",)
BINNED_INTERVALS["clopper_pearson_sidak"] = lambda observed, resampled, delta: tuple(
    float(v) for v in box_ece(*observed, delta))
