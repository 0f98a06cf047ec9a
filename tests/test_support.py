"""Exact engines on the support of the outcome distribution (designs/support.py) against the
full enumeration: the same measures to within the stated bound (support.BOUND)."""

import numpy as np
import pytest
from scipy import stats

from covstudy.engine import core
from covstudy import coverage
from covstudy.engine.core import clear_cache
from covstudy.designs import binomial, iid, paired, stratified, support, unpaired

BOUND = support.BOUND
MEASURES = ("coverage", "miss_low", "miss_high", "mean_width", "sd_width")
PS = np.array([0.0, 1e-12, 1e-6, 0.001, 0.05, 0.3, 0.5, 0.77, 0.999, 1 - 1e-9, 1.0])


@pytest.mark.parametrize("n", [1, 2, 7, 40, 999, 12_345, 10**6, 10**9])
def test_window_leaves_out_less_than_the_bound(n):
    lo, hi = support.window(n, PS)
    assert np.all((0 <= lo) & (lo <= hi) & (hi <= n))
    outside = stats.binom.cdf(lo - 1, n, PS) + stats.binom.sf(hi, n, PS)  # scipy, independent of the bound
    assert np.all(outside < BOUND)
    # and it is the support, not the table: about ±8.4 sd of K, plus the rounding
    assert np.all(hi - lo <= 2 * 8.5 * np.sqrt(n * PS * (1 - PS)) + 40)


@pytest.mark.parametrize("n", [3, 5000, 10**6, 10**9])
def test_window_pmf_matches_scipy(n):
    p = np.array([1e-7, 0.02, 0.5, 0.93, 0.0, 1.0])
    for q, a, b in zip(p, *support.window(n, p)):
        a, b = max(0, int(a) - 50), min(n, int(b) + 50)  # a little beyond the support too
        ours = support.window_pmf(n, np.array([q]), a, b)[0]
        ref = stats.binom.pmf(np.arange(a, b + 1), n, q)
        big = ref > 1e-290
        assert np.allclose(ours[big], ref[big], rtol=1e-10, atol=0)
        assert np.all(np.abs(ours[~big]) < 1e-280)


def _measures(monkeypatch, trim_from, method, n, p, **kw):
    monkeypatch.setattr(binomial, "TRIM_FROM", trim_from)
    clear_cache()
    r = coverage(method, n=n, p=p, **kw)
    clear_cache()
    return np.array([np.atleast_1d(getattr(r, m)) for m in MEASURES])


def assert_within_bound(trimmed, full, scale=1.0):
    """Weighted means of numbers in [0, scale] move by at most scale·BOUND, plus the rounding of
    the pmf (window_pmf and binomial_pmf differ by ~1e-15 relative). The width's sd is
    sqrt(E[w²] - E[w]²): its square, a difference of two such means, is what is bounded (the
    sd itself loses precision to the cancellation in the full engine as much as here)."""
    tol = scale * BOUND + 5e-15
    assert np.all(np.abs(trimmed[:4] - full[:4]) <= tol)
    assert np.all(np.abs(trimmed[4] ** 2 - full[4] ** 2) <= scale**2 * 2 * BOUND + 5e-15)


@pytest.mark.parametrize("method", ["wald", "wilson", "clopper_pearson", "jeffreys"])
@pytest.mark.parametrize("n", [1, 2, 9, 60, 700, 3001, 20_000])
def test_binomial_support_equals_full_enumeration(monkeypatch, method, n):
    full = _measures(monkeypatch, 10**9, method, n, PS)
    trimmed = _measures(monkeypatch, 0, method, n, PS)
    assert_within_bound(trimmed, full)


def test_binomial_support_one_sided_and_delta(monkeypatch):
    kw = {"delta": 0.2, "side": "upper"}
    full = _measures(monkeypatch, 10**9, "agresti_coull", 3001, PS, **kw)
    trimmed = _measures(monkeypatch, 0, "agresti_coull", 3001, PS, **kw)
    assert_within_bound(trimmed, full)


