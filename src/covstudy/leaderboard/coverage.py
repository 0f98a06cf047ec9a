"""The leaderboard door and its family measures: how a method's whole family of claims holds up.

For one design point (designs/many_models.py) and one method (methods/leaderboard.py), over test
sets j with weights w_j (the pmf for the exact engine, 1/reps for Monte Carlo), with true
differences d_p over the P pairs and true rank ranges [lo_m, hi_m]:

    family_coverage = Σ_j w_j · 1[every pair: lower_jp <= d_p <= upper_jp]      (simultaneous coverage)
    pair_coverage   = Σ_j w_j · mean_p 1[lower_jp <= d_p <= upper_jp]           (the per-pair average)
    mean_width      = Σ_j w_j · mean_p (upper_jp - lower_jp)
    false_claim     = Σ_j w_j · 1[some claim c_jp != 0 with sign(d_p) != c_jp]   (family-wise directional error;
                      a claim between equal models is false)
    false_discovery = Σ_j w_j · #false claims_j / max(#claims_j, 1)              (the false discovery rate)
    power           = Σ_j w_j · #true claims_j / #{p: d_p != 0}                  (NaN when every d_p = 0)
    rank_coverage   = Σ_j w_j · 1[every model: rank_low_jm <= lo_m and hi_m <= rank_high_jm]
    rank_size       = Σ_j w_j · mean_m (rank_high_jm - rank_low_jm + 1)          (1: the rank is pinned down)
    <rate>_mcse     = sqrt(r(1 - r)/reps) for family_coverage, false_claim and rank_coverage (0 when exact)

Interval measures are NaN for a method giving claims only (Holm, BH); claim measures are NaN for
one giving rank sets only (bootstrap ranks). ``MEASURES`` declares each column's range, checked
on every row the door returns.
"""

from __future__ import annotations

import numpy as np

from .. import validate
from ..designs.many_models import ManyModels, sufficient
from ..methods.leaderboard import RESAMPLING, Family
from ..methods.registry import get
from ..seeds import stream

MEASURES = {"family_coverage": (0.0, 1.0), "family_coverage_mcse": (0.0, 0.5), "pair_coverage": (0.0, 1.0),
            "mean_width": (0.0, 2.0), "false_claim": (0.0, 1.0), "false_claim_mcse": (0.0, 0.5),
            "false_discovery": (0.0, 1.0), "power": (0.0, 1.0), "rank_coverage": (0.0, 1.0),
            "rank_coverage_mcse": (0.0, 0.5), "rank_size": (1.0, np.inf)}
_SUMS = ("family_coverage", "pair_coverage", "mean_width", "false_claim", "false_discovery", "power",
         "rank_coverage", "rank_size")


