# pROC's roc.test on its own example, aSAH (bundled with pROC): the paired DeLong comparison of the
# AUCs of s100b and wfns (interval for AUC(s100b) - AUC(wfns), Z, p) and the unpaired DeLong
# comparison of s100b and ndka (D), printed to 17 significant digits into
# proc_roc_test_reference.json with the data. Run by hand (Rscript proc_roc_test_reference.R) with
# pROC installed; CI reads the JSON only. wfns is an ordered factor: roc() uses its level numbers.
suppressMessages(library(pROC))
library(jsonlite)
data(aSAH)
f <- function(x) format(unname(x), digits = 17)
r1 <- roc(aSAH$outcome, aSAH$s100b, quiet = TRUE)
r2 <- roc(aSAH$outcome, aSAH$wfns, quiet = TRUE)
r3 <- roc(aSAH$outcome, aSAH$ndka, quiet = TRUE)
p95 <- roc.test(r1, r2, paired = TRUE, method = "delong", conf.level = 0.95)
p90 <- roc.test(r1, r2, paired = TRUE, method = "delong", conf.level = 0.90)
u <- suppressWarnings(roc.test(r1, r3, paired = FALSE, method = "delong"))
out <- list(
  provenance = list(package = paste("pROC", as.character(packageVersion("pROC"))), r = R.version.string,
                    calls = c("r1 <- roc(aSAH$outcome, aSAH$s100b, quiet = TRUE)",
                              "r2 <- roc(aSAH$outcome, aSAH$wfns, quiet = TRUE)",
                              "r3 <- roc(aSAH$outcome, aSAH$ndka, quiet = TRUE)",
                              "roc.test(r1, r2, paired = TRUE, method = 'delong', conf.level = 0.95 / 0.90)",
                              "cov(r1, r2, method = 'delong'); var(r1); var(r2)",
                              "roc.test(r1, r3, paired = FALSE, method = 'delong')"),
                    levels = r1$levels, directions = c(r1$direction, r2$direction, r3$direction)),
  outcome = as.character(aSAH$outcome), s100b = aSAH$s100b, wfns = as.numeric(aSAH$wfns), ndka = aSAH$ndka,
  auc_s100b = f(as.numeric(auc(r1))), auc_wfns = f(as.numeric(auc(r2))), auc_ndka = f(as.numeric(auc(r3))),
  var_s100b = f(var(r1, method = "delong")), var_wfns = f(var(r2, method = "delong")),
  cov_s100b_wfns = f(cov(r1, r2, method = "delong")),
  paired_z = f(p95$statistic), paired_p = f(p95$p.value),
  paired_lower95 = f(p95$conf.int[1]), paired_upper95 = f(p95$conf.int[2]),
  paired_lower90 = f(p90$conf.int[1]), paired_upper90 = f(p90$conf.int[2]),
  unpaired_d = f(u$statistic), unpaired_df = f(u$parameter), unpaired_p = f(u$p.value))
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "proc_roc_test_reference.json")
