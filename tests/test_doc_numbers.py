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
POSTERIOR = dict(metric="macro_recall", label="posterior (prior 1/(2K), the default)")
UNIFORM = dict(metric="macro_recall", label="posterior (uniform prior)")


def field(table, where, column, how, digits=3):
    """The text of ``how`` of ``column`` over the rows ``where`` of ``table``: "min", "max", "mean", "median",
    "from_nominal" (mean |v − 0.95|), "range" (lo–hi) or "span" (the range, one number where both ends round
    alike)."""
    rows = table
    for key, value in where.items():
        rows = rows[rows[key].isna()] if value is None else \
            rows[rows[key].isin(value)] if isinstance(value, tuple) else rows[rows[key] == value]
    assert len(rows), f"no rows of {where}"
    v = rows[column]
    fmt = f"{{:.{digits}f}}"
    low, high = fmt.format(v.min()), fmt.format(v.max())
    if how == "from_nominal":  # mean |coverage − 0.95|, as the reports' closeness rank reads it
        return fmt.format((v - 0.95).abs().mean())
    return {"min": low, "max": high, "mean": fmt.format(v.mean()),
            "median": fmt.format(v.median()), "range": f"{low}–{high}",
            "span": low if low == high else f"{low}–{high}"}[how]


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
]


def _table(path, cache={}):
    if path not in cache:
        cache[path] = pd.read_parquet(ROOT / path) if path.endswith(".parquet") else pd.read_csv(ROOT / path)
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
