"""Issue 28: AUC(first) - AUC(second) on the same cases (methods/auc_difference.py,
designs/paired_binormal.py): pROC's roc.test on aSAH, brute-force placements, the design's truth."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import special, stats

from covstudy import coverage, delong_covariance, interval, unpaired_delong
from covstudy.designs.paired_binormal import paired_binormal_scores
from covstudy.methods import get

# pROC 1.18.0 (R 4.2.2) on aSAH: tests/data/proc_roc_test_reference.R wrote the JSON (calls and
# versions in its "provenance").
REF = json.loads((Path(__file__).parent / "data" / "proc_roc_test_reference.json").read_text())
POOR = np.array(REF["outcome"]) == "Poor"  # pROC's cases (levels Good = control, Poor = case; direction "<")
S100B, WFNS, NDKA = (np.array(REF[c], dtype=float) for c in ("s100b", "wfns", "ndka"))


def split(x):
    return x[POOR], x[~POOR]


@pytest.mark.parametrize("delta, level", [(0.05, "95"), (0.10, "90")])
def test_paired_delong_matches_proc_roc_test(delta, level):
    (p1, n1), (p2, n2) = split(S100B), split(WFNS)
    lower, upper = interval("delong", pos_first=p1, neg_first=n1, pos_second=p2, neg_second=n2, delta=delta)
    assert lower == pytest.approx(float(REF[f"paired_lower{level}"]), abs=1e-13)
    assert upper == pytest.approx(float(REF[f"paired_upper{level}"]), abs=1e-13)


def test_delong_covariance_and_z_match_proc():
    (p1, n1), (p2, n2) = split(S100B), split(WFNS)
    auc, cov = delong_covariance(np.stack([p1, p2]), np.stack([n1, n2]))
    np.testing.assert_allclose(auc, [float(REF["auc_s100b"]), float(REF["auc_wfns"])], rtol=1e-13)
    np.testing.assert_allclose(cov, [[float(REF["var_s100b"]), float(REF["cov_s100b_wfns"])],
                                     [float(REF["cov_s100b_wfns"]), float(REF["var_wfns"])]], rtol=1e-12)
    z = (auc[0] - auc[1]) / math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    assert z == pytest.approx(float(REF["paired_z"]), rel=1e-12)


def test_unpaired_delong_matches_proc_d_and_df():
    out = unpaired_delong(*split(S100B), *split(NDKA))
    assert out["statistic"] == pytest.approx(float(REF["unpaired_d"]), rel=1e-12)
    assert out["df"] == pytest.approx(float(REF["unpaired_df"]), rel=1e-12)
    assert out["p_value"] == pytest.approx(float(REF["unpaired_p"]), rel=1e-10)


def psi_placements(pos, neg):
    """Placements by the double sum of ψ(x, y) = 1[x > y] + ½·1[x = y] (DeLong et al. 1988)."""
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return psi.mean(axis=1), psi.mean(axis=0)


def test_covariance_of_three_models_equals_the_brute_force_double_sum():
    rng = np.random.default_rng(2)
    pos = np.round(rng.normal(1, 1, size=(3, 9)), 1)  # ties within and across classes
    neg = np.round(rng.normal(0, 1, size=(3, 13)), 1)
    v10, v01 = zip(*(psi_placements(p, q) for p, q in zip(pos, neg)))
    v10, v01 = np.array(v10), np.array(v01)
    expected = np.cov(v10) / 9 + np.cov(v01) / 13
    auc, cov = delong_covariance(pos, neg)
    np.testing.assert_allclose(auc, v10.mean(axis=1), rtol=1e-14)
    np.testing.assert_allclose(cov, expected, rtol=1e-12, atol=1e-16)
    contrast = np.array([1.0, -0.5, -0.5])  # e.g. the first against the mean of the others
    assert contrast @ cov @ contrast > 0


def test_logit_delong_is_the_mover_of_the_two_logit_intervals():
    (p1, n1), (p2, n2) = split(S100B), split(WFNS)
    auc, cov = delong_covariance(np.stack([p1, p2]), np.stack([n1, n2]))
    z = stats.norm.ppf(0.975)
    ends = []
    for r in (0, 1):
        a, se = auc[r], math.sqrt(cov[r, r])
        half = z * se / (a * (1 - a))
        ends.append((a, special.expit(special.logit(a) - half), special.expit(special.logit(a) + half)))
    (a1, l1, u1), (a2, l2, u2) = ends
    rho = cov[0, 1] / math.sqrt(cov[0, 0] * cov[1, 1])
    expected = (a1 - a2 - math.sqrt((a1 - l1) ** 2 - 2 * rho * (a1 - l1) * (u2 - a2) + (u2 - a2) ** 2),
                a1 - a2 + math.sqrt((u1 - a1) ** 2 - 2 * rho * (u1 - a1) * (a2 - l2) + (a2 - l2) ** 2))
    assert get("auc_difference_logit_delong").kernel(p1, n1, p2, n2, 0.05) == pytest.approx(expected, abs=1e-13)


def test_paired_bootstrap_resamples_cases_with_both_scores():
    """The same draws (negatives' indices, then positives'), the AUCs by the ψ double sum."""
    (p1, n1), (p2, n2) = split(S100B), split(WFNS)
    draws = 300
    lower, upper = get("auc_difference_bootstrap").kernel(p1, n1, p2, n2, 0.1, rng=np.random.default_rng(4),
                                                          draws=draws)
    rng = np.random.default_rng(4)
    j = rng.integers(0, n1.size, size=(draws, n1.size))
    i = rng.integers(0, p1.size, size=(draws, p1.size))
    d = [psi_placements(p1[a], n1[b])[0].mean() - psi_placements(p2[a], n2[b])[0].mean() for a, b in zip(i, j)]
    assert (lower, upper) == pytest.approx(tuple(np.quantile(d, [0.05, 0.95])), abs=1e-14)


def test_paired_binormal_scores_have_the_stated_auc_difference_and_correlation():
    reps, m, n = 4000, 20, 30
    s = paired_binormal_scores(m, n, 0.8, 0.7, 0.6, reps, seed=3)
    auc, _ = delong_covariance(np.stack([s["pos_first"], s["pos_second"]], axis=1),
                               np.stack([s["neg_first"], s["neg_second"]], axis=1))
    d = auc[:, 0] - auc[:, 1]  # Mann-Whitney AUCs are unbiased for the true ones
    assert abs(d.mean() - 0.1) <= 4 * d.std() / math.sqrt(reps)
    assert abs(auc[:, 0].mean() - 0.8) <= 4 * auc[:, 0].std() / math.sqrt(reps)
    # the scores are stored as pooled ranks (monotone in each model's score): within a class their Spearman
    # correlation is the bivariate normal's, E r_s = 6/(π(k + 1))·[asin ρ + (k - 2)·asin(ρ/2)] (Moran 1948)
    for a, b, k in (("neg_first", "neg_second", n), ("pos_first", "pos_second", m)):
        ra, rb = (np.argsort(np.argsort(s[c], axis=1), axis=1).astype(float) for c in (a, b))
        ra, rb = ra - ra.mean(1, keepdims=True), rb - rb.mean(1, keepdims=True)
        r_s = (ra * rb).sum(1) / np.sqrt((ra**2).sum(1) * (rb**2).sum(1))
        expected = 6 / (math.pi * (k + 1)) * (math.asin(0.6) + (k - 2) * math.asin(0.3))
        assert abs(r_s.mean() - expected) <= 4 * r_s.std() / math.sqrt(reps), (a, r_s.mean(), expected)


def test_delong_coverage_is_near_nominal_at_moderate_size():
    r = coverage("delong", design="paired_binormal", n_pos=60, n_neg=60, auc_first=0.8, auc_second=0.75,
                 correlation=0.5, reps=2000, seed=1)
    assert abs(r.coverage - 0.95) <= 0.02


@pytest.mark.parametrize("call, message", [
    (lambda: interval("delong", pos_first=[1, 2, 3], neg_first=[0, 1], pos_second=[1, 2], neg_second=[0, 1]),
     "pos_first, pos_second: the two classifiers must score the same positives"),
    (lambda: coverage("delong", design="paired_binormal", n_pos=10, n_neg=10, auc_first=0.8, auc_second=0.7,
                      correlation=0.5), "reps: auc_difference_delong takes a test set's scores"),
])
def test_bad_input_is_one_line(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_a_contrast_of_three_models_is_the_paired_comparison_for_one_minus_one():
    from covstudy import delong_contrast

    (p1, n1), (p2, n2), (p3, n3) = split(S100B), split(WFNS), split(NDKA)
    out = delong_contrast(np.stack([p1, p2, p3]), np.stack([n1, n2, n3]), [1, -1, 0])
    assert out["z"] == pytest.approx(float(REF["paired_z"]), rel=1e-12)
    assert out["p_value"] == pytest.approx(float(REF["paired_p"]), rel=1e-10)
    assert (out["lower"], out["upper"]) == pytest.approx((float(REF["paired_lower95"]), float(REF["paired_upper95"])),
                                                         abs=1e-13)
