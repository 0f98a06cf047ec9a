"""Monte Carlo computes the intervals of drawn table cells only: the same bits as the whole table."""

import numpy as np
import pytest

from covstudy.engine import core
from covstudy import coverage
from covstudy.designs import get_design
from covstudy.estimands import get_estimand
from covstudy.engine.core import Analysis, Evaluator
from covstudy.methods import methods

KEY = (7, 12)  # class sizes (n_pos, n_neg)


@pytest.mark.parametrize("method", sorted(methods("two_class")))
def test_cells_equal_whole_table_bitwise(method):
    design = get_design("stratified")
    a = Analysis(methods("two_class")[method], (), get_estimand("confusion", "balanced_accuracy"), 0.05,
                 "two-sided", 1000, 1)
    columns = design.table_columns(KEY)
    core.clear_cache()
    full_lower, full_upper = Evaluator(design).table(KEY, a, {})
    core.clear_cache()
    rng = np.random.default_rng(5)
    for _ in range(3):  # overlapping draws: cached cells are looked up, new ones computed
        index = np.sort(rng.choice(full_lower.size, 25, replace=False))
        lower, upper = Evaluator(design).cells(KEY, index, {c: v[index] for c, v in columns.items()}, a, {})
        assert np.array_equal(lower, full_lower[index]) and np.array_equal(upper, full_upper[index])
    # With the whole table cached, cells are read from it.
    Evaluator(design).table(KEY, a, {})
    lower, _ = Evaluator(design).cells(KEY, index, {c: v[index] for c, v in columns.items()}, a, {})
    assert np.array_equal(lower, full_lower[index])


def test_monte_carlo_independent_of_cache_state():
    args = {"design": "stratified", "n_pos": 30, "n_neg": 45, "tpr": 0.9, "tnr": 0.8, "reps": 4000, "seed": 3}
    core.clear_cache()
    cold = coverage("ba_posterior_jeffreys", **args)
    warm = coverage("ba_posterior_jeffreys", **{**args, "seed": 4})  # a warm, partly overlapping cache
    again = coverage("ba_posterior_jeffreys", **args)
    assert cold.coverage == again.coverage and cold.mean_width == again.mean_width
    assert warm.coverage != cold.coverage or warm.mean_width != cold.mean_width
    core.clear_cache()
    exact_first = coverage("ba_posterior_jeffreys", design="stratified", n_pos=30, n_neg=45, tpr=0.9, tnr=0.8)
    from_table = coverage("ba_posterior_jeffreys", **args)  # now looked up in the whole cached table
    assert exact_first.coverage > 0 and from_table.mean_width == cold.mean_width


def test_simulated_test_sets_are_shared_and_give_the_same_numbers():
    """Successive coverage() calls at one point reuse its simulated test sets (read-only), and the
    numbers equal those of a fresh simulation; the AUC's placements are computed once."""
    import importlib

    from covstudy import coverage
    from covstudy.engine.core import _SIMULATED, clear_cache

    auc = importlib.import_module("covstudy.methods.auc")
    point = dict(design="binormal", n_pos=30, n_neg=50, auc=[0.8, 0.9], reps=300, seed=4)
    fresh = {}
    for m in ("delong", "hanley_mcneil", "newcombe", "logit_delong"):
        clear_cache()
        fresh[m] = coverage(m, **point).coverage
    clear_cache()
    calls = []
    real = auc._auc_and_delong_variance
    auc._auc_and_delong_variance = lambda p, n: calls.append(1) or real(p, n)
    try:
        shared = {m: coverage(m, **point).coverage for m in fresh}
    finally:
        auc._auc_and_delong_variance = real
    for m in fresh:
        assert np.array_equal(fresh[m], shared[m]), m
    assert len(calls) == 2  # once per point, not once per method and point
    assert all(not v.flags.writeable for o in _SIMULATED.values() for v in o.columns.values())
    r = coverage("wilson_vif", design="clustered", clusters=10, cluster_size=5, p=0.7, icc=0.1, reps=200, seed=1)
    clear_cache()
    assert r.coverage == coverage("wilson_vif", design="clustered", clusters=10, cluster_size=5, p=0.7, icc=0.1,
                                  reps=200, seed=1).coverage


def test_simulated_cache_is_bounded_in_bytes_of_weights_too(monkeypatch):
    """The simulated test sets kept for reuse stay within _SIMULATED_BYTES counting their weights,
    and a batch too large to be worth keeping (n = 10⁶: 16 MB a point, a quarter of 32 MB) is not kept at all."""
    from covstudy.engine import core
    from covstudy import coverage

    monkeypatch.setattr(core, "_SIMULATED_BYTES", 32_000_000)  # the mechanism, at a size the test can reach
    core.clear_cache()
    coverage("wilson", n=10**6, p=[0.3, 0.5, 0.7], reps=1000)
    assert not core._SIMULATED
    coverage("wilson", n=200_000, p=np.linspace(0.05, 0.95, 12), reps=1000)  # 3.2 MB a point, 38 MB in all
    held = [core._nbytes(o) for o in core._SIMULATED.values()]
    assert held and sum(held) <= core._SIMULATED_BYTES
    core.clear_cache()


def test_memo_computes_once_and_recomputes_what_is_damaged_or_refused(tmp_path, monkeypatch):
    """``cache.memo`` (the calibration rows' audit): a second call reads the first's value; a damaged entry, a
    value of another shape or ``use=False`` computes again."""
    from covstudy.evaluation import cache

    monkeypatch.setenv(cache.ENV, str(tmp_path))
    calls = []

    def compute():
        calls.append(1)
        return [{"m": {"coverage_at_estimate": 0.95}}, "where"]

    parts = [np.arange(5.0), 0.05]
    ok = lambda v: isinstance(v, list) and len(v) == 2  # noqa: E731
    first = cache.memo("t", parts, compute, ok)
    assert cache.memo("t", parts, compute, ok) == first and len(calls) == 1
    assert cache.memo("t", [np.arange(5.0), 0.1], compute, ok) and len(calls) == 2  # other parts, other key
    cache.memo("t", parts, compute, ok, use=False)
    assert len(calls) == 3
    for entry in tmp_path.glob("*.json"):
        entry.write_text("{not json")
    assert cache.memo("t", parts, compute, ok) == first and len(calls) == 4
    assert cache.memo("t", parts, compute, lambda v: False) == first and len(calls) == 5
