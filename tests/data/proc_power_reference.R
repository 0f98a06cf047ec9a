# pROC's sample size for one AUC (power.roc.test, Obuchowski's binormal variance): the cases
# (= controls, kappa = 1) for a two-sided test of AUC = 0.5 at sig.level 0.05, printed to 17
# significant digits into proc_power_reference.json. Run by hand (Rscript proc_power_reference.R)
# with pROC installed; CI reads the JSON only.
suppressMessages(library(pROC))
library(jsonlite)
rows <- list()
for (auc in c(0.7, 0.75, 0.8))
  for (power in c(0.8, 0.9)) {
    r <- power.roc.test(auc = auc, sig.level = 0.05, power = power, kappa = 1)
    rows[[length(rows) + 1]] <- list(auc = auc, power = power, ncases = format(r$ncases, digits = 17),
                                     ncontrols = format(r$ncontrols, digits = 17))
  }
out <- list(provenance = list(package = paste("pROC", as.character(packageVersion("pROC"))), r = R.version.string,
                              call = "power.roc.test(auc = auc, sig.level = 0.05, power = power, kappa = 1)"),
            rows = rows)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "proc_power_reference.json")
