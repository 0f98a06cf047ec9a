"""The calibration design and methods (issue 46): the bins' true frequencies against closed forms and
an independent Gauss–Legendre rule, the (k, m) law against a brute-force multinomial enumeration,
Monte Carlo within 4 MCSE of exact, and the methods against their formulas and scikit-learn."""

import itertools
import math

import numpy as np
import pytest
from scipy import special, stats

from covstudy import coverage
from covstudy.designs import calibration as C


def _legendre(g, lo, hi, nodes=400):
    x, w = np.polynomial.legendre.leggauss(nodes)
    s = (hi - lo) / 2 * x + (hi + lo) / 2
    return float(np.sum(w * g(s)) * (hi - lo) / 2)


@pytest.mark.parametrize("binning", C.BINNINGS)
@pytest.mark.parametrize("a, b, slope, intercept", [(2, 2, 1, 0), (2, 5, 0.5, 0.3), (0.7, 1.3, 2.0, -0.5)])
def test_bin_moments_against_closed_forms_and_legendre(binning, a, b, slope, intercept):
    w, f, m = C.bin_moments(6, binning, float(a), float(b), float(slope), float(intercept))
    e = C.edges(6, binning, a, b)
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
        assert np.allclose(f, m, atol=1e-12) and C.true_ece(a, b, 1.0, 0.0) < 1e-12


def test_ece_truths_ordered_and_against_a_riemann_sum():
    for a, b, slope, intercept in [(2, 2, 0.5, 0.0), (2, 5, 1.7, 0.4), (1, 1, 0.8, -0.3)]:
        s = (np.arange(200_000) + 0.5) / 200_000
        ref = np.mean(np.abs(C.curve(s, slope, intercept) - s) * stats.beta.pdf(s, a, b))
        ece = C.true_ece(a, b, slope, intercept)
        assert abs(ece - ref) < 1e-6
        for bins in (1, 5, 20):
            assert C.true_ece_binned(bins, "equal_width", a, b, slope, intercept) <= ece + 1e-12  # Jensen
        assert abs(C.true_ece_binned(200, "equal_mass", a, b, slope, intercept) - ece) < 5e-3


def test_bin_outcomes_equal_a_brute_force_multinomial():
    """(k, m) of bin 2 of 3 from every assignment of n = 5 examples to the 6 cells bin × label."""
    n, (w, f, _) = 5, C.bin_moments(3, "equal_width", 2.0, 3.0, 0.6, 0.2)
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
                                   dict(n=30, bins=4, bin=3, binning="equal_mass", a=2.0, b=5.0, slope=2.0)])
def test_monte_carlo_within_four_mcse_of_exact(point):
    for method in ("clopper_pearson", "wilson"):
        exact = coverage(method, design="calibration", **point)
        mc = coverage(method, design="calibration", reps=6000, seed=3, **point)
        assert abs(mc.coverage - exact.coverage) <= 4 * max(mc.mcse, 1e-3), (method, mc, exact)


def test_bad_bin_refused_in_one_line():
    with pytest.raises(ValueError, match="bin: the bin must be one of 1..bins = 5"):
        coverage("wilson", design="calibration", n=10, bins=5, bin=6)
