"""The covstudy command: the default study end to end, overrides, bad input, multirun."""

import dataclasses
import os
import re
import subprocess
import sys

import pandas as pd

import pytest
from cli_in_process import covstudy_in_process
from hydra import compose as hydra_compose
from hydra import initialize_config_dir
from omegaconf import OmegaConf

from covstudy import cli
from covstudy.study import cost as estimate, grid, intervals
from covstudy.study.runner import run_study
from covstudy.study.config import ConfigError, Study

COLUMNS = ["method", "n", "p", "delta", "engine", "reps", "seed", "coverage", "mcse", "miss_low", "miss_high",
           "mean_width"]


def covstudy(tmp_path, *args, plot=False):
    """The command; the default study draws its figures (conf/study/quick.yaml), which these runs need not."""
    args = [*args, *([] if plot or any(a.startswith("plot=") for a in args) else ["plot=false"])]
    return subprocess.run([sys.executable, "-m", "covstudy", *args], cwd=tmp_path, capture_output=True, text=True)


def compose(*overrides, config="config"):
    """The config the covstudy command would see, composed in-process."""
    with initialize_config_dir(config_dir=cli._conf_dir(), version_base="1.3"):
        cfg = hydra_compose(config_name=config, overrides=list(overrides))
    return OmegaConf.to_container(cfg, resolve=True)


def test_default_study_end_to_end(tmp_path):
    run = covstudy(tmp_path, plot=True)
    assert run.returncode == 0, run.stderr
    table = pd.read_csv(tmp_path / "results" / "quick" / "results.csv")
    # The first run ends with a picture: figures, the reports, and the last line says how to open them.
    quick = tmp_path / "results" / "quick"
    assert (quick / "report.html").is_file() and (quick / "report.md").is_file()
    assert list((quick / "figures").glob("*.png")) and (tmp_path / "results" / "index.html").is_file()
    last = run.stdout.strip().splitlines()[-1]
    assert "results/quick/report.html" in last and (quick / "report.html").resolve().as_uri() in last
    assert "results/quick/report.md" in last
    assert all(col in table.columns for col in COLUMNS)
    assert len(table) == 5 * 3 * 99
    assert "Clopper–Pearson" in run.stdout and "mean coverage" in run.stdout
    # exact and mc rows side by side: the line under the summary says why their "below nominal" differ (issue 57),
    # and the figures' line gives their CPU, which the cells' forecast leaves out
    assert intervals.BELOW_NOTE in run.stdout.splitlines()
    assert re.search(r"figure files in .* \(with the reports, \d+ s of CPU beyond the cells\)", run.stdout)
    # Hydra leaves nothing in the working directory but the study folder.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]
    assert not (tmp_path / "outputs").exists()


def test_one_engine_needs_no_note_on_below_nominal(tmp_path):
    run = covstudy_in_process(tmp_path, "grid.n=[20]", "methods=[wald]", "engine=exact")
    assert run.returncode == 0, run.stderr
    assert "below nominal" in run.stdout and intervals.BELOW_NOTE not in run.stdout


def test_overrides_map_to_the_table(tmp_path):
    run = covstudy_in_process(tmp_path, "grid.n=[20,50]", "methods=[wilson,wald]", "engine=exact", "grid.p=[0.1,0.5]",
                   "out=results/mine", "plot=true")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "results" / "mine" / "report.md").is_file()
    assert list((tmp_path / "results" / "mine" / "figures").glob("*.png"))
    table = pd.read_csv(tmp_path / "results" / "mine" / "results.csv")
    assert sorted(set(table["method"])) == ["wald", "wilson"]
    assert sorted(set(table["n"])) == [20, 50] and set(table["engine"]) == {"exact"}
    assert table["reps"].isna().all() and (table["mcse"] == 0).all()


BAD_INPUT = [
    ("+colour=red", "colour: unknown key"),
    ("+grid.q=[1]", "grid.q: unknown key"),
    ("reps=abc", "reps: must be an integer in [1, 100,000,000], got 'abc'"),
    ("reps=0", "reps: must be an integer in [1, 100,000,000], got 0"),
    ("grid.p=[0.2,1.5]", "grid.p: must be in [0.0, 1.0], got 1.5"),
    ("grid.n=[0,10]", "grid.n: must be in [1, inf], got 0"),
    ("grid.n=[10.5]", "grid.n: must be whole numbers in [1, inf], got 10.5"),
    ("grid.delta=[1.0]", "grid.delta: must be in [1e-10, 0.5], got 1.0 (delta is the miss rate: 95% confidence is delta=0.05)"),
    ("grid.n=[]", "grid.n: empty grid"),
    ("methods=[wilson,wilsno]", "methods[1]: unknown method 'wilsno' (did you mean 'wilson'?)"),
    ("engine=fast", "engine: must be one of mc, exact, both, got 'fast'"),
    ("n_jobs=0", "n_jobs: must be -1 (all cores) or an integer >= 1"),
]


