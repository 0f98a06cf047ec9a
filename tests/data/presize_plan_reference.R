# presize's plug-in sample sizes (precision-based: the n at which the interval at the expected
# counts has width conf.width), printed to 17 significant digits into presize_plan_reference.json.
# Run by hand with presize installed (R_LIBS=<lib> Rscript presize_plan_reference.R); CI reads the JSON only.
# presize solves with uniroot at its default tolerance (~1e-4 in n), so the values carry that error.
suppressMessages(library(presize))
library(jsonlite)
f <- function(x) format(x, digits = 17)
prop <- list()
for (method in c("wilson", "agresti-coull", "exact", "wald"))
  for (p in c(0.1, 0.5, 0.8, 0.9, 0.95))
    for (w in c(0.05, 0.1, 0.2)) {
      r <- prec_prop(p = p, conf.width = w, method = method)
      prop[[length(prop) + 1]] <- list(method = method, p = p, conf.width = w, n = f(r$n))
    }
sens <- list()
for (method in c("wilson", "exact"))
  for (sens_ in c(0.8, 0.9))
    for (prev in c(0.1, 0.3))
      for (w in c(0.1, 0.2)) {
        r <- suppressMessages(prec_sens(sens = sens_, prev = prev, conf.width = w, method = method))
        sens[[length(sens) + 1]] <- list(method = method, sens = sens_, prev = prev, conf.width = w,
                                         n = f(r$n), ntot = f(r$ntot))
      }
riskdiff <- list()
for (method in c("newcombe", "mn", "ac", "wald"))
  for (pp in list(c(0.8, 0.7), c(0.9, 0.85), c(0.6, 0.4)))
    for (r_ in c(1, 2))
      for (w in c(0.1, 0.2)) {
        r <- prec_riskdiff(p1 = pp[1], p2 = pp[2], conf.width = w, r = r_, method = method)
        riskdiff[[length(riskdiff) + 1]] <- list(method = method, p1 = pp[1], p2 = pp[2], r = r_, conf.width = w,
                                                 n1 = f(r$n1), n2 = f(r$n2))
      }
out <- list(
  provenance = list(package = paste("presize", as.character(packageVersion("presize"))), r = R.version.string,
                    calls = c("prec_prop(p = p, conf.width = w, method = method)",
                              "prec_sens(sens = sens, prev = prev, conf.width = w, method = method)",
                              "prec_riskdiff(p1 = p1, p2 = p2, conf.width = w, r = r, method = method)"),
                    conf.level = 0.95, note = "prec_riskdiff: r = n1/n2"),
  prec_prop = prop, prec_sens = sens, prec_riskdiff = riskdiff)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "presize_plan_reference.json")
