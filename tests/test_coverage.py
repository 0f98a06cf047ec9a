"""coverage(): exact against a direct summation, Monte Carlo against exact, reproducibility, errors."""

import math

import numpy as np
import pytest

from covstudy import coverage, interval


def direct_exact(method, n, p, delta):
    """Σ_k C(n,k) p^k (1-p)^(n-k) · 1[L(k) <= p <= U(k)], written out term by term."""
    cov = low = high = width = 0.0
    for k in range(n + 1):
        lo, up = (float(v) for v in interval(method, k, n, delta))
        prob = math.comb(n, k) * p**k * (1 - p) ** (n - k)
        cov += prob * (lo <= p <= up)
        low += prob * (p < lo)
        high += prob * (p > up)
        width += prob * (up - lo)
    return cov, low, high, width


@pytest.mark.parametrize("method", ["wald", "wilson", "clopper_pearson", "jeffreys", "agresti_coull"])
@pytest.mark.parametrize("n", [1, 7, 30, 64])
@pytest.mark.parametrize("delta", [0.01, 0.05, 0.2])
def test_exact_matches_direct_summation(method, n, delta):
    ps = np.array([0.0, 0.013, 0.1, 0.37, 0.5, 0.81, 0.99, 1.0])
    c = coverage(method, n=n, p=ps, delta=delta)
    for i, p in enumerate(ps):
        cov, low, high, width = direct_exact(method, n, float(p), delta)
        assert c.coverage[i] == pytest.approx(cov, abs=1e-12)
        assert c.miss_low[i] == pytest.approx(low, abs=1e-12)
        assert c.miss_high[i] == pytest.approx(high, abs=1e-12)
        assert c.mean_width[i] == pytest.approx(width, abs=1e-12)
    assert np.allclose(c.coverage + c.miss_low + c.miss_high, 1.0)
    assert np.all(c.mcse == 0)


def test_published_wald_coverage_bcd2001():
    # Brown, Cai & DasGupta (2001), Statist. Sci. 16(2), 101-133, Example 1: at p = 0.005
    # the 95% Wald interval covers .945 with n = 591 but only .792 with n = 592; Example 2:
    # at p = 0.5 it covers only .919 with n = 40.
    assert coverage("wald", n=591, p=0.005).coverage == pytest.approx(0.945, abs=5e-4)
    assert coverage("wald", n=592, p=0.005).coverage == pytest.approx(0.792, abs=5e-4)
    assert coverage("wald", n=40, p=0.5).coverage == pytest.approx(0.919, abs=5e-4)


@pytest.mark.parametrize("method", ["wald", "wilson", "clopper_pearson", "jeffreys", "agresti_coull"])
def test_monte_carlo_within_4_mcse_of_exact(method):
    ps = np.array([0.03, 0.2, 0.5, 0.77, 0.95])
    for n in (10, 40, 150):
        exact = coverage(method, n=n, p=ps, delta=0.05)
        mc = coverage(method, n=n, p=ps, delta=0.05, reps=20_000, seed=11)
        se = np.sqrt(exact.coverage * (1 - exact.coverage) / mc.reps)
        assert np.all(np.abs(mc.coverage - exact.coverage) <= 4 * se + 1e-12), (n, mc.coverage, exact.coverage)
        assert np.allclose(mc.mean_width, exact.mean_width, rtol=0.02, atol=1e-3)


def test_same_seed_same_numbers_and_p_independence():
    a = coverage("wilson", n=50, p=[0.1, 0.2, 0.3], reps=5000, seed=7)
    b = coverage("wilson", n=50, p=[0.1, 0.2, 0.3], reps=5000, seed=7)
    single = coverage("wilson", n=50, p=0.2, reps=5000, seed=7)
    other = coverage("wilson", n=50, p=0.2, reps=5000, seed=8)
    assert np.array_equal(a.coverage, b.coverage) and np.array_equal(a.mean_width, b.mean_width)
    assert single.coverage == a.coverage[1]  # a p's stream does not depend on the other p's
    assert other.coverage != single.coverage
    assert a.engine == "mc" and a.reps == 5000 and a.seed == 7


def test_common_random_numbers_across_methods():
    # Same simulated test sets for every method: Wilson contains Wald's misses at the upper
    # tail only if they saw the same k's, so compare the MC *difference* to the exact one.
    ps = np.linspace(0.05, 0.95, 19)
    d_exact = coverage("wilson", 40, ps).coverage - coverage("wald", 40, ps).coverage
    d_mc = (coverage("wilson", 40, ps, reps=4000, seed=3).coverage
            - coverage("wald", 40, ps, reps=4000, seed=3).coverage)
    independent_se = np.sqrt(2 * 0.25 / 4000)
    assert np.max(np.abs(d_mc - d_exact)) < 2 * independent_se


def test_seed_none_is_recorded_and_reproduces():
    a = coverage("wald", n=20, p=0.3, reps=1000)
    assert isinstance(a.seed, int)
    assert coverage("wald", n=20, p=0.3, reps=1000, seed=a.seed).coverage == a.coverage


@pytest.mark.parametrize("kwargs, message", [
    (dict(method="wald", n=0, p=0.5), "n must be >= 1"),
    (dict(method="wald", n=10.5, p=0.5), "n must be whole numbers"),
    (dict(method="wald", n=10, p=1.5), "p must be in [0, 1]"),
    (dict(method="wald", n=10, p=-0.1), "p must be in [0, 1]"),
    (dict(method="wald", n=10, p=0.5, delta=0.0), "delta must be in [1e-10, 0.5]"),
    (dict(method="wald", n=10, p=0.5, delta=1.0), "delta must be in [1e-10, 0.5]"),
    (dict(method="wald", n=10, p=0.5, reps=0), "reps must be >= 1"),
    (dict(method="wilsom", n=10, p=0.5), "did you mean 'wilson'"),
])
def test_coverage_bad_input(kwargs, message):
    with pytest.raises(ValueError) as err:
        coverage(**kwargs)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("k, n, delta, message", [
    (-1, 10, 0.05, "k must be >= 0"),
    (11, 10, 0.05, "k must be in [0, n], got k=11 > n=10"),
    (3, 0, 0.05, "n must be >= 1"),
    (2.5, 10, 0.05, "k must be whole numbers"),
    (3, 10, 1.2, "delta must be in [1e-10, 0.5]"),
    (3, 10, np.nan, "delta must be in [1e-10, 0.5]"),
])
def test_interval_bad_input(k, n, delta, message):
    with pytest.raises(ValueError, match=None) as err:
        interval("wald", k, n, delta)
    assert message in str(err.value)


def test_unknown_method_lists_valid_names():
    with pytest.raises(ValueError) as err:
        interval("clopper", 1, 10)
    assert "did you mean 'clopper_pearson'" in str(err.value)
    assert "wilson" in str(err.value)


def test_interval_broadcasts():
    lo, up = interval("wilson", np.arange(11)[:, None], 10, np.array([0.01, 0.05, 0.1]))
    assert lo.shape == up.shape == (11, 3)
    assert np.all(up[:, 0] - lo[:, 0] > up[:, 2] - lo[:, 2])  # smaller delta, wider interval
