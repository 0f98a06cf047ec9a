"""Issue 24, items 6, 7 and 9-12: bools and strings are not numbers, repeated points, and every
size bounded (reps, draws, levels, Monte Carlo memory, the forecast) in one line before any work."""

import pytest

import covstudy
from covstudy import (DESIGNS, auc_interval, balanced_interval, clustered_interval, coverage, difference_interval,
                      interval, methods, metric_interval, multiclass_coverage, paired_interval, plan,
                      superiority_probability)
from covstudy.study import cost as estimate
from covstudy import validate
from covstudy.study.config import ConfigError, Study
from covstudy.study.runner import run_study
from cli_in_process import covstudy_in_process
from test_designs import one_method_per_kind


def no_work(monkeypatch):
    """Fail if any design generates outcomes: a refusal must come first."""
    for d in DESIGNS.values():
        for engine in ("exact", "simulate"):
            monkeypatch.setattr(type(d), engine, lambda *a, **k: pytest.fail("work before the refusal"))


@pytest.mark.parametrize("call", [
    lambda: interval("wilson", [3, True], [15, 20]),
    lambda: interval("wilson", 3, "20"),
    lambda: coverage("wilson", n=[15, True], p=0.5),
    lambda: coverage("wilson", n=15, p=["0.5"]),
    lambda: coverage("wilson", n=15, p=0.5, delta="0.05"),
    lambda: coverage("wilson", n=15, p=0.5, reps=True),
    lambda: coverage("bayes", n=15, p=0.5, a="1"),
    lambda: balanced_interval("ba_wald", 3, 5, True, 6),
    lambda: metric_interval("f1", "f1_bootstrap", 5, 2, 1, 9, draws="100"),
    lambda: difference_interval("newcombe", 5, [10, True], 4, 10),
    lambda: paired_interval("newcombe", 5, 2, 1, "9"),
    lambda: superiority_probability(3, 2, prior=True),
    lambda: clustered_interval("wilson_vif", [3, 2], [5, 5], icc="0.1"),
    lambda: auc_interval("delong", [0.9, True], [0.1, 0.2]),
    lambda: multiclass_coverage("macro_recall", "mr_wald", n=30, prevalence=[.5, True],
                                rates=[[.8, .2], [.2, .8]]),
    lambda: plan("wilson", p=0.9, width=True),
    lambda: plan("wilson", p_range=("0.1", 0.5), width=0.1),
    lambda: plan("wilson", p=0.9, width=0.1, n_max=True),
    lambda: covstudy.confidence_coefficient("wilson", n=True),
    lambda: methods(takes="nonsense"),
])
def test_bools_and_strings_are_not_numbers(call):
    with pytest.raises(ValueError) as err:
        call()
    assert "\n" not in str(err.value)


def test_config_numbers_refuse_bools_and_strings():
    base = {"name": "t", "methods": ["wilson"], "grid": {"n": [10], "p": [0.5], "delta": [0.05]}}
    for change in ({"reps": "100"}, {"reps": True}, {"grid": {**base["grid"], "n": [15, True]}},
                   {"methods": [{"name": "bayes", "a": "1"}]}):
        with pytest.raises(ConfigError):
            Study.from_config({**base, **change})


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_a_repeated_point_is_computed_once_and_given_to_each_place(name):
    d = DESIGNS[name]
    est, m = one_method_per_kind(d)[0]
    axis = next(a.name for a in d.axes if a.integer and a.name in d.example)
    point = {**d.example, axis: [d.example[axis]] * 2}
    mc = {} if d.exact_engine and not m.per_test_set else {"reps": 50, "seed": 1}
    twice = coverage(m.name, design=name, metric=est.name, **point, **mc)
    once = coverage(m.name, design=name, metric=est.name, **d.example, **mc)
    assert twice.coverage.tolist() == [once.coverage] * 2
    assert len(twice.to_frame()) == 2


def test_reps_is_bounded_before_any_work(monkeypatch):
    no_work(monkeypatch)
    with pytest.raises(ValueError, match=f"^reps must be at most {validate.REPS_MAX:,}, got 1000000000000$"):
        coverage("wilson", n=20, p=0.5, reps=10**12, seed=1)
    with pytest.raises(ConfigError, match=r"^reps: must be an integer in \[1, 100,000,000\]"):
        Study.from_config({"name": "t", "methods": ["wilson"], "reps": 10**12,
                           "grid": {"n": [10], "p": [0.5], "delta": [0.05]}})


