"""Issue 28: the exact unconditional score interval for a difference of two independent proportions
(methods/exact_unconditional.py): exact2x2's values, a brute-force check of its ends, exact coverage
>= 1 - delta over whole grids, and its invariants."""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from covstudy import coverage, difference_interval, methods
from covstudy.methods import exact_unconditional as eu
from covstudy.methods.difference import score_statistic

DATA = Path(__file__).parent / "data"
# exact2x2 1.7.0 (R 4.2.2): tests/data/exact2x2_uncond_reference.R wrote the CSV
# (uncondExact2x2(x1, n1, x2, n2, parmtype = "difference", method = "score", conf.int = TRUE)).
REFERENCE = pd.read_csv(DATA / "exact2x2_uncond.csv")
SMALL = REFERENCE[REFERENCE.n1 * REFERENCE.n2 <= 150]  # the larger tables cost seconds each


def _ours(d, refine):
    lower, upper = np.empty(len(d)), np.empty(len(d))
    for (n1, n2, level), rows in d.groupby(["n1", "n2", "conf_level"]):  # one scan per group
        at = d.index.get_indexer(rows.index)
        lower[at], upper[at] = eu.intervals(n1, n2, rows.k1, rows.k2, 1 - level, refine)
    return lower, upper


def test_exact2x2_nuisance_grid_reproduces_exact2x2_with_its_sign_flipped():
    """With exact2x2's 100 nuisance values only (refine=False) the ends are exact2x2's, to its own
    resolution (bisection to 4e-9 there, to 1e-8 here); it reports p2 - p1."""
    lower, upper = _ours(SMALL, refine=False)
    np.testing.assert_allclose(lower, -SMALL.upper_p2_minus_p1, atol=2e-8)
    np.testing.assert_allclose(upper, -SMALL.lower_p2_minus_p1, atol=2e-8)


def test_refined_supremum_contains_exact2x2_and_stays_close():
    """The refined supremum is at least the grid's, so the default ends lie outside exact2x2's, by little."""
    lower, upper = difference_interval("exact_unconditional", SMALL.k1.values, SMALL.n1.values, SMALL.k2.values,
                                       SMALL.n2.values, delta=1 - SMALL.conf_level.values)
    assert np.all(lower <= -SMALL.upper_p2_minus_p1 + 2e-8) and np.all(upper >= -SMALL.lower_p2_minus_p1 - 2e-8)
    np.testing.assert_allclose(lower, -SMALL.upper_p2_minus_p1, atol=1e-3)
    np.testing.assert_allclose(upper, -SMALL.lower_p2_minus_p1, atol=1e-3)


def _tied_at_zero(k1, n1, k2, n2):
    """Whether another outcome has the same score statistic at θ = 0, in exact arithmetic."""
    def t(a, b):
        d, p = Fraction(a, n1) - Fraction(b, n2), Fraction(a + b, n1 + n2)
        return (d > 0) - (d < 0), d * d / (p * (1 - p)) if 0 < p < 1 else 0
    return sum(t(a, b) == t(k1, k2) for a in range(n1 + 1) for b in range(n2 + 1)) > 1


def test_p_value_matches_exact2x2_except_where_its_rounding_breaks_a_tie():
    """exact2x2's p-value of p1 = p2; where the outcome is tied with others in exact arithmetic (at
    (n1, n2) = (4, 6): (1, 0), (3, 2), (4, 4) and their mirrors) its rounding noise can leave a tied
    outcome out of the tail, so there ours, counting every tied outcome, is larger."""
    d = SMALL[SMALL.conf_level == 0.95]
    ours = np.array([eu.p_value(r.k1, r.n1, r.k2, r.n2, 0.0, refine=False) for r in d.itertuples()])
    tied = np.array([_tied_at_zero(r.k1, r.n1, r.k2, r.n2) for r in d.itertuples()])
    np.testing.assert_allclose(ours[~tied], d.p_value[~tied], atol=1e-9)
    assert np.all(ours[tied] >= d.p_value[tied] - 1e-9)
    assert np.any(ours[tied] > d.p_value[tied] + 1e-3)  # the case the exception is for


