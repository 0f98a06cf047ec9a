"""measures(): the sums of its docstring, on random tables with undefined (NaN) intervals."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from covstudy.engine.measures import measures


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 5), st.floats(0, 0.5), st.integers(0, 2**32 - 1))
def test_measures_are_the_documented_sums(outcomes, points, nan_share, seed):
    rng = np.random.default_rng(seed)
    weight = rng.dirichlet(np.ones(outcomes), size=points)
    lower = rng.uniform(0, 1, outcomes)
    upper = lower + rng.uniform(0, 0.5, outcomes)
    lower[rng.uniform(size=outcomes) < nan_share] = np.nan
    upper[rng.uniform(size=outcomes) < nan_share] = np.nan
    truth = rng.choice(np.concatenate([lower[np.isfinite(lower)], rng.uniform(0, 1.2, 3)]), size=points)
    out = measures(weight, lower, upper, truth)
    for i in range(points):
        t, w = truth[i], weight[i]
        covered = [lo <= t <= hi for lo, hi in zip(lower, upper)]  # False where either end is NaN
        assert out["coverage"][i] == np.clip(np.sum(w * np.array(covered)), 0, 1)
        assert out["miss_low"][i] == np.clip(np.sum(w * (t < lower)), 0, 1)
        assert out["miss_high"][i] == np.clip(np.sum(w * (t > upper)), 0, 1)
    assert np.all(out["coverage"] + out["miss_low"] + out["miss_high"] <= 1 + 1e-12)


def test_rates_stay_in_zero_one_when_weights_sum_above_one():
    # Exact pmf terms can sum to 1 + 4e-16; a stored part outside [0, 1] counts as damaged
    # (newcombe1998 could not finish), so every rate is clipped like coverage.
    w = np.array([[0.5, 0.5 + 4e-16]])
    assert np.sum(w, axis=-1)[0] > 1
    out = measures(w, np.full(2, 0.2), np.full(2, 0.4), np.array([0.3]), null=0.0)
    assert out["coverage"][0] == 1.0 and out["excludes_zero"][0] == 1.0 and out["excludes_zero_mcse"][0] == 0.0


@pytest.fixture
def lower_mean():
    """A throwaway registered measure: the mean lower end."""
    from covstudy.engine import measures

    measures.register_measure("lower_mean", -1.0, 1.0, formula=lambda w, lower, upper, truth, width:
                              np.sum(w * lower, axis=-1))
    yield "lower_mean"
    measures.unregister_measure("lower_mean")


def test_a_new_measure_reaches_every_row_and_blanks_nothing(tmp_path, lower_mean):
    from covstudy.study import summary
    from covstudy.study.runner import run_study
    from covstudy.study.config import Study
    from covstudy.study.tasks import row_problem

    cfg = {"name": "t", "methods": ["wald", "wilson"], "grid": {"n": [10], "p": [0.2, 0.5], "delta": [0.05]},
           "reps": 500, "seed": 5, "n_jobs": 1}
    exact = run_study(Study.from_config({**cfg, "engine": "exact", "out": str(tmp_path / "e")}))
    mc = run_study(Study.from_config({**cfg, "engine": "mc", "out": str(tmp_path / "m")}))
    for table in (exact, mc):
        assert table[lower_mean].notna().all() and row_problem(table.assign(seconds=0.0)) is None  # as a part
    both = summary.join_exact(summary.tidy(pd.concat([exact, mc], ignore_index=True)))
    assert lower_mean not in summary.identity_columns(both)
    rows = both[both["engine"] == "mc"]
    assert rows["exact_coverage"].notna().all()  # a measure outside the identity: mc rows still find their exact cell
    assert rows["exact_coverage"].tolist() == exact["coverage"].tolist()
