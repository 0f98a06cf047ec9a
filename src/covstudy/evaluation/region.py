"""The (1 - delta) region of an operating point: the intervals and grids the audit's worst coverage ranges over.

Pure arithmetic on counts (no design, no method): the Clopper–Pearson interval of a proportion (``cp``), a
grid axis from the plug-in estimate over a range (``axis``), the AUC's maximum-variance interval
(``auc_region``) and a multiclass rate matrix moved to other recalls (``with_recalls``). ``metrics`` calls
them to attach each metric's region points; ``audit`` evaluates the coverage over those points.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .._lazy import stats

GRID = 3  # points per axis of the region grid (ends and the plug-in point)


def cp(k, n, level):
    """The Clopper–Pearson interval of k of n at ``level``: Beta quantiles, as betaincinv (the same numbers as
    scipy.stats.beta.ppf, without importing scipy.stats: ~1 CPU-s of an intervals-only run)."""
    a = 1 - level
    lo = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, a / 2))
    hi = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1 - a / 2))
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
    z = float(special.ndtri(1 - delta / 2))
    m = min(n_pos, n_neg)
    centre = (auc + z * z / (2 * m)) / (1 + z * z / m)
    half = z * math.sqrt(auc * (1 - auc) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return max(0.0, centre - half), min(1.0, centre + half)


AUC_EDGE = 1e-3  # the binormal designs take an AUC in (0, 1): the region is clipped to [AUC_EDGE, 1 - AUC_EDGE]
SD_RATIO_RANGE = (0.2, 5.0)  # the binormal sd_ratio region is clipped to this
ROC_MIN_POINTS = 3  # interior empirical ROC points the probit fit needs, else sd_ratio = 1


def z_of(level):
    """The two-sided normal quantile of ``level``: Φ⁻¹(1 - (1 - level)/2)."""
    return float(special.ndtri(1 - (1 - level) / 2))  # Φ⁻¹ (scipy.stats.norm.ppf without importing it)


def delong_se(pos, neg) -> float:
    """DeLong's standard error of the Mann–Whitney AUC of one classifier (DeLong, DeLong &
    Clarke-Pearson 1988, Biometrics 44, 837-845; ``methods.auc_difference.delong_covariance``)."""
    from ..methods.auc_difference import delong_covariance

    _, cov = delong_covariance(np.asarray(pos, dtype=float)[None], np.asarray(neg, dtype=float)[None])
    return float(math.sqrt(max(float(cov[0, 0]), 0.0)))


def auc_box(auc, se, level):
    """The AUC's range: AUĈ ± z·SE (DeLong), z of ``level``, clipped to [AUC_EDGE, 1 - AUC_EDGE]."""
    z = z_of(level)
    clip = lambda v: min(max(float(v), AUC_EDGE), 1 - AUC_EDGE)  # noqa: E731
    return clip(auc - z * se), clip(auc + z * se)


def binormal_sd_ratio(pos, neg) -> float:
    """The binormal sd_ratio σ (positives' SD / negatives') from the empirical ROC: on the binormal ROC
    Φ⁻¹(TPR) = a + b·Φ⁻¹(FPR) with b = 1/σ (Swets & Pickett 1982, "Evaluation of diagnostic systems";
    Hanley 1988, "The robustness of the 'binormal' assumptions used in fitting ROC curves", Med. Decis.
    Making 8, 197-203). Both coordinates of the ROC points strictly inside (0, 1) are noisy, so the
    slope is the reduced-major-axis (geometric mean) one, b = SD(Φ⁻¹ TPR)/SD(Φ⁻¹ FPR), not least squares,
    which regression dilution biases towards 0 (σ too large: 2.3 for a true 2 at AUC 0.99, n = 85 + 143,
    against 2.0 for this one, in a simulation). 1 when fewer than ROC_MIN_POINTS such points (a
    near-perfect separation) or the points fall (not rise); clipped to SD_RATIO_RANGE."""
    pos, neg = np.sort(np.asarray(pos, dtype=float)), np.sort(np.asarray(neg, dtype=float))
    cuts = np.sort(np.concatenate([pos, neg]), kind="stable")  # two sorted runs: merged in O(n) (timsort)
    cuts = cuts[np.concatenate([[True], cuts[1:] != cuts[:-1]])]  # = np.unique
    tpr = 1 - np.searchsorted(pos, cuts, side="left") / pos.size  # P(score >= cut)
    fpr = 1 - np.searchsorted(neg, cuts, side="left") / neg.size
    inside = (tpr > 0) & (tpr < 1) & (fpr > 0) & (fpr < 1)
    if inside.sum() < ROC_MIN_POINTS:
        return 1.0
    x, y = special.ndtri(fpr[inside]), special.ndtri(tpr[inside])  # Φ⁻¹, as stats.norm.ppf without its checks
    sx, sy = float(np.std(x)), float(np.std(y))
    if sx == 0 or sy == 0 or np.dot(x - x.mean(), y - y.mean()) <= 0:  # the points fall: correlation <= 0
        return 1.0
    return float(np.clip(sx / sy, *SD_RATIO_RANGE))


