"""The metric specs: per metric its counts, estimate, the interval door's arguments, methods and audit design.

``metric_specs`` turns ``Data`` (from ``data``) into one ``Spec`` per metric. Every interval comes from the
one interval door (``intervals.interval``) on the spec's ``door`` arguments, so it equals the library's own
function on those counts. The spec also holds the operating point the data estimate and its (1 - delta)
region (points built with ``region``), which ``audit`` evaluates (docs/evaluate.md):

=====================  =============  ====================================================
metric                 design         operating point (plug-in) and (1 - delta) region
=====================  =============  ====================================================
accuracy, bea          binomial       p̂ at n; region: the Clopper–Pearson interval of p
                                      at 1 - delta; worst: the exact infimum over it
                                      (``confidence_coefficient`` with ``p_range``); BEA's
                                      interval is bea() of accuracy's (increasing): the
                                      same coverage, mapped widths
recall, specificity    binomial       tpr̂ at n_pos (tnr̂ at n_neg): k of a fixed class size;
                                      region as for accuracy
balanced_accuracy,     stratified     (tpr̂, tnr̂) at the observed n_pos, n_neg; region: the
precision, npv, f1                    box of the two Clopper–Pearson intervals, each at
                                      sqrt(1 - delta) (independent classes); certified
                                      (``certify``), searched for methods that draw
auc                    binormal       AUĈ and sd_ratio at n_pos, n_neg (Monte Carlo); box:
                                      AUĈ ± z·SE (DeLong) × sd_ratio around its probit ROC
                                      fit (``region.binormal_sd_ratio``), each at
                                      sqrt(1 - delta); searched, and over the same AUC
                                      range with test sets from the user's smoothed scores
                                      (``empirical``): the lower worst
accuracy_difference    paired         the four cells; box: discordant share d, only-first
                                      share r | discordant, both share s | concordant, each
                                      Clopper–Pearson at (1 - delta)^(1/3); certified
                                      (``certify``), searched for methods that draw
<metric>_difference    paired_        the 8 cells (class × first correct × second correct);
(two models)           confusion      box: the prevalence and each class's (d, r, s),
                                      Clopper–Pearson at (1 - delta)^(1/7) each; searched
auc_difference         paired_        the two AUCs and the mean within-class Spearman
                       binormal       correlation (Monte Carlo); box: each AUĈ ± z·SE
                                      (DeLong) and the correlation's Fisher z interval,
                                      each at (1 - delta)^(1/3); searched
clustered_accuracy     clustered      p̂, ICĈ (ANOVA, >= 0), clusters, mean cluster size;
                                      box: p over the wilson_vif interval × the ICC's F
                                      interval (``region.icc_box``), each at
                                      sqrt(1 - delta); searched
clustered_precision,   clustered_     tp/fn/fp/tn per cluster; prevalence, tpr, tnr and the
clustered_recall,      confusion      ANOVA ICCs of labels and of each class's correctness,
clustered_f1                          G clusters of the mean size; the plug-in point only
                                      (``plug_in``: Monte Carlo, no region)
clustered_auc          clustered_     scores, labels, groups; AUĈ, prevalence, ICCs of labels
                       binormal       and of the normal scores (``score_icc``); the plug-in
                                      point only
eval_accuracy          eval           rows are answers to questions (several per question):
                                      p̂, G groups of round(m/G) questions, K = mean answers,
                                      ICCs by ANOVA (eval_iccs); box: p over the
                                      eval.wilson_design interval × icc_question's F
                                      interval, each at sqrt(1 - delta), icc_group at its
                                      estimate; searched
macro_recall,          multiclass     the observed prevalence and row rates (Monte Carlo
macro_f1                              always); box: each class's recall over its
                                      Clopper–Pearson interval at (1 - delta)^(1/K), one
                                      coordinate each, misclassifications in their
                                      observed proportions; searched
=====================  =============  ====================================================

"Searched": the adaptive search of ``search`` over the box (``Spec.box``, ``Spec.at``, ``Spec.point_of``),
labelled ``searched`` in the audit and never certified.

Flow: data -> metrics -> audit -> recommend -> growth -> render; this module imports only ``data`` and
``region`` from the wing. Long because every metric's operating point and region is built here, side by
side, so that the table above stays true in one place.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import special

from .._lazy import stats
from .data import Data, InputError
from .region import (AUC_EDGE, auc_box, auc_region, binormal_sd_ratio, cells_of_shares, correlation_box, cp, delong_se,
                     icc_box, sd_ratio_box, shares_box, with_recalls)

UNDEFINED = {"precision": ("undefined: no predicted positives (tp + fp = 0)",
                           "precision = tp / (tp + fp) is 0/0: the classifier never predicts the positive class, "
                           "so there is no estimate and no interval; the other metrics are reported."),
             "npv": ("undefined: no predicted negatives (tn + fn = 0)",
                     "npv = tn / (tn + fn) is 0/0: the classifier never predicts the negative class, so there is "
                     "no estimate and no interval; the other metrics are reported.")}
BINARY_METRICS = ("accuracy", "balanced_accuracy", "precision", "recall", "specificity", "npv", "f1")
MULTICLASS = ("accuracy", "macro_recall", "macro_f1", "bea")


def _methods(data_kind, metric):
    """(label, kind, qualified name) of the methods the estimand takes (its ``takes``), skipping oracles.
    The label is the short name, or the qualified one where a short name names two kinds (F1's
    ``proportion.bayes`` and ``f1.bayes``): unique within the metric, and a name the door accepts as typed."""
    from ..estimands import get_estimand
    from ..methods import methods

    out = []
    for takes in get_estimand(data_kind, metric).takes:
        if takes == "deff":
            continue  # oracles on the true ICC
        out += [(m.short, takes, m.qualified) for m in methods(takes=takes).values()]
    shorts = [short for short, _, _ in out]
    return [(short if shorts.count(short) == 1 else qualified, takes, qualified) for short, takes, qualified in out]


@dataclass
class Spec:
    """One metric: its estimate, the door's arguments, and how to audit it."""

    metric: str
    estimate: float
    door: dict  # interval(method, **door)
    methods: list  # (short name, kind)
    design: str | None = None
    coverage_metric: str | None = None
    points: list = field(default_factory=list)
    multiclass: tuple | None = None  # (n, prevalence, [the rates at the plug-in])
    region: tuple | None = None  # binomial: the p range whose exact infimum is the worst coverage
    box: dict | None = None  # stratified, paired: coordinate -> (low, high), the region the worst is certified over
    at: dict | None = None  # the plug-in point's coordinates in ``box``
    region_text: str = ""  # how the region is formed, in words ("" : not audited over a region)
    plug_in: str = ""  # the operating point in words
    point_of: Callable | None = None  # coordinates of ``box`` -> the design's point (a multiclass rate matrix)
    scores: tuple | None = None  # AUC: (positives', negatives') scores, for the smoothed-empirical check
    undefined: tuple = ()  # (note, reason): why the metric has no estimate on these data (() : it has one)
    project: Callable | None = None  # coordinates of ``box`` -> the region's point nearest them (a region not a box)
    scale: Callable | None = None  # a strictly increasing map of the audited metric to this one (BEA of accuracy):
    # the interval covers exactly when the audited metric's does; only the widths are mapped
    plug_in_only: bool = False  # audited at the plug-in point only (``plug_in``): the grouped metrics beyond accuracy


