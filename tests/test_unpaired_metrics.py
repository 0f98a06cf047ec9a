"""Issue 28: two classifiers on two independent test sets, any metric's difference
(designs/unpaired_confusion.py, methods/unpaired_metrics.py), against the difference methods
where a metric is one proportion."""

import math

import numpy as np
import pytest

from covstudy import coverage
from covstudy.designs import DESIGNS
from covstudy.methods import get
from covstudy.methods.paired_metrics import METRICS
from covstudy.methods.unpaired_metrics import difference

RNG = np.random.default_rng(11)
X = RNG.integers(1, 12, size=(40, 8))
POINT = DESIGNS["unpaired_confusion"].example


def by_hand(metric, tp, fn, fp, tn):
    return {"recall": tp / (tp + fn), "specificity": tn / (tn + fp), "precision": tp / (tp + fp),
            "npv": tn / (tn + fn), "accuracy": (tp + tn) / (tp + fn + fp + tn), "f1": 2 * tp / (2 * tp + fp + fn),
            "balanced_accuracy": (tp / (tp + fn) + tn / (tn + fp)) / 2}[metric]


@pytest.mark.parametrize("metric", METRICS)
def test_difference_is_the_metrics_written_out(metric):
    x = X.T.astype(float)
    np.testing.assert_allclose(difference(metric, X), by_hand(metric, *x[:4]) - by_hand(metric, *x[4:]), rtol=1e-13)


@pytest.mark.parametrize("ours, theirs, params", [("um_delta", "diff_wald", {}), ("um_mover", "diff_newcombe", {})])
@pytest.mark.parametrize("metric", ["recall", "specificity", "accuracy"])
def test_a_one_proportion_metric_gives_the_two_sample_interval(ours, theirs, params, metric):
    """delta = the two-sample Wald interval, mover = Newcombe's hybrid score (square-and-add of Wilson)."""
    tp1, fn1, fp1, tn1, tp2, fn2, fp2, tn2 = X.T
    k, n = {"recall": ((tp1, tp1 + fn1), (tp2, tp2 + fn2)), "specificity": ((tn1, tn1 + fp1), (tn2, tn2 + fp2)),
            "accuracy": ((tp1 + tn1, X[:, :4].sum(1)), (tp2 + tn2, X[:, 4:].sum(1)))}[metric]
    got = get(ours).kernel(*X.T, 0.05, metric=metric)
    np.testing.assert_allclose(got, get(theirs).kernel(k[0], k[1], n[0], n[1], 0.05), atol=1e-12)


def test_dirichlet_recall_matches_the_beta_difference_by_quadrature():
    """Recall's marginal under Dirichlet(x + prior) is Beta(tp + prior, fn + prior): diff_bayes with a = b = prior."""
    x = np.array([10, 5, 3, 30, 8, 7, 2, 40])
    ours = get("um_dirichlet").kernel(*x, 0.05, metric="recall", rng=np.random.default_rng(2), mc_error=2e-3)
    theirs = get("diff_bayes").kernel(10, 15, 8, 15, 0.05, a=1.0, b=1.0)
    np.testing.assert_allclose(ours, theirs, atol=4 * 2e-3)


def test_exact_weights_are_the_product_of_the_two_multinomials():
    d = DESIGNS["unpaired_confusion"]
    out = d.exact([d.derive(POINT)])
    assert len(out.weight[0]) == math.comb(POINT["n1"] + 3, 3) * math.comb(POINT["n2"] + 3, 3)
    assert out.weight.sum() == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize("metric, method", [("f1", "mover"), ("precision", "delta"), ("recall", "newcombe")])
def test_monte_carlo_agrees_with_exact_within_4_mcse(metric, method):
    reps = 20_000
    exact = coverage(method, design="unpaired_confusion", metric=f"{metric}_difference", **POINT)
    mc = coverage(method, design="unpaired_confusion", metric=f"{metric}_difference", **POINT, reps=reps, seed=3)
    c = exact.coverage
    assert abs(mc.coverage - c) <= 4 * math.sqrt(c * (1 - c) / reps)


@pytest.mark.parametrize("design", ["paired_confusion", "unpaired_confusion"])
def test_an_undefined_true_difference_is_a_one_line_error_naming_the_axes(design):
    """Both designs' differences share estimands.MetricDifference: precision with a first classifier
    that never predicts positive has no true value."""
    from covstudy.estimands import get_estimand

    d = DESIGNS[design]
    point = {**d.example, "tpr_first": 0.0, "tnr_first": 1.0}
    inputs = d.truth_inputs(d.derive(point))
    with pytest.raises(ValueError, match=r"^prevalence, tpr_first, .*: precision is undefined here"):
        get_estimand(d.data, "precision_difference").truth(inputs)
    assert get_estimand(d.data, "recall_difference").truth(inputs) == pytest.approx(0.0 - d.example["tpr_second"])
