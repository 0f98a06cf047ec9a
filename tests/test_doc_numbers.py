"""The numbers the docs quote are the committed tables' (issue 57).

Each claim is a sentence of a README or docs page with its numbers left as fields, and where each number
comes from: a committed table, the rows (column == value; a tuple: one of these; None: empty) and the
column, reduced to a value (min, max) or a range (lo–hi). The test fills the fields from the table and
finds the sentence in the page (whitespace as in a wrapped paragraph; " [...] " skips the page's words between
two pieces, found in order): a rerun study whose numbers move,
or a page edited by hand, fails here until both agree. Exact numbers are quoted from ``exact_coverage``
where the study has it; simulated ones say so, with their MCSE, beside them.
"""

from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
JUDGED, CALIBRATION, MULTICLASS = "results/judged/results.parquet", "results/calibration/results.csv", \
    "results/multiclass/results.parquet"

PPI_RARE = dict(method="judged.ppi", sampling="random", p=0.05, specificity=0.95)  # a good judge, a rare class
PPI_PP_RARE = {**PPI_RARE, "method": "judged.ppi_plus_plus"}
MISCALIBRATED = dict(target="ece", scores=None, slope=(0.6, 1.6))  # Beta(2, 5) scores, over- or under-confident
BINORMAL = {**MISCALIBRATED, "scores": "binormal"}
DEBIASED, PLUGIN = dict(method="debiased"), dict(method="plugin")
AUC = "results/auc/results.parquet"  # Monte Carlo, 1000 test sets a point (the README says so, with the MCSE)
COMPARING_METRICS = "results/comparing_metrics/results.parquet"  # Monte Carlo, 1000 test sets a point
LEADERBOARD = "results/leaderboard/results.csv"  # Monte Carlo, 200 test sets a point (the README gives the MCSE)
NEWCOMBE = "results/newcombe1998/results.parquet"  # exact
CROSSVAL = "results/crossval/results.parquet"  # Monte Carlo (the README gives the MCSE)
PEEKING = "results/peeking/results.parquet"  # exact (dynamic programming over looks and successes)
BANDS = "results/roc_bands/bands.parquet"  # Monte Carlo (the README gives the MCSE)
BCD = "results/bcd2001/results.parquet"  # exact, on a 999-point grid of p
COEFFICIENTS = "results/confidence_coefficients/confidence_coefficients.csv"  # exact infima
GROUNDLIGHT = "results/groundlight_balanced/results.parquet"  # Monte Carlo, 10,000 test sets a cell
CLUSTERED = "results/clustered/results.parquet"  # engine both: the i.i.d. rows' exact coverage beside the MC one
EVALS = "results/evals/results.parquet"  # Monte Carlo, 1,000 test sets a cell (the README gives the MCSE)
EVAL_METHODS = ("eval.naive", "eval.question", "eval.clustered", "eval.clustered_t", "eval.wilson_design",
                "eval.clopper_pearson_design")
COMPARING_AUCS = "results/comparing_aucs/results.parquet"  # Monte Carlo, 2000 test sets a point (auc_second 0.8)
DELONG, NEWCOMBE_AUC = dict(method="delong", levels=0), dict(method="newcombe", levels=0)
JUDGED_SHARE, JUDGED_VS_WILSON = JUDGED + "#width over classical's", JUDGED + "#width below wilson's"
MULTICLASS_VS_WALD = MULTICLASS + "#width over wald's"
JUDGED_AGREEMENT = JUDGED + "#|MC − exact| / MCSE"  # the cells with an exact coverage
MULTICLASS_NEAR_NOMINAL = MULTICLASS + "#coverage above 0.85"
BAYES_JOINT_FROM_100 = dict(method="judged.bayes_joint", sampling="random", labelled=(100, 300))
F1_DELTA_BOOT = dict(label=("takahashi", "bootstrap(draws=200)"))
F1_BAYES, F1_BAYES_ONE = dict(label="macro-F1 Bayes (alpha=1/K², the default)"), dict(label="macro-F1 Bayes (alpha=1)")
BETA_BIN, BINORMAL_BIN = dict(target="bin", scores=None), dict(target="bin", scores="binormal")
BETA_CURVE, BETA_TEST = dict(target="curve", scores=None), dict(target="test", scores=None)
UNADJUSTED = ("wilson+none", "clopper_pearson+none", "jeffreys+none")
SMOOTH_MISCALIBRATED = dict(target="smooth_ece", slope=(0.6, 1.6))
VIF = dict(method=("wilson_vif", "scas_vif"), cluster_size=(5, 20))
ROBUST = dict(method=("ratio_wald", "cluster_bootstrap"), cluster_size=(5, 20))
UP_TO_01 = (0, 0.01, 0.05, 0.1)
CLUSTERED_CP_GAIN = CLUSTERED + "#Clopper–Pearson's exact coverage over Wilson's"
NAIVE_CV = dict(metric="err_xy", method=("wald", "wilson", "cv_t"))  # binomial on the pooled errors, t over folds
CROSSVAL_LOGISTIC = "results/crossval_logistic/results.parquet"  # Monte Carlo (the README gives the MCSE)
CROSSVAL_VS_WALD = CROSSVAL + "#width over wald's"
BANDS_POINTWISE = "results/roc_bands/bands_pointwise.parquet"  # Monte Carlo, per FPR (or recall) of the grid
PEEK_WILSON = dict(part="peek", n_max=1000, rule="never", adjust="none", method="wilson")
COMPARING_CLASSIFIERS = "results/comparing_classifiers/results.parquet"  # Monte Carlo, 20,000 test sets a point
COMPARING_CLASSIFIERS_SHORT = COMPARING_CLASSIFIERS + "#short of 0.95 by more than 2 MCSE"
CONSERVATIVENESS = "results/conservativeness/results.parquet"  # exact
EVALS_PAIRED = "results/evals_paired/results.parquet"  # Monte Carlo (its MCSE in the column beside)
BCD_BELOW = BCD + "#below 95%"
MC_VS_EXACT_Z = "results/mc_vs_exact/results.parquet#z against the exact binomial SE"
BINOMIAL_BANDS = dict(method=("wilson", "clopper_pearson", "jeffreys"), curve="roc", levels=0)
POSTERIOR = dict(metric="macro_recall", label="posterior (prior 1/(2K), the default)")
UNIFORM = dict(metric="macro_recall", label="posterior (uniform prior)")


def field(table, where, column, how, digits=3):
    """The text of ``how`` of ``column`` over the rows ``where`` of ``table``: "min", "max", "mean", "median",
    "std", "count", "sum", "from_nominal" (mean |v − 0.95|), "range" (lo–hi) or "span" (the range, one number where both ends round
    alike); "<how> of <statistic> by <columns>" applies ``how`` to the groups' statistics, and a trailing "%"
    quotes the values in percent."""
    rows = table
    for key, value in where.items():
        rows = rows[rows[key].isna()] if value is None else \
            rows[rows[key].isin(value)] if isinstance(value, tuple) else rows[rows[key] == value]
    assert len(rows), f"no rows of {where}"
    v = rows[column]
    if " by " in how:  # "range of mean by method, n": the range of the groups' means
        how, rest = how.split(" of ")
        statistic, by = rest.split(" by ")
        v = rows.groupby(by.split(", "))[column].agg(statistic)
    if how.endswith("%"):  # a share quoted in percent
        v, how = 100 * v, how[:-1]
    fmt = f"{{:.{digits}f}}"
    low, high = fmt.format(v.min()), fmt.format(v.max())
    if how == "from_nominal":  # mean |coverage − 0.95|, as the reports' closeness rank reads it
        return fmt.format((v - 0.95).abs().mean())
    text = {"min": low, "max": high, "mean": fmt.format(v.mean()), "count": str(len(v)), "sum": str(int(v.sum())),
            "std": fmt.format(v.std()),
            "median": fmt.format(v.median()), "range": f"{low}–{high}",
            "span": low if low == high else f"{low}–{high}"}[how]
    return text.replace("-", "−")  # the pages print a minus sign