@pytest.mark.parametrize("method, design, point", [
    ("f1_bootstrap", "iid", dict(metric="f1", n=20, prevalence=0.3, tpr=0.8, tnr=0.9)),
    ("mf1_bootstrap", "multiclass", dict(metric="macro_f1", K=3, n=9, recall=0.7, imbalance=2.0)),
    ("mf1_bayes", "multiclass", dict(metric="macro_f1", K=3, n=9, recall=0.7, imbalance=2.0)),
    ("bootstrap", "binormal", dict(n_pos=10, n_neg=10, auc=0.8)),
    ("cluster_bootstrap", "clustered", dict(clusters=4, cluster_size=3, p=0.7, icc=0.2)),
])
def test_draws_share_one_bound(method, design, point, monkeypatch):
    no_work(monkeypatch)
    kind = {"iid": "f1", "multiclass": "macro_f1", "binormal": "auc", "clustered": "clustered"}[design]
    short = method.split("_", 1)[1] if design in ("iid", "multiclass") else method
    with pytest.raises(ValueError, match=f"^{kind}.{short}: parameter draws must be a whole number > 0 and <= 1e\\+07"):
        coverage(method, design=design, reps=10, seed=1, draws=10**12, **point)
    # every resampling parameter of the registry is the shared one
    draws = [p for m in methods(None).values() for p in m.params if p.name == "draws"]
    assert len(draws) >= 5 and {p.at_most for p in draws} == {validate.DRAWS_MAX}


def test_levels_are_bounded_before_any_work(monkeypatch):
    no_work(monkeypatch)
    with pytest.raises(ValueError, match=r"^levels: must be 0 .* or in \[2, 1,000\] .*, got 1,000,000,000$"):
        coverage("delong", design="binormal", n_pos=30, n_neg=40, auc=0.9, levels=10**9, reps=10)
    with pytest.raises(ConfigError, match=r"^grid.levels: must be 0 .* or in \[2, 1,000\]"):
        Study.from_config({"name": "t", "methods": ["delong"], "engine": "mc", "reps": 10,
                           "grid": {"design": "binormal", "n_pos": [10], "n_neg": [10], "auc": [0.8],
                                    "levels": [10**9], "delta": [0.05]}})


@pytest.mark.parametrize("method, point, message", [
    ("wilson", dict(design="clustered", clusters=100_000, cluster_size=5, p=0.8, icc=0.1, reps=3000),
     "reps: Monte Carlo at clusters = 100,000 needs ~19.2 GB"),
    ("delong", dict(design="binormal", n_pos=500_000, n_neg=500_000, auc=0.8, reps=1000),
     "reps: Monte Carlo at n_pos = 500,000, n_neg = 500,000 needs ~32.0 GB"),
    ("cluster_bootstrap", dict(design="clustered", clusters=1000, cluster_size=5, p=0.8, icc=0.1, reps=10,
                               draws=10**7), "lower reps, draws, clusters"),
    ("f1_bootstrap", dict(design="iid", metric="f1", n=100, prevalence=0.3, tpr=0.8, tnr=0.9, reps=10**8),
     "more than the 2 GB limit; lower reps, draws"),
])
def test_monte_carlo_memory_is_checked_before_any_work(method, point, message, monkeypatch):
    no_work(monkeypatch)
    with pytest.raises(ValueError) as err:
        coverage(method, seed=1, **point)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_forecast_beyond_the_machines_memory_is_refused(monkeypatch, tmp_path):
    # The check needs the study's cells and tasks (cost.check_fits): the CLI calls it right after
    # Study.from_config, and run_study before any work.
    config = {"name": "t", "methods": ["wilson"], "reps": 1000, "n_jobs": 2, "out": str(tmp_path / "t"),
              "grid": {"n": [10, 20, 30], "p": [0.5], "delta": [0.05]}}
    estimate.check_fits(Study.from_config(config))
    monkeypatch.setattr(estimate, "physical_memory", lambda: 1e8)
    message = (r"^n_jobs: the forecast is ~200 MB a worker on 2 workers, more than "
               r"this machine's 100 MB of memory; lower reps or the grid$")
    with pytest.raises(ConfigError, match=message):
        estimate.check_fits(Study.from_config(config))
    with pytest.raises(ConfigError, match=message):
        run_study(Study.from_config(config), progress=False)
    assert not (tmp_path / "t").exists()
    run = covstudy_in_process(tmp_path, "study=quick", "methods=[wilson]", "reps=1000", "n_jobs=2", "engine=mc",
                              "grid.n=[10,20,30]", "grid.p=[0.5]", "grid.delta=[0.05]", "out=cli")
    assert run.returncode == 2 and not (tmp_path / "cli").exists()
    assert run.stderr.splitlines() == ["covstudy: error: " + message[1:-1].replace("\\", "")]


def test_cli_refuses_unbounded_work_in_one_line_and_writes_nothing(tmp_path):
    for args in (["study=comparing_classifiers", "reps=1000000000000"],
                 ["study=clustered", "grid.clusters=[100000]"]):
        run = covstudy_in_process(tmp_path, *args, "out=o")
        assert run.returncode == 2
        [line] = run.stderr.strip().splitlines()
        assert line.startswith("covstudy: error: reps: ")
        assert not (tmp_path / "o").exists()
