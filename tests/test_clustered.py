"""The clustered design and the intervals for clustered examples (designs/clustered.py, methods/clustered.py).

References: ratesci's clusterpci (R) on the Liang (1992) data and on a grid of synthetic
cluster data (tests/reference/ratesci_clusterpci.json, provenance inside); statsmodels' GEE
with an independence working correlation for ratio_wald; brute-force enumeration for the
convolution; the binomial design for icc = 0.
"""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from covstudy import clustered_interval, coverage, interval
from covstudy.designs import DESIGNS, binomial_pmf
from covstudy.designs.clustered import (cluster_counts, cluster_histograms, cluster_pmf, distinct_histograms,
                                       sorted_counts, total_pmf)
from covstudy.methods import clustered as cm
from covstudy.methods import methods
from covstudy.seeds import stream

REFERENCE = json.loads((Path(__file__).parent / "reference" / "ratesci_clusterpci.json").read_text())
CLUSTERED = [m.name for m in methods("clustered").values()]
POINT = {"design": "clustered", "clusters": 8, "cluster_size": 5, "p": 0.85, "icc": 0.1}

# Liang (1992) family-aggregation data as analysed by Saha et al. (2016) and Short et al. (2020):
# 100 clusters (families), 203 subjects, 60 events; the counts as in ratesci's clusterpci example.
LIANG_X = [0] * 36 + [1] * 12 + [0] * 15 + [1] * 7 + [2] + [0] * 5 + [1] * 7 + [2] * 3 + [3] * 2 \
    + [0] * 3 + [1] * 3 + [2] + [0, 2, 3, 4, 6]
LIANG_N = [1] * 48 + [2] * 23 + [3] * 17 + [4] * 7 + [6] * 5


def floats(pair):
    return tuple(float(v) for v in pair)


def test_liang_data_published_values():
    assert (len(LIANG_X), sum(LIANG_X), sum(LIANG_N)) == (100, 60, 203)
    # Short et al. (2020): ICC 0.1855 (Saha et al. 2016 print 0.1871; ratesci agrees with Short).
    assert cm.anova_icc(LIANG_X, LIANG_N) == pytest.approx(0.1855, abs=5e-5)
    # ratesci 1.0.0 tests/testthat/test3.R: wilsonci(60, 203, xihat = 1.349133) -> (0.228, 0.373),
    # scaspci(60, 203, xihat = 1.349133) -> (0.228, 0.372), rounded to 3 dp.
    assert cm.variance_inflation(LIANG_X, LIANG_N) == pytest.approx(1.349133, abs=5e-7)
    assert np.round(clustered_interval("wilson_vif", LIANG_X, LIANG_N), 3).tolist() == [0.228, 0.373]
    assert np.round(clustered_interval("scas_vif", LIANG_X, LIANG_N), 3).tolist() == [0.228, 0.372]
    # ratesci 1.0.0 clusterpci(x, n, skew = FALSE / TRUE)$estimates, printed with digits = 15.
    assert clustered_interval("wilson_vif", LIANG_X, LIANG_N) == pytest.approx((0.228481391673912, 0.372830226707299),
                                                                                 abs=1e-14)
    assert clustered_interval("scas_vif", LIANG_X, LIANG_N) == pytest.approx((0.22762782881472, 0.372369435000213),
                                                                               abs=1e-14)


def test_wilson_vif_and_scas_vif_match_ratesci_over_a_grid():
    checked = truncated = undefined = 0
    for row in REFERENCE["sets"]:
        y, s, delta = np.array(row["successes"]), np.array(row["sizes"]), row["delta"]
        wilson = clustered_interval("wilson_vif", y, s, delta)
        scas = clustered_interval("scas_vif", y, s, delta)
        if row["icc"] is None:  # p-hat = 0 or 1: ratesci gives NaN; here icc = 0, the plain Wilson interval
            assert cm.anova_icc(y, s) == 0 and wilson == pytest.approx(floats(interval("wilson", y.sum(), s.sum(), delta)))
            undefined += 1
            continue
        assert cm.anova_icc(y, s) == pytest.approx(row["icc"], abs=1e-12)
        untruncated = 1 + (np.sum(s * s) / s.sum() - 1) * cm.anova_icc(y, s)
        assert untruncated == pytest.approx(row["xihat"], abs=1e-12)
        if row["icc"] < 0:  # truncated at 0 here (ratesci lets the inflation drop below 1)
            assert wilson == pytest.approx(floats(interval("wilson", y.sum(), s.sum(), delta)), abs=1e-14)
            truncated += 1
            continue
        assert wilson == pytest.approx(tuple(row["wilson"]), abs=1e-12)
        assert scas == pytest.approx(tuple(row["scas"]), abs=1e-12)
        checked += 1
    assert checked >= 100 and truncated >= 20 and undefined >= 20


