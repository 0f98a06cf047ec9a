"""The distribution-free AUC intervals (methods/auc_distribution_free.py, methods/chernoff.py): the rate and
the inversions against scipy, Monte Carlo coverage >= 1 - δ at edge points (continuous, tied, tiny, near
0.5 and 1, two models that mostly agree; an AUC leaderboard's pairs at once), invariants by hypothesis, and the
README example's widths."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from covstudy.methods import auc_distribution_free as adf
from covstudy.methods import chernoff, get

Z = 3.0  # MCSEs of slack below 1 - δ


def test_rate_is_the_supremum_of_the_chernoff_exponent():
    for w, D, s in [(0.1, 0.0, 0.3), (-0.2, 0.05, 0.5), (0.6, 0.2, 0.9), (0.0, -0.1, 0.2), (0.3, 0.3 - 1e-9, 0.7),
                    (0.5, 0.1, 1.0)]:
        exponent = lambda mu: -(mu * w - math.log(1 - s + (s + D) / 2 * math.exp(mu) + (s - D) / 2 * math.exp(-mu)))
        best = optimize.minimize_scalar(exponent, bounds=(-60, 60), method="bounded", options={"xatol": 1e-12})
        assert chernoff.rate(w, D, s) == pytest.approx(-best.fun, rel=1e-6, abs=1e-9)


def test_rate_with_s_one_is_the_bernoulli_divergence():
    w, D = np.linspace(-0.9, 0.9, 7), np.linspace(-0.8, 0.85, 7)[:, None]
    assert np.allclose(chernoff.rate(w, D, 1.0), chernoff.kl_bernoulli((1 + w) / 2, (1 + D) / 2), atol=1e-12)


def test_kl_bounds_solve_the_divergence_equation():
    for mean in (0.0, 0.03, 0.5, 0.91, 1.0):
        for k in (2, 17, 300):
            level = math.log(2 / 0.05)
            lo, hi = (float(v) for v in chernoff.kl_bounds(mean, k, level))
            f = lambda t: k * float(chernoff.kl_bernoulli(mean, t)) - level
            want_lo = 0.0 if f(0.0) <= 0 else optimize.brentq(f, 0.0, mean, xtol=1e-15)
            want_hi = 1.0 if f(1.0) <= 0 else optimize.brentq(f, mean, 1.0, xtol=1e-15)
            assert lo == pytest.approx(want_lo, abs=1e-12) and hi == pytest.approx(want_hi, abs=1e-12)
            assert lo <= want_lo + 1e-15 and hi >= want_hi - 1e-15  # the outer end of the bracket


def test_trinomial_bounds_solve_the_rate_equation():
    level = math.log(2 / 0.05)
    for w, s, k in [(0.01, 0.05, 85), (-0.2, 0.4, 30), (0.0, 0.001, 1000), (0.3, 0.9, 12)]:
        lo, hi = (float(v) for v in chernoff.trinomial_bounds(w, s, k, level))
        def f(D):
            with np.errstate(all="ignore"):  # the tail end of the range: p or q near 0
                return k * float(chernoff.rate(w, D, s)) - level
        for end, edge in ((lo, -s), (hi, s)):
            want = edge if f(edge * (1 - 1e-12)) <= 0 else optimize.brentq(f, w, edge * (1 - 1e-12), xtol=1e-15)
            assert end == pytest.approx(want, abs=1e-10)


def _mc(draw, truth, kernel, delta, reps, seed):
    """Coverage of ``kernel`` over ``reps`` test sets from ``draw(rng, reps)`` and its MCSE; a test set covers when
    every interval it gives covers its truth (a family: the last axis)."""
    lo, hi = kernel(*draw(np.random.default_rng(seed), reps), delta)
    hit = (lo <= truth + 1e-12) & (truth - 1e-12 <= hi)
    c = float(hit.reshape(reps, -1).all(axis=1).mean())
    return c, math.sqrt(max(c * (1 - c), 1e-4) / reps)


def _assert_covers(points, point, kernel, reps, deltas=(0.05, 0.4)):
    """Monte Carlo coverage of ``kernel`` at ``points[point]`` (draw, truth) >= 1 - δ - Z·MCSE at each δ (the large δ
    misses often enough that an interval too narrow shows)."""
    draw, truth = points[point]
    for delta in deltas:
        c, se = _mc(draw, truth, kernel, delta, reps, seed=len(point))
        assert c >= 1 - delta - Z * se, (point, delta, c)


def _discrete(values_pos, p_pos, values_neg, p_neg, m, n):
    """Test sets from two discrete laws and their true AUC (ties ½)."""
    x, y, px, py = map(np.asarray, (values_pos, values_neg, p_pos, p_neg))
    truth = float(px @ ((np.sign(x[:, None] - y[None, :]) + 1) / 2) @ py)
    return (lambda rng, r: (rng.choice(x, (r, m), p=px), rng.choice(y, (r, n), p=py))), truth


AUC_POINTS = {
    # (draw, truth): continuous near 0.5, binormal near 1 and near 0, tiny classes, heavy ties, the coin
    "near 0.5": (lambda rng, r: (rng.normal(0.1, 1, (r, 15)), rng.normal(0, 1, (r, 25))),
                 float(__import__("scipy.stats").stats.norm.cdf(0.1 / math.sqrt(2)))),
    "near 1": (lambda rng, r: (rng.normal(3.3, 1, (r, 40)), rng.normal(0, 1, (r, 60))),
               float(__import__("scipy.stats").stats.norm.cdf(3.3 / math.sqrt(2)))),
    "near 0": (lambda rng, r: (rng.normal(-2.5, 1, (r, 30)), rng.normal(0, 1, (r, 20))),
               float(__import__("scipy.stats").stats.norm.cdf(-2.5 / math.sqrt(2)))),
    "tiny": _discrete([0.0, 1.0, 2.0], [0.2, 0.3, 0.5], [0.0, 1.0, 2.0], [0.5, 0.3, 0.2], 2, 3),
    "ties": _discrete([0.0, 1.0, 2.0], [0.1, 0.6, 0.3], [0.0, 1.0, 2.0], [0.3, 0.6, 0.1], 25, 25),
    "coin": _discrete([-1.0, 1.0], [0.05, 0.95], [0.0], [1.0], 30, 10),  # ψ a coin: where Chernoff is tightest
}


@pytest.mark.parametrize("point", AUC_POINTS)
def test_auc_coverage_at_least_nominal(point):
    _assert_covers(AUC_POINTS, point, adf.chernoff_hoeffding, 2000)


def _paired(p_pos, p_neg, m, n):
    """Test sets of two models' scores from discrete joint laws over levels 0..L-1 (p_pos[a, b]: the
    positives' first score a, second b) and the true AUC difference (ties ½)."""
    p_pos, p_neg = np.asarray(p_pos, float), np.asarray(p_neg, float)
    L = p_pos.shape[0]
    psi = (np.sign(np.arange(L)[:, None] - np.arange(L)[None, :]) + 1) / 2
    truth = float(p_pos.sum(1) @ psi @ p_neg.sum(1) - p_pos.sum(0) @ psi @ p_neg.sum(0))

    def draw(rng, r):
        cp, cn = (rng.choice(L * L, (r, size), p=p.ravel()) for p, size in ((p_pos, m), (p_neg, n)))
        return cp // L, cn // L, cp % L, cn % L
    return draw, truth


