"""The calibration design and methods (issue 46): the bins' true frequencies against closed forms and
an independent Gauss–Legendre rule, the (k, m) law against a brute-force multinomial enumeration,
Monte Carlo within 4 MCSE of exact, and the methods against their formulas and scikit-learn."""

import functools
import itertools
import re
import math

import numpy as np
import pytest
from scipy import special, stats

from covstudy import coverage
from covstudy.designs import calibration as C


@functools.lru_cache
def _rule(nodes):
    """The Gauss–Legendre rule of ``nodes`` nodes (numpy's eigenvalue solve: ~0.5 CPU-s at 400, once)."""
    return np.polynomial.legendre.leggauss(nodes)


def _legendre(g, lo, hi, nodes=400):
    x, w = _rule(nodes)
    s = (hi - lo) / 2 * x + (hi + lo) / 2
    return float(np.sum(w * g(s)) * (hi - lo) / 2)


@pytest.mark.parametrize("binning", C.BINNINGS)
@pytest.mark.parametrize("a, b, slope, intercept", [(2, 2, 1, 0), (2, 5, 0.5, 0.3), (0.7, 1.3, 2.0, -0.5)])
def test_bin_moments_against_closed_forms_and_legendre(binning, a, b, slope, intercept):
    w, f, m = C.bin_moments(6, binning, C.ScoreLaw("beta", float(a), float(b)), float(slope), float(intercept))
    e = C.edges(6, binning, C.ScoreLaw("beta", a, b))
    assert abs(w.sum() - 1) < 1e-12
    if binning == "equal_mass":
        assert np.allclose(w, 1 / 6, atol=1e-12)
    # E[s; bin] = a/(a+b)·(I_hi(a+1, b) - I_lo(a+1, b)) (the Beta's first moment, Johnson, Kotz & Balakrishnan)
    mean = a / (a + b) * np.diff(special.betainc(a + 1, b, e)) / w
    assert np.allclose(m, mean, rtol=1e-9, atol=1e-12)
    pdf = stats.beta(a, b).pdf
    for j in range(6):
        ref = _legendre(lambda s: C.curve(s, slope, intercept) * pdf(s), e[j], e[j + 1]) / w[j]
        assert abs(f[j] - ref) < 1e-6 * max(1, a < 1 and 100)
    if slope == 1 and intercept == 0:
        assert np.allclose(f, m, atol=1e-12) and C.true_ece(C.ScoreLaw("beta", a, b), 1.0, 0.0) < 1e-12


def test_ece_truths_ordered_and_against_a_riemann_sum():
    for a, b, slope, intercept in [(2, 2, 0.5, 0.0), (2, 5, 1.7, 0.4), (1, 1, 0.8, -0.3)]:
        s = (np.arange(200_000) + 0.5) / 200_000
        ref = np.mean(np.abs(C.curve(s, slope, intercept) - s) * stats.beta.pdf(s, a, b))
        ece = C.true_ece(C.ScoreLaw("beta", a, b), slope, intercept)
        assert abs(ece - ref) < 1e-6
        for bins in (1, 5, 20):
            assert C.true_ece_binned(bins, "equal_width", C.ScoreLaw("beta", a, b), slope, intercept) <= ece + 1e-12  # Jensen
        assert abs(C.true_ece_binned(200, "equal_mass", C.ScoreLaw("beta", a, b), slope, intercept) - ece) < 5e-3


def test_bin_outcomes_equal_a_brute_force_multinomial():
    """(k, m) of bin 2 of 3 from every assignment of n = 5 examples to the 6 cells bin × label."""
    n, (w, f, _) = 5, C.bin_moments(3, "equal_width", C.ScoreLaw("beta", 2.0, 3.0), 0.6, 0.2)
    cells = np.ravel(np.column_stack([w * f, w * (1 - f)]))
    law = {}
    for combo in itertools.product(range(6), repeat=n):
        p = math.prod(cells[c] for c in combo)
        k = sum(c == 2 for c in combo)
        m = k + sum(c == 3 for c in combo)
        law[(k, m)] = law.get((k, m), 0.0) + p
    k, m, p = C.bin_outcomes(n, w[1], f[1])
    ours = dict(zip(zip(k.tolist(), m.tolist()), p))
    assert set(ours) == set(law) and all(abs(ours[x] - law[x]) < 1e-14 for x in law)


