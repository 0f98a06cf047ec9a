"""Test-set size planner: answers against a brute-force scan over n, CLI."""

import numpy as np
import pytest
from scipy import stats

from covstudy import confidence_coefficient, coverage, interval, plan
from covstudy.cli import plan_main as main


def brute_force(method, delta, p_grid, horizon, width=None, width_prob=None, coverage_tol=None, **params):
    """Scan n = 1, 2, ... with the public exact engine; the first n whose window [n, n + horizon] all pass."""
    def passes(n):
        c = coverage(method, n, p_grid, delta, **params)
        ok = True
        if width is not None and width_prob is None:
            ok &= np.max(c.mean_width) <= width + 1e-12
        if width_prob is not None:
            lo, hi = interval(method, np.arange(n + 1), n, delta, **params)
            pmf = stats.binom.pmf(np.arange(n + 1), n, np.asarray(p_grid)[:, None])
            ok &= np.min(pmf @ (hi - lo <= width + 1e-12)) >= width_prob - 1e-12
        if coverage_tol is not None:  # the worst p: both sides of every interval end in the range
            lo, hi = interval(method, np.arange(n + 1), n, delta, **params)
            p = np.concatenate([lo, hi]) + np.array([[-1e-11], [1e-11]])
            p = np.concatenate([p[(p >= p_grid[0]) & (p <= p_grid[-1])], p_grid])
            ok &= np.min(coverage(method, n, p, delta, **params).coverage) >= 1 - delta - coverage_tol - 1e-9
        return bool(ok)

    ok = {}
    n = 1
    while True:
        if all(ok.setdefault(m, passes(m)) for m in range(n, n + horizon + 1)):
            return n
        n += 1


@pytest.mark.parametrize("method,kwargs", [
    ("wilson", dict(p=0.9, width=0.1)),
    ("clopper_pearson", dict(p=0.9, width=0.1)),
    ("wald", dict(p=0.9, width=0.1)),  # Wald's width is 0 at n = 1: the horizon rules that out
    ("jeffreys", dict(p=0.97, width=0.08)),
    ("wilson", dict(p=0.8, width=0.15, width_prob=0.9)),
    ("agresti_coull", dict(p=0.95, width=0.1, width_prob=0.8)),
    # the coverage target is the exact infimum over the range (on a grid of 11 p these two
    # gave n = 194 and 123 at coverage_tol 0.01; exactly they need 280 and 517, costly to scan)
    ("wald", dict(p_range=(0.3, 0.7), coverage_tol=0.02)),
    ("wilson", dict(p_range=(0.05, 0.5), coverage_tol=0.02, width=0.2)),
    ("bayes", dict(p=0.9, width=0.12, a=2.0, b=1.0)),
])
def test_planner_matches_brute_force(method, kwargs):
    r = plan(method, delta=0.05, horizon=10, p_points=11, **kwargs)
    params = {k: v for k, v in kwargs.items() if k in ("a", "b")}
    targets = {k: v for k, v in kwargs.items() if k in ("width", "width_prob", "coverage_tol")}
    assert r.n == brute_force(method, 0.05, np.array(r.p), 10, **targets, **params)
    assert r.n in [row["n"] for row in r.table] and r.method == method


def test_known_answers_and_table():
    r = plan(method="wilson", p=0.9, delta=0.05, width=0.1)
    # the normal approximation 4·z²·p(1-p)/w² = 138.3 agrees for Wilson at this p
    assert r.n == 139 and r.evaluations < 60
    row = {row["n"]: row for row in r.table}
    assert row[139]["mean_width"] <= 0.1 < coverage("wilson", 138, 0.9).mean_width
    assert row[139]["mean_width"] == pytest.approx(coverage("wilson", 139, 0.9).mean_width, abs=1e-12)
    assert plan("wilson", p=0.9, width=0.1, horizon=0).n == 139
    assert plan("clopper_pearson", p=0.9, width=0.1).n == 155  # exact intervals are wider
    assert plan("wilson", p=0.9, width=0.1, side="lower").n < 139  # a one-sided margin


def test_coverage_target_is_the_exact_infimum():
    # a grid of 11 p misses the dips next to the interval ends: the exact target needs more
    r = plan("wilson", delta=0.05, p_range=(0.05, 0.5), coverage_tol=0.01, p_points=11)
    assert r.n == 517
    worst = {row["n"]: row["min_coverage"] for row in r.table}[r.n]
    assert worst == confidence_coefficient("wilson", 517, 0.05, p_range=(0.05, 0.5)).value >= 0.94 - 1e-12
    assert confidence_coefficient("wilson", 516, 0.05, p_range=(0.05, 0.5)).value < 0.94


def test_bad_input():
    with pytest.raises(ValueError, match="exactly one of p"):
        plan("wilson", width=0.1)
    with pytest.raises(ValueError, match="target: give width"):
        plan("wilson", p=0.9)
    with pytest.raises(ValueError, match="width_prob needs width"):
        plan("wilson", p=0.9, width_prob=0.9, coverage_tol=0.01)
    with pytest.raises(ValueError, match="width must be a number in \\(0, 1\\]"):
        plan("wilson", p=0.9, width=-1)
    with pytest.raises(ValueError, match="p_range must have lo <= hi"):
        plan("wilson", p_range=(0.9, 0.1), width=0.1)
    with pytest.raises(ValueError, match="no n <= 50 meets the target"):
        plan("wilson", p=0.9, width=0.1, n_max=50)


def test_cli(capsys):
    assert main(["--method", "wilson", "--p", "0.9", "--delta", "0.05", "--width", "0.1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("n = 139  (wilson, delta=0.05, two-sided: mean width <= 0.1 at p = 0.9)")
    assert "139       0.09981" in out
    assert main(["--method", "bayes", "--p", "0.9", "--width", "0.1", "--param", "a=0"]) == 2
    err = capsys.readouterr().err
    assert err == "covstudy-plan: error: proportion.bayes: parameter a must be a finite number > 0 and <= 1e+10, got 0.0\n"
    with pytest.raises(SystemExit) as exc:
        main(["--method", "wilson", "--p", "x"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("covstudy-plan: error: argument --p: invalid float")


def test_cli_half_width_is_half_the_width_and_not_both(capsys):
    assert main(["--method", "wilson", "--p", "0.9", "--width", "0.1"]) == 0
    whole = capsys.readouterr().out
    assert main(["--method", "wilson", "--p", "0.9", "--half-width", "0.05"]) == 0
    assert capsys.readouterr().out == whole
    with pytest.raises(SystemExit) as exc:
        main(["--method", "wilson", "--p", "0.9", "--width", "0.1", "--half-width", "0.05"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--half-width" in err and "not allowed with" in err


def test_a_metric_of_another_design_names_the_design_that_takes_it(capsys):
    """recall under the default binomial design: the error says --design stratified (issue 57)."""
    assert main(["--method", "wilson", "--metric", "recall", "--p", "0.9", "--width", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a metric of the binomial design (its metrics: accuracy)" in err
    assert "pass --design stratified" in err
    with pytest.raises(ValueError, match="design='stratified' in Python"):
        plan("wilson", metric="recall", p=0.9, width=0.1)
    with pytest.raises(ValueError, match="metric must be one of accuracy, got 'no_such'"):  # a metric of no design
        plan("wilson", metric="no_such", p=0.9, width=0.1)
