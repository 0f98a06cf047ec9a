"""ROC and precision–recall confidence bands: the public doors and how often bands hold the true curve.

``roc_band(method, scores_pos, scores_neg, delta, fpr)`` and ``pr_band(..., recall)`` run a
band method (methods/bands.py, kinds ``roc_band`` and ``pr_band``) on one test set.
``band_coverage`` scores a method on the binormal design's simulated test sets against its
closed-form true curve (designs/binormal.py: ``true_roc``, ``true_pr``), with the measures

    pointwise coverage(t) = share of test sets with lower(t) <= R(t) <= upper(t), each t of the grid
    containment           = share of test sets whose band holds R(t) at every t of the grid at once
    mcse                  = sqrt(c(1 - c)/reps) of either
    mean_area             = mean over test sets of the trapezoid area ∫(upper - lower) over the grid's span

Test sets are the binormal design's (the same stream as its AUC study: common random numbers),
every method sees the same ones, and bootstrap draws come from a stream keyed by the point and
the method (``point_bands``), so results do not depend on order or chunking. The band study
(bands/study.py) runs these over a grid of points; this module imports nothing of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validate
from ..designs.binormal import binormal_scores, true_pr, true_roc
from ..methods import get
from ..methods.bands import FPR_GRID, LATENT_TARGET, RECALL_GRID
from ..methods.auc import _scores
from ..seeds import stream

DEFAULT_SEED = 0
CURVES = {"roc": ("roc_band", "fpr", FPR_GRID), "pr": ("pr_band", "recall", RECALL_GRID)}


def _grid(name: str, value, default, closed_high: bool) -> np.ndarray:
    if value is None:
        return np.array(default, dtype=float)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = np.array([np.nan])
    top = "(0, 1]" if closed_high else "(0, 1)"
    ok = arr.ndim == 1 and arr.size >= 1 and np.all(arr > 0) and np.all(arr <= 1 if closed_high else arr < 1)
    if not ok or np.any(np.diff(arr) <= 0):
        raise ValueError(f"{name} must be a 1-d increasing array of values in {top}, got {value!r}")
    return arr


def _band(curve, method, scores_pos, scores_neg, delta, grid, seed, params):
    takes, name, default = CURVES[curve]
    m = get(method, takes)
    pos, neg = _scores("scores_pos", scores_pos), _scores("scores_neg", scores_neg)
    d = float(validate.delta(validate.scalar("delta", delta)))
    g = _grid(name, grid, default, closed_high=curve == "pr")
    full = m.validate_params(params)
    rng = np.random.default_rng(None if seed is None else validate.seed(seed))
    lower, upper = m.kernel(pos, neg, d, rng=rng, grid=g, **full)
    return g, np.asarray(lower, float), np.asarray(upper, float)


def roc_band(method: str, scores_pos, scores_neg, delta=0.05, fpr=None, seed: int | None = DEFAULT_SEED,
             **params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A ``1 - delta`` confidence band for the ROC curve of one test set: ``(fpr, lower, upper)``.

    Parameters
    ----------
    method : str
        A ROC band method (``methods("roc_band")``): pointwise ``wilson``, ``clopper_pearson``,
        ``jeffreys``, ``bootstrap`` (pROC's ``ci.se``), ``credible``; simultaneous
        ``working_hotelling``, ``ks``, ``fixed_width``, ``sup_t``.
    scores_pos, scores_neg : array
        The positives' and the negatives' scores (higher = more likely positive), 2 or more each.
    delta : float
        The miss rate: pointwise bands aim at 1 - delta at each FPR, simultaneous ones on the whole grid.
    fpr : array, optional
        Increasing FPR values in (0, 1); default 0.05, 0.10, ..., 0.95.
    seed : int or None
        Seeds bootstrap draws (default 0: the same call, the same band; None: fresh entropy).
    **params
        The method's parameters, e.g. ``draws=2000``.

    Returns
    -------
    tuple of arrays
        ``(fpr, lower, upper)``: the grid and the band's ends at each of its values.

    Examples
    --------
    >>> import numpy as np
    >>> from covstudy import roc_band
    >>> rng = np.random.default_rng(1)
    >>> fpr, lower, upper = roc_band("ks", rng.normal(1, 1, 50), rng.normal(0, 1, 50), fpr=[0.1, 0.5])
    >>> fpr.tolist(), bool(np.all(lower <= upper))
    ([0.1, 0.5], True)
    """
    return _band("roc", method, scores_pos, scores_neg, delta, fpr, seed, params)


