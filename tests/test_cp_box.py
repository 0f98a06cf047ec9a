"""The Clopper–Pearson box projections (methods/cp_box.py): the box's simultaneous coverage by Monte Carlo at
edge points, the projection against a brute-force grid over the box (so coverage follows: the interval holds the
metric at every point of the box), a direct Monte Carlo of the paired kernel, and invariants by hypothesis."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from covstudy.methods import cp_box as cb
from covstudy.methods import get

Z = 3.0
NONLINEAR = ("precision", "npv", "f1")


def _cells(p_pos, prevalence, p_neg):
    """The 8 cell probabilities (positives: both, only first, only second, neither; then negatives)."""
    return np.r_[prevalence * np.asarray(p_pos, float), (1 - prevalence) * np.asarray(p_neg, float)]


PAIRED = {  # cell probabilities and n
    "typical": (_cells([0.7, 0.1, 0.05, 0.15], 0.3, [0.8, 0.05, 0.1, 0.05]), 120),
    "a perfect first model": (_cells([0.8, 0.2, 0.0, 0.0], 0.4, [0.9, 0.1, 0.0, 0.0]), 80),
    "identical models": (_cells([0.75, 0.0, 0.0, 0.25], 0.5, [0.85, 0.0, 0.0, 0.15]), 60),
    "tiny n": (_cells([0.4, 0.2, 0.2, 0.2], 0.5, [0.4, 0.2, 0.2, 0.2]), 12),
    "rare positives": (_cells([0.6, 0.2, 0.1, 0.1], 0.05, [0.9, 0.03, 0.04, 0.03]), 300),
    "opposite models": (_cells([0.0, 0.5, 0.5, 0.0], 0.5, [0.0, 0.5, 0.5, 0.0]), 40),
}


def _truth(metric, cells):
    """metric(first) - metric(second) at the cell probabilities, through (π, t₁, t₂, n₁, n₂)."""
    pi = cells[:4].sum()
    pos, neg = cells[:4] / pi, cells[4:] / (1 - pi)
    return float(cb.rate(metric, pos[0] + pos[1], neg[0] + neg[1], pi) - cb.rate(metric, pos[0] + pos[2], neg[0] + neg[2], pi))


def _box(x, k, delta):
    level = (1 - delta) ** (1 / k)
    return cb.cp(x[:4].sum(0), x.sum(0), level), cb._shares(*x[:4], level), cb._shares(*x[4:], level)


@pytest.mark.parametrize("point", PAIRED)
def test_the_paired_box_holds_every_coordinate_at_least_nominally(point):
    cells, n = PAIRED[point]
    pi = cells[:4].sum()
    shares = []
    for c in (cells[:4] / pi, cells[4:] / (1 - pi)):
        d = c[1] + c[2]
        shares.append((d, c[1] / d if d else 0.5, c[0] / (c[0] + c[3]) if c[0] + c[3] else 0.5))
    x = np.random.default_rng(len(point)).multinomial(n, cells, size=2500).T.astype(float)
    for delta, k in ((0.05, 7), (0.3, 7), (0.3, 3)):
        (plo, phi), pos, neg = _box(x, k, delta)
        held = (plo <= pi) & (pi <= phi) if k == 7 else np.ones(x.shape[1], bool)
        for (lo_hi, truth) in zip(pos + (neg if k == 7 else ()), shares[0] + (shares[1] if k == 7 else ())):
            held &= (lo_hi[0] <= truth + 1e-12) & (truth - 1e-12 <= lo_hi[1])
        c = held.mean()
        assert c >= 1 - delta - Z * math.sqrt(max(c * (1 - c), 1e-4) / held.size), (point, delta, k, c)


def _grid_range(metric, x, delta, G=7):
    """min and max of the difference over a G^7 grid of the box (points inside it: never beyond the range)."""
    k = {"recall": 2, "specificity": 2, "balanced_accuracy": 4, "accuracy": 5}.get(metric, 7)
    (plo, phi), pos, neg = _box(x.astype(float), k, delta)
    g = lambda iv: np.linspace(float(iv[0]), float(iv[1]), G)  # noqa: E731
    P, D1, R1, S1, D2, R2, S2 = np.meshgrid(g((plo, phi)), *(g(v) for v in pos), *(g(v) for v in neg),
                                            indexing="ij", sparse=True)
    t1, t2, n1, n2 = S1 + D1 * (R1 - S1), S1 + D1 * (1 - R1 - S1), S2 + D2 * (R2 - S2), S2 + D2 * (1 - R2 - S2)
    v = cb.rate(metric, t1, n1, P) - cb.rate(metric, t2, n2, P)
    return float(v.min()), float(v.max())


@pytest.mark.parametrize("metric", NONLINEAR)
def test_the_paired_projection_holds_a_brute_force_grid_of_the_box(metric):
    rng = np.random.default_rng(5)
    for _ in range(6):
        x = rng.multinomial(int(rng.integers(10, 200)), rng.dirichlet(np.ones(8)))
        lo, hi = (float(v) for v in cb.pm_cp_box(*x, 0.1, metric=metric))
        g_lo, g_hi = _grid_range(metric, x, 0.1)
        assert lo <= g_lo + 1e-12 and g_hi - 1e-12 <= hi  # a proven outer bound: every point of the box inside
        assert g_lo - lo <= 0.06 and hi - g_hi <= 0.06, (x, lo, g_lo, hi, g_hi)


def test_the_linear_differences_are_the_exact_mcnemar_intervals():
    from covstudy.methods.melded import paired_exact_mcnemar

    rng = np.random.default_rng(8)
    same = lambda a, b: np.allclose(np.ravel(a), np.ravel(b), atol=1e-12, rtol=0)  # noqa: E731
    for _ in range(5):
        x = rng.multinomial(int(rng.integers(5, 150)), rng.dirichlet(np.ones(8)))
        assert same(cb.pm_cp_box(*x, 0.1, metric="recall"), paired_exact_mcnemar(*x[:4], 0.1))
        assert same(cb.pm_cp_box(*x, 0.1, metric="specificity"), paired_exact_mcnemar(*x[4:], 0.1))
        assert same(cb.pm_cp_box(*x, 0.1, metric="accuracy"), paired_exact_mcnemar(*(x[:4] + x[4:]), 0.1))
        half = 1 - math.sqrt(0.9)
        (a, b), (c, d) = paired_exact_mcnemar(*x[:4], half), paired_exact_mcnemar(*x[4:], half)
        assert same(cb.pm_cp_box(*x, 0.1, metric="balanced_accuracy"), ((a + c) / 2, (b + d) / 2))


def _unpaired_truth(metric, a, b):
    return float(cb.rate(metric, *a) - cb.rate(metric, *b))


@pytest.mark.parametrize("metric", ("recall", "precision", "npv", "f1", "balanced_accuracy"))
def test_unpaired_box_covers_at_edge_points(metric):
    # (tpr, tnr, prevalence) of each test set, and sizes: typical, perfect, tiny, rare positives, equal models
    for (a, b, n1, n2) in (((0.8, 0.9, 0.3), (0.7, 0.95, 0.3), 100, 150), ((1.0, 1.0, 0.5), (0.9, 0.8, 0.5), 40, 40),
                           ((0.5, 0.5, 0.5), (0.5, 0.5, 0.5), 6, 8), ((0.9, 0.97, 0.05), (0.8, 0.99, 0.05), 400, 300),
                           ((0.6, 0.6, 0.9), (0.6, 0.6, 0.9), 50, 50), ((0.0, 1.0, 0.2), (1.0, 0.0, 0.2), 30, 30)):
        rng = np.random.default_rng(11)
        x = []
        for (t, s, p), n in ((a, n1), (b, n2)):
            pr = [p * t, p * (1 - t), (1 - p) * (1 - s), (1 - p) * s]
            x += list(rng.multinomial(n, pr, size=2000).T)
        lo, hi = cb.um_cp_box(*x, 0.3, metric=metric)
        truth = _unpaired_truth(metric, a, b)
        c = float(np.mean((lo <= truth + 1e-12) & (truth <= hi + 1e-12)))
        assert c >= 0.7 - Z * math.sqrt(max(c * (1 - c), 1e-4) / 2000), (metric, a, b, c)


def test_judged_box_covers_at_edge_points():
    # p, sensitivity and specificity of the judge, N examples, n of them human-labelled
    for p, se, sp, N, n in ((0.3, 0.9, 0.9, 2000, 100), (0.05, 0.99, 0.99, 5000, 200), (0.5, 0.5, 0.5, 50, 10),
                            (0.0, 0.9, 0.95, 500, 50), (1.0, 0.9, 0.95, 500, 50), (0.2, 1.0, 1.0, 300, 20)):
        rng = np.random.default_rng(12)
        y = rng.uniform(size=(1000, N)) < p
        j = np.where(y, rng.uniform(size=y.shape) < se, rng.uniform(size=y.shape) > sp)
        lab = np.zeros(N, bool)
        lab[:n] = True  # a random sample: the examples are exchangeable
        count = lambda mask: mask.sum(axis=1)  # noqa: E731
        tp, fn = count(y & j & lab), count(y & ~j & lab)
        fp, tn = count(~y & j & lab), count(~y & ~j & lab)
        u_pos, u_neg = count(j & ~lab), count(~j & ~lab)
        for delta in (0.05, 0.3):
            lo, hi = cb.judged_cp_box(tp, fn, fp, tn, u_pos, u_neg, delta)
            c = float(np.mean((lo <= p + 1e-12) & (p <= hi + 1e-12)))
            assert c >= 1 - delta - Z * math.sqrt(max(c * (1 - c), 1e-4) / 1000), (p, se, sp, delta, c)


def test_judged_and_unpaired_corners_against_a_brute_force_grid():
    rng = np.random.default_rng(3)
    for _ in range(10):
        tp, fn, fp, tn, u_pos, u_neg = rng.integers(0, 30, 6)
        u_pos += 1
        lo, hi = (float(v) for v in cb.judged_cp_box(tp, fn, fp, tn, u_pos, u_neg, 0.1))
        level = 0.9 ** (1 / 3)
        boxes = [cb.cp(tp + fp + u_pos, tp + fn + fp + tn + u_pos + u_neg, level), cb.cp(tp, tp + fp, level),
                 cb.cp(fn, fn + tn, level)]
        vals = [q * a + (1 - q) * b for q, a, b in itertools.product(*(np.linspace(float(l), float(h), 9) for l, h in boxes))]
        assert lo == pytest.approx(min(vals), abs=1e-12) and hi == pytest.approx(max(vals), abs=1e-12)


cells8 = st.lists(st.integers(0, 15), min_size=8, max_size=8).filter(lambda x: sum(x[:4]) > 0 and sum(x[4:]) > 0)


@settings(max_examples=30, deadline=None)
@given(x=cells8, d1=st.floats(0.01, 0.5), d2=st.floats(0.01, 0.5), metric=st.sampled_from(("balanced_accuracy",) + NONLINEAR))
def test_property_paired_contains_estimate_nested_in_delta(x, d1, d2, metric):
    from covstudy.methods.paired_metrics import difference

    est = float(difference(metric, np.array(x, dtype=float)))
    (wl, wh), (nl, nh) = ((float(v) for v in cb.pm_cp_box(*x, d, metric=metric)) for d in (min(d1, d2), max(d1, d2)))
    assert -1 <= wl <= nl + 0.05 and nh <= wh + 0.05 and wh <= 1  # nested up to the branch and bound's slack
    if est == est:
        assert nl <= est + 1e-12 and est - 1e-12 <= nh


def test_registered_guaranteed_and_listed_for_their_metrics():
    from covstudy.evaluation.metrics import _methods

    for qualified in ("paired_metric.cp_box", "unpaired_metric.cp_box", "judged.cp_box"):
        assert get(qualified).guaranteed and get(qualified).family == "exact"
    for metric in ("precision_difference", "npv_difference", "f1_difference", "balanced_accuracy_difference"):
        assert "paired_metric.cp_box" in [q for _, _, q in _methods("paired_confusion", metric)]
