"""AUC intervals (methods/auc.py) and the binormal design (designs/binormal.py).

References: pROC's DeLong AUC, variance and intervals on 46 committed score sets with and
without ties (tests/data/auc_proc_reference.json, provenance inside: pROC 1.18.0, R 4.2.2);
Hanley & McNeil (1982) and Newcombe (2006) computed independently here (pairwise AUC,
the paper's formula; Newcombe's bounds as roots of the quartic polynomial); the bootstrap
against a loop over resamples drawing the same indices.
"""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from covstudy import DESIGNS, auc_interval, auc_methods, coverage
from covstudy.designs.binormal import (
    binormal_scores,
    cut_points,
    level_probabilities,
    location,
    true_auc,
)
from covstudy.methods.auc import (
    auc_and_delong_variance,
    bootstrap,
    delong,
    hanley_mcneil,
    logit_delong,
    newcombe,
)

PROC = json.loads((Path(__file__).parent / "data" / "auc_proc_reference.json").read_text())
SETS = PROC["sets"]
DETERMINISTIC = ("delong", "logit_delong", "hanley_mcneil", "newcombe")


def pairwise_auc(pos, neg):
    """(1/mn)·Σ_i Σ_j [1(x_i > y_j) + ½·1(x_i = y_j)], by brute force."""
    pos, neg = np.asarray(pos, float)[:, None], np.asarray(neg, float)[None, :]
    return float(np.mean((pos > neg) + 0.5 * (pos == neg)))


