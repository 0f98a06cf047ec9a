"""What every design (data-generating mechanism) provides, and the outcome tables they hand on.

A design turns a *point* (a dict of its axes, e.g. ``{"n": 50, "p": 0.2}``) into the
distribution of a test set's outcome:

* ``exact(points)``: every outcome with its probability (where enumeration is feasible);
* ``simulate(points, reps, seed)``: the distinct outcomes of ``reps`` simulated test sets
  and how often each occurred, from the point's own random stream (``stream_identity``).

Both return ``Outcomes``: one column per count the outcome consists of (``k``, ``n`` for
the binomial design; ``tp``, ``fn``, ``fp``, ``tn`` for the confusion-matrix designs) and a
weight row per point. Points that share an outcome space can be generated together (the
binomial design does every p of one n at once); by default each point is its own batch.

``check(point, exact, merge)`` refuses a point that cannot be computed (too many
outcomes, keys that would overflow) with one line naming the axis and the limit; the study
and the public API call it before any work. ``table_key(point)`` names the outcome space
whose interval tables the points share (the runner groups tasks by it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from .. import validate

_UNKNOWN_OUTCOMES = 10_000  # Design.cost of an exact point when the design does not count its outcomes


@dataclass(frozen=True)
class Axis:
    """A grid axis: its name, whether it takes whole numbers, and its valid range; or, with
    ``choices``, a categorical axis whose values are those names (e.g. a learner)."""

    name: str
    integer: bool
    low: float
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()

    def values(self, value) -> np.ndarray:
        """``value`` (a number or 1-d array) checked against the axis: one-line ValueError otherwise."""
        if self.choices:
            names = np.asarray(value, dtype=object)
            for v in names.ravel():
                if not isinstance(v, str) or v not in self.choices:
                    raise ValueError(f"{self.name} must be one of {', '.join(self.choices)}, got {v!r}")
            return names
        if self.integer:
            minimum = int(self.low) + (1 if self.low_open else 0)
            return validate.counts(self.name, value, minimum=minimum)
        return validate.interval(self.name, value, self.low, self.high, self.low_open, self.high_open)


@dataclass(frozen=True)
class Segment:
    """Outcomes ``rows`` of an ``Outcomes`` are cells ``index`` (None: all, in order) of the
    interval table ``key`` (``Design.table_columns(key)``)."""

    key: tuple
    rows: slice | np.ndarray
    index: np.ndarray | None = None


@dataclass(frozen=True)
class Outcomes:
    """A distribution over distinct outcomes.

    ``columns``: name -> array, one entry per distinct outcome; ``weight``: shape
    (points, outcomes), probabilities (exact) or counts out of ``reps`` (Monte Carlo);
    ``tables``: where the outcomes sit in shared interval tables (empty: evaluate methods on
    the outcomes themselves).
    """

    columns: dict
    weight: np.ndarray
    tables: tuple[Segment, ...] = field(default=())

    def per_test_set(self) -> "Outcomes":
        """One outcome per simulated test set (weight 1 each): for methods that need each test set.

        Columns repeat along their first axis (a column may hold a row of counts per outcome)."""
        count = self.weight[0]
        if self.weight.shape[0] == 1 and np.all(count == 1):
            return self  # already one outcome per test set (e.g. the binormal design's scores)
        columns = {c: np.repeat(v, count, axis=0) for c, v in self.columns.items()}
        return Outcomes(columns, np.ones((1, int(count.sum())), dtype=np.int64))


class Design:
    """Base class of the designs; subclasses set the attributes and implement the methods."""

    name: str
    data: str  # what an outcome is: "count" (k of n), "confusion" (tp, fn, fp, tn) or "scores"
    exact_engine: bool = True  # False: Monte Carlo only (``check`` refuses exact, ``exact`` is not implemented)
    axes: tuple[Axis, ...]  # every axis a point may have, in column order
    parametrisations: tuple[tuple[str, ...], ...]  # the axis sets a study may give (the first by default)
    optional: ClassVar[dict] = {}  # axes that may be added to any parametrisation -> their value when left out (derive)
    estimand: str  # the default estimand
    summary: str  # one line for --help and the docs
    example: dict  # a small point (the contract tests and the docs use it)

    @property
    def int_columns(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.axes if a.integer)

    def axis(self, name: str) -> Axis:
        return next(a for a in self.axes if a.name == name)

    def points(self, grid: dict) -> list[dict]:
        """The design points of a grid (axis -> sorted values), in table order."""
        raise NotImplementedError

    def derive(self, point: dict) -> dict:
        """``point`` completed with the axes that follow from the given ones, in column order."""
        return {a.name: point[a.name] for a in self.axes if a.name in point}

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        """Why ``point`` cannot be computed by this engine ("<axis>: ..."), or None."""
        return None

    def table_key(self, point: dict) -> tuple:
        """The outcome space whose interval tables ``point`` shares with other points."""
        raise NotImplementedError

    def batch_key(self, point: dict):
        """Points with equal keys are generated together (one outcome space, one weight row each)."""
        return tuple(point.items())

    def outcome_count(self, point: dict) -> int:
        """About how many outcomes a batched point has (bounds a batch's memory)."""
        return 1

    def cost(self, point: dict, reps: int | None) -> float:
        """About how much work one method is at ``point``: the outcomes whose intervals are
        computed (the runner balances tasks by it). Monte Carlo: the expected number of
        distinct outcomes among ``reps``, support·(1 - exp(-reps/support)), with ``support``
        the outcomes of non-negligible probability (``likely_outcomes``)."""
        if type(self).outcome_count is Design.outcome_count:  # outcome space unknown: assume it large
            return float(reps if reps is not None else _UNKNOWN_OUTCOMES)
        if reps is None:
            return float(self.outcome_count(point))
        support = max(1.0, min(float(self.outcome_count(point)), self.likely_outcomes(point)))
        return support * -np.expm1(-reps / support)

    def likely_outcomes(self, point: dict) -> float:
        """About how many outcomes carry most of the probability (all of them, by default)."""
        return float(self.outcome_count(point))

    keeps_test_sets: bool = False  # Monte Carlo holds every simulated test set (else its distinct outcomes, in blocks)
    sized_by: str = ""  # the axes that set test_set_numbers ("": a fixed count)

    def test_set_numbers(self, point: dict) -> int:
        """How many numbers one simulated test set is held as (e.g. the four cells of a confusion matrix)."""
        return 4

    def stream_identity(self, point: dict) -> dict:
        """What keys the point's random stream (seeds.stream); never includes loop order."""
        raise NotImplementedError

    def truth_inputs(self, point: dict) -> dict:
        """The per-example probabilities that the estimands' true values are functions of."""
        raise NotImplementedError

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        """Every outcome and its probability, one weight row per point (one batch)."""
        raise NotImplementedError

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        """Distinct outcomes of ``reps`` simulated test sets and their counts, one row per point."""
        raise NotImplementedError

    def table_columns(self, key: tuple) -> dict:
        """The outcome columns of every cell of interval table ``key``, in table order."""
        raise NotImplementedError

    # The planner (plan.py, sizing.py): which axis is the test set's size, and its expected outcome.
    size_axis: str = "n"  # the axis the planner solves for (the others stay as given)
    plans_exact: bool = True  # False: the planner searches by Monte Carlo even where the design enumerates
    plan_axes: ClassVar[dict] = {}  # planning-only axes -> (default, description), read by ``sized``

    def sized(self, axes: dict, size: int) -> dict:
        """The axes of the point of size ``size`` (the planner's other axes as given)."""
        return {**axes, self.size_axis: size}

    def expected(self, axes: dict, size: float) -> dict | None:
        """The outcome columns at the *expected* counts of a test set of (real) size ``size``, for
        the plug-in planner (presize-style); None where the design has no such outcome."""
        return None
