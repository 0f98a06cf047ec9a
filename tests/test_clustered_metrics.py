"""Clustered precision, recall, F1 and AUC (issue 42, item 5): the designs clustered_confusion and
clustered_binormal against their moments, the cluster-aware methods against direct loop implementations
of their formulas, and covstudy-evaluate's grouped rows."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from hypothesis import given, settings
from hypothesis import strategies as st

import covstudy
from covstudy import coverage, interval
from covstudy.designs.clustered_binormal import clustered_scores
from covstudy.designs.clustered_confusion import cluster_confusions
from covstudy.methods.auc import auc_and_delong_variance
from covstudy.methods.binomial import _z
from covstudy.methods.clustered_auc import obuchowski_variance
from covstudy.methods.clustered_metrics import RATIOS


def _mean_within(x, expected, z=4.0):
    """The sample mean of x within z standard errors of ``expected``."""
    x = np.asarray(x, dtype=float).ravel()
    assert abs(x.mean() - expected) <= z * x.std(ddof=1) / np.sqrt(x.size), (x.mean(), expected)


def _variance_within(x, expected, z=4.0):
    """The sample variance of x within z of its standard errors (from the fourth central moment) of ``expected``."""
    x = np.asarray(x, dtype=float).ravel()
    d = x - x.mean()
    se = np.sqrt(max(np.mean(d ** 4) - np.mean(d * d) ** 2, 0.0) / x.size)
    assert abs(np.mean(d * d) - expected) <= z * se, (np.mean(d * d), expected)


# ---------------------------------------------------------------- the designs' moments (Monte Carlo vs formula)

@pytest.mark.parametrize("by_type", [True, False])
def test_clustered_confusion_moments_match_the_beta_binomial_formulas(by_type, monkeypatch):
    """Both ways of drawing a test set: its clusters' types (one multinomial) and stage by stage."""
    from covstudy.designs import clustered_confusion

    monkeypatch.setattr(clustered_confusion, "TYPES_PER_CLUSTER", 4 if by_type else 0)
    s, q, tpr, tnr, rq, rt, rn = 8, 0.4, 0.7, 0.85, 0.15, 0.3, 0.2
    tp, fn, fp, tn = cluster_confusions(4000, s, q, tpr, tnr, rq, rt, rn, 5, np.random.default_rng(7)).astype(float)
    n_pos = tp + fn
    _mean_within(n_pos, s * q)
    _variance_within(n_pos, s * q * (1 - q) * (1 + (s - 1) * rq))
    _mean_within(tp, s * q * tpr)
    _mean_within(tn, s * (1 - q) * tnr)
    for k in (3, 4):  # given a cluster's positives, tp is beta-binomial with ICC icc_tpr
        _variance_within(tp[n_pos == k], k * tpr * (1 - tpr) * (1 + (k - 1) * rt))
        _variance_within(tn[n_pos == k], (s - k) * tnr * (1 - tnr) * (1 + (s - k - 1) * rn))


def test_clustered_binormal_moments_match_its_model():
    m, s, q, auc, rq, rs = 3000, 4, 0.3, 0.8, 0.1, 0.4
    scores, labels = clustered_scores(m, s, q, auc, rq, rs, 4, np.random.default_rng(3))
    lab = labels.reshape(4, m, s).astype(bool)
    x = scores.reshape(4, m, s)
    n_pos = lab.sum(axis=2)
    _mean_within(n_pos, s * q)
    _variance_within(n_pos, s * q * (1 - q) * (1 + (s - 1) * rq))
    mu = np.sqrt(2) * covstudy._lazy.stats.norm.ppf(auc)
    _mean_within(x[~lab], 0.0)
    _mean_within(x[lab], mu)
    _variance_within(x[~lab], 1.0)
    # two negatives of one cluster: correlation icc_score, i.e. E[(S1 - 0)(S2 - 0)] = icc_score
    both = (~lab[:, :, 0]) & (~lab[:, :, 1])
    _mean_within(x[:, :, 0][both] * x[:, :, 1][both], rs)
    # a positive and a negative of different clusters: P(X > Y) = auc
    half = m // 2
    pos, neg = x[:, :half][lab[:, :half]], x[:, half:][~lab[:, half:]]
    k = min(pos.size, neg.size)
    _mean_within(pos[:k] > neg[:k], auc)


