"""What a new user trips over (issue 17): runs that are interrupted, damaged, misdirected or huge."""

import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import tracemalloc

import pandas as pd
import pytest
from cli_in_process import covstudy_in_process

from covstudy.study import progress, store
from covstudy.study.runner import OutError, StudyMismatch, run_study
from covstudy.study.config import ConfigError, Study


def study(out, **changes):
    cfg = {"name": "t", "methods": ["wald", "wilson"], "grid": {"n": [10, 20], "p": [0.1, 0.5], "delta": [0.05]},
           "engine": "exact", "n_jobs": 1, "out": str(out)}
    cfg.update(changes)
    return Study.from_config(cfg)


def numbers(table):
    return table.reset_index(drop=True)


# --- 5. damaged parts ----------------------------------------------------------------------

def edited(column, value=None):
    """A damage: the part with ``column``'s first value set to ``value`` (None: the column dropped)."""
    def damage(data):
        frame = pd.read_csv(io.BytesIO(data), dtype=object, keep_default_na=False)
        if value is None:
            frame = frame.drop(columns=[column])
        else:
            frame.loc[0, column] = value
        return frame.to_csv(index=False).encode()
    return damage


@pytest.mark.parametrize("damage, why", [
    (lambda b: b[: len(b) // 2], "truncated"),
    (lambda b: b"", "empty"),
    (lambda b: bytes(range(256)) * 4 + b"\n", "not a CSV table"),
    (lambda b: b"cell_id,foreign\nabc,1\n", "no method column"),
    (edited("coverage", "1.7"), "out of range: coverage 1.7 not in [0, 1]"),
    (edited("mean_width", "-3"), "out of range: mean_width -3.0 not in [0, inf]"),
    (edited("n", "10.5"), "out of range: n 10.5 not in whole numbers [1, inf]"),
    (edited("seed", "-1"), "out of range: seed -1.0 not in whole numbers [0, inf]"),
    (edited("mcse"), "no mcse column"),
    (edited("miss_low", ""), "missing values in column miss_low"),
    (lambda b: edited("coverage", "0.5")(b).replace(b"\n", b",0\n").replace(b"seconds,0", b"seconds,foreign", 1),
     "unexpected column foreign"),
    (edited("coverage", "high"), "non-numeric value in column coverage"),
    (edited("mean_width", "0.1.2"), "non-numeric value in column mean_width"),
    (edited("design", "bogus"), "unknown design 'bogus'"),
])
def test_damaged_parts_are_named_and_their_cells_recomputed(tmp_path, capsys, damage, why):
    reference = numbers(run_study(study(tmp_path / "ref"), progress=False))
    s = study(tmp_path / "s")
    run_study(s, progress=False)
    [part] = (s.out / "parts").glob("*.csv")
    part.write_bytes(damage(part.read_bytes()))
    capsys.readouterr()
    again = run_study(s, progress=False)
    err = capsys.readouterr().err
    assert f"damaged part {part} ({why}" in err and "computed again" in err
    assert numbers(again).equals(reference)
    assert (s.out / "parts" / (part.name + ".damaged")).exists()
    assert numbers(pd.read_csv(s.out / "results.csv")).equals(numbers(pd.read_csv(tmp_path / "ref" / "results.csv")))
    capsys.readouterr()
    run_study(s, progress=False)  # and the folder is not stuck: a third run finds everything
    assert "warning" not in capsys.readouterr().err


def test_missing_exact_column_of_an_engine_both_part_is_damage(tmp_path, capsys):
    s = study(tmp_path / "s", engine="both", reps=50)
    first = numbers(run_study(s, progress=False))
    [part] = (s.out / "parts").glob("*.csv")
    part.write_bytes(edited("exact_coverage")(part.read_bytes()))
    capsys.readouterr()
    again = run_study(s, progress=False)
    assert "(no exact_coverage column)" in capsys.readouterr().err
    assert numbers(again).equals(first)


def test_every_design_writes_the_rows_its_part_check_expects():
    from covstudy.study import grid
    from covstudy.cli import load_study
    from covstudy.designs import DESIGNS
    from covstudy.study.tasks import evaluate, row_columns, row_problem

    for name, design in DESIGNS.items():
        axes = [f"grid.{k}=[{v}]" for k, v in design.example.items()]
        s = load_study("quick", [f"design={name}", "grid.n=null", "grid.prevalence=null", *axes, "reps=20",
                                 f"engine={'both' if design.exact_engine else 'mc'}"], out="x")
        cells = grid.cells(s)
        columns = {c.cell_id: row_columns(c) for c in cells}
        rows = [row for task in grid.tasks(cells, 1) for row in evaluate(task)]
        assert all(tuple(row) == columns[row["cell_id"]] for row in rows), name
        frame = pd.read_csv(io.StringIO(pd.DataFrame(rows).to_csv(index=False)))
        assert row_problem(frame, columns) is None and row_problem(frame) is None, name


# --- 6. interrupts -------------------------------------------------------------------------

HEARTBEAT_LINE = re.compile(r"^\S+: \d+ of \d+ cells, \d+% of the work, .* elapsed")


def _session(pid):
    """The processes of the session led by ``pid`` (the run, its workers, their resource trackers)."""
    return [int(p) for p in subprocess.run(["pgrep", "-s", str(pid)], capture_output=True, text=True,
                                           check=False).stdout.split()]


def _sigint_default():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupted_run(tmp_path, out, sig):
    """Start the issue-48 run in its own session, wait for two parts it wrote, send ``sig`` to the whole group as a
    terminal's Ctrl-C does; return the process and what it printed after the plan line."""
    cmd = [sys.executable, "-m", "covstudy", "methods=[blaker,mid_p,lrt]", "grid.n=${seq:1000,40000,1000}",
           "grid.p=${seq:0.01,0.99,0.01}", "engine=exact", "n_jobs=2", f"out={out}", "plot=false"]
    # A terminal's job gets Ctrl-C; a job started in the background of a script inherits SIGINT
    # ignored (and so would this run, when pytest itself runs so): give it the terminal's.
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_sigint_default)
    plan = proc.stderr.readline()
    assert "11880 cells to compute" in plan, plan + proc.stderr.read()
    before = set((out / "parts").glob("*.csv"))  # a resumed run's parts are there at once
    # Two parts: at the first, loky's manager thread is still refilling its call queue and the
    # old code's traceback did not show (it did in 4 of 4 tries a little later).
    while len(set((out / "parts").glob("*.csv")) - before) < 2 and proc.poll() is None:
        time.sleep(0.02)
    # Parts are written after the pool started (the driver handles signals again) and after two
    # of 40 tasks: the rest is minutes of work. Freezing a worker to be sure kept loky's call queue
    # full, which hid the traceback this test is about.
    assert proc.poll() is None and not (out / "results.csv").exists(), "the run finished before the signal"
    os.killpg(proc.pid, sig)
    stdout, stderr = proc.communicate(timeout=120)
    return proc, (stdout + stderr).strip().splitlines()


def _saved_and_said(proc, lines, out) -> int:
    """What an interrupted run must leave: exit code 130, one last line saying how many cells were saved and
    how to resume, no traceback, no temporary files, no workers; the store holds what the line says."""
    assert proc.returncode == 130, lines
    # Heartbeat lines come every 10 s, as many as the machine's load makes the run last: not counted.
    # The rest is at most the interrupt line and one more: before issue 48 loky's manager thread
    # printed a KeyError traceback here.
    said = [line for line in lines if not HEARTBEAT_LINE.match(line)]
    assert len(said) <= 2 and not any("Traceback" in line or "Exception" in line for line in lines), lines
    assert lines[-1].startswith("covstudy: interrupted: ") and lines[-1].endswith(
        f"of 11880 cells saved in {out}; rerun the same command to resume"), lines
    assert not list(out.glob("*.tmp")) and not list((out / "parts").glob(".*.tmp"))
    for _ in range(600):  # the worker pool is gone (its resource tracker may take a moment)
        if not _session(proc.pid):
            break
        time.sleep(0.05)
    assert _session(proc.pid) == []
    count = int(lines[-1].split("interrupted: ")[1].split()[0])
    with store.Store(out) as saved:  # what the line says is on disk, intact
        assert len(saved.finished()) == count > 0
    return count


def test_sigterm_saves_says_how_to_resume_and_exits_130(tmp_path):
    out = tmp_path / "run"
    _saved_and_said(*_interrupted_run(tmp_path, out, signal.SIGTERM), out)


def test_ctrl_c_to_the_group_is_one_line_every_time_and_the_store_resumes(tmp_path):
    # Issue 48: 2 of 2 Ctrl-Cs printed loky's traceback. Each try costs ~7 CPU-s (three
    # interpreters import covstudy, then one task), so three tries here, not the ten;
    # every try is held to everything an interrupted run must leave (_saved_and_said).
    out = tmp_path / "run"
    saved = []
    for _ in range(3):
        proc, lines = _interrupted_run(tmp_path, out, signal.SIGINT)
        saved.append(_saved_and_said(proc, lines, out))
    # Each rerun resumed: it kept what the earlier ones saved and added at least one part.
    assert saved == sorted(saved) and len(set(saved)) == 3, saved


# --- 7. out that cannot be written -----------------------------------------------------------

@pytest.mark.parametrize("out, message", [
    ("afile", "cannot write the study folder afile: Not a directory"),
    ("afile/sub", "cannot write the study folder afile/sub: afile: Not a directory"),
    ("/proc/x", "cannot write the study folder /proc/x: cannot create files in /proc"),
])
def test_out_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, out, message):
    (tmp_path / "afile").write_text("x")
    run = covstudy_in_process(tmp_path, "methods=[wald]", "grid.n=[5]", "grid.p=[0.5]", f"out={out}")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(f"covstudy: error: out: {message}")
    assert run.stderr.count("\n") == 1  # no plan line: no work started
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def nothing_computed(*args, **kwargs):
    raise AssertionError("work started before the output path was checked")


