"""The smooth ECE (methods/smooth_ece.py) and the calibration design's binormal scores (issue 46).

The smooth ECE against the direct sum of the reflected Gaussian kernel's images (an independent
formula), against the reference package relplot over a grid of test sets (tests/data/smooth_ece_relplot.json,
with its provenance), its fixed point, its population value against a double quadrature, and its interval.
The binormal score law against the binormal model simulated directly (Bayes' rule on the latent normals),
its moments (mean = prevalence exactly) and its exact vs Monte Carlo per-bin coverage."""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, optimize, special, stats

from covstudy import coverage
from covstudy.designs import calibration as C
from covstudy.methods import methods
from covstudy.methods import smooth_ece as S

REFERENCE = json.loads((Path(__file__).parent / "data" / "smooth_ece_relplot.json").read_text())


def _test_set(n, a, b, slope, seed):
    """As tests/data/smooth_ece_relplot.py rebuilds each case from uniforms."""
    u = np.random.default_rng(seed).random(2 * n)
    f = stats.beta.ppf(u[:n], a, b)
    return f, (u[n:] < special.expit(slope * special.logit(f))).astype(float)


def _direct(f, y, sigma, points=4001):
    """∫_0^1 |(1/n) Σ K_σ(t, f_i)(y_i - f_i)| dt with K the sum over the images f + 2k and -f + 2k (|k| <= 3), trapezoid."""
    t = np.linspace(0, 1, points)
    r = (y - f) / len(f)
    h = sum((stats.norm.pdf(t[:, None] - f + 2 * k, scale=sigma) + stats.norm.pdf(t[:, None] + f + 2 * k, scale=sigma)) @ r
            for k in range(-3, 4))
    return integrate.trapezoid(np.abs(h), t)


@pytest.mark.parametrize("case", [(40, 2.0, 5.0, 0.5, 3), (60, 0.5, 0.5, 2.0, 4)])
def test_smooth_ece_at_a_bandwidth_is_the_direct_kernel_sum(case):
    f, y = _test_set(*case)
    for sigma in (0.01, 0.04, 0.15, 0.6):
        assert abs(S.smooth_ece_sigma(f, y, sigma)[0] - _direct(f, y, sigma)) < 1e-4, sigma


def test_smooth_ece_matches_relplot_over_a_grid():
    """relplot discretises its kernel on a 1001-point grid and evaluates on 200 points, and halves its bandwidth
    bracket 10 times, returning the upper end: agreement to 2.5e-3, its bandwidth 2^-10 above ours at most."""
    assert REFERENCE["provenance"]["package"] == "relplot" and len(REFERENCE["cases"]) == 18
    worst = 0.0
    for c in REFERENCE["cases"]:
        f, y = _test_set(c["n"], c["a"], c["b"], c["slope"], c["seed"])
        for sigma, ref in c["smECE_sigma"].items():
            worst = max(worst, abs(S.smooth_ece_sigma(f, y, float(sigma))[0] - ref))
        value, sigma = S.smooth_ece(f, y, return_sigma=True)
        assert abs(value[0] - c["smECE"]) < 2.5e-3, c
        assert -2.5e-3 < sigma[0] - c["sigma"] <= 1e-4, c
    assert worst < 2.5e-3


def test_fixed_point_and_monotone_in_the_bandwidth():
    rng = np.random.default_rng(5)
    f = rng.beta(2, 3, (6, 150))
    y = (rng.random((6, 150)) < special.expit(0.7 * special.logit(f))).astype(float)
    value, sigma = S.smooth_ece(f, y, return_sigma=True)
    assert np.allclose(value, sigma, rtol=1e-13)  # smECE_σ* = σ*
    assert np.allclose(S.smooth_ece_sigma(f, y, sigma), value, rtol=1e-12)
    grid = np.geomspace(0.002, 1, 25)
    curves = np.array([S.smooth_ece_sigma(f, y, s) for s in grid])
    assert np.all(np.diff(curves, axis=0) <= 1e-12)  # the smoothed residual's L1 norm does not grow with σ
    # a perfectly calibrated population has smooth ECE 0; a test set's is floored at SIGMA_MIN's value
    assert C.true_smooth_ece(C.ScoreLaw("beta", 2.0, 5.0), 1.0, 0.0) == 0.0


