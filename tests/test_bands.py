"""ROC and PR bands (issue 29): true curves, empirical curves, each band against a reference, the doors."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from covstudy import band_coverage, methods, pr_band, roc_band, true_pr, true_roc
from covstudy.designs.binormal import level_probabilities, location, true_auc
from covstudy.methods import bands as B

DATA = Path(__file__).parent / "data"


# --------------------------------------------------------------------------- true curves

@pytest.mark.parametrize("auc, sd", [(0.7, 1.0), (0.8, 1.5), (0.95, 1.5), (0.9, 0.6)])
def test_true_roc_integrates_to_the_auc(auc, sd):
    area, err = integrate.quad(lambda t: float(true_roc(t, auc, sd)), 0, 1, epsabs=1e-13, epsrel=1e-13, limit=200)
    assert abs(area - auc) < 1e-9


@pytest.mark.parametrize("auc, sd", [(0.7, 1.0), (0.9, 1.5)])
def test_true_roc_is_the_design_by_numerical_integration(auc, sd):
    # TPR at the threshold c with FPR(c) = t, both by integrating the design's densities
    mu = location(auc, sd)
    for t in (0.05, 0.3, 0.8):
        c = stats.norm.isf(t)
        fpr = integrate.quad(stats.norm.pdf, c, np.inf, epsabs=1e-14)[0]
        tpr = integrate.quad(lambda x: stats.norm.pdf(x, mu, sd), c, np.inf, epsabs=1e-14)[0]
        assert abs(fpr - t) < 1e-9 and abs(float(true_roc(t, auc, sd)) - tpr) < 1e-9


def test_true_roc_with_levels_has_the_design_auc_and_passes_its_points():
    pos, neg = level_probabilities(0.8, 1.5, 5)
    x, y = np.r_[0, np.cumsum(neg[::-1])], np.r_[0, np.cumsum(pos[::-1])]
    assert np.allclose(true_roc(x, 0.8, 1.5, 5), y, atol=1e-12)
    assert abs(np.trapezoid(y, x) - true_auc(0.8, 1.5, 5)) < 1e-12  # trapezoid = P(X > Y) + ½P(X = Y)


def test_true_pr_from_the_roc_and_the_prevalence():
    r = np.array([0.1, 0.5, 0.9])
    mu = location(0.8, 1.5)
    fpr = stats.norm.sf(mu - 1.5 * special.ndtri(r))  # FPR at the threshold of recall r
    assert np.allclose(true_roc(fpr, 0.8, 1.5), r, atol=1e-12)
    assert np.allclose(true_pr(r, 0.8, 0.3, 1.5), 0.3 * r / (0.3 * r + 0.7 * fpr), atol=1e-12)


# --------------------------------------------------------------------------- the empirical curves

def _brute_roc(pos, neg, t):
    """Independent: every threshold's (FPR, TPR) in decreasing order of threshold, joined by segments."""
    thresholds = np.r_[np.inf, np.unique(np.r_[pos, neg])[::-1]]
    pts = [(np.mean(neg >= c), np.mean(pos >= c)) for c in thresholds]
    out = []
    for s in t:
        below = [i for i, (f, _) in enumerate(pts) if f <= s + 1e-12]
        i = below[-1]
        f0, p0 = pts[i]
        if abs(f0 - s) < 1e-12:
            out.append(p0)
            continue
        f1, p1 = pts[i + 1]
        out.append(p0 + (s - f0) / (f1 - f0) * (p1 - p0))
    return np.array(out)


@pytest.mark.parametrize("ties", [False, True])
def test_empirical_roc_equals_the_brute_force_polyline(ties):
    rng = np.random.default_rng(3)
    for _ in range(20):
        pos, neg = rng.normal(1, 1, 13), rng.normal(0, 1, 17)
        if ties:
            pos, neg = np.round(pos), np.round(neg)
        t = np.r_[B.FPR_GRID, np.arange(1, 17) / 17]
        t = np.unique(t[t < 1])
        assert np.allclose(B.empirical_roc(pos, neg, t), _brute_roc(pos, neg, t), atol=1e-12)