# (page, sentence with {} fields, [(table, rows, column, how[, digits]) per field])
CLAIMS = [
    ("experiments/judged/README.md",
     "PPI covers {} at n = 10 and {} at n = 30 (exact, over N and the judge's sensitivity); "
     "PPI++ is worse ({} at n = 10, exact)",
     [(JUDGED, {**PPI_RARE, "labelled": 10}, "exact_coverage", "range"),
      (JUDGED, {**PPI_RARE, "labelled": 30}, "exact_coverage", "range"),
      (JUDGED, {**PPI_PP_RARE, "labelled": 10}, "exact_coverage", "range")]),
    ("docs/judged.md", "covers {} at n = 10 and {} at n = 30; PPI++ {} at n = 10 (exact",
     [(JUDGED, {**PPI_RARE, "labelled": 10}, "exact_coverage", "range"),
      (JUDGED, {**PPI_RARE, "labelled": 30}, "exact_coverage", "range"),
      (JUDGED, {**PPI_PP_RARE, "labelled": 10}, "exact_coverage", "range")]),
    ("docs/guide/judged.md", "leaves PPI at {} and PPI++ at {} (exact)",
     [(JUDGED, {**PPI_RARE, "labelled": 10}, "exact_coverage", "range"),
      (JUDGED, {**PPI_PP_RARE, "labelled": 10}, "exact_coverage", "range")]),
    ("docs/gallery.md", "specificity 0.95: PPI {} and PPI++ {})",
     [(JUDGED, {**PPI_RARE, "labelled": 10}, "exact_coverage", "range"),
      (JUDGED, {**PPI_PP_RARE, "labelled": 10}, "exact_coverage", "range")]),
    ("experiments/calibration/README.md",
     "the plug-in's covers {} at n = 100 with 10 bins (equal-mass bins the lower end) and {} with 20 bins, "
     "and {} and {} at n = 1,000",
     [(CALIBRATION, {**MISCALIBRATED, **PLUGIN, "n": 100, "bins": 10}, "coverage", "range"),
      (CALIBRATION, {**MISCALIBRATED, **PLUGIN, "n": 100, "bins": 20}, "coverage", "range"),
      (CALIBRATION, {**MISCALIBRATED, **PLUGIN, "n": 1000, "bins": 10}, "coverage", "range"),
      (CALIBRATION, {**MISCALIBRATED, **PLUGIN, "n": 1000, "bins": 20}, "coverage", "range")]),
    ("experiments/calibration/README.md",
     "covers the true binned ECE {} with 5 or 10 bins at every n (20 bins: {} at n = 100, {} from n = 300)",
     [(CALIBRATION, {**MISCALIBRATED, **DEBIASED, "bins": (5, 10)}, "coverage", "range"),
      (CALIBRATION, {**MISCALIBRATED, **DEBIASED, "bins": 20, "n": 100}, "coverage", "range"),
      (CALIBRATION, {**MISCALIBRATED, **DEBIASED, "bins": 20, "n": (300, 1000)}, "coverage", "range")]),
    ("experiments/calibration/README.md",
     "the debiased ECE covers {} with 5 or 10 bins when the classifier is miscalibrated (20 bins: {}), the plug-in {}.",
     [(CALIBRATION, {**BINORMAL, **DEBIASED, "bins": (5, 10)}, "coverage", "range"),
      (CALIBRATION, {**BINORMAL, **DEBIASED, "bins": 20}, "coverage", "range"),
      (CALIBRATION, {**BINORMAL, **PLUGIN}, "coverage", "range")]),
    ("experiments/calibration/README.md", "the table reads plug-in {} ± {} and debiased {} ± {}",
     [(CALIBRATION, {**MISCALIBRATED, **PLUGIN, "n": 100, "bins": 10, "binning": "equal_width", "slope": 0.6},
       "coverage", "min"),
      (CALIBRATION, {**MISCALIBRATED, **PLUGIN, "n": 100, "bins": 10, "binning": "equal_width", "slope": 0.6},
       "mcse", "min"),
      (CALIBRATION, {**MISCALIBRATED, **DEBIASED, "n": 100, "bins": 10, "binning": "equal_width", "slope": 0.6},
       "coverage", "min"),
      (CALIBRATION, {**MISCALIBRATED, **DEBIASED, "n": 100, "bins": 10, "binning": "equal_width", "slope": 0.6},
       "mcse", "min")]),
    ("docs/guide/calibration.md",
     "| {} when the classifier is miscalibrated (simulated, MCSE ≤ {}; the plug-in's bootstrap: {}) |",
     [(CALIBRATION, {**MISCALIBRATED, **DEBIASED, "bins": (5, 10)}, "coverage", "range"),
      (CALIBRATION, {**MISCALIBRATED, **DEBIASED, "bins": (5, 10)}, "mcse", "max"),
      (CALIBRATION, {**MISCALIBRATED, **PLUGIN, "bins": (5, 10)}, "coverage", "range")]),
    ("docs/gallery.md", "its bootstrap interval covers {} with 5 or 10 bins (simulated, MCSE ≤ {}); "
     "the debiased ECE's covers {} with 5 or 10 bins",
     [(CALIBRATION, {**MISCALIBRATED, **PLUGIN, "bins": (5, 10)}, "coverage", "range"),
      (CALIBRATION, {**MISCALIBRATED, **PLUGIN, "bins": (5, 10)}, "mcse", "max"),
      (CALIBRATION, {**MISCALIBRATED, **DEBIASED, "bins": (5, 10)}, "coverage", "range")]),
    ("experiments/auc/README.md",
     "at AUC = 0.9 coverage is {} (n = 10 per class) and {} (25); at AUC = 0.95, {} and {}; at AUC = 0.99 it is {} "
     "at n = 10",
     [(AUC, {**DELONG, "auc": 0.9, "n_pos": 10}, "coverage", "min", 2),
      (AUC, {**DELONG, "auc": 0.9, "n_pos": 25}, "coverage", "min", 2),
      (AUC, {**DELONG, "auc": 0.95, "n_pos": 10}, "coverage", "min", 2),
      (AUC, {**DELONG, "auc": 0.95, "n_pos": 25}, "coverage", "min", 2),
      (AUC, {**DELONG, "auc": 0.99, "n_pos": 10}, "coverage", "min", 2)]),
    ("experiments/auc/README.md", "is the only interval at or near nominal on the whole grid (minimum {})",
     [(AUC, {"method": "newcombe"}, "coverage", "min")]),
    ("experiments/auc/README.md", "(at AUC = 0.95: {} against DeLong's {} at n = 10, {} against {} at n = 50)",
     [(AUC, {**NEWCOMBE_AUC, "auc": 0.95, "n_pos": 10}, "mean_width", "min", 2),
      (AUC, {**DELONG, "auc": 0.95, "n_pos": 10}, "mean_width", "min", 2),
      (AUC, {**NEWCOMBE_AUC, "auc": 0.95, "n_pos": 50}, "mean_width", "min"),
      (AUC, {**DELONG, "auc": 0.95, "n_pos": 50}, "mean_width", "min")]),
    *[("experiments/comparing_metrics/README.md", f"| `{m}` | {{}} / {{}} | {{}} / {{}} | {{}} / {{}} |",
       [(COMPARING_METRICS, {"method": m, "n": n}, "coverage", how) for n in (50, 200, 1000) for how in ("mean", "min")])
      for m in ("mover", "delta", "bootstrap", "dirichlet")],
    *[("experiments/comparing_aucs/README.md",
       f"| `{m}` | {{}} / {{}} | {{}} / {{}} | {{}} / {{}} | {{}} ({{}}) | {{}} / {{}} / {{}} |",
       [*[(COMPARING_AUCS, {"method": m, "n": n}, "coverage", how) for n in (50, 200, 1000) for how in ("mean", "min")],
        (COMPARING_AUCS, {"method": m, "auc_first": 0.8}, "excludes_zero", "mean"),
        (COMPARING_AUCS, {"method": m, "auc_first": 0.8}, "excludes_zero", "max"),
        *[(COMPARING_AUCS, {"method": m, "auc_first": 0.85, "n": n}, "excludes_zero", "mean") for n in (50, 200, 1000)]])
      for m in ("delong", "logit_delong")],
    *[("experiments/evals/README.md", f"| {row} | {{}} | {{}} | {{}} | {{}} | {{}} | {{}} |",
       [(EVALS, {**where, "method": m}, "coverage", "span", 2) for m in EVAL_METHODS]) for row, where in (
        ("no groups (icc_group = 0), p = 0.5, K = 1", dict(icc_group=0, p=0.5, answers=1)),
        ("no groups, p = 0.5, K = 10", dict(icc_group=0, p=0.5, answers=10)),
        ("icc_group = 0.1, 10 groups, p = 0.5", dict(icc_group=0.1, groups=10, p=0.5)),
        ("icc_group = 0.1, 100 groups, p = 0.5", dict(icc_group=0.1, groups=100, p=0.5)),
        ("p = 0.99, 100 questions, K = 1, no groups", dict(p=0.99, questions=100, answers=1, icc_group=0)))],
    ("experiments/evals/README.md", "it is the one interval near 95% across the grid (median {}, {})",
     [(EVALS, {"method": "eval.wilson_design"}, "coverage", "median", 2),
      (EVALS, {"method": "eval.wilson_design"}, "coverage", "range", 2)]),
    ("experiments/evals/README.md", "At p = 0.99 with 10 groups (icc_group = 0.1) no interval reaches 0.8 once "
     "m ≥ 1,000 (at most {})",
     [(EVALS, {"p": 0.99, "groups": 10, "icc_group": 0.1, "questions": (1000, 10000)}, "coverage", "max", 2)]),
    ("docs/guide/evals.md", "with grouped questions (icc_group = 0.1) it covers a median {} and {} at 10,000 "
     "questions, and even without groups it falls to {} at K = 10",
     [(EVALS, {"method": "eval.naive", "icc_group": 0.1}, "coverage", "median", 2),
      (EVALS, {"method": "eval.naive", "icc_group": 0.1, "questions": 10000}, "coverage", "range", 2),
      (EVALS, {"method": "eval.naive", "icc_group": 0, "answers": 10}, "coverage", "range", 2)]),
    ("docs/guide/evals.md", "fixes K ({} without groups at p = 0.5) but not the groups (median {} with them). "
     "Miller's clustered SE covers {} at p = 0.5, a little short with 10 groups ({})",
     [(EVALS, {"method": "eval.question", "icc_group": 0, "p": 0.5}, "coverage", "range", 2),
      (EVALS, {"method": "eval.question", "icc_group": 0.1}, "coverage", "median", 2),
      (EVALS, {"method": "eval.clustered", "p": 0.5}, "coverage", "range", 2),
      (EVALS, {"method": "eval.clustered", "p": 0.5, "groups": 10, "icc_group": 0.1}, "coverage", "range", 2)]),
    ("docs/guide/evals.md", "median {} over the grid, {} at p = 0.5",
     [(EVALS, {"method": "eval.wilson_design"}, "coverage", "median", 2),
      (EVALS, {"method": "eval.wilson_design", "p": 0.5}, "coverage", "range", 2)]),
    ("docs/guide/evals.md", "with only 10 groups (icc_group = 0.1) and 1,000 questions or more (at most {})",
     [(EVALS, {"p": 0.99, "groups": 10, "icc_group": 0.1, "questions": (1000, 10000)}, "coverage", "max", 2)]),
    *[("experiments/leaderboard/README.md", f"| {row} | {{}} | {{}} | {{}} | {{}} |",
       [(LEADERBOARD, {"method": m, "spread": 0, "k": k}, "false_claim", "range") for k in (3, 5, 10, 20)])
      for row, m in (("per-pair Wald", "wald"), ("per-pair Newcombe", "newcombe"), ("Bonferroni", "bonferroni"),
                     ("Holm", "holm"), ("max-t", "max_t"), ("bootstrap max-t", "bootstrap_max_t"),
                     ("Benjamini–Hochberg", "bh"))],
    ("experiments/leaderboard/README.md", "(max-t family coverage {} at rho 0.3, {} at 0.7)",
     [(LEADERBOARD, {"method": "max_t", "rho": 0.3}, "family_coverage", "mean"),
      (LEADERBOARD, {"method": "max_t", "rho": 0.7}, "family_coverage", "mean")]),
    ("experiments/leaderboard/README.md", "the mean rank set spans {} of 20 ranks at spread 0.05 and {} at spread 0.2 "
     "({} at n = 1,000, {} at n = 200)",
     [(LEADERBOARD, {"method": "max_t", "k": 20, "n": 5000, "spread": 0.05}, "rank_size", "mean", 1),
      (LEADERBOARD, {"method": "max_t", "k": 20, "n": 5000, "spread": 0.2}, "rank_size", "mean", 1),
      (LEADERBOARD, {"method": "max_t", "k": 20, "n": 1000, "spread": 0.2}, "rank_size", "mean", 1),
      (LEADERBOARD, {"method": "max_t", "k": 20, "n": 200, "spread": 0.2}, "rank_size", "mean", 1)]),
    ("experiments/leaderboard/README.md", "per-pair {}, {}, {}, {} at k = 3, 5, 10, 20;",
     [(LEADERBOARD, {"method": "wald", "k": k}, "family_coverage", "mean", 2) for k in (3, 5, 10, 20)]),
    *[(page, "mean |coverage − 0.95| {}, lowest {}", [(COMPARING_METRICS, {"method": "mover"}, "coverage", "from_nominal", 4),
                                                       (COMPARING_METRICS, {"method": "mover"}, "coverage", "min")])
      for page in ("docs/gallery.md", "docs/guide/comparing-metrics.md")],
    *[(page, "mean |coverage − 0.95| {}, lowest {}", [(COMPARING_AUCS, {"method": "delong"}, "coverage", "from_nominal", 4),
                                                       (COMPARING_AUCS, {"method": "delong"}, "coverage", "min")])
      for page in ("docs/gallery.md", "docs/guide/comparing-metrics.md")],
    ("docs/gallery.md", "median {} over the grid; the naive CLT bar covers a median {} with grouped questions",
     [(EVALS, {"method": "eval.wilson_design"}, "coverage", "median", 2),
      (EVALS, {"method": "eval.naive", "icc_group": 0.1}, "coverage", "median", 2)]),
    ("docs/gallery.md", "the delta method and the bootstrap fall to {} and {} at n = 50",
     [(COMPARING_METRICS, {"method": "delta", "n": 50}, "coverage", "min", 2),
      (COMPARING_METRICS, {"method": "bootstrap", "n": 50}, "coverage", "min", 2)]),
    *[("experiments/clustered/README.md", f"| {m} × {size} ({m * size}) | {{}} | {{}} | {{}} | {{}} | {{}} | {{}} |",
       [(CLUSTERED, {"method": "wilson", "clusters": m, "cluster_size": size, "icc": icc}, "exact_coverage", "range")
        for icc in (0, 0.01, 0.05, 0.1, 0.2, 0.5)]) for m, size in ((10, 5), (40, 5), (10, 20), (40, 20))],
    *[("experiments/clustered/README.md", f"| {label} | {ms} | {{}} | {{}} | {{}} |",
       [(CLUSTERED, {"method": methods, "clusters": clusters, "cluster_size": (5, 20), "icc": icc}, "coverage", "range")
        for icc in ((0, 0.01, 0.05, 0.1), 0.2, 0.5)])
      for label, methods, ms, clusters in (
          ("`wilson_vif`, `scas_vif`", ("wilson_vif", "scas_vif"), "10", 10),
          ("`wilson_vif`, `scas_vif`", ("wilson_vif", "scas_vif"), "40", 40),
          ("`ratio_wald`, `cluster_bootstrap`", ("ratio_wald", "cluster_bootstrap"), "10", 10),
          ("`ratio_wald`, `cluster_bootstrap`", ("ratio_wald", "cluster_bootstrap"), "40", 40),
          ("`wilson_deff` (oracle)", "wilson_deff", "10, 40", (10, 40)))],
    ("experiments/newcombe1998/README.md",
     "The Wald interval (method 1) averages {} and falls to {}; [...] Mee {} (lowest {}), Miettinen–Nurminen {} ({}), "
     "SCAS {} ({}), Newcombe's hybrid score (method 10) {} ({}). [...] method 11 averages {} and never goes below {},"
     " [...] (lowest {}); Jeffreys–Perks fixes it ({})",
     [*[(NEWCOMBE, {"method": m}, "coverage", how) for m in ("wald", "mee", "miettinen_nurminen", "scas", "newcombe")
        for how in ("mean", "min")],
      (NEWCOMBE, {"method": "newcombe_cc"}, "coverage", "mean"), (NEWCOMBE, {"method": "newcombe_cc"}, "coverage", "min", 4),
      (NEWCOMBE, {"method": "haldane"}, "coverage", "min"), (NEWCOMBE, {"method": "jeffreys_perks"}, "coverage", "min")]),
    ("experiments/groundlight_balanced/README.md",
     "mean width (stratified design) {} for `cp_union` against {}–{} for the posterior intervals (simulated, 10,000 "
     "test sets a cell: coverage MCSE ≤ {}). [...] (coverage down "
     "to {} in the stratified design, {} in the iid design). The Brodersen posterior with a flat prior covers {} on "
     "average but dips to {}; with the Jeffreys prior it stays close to nominal (mean {},",
     [(GROUNDLIGHT, {"method": "cp_union", "design": "stratified"}, "mean_width", "mean"),
      (GROUNDLIGHT, {"method": "posterior_jeffreys", "design": "stratified"}, "mean_width", "mean"),
      (GROUNDLIGHT, {"method": "posterior", "design": "stratified"}, "mean_width", "mean"),
      (GROUNDLIGHT, {}, "mcse", "max"),
      (GROUNDLIGHT, {"method": "wald", "design": "stratified"}, "coverage", "min", 0),
      (GROUNDLIGHT, {"method": "wald", "design": "iid"}, "coverage", "min", 2),
      (GROUNDLIGHT, {"method": "posterior"}, "coverage", "mean", 2),
      (GROUNDLIGHT, {"method": "posterior"}, "coverage", "min", 2),
      (GROUNDLIGHT, {"method": "posterior_jeffreys"}, "coverage", "mean")]),
    *[("experiments/confidence_coefficients/README.md", f"| {m} |" + " {} |" * 7,
       [(COEFFICIENTS, {"method": m, "delta": 0.05, "n": n}, "confidence_coefficient", "min", 4)
        for n in (10, 20, 50, 100, 200, 500, 1000)])
      for m in ("wald", "wilson", "clopper_pearson", "jeffreys", "agresti_coull", "wald_cc", "wilson_cc",
                "jeffreys_equal_tailed", "bayes_flat", "arcsine", "logit", "mid_p", "blaker", "lrt")],
    ("experiments/bcd2001/README.md",
     "At n = 50 the Wald interval's coverage averages {} over p and falls to {} at p = 0.001; [...] Wilson averages "
     "{} and Jeffreys {}, Agresti–Coull {} (never below {}), Clopper–Pearson {} and never below 0.95. [...] (as p rises "
     "to 0.0035393; grid {}), Jeffreys 0.8838 (as p falls to 0.0487585; grid {}), Clopper–Pearson 0.9508 (as p rises "
     "to 0.0717008; grid {})",
     [(BCD, {"method": "wald"}, "coverage", "mean", 4), (BCD, {"method": "wald", "p": 0.001}, "coverage", "min"),
      (BCD, {"method": "wilson"}, "coverage", "mean", 4), (BCD, {"method": "jeffreys"}, "coverage", "mean", 4),
      (BCD, {"method": "agresti_coull"}, "coverage", "mean", 4), (BCD, {"method": "agresti_coull"}, "coverage", "min", 4),
      (BCD, {"method": "clopper_pearson"}, "coverage", "mean", 4),
      *[(BCD, {"method": m}, "coverage", "min", 4) for m in ("wilson", "jeffreys", "clopper_pearson")]]),
    ("experiments/roc_bands/README.md",
     "conservative pointwise (≥ {} at every FPR) and holds the whole curve {} of the time ({} with ratings) [...] "
     "**Working–Hotelling** holds the whole curve {} of the time on continuous binormal scores, with the smallest "
     "simultaneous area ({}, {}, {} at n = 20, 100, 500",
     [(BANDS, {"method": "credible", "curve": "roc"}, "min_pointwise", "min"),
      (BANDS, {"method": "credible", "curve": "roc", "levels": 0}, "containment", "range"),
      (BANDS, {"method": "credible", "curve": "roc", "levels": 5}, "containment", "range"),
      (BANDS, {"method": "working_hotelling", "curve": "roc", "levels": 0}, "containment", "range"),
      *[(BANDS, {"method": "working_hotelling", "curve": "roc", "levels": 0, "n_pos": n}, "mean_area", "mean", 2)
        for n in (20, 100, 500)]]),
    *[("experiments/peeking/README.md", f"| {label} |" + " {} |" * 5,
       [(PEEKING, {"part": "peek", "n_max": 1000, "rule": "never", "adjust": "none", "method": m, "looks": k},
         "simultaneous", "mean") for k in (1, 2, 5, 20, 100)])
      for label, m in (("Wilson", "wilson"), ("Clopper–Pearson", "clopper_pearson"), ("Jeffreys", "jeffreys"))],
    *[("experiments/crossval/README.md", f"| `{m}`{label} | {{}} ({{}}) | {{}} ({{}}) |",
       [(CROSSVAL, {"metric": "err_xy", "method": m, "n": n}, "coverage", how) for n in ((50, 100), (200, 500, 1000))
        for how in ("mean", "min")])
      for m, label in (("wald", " (Bates et al.'s naive)"), ("wilson", ""), ("clopper_pearson", ""),
                       ("cv_t", " (t over folds)"), ("nadeau_bengio", ""), ("nested", ""), ("credible", ""),
                       ("holdout_wilson", ""), ("holdout_cp", ""))],
    ("experiments/multiclass/README.md",
     "covers {} for K ≤ 5 and {} (n = 50) and {} (n = 250) at K = 10",
     [(MULTICLASS, {**POSTERIOR, "K": (2, 3, 5)}, "coverage", "range", 2),
      (MULTICLASS, {**POSTERIOR, "K": 10, "n": 50}, "coverage", "min", 2),
      (MULTICLASS, {**POSTERIOR, "K": 10, "n": 250}, "coverage", "min", 2)]),
    ("experiments/multiclass/README.md", "grows with small classes: {} at K = 10, n = 50 and {} at K = 10, n = 250",
     [(MULTICLASS, {**UNIFORM, "K": 10, "n": 50}, "coverage", "min", 2),
      (MULTICLASS, {**UNIFORM, "K": 10, "n": 250}, "coverage", "min", 2)]),
    # experiments/judged: the coverage table (random sampling; simulated, its MCSE in the caption), the width table
    *[("experiments/judged/README.md", f"| {row} |" + " {} ({}) |" * 4,
       [(JUDGED, {"method": m, "sampling": "random", "labelled": n}, "coverage", how, 2)
        for n in (10, 30, 100, 300) for how in ("range", "median")])
      for row, m in (("classical (Wald)", "judged.classical"), ("Wilson", "wilson"),
                     ("naive (judge only)", "judged.naive"), ("Rogan–Gladen", "judged.rogan_gladen"),
                     ("Rogan–Gladen Bayes", "judged.rogan_gladen_bayes"), ("PPI", "judged.ppi"),
                     ("PPI++", "judged.ppi_plus_plus"), ("stratified PPI", "judged.stratified_ppi"))],
    ("experiments/judged/README.md", "| **Bayesian joint** |" + " **{} ({})** |" * 4,
     [(JUDGED, {"method": "judged.bayes_joint", "sampling": "random", "labelled": n}, "coverage", how, 2)
      for n in (10, 30, 100, 300) for how in ("range", "median")]),
    *[("experiments/judged/README.md", f"| {row} |" + " {} |" * 4,
       [(JUDGED_SHARE, {"method": m, "sampling": "random", "labelled": (100, 300), "sensitivity": se,
                        "specificity": sp}, "share", "span of median by method", 2)
        for se, sp in ((0.8, 0.8), (0.8, 0.95), (0.95, 0.8), (0.95, 0.95))])
      for row, m in (("PPI", "judged.ppi"), ("PPI++, stratified PPI", ("judged.ppi_plus_plus", "judged.stratified_ppi")),
                     ("Bayesian joint", "judged.bayes_joint"), ("Rogan–Gladen", "judged.rogan_gladen"))],
    ("experiments/judged/README.md", "classical, Wilson, PPI and Rogan–Gladen fall to a median {}, {}, {} and {} at "
     "n = 300 ({} at worst). [...] the Bayesian joint model ({} at n = 10, {} from n = 100) and stratified PPI ({} at "
     "n = 10, {} at n = 300)",
     [*[(JUDGED, {"method": m, "sampling": "stratified", "labelled": 300}, "coverage", "median", 2)
        for m in ("judged.classical", "wilson", "judged.ppi", "judged.rogan_gladen")],
      (JUDGED, {"method": ("judged.classical", "wilson", "judged.ppi", "judged.rogan_gladen"), "sampling": "stratified",
                "labelled": 300}, "coverage", "min", 2),
      (JUDGED, {"method": "judged.bayes_joint", "sampling": "stratified", "labelled": 10}, "coverage", "range", 2),
      (JUDGED, {"method": "judged.bayes_joint", "sampling": "stratified", "labelled": (100, 300)}, "coverage", "range", 2),
      (JUDGED, {"method": "judged.stratified_ppi", "sampling": "stratified", "labelled": 10}, "coverage", "range", 2),
      (JUDGED, {"method": "judged.stratified_ppi", "sampling": "stratified", "labelled": 300}, "coverage", "range", 2)]),
    ("experiments/judged/README.md", "interval near 95% in every cell of the grid ({} at worst, at n = 10 and p = 0.05; "
     "{} from n = 30), [...] {}% (a judge at 0.8/0.8) to {}% (at 0.95/0.95) narrower than the classical interval, "
     "worth {} to {} times the human labels. PPI++ and stratified PPI give the same widths and cover from n = 100 ({}) "
     "to 300 ({}), under random sampling. [...] wider than the classical interval ({}): use PPI++ over PPI. [...] "
     "({} times the classical width at 0.8/0.8). At n = 10 Wilson on the human labels covers ({}) [...] as safe there "
     "and {}% narrower than Wilson",
     [(JUDGED, {"method": "judged.bayes_joint", "labelled": 10, "p": 0.05}, "coverage", "min", 2),
      (JUDGED, {"method": "judged.bayes_joint", "labelled": (30, 100, 300)}, "coverage", "range", 2),
      *[(JUDGED_SHARE, {**BAYES_JOINT_FROM_100, "sensitivity": q, "specificity": q}, "narrower", "median%", 0)
        for q in (0.8, 0.95)],
      (JUDGED_SHARE, BAYES_JOINT_FROM_100, "worth", "min of median by sensitivity, specificity", 1),
      (JUDGED_SHARE, BAYES_JOINT_FROM_100, "worth", "max of median by sensitivity, specificity", 1),
      *[(JUDGED, {"method": ("judged.ppi_plus_plus", "judged.stratified_ppi"), "sampling": "random", "labelled": n},
         "coverage", "range", 2) for n in (100, 300)],
      (JUDGED_SHARE, {**BAYES_JOINT_FROM_100, "method": "judged.ppi", "sensitivity": 0.8, "specificity": 0.8},
       "share", "median", 2),
      (JUDGED_SHARE, {**BAYES_JOINT_FROM_100, "method": "judged.rogan_gladen", "sensitivity": 0.8, "specificity": 0.8},
       "share", "median", 1),
      (JUDGED, {"method": "wilson", "sampling": "random", "labelled": 10}, "coverage", "range", 2),
      (JUDGED_VS_WILSON, {"method": "judged.bayes_joint", "sampling": "random", "labelled": 10}, "narrower",
       "range%", 0)]),
    ("experiments/judged/README.md", "Monte Carlo and exact agree within {} MCSE in the {} of the {} cells with both "
     "whose MCSE is not 0; in the other {} every test set covered or none did, and the exact coverage is within {} of it.",
     [(JUDGED_AGREEMENT, {}, "z", "max", 1), (JUDGED_AGREEMENT, {"degenerate": 0}, "degenerate", "count"),
      (JUDGED_AGREEMENT, {}, "degenerate", "count"), (JUDGED_AGREEMENT, {}, "degenerate", "sum"),
      (JUDGED_AGREEMENT, {"degenerate": 1}, "gap", "max", 5)]),
    ("docs/judged.md", "It covers {} in every cell, under random and stratified sampling, and from n = 100 it is "
     "{}% (a judge at 0.8/0.8) to {}% (0.95/0.95) narrower than the classical interval: worth {} to {} times the human "
     "labels. At n = 10 it is as safe as Wilson on the human labels and {}% narrower. [...] covering {} at n = 100 and "
     "{} at n = 300. [...] (1.13 times at 0.8/0.8). [...] it is {} times as wide as the classical interval. Its "
     "Bayesian version is conservative at small n ({} at n = 10)",
     [(JUDGED, {"method": "judged.bayes_joint"}, "coverage", "range", 2),
      *[(JUDGED_SHARE, {**BAYES_JOINT_FROM_100, "sensitivity": q, "specificity": q}, "narrower", "median%", 0)
        for q in (0.8, 0.95)],
      (JUDGED_SHARE, BAYES_JOINT_FROM_100, "worth", "min of median by sensitivity, specificity", 1),
      (JUDGED_SHARE, BAYES_JOINT_FROM_100, "worth", "max of median by sensitivity, specificity", 1),
      (JUDGED_VS_WILSON, {"method": "judged.bayes_joint", "sampling": "random", "labelled": 10}, "narrower",
       "range%", 0),
      *[(JUDGED, {"method": ("judged.ppi_plus_plus", "judged.stratified_ppi"), "sampling": "random", "labelled": n},
         "coverage", "range", 2) for n in (100, 300)],
      (JUDGED_SHARE, {**BAYES_JOINT_FROM_100, "method": "judged.rogan_gladen", "sensitivity": 0.8, "specificity": 0.8},
       "share", "median", 1),
      (JUDGED, {"method": "judged.rogan_gladen_bayes", "sampling": "random", "labelled": 10}, "coverage", "range", 2)]),
    *[(page, "covers {} in every cell, under random and stratified sampling, and from n = 100 it is {}–{}% narrower",
       [(JUDGED, {"method": "judged.bayes_joint"}, "coverage", "range", 2),
        *[(JUDGED_SHARE, {**BAYES_JOINT_FROM_100, "sensitivity": q, "specificity": q}, "narrower", "median%", 0)
          for q in (0.8, 0.95)]]) for page in ("docs/guide/judged.md",)],
    ("docs/gallery.md", "The Bayesian joint model covers {} in every cell and is {}–{}% narrower than the",
     [(JUDGED, {"method": "judged.bayes_joint"}, "coverage", "range", 2),
      *[(JUDGED_SHARE, {**BAYES_JOINT_FROM_100, "sensitivity": q, "specificity": q}, "narrower", "median%", 0)
        for q in (0.8, 0.95)]]),
    # the clustered study in the guides (Wilson exact; the cluster-aware intervals simulated, s = 5 and 20)
    ("docs/guide/clustered.md", "The nominal 95% Wilson interval covers (exactly) {} at icc = 0.01 with clusters of 20 "
     "examples, {} at icc = 0.05, {} at icc = 0.1 and {} at icc = 0.5; with clusters of 5 it covers {} at icc = 0.1 and "
     "{} at icc = 0.5; Clopper–Pearson gains at most {}. [...] with 40 clusters it covers {} up to icc = 0.1 and at least "
     "{} at icc = 0.5, with 10 clusters {} up to icc = 0.1. [...] (0.911–0.947 with 40, {} with 10, up to icc = 0.1; "
     "these four intervals' coverages are simulated, MCSE ≤ {}). [...] (10 clusters of 20 at icc = 0.5: {})",
     [*[(CLUSTERED, {"method": "wilson", "cluster_size": 20, "icc": icc}, "exact_coverage", "range", 2)
        for icc in (0.01, 0.05, 0.1, 0.5)],
      *[(CLUSTERED, {"method": "wilson", "cluster_size": 5, "icc": icc}, "exact_coverage", "range", 2) for icc in (0.1, 0.5)],
      (CLUSTERED_CP_GAIN, {"cluster_size": (5, 20)}, "gain", "max", 2),
      (CLUSTERED, {**VIF, "clusters": 40, "icc": UP_TO_01}, "coverage", "range", 2),
      (CLUSTERED, {**VIF, "clusters": 40, "icc": 0.5}, "coverage", "min", 2),
      (CLUSTERED, {**VIF, "clusters": 10, "icc": UP_TO_01}, "coverage", "range", 2),
      (CLUSTERED, {**ROBUST, "clusters": 10, "icc": UP_TO_01}, "coverage", "range", 2),
      (CLUSTERED, {"method": (*VIF["method"], *ROBUST["method"]), "cluster_size": (5, 20)}, "mcse", "max"),
      (CLUSTERED, {"method": (*VIF["method"], *ROBUST["method"]), "clusters": 10, "cluster_size": 20, "icc": 0.5},
       "coverage", "range", 2)]),
    ("docs/clustered.md", "cover about 2Φ(1.96/√deff) − 1 ({} at s = 20, icc = 0.05); `wilson_vif` / `scas_vif` hold "
     "{} up to icc = 0.1 with 40 clusters ({} with 10; simulated, MCSE ≤ {});",
     [(CLUSTERED, {"method": "wilson", "cluster_size": 20, "icc": 0.05}, "exact_coverage", "min", 2),
      (CLUSTERED, {**VIF, "clusters": 40, "icc": UP_TO_01}, "coverage", "range", 2),
      (CLUSTERED, {**VIF, "clusters": 10, "icc": UP_TO_01}, "coverage", "range", 2),
      (CLUSTERED, {"method": (*VIF["method"], *ROBUST["method"]), "cluster_size": (5, 20)}, "mcse", "max")]),
    ("docs/gallery.md", "Wilson covers {} at icc = 0.05 and {} at icc = 0.5 with clusters of 20; `wilson_vif` with 40 "
     "clusters covers {} up to icc = 0.1 (simulated, MCSE ≤ {}).",
     [*[(CLUSTERED, {"method": "wilson", "cluster_size": 20, "icc": icc}, "exact_coverage", "range", 2) for icc in (0.05, 0.5)],
      (CLUSTERED, {"method": "wilson_vif", "cluster_size": (5, 20), "clusters": 40, "icc": UP_TO_01}, "coverage", "range", 2),
      (CLUSTERED, {"method": (*VIF["method"], *ROBUST["method"]), "cluster_size": (5, 20)}, "mcse", "max")]),
    ("docs/guide/crossval.md", "t over folds) cover Err_XY {} on average at n ≤ 100 (down to {}) and {} at n ≥ 200 "
     "(simulated, 1,000 data sets a point: MCSE 0.017 a cell at 0.9). Report **nested CV** with few data ({} on average "
     "at n = 50 and 100, lowest cell {}, at {}× the naive width), or **Nadeau–Bengio** from n ≈ 200 ({}); [...] "
     "**Clopper–Pearson** on it (≥ {} everywhere; about {} times the width, [...] the answer is the same (naive {}, "
     "Nadeau–Bengio {}, nested {});",
     [(CROSSVAL, {**NAIVE_CV, "n": (50, 100)}, "coverage", "span of mean by method", 2),
      (CROSSVAL, {**NAIVE_CV, "n": (50, 100)}, "coverage", "min", 2),
      (CROSSVAL, {**NAIVE_CV, "n": (200, 500, 1000)}, "coverage", "span of mean by method", 2),
      (CROSSVAL, {"metric": "err_xy", "method": "nested", "n": (50, 100)}, "coverage", "span of mean by n", 2),
      (CROSSVAL, {"metric": "err_xy", "method": "nested", "n": (50, 100)}, "coverage", "min", 2),
      (CROSSVAL_VS_WALD, {"method": "nested", "n": (50, 100)}, "share", "mean", 1),
      (CROSSVAL, {"metric": "err_xy", "method": "nadeau_bengio", "n": (200, 500, 1000)}, "coverage", "mean", 2),
      (CROSSVAL, {"metric": "err_xy", "method": "holdout_cp"}, "coverage", "min", 2),
      (CROSSVAL_VS_WALD, {"method": "holdout_cp"}, "share", "mean", 1),
      (CROSSVAL_LOGISTIC, {"method": NAIVE_CV["method"]}, "coverage", "span of mean by method, metric", 2),
      *[(CROSSVAL_LOGISTIC, {"method": m}, "coverage", "span of mean by metric", 2) for m in ("nadeau_bengio", "nested")]]),
    ("docs/gallery.md", "naive intervals cover Err_XY {} on average at n ≤ 100 (simulated, MCSE 0.017 a cell); report "
     "nested CV with few data ({}), [...] **Answer.** No: naive {}, Nadeau–Bengio {}, nested {} (simulated",
     [(CROSSVAL, {**NAIVE_CV, "n": (50, 100)}, "coverage", "span of mean by method", 2),
      (CROSSVAL, {"metric": "err_xy", "method": "nested", "n": (50, 100)}, "coverage", "span of mean by n", 2),
      (CROSSVAL_LOGISTIC, {"method": NAIVE_CV["method"]}, "coverage", "span of mean by method, metric", 2),
      *[(CROSSVAL_LOGISTIC, {"method": m}, "coverage", "span of mean by metric", 2) for m in ("nadeau_bengio", "nested")]]),
    ("docs/guide/bands.md", "200 test sets a point: simulated, a containment's MCSE ≤ {}): [...] containment {} on "
     "continuous scores, the narrowest simultaneous band (area {}/{}/{} at n = 20/100/500); [...] holds the latent "
     "binormal curve {} [...] `fixed_width` band held {} on continuous scores and {} on ratings, [...] `credible` kept "
     "≥ {}% at every FPR. [...] (pointwise coverage down to {} at AUC = 0.95), [...] (down to {} at FPR = 0.05)",
     [(BANDS, {"curve": "roc", "method": ("working_hotelling", "ks", "fixed_width draws=200")}, "containment_mcse", "max"),
      (BANDS, {"method": "working_hotelling", "curve": "roc", "levels": 0}, "containment", "range"),
      *[(BANDS, {"method": "working_hotelling", "curve": "roc", "levels": 0, "n_pos": n}, "mean_area", "mean", 2)
        for n in (20, 100, 500)],
      (BANDS, {"method": "working_hotelling", "curve": "roc", "levels": 5}, "containment", "range"),
      *[(BANDS, {"method": "fixed_width draws=200", "curve": "roc", "levels": k}, "containment", "range") for k in (0, 5)],
      (BANDS, {"method": "credible", "curve": "roc"}, "min_pointwise", "min%", 1),
      (BANDS, {"method": "bootstrap draws=200", "curve": "roc", "auc": 0.95}, "min_pointwise", "min", 2),
      (BANDS_POINTWISE, {"method": ("wilson", "clopper_pearson", "jeffreys"), "curve": "roc", "levels": 0, "at": 0.05},
       "coverage", "min", 2)]),
    ("docs/guide/auc.md", "report `logit_delong`: its coverage stayed ≥ {}% there, at DeLong's width. [...] report "
     "`newcombe`: the only interval that kept ≥ {}% on the whole grid, [...] falls to {}% at AUC = 0.95 with 10 of each",
     [(AUC, {"method": "logit_delong", "n_pos": (25, 50, 100, 500), "auc": (0.6, 0.75, 0.9)}, "coverage", "min%", 1),
      (AUC, {"method": "newcombe"}, "coverage", "min%", 1),
      (AUC, {**DELONG, "auc": 0.95, "n_pos": 10}, "coverage", "min%", 0)]),
    *[(page, "the chance that every Wilson interval covers [...] falls from {} to {}, {}, {}, {} (exact, on average "
       "over p);", [(PEEKING, {**PEEK_WILSON, "looks": k}, "simultaneous", "mean") for k in (1, 2, 5, 20, 100)])
      for page in ("docs/guide/sequential.md", "docs/gallery.md")],
    ("docs/guide/sequential.md", "drops coverage at stopping to {} near the bar (100 looks)",
     [(PEEKING, {**PEEK_WILSON, "rule": "threshold", "looks": 100}, "coverage", "min", 2)]),
    ("docs/gallery.md", "`logit_delong` (≥ {}% at DeLong's width); [...] kept ≥ {}% on the whole grid. DeLong falls to "
     "{}% at AUC = 0.95 with 10 of each (simulated, [...] (containment {}, the narrowest simultaneous band)",
     [(AUC, {"method": "logit_delong", "n_pos": (25, 50, 100, 500), "auc": (0.6, 0.75, 0.9)}, "coverage", "min%", 1),
      (AUC, {"method": "newcombe"}, "coverage", "min%", 1),
      (AUC, {**DELONG, "auc": 0.95, "n_pos": 10}, "coverage", "min%", 0),
      (BANDS, {"method": "working_hotelling", "curve": "roc", "levels": 0}, "containment", "range")]),
    ("docs/guide/leaderboard.md", "simulated, 200 test sets a point, MCSE ≤ {}.) [...] with 10 equal models some \"A "
     "beats B\" is false {}% of the time, with 20 equal models {}%. [...] (family coverage {} at k = 20). "
     "Benjamini–Hochberg controls the false discovery rate (≤ {}) but not the chance of one false claim (up to {}). "
     "[...] hold every model's rank in ≥ {}% of test sets when the models differ (spread 0.05 and 0.2); [...] in {}% at "
     "k = 20 and spread 0.05. [...] about {} of the 20 ranks.",
     [(LEADERBOARD, {}, "false_claim_mcse", "max"),
      *[(LEADERBOARD, {"method": ("wald", "newcombe"), "spread": 0, "k": k}, "false_claim", "range%", 0) for k in (10, 20)],
      (LEADERBOARD, {"method": "bootstrap_max_t", "k": 20}, "family_coverage", "mean", 2),
      (LEADERBOARD, {"method": "bh"}, "false_discovery", "max", 2),
      (LEADERBOARD, {"method": "bh"}, "false_claim", "max", 2),
      (LEADERBOARD, {"method": ("bonferroni", "holm", "max_t"), "spread": (0.05, 0.2)}, "rank_coverage", "min%", 0),
      (LEADERBOARD, {"method": "bootstrap_ranks", "k": 20, "spread": 0.05}, "rank_coverage", "range%", 0),
      (LEADERBOARD, {"method": "max_t", "k": 20, "n": 5000, "spread": 0.05}, "rank_size", "mean", 0)]),
    ("docs/guide/comparing-classifiers.md", "never fell short of 95% by more than 2 MCSE (lowest {}) and is no wider than "
     "Tango's ({} against {} at n = 20, [...] closest to 95% on average (mean |coverage − 0.95| = {} against {}) [...] "
     "but dips to {}. The Wald interval that papers usually report covers {} on average at n = 20 (as low as {}), is "
     "short of nominal by more than 2 MCSE in {}% of the n = 20 points and {}% at n = 100, and claims a difference "
     "where there is none up to {}% of the time. [...] (lowest coverage {} and {}, mean {} and {}) or `newcombe` (mean "
     "{}, lowest {}); `wald` falls to {}.",
     [(COMPARING_CLASSIFIERS, {"method": "newcombe"}, "coverage", "min", 4),
      *[(COMPARING_CLASSIFIERS, {"method": m, "n": 20}, "mean_width", "mean") for m in ("newcombe", "tango")],
      *[(COMPARING_CLASSIFIERS, {"method": m}, "coverage", "from_nominal", 4) for m in ("tango", "agresti_min")],
      (COMPARING_CLASSIFIERS, {"method": "tango"}, "coverage", "min"),
      (COMPARING_CLASSIFIERS, {"method": "wald", "n": 20}, "coverage", "mean"),
      (COMPARING_CLASSIFIERS, {"method": "wald"}, "coverage", "min"),
      *[(COMPARING_CLASSIFIERS_SHORT, {"method": "wald", "n": n}, "short", "mean%", 0) for n in (20, 100)],
      (COMPARING_CLASSIFIERS, {"method": "wald", "truth": 0}, "excludes_zero", "max%", 1),
      *[(NEWCOMBE, {"method": m}, "coverage", "min") for m in ("miettinen_nurminen", "scas")],
      *[(NEWCOMBE, {"method": m}, "coverage", "mean") for m in ("miettinen_nurminen", "scas")],
      (NEWCOMBE, {"method": "newcombe"}, "coverage", "mean"), (NEWCOMBE, {"method": "newcombe"}, "coverage", "min"),
      (NEWCOMBE, {"method": "wald"}, "coverage", "min")]),
    ("docs/gallery.md", "(never short of 95% by more than 2 MCSE, lowest {}) or `tango` (next to Agresti–Min the "
     "closest to 95% on average); Wald covers {} on average at n = 20",
     [(COMPARING_CLASSIFIERS, {"method": "newcombe"}, "coverage", "min", 4),
      (COMPARING_CLASSIFIERS, {"method": "wald", "n": 20}, "coverage", "mean")]),
    # the gallery's answers, each from its study's table
    ("docs/gallery.md", "**Answer.** Exactly: Wald averages {} over p, falls to {} at p = 0.001 and is below 95% on {}% of "
     "the grid; Wilson averages {}, Jeffreys {}, Agresti–Coull {} and Clopper–Pearson {}, never below 0.95.",
     [(BCD, {"method": "wald"}, "coverage", "mean", 4), (BCD, {"method": "wald", "p": 0.001}, "coverage", "min"),
      (BCD_BELOW, {"method": "wald"}, "below", "mean%", 1),
      *[(BCD, {"method": m}, "coverage", "mean", 4) for m in ("wilson", "jeffreys", "agresti_coull", "clopper_pearson")]]),
    ("docs/gallery.md", "Wilson stays closest to nominal on average (mean |coverage − 0.95| = {}); [...] Wald is the "
     "narrowest and by far the worst (minimum {}).",
     [(CONSERVATIVENESS, {"method": "wilson"}, "coverage", "from_nominal", 4),
      (CONSERVATIVENESS, {"method": "wald"}, "coverage", "min")]),
    ("docs/gallery.md", "At n = 50 and δ = 0.05: Wilson {}, Jeffreys {}, Clopper–Pearson {}, Agresti–Coull {}; Wald's is "
     "{} at every n",
     [*[(COEFFICIENTS, {"method": m, "delta": 0.05, "n": 50}, "confidence_coefficient", "min", 4)
        for m in ("wilson", "jeffreys", "clopper_pearson", "agresti_coull")],
      (COEFFICIENTS, {"method": "wald"}, "confidence_coefficient", "max", 0)]),
    ("docs/gallery.md", "the standardised differences have mean {} and sd {} over {} cells, and {}% of them exceed 2",
     [(MC_VS_EXACT_Z, {}, "z", "mean"), (MC_VS_EXACT_Z, {}, "z", "std"), (MC_VS_EXACT_Z, {}, "z", "count"),
      (MC_VS_EXACT_Z, {}, "beyond_2", "mean%", 1)]),
    ("docs/gallery.md", "(`cp_union` above {}) [...] Jeffreys prior stays close to nominal (mean {}; simulated, 10,000 "
     "test sets a cell).",
     [(GROUNDLIGHT, {"method": "cp_union"}, "coverage", "min", 2),
      (GROUNDLIGHT, {"method": "posterior_jeffreys"}, "coverage", "mean")]),
    ("docs/gallery.md", "Miettinen–Nurminen (mean {}, lowest {}), SCAS ({}, {}) or Newcombe's hybrid ({}, {}); Wald "
     "averages {} and falls to {}.",
     [(NEWCOMBE, {"method": m}, "coverage", how) for m in ("miettinen_nurminen", "scas", "newcombe", "wald")
      for how in ("mean", "min")]),
    ("docs/gallery.md", "The paired clustered t (false claims {}% with 1,000 questions in 10 groups); there the unpaired "
     "harness comparison \"finds\" a difference {}% of the time (simulated, MCSE ≤ {}).",
     [*[(EVALS_PAIRED, {"method": m, "truth": 0, "questions": 1000, "groups": 10}, "excludes_zero", "range%", 0)
        for m in ("paired_eval.clustered_t", "paired_eval.unpaired")],
      (EVALS_PAIRED, {}, "excludes_zero_mcse", "max")]),
    ("docs/sequential.md", "averaged over p (exact): {} (1 look), {} (2), {} (5), {} (20), {} (100); Clopper–Pearson "
     "{} / {} / {} / {}; [...] coverage at stopping stays ≥ {} and ≥ {} at every p even with 100 looks [...] "
     "Jeffreys' ≥ {}. [...] Wilson's coverage at stopping falls to {} (2 looks), {} (5), {} (20), {} (100); "
     "Clopper–Pearson's to {} at 100 looks.",
     [*[(PEEKING, {**PEEK_WILSON, "looks": k}, "simultaneous", "mean") for k in (1, 2, 5, 20, 100)],
      *[(PEEKING, {**PEEK_WILSON, "method": "clopper_pearson", "looks": k}, "simultaneous", "mean") for k in (2, 5, 20, 100)],
      *[(PEEKING, {**PEEK_WILSON, "method": m, "rule": "width"}, "coverage", "min")
        for m in ("wilson", "clopper_pearson", "jeffreys")],
      *[(PEEKING, {**PEEK_WILSON, "rule": "threshold", "looks": k}, "coverage", "min", 2) for k in (2, 5, 20, 100)],
      (PEEKING, {**PEEK_WILSON, "method": "clopper_pearson", "rule": "threshold", "looks": 100}, "coverage", "min", 2)]),
    ("docs/crossval.md", "at n = 100, d = 10, λ = 0.01 logistic regression's Err is {} (Bayes error 0.222) and {} (0.325)",
     [(CROSSVAL_LOGISTIC, {"metric": "err", "n": 100, "d": 10, "bayes_error": b}, "truth", "min", 4) for b in (0.222, 0.325)]),
    ("docs/guide/evals.md", "`ci(method=\"t\", cluster=…)`: {}) [...] at p = 0.99 with 100 questions it covers {} against {} "
     "for every SE-based bar)",
     [(EVALS, {"method": "eval.clustered_t", "p": 0.5}, "coverage", "range", 2),
      (EVALS, {"method": "eval.wilson_design", "p": 0.99, "questions": 100, "answers": 1, "icc_group": 0}, "coverage",
       "range", 2),
      (EVALS, {"method": ("eval.naive", "eval.question", "eval.clustered", "eval.clustered_t"), "p": 0.99,
               "questions": 100, "answers": 1, "icc_group": 0}, "coverage", "range", 2)]),
    ("docs/calibration.md", "the same as, E|c(s) − s| ({} against {} for Beta(2, 5) scores at slope 0.6)",
     [(CALIBRATION, {"target": target, "scores": None, "slope": 0.6}, "truth", "min")
      for target in ("smooth_ece", "ece_unbinned")]),
    ("experiments/roc_bands/README.md", "so pointwise coverage falls to {} at FPR = 0.05 at AUC = 0.7 (for every n; {} "
     "at AUC = 0.95, n = 500), about {} on average;",
     [(BANDS_POINTWISE, {**BINOMIAL_BANDS, "at": 0.05, "auc": 0.7}, "coverage", "range of min by n_pos"),
      (BANDS_POINTWISE, {**BINOMIAL_BANDS, "at": 0.05, "auc": 0.95, "n_pos": 500}, "coverage", "min"),
      (BANDS_POINTWISE, BINOMIAL_BANDS, "coverage", "mean")]),
    # experiments/multiclass (simulated, 500 test sets a cell; the README states the MCSE)
    ("experiments/multiclass/README.md",
     "Monte Carlo, 500 test sets per cell: every coverage below is simulated, MCSE ≤ {} where coverage is above 0.85",
     [(MULTICLASS_NEAR_NOMINAL, {}, "mcse", "max")]),
    ("experiments/multiclass/README.md", "almost never miss (coverage ≥ {}) but their width grows with K: at n = 250 "
     "from {} (K = 2) to {} (K = 10) for Clopper–Pearson, against {} and {} for `wald`. `wald` is close to nominal "
     "from n = 250 ({}) and {} at n = 50.",
     [(MULTICLASS, {"method": ("union_cp", "union_wilson", "union_jeffreys")}, "coverage", "min"),
      *[(MULTICLASS, {"method": m, "n": 250, "K": k}, "mean_width", "min", 2) for m in ("union_cp", "wald") for k in (2, 10)],
      (MULTICLASS, {"method": "wald", "n": 250}, "coverage", "range", 2),
      (MULTICLASS, {"method": "wald", "n": 50}, "coverage", "range", 2)]),
    ("experiments/multiclass/README.md", "Takahashi et al.'s delta method (`takahashi`) and the percentile bootstrap "
     "cover {} for K ≤ 5 and {} at K = 10; [...] covers like the delta method: {} for K ≤ 5 and {} (n = 50) and {} "
     "(n = 250) at K = 10, as α = 0.01 does ({}). [...] misses from K = 3 ({} at n = 50; coverage {} at K = 5, n = 50, "
     "{} at K = 5, n = 250)",
     [(MULTICLASS, {**F1_DELTA_BOOT, "K": (2, 3, 5)}, "coverage", "range", 2),
      (MULTICLASS, {**F1_DELTA_BOOT, "K": 10}, "coverage", "range", 2),
      (MULTICLASS, {**F1_BAYES, "K": (2, 3, 5)}, "coverage", "range", 2),
      (MULTICLASS, {**F1_BAYES, "K": 10, "n": 50}, "coverage", "min", 2),
      (MULTICLASS, {**F1_BAYES, "K": 10, "n": 250}, "coverage", "min", 2),
      (MULTICLASS, {"label": "macro-F1 Bayes (alpha=0.01)"}, "coverage", "range", 2),
      (MULTICLASS, {**F1_BAYES_ONE, "K": 3, "n": 50}, "coverage", "min", 2),
      (MULTICLASS, {**F1_BAYES_ONE, "K": 5, "n": 50}, "coverage", "min", 0),
      (MULTICLASS, {**F1_BAYES_ONE, "K": 5, "n": 250}, "coverage", "min", 2)]),
    *[(page, "grow from {} to {} times Wald's width (Clopper–Pearson's, n = 250)",
       [(MULTICLASS_VS_WALD, {"method": "union_cp", "n": 250, "K": k}, "share", "min", 1) for k in (2, 10)])
      for page in ("docs/gallery.md", "docs/guide/multiclass.md")],
    *[(page, "Takahashi's delta method and the bootstrap cover {} for K ≤ 5 and {} at K = 10 (simulated, 500 test sets "
       "a cell, MCSE ≤ {})",
       [(MULTICLASS, {**F1_DELTA_BOOT, "K": (2, 3, 5)}, "coverage", "range", 2),
        (MULTICLASS, {**F1_DELTA_BOOT, "K": 10}, "coverage", "range", 2),
        (MULTICLASS_NEAR_NOMINAL, {}, "mcse", "max")]) for page in ("docs/gallery.md", "docs/guide/multiclass.md")],
    ("docs/gallery.md", "under-covers with many small classes ({} at K = 10, n = 50)",
     [(MULTICLASS, {**UNIFORM, "K": 10, "n": 50}, "coverage", "min", 2)]),
    ("docs/guide/multiclass.md", "under-covers badly with many small classes ({} at K = 10, n = 50), `posterior`'s "
     "default prior Beta(1/(2K), 1/(2K)) covers {} there and {} for K ≤ 5. [...] useless from K = 5 (coverage {} at "
     "K = 5, n = 50 and {} at n = 250)",
     [(MULTICLASS, {**UNIFORM, "K": 10, "n": 50}, "coverage", "min", 2),
      (MULTICLASS, {**POSTERIOR, "K": 10, "n": 50}, "coverage", "min", 2),
      (MULTICLASS, {**POSTERIOR, "K": (2, 3, 5)}, "coverage", "range", 2),
      (MULTICLASS, {**F1_BAYES_ONE, "K": 5, "n": 50}, "coverage", "min", 0),
      (MULTICLASS, {**F1_BAYES_ONE, "K": 5, "n": 250}, "coverage", "min", 2)]),
    # experiments/calibration: per bin (exact), the whole curve and the ECE (simulated), the tests
    ("experiments/calibration/README.md", "It never covers less than {} (exact, every bin and point) at a mean width "
     "of {}. Wilson and Jeffreys average {} (widths {}, {}) but fall to {} and {} in sparse bins [...] The per-bin "
     "bootstrap averages {} (n = 100) to {} (n = 1,000) [...] lift Wilson's worst to {} and the bootstrap's mean to {}. "
     "With binormal scores the picture is the same: Clopper–Pearson at worst {}, Wilson {}, Jeffreys {}.",
     [(CALIBRATION, {**BETA_BIN, "method": "clopper_pearson"}, "exact_coverage", "min"),
      (CALIBRATION, {**BETA_BIN, "method": "clopper_pearson"}, "width", "mean", 2),
      (CALIBRATION, {**BETA_BIN, "method": ("wilson", "jeffreys")}, "exact_coverage", "span of mean by method", 2),
      *[(CALIBRATION, {**BETA_BIN, "method": m}, "width", "mean", 2) for m in ("wilson", "jeffreys")],
      *[(CALIBRATION, {**BETA_BIN, "method": m}, "exact_coverage", "min", 2) for m in ("wilson", "jeffreys")],
      *[(CALIBRATION, {**BETA_BIN, "method": "bootstrap", "n": n}, "exact_coverage", "mean", 2) for n in (100, 1000)],
      (CALIBRATION, {**BETA_BIN, "method": "wilson", "binning": "equal_mass"}, "exact_coverage", "min", 2),
      (CALIBRATION, {**BETA_BIN, "method": "bootstrap", "binning": "equal_mass"}, "exact_coverage", "mean", 2),
      (CALIBRATION, {**BINORMAL_BIN, "method": "clopper_pearson"}, "exact_coverage", "min"),
      *[(CALIBRATION, {**BINORMAL_BIN, "method": m}, "exact_coverage", "min", 2) for m in ("wilson", "jeffreys")]]),
    ("experiments/calibration/README.md", "per-bin intervals hold every bin at once only {} of the time on average "
     "(per method and n; as low as {} with 20 bins). Clopper–Pearson + Šidák covers the whole curve {} on average and "
     "at worst {} (Monte Carlo, ± {}), [...] Jeffreys + Šidák averages {} (worst {}); Wilson + Šidák falls to {} with "
     "20 bins; bootstrap bands fail ({} on average). The price: a mean width of {} per non-empty bin against {} for "
     "unadjusted Wilson. With binormal scores Clopper–Pearson + Šidák holds the curve {} at worst.",
     [(CALIBRATION, {**BETA_CURVE, "method": UNADJUSTED}, "coverage", "span of mean by method, n", 2),
      (CALIBRATION, {**BETA_CURVE, "method": UNADJUSTED, "bins": 20}, "coverage", "min", 2),
      (CALIBRATION, {**BETA_CURVE, "method": "clopper_pearson+sidak"}, "coverage", "span of mean by n", 2),
      (CALIBRATION, {**BETA_CURVE, "method": "clopper_pearson+sidak"}, "coverage", "min"),
      (CALIBRATION, {**BETA_CURVE, "method": "clopper_pearson+sidak"}, "mcse", "max"),
      (CALIBRATION, {**BETA_CURVE, "method": "jeffreys+sidak"}, "coverage", "span of mean by n", 2),
      (CALIBRATION, {**BETA_CURVE, "method": "jeffreys+sidak"}, "coverage", "min", 2),
      (CALIBRATION, {**BETA_CURVE, "method": "wilson+sidak", "bins": 20}, "coverage", "min", 2),
      (CALIBRATION, {**BETA_CURVE, "method": ("bootstrap+none", "bootstrap+bonferroni", "bootstrap+sidak")},
       "coverage", "span of mean by method, n", 2),
      (CALIBRATION, {**BETA_CURVE, "method": "clopper_pearson+sidak"}, "width", "mean", 2),
      (CALIBRATION, {**BETA_CURVE, "method": "wilson+none"}, "width", "mean", 2),
      (CALIBRATION, {"target": "curve", "scores": "binormal", "method": "clopper_pearson+sidak"}, "coverage", "min")]),
    ("experiments/calibration/README.md", "biased upward (+{} to +{} at n = 100, +{} to +{} at n = 1,000; more with "
     "more bins) [...] (from n = 300, for a miscalibrated classifier, at most {} with 5 bins, {} with 10 and {} with "
     "20) [...] the debiased one covers {} with 5 bins, {} with 10 and {} with 20,",
     [*[(CALIBRATION, {**MISCALIBRATED, **PLUGIN, "n": n}, "bias", how) for n in (100, 1000) for how in ("min", "max")],
      *[(CALIBRATION, {**MISCALIBRATED, **DEBIASED, "n": (300, 1000), "bins": b}, "bias", "max", 4) for b in (5, 10, 20)],
      *[(CALIBRATION, {"target": "ece", "scores": None, "slope": 1, **DEBIASED, "bins": b}, "coverage", "range")
        for b in (5, 10, 20)]]),
    ("experiments/calibration/README.md", "population's smooth ECE, {} here against a binned ECE of {}), and it is "
     "biased upward like the plug-in: +{} to +{} at n = 100, +{} to +{} at n = 300, +{} to +{} at n = 1,000. Its "
     "basic-bootstrap interval covers {} at n = 100, {} at n = 300 and {} at n = 1,000 for a miscalibrated classifier "
     "(both score laws), and {} at perfect calibration (bias +{} to +{})",
     [(CALIBRATION, SMOOTH_MISCALIBRATED, "truth", "range"),
      (CALIBRATION, {"target": "ece", "slope": (0.6, 1.6)}, "truth", "range"),
      *[(CALIBRATION, {**SMOOTH_MISCALIBRATED, "n": n}, "bias", how) for n in (100, 300, 1000) for how in ("min", "max")],
      *[(CALIBRATION, {**SMOOTH_MISCALIBRATED, "n": n}, "coverage", "range", 2) for n in (100, 300, 1000)],
      (CALIBRATION, {"target": "smooth_ece", "slope": 1}, "coverage", "range", 2),
      (CALIBRATION, {"target": "smooth_ece", "slope": 1}, "bias", "min", 2),
      (CALIBRATION, {"target": "smooth_ece", "slope": 1}, "bias", "max", 2)]),
    ("experiments/calibration/README.md", "Both tests hold their size (rejection {} at slope 1; [...] "
     "Spiegelhalter's Z is the more powerful against these smooth miscalibrations: {} at n = 100 and ≥ {} from "
     "n = 300, where Hosmer–Lemeshow rejects {} and {}. With binormal scores the sizes are {} (Spiegelhalter) and {} "
     "(Hosmer–Lemeshow;",
     [(CALIBRATION, {**BETA_TEST, "slope": 1}, "rejection", "range of mean by method, n"),
      (CALIBRATION, {**BETA_TEST, "method": "spiegelhalter", "slope": (0.6, 1.6), "n": 100}, "rejection",
       "range of mean by slope", 2),
      (CALIBRATION, {**BETA_TEST, "method": "spiegelhalter", "slope": (0.6, 1.6), "n": (300, 1000)}, "rejection",
       "min of mean by slope, n", 2),
      *[(CALIBRATION, {**BETA_TEST, "method": "hosmer_lemeshow", "slope": (0.6, 1.6), "n": n}, "rejection",
         "range of mean by slope", 2) for n in (100, 300)],
      *[(CALIBRATION, {"target": "test", "scores": "binormal", "method": m, "slope": 1}, "rejection", "range")
        for m in ("spiegelhalter", "hosmer_lemeshow")]]),
    ("docs/guide/calibration.md", "never below {} (Wilson and Jeffreys: {} and {} in sparse bins; [...] | {} at worst "
     "(unadjusted intervals: {} on average) | [...] | {} from n = 100 to 1,000 (biased upward, like the plug-in) | [...] "
     "power {} at n = 100 (Hosmer–Lemeshow {};",
     [(CALIBRATION, {**BETA_BIN, "method": "clopper_pearson"}, "exact_coverage", "min"),
      *[(CALIBRATION, {**BETA_BIN, "method": m}, "exact_coverage", "min", 2) for m in ("wilson", "jeffreys")],
      (CALIBRATION, {**BETA_CURVE, "method": "clopper_pearson+sidak"}, "coverage", "min"),
      (CALIBRATION, {**BETA_CURVE, "method": UNADJUSTED}, "coverage", "span of mean by method, n", 2),
      (CALIBRATION, SMOOTH_MISCALIBRATED, "coverage", "range", 2),
      *[(CALIBRATION, {**BETA_TEST, "method": m, "slope": (0.6, 1.6), "n": 100}, "rejection", "range of mean by slope", 2)
        for m in ("spiegelhalter", "hosmer_lemeshow")]]),
    ("docs/guide/calibration.md", "+{} to +{} at n = 100 here (simulated, 1,000 test sets a point)",
     [(CALIBRATION, {**MISCALIBRATED, **PLUGIN, "n": 100}, "bias", how) for how in ("min", "max")]),
    ("docs/gallery.md", "Per bin, Clopper–Pearson (never below {}, exactly; Wilson and Jeffreys fall to {} and {} in "
     "sparse bins, the per-bin bootstrap to {}); for the whole curve, Clopper–Pearson at Šidák's level ({} at worst; "
     "unadjusted intervals {} on average). [...] its bootstrap covers {}.",
     [(CALIBRATION, {**BETA_BIN, "method": "clopper_pearson"}, "exact_coverage", "min"),
      *[(CALIBRATION, {**BETA_BIN, "method": m}, "exact_coverage", "min", 2) for m in ("wilson", "jeffreys")],
      (CALIBRATION, {**BETA_BIN, "method": "bootstrap"}, "exact_coverage", "min", 0),
      (CALIBRATION, {**BETA_CURVE, "method": "clopper_pearson+sidak"}, "coverage", "min"),
      (CALIBRATION, {**BETA_CURVE, "method": UNADJUSTED}, "coverage", "span of mean by method, n", 2),
      (CALIBRATION, SMOOTH_MISCALIBRATED, "coverage", "range", 2)]),
]


