"""Reference max-t critical values for tests/test_leaderboard.py, computed once with scipy's multivariate
normal cdf (Genz & Bretz's algorithm, singular covariance allowed) and brentq; written to
tests/data/leaderboard_max_t_reference.csv. Run: python tests/data/leaderboard_max_t_reference.py
(k = 3 only: with k = 4 the 6 pairwise differences make scipy's integration too slow to root-find.)"""

import json
from pathlib import Path

import numpy as np
import scipy
from scipy import optimize, stats

COVS = {"identity3": np.eye(3), "general3": np.array([[1, .5, .2], [.5, 2, .3], [.2, .3, 1.5]])}


def critical(cov, delta):
    k = cov.shape[0]
    first, second = np.triu_indices(k, 1)
    C = np.zeros((first.size, k))
    C[np.arange(first.size), first], C[np.arange(first.size), second] = 1, -1
    S = C @ cov @ C.T
    R = S / np.sqrt(np.outer(np.diag(S), np.diag(S)))
    mvn = stats.multivariate_normal(np.zeros(len(R)), R, allow_singular=True, seed=2026)
    return optimize.brentq(lambda c: mvn.cdf(np.full(len(R), c), lower_limit=np.full(len(R), -c)) - (1 - delta),
                           1, 5, xtol=1e-5)


rows = ["name,delta,critical,cov"]
for name, cov in COVS.items():
    for delta in (0.05, 0.2):
        rows.append(f"{name},{delta},{critical(cov, delta):.6f},\"{json.dumps(cov.tolist())}\"")
out = Path(__file__).resolve().parent / "leaderboard_max_t_reference.csv"
out.write_text(f"# scipy {scipy.__version__} multivariate_normal.cdf (allow_singular) + brentq: tests/data/leaderboard_max_t_reference.py\n"
               + "\n".join(rows) + "\n")
print(out.read_text())
