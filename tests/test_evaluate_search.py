"""The searched worst coverage (issue 40, item 2): evaluation/search.py finds a planted minimum and the
minimum of exact coverage over a dense grid, deterministically; the smoothed-empirical AUC check's
populations and test sets; the regions' pieces (binormal sd_ratio, ICC interval); every metric's
region contains its plug-in point; and the audit's searched rows."""

import math

import numpy as np
import pytest

import covstudy
from covstudy import coverage
from covstudy.evaluation import audit, empirical
from covstudy.evaluation.data import prepare
from covstudy.evaluation.metrics import metric_specs
from covstudy.evaluation.region import binormal_sd_ratio, icc_box, sd_ratio_box
from covstudy.evaluation.search import halton, search, start_points


def _bowl(centre, noise=0.0, seed=0, width=0.02):
    """A planted minimum: 0.95 - 0.1·exp(-|x - centre|²/width) (+ Gaussian noise of SD ``noise``, as MCSE)."""
    rng = np.random.default_rng(seed)
    calls = []

    def evaluate(points):
        calls.append(len(points))
        x = np.array([[p[k] for k in sorted(p)] for p in points])
        f = 0.95 - 0.1 * np.exp(-np.sum((x - centre) ** 2, axis=1) / width)
        return f + noise * rng.standard_normal(len(points)), np.full(len(points), noise), np.ones(len(points))
    return evaluate, calls


@pytest.mark.parametrize("dims", [1, 2, 3, 5])
def test_search_finds_a_planted_minimum(dims):
    centre = np.linspace(0.3, 0.7, dims)
    box = {f"x{i}": (0.0, 1.0) for i in range(dims)}
    at = {k: 0.5 for k in box}
    evaluate, calls = _bowl(centre)
    found = search(evaluate, box, at, max_points=200)
    x = np.array([found.at[k] for k in sorted(found.at)])
    assert np.max(np.abs(x - centre)) <= 1 / 16 + 1e-12  # within the last steps (a 1/32 grid) of the minimum
    assert found.worst <= 0.85 + 0.1 * (1 - math.exp(-dims * (1 / 16) ** 2 / 0.02))
    assert found.points == sum(calls) <= 200
    # with noise of SD 0.005 (an MCSE), it still lands near the bottom of a wider bowl (20 MCSE deep)
    evaluate, _ = _bowl(centre, noise=0.005, seed=dims, width=0.2)
    found = search(evaluate, box, at, max_points=200)
    x = np.array([found.at[k] for k in sorted(found.at)])
    assert np.max(np.abs(x - centre)) <= 0.15 and found.worst < 0.87


def test_search_keeps_its_budget_and_start_points():
    box = {"a": (0.0, 1.0), "b": (0.2, 0.4), "c": (0.5, 0.5), "d": (0.0, 2.0)}
    at = {"a": 0.1, "b": 0.3, "c": 0.5, "d": 1.0}
    starts = start_points(box, at)
    assert starts[0] == at and len(starts) == 1 + 2 * 4 + 4  # plug-in, axis ends, Halton points
    assert all(box[k][0] <= p[k] <= box[k][1] for p in starts for k in box)
    assert len(start_points({"a": (0.0, 1.0), "b": (0.0, 1.0)}, {"a": 0.5, "b": 0.5})) == 5  # plug-in and corners
    assert halton(3, 2).tolist() == [[0.5, 1 / 3], [0.25, 2 / 3], [0.75, 1 / 9]]
    evaluate, calls = _bowl(np.array([0.9, 0.3, 0.5, 0.1]))
    found = search(evaluate, box, at, max_points=20)
    assert found.points == sum(calls) == 20
    found = search(evaluate, box, at, max_points=6)  # fewer than the start points
    assert found.points == 6 and found.coverage == evaluate([at])[0][0]