@pytest.mark.parametrize("point", [dict(n=60, bins=10, bin=1, slope=0.5, intercept=0.2),
                                   dict(n=30, bins=4, bin=3, binning="equal_mass", score_a=2.0, score_b=5.0, slope=2.0)])
def test_monte_carlo_within_four_mcse_of_exact(point):
    for method in ("clopper_pearson", "wilson"):
        exact = coverage(method, design="calibration", **point)
        mc = coverage(method, design="calibration", reps=6000, seed=3, **point)
        assert abs(mc.coverage - exact.coverage) <= 4 * max(mc.mcse, 1e-3), (method, mc, exact)


def test_bad_bin_refused_in_one_line():
    with pytest.raises(ValueError, match="bin: the bin must be one of 1..bins = 5"):
        coverage("wilson", design="calibration", n=10, bins=5, bin=6)


# --------------------------------------------------------------------------- the methods

from covstudy.methods import calibration as M  # noqa: E402
from covstudy.methods import methods  # noqa: E402


@pytest.fixture(scope="module")
def shared():
    """Three test sets of 150 examples from an over-confident classifier (slope 0.5), scores rounded to
    two decimals so that some sit on bin edges."""
    rng = np.random.default_rng(46)
    s, y = C.draw_test_sets(150, 3, C.ScoreLaw("beta", 2.0, 3.0), 0.5, 0.2, rng)
    return np.round(s, 2), y


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_bins_equal_scikit_learn_calibration_curve(shared, strategy):
    """scikit-learn's calibration_curve: prob_true = k/m and prob_pred = S/m over the non-empty bins, same edges."""
    from sklearn.calibration import calibration_curve
    for s, y in zip(*shared):
        e = np.linspace(0, 1, 9) if strategy == "uniform" else np.percentile(s, np.linspace(0, 100, 9))
        prob_true, prob_pred = calibration_curve(y, s, n_bins=8, strategy=strategy)
        m, k, S = (x[0] for x in M.bin_stats(s, y, e))
        assert np.allclose(prob_true, k[m > 0] / m[m > 0], atol=1e-12)
        assert np.allclose(prob_pred, S[m > 0] / m[m > 0], atol=1e-12)


def test_hosmer_lemeshow_spiegelhalter_and_ece_against_their_formulas(shared):
    e = np.linspace(0, 1, 11)
    for s, y in zip(*shared):
        H, groups, ece, n = 0.0, 0, 0.0, len(s)
        for j in range(10):
            inside = (s > e[j]) & (s <= e[j + 1]) if j else (s <= e[1])
            O, E, ng = y[inside].sum(), s[inside].sum(), inside.sum()
            if ng:
                ece += ng / n * abs(O / ng - E / ng)
                if E * (1 - E / ng) > 0:
                    H, groups = H + (O - E) ** 2 / (E * (1 - E / ng)), groups + 1
        h, p = M.hosmer_lemeshow(s, y, e)
        assert abs(h[0] - H) < 1e-9 and abs(p[0] - stats.chi2.sf(H, groups)) < 1e-12
        num = sum((yi - si) * (1 - 2 * si) for si, yi in zip(s, y))
        den = math.sqrt(sum((1 - 2 * si) ** 2 * si * (1 - si) for si in s))
        z, pz = M.spiegelhalter_z(s, y)
        assert abs(z[0] - num / den) < 1e-9 and abs(pz[0] - 2 * stats.norm.sf(abs(num / den))) < 1e-12
        assert abs(M.plugin_ece(*M.bin_stats(s, y, e))[0] - ece) < 1e-12