def random_sets(count=60, seed=3):
    """Score sets of assorted sizes, continuous and with ties, from weak to perfect separation."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        m, n = rng.integers(2, 40, size=2)
        shift = rng.uniform(-1, 4)
        pos, neg = rng.normal(shift, 1, m), rng.normal(0, 1, n)
        if k % 2:
            pos, neg = np.round(pos), np.round(neg)
        out.append((pos, neg))
    return out


# --------------------------------------------------------------------------- references

@pytest.mark.parametrize("level", [95, 90])
def test_delong_matches_proc_on_every_reference_set(level):
    worst = 0.0
    for s in SETS:
        auc, var = auc_and_delong_variance(s["pos"], s["neg"])
        lower, upper = auc_interval("delong", s["pos"], s["neg"], delta=1 - level / 100)
        got = np.array([auc, var, lower, upper])
        want = np.array([float(s[k]) for k in ("auc", "var", f"lower{level}", f"upper{level}")])
        worst = max(worst, float(np.max(np.abs(got - want))))
        assert got == pytest.approx(want, abs=1e-14), s["name"]
    assert worst < 1e-14
    assert sum("ties" in s["name"] for s in SETS) >= 20 and any(float(s["var"]) == 0 for s in SETS)


def test_logit_delong_is_the_delong_variance_on_the_logit_scale():
    z = stats.norm.ppf(0.975)
    for s in SETS:
        auc, var = float(s["auc"]), float(s["var"])
        lower, upper = auc_interval("logit_delong", s["pos"], s["neg"])
        if 0 < auc < 1:
            half = z * np.sqrt(var) / (auc * (1 - auc))
            want = special.expit(special.logit(auc) + np.array([-half, half]))
        else:
            want = [auc, auc]
        assert [lower, upper] == pytest.approx(want, abs=1e-13), s["name"]


def test_hanley_mcneil_matches_the_papers_formula():
    z = stats.norm.ppf(0.975)
    for pos, neg in random_sets() + [(s["pos"], s["neg"]) for s in SETS]:
        a, na, nn = pairwise_auc(pos, neg), len(pos), len(neg)
        q1, q2 = a / (2 - a), 2 * a * a / (1 + a)  # Hanley & McNeil (1982), eq. 2; A = abnormal = positives
        se = np.sqrt((a * (1 - a) + (na - 1) * (q1 - a * a) + (nn - 1) * (q2 - a * a)) / (na * nn))
        want = np.clip([a - z * se, a + z * se], 0, 1)
        assert auc_interval("hanley_mcneil", pos, neg) == pytest.approx(want, abs=1e-13)


def newcombe_by_polynomial(a, m, n, delta=0.05):
    """Newcombe (2006) method 5 as the real roots of a quartic: multiplying (a - θ)² = z²V(θ) by
    (2 - θ)(1 + θ)·mn gives mn(a - θ)²(2 - θ)(1 + θ) - z²θ(1 - θ)[(2 - θ)(1 + θ) + N*((1 - θ)(1 + θ) + θ(2 - θ))] = 0,
    N* = (m + n)/2 - 1; the bounds are the smallest root in [0, a] and the largest in [a, 1]."""
    z2, ns = stats.norm.ppf(1 - delta / 2) ** 2, (m + n) / 2 - 1
    P = np.polynomial.Polynomial
    t = P([0, 1])
    poly = m * n * (a - t) ** 2 * (2 - t) * (1 + t) - z2 * t * (1 - t) * ((2 - t) * (1 + t) + ns * ((1 - t) * (1 + t) + t * (2 - t)))
    roots = poly.roots()
    real = np.sort(roots[np.abs(roots.imag) < 1e-7].real)
    low = real[(real >= -1e-9) & (real <= a + 1e-9)]
    high = real[(real >= a - 1e-9) & (real <= 1 + 1e-9)]
    return float(np.clip(low.min(), 0, 1)), float(np.clip(high.max(), 0, 1))


def test_newcombe_method_5_matches_the_quartic_roots():
    worst = 0.0
    for pos, neg in random_sets() + [(s["pos"], s["neg"]) for s in SETS]:
        for delta in (0.05, 0.2):
            want = newcombe_by_polynomial(pairwise_auc(pos, neg), len(pos), len(neg), delta)
            got = auc_interval("newcombe", pos, neg, delta=delta)
            worst = max(worst, np.max(np.abs(np.subtract(got, want))))
    assert worst < 1e-9


def test_newcombe_over_a_grid_of_estimates_and_sizes():
    """The kernel on every Â = k/(mn) (via scores that realise it) against the quartic roots."""
    for m, n in [(2, 3), (5, 5), (10, 20), (50, 40)]:
        for k in np.linspace(0, m * n, 9).round().astype(int):
            neg = np.arange(n, dtype=float)
            wins = np.full(m, k // m)
            wins[: k % m] += 1
            pos = wins - 0.5  # positive i beats exactly wins[i] negatives
            assert pairwise_auc(pos, neg) == pytest.approx(k / (m * n))
            got = auc_interval("newcombe", pos, neg)
            assert got == pytest.approx(newcombe_by_polynomial(k / (m * n), m, n), abs=1e-9)


def bootstrap_by_loop(pos, neg, delta, rng, draws):
    """The same resamples (indices into each class sorted ascending, negatives first), AUC by pairwise loops."""
    pos_sorted, neg_sorted = np.sort(pos), np.sort(neg)
    j = rng.integers(0, len(neg), size=(draws, len(neg)))
    i = rng.integers(0, len(pos), size=(draws, len(pos)))
    aucs = [pairwise_auc(pos_sorted[i[b]], neg_sorted[j[b]]) for b in range(draws)]
    return np.quantile(aucs, [delta / 2, 1 - delta / 2])


def test_bootstrap_equals_a_loop_over_resamples_and_is_reproducible():
    sets = random_sets(12, seed=9)
    for draws in (1, 50, 201):
        for pos, neg in sets:
            got = bootstrap(pos, neg, 0.1, rng=np.random.default_rng(4), draws=draws)
            want = bootstrap_by_loop(pos, neg, 0.1, np.random.default_rng(4), draws)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    # several test sets at once draw them one after the other from the same generator
    m = 7
    rows = [(p[:m], n[:m]) for p, n in sets if len(p) >= m and len(n) >= m]
    pos, neg = np.array([p for p, _ in rows]), np.array([n for _, n in rows])
    rng, ref = np.random.default_rng(8), np.random.default_rng(8)
    lower, upper = bootstrap(pos, neg, 0.05, rng=rng, draws=30)
    for t in range(len(rows)):
        assert [lower[t], upper[t]] == pytest.approx(bootstrap_by_loop(pos[t], neg[t], 0.05, ref, 30), abs=1e-15)
    a = auc_interval("bootstrap", sets[0][0], sets[0][1], seed=5, draws=300)
    assert a == auc_interval("bootstrap", sets[0][0], sets[0][1], seed=5, draws=300)
    assert a != auc_interval("bootstrap", sets[0][0], sets[0][1], seed=6, draws=300)


# --------------------------------------------------------------------------- invariants

def test_placements_and_auc_match_pairwise_counts():
    for pos, neg in random_sets():
        auc, var = auc_and_delong_variance(pos, neg)
        assert auc == pytest.approx(pairwise_auc(pos, neg), abs=1e-14)
        v10 = np.array([pairwise_auc([x], neg) for x in pos])
        v01 = np.array([pairwise_auc(pos, [y]) for y in neg])
        assert var == pytest.approx(np.var(v10, ddof=1) / len(pos) + np.var(v01, ddof=1) / len(neg), abs=1e-14)


@pytest.mark.parametrize("name", list(auc_methods()))
def test_every_auc_method_gives_ordered_bounds_in_the_unit_interval(name):
    for pos, neg in random_sets(30):
        lower, upper = auc_interval(name, pos, neg, seed=1, **({"draws": 100} if name == "bootstrap" else {}))
        assert 0 <= lower <= upper <= 1
        if name != "bootstrap":
            assert lower <= pairwise_auc(pos, neg) + 1e-12 <= upper + 2e-12


@pytest.mark.parametrize("kernel", [delong, logit_delong, hanley_mcneil, newcombe])
def test_vectorised_over_test_sets_equals_one_at_a_time_and_ranks_equal_scores(kernel):
    rng = np.random.default_rng(2)
    pos, neg = np.round(rng.normal(1, 1, (40, 9)), 1), np.round(rng.normal(0, 1, (40, 13)), 1)
    lower, upper = kernel(pos, neg, 0.05)
    for t in range(40):
        one = kernel(pos[t], neg[t], 0.05)
        assert (lower[t], upper[t]) == (one[0], one[1])
    ranks = stats.rankdata(np.concatenate([pos, neg], axis=1), method="dense", axis=1).astype(np.uint16)
    by_rank = kernel(ranks[:, :9], ranks[:, 9:], 0.05)  # counted per value: the same sums in another order
    np.testing.assert_allclose(by_rank[0], lower, rtol=0, atol=1e-14)
    np.testing.assert_allclose(by_rank[1], upper, rtol=0, atol=1e-14)


@pytest.mark.parametrize("kernel", [delong, logit_delong, newcombe])
def test_swapping_the_classes_mirrors_the_interval(kernel):
    for pos, neg in random_sets(20):
        lower, upper = kernel(pos, neg, 0.05)
        lower_swapped, upper_swapped = kernel(neg, pos, 0.05)
        assert (lower_swapped, upper_swapped) == pytest.approx((1 - upper, 1 - lower), abs=1e-12)


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_intervals_are_nested_as_delta_shrinks(name):
    for pos, neg in random_sets(20):
        bounds = [auc_interval(name, pos, neg, delta=d) for d in (0.3, 0.1, 0.05, 0.01)]
        for (l1, u1), (l2, u2) in itertools.pairwise(bounds):
            assert l2 <= l1 + 1e-12 and u1 <= u2 + 1e-12


def test_bad_input_is_one_line_naming_the_argument():
    for args, match in [(("delong", [1.0], [0.0, 1.0]), "scores_pos must be a 1-d array of at least 2"),
                        (("delong", [1.0, 2.0], [[0.0, 1.0]]), "scores_neg must be a 1-d array"),
                        (("delong", [1.0, np.nan], [0.0, 1.0]), "scores_pos .* non-finite"),
                        (("wilson", [1.0, 2.0], [0.0, 1.0]), "unknown AUC method 'wilson'"),
                        (("delong", [1.0, 2.0], [0.0, 1.0], 1.5), "delta must be in")]:
        with pytest.raises(ValueError, match=match) as err:
            auc_interval(*args)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="bootstrap: parameter draws must be a whole number"):
        auc_interval("bootstrap", [1.0, 2.0], [0.0, 1.0], draws=0)


# --------------------------------------------------------------------------- the binormal design

@pytest.mark.parametrize("auc, sd_ratio", [(0.6, 1.0), (0.9, 0.5), (0.99, 2.0), (0.3, 1.3)])
def test_location_gives_the_requested_auc_and_cut_points_split_the_mixture_evenly(auc, sd_ratio):
    mu = location(auc, sd_ratio)
    assert stats.norm.cdf(mu / np.sqrt(1 + sd_ratio**2)) == pytest.approx(auc, abs=1e-15)
    cuts = cut_points(auc, sd_ratio, 5)
    mixture = 0.5 * stats.norm.cdf(cuts) + 0.5 * stats.norm.cdf(cuts, mu, sd_ratio)
    assert mixture == pytest.approx([0.2, 0.4, 0.6, 0.8], abs=1e-13)
    pos, neg = level_probabilities(auc, sd_ratio, 5)
    assert pos.sum() == pytest.approx(1, abs=1e-15) and neg.sum() == pytest.approx(1, abs=1e-15)
    # P(X > Y) + ½P(X = Y) by a double sum over the level pairs, written out
    want = sum(pos[a] * neg[b] * (1.0 if a > b else 0.5 if a == b else 0.0) for a in range(5) for b in range(5))
    assert true_auc(auc, sd_ratio, 5) == pytest.approx(want, abs=1e-15)
    assert true_auc(auc, sd_ratio, 0) == auc


@pytest.mark.parametrize("levels", [0, 4])
def test_mean_simulated_auc_agrees_with_the_exact_truth_within_4_se(levels):
    """The Mann–Whitney Â is unbiased for P(X > Y) + ½P(X = Y): the simulation's mean Â against the exact
    truth. Scores are kept as the smallest unsigned integers holding them (19 ranks or 4 levels: 1 byte)."""
    reps = 20_000
    pos, neg = binormal_scores(8, 11, 0.8, 1.4, levels, reps, seed=3)
    auc, _ = auc_and_delong_variance(pos, neg)
    se = auc.std(ddof=1) / np.sqrt(reps)
    assert abs(auc.mean() - true_auc(0.8, 1.4, levels)) < 4 * se
    assert pos.dtype == np.uint8 and pos.shape == (reps, 8) and neg.shape == (reps, 11)
    if levels:
        assert pos.min() >= 1 and max(pos.max(), neg.max()) <= levels
    else:  # continuous: every test set's dense ranks are 1..19 (no ties)
        pooled = np.sort(np.concatenate([pos, neg], axis=1), axis=1)
        assert np.array_equal(pooled, np.broadcast_to(np.arange(1, 20), pooled.shape))


def test_binormal_coverage_through_the_public_api():
    r = coverage("delong", design="binormal", n_pos=30, n_neg=40, auc=0.9, reps=400, seed=1)
    assert (r.sd_ratio, r.levels, r.truth, r.engine, r.reps) == (1.0, 0, 0.9, "mc", 400)
    assert 0.8 < r.coverage <= 1 and r.n_valid == 400
    again = coverage("delong", design="binormal", n_pos=30, n_neg=40, auc=[0.7, 0.9], reps=400, seed=1)
    assert again.coverage[1] == r.coverage  # the point's stream does not depend on the other points
    tied = coverage("newcombe", design="binormal", n_pos=30, n_neg=40, auc=0.9, levels=5, reps=400, seed=1)
    assert tied.truth == pytest.approx(true_auc(0.9, 1.0, 5)) and tied.truth < 0.9
    with pytest.raises(ValueError, match="^reps: delong takes a test set's scores, which cannot be enumerated"):
        coverage("delong", design="binormal", n_pos=30, n_neg=40, auc=0.9)
    with pytest.raises(ValueError, match=r"^levels: must be 0 .* or in \[2, 1,000\]"):
        coverage("delong", design="binormal", n_pos=30, n_neg=40, auc=0.9, levels=1, reps=10)
    with pytest.raises(ValueError, match="auc must be in \\(0, 1\\)"):
        coverage("delong", design="binormal", n_pos=30, n_neg=40, auc=1.0, reps=10)
    with pytest.raises(ValueError, match="unknown AUC method 'wilson'"):
        coverage("wilson", design="binormal", n_pos=30, n_neg=40, auc=0.9, reps=10)


def test_optional_axes_and_the_size_parametrisations():
    base = {"auc": 0.8, "reps": 300, "seed": 4}
    full = coverage("delong", design="binormal", n_pos=10, n_neg=30, sd_ratio=1.0, levels=0, **base)
    assert coverage("delong", design="binormal", n_pos=10, n_neg=30, **base).coverage == full.coverage
    assert coverage("delong", design="binormal", n_pos=10, n_neg=30, sd_ratio=1.0, **base).coverage == full.coverage
    by_n = coverage("delong", design="binormal", n=40, prevalence=0.25, levels=0, **base)
    assert (by_n.n_pos, by_n.n_neg, by_n.coverage) == (10, 30, full.coverage)  # same sizes: the same test sets
    with pytest.raises(ValueError, match=r"^design binormal needs the axes n_pos, n_neg, auc or n, prevalence, auc "
                                         r"\(optional: sd_ratio, levels\); got n_pos, auc"):
        coverage("delong", design="binormal", n_pos=10, **base)
    with pytest.raises(ValueError, match=r"^n, prevalence: the binormal design needs n_pos, n_neg >= 2"):
        coverage("delong", design="binormal", n=40, prevalence=0.01, **base)


def test_study_configs_take_the_optional_axes_or_leave_them_out():
    from covstudy.study.config import ConfigError, Study

    def config(**grid):
        return {"name": "t", "methods": ["delong"], "engine": "mc", "reps": 10,
                "grid": {"design": "binormal", "auc": [0.8], "delta": [0.05], **grid}}

    s = Study.from_config(config(n_pos=[10], n_neg=[20], levels=[0, 5]))
    assert set(s.axes) == {"n_pos", "n_neg", "auc", "levels", "delta"}
    assert [pt["levels"] for pt in DESIGNS["binormal"].points(s.axes)] == [0, 5]
    assert "sd_ratio" not in Study.from_config(config(n=[40], prevalence=[0.5])).axes
    with pytest.raises(ConfigError, match="^grid.levels: must be 0"):
        Study.from_config(config(n_pos=[10], n_neg=[20], levels=[1]))
    with pytest.raises(ConfigError, match="^grid.n_neg: missing"):
        Study.from_config(config(n_pos=[10], sd_ratio=[2.0]))


scores = st.lists(st.integers(-3, 3).map(float) | st.floats(-5, 5, allow_nan=False), min_size=2, max_size=12)


@settings(max_examples=60, deadline=None)
@given(pos=scores, neg=scores, delta=st.floats(0.01, 0.5))
def test_property_every_method_brackets_the_estimate_in_the_unit_interval(pos, neg, delta):
    a = pairwise_auc(pos, neg)
    assert auc_and_delong_variance(pos, neg)[0] == pytest.approx(a, abs=1e-14)
    for name in DETERMINISTIC:
        lower, upper = auc_interval(name, pos, neg, delta=delta)
        assert 0 <= lower <= a + 1e-12 and a - 1e-12 <= upper <= 1, name
    lower, upper = auc_interval("bootstrap", pos, neg, delta=delta, seed=0, draws=50)
    assert 0 <= lower <= upper <= 1


def exact_auc_variance(m, n, auc, sd_ratio, levels):
    """Var(Â) of the Mann–Whitney U-statistic: [E ψ² - θ² + (m - 1)(E g(Y)² - θ²) + (n - 1)(E h(X)² - θ²)]/(mn),
    g(y) = P(X > y) + ½P(X = y), h(x) = P(Y < x) + ½P(Y = x) (X positive, Y negative), E ψ² = P(X > Y) +
    ¼P(X = Y) (= θ without ties), by quadrature (continuous) or sums over the levels."""
    theta = true_auc(auc, sd_ratio, levels)
    e_psi2 = theta
    if levels:
        pos, neg = level_probabilities(auc, sd_ratio, levels)
        e_psi2 = theta - 0.25 * np.sum(pos * neg)  # θ = P(X > Y) + ½P(X = Y)
        g = (1 - np.cumsum(pos)) + 0.5 * pos  # at each negative's level
        h = (np.cumsum(neg) - neg) + 0.5 * neg  # at each positive's level
        eg2, eh2 = np.sum(neg * g**2), np.sum(pos * h**2)
    else:
        from scipy import integrate

        mu = location(auc, sd_ratio)
        eg2 = integrate.quad(lambda y: stats.norm.pdf(y) * stats.norm.sf(y, mu, sd_ratio) ** 2, -12, 12 + mu)[0]
        eh2 = integrate.quad(lambda x: stats.norm.pdf(x, mu, sd_ratio) * stats.norm.cdf(x) ** 2,
                             mu - 12 * sd_ratio, mu + 12 * sd_ratio)[0]
    return (e_psi2 - theta**2 + (m - 1) * (eg2 - theta**2) + (n - 1) * (eh2 - theta**2)) / (m * n)


@pytest.mark.parametrize("levels", [0, 4])
def test_simulated_auc_variance_agrees_with_the_exact_u_statistic_variance(levels):
    """The spread of Â over simulated test sets (not only its mean) matches the model: the sample variance
    of 20,000 Â is within 5 standard errors (sd of a sample variance ≈ var·sqrt(2/reps), 1%) of the exact
    one. DeLong's estimate is known to be biased upwards in small samples: here by 3-10%."""
    reps = 20_000
    pos, neg = binormal_scores(8, 11, 0.8, 1.4, levels, reps, seed=3)
    auc, delong_var = auc_and_delong_variance(pos, neg)
    exact = exact_auc_variance(8, 11, 0.8, 1.4, levels)
    assert abs(auc.var(ddof=1) / exact - 1) < 5 * np.sqrt(2 / reps)
    assert 1.0 < delong_var.mean() / exact < 1.12


