"""A certified lower bound of the worst exact coverage over a box of parameters, by branch and bound.

Exact coverage at parameters x is a sum over outcomes o of probability × indicator,

    C(x) = Σ_o P_x(o) · 1[L(o) <= θ(x) <= U(o)],

where every outcome's probability is a product of binomial terms, each in one coordinate of x:
P_x(o) = Π_f Binomial(k_f(o); m_f(o), x_{a(f)}) (stratified: tp ~ Bin(n_pos, tpr) and
tn ~ Bin(n_neg, tnr); paired: discordant ~ Bin(n, d), only_first | discordant ~ Bin(discordant, r),
and, for the methods that read the concordant split, both | concordant ~ Bin(n − discordant, s)).

On a cell (a sub-box) [lo, hi]:

* θ is monotone in each coordinate (balanced accuracy, precision, npv and F1 in (tpr, tnr)) or
  multilinear (the paired difference d(2r − 1)), so its range over the cell is its range over the
  cell's corners; between two consecutive interval ends (a *stretch* of θ) the covered outcomes are
  fixed, so C on the cell is at least the least, over the stretches its θ range meets, of the covered
  mass g_J(x) = Σ_{o covered in J} P_x(o);
* first order: a binomial pmf is unimodal in its probability (largest at k/m), so its minimum over
  [lo_a, hi_a] is at an end; g_J is at least the sum of the factors' minima's products;
* second order: g_J is at least its least value at the cell's corners less Σ_j h_j²/8·max|∂²g_J/∂x_j²|
  (the error of multilinear interpolation), ∂²P/∂x² = P·(s² + s') with s the factor's binomial score,
  bounded by the outcome's largest probability over the cell; when the outcomes are the whole outcome
  space (Σ P = 1) the covered curvature equals minus the uncovered one, a far smaller sum.

The larger of the two is the cell's bound B(cell) <= C(x) for every x in it. Branch and bound: cut the
box into GRID × GRID cells, evaluate exact C at their centres, the corners and the plug-in point; split
(along the coordinate where it is widest in standard deviations of its binomial factor) every cell whose bound is below the lowest coverage
found minus ``tol`` and evaluate C at the halves' centres; stop when no cell is below, or when ``work``
outcome evaluations are spent, or (with ``decide``) as soon as the bound is at least each threshold or a
point below it is found: the decision a recommendation needs, not the bound's last digits. The certified bound is the least bound over the cells (the infimum over the box is at least
that), the worst coverage the lowest point found (the infimum is at most that; C jumps where θ crosses
an interval end, so the infimum may be a one-sided limit, approached by ever smaller cells).
``tests/test_certify.py`` checks bounds against exact coverage over dense grids and inside random cells.

Outcomes outside every point's support (designs/support.py, less than 1e-15 of the probability) are
left out; that only lowers the bound, and changes a point's coverage by less than 1e-15.
Flow: metrics (the box) -> audit (calls ``certify``) -> recommend; no design or method lives here,
only their intervals and binomial factors (built by ``stratified_problem`` and ``paired_problem``).
Long because the cell bound, the search, the row-wise exact sums (``Rows``) and the two designs'
problems share one outcome representation (``Factor``, ``Problem``); split, each would re-derive it.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import special

TOL = 1e-4  # stop once the certified bound is within this of the worst point found
WORK = 2_000_000_000  # budget: outcome operations counted by ``Problem.work`` (seconds at 50,000 outcomes)
BATCH_ELEMENTS = 4_000_000  # cells × outcomes held at once
GRID = 8  # first cut: cells along each coordinate
GRID_CELLS = 4096  # at most this many first cells
BRANCH = 1024  # cells split at once
NEGLIGIBLE = 1e-18  # outcomes whose largest probability over a batch of cells is below this are left out of its bounds
COMPLETE = 20_000  # up to this many outcomes the whole space is enumerated (a far tighter second-order bound)
CERTIFIED_DIMENSIONS = 2  # beyond, this cell bound costs too many outcomes (paired with the concordant split: ~40,000
# at n = 60); that box has its own (``certify_concordant``)


class Factor:
    """Binomial(k; m, x[axis]) for every outcome (arrays over the outcomes), computed once per
    distinct (k, m) and spread to the outcomes."""

    def __init__(self, k, m, axis: int):
        self.k, self.m, self.axis = np.asarray(k), np.asarray(m), axis

    @functools.cached_property
    def _pairs(self):
        """(distinct k, their m, log C(m, k), each outcome's index among them): made on first use only, as
        ``Rows`` and ``grid_search`` never use the outcome-wise factors (a 2-D unique of 400,000 pairs)."""
        if self.m.size and np.all(self.m == self.m.flat[0]):  # one number of trials: a 1-D unique
            k, at = np.unique(self.k, return_inverse=True)
            m = np.full(k.shape, self.m.flat[0])
        else:
            pairs, at = np.unique(np.stack([self.k, self.m]), axis=1, return_inverse=True)
            k, m = pairs
        k, m = k.astype(float), m.astype(float)
        return k, m, special.gammaln(m + 1) - special.gammaln(k + 1) - special.gammaln(m - k + 1), at.ravel()

    _k = property(lambda self: self._pairs[0])
    _m = property(lambda self: self._pairs[1])
    _log_choose = property(lambda self: self._pairs[2])
    _at = property(lambda self: self._pairs[3])

    def _log(self, p) -> np.ndarray:
        """log C(m, k) + k·log p + (m - k)·log(1 - p) for p of shape (cells, 1) or (cells, pairs): xlogy's
        and xlog1py's numbers (0·log 0 = 0); for one p a cell, the logarithms are taken once a cell, not
        once a (cell, pair)."""
        if p.shape[-1] != 1:  # a p per pair (``log_pmf_most``'s modes): elementwise
            with np.errstate(divide="ignore", invalid="ignore"):
                return self._log_choose + special.xlogy(self._k, p) + special.xlog1py(self._m - self._k, -p)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_p, log_q = special.xlogy(1.0, p), special.xlog1py(1.0, -p)  # scipy's log and log1p, as xlogy's
            k, rest = self._k, self._m - self._k
            out = self._log_choose + k * log_p
            out += rest * log_q
        edge = ~np.isfinite(log_p[:, 0]) | ~np.isfinite(log_q[:, 0])  # p = 0 or 1 (or NaN): xlogy's convention
        if edge.any():
            with np.errstate(divide="ignore", invalid="ignore"):
                out[edge] = self._log_choose + special.xlogy(k, p[edge]) + special.xlog1py(rest, -p[edge])
        return out

    def log_pmf(self, p: np.ndarray) -> np.ndarray:
        """log Binomial(k; m, p) for p of shape (cells,): shape (cells, outcomes); 0·log 0 = 0."""
        return self._log(np.asarray(p, dtype=float)[:, None])[:, self._at]

    def log_pmf_most(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """log of the largest pmf over p in [lo, hi]: at the mode k/m, clipped into the range."""
        mode = np.where(self._m > 0, self._k / np.maximum(self._m, 1), 0.0)
        p = np.clip(mode[None, :], np.asarray(lo, dtype=float)[:, None], np.asarray(hi, dtype=float)[:, None])
        return self._log(p)[:, self._at]

    def curvature(self, p: np.ndarray) -> np.ndarray:
        """|s² + s'| at p (cells, outcomes), s = k/p - (m - k)/(1 - p): ∂²pmf/∂p² = pmf·(s² + s').
        s² and |s'| are largest at an end of any interval, so their sum at both ends bounds it."""
        p = np.asarray(p, dtype=float)[:, None]
        k, rest = self._k, self._m - self._k
        with np.errstate(divide="ignore", invalid="ignore"):
            a, b = k / p, rest / (1 - p)
            da, db = k / p ** 2, rest / (1 - p) ** 2
            # a term of a zero count is 0: only a zero (or underflowing, or NaN) denominator makes it 0/0
            edge = ~(p[:, 0] ** 2 > 0) | ~((1 - p[:, 0]) ** 2 > 0)
            if edge.any():
                for v, c in ((a, k), (b, rest), (da, k), (db, rest)):
                    v[edge] = np.where(c > 0, v[edge], 0.0)
        return ((a - b) ** 2 + da + db)[:, self._at]


