"""The growth table: how each metric's recommended interval shrinks with more data.

Input: the metric specs and the table after ``recommend``; output: one row per metric × scale (the
recommended method's expected width at the plug-in operating point for test sets SCALES times the
user's: exact for one proportion, Monte Carlo with GROWTH_REPS test sets for the other designs, whose exact
engines enumerate outcome spaces that grow with the size; for one-proportion metrics the n for half today's
width, via ``planning.plan``). Flow: recommend -> growth -> render (the "shrinks with more data" section and the
width-vs-n figure). Beyond HALF_N_MAX examples (HALF_N_SLOW for a slow method) the n for half the width is not
planned (the cost bound). A guaranteed interval that is a closed form of a few statistics and the size (CLOSED_FORM:
the Chernoff–Hoeffding AUC and AUC difference) has its widths computed from the formula.
"""

from __future__ import annotations

import numpy as np

from .audit import AUC_BUDGET, coverage_over, draw_reps, draws_per_test_set, examples

SCALES = (0.5, 1.0, 2.0, 4.0)  # test-set sizes of the width-vs-n curve, as multiples of the user's
SIZES = ("n", "n_pos", "n_neg", "clusters")  # the axes that scale with the test set
GROWTH_REPS = 400  # test sets per size for a Monte Carlo expected width (relative MCSE of a width ~ 1%/sqrt(reps/10): 0.16%)
HALF_N_MAX = 20_000  # beyond this many examples the n for half the width is not planned (its exact search up to
# ~4n costs ~4.5e-5 CPU-s an example: 4.5 CPU-s a metric at 10⁵ rows); the table's cell stays empty
HALF_N_SLOW = 500  # ... and beyond this many for a method whose intervals are slow to build (``slow_half_n``:
# Blaker's, mid-p's ... exact searches cost ~0.5 + 1.3e-3 CPU-s an example: 1.8 CPU-s at 700 examples)
GROWTH_MIN_REPS = 50  # ... at least, where fewer fit the AUC's budget (AUC_BUDGET scores at the largest size): a
# DeLong width varies 0.6-1.7% between test sets at 5,000-40,000 scores, so 50 give it to ~0.2%


