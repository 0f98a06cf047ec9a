"""The log-space binomial pmf of the exact engine against scipy, and the exact coverage it gives
against the earlier computation with scipy's pmf (the committed studies moved by at most this)."""

import numpy as np
import pytest
from scipy import stats

from covstudy import coverage
from covstudy.designs import binomial_pmf
from covstudy.intervals import interval

PS = np.r_[0.0, 1e-12, 1e-6, np.linspace(0.001, 0.999, 37), 1 - 1e-6, 1 - 1e-12, 1.0]


@pytest.mark.parametrize("n", [1, 2, 7, 50, 1000, 10_000])
def test_pmf_matches_scipy(n):
    got = binomial_pmf(n, PS)
    expected = stats.binom.pmf(np.arange(n + 1), n, PS[:, None])
    assert np.max(np.abs(got - expected)) < 1e-15
    big = expected > 1e-250
    assert np.max(np.abs(got[big] / expected[big] - 1)) < 1e-11  # far tails: ~1e-12 relative
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=0, atol=1e-13)


def test_exact_coverage_agrees_with_scipy_pmf():
    """Max |difference| 1e-15 on a grid of the conservativeness study's kind (was computed with scipy's pmf)."""
    p = np.round(np.arange(1, 100) / 100, 2)
    for n in (10, 100, 1000):
        pmf = stats.binom.pmf(np.arange(n + 1), n, p[:, None])
        for method in ("wald", "wilson", "clopper_pearson"):
            lower, upper = interval(method, np.arange(n + 1), n, 0.05)
            old = np.sum(pmf * ((lower <= p[:, None]) & (p[:, None] <= upper)), axis=1)
            old_width = np.sum(pmf * (upper - lower), axis=1)
            new = coverage(method, n, p)
            assert np.max(np.abs(new.coverage - old)) < 1e-13
            assert np.max(np.abs(new.mean_width - old_width)) < 1e-13
