"""Expand a study into cells, and group cells into tasks that share work.

A cell is one row of the results table: a method entry at one design point and delta,
under the study's side and engine. Its ``cell_id`` hashes everything that determines its
numbers, so a rerun recognises finished cells whatever else changed in the study.

A design point is the data-generating setting, e.g. (n, p) for the binomial design or
(n, prevalence, tpr, tnr) for the iid design; its random stream is keyed by it (seeds.py),
so every method at a point sees the same simulated test sets. With a ``metric`` axis the
metric is part of a cell's point (and identity), not of the design point.

A task is a chunk of the design points that share one interval-table key
(``Design.table_key``: n for binomial and iid, the class sizes for stratified) with every
cell at those points: interval tables are computed once per (method, key, delta) in a
task, and outcome distributions once per point.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from dataclasses import dataclass

import numpy as np

from ..designs import get_design
from ..estimands import get_estimand
from ..seeds import canonical
from .config import MethodSpec, Study, study_estimands


@dataclass(frozen=True)
class Cell:
    method: MethodSpec
    design: str  # a registered design's name
    point: tuple[tuple[str, float], ...]  # ("metric", m) if the study has a metric axis, then the design point
    delta: float
    side: str
    engine: str  # "exact", "mc", or "both" (an mc row that also carries the exact values)
    reps: int | None
    seed: int | None

    def __getitem__(self, axis: str):
        return dict(self.point)[axis]

    @property
    def design_point(self) -> dict:
        return {k: v for k, v in self.point if k != "metric"}

    @property
    def estimand(self) -> str:
        return dict(self.point).get("metric") or get_design(self.design).estimand

    @property
    def table_key(self) -> tuple:
        """The design and the interval-table key of the point: what a task shares."""
        return (self.design, *get_design(self.design).table_key(self.design_point))

    @functools.cached_property
    def cell_id(self) -> str:
        ident = {"method": self.method.name, "label": self.method.label, "params": dict(self.method.params),
                 "design": self.design, **dict(self.point), "delta": self.delta, "side": self.side,
                 "engine": self.engine, "reps": self.reps, "seed": self.seed}
        text = json.dumps({k: canonical(v) for k, v in ident.items()}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Task:
    key: tuple  # Cell.table_key of every cell
    cells: tuple[Cell, ...]


def points(study: Study, design: str) -> list[tuple[tuple[str, float], ...]]:
    """The cell points of one design, in grid order (metric-major with a metric axis)."""
    pts = [tuple(p.items()) for p in get_design(design).points(study.axes)]
    if "metric" in study.axes:
        pts = [(("metric", m),) + pt for m in study.axes["metric"] for pt in pts]
    return pts


def cells(study: Study) -> list[Cell]:
    """Every cell of the study, in the order of the results table; each method only for the
    estimands it applies to."""
    mc = study.engine in ("mc", "both")
    reps, seed = (study.reps, study.seed) if mc else (None, None)
    data = get_design(study.design[0]).data
    applies = {(m.name, e): m.method.takes in get_estimand(data, e).takes
               for m in study.methods for e in study_estimands(study.design, study.axes)}
    out = []
    for m in study.methods:
        for delta in study.axes["delta"]:
            for design in study.design:
                for point in points(study, design):
                    cell = Cell(m, design, point, delta, study.side, study.engine, reps, seed)
                    if study.mc_only and (m, design, tuple(cell.design_point.items()), cell.estimand) in study.mc_only:
                        cell = Cell(m, design, point, delta, study.side, "mc", reps, seed)  # no exact engine here
                    if applies[m.name, cell.estimand]:
                        out.append(cell)
    return out


def tasks(todo: list[Cell], n_workers: int) -> list[Task]:
    """Group cells by table key, then split each key's points into chunks of about equal
    estimated cost (``Design.cost``), small enough to balance the workers; costliest first.
    Chunking never changes any cell's numbers."""
    by_key: dict[tuple, dict[tuple, list[Cell]]] = {}
    for cell in todo:
        by_key.setdefault(cell.table_key, {}).setdefault(cell.point, []).append(cell)
    cost = {key: [cells_cost(group[pt]) for pt in group] for key, group in by_key.items()}
    budget = sum(map(sum, cost.values())) / (4 * max(1, n_workers))
    out = []
    for key, group in by_key.items():
        pts, costs = list(group), cost[key]
        parts = max(1, min(len(pts), math.ceil(sum(costs) / budget))) if budget > 0 else 1
        bounds = np.searchsorted(np.cumsum(costs), np.arange(1, parts) * sum(costs) / parts)
        for chunk in np.split(np.arange(len(pts)), np.unique(bounds)):
            if chunk.size:
                out.append((sum(costs[i] for i in chunk),
                            Task(key, tuple(c for i in chunk.tolist() for c in group[pts[i]]))))
    # Costliest first: no worker is left alone with a large task at the end.
    return [task for _, task in sorted(out, key=lambda item: -item[0])]


def study_cost(todo: list[Cell]) -> float:
    """Estimated cost of the cells ``todo`` (the runner keeps small studies in-process)."""
    by_point: dict[tuple, list[Cell]] = {}
    for cell in todo:
        by_point.setdefault((cell.design, cell.point), []).append(cell)
    return sum(cells_cost(group) for group in by_point.values())


def cells_cost(cells: list[Cell]) -> float:
    """Estimated cost of cells at one design point: the design's cost per cell (see Design.cost)."""
    design = get_design(cells[0].design)
    point = cells[0].design_point
    return sum(design.cost(point, c.reps) * (2 if c.engine == "both" and design.exact_engine else 1) for c in cells)