@pytest.mark.parametrize("out, message", [
    ("/proc/x", "--out /proc/x: cannot create files in /proc (No such file or directory)"),
    ("afile", "--out afile: Not a directory"),
    ("afile/report", "--out afile/report: afile: Not a directory"),
])
def test_evaluate_checks_its_out_before_any_work(tmp_path, monkeypatch, capsys, out, message):
    from covstudy.evaluation import result as evaluation
    from covstudy.evaluation.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(evaluation, "evaluate", nothing_computed)
    (tmp_path / "afile").write_text("x")
    pd.DataFrame({"y": [0, 1] * 10, "yhat": [0, 1, 1, 1] * 5}).to_csv("test.csv", index=False)
    with pytest.raises(SystemExit) as exit:
        main(["test.csv", "--truth", "y", "--predicted", "yhat", "--out", out])
    assert exit.value.code == 2
    assert capsys.readouterr().err == f"covstudy-evaluate: error: {message}\n"


@pytest.mark.parametrize("option, path, message", [
    ("--table", "adir", "Is a directory"),
    ("--figure", "adir", "Is a directory"),
    ("--table", "afile/t.csv", "afile: Not a directory"),
    ("--figure", "/proc/x.png", "cannot create files in /proc (No such file or directory)"),
])
def test_plan_checks_its_table_and_figure_before_any_work(tmp_path, monkeypatch, capsys, option, path, message):
    from covstudy.cli import plan_main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys.modules["covstudy.planning.plan"], "plan", nothing_computed)  # the module, not covstudy.plan()
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("x")
    with pytest.raises(SystemExit) as exit:
        plan_main(["--method", "wilson", "--p", "0.9", "--width", "0.1", option, path])
    assert exit.value.code == 2
    assert capsys.readouterr().err == f"covstudy-plan: error: {option} {path}: {message}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "afile"] and not list((tmp_path / "adir").iterdir())


