"""Test-set size planning: the smallest n whose intervals meet a target, by the exact engine.

For a binomial method, delta and side, and an assumed accuracy p (or every p of a range),
the targets are

    width w:                    E[width] <= w                     (worst p of the range)
    width w, width_prob 1 - γ:  P(width <= w) >= 1 - γ            (worst p of the range)
    coverage_tol ε:             coverage >= 1 - delta - ε         (worst p of the range)

(several given: all must hold). Everything is computed exactly from Binomial(n, p) (no
normal approximation), on the pmf's support (mass outside < 1e-300; designs.py). Over a
range (lo, hi) the coverage is the exact infimum over every p in [lo, hi] (the confidence
coefficient, exact_curve.py: the dips next to the interval ends are not missed), and the
widths are evaluated at ``p_points`` equally spaced p, plus ½ if inside (the widest point
of most methods). One-sided bounds have "width" the margin p̂ - lower or upper - p̂.
"Within ε of nominal" means no more than ε *below* 1 - delta: over-coverage is only conservatism.

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

import math
from dataclasses import dataclass, field

import numpy as np

from .. import validate
from ..designs import _supported_pmf
from ..engine.exact_curve import EXACT_N_MAX, infimum
from ..engine.measures import measures
from ..methods import get

_TOL = 1e-12  # slack in the comparisons, so rounding cannot flip a target that holds with equality
SEARCH_MAX = 5000  # sizes one search may evaluate (the tests need <= 1,300; ~5 CPU-s of binomial sizes near 10⁴)
SEARCH_OUTCOMES = 10**8  # outcomes one search may evaluate (designs whose outcomes fill a 3-d support: ~0.3 µs each)
# The exact binomial planner's largest n_max: at one p the pmf's support (~40·sqrt(n) k) is
# cheap; over a range it is ~(hi - lo)·n k, bounded as for exact curves (exact_curve.EXACT_N_MAX).
N_MAX_AT_P = 10**8
P_POINTS_MAX = 1000  # p of a range at which the width targets are checked: each one's pmf every size


@dataclass(frozen=True)
class PlanResult:
    """The planned test-set size ``n`` (on the design's ``size_axis``) and a table of nearby
    sizes with their performance."""

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


def performance(method: str, n: int, p: np.ndarray, delta: float, side: str = "two-sided",
                width: float | None = None, **params) -> dict[str, np.ndarray]:
    """Exact coverage, mean width and (if ``width``) P(width <= width) at each p; params validated.

    The binomial pmf is taken on its support only (binomial._supported_pmf), which keeps a
    search up to n = 10⁶ cheap; the measures are those of measures.py.
    """
    m = get(method, "proportion")
    supports = _supported_pmf(n, np.asarray(p, dtype=float))
    k_lo = min(lo for lo, _ in supports)
    k_hi = max(lo + len(pmf) for lo, pmf in supports)
    k = np.arange(k_lo, k_hi)
    lower, upper = m.bounds((k, n), delta, side, **params)
    lower, upper = np.broadcast_to(lower, k.shape), np.broadcast_to(upper, k.shape)
    size = {"two-sided": upper - lower, "lower": k / n - lower, "upper": upper - k / n}[side]
    out = {"coverage": [], "mean_width": [], "prob_width": []}
    for pi, (lo, pmf) in zip(np.asarray(p, dtype=float), supports):
        s = slice(lo - k_lo, lo - k_lo + len(pmf))
        r = measures(pmf, lower[s], upper[s], pi, width=size[s], max_width=None if width is None else width + _TOL)
        for name in out:
            if name in r:
                out[name].append(r[name])
    return {name: np.array(v) for name, v in out.items() if v}


def min_coverage(method: str, n: int, lo: float, hi: float, delta: float, side: str = "two-sided",
                 **params) -> float:
    """The exact infimum of the coverage over p in [lo, hi] (exact_curve.infimum), from the
    intervals of the k with non-negligible probability somewhere in the range only."""
    (k_lo, _), (k_hi, pmf_hi) = _supported_pmf(n, np.array([lo, hi]))
    k = np.arange(k_lo, k_hi + len(pmf_hi))
    lower, upper = get(method, "proportion").bounds((k, n), delta, side, **params)
    lower, upper = np.broadcast_to(lower, k.shape), np.broadcast_to(upper, k.shape)
    return infimum(np.asarray(lower, dtype=float), np.asarray(upper, dtype=float), n, lo, hi, int(k_lo))[0]


def plan(method: str, delta: float = 0.05, p: float | None = None, width: float | None = None,
         width_prob: float | None = None, coverage_tol: float | None = None, p_range=None,
         side: str = "two-sided", n_max: int = 10**6, horizon: int = 20, p_points: int = 51, *,
         design: str = "binomial", metric: str | None = None, assurance: float | None = None,
         coverage: float | None = None, reps: int | None = None, seed: int | None = 0, plugin: bool = False,
         power: float | None = None, null: float | None = None, **axes_and_params) -> PlanResult:
    """The smallest test-set size meeting the target, under any design, with a table.

    The binomial design (the default; exact, module docstring) takes ``p`` or ``p_range``
    and at least one of ``width`` and ``coverage_tol`` (several targets: all must hold).
    Every other design takes its axes but the size it solves for (``Design.size_axis``: ``n``
    at a ``prevalence``, ``n1`` at a ``ratio`` n2/n1 for ``unpaired``, ``clusters`` at a
    ``cluster_size`` for ``clustered``) and plans at that point (sizing.py): exactly where the
    design enumerates its outcomes, else by Monte Carlo with a seeded stochastic root-finder
    (stochastic_root.py) whose 95% interval is ``.n_interval``. docs/planning.md.

    Parameters
    ----------
    method : str
        An interval method of the design's kind and metric (binomial: a proportion method,
        ``"wilson"``, ``methods("proportion")``; unpaired: ``"newcombe"`` ...).
    delta : float
        The miss rate in (0, 1): the interval's level is 1 - delta.
    p : float, optional
        The assumed accuracy (binomial, clustered).
    width : float, optional
        Target: expected width <= width (at the worst p), or with ``width_prob``
        P(width <= width) >= width_prob.
    width_prob : float, optional
        The probability in (0, 1) for the width target.
    coverage_tol : float, optional
        Target: coverage >= 1 - delta - coverage_tol for every p of the range (the exact
        infimum; over-coverage is allowed).
    p_range : (float, float), optional
        A range of accuracies instead of ``p``: every target must hold over all of it.
    side : {"two-sided", "lower", "upper"}
        The interval's side; a one-sided bound's "width" is its margin from p̂.
    n_max : int
        The largest size searched (exact binomial planner: at most 10⁸ at one p, 10⁶ over a range).
    horizon : int
        The target must hold at n and keep holding up to n + horizon (module docstring; exact engines).
    p_points : int
        How many equally spaced p of ``p_range`` the width targets are checked at (at most 1,000).
    design : str
        A registered design (``DESIGNS``); keyword only, as are the parameters below.
    metric : str, optional
        The estimand (default: the design's).
    assurance : float, optional
        With ``width``: P(width <= width) >= assurance (1 - γ); the same as ``width_prob``.
    coverage : float, optional
        Target: coverage >= coverage (= 1 - delta - ε; ``coverage_tol`` is ε), at most 1 - delta.
    reps, seed : int, optional
        Monte Carlo test sets per evaluated size (default: exact where possible, else 1000)
        and the seed of their streams.
    plugin : bool
        presize's plug-in answer instead: the size at which the interval at the expected
        counts has width ``width`` (``.n_continuous``: the real root; ``.n`` its ceiling).
    power, null : float, optional
        Target: P(the interval excludes ``null``) >= power, the power of the test that
        inverts the interval (``null`` defaults to the estimand's: 0 for a difference; it must
        lie in the metric's range, [0, 1] or [-1, 1] for a difference).
    **axes_and_params
        The method's parameters and, for designs other than binomial, the design's other
        axes (``prevalence``, ``tpr``, ``tnr``, ``p1``, ``p2``, ``ratio``, ``auc``,
        ``cluster_size``, ``icc`` ...).

    Returns
    -------
    PlanResult
        ``.n`` (on ``.size_axis``), the target in words, and ``.table`` (``.to_frame()``) of
        nearby sizes with their mean width and (minimum) coverage, and P(width <= width) where
        asked; ``print(result)`` shows both.

    Raises
    ------
    ValueError
        If no size <= n_max meets the target, or an input is invalid; or if the search exceeds
        its work bound (``SEARCH_MAX`` sizes, ``SEARCH_OUTCOMES`` outcomes: docs/planning.md).

    Examples
    --------
    >>> from covstudy import plan
    >>> plan("wilson", p=0.9, width=0.1).n
    139
    >>> plan("wilson", p_range=(0.8, 0.95), coverage_tol=0.01).n
    517
    >>> plan("wilson", design="stratified", metric="recall", prevalence=0.2, tpr=0.9, tnr=0.8,
    ...      width=0.1).n
    693
    """
    if width_prob is not None and assurance is not None:
        raise ValueError("assurance: give assurance or width_prob (the same thing), not both")
    assurance = width_prob if assurance is None else assurance
    if coverage is not None and coverage_tol is not None:
        raise ValueError("coverage: give coverage (the level) or coverage_tol (its distance below 1 - delta), not both")
    from ..designs import get_design

    name = get_design(design).name
    binomial_metric = metric in (None, "accuracy")
    if name == "binomial" and binomial_metric and reps is None and not plugin and power is None:
        if coverage is not None:
            d = float(validate.delta(validate.scalar("delta", delta)))
            c = float(validate.unit_interval("coverage", validate.scalar("coverage", coverage), open_=True))
            coverage_tol = max(0.0, 1 - d - coverage_ceiling(c, d))
        return _plan_binomial(method, delta, p, width, assurance, coverage_tol, p_range, side, n_max, horizon,
                              p_points, **axes_and_params)
    from .sizing import plan_design

    if p_range is not None:
        raise ValueError(f"p_range: a range of accuracies is planned by the exact binomial planner only "
                         f"(design binomial, no reps, no plugin)")
    if coverage_tol is not None:
        coverage_tol = float(validate.unit_interval("coverage_tol", validate.scalar("coverage_tol", coverage_tol),
                                                    open_=False))
        coverage = 1 - float(validate.delta(validate.scalar("delta", delta))) - coverage_tol
    given = {**({"p": p} if p is not None else {}), **axes_and_params}
    return plan_design(method, name, metric, delta, width, assurance, coverage, side, reps, seed, n_max, horizon,
                       plugin, given, power=power, null=null)


def _plan_binomial(method: str, delta: float = 0.05, p: float | None = None, width: float | None = None,
                   width_prob: float | None = None, coverage_tol: float | None = None, p_range=None,
                   side: str = "two-sided", n_max: int = 10**6, horizon: int = 20, p_points: int = 51,
                   **params) -> PlanResult:
    """The exact binomial planner (module docstring); ``plan``'s door for the binomial design."""
    m = get(method, "proportion")
    params = m.prepare(side, params)
    d = float(validate.delta(validate.scalar("delta", delta)))
    p_grid, where = _p_grid(p, p_range, p_points)
    if width is None and coverage_tol is None:
        raise ValueError("target: give width (and optionally width_prob) and/or coverage_tol")
    if width is not None:
        width = _positive("width", width)
    if width_prob is not None:
        if width is None:
            raise ValueError("width_prob needs width (P(width <= width) >= width_prob)")
        width_prob = float(validate.unit_interval("width_prob", validate.scalar("width_prob", width_prob),
                                                  open_=True))
    if coverage_tol is not None:
        coverage_tol = float(validate.unit_interval("coverage_tol", validate.scalar("coverage_tol", coverage_tol),
                                                    open_=False))
    n_max = int(validate.counts("n_max", validate.scalar("n_max", n_max), minimum=1,
                                maximum=N_MAX_AT_P if p_grid.size == 1 else EXACT_N_MAX))
    horizon = int(validate.counts("horizon", validate.scalar("horizon", horizon), minimum=0))

    parts = []
    if width is not None:
        parts.append(f"P(width <= {width:g}) >= {width_prob:g}" if width_prob is not None
                     else f"mean width <= {width:g}")
    if coverage_tol is not None:
        parts.append(f"coverage >= {1 - d - coverage_tol:g}")
    target = " and ".join(parts) + f" {where}"

    cache: dict[int, dict] = {}

    def perf(n: int, covered: bool = coverage_tol is not None) -> dict:
        if n not in cache:
            r = performance(m.name, n, p_grid, d, side, width if width_prob is not None else None, **params)
            cache[n] = {"n": n, "mean_width": float(np.max(r["mean_width"]))}
            if "prob_width" in r:
                cache[n]["prob_width"] = float(np.min(r["prob_width"]))
        if covered and "min_coverage" not in cache[n]:  # exact infimum: only when a target or the table needs it
            cache[n]["min_coverage"] = min_coverage(m.name, n, p_grid[0], p_grid[-1], d, side, **params)
        return cache[n]

    def holds(n: int) -> bool:
        r = perf(n)
        ok = True
        if width is not None:
            ok &= (r["prob_width"] >= width_prob - _TOL) if width_prob is not None else r["mean_width"] <= width + _TOL
        if coverage_tol is not None:
            ok &= r["min_coverage"] >= 1 - d - coverage_tol - _TOL
        return bool(ok)

    n = _search(holds, n_max, horizon, target=target)
    if n is None:
        raise ValueError(f"n_max: no n <= {n_max:,} meets the target ({target}); raise n_max or relax the target")
    evaluations = len(cache)
    sizes = sorted({min(n_max, max(1, round(n * f))) for f in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0)} | {n})
    table = tuple({key: row[key] for key in ("n", "mean_width", "min_coverage", "prob_width") if key in row}
                  for row in (perf(s, covered=True) for s in sizes))
    targets = {"width": width, "assurance": width_prob,
               "coverage": None if coverage_tol is None else 1 - d - coverage_tol}
    return PlanResult(n, m.name, d, side, target, tuple(float(v) for v in p_grid), table, params, horizon,
                      evaluations, targets={k: v for k, v in targets.items() if v is not None})


def coverage_ceiling(coverage: float, delta: float) -> float:
    """``coverage`` if at most 1 - delta, else ValueError: an interval at level 1 - delta covers
    about 1 - delta at large n, so a higher target is a different level, not a larger size."""
    if coverage > 1 - delta + _TOL:
        raise ValueError(f"coverage must be at most 1 - delta = {1 - delta:g} (the interval's level), got {coverage:g}; "
                         f"for a higher coverage lower delta (delta = 1 - coverage)")
    return coverage


def _search(holds, n_max: int, horizon: int, start: int = 1, target: str = "", work=None) -> int | None:
    """The first n >= start found with holds(n') for all n' in [n, n + horizon] (module docstring);
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
                             f"~30 CPU-s) by n = {n:,} without an answer; plan by Monte Carlo (reps=...) or lower n_max")
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


def _p_grid(p, p_range, points) -> tuple[np.ndarray, str]:
    if (p is None) == (p_range is None):
        raise ValueError("p: give exactly one of p (a number in [0, 1]) and p_range (lo, hi)")
    if p is not None:
        value = float(validate.unit_interval("p", validate.scalar("p", p), open_=False))
        return np.array([value]), f"at p = {value:g}"
    lo, hi = validate.p_range(p_range)
    points = int(validate.counts("p_points", validate.scalar("p_points", points), minimum=1, maximum=P_POINTS_MAX))
    grid = np.linspace(lo, hi, points)
    if lo < 0.5 < hi:
        grid = np.union1d(grid, [0.5])
    return grid, f"for p in [{lo:g}, {hi:g}] (width at {grid.size} points, coverage at every p)"


def _positive(name, value) -> float:
    x = validate.number(name, value, "(0, 1]")
    if not (math.isfinite(x) and 0 < x <= 1):
        raise ValueError(f"{name} must be a number in (0, 1], got {value!r}")
    return x


def size_performance(method: str, size: int, width: float | None = None, *, design: str = "binomial",
                     metric: str | None = None, delta: float = 0.05, reps: int | None = None, seed: int | None = 0,
                     **axes_and_params) -> dict:
    """The planner's table row at one size: what a test set of that size gives.

    Parameters
    ----------
    method : str
        An interval method of the design's kind and metric.
    size : int
        The value of the design's size axis (``n``; unpaired ``n1``; clustered ``clusters``).
    width : float, optional
        Also P(width <= width), e.g. the assurance of a plug-in answer.
    design, metric, delta : optional
        As for ``plan``.
    reps, seed : int, optional
        None: exact where the design allows, else 1000 simulated test sets; an integer: that
        many simulated test sets, from streams seeded by ``seed``.
    **axes_and_params
        The design's other axes (as for ``plan``) and the method's parameters.

    Returns
    -------
    dict
        The size, the design's other sizes (n_pos, n_neg, n2 ...), ``mean_width``,
        ``prob_width`` (with ``width``), ``coverage``; Monte Carlo also ``sd_width``.

    Examples
    --------
    >>> from covstudy import size_performance
    >>> row = size_performance("wilson", 141, width=0.1, p=0.9)
    >>> round(row["mean_width"], 4), round(row["prob_width"], 3)
    (0.0991, 0.559)
    """
    from ..designs import get_design
    from .sizing import plan_design

    return plan_design(method, get_design(design).name, metric, delta, width, None, None,
                       "two-sided", reps, seed, 10**15, 0, False, dict(axes_and_params), at=size)