def test_fixed_point_is_solved_to_rounding():
    """σ* against scipy's brentq on each test set's g(σ) = smECE_σ - σ to a relative 4 ulps (an independent
    solver), over n, calibration curves and a test set at the floor: within 1e-13 (a stop at a relative 1e-5
    in log σ was up to 5e-6 off), and smECE_σ* = σ* as closely."""
    rng = np.random.default_rng(9)
    for n, slope in ((30, 1.0), (300, 0.6), (3000, 1.6), (3000, 1.0)):
        f = rng.beta(2, 5, (3, n))
        y = (rng.random((3, n)) < special.expit(slope * special.logit(f))).astype(float)
        value, sigma = S.smooth_ece(f, y, return_sigma=True)
        c = S._cosine_coefficients(S.binned_residuals(f, y))
        for i in range(3):
            ref = optimize.brentq(lambda s: S.smooth_at(c[i:i + 1], np.array([s]))[0] - s, S.SIGMA_MIN, 1.0,
                                  xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=200)
            assert abs(sigma[i] / ref - 1) < 1e-13 and abs(value[i] / sigma[i] - 1) < 1e-13, (n, slope, i)
    f = np.r_[np.full(4, 0.5), 0.2, 0.2, 0.2, 0.2, 0.2]  # residuals cancelling at each score: the floor, smECE ~0
    value, sigma = S.smooth_ece(f, np.r_[0, 1, 0, 1, 0, 0, 0, 0, 1], return_sigma=True)
    assert sigma[0] == S.SIGMA_MIN and value[0] < 1e-12


def test_a_last_bit_change_moves_the_smooth_ece_by_last_bits():
    """docs/reproducibility.md: across CPUs floats may differ in their last bits, and so may the smooth ECE,
    but no more. One ulp (np.nextafter) on every score of 40 test sets, and on one score of a test set where
    the old stop (a step under a relative 1e-5 in log σ) took one step more on one side of that ulp than on the
    other (found by bisecting that score between values where the old stop's step count differed): it moved
    the smooth ECE by 1.6e-6 there."""
    rng = np.random.default_rng(10)
    f = rng.beta(2, 5, (40, 250))
    y = (rng.random((40, 250)) < special.expit(0.6 * special.logit(f))).astype(float)
    before, after = S.smooth_ece(f, y), S.smooth_ece(np.nextafter(f, 1), y)
    assert np.max(np.abs(after / before - 1)) < 1e-12
    f, y = _test_set(40, 2.0, 5.0, 0.5, 3)
    f[0] = 0.2710683015481109
    moved = f.copy()
    moved[0] = np.nextafter(f[0], 1)
    assert abs(S.smooth_ece(moved, y)[0] / S.smooth_ece(f, y)[0] - 1) < 1e-12


def test_population_smooth_ece_against_a_double_quadrature_and_a_large_test_set():
    law, slope = C.ScoreLaw("binormal", auc=0.8, prevalence=0.3), 0.6
    truth = C.true_smooth_ece(law, slope, 0.0)
    # at the bandwidth σ = truth, ∫ |∫ K_σ(t, s)(c(s) - s) p(s) ds| dt must equal σ: the inner integral over each
    # component's latent normal z (s = expit(mean + μz)) by Gauss–Legendre on 36 panels of [-9, 9], the outer by Simpson
    mu, pos, neg = law._mixture()
    x, w = np.polynomial.legendre.leggauss(40)
    edges = np.linspace(-9, 9, 37)
    z = ((edges[1:, None] - edges[:-1, None]) / 2 * x + (edges[1:, None] + edges[:-1, None]) / 2).ravel()
    wz = (np.diff(edges)[:, None] / 2 * w).ravel() * stats.norm.pdf(z)
    t = np.linspace(0, 1, 801)[:, None]
    h = 0.0
    for weight, mean in ((law.prevalence, pos), (1 - law.prevalence, neg)):
        s = special.expit(mean + mu * z)
        k = sum(stats.norm.pdf(t - s + 2 * j, scale=truth) + stats.norm.pdf(t + s + 2 * j, scale=truth) for j in (-1, 0, 1))
        h = h + weight * (k * (C.curve(s, slope) - s) * wz).sum(axis=1)
    assert abs(integrate.simpson(np.abs(h), x=t[:, 0]) - truth) < 1e-4
    s, y = C.draw_test_sets(50_000, 1, law, slope, 0.0, np.random.default_rng(8))
    assert abs(S.smooth_ece(s, y)[0] - truth) < 4e-3


