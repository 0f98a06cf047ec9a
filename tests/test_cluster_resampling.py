"""Totals over cluster bootstrap resamples (methods/cluster_resampling.py): both paths draw m clusters
with replacement, so a resample's totals have mean m·(column mean) and variance m·(column variance,
divisor m), and covariance likewise; the index path is numbers for numbers the plain gather."""

import numpy as np
import pytest

from covstudy.methods import cluster_resampling
from covstudy.methods.cluster_resampling import resampled_totals


def _totals(values, draws, seed, block=1 << 21):
    out = np.empty((values.shape[0], draws, values.shape[2]))
    for rows, totals in resampled_totals(values, draws, np.random.default_rng(seed), block):
        out[rows] = totals
    return out


def _clusters(kind, sets, m, rng):
    if kind == "repeating":  # equal clusters of 10: counts 0..10, at most 11 distinct
        y = rng.binomial(10, rng.beta(4, 2, (sets, m)))
        return np.stack([y, np.full_like(y, 10)], axis=-1).astype(float)
    sizes = rng.integers(1, 400, (sets, m))  # nearly every cluster its own
    return np.stack([rng.binomial(sizes, 0.7), sizes], axis=-1).astype(float)


@pytest.mark.parametrize("kind, path", [("repeating", "multiplicities"), ("distinct", "indices")])
def test_resampled_totals_have_the_bootstrap_moments(kind, path):
    rng = np.random.default_rng(5)
    values = _clusters(kind, 3, 200, rng)
    assert (cluster_resampling._distinct(values) is not None) == (path == "multiplicities")
    draws = 20_000
    totals = _totals(values, draws, 1)
    m = values.shape[1]
    for t in range(3):
        mean = m * values[t].mean(axis=0)
        cov = m * np.cov(values[t].T, bias=True)
        se = np.sqrt(np.diag(cov) / draws)
        assert np.all(np.abs(totals[t].mean(axis=0) - mean) <= 4 * se + 1e-9)  # a constant column: exact
        np.testing.assert_allclose(np.cov(totals[t].T), cov, rtol=0.06)


def test_the_index_path_is_the_plain_gather_number_for_number():
    """Blocks of test sets and a test set's resamples split over blocks draw what one gather would."""
    rng = np.random.default_rng(2)
    values = _clusters("distinct", 7, 50, rng)
    draws = 300
    u = np.random.default_rng(9).random((7, draws, 50))
    pick = (u * 50).astype(np.int64)
    expected = values[np.arange(7)[:, None, None], pick].sum(axis=2)
    for block in (1 << 21, 50 * draws, 1000):  # all at once; a test set a block; resamples split
        np.testing.assert_array_equal(_totals(values, draws, 9, block), expected)


def test_multiplicities_are_taken_only_when_every_test_set_repeats():
    rng = np.random.default_rng(3)
    repeating = _clusters("repeating", 4, 100, rng)
    assert cluster_resampling._distinct(repeating) is not None
    mixed = np.concatenate([repeating, _clusters("distinct", 1, 100, rng)])
    assert cluster_resampling._distinct(mixed) is None  # one test set of distinct clusters: indices for all
    assert cluster_resampling._distinct(repeating + 0.5) is None  # not whole numbers
    rows, counts = cluster_resampling._distinct(repeating)[0]
    assert counts.sum() == 100
    kept = {tuple(r) for r in rows.tolist()}
    assert kept == {tuple(r) for r in repeating[0].tolist()}
