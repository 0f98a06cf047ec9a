"""Writes src/covstudy/designs/crossval_err.csv: Err and its MCSE at the committed studies' points
(crossval: LDA; crossval_logistic: logistic regression; and the design config's default point),
at the training sizes n and n - round(0.2·n) (the holdout's), so runs look them up instead of
drawing 20,000 training sets each time.

Each value is exactly what ``covstudy.designs.crossval.expected_error`` draws (its fixed stream
keyed by the point); tests/test_crossval.py recomputes some. Run: python experiments/crossval/err_table.py
"""

import csv
import itertools
from pathlib import Path

from covstudy.designs import crossval

OUT = Path(__file__).resolve().parents[2] / "src" / "covstudy" / "designs" / "crossval_err.csv"
POINTS = [*((*p, "lda") for p in itertools.product([50, 100, 200, 500, 1000], [5, 20], [0.05, 0.15, 0.3])),
          (100, 10, 0.15, "lda"),  # conf/study/crossval.yaml, conf/design/crossval.yaml
          *((*p, "logistic") for p in itertools.product([50, 100, 200], [10], [0.222, 0.325]))]  # crossval_logistic
PREVALENCE, RIDGE, HOLDOUT = 0.5, 0.01, 0.2


def main():
    rows = []
    for n, d, be, learner in POINTS:
        for size in (n, n - crossval.test_size(n, HOLDOUT)):
            err, mcse = crossval.draw_expected_error(size, d, be, PREVALENCE, RIDGE, 0.0, learner)
            rows.append([size, d, repr(be), repr(PREVALENCE), repr(RIDGE), repr(err), repr(mcse), learner])
    rows.sort(key=lambda r: (r[-1], r[1], float(r[2]), r[0]))  # LDA's rows first, as before the learner
    with OUT.open("w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["n", "d", "bayes_error", "prevalence", "ridge", "err", "mcse", "learner"])
        out.writerows(rows)


if __name__ == "__main__":
    main()