@dataclass(frozen=True)
class Problem:
    """Exact coverage over a box: the outcomes' intervals and probability factors, θ and the box."""

    names: tuple[str, ...]  # the box's coordinates
    low: np.ndarray  # (d,)
    high: np.ndarray  # (d,)
    lower: np.ndarray  # (outcomes,) interval ends
    upper: np.ndarray
    factors: tuple[Factor, ...]
    estimand: Callable[[np.ndarray], np.ndarray]  # x (cells, d) -> θ (cells,); monotone or multilinear
    complete: bool = False  # the outcomes are the whole outcome space (their probabilities sum to 1 everywhere)
    # or a product of count windows: (axis, first count, last count, trials) per axis; Σ P over them is then
    # Π_j P(window_j), whose curvature ``window_curvature`` bounds
    windows: tuple = ()
    # stratified outcomes as a (tp, tn) rectangle whose interval ends rise with tn in every row: exact
    # coverage at a point in O(rows·log columns) (``Rows``), not O(outcomes)
    rows: "Rows | None" = None
    # a coordinate θ does not read (the paired design's concordant split s): on a tensor grid the coverage is then
    # a matrix product over it (``coverage_grid``), every point of the other coordinates sharing its covered set
    free: int | None = None

    def theta(self, x: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(self.estimand(x), dtype=float)

    def probability(self, x: np.ndarray) -> np.ndarray:
        """P_x(o), shape (cells, outcomes)."""
        log = sum(f.log_pmf(x[:, f.axis]) for f in self.factors)
        return np.exp(log)

    def _count(self, work: float) -> None:
        """Add to the work done (outcome operations), which ``certify``'s budget reads."""
        self.__dict__["_work"] = self.__dict__.get("_work", 0.0) + work

    @property
    def work(self) -> float:
        return self.__dict__.get("_work", 0.0)

    def coverage(self, x: np.ndarray) -> np.ndarray:
        """C(x) at points x (cells, d); NaN where θ is undefined."""
        t = self.theta(x)
        if self.rows is not None:
            self._count(len(x) * self.rows.work)
            return np.where(np.isfinite(t), self.rows.coverage(x, np.nan_to_num(t)), np.nan)
        self._count(len(x) * self.lower.size * (len(self.factors) + 2))
        covered = (self.lower <= t[:, None]) & (t[:, None] <= self.upper)
        out = np.einsum("ij,ij->i", self.probability(x), covered.astype(float))
        return np.where(np.isfinite(t), out, np.nan)

    def mean_width(self, x: np.ndarray) -> np.ndarray:
        return self.probability(x) @ (self.upper - self.lower)

    def bound(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """B(cell) for cells [lo, hi] (cells, d): a lower bound of C over each cell (module docstring),
        the larger of a first-order and a second-order one."""
        d = lo.shape[1]
        corners = np.array(list(itertools.product((0, 1), repeat=d)), dtype=bool)  # (2^d, d)
        xs = np.where(corners[None], hi[:, None, :], lo[:, None, :])  # (cells, 2^d, d)
        t = self.theta(xs.reshape(-1, d)).reshape(len(lo), -1)
        t_min, t_max = t.min(1), t.max(1)  # NaN (θ undefined somewhere): bound 0
        ends = self._ends
        window = (np.searchsorted(ends, t_min, side="right"), np.searchsorted(ends, t_max, side="left"))
        # The outcomes that can matter on these cells: largest probability over them at least NEGLIGIBLE.
        # Leaving the others out lowers every covered sum below (a valid bound); their curvature, which
        # the second-order bound must count, is at most NEGLIGIBLE·(the sum of their scores' terms).
        most = sum(f.log_pmf_most(lo[:, f.axis], hi[:, f.axis]) for f in self.factors)
        keep = np.flatnonzero(most.max(0) >= np.log(NEGLIGIBLE))
        most = np.exp(most[:, keep])
        self._count(len(lo) * (keep.size * (len(self.factors) * 4 + 2 ** d + 4) + self.lower.size))
        local = self._local(keep, window)
        at_lo = [f.log_pmf(lo[:, f.axis])[:, keep] for f in self.factors]
        at_hi = [f.log_pmf(hi[:, f.axis])[:, keep] for f in self.factors]
        # First order: every outcome at its least probability over the cell.
        least = np.exp(sum(np.minimum(a, b) for a, b in zip(at_lo, at_hi)))
        first = local(least).min(1)
        # Second order, per stretch J of θ between interval ends: g_J = Σ_{covered} P_x(o) on a box is at
        # least its least corner value less Σ_j h_j²/8·max|∂²g_J/∂x_j²| (the error of multilinear
        # interpolation); ∂²P/∂x_j² = P·(s² + s') with s the binomial score of the factor in x_j, so
        # |∂²g_J/∂x_j²| <= Σ_{covered} A_j(o), A_j = (largest P over the cell)·max|s² + s'|; and when the
        # outcomes are the whole space (Σ P = 1, so the covered and uncovered curvatures cancel)
        # <= Σ_{not covered} A_j(o), far smaller.
        corner = None
        for c in corners:
            w = np.exp(sum(b if c[f.axis] else a for f, a, b in zip(self.factors, at_lo, at_hi)))
            f_c = local(w)
            corner = f_c if corner is None else np.minimum(corner, f_c)
        error = np.zeros_like(corner)
        for f in self.factors:
            h = hi[:, f.axis] - lo[:, f.axis]
            curve = np.maximum(f.curvature(lo[:, f.axis]), f.curvature(hi[:, f.axis]))
            left_out = NEGLIGIBLE * np.nan_to_num(curve.sum(1), nan=np.inf, posinf=np.inf)
            curve = curve[:, keep]
            with np.errstate(invalid="ignore"):
                a = np.nan_to_num(most * curve, nan=np.inf, posinf=np.inf)
            covered = local(a, fill=0.0)
            if self.windows:  # Σ_W ∂²P = ∂²P(W_j)·Π_{i≠j} P(W_i): covered = that less the uncovered
                a_sum = a.sum(1) + window_curvature(*self.windows[f.axis][1:], lo[:, f.axis], hi[:, f.axis])
                with np.errstate(invalid="ignore"):
                    covered = np.fmin(covered, a_sum[:, None] - covered)
            elif self.complete:
                with np.errstate(invalid="ignore"):  # inf - inf: the covered sum (fmin skips the NaN)
                    covered = np.fmin(covered, a.sum(1)[:, None] - covered)
            error = error + np.where(h > 0, h * h / 8, 0.0)[:, None] * (covered + left_out[:, None])
        second = np.where(np.isfinite(corner), corner - np.nan_to_num(error, nan=np.inf), np.inf).min(1)
        out = np.maximum(first, second)
        point = window[0] > window[1]  # θ constant on the cell and equal to an end: the coverage there
        if point.any():
            covered = (self.lower[keep] <= t_min[point, None]) & (t_min[point, None] <= self.upper[keep])
            out[point] = np.einsum("ij,ij->i", least[point], covered.astype(float))
        return np.where(np.isfinite(t_min) & np.isfinite(t_max), np.maximum(out, 0.0), 0.0)

    def split(self, lo: np.ndarray, hi: np.ndarray, trials: np.ndarray) -> np.ndarray:
        """The coordinate to halve each cell along: where the bound loses most, the width in standard deviations
        of its binomial factor, h·sqrt(m/(x(1 - x)))."""
        centre = np.clip(0.5 * (lo + hi), 1e-9, 1 - 1e-9)
        return np.argmax((hi - lo) * np.sqrt(trials / (centre * (1 - centre))), axis=1)

    def _local(self, keep: np.ndarray, window):
        """f(w, fill) -> (cells, stretches): f_J = Σ_{o in keep} w_o·1[L_o < t < U_o] for t in each stretch J
        between consecutive distinct interval ends that the cell's θ range meets, ``fill`` beyond a cell's
        own stretches.

        In the stretch between the (i-1)th and ith ends (rank i = 0..K) the covered outcomes are those
        whose lower end has rank below i and upper end rank at least i; at an end itself the covered set
        contains both neighbours', so the open stretches suffice. From the first rank the cell meets, f
        changes only at the ranks of the kept outcomes' ends, by the mass whose lower end has that rank
        less the mass whose upper end has it."""
        from scipy import sparse

        first, last = window
        rank_lower, rank_upper = self._rank_lower[keep], self._rank_upper[keep]
        used = np.unique(np.concatenate([rank_lower, rank_upper]))  # the ranks where f can change
        m = keep.size
        steps = sparse.csr_matrix((np.concatenate([np.ones(m), -np.ones(m)]),
                                   (np.concatenate([np.arange(m)] * 2),
                                    np.concatenate([np.searchsorted(used, rank_lower),
                                                    np.searchsorted(used, rank_upper)]))), shape=(m, used.size))
        inside_start = ((rank_lower[None] < first[:, None]) & (rank_upper[None] >= first[:, None])).astype(float)
        # the changes at used ranks j with first <= j < last move f from rank j to rank j + 1 <= last
        begin, end = np.searchsorted(used, first, side="left"), np.searchsorted(used, last, side="left")
        span = np.maximum(end - begin, 0)
        reach = int(span.max()) if len(span) else 0
        at = np.minimum(begin[:, None] + np.arange(max(reach, 1)), max(used.size - 1, 0))
        inside = np.arange(max(reach, 1))[None] < span[:, None]

        def covered(w: np.ndarray, fill=np.inf) -> np.ndarray:
            start = np.einsum("ij,ij->i", w, inside_start)
            if reach == 0:
                return start[:, None]
            with np.errstate(invalid="ignore"):  # infinite curvature (a box end at 0 or 1): inf - inf, read as inf
                change = (steps.T @ w.T).T  # (cells, used ranks): the step of f at each
                f = start[:, None] + np.cumsum(np.where(inside, np.take_along_axis(change, at, axis=1), 0.0),
                                               axis=1)
            return np.nan_to_num(np.hstack([start[:, None], np.where(inside, f, fill)]), nan=np.inf)

        return covered

    @property
    def _ends(self) -> np.ndarray:
        """The distinct interval ends (sorted); each outcome's lower and upper end's rank among them."""
        ends = self.__dict__.get("_e")
        if ends is None:
            ends = np.unique(np.concatenate([self.lower, self.upper]))
            object.__setattr__(self, "_e", ends)
            object.__setattr__(self, "_rank_lower", np.searchsorted(ends, self.lower))
            object.__setattr__(self, "_rank_upper", np.searchsorted(ends, self.upper))
        return ends


class Rows:
    """Outcomes (r0 + i, c0 + j) of two independent binomials, Bin(i; m1, x1)·Bin(j; m2, x2), whose interval
    ends L[i, j], U[i, j] do not decrease in j: for any θ the covered outcomes of row i are the columns
    a_i <= j < b_i, a_i = #{j: U[i, j] < θ}, b_i = #{j: L[i, j] <= θ}, so

        C(x) = Σ_i Bin(r0 + i; m1, x1)·(F(c0 + b_i - 1) - F(c0 + a_i - 1)),  F the column pmf's running sum,

    with a_i and b_i by bisection in every row at once (the same comparisons as the outcome-wise sum)."""

    def __init__(self, lower, upper, r0, c0, m1, m2):
        self.lower, self.upper = lower, upper
        self.row = Factor(np.arange(r0, r0 + lower.shape[0]), np.full(lower.shape[0], m1), 0)
        self.col = Factor(np.arange(c0, c0 + lower.shape[1]), np.full(lower.shape[1], m2), 1)
        self.work = lower.shape[0] * (2 * int(np.ceil(np.log2(lower.shape[1] + 1))) + 4) + lower.shape[1]

    @staticmethod
    def monotone(lower, upper) -> bool:
        return bool(np.all(np.diff(lower, axis=1) >= 0) and np.all(np.diff(upper, axis=1) >= 0))

    @staticmethod
    def _count(ends, t, strict):
        """Per row i and point q: #{j: ends[i, j] < t[q]} (strict) or <= t[q], by bisection: (points, rows)."""
        rows, cols = ends.shape
        lo = np.zeros((len(t), rows), dtype=np.int64)
        hi = np.full((len(t), rows), cols, dtype=np.int64)
        r = np.arange(rows)[None, :]
        while np.any(lo < hi):
            mid = (lo + hi) // 2
            v = ends[r, np.minimum(mid, cols - 1)]
            below = (v < t[:, None]) if strict else (v <= t[:, None])
            go = (lo < hi) & below
            stay = (lo < hi) & ~below
            lo = np.where(go, mid + 1, lo)
            hi = np.where(stay, mid, hi)
        return lo

    def coverage(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        a = self._count(self.upper, t, strict=True)
        b = self._count(self.lower, t, strict=False)
        p_row = np.exp(self.row.log_pmf(x[:, 0]))  # (points, rows)
        running = np.concatenate([np.zeros((len(x), 1)), np.cumsum(np.exp(self.col.log_pmf(x[:, 1])), axis=1)], axis=1)
        mass = np.take_along_axis(running, b, axis=1) - np.take_along_axis(running, np.minimum(a, b), axis=1)
        return np.einsum("ij,ij->i", p_row, mass)


def window_curvature(first: int, last: int, m: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """An upper bound of |d²/dx² P(first <= K <= last)|, K ~ Binomial(m, x), over x in [lo, hi] (per cell).

    With F(k) = P(K <= k): dF(k)/dx = -m·Bin(k; m - 1, x), so d²F(k)/dx² = -m(m - 1)·(Bin(k - 1; m - 2, x)
    - Bin(k; m - 2, x)), and each pmf is at most its value at the mode k/(m - 2) clipped into the range.
    A window that reaches 0 or m has one end of probability 0 or 1: no curvature from it."""
    if m < 2:
        return np.zeros(len(lo))
    ks = ([first - 2, first - 1] if first > 0 else []) + ([last - 1, last] if last < m else [])
    if not ks:
        return np.zeros(len(lo))
    f = Factor(np.array(ks), np.full(len(ks), m - 2), 0)
    return float(m) * (m - 1) * np.exp(f.log_pmf_most(lo, hi)).sum(1)


@dataclass(frozen=True)
class Certified:
    """The search's answer: inf over the box of C lies in [bound, worst]."""

    bound: float  # certified lower bound of the infimum
    worst: float  # the lowest exact coverage found, at ``at``
    at: dict  # coordinate -> value
    cells: int  # cells bounded
    closed: bool  # worst - bound <= tol (else the budget ran out first)


def _batches(problem: Problem, values: np.ndarray, fn) -> np.ndarray:
    size = max(1, BATCH_ELEMENTS // max(1, problem.lower.size))
    return np.concatenate([fn(values[i:i + size]) for i in range(0, len(values), size)]) if len(values) else np.empty(0)


def certify(problem: Problem, start: np.ndarray | None = None, tol: float | None = None, work: float | None = None,
            grid: int | tuple = GRID, decide: tuple = (), probe: int | None = None) -> Certified:
    """Branch and bound over ``problem``'s box (module docstring). The box is first cut into ``grid``
    cells along each coordinate (or grid[j] along coordinate j; at most GRID_CELLS in all), whose centres and the ``start`` points
    (the plug-in point) give the first worst point. With ``decide`` (coverage thresholds), the search stops
    once every threshold is decided: the bound at least it (met), or a point below it (missed). ``probe``: exact
    coverage at the centres of only that many of each round's new cells, those of the lowest bounds (None: all;
    where ``start`` already holds the lowest point a search found and a point costs as much as a cell's bound)."""
    tol = TOL if tol is None else tol
    work = WORK if work is None else work
    d = len(problem.names)
    trials = np.array([max([1.0] + [float(f.m.max()) for f in problem.factors if f.axis == j]) for j in range(d)])
    low, high = problem.low.astype(float), problem.high.astype(float)
    g = [max(1, min(k, int(round(GRID_CELLS ** (1 / d))))) for k in np.broadcast_to(grid, (d,))]
    edges = [np.linspace(a, b, k + 1) if b > a else np.array([a, a]) for a, b, k in zip(low, high, g)]
    index = np.array(list(itertools.product(*(range(len(e) - 1) for e in edges))))
    lo = np.stack([edges[j][index[:, j]] for j in range(d)], axis=1)
    hi = np.stack([edges[j][index[:, j] + 1] for j in range(d)], axis=1)
    corners = np.where(np.array(list(itertools.product((0, 1), repeat=d)), dtype=bool), high, low)
    points = np.vstack([corners, 0.5 * (lo + hi)] + ([] if start is None else [np.atleast_2d(start)]))
    spent_before = problem.work
    best, best_at = np.inf, points[0]
    bounds = np.empty(0)
    pending_lo, pending_hi = lo, hi
    lo, hi = np.empty((0, d)), np.empty((0, d))
    while True:
        if len(points):
            c = _batches(problem, points, problem.coverage)
            if np.isfinite(c).any():
                i = int(np.nanargmin(np.where(np.isfinite(c), c, np.inf)))
                if c[i] < best:
                    best, best_at = float(c[i]), points[i]
        if len(pending_lo):
            new = _batches(problem, np.hstack([pending_lo, pending_hi]), lambda v: problem.bound(v[:, :d], v[:, d:]))
            lo, hi = np.vstack([lo, pending_lo]), np.vstack([hi, pending_hi])
            bounds = np.concatenate([bounds, new])
        spent = problem.work - spent_before
        active = np.flatnonzero(bounds < best - tol)
        if not active.size or spent >= work or decide and all(bounds.min() >= f or best < f for f in decide):
            break
        take = active[np.argsort(bounds[active], kind="stable")][:BRANCH]
        keep = np.ones(len(lo), dtype=bool)
        keep[take] = False
        a_lo, a_hi = lo[take], hi[take]
        rows = np.arange(len(take))
        axis = problem.split(a_lo, a_hi, trials)
        mid = 0.5 * (a_lo[rows, axis] + a_hi[rows, axis])
        left_hi, right_lo = a_hi.copy(), a_lo.copy()
        left_hi[rows, axis] = mid
        right_lo[rows, axis] = mid
        pending_lo, pending_hi = np.vstack([a_lo, right_lo]), np.vstack([left_hi, a_hi])
        points = 0.5 * (pending_lo + pending_hi)
        if probe is not None:  # the halves of the lowest cells (``take`` is sorted by bound)
            points = np.vstack([points[:len(take)][:probe // 2], points[len(take):][:probe - probe // 2]])
        lo, hi, bounds = lo[keep], hi[keep], bounds[keep]
    bound = float(min(bounds.min(), best))
    return Certified(bound, best, dict(zip(problem.names, map(float, best_at))), len(bounds), best - bound <= tol)


def coverage_grid(problem: Problem, axes: list) -> np.ndarray:
    """Exact coverage C(x) on the tensor grid axes[0] × axes[1] × ... (an array of that shape; NaN where θ is
    undefined), the same sums as ``Problem.coverage`` at each of its points. With a coordinate f that θ does not
    read (``Problem.free``), every point of the other coordinates has one covered set, so

        C[.., k] = Σ_o 1[L_o <= θ <= U_o]·Π_{j≠f} P_j(o; x_j) · P_f(o; axes[f][k])

    is a matrix product over the outcomes, (points of the others × outcomes) @ (outcomes × values of f): the
    probabilities computed once per axis value, not once per point (17³ points of the paired design at n = 150:
    ~1 CPU-s, against ~25 point by point). Outcomes below NEGLIGIBLE at every grid point are left out (less than
    1e-12 of coverage in all)."""
    axes = [np.asarray(a, dtype=float) for a in axes]
    d, f, size = len(axes), problem.free, problem.lower.size
    if f is None:
        x = np.array(np.meshgrid(*axes, indexing="ij")).reshape(d, -1).T
        return _batches(problem, x, problem.coverage).reshape([len(a) for a in axes])
    per_axis = []  # each outcome's factors of coordinate j at every value of axes[j]: (values, outcomes)
    for j, a in enumerate(axes):
        logs = [fac.log_pmf(a) for fac in problem.factors if fac.axis == j]
        per_axis.append(np.exp(sum(logs)) if logs else np.ones((len(a), size)))
    # outcomes whose probability is below NEGLIGIBLE at every point of the grid are left out (together less than
    # outcomes × 1e-18): a small grid around one point reads a small part of the outcomes
    most = np.ones(size)
    for e in per_axis:
        most *= e.max(0)
    keep = np.flatnonzero(most >= NEGLIGIBLE)
    lower, upper, size = problem.lower[keep], problem.upper[keep], keep.size
    per_axis = [e[:, keep] for e in per_axis]
    others = [j for j in range(d) if j != f]
    index = np.array(np.meshgrid(*[np.arange(len(axes[j])) for j in others], indexing="ij")).reshape(len(others), -1).T
    x = np.empty((len(index), d))
    for k, j in enumerate(others):
        x[:, j] = axes[j][index[:, k]]
    x[:, f] = axes[f][0]
    t = problem.theta(x)
    out = np.empty((len(index), len(axes[f])))
    step = max(1, BATCH_ELEMENTS // max(1, size))
    for i in range(0, len(index), step):
        part = slice(i, i + step)
        w = ((lower <= t[part, None]) & (t[part, None] <= upper)).astype(float)
        for k, j in enumerate(others):
            w *= per_axis[j][index[part, k]]
        out[part] = w @ per_axis[f].T
    problem._count(len(index) * size * (d + 2) + size * len(axes[f]) * len(index))
    out[~np.isfinite(t)] = np.nan
    return np.moveaxis(out.reshape([len(axes[j]) for j in others] + [len(axes[f])]), -1, f)


def grid_search(problem: Problem, start: np.ndarray | None = None, points: int = 8, rounds: int = 6,
                starts: int = 1) -> Certified:
    """The lowest exact coverage over a grid of ``points`` along each coordinate, then, from each of the
    ``starts`` lowest grid points, grids of five a side at half the spacing around the lowest point found,
    ``rounds`` times (coverage jumps wherever θ crosses an interval end, so it has many dips: several local
    searches find lower ones than one): searched, not certified (``bound`` NaN). For boxes of more than two
    coordinates, where a cell's bound costs too many outcomes. Each grid is a tensor grid (``coverage_grid``);
    the lowest found is at most the first grid's minimum."""
    low, high = problem.low.astype(float), problem.high.astype(float)
    axes = [np.linspace(a, b, points) for a, b in zip(low, high)]
    best, best_at, evaluated = np.inf, low, 0
    if start is not None:
        start = np.atleast_2d(np.asarray(start, dtype=float))
        c = problem.coverage(start)
        if np.isfinite(c).any():
            i = int(np.nanargmin(np.where(np.isfinite(c), c, np.inf)))
            best, best_at = float(c[i]), start[i]
    c = coverage_grid(problem, axes)
    evaluated += c.size
    flat = np.where(np.isfinite(c), c, np.inf).ravel()
    for i in np.argsort(flat, kind="stable")[:starts]:
        if not np.isfinite(flat[i]):
            break
        at = np.array([a[k] for a, k in zip(axes, np.unravel_index(int(i), c.shape))])
        low_here, step = float(flat[i]), (high - low) / (points - 1)
        for _ in range(rounds):
            step = step / 2
            local = [np.unique(np.clip(b + np.arange(-2, 3) * h, lo, hi)) for b, h, lo, hi in zip(at, step, low, high)]
            g = coverage_grid(problem, local)
            evaluated += g.size
            if np.isfinite(g).any():
                j = np.unravel_index(int(np.nanargmin(np.where(np.isfinite(g), g, np.inf))), g.shape)
                if g[j] < low_here:
                    low_here, at = float(g[j]), np.array([a[k] for a, k in zip(local, j)])
        if low_here < best:
            best, best_at = low_here, at
    return Certified(np.nan, best, dict(zip(problem.names, map(float, best_at))), evaluated, False)


def outcome_count(design: str, point: dict, box: dict, concordant: bool = False) -> int:
    """How many outcomes ``stratified_problem`` / ``paired_problem`` would enumerate over ``box`` (before
    building them): the product of the count windows (paired: the only-first windows summed over the
    discordant counts, times the concordant split's window when the method reads it)."""
    if design == "stratified":
        a = _proportion_window(point["n_pos"], *box["tpr"])
        b = _proportion_window(point["n_neg"], *box["tnr"])
        return int((a[1] - a[0] + 1).max() * (b[1] - b[0] + 1).max())
    from ..designs.support import window

    n = int(point["n"])
    lo_d, hi_d = _proportion_window(n, *box["d"])
    disc = np.arange(int(np.min(lo_d)), int(np.max(hi_d)) + 1)
    size = window(disc, box["r"][1])[1] - window(disc, box["r"][0])[0] + 1
    if concordant:
        c = n - disc
        size = size * (window(c, box["s"][1])[1] - window(c, box["s"][0])[0] + 1)
    return int(np.sum(size))


def _proportion_window(n, p_low, p_high, bound=None):
    """Counts 0..n of Binomial(n, p) carrying all but ``bound`` (support.BOUND) for every p in
    [p_low, p_high]: from the low end's window start to the high end's window end (both increase with p)."""
    from ..designs.support import BOUND, window

    lo, _ = window(n, p_low, bound or BOUND)
    _, hi = window(n, p_high, bound or BOUND)
    return np.asarray(lo), np.asarray(hi)


def _intervals(design: str, metric: str, method: str, columns: dict, delta: float):
    from ..designs import get_design
    from ..estimands import get_estimand

    d = get_design(design)
    est = get_estimand(d.data, metric)
    m = est.method(method)
    params = m.validate_params({})
    lower, upper = est.bounds(m, columns, delta, "two-sided", **params)
    size = np.shape(next(v for v in columns.values() if np.ndim(v)))
    return (np.array(np.broadcast_to(v, size), dtype=float) for v in (lower, upper))


def stratified_problem(method: str, metric: str, n_pos: int, n_neg: int, box: dict, delta: float,
                       bound=None) -> Problem:
    """The stratified design (tp ~ Bin(n_pos, tpr), tn ~ Bin(n_neg, tnr)) over the box
    {"tpr": (lo, hi), "tnr": (lo, hi)}; θ = the metric at prevalence n_pos/(n_pos + n_neg); the count
    windows carry all but ``bound`` (support.BOUND) of each class's probability over the box."""
    from ..designs.confusion import cells, truth

    (a_lo, a_hi), (b_lo, b_hi) = box["tpr"], box["tnr"]
    complete = (n_pos + 1) * (n_neg + 1) <= COMPLETE
    lo1, hi1 = (0, n_pos) if complete else _proportion_window(n_pos, a_lo, a_hi, bound)
    lo2, hi2 = (0, n_neg) if complete else _proportion_window(n_neg, b_lo, b_hi, bound)
    tp, tn = (a.ravel() for a in np.meshgrid(np.arange(int(np.min(lo1)), int(np.max(hi1)) + 1),
                                             np.arange(int(np.min(lo2)), int(np.max(hi2)) + 1), indexing="ij"))
    lower, upper = _intervals("stratified", metric, method, cells(n_pos, tp, n_neg, tn), delta)
    prevalence = n_pos / (n_pos + n_neg)

    def theta(x):
        try:
            return truth(metric, prevalence, x[:, 0], x[:, 1])
        except ValueError:  # undefined somewhere (precision at tpr = 0, tnr = 1): NaN there
            out = np.full(len(x), np.nan)
            ok = ~(((metric == "precision") & (x[:, 0] == 0) & (x[:, 1] == 1))
                   | ((metric == "npv") & (x[:, 1] == 0) & (x[:, 0] == 1)))
            if ok.any():
                out[ok] = truth(metric, prevalence, x[ok, 0], x[ok, 1])
            return out

    factors = (Factor(tp, np.full_like(tp, n_pos), 0), Factor(tn, np.full_like(tn, n_neg), 1))
    windows = () if complete else ((0, int(tp.min()), int(tp.max()), n_pos), (1, int(tn.min()), int(tn.max()), n_neg))
    shape = (int(tp.max() - tp.min()) + 1, int(tn.max() - tn.min()) + 1)  # tp outer, tn inner (meshgrid "ij")
    grid_lower, grid_upper = lower.reshape(shape), upper.reshape(shape)
    rows = (Rows(grid_lower, grid_upper, int(tp.min()), int(tn.min()), n_pos, n_neg)
            if Rows.monotone(grid_lower, grid_upper) else None)
    return Problem(("tpr", "tnr"), np.array([a_lo, b_lo]), np.array([a_hi, b_hi]), lower, upper, factors, theta,
                   complete, windows, rows)


def concordant_rows(n: int, m, first, s_range, bound: float):
    """Each outcome row (m discordant, ``first`` of them only-first) repeated over the both-correct counts b of
    the c = n − m concordant pairs in the window (all but ``bound`` of the probability) of the s range; returns
    (m, first, c, both), one entry per (m, first, b)."""
    from ..designs.support import window

    c = n - m
    b_lo, _ = window(c, s_range[0], bound)
    _, b_hi = window(c, s_range[1], bound)
    size = b_hi - b_lo + 1
    m, first, c = np.repeat(m, size), np.repeat(first, size), np.repeat(c, size)
    both = np.concatenate([np.arange(a, b + 1) for a, b in zip(b_lo, b_hi)])
    return m, first, c, both


def paired_problem(method: str, n: int, box: dict, delta: float, bound=None) -> Problem:
    """The paired design over the box {"d": discordant share, "r": only-first share of the discordant,
    "s": both-correct share of the concordant}: cells (both, only_first, only_second, neither) with
    probabilities ((1 − d)s, dr, d(1 − r), (1 − d)(1 − s)); θ = d(2r − 1), multilinear. Methods that read
    only the discordant pairs (the estimand's ``merge``) do not depend on s: it is left out. Windows as
    ``stratified_problem``'s."""
    from ..designs import get_design
    from ..designs.support import BOUND, window
    from ..estimands import get_estimand

    est = get_estimand(get_design("paired").data, "difference")
    concordant = est.merge(est.method(method)) is None
    names = ("d", "r", "s") if concordant else ("d", "r")
    complete = not concordant and (n + 1) * (n + 2) // 2 <= COMPLETE
    bound = bound or BOUND
    lo_d, hi_d = (0, n) if complete else _proportion_window(n, *box["d"], bound)
    disc = np.arange(int(np.min(lo_d)), int(np.max(hi_d)) + 1)
    if complete:
        a_lo, a_hi = np.zeros_like(disc), disc
    else:
        a_lo, _ = window(disc, box["r"][0], bound)
        _, a_hi = window(disc, box["r"][1], bound)
    size = a_hi - a_lo + 1
    m = np.repeat(disc, size)
    first = np.concatenate([np.arange(a, b + 1) for a, b in zip(a_lo, a_hi)])
    factors = [Factor(m, np.full_like(m, n), 0), Factor(first, m, 1)]
    if concordant:
        m, first, c, both = concordant_rows(n, m, first, box["s"], bound)
        factors = [Factor(m, np.full_like(m, n), 0), Factor(first, m, 1), Factor(both, c, 2)]
    else:
        both = n - m
    columns = {"both": both, "only_first": first, "only_second": m - first, "neither": n - m - both}
    lower, upper = _intervals("paired", "difference", method, columns, delta)
    low = np.array([box[k][0] for k in names])
    high = np.array([box[k][1] for k in names])
    return Problem(names, low, high, lower, upper, tuple(factors), lambda x: x[:, 0] * (2 * x[:, 1] - 1), complete,
                   free=2 if concordant else None)