def test_the_designs_are_reproducible_and_keyed_by_the_point():
    pt = dict(clusters=20, cluster_size=5, prevalence=0.3, tpr=0.8, tnr=0.9, icc_prevalence=0.1, icc_tpr=0.2,
              icc_tnr=0.1)
    a = coverage("ratio_wald", design="clustered_confusion", metric="precision", reps=50, seed=4, **pt)
    b = coverage("ratio_wald", design="clustered_confusion", metric="precision", reps=50, seed=4, **pt)
    assert a.coverage == b.coverage and a.mean_width == b.mean_width
    assert a.truth == pytest.approx(0.3 * 0.8 / (0.3 * 0.8 + 0.7 * 0.1))


# ---------------------------------------------------------------- the methods against loops of their formulas

def _ratio_reference(metric, cells, delta):
    """Cochran's ratio-estimator Wald interval, cluster by cluster in plain Python."""
    wy, wx = RATIOS[metric]
    y = [sum(w * c[j] for j, w in enumerate(wy)) for c in cells]
    x = [sum(w * c[j] for j, w in enumerate(wx)) for c in cells]
    r = sum(y) / sum(x)
    m = len(cells)
    v = m / (m - 1) * sum((yi - r * xi) ** 2 for yi, xi in zip(y, x)) / sum(x) ** 2
    half = float(_z(delta)) * v ** 0.5
    return max(0.0, r - half), min(1.0, r + half)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(*(st.integers(0, 6),) * 4), min_size=2, max_size=9),
       st.sampled_from(sorted(RATIOS)), st.sampled_from([0.05, 0.1, 0.2]))
def test_ratio_wald_equals_the_loop_of_its_formula(cells, metric, delta):
    tp, fn, fp, tn = (np.array(c) for c in zip(*cells))
    lo, hi = interval("ratio_wald", design="clustered_confusion", metric=metric, tp=tp, fn=fn, fp=fp, tn=tn,
                      delta=delta)
    wy, wx = RATIOS[metric]
    if sum(w * sum(c[j] for c in cells) for j, w in enumerate(wx)) == 0:
        assert (lo, hi) == (0.0, 1.0)  # undefined: vacuous
        return
    ref = _ratio_reference(metric, cells, delta)
    assert lo == pytest.approx(ref[0], abs=1e-12) and hi == pytest.approx(ref[1], abs=1e-12)
    assert 0 <= lo <= hi <= 1


@pytest.mark.parametrize("metric", sorted(RATIOS))
def test_cluster_bootstrap_equals_a_loop_over_resamples(metric):
    rng = np.random.default_rng(11)
    cells = rng.integers(0, 5, size=(4, 7))
    draws, delta = 300, 0.1
    lo, hi = interval("cluster_bootstrap", design="clustered_confusion", metric=metric, **dict(zip("tp fn fp tn".split(), cells)),
                      delta=delta, seed=5, draws=draws)
    # the reference: the same stream, one resample after another, clusters picked as ⌊u·m⌋
    wy, wx = RATIOS[metric]
    y, x = (sum(w * cells[j] for j, w in enumerate(ws)) for ws in (wy, wx))
    u = np.random.default_rng(5).random((draws, 7))
    ratios = []
    for row in u:
        pick = [int(v * 7) for v in row]
        den = sum(x[i] for i in pick)
        if den > 0:
            ratios.append(sum(y[i] for i in pick) / den)
    ref = np.quantile(ratios, [delta / 2, 1 - delta / 2])
    assert (lo, hi) == pytest.approx(tuple(ref), abs=1e-12)