def _brute_upper_tail(k1, n1, k2, n2, theta, points=2001):
    """sup over a fine nuisance grid of P(T(X; θ) >= T(t; θ)), every outcome enumerated, T Mee's score
    statistic written independently (difference.score_statistic, unrounded; ties within 1e-9)."""
    a, b = (x.ravel() for x in np.indices((n1 + 1, n2 + 1)))
    t = score_statistic(a.astype(float), n1, b.astype(float), n2, theta, False, False)
    t0 = score_statistic(float(k1), n1, float(k2), n2, theta, False, False)
    extreme = t >= t0 - 1e-9 * max(1.0, abs(float(t0)))
    p1 = np.linspace(max(0.0, theta), min(1.0, 1.0 + theta), points)
    pmf = stats.binom.pmf(a[None, :], n1, p1[:, None]) * stats.binom.pmf(b[None, :], n2, np.clip(p1 - theta, 0, 1)[:, None])
    return float((pmf * extreme).sum(axis=1).max())


@pytest.mark.parametrize("k1, n1, k2, n2", [(3, 10, 8, 12), (1, 3, 0, 3), (7, 7, 2, 9)])
def test_each_end_is_where_the_brute_force_p_value_crosses_delta_over_two(k1, n1, k2, n2):
    lower, upper = difference_interval("exact_unconditional", k1, n1, k2, n2)
    assert _brute_upper_tail(k1, n1, k2, n2, lower - 1e-5) <= 0.025 < _brute_upper_tail(k1, n1, k2, n2, lower + 1e-5)
    # the upper end is the mirrored outcome's lower end
    m1, m2 = n1 - k1, n2 - k2
    assert _brute_upper_tail(m1, n1, m2, n2, -upper - 1e-5) <= 0.025 < _brute_upper_tail(m1, n1, m2, n2, -upper + 1e-5)


def test_registered_as_a_guaranteed_exact_method():
    m = methods()["difference.exact_unconditional"]
    assert m.guaranteed and m.family == "exact"


def test_coverage_is_at_least_nominal_over_whole_grids():
    """The exact engine of the unpaired design, every (p1, p2) on a 0.05 grid."""
    grid = np.round(np.arange(0.0, 1.0001, 0.05), 2)
    p1, p2 = (np.ravel(a) for a in np.meshgrid(grid, grid))
    worst = 1.0
    for n1, n2 in ((1, 4), (5, 3), (8, 8)):
        r = coverage("exact_unconditional", design="unpaired", n1=n1, n2=n2, p1=p1, p2=p2, delta=0.05)
        worst = min(worst, float(np.min(r.coverage)))
    assert worst >= 0.95 - 1e-9
    # and it is not conservative by construction alone: the Wald interval fails the same check
    r = coverage("wald", design="unpaired", n1=8, n2=8, p1=p1, p2=p2, delta=0.05)
    assert float(np.min(r.coverage)) < 0.95


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_ordered_in_range_and_holding_the_estimate(n1, n2, data):
    """Ends in [-1, 1], lower <= estimate <= upper (Q_t at θ = d̂ is at least P(T >= 0) at (p̂1, p̂2),
    about 1/2), and exchanging the test sets negates the interval."""
    k1, k2 = data.draw(st.integers(0, n1)), data.draw(st.integers(0, n2))
    lower, upper = difference_interval("exact_unconditional", k1, n1, k2, n2)
    assert -1 <= lower <= k1 / n1 - k2 / n2 <= upper <= 1
    swapped = difference_interval("exact_unconditional", k2, n2, k1, n1)
    assert swapped == pytest.approx((-upper, -lower), abs=2e-8)


def test_refuses_too_many_outcomes():
    with pytest.raises(ValueError, match="n1, n2"):
        difference_interval("exact_unconditional", 1, 300, 2, 300)
