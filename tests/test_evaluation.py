"""covstudy.evaluate / covstudy-evaluate (issue 27): intervals equal the door's on the counts,
the audit equals coverage() at the same point, the recommendation rule, grouped and two-model
input, one-line input errors, and the CLI end to end."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import covstudy
from covstudy import coverage, interval, superiority_probability
from covstudy.evaluation import audit
from covstudy.evaluation.cli import main
from covstudy.evaluation.data import InputError
from covstudy.evaluation.metrics import Spec
from covstudy.evaluation import certify, growth
from covstudy.evaluation.recommend import EPSILON, MET, meets, recommend
from covstudy.evaluation.region import auc_region, binormal_sd_ratio, cp, with_recalls
from covstudy.evaluation import search as search_module
from covstudy.evaluation.search import search

REPS = 200  # the Monte Carlo audit in these tests


def _binary(n=80, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = y * 1.2 + rng.normal(0, 1, n)
    p = (s > 0.6).astype(int)
    s2 = y * 0.8 + rng.normal(0, 1, n)
    return y, p, s, (s2 > 0.4).astype(int), s2


def _small_audits(mp):
    """The binary evaluations' caps: what the tests of this file check does not need the full searches."""
    mp.setattr(audit, "BOOT_BUDGET", 0)  # bootstrap audits have a test of their own (time)
    mp.setattr(certify, "WORK", 1e7)  # a smaller search (tests/test_certify.py checks the full one)
    mp.setattr(audit, "DECIDE_TEST_SETS", 16 * REPS)  # decisions have tests of their own (test_recommend.py)
    mp.setattr(growth, "GROWTH_REPS", 50)  # the widths at other sizes: test_width_against_n_* check them
    # the paired methods reading the concordant split searched by Monte Carlo, not on exact grids of ~10^5
    # outcomes (test_certify.py and test_evaluate_search.py check those)
    mp.setattr(audit, "THREE_EXACT_OUTCOMES", 40_000)


@pytest.fixture(scope="module")
def binary_cache(tmp_path_factory):
    """The audit cache the ``binary`` evaluation wrote (test_cli_end_to_end reads its audits back)."""
    return tmp_path_factory.mktemp("binary-cache")


@pytest.fixture(scope="module")
def binary(binary_cache):
    y, p, s, p2, s2 = _binary()
    with pytest.MonkeyPatch.context() as mp:
        _small_audits(mp)
        mp.setenv("COVSTUDY_CACHE", str(binary_cache))
        ev = covstudy.evaluate(y, p, s, second_predicted=p2, second_scores=s2, reps=REPS, audit_all=True)
    return (y, p, s, p2, s2), ev


def _cells(y, p):
    return dict(tp=int(np.sum((y == 1) & (p == 1))), fn=int(np.sum((y == 1) & (p == 0))),
                fp=int(np.sum((y == 0) & (p == 1))), tn=int(np.sum((y == 0) & (p == 0))))


def _row(ev, metric, method):
    rows = ev.table[(ev.table.metric == metric) & (ev.table.method == method)]
    assert len(rows) >= 1, (metric, method)
    return rows.iloc[0]


def test_every_binary_interval_is_the_doors_on_the_counts(binary):
    (y, p, s, p2, s2), ev = binary
    c = _cells(y, p)
    n = y.size
    t = ev.table
    assert set(t.metric) == {"accuracy", "balanced_accuracy", "precision", "recall", "specificity", "npv", "f1",
                             "auc", "accuracy_difference", "auc_second", "superiority_probability",
                             *(f"{m}_difference" for m in ("recall", "specificity", "precision", "npv", "f1",
                                                           "balanced_accuracy", "auc"))}
    for _, r in t[t.metric.isin(["accuracy", "precision", "recall", "specificity", "npv"])].iterrows():
        assert (r.lower, r.upper) == tuple(interval(r.method, metric=r.metric, **c)), (r.metric, r.method)
    # the ratio metrics are the proportion interval on their k of k + l
    k, m = {"accuracy": (c["tp"] + c["tn"], n), "recall": (c["tp"], c["tp"] + c["fn"]),
            "specificity": (c["tn"], c["tn"] + c["fp"])}["recall"]
    r = _row(ev, "recall", "wilson")
    assert (r.lower, r.upper) == pytest.approx(tuple(interval("wilson", k, m)), abs=1e-15)
    assert r.estimate == pytest.approx(k / m)
    r = _row(ev, "accuracy", "clopper_pearson")
    assert (r.lower, r.upper) == pytest.approx(tuple(interval("clopper_pearson", c["tp"] + c["tn"], n)), abs=1e-15)
    for _, r in t[t.metric == "balanced_accuracy"].iterrows():
        assert (r.lower, r.upper) == tuple(interval(r.method, k_pos=c["tp"], n_pos=c["tp"] + c["fn"],
                                                    k_neg=c["tn"], n_neg=c["tn"] + c["fp"]))
    f1 = t[t.metric == "f1"]
    assert set(f1.kind) == {"proportion", "confusion"}
    for _, r in f1.iterrows():
        name = r.method if "." in r.method else f"{'f1' if r.kind == 'confusion' else 'proportion'}.{r.method}"
        assert (r.lower, r.upper) == tuple(interval(name, metric="f1", **c))
    assert f1.estimate.iloc[0] == pytest.approx(2 * c["tp"] / (2 * c["tp"] + c["fp"] + c["fn"]))
    pos, neg = s[y == 1], s[y == 0]
    auc = np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :]))
    for _, r in t[t.metric == "auc"].iterrows():
        assert r.estimate == pytest.approx(auc)
        assert (r.lower, r.upper) == tuple(interval(r.method, scores_pos=pos, scores_neg=neg))
    assert set(t[t.metric == "auc"].method) >= {"delong", "hanley_mcneil", "newcombe"}


