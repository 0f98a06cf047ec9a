"""Coverage of a binomial interval method: exact by enumeration, or by Monte Carlo.

Exact:       C(p) = Σ_{k=0..n} Binomial(k; n, p) · 1[L(k) <= p <= U(k)]   (BCD 2001, eq. 2)
Monte Carlo: the same sum with the pmf replaced by the frequencies of k over ``reps``
             simulated test sets; MCSE = sqrt(C(1 - C)/reps).
The interval of every k = 0..n is computed once per (method, n, delta) and reused for every p.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import designs, validate
from .measures import measures
from .methods import SIDES, get, side_message


@dataclass(frozen=True)
class CoverageResult:
    """Performance of one method at (n, p, delta); fields are arrays over p when p is an array."""

    method: str
    n: int
    p: float | np.ndarray
    delta: float
    engine: str  # "exact" or "mc"
    reps: int | None  # simulated test sets (None for exact)
    seed: int | None  # study seed of the Monte Carlo streams (None for exact)
    coverage: float | np.ndarray
    mcse: float | np.ndarray
    miss_low: float | np.ndarray  # P(p < lower)
    miss_high: float | np.ndarray  # P(p > upper)
    mean_width: float | np.ndarray
    sd_width: float | np.ndarray
    side: str = "two-sided"  # "two-sided", "lower" (coverage P(p >= lower)) or "upper" (P(p <= upper))
    params: dict = field(default_factory=dict)  # the method's parameters, defaults filled in


def outcome_weights(n: int, p: np.ndarray, reps: int | None, seed: int | None,
                    sampler: str = "auto") -> np.ndarray:
    """Distribution of k = 0..n for each p, shape (len(p), n + 1): the pmf, or MC frequencies.

    ``sampler`` picks how the Monte Carlo histograms are drawn (see ``designs.binomial_counts``).
    """
    if reps is None:
        return designs.binomial_pmf(n, p)
    return designs.binomial_counts(n, np.atleast_1d(p), reps, seed, sampler) / reps


def coverage(method: str, n: int, p, delta: float = 0.05, reps: int | None = None,
             seed: int | None = None, side: str = "two-sided", **params) -> CoverageResult:
    """Coverage, miss rates and width of ``method``'s 1 - delta interval at sample size n and truth p.

    ``side="lower"`` or ``"upper"`` evaluates the one-sided 1 - delta bound instead (the
    other end is 0 or 1, so coverage is P(p >= lower) or P(p <= upper)); ``params`` are
    the method's parameters, e.g. ``coverage("bayes", 50, 0.2, a=2, b=2, side="lower")``.

    ``reps=None`` computes them exactly; an integer ``reps`` estimates them from that many
    simulated test sets, reproducibly from ``seed`` (each p has its own stream, so
    results for one p do not depend on the other p's). ``seed=None`` draws fresh entropy
    and records it in the result.
    """
    m = get(method)
    if side not in SIDES:
        raise ValueError(side_message(side))
    params = m.validate_params(params)
    n = int(validate.counts("n", validate.scalar("n", n), minimum=1))
    p_arr = validate.unit_interval("p", p, open_=False)
    if p_arr.ndim > 1:
        raise ValueError(f"p must be a number or a 1-d array, got shape {p_arr.shape}")
    d = float(validate.delta(validate.scalar("delta", delta)))
    reps, seed = validate.reps_and_seed(reps, seed)

    k = np.arange(n + 1)
    lower, upper = m.bounds(k, n, d, side, **params)
    p_vec = np.atleast_1d(p_arr)
    result = measures(outcome_weights(n, p_vec, reps, seed), lower, upper, p_vec, reps)
    if p_arr.ndim == 0:
        result = {name: float(v[0]) for name, v in result.items()}
        p_out = float(p_arr)
    else:
        p_out = p_arr
    engine = "exact" if reps is None else "mc"
    return CoverageResult(m.name, n, p_out, d, engine, reps, seed, **result, side=side, params=params)