def _relative_width(table, cell, column, baseline):
    """``table`` with ``base`` (the ``baseline`` method's ``column`` in the same ``cell``), ``share`` (column / base),
    ``narrower`` (1 − share) and ``worth`` (1/share²: the labels a width ∝ 1/√n would need)."""
    base = table[table.method == baseline].set_index(cell)[column].rename("base")
    return table.join(base, on=cell).assign(share=lambda t: t[column] / t.base, narrower=lambda t: 1 - t.share,
                                            worth=lambda t: t.share ** -2)


DERIVED = {  # "table#name": a column the pages quote computed from the committed table's own columns
    JUDGED_SHARE: lambda: _relative_width(_table(JUDGED), ["examples", "labelled", "p", "sensitivity", "specificity",
                                                           "sampling"], "mean_width", "judged.classical"),
    JUDGED_VS_WILSON: lambda: _relative_width(_table(JUDGED), ["examples", "labelled", "p", "sensitivity",
                                                               "specificity", "sampling"], "mean_width", "wilson"),
    JUDGED_AGREEMENT: lambda: _table(JUDGED).dropna(subset=["exact_coverage"])
    .assign(gap=lambda t: (t.coverage - t.exact_coverage).abs(), z=lambda t: t.gap / t.mcse.where(t.mcse > 0),
            degenerate=lambda t: (t.mcse == 0).astype(int)),
    CLUSTERED_CP_GAIN: lambda: _relative_width(_table(CLUSTERED), ["clusters", "cluster_size", "p", "icc"],
                                               "exact_coverage", "wilson").assign(gain=lambda t: t.exact_coverage - t.base)
    .query("method == 'clopper_pearson'"),
    CROSSVAL_VS_WALD: lambda: _relative_width(_table(CROSSVAL), ["metric", "n", "d", "bayes_error", "folds"],
                                              "mean_width", "wald"),
    COMPARING_CLASSIFIERS_SHORT: lambda: _table(COMPARING_CLASSIFIERS)
    .assign(short=lambda t: (t.coverage + 2 * t.mcse < 0.95).astype(float)),
    BCD_BELOW: lambda: _table(BCD).assign(below=lambda t: (t.coverage < 0.95).astype(float)),
    MC_VS_EXACT_Z: lambda: _table("results/mc_vs_exact/results.parquet").assign(  # z = (MC − C) / √(C(1 − C)/reps)
        z=lambda t: (t.coverage - t.exact_coverage) / (t.exact_coverage * (1 - t.exact_coverage) / t.reps) ** 0.5,
        beyond_2=lambda t: (t.z.abs() > 2).astype(float)),
    MULTICLASS_NEAR_NOMINAL: lambda: _table(MULTICLASS).query("coverage > 0.85"),
    MULTICLASS_VS_WALD: lambda: _relative_width(_table(MULTICLASS), ["metric", "K", "n"], "mean_width", "wald"),
}