def _agree(flip_pos, flip_neg, L=4):
    """Both models score a case alike, but the second moves it one level the wrong way with the given chances."""
    base = np.linspace(1, 2, L)
    pos, neg = np.diag(base / base.sum()), np.diag(base[::-1] / base.sum())
    for p, f, step in ((pos, flip_pos, -1), (neg, flip_neg, 1)):
        for a in range(L):
            b = min(max(a + step, 0), L - 1)
            move = p[a, a] * f
            p[a, a] -= move
            p[a, b] += move
    return pos, neg


DIFF_POINTS = {
    "identical models (D = 0, s = 0)": _paired(*_agree(0.0, 0.0), 20, 30),
    "one model never worse (D = s)": _paired(*_agree(0.1, 0.05), 30, 40),
    "rare disagreement": _paired(*_agree(0.02, 0.02), 60, 60),
    "tiny classes": _paired(*_agree(0.3, 0.2), 2, 3),
    "independent models, heavy ties": _paired(np.outer([0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]),
                                              np.outer([0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]), 15, 12),
    "opposite models (D near 1)": _paired(np.outer([0, 0, 0.1, 0.9], [0.9, 0.1, 0, 0]),
                                          np.outer([0.9, 0.1, 0, 0], [0, 0, 0.1, 0.9]), 10, 10),
}


