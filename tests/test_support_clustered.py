"""The clustered design's exact engine on the support (designs/clustered.support_pmf) against the
full convolution (total_pmf): the same measures to within the stated bound (support.BOUND).

Both read the cluster pmf ``betabinomial_pmf`` (scipy's betabinom is off by up to 5e-7 relative
at small icc), so the comparisons measure the cuts; ``betabinomial_pmf`` is checked against exact
rational arithmetic."""

import math
from fractions import Fraction

import numpy as np
import pytest

from covstudy import coverage
from covstudy.engine.core import clear_cache
from covstudy.designs import clustered
from covstudy.designs.clustered import beta_parameters, betabinomial_pmf, support_pmf, support_size, total_pmf

BOUND = clustered.BOUND
MEASURES = ("coverage", "miss_low", "miss_high", "mean_width", "sd_width")
PS = [0.0, 1e-9, 0.02, 0.5, 0.9, 0.999, 1.0]
ICCS = [0.0, 0.01, 0.3, 0.9]
P, ICC = (a.ravel() for a in np.meshgrid(PS, ICCS, indexing="ij"))


def _measures(monkeypatch, trim_from, method, m, s, **kw):
    monkeypatch.setattr(clustered, "TRIM_FROM", trim_from)
    clear_cache()
    r = coverage(method, design="clustered", clusters=m, cluster_size=s, p=P, icc=ICC, **kw)
    clear_cache()
    return np.array([np.atleast_1d(getattr(r, name)) for name in MEASURES])


def _tolerance(m, s):
    """BOUND, plus the full convolution's own rounding: its mass drifts from 1 by the rounding of
    every step (support_pmf rescales every step to sum 1), plus the rounding of the sums (5e-15,
    as for the binomial's support)."""
    mass = np.array([total_pmf(m, s, p, r).sum() for p, r in zip(P, ICC)])
    return BOUND + np.abs(mass - 1) + 5e-15


def assert_within(trimmed, full, tol):
    """Weighted means of numbers in [0, 1] move by at most tol; the width's sd by its square
    (a difference of two such means), as in tests/test_support.py."""
    assert np.all(np.abs(trimmed[:4] - full[:4]) <= tol)
    assert np.all(np.abs(trimmed[4] ** 2 - full[4] ** 2) <= 2 * tol)


def _exact_betabinomial(s, p, icc):
    """C(s, j)·Π(α + i, i < j)·Π(β + i, i < s - j)/Π(α + β + i, i < s) in rational arithmetic."""
    a, b = (Fraction(v) for v in beta_parameters(p, icc))
    den = math.prod((a + b + i for i in range(s)), start=Fraction(1))
    return np.array([float(math.comb(s, j) * math.prod((a + i for i in range(j)), start=Fraction(1))
                           * math.prod((b + i for i in range(s - j)), start=Fraction(1)) / den) for j in range(s + 1)])


@pytest.mark.parametrize("s, p, icc", [(1, 0.3, 0.2), (10, 0.5, 1e-12), (20, 0.9, 0.01), (50, 0.3, 0.5),
                                       (100, 0.999, 0.9), (30, 0.01, 1e-4), (120, 0.7, 1e-8), (7, 1e-6, 0.999)])
def test_betabinomial_pmf_matches_rational_arithmetic(s, p, icc):
    exact = _exact_betabinomial(s, p, icc)
    ours = betabinomial_pmf(s, p, icc)
    big = exact > 1e-280
    assert np.allclose(ours[big], exact[big], rtol=5e-14, atol=0)
    assert np.all(ours[~big] < 1e-270)
    assert math.fsum(ours) == pytest.approx(1, abs=1e-15)


@pytest.mark.parametrize("method", ["wald", "wilson", "clopper_pearson", "wilson_deff"])
@pytest.mark.parametrize("m, s", [(2, 1), (7, 3), (40, 20), (333, 5)])
def test_support_equals_full_convolution(monkeypatch, method, m, s):
    full = _measures(monkeypatch, 10**9, method, m, s)
    trimmed = _measures(monkeypatch, 0, method, m, s)
    assert_within(trimmed, full, _tolerance(m, s))


def test_support_one_sided_and_delta(monkeypatch):
    kw = {"delta": 0.2, "side": "lower"}
    full = _measures(monkeypatch, 10**9, "jeffreys", 40, 20, **kw)
    trimmed = _measures(monkeypatch, 0, "jeffreys", 40, 20, **kw)
    assert_within(trimmed, full, _tolerance(40, 20))


