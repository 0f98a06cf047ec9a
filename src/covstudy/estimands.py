"""Estimands: what an interval is for, its true value at a design point, and which methods apply.

An estimand is defined on one kind of outcome (a design's ``data``) and declared beside it,
registered with ``@register_estimand``: ``count`` in designs/binomial.py, ``confusion`` in
designs/confusion.py, ``multiclass`` in designs/multiclass.py, ``scores`` in
designs/binormal.py, ``unpaired`` and ``paired`` in their design modules, ``clustered`` in
designs/clustered.py. ``Estimand.bounds`` turns a method and outcome columns into intervals;
``valid`` marks the outcomes that carry information (counted as ``n_valid`` by Monte Carlo).

Place: below the designs (which import this module to declare their estimands) and above
methods/. This module never imports the designs: the registry is complete once
``covstudy.designs`` is imported, which ``import covstudy`` does before anything can look an
estimand up (every module is reached through the package), as do the doors above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, ClassVar

import numpy as np

from .methods import Method, get


@dataclass(frozen=True)
class Estimand:
    """What is estimated on outcomes of kind ``data``, and the kinds of method (``takes``) that apply."""

    name: str
    data: str
    takes: tuple[str, ...]
    null: float | None = None  # the value of "no difference" (measures.excludes_zero), if any

    def truth(self, inputs: dict) -> float:
        """The true value from a design's ``truth_inputs``."""
        raise NotImplementedError

    def merge(self, method: Method):
        """The cell groups (k cells, l cells) whose sums are all ``method`` needs, or None."""

    def valid(self, columns: dict) -> np.ndarray:
        """Outcomes that carry information about the estimand (all, by default)."""
        return np.ones(np.shape(next(iter(columns.values()))), dtype=bool)

    def bounds(self, method: Method, columns: dict, delta, side: str, rng=None, **params):
        """``method``'s intervals for every outcome of ``columns``; arguments already validated."""
        raise NotImplementedError

    def method(self, name) -> Method:
        """The registered method ``name`` if it applies; otherwise ValueError naming those that do,
        and the other metrics of these outcomes it applies to (``wilson`` on the stratified design,
        whose default metric is the balanced accuracy: recall, specificity, ...)."""
        try:
            return get(name, self.takes)
        except ValueError as err:
            there = [e.name for e in estimands_for(self.data) if e is not self and _applies(name, e.takes)]
            if not there or _applies(name, self.takes):  # or ambiguous here: the error says so
                raise
            listed = str(err)[str(err).find("; "):] if "; " in str(err) else ""
            raise ValueError(f"method: {name!r} is not a method for {self.name}; it applies to the metrics "
                             f"{', '.join(there)}: pass one with --metric (metric= in Python){listed}") from None


class MetricDifference(Estimand):
    """metric(first) - metric(second), registered as "<metric>_difference", on the confusion
    cells of two classifiers (paired_confusion: one test set; unpaired_confusion: two). A
    subclass names its cells (``COUNTS``), the design axes the truth depends on (``AXES``) and
    ``difference(metric, x)``, the difference on cell counts or probabilities x (last axis:
    COUNTS), nan where a denominator is 0; it adds ``bounds``."""

    COUNTS: ClassVar[tuple[str, ...]] = ()
    AXES: ClassVar[str] = ""
    difference: ClassVar[Callable]

    @property
    def metric(self) -> str:
        return self.name.removesuffix("_difference")

    def truth(self, inputs: dict) -> float:
        value = float(self.difference(self.metric, inputs["cells"]))
        if math.isnan(value):
            raise ValueError(f"{self.AXES}: {self.metric} is undefined here (its denominator has probability 0)")
        return value

    def valid(self, columns):
        x = np.stack(np.broadcast_arrays(*(np.asarray(columns[c], dtype=float) for c in self.COUNTS)), axis=-1)
        return ~np.isnan(self.difference(self.metric, x))


def _applies(name, takes: tuple[str, ...]) -> bool:
    """Whether a method answers to ``name`` among one of the kinds ``takes``."""
    for kind in takes:
        try:
            get(name, kind)
            return True
        except ValueError:
            continue
    return False


ESTIMANDS: dict[tuple[str, str], Estimand] = {}  # (data, name) -> estimand, in registration order


def register_estimand(data: str, *names: str, takes: tuple[str, ...], null: float | None = None):
    """Class decorator: register an instance of the ``Estimand`` subclass for each of ``names``
    on outcomes of kind ``data``, to which methods taking ``takes`` apply."""
    def decorate(cls: type[Estimand]) -> type[Estimand]:
        for name in names:
            if (data, name) in ESTIMANDS:
                raise ValueError(f"estimand {name!r} on {data} outcomes is already registered")
            ESTIMANDS[data, name] = cls(name, data, tuple(takes), null)
        return cls

    return decorate


def estimands_for(data: str) -> list[Estimand]:
    """The estimands defined on outcomes of kind ``data``, in registration order."""
    return [e for (d, _), e in ESTIMANDS.items() if d == data]


def get_estimand(data: str, name: str) -> Estimand:
    """The estimand ``name`` on outcomes of kind ``data``; ValueError listing the valid names."""
    if (data, name) not in ESTIMANDS:
        valid = ", ".join(e.name for e in estimands_for(data))
        raise ValueError(f"metric must be one of {valid}, got {name!r}")
    return ESTIMANDS[data, name]

