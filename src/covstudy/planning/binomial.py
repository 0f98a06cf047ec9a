"""The exact binomial planner: the smallest n whose intervals meet a target, by the exact engine.

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

The answer is the smallest n at which the targets hold and keep holding for ``horizon`` more
sizes (search.first_lasting_size, whose docstring says why and how).

In the planning wing: ``plan.plan()`` (the door) calls ``plan_binomial`` for the binomial design
on accuracy with no Monte Carlo, plug-in or power target; it returns ``search.PlanResult``.
Imports ``search`` only of the planners.
"""

from __future__ import annotations

import math

import numpy as np

from .. import validate
from ..designs import _supported_pmf
from ..engine.exact_curve import EXACT_N_MAX, infimum
from ..engine.measures import measures
from ..methods import get
from .search import TOL, PlanResult, first_lasting_size

# The exact binomial planner's largest n_max: at one p the pmf's support (~40·sqrt(n) k) is
# cheap; over a range it is ~(hi - lo)·n k, bounded as for exact curves (exact_curve.EXACT_N_MAX).
N_MAX_AT_P = 10**8
P_POINTS_MAX = 1000  # p of a range at which the width targets are checked: each one's pmf every size


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
        r = measures(pmf, lower[s], upper[s], pi, width=size[s], max_width=None if width is None else width + TOL)
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


def plan_binomial(method: str, delta: float = 0.05, p: float | None = None, width: float | None = None,
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
            ok &= (r["prob_width"] >= width_prob - TOL) if width_prob is not None else r["mean_width"] <= width + TOL
        if coverage_tol is not None:
            ok &= r["min_coverage"] >= 1 - d - coverage_tol - TOL
        return bool(ok)

    n = first_lasting_size(holds, n_max, horizon, target=target)
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
