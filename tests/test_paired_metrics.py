"""Issue 28: two classifiers on one test set, any metric's difference (designs/paired_confusion.py,
methods/paired_metrics.py), checked against independent computations."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from covstudy import coverage, paired_metric_interval, paired_metric_superiority
from covstudy.designs import DESIGNS
from covstudy.designs.paired_confusion import EXACT_LIMIT, all_tables, cell_probabilities, table_pmf
from covstudy.methods import get
from covstudy.methods.paired_metrics import COUNTS, METRICS, difference

DESIGN = DESIGNS["paired_confusion"]
POINT = dict(n=10, prevalence=0.4, tpr_first=0.8, tpr_second=0.6, tnr_first=0.7, tnr_second=0.8, correlation=0.3)
RNG = np.random.default_rng(28)
TABLES = RNG.integers(0, 9, size=(60, 8)) + np.array([0, 0, 0, 0, 1, 0, 0, 0])  # at least one example


def first_second(x):
    """The two classifiers' confusion matrices (tp, fn, fp, tn) from 8 cells, written out by hand."""
    p11, p10, p01, p00, n11, n10, n01, n00 = x
    return (p11 + p10, p01 + p00, n01 + n00, n11 + n10), (p11 + p01, p10 + p00, n10 + n00, n11 + n01)


def metric_by_hand(metric, tp, fn, fp, tn):
    with np.errstate(all="ignore"):
        return {"recall": tp / (tp + fn), "specificity": tn / (tn + fp), "precision": tp / (tp + fp),
                "npv": tn / (tn + fn), "accuracy": (tp + tn) / (tp + fn + fp + tn), "f1": 2 * tp / (2 * tp + fp + fn),
                "balanced_accuracy": (tp / (tp + fn) + tn / (tn + fp)) / 2}[metric]


@pytest.mark.parametrize("metric", METRICS)
def test_difference_is_the_metrics_written_out(metric):
    a, b = first_second(TABLES.T.astype(float))
    expected = metric_by_hand(metric, *a) - metric_by_hand(metric, *b)
    np.testing.assert_allclose(difference(metric, TABLES), expected, rtol=1e-13, atol=1e-15)


def test_tables_and_pmf_equal_brute_force():
    n, p = 3, cell_probabilities(DESIGN.derive(POINT))
    brute = {x: math.factorial(n) / math.prod(math.factorial(c) for c in x) * math.prod(pc**c for pc, c in zip(p, x))
             for x in itertools.product(range(n + 1), repeat=8) if sum(x) == n}
    tables = all_tables(n)
    got = dict(zip(zip(*(tables[c].tolist() for c in COUNTS)), table_pmf(tables, p)))
    assert got.keys() == brute.keys() and len(got) == math.comb(n + 7, 7)
    assert all(got[x] == pytest.approx(brute[x], rel=1e-12) for x in brute)


def test_truth_is_the_metric_of_a_large_sample_of_examples():
    """Examples drawn one by one (class, then correctness of each with the class's correlation)."""
    rng = np.random.default_rng(5)
    size = 2_000_000
    pos = rng.random(size) < POINT["prevalence"]
    a1 = np.where(pos, POINT["tpr_first"], POINT["tnr_first"])
    a2 = np.where(pos, POINT["tpr_second"], POINT["tnr_second"])
    both = a1 * a2 + POINT["correlation"] * np.sqrt(a1 * (1 - a1) * a2 * (1 - a2))
    u = rng.random(size)
    first = u < a1
    second = np.where(first, rng.random(size) < both / a1, rng.random(size) < (a2 - both) / (1 - a1))
    x = np.array([np.sum(c) for c in (pos & first & second, pos & first & ~second, pos & ~first & second,
                                      pos & ~first & ~second, ~pos & first & second, ~pos & first & ~second,
                                      ~pos & ~first & second, ~pos & ~first & ~second)])
    from covstudy.estimands import get_estimand

    for metric in METRICS:
        estimand = get_estimand("paired_confusion", f"{metric}_difference")
        truth = estimand.truth(DESIGN.truth_inputs(DESIGN.derive(POINT)))
        assert difference(metric, x) == pytest.approx(truth, abs=3e-3)


