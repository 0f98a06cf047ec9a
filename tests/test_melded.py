"""Issue 28: the guaranteed intervals for a difference of accuracies (methods/melded.py): exact2x2's
values, an independent quadrature, and exact coverage >= 1 - delta over whole grids."""

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize, stats

from covstudy import coverage, difference_interval, methods, paired_interval

DATA = Path(__file__).parent / "data"
# exact2x2 1.7.0 (R 4.2.2): tests/data/exact2x2_reference.R wrote the CSVs. It integrates with R's
# integrate() at its default tolerance, so its ends are good to ~1e-4 (measured: 3e-5 from ours,
# which agree with the quadrature below to 1e-8).
EXACT2X2_TOLERANCE = 1e-4


def test_melded_matches_exact2x2_with_its_sign_flipped():
    d = pd.read_csv(DATA / "exact2x2_melded.csv")
    lower, upper = difference_interval("melded", d.k1.values, d.n1.values, d.k2.values, d.n2.values,
                                       delta=1 - d.conf_level.values)
    np.testing.assert_allclose(lower, -d.upper_p2_minus_p1, atol=EXACT2X2_TOLERANCE)  # it reports p2 - p1
    np.testing.assert_allclose(upper, -d.lower_p2_minus_p1, atol=EXACT2X2_TOLERANCE)


def test_exact_mcnemar_matches_exact2x2():
    d = pd.read_csv(DATA / "exact2x2_mcnemar.csv")
    lower, upper = paired_interval("exact_mcnemar", 0, d.x.values, (d.m - d.x).values, (d.n - d.m).values,
                                   delta=1 - d.conf_level.values)
    np.testing.assert_allclose(lower, d.lower, atol=EXACT2X2_TOLERANCE)
    np.testing.assert_allclose(upper, d.upper, atol=EXACT2X2_TOLERANCE)


def quantile(cdf, q):
    return optimize.brentq(lambda t: cdf(t) - q, -1, 1, xtol=1e-12)


def tight(f, lo=0.0, hi=1.0):
    return integrate.quad(f, lo, hi, epsabs=1e-11, epsrel=1e-11, limit=100)[0]


@pytest.mark.parametrize("k1, n1, k2, n2", [(5, 10, 8, 12), (12, 15, 3, 4)])
def test_melded_equals_the_quantiles_by_adaptive_quadrature(k1, n1, k2, n2):
    """P(X - Y <= t) = ∫ F_X(t + y) f_Y(y) dy, solved for t (Fay, Proschan & Brittain 2015)."""
    def cdf(x, y):
        return lambda t: tight(lambda v: x.cdf(t + v) * y.pdf(v))

    lower = quantile(cdf(stats.beta(k1, n1 - k1 + 1), stats.beta(k2 + 1, n2 - k2)), 0.025)
    upper = quantile(cdf(stats.beta(k1 + 1, n1 - k1), stats.beta(k2, n2 - k2 + 1)), 0.975)
    # to the quadrature laws' accuracy
    assert difference_interval("melded", k1, n1, k2, n2) == pytest.approx((lower, upper), abs=2e-7)


def test_exact_mcnemar_upper_end_equals_the_quantile_by_adaptive_quadrature():
    """P(T(2B_U - 1) <= t) = ∫ F_B((1 + t/s)/2) f_T(s) ds, the larger 0.975-quantile over T_L, T_U
    (Fay & Lumbard 2021); the lower end is the same law mirrored (b and c exchanged)."""
    b, c, n = 7, 3, 30
    m = b + c

    def cdf(t_law, b_law):
        return lambda t: tight(lambda s: b_law.cdf((1 + t / s) / 2) * t_law.pdf(s))

    laws = (stats.beta(m, n - m + 1), stats.beta(m + 1, n - m))
    upper = max(quantile(cdf(t, stats.beta(b + 1, c)), 0.975) for t in laws)
    assert paired_interval("exact_mcnemar", n - m, b, c, 0)[1] == pytest.approx(upper, abs=2e-7)
    assert paired_interval("exact_mcnemar", n - m, c, b, 0)[0] == pytest.approx(-upper, abs=2e-7)


def test_registered_as_guaranteed_exact_methods():
    ms = methods()
    assert ms["difference.melded"].guaranteed and ms["difference.melded"].family == "exact"
    assert ms["paired.exact_mcnemar"].guaranteed and ms["paired.exact_mcnemar"].family == "exact"


def test_melded_coverage_is_at_least_nominal_over_a_whole_grid():
    """The exact engine of the unpaired design at (n1, n2) from 1 to 12 and (p1, p2) on a 0.05 grid."""
    grid = np.round(np.arange(0.0, 1.0001, 0.05), 2)
    p1, p2 = (np.ravel(a) for a in np.meshgrid(grid, grid))
    worst = 1.0
    for n1, n2 in ((1, 12), (4, 5), (7, 2), (12, 12)):
        r = coverage("melded", design="unpaired", n1=n1, n2=n2, p1=p1, p2=p2, delta=0.05)
        worst = min(worst, float(np.min(r.coverage)))
    assert worst >= 0.95 - 1e-9


def test_exact_mcnemar_coverage_is_at_least_nominal_over_a_whole_grid():
    """The exact engine of the paired design at n from 2 to 15 and every cell probability on a 0.1 grid."""
    cells = [c for c in itertools.product(np.round(np.arange(0, 1.0001, 0.1), 1), repeat=3) if sum(c) <= 1 + 1e-9]
    b, c, a = (np.array(x) for x in zip(*cells))
    worst = 1.0
    for n in (2, 7, 15):
        r = coverage("exact_mcnemar", design="paired", n=n, p_both=a, p_only_first=b, p_only_second=c,
                     p_neither=np.clip(1 - a - b - c, 0, 1))
        worst = min(worst, float(np.min(r.coverage)))
    assert worst >= 0.95 - 1e-9


def test_the_grid_check_can_fail():
    """The same check on an approximate method finds coverage below nominal."""
    r = coverage("wald", design="paired", n=10, p_both=0.5, p_only_first=0.1, p_only_second=0.02, p_neither=0.38)
    assert r.coverage < 0.95
