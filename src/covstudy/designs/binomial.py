"""The binomial design: a test set of n examples, each correct with probability p.

The number of correct predictions k ~ Binomial(n, p); its outcome space is k = 0..n, the
same for every p, so every p of one n is generated as one batch and every method's
interval table over k = 0..n is computed once per (method, n, delta) and shared.

Simulation only ever needs the histogram of k over ``reps`` test sets, because k is a
sufficient statistic for every interval method. Two samplers draw that histogram:

- ``"replicates"``: draw the ``reps`` values of k one by one and count them (cost ∝ reps);
- ``"histogram"``: draw the histogram at once from Multinomial(reps, Binomial(n, p) pmf)
  (cost ∝ the support of the pmf, whatever reps). The counts of ``reps`` independent
  Binomial(n, p) draws *are* Multinomial(reps, pmf) distributed, so both samplers give the
  same distribution of results; they consume the random stream differently, so their
  numbers for one seed differ.

Each p's stream is keyed by (design, n, p) (seeds.py).
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special

from .._lazy import stats
from ..seeds import stream
from ..estimands import Estimand, register_estimand
from .base import Axis, Design, Outcomes, Segment
from .registry import register
from .sampling import BLOCK as _BLOCK
from .support import bucket, window, window_pmf

SAMPLERS = ("auto", "histogram", "replicates")
_LOG_TINY = 700.0  # k with n·KL(k/n ‖ p) > this have pmf(k) < e^-700 ≈ 1e-304
N_LIMIT = 10_000_000  # largest n of Monte Carlo: a simulated histogram has n + 1 entries
EXACT_N_LIMIT = 1_000_000_000  # largest n of the exact engine: a point's support (support.window) then
# holds at most ~270,000 counts (at p = 0.5), ~1 CPU-s of Clopper-Pearson intervals
TRIM_FROM = 10_000  # exact points of larger n work on the support only; below, the whole table costs < 1 ms


@register
class Binomial(Design):
    name = "binomial"
    data = "count"
    axes = (Axis("n", True, 1), Axis("p", False, 0.0, 1.0))
    parametrisations = (("n", "p"),)
    estimand = "accuracy"
    summary = "k ~ Binomial(n, p): n examples, each correct with probability p"
    example = {"n": 12, "p": 0.3}

    def points(self, grid: dict) -> list[dict]:
        return [{"n": n, "p": p} for n in grid["n"] for p in grid["p"]]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        n = point["n"]
        if not exact and n > N_LIMIT:
            return f"n: Monte Carlo in the binomial design needs n <= {N_LIMIT:,} (a histogram has n + 1 entries), " \
                   f"got {n:,}; the exact engine takes n <= {EXACT_N_LIMIT:,}"
        if exact and n > EXACT_N_LIMIT:
            return f"n: exact binomial coverage needs n <= {EXACT_N_LIMIT:,}, got {n:,}"
        return None

    @staticmethod
    def _support(point: dict) -> int:
        lo, hi = window(point["n"], point["p"])
        return int(hi[0] - lo[0] + 1)

    def table_key(self, point: dict) -> tuple:
        return (point["n"],)

    def batch_key(self, point: dict):
        n = point["n"]
        if n + 1 <= TRIM_FROM:
            return n
        # Points whose supports overlap are generated together (one range of k for all of them).
        return n, bucket(n, point["p"])

    def outcome_count(self, point: dict) -> int:
        # Monte Carlo histograms have n + 1 entries; beyond N_LIMIT only the exact engine runs.
        return point["n"] + 1 if point["n"] <= N_LIMIT else 3 * self._support(point)

    def stream_identity(self, point: dict) -> dict:
        return {"design": "binomial", "n": point["n"], "p": point["p"]}

    def truth_inputs(self, point: dict) -> dict:
        return {"p": point["p"]}

    def table_columns(self, key: tuple) -> dict:
        return {"k": np.arange(key[0] + 1), "n": key[0]}

    def expected(self, axes: dict, size: float) -> dict:
        return {"k": size * axes["p"], "n": size}

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        n = points[0]["n"]
        p = np.array([pt["p"] for pt in points])
        if n + 1 <= TRIM_FROM:
            return self._outcomes(n, binomial_pmf(n, p))
        # The support only (support.py): the k carrying all but BOUND of each point's probability.
        lo, hi = window(n, p)
        lo, hi = int(lo.min()), int(hi.max())
        k = np.arange(lo, hi + 1)
        return Outcomes({"k": k, "n": n}, window_pmf(n, p, lo, hi), (Segment((n,), slice(None), k),))

    def simulate(self, points: list[dict], reps: int, seed: int, sampler: str = "auto") -> Outcomes:
        n = points[0]["n"]
        return self._outcomes(n, binomial_counts(n, np.array([pt["p"] for pt in points]), reps, seed, sampler))

    def _outcomes(self, n: int, weight: np.ndarray) -> Outcomes:
        return Outcomes(self.table_columns((n,)), weight, (Segment((n,), slice(None)),))


def binomial_pmf(n: int, p: np.ndarray) -> np.ndarray:
    """Exact outcome probabilities, shape (len(p), n + 1): Binomial(k; n, p) for k = 0..n.

    In log space relative to the mode m = floor((n + 1)p), whose probability comes from
    scipy: pmf(k) = pmf(m)·exp(log C(n, k) - log C(n, m) + (k - m)·logit p). The log-binomial
    coefficients are kept in extended precision (``_log_choose``) so that their difference
    is exact to rounding; the rest is one exp per value, ~10x cheaper than scipy's binom.pmf
    and within ~1e-14 (relative) of it where the pmf exceeds 1e-300. p = 0 and 1 are point masses.
    """
    p = np.atleast_1d(np.asarray(p, dtype=float))
    inner = (p > 0) & (p < 1)
    k_float = np.arange(n + 1, dtype=float)
    high, low = _log_choose(n)
    out = np.zeros((len(p), n + 1))
    rows = np.flatnonzero(inner)
    step = max(1, _BLOCK // (n + 1))  # rows at a time, to bound the temporaries
    for s in range(0, rows.size, step):
        r = rows[s:s + step]
        q = p[r]
        mode = np.minimum(np.floor((n + 1) * q), n).astype(np.int64)
        logit = np.log(q) - np.log1p(-q)
        # ((high - high_m) + (low - low_m)) + (k - m)·logit p, in place: a third fewer passes over memory
        log_ratio = high - high[mode][:, None]
        term = low - low[mode][:, None]
        log_ratio += term
        np.subtract(k_float, mode[:, None].astype(float), out=term)  # exact: whole numbers below 2^53
        term *= logit[:, None]
        log_ratio += term
        np.exp(log_ratio, out=log_ratio)
        log_ratio *= stats.binom.pmf(mode, n, q)[:, None]
        if r.size == len(p):  # every row at once (the usual case): no copy
            return log_ratio
        out[r] = log_ratio
    for row in np.flatnonzero(~inner):
        out[row, round(n * p[row])] = 1.0
    return out


@functools.lru_cache(maxsize=16)
def _log_choose(n: int) -> tuple[np.ndarray, np.ndarray]:
    """log C(n, k) for k = 0..n as a sum high + low of two doubles (read-only, cached per n).

    Cumulative sums of log((n - j)/(j + 1)) in numpy's extended precision, split so that
    differences (high_k - high_m) + (low_k - low_m) keep the precision that log C(n, k)
    itself (up to ~n·0.7) would lose in one double."""
    j = np.arange(n, dtype=np.longdouble)
    exact = np.concatenate([np.zeros(1, dtype=np.longdouble), np.cumsum(np.log(n - j) - np.log(j + 1))])
    high = exact.astype(float)
    low = (exact - high).astype(float)
    high.setflags(write=False)
    low.setflags(write=False)
    return high, low


def choose_sampler(n: int, reps: int) -> str:
    """The faster sampler for (n, reps): per replicate when reps is small next to n.

    The histogram sampler costs about 0.1 µs per outcome k = 0..n plus the pmf on its
    support; drawing replicates costs about 0.05-0.2 µs each. The choice depends only on
    (n, reps), so results stay reproducible from the arguments.
    """
    return "replicates" if reps < 2 * (n + 1) else "histogram"


def binomial_counts(n: int, p, reps: int, seed: int, sampler: str = "auto") -> np.ndarray:
    """Histogram over k = 0..n of ``reps`` simulated test sets (each k ~ Binomial(n, p)).

    Shape ``np.shape(p) + (n + 1,)``: one histogram per p. Each p has its own stream,
    keyed by the grid point (n, p), so its histogram is the same whichever other points or
    methods are computed. ``sampler`` is ``"histogram"``, ``"replicates"`` or ``"auto"``
    (:func:`choose_sampler`); see the module docstring.
    """
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    if sampler == "auto":
        sampler = choose_sampler(n, reps)
    p_flat = np.asarray(p, dtype=float).reshape(-1)
    rngs = [stream(seed, design="binomial", n=n, p=pi) for pi in p_flat.tolist()]
    if sampler == "histogram":
        hists = [_multinomial(n, lo, pmf, reps, rng) for (lo, pmf), rng in zip(_supported_pmf(n, p_flat), rngs)]
    else:
        hists = [_replicates(n, pi, reps, rng) for pi, rng in zip(p_flat.tolist(), rngs)]
    return np.stack(hists).reshape(np.shape(p) + (n + 1,))


def _replicates(n: int, p: float, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Draw k for every replicate, ``_BLOCK`` at a time, and count them."""
    hist = np.zeros(n + 1, dtype=np.int64)
    for start in range(0, reps, _BLOCK):
        k = rng.binomial(n, p, size=min(_BLOCK, reps - start))
        hist += np.bincount(k, minlength=n + 1)
    return hist