def test_bootstrap_weights_equal_resampled_scores():
    rng = np.random.default_rng(5)
    pos, neg = np.round(rng.normal(1, 1, 9), 1), np.round(rng.normal(0, 1, 11), 1)
    s = B.Sorted(pos, neg)
    ip, ineg = rng.integers(0, 9, (4, 9)), rng.integers(0, 11, (4, 11))
    wp = np.array([np.bincount(i, minlength=9) for i in ip])
    wn = np.array([np.bincount(i, minlength=11) for i in ineg])
    p, q = s.vertices(wp, wn)
    got = B.roc_at(p, q, 9, 11, B.FPR_GRID)
    want = [B.empirical_roc(pos[a], neg[b]) for a, b in zip(ip, ineg)]
    assert np.allclose(got, want, atol=1e-12)


# --------------------------------------------------------------------------- pROC ci.se on aSAH

def _asah():
    d = pd.read_csv(DATA / "asah_s100b.csv")
    return d.s100b[d.outcome == "Poor"].to_numpy(), d.s100b[d.outcome == "Good"].to_numpy()


def test_sensitivity_at_specificity_equals_proc_coords():
    # tests/data/proc_ci_se_asah.R: pROC 1.18.0 coords(roc, sp, input = "specificity")
    ref = pd.read_csv(DATA / "proc_ci_se_asah.csv")
    inner = ref[(ref.specificity > 0) & (ref.specificity < 1)]
    pos, neg = _asah()
    got = B.empirical_roc(pos, neg, np.sort(1 - inner.specificity.to_numpy()))[::-1]
    assert np.allclose(got, inner.sensitivity, atol=1e-12)


def test_bootstrap_band_agrees_with_proc_ci_se_within_bootstrap_error():
    # pROC 1.18.0 ci.se(boot.n = 2000, stratified) with set.seed(42): its bounds are one draw of a
    # random quantile; ours over 12 seeds give that quantile's spread
    ref = pd.read_csv(DATA / "proc_ci_se_asah.csv")
    inner = ref[(ref.specificity > 0) & (ref.specificity < 1)].iloc[::-1]
    pos, neg = _asah()
    fpr = 1 - inner.specificity.to_numpy()
    runs = np.array([roc_band("bootstrap", pos, neg, fpr=fpr, seed=s, draws=2000)[1:] for s in range(12)])
    mean, sd = runs.mean(axis=0), runs.std(axis=0, ddof=1)
    tol = np.maximum(4 * sd, 1 / len(pos))  # at least one positive's step
    assert np.all(np.abs(mean[0] - inner.lower.to_numpy()) <= tol[0])
    assert np.all(np.abs(mean[1] - inner.upper.to_numpy()) <= tol[1])


# --------------------------------------------------------------------------- Working–Hotelling

def test_working_hotelling_is_the_envelope_of_the_confidence_ellipse():
    # independent: the band is max/min over (a, b) on the chi²₂ ellipse of Φ(a + b z) (Ma & Hall 1993)
    rng = np.random.default_rng(7)
    pos, neg = rng.normal(1.2, 1.4, 40), rng.normal(0, 1, 60)
    a, b, cov = B.binormal_fit(pos, neg)
    x, y = pos, neg
    assert np.isclose(a, (x.mean() - y.mean()) / x.std(ddof=1)) and np.isclose(b, y.std(ddof=1) / x.std(ddof=1))
    angles = np.linspace(0, 2 * np.pi, 40_001)
    circle = np.stack([np.cos(angles), np.sin(angles)])
    ab = np.array([[a], [b]]) + np.linalg.cholesky(cov) @ circle * np.sqrt(stats.chi2.ppf(0.95, 2))
    z = special.ndtri(B.FPR_GRID)
    curves = stats.norm.cdf(ab[0][:, None] + ab[1][:, None] * z)
    lower, upper = B.roc_band_working_hotelling(pos, neg, 0.05)
    assert np.allclose(lower, curves.min(axis=0), atol=1e-6) and np.allclose(upper, curves.max(axis=0), atol=1e-6)


