# Provenance of proc_ci_se_asah.csv and asah_s100b.csv (tests/test_bands.py): pROC 1.18.0,
# R version 4.2.2 Patched (2022-11-10 r83330), Debian r-cran-proc; run from the repository root:
#   Rscript tests/data/proc_ci_se_asah.R
suppressMessages(library(pROC))
data(aSAH)
r <- roc(aSAH$outcome, aSAH$s100b, levels=c("Good","Poor"), direction="<", quiet=TRUE)
sp <- seq(0, 1, .1)
se <- coords(r, sp, input="specificity", ret="sensitivity")[,1]
set.seed(42)
ci <- ci.se(r, specificities=sp, boot.n=2000, conf.level=0.95, boot.stratified=TRUE)
out <- data.frame(specificity=sp, sensitivity=se, lower=ci[,1], median=ci[,2], upper=ci[,3])
write.csv(out, "tests/data/proc_ci_se_asah.csv", row.names=FALSE)
write.csv(data.frame(outcome=as.character(aSAH$outcome), s100b=aSAH$s100b), "tests/data/asah_s100b.csv", row.names=FALSE)
cat(as.character(packageVersion("pROC")), R.version.string, "\n")
