"""The audit: each interval method's coverage at a metric's operating point and the worst over its region.

Input: a metric's spec from ``metrics`` (design, plug-in point first, region points or the binomial
region) and a method; output: the audit columns of the table (coverage_at_estimate, coverage_mcse,
worst_coverage, worst_mcse, mean_width, engine, reps). Every number is ``coverage()`` (engine wing) at the
points: exact wherever the design's exact engine accepts them, otherwise Monte Carlo with ``reps``
simulated test sets (fixed seed, shared by every method at a point) and its MCSE. Methods that draw random
numbers per test set (bootstrap resamples, posterior samples) are audited by Monte Carlo within BOOT_BUDGET
random numbers for the whole audit, at most BOOT_REPS test sets a point. ``worst_coverage`` is the
exact infimum over the region for the one-proportion metrics; certified by branch and bound (``certify``)
for the stratified metrics and the paired accuracy difference with deterministic methods; else searched
(``search``) over the spec's box, within SEARCH_TEST_SETS test sets (points × reps; a bootstrap
BOOT_SEARCH_POINTS points), the same seed at every point; the AUC also over test sets from the user's
smoothed scores (``empirical``), the lower of the two. A Monte Carlo search runs a pilot first (two points on
a fifth of the test sets, then on all): a method that clearly fails stops there. A Monte Carlo worst that is not
decided (within Z_MCSE MCSE of the floor) is decided at its point on fresh test sets (``decide``), within
DECIDE_TEST_SETS (a drawing method: what its budget leaves). The 3-coordinate paired rows are searched on exact
tensor grids (``certify.grid_search``), then, up to THREE_CERTIFY_OUTCOMES outcomes, certified from the lowest
point found (``certify_concordant``, within THREE_WORK). Flow: metrics -> audit -> recommend (reads the
columns) and growth (reuses ``coverage_over`` and the reps rules); the audit knows nothing of the
recommendation or the report.
"""

from __future__ import annotations

import hashlib
import math
from typing import TYPE_CHECKING

import numpy as np

from .._lazy import stats

if TYPE_CHECKING:
    from .metrics import Spec

