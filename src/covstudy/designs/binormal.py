"""The binormal design: a classifier's scores on n_pos positives and n_neg negatives.

A study gives the class sizes (``n_pos``, ``n_neg``) or a test-set size and a prevalence,
n_pos = round(n·prevalence) (as the stratified design); ``sd_ratio`` (default 1) and
``levels`` (default 0) are optional.

Negatives score Y ~ N(0, 1), positives X ~ N(μ, σ²) (σ = ``sd_ratio``), with

    μ = Φ⁻¹(auc)·sqrt(1 + σ²),  so that the true AUC = P(X > Y) = Φ(μ/sqrt(1 + σ²)) = auc.

``levels`` = L >= 2 rounds every score onto an ordinal scale 1..L (a radiologist's rating):
the cut points c_1 < ... < c_{L-1} are the quantiles j/L of the equal mixture of the two
classes, ½Φ(c) + ½Φ((c - μ)/σ) = j/L, so each level holds about the same share of examples.
Ties are then common, and the estimand is the one the empirical AUC (the Mann–Whitney U/mn,
ties counted ½) estimates without bias under the discretised distributions:

    AUC = P(X > Y) + ½·P(X = Y) = Σ_l p⁺_l·(Σ_{k<l} p⁻_k + ½·p⁻_l),

with p⁺_l, p⁻_l the probabilities of level l for a positive and a negative (computed exactly
from Φ). ``levels`` = 0 keeps the scores continuous (the default), and then AUC = auc.

Monte Carlo only: a test set is n_pos + n_neg real numbers, so its outcome space is
continuous (and with levels it has L^(n_pos + n_neg) points, too many to enumerate for any
useful n). Each point's test sets come from the stream keyed by (n_pos, n_neg, auc,
sd_ratio, levels), drawn in fixed blocks of test sets (negatives, then positives), and are
shared by all methods (common random numbers).

What is kept of a test set: every AUC method here (methods/auc.py) depends on the scores only
through their order in the pooled sample, ties included (the intervals are invariant under
increasing maps of the scores). So each test set is stored as its scores' dense ranks in
the pooled sample (continuous) or its levels (ordinal), as the smallest unsigned integer
type that holds them: 2 bytes a score for n_pos + n_neg < 65,536 (1 byte for levels < 256),
i.e. reps·(n_pos + n_neg)·2 bytes in all, a quarter of the float64 scores; the floats exist
only for one block of at most ``BLOCK`` scores at a time.
"""

from __future__ import annotations

import itertools
from typing import ClassVar

import numpy as np
from scipy import special

from .._lazy import optimize, stats
from .. import validate
from ..estimands import Estimand, register_estimand
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .confusion import PREVALENCE, class_sizes
from .registry import register
from .sampling import BLOCK, dense_ranks

MC_LIMIT = 1_000_000  # n_pos + n_neg of one simulated test set
MC_ONLY = ("reps: the binormal design has Monte Carlo coverage only (its test sets are continuous "
           "scores, which cannot be enumerated); give reps (e.g. reps=2000)")


def location(auc: float, sd_ratio: float) -> float:
    """μ = Φ⁻¹(auc)·sqrt(1 + σ²): the positives' mean that makes Φ(μ/sqrt(1 + σ²)) = auc."""
    return float(special.ndtri(auc) * np.sqrt(1 + sd_ratio**2))


def cut_points(auc: float, sd_ratio: float, levels: int) -> np.ndarray:
    """c_1 < ... < c_{L-1}: the quantiles j/L of ½N(0, 1) + ½N(μ, σ²) (module docstring)."""
    mu = location(auc, sd_ratio)

    def mixture(c, q):
        return 0.5 * special.ndtr(c) + 0.5 * special.ndtr((c - mu) / sd_ratio) - q

    lo, hi = min(0.0, mu) - 40 * max(1.0, sd_ratio), max(0.0, mu) + 40 * max(1.0, sd_ratio)
    return np.array([optimize.brentq(mixture, lo, hi, args=(j / levels,), xtol=1e-14)
                     for j in range(1, levels)])


def level_probabilities(auc: float, sd_ratio: float, levels: int) -> tuple[np.ndarray, np.ndarray]:
    """(p⁺, p⁻): the probabilities of levels 1..L for a positive and for a negative."""
    mu = location(auc, sd_ratio)
    edges = np.r_[-np.inf, cut_points(auc, sd_ratio, levels), np.inf]
    return np.diff(stats.norm.cdf(edges, mu, sd_ratio)), np.diff(stats.norm.cdf(edges))


