# DeLong AUC, variance and 95% / 90% intervals of pROC for every score set of
# auc_proc_datasets.json, printed to 17 significant digits into auc_proc_reference.json.
# Run by hand (Rscript auc_proc_reference.R) with pROC installed; CI reads the JSON only.
# Calls: r <- roc(controls = neg, cases = pos, direction = "<", quiet = TRUE)
#        var(r, method = "delong"); ci.auc(r, method = "delong", conf.level = 0.95 / 0.9)
suppressMessages(library(pROC))
library(jsonlite)
sets <- fromJSON("auc_proc_datasets.json", simplifyVector = FALSE)
f <- function(x) format(x, digits = 17)
out <- lapply(sets, function(s) {
  pos <- unlist(s$pos); neg <- unlist(s$neg)
  r <- roc(controls = neg, cases = pos, direction = "<", quiet = TRUE)
  ci95 <- as.numeric(ci.auc(r, method = "delong", conf.level = 0.95))
  ci90 <- as.numeric(ci.auc(r, method = "delong", conf.level = 0.90))
  list(name = s$name, pos = pos, neg = neg, auc = f(as.numeric(auc(r))), var = f(var(r, method = "delong")),
       lower95 = f(ci95[1]), upper95 = f(ci95[3]), lower90 = f(ci90[1]), upper90 = f(ci90[3]))
})
provenance <- list(package = paste("pROC", as.character(packageVersion("pROC"))), r = R.version.string,
                   calls = c("roc(controls = neg, cases = pos, direction = '<', quiet = TRUE)",
                             "var(r, method = 'delong')", "ci.auc(r, method = 'delong', conf.level = 0.95 / 0.90)"))
writeLines(toJSON(list(provenance = provenance, sets = out), auto_unbox = TRUE, digits = NA, pretty = TRUE),
           "auc_proc_reference.json")
