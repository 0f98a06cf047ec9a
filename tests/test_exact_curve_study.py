"""A study with exact_curve: true: the exact-curve tables, their figures and the report's column."""

import numpy as np
import pandas as pd
import pytest
import yaml

from covstudy import confidence_coefficient
from covstudy.plots import plot_results
from covstudy.report.markdown import write_report
from covstudy.study.runner import run_study
from covstudy.study.config import ConfigError, Study


def study(out, **changes):
    cfg = {"name": "t", "methods": ["wilson", {"name": "bayes", "a": 1, "b": 1, "label": "flat"}],
           "grid": {"n": [10, 20, 30, 40], "p": {"start": 0.05, "stop": 0.95, "step": 0.15}, "delta": [0.05]},
           "engine": "exact", "n_jobs": 1, "exact_curve": True, "out": str(out)}
    cfg.update(changes)
    return Study.from_config(cfg)


def test_exact_curve_tables_figures_and_report(tmp_path):
    s = study(tmp_path / "a")
    table = run_study(s, progress=False)
    summary = pd.read_csv(s.out / "exact_curve.csv")
    assert len(summary) == 2 * 4 and set(summary["approach"]) <= {"left", "right", "at"}
    assert (summary["p_lo"] == 0.05).all() and (summary["p_hi"] == 0.95).all()
    for r in summary.itertuples():
        params = {"a": 1.0, "b": 1.0} if r.label == "flat" else {}
        cc = confidence_coefficient(r.method, r.n, r.delta, p_range=(0.05, 0.95), **params)
        assert r.confidence_coefficient == cc.value and r.at == cc.at
        grid = table[(table["label"] == r.label) & (table["n"] == r.n) & (table["delta"] == r.delta)]
        assert r.confidence_coefficient <= grid["coverage"].min() + 1e-12  # never above the grid minimum
        assert 0.05 <= r.at <= 0.95
    points = pd.read_csv(s.out / "exact_curve_points.csv")
    assert set(points["n"]) == {10, 30, 40}  # at most three n, spread out, ends included
    curve_min = points.groupby(["label", "n", "delta"])["coverage"].min()
    exact = summary.set_index(["label", "n", "delta"])["confidence_coefficient"]
    np.testing.assert_allclose(curve_min, exact.loc[curve_min.index], rtol=0, atol=1e-15)
    assert yaml.safe_load((s.out / "study.yaml").read_text())["exact_curve"] is True

    paths = [p.name for p in plot_results(s.out, formats=("png",))]
    assert "exact_coverage_vs_p_n30_delta0.05_two-sided_exact.png" in paths
    md, tex = write_report(s.out)
    text = md.read_text()
    assert "| min coverage (grid) | min coverage (exact inf over p) |" in text
    rows = text.split("## Summary per method")[1].split("\n\n")[1].splitlines()[2:]
    assert rows and not any("| nan |" in row for row in rows)  # every label finds its infimum (display names)
    assert "Min cov. (exact inf)" in tex.read_text()


def test_off_by_default_and_study_yaml_unchanged(tmp_path):
    s = study(tmp_path / "b", exact_curve=False, methods=["wilson"], grid={"n": [10], "p": [0.5], "delta": [0.05]})
    run_study(s, progress=False)
    assert not (s.out / "exact_curve.csv").exists()
    assert "exact_curve" not in yaml.safe_load((s.out / "study.yaml").read_text())
    md, _ = write_report(s.out)
    assert "exact inf over p) |" not in md.read_text().split("## Summary per method")[1].split("\n\n")[1]


@pytest.mark.parametrize("changes, message", [
    ({"exact_curve": "yes"}, "exact_curve: must be true or false"),
    ({"grid": {"design": "stratified", "n_pos": [5], "n_neg": [5], "tpr": [0.5], "tnr": [0.5], "delta": [0.05]},
      "methods": ["ba_wald"]}, "exact_curve: only for the binomial design"),
])
def test_bad_config(tmp_path, changes, message):
    with pytest.raises(ConfigError, match=message):
        study(tmp_path / "c", **changes)