REPS = 2000  # Monte Carlo test sets per audited point
AUC_BUDGET = 4_000_000  # AUC audit: reps <= AUC_BUDGET / n per region point (each rep draws and ranks n scores)
AUC_MIN_REPS = 200  # ... but at least this many; beyond AUC_AUDIT_MAX scores drawn a point, the AUC is not audited
AUC_AUDIT_MAX = 40_000_000  # AUC_MIN_REPS test sets of 200,000 scores: ~10 CPU-s a point
AUC_SCORES = 40_000_000  # scores one AUC method's whole audit may draw (both searches): beyond ~1,000 scores
# the searches get fewer points (five each at 10,000 scores and 400 test sets), no confirmation
BOOTSTRAP = {"bootstrap", "cluster_bootstrap"}  # resampling inside Monte Carlo: reps × draws resamples a point
EPSILON = 0.005  # tolerance of the recommendation: worst coverage >= 1 - delta - EPSILON
NOT_AUDITED = {"dirichlet"}  # posterior sampling to mc_error 1e-3 in each of reps test sets: too costly to audit
BOOT_REPS = 400  # Monte Carlo test sets per point for a method that draws (MCSE ≈ 0.011 at 0.95)
BOOT_MIN_REPS = 100  # fewer affordable than this: the method is not audited (MCSE would exceed 0.02)
BOOT_BUDGET = 200_000_000  # random numbers one drawing method's whole audit may make: test sets × draws × the
# numbers a draw makes (~4 CPU-s of Gamma variates; a 10-class macro-F1 posterior: 1,000 test sets)
CERTIFIED = {"stratified", "paired"}  # designs whose worst ``certify`` bounds (deterministic methods)
THREE_EXACT_OUTCOMES = 400_000  # a paired method reading the concordant split: searched on exact coverage up to
# this many outcomes (247,717 at n = 150), beyond by Monte Carlo
THREE_POINTS, THREE_STARTS = 17, 4  # a searched 3-coordinate box: a 17³ grid, then local grids from its 4 lowest
# points (~3 CPU-s at n = 150; at or below the 17³ grid's minimum by construction, tests/test_certify.py)
THREE_CERTIFY_OUTCOMES = 40_000  # ... up to this many outcomes (n ≈ 60), then certified by branch and bound
# (``certify_concordant``, closed to 0.002: ~0.6 CPU-s at n = 40, ~2-3.5 at n = 60; at n = 150, 160,000 outcomes,
# 0.003 short after ~19 CPU-s, so beyond the limit the row stays searched)
THREE_WORK = 2e8  # ... within this many outcome operations (~3 CPU-s), fewer when the budget cuts the audit
CERTIFY_OUTCOMES = 50_000  # beyond this many outcomes over the box the worst is searched on exact coverage
WINDOW_FROM = 2_000  # one proportion at n beyond this: the exact audit on the region's count window only
SEARCH_BOUND = 1e-8  # searched (not certified) exact audits: the count windows leave out at most this much of each
# class's probability (coverage low by < 2e-8, up to rounding), not support.BOUND's 1e-15: 0.6 times the outcomes
EXACT_OUTCOMES = 2_000_000  # beyond, searched by Monte Carlo (every outcome's interval would cost too much)
PAIRED_EXACT_OUTCOMES = 200_000  # the paired design's: no row-wise sums, and its melded and posterior intervals
# cost milliseconds each (500,000 outcomes at n = 10,000)
QUADRATURE = {"posterior", "posterior_jeffreys"}  # stratified methods whose every interval is solved by quadrature
QUADRATURE_EXACT_OUTCOMES = 100_000  # ... (~10 µs an end): beyond this many outcomes Monte Carlo (~3× fewer
# intervals; 250,000 outcomes at 3,000 positives and 7,000 negatives)
SEARCH_TEST_SETS = 60_000  # a search's budget: points × reps (30 points at 2,000 test sets)
PILOT_SHARE = 5  # a Monte Carlo search first runs with reps / PILOT_SHARE test sets a point ...
PILOT_MIN_REPS = 100  # ... (at least this many), and stops there when the method clearly fails:
PILOT_Z = 3.0  # its worst + PILOT_Z·MCSE below the floor
PILOT_POINTS = 2  # the pilot's points: the plug-in point, then the search's first start point
CONFIRM = 8  # ``decide``'s first batch at the worst point: CONFIRM × reps fresh test sets, then doubling
CONFIRM_Z = 3.0  # a searched Monte Carlo worst more than this many MCSE below the floor is decided without more
Z_MCSE = 2  # the decision: a Monte Carlo worst meets the target when worst - Z_MCSE·MCSE reaches the floor, fails
# when worst + Z_MCSE·MCSE is below it; else more test sets are drawn at its point (``decide``), within
PLUG_IN_DECIDE = 16  # a plug-in audit (one point, grouped metrics): at most this many times its test sets
DECIDE_TEST_SETS = 128_000  # fresh test sets at the worst point, at most (MCSE ≈ 0.0006 at 0.95); fewer where a
# test set costs more: an AUC's test sets of n scores (AUC_SCORES/n), a drawing method's budget (``draw_budget``)
SEARCH_MIN_POINTS = 12  # ... but at least this many points
BOOT_SEARCH_POINTS = 6  # a drawing method's search: at most this many points (each costs reps × draws draws)


def coverage_over(method, design, metric, axes: dict, delta, reps, seed):
    """``coverage()`` over the points (arrays, broadcast); exact if the design's engine takes
    them, else Monte Carlo."""
    from ..engine.coverage import coverage

    try:
        return coverage(method, design=design, metric=metric, delta=delta, **axes)
    except ValueError as e:
        if "Monte Carlo" not in str(e) and "no exact engine" not in str(e):
            raise
    return coverage(method, design=design, metric=metric, delta=delta, reps=reps, seed=seed, **axes)


def _summary(cov, mcse, width, engine, reps, points=None) -> dict:
    """The audit's columns from coverage, MCSE and mean width over the points (the plug-in first):
    the worst is searched, not certified (``worst_bound`` NaN)."""
    cov, mcse = np.asarray(cov, dtype=float), np.asarray(mcse, dtype=float)
    worst = int(np.argmin(cov))
    return {"coverage_at_estimate": float(cov[0]), "coverage_mcse": float(mcse[0]),
            "worst_coverage": float(cov[worst]), "worst_mcse": float(mcse[worst]), "worst_bound": np.nan,
            "worst_at": where(points[worst]) if points else "", "mean_width": float(width[0]),
            "engine": engine, "reps": reps, "audit": "searched"}