def test_smooth_interval_is_the_basic_bootstrap_and_reproducible():
    m = methods()["ece.smooth"]
    rng = np.random.default_rng(2)
    s = rng.beta(2, 5, (3, 120))
    y = (rng.random((3, 120)) < special.expit(0.5 * special.logit(s))).astype(float)
    lo, hi = m.bounds((s, y), 0.1, rng=np.random.default_rng(1), edges=np.linspace(0, 1, 11), draws=80)
    again = m.bounds((s, y), 0.1, rng=np.random.default_rng(1), edges=np.linspace(0, 1, 11), draws=80)
    assert np.array_equal(lo, again[0]) and np.array_equal(hi, again[1])
    boot_rng = np.random.default_rng(1)
    for i in range(3):
        est = S.smooth_ece(s[i], y[i])[0]
        boot = S.resampled_smooth_ece(s[i], y[i], 80, boot_rng)
        assert lo[i] == max(2 * est - np.quantile(boot, 0.95), 0.0)
        assert hi[i] == max(2 * est - np.quantile(boot, 0.05), 0.0)
        assert lo[i] <= est <= hi[i] or lo[i] == 0.0


# --------------------------------------------------------------------------- binormal scores

LAW = C.ScoreLaw("binormal", auc=0.85, prevalence=0.2)


def test_binormal_scores_are_the_binormal_models_posterior_probabilities():
    """Simulated directly: Y ~ Bernoulli(π), x ~ N(μY, 1), s = P(Y = 1 | x) by Bayes' rule on the two normal
    densities; its quantiles are the law's within Monte Carlo error, and P(Y = 1 | s) = s."""
    rng = np.random.default_rng(11)
    mu, pi = np.sqrt(2) * stats.norm.ppf(LAW.auc), LAW.prevalence
    y = rng.random(200_000) < pi
    x = rng.standard_normal(y.size) + mu * y
    s = pi * stats.norm.pdf(x, mu) / (pi * stats.norm.pdf(x, mu) + (1 - pi) * stats.norm.pdf(x))
    q = np.array([0.05, 0.25, 0.5, 0.75, 0.95])
    mc = np.quantile(s, q)
    se = np.sqrt(q * (1 - q) / s.size) / LAW.pdf(mc)  # the sample quantile's standard error
    assert np.all(np.abs(LAW.ppf(q) - mc) < 4 * se)
    assert np.allclose(LAW.cdf(LAW.ppf(q)), q, atol=1e-12)
    e = C.edges(8, "equal_mass", LAW)
    assert np.allclose(np.diff(LAW.cdf(e)), 1 / 8, atol=1e-12)
    inside = (s > e[3]) & (s <= e[4])
    assert abs(y[inside].mean() - s[inside].mean()) < 4 * np.sqrt(0.25 / inside.sum())  # calibrated


def test_binormal_score_moments():
    """E[s] = π (a calibrated classifier's mean score is the prevalence) by quadrature and by simulation;
    Var(s) by quadrature and simulation within 4 MCSE; the density integrates to 1."""
    mass = integrate.quad(LAW.pdf, 0, 1, limit=400, points=[1e-3, 0.01, 0.1])[0]
    mean = integrate.quad(lambda s: s * LAW.pdf(s), 0, 1, limit=400, points=[1e-3, 0.01, 0.1])[0]
    second = integrate.quad(lambda s: s * s * LAW.pdf(s), 0, 1, limit=400, points=[1e-3, 0.01, 0.1])[0]
    assert abs(mass - 1) < 1e-8 and abs(mean - LAW.prevalence) < 1e-8
    s = LAW.draw(np.random.default_rng(12), 400_000)
    assert abs(s.mean() - LAW.prevalence) < 4 * s.std() / np.sqrt(s.size)
    var = second - mean ** 2
    assert abs(s.var() - var) < 4 * np.sqrt(np.var((s - s.mean()) ** 2) / s.size)
    w, f, m = C.bin_moments(5, "equal_width", LAW, 1.0, 0.0)
    assert abs(w.sum() - 1) < 1e-9 and np.allclose(f, m, atol=1e-9)  # perfect curve: frequency = mean score


def test_binormal_point_monte_carlo_within_four_mcse_of_exact_and_a_one_line_error():
    point = dict(n=80, bins=5, bin=2, scores="binormal", auc=0.85, prevalence=0.2, slope=0.6)
    exact = coverage("wilson", design="calibration", **point)
    mc = coverage("wilson", design="calibration", reps=5000, seed=7, **point)
    assert abs(mc.coverage - exact.coverage) <= 4 * max(mc.mcse, 1e-3), (mc, exact)
    with pytest.raises(ValueError, match="auc must be"):
        coverage("wilson", design="calibration", n=80, bins=5, bin=2, scores="binormal", auc=0.3)
