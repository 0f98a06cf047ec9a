# pROC's own example, aSAH (bundled with pROC): the AUC of s100b for outcome (Good/Poor) and its
# DeLong intervals, printed to 17 significant digits into proc_asah_reference.json with the data.
# Run by hand (Rscript proc_asah_reference.R) with pROC installed; CI reads the JSON only.
# Calls: r <- roc(aSAH$outcome, aSAH$s100b, quiet = TRUE)   (levels Good = control, Poor = case; direction "<")
#        auc(r); var(r, method = "delong"); ci.auc(r, method = "delong", conf.level = 0.95 / 0.90)
suppressMessages(library(pROC))
library(jsonlite)
data(aSAH)
r <- roc(aSAH$outcome, aSAH$s100b, quiet = TRUE)
f <- function(x) format(x, digits = 17)
ci95 <- as.numeric(ci.auc(r, method = "delong", conf.level = 0.95))
ci90 <- as.numeric(ci.auc(r, method = "delong", conf.level = 0.90))
out <- list(
  provenance = list(package = paste("pROC", as.character(packageVersion("pROC"))), r = R.version.string,
                    calls = c("roc(aSAH$outcome, aSAH$s100b, quiet = TRUE)", "auc(r)", "var(r, method = 'delong')",
                              "ci.auc(r, method = 'delong', conf.level = 0.95 / 0.90)"),
                    levels = r$levels, direction = r$direction),
  outcome = as.character(aSAH$outcome), s100b = aSAH$s100b,
  auc = f(as.numeric(auc(r))), var = f(var(r, method = "delong")),
  lower95 = f(ci95[1]), upper95 = f(ci95[3]), lower90 = f(ci90[1]), upper90 = f(ci90[3]))
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "proc_asah_reference.json")
