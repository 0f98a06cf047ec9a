"""Evaluate one task: the results-table rows of its cells (pure computation, no I/O).

Binomial design: for each point (n, p) the outcome distribution over k = 0..n is computed
once (the Binomial pmf for the exact engine, the simulated histogram for Monte Carlo) and
every method is scored on it. Balanced-accuracy and confusion-matrix designs: each cell is
scored by ``balanced.point_measures`` or ``metric_coverage.point_measures``, whose interval
tables are cached and whose simulated test sets come from the point's own stream. Either
way all methods at a point see the same simulated test sets.
"""

from __future__ import annotations

import time

import numpy as np

from . import balanced
from .coverage import outcome_weights
from .grid import Cell, Task
from .measures import measures
from .methods import get
from .metric_coverage import point_measures, point_truth
from .metrics import method_kind


def interval_table(cell: Cell) -> tuple[np.ndarray, np.ndarray]:
    """The interval (or one-sided bound) of every k = 0..n for the cell's method, n and delta."""
    n = cell["n"]
    return get(cell.method.name).bounds(np.arange(n + 1), n, cell.delta, cell.side, **dict(cell.method.params))


def evaluate(task: Task) -> list[dict]:
    """One row per cell of ``task`` (see grid.Cell), with the measures and the seconds spent."""
    start = time.perf_counter()
    if task.size[0] == "binomial":
        rows = _binomial(task)
    else:
        rows = [_metric(c) if "metric" in dict(c.point) else _balanced(c) for c in task.cells]
    seconds = (time.perf_counter() - start) / max(1, len(rows))
    for row in rows:
        row["seconds"] = seconds
    return rows


def _point_row(cell: Cell, truth: float, score, exact_available: bool = True) -> dict:
    """The row of a cell scored point by point: ``score(reps)`` gives the measures (reps None: exact)."""
    row = _identity(cell)
    row["truth"] = truth
    row.update(score(None if cell.engine == "exact" else cell.reps))
    if cell.engine == "both" and exact_available:
        exact = score(None)
        row["exact_coverage"] = exact["coverage"]
        row["exact_mean_width"] = exact["mean_width"]
    return row


def _metric(cell: Cell) -> dict:
    """A cell of a confusion-matrix study with a ``metric`` axis (metric_coverage.point_measures)."""
    metric, params = cell["metric"], dict(cell.method.params)
    args = (cell.design, cell["n"], cell["prevalence"], cell["tpr"], cell["tnr"])

    def score(reps):
        return point_measures(metric, cell.method.name, params, *args, cell.delta, cell.side, reps, cell.seed)

    # F1 methods have no exact engine (their intervals are themselves simulated).
    return _point_row(cell, point_truth(metric, *args), score, method_kind(metric, cell.method.name) != "f1")


def _balanced(cell: Cell) -> dict:
    sizes = (cell["n_pos"], cell["n_neg"]) if cell.design == "stratified" else (cell["n"], cell["prevalence"])
    tpr, tnr = cell["tpr"], cell["tnr"]

    def score(reps):
        return balanced.point_measures(cell.method.name, cell.design, sizes, tpr, tnr, cell.delta, reps, cell.seed)

    return _point_row(cell, (tpr + tnr) / 2, score)


def _binomial(task: Task) -> list[dict]:
    n = task.size[1]
    ps = np.array(sorted({c["p"] for c in task.cells}))
    row_of = {p: i for i, p in enumerate(ps)}
    any_mc = [c for c in task.cells if c.engine != "exact"]
    exact_w = outcome_weights(n, ps, None, None) if any(c.engine != "mc" for c in task.cells) else None
    mc_w = outcome_weights(n, ps, any_mc[0].reps, any_mc[0].seed) if any_mc else None

    groups: dict[tuple, list[Cell]] = {}
    for cell in task.cells:
        groups.setdefault((cell.method, cell.delta, cell.side, cell.engine), []).append(cell)
    rows = []
    for group in groups.values():
        first = group[0]
        lower, upper = interval_table(first)
        idx = [row_of[c["p"]] for c in group]
        truth = ps[idx]
        exact = measures(exact_w[idx], lower, upper, truth) if first.engine != "mc" else None
        mc = measures(mc_w[idx], lower, upper, truth, first.reps) if first.engine != "exact" else None
        for j, cell in enumerate(group):
            row = _identity(cell)
            row["truth"] = cell["p"]
            main = exact if cell.engine == "exact" else mc
            row.update({name: float(values[j]) for name, values in main.items()})
            row["n_valid"] = cell.reps
            if cell.engine == "both":
                row["exact_coverage"] = float(exact["coverage"][j])
                row["exact_mean_width"] = float(exact["mean_width"][j])
            rows.append(row)
    return rows


def _identity(cell: Cell) -> dict:
    return {
        "cell_id": cell.cell_id,
        "method": cell.method.name,
        "label": cell.method.label,
        "params": ";".join(f"{k}={v}" for k, v in cell.method.params),
        "side": cell.side,
        "design": cell.design,
        **dict(cell.point),
        "delta": cell.delta,
        "engine": "mc" if cell.engine == "both" else cell.engine,
        "reps": cell.reps,
        "seed": cell.seed,
    }
