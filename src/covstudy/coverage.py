"""Coverage of a binomial interval method: exact by enumeration, or by Monte Carlo.

Exact:       C(p) = Σ_{k=0..n} Binomial(k; n, p) · 1[L(k) <= p <= U(k)]   (BCD 2001, eq. 2)
Monte Carlo: the same sum with the pmf replaced by the frequencies of k over ``reps``
             simulated test sets; MCSE = sqrt(C(1 - C)/reps).
The interval of every k = 0..n is computed once per (method, n, delta) and reused for every p.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import designs, validate
from .measures import measures
from .methods import get


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


def outcome_weights(n: int, p: np.ndarray, reps: int | None, seed: int | None,
                    sampler: str = "auto") -> np.ndarray:
    """Distribution of k = 0..n for each p, shape (len(p), n + 1): the pmf, or MC frequencies.

    ``sampler`` picks how the Monte Carlo histograms are drawn (see ``designs.binomial_counts``).
    """
    if reps is None:
        return designs.binomial_pmf(n, p)
    return designs.binomial_counts(n, np.atleast_1d(p), reps, seed, sampler) / reps


def coverage(method: str, n: int, p, delta: float = 0.05, reps: int | None = None,
             seed: int | None = None) -> CoverageResult:
    """Coverage, miss rates and width of ``method``'s 1 - delta interval at sample size n and truth p.

    ``reps=None`` computes them exactly; an integer ``reps`` estimates them from that many
    simulated test sets, reproducibly from ``seed`` (each p has its own stream, so
    results for one p do not depend on the other p's). ``seed=None`` draws fresh entropy
    and records it in the result.
    """
    m = get(method)
    n = int(validate.counts("n", n, minimum=1).reshape(-1)[0]) if np.ndim(n) == 0 else _scalar_error("n")
    p_arr = validate.unit_interval("p", p, open_=False)
    if p_arr.ndim > 1:
        raise ValueError(f"p must be a number or a 1-d array, got shape {p_arr.shape}")
    if np.ndim(delta) != 0:
        _scalar_error("delta")
    d = float(validate.delta(delta))
    if reps is not None:
        if np.ndim(reps) != 0:
            _scalar_error("reps")
        reps = int(validate.counts("reps", reps, minimum=1))
        seed = np.random.SeedSequence().entropy if seed is None else validate.seed(seed)
    else:
        seed = None

    k = np.arange(n + 1)
    lower, upper = m.kernel(k, n, d)
    p_vec = np.atleast_1d(p_arr)
    result = measures(outcome_weights(n, p_vec, reps, seed), lower, upper, p_vec, reps)
    if p_arr.ndim == 0:
        result = {name: float(v[0]) for name, v in result.items()}
        p_out = float(p_arr)
    else:
        p_out = p_arr
    engine = "exact" if reps is None else "mc"
    return CoverageResult(m.name, n, p_out, d, engine, reps, seed, **result)


def _scalar_error(name: str):
    raise ValueError(f"{name} must be a single number")