@pytest.mark.parametrize("point", DIFF_POINTS)
def test_auc_difference_coverage_at_least_nominal(point):
    _assert_covers(DIFF_POINTS, point, adf.auc_difference_chernoff_hoeffding, 1500)


def _board(p_pos, p_neg, m, n):
    """Test sets of k models' scores from discrete joint laws over levels 0..L-1 (p_pos of shape (L,)*k: the
    positives' k scores) and the true AUC differences of the pairs (leaderboard order, ties ½)."""
    from covstudy.methods.leaderboard import pairs

    p_pos, p_neg = np.asarray(p_pos, float), np.asarray(p_neg, float)
    k, L = p_pos.ndim, p_pos.shape[0]
    psi = (np.sign(np.arange(L)[:, None] - np.arange(L)[None, :]) + 1) / 2
    marginal = lambda p, c: p.sum(axis=tuple(a for a in range(k) if a != c))
    auc = np.array([marginal(p_pos, c) @ psi @ marginal(p_neg, c) for c in range(k)])
    first, second = pairs(k)

    def draw(rng, r):
        cp, cn = (rng.choice(L ** k, (r, size), p=p.ravel()) for p, size in ((p_pos, m), (p_neg, n)))
        return (np.moveaxis(np.array(np.unravel_index(c, (L,) * k)), 0, -2).astype(float) for c in (cp, cn))
    return draw, auc[first] - auc[second]


def _same(law, k):
    """Every model gives a case the same level, its law ``law``: a joint law of shape (L,)*k on the diagonal."""
    out = np.zeros((len(law),) * k)
    out[(np.arange(len(law)),) * k] = law
    return out


def _outer(*laws):
    return functools.reduce(np.multiply.outer, map(np.asarray, laws))


BOARD_POINTS = {
    # k models: identical (every D = 0, E|h| = 0), independent with ties, opposite (D near ±1), tiny classes,
    # five mostly-agreeing models, the fewest models (k = 2)
    "identical models, k = 3": _board(_same([0.1, 0.2, 0.3, 0.4], 3), _same([0.4, 0.3, 0.2, 0.1], 3), 20, 30),
    "independent, heavy ties, k = 3": _board(_outer([0.1, 0.3, 0.6], [0.3, 0.4, 0.3], [0.5, 0.3, 0.2]),
                                             _outer([0.6, 0.3, 0.1], [0.3, 0.4, 0.3], [0.2, 0.3, 0.5]), 15, 12),
    "opposite models, k = 2": _board(_outer([0, 0, 0.1, 0.9], [0.9, 0.1, 0, 0]),
                                     _outer([0.9, 0.1, 0, 0], [0, 0, 0.1, 0.9]), 10, 10),
    "tiny classes, k = 3": _board(_outer([0.2, 0.8], [0.5, 0.5], [0.7, 0.3]), _outer([0.8, 0.2], [0.5, 0.5],
                                                                                      [0.4, 0.6]), 2, 3),
    "five agreeing models": _board(0.9 * _same([0.2, 0.8], 5) + 0.1 * _outer(*[[0.5, 0.5]] * 5),
                                   0.9 * _same([0.8, 0.2], 5) + 0.1 * _outer(*[[0.5, 0.5]] * 5), 25, 25),
    "k = 2, one model never worse": _board(*_agree(0.1, 0.05), 30, 40),
}


def _board_kernel(pos, neg, delta):
    from covstudy.methods.auc_difference import delong_covariance

    auc, cov = delong_covariance(pos, neg)
    fam = get("chernoff_hoeffding", "leaderboard_auc").kernel(auc, cov, delta, scores_pos=pos, scores_neg=neg)
    return fam.lower, fam.upper


@pytest.mark.parametrize("point", BOARD_POINTS)
def test_auc_leaderboard_family_coverage_at_least_nominal(point):
    """Every pair's interval covers at once (and so every rank set holds) with probability >= 1 - δ."""
    _assert_covers(BOARD_POINTS, point, _board_kernel, 600)