@pytest.mark.parametrize("override, message", BAD_INPUT)
def test_bad_input_messages(override, message):
    with pytest.raises(ConfigError) as err:
        Study.from_config(compose(override))
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("override, message", [
    BAD_INPUT[0], BAD_INPUT[2], BAD_INPUT[9],
    ("grid.p=${seq:0.5,0.1,0.1}", "grid.p: range needs numbers with step > 0 and stop >= start"),
])
def test_bad_input_one_line_and_nothing_touched(tmp_path, override, message):
    out = tmp_path / "results" / "old"
    out.mkdir(parents=True)
    (out / "results.csv").write_text("precious\n")
    run = covstudy_in_process(tmp_path, override, f"out={out}")
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [f"covstudy: error: {run.stderr.split('error: ')[1].strip()}"]
    assert message in run.stderr
    assert sorted(p.name for p in out.iterdir()) == ["results.csv"]
    assert (out / "results.csv").read_text() == "precious\n"
    fresh = covstudy_in_process(tmp_path, override, "out=results/new")
    assert fresh.returncode == 2 and not (tmp_path / "results" / "new").exists()


def test_an_error_of_the_real_command_is_one_line_and_exit_2(tmp_path):
    """End to end (the console script, Hydra's exit): the other error tests run in-process."""
    run = covstudy(tmp_path, "reps=0", "out=x")
    assert run.returncode == 2
    assert run.stderr == "covstudy: error: reps: must be an integer in [1, 100,000,000], got 0\n"
    assert list(tmp_path.iterdir()) == []


def test_multirun_over_a_study_knob_writes_each_run_to_its_own_out(tmp_path):
    run = covstudy_in_process(tmp_path, "-m", "seed=1,2", "out=results/seed${seed}", "grid.n=[10]", "grid.p=[0.3]",
                   "methods=[wald]", "reps=100", "n_jobs=1")
    assert run.returncode == 0, run.stderr
    a = pd.read_csv(tmp_path / "results" / "seed1" / "results.csv")
    b = pd.read_csv(tmp_path / "results" / "seed2" / "results.csv")
    assert a["seed"].tolist() == [1] and b["seed"].tolist() == [2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]  # multirun.yaml: results/.multirun/


STUDIES = sorted(p.stem for p in (cli.Path(cli._conf_dir()) / "study").glob("*.yaml"))


@pytest.mark.parametrize("name", STUDIES)
def test_every_study_config_composes_and_runs_tiny(tmp_path, name):
    cfg = compose(f"study={name}")
    if cfg.get("bands"):  # a band study (bands/study.py): its own config and tables
        from covstudy.bands.study import BandStudy, run_band_study

        assert BandStudy.from_config(cfg).out == cli.Path("results") / name
        cfg["grid"] = {axis: None if values is None else values[:1] for axis, values in cfg["grid"].items()}
        cfg.update(reps=5, plot=False, out=str(tmp_path / name))
        study = BandStudy.from_config(cfg)
        assert study.name == name and study.question
        table = run_band_study(study)
        assert len(table) == sum(len(v) for v in study.methods.values()) and table["containment"].between(0, 1).all()
        return
    if cfg.get("calibration"):  # a calibration study (calibration/study.py): its own config and table
        from covstudy.calibration.study import CalibrationStudy, run_calibration_study

        assert CalibrationStudy.from_config(cfg).out == cli.Path("results") / name
        cfg["grid"] = {axis: None if values is None else values[:1] for axis, values in cfg["grid"].items()}
        cfg["calibration"]["draws"] = 20
        cfg.update(reps=10, plot=False, out=str(tmp_path / name))
        study = CalibrationStudy.from_config(cfg)
        assert study.name == name and study.question
        table = run_calibration_study(study)
        assert len(table) > 0 and table["coverage"].dropna().between(0, 1).all()
        return
    if cfg.get("sequential"):  # a sequential study (sequential/study.py): its own config and tables
        from covstudy.sequential.study import SequentialStudy, run_sequential_study

        assert SequentialStudy.from_config(cfg).out == cli.Path("results") / name
        block = cfg["sequential"]
        block.update(p=block["p"][:2], check={"reps": 20, "p": [0.5]})
        for part in block["parts"].values():
            part.update({key: part[key][:2] for key in ("methods", "n_max", "looks", "batch") if key in part})
        cfg.update(plot=False, out=str(tmp_path / name))
        study = SequentialStudy.from_config(cfg)
        assert study.name == name and study.question
        table = run_sequential_study(study)
        assert len(table) > 0 and table["coverage"].between(0, 1).all()
        return
    if cfg.get("leaderboard"):  # a leaderboard study (leaderboard/study.py): its own config and tables
        from covstudy.leaderboard.study import LeaderboardStudy, run_leaderboard_study

        assert LeaderboardStudy.from_config(cfg).out == cli.Path("results") / name
        block = cfg["leaderboard"]
        block.update({axis: block[axis][:1] for axis in ("k", "n", "spread", "rho")}, reps=5,
                     check={"k": 3, "n": 4, "reps": 50})
        cfg.update(plot=False, out=str(tmp_path / name))
        study = LeaderboardStudy.from_config(cfg)
        assert study.name == name and study.question
        table = run_leaderboard_study(study, progress=open(os.devnull, "w"))
        assert len(table) == len(study.methods) and table["rank_coverage"].between(0, 1).all()
        return
    study = Study.from_config(cfg)
    assert study.name == name and study.question
    assert study.out == cli.Path("results") / name
    cfg["grid"] = {axis: None if values is None else values[:2] for axis, values in cfg["grid"].items()}
    cfg.update(reps=50, n_jobs=1, out=str(tmp_path / name))
    # 50 data sets a point, fewer where the plan forecasts more than 1 CPU-s for that (crossval:
    # every data set is a repeated, nested cross-validation): the same cells, checks and code paths
    forecast = estimate.cpu_seconds(grid.tasks(grid.cells(Study.from_config(cfg)), 1))
    if forecast > 1:
        cfg["reps"] = max(20, int(50 / forecast))
    table = run_study(Study.from_config(cfg), progress=False)
    assert len(table) == len(grid.cells(Study.from_config(cfg))) > 0
    assert table["coverage"].between(0, 1).all()