def test_ratio_wald_matches_statsmodels_gee_with_independence_working_correlation():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    z = -special.ndtri(0.025)
    for m in (3, 6, 15):
        for equal in (True, False):
            s = np.full(m, 4) if equal else rng.integers(1, 9, m)
            y = rng.binomial(s, rng.beta(2, 1, m))
            if y.sum() in (0, s.sum()):
                continue
            rows = np.concatenate([np.r_[np.ones(a), np.zeros(b - a)] for a, b in zip(y, s)])
            fit = sm.GEE(rows, np.ones((len(rows), 1)), groups=np.repeat(np.arange(m), s),
                         family=sm.families.Binomial(), cov_struct=sm.cov_struct.Independence()).fit()
            p = special.expit(fit.params[0])
            se = p * (1 - p) * np.sqrt(fit.cov_robust[0, 0]) * np.sqrt(m / (m - 1))  # delta method, small-sample factor
            expected = np.clip([p - z * se, p + z * se], 0, 1)
            assert clustered_interval("ratio_wald", y, s) == pytest.approx(tuple(expected), abs=1e-9)


def _bootstrap_loop(y, s, delta, rng, draws):
    """One test set at a time, one resample at a time: the reference for the vectorised kernel."""
    lower, upper = [], []
    for yi, si in zip(y, s):
        m = len(yi)
        estimates = []
        for _ in range(draws):
            pick = (rng.random(m) * m).astype(int)
            estimates.append(yi[pick].sum() / si[pick].sum())
        lower.append(np.quantile(estimates, delta / 2))
        upper.append(np.quantile(estimates, 1 - delta / 2))
    return np.array(lower), np.array(upper)


