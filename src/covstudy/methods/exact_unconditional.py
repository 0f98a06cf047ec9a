"""The exact unconditional score interval for a difference of two independent proportions.

Chan & Zhang (1999), "Test-based exact confidence intervals for the difference of two binomial
proportions", Biometrics 55, 1202-1209; exact2x2's ``uncondExact2x2(method = "score")`` with its
other defaults (two one-sided tests each at delta/2, tsmethod = "central"; no mid-p, no
Berger-Boos step, no E+M, no tie-break), which reports p2 - p1 (here p1 - p2).

For a hypothesised θ = p1 - p2 every outcome x = (k1, k2) of the two test sets is ordered by the
score statistic T(x; θ) = (k1/n1 - k2/n2 - θ)/sqrt(p̃1q̃1/n1 + p̃2q̃2/n2), p̃ the maximum-likelihood
pair under p1 - p2 = θ (difference.restricted_mle; numerator and root rounded to 1e-10, as exact2x2
does, so that mathematically tied outcomes tie). The one-sided exact p-value of an observed t is
its tail maximised over the nuisance p2:

    Q_t(θ) = sup_{p2} P_{θ, p2}(T(X; θ) >= T(t; θ)),   P_t(θ) = sup_{p2} P_{θ, p2}(T(X; θ) <= T(t; θ)).

The interval is [L, U], L the smallest θ with Q_t(θ) > delta/2, U the largest with P_t(θ) > delta/2.
U comes from L of the mirrored outcome (n1 - k1, n2 - k2), whose statistic is the negated one.

Computation, for every requested outcome of one (n1, n2, delta) at once: (1) the tails of all
outcomes at each θ of exact2x2's grid of 500 values in [-1, 1], one sort and cumulative sum per
θ and nuisance value; (2) bisection (to 1e-8) in the first grid cell where the p-value exceeds
delta/2, all outcomes together. The supremum is over exact2x2's 100 nuisance values spanning the
feasible range, refined (``refine``, the default) by two rounds of 9 values around the best one,
so that the p-values are not underestimated between grid values, which makes the ends at least as
wide as exact2x2's (within 6e-5 of them on 187 tables; ``refine=False`` reproduces exact2x2 to 4e-9). Ends are
cached per outcome. Like exact2x2 it takes the first crossing on the grid (a p-value that
dipped back below delta/2 inside one grid cell would be missed).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .difference import restricted_mle
from .registry import register

DELTAS = np.linspace(-1.0, 1.0, 500)  # exact2x2's nCIgrid
NUISANCE = 100  # exact2x2's nPgrid
BISECTIONS = 19  # (2/499)/2^19 < 1e-8
TIES = 1e-9  # relative
LIMIT = 40_401  # outcomes (n1 + 1)(n2 + 1): n1 = n2 = 200
_CACHE: dict[tuple, tuple[float, float]] = {}


def statistic(k1, n1, k2, n2, theta):
    """The score statistic T(x; θ) of H: p1 - p2 = θ, increasing in k1/n1 - k2/n2 (0/0 -> 0, c/0 -> ±inf)."""
    p1, p2 = restricted_mle(k1, n1, k2, n2, theta)
    num = np.round(k1 / n1 - k2 / n2 - theta, 10)
    se = np.round(np.sqrt(np.maximum(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2, 0.0)), 10)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(num == 0, 0.0, num / se)


def _tied(t):
    """The least statistic counted as at least t: mathematically tied outcomes (such as (k1, k2) and
    (n2 - k2, n1 - k1) when n1 = n2) differ by rounding noise in the restricted MLE."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(t), t - TIES * np.maximum(1.0, np.abs(t)), t)


def _log_pmf(n, p):
    """log Binomial(k; n, p) for k = 0..n, p an array (..., ) -> (..., n + 1)."""
    k = np.arange(n + 1)
    p = np.asarray(p, dtype=float)[..., None]
    return _log_choose(n) + special.xlogy(k, p) + special.xlog1py(n - k, -p)


def _log_choose(n):
    k = np.arange(n + 1)
    return special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)


def _nuisance(theta, points=NUISANCE):
    """exact2x2's nuisance grid: p1 evenly spaced over its feasible range [max(0, θ), min(1, 1 + θ)]."""
    theta = np.asarray(theta, dtype=float)[..., None]
    lo, hi = np.maximum(0.0, theta), np.minimum(1.0, 1.0 + theta)
    return lo + (hi - lo) * np.linspace(0.0, 1.0, points)


