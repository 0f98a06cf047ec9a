"""Run a study of any kind: skip finished cells, compute the rest on workers, persist as they finish.

``run_kind`` is the one loop every study runs through (the interval study, study/intervals.py, is one
kind among the others, kinds.py): the memory check and the plan line before any work, the kind's
store, loky or dask workers, the progress line, Ctrl-C and kill -9 recovery, provenance.json and
report.html. The kind supplies what differs (its cells, tasks, rows, store and tables); ``run_study``
runs an interval ``Study``. The only module that knows about workers, chunks and progress. Numbers do
not depend on any of them: each grid point's random stream is keyed by its identity (seeds.py), so
n_jobs, chunking, order and resumption give bit-identical tables.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import datetime as dt
import functools
import hashlib
import logging
import os
import platform
import queue
import signal
import socket
import subprocess
import sys
import threading
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import joblib

from . import intervals, kinds
from .config import RUN_KEYS, ConfigError, Study, n_workers
from .cost import duration, memory_problem, size
from .kinds import RunSettings, StudyKind
from .intervals import StudyMismatch  # noqa: F401  (raised by the interval kind's begin; its callers import it here)
from .progress import Progress

if TYPE_CHECKING:  # pandas is imported where used: a worker imports this module (its initializer)
    import pandas as pd

PACKAGES = ("covstudy", "numpy", "scipy", "pandas", "joblib", "hydra-core", "omegaconf", "pyarrow")


class BackendError(RuntimeError):
    """The parallel backend cannot start: dask missing, or its scheduler unreachable."""


def check_backend(study: RunSettings | Study) -> None:
    """BackendError, before any work, if the study's dask backend cannot start: dask missing,
    or nothing listening at its scheduler's address (a quick connection, not dask's 20 s timeout)."""
    if study.backend != "dask":
        return
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        raise BackendError("backend: dask needs the dask extra: pip install 'covstudy[dask]'") from None
    if not study.scheduler:
        return
    address = study.scheduler.split("://")[-1]
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5).close()
    except (OSError, ValueError) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err) or type(err).__name__
        raise BackendError(f"scheduler: cannot reach the dask scheduler at {study.scheduler} ({why})") from None


# dask's settings for the LocalCluster covstudy starts itself (a scheduler given by address keeps
# its own). dask's defaults suit a long-lived cluster watched on its dashboard; this one has no
# dashboard, nobody else connects to it, and it lives for one run. Measured in issue 34: an idle
# 2-worker cluster ~3.3 → ~0.7 CPU-s a minute; see benchmarks/README.md, "dask against loky".
LOCAL_CLUSTER = {
    # The nannies start workers with glibc's MALLOC_TRIM_THRESHOLD_ at 64 KiB, so every freed block
    # of a task's arrays goes back to the OS and is faulted in again by the next: ~25 times loky's
    # page faults. 128 MiB keeps them (unless the variable is already in the environment: dask's rule).
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 128 << 20,
    # Each worker samples its running task's stack every 10 ms for the dashboard's Profile page and
    # Client.profile(): neither exists without a dashboard and an outside client.
    "distributed.worker.profile.enabled": False,
    # Every event loop's health check (scheduler, nannies, workers) wakes it every 20 ms; it only
    # logs, at INFO (silenced here, see _quiet), a loop blocked longer than its 3 s limit, which a
    # 1 s tick still detects.
    "distributed.admin.tick.interval": "1s",
    # CPU, memory and I/O samples for the dashboard's charts and the heartbeats' figures; the
    # memory limits below are checked on their own fresh samples, not on these.
    "distributed.admin.system-monitor.interval": "2s",
    # Each worker and nanny checks its worker's memory against the pause (80%) and terminate (95%)
    # limits every 100 ms: every 500 ms here, and before any work the run's memory forecast must
    # fit in RAM (run_kind); loky's workers have no such watch at all.
    "distributed.worker.memory.monitor-interval": "500ms",
}


@contextlib.contextmanager
def backend(study: RunSettings | Study, workers: int):
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
        stack.enter_context(_quiet("distributed"))
        if study.scheduler:
            try:
                client = stack.enter_context(Client(study.scheduler, timeout="20s"))
            except (OSError, TimeoutError) as err:
                raise BackendError(f"scheduler: cannot reach the dask scheduler at {study.scheduler} ({err})") from None
        else:
            import dask

            stack.enter_context(dask.config.set(LOCAL_CLUSTER))
            # The nannies put their pre-spawn variables into this process's environment (they
            # run here), where a later cluster of the user's would find them: put it back.
            stack.enter_context(_environ_kept({*dask.config.get("distributed.nanny.pre-spawn-environ"),
                                               "PYTHONHASHSEED"}))
            cluster = stack.enter_context(LocalCluster(
                n_workers=study.workers or workers, threads_per_worker=study.threads_per_worker,
                host="127.0.0.1", dashboard_address=None, processes=True))
            client = stack.enter_context(Client(cluster))
        with joblib.parallel_config(backend="dask"):
            yield max(1, sum(client.nthreads().values()))


@contextlib.contextmanager
def _environ_kept(names):
    """Environment variables ``names`` as they were before, afterwards."""
    saved = {name: os.environ.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class Interrupted(RuntimeError):
    """Ctrl-C or SIGTERM: the cells finished so far are saved; a rerun resumes."""


class OutError(RuntimeError):
    """The study folder cannot be written (not a folder, read-only, disk full)."""


@contextlib.contextmanager
def _quiet(name: str):
    """Only warnings and errors of logger ``name`` (dask's scheduler and nannies log every
    connection at INFO, ~90 lines a run, through the root logger Hydra sets up)."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def run_kind(kind: StudyKind, study, settings: RunSettings | None = None, progress: bool | None = None,
             say=None, overrides=None) -> dict:
    """Compute every missing cell of ``study``, a study of ``kind``, and write its tables, report and
    page; return the tables (``{table: DataFrame}``). The one loop of every study (kinds.py says what a
    kind supplies): the memory check, the plan line, the store, the workers, the progress and provenance.

    ``progress=None`` shows a progress bar on an interactive terminal and a heartbeat line
    every ~10 s otherwise. ``say`` (default: print to stderr) receives the one-line plan
    before any work. Raises ``ConfigError`` before any work when the run's memory forecast does
    not fit in this machine's RAM, ``BackendError`` when the dask backend cannot start,
    ``Interrupted`` on Ctrl-C/SIGTERM (finished cells are saved; a rerun resumes), ``OutError`` when
    ``out`` cannot be written, ``StoreLocked``, and what the kind's ``begin`` raises (``StudyMismatch``).
    """
    settings = settings or RunSettings()
    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    cells = list(kind.cells(study))
    ids = kinds.cell_ids(kind, study, cells)
    if len(set(ids)) != len(ids):
        raise ValueError(f"{kind.key}: the study kind's cells are not distinct")
    workers = n_workers(settings.n_jobs) if settings.workers is None or settings.backend == "loky" else settings.workers
    if settings.scheduler is None:  # a scheduler elsewhere: its workers' memory is unknown here
        every = kinds.tasks_of(kind, study, list(zip(ids, cells)), workers)
        if problem := memory_problem(kinds.forecast_of(kind, study, every, workers)[1], workers, len(every)):
            raise ConfigError(problem)
    check_backend(settings)
    started = dt.datetime.now(dt.timezone.utc)
    try:
        fresh = not study.out.exists() or (study.out.is_dir() and not any(study.out.iterdir()))
        with kinds.open_store(kind, study, cells) as store:
            kinds.begin(kind, study, store)
            done = set() if settings.force else store.done()
            todo = [(i, c) for i, c in zip(ids, cells) if i not in done]
            code = code_fingerprint()
            older = [c for c in store.codes() if c != code] if len(todo) < len(cells) else []
            tasks = kinds.tasks_of(kind, study, todo, workers)
            cpu, memory = kinds.forecast_of(kind, study, tasks, workers)
            say(plan_line(study, len(todo), len(cells), len(tasks), cpu, memory, workers))
            if older:  # resuming is keyed by the config, not by the code: say when they differ
                say(f"{study.name}: warning: cells found in {study.out} were computed by other covstudy code "
                    f"({', '.join(c[:12] for c in older)}; this is {code[:12]}); force=true recomputes them")
            if todo:
                store.record_code(code, only=settings.force)
            saved = len(cells) - len(todo)
            cost = {i: kinds.cell_cost(kind, study, c) for i, c in todo}  # the bar advances by the forecast work done
            work = kind.work or kinds.run_task
            try:
                with Progress(study.name, len(todo), sum(cost.values()), progress) as bar, \
                        contextlib.ExitStack() as stack:
                    if cpu < kinds.IN_PROCESS_SECONDS and settings.backend == "loky":
                        # Too little work to pay for starting workers (each imports numpy, scipy and covstudy).
                        # More runs on workers even with one: a long numpy call here would hold off
                        # Ctrl-C and SIGTERM until it returns, a worker is killed at once.
                        results = map(work, tasks)
                    elif tasks:  # closed on any error: what runs and is queued stops
                        results = stack.enter_context(contextlib.closing(_on_workers(settings, tasks, workers, work)))
                    else:
                        results = ()
                    for result in results:
                        finished = store.save_result(result)
                        saved += len(finished)
                        bar.update(len(finished), sum(cost[i] for i in finished))
            except KeyboardInterrupt:
                _shutdown_workers()
                raise Interrupted(f"interrupted: {saved} of {len(cells)} cells saved in {study.out}; "
                                  "rerun the same command to resume") from None
            except BackendError:
                if fresh:
                    store.remove_all()
                raise
            tables = store.assemble(ids)
            paths = list(kind.finish(study, tables))
            page = kind.page(study, tables) if kind.page else kinds.write_page(kind, study, tables)
            paths += [page] if page is not None else []
            store.write_json("provenance.json", {
                **provenance(study, settings, overrides, started, len(todo), workers,
                             store.read_json("provenance.json")),
                **store.provenance, "kind": kind.key, "files": [Path(p).name for p in paths]})
    except OSError as err:
        raise OutError(f"out: cannot write the study folder {study.out}: {err.strerror or err}") from None
    return tables