def test_delong_matches_proc_on_its_own_asah_example():
    """pROC's documented example, roc(aSAH$outcome, aSAH$s100b) with ties in s100b: AUC 0.7314 and
    DeLong 95% interval (0.6301, 0.8326) (tests/data/proc_asah_reference.json, pROC 1.18.0, R 4.2.2)."""
    ref = json.loads((Path(__file__).parent / "data" / "proc_asah_reference.json").read_text())
    outcome, s100b = np.array(ref["outcome"]), np.array(ref["s100b"], dtype=float)
    pos, neg = s100b[outcome == "Poor"], s100b[outcome == "Good"]  # pROC's levels: Good controls, Poor cases
    for level, delta in (("95", 0.05), ("90", 0.10)):
        lower, upper = auc_interval("delong", pos, neg, delta=delta)
        assert lower == pytest.approx(float(ref[f"lower{level}"]), abs=1e-12)
        assert upper == pytest.approx(float(ref[f"upper{level}"]), abs=1e-12)
    mann_whitney = np.mean((pos[:, None] > neg) + 0.5 * (pos[:, None] == neg))  # ties count one half
    assert mann_whitney == pytest.approx(float(ref["auc"]), abs=1e-15)


@pytest.mark.parametrize("m, n, top, dtype", [(30, 50, 10, np.uint8), (300, 700, 1000, np.uint16), (5, 3, 8, np.int64)])
def test_placements_of_integer_scores_are_counted_to_the_same_bits(m, n, top, dtype):
    """Integer scores (the designs' ranks and levels, ties included) take the counting path: the placements equal
    the mid-rank construction (pooled mid-rank less own mid-rank) bit for bit."""
    from scipy import stats

    from covstudy.methods.auc import delong_placements

    rng = np.random.default_rng(m)
    p, q = rng.integers(1, top + 1, (40, m)).astype(dtype), rng.integers(1, top + 1, (40, n)).astype(dtype)
    v10, v01 = delong_placements(p, q)
    pooled = stats.rankdata(np.concatenate([p, q], axis=-1).astype(float), axis=-1)
    assert np.array_equal(v10, (pooled[:, :m] - stats.rankdata(p.astype(float), axis=-1)) / n)
    assert np.array_equal(v01, 1 - (pooled[:, m:] - stats.rankdata(q.astype(float), axis=-1)) / m)
