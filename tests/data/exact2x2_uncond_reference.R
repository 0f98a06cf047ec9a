# exact2x2 1.7.0 (Fay; CRAN source installed into a personal library by hand): the exact unconditional
# score interval for a difference of two independent proportions (Chan & Zhang 1999),
#   uncondExact2x2(x1, n1, x2, n2, parmtype = "difference", method = "score", conf.int = TRUE,
#                  conf.level = cl)
# with every other argument at its default: alternative = "two.sided", tsmethod = "central" (two
# one-sided tests, each at (1 - cl)/2), midp = FALSE, gamma = 0 (no Berger-Boos step), EplusM = FALSE,
# tiebreak = FALSE, control = ucControl() (nCIgrid = 500, nPgrid = 100, power2 = 20). It reports
# p2 - p1; p_value is its two-sided p-value of p2 - p1 = 0. Run by hand:
#   R_LIBS=<library with exact2x2> Rscript exact2x2_uncond_reference.R
# CI reads exact2x2_uncond.csv only.
suppressMessages(library(exact2x2))
f <- function(x) format(unname(x), digits = 17)
tables <- expand.grid(x1 = 0:4, x2 = 0:6)
tables$n1 <- 4; tables$n2 <- 6; tables$cl <- 0.95
more <- list()
for (cl in c(0.95, 0.90)) for (nn in list(c(1, 1), c(1, 5), c(10, 12), c(15, 15), c(25, 8), c(30, 30))) {
  n1 <- nn[1]; n2 <- nn[2]
  for (x1 in unique(c(0, 1, n1 %/% 3, n1))) for (x2 in unique(c(0, n2 %/% 2, n2 - 1, n2)))
    more[[length(more) + 1]] <- data.frame(x1 = x1, x2 = x2, n1 = n1, n2 = n2, cl = cl)
}
tables <- rbind(tables, do.call(rbind, more))
rows <- list()
for (i in seq_len(nrow(tables))) {
  t <- tables[i, ]
  r <- uncondExact2x2(t$x1, t$n1, t$x2, t$n2, parmtype = "difference", method = "score",
                      conf.int = TRUE, conf.level = t$cl)
  rows[[i]] <- data.frame(k1 = t$x1, n1 = t$n1, k2 = t$x2, n2 = t$n2, conf_level = t$cl,
                          lower_p2_minus_p1 = f(r$conf.int[1]), upper_p2_minus_p1 = f(r$conf.int[2]),
                          p_value = f(r$p.value))
}
write.csv(do.call(rbind, rows), "exact2x2_uncond.csv", row.names = FALSE, quote = FALSE)
writeLines(c(paste("exact2x2", packageVersion("exact2x2")), R.version.string,
             "uncondExact2x2(x1, n1, x2, n2, parmtype = 'difference', method = 'score', conf.int = TRUE, conf.level = cl)"),
           "exact2x2_uncond_versions.txt")