def _supported_pmf(n: int, p: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """For each p, ``(lo, pmf)``: Binomial(k; n, p) for k = lo..hi, the non-negligible support.

    pmf(k) <= exp(-n·KL(k/n ‖ p)) (the Chernoff / method-of-types bound), so the k with
    n·KL > 700 carry total mass below (n + 1)·1e-304 and are left out. n·KL is convex in
    k, so the rest is the contiguous range lo..hi. One scipy call evaluates every row.
    """
    k = np.arange(n + 1, dtype=float)
    lo = np.zeros(len(p), dtype=np.int64)
    hi = np.full(len(p), n, dtype=np.int64)
    step = max(1, _BLOCK // (n + 1))  # rows per block, to bound memory
    for s in range(0, len(p), step):
        q = p[s:s + step, None]
        with np.errstate(divide="ignore", invalid="ignore"):  # p = 0 or 1 is set below
            n_kl = special.xlogy(k, k / (n * q)) + special.xlogy(n - k, (n - k) / (n * (1 - q)))
        inside = n_kl <= _LOG_TINY
        lo[s:s + step] = np.argmax(inside, axis=1)
        hi[s:s + step] = n - np.argmax(inside[:, ::-1], axis=1)
    point = (p == 0) | (p == 1)  # a point mass at k = n·p
    lo[point] = hi[point] = np.rint(n * p[point])
    sizes = hi - lo + 1
    k_all = np.concatenate([np.arange(a, b + 1) for a, b in zip(lo.tolist(), hi.tolist())])
    pmf_all = stats.binom.pmf(k_all, n, np.repeat(p, sizes))
    return list(zip(lo.tolist(), np.split(pmf_all, np.cumsum(sizes)[:-1])))


def _multinomial(n: int, lo: int, pmf: np.ndarray, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Histogram over k = 0..n of Multinomial(reps, pmf) placed at k = lo, lo + 1, ...

    Dropping the k outside the support changes the draw with probability below
    reps·(n + 1)·1e-304, far under the precision of the pmf itself. numpy draws a
    multinomial as a chain of conditional binomials Binomial(left, p_j / mass not yet
    visited), tracking that mass by subtraction; visiting both tails first and the mode
    last keeps it >= pmf(mode), so every conditional probability keeps full relative precision.
    """
    mode = int(np.argmax(pmf))
    order = np.concatenate((np.arange(mode), np.arange(len(pmf) - 1, mode - 1, -1)))  # mode last
    hist = np.zeros(n + 1, dtype=np.int64)
    hist[lo + order] = rng.multinomial(reps, pmf[order] / pmf.sum())
    return hist


@register_estimand("count", "accuracy", takes=("proportion",))
class Accuracy(Estimand):
    """p of the binomial design: proportion methods on (k, n)."""

    def truth(self, inputs: dict) -> float:
        return inputs["p"]

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((columns["k"], columns["n"]), delta, side, **params)
