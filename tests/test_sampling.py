"""The two Monte Carlo samplers: the multinomial histogram and per-replicate draws.

Drawing a test set's histogram at once (Multinomial(reps, pmf)) must be statistically
identical to simulating the test sets one by one, and both must agree with the exact engine.
"""

import numpy as np
import pytest
from scipy import stats

from covstudy import designs
from covstudy.engine.measures import measures
from covstudy.methods import get

SAMPLERS = ("histogram", "replicates")
METHODS = ("wald", "wilson", "agresti_coull", "jeffreys", "clopper_pearson")


def _pearson(hist, pmf, reps):
    """Pearson chi-square of one histogram against reps·pmf, tails pooled so expected >= 5."""
    expected = reps * pmf
    keep = expected >= 5
    obs = np.append(hist[keep], hist[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    return np.sum((obs - exp) ** 2 / np.where(exp > 0, exp, 1.0))


def _draws(n, p, reps, seeds, sampler):
    return np.stack([designs.binomial_counts(n, p, reps, seed, sampler) for seed in seeds])


@pytest.mark.parametrize("n, p", [(30, 0.1), (30, 0.5), (200, 0.93)])
def test_samplers_give_the_same_distribution_of_results(n, p):
    reps, seeds = 400, range(2000)
    pmf = designs.binomial_pmf(n, p)[0]
    lower, upper = get("wilson").kernel(np.arange(n + 1), n, 0.05)
    exact = measures(pmf, lower, upper, p)["coverage"]
    cov, chi2 = {}, {}
    for sampler in SAMPLERS:
        hists = _draws(n, p, reps, seeds, sampler)
        assert np.all(hists.sum(axis=1) == reps)
        cov[sampler] = measures(hists / reps, lower, upper, np.full(len(hists), p))["coverage"]
        chi2[sampler] = np.array([_pearson(h, pmf, reps) for h in hists])
        # Each sampler: coverage estimates centred on the exact value with binomial variance.
        assert abs(cov[sampler].mean() - exact) <= 4 * np.sqrt(exact * (1 - exact) / (reps * len(hists)))
        assert 0.85 < cov[sampler].var(ddof=1) / (exact * (1 - exact) / reps) < 1.15
    # The two samplers against each other: coverage estimates and the whole histogram's
    # goodness of fit (which depends on the joint law of all counts, not just their mean).
    assert stats.ks_2samp(cov["histogram"], cov["replicates"]).pvalue > 1e-3
    assert stats.ks_2samp(chi2["histogram"], chi2["replicates"]).pvalue > 1e-3


def test_the_comparison_detects_a_wrong_distribution():
    # Negative control: the same statistics reject histograms drawn at a slightly wrong p.
    n, p, reps, seeds = 30, 0.5, 400, range(2000)
    pmf = designs.binomial_pmf(n, p)[0]
    good = [_pearson(h, pmf, reps) for h in _draws(n, p, reps, seeds, "histogram")]
    bad = [_pearson(h, pmf, reps) for h in _draws(n, p + 0.01, reps, seeds, "replicates")]
    assert stats.ks_2samp(good, bad).pvalue < 1e-6


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_both_samplers_agree_with_exact_within_4_mcse(sampler):
    ps = np.array([0.005, 0.04, 0.15, 0.33, 0.5, 0.61, 0.8, 0.97, 0.999])
    reps = 20_000
    for n in (5, 37, 200):
        exact_w = designs.binomial_pmf(n, ps)
        mc_w = designs.binomial_counts(n, ps, reps, 2024, sampler) / reps
        for method in METHODS:
            lower, upper = get(method, "proportion").kernel(np.arange(n + 1), n, 0.05)
            exact = measures(exact_w, lower, upper, ps)
            mc = measures(mc_w, lower, upper, ps, reps)
            se = np.sqrt(exact["coverage"] * (1 - exact["coverage"]) / reps)
            assert np.all(np.abs(mc["coverage"] - exact["coverage"]) <= 4 * se + 1e-9), (sampler, method, n)
            assert np.allclose(mc["mean_width"], exact["mean_width"], rtol=0.02, atol=1e-3)


@pytest.mark.parametrize("n, p", [(100_000, 1e-6), (100_000, 0.5), (100_000, 1 - 1e-4), (7, 0.3)])
def test_histogram_support_drops_only_negligible_mass(n, p):
    [(lo, pmf)] = designs._supported_pmf(n, np.array([p]))
    hi = lo + len(pmf) - 1
    assert 1 - pmf.sum() < 1e-12
    outside = stats.binom.logpmf(np.array([lo - 1, hi + 1]), n, p)  # -inf beyond 0..n
    assert np.all(outside < np.log(1e-300))
    hist = designs.binomial_counts(n, p, 10**6, 5, "histogram")
    assert hist.sum() == 10**6 and np.all(hist[:lo] == 0) and np.all(hist[hi + 1:] == 0)
    mean = hist @ np.arange(n + 1) / 10**6
    assert abs(mean - n * p) <= 5 * np.sqrt(n * p * (1 - p) / 10**6) + 1e-12


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_reproducible_and_independent_of_other_points(sampler):
    ps = [0.1, 0.25, 0.6]
    a = designs.binomial_counts(60, ps, 3000, 9, sampler)
    assert a.shape == (3, 61)
    assert np.array_equal(a, designs.binomial_counts(60, ps, 3000, 9, sampler))
    assert np.array_equal(a[1], designs.binomial_counts(60, 0.25, 3000, 9, sampler))
    assert not np.array_equal(a[1], designs.binomial_counts(60, 0.25, 3000, 10, sampler))


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_point_masses(sampler):
    hist = designs.binomial_counts(12, [0.0, 1.0], 500, 1, sampler)
    assert hist[0, 0] == 500 and hist[1, 12] == 500 and hist.sum() == 1000


def test_auto_is_a_function_of_n_and_reps():
    assert designs.choose_sampler(1000, 100) == "replicates"
    assert designs.choose_sampler(1000, 100_000) == "histogram"
    for n, reps in [(1000, 100), (50, 100_000)]:
        chosen = designs.choose_sampler(n, reps)
        assert np.array_equal(designs.binomial_counts(n, 0.3, reps, 4),
                              designs.binomial_counts(n, 0.3, reps, 4, chosen))


def test_unknown_sampler():
    with pytest.raises(ValueError, match="sampler must be one of"):
        designs.binomial_counts(10, 0.5, 100, 1, "fast")


@pytest.mark.parametrize("decimals", [None, 2, 0])
def test_dense_ranks_are_scipys_dense_ranks(decimals):
    """Continuous rows, rows with ties (rounded), rows of a few values: scipy's numbers, unsigned."""
    from covstudy.designs.sampling import dense_ranks

    rng = np.random.default_rng(decimals or 7)
    for shape in ((1, 1), (3, 2), (50, 301), (7, 70_000)):
        a = rng.normal(0, 2, shape)
        a = a if decimals is None else np.round(a, decimals)
        ranks = dense_ranks(a)
        assert ranks.dtype == np.min_scalar_type(shape[1])
        np.testing.assert_array_equal(ranks, stats.rankdata(a, method="dense", axis=1))
