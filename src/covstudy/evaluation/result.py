"""``covstudy.evaluate``: from a test set's predictions to audited intervals, a recommendation and a report.

Every interval comes from the one interval door (``intervals.interval``) on the test set's
counts, so it equals the library's own function on those counts. Every audited coverage is
``coverage()`` at the operating point the data estimate (docs/evaluate.md):

=====================  =============  ====================================================
metric                 design         operating point (plug-in) and (1 - delta) region
=====================  =============  ====================================================
accuracy, bea (binary  binomial       p̂ at n; region: the Clopper–Pearson interval of p
accuracy)                             at 1 - delta; worst: the exact infimum over it
                                      (``confidence_coefficient`` with ``p_range``)
recall, specificity    binomial       tpr̂ at n_pos (tnr̂ at n_neg): k of a fixed class size;
                                      region as for accuracy
balanced_accuracy,     stratified     (tpr̂, tnr̂) at the observed n_pos, n_neg; region: the
precision, npv, f1                    box of the two Clopper–Pearson intervals, each at
                                      sqrt(1 - delta) (independent classes); grid: corners
auc                    binormal       AUĈ at n_pos, n_neg (Monte Carlo); region: the
                                      maximum-variance (van Dantzig) score interval; grid:
                                      its ends
accuracy_difference    paired         the four cells; region: discordant share d and
                                      only-first share r | discordant, each Clopper–Pearson
                                      at sqrt(1 - delta), concordant split fixed; 3×3+1 grid
<metric>_difference    paired_        the 8 cells (class × first correct × second correct):
(two models)           confusion      prevalence, per-class rates, per-class correlations
                                      (plug-in point only)
auc_difference         paired_        the two AUCs and the mean within-class Spearman
                       binormal       correlation of the scores (Monte Carlo; plug-in only)
clustered_accuracy     clustered      p̂, ICĈ (ANOVA, >= 0), clusters, mean cluster size;
                                      region: p over the wilson_vif interval
eval_accuracy          eval           rows are answers to questions (several per question):
                                      p̂, G groups of round(m/G) questions, K = mean answers,
                                      ICCs by ANOVA (eval_iccs); region: p over the
                                      eval.wilson_design interval (Monte Carlo)
macro_recall,          multiclass     the observed prevalence and row rates (Monte Carlo
macro_f1, bea (multi)                 always); region: each class's recall Clopper–Pearson
                                      at (1 - delta)^(1/K), misclassifications in their
                                      observed proportions; grid: all recalls low, all high
=====================  =============  ====================================================

Exact wherever the design's exact engine accepts the point; otherwise Monte Carlo with
``reps`` simulated test sets (fixed seed, shared by every method at a point) and its MCSE.
Bootstrap methods are audited by Monte Carlo with at most BOOT_REPS test sets, within
BOOT_BUDGET. ``worst_coverage`` is the exact infimum over the region for the one-proportion
metrics, else the minimum over a small grid of it (the plug-in point included).
``recommended``: per metric, the narrowest method (expected width at the plug-in point) whose
worst coverage is at least 1 - delta - EPSILON (less Z_MCSE MCSE for Monte Carlo), else the
guaranteed method of that kind.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

EPSILON = 0.005  # tolerance of the recommendation: worst coverage >= 1 - delta - EPSILON
REPS = 2000  # Monte Carlo test sets per audited point
AUC_BUDGET = 4_000_000  # AUC audit: reps <= AUC_BUDGET / n per region point (each rep draws and ranks n scores)
GRID = 3  # points per axis of the region grid (ends and the plug-in point)
TIE = 0.01  # a bootstrap is recommended only if >1% narrower (expected width) than every other qualifying method
Z_MCSE = 1  # a Monte Carlo row qualifies unless its worst coverage is below the floor by more than Z_MCSE MCSE
GUARANTEED = {"proportion": "clopper_pearson", "two_class": "cp_union", "classes": "union_cp",
              "paired": "exact_mcnemar", "difference": "melded"}  # never below 1 - delta
BOOTSTRAP = {"bootstrap", "cluster_bootstrap"}  # resampling inside Monte Carlo: reps × draws resamples a point
NOT_AUDITED = {"dirichlet"}  # posterior sampling to mc_error 1e-3 in each of reps test sets: too costly to audit
BOOT_REPS = 400  # Monte Carlo test sets per point for a bootstrap method (MCSE ≈ 0.011 at 0.95)
BOOT_MIN_REPS = 100  # fewer affordable than this: the bootstrap is not audited (MCSE would exceed 0.02)
BOOT_BUDGET = 200_000_000  # reps × draws × numbers resampled per test set, per audited point
POSITIVE_NAMES = ("1", "true", "pos", "positive", "yes", "y", "t")
BINARY_METRICS = ("accuracy", "balanced_accuracy", "precision", "recall", "specificity", "npv", "f1")
MULTICLASS = ("accuracy", "macro_recall", "macro_f1", "bea")
COLUMNS = ["metric", "method", "estimate", "lower", "upper", "width", "coverage_at_estimate", "coverage_mcse",
           "worst_coverage", "worst_mcse", "mean_width", "engine", "reps", "recommended", "design", "n"]


class InputError(ValueError):
    """A user's input that cannot be evaluated: one line naming the column."""


# ------------------------------------------------------------------------------------ inputs

def _values(name, values):
    """A 1-d object/float array of a column, its display name (a named Series's name wins)."""
    label = getattr(values, "name", None)
    label = str(label) if isinstance(label, str) and label else name
    try:
        arr = np.asarray(values)
    except ValueError:  # a ragged list
        raise InputError(f"{label}: expected one value per example (a 1-d column), got rows of different "
                         f"lengths") from None
    if arr.ndim != 1:
        raise InputError(f"{label}: expected one value per example (a 1-d column), got shape {arr.shape}")
    return label, arr


def _missing(arr) -> np.ndarray:
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if arr.dtype.kind == "O":
        return np.array([v is None or (isinstance(v, float) and math.isnan(v)) for v in arr], dtype=bool)
    return np.zeros(arr.shape, dtype=bool)


def _labels(label, arr):
    miss = _missing(arr)
    if miss.any():
        raise InputError(f"{label}: {int(miss.sum())} missing value(s) (first at row {int(np.argmax(miss))})")
    if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    return arr