def _obuchowski_reference(scores, labels, clusters):
    """Obuchowski (1997), section 2, term by term: ψ over every pair, V10/V01 per cluster, S10, S01, S11."""
    psi = lambda a, b: 1.0 if a > b else 0.5 if a == b else 0.0  # noqa: E731
    ids = sorted(set(clusters))
    pos = [(c, s) for s, l, c in zip(scores, labels, clusters) if l]
    neg = [(c, s) for s, l, c in zip(scores, labels, clusters) if not l]
    M, N = len(pos), len(neg)
    auc = sum(psi(x, y) for _, x in pos for _, y in neg) / (M * N)
    v10 = {i: sum(psi(x, y) for c, x in pos if c == i for _, y in neg) / N for i in ids}
    v01 = {i: sum(psi(x, y) for _, x in pos for c, y in neg if c == i) / M for i in ids}
    m = {i: sum(1 for c, _ in pos if c == i) for i in ids}
    n = {i: sum(1 for c, _ in neg if c == i) for i in ids}
    i10, i01, I = sum(m[i] > 0 for i in ids), sum(n[i] > 0 for i in ids), len(ids)
    s10 = i10 / ((i10 - 1) * M) * sum((v10[i] - m[i] * auc) ** 2 for i in ids)
    s01 = i01 / ((i01 - 1) * N) * sum((v01[i] - n[i] * auc) ** 2 for i in ids)
    s11 = I / (I - 1) * sum((v10[i] - m[i] * auc) * (v01[i] - n[i] * auc) for i in ids)
    return auc, s10 / M + s01 / N + 2 * s11 / (M * N)


@pytest.mark.parametrize("seed", range(6))
def test_obuchowski_equals_the_papers_formulas_computed_by_hand(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(12, 40))
    clusters = rng.integers(0, int(rng.integers(3, 8)), n)
    labels = (rng.random(n) < 0.45).astype(int)
    labels[:2] = [0, 1]
    clusters[:2] = [clusters.max() + 1, clusters.max() + 2]  # at least two clusters of each class
    scores = np.round(rng.normal(size=n) + labels, 1 if seed % 2 else 3)  # ties on odd seeds
    auc, var = obuchowski_variance(scores, labels, clusters)
    ref = _obuchowski_reference(scores.tolist(), labels.tolist(), clusters.tolist())
    assert (float(auc), float(var)) == pytest.approx(ref, rel=1e-12, abs=1e-15)
    lo, hi = interval("obuchowski", design="clustered_binormal", scores=scores, labels=labels, clusters=clusters,
                      delta=0.05)
    assert (lo, hi) == pytest.approx((max(0, ref[0] - 1.959963984540054 * ref[1] ** 0.5),
                                      min(1, ref[0] + 1.959963984540054 * ref[1] ** 0.5)))


def test_obuchowski_with_one_example_a_cluster_is_delong():
    rng = np.random.default_rng(2)
    scores, labels = np.round(rng.normal(size=(5, 30)), 1), (rng.random((5, 30)) < 0.4).astype(int)
    auc, var = obuchowski_variance(scores, labels, np.broadcast_to(np.arange(30), (5, 30)))
    for r in range(5):
        ref = auc_and_delong_variance(scores[r][labels[r] == 1][None], scores[r][labels[r] == 0][None])
        assert (auc[r], var[r]) == pytest.approx((ref[0][0], ref[1][0]), rel=1e-12)
    lo, hi = interval("delong", design="clustered_binormal", scores=scores[0], labels=labels[0],
                      clusters=np.zeros(30, dtype=int) + np.arange(30) % 2, delta=0.05)
    ref = covstudy.auc_interval("delong", scores[0][labels[0] == 1], scores[0][labels[0] == 0])
    assert (lo, hi) == pytest.approx(tuple(ref), rel=1e-12)  # the naive row ignores the clusters


def test_auc_cluster_bootstrap_equals_a_loop_over_resampled_data_sets():
    rng = np.random.default_rng(8)
    clusters = np.repeat(np.arange(6), 4)
    labels = (rng.random(24) < 0.5).astype(int)
    scores = np.round(rng.normal(size=24) + labels, 1)  # ties
    draws, delta = 200, 0.1
    lo, hi = interval("cluster_bootstrap", design="clustered_binormal", scores=scores, labels=labels,
                      clusters=clusters, delta=delta, seed=3, draws=draws)
    u = np.random.default_rng(3).random((draws, 6))
    aucs = []
    for row in u:
        idx = np.concatenate([np.flatnonzero(clusters == int(v * 6)) for v in row])
        x, y = scores[idx][labels[idx] == 1], scores[idx][labels[idx] == 0]
        if x.size and y.size:
            aucs.append(np.mean([(a > b) + 0.5 * (a == b) for a in x for b in y]))
    assert (lo, hi) == pytest.approx(tuple(np.quantile(aucs, [delta / 2, 1 - delta / 2])), abs=1e-12)


