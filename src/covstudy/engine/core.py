"""The one evaluation core: Generate → Analyse → Summarise, for the library, the runner and the planner.

* Generate: the design's outcome distribution at a batch of points (``Design.exact`` or
  ``Design.simulate``), computed once and shared by every method at those points (common
  random numbers).
* Analyse: each method's interval for every outcome, through the estimand
  (``Estimand.bounds``). Where the design places outcomes in tables (``Outcomes.tables``), the
  intervals of a whole table are computed once per (method, delta, side, table) and looked up.
* Summarise: ``measures.measures`` against the estimand's true value, and ``n_valid``.

Methods that need each simulated test set (``Method.per_test_set``: they draw random numbers,
or read counts no design enumerates, such as per-cluster counts) get one interval per
simulated test set, their draws from a stream keyed by the point and the method, and have no
exact engine.
"""

from __future__ import annotations

import functools
import itertools
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from .. import validate
from ..designs import Design, Outcomes
from ..estimands import Estimand
from .measures import measures
from ..methods import Method
from ..seeds import stream

MC_BYTES_PER_NUMBER = 32  # measured: a held number's int64 and the copies made sorting, de-duplicating, scoring
_BATCH_ELEMENTS = 4_000_000  # (points × outcomes) generated at once: bounds memory
_CACHE_CELLS = 20_000_000  # the interval-table cache keeps at most this many cells (~320 MB)
# cache key -> (None, lower, upper) for a whole table, or (cells, lower, upper) for the sorted
# cells of a table computed so far (Monte Carlo).
_TABLES: OrderedDict[tuple, tuple] = OrderedDict()
_CACHED = 0  # cells held in _TABLES
_EXACT_CELLS = 1_000_000  # exact outcome distributions kept for reuse (Evaluator.exact), in weights
_EXACT: OrderedDict[tuple, Outcomes] = OrderedDict()
# Simulated test sets kept for reuse (Evaluator.simulated), in bytes of columns and weights. A batch
# above a quarter of it is not kept: it would push out most others, and a sweep of such batches
# (n = 10⁶ over 99 p: 16 MB each) never hits, it only holds memory. The evaluate audit searches
# ~30 points a method with every method at the same start points: a 10-class matrix at 2,000 test
# sets is 1.6 MB, so the start points of one search must fit, or every method simulates them again.
_SIMULATED_BYTES = 128_000_000
_SIMULATED: OrderedDict[tuple, Outcomes] = OrderedDict()
_SIMULATED_HELD = 0  # bytes held in _SIMULATED


@dataclass(frozen=True)
class Analysis:
    """One method entry, estimand, delta, side and engine: what to compute at every point."""

    method: Method
    params: tuple[tuple[str, object], ...]  # validated, complete
    estimand: Estimand
    delta: float
    side: str
    reps: int | None  # None: exact
    seed: int | None
    max_width: float | None = None  # also measure P(width <= max_width) (``prob_width``; the planner)
    null: float | None = None  # measure P(interval excludes null) there, not at the estimand's null (the planner)

    @functools.cached_property
    def merge(self):
        return self.estimand.merge(self.method) if self.reps is None else None


def infeasible(design: Design, points: list[dict], analysis: Analysis) -> tuple[str | None, dict | None]:
    """Why ``analysis`` cannot run at one of ``points`` ("<key>: ...") and that point, or (None,
    None); cheap, before any work: no exact engine for methods drawing random numbers, the
    design's limits, an undefined truth."""
    exact = analysis.reps is None
    if exact and analysis.method.per_test_set:
        return (f"reps: {analysis.method.name} {analysis.method.input.why_mc_only}, so it has Monte Carlo "
                f"coverage only; give reps (e.g. reps=2000)"), points[0]
    check, merge, truth, inputs = design.check, analysis.merge, analysis.estimand.truth, design.truth_inputs
    for point in points:
        problem = check(point, exact, merge) or (None if exact else mc_memory(design, point, analysis))
        if problem is None:
            try:
                truth(inputs(point))
            except ValueError as err:
                problem = str(err)
        if problem:
            return problem, point
    return None, None