def _scores(label, arr):
    try:
        s = arr.astype(float)
    except (TypeError, ValueError):
        raise InputError(f"{label}: scores must be numbers") from None
    bad = ~np.isfinite(s)
    if bad.any():
        raise InputError(f"{label}: {int(bad.sum())} missing or non-finite score(s) (first at row {int(np.argmax(bad))})")
    return s


def _positive(classes, positive, truth_label):
    if positive is not None:
        for c in classes:
            if c == positive or str(c) == str(positive):
                return c
        raise InputError(f"positive: {positive!r} is not one of the labels {', '.join(map(repr, classes))}")
    named = [c for c in classes if (isinstance(c, (bool, np.bool_)) and c) or str(c).strip().lower() in POSITIVE_NAMES]
    if all(isinstance(c, (int, np.integer, float, np.floating, bool, np.bool_)) for c in classes):
        larger = max(classes)  # the larger of two numbers, unless a label named positive says otherwise ({1, 2})
        if not named or named == [larger]:
            return larger
    elif len(named) == 1:
        return named[0]
    raise InputError(f"{truth_label}: cannot tell the positive class of {', '.join(map(repr, classes))}; "
                     f"name it (positive=... / --positive)")


@dataclass
class Data:
    """The validated inputs, as counts."""

    names: dict
    classes: list
    positive: object = None
    truth: np.ndarray | None = None  # 0..K-1 codes
    predicted: np.ndarray | None = None
    scores: np.ndarray | None = None
    groups: np.ndarray | None = None
    questions: np.ndarray | None = None  # 0..m-1 question codes: rows are answers
    second: np.ndarray | None = None
    second_scores: np.ndarray | None = None

    @property
    def binary(self) -> bool:
        return len(self.classes) == 2

    @property
    def n(self) -> int:
        return int(self.truth.size)


def prepare(truth, predicted=None, scores=None, groups=None, second_predicted=None, second_scores=None,
            positive=None, questions=None) -> Data:
    """Validate every column (one-line ``InputError`` naming it) and encode the labels."""
    given = {k: v for k, v in dict(truth=truth, predicted=predicted, scores=scores, groups=groups,
                                   second_predicted=second_predicted, second_scores=second_scores,
                                   questions=questions).items()
             if v is not None}
    cols = {k: _values(k, v) for k, v in given.items()}
    names = {k: label for k, (label, _) in cols.items()}
    n = cols["truth"][1].size
    if n == 0:
        raise InputError(f"{names['truth']}: empty (no examples)")
    for k, (label, arr) in cols.items():
        if arr.size != n:
            raise InputError(f"{label}: {arr.size} values, but {names['truth']} has {n}")
    if predicted is None and scores is None:
        raise InputError("predicted: give the predicted labels and/or the scores")
    if second_predicted is not None and predicted is None:
        raise InputError(f"{names['second_predicted']}: a second model's labels need the first's (predicted)")
    if second_scores is not None and scores is None:
        raise InputError(f"{names['second_scores']}: a second model's scores need the first's (scores)")
    lab = {k: _labels(names[k], cols[k][1]) for k in ("truth", "predicted", "second_predicted", "groups", "questions")
           if k in cols}
    sc = {k: _scores(names[k], cols[k][1]) for k in ("scores", "second_scores") if k in cols}
    truth_classes = _sorted(np.unique(_key(lab["truth"])))
    if len(truth_classes) < 2:
        raise InputError(f"{names['truth']}: only one class ({truth_classes[0]!r}); intervals need both "
                         f"positives and negatives")
    classes = truth_classes
    for k in ("predicted", "second_predicted"):
        if k in lab:
            extra = set(_key(lab[k]).tolist()) - set(_key(lab["truth"]).tolist())
            if extra:
                raise InputError(f"{names[k]}: label(s) {', '.join(map(repr, sorted(map(str, extra))))} never "
                                 f"occur in {names['truth']}")
    data = Data(names, classes)
    code = {c: i for i, c in enumerate(classes)}
    data.truth = np.array([code[v] for v in _key(lab["truth"]).tolist()])
    if "predicted" in lab:
        data.predicted = np.array([code[v] for v in _key(lab["predicted"]).tolist()])
    if "second_predicted" in lab:
        data.second = np.array([code[v] for v in _key(lab["second_predicted"]).tolist()])
    if data.binary:
        data.positive = _positive(classes, positive, names["truth"])
        if classes.index(data.positive) == 0:  # code the positive as 1
            for attr in ("truth", "predicted", "second"):
                if getattr(data, attr) is not None:
                    setattr(data, attr, 1 - getattr(data, attr))
            data.classes = classes[::-1]
    elif sc:
        raise InputError(f"{names['scores' if 'scores' in sc else 'second_scores']}: scores give the AUC of a "
                         f"binary problem; {names['truth']} has {len(classes)} classes")
    elif positive is not None:
        raise InputError(f"positive: {names['truth']} has {len(classes)} classes; positive is for binary labels")
    data.scores, data.second_scores = sc.get("scores"), sc.get("second_scores")
    if "groups" in lab:
        _, data.groups = np.unique(_key(lab["groups"]), return_inverse=True)
        if data.groups.max() < 1:
            raise InputError(f"{names['groups']}: only one group; clustered intervals need at least 2")
    if "questions" in lab:
        if predicted is None:
            raise InputError(f"{names['questions']}: answers to questions need the predicted labels (predicted)")
        _, data.questions = np.unique(_key(lab["questions"]), return_inverse=True)
        if data.questions.max() < 1:
            raise InputError(f"{names['questions']}: only one question; eval intervals need at least 2")
        if data.groups is not None:
            span = np.unique(np.stack([data.questions, data.groups]), axis=1)[0]
            if span.size != data.questions.max() + 1:
                raise InputError(f"{names['groups']}: a question's answers must all be in one group")
    return data


def _key(arr):
    """Labels as hashable Python values that compare across columns (1 == 1.0 == '1' stays distinct by type)."""
    if arr.dtype.kind in "iub":
        return arr
    return np.array([v.item() if isinstance(v, np.generic) else v for v in arr.tolist()], dtype=object)


def _sorted(values):
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)


# ------------------------------------------------------------------------------- the region

def cp(k, n, level):
    """The Clopper–Pearson interval of k of n at ``level``."""
    a = 1 - level
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


