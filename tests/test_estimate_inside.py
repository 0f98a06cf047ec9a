"""No interval evaluate reports lies beside its own row's estimate (issue 57).

Every method of the multi-class metrics (macro recall, macro-F1, the binary balanced accuracy) on
small tables of 2-5 classes, and every interval ``evaluate`` reports on small binary and 3-class
test sets: where the row's estimate (the method's own, ``intervals.point_estimate``, else the
metric's plug-in) is strictly inside (0, 1), the interval holds it. A Bayesian interval centres on
its posterior, so its row's estimate is the posterior median (``register(estimate=...)``).
"""

import itertools

import numpy as np
import pytest

from covstudy import evaluate, interval, methods
from covstudy.intervals import point_estimate

SLACK = 1e-9  # rounding of the quantile solvers


def tables(K: int, rng) -> list[np.ndarray]:
    """Small K×K confusion matrices: perfect but for one error at a few class sizes (the tables where
    a prior pulling every recall toward 1/2 shows most), then random ones with small counts."""
    out = []
    for size in (1, 3, 20):
        c = np.diag(np.full(K, size) + np.arange(K))
        c[1, 0] += 1
        out.append(c)
    for _ in range(4):
        c = rng.integers(0, 3, (K, K)) + np.diag(rng.integers(1, 12, K))
        out.append(c)
    return out


def own(method, **counts):
    """The row's estimate as evaluate reports it: the method's own, else the metric's plug-in."""
    value = point_estimate(method, **counts)
    if value is not None:
        return value
    c = np.asarray(counts["confusion"], dtype=float)
    recalls = np.diag(c) / c.sum(1)
    if counts["metric"] == "macro_recall":
        return recalls.mean()
    precision = np.diag(c) / c.sum(0)
    return np.mean(2 * np.diag(c) / (c.sum(0) + c.sum(1))) if np.all(c.sum(0) + c.sum(1)) else np.nan


@pytest.mark.parametrize("K", [2, 3, 4, 5])
def test_every_multiclass_method_holds_its_rows_estimate(K):
    rng = np.random.default_rng(K)
    for c, metric in itertools.product(tables(K, rng), ("macro_recall", "macro_f1")):
        for name in methods(metric):
            counts = dict(metric=metric, confusion=c.tolist())
            params = {"draws": 400} if "draws" in methods()[name].defaults else {}
            lo, hi = interval(name, **counts, **params)
            est = own(name, **counts, **params)
            if 0 < est < 1:
                assert lo - SLACK <= est <= hi + SLACK, (name, c.tolist(), est, lo, hi)


def test_the_issue_table_macro_recall_posterior_holds_the_macro_recall():
    """[[18,0,0],[0,20,1],[0,0,15]]: the uniform prior's [0.8624, 0.9815] lay below the macro recall 0.9841."""
    c = [[18, 0, 0], [0, 20, 1], [0, 0, 15]]
    lo, hi = interval("macro_recall.posterior", metric="macro_recall", confusion=c)
    assert lo < (1 + 20 / 21 + 1) / 3 < hi
    old = interval("macro_recall.posterior", metric="macro_recall", confusion=c, prior=1)
    assert old.upper < (1 + 20 / 21 + 1) / 3  # the pull the default prior removes: the test can fail


def test_balanced_methods_hold_their_rows_estimate():
    for n_pos, n_neg in ((1, 2), (3, 5), (12, 7), (40, 30)):
        for k_pos, k_neg in itertools.product(range(n_pos + 1), range(n_neg + 1)):
            if (k_pos, k_neg) != (n_pos, n_neg) and k_pos + k_neg and (n_pos > 12 and k_pos < n_pos - 2):
                continue  # large tables: only the near-perfect ones, where a prior pulls most
            counts = dict(k_pos=k_pos, n_pos=n_pos, k_neg=k_neg, n_neg=n_neg)
            plug = (k_pos / n_pos + k_neg / n_neg) / 2
            for name in methods("balanced"):
                lo, hi = interval(name, **counts)
                est = point_estimate(name, **counts)
                est = plug if est is None else est
                if 0 < est < 1:
                    assert lo - SLACK <= est <= hi + SLACK, (name, counts, est, lo, hi)


def binary_sets(rng):
    """Small binary test sets: (truth, predicted, scores), a good and a middling classifier at n = 8..40."""
    for n, accuracy in ((8, 0.9), (15, 0.75), (40, 0.95), (40, 0.6)):
        truth = np.r_[np.ones(n // 2, int), np.zeros(n - n // 2, int)]
        predicted = np.where(rng.random(n) < accuracy, truth, 1 - truth)
        scores = np.clip(truth * 0.3 + rng.random(n) * 0.7, 0, 1)
        yield truth, predicted, scores


@pytest.mark.filterwarnings("ignore:second_scores")  # reversed on purpose: the second model's scores vary too
def test_every_interval_evaluate_reports_holds_its_rows_estimate():
    """Every row of evaluate's table (audit off: the intervals and estimates are what is checked) on small
    binary test sets with scores and a second classifier, on 3-class ones, with clusters and as an eval's
    answers (judged rows: tests/test_judged.py)."""
    rng = np.random.default_rng(57)
    runs = [dict(truth=t, predicted=p, scores=s, second_predicted=p[::-1].copy(), second_scores=s[::-1].copy())
            for t, p, s in binary_sets(rng)]
    for n in (9, 30):
        truth = np.arange(n) % 3
        runs.append(dict(truth=truth, predicted=np.where(rng.random(n) < 0.85, truth, (truth + 1) % 3)))
    truth, predicted, _ = next(binary_sets(np.random.default_rng(1)))
    truth, predicted = np.tile(truth, 6), np.tile(predicted, 6)  # 48 rows: in 12 clusters, then as 16 questions' answers
    runs += [dict(truth=truth, predicted=predicted, groups=np.arange(48) % 12),
             dict(truth=truth, predicted=predicted, questions=np.arange(48) // 3)]
    checked = 0
    for run in runs:
        table = evaluate(**run, audit=False, progress=False).table
        table = table[table.lower.notna()]
        signed = table.metric.str.endswith("_difference")  # a difference lies in (-1, 1)
        inside = np.where(signed, table.estimate.abs() < 1, (table.estimate > 0) & (table.estimate < 1))
        rows = table[inside]
        bad = rows[(rows.lower > rows.estimate + SLACK) | (rows.upper < rows.estimate - SLACK)]
        assert bad.empty, bad[["metric", "method", "estimate", "lower", "upper"]].to_string()
        checked += len(rows)
    assert checked > 350  # the sweep saw every metric's methods, not a few rows
