"""What every planner shares: the answer (``PlanResult``), the sawtooth-aware search for the
smallest size with its work budgets, and the coverage target's ceiling.

The planning wing's flow (arrows point down): ``plan`` (the door: ``plan()``,
``size_performance()``) dispatches to ``binomial`` (the exact binomial planner) or ``sizing``
(every other design; Monte Carlo through ``stochastic_root``); both search with this module's
``first_lasting_size`` and return its ``PlanResult``. This module imports no other planner.

What "smallest" means. Expected width and coverage are not monotone in n (e.g. Wald's
interval at n = 1 has width 0, and coverage oscillates), so the answer is defined as the
smallest n at which the target holds *and keeps holding* for every n' in [n, n + horizon]
(default horizon 20). The search: doubling from the last failing n to an n where the target
holds, bisection down to a boundary (fails at n - 1, holds at n), then a check of the window
(n, n + horizon]; a failure there becomes the new starting point. The first n that passes is
returned; it fails at n - 1, so it is the start of its run. The search does not visit every n
below the answer, so a run of horizon + 1 passing n's that it jumped over could be missed;
the tests compare with a brute-force scan of every n.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

TOL = 1e-12  # slack in the comparisons, so rounding cannot flip a target that holds with equality
SEARCH_MAX = 5000  # sizes one search may evaluate (the tests need <= 1,300; ~5 CPU-s of binomial sizes near 10⁴)
SEARCH_OUTCOMES = 4 * 10**7  # outcomes one search may score, each size once (a 3-d support such as iid's: ~0.4 µs each)


@dataclass(frozen=True)
class PlanResult:
    """The planned test-set size ``n`` (on the design's ``size_axis``) and a table of nearby
    sizes with their performance.

    Examples
    --------
    >>> from covstudy import plan
    >>> r = plan("wilson", p=0.9, delta=0.05, width=0.1)
    >>> r.n, r.target
    (139, 'mean width <= 0.1 at p = 0.9')
    >>> [row["n"] for row in r.table][:4]
    [35, 70, 104, 139]
    """

    n: int
    method: str
    delta: float
    side: str
    target: str  # the target in words
    p: tuple[float, ...]  # the p at which the target is checked (binomial design; else ())
    table: tuple[dict, ...]  # rows: n, mean_width (worst p), min_coverage, [prob_width (worst p)]
    params: dict = field(default_factory=dict)
    horizon: int = 20
    evaluations: int = 0  # sizes n evaluated by the search
    design: str = "binomial"
    metric: str = "accuracy"
    size_axis: str = "n"  # the axis ``n`` is a value of (``Design.size_axis``: n, n1, clusters)
    point: dict = field(default_factory=dict)  # the other axes, as given (not the binomial p)
    engine: str = "exact"  # "exact", "mc" (stochastic root-finder) or "plug-in"
    reps: int | None = None  # Monte Carlo test sets per size
    seed: int | None = None
    n_interval: tuple[float, float] | None = None  # Monte Carlo: 95% interval of the real root
    n_continuous: float | None = None  # plug-in: the real size at which the width is met
    targets: dict = field(default_factory=dict)  # width, assurance, coverage: the numbers of the target

    def to_frame(self):
        """The table as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(list(self.table))

    def __str__(self) -> str:
        if self.design == "binomial" and self.engine == "exact":
            head = f"n = {self.n}  ({self.method}, delta={self.delta:g}, {self.side}: {self.target})"
        else:
            head = (f"{self.size_axis} = {self.n}  ({self.method} for {self.metric}, {self.design} design, "
                    f"delta={self.delta:g}, {self.engine}: {self.target})")
            if self.n_interval is not None:
                head += (f"\n  Monte Carlo ({self.reps:,} test sets a size, seed {self.seed}): root "
                         f"{self.size_axis} in [{self.n_interval[0]:.1f}, {self.n_interval[1]:.1f}] (95%)")
            if self.n_continuous is not None:
                head += f"\n  plug-in root {self.size_axis} = {self.n_continuous:.4f}"
        cols = list(self.table[0])
        ints = {c for c in cols if isinstance(self.table[0][c], (int, np.integer))}
        lines = ["  ".join(f"{c:>12}" for c in cols)]
        for row in self.table:
            mark = "  <-" if row[self.size_axis] == self.n else ""
            lines.append("  ".join(f"{row[c]:>12}" if c in ints else f"{row[c]:>12.5f}" for c in cols) + mark)
        return "\n".join([head, *lines])


def coverage_ceiling(coverage: float, delta: float) -> float:
    """``coverage`` if at most 1 - delta, else ValueError: an interval at level 1 - delta covers
    about 1 - delta at large n, so a higher target is a different level, not a larger size."""
    if coverage > 1 - delta + TOL:
        raise ValueError(f"coverage must be at most 1 - delta = {1 - delta:g} (the interval's level), got {coverage:g}; "
                         f"for a higher coverage lower delta (delta = 1 - coverage)")
    return coverage


def first_lasting_size(holds, n_max: int, horizon: int, start: int = 1, target: str = "", work=None) -> int | None:
    """The first n >= start found with holds(n') for all n' in [n, n + horizon] (module docstring: what "smallest" means);
    None if none <= n_max.

    The work is bounded: ValueError beyond ``SEARCH_MAX`` evaluated sizes (a target met at
    scattered n only, e.g. a coverage oscillating about it, has the search step through every
    n up to n_max) or, with ``work(n)`` (the outcomes evaluated at n), beyond ``SEARCH_OUTCOMES``.
    """
    calls = outcomes = 0

    def holds(n, holds=holds):
        nonlocal calls, outcomes
        calls += 1
        if calls > SEARCH_MAX:
            raise ValueError(f"horizon: the target ({target}) holds at scattered sizes near {n:,} but not for "
                             f"{horizon + 1} consecutive ones within the {SEARCH_MAX:,} sizes a search may evaluate; "
                             f"it oscillates about the target: relax it (a lower coverage) or lower horizon")
        ok = holds(n)
        outcomes += work(n) if work is not None else 0
        if outcomes > SEARCH_OUTCOMES:
            raise ValueError(f"n_max: the search evaluated {outcomes:,} outcomes (at most {SEARCH_OUTCOMES:.0e}, "
                             f"~15 CPU-s) by n = {n:,} without an answer; plan by Monte Carlo (reps=...) or lower n_max")
        return ok

    lo = start - 1  # invariant: lo == start - 1 or holds(lo) is False
    while lo < n_max:
        step, hi = 1, lo + 1
        while not holds(hi):  # doubling
            if hi == n_max:
                return None
            lo, step = hi, step * 2
            hi = min(n_max, lo + step)
        while hi - lo > 1:  # bisection: holds(hi), not holds(lo)
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if holds(mid) else (mid, hi)
        bad = next((m for m in range(hi + 1, min(n_max, hi + horizon) + 1) if not holds(m)), None)
        if bad is None:
            return hi
        lo = bad
    return None