def test_binormal_fit_covariance_matches_simulation():
    # the delta-method covariance of (a, b) against the spread of the moment estimates over simulated test sets
    rng = np.random.default_rng(11)
    m, n, mu, sd = 200, 300, 1.0, 1.5
    fits = np.array([B.binormal_fit(rng.normal(mu, sd, m), rng.normal(0, 1, n))[:2] for _ in range(3000)])
    cov = np.mean([B.binormal_fit(rng.normal(mu, sd, m), rng.normal(0, 1, n))[2] for _ in range(200)], axis=0)
    emp = np.cov(fits.T)
    assert np.allclose([emp[0, 0], emp[1, 1]], [cov[0, 0], cov[1, 1]], rtol=0.1)
    assert abs(emp[0, 1] - cov[0, 1]) < 0.1 * np.sqrt(cov[0, 0] * cov[1, 1])


# --------------------------------------------------------------------------- other bands

def test_grouped_binormal_fit_is_the_dorfman_alf_maximum_likelihood():
    # Fisher scoring against Nelder-Mead on the same rating-data likelihood
    from scipy import optimize

    from covstudy.designs.binormal import binormal_scores
    pos, neg = binormal_scores(50, 50, 0.8, 1.5, 5, 1, 3, ranks=False)
    a, b, cov = B.binormal_fit_grouped(pos[0], neg[0])
    values, codes = np.unique(np.r_[pos[0], neg[0]], return_inverse=True)
    cp, cn = np.bincount(codes[:50], minlength=values.size), np.bincount(codes[50:], minlength=values.size)

    def nll(t):
        z = np.sort(t[2:])
        pn, pp = np.diff(np.r_[0, special.ndtr(z), 1]), np.diff(np.r_[0, special.ndtr(t[1] * z - t[0]), 1])
        return -(cn @ np.log(np.maximum(pn, 1e-300)) + cp @ np.log(np.maximum(pp, 1e-300)))

    r = optimize.minimize(nll, np.r_[1, 0.7, np.linspace(-1, 1, values.size - 1)], method="Nelder-Mead",
                          options=dict(xatol=1e-10, fatol=1e-12, maxiter=20000, maxfev=40000))
    assert abs(a - r.x[0]) < 1e-5 and abs(b - r.x[1]) < 1e-5
    assert cov[0, 0] > 0 and cov[1, 1] > 0 and abs(cov[0, 1]) < np.sqrt(cov[0, 0] * cov[1, 1])
    # each end category holds one class only: the supremum is at infinity, however long the path runs
    for iterations in (20, 50, 200):
        assert np.isnan(B.binormal_fit_grouped([1, 1, 2], [0, 0, 1], iterations=iterations)[0])


def test_working_hotelling_on_ratings_holds_the_latent_curve():
    r = band_coverage("working_hotelling", n_pos=100, n_neg=100, auc=0.7, sd_ratio=1.5, levels=5, reps=100, seed=4)
    assert np.allclose(r["truth"], true_roc(r["grid"], 0.7, 1.5))  # scored against the latent curve
    assert r["containment"] >= 0.85


def test_ks_band_uses_the_exact_kolmogorov_smirnov_quantile():
    # sqrt(1 - delta) per class: both empirical survival functions hold with probability 1 - delta
    d = B.ks_critical(0.05, 50)
    assert abs(stats.kstwo.cdf(d, 50) - np.sqrt(0.95)) < 1e-9


