"""Issue 25: the faster paired Bayes and SCAS solvers give the ends of the old ones (commit cb89fe5)
within 1e-9, and exact coverage unchanged.

References: tests/_paired_reference.py (the old bracketed solvers, run here for SCAS) and
tests/data/paired_bayes_reference.npz (old Bayes ends, written by paired_bayes_reference.py).
"""

from pathlib import Path

import numpy as np
import pytest

import _paired_reference as reference
from covstudy import coverage, paired_interval
from covstudy.designs.paired import all_tables

BAYES = Path(__file__).parent / "data" / "paired_bayes_reference.npz"
TOL = 1e-9


def _cells(tables):
    return tuple(tables[k] for k in ("both", "only_first", "only_second", "neither"))


def test_paired_bayes_ends_match_the_old_solver():
    # every table with n <= 30 (delta 0.05), n <= 12 at delta 0.01, 0.2 and priors 1, 0.1; 1,500 tables at n = 150
    ref = np.load(BAYES)
    for delta, prior in np.unique(np.stack([ref["delta"], ref["prior"]], 1), axis=0):
        rows = (ref["delta"] == delta) & (ref["prior"] == prior)
        lower, upper = paired_interval("bayes", ref["both"][rows], ref["only_first"][rows], ref["only_second"][rows],
                                       0, delta=delta, prior=prior)
        np.testing.assert_allclose(lower, ref["lower"][rows], rtol=0, atol=TOL)
        np.testing.assert_allclose(upper, ref["upper"][rows], rtol=0, atol=TOL)


def test_paired_bayes_ends_match_the_old_solver_live_and_are_mirror_symmetric():
    a, b, c, d = _cells(all_tables(9))
    for delta in (0.05, np.where(b > c, 0.1, 0.02)):  # per-table delta too
        old = reference.bayes_interval(a, b, c, d, delta)
        new = paired_interval("bayes", a, b, c, d, delta=delta)
        np.testing.assert_allclose(new, old, rtol=0, atol=TOL)
    lower, upper = paired_interval("bayes", a, b, c, d)
    swapped = paired_interval("bayes", a, c, b, d)
    np.testing.assert_array_equal(lower, -swapped[1])
    np.testing.assert_array_equal(upper, -swapped[0])


@pytest.mark.parametrize("n", [*range(1, 31), 150])
def test_paired_scas_ends_match_the_old_solver_on_every_table(n):
    a, b, c, d = _cells(all_tables(n))
    if n == 150:  # a sample of the ~585k tables
        pick = np.random.default_rng(25).choice(a.size, 20_000, replace=False)
        a, b, c, d = a[pick], b[pick], c[pick], d[pick]
    for delta in (0.05, 0.2) if n <= 30 else (0.05,):
        old = reference.score_interval(a, b, c, d, delta)
        new = paired_interval("scas", a, b, c, d, delta=delta)
        np.testing.assert_allclose(new, old, rtol=0, atol=TOL)


# Exact coverage before issue 25 (commit cb89fe5), printed with repr.
BEFORE = {
    ("paired_scas", 150, 0.8, 0.75, 0.3): 0.9508683180276266,
    ("paired_bayes", 150, 0.8, 0.75, 0.3): 0.9485663552770589,
    ("paired_scas", 40, 0.7, 0.7, 0.0): 0.9528687863741079,
    ("paired_bayes", 40, 0.7, 0.7, 0.0): 0.9457635868094354,
    ("paired_scas", 25, 0.95, 0.6, -0.1): 0.9613141472927766,
    ("paired_bayes", 25, 0.95, 0.6, -0.1): 0.9559899086914002,
}


@pytest.mark.parametrize("key", list(BEFORE))
def test_paired_exact_coverage_unchanged(key):
    name, n, acc_first, acc_second, correlation = key
    r = coverage(name, design="paired", n=n, acc_first=acc_first, acc_second=acc_second, correlation=correlation)
    assert r.coverage == pytest.approx(BEFORE[key], abs=1e-12)