def test_two_models_paired_difference_and_superiority(binary):
    (y, p, s, p2, s2), ev = binary
    a, b = p == y, p2 == y
    cells = dict(both=int(np.sum(a & b)), only_first=int(np.sum(a & ~b)), only_second=int(np.sum(~a & b)),
                 neither=int(np.sum(~a & ~b)))
    t = ev.table[ev.table.metric == "accuracy_difference"]
    assert len(t) == len(covstudy.methods("paired"))
    for _, r in t.iterrows():
        assert r.estimate == pytest.approx(a.mean() - b.mean())
        assert (r.lower, r.upper) == tuple(interval(r.method, design="paired", **cells))
    sp = _row(ev, "superiority_probability", "bayes")
    assert sp.estimate == superiority_probability(cells["only_first"], cells["only_second"])
    assert math.isnan(sp.lower)


def test_audit_equals_coverage_at_the_same_point(binary):
    (y, p, s, p2, s2), ev = binary
    c = _cells(y, p)
    n, n_pos, n_neg = y.size, c["tp"] + c["fn"], c["fp"] + c["tn"]
    acc, tpr, tnr = (c["tp"] + c["tn"]) / n, c["tp"] / n_pos, c["tn"] / n_neg
    r = _row(ev, "accuracy", "wilson")
    exact = coverage("wilson", n=n, p=acc)
    assert r.engine == "exact"  # the same sums in another order: equal to rounding
    assert r.coverage_at_estimate == pytest.approx(exact.coverage, abs=1e-14)
    assert r.mean_width == pytest.approx(exact.mean_width, abs=1e-14)
    lo, hi = cp(c["tp"] + c["tn"], n, 0.95)
    # the worst over the region is the exact infimum: confidence_coefficient over it, and (brute
    # force) the smallest coverage() just beside every interval end inside the region
    assert r.worst_coverage == covstudy.confidence_coefficient("wilson", n, p_range=(lo, hi)).value
    e = np.concatenate(interval("wilson", np.arange(n + 1), n))
    e = e[(e > lo) & (e < hi)]
    beside = np.clip(np.concatenate([e - 1e-11, e + 1e-11, [lo, hi]]), lo, hi)
    brute = coverage("wilson", n=n, p=beside).coverage.min()
    assert brute - 1e-8 <= r.worst_coverage <= brute + 1e-12 and r.worst_coverage <= r.coverage_at_estimate
    grid = coverage("wilson", n=n, p=np.linspace(lo, hi, 41)).coverage
    assert r.worst_coverage < grid.min()  # a grid misses the dips beside the ends
    r = _row(ev, "balanced_accuracy", "wald")
    assert r.coverage_at_estimate == coverage("wald", design="stratified", metric="balanced_accuracy", n_pos=n_pos,
                                              n_neg=n_neg, tpr=tpr, tnr=tnr).coverage
    root = math.sqrt(0.95)
    (a0, a1), (b0, b1) = cp(c["tp"], n_pos, root), cp(c["tn"], n_neg, root)
    corners = coverage("wald", design="stratified", metric="balanced_accuracy", n_pos=n_pos, n_neg=n_neg,
                       tpr=[tpr, a0, a0, a1, a1], tnr=[tnr, b0, b1, b0, b1]).coverage
    # certified: the bound at most the lowest corner, the worst found at most it too (the corners are searched)
    assert r.worst_coverage <= corners.min() + 1e-12 and r.audit == "certified"
    if r.worst_coverage < 0.945:  # failed at an exact point: decided, no bound
        assert np.isnan(r.worst_bound) and r.meets_target == "no"
    else:
        assert r.worst_bound <= corners.min() and (r.worst_bound >= 0.945 or r.meets_target == "estimated")
    r = _row(ev, "precision", "jeffreys")
    assert r.coverage_at_estimate == coverage("jeffreys", design="stratified", metric="precision", n_pos=n_pos,
                                              n_neg=n_neg, tpr=tpr, tnr=tnr).coverage
    r = _row(ev, "recall", "wald")  # k of the fixed n_pos: the binomial design, exact
    assert r.coverage_at_estimate == pytest.approx(coverage("wald", n=n_pos, p=tpr).coverage, abs=1e-14)
    assert r.worst_coverage == covstudy.confidence_coefficient("wald", n_pos, p_range=cp(c["tp"], n_pos, 0.95)).value
    ratio = binormal_sd_ratio(s[y == 1], s[y == 0])
    for method in ("delong", "hanley_mcneil", "newcombe"):  # test sets shared by the methods: the same numbers
        r = _row(ev, "auc", method)
        mc = coverage(method, design="binormal", n_pos=n_pos, n_neg=n_neg, auc=r.estimate, sd_ratio=ratio, reps=REPS,
                      seed=0)
        # reps: REPS, or at least CONFIRM × REPS where the worst was undecided and decided at its point (audit.decide)
        assert r.engine == "mc" and (r.reps == REPS or r.reps >= REPS * audit.CONFIRM) and r.audit == "searched"
        assert (r.coverage_at_estimate, r.coverage_mcse) == (mc.coverage, mc.mcse)
        assert r.worst_coverage <= r.coverage_at_estimate and "auc = " in r.worst_at  # searched (test_evaluate_search)
    assert np.isnan(_row(ev, "auc", "bootstrap").coverage_at_estimate)  # over the (patched) budget: not audited
    a, b = p == y, p2 == y
    cells = dict(p_both=np.mean(a & b), p_only_first=np.mean(a & ~b), p_only_second=np.mean(~a & b),
                 p_neither=np.mean(~a & ~b))
    r = _row(ev, "accuracy_difference", "tango")
    assert r.coverage_at_estimate == pytest.approx(coverage("tango", design="paired", n=n, **cells).coverage,
                                                   abs=1e-12)