def true_auc(auc: float, sd_ratio: float, levels: int) -> float:
    """P(X > Y) + ½·P(X = Y): ``auc`` for continuous scores, else Σ_l p⁺_l·(P⁻(< l) + ½·p⁻_l)."""
    if levels == 0:
        return float(auc)
    pos, neg = level_probabilities(auc, sd_ratio, levels)
    below = np.cumsum(neg) - neg
    return float(np.sum(pos * (below + 0.5 * neg)))


def binormal_scores(n_pos: int, n_neg: int, auc: float, sd_ratio: float, levels: int, reps: int,
                    seed: int, ranks: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` simulated test sets as (positives' scores, negatives' scores), shapes (reps, n_pos),
    (reps, n_neg): pooled dense ranks (continuous) or levels 1..L, unsigned integers; with
    ``ranks=False`` the continuous scores themselves (float64; the same draws).

    Drawn from the stream of the point, in blocks of ``BLOCK // (n_pos + n_neg)`` test sets:
    per block the negatives' N(0, 1) variates (row by row), then the positives'.
    """
    rng = stream(seed, design="binormal", n_pos=n_pos, n_neg=n_neg, auc=auc, sd_ratio=sd_ratio, levels=levels)
    mu = location(auc, sd_ratio)
    cuts = cut_points(auc, sd_ratio, levels) if levels else None
    size = n_pos + n_neg
    dtype = np.min_scalar_type(levels if levels else size) if ranks or levels else np.float64
    pos, neg = np.empty((reps, n_pos), dtype=dtype), np.empty((reps, n_neg), dtype=dtype)
    step = max(1, BLOCK // size)
    for start in range(0, reps, step):
        rows = slice(start, min(reps, start + step))
        count = rows.stop - rows.start
        y = rng.standard_normal((count, n_neg))
        x = mu + sd_ratio * rng.standard_normal((count, n_pos))
        pooled = np.concatenate([x, y], axis=1)
        if levels:
            ranked = np.searchsorted(cuts, pooled) + 1
        elif not ranks:
            ranked = pooled
        else:
            ranked = dense_ranks(pooled)
        pos[rows], neg[rows] = ranked[:, :n_pos], ranked[:, n_pos:]
    return pos, neg


@register
class Binormal(Design):
    name = "binormal"
    data = "scores"
    estimand = "auc"
    exact_engine = False
    axes = (Axis("n", True, 4), PREVALENCE, Axis("n_pos", True, 2), Axis("n_neg", True, 2),
            Axis("auc", False, 0.0, 1.0, low_open=True, high_open=True),
            Axis("sd_ratio", False, 0.0, low_open=True),
            Axis("levels", True, 0))
    parametrisations = (("n_pos", "n_neg", "auc"), ("n", "prevalence", "auc"))
    optional: ClassVar[dict] = {"sd_ratio": 1.0, "levels": 0}
    summary = "scores N(0, 1) (negatives), N(μ, sd_ratio²) (positives) with true AUC auc; levels >= 2: ordinal (ties)"
    example: ClassVar[dict] = {"n_pos": 12, "n_neg": 18, "auc": 0.8, "sd_ratio": 1.5, "levels": 5}

    def derive(self, point: dict) -> dict:
        """Class sizes from (n, prevalence) as the stratified design's; sd_ratio = 1 and levels = 0
        (continuous) where not given; in column order."""
        point = {**self.optional, **point}
        if "n_pos" not in point:
            point["n_pos"], point["n_neg"] = class_sizes(point["n"], point["prevalence"])
        return {a.name: point[a.name] for a in self.axes if a.name in point}

    def points(self, grid: dict) -> list[dict]:
        given = [a.name for a in self.axes if grid.get(a.name) is not None]
        return [self.derive(dict(zip(given, combo))) for combo in itertools.product(*(grid[a] for a in given))]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        if point["n_pos"] < 2 or point["n_neg"] < 2:
            return f"n, prevalence: the binormal design needs n_pos, n_neg >= 2, got n_pos = {point['n_pos']}, " \
                   f"n_neg = {point['n_neg']} from n = {point['n']}, prevalence = {point['prevalence']}"
        if point["levels"] == 1 or point["levels"] > validate.LEVELS_MAX:  # each level is a root to find
            return (f"levels: must be 0 (continuous scores) or in [2, {validate.LEVELS_MAX:,}] (an ordinal scale), "
                    f"got {point['levels']:,}")
        if exact:
            return MC_ONLY
        size = point["n_pos"] + point["n_neg"]
        if size > MC_LIMIT:
            return f"n_pos, n_neg: binormal Monte Carlo keeps every score, so it needs n_pos + n_neg <= " \
                   f"{MC_LIMIT:,}, got {size:,}"
        return None

    keeps_test_sets = True
    sized_by = "n_pos, n_neg"

    def test_set_numbers(self, point: dict) -> int:
        return point["n_pos"] + point["n_neg"]

    def table_key(self, point: dict) -> tuple:
        return (point["n_pos"], point["n_neg"])

    def stream_identity(self, point: dict) -> dict:
        return {"design": "binormal", **{k: point[k] for k in ("n_pos", "n_neg", "auc", "sd_ratio", "levels")}}

    def truth_inputs(self, point: dict) -> dict:
        return {"auc": true_auc(point["auc"], point["sd_ratio"], point["levels"])}

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        """One outcome per simulated test set (weight 1): columns ``pos`` (reps, n_pos) and ``neg`` (reps, n_neg)."""
        [pt] = points
        pos, neg = binormal_scores(pt["n_pos"], pt["n_neg"], pt["auc"], pt["sd_ratio"], pt["levels"], reps, seed)
        return Outcomes({"pos": pos, "neg": neg}, np.ones((1, reps), dtype=np.int64))


@register_estimand("scores", "auc", takes=("scores",))
class AUC(Estimand):
    """θ = P(X > Y) + ½·P(X = Y) of a design's score distributions (designs/binormal.py): AUC methods
    on each test set's scores (columns ``pos``, ``neg``: one row per test set)."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["auc"])

    def valid(self, columns):
        return np.ones(np.shape(columns["pos"])[0], dtype=bool)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((columns["pos"], columns["neg"]), delta, side, rng=rng, **params)


def true_roc(fpr, auc: float, sd_ratio: float = 1.0, levels: int = 0) -> np.ndarray:
    """The design's true ROC curve TPR(t) at FPR values ``fpr`` in [0, 1].

    Continuous scores: TPR(t) = Φ(μ/σ + Φ⁻¹(t)/σ) (σ = sd_ratio, μ = ``location``), since the
    threshold c = Φ⁻¹(1 - t) gives P(X > c) = Φ((μ - c)/σ). Levels: the true operating points
    of the thresholds between levels (P⁻(>= l), P⁺(>= l)) joined by segments (the curve a
    randomised threshold traces; the empirical curve joins tied scores the same way).

    Parameters
    ----------
    fpr : float or array
        FPR values in [0, 1].
    auc, sd_ratio, levels
        The design's axes: the continuous scores' AUC, σ, and 0 or the number of levels.

    Returns
    -------
    array
        TPR at each FPR.

    Examples
    --------
    >>> from covstudy import true_roc
    >>> round(float(true_roc(0.5, 0.8)), 4)  # σ = 1: Φ(μ), μ = Φ⁻¹(0.8)·√2
    0.883
    """
    t = np.asarray(fpr, dtype=float)
    if levels == 0:
        mu = location(auc, sd_ratio)
        return special.ndtr(mu / sd_ratio + special.ndtri(t) / sd_ratio)
    pos, neg = level_probabilities(auc, sd_ratio, levels)
    x = np.r_[0.0, np.cumsum(neg[::-1])]
    y = np.r_[0.0, np.cumsum(pos[::-1])]
    x[-1] = y[-1] = 1.0
    return np.interp(t, x, y)


def true_pr(recall, auc: float, prevalence: float, sd_ratio: float = 1.0, levels: int = 0) -> np.ndarray:
    """The design's true precision at recall values ``recall`` in (0, 1], at ``prevalence`` π:
    precision = π·r/(π·r + (1 - π)·FPR(r)).

    Continuous scores: the threshold with recall r is c = μ - σ·Φ⁻¹(r), so FPR(r) = Φ(-c).
    Levels: the precision of the highest threshold between levels whose recall reaches r
    (the empirical PR curve's convention, methods/bands.py).

    Parameters
    ----------
    recall : float or array
        Recall values in (0, 1].
    auc, prevalence, sd_ratio, levels
        The design's AUC, the share of positives, σ, and 0 or the number of levels.

    Returns
    -------
    array
        Precision at each recall.

    Examples
    --------
    >>> from covstudy import true_pr
    >>> round(float(true_pr(1.0, 0.8, 0.5)), 4)  # every positive found: all negatives too
    0.5
    """
    r = np.asarray(recall, dtype=float)
    if levels == 0:
        mu = location(auc, sd_ratio)
        fpr = special.ndtr(-(mu - sd_ratio * special.ndtri(r)))
        tpr = r
    else:
        pos, neg = level_probabilities(auc, sd_ratio, levels)
        y = np.cumsum(pos[::-1])
        x = np.cumsum(neg[::-1])
        k = np.minimum(np.searchsorted(y, r - 1e-12, side="left"), levels - 1)
        tpr, fpr = y[k], x[k]
    return prevalence * tpr / (prevalence * tpr + (1 - prevalence) * fpr)
