"""Issue 28: covstudy-evaluate with a second model gains one row per metric difference and method
(``<metric>_difference``, estimate = first - second), equal to the library's own intervals."""

import json
from pathlib import Path

import numpy as np
import pytest

import covstudy
from covstudy import interval, paired_metric_interval

REF = json.loads((Path(__file__).parent / "data" / "proc_roc_test_reference.json").read_text())


def two_models(n=120, seed=3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    s1 = y + rng.normal(0, 1, n)
    s2 = 0.8 * y + 0.6 * (s1 - y) + 0.8 * rng.normal(0, 1, n)
    return y, (s1 > 0.5).astype(int), (s2 > 0.5).astype(int), s1, s2


def test_metric_differences_equal_the_library_on_the_8_cells():
    y, p1, p2, _, _ = two_models()
    ev = covstudy.evaluate(y, p1, second_predicted=p2, audit=False)
    t, a, b = y == 1, p1 == y, p2 == y
    x = [int(np.sum(c & u & v)) for c in (t, ~t) for u, v in ((a, b), (a, ~b), (~a, b), (~a, ~b))]
    for metric in ("recall", "specificity", "precision", "npv", "f1", "balanced_accuracy"):
        rows = ev.table[ev.table.metric == f"{metric}_difference"]
        assert set(rows.method) >= {"delta", "mover", "bootstrap", "dirichlet"}
        for _, r in rows[rows.method.isin(["delta", "mover"])].iterrows():
            assert (r.lower, r.upper) == pytest.approx(tuple(paired_metric_interval(r.method, metric, *x)), abs=1e-12)
    f1 = lambda p: 2 * np.sum((p == 1) & t) / (2 * np.sum((p == 1) & t) + np.sum(p != y))  # noqa: E731
    est = ev.table[ev.table.metric == "f1_difference"].estimate.iloc[0]
    assert est == pytest.approx(f1(p1) - f1(p2))
    assert "tango" in set(ev.table[ev.table.metric == "recall_difference"].method)  # paired methods on the positives


def test_auc_difference_row_is_procs_paired_delong_on_asah():
    y = (np.array(REF["outcome"]) == "Poor").astype(int)
    s, w = np.array(REF["s100b"], float), np.array(REF["wfns"], float)
    ev = covstudy.evaluate(y, scores=s, second_scores=w, audit=False, metrics=["auc_difference"])
    r = ev.table[(ev.table.metric == "auc_difference") & (ev.table.method == "delong")].iloc[0]
    assert r.lower == pytest.approx(float(REF["paired_lower95"]), abs=1e-13)
    assert r.upper == pytest.approx(float(REF["paired_upper95"]), abs=1e-13)
    assert r.estimate == pytest.approx(float(REF["auc_s100b"]) - float(REF["auc_wfns"]), abs=1e-14)


def test_an_audited_difference_gets_a_recommendation(monkeypatch):
    from covstudy.evaluation import audit

    # smaller decisions and bootstrap audit (their own tests check them in full): 18 → 6 CPU-s, the same rule
    monkeypatch.setattr(audit, "BOOT_BUDGET", audit.BOOT_BUDGET // 4)
    monkeypatch.setattr(audit, "DECIDE_TEST_SETS", 16 * 200)
    y, p1, p2, _, _ = two_models(n=80)
    ev = covstudy.evaluate(y, p1, second_predicted=p2, metrics=["f1_difference"], reps=200)
    rows = ev.table[ev.table.metric == "f1_difference"]
    audited = set(rows[rows.coverage_at_estimate.notna()].method)
    assert rows.recommended.sum() == 1 and {"delta", "mover", "bootstrap"} <= audited  # not dirichlet (sampling)
    assert "dirichlet" not in audited and rows[rows.recommended].meets_target.iloc[0] in ("estimated", "guaranteed")
    # where the approximate rows fall short, the guaranteed cp_box (never audited: its proof is the answer) is it
    assert ev.reasons["f1_difference"] and "correlations" in ev.info["plug_in"]["f1_difference"]
