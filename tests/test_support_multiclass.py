"""The multiclass exact engines on the support (designs/multiclass.support_outcomes) against the full
enumeration: the same measures to within support.BOUND, for each need (trace, diagonal, whole matrix)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from covstudy.engine import core
from covstudy import coverage, multiclass_coverage
from covstudy.engine.core import clear_cache
from covstudy.designs import multiclass as mc
from covstudy.designs.support import BOUND

MEASURES = ("coverage", "miss_low", "miss_high", "mean_width", "sd_width")
# the full engine's pmf (exp of gammaln sums, renormalised) is within ~3e-14 relative of the support's
# products of binomial pmfs (measured up to 3.2e-14 on these grids); weighted means of numbers in [0, 1]
# move by that much besides the bound
SLACK = 1e-13

# (design, method, metric, K, n): n where the support cuts something at a 1e-4 window and the full runs
CASES = [
    ("multiclass", "wilson", "accuracy", 2, 60), ("multiclass", "clopper_pearson", "bea", 5, 300),
    ("multiclass_iid", "wald", "micro_f1", 3, 500), ("multiclass_iid", "wilson", "accuracy", 2, 40),
    ("multiclass", "mr_wald", "macro_recall", 2, 60), ("multiclass", "mr_union_cp", "macro_recall", 3, 30),
    ("multiclass", "mr_union_jeffreys", "macro_recall", 4, 14),
    ("multiclass_iid", "mr_wald", "macro_recall", 2, 30), ("multiclass_iid", "mr_union_wilson", "macro_recall", 3, 9),
    ("multiclass", "mf1_takahashi", "macro_f1", 2, 40), ("multiclass", "mf1_takahashi", "macro_f1", 3, 9),
    ("multiclass_iid", "mf1_takahashi", "macro_f1", 2, 16), ("multiclass_iid", "mf1_takahashi", "macro_f1", 3, 5),
]
MODELS = [(0.8, 1.0), (1.0, 4.0), (0.55, 4.0), (0.97, 2.0)]  # (recall, imbalance)


def _measures(monkeypatch, support: bool, method, metric, design, points, bound=BOUND):
    """Measures (rows) × points; the support forced on (every size beyond the trimming sizes) or off."""
    monkeypatch.setattr(mc, "EXACT_LIMIT", 0 if support else 10**12)
    monkeypatch.setattr(mc, "TRACE_TRIM_FROM", 0 if support else 10**12)
    monkeypatch.setattr(mc, "BOUND", bound)
    clear_cache()
    core._EXACT.clear()
    rows = []
    for pt in points:
        if "rates" in pt:
            r = multiclass_coverage(metric, method, pt["n"], pt["prevalence"], pt["rates"], design=design)
        else:
            r = coverage(method, design=design, metric=metric, **pt)
        rows.append([float(np.atleast_1d(getattr(r, m))[0]) for m in MEASURES])
    clear_cache()
    core._EXACT.clear()
    return np.array(rows).T


def _gap(trimmed, full, scale=1.0):
    """How far beyond the bound the support moves the measures (<= 0: within). The width's sd is
    sqrt(E[w²] - E[w]²): its square is what is bounded (2·BOUND: two means of numbers in [0, scale²])."""
    tol = scale * BOUND + SLACK
    first = np.max(np.abs(trimmed[:4] - full[:4]) - tol)
    return max(first, np.max(np.abs(trimmed[4] ** 2 - full[4] ** 2) - (2 * scale**2 * BOUND + SLACK)))


def _points(K, n):
    return [{"K": K, "n": n, "recall": r, "imbalance": g} for r, g in MODELS]


@pytest.mark.parametrize("design, method, metric, K, n", CASES)
def test_support_equals_full_enumeration(monkeypatch, design, method, metric, K, n):
    pts = _points(K, n)
    full = _measures(monkeypatch, False, method, metric, design, pts)
    trimmed = _measures(monkeypatch, True, method, metric, design, pts)
    scale = 2.0 if metric == "bea" else 1.0  # A_BE reaches below 0 for K >= 3: widths up to ~1.2
    assert _gap(trimmed, full, scale) <= 0


def test_trace_with_distinct_recalls_is_the_convolution(monkeypatch):
    # classes of different recalls: the trace is a convolution of one window per recall (at BOUND/3)
    prevalence = [0.5, 0.3, 0.2]
    rates = [[0.9, 0.05, 0.05], [0.2, 0.7, 0.1], [0.1, 0.4, 0.5]]
    pts = [{"n": n, "prevalence": prevalence, "rates": rates} for n in (3, 40, 700)]
    for design in ("multiclass", "multiclass_iid"):
        full = _measures(monkeypatch, False, "wilson", "accuracy", design, pts)
        trimmed = _measures(monkeypatch, True, "wilson", "accuracy", design, pts)
        assert _gap(trimmed, full) <= 0
        groups = mc._trace_groups(700, np.array(prevalence), np.array(rates), mc.class_sizes(700, prevalence)
                                  if design == "multiclass" else None)
        assert len(groups) == (3 if design == "multiclass" else 1)


def test_support_size_counts_the_outcomes_and_the_windows_cut():
    for K, n, merge, fixed in ((2, 300, None, True), (2, 60, None, False),
                               (3, 400, "diagonal", True), (2, 60, "diagonal", False),
                               (3, 5000, "trace", True), (3, 5000, "trace", False)):
        pi, R = mc.class_model(K, 0.8, 4.0)
        sizes = mc.class_sizes(n, pi) if fixed else None
        columns, weight = mc.support_outcomes(n, pi, R, sizes, merge)
        assert mc.support_size(n, pi, R, sizes, merge)[0] == weight.size
        assert -1e-14 < 1 - weight.sum() < BOUND + 1e-14  # what is left out, up to the pmf's rounding
        assert weight.size < mc.outcome_count(K, n, sizes, merge)  # the support, not the table
        if merge is None:  # distinct outcomes, rows summing to the class sizes (fixed) or to n
            m = mc.matrix(columns)
            assert np.unique(m.reshape(len(m), -1), axis=0).shape[0] == len(m)
            assert np.all(m.sum(-1) == sizes) if fixed else np.all(m.sum((-2, -1)) == n)


@pytest.mark.parametrize("design, method, metric, K, n", [CASES[0], CASES[4], CASES[7], CASES[9], CASES[11]])
def test_a_looser_window_is_caught(monkeypatch, design, method, metric, K, n):
    # the check above can fail: with every window at 1e-6 instead of 1e-15 the measures move beyond the bound
    pts = _points(K, n)
    full = _measures(monkeypatch, False, method, metric, design, pts)
    loose = _measures(monkeypatch, True, method, metric, design, pts, bound=1e-6)
    assert _gap(loose, full) > 0


def test_beyond_the_old_limits_and_the_new_ones():
    # macro recall, fixed sizes, K = 2 at n = 5000: 6.3 million outcomes in the table, ~74,000 on the support
    r = coverage("mr_wald", design="multiclass", K=2, n=5000, recall=0.8, imbalance=4.0)
    assert abs(r.coverage - 0.95) < 5e-3
    # the trace at n = 10⁹ with equal recalls is Binomial(n, 0.8): the binomial design's number
    for design in ("multiclass", "multiclass_iid"):
        r = coverage("wilson", design=design, metric="accuracy", K=3, n=10**9, recall=0.8, imbalance=4.0)
        assert abs(r.coverage - coverage("wilson", n=10**9, p=0.8).coverage) < 1e-12
    refused = [
        (dict(design="multiclass_iid", metric="macro_f1", K=3, n=40), "mf1_takahashi",
         r"^n: exact multiclass_iid coverage at K = 3, n = 40 needs at most 5,000,000 outcomes \(whole matrices\) "
         r"carrying all but 1e-15 of the probability, and has more; use Monte Carlo"),
        (dict(design="multiclass", metric="macro_recall", K=3, n=20_000), "mr_wald",
         r"^n: exact multiclass coverage at K = 3, n = 20,000 needs at most 5,000,000 outcomes \(n_i, k_i\)"),
        (dict(design="multiclass", metric="accuracy", K=3, n=2 * 10**9), "wilson",
         r"^n: exact multiclass coverage needs n <= 1,000,000,000, got 2,000,000,000; use Monte Carlo"),
    ]
    for kw, method, message in refused:
        with pytest.raises(ValueError, match=message):
            coverage(method, recall=0.8, imbalance=4.0, **kw)
    rates = [[0.9, 0.05, 0.05], [0.2, 0.7, 0.1], [0.1, 0.4, 0.5]]
    with pytest.raises(ValueError, match=r"^n: exact multiclass coverage of the trace at K = 3, n = 100,000,000 "
                                         r"convolves its classes' distinct recalls in [\d,]+ multiply-adds, more than "
                                         r"300,000,000"):
        multiclass_coverage("accuracy", "wilson", 10**8, [0.5, 0.3, 0.2], rates)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(K=st.integers(2, 4), n=st.integers(4, 40), recall=st.sampled_from([0.3, 0.8, 0.97, 1.0]),
       imbalance=st.sampled_from([1.0, 3.0, 20.0]), fixed=st.booleans(),
       merge=st.sampled_from(["trace", "diagonal", None]))
def test_support_is_a_part_of_the_table_leaving_out_less_than_the_bound(K, n, recall, imbalance, fixed, merge):
    pi, R = mc.class_model(K, recall, imbalance)
    if merge is None:  # the full matrices: C(n + K² - 1, K² - 1) outcomes i.i.d., Π C(n_i + K - 1, K - 1) fixed
        n = min(n, {2: 40, 3: 15, 4: 8}[K] if fixed else {2: 40, 3: 9, 4: 4}[K])
    if not fixed and merge == "diagonal":
        n = min(n, {2: 40, 3: 25, 4: 12}[K])
    sizes = mc.class_sizes(n, pi) if fixed and n >= K else None
    full_columns, full_weight = mc.exact_outcomes(n, pi, R, sizes, merge)
    columns, weight = mc.support_outcomes(n, pi, R, sizes, merge)
    names = [c for c in full_columns if c != "K"]

    def key(cols):  # one whole number per outcome, digits base n + 1 (< 2^63 on this grid)
        return sum(np.asarray(cols[c], dtype=np.int64) * (n + 1) ** i for i, c in enumerate(names))

    full_key, our_key = key(full_columns), key(columns)
    order = np.argsort(full_key)
    at = order[np.searchsorted(full_key, our_key, sorter=order)]
    assert np.array_equal(full_key[at], our_key)  # every one is an outcome of the table
    assert np.unique(at).size == at.size == mc.support_size(n, pi, R, sizes, merge)[0]
    assert np.allclose(weight, full_weight[at], rtol=1e-12, atol=1e-300)  # with its probability
    outside = np.ones(full_weight.size, dtype=bool)
    outside[at] = False
    assert full_weight[outside].sum() < BOUND  # by the full table's own pmf
