"""Coverage of balanced-accuracy methods: exact engine vs brute force, guarantees, Monte Carlo."""

import numpy as np
import pytest
from scipy import stats

from covstudy import balanced_coverage, balanced_interval
from covstudy.designs import get_design
from covstudy.designs.iid import FULL_EXACT_LIMIT as IID_EXACT_LIMIT
from covstudy.estimands import get_estimand
from covstudy.engine.core import Analysis, Evaluator
from covstudy.methods import get


def balanced_table(method, n_pos, n_neg, delta):
    """The shared interval table of the class sizes (n_pos, n_neg), shaped (n_pos + 1, n_neg + 1)."""
    a = Analysis(get(method), (), get_estimand("confusion", "balanced_accuracy"), delta, "two-sided", None, None)
    lower, upper = Evaluator(get_design("stratified")).table((n_pos, n_neg), a, {})
    return lower.reshape(n_pos + 1, n_neg + 1), upper.reshape(n_pos + 1, n_neg + 1), lower


def brute_force(method, tpr, tnr, delta, n_pos=None, n_neg=None, n=None, prevalence=None):
    """Coverage by an explicit loop over outcomes, calling the public interval function."""
    truth = (tpr + tnr) / 2
    sizes = [(n_pos, n_neg, 1.0)] if n is None else \
        [(m, n - m, stats.binom.pmf(m, n, prevalence)) for m in range(n + 1)]
    total = width = 0.0
    for npos, nneg, p_size in sizes:
        for kp in range(npos + 1):
            for kn in range(nneg + 1):
                p = p_size * stats.binom.pmf(kp, npos, tpr) * stats.binom.pmf(kn, nneg, tnr)
                lo, hi = balanced_interval(method, kp, npos, kn, nneg, delta)
                total += p * (lo <= truth <= hi)
                width += p * (hi - lo)
    return total, width


@pytest.mark.parametrize("method", ["ba_cp_union", "ba_wald", "ba_posterior"])
def test_exact_engine_matches_brute_force(method):
    c = balanced_coverage(method, tpr=0.9, tnr=0.7, n_pos=6, n_neg=9, delta=0.1)
    assert (c.coverage, c.mean_width) == pytest.approx(brute_force(method, 0.9, 0.7, 0.1, n_pos=6, n_neg=9), abs=1e-12)
    c = balanced_coverage(method, tpr=0.8, tnr=0.95, n=12, prevalence=0.2, design="iid", delta=0.1)
    expected = brute_force(method, 0.8, 0.95, 0.1, n=12, prevalence=0.2)  # includes n_pos = 0
    assert (c.coverage, c.mean_width) == pytest.approx(expected, abs=1e-12)
    assert c.engine == "exact" and c.n_valid is None and c.truth == pytest.approx(0.875)


def test_cp_union_guarantee_on_a_grid():
    t = np.concatenate([np.linspace(0.0, 1.0, 11), [0.01, 0.97, 0.995]])  # incl. near the edges
    tpr, tnr = (v.ravel() for v in np.meshgrid(t, t))
    for delta in (0.05, 0.2):
        for n_pos, n_neg in [(1, 1), (2, 9), (5, 5), (13, 40), (60, 25)]:
            c = balanced_coverage("ba_cp_union", tpr, tnr, n_pos=n_pos, n_neg=n_neg, delta=delta)
            assert c.coverage.min() >= 1 - delta - 1e-12, (n_pos, n_neg, delta)
            assert np.all(c.miss_low + c.miss_high + c.coverage == pytest.approx(1.0))
        for n, prevalence in [(1, 0.5), (8, 0.05), (30, 0.3)]:
            c = balanced_coverage("ba_cp_union", tpr, tnr, n=n, prevalence=prevalence, design="iid", delta=delta)
            assert c.coverage.min() >= 1 - delta - 1e-12, (n, prevalence, delta)
    # ... and the approximate Wald interval does not have it (sanity: the check can fail).
    assert balanced_coverage("ba_wald", 0.98, 0.95, n_pos=10, n_neg=10, delta=0.05).coverage < 0.9


@pytest.mark.parametrize("method", ["ba_cp_union", "ba_wilson_union", "ba_wald", "ba_posterior"])
def test_monte_carlo_agrees_with_exact(method):
    for kwargs in (dict(n_pos=30, n_neg=70), dict(n=40, prevalence=0.1, design="iid")):
        exact = balanced_coverage(method, tpr=[0.9, 0.6], tnr=[0.8, 0.97], delta=0.05, **kwargs)
        mc = balanced_coverage(method, tpr=[0.9, 0.6], tnr=[0.8, 0.97], delta=0.05, reps=20_000, seed=11, **kwargs)
        assert np.all(np.abs(mc.coverage - exact.coverage) <= 4 * mc.mcse + 1e-12), (kwargs, mc.coverage, exact.coverage)
        assert np.all(np.abs(mc.mean_width - exact.mean_width) <= 4 * mc.sd_width / np.sqrt(20_000))
        assert mc.engine == "mc" and mc.reps == 20_000 and mc.seed == 11


