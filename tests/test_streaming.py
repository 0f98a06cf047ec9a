"""Resampling paths stream (issue 56): memory does not grow with draws × rows, the numbers do not depend on the
block size, the streamed numbers equal a straightforward computation, and the ECE's cell law is the bootstrap's."""

import tracemalloc

import numpy as np
import pytest
from scipy import stats

from covstudy.methods import auc, calibration as cal, leaderboard, smooth_ece

EDGES = np.linspace(0, 1, 11)


def _test_set(n, seed=0, ties=False):
    """Scores with exact 0s and 1s (a tree's predict_proba), labels from a miscalibrated curve."""
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 3, n)
    s[rng.random(n) < 0.05] = 0.0
    s[rng.random(n) < 0.05] = 1.0
    if ties:
        s = np.round(s, 1)
    y = (rng.random(n) < np.clip(s ** 1.3 + 0.05, 0, 1)).astype(float)
    return s, y


def _peak(f, *args, **kwargs):
    tracemalloc.start()
    try:
        f(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ----------------------------------------------------------------------------------- the same numbers, any block

@pytest.mark.parametrize("n, draws", [(7, 13), (300, 50), (1001, 9)])
def test_resampled_bin_stats_equal_a_plain_loop_and_any_block(n, draws):
    s, y = _test_set(n, seed=n)
    plain_rng = np.random.default_rng(5)
    pick = plain_rng.integers(0, n, size=(draws, n))  # the documented stream, one index a resampled example
    bins = np.clip(np.ceil(s * 10).astype(int) - 1, 0, 9)  # (e_{j}, e_{j+1}] bins, 0 in the first
    m = np.array([np.bincount(bins[p], minlength=10) for p in pick])
    k = np.array([np.bincount(bins[p], weights=y[p], minlength=10) for p in pick])
    S = np.array([np.bincount(bins[p], weights=s[p], minlength=10) for p in pick])
    for block in (1, 2 * n + 1, 10**9):
        m_, k_, S_ = cal.resampled_bin_stats(s, y, EDGES, draws, np.random.default_rng(5), block=block)
        np.testing.assert_array_equal(m_, m)
        np.testing.assert_array_equal(k_, k)
        np.testing.assert_allclose(S_, S, rtol=1e-12)
        if block > 1:  # and bit for bit whatever the block
            reference = cal.resampled_bin_stats(s, y, EDGES, draws, np.random.default_rng(5), block=1)
            for a, b in zip((m_, k_, S_), reference):
                np.testing.assert_array_equal(a, b)


def test_smooth_ece_resamples_equal_the_whole_array_and_any_block():
    s, y = _test_set(120, seed=3)
    pick = np.random.default_rng(8).integers(0, s.size, size=(17, s.size))
    whole = np.array([smooth_ece.smooth_ece(s[p], y[p])[0] for p in pick])  # one resample at a time
    for block in (1, 5 * s.size, 10**9):
        got = smooth_ece.resampled_smooth_ece(s, y, 17, np.random.default_rng(8), block=block)
        np.testing.assert_array_equal(got, whole)


def test_leaderboard_bootstrap_accuracies_equal_the_weights_and_any_block():
    rng = np.random.default_rng(4)
    rows = (rng.random((2, 150, 4)) < [0.6, 0.7, 0.7, 0.8]).astype(np.int8)
    plain_rng = np.random.default_rng(6)
    expected = np.empty((2, 30, 4))
    for t in range(2):  # each resample's accuracies from its multiplicities, one resample at a time
        for d, idx in enumerate(plain_rng.integers(0, 150, size=(30, 150))):
            expected[t, d] = np.bincount(idx, minlength=150) @ rows[t] / 150
    for block in (1, 7 * 150, 10**9):
        got = leaderboard.bootstrap_accuracies(rows, 30, np.random.default_rng(6), block=block)
        np.testing.assert_array_equal(got, expected)


def test_placements_equal_rankdata_and_are_kept_only_for_the_same_values(monkeypatch):
    rng = np.random.default_rng(2)
    for ties in (False, True):
        pos, neg = rng.normal(1, 1, (3, 40)), rng.normal(0, 1, (3, 60))
        if ties:
            pos, neg = np.round(pos, 1), np.round(neg, 1)
        pooled = stats.rankdata(np.concatenate([pos, neg], axis=1), axis=1)
        v10, v01 = auc.delong_placements(pos, neg)
        np.testing.assert_array_equal(v10, (pooled[:, :40] - stats.rankdata(pos, axis=1)) / 60)
        np.testing.assert_array_equal(v01, 1 - (pooled[:, 40:] - stats.rankdata(neg, axis=1)) / 40)
    monkeypatch.setattr(auc, "_KEPT_SCORES", 10)
    monkeypatch.setattr(auc, "_PLACEMENTS", [])
    pos, neg = rng.normal(1, 1, (1, 40)), rng.normal(0, 1, (1, 60))
    first = auc.delong_placements(pos, neg)
    pos[0, 0] = 9.0  # changed in place: not the kept one
    changed = auc.delong_placements(pos, neg)
    assert changed[0][0, 0] == 1.0 and first[0][0, 0] != 1.0
    np.testing.assert_array_equal(auc.delong_placements(pos, neg)[1], changed[1])


# ----------------------------------------------------------------------------------- memory: not draws × rows

def test_resampling_peak_memory_does_not_grow_with_draws_times_rows():
    """At a fixed block, 8× the draws (or 4× the rows) leaves the peak far below 8× (4×): it is the block's
    work arrays and the data, not draws × n indices."""
    s, y = _test_set(20_000)
    block = 40_000
    small = _peak(cal.resampled_bin_stats, s, y, EDGES, 10, np.random.default_rng(0), block=block)
    large = _peak(cal.resampled_bin_stats, s, y, EDGES, 80, np.random.default_rng(0), block=block)
    assert large < 1.5 * small
    assert large < 80 * s.size * 8 / 4  # a quarter of the one index array the old code built
    s4, y4 = _test_set(80_000)
    rows4 = _peak(cal.resampled_bin_stats, s4, y4, EDGES, 80, np.random.default_rng(0), block=block)
    assert rows4 < 0.25 * 80 * s4.size * 8  # one draw (80,000 indices) at a time: O(n), not O(draws·n)
    cells = _peak(cal.cell_resampled_bin_stats, s4, y4, EDGES, 2000, np.random.default_rng(0))
    assert cells < 100 * s4.size  # the data sorted by cell and O(draws·B): never draws × n (1.3 GB of indices here)
    smooth = [_peak(smooth_ece.resampled_smooth_ece, s, y, d, np.random.default_rng(0), block=block) for d in (20, 160)]
    assert smooth[1] < 1.5 * smooth[0] and smooth[1] < 160 * s.size * 8 / 4


# ----------------------------------------------------------------------------------- the cell law is the bootstrap's

@pytest.mark.parametrize("ties", [False, True])
def test_cell_resamples_have_the_bootstrap_law(ties):
    """The plug-in and debiased ECE of resamples drawn by cells against the same drawn example by example: their
    means and standard deviations agree within a few Monte Carlo standard errors, and the counts' law is the
    multinomial one exactly (ties: every cell's score sum is exact too)."""
    s, y = _test_set(2000, seed=11, ties=ties)
    draws = 3000
    by_example = cal.resampled_bin_stats(s, y, EDGES, draws, np.random.default_rng(1))
    by_cell = cal.cell_resampled_bin_stats(s, y, EDGES, draws, np.random.default_rng(2))
    for a, b in zip(by_example, by_cell):  # m*, k*, S*: mean per bin within 4 MCSE
        mcse = np.sqrt(a.var(axis=0) / draws + b.var(axis=0) / draws)
        assert np.all(np.abs(a.mean(axis=0) - b.mean(axis=0)) <= 4 * mcse + 1e-12)
    for ece in (cal.plugin_ece, cal.debiased_ece):
        a, b = ece(*by_example), ece(*by_cell)
        assert abs(a.mean() - b.mean()) < 4 * np.sqrt((a.var() + b.var()) / draws)
        assert abs(a.std() / b.std() - 1) < 4 * np.sqrt(1 / draws)  # the sd's relative MCSE ≈ 1/sqrt(2·draws)
        assert stats.ks_2samp(a, b).pvalue > 1e-3
    m, k, S = by_cell
    assert np.all(m.sum(axis=1) == s.size) and np.all((k >= 0) & (k <= m))
    assert np.all(S >= -1e-9) and np.all(S <= m + 1e-9)  # a sum of m* scores in [0, 1]


def test_cell_resamples_of_tied_scores_are_exact_multinomials():
    """With few distinct scores every cell's sum is Σ_v N_v·v with N ~ Multinomial(c, shares): the resampled
    sums take only values the data can give (whole combinations of the distinct scores)."""
    s = np.repeat([0.05, 0.25, 0.3, 0.85], [40, 30, 20, 10])
    y = np.tile([0.0, 1.0], 50)
    m, k, S = cal.cell_resampled_bin_stats(s, y, EDGES, 200, np.random.default_rng(0))
    assert np.allclose(S * 20, np.round(S * 20))  # sums of multiples of 0.05
    np.testing.assert_array_equal(m[:, [1, 4, 5, 6, 7, 9]], 0)  # bins without data stay empty


def test_evaluate_beyond_the_example_budget_draws_by_cells_and_says_so(monkeypatch):
    import covstudy
    from covstudy.evaluation import calibration as ecal

    s, y = _test_set(3000, seed=5)
    exact = covstudy.evaluate(truth=y.astype(int), scores=s, metrics=["calibration_ece"], audit=False,
                              progress=False).table
    monkeypatch.setattr(ecal, "EXAMPLE_RESAMPLES", 10**5)
    cells = covstudy.evaluate(truth=y.astype(int), scores=s, metrics=["calibration_ece"], audit=False,
                              progress=False).table
    for method in ("debiased", "plugin"):
        a, b = (t[(t.metric == "calibration_ece") & (t.method == method)].iloc[0] for t in (exact, cells))
        assert "drawn by (bin, label) cells" in b.note and "cells" not in a.note
        assert a.estimate == b.estimate
        assert abs(a.lower - b.lower) < 0.25 * a.width and abs(a.upper - b.upper) < 0.25 * a.width


def test_paired_auc_bootstrap_and_band_curves_equal_one_block(monkeypatch):
    """The paired AUC bootstrap and the ROC/PR band's bootstrap curves: one block of every resample's indices
    (the plain computation: rng.integers(0, n, (draws, n)) then the other class's) and blocks of one resample
    give the same numbers."""
    from covstudy.methods import auc_difference, bands

    rng = np.random.default_rng(0)
    p1, n1 = np.round(rng.normal(1, 1, 40), 1), np.round(rng.normal(0, 1, 60), 1)
    p2, n2 = p1 + rng.normal(0, 1, 40), n1 + rng.normal(0, 1, 60)
    grid = np.linspace(0, 1, 11)
    runs = []
    for block in (10**9, 1):
        monkeypatch.setattr(auc, "_RESAMPLE_BLOCK", block)
        bands._CURVES.clear()
        runs.append((auc_difference.auc_difference_bootstrap(p1, n1, p2, n2, 0.05, rng=np.random.default_rng(3),
                                                             draws=300),
                     bands.bootstrap_curves(p1, n1, grid, np.random.default_rng(4), 50, "roc"),
                     bands.bootstrap_curves(p1, n1, grid, np.random.default_rng(4), 50, "pr")))
    for a, b in zip(*runs):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    plain = np.random.default_rng(3)  # the paired bootstrap by hand: every resample's Â₁* - Â₂* by pairs
    j, i = plain.integers(0, 60, size=(300, 60)), plain.integers(0, 40, size=(300, 40))

    def mann_whitney(p, n):
        return ((p[:, :, None] > n[:, None, :]) + 0.5 * (p[:, :, None] == n[:, None, :])).mean(axis=(1, 2))

    d = mann_whitney(p1[i], n1[j]) - mann_whitney(p2[i], n2[j])
    np.testing.assert_allclose(runs[0][0], np.quantile(d, [0.025, 0.975]), rtol=0, atol=1e-12)