def test_the_door_says_what_is_wrong_in_one_line():
    with pytest.raises(ValueError, match="need at least 2 clusters") as e:
        interval("ratio_wald", design="clustered_confusion", tp=[3], fn=[1], fp=[1], tn=[4])
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="one shape"):
        interval("ratio_wald", design="clustered_confusion", tp=[3, 2], fn=[1], fp=[1, 0], tn=[4, 4])
    with pytest.raises(ValueError, match="one shape"):
        interval("obuchowski", design="clustered_binormal", scores=[0.1, 0.2], labels=[0, 1, 1], clusters=[0, 1])


# ---------------------------------------------------------------- coverage: cluster-aware near nominal, i.i.d. not

def test_cluster_aware_methods_cover_near_nominal_where_iid_intervals_do_not():
    pt = dict(clusters=80, cluster_size=10, prevalence=0.3, tpr=0.75, tnr=0.85, icc_prevalence=0.1, icc_tpr=0.3,
              icc_tnr=0.3)
    cov = {m: coverage(m, design="clustered_confusion", metric="f1", reps=300, seed=2, **pt, **kw).coverage
           for m, kw in (("wilson", {}), ("ratio_wald", {}), ("cluster_bootstrap", dict(draws=200)))}
    assert cov["wilson"] < 0.9  # MCSE ≈ 0.013 at 0.95: far below it
    assert cov["ratio_wald"] > 0.92 and cov["cluster_bootstrap"] > 0.92
    auc = dict(clusters=60, cluster_size=10, prevalence=0.3, auc=0.8, icc_prevalence=0.1, icc_score=0.6)
    cov = {m: coverage(m, design="clustered_binormal", reps=300, seed=2, **auc).coverage for m in ("delong", "obuchowski")}
    assert cov["delong"] < 0.9 < cov["obuchowski"]


# ---------------------------------------------------------------- covstudy-evaluate with groups

@pytest.fixture(scope="module")
def grouped():
    rng = np.random.default_rng(5)
    G, s = 40, 8
    pi = rng.beta(3, 7, G)
    lab = rng.random((G, s)) < pi[:, None]
    easy = rng.random(G) < 0.5  # clusters that are easy or hard for the classifier: ICC > 0
    correct = rng.random((G, s)) < np.where(easy, 0.95, 0.55)[:, None]
    pred = np.where(correct, lab, ~lab)
    score = lab * 1.2 + rng.normal(0, 0.8, (G, 1)) + rng.normal(0, 0.6, (G, s))
    return dict(truth=lab.ravel().astype(int), predicted=pred.ravel().astype(int), scores=score.ravel(),
                groups=np.repeat(np.arange(G), s))


@pytest.fixture(scope="module")
def audited(grouped):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ev = covstudy.evaluate(**grouped, metrics=["accuracy", "clustered_f1", "clustered_auc", "clustered_precision"],
                               reps=200, progress=False)
    return ev, [str(x.message) for x in w]


def test_with_groups_the_clustered_rows_exist_lead_and_are_wider(audited, grouped):
    ev, _ = audited
    table = ev.table
    assert list(dict.fromkeys(table.metric)) == ["clustered_precision", "clustered_f1", "clustered_auc", "accuracy"]
    rec = ev.recommended.set_index("metric")
    assert rec.loc["clustered_f1", "method"] in ("ratio_wald", "cluster_bootstrap")
    assert rec.loc["clustered_auc", "method"] in ("obuchowski", "cluster_bootstrap")
    # ICC > 0: the cluster-aware intervals are wider than the i.i.d. ones (wilson on the totals, DeLong)
    for metric, iid in (("clustered_f1", "wilson"), ("clustered_precision", "wilson"), ("clustered_auc", "delong")):
        rows = table[table.metric == metric].set_index("method")
        assert rec.loc[metric, "width"] > rows.loc[iid, "width"]
    t, p = grouped["truth"] == 1, grouped["predicted"] == 1
    f1 = interval("wilson", metric="f1", tp=int(np.sum(t & p)), fn=int(np.sum(t & ~p)), fp=int(np.sum(~t & p)),
                  tn=int(np.sum(~t & ~p)))
    rows = table[table.metric == "clustered_f1"].set_index("method")
    assert (rows.loc["wilson", "lower"], rows.loc["wilson", "upper"]) == pytest.approx(tuple(f1))  # the i.i.d. f1 row's
    assert (rows.audit == "plug-in").all() and (rows.engine == "mc").all()
    assert rows.loc["cluster_bootstrap", "reps"] <= 200 and rows.loc["wilson", "coverage_at_estimate"] < 0.93