@pytest.mark.parametrize("m, n, ties", [(15, 25, False), (30, 12, True)])
def test_fixed_width_band_is_macskassy_provost_by_bisection(m, n, ties):
    # d = the 1 - delta quantile of each bootstrap curve's smallest sliding distance, found here by
    # bisection on the band's own edges; the band slides along slope -sqrt(n/m)
    rng = np.random.default_rng(12)
    pos, neg = rng.normal(1, 1.3, m), rng.normal(0, 1, n)
    if ties:
        pos, neg = np.round(pos), np.round(neg)
    grid = B.FPR_GRID
    _, curves = B.bootstrap_curves(pos, neg, grid, np.random.default_rng(3), 80)
    p, q, _, _ = B._vertex_tpr(pos, neg)
    x, y = q / n, p / m
    cos, sin = 1 / np.sqrt(1 + n / m), np.sqrt(n / m) / np.sqrt(1 + n / m)

    def edges(d):
        return B.polyline(x, y, grid - d * cos, low=True) - d * sin, B.polyline(x, y, grid + d * cos) + d * sin

    def smallest(curve):
        lo, hi = 0.0, 2.0
        for _ in range(40):
            mid = (lo + hi) / 2
            low, up = edges(mid)
            lo, hi = (lo, mid) if np.all((low <= curve + 1e-12) & (curve <= up + 1e-12)) else (mid, hi)
        return hi

    fast = np.max(B.slide_distance(x, y, grid, curves, cos, sin), axis=1)
    assert np.allclose(fast, [smallest(c) for c in curves], atol=1e-9)
    lower, upper = B.roc_band_fixed_width(pos, neg, 0.05, rng=np.random.default_rng(3), grid=grid, draws=80)
    low, up = edges(np.quantile(fast, 0.95))
    assert np.allclose(lower, np.clip(low, 0, 1), atol=1e-12) and np.allclose(upper, np.clip(up, 0, 1), atol=1e-12)
    inside = np.mean([np.all((lower <= c + 1e-9) & (c <= upper + 1e-9)) for c in curves])
    assert inside >= 0.95


def test_pointwise_binomial_band_is_the_interval_at_the_empirical_tpr():
    from covstudy import interval
    rng = np.random.default_rng(2)
    pos, neg = rng.normal(1, 1, 30), rng.normal(0, 1, 40)
    _, lower, upper = roc_band("clopper_pearson", pos, neg, fpr=[0.25])
    k = round(30 * B.empirical_roc(pos, neg, [0.25])[0])
    assert (lower[0], upper[0]) == pytest.approx(tuple(interval("clopper_pearson", k, 30)), abs=1e-12)


def test_credible_hull_at_a_vertex_holds_its_beta_intervals():
    pos, neg = np.array([3.0, 2.0, 1.5, 0.2]), np.array([2.5, 1.0, 0.1, -1.0, -2.0])
    _, lower, upper = roc_band("credible", pos, neg, fpr=[0.2])
    # the vertex (FP = 1, TP = 2): the band spans at least its TPR's Jeffreys interval
    lo, hi = stats.beta.ppf([0.025, 0.975], 2.5, 2.5)
    assert lower[0] <= lo + 1e-12 and upper[0] >= hi - 1e-12


def test_precision_at_recall_by_brute_force():
    rng = np.random.default_rng(4)
    pos, neg = np.round(rng.normal(1, 1, 20), 1), np.round(rng.normal(0, 1, 30), 1)
    prec, tp, predicted = B.empirical_pr(pos, neg, B.RECALL_GRID)
    for r, p in zip(B.RECALL_GRID, prec):
        c = max(c for c in np.unique(np.r_[pos, neg]) if np.mean(pos >= c) >= r - 1e-12)
        assert p == pytest.approx(np.sum(pos >= c) / (np.sum(pos >= c) + np.sum(neg >= c)))


@pytest.mark.parametrize("curve, kind", [("roc", "roc_band"), ("pr", "pr_band")])
def test_every_band_is_ordered_and_inside_the_unit_interval(curve, kind):
    rng = np.random.default_rng(8)
    door = roc_band if curve == "roc" else pr_band
    for ties in (False, True):
        pos, neg = rng.normal(1, 1.3, 15), rng.normal(0, 1, 25)
        if ties:
            pos, neg = np.round(pos), np.round(neg)
        for m in methods(kind).values():
            params = {"draws": 100} if "draws" in m.defaults else {}
            g, lower, upper = door(m.short, pos, neg, **params)
            assert np.all((0 <= lower) & (lower <= upper + 1e-12) & (upper <= 1)), m.qualified
            _, l2, u2 = door(m.short, pos, neg, delta=0.01, **params)  # nested as delta shrinks
            if m.short not in ("bootstrap", "fixed_width", "sup_t"):
                assert np.all((l2 <= lower + 1e-12) & (u2 >= upper - 1e-12)), m.qualified