def test_plan_writes_a_table_into_a_new_folder(tmp_path, monkeypatch, capsys):
    from covstudy.cli import plan_main

    monkeypatch.chdir(tmp_path)
    assert plan_main(["--method", "wilson", "--p", "0.9", "--width", "0.2", "--table", "new/sizes.csv"]) == 0
    assert pd.read_csv(tmp_path / "new" / "sizes.csv").shape[0] > 0


def test_full_disk_is_one_error_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "fsync", full)
    s = study(tmp_path / "s")
    with pytest.raises(OutError, match=r"^out: cannot write the study folder .*/s: No space left on device$"):
        run_study(s, progress=False)
    assert [p.name for p in s.out.rglob("*") if p.name.endswith(".tmp")] == []


def test_backend_that_cannot_start_leaves_no_fresh_folder(tmp_path, monkeypatch):
    from covstudy.study import runner

    def unreachable(study, workers):
        raise runner.BackendError("scheduler: cannot reach the dask scheduler at tcp://127.0.0.1:1")

    monkeypatch.setattr(runner, "backend", unreachable)  # what the dask backend raises, without its 20 s timeout
    s = study(tmp_path / "fresh", backend="dask")
    with pytest.raises(runner.BackendError, match="cannot reach the dask scheduler"):
        run_study(s, progress=False)
    assert not s.out.exists()
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine")
    with pytest.raises(runner.BackendError):
        run_study(study(tmp_path / "used", backend="dask"), progress=False)
    assert (tmp_path / "used" / "notes.txt").exists()  # a folder that was not fresh is left alone