def mc_bytes(design: Design, point: dict, method: Method, params: dict, reps: int) -> float:
    """About the peak memory of Monte Carlo at ``point``: the simulated test sets held at once
    (every one where the design or the method keeps them, else at most its distinct outcomes)
    and one test set's resamples (a method's ``draws``), MC_BYTES_PER_NUMBER a number."""
    kept = design.keeps_test_sets or method.per_test_set
    held = reps if kept else min(reps, design.outcome_count(point))
    return MC_BYTES_PER_NUMBER * design.test_set_numbers(point) * (held + params.get("draws", 0))


def mc_memory(design: Design, point: dict, analysis: Analysis) -> str | None:
    """Why Monte Carlo at ``point`` would not fit in validate.MC_BYTES_MAX ("reps: ..."), or None."""
    need = mc_bytes(design, point, analysis.method, dict(analysis.params), analysis.reps)
    if need <= validate.MC_BYTES_MAX:
        return None
    draws = dict(analysis.params).get("draws")
    lower = ", ".join(["reps", *(["draws"] if draws else []), *([design.sized_by] if design.sized_by else [])])
    at = ", ".join(f"{a} = {point[a]:,}" for a in design.sized_by.split(", ") if a)
    return (f"reps: Monte Carlo{f' at {at}' if at else ''} needs ~{need / 1e9:.1f} GB (reps = {analysis.reps:,}"
            f"{f', draws = {draws:,}' if draws else ''}, {design.test_set_numbers(point):,} numbers a test set), "
            f"more than the {validate.MC_BYTES_MAX / 1e9:g} GB limit; lower {lower}")


def clear_cache() -> None:
    """Forget every cached interval table and outcome distribution (benchmarks measure cold ones)."""
    global _CACHED, _SIMULATED_HELD
    _TABLES.clear()
    _EXACT.clear()
    _SIMULATED.clear()
    _CACHED = _SIMULATED_HELD = 0


def _nbytes(outcomes: Outcomes) -> int:
    """Bytes of ``outcomes``' arrays (columns and weights)."""
    return outcomes.weight.nbytes + sum(getattr(v, "nbytes", 0) for v in outcomes.columns.values())