def metric_specs(d: Data, delta, metrics) -> list[Spec]:
    """One ``Spec`` per metric the inputs allow (``metrics``: only these; an unknown one is an ``InputError``)."""
    from ..designs.confusion import truth
    from ..designs.multiclass import bea
    from ..methods.clustered import anova_icc

    specs = []
    root = math.sqrt(1 - delta)
    if d.answers:  # scored answers, no labels (``data.prepare_answers``): the eval metrics only
        return _answer_specs(d, delta, metrics)
    if d.predicted is not None and d.binary:
        t, p = d.truth, d.predicted
        tp, fn = int(np.sum((t == 1) & (p == 1))), int(np.sum((t == 1) & (p == 0)))
        fp, tn = int(np.sum((t == 0) & (p == 1))), int(np.sum((t == 0) & (p == 0)))
        n_pos, n_neg = tp + fn, fp + tn
        tpr, tnr = tp / n_pos, tn / n_neg
        cells = dict(tp=tp, fn=fn, fp=fp, tn=tn)
        (tpr_lo, tpr_hi), (tnr_lo, tnr_hi) = cp(tp, n_pos, root), cp(tn, n_neg, root)
        box = [dict(n_pos=n_pos, n_neg=n_neg, tpr=a, tnr=b)  # the plug-in point, then the box's corners
               for a, b in [(tpr, tnr), (tpr_lo, tnr_lo), (tpr_lo, tnr_hi), (tpr_hi, tnr_lo), (tpr_hi, tnr_hi)]]
        acc = (tp + tn) / d.n
        where = f"tpr = {tpr:.4g}, tnr = {tnr:.4g} at n_pos = {n_pos}, n_neg = {n_neg}"
        for metric in BINARY_METRICS:
            if metric in ("precision", "npv", "f1"):  # from the counts: defined unless the denominator is 0
                k, l = {"precision": (tp, fp), "npv": (tn, fn), "f1": (2 * tp, fp + fn)}[metric]
                est = k / (k + l) if k + l else float("nan")
            else:
                est = float(truth(metric, n_pos / d.n, tpr, tnr)) if metric != "accuracy" else acc
            s = Spec(metric, est, dict(metric=metric, **cells), _methods("confusion", metric))
            if est != est:  # 0/0: no interval, a row that says why (the other metrics stay)
                s.methods, s.undefined = [], UNDEFINED[metric]
                specs.append(s)
                continue
            if metric == "accuracy":
                s.design, s.coverage_metric, s.plug_in = "binomial", "accuracy", f"p = {acc:.4g} at n = {d.n}"
                _binomial_region(s, tp + tn, d.n, delta)
            elif metric in ("recall", "specificity"):  # k of a fixed class size: the binomial design, exact
                k, m, rate = (tp, n_pos, tpr) if metric == "recall" else (tn, n_neg, tnr)
                s.design, s.coverage_metric = "binomial", "accuracy"
                s.plug_in = f"p = {rate:.4g} at n = {m} ({'positives' if metric == 'recall' else 'negatives'})"
                _binomial_region(s, k, m, delta)
            else:
                s.design, s.coverage_metric, s.points, s.plug_in = "stratified", metric, box, where
                s.box, s.at = {"tpr": (tpr_lo, tpr_hi), "tnr": (tnr_lo, tnr_hi)}, {"tpr": tpr, "tnr": tnr}
                s.point_of = _sized(n_pos=n_pos, n_neg=n_neg)  # the methods that draw: searched over the box
                s.region_text = (f"over the box tpr ∈ [{tpr_lo:.4g}, {tpr_hi:.4g}], tnr ∈ "
                                 f"[{tnr_lo:.4g}, {tnr_hi:.4g}] (Clopper–Pearson at √(1 − δ) each)")
            specs.append(s)
    if d.predicted is not None and not d.binary:
        K = len(d.classes)
        C = np.zeros((K, K), dtype=np.int64)
        np.add.at(C, (d.truth, d.predicted), 1)
        sizes = C.sum(1)
        acc = float(np.trace(C) / d.n)
        recalls = np.diag(C) / sizes
        prevalence = sizes / d.n
        rates = C / sizes[:, None]
        precision = np.divide(np.diag(C), C.sum(0), out=np.zeros(K), where=C.sum(0) > 0)
        f1 = np.divide(2 * precision * recalls, precision + recalls, out=np.zeros(K), where=precision + recalls > 0)
        ests = {"accuracy": acc, "macro_recall": float(recalls.mean()), "macro_f1": float(f1.mean()),
                "bea": float(bea(acc, K))}
        ends = np.array([cp(int(C[i, i]), int(sizes[i]), (1 - delta) ** (1 / K)) for i in range(K)]).T
        names = [f"recall_{c}" for c in d.classes]
        for metric in MULTICLASS:
            s = Spec(metric, ests[metric], dict(metric=metric, confusion=C), _methods("multiclass", metric))
            if metric in ("accuracy", "bea"):  # BEA = bea(accuracy), strictly increasing: accuracy's coverage
                s.design, s.coverage_metric, s.plug_in = "binomial", "accuracy", f"p = {acc:.4g} at n = {d.n}"
                _binomial_region(s, int(np.trace(C)), d.n, delta)
                if metric == "bea":
                    s.scale = lambda a, K=K: bea(a, K)
                    s.plug_in += " (the accuracy; BEA is a strictly increasing function of it)"
            else:
                s.multiclass = (d.n, prevalence.tolist(), [rates.tolist()])
                s.box = {k: (float(lo), float(hi)) for k, lo, hi in zip(names, *ends)}
                s.at = dict(zip(names, map(float, recalls)))
                s.point_of = _rates_point(rates, names)
                s.project = _ellipsoid(s.at, s.box, K, delta)
                s.plug_in = f"the observed {K}×{K} rates at class sizes {', '.join(map(str, sizes))}"
                s.region_text = (f"searched over the {K} recalls' (1 − δ) ellipsoid (χ² with {K} degrees of freedom) "
                                 f"within the box of their Clopper–Pearson intervals at (1 − δ)^(1/{K}) ("
                                 + ", ".join(f"{lo:.3g}–{hi:.3g}" for lo, hi in zip(*ends))
                                 + "), misclassifications in their observed proportions, class sizes as observed")
            specs.append(s)
    if d.scores is not None:
        pos, neg = d.scores[d.truth == 1], d.scores[d.truth == 0]
        specs.append(_auc_spec("auc", pos, neg, delta))
    if d.groups is not None and d.predicted is not None:
        correct = (d.predicted == d.truth).astype(np.int64)
        G = int(d.groups.max()) + 1
        successes = np.bincount(d.groups, weights=correct, minlength=G).astype(np.int64)
        sizes = np.bincount(d.groups, minlength=G).astype(np.int64)
        icc = float(anova_icc(successes, sizes))
        acc = float(successes.sum() / sizes.sum())
        size = max(1, int(round(d.n / G)))
        s = Spec("clustered_accuracy", acc, dict(design="clustered", successes=successes, sizes=sizes),
                 [x for x in _methods("clustered", "accuracy") if x[1] == "clustered" or x[0] == "wilson"])
        s.design, s.coverage_metric = "clustered", "accuracy"
        from ..intervals import interval

        root = math.sqrt(1 - delta)
        lo, hi = interval("wilson_vif", design="clustered", successes=successes, sizes=sizes, delta=1 - root)
        i_lo, i_hi = icc_box(successes, sizes, root)
        s.at = dict(p=acc, icc=min(max(icc, 0.0), 0.99))
        s.box = dict(p=(min(lo, acc), max(hi, acc)), icc=(min(i_lo, s.at["icc"]), max(i_hi, s.at["icc"])))
        s.point_of = _sized(clusters=G, cluster_size=size)
        s.points = [s.point_of(s.at)]
        s.region_text = (f"searched over p ∈ [{s.box['p'][0]:.4g}, {s.box['p'][1]:.4g}] (the wilson_vif interval) × "
                         f"ICC ∈ [{s.box['icc'][0]:.3g}, {s.box['icc'][1]:.3g}] (the F interval of the ANOVA ICC, "
                         f"Searle/Donner), each at √(1 − δ)")
        s.plug_in = f"p = {acc:.4g}, ICC = {max(icc, 0):.3g} ({G} clusters of mean size {d.n / G:.3g})"
        s.icc = icc
        specs.append(s)
    if d.groups is not None:
        specs += _grouped_specs(d, delta)
    if d.questions is not None:
        specs.append(_eval_spec(d, delta))
    if d.second is not None:
        a, b = d.predicted == d.truth, d.second == d.truth
        cells = dict(both=int(np.sum(a & b)), only_first=int(np.sum(a & ~b)), only_second=int(np.sum(~a & b)),
                     neither=int(np.sum(~a & ~b)))
        s = Spec("accuracy_difference", (cells["only_first"] - cells["only_second"]) / d.n,
                 dict(design="paired", **cells), _methods("paired", "difference"))
        s.design, s.coverage_metric = "paired", "difference"
        # d, then r | discordant and s | concordant, each at (1 - δ)^(1/3): a joint 1 - δ region
        s.at, s.box = shares_box(cells["both"], cells["only_first"], cells["only_second"], cells["neither"],
                                 (1 - delta) ** (1 / 3))
        s.point_of = _paired_point(d.n)
        s.points = [s.point_of(s.at)]
        s.region_text = ("over the box of the discordant share d, the only-first share r of the discordant and the "
                         "both-correct share s of the concordant (Clopper–Pearson at (1 − δ)^(1/3) each; s only for "
                         "the methods that read it)")
        s.plug_in = (f"the observed cells both, only_first, only_second, neither = {cells['both']}, "
                     f"{cells['only_first']}, {cells['only_second']}, {cells['neither']} at n = {d.n}")
        s.cells = cells
        specs.append(s)
    if d.second_scores is not None:
        pos, neg = d.second_scores[d.truth == 1], d.second_scores[d.truth == 0]
        specs.append(_auc_spec("auc_second", pos, neg, delta))
    if d.second is not None and d.binary:
        specs += _difference_specs(d, delta)
    if d.scores is not None and d.second_scores is not None:
        specs.append(_auc_difference_spec(d, delta))
    if metrics is not None:
        wanted = set(metrics)
        known = {s.metric for s in specs} | {"superiority_probability"}
        unknown = wanted - known
        if unknown:
            raise InputError(f"metrics: {', '.join(sorted(unknown))} not available for this input; "
                             f"available: {', '.join(sorted(known))}")
        specs = [s for s in specs if s.metric in wanted]
    return specs



