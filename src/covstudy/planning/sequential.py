"""The planner for a growing test set: how many labels, on average, until the interval is narrow enough.

``expected_labels(method, p, width, batch=...)``: label in batches of ``batch``, look at the interval after
each batch and stop once its width is at most ``width`` (the sequential design's width rule,
``covstudy.sequential_coverage``, exact by its dynamic programme over looks and successes). The answer:
the expected number of labels at stopping, the chance of reaching the width by ``n_max``, the coverage at
stopping and the simultaneous coverage over every look (a naive peek keeps the first, not the second; a
confidence sequence keeps both, at a price in labels). ``n_max`` defaults to four times the fixed-n
plan's size for the same width (``plan``), rounded up to a batch. docs/sequential.md compares the rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class SequentialPlan:
    """The expected labels to reach a width, and what the stopping costs in coverage."""

    method: str
    adjust: str
    p: float
    width: float
    batch: int
    n_max: int
    delta: float
    expected_n: float  # E[labels at stopping]
    reached: float  # P(stopped before n_max: the width reached at an earlier look)
    coverage: float  # P(the interval at stopping covers p)
    simultaneous: float  # P(every look's interval covers p)

    def __str__(self) -> str:
        how = self.method + ("" if self.adjust == "none" else f" ({self.adjust} spending)")
        return (f"{how}: looking every {self.batch} labels and stopping at width <= {self.width:g} (p = {self.p:g}, "
                f"delta = {self.delta:g}): {self.expected_n:,.0f} labels expected (stopped before n_max = "
                f"{self.n_max:,} with probability {self.reached:.4f}); coverage at stopping "
                f"{self.coverage:.4f}, every look {self.simultaneous:.4f} (exact)")


def expected_labels(method: str, p: float, width: float, *, batch: int, n_max: int | None = None,
                    adjust: str = "none", delta: float = 0.05, **params) -> SequentialPlan:
    """Expected labels until ``method``'s interval is at most ``width`` wide, looking every ``batch`` labels.

    Parameters
    ----------
    method : str
        A proportion method (applied at each look, spending delta by ``adjust``) or a confidence
        sequence (``"mixture"``, ``"betting"``, ``"cp_union"``).
    p : float
        The assumed accuracy, in (0, 1).
    width : float
        The target width, in (0, 1).
    batch : int
        Labels between looks.
    n_max : int, optional
        The most labels (a multiple of ``batch`` is used), at most 20,000; default four times the fixed-n
        size for ``width`` (at most 20,000, at least one batch).
    adjust : {"none", "bonferroni", "obf", "pocock"}
        How a fixed-n method spends delta over the looks.

    Examples
    --------
    >>> from covstudy.planning.sequential import expected_labels
    >>> r = expected_labels("wilson", 0.9, 0.1, batch=25, n_max=1000)
    >>> round(r.expected_n), round(r.coverage, 3), round(r.simultaneous, 3)
    (149, 0.951, 0.721)
    >>> round(expected_labels("mixture", 0.9, 0.1, batch=25, n_max=1000).expected_n)
    358
    """
    from .. import validate
    from ..designs.sequential import N_MAX_LIMIT, sequential_coverage
    from .plan import plan

    p = float(validate.interval("p", validate.scalar("p", p), 0.0, 1.0, True, True))
    width = float(validate.interval("width", validate.scalar("width", width), 0.0, 1.0, True, True))
    batch = int(validate.counts("batch", validate.scalar("batch", batch), minimum=1, maximum=N_MAX_LIMIT))
    delta = float(validate.delta(validate.scalar("delta", delta)))
    if n_max is None:  # four times the fixed-n size, within the sequential design's last look, at least one batch
        fixed = plan("wilson", p=p, width=width, delta=delta).n
        n_max = max(batch, min(4 * int(fixed), N_MAX_LIMIT))
    n_max = int(validate.counts("n_max", validate.scalar("n_max", n_max), minimum=batch, maximum=N_MAX_LIMIT))
    n_max = batch * math.ceil(n_max / batch)
    if n_max > N_MAX_LIMIT:  # rounded up past the limit: the last whole batch below it
        n_max -= batch
    r = sequential_coverage(method, p, batch=batch, n_max=n_max, rule="width", width=width, adjust=adjust,
                            delta=delta, **params)
    return SequentialPlan(method, adjust, p, width, batch, n_max, delta, float(r["expected_n"][0]),
                          float(r["stopped_early"][0]) if n_max > batch else 1.0, float(r["coverage"][0]),
                          float(r["simultaneous"][0]))
