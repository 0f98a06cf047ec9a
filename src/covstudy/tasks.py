"""Evaluate one task: the results-table rows of its cells (pure computation, no I/O).

The task's design points are handed to the evaluation core (evaluate.py) together with
one analysis per (method entry, estimand, delta, engine); the core generates each point's
outcome distribution once per engine and scores every analysis on it, so all methods at a
point see the same simulated test sets.
"""

from __future__ import annotations

import time

from .designs import get_design
from .estimands import get_estimand
from .evaluate import Evaluator
from .grid import Cell, Task
from .measures import MEASURES, NULL_MEASURES
from .study import analyses_of


def evaluate(task: Task) -> list[dict]:
    """One row per cell of ``task`` (see grid.Cell), with the measures and the seconds spent."""
    start = time.perf_counter()
    design = get_design(task.key[0])
    points = list({tuple(c.design_point.items()): None for c in task.cells})
    where = {pt: i for i, pt in enumerate(points)}
    groups: dict[tuple, list[Cell]] = {}
    for cell in task.cells:
        groups.setdefault((cell.method, cell.estimand, cell.delta, cell.side, cell.engine), []).append(cell)
    jobs, owners = [], []
    for (spec, estimand, delta, side, engine), group in groups.items():
        est = get_estimand(design.data, estimand)
        idx = [where[tuple(c.design_point.items())] for c in group]
        for kind, analysis in analyses_of(spec, est, delta, side, engine, group[0].reps, group[0].seed):
            jobs.append((analysis, idx))
            owners.append((kind, group))
    results = Evaluator(design).score([dict(pt) for pt in points], jobs)
    rows: dict[Cell, dict] = {}
    for (kind, group), result in zip(owners, results):
        for j, cell in enumerate(group):
            row = rows.setdefault(cell, row_identity(cell))
            if kind == "main":
                row["truth"] = float(result["truth"][j])
                row.update({m: float(result[m][j]) for m in MEASURES + NULL_MEASURES if m in result})
                row["n_valid"] = result["n_valid"][j]
            else:
                row["exact_coverage"] = float(result["coverage"][j])
                row["exact_mean_width"] = float(result["mean_width"][j])
    out = list(rows.values())  # analyses_of lists the main engine first: its columns come first
    seconds = (time.perf_counter() - start) / max(1, len(out))
    for row in out:
        row["seconds"] = seconds
    return out


# Every column a row carries after its identity: the runner keeps only these (and the identity's)
# in the results table, so a column added to the rows above must be added here too.
ROW_MEASURES = ("truth", *MEASURES, *NULL_MEASURES, "n_valid", "exact_coverage", "exact_mean_width", "seconds")


def row_identity(cell: Cell) -> dict:
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