def test_debiased_ece_is_kumar_liang_ma_normal_resampling_in_closed_form(shared):
    """2·plug-in minus the mean plug-in over bin frequencies redrawn from N(ȳ, ȳ(1-ȳ)/m) (their Def. 5.2
    with normal resampling), by 200,000 draws: within 5 standard errors."""
    rng = np.random.default_rng(7)
    e = np.linspace(0, 1, 6)
    for s, y in zip(*shared):
        m, k, S = (x[0].astype(float) for x in M.bin_stats(s, y, e))
        keep = m > 0
        m, k, S = m[keep], k[keep], S[keep]
        ybar, sbar = k / m, S / m
        draws = rng.normal(ybar, np.sqrt(ybar * (1 - ybar) / m), size=(200_000, m.size))
        resampled = (m / m.sum() * np.abs(draws - sbar)).sum(axis=1)
        ref = 2 * np.sum(m / m.sum() * np.abs(ybar - sbar)) - resampled.mean()
        assert abs(M.debiased_ece(m, k, S) - ref) < 5 * resampled.std() / math.sqrt(200_000) + 1e-12
    mu, sigma = np.array([-0.3, 0.0, 0.05, 0.2]), np.array([0.1, 0.2, 0.0, 0.05])
    ref = [stats.foldnorm(abs(a) / b, scale=b).mean() if b else abs(a) for a, b in zip(mu, sigma)]
    assert np.allclose(M.folded_normal_mean(mu, sigma), ref, atol=1e-12)


def test_bin_bootstrap_is_the_resampling_quantiles_and_collapses_at_0_and_m():
    rng = np.random.default_rng(3)
    for k, m in [(3, 10), (7, 25), (1, 4)]:
        boot = rng.binomial(m, k / m, size=400_000) / m
        lo, hi = M.bin_bootstrap(k, m, 0.05)
        assert lo == np.quantile(boot, 0.025, method="inverted_cdf") and hi == np.quantile(boot, 0.975, method="inverted_cdf")
    assert M.bin_bootstrap(0, 12, 0.05) == (0.0, 0.0) and M.bin_bootstrap(12, 12, 0.05) == (1.0, 1.0)
    lo, hi = M.bin_intervals("wilson", [0, 2], [0, 5], 0.05)
    assert (lo[0], hi[0]) == (0.0, 1.0) and 0 < lo[1] < 0.4 < hi[1] < 1


def test_sidak_clopper_pearson_band_holds_the_whole_curve_given_the_counts():
    """Given the bin counts the bins' labels are independent: P(all covered | m) = Π_j P(bin j covered | m_j),
    exactly by binomial sums; at least 1 - δ for Šidák with Clopper–Pearson on a grid of counts and frequencies."""
    delta, B = 0.1, 4
    per = M.ADJUSTMENTS["sidak"](delta, B)
    assert abs((1 - per) ** B - (1 - delta)) < 1e-12 and M.ADJUSTMENTS["bonferroni"](delta, B) == delta / B
    rng = np.random.default_rng(5)
    for _ in range(40):
        m = rng.integers(1, 30, size=B)
        f = rng.random(B)
        whole = 1.0
        for mj, fj in zip(m, f):
            k = np.arange(mj + 1)
            lo, hi = M.bin_intervals("clopper_pearson", k, np.full(mj + 1, mj), per)
            whole *= stats.binom.pmf(k, mj, fj)[(lo <= fj) & (fj <= hi)].sum()
        assert whole >= 1 - delta - 1e-12
    k, m = np.array([[0, 3, 5, 9]]), np.array([[2, 6, 5, 20]])
    assert np.array_equal(M.band("clopper_pearson", k, m, delta)[0], M.bin_intervals("clopper_pearson", k, m, per)[0])