def where(point: dict) -> str:
    """A point of the region in words: its coordinates that vary (not the sizes)."""
    return ", ".join(f"{k} = {v:.4g}" for k, v in point.items()
                     if isinstance(v, float) and k not in ("n", "n_pos", "n_neg", "clusters", "cluster_size"))


def audit_point(method, design, metric, points: list[dict], delta, reps=REPS, seed=0, region=None,
                scale=None) -> dict:
    """Coverage at the plug-in point (``points[0]``) and the worst over ``points``; with ``region``
    (binomial design, exact engine) the worst is the exact infimum of the coverage over p in it, and
    ``scale`` (a strictly increasing map of p, e.g. BEA) maps the intervals' widths."""
    if region is not None:
        return _binomial_audit(method, points[0]["n"], points[0]["p"], delta, region, scale)
    axes = {k: np.array([p[k] for p in points]) for k in points[0]}
    r = coverage_over(method, design, metric, axes, delta, reps, seed)
    cov, mcse, width = (np.atleast_1d(np.asarray(getattr(r, a), dtype=float)) for a in ("coverage", "mcse",
                                                                                           "mean_width"))
    return _summary(cov, mcse, width, r.engine, r.reps, points)


def _binomial_audit(method, n, p, delta, region, scale=None) -> dict:
    """One proportion, exact, from one table of the n + 1 intervals: the coverage and expected
    width at p (as ``coverage()``), and the exact infimum of the coverage over p in ``region``
    (as ``confidence_coefficient(..., p_range=region)``: C(p) jumps at every interval end, so a
    grid misses its dips; the infimum may be a one-sided limit at an end, not attained)."""
    from ..designs.support import window
    from ..engine.exact_curve import ends, infimum

    # beyond WINDOW_FROM the k carrying all but support.BOUND for every p of the region (the rest never
    # covers, as ``infimum`` counts it): ~6,000 of the 10⁶ + 1 intervals at n = 10⁶
    first, last = (0, n) if n < WINDOW_FROM else (int(window(n, region[0])[0][0]), int(window(n, region[1])[1][0]))
    _, n, delta, _, lower, upper = ends(method, n, delta, k_range=(first, last))
    weight = stats.binom.pmf(np.arange(first, last + 1), n, p)
    cov = float(np.sum(weight[(lower <= p) & (p <= upper)]))
    width = float(np.sum(weight * (upper - lower) if scale is None else weight * (scale(upper) - scale(lower))))
    worst, at, side, _, _ = infimum(lower, upper, n, *region, k0=first)
    worst = min(float(worst), cov)
    limit = {"at": "", "left": " (the limit from the left)", "right": " (the limit from the right)"}[side]
    return {"coverage_at_estimate": cov, "coverage_mcse": 0.0, "worst_coverage": worst, "worst_mcse": 0.0,
            "worst_bound": worst, "worst_at": f"p = {at:.4g}{limit}", "mean_width": width, "engine": "exact",
            "reps": None, "audit": "certified"}


_SEARCHED: dict = {}  # (spec, the intervals' digest) -> certify's answer, for methods with identical intervals