class Evaluator:
    """Scores analyses at points of one design, generating each batch's outcomes once for all of them."""

    def __init__(self, design: Design):
        self.design = design

    def batches(self, points: list[dict]) -> list[list[int]]:
        """Indices of ``points`` grouped by the design's batch key, each group small enough to generate at once."""
        groups: dict = {}
        key = self.design.batch_key
        for i, pt in enumerate(points):
            groups.setdefault(key(pt), []).append(i)
        out = []
        for idx in groups.values():
            size = max(1, _BATCH_ELEMENTS // self.design.outcome_count(points[idx[0]]))
            out += [idx[s:s + size] for s in range(0, len(idx), size)]
        return out

    def score(self, points: list[dict], jobs: list[tuple[Analysis, list[int]]]) -> list[dict[str, np.ndarray]]:
        """For each job (an analysis and the indices of the points it runs at): its measures,
        ``truth`` and ``n_valid`` as arrays over those points. Batch by batch, so that each
        batch's outcomes are generated once per engine and kept no longer than needed."""
        where = [{i: k for k, i in enumerate(idx)} for _, idx in jobs]
        everywhere = [list(idx) == list(range(len(points))) for _, idx in jobs]  # the public API's one job
        out: list[dict[str, np.ndarray]] = [{} for _ in jobs]
        for batch in self.batches(points):
            generated: dict[tuple, Outcomes] = {}
            for j, (a, idx) in enumerate(jobs):
                rows = list(range(len(batch))) if everywhere[j] else [r for r, i in enumerate(batch) if i in where[j]]
                if not rows:
                    continue
                key = (a.reps, a.seed, a.merge)
                if key not in generated:
                    pts = [points[i] for i in batch]
                    generated[key] = (self.exact(pts, a.merge) if a.reps is None
                                      else self.simulated(pts, a.reps, a.seed))
                outcomes = generated[key]
                if len(rows) < len(batch):
                    outcomes = Outcomes(outcomes.columns, outcomes.weight[rows], outcomes.tables)
                result = self._score_batch([points[batch[r]] for r in rows], outcomes, a)
                at = batch if everywhere[j] else [where[j][batch[r]] for r in rows]
                for name, values in result.items():
                    if name not in out[j]:
                        out[j][name] = np.empty(len(idx), dtype=values.dtype)
                    out[j][name][at] = values
        return out

    def exact(self, points: list[dict], merge) -> Outcomes:
        """``Design.exact``, remembered for the last few batches: successive public ``coverage()``
        calls of several methods at the same points share one outcome distribution."""
        # A flat key hashes fast (the points of a batch have the same axes).
        key = (self.design.name, merge, tuple(points[0]), tuple(itertools.chain.from_iterable(pt.values() for pt in points)))
        outcomes = _EXACT.pop(key, None)
        if outcomes is not None:
            _EXACT[key] = outcomes
            return outcomes
        outcomes = self.design.exact(points, merge)
        outcomes.weight.setflags(write=False)
        _EXACT[key] = outcomes
        while sum(o.weight.size for o in _EXACT.values()) > _EXACT_CELLS and len(_EXACT) > 1:
            _EXACT.popitem(last=False)
        return outcomes

    def simulated(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        """``Design.simulate``, remembered for the last few batches: successive public
        ``coverage()`` calls of several methods at the same points and seed share one set of
        simulated test sets (the same numbers as simulating again: the streams are keyed by the
        point and the seed), as ``exact`` does for exact distributions."""
        key = (self.design.name, reps, seed, tuple(points[0]),
               tuple(itertools.chain.from_iterable(pt.values() for pt in points)))
        global _SIMULATED_HELD
        outcomes = _SIMULATED.pop(key, None)
        if outcomes is None:
            outcomes = self.design.simulate(points, reps, seed)
            for v in (*outcomes.columns.values(), outcomes.weight):
                if isinstance(v, np.ndarray):
                    v.setflags(write=False)
        else:
            _SIMULATED_HELD -= _nbytes(outcomes)
        if _nbytes(outcomes) <= _SIMULATED_BYTES // 4:
            _SIMULATED[key] = outcomes
            _SIMULATED_HELD += _nbytes(outcomes)
        while _SIMULATED_HELD > _SIMULATED_BYTES:  # a running total: summing the entries per call is quadratic
            _SIMULATED_HELD -= _nbytes(_SIMULATED.popitem(last=False)[1])
        return outcomes

    def _score_batch(self, batch: list[dict], outcomes: Outcomes, a: Analysis) -> dict[str, np.ndarray]:
        params = dict(a.params)
        rng = None
        if a.method.per_test_set:
            [pt] = batch
            outcomes = outcomes.per_test_set()
            rng = stream(a.seed, **self.design.stream_identity(pt), purpose="f1 draws", method=a.method.name,
                         **params)
        lower, upper = self.intervals(outcomes, a, rng, params)
        truth_of, inputs = a.estimand.truth, self.design.truth_inputs
        truth = np.array([truth_of(inputs(pt)) for pt in batch])
        weight = outcomes.weight if a.reps is None else outcomes.weight / a.reps
        result = measures(weight, lower, upper, truth, a.reps, max_width=a.max_width,
                          null=a.estimand.null if a.null is None else a.null)
        result["truth"] = truth
        if a.reps is None:
            result["n_valid"] = np.full(len(batch), None, dtype=object)
        else:
            valid = a.estimand.valid(outcomes.columns)
            result["n_valid"] = np.array([int(np.sum(w[valid])) for w in outcomes.weight], dtype=object)
        return result

    def intervals(self, outcomes: Outcomes, a: Analysis, rng, params: dict) -> tuple[np.ndarray, np.ndarray]:
        """Every outcome's interval: from the shared tables where the outcomes sit in them."""
        if not outcomes.tables or rng is not None:
            return a.estimand.bounds(a.method, outcomes.columns, a.delta, a.side, rng=rng, **params)
        if len(outcomes.tables) == 1 and outcomes.tables[0].index is None:
            return self.table(outcomes.tables[0].key, a, params)
        size = outcomes.weight.shape[-1]
        lower, upper = np.empty(size), np.empty(size)
        for seg in outcomes.tables:
            if seg.index is None:
                lower[seg.rows], upper[seg.rows] = self.table(seg.key, a, params)
            else:
                columns = {c: (v[seg.rows] if np.ndim(v) else v) for c, v in outcomes.columns.items()}
                lower[seg.rows], upper[seg.rows] = self.cells(seg.key, seg.index, columns, a, params)
        return lower, upper

    def table(self, key: tuple, a: Analysis, params: dict) -> tuple[np.ndarray, np.ndarray]:
        """Intervals of every outcome of table ``key`` (read-only; cached, least recently used dropped)."""
        cache_key = self._cache_key(key, a)
        cached = _TABLES.get(cache_key)
        if cached is not None and cached[0] is None:
            _TABLES.move_to_end(cache_key)
            return cached[1], cached[2]
        columns = self.design.table_columns(key)
        lower, upper = self._bounds(columns, a, params)
        self._store(cache_key, (None, lower, upper))
        return lower, upper

    def cells(self, key: tuple, index: np.ndarray, columns: dict, a: Analysis, params: dict
              ) -> tuple[np.ndarray, np.ndarray]:
        """Intervals of the distinct cells ``index`` of table ``key``, whose outcome columns are
        ``columns`` (Monte Carlo draws few of a table's cells): computes only the cells not
        yet cached, and caches them under the table's key.

        Every method is elementwise, so a cell's interval is the same bits whether computed
        alone, with some cells or with the whole table (tests/test_evaluate_cache.py)."""
        cache_key = self._cache_key(key, a)
        cached = _TABLES.get(cache_key)
        if cached is not None and cached[0] is None:  # the whole table
            _TABLES.move_to_end(cache_key)
            return cached[1][index], cached[2][index]
        have, have_lower, have_upper = cached if cached is not None else (np.empty(0, np.int64), np.empty(0), np.empty(0))
        # ``have`` is sorted and ``index`` distinct: binary search finds the cached cells, and the
        # new ones are inserted in place (no hashing or sorting of the whole cache per call).
        at = np.searchsorted(have, index)
        new = at >= have.size
        new[~new] = have[at[~new]] != index[~new]
        if new.any():
            lower, upper = self._bounds({c: (v[new] if np.ndim(v) else v) for c, v in columns.items()}, a, params)
            fresh = index[new]
            order = np.argsort(fresh, kind="stable")
            where = at[new][order]
            have = np.insert(have, where, fresh[order])
            have_lower = np.insert(have_lower, where, lower[order])
            have_upper = np.insert(have_upper, where, upper[order])
            for arr in (have_lower, have_upper):
                arr.setflags(write=False)
            self._store(cache_key, (have, have_lower, have_upper))
        else:
            _TABLES.move_to_end(cache_key)
        at = np.searchsorted(have, index)
        return have_lower[at], have_upper[at]

    def _cache_key(self, key: tuple, a: Analysis) -> tuple:
        return (self.design.data, key, a.estimand.name, a.method.name, a.params, a.delta, a.side)

    @staticmethod
    def _bounds(columns: dict, a: Analysis, params: dict) -> tuple[np.ndarray, np.ndarray]:
        shape = np.shape(next(v for v in columns.values() if np.ndim(v)))
        lower, upper = (np.array(np.broadcast_to(v, shape), dtype=float)
                        for v in a.estimand.bounds(a.method, columns, a.delta, a.side, **params))
        lower.setflags(write=False)
        upper.setflags(write=False)
        return lower, upper

    @staticmethod
    def _store(cache_key: tuple, entry: tuple) -> None:
        global _CACHED
        old = _TABLES.pop(cache_key, None)
        _CACHED += entry[1].size - (0 if old is None else old[1].size)
        _TABLES[cache_key] = entry
        while _CACHED > _CACHE_CELLS and len(_TABLES) > 1:
            _CACHED -= _TABLES.popitem(last=False)[1][1].size
