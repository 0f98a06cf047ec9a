"""Issue 25: methods named within their kind, one interval door, methods() lists every method,
fixed default seeds, exact curves refuse a too large n, and the docstring examples run."""

import doctest
import importlib
import tracemalloc

import pytest

from covstudy import auc_interval, confidence_coefficient, coverage, interval, methods
from covstudy.methods import get

# one design point per kind of method: (design, metric, axes, engine reps)
POINTS = {
    "proportion": ("binomial", None, dict(n=12, p=0.3), None),
    "two_class": ("stratified", "balanced_accuracy", dict(n_pos=6, n_neg=8, tpr=0.8, tnr=0.7), None),
    "confusion": ("iid", "f1", dict(n=12, prevalence=0.4, tpr=0.8, tnr=0.7), 8),
    "classes": ("multiclass", "macro_recall", dict(K=3, n=9, recall=0.8, imbalance=1), None),
    "multiclass": ("multiclass", "macro_f1", dict(K=3, n=9, recall=0.8, imbalance=1), None),
    "multiclass_draws": ("multiclass", "macro_f1", dict(K=3, n=9, recall=0.8, imbalance=1), 4),
    "difference": ("unpaired", None, dict(n1=8, n2=8, p1=0.7, p2=0.5), None),
    "paired": ("paired", None, dict(n=10, acc_first=0.8, acc_second=0.7, correlation=0.2), None),
    "scores": ("binormal", None, dict(n_pos=6, n_neg=6, auc=0.8), 4),
    "clustered": ("clustered", None, dict(clusters=4, cluster_size=3, p=0.7, icc=0.1), 4),
    "deff": ("clustered", None, dict(clusters=4, cluster_size=3, p=0.7, icc=0.1), 4),
    "paired_confusion": ("paired_confusion", "f1_difference", dict(n=8, prevalence=0.4, tpr_first=0.8, tpr_second=0.7,
                                                                   tnr_first=0.8, tnr_second=0.9, correlation=0.2), 4),
    "unpaired_confusion": ("unpaired_confusion", "f1_difference", dict(n1=6, n2=7, prevalence=0.4, tpr_first=0.8,
                                                                       tnr_first=0.8, tpr_second=0.7, tnr_second=0.9), 4),
    "paired_scores": ("paired_binormal", None, dict(n_pos=6, n_neg=6, auc_first=0.8, auc_second=0.7, correlation=0.3), 4),
    "eval": ("eval", None, dict(questions=4, groups=2, answers=1, p=0.7, icc_group=0.1, icc_question=0.2), None),
    "paired_eval": ("paired_eval", None, dict(questions=4, groups=2, answers=1, acc_first=0.8, acc_second=0.7,
                                              correlation=0.3, icc_group=0.1, icc_question=0.2), 4),
    "crossval": ("crossval", None, dict(n=12, d=2, bayes_error=0.2, folds=3, repeats=2), 4),
    "holdout": ("crossval", None, dict(n=12, d=2, bayes_error=0.2, folds=3, repeats=2), 4),
    "judged": ("judged", None, dict(examples=20, labelled=6, p=0.4, sensitivity=0.8, specificity=0.9), 4),
    "clustered_confusion": ("clustered_confusion", "f1", dict(clusters=4, cluster_size=3, prevalence=0.4, tpr=0.8,
                                                              tnr=0.7, icc_prevalence=0.1, icc_tpr=0.2,
                                                              icc_tnr=0.1), 4),
    "clustered_scores": ("clustered_binormal", None, dict(clusters=4, cluster_size=3, prevalence=0.4, auc=0.8,
                                                          icc_prevalence=0.1, icc_score=0.3), 4),
}
SMALL = {"draws": 50}


BANDS = ("roc_band", "pr_band")  # curves, not intervals: their doors are roc_band/pr_band/band_coverage (test_bands.py)
BANDS += ("sequential",)  # confidence sequences: their door is sequential_coverage (test_sequential.py)
BANDS += ("leaderboard", "leaderboard_auc")  # families of intervals and rank sets: their door is leaderboard_coverage (test_leaderboard.py)
BANDS += ("calibration",)  # ECE over a test set's scores and labels: the calibration study (test_calibration.py)