def certified_audit(qualified, s: Spec, delta, work=None) -> dict:
    """Exact coverage at the plug-in point and the certified worst over the spec's box (``certify``):
    ``worst_coverage`` the lowest coverage found, ``worst_bound`` a certified lower bound of the infimum
    (after at most ``work`` outcome operations, certify.WORK if None: less work, a lower bound, still valid)."""
    from .certify import CERTIFIED_DIMENSIONS, certify, grid_search, paired_problem, stratified_problem
    from .certify_concordant import FIRST_GRID, PROBE, concordant_problem

    pt = s.points[0]
    size = _outcomes(qualified, s)
    limit = PAIRED_EXACT_OUTCOMES if s.design == "paired" else EXACT_OUTCOMES
    if s.design == "paired" and _reads_concordant(qualified):  # searched on tensor grids (``coverage_grid``)
        limit = THREE_EXACT_OUTCOMES
    if size > (QUADRATURE_EXACT_OUTCOMES if qualified.split(".")[-1] in QUADRATURE else limit):
        return None
    searched = size > CERTIFY_OUTCOMES  # not certified: windows of SEARCH_BOUND, the plug-in read off the problem
    bound = SEARCH_BOUND if searched else None
    three = s.design == "paired" and _reads_concordant(qualified)
    if s.design == "stratified":
        problem = stratified_problem(qualified, s.coverage_metric, pt["n_pos"], pt["n_neg"], s.box, delta, bound)
    elif three:  # (d, r, s), its outcomes laid out for ``certify_concordant``'s bound
        problem = concordant_problem(qualified, pt["n"], s.box, delta, bound)
    else:
        problem = paired_problem(qualified, pt["n"], s.box, delta, bound)
    x = np.array([[s.at[k] for k in problem.names]])
    # methods with the same intervals on every outcome (jeffreys, bayes, ...) have the same answer
    key = (s.design, s.coverage_metric, tuple(pt.items()), tuple(s.box.items()), delta, problem.names, work,
           hashlib.blake2b(problem.lower.tobytes() + problem.upper.tobytes(), digest_size=16).digest())
    found = _SEARCHED.get(key)
    if found is None:
        if len(problem.names) <= CERTIFIED_DIMENSIONS and size <= CERTIFY_OUTCOMES:
            found = certify(problem, x, work=work, decide=(1 - delta - EPSILON, 1 - delta))
        elif problem.rows is not None:  # exact coverage costs O(rows·log columns) a point: a dense search
            found = grid_search(problem, x, points=33, rounds=8)
        else:  # three coordinates (the paired methods reading the concordant split), or a large space
            found = grid_search(problem, x, points=THREE_POINTS, rounds=8, starts=THREE_STARTS)
            if three and size <= THREE_CERTIFY_OUTCOMES and found.worst >= 1 - delta - EPSILON:
                # certified from the lowest point the grids found (it fails at once if that is below the floor)
                at = np.array([[found.at[k] for k in problem.names]])
                found = certify(problem, at, work=THREE_WORK if work is None else min(work, THREE_WORK),
                                decide=(1 - delta - EPSILON, 1 - delta), grid=FIRST_GRID, probe=PROBE)
        if len(_SEARCHED) >= 256:
            _SEARCHED.clear()
        _SEARCHED[key] = found
    if searched:  # the box's outcomes hold the plug-in point's: its coverage and width off them (1e-10 of coverage())
        cov, width = float(problem.coverage(x)[0]), float(problem.mean_width(x)[0])
    else:  # coverage() itself (the same bits as the library)
        r = coverage_over(qualified, s.design, s.coverage_metric, {k: np.array([v]) for k, v in pt.items()}, delta,
                          None, None)
        cov, width = float(np.asarray(r.coverage).ravel()[0]), float(np.asarray(r.mean_width).ravel()[0])
    worst = min(found.worst, cov)
    # a point below the floor decides the row (it fails, exactly); the search stopped there, so its bound is loose
    bound = np.nan if worst < 1 - delta - EPSILON else found.bound
    return {"coverage_at_estimate": cov, "coverage_mcse": 0.0, "worst_coverage": worst,
            "worst_mcse": 0.0, "worst_bound": bound, "worst_at": where(found.at),
            "mean_width": width, "engine": "exact", "reps": None,
            "audit": "certified" if found.bound == found.bound else "searched"}  # grid_search: NaN


_OUTCOMES: dict = {}  # (design, point, box, concordant) -> outcome_count's answer (tens of ms each: many methods ask)


def _outcomes(qualified, s: Spec) -> int:
    """The outcomes ``certified_audit`` would enumerate over the spec's box."""
    from .certify import outcome_count

    concordant = s.design == "paired" and _reads_concordant(qualified)
    key = (s.design, tuple(s.points[0].items()), tuple(s.box.items()), concordant)
    if key not in _OUTCOMES:
        if len(_OUTCOMES) >= 1024:
            _OUTCOMES.clear()
        _OUTCOMES[key] = outcome_count(s.design, s.points[0], s.box, concordant)
    return _OUTCOMES[key]