def test_auc_leaderboard_is_each_pair_at_delta_over_p_and_its_door():
    """Each pair's interval is the paired AUC difference's Chernoff–Hoeffding interval at δ/P (Bonferroni), its rank
    sets the claims' (from_intervals); auc_leaderboard_coverage passes the scores and reports coverage >= 1 - δ;
    without the scores the kernel says what it needs."""
    from covstudy.designs.many_binormal import ManyBinormal
    from covstudy.leaderboard.coverage import auc_leaderboard_coverage
    from covstudy.methods.auc_difference import delong_covariance
    from covstudy.methods.leaderboard import from_intervals, pairs

    draw, _ = BOARD_POINTS["independent, heavy ties, k = 3"]
    pos, neg = draw(np.random.default_rng(5), 40)
    auc, cov = delong_covariance(pos, neg)
    fam = get("chernoff_hoeffding", "leaderboard_auc").kernel(auc, cov, 0.1, scores_pos=pos, scores_neg=neg)
    for p, (i, j) in enumerate(zip(*pairs(3))):
        lo, hi = adf.auc_difference_chernoff_hoeffding(pos[:, i], neg[:, i], pos[:, j], neg[:, j], 0.1 / 3)
        np.testing.assert_array_equal(fam.lower[:, p], lo)
        np.testing.assert_array_equal(fam.upper[:, p], hi)
    want = from_intervals(fam.lower, fam.upper, 3)
    np.testing.assert_array_equal(fam.rank_low, want.rank_low)
    np.testing.assert_array_equal(fam.rank_high, want.rank_high)
    [row] = auc_leaderboard_coverage(ManyBinormal((0.9, 0.75, 0.6), 30, 40, rho=0.5), ["chernoff_hoeffding"],
                                     delta=0.4, reps=200, seed=2)
    assert row["family_coverage"] >= 0.6 and row["rank_coverage"] >= 0.6
    with pytest.raises(ValueError, match="scores_pos, scores_neg"):
        get("chernoff_hoeffding", "leaderboard_auc").kernel(auc, cov, 0.1)


def test_mean_abs_difference_against_the_double_loop():
    rng = np.random.default_rng(3)
    x1, y1, x2, y2 = (rng.integers(0, 3, s).astype(float) for s in (5, 7, 5, 7))
    want = np.mean([[abs((np.sign(x1[i] - y1[j]) - np.sign(x2[i] - y2[j])) / 2) for j in range(7)] for i in range(5)])
    assert adf.mean_abs_difference(x1, y1, x2, y2) == pytest.approx(want, abs=1e-15)


@pytest.mark.parametrize("grid", [True, False])
@pytest.mark.parametrize("ties", [True, False])
def test_mean_abs_difference_counted_equals_every_pair(monkeypatch, ties, grid):
    """The count of dominated pairs (a large test set's path: on the grid of distinct values where they are few,
    else O(N log N)) against every pair compared, with ties within and across the classes and without."""
    rng = np.random.default_rng(11 + ties)
    for m, n in ((1, 1), (3, 8), (17, 5), (40, 33)):
        x1, y1, x2, y2 = (rng.integers(0, 4, s) + (0.0 if ties else rng.random(s)) for s in (m, n, m, n))
        want = adf.mean_abs_difference(x1, y1, x2, y2)
        monkeypatch.setattr(adf, "_PAIRS", 0)
        monkeypatch.setattr(adf, "_GRID_CELLS", adf._GRID_CELLS if grid else 0)
        assert adf.mean_abs_difference(x1, y1, x2, y2) == pytest.approx(want, abs=1e-14)
        strict, loose = adf.dominated_pairs(x1, x2, y1, y2)
        assert strict == np.sum((x1[:, None] > y1) & (x2[:, None] > y2))
        assert loose == np.sum((x1[:, None] >= y1) & (x2[:, None] >= y2))
        monkeypatch.undo()


def test_the_readme_example_widths():
    """The issue's published DKW [0.726, 1] and Hoeffding [0.843, 1] on the README example's logistic model."""
    import pandas as pd

    from pathlib import Path
    df = pd.read_csv(Path(__file__).parents[1] / "experiments/evaluate_example/predictions.csv")
    t = (df.truth == "malignant").to_numpy()
    pos, neg = df.logistic_score[t].to_numpy(), df.logistic_score[~t].to_numpy()
    auc = 0.9901275195392844
    assert (pos.size, neg.size) == (85, 143)
    assert adf.dkw_bounds(pos, neg, 0.05)[0] == pytest.approx(0.726, abs=5e-4)
    assert adf.hoeffding_bounds(auc, 85, 143, 0.05) == pytest.approx((0.843, 1.0), abs=5e-4)
    lo, hi = adf.chernoff_hoeffding(pos, neg, 0.05)
    assert 0.85 < lo < 0.94 and hi > 0.999  # narrower than both, wider than newcombe's [0.965, 0.997]


