"""The one public coverage() over every design, its result type, run_study, and the design= CLI."""

import numpy as np
import pandas as pd
import pytest
from cli_in_process import covstudy_in_process

import covstudy
from covstudy import DESIGNS, balanced_coverage, coverage, metric_coverage, multiclass_coverage
from covstudy.estimands import estimands_for
from covstudy.methods import methods


def test_coverage_by_design_equals_the_earlier_front_doors():
    new = coverage("ba_cp_union", design="stratified", n_pos=30, n_neg=70, tpr=0.9, tnr=0.8)
    old = balanced_coverage("ba_cp_union", 0.9, 0.8, n_pos=30, n_neg=70)
    assert (new.coverage, new.mean_width, new.truth) == (old.coverage, old.mean_width, old.truth)
    by_n = coverage("ba_cp_union", design="stratified", n=100, prevalence=0.3, tpr=0.9, tnr=0.8)
    assert (by_n.n_pos, by_n.n_neg, by_n.coverage) == (30, 70, new.coverage)
    m = coverage("wilson", design="iid", metric="precision", n=40, prevalence=0.3, tpr=0.8, tnr=0.9, reps=500, seed=3)
    assert m.coverage == metric_coverage("precision", "wilson", 40, 0.3, 0.8, 0.9, reps=500, seed=3).coverage
    assert coverage("wilson", n=50, p=0.2).coverage == coverage("wilson", 50, 0.2).coverage


def test_result_fields_frame_and_repr():
    r = coverage("wilson", n=30, p=[0.1, 0.5, 0.9], reps=1000, seed=1)
    assert r.n == 30 and r.p.tolist() == [0.1, 0.5, 0.9] and r.coverage.shape == (3,)
    frame = r.to_frame()
    assert list(frame["p"]) == [0.1, 0.5, 0.9] and len(frame) == 3
    assert {"method", "design", "metric", "n", "delta", "engine", "truth", "coverage", "mcse", "n_valid"} <= set(frame)
    assert frame["coverage"].tolist() == r.coverage.tolist()
    assert "\n" not in repr(r) and "wilson" in repr(r) and "p=[0.1 … 0.9] (3 values)" in repr(r)
    one = coverage("wilson", n=30, p=0.5)
    assert isinstance(one.coverage, float) and len(one.to_frame()) == 1 and "exact" in repr(one)
    with pytest.raises(AttributeError):
        one.tpr