def _table(path, cache={}):
    if path not in cache:
        cache[path] = DERIVED[path]() if path in DERIVED else \
            pd.read_parquet(ROOT / path) if path.endswith(".parquet") else pd.read_csv(ROOT / path)
    return cache[path]


@pytest.mark.parametrize("page, sentence, fields", CLAIMS, ids=[f"{c[0]}:{c[1][:30]}" for c in CLAIMS])
def test_the_page_quotes_the_committed_table(page, sentence, fields):
    values = [field(_table(f[0]), *f[1:]) for f in fields]
    text = " ".join((ROOT / page).read_text().split())
    quoted = " ".join(sentence.format(*values).split())
    at = 0
    for piece in quoted.split(" [...] "):  # "[...]": the page's words between two quoted pieces, in order
        found = text.find(piece, at)
        assert found >= 0, f"{page} should say: {piece}"
        at = found + len(piece)


def test_a_changed_number_is_found():
    """The check can fail: a table value moved by 0.001 no longer matches its page."""
    page, sentence, fields = CLAIMS[0]
    table = _table(fields[0][0]).copy()
    rows = (table.method == "judged.ppi") & (table.labelled == 10) & (table.p == 0.05) & (table.specificity == 0.95) \
        & (table.sampling == "random")
    table.loc[rows, "exact_coverage"] += 0.001
    moved = sentence.format(*[field(table, *f[1:]) for f in fields])
    assert " ".join(moved.split()) not in " ".join((ROOT / page).read_text().split())