GROUPED = ("clustered_precision", "clustered_recall", "clustered_f1", "clustered_auc")


def _grouped_specs(d: Data, delta) -> list:
    """With groups, binary labels: precision, recall and F1 as ratios of cluster totals (the per-cluster
    confusion counts, design ``clustered_confusion``) and the AUC from scores, labels and groups
    (``clustered_binormal``), each audited at its plug-in point only (``plug_in``): G clusters of the mean
    size, the observed prevalence, tpr, tnr (or AUC) and ANOVA ICCs (``_anova``, ``score_icc``)."""
    if not d.binary:
        return []
    G = int(d.groups.max()) + 1
    size = max(1, int(round(d.n / G)))
    t = d.truth == 1
    specs = []
    count = lambda mask: np.bincount(d.groups, weights=mask, minlength=G).astype(np.int64)  # noqa: E731
    n_pos = count(t)
    icc_prevalence = _clip_icc(_anova(n_pos, np.bincount(d.groups, minlength=G)))
    where = f"{G} clusters of mean size {d.n / G:.3g}"
    if d.predicted is not None:
        p = d.predicted == 1
        cells = dict(tp=count(t & p), fn=count(t & ~p), fp=count(~t & p), tn=count(~t & ~p))
        tp, fn, fp, tn = (int(v.sum()) for v in cells.values())
        if tp + fn and fp + tn:
            tpr, tnr = tp / (tp + fn), tn / (fp + tn)
            icc_tpr = _clip_icc(_anova(cells["tp"], n_pos))
            icc_tnr = _clip_icc(_anova(cells["tn"], cells["fp"] + cells["tn"]))
            point = dict(clusters=G, cluster_size=size, prevalence=(tp + fn) / d.n, tpr=tpr, tnr=tnr,
                         icc_prevalence=icc_prevalence, icc_tpr=icc_tpr, icc_tnr=icc_tnr)
            kept = [x for x in _methods("clustered_confusion", "f1") if x[1] == "clustered_confusion" or x[0] == "wilson"]
            for metric, (k, l) in (("precision", (tp, fp)), ("recall", (tp, fn)), ("f1", (2 * tp, fp + fn))):
                if k + l == 0:
                    continue  # undefined: the i.i.d. row says why
                s = Spec(f"clustered_{metric}", k / (k + l), dict(design="clustered_confusion", metric=metric, **cells),
                         kept)
                s.design, s.coverage_metric, s.points, s.plug_in_only = "clustered_confusion", metric, [point], True
                s.plug_in = (f"prevalence = {point['prevalence']:.4g}, tpr = {tpr:.4g}, tnr = {tnr:.4g}, ICCs "
                             f"(prevalence, tpr, tnr) = {icc_prevalence:.3g}, {icc_tpr:.3g}, {icc_tnr:.3g} ({where}; "
                             f"beta random effects, Monte Carlo at this point only)")
                specs.append(s)
    if d.scores is not None and 0 < int(t.sum()) < d.n:
        pos, neg = d.scores[t], d.scores[~t]
        auc = _mann_whitney(pos, neg)
        icc_score = _clip_icc(score_icc(d.scores, t, d.groups))
        s = Spec("clustered_auc", auc, dict(design="clustered_binormal", scores=d.scores, labels=t.astype(np.int64),
                                            clusters=d.groups), _methods("clustered_scores", "auc"))
        s.design, s.coverage_metric, s.plug_in_only = "clustered_binormal", "auc", True
        s.points = [dict(clusters=G, cluster_size=size, prevalence=float(t.mean()),
                         auc=min(max(auc, AUC_EDGE), 1 - AUC_EDGE), icc_prevalence=icc_prevalence, icc_score=icc_score)]
        s.plug_in = (f"a binormal AUC of {auc:.4g}, prevalence = {t.mean():.4g}, ICCs (prevalence, score) = "
                     f"{icc_prevalence:.3g}, {icc_score:.3g} ({where}; a per-cluster score shift, Monte Carlo at "
                     f"this point only)")
        specs.append(s)
    return specs


