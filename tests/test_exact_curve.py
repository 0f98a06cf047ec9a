"""confidence_coefficient and average_coverage against brute force, for every proportion method."""

import math

import numpy as np
import pytest
from numpy.polynomial.legendre import leggauss

from covstudy import average_coverage, confidence_coefficient, methods
from covstudy.designs.binomial import binomial_pmf
from covstudy.engine.exact_curve import ends, infimum
from covstudy.engine.measures import measures

EPS = 1e-11  # distance of the brute-force points from each end


def coverage_at(lower, upper, n, p):
    """C(p) by the exact engine's measures (an independent path: pmf of the design, measures.py)."""
    return measures(binomial_pmf(n, p), lower, upper, p)


def brute_minimum(lower, upper, n, lo=0.0, hi=1.0):
    """min of C over both sides of every end and a dense grid, inside [lo, hi]."""
    e = np.unique(np.concatenate([lower, upper, [lo, hi]]))
    p = np.concatenate([e - EPS, e, e + EPS, np.linspace(lo, hi, 1001)])
    p = p[(p > max(lo, 0.0)) & (p < min(hi, 1.0))]
    c = coverage_at(lower, upper, n, p)["coverage"]
    return float(c.min()), float(p[np.argmin(c)])


def brute_average(lower, upper, n, lo=0.0, hi=1.0):
    """Gauss-Legendre quadrature of C, mean width and miss rates on every piece between ends:
    each is a polynomial of degree n there, integrated exactly by ceil((n + 1)/2) nodes."""
    e = np.unique(np.concatenate([lower, upper, [lo, hi]]))
    e = e[(e >= lo) & (e <= hi)]
    x, w = leggauss(math.ceil((n + 1) / 2))
    a, b = e[:-1, None], e[1:, None]
    p = ((a + b) / 2 + (b - a) / 2 * x).ravel()
    weight = ((b - a) / 2 * w).ravel()
    r = coverage_at(lower, upper, n, p)
    return {name: float(np.sum(weight * r[name]) / (hi - lo))
            for name in ("coverage", "mean_width", "miss_low", "miss_high")}


CASES = [(n, delta) for n in (1, 12, 50) for delta in (0.01, 0.05, 0.2)] + [(103, 1 / 64)]


@pytest.mark.parametrize("method", list(methods("proportion")))
def test_confidence_coefficient_matches_brute_force(method):
    for n, delta in CASES:
        for side in ("two-sided", "lower", "upper"):
            r = confidence_coefficient(method, n, delta, side)
            *_, lower, upper = ends(method, n, delta, side)
            value, where = brute_minimum(lower, upper, n)
            # the exact infimum is a one-sided limit: never above any evaluated point, and
            # within the slope times EPS of the nearest one
            assert r.value <= value + 1e-9, (method, n, delta, side, r, value, where)
            assert r.value >= value - 1e-6, (method, n, delta, side, r, value, where)
            assert r.side in ("left", "right", "at") and 0 <= r.at <= 1
            limit = coverage_at(lower, upper, n, np.array([r.at + {"left": -EPS, "right": EPS, "at": 0}[r.side]]))
            assert abs(limit["coverage"][0] - r.value) < 1e-6


@pytest.mark.parametrize("method", list(methods("proportion")))
def test_average_coverage_matches_quadrature(method):
    for n, delta in CASES[:6]:
        for side in ("two-sided", "upper"):
            for p_range in ((0.0, 1.0), (0.1, 0.35)):
                r = average_coverage(method, n, delta, side, p_range=p_range)
                *_, lower, upper = ends(method, n, delta, side)
                q = brute_average(lower, upper, n, *p_range)
                assert abs(r.value - q["coverage"]) < 1e-12, (method, n, delta, side, p_range)
                assert abs(r.mean_width - q["mean_width"]) < 1e-12
                assert abs(r.miss_low - q["miss_low"]) < 1e-12 and abs(r.miss_high - q["miss_high"]) < 1e-12
                assert abs(r.value + r.miss_low + r.miss_high - 1) < 1e-12


def test_average_width_over_unit_interval_is_the_mean_width():
    *_, lower, upper = ends("blaker", 30)
    assert average_coverage("blaker", 30).mean_width == pytest.approx(np.mean(upper - lower), abs=1e-14)


def test_guaranteed_methods_never_below_nominal():
    for name, m in methods("proportion").items():
        if m.guaranteed:
            for side in ("two-sided", "lower"):
                for n in (5, 40, 333):
                    assert confidence_coefficient(name, n, 0.05, side).value >= 0.95 - 1e-12, (name, n, side)