def _axis(est, lo, hi, grid=GRID):
    """``grid`` points from lo to hi, the plug-in estimate first (repeats dropped)."""
    out = []
    for v in [est, *np.linspace(lo, hi, grid).tolist()]:
        v = float(v)
        if not out or all(abs(v - o) > 1e-12 for o in out):
            out.append(v)
    return out


# -------------------------------------------------------------------------------- the audit

def _coverage(method, design, metric, axes: dict, delta, reps, seed):
    """``coverage()`` over the points (arrays, broadcast); exact if the design's engine takes
    them, else Monte Carlo."""
    from ..engine.coverage import coverage

    try:
        return coverage(method, design=design, metric=metric, delta=delta, **axes)
    except ValueError as e:
        if "Monte Carlo" not in str(e) and "no exact engine" not in str(e):
            raise
    return coverage(method, design=design, metric=metric, delta=delta, reps=reps, seed=seed, **axes)


def _summary(cov, mcse, width, engine, reps) -> dict:
    """The audit's columns from coverage, MCSE and mean width over the points (the plug-in first)."""
    cov, mcse = np.asarray(cov, dtype=float), np.asarray(mcse, dtype=float)
    worst = int(np.argmin(cov))
    return {"coverage_at_estimate": float(cov[0]), "coverage_mcse": float(mcse[0]),
            "worst_coverage": float(cov[worst]), "worst_mcse": float(mcse[worst]), "mean_width": float(width[0]),
            "engine": engine, "reps": reps}


def audit_point(method, design, metric, points: list[dict], delta, reps=REPS, seed=0, region=None) -> dict:
    """Coverage at the plug-in point (``points[0]``) and the worst over ``points``; with ``region``
    (binomial design, exact engine) the worst is the exact infimum of the coverage over p in it."""
    if region is not None:
        return _binomial_audit(method, points[0]["n"], points[0]["p"], delta, region)
    axes = {k: np.array([p[k] for p in points]) for k in points[0]}
    r = _coverage(method, design, metric, axes, delta, reps, seed)
    cov, mcse, width = (np.atleast_1d(np.asarray(getattr(r, a), dtype=float)) for a in ("coverage", "mcse",
                                                                                           "mean_width"))
    return _summary(cov, mcse, width, r.engine, r.reps)


def _binomial_audit(method, n, p, delta, region) -> dict:
    """One proportion, exact, from one table of the n + 1 intervals: the coverage and expected
    width at p (as ``coverage()``), and the exact infimum of the coverage over p in ``region``
    (as ``confidence_coefficient(..., p_range=region)``: C(p) jumps at every interval end, so a
    grid misses its dips; the infimum may be a one-sided limit at an end, not attained)."""
    from ..engine.exact_curve import ends, infimum

    _, n, delta, _, lower, upper = ends(method, n, delta)
    weight = stats.binom.pmf(np.arange(n + 1), n, p)
    cov = float(np.sum(weight[(lower <= p) & (p <= upper)]))
    width = float(np.sum(weight * (upper - lower)))
    worst = float(infimum(lower, upper, n, *region)[0])
    return _summary([cov, min(cov, worst)], [0.0, 0.0], [width], "exact", None)


def _multiclass_audit(method, metric, n, prevalence, rates: list, delta, reps, seed) -> dict:
    """Coverage at each rate matrix of ``rates`` (the plug-in first), Monte Carlo always: the
    exact multinomial enumeration is feasible only at small n and then slow for the sampling
    methods (every K×K matrix times the draws)."""
    from ..engine.coverage import multiclass_coverage

    rs = [multiclass_coverage(metric, method, n, prevalence, r, delta=delta, reps=reps, seed=seed) for r in rates]
    return _summary([r.coverage for r in rs], [r.mcse for r in rs], [r.mean_width for r in rs], rs[0].engine,
                    rs[0].reps)