def _reads_concordant(qualified) -> bool:
    """Whether a paired method reads the concordant split (both, neither), not only the discordant pairs: its
    coverage then depends on the third coordinate s (``certify.paired_problem``)."""
    from ..designs import get_design
    from ..estimands import get_estimand

    est = get_estimand(get_design("paired").data, "difference")
    return est.merge(est.method(qualified)) is None


def draws_per_test_set(qualified) -> int:
    """The random draws (resamples, posterior samples) a method makes per test set: 0 if it makes none."""
    from ..methods import methods

    return next((int(p.default) for p in methods()[qualified].params if p.name == "draws"), 0)


def draw_budget(qualified, s: Spec, point=None) -> int:
    """The test sets a drawing method's whole audit may simulate: BOOT_BUDGET random numbers over
    draws × the numbers one draw makes (a resample of n scores draws n; a K-class Dirichlet draw K²)."""
    point = point or (s.points[0] if s.points else {})
    numbers = {"binormal": point.get("n_pos", 0) + point.get("n_neg", 0), "clustered": point.get("clusters", 0),
               "stratified": 2, "paired_confusion": 8, "judged": 3, "paired_eval": 2 * point.get("groups", 0),
               "paired_binormal": 2 * (point.get("n_pos", 0) + point.get("n_neg", 0))}.get(s.design, 0) \
        or (len(s.multiclass[1]) ** 2 if s.multiclass is not None else 1)
    return BOOT_BUDGET // (max(draws_per_test_set(qualified), 1) * numbers)


