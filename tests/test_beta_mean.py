"""The mean of two Betas: quantiles against QUADPACK and against Monte Carlo draws."""

import numpy as np
import pytest
from _beta_mean_reference import mean_quantile, sum_cdf
from scipy import stats

from covstudy.methods import beta_mean

# Flat and skewed, singular (a or b < 1), very concentrated (n in the thousands), boundary-heavy.
CASES = [
    (1, 1, 1, 1), (2, 5, 7, 3), (0.5, 0.5, 0.5, 0.5), (1, 101, 51, 51), (0.5, 10.5, 50.5, 50.5),
    (3001, 1, 1, 2001), (1, 3001, 0.5, 20.5), (900.5, 100.5, 1800.5, 200.5), (1, 1, 5001, 4001),
    (0.5, 3000.5, 0.5, 2000.5), (1500.5, 1500.5, 1500.5, 1500.5), (10.5, 0.5, 3000.5, 0.5),
]


@pytest.mark.parametrize("params", CASES)
def test_quantiles_match_adaptive_quadrature(params):
    q = np.array([0.00625, 0.025, 0.5, 0.975])
    got = beta_mean.quantile(q, *params)
    # The reference root is searched within 1e-5 of ours (it raises if it is not there).
    expected = [mean_quantile(qi, *params, bracket=(max(g - 1e-5, 0), min(g + 1e-5, 1))) for qi, g in zip(q, got)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize("params", CASES[:6])
def test_cdf_matches_adaptive_quadrature(params):
    m = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    expected = [sum_cdf(2 * mi, *params) for mi in m]
    np.testing.assert_allclose(beta_mean.cdf(m, *params), expected, rtol=0, atol=1e-8)


@pytest.mark.parametrize("params", [(1, 1, 1, 1), (4, 27, 61, 11), (0.5, 30.5, 20.5, 0.5), (301, 31, 2, 9)])
def test_quantiles_match_monte_carlo(params):
    """The exact quantiles are the quantiles of a large sample of (X + Y)/2, within MC error."""
    rng = np.random.default_rng(20240116)
    n = 2_000_000
    a1, b1, a2, b2 = params
    draws = (rng.beta(a1, b1, n) + rng.beta(a2, b2, n)) / 2
    q = np.array([0.0125, 0.025, 0.5, 0.975, 0.9875])
    m = beta_mean.quantile(q, *params)
    share_below = np.array([np.mean(draws <= mi) for mi in m])
    se = np.sqrt(q * (1 - q) / n)
    assert np.all(np.abs(share_below - q) <= 4 * se), (share_below - q) / se


def test_cdf_and_quantile_are_inverse():
    a1, b1, a2, b2 = np.meshgrid([0.5, 1, 7.5, 200], [0.5, 3, 90], [1, 12], [0.5, 40], indexing="ij")
    q = np.linspace(0.001, 0.999, 7)[:, None, None, None, None]
    np.testing.assert_allclose(beta_mean.cdf(beta_mean.quantile(q, a1, b1, a2, b2), a1, b1, a2, b2),
                               np.broadcast_to(q, (7, *a1.shape)), atol=1e-9)


def test_known_closed_forms():
    # Mean of two uniforms is triangular on [0, 1]: P(M <= m) = 2m² for m <= 1/2.
    np.testing.assert_allclose(beta_mean.quantile([0.02, 0.32, 0.5], 1, 1, 1, 1), [0.1, 0.4, 0.5], atol=1e-12)
    # A point-like partner: Beta(1e6 a, 1e6 b) ~ its mean, so M ~ (X + 0.3)/2.
    q = np.array([0.05, 0.5, 0.95])
    np.testing.assert_allclose(beta_mean.quantile(q, 2, 5, 3e6, 7e6),
                               (stats.beta.ppf(q, 2, 5) + 0.3) / 2, atol=1e-6)


def test_symmetries():
    """Reflection Q(q; a1, b1, a2, b2) = 1 - Q(1 - q; b1, a1, b2, a2), and exchange of X and Y."""
    q, a1, b1, a2, b2 = 0.03, 3.5, 40.5, 12.0, 2.0
    m = beta_mean.quantile(q, a1, b1, a2, b2)
    assert m == pytest.approx(1 - beta_mean.quantile(1 - q, b1, a1, b2, a2), abs=1e-12)
    assert m == pytest.approx(beta_mean.quantile(q, a2, b2, a1, b1), abs=1e-12)


def test_interval_shape_order_and_no_warnings():
    k = np.arange(11)
    with np.errstate(divide="raise", over="raise", invalid="raise"):
        lower, upper = beta_mean.interval(k[:, None] + 1, 11 - k[:, None], k + 0.5, 10.5 - k, 0.05)
    assert lower.shape == upper.shape == (11, 11)
    assert np.all((0 <= lower) & (lower < upper) & (upper <= 1))
    assert np.all(np.diff(lower, axis=0) > 0) and np.all(np.diff(upper, axis=1) > 0)


def test_agrees_with_the_earlier_solver():
    """Halley steps with an early stop and skipped zero-weight nodes (issue 18) moved the
    intervals by < 1e-9 (measured: <= 3e-11 over 9,000 random and study-drawn problems); the
    Gauss-Legendre rules (issue 18, later) by < 1e-8 (measured: <= 8.6e-9, at (264.5, 68.5,
    261.5, 332.5), where the new upper end is within 1e-9 of the QUADPACK root and the old one was not).
    Values: the earlier Newton solver (4.2 CDF evaluations per quantile, all 102 nodes)."""
    params = np.array([(1, 1, 1, 1), (0.5, 10.5, 50.5, 50.5), (13, 88, 401, 21), (1, 3001, 0.5, 20.5),
                       (900.5, 100.5, 1800.5, 200.5), (2.5, 1.5, 196.5, 1.5), (1, 2, 196, 5),
                       (264.5, 68.5, 261.5, 332.5), (11, 1, 990, 11), (0.5, 30.5, 20.5, 0.5)], dtype=float)
    lower = [1.1180339887499463e-01, 2.1106221393011704e-01, 5.0852758144660515e-01, 1.0726693083230738e-04,
             8.8799558676579038e-01, 5.8450532752466045e-01, 4.9372485013294420e-01, 5.8740583961178072e-01,
             8.5201018644371940e-01, 4.4756685374610711e-01]
    upper = [0.8881966011250053, 0.36746358200874585, 0.5765130609787877, 0.05848678226028137, 0.9107753441062474,
             0.9769549991617373, 0.908695344458426, 0.6463083663910101, 0.9936973145632604, 0.5329539678204473]
    got_lower, got_upper = beta_mean.interval(*params.T, 0.05)
    np.testing.assert_allclose(got_lower, lower, rtol=0, atol=1e-8)
    np.testing.assert_allclose(got_upper, upper, rtol=0, atol=1e-8)


def test_the_gauss_rules_agree_with_tanh_sinh():
    """Gauss-Legendre (24 nodes, every parameter whole or >= 5) and its cosine variant (40
    nodes, half-integers) against the tanh-sinh rule on the same problems: the study region's
    (ranges cut at y = 0 or 1 included), plus large and lopsided ones. The quantiles agree
    within 2e-8 (measured: <= 3e-9)."""
    params = _study_problems(600, seed=7)
    params = np.concatenate([params, [(1, 1, 1, 1), (3001, 1, 1, 2001), (5.5, 900.5, 1, 1), (20000, 30, 7, 7),
                                      (0.5, 0.5, 0.5, 0.5), (0.5, 3000.5, 0.5, 2000.5), (10.5, 0.5, 3000.5, 0.5)]])
    groups = {id(rule): rows for rule, rows in beta_mean._by_rule(params.T)}
    for rule in (beta_mean._GAUSS, beta_mean._GAUSS_COSINE):
        rows = groups[id(rule)]
        assert len(rows) > 100
        for q in (0.025, 0.975):
            fast, robust = (beta_mean._Sum(*params[rows].T, rule=r).quantile(q) for r in (rule, beta_mean._TANH_SINH))
            np.testing.assert_allclose(fast, robust, rtol=0, atol=2e-8)


def test_kinked_partner_quantiles_within_1e_8():
    """A wide partner with a small parameter (a class all or nearly all correct) has a CDF with a
    kink or a singular slope at 0 or 1; where the narrow one's parameters are >= 3 the Newton
    derivatives go through f_X (``x_form``) and steps are accepted on X's scale. Both ends of
    such intervals (both priors) against the QUADPACK root, within 1e-8."""
    params = [(4, 1, 990, 9), (3.5, 0.5, 989.5, 8.5), (8.5, 0.5, 619.5, 3.5), (665.5, 26.5, 0.5, 2.5),
              (12, 2, 400, 30), (20.5, 1.5, 300.5, 10.5)]
    for row in params:
        s = beta_mean._Sum(*row)
        assert s.x_form or beta_mean._Sum(row[1], row[0], row[3], row[2]).x_form, row
        lower, upper = beta_mean.interval(*row, 0.05)
        for q, m in ((0.025, lower), (0.975, upper)):
            expected = mean_quantile(q, *row, bracket=(max(m - 1e-5, 0), min(m + 1e-5, 1)))
            assert abs(m - expected) < 1e-8, (row, q, m - expected)


def _study_problems(count, seed):
    """Posterior parameters of the balanced-accuracy methods over the balanced_imbalance region:
    n up to 1000, class sizes from 1 (log-uniform), rates 0.7-0.99 and the edges k = 0, k = n;
    uniform and Jeffreys priors."""
    rng = np.random.default_rng(seed)
    n = rng.choice([20, 50, 100, 200, 500, 1000], count)
    n_pos = np.minimum(np.round(np.exp(rng.uniform(0, np.log(n - 1)))), n - 1)
    n_neg = n - n_pos
    k_pos, k_neg = rng.binomial(n_pos.astype(int), rng.choice([0.7, 0.9, 0.99], count)), rng.binomial(
        n_neg.astype(int), rng.choice([0.7, 0.9, 0.99], count))
    k_pos = np.where(rng.random(count) < 0.1, n_pos, k_pos)  # the edges: a class all correct...
    k_neg = np.where(rng.random(count) < 0.05, 0, k_neg)  # ... or all wrong
    prior = rng.choice([1.0, 0.5], count)
    return np.stack([k_pos + prior, n_pos - k_pos + prior, k_neg + prior, n_neg - k_neg + prior], axis=1)


def test_dense_sweep_of_the_study_region_within_1e_6():
    """Issue 18: a four-cumulant start and a cubic Taylor step accepted below 1e-2 sd (one CDF
    evaluation for most quantiles). Each interval end m of 100 problems of the study's region
    is bracketed by the QUADPACK CDF: F(m - 1e-6) < q < F(m + 1e-6)."""
    params = _study_problems(100, seed=18)
    lower, upper = beta_mean.interval(*params.T, 0.05)
    for row, lo, hi in zip(params, lower, upper):
        for q, m in ((0.025, lo), (0.975, hi)):
            assert sum_cdf(2 * (m - 1e-6), *row) < q < sum_cdf(2 * (m + 1e-6), *row), (row, q, m)