def test_seq_with_two_numbers_names_the_resolver(tmp_path):
    run = covstudy_in_process(tmp_path, "grid.p=${seq:0.1,0.9}", "out=x")
    assert run.returncode == 2
    assert run.stderr == "covstudy: error: grid.p: needs three numbers ${seq:start,stop,step}, got 2: ${seq:0.1,0.9}\n"
    assert not (tmp_path / "x").exists()


# --- 9. huge grids ------------------------------------------------------------------------

def test_huge_grid_is_refused_before_any_work_with_the_key_that_raises_the_limit():
    cfg = {"name": "t", "methods": ["wald", "wilson"], "out": "x",
           "grid": {"n": {"start": 1, "stop": 100000, "step": 1}, "p": [0.1, 0.5, 0.9], "delta": [0.05, 0.1]}}
    tracemalloc.start()
    with pytest.raises(ConfigError) as err:
        Study.from_config(cfg)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50 * 2**20  # counted, not enumerated (10 MB measured); 1,200,000 cells would hold hundreds
    assert str(err.value) == ("grid: 1,200,000 cells (2 methods × 2 deltas × 300,000 design points) exceed "
                              "max_cells=1,000,000; set max_cells=1200000 to run them")
    small = {**cfg, "grid": {**cfg["grid"], "n": [10, 20]}, "max_cells": 20}
    with pytest.raises(ConfigError, match="grid: 24 cells"):
        Study.from_config(small)
    assert Study.from_config({**small, "max_cells": 24}).max_cells == 24


def test_plan_line_before_work_and_nothing_to_do_said(tmp_path):
    lines = []
    s = study(tmp_path / "s")
    run_study(s, say=lines.append, progress=False)
    forecast = r"; roughly (<1 s|\d+ s|\d+ min|[\d.]+ h) of CPU, ~\d+ MB a worker"
    assert re.fullmatch(r"t: 8 of 8 cells to compute in \d+ tasks? on 1 worker" + forecast, lines[0])
    run_study(s, say=lines.append, progress=False)
    assert lines[-1] == f"t: 0 of 8 cells to compute (all found in {s.out})"
    run_study(study(tmp_path / "s", methods=["wald", "wilson", "jeffreys"]), say=lines.append, progress=False)
    assert re.fullmatch(rf"t: 4 of 12 cells to compute \(8 found in {re.escape(str(s.out))}\) in \d+ tasks? on 1 worker"
                        + forecast, lines[-1])


def test_heartbeat_line_without_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(progress, "HEARTBEAT", 0.05)
    line = r"t: 4 of 10 cells, 25% of the work, \d+ s elapsed, ~\d+ s left"
    err = ""
    with progress.Progress("t", 10, 1000.0) as p:  # pytest's stderr is not a terminal
        p.update(4, 250.0)
        for _ in range(1200):  # wait for the state (a heartbeat printed), however loaded the machine
            err += capsys.readouterr().err
            if re.search(line, err):
                break
            time.sleep(0.05)
    assert re.search(line, err), err


# --- 11, 12. one study per folder; the history of its runs -------------------------------------