def _upper_tails_all(n1, n2, theta, wanted):
    """Q over exact2x2's nuisance grid at each θ (c,) for the outcomes ``wanted`` (flat indices
    k1·(n2 + 1) + k2) -> (c, m): per θ one sort of the outcomes by T and suffix sums of their probabilities."""
    k1, k2 = np.indices((n1 + 1, n2 + 1)).reshape(2, -1)
    t = statistic(k1[None], n1, k2[None], n2, theta[:, None])  # (c, N)
    order = np.argsort(t, axis=1, kind="stable")
    ts = np.take_along_axis(t, order, axis=1)
    # the outcomes with T >= T(w) are order[first:]
    first = np.stack([np.searchsorted(row, _tied(row_t[wanted]), side="left") for row, row_t in zip(ts, t)])
    p1 = _nuisance(theta)  # (c, g)
    f = np.exp(_log_pmf(n1, p1)[..., :, None] + _log_pmf(n2, np.clip(p1 - theta[:, None], 0, 1))[..., None, :])
    f = np.take_along_axis(f.reshape(*p1.shape, -1), order[:, None, :], axis=2)
    suffix = np.concatenate((np.cumsum(f[..., ::-1], axis=2)[..., ::-1], np.zeros((*p1.shape, 1))), axis=2)
    return np.take_along_axis(suffix, np.broadcast_to(first[:, None, :], (*p1.shape, len(wanted))), axis=2).max(axis=1)


def _mask(n1, n2, k1, k2, theta):
    """1 where T(x; θ_i) >= T(t_i; θ_i), over the outcomes x (m, n1 + 1, n2 + 1), t_i = (k1_i, k2_i)."""
    a, b = np.indices((n1 + 1, n2 + 1))
    t = statistic(a[None], n1, b[None], n2, theta[:, None, None])
    return (t >= _tied(t[np.arange(len(k1)), k1, k2])[:, None, None]).astype(float)


def _tails(mask, n1, n2, theta, p1):
    """P_{θ_i, p1_ij}(X in mask_i) at nuisance values p1_ij (m, g)."""
    b1 = np.exp(_log_pmf(n1, p1))  # (m, g, n1 + 1)
    b2 = np.exp(_log_pmf(n2, np.clip(p1 - theta[:, None], 0, 1)))  # (m, g, n2 + 1)
    return ((b1 @ mask) * b2).sum(axis=-1)


def upper_p_value(n1, n2, k1, k2, theta, refine=True):
    """Q_t(θ) = sup over the nuisance of P(T(X; θ) >= T(t; θ)), for arrays of outcomes and θ (n1, n2 scalars)."""
    k1, k2 = np.asarray(k1, dtype=int), np.asarray(k2, dtype=int)
    theta = np.asarray(theta, dtype=float)
    p1 = _nuisance(theta)
    mask = _mask(n1, n2, k1, k2, theta)
    tails = _tails(mask, n1, n2, theta, p1)
    best = tails.max(axis=1)
    if refine:
        step = p1[:, 1] - p1[:, 0]
        centre = p1[np.arange(len(k1)), tails.argmax(axis=1)]
        lo, hi = np.maximum(0.0, theta), np.minimum(1.0, 1.0 + theta)
        for _ in range(2):  # two rounds of 9 values at a quarter, then a sixteenth, of the grid step
            grid = np.clip(centre[:, None] + step[:, None] * np.linspace(-1, 1, 9), lo[:, None], hi[:, None])
            local = _tails(mask, n1, n2, theta, grid)
            better = local.max(axis=1) > best
            best = np.maximum(best, local.max(axis=1))
            centre = np.where(better, grid[np.arange(len(k1)), local.argmax(axis=1)], centre)
            step = step / 4
    return best


def p_value(k1, n1, k2, n2, theta=0.0, refine=True):
    """The central two-sided exact unconditional p-value of p1 - p2 = θ: min(1, 2·min(P_t, Q_t)) (one table)."""
    q = upper_p_value(n1, n2, [k1], [k2], [theta], refine)[0]
    p = upper_p_value(n1, n2, [n1 - k1], [n2 - k2], [-theta], refine)[0]  # the mirrored outcome's upper tail
    return min(1.0, 2 * min(p, q))


