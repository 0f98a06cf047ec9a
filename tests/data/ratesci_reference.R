# Generates tests/data/ratesci_unpaired.csv and ratesci_paired.csv (run from the repository root after
# building ratesci from source: R CMD INSTALL -l /tmp/rlib <ratesci source>). Not needed by the tests.
suppressMessages(library(ratesci, lib.loc = "/tmp/rlib"))
ver <- as.character(packageVersion("ratesci", lib.loc = "/tmp/rlib"))
rows <- list()
for (n1 in c(3, 10, 25)) for (n2 in c(4, 12)) {
  g <- expand.grid(k1 = 0:n1, k2 = 0:n2)
  for (i in seq_len(nrow(g))) {
    k1 <- g$k1[i]; k2 <- g$k2[i]
    mee <- scoreci(x1 = k1, n1 = n1, x2 = k2, n2 = n2, skew = FALSE, bcf = FALSE, precis = 10)$estimates
    mn <- scoreci(x1 = k1, n1 = n1, x2 = k2, n2 = n2, skew = FALSE, bcf = TRUE, precis = 10)$estimates
    sc <- scoreci(x1 = k1, n1 = n1, x2 = k2, n2 = n2, skew = TRUE, bcf = TRUE, precis = 10)$estimates
    nw <- moverci(x1 = k1, n1 = n1, x2 = k2, n2 = n2, type = "wilson", precis = 10)$estimates
    rows[[length(rows) + 1]] <- data.frame(k1 = k1, n1 = n1, k2 = k2, n2 = n2,
      mee_lower = mee[1, "lower"], mee_upper = mee[1, "upper"],
      mn_lower = mn[1, "lower"], mn_upper = mn[1, "upper"],
      scas_lower = sc[1, "lower"], scas_upper = sc[1, "upper"],
      newcombe_lower = nw[1, "lower"], newcombe_upper = nw[1, "upper"])
  }
}
out <- do.call(rbind, rows)
con <- file("tests/data/ratesci_unpaired.csv", "w")
writeLines(sprintf("# ratesci %s (built from github:cran/ratesci), R %s, 95%%: scoreci(x1, n1, x2, n2, skew=FALSE, bcf=FALSE) (Mee), skew=FALSE, bcf=TRUE (Miettinen-Nurminen), skew=TRUE, bcf=TRUE (SCAS); moverci(type='wilson') (Newcombe method 10); precis=10", ver, getRversion()), con)
write.csv(format(out, digits = 12), con, row.names = FALSE, quote = FALSE)
close(con)
rows <- list()
for (n in c(4, 9, 17)) for (a in 0:n) for (b in 0:(n - a)) for (c in 0:(n - a - b)) {
  x <- c(a, b, c, n - a - b - c)
  tg <- pairbinci(x = x, contrast = "RD", method = "Score", skew = FALSE, bcf = FALSE, precis = 10)$estimates
  sc <- pairbinci(x = x, contrast = "RD", method = "Score", skew = TRUE, bcf = TRUE, precis = 10)$estimates
  nw <- pairbinci(x = x, contrast = "RD", method = "MOVER_newc", moverbase = "wilson", precis = 10)$estimates
  bp <- pairbinci(x = x, contrast = "RD", method = "BP", precis = 10)$estimates
  rows[[length(rows) + 1]] <- data.frame(both = a, only_first = b, only_second = c, neither = n - a - b - c,
    tango_lower = tg[1, "lower"], tango_upper = tg[1, "upper"],
    scas_lower = sc[1, "lower"], scas_upper = sc[1, "upper"],
    newcombe_lower = nw[1, "lower"], newcombe_upper = nw[1, "upper"],
    bp_lower = bp[1, "lower"], bp_upper = bp[1, "upper"])
}
out <- do.call(rbind, rows)
con <- file("tests/data/ratesci_paired.csv", "w")
writeLines(sprintf("# ratesci %s (built from github:cran/ratesci), R %s, 95%%: pairbinci(x=c(both, only_first, only_second, neither), contrast='RD', precis=10) with method='Score', skew=FALSE, bcf=FALSE (Tango); method='Score', skew=TRUE, bcf=TRUE (SCAS); method='MOVER_newc', moverbase='wilson' (Newcombe method 10); method='BP' (Bonett-Price)", ver, getRversion()), con)
write.csv(format(out, digits = 12), con, row.names = FALSE, quote = FALSE)
close(con)
