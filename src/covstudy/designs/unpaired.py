"""The unpaired design: two classifiers (or one classifier twice) on independent test sets.

k1 ~ Binomial(n1, p1) and k2 ~ Binomial(n2, p2), independent; the estimand is p1 - p2.
The outcome space, all (k1, k2), is the same for every (p1, p2) of one (n1, n2), so exact
coverage enumerates it as the outer product of the two binomial pmfs, and every point of one
(n1, n2) shares the interval tables of the (n1 + 1)(n2 + 1) outcomes (ordered k1-major).
Monte Carlo draws k1 and k2 of each test set from the stream keyed by (n1, n2, p1, p2);
within TABLE_LIMIT it counts them into the same table, beyond it keeps the distinct outcomes.
"""

from __future__ import annotations

import itertools

import numpy as np

from .._lazy import stats
from ..seeds import stream
from ..estimands import Estimand, register_estimand
from .base import Axis, Design, Outcomes, Segment
from .confusion import TABLE_LIMIT
from .registry import register
from .sampling import BLOCK, merge
from .support import BOUND, RECTANGLE_LIMIT, bucket, rectangle, rectangle_size

_KEY_LIMIT = 1 << 62  # Monte Carlo outcomes are keyed k1·(n2 + 1) + k2 in int64
TRIM_FROM = 10_000  # exact tables of more outcomes work on the support only (support.py)


@register
class Unpaired(Design):
    name = "unpaired"
    data = "unpaired"
    axes = (Axis("n1", True, 1), Axis("n2", True, 1), Axis("p1", False, 0.0, 1.0), Axis("p2", False, 0.0, 1.0))
    parametrisations = (("n1", "n2", "p1", "p2"),)
    estimand = "difference"
    summary = "independent test sets: k1 ~ Bin(n1, p1), k2 ~ Bin(n2, p2); estimand p1 - p2"
    example = {"n1": 8, "n2": 11, "p1": 0.7, "p2": 0.4}

    def points(self, grid: dict) -> list[dict]:
        return [{"n1": a, "n2": b, "p1": p, "p2": q}
                for a, b, p, q in itertools.product(grid["n1"], grid["n2"], grid["p1"], grid["p2"])]

    size_axis = "n1"
    plan_axes = {"ratio": (1.0, "n2/n1")}

    def sized(self, axes: dict, size: int) -> dict:
        axes = dict(axes)
        ratio = axes.pop("ratio", 1.0)
        return {**axes, "n1": size, "n2": max(1, round(ratio * size))}

    def expected(self, axes: dict, size: float) -> dict:
        n2 = axes.get("ratio", 1.0) * size
        return {"k1": size * axes["p1"], "n1": size, "k2": n2 * axes["p2"], "n2": n2}

    def _cells(self, point: dict) -> int:
        return (point["n1"] + 1) * (point["n2"] + 1)

    def _support(self, point: dict) -> int:
        """Outcomes (k1, k2) carrying all but BOUND of the point's probability."""
        return rectangle_size(point["n1"], point["p1"], point["n2"], point["p2"])

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        cells = self._cells(point)
        if cells > _KEY_LIMIT:
            return f"n1, n2: the unpaired design needs (n1 + 1)(n2 + 1) <= 2^62 outcomes, got {cells:,}"
        if exact and cells > TRIM_FROM and self._support(point) > RECTANGLE_LIMIT:
            return (f"n1, n2: exact unpaired coverage needs at most {RECTANGLE_LIMIT:,} outcomes (k1, k2) carrying all "
                    f"but {BOUND:g} of the probability, got {self._support(point):,} at n1 = {point['n1']:,}, "
                    f"n2 = {point['n2']:,}, p1 = {point['p1']:g}, p2 = {point['p2']:g}")
        return None

    def table_key(self, point: dict) -> tuple:
        return (point["n1"], point["n2"])

    def batch_key(self, point: dict):
        # Points of one (n1, n2) share the outcome table; beyond TABLE_LIMIT each point is alone;
        # in between, the exact engine generates points with overlapping supports together.
        cells = self._cells(point)
        if cells <= TRIM_FROM:
            return self.table_key(point)
        if cells > TABLE_LIMIT:
            return tuple(point.items())
        return (*self.table_key(point), bucket(point["n1"], point["p1"]), bucket(point["n2"], point["p2"]))

    def outcome_count(self, point: dict) -> int:
        return min(self._cells(point), TABLE_LIMIT)

    def stream_identity(self, point: dict) -> dict:
        return {"design": "unpaired", "n1": point["n1"], "n2": point["n2"], "p1": point["p1"], "p2": point["p2"]}

    def truth_inputs(self, point: dict) -> dict:
        return {"p1": point["p1"], "p2": point["p2"]}

    def table_columns(self, key: tuple) -> dict:
        n1, n2 = key
        k1, k2 = np.indices((n1 + 1, n2 + 1)).reshape(2, -1)
        return {"k1": k1, "n1": n1, "k2": k2, "n2": n2}

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        key = self.table_key(points[0])
        if self._cells(points[0]) <= TRIM_FROM:
            weight = np.stack([unpaired_pmf(*key, pt["p1"], pt["p2"]).ravel() for pt in points])
            return Outcomes(self.table_columns(key), weight, (Segment(key, slice(None)),))
        # The support only (support.py): the pairs carrying all but BOUND of every point's probability.
        k1, k2, weight = rectangle(key[0], [pt["p1"] for pt in points], key[1], [pt["p2"] for pt in points])
        columns = {"k1": k1, "n1": key[0], "k2": k2, "n2": key[1]}
        return Outcomes(columns, weight, (Segment(key, slice(None), k1 * (key[1] + 1) + k2),))

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        n1, n2 = key = self.table_key(points[0])
        draws = [unpaired_counts(pt, reps, seed) for pt in points]
        if self._cells(points[0]) <= TABLE_LIMIT:
            size = self._cells(points[0])
            weight = np.stack([np.bincount(index, weights=count, minlength=size).astype(np.int64)
                               for index, count in draws])
            return Outcomes(self.table_columns(key), weight, (Segment(key, slice(None)),))
        [(index, count)] = draws
        k1, k2 = np.divmod(index, n2 + 1)
        return Outcomes({"k1": k1, "n1": n1, "k2": k2, "n2": n2}, count[None, :])