@pytest.mark.parametrize("qualified", [q for q, m in methods().items() if m.takes not in BANDS])
def test_every_method_runs_through_coverage_by_its_short_name(qualified):
    m = methods()[qualified]
    design, metric, axes, reps = POINTS[m.takes]
    params = {k: v for k, v in SMALL.items() if k in m.defaults}
    kinds = {t for e in __import__("covstudy.estimands", fromlist=["x"]).ESTIMANDS.values()
             if e.name == (metric or e.name) and e.data == __import__("covstudy").DESIGNS[design].data for t in e.takes}
    same_short = [o for o in methods().values() if o.short == m.short and o.takes in kinds and o is not m]
    name = m.short
    if same_short:  # e.g. bayes for F1: the short name is an error naming both, the qualified one works
        with pytest.raises(ValueError, match=m.qualified.replace(".", r"\.")):
            coverage(m.short, design=design, metric=metric, reps=reps, seed=1, **axes, **params)
        name = m.qualified
    r = coverage(name, design=design, metric=metric, reps=reps, seed=1, **axes, **params)
    assert 0 <= r.coverage <= 1 and r.method == m.name


def test_short_qualified_and_prefixed_names_are_one_method():
    assert get("tango", "paired") is get("paired.tango") is get("paired_tango") is methods()["paired.tango"]
    assert get("newcombe", "scores").name == "newcombe" and get("newcombe", "difference").name == "diff_newcombe"
    assert methods("paired")["tango"] is methods("paired")["paired_tango"]  # indexing takes any name


