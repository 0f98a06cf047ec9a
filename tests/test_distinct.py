"""methods/distinct.py: distinct rows, codes and midranks equal numpy's and scipy's on any input."""

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from covstudy.methods.distinct import midranks, unique_inverse, unique_rows

INTS = hnp.arrays(st.sampled_from([np.int8, np.int64, np.uint16, np.bool_]), st.integers(1, 60))
WIDE = hnp.arrays(np.int64, st.integers(1, 30), elements=st.integers(-2**40, 2**40))  # a range too wide to count
FLOATS = hnp.arrays(np.float64, st.integers(1, 60), elements=st.sampled_from([-1.5, 0.0, 0.25, 1.0, 3.0]) | st.floats(-9, 9))


@settings(max_examples=60, deadline=None)
@given(st.one_of(INTS, WIDE, FLOATS))
def test_unique_inverse_is_numpys(values):
    distinct, inverse = unique_inverse(values)
    expected, at = np.unique(values, return_inverse=True)
    np.testing.assert_array_equal(distinct, expected)
    np.testing.assert_array_equal(inverse, at.reshape(-1))
    assert distinct.dtype == expected.dtype


def test_unique_inverse_of_labels_that_do_not_count():
    for values in (np.array(["b", "a", "b"], dtype=object), np.array([2.5, -1.0, 2.5])):
        distinct, inverse = unique_inverse(values)
        np.testing.assert_array_equal(distinct[inverse], values)


@settings(max_examples=60, deadline=None)
@given(st.one_of(INTS, FLOATS))
def test_midranks_are_scipys_rankdata(values):
    np.testing.assert_array_equal(midranks(values), stats.rankdata(values))


def test_unique_rows_is_numpys():
    rows = np.random.default_rng(0).integers(0, 3, (200, 3)).astype(float)
    distinct, inverse = unique_rows(rows)
    expected, at = np.unique(rows, axis=0, return_inverse=True)
    np.testing.assert_array_equal(distinct, expected)
    np.testing.assert_array_equal(inverse, at.reshape(-1))