def test_different_study_in_an_existing_out_is_refused_unless_forced(tmp_path):
    run_study(study(tmp_path / "s"), progress=False)
    with pytest.raises(StudyMismatch, match=r"holds another study \(engine 'exact' here, 'mc' in this run, "
                                             r"seed 0 here, 7 in this run\); choose another out= or add force=true"):
        run_study(study(tmp_path / "s", engine="mc", seed=7), progress=False)
    with pytest.raises(StudyMismatch, match=r"name 't' here, 'u' in this run"):
        run_study(study(tmp_path / "s", name="u"), progress=False)
    run_study(study(tmp_path / "s", methods=["wald"], grid={"n": [10, 30], "p": [0.1], "delta": [0.05]}),
              progress=False)  # the same study, resized: fine
    assert len(run_study(study(tmp_path / "s", name="u", force=True), progress=False)) == 8


def test_provenance_keeps_the_history_of_runs(tmp_path):
    s = study(tmp_path / "s")
    run_study(s, progress=False)
    run_study(s, progress=False)
    record = json.loads((s.out / "provenance.json").read_text())
    assert record["cells_computed"] == 0
    assert [r["cells_computed"] for r in record["history"]] == [8]


# --- 10. the report's rerun command reproduces the table ------------------------------------------

def test_rerun_command_in_the_report_reproduces_the_table(tmp_path):
    from covstudy.report.markdown import write_report

    args = ["grid.n=[7,9]", "grid.p=${seq:0.1,0.3,0.1}", "methods=[wilson,{name: bayes, a: 2, b: 1}]",
            "engine=exact", "name=bcd50", "n_jobs=1", "out=made"]
    assert covstudy_in_process(tmp_path, *args).returncode == 0
    first = pd.read_csv(tmp_path / "made" / "results.csv")
    md, _ = write_report(tmp_path / "made")
    text = md.read_text()
    command = text.split("## How to rerun")[1].split("```bash\n")[1].split("\n")[0]
    assert "Question" not in text  # the base study's question does not describe this run
    subprocess.run(["rm", "-r", str(tmp_path / "made")], check=True)
    words = shlex.split(command)
    assert words[0] == "covstudy"
    assert covstudy_in_process(tmp_path, *words[1:]).returncode == 0
    pd.testing.assert_frame_equal(numbers(pd.read_csv(tmp_path / "made" / "results.csv")), numbers(first))


# --- 16. dask shows warnings only ------------------------------------------------------------------

def test_dask_run_logs_warnings_only(tmp_path, caplog):
    pytest.importorskip("dask.distributed")
    import logging

    caplog.set_level(logging.INFO)
    run_study(study(tmp_path / "d", backend="dask", workers=1, grid={"n": [10], "p": [0.5], "delta": [0.05]}),
              progress=False)
    chatter = [r for r in caplog.records if r.name.startswith("distributed") and r.levelno < logging.WARNING]
    assert chatter == []


# --- 13. what is committed regenerates byte for byte ----------------------------------------------------

def test_rerun_with_other_run_time_keys_rewrites_study_yaml_and_report_byte_for_byte(tmp_path):
    from covstudy.report.markdown import write_report

    s = study(tmp_path / "s")
    run_study(s, overrides=["study=t", "plot=true"], progress=False)
    first = {name: (s.out / name).read_bytes() for name in ("study.yaml",)}
    first["report.md"] = write_report(s.out)[0].read_bytes()
    run_study(study(tmp_path / "s", force=True, n_jobs=1, plot=True), overrides=["study=t", "force=true"],
              progress=False)
    assert (s.out / "study.yaml").read_bytes() == first["study.yaml"]
    assert write_report(s.out)[0].read_bytes() == first["report.md"]
    assert b"force" not in first["study.yaml"] and b"n_jobs" not in first["study.yaml"]


def test_every_column_a_task_writes_is_kept_in_the_table():
    from covstudy.study import grid
    from covstudy.study.tasks import ROW_MEASURES, evaluate, row_identity

    for cfg in ({"methods": ["wilson"], "grid": {"n": [10], "p": [0.5], "delta": [0.05]}, "engine": "both"},
                {"methods": ["diff_wald"], "grid": {"design": "unpaired", "n1": [10], "n2": [10], "p1": [0.4],
                                                   "p2": [0.4], "delta": [0.05]}, "engine": "exact"}):
        s = Study.from_config({"name": "t", "out": "x", **cfg})
        [task] = grid.tasks(grid.cells(s), 1)
        for row in evaluate(task):
            assert set(row) <= set(row_identity(task.cells[0])) | set(ROW_MEASURES)
