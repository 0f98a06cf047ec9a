"""Study kinds: the studies that are not a grid of intervals scored by the engine (ROC bands,
sequential procedures, calibration, leaderboards, and the next family), run by the study runner.

A kind is a ``StudyKind``: the config key that marks its studies (a study config with a ``bands:``
block is a band study) and a few functions of its validated study object::

    load(config) -> study          # the resolved config, checked before any work (ConfigError)
    cells(study) -> [cell, ...]    # the grid, in the order of the tables; a cell is a small picklable value
    rows(study, cell) -> {table: [row, ...]}   # pure, module-level: it runs on a worker
    finish(study, tables) -> [path, ...]       # the tables' files, figures (with plot) and report.md
    summary(study, tables) -> DataFrame        # what the command prints and report.html shows
    cost(study, cell) -> CPU seconds; memory(study, cell) -> bytes (optional: the plan line and
    the memory check); page(study, tables) -> report.html (optional: else report/kind_page.py's page of
    the summary, with an interactive figure of the table when ``explore`` names its axes and measures);
    cites: the registry prefixes its table's ``method`` values are resolved under, for the references section
    that ends its report.md and report.html (report/references.py ``kind_cited``)

The study object has ``name``, ``question``, ``out``, ``plot`` and the fields that determine its
numbers (``seed``, ``reps``, ...). A kind registers where it is defined
(``register_study_kind(StudyKind(...))`` at the bottom of its module); ``kind_of(config)`` finds it,
importing ``covstudy.<key>.study`` on first use (so a new kind in a new wing ``covstudy/<key>/study.py``
needs no other edit), and ``run_kind`` gives every kind what the interval runner has: the part store
(checksummed JSON-line parts, resumable after Ctrl-C or kill -9, damaged parts recomputed), loky or dask
workers (runner.py's, the same functions), the plan line with a forecast and a memory check before any work,
the progress line, provenance.json and report.html. A cell's identity hashes the kind, the study's fields
that determine numbers and the cell: its rows never depend on n_jobs, chunking or which cells ran before,
as long as ``rows`` draws from streams keyed by the cell (seeds.stream), which every kind here does.

In the study wing this room sits beside the runner: it reuses the runner's workers and the store's lock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import importlib
import json
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .config import BACKENDS, ConfigError, boolean, choice, integer, n_jobs_value, n_workers, text

IN_PROCESS_SECONDS = 0.5  # a forecast below this runs in this process, without starting workers
NOT_IDENTITY = ("name", "question", "out", "plot", "n_jobs")  # study fields that do not change a number
STUDY_KINDS: dict[str, "StudyKind"] = {}


@dataclass(frozen=True)
class StudyKind:
    """A family of studies the runner runs (module docstring)."""

    key: str
    load: Callable[[dict], Any]
    cells: Callable[[Any], list]
    rows: Callable[[Any, Any], dict]
    finish: Callable[[Any, dict], list]
    summary: Callable[[Any, dict], Any]
    tables: tuple[str, ...] = ("results",)
    cost: Callable[[Any, Any], float] | None = None
    memory: Callable[[Any, Any], float] | None = None
    page: Callable[[Any, dict], Path] | None = None
    explore: dict | None = None  # the default page's figure: {"table", "axes", "measures", "level", "extra"}
    cites: tuple[str, ...] = ()  # registry prefixes of its methods, tried in order ("{curve}_band": a column's value)


def register_study_kind(kind: StudyKind) -> StudyKind:
    """Register ``kind`` under its config key (where the kind is defined); returns it."""
    STUDY_KINDS[kind.key] = kind
    return kind


def kind_of(config: dict) -> StudyKind | None:
    """The study kind whose key the config sets (None: an interval study, study/config.py)."""
    for key, value in config.items():
        if not value or not isinstance(key, str):
            continue
        if key not in STUDY_KINDS and key in _wings():
            importlib.import_module(f"covstudy.{key}.study")  # registers the kind
        if key in STUDY_KINDS:
            return STUDY_KINDS[key]
    return None


def _wings() -> set[str]:
    """The wings of covstudy with a study module (each may define a study kind)."""
    package = Path(__file__).resolve().parents[1]
    return {m.name for m in pkgutil.iter_modules([str(package)]) if m.ispkg and m.name != "study"
            and (package / m.name / "study.py").is_file()}


@dataclass(frozen=True)
class RunSettings:
    """How a kind's study runs (the config's run-time keys; they never change a number)."""

    n_jobs: int = 1
    backend: str = "loky"
    scheduler: str | None = None
    workers: int | None = None
    threads_per_worker: int = 1
    force: bool = False

    @classmethod
    def from_config(cls, cfg: dict) -> "RunSettings":
        return cls(n_jobs=n_jobs_value(cfg.get("n_jobs", -1)),
                   backend=choice("backend", cfg.get("backend", "loky"), BACKENDS),
                   scheduler=None if cfg.get("scheduler") is None else text("scheduler", cfg["scheduler"]),
                   workers=None if cfg.get("workers") is None else integer("workers", cfg["workers"], low=1),
                   threads_per_worker=integer("threads_per_worker", cfg.get("threads_per_worker", 1), low=1),
                   force=boolean("force", cfg.get("force", False)))

    name = ""  # runner.provenance's record names the study itself

    def config(self) -> dict:
        """The settings, for provenance.json (``runner.provenance`` keeps the run-time keys)."""
        return dataclasses.asdict(self)


def plain(value):
    """``value`` as JSON data, for a cell's identity: dataclasses as mappings of their fields, arrays
    as lists, registered methods by name (their registered name is their identity)."""
    from ..methods.registry import Method

    if isinstance(value, Method):
        return value.name
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"a study's field cannot be part of a cell's identity: {type(value).__name__}")


def identity(study) -> dict:
    """The fields of ``study`` that determine its numbers (all but NOT_IDENTITY), as JSON data."""
    return {f.name: plain(getattr(study, f.name)) for f in dataclasses.fields(study) if f.name not in NOT_IDENTITY}


def cell_id(key: str, ident: dict, cell) -> str:
    text_ = json.dumps({"kind": key, "study": ident, "cell": plain(cell)}, sort_keys=True, allow_nan=True)
    return hashlib.sha256(text_.encode()).hexdigest()[:20]


def run_task(task) -> list[tuple[str, dict]]:
    """A worker's task: (rows, study, [(cell_id, cell), ...]) -> [(cell_id, {table: rows}), ...], with
    numpy's thread pools at one thread (the workers share the cores; the in-process run does the same,
    so a number never depends on where it was computed)."""
    from threadpoolctl import threadpool_limits

    rows, study, cells = task
    with threadpool_limits(limits=1):
        return [(cid, rows(study, cell)) for cid, cell in cells]


def run_kind(kind: StudyKind, study, settings: RunSettings | None = None, progress: bool | None = None,
             say=None, overrides=None) -> dict:
    """Compute every missing cell of ``study`` and write its tables, report and page; return the tables
    (``{table: DataFrame}``). Raises as ``runner.run_study`` does: ``ConfigError`` before any work when
    the memory forecast does not fit, ``Interrupted`` on Ctrl-C/SIGTERM (finished cells are saved; a
    rerun resumes), ``BackendError``, ``OutError``, ``StoreLocked``."""
    import pandas as pd
    import yaml

    from . import runner
    from .cost import BASE_BYTES, duration, physical_memory, size
    from .progress import Progress
    from .store import KindStore, atomic_write

    settings = settings or RunSettings()
    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    cells = list(kind.cells(study))
    ident = identity(study)
    ids = [cell_id(kind.key, ident, c) for c in cells]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{kind.key}: the study kind's cells are not distinct")
    workers = n_workers(settings.n_jobs) if settings.workers is None or settings.backend == "loky" else settings.workers
    memory = {i: BASE_BYTES + (kind.memory(study, c) if kind.memory else 0.0) for i, c in zip(ids, cells)}
    ram = physical_memory()
    spread = max(1, min(workers, len(cells)))
    if settings.scheduler is None and ram and max(memory.values(), default=0) * spread > ram:
        each = max(memory.values())
        fewer = f"lower n_jobs (now {spread} workers), " if spread > 1 and each <= ram else ""
        raise ConfigError(f"n_jobs: the forecast is ~{size(each)} a worker on {spread} worker{'s' * (spread > 1)}, "
                          f"more than this machine's {size(ram)} of memory; {fewer}lower reps or the grid")
    runner.check_backend(settings)
    started = dt.datetime.now(dt.timezone.utc)
    try:
        fresh = not study.out.exists() or (study.out.is_dir() and not any(study.out.iterdir()))
        with KindStore(study.out, kind.tables) as store:
            record = {"kind": kind.key, "name": study.name, "question": study.question, **ident}
            atomic_write(study.out / "study.yaml",  # lists of numbers on one line each: a readable record
                         yaml.safe_dump(record, sort_keys=False, default_flow_style=None, width=120).encode())
            done = {} if settings.force else store.finished_cells()
            todo = [(i, c) for i, c in zip(ids, cells) if i not in done]
            cost = {i: kind.cost(study, c) if kind.cost else 0.01 for i, c in todo}
            tasks = [(kind.rows, study, [(i, c)]) for i, c in sorted(todo, key=lambda t: -cost[t[0]])]
            found = len(cells) - len(todo)
            cpu = sum(cost.values())
            spread = max(1, min(workers, len(tasks)))
            wall = f" (~{duration(cpu / spread)} on {spread} workers)" if spread > 1 and cpu >= 2 else ""
            where = f" ({found} found in {study.out})" if found else ""
            plan = (f"{where} in {len(tasks)} task{'s' * (len(tasks) > 1)} on {spread} worker{'s' * (spread > 1)}; "
                    f"roughly {'<1 s' if cpu < 0.5 else duration(cpu)} of CPU{wall}, "
                    f"~{size(max(memory[i] for i, _ in todo))} a worker") if todo else f" (all found in {study.out})"
            say(f"{study.name}: {len(todo)} of {len(cells)} cells to compute{plan}")
            if todo:
                store.record_code(runner.code_fingerprint(), only=settings.force)
            saved = found
            try:
                with Progress(study.name, len(todo), cpu, progress) as bar, contextlib.ExitStack() as stack:
                    if not tasks or (cpu < IN_PROCESS_SECONDS and settings.backend == "loky"):
                        results = map(run_task, tasks)  # too little work to pay for starting workers
                    else:  # closed on any error: what runs and is queued stops
                        results = stack.enter_context(contextlib.closing(
                            runner._on_workers(settings, tasks, workers, run_task)))
                    for finished in results:
                        store.save_cells(finished)
                        saved += len(finished)
                        bar.update(len(finished), sum(cost[i] for i, _ in finished))
            except KeyboardInterrupt:
                runner._shutdown_workers()
                raise runner.Interrupted(f"interrupted: {saved} of {len(cells)} cells saved in {study.out}; "
                                         "rerun the same command to resume") from None
            except runner.BackendError:
                if fresh:
                    store.remove_all()
                raise
            stored = store.compact_cells(ids)
            tables = {t: pd.DataFrame([row for i in ids for row in stored[i].get(t, [])]) for t in kind.tables}
            paths = list(kind.finish(study, tables))
            paths.append(kind.page(study, tables) if kind.page else write_page(kind, study, tables))
            store.write_json("provenance.json", {
                **runner.provenance(settings, overrides, started, len(todo), workers,
                                    store.read_json("provenance.json")),
                "study": study.name, "kind": kind.key, "files": [Path(p).name for p in paths]})
    except OSError as err:
        raise runner.OutError(f"out: cannot write the study folder {study.out}: {err.strerror or err}") from None
    return tables


def write_page(kind: StudyKind, study, tables: dict) -> Path:
    """<out>/report.html of a kind without a page of its own: its summary, figures and files."""
    from ..report.kind_page import write_kind_html
    from ..report.references import kind_cited

    explore = kind.explore
    table = tables[explore.get("table", kind.tables[0])] if explore else None
    refs = kind_cited(tables[kind.tables[0]], kind.cites)
    return write_kind_html(study, kind.summary(study, tables), table, explore, refs)