def test_binomial_limits_checked_before_work():
    with pytest.raises(ValueError, match=r"^n: exact binomial coverage needs n <= 1,000,000,000, got 2,000,000,000"):
        coverage("wilson", n=2 * 10**9, p=0.3)
    with pytest.raises(ValueError, match=r"^n: Monte Carlo in the binomial design needs n <= 10,000,000"):
        coverage("wilson", n=10**8, p=0.3, reps=100, seed=1)


def test_binomial_at_a_billion():
    # the exact engine at n = 10⁹ (support only); Wilson's coverage is near 0.95 there
    r = coverage("wilson", n=10**9, p=[0.3, 0.3000001])
    assert np.all(np.abs(r.coverage - 0.95) < 2e-3)
    assert np.allclose(r.mean_width, 2 * 1.959964 * np.sqrt(0.3 * 0.7 / 1e9), rtol=1e-3)


def _unpaired(monkeypatch, trim_from, method, n1, n2, p1, p2):
    monkeypatch.setattr(unpaired, "TRIM_FROM", trim_from)
    clear_cache()
    r = coverage(method, design="unpaired", n1=n1, n2=n2, p1=p1, p2=p2)
    clear_cache()
    return np.array([np.atleast_1d(getattr(r, m)) for m in MEASURES + ("excludes_zero",)])


@pytest.mark.parametrize("method", ["diff_wald", "diff_newcombe", "diff_agresti_caffo"])
@pytest.mark.parametrize("n1, n2", [(1, 1), (3, 8), (40, 25), (150, 120)])
def test_unpaired_support_equals_full_enumeration(monkeypatch, method, n1, n2):
    p1, p2 = np.meshgrid([0.0, 1e-9, 0.5, 0.9, 1.0], [0.0, 0.3, 0.999])
    full = _unpaired(monkeypatch, 10**12, method, n1, n2, p1.ravel(), p2.ravel())
    trimmed = _unpaired(monkeypatch, 0, method, n1, n2, p1.ravel(), p2.ravel())
    assert_within_bound(trimmed[:5], full[:5], scale=2.0)  # a difference's interval is at most 2 wide
    assert np.all(np.abs(trimmed[5] - full[5]) <= BOUND + 5e-15)


def test_unpaired_limit_is_the_support():
    coverage("diff_wald", design="unpaired", n1=10**6, n2=10**6, p1=0.001, p2=0.002)  # ~0.6 M outcomes: runs
    with pytest.raises(ValueError, match=r"^n1, n2: exact unpaired coverage needs at most 10,000,000 outcomes"):
        coverage("diff_wald", design="unpaired", n1=10**6, n2=10**6, p1=0.5, p2=0.5)


def _stratified(monkeypatch, table_limit, method, metric, n_pos, n_neg, tprs, tnrs):
    monkeypatch.setattr(stratified, "TABLE_LIMIT", table_limit)
    clear_cache()
    rows = []
    for tpr in tprs:
        for tnr in tnrs:
            r = coverage(method, design="stratified", metric=metric, n_pos=n_pos, n_neg=n_neg, tpr=tpr, tnr=tnr)
            rows.append([getattr(r, m) for m in MEASURES])
    clear_cache()
    return np.array(rows).T


@pytest.mark.parametrize("method, metric", [("ba_wald", "balanced_accuracy"), ("ba_cp_union", "balanced_accuracy"),
                                            ("wilson", "precision"), ("wald", "accuracy")])
@pytest.mark.parametrize("n_pos, n_neg", [(1, 2), (30, 70)])
def test_stratified_support_equals_full_enumeration(monkeypatch, method, metric, n_pos, n_neg):
    tprs, tnrs = [0.05, 0.6, 1.0], [0.0, 0.2, 1.0]
    full = _stratified(monkeypatch, 10**12, method, metric, n_pos, n_neg, tprs, tnrs)
    trimmed = _stratified(monkeypatch, 0, method, metric, n_pos, n_neg, tprs, tnrs)
    assert_within_bound(trimmed, full)


def test_stratified_beyond_the_table_limit():
    r = coverage("ba_wald", design="stratified", n_pos=10**5, n_neg=10**5, tpr=0.99, tnr=0.98)  # 10¹⁰ cells
    assert abs(r.coverage - 0.95) < 2e-3
    with pytest.raises(ValueError, match=r"^n_pos, n_neg: exact coverage needs at most 10,000,000 outcomes"):
        coverage("ba_wald", design="stratified", n_pos=10**6, n_neg=10**6, tpr=0.5, tnr=0.5)