DESIGNS = sorted(p.stem for p in (cli.Path(cli._conf_dir()) / "design").glob("*.yaml"))


@pytest.mark.parametrize("design", DESIGNS)
def test_every_design_runs_with_its_own_defaults(tmp_path, design):
    """``covstudy design=D``: its defaults validate as they are (engine both runs Monte Carlo where the
    exact engine cannot take a point) and run, here by Monte Carlo with 20 test sets a point (the
    exact engine's cost does not shrink with reps; each design's own tests run it)."""
    study = cli.load_study("quick", [f"design={design}"])
    assert study.out == cli.Path("results") / design  # not results/quick: one design after another
    assert all("\n" not in note for note in study.notes)
    own = OmegaConf.load(cli.Path(cli._conf_dir()) / "design" / f"{design}.yaml")
    assert (study.reps, study.engine) == (own.get("reps", 10000), own.get("engine", "both"))  # the design's, if any
    small = dataclasses.replace(study, reps=20, engine="mc", n_jobs=1, plot=False, out=tmp_path / design)
    table = run_study(small, progress=False)
    assert len(table) == len(grid.cells(study)) and table["coverage"].between(0, 1).all()


def test_paired_binormal_defaults_draw_their_figures(tmp_path):
    """``covstudy design=paired_binormal`` (plot=true: the quick study's) labelled its points by n, a column
    the design does not have."""
    from covstudy.plots import plot_results

    study = cli.load_study("quick", ["design=paired_binormal", "reps=20", "n_jobs=1"], out=tmp_path / "pb")
    run_study(study, progress=False)
    assert [p.name for p in plot_results(study.out) if p.suffix == ".png"]


def test_engine_both_runs_monte_carlo_where_the_exact_engine_cannot_and_says_so(tmp_path):
    base = ["design=paired_confusion", "grid.n=[10,30]", "grid.correlation=[0.0]", "reps=50", "n_jobs=1"]
    study = cli.load_study("quick", base)
    assert [(c["n"], c.engine) for c in grid.cells(study)] == [(10, "both"), (30, "mc")] * 2
    note = ("engine both: exact paired-confusion coverage needs n <= 20 (C(n + 7, 7) tables), got 30; "
            "these 1 of 2 points run Monte Carlo only (no exact_coverage)")
    assert study.notes == (note,)
    mc = cli.load_study("quick", [*base, "engine=mc"])  # the same cells as engine mc's: found in its folder
    assert [c.cell_id for c in grid.cells(study) if c.engine == "mc"] == [c.cell_id for c in grid.cells(mc)
                                                                          if c["n"] == 30]
    run = covstudy_in_process(tmp_path, *base)
    assert run.returncode == 0, run.stderr
    assert [line for line in run.stderr.splitlines() if "note" in line] == [f"covstudy: note: {note}"]
    table = pd.read_csv(tmp_path / "results" / "paired_confusion" / "results.csv")
    assert table.set_index("n")["exact_coverage"].isna().to_dict() == {10: False, 30: True}
    with pytest.raises(ConfigError, match=r"^grid.n: exact paired-confusion coverage needs n <= 20 .*; use engine mc$"):
        cli.load_study("quick", [*base, "engine=exact"])  # asked for: still refused
    assert cli.load_study("quick", ["design=paired_confusion", "grid.n=[10]"]).notes == ()


