"""Exact coverage as a function of p: the confidence coefficient and the average coverage.

For a proportion method with ends L(k), U(k), k = 0..n, the exact coverage

    C(p) = Σ_k Binomial(k; n, p) · 1[L(k) <= p <= U(k)]

jumps at every end and is smooth in between, so a grid of p misses the deepest dips, which
sit next to an end. Both quantities here are computed from the ends themselves.

Confidence coefficient, inf over p of C(p). Sort the distinct ends e_1 < ... < e_m and add the
range's limits. On an open piece (e_i, e_{i+1}) the covering set S_i = {k: L(k) <= e_i,
U(k) >= e_{i+1}} is fixed, so C is the polynomial Σ_{k∈S_i} Binomial(k; n, p) there; at an end
itself the set only grows (closed intervals), so C(e) is at least both one-sided limits and the
infimum is the smallest minimum of these polynomials over the closed pieces. For a contiguous
S = {a..b}, dC/dp = n[b_{n-1}(a-1; p) - b_{n-1}(b; p)] (b_{n-1} the Binomial(n - 1, p) pmf)
changes sign at most once, from + to -, because the ratio of the two pmfs is monotone in p:
C rises then falls, and its minimum on a piece is at one of the piece's ends. When L and U are
non-decreasing in k every S_i is contiguous. Otherwise (e.g. ``logit``, whose ends are not
monotone in k) the few k out of order are tracked apart, pieces whose set is not contiguous
are minimised numerically (a 65-point grid, then a bounded Brent search around its best point;
they are counted in ``irregular``), and contiguous ones keep the exact rule. At p = 0 and 1
(excluded) only one-sided limits count.

Average coverage, (1/(hi - lo)) ∫_lo^hi C(p) dp. With ∫ Binomial(k; n, p) dp over [l, u]
= [I_u(k+1, n-k+1) - I_l(k+1, n-k+1)]/(n + 1) (I the regularised incomplete Beta function),
every k contributes over [max(L(k), lo), min(U(k), hi)]; the average expected width
Σ_k (U(k) - L(k)) ∫_lo^hi Binomial(k; n, p) dp / (hi - lo) and the average miss rates follow
the same way. Over (0, 1) each ∫ is 1/(n + 1), so the average width is the mean of the n + 1
widths.

References: Brown, Cai & DasGupta (2001), "Interval estimation for a binomial proportion",
Statistical Science 16(2), 101-133 (coverage as a function of p, its oscillation and
minimum); Newcombe (1998), "Two-sided confidence intervals for the single proportion",
Statistics in Medicine 17, 857-872 (minimum and mean coverage over p).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special

from .._lazy import optimize, stats
from .. import validate
from ..methods import get

_GRID = 65  # points of the numerical search on a piece whose covering set is not contiguous
_CHUNK = 1 << 20  # entries of a pieces × out-of-order-k matrix at a time


@dataclass(frozen=True)
class ConfidenceCoefficient:
    """inf of the exact coverage C(p) over p in ``p_range``, and where it is reached.

    ``side`` says how: ``"left"``, the limit of C as p rises to ``at`` (C jumps up at ``at``);
    ``"right"``, the limit as p falls to ``at``; ``"at"``, attained at p = ``at``.

    Examples
    --------
    >>> from covstudy import confidence_coefficient
    >>> r = confidence_coefficient("wilson", n=50, delta=0.05)
    >>> round(r.value, 5), round(r.at, 7), r.side, round(float(r), 5)
    (0.83755, 0.0035393, 'left', 0.83755)
    """

    value: float
    at: float
    side: str  # "left", "right" or "at"
    method: str
    n: int
    delta: float
    interval_side: str  # the interval's side: "two-sided", "lower" or "upper"
    p_range: tuple[float, float]
    endpoints: int  # distinct interval ends inside p_range that were examined
    irregular: int = 0  # pieces minimised numerically (covering set not contiguous)
    params: dict = field(default_factory=dict)

    def __float__(self) -> float:
        return self.value


@dataclass(frozen=True)
class AverageCoverage:
    """Averages over p uniform on ``p_range`` of the exact coverage, miss rates and expected width.

    Examples
    --------
    >>> from covstudy import average_coverage
    >>> a = average_coverage("wilson", n=50, delta=0.05)
    >>> round(a.value, 5), round(a.mean_width, 5)
    (0.95178, 0.21294)
    """

    value: float  # (1/(hi - lo)) ∫ C(p) dp
    mean_width: float  # (1/(hi - lo)) ∫ E_p[U - L] dp
    miss_low: float  # (1/(hi - lo)) ∫ P_p(p < L) dp
    miss_high: float  # (1/(hi - lo)) ∫ P_p(p > U) dp
    method: str
    n: int
    delta: float
    interval_side: str
    p_range: tuple[float, float]
    params: dict = field(default_factory=dict)

    def __float__(self) -> float:
        return self.value


EXACT_N_MAX = 10**6  # measured: Wilson's confidence coefficient takes 0.5 GB at 10⁶, 3.4 GB and minutes at 10⁷
# Methods whose n + 1 ends are solved by root finding on incomplete Beta functions whose cost
# grows with n: Blaker's table takes 3.8 CPU-s at n = 10⁵ and grows ~n^1.5 (about 2 min at 10⁶).
N_MAX_BY_METHOD = {"blaker": 2 * 10**5}


def ends(method: str, n: int, delta: float = 0.05, side: str = "two-sided", k_range=None, **params):
    """``(lower, upper)`` of every k = 0..n, arrays of length n + 1 (arguments validated); with
    ``k_range`` = (first, last) of k = first..last only (the size limits then apply to their count)."""
    m = get(method, "proportion")
    full = m.prepare(side, params)
    n = int(validate.counts("n", validate.scalar("n", n), minimum=1))
    first, last = (0, n) if k_range is None else (max(0, int(k_range[0])), min(n, int(k_range[1])))
    if last - first > EXACT_N_MAX:
        raise ValueError(f"n: exact curves take n <= {EXACT_N_MAX:,} (a table of n + 1 intervals: ~0.5 GB and "
                         f"~20 s for Wilson there), got {n:,}")
    if k_range is None and n > N_MAX_BY_METHOD.get(m.name, EXACT_N_MAX):
        raise ValueError(f"n: exact curves of {m.name} take n <= {N_MAX_BY_METHOD[m.name]:,} (its n + 1 intervals "
                         f"are solved by root finding: ~10 CPU-s there, ~2 min at 10⁶), got {n:,}")
    d = float(validate.delta(validate.scalar("delta", delta)))
    k = np.arange(first, last + 1)
    lower, upper = m.bounds((k, n), d, side, **full)
    return (m, n, d, full, np.array(np.broadcast_to(lower, k.shape), dtype=float),
            np.array(np.broadcast_to(upper, k.shape), dtype=float))


def confidence_coefficient(method: str, n: int, delta: float = 0.05, side: str = "two-sided",
                           p_range=(0.0, 1.0), **params) -> ConfidenceCoefficient:
    """The exact confidence coefficient inf_{p ∈ p_range} C(p) of ``method`` at n and delta
    (module docstring): the lowest coverage over p, found from the interval ends, not a grid.

    Cost: one interval table and four binomial tail evaluations per end (about 0.2 s at
    n = 10⁵); n above 10⁶ (Blaker's: 2·10⁵, ``N_MAX_BY_METHOD``) is refused at once.

    Parameters
    ----------
    method : str
        A proportion method (``"wilson"``, ``"clopper_pearson"``, ``methods("proportion")``).
    n : int
        The test-set size, 1 to 1,000,000.
    delta : float
        The miss rate in (0, 1): the interval's level is 1 - delta.
    side : {"two-sided", "lower", "upper"}
        The interval's side.
    p_range : (float, float)
        The range of the true proportion p over which the infimum is taken.
    **params
        The method's parameters.

    Returns
    -------
    ConfidenceCoefficient
        ``.value`` (also ``float(result)``), the p where it is reached (``.at``) and from which
        side (``.side``: "left", "right" or "at").

    Examples
    --------
    >>> from covstudy import confidence_coefficient
    >>> c = confidence_coefficient("wilson", 20)
    >>> round(c.value, 4), round(c.at, 4), c.side
    (0.8366, 0.9911, 'right')
    >>> round(float(confidence_coefficient("clopper_pearson", 20)), 4) >= 0.95
    True
    """
    m, n, d, full, lower, upper = ends(method, n, delta, side, **params)
    lo, hi = validate.p_range(p_range)
    value, at, how, count, irregular = infimum(lower, upper, n, lo, hi)
    return ConfidenceCoefficient(value, at, how, m.name, n, d, side, (lo, hi), count, irregular, full)


def average_coverage(method: str, n: int, delta: float = 0.05, side: str = "two-sided",
                     p_range=(0.0, 1.0), **params) -> AverageCoverage:
    """The exact averages over p uniform on ``p_range`` of coverage, miss rates and expected
    width of ``method`` at n and delta (module docstring; incomplete Beta integrals).

    Parameters
    ----------
    method : str
        A proportion method (``"wilson"``, ``"clopper_pearson"``, ``methods("proportion")``).
    n : int
        The test-set size, 1 to 1,000,000.
    delta : float
        The miss rate in (0, 1): the interval's level is 1 - delta.
    side : {"two-sided", "lower", "upper"}
        The interval's side.
    p_range : (float, float)
        The range over which p is uniform; ``(lo, lo)`` gives the values at p = lo.
    **params
        The method's parameters.

    Returns
    -------
    AverageCoverage
        ``.value`` (the average coverage, also ``float(result)``), ``.mean_width``,
        ``.miss_low`` and ``.miss_high``.

    Examples
    --------
    >>> from covstudy import average_coverage
    >>> a = average_coverage("wilson", 20)
    >>> round(a.value, 4), round(a.mean_width, 4)
    (0.953, 0.3254)
    >>> round(float(average_coverage("clopper_pearson", 20, p_range=(0.8, 1.0))), 4)
    0.9844
    """
    m, n, d, full, lower, upper = ends(method, n, delta, side, **params)
    lo, hi = validate.p_range(p_range)
    if hi == lo:  # a single p: the average is the value there
        w = stats.binom.pmf(np.arange(n + 1), n, lo)
        cov = float(np.sum(w * ((lower <= lo) & (lo <= upper))))
        return AverageCoverage(cov, float(np.sum(w * (upper - lower))), float(np.sum(w * (lo < lower))),
                               float(np.sum(w * (lo > upper))), m.name, n, d, side, (lo, hi), full)
    k = np.arange(n + 1, dtype=float)

    def mass(a, b):  # ∫_a^b Binomial(k; n, p) dp, elementwise over k
        return _beta_mass(k, n, a, b)

    covered = mass(np.clip(lower, lo, hi), np.clip(upper, lo, hi))
    below = mass(np.full_like(k, lo), np.clip(lower, lo, hi))  # p < L(k)
    above = mass(np.clip(upper, lo, hi), np.full_like(k, hi))  # p > U(k)
    width = (upper - lower) * mass(np.full_like(k, lo), np.full_like(k, hi))
    scale = hi - lo
    return AverageCoverage(float(np.sum(covered) / scale), float(np.sum(width) / scale), float(np.sum(below) / scale),
                           float(np.sum(above) / scale), m.name, n, d, side, (lo, hi), full)


def _beta_mass(k, n, a, b):
    """∫_a^b Binomial(k; n, p) dp = [I_b(k+1, n-k+1) - I_a(k+1, n-k+1)]/(n+1), 0 where b <= a.

    Above ½ the complement I_x(α, β) = 1 - I_{1-x}(β, α) keeps the difference accurate near 1.
    """
    alpha, beta = k + 1, n - k + 1
    upper_half = a >= 0.5
    ia = np.where(upper_half, -special.betainc(beta, alpha, 1 - a), special.betainc(alpha, beta, a))
    ib = np.where(upper_half, -special.betainc(beta, alpha, 1 - b), special.betainc(alpha, beta, b))
    return np.where(b > a, (ib - ia) / (n + 1), 0.0)


def infimum(lower: np.ndarray, upper: np.ndarray, n: int, lo: float = 0.0, hi: float = 1.0, k0: int = 0):
    """``(value, at, side, endpoints, irregular)``: inf of C over [lo, hi] from the ends of
    k = k0, k0 + 1, ..., k0 + len(lower) - 1 (the other k count as never covering: the planner
    passes only the k with non-negligible probability somewhere in [lo, hi]).

    The work behind :func:`confidence_coefficient` (module docstring), for ends already computed.
    """
    if lo == hi:  # one point: C itself
        pmf = stats.binom.pmf(np.arange(k0, k0 + len(lower)), n, lo)
        return float(np.sum(pmf * ((lower <= lo) & (lo <= upper)))), lo, "at", 0, 0
    cover = _pieces(lower, upper, n, lo, hi, k0)
    left, right = cover.left, cover.right
    at_left, at_right = cover(np.arange(len(left)), left), cover(np.arange(len(left)), right)
    # Piece i's minimum: at an end if its covering set is contiguous (unimodality), else searched.
    best = np.minimum(at_left, at_right)
    where = np.where(at_left <= at_right, left, right)
    interior = np.zeros(len(left), dtype=bool)
    for i in np.flatnonzero(cover.irregular):
        value, p = cover.search(i)
        if value < best[i]:
            best[i], where[i], interior[i] = value, p, True
    i = int(np.argmin(best))
    value, at = float(best[i]), float(where[i])
    if interior[i]:
        how = "at"
    elif at == left[i]:  # right limit at left[i]: attained iff no U(k) == left[i] drops out there
        how = "at" if at > 0 and not np.any(upper == at) else "right"
    else:  # left limit at right[i]: attained iff no L(k) == right[i] enters there
        how = "at" if at < 1 and not np.any(lower == at) else "left"
    return value, at, how, len(left) - 1, int(np.sum(cover.irregular))


def _pieces(lower, upper, n, lo, hi, k0=0) -> _Cover:
    """The pieces (lo, e_1), (e_1, e_2), ..., (e_m, hi) between the distinct ends inside (lo, hi)."""
    inner = np.concatenate([lower, upper])
    inner = np.unique(inner[(inner > lo) & (inner < hi)])
    e = np.concatenate([[lo], inner, [hi]])
    return _Cover(lower, upper, n, e[:-1], e[1:], k0)


def coverage_curve(method: str, n: int, delta: float = 0.05, side: str = "two-sided", p_range=(0.0, 1.0),
                   points: int = 4, **params) -> tuple[np.ndarray, np.ndarray]:
    """The exact coverage curve ``(p, coverage)`` over ``p_range``, drawn as it is: on each piece
    between consecutive interval ends, its two one-sided limits at the ends and ``points``
    equally spaced points inside. Every end therefore appears twice (the limit from the left,
    then from the right), so a line through the points shows each jump as a vertical step.
    """
    _, n, _, _, lower, upper = ends(method, n, delta, side, **params)
    lo, hi = validate.p_range(p_range)
    if lo == hi:
        raise ValueError(f"p_range must have lo < hi for a curve, got ({lo:g}, {hi:g})")
    points = int(validate.counts("points", validate.scalar("points", points), minimum=0))
    cover = _pieces(lower, upper, n, lo, hi)
    frac = np.linspace(0.0, 1.0, points + 2)
    p = cover.left[:, None] + (cover.right - cover.left)[:, None] * frac  # pieces × (points + 2)
    p[:, -1] = cover.right  # the ends exactly
    rows = np.repeat(np.arange(len(cover.left)), points + 2)
    c = cover(rows, p.ravel())
    return p.ravel(), c


class _Cover:
    """C(p) on piece i = 1 - P(K <= b_i) - P(K >= a_i) - Σ_{k out of order, not covering} pmf(k; p).

    For p in piece i, ``{k: U(k) < p}`` is the prefix k <= b_i of the k whose running maximum
    of U is below p, plus the out-of-order k (U(k) below an earlier U) above b_i with U(k) <=
    the piece's left end; ``{k: L(k) > p}`` likewise the suffix k >= a_i of the running
    minimum of L from the right, plus out-of-order k below a_i with L(k) >= the right end.
    The two sets are disjoint (L <= U), so b_i < a_i. A piece is regular when it has no
    out-of-order k: its covering set is then {b_i + 1..a_i - 1}, contiguous (empty when
    a_i = b_i + 1, and then C = 0).
    """

    def __init__(self, lower, upper, n, left, right, k0=0):
        self.n, self.k0 = n, k0
        low_min = np.minimum.accumulate(lower[::-1])[::-1]  # min_{j >= k} L(j), non-decreasing
        up_max = np.maximum.accumulate(upper)  # max_{j <= k} U(j), non-decreasing
        # p in (left, right): L(k) > p  <=>  L(k) >= right;  U(k) < p  <=>  U(k) <= left
        self.a = np.searchsorted(low_min, right, side="left")  # first k with low_min >= right
        self.b = np.searchsorted(up_max, left, side="right") - 1  # last k with up_max <= left
        self.out_low = np.flatnonzero(lower > low_min)  # L out of order (index into the ends)
        self.out_up = np.flatnonzero(upper < up_max)  # U out of order
        self.low_ends, self.up_ends = lower[self.out_low], upper[self.out_up]
        self.left, self.right = left, right
        self.irregular = np.zeros(len(left), dtype=bool)
        step = max(1, _CHUNK // max(1, len(self.out_low) + len(self.out_up)))
        for s in range(0, len(left), step):
            low, up = self._extra(slice(s, s + step))
            self.irregular[s:s + step] = low.any(axis=1) | up.any(axis=1)

    def _extra(self, rows):
        """Masks (pieces × out-of-order k) of the extra non-covering k of each piece."""
        low = (self.out_low[None, :] < self.a[rows, None]) & (self.low_ends[None, :] >= self.right[rows, None])
        up = (self.out_up[None, :] > self.b[rows, None]) & (self.up_ends[None, :] <= self.left[rows, None])
        return low, up

    def __call__(self, rows: np.ndarray, p: np.ndarray) -> np.ndarray:
        """C at p[j] (an end of piece rows[j] or inside it), by the piece's covering set."""
        n, k0, p = self.n, self.k0, np.asarray(p, dtype=float)
        value = 1.0 - stats.binom.cdf(k0 + self.b[rows], n, p) - stats.binom.sf(k0 + self.a[rows] - 1, n, p)
        bad = np.flatnonzero(self.irregular[rows])
        if bad.size:
            low, up = self._extra(rows[bad])
            extra = (low * stats.binom.pmf(k0 + self.out_low[None, :], n, p[bad, None])).sum(axis=1)
            extra += (up * stats.binom.pmf(k0 + self.out_up[None, :], n, p[bad, None])).sum(axis=1)
            value[bad] -= extra
        return np.maximum(value, 0.0)

    def search(self, i: int) -> tuple[float, float]:
        """The smallest C found inside piece i: a grid, then Brent's bounded search around its best point."""
        a, b = self.left[i], self.right[i]
        grid = np.linspace(a, b, _GRID)[1:-1]
        values = self(np.full(grid.size, i), grid)
        j = int(np.argmin(values))
        lo, hi = (grid[j - 1] if j > 0 else a), (grid[j + 1] if j + 1 < grid.size else b)
        res = optimize.minimize_scalar(lambda x: float(self(np.array([i]), np.array([x]))[0]), bounds=(lo, hi),
                                       method="bounded", options={"xatol": 1e-12 * max(1.0, b)})
        if res.fun < values[j]:
            return float(res.fun), float(res.x)
        return float(values[j]), float(grid[j])


CURVE_N = 3  # exact curves are tabulated for at most this many n of a study (spread out, ends included)


def study_tables(methods, n_values, deltas, side: str, p_range, points: int = 4):
    """The tables a study with ``exact_curve: true`` writes beside results.csv.

    ``methods`` are (name, label, params) entries. Returns ``(summary, curves)``: one summary
    row per (label, n, delta) with the confidence coefficient over ``p_range`` (the study's p
    range), where and how it is reached, and the average coverage and width over it; and the
    exact curves (:func:`coverage_curve`) at up to ``CURVE_N`` of the n, one row per point.
    """
    import pandas as pd

    lo, hi = validate.p_range(p_range)
    n_values = sorted(n_values)
    idx = np.unique(np.round(np.linspace(0, len(n_values) - 1, min(CURVE_N, len(n_values)))).astype(int))
    curve_n = {n_values[i] for i in idx}
    rows, curves = [], []
    for name, label, params in methods:
        ident = {"method": name, "label": label, "params": ";".join(f"{k}={v}" for k, v in sorted(params.items())),
                 "side": side}
        for delta in deltas:
            for n in n_values:
                cc = confidence_coefficient(name, n, delta, side, (lo, hi), **params)
                avg = average_coverage(name, n, delta, side, (lo, hi), **params) if hi > lo else None
                rows.append({**ident, "n": n, "delta": delta, "p_lo": lo, "p_hi": hi,
                             "confidence_coefficient": cc.value, "at": cc.at, "approach": cc.side,
                             "endpoints": cc.endpoints, "irregular_pieces": cc.irregular,
                             "average_coverage": avg.value if avg else cc.value,
                             "average_width": avg.mean_width if avg else np.nan})
                if n in curve_n and hi > lo:
                    p, c = coverage_curve(name, n, delta, side, (lo, hi), points, **params)
                    curves.append(pd.DataFrame({"method": name, "label": label, "side": side, "n": n,
                                                "delta": delta, "p": p, "coverage": c}))
    curves = pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(
        columns=["method", "label", "side", "n", "delta", "p", "coverage"])
    return pd.DataFrame(rows), curves