@pytest.mark.parametrize("call, message", [
    (lambda: interval("newcombe", k1=5, n1=10, both=1), "counts: give one of these sets"),
    (lambda: get("newcombe"), "method: 'newcombe' is ambiguous here, it names difference.newcombe and "
                              "paired.newcombe and auc.newcombe"),
    (lambda: interval("bayes", metric="f1", tp=3, fn=1, fp=1, tn=5), "method: 'bayes' is ambiguous here, it names "
                                                                      "proportion.bayes and f1.bayes"),
    (lambda: interval("tango", design="unpaired", k1=5, n1=10, k2=4, n2=10),
     "method: unknown difference method 'tango' (it is paired.tango"),
    (lambda: methods(takes="nonsense"), "takes must be one of"),
    (lambda: interval("wilson", metric="precision", confusion=[[1, 2], [3, 4]], k=1), "counts:"),
])
def test_bad_names_are_one_line_errors(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_coverage_by_short_name_keeps_the_streams_of_the_prefixed_name():
    # per-test-set methods key their draws by the registered name: short names move no number
    a = coverage("bootstrap", design="iid", metric="f1", n=30, prevalence=0.4, tpr=0.8, tnr=0.7, reps=20, seed=3,
                 draws=50)
    b = coverage("f1_bootstrap", design="iid", metric="f1", n=30, prevalence=0.4, tpr=0.8, tnr=0.7, reps=20, seed=3,
                 draws=50)
    assert a.measures == b.measures
    c = coverage("tango", design="paired", n=30, acc_first=0.8, acc_second=0.7, correlation=0.3)
    d = coverage("paired_tango", design="paired", n=30, acc_first=0.8, acc_second=0.7, correlation=0.3)
    assert c.measures == d.measures
    e = coverage("newcombe", design="unpaired", n1=20, n2=20, p1=0.7, p2=0.5)
    assert e.method == "diff_newcombe"
    assert coverage("newcombe", design="binormal", n_pos=10, n_neg=10, auc=0.8, reps=5, seed=1).method == "newcombe"


def test_the_door_reaches_every_kind_and_agrees_with_the_wrappers():
    from covstudy import (auc_interval, balanced_interval, clustered_interval, difference_interval,
                          metric_interval, multiclass_interval, paired_interval)

    pos, neg = [0.9, 0.8, 0.4, 0.7], [0.3, 0.5, 0.1, 0.2]
    pairs = [
        (interval("wilson", 3, 10, 0.1), interval("proportion.wilson", k=3, n=10, delta=0.1)),
        (interval("cp_union", k_pos=9, n_pos=10, k_neg=7, n_neg=10), balanced_interval("ba_cp_union", 9, 10, 7, 10)),
        (interval("delta", metric="f1", tp=8, fn=2, fp=3, tn=7), metric_interval("f1", "f1_delta", 8, 2, 3, 7)),
        (interval("wilson", design="iid", metric="precision", tp=8, fn=2, fp=3, tn=7),
         metric_interval("precision", "wilson", 8, 2, 3, 7)),
        (interval("union_cp", metric="macro_recall", confusion=[[5, 1], [2, 6]]),
         multiclass_interval("macro_recall", "mr_union_cp", [[5, 1], [2, 6]])),
        (interval("union_cp", metric="macro_recall", k=[5, 6], n=[6, 8]),
         multiclass_interval("macro_recall", "mr_union_cp", [[5, 1], [2, 6]])),
        (interval("newcombe", k1=8, n1=10, k2=5, n2=10), difference_interval("diff_newcombe", 8, 10, 5, 10)),
        (interval("tango", 5, 3, 1, 4), paired_interval("paired_tango", 5, 3, 1, 4)),
        (interval("bootstrap", scores_pos=pos, scores_neg=neg), auc_interval("bootstrap", pos, neg)),
        (interval("wilson_vif", successes=[3, 5, 4], sizes=[5, 5, 5]), clustered_interval("wilson_vif", [3, 5, 4], [5, 5, 5])),
        (interval("wilson_deff", successes=[3, 5, 4], sizes=[5, 5, 5], icc=0.1),
         clustered_interval("wilson_deff", [3, 5, 4], [5, 5, 5], icc=0.1)),
    ]
    for door, wrapper in pairs:
        assert type(door).__name__ == type(wrapper).__name__ == "Interval" and tuple(door) == tuple(wrapper)
        assert isinstance(door.lower, float)
    lo, hi = interval("wald", k=[1, 2], n=10)
    assert lo.shape == (2,) and hi.shape == (2,)


def test_methods_lists_every_method_filterable_by_kind_or_design():
    everything = methods()
    bands = [q for q in everything if q.startswith(("roc_band.", "pr_band."))]
    sequences = [q for q in everything if q.startswith("sequential.")]
    boards = [q for q in everything if q.startswith(("leaderboard.", "leaderboard_auc."))]
    assert len(boards) == 13
    ece = [q for q in everything if q.startswith("ece.")]
    assert ece == ["ece.plugin", "ece.debiased", "ece.clopper_pearson_sidak", "ece.smooth"]
    assert len(everything) - len(bands) - len(sequences) - len(boards) - len(ece) == 115 and len(bands) == 13 and all("." in q for q in everything)
    assert sequences == ["sequential.mixture", "sequential.betting", "sequential.cp_union"]
    assert str(everything["proportion.wilson"]) == everything["proportion.wilson"].description
    assert set(methods("paired")) == {q for q in everything if q.startswith("paired.")}
    assert methods("two_class") == methods("balanced")
    assert {m.kind for m in methods(design="clustered").values()} == {"proportion", "clustered", "deff"}
    assert {m.kind for m in methods(design="clustered_confusion").values()} == {"proportion", "clustered_metric"}
    assert list(methods(design="clustered_binormal")) == ["clustered_auc.obuchowski",
                                                          "clustered_auc.cluster_bootstrap", "clustered_auc.delong"]


def test_random_public_functions_default_to_a_fixed_seed():
    pos, neg = [0.9, 0.8, 0.4, 0.6, 0.55], [0.3, 0.5, 0.1, 0.45, 0.6]
    assert auc_interval("bootstrap", pos, neg) == auc_interval("bootstrap", pos, neg)
    assert interval("bootstrap", scores_pos=pos, scores_neg=neg) == auc_interval("bootstrap", pos, neg, seed=0)


@pytest.mark.parametrize("n", [10**6 + 1, 10**9, 10**12])
def test_exact_curves_refuse_an_n_beyond_the_limit_at_once(n):
    from covstudy import average_coverage
    from covstudy.engine.exact_curve import coverage_curve

    for f in (confidence_coefficient, average_coverage, coverage_curve):
        tracemalloc.start()
        with pytest.raises(ValueError, match=r"^n: exact curves take n <= 1,000,000"):
            f("wilson", n)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 2**20  # refused before any work: a curve at 10⁶ holds arrays of hundreds of MB


@pytest.mark.parametrize("overrides, message", [
    (["design=paired", "grid.p_both=[0.5]"],
     "grid.p_both: an axis of design paired with n, p_both, p_only_first, p_only_second, p_neither"),
    (["design=paired"], "design=paired: study auc fixes its design (binormal)"),
])
def test_design_messages_name_the_real_problem(overrides, message):
    from covstudy import ConfigError
    from covstudy.cli import load_study

    study = "auc" if overrides == ["design=paired"] else "quick"
    with pytest.raises(ConfigError) as err:
        load_study(study, overrides)
    assert str(err.value).startswith(message)
    if "p_both" in message:
        assert "grid.acc_first=null grid.acc_second=null grid.correlation=null" in str(err.value)


DOCTESTED = ("covstudy", "covstudy.intervals", "covstudy.comparison", "covstudy.engine.coverage",
             "covstudy.engine.exact_curve", "covstudy.planning.plan", "covstudy.methods", "covstudy.methods.registry",
             "covstudy.evaluation.result", "covstudy.evaluation.readers",
             "covstudy.bands.coverage", "covstudy.designs.binormal",
             "covstudy.planning.eval_power", "covstudy.methods.auc_difference", "covstudy.designs.sequential",
             "covstudy.planning.sequential", "covstudy.planning.search", "covstudy.study.config")


@pytest.mark.parametrize("module", DOCTESTED)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


def _public():
    import covstudy

    return [(name, getattr(covstudy, name)) for name in covstudy.__all__]


@pytest.mark.parametrize("name, obj", _public(), ids=[name for name, _ in _public()])
def test_public_names_are_documented_with_sections_and_an_example(name, obj):
    """Every public function has numpydoc Parameters (if it takes any), Returns and Examples
    sections, and its module's examples are in the doctest run above; a public class needs a
    docstring with an example, doctested too; constants (DESIGNS, METRICS, ...) have no callable
    signature: tests/test_docs_site.py checks and runs their examples."""
    import inspect

    if not callable(obj):
        return
    doc = inspect.getdoc(obj) or ""
    if inspect.isclass(obj):
        assert "\nExamples\n--------\n" in f"\n{doc}" and ">>> " in doc, f"{name}: a public class without an example"
        assert obj.__module__ in DOCTESTED, f"{name}: add {obj.__module__} to DOCTESTED so its example is checked"
        return
    sections = {"Returns", "Examples"} | ({"Parameters"} if inspect.signature(obj).parameters else set())
    missing = [s for s in sorted(sections) if f"\n{s}\n{'-' * len(s)}\n" not in f"\n{doc}\n"]
    assert not missing, f"{name}: its docstring lacks the numpydoc section(s) {', '.join(missing)}"
    assert ">>> " in doc, f"{name}: its Examples section has no runnable example"
    assert obj.__module__ in DOCTESTED, f"{name}: add {obj.__module__} to DOCTESTED so its example is checked"


def test_docs_name_methods_by_short_or_qualified_name():
    """README, docs and the experiments' READMEs use the short names (qualified where a short one
    would be ambiguous); the old prefixed names appear only where the text says they are aliases."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    prefixed = sorted({m.name for m in methods().values() if m.name != m.short}, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w.])(" + "|".join(prefixed) + r")(?!\w)")
    bad = [f"{f.relative_to(root)}: {hit.group(1)}"
           for f in [root / "README.md", *root.glob("docs/**/*.md"), *root.glob("experiments/*/README.md")]
           for paragraph in f.read_text().split("\n\n") if "alias" not in paragraph
           for hit in pattern.finditer(paragraph)]
    assert bad == []


def test_reports_read_short_names_as_the_rows_design_and_metric_do():
    """A table's ``method`` is the config's (short) name: its display name, order and colour come from
    the method its design and metric mean ("wald" is the balanced-accuracy Wald under stratified, whose
    default metric is balanced accuracy, and the macro-recall Wald for macro_recall rows)."""
    import pandas as pd

    from covstudy.plots.style import method_colors
    from covstudy.study.summary import display_labels, resolve_method

    assert resolve_method("wald", "stratified").name == "ba_wald"
    assert resolve_method("wald", "multiclass", "macro_recall").name == "mr_wald"
    assert resolve_method("bayes", "multiclass", "macro_f1").name == "mf1_bayes"
    assert resolve_method("wald").name == "wald"
    table = pd.DataFrame({"method": ["wald", "bayes", "wald"], "label": ["wald", "bayes", "wald"],
                          "design": ["multiclass"] * 2 + ["stratified"],
                          "metric": ["macro_recall", "macro_f1", None]})
    shown = display_labels(table)["label"].tolist()
    assert shown == [resolve_method("wald", "multiclass", "macro_recall").display,
                     resolve_method("bayes", "multiclass", "macro_f1").display,
                     resolve_method("wald", "stratified").display]
    assert len(set(shown)) == 3 and set(method_colors(display_labels(table))) == set(shown)


def test_monte_carlo_coverage_defaults_to_a_fixed_seed():
    """Two identical Monte Carlo calls give the same numbers (seed 0 recorded); seed=None opts into fresh entropy."""
    from covstudy import coverage

    first, again = (coverage("wald", n=30, p=0.2, reps=500) for _ in range(2))
    assert first.seed == again.seed == 0 and first.coverage == again.coverage
    assert coverage("wald", n=30, p=0.2, reps=500, seed=None).seed not in (None, 0)
