"""Confusion-matrix metrics: ratio intervals, truths, exact and Monte Carlo coverage."""

import itertools

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from covstudy import balanced_coverage, interval, metric_coverage, metric_interval
from covstudy.designs import iid_counts
from covstudy.designs.iid import MERGED_EXACT_LIMIT as RATIO_IID_EXACT_LIMIT

RATIO = ("accuracy", "precision", "recall", "specificity", "npv", "jaccard")
# (k, l) by hand, independent of metrics.RATIO_CELLS
KL = {"accuracy": lambda tp, fn, fp, tn: (tp + tn, fn + fp), "precision": lambda tp, fn, fp, tn: (tp, fp),
      "recall": lambda tp, fn, fp, tn: (tp, fn), "specificity": lambda tp, fn, fp, tn: (tn, fp),
      "npv": lambda tp, fn, fp, tn: (tn, fn), "jaccard": lambda tp, fn, fp, tn: (tp, fp + fn),
      "f1": lambda tp, fn, fp, tn: (tp, fp + fn)}


def all_matrices(n):
    """Every confusion matrix with n examples, as four arrays."""
    cms = [c for c in itertools.product(range(n + 1), repeat=3) if sum(c) <= n]
    tp, fn, fp = np.array(cms).T
    return tp, fn, fp, n - tp - fn - fp


@pytest.mark.parametrize("metric", RATIO)
def test_ratio_interval_is_binomial_method_on_k_and_k_plus_l(metric):
    tp, fn, fp, tn = all_matrices(7)  # includes every kind of zero denominator
    k, l = KL[metric](tp, fn, fp, tn)
    m = k + l
    for method, ref in (("wilson", "wilson"), ("clopper_pearson", "beta"), ("jeffreys_equal_tailed", "jeffreys")):
        for delta in (0.05, 0.2):
            lo, hi = metric_interval(metric, method, tp, fn, fp, tn, delta)
            ref_lo, ref_hi = proportion_confint(k[m > 0], m[m > 0], alpha=delta, method=ref)
            np.testing.assert_allclose(lo[m > 0], ref_lo, atol=1e-9)
            np.testing.assert_allclose(hi[m > 0], ref_hi, atol=1e-9)
            assert np.all(lo[m == 0] == 0) and np.all(hi[m == 0] == 1) and np.any(m == 0) == (metric != "accuracy")
    # parameters and sides pass through to the binomial method
    lo, hi = metric_interval(metric, "bayes", tp, fn, fp, tn, 0.1, side="lower", a=2, b=3)
    ref_lo, _ = interval("bayes", k[m > 0], m[m > 0], 0.1, side="lower", a=2, b=3)
    np.testing.assert_array_equal(lo[m > 0], ref_lo)
    assert np.all(hi == 1) and np.all(lo[m == 0] == 0)


def test_zero_denominators_are_vacuous():
    # no predicted positives: precision unknown; no negatives: specificity and npv unknown
    assert metric_interval("precision", "wald", tp=0, fn=5, fp=0, tn=20) == (0.0, 1.0)
    assert metric_interval("specificity", "clopper_pearson", tp=3, fn=2, fp=0, tn=0) == (0.0, 1.0)
    assert metric_interval("npv", "wilson", tp=3, fn=0, fp=2, tn=0) == (0.0, 1.0)
    assert metric_interval("recall", "wilson", tp=0, fn=0, fp=2, tn=9) == (0.0, 1.0)
    assert metric_interval("jaccard", "jeffreys", tp=0, fn=0, fp=0, tn=9) == (0.0, 1.0)
    assert metric_interval("f1", "f1_delta", tp=0, fn=0, fp=0, tn=9) == (0.0, 1.0)
    assert metric_interval("f1", "f1_bootstrap", tp=0, fn=0, fp=0, tn=9, seed=1) == (0.0, 1.0)


def test_f1_through_jaccard():
    tp, fn, fp, tn = all_matrices(6)
    lo, hi = metric_interval("f1", "wilson", tp, fn, fp, tn, 0.1)
    jl, jh = metric_interval("jaccard", "wilson", tp, fn, fp, tn, 0.1)
    np.testing.assert_allclose(lo, 2 * jl / (1 + jl))
    np.testing.assert_allclose(hi, 2 * jh / (1 + jh))
    f, j = (metric_coverage(m, "wilson", 30, 0.4, 0.7, 0.8, delta=0.1) for m in ("f1", "jaccard"))
    assert f.coverage == pytest.approx(j.coverage, abs=1e-14) and f.mean_width != j.mean_width
    assert f.truth == pytest.approx(2 * j.truth / (1 + j.truth))