def test_bands_depend_on_the_scores_only_through_their_order():
    rng = np.random.default_rng(9)
    pos, neg = rng.normal(1, 1, 20), rng.normal(0, 1, 20)
    for name in ("wilson", "bootstrap", "ks", "sup_t", "credible"):
        a = roc_band(name, pos, neg, draws=100) if name in ("bootstrap", "sup_t") else roc_band(name, pos, neg)
        b = roc_band(name, np.exp(pos), np.exp(neg), draws=100) if name in ("bootstrap", "sup_t") else \
            roc_band(name, np.exp(pos), np.exp(neg))
        assert np.allclose(a[1], b[1]) and np.allclose(a[2], b[2]), name


# --------------------------------------------------------------------------- containment by Monte Carlo

def test_working_hotelling_containment_agrees_with_an_independent_simulation():
    # covstudy's band_coverage (the design's stream) against a plain simulation with another generator
    reps = 400
    ours = band_coverage("working_hotelling", n_pos=60, n_neg=60, auc=0.85, sd_ratio=1.5, reps=reps, seed=3)
    rng = np.random.default_rng(12345)
    mu = special.ndtri(0.85) * np.sqrt(1 + 1.5**2)
    truth = stats.norm.cdf(mu / 1.5 + special.ndtri(B.FPR_GRID) / 1.5)
    hits = 0
    for _ in range(reps):
        pos, neg = rng.normal(mu, 1.5, 60), rng.normal(0, 1, 60)
        a, b, cov = B.binormal_fit(pos, neg)
        z = special.ndtri(B.FPR_GRID)
        se = np.sqrt(cov[0, 0] + z**2 * cov[1, 1] + 2 * z * cov[0, 1])
        k = np.sqrt(-2 * np.log(0.05))  # chi²₂ quantile in closed form
        probit = special.ndtri(truth)
        hits += np.all(np.abs(probit - (a + b * z)) <= k * se)
    theirs = hits / reps
    mcse = np.sqrt(2 * 0.05 * 0.95 / reps)
    assert abs(ours["containment"] - theirs) < 4 * mcse


def test_ks_band_holds_the_whole_curve_at_least_at_nominal():
    r = band_coverage("ks", n_pos=30, n_neg=40, auc=0.8, reps=300, seed=5)
    assert r["containment"] >= 0.95 - 3 * r["containment_mcse"]


def test_pointwise_binomial_bands_do_not_hold_the_whole_curve():
    r = band_coverage("wilson", n_pos=50, n_neg=50, auc=0.8, reps=200, seed=5)
    assert r["containment"] < 0.6 and np.all(r["pointwise"] <= 1)


# --------------------------------------------------------------------------- the doors

