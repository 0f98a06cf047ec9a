"""Test-set size planning under any design: the smallest size meeting a target, on the design's
own size axis (``Design.size_axis``: n at a prevalence, n1 at a ratio n2/n1, clusters at a
cluster size), the other axes fixed as given.

Targets (several given: all must hold) at the point:

    width w:                     E[width] <= w
    width w, assurance 1 - γ:    P(width <= w) >= 1 - γ
    coverage c:                  coverage >= c   (c = 1 - delta - ε)

Engines:

* exact, where the design enumerates its outcomes and the method draws no random numbers:
  the binomial planner's sawtooth-aware search (search.first_lasting_size: the first n that meets
  the target and keeps meeting it for ``horizon`` more sizes) on exact measures (engine.core.Evaluator);
* Monte Carlo otherwise (or with ``reps``): stochastic_root.solve, a seeded, deterministic
  root-finder; ``PlanResult.n_interval`` is the 95% interval of the root from its Monte Carlo
  error; several targets: the largest of their roots;
* plug-in (``plugin=True``, width only): presize's answer (Haynes et al. 2021), the real size
  at which the interval computed at the *expected* counts (``Design.expected``: k = n·p, ...)
  has width w, by Brent's method; ``.n`` is its ceiling.

In the planning wing: ``plan.plan()`` (the door) calls ``plan_design`` for every design but the
exact binomial one, and ``plan.size_performance()`` for one size's row; it imports ``search``
(PlanResult, the search) and ``stochastic_root`` below it, never ``plan`` or ``binomial``.
"""

from __future__ import annotations

import math

import numpy as np

from .._lazy import optimize
from .. import validate
from ..designs import DESIGNS, get_design
from ..engine.core import Analysis, Evaluator, infeasible
from ..engine.coverage import design_points
from ..estimands import get_estimand
from .search import TOL, PlanResult, coverage_ceiling, first_lasting_size
from .stochastic_root import solve

DEFAULT_REPS = 1000  # simulated test sets per size for the Monte Carlo planner
_FACTORS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0)  # the plug-in table's sizes, as multiples of the answer


def _estimand(d, metric: str | None):
    """The design's estimand ``metric`` (its default if None); a metric of other designs only is a one-line
    error naming them (recall: "--design stratified"), as a user asking for it under the binomial design
    needs the design that takes it."""
    from ..designs import DESIGNS
    from ..estimands import ESTIMANDS, estimands_for

    try:
        return get_estimand(d.data, d.estimand if metric is None else metric)
    except ValueError:
        takers = [name for name, other in DESIGNS.items() if (other.data, metric) in ESTIMANDS]
        if not takers:
            raise
        own = ", ".join(e.name for e in estimands_for(d.data))
        them = f"the designs {', '.join(takers[:-1])} and {takers[-1]} take it" if len(takers) > 1 else \
            f"the design {takers[0]} takes it"
        raise ValueError(f"metric: {metric} is not a metric of the {d.name} design (its metrics: {own}); {them}: "
                         f"pass --design {takers[0]} (design={takers[0]!r} in Python)") from None