def _anova(successes, sizes) -> float:
    """The ANOVA ICC (``methods.clustered.anova_icc``) over the clusters of size >= 1; 0 with fewer than 2."""
    from ..methods.clustered import anova_icc

    keep = sizes > 0
    return float(anova_icc(successes[keep], sizes[keep])) if keep.sum() >= 2 else 0.0


def _clip_icc(icc) -> float:
    return float(min(max(icc, 0.0), 0.99))


def _spearman(u, v) -> float:
    """Spearman's ρ: Pearson's correlation of the midranks (``stats.spearmanr``'s number, from one sort each
    rather than its per-column ``rankdata``); NaN when either is constant."""
    from ..methods.distinct import midranks

    a, b = midranks(u), midranks(v)
    a, b = a - a.mean(), b - b.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.dot(a, b) / np.sqrt(np.dot(a, a) * np.dot(b, b)))


def score_icc(scores, labels, groups) -> float:
    """The one-way ANOVA ICC (MSB - MSW)/(MSB + (s0 - 1)·MSW) of the scores' normal scores
    Φ⁻¹((rank - ½)/n) less their class's mean, clusters as groups, s0 = (n - Σ s_i²/n)/(G - 1)
    (Donner 1986, "A review of inference procedures for the intraclass correlation coefficient in
    the one-way random effects model"): the clustered binormal design's icc_score (its scale is
    the normal one). 0 where undefined."""
    from ..methods.distinct import midranks

    z = special.ndtri((midranks(scores) - 0.5) / scores.size)  # Φ⁻¹ (stats.norm.ppf without its checks) of rankdata
    r = z - np.where(labels, z[labels].mean(), z[~labels].mean())
    G = int(groups.max()) + 1
    s = np.bincount(groups, minlength=G).astype(float)
    keep = s > 0
    sums = np.bincount(groups, weights=r, minlength=G)[keep]
    s, n, g = s[keep], r.size, int(keep.sum())
    if g < 2 or n <= g:
        return 0.0
    mean = r.mean()
    msb = float(np.sum((sums / s - mean) ** 2 * s) / (g - 1))
    msw = float((np.sum(r * r) - np.sum(sums * sums / s)) / (n - g))
    s0 = (n - np.sum(s * s) / n) / (g - 1)
    den = msb + (s0 - 1) * msw
    return (msb - msw) / den if den > 0 else 0.0