def test_recommendation_rule(binary):
    _, ev = binary
    floor = 1 - 0.05 - EPSILON
    for metric, rows in ev.table[ev.table.metric != "superiority_probability"].groupby("metric"):
        assert rows.recommended.sum() == 1, metric
        pick = rows[rows.recommended].iloc[0]
        assert list(rows.meets_target) == [meets(r, floor) for r in rows.to_dict("records")]
        ok = rows[rows.meets_target.isin(MET)]
        if len(ok):
            assert pick.meets_target in MET
            by = ok.mean_width.where(ok.mean_width.notna(), ok.width)  # a row not audited: its width on the data
            assert by.loc[pick.name] == by.min(), metric
        if rows.meets_target.eq("guaranteed").any():  # a guaranteed row meets the target: never below it
            assert pick.meets_target in MET, metric
        assert metric in ev.reasons and ev.reasons[metric].count(".") >= 1
    # nothing reaches the floor: the guaranteed method of the kind, and the reason says so
    rows = pd.DataFrame({"method": ["wald", "clopper_pearson"], "kind": ["proportion"] * 2,
                         "worst_coverage": [0.90, 0.93], "worst_bound": [0.90, 0.93], "mean_width": [0.1, 0.2],
                         "width": [0.1, 0.2], "engine": ["exact"] * 2, "coverage_mcse": [0.0, 0.0],
                         "worst_mcse": [0.0, 0.0], "reps": [None, None], "worst_at": ["", ""]})

    class S:
        plug_in = "p = 0.5 at n = 10"
        region_text = "over a region"

    def pick(guarantee=False):
        rows["meets_target"] = [meets(r, floor) for r in rows.to_dict("records")]
        return recommend(rows, 0.95, True, S, guarantee)

    p, why = pick()
    assert rows.loc[p, "method"] == "clopper_pearson" and "guaranteed" in why and "below" in why
    rows.loc[1, ["worst_coverage", "worst_bound"]] = 0.946
    p, why = pick()
    assert rows.loc[p, "method"] == "clopper_pearson" and "narrowest" in why and "certified" in why
    rows.loc[0, ["worst_coverage", "worst_bound"]] = 0.9451
    assert rows.loc[pick()[0], "method"] == "wald"
    # --guarantee: only a certified bound of at least 1 - delta counts
    assert rows.loc[pick(guarantee=True)[0], "method"] == "clopper_pearson"
    assert "guaranteed" in pick(guarantee=True)[1]
    rows.loc[1, ["worst_coverage", "worst_bound"]] = 0.951
    p, why = pick(guarantee=True)
    assert rows.loc[p, "method"] == "clopper_pearson" and "narrowest" in why
    # a certified row whose bound is below the floor but whose lowest point is above: estimated
    rows.loc[0, ["worst_coverage", "worst_bound"]] = [0.9452, 0.9448]
    assert meets(rows.loc[0], floor) == "estimated"
    # Monte Carlo: its lower limit, worst - 2 MCSE, must reach the floor (noise never helps)
    rows.loc[0, ["worst_coverage", "worst_bound", "engine", "reps"]] = [0.95, np.nan, "mc", 400]
    rows.loc[0, "worst_mcse"] = 0.0024
    p, why = pick()
    assert rows.loc[p, "method"] == "wald" and "estimated" in why and "Monte Carlo" in why
    rows.loc[0, "worst_mcse"] = 0.003
    assert rows.loc[pick()[0], "method"] == "clopper_pearson"
    # the pair: a bootstrap at 0.940 ± 0.012 and a delta method at 0.9395 ± 0.005 both fall short
    # (undecided: more test sets at their worst point decide them, audit.decide), and 0.930 ± 0.005 fails
    assert meets({"worst_coverage": 0.940, "worst_mcse": 0.012}, floor) == "undecided"
    assert meets({"worst_coverage": 0.9395, "worst_mcse": 0.005}, floor) == "undecided"
    assert meets({"worst_coverage": 0.930, "worst_mcse": 0.005}, floor) == "no"
    # above the floor, but not by two MCSE: undecided, not recommended
    assert meets({"worst_coverage": 0.9462, "worst_mcse": 0.0018}, floor) == "undecided"
    assert meets({"worst_coverage": 0.9462, "worst_mcse": 0.0006}, floor) == "estimated"
    # a bootstrap only for more than 1% less width
    rows.loc[0, ["method", "worst_coverage", "mean_width", "worst_mcse"]] = ["bootstrap", 0.96, 0.199, 0.004]
    assert rows.loc[pick()[0], "method"] == "clopper_pearson"
    rows.loc[0, "mean_width"] = 0.197
    assert rows.loc[pick()[0], "method"] == "bootstrap"


def test_bootstrap_methods_are_audited_within_a_budget():
    y, p, s, _, _ = _binary(n=40, seed=3)
    ev = covstudy.evaluate(y, p, s, metrics=["f1", "auc"], reps=REPS)
    c = _cells(y, p)
    n_pos, n_neg = c["tp"] + c["fn"], c["fp"] + c["tn"]
    r = _row(ev, "f1", "bootstrap")
    root = math.sqrt(0.95)
    (a0, a1), (b0, b1) = cp(c["tp"], n_pos, root), cp(c["tn"], n_neg, root)
    box = {"tpr": (a0, a1), "tnr": (b0, b1)}

    def f1_boot(points):
        r = coverage("f1.bootstrap", design="stratified", metric="f1", n_pos=n_pos, n_neg=n_neg,
                     tpr=[p["tpr"] for p in points], tnr=[p["tnr"] for p in points], reps=REPS, seed=0)
        return r.coverage, r.mcse, r.mean_width

    found = search(f1_boot, box, {"tpr": c["tp"] / n_pos, "tnr": c["tn"] / n_neg}, audit.BOOT_SEARCH_POINTS)
    assert (r.engine, r.coverage_at_estimate) == ("mc", found.coverage)
    # the search's worst, or, where it was undecided, decided at its point on fresh test sets (audit.decide)
    assert (r.reps, r.worst_coverage) == (REPS, found.worst) or (r.reps >= REPS * audit.CONFIRM
                                                                 and r.worst_mcse < found.mcse)
    r = _row(ev, "auc", "bootstrap")
    mc = coverage("auc.bootstrap", design="binormal", n_pos=n_pos, n_neg=n_neg, auc=r.estimate,
                  sd_ratio=binormal_sd_ratio(s[y == 1], s[y == 0]), reps=REPS, seed=0)
    assert r.coverage_at_estimate == mc.coverage
    assert r.reps == REPS and r.worst_coverage <= mc.coverage or r.reps >= REPS * audit.CONFIRM
    # at 10,000 scores, 2000 draws: 2 × 100 test sets would pass the budget, so the AUC bootstrap is not audited
    spec = Spec("auc", 0.8, {}, [], design="binormal", points=[dict(n_pos=3000, n_neg=7000, auc=0.8)])
    assert audit.draw_reps("auc.bootstrap", spec, 2000) is None
    spec.points = [dict(n_pos=25, n_neg=25, auc=0.8)]  # 2e8 / (2000 draws × 50 scores): 5 points of 400
    assert audit.draw_reps("auc.bootstrap", spec, 2000) == audit.BOOT_REPS
    assert audit.draw_points("auc.bootstrap", spec, audit.BOOT_REPS) == 5


