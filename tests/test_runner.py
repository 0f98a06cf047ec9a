"""The study runner: determinism across n_jobs/chunking/resumption, the store, the lock."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from covstudy.study.runner import run_study
from covstudy.study.store import Store, StoreLocked
from covstudy.study.config import Study

MEASURES = ["coverage", "mcse", "miss_low", "miss_high", "mean_width", "sd_width", "exact_coverage",
            "exact_mean_width"]


def study(out, **changes):
    cfg = {"name": "t", "methods": ["wald", "wilson", "clopper_pearson"],
           "grid": {"n": [10, 35], "p": {"start": 0.05, "stop": 0.95, "step": 0.15}, "delta": [0.05, 0.1]},
           "reps": 3000, "seed": 5, "engine": "both", "n_jobs": 1, "out": str(out)}
    cfg.update(changes)
    return Study.from_config(cfg)


def numbers(table):
    return table.reset_index(drop=True)


def provenance(out):
    return json.loads((out / "provenance.json").read_text())


def test_table_has_one_row_per_cell_with_provenance(tmp_path):
    table = run_study(study(tmp_path / "a"))
    assert len(table) == 3 * 2 * 2 * 7
    assert not table.duplicated(["method", "n", "p", "delta", "engine"]).any()
    for col in ["method", "label", "side", "n", "p", "delta", "engine", "reps", "seed", "n_valid", *MEASURES]:
        assert col in table.columns, col
    # Wall-clock times differ on every run: provenance.json sums them, the table has none.
    assert "seconds" not in table.columns
    timing = provenance(tmp_path / "a")["cell_seconds"]
    assert set(timing["per_method"]) == {"wald", "wilson", "clopper_pearson"} and timing["total"] >= 0
    assert set(table["engine"]) == {"mc"} and (table["reps"] == 3000).all() and (table["seed"] == 5).all()
    for name in ("results.csv", "results.parquet", "study.yaml", "provenance.json"):
        assert (tmp_path / "a" / name).is_file()
    on_disk = pd.read_csv(tmp_path / "a" / "results.csv")
    assert on_disk["coverage"].tolist() == table["coverage"].tolist()
    # MC within 4 MCSE of the exact values carried alongside (engine=both).
    se = (table["exact_coverage"] * (1 - table["exact_coverage"]) / 3000) ** 0.5
    assert ((table["coverage"] - table["exact_coverage"]).abs() <= 4 * se + 1e-12).all()


def test_identical_across_n_jobs_and_split_runs(tmp_path):
    reference = numbers(run_study(study(tmp_path / "one")))
    assert numbers(run_study(study(tmp_path / "two", n_jobs=2))).equals(reference)
    # A split run: part of the grid first (another order of axes), then the whole study.
    run_study(study(tmp_path / "split", grid={"n": [35], "p": [0.95, 0.2], "delta": [0.1]}, n_jobs=2))
    assert numbers(run_study(study(tmp_path / "split"))).equals(reference)
    # The written tables too, byte for byte (no wall-clock column, a fixed column order and
    # Parquet schema), so a committed table regenerates identically.
    for name in ("results.csv", "results.parquet"):
        one = (tmp_path / "one" / name).read_bytes()
        assert (tmp_path / "two" / name).read_bytes() == one, name
        assert (tmp_path / "split" / name).read_bytes() == one, name


def test_rerun_skips_done_cells_and_force_recomputes(tmp_path):
    first = run_study(study(tmp_path / "s"))
    parts = {f: f.stat().st_mtime_ns for f in (tmp_path / "s" / "parts").iterdir()}
    again = run_study(study(tmp_path / "s"))
    assert numbers(again).equals(numbers(first))
    # Nothing was recomputed: no cell counted, the stored part untouched.
    assert provenance(tmp_path / "s")["cells_computed"] == 0
    assert {f: f.stat().st_mtime_ns for f in (tmp_path / "s" / "parts").iterdir()} == parts
    bigger = run_study(study(tmp_path / "s", methods=["wald", "wilson", "clopper_pearson", "jeffreys"]))
    assert provenance(tmp_path / "s")["cells_computed"] == 28
    assert numbers(bigger[bigger["method"] != "jeffreys"]).equals(numbers(first))
    forced = run_study(study(tmp_path / "s", force=True))
    assert provenance(tmp_path / "s")["cells_computed"] == 84
    assert numbers(forced).equals(numbers(first))


def test_resuming_says_when_the_cells_found_come_from_other_code(tmp_path, monkeypatch):
    from covstudy.study import runner

    said = []
    run_study(study(tmp_path / "s"), say=said.append)
    ours = runner.code_fingerprint()
    assert provenance(tmp_path / "s")["code"] == ours and len(ours) == 64
    run_study(study(tmp_path / "s"), say=said.append)  # the same code: a plain resume
    assert not any("warning" in line for line in said)
    monkeypatch.setattr(runner, "code_fingerprint", lambda: "f" * 64)  # as after an upgrade
    run_study(study(tmp_path / "s", methods=["wald", "wilson", "clopper_pearson", "jeffreys"]), say=said.append)
    [warning] = [line for line in said if "warning" in line]
    assert f"computed by other covstudy code ({ours[:12]}; this is ffffffffffff)" in warning and "force=true" in warning
    said.clear()
    run_study(study(tmp_path / "s", methods=["wald", "wilson", "clopper_pearson", "jeffreys"]), say=said.append)
    assert any("warning" in line for line in said)  # the old cells are still there
    said.clear()
    run_study(study(tmp_path / "s", force=True), say=said.append)
    run_study(study(tmp_path / "s"), say=said.append)
    assert not any("warning" in line for line in said)  # recomputed: every cell is this code's


def test_second_run_on_same_out_is_refused(tmp_path):
    s = study(tmp_path / "locked")
    with Store(s.out):
        with pytest.raises(StoreLocked, match="in use by another covstudy run"):
            run_study(s)
    run_study(s)  # released


def children(pid):
    """The live (not zombie) child processes of ``pid``, from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError):
            state, ppid = stat.read_text().rsplit(")", 1)[1].split()[:2]
            if int(ppid) == pid and state != "Z":
                found.append(int(stat.parent.name))
    return found


