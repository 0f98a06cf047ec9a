"""The guaranteed leaderboard (methods/leaderboard_exact.py): every pair's interval and every rank set hold together
with probability >= 1 - δ by Monte Carlo at edge points, against the per-pair exact interval it is built from, and
its columns in covstudy-evaluate's leaderboard."""

from __future__ import annotations

import math

import numpy as np
import pytest

from covstudy.designs.many_models import pairs, sufficient
from covstudy.methods import methods
from covstudy.methods.melded import paired_exact_mcnemar

Z = 3.0
KERNEL = methods()["leaderboard.exact_bonferroni"].kernel

POINTS = {  # accuracies, shared-latent weight (correlation), n
    "three close models": ([0.7, 0.72, 0.75], 0.5, 100),
    "a perfect model": ([1.0, 0.9, 0.8, 0.95], 0.3, 60),
    "tiny n": ([0.5, 0.6, 0.4], 0.0, 6),
    "equal models": ([0.8, 0.8, 0.8, 0.8, 0.8], 0.8, 80),
    "a model always wrong": ([0.0, 0.3, 0.6], 0.0, 40),
    "many models": ([0.55, 0.6, 0.65, 0.7, 0.75, 0.8], 0.6, 150),
}


def _draw(acc, w, n, reps, rng):
    """Correctness (reps, n, k): model j right when w·U + (1 - w)·V_j < its accuracy's quantile (U shared)."""
    acc = np.asarray(acc, float)
    u = rng.uniform(size=(reps, n, 1))
    v = rng.uniform(size=(reps, n, acc.size))
    return np.where(rng.uniform(size=(reps, n, 1)) < w, u, v) < acc  # a mixture keeps each margin exact


@pytest.mark.parametrize("point", POINTS)
def test_every_pair_and_rank_set_hold_together(point):
    acc, w, n = POINTS[point]
    k = len(acc)
    X = _draw(acc, w, n, 200, np.random.default_rng(len(point)))  # the exact pair intervals are costly; proof per pair is tested in test_melded
    c, b, _ = sufficient(X)
    first, second = pairs(k)
    d = np.asarray(acc)[first] - np.asarray(acc)[second]
    a = np.asarray(acc)
    true_low = 1 + (a[None, :] > a[:, None]).sum(axis=1)
    true_high = k - (a[None, :] < a[:, None]).sum(axis=1)
    for delta in (0.3,):
        fam = KERNEL(c, b, n, delta)
        pairs_hold = np.all((fam.lower <= d + 1e-12) & (d - 1e-12 <= fam.upper), axis=1)
        ranks_hold = np.all((fam.rank_low <= true_high) & (true_low <= fam.rank_high), axis=1)
        for held in (pairs_hold, ranks_hold):
            cov = float(held.mean())
            assert cov >= 1 - delta - Z * math.sqrt(max(cov * (1 - cov), 1e-4) / held.size), (point, delta, cov)


def test_each_pair_is_the_exact_interval_at_delta_over_p():
    X = _draw([0.6, 0.7, 0.8, 0.9], 0.4, 50, 3, np.random.default_rng(2))
    c, b, _ = sufficient(X)
    fam = KERNEL(c, b, 50, 0.1)
    first, second = pairs(4)
    for r in range(3):
        for p, (i, j) in enumerate(zip(first, second)):
            both = b[r, i, j]
            lo, hi = paired_exact_mcnemar(both, c[r, i] - both, c[r, j] - both, 50 - c[r, i] - c[r, j] + both, 0.1 / 6)
            assert (fam.lower[r, p], fam.upper[r, p]) == pytest.approx((float(lo), float(hi)), abs=1e-12)


def test_evaluate_leaderboard_shows_the_guaranteed_family():
    from covstudy.evaluation.leaderboard import leaderboard

    rng = np.random.default_rng(4)
    truth = rng.integers(0, 2, 120)
    preds = {m: np.where(rng.uniform(size=120) < q, truth, 1 - truth) for m, q in (("a", 0.9), ("b", 0.6), ("c", 0.75))}
    lb = leaderboard(truth, preds, audit=False)
    assert {"guaranteed_lower", "guaranteed_upper"} <= set(lb.pairs) and "guaranteed_rank_low" in lb.models
    assert (lb.pairs.guaranteed_lower <= lb.pairs.difference).all() and (lb.pairs.difference <= lb.pairs.guaranteed_upper).all()
    assert "guaranteed (exact McNemar-compatible intervals at delta/3" in lb.text()
