"""``covstudy-evaluate --score`` on binary data with scores in [0, 1]: the calibration rows and the reliability diagram.

The scores are read as the probability of the positive class, binned into BINS equal-width bins. The
metric ``calibration_ece`` is the binned L1 ECE, with the interval the calibration study recommends
(experiments/calibration/README.md): the debiased ECE of Kumar, Liang & Ma (2019) with its recentred
bootstrap (``ece.debiased``, recommended), and beside it the plug-in with its percentile bootstrap
(``ece.plugin``), biased upward, whose interval under-covers. Beyond EXAMPLE_RESAMPLES resampled examples
(DRAWS × n) both draw their resamples by (bin, label) cells (``methods.calibration.cell_resampled_bin_stats``:
O(DRAWS × bins), not O(DRAWS × n)), and their notes say so. The guaranteed row (``ece.clopper_pearson_sidak``:
Clopper–Pearson per bin at Šidák's level, projected onto the ECE; methods/ece_guaranteed.py) is recommended with
``guarantee`` or when the debiased row's audit falls short. The reason names Spiegelhalter's Z test of
perfect calibration. The diagram shows each bin's frequency of positives with its Clopper–Pearson
interval and the Šidák band over the bins (whole-curve coverage at least 1 - delta given the counts).
With an audit, each row's Monte Carlo coverage at the plug-in point fitted to these data (``ece_audit``:
Beta scores and a logit-linear curve), at a bounded cost; no region is searched.

Hooks elsewhere: ``result.evaluate`` (``add``; ``calibration_ece`` kept out of the other metrics'
names), ``render.save`` (``reliability.png``/.pdf and the report's line), ``cli`` (the files it lists),
``report.evaluation_page`` (the link, the figure, and the summary line of an unaudited ``ece`` row).
"""

from __future__ import annotations

import numpy as np

from . import cache as _cache
from . import ece_audit
from .recommend import EPSILON, meets

METRIC = "calibration_ece"
BINS = 10
DRAWS = 1000
GUARANTEED = "clopper_pearson_sidak"  # the guaranteed ECE row (methods/ece_guaranteed.py)
EXAMPLE_RESAMPLES = 2 * 10**7  # DRAWS × n at most: resampled example by example (~0.3 CPU-s a method); beyond, by cells
UNAUDITED = ("coverage_at_estimate", "coverage_mcse", "worst_coverage", "worst_mcse", "worst_bound", "mean_width")


def applies(d, metrics) -> bool:
    """Binary labels, scores given, all in [0, 1], and the metric asked for (or every metric)."""
    if not d.binary or d.scores is None or (metrics is not None and METRIC not in metrics):
        return False
    s = np.asarray(d.scores, dtype=float)
    return bool(np.all((s >= 0) & (s <= 1)))


def _edges():
    return np.linspace(0, 1, BINS + 1)  # BINS equal-width bins


def diagram(scores, labels, delta) -> dict:
    """The reliability diagram's numbers: edges, per bin (m, k, S), Clopper–Pearson per bin and the Šidák band."""
    from ..methods import calibration as cal

    edges = _edges()
    m, k, S = (x[0] for x in cal.bin_stats(scores, labels, edges))
    return {"edges": edges, "m": m, "k": k, "S": S, "pointwise": cal.bin_intervals("clopper_pearson", k, m, delta),
            "band": cal.band("clopper_pearson", k, m, delta, "sidak"), "delta": delta}


ROWS = (("debiased", True, "binned L1 ECE, 10 equal-width bins; recommended by the calibration study"),
        ("plugin", False, "biased upward; its bootstrap interval under-covers (calibration study)"),
        (GUARANTEED, False, "guaranteed: Clopper–Pearson per bin at Šidák's level, the ECE's range over that box "
                            "(bin shares and mean scores as observed)"))


def _audited_shape(value) -> bool:
    """A cached calibration audit: [{method: its audit columns}, the fitted point in words]."""
    return (isinstance(value, list) and len(value) == 2 and isinstance(value[1], str) and isinstance(value[0], dict)
            and all(isinstance(v, dict) and set(v) <= _cache.COLUMNS for v in value[0].values()))