def plan_line(study, todo: int, cells: int, tasks: int, cpu: float, memory: float, workers: int) -> str:
    """"quick: 990 of 1485 cells to compute (495 found in results/quick) in 9 tasks on 2 workers; roughly
    1 s of CPU, ~200 MB a worker": what a run says before any work (``cpu``, ``memory``: the kind's forecast)."""
    if not tasks:
        return f"{study.name}: {todo} of {cells} cells to compute (all found in {study.out})"
    spread = max(1, min(workers, tasks))
    wall = f" (~{duration(cpu / spread)} on {spread} workers)" if spread > 1 and cpu >= 2 else ""
    where = f" ({cells - todo} found in {study.out})" if todo < cells else ""
    return (f"{study.name}: {todo} of {cells} cells to compute{where} in {tasks} task{'s' * (tasks > 1)} on {spread} "
            f"worker{'s' * (spread > 1)}; roughly {'<1 s' if cpu < 0.5 else duration(cpu)} of CPU{wall}, "
            f"~{size(memory)} a worker")


def run_study(study: Study, overrides: list[str] | None = None, progress: bool | None = None,
              say=None) -> pd.DataFrame:
    """Compute every missing cell of the interval study ``study`` and return (and write) its results
    table: ``run_kind`` of the interval kind (study/intervals.py) with the study's run-time settings.
    Raises as ``run_kind`` does; ``StudyMismatch`` when ``out`` holds another study."""
    return run_kind(intervals.KIND, study, intervals.settings(study), progress, say, overrides)["results"]