@pytest.mark.parametrize("call, message", [
    (lambda: roc_band("nonsense", [1, 2], [0, 1]), "method: unknown ROC band method 'nonsense'"),
    (lambda: roc_band("wilson", [1], [0, 1]), "scores_pos must be a 1-d array"),
    (lambda: roc_band("wilson", [1, 2], [0, 1], delta=2), "delta"),
    (lambda: roc_band("wilson", [1, 2], [0, 1], fpr=[0.5, 1.0]), "fpr must be a 1-d increasing array"),
    (lambda: pr_band("wilson", [1, 2], [0, 1], recall=[0.0]), "recall must be"),
    (lambda: roc_band("bootstrap", [1, 2], [0, 1], draws=-1), "roc_band.bootstrap: parameter draws"),
    (lambda: band_coverage("ks", 10, 10, 0.8, curve="det"), "curve must be one of"),
])
def test_bad_input_is_a_one_line_error(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_band_methods_are_registered_in_their_kinds():
    assert sorted(m.short for m in methods("roc_band").values()) == sorted(
        ["wilson", "clopper_pearson", "jeffreys", "bootstrap", "credible", "working_hotelling", "ks",
         "fixed_width", "sup_t"])
    assert sorted(m.short for m in methods("pr_band").values()) == ["bootstrap", "clopper_pearson", "credible", "wilson"]
    assert methods()["roc_band.ks"].guaranteed


def test_band_coverage_is_reproducible():
    a = band_coverage("sup_t", n_pos=20, n_neg=20, auc=0.8, reps=20, seed=1, draws=50)
    b = band_coverage("sup_t", n_pos=20, n_neg=20, auc=0.8, reps=20, seed=1, draws=50)
    assert a["containment"] == b["containment"] and np.array_equal(a["pointwise"], b["pointwise"])


def test_ks_band_is_campbells_steps_for_untied_scores():
    # upper = highest vertex with FPR <= t + d_n, plus d_m; lower = lowest vertex with FPR >= t - d_n, minus d_m
    rng = np.random.default_rng(6)
    pos, neg = rng.normal(1, 1, 25), rng.normal(0, 1, 35)
    dn, dm = B.ks_critical(0.05, 35), B.ks_critical(0.05, 25)
    pts = [(np.mean(neg >= c), np.mean(pos >= c)) for c in np.r_[np.inf, np.sort(np.r_[pos, neg])[::-1]]]
    up = [max(y for x, y in pts if x <= t + dn + 1e-12) + dm for t in B.FPR_GRID]
    low = [(min(y for x, y in pts if x >= t - dn - 1e-12) if t - dn > 0 else 0.0) - dm for t in B.FPR_GRID]
    _, lower, upper = roc_band("ks", pos, neg)
    assert np.allclose(upper, np.clip(up, 0, 1), atol=1e-12) and np.allclose(lower, np.clip(low, 0, 1), atol=1e-12)


def test_a_band_study_points_numbers_do_not_depend_on_the_other_points(tmp_path):
    from covstudy.bands.study import BandStudy, band_study_tables

    cfg = {"name": "t", "bands": ["roc"], "band_methods": {"roc": ["ks", {"name": "sup_t", "draws": 30}]},
           "grid": {"n_pos": [12], "auc": [0.7, 0.9], "delta": [0.05]}, "reps": 6, "seed": 3, "out": str(tmp_path)}
    both, _ = band_study_tables(BandStudy.from_config(cfg))
    cfg["grid"]["auc"] = [0.9]
    alone, _ = band_study_tables(BandStudy.from_config(cfg))
    assert both[both.auc == 0.9].reset_index(drop=True).equals(alone)


@pytest.mark.parametrize("change, message", [
    ({"bands": ["det"]}, "bands: must list curves among roc, pr"),
    ({"band_methods": {"roc": ["nonsense"]}}, "band_methods.roc: method: unknown ROC band method"),
    ({"grid": {"n_pos": [1], "auc": [0.8]}}, "grid.n_pos: must be a whole number in [2, 100000], got 1"),
    ({"grid": {"n_pos": ["ten"], "auc": [0.8]}}, "grid.n_pos: must be a whole number"),
    ({"grid": {"n_pos": [10], "auc": [0.8], "levels": [1]}}, "grid.levels: must be 0 or"),
    ({"grid": {"n_pos": [10], "auc": [0.8], "delta": [0.7]}}, "grid.delta:"),
    ({"reps": "many"}, "reps: must be a whole number >= 1, got 'many'"),
    ({"seed": -1}, "seed: must be a whole number >= 0"),
    ({"n_jobs": 1.5}, "n_jobs: must be a whole number"),
    ({"plot": "yes"}, "plot: must be true or false"),
    ({"example": {"n_pos": 10}}, "example: must be a mapping with n_pos, n_neg, auc"),
    ({"example": {"n_pos": 10, "n_neg": 10, "auc": 2}}, "example.auc: must be in (0, 1)"),
])
def test_a_bad_band_study_is_a_one_line_config_error(change, message):
    from covstudy import ConfigError
    from covstudy.bands.study import BandStudy

    cfg = {"name": "t", "bands": ["roc"], "band_methods": {"roc": ["ks"]}, "grid": {"n_pos": [10], "auc": [0.8]},
           **change}
    with pytest.raises(ConfigError) as err:
        BandStudy.from_config(cfg)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_pr_credible_hull_by_brute_force():
    rng = np.random.default_rng(10)
    pos, neg = np.round(rng.normal(1, 1, 15), 1), np.round(rng.normal(0, 1, 20), 1)
    _, lower, upper = pr_band("credible", pos, neg)
    boxes = []
    for c in np.unique(np.r_[pos, neg]):
        tp, fp = np.sum(pos >= c), np.sum(neg >= c)
        rec = stats.beta.ppf([0.025, 0.975], tp + 0.5, 15 - tp + 0.5)
        prec = stats.beta.ppf([0.025, 0.975], tp + 0.5, fp + 0.5)
        boxes.append((rec[0], 1.0 if tp == 15 else rec[1], prec[0], 1.0 if fp == 0 else prec[1]))  # BCD's edges
    for r, lo, hi in zip(B.RECALL_GRID, lower, upper):
        held = [b for b in boxes if b[0] <= r <= b[1]]
        assert held and lo == pytest.approx(min(b[2] for b in held)) and hi == pytest.approx(max(b[3] for b in held))


_ratings = st.lists(st.integers(0, 6), min_size=2, max_size=12)


@settings(max_examples=60, deadline=None)
@given(_ratings, _ratings)
def test_property_empirical_roc_and_bands_on_any_rating_data(pos, neg):
    pos, neg = np.array(pos, float), np.array(neg, float)
    t = np.unique(np.r_[B.FPR_GRID, np.arange(1, len(neg)) / len(neg)])
    assert np.allclose(B.empirical_roc(pos, neg, t), _brute_roc(pos, neg, t), atol=1e-12)
    centre = B.empirical_roc(pos, neg)
    for name in ("wilson", "credible", "ks", "working_hotelling"):
        _, lower, upper = roc_band(name, pos, neg)
        assert np.all((0 <= lower) & (lower <= upper + 1e-12) & (upper <= 1)), name
        if name == "ks":  # holds its own empirical curve
            assert np.all((lower <= centre + 1e-12) & (centre <= upper + 1e-12))


def test_the_committed_band_study_regenerates_at_one_point():
    # results/roc_bands/bands.parquet: rerun its cheapest point from the committed config
    import yaml

    from covstudy.bands.study import BandStudy, band_study_tables

    root = Path(__file__).resolve().parents[1]
    cfg = yaml.safe_load((root / "conf" / "study" / "roc_bands.yaml").read_text())
    cfg["grid"].update(n_pos=[20], auc=[0.7], sd_ratio=[1.0], levels=[0])
    table, _ = band_study_tables(BandStudy.from_config(cfg))
    committed = pd.read_parquet(root / "results" / "roc_bands" / "bands.parquet")
    committed = committed[(committed.n_pos == 20) & (committed.auc == 0.7) & (committed.sd_ratio == 1.0)
                          & (committed.levels == 0)].reset_index(drop=True)
    from tidy_tables import assert_same_numbers

    assert_same_numbers(table, committed)  # the reproducibility contract


def test_a_band_study_run_fails_in_one_line_and_ends_naming_its_report(tmp_path, capsys):
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from covstudy import cli
    from covstudy.bands.study import KIND

    with initialize_config_dir(config_dir=cli._conf_dir(), version_base="1.3"):
        cfg = compose(config_name="config", overrides=["study=roc_bands"])
    raw = OmegaConf.to_container(cfg, resolve=True)
    (tmp_path / "x").mkdir()  # as Hydra makes out before the run: an empty one is removed on failure
    with pytest.raises(SystemExit) as stop:
        cli._run_kind(KIND, {**raw, "reps": "many", "out": str(tmp_path / "x")})
    assert stop.value.code == 2 and not (tmp_path / "x").exists()
    assert capsys.readouterr().err == "covstudy: error: reps: must be a whole number >= 1, got 'many'\n"
    tiny = {**raw, "reps": 2, "bands": ["roc"], "band_methods": {"roc": ["ks"]}, "out": str(tmp_path / "y"),
            "grid": {"n_pos": [10], "auc": [0.8]}, "plot": False}
    cli._run_kind(KIND, tiny)
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"figures: rerun with plot=true (out={tmp_path / 'y'})"