def plan_design(method: str, design: str, metric: str | None, delta: float, width: float | None,
                assurance: float | None, coverage: float | None, side: str, reps: int | None, seed: int | None,
                n_max: int, horizon: int, plugin: bool, given: dict, at: int | None = None,
                power: float | None = None, null: float | None = None):
    """The planner for any design (module docstring); ``given``: the axes and the method's parameters.
    ``at``: no search, the table row of that size only (``size_performance``)."""
    d = get_design(design)
    est = _estimand(d, metric)
    m = est.method(method)
    m.check_side(side)
    names = {a.name for a in d.axes}
    if d.size_axis in given:
        raise ValueError(f"{d.size_axis}: the planner solves for {d.size_axis}; give the other axes only")
    extra = {k: given.pop(k) for k in list(given) if k in d.plan_axes}
    for k, v in given.items():  # the planner plans at one point: one value an axis (sampling=[] is none)
        if k in names and isinstance(v, (list, tuple, np.ndarray)):
            raise ValueError(f"{k}: the planner plans at one point; give one value, got {v!r}")
    for k, v in extra.items():
        x = validate.number(k, v, "> 0")
        if not (math.isfinite(x) and x > 0):
            raise ValueError(f"{k} must be a finite number > 0 ({d.plan_axes[k][1]}), got {v!r}")
        extra[k] = x
    axes = {**{k: given.pop(k) for k in list(given) if k in names}, **extra}
    set_by_planner = set(d.sized({}, 10))  # the size and what follows from it (unpaired n2)
    usable = [k for k in [*(a.name for a in d.axes), *d.plan_axes] if k not in set_by_planner and (
        k in d.optional or k in d.plan_axes or any(k in o and d.size_axis in o for o in d.parametrisations))]
    for key in [*given, *axes]:  # another design's axis, or one the planner sets, is a mistake
        if key in axes and key in usable:
            continue
        if key in axes or any(key in {a.name for a in o.axes} | set(o.plan_axes) for o in DESIGNS.values()):
            raise ValueError(f"{key}: not an axis the planner takes for design {d.name}; give {', '.join(usable)}")
    params = m.validate_params(given)
    delta = float(validate.delta(validate.scalar("delta", delta)))
    if width is None and coverage is None and power is None and at is None:
        raise ValueError("target: give width (and optionally assurance), coverage and/or power")
    if power is not None:
        power = float(validate.unit_interval("power", validate.scalar("power", power), open_=True))
        if null is None and est.null is None:
            raise ValueError(f"null: give the value the interval must exclude (the {est.name} has no default null)")
        low = -1.0 if est.null == 0 else 0.0  # a difference of two metrics, or a metric in [0, 1]
        valid = f"[{low:g}, 1]"
        null = validate.number("null", est.null if null is None else null, valid)
        if not low <= null <= 1:  # NaN fails too
            raise ValueError(f"null must be in {valid} (the range of the {est.name}), got {null!r}")
    if width is not None:
        width = validate.number("width", width, "(0, 2]")
        if not (math.isfinite(width) and 0 < width <= 2):
            raise ValueError(f"width must be a number in (0, 2], got {width!r}")
        if side != "two-sided":
            raise ValueError(f"side: the width target of design {d.name} is a two-sided interval's; got {side!r}")
    if assurance is not None:
        if width is None:
            raise ValueError("assurance needs width (P(width <= width) >= assurance)")
        assurance = float(validate.unit_interval("assurance", validate.scalar("assurance", assurance), open_=True))
    if coverage is not None:
        coverage = float(validate.unit_interval("coverage", validate.scalar("coverage", coverage), open_=True))
        coverage = coverage_ceiling(coverage, delta)
    if at is not None:
        plugin = False
    if plugin and (width is None or assurance is not None or coverage is not None or power is not None):
        raise ValueError("plugin: the plug-in answer has a width target only (no assurance, no coverage)")
    n_min = int(d.axis(d.size_axis).low) + (1 if d.axis(d.size_axis).low_open else 0)
    n_max = int(validate.counts("n_max", validate.scalar("n_max", n_max), minimum=n_min))
    horizon = int(validate.counts("horizon", validate.scalar("horizon", horizon), minimum=0))
    exact = reps is None and d.exact_engine and d.plans_exact and not m.per_test_set and not plugin
    if not exact and not plugin:
        reps = DEFAULT_REPS if reps is None else reps
        reps, seed = validate.reps_and_seed(reps, seed)
    else:
        reps, seed = None, None
    [probe], _ = design_points(d, d.sized({k: v for k, v in axes.items()}, max(n_min, 10)))  # axes checked
    analysis = Analysis(m, tuple(params.items()), est, delta, side, reps, seed,
                        max_width=None if width is None else width + TOL, null=null if power is not None else None)
    n_min = _smallest(d, axes, n_min)
    evaluator = Evaluator(d)
    work: dict[int, int] = {}  # size -> outcomes scored there (bounds the search's work)
    generate = evaluator.exact

    def exact_outcomes(points, merge):
        outcomes = generate(points, merge)
        work[points[0].get(d.size_axis)] = outcomes.weight.shape[-1]
        return outcomes

    evaluator.exact = exact_outcomes
    ints = [a.name for a in d.axes if a.integer and a.name != d.size_axis]
    cache: dict[int, dict] = {}

    def point(n: int) -> dict:
        [pt], _ = design_points(d, d.sized(dict(axes), n))
        return pt

    def perf(n: int) -> dict:
        if n not in cache:
            pt = point(n)
            problem, _ = infeasible(d, [pt], analysis)
            if problem:
                hint = "; plan by Monte Carlo (reps=...)" if exact and d.check(pt, False) is None else ""
                raise ValueError(f"{problem} (the planner reached {d.size_axis} = {n:,}){hint}")
            [out] = evaluator.score([pt], [(analysis, [0])])
            row = {d.size_axis: n, **{k: pt[k] for k in ints if k in pt},
                   "mean_width": float(out["mean_width"][0])}
            if width is not None:
                row["prob_width"] = float(out["prob_width"][0])
            row["coverage"] = float(out["coverage"][0])
            if power is not None:
                row["power"] = float(out["excludes_zero"][0])
            if reps is not None:
                row["sd_width"] = float(out["sd_width"][0])
            cache[n] = row
        return cache[n]

    if at is not None:
        return perf(int(validate.counts(d.size_axis, validate.scalar(d.size_axis, at), minimum=n_min)))
    parts = []
    if width is not None:
        parts.append(f"P(width <= {width:g}) >= {assurance:g}" if assurance is not None else f"mean width <= {width:g}")
    if coverage is not None:
        parts.append(f"coverage >= {coverage:g}")
    if power is not None:
        parts.append(f"P(interval excludes {null:g}) >= {power:g}")
    where = ", ".join(f"{k} = {v}" if isinstance(v, str) else f"{k} = {v:g}" for k, v in axes.items())  # sampling
    target = " and ".join(parts) + (f" at {where}" if where else "")
    n_interval = n_continuous = None

    if plugin:
        n_continuous = _plugin(d, est, m, axes, params, delta, side, width, n_min, n_max)
        n = max(n_min, math.ceil(n_continuous - 1e-9))
        target = f"plug-in width <= {width:g} at the expected counts" + (f", {where}" if where else "")
        engine = "plug-in"
    elif exact:
        def holds(n: int) -> bool:
            r = perf(n)
            ok = True
            if width is not None:
                ok &= r["prob_width"] >= assurance - TOL if assurance is not None else r["mean_width"] <= width + TOL
            if coverage is not None:
                ok &= r["coverage"] >= coverage - TOL
            if power is not None:
                ok &= r["power"] >= power - TOL
            return bool(ok)

        # work.pop: a size's outcomes count once, however often the search asks about it
        n = first_lasting_size(holds, n_max, horizon, start=n_min, target=target, work=lambda n: work.pop(n, 0))
        if n is None:
            raise ValueError(f"n_max: no {d.size_axis} <= {n_max:,} meets the target ({target}); "
                             f"raise n_max or relax the target")
        engine = "exact"
    else:
        start = n_min
        if width is not None and d.expected(axes, 1.0) is not None:  # the plug-in answer: a close start
            start = max(n_min, math.ceil(_plugin(d, est, m, axes, params, delta, side, width, n_min, n_max)))
        else:
            start = max(n_min, 32)
        roots = []
        if width is not None and assurance is None:
            roots.append(solve(lambda n: (perf(n)["mean_width"], perf(n)["sd_width"]), "width", width, start,
                               n_min, n_max, reps, "width"))
        if assurance is not None:
            roots.append(solve(lambda n: round(perf(n)["prob_width"] * reps), "rate", assurance, start,
                               n_min, n_max, reps, "assurance"))
        if coverage is not None:
            roots.append(solve(lambda n: round(perf(n)["coverage"] * reps), "rate", coverage, start,
                               n_min, n_max, reps, "coverage"))
        if power is not None:
            roots.append(solve(lambda n: round(perf(n)["power"] * reps), "rate", power, start,
                               n_min, n_max, reps, "power"))
        binding = max(roots, key=lambda r: r.n_star)
        n = max(n_min, math.ceil(binding.n_star - 1e-9))
        n_interval = (binding.low, binding.high)
        engine = "mc"
    evaluations = len(cache)
    if engine == "plug-in":  # the plug-in width itself (the exact measures there: coverage() or a plan)
        rows = [{d.size_axis: s, "plugin_width": plugin_width(d, est, m, axes, params, delta, side, s)}
                for s in sorted({max(n_min, round(n * f)) for f in _FACTORS} | {n})]
    else:  # the sizes the search evaluated (exact: up to the answer, and the largest; no new work)
        sizes = sorted(cache) if engine == "mc" else sorted({s for s in cache if s <= n} | {max(cache)})
        rows = [dict(perf(s)) for s in sizes]
        for row in rows:
            if reps is not None:
                row["mcse_width"] = row.pop("sd_width") / math.sqrt(reps)
    return PlanResult(n, m.name, delta, side, target, (), tuple(rows), params, horizon, evaluations,
                      design=d.name, metric=est.name, size_axis=d.size_axis, point=dict(axes), engine=engine,
                      reps=reps, seed=seed, n_interval=n_interval, n_continuous=n_continuous,
                      targets={k: v for k, v in (("width", width), ("assurance", assurance), ("coverage", coverage),
                                                 ("power", power), ("null", null)) if v is not None})