def _sized(**fixed) -> Callable:
    """Coordinates -> a design point: the fixed axes (sizes, parameters held at the plug-in) plus the coordinates."""
    return lambda c: {**fixed, **{k: float(v) for k, v in c.items()}}


def _ellipsoid(at: dict, box: dict, K: int, delta: float) -> Callable:
    """Coordinates of the recalls' box -> the nearest point (along the ray from the plug-in point) of the
    (1 - delta) region Σ z_i² <= χ²_K(1 - delta) within the box, z_i a recall's distance from its estimate in
    standard errors, a standard error read off its side of the box (half-width / the box's per-coordinate
    normal quantile at (1 - delta)^(1/K)). The box alone is a Šidák hypercube, whose corners (every recall
    at an end at once) lie ~sqrt(K) standard errors of the macro recall from the data: K = 10 put the worst
    at 8.9 standard errors. The ellipsoid is the usual joint region of K independent estimates."""
    z_box = float(stats.norm.ppf(1 - (1 - (1 - delta) ** (1 / K)) / 2))
    radius = math.sqrt(float(stats.chi2.ppf(1 - delta, K))) / z_box  # in units of the box's half-widths

    def project(c: dict) -> dict:
        u = {k: (c[k] - at[k]) / ((box[k][1] if c[k] > at[k] else box[k][0]) - at[k] or 1.0) for k in at}
        norm = math.sqrt(sum(v * v for v in u.values()))
        if norm <= radius:
            return dict(c)
        scale = radius / norm
        return {k: at[k] + scale * (c[k] - at[k]) for k in at}
    return project


def _rates_point(rates, names) -> Callable:
    """Recalls -> the multiclass rate matrix (``region.with_recalls``); a row whose recall is the observed
    one is kept bit for bit (the Monte Carlo stream is keyed by the point's numbers)."""
    def point(c):
        moved = with_recalls(rates, [c[k] for k in names])
        same = np.array([c[k] == rates[i, i] for i, k in enumerate(names)])
        return np.where(same[:, None], rates, moved).tolist()
    return point


def _paired_point(n) -> Callable:
    """(d, r, s) -> the paired design's point: its four cells (``region.cells_of_shares``) at n."""
    def point(c):
        both, first, second, neither = cells_of_shares(c["d"], c["r"], c["s"])
        return dict(n=n, p_both=both, p_only_first=first, p_only_second=second, p_neither=neither)
    return point


def _confusion_point(n) -> Callable:
    """(prevalence, d/r/s of each class) -> the paired_confusion design's point: each class's two rates
    and the correlation of the two models' correctness (``_phi``) from its four cells."""
    from ..designs.paired import correlation_range

    def point(c):
        out = dict(n=n, prevalence=float(c["prevalence"]))
        for cls, (first, second) in (("pos", ("tpr_first", "tpr_second")), ("neg", ("tnr_first", "tnr_second"))):
            cells = cells_of_shares(c[f"d_{cls}"], c[f"r_{cls}"], c[f"s_{cls}"])
            a1, a2 = cells[0] + cells[1], cells[0] + cells[2]
            out[first], out[second] = float(a1), float(a2)
            out[f"correlation_{cls}"] = _phi(*cells, *correlation_range(a1, a2))
        return out
    return point


def _binomial_region(s: Spec, k, n, delta):
    """One proportion k of n: audited at p̂, worst = the exact infimum over the Clopper–Pearson interval."""
    s.points = [dict(n=n, p=k / n)]
    s.region = cp(k, n, 1 - delta)
    s.region_text = (f"over p ∈ [{s.region[0]:.4g}, {s.region[1]:.4g}] (Clopper–Pearson at 1 − δ; the exact "
                     f"infimum)")