def test_auc_region_is_the_maximum_variance_score_interval():
    for auc, m, n in [(0.8, 30, 50), (0.99, 85, 143), (0.5, 10, 10), (1.0, 20, 40)]:
        lo, hi = auc_region(auc, m, n, 0.05)
        z = 1.959963984540054
        for end in (lo, hi):  # the ends solve |auc - θ| = z·sqrt(θ(1 - θ)/min(m, n))
            assert abs(abs(auc - end) - z * math.sqrt(end * (1 - end) / min(m, n))) < 1e-12
        assert lo <= auc <= hi


def test_grouped_input_warns_with_the_icc():
    rng = np.random.default_rng(4)
    clusters, size = 20, 10
    g = np.repeat(np.arange(clusters), size)
    ability = np.repeat(rng.uniform(0.2, 1.0, clusters), size)
    y = np.ones(g.size, dtype=int)
    y[::3] = 0
    correct = rng.random(g.size) < ability
    p = np.where(correct, y, 1 - y)
    with pytest.warns(UserWarning, match=r"estimated ICC is 0\.\d+"):
        ev = covstudy.evaluate(y, p, groups=g, metrics=["clustered_accuracy"], reps=REPS)
    t = ev.table
    assert set(t.method) == {"wilson", "wilson_vif", "scas_vif", "ratio_wald", "cluster_bootstrap"}
    successes = np.bincount(g, weights=(p == y)).astype(int)
    sizes = np.bincount(g)
    for _, r in t.iterrows():
        assert (r.lower, r.upper) == tuple(interval(r.method, design="clustered", successes=successes, sizes=sizes))
    assert ev.warnings and "ICC" in ev.to_markdown()
    r = _row(ev, "clustered_accuracy", "wilson_vif")
    from covstudy.methods.clustered import anova_icc

    icc = float(anova_icc(successes, sizes))
    mc = coverage("wilson_vif", design="clustered", clusters=clusters, cluster_size=size, p=(p == y).mean(),
                  icc=icc, reps=REPS, seed=0)
    assert r.coverage_at_estimate == mc.coverage


def test_multiclass_and_string_labels():
    rng = np.random.default_rng(5)
    t = rng.choice(["cat", "dog", "eel"], 60)
    p = np.where(rng.random(60) < 0.7, t, rng.choice(["cat", "dog", "eel"], 60))
    ev = covstudy.evaluate(pd.Series(t, name="animal"), p, audit=False)
    assert set(ev.table.metric) == {"accuracy", "macro_recall", "macro_f1", "bea"}
    C = pd.crosstab(pd.Series(t), pd.Series(p)).reindex(index=["cat", "dog", "eel"], columns=["cat", "dog", "eel"],
                                                        fill_value=0).to_numpy()
    for _, r in ev.table.iterrows():
        qualified = f"{'proportion' if r.kind == 'proportion' else r.metric}.{r.method}"
        assert (r.lower, r.upper) == tuple(interval(qualified, metric=r.metric, confusion=C)), (r.metric, r.method)
    assert _row(ev, "accuracy", "wilson").estimate == pytest.approx(np.trace(C) / 60)
    assert _row(ev, "macro_recall", "wald").estimate == pytest.approx(np.mean(np.diag(C) / C.sum(1)))
    ev = covstudy.evaluate(t, p, metrics=["macro_recall"], reps=REPS)
    r = _row(ev, "macro_recall", "wald")
    mc = covstudy.multiclass_coverage("macro_recall", "wald", 60, (C.sum(1) / 60).tolist(),
                                      (C / C.sum(1)[:, None]).tolist(), reps=REPS, seed=0)
    assert (r.coverage_at_estimate, r.engine) == (mc.coverage, "mc")
    # the region: each class's recall over its Clopper–Pearson interval at 0.95^(1/3), one coordinate each,
    # within the recalls' χ² ellipsoid (spec.project)
    rates = C / C.sum(1)[:, None]
    ends = np.array([cp(int(C[i, i]), int(C[i].sum()), 0.95 ** (1 / 3)) for i in range(3)]).T
    for e in ends:
        g = with_recalls(rates, e)
        assert np.allclose(g.sum(1), 1) and np.allclose(np.diag(g), e)
        off = ~np.eye(3, dtype=bool)
        assert np.allclose((g / (1 - np.diag(g))[:, None])[off], (rates / (1 - np.diag(rates))[:, None])[off])
    names = ["recall_cat", "recall_dog", "recall_eel"]

    from covstudy.evaluation.data import prepare
    from covstudy.evaluation.metrics import metric_specs

    [spec] = metric_specs(prepare(t, p), 0.05, ["macro_recall"])

    def wald(points, reps=REPS):
        rs = [covstudy.multiclass_coverage("macro_recall", "wald", 60, (C.sum(1) / 60).tolist(),
                                           with_recalls(rates, [spec.project(q)[k] for k in names]).tolist(),
                                           reps=reps, seed=0) for q in points]
        return [x.coverage for x in rs], [x.mcse for x in rs], [x.mean_width for x in rs]

    if r.reps < REPS:  # the sequential audit's first stage decided it: clearly below the floor
        assert r.worst_coverage + audit.PILOT_Z * r.worst_mcse < 0.945
    else:
        found = search(wald, dict(zip(names, zip(*ends))), dict(zip(names, np.diag(rates))), audit.search_budget(REPS))
        assert r.audit == "searched" and found.worst <= mc.coverage
        assert r.worst_coverage == found.worst or (r.reps >= REPS * audit.CONFIRM and r.worst_mcse < found.mcse)


