"""The guaranteed ECE interval (methods/ece_guaranteed.py): Monte Carlo coverage of its estimand at edge
points (empty and near-empty bins, rates 0 and 1, tiny n, one bin), the box's range against a brute-force
grid, invariants by hypothesis, and its row in covstudy-evaluate's calibration table."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from covstudy.methods import calibration as cal
from covstudy.methods import ece_guaranteed as eg
from covstudy.methods import get

Z = 3.0


def _draw(rng, reps, n, mass, rate, B):
    """Test sets whose scores fall in bin j with probability mass[j] (uniform within it) and whose labels
    are Bernoulli(rate[j]) there: the bin's true frequency f_j = rate[j]."""
    j = rng.choice(B, (reps, n), p=np.asarray(mass) / np.sum(mass))
    s = (j + rng.uniform(0.001, 0.999, (reps, n))) / B
    y = (rng.uniform(size=(reps, n)) < np.asarray(rate)[j]).astype(float)
    return s, y


def _conditional_ece(s, y, rate, edges):
    """The estimand Σ_j (m_j/n)|s̄_j - f_j| of each test set (row)."""
    m, _, S = cal.bin_stats(s, y, edges)
    return np.sum(np.abs(S - m * np.asarray(rate)), axis=-1) / m.sum(axis=-1)


POINTS = {  # n, mass per bin, the true frequency per bin
    "calibrated, 10 bins": (60, [1] * 10, (np.arange(10) + 0.5) / 10),
    "empty and near-empty bins": (40, [30, 0, 0, 0.3, 0, 0, 0.3, 0, 0, 30], [0.05, 0, 0, 0.5, 0, 0, 0.1, 0, 0, 0.9]),
    "rates 0 and 1": (50, [1] * 10, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]),
    "tiny n": (5, [1] * 10, (np.arange(10) + 0.5) / 10),
    "miscalibrated, 5 bins": (200, [1, 2, 3, 2, 1], [0.3, 0.2, 0.5, 0.9, 0.6]),
    "one bin": (30, [0, 0, 0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0.4, 0, 0, 0]),
}


@pytest.mark.parametrize("point", POINTS)
def test_coverage_of_the_conditional_ece_at_least_nominal(point):
    n, mass, rate = POINTS[point]
    B = len(mass)
    edges = np.linspace(0, 1, B + 1)
    s, y = _draw(np.random.default_rng(len(point)), 2000, n, mass, rate, B)
    truth = _conditional_ece(s, y, rate, edges)
    for delta in (0.05, 0.5):
        lo, hi = eg.ece_clopper_pearson_sidak(s, y, delta, edges=edges)
        c = float(np.mean((lo <= truth + 1e-12) & (truth <= hi + 1e-12)))
        assert c >= 1 - delta - Z * math.sqrt(max(c * (1 - c), 1e-4) / truth.size), (point, delta, c)


def test_box_range_against_a_brute_force_grid():
    """min and max of Σ w_j|s̄_j - f_j| over a fine grid of the box: never beyond the exact range, and close."""
    rng = np.random.default_rng(7)
    edges = np.linspace(0, 1, 4)
    for _ in range(20):
        s, y = _draw(rng, 1, int(rng.integers(3, 25)), rng.uniform(0.1, 1, 3), rng.uniform(0, 1, 3), 3)
        m, k, S = cal.bin_stats(s, y, edges)
        lo_b, hi_b = cal.bin_intervals("clopper_pearson", k, m, 1 - 0.9 ** (1 / max((m > 0).sum(), 1)))
        grids = [np.linspace(a, b, 41) for a, b in zip(lo_b[0], hi_b[0])]
        w, sbar = m[0] / m.sum(), S[0] / np.maximum(m[0], 1)
        values = [sum(wj * abs(sj - f) for wj, sj, f in zip(w, sbar, fs)) for fs in itertools.product(*grids)]
        lo, hi = (float(v[0]) for v in eg.box_ece(m, k, S, np.array([0.1])))
        assert lo <= min(values) + 1e-12 and hi >= max(values) - 1e-12
        assert min(values) - lo < 0.03 and hi - max(values) < 1e-12  # the max sits at a corner: on the grid


@settings(max_examples=50, deadline=None)
@given(data=st.data(), n=st.integers(1, 30), d1=st.floats(0.01, 0.6), d2=st.floats(0.01, 0.6))
def test_property_contains_the_plug_in_nested_in_delta_within_range(data, n, d1, d2):
    s = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)))
    edges = np.linspace(0, 1, 11)
    plug = float(cal.plugin_ece(*cal.bin_stats(s, y, edges))[0])
    (wl, wh), (nl, nh) = ((float(v[0]) for v in eg.ece_clopper_pearson_sidak(s, y, d, edges=edges))
                          for d in (min(d1, d2), max(d1, d2)))
    assert 0 <= wl <= nl <= plug + 1e-12 and plug - 1e-12 <= nh <= wh <= 1


def test_registered_guaranteed_and_read_as_every_ece_kernel():
    m = get("clopper_pearson_sidak", "calibration")
    assert m.guaranteed and m.family == "exact"
    s, y = np.array([[0.1, 0.8, 0.85]]), np.array([[0.0, 1.0, 0.0]])
    edges = np.linspace(0, 1, 11)
    assert np.allclose(m.bounds((s, y), 0.05, rng=None, edges=edges, draws=1000), eg.box_ece(*cal.bin_stats(s, y, edges), np.array(0.05)))


def test_evaluate_recommends_the_guaranteed_row_when_asked_or_when_the_debiased_falls_short():
    import pandas as pd

    from covstudy.evaluation import calibration as ev
    from types import SimpleNamespace

    rng = np.random.default_rng(1)
    s = rng.beta(0.3, 0.3, 300)
    y = (rng.uniform(size=300) < s).astype(np.int64)
    d = SimpleNamespace(scores=s, truth=y, n=300, binary=True)  # what calibration.add reads of the Data
    for guarantee in (False, True):
        reasons, info = {}, {}
        table = ev.add(d, 0.05, 0, pd.DataFrame(), reasons, info, audit=False, guarantee=guarantee)
        assert list(table.method) == ["debiased", "plugin", "clopper_pearson_sidak"]
        assert table.recommended.tolist() == [not guarantee, False, guarantee]
        g = table[table.method == "clopper_pearson_sidak"].iloc[0]
        assert g.lower <= g.estimate <= g.upper