def lower_ends(n1, n2, k1, k2, delta, refine=True):
    """L for the outcomes (k1, k2) (int arrays) of one (n1, n2): the first θ with Q_t(θ) > delta/2."""
    alpha = delta / 2
    wanted = k1 * (n2 + 1) + k2
    chunk = max(1, 2_000_000 // (NUISANCE * (n1 + 1) * (n2 + 1)))  # θ values a pass, ~16 MB each array
    scan = np.concatenate([_upper_tails_all(n1, n2, DELTAS[i:i + chunk], wanted)
                           for i in range(0, len(DELTAS), chunk)])  # (500, m)
    above = scan > alpha
    cell = np.where(above.any(axis=0), above.argmax(axis=0), len(DELTAS) - 1)
    if refine:  # the refined supremum may already exceed delta/2 one grid value earlier
        while True:
            back = cell > 0
            if not back.any():
                break
            early = np.zeros_like(back)
            early[back] = upper_p_value(n1, n2, k1[back], k2[back], DELTAS[cell[back] - 1]) > alpha
            if not early.any():
                break
            cell = np.where(early, cell - 1, cell)
    lower = np.full(len(k1), -1.0)
    todo = cell > 0
    lo, hi = DELTAS[cell[todo] - 1], DELTAS[cell[todo]]
    a, b = k1[todo], k2[todo]
    # Bisection: the p-value jumps wherever the order of the outcomes changes with θ, so a secant
    # (tried: Illinois) gains nothing.
    for _ in range(BISECTIONS):
        mid = (lo + hi) / 2
        inside = upper_p_value(n1, n2, a, b, mid, refine) > alpha
        hi, lo = np.where(inside, mid, hi), np.where(inside, lo, mid)
    lower[todo] = hi  # the accepted side, as exact2x2's pos.side = TRUE
    return lower


def intervals(n1: int, n2: int, k1, k2, delta: float, refine: bool = True):
    """(lower, upper) of p1 - p2 for the outcomes (k1, k2) of one (n1, n2, delta); cached per outcome."""
    k1, k2 = np.asarray(k1, dtype=int).ravel(), np.asarray(k2, dtype=int).ravel()
    key = (n1, n2, float(delta), refine)
    pairs = list(zip(k1.tolist(), k2.tolist()))
    needed = sorted({p for k in pairs for p in (k, (n1 - k[0], n2 - k[1]))
                     if (*key, *p) not in _CACHE})
    if needed:
        a, b = (np.array(x, dtype=int) for x in zip(*needed))
        ends = lower_ends(n1, n2, a, b, delta, refine)
        for pair, end in zip(needed, ends.tolist()):
            _CACHE[(*key, *pair)] = end
    lower = np.array([_CACHE[(*key, x, y)] for x, y in pairs])
    upper = np.array([-_CACHE[(*key, n1 - x, n2 - y)] for x, y in pairs])
    return lower, upper


@register("diff_exact_unconditional", display="exact unconditional score", family="exact", guaranteed=True,
          takes="difference",
          reference="Chan & Zhang (1999), Biometrics 55, 1202-1209; exact2x2's uncondExact2x2(method = 'score')")
def diff_exact_unconditional(k1, n1, k2, n2, delta):
    """Exact unconditional score interval (Chan & Zhang 1999): the θ = p1 - p2 at which neither one-sided
    exact test by the score statistic, maximised over the nuisance parameter, rejects at delta/2; guaranteed."""
    shape = np.broadcast_shapes(np.shape(k1), np.shape(n1), np.shape(k2), np.shape(n2), np.shape(delta))
    k1, n1, k2, n2, d = (np.broadcast_to(x, shape).ravel() for x in (k1, n1, k2, n2, delta))
    cells = (n1.astype(float) + 1) * (n2 + 1)
    if np.any(cells > LIMIT):
        raise ValueError(f"n1, n2: the exact unconditional interval needs (n1 + 1)(n2 + 1) <= {LIMIT:,} outcomes, "
                         f"got {int(cells.max()):,}")
    lower, upper = np.empty(k1.size), np.empty(k1.size)
    groups = np.stack([n1, n2, d]).T
    for g in np.unique(groups, axis=0):
        at = np.all(groups == g, axis=1)
        lower[at], upper[at] = intervals(int(g[0]), int(g[1]), k1[at], k2[at], float(g[2]))
    return lower.reshape(shape), upper.reshape(shape)
