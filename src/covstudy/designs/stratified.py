"""The stratified design: fixed class sizes n_pos, n_neg; tp ~ Binomial(n_pos, tpr), tn ~ Binomial(n_neg, tnr).

A study gives the class sizes directly (``n_pos``, ``n_neg``) or as a test-set size and a
prevalence, n_pos = round(n·prevalence) kept in [1, n - 1] (``confusion.class_sizes``).
Exact coverage enumerates the (n_pos + 1)(n_neg + 1) outcomes up to TABLE_LIMIT; beyond, only
the support (support.rectangle: the (tp, tn) carrying all but 1e-15 of the probability, up to
support.RECTANGLE_LIMIT outcomes); Monte
Carlo draws tp and tn for each test set from the stream keyed by (n_pos, n_neg, tpr, tnr),
in fixed blocks, and keeps the distinct outcomes with their counts.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..seeds import stream
from .base import Axis, Outcomes, Segment
from .confusion import PREVALENCE, RATES, TABLE_LIMIT, ConfusionDesign, cells, class_sizes, stratified_pmf
from .registry import register
from .sampling import BLOCK, merge
from .support import BOUND, RECTANGLE_LIMIT, rectangle, rectangle_size

def _spread(n, p) -> float:
    """About how many values of Binomial(n, p) carry most of its mass: those within 2 sd of the mean."""
    return 1 + 4 * math.sqrt(n * p * (1 - p))


_KEY_LIMIT = 1 << 62  # Monte Carlo outcomes are keyed tp·(n_neg + 1) + tn in int64


@register
class Stratified(ConfusionDesign):
    name = "stratified"
    axes = (Axis("n", True, 2), PREVALENCE,
            Axis("n_pos", True, 1), Axis("n_neg", True, 1), *RATES)
    parametrisations = (("n", "prevalence", "tpr", "tnr"), ("n_pos", "n_neg", "tpr", "tnr"))
    summary = "fixed class sizes (n_pos, n_neg), or n_pos = round(n·prevalence); tp ~ Bin(n_pos, tpr), tn ~ Bin(n_neg, tnr)"
    example = {"n_pos": 6, "n_neg": 9, "tpr": 0.8, "tnr": 0.6}

    def derive(self, point: dict) -> dict:
        """Class sizes from (n, prevalence); every point in column order."""
        point = dict(point)
        if "n_pos" not in point:
            point["n_pos"], point["n_neg"] = class_sizes(point["n"], point["prevalence"])
        return {a.name: point[a.name] for a in self.axes if a.name in point}

    def points(self, grid: dict) -> list[dict]:
        if "n_pos" in grid:
            sizes = [{"n_pos": a, "n_neg": b} for a in grid["n_pos"] for b in grid["n_neg"]]
        else:
            sizes = [{"n": n, "prevalence": q} for n in grid["n"] for q in grid["prevalence"]]
        rates = [{"tpr": t1, "tnr": t0} for t1 in grid["tpr"] for t0 in grid["tnr"]]
        return [self.derive({**s, **r}) for s, r in itertools.product(sizes, rates)]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        outcomes = (point["n_pos"] + 1) * (point["n_neg"] + 1)
        key = "n" if "n" in point else "n_pos, n_neg"
        if exact and outcomes > TABLE_LIMIT:
            support = rectangle_size(point["n_pos"], point["tpr"], point["n_neg"], point["tnr"])
            if support > RECTANGLE_LIMIT:
                return (f"{key}: exact coverage needs at most {RECTANGLE_LIMIT:,} outcomes (tp, tn) carrying all but "
                        f"{BOUND:g} of the probability, got {support:,} at n_pos = {point['n_pos']:,}, "
                        f"n_neg = {point['n_neg']:,}, tpr = {point['tpr']:g}, tnr = {point['tnr']:g}")
        if outcomes > _KEY_LIMIT:
            return f"{key}: Monte Carlo needs (n_pos + 1)(n_neg + 1) <= 2^62 outcomes, got {outcomes:,}"
        return None

    def table_key(self, point: dict) -> tuple:
        return (point["n_pos"], point["n_neg"])

    def outcome_count(self, point: dict) -> int:
        return (point["n_pos"] + 1) * (point["n_neg"] + 1)

    def likely_outcomes(self, point: dict) -> float:
        return _spread(point["n_pos"], point["tpr"]) * _spread(point["n_neg"], point["tnr"])

    def stream_identity(self, point: dict) -> dict:
        return {"design": "stratified", "n_pos": point["n_pos"], "n_neg": point["n_neg"],
                "tpr": point["tpr"], "tnr": point["tnr"]}

    def truth_inputs(self, point: dict) -> dict:
        n = point["n_pos"] + point["n_neg"]
        return {"prevalence": point["n_pos"] / n, "tpr": point["tpr"], "tnr": point["tnr"]}

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        key = self.table_key(pt)
        if self.outcome_count(pt) <= TABLE_LIMIT:
            pmf = stratified_pmf(*key, pt["tpr"], pt["tnr"]).ravel()
            return Outcomes(self.table_columns(key), pmf[None, :], (Segment(key, slice(None)),))
        # A larger table: its support only (support.py), placed in the table by index.
        tp, tn, weight = rectangle(key[0], pt["tpr"], key[1], pt["tnr"])
        return Outcomes(cells(key[0], tp, key[1], tn), weight, (Segment(key, slice(None), tp * (key[1] + 1) + tn),))

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        n_pos, n_neg = key = self.table_key(pt)
        rng = stream(seed, **self.stream_identity(pt))
        parts = []
        for start in range(0, reps, BLOCK):
            size = min(BLOCK, reps - start)
            tp = rng.binomial(n_pos, pt["tpr"], size=size)
            tn = rng.binomial(n_neg, pt["tnr"], size=size)
            parts.append(np.unique(tp.astype(np.int64) * (n_neg + 1) + tn, return_counts=True))
        index, count = merge(parts)
        tp, tn = np.divmod(index, n_neg + 1)
        # Small outcome spaces: look the intervals up in the shared table of the class sizes.
        tables = (Segment(key, slice(None), index),) if (n_pos + 1) * (n_neg + 1) <= TABLE_LIMIT else ()
        return Outcomes(cells(n_pos, tp, n_neg, tn), count[None, :], tables)
