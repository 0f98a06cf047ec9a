"""Expand a study into cells, and group cells into tasks that share work.

A cell is one row of the results table: (method entry, n, p, delta) under the study's
side and engine. Its ``cell_id`` hashes everything that determines its numbers, so a
rerun recognises finished cells whatever else changed in the study.

A task is (n, a chunk of p values) with every cell of those grid points: the interval
table of each (method, n, delta) is computed once per task, and each grid point's
outcome distribution (pmf, simulated histogram) once for all its methods, which is also
what makes the methods' Monte Carlo errors common random numbers.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

from .seeds import canonical
from .study import MethodSpec, Study

_MAX_TASK_ELEMENTS = 4_000_000  # (p values × outcomes) per task: bounds a task's memory


@dataclass(frozen=True)
class Cell:
    method: MethodSpec
    n: int
    p: float
    delta: float
    side: str
    engine: str  # "exact", "mc", or "both" (an mc row that also carries the exact values)
    reps: int | None
    seed: int | None

    @property
    def cell_id(self) -> str:
        ident = {"method": self.method.name, "label": self.method.label, "params": dict(self.method.params),
                 "n": self.n, "p": self.p, "delta": self.delta, "side": self.side,
                 "engine": self.engine, "reps": self.reps, "seed": self.seed}
        text = json.dumps({k: canonical(v) for k, v in ident.items()}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Task:
    n: int
    cells: tuple[Cell, ...]


def cells(study: Study) -> list[Cell]:
    """Every cell of the study, in the order of the results table."""
    mc = study.engine in ("mc", "both")
    reps, seed = (study.reps, study.seed) if mc else (None, None)
    return [Cell(m, n, p, delta, study.side, study.engine, reps, seed)
            for m in study.methods for delta in study.delta for n in study.n for p in study.p]


def tasks(todo: list[Cell], n_workers: int) -> list[Task]:
    """Group cells by n, then split each n's p values into chunks small enough to balance
    the workers and to bound memory; chunking never changes any cell's numbers."""
    by_n: dict[int, list[Cell]] = {}
    for cell in todo:
        by_n.setdefault(cell.n, []).append(cell)
    points = sum(len({c.p for c in group}) for group in by_n.values())
    balance = max(1, math.ceil(points / (4 * max(1, n_workers))))
    out = []
    for n, group in sorted(by_n.items()):
        ps = sorted({c.p for c in group})
        chunk = max(1, min(balance, _MAX_TASK_ELEMENTS // (n + 1)))
        for i in range(0, len(ps), chunk):
            keep = set(ps[i:i + chunk])
            out.append(Task(n, tuple(c for c in group if c.p in keep)))
    return out
