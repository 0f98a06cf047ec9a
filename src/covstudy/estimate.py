"""A rough forecast of a run, printed before any work: CPU time and memory per worker.

Both come from ``Design.cost`` (the outcomes whose intervals a cell computes, see
designs/base.py), the same estimate the runner splits tasks by:

* time: ``SECONDS_PER_COST`` CPU seconds per unit of cost for methods computed on interval
  tables, ``SECONDS_PER_TEST_SET`` per simulated test set for methods that need each test set
  (``Method.per_test_set``: bootstrap, AUC, cluster methods; they cost ``reps`` per point).
  Measured on the shared 2-core development machine over the committed studies: table methods
  take ~1.5e-6 (closed forms: quick, bcd2001) to ~3e-5 (Beta quantiles: groundlight_balanced)
  seconds per unit, test-set methods ~5e-5 (clustered) to ~3e-4 (auc) seconds per test set,
  so the forecast is an order of magnitude, no more (within ~5x on those studies);
* memory: a worker's interpreter with numpy, scipy and pandas (``BASE_BYTES``) plus the
  largest task's interval tables (lower and upper, 16 bytes a cell, one table per method,
  estimand and delta, at most the evaluator's cache) and its largest batch of outcome
  weights (8 bytes each, a few copies while it is scored).
"""

from __future__ import annotations

from . import evaluate
from .designs import get_design
from .grid import Cell, Task, cells_cost
from .methods import get

SECONDS_PER_COST = 7e-6  # CPU seconds per unit of Design.cost, interval-table methods (rough: see above)
SECONDS_PER_TEST_SET = 1e-4  # CPU seconds per simulated test set, methods that need each one
BASE_BYTES = 200e6  # a worker after importing numpy, scipy, pandas (max RSS of a small study: ~200 MB)
WEIGHT_COPIES = 4  # outcome weights, their columns and the scoring temporaries


def cell_seconds(cell: Cell) -> float:
    """Forecast CPU seconds of one cell (the progress bar advances by it)."""
    if get(cell.method.name).per_test_set and cell.reps is not None:
        return SECONDS_PER_TEST_SET * cell.reps
    return SECONDS_PER_COST * cells_cost([cell])


def cpu_seconds(todo: list[Cell]) -> float:
    """Forecast CPU seconds of computing the cells ``todo``."""
    return sum(map(cell_seconds, todo))


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
    table_cells = min(sum(tables.values()), evaluate._CACHE_CELLS)
    # Points are generated in batches of at most _BATCH_ELEMENTS weights (one point at least).
    batch = min(sum(outcomes.values()), max(evaluate._BATCH_ELEMENTS, *outcomes.values()))
    return BASE_BYTES + 16 * table_cells + 8 * WEIGHT_COPIES * batch


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


def forecast(todo: list[Cell], tasks: list[Task], workers: int) -> str:
    """"roughly 2 min of CPU (~1 min on 2 workers), ~300 MB a worker": the plan line's tail."""
    cpu = cpu_seconds(todo)
    spread = min(workers, len(tasks))
    wall = f" (~{duration(cpu / spread)} on {spread} workers)" if spread > 1 and cpu >= 2 else ""
    memory = max((task_bytes(t) for t in tasks), default=BASE_BYTES)
    return f"roughly {'<1 s' if cpu < 0.5 else duration(cpu)} of CPU{wall}, ~{size(memory)} a worker"