@pytest.mark.parametrize("kwargs, message", [
    (dict(design="paird", n=10, p=0.5), "design must be one of binomial, stratified, iid, "),  # then any newer designs
    (dict(design="stratified", n_pos=3, n_neg=4, tpr=0.9, tnr=0.8, p=0.5), "p: not an axis of design stratified"),
    (dict(design="iid", n=10, tpr=0.9, tnr=0.8), "design iid needs the axes n, prevalence, tpr, tnr"),
    (dict(design="iid", n=2_000_000, prevalence=0.5, tpr=0.9, tnr=0.8, reps=10), "n: iid Monte Carlo needs n <= 1,000,000"),
    (dict(n=10**10, p=0.5), "n: exact binomial coverage needs n <= 1,000,000,000"),
    (dict(design="stratified", metric="f2", n=10, prevalence=0.5, tpr=0.9, tnr=0.8), "metric must be one of"),
])
def test_bad_input_is_one_line_before_any_work(kwargs, message):
    with pytest.raises(ValueError) as err:
        coverage("wilson" if kwargs.get("design") in (None, "paird") else "ba_wald", **kwargs)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_run_study_from_a_notebook(tmp_path):
    table = covstudy.run_study("quick", overrides=["grid.n=[10]", "grid.p=[0.2,0.4]", "engine=exact"],
                               out=tmp_path / "q", progress=False)
    assert isinstance(table, pd.DataFrame) and len(table) == 5 * 2
    assert (tmp_path / "q" / "results.csv").is_file()
    table = covstudy.run_study("quick", overrides=["design=iid", "grid.n=[12]", "grid.prevalence=[0.3]",
                                                   "grid.tpr=[0.9]", "engine=exact", "methods=[ba_wald]"],
                               out=tmp_path / "i", progress=False)
    assert set(table["design"]) == {"iid"} and len(table) == 1
    with pytest.raises(covstudy.ConfigError, match="grid.p: must be in"):
        covstudy.run_study("quick", overrides=["grid.p=[2]"], out=tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def covstudy_cli(tmp_path, *args):
    return covstudy_in_process(tmp_path, *args, "plot=false")  # in-process: a fresh python costs ~3 CPU-s


def test_cli_design_group_as_typed(tmp_path):
    run = covstudy_cli(tmp_path, "design=stratified", "grid.n=[100]", "grid.prevalence=[0.1]", "grid.tpr=[0.9]",
                       "grid.tnr=[0.8]", "methods=[ba_wald]", "reps=300", "out=o")
    assert run.returncode == 0, run.stderr
    table = pd.read_csv(tmp_path / "o" / "results.csv")
    assert table[["design", "n", "n_pos", "n_neg"]].values.tolist() == [["stratified", 100, 10, 90]]


@pytest.mark.parametrize("args, message", [
    (["study=balanced_imbalance", "grid.design=[stratified]", "grid.n=[2000000]", "grid.prevalence=[0.5]",
      "grid.tpr=[0.5]", "grid.tnr=[0.5]", "methods=[ba_wald]", "engine=exact"],
     "grid.n: exact coverage needs at most 10,000,000 outcomes (tp, tn) carrying all but 1e-15 of the probability, "
     "got 71,927,361 at n_pos = 1,000,000, n_neg = 1,000,000, tpr = 0.5, tnr = 0.5; use engine mc"),
    (["design=iid", "grid.n=[5000]", "engine=exact"], "grid.n: exact iid coverage needs at most 10,000,000 outcomes (n_pos, tp, tn) carrying all but 1e-15 "
     "of the probability, got 19,465,593 at n = 5,000, prevalence = 0.1, tpr = 0.8, tnr = 0.9; use engine mc"),
    (["grid.n=[10000000000]", "engine=exact"], "grid.n: exact binomial coverage needs n <= 1,000,000,000"),
    (["design=iid", "grid.n=[2000000]", "engine=mc"], "grid.n: iid Monte Carlo needs n <= 1,000,000"),
    (["design=stratified", "grid.n_pos=[30]", "grid.n_neg=[70]"],
     "grid.n_neg: design stratified takes n, prevalence or n_neg, n_pos, not both; set the others to null"),
    (["design=paird"], f"design: must be one of {', '.join(sorted(DESIGNS))}, got 'paird'"),  # every design, sorted
])
def test_cli_refuses_infeasible_configs_before_any_work(tmp_path, args, message):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("earlier results")
    run = covstudy_cli(tmp_path, *args, "out=out")
    assert run.returncode == 2
    [line] = run.stderr.strip().splitlines()
    assert line.startswith(f"covstudy: error: {message}")
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_cli_help_lists_designs_methods_and_studies(tmp_path):
    run = covstudy_cli(tmp_path, "--help")
    assert run.returncode == 0
    for word in ("binomial", "stratified", "iid", "cp_union", "bootstrap", "clopper_pearson", "bcd2001",
                 "covstudy-plot", "covstudy-plan", "balanced_accuracy (default)"):
        assert word in run.stdout, word
    assert not list(tmp_path.iterdir())


def test_array_axes_give_the_numbers_of_single_points():
    # points evaluated together (shared interval tables, one call) equal points evaluated alone, bit for bit
    a = coverage("ba_posterior", design="iid", n=14, prevalence=0.4, tpr=[0.7, 0.9], tnr=0.8)
    b = [coverage("ba_posterior", design="iid", n=14, prevalence=0.4, tpr=t, tnr=0.8).coverage for t in (0.7, 0.9)]
    assert np.array_equal(a.coverage, b)


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_to_frame_of_every_design_has_one_row_per_point(name):
    d = DESIGNS[name]
    est = estimands_for(d.data)[0]
    method = next(iter(methods(est.takes[0]).values())).name
    axis = next(k for k, v in d.example.items() if isinstance(v, float))  # two points along it
    point = {**d.example, axis: [d.example[axis], 0.9 * d.example[axis]]}
    r = coverage(method, design=name, metric=est.name, reps=None if d.exact_engine else 200, seed=1, **point)
    frame = r.to_frame()
    assert len(frame) == 2 and frame[axis].tolist() == point[axis]
    np.testing.assert_array_equal(frame["coverage"], r.coverage)
    assert set(d.example) <= set(frame.columns)


@pytest.mark.parametrize("design", ["multiclass", "multiclass_iid"])
@pytest.mark.parametrize("metric, method", [("macro_recall", "mr_wald"), ("accuracy", "wilson")])
def test_to_frame_of_a_full_matrix_point(design, metric, method):
    prevalence, rates = [0.5, 0.3, 0.2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7]]
    r = multiclass_coverage(metric, method, n=12, prevalence=prevalence, rates=rates, design=design)
    frame = r.to_frame()  # raised: a vector-valued axis was spread over the rows
    assert len(frame) == 1 and frame["prevalence"][0] == (0.5, 0.3, 0.2) and frame["rates"][0][1] == (0.2, 0.7, 0.1)
    assert frame["coverage"][0] == r.coverage and frame["truth"][0] == r.truth