def _phi(both, only_first, only_second, neither, lo, hi):
    """The correlation of two correctness indicators from a 2×2 table, 0 where a margin is empty,
    clipped to the range the design accepts for the class's rates."""
    margins = (both + only_first) * (only_second + neither) * (both + only_second) * (only_first + neither)
    phi = (both * neither - only_first * only_second) / math.sqrt(margins) if margins else 0.0
    return min(max(phi, lo), hi)


def _difference_specs(d: Data, delta) -> list:
    """metric(first) - metric(second) of two models on the same examples: the paired_confusion design's
    8 cells, audited at the observed prevalence, per-class rates and per-class correlations."""
    from ..designs.paired import correlation_range
    from ..methods.paired_metrics import COUNTS, difference

    t = d.truth == 1
    a, b = d.predicted == d.truth, d.second == d.truth
    x = [int(np.sum(c & m1 & m2)) for c in (t, ~t) for m1, m2 in ((a, b), (a, ~b), (~a, b), (~a, ~b))]
    n_pos, n_neg = sum(x[:4]), sum(x[4:])
    if n_pos == 0 or n_neg == 0:
        return []
    cells = dict(zip(COUNTS, x))
    rates = dict(tpr_first=(x[0] + x[1]) / n_pos, tpr_second=(x[0] + x[2]) / n_pos,
                 tnr_first=(x[4] + x[5]) / n_neg, tnr_second=(x[4] + x[6]) / n_neg)
    rho_pos = _phi(*x[:4], *correlation_range(rates["tpr_first"], rates["tpr_second"]))
    rho_neg = _phi(*x[4:], *correlation_range(rates["tnr_first"], rates["tnr_second"]))
    seventh = (1 - delta) ** (1 / 7)  # prevalence and (d, r, s) of each class: a joint 1 - δ box
    at_pos, box_pos = shares_box(*x[:4], seventh)
    at_neg, box_neg = shares_box(*x[4:], seventh)
    at = dict(prevalence=n_pos / d.n, **{f"{k}_pos": v for k, v in at_pos.items()},
              **{f"{k}_neg": v for k, v in at_neg.items()})
    box = dict(prevalence=cp(n_pos, d.n, seventh), **{f"{k}_pos": v for k, v in box_pos.items()},
               **{f"{k}_neg": v for k, v in box_neg.items()})
    point = dict(n=d.n, prevalence=n_pos / d.n, **rates, correlation_pos=rho_pos, correlation_neg=rho_neg)
    moved = _confusion_point(d.n)
    point_of = lambda c: dict(point) if c == at else moved(c)  # noqa: E731  the plug-in bit for bit (its MC stream)
    text = ("searched over the box of the prevalence and, in each class, the discordant share d, the only-first "
            "share r of the discordant and the both-correct share s of the concordant (Clopper–Pearson at "
            "(1 − δ)^(1/7) each): the 8 cells' region")
    where = (f"the observed 8 cells {', '.join(map(str, x))} (positives: both, only first, only second, neither; "
             f"then negatives) at n = {d.n}: correlations {rho_pos:.3g} (positives), {rho_neg:.3g} (negatives)")
    specs = []
    for metric in ("recall", "specificity", "precision", "npv", "f1", "balanced_accuracy"):
        name = f"{metric}_difference"
        est = float(difference(metric, np.array(x, dtype=float)))
        if math.isnan(est):
            continue  # undefined for a model (e.g. no predicted positives, for precision)
        s = Spec(name, est, dict(metric=name, **cells), _methods("paired_confusion", name))
        s.design, s.coverage_metric, s.points, s.plug_in = "paired_confusion", name, [point], where
        s.box, s.at, s.point_of, s.region_text = box, at, point_of, text
        specs.append(s)
    return specs