@pytest.mark.parametrize("metric, cells", [("accuracy", None), ("recall", slice(0, 4)), ("specificity", slice(4, 8))])
def test_delta_is_the_paired_wald_interval_for_a_paired_proportion(metric, cells):
    """Accuracy is the summed table's paired proportion, recall (specificity) the positives' (negatives')."""
    x = TABLES
    table = x[:, :4] + x[:, 4:] if cells is None else x[:, cells]
    keep = table.sum(axis=1) > 0
    ours = get("pm_delta").kernel(*x[keep].T, 0.05, metric=metric)
    wald = get("paired_wald").kernel(*table[keep].T, 0.05)
    np.testing.assert_allclose(ours, wald, atol=1e-12)


def numeric_delta(metric, x, delta):
    """The delta method with a numerical gradient (central differences) of D at the proportions."""
    n = x.sum()
    p = x / n
    g = np.zeros(8)
    for i in range(8):
        e = np.zeros(8)
        e[i] = 1e-6
        g[i] = (difference(metric, p + e) - difference(metric, p - e)) / 2e-6
    var = (np.sum(g**2 * p) - np.sum(g * p) ** 2) / n
    d = difference(metric, x)
    half = stats.norm.ppf(1 - delta / 2) * math.sqrt(var)
    return max(-1, d - half), min(1, d + half)


@pytest.mark.parametrize("metric", METRICS)
def test_delta_matches_a_numerical_gradient(metric):
    kernel = get("pm_delta").kernel
    for x in TABLES[:20] + 1:
        assert kernel(*x, 0.1, metric=metric) == pytest.approx(numeric_delta(metric, x.astype(float), 0.1), abs=1e-6)


def wilson(k, m, z):
    """Wilson's interval written out (Wilson 1927)."""
    p = k / m
    centre = (p + z * z / (2 * m)) / (1 + z * z / m)
    half = z / (1 + z * z / m) * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
    return centre - half, centre + half


def mover_by_hand(x, delta):
    """F1 MOVER for one table: Wilson on the Jaccard index mapped to F1, Newcombe's combination with the
    correlation of the two F1 estimates from a numerical delta-method covariance."""
    z = stats.norm.ppf(1 - delta / 2)
    (tp1, fn1, fp1, _), (tp2, fn2, fp2, _) = first_second(x)
    ends = []
    for tp, rest in ((tp1, fn1 + fp1), (tp2, fn2 + fp2)):
        lo, hi = wilson(tp, tp + rest, z)
        ends.append((2 * tp / (2 * tp + rest), 2 * lo / (1 + lo), 2 * hi / (1 + hi)))
    n = x.sum()
    p = x / n

    def f1(cells, which):
        tp, fn, fp, _ = first_second(cells)[which]
        return 2 * tp / (2 * tp + fp + fn)

    grads = []
    for which in (0, 1):
        g = np.zeros(8)
        for i in range(8):
            e = np.zeros(8)
            e[i] = 1e-6
            g[i] = (f1(p + e, which) - f1(p - e, which)) / 2e-6
        grads.append(g)
    cov = np.array([[np.sum(a * b * p) - np.sum(a * p) * np.sum(b * p) for b in grads] for a in grads])
    r = cov[0, 1] / math.sqrt(cov[0, 0] * cov[1, 1])
    (t1, l1, u1), (t2, l2, u2) = ends
    lower = t1 - t2 - math.sqrt((t1 - l1) ** 2 - 2 * r * (t1 - l1) * (u2 - t2) + (u2 - t2) ** 2)
    upper = t1 - t2 + math.sqrt((u1 - t1) ** 2 - 2 * r * (u1 - t1) * (t2 - l2) + (t2 - l2) ** 2)
    return lower, upper


def test_mover_for_f1_equals_the_combination_written_out():
    kernel = get("pm_mover").kernel
    for x in TABLES[:20] + 1:
        assert kernel(*x, 0.05, metric="f1") == pytest.approx(mover_by_hand(x.astype(float), 0.05), abs=1e-6)


