"""Balanced-accuracy interval methods against direct implementations, and their invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from covstudy import balanced_interval, balanced_methods, interval, methods
from covstudy.methods import beta_mean

ALL = sorted(m.name for m in balanced_methods().values())


def grid():
    """Every (k_pos, n_pos, k_neg, n_neg) with class sizes 0..12 (one class may be empty)."""
    rows = [(kp, npos, kn, nneg) for npos in range(13) for nneg in range(13) if npos + nneg > 0
            for kp in range(npos + 1) for kn in range(nneg + 1)]
    return tuple(np.array(c) for c in zip(*rows))


def cp_one_sided(k, n, delta):
    """Direct Clopper-Pearson one-sided bounds at level delta: lower solves P(X >= k | p) = delta,
    upper solves P(X <= k | p) = delta (beta quantiles); [0, 1] for an empty class."""
    lower = np.where(k == 0, 0.0, stats.beta.ppf(delta, np.maximum(k, 1), n - k + 1))
    upper = np.where(k == n, 1.0, stats.beta.ppf(1 - delta, k + 1, np.maximum(n - k, 1)))
    return np.where(n == 0, 0.0, lower), np.where(n == 0, 1.0, upper)


@pytest.mark.parametrize("delta", [0.01, 0.05, 0.2])
def test_cp_union_matches_direct_construction(delta):
    kp, npos, kn, nneg = grid()
    lp, up = cp_one_sided(kp, npos, delta / 4)
    ln, un = cp_one_sided(kn, nneg, delta / 4)
    lower, upper = balanced_interval("ba_cp_union", kp, npos, kn, nneg, delta)
    np.testing.assert_allclose(lower, (lp + ln) / 2, atol=1e-12)
    np.testing.assert_allclose(upper, (up + un) / 2, atol=1e-12)
    # Seed 000's example: 80 of 100 correct gives the 95% one-sided CP upper bound 0.863.
    assert cp_one_sided(np.array(80), np.array(100), 0.05)[1] == pytest.approx(0.863, abs=5e-4)


@pytest.mark.parametrize("delta", [0.05, 0.2])
def test_wilson_and_jeffreys_union_match_statsmodels_bounds(delta):
    from statsmodels.stats.proportion import proportion_confint
    kp, npos, kn, nneg = grid()
    full = (npos > 0) & (nneg > 0)
    kp, npos, kn, nneg = kp[full], npos[full], kn[full], nneg[full]
    # One-sided bounds at delta/4 = ends of statsmodels' two-sided interval at alpha = delta/2.
    lp, up = proportion_confint(kp, npos, alpha=delta / 2, method="wilson")
    ln, un = proportion_confint(kn, nneg, alpha=delta / 2, method="wilson")
    lower, upper = balanced_interval("ba_wilson_union", kp, npos, kn, nneg, delta)
    np.testing.assert_allclose(lower, (lp + ln) / 2, atol=1e-12)
    np.testing.assert_allclose(upper, (up + un) / 2, atol=1e-12)

    def jeffreys(k, n):  # Beta(k+½, n-k+½) quantiles at delta/4, BCD boundary rule
        lo = np.where(k == 0, 0.0, stats.beta.ppf(delta / 4, k + 0.5, n - k + 0.5))
        hi = np.where(k == n, 1.0, stats.beta.ppf(1 - delta / 4, k + 0.5, n - k + 0.5))
        return lo, hi
    (lp, up), (ln, un) = jeffreys(kp, npos), jeffreys(kn, nneg)
    lower, upper = balanced_interval("ba_jeffreys_union", kp, npos, kn, nneg, delta)
    np.testing.assert_allclose(lower, (lp + ln) / 2, atol=1e-12)
    np.testing.assert_allclose(upper, (up + un) / 2, atol=1e-12)


def test_wald_matches_formula_and_empty_class_convention():
    kp, npos, kn, nneg = grid()
    full = (npos > 0) & (nneg > 0)
    z = stats.norm.ppf(0.975)
    t, s = kp[full] / npos[full], kn[full] / nneg[full]
    half = z * np.sqrt(t * (1 - t) / npos[full] + s * (1 - s) / nneg[full]) / 2
    lower, upper = balanced_interval("ba_wald", kp, npos, kn, nneg, 0.05)
    np.testing.assert_allclose(lower[full], np.clip((t + s) / 2 - half, 0, 1), atol=1e-12)
    np.testing.assert_allclose(upper[full], np.clip((t + s) / 2 + half, 0, 1), atol=1e-12)
    # Empty class: ((L + 0)/2, (U + 1)/2) with (L, U) the observed class's Wald interval.
    lo, hi = interval("wald", 7, 10, 0.05)
    np.testing.assert_allclose(balanced_interval("ba_wald", 7, 10, 0, 0, 0.05), (lo / 2, (hi + 1) / 2))
    np.testing.assert_allclose(balanced_interval("ba_wald", 0, 0, 7, 10, 0.05), (lo / 2, (hi + 1) / 2))


def test_posterior_is_the_beta_mean_interval():
    lower, upper = balanced_interval("ba_posterior", 27, 30, 55, 70, 0.05)
    ref = beta_mean.interval(28, 4, 56, 16, 0.05)
    np.testing.assert_allclose((lower, upper), ref, atol=1e-12)
    lower, upper = balanced_interval("ba_posterior_jeffreys", 27, 30, 55, 70, 0.05)
    np.testing.assert_allclose((lower, upper), beta_mean.interval(27.5, 3.5, 55.5, 15.5, 0.05), atol=1e-12)


def test_empty_class_conventions():
    """Union methods bound the empty class by [0, 1]; posteriors use the prior for it."""
    for name in ("ba_cp_union", "ba_wilson_union", "ba_jeffreys_union"):
        binomial = {"ba_cp_union": "clopper_pearson", "ba_wilson_union": "wilson",
                    "ba_jeffreys_union": "jeffreys"}[name]
        lo, hi = interval(binomial, 4, 9, 0.025)  # one-sided at 0.0125 each = two-sided at 0.025
        np.testing.assert_allclose(balanced_interval(name, 0, 0, 4, 9, 0.05), (lo / 2, (hi + 1) / 2))
    # Uniform prior for the empty class: M = (X + U)/2 with U ~ Uniform(0, 1) = Beta(1, 1).
    np.testing.assert_allclose(balanced_interval("ba_posterior", 5, 8, 0, 0, 0.1),
                               beta_mean.interval(6, 4, 1, 1, 0.1), atol=1e-12)
    np.testing.assert_allclose(balanced_interval("ba_posterior_jeffreys", 0, 0, 5, 8, 0.1),
                               beta_mean.interval(0.5, 0.5, 5.5, 3.5, 0.1), atol=1e-12)
    for name in ALL:  # an empty class leaves at least half the unit interval uncertain
        lower, upper = balanced_interval(name, 0, 0, np.arange(4), 3, 0.05)
        assert np.all(upper - lower > 0.4)


@settings(max_examples=60, deadline=None)
@given(n_pos=st.integers(0, 60), n_neg=st.integers(0, 60), delta=st.floats(0.001, 0.5), data=st.data())
def test_invariants(n_pos, n_neg, delta, data):
    """Bounds in [0, 1], lower <= upper; union and posterior methods are monotone in each k."""
    if n_pos + n_neg == 0:
        n_neg = 1
    k_pos = data.draw(st.integers(0, n_pos))
    k_neg = np.arange(n_neg + 1)
    for name in ALL:
        lower, upper = balanced_interval(name, k_pos, n_pos, k_neg, n_neg, delta)
        assert np.all((0 <= lower) & (lower <= upper) & (upper <= 1)), name
        if name != "ba_wald":
            assert np.all(np.diff(lower) >= -1e-12) and np.all(np.diff(upper) >= -1e-12), name


def test_registry_namespace_and_bad_input():
    assert ALL == ["ba_cp_union", "ba_jeffreys_union", "ba_posterior", "ba_posterior_jeffreys",
                   "ba_wald", "ba_wilson_union"]
    assert not set(ALL) & {m.name for m in methods("proportion").values()}
    assert balanced_methods()["ba_cp_union"].guaranteed
    with pytest.raises(ValueError, match="unknown balanced-accuracy method 'wilson'"):
        balanced_interval("wilson", 1, 2, 1, 2)
    with pytest.raises(ValueError, match="did you mean 'ba_cp_union'"):
        balanced_interval("ba_cp", 1, 2, 1, 2)
    with pytest.raises(ValueError, match=r"k_neg must be in \[0, n_neg\]"):
        balanced_interval("ba_wald", 1, 2, 3, 2)
    with pytest.raises(ValueError, match="n_pos \\+ n_neg must be >= 1"):
        balanced_interval("ba_wald", 0, 0, 0, 0)
    with pytest.raises(ValueError, match="delta must be in"):
        balanced_interval("ba_wald", 1, 2, 1, 2, delta=1.5)
    with pytest.raises(ValueError, match="n_pos must be >= 0"):
        balanced_interval("ba_wald", 0, -1, 1, 2)