def test_remembered_posterior_quantiles_are_the_fresh_ones(monkeypatch):
    """paired_bayes remembers solved quantiles across calls (the audit's search meets the same rows at many
    points): each row is solved on its own, so batches of any make-up and remembered rows give the same bits."""
    from covstudy.memo import BoundedMemo
    from covstudy.methods import posterior_difference
    from covstudy.methods.paired import paired_bayes

    rng = np.random.default_rng(1)
    a, b, c, d = (rng.integers(0, top, 600) for top in (60, 25, 25, 10))
    monkeypatch.setattr(posterior_difference, "_KNOWN", BoundedMemo(posterior_difference._KNOWN.limit))
    whole = paired_bayes(a, b, c, d, 0.05)
    pieces = [np.empty(600), np.empty(600)]
    for idx in np.array_split(rng.permutation(600), 7):
        posterior_difference._KNOWN.clear()
        for out, end in zip(pieces, paired_bayes(a[idx], b[idx], c[idx], d[idx], 0.05)):
            out[idx] = end
    posterior_difference._KNOWN.clear()
    paired_bayes(a[:300], b[:300], c[:300], d[:300], 0.05)
    remembered = paired_bayes(a, b, c, d, 0.05)
    for got in (pieces, remembered):
        assert np.array_equal(got[0], whole[0]) and np.array_equal(got[1], whole[1])
    assert len(posterior_difference._KNOWN) > 300


def test_quantiles_at_the_nodes_from_the_memo_are_betaincinvs():
    """Rows whose lower limit vanishes read Q_S(U) from the memo, the others compute it: betaincinv's
    numbers either way, on a second call (from the memo) too."""
    from scipy import special

    from covstudy.methods import posterior_difference as pd_

    s1, s2 = np.array([40.0, 40.0, 3.5, 900.0]), np.array([60.0, 60.0, 2.0, 9000.0])
    u = np.broadcast_to(pd_.U, (4, pd_.U.size)).copy()
    u[2] = 0.3 + 0.7 * pd_.U  # a lower limit that does not vanish
    for _ in range(2):
        np.testing.assert_array_equal(pd_._s_quantiles(s1, s2, u), special.betaincinv(s1[:, None], s2[:, None], u))


def test_memo_filled_past_its_bound_within_one_call_keeps_what_the_call_needs(monkeypatch):
    """A call that brings more new (s1, s2) pairs than the memo holds, beside pairs already remembered, still
    answers every row (betaincinv's numbers) and leaves the memo at its bound: evicting never takes a key the
    call relies on (it once cleared the memo and lost the present keys: a KeyError at 10,000 rows)."""
    from scipy import special

    from covstudy.memo import BoundedMemo
    from covstudy.methods import posterior_difference as pd_

    monkeypatch.setattr(pd_, "_AT_NODES", BoundedMemo(5))
    s1, s2 = np.arange(1.0, 13.0) * 7, np.arange(1.0, 13.0) * 11
    u = np.broadcast_to(pd_.U, (12, pd_.U.size)).copy()
    pd_._s_quantiles(s1[:4], s2[:4], u[:4])  # four remembered
    assert len(pd_._AT_NODES) == 4
    got = pd_._s_quantiles(s1, s2, u)  # those four and eight new: the bound is passed within the call
    np.testing.assert_array_equal(got, special.betaincinv(s1[:, None], s2[:, None], u))
    assert len(pd_._AT_NODES) == 5


def test_bounded_memo_forgets_the_least_recently_used():
    from covstudy.memo import BoundedMemo

    memo = BoundedMemo(3)
    memo.store([("a", 1), ("b", 2), ("c", 3)])
    assert memo.found(["a", "z"]) == {"a": 1}  # "a" is now the newest
    memo.store([("d", 4)])
    assert "b" not in memo and all(k in memo for k in "acd") and len(memo) == 3
    memo.store([(k, 0) for k in "uvwxyz"])  # more than the limit at once: the newest three stay
    assert sorted(memo.found("acduvwxyz")) == ["x", "y", "z"]
