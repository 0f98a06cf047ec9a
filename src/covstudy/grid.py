"""Expand a study into cells, and group cells into tasks that share work.

A cell is one row of the results table: a method entry at one design point and delta,
under the study's side and engine. Its ``cell_id`` hashes everything that determines its
numbers, so a rerun recognises finished cells whatever else changed in the study.

A design point is the data-generating setting, e.g. (n, p) for the binomial design or
(n, prevalence, tpr, tnr) for the iid balanced-accuracy design; its random stream is keyed
by it (seeds.py), so every method at a point sees the same simulated test sets.

A task is a chunk of design points of one "size" (n for binomial and iid, the class sizes
for stratified) with every cell at those points: interval tables are computed once per
(method, size, delta) in a task, and outcome distributions once per point.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass

from .seeds import canonical
from .study import MethodSpec, Study, method_applies

_MAX_TASK_ELEMENTS = 4_000_000  # (points × outcomes) per binomial task: bounds a task's memory


@dataclass(frozen=True)
class Cell:
    method: MethodSpec
    design: str  # "binomial", "stratified" or "iid"
    point: tuple[tuple[str, float], ...]  # the design point's axes and values, e.g. (("n", 50), ("p", 0.2))
    delta: float
    side: str
    engine: str  # "exact", "mc", or "both" (an mc row that also carries the exact values)
    reps: int | None
    seed: int | None

    def __getitem__(self, axis: str):
        return dict(self.point)[axis]

    @property
    def size(self) -> tuple:
        """What the interval tables depend on: n, or the class sizes of a stratified point."""
        if self.design == "stratified":
            return (self.design, self["n_pos"], self["n_neg"])
        return (self.design, self["n"])

    @property
    def cell_id(self) -> str:
        ident = {"method": self.method.name, "label": self.method.label, "params": dict(self.method.params),
                 "design": self.design, **dict(self.point), "delta": self.delta, "side": self.side,
                 "engine": self.engine, "reps": self.reps, "seed": self.seed}
        text = json.dumps({k: canonical(v) for k, v in ident.items()}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Task:
    size: tuple
    cells: tuple[Cell, ...]


def points(design: str, axes: dict) -> list[tuple[tuple[str, float], ...]]:
    """The design points of one design, in grid order."""
    if design == "binomial":
        return [(("n", n), ("p", p)) for n in axes["n"] for p in axes["p"]]
    rates = [(("tpr", t1), ("tnr", t0)) for t1 in axes["tpr"] for t0 in axes["tnr"]]
    if "n_pos" in axes:
        sizes = [(("n_pos", a), ("n_neg", b)) for a in axes["n_pos"] for b in axes["n_neg"]]
    elif design == "stratified":  # class sizes from (n, prevalence), both classes non-empty
        sizes = [(("n", n), ("prevalence", q), ("n_pos", a), ("n_neg", n - a))
                 for n in axes["n"] if n >= 2 for q in axes["prevalence"]
                 for a in [min(n - 1, max(1, round(n * q)))]]
    else:
        sizes = [(("n", n), ("prevalence", q)) for n in axes["n"] for q in axes["prevalence"]]
    pts = [s + r for s, r in itertools.product(sizes, rates)]
    if "metric" in axes:  # the metric is part of a cell's identity, not of its random stream
        pts = [(("metric", m),) + pt for m in axes["metric"] for pt in pts]
    return pts


def cells(study: Study) -> list[Cell]:
    """Every cell of the study, in the order of the results table."""
    mc = study.engine in ("mc", "both")
    reps, seed = (study.reps, study.seed) if mc else (None, None)
    return [Cell(m, design, point, delta, study.side, study.engine, reps, seed)
            for m in study.methods for delta in study.axes["delta"] for design in study.design
            for point in points(design, study.axes)
            if "metric" not in study.axes or method_applies(dict(point)["metric"], m.name)]


def tasks(todo: list[Cell], n_workers: int) -> list[Task]:
    """Group cells by size, then split each size's points into chunks small enough to balance
    the workers and to bound memory; chunking never changes any cell's numbers."""
    by_size: dict[tuple, dict[tuple, list[Cell]]] = {}
    for cell in todo:
        by_size.setdefault(cell.size, {}).setdefault(cell.point, []).append(cell)
    n_points = sum(len(group) for group in by_size.values())
    balance = max(1, math.ceil(n_points / (4 * max(1, n_workers))))
    out = []
    # Largest sizes first: the costliest tasks start early, so no worker is left alone at the end.
    for size, group in sorted(by_size.items(), key=lambda item: (item[0][0], -sum(item[0][1:]))):
        chunk = balance
        if size[0] == "binomial":
            chunk = max(1, min(balance, _MAX_TASK_ELEMENTS // (size[1] + 1)))
        pts = list(group)
        for i in range(0, len(pts), chunk):
            out.append(Task(size, tuple(c for pt in pts[i:i + chunk] for c in group[pt])))
    return out
