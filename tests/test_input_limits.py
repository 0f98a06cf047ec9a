"""Inputs that used to hang or exhaust memory (the bad-input fuzz of issue 48): each is refused
at once with one line naming the argument and its valid range, or its work is bounded.
No timing here: the refusals are asserted by their messages, the bounded searches by
lowering their budgets."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import covstudy as cs

binomial_planner = importlib.import_module("covstudy.planning.binomial")
search_module = importlib.import_module("covstudy.planning.search")
auc_module = importlib.import_module("covstudy.methods.auc")
clustered_module = importlib.import_module("covstudy.methods.clustered")

REFUSED = {
    "coverage above 1 - delta": (lambda: cs.plan("wilson", p=0.9, coverage=0.999999),
                                 r"coverage must be at most 1 - delta = 0.95 .* lower delta"),
    "coverage above 1 - delta, any design": (
        lambda: cs.plan("newcombe", design="unpaired", p1=0.8, p2=0.7, ratio=1, coverage=0.99),
        r"coverage must be at most 1 - delta = 0.95"),
    "p_points": (lambda: cs.plan("wilson", p_range=(0.1, 0.9), width=0.1, p_points=10**9),
                 r"p_points must be at most 1,000, got 1000000000"),
    "n_max at one p": (lambda: cs.plan("wilson", p=0.9, width=0.1, n_max=10**15),
                       r"n_max must be at most 100,000,000"),
    "n_max over a range": (lambda: cs.plan("wilson", p_range=(0.1, 0.9), width=0.1, n_max=10**7),
                           r"n_max must be at most 1,000,000"),
    "null outside a metric's range": (lambda: cs.plan("wilson", p=0.9, power=0.8, null=2),
                                      r"null must be in \[0, 1\] \(the range of the accuracy\), got 2.0"),
    "null outside a difference's range": (
        lambda: cs.plan("newcombe", design="unpaired", p1=0.8, p2=0.7, ratio=1, power=0.8, null=-1.5),
        r"null must be in \[-1, 1\]"),
    "null NaN": (lambda: cs.plan("wilson", p=0.9, power=0.8, null=float("nan")), r"null must be in \[0, 1\]"),
    "blaker confidence coefficient": (lambda: cs.confidence_coefficient("blaker", n=10**6),
                                      r"n: exact curves of blaker take n <= 200,000"),
    "blaker average coverage": (lambda: cs.average_coverage("blaker", n=10**6),
                                r"n: exact curves of blaker take n <= 200,000"),
    "unpaired superiority": (
        lambda: cs.superiority_probability(k1=np.arange(0, 10**6, 10), n1=10**6, k2=50, n2=100),
        r"k1, n1, k2, n2: .* at most 20,000 a call, got 100,000; split the call"),
    "auc bootstrap": (lambda: cs.auc_interval("bootstrap", np.linspace(0, 1, 10**5), np.linspace(0, 1, 10**5),
                                              draws=10**4),
                      r"draws: 10,000 resamples of 200,000 scores .* at most 1e\+09 .* lower draws to 5,000"),
    "cluster bootstrap": (lambda: cs.clustered_interval("cluster_bootstrap", np.ones(10**5, int), np.full(10**5, 2),
                                                        draws=2 * 10**4),
                          r"draws: 20,000 resamples of 100,000 clusters .* lower draws to 10,000"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_refused_in_one_line(case):
    call, message = REFUSED[case]
    with pytest.raises(ValueError, match=message) as err:
        call()
    assert "\n" not in str(err.value)


def test_coverage_at_the_level_still_plans():
    # coverage = 1 - delta is the limit, not beyond it; a guaranteed method meets it
    assert cs.plan("clopper_pearson", p=0.9, coverage=0.95, width=0.1).n == cs.plan(
        "clopper_pearson", p=0.9, coverage_tol=0, width=0.1).n


def test_oscillating_target_stops_after_the_search_budget(monkeypatch):
    # Wilson's coverage at p = 0.9 oscillates about 0.95: met at scattered n, never for 21 in a row,
    # so the search would step through every n up to n_max (it did: a hang). It stops at the budget.
    calls = []
    performance = binomial_planner.performance
    monkeypatch.setattr(binomial_planner, "performance", lambda *a, **k: calls.append(a[1]) or performance(*a, **k))
    monkeypatch.setattr(search_module, "SEARCH_MAX", 300)
    with pytest.raises(ValueError, match=r"horizon: the target \(mean width <= 0.1 and coverage >= 0.95 at p = 0.9\) "
                                         r"holds at scattered sizes .* not for 21 consecutive ones within the 300 "
                                         r"sizes") as err:
        cs.plan("wilson", p=0.9, width=0.1, coverage_tol=0)
    assert "\n" not in str(err.value) and 0 < len(calls) <= 300  # sizes, each evaluated once


def test_costly_design_search_stops_after_its_outcome_budget(monkeypatch):
    # each size of the iid design at prevalence 0.001 scores up to 10⁷ outcomes (seconds): the
    # search's total is bounded, with the way out (Monte Carlo)
    monkeypatch.setattr(search_module, "SEARCH_OUTCOMES", 10**5)
    with pytest.raises(ValueError, match=r"n_max: the search evaluated [\d,]+ outcomes \(at most 1e\+05.*"
                                         r"plan by Monte Carlo \(reps=\.\.\.\)"):
        cs.plan("wald", design="iid", prevalence=0.001, tpr=0.9, tnr=0.9, width=0.1)


RAGGED = [[1, 2], [3]]
RAGGED_CALLS = {
    "k": lambda: cs.interval("wilson", RAGGED, 10),
    "n": lambda: cs.coverage("wilson", n=RAGGED, p=0.5),
    "tp": lambda: cs.metric_interval("recall", "wilson", tp=RAGGED, fn=3, fp=1, tn=4),
    "confusion": lambda: cs.multiclass_interval("accuracy", "wilson", confusion=RAGGED),
    "successes": lambda: cs.clustered_interval("wilson_vif", RAGGED, [3, 3]),
    "k1": lambda: cs.difference_interval("newcombe", RAGGED, 10, 3, 10),
    "both": lambda: cs.paired_interval("tango", RAGGED, 1, 2, 3),
    "only_first": lambda: cs.superiority_probability(RAGGED, 2),
    "p": lambda: cs.plan("wilson", p=RAGGED, width=0.1),
    "scores_pos": lambda: cs.delong_covariance([[0.1, 0.2], [0.3]], [[0.1, 0.2]]),
    "scores_pos_first": lambda: cs.unpaired_delong([[0.1, 0.2], [0.3]], [0.1, 0.2], [0.3, 0.2], [0.1, 0.2]),
    "truth": lambda: cs.evaluate([[1, 0], [1]], [1, 0]),
}


@pytest.mark.parametrize("name", RAGGED_CALLS)
def test_ragged_lists_get_one_line_naming_the_argument(name):
    with pytest.raises(ValueError) as err:
        RAGGED_CALLS[name]()
    message = str(err.value)
    assert message.startswith(name) and "\n" not in message and "inhomogeneous" not in message


@settings(max_examples=25, deadline=None)
@given(m=st.integers(2, 30), n=st.integers(2, 30), draws=st.integers(1, 60), block=st.integers(1, 200),
       seed=st.integers(0, 2**32), ties=st.booleans())
def test_auc_bootstrap_blocks_do_not_change_the_numbers(monkeypatch_module, m, n, draws, block, seed, ties):
    rng = np.random.default_rng(seed)
    pos, neg = rng.normal(1, 1, (3, m)), rng.normal(0, 1, (3, n))
    if ties:
        pos, neg = np.round(pos), np.round(neg)
    whole = auc_module.bootstrap(pos, neg, 0.05, np.random.default_rng(seed), draws=draws)
    monkeypatch_module.setattr(auc_module, "_RESAMPLE_BLOCK", block)
    rng_blocks = np.random.default_rng(seed)
    blocks = auc_module.bootstrap(pos, neg, 0.05, rng_blocks, draws=draws)
    monkeypatch_module.undo()
    np.testing.assert_array_equal(whole, blocks)
    # the generator ends where one block leaves it: the next test set's draws are unchanged
    rng_whole = np.random.default_rng(seed)
    auc_module.bootstrap(pos, neg, 0.05, rng_whole, draws=draws)
    assert rng_whole.bit_generator.state == rng_blocks.bit_generator.state


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 30), draws=st.integers(1, 60), block=st.integers(1, 200), seed=st.integers(0, 2**32),
       equal=st.booleans())
def test_cluster_bootstrap_blocks_do_not_change_the_numbers(monkeypatch_module, m, draws, block, seed, equal):
    rng = np.random.default_rng(seed)
    sizes = np.full((2, m), 5) if equal else rng.integers(1, 9, (2, m))
    successes = rng.binomial(sizes, 0.7)
    whole = clustered_module.cluster_bootstrap(successes, sizes, 0.05, np.random.default_rng(seed), draws=draws)
    monkeypatch_module.setattr(clustered_module, "_BLOCK", block)
    blocks = clustered_module.cluster_bootstrap(successes, sizes, 0.05, np.random.default_rng(seed), draws=draws)
    monkeypatch_module.undo()
    np.testing.assert_array_equal(whole, blocks)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=6))
def test_unpaired_superiority_repeats_and_scalars_agree(pairs):
    # one quadrature per distinct count set: repeated ones get the same number as a scalar call
    k1 = np.array([a for a, _ in pairs] * 2)
    k2 = np.array([b for _, b in pairs] * 2)
    out = cs.superiority_probability(k1=k1, n1=20, k2=k2, n2=20)
    scalars = [cs.superiority_probability(k1=int(a), n1=20, k2=int(b), n2=20) for a, b in zip(k1, k2)]
    assert out.tolist() == scalars