def test_unpaired_histogram_sampler_draws_the_outer_pmf():
    # reps >= (n1 + 1)(n2 + 1): the counts come as one multinomial histogram; chi-square against
    # the exact pmf (seeded: deterministic), and a negative control at p1 + 0.01 that it rejects
    point = {"n1": 6, "n2": 5, "p1": 0.3, "p2": 0.8}
    index, count = unpaired.unpaired_counts(point, 400_000, seed=7)
    observed = np.bincount(index, weights=count, minlength=42)
    assert observed.sum() == 400_000
    for p1, fits in ((0.3, True), (0.31, False)):
        expected = 400_000 * unpaired.unpaired_pmf(6, 5, p1, 0.8).ravel()
        keep = expected > 5
        chi2 = np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep])
        assert (stats.chi2.sf(chi2, keep.sum() - 1) > 1e-4) == fits


def _nested(monkeypatch, limit, module, names, method, points, **kw):
    for name in names:
        monkeypatch.setattr(module, name, limit)
    clear_cache()
    rows = []
    for pt in points:
        r = coverage(method, design=module.__name__.rsplit(".", 1)[1], **pt, **kw)
        rows.append([getattr(r, m) for m in MEASURES])
    clear_cache()
    return np.array(rows).T


PAIRED = [{"n": n, "acc_first": a1, "acc_second": a2, "correlation": rho}
          for n in (1, 4, 23) for a1, a2, rho in ((0.8, 0.7, 0.3), (0.5, 0.5, 0.0), (1.0, 0.6, 0.0), (0.9, 0.9, 1.0))]


@pytest.mark.parametrize("method", ["paired.wald", "paired.tango", "paired.newcombe"])
def test_paired_support_equals_full_enumeration(monkeypatch, method):
    names = ("FULL_EXACT_LIMIT", "DISCORDANT_EXACT_LIMIT", "TRIM_FROM")
    full = _nested(monkeypatch, 10**6, paired, names, method, PAIRED)
    trimmed = _nested(monkeypatch, 0, paired, names, method, PAIRED)
    # the full tables' pmf (gammaln, table_pmf) is itself within ~5e-14 (relative) of the product of binomials
    slack = 1e-13 if method == "paired.newcombe" else 0.0
    assert np.all(np.abs(trimmed[:4] - full[:4]) <= 2 * BOUND + 5e-15 + slack)
    assert np.all(np.abs(trimmed[4] ** 2 - full[4] ** 2) <= 8 * BOUND + 5e-15 + slack)


IID = [{"n": n, "prevalence": q, "tpr": t1, "tnr": t0}
       for n in (1, 6, 31) for q, t1, t0 in ((0.3, 0.8, 0.6), (0.5, 1.0, 0.05), (0.01, 0.5, 0.999))]


@pytest.mark.parametrize("method, metric", [("ba_wald", "balanced_accuracy"), ("wilson", "precision"),
                                            ("wald", "accuracy")])
def test_iid_support_equals_full_enumeration(monkeypatch, method, metric):
    names = ("FULL_EXACT_LIMIT", "MERGED_EXACT_LIMIT")
    full = _nested(monkeypatch, 10**6, iid, names, method, IID, metric=metric)
    trimmed = _nested(monkeypatch, 0, iid, names, method, IID, metric=metric)
    assert_within_bound(trimmed, full)


def test_paired_and_iid_limits_are_the_support():
    r = coverage("paired.wald", design="paired", n=20_000, acc_first=0.8, acc_second=0.7, correlation=0.3)
    assert abs(r.coverage - 0.95) < 3e-3  # was refused beyond n = 2000
    with pytest.raises(ValueError, match=r"^n: exact paired coverage needs at most 10,000,000 outcomes of all four cells"):
        coverage("paired.newcombe", design="paired", n=5000, acc_first=0.8, acc_second=0.7, correlation=0.3)
    r = coverage("wilson", design="iid", metric="precision", n=50_000, prevalence=0.3, tpr=0.8, tnr=0.6)
    assert abs(r.coverage - 0.95) < 3e-3  # was refused beyond n = 2000
    with pytest.raises(ValueError, match=r"^n: exact iid coverage needs at most 10,000,000 outcomes \(n_pos, tp, tn\)"):
        coverage("ba_wald", design="iid", metric="balanced_accuracy", n=10_000, prevalence=0.3, tpr=0.8, tnr=0.6)