@pytest.mark.parametrize("method, metric, box", [
    ("wald", "balanced_accuracy", {"tpr": (0.6, 0.95), "tnr": (0.6, 0.95)}),
    ("wilson", "precision", {"tpr": (0.5, 0.9), "tnr": (0.5, 0.9)}),
])
def test_searched_worst_is_the_dense_grid_minimum_of_exact_coverage(method, metric, box):
    """At n_pos = n_neg = 10 (an exact engine): the Monte Carlo search's worst is the minimum of exact
    coverage over a 41 × 41 grid of the box within a few MCSE, and the exact search's within 1e-3."""
    kw = dict(design="stratified", metric=metric, n_pos=10, n_neg=10)
    g = np.linspace(0, 1, 41)
    T, N = np.meshgrid(box["tpr"][0] + g * np.ptp(box["tpr"]), box["tnr"][0] + g * np.ptp(box["tnr"]))
    grid = coverage(method, tpr=T.ravel(), tnr=N.ravel(), **kw).coverage.min()

    def evaluate(points, reps=None):
        r = coverage(method, tpr=np.array([p["tpr"] for p in points]), tnr=np.array([p["tnr"] for p in points]),
                     reps=reps, seed=3, **kw)
        return r.coverage, r.mcse, r.mean_width

    at = {"tpr": 0.75, "tnr": 0.75}
    mc = search(lambda p: evaluate(p, 4000), box, at)
    assert abs(mc.worst - grid) <= 3 * mc.mcse
    exact = search(evaluate, box, at)
    assert grid - 1e-12 <= exact.worst <= grid + 1e-3
    assert search(lambda p: evaluate(p, 4000), box, at) == mc  # deterministic


def test_smoothed_empirical_populations_and_test_sets():
    rng = np.random.default_rng(7)
    pos, neg = np.round(rng.normal(1, 1, 40), 1), np.round(rng.normal(0, 1, 60), 1)  # ties
    sm = empirical.smoothed(pos, neg)
    for target in (0.6, 0.8, 0.95):
        t = empirical.shift_for(sm, target)
        assert empirical.true_auc(sm, t) == pytest.approx(target, abs=1e-9)
    # the Mann–Whitney AUC is unbiased: its mean over the simulated test sets is the populations' AUC
    x, y = empirical.draws(sm, 3000, 0)
    t = empirical.shift_for(sm, 0.8)
    wins = (x[:, :, None] + t > y[:, None, :]).mean(axis=(1, 2))
    assert abs(wins.mean() - 0.8) <= 4 * wins.std() / math.sqrt(wins.size)
    # the same draws at every AUC (common random numbers) and every call
    a = empirical.coverage_at("auc.delong", sm, [0.7, 0.9], 0.05, 300, 1)
    b = empirical.coverage_at("auc.delong", sm, [0.9], 0.05, 300, 1)
    assert a[0][1] == b[0][0] and 0.8 < a[0][0] <= 1


@pytest.mark.parametrize("n_pos, n_neg, ties", [(3000, 7000, True), (2500, 2000, False), (300, 14000, True)])
def test_smoothed_auc_beyond_the_exact_pairs_is_within_its_binning_error(n_pos, n_neg, ties, monkeypatch):
    """Beyond PAIRS_EXACT pairs AUC(t) runs over binned differences: within 2e-6 of the exact pairwise mean."""
    from scipy import special

    def exact(t, scale):  # the mean of Φ((x + t - y)/scale) over all pairs, summed over distinct values (ties)
        (pu, pc), (nu, nc) = (np.unique(v, return_counts=True) for v in (sm.pos, sm.neg))
        return pc @ special.ndtr((pu[:, None] + t - nu[None, :]) / scale) @ nc / (sm.pos.size * sm.neg.size)

    rng = np.random.default_rng(n_pos)
    pos, neg = rng.normal(1, 1, n_pos), rng.normal(0, 1.2, n_neg)
    sm = empirical.smoothed(*((np.round(pos, 1), np.round(neg, 1)) if ties else (pos, neg)))
    assert sm.pos.size * sm.neg.size > empirical.PAIRS_EXACT
    scale = math.hypot(sm.h_pos, sm.h_neg)
    for t in (-1.5, -0.3, 0.0, 0.7, 2.0):
        assert abs(empirical.true_auc(sm, t) - exact(t, scale)) < 2e-6
    monkeypatch.setattr(empirical, "BINS_PER_SCALE", 5)  # a coarse grid errs by more: the check can fail
    coarse = empirical.smoothed(sm.pos, sm.neg)
    assert abs(empirical.true_auc(coarse, 0.0) - exact(0.0, scale)) > 2e-6


