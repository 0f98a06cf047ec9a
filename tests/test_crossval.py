"""The crossval design (issue 30): the learner, its exact error, Err, cross-validation and the CV intervals.

References: the exact error against a large simulated test set; ridge LDA against an
independent per-data-set fit (np.cov) and scikit-learn's LDA; Err against the mean Err_XY of
fully simulated data sets; K-fold and nested CV against a brute-force loop over folds; the
Nadeau–Bengio and nested-CV intervals against transcriptions of the papers' formulas (Nadeau &
Bengio 2003, corrected resampled t; Bates, Hastie & Tibshirani 2023, the nestedcv package's
nested_cv); the credible interval against quantiles of the average of per-fold Betas.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from covstudy import coverage, interval
from covstudy.designs import get_design
from covstudy.designs.crossval import cross_validate, expected_error, separation
from covstudy.designs.learner import bayes_error, error, expected_error as raw_expected_error, fit, fit_sums
from covstudy.methods.crossval import credible, nadeau_bengio, nested


def _data(rng, n, d, sep, prevalence):
    y = (rng.random(n) < prevalence).astype(np.int64)
    x = rng.standard_normal((n, d))
    x[:, 0] += np.where(y == 1, sep / 2, -sep / 2)
    return x, y


def _lda(x, y, ridge):
    """Independent ridge LDA: class covariances by np.cov, pooled with weights n_c - 1."""
    x1, x0 = x[y == 1], x[y == 0]
    pooled = ((len(x1) - 1) * np.cov(x1.T) + (len(x0) - 1) * np.cov(x0.T)) / (len(x) - 2)
    w = np.linalg.inv(pooled + ridge * np.eye(x.shape[1])) @ (x1.mean(0) - x0.mean(0))
    return w, -w @ (x1.mean(0) + x0.mean(0)) / 2 + np.log(len(x1) / len(x0))


def _sums(x, y):
    one, zero = y == 1, y == 0
    return one.sum(), zero.sum(), x[one].sum(0), x[zero].sum(0), x.T @ x


@pytest.mark.parametrize("d, prevalence", [(2, 0.5), (6, 0.3)])
def test_lda_equals_an_independent_fit_and_scikit_learn(d, prevalence):
    rng = np.random.default_rng(1)
    x, y = _data(rng, 60, d, 1.5, prevalence)
    w, b = fit_sums(*_sums(x, y), ridge=0.01)
    w_ref, b_ref = _lda(x, y, 0.01)
    np.testing.assert_allclose(w, w_ref, rtol=1e-10)
    np.testing.assert_allclose(b, b_ref, rtol=1e-10)
    # scikit-learn's LDA divides the scatter by n, not n - 2: same rule with w scaled by n/(n - 2)
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(x, y)
    w0, b0 = fit_sums(*_sums(x, y), ridge=1e-12)
    c, prior = 60 / 58, np.log(y.mean() / (1 - y.mean()))
    np.testing.assert_allclose(lda.coef_[0], c * w0, rtol=1e-7)
    np.testing.assert_allclose(lda.intercept_[0] - prior, c * (b0 - prior), rtol=1e-7)


def test_exact_error_matches_a_large_simulated_test_set():
    rng = np.random.default_rng(2)
    for d, prevalence, be in [(3, 0.5, 0.2), (8, 0.3, 0.1)]:
        sep = separation(be, prevalence)
        assert bayes_error(sep, prevalence) == pytest.approx(be, abs=1e-12)
        w, b = fit_sums(*_sums(*_data(rng, 40, d, sep, prevalence)), ridge=0.01)
        exact = error(w, b, sep, prevalence)
        x, y = _data(rng, 400_000, d, sep, prevalence)
        wrong = np.mean((x @ w + b > 0) != (y == 1))
        assert abs(wrong - exact) < 4 * np.sqrt(exact * (1 - exact) / 400_000), (wrong, exact)
    # the Bayes rule's own error is the Bayes error
    assert error(np.array([sep]), np.log(prevalence / (1 - prevalence)), sep, prevalence) == \
        pytest.approx(bayes_error(sep, prevalence), abs=1e-12)


def test_err_is_the_mean_err_xy_of_simulated_data_sets():
    design = get_design("crossval")
    pt = design.derive({"n": 24, "d": 3, "bayes_error": 0.2, "folds": 3, "repeats": 1, "prevalence": 0.4})
    columns = design.simulate([pt], 3000, 7).columns
    err, mcse = expected_error(24, 3, 0.2, 0.4, 0.01)
    mean, se = columns["err_xy"].mean(), columns["err_xy"].std(ddof=1) / np.sqrt(3000)
    assert mcse < 5e-4 and abs(mean - err) < 4 * np.hypot(se, mcse), (mean, err)
    # the holdout's model: fit on n - round(0.2·n) = 19 examples
    mean = columns["err_xy_holdout"].mean()
    se = columns["err_xy_holdout"].std(ddof=1) / np.sqrt(3000)
    assert abs(mean - design.truth_inputs(pt)["err_holdout"]) < 4 * np.hypot(se, mcse)


def test_expected_error_wishart_paths_agree():
    # dof < d uses ZᵀZ, dof >= d Bartlett: at n = d + 1 and n = d + 3 both are Wishart(I, n - 2)
    sep = separation(0.2, 0.5)
    for n in (5, 7):
        a = raw_expected_error(n, 5, sep, 0.5, 0.01, 20_000, np.random.default_rng(3))
        rng = np.random.default_rng(4)
        errs = []
        for _ in range(4000):
            x, y = _data(rng, n, 5, sep, 0.5)
            if 0 < y.sum() < n:
                errs.append(error(*fit_sums(*_sums(x, y), 0.01), sep, 0.5))
        # conditional on both classes present (P(one class) = 2^(1-n): small) as the reference loop
        assert abs(np.mean(errs) - a[0]) < 4 * np.hypot(a[1], np.std(errs) / np.sqrt(len(errs))) + 2 ** (1 - n)


def test_cross_validation_equals_a_brute_force_loop_over_folds():
    rng = np.random.default_rng(5)
    n, d, K, ridge = 23, 3, 4, 0.05
    x, y = _data(rng, n, d, 1.2, 0.5)
    order = rng.permutation(n)
    fold = np.empty(n, int)
    fold[order] = np.arange(n) % K
    got = cross_validate(x[None], y[None], order[None], K, ridge)
    errors, sizes, inner, inner_sizes = (np.zeros(K, int) for _ in range(4))
    for k in range(K):
        w, b = _lda(x[fold != k], y[fold != k], ridge)
        test = fold == k
        errors[k], sizes[k] = np.sum((x[test] @ w + b > 0) != (y[test] == 1)), test.sum()
        for j in set(range(K)) - {k}:
            train = (fold != k) & (fold != j)
            w, b = _lda(x[train], y[train], ridge)
            inner[k] += np.sum((x[fold == j] @ w + b > 0) != (y[fold == j] == 1))
            inner_sizes[k] += np.sum(fold == j)
    for g, want in zip(got, (errors, sizes, inner, inner_sizes)):
        np.testing.assert_array_equal(g[0], want)


def _losses(rng, R, K, m, p):
    """Random 0/1 losses: out-of-fold (R, K, m) and inner (R, K, K - 1 folds of m)."""
    return rng.random((R, K, m)) < p, rng.random((R, K, (K - 1) * m)) < p


def test_nadeau_bengio_is_the_corrected_resampled_t():
    rng = np.random.default_rng(6)
    out, inner = _losses(rng, 3, 5, 8, 0.3)
    e, m = out.sum(-1), np.full((3, 5), 8)
    lo, hi = nadeau_bengio(e[None], m[None], inner.sum(-1)[None], np.full((1, 3, 5), 32), 0.1)
    rates = (e / 8).ravel()  # J = 15 rates; n_test/n_train = 8/32
    half = stats.t.ppf(0.95, 14) * np.sqrt((1 / 15 + 8 / 32) * rates.var(ddof=1))
    np.testing.assert_allclose([lo[0], hi[0]], [rates.mean() - half, rates.mean() + half], rtol=1e-12)


def test_nested_cv_follows_the_nestedcv_package():
    """A line-by-line transcription of nestedcv's nested_cv on raw 0/1 losses
    (github.com/stephenbates19/nestedcv, R/core.R at 7f9d5ae)."""
    rng = np.random.default_rng(8)
    R, K, m, alpha = 6, 5, 10, 0.1
    out, inner = _losses(rng, R, K, m, 0.25)
    n = K * m
    pivots = np.array([[inner[r, k].mean() - out[r, k].mean(), out[r, k].var(ddof=1) / m]
                       for r in range(R) for k in range(K)])
    ho = inner.ravel().astype(float)
    n_sub = np.floor(n * (K - 1) / K)
    infl = np.sqrt(max(0, np.mean(pivots[:, 0] ** 2 - pivots[:, 1]))) / (ho.std(ddof=1) / np.sqrt(n_sub))
    infl = max(1, min(infl, np.sqrt(K)))
    cv_mean = out.mean()  # the package averages ceil(reps/5) fresh CV runs; here the R repeats'
    est = ho.mean() - (ho.mean() - cv_mean) * (1 + ((K - 2) / K) ** 1.5)
    half = stats.norm.ppf(1 - alpha / 2) * ho.std(ddof=1) / np.sqrt(n) * infl
    lo, hi = nested(out.sum(-1)[None], np.full((1, R, K), m), inner.sum(-1)[None], np.full((1, R, K), (K - 1) * m),
                    alpha)
    np.testing.assert_allclose([lo[0], hi[0]], [est - half, est + half], rtol=1e-12)
    assert 1 < infl < np.sqrt(K) or infl in (1, np.sqrt(K))


def test_credible_is_the_average_of_fold_posteriors():
    e, m = np.array([[[2, 5, 1, 3]]]), np.array([[[10, 10, 9, 10]]])
    lo, hi = credible(e, m, e, m, 0.05, rng=np.random.default_rng(9), draws=200_000)
    ref = stats.beta.rvs(e[0, 0] + 1, m[0, 0] - e[0, 0] + 1, size=(400_000, 4), random_state=10).mean(1)
    np.testing.assert_allclose([lo[0], hi[0]], np.quantile(ref, [0.025, 0.975]), atol=2e-3)


def test_coverage_counts_each_data_set_against_its_own_target():
    design = get_design("crossval")
    axes = dict(n=30, d=3, bayes_error=0.2, folds=3, repeats=2)
    pt = design.derive(axes)
    columns = design.simulate([pt], 200, 11).columns
    for metric, target in (("err_xy", columns["err_xy"]), ("err", columns["err"])):
        r = coverage("wilson", design="crossval", metric=metric, reps=200, seed=11, **axes)
        lo, hi = interval("wilson", k=columns["k"], n=30)
        assert r.coverage == pytest.approx(np.mean((lo <= target) & (target <= hi)), abs=1e-12)
        assert r.mean_width == pytest.approx(np.mean(hi - lo), abs=1e-12)
    r = coverage("holdout_cp", design="crossval", reps=200, seed=11, **axes)
    lo, hi = interval("holdout_cp", k_test=columns["k_test"], n_test=columns["n_test"])
    own = columns["err_xy_holdout"]
    assert r.coverage == pytest.approx(np.mean((lo <= own) & (own <= hi)), abs=1e-12)
    again = coverage("holdout_cp", design="crossval", reps=200, seed=11, **axes)
    assert again.measures == r.measures


def test_holdout_clopper_pearson_covers_its_model():
    r = coverage("holdout_cp", design="crossval", reps=400, seed=3, n=40, d=2, bayes_error=0.2, folds=4, repeats=1,
                 delta=0.1)
    assert r.coverage >= 0.9 - 4 * r.mcse


@pytest.mark.parametrize("axes, message", [
    (dict(n=40, d=2, bayes_error=0.3, folds=4, prevalence=0.2), "bayes_error: must be below"),
    (dict(n=7, d=2, bayes_error=0.2, folds=4), "n, folds: nested cross-validation needs n >= 2·folds"),
    (dict(n=40, d=2, bayes_error=0.2, folds=2), "folds"),
    (dict(n=20_000, d=40, bayes_error=0.2, folds=5, learner="logistic"), "n, d: logistic regression holds"),
])
def test_bad_points_are_one_line_errors(axes, message):
    with pytest.raises(ValueError) as err:
        coverage("nested", design="crossval", reps=10, **axes)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_exact_engine_is_refused():
    with pytest.raises(ValueError, match="reps"):
        coverage("wilson", design="crossval", n=40, d=2, bayes_error=0.2, folds=4)


def test_the_interval_door_takes_cross_validation_counts():
    e, m = np.array([[3, 2, 4, 1, 2], [2, 3, 3, 2, 2]]), np.full((2, 5), 10)
    ie, im = np.array([[10, 9, 11, 8, 9], [9, 10, 10, 9, 9]]), np.full((2, 5), 40)
    lo, hi = interval("nested", fold_errors=e, fold_sizes=m, inner_errors=ie, inner_sizes=im, delta=0.1)
    want = nested(e[None], m[None], ie[None], im[None], 0.1)
    assert (lo, hi) == (want[0][0], want[1][0])
    assert interval("holdout_cp", k_test=5, n_test=40) == interval("clopper_pearson", k=5, n=40)
    with pytest.raises(ValueError, match="fold_errors <= fold_sizes"):
        interval("nested", fold_errors=5 * e, fold_sizes=m, inner_errors=ie, inner_sizes=im)


def _correlated(rng, n, d, sep, prevalence, rho):
    """Independent of the design's sampler: numpy's multivariate normal with Σ_ij = ρ^|i-j|, the
    class means ±Δ/2·Σ e_1/sqrt(Σ_11) (Mahalanobis distance Δ)."""
    cov = rho ** np.abs(np.subtract.outer(np.arange(d), np.arange(d)))
    mu = sep / 2 * cov[:, 0]
    y = (rng.random(n) < prevalence).astype(np.int64)
    x = rng.multivariate_normal(np.zeros(d), cov, size=n, method="eigh") + np.where(y[:, None] == 1, mu, -mu)
    return x, y, cov


def test_exact_error_under_a_given_covariance_matches_a_large_simulated_test_set():
    from covstudy.designs.learner import ar1_chol

    rng = np.random.default_rng(12)
    d, prevalence, rho = 4, 0.4, 0.7
    sep = separation(0.15, prevalence)
    chol = ar1_chol(d, rho)
    x, y, cov = _correlated(rng, 30, d, sep, prevalence, rho)
    np.testing.assert_allclose(chol @ chol.T, cov, atol=1e-14)
    w, b = fit_sums(*_sums(x, y), ridge=0.5)
    exact = error(w, b, sep, prevalence, chol)
    x, y, _ = _correlated(rng, 400_000, d, sep, prevalence, rho)
    wrong = np.mean((x @ w + b > 0) != (y == 1))
    assert abs(wrong - exact) < 4 * np.sqrt(exact * (1 - exact) / 400_000), (wrong, exact)
    assert abs(error(w, b, sep, prevalence) - exact) > 0.01  # Σ matters to this rule
    # the Bayes rule w = Σ⁻¹(μ_1 - μ_0), b = log(π/(1 - π)) still errs at the Bayes error
    w = np.linalg.solve(cov, sep * cov[:, 0])
    assert error(w, np.log(prevalence / (1 - prevalence)), sep, prevalence, chol) == pytest.approx(0.15, abs=1e-12)


def test_err_under_a_given_covariance_is_the_mean_err_xy_of_simulated_data_sets():
    design = get_design("crossval")
    given = {"n": 16, "d": 4, "bayes_error": 0.2, "folds": 3, "repeats": 1, "ridge": 1.0, "correlation": 0.8}
    pt = design.derive(given)
    without = {k: v for k, v in given.items() if k != "correlation"}
    assert pt["correlation"] == 0.8 and "correlation" not in design.derive(without)  # absent: identity
    columns = design.simulate([pt], 3000, 8).columns
    err, mcse = expected_error(16, 4, 0.2, 0.5, 1.0, 0.8)
    mean, se = columns["err_xy"].mean(), columns["err_xy"].std(ddof=1) / np.sqrt(3000)
    assert abs(mean - err) < 4 * np.hypot(se, mcse), (mean, err)
    identity = expected_error(16, 4, 0.2, 0.5, 1.0)
    assert abs(identity[0] - err) > 8 * np.hypot(mcse, identity[1]), (identity, err)  # the ridge sees Σ


def _logistic_data(rng, shape, d, sep):
    y = (rng.random(shape) < 0.4).astype(np.int64)
    x = rng.standard_normal((*shape, d))
    x[..., 0] += np.where(y == 1, sep / 2, -sep / 2)
    return x, y


def test_logistic_regression_minimises_its_objective_as_scipy_does():
    from scipy import optimize
    from numpy import logaddexp
    from scipy.special import expit

    from covstudy.designs.learner import fit_logistic

    rng = np.random.default_rng(13)
    x, y = _logistic_data(rng, (6, 30), 3, 2.0)
    x[5, :, 0] = np.where(y[5] == 1, 4.0, -4.0) + 0.1 * x[5, :, 0]  # separable: only the ridge stops it
    weight = (rng.random((6, 30)) < 0.8).astype(float)  # examples left out, as a fold is
    for ridge in (0.01, 1.0):
        w, b = fit_logistic(x, y, ridge, weight)
        for i in range(6):
            xi = np.c_[x[i], np.ones(30)]

            def f(beta, xi=xi, i=i):
                eta = xi @ beta
                value = weight[i] @ (logaddexp(0, eta) - y[i] * eta) + ridge / 2 * beta[:-1] @ beta[:-1]
                grad = xi.T @ (weight[i] * (expit(eta) - y[i])) + ridge * np.r_[beta[:-1], 0]
                return value, grad

            ref = optimize.minimize(f, np.zeros(4), jac=True, method="BFGS", options={"gtol": 1e-11}).x
            np.testing.assert_allclose(np.r_[w[i], b[i]], ref, atol=1e-6 * max(1, np.abs(ref).max()))
            assert np.abs(f(np.r_[w[i], b[i]])[1]).max() < 1e-8  # stationary


def test_logistic_regression_equals_scikit_learn():
    sklearn = pytest.importorskip("sklearn.linear_model")
    from covstudy.designs.learner import fit_logistic

    rng = np.random.default_rng(14)
    x, y = _logistic_data(rng, (4, 50), 5, 1.5)
    weight = (rng.random((4, 50)) < 0.7).astype(float)
    w, b = fit_logistic(x, y, 0.05, weight)
    for i in range(4):  # sklearn: C·Σ loss + |w|²/2, the same minimiser at C = 1/λ; intercept unpenalised
        ref = sklearn.LogisticRegression(C=1 / 0.05, tol=1e-12, max_iter=10_000).fit(x[i], y[i], sample_weight=weight[i])
        np.testing.assert_allclose(w[i], ref.coef_[0], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(b[i], ref.intercept_[0], rtol=1e-6, atol=1e-8)


def test_the_stored_err_table_is_what_the_design_draws():
    from covstudy.designs.crossval import draw_expected_error, stored_errors

    table = stored_errors()
    assert len(table) == 74  # 62 LDA (crossval), 12 logistic regression (crossval_logistic)
    for key in [(40, 5, 0.05, 0.5, 0.01), (1000, 5, 0.3, 0.5, 0.01), (80, 10, 0.15, 0.5, 0.01)]:
        assert table[(*key, "lda")] == draw_expected_error(*key)  # bit for bit: the same stream
    key = (40, 10, 0.222, 0.5, 0.01)
    assert table[(*key, "logistic")] == draw_expected_error(*key, 0.0, "logistic")


def _logistic_ref(x, y, ridge):
    """Independent ridge logistic regression: scipy's BFGS on Σ log(1 + e^η) - yη + λ|w|²/2."""
    from scipy import optimize
    from scipy.special import expit

    xi = np.c_[x, np.ones(len(x))]

    def f(beta):
        eta = xi @ beta
        return (np.sum(np.logaddexp(0, eta) - y * eta) + ridge / 2 * beta[:-1] @ beta[:-1],
                xi.T @ (expit(eta) - y) + ridge * np.r_[beta[:-1], 0])

    beta = optimize.minimize(f, np.zeros(xi.shape[1]), jac=True, method="BFGS", options={"gtol": 1e-10}).x
    return beta[:-1], beta[-1]


