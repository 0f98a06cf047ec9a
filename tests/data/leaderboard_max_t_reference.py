"""Reference max-t critical values for tests/test_leaderboard.py, computed once with scipy's multivariate
normal cdf (Genz & Bretz's algorithm, singular covariance allowed) and brentq; written to
tests/data/leaderboard_max_t_reference.csv. Run: python tests/data/leaderboard_max_t_reference.py
(k = 3 only: with k = 4 the 6 pairwise differences make scipy's integration too slow to root-find.)
From k = 5 the reference is the 1 - delta quantile of 10⁶ pseudo-random draws of the maximum (seeded), with
its Monte Carlo standard error from the binomial count at the quantile (Maritz-Jarrett style: the draws'
quantiles at 1 - delta ± sqrt(delta(1 - delta)/N), half their distance)."""

import json
from pathlib import Path

import numpy as np
import scipy
from scipy import optimize, stats

COVS = {"identity3": np.eye(3), "general3": np.array([[1, .5, .2], [.5, 2, .3], [.2, .3, 1.5]])}
DRAWS = 10**6


def general(k, seed):
    """A general covariance A Aᵀ/k + 0.1 I, A standard normal (k × k) from ``seed``."""
    a = np.random.default_rng(seed).standard_normal((k, k))
    return a @ a.T / k + 0.1 * np.eye(k)


def accuracies(k, rho=0.3):
    """The covariance of k accuracies 0.6..0.9 whose correctness indicators correlate by ``rho``."""
    p = np.linspace(0.6, 0.9, k)
    v = np.sqrt(p * (1 - p))
    return np.outer(v, v) * (rho + (1 - rho) * np.eye(k))


MC_COVS = {"general5": general(5, 5), "general10": general(10, 10), "accuracies10": accuracies(10)}


def simulated(cov, delta, seed=2026):
    """(quantile, MCSE) of max_p |(C a)_p|/sd_p over DRAWS draws of a ~ N(0, cov), in blocks."""
    k = cov.shape[0]
    first, second = np.triu_indices(k, 1)
    C = np.zeros((first.size, k))
    C[np.arange(first.size), first], C[np.arange(first.size), second] = 1, -1
    sd = np.sqrt(np.diag(C @ cov @ C.T))
    root = np.linalg.cholesky(cov)
    rng = np.random.default_rng(seed)
    top = np.concatenate([np.abs(rng.standard_normal((DRAWS // 10, k)) @ root.T @ C.T / sd).max(1) for _ in range(10)])
    q, e = 1 - delta, np.sqrt(delta * (1 - delta) / DRAWS)
    lo, mid, hi = np.quantile(top, [q - e, q, q + e])
    return mid, (hi - lo) / 2


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


rows = ["name,delta,critical,mcse,cov"]
for name, cov in COVS.items():
    for delta in (0.05, 0.2):
        rows.append(f"{name},{delta},{critical(cov, delta):.6f},0,\"{json.dumps(cov.tolist())}\"")
for name, cov in MC_COVS.items():
    for delta in (0.05, 0.2):
        value, mcse = simulated(cov, delta)
        rows.append(f"{name},{delta},{value:.6f},{mcse:.6f},\"{json.dumps(cov.tolist())}\"")
out = Path(__file__).resolve().parent / "leaderboard_max_t_reference.csv"
out.write_text(f"# scipy {scipy.__version__} multivariate_normal.cdf (allow_singular) + brentq (mcse 0), or the quantile of "
               f"{DRAWS} numpy draws (mcse > 0): tests/data/leaderboard_max_t_reference.py\n"
               + "\n".join(rows) + "\n")
print(out.read_text())
