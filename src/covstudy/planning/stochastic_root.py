"""A deterministic stochastic root-finder for the Monte Carlo planner (in the spirit of SimDesign's
``SimSolve``, Chalmers 2024): the smallest size n at which a noisy, monotone performance
curve f(n) crosses a target, with the answer's Monte Carlo uncertainty.

Each f(n) is estimated from its own simulated test sets, whose random stream is keyed by the
design point (seeds.stream), so an estimate depends on n, reps and the seed only, never on the
order in which the search visits sizes: the answer is a deterministic function of the inputs.

1. Bracket: from ``start``, double (or halve) n until the estimate crosses the target.
2. Fit a smooth model to the estimates at sizes spread over the bracket, then again at sizes
   within ±25% of the first root (the model only needs to hold locally):
   * ``"width"`` (a mean width, decreasing): log E[width] = a + b·log n, weighted least squares
     with the estimates' variances (sd_width²/reps, by the delta method on the log scale);
     E[width] ∝ n^(-1/2) for every interval of a rate, so the line fits over a bracket.
   * ``"rate"`` (P(width <= w), or coverage): successes out of reps, binomial with
     probit(P) = a + b·log n, fitted by Fisher scoring (maximum likelihood).
3. The root n* solves model = target; its standard error on the log scale is the delta
   method's, sqrt(gᵀ Σ g) with g = ∂ log n*/∂(a, b) and Σ the fit's covariance, giving a 95%
   interval n*·exp(±1.96·se). The planned size is ceil(n*).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._lazy import stats

Z95 = special.ndtri(0.975)  # = stats.norm.ppf(0.975), without importing scipy.stats


@dataclass(frozen=True)
class Root:
    """The fitted root ``n_star`` (real), its 95% interval and the sizes the fit used."""

    n_star: float
    low: float
    high: float
    fitted: tuple[int, ...]


def bracket(passes, start: int, n_min: int, n_max: int) -> tuple[int | None, int]:
    """(lo, hi): passes(hi), and lo = None (hi = n_min passes) or not passes(lo), hi <= 2·lo."""
    n = min(max(start, n_min), n_max)
    if passes(n):
        while n > n_min:
            lo = max(n_min, n // 2)
            if not passes(lo):
                return lo, n
            n = lo
        return None, n_min
    while n < n_max:
        hi = min(n_max, 2 * n)
        if passes(hi):
            return n, hi
        n = hi
    raise ValueError(f"n_max: the target is not met at n_max = {n_max:,}; raise n_max or relax the target")


def fit_width(n, mean, sd, reps: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of log E[width] = a + b·log n and their covariance, by weighted least squares."""
    x = np.column_stack([np.ones(len(n)), np.log(n)])
    y = np.log(mean)
    var = np.maximum(np.asarray(sd) ** 2 / reps, 1e-300) / np.asarray(mean) ** 2
    w = 1 / var
    cov = np.linalg.inv(x.T @ (x * w[:, None]))
    return cov @ (x.T @ (w * y)), cov


def fit_rate(n, successes, reps: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of probit P = a + b·log n and their covariance (inverse Fisher information), by
    Fisher scoring from the least-squares line through the clipped empirical probits."""
    x = np.column_stack([np.ones(len(n)), np.log(n)])
    s = np.asarray(successes, dtype=float)
    p_hat = np.clip(s / reps, 0.5 / reps, 1 - 0.5 / reps)
    beta = np.linalg.lstsq(x, stats.norm.ppf(p_hat), rcond=None)[0]
    for _ in range(100):
        eta = x @ beta
        p = np.clip(stats.norm.cdf(eta), 1e-12, 1 - 1e-12)
        phi = stats.norm.pdf(eta)
        w = reps * phi**2 / (p * (1 - p))
        info = x.T @ (x * w[:, None])
        score = x.T @ (reps * phi * (s / reps - p) / (p * (1 - p)))
        step = np.linalg.solve(info, score)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    eta = x @ beta
    p = np.clip(stats.norm.cdf(eta), 1e-12, 1 - 1e-12)
    w = reps * stats.norm.pdf(eta) ** 2 / (p * (1 - p))
    return beta, np.linalg.inv(x.T @ (x * w[:, None]))


def _root(beta, cov, level: float, increasing: bool, what: str) -> tuple[float, float]:
    """log n* and its standard error (delta method) where a + b·log n = level."""
    a, b = beta
    if (b > 0) != increasing or abs(b) < 2 * math.sqrt(cov[1, 1]):
        trend = "rise" if increasing else "fall"
        raise ValueError(f"{what}: the Monte Carlo estimates do not {trend} with n near the target "
                         f"(slope {b:.3g} ± {math.sqrt(cov[1, 1]):.2g}); the target may hold at every n or at none")
    log_n = (level - a) / b
    g = np.array([-1 / b, -log_n / b])
    return float(log_n), float(math.sqrt(max(g @ cov @ g, 0.0)))


def solve(estimate, kind: str, target: float, start: int, n_min: int, n_max: int, reps: int,
          what: str, points: int = 6) -> Root:
    """The root of the target (module docstring). ``estimate(n)`` returns the measure's
    estimate at n: for ``"width"`` a (mean, sd) pair, for ``"rate"`` the success count of reps."""
    increasing = kind == "rate"
    level = math.log(target) if kind == "width" else float(stats.norm.ppf(target))

    def passes(n):
        e = estimate(n)
        return e[0] <= target if kind == "width" else e / reps >= target

    lo, hi = bracket(passes, start, n_min, n_max)
    if lo is None:
        return Root(float(n_min), float(n_min), float(n_min), ())
    n_star = None
    sizes = np.unique(np.round(np.geomspace(lo, hi, points)).astype(np.int64))
    for stage in range(2):
        if stage:  # sizes within ±25% of the first root
            sizes = np.unique(np.clip(np.round(np.geomspace(n_star / 1.25, n_star * 1.25, points + 1)),
                                      n_min, n_max).astype(np.int64))
        if sizes.size < 3:  # a bracket of a few sizes: take every one of them
            sizes = np.arange(max(n_min, sizes[0] - 1), min(n_max, sizes[-1] + 1) + 1)
        values = [estimate(int(n)) for n in sizes]
        if kind == "width":
            beta, cov = fit_width(sizes, [v[0] for v in values], [v[1] for v in values], reps)
        else:
            beta, cov = fit_rate(sizes, values, reps)
        log_n, se = _root(beta, cov, level, increasing, what)
        n_star = min(max(math.exp(log_n), n_min), n_max)
    return Root(n_star, max(n_min, n_star * math.exp(-Z95 * se)), n_star * math.exp(Z95 * se),
                tuple(int(n) for n in sizes))
