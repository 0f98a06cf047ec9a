"""Study kinds: what a study is, for the one study runner (runner.py ``run_kind``). Every study is of a
kind: the interval study (designs × methods, study/intervals.py), ROC bands, sequential procedures,
calibration, leaderboards, and the next family.

A kind is a ``StudyKind``: the config key that marks its studies (a study config with a ``bands:``
block is a band study) and a few functions of its validated study object::

    load(config) -> study          # the resolved config, checked before any work (ConfigError)
    cells(study) -> [cell, ...]    # the grid, in the order of the tables; a cell is a small picklable value
    rows(study, cell) -> {table: [row, ...]}   # pure, module-level: it runs on a worker
    finish(study, tables) -> [path, ...]       # the tables' files, figures (with plot) and report.md
    summary(study, tables) -> DataFrame        # what the command prints and report.html shows
    cost(study, cell) -> CPU seconds; memory(study, cell) -> bytes (optional: the plan line, the progress
    bar and the memory check); page(study, tables) -> report.html (optional: else report/kind_page.py's page
    of the summary, with an interactive figure of the table when ``explore`` names its axes and measures;
    a page that returns None writes none); cites: the registry prefixes its table's ``method`` values are
    resolved under, for the references section that ends its report.md and report.html;
    present(study, tables) (optional): what the ``covstudy`` command prints once the study is done (else
    the summary and the page's path; the interval study prints its coverage table and draws its figures)

A kind whose cells share work (the interval study: one interval table serves every point with its n)
says how with optional hooks; each default is the simple case above::

    ids(study, cells) -> [cell_id, ...]      # default: a hash of the kind, ``identity(study)`` and the cell
    tasks(study, [(cell_id, cell)], workers) -> [task, ...]   # default: a task a cell, costliest first
    work(task) -> result                     # module-level, on a worker; default ``run_task``
    forecast(study, tasks, workers) -> (CPU seconds, bytes a worker)   # default: from cost and memory
    store(study, cells) -> a store.Store     # default: store.KindStore (JSON-line parts of its tables)
    begin(study, store)                      # the folder is locked: check it holds this study, write
                                             # study.yaml (default: the kind, name, question, identity)

``work`` and ``store`` go together: a store is a ``store.Store`` whose ``save_result`` keeps what ``work``
returns (and says which cells it holds), ``done()`` names the stored cells and ``assemble(ids)`` gives the
tables, so the interval kind keeps its CSV parts and every other kind the JSON-line parts.

The study object has ``name``, ``question``, ``out``, ``plot`` and the fields that determine its
numbers (``seed``, ``reps``, ...). A kind registers where it is defined
(``register_study_kind(StudyKind(...))`` at the bottom of its module); ``kind_of(config)`` finds it
(a config without a kind's block is an interval study), importing ``covstudy.<key>.study`` on first use (so a new kind in a new wing ``covstudy/<key>/study.py``
needs no other edit), and ``runner.run_kind`` gives every kind the same run: the part store
(checksummed parts, resumable after Ctrl-C or kill -9, damaged parts recomputed), loky or dask workers,
the plan line with a forecast and a memory check before any work, the progress line, provenance.json
and report.html. A cell's identity hashes the kind, the study's fields that determine numbers and the
cell: its rows never depend on n_jobs, chunking or which cells ran before, as long as ``rows`` draws
from streams keyed by the cell (seeds.stream), which every kind here does.

In the study wing this room comes before the runner, which imports it (it never imports the runner).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .config import BACKENDS, boolean, choice, integer, n_jobs_value, text

IN_PROCESS_SECONDS = 2.0  # a forecast below this runs in this process: starting a worker costs ~0.7 CPU-s (quick: 1 s)
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
    page: Callable[[Any, dict], Path | None] | None = None
    explore: dict | None = None  # the default page's figure: {"table", "axes", "measures", "level", "extra"}
    cites: tuple[str, ...] = ()  # registry prefixes of its methods, tried in order ("{curve}_band": a column's value)
    # Optional hooks of a kind whose cells share work (module docstring); None: the default.
    ids: Callable[[Any, list], list[str]] | None = None
    tasks: Callable[[Any, list, int], list] | None = None
    work: Callable[[Any], Any] | None = None
    forecast: Callable[[Any, list, int], tuple[float, float]] | None = None
    store: Callable[[Any, list], Any] | None = None
    begin: Callable[[Any, Any], None] | None = None
    # What the ``covstudy`` command prints once the study is done (None: the kind's summary and its page's path).
    present: Callable[[Any, dict], None] | None = None


def register_study_kind(kind: StudyKind) -> StudyKind:
    """Register ``kind`` under its config key (where the kind is defined); returns it."""
    STUDY_KINDS[kind.key] = kind
    return kind


def kind_of(config: dict) -> StudyKind:
    """The study kind whose key the config sets; without one, the interval study (intervals.KIND)."""
    for key, value in config.items():
        if not value or not isinstance(key, str):
            continue
        if key not in STUDY_KINDS and key in _wings():
            importlib.import_module(f"covstudy.{key}.study")  # registers the kind
        if key in STUDY_KINDS:
            return STUDY_KINDS[key]
    importlib.import_module("covstudy.study.intervals")  # registers the interval study: a config without a kind's block
    return STUDY_KINDS["intervals"]


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

    def config(self) -> dict:
        """The settings, for provenance.json (``runner.provenance``)."""
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


def cell_ids(kind: StudyKind, study, cells: list) -> list[str]:
    """The identities of ``cells`` (``kind.ids``, or a hash of the kind, the study's identity and the cell)."""
    if kind.ids:
        return list(kind.ids(study, cells))
    ident = identity(study)
    return [cell_id(kind.key, ident, c) for c in cells]


def cell_cost(kind: StudyKind, study, cell) -> float:
    """Forecast CPU seconds of one cell (the progress bar advances by it)."""
    return kind.cost(study, cell) if kind.cost else 0.01


def tasks_of(kind: StudyKind, study, todo: list[tuple[str, Any]], workers: int) -> list:
    """The tasks that compute the cells ``todo`` ((cell_id, cell) each), costliest first: ``kind.tasks``',
    or one a cell, ``(rows, study, [(cell_id, cell)])`` for ``run_task``."""
    if kind.tasks:
        return list(kind.tasks(study, todo, workers))
    cost = {i: cell_cost(kind, study, c) for i, c in todo}
    return [(kind.rows, study, [(i, c)]) for i, c in sorted(todo, key=lambda t: -cost[t[0]])]


def forecast_of(kind: StudyKind, study, tasks: list, workers: int) -> tuple[float, float]:
    """(CPU seconds, peak bytes of a worker) of computing ``tasks``: ``kind.forecast``, or the sum of the
    cells' cost and the largest cell's memory above a worker's interpreter (``cost.BASE_BYTES``)."""
    from .cost import BASE_BYTES

    if kind.forecast:
        return kind.forecast(study, tasks, workers)
    cells = [c for _, _, chunk in tasks for _, c in chunk]
    memory = max((kind.memory(study, c) for c in cells), default=0.0) if kind.memory else 0.0
    return sum(cell_cost(kind, study, c) for c in cells), BASE_BYTES + memory


def open_store(kind: StudyKind, study, cells: list):
    """The store of the study's folder (``kind.store``, or a ``KindStore`` of its tables), to enter."""
    from .store import KindStore

    return kind.store(study, cells) if kind.store else KindStore(study.out, kind.tables)


def begin(kind: StudyKind, study, store) -> None:
    """The folder is locked: ``kind.begin``, or write study.yaml (the kind, name, question and identity)."""
    import yaml

    from .store import atomic_write

    if kind.begin:
        return kind.begin(study, store)
    record = {"kind": kind.key, "name": study.name, "question": study.question, **identity(study)}
    atomic_write(study.out / "study.yaml",  # lists of numbers on one line each: a readable record
                 yaml.safe_dump(record, sort_keys=False, default_flow_style=None, width=120).encode())


def write_page(kind: StudyKind, study, tables: dict) -> Path:
    """<out>/report.html of a kind without a page of its own: its summary, figures and files."""
    from ..report.kind_page import write_kind_html
    from ..report.references import kind_cited

    explore = kind.explore
    table = tables[explore.get("table", kind.tables[0])] if explore else None
    refs = kind_cited(tables[kind.tables[0]], kind.cites)
    return write_kind_html(study, kind.summary(study, tables), table, explore, refs)