def test_iid_empty_classes_and_n_valid():
    """Small n and low prevalence: many test sets lack positives; every one still gets an interval."""
    n, prevalence, reps = 10, 0.08, 40_000
    c = balanced_coverage("ba_posterior", 0.9, 0.9, n=n, prevalence=prevalence, design="iid", reps=reps, seed=5)
    p_valid = 1 - (1 - prevalence) ** n - prevalence**n
    assert abs(c.n_valid / reps - p_valid) <= 4 * np.sqrt(p_valid * (1 - p_valid) / reps)
    exact = balanced_coverage("ba_posterior", 0.9, 0.9, n=n, prevalence=prevalence, design="iid")
    assert abs(c.coverage - exact.coverage) <= 4 * c.mcse
    # With n = 1 one class is always empty: the union bound's coverage is that of one class.
    c = balanced_coverage("ba_cp_union", 0.7, 0.4, n=1, prevalence=0.5, design="iid")
    assert 0.95 <= c.coverage <= 1.0 and c.mean_width > 0.5


def test_reproducible_and_keyed_by_identity():
    kw = dict(n_pos=20, n_neg=30, delta=0.05, reps=5_000, seed=123)
    a = balanced_coverage("ba_wald", [0.7, 0.9], [0.8, 0.6], **kw)
    b = balanced_coverage("ba_wald", 0.9, 0.6, **kw)  # the point's stream does not depend on the others
    assert a.coverage[1] == b.coverage and a.mean_width[1] == b.mean_width
    c = balanced_coverage("ba_cp_union", 0.9, 0.6, **kw)  # same test sets for every method
    assert c.reps == b.reps and c.coverage != b.coverage
    d = balanced_coverage("ba_wald", 0.9, 0.6, **{**kw, "seed": 124})
    assert d.coverage != b.coverage


def test_table_hook():
    lower, upper, flat = balanced_table("ba_cp_union", 4, 6, 0.05)
    assert lower.shape == (5, 7) and not lower.flags.writeable
    np.testing.assert_array_equal((lower[3, 2], upper[3, 2]), balanced_interval("ba_cp_union", 3, 4, 2, 6, 0.05))
    assert balanced_table("ba_cp_union", 4, 6, 0.05)[2] is flat  # cached


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"n: exact iid coverage needs at most 10,000,000 outcomes.*reps="):
        balanced_coverage("ba_wald", 0.9, 0.8, n=50 * IID_EXACT_LIMIT, prevalence=0.5, design="iid")
    with pytest.raises(ValueError, match="design='stratified' takes n_pos and n_neg"):
        balanced_coverage("ba_wald", 0.9, 0.8, n=10, prevalence=0.5)
    with pytest.raises(ValueError, match="design='iid' needs both n"):
        balanced_coverage("ba_wald", 0.9, 0.8, n=10, design="iid")
    with pytest.raises(ValueError, match="design must be one of"):
        balanced_coverage("ba_wald", 0.9, 0.8, n_pos=3, n_neg=4, design="paired")
    with pytest.raises(ValueError, match="n_pos must be >= 1"):
        balanced_coverage("ba_wald", 0.9, 0.8, n_pos=0, n_neg=4)
    with pytest.raises(ValueError, match=r"prevalence must be in \(0, 1\)"):
        balanced_coverage("ba_wald", 0.9, 0.8, n=10, prevalence=0.0, design="iid")
    with pytest.raises(ValueError, match=r"tpr must be in \[0, 1\]"):
        balanced_coverage("ba_wald", 1.2, 0.8, n_pos=3, n_neg=4)
    with pytest.raises(ValueError, match="tpr and tnr must broadcast"):
        balanced_coverage("ba_wald", [0.1, 0.2], [0.1, 0.2, 0.3], n_pos=3, n_neg=4)
    with pytest.raises(ValueError, match="exact coverage needs at most 10,000,000 outcomes \\(tp, tn\\)"):
        balanced_coverage("ba_wald", 0.5, 0.5, n_pos=10**6, n_neg=10**6)
    with pytest.raises(ValueError, match="reps must be >= 1"):
        balanced_coverage("ba_wald", 0.9, 0.8, n_pos=3, n_neg=4, reps=0)
