"""measures(): the sums of its docstring, on random tables with undefined (NaN) intervals."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from covstudy.measures import measures


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
