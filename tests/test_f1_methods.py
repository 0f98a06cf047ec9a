"""F1 methods: delta-method variance, Bayesian posterior quantiles, percentile bootstrap, coverage."""

import numpy as np
import pytest
from scipy import special, stats

from covstudy import f1_methods, metric_coverage, metric_interval
from covstudy.designs import ratio_pmf

CMS = [(40, 10, 5, 45), (3, 1, 0, 96), (12, 30, 25, 3), (1, 0, 0, 0), (0, 4, 2, 10), (7, 0, 0, 2)]


def test_registry():
    assert {m.name for m in f1_methods().values()} == {"f1_delta", "f1_bayes", "f1_bootstrap"}
    assert list(f1_methods()) == ["f1.delta", "f1.bayes", "f1.bootstrap"]  # qualified names
    assert f1_methods()["f1_bayes"].defaults == {"alpha": 0.25}  # 1/K², K = 2 (issue 42)
    assert [m.per_test_set for m in f1_methods().values()] == [False, False, True]  # only the bootstrap samples


def test_delta_variance_against_simulation():
    # Var F̂ ≈ 4a(b + c)(a + b + c)/(n·D⁴) (methods/f1.py) vs the variance of 200 000 simulated F̂
    rng = np.random.default_rng(0)
    for n, pi in ((400, [0.2, 0.05, 0.1, 0.65]), (1000, [0.05, 0.02, 0.03, 0.9])):
        a, c, b = pi[0], pi[1], pi[2]  # tp, fn, fp
        var = 4 * a * (b + c) * (a + b + c) / (n * (2 * a + b + c) ** 4)
        cm = rng.multinomial(n, pi, size=200_000)
        f = 2 * cm[:, 0] / (2 * cm[:, 0] + cm[:, 1] + cm[:, 2])
        assert np.var(f) == pytest.approx(var, rel=0.03)  # O(1/n) bias + 0.3 % sampling error
    # the kernel is F̂ ± z·sqrt(that variance at the observed proportions)
    for tp, fn, fp, tn in CMS[:3]:
        n = tp + fn + fp + tn
        a, b, c = tp / n, fp / n, fn / n
        se = np.sqrt(4 * a * (b + c) * (a + b + c) / (n * (2 * a + b + c) ** 4))
        f, z = 2 * a / (2 * a + b + c), stats.norm.ppf(0.95)
        lo, hi = metric_interval("f1", "f1_delta", tp, fn, fp, tn, delta=0.1)
        assert (lo, hi) == pytest.approx((max(0, f - z * se), min(1, f + z * se)), abs=1e-12)
    # degenerate ends: F̂ = 0 and F̂ = 1 have zero estimated variance
    assert metric_interval("f1", "f1_delta", 0, 4, 2, 10) == (0.0, 0.0)
    assert metric_interval("f1", "f1_delta", 7, 0, 0, 2) == (1.0, 1.0)


def exact_posterior_cdf(x, tp, fn, fp, alpha):
    """P(F1 <= x) under the Dirichlet posterior: F1 = 2B/(1 + B), B ~ Beta(TP + α, FP + FN + 2α)."""
    return special.betainc(tp + alpha, fp + fn + 2 * alpha, x / (2 - x))


def gamma_reference(tp, fn, fp, tn, delta, alpha, draws, rng):
    """Independent sampler: all four Gamma variates, normalised to Dirichlet proportions, np.quantile."""
    g = np.stack([rng.gamma(c + alpha, size=draws) for c in (tp, fn, fp, tn)])
    p = g / g.sum(axis=0)
    f = 2 * p[0] / (2 * p[0] + p[1] + p[2])
    return np.quantile(f, [delta / 2, 1 - delta / 2])


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_bayes_quantiles(alpha):
    draws, delta = 200_000, 0.1
    tp, fn, fp, tn = (np.array(v) for v in zip(*CMS))
    lo, hi = metric_interval("f1", "f1_bayes", tp, fn, fp, tn, delta, alpha=alpha)
    # exact: the posterior CDF of F1 (from the Beta of B = F/(2 - F)) is delta/2 and 1 - delta/2 there
    np.testing.assert_allclose(exact_posterior_cdf(lo, tp, fn, fp, alpha), delta / 2, atol=1e-12)
    np.testing.assert_allclose(exact_posterior_cdf(hi, tp, fn, fp, alpha), 1 - delta / 2, atol=1e-12)
    # and the independent four-Gamma sampler's quantiles agree within 4 binomial standard errors
    ref = np.array([gamma_reference(*cm, delta, alpha, draws, np.random.default_rng(9)) for cm in CMS])
    for level, est in ((delta / 2, ref[:, 0]), (1 - delta / 2, ref[:, 1])):
        tol = 4 * np.sqrt(level * (1 - level) / draws)
        np.testing.assert_array_less(np.abs(exact_posterior_cdf(est, tp, fn, fp, alpha) - level), tol)
    assert np.all(hi - lo > 0)


def exact_bootstrap_cdf(x, tp, fn, fp, tn):
    """P(F1* <= x) and P(F1* < x) over resamples with 2TP* + FP* + FN* > 0 (the exact trinomial)."""
    n = tp + fn + fp + tn
    k, l, w = ratio_pmf(n, tp / n, (fp + fn) / n)
    ok = k + l > 0
    f, w = 2 * k[ok] / (2 * k[ok] + l[ok]), w[ok] / w[ok].sum()
    return w[f <= x + 1e-12].sum(), w[f < x - 1e-12].sum()