def test_with_groups_the_iid_interval_falling_short_is_a_warning(audited):
    _, messages = audited
    assert any(m.startswith("groups: i.i.d. intervals (wilson) of f1 cover") and "use the clustered_f1 rows" in m
               for m in messages)


def test_without_an_audit_the_clustered_rows_keep_a_cluster_aware_recommendation(grouped):
    ev = covstudy.evaluate(**grouped, metrics=["recall", "clustered_recall", "clustered_auc"], audit=False,
                           progress=False)
    rec = ev.recommended.set_index("metric")
    assert list(rec.index[:2]) == ["clustered_recall", "clustered_auc"]
    assert rec.loc["clustered_recall", "method"] == "ratio_wald" and rec.loc["clustered_auc", "method"] == "obuchowski"
    assert "without an audit" in ev.reasons["clustered_recall"]
    assert rec.loc["recall", "note"] == "i.i.d.: ignores the groups; use clustered_recall"


def test_cluster_types_are_every_cluster_with_its_probability():
    """(s + 1)(s + 2)(s + 3)/6 distinct (n_pos, tp, tn) with 0 <= tp <= n_pos <= s, 0 <= tn <= s - n_pos,
    probabilities summing to 1; and a type-drawn test set's type frequencies fit them (chi-square)."""
    from covstudy.designs.clustered_confusion import cluster_types

    s = 6
    types, p = cluster_types(s, 0.35, 0.8, 0.6, 0.1, 0.25, 0.05)
    assert len(types) == (s + 1) * (s + 2) * (s + 3) // 6 == len({tuple(t) for t in types.tolist()})
    assert ((types[:, 1] <= types[:, 0]) & (types[:, 2] <= s - types[:, 0])).all()
    assert p.sum() == pytest.approx(1, abs=1e-14)
    tp, fn, fp, tn = cluster_confusions(2000, s, 0.35, 0.8, 0.6, 0.1, 0.25, 0.05, 50, np.random.default_rng(2))
    key = {tuple(t): i for i, t in enumerate(types.tolist())}
    seen = np.bincount([key[(a + b, a, d)] for a, b, d in zip(tp.ravel().tolist(), fn.ravel().tolist(),
                                                              tn.ravel().tolist())], minlength=len(types))
    expected = p * seen.sum()
    keep = expected >= 5
    o, e = np.append(seen[keep], seen[~keep].sum()), np.append(expected[keep], expected[~keep].sum())
    o, e = (o, e) if e[-1] > 0 else (o[:-1], e[:-1])
    assert stats.chi2.sf(np.sum((o - e) ** 2 / e), len(e) - 1) > 1e-4


def test_obuchowski_variance_in_blocks_equals_all_at_once(monkeypatch):
    """Test sets handled in blocks (memory bounded by _BLOCK_SCORES) give what all at once gives."""
    from covstudy.methods import clustered_auc as ca

    rng = np.random.default_rng(5)
    s = rng.normal(size=(7, 40)).round(1)
    lab = rng.random((7, 40)) < 0.4
    c = rng.integers(0, 9, (7, 40))
    whole = ca.obuchowski_variance(s, lab, c)
    monkeypatch.setattr(ca, "_BLOCK_SCORES", 90)  # 2 test sets a block
    blocks = ca.obuchowski_variance(s, lab, c)
    for a, b in zip(whole, blocks):
        np.testing.assert_allclose(b, a, rtol=1e-13, atol=1e-15)