def pr_band(method: str, scores_pos, scores_neg, delta=0.05, recall=None, seed: int | None = DEFAULT_SEED,
            **params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A pointwise ``1 - delta`` band for the precision–recall curve: ``(recall, lower, upper)``.

    Precision at recall r is that of the highest threshold whose recall reaches r.

    Parameters
    ----------
    method : str
        A PR band method (``methods("pr_band")``): ``wilson``, ``clopper_pearson``, ``bootstrap``.
    scores_pos, scores_neg, delta, seed, **params
        As ``roc_band``.
    recall : array, optional
        Increasing recall values in (0, 1]; default 0.05, 0.10, ..., 0.95.

    Returns
    -------
    tuple of arrays
        ``(recall, lower, upper)``.

    Examples
    --------
    >>> import numpy as np
    >>> from covstudy import pr_band
    >>> rng = np.random.default_rng(1)
    >>> recall, lower, upper = pr_band("wilson", rng.normal(1, 1, 50), rng.normal(0, 1, 50), recall=[0.5])
    >>> bool(0 < lower[0] < upper[0] < 1)
    True
    """
    return _band("pr", method, scores_pos, scores_neg, delta, recall, seed, params)


# --------------------------------------------------------------------------- measures

def band_measures(lower, upper, truth, grid) -> dict:
    """Measures of bands ``lower``, ``upper`` (test sets, G) against the true curve ``truth`` (G,) (module docstring)."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    truth = np.asarray(truth, float)
    reps = lower.shape[0]
    tol = 1e-12  # a band edge equal to the truth up to rounding holds it
    inside = (lower <= truth + tol) & (truth <= upper + tol)
    pointwise = inside.mean(axis=0)
    containment = float(np.all(inside, axis=1).mean())
    width = upper - lower
    area = np.sum((width[:, 1:] + width[:, :-1]) / 2 * np.diff(grid), axis=1) if len(grid) > 1 else width[:, 0]
    return {"pointwise": pointwise, "pointwise_mcse": np.sqrt(pointwise * (1 - pointwise) / reps),
            "containment": containment, "containment_mcse": float(np.sqrt(containment * (1 - containment) / reps)),
            "mean_area": float(area.mean()), "miss_low": (truth < lower - tol).mean(axis=0),
            "miss_high": (truth > upper + tol).mean(axis=0)}


@dataclass(frozen=True)
class BandPoint:
    """A binormal design point: class sizes, true AUC, sd ratio, levels (0: continuous)."""

    n_pos: int
    n_neg: int
    auc: float
    sd_ratio: float = 1.0
    levels: int = 0

    def truth(self, curve: str, grid, latent: bool = False) -> np.ndarray:
        """The true curve on ``grid``; with ``latent`` the latent binormal ROC curve even for ratings."""
        if curve == "roc":
            return true_roc(grid, self.auc, self.sd_ratio, 0 if latent else self.levels)
        return true_pr(grid, self.auc, self.n_pos / (self.n_pos + self.n_neg), self.sd_ratio, self.levels)

    def test_sets(self, reps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """The binormal design's test sets at this point (its stream), as raw scores."""
        return binormal_scores(self.n_pos, self.n_neg, self.auc, self.sd_ratio, self.levels, reps, seed, ranks=False)


def point_bands(curve: str, specs, point: BandPoint, pos, neg, delta: float, grid, seed: int) -> list:
    """Each method's bands at ``point`` (test sets, G), for ``specs`` [(method, params), ...].

    Resamples come from the stream of the point, the curve and the method's parameters, not its
    name, and the methods take each test set in turn: the bootstrap bands of a point share their
    resamples (common random numbers), computed once (``methods.bands.bootstrap_curves``)."""
    runs = []
    for name, params in specs:
        m = get(name, CURVES[curve][0])
        full = m.validate_params(dict(params))
        rng = stream(seed, design="binormal", n_pos=point.n_pos, n_neg=point.n_neg, auc=point.auc,
                     sd_ratio=point.sd_ratio, levels=point.levels, purpose=f"{curve} band resamples", **full)
        runs.append((m, full, rng, np.empty((len(pos), len(grid))), np.empty((len(pos), len(grid)))))
    for i, (p, q) in enumerate(zip(pos, neg)):
        for m, full, rng, lower, upper in runs:
            lower[i], upper[i] = m.kernel(p, q, delta, rng=rng, grid=grid, **full)
    return [(r[3], r[4]) for r in runs]


def method_bands(curve: str, method: str, point: BandPoint, pos, neg, delta: float, grid, seed: int,
                 params: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One method's bands at ``point`` (``point_bands``)."""
    [out] = point_bands(curve, [(method, tuple((params or {}).items()))], point, pos, neg, delta, grid, seed)
    return out


def band_coverage(method: str, n_pos: int, n_neg: int, auc: float, sd_ratio: float = 1.0, levels: int = 0,
                  reps: int = 1000, seed: int = 2026, delta: float = 0.05, grid=None, curve: str = "roc",
                  **params) -> dict:
    """Monte Carlo measures (``band_measures``) of a band method at one binormal point.

    Parameters
    ----------
    method : str
        A band method of the kind ``curve`` takes (``methods("roc_band")``, ``methods("pr_band")``).
    n_pos, n_neg, auc, sd_ratio, levels
        The binormal design's point (designs/binormal.py).
    reps, seed : int
        Simulated test sets and the study seed (the design's stream).
    delta : float
        The miss rate.
    grid : array, optional
        FPR (ROC) or recall (PR) values; default 0.05, ..., 0.95.
    curve : {"roc", "pr"}
    **params
        The method's parameters (``draws``).

    Returns
    -------
    dict
        ``grid``, ``truth`` (the true curve on it), ``pointwise`` and ``pointwise_mcse`` (arrays
        over the grid), ``containment``, ``containment_mcse``, ``mean_area``, ``miss_low``, ``miss_high``.

    Examples
    --------
    >>> from covstudy import band_coverage
    >>> r = band_coverage("ks", n_pos=50, n_neg=50, auc=0.8, reps=200, seed=1)
    >>> r["containment"] >= 0.95
    True
    """
    if curve not in CURVES:
        raise ValueError(f"curve must be one of {', '.join(CURVES)}, got {curve!r}")
    point = BandPoint(int(n_pos), int(n_neg), float(auc), float(sd_ratio), int(levels))
    g = _grid(CURVES[curve][1], grid, CURVES[curve][2], closed_high=curve == "pr")
    pos, neg = point.test_sets(int(reps), seed)
    lower, upper = method_bands(curve, method, point, pos, neg, float(delta), g, seed, params)
    truth = point.truth(curve, g, latent=get(method, CURVES[curve][0]).name in LATENT_TARGET)
    return {"grid": g, "truth": truth, **band_measures(lower, upper, truth, g)}