def test_logistic_cross_validation_equals_a_brute_force_loop_over_folds():
    from covstudy.designs.crossval import draw_sets, simulate_sets

    n, d, K, R, ridge, be = 21, 2, 4, 2, 0.1, 0.2
    sep = separation(be, 0.5)
    got = simulate_sets(n, d, be, 0.5, K, R, 0.2, ridge, 3, np.random.default_rng(6), learner_name="logistic")
    rng = np.random.default_rng(6)  # the same draws: the block's data sets, then each repeat's permutations
    x, y = draw_sets(3, n, d, sep, 0.5, rng)
    orders = [np.argsort(rng.random((3, n)), axis=1) for _ in range(R)]
    n_test = 4
    for i in range(3):
        w, b = _logistic_ref(x[i], y[i], ridge)
        assert got["err_xy"][i] == pytest.approx(error(w, b, sep, 0.5), abs=1e-7)
        w, b = _logistic_ref(x[i, n_test:], y[i, n_test:], ridge)
        assert got["err_xy_holdout"][i] == pytest.approx(error(w, b, sep, 0.5), abs=1e-7)
        assert got["k_test"][i] == np.sum((x[i, :n_test] @ w + b > 0) != (y[i, :n_test] == 1))
        for r in range(R):
            fold = np.empty(n, int)
            fold[orders[r][i]] = np.arange(n) % K
            errors, sizes, inner, inner_sizes = (np.zeros(K, int) for _ in range(4))
            for k in range(K):
                w, b = _logistic_ref(x[i][fold != k], y[i][fold != k], ridge)
                test = fold == k
                errors[k], sizes[k] = np.sum((x[i][test] @ w + b > 0) != (y[i][test] == 1)), test.sum()
                for j in set(range(K)) - {k}:
                    train = (fold != k) & (fold != j)
                    w, b = _logistic_ref(x[i][train], y[i][train], ridge)
                    inner[k] += np.sum((x[i][fold == j] @ w + b > 0) != (y[i][fold == j] == 1))
                    inner_sizes[k] += np.sum(fold == j)
            for name, want in zip(("fold_errors", "fold_sizes", "inner_errors", "inner_sizes"),
                                  (errors, sizes, inner, inner_sizes)):
                np.testing.assert_array_equal(got[name][i, r], want, err_msg=name)