def test_ece_kernels_registered_reproducible_and_bracket_sensibly(shared):
    assert list(methods("ece")) == ["ece.plugin", "ece.debiased", "ece.clopper_pearson_sidak", "ece.smooth"]
    s, y = shared
    e = np.linspace(0, 1, 11)
    for name in ("ece.plugin", "ece.debiased", "ece.clopper_pearson_sidak", "ece.smooth"):
        m = methods()[name]
        a = m.bounds((s, y), 0.1, rng=np.random.default_rng(1), edges=e, draws=200)
        b = m.bounds((s, y), 0.1, rng=np.random.default_rng(1), edges=e, draws=200)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        assert np.all(0 <= a[0]) and np.all(a[0] <= a[1])
    lo, hi = methods()["ece.plugin"].bounds((s, y), 0.1, rng=np.random.default_rng(1), edges=e, draws=200)
    plug = M.plugin_ece(*M.bin_stats(s, y, e))
    assert np.all(lo <= plug) and np.all(plug <= hi)


# --------------------------------------------------------------------------- the study

from covstudy.calibration.study import CalibrationStudy, run_calibration_study  # noqa: E402
from covstudy.study.config import ConfigError  # noqa: E402


def _config(tmp_path, **over):
    cfg = {"name": "cal", "question": "q", "reps": 300, "seed": 4, "out": str(tmp_path / "cal"), "plot": False,
           "calibration": {"bin_methods": ["clopper_pearson", "bootstrap"], "adjustments": ["none", "sidak"],
                           "ece_methods": ["plugin", "debiased"], "tests": ["spiegelhalter"], "draws": 30},
           "grid": {"n": [40], "bins": [4], "slope": [1.0, 0.5], "delta": [0.1]}}
    cfg.update(over)
    return cfg


@pytest.fixture(scope="module")
def study_table(tmp_path_factory):
    return run_calibration_study(CalibrationStudy.from_config(_config(tmp_path_factory.mktemp("s"))))


def test_study_per_bin_monte_carlo_within_four_mcse_of_exact_and_rows_complete(study_table):
    t = study_table
    assert set(t.target) == {"bin", "curve", "ece", "ece_unbinned", "test"}
    bins = t[t.target == "bin"]
    assert len(bins) == 2 * 2 * 4  # slopes × methods × bins
    # the MCSE at the exact coverage, over the test sets whose bin is non-empty (a rare bin has few)
    mcse = np.sqrt(bins.exact_coverage * (1 - bins.exact_coverage) / bins.n_valid)
    gap = (bins.coverage - bins.exact_coverage).abs()
    assert (gap <= 4 * mcse + 1e-12).all(), bins[["coverage", "exact_coverage", "n_valid"]]
    boot = bins[bins.method == "bootstrap"]
    assert (boot.exact_coverage < 0.9).any()  # the per-bin bootstrap under-covers in sparse bins: a test that can fail
    curve = t[t.target == "curve"].set_index(["slope", "method"]).coverage
    assert (curve.xs("clopper_pearson+sidak", level=1) >= 0.9 - 4 * np.sqrt(0.09 / 300)).all()


def test_study_is_reproducible_and_bad_config_is_one_line(tmp_path, study_table):
    again = run_calibration_study(CalibrationStudy.from_config(_config(tmp_path)))
    import pandas as pd
    pd.testing.assert_frame_equal(again, study_table)
    for over, message in [({"calibration": {"bin_methods": ["wilsn"]}}, "calibration.bin_methods: must list names among"),
                          ({"grid": {"n": [0], "bins": [4]}}, "grid.n must be"),
                          ({"reps": 0}, "reps: must be a whole number in [1, 1000000], got 0")]:
        with pytest.raises(ConfigError, match=re.escape(message)):
            CalibrationStudy.from_config(_config(tmp_path, **over))


# --------------------------------------------------------------------------- covstudy-evaluate