def running(pid):
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return False


def test_killed_run_leaves_no_workers_and_resumes_to_the_uninterrupted_table(tmp_path):
    # Blaker's interval tables at large n take a fraction of a second per task: slow enough
    # to kill the run after its first finished task, whatever the machine.
    args = ["methods=[blaker,wilson]", "grid.n=[4000,5000,6000,7000,8000,9000]", "grid.p=${seq:0.01,0.99,0.01}",
            "engine=exact", "n_jobs=2"]
    cmd = [sys.executable, "-m", "covstudy", *args, f"out={tmp_path / 'killed'}", "plot=false"]
    out = tmp_path / "killed"
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not list((out / "parts").glob("*.csv")):
        time.sleep(0.01)
    pool = children(proc.pid)  # two workers and the resource trackers
    assert proc.poll() is None, "the study finished before it could be killed; make it bigger"
    assert len(pool) >= 2
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 60  # generous: a worker notices at once, but may be busy starting up
    while time.time() < deadline and any(map(running, pool)):
        time.sleep(0.1)
    assert not any(map(running, pool)), "workers outlived the killed run"
    assert not (out / "results.csv").exists()
    subprocess.run(cmd, cwd=tmp_path, check=True, capture_output=True)
    resumed = pd.read_csv(out / "results.csv")
    clean = run_study(Study.from_config({
        "name": "quick", "methods": ["blaker", "wilson"], "engine": "exact", "n_jobs": 1,
        "grid": {"n": [4000, 5000, 6000, 7000, 8000, 9000], "p": {"start": 0.01, "stop": 0.99, "step": 0.01},
                 "delta": [0.05]}, "out": str(tmp_path / "clean")}))
    assert len(clean) == 6 * 99 * 2
    pd.testing.assert_frame_equal(numbers(resumed), numbers(clean), check_dtype=False)


def ignores(pid: int, sig: int) -> bool:
    """Whether process ``pid`` ignores signal ``sig`` now (its SigIgn mask in /proc)."""
    with open(f"/proc/{pid}/status") as f:
        mask = next(int(line.split()[1], 16) for line in f if line.startswith("SigIgn:"))
    return bool(mask >> (int(sig) - 1) & 1)


def test_sigterm_stops_a_long_cell_within_seconds(tmp_path):
    # One exact Blaker cell at n = 10^7: about a minute of one numpy computation (43 s before it
    # was moved onto a worker, since a signal waits for the numpy call in the driver to return).
    cmd = [sys.executable, "-m", "covstudy", "methods=[blaker]", "grid.n=[10000000]", "grid.p=[0.5]",
           "engine=exact", "n_jobs=2", f"out={tmp_path / 'long'}"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    proc.stderr.readline()  # the plan line: the work starts
    # While the pool starts, the driver ignores signals (runner._workers_leave_signals_to_us):
    # wait for the state after it, workers up and SIGTERM no longer ignored, not for a time.
    deadline = time.time() + 120
    while time.time() < deadline and not (children(proc.pid) and not ignores(proc.pid, signal.SIGTERM)):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    try:  # a guard against a hang only: how soon it stops is a benchmark's business, not a timed assert's
        _, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("SIGTERM did not stop the run")
    # "0 of 1": the run stopped inside the cell's minute of numpy work. Had the signal waited for that
    # call to return (as it did in the driver), the cell would have finished and been saved first.
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].endswith("0 of 1 cells saved in " + str(tmp_path / "long")
                                                  + "; rerun the same command to resume"), err