def per_test_set(family: Family, d: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> dict[str, np.ndarray]:
    """Each test set's indicator or proportion behind every measure (the summands above)."""
    out = {}
    nan = np.full(len(family.rank_low), np.nan)
    if family.lower is None:
        out.update(family_coverage=nan, pair_coverage=nan, mean_width=nan)
    else:
        inside = (family.lower <= d) & (d <= family.upper)
        out.update(family_coverage=inside.all(axis=1).astype(float), pair_coverage=inside.mean(axis=1),
                   mean_width=(family.upper - family.lower).mean(axis=1))
    if family.claim is None:
        out.update(false_claim=nan, false_discovery=nan, power=nan)
    else:
        truth = np.sign(d)
        made = family.claim != 0
        wrong = made & (family.claim != truth)
        right = made & ~wrong
        different = int(np.count_nonzero(truth))
        out.update(false_claim=wrong.any(axis=1).astype(float),
                   false_discovery=wrong.sum(axis=1) / np.maximum(made.sum(axis=1), 1),
                   power=right.sum(axis=1) / different if different else nan)
    out["rank_coverage"] = ((family.rank_low <= lo) & (hi <= family.rank_high)).all(axis=1).astype(float)
    out["rank_size"] = (family.rank_high - family.rank_low + 1).mean(axis=1)
    return out


def summarise(sums: dict, total: float, reps: int | None) -> dict[str, float]:
    """The measures from weighted sums over test sets (reps None: exact, MCSE 0)."""
    out = {m: sums[m] / total for m in _SUMS}
    for m in ("family_coverage", "false_claim", "rank_coverage"):
        r = out[m]
        out[f"{m}_mcse"] = (0.0 if reps is None or np.isnan(r) else float(np.sqrt(max(r * (1 - r), 0) / reps)))
    for m, (low, high) in MEASURES.items():
        v = out[m]
        if not (np.isnan(v) or low - 1e-12 <= v <= high + 1e-12):
            raise ValueError(f"{m}: {v} is outside [{low}, {high}]")
    return out


def _check_delta(delta) -> None:
    try:
        value = validate.number("delta", delta)
    except ValueError:
        value = np.nan
    if not 0 < value < 1:  # NaN fails too
        raise ValueError(f"delta: the miss rate must be in (0, 1), got {delta!r}")


def leaderboard_coverage(design: ManyModels, methods, delta: float = 0.05, reps: int | None = 1000,
                         seed: int = 0) -> list[dict]:
    """The family measures of every method (names or (name, params)) at ``design``: Monte Carlo over
    ``reps`` test sets (common to every method), or exact (``reps=None``; k <= 3 and small n)."""
    problem = design.check(exact=reps is None)
    if problem:
        raise ValueError(problem)
    _check_delta(delta)
    if reps is not None:
        reps = validate.whole("reps", reps, 1, validate.REPS_MAX)
    seed = validate.seed(seed)
    specs = [(m, {}) if isinstance(m, str) else (m[0], dict(m[1])) for m in methods]
    chosen = [(get(name, "leaderboard"), params) for name, params in specs]
    for m, params in chosen:  # checked (draws: 0 refused), the given ones kept: they name the row and its stream
        m.validate_params(params)
    if reps is None and any(m.name in RESAMPLING for m, _ in chosen):
        raise ValueError("method: the bootstrap methods have no exact engine (use Monte Carlo: give reps)")
    d = design.differences()
    lo, hi = design.ranks()
    sums = [dict.fromkeys(_SUMS, 0.0) for _ in chosen]
    if reps is None:
        correct, both, weight = design.exact()
        blocks = [(correct, both, design.n, None, weight)]
    else:
        blocks = ((*sufficient(X), X, np.ones(len(X))) for X in design.simulate(reps, seed))
    rngs = [stream(seed, method=m.name, **params, **design.identity()) for m, params in chosen]
    for correct, both, n, X, weight in blocks:
        for (m, params), rng, acc in zip(chosen, rngs, sums):
            extra = {"rows": X, "rng": rng} if m.name in RESAMPLING else {}
            family = m.kernel(correct, both, n, delta, **params, **extra)
            for name, values in per_test_set(family, d, lo, hi).items():
                acc[name] += float(np.sum(weight * values))
    total = float(reps) if reps is not None else 1.0
    return [{"method": m.short, **{k: v for k, v in params.items()}, **summarise(acc, total, reps)}
            for (m, params), acc in zip(chosen, sums)]


def auc_leaderboard_coverage(design, methods, delta: float = 0.05, reps: int = 1000, seed: int = 0) -> list[dict]:
    """The family measures of AUC leaderboard methods (methods/leaderboard_auc.py) at a
    ``designs.many_binormal.ManyBinormal`` point, Monte Carlo over ``reps`` test sets common to every method."""
    from ..methods.auc_difference import delong_covariance
    from ..methods.leaderboard_auc import FROM_SCORES

    problem = design.check(exact=reps is None)
    if problem:
        raise ValueError(problem)
    _check_delta(delta)
    reps, seed = validate.whole("reps", reps, 1, validate.REPS_MAX), validate.seed(seed)
    specs = [(m, {}) if isinstance(m, str) else (m[0], dict(m[1])) for m in methods]
    chosen = [(get(name, "leaderboard_auc"), params) for name, params in specs]
    for m, params in chosen:
        m.validate_params(params)
    d = design.differences()
    lo, hi = design.ranks()
    sums = [dict.fromkeys(_SUMS, 0.0) for _ in chosen]
    for pos, neg in design.simulate(reps, seed):
        auc, cov = delong_covariance(pos, neg)
        for (m, params), acc in zip(chosen, sums):
            scores = {"scores_pos": pos, "scores_neg": neg} if m.name in FROM_SCORES else {}
            for name, values in per_test_set(m.kernel(auc, cov, delta, **params, **scores), d, lo, hi).items():
                acc[name] += float(np.sum(values))
    return [{"method": m.short, **params, **summarise(acc, float(reps), reps)} for (m, params), acc in zip(chosen, sums)]