def sd_ratio_box(ratio, n_pos, n_neg, level):
    """σ̂·exp(±z·SE) with SE = sqrt(1/(2(n_pos - 1)) + 1/(2(n_neg - 1))), the normal-theory standard
    error of a log ratio of two sample SDs (Var log s ≈ 1/(2(n - 1))), clipped to SD_RATIO_RANGE."""
    se = math.sqrt(1 / (2 * max(n_pos - 1, 1)) + 1 / (2 * max(n_neg - 1, 1)))
    z = z_of(level)
    lo, hi = SD_RATIO_RANGE
    return float(min(max(ratio * math.exp(-z * se), lo), hi)), float(min(max(ratio * math.exp(z * se), lo), hi))


def correlation_box(r, n, level, limit=0.99):
    """Fisher's z interval of a Spearman correlation r from n pairs: tanh(atanh r ± z·1.03/sqrt(n - 3))
    (Fieller, Hartley & Pearson 1957, Biometrika 44, 470-481), clipped to [-limit, limit]."""
    r = min(max(float(r), -limit), limit)
    half = z_of(level) * 1.03 / math.sqrt(max(n - 3, 1))
    return float(max(math.tanh(math.atanh(r) - half), -limit)), float(min(math.tanh(math.atanh(r) + half), limit))


def icc_box(successes, sizes, level, limit=0.99):
    """The F-based interval of the one-way ANOVA ICC: with F = BMS/WMS on (m - 1, N - m) degrees of
    freedom and s* the adjusted mean cluster size (``methods.clustered.anova_icc``),
    F_L = F/F_{1-a/2}, F_U = F/F_{a/2}, ICC = (F_· - 1)/(F_· + s* - 1) (Searle 1971, "Linear models",
    §9.8; Donner 1986, "A review of inference procedures for the intraclass correlation coefficient in
    the one-way random effects model", Int. Stat. Rev. 54, 67-82; exact for equal sizes), clipped to
    [0, limit]. (0, 0) when undefined (clusters of one example, or no variation at all)."""
    y, s = np.asarray(successes, dtype=float), np.asarray(sizes, dtype=float)
    m, n, k = y.size, s.sum(), y.sum()
    between = float(np.sum(y * y / s))
    df_w = float(np.sum(s - 1))
    if m < 2 or df_w <= 0:
        return 0.0, 0.0
    bms, wms = (between - k * k / n) / (m - 1), (k - between) / df_w
    if wms <= 0:
        return (limit, limit) if bms > 0 else (0.0, 0.0)
    s_star = (n * n - float(np.sum(s * s))) / ((m - 1) * n)
    f, a = bms / wms, 1 - level
    f_lo, f_hi = f / stats.f.ppf(1 - a / 2, m - 1, df_w), f / stats.f.ppf(a / 2, m - 1, df_w)
    icc = lambda v: float(min(max((v - 1) / (v + s_star - 1), 0.0), limit))  # noqa: E731
    return icc(f_lo), icc(f_hi)


def cells_of_shares(d, r, s) -> tuple[float, float, float, float]:
    """A 2×2 paired table's probabilities (both, only first, only second, neither) from the discordant
    share d, the only-first share r of the discordant and the both-correct share s of the concordant."""
    return (1 - d) * s, d * r, d * (1 - r), (1 - d) * (1 - s)


def shares_box(both, only_first, only_second, neither, level):
    """Clopper–Pearson intervals at ``level`` of (d, r, s) of a 2×2 paired table (``cells_of_shares``);
    [0, 1] for a share of an empty part; with the plug-in shares."""
    disc, conc = only_first + only_second, both + neither
    n = disc + conc
    at = dict(d=disc / n if n else 0.5, r=only_first / disc if disc else 0.5, s=both / conc if conc else 0.5)
    box = dict(d=cp(disc, n, level) if n else (0.0, 1.0), r=cp(only_first, disc, level) if disc else (0.0, 1.0),
               s=cp(both, conc, level) if conc else (0.0, 1.0))
    return at, box