def test_default_out_follows_the_study_or_the_design():
    def out(study, *overrides):
        return str(cli.load_study(study, list(overrides)).out)

    assert out("quick") == "results/quick"
    assert out("quick", "design=stratified") == "results/stratified"
    assert out("balanced_imbalance") == "results/balanced_imbalance"
    assert out("balanced_imbalance", "design=iid") == "results/balanced_imbalance"
    assert out("quick", "design=iid", "out=results/mine") == "results/mine"
    assert out("quick", "design=iid", "name=mine") == "results/mine"


def test_slurm_launcher_config_composes():
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    with initialize_config_dir(config_dir=cli._conf_dir(), version_base="1.3"):
        cfg = hydra_compose(config_name="config", overrides=["hydra/launcher=slurm"], return_hydra_config=True)
    assert cfg.hydra.launcher._target_.endswith("SlurmLauncher")
    assert cfg.hydra.launcher.cpus_per_task == 8


def test_multirun_through_submitit_local(tmp_path):
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    run = covstudy(tmp_path, "-m", "hydra/launcher=submitit_local", "grid.n=[10],[20]", "out=results/n${grid.n.0}",
                   "grid.p=[0.3]", "methods=[wald]", "engine=exact")
    assert run.returncode == 0, run.stderr
    for n in (10, 20):
        assert pd.read_csv(tmp_path / "results" / f"n{n}" / "results.csv")["n"].tolist() == [n]


def test_balanced_study_end_to_end(tmp_path):
    run = covstudy_in_process(tmp_path, "study=balanced_imbalance", "grid.n=[20,60]", "grid.prevalence=[0.1,0.5]",
                   "grid.tpr=[0.9]", "grid.tnr=[0.8]", "reps=500", "methods=[ba_cp_union,ba_wald]",
                   "engine=both", "plot=true", "out=results/ba")
    assert run.returncode == 0, run.stderr
    table = pd.read_csv(tmp_path / "results" / "ba" / "results.csv")
    assert len(table) == 2 * 2 * 2 * 2  # methods x designs x n x prevalence
    assert set(table["design"]) == {"stratified", "iid"}
    assert table["truth"].tolist() == pytest.approx([0.85] * 16)
    stratified = table[table["design"] == "stratified"]
    assert (stratified["n_pos"] + stratified["n_neg"] == stratified["n"]).all()
    assert (stratified["n_valid"] == 500).all()
    iid = table[table["design"] == "iid"]
    assert (iid["n_valid"] <= 500).all() and (iid["n_valid"] < 500).any()  # n = 20, prevalence 0.1: empty classes
    assert (table.loc[table["method"] == "ba_cp_union", "exact_coverage"] >= 0.95).all()
    assert list((tmp_path / "results" / "ba" / "figures").glob("ba_*.png"))


@pytest.mark.parametrize("override, message", [
    ("foo=1", "Could not override 'foo'. To append to your config use +foo=1"),
    ("grid.nn=3", "Could not override 'grid.nn'. To append to your config use +grid.nn=3"),
    ("hydra/launcher=bogus", "In 'hydra/config': Could not find 'hydra/launcher/bogus'; available options in "
                             "'hydra/launcher': basic, slurm, submitit_local, submitit_slurm"),
    ("methods=[wald", "no viable alternative at input '[wald'"),
])
def test_hydra_errors_are_one_line_and_exit_2(tmp_path, override, message):
    run = covstudy_in_process(tmp_path, override, "out=x")
    assert run.returncode == 2
    assert run.stderr == f"covstudy: error: {message}\n"
    assert list(tmp_path.iterdir()) == []


def test_unreachable_scheduler_is_one_line_before_the_plan(tmp_path):
    import socket

    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    pytest.importorskip("dask.distributed")
    run = covstudy_in_process(tmp_path, "backend=dask", f"scheduler=tcp://127.0.0.1:{port}", "out=x")
    assert run.returncode == 2
    assert run.stderr == (f"covstudy: error: scheduler: cannot reach the dask scheduler at tcp://127.0.0.1:{port} "
                          "(Connection refused)\n")
    assert list(tmp_path.iterdir()) == []