def growth_table(specs, table, delta, reps, seed, step=lambda metric: None, cache=False):
    """How the recommended interval shrinks with more data: its expected width at the plug-in
    operating point for test sets SCALES times the user's (``coverage()``'s mean_width, exact where
    the engine is), and for the metrics of one proportion the n whose expected width is half
    today's (``plan``, exact). One row per metric × scale. Beyond one proportion the widths are Monte
    Carlo (GROWTH_REPS test sets, ``seed``): an expected width needs no exact tail, and the exact
    enumeration at four times the size costs what the whole audit does. ``step(metric)`` is called before each
    metric (the progress line); ``cache``: read and write each metric's widths in the audit cache (``_memo_widths``:
    a second run of the same command recomputes none)."""
    import pandas as pd

    rows = []
    for s in specs:
        step(s.metric)
        pick = table[(table.metric == s.metric) & table.recommended]
        if (not s.points or s.multiclass is not None or s.design == "eval" or s.scale is not None or s.plug_in_only
                or not len(pick)):  # eval: equal groups do not scale by 0.5-4
            continue
        r = pick.iloc[0]
        qualified = next(q for m, k, q in s.methods if m == r.method and k == r.kind)
        point = s.points[0]
        axes = {k: np.array([max(1, round(v * f)) if k in SIZES else v for f in SCALES]) for k, v in point.items()}
        n_reps = min(reps, GROWTH_REPS)
        if s.design in ("binormal", "paired_binormal"):  # a width varies little between test sets (GROWTH_MIN_REPS)
            scores = int(axes["n_pos"][-1] + axes["n_neg"][-1]) * (2 if s.design == "paired_binormal" else 1)
            n_reps = int(min(n_reps, max(GROWTH_MIN_REPS, AUC_BUDGET // scores)))
        if draws_per_test_set(qualified):  # as its audit, at the largest test set
            n_reps = draw_reps(qualified, s, reps, {k: v[-1] for k, v in axes.items()})
            if n_reps is None:
                continue
        widths, half = _memo_widths(s, qualified, axes, delta, n_reps, seed, cache)
        for i, f in enumerate(SCALES):
            rows.append(dict(metric=s.metric, method=r.method, scale=f, n=examples({k: v[i] for k, v in axes.items()}),
                             mean_width=float(widths[i]), n_for_half_width=half))
    return pd.DataFrame(rows) if rows else None


def _memo_widths(s, qualified, axes, delta, n_reps, seed, use_cache):
    """(the widths at SCALES, the n for half the width or None) of one metric's pick, read from the audit cache
    when a run of the same command computed them (``cache.memo``: keyed as its audits, plus the estimate and, for
    a closed form, the scores it reads), else computed (``_widths``)."""
    from . import cache

    parts = [cache.key(s, qualified, delta, n_reps, seed, {"growth": True}), repr(float(s.estimate)),
             s.door if qualified in CLOSED_FORM else None]

    def compute():
        widths, half = _widths(s, qualified, axes, delta, n_reps, seed)
        return [[float(w) for w in widths], half if half is None else int(half)]

    def valid(v):
        return (isinstance(v, list) and len(v) == 2 and isinstance(v[0], list) and len(v[0]) == len(SCALES)
                and (v[1] is None or isinstance(v[1], int)))

    try:
        widths, half = cache.memo("growth", parts, compute, valid, use_cache)
    except TypeError:  # a value JSON cannot hold: computed, not cached
        widths, half = compute()
    return np.array([np.nan if w is None else w for w in widths], dtype=float), half


def _widths(s, qualified, axes, delta, n_reps, seed):
    """The pick's expected widths at SCALES and, for one proportion, the n for half today's (``growth_table``)."""
    from ..planning.plan import plan

    point = s.points[0]
    if qualified in CLOSED_FORM:
        widths = CLOSED_FORM[qualified](s, axes, delta)
    elif s.design == "binomial":
        widths = coverage_over(qualified, s.design, s.coverage_metric, axes, delta, n_reps, seed).mean_width
    else:
        from ..engine.coverage import coverage

        def widths_at(sizes):
            return coverage(qualified, design=s.design, metric=s.coverage_metric, delta=delta, reps=n_reps,
                            seed=seed, **{k: v[sizes] for k, v in axes.items()}).mean_width

        try:
            widths = widths_at(slice(None))
        except ValueError:  # a size past what the design simulates (paired_binormal: 200,000 scores)
            widths = np.full(len(SCALES), np.nan)  # ... keeps an empty cell; the others are computed
            for i in range(len(SCALES)):
                try:
                    widths[i] = np.atleast_1d(widths_at([i]))[0]
                except ValueError:
                    pass
    widths = np.atleast_1d(widths)
    half = None
    bound = min(HALF_N_SLOW, HALF_N_MAX) if slow_half_n(qualified) else HALF_N_MAX
    if s.design == "binomial" and point["n"] <= bound:
        try:
            # today's expected width: the audit's, or (a guaranteed pick is not audited) the same sum at scale 1
            half = plan(qualified, delta=delta, p=point["p"], width=float(widths[SCALES.index(1.0)]) / 2).n
        except ValueError:
            pass
    return widths, half


def slow_half_n(qualified) -> bool:
    """Whether the n for half the width of this one-proportion method costs an exact search of slow intervals
    (cost.SLOW_BUILD: each n's interval table is a root search, not a formula)."""
    from .cost import SLOW_BUILD

    return qualified.split(".")[-1] in SLOW_BUILD


def _auc_closed_form(s, axes, delta):
    """The Chernoff–Hoeffding AUC interval's width at the user's AUĈ with k = min(n_pos, n_neg) at each size:
    the interval is a closed form of (AUĈ, k) (methods/auc_distribution_free.py), so its width at another size
    follows from the formula, not from simulated test sets; AUĈ concentrates, so this is the expected width
    to O(1/k)."""
    from ..methods.chernoff import kl_bounds

    k = np.minimum(axes["n_pos"], axes["n_neg"])
    lo, hi = kl_bounds(np.full(k.shape, float(s.estimate)), k, np.log(2 / delta))
    return hi - lo


def _auc_difference_closed_form(s, axes, delta):
    """The Chernoff–Hoeffding AUC difference's width at the user's D̂ and mean |h| Ŝ with k = min(n_pos, n_neg)
    at each size (``auc_distribution_free.difference_bounds``, a closed form of the three: as ``_auc_closed_form``)."""
    from ..methods.auc_distribution_free import difference_bounds, mean_abs_difference

    door = s.door
    s_hat = float(mean_abs_difference(door["pos_first"], door["neg_first"], door["pos_second"], door["neg_second"]))
    out = []
    for k in np.minimum(axes["n_pos"], axes["n_neg"]):
        lo, hi = difference_bounds(float(s.estimate), s_hat, int(k), delta)
        out.append(float(hi - lo))
    return np.array(out)


# guaranteed methods whose interval is a closed form of a few statistics and the size: their widths at other sizes
# are computed, not simulated (the AUC difference's: 22 CPU-s of simulated paired scores at 10⁵ rows)
CLOSED_FORM = {"auc.chernoff_hoeffding": _auc_closed_form,
               "auc_difference.chernoff_hoeffding": _auc_difference_closed_form}