def test_evaluate_adds_the_ece_rows_and_the_reliability_diagram(tmp_path):
    import covstudy
    rng = np.random.default_rng(9)
    s, y = C.draw_test_sets(200, 1, C.ScoreLaw("beta", 2.0, 5.0), 0.6, 0.0, rng)
    s, y = s[0], y[0].astype(int)
    ev = covstudy.evaluate(y, scores=s, metrics=["calibration_ece"], audit=False, progress=False)
    rows = ev.table[ev.table.metric == "calibration_ece"].set_index("method")
    assert list(rows.index) == ["debiased", "plugin", "clopper_pearson_sidak"]
    assert rows.recommended.tolist() == [True, False, False]  # not audited: the calibration study's choice
    m, k, S = M.bin_stats(s, y, np.linspace(0, 1, 11))
    assert abs(rows.estimate["debiased"] - M.debiased_ece(m, k, S)[0]) < 1e-12
    assert abs(rows.estimate["plugin"] - M.plugin_ece(m, k, S)[0]) < 1e-12
    assert (rows.lower <= rows.upper).all() and "Spiegelhalter" in ev.reasons["calibration_ece"]
    out = ev.save(tmp_path / "ev")
    assert (out / "reliability.png").is_file() and "reliability.png" in (out / "report.md").read_text()
    assert 'src="reliability.png"' in (out / "report.html").read_text()
    # scores outside [0, 1] are not probabilities: no calibration rows
    ev = covstudy.evaluate(y, scores=3 * s - 1, metrics=["auc", "calibration_ece"], audit=False, progress=False)
    assert "calibration_ece" not in set(ev.table.metric) and "calibration" not in ev.info


# --------------------------------------------------------------------------- the audit of the ECE rows

from covstudy.evaluation import ece_audit  # noqa: E402


def test_ece_audit_fits_the_plug_in_point_against_scipy_and_scikit_learn():
    from sklearn.linear_model import LogisticRegression
    s, y = C.draw_test_sets(20_000, 1, C.ScoreLaw("beta", 2.0, 5.0), 0.6, 0.3, np.random.default_rng(21))
    s, y = s[0], y[0].astype(float)
    point = ece_audit.fit_point(s, y)
    a, b, _, _ = stats.beta.fit(s, floc=0, fscale=1, method="MM")
    assert abs(point["score_a"] - a) < 1e-4 * a and abs(point["score_b"] - b) < 1e-4 * b  # scipy solves numerically
    lr = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(special.logit(s)[:, None], y)
    assert abs(point["slope"] - lr.coef_[0, 0]) < 1e-4 and abs(point["intercept"] - lr.intercept_[0]) < 1e-4
    assert abs(point["slope"] - 0.6) < 0.05 and abs(point["intercept"] - 0.3) < 0.05  # and near the truth
    assert ece_audit.fit_point(s, np.ones_like(y)) is None and ece_audit.fit_point(np.full(9, 0.3), y[:9]) is None


def test_ece_audit_agrees_with_the_registered_kernels_within_four_mcse(monkeypatch):
    """The audit's shared resamples against each kernel's own, on fresh test sets at the same fitted point."""
    s, y = C.draw_test_sets(150, 1, C.ScoreLaw("beta", 2.0, 5.0), 1.6, 0.0, np.random.default_rng(22))
    s, y, e = s[0], y[0].astype(float), np.linspace(0, 1, 11)
    monkeypatch.setattr(ece_audit, "ECE_REPS", 300)
    rows, where = ece_audit.audit_rows(s, y, e, 0.1, seed=3)
    assert rows["debiased"]["reps"] == 300 and "true binned ECE" in where
    p = ece_audit.fit_point(s, y)
    law = C.ScoreLaw("beta", p["score_a"], p["score_b"])
    truth = C.true_ece_binned(10, "equal_width", law, p["slope"], p["intercept"])
    ts, ty = C.draw_test_sets(150, 300, law, p["slope"], p["intercept"], np.random.default_rng(23))
    for name in ("debiased", "plugin"):
        lo, hi = methods()[f"ece.{name}"].bounds((ts, ty), 0.1, rng=np.random.default_rng(24), edges=e,
                                                 draws=ece_audit.AUDIT_DRAWS)
        c = np.mean((lo <= truth) & (truth <= hi))
        mine = rows[name]["coverage_at_estimate"]
        assert abs(c - mine) <= 4 * np.sqrt((c * (1 - c) + mine * (1 - mine)) / 300 + 1e-6), (name, c, mine)
    monkeypatch.setattr(ece_audit, "ECE_BUDGET", 1000)
    rows, where = ece_audit.audit_rows(s, y, e, 0.1, seed=3)
    assert where == "" and rows["plugin"]["note"].startswith("not audited: 100 simulated test sets")