def test_shared_logistic_fits_equal_one_at_a_time():
    from covstudy.designs.learner import fit_logistic, fit_logistic_shared

    rng = np.random.default_rng(15)
    x, y = _logistic_data(rng, (3, 40), 4, 1.5)
    weight = rng.random((3, 5, 40)) < 0.7  # five models of each data set
    w, b = fit_logistic_shared(x, y, weight, 0.05)
    w1, b1 = fit_logistic(np.broadcast_to(x[:, None], (3, 5, 40, 4)), np.broadcast_to(y[:, None], (3, 5, 40)), 0.05,
                          weight)
    np.testing.assert_allclose(w, w1, atol=1e-9)
    np.testing.assert_allclose(b, b1, atol=1e-9)
    start = (w + 0.3, b - 0.2)  # a warm start reaches the same minimum
    np.testing.assert_allclose(fit_logistic_shared(x, y, weight, 0.05, start)[0], w, atol=1e-9)


def test_logistic_err_xy_matches_a_large_simulated_test_set_of_a_scikit_learn_model():
    sklearn = pytest.importorskip("sklearn.linear_model")
    from covstudy.designs.crossval import draw_sets, simulate_sets

    n, d, be, pi, ridge = 40, 3, 0.15, 0.4, 0.01
    sep = separation(be, pi)
    got = simulate_sets(n, d, be, pi, 3, 1, 0.2, ridge, 2, np.random.default_rng(8), learner_name="logistic")
    x, y = draw_sets(2, n, d, sep, pi, np.random.default_rng(8))
    tx, ty = draw_sets(1, 400_000, d, sep, pi, np.random.default_rng(9))
    for i in range(2):
        model = sklearn.LogisticRegression(C=1 / ridge, tol=1e-12, max_iter=10_000).fit(x[i], y[i])
        wrong = np.mean(model.predict(tx[0]) != ty[0])
        exact = got["err_xy"][i]
        assert abs(wrong - exact) < 4 * np.sqrt(exact * (1 - exact) / 400_000), (wrong, exact)