def test_binormal_sd_ratio_and_icc_interval():
    rng = np.random.default_rng(2)
    for sd in (0.5, 1.0, 2.0):
        pos, neg = rng.normal(1.0, sd, 4000), rng.normal(0.0, 1.0, 6000)
        assert binormal_sd_ratio(np.exp(pos), np.exp(neg)) == pytest.approx(sd, rel=0.1)  # invariant to a monotone map
        lo, hi = sd_ratio_box(sd, 4000, 6000, 0.95)
        assert lo < sd < hi
    assert binormal_sd_ratio([3.0, 4.0], [1.0, 2.0]) == 1.0  # separated: no ROC point inside
    # the F interval of the ICC covers the true ICC of the clustered design's beta-binomial clusters about
    # at its level (exact only for normal data: within 0.05)
    m, s, icc, p, hits = 40, 8, 0.2, 0.4, 0
    a, b = p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc
    for rep in range(400):
        y = rng.binomial(s, rng.beta(a, b, m))
        lo, hi = icc_box(y, np.full(m, s), 0.9, limit=1.0)
        hits += lo <= icc <= hi
    assert abs(hits / 400 - 0.9) <= 0.05


def _all_specs():
    rng = np.random.default_rng(11)
    n = 120
    y = rng.integers(0, 2, n)
    s1, s2 = y * 1.5 + rng.normal(0, 1, n), y * 1.0 + rng.normal(0, 1, n)
    p1, p2 = (s1 > 0.7).astype(int), (s2 > 0.5).astype(int)
    g = np.repeat(np.arange(24), 5)
    specs = metric_specs(prepare(y, p1, s1, g, p2, s2), 0.05, None)
    t = rng.integers(0, 3, 90)
    specs += metric_specs(prepare(t, np.where(rng.random(90) < 0.8, t, rng.integers(0, 3, 90))), 0.05, None)
    q = np.repeat(np.arange(30), 3)
    specs += metric_specs(prepare(y[:90], np.where(rng.random(90) < 0.7, y[:90], 1 - y[:90]), questions=q), 0.05,
                          None)
    return specs


def test_every_region_contains_its_plug_in_point():
    searched = set()
    for s in _all_specs():
        if s.region is not None:
            assert s.region[0] <= s.points[0]["p"] <= s.region[1], s.metric
            continue
        if s.box is None:
            continue
        assert set(s.at) == set(s.box), s.metric
        for k, (lo, hi) in s.box.items():
            assert lo <= s.at[k] <= hi, (s.metric, k)
        assert s.region_text, s.metric
        if s.point_of is not None:
            searched.add(s.metric)
            if s.multiclass is None:
                assert s.point_of(s.at) == s.points[0], s.metric
    assert searched >= {"auc", "auc_second", "auc_difference", "recall_difference", "f1_difference",
                        "balanced_accuracy_difference", "clustered_accuracy", "eval_accuracy", "macro_recall",
                        "macro_f1", "balanced_accuracy", "accuracy_difference"}


