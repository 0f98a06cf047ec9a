"""Run a study: skip finished cells, evaluate the rest on joblib workers, persist as they finish.

The only module that knows about workers, chunks, the store and progress. Numbers do
not depend on any of them: each grid point's random stream is keyed by its identity
(seeds.py), so n_jobs, chunking, order and resumption give bit-identical tables.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import joblib
import pandas as pd
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from . import grid
from .designs import DESIGNS
from .store import Store
from .study import Study
from .tasks import evaluate

IN_PROCESS_COST = 2e5  # grid.study_cost below which a study runs in this process, without workers
PACKAGES = ("covstudy", "numpy", "scipy", "pandas", "joblib", "hydra-core", "omegaconf", "pyarrow")


class BackendError(RuntimeError):
    """The parallel backend cannot start: dask missing, or its scheduler unreachable."""


def _evaluate_single_threaded(task: grid.Task) -> list[dict]:
    # Workers share the cores: numpy's own thread pools would oversubscribe them.
    with threadpool_limits(limits=1):
        return evaluate(task)


def n_workers(n_jobs: int) -> int:
    """Workers for ``n_jobs``; -1 means the cores this process may use (SLURM's allocation, not the node's)."""
    if n_jobs != -1:
        return n_jobs
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def backend(study: Study, workers: int):
    """The joblib backend of the study; yields the n_jobs to ask joblib for."""
    if study.backend == "loky":
        with joblib.parallel_config(backend="loky", inner_max_num_threads=1):
            yield workers
        return
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BackendError("backend: dask needs the dask extra: pip install 'covstudy[dask]'") from None
    with contextlib.ExitStack() as stack:
        if study.scheduler:
            try:
                client = stack.enter_context(Client(study.scheduler, timeout="20s"))
            except (OSError, TimeoutError) as err:
                raise BackendError(f"scheduler: cannot reach the dask scheduler at {study.scheduler} ({err})") from None
        else:
            cluster = stack.enter_context(LocalCluster(
                n_workers=study.workers or workers, threads_per_worker=study.threads_per_worker,
                host="127.0.0.1", dashboard_address=None, processes=True))
            client = stack.enter_context(Client(cluster))
        with joblib.parallel_config(backend="dask"):
            yield max(1, sum(client.nthreads().values()))


def run_study(study: Study, overrides: list[str] | None = None, progress: bool | None = None) -> pd.DataFrame:
    """Compute every missing cell of ``study`` and return (and write) its results table.

    ``progress=None`` shows a progress bar only on an interactive terminal.
    """
    started = dt.datetime.now(dt.timezone.utc)
    all_cells = grid.cells(study)
    with Store(study.out) as store:
        store.write_yaml("study.yaml", study.config())
        done = pd.DataFrame() if study.force else store.finished()
        done_ids = set(done["cell_id"]) if len(done) else set()
        todo = [c for c in all_cells if c.cell_id not in done_ids]
        workers = n_workers(study.n_jobs)
        tasks = grid.tasks(todo, workers)
        bar = tqdm(total=len(todo), unit="cell", desc=study.name, disable=None if progress is None else not progress,
                   file=sys.stderr)
        if tasks and (workers == 1 or len(tasks) == 1 or grid.study_cost(todo) < IN_PROCESS_COST) \
                and study.backend == "loky":
            # Too little work to pay for starting workers (each imports numpy, scipy, pandas).
            for task in tasks:
                store.save(_evaluate_single_threaded(task))
                bar.update(len(task.cells))
        elif tasks:
            with backend(study, workers) as n_jobs:
                parallel = joblib.Parallel(n_jobs=min(n_jobs, len(tasks)), return_as="generator_unordered")
                for rows in parallel(joblib.delayed(_evaluate_single_threaded)(t) for t in tasks):
                    store.save(rows)
                    bar.update(len(rows))
        bar.close()
        table = _table(store.compact(), [c.cell_id for c in all_cells])
        store.write_table(table)
        if study.exact_curve:
            write_exact_curve(study)
        store.write_json("provenance.json", provenance(study, overrides, started, len(todo), workers))
    return table


def write_exact_curve(study: Study) -> None:
    """<out>/exact_curve.csv (confidence coefficient, where, average coverage per method, n and
    delta over the study's p range) and <out>/exact_curve_points.csv (the exact curves)."""
    from .exact_curve import study_tables
    from .store import _csv_bytes, atomic_write

    p = study.axes["p"]
    summary, curves = study_tables([(m.name, m.label, dict(m.params)) for m in study.methods], study.axes["n"],
                                   study.axes["delta"], study.side, (min(p), max(p)))
    atomic_write(study.out / "exact_curve.csv", _csv_bytes(summary))
    atomic_write(study.out / "exact_curve_points.csv", _csv_bytes(curves))


def _table(finished: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """The current study's rows, in grid order (rows of cells no longer in the study stay in parts/)."""
    index = pd.Series(range(len(order)), index=order)
    table = finished[finished["cell_id"].isin(index.index)].copy()
    table = table.iloc[index[table["cell_id"]].argsort()].reset_index(drop=True)
    integers = {"reps", "seed", "n_valid", *(c for d in DESIGNS.values() for c in d.int_columns)}
    for col in integers:
        if col in table:
            table[col] = table[col].astype("Int64")
    return table


def provenance(study: Study, overrides, started, computed: int, workers: int) -> dict:
    """What produced the table: versions, git commit, command, times, machine."""
    versions = {}
    for pkg in PACKAGES:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return {
        "study": study.name,
        "command": sys.argv,
        "overrides": list(overrides or []),
        "started": started.isoformat(timespec="seconds"),
        "finished": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "cells_computed": computed,
        "n_jobs": study.n_jobs,
        "workers": workers,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "git_commit": git_commit(),
        "versions": versions,
    }


def git_commit() -> str | None:
    """The commit of the covstudy source tree, with '+dirty' if it has changes; None outside git."""
    src = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                                text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--", "."], capture_output=True,
                               text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "")
