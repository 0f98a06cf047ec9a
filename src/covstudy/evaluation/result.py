"""``covstudy.evaluate``: from a test set's predictions to audited intervals, a recommendation and a report.

The wing's door: ``evaluate`` wires the steps, each a module of one job, data flowing one way:

    data.prepare             the user's columns, checked (InputError) and encoded as codes and counts
    -> metrics.metric_specs  one Spec per metric: estimate, door arguments, methods, operating point and
                             (1 - delta) region (its points from ``region``)
    -> intervals.interval    every method's interval on the spec's counts (the library's one interval door)
    -> audit.audit_metric    each method's coverage at the operating point and the worst over the region
    -> recommend.mark        the recommended method per metric, and why
    -> growth.growth_table   the recommended interval's expected width at other test-set sizes
    -> Evaluation            the result; its text, report, figures and files come from ``render``

The metrics and their regions, the audit, and the rule are described in those modules' docstrings and in
docs/evaluate.md. Long because ``evaluate`` is the wing's one door: its documented parameters, the steps it
wires, and the other doors onto it (``Evaluation.from_estimator``, ``from_predictions``: scikit-learn's words,
evaluation/estimators.py) sit together.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass

import numpy as np

from . import answer, calibration, cost, render
from .audit import REPS, audit_metric
from .data import MAX_CLASSES, MAX_ROWS, InputError, prepare, prepare_answers
from .growth import growth_table
from .metrics import BINARY_METRICS as BINARY_ORDER, metric_specs
from .recommend import EPSILON, MET, mark

PROGRESS_AFTER = 2.0  # seconds before the progress line appears (quick runs print none)
PROGRESS_EVERY = 0.1  # seconds between redraws of the line (tqdm's mininterval; 0: at every step, as the tests ask)
COLUMNS = ["metric", "method", "estimate", "lower", "upper", "width", "coverage_at_estimate", "coverage_mcse",
           "worst_coverage", "worst_mcse", "worst_bound", "worst_is_upper_bound", "worst_at", "audit", "meets_target",
           "mean_width", "engine", "reps", "recommended", "narrower", "guaranteed", "design", "n", "note"]


@dataclass
class Evaluation(answer.Words):
    """The result of ``evaluate``: the table, a reason per metric, warnings and the inputs' summary; in words
    (``answer``, ``verdicts``, ``comparing``, Jupyter's view: ``answer.Words``).

    Examples
    --------
    >>> import covstudy
    >>> ev = covstudy.evaluate([1, 1, 0, 1, 0, 1, 1, 0, 1, 1] * 5, [1, 0, 0, 1, 0, 1, 1, 1, 1, 1] * 5,
    ...                        metrics=["accuracy"])
    >>> print(ev.recommended[["metric", "method", "estimate"]].to_string(index=False))
      metric method  estimate
    accuracy blaker       0.8
    >>> list(ev.table.columns[:5])
    ['metric', 'method', 'estimate', 'lower', 'upper']
    """

    table: "object"
    reasons: dict
    warnings: list
    info: dict
    growth: "object" = None  # how the recommended intervals shrink with more data (``growth_table``), or None

    @property
    def recommended(self):
        """The recommended row of each metric."""
        return self.table[self.table.recommended].reset_index(drop=True)

    def __repr__(self):
        return f"Evaluation(n={self.info['n']}, delta={self.info['delta']:g})\n" + answer.screen(self)

    def to_markdown(self) -> str:
        """The report: the recommended intervals, why, warnings, the full audited table, a LaTeX table."""
        return render.markdown(self)

    def plot(self, path=None):
        """A forest plot: one panel per metric, methods side by side, the recommended one marked,
        the audited coverage written beside each. Returns the figure (saved to ``path`` if given)."""
        return render.forest(self, path)

    def plot_widths(self):
        """The width-vs-n figure: each metric's recommended interval's expected width against the
        test-set size (log-log), the user's n marked."""
        return render.width_figure(self)

    @classmethod
    def from_estimator(cls, estimator, X, y, second=None, *, response_method="auto", pos_label=None,
                       sample_weight=None, **kwargs) -> "Evaluation":
        """``evaluate`` on a fitted scikit-learn classifier's predictions on ``X`` against ``y``, in
        scikit-learn's words (``RocCurveDisplay.from_estimator``): its score for the AUC is ``predict_proba``'s
        ``pos_label`` column, else ``decision_function`` (``response_method``); ``pos_label`` (default
        ``classes_[1]``) is ``evaluate``'s ``positive``; ``second`` a second fitted classifier, compared with
        the first on the same examples. ``sample_weight`` is refused (each example counts once). Other
        keywords are ``evaluate``'s (``delta``, ``metrics``, ``groups``, ``budget``, ...). A ``Pipeline``
        works; a multi-class classifier gives its labels (evaluation/estimators.py).

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.pipeline import make_pipeline
        >>> from sklearn.preprocessing import StandardScaler
        >>> from covstudy import Evaluation
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[::2], y[::2])
        >>> ev = Evaluation.from_estimator(model, X[1::2], y[1::2], metrics=["accuracy", "auc"], audit=False,
        ...                                progress=False)
        >>> print(ev.recommended[["metric", "estimate"]].round(4).to_string(index=False))
          metric  estimate
        accuracy    0.9542
             auc    0.9885
        """
        from .estimators import estimator_arguments

        return evaluate(**estimator_arguments(estimator, X, y, second, response_method=response_method,
                                              pos_label=pos_label, sample_weight=sample_weight, **kwargs))

    @classmethod
    def from_predictions(cls, y_true, y_pred=None, y_score=None, *, pos_label=None, sample_weight=None,
                         second_pred=None, second_score=None, **kwargs) -> "Evaluation":
        """``evaluate(y_true, y_pred, y_score, positive=pos_label, second_predicted=second_pred,
        second_scores=second_score, ...)`` in scikit-learn's words (``ConfusionMatrixDisplay.from_predictions``,
        ``RocCurveDisplay.from_predictions``); ``sample_weight`` is refused (each example counts once)."""
        from .estimators import predictions_arguments

        return evaluate(**predictions_arguments(y_true, y_pred, y_score, pos_label=pos_label,
                                                sample_weight=sample_weight, second_pred=second_pred,
                                                second_score=second_score, **kwargs))

    def save(self, folder):
        """Write table.csv, report.md, report.html (interactive: ``report.evaluation_page``),
        forest.png/.pdf and (after an audit) width_vs_n.png/.pdf to ``folder``; returns its path."""
        return render.save(self, folder)


IID_NOTE = "i.i.d.: ignores the groups; use clustered_{metric}"
# without an audit each clustered metric keeps a recommendation that accounts for the groups: (method, what it is)
UNAUDITED_CLUSTERED = {
    "clustered_accuracy": ("wilson_vif", "Wilson's interval with z² inflated by the variance inflation of the "
                                         "ANOVA ICC, truncated at 0"),
    "clustered_precision": ("ratio_wald", "the Wald interval of a ratio of cluster totals with its cluster-robust "
                                          "(linearised) variance"),
}
UNAUDITED_CLUSTERED["clustered_recall"] = UNAUDITED_CLUSTERED["clustered_f1"] = UNAUDITED_CLUSTERED["clustered_precision"]
UNAUDITED_CLUSTERED["clustered_auc"] = ("obuchowski", "the Wald interval with Obuchowski's clustered variance of the AUC")


# without an audit no eval method is guaranteed: these are recommended (the evals studies' choices, docs/guide/evals.md)
_WILSON_DESIGN = ("wilson_design", "Wilson on the pooled answers at the Korn–Graubard effective sample size, t on "
                                   "G − 1 degrees of freedom; median coverage 0.95 over the evals study's grid "
                                   "(experiments/evals)")
UNAUDITED_EVAL = {
    "eval_accuracy": _WILSON_DESIGN, "eval_accuracy_second": _WILSON_DESIGN,
    "eval_accuracy_difference": ("clustered_t", "the paired clustered t: CR1 standard error of the per-question "
                                                "differences, t on G − 1 degrees of freedom; it kept false differences "
                                                "at 4–6% where the unpaired comparison made 14–78% "
                                                "(experiments/evals_paired)"),
}


def _unaudited_eval(table, reasons):
    """An eval metric with no recommended row (no audit was run): UNAUDITED_EVAL's method."""
    for metric, (method, what) in UNAUDITED_EVAL.items():
        sel = table.metric == metric
        hit = table.index[sel & (table.method == method)]
        if not sel.any() or table.loc[sel, "recommended"].astype(bool).any() or not len(hit):
            continue
        table.loc[hit[0], "recommended"] = True
        reasons[metric] = f"{method} ({what}) is recommended without an audit."


def _clustered_first(table, reasons, audited):
    """With groups, the clustered rows lead and the recommended i.i.d. row of each metric they cover says it
    ignores them; a clustered metric with no recommendation (no audit, or none qualified) is given
    UNAUDITED_CLUSTERED's method, which accounts for the groups."""
    grouped = [m for m in UNAUDITED_CLUSTERED if m in set(table.metric)]
    for metric in grouped:
        sel = table.metric == metric
        method, what = UNAUDITED_CLUSTERED[metric]
        hit = table.index[sel & (table.method == method)]
        met = table.loc[sel, "meets_target"].isin(MET).any()
        if len(hit) and not met and (metric != "clustered_accuracy" or not table.loc[sel, "recommended"].any()):
            # none shown to meet the target (or no audit): the cluster-aware method whose interval does not
            # depend on a seed, rather than the row a noisy audit ranks highest
            r = table.loc[hit[0]]
            table.loc[sel, "recommended"] = False
            table.loc[hit[0], "recommended"] = True
            if not audited:
                why = "without an audit"
            elif metric == "clustered_accuracy":
                why = f"because {reasons.get(metric, '')}"
            elif r.coverage_at_estimate != r.coverage_at_estimate:  # its audit was cut to fit the budget
                why = f"though it was not audited ({r.note or 'no audit'})"
            else:
                why = (f"though no method was shown to meet the target (its coverage at the operating point is "
                       f"{r.coverage_at_estimate:.4f} ± {r.coverage_mcse:.3f}, Monte Carlo, {int(r.reps)} test sets: "
                       f"treat it with care)")
            reasons[metric] = (f"{method} ({what}) is recommended {why}: unlike the i.i.d. "
                               f"{metric.removeprefix('clustered_')} rows it accounts for the groups.")
    if "note" not in table:
        table["note"] = ""
    for metric in grouped:
        iid = metric.removeprefix("clustered_")
        table.loc[(table.metric == iid) & table.recommended, "note"] = IID_NOTE.format(metric=iid)
    order = grouped + [m for m in dict.fromkeys(table.metric) if m not in grouped]
    table = table.sort_values("metric", key=lambda m: m.map({k: i for i, k in enumerate(order)}),
                              kind="stable").reset_index(drop=True)
    return table, {m: reasons[m] for m in order if m in reasons}


def _guaranteed(qualified) -> bool:
    """The method registry's flag: coverage >= 1 - delta for every parameter value, by proof (``recommend``)."""
    from ..methods import methods

    return bool(methods()[qualified].guaranteed)


def resampling_cost(qualified, door) -> str:
    """Why a resampling method is not computed on these data ("" : it is): its draws × the numbers one
    draw resamples (the sizes of the door's array arguments) past RESAMPLES_MAX."""
    from ..methods import methods

    draws = next((p.default for p in methods()[qualified].params if p.name == "draws"), None)
    if draws is None or not methods()[qualified].per_test_set:
        return ""
    size = sum(int(np.size(v)) for v in door.values() if np.ndim(v) > 0)
    if draws * size <= cost.RESAMPLES_MAX:
        return ""
    return (f"not computed: {draws:,} resamples of {size:,} numbers is {draws * size:.1e}, more than "
            f"{cost.RESAMPLES_MAX:.0e} (~2 CPU-s, evaluation.cost.RESAMPLES_MAX); the other methods' rows are computed")


def _audit_rows(s, rows, delta, reps, seed, guarantee, audit_all, bar, plan=None, hits=None, store=False):
    """Audit one metric's rows ((row, qualified name) pairs, updated in place): the candidates of
    ``recommend.audit_order`` (not a guaranteed row, which meets the target by proof, nor one at least as wide
    on the data as the narrowest guaranteed row), the plain methods narrowest on the user's data first: once
    one meets the target (certified at 1 - delta with ``guarantee``), every row at least as wide is left
    unaudited with a note, since the recommendation could not be it (a narrower interval that meets the target
    exists). Resampling methods come last, each audited only if it could still be recommended: no method met the
    target, or it is more than recommend.TIE narrower than the one that did. ``audit_all``: every row not guaranteed.

    ``plan`` (``cost.plan``): each audit as the budget cut it, charged its forecast; ``hits`` the cache
    entries found while planning ({key: audit columns}); ``store``: write each fresh audit to the cache."""
    from . import cache
    from .audit import BOOTSTRAP
    from .recommend import TIE, audit_order, meets

    level = 1 - delta
    order, skip = audit_order([row for row, _ in rows], audit_all)
    for i, note in skip.items():
        rows[i][0]["note"] = note
    bar.update(len(rows) - len(order))
    stop = None  # (width, method) of the narrowest row that meets the target
    for i in order:
        row, qualified = rows[i]
        bar.set_postfix_str(f"{s.metric} · {row['method']} (audit)", refresh=False)
        job = plan.job(s.metric, qualified) if plan is not None else None
        refused = plan.admit(job) if job is not None else ""
        if stop is not None and row["width"] >= stop[0]:
            row["note"] = f"not audited: wider on your data than {stop[1]}, which meets the target (--audit-all)"
        elif stop is not None and row["method"] in BOOTSTRAP and row["width"] * (1 + TIE) >= stop[0]:
            row["note"] = (f"not audited: less than {TIE:.0%} narrower on your data than {stop[1]}, which meets "
                           f"the target; a resampling method is recommended only for a larger gain (--audit-all)")
        elif refused:
            row["note"] = refused
        else:
            r = reps if job is None or job.reps is None else job.reps
            work, confirm = (None, None) if job is None else (job.work, job.confirm)
            digest = (cache.key(s, qualified, delta, r, seed, {"work": work, "confirm": confirm})
                      if hits is not None or store else None)
            found = (hits or {}).get(digest)
            try:
                audited = cache.restore(found) if found is not None else audit_metric(s, row["method"], qualified,
                                                                                      delta, r, seed, work, confirm)
            except ValueError as e:  # the design refuses this test set before any work (a size it cannot simulate)
                audited, found = {"note": f"not audited: {e}"}, {}
            if store and found is None:
                cache.write(digest, audited)
            row.update(audited)
            if job is not None:
                plan.charge(job)
                if cut := cost.cut_note(job, audited, reps):  # after the audit's own note (an undecided margin)
                    row["note"] = f"{row['note']}; {cut}" if row.get("note") else cut
            verdict = meets(row, level - EPSILON)
            if (not audit_all and stop is None and row["method"] not in BOOTSTRAP and verdict in MET
                    and (not guarantee or verdict == "guaranteed" or row["guaranteed"]
                         or verdict == "certified" and row["worst_bound"] >= level)):
                stop = (row["width"], row["method"])
        bar.update()


def _lookup(hits, delta, seed):
    """``cost.plan``'s question, does a cache entry answer this audit: read it into ``hits`` if so."""
    from . import cache

    def lookup(s, qualified, reps, work, confirm):
        digest = cache.key(s, qualified, delta, reps, seed, {"work": work, "confirm": confirm})
        if digest not in hits:
            found = cache.read(digest)
            if found is None:
                return False
            hits[digest] = found
        return True

    return lookup


def _checked_options(truth, metrics, audit, guarantee, audit_all, max_classes, max_rows, classes=None):
    """The options a column check does not see, checked before any work: (metrics, max_classes, max_rows)."""
    from .. import validate

    if truth is None:
        raise InputError("truth: give the true label of every example")
    flags = {name: validate.flag(name, value) for name, value in
             (("audit", audit), ("guarantee", guarantee), ("audit_all", audit_all))}
    for name in ("guarantee", "audit_all"):
        if flags[name] and not flags["audit"]:
            raise InputError(f"{name}: needs the coverage audit, and audit is False; drop one of them")
    if metrics is not None:
        if isinstance(metrics, str):  # "accuracy" is one metric, not the letters a, c, c, ...
            metrics = [metrics]
        if not isinstance(metrics, (list, tuple)) or not metrics or not all(isinstance(m, str) for m in metrics):
            raise InputError(f"metrics: give one metric name or more (or None: every metric), got {metrics!r}")
        metrics = list(metrics)
    if classes is not None and not isinstance(classes, (str, list, tuple)):
        raise InputError(f"classes: a list of labels or an 'A,B,...' string, got {classes!r}")
    return metrics, validate.whole("max_classes", max_classes, 2), validate.whole("max_rows", max_rows, 1)


def evaluate(truth=None, predicted=None, scores=None, groups=None, second_predicted=None, second_scores=None,
             delta=0.05, positive=None, metrics=None, audit=True, seed=0, reps=REPS, questions=None,
             guarantee=False, classes=None, progress=True, judge=None, max_classes=MAX_CLASSES,
             max_rows=MAX_ROWS, audit_all=False, budget=None, cache=True, correct=None,
             second_correct=None) -> "Evaluation":
    """Every metric with every applicable interval method, each audited at the test set's
    operating point, and a recommended interval per metric.

    Parameters
    ----------
    truth : array-like or pandas Series
        The true label per example (strings or integers; two classes or more). Required, unless the rows
        are scored answers (``correct``).
    predicted : array-like, optional
        The predicted label per example.
    scores : array-like, optional
        A score per example (higher = more positive), for the AUC (binary only).
    groups : array-like, optional
        A cluster id per example (patient, video, question): adds ``clustered_accuracy`` and, for binary
        labels, ``clustered_precision``, ``clustered_recall``, ``clustered_f1`` (and ``clustered_auc`` with
        scores), which lead the table.
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
    guarantee : bool
        Recommend only methods whose certified lower bound of the worst coverage over the region is
        at least 1 - delta (else the kind's guaranteed method); default: the narrowest method whose
        worst coverage meets 1 - delta - EPSILON, certified or estimated (``meets_target``).
    classes : sequence or "A,B,..." string, optional
        The labels the data may hold (1 matches "1"): another label in truth or predicted is an
        error, so a stray label cannot turn a binary run into a multiclass one. Without it a class
        with fewer than 1% of the rows is named in a warning. ``info["read"]`` says what was read.
    progress : bool
        A progress line on stderr (metric · method, done of all, time left) when the run takes more
        than PROGRESS_AFTER seconds; nothing on stdout.
    judge : array-like, optional
        A judge's label for every row (an LLM autorater); rows whose truth is empty are labelled by
        the judge alone. Adds ``judged_rate``, the positive rate over all rows, with the judged
        methods (PPI, PPI++, Bayes, ...; docs/judged.md); the judge is the labelled rows' predicted label.
    max_classes, max_rows : int
        Bounds checked before any work (default 100 classes, 10⁷ rows): beyond, an ``InputError`` that
        says how to raise them.
    audit_all : bool
        Audit every method but the guaranteed ones (their coverage is proven; never audited). By default
        only the methods narrower on the data than the narrowest guaranteed one are audited, narrowest
        first, stopping at the first that meets the target: a wider interval could not be the
        recommendation, and its row says so (``_audit_rows``).
    budget : float, optional
        CPU seconds the whole run may take (default $COVSTUDY_BUDGET, else ``cost.BUDGET``, 10; ``inf``: no
        budget). The cost is forecast before any audit (``info["forecast"]``; with ``progress``, a line on
        stderr); where the forecast passes the budget the audits are cut to fit, and each cut row's note says
        what was cut (``cost``; docs/evaluate.md "Cost").
    correct, second_correct : array-like, optional
        Scored answers instead of labels: a 0/1 (or bool) per row, an LLM eval's per-sample metric (``acc``,
        ``exact_match``, inspect_ai's C/I), with ``questions`` (default: each row its own question) and
        ``groups``; ``truth`` is then left out. Gives ``eval_accuracy``; ``second_correct``, a second run's
        score of the same rows, adds ``eval_accuracy_second`` and the paired ``eval_accuracy_difference``
        (first minus second; the paired_eval methods, audited at the plug-in point). The log readers
        (``evaluation.readers``: lm-evaluation-harness, inspect_ai) give these arguments.
    cache : bool
        Read and write the audit cache (``evaluation.cache``: a second run on the same counts, method,
        delta, reps and seed reads each audit back; in $COVSTUDY_CACHE, else $XDG_CACHE_HOME/covstudy,
        else ~/.cache/covstudy).

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
    from tqdm.auto import tqdm

    from .. import validate
    from ..intervals import interval, point_estimate

    delta = float(validate.delta(validate.scalar("delta", delta)))
    reps, seed = validate.reps_and_seed(REPS if reps is None else reps, seed)

    budget = cost.default_budget() if budget is None else cost.budget_value(budget)


    answers = correct is not None or second_correct is not None
    if answers:  # scored answers: no labels beside them (data.prepare_answers)
        given = [k for k, v in dict(truth=truth, predicted=predicted, scores=scores, second_predicted=second_predicted,
                                    second_scores=second_scores, judge=judge, positive=positive, classes=classes).items()
                 if v is not None]
        if given:
            raise InputError(f"{given[0]}: scored answers (correct=) take no labels, scores or classes; give one or "
                             f"the other")
        if correct is None:
            raise InputError("second_correct: a second run's scores need the first's (correct)")
    metrics, max_classes, max_rows = _checked_options(correct if answers else truth, metrics, audit, guarantee,
                                                      audit_all, max_classes, max_rows, classes)
    if judge is not None:  # evaluation/judged.py: the unlabelled rows set apart, the judge as predicted
        from . import judged

        truth, predicted, unlabelled = judged.split(truth, judge, dict(
            predicted=predicted, scores=scores, groups=groups, second_predicted=second_predicted,
            second_scores=second_scores, questions=questions))
    if answers:
        d = prepare_answers(correct, questions, groups, second_correct, max_rows)
    else:
        d = prepare(truth, predicted, scores, groups, second_predicted, second_scores, positive, questions, classes,
                    max_classes, max_rows)
    notes = []
    for msg in d.notes:  # what was read that may not be what was meant
        warnings.warn(msg, stacklevel=2)
        notes.append(msg)
    others = None if metrics is None else [m for m in metrics if (judge is None or m != judged.METRIC)
                                           and m != calibration.METRIC]
    specs = metric_specs(d, delta, others) if others != [] else []
    if judge is not None and (metrics is None or judged.METRIC in metrics):
        specs.append(judged.spec(d, unlabelled, delta))
    hits = {} if cache and audit else None

    def forecast(widths=None):
        """The plan and its forecast: without an audit before any work, else once the widths (which audits run)."""
        p = cost.plan(specs, d.n, reps, audit, audit_all, budget, calibration.applies(d, metrics),
                      _lookup(hits, delta, seed) if hits is not None else None, widths)
        if progress:
            cut = f"; cut to fit: {', '.join(p.cuts)}" if p.cuts else ""
            print(f"covstudy-evaluate: forecast: ~{p.forecast:.0f} CPU-s (budget {budget:g}{cut})", file=sys.stderr)
        return p

    plan = None if audit else forecast()
    rows, audits = [], []
    bar = tqdm(total=sum(len(s.methods) for s in specs) + (len(specs) if audit else 0), desc="covstudy-evaluate",
               unit="step",
               file=sys.stderr, disable=not progress, delay=PROGRESS_AFTER, leave=False, dynamic_ncols=True,
               mininterval=PROGRESS_EVERY, miniters=1)  # miniters=1: redraws by time alone, not tqdm's guess
    try:  # closed however the run ends: an interrupt leaves no half-drawn line before its message
        for s in specs:
            spec_rows = []  # (row, qualified name): audited together once every interval is known (``_audit_rows``)
            for method, kind, qualified in s.methods:
                bar.set_postfix_str(f"{s.metric} · {method}", refresh=False)
                too_many = resampling_cost(qualified, s.door)
                if too_many:  # its place in the table says why, every other method is reported
                    rows.append(dict(metric=s.metric, method=method, kind=kind, estimate=s.estimate, lower=np.nan,
                                     upper=np.nan, width=np.nan,
                                     design=s.design or ("multiclass" if s.multiclass else None),
                                     n=d.n, worst_at="", audit="", note=too_many, guaranteed=_guaranteed(qualified)))
                    bar.update()
                    continue
                lo, hi = interval(qualified, delta=delta, seed=seed, **s.door)
                own = point_estimate(qualified, seed=seed, **s.door)  # each row its method's own estimate
                row = dict(metric=s.metric, method=method, kind=kind, estimate=s.estimate if own is None else own,
                           lower=float(lo),
                           upper=float(hi), width=float(hi - lo),
                           design=s.design or ("multiclass" if s.multiclass else None), n=d.n,
                           guaranteed=_guaranteed(qualified))
                row.update(coverage_at_estimate=np.nan, coverage_mcse=np.nan, worst_coverage=np.nan, worst_mcse=np.nan,
                           worst_bound=np.nan, worst_at="", audit="", mean_width=np.nan, engine=None, reps=None)
                rows.append(row)
                spec_rows.append((row, qualified))
                if not audit:
                    bar.update()
            audits.append((s, spec_rows))
        if audit:
            plan = forecast({(s.metric, q): row["width"] for s, spec_rows in audits for row, q in spec_rows})
            for s, spec_rows in audits:
                _audit_rows(s, spec_rows, delta, reps, seed, guarantee, audit_all, bar, plan, hits, store=cache)
        table = pd.DataFrame(rows)
        level = 1 - delta
        undefined = [s for s in specs if s.undefined]
        specs = [s for s in specs if not s.undefined]
        reasons = mark(table, specs, level, audit, guarantee) if len(table) else {}
        if undefined:  # a metric with no estimate on these data: one row that says why, in its place
            order = {m: i for i, m in enumerate(dict.fromkeys([*BINARY_ORDER, *table.get("metric", [])]))}
            table = pd.concat([table, pd.DataFrame([dict(
                metric=s.metric, method="—", kind="", estimate=np.nan, lower=np.nan, upper=np.nan, width=np.nan,
                design=s.design, n=d.n, worst_at="", audit="", meets_target="", recommended=True, note=s.undefined[0])
                for s in undefined])], ignore_index=True)
            table = table.sort_values("metric", key=lambda m: m.map(order), kind="stable").reset_index(drop=True)
            for s in undefined:
                reasons[s.metric] = s.undefined[1]
            reasons = {m: reasons[m] for m in dict.fromkeys(table.metric) if m in reasons}
        for s in specs:
            if s.metric.startswith("clustered_") and audit:  # warn when the i.i.d. interval falls short
                sel = table.index[table.metric == s.metric]
                naive = table.loc[sel][table.loc[sel, "method"].isin(["wilson", "delong"])]
                if len(naive) and naive.worst_coverage.iloc[0] < level - EPSILON:
                    iid = s.metric.removeprefix("clustered_")
                    why = (f"the estimated ICC is {s.icc:.3g}; " if s.metric == "clustered_accuracy" else "")
                    region = ("" if s.plug_in_only else
                              f" and as little as {naive.worst_coverage.iloc[0]:.3f} over its region")
                    msg = (f"groups: {why}i.i.d. intervals ({naive.method.iloc[0]}) of {iid} cover "
                           f"{naive.coverage_at_estimate.iloc[0]:.3f} at this operating point{region} (nominal "
                           f"{level:g}): use the {s.metric} rows, not {iid}")
                    warnings.warn(msg, stacklevel=2)
                    notes.append(msg)
        if not audit and "metric" in table:
            _unaudited_eval(table, reasons)
        if any(s.metric in UNAUDITED_CLUSTERED for s in specs):
            table, reasons = _clustered_first(table, reasons, audit)
        if d.second is not None and (metrics is None or "superiority_probability" in metrics):
            from ..comparison import superiority_probability

            c = next(s.cells for s in specs if s.metric == "accuracy_difference") if any(
                s.metric == "accuracy_difference" for s in specs) else None
            if c is None:
                a, b = d.predicted == d.truth, d.second == d.truth
                c = dict(only_first=int(np.sum(a & ~b)), only_second=int(np.sum(~a & b)))
            prob = float(superiority_probability(c["only_first"], c["only_second"]))
            extra = dict(metric="superiority_probability", method="bayes", kind="paired", estimate=prob, lower=np.nan,
                         upper=np.nan, width=np.nan, design="paired", n=d.n, recommended=True, worst_at="", audit="",
                         meets_target="")
            table = pd.concat([table, pd.DataFrame([extra])], ignore_index=True)
            reasons["superiority_probability"] = ("P(first model more accurate | data) under a uniform Dirichlet "
                                                  "prior on the four paired cells; a probability, not an interval.")
        calibration_fig = {}
        if calibration.applies(d, metrics):  # evaluation/calibration.py: the ECE rows and the reliability diagram
            table = calibration.add(d, delta, seed, table, reasons, calibration_fig, audit, guarantee, cache)
        table["note"] = table["note"].fillna("") if "note" in table else ""
        # rows added after ``recommend`` (superiority_probability, the ECE) or no rule run (the ECE alone)
        table["narrower"] = table["narrower"].fillna("") if "narrower" in table else ""
        for flag in ("worst_is_upper_bound", "guaranteed"):
            table[flag] = table[flag].astype(object).where(table[flag].notna(), False).astype(bool) \
                if flag in table else False
        cols = COLUMNS + [c for c in table.columns if c not in COLUMNS]
        missing = [c for c in COLUMNS if c not in table.columns]  # no row set it (only the ECE rows: no narrower)
        table = table.reindex(columns=cols)
        table[missing] = table[missing].astype(object)  # empty, and filled later with text or flags
        def step(metric):
            bar.set_postfix_str(f"{metric} · width at other sizes", refresh=False)
            bar.update()

        growth = growth_table(specs, table, delta, plan.growth_reps or reps, seed, step, cache) if audit else None
    finally:
        bar.close()
    info = {"n": d.n, "classes": d.classes, "counts": d.counts, "read": d.read(), "positive": d.positive,
            "delta": delta, "epsilon": EPSILON,            "guarantee": bool(guarantee),
            "reps": reps, "seed": seed, "columns": d.names, "budget": budget, "forecast": plan.forecast,
            "work": plan.work, "cuts": plan.cuts,
            "plug_in": {s.metric: s.plug_in for s in specs}, **calibration_fig}
    if judge is not None:  # the judged rate's sentence names its rows (``answer.judged_sentence``)
        info["judged"] = {"labelled": d.n, "examples": d.n + int(np.size(unlabelled))}
    return Evaluation(table, reasons, notes, info, growth)