AUDIT_MEMO = "calibration audit"  # the cache's name for the calibration rows' audit (``cache.memo``)


def _audit_key(scores, labels, edges, delta, seed) -> list:
    """What the calibration rows' audit sees: its cache key's parts."""
    return [scores, labels, edges, repr(float(delta)), seed, [short for short, _, _ in ROWS]]


def audit_cached(d, delta, seed) -> bool:
    """Whether the cache holds the calibration rows' audit of these data (a rerun: ``cost.plan`` forecasts it at 0)."""
    scores = np.asarray(d.scores, dtype=float)
    labels = (np.asarray(d.truth) == 1).astype(float)
    return _cache.memo_held(AUDIT_MEMO, _audit_key(scores, labels, _edges(), delta, seed),
                            _audited_shape)


def add(d, delta, seed, table, reasons, info, audit=False, guarantee=False, cache=False):
    """``table`` with the calibration rows appended (``reasons`` and ``info["calibration"]`` filled in); with
    ``audit``, each row's Monte Carlo coverage at the fitted plug-in point (``ece_audit``). The debiased row is
    recommended unless its audit finds it below the target (``_prefer_guaranteed``) or ``guarantee`` asks for a
    guaranteed row (``methods/ece_guaranteed.py``, coverage >= 1 - delta by proof). ``cache``: the audit is read
    from and written to the audit cache (``cache.memo``, keyed by the scores, labels, δ and seed)."""
    import pandas as pd

    from ..methods import calibration as cal
    from ..methods import get
    from ..seeds import stream

    scores = np.asarray(d.scores, dtype=float)
    labels = (np.asarray(d.truth) == 1).astype(float)
    fig = diagram(scores, labels, delta)
    observed = (fig["m"], fig["k"], fig["S"])
    shorts = tuple(short for short, _, _ in ROWS)
    audited, where = ({}, "") if not audit else _cache.memo(
        AUDIT_MEMO, _audit_key(scores, labels, fig["edges"], delta, seed),
        lambda: ece_audit.audit_rows(scores, labels, fig["edges"], delta, seed, shorts), _audited_shape, use=cache)
    rows = []
    for short, recommended, note in ROWS:
        method = get(short, "calibration")
        rng = stream(seed, evaluate="calibration", method=method.name)
        if DRAWS * d.n <= EXAMPLE_RESAMPLES or not method.params:  # the guaranteed row resamples nothing
            lo, hi = method.bounds((scores, labels), delta, rng=rng, edges=fig["edges"], draws=DRAWS)
        else:  # the same bootstrap law drawn by (bin, label) cells: O(DRAWS × bins), not DRAWS × n
            resampled = cal.cell_resampled_bin_stats(scores, labels, fig["edges"], DRAWS, rng)
            lo, hi = (np.atleast_1d(x) for x in cal.BINNED_INTERVALS[short](observed, resampled, delta))
            note += (f"; {DRAWS:,} resamples of {d.n:,} examples drawn by (bin, label) cells (a cell's score sum "
                     f"exact or normal: methods.calibration.cell_resampled_bin_stats)")
        estimate = float(cal.ESTIMATES[short](scores, labels, fig["edges"])[0])
        rows.append(dict(metric=METRIC, method=short, kind="ece", estimate=estimate, lower=float(lo[0]),
                         upper=float(hi[0]), width=float(hi[0] - lo[0]), design="calibration", n=d.n, worst_at="",
                         audit="", meets_target="", recommended=recommended, note=note, guaranteed=bool(method.guaranteed),
                         worst_is_upper_bound=False, narrower="",  # every column of the table, alone too
                         **dict.fromkeys(UNAUDITED, np.nan), engine=None, reps=None))
        extra = audited.get(short, {})
        rows[-1].update({k: v for k, v in extra.items() if k != "note"})
        if extra.get("note"):
            rows[-1]["note"] = f"{note}; {extra['note']}"
        if extra.get("coverage_at_estimate") is not None:  # judged as any row, at its one point: flagged when short
            rows[-1]["meets_target"] = meets({"worst_coverage": extra["coverage_at_estimate"],
                                              "worst_mcse": extra.get("coverage_mcse", 0.0),
                                              "guaranteed": bool(method.guaranteed)}, 1 - delta - EPSILON)
        elif audit and method.guaranteed:  # not audited here: it meets the target by proof
            rows[-1]["meets_target"] = "guaranteed"
    if guarantee:  # only a guaranteed row qualifies
        for r in rows:
            r["recommended"] = r["method"] == GUARANTEED
    switched = _prefer_guaranteed(rows, delta)
    z, p = cal.spiegelhalter_z(scores, labels)
    if where:
        cover = "; ".join(f"{r['method']} {r['coverage_at_estimate']:.3f} (MCSE {r['coverage_mcse']:.3f})" for r in rows
                          if r["coverage_at_estimate"] == r["coverage_at_estimate"])
        checked = (f"At the fitted plug-in point ({where}) their coverage in {rows[0]['reps']} simulated test sets "
                   f"({ece_audit.AUDIT_DRAWS} resamples each) was {cover}.")
    else:
        checked = "Not audited at these data" + (f" ({rows[0]['note'].split('; ', 1)[1]})." if audit else ".")
    if guarantee:
        switched = (f"{GUARANTEED} is recommended: --guarantee asks for a row whose coverage is at least "
                    f"{1 - delta:g} by proof. ")
    reasons[METRIC] = switched + (f"{'T' if switched else 't'}he debiased ECE (Kumar, Liang & Ma 2019) with its recentred bootstrap covered 0.93-0.94 "
                       f"in the calibration study with 5 or 10 bins when the scores are miscalibrated; the plug-in "
                       f"ECE's bootstrap covered 0.00-0.89. {checked} Spiegelhalter's test of "
                       f"perfect calibration: Z = {float(z[0]):.2f}, p = {float(p[0]):.3g}.")
    info["calibration"] = fig
    return pd.concat([table, pd.DataFrame(rows)], ignore_index=True)