def test_a_looser_cut_fails_the_comparison(monkeypatch):
    full = _measures(monkeypatch, 10**9, "wilson", 40, 20)
    monkeypatch.setattr(clustered, "BOUND", 1e-6)
    loose = _measures(monkeypatch, 0, "wilson", 40, 20)
    with pytest.raises(AssertionError):
        assert_within(loose, full, _tolerance(40, 20))


@pytest.mark.parametrize("m, s, p, icc", [(700, 30, 0.6, 0.3), (21_000, 1, 0.3, 0.2), (101, 200, 0.999, 0.6),
                                          (401, 60, 1e-6, 0.01), (5001, 5, 0.02, 0.01)])
def test_beyond_the_old_limit_the_support_is_the_full_convolution_cut(m, s, p, icc):
    # m·s >= 20,000: the engine's own path, against the full convolution (still feasible here)
    full = total_pmf(m, s, p, icc)
    full = full / full.sum()
    lo, pmf = support_pmf(m, s, p, icc)
    inside = full[lo:lo + pmf.size]
    assert full.sum() - inside.sum() < BOUND  # what is left out
    assert np.abs(inside - pmf).sum() < BOUND + 5e-15  # and what is kept
    assert pmf.size <= support_size(m, s, p, icc) < m * s / 5  # the check's count bounds it; a support, not the table


def test_support_has_the_beta_binomial_moments_at_ten_million():
    m, s, p, icc = 10**6, 10, 0.9, 0.01
    lo, pmf = support_pmf(m, s, p, icc)
    k = np.arange(lo, lo + pmf.size, dtype=float)
    mean = pmf @ k
    assert pmf.sum() == pytest.approx(1, abs=1e-14)
    assert mean == pytest.approx(m * s * p, rel=1e-13)
    assert pmf @ (k - mean) ** 2 == pytest.approx(m * s * p * (1 - p) * (1 + (s - 1) * icc), rel=1e-9)


def test_icc_zero_at_a_billion_is_the_binomial_design():
    ours = coverage("wilson", design="clustered", clusters=10**8, cluster_size=10, p=0.3, icc=0.0)
    binomial = coverage("wilson", n=10**9, p=0.3)
    assert ours.coverage == pytest.approx(binomial.coverage, abs=1e-14)
    oracle = coverage("wilson_deff", design="clustered", clusters=10**6, cluster_size=10, p=0.9, icc=0.01)
    assert abs(oracle.coverage - 0.95) < 0.002


@pytest.mark.parametrize("kwargs, message", [
    ({"clusters": 100_000, "cluster_size": 1000},
     r"^clusters, cluster_size: exact clustered coverage needs at most 150,000 totals k carrying all but 1e-15 of "
     r"the probability, got 6\d\d,\d\d\d at clusters = 100,000, cluster_size = 1,000, p = 0.85, icc = 0.1; "
     r"use Monte Carlo \(reps=...\)$"),
    ({"clusters": 10**6, "cluster_size": 10**4, "icc": 0.0},
     r"^clusters, cluster_size: exact clustered coverage needs clusters·cluster_size <= 1,000,000,000 examples, "
     r"got 10,000,000,000$"),
    ({"clusters": 10, "cluster_size": 10**6},
     r"^cluster_size: exact clustered coverage with icc > 0 and more than 20,000 examples needs "
     r"cluster_size <= 100,000, got 1,000,000; use Monte Carlo"),
])
def test_limits_are_checked_in_one_line_before_any_work(monkeypatch, kwargs, message):
    def no_work(*args):
        raise AssertionError("work started")
    monkeypatch.setattr(clustered, "support_pmf", no_work)
    monkeypatch.setattr(clustered, "cluster_counts", no_work)
    with pytest.raises(ValueError, match=message):
        coverage("wilson", design="clustered", **{"p": 0.85, "icc": 0.1, **kwargs})


def test_monte_carlo_agrees_with_the_support_engine_beyond_the_old_limit():
    point = {"design": "clustered", "clusters": 1100, "cluster_size": 20, "p": 0.9, "icc": 0.05}
    reps = 3000
    for name in ("wilson", "clopper_pearson_deff"):
        exact = coverage(name, **point)
        mc = coverage(name, **point, reps=reps, seed=5)
        assert abs(mc.coverage - exact.coverage) <= 4 * np.sqrt(exact.coverage * (1 - exact.coverage) / reps)
    assert exact.coverage == pytest.approx(0.95, abs=0.005)  # the oracle on the true design effect
