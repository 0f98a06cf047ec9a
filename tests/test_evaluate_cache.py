"""Monte Carlo computes the intervals of drawn table cells only: the same bits as the whole table."""

import numpy as np
import pytest

from covstudy import core, coverage
from covstudy.designs import get_design
from covstudy.estimands import get_estimand
from covstudy.core import Analysis, Evaluator
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