def test_dask_backend_matches_loky_bit_for_bit(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    reference = numbers(run_study(study(tmp_path / "loky")))
    # A cluster started outside covstudy, on loopback, reached through its address.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        remote = run_study(study(tmp_path / "remote", backend="dask", scheduler=cluster.scheduler_address))
    assert numbers(remote).equals(reference)
    # Without an address covstudy starts its own LocalCluster; resume works the same.
    local = run_study(study(tmp_path / "local", backend="dask", workers=2, grid={"n": [10], "p": [0.2],
                                                                                  "delta": [0.05]}))
    assert numbers(local).equals(reference[(reference["n"] == 10) & (reference["p"] == 0.2)
                                           & (reference["delta"] == 0.05)].reset_index(drop=True))


def _loop_settings(dask_worker=None, dask_scheduler=None):
    """What a dask server's event loop runs, read inside it (client.run / run_on_scheduler)."""
    server = dask_worker or dask_scheduler
    callbacks = server.periodic_callbacks
    memory = callbacks.get("memory_monitor")  # workers only
    return {"profile": "profile" in callbacks, "tick_ms": callbacks["tick"].callback_time,
            "monitor_ms": callbacks["monitor"].callback_time, "memory_ms": memory and memory.callback_time,
            "trim": os.environ.get("MALLOC_TRIM_THRESHOLD_")}


def test_own_local_cluster_samples_less_a_given_scheduler_keeps_its_settings(tmp_path, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    import dask

    from covstudy.study import runner

    # dask's nannies prefer a MALLOC_TRIM_THRESHOLD_ already in the environment (an earlier test's
    # cluster leaves dask's 64 KiB there).
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    before = dask.config.get("distributed")
    # covstudy's own LocalCluster: no stack sampling, 1 s ticks, 2 s system and 0.5 s memory monitors.
    with runner.backend(study(tmp_path, backend="dask", workers=1), 1):
        client = distributed.default_client()
        (worker,) = client.run(_loop_settings).values()
        scheduler = client.run_on_scheduler(_loop_settings)
    assert worker == {"profile": False, "tick_ms": 1000, "monitor_ms": 2000, "memory_ms": 500,
                      "trim": str(128 << 20)}
    assert scheduler["tick_ms"] == 1000 and scheduler["monitor_ms"] == 2000
    # ... only while it runs, and nothing of it is left in this process's environment.
    assert dask.config.get("distributed") == before and "MALLOC_TRIM_THRESHOLD_" not in os.environ
    # A cluster of the user's, given by address: covstudy changes none of dask's settings.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                                  processes=True) as cluster:
        with runner.backend(study(tmp_path, backend="dask", scheduler=cluster.scheduler_address), 1):
            assert dask.config.get("distributed") == before
            (theirs,) = distributed.default_client().run(_loop_settings).values()
    assert theirs == {"profile": True, "tick_ms": 20, "monitor_ms": 500, "memory_ms": 100, "trim": "65536"}


def test_stopping_the_pool_with_tasks_queued_prints_nothing(monkeypatch):
    # Issue 48: loky's manager thread, shutting down with task ids still queued, died with
    # "Exception in thread ExecutorManagerThread ... KeyError" after every Ctrl-C. A pool churning
    # through short tasks is stopped after a result, as an interrupt does; five rounds, since
    # before the fix one round showed it about two times in three.
    import concurrent.futures
    import threading

    from covstudy.study import runner

    errors = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_type.__name__))
    for _ in range(5):
        futures = [runner.worker_pool(2).submit(time.sleep, 0.02) for _ in range(200)]
        for done, _future in enumerate(concurrent.futures.as_completed(futures), 1):
            if done == 10:
                break
        runner._shutdown_workers()
        assert errors == []


def test_workers_killed_with_a_run_killed_while_they_start(tmp_path):
    # Issue 48: kill -9 while the workers were still starting left them alive. They set
    # PR_SET_PDEATHSIG (and check their parent) before importing anything of covstudy.
    cmd = [sys.executable, "-m", "covstudy", "methods=[blaker]", "grid.n=[30000,40000]", "grid.p=${seq:0.01,0.99,0.01}",
           "engine=exact", "n_jobs=2", f"out={tmp_path / 'run'}", "plot=false"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    proc.stderr.readline()  # the plan line: the pool starts now
    while not (pool := children(proc.pid)) and proc.poll() is None:
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)  # the first worker just appeared: it is still starting
    proc.wait()
    proc.stderr.close()
    for _ in range(300):  # generous: they go within a fraction of a second
        if not any(map(running, pool)):
            break
        time.sleep(0.1)
    assert not any(map(running, pool)), "workers outlived the killed run"
