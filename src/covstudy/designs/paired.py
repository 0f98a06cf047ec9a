"""The paired design: two classifiers scored on the same test set of n examples.

Each example falls in one of four cells, (both correct, only the first, only the second,
neither), with probabilities (p_both, p_only_first, p_only_second, p_neither), so the table
(both, only_first, only_second, neither) ~ Multinomial(n; ...). The estimand is
acc_first - acc_second = p_only_first - p_only_second.

A point is given by its cell probabilities or by the two accuracies and the correlation ρ of
the two correctness indicators:

    p_both = a1·a2 + ρ·sqrt(a1(1 - a1)·a2(1 - a2)),  p_only_first = a1 - p_both,
    p_only_second = a2 - p_both,  p_neither = 1 - a1 - a2 + p_both,

which are probabilities only for ρ in a range that depends on (a1, a2) (p_both between
max(0, a1 + a2 - 1) and min(a1, a2)); ``check`` refuses the others with one line.

Exact coverage enumerates all (n + 1)(n + 2)(n + 3)/6 tables (n <= FULL_EXACT_LIMIT) or, for a
method that reads only the discordant pairs (``merge``), the (n + 1)(n + 2)/2 trinomial
outcomes of (only_first, only_second) (n <= DISCORDANT_EXACT_LIMIT), written as tables with
both = n - only_first - only_second and neither = 0 (such methods read only the sum). Beyond
those sizes (discordant: beyond TRIM_FROM outcomes, n >= 244), only the support (support.nested: the tables carrying all but 1e-15 of the
probability, at most support.RECTANGLE_LIMIT of them), written as m = only_first + only_second
~ Binomial(n, p_only_first + p_only_second), only_first | m ~ Binomial(m, ·) and
both | m ~ Binomial(n - m, ·). Every point of one n shares the interval tables. Monte Carlo
draws the tables from the stream keyed by (n, cell probabilities) and keeps the distinct
outcomes with their counts; when reps is at least the number of tables (n <= 47 at reps =
20,000), it draws the counts of all tables as one multinomial instead.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import special

from ..seeds import stream
from ..estimands import Estimand, register_estimand
from ..methods.paired import NEEDS_CONCORDANT
from .base import Axis, Design, Outcomes, Segment
from .iid import ratio_pmf
from .registry import register
from .sampling import BLOCK
from .sampling import merge as merge_counts
from .support import BOUND, RECTANGLE_LIMIT, nested, nested_size

FULL_EXACT_LIMIT = 250  # up to here every table is enumerated, (n + 1)(n + 2)(n + 3)/6 ≈ 2.7 million; beyond, the support
DISCORDANT_EXACT_LIMIT = 2000  # likewise the (n + 1)(n + 2)/2 ≈ 2 million (only_first, only_second) outcomes
HISTOGRAM_LIMIT = 1_000_000  # Monte Carlo draws the counts of all tables at once up to this many tables
TRIM_FROM = 30_000  # discordant tables of more outcomes (n >= 244) work on the support only (support.py); below,
# the whole table as before, so committed results keep every bit (evaluate_example: n = 228, 26,335 outcomes)
MC_LIMIT = 1_000_000  # Monte Carlo tables are keyed (both·(n + 1) + only_first)·(n + 1) + only_second in int64
CELLS = ("p_both", "p_only_first", "p_only_second", "p_neither")
_TOLERANCE = 1e-12  # cell probabilities this far below 0 (rounding) count as 0


def cells_from_accuracies(acc_first: float, acc_second: float, correlation: float) -> dict:
    """The four cell probabilities of accuracies a1, a2 and correlation ρ (module docstring)."""
    spread = math.sqrt(acc_first * (1 - acc_first) * acc_second * (1 - acc_second))
    both = acc_first * acc_second + correlation * spread
    return {"p_both": both, "p_only_first": acc_first - both, "p_only_second": acc_second - both,
            "p_neither": 1 - acc_first - acc_second + both}


def correlation_range(acc_first: float, acc_second: float) -> tuple[float, float]:
    """The correlations for which (a1, a2, ρ) are probabilities; (-1, 1) if an accuracy is 0 or 1."""
    spread = math.sqrt(acc_first * (1 - acc_first) * acc_second * (1 - acc_second))
    if spread == 0:
        return -1.0, 1.0
    product = acc_first * acc_second
    return (max(-1.0, (max(0.0, acc_first + acc_second - 1) - product) / spread),
            min(1.0, (min(acc_first, acc_second) - product) / spread))


@register
class Paired(Design):
    name = "paired"
    data = "paired"
    axes = (Axis("n", True, 1), Axis("acc_first", False, 0.0, 1.0), Axis("acc_second", False, 0.0, 1.0),
            Axis("correlation", False, -1.0, 1.0),
            *(Axis(c, False, 0.0, 1.0) for c in CELLS))
    parametrisations = (("n", "acc_first", "acc_second", "correlation"), ("n", *CELLS))
    estimand = "difference"
    summary = "one test set, two classifiers: Multinomial(n; p_both, p_only_first, p_only_second, p_neither)"
    example = {"n": 24, "acc_first": 0.8, "acc_second": 0.7, "correlation": 0.3}

    def derive(self, point: dict) -> dict:
        """Cells from (acc_first, acc_second, correlation), or those from the cells; column order."""
        point = dict(point)
        if "p_both" in point:
            a1 = point["p_both"] + point["p_only_first"]
            a2 = point["p_both"] + point["p_only_second"]
            spread = math.sqrt(max(a1 * (1 - a1) * a2 * (1 - a2), 0.0))
            cross = point["p_both"] * point["p_neither"] - point["p_only_first"] * point["p_only_second"]
            point.update(acc_first=a1, acc_second=a2, correlation=cross / spread if spread > 0 else 0.0)
        else:
            point.update(cells_from_accuracies(point["acc_first"], point["acc_second"], point["correlation"]))
        return {a.name: point[a.name] for a in self.axes}

    def expected(self, axes: dict, size: float) -> dict:
        cells = self.derive({**axes, "n": 1})
        return {name: size * cells[p] for name, p in zip(PAIRED_CELLS, CELLS)}

    def points(self, grid: dict) -> list[dict]:
        given = next(o for o in self.parametrisations if all(grid.get(k) is not None for k in o))
        return [self.derive(dict(zip(given, values))) for values in itertools.product(*(grid[k] for k in given))]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        n = point["n"]
        cells = [point[c] for c in CELLS]
        if min(cells) < -_TOLERANCE or abs(sum(cells) - 1) > 1e-9:
            a1, a2 = point["acc_first"], point["acc_second"]
            if abs(sum(cells) - 1) <= 1e-9:
                lo, hi = correlation_range(a1, a2)
                return (f"correlation: with acc_first={a1:g} and acc_second={a2:g} the correlation must lie in "
                        f"[{lo:.4g}, {hi:.4g}], got {point['correlation']:g}")
            return f"{', '.join(CELLS)}: cell probabilities must sum to 1, got {sum(cells):.12g}"
        if exact and n > (FULL_EXACT_LIMIT if merge is None else DISCORDANT_EXACT_LIMIT):
            size = nested_size(n, *_levels(_cells(point), merge))
            if size > RECTANGLE_LIMIT:
                cells = "all four cells" if merge is None else "(only_first, only_second)"
                return (f"n: exact paired coverage needs at most {RECTANGLE_LIMIT:,} outcomes of {cells} carrying all "
                        f"but {BOUND:g} of the probability, got {size:,} at n = {n:,}, "
                        + ", ".join(f"{c} = {point[c]:g}" for c in CELLS))
        if n > MC_LIMIT:
            return f"n: paired Monte Carlo needs n <= {MC_LIMIT:,} (tables are int64 keys), got {n:,}"
        return None

    def table_key(self, point: dict) -> tuple:
        return (point["n"],)

    def stream_identity(self, point: dict) -> dict:
        return {"design": "paired", "n": point["n"], **{c: point[c] for c in CELLS}}

    def truth_inputs(self, point: dict) -> dict:
        return {c: point[c] for c in CELLS}

    def table_columns(self, key: tuple) -> dict:
        if key[0] == "discordant":
            n = key[1]
            m, c = np.tril_indices(n + 1)  # the order of iid.ratio_pmf: by m = b + c, then b
            only_first, only_second = c, m - c
            return {"both": n - m, "only_first": only_first, "only_second": only_second,
                    "neither": np.zeros_like(m)}
        return all_tables(key[0])

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        n = pt["n"]
        p = _cells(pt)
        key = (n,) if merge is None else ("discordant", n)
        if (n > FULL_EXACT_LIMIT) if merge is None else ((n + 1) * (n + 2) // 2 > TRIM_FROM):
            # The support only (support.nested), placed in the table by index.
            m, only_first, both, weight = nested(n, *_levels(p, merge))
            index = m * (m + 1) // 2 + only_first  # position in the (m, only_first) block (table_columns)
            if merge is None:  # blocks of both = 0, 1, ... hold (n - both + 1)(n - both + 2)/2 tables each
                index = index + _tetrahedral(n + 1) - _tetrahedral(n - both + 1)
            else:
                both = n - m
            columns = {"both": both, "only_first": only_first, "only_second": m - only_first,
                       "neither": n - both - m}
            return Outcomes(columns, weight[None, :], (Segment(key, slice(None), index),))
        if merge is not None:
            _, _, weight = ratio_pmf(n, p[1], p[2])
        else:
            weight = table_pmf(all_tables(n), p)
        return Outcomes(self.table_columns(key), weight[None, :], (Segment(key, slice(None)),))

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        n = pt["n"]
        rng = stream(seed, **self.stream_identity(pt))
        p = _cells(pt)
        if _tetrahedral(n + 1) <= min(reps, HISTOGRAM_LIMIT):
            return _histogram(n, p, reps, rng)
        base = n + 1
        parts = []
        for start in range(0, reps, BLOCK):
            table = rng.multinomial(n, p, size=min(BLOCK, reps - start)).astype(np.int64)
            parts.append(np.unique((table[:, 0] * base + table[:, 1]) * base + table[:, 2], return_counts=True))
        key, count = merge_counts(parts)
        rest, only_second = np.divmod(key, base)
        both, only_first = np.divmod(rest, base)
        columns = {"both": both, "only_first": only_first, "only_second": only_second,
                   "neither": n - both - only_first - only_second}
        return Outcomes(columns, count[None, :])


def _cells(point: dict) -> np.ndarray:
    """The four cell probabilities, rounding below 0 removed, summing to 1."""
    p = np.maximum(np.array([point[c] for c in CELLS], dtype=float), 0.0)
    return p / p.sum()


def _histogram(n: int, p: np.ndarray, reps: int, rng: np.random.Generator) -> Outcomes:
    """The tables drawn at least once among ``reps`` and their counts, drawn at once: the counts of
    all (n + 1)(n + 2)(n + 3)/6 tables ~ Multinomial(reps, table_pmf), the same distribution as
    drawing the test sets one by one, at a cost that does not grow with reps (used when reps is
    at least the number of tables). The tables are visited in increasing probability (ties in
    table order), so numpy's running "mass not yet visited" ends on the largest ones and keeps
    full relative precision."""
    tables = all_tables(n)
    pmf = table_pmf(tables, p)
    order = np.argsort(pmf, kind="stable")
    count = np.zeros(pmf.size, dtype=np.int64)
    count[order] = rng.multinomial(reps, pmf[order] / pmf.sum())
    drawn = np.flatnonzero(count)
    return Outcomes({c: v[drawn] for c, v in tables.items()}, count[drawn][None, :])


def _levels(p: np.ndarray, merge) -> tuple:
    """(p_first, p_a, p_b) of support.nested: m = only_first + only_second, only_first | m and,
    for methods reading all four cells, both | m."""
    p_m = p[1] + p[2]
    p_a = p[1] / p_m if p_m > 0 else 0.0
    if merge is not None:
        return min(p_m, 1.0), p_a, None
    rest = p[0] + p[3]
    return min(p_m, 1.0), p_a, (p[0] / rest if rest > 0 else 0.0)


def _tetrahedral(k):
    """k(k + 1)(k + 2)/6 = Σ_{i <= k} i(i + 1)/2: the tables before a block of all_tables."""
    return k * (k + 1) * (k + 2) // 6


def all_tables(n: int) -> dict:
    """Every table (both, only_first, only_second, neither) with total n, ordered by both, then
    only_first + only_second, then only_first."""
    blocks = []
    for both in range(n + 1):
        m, b = np.tril_indices(n - both + 1)
        blocks.append((np.full_like(m, both), b, m - b))
    both, only_first, only_second = (np.concatenate(parts) for parts in zip(*blocks))
    return {"both": both, "only_first": only_first, "only_second": only_second,
            "neither": n - both - only_first - only_second}


def table_pmf(tables: dict, p: np.ndarray) -> np.ndarray:
    """Multinomial(n; p) probability of each table: n!/(a!b!c!d!)·Π p_cell^count."""
    counts = [tables[c] for c in ("both", "only_first", "only_second", "neither")]
    n = sum(c[0] for c in counts)
    log = special.gammaln(n + 1) + sum(special.xlogy(c, pc) - special.gammaln(c + 1) for c, pc in zip(counts, p))
    return np.exp(log)


PAIRED_CELLS = ("both", "only_first", "only_second", "neither")


@register_estimand("paired", "difference", takes=("paired",), null=0.0)
class PairedDifference(Estimand):
    """acc_first - acc_second = p_only_first - p_only_second: paired methods on the table."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["p_only_first"] - inputs["p_only_second"])

    def merge(self, method):
        return None if method.name in NEEDS_CONCORDANT else ("only_first", "only_second")

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds(tuple(columns[c] for c in PAIRED_CELLS), delta, side, **params)