def worker_pool(workers: int):
    """loky's reusable pool of ``workers`` single-threaded processes that die with this one and
    leave Ctrl-C and SIGTERM to it (``_WORKER_START``). Everything in covstudy that runs on local
    processes uses this pool: joblib.Parallel's own loky pool cannot take over the reusable
    executor once this one exists."""
    from joblib.externals.loky import get_reusable_executor

    return get_reusable_executor(max_workers=workers, timeout=300, initializer=exec,
                                 initargs=(_WORKER_START, {"parent": os.getpid()}),
                                 env={v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})


# Each worker's initializer. Source, not a function of covstudy: unpickling a function would
# import covstudy (numpy, scipy, pandas: a second or more) before it runs, and a worker whose run
# is killed with -9 meanwhile would live on that long. Workers exit when the run dies, even by
# kill -9: on Linux the kernel kills them (PR_SET_PDEATHSIG, even inside a long numpy call),
# elsewhere a thread notices the worker being re-parented. Ctrl-C and SIGTERM are the run's: it
# saves what is finished and stops the pool (see _workers_leave_signals_to_us).
_WORKER_START = """
import ctypes, os, signal, threading, time
for sig in (signal.SIGINT, signal.SIGTERM):  # a worker loky starts later, too
    signal.signal(sig, signal.SIG_IGN)
try:
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except (OSError, AttributeError):
    pass
if os.getppid() != parent:  # the run died before the line above took effect
    os._exit(1)

def watch():
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)

threading.Thread(target=watch, name="covstudy-parent-watch", daemon=True).start()
"""


