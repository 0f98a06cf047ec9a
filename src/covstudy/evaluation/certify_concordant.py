"""A certified lower bound of the worst exact coverage for the paired methods that read the concordant split.

paired ``newcombe`` and ``scas`` read all four cells (both, only_first, only_second, neither), so their coverage
depends on three coordinates (d, r, s) (``certify.paired_problem``) while θ = d(2r − 1) reads only (d, r). Write an
outcome o = (m, f, b): m discordant pairs, f of them only-first, b of the c = n − m concordant both-correct:

    C(d, r, s) = Σ_{m,f} Bin(m; n, d)·Bin(f; m, r)·Σ_b Bin(b; c, s)·1[L_o <= θ(d, r) <= U_o].

On a cell (a box of d, r and s) where θ ranges over [t1, t2] (its range over the four (d, r) corners: θ is bilinear):

* the outcomes with L_o <= t1 and t2 <= U_o are covered at every point of the cell; leaving the others out
  lowers C;
* for each (m, f) those b form runs a..e of consecutive counts, and a run's probability P(a <= B <= e),
  B ~ Bin(c, s), is quasi-concave in s: its derivative c·(Bin(a − 1; c − 1, s) − Bin(e; c − 1, s)) changes sign at
  most once, from + to −, as the ratio of the two terms is a constant times ((1 − s)/s)^(e − a + 1). So its least
  over [s_lo, s_hi] is at an end, and H_{m,f} = Σ_runs min(P_run(s_lo), P_run(s_hi)) is at most the concordant
  factor everywhere in the cell;
* what is left, g(d, r) = Σ_{m,f} Bin(m; n, d)·Bin(f; m, r)·H_{m,f}, is a two-coordinate sum with weights fixed in
  [0, 1], bounded over the (d, r) rectangle as ``certify.Problem.bound`` bounds a stretch: the larger of the sum of
  each term's least value (a pmf is unimodal in its probability) and the least corner value less
  Σ_j h_j²/8·max|∂²g/∂x_j²| (the error of bilinear interpolation). f runs over all of 0..m, so
  Σ_f Bin(f; m, r) = 1 and ∂²/∂r² of Σ_f Bin·H is minus that of Σ_f Bin·(1 − H); m runs over the d range's count
  window, whose own curvature ``certify.window_curvature`` bounds; either sum may be used, the smaller is.

Each step only lowers the bound, so B(cell) <= C on the cell; ``certify.certify`` runs its branch and bound with it
(the cell's cost is one pass over the outcomes, ~10 operations each, and a few over the (m, f) pairs). Splitting a
cell in d or r narrows [t1, t2] (fewer outcomes dropped) and the curvature term; in s, the run ends' loss, which is
small (~0.001 of coverage over the whole s range at n = 150): the first grid and ``split`` cut d and r far finer.
The outcomes with an interval end inside [t1, t2] are added back by a sweep over θ (``_boundary``), each at its
least probability over the cell, so the bound loses only what θ's range costs at second order (coverage of an
interval a fraction of a standard error off its truth) and needs cells about a tenth of θ̂'s standard error wide.
``tests/test_certify.py`` checks the bound against exact coverage on dense grids and inside random cells.
Flow: audit -> certify (the loop) with this problem -> recommend.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .certify import Factor, Problem, _intervals, _proportion_window, concordant_rows, window_curvature

CELL_OPS = 500  # a cell's (or a point's) fixed cost in outcome operations (certify's unit, cost.CERTIFY_RATE a
# second; the counts below are set so: 6.5e7 to 7.5e7 counted a second measured at n = 40 and 150, 1e8 at n = 7,
# where the fixed cost of 15 to 30 µs a cell is all)
FIRST_GRID = (16, 16, 2)  # certify's first cells along d, r and s: s loses little (``split``), θ's range most
PROBE = 64  # exact coverage at the centres of this many new cells a round (certify's ``probe``), after a search
# (at n = 60, 40/9/3/8, scas closed to 0.002 in 2.4·10⁸ operations, ~3.5 CPU-s; an 8³ first grid and every centre:
# 0.011 short after 5.6·10⁸)
SPLIT_S = 0.05  # s is halved when its width in standard deviations is over 1/SPLIT_S times θ's (``split``)


class ConcordantProblem(Problem):
    """``certify.Problem`` over (d, r, s) for a paired method reading the concordant split, its outcomes sorted by
    (m, f, b) with f over all of 0..m; ``bound`` is the module docstring's."""

    def _layout(self):
        """Built once: the outcomes' interval ends laid out with an uncovered slot before every (m, f) pair's b's and
        one at the end, so that no run of covered outcomes crosses a pair; each slot's b, c (its index among the
        distinct c) and pair; the pairs' factors; log C(c, b) on the rectangle of distinct c × the b's used."""
        got = self.__dict__.get("_lay")
        if got is None:
            m, f, b = (self.factors[j].k for j in range(3))
            c = self.factors[2].m
            new = np.r_[True, (m[1:] != m[:-1]) | (f[1:] != f[:-1])]
            pair = np.cumsum(new) - 1
            first = np.flatnonzero(new)
            pm, pf = m[first], f[first]
            n = int(self.factors[0].m.flat[0])
            slot = np.arange(m.size) + pair + 1  # pair g's outcomes shift by g + 1 slots
            size = m.size + len(first) + 1
            lower, upper = np.full(size, np.inf), np.full(size, -np.inf)  # the empty slots: never covered
            lower[slot], upper[slot] = self.lower, self.upper
            cs, c_at = np.unique(c, return_inverse=True)
            b_first, b_last = int(b.min()), int(b.max())
            values = np.arange(b_first, b_last + 1, dtype=float)
            with np.errstate(invalid="ignore"):
                log_choose = np.where(values[None] <= cs[:, None], special.gammaln(cs[:, None] + 1)
                                      - special.gammaln(values[None] + 1) - special.gammaln(cs[:, None] - values[None] + 1),
                                      -np.inf)
            at_slot = np.zeros(size, dtype=np.int64)
            at_slot[slot] = np.arange(m.size)
            got = dict(lower=lower, upper=upper, b=(b - b_first)[at_slot], c=c_at.ravel()[at_slot],
                       pair=pair[at_slot], pairs=len(first), cs=cs.astype(float), values=values,
                       log_choose=log_choose, by_m=Factor(pm, np.full_like(pm, n), 0), by_f=Factor(pf, pm, 1), n=n,
                       window=(int(pm.min()), int(pm.max())),
                       by_lower=np.argsort(self.lower, kind="stable"), by_upper=np.argsort(self.upper, kind="stable"),
                       log_choose_each=[fac._log_choose[fac._at] for fac in self.factors])
            got["c_each"], got["b_each"] = c_at.ravel(), b - b_first
            got["pair_first"], got["pair_each"] = first, pair
            got["sorted_lower"], got["sorted_upper"] = self.lower[got["by_lower"]], self.upper[got["by_upper"]]
            object.__setattr__(self, "_lay", got)
        return got

    def coverage(self, x: np.ndarray) -> np.ndarray:
        """C(x) at points x (points, 3), ``Problem.coverage``'s sums grouped: each (m, f) pair's probability times
        the mass of its covered runs of b (differences of Bin(c, s)'s running sums), not a product per outcome."""
        lay = self._layout()
        t = np.nan_to_num(self.theta(x))
        points, G = len(x), lay["pairs"]
        covered = (lay["lower"][None] <= t[:, None]) & (t[:, None] <= lay["upper"][None])
        row, where = np.nonzero(np.diff(covered.view(np.int8), axis=1))
        first, last, row = where[0::2] + 1, where[1::2], row[0::2]
        running = self._running(lay, x[:, 2])
        c = lay["c"][first]
        mass = running[row, c, lay["b"][last] + 1] - running[row, c, lay["b"][first]]
        inner = np.bincount(row * G + lay["pair"][first], weights=mass, minlength=points * G).reshape(points, G)
        probability = np.exp(lay["by_m"].log_pmf(x[:, 0]) + lay["by_f"].log_pmf(x[:, 1]))  # (points, pairs)
        self._count(points * (lay["lower"].size * 0.4 + G * 3 + CELL_OPS) + row.size)
        return np.where(np.isfinite(self.theta(x)), np.einsum("ij,ij->i", probability, inner), np.nan)

    def split(self, lo: np.ndarray, hi: np.ndarray, trials: np.ndarray) -> np.ndarray:
        """Halve where the bound loses most: d or r by their share of θ's range over the cell (|2r - 1|·h_d against
        2d·h_r: the outcomes with an end inside it are bounded coarsely), s only when its width in standard
        deviations of b/c is over SPLIT_S times θ's in those of θ̂ (its runs lose little: ~0.001 of coverage over
        five standard deviations at n = 150, as much as a θ range of a tenth of one)."""
        centre = np.clip(0.5 * (lo + hi), 1e-9, 1 - 1e-9)
        h = hi - lo
        d, r, s = centre.T
        n = trials[0]
        se_theta = np.sqrt(np.maximum(d * (1 - d * (2 * r - 1) ** 2), 1e-12) / n)
        sd_s = np.sqrt(s * (1 - s) / np.maximum(n * (1 - d), 1.0))
        score = np.stack([np.abs(2 * r - 1) * h[:, 0] / se_theta, 2 * d * h[:, 1] / se_theta,
                          SPLIT_S * h[:, 2] / sd_s], axis=1)
        return np.argmax(score, axis=1)

    def _running(self, lay, s: np.ndarray) -> np.ndarray:
        """P(b_first <= B <= b) for B ~ Bin(c, s), every distinct c and b of the layout and every s: (s, c, b + 1)
        with a leading 0 column (b = b_first - 1). Each s's table is kept (cells split from one grid share their
        s ends)."""
        memo = lay.setdefault("running", {})
        new = [v for v in dict.fromkeys(s.tolist()) if v not in memo]
        if len(memo) + len(new) > 4096:  # bounded: start again with this call's
            memo.clear()
            new = list(dict.fromkeys(s.tolist()))
        if new:
            b, cs, v = lay["values"], lay["cs"], np.array(new)
            with np.errstate(invalid="ignore", divide="ignore"):
                log = (lay["log_choose"][None] + special.xlogy(b[None, None], v[:, None, None])
                       + special.xlog1py(cs[None, :, None] - b[None, None], -v[:, None, None]))
            pmf = np.where(np.isfinite(log), np.exp(log), 0.0)
            table = np.concatenate([np.zeros(pmf.shape[:2] + (1,)), np.cumsum(pmf, axis=2)], axis=2)
            self._count(table.size * 0.4)
            memo.update(zip(new, table))
        return np.stack([memo[v] for v in s.tolist()])

    def bound(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """B(cell) <= C over each cell [lo, hi] (cells, 3): the module docstring's bound, the outcomes covered on the
        whole θ range by runs (``_base``) plus the least, over θ in the range, of the others' least mass
        (``_boundary``)."""
        lay = self._layout()
        t = np.array([a * (2 * b - 1) for a in (lo[:, 0], hi[:, 0]) for b in (lo[:, 1], hi[:, 1])])  # θ at corners
        t1, t2 = t.min(0), t.max(0)
        by_m, by_f = lay["by_m"], lay["by_f"]
        at = [[by_m.log_pmf(lo[:, 0]), by_m.log_pmf(hi[:, 0])], [by_f.log_pmf(lo[:, 1]), by_f.log_pmf(hi[:, 1])]]
        running = self._running(lay, np.concatenate([lo[:, 2], hi[:, 2]]))  # (2·cells, c, b + 1)
        return self._base(lay, lo, hi, t1, t2, at, running) + self._boundary(lay, t1, t2, at, running)

    def _base(self, lay, lo, hi, t1, t2, at, running):
        """A lower bound over each cell of the mass of the outcomes covered at every θ of [t1, t2]: their runs over b,
        each at the lesser of its probabilities at the ends of the s range, then the (d, r) rectangle's bound."""
        cells, G = len(lo), lay["pairs"]
        covered = (lay["lower"][None] <= t1[:, None]) & (t2[:, None] <= lay["upper"][None])
        # +1 where a run of covered slots starts, -1 just after one ends (runs alternate, row by row)
        cell, where = np.nonzero(np.diff(covered.view(np.int8), axis=1))
        first, last = where[0::2] + 1, where[1::2]
        cell = cell[0::2]
        c, b0, b1 = lay["c"][first], lay["b"][first], lay["b"][last] + 1
        mass = [running[cell + k * cells, c, b1] - running[cell + k * cells, c, b0] for k in (0, 1)]
        weight = np.maximum(np.minimum(*mass), 0.0)
        H = np.bincount(cell * G + lay["pair"][first], weights=weight, minlength=cells * G).reshape(cells, G)
        self._count(cells * (lay["lower"].size * 0.4 + G * 6 + CELL_OPS) + cell.size)
        return _rectangle(lay, H, lo[:, :2], hi[:, :2], at)

    def _boundary(self, lay, t1, t2, at, running):
        """The least over θ in (t1, t2) of Σ w_o over the outcomes covered at θ but not on all of [t1, t2] (an end
        inside), w_o the least probability of o over the cell (each factor's least, at an end of its range): a
        sweep over those ends, +w_o where an interval starts, -w_o where one ends (starts first at a tie, so the
        running sums between are never below the least of the stretches'). θ constant on the cell: 0."""
        cells = len(t1)
        # the outcomes with a lower end in (t1, t2), and those with an upper end in (t1, t2) whose lower is <= t1
        a = np.searchsorted(lay["sorted_lower"], t1, side="right")
        e = np.searchsorted(lay["sorted_lower"], t2, side="left")
        cell_l, o_l = np.repeat(np.arange(cells), np.maximum(e - a, 0)), lay["by_lower"][_ranges(a, e)]
        a = np.searchsorted(lay["sorted_upper"], t1, side="right")
        e = np.searchsorted(lay["sorted_upper"], t2, side="left")
        cell_u, o_u = np.repeat(np.arange(cells), np.maximum(e - a, 0)), lay["by_upper"][_ranges(a, e)]
        keep = self.lower[o_u] <= t1[cell_u]
        cell_u, o_u = cell_u[keep], o_u[keep]
        cell_o, o = np.concatenate([cell_l, cell_u]), np.concatenate([o_l, o_u])
        self._count(o.size * 3 + cells * 2)
        if not o.size:
            return np.zeros(cells)
        # w_o: the pair's least probability over the (d, r) rectangle times Bin(b; c, s)'s least at the s ends
        pair, c, b = lay["pair_each"][o], lay["c_each"][o], lay["b_each"][o]
        least = np.minimum(*at[0]) + np.minimum(*at[1])
        w = np.exp(least[cell_o, pair]) * np.minimum(*(running[cell_o + k * cells, c, b + 1]
                                                      - running[cell_o + k * cells, c, b] for k in (0, 1)))
        w = np.maximum(w, 0.0)
        # the sweep: (cell, θ, sign) events; the ones starting covered (lower <= t1) count from the first stretch
        up = o_l.size  # o_l: +w at its lower end, -w at its upper end if that is below t2
        ends_at = np.r_[self.upper[o_l], self.upper[o_u]]
        closes = ends_at < t2[cell_o]
        value = np.r_[self.lower[o_l], ends_at[closes]]
        sign = np.r_[np.ones(up), -np.ones(int(closes.sum()))]
        weight = np.r_[w[:up], w[closes]] * sign
        event_cell = np.r_[cell_l, cell_o[closes]]
        start = np.bincount(cell_u, weights=w[up:], minlength=cells)
        order = np.lexsort((-sign, value, event_cell))
        event_cell, weight = event_cell[order], weight[order]
        running_sum = np.cumsum(weight)
        offset = np.r_[0.0, running_sum][np.searchsorted(event_cell, np.arange(cells))]  # the sum before each cell
        low = np.full(cells, np.inf)
        np.minimum.at(low, event_cell, running_sum - offset[event_cell])
        out = start + np.minimum(low, 0.0)
        return np.where(t2 > t1, np.maximum(out, 0.0), 0.0)


def _ranges(a, e) -> np.ndarray:
    """The indices a_i..e_i - 1 of every i, concatenated (empty where e_i <= a_i)."""
    size = np.maximum(e - a, 0)
    total = int(size.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(a - np.r_[0, np.cumsum(size)[:-1]], size)
    return starts + np.arange(total)


def _rectangle(lay, H, lo, hi, at) -> np.ndarray:
    """A lower bound of g(d, r) = Σ_{m,f} Bin(m; n, d)·Bin(f; m, r)·H_{m,f} over each rectangle [lo, hi] (cells, 2),
    H (cells, pairs) in [0, 1]: the larger of the first-order and the second-order bound (module docstring); ``at``
    the pairs' log factors at the rectangle's ends, [[m at lo, m at hi], [f at lo, f at hi]]."""
    by_m, by_f = lay["by_m"], lay["by_f"]
    first = np.einsum("ij,ij->i", np.exp(np.minimum(*at[0]) + np.minimum(*at[1])), H)
    corner = np.min([np.einsum("ij,ij->i", np.exp(a + b), H) for a in at[0] for b in at[1]], axis=0)
    most_m = np.exp(by_m.log_pmf_most(lo[:, 0], hi[:, 0]))
    most_f = np.exp(by_f.log_pmf_most(lo[:, 1], hi[:, 1]))
    with np.errstate(invalid="ignore", over="ignore"):
        bend_m = np.nan_to_num(most_m * np.maximum(by_m.curvature(lo[:, 0]), by_m.curvature(hi[:, 0])) * most_f,
                               nan=np.inf, posinf=np.inf)
        bend_f = np.nan_to_num(most_m * most_f * np.maximum(by_f.curvature(lo[:, 1]), by_f.curvature(hi[:, 1])),
                               nan=np.inf, posinf=np.inf)
        first_m, last_m = lay["window"]
        spread = window_curvature(first_m, last_m, lay["n"], lo[:, 0], hi[:, 0])
        curve_m = np.fmin(np.einsum("ij,ij->i", bend_m, H), np.einsum("ij,ij->i", bend_m, 1 - H) + spread)
        curve_f = np.fmin(np.einsum("ij,ij->i", bend_f, H), np.einsum("ij,ij->i", bend_f, 1 - H))
        h = hi - lo
        error = h[:, 0] ** 2 / 8 * curve_m + h[:, 1] ** 2 / 8 * curve_f
        second = np.where(np.isfinite(error), corner - error, -np.inf)
    return np.maximum(np.maximum(first, second), 0.0)


def concordant_problem(method: str, n: int, box: dict, delta: float, bound=None) -> ConcordantProblem:
    """The paired design over the box {"d", "r", "s"} (``certify.paired_problem``) for a method reading the
    concordant split: m over the count window of the d range (all but ``bound``, support.BOUND, of its
    probability), f over all of 0..m, b over the window of the s range for each c = n − m."""
    from ..designs.support import BOUND

    bound = bound or BOUND
    lo_d, hi_d = _proportion_window(n, *box["d"], bound)
    disc = np.arange(int(np.min(lo_d)), int(np.max(hi_d)) + 1)
    m = np.repeat(disc, disc + 1)
    first = np.concatenate([np.arange(k + 1) for k in disc])
    m, first, c, both = concordant_rows(n, m, first, box["s"], bound)
    columns = {"both": both, "only_first": first, "only_second": m - first, "neither": c - both}
    lower, upper = _intervals("paired", "difference", method, columns, delta)
    names = ("d", "r", "s")
    factors = (Factor(m, np.full_like(m, n), 0), Factor(first, m, 1), Factor(both, c, 2))
    return ConcordantProblem(names, np.array([box[k][0] for k in names], dtype=float),
                             np.array([box[k][1] for k in names], dtype=float), lower, upper, factors,
                             lambda x: x[:, 0] * (2 * x[:, 1] - 1), free=2)
