"""Evaluate one task: the results-table rows of its cells (pure computation, no I/O).

The task's design points are handed to the evaluation core (core.py) together with
one analysis per (method entry, estimand, delta, engine); the core generates each point's
outcome distribution once per engine and scores every analysis on it, so all methods at a
point see the same simulated test sets.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from .. import validate
from ..designs import DESIGNS, get_design
from ..estimands import get_estimand
from ..engine.core import Evaluator
from .grid import Cell, Task
from ..engine.measures import MEASURES, NULL_MEASURES, RANGES, RESULT_COLUMNS
from .config import analyses_of

if TYPE_CHECKING:  # pandas is for reading parts back, in the driver: a worker that evaluates never imports it
    import pandas as pd


def evaluate_single_threaded(task: Task) -> list[dict]:
    """``evaluate(task)`` with numpy's thread pools at one thread: what a worker runs, since the
    workers share the cores. It lives here, not in runner.py, so that a worker imports only what
    evaluating needs (not pandas, pyarrow, the store)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return evaluate(task)


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
        for kind, analysis in analyses_of(spec, est, delta, side, engine, group[0].reps, group[0].seed,
                                          design.exact_engine):
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


# Every column a row carries after its identity, and the range of each (measures' registry).
ROW_MEASURES = RESULT_COLUMNS
ROW_RANGES = RANGES
# Columns a part carries but the results table does not: they differ on every run (provenance.json
# keeps their sums), and the table must be the same bytes for the same config and seed.
WALL_CLOCK = ("seconds",)
TEXT_COLUMNS = ("cell_id", "method", "label", "params", "side", "design", "engine", "metric",
                *dict.fromkeys(a.name for d in DESIGNS.values() for a in d.axes if a.choices))  # + categorical axes
ALWAYS = ("cell_id", "method", "side", "design", "delta", "engine", "truth", *MEASURES, "seconds")  # in every row


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


def row_columns(cell: Cell) -> tuple[str, ...]:
    """The columns of ``cell``'s row, as ``evaluate`` writes it."""
    design = get_design(cell.design)
    null = get_estimand(design.data, cell.estimand).null is not None
    exact = cell.engine == "both" and design.exact_engine and not cell.method.method.per_test_set  # as analyses_of
    return (*row_identity(cell), "truth", *MEASURES, *(NULL_MEASURES if null else ()), "n_valid",
            *(("exact_coverage", "exact_mean_width") if exact else ()), "seconds")


def row_problem(frame: pd.DataFrame, columns: dict[str, tuple] | None = None) -> str | None:
    """Why ``frame`` (rows read back from a part) is not what ``evaluate`` writes, or None: an
    unexpected or a missing column, a non-number in a numeric column, a value out of its range
    (ROW_RANGES, the design's axes, delta's, whole reps and seeds), or an empty value where a
    row has one. ``columns`` (cell_id -> row_columns) makes the check exact for those cells:
    their rows must have exactly those columns, filled."""
    import pandas as pd

    designs = set(frame["design"].dropna()) if "design" in frame else set()
    if unknown := sorted(designs - set(DESIGNS), key=str):
        return f"unknown design {unknown[0]!r}"
    if "metric" in frame and (bad := [m for d in designs for m in frame.loc[frame["design"] == d, "metric"].dropna()
                                      if _estimand(get_design(d).data, m) is None]):
        return f"unknown metric {bad[0]!r}"
    axes = {a.name: a for d in designs for a in get_design(d).axes}
    known = {*TEXT_COLUMNS, *axes, "delta", "reps", "seed", *ROW_MEASURES}
    # dict lookups, not Series.isin: pandas' string isin makes an Arrow scalar of every cell of the study, per part
    ours = pd.Series([c in columns for c in frame["cell_id"]] if columns and "cell_id" in frame else False,
                     index=frame.index, dtype=bool)
    if ours.all() and columns:  # only this study's cells: their columns exactly
        known = {c for i in frame["cell_id"] for c in columns[i]}
    needed = [*ALWAYS, *(NULL_MEASURES if any(_has_null(d, frame) for d in designs) else ())]
    needed += [c for i in frame.loc[ours, "cell_id"].drop_duplicates() for c in columns[i] if c not in needed]
    if missing := [c for c in needed if c not in frame]:
        return f"no {missing[0]} column"
    if extra := [c for c in frame if c not in known]:
        return f"unexpected column {extra[0]}"
    filled = [c for c in dict.fromkeys(needed) if c in ROW_RANGES and c != "n_valid"]  # n_valid is empty for the exact engine
    if ours.any() and filled:
        has = pd.DataFrame([[c in columns[i] for c in filled] for i in frame.loc[ours, "cell_id"]],
                           index=frame.index[ours], columns=filled)
        if holes := [c for c in filled if (has[c] & frame.loc[ours, c].isna()).any()]:
            return f"missing values in column {holes[0]}"
    numeric = [c for c in frame if c not in TEXT_COLUMNS]
    if text := [c for c in numeric if not pd.api.types.is_numeric_dtype(frame[c]) or
                pd.api.types.is_bool_dtype(frame[c])]:
        return f"non-numeric value in column {text[0]}"
    if holes := [c for c in ALWAYS if frame[c].isna().any()]:
        return f"missing values in column {holes[0]}"
    for col in numeric:
        low, high, low_open, high_open, whole = _domain(col, axes.get(col))
        values = frame[col].dropna().to_numpy(dtype=float)
        inside = ((values > low) if low_open else (values >= low)) & ((values < high) if high_open else (values <= high))
        if whole:
            inside &= values == np.round(values)
        if not np.all(inside):
            kind = "whole numbers " if whole else ""
            return (f"out of range: {col} {float(values[~inside][0])!r} not in {kind}{'(' if low_open else '['}{low:g}, "
                    f"{high:g}{')' if high_open else ']'}")
    return None


def _domain(col: str, axis=None) -> tuple[float, float, bool, bool, bool]:
    """(low, high, low_open, high_open, whole) of column ``col`` (``axis``: the design's axis of that name)."""
    if axis is not None:
        return axis.low, np.inf if axis.high is None else axis.high, axis.low_open, axis.high_open, axis.integer
    if col == "delta":
        return validate.DELTA_MIN, validate.DELTA_MAX, False, False, False
    if col in ("reps", "seed", "n_valid"):
        return int(col == "reps"), np.inf, False, False, True
    return (*ROW_RANGES[col], False, False, False)


def _has_null(design: str, frame: pd.DataFrame) -> bool:
    """Whether the rows of ``design`` in ``frame`` are of an estimand with a null value (they carry NULL_MEASURES)."""
    d = get_design(design)
    rows = frame[frame["design"] == design]
    metrics = set(rows["metric"].dropna()) if "metric" in rows else set()
    return any(_estimand(d.data, m).null is not None for m in metrics or {d.estimand})


def _estimand(data: str, name: str):
    try:
        return get_estimand(data, name)
    except ValueError:
        return None