def test_cluster_bootstrap_is_reproducible_and_matches_a_loop(monkeypatch):
    rng = np.random.default_rng(5)
    s = rng.integers(1, 7, size=(6, 5))
    y = rng.binomial(s, 0.7)
    a = cm.cluster_bootstrap(y, s, 0.1, rng=np.random.default_rng(9), draws=300)
    b = _bootstrap_loop(y, s, 0.1, np.random.default_rng(9), 300)
    assert np.allclose(a, b, rtol=0, atol=1e-15)
    monkeypatch.setattr(cm, "_BLOCK", 7 * 300 * 5 // 3)  # other blocks of test sets: the same numbers
    assert np.array_equal(cm.cluster_bootstrap(y, s, 0.1, rng=np.random.default_rng(9), draws=300), a)
    one = clustered_interval("cluster_bootstrap", y, s, 0.1, seed=4, draws=300)
    assert np.array_equal(one, clustered_interval("cluster_bootstrap", y, s, 0.1, seed=4, draws=300))
    assert not np.array_equal(one, clustered_interval("cluster_bootstrap", y, s, 0.1, seed=5, draws=300))
    c1 = coverage("cluster_bootstrap", **POINT, reps=300, seed=2, draws=200)
    assert c1.coverage == coverage("cluster_bootstrap", **POINT, reps=300, seed=2, draws=200).coverage


@pytest.mark.parametrize("name", CLUSTERED)
def test_clustered_methods_contain_the_estimate_and_are_vectorised(name):
    rng = np.random.default_rng(11)
    s = rng.integers(1, 9, size=(40, 6))
    y = rng.binomial(s, rng.beta(3, 1, size=(40, 6)))
    y[0], y[1] = 0, s[1]  # all wrong, all right
    seed = {"seed": 1} if name == "cluster_bootstrap" else {}
    lower, upper = clustered_interval(name, y, s, 0.05, **seed)
    p_hat = y.sum(1) / s.sum(1)
    assert lower.shape == (40,) and np.all((0 <= lower) & (lower <= p_hat + 1e-12) & (p_hat <= upper + 1e-12)
                                           & (upper <= 1))
    if name != "cluster_bootstrap":  # its draws depend on the test sets before it
        loop = np.array([clustered_interval(name, yi, si, 0.05) for yi, si in zip(y, s)])
        assert np.array_equal(loop.T, np.array([lower, upper]))
        wider = clustered_interval(name, y, s, 0.01)
        assert np.all(wider[0] <= lower + 1e-12) and np.all(upper <= wider[1] + 1e-12)


def test_oracles_are_binomial_intervals_on_the_effective_sample():
    k, n = np.arange(41), 40
    assert np.array_equal(np.array(cm.wilson_deff(k, n, 1.0, 0.05)), np.array(interval("wilson", k, n)))
    assert np.allclose(cm.clopper_pearson_deff(k, n, 1.0, 0.05), interval("clopper_pearson", k, n), atol=1e-15)
    # deff = 2 halves the sample: the interval of (k/2, n/2) where k is even
    assert np.allclose(np.array(cm.clopper_pearson_deff(k[::2], n, 2.0, 0.05)),
                       np.array(interval("clopper_pearson", k[::2] // 2, n // 2)), atol=1e-14)
    # ... and between those of its integer neighbours where it is not (monotone in the counts)
    odd = np.array(cm.clopper_pearson_deff(k[1:-1:2], n, 2.0, 0.05))
    assert np.all(odd[0] >= interval("clopper_pearson", k[1:-1:2] // 2, n // 2)[0])
    y, s = [3, 4, 5, 2], [5, 5, 5, 5]
    assert clustered_interval("wilson_deff", y, s, icc=0.25) == \
        pytest.approx(floats(cm.wilson(7.0, 10.0, 0.05)))  # deff = 1 + (5 - 1)·0.25 = 2


def test_exact_total_is_the_convolution_of_the_clusters():
    for m, s, p, icc in [(3, 2, 0.6, 0.3), (4, 3, 0.9, 0.05), (5, 1, 0.2, 0.5)]:
        single = cluster_pmf(s, p, icc)
        brute = np.zeros(m * s + 1)
        for ys in itertools.product(range(s + 1), repeat=m):
            brute[sum(ys)] += np.prod(single[list(ys)])
        assert np.allclose(total_pmf(m, s, p, icc), brute, rtol=1e-13, atol=1e-16)
    for m, s, p, icc in [(20, 20, 0.9, 0.2), (37, 5, 0.95, 0.01), (100, 20, 0.8, 0.5), (2, 1, 0.5, 0.9)]:
        pmf = total_pmf(m, s, p, icc)
        k = np.arange(m * s + 1)
        assert pmf.sum() == pytest.approx(1, abs=1e-12) and np.all(pmf >= 0)
        assert pmf @ k == pytest.approx(m * s * p, rel=1e-10)
        variance = pmf @ (k - m * s * p) ** 2
        assert variance == pytest.approx(m * s * p * (1 - p) * (1 + (s - 1) * icc), rel=1e-9)


def test_icc_zero_is_the_binomial_design():
    for m, s, p in [(10, 5, 0.8), (4, 20, 0.95), (30, 1, 0.5)]:
        assert np.max(np.abs(total_pmf(m, s, p, 0.0) - binomial_pmf(m * s, [p])[0])) < 1e-15
        for name in ("wilson", "clopper_pearson", "wald"):
            a = coverage(name, design="clustered", clusters=m, cluster_size=s, p=p, icc=0.0)
            b = coverage(name, n=m * s, p=p)
            assert abs(a.coverage - b.coverage) < 1e-14 and abs(a.mean_width - b.mean_width) < 1e-14
        lower = coverage("wilson", design="clustered", clusters=m, cluster_size=s, p=p, icc=0.0, side="lower")
        assert abs(lower.coverage - coverage("wilson", n=m * s, p=p, side="lower").coverage) < 1e-14
        assert coverage("wilson_deff", design="clustered", clusters=m, cluster_size=s, p=p, icc=0.0).coverage \
            == pytest.approx(coverage("wilson", n=m * s, p=p).coverage, abs=1e-14)
    # icc -> 0 is continuous: the beta-binomial approaches the binomial
    assert np.allclose(cluster_pmf(10, 0.8, 1e-9), stats.binom.pmf(np.arange(11), 10, 0.8), atol=1e-7)


def test_simulated_cluster_counts_have_the_beta_binomial_moments():
    m, s, p, icc, reps = 50, 10, 0.85, 0.3, 4000
    y = cluster_counts(m, s, p, icc, reps, stream(1, test="moments")).ravel()
    mean, var = s * p, s * p * (1 - p) * (1 + (s - 1) * icc)
    assert abs(y.mean() - mean) < 4 * np.sqrt(var / y.size)
    assert y.var() == pytest.approx(var, rel=0.03)
    assert np.array_equal(cluster_counts(5, 4, 1.0, 0.3, 10, stream(1)), np.full((10, 5), 4))
    assert np.all(cluster_counts(5, 4, 0.0, 0.5, 10, stream(1)) == 0)


@pytest.mark.parametrize("s, p, icc", [(10, 0.85, 0.3), (1, 0.3, 0.2), (40, 0.97, 0.01), (6, 0.5, 0.9),
                                      (300, 0.7, 0.1)])
def test_simulated_cluster_counts_follow_the_beta_binomial_pmf(s, p, icc):
    """The counts (a histogram a test set; with s + 1 >= 200 clusters, the inverse CDF at one uniform a
    cluster) against cluster_pmf: Pearson's chi-square, cells of expected count >= 5 (the rest pooled),
    at a fixed seed."""
    y = cluster_counts(200, s, p, icc, 500, stream(3, test="pmf")).ravel()
    expected = cluster_pmf(s, p, icc) * y.size
    observed = np.bincount(y, minlength=s + 1).astype(float)
    keep = expected >= 5
    e = np.append(expected[keep], expected[~keep].sum())
    o = np.append(observed[keep], observed[~keep].sum())
    e, o = (e, o) if e[-1] > 0 else (e[:-1], o[:-1])
    assert stats.chi2.sf(np.sum((o - e) ** 2 / e), len(e) - 1) > 1e-4


def test_monte_carlo_agrees_with_exact_on_the_totals_and_corrected_intervals_cover():
    reps = 4000
    for name in ("wilson", "clopper_pearson_deff"):
        exact = coverage(name, **POINT)
        mc = coverage(name, **POINT, reps=reps, seed=3)
        assert abs(mc.coverage - exact.coverage) <= 4 * np.sqrt(exact.coverage * (1 - exact.coverage) / reps)
    naive = coverage("wilson", **{**POINT, "icc": 0.3})
    oracle = coverage("wilson_deff", **{**POINT, "icc": 0.3})
    assert naive.coverage < 0.85 and oracle.coverage > 0.93  # clustering breaks the i.i.d. interval


@pytest.mark.parametrize("kwargs, message", [
    ({"icc": 1.0}, "icc must be in [0, 1), got 1.0"),
    ({"icc": -0.1}, "icc must be in [0, 1)"),
    ({"clusters": 1}, "clusters must be >= 2, got 1"),
    ({"cluster_size": 0}, "cluster_size must be >= 1, got 0"),
    ({"clusters": 100_000, "cluster_size": 1000}, ("clusters, cluster_size: exact clustered coverage needs at most "
                                                 "150,000 totals k carrying all but 1e-15 of the probability, got ")),
    ({"method": "wilson_vif"}, "reps: wilson_vif reads per-cluster counts, which no design enumerates, so it has"),
    ({"method": "wilson_vif", "reps": 100, "side": "lower"}, "side: method 'clustered.wilson_vif' has two-sided intervals only"),
    ({"clusters": 200_000, "reps": 10}, "clusters: Monte Carlo keeps every cluster's count; needs clusters <= 100,000"),
])
def test_invalid_points_are_refused_in_one_line(kwargs, message):
    kwargs = {**POINT, **kwargs}
    with pytest.raises(ValueError) as err:
        coverage(kwargs.pop("method", "wilson"), **kwargs)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("call, message", [
    (lambda: clustered_interval("wilson_vif", [3], [5]), "need at least 2 clusters"),
    (lambda: clustered_interval("wilson_vif", [3, 6], [5, 5]), "successes must be <= sizes"),
    (lambda: clustered_interval("wilson_vif", [3, 2], [5, 0]), "sizes must be >= 1"),
    (lambda: clustered_interval("wilson_deff", [3, 2], [5, 5]), "icc: wilson_deff is an oracle"),
    (lambda: clustered_interval("wilson_vif", [3, 2], [5, 5], icc=0.1), "icc: only the oracle methods"),
    (lambda: clustered_interval("wilson_deff", [3, 2], [5, 5], icc=1), "icc must be in [0, 1)"),
    (lambda: clustered_interval("ba_wald", [3, 2], [5, 5]), "method: unknown method 'ba_wald'"),
    (lambda: clustered_interval("cluster_bootstrap", [3, 2], [5, 5], draws=0), "parameter draws must be"),
])
def test_clustered_interval_refuses_bad_input_in_one_line(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert message in str(err.value) and "\n" not in str(err.value)


def test_naive_proportion_methods_apply_to_the_totals():
    y, s = np.array([[3, 4, 5], [0, 1, 5]]), np.array([[5, 5, 5], [5, 5, 6]])
    assert np.array_equal(np.array(clustered_interval("clopper_pearson", y, s)),
                          np.array(interval("clopper_pearson", y.sum(1), s.sum(1))))
    assert DESIGNS["clustered"].data == "clustered"


@st.composite
def cluster_data(draw):
    sizes = draw(st.lists(st.integers(1, 12), min_size=2, max_size=8))
    successes = [draw(st.integers(0, s)) for s in sizes]
    return np.array(successes), np.array(sizes)


@settings(max_examples=60, deadline=None)
@given(cluster_data(), st.sampled_from([0.01, 0.05, 0.2]))
def test_clustered_intervals_are_symmetric_permutation_invariant_and_contain_the_estimate(data, delta):
    y, s = data
    order = np.random.default_rng(int(y.sum() * 31 + s.sum())).permutation(len(y))
    p_hat = y.sum() / s.sum()
    for name in ("wilson_vif", "scas_vif", "ratio_wald"):
        lower, upper = clustered_interval(name, y, s, delta)
        assert 0 <= lower <= p_hat + 1e-12 and p_hat - 1e-12 <= upper <= 1
        assert np.allclose(clustered_interval(name, y[order], s[order], delta), (lower, upper), rtol=0, atol=1e-12)
        flipped = clustered_interval(name, s - y, s, delta)  # failures counted as successes: 1 - p
        assert np.allclose(flipped, (1 - upper, 1 - lower), rtol=0, atol=1e-12)


def test_with_clusters_of_one_the_cluster_methods_see_the_same_test_sets_as_the_binomial_ones():
    # s = 1: no within-cluster pairs, so the variance inflation is 1 and wilson_vif is Wilson on the
    # same simulated test sets (common random numbers): equal Monte Carlo coverage, number for number.
    point = {**POINT, "cluster_size": 1, "icc": 0.3}
    vif = coverage("wilson_vif", **point, reps=3000, seed=8)
    wilson = coverage("wilson", **point, reps=3000, seed=8)
    # (summed per test set against per distinct outcome: equal up to rounding)
    assert vif.coverage == pytest.approx(wilson.coverage, abs=1e-12)
    assert vif.mean_width == pytest.approx(wilson.mean_width, abs=1e-12)
    assert abs(wilson.coverage - coverage("wilson", **point).coverage) <= 4 * wilson.mcse


def test_a_certain_outcome_has_zero_monte_carlo_error():
    # p = 0: every test set is all wrong; coverage summed from 300 weights of 1/300 is 1 up to rounding
    r = coverage("wilson_vif", **{**POINT, "p": 0.0}, reps=300, seed=1)
    assert r.coverage == pytest.approx(1, abs=1e-12) and r.mcse == 0


@pytest.mark.parametrize("successes, sizes, got", [
    ([3], [5, 5, 5, 5], "got 1 and 4"),
    (3, [5, 5], "got a scalar and 2"),
    ([3, 4, 5], [[5, 5], [6, 6]], "got 3 and 2"),
    ([[3, 4], [1, 2]], [5, 5, 5], "got 2 and 3"),
])
@pytest.mark.parametrize("method", ["wilson_vif", "scas_vif", "ratio_wald", "cluster_bootstrap", "wilson", "wilson_deff"])
def test_successes_and_sizes_must_list_the_same_clusters(method, successes, sizes, got):
    icc = 0.1 if method == "wilson_deff" else None
    with pytest.raises(ValueError) as err:
        clustered_interval(method, successes, sizes, icc=icc)
    message = str(err.value)
    assert message.startswith("successes, sizes: need the same number of clusters") and got in message
    assert "\n" not in message
    if methods("clustered").get(method):  # the kernels refuse it too, not only the public entry point
        with pytest.raises(ValueError, match="same number of clusters"):
            methods("clustered")[method].bounds((np.array(successes), np.array(sizes)), 0.05,
                                                rng=np.random.default_rng(0))


def test_leading_axes_still_broadcast():
    # one set of cluster sizes for several test sets
    many = clustered_interval("wilson_vif", [[3, 4, 5], [1, 2, 0]], [5, 5, 6])
    one = clustered_interval("wilson_vif", [1, 2, 0], [5, 5, 6])
    assert many[0][1] == one[0] and many[1][1] == one[1]


def test_cluster_bootstrap_equal_sizes_shortcut_is_bit_identical():
    # equal cluster sizes: the resample's total size is m·size, not gathered; the same bits as gathering it
    from covstudy.methods.clustered import cluster_bootstrap, row_quantiles
    y = np.random.default_rng(1).integers(0, 13, (7, 9)).astype(float)
    s = np.full((7, 9), 12.0)
    lower, upper = cluster_bootstrap(y, s, 0.05, np.random.default_rng(5), draws=300)
    pick = (np.random.default_rng(5).random((7, 300, 9)) * 9).astype(np.int64)
    taken = np.arange(7)[:, None, None]
    estimate = y[taken, pick].sum(axis=-1) / s[taken, pick].sum(axis=-1)
    assert np.array_equal(lower, row_quantiles(estimate, np.full(7, 0.025)))
    assert np.array_equal(upper, row_quantiles(estimate, np.full(7, 0.975)))


@pytest.mark.parametrize("reps, m, s", [(500, 3, 1), (2000, 7, 5), (3000, 10, 1), (400, 300, 10), (100, 40, 30),
                                        (50, 3, 1), (1, 7, 3)])
def test_distinct_histograms_are_numpys_unique_sorted_rows(reps, m, s):
    """Test sets deduplicated by their histograms: np.unique's rows of sorted counts, order and counts."""
    y = np.random.default_rng(reps + m).integers(0, s + 1, (reps, m))
    rows, counts = np.unique(np.sort(y, axis=1), axis=0, return_counts=True)
    hist = np.stack([np.bincount(row, minlength=s + 1) for row in y])
    got_hist, got_counts = distinct_histograms(hist)
    assert np.array_equal(sorted_counts(got_hist), rows) and np.array_equal(got_counts, counts)


def test_cluster_counts_are_the_histograms_draws():
    for icc in (0.0, 0.2):
        hist = cluster_histograms(50, 4, 0.7, icc, 30, stream(4))
        y = cluster_counts(50, 4, 0.7, icc, 30, stream(4))
        assert np.array_equal(y, sorted_counts(hist)) and (hist.sum(axis=1) == 50).all()