def _prefer_guaranteed(rows, delta) -> str:
    """``recommend``'s rule on the ECE rows (one point audited, no region): when the recommended row was audited
    below the target, the narrowest row that meets it (a guaranteed one) is recommended instead, with the other
    beside it (``narrower``: its interval and its coverage at the fitted point). Returns the reason's first
    sentence ("" when the pick stays)."""
    from .recommend import MET

    pick = next((r for r in rows if r["recommended"]), None)
    ok = sorted((r for r in rows if r["meets_target"] in MET), key=lambda r: r["width"])
    if pick is None or pick["meets_target"] in MET or pick["meets_target"] == "" or not ok:
        return ""
    pick["recommended"], ok[0]["recommended"] = False, True
    ok[0]["narrower"] = (f"{pick['method']} [{pick['lower']:.4f}, {pick['upper']:.4f}] covers "
                         f"{pick['coverage_at_estimate']:.4f} at the fitted plug-in point")
    return (f"{ok[0]['method']} is recommended: the narrowest row that meets the target ({ok[0]['meets_target']}; "
            f"coverage at least {1 - delta:g}{' by construction' if ok[0]['meets_target'] == 'guaranteed' else ''}), "
            f"as {pick['method']} covers {pick['coverage_at_estimate']:.4f} ± {pick['coverage_mcse']:.3f} at the "
            f"fitted plug-in point. ")


def figure(fig: dict, path):
    """Write the reliability diagram (plots/calibration.py ``reliability_diagram``) to ``path``."""
    from ..plots.calibration import reliability_diagram

    return reliability_diagram(fig["edges"], fig["m"], fig["k"], fig["S"], fig["band"], fig["pointwise"], path,
                               title=f"Reliability diagram: {int(fig['m'].sum())} examples, {BINS} bins\n"
                                     f"{1 - fig['delta']:.0%} Clopper–Pearson per bin and Šidák band over the bins")