def test_truths_by_hand():
    # prevalence 0.3, tpr 0.8, tnr 0.9: π_TP = .24, π_FN = .06, π_FP = .07, π_TN = .63
    expected = {"accuracy": 0.87, "balanced_accuracy": 0.85, "precision": 0.24 / 0.31, "recall": 0.8,
                "specificity": 0.9, "npv": 0.63 / 0.69, "jaccard": 0.24 / 0.37, "f1": 0.48 / 0.61}
    for metric, value in expected.items():
        c = metric_coverage(metric, "wilson" if metric != "balanced_accuracy" else "ba_wald", 20, 0.3, 0.8, 0.9)
        assert c.truth == pytest.approx(value, rel=1e-12), metric
    # stratified: prevalence is n_pos/n = 7/20 = 0.35 (round(20·0.33) = 7)
    c = metric_coverage("precision", "wilson", 20, 0.33, 0.8, 0.9, design="stratified")
    assert (c.n_pos, c.n_neg) == (7, 13) and c.truth == pytest.approx(0.35 * 0.8 / (0.35 * 0.8 + 0.65 * 0.1))
    with pytest.raises(ValueError, match="precision is undefined"):
        metric_coverage("precision", "wilson", 20, 0.3, 0.0, 1.0)
    with pytest.raises(ValueError, match="npv is undefined"):
        metric_coverage("npv", "wilson", 20, 0.3, 1.0, 0.0)


def brute_force(metric, method, n, q, tpr, tnr, delta, design, **params):
    """Coverage and mean width by a loop over every confusion matrix, calling metric_interval."""
    if design == "iid":
        probs = [q * tpr, q * (1 - tpr), (1 - q) * (1 - tnr), (1 - q) * tnr]
        cms = zip(*all_matrices(n))
        weight = lambda cm: stats.multinomial.pmf(cm, n, probs)  # noqa: E731
        pi = probs
    else:
        n_pos = n_neg = None
        n_pos = min(n - 1, max(1, round(n * q)))
        n_neg = n - n_pos
        cms = [(a, n_pos - a, n_neg - b, b) for a in range(n_pos + 1) for b in range(n_neg + 1)]
        weight = lambda cm: stats.binom.pmf(cm[0], n_pos, tpr) * stats.binom.pmf(cm[3], n_neg, tnr)  # noqa: E731
        qs = n_pos / n
        pi = [qs * tpr, qs * (1 - tpr), (1 - qs) * (1 - tnr), (1 - qs) * tnr]
    a, b = KL[metric](*pi)
    truth = a / (a + b) if metric != "f1" else 2 * a / (2 * a + b)
    cover = width = 0.0
    for cm in cms:
        lo, hi = metric_interval(metric, method, *cm, delta, **params)
        w = weight(np.array(cm))
        cover += w * (lo <= truth <= hi)
        width += w * (hi - lo)
    return cover, width


@pytest.mark.parametrize("metric,method,design", [
    ("precision", "wilson", "iid"), ("npv", "clopper_pearson", "iid"), ("jaccard", "jeffreys", "iid"),
    ("accuracy", "wald", "iid"), ("f1", "agresti_coull", "iid"),
    ("precision", "wilson", "stratified"), ("recall", "clopper_pearson", "stratified"),
    ("accuracy", "jeffreys", "stratified"), ("jaccard", "wald", "stratified")])
def test_exact_coverage_matches_direct_enumeration(metric, method, design):
    # tpr 0.3 with tnr 0.95 at n = 11 makes zero denominators (no predicted positives) common
    c = metric_coverage(metric, method, 11, 0.3, 0.3, 0.95, design=design, delta=0.1)
    expected = brute_force(metric, method, 11, 0.3, 0.3, 0.95, 0.1, design)
    assert (c.coverage, c.mean_width) == pytest.approx(expected, abs=1e-12)
    assert c.engine == "exact" and c.n_valid is None and c.miss_low + c.miss_high == pytest.approx(1 - c.coverage)


@pytest.mark.parametrize("metric,method,design", [
    ("precision", "wilson", "iid"), ("jaccard", "clopper_pearson", "stratified"), ("accuracy", "wald", "iid"),
    ("npv", "jeffreys", "stratified"), ("f1", "wilson", "iid")])
def test_monte_carlo_agrees_with_exact(metric, method, design):
    exact = metric_coverage(metric, method, 60, 0.2, 0.7, 0.9, design=design)
    mc = metric_coverage(metric, method, 60, 0.2, 0.7, 0.9, design=design, reps=20_000, seed=11)
    assert abs(mc.coverage - exact.coverage) <= 4 * mc.mcse
    assert mc.mean_width == pytest.approx(exact.mean_width, abs=4 * mc.sd_width / np.sqrt(mc.reps))
    assert mc.engine == "mc" and mc.reps == 20_000 and mc.seed == 11