def _auc_difference_spec(d: Data, delta):
    """AUC(first) - AUC(second) on the same cases: the paired_binormal design at the observed AUCs and
    the mean within-class Spearman correlation of the two models' scores."""
    from ..methods.auc_difference import delong_covariance

    t = d.truth == 1
    p1, n1, p2, n2 = d.scores[t], d.scores[~t], d.second_scores[t], d.second_scores[~t]
    auc, _ = delong_covariance(np.stack([p1, p2]), np.stack([n1, n2]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant scores within a class: no correlation (nan -> 0)
        rs = [_spearman(u, v) for u, v in ((p1, p2), (n1, n2))]
    rho = float(np.clip(np.nanmean(rs) if not np.all(np.isnan(rs)) else 0.0, -0.99, 0.99))
    s = Spec("auc_difference", float(auc[0] - auc[1]),
             dict(metric="auc_difference", pos_first=p1, neg_first=n1, pos_second=p2, neg_second=n2),
             _methods("paired_scores", "auc_difference"))
    s.design, s.coverage_metric = "paired_binormal", "auc_difference"
    third = (1 - delta) ** (1 / 3)  # the two AUCs and the correlation: a joint 1 - δ box
    clip = [min(max(float(v), AUC_EDGE), 1 - AUC_EDGE) for v in auc]
    ends = [auc_box(a, delong_se(p, n), third) for a, p, n in ((auc[0], p1, n1), (auc[1], p2, n2))]
    s.at = dict(auc_first=clip[0], auc_second=clip[1], correlation=rho)
    s.box = dict(auc_first=ends[0], auc_second=ends[1], correlation=correlation_box(rho, p1.size + n1.size - 3, third))
    s.point_of = _sized(n_pos=int(p1.size), n_neg=int(n1.size))
    s.points = [s.point_of(s.at)]
    s.region_text = (f"searched over AUC₁ ∈ [{ends[0][0]:.4g}, {ends[0][1]:.4g}], AUC₂ ∈ [{ends[1][0]:.4g}, "
                     f"{ends[1][1]:.4g}] (each AUĈ ± z·SE, DeLong) and the correlation ∈ [{s.box['correlation'][0]:.3g}, "
                     f"{s.box['correlation'][1]:.3g}] (Fisher z), each at (1 − δ)^(1/3), paired binormal")
    s.plug_in = (f"binormal AUCs {auc[0]:.4g} and {auc[1]:.4g}, score correlation {rho:.3g} (Spearman, within "
                 f"class) at n_pos = {p1.size}, n_neg = {n1.size}")
    return s


def _mann_whitney(pos, neg) -> float:
    """The Mann–Whitney AUC with ties counted half: the mean placement of the positives (methods/auc.py, whose
    placements a large test set keeps for the AUC methods that follow)."""
    from ..methods.auc import delong_placements

    return float(np.mean(delong_placements(np.asarray(pos, dtype=float)[None], np.asarray(neg, dtype=float)[None])[0]))


def _auc_spec(name, pos, neg, delta):
    """The AUC of one model's scores: binormal over (AUC, sd_ratio) and the smoothed-empirical check."""
    auc = _mann_whitney(pos, neg)
    s = Spec(name, auc, dict(metric="auc", scores_pos=pos, scores_neg=neg), _methods("scores", "auc"))
    s.design, s.coverage_metric = "binormal", "auc"
    root = math.sqrt(1 - delta)
    se = delong_se(pos, neg)
    if se > 0:
        lo, hi = auc_box(auc, se, root)
        how = "AUĈ ± z·SE, DeLong"
    else:  # complete separation: DeLong's SE is 0, the maximum-variance interval is not
        lo, hi = (min(max(v, AUC_EDGE), 1 - AUC_EDGE) for v in auc_region(auc, pos.size, neg.size, 1 - root))
        how = "DeLong's SE is 0: the maximum-variance interval, van Dantzig/Bamber"
    ratio = binormal_sd_ratio(pos, neg)
    s.at = dict(auc=min(max(auc, AUC_EDGE), 1 - AUC_EDGE), sd_ratio=ratio)
    s.box = dict(auc=(min(lo, s.at["auc"]), max(hi, s.at["auc"])), sd_ratio=sd_ratio_box(ratio, pos.size, neg.size, root))
    s.point_of = _sized(n_pos=int(pos.size), n_neg=int(neg.size))
    s.points = [s.point_of(s.at)]
    s.scores = (pos, neg)
    s.region_text = (f"searched over AUC ∈ [{s.box['auc'][0]:.4g}, {s.box['auc'][1]:.4g}] ({how}) × sd_ratio ∈ "
                     f"[{s.box['sd_ratio'][0]:.3g}, {s.box['sd_ratio'][1]:.3g}] (around the probit fit {ratio:.3g} of "
                     f"the ROC), each at √(1 − δ), binormal; and over the same AUC range with test sets drawn from "
                     f"your own smoothed score distributions (the lower of the two)")
    s.plug_in = f"a binormal AUC of {auc:.4g} at n_pos = {pos.size}, n_neg = {neg.size}"
    return s



def _question_counts(d: Data, right) -> tuple:
    """(right answers a question, answers a question, the question's group: 0..G-1, each question its own
    without groups) of 0/1 ``right`` a row."""
    correct = np.bincount(d.questions, weights=right).astype(np.int64)
    answers = np.bincount(d.questions).astype(np.int64)
    if d.groups is not None:
        group = np.zeros(answers.size, dtype=np.int64)
        group[d.questions] = d.groups
        _, group = np.unique(group, return_inverse=True)
    else:
        group = np.arange(answers.size)  # no groups: each question its own
    return correct, answers, group


ANSWER_METRICS = ("eval_accuracy", "eval_accuracy_second", "eval_accuracy_difference")


def _answer_specs(d: Data, delta, metrics) -> list:
    """Scored answers (``Data.answers``): ``eval_accuracy``, and with a second run ``eval_accuracy_second`` and
    the paired ``eval_accuracy_difference`` (first minus second); ``metrics`` only these (another name is an
    ``InputError``: labels' metrics need labels)."""
    names = ANSWER_METRICS if d.second_correct is not None else ANSWER_METRICS[:1]
    unknown = [m for m in (metrics or []) if m not in names]
    if unknown:
        raise InputError(f"metrics: {', '.join(unknown)}: scored answers (no labels) give {', '.join(names)}")
    specs = [_eval_spec(d, delta)]
    if d.second_correct is not None:
        specs += [_eval_spec(d, delta, d.second_correct, "eval_accuracy_second"), _paired_eval_spec(d, delta)]
    return [s for s in specs if metrics is None or s.metric in metrics]


def _paired_eval_spec(d: Data, delta) -> "Spec":
    """``eval_accuracy_difference``: two runs' per-question counts on the same questions (paired_eval methods),
    audited at the plug-in point only (``plug_in``) on the paired_eval design: the two accuracies, icc_group
    and icc_question the mean of the two runs' ``eval_iccs``, and the copula correlation read as the
    correlation of the per-question accuracies corrected for their binomial noise (each run's share of
    between-question variance, Spearman's attenuation correction), clipped to [0, 1]."""
    first, answers, group = _question_counts(d, d.predicted == d.truth)
    second = np.bincount(d.questions, weights=d.second_correct).astype(np.int64)
    m, g, k = answers.size, int(group.max()) + 1, max(1, int(round(answers.mean())))
    a, b = float(first.sum() / answers.sum()), float(second.sum() / answers.sum())
    door = dict(design="paired_eval", correct_first=first, correct_second=second, answers=answers, group=group)
    s = Spec("eval_accuracy_difference", a - b, door, _methods("paired_eval", "difference"))
    iccs = np.array([eval_iccs(first, answers, group), eval_iccs(second, answers, group)])
    icc_group, icc_question = (float(v) for v in iccs.mean(axis=0))
    rho = _attenuated_correlation(first, second, answers)
    s.design, s.coverage_metric, s.plug_in_only = "paired_eval", "difference", True
    s.points = [dict(questions=g * max(1, round(m / g)), groups=g, answers=k, acc_first=a, acc_second=b,
                     correlation=rho, icc_group=icc_group, icc_question=icc_question)]
    s.plug_in = (f"accuracies {a:.4g} and {b:.4g}, correlation = {rho:.3g}, icc_group = {icc_group:.3g}, "
                 f"icc_question = {icc_question:.3g} ({m} questions in {g} groups, {answers.mean():.3g} answers a "
                 f"question; Monte Carlo at this point only)")
    return s


def _attenuated_correlation(first, second, answers) -> float:
    """The correlation of two runs' per-question accuracies divided by the square root of the product of
    their reliabilities (the share of a question accuracy's variance that is between questions: the
    ANOVA ICC r of answers within questions over r + (1 - r)/K), in [0, 1]; the raw correlation when a
    reliability is 0 (one answer a question: the ICC is not identified) and 0 when a run is constant."""
    from ..methods.clustered import anova_icc

    x, y = first / answers, second / answers
    if np.std(x) == 0 or np.std(y) == 0:
        return 0.0
    raw = float(np.corrcoef(x, y)[0, 1])
    k = float(answers.mean())
    rel = []
    for correct in (first, second):
        r = float(min(max(anova_icc(correct, answers), 0.0), 0.99)) if k > 1 else 0.0
        rel.append(r / (r + (1 - r) / k) if r > 0 else 0.0)
    corrected = raw / math.sqrt(rel[0] * rel[1]) if min(rel) > 0 else raw
    return float(min(max(corrected, 0.0), 1.0))


def _eval_spec(d: Data, delta, right=None, metric="eval_accuracy") -> "Spec":
    """``eval_accuracy``: per-question correct counts of the answers, the eval methods and Wilson on the pooled
    answers, audited on the eval design at the plug-in point (equal groups, mean K, ``eval_iccs``); ``right``
    (default: predicted == truth) the 0/1 a row of another run (``eval_accuracy_second``)."""
    from ..intervals import interval

    correct, answers, group = _question_counts(d, d.predicted == d.truth if right is None else right)
    m, g = answers.size, int(group.max()) + 1
    acc = float(correct.sum() / answers.sum())
    door = dict(design="eval", correct=correct, answers=answers, group=group)
    s = Spec(metric, acc, door, [x for x in _methods("eval", "accuracy") if x[1] == "eval" or x[0] == "wilson"])
    s.design, s.coverage_metric = "eval", "accuracy"
    icc_group, icc_question = eval_iccs(correct, answers, group)
    root = math.sqrt(1 - delta)
    lo, hi = interval("eval.wilson_design", delta=1 - root, **door)
    k = max(1, int(round(answers.mean())))
    s.at = dict(p=acc, icc_question=icc_question)
    q_lo, q_hi = icc_box(correct, answers, root) if k > 1 else (icc_question, icc_question)
    s.box = dict(p=(min(lo, acc), max(hi, acc)), icc_question=(min(q_lo, icc_question), max(q_hi, icc_question)))
    s.point_of = _sized(questions=g * max(1, round(m / g)), groups=g, answers=k, icc_group=icc_group)
    s.points = [s.point_of(s.at)]
    s.region_text = (f"searched over p ∈ [{s.box['p'][0]:.4g}, {s.box['p'][1]:.4g}] (the eval.wilson_design "
                     f"interval) × icc_question ∈ [{s.box['icc_question'][0]:.3g}, {s.box['icc_question'][1]:.3g}] "
                     f"(the F interval of the ANOVA ICC of answers within questions, Searle/Donner), each at "
                     f"√(1 − δ); icc_group at its estimate {icc_group:.3g}")
    s.plug_in = (f"p = {acc:.4g}, icc_group = {icc_group:.3g}, icc_question = {icc_question:.3g} "
                 f"({m} questions in {g} groups, {answers.mean():.3g} answers a question)")
    return s


def eval_iccs(correct, answers, group) -> tuple[float, float]:
    """(icc_group, icc_question) of the eval design by ANOVA (methods.clustered.anova_icc), each in [0, 0.99].

    r = the ANOVA ICC with questions as clusters (two answers to one question; 0 when every question has one
    answer, where icc_question does not matter); ρ = the ANOVA ICC with groups as clusters, a mix of
    same-question and other-question pairs: ρ·N_pairs = r·Σ K(K - 1)/2 + icc_group·(other pairs), solved for
    icc_group; icc_question = (r - icc_group)/(1 - icc_group)."""
    from ..methods.clustered import anova_icc

    clip = lambda v: float(min(max(v, 0.0), 0.99))  # noqa: E731
    r = clip(anova_icc(correct, answers)) if answers.size > 1 else 0.0
    sums = np.bincount(group, weights=correct)
    sizes = np.bincount(group, weights=answers)
    if sizes.size < 2:
        return 0.0, r
    rho = float(anova_icc(sums, sizes))
    pairs = float(np.sum(sizes * (sizes - 1))) / 2
    same = float(np.sum(answers * (answers - 1))) / 2
    other = pairs - same
    icc_group = clip((rho * pairs - r * same) / other) if other > 0 else 0.0
    return icc_group, clip((r - icc_group) / (1 - icc_group))