def test_logistic_err_is_the_mean_err_xy_of_simulated_data_sets():
    design = get_design("crossval")
    pt = design.derive({"n": 24, "d": 3, "bayes_error": 0.2, "folds": 3, "repeats": 1, "prevalence": 0.4,
                        "learner": "logistic"})
    columns = design.simulate([pt], 2000, 7).columns
    err, mcse = expected_error(24, 3, 0.2, 0.4, 0.01, 0.0, "logistic")
    lda = expected_error(24, 3, 0.2, 0.4, 0.01)
    mean, se = columns["err_xy"].mean(), columns["err_xy"].std(ddof=1) / np.sqrt(2000)
    assert mcse < 5e-4 and abs(mean - err) < 4 * np.hypot(se, mcse), (mean, err)
    assert abs(err - lda[0]) > 6 * np.hypot(mcse, lda[1])  # a different learner, a different Err
    mean = columns["err_xy_holdout"].mean()
    se = columns["err_xy_holdout"].std(ddof=1) / np.sqrt(2000)
    assert abs(mean - design.truth_inputs(pt)["err_holdout"]) < 4 * np.hypot(se, mcse)


def test_lda_points_are_unchanged_by_the_learner_axis():
    from covstudy.designs.crossval import simulate_sets
    from covstudy.seeds import stream

    design = get_design("crossval")
    given = {"n": 20, "d": 2, "bayes_error": 0.2, "folds": 4, "repeats": 2}
    plain, named = design.derive(given), design.derive({**given, "learner": "lda"})
    assert "learner" not in plain and design.stream_identity(plain) == design.stream_identity(named)
    a, b = design.simulate([plain], 50, 3).columns, design.simulate([named], 50, 3).columns
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    logistic = simulate_sets(20, 2, 0.2, 0.5, 4, 2, 0.2, 0.01, 50, stream(3, **design.stream_identity(plain)),
                             learner_name="logistic")
    assert not np.array_equal(a["err_xy"], logistic["err_xy"])  # same draws, another learner


