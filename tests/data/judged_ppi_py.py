"""Generates tests/data/judged_ppi_py.json: ppi_py's own intervals on fixed binary data.

Run by hand with ppi_py installed (pip install ppi-python):
    python tests/data/judged_ppi_py.py > tests/data/judged_ppi_py.json
Each case is a labelled 2×2 table (tp, fn, fp, tn: Y and the judge's label Ŷ) and the unlabelled
judge labels (u_pos ones, u_neg zeros), expanded into the arrays ppi_py takes (Y, Yhat,
Yhat_unlabeled). The values are ppi_py's, computed by its code; covstudy's kernels
(methods/judged.py) are checked against them in tests/test_judged.py. Not imported by the suite.
"""

import json
import platform

import numpy as np
from importlib.metadata import version
from ppi_py import classical_mean_ci, ppi_mean_ci

rng = np.random.default_rng(44)
CASES = [(8, 2, 3, 7, 60, 40), (30, 5, 10, 55, 700, 300), (3, 1, 1, 5, 12, 30), (1, 0, 2, 9, 4, 95),
         (40, 1, 1, 8, 4000, 1000), (5, 5, 5, 5, 10, 10), (12, 6, 0, 2, 150, 25), (2, 9, 4, 35, 300, 2700)]
for _ in range(16):  # random tables and unlabelled sizes
    n = int(rng.integers(6, 200))
    cells = rng.multinomial(n, rng.dirichlet(np.ones(4)))
    M = int(rng.integers(1, 5000))
    u = int(rng.binomial(M, rng.uniform(0.05, 0.95)))
    CASES.append((*map(int, cells), u, M - u))


def arrays(tp, fn, fp, tn, u_pos, u_neg):
    y = np.array([1] * tp + [1] * fn + [0] * fp + [0] * tn, dtype=float)
    yhat = np.array([1] * tp + [0] * fn + [1] * fp + [0] * tn, dtype=float)
    unl = np.array([1] * u_pos + [0] * u_neg, dtype=float)
    return y, yhat, unl


out = {"provenance": {"package": "ppi-python", "version": version("ppi-python"), "python": platform.python_version(),
                      "numpy": np.__version__,
                      "calls": ["ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=alpha, lam=1)",
                                "ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=alpha)  # lam=None: PPI++ power tuning",
                                "classical_mean_ci(Y, alpha=alpha)"]},
       "cases": []}
for case in CASES:
    y, yhat, unl = arrays(*case)
    for alpha in (0.05, 0.1):
        ppi = ppi_mean_ci(y, yhat, unl, alpha=alpha, lam=1)
        tuned = ppi_mean_ci(y, yhat, unl, alpha=alpha)
        classical = classical_mean_ci(y, alpha=alpha)
        out["cases"].append({"counts": list(case), "alpha": alpha,
                             "ppi": [float(np.ravel(v)[0]) for v in ppi],
                             "ppi_plus_plus": [float(np.ravel(v)[0]) for v in tuned],
                             "classical": [float(np.ravel(v)[0]) for v in classical]})
print(json.dumps(out, indent=1))