def draw_reps(qualified, s: Spec, reps, point=None) -> int | None:
    """Test sets per point for a method that draws: at most BOOT_REPS, and the budget (``draw_budget``)
    spread over at least PILOT_POINTS points; None (not audited) below BOOT_MIN_REPS."""
    r = min(reps, BOOT_REPS, draw_budget(qualified, s, point) // PILOT_POINTS)
    return r if r >= BOOT_MIN_REPS else None


def draw_points(qualified, s: Spec, reps) -> int:
    """Points a drawing method's search may evaluate at ``reps`` test sets each: its budget's, at most
    BOOT_SEARCH_POINTS."""
    return int(min(BOOT_SEARCH_POINTS, draw_budget(qualified, s) // reps))


def audit_metric(s: Spec, method, qualified, delta, reps, seed, work=None, confirm=None) -> dict:
    """The audit columns of one metric × method (empty for a bootstrap too costly to audit): certified
    where ``certify`` covers the design and the method is deterministic (within ``work`` outcome operations,
    ``certified_audit``), else searched over the box; a Monte Carlo decision (``decide``) draws at most
    ``confirm`` test sets (None: its own budget, ``decide_budget``; the budget's plan, ``cost``, sets it)."""
    if method in NOT_AUDITED:
        return {}
    if s.plug_in_only:  # the grouped metrics beyond accuracy: Monte Carlo at the plug-in point (``plug_in``)
        from .plug_in import audit_plug_in

        return decide_plug_in(s, method, qualified, delta, seed, audit_plug_in(s, method, qualified, delta, reps, seed),
                              confirm)
    if s.box is not None and s.design in CERTIFIED and not _draws(qualified):
        out = certified_audit(qualified, s, delta, work)
        if out is not None:
            return out
        return searched_audit(qualified, s, delta, reps, seed, monte_carlo=True, confirm=confirm)  # too many outcomes
    points = None
    if draws_per_test_set(qualified):
        reps = draw_reps(qualified, s, reps)
        if reps is None:
            return {"note": f"not audited: {BOOT_MIN_REPS} test sets at {PILOT_POINTS} points would pass the audit's "
                            f"budget of {BOOT_BUDGET:.0e} random numbers for a method that draws (audit.BOOT_BUDGET)"}
        points = draw_points(qualified, s, reps)
    elif s.design in ("binormal", "paired_binormal"):
        size = examples(s.points[0])
        if AUC_MIN_REPS * size > AUC_AUDIT_MAX:
            return {"note": f"not audited: {AUC_MIN_REPS} simulated test sets of {size:,} scores a point is more "
                            f"than {AUC_AUDIT_MAX:.0e} scores (audit.AUC_AUDIT_MAX)"}
        reps = int(min(reps, max(AUC_MIN_REPS, AUC_BUDGET // size)))
        affordable = max(PILOT_POINTS, AUC_SCORES // (2 * reps * size))  # points a search, two searches
        points = affordable if affordable < search_budget(reps) else None
    if s.box is not None and s.point_of is not None:
        return searched_audit(qualified, s, delta, reps, seed, bounded=points is not None, points=points,
                              confirm=confirm)
    return audit_point(qualified, s.design, s.coverage_metric, s.points, delta, reps, seed, s.region, s.scale)


def search_budget(reps) -> int:
    """Points one search may evaluate: SEARCH_TEST_SETS test sets in all (points × reps), at least
    SEARCH_MIN_POINTS and at most search.MAX_POINTS (a method that draws: ``draw_points``)."""
    from .search import MAX_POINTS

    return min(MAX_POINTS, max(SEARCH_MIN_POINTS, SEARCH_TEST_SETS // max(int(reps or 1), 1)))


def _monte_carlo(s: Spec) -> bool:
    """Whether the spec's searched audit is Monte Carlo (no exact engine for its design)."""
    return s.multiclass is not None or s.design in ("binormal", "paired_binormal", "paired_confusion", "clustered",
                                                     "eval")


def searched_audit(qualified, s: Spec, delta, reps, seed, bounded=False, monte_carlo=False, pilot=False,
                   points=None, known=None, confirm=None) -> dict:
    """The worst coverage over the spec's box by the adaptive search (``search``): ``coverage()`` at each
    point (exact where the design's engine takes it, else Monte Carlo, the same seed at every point);
    the AUC also over test sets from the user's smoothed score distributions (``empirical``), the
    lower of the two worsts reported. Labelled ``searched`` (``worst_bound`` NaN). ``bounded``: an audit with a
    budget (a method that draws, an AUC of many scores), searched at ``points`` points, no confirmation."""
    from .search import search

    floor = 1 - delta - EPSILON
    mc = monte_carlo or _monte_carlo(s)
    pilot_reps = max(PILOT_MIN_REPS, int(reps or 0) // PILOT_SHARE)
    budget = points if bounded else search_budget(reps)
    known = {} if known is None else known  # (point, reps, seed) -> (coverage, MCSE, mean width), pilot and search
    if not pilot and reps and pilot_reps < reps and mc and budget > PILOT_POINTS:
        # sequential: the plug-in point and the first start point on a fifth of the test sets, then on all of
        # them; a method that clearly fails there is decided, only the rest pay for the whole search
        for stage in (pilot_reps, reps):
            first = searched_audit(qualified, s, delta, stage, seed, bounded, monte_carlo, pilot=True, points=points,
                                   known=known)
            if first["worst_coverage"] + PILOT_Z * first["worst_mcse"] < floor:
                return first
    budget = min(budget, PILOT_POINTS) if pilot else budget
    engine = known.setdefault("engine", {})  # the engine and reps of the last points measured
    project = s.project or (lambda c: c)

    def evaluate(coords, reps=reps, seed=seed):
        """(coverage, MCSE, mean width) at the coordinates; a point the pilot evaluated at these reps and seed
        is read from ``known`` (the pilot's second stage is the search's first two points)."""
        keys = [(tuple(sorted(c.items())), reps, seed) for c in coords]
        fresh = [c for c, k in zip(coords, keys) if k not in known]
        if fresh:
            measured = (np.atleast_1d(np.asarray(v, dtype=float)) for v in measure(fresh, reps, seed))
            for k, *values in zip([(tuple(sorted(c.items())), reps, seed) for c in fresh], *measured):
                known[k] = values
        return tuple(np.array([known[k][i] for k in keys]) for i in range(3))

    def measure(coords, reps, seed):
        coords = [project(c) for c in coords]
        if s.multiclass is not None:
            from ..engine.coverage import multiclass_coverage

            n, prevalence, _ = s.multiclass
            rs = [multiclass_coverage(s.metric, qualified, n, prevalence, s.point_of(c), delta=delta, reps=reps,
                                      seed=seed) for c in coords]
            engine.update(engine=rs[0].engine, reps=rs[0].reps)
            return [r.coverage for r in rs], [r.mcse for r in rs], [r.mean_width for r in rs]
        points = [s.point_of(c) for c in coords]
        axes = {k: np.array([p[k] for p in points]) for k in points[0]}
        if monte_carlo:
            from ..engine.coverage import coverage

            r = coverage(qualified, design=s.design, metric=s.coverage_metric, delta=delta, reps=reps, seed=seed,
                         **axes)
        else:
            r = coverage_over(qualified, s.design, s.coverage_metric, axes, delta, reps, seed)
        engine.update(engine=r.engine, reps=r.reps)
        return r.coverage, r.mcse, r.mean_width

    found = search(evaluate, s.box, s.at, budget)
    out = {"coverage_at_estimate": found.coverage, "coverage_mcse": found.coverage_mcse,
           "worst_coverage": found.worst, "worst_mcse": found.mcse, "worst_bound": np.nan,
           "worst_at": where(project(found.at)), "mean_width": found.width, "engine": engine["engine"],
           "reps": engine["reps"], "audit": "searched"}
    if pilot:
        return out
    at, used = found.at, found.points * int(reps or 0)
    if s.scores is not None:
        from .empirical import coverage_at, smoothed

        sm = smoothed(*s.scores)

        def tilted(c, reps=reps, seed=seed):
            return coverage_at(qualified, sm, [x["auc"] for x in c], delta, reps, seed)

        other = search(tilted, {"auc": s.box["auc"]}, {"auc": s.at["auc"]}, budget)
        used += other.points * int(reps or 0)
        if other.worst < out["worst_coverage"]:
            out.update(worst_coverage=other.worst, worst_mcse=other.mcse,
                       worst_at=f"{where(other.at)} (your smoothed score distributions)")
            evaluate, at = tilted, other.at
    worst, mcse = out["worst_coverage"], out["worst_mcse"]
    if out["engine"] == "mc" and reps and worst - Z_MCSE * mcse < floor <= worst + CONFIRM_Z * mcse:
        # not decided at the search's MCSE: fresh test sets at the worst point until it is (``decide``)
        budget = decide_budget(qualified, s, used)
        decided = decide(evaluate, at, worst, mcse, floor, int(reps), seed,
                         budget if confirm is None else min(budget, int(confirm)))
        if not decided and confirm is not None and confirm < budget and floor <= worst + Z_MCSE * mcse:
            decided = {"note": f"undecided: {worst:.4f} ± {mcse:.4f}, {worst - floor:+.4f} from the floor "
                               f"{floor:.3f}, and the budget (--budget) left no test sets to decide it at its worst "
                               f"point"}
        out.update(decided)
    return out


def decide_plug_in(s: Spec, method, qualified, delta, seed, out: dict, confirm=None) -> dict:
    """A plug-in audit (``plug_in``: Monte Carlo at one point) decided like a searched one (``decide``), within
    PLUG_IN_DECIDE times its test sets; a resampling method (its test sets cost draws each) is left as it is."""
    from ..engine.coverage import coverage
    from .plug_in import BOOTSTRAP as RESAMPLING, plug_in_reps

    worst, mcse, floor = out.get("worst_coverage"), out.get("worst_mcse"), 1 - delta - EPSILON
    if (worst is None or out.get("engine") != "mc" or method in RESAMPLING
            or not worst - Z_MCSE * mcse < floor <= worst + CONFIRM_Z * mcse):
        return out
    reps, params = plug_in_reps(method, s.design, s.points[0], out["reps"])

    def evaluate(coords, reps, seed):
        r = coverage(qualified, design=s.design, metric=s.coverage_metric, delta=delta, reps=reps, seed=seed,
                     **s.points[0], **params)
        return r.coverage, r.mcse, r.mean_width

    budget = PLUG_IN_DECIDE * reps if confirm is None else min(PLUG_IN_DECIDE * reps, int(confirm))
    out.update(decide(evaluate, {}, worst, mcse, floor, reps, seed, budget))
    return out


def decide_budget(qualified, s: Spec, used: int = 0) -> int:
    """The test sets ``decide`` may draw at one row's worst point: DECIDE_TEST_SETS; an AUC's at most AUC_SCORES
    scores; a drawing method's what its ``draw_budget`` leaves after the ``used`` test sets of its search."""
    if draws_per_test_set(qualified):
        return int(min(DECIDE_TEST_SETS, max(draw_budget(qualified, s) - used, 0)))
    if s.design in ("binormal", "paired_binormal"):
        return int(min(DECIDE_TEST_SETS, AUC_SCORES // max(examples(s.points[0]), 1)))
    return DECIDE_TEST_SETS


def decide(evaluate, at: dict, worst: float, mcse: float, floor: float, reps: int, seed: int,
           budget: int = DECIDE_TEST_SETS) -> dict:
    """The Monte Carlo decision at the worst point ``at``: batches of fresh test sets (seeds seed + 1, seed + 2,
    ...; the first CONFIRM × reps, then each as many as all before, so the total doubles), pooled, until the
    pooled coverage ± Z_MCSE·MCSE lies on one side of ``floor`` or the next batch would pass ``budget`` test sets.
    The search's own estimate there is left out: the lowest of many noisy points is biased low, a fresh one is not.
    ``evaluate(coords, reps, seed)`` -> (coverage, MCSE, mean width) arrays; pooled: c = Σ r_i·c_i / Σ r_i,
    MCSE = sqrt(Σ r_i²·MCSE_i²) / Σ r_i. Returns the audit columns it updates (``worst_coverage``, ``worst_mcse``,
    ``reps``: the test sets pooled) and, when still undecided, a ``note`` with the margin; {} when the budget
    does not allow one batch. Deterministic: the seeds are fixed, so the same seed gives the same verdict."""
    total, weighted, variance, batch, k = 0, 0.0, 0.0, int(reps) * CONFIRM, 1
    batch = min(batch, budget)
    if batch < int(reps):
        return {}
    c = m = float("nan")
    while batch > 0 and total + batch <= budget:
        cov, se = _batch(evaluate, at, batch, int(reps), seed + k)
        total, weighted, variance = total + batch, weighted + batch * cov, variance + (batch * se) ** 2
        c, m = weighted / total, math.sqrt(variance) / total
        if c - Z_MCSE * m >= floor or c + Z_MCSE * m < floor:
            return {"worst_coverage": c, "worst_mcse": m, "reps": total}
        batch, k = min(total, budget - total), k + 1
    return {"worst_coverage": c, "worst_mcse": m, "reps": total,
            "note": f"undecided after {total:,} test sets at its worst point: {c:.4f} ± {m:.4f}, {c - floor:+.4f} "
                    f"from "
                    f"the floor {floor:.3f}, within {Z_MCSE:g} MCSE ({Z_MCSE * m:.4f}) when its budget was spent"}


def _batch(evaluate, at, batch, reps, seed) -> tuple[float, float]:
    """(coverage, MCSE) of ``batch`` fresh test sets at ``at``: one call, or, where the engine refuses that many
    test sets at once for their memory (a large clustered test set: GBs), pooled over pieces of ``reps`` (as many as
    the search drew at a point), each its own seed (seed·1000 + piece)."""
    try:
        cov, se, _ = evaluate([at], reps=batch, seed=seed)
        return float(np.atleast_1d(cov)[0]), float(np.atleast_1d(se)[0])
    except ValueError as e:
        if not str(e).startswith("reps: Monte Carlo at") or batch <= reps:
            raise
    total, weighted, variance = 0, 0.0, 0.0
    for piece, start in enumerate(range(0, batch, reps)):
        size = min(reps, batch - start)
        cov, se, _ = evaluate([at], reps=size, seed=seed * 1000 + piece)
        cov, se = float(np.atleast_1d(cov)[0]), float(np.atleast_1d(se)[0])
        total, weighted, variance = total + size, weighted + size * cov, variance + (size * se) ** 2
    return weighted / total, math.sqrt(variance) / total


def _draws(qualified) -> bool:
    """Whether the method draws random numbers (bootstrap, posterior sampling): no exact engine."""
    from ..methods import methods

    return bool(methods()[qualified].per_test_set)


def examples(point: dict) -> int:
    """The examples a design point's test set holds: n, or n_pos + n_neg, or clusters × cluster size."""
    if "n" in point:
        return int(point["n"])
    if "n_pos" in point:
        return int(point["n_pos"] + point["n_neg"])
    if "questions" in point:
        return int(point["questions"] * point["answers"])
    return int(point["clusters"] * point["cluster_size"])
