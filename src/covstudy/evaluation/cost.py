"""The cost of ``evaluate``, forecast before any work, and the cuts that keep it within a budget.

The forecast, in CPU seconds of the whole command on one core, is a sum of parts, each a count of the
work it will do times a measured rate (``benchmarks/evaluate_cost.py`` measured the rates):

    OVERHEAD                                imports and reading the file
  + Σ_metrics intervals(n, methods)        every method's interval on the data (``intervals_seconds``)
  + Σ_audits reach × audit(job)            each metric × method audit that can run (``recommend.audit_order``: never
                                            a guaranteed row, nor one at least as wide on the data as the narrowest
                                            guaranteed row), the ones a cache entry answers excepted; ``reach`` the
                                            chance it runs at all (a metric's audit stops at the first candidate that
                                            meets the target: the k-th runs with chance FORECAST_FALLS_SHORT^k;
                                            the cuts plan for the worse FALLS_SHORT^k)
  + extras                                  the width-vs-n table (per metric, for the picks it can have: a closed
                                            form costs nothing, ``growth_seconds``) and the calibration rows

An audit's work follows ``audit.audit_metric``'s own rules: a one-proportion audit costs its count window;
a certified one its outcome operations (``certify``'s ``work``: outcomes × operations per outcome, at most
the job's cap); a Monte Carlo one its simulated test sets (reps × points the search may evaluate, the pilot
and the confirmation) times a test set's cost in its design (scores ranked, clusters drawn, resamples made).

The budget (``--budget``, default BUDGET) is a promise about the whole command. When the forecast passes it
the plan cuts, in this order, until it fits: (1) the resampling methods' audits (they are recommended only
for a gain of more than recommend.TIE in width, and cost the most) are left out; (2) the Monte Carlo audits'
test sets a point are divided (down to MIN_REPS), and the certified audits' outcome operations too (the bound
is then lower, still a lower bound: ``certify`` stops with the least bound over its cells). An audit heavier
than a metric's even share of the budget at the deepest cuts (``Job.heavy``) does not drive the cuts: it runs
only as its metric's first, at those deepest cuts. An audit that alone passes the budget (beside OVERHEAD) is not
run. Each metric's first audit runs whatever the outcomes: where those alone pass the budget by SLACK, the
costliest metrics' audits are left out, cheapest kept first (never one under CHEAP, nor the first of a metric
without a guaranteed method, which recommends only from an audit). With a finite budget no certified audit's outcome operations, and no Monte Carlo
decision's test sets (``Job.confirm``), pass what an even share buys. While the audits run, the plan charges
each one its own forecast, not the clock, and holds each metric's audits after its first to its share
(``Plan.share``: what is left, water-filled over the metrics not yet audited, so cheap audits are never
refused): a run's cuts depend on its inputs and budget only, never on the load of the machine, so its table is
the same on every run (and the cache's keys hold). Each cut row's note says what was cut.

Long because the forecast mirrors every kind of audit evaluate runs (one proportion, certified, searched and
decided by Monte Carlo, resampling, calibration, the width-vs-n table, the leaderboard), each beside its
measured rate, and the plan must see them all at once to cut them against one budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

RESAMPLES_MAX = 2 * 10**8  # draws × numbers resampled per draw of one resampling interval (~2 CPU-s)
BUDGET = 10.0  # CPU-s of the whole command by default (issue 56: the README example ≤ 10, every file ≤ 15)
BUDGET_ENV = "COVSTUDY_BUDGET"  # overrides BUDGET as the default (a number > 0, or inf), e.g. for a CI machine
OVERHEAD = 1.2  # CPU-s: importing numpy, scipy, pandas and covstudy's evaluation, reading a small file
MIN_REPS = 200  # a cut Monte Carlo audit keeps at least this many test sets a point (MCSE ≈ 0.015 at 0.95)
MIN_WORK = 3e7  # ... a cut certified audit at least this many outcome operations (the first grid's bounds)
CHEAP = 0.05  # CPU-s: a metric's first audit this cheap (one proportion's: milliseconds) is never left out
SLACK = 1.25  # while running, audits stop once the forecasts charged pass the budget by this factor

# Rates (CPU-s per unit of work; the 2-core machine of docs/evaluate.md "Cost", under load)
CERTIFY_RATE = 7e7  # outcome operations a second (``certify.Problem.work``)
CERTIFY_OPS = 8_000  # outcome operations an outcome, typical of a decided bound (1,000 to 30,000 measured)
BUILD_SECONDS = 3e-6  # an outcome's interval and its factors, built once (the slower methods, SLOW_BUILD: 4×)
FIRST_OPS = 2_500  # operations an outcome in certify's first round (its grid's cells), spent whatever the cap
SLOW_BUILD = {"blaker", "bonett_price", "posterior", "posterior_jeffreys", "bayes", "melded", "mid_p", "lrt",
              "exact_mcnemar", "exact_unconditional", "tango", "score"}
SET_SECONDS = {  # a Monte Carlo test set's cost (simulating it and its interval): (fixed, per unit)
    "binormal": (4e-6, 9e-8),  # unit: a score (drawn and ranked; 9e-8 measured at 10³ scores, load ~9)
    "paired_binormal": (6e-6, 1.2e-7),  # (the AUC difference's audit at 10³ scores: 1.0 CPU-s at 200 test sets)
    "clustered": (3e-6, 2e-8),  # unit: a cluster
    "clustered_confusion": (5e-6, 1.1e-7),  # unit: a cluster (clustered precision, recall, F1: 1.1e-3 CPU-s a test
    # set of 10⁴ clusters of 10, 5.5e-5 of 10³)
    "clustered_binormal": (5e-6, 5e-7),  # unit: a score (sorted, placements summed by cluster; measured at 10⁴)
    "multiclass": (5.7e-6, 6.8e-9),  # unit: K³ (K classes: a test set's K × K counts, each class's interval over
    # them; fitted to 1.3e-5 CPU-s a test set at K = 10 and 6e-5 at K = 20, 10³ rows, and ~6e-6 at K = 5)
    "eval": (4e-6, 2e-8),  # unit: a question
    # unit: a question; measured: coverage("paired_eval.clustered_t", 2,000 test sets, 10 groups, K = 3) took
    # 2.9e-4 s a test set at 100 questions and 2.4e-3 s at 1,000 (the copula's Beta quantiles, two runs)
    "paired_eval": (5e-5, 2.3e-6),
    "stratified": (3e-6, 0.0), "paired": (3e-6, 0.0), "paired_confusion": (2.5e-6, 0.0), "judged": (3e-6, 0.0),
}
POSTERIOR_SET = 1.5e-4  # a paired difference's posterior interval (``bayes``: quadrature) on one simulated test set
STRATIFIED_POSTERIOR_SET = 2e-5  # balanced accuracy's posterior interval on one simulated test set (10⁴ rows)
QUADRATURE_BUILD = {"posterior_jeffreys", "posterior"}  # an outcome's interval solved by quadrature on a lattice
# whose size grows with n: BUILD_SECONDS × sqrt(examples) an outcome (9e-5 CPU-s at 10³ examples, 2e-5 at 10²)
DRAW_FIXED = 3e-4  # a drawing method's interval on one simulated test set: fixed, and per number drawn
DRAW_SECONDS = {"binormal": 7e-9, "paired_binormal": 7e-9, "paired_confusion": 3.5e-8, "multiclass": 4e-8}
# (multiclass: macro F1's bayes at K = 5, 10⁵ rows, 2.7 CPU-s where 1.25e-7 forecast 9.2)
# multiclass posteriors solve each distinct outcome's interval by quadrature (remembered across test sets): their
# audit costs about rate × (K/10)^power × 10 × sqrt(n) CPU-s at 2,000 reps. posterior_jeffreys: power 1, measured at
# K = 5, 10 and n = 60, 100. posterior (Beta(1/(2K), 1/(2K)) prior, issue 57): ~190 CPU-s at K = 10, n = 100, 50 reps;
# power 3 fitted to that and to the forecast at K = 3 (tests/test_evaluate_cost.py), not measured between. Classes
# with no error have a singular end under that prior and the sum's lattice is made finer (methods/beta_mean_k.py).
SOLVED_SECONDS = {"posterior_jeffreys": (0.23, 1), "posterior": (12.0, 3)}  # method -> (rate, power)
DRAW_DEFAULT = 2e-8
BINOMIAL_SECONDS = (2e-3, 2e-7)  # a one-proportion audit: fixed, per count in its window
CONFIRM_SHARE = 0.3  # Monte Carlo audits whose worst needs the confirmation (CONFIRM × reps at one point)
FORECAST_FALLS_SHORT = 0.65  # ... as the printed forecast counts it: the cuts plan for FALLS_SHORT (the worse
# case), the forecast for what the matrix measured (a metric's first candidate mostly meets the target there)
FALLS_SHORT = 0.75  # chance a candidate falls short of the target, so that its metric's next is audited (the
# candidates are narrower than a guaranteed interval: most fall short somewhere in the region)
GROWTH_SETS = 1_600  # the width-vs-n table: 4 sizes × GROWTH_REPS test sets a metric, beyond one proportion
GROWTH_BINOMIAL = (0.06, 4.5e-5)  # ... a one-proportion metric's (exact widths, and the n for half the width,
# planned up to growth.HALF_N_MAX examples): fixed, per example (13.6 CPU-s for three metrics at 10⁵ rows)
GROWTH_SLOW = (0.4, 1.6e-3)  # ... a slow method's (Blaker's: 0.9 CPU-s at 300 examples, 1.8 at 700)
CALIBRATION_SECONDS = 1.5  # the calibration rows' own audit (ece_audit.ECE_BUDGET: about 2 CPU-s at most)
LEADERBOARD_SECONDS = (5e-3, 1e-7)  # a leaderboard's intervals: fixed, per row × model (reading each included)
LEADERBOARD_SET = (3e-4, 1.4e-4, 2.7e-8, 0.9e-8)  # ... a resampled test set of its audit: fixed, per model, per
# row, per row × model (measured at 2, 5 and 12 models, 10² to 10⁶ rows: 0.55 ms at 2 × 100, 79 ms at 5 × 10⁶)
LEADERBOARD_MIN_REPS = 100  # a cut leaderboard audit keeps at least these test sets (MCSE ≈ 0.02 at 0.95)
INTERVAL_SECONDS = (1e-3, 6e-9)  # a method's interval on the data: fixed, per row of the file (proba2, logit at 10⁶)
DRAW_INTERVAL_SECONDS = 1.3e-8  # ... a resampling method: per number resampled a draw, and draw (capped by
# RESAMPLES_MAX; the AUC's bootstrap measured at 10⁴ and 10⁵ scores)


def budget_value(value) -> float:
    """The budget in CPU seconds: a number > 0 (``inf``: no budget); an InputError (ValueError) naming the
    field and its range otherwise, before any work."""
    from .data import InputError

    text = str(value).strip()
    try:
        v = float(text)
    except (TypeError, ValueError):
        v = math.nan
    if isinstance(value, bool) or not v > 0:
        raise InputError(f"budget: a number of CPU seconds > 0 (or inf for none), got {text!r}")
    return v


def default_budget() -> float:
    """$COVSTUDY_BUDGET if set (checked as ``budget_value``), else BUDGET."""
    import os

    value = os.environ.get(BUDGET_ENV)
    if value is None:
        return BUDGET
    try:
        return budget_value(value)
    except ValueError:
        from .data import InputError

        raise InputError(f"{BUDGET_ENV}: a number of CPU seconds > 0 (or inf for none), got {value!r}") from None


@dataclass
class Job:
    """One metric × method audit in the plan: its forecast (CPU-s), its chance to run and its cut."""

    metric: str
    qualified: str
    seconds: float  # the forecast of the audit as cut
    reach: float
    reps: int | None = None  # test sets a point (None: the caller's)
    work: float | None = None  # certify's outcome operations (None: certify.WORK)
    skip: str = ""  # why it is not audited ("" : it is)
    cut: str = ""  # what was cut, for the row's note ("" : nothing)
    cached: bool = False
    heavy: bool = False  # more than its metric's even share of the budget even at the deepest cuts: runs only first
    confirm: int | None = None  # test sets a Monte Carlo decision may draw (None: the audit's own budget)


@dataclass
class Plan:
    """The forecast and the cuts of one ``evaluate`` call; ``charge`` keeps the running account."""

    budget: float
    forecast: float  # CPU-s, printed before the work
    fixed: float  # CPU-s of everything but the audits
    jobs: dict = field(default_factory=dict)  # (metric, qualified) -> Job
    cuts: list = field(default_factory=list)  # what was cut, in words, once each
    charged: float = 0.0  # forecasts of the audits that ran (a deterministic count of the work done)
    growth_reps: int | None = None  # the width-vs-n table's test sets a size, when cut
    most: dict = field(default_factory=dict)  # metric -> CPU-s of every one of its candidates' audits, in audit order
    spent: dict = field(default_factory=dict)  # metric -> CPU-s charged
    shares: dict = field(default_factory=dict)  # metric -> CPU-s its audits may be charged, set as its first runs

    def job(self, metric, qualified) -> Job | None:
        return self.jobs.get((metric, qualified))

    def admit(self, job: Job) -> str:
        """"" if the job may run; else why not. A metric's first audit runs (a cut one, within its caps) unless
        it alone passes the whole budget by SLACK: no metric goes unaudited because others came first, none costs
        minutes on its own. The later ones run within the metric's share (``share``: what is left of the budget
        as its first audit runs, water-filled over it and the metrics after it), by SLACK: a metric whose every
        audit costs little (one proportion's, milliseconds) is never stopped, the costly ones share what is left
        evenly, and what a metric leaves unused passes to the metrics after it. A heavy audit (more than a
        metric's even share of the budget at the deepest cuts) runs only as its metric's first."""
        if job.skip:
            return job.skip
        if job.seconds <= CHEAP:  # one proportion's exact audits: milliseconds, never worth refusing
            return ""
        if OVERHEAD + job.seconds > SLACK * self.budget:
            return (f"not audited: its audit alone (~{job.seconds:.3g} CPU-s) would pass the budget "
                    f"({self.budget:g} CPU-s, --budget)")
        share = self.share(job.metric)
        if self.spent.get(job.metric, 0.0) == 0:
            return ""
        if job.heavy:
            return (f"not audited: its audit alone (~{job.seconds:.3g} CPU-s) is more than a metric's share of the "
                    f"budget ({self.budget:g} CPU-s, --budget), and narrower methods were audited first")
        if self.spent[job.metric] + job.seconds > SLACK * share:
            return (f"not audited: this metric's audits spent its share of the budget ({self.budget:g} CPU-s, "
                    f"--budget) on narrower methods")
        return ""

    def share(self, metric) -> float:
        """The CPU-s a metric's audits may be charged, fixed as its first audit is admitted: what the budget has
        left then, water-filled (``water_fill``) over its and the later metrics' costs with every candidate
        audited (``most``)."""
        if metric not in self.shares:
            names = list(self.most)
            later = names[names.index(metric):] if metric in self.most else [metric]
            left = max(self.budget - self.fixed - self.charged, 0.0)
            self.shares[metric] = water_fill({m: self.most.get(m, 0.0) for m in later}, left)[metric]
        return self.shares[metric]

    def charge(self, job: Job) -> None:
        self.charged += job.seconds
        self.spent[job.metric] = self.spent.get(job.metric, 0.0) + job.seconds

    @property
    def work(self) -> float:
        """The forecast of the work the run did: its fixed part and the audits that ran."""
        return self.fixed + self.charged


def _units(s, qualified) -> float:
    """A simulated test set's size in its design's units (SET_SECONDS)."""
    from .audit import examples

    pt = s.points[0] if s.points else {}
    if s.multiclass is not None:
        return float(len(s.multiclass[1]) ** 3)
    if s.design in ("binormal", "paired_binormal"):
        return float(pt.get("n_pos", 0) + pt.get("n_neg", 0))
    if s.design in ("clustered", "clustered_confusion"):
        return float(pt.get("clusters", 0))
    if s.design == "clustered_binormal":
        return float(examples(pt))
    if s.design in ("eval", "paired_eval"):
        return float(pt.get("questions", examples(pt) if pt else 0))
    return 1.0


def _set_seconds(s, qualified) -> float:
    """A simulated test set's cost in the spec's design (SET_SECONDS), and a drawing method's resamples on it
    (DRAW_SECONDS a number: its draws × the numbers a draw makes, as ``audit.draw_budget`` counts them)."""
    from .audit import draw_budget, draws_per_test_set

    design = "multiclass" if s.multiclass is not None else s.design
    fixed, per = SET_SECONDS.get(design, (5e-6, 0.0))
    out = fixed + per * _units(s, qualified)
    if design in ("paired", "paired_confusion") and qualified.split(".")[-1] == "bayes":
        out += POSTERIOR_SET
    if design == "stratified" and qualified.split(".")[-1] in QUADRATURE_BUILD:
        out += STRATIFIED_POSTERIOR_SET
    draws = draws_per_test_set(qualified)
    if draws:
        from .audit import BOOT_BUDGET

        numbers = BOOT_BUDGET / max(draw_budget(qualified, s), 1)  # draws × numbers a draw makes
        out += DRAW_FIXED + DRAW_SECONDS.get(design, DRAW_DEFAULT) * numbers
    return out


def _search_sets(s, method, qualified, reps, confirm=None) -> tuple[float, int]:
    """(test sets a Monte Carlo audit simulates, its reps a point), following ``audit.audit_metric``: the
    decision's (``audit.decide``) with chance CONFIRM_SHARE, its first batch (a budgeted audit: its whole budget,
    which a method that draws, near the floor after its few test sets a point, mostly spends), at most
    ``confirm``."""
    from .audit import (AUC_AUDIT_MAX, AUC_MIN_REPS, AUC_BUDGET, AUC_SCORES, CONFIRM, PILOT_MIN_REPS, PILOT_POINTS,
                        PILOT_SHARE, decide_budget, draw_points, draw_reps, draws_per_test_set, examples,
                        search_budget)

    bounded = False
    if draws_per_test_set(qualified):
        r = draw_reps(qualified, s, reps)
        if r is None:
            return 0.0, 0
        points, bounded = draw_points(qualified, s, r), True
    elif s.design in ("binormal", "paired_binormal"):
        size = examples(s.points[0])
        if AUC_MIN_REPS * size > AUC_AUDIT_MAX:
            return 0.0, 0
        r = int(min(reps, max(AUC_MIN_REPS, AUC_BUDGET // size)))
        affordable = max(PILOT_POINTS, AUC_SCORES // (2 * r * size))
        points = affordable if affordable < search_budget(r) else search_budget(r)
        bounded = affordable < search_budget(r)
    else:
        r = int(reps)
        points = search_budget(r)
    sets = float(points * r)
    sets += PILOT_POINTS * max(PILOT_MIN_REPS, r // PILOT_SHARE)  # the pilot's first stage
    searched = float(points * r) * (2 if s.scores is not None else 1)
    decision = decide_budget(qualified, s, int(searched)) if bounded else CONFIRM * r
    sets += CONFIRM_SHARE * (decision if confirm is None else min(decision, confirm))
    if s.scores is not None:  # the smoothed-empirical search: as many points again
        sets += points * r
    return sets, r


def audit_seconds(s, method, qualified, reps, work=None, confirm=None) -> float:
    """The forecast CPU-s of ``audit.audit_metric(s, method, qualified, ...)`` at ``reps`` test sets a point,
    (certified audits) at most ``work`` outcome operations and (Monte Carlo) at most ``confirm`` test sets for the
    decision (module docstring)."""
    from .audit import (CERTIFIED, CERTIFY_OUTCOMES, EXACT_OUTCOMES, NOT_AUDITED, PAIRED_EXACT_OUTCOMES,
                        QUADRATURE, QUADRATURE_EXACT_OUTCOMES, THREE_CERTIFY_OUTCOMES, THREE_WORK, WINDOW_FROM, _draws,
                        _outcomes)
    from .certify import WORK

    if method in NOT_AUDITED:
        return 0.0
    if s.plug_in_only:
        from .audit import CONFIRM
        from .plug_in import plug_in_reps
        from .plug_in import BOOTSTRAP as RESAMPLING

        r, params = plug_in_reps(method, s.design, s.points[0], reps)
        if r and _refused_for_memory(s, r, params):
            return 0.0  # the engine refuses it before any work (its row says why)
        # as a searched audit's: the share of rows whose coverage needs ``decide``'s fresh test sets (not a
        # resampling method's: ``audit.decide_plug_in``), at most the plan's cap
        share = 0 if method in RESAMPLING else CONFIRM_SHARE * CONFIRM * (r or 0)
        return ((r or 0) + (share if confirm is None else min(share, confirm))) * _set_seconds(s, qualified)
    if s.region is not None:
        n = int(s.points[0]["n"])
        window = n + 1 if n < WINDOW_FROM else 12 * math.sqrt(n) + 50  # the region's counts (a few sd of n·p)
        slow = 10 if method in SLOW_BUILD else 1
        return BINOMIAL_SECONDS[0] + BINOMIAL_SECONDS[1] * slow * window
    if s.box is not None and s.design in CERTIFIED and not _draws(qualified):
        size = _outcomes(qualified, s)
        limit = PAIRED_EXACT_OUTCOMES if s.design == "paired" else EXACT_OUTCOMES
        if size <= (QUADRATURE_EXACT_OUTCOMES if qualified.split(".")[-1] in QUADRATURE else limit):
            build = size * BUILD_SECONDS * (4 if method in SLOW_BUILD else 1)
            if method in QUADRATURE_BUILD and size <= CERTIFY_OUTCOMES and len(s.box) <= 2:  # certify's outcomes
                from .audit import examples

                build = size * BUILD_SECONDS * math.sqrt(max(examples(s.points[0]), 1))
            d = len(s.box)
            if size <= CERTIFY_OUTCOMES and d <= 2:
                ops = max(min(size * CERTIFY_OPS, WORK if work is None else work), size * FIRST_OPS)
            elif s.design == "stratified":  # grid_search on row-wise sums: 33^d points and 8 rounds of 5^d
                ops = (33 ** d + 8 * 5 ** d) * math.sqrt(size) * 20  # (judge's precision: 0.09 CPU-s at 10⁴ rows)
                if method not in SLOW_BUILD:  # a formula's intervals by row, not every outcome's (0.3 CPU-s at
                    build = 0.0  # 572,198 outcomes, judge at 10⁵ rows)
            else:  # grid_search: 8^d points and 6 rounds of 5^d, each an exact coverage of every outcome
                ops = (8 ** d + 6 * 5 ** d) * size * (2 if d == 3 else 5)  # (d = 3: 2.4 CPU-s measured at 10³ rows)
                if d == 3 and size <= THREE_CERTIFY_OUTCOMES:  # then certify_concordant's branch and bound
                    ops += min(THREE_WORK, THREE_WORK if work is None else work)
            return build + ops / CERTIFY_RATE
    sets, _ = _search_sets(s, method, qualified, reps, confirm)
    solved = 0.0
    if s.multiclass is not None and method in SOLVED_SECONDS:
        # fewer test sets, fewer distinct outcomes to solve
        rate, power = SOLVED_SECONDS[method]
        solved = (rate * 10 * (len(s.multiclass[1]) / 10) ** power * math.sqrt(s.multiclass[0])
                  * min(1.0, math.sqrt(reps / 2000)))
    return sets * _set_seconds(s, qualified) + solved


def _refused_for_memory(s, reps, params) -> bool:
    """Whether Monte Carlo of ``reps`` test sets at the spec's point would pass the engine's memory limit
    (``engine.core.mc_bytes`` with every test set held: a clustered file of 10⁶ rows)."""
    from .. import validate
    from ..designs import get_design
    from ..engine.core import MC_BYTES_PER_NUMBER

    try:
        numbers = get_design(s.design).test_set_numbers(s.points[0])
    except Exception:  # a design without the count: not refused here
        return False
    return MC_BYTES_PER_NUMBER * numbers * (reps + params.get("draws", 0)) > validate.MC_BYTES_MAX


def intervals_seconds(s, n) -> float:
    """Every method's interval of one metric on n rows; a resampling method's draws × the numbers a draw
    resamples (the door's arrays, as ``result.resampling_cost`` counts them: a confusion matrix's bootstrap
    resamples its few counts, an AUC's every score), not computed past RESAMPLES_MAX."""
    from .audit import draws_per_test_set

    door = s.door or {}
    size = sum(int(np.size(v)) for v in door.values() if np.ndim(v) > 0)
    if "successes" in door and "sizes" in door:  # a cluster bootstrap draws multiplicities of the distinct clusters
        size = 2 * len(set(zip(np.asarray(door["successes"]).tolist(), np.asarray(door["sizes"]).tolist())))
    out = 0.0
    for _, _, qualified in s.methods:
        draws = draws_per_test_set(qualified)
        out += INTERVAL_SECONDS[0] + INTERVAL_SECONDS[1] * n
        if draws and draws * size <= RESAMPLES_MAX:  # beyond, not computed (``result.resampling_cost``)
            out += DRAW_INTERVAL_SECONDS * draws * size
    return out


def plan(specs, n, reps, audit, audit_all, budget, calibration=False, lookup=None, widths=None) -> Plan:
    """The forecast and the cuts (module docstring). ``widths``: {(metric, qualified): the interval's width on the
    data}, which decide the audits that can run (``recommend.audit_order``: never a guaranteed row, nor one at
    least as wide as the narrowest guaranteed row; a row missing from it was not computed, so not audited); None:
    every row not guaranteed is a candidate. ``lookup(s, qualified, reps, work)`` says whether a cache entry
    answers an audit: the cuts never depend on it (a second run cuts as the first did, so its keys are the first
    run's), only the forecast does (an audit read back costs nothing). ``calibration``: the calibration rows
    will be computed."""
    from .audit import BOOTSTRAP, DECIDE_TEST_SETS, draws_per_test_set
    from .certify import WORK
    from .recommend import audit_order

    budget = default_budget() if budget is None else float(budget)
    fixed = OVERHEAD + sum(intervals_seconds(s, n) for s in specs)
    if calibration:
        fixed += CALIBRATION_SECONDS if audit else 0.2
    p = Plan(budget=budget, forecast=fixed, fixed=fixed)
    if not audit:
        return p
    growing = [s for s in specs if s.points and s.design not in (None, "binomial", "eval") and s.methods
               and s.multiclass is None and not s.plug_in_only and s.scale is None]
    jobs = []
    for s in specs:
        rows = [dict(method=method, guaranteed=_guaranteed(qualified),
                     width=math.nan if widths is None else widths.get((s.metric, qualified), math.nan))
                for method, _, qualified in s.methods]
        order, _ = audit_order(rows, audit_all)
        for rank, i in enumerate(order):
            method, _, qualified = s.methods[i]
            if widths is not None and (s.metric, qualified) not in widths:
                continue  # not computed on these data (``result.resampling_cost``): no audit
            # the audit stops at the first candidate that meets the target: the k-th runs if the k before fell short
            reach = 1.0 if audit_all else FALLS_SHORT ** rank
            drawing = method in BOOTSTRAP or draws_per_test_set(qualified) > 0
            jobs.append((s, method, qualified, reach, drawing, _certify_ops(s, qualified)))

    room = budget - fixed
    # a metric's even share of the room: the most a certified audit's outcome operations may cost (``certify``
    # stops there with its least bound, a lower bound still: a bound near the floor could take minutes), and the
    # line above which an audit is heavy (below)
    fair = SLACK * room / max(1, len({s.metric for s, *_ in jobs}))
    fair_work = max(MIN_WORK, CERTIFY_RATE * fair)

    def choose(mc, cert, drop_drawing):
        out = {}
        for s, method, qualified, reach, drawing, ops in jobs:
            key = (s.metric, qualified)
            if drop_drawing and drawing:
                out[key] = Job(s.metric, qualified, 0.0, reach, skip="not audited: a resampling method's audit "
                                                                      "does not fit the budget (--budget)")
            else:
                r = max(MIN_REPS, int(reps * mc)) if mc < 1 else None
                r = None if r is not None and r >= reps else r
                w = max(MIN_WORK, ops * cert) if cert < 1 and ops else None
                if ops and fair_work < WORK and (w is None or w > fair_work):
                    w = fair_work
                # the decision's test sets: what is left of an even share once the rest of the audit is paid
                c = None if math.isinf(fair) else int(max(fair - audit_seconds(s, method, qualified, r or reps, w, 0),
                                                          0.0) / _set_seconds(s, qualified))
                if c is not None and mc < 1:  # cut with the test sets a point, as the search was
                    c = min(c, int(mc * DECIDE_TEST_SETS))
                out[key] = Job(s.metric, qualified, audit_seconds(s, method, qualified, r or reps, w, c), reach,
                               reps=r, work=w, confirm=c)
        return out

    def runs(js):
        return {key for key, j in js.items() if not j.skip and j.seconds > 0}

    def growth_of(mc, audited=None):
        """The width-vs-n table's forecast, metric by metric; ``audited``: the (metric, method) audits to run (None:
        all); a metric's pick is one of them or a guaranteed method."""
        r = reps if mc >= 1 else max(50, int(400 * mc))  # ``p.growth_reps``
        out = {s.metric: growth_seconds(s, r, None if audited is None else {q for m, q in audited if m == s.metric})
               for s in growing}
        return {**out, **{s.metric: _half_n_seconds(s) for s in specs if s.design == "binomial"}}

    def growth(mc, audited=None):
        return sum(growth_of(mc, audited).values())

    def expected(js, mc):
        return growth(mc, runs(js)) + sum(j.reach * j.seconds for j in js.values() if not j.heavy)

    # an audit that would cost more than a metric's even share of the room at the deepest cuts could run only as
    # its metric's first (``Plan.admit``): it must not drive the cuts of every other audit to their floors
    deepest = choose(MIN_REPS / reps, 1 / 64, False)
    heavy = {key for key, j in deepest.items() if j.seconds > fair}

    def choose_light(mc, cert, drop_drawing):
        out = choose(mc, cert, drop_drawing)
        for key in heavy:  # a heavy audit runs at the deepest cuts: it alone passes a metric's share even so
            if not out[key].skip:
                out[key] = deepest[key]
            out[key].heavy = True
        return out

    mc, cert, drop = 1.0, 1.0, False
    chosen = choose_light(mc, cert, drop)
    if expected(chosen, mc) > room:
        drop = True
        chosen = choose_light(mc, cert, drop)
    while expected(chosen, mc) > room and reps * mc > MIN_REPS:
        mc /= 2
        chosen = choose_light(mc, cert, drop)
    while expected(chosen, mc) > room and cert > 1 / 64:
        cert /= 2
        chosen = choose_light(mc, cert, drop)
    # each metric's first audit runs whatever the outcomes, the later ones within shares (below): where the first
    # audits alone pass the budget by SLACK, the costliest metrics' are left out (the cheap ones audit the most
    # metrics), deterministically, so the bound holds on every file
    growth_cost = growth(mc, runs(chosen))
    alone = []  # an audit that alone would pass the budget is never run (the metric's next candidate may be)
    for j in chosen.values():
        if not j.skip and j.seconds > CHEAP and OVERHEAD + j.seconds > SLACK * budget:
            j.skip = (f"not audited: its audit alone (~{j.seconds:.3g} CPU-s) would pass the budget ({budget:g} "
                      f"CPU-s, --budget)")
            alone.append(j.metric)
    firsts = {}
    for key, j in chosen.items():
        if not j.skip:
            firsts.setdefault(j.metric, j)
    left_out = []
    # a metric with no guaranteed method is recommended only from an audit: its first always runs
    unproven = {s.metric for s in specs if not any(_guaranteed(q) for _, _, q in s.methods)}
    if math.isfinite(budget):
        spent = fixed + growth_cost
        for j in sorted(firsts.values(), key=lambda j: (j.metric not in unproven, j.seconds)):
            if spent + j.seconds > SLACK * budget and j.seconds > CHEAP and j.metric not in unproven:
                left_out.append(j.metric)
            else:
                spent += j.seconds
        for j in chosen.values():
            if j.metric in left_out and not j.skip:
                j.skip = (f"not audited: the budget ({budget:g} CPU-s, --budget) went to the cheaper metrics' audits "
                          f"(this metric's first: ~{firsts[j.metric].seconds:.2g} CPU-s)")
    # the worst case, every candidate audited: where it does not fit, each metric's later audits are held to its
    # share of the budget (``Plan.admit``)
    for j in chosen.values():
        if not j.skip and not j.heavy:
            p.most[j.metric] = p.most.get(j.metric, 0.0) + j.seconds
    growth_cost = growth(mc, runs(chosen))
    share = water_fill(p.most, max(room - growth_cost, 0.0))
    cuts = []  # what was cut, each once, if it touched an audit
    if drop and any("resampling" in j.skip for j in chosen.values()):
        cuts.append("the resampling methods' audits")
    if alone:
        cuts.append(f"the audits that alone would pass the budget ({', '.join(dict.fromkeys(alone))})")
    if left_out:
        cuts.append(f"the costliest metrics' audits ({', '.join(left_out)})")
    deep = [m for m, j in firsts.items() if j.heavy and not j.skip and (j.reps is not None or j.work is not None)]
    if deep:
        cuts.append(f"the heaviest audits ({', '.join(deep)}) to their deepest cuts")
    if any(j.reps is not None and not j.skip and not j.heavy for j in chosen.values()):
        cuts.append(f"the Monte Carlo audits' test sets a point (×{mc:g}, at least {MIN_REPS})")
    if any(j.work is not None and not j.skip and not j.heavy for j in chosen.values()):
        cuts.append(f"the certified audits' outcome operations (×{cert:g}; the bounds stay lower bounds)" if cert < 1
                    else f"the certified audits' outcome operations (at most {fair_work:.1e} each, an even share of "
                         f"the budget; the bounds stay lower bounds)")
    if sum(p.most.values()) > room - growth_cost:
        cuts.append("each metric's audits to its share of the budget (the narrowest methods first)")
    if lookup is not None:
        for (metric, qualified), j in chosen.items():
            s = next(x for x in specs if x.metric == metric)
            j.cached = not j.skip and lookup(s, qualified, j.reps or reps, j.work, j.confirm)
    p.jobs, p.cuts, p.growth_reps = chosen, cuts, max(50, int(400 * mc)) if mc < 1 else None
    p.fixed = fixed + growth_cost
    expect, first = {}, {}
    for j in chosen.values():
        expect.setdefault(j.metric, 0.0)
        if not j.skip:
            expect[j.metric] += 0.0 if j.heavy else _likely(j.reach) * j.seconds
            if j.seconds + p.fixed <= SLACK * budget:  # its narrowest candidate runs unless alone over budget
                first.setdefault(j.metric, j.seconds)
    # a metric with an audit in the cache was audited by an earlier run of the same command with the same cuts:
    # this run reads what that one computed and stops where it stopped, so it costs nothing to forecast
    seen = {j.metric for j in chosen.values() if j.cached}
    # ... and its width-vs-n row, which that run cached as well (``growth._memo_widths``)
    # (the forecast only: ``fixed`` sets the shares, which must not depend on the cache)
    saved = sum(v for m, v in growth_of(mc, runs(chosen)).items() if m in seen)
    if calibration and audit and seen and all(j.cached for j in chosen.values() if not j.skip):
        saved += CALIBRATION_SECONDS - 0.2  # a rerun: the calibration rows' audit is cached too (ece_audit)
    p.forecast = p.fixed - saved + sum(max(min(v, share.get(m, math.inf)), first.get(m, 0.0))
                               for m, v in expect.items() if m not in seen)
    return p


def _likely(reach: float) -> float:
    """A candidate's chance to run as the forecast counts it: FORECAST_FALLS_SHORT^k where the plan's reach is
    FALLS_SHORT^k (1 with --audit-all)."""
    if reach >= 1.0:
        return 1.0
    rank = round(math.log(reach) / math.log(FALLS_SHORT))
    return FORECAST_FALLS_SHORT ** rank


def water_fill(most: dict, room: float) -> dict:
    """Each metric's share of the room: its ``most`` if every metric's fits, else min(most, L) with the level L
    such that the shares add up to the room. A metric that needs less than the others' share gets all it needs;
    the costly ones share the rest evenly."""
    if sum(most.values()) <= room:
        return dict(most)
    left, count, level = room, len(most), 0.0
    for k, v in enumerate(sorted(most.values())):
        if v * (count - k) >= left:
            level = left / (count - k)
            break
        left -= v
    return {m: min(v, level) for m, v in most.items()}


def _guaranteed(qualified) -> bool:
    from ..methods import methods

    return bool(methods()[qualified].guaranteed)


def leaderboard_plan(n, k, reps, audit, budget=None) -> tuple[float, int, str]:
    """(forecast CPU-s, the audit's test sets, what was cut) of a leaderboard of k models on n rows: OVERHEAD,
    its intervals (LEADERBOARD_SECONDS) and ``reps`` resampled test sets (LEADERBOARD_SET). Past the budget
    the test sets are cut to fit (at least LEADERBOARD_MIN_REPS; fewer would not fit: no audit, reps 0)."""
    budget = default_budget() if budget is None else float(budget)
    fixed = OVERHEAD + LEADERBOARD_SECONDS[0] + LEADERBOARD_SECONDS[1] * n * k
    if not audit:
        return fixed, 0, ""
    a, per_model, per_row, per_cell = LEADERBOARD_SET
    one = a + per_model * k + (per_row + per_cell * k) * n
    if fixed + one * reps <= budget:
        return fixed + one * reps, reps, ""
    fits = int((budget - fixed) / one)
    if fits < min(LEADERBOARD_MIN_REPS, reps):
        return fixed, 0, (f"not audited: {min(LEADERBOARD_MIN_REPS, reps)} resampled test sets (~{one * 100:.3g} "
                          f"CPU-s a hundred) would pass the budget ({budget:g} CPU-s, --budget)")
    return fixed + one * fits, fits, (f"audit cut to fit the budget (--budget): {fits:,} resampled test sets, "
                                      f"not {reps:,}")


def growth_seconds(s, reps, audited=None) -> float:
    """The width-vs-n table's cost for one metric beyond one proportion (``growth.growth_table``): its pick's
    test sets at the four sizes (GROWTH_REPS at most; the AUC's within AUC_BUDGET scores at the largest), each
    costing its design's SET_SECONDS at that size; nothing for a closed form (``growth.CLOSED_FORM``). The pick
    is not known before the audits: the costliest of the methods that could be it (not a drawing one's: one is
    recommended only for a gain in width and its table is bounded as its audit is). ``audited``: the methods
    whose audit runs (None: all); one that is not audited is never the pick, a guaranteed one may be."""
    from .audit import AUC_BUDGET, draws_per_test_set, examples
    from .growth import CLOSED_FORM, GROWTH_MIN_REPS, GROWTH_REPS, SCALES

    n_reps = min(reps, GROWTH_REPS)
    if s.design in ("binormal", "paired_binormal"):
        scores = examples(s.points[0]) * max(SCALES) * (2 if s.design == "paired_binormal" else 1)
        n_reps = int(min(n_reps, max(GROWTH_MIN_REPS, AUC_BUDGET // max(scores, 1))))
    most = 0.0
    for _, _, qualified in s.methods:
        if (qualified in CLOSED_FORM or draws_per_test_set(qualified)
                or audited is not None and qualified not in audited and not _guaranteed(qualified)):
            continue
        design = "multiclass" if s.multiclass is not None else s.design
        fixed, per = SET_SECONDS.get(design, (5e-6, 0.0))
        one = _set_seconds(s, qualified) - fixed - per * _units(s, qualified)  # a posterior's quadrature
        most = max(most, n_reps * (len(SCALES) * (fixed + one) + sum(SCALES) * per * _units(s, qualified)))
    return most + 1e-3


def _half_n_seconds(s) -> float:
    """A one-proportion metric's row of the width-vs-n table: exact widths and the n for half the width
    (GROWTH_BINOMIAL; a slow method's up to growth.HALF_N_SLOW examples, GROWTH_SLOW). The pick is not known
    before the audits: the costlier of the two when a slow method is among the metric's."""
    from .growth import HALF_N_SLOW

    out = GROWTH_BINOMIAL[0] + GROWTH_BINOMIAL[1] * _half_n(s)
    n = s.points[0].get("n", 0) if s.points else 0
    if n <= HALF_N_SLOW and any(q.split(".")[-1] in SLOW_BUILD for _, _, q in s.methods):
        out = max(out, GROWTH_SLOW[0] + GROWTH_SLOW[1] * n)
    return out


def _half_n(s) -> float:
    """The examples of a one-proportion metric whose n for half the width is planned (0 beyond HALF_N_MAX)."""
    from .growth import HALF_N_MAX

    n = s.points[0].get("n", 0) if s.points else 0
    return float(n) if n <= HALF_N_MAX else 0.0


def _certify_ops(s, qualified) -> float:
    from .audit import CERTIFIED, _draws, _outcomes

    if s.box is None or s.design not in CERTIFIED or _draws(qualified):
        return 0.0
    return float(_outcomes(qualified, s)) * CERTIFY_OPS


def cut_note(job: Job, audited: dict, reps) -> str:
    """What the budget cut of an audit that ran, in words ("" : nothing it used)."""
    if audited.get("engine") == "mc" and job.reps is not None:
        return f"audit cut to fit the budget (--budget): {job.reps:,} test sets a point, not {reps:,}"
    if audited.get("audit") == "certified" and job.work is not None:
        return (f"audit cut to fit the budget (--budget): the certified bound after at most {job.work:.1e} "
                f"outcome operations (a lower bound still, maybe a looser one)")
    return ""