@pytest.mark.parametrize("labels, positive, expected", [
    (["no", "yes"], None, "yes"), (["neg", "pos"], None, "pos"), ([0, 1], None, 1), ([-1, 1], None, 1), ([1, 2], "2", 2),
    ([True, False], None, True), (["a", "b"], "a", "a"), ([3, 7], "3", 3)])
def test_positive_class(labels, positive, expected):
    truth = [labels[0], labels[1]] * 5
    predicted = [labels[0]] * 6 + [labels[1]] * 4
    ev = covstudy.evaluate(truth, predicted, positive=positive, metrics=["recall"], audit=False)
    assert ev.info["positive"] == expected
    hits = sum(1 for t, q in zip(truth, predicted) if t == expected and q == expected)
    assert _row(ev, "recall", "wilson").estimate == hits / 5


@pytest.mark.parametrize("kwargs, message", [
    (dict(truth=["a", "b", "a"], predicted=["a", "b", "b"]), r"^truth: cannot tell the positive class of 'a', 'b'"),
    (dict(truth=[1, 2, 1], predicted=[1, 2, 2]), r"^truth: cannot tell the positive class of 1, 2"),
    (dict(truth=[1, 0, None], predicted=[1, 0, 1]), r"^truth: 1 missing value"),
    (dict(truth=[1, 0, 1], predicted=[1, np.nan, 1]), r"^predicted: 1 missing value"),
    (dict(truth=[1, 1, 1], predicted=[1, 0, 1]), r"^truth: only one class \(1\)"),
    (dict(truth=[], predicted=[]), r"^truth: empty"),
    (dict(truth=[1, 0, 1], predicted=[1, 0]), r"^predicted: 2 values, but truth has 3"),
    (dict(truth=[1, 0, 1], scores=[0.2, np.inf, 0.1]), r"^scores: 1 missing or non-finite score"),
    (dict(truth=[1, 0, 1], scores=["x", 0.1, 0.2]), r"^scores: scores must be numbers"),
    (dict(truth=[1, 0, 1]), r"^predicted: give the predicted labels and/or the scores"),
    (dict(truth=[1, 0, 1], predicted=[1, 0, 2]), r"^predicted: 1 label\(s\) never occur in truth \('2'\)$"),
    (dict(truth=[0, 1, 2], predicted=[0, 1, 2], scores=[0.1, 0.2, 0.3]), r"^scores: scores give the AUC of a binary"),
    (dict(truth=[1, 0, 1], predicted=[1, 0, 1], positive=5), r"^positive: 5 is not one of the labels"),
    (dict(truth=[1, 0, 1], predicted=[1, 0, 1], groups=[1, 1, 1]), r"^groups: only one group"),
    (dict(truth=pd.Series([1, 0, None], name="label"), predicted=[1, 0, 1]), r"^label: 1 missing value"),
    (dict(truth=[1, 0, 1], predicted=[1, 0, 1], metrics=["auc"]), r"^metrics: auc not available"),
])
def test_input_errors_are_one_line_naming_the_column(kwargs, message):
    with pytest.raises(InputError, match=message) as e:
        covstudy.evaluate(**kwargs, audit=False)
    assert "\n" not in str(e.value)