def test_mover_for_balanced_accuracy_adds_the_classes_square_and_add():
    """One classifier's balanced accuracy interval: (r̂ + ŝ)/2 ∓ ½·sqrt((r̂ - l_r)² + (ŝ - l_s)²)."""
    from covstudy.methods.paired_metrics import _one_interval

    x = np.array([10, 5, 2, 3, 30, 4, 6, 2], dtype=float)
    z = stats.norm.ppf(0.975)
    (tp, fn, fp, tn), _ = first_second(x)
    (lr, ur), (ls, us) = wilson(tp, tp + fn, z), wilson(tn, tn + fp, z)
    r, s = tp / (tp + fn), tn / (tn + fp)
    expected = ((r + s) / 2, (r + s) / 2 - math.hypot(r - lr, s - ls) / 2, (r + s) / 2 + math.hypot(ur - r, us - s) / 2)
    assert _one_interval("balanced_accuracy", x, 0.05, False) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("metric, cells, prior, their_prior", [
    ("accuracy", None, 0.5, 1.0),  # summing two Dirichlet cells adds their parameters
    ("recall", slice(0, 4), 1.0, 1.0),  # the positives' cells, renormalised: Dirichlet(pos + prior)
])
def test_dirichlet_matches_the_closed_form_paired_posterior(metric, cells, prior, their_prior):
    """Where the 8-cell posterior of D reduces to the paired design's 4-cell one (quadrature, exact),
    the sampled bounds agree within a few of their stated Monte Carlo errors (mc_error)."""
    x = np.array([10, 5, 2, 3, 30, 4, 6, 2])
    table = x[:4] + x[4:] if cells is None else x[cells]
    ours = get("pm_dirichlet").kernel(*x, 0.05, metric=metric, rng=np.random.default_rng(3), prior=prior,
                                      mc_error=2e-3)
    theirs = get("paired_bayes").kernel(*table, 0.05, prior=their_prior)
    np.testing.assert_allclose(ours, theirs, atol=4 * 2e-3)


def test_superiority_probability_matches_the_closed_form_for_accuracy():
    """Accuracy: P(first > second) = 1 - I_½(b + prior', c + prior') with prior' = 2·prior (summed cells)."""
    from covstudy import superiority_probability

    x = (10, 5, 2, 3, 30, 4, 6, 2)
    p, err = paired_metric_superiority("accuracy", *x, prior=0.5, mc_error=1e-3)
    assert err <= 1e-3
    assert p == pytest.approx(superiority_probability(5 + 4, 2 + 6, prior=1.0), abs=4e-3)


def test_bootstrap_bounds_are_quantiles_of_the_exact_bootstrap_distribution():
    """At n = 6 every resample table can be enumerated: the bounds sit at the delta/2 and 1 - delta/2
    quantiles of the exact distribution of D* (up to the resampling error of 20,000 draws)."""
    x = np.array([2, 1, 0, 0, 1, 1, 1, 0])
    n = int(x.sum())
    tables = np.stack([all_tables(n)[c] for c in COUNTS], axis=1)
    weight = table_pmf(dict(zip(COUNTS, tables.T)), x / n)
    d = difference("f1", tables)
    ok = ~np.isnan(d)
    d, weight = d[ok], weight[ok] / weight[ok].sum()
    lower, upper = get("pm_bootstrap").kernel(*x, 0.2, metric="f1", rng=np.random.default_rng(1), draws=20_000)
    for bound, q in ((lower, 0.1), (upper, 0.9)):
        below, at_or_below = weight[d < bound - 1e-12].sum(), weight[d <= bound + 1e-12].sum()
        assert below - 0.01 <= q <= at_or_below + 0.01


@pytest.mark.parametrize("metric, method", [("f1", "delta"), ("precision", "mover"), ("balanced_accuracy", "mover"),
                                            ("recall", "tango"), ("specificity", "newcombe")])
def test_monte_carlo_agrees_with_exact_within_4_mcse(metric, method):
    reps = 20_000
    exact = coverage(method, design="paired_confusion", metric=f"{metric}_difference", **POINT)
    mc = coverage(method, design="paired_confusion", metric=f"{metric}_difference", **POINT, reps=reps, seed=9)
    c = exact.coverage
    assert abs(mc.coverage - c) <= 4 * math.sqrt(c * (1 - c) / reps)


def test_an_empty_class_gives_the_vacuous_interval_for_a_paired_method():
    assert paired_metric_interval("tango", "recall", 0, 0, 0, 0, 5, 1, 1, 1) == (-1.0, 1.0)
    assert paired_metric_interval("delta", "precision", 0, 0, 0, 5, 3, 0, 0, 0) == (-1.0, 1.0)  # no predicted positives


def test_exact_limit_is_stated_and_monte_carlo_goes_beyond():
    with pytest.raises(ValueError, match=rf"^n: exact paired-confusion coverage needs n <= {EXACT_LIMIT}"):
        coverage("delta", design="paired_confusion", metric="f1_difference", **{**POINT, "n": EXACT_LIMIT + 1})
    r = coverage("delta", design="paired_confusion", metric="f1_difference", **{**POINT, "n": 500}, reps=500, seed=1)
    assert 0.85 < r.coverage <= 1