def test_paired_histogram_sampler_draws_the_table_pmf():
    # reps >= (n + 1)(n + 2)(n + 3)/6: the counts of all tables come as one multinomial; chi-square
    # against the exact pmf, and a negative control at correlation 0.35 that it rejects
    design = paired.Paired()
    point = design.derive({"n": 6, "acc_first": 0.8, "acc_second": 0.7, "correlation": 0.3})
    tables = paired.all_tables(6)
    position = {t: i for i, t in enumerate(zip(*(tables[c] for c in paired.PAIRED_CELLS)))}

    def observed(reps):
        o = design.simulate([point], reps, seed=7)
        out = np.zeros(len(position))
        for t, c in zip(zip(*(o.columns[c] for c in paired.PAIRED_CELLS)), o.weight[0]):
            out[position[t]] += c
        assert out.sum() == reps
        return out

    seen = observed(400_000)
    assert observed(83).sum() == 83  # fewer reps than tables: drawn one by one
    for rho, fits in ((0.3, True), (0.35, False)):
        cells = paired._cells(design.derive({"n": 6, "acc_first": 0.8, "acc_second": 0.7, "correlation": rho}))
        expected = 400_000 * paired.table_pmf(tables, cells)
        keep = expected > 5
        chi2 = np.sum((seen[keep] - expected[keep]) ** 2 / expected[keep])
        assert (stats.chi2.sf(chi2, keep.sum() - 1) > 1e-4) == fits
    # Monte Carlo coverage by the histogram sampler within a few MCSE of the exact coverage
    kw = {"design": "paired", "n": 12, "acc_first": 0.8, "acc_second": 0.7, "correlation": 0.3}
    exact, mc = coverage("paired.wald", **kw), coverage("paired.wald", reps=20_000, seed=3, **kw)
    assert abs(mc.coverage - exact.coverage) < 4 * mc.mcse


# (p_both, p_only_first, p_only_second, p_neither): b + c never, always, in between; p_only_first tiny
PAIRED_CELLS = [(0.7, 0.0, 0.0, 0.3), (0.0, 0.6, 0.4, 0.0), (0.5, 1e-9, 0.2, 0.3 - 1e-9),
                (0.7371, 0.1129, 0.0629, 0.0871), (0.2, 0.35, 0.3, 0.15)]


def _paired(monkeypatch, trim_from, method, n, cells, clear=True):
    monkeypatch.setattr(paired, "TRIM_FROM", trim_from)
    if clear:
        clear_cache()
    core._EXACT.clear()  # the outcome distributions (not the interval tables) are made again
    rows = []
    for p in cells:
        r = coverage(method, design="paired", n=n, **dict(zip(paired.CELLS, p)))
        rows.append([float(np.atleast_1d(getattr(r, m))[0]) for m in MEASURES + ("excludes_zero",)])
    return np.array(rows).T


@pytest.mark.parametrize("method", ["wald", "tango"])
@pytest.mark.parametrize("n", [1, 9, 150])
def test_paired_discordant_support_equals_full_enumeration(monkeypatch, method, n):
    trimmed = _paired(monkeypatch, 0, method, n, PAIRED_CELLS)
    full = _paired(monkeypatch, 10**12, method, n, PAIRED_CELLS)
    # and the support's cells looked up in the whole table just cached: its index is the table's order
    looked_up = _paired(monkeypatch, 0, method, n, PAIRED_CELLS, clear=False)
    clear_cache()
    for ours in (trimmed, looked_up):
        assert_within_bound(ours[:5], full[:5], scale=2.0)
        assert np.all(np.abs(ours[5] - full[5]) <= BOUND + 5e-15)
    if n == 150:  # where the support is worth it: b + c stays below n/2
        [lo], [hi] = support.window(n, 0.1758, BOUND)
        assert hi < n / 2