def test_cli_end_to_end(tmp_path, capsys, monkeypatch, binary, binary_cache):
    """The command on the ``binary`` fixture's test set, as a CSV of string labels: the same table as
    ``covstudy.evaluate`` on the arrays, and the files. Its audits are read back from the fixture's audit
    cache: the plumbing is this test's point (a second run reads every audit back and gives the same
    table: test_evaluate_cost.py)."""
    (y, p, s, p2, s2), ref = binary
    _small_audits(monkeypatch)
    monkeypatch.setenv("COVSTUDY_CACHE", str(binary_cache))
    frame = pd.DataFrame({"label": np.where(y == 1, "spam", "ham"), "pred": np.where(p == 1, "spam", "ham"),
                          "score": s, "pred2": np.where(p2 == 1, "spam", "ham"), "score2": s2})
    frame.to_csv(tmp_path / "test.csv", index=False)
    out = tmp_path / "out"
    code = main([str(tmp_path / "test.csv"), "--truth", "label", "--predicted", "pred", "--score", "score",
                 "--second-predicted", "pred2", "--second-score", "score2", "--positive", "spam", "--audit-all",
                 "--reps", str(REPS), "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert "balanced_accuracy" in printed and "difference shown on accuracy: difference" in printed  # one screen
    assert "coverage_at_estimate" not in printed  # the full table is --table's
    table = pd.read_csv(out / "table.csv")
    assert {"metric", "method", "estimate", "lower", "upper", "coverage_at_estimate", "coverage_mcse",
            "worst_coverage", "mean_width", "recommended"} <= set(table.columns)
    assert table.groupby("metric").recommended.sum().eq(1).all()
    report = (out / "report.md").read_text()
    assert "## Why" in report and "\\begin{tabular}" in report
    assert (out / "forest.png").stat().st_size > 1000 and (out / "forest.pdf").exists()
    assert (out / "report.html").is_file()  # the interactive report (tests/test_explorer.py opens one)
    last = printed.strip().splitlines()[-1]
    assert str(out / "report.html") in last and (out / "report.html").resolve().as_uri() in last
    for c in ("worst_at", "audit", "meets_target", "narrower", "note"):  # empty strings read back as NaN
        if c in table:
            table[c] = table[c].astype(object).where(table[c].notna(), "")
    pd.testing.assert_frame_equal(table, ref.table.assign(reps=ref.table.reps.astype(float)),
                                  check_dtype=False)


@pytest.mark.parametrize("argv, message", [
    (["--truth", "nope", "--predicted", "pred"], "nope: no such column"),
    (["--truth", "label", "--predicted", "pred"], "label: cannot tell the positive class"),
    (["--truth", "label", "--score", "pred", "--positive", "spam"], "pred: scores must be numbers"),
])
def test_cli_user_errors_exit_2_in_one_line(tmp_path, capsys, argv, message):
    pd.DataFrame({"label": ["a", "b", "a"], "pred": ["a", "b", "b"]}).to_csv(tmp_path / "x.csv", index=False)
    pd.DataFrame({"label": ["ham", "spam", "ham"], "pred": ["x", "y", "z"]}).to_csv(tmp_path / "y.csv", index=False)
    f = tmp_path / ("y.csv" if "spam" in argv else "x.csv")
    assert main([str(f), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert main([str(tmp_path / "missing.csv"), "--truth", "label"]) == 2


def test_auc_rows_match_proc_on_its_asah_example():
    """``evaluate`` on pROC's aSAH (outcome, s100b): the AUC and its DeLong interval are pROC's
    (tests/data/proc_asah_reference.json: pROC 1.18.0, roc(aSAH$outcome, aSAH$s100b), ci.auc(method = "delong"))."""
    import json
    from pathlib import Path

    ref = json.loads((Path(__file__).parent / "data" / "proc_asah_reference.json").read_text())
    ev = covstudy.evaluate(ref["outcome"], scores=ref["s100b"], positive="Poor", audit=False)
    row = ev.table[(ev.table.metric == "auc") & (ev.table.method == "delong")].iloc[0]
    assert row.estimate == pytest.approx(float(ref["auc"]), abs=1e-12)
    assert (row.lower, row.upper) == pytest.approx((float(ref["lower95"]), float(ref["upper95"])), abs=1e-12)


def test_width_against_n_is_coverage_at_the_scaled_point_and_the_planner():
    """The growth table: the recommended method's mean width at n·scale is ``coverage()``'s at that
    point, and the n for half today's width is ``plan``'s."""
    rng = np.random.default_rng(3)
    truth = rng.random(60) < 0.5
    predicted = np.where(rng.random(60) < 0.85, truth, ~truth)
    ev = covstudy.evaluate(truth.astype(int), predicted.astype(int), metrics=["accuracy"])
    g = ev.growth
    pick = ev.recommended.iloc[0]
    p = float(pick.estimate)
    assert list(g.scale) == [0.5, 1.0, 2.0, 4.0] and list(g.n) == [30, 60, 120, 240]
    for n, width in zip(g.n, g.mean_width):
        assert width == covstudy.coverage(pick.method, n=int(n), p=p).mean_width
    today = float(g.mean_width[g.scale == 1.0].iloc[0])  # the audit's expected width (a guaranteed pick: unaudited)
    assert pick.mean_width != pick.mean_width or today == pick.mean_width
    assert g.n_for_half_width.iloc[0] == covstudy.plan(pick.method, p=p, width=today / 2).n
    assert covstudy.evaluate(truth.astype(int), predicted.astype(int), metrics=["accuracy"], audit=False).growth is None


def test_a_recommended_row_below_target_is_flagged_in_every_output(tmp_path):
    """A recommended row whose meets_target is "no" says so on its row: terminal table, report.md, report.html."""
    from covstudy.evaluation.render import markdown, text
    from covstudy.report.evaluation_page import BELOW, evaluation_page

    ev = covstudy.evaluate([1] * 12 + [0] * 8, [1] * 12 + [0] * 8, metrics=["accuracy", "recall"])
    assert set(ev.recommended.meets_target) <= {"certified", "estimated", "guaranteed"}
    assert BELOW not in text(ev.recommended) and "Below target" not in markdown(ev)
    ev.table.loc[ev.table.recommended & (ev.table.metric == "recall"), "meets_target"] = "no"
    ev.table["narrower"] = ""  # (blaker's price, wald's [1, 1], would follow the flag)
    line = next(x for x in text(ev.recommended).splitlines() if x.startswith("recall"))
    assert line.rstrip().endswith(BELOW)
    md = markdown(ev)
    assert "**Below target:**" in md and "for recall" in md
    assert next(x for x in md.splitlines() if x.startswith("| recall")).rstrip(" |").endswith(BELOW)
    html = evaluation_page(ev, tmp_path)
    assert "<b>Below target:</b>" in html and BELOW in html


def test_progress_line_on_stderr_only_and_quiet(tmp_path, capsys, monkeypatch):
    """A progress line (metric · method) on stderr, none on stdout; --quiet / progress=False: none at all.
    PROGRESS_AFTER and PROGRESS_EVERY are set to 0 so that the line shows, redrawn at every step, whatever
    the machine's speed or load (with tqdm's 0.1 s between redraws a loaded machine skipped recall's steps)."""
    from covstudy.evaluation import result

    monkeypatch.setattr(result, "PROGRESS_AFTER", 0)
    monkeypatch.setattr(result, "PROGRESS_EVERY", 0)
    y = [1] * 12 + [0] * 8
    p = [1] * 10 + [0] * 2 + [1] + [0] * 7
    covstudy.evaluate(y, p, metrics=["accuracy", "recall"], progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "covstudy-evaluate" in err and "recall · " in err and "%|" in err
    covstudy.evaluate(y, p, metrics=["accuracy", "recall"], progress=False)
    assert capsys.readouterr() == ("", "")
    pd.DataFrame({"t": y, "p": p}).to_csv(tmp_path / "f.csv", index=False)
    assert main([str(tmp_path / "f.csv"), "--truth", "t", "--predicted", "p", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "%|" not in err and "recall · " not in err and out.startswith("Recommended")  # the note of what was read stays


def test_bea_is_audited_as_the_accuracy_it_maps():
    """BEA's interval is bea() of the accuracy interval (strictly increasing), so it covers exactly when the
    accuracy interval does: the same exact coverage and worst, the width the mean of bea(U) - bea(L)."""
    from scipy import stats

    from covstudy.designs.multiclass import bea
    from covstudy.engine.exact_curve import ends

    rng = np.random.default_rng(8)
    t = rng.integers(0, 4, 150)
    p = np.where(rng.random(150) < 0.8, t, rng.integers(0, 4, 150))
    ev = covstudy.evaluate(t, p, metrics=["accuracy", "bea"], progress=False, audit_all=True)
    k = int(np.sum(t == p))
    weight = stats.binom.pmf(np.arange(151), 150, k / 150)
    for method in ("wilson", "agresti_coull", "mid_p"):  # not guaranteed ones: never audited
        a, b = _row(ev, "accuracy", method), _row(ev, "bea", method)
        assert (b.coverage_at_estimate, b.worst_coverage, b.audit) == (a.coverage_at_estimate, a.worst_coverage,
                                                                          "certified")
        _, _, _, _, lower, upper = ends(f"proportion.{method}", 150, 0.05)
        assert b.mean_width == pytest.approx(np.sum(weight * (bea(upper, 4) - bea(lower, 4))), rel=1e-12)
        assert b.mean_width != pytest.approx(a.mean_width, rel=1e-3)


def test_the_audit_stops_at_the_narrowest_method_that_meets_the_target():
    """By default a metric is audited narrowest interval on the data first, and every row at least as wide as the
    first non-resampling method that meets the target is left unaudited with a note naming it, as is every row
    at least as wide as the narrowest guaranteed one (never audited itself); the audited rows have audit_all's
    numbers, and every narrower row is audited but a resampling one within 1% of it (it could not be
    recommended)."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 120)
    p = np.where(rng.random(120) < 0.85, y, 1 - y)
    metrics = ["balanced_accuracy", "precision", "f1", "accuracy"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(audit, "BOOT_BUDGET", 0)
        mp.setattr(certify, "WORK", 1e7)  # smaller searches, the same in both runs (test_certify.py: the full ones)
        full = covstudy.evaluate(y, p, metrics=metrics, audit_all=True, progress=False).table
        quick = covstudy.evaluate(y, p, metrics=metrics, progress=False).table
    columns = ["coverage_at_estimate", "worst_coverage", "worst_bound", "meets_target", "mean_width"]
    skipped = 0
    for metric in metrics:
        a, b = full[full.metric == metric].set_index("method"), quick[quick.metric == metric].set_index("method")
        audited = b.index[b.coverage_at_estimate.notna()]
        pd.testing.assert_frame_equal(a.loc[audited, columns], b.loc[audited, columns])
        left = b.index[b.note.str.startswith("not audited: wider on your data than")]
        proven = b.guaranteed.astype(bool)
        assert b[proven].coverage_at_estimate.isna().all() and (b[proven].meets_target == "guaranteed").all()
        wide = b.index[b.note.str.startswith("not audited: at least as wide on your data as")]
        assert (b.loc[wide, "width"] >= b[proven].width.min()).all()
        assert b[~proven & (b.width < b[proven].width.min())].note.str.startswith("not audited: at least").sum() == 0
        skipped += len(wide)
        stop = b.loc[left[0], "note"].split(" than ")[1].split(",")[0] if len(left) else None
        if stop is None:
            continue
        skipped += len(left)
        assert b.loc[stop, "meets_target"] in ("certified", "estimated")
        assert (b.loc[left, "width"] >= b.loc[stop, "width"]).all()
        narrower = b.loc[b.width < b.loc[stop, "width"]]
        tie = narrower.note.str.startswith("not audited: less than 1% narrower")
        assert narrower[tie].index.isin(list(audit.BOOTSTRAP)).all()
        assert (narrower[tie].width * 1.01 >= b.loc[stop, "width"]).all()
        assert (narrower.coverage_at_estimate.notna() | narrower.note.str.contains("budget") | tie).all()  # BOOT_BUDGET 0
        assert b.loc[stop, "recommended"] or b.loc[b.recommended].width.iloc[0] < b.loc[stop, "width"]
    assert skipped >= 10


@pytest.mark.parametrize("method", ["proportion.wilson", "proportion.clopper_pearson", "proportion.mid_p",
                                    "proportion.blaker"])
@pytest.mark.parametrize("n, k", [(30_000, 26_987), (10_000, 7_013), (2_500, 2_431)])
def test_one_proportion_audit_on_its_window_equals_the_whole_table(method, n, k, monkeypatch):
    """Beyond WINDOW_FROM the binomial audit computes only the k that carry the region's probability: the
    same coverage and infimum as all n + 1 intervals, the width within 1e-15."""
    from covstudy.evaluation.metrics import cp

    region = cp(k, n, 0.95)
    windowed = audit._binomial_audit(method, n, k / n, 0.05, region)
    monkeypatch.setattr(audit, "WINDOW_FROM", 10**9)
    whole = audit._binomial_audit(method, n, k / n, 0.05, region)
    assert (windowed["coverage_at_estimate"], windowed["worst_coverage"], windowed["worst_at"]) == (
        whole["coverage_at_estimate"], whole["worst_coverage"], whole["worst_at"])
    assert windowed["mean_width"] == pytest.approx(whole["mean_width"], abs=1e-15)


def test_searched_exact_audit_reads_the_plug_in_off_its_windows():
    """Beyond CERTIFY_OUTCOMES the exact audit searches on count windows that leave out at most SEARCH_BOUND of
    each class and reads the plug-in point's coverage and width off them: within 1e-10 of coverage() there
    (the left-out outcomes lower it by < 2e-8; the two pmf computations differ by ~1e-12)."""
    from covstudy.evaluation.data import prepare
    from covstudy.evaluation.metrics import metric_specs

    rng = np.random.default_rng(12)
    y = (rng.random(4000) < 0.25).astype(int)
    p = np.where(rng.random(4000) < np.where(y == 1, 0.8, 0.9), y, 1 - y)
    [s] = metric_specs(prepare(y, p), 0.05, ["precision"])
    assert audit._outcomes("proportion.wilson", s) > audit.CERTIFY_OUTCOMES
    row = audit.audit_metric(s, "wilson", "proportion.wilson", 0.05, REPS, 0)
    pt = s.points[0]
    exact = coverage("wilson", design="stratified", metric="precision", **pt)
    assert row["audit"] == "searched" and row["engine"] == "exact"
    assert abs(row["coverage_at_estimate"] - exact.coverage) < 1e-10
    assert abs(row["mean_width"] - exact.mean_width) < 1e-10


def test_spearman_is_scipys_with_ties_and_constants():
    """metrics._spearman (the AUC difference's correlation at 10⁶ rows) against scipy.stats.spearmanr."""
    from scipy import stats as st

    from covstudy.evaluation.metrics import _spearman

    rng = np.random.default_rng(1)
    for t in range(30):
        n = int(rng.integers(2, 200))
        u = rng.integers(0, 5, n) + (rng.random(n) if t % 2 else 0)
        v = rng.integers(0, 5, n) * (t % 3 != 0)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = st.spearmanr(u, v)[0]
        got = _spearman(u, v)
        assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)


def test_n_for_half_width_not_planned_beyond_its_bound(monkeypatch):
    """Beyond growth.HALF_N_MAX examples the n for half the width is not planned (its exact search costs
    ~4.5e-5 CPU-s an example): the widths stay, the cell is empty."""
    from covstudy.evaluation import growth

    monkeypatch.setattr(growth, "HALF_N_MAX", 50)
    rng = np.random.default_rng(3)
    truth = rng.random(60) < 0.5
    predicted = np.where(rng.random(60) < 0.85, truth, ~truth)
    g = covstudy.evaluate(truth.astype(int), predicted.astype(int), metrics=["accuracy"], cache=False).growth
    assert list(g.n) == [30, 60, 120, 240] and g.mean_width.notna().all()
    assert g.n_for_half_width.isna().all()


def test_width_against_n_leaves_a_size_past_the_design_s_simulation_empty(monkeypatch):
    """A 10⁵-row file with two models' scores crashed (the AUC difference's width at 4 × the size passed
    paired_binormal's Monte Carlo limit): the sizes that fit get their widths, the others an empty cell."""
    from covstudy.designs import paired_binormal
    from covstudy.evaluation.growth import SCALES

    monkeypatch.setattr(paired_binormal, "MC_LIMIT", 240)  # 2 × 120 scores fit, 4 × 120 do not
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 120)
    s1, s2 = y + rng.normal(0, 1, 120), y * 0.8 + rng.normal(0, 1, 120)
    ev = covstudy.evaluate(y, scores=s1, second_scores=s2, metrics=["auc_difference"], reps=50, progress=False,
                           budget=2.0, cache=False)
    g = ev.growth[ev.growth.metric == "auc_difference"]
    widths = dict(zip(g.scale, g.mean_width))
    assert list(g.scale) == list(SCALES) and np.isnan(widths[4.0])
    assert all(np.isfinite(widths[f]) and widths[f] > 0 for f in (0.5, 1.0, 2.0))


def test_width_against_n_of_the_chernoff_hoeffding_picks_from_their_formula():
    """The Chernoff–Hoeffding AUC and AUC difference are closed forms of a few statistics and k = min(m, n): their
    widths at other sizes come from the formula (22 CPU-s of simulated paired scores at 10⁵ rows): at the user's
    size the width on the data, at f times it the formula at k·f."""
    from types import SimpleNamespace

    from covstudy.evaluation import growth
    from covstudy.methods.auc_distribution_free import (auc_difference_chernoff_hoeffding, chernoff_hoeffding,
                                                        difference_bounds, mean_abs_difference)
    from covstudy.methods.chernoff import kl_bounds

    rng = np.random.default_rng(4)
    p1, n1 = rng.normal(1, 1, 70), rng.normal(0, 1, 90)
    p2, n2 = p1 + rng.normal(0, 0.7, 70), n1 + rng.normal(0, 0.7, 90)
    axes = {"n_pos": np.array([35, 70, 140, 280]), "n_neg": np.array([45, 90, 180, 360])}
    lo, hi = chernoff_hoeffding(p1, n1, 0.05)
    s = SimpleNamespace(estimate=float(np.mean(p1[:, None] > n1)))
    w = growth.CLOSED_FORM["auc.chernoff_hoeffding"](s, axes, 0.05)
    assert w[1] == pytest.approx(hi - lo, abs=1e-12)
    want = [np.subtract(*kl_bounds(s.estimate, k, np.log(2 / 0.05))[::-1]) for k in (35, 70, 140, 280)]
    assert np.allclose(w, want, atol=1e-12) and np.all(np.diff(w) < 0)
    lo, hi = auc_difference_chernoff_hoeffding(p1, n1, p2, n2, 0.05)
    d = float(np.mean(p1[:, None] > n1) - np.mean(p2[:, None] > n2))
    s = SimpleNamespace(estimate=d, door=dict(pos_first=p1, neg_first=n1, pos_second=p2, neg_second=n2))
    w = growth.CLOSED_FORM["auc_difference.chernoff_hoeffding"](s, axes, 0.05)
    assert w[1] == pytest.approx(float(hi - lo), abs=1e-12)
    s_hat = float(mean_abs_difference(p1, n1, p2, n2))
    assert w[3] == pytest.approx(float(np.subtract(*difference_bounds(d, s_hat, 280, 0.05)[::-1])), abs=1e-12)