def unpaired_pmf(n1: int, n2: int, p1: float, p2: float) -> np.ndarray:
    """P(k1, k2) = Binomial(k1; n1, p1)·Binomial(k2; n2, p2), shape (n1 + 1, n2 + 1)."""
    return np.outer(stats.binom.pmf(np.arange(n1 + 1), n1, p1), stats.binom.pmf(np.arange(n2 + 1), n2, p2))


def unpaired_counts(point: dict, reps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct outcomes k1·(n2 + 1) + k2 of ``reps`` simulated test-set pairs and their counts,
    from the point's stream.

    When reps >= (n1 + 1)(n2 + 1) the counts are drawn at once as a histogram: the k1 histogram
    ~ Multinomial(reps, Binomial(n1, p1) pmf), then for each k1 drawn c times the k2 histogram ~
    Multinomial(c, Binomial(n2, p2) pmf), all in one call: the same distribution as drawing the
    pairs one by one, at a cost that does not grow with reps. Otherwise each pair is drawn (k1,
    then k2) in fixed blocks. The choice depends on (n1, n2, reps) only."""
    n1, n2 = point["n1"], point["n2"]
    rng = stream(seed, design="unpaired", n1=n1, n2=n2, p1=point["p1"], p2=point["p2"])
    if reps >= (n1 + 1) * (n2 + 1):
        first = _histograms(n1, point["p1"], np.array([reps]), rng)[0]
        k1 = np.flatnonzero(first)
        second = _histograms(n2, point["p2"], first[k1], rng)
        rows, k2 = np.nonzero(second)
        return k1[rows] * (n2 + 1) + k2, second[rows, k2]
    parts = []
    for start in range(0, reps, BLOCK):
        size = min(BLOCK, reps - start)
        k1 = rng.binomial(n1, point["p1"], size=size)
        k2 = rng.binomial(n2, point["p2"], size=size)
        parts.append(np.unique(k1.astype(np.int64) * (n2 + 1) + k2, return_counts=True))
    return merge(parts)


def _histograms(n: int, p: float, reps: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Histograms over k = 0..n of reps[i] Binomial(n, p) draws each: Multinomial(reps[i], pmf),
    one numpy call. The categories are visited tails first and the mode last (as
    binomial._multinomial), so numpy's running "mass not yet visited" keeps full relative precision."""
    pmf = stats.binom.pmf(np.arange(n + 1), n, p)
    mode = int(np.argmax(pmf))
    order = np.concatenate((np.arange(mode), np.arange(n, mode - 1, -1)))
    hist = np.zeros((len(reps), n + 1), dtype=np.int64)
    hist[:, order] = rng.multinomial(reps, pmf[order] / pmf.sum())
    return hist


@register_estimand("unpaired", "difference", takes=("difference",), null=0.0)
class UnpairedDifference(Estimand):
    """p1 - p2 of two independent test sets: difference methods on (k1, n1, k2, n2)."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["p1"] - inputs["p2"])

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((columns["k1"], columns["n1"], columns["k2"], columns["n2"]), delta, side, **params)