def test_a_bad_learner_is_a_one_line_error():
    from covstudy.study.config import ConfigError, grid_axes

    with pytest.raises(ValueError) as err:
        coverage("nested", design="crossval", reps=10, n=40, d=2, bayes_error=0.2, folds=4, learner="svm")
    assert str(err.value) == "learner must be one of lda, logistic, got 'svm'"
    grid = {"design": "crossval", "n": [40], "d": [2], "bayes_error": [0.2], "folds": [4], "delta": [0.1]}
    with pytest.raises(ConfigError) as err:
        grid_axes({**grid, "learner": ["lda", "svm"]})
    assert str(err.value) == "grid.learner: must be one of lda, logistic, got 'svm'"
    assert grid_axes({**grid, "learner": ["logistic", "lda"]})[1]["learner"] == ("lda", "logistic")
    design = get_design("crossval")
    assert design.check({**design.derive({"n": 40, "d": 2, "bayes_error": 0.2, "folds": 4}), "learner": "svm"},
                        False) == \
        "learner: must be one of lda, logistic, got 'svm'"


def test_the_default_engine_both_runs_a_monte_carlo_only_design(tmp_path):
    """`covstudy design=crossval` with the base config's engine both: Monte Carlo rows without exact
    columns (the design has no exact engine), not a refusal."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "covstudy", "design=crossval", "reps=20", "grid.n=[30]", "grid.d=[3]",
                          "methods=[wilson,nested]", "plot=false", "n_jobs=1"], cwd=tmp_path, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    table = pd.read_csv(tmp_path / "results" / "crossval" / "results.csv")  # design=D: results/D
    assert len(table) == 2 and set(table["engine"]) == {"mc"} and "exact_coverage" not in table
