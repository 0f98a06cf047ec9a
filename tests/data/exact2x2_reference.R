# exact2x2 1.7.0 (Fay; CRAN source installed into a personal library by hand) on grids of counts:
# the melded interval binomMeld.test(x1, n1, x2, n2, parmtype = "difference") (it reports p2 - p1)
# and the exact McNemar-compatible interval mcnemarExactDP(x, m, n) (x = only_first, m = discordant,
# n = pairs; it reports first - second). 95% and 90%. Run by hand:
#   R_LIBS=<library with exact2x2> Rscript exact2x2_reference.R
# CI reads exact2x2_melded.csv and exact2x2_mcnemar.csv only. exact2x2 integrates with R's
# integrate() (default tolerance), so its ends carry errors up to ~1e-4.
suppressMessages(library(exact2x2))
f <- function(x) format(unname(x), digits = 17)
rows <- list()
for (cl in c(0.95, 0.90)) for (n1 in c(1, 5, 12)) for (n2 in c(3, 10)) for (x1 in unique(c(0, 1, n1 %/% 2, n1))) for (x2 in unique(c(0, 2, n2))) {
  ci <- binomMeld.test(x1, n1, x2, n2, parmtype = "difference", conf.level = cl)$conf.int
  rows[[length(rows) + 1]] <- data.frame(k1 = x1, n1 = n1, k2 = x2, n2 = n2, conf_level = cl,
                                         lower_p2_minus_p1 = f(ci[1]), upper_p2_minus_p1 = f(ci[2]))
}
write.csv(do.call(rbind, rows), "exact2x2_melded.csv", row.names = FALSE, quote = FALSE)
rows <- list()
for (cl in c(0.95, 0.90)) for (n in c(1, 6, 30)) for (m in unique(c(0, 1, n %/% 2, n))) for (x in unique(c(0, m %/% 3, m))) {
  ci <- mcnemarExactDP(x = x, m = m, n = n, conf.level = cl)$conf.int
  rows[[length(rows) + 1]] <- data.frame(x = x, m = m, n = n, conf_level = cl, lower = f(ci[1]), upper = f(ci[2]))
}
write.csv(do.call(rbind, rows), "exact2x2_mcnemar.csv", row.names = FALSE, quote = FALSE)
writeLines(c(paste("exact2x2", packageVersion("exact2x2")), R.version.string), "exact2x2_versions.txt")