def test_monte_carlo_shares_the_points_test_sets():
    # n_valid (non-zero denominators) from the design stream used by balanced accuracy
    mc = metric_coverage("precision", "wilson", 15, 0.2, 0.1, 0.97, reps=5000, seed=4)
    out = iid_counts(15, 0.2, 0.1, 0.97, 5000, 4)
    predicted_positive = out.k_pos + (out.n_neg - out.k_neg)
    assert mc.n_valid == int(out.weight[predicted_positive > 0].sum()) < 5000
    again = metric_coverage("precision", "wilson", 15, 0.2, 0.1, 0.97, reps=5000, seed=4)
    assert again == mc
    other = metric_coverage("recall", "clopper_pearson", 15, 0.2, 0.1, 0.97, reps=5000, seed=4)
    assert other.n_valid == int(out.weight[out.n_pos > 0].sum())


def test_balanced_accuracy_delegates():
    c = metric_coverage("balanced_accuracy", "ba_wald", 30, 0.3, 0.8, 0.9, design="iid")
    b = balanced_coverage("ba_wald", 0.8, 0.9, n=30, prevalence=0.3, design="iid")
    assert (c.coverage, c.mean_width, c.truth) == (b.coverage, b.mean_width, b.truth)
    c = metric_coverage("balanced_accuracy", "ba_cp_union", 30, 0.3, 0.8, 0.9, design="stratified")
    b = balanced_coverage("ba_cp_union", 0.8, 0.9, n_pos=9, n_neg=21)
    assert c.coverage == b.coverage
    lo, hi = metric_interval("balanced_accuracy", "ba_wald", 8, 2, 3, 17)
    from covstudy import balanced_interval
    assert (lo, hi) == balanced_interval("ba_wald", 8, 10, 17, 20)


def test_bad_input():
    with pytest.raises(ValueError, match="metric must be one of"):
        metric_interval("f2", "wilson", 1, 1, 1, 1)
    with pytest.raises(ValueError, match="unknown method 'wilsn'"):
        metric_interval("precision", "wilsn", 1, 1, 1, 1)
    with pytest.raises(ValueError, match="F1 method"):
        metric_interval("f1", "f1_dleta", 1, 1, 1, 1)
    with pytest.raises(ValueError, match="tp \\+ fn \\+ fp \\+ tn must be >= 1"):
        metric_interval("precision", "wilson", 0, 0, 0, 0)
    with pytest.raises(ValueError, match="fp must be"):
        metric_interval("precision", "wilson", 1, 1, -1, 1)
    with pytest.raises(ValueError, match="two-sided intervals only"):
        metric_interval("f1", "f1_delta", 1, 1, 1, 1, side="lower")
    with pytest.raises(ValueError, match="Monte Carlo coverage only"):
        metric_coverage("f1", "f1_bootstrap", 20, 0.3, 0.8, 0.9)
    with pytest.raises(ValueError, match=r"needs at most 10,000,000 outcomes \(k, l\)"):
        metric_coverage("precision", "wilson", 500 * RATIO_IID_EXACT_LIMIT, 0.3, 0.8, 0.9)
    with pytest.raises(ValueError, match="prevalence must be in \\(0, 1\\)"):
        metric_coverage("precision", "wilson", 20, 1.0, 0.8, 0.9)
    with pytest.raises(ValueError, match="design must be one of"):
        metric_coverage("precision", "wilson", 20, 0.3, 0.8, 0.9, design="binomial")
    with pytest.raises(ValueError, match="draws must be a whole number"):
        metric_coverage("f1", "f1_bootstrap", 20, 0.3, 0.8, 0.9, reps=10, draws=10.5)
    with pytest.raises(ValueError, match="unknown parameter 'a'"):
        metric_coverage("f1", "f1_delta", 20, 0.3, 0.8, 0.9, reps=10, a=1)


from hypothesis import given, settings, strategies as st  # noqa: E402

from covstudy import METRICS  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(cm=st.tuples(*[st.integers(0, 40)] * 4).filter(lambda c: sum(c) > 0),
       delta=st.floats(0.01, 0.5), metric=st.sampled_from(METRICS))
def test_intervals_are_ordered_inside_unit_interval(cm, delta, metric):
    methods = {"balanced_accuracy": ["ba_wald", "ba_cp_union"],
               "f1": ["wilson", "f1_delta", "f1_bayes", "f1_bootstrap"]}.get(metric, ["wilson", "clopper_pearson"])
    for method in methods:
        params = {"draws": 200} if method == "f1_bootstrap" else {}
        lo, hi = metric_interval(metric, method, *cm, delta, seed=0, **params)
        assert 0 <= lo <= hi <= 1, (method, cm)
        if metric not in ("balanced_accuracy", "f1") or method == "f1_delta":
            k, l = KL.get(metric, KL["f1"])(*cm)
            if k + l:
                est = k / (k + l) if metric != "f1" else 2 * k / (2 * k + l)
                assert lo - 1e-12 <= est <= hi + 1e-12  # these intervals contain the estimate
