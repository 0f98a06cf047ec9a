# Generates tests/data/propcis_paired.csv and propcis_unpaired.csv (run from the repository root after
# building PropCIs from source: R CMD INSTALL -l /tmp/rlib <PropCIs source>). Not needed by the tests.
# PropCIs' paired functions take (b, c, n) and return the interval of (c - b)/n: the opposite sign of
# acc_first - acc_second when b = only_first and c = only_second; the file stores them as returned.
suppressMessages(library(PropCIs, lib.loc = "/tmp/rlib"))
ver <- as.character(packageVersion("PropCIs", lib.loc = "/tmp/rlib"))
rows <- list()
for (n in c(4, 9, 17)) for (b in 0:n) for (c in 0:(n - b)) {
  w <- diffpropci.Wald.mp(b, c, n, 0.95)$conf.int
  am <- diffpropci.mp(b, c, n, 0.95)$conf.int
  rows[[length(rows) + 1]] <- data.frame(n = n, b = b, c = c, wald_lower = w[1], wald_upper = w[2],
                                         am_lower = am[1], am_upper = am[2])
}
out <- do.call(rbind, rows)
con <- file("tests/data/propcis_paired.csv", "w")
writeLines(sprintf("# PropCIs %s (built from github:cran/PropCIs), R %s, 95%%: diffpropci.Wald.mp(b, c, n, 0.95) and diffpropci.mp(b, c, n, 0.95) (Agresti-Min), b = only_first, c = only_second; intervals of (c - b)/n as PropCIs returns them", ver, getRversion()), con)
write.csv(format(out, digits = 15), con, row.names = FALSE, quote = FALSE)
close(con)
rows <- list()
for (n1 in c(3, 10)) for (n2 in c(4, 12)) for (k1 in 0:n1) for (k2 in 0:n2) {
  ac <- wald2ci(k1, n1, k2, n2, 0.95, adjust = "AC")$conf.int
  sc <- diffscoreci(k1, n1, k2, n2, 0.95)$conf.int
  rows[[length(rows) + 1]] <- data.frame(k1 = k1, n1 = n1, k2 = k2, n2 = n2, ac_lower = ac[1], ac_upper = ac[2],
                                         score_lower = sc[1], score_upper = sc[2])
}
out <- do.call(rbind, rows)
con <- file("tests/data/propcis_unpaired.csv", "w")
writeLines(sprintf("# PropCIs %s (built from github:cran/PropCIs), R %s, 95%%: wald2ci(k1, n1, k2, n2, 0.95, adjust='AC') and diffscoreci(k1, n1, k2, n2, 0.95)", ver, getRversion()), con)
write.csv(format(out, digits = 15), con, row.names = FALSE, quote = FALSE)
close(con)
