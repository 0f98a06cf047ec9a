"""A rough forecast of a run, printed before any work: CPU time and memory per worker.

Both come from ``Design.cost`` (the outcomes whose intervals a cell computes, see
designs/base.py), the same estimate the runner splits tasks by:

* time: per task, ``SECONDS_PER_INTERVAL`` (``INTERVAL_SECONDS`` for the root-finding methods
  that cost more) for each interval a table method computes (an exact table once for all the
  points sharing it, and once per worker when its points are split over tasks, since a worker
  keeps its tables cached; a Monte Carlo cell the outcomes it draws),
  ``SECONDS_PER_OUTCOME`` for each outcome weight scored, ``SECONDS_PER_TEST_SET`` for each
  test set of a method that needs each one (``Method.per_test_set``: AUC, bootstrap, cluster
  methods) and ``SECONDS_PER_CELL`` of overhead a cell. The constants were fitted by eye on the
  shared 2-core development machine; an interval costs ~1e-6 s in closed form (Wilson) but
  ~3e-5 s with Beta quantiles and more with root finding, and no method says which it is, so
  the forecast is an order of magnitude, no more: within 2x of the CPU time measured on the
  studies re-measured in issue 48 (benchmarks/README.md), ~6x on the others before;
* memory: a worker's interpreter with numpy, scipy and covstudy (``BASE_BYTES``) plus the
  largest task's interval tables (lower and upper, 16 bytes a cell, one table per method,
  estimand and delta, at most the evaluator's cache) and its largest batch of outcome
  weights (8 bytes each, a few copies while it is scored) and, for Monte Carlo, one point's
  simulated test sets and resamples (``core.mc_bytes``).

A study whose forecast does not fit in the machine's memory is refused before any work
(the runner's check, ``memory_problem`` of the forecast, before the store is opened; ``check_fits``
for an interval study before it runs).

In the study wing's flow this room comes after grid (it prices the cells and tasks grid makes)
and before progress and the runner, which print and advance by its forecast.
"""

from __future__ import annotations

import functools
import os

from ..engine import core
from ..designs import get_design
from . import grid
from .config import ConfigError, Study, n_workers
from .grid import Cell, Task, cells_cost

SECONDS_PER_INTERVAL = 5e-6  # CPU seconds per interval computed by a table method (rough: see above)
# Methods that cost far more an interval, measured: the root finders on incomplete beta functions
# (methods/inverted_tests.py) over n = 1,000-40,000 (growing about as n^0.15): Blaker 22-37 µs,
# mid-p 8-14 µs (LRT 3-7 µs); the posterior difference of two proportions 1.6 ms (n1 = n2 = 50).
INTERVAL_SECONDS = {"blaker": 3e-5, "mid_p": 1.2e-5, "diff_bayes": 1.6e-3}
SECONDS_PER_OUTCOME = 1e-7  # CPU seconds per outcome weight scored (coverage, width) by a table method
SECONDS_PER_TEST_SET = 1e-4  # CPU seconds per simulated test set, methods that need each one
SECONDS_PER_CELL = 1e-4  # CPU seconds of overhead per cell (its point's truth, measures, row)
BASE_BYTES = 200e6  # a worker's interpreter: 113 MB measured after a small task (issue 48); 200 MB keeps a margin
WEIGHT_COPIES = 4  # outcome weights, their columns and the scoring temporaries


def _per_test_set(cell: Cell) -> bool:
    return cell.reps is not None and cell.method.method.per_test_set


def _interval_seconds(cell: Cell) -> float:
    """Forecast CPU seconds of one interval of ``cell``'s method."""
    return INTERVAL_SECONDS.get(cell.method.method.name, SECONDS_PER_INTERVAL)


def cell_seconds(cell: Cell) -> float:
    """Forecast CPU seconds of one cell on its own (the progress bar advances by it)."""
    if _per_test_set(cell):
        return SECONDS_PER_CELL + SECONDS_PER_TEST_SET * cell.reps
    return SECONDS_PER_CELL + (_interval_seconds(cell) + SECONDS_PER_OUTCOME) * cells_cost([cell])


def _task_parts(task: Task) -> tuple[float, dict[tuple, float]]:
    """(CPU seconds of ``task`` but its exact tables, seconds of each exact table it uses)."""
    tables: dict[tuple, float] = {}
    seconds = SECONDS_PER_CELL * len(task.cells)
    for cell in task.cells:
        if _per_test_set(cell):
            seconds += SECONDS_PER_TEST_SET * cell.reps
            continue
        cost = cells_cost([cell])
        seconds += SECONDS_PER_OUTCOME * cost
        if cell.reps is None:  # an exact table, computed once for every point sharing it
            group = (task.key, cell.method, cell.estimand, cell.delta)
            tables[group] = max(tables.get(group, 0.0), cost * _interval_seconds(cell))
        else:  # Monte Carlo computes the outcomes it draws
            seconds += cost * _interval_seconds(cell)
    return seconds, tables