def test_dkw_against_a_weighted_brute_force():
    """The band's extreme laws by explicit atoms at ±∞ on a small case."""
    pos, neg = np.array([0.0, 1.0, 1.0, 3.0]), np.array([0.5, 1.0, 2.0])
    alpha = 1 - math.sqrt(0.9)
    ex, ey = (math.sqrt(math.log(2 / alpha) / (2 * s)) for s in (4, 3))
    ex, ey = min(ex, 1), min(ey, 1)

    def theta(xs, wx, ys, wy):
        return sum(a * b * (np.sign(x - y) + 1) / 2 for x, a in zip(xs, wx) for y, b in zip(ys, wy))

    def trim(w, e, top):
        w, order = list(w), (range(len(w) - 1, -1, -1) if top else range(len(w)))
        for i in order:
            take = min(w[i], e)
            w[i], e = w[i] - take, e - take
        return w
    lo = theta(list(pos) + [-np.inf], trim([0.25] * 4, ex, True) + [ex], list(neg) + [np.inf], trim([1 / 3] * 3, ey, False) + [ey])
    hi = theta(list(pos) + [np.inf], trim([0.25] * 4, ex, False) + [ex], list(neg) + [-np.inf], trim([1 / 3] * 3, ey, True) + [ey])
    assert adf.dkw_bounds(pos, neg, 0.1) == pytest.approx((max(lo, 0), min(hi, 1)), abs=1e-12)


small = st.lists(st.integers(0, 4).map(float), min_size=2, max_size=9)


@settings(max_examples=40, deadline=None)
@given(pos=small, neg=small, d1=st.floats(0.01, 0.5), d2=st.floats(0.01, 0.5))
def test_property_auc_contains_estimate_nested_in_delta(pos, neg, d1, d2):
    from covstudy.methods.auc import auc_and_delong_variance

    a = float(auc_and_delong_variance(np.array(pos), np.array(neg))[0])
    small_d, big_d = min(d1, d2), max(d1, d2)
    wide, narrow = (tuple(float(v) for v in adf.chernoff_hoeffding(np.array(pos), np.array(neg), d)) for d in (small_d, big_d))
    assert 0 <= wide[0] <= narrow[0] <= a + 1e-12 and a - 1e-12 <= narrow[1] <= wide[1] <= 1


@settings(max_examples=40, deadline=None)
@given(data=st.data(), m=st.integers(2, 6), n=st.integers(2, 6), d1=st.floats(0.01, 0.5), d2=st.floats(0.01, 0.5))
def test_property_difference_contains_estimate_nested_in_delta(data, m, n, d1, d2):
    lv = st.integers(0, 3).map(float)
    x1, x2 = (np.array(data.draw(st.lists(lv, min_size=m, max_size=m))) for _ in range(2))
    y1, y2 = (np.array(data.draw(st.lists(lv, min_size=n, max_size=n))) for _ in range(2))
    from covstudy.methods.auc import auc_and_delong_variance
    d = float(auc_and_delong_variance(x1, y1)[0] - auc_and_delong_variance(x2, y2)[0])
    small_d, big_d = min(d1, d2), max(d1, d2)
    wide, narrow = (tuple(float(v) for v in adf.auc_difference_chernoff_hoeffding(x1, y1, x2, y2, dd))
                    for dd in (small_d, big_d))
    assert -1 <= wide[0] <= narrow[0] + 1e-12 and narrow[0] <= d + 1e-12
    assert d - 1e-12 <= narrow[1] <= wide[1] + 1e-12 and wide[1] <= 1


def test_registered_guaranteed_and_listed_for_the_metric():
    from covstudy.evaluation.metrics import _methods

    board = get("leaderboard_auc.chernoff_hoeffding", "leaderboard_auc")
    assert board.guaranteed and board.family == "exact" and "Hoeffding" in board.reference
    for qualified, data, metric in (("auc.chernoff_hoeffding", "scores", "auc"),
                                    ("auc_difference.chernoff_hoeffding", "paired_scores", "auc_difference")):
        m = get(qualified)
        assert m.guaranteed and m.family == "exact" and "Hoeffding" in m.reference
        assert qualified in [q for _, _, q in _methods(data, metric)]