def slow_bootstrap(tp, fn, fp, tn, delta, draws, rng):
    """Resample the examples themselves, one resample at a time."""
    labels = np.repeat(np.arange(4), [tp, fn, fp, tn])
    f = []
    for _ in range(draws):
        c = np.bincount(rng.choice(labels, size=labels.size), minlength=4)
        if 2 * c[0] + c[1] + c[2] > 0:
            f.append(2 * c[0] / (2 * c[0] + c[1] + c[2]))
    return np.quantile(f, [delta / 2, 1 - delta / 2])


def test_bootstrap_percentiles():
    draws, delta = 20_000, 0.1
    for cm in CMS[:4]:
        lo, hi = metric_interval("f1", "f1_bootstrap", *cm, delta, seed=3, draws=draws)
        slow = slow_bootstrap(*cm, delta, 4000, np.random.default_rng(8))
        for est, slow_est, level in ((lo, slow[0], delta / 2), (hi, slow[1], 1 - delta / 2)):
            for value, d in ((est, draws), (slow_est, 4000)):
                tol = 4 * np.sqrt(level * (1 - level) / d)
                at_most, below = exact_bootstrap_cdf(value, *cm)
                assert below - tol <= level <= at_most + tol  # value is a level-quantile of F1*
    assert metric_interval("f1", "f1_bootstrap", 0, 4, 2, 10, seed=1) == (0.0, 0.0)
    assert metric_interval("f1", "f1_bootstrap", 7, 0, 0, 2, seed=1) == (1.0, 1.0)


def test_draws_are_reproducible():
    a = metric_interval("f1", "f1_bootstrap", 40, 10, 5, 45, seed=2, draws=500)
    b = metric_interval("f1", "f1_bootstrap", 40, 10, 5, 45, seed=2, draws=500)
    c = metric_interval("f1", "f1_bootstrap", 40, 10, 5, 45, seed=3, draws=500)
    assert a == b and a != c
    # without a seed: a fixed, documented default, so the same call gives the same interval
    assert metric_interval("f1", "f1_bootstrap", 40, 10, 5, 45) == metric_interval("f1", "f1_bootstrap", 40, 10, 5, 45,
                                                                                   seed=0)


def exact_delta_coverage(n, q, tpr, tnr, delta):
    """f1_delta depends on (TP, FP + FN) only: enumerate their trinomial."""
    a, b = q * tpr, q * (1 - tpr) + (1 - q) * (1 - tnr)
    k, l, w = ratio_pmf(n, a, b)
    truth = 2 * a / (2 * a + b)
    lo, hi = metric_interval("f1", "f1_delta", k, 0, l, n - k - l, delta)
    return np.sum(w * ((lo <= truth) & (truth <= hi)))


@pytest.mark.parametrize("design", ["iid", "stratified"])
def test_monte_carlo_coverage(design):
    c = metric_coverage("f1", "f1_delta", 80, 0.25, 0.7, 0.9, design=design, reps=20_000, seed=1)
    assert c.engine == "mc" and c.n_valid == 20_000 and c.truth == pytest.approx(0.35 / (0.35 + 0.075 + 0.075))
    if design == "iid":
        assert abs(c.coverage - exact_delta_coverage(80, 0.25, 0.7, 0.9, 0.05)) <= 4 * c.mcse
    for method, params in (("f1_bayes", {}), ("f1_bootstrap", {"draws": 400})):
        r = metric_coverage("f1", method, 80, 0.25, 0.7, 0.9, design=design, reps=1000, seed=1, **params)
        assert r == metric_coverage("f1", method, 80, 0.25, 0.7, 0.9, design=design, reps=1000, seed=1, **params)
        assert 0.85 < r.coverage < 1 and r.params.get("draws", 400) == 400
        # same test sets as f1_delta: widths of the same order, and a different seed changes the draws
        assert abs(r.mean_width - c.mean_width) < 0.1 * c.mean_width
    other = metric_coverage("f1", "f1_bootstrap", 80, 0.25, 0.7, 0.9, design=design, reps=1000, seed=2, draws=400)
    assert other.coverage != r.coverage or other.mean_width != r.mean_width
    # f1_bayes is exact-capable, and its Monte Carlo coverage agrees with its exact coverage
    exact = metric_coverage("f1", "f1_bayes", 80, 0.25, 0.7, 0.9, design=design)
    mc = metric_coverage("f1", "f1_bayes", 80, 0.25, 0.7, 0.9, design=design, reps=20_000, seed=1)
    assert exact.engine == "exact" and abs(mc.coverage - exact.coverage) <= 4 * mc.mcse


def test_zero_denominator_test_sets_counted():
    # tiny prevalence and n: many test sets without positives or predicted positives
    c = metric_coverage("f1", "f1_delta", 5, 0.05, 0.5, 0.98, reps=4000, seed=0)
    p_empty = (1 - 0.05 * 1 - 0.95 * 0.02) ** 5  # every example a true negative
    assert abs((4000 - c.n_valid) / 4000 - p_empty) < 4 * np.sqrt(p_empty * (1 - p_empty) / 4000)