def _smallest(d, axes: dict, n_min: int) -> int:
    """The smallest size at which the point exists (multiclass: n >= K; binormal: two of each class)."""
    for n in range(n_min, n_min + 1000):
        try:
            [pt], _ = design_points(d, d.sized(dict(axes), n))
        except ValueError:
            continue
        # existence only (the design's check without the exact engine): the exact engine's limits grow with the
        # size, so skipping sizes for them would start past every size the design allows; they are reported later
        problem = d.check(pt, False)
        if problem is None or not problem.startswith(f"{d.size_axis}:"):  # other problems are reported later
            return n
    return n_min


def plugin_width(d, est, m, axes: dict, params: dict, delta: float, side: str, size: float) -> float:
    """The width of the interval at the expected counts of a test set of real size ``size``."""
    columns = d.expected(axes, float(size))
    lower, upper = est.bounds(m, {k: np.asarray(v, dtype=float) for k, v in columns.items()}, delta, side, **params)
    return float(np.asarray(upper) - np.asarray(lower))


def _plugin(d, est, m, axes, params, delta, side, width, n_min, n_max) -> float:
    """presize's answer: the real size at which ``plugin_width`` = width (Brent's method on a
    bracket found by doubling from the smallest size)."""
    if d.expected(axes, 1.0) is None:
        raise ValueError(f"plugin: design {d.name} has no expected outcome to plug in; plan its expected width "
                         f"or assurance instead")

    def allowed(size) -> bool:  # judged: labelled < examples; beyond, the expected counts mean nothing
        try:
            [pt], _ = design_points(d, d.sized(dict(axes), math.ceil(size)))
        except ValueError:
            return False
        return d.check(pt, False) is None

    def f(size):
        with np.errstate(invalid="ignore", divide="ignore"):
            return plugin_width(d, est, m, axes, params, delta, side, size) - width if allowed(size) else math.nan

    lo = float(max(n_min, 1))
    if f(lo) <= 0:
        return lo
    hi = lo
    while f(hi) > 0:
        lo, hi = hi, hi * 2
        if hi > n_max:
            raise ValueError(f"n_max: the plug-in width exceeds {width:g} up to n_max = {n_max:,}")
    if not f(hi) <= 0:  # past the largest size the design allows: the width's least value below it decides
        top = hi
        while top - lo > 1e-6 * top:  # bisection for the last allowed size
            mid = (lo + top) / 2
            lo, top = (mid, top) if allowed(mid) else (lo, mid)
        best = optimize.minimize_scalar(f, bounds=(float(max(n_min, 1)), lo), method="bounded")
        if not best.fun <= 0:
            raise ValueError(f"width: the plug-in width stays above {width:g} at every {d.size_axis} the design allows "
                             f"(its least is {best.fun + width:.4g}, at {d.size_axis} ≈ {best.x:,.0f}); widen it")
        lo, hi = float(max(n_min, 1)), best.x
    return float(optimize.brentq(f, lo, hi, xtol=1e-9, rtol=1e-12))