def test_the_confusion_point_keeps_the_observed_cells():
    """At the plug-in shares, the paired_confusion point's 8 cell probabilities are the observed cells / n."""
    from covstudy.designs.paired_confusion import cell_probabilities

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    p1, p2 = np.where(rng.random(200) < 0.85, y, 1 - y), np.where(rng.random(200) < 0.75, y, 1 - y)
    [s] = metric_specs(prepare(y, p1, second_predicted=p2), 0.05, ["f1_difference"])
    t, a, b = y == 1, p1 == y, p2 == y
    cells = [np.mean(c & m1 & m2) for c in (t, ~t) for m1, m2 in ((a, b), (a, ~b), (~a, b), (~a, ~b))]
    assert cell_probabilities(s.points[0]) == pytest.approx(cells, abs=1e-12)
    moved = dict(s.at, prevalence=s.at["prevalence"] + 1e-9)  # the general map: the same cells
    assert cell_probabilities(s.point_of(moved)) == pytest.approx(cells, abs=1e-8)


def test_searched_rows_of_the_audit():
    """A Monte Carlo metric's row: searched, worst at most the plug-in coverage, deterministic; the AUC's
    worst the lower of the binormal and the smoothed-empirical searches."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 60)
    s = y * 1.2 + rng.normal(0, 1, 60)
    [spec] = metric_specs(prepare(y, scores=s), 0.05, ["auc"])
    one = audit.audit_metric(spec, "newcombe", "auc.newcombe", 0.05, 300, 0)
    assert one == audit.audit_metric(spec, "newcombe", "auc.newcombe", 0.05, 300, 0)
    assert one["audit"] == "searched" and math.isnan(one["worst_bound"]) and one["engine"] == "mc"
    binormal = search(lambda c: _binormal(c, spec), spec.box, spec.at, audit.search_budget(300))
    if one["reps"] == 300:
        assert one["worst_coverage"] <= one["coverage_at_estimate"] and one["worst_coverage"] <= binormal.worst
    else:  # undecided at 300 test sets: decided at its worst point on at least CONFIRM × as many, fresh ones
        assert one["reps"] >= 300 * audit.CONFIRM and one["worst_mcse"] < binormal.mcse
    assert one["coverage_at_estimate"] == binormal.coverage
    ev = covstudy.evaluate(y, (s > 0.6).astype(int), s, metrics=["auc"], reps=300)
    row = ev.table[ev.table.method == "newcombe"].iloc[0]
    assert row.worst_coverage == one["worst_coverage"] and row.meets_target in ("estimated", "undecided", "no")


def _binormal(coords, spec):
    r = coverage("auc.newcombe", design="binormal", n_pos=spec.points[0]["n_pos"], n_neg=spec.points[0]["n_neg"],
                 auc=np.array([c["auc"] for c in coords]), sd_ratio=np.array([c["sd_ratio"] for c in coords]),
                 reps=300, seed=0)
    return r.coverage, r.mcse, r.mean_width


def test_a_decision_batch_refused_for_its_memory_is_pooled_over_pieces():
    """A 10⁶-row clustered file's decision asked the engine for 8 × reps test sets at once (9.6 GB, a traceback):
    a batch the engine refuses for its memory is drawn in pieces of reps test sets, pooled."""
    from covstudy.evaluation import audit

    asked = []

    def evaluate(coords, reps, seed):
        asked.append(reps)
        if reps > 100:
            raise ValueError(f"reps: Monte Carlo at clusters = 99,994 needs ~9.6 GB (reps = {reps:,}), more than the "
                             f"2 GB limit")
        return np.array([0.96]), np.array([0.2 / np.sqrt(reps)]), np.array([0.1])

    out = audit.decide(evaluate, {}, 0.946, 0.01, 0.945, 100, seed=3)
    assert out["reps"] >= 800 and out["worst_coverage"] == pytest.approx(0.96)
    assert max(asked) > 100 and all(r <= 100 for r in asked[1:])
    with pytest.raises(ValueError, match="something else"):
        audit.decide(lambda c, reps, seed: (_ for _ in ()).throw(ValueError("something else")), {}, 0.946, 0.01,
                     0.945, 100, seed=3)