@pytest.mark.parametrize("call, message", [
    (lambda: paired_metric_interval("delta", "auc", *range(8)), "metric must be one of recall"),
    (lambda: paired_metric_interval("delta", "f1", -1, 0, 0, 0, 1, 1, 1, 1), "pos_both"),
    (lambda: paired_metric_interval("wilson", "f1", *range(8)), "method: unknown"),
    (lambda: coverage("delta", design="paired_confusion", metric="f1_difference",
                      **{**POINT, "correlation": 0.99}), "correlation: with tpr_first=0.8"),
])
def test_bad_input_is_one_line(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert message in str(err.value) and "\n" not in str(err.value)

TABLE = st.lists(st.integers(0, 30), min_size=8, max_size=8).filter(lambda x: sum(x) > 0)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(x=TABLE, metric=st.sampled_from(METRICS), delta=st.sampled_from([0.01, 0.05, 0.2]))
def test_intervals_are_ordered_in_range_and_swap_to_their_negatives(x, metric, delta):
    """-1 <= lower <= upper <= 1, and exchanging the classifiers negates the interval."""
    swapped = [x[0], x[2], x[1], x[3], x[4], x[6], x[5], x[7]]
    for name in ("pm_delta", "pm_mover"):
        lower, upper = get(name).kernel(*x, delta, metric=metric)
        lo2, up2 = get(name).kernel(*swapped, delta, metric=metric)
        assert -1 <= lower <= upper <= 1
        assert (lo2, up2) == pytest.approx((-upper, -lower), abs=1e-12)
    a, b, c, d = (x[i] + x[i + 4] for i in range(4))
    lower, upper = get("paired_exact_mcnemar").kernel(a, b, c, d, delta)
    assert -1 <= lower <= upper <= 1
    assert get("paired_exact_mcnemar").kernel(a, c, b, d, delta) == pytest.approx((-upper, -lower), abs=2e-7)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(n1=st.integers(1, 25), n2=st.integers(1, 25), f1=st.floats(0, 1), f2=st.floats(0, 1))
def test_melded_is_ordered_and_swaps_to_its_negative(n1, n2, f1, f2):
    k1, k2 = round(f1 * n1), round(f2 * n2)
    lower, upper = get("diff_melded").kernel(k1, n1, k2, n2, 0.05)
    assert -1 <= lower <= upper <= 1 and lower <= k1 / n1 - k2 / n2 <= upper
    # equal to the quadrature laws' accuracy (which variable is integrated over can switch)
    assert get("diff_melded").kernel(k2, n2, k1, n1, 0.05) == pytest.approx((-upper, -lower), abs=2e-7)


def test_one_correlation_per_class():
    """correlation_pos, correlation_neg set each class's cells; equal ones are the single correlation."""
    base = {k: v for k, v in POINT.items() if k != "correlation"}
    one = DESIGN.derive(POINT)
    two = DESIGN.derive({**base, "correlation_pos": 0.3, "correlation_neg": 0.3})
    np.testing.assert_array_equal(cell_probabilities(one), cell_probabilities(two))
    p = cell_probabilities(DESIGN.derive({**base, "correlation_pos": 0.5, "correlation_neg": -0.2}))
    for cells, a1, a2, rho in ((p[:4] / p[:4].sum(), 0.8, 0.6, 0.5), (p[4:] / p[4:].sum(), 0.7, 0.8, -0.2)):
        both = cells[0]
        assert (both - a1 * a2) / math.sqrt(a1 * (1 - a1) * a2 * (1 - a2)) == pytest.approx(rho, abs=1e-12)
    with pytest.raises(ValueError, match="^correlation_neg: with tnr_first=0.7"):
        coverage("delta", design="paired_confusion", metric="f1_difference", **base, correlation_pos=0.0,
                 correlation_neg=0.99)


@pytest.mark.parametrize("second", [False, True])
def test_value_is_value_and_gradients_value_bit_for_bit(second):
    """The bootstrap's and the posterior draws' value-only path: the same numbers, undefined (NaN) where
    a denominator is zero."""
    from covstudy.methods import paired_metrics as pm

    rng = np.random.default_rng(3)
    x = rng.integers(0, 40, (2000, 8)).astype(float)
    x[::5, :4] = 0
    x[::7, 4:] = 0
    for metric in pm.METRICS:
        expected = pm.value_and_gradient(metric, x, second)[0]
        assert np.isnan(expected).any() and np.array_equal(pm.value(metric, x, second), expected, equal_nan=True)
