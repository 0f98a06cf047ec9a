"""Studies with a grid.metric axis: configuration, runner rows against the public API, reports."""

import pytest

from covstudy import metric_coverage
from covstudy.study.grid import cells
from covstudy.report.markdown import summary_table
from covstudy.study.runner import run_study
from covstudy.study.config import ConfigError, Study

GRID = dict(design=["iid", "stratified"], metric=["f1", "precision", "balanced_accuracy"], n=[30],
            prevalence=[0.2, 0.5], tpr=[0.8], tnr=[0.9], delta=[0.1])


def config(tmp_path, **over):
    cfg = dict(name="m", methods=["wilson", "f1_delta", {"name": "f1_bootstrap", "draws": 200}, "ba_wald"],
               grid=dict(GRID), reps=300, seed=3, engine="both", n_jobs=1, out=str(tmp_path / "m"))
    cfg.update(over)
    return cfg


def test_rows_match_the_public_api(tmp_path):
    study = Study.from_config(config(tmp_path))
    table = run_study(study, progress=False)
    # each method only for the metrics it applies to: wilson 2 metrics, f1_* 1, ba_wald 1; × 2 designs × 2 prevalences
    assert len(table) == len(cells(study)) == (2 + 1 + 1 + 1) * 2 * 2
    assert set(table.groupby("method")["metric"].unique().map(tuple)) == {("f1", "precision"), ("f1",),
                                                                          ("balanced_accuracy",)}
    for row in table.itertuples():
        params = {"draws": 200} if row.method == "f1_bootstrap" else {}
        api = metric_coverage(row.metric, row.method, row.n, row.prevalence, row.tpr, row.tnr, design=row.design,
                              delta=row.delta, reps=300, seed=3, **params)
        assert (row.coverage, row.mean_width, row.n_valid, row.truth) == (api.coverage, api.mean_width,
                                                                          api.n_valid, api.truth)
        if row.method == "f1_bootstrap":
            assert row.exact_coverage != row.exact_coverage  # NaN: a sampling method has no exact engine
        else:
            exact = metric_coverage(row.metric, row.method, row.n, row.prevalence, row.tpr, row.tnr,
                                    design=row.design, delta=row.delta)
            assert row.exact_coverage == exact.coverage
    summary = summary_table(table)
    assert {"metric", "design"} <= set(summary.columns)
    assert len(summary[(summary["label"] == "Wilson") & (summary["engine"] == "mc")]) == 4  # 2 metrics × 2 designs


def test_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="grid.metric: must be one of"):
        Study.from_config(config(tmp_path, grid={**GRID, "metric": ["f2"]}))
    with pytest.raises(ConfigError, match="grid.metric: only for the confusion-matrix designs"):
        Study.from_config(config(tmp_path, grid=dict(design="binomial", metric="f1", n=[10], p=[0.5], delta=[0.05])))
    with pytest.raises(ConfigError, match="methods\\[1\\]: method 'f1_delta' applies to none of the metrics precision"):
        Study.from_config(config(tmp_path, grid={**GRID, "metric": ["precision"]}))
    with pytest.raises(ConfigError, match="engine: F1 method f1_bootstrap has Monte Carlo coverage only"):
        Study.from_config(config(tmp_path, engine="exact", methods=["wilson", "f1_bootstrap"]))
    with pytest.raises(ConfigError, match=r"grid.n: exact iid coverage needs at most 10,000,000 outcomes \(k, l\)"):
        Study.from_config(config(tmp_path, engine="exact", methods=["wilson"], grid={**GRID, "n": [10**6]}))
    # engine both: those points run Monte Carlo only, and a note says so
    assert "exact iid coverage needs" in Study.from_config(config(tmp_path, grid={**GRID, "n": [10**6]})).notes[0]
    with pytest.raises(ConfigError, match="draws must be a whole number"):
        Study.from_config(config(tmp_path, methods=[{"name": "f1_bootstrap", "draws": 2.5}]))