def test_wilson_infimum_tends_to_its_poisson_limit():
    # For large n near p = λ/n, k = 0 covers up to λ ≈ z² and k = 1 from λ₁, the root of
    # (1 - λ)² = z²λ: λ₁ = 1 + z²/2 - z·sqrt(1 + z²/4). Just below λ₁ only k = 0 covers, so
    # the confidence coefficient tends to exp(-λ₁) = 0.83818 at delta = 0.05 (the dip next to 0
    # that Brown, Cai & DasGupta 2001 describe for the Wilson interval).
    z = 1.959963984540054
    lam = 1 + z * z / 2 - z * math.sqrt(1 + z * z / 4)
    r = confidence_coefficient("wilson", 20_000, 0.05)
    assert r.value == pytest.approx(math.exp(-lam), abs=2e-5)
    # symmetric method: the dip next to 0 and its mirror next to 1 tie up to rounding
    assert min(r.at, 1 - r.at) * 20_000 == pytest.approx(lam, rel=1e-3) and r.side in ("left", "right")


def test_wald_infimum_is_zero_next_to_the_boundary():
    r = confidence_coefficient("wald", 50)  # k = 0 gives [0, 0]: C(p) -> 0 as p -> 0
    assert (r.value, r.at, r.side) == (0.0, 0.0, "right")


def test_attained_versus_limit():
    # n = 1: C(p) = (1 - p)·1[k = 0 covers] + p·1[k = 1 covers]
    never, k1 = [1.0, 0.2], [1.0, 0.6]  # k = 0 never covers in (0, 1); k = 1 covers [0.2, 0.6]
    value, at, side, count, _ = infimum(np.array(never), np.array(k1), 1, 0.3, 0.5)
    assert (value, at, side, count) == (pytest.approx(0.3), 0.3, "at", 0)  # C = p, 0.3 is no end
    value, at, side, _, _ = infimum(np.array(never), np.array(k1), 1, 0.5, 0.7)
    assert (value, at, side) == (0.0, 0.6, "right")  # C(0.6) = 0.6, but 0 just above U(1) = 0.6
    # k = 0 covers [0, 0.5], k = 1 covers [0.5, 1]: C = 1 - p then p; C(0.5) = 1
    value, at, side, count, _ = infimum(np.array([0.0, 0.5]), np.array([0.5, 1.0]), 1)
    assert (value, at, side, count) == (pytest.approx(0.5), 0.5, "left", 1)


def test_non_contiguous_covering_sets_are_searched():
    # Random, non-monotone intervals: covering sets with holes, minima inside a piece.
    rng = np.random.default_rng(16)
    irregular = 0
    for _ in range(20):
        n = int(rng.integers(2, 9))
        a, b = rng.uniform(size=(2, n + 1))
        lower, upper = np.minimum(a, b), np.maximum(a, b)
        value, _, _, _, bad = infimum(lower, upper, n)
        irregular += bad
        e = np.unique(np.concatenate([lower, upper, [0, 1]]))
        p = np.concatenate([e - EPS, e + EPS, np.linspace(0, 1, 50_001)])
        p = p[(p > 0) & (p < 1)]
        c = coverage_at(lower, upper, n, p)["coverage"]
        assert c.min() - 1e-7 <= value <= c.min() + 1e-9, (n, lower, upper, value, c.min())
    assert irregular > 0


def test_logit_has_non_contiguous_pieces():
    assert confidence_coefficient("logit", 103, 1 / 64).irregular > 0


def test_p_range_and_single_point():
    full = confidence_coefficient("wilson", 50)
    inner = confidence_coefficient("wilson", 50, p_range=(0.1, 0.9))
    assert inner.value >= full.value and 0.1 <= inner.at <= 0.9
    *_, lower, upper = ends("wilson", 50)
    assert inner.value == pytest.approx(brute_minimum(lower, upper, 50, 0.1, 0.9)[0], abs=1e-6)
    point = confidence_coefficient("wilson", 50, p_range=(0.3, 0.3))
    assert point.value == pytest.approx(coverage_at(lower, upper, 50, np.array([0.3]))["coverage"][0], abs=1e-15)
    assert average_coverage("wilson", 50, p_range=(0.3, 0.3)).value == pytest.approx(point.value, abs=1e-14)


@pytest.mark.parametrize("bad, message", [
    ({"n": 0}, "n must be >= 1"), ({"delta": 1.5}, "delta"), ({"side": "both"}, "side"),
    ({"p_range": (0.5, 0.2)}, "lo <= hi"), ({"p_range": (0, 2)}, "p_range"), ({"method": "nope"}, "unknown"),
])
def test_bad_input_is_one_line(bad, message):
    args = {"method": "wilson", "n": 10} | bad
    for f in (confidence_coefficient, average_coverage):
        with pytest.raises(ValueError, match=message):
            f(**args)