def _on_workers(study: RunSettings | Study, tasks: list, workers: int, evaluate):
    """``evaluate(task)`` of each task, as a worker finishes it (in any order): on loky processes
    that die with this one (``worker_pool``), or on the study's dask cluster. ``study`` gives the
    backend settings (backend, scheduler, workers, threads_per_worker): a ``kinds.RunSettings`` or a
    ``Study``; ``evaluate`` a picklable function (the kind's ``work``)."""
    if study.backend == "loky":
        executor = worker_pool(min(workers, len(tasks)))
        with _workers_leave_signals_to_us():  # the first submission starts the workers
            futures = [executor.submit(evaluate, tasks[0])]
        futures += [executor.submit(evaluate, t) for t in tasks[1:]]
        try:
            for future in concurrent.futures.as_completed(futures):
                yield future.result()
        finally:
            if not all(f.done() for f in futures):  # an interrupt or an error: stop what runs and is queued
                _shutdown_workers()
        return
    with backend(study, workers) as n_jobs:
        parallel = joblib.Parallel(n_jobs=min(n_jobs, len(tasks)), return_as="generator_unordered")
        results = parallel(joblib.delayed(evaluate)(t) for t in tasks)
        try:
            yield from results
        finally:
            results.close()


@contextlib.contextmanager
def _workers_leave_signals_to_us():
    """Workers started in here ignore Ctrl-C and SIGTERM from their first instruction (the
    dispositions survive exec; a signal blocked instead would be unblocked by multiprocessing's
    resource tracker): the driver alone handles them, saves what is finished and stops the pool.
    The price: a signal that arrives while the workers are spawned (milliseconds) is ignored by
    the driver too."""
    try:
        previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _shutdown_workers() -> None:
    """Stop loky's reusable worker pool (and its shared-memory folders) after an interrupt."""
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)
    if executor is not None:
        # loky's manager thread drops the pending tasks, then takes the next queued task id and
        # dies printing "Exception in thread ExecutorManagerThread ... KeyError" (loky 3.5): take
        # the ids out first. Only this thread submits, so none is queued after.
        work_ids = getattr(executor, "_work_ids", None)
        with contextlib.suppress(queue.Empty, AttributeError):
            while True:
                work_ids.get_nowait()
        with contextlib.suppress(Exception):
            executor.shutdown(wait=True, kill_workers=True)


def provenance(study, settings: RunSettings, overrides, started, computed: int, workers: int,
               previous: dict | None = None) -> dict:
    """What produced the tables: versions, git commit, command, times, machine, the run-time settings
    (the study's RUN_KEYS, then ``settings``); ``history`` keeps the earlier runs' records (newest last)."""
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
        **{k: getattr(study, k) for k in RUN_KEYS if hasattr(study, k)},
        **settings.config(),
        "workers": workers,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "git_commit": git_commit(),
        "code": code_fingerprint(),
        "versions": versions,
        "history": history(previous),
    }


def history(previous: dict | None) -> list[dict]:
    """The earlier runs of a folder: the previous record's history and the previous record itself."""
    if not previous:
        return []
    earlier = previous.get("history") or []
    return [*earlier, {k: v for k, v in previous.items() if k != "history"}]


@functools.cache
def code_fingerprint() -> str:
    """SHA-256 of covstudy's own files (every module and data file of the installed package, by
    relative path and bytes): the same code gives the same fingerprint, with or without git."""
    root = Path(__file__).resolve().parents[1]  # the covstudy package
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def git_commit() -> str | None:
    """The commit of the covstudy source tree, with '+dirty' if it has changes; None outside git."""
    src = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                                text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--", "."], capture_output=True,
                               text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "")