def test_evaluate_audits_the_ece_rows_at_the_plug_in_point(monkeypatch):
    import covstudy
    from covstudy.report.evaluation_page import summaries
    monkeypatch.setattr(ece_audit, "ECE_REPS", 120)
    s, y = C.draw_test_sets(120, 1, C.ScoreLaw("beta", 2.0, 5.0), 0.6, 0.0, np.random.default_rng(25))
    ev = covstudy.evaluate(y[0].astype(int), scores=s[0], metrics=["calibration_ece"], progress=False)
    rows = ev.table[ev.table.metric == "calibration_ece"].set_index("method")
    assert (rows.reps == 120).all() and (rows.audit == "at plug-in").all() and (rows.engine == "mc").all()
    assert rows.coverage_at_estimate.between(0, 1).all() and rows.worst_coverage.isna().all()
    assert "At the fitted plug-in point" in ev.reasons["calibration_ece"]
    assert "at the fitted plug-in point" in summaries(ev)["calibration_ece"]
    from covstudy.evaluation.recommend import meets  # judged as any row at its one point: a short one is flagged
    for r in rows.itertuples():
        assert r.meets_target == meets({"worst_coverage": r.coverage_at_estimate, "worst_mcse": r.coverage_mcse,
                                        "guaranteed": bool(r.guaranteed)}, 0.945)
    assert rows.loc["plugin", "meets_target"] in ("no", "undecided")  # the biased plug-in's bootstrap under-covers


def test_study_with_binormal_scores_and_the_smooth_ece(tmp_path):
    """Binormal points add rows with their own axes; the Beta points' rows are unchanged by them (their streams
    are keyed as before); the smooth ECE runs once per point of the other axes, against its own estimand."""
    import pandas as pd
    over = {"reps": 100, "calibration": {"bin_methods": ["clopper_pearson"], "ece_methods": ["debiased", "smooth"],
                                         "tests": ["spiegelhalter"], "draws": 20},
            "grid": {"n": [40], "bins": [4, 2], "slope": [0.6], "delta": [0.1], "scores": ["beta", "binormal"],
                     "auc": [0.8], "prevalence": [0.3]}}
    both = run_calibration_study(CalibrationStudy.from_config(_config(tmp_path / "a", **over)))
    over["grid"] = {**over["grid"], "scores": ["beta"]}
    beta = run_calibration_study(CalibrationStudy.from_config(_config(tmp_path / "b", **over)))
    mine = both[both.scores.isna()].drop(columns=["scores", "auc", "prevalence"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, beta.reset_index(drop=True))
    binormal = both[both.scores == "binormal"]
    assert binormal.score_a.isna().all() and (binormal.auc == 0.8).all() and len(binormal) == len(beta)
    smooth = both[both.target == "smooth_ece"]
    assert list(smooth.bins) == [4, 4] and list(smooth.method) == ["smooth", "smooth"]
    law = C.ScoreLaw("binormal", auc=0.8, prevalence=0.3)
    assert smooth.truth.iloc[1] == C.true_smooth_ece(law, 0.6, 0.0) > 0


@pytest.mark.parametrize("a, b", [(0.049, 0.0836), (0.5, 0.5), (0.3, 3.0), (2.0, 5.0)])
def test_bin_moments_of_singular_beta_scores_are_exact_and_quiet(a, b):
    """Scores piled at 0 and 1 (Beta(a < 1, b < 1)): each bin's mean score equals its closed form
    a/(a + b)·ΔI(a + 1, b)/w within 1e-10, with no integration warning (the singular factor is quad's weight)."""
    import warnings

    from scipy import stats

    law = C.ScoreLaw("beta", a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w, f, m = C.bin_moments(10, "width", law, 0.93, 0.0742)
    e = C.edges(10, "width", law)
    assert np.allclose(m, a / (a + b) * np.diff(stats.beta.cdf(e, a + 1, b)) / w, rtol=0, atol=1e-10)
    assert np.all((f >= 0) & (f <= 1))
