"""Performance measures of an interval method from the distribution of outcomes.

Exact and Monte Carlo results meet here: ``weights[..., j]`` is the probability of
outcome j (the pmf for the exact engine, the simulated frequency for Monte Carlo), and
``lower[j], upper[j]`` the interval reported for that outcome. For truth t:

    coverage   = Σ_j w_j · 1[lower_j <= t <= upper_j]
    miss_low   = Σ_j w_j · 1[t < lower_j]        miss_high = Σ_j w_j · 1[t > upper_j]
    mean_width = Σ_j w_j · (upper_j - lower_j)   sd_width  = sqrt(Σ_j w_j·width_j² - mean_width²)
    mcse       = sqrt(coverage·(1 - coverage)/reps)  (0 for the exact engine)
    prob_width = Σ_j w_j · 1[width_j <= max_width]     (only when ``max_width`` is given)
    excludes_zero = Σ_j w_j · 1[0 < lower_j or upper_j < 0]    (only for estimands with a null
                 value, the differences of two classifiers: at a true difference of 0 the rate
                 of a false "A is better/worse"; elsewhere the power), with its MCSE
                 excludes_zero_mcse = sqrt(e(1 - e)/reps) (0 for the exact engine)

``width`` defaults to upper - lower; the planner passes the margin of a one-sided bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

@dataclass(frozen=True)
class Measure:
    """A result column of a cell: its name, the closed range [low, high] of its values (a stored
    part outside it is damaged), which rows carry it (``kind``) and, for a measure beyond the
    built-in ones of ``measures``, its ``formula(weights, lower, upper, truth, width)`` (row-wise sums)."""

    name: str
    low: float
    high: float
    kind: str = "every"  # "every" row; "null": rows of estimands with a null value; "row": set by tasks.evaluate
    formula: Callable | None = field(default=None, repr=False, compare=False)


REGISTERED: dict[str, Measure] = {}  # name -> Measure, in registration order
# Views of the registry, updated in place by register_measure (so importers see later registrations):
MEASURES: list[str] = []  # what every result carries
NULL_MEASURES: list[str] = []  # results of estimands with a null value (differences)
RESULT_COLUMNS: list[str] = []  # every column a row carries after its identity
RANGES: dict[str, tuple[float, float]] = {}  # name -> (low, high)


def register_measure(name: str, low: float, high: float, kind: str = "every", formula: Callable | None = None) -> Measure:
    """Register the result column ``name`` (``Measure``); every column list of rows, summaries and checks follows."""
    if name in REGISTERED:
        raise ValueError(f"measure {name!r} is already registered")
    m = REGISTERED[name] = Measure(name, low, high, kind, formula)
    {"every": MEASURES, "null": NULL_MEASURES, "row": []}[kind].append(name)
    RESULT_COLUMNS.append(name)
    RANGES[name] = (low, high)
    return m


def unregister_measure(name: str) -> None:
    """Remove a registered measure (tests)."""
    REGISTERED.pop(name)
    for names in (MEASURES, NULL_MEASURES, RESULT_COLUMNS):
        if name in names:
            names.remove(name)
    RANGES.pop(name)


# Rates lie in [0, 1], an MCSE sqrt(r(1 - r)/reps) in [0, 1/2], widths are non-negative; a truth
# is an estimand's value (rates, AUCs and their differences).
register_measure("truth", -1.0, 1.0, "row")
for _name, _high in (("coverage", 1.0), ("mcse", 0.5), ("miss_low", 1.0), ("miss_high", 1.0),
                     ("mean_width", np.inf), ("sd_width", np.inf)):
    register_measure(_name, 0.0, _high)
register_measure("excludes_zero", 0.0, 1.0, "null")
register_measure("excludes_zero_mcse", 0.0, 0.5, "null")
register_measure("n_valid", 0, np.inf, "row")
register_measure("exact_coverage", 0.0, 1.0, "row")  # the exact engine's, beside a Monte Carlo row
register_measure("exact_mean_width", 0.0, np.inf, "row")
register_measure("seconds", 0.0, np.inf, "row")


def measures(weights, lower, upper, truth, reps: int | None = None, width=None,
             max_width: float | None = None, null: float | None = None) -> dict[str, np.ndarray]:
    """The measures above for each row of ``weights`` (shape (..., J)) against ``truth`` (shape (...))."""
    w = np.asarray(weights, dtype=float)
    t = np.asarray(truth, dtype=float)[..., None]
    # Frequencies k/reps can sum to 1 + 1e-16: clip, so coverage never exceeds 1 (nor MCSE turn NaN).
    low, high = t < lower, t > upper
    miss_low = np.clip(np.sum(w * low, axis=-1), 0.0, 1.0)
    miss_high = np.clip(np.sum(w * high, axis=-1), 0.0, 1.0)
    inside = ~(low | high)  # lower <= t <= upper, with two comparisons instead of four
    undefined = np.isnan(lower) | np.isnan(upper)  # an undefined interval covers nothing
    if np.any(undefined):
        inside &= ~undefined
    coverage = np.clip(np.sum(w * inside, axis=-1), 0.0, 1.0)
    width = np.asarray(upper, dtype=float) - lower if width is None else np.asarray(width, dtype=float)
    # Row-wise sums, not BLAS matmul: a row's result must not depend on which other rows
    # share its array (chunking) or on the BLAS thread count.
    mean_width = np.sum(w * width, axis=-1)
    sd_width = np.sqrt(np.maximum(np.sum(w * (width * width), axis=-1) - mean_width**2, 0.0))
    # clipped: a sum of counts/reps can exceed 1 by a rounding error
    mcse = np.zeros_like(coverage) if reps is None else np.sqrt(np.maximum(coverage * (1 - coverage), 0.0) / reps)
    out = {"coverage": coverage, "mcse": mcse, "miss_low": miss_low, "miss_high": miss_high,
           "mean_width": mean_width, "sd_width": sd_width}
    if null is not None:
        excludes = np.clip(np.sum(w * ((lower > null) | (upper < null)), axis=-1), 0.0, 1.0)  # as coverage
        out["excludes_zero"] = excludes
        out["excludes_zero_mcse"] = (np.zeros_like(excludes) if reps is None
                                     else np.sqrt(excludes * (1 - excludes) / reps))
    for m in REGISTERED.values():
        if m.formula is not None:
            out[m.name] = m.formula(w, lower, upper, t, width)
    if max_width is not None:
        out["prob_width"] = np.sum(w * (width <= max_width), axis=-1)
    return out