def task_seconds(task: Task) -> float:
    """Forecast CPU seconds of ``task``: an exact interval table is computed once for every
    point of the task (the points share its key), Monte Carlo cells compute the outcomes they
    draw; every cell scores its outcomes; test-set methods cost per test set."""
    seconds, tables = _task_parts(task)
    return seconds + sum(tables.values())


def cpu_seconds(tasks: list[Task], workers: int = 1) -> float:
    """Forecast CPU seconds of computing ``tasks`` on ``workers`` processes: as ``task_seconds``,
    but an exact table split over several tasks is computed at most once in each worker (a worker
    keeps its tables cached, ``core._TABLES``), at most ``workers`` times."""
    seconds, tables = 0.0, {}
    for task in tasks:
        rest, used = _task_parts(task)
        seconds += rest
        for group, table in used.items():
            tables.setdefault(group, []).append(table)
    return seconds + sum(sum(sorted(each, reverse=True)[:max(1, workers)]) for each in tables.values())


@functools.lru_cache(maxsize=1024)  # a run asks twice: the memory check, then the plan line's forecast
def task_bytes(task: Task) -> float:
    """Forecast peak memory of a worker computing ``task``."""
    design = get_design(task.key[0])
    tables: dict[tuple, float] = {}  # one interval table per (method, estimand, delta): its largest use
    outcomes: dict[tuple, float] = {}  # outcome weights per point
    for cell in task.cells:
        cost = cells_cost([cell])
        group = (cell.method, cell.estimand, cell.delta)
        tables[group] = max(tables.get(group, 0.0), cost)
        point = tuple(cell.design_point.items())
        outcomes[point] = max(outcomes.get(point, 0.0), float(design.outcome_count(cell.design_point))
                              if cell.reps is None else cost)
    table_cells = min(sum(tables.values()), core._CACHE_CELLS)
    # Points are generated in batches of at most _BATCH_ELEMENTS weights (one point at least).
    batch = min(sum(outcomes.values()), max(core._BATCH_ELEMENTS, *outcomes.values()))
    simulated = max((core.mc_bytes(design, c.design_point, c.method.method, dict(c.method.params), c.reps)
                     for c in task.cells if c.reps is not None), default=0.0)  # one point's test sets at a time
    return BASE_BYTES + 16 * table_cells + 8 * WEIGHT_COPIES * batch + simulated


def memory_problem(each: float, workers: int, tasks: int, ram: float | None = None) -> str | None:
    """Why ``tasks`` tasks of up to ``each`` bytes on ``workers`` workers cannot fit in this machine's
    RAM ("n_jobs: ..."), or None."""
    ram = physical_memory() if ram is None else ram
    spread = max(1, min(workers, tasks))
    if ram is None or each * spread <= ram:
        return None
    fewer = f"lower n_jobs (now {spread} workers), " if spread > 1 and each <= ram else ""
    return (f"n_jobs: the forecast is ~{size(each)} a worker on {spread} worker{'s' * (spread > 1)}, more than "
            f"this machine's {size(ram)} of memory; {fewer}lower reps or the grid")


def check_fits(study: Study, cells: list[Cell] | None = None) -> None:
    """The run's memory forecast (the plan line's) fits in this machine's RAM; else ConfigError.
    Not for a dask scheduler elsewhere, whose workers' memory is unknown here. ``cells``: the
    study's cells (``grid.cells(study)``) when the caller has them already."""
    if study.scheduler is not None:
        return
    workers = n_workers(study.n_jobs) if study.workers is None else study.workers
    tasks = grid.tasks(grid.cells(study) if cells is None else cells, workers)
    problem = memory_problem(max((task_bytes(t) for t in tasks), default=BASE_BYTES), workers, len(tasks))
    if problem:
        raise ConfigError(problem)


def physical_memory() -> float | None:
    """This machine's RAM in bytes (None where the OS does not tell)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def duration(seconds: float) -> str:
    """``seconds`` rounded for a person: "40 s", "12 min", "3.5 h"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def size(nbytes: float) -> str:
    """``nbytes`` rounded for a person: "300 MB", "2.5 GB"."""
    return f"{nbytes / 1e6:.0f} MB" if nbytes < 1e9 else f"{nbytes / 1e9:.1f} GB"