def _bootstrap_reps(qualified, s: Spec, reps, point=None) -> int | None:
    """Test sets per point for a bootstrap method: BOOT_REPS, fewer if reps × draws × the numbers
    one resample draws would pass BOOT_BUDGET; None (not audited) below BOOT_MIN_REPS."""
    from ..methods import methods

    draws = next(p.default for p in methods()[qualified].params if p.name == "draws")
    point = point or (s.points[0] if s.points else {})
    numbers = {"binormal": point.get("n_pos", 0) + point.get("n_neg", 0), "clustered": point.get("clusters", 0),
               "stratified": 2, "paired_confusion": 8,
               "paired_binormal": 2 * (point.get("n_pos", 0) + point.get("n_neg", 0))}.get(s.design, 0) \
        or len(s.multiclass[1]) ** 2
    r = min(reps, BOOT_REPS, BOOT_BUDGET // (draws * numbers))
    return r if r >= BOOT_MIN_REPS else None


def audit_metric(s: Spec, method, qualified, delta, reps, seed) -> dict:
    """The audit columns of one metric × method (empty for a bootstrap too costly to audit)."""
    if method in NOT_AUDITED:
        return {}
    if method in BOOTSTRAP:
        reps = _bootstrap_reps(qualified, s, reps)
        if reps is None:
            return {}
    elif s.design in ("binormal", "paired_binormal"):
        reps = int(min(reps, max(200, AUC_BUDGET // _examples(s.points[0]))))
    if s.multiclass is not None:
        return _multiclass_audit(qualified, s.metric, *s.multiclass, delta, reps, seed)
    return audit_point(qualified, s.design, s.coverage_metric, s.points, delta, reps, seed, s.region)


# ------------------------------------------------------------------------------- the metrics

def _methods(data_kind, metric):
    """(short name, kind, qualified name) of the methods the estimand takes (its ``takes``), skipping
    oracles. The qualified name goes to the door (a short name can name two kinds: F1's ``bayes``)."""
    from ..estimands import get_estimand
    from ..methods import methods

    out = []
    for takes in get_estimand(data_kind, metric).takes:
        if takes == "deff":
            continue  # oracles on the true ICC
        out += [(m.short, takes, m.qualified) for m in methods(takes=takes).values()]
    return out


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
    multiclass: tuple | None = None  # (n, prevalence, [rates at the plug-in, then the region's grid])
    region: tuple | None = None  # binomial: the p range whose exact infimum is the worst coverage
    region_text: str = ""  # how the region is formed, in words ("" : not audited over a region)
    plug_in: str = ""  # the operating point in words


def _specs(d: Data, delta, metrics) -> list[Spec]:
    from ..designs.confusion import truth
    from ..designs.multiclass import bea
    from ..methods.clustered import anova_icc

    specs = []
    root = math.sqrt(1 - delta)
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
            est = float(truth(metric, n_pos / d.n, tpr, tnr)) if metric != "accuracy" else acc
            if metric in ("precision", "npv", "f1"):
                k, l = {"precision": (tp, fp), "npv": (tn, fn), "f1": (2 * tp, fp + fn)}[metric]
                est = k / (k + l) if k + l else float("nan")
            s = Spec(metric, est, dict(metric=metric, **cells), _methods("confusion", metric))
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
                s.region_text = (f"over the corners of the box tpr ∈ [{tpr_lo:.4g}, {tpr_hi:.4g}], tnr ∈ "
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
        grid = [rates.tolist()] + [_with_recalls(rates, e).tolist() for e in ends]
        for metric in MULTICLASS:
            s = Spec(metric, ests[metric], dict(metric=metric, confusion=C), _methods("multiclass", metric))
            if metric == "accuracy":
                s.design, s.coverage_metric, s.plug_in = "binomial", "accuracy", f"p = {acc:.4g} at n = {d.n}"
                _binomial_region(s, int(np.trace(C)), d.n, delta)
            else:
                s.multiclass = (d.n, prevalence.tolist(), grid)
                s.plug_in = f"the observed {K}×{K} rates at class sizes {', '.join(map(str, sizes))}"
                s.region_text = (f"at every class's recall at the low ends, then the high ends, of its Clopper–Pearson "
                                 f"interval at (1 − δ)^(1/{K}) (lows {', '.join(f'{v:.3g}' for v in ends[0])})")
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

        lo, hi = interval("wilson_vif", design="clustered", successes=successes, sizes=sizes, delta=delta)
        s.points = [dict(clusters=G, cluster_size=size, p=p, icc=min(max(icc, 0.0), 0.99))
                    for p in _axis(acc, lo, hi)]
        s.region_text = f"over p = {lo:.4g}, {(lo + hi) / 2:.4g}, {hi:.4g} (the wilson_vif interval) at the estimated ICC"
        s.plug_in = f"p = {acc:.4g}, ICC = {max(icc, 0):.3g} ({G} clusters of mean size {d.n / G:.3g})"
        s.icc = icc
        specs.append(s)
    if d.questions is not None:
        specs.append(_eval_spec(d, delta))
    if d.second is not None:
        a, b = d.predicted == d.truth, d.second == d.truth
        cells = dict(both=int(np.sum(a & b)), only_first=int(np.sum(a & ~b)), only_second=int(np.sum(~a & b)),
                     neither=int(np.sum(~a & ~b)))
        s = Spec("accuracy_difference", (cells["only_first"] - cells["only_second"]) / d.n,
                 dict(design="paired", **cells), _methods("paired", "difference"))
        s.design, s.coverage_metric = "paired", "difference"
        disc = cells["only_first"] + cells["only_second"]
        conc = cells["both"] + cells["neither"]
        share_both = cells["both"] / conc if conc else 0.5
        r_hat = cells["only_first"] / disc if disc else 0.5
        ds = _axis(disc / d.n, *cp(disc, d.n, root))
        rs = _axis(r_hat, *(cp(cells["only_first"], disc, root) if disc else (0.0, 1.0)))
        pts = []
        for dd in ds:
            for r in rs:
                pts.append(dict(n=d.n, p_both=(1 - dd) * share_both, p_only_first=dd * r,
                                p_only_second=dd * (1 - r), p_neither=(1 - dd) * (1 - share_both)))
        s.points = pts
        s.region_text = ("over a 3 × 3 grid of the discordant share and the only-first share of the discordant "
                         "(Clopper–Pearson at √(1 − δ) each)")
        s.plug_in = (f"the observed cells both, only_first, only_second, neither = {cells['both']}, "
                     f"{cells['only_first']}, {cells['only_second']}, {cells['neither']} at n = {d.n}")
        s.cells = cells
        specs.append(s)
    if d.second_scores is not None:
        pos, neg = d.second_scores[d.truth == 1], d.second_scores[d.truth == 0]
        specs.append(_auc_spec("auc_second", pos, neg, delta))
    if d.second is not None and d.binary:
        specs += _difference_specs(d)
    if d.scores is not None and d.second_scores is not None:
        specs.append(_auc_difference_spec(d))
    if metrics is not None:
        wanted = set(metrics)
        known = {s.metric for s in specs} | {"superiority_probability"}
        unknown = wanted - known
        if unknown:
            raise InputError(f"metrics: {', '.join(sorted(unknown))} not available for this input; "
                             f"available: {', '.join(sorted(known))}")
        specs = [s for s in specs if s.metric in wanted]
    return specs


def _binomial_region(s: Spec, k, n, delta):
    """One proportion k of n: audited at p̂, worst = the exact infimum over the Clopper–Pearson interval."""
    s.points = [dict(n=n, p=k / n)]
    s.region = cp(k, n, 1 - delta)
    s.region_text = (f"the exact infimum over p ∈ [{s.region[0]:.4g}, {s.region[1]:.4g}] "
                     f"(Clopper–Pearson at 1 − δ)")


def _with_recalls(rates, recalls):
    """The rate matrix with row i's recall set to recalls[i] and its misclassifications scaled to
    the rest (in their observed proportions; equal shares where the row had none)."""
    rates = np.asarray(rates, dtype=float)
    K = rates.shape[0]
    out = np.empty_like(rates)
    for i in range(K):
        off = np.delete(rates[i], i)
        share = off / off.sum() if off.sum() > 0 else np.full(K - 1, 1 / (K - 1))
        out[i] = np.insert(share * (1 - recalls[i]), i, recalls[i])
    return out


def auc_region(auc, n_pos, n_neg, delta):
    """A (1 - delta) interval for the AUC from the largest variance any pair of score
    distributions with that AUC allows, θ(1 - θ)/min(n_pos, n_neg) (van Dantzig 1951; Bamber
    1975, J. Math. Psychol. 12, 387-415): |AUĈ - θ| <= z·sqrt(θ(1 - θ)/m) solved for θ, a Wilson
    interval with m = min(n_pos, n_neg). Conservative up to the normal approximation."""
    z = float(stats.norm.ppf(1 - delta / 2))
    m = min(n_pos, n_neg)
    centre = (auc + z * z / (2 * m)) / (1 + z * z / m)
    half = z * math.sqrt(auc * (1 - auc) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return max(0.0, centre - half), min(1.0, centre + half)


def _phi(both, only_first, only_second, neither, lo, hi):
    """The correlation of two correctness indicators from a 2×2 table, 0 where a margin is empty,
    clipped to the range the design accepts for the class's rates."""
    margins = (both + only_first) * (only_second + neither) * (both + only_second) * (only_first + neither)
    phi = (both * neither - only_first * only_second) / math.sqrt(margins) if margins else 0.0
    return min(max(phi, lo), hi)


def _difference_specs(d: Data) -> list:
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
    point = dict(n=d.n, prevalence=n_pos / d.n, **rates, correlation_pos=rho_pos, correlation_neg=rho_neg)
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
        specs.append(s)
    return specs


def _auc_difference_spec(d: Data):
    """AUC(first) - AUC(second) on the same cases: the paired_binormal design at the observed AUCs and
    the mean within-class Spearman correlation of the two models' scores."""
    from ..methods.auc_difference import delong_covariance

    t = d.truth == 1
    p1, n1, p2, n2 = d.scores[t], d.scores[~t], d.second_scores[t], d.second_scores[~t]
    auc, _ = delong_covariance(np.stack([p1, p2]), np.stack([n1, n2]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant scores within a class: no correlation (nan -> 0)
        rs = [stats.spearmanr(u, v)[0] for u, v in ((p1, p2), (n1, n2))]
    rho = float(np.clip(np.nanmean(rs) if not np.all(np.isnan(rs)) else 0.0, -0.99, 0.99))
    s = Spec("auc_difference", float(auc[0] - auc[1]),
             dict(metric="auc_difference", pos_first=p1, neg_first=n1, pos_second=p2, neg_second=n2),
             _methods("paired_scores", "auc_difference"))
    s.design, s.coverage_metric = "paired_binormal", "auc_difference"
    clip = [min(max(float(v), 1e-3), 1 - 1e-3) for v in auc]
    s.points = [dict(n_pos=int(p1.size), n_neg=int(n1.size), auc_first=clip[0], auc_second=clip[1], correlation=rho)]
    s.plug_in = (f"binormal AUCs {auc[0]:.4g} and {auc[1]:.4g}, score correlation {rho:.3g} (Spearman, within "
                 f"class) at n_pos = {p1.size}, n_neg = {n1.size}")
    return s


def _auc_spec(name, pos, neg, delta):

    # the Mann–Whitney AUC with ties counted half
    ranks = stats.rankdata(np.concatenate([pos, neg]))
    auc = float((ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))
    s = Spec(name, auc, dict(metric="auc", scores_pos=pos, scores_neg=neg), _methods("scores", "auc"))
    s.design, s.coverage_metric = "binormal", "auc"
    lo, hi = auc_region(auc, pos.size, neg.size, delta)
    s.points = [dict(n_pos=int(pos.size), n_neg=int(neg.size), auc=min(max(v, 1e-3), 1 - 1e-3))
                for v in _axis(auc, lo, hi, 2)]
    s.region_text = (f"over the ends of the maximum-variance interval [{lo:.4g}, {hi:.4g}] of the AUC "
                     f"(van Dantzig/Bamber)")
    s.plug_in = f"a binormal AUC of {auc:.4g} at n_pos = {pos.size}, n_neg = {neg.size}"
    return s


# -------------------------------------------------------------------------------- evaluate

def evaluate(truth, predicted=None, scores=None, groups=None, second_predicted=None, second_scores=None,
             delta=0.05, positive=None, metrics=None, audit=True, seed=0, reps=REPS, questions=None) -> "Evaluation":
    """Every metric with every applicable interval method, each audited at the test set's
    operating point, and a recommended interval per metric.

    Parameters
    ----------
    truth : array-like or pandas Series
        The true label per example (strings or integers; two classes or more).
    predicted : array-like, optional
        The predicted label per example.
    scores : array-like, optional
        A score per example (higher = more positive), for the AUC (binary only).
    groups : array-like, optional
        A cluster id per example (patient, video, question): adds ``clustered_accuracy``.
    second_predicted, second_scores : array-like, optional
        A second model on the same examples: adds the paired ``accuracy_difference`` (first
        minus second) and ``superiority_probability``; ``auc_second`` from its scores.
    delta : float
        Intervals at level 1 - delta.
    positive : optional
        The positive class of binary labels (default: a label named 1/True/"pos"/"positive"/
        "yes", else the larger of two numbers; an error when that is ambiguous).
    metrics : sequence of str, optional
        Only these metrics.
    audit : bool
        Audit each method's coverage (exact where the design's engine is, Monte Carlo with
        ``reps`` test sets and ``seed`` otherwise).
    seed : int
        Seeds sampling methods and the Monte Carlo audit.
    reps : int
        Monte Carlo test sets per audited point.
    questions : array-like, optional
        A question id per row when rows are answers (an eval answering each question K times):
        adds ``eval_accuracy`` (per-question scores, clustered by ``groups`` if given; docs/evals.md).

    Returns
    -------
    Evaluation
        ``.table`` (one row per metric × method), ``.to_markdown()``, ``.plot()``, ``.save(folder)``.

    Raises
    ------
    InputError
        A ValueError with one line naming the column, before any work.

    Examples
    --------
    >>> import covstudy
    >>> ev = covstudy.evaluate([1, 1, 0, 0, 1, 0, 1, 1], [1, 0, 0, 0, 1, 1, 1, 1], metrics=["accuracy"])
    >>> row = ev.table.query("method == 'wilson'").iloc[0]
    >>> print(f"{row.estimate:.3f} [{row.lower:.4f}, {row.upper:.4f}]", row.engine, round(row.coverage_at_estimate, 4))
    0.750 [0.4093, 0.9285] exact 0.9727
    """
    import pandas as pd

    from .. import validate
    from ..intervals import interval

    delta = float(validate.delta(validate.scalar("delta", delta)))
    reps, seed = validate.reps_and_seed(REPS if reps is None else reps, seed)
    d = prepare(truth, predicted, scores, groups, second_predicted, second_scores, positive, questions)
    notes = []
    specs = _specs(d, delta, metrics)
    rows, reasons = [], {}
    for s in specs:
        for method, kind, qualified in s.methods:
            lo, hi = interval(qualified, delta=delta, seed=seed, **s.door)
            row = dict(metric=s.metric, method=method, kind=kind, estimate=s.estimate, lower=float(lo),
                       upper=float(hi), width=float(hi - lo), design=s.design or ("multiclass" if s.multiclass else None),
                       n=d.n)
            row.update(coverage_at_estimate=np.nan, coverage_mcse=np.nan, worst_coverage=np.nan, worst_mcse=np.nan,
                       mean_width=np.nan, engine=None, reps=None)
            if audit:
                row.update(audit_metric(s, method, qualified, delta, reps, seed))
            rows.append(row)
    table = pd.DataFrame(rows)
    table["recommended"] = False
    level = 1 - delta
    for s in specs:
        sel = table.index[table.metric == s.metric]
        pick, why = _recommend(table.loc[sel], level, audit, s)
        if pick is not None:
            table.loc[pick, "recommended"] = True
        reasons[s.metric] = why
        if s.metric == "clustered_accuracy" and audit:
            naive = table.loc[sel][table.loc[sel, "method"] == "wilson"]
            if len(naive) and naive.worst_coverage.iloc[0] < level - EPSILON:
                msg = (f"groups: the estimated ICC is {s.icc:.3g}; i.i.d. intervals (wilson) cover "
                       f"{naive.coverage_at_estimate.iloc[0]:.3f} at this operating point and as little as "
                       f"{naive.worst_coverage.iloc[0]:.3f} over its region (nominal {level:g}): "
                       f"use the clustered_accuracy rows, not accuracy")
                warnings.warn(msg, stacklevel=2)
                notes.append(msg)
    if d.second is not None and (metrics is None or "superiority_probability" in metrics):
        from ..comparison import superiority_probability

        c = next(s.cells for s in specs if s.metric == "accuracy_difference") if any(
            s.metric == "accuracy_difference" for s in specs) else None
        if c is None:
            a, b = d.predicted == d.truth, d.second == d.truth
            c = dict(only_first=int(np.sum(a & ~b)), only_second=int(np.sum(~a & b)))
        prob = float(superiority_probability(c["only_first"], c["only_second"]))
        extra = dict(metric="superiority_probability", method="bayes", kind="paired", estimate=prob, lower=np.nan,
                     upper=np.nan, width=np.nan, design="paired", n=d.n, recommended=True)
        table = pd.concat([table, pd.DataFrame([extra])], ignore_index=True)
        reasons["superiority_probability"] = ("P(first model more accurate | data) under a uniform Dirichlet "
                                              "prior on the four paired cells; a probability, not an interval.")
    cols = COLUMNS + [c for c in table.columns if c not in COLUMNS]
    table = table[cols]
    growth = _growth(specs, table, delta, reps, seed) if audit else None
    info = {"n": d.n, "classes": d.classes, "positive": d.positive, "delta": delta, "epsilon": EPSILON,
            "reps": reps, "seed": seed, "columns": d.names,
            "plug_in": {s.metric: s.plug_in for s in specs}}
    return Evaluation(table, reasons, notes, info, growth)


def _recommend(rows, level, audited, s):
    """The narrowest method whose worst coverage >= level - EPSILON (less Z_MCSE MCSE for a Monte
    Carlo row: not shown to fall short), else the guaranteed one."""
    floor = level - EPSILON
    ok = (rows[rows.worst_coverage + Z_MCSE * rows.worst_mcse.fillna(0) >= floor] if audited
          else rows.iloc[:0])
    if len(ok):
        ok = ok.sort_values(["mean_width", "width"])
        best = ok.index[0]
        plain = ok[~ok.method.isin(BOOTSTRAP)]
        if best not in plain.index and len(plain) and plain.mean_width.iloc[0] <= (1 + TIE) * ok.mean_width.iloc[0]:
            best = plain.index[0]  # a resampling interval changes with the seed: only for a real gain in width
        r = rows.loc[best]
        mc = f" ± {r.worst_mcse:.3f} (Monte Carlo, {int(r.reps)} test sets a point)" if r.engine == "mc" else " (exact)"
        where = f"worst coverage {s.region_text}" if s.region_text else "coverage at the operating point"
        short = (f", within {Z_MCSE} MCSE of" if r.worst_coverage < floor else ", is at least")
        return best, (f"{r.method} is the narrowest method (expected width {r.mean_width:.4f}) whose {where}, "
                      f"{r.worst_coverage:.4f}{mc}{short} {floor:.3f}; operating point: {s.plug_in}.")
    kinds = rows.kind.tolist()
    for kind in dict.fromkeys(kinds):
        g = GUARANTEED.get(kind)
        hit = rows.index[(rows.method == g) & (rows.kind == kind)]
        if len(hit):
            why = ("no method's worst coverage reached " f"{floor:.3f}" if audited else "no audit was run")
            return hit[0], f"{g} is the guaranteed (conservative) method of this kind, recommended because {why}."
    if audited and rows.worst_coverage.notna().any():
        best = rows.worst_coverage.idxmax()
        return best, (f"{rows.loc[best, 'method']} has the highest worst coverage "
                      f"({rows.loc[best, 'worst_coverage']:.4f}), below {floor:.3f}: treat it with care.")
    return None, "not audited: no recommendation."


# ------------------------------------------------------------------------------- the result

SCALES = (0.5, 1.0, 2.0, 4.0)  # test-set sizes of the width-vs-n curve, as multiples of the user's
SIZES = ("n", "n_pos", "n_neg", "clusters")  # the axes that scale with the test set


def _eval_spec(d: Data, delta) -> "Spec":
    """``eval_accuracy``: per-question correct counts of the answers, the eval methods and Wilson on the pooled
    answers, audited on the eval design at the plug-in point (equal groups, mean K, ``eval_iccs``)."""
    from ..intervals import interval

    correct = np.bincount(d.questions, weights=(d.predicted == d.truth)).astype(np.int64)
    answers = np.bincount(d.questions).astype(np.int64)
    if d.groups is not None:
        group = np.zeros(answers.size, dtype=np.int64)
        group[d.questions] = d.groups
        _, group = np.unique(group, return_inverse=True)
    else:
        group = np.arange(answers.size)  # no groups: each question its own
    m, g = answers.size, int(group.max()) + 1
    acc = float(correct.sum() / answers.sum())
    door = dict(design="eval", correct=correct, answers=answers, group=group)
    s = Spec("eval_accuracy", acc, door, [x for x in _methods("eval", "accuracy") if x[1] == "eval" or x[0] == "wilson"])
    s.design, s.coverage_metric = "eval", "accuracy"
    icc_group, icc_question = eval_iccs(correct, answers, group)
    lo, hi = interval("eval.wilson_design", delta=delta, **door)
    k = max(1, int(round(answers.mean())))
    s.points = [dict(questions=g * max(1, round(m / g)), groups=g, answers=k, p=p, icc_group=icc_group,
                     icc_question=icc_question) for p in _axis(acc, lo, hi)]
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


def _examples(point: dict) -> int:
    """The examples a design point's test set holds: n, or n_pos + n_neg, or clusters × cluster size."""
    if "n" in point:
        return int(point["n"])
    if "n_pos" in point:
        return int(point["n_pos"] + point["n_neg"])
    if "questions" in point:
        return int(point["questions"] * point["answers"])
    return int(point["clusters"] * point["cluster_size"])


def _growth(specs, table, delta, reps, seed):
    """How the recommended interval shrinks with more data: its expected width at the plug-in
    operating point for test sets SCALES times the user's (``coverage()``'s mean_width, exact where
    the engine is), and for the metrics of one proportion the n whose expected width is half
    today's (``plan``, exact). One row per metric × scale."""
    import pandas as pd

    from ..planning.plan import plan

    rows = []
    for s in specs:
        pick = table[(table.metric == s.metric) & table.recommended]
        if (not s.points or s.multiclass is not None or s.design == "eval" or not len(pick)
                or np.isnan(pick.mean_width.iloc[0])):  # eval: equal groups do not scale by 0.5-4
            continue
        r = pick.iloc[0]
        qualified = next(q for m, k, q in s.methods if m == r.method and k == r.kind)
        point = s.points[0]
        axes = {k: np.array([max(1, round(v * f)) if k in SIZES else v for f in SCALES]) for k, v in point.items()}
        n_reps = reps if s.design not in ("binormal", "paired_binormal") else int(min(reps, max(200, AUC_BUDGET // int(axes["n_pos"][-1]
                                                                                        + axes["n_neg"][-1]))))
        if r.method in BOOTSTRAP:  # as its audit, at the largest test set
            n_reps = _bootstrap_reps(qualified, s, reps, {k: v[-1] for k, v in axes.items()})
            if n_reps is None:
                continue
        widths = np.atleast_1d(_coverage(qualified, s.design, s.coverage_metric, axes, delta, n_reps, seed).mean_width)
        half = None
        if s.design == "binomial":
            try:
                half = plan(qualified, delta=delta, p=point["p"], width=float(r.mean_width) / 2).n
            except ValueError:
                pass
        for i, f in enumerate(SCALES):
            rows.append(dict(metric=s.metric, method=r.method, scale=f, n=_examples({k: v[i] for k, v in axes.items()}),
                             mean_width=float(widths[i]), n_for_half_width=half))
    return pd.DataFrame(rows) if rows else None


@dataclass
class Evaluation:
    """The result of ``evaluate``: the table, a reason per metric, warnings and the inputs' summary."""

    table: "object"
    reasons: dict
    warnings: list
    info: dict
    growth: "object" = None  # how the recommended intervals shrink with more data (``_growth``), or None

    @property
    def recommended(self):
        """The recommended row of each metric."""
        return self.table[self.table.recommended].reset_index(drop=True)

    def __repr__(self):
        return f"Evaluation(n={self.info['n']}, delta={self.info['delta']:g})\n" + _text(self.recommended)

    def to_markdown(self) -> str:
        """The report: the recommended intervals, why, warnings, the full audited table, a LaTeX table."""
        i = self.info
        level = 1 - i["delta"]
        lines = ["# covstudy-evaluate report", "",
                 f"{i['n']} examples; classes {', '.join(map(repr, i['classes']))}"
                 + (f" (positive: {i['positive']!r})" if i["positive"] is not None else "")
                 + f"; intervals at level {level:g}; recommendation tolerance ε = {i['epsilon']}; "
                 f"Monte Carlo audit with {i['reps']} test sets, seed {i['seed']}.", ""]
        for w in self.warnings:
            lines += [f"> **Warning:** {w}", ""]
        lines += ["## Recommended intervals", "", _md(self.recommended, ["metric", "method", "estimate", "lower",
                                                                         "upper", "coverage_at_estimate",
                                                                         "worst_coverage"]), ""]
        lines += ["## Why", ""] + [f"- **{m}**: {why}" for m, why in self.reasons.items()] + [""]
        if self.growth is not None:
            g = self.growth
            lines += ["## How the interval shrinks with more data", "",
                      "Expected width of the recommended interval at this operating point for test sets of "
                      f"{', '.join(f'{f:g}' for f in SCALES)} times this one, and for the metrics of one proportion "
                      "the n whose expected width is half today's (exact, `covstudy.plan`; n counts the examples the "
                      "metric reads: positives for recall, negatives for specificity):", ""]
            wide = g.pivot_table(index=["metric", "method"], columns="scale", values="mean_width", sort=False)
            head = "| metric | method | " + " | ".join(f"width at {f:g}×" for f in wide.columns) + " | n for half the width |"
            half = g.groupby(["metric", "method"], sort=False)["n_for_half_width"].first()
            body = [f"| {m} | {meth} | " + " | ".join(f"{w:.4f}" for w in ws) + " | "
                    + ("" if half[(m, meth)] is None or half[(m, meth)] != half[(m, meth)] else f"{int(half[(m, meth)]):,}")
                    + " |" for (m, meth), ws in zip(wide.index, wide.to_numpy())]
            lines += [head, "|---|---|" + "---:|" * (len(wide.columns) + 1), *body, "",
                      "![width against n](width_vs_n.png)", ""]
        lines += ["## Every method, audited", "",
                  "coverage_at_estimate: coverage at the plug-in operating point; worst_coverage: the lowest "
                  "coverage over a (1 − δ) region of the operating point — the exact infimum for accuracy, recall "
                  "and specificity, the minimum over a grid of the region otherwise (docs/evaluate.md); "
                  "mean_width: the expected width at the plug-in point; engine: exact or Monte Carlo (mc, with "
                  "coverage_mcse and worst_mcse; bootstrap methods with at most "
                  f"{BOOT_REPS} test sets a point, none when that would cost too much).", "",
                  _md(self.table, ["metric", "method", "estimate", "lower", "upper", "coverage_at_estimate",
                                   "coverage_mcse", "worst_coverage", "worst_mcse", "mean_width", "engine",
                                   "recommended"]), ""]
        lines += ["## LaTeX", "", "```latex", _latex(self.recommended), "```", ""]
        return "\n".join(lines)

    def plot(self, path=None):
        """A forest plot: one panel per metric, methods side by side, the recommended one marked,
        the audited coverage written beside each. Returns the figure (saved to ``path`` if given)."""
        import matplotlib.pyplot as plt

        from ..plots.style import save_figure

        t = self.table[self.table.lower.notna()]
        groups = list(dict.fromkeys(t.metric))
        heights = [max(1, (t.metric == m).sum()) for m in groups]
        fig, axes = plt.subplots(len(groups), 1, figsize=(7.5, 0.9 + 0.22 * sum(heights) + 0.35 * len(groups)),
                                 gridspec_kw={"height_ratios": heights}, squeeze=False)
        for ax, m in zip(axes[:, 0], groups):
            g = t[t.metric == m].reset_index(drop=True)
            y = np.arange(len(g))[::-1]
            for yi, (_, r) in zip(y, g.iterrows()):
                colour = "C3" if r.recommended else "0.35"
                ax.plot([r.lower, r.upper], [yi, yi], color=colour, lw=2.2 if r.recommended else 1.2)
                label = "" if np.isnan(r.coverage_at_estimate) else f"{r.coverage_at_estimate:.3f}"
                if not np.isnan(r.worst_coverage):
                    label += f" (worst {r.worst_coverage:.3f})"
                ax.annotate(label, (1.01, yi), xycoords=("axes fraction", "data"), va="center", fontsize=6.5,
                            color=colour)
            ax.axvline(g.estimate.iloc[0], color="0.6", lw=0.8, ls="--")
            ax.set_yticks(y, [f"{r.method}{' ★' if r.recommended else ''}" for _, r in g.iterrows()], fontsize=7)
            ax.set_ylim(-0.7, len(g) - 0.3)
            ax.set_title(f"{m} = {g.estimate.iloc[0]:.4g}", fontsize=8, loc="left")
            ax.tick_params(axis="x", labelsize=7)
        fig.suptitle(f"{1 - self.info['delta']:g} intervals (★ recommended; audited coverage at the operating point, "
                     f"worst over its region)", fontsize=8)
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / fig.get_figheight()))  # the title above the first panel
        if path is not None:
            save_figure(fig, path, bbox_inches="tight")
        return fig

    def plot_widths(self):
        """The width-vs-n figure: each metric's recommended interval's expected width against the
        test-set size (log-log), the user's n marked."""
        import matplotlib.pyplot as plt

        g = self.growth
        fig, ax = plt.subplots(figsize=(8, 4))
        for (metric, method), rows in g.groupby(["metric", "method"], sort=False):
            line, = ax.plot(rows.n, rows.mean_width, marker="o", ms=3, lw=1.2, label=f"{metric} ({method})")
            now = rows[rows.scale == 1.0]
            ax.plot(now.n, now.mean_width, marker="o", ms=7, mfc="none", color=line.get_color())
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("test-set size n (examples)")
        ax.set_ylabel("expected width of the recommended interval")
        ax.set_title(f"How the {1 - self.info['delta']:g} intervals shrink with more data (circle: this test set)",
                     fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the lines, not over them
        fig.tight_layout()
        return fig

    def save(self, folder):
        """Write table.csv, report.md, report.html (interactive: ``explorer.evaluation_page``),
        forest.png/.pdf and (after an audit) width_vs_n.png/.pdf to ``folder``; returns its path."""
        import matplotlib.pyplot as plt

        from ..report.explorer import write_evaluation_html
        from ..plots.style import save_figure

        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        self.table.to_csv(out / "table.csv", index=False)
        fig = self.plot()
        for ext in ("png", "pdf"):
            save_figure(fig, out / f"forest.{ext}", bbox_inches="tight", dpi=150 if ext == "png" else None)
        plt.close(fig)
        if self.growth is not None:
            fig = self.plot_widths()
            for ext in ("png", "pdf"):
                save_figure(fig, out / f"width_vs_n.{ext}", bbox_inches="tight", dpi=150 if ext == "png" else None)
            plt.close(fig)
        (out / "report.md").write_text(self.to_markdown() + "\n![forest plot](forest.png)\n")
        write_evaluation_html(self, out)
        return out


def _fmt(v):
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else ""
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else f"{v:.4f}"
    return "" if v is None else str(v)


def _md(frame, cols) -> str:
    head = "| " + " | ".join(cols) + " |"
    rule = "|" + "|".join("---" for _ in cols) + "|"
    body = ["| " + " | ".join(_fmt(r[c]) for c in cols) + " |" for _, r in frame.iterrows()]
    return "\n".join([head, rule, *body])


def _text(frame) -> str:
    cols = ["metric", "method", "estimate", "lower", "upper", "coverage_at_estimate", "worst_coverage"]
    cells = [[c for c in cols]] + [[_fmt(r[c]) for c in cols] for _, r in frame.iterrows()]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    return "\n".join("  ".join(v.rjust(w) if j else v.ljust(w) for j, (v, w) in enumerate(zip(row, widths)))
                     for row in cells)


def _latex(frame) -> str:
    rows = [r"\begin{tabular}{llrrrr}", r"\hline",
            r"Metric & Method & Estimate & Interval & Coverage & Worst \\", r"\hline"]
    for _, r in frame.iterrows():
        ci = "" if np.isnan(r.lower) else f"[{r.lower:.4f}, {r.upper:.4f}]"
        rows.append(f"{r.metric.replace('_', ' ')} & {r.method.replace('_', ' ')} & {r.estimate:.4f} & {ci} & "
                    f"{_fmt(r.coverage_at_estimate)} & {_fmt(r.worst_coverage)} \\\\")
    return "\n".join(rows + [r"\hline", r"\end{tabular}"])
