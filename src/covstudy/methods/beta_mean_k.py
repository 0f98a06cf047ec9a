"""The mean M = (X₁ + … + X_K)/K of K independent Beta variables: quantiles.

The posterior of macro recall (the mean of K class recalls with independent Beta posteriors)
generalises Brodersen et al.'s (2010) posterior of balanced accuracy (K = 2). For K = 2 the
quantiles are those of ``beta_mean`` (quadrature of the exact convolution). For
K >= 3 each X_i is put on a lattice lo_i + c·h: the Beta mass of each cell (regularised
incomplete beta function) is split between the cell's two ends so that the cell's mean is kept
(which makes singular Beta(½, ·) densities harmless), the K lattices are convolved by FFT, and
the sum is smoothed by K independent Uniform(-h/2, h/2) terms, whose Irwin–Hall CDF makes the
result continuous:

    S ≈ Σ lo_i + h·(J + V - K/2),   J = Σ J_i (lattice pmf),  V ~ Irwin–Hall(K),
    P(J + V <= t) = P(J <= t0 - K) + Σ_{j = t0-K+1..t0} P(J = j)·F_IH(t - j),  t0 = ⌊t⌋.

The lattice's quantiles err by c·h² + o(h²) (variance added by the lattice and the smoothing),
so Richardson's extrapolation (4·Q(h/2) - Q(h))/3 with h = min_i sd(X_i)/STEPS_PER_SD removes
the leading term: the tests find the 0.025, 0.5 and 0.975 quantiles within 1e-6 of
``beta_mean`` (K = 2, including singular Jeffreys posteriors; typically within 1e-7) and of
adaptive quadrature (K = 3). Far-tail quantiles (q < 0.01) of several posteriors singular at
the same end are accurate to a few 1e-6. Each X_i is kept on its
central 1 - 2·EPS range; the lattice is at most MAX_CELLS long (h grows beyond that, which only
happens when one posterior is ~10⁴ times wider than another).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from .._lazy import fft
from ..memo import BoundedMemo
from . import beta_mean

EPS = 1e-13  # tail mass of each X_i left out of its lattice (each side)
STEPS_PER_SD = 20  # lattice cells per standard deviation of the narrowest X_i
MAX_CELLS = 1 << 20  # longest lattice of the sum


def _irwin_hall_weights(k: int) -> np.ndarray:
    """w_s = F(s) - F(s - 1), s = 0..k, for F the CDF of the sum of k Uniform(0, 1) (w_0 = 0)."""
    cdf = [sum((-1) ** i * math.comb(k, i) * (s - i) ** k for i in range(s + 1)) / math.factorial(k)
           for s in range(k + 1)]
    return np.diff(np.r_[0.0, cdf])


def _row_quantiles(a: np.ndarray, b: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Quantiles ``q`` of the mean of Beta(a_i, b_i), i = 1..K (one row of K >= 3 variables):
    Richardson's extrapolation (4·Q(h/2) - Q(h))/3 of the lattice quantiles, whose error is c·h² + O(h⁴)."""
    sd = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    lo = special.betaincinv(a, b, EPS)
    hi = special.betaincinv(a, b, 1 - EPS)
    # Two or more singular ends (Beta(½, ·) posteriors of classes all wrong or all right) make
    # the sum's density steep where they meet: a finer lattice then.
    steps = STEPS_PER_SD * (4 if np.sum(a < 1) + np.sum(b < 1) >= 2 else 1)
    h = max(sd.min() / steps, 2 * float(np.sum(hi - lo)) / MAX_CELLS)
    # h rounded down to a power of two (finer, so no less accurate): the rows of an audit then share steps,
    # and each X_i's knot masses, the costly part, are computed once per (a_i, b_i, h) (``_knot_masses``)
    h = 2.0 ** math.floor(math.log2(h))
    if 2 * float(np.sum(hi - lo)) / h > MAX_CELLS:
        h *= 2
    return (4 * _lattice_quantiles(a, b, q, lo, hi, h / 2) - _lattice_quantiles(a, b, q, lo, hi, h)) / 3


def _lattice_quantiles(a, b, q, lo, hi, h) -> np.ndarray:
    """Quantiles ``q`` of the mean of the lattice variables of step ``h``, smoothed (module docstring)."""
    k = a.size
    cells = np.maximum(np.ceil((hi - lo) / h).astype(np.int64), 1)
    masses = _knot_masses(a, b, lo, h, cells)
    pmf = np.maximum(_convolved([masses[i, :c + 1] for i, c in enumerate(cells)]), 0.0)
    cdf_j = np.cumsum(pmf)
    cdf_j /= cdf_j[-1]
    g = _complete(cdf_j, k)  # P(J + V <= t) at t = 0, 1, ..., len(cdf_j) + k - 1
    t = _solve(pmf / cdf_j[-1], cdf_j, g, k, np.asarray(q, dtype=float))
    return (float(lo.sum()) + h * (t - k / 2)) / k


def _convolved(rows: list) -> np.ndarray:
    """The convolution of the 1-D arrays ``rows`` (the pmf of the sum of independent lattice variables), in
    pairs by FFT, level by level: O(L log L log K) for K rows of total length L, where one product of K
    spectra of length L costs O(K L log L) (120 classes: seconds)."""
    while len(rows) > 1:
        pairs = []
        for x, y in zip(rows[0::2], rows[1::2]):
            n = x.size + y.size - 1
            size = fft.next_fast_len(n, real=True)
            pairs.append(fft.irfft(fft.rfft(x, size) * fft.rfft(y, size), size)[:n])
        rows = pairs + rows[len(pairs) * 2:]
    return rows[0]


_MASSES = BoundedMemo(2_000)  # (a_i, b_i, h) -> X_i's knot masses (10³ to 10⁴ numbers each: ~100 MB at most)


def _knot_masses(a, b, lo, h, cells) -> np.ndarray:
    """``_knot_masses_of`` each X_i (rows, zero-padded to the longest), each remembered by (a_i, b_i, h):
    an audit's rows share their classes' posteriors (lo_i and cells_i follow from a_i, b_i and h)."""
    keys = [np.array([ai, bi, h]).tobytes() for ai, bi in zip(a, b)]
    found = _MASSES.found(keys)
    out = np.zeros((a.size, int(cells.max()) + 1))
    fresh = []
    for i, key in enumerate(keys):
        row = found.get(key)
        if row is None:
            row = _knot_masses_of(a[i:i + 1], b[i:i + 1], lo[i:i + 1], h, cells[i:i + 1])[0]
            fresh.append((key, row))
        out[i, :row.size] = row
    _MASSES.store(fresh)
    return out


def _knot_masses_of(a, b, lo, h, cells) -> np.ndarray:
    """Each X_i's mass on its knots lo_i + c·h, c = 0..cells_i (rows, zero-padded to the longest): each
    cell's mass split between its two ends so that its mean is kept (the cell's partial mean from
    E[X·1(X <= x)] = a/(a + b)·I_x(a + 1, b)); the tails beyond the knots go to the end cells."""
    m = int(cells.max())
    inside = np.arange(1, m)[None, :] < cells[:, None]  # inner knots of each X_i
    x = np.where(inside, lo[:, None] + h * np.arange(1, m)[None, :], 1.0)
    edge = np.zeros((a.size, 1)), np.ones((a.size, 1))
    cdf = np.concatenate([edge[0], np.where(inside, special.betainc(a[:, None], b[:, None], x), 1.0), edge[1]], 1)
    part = np.concatenate([edge[0], np.where(inside, special.betainc(a[:, None] + 1, b[:, None], x), 1.0), edge[1]], 1)
    mass = np.diff(cdf, axis=1)
    partial = np.diff(part, axis=1) * (a / (a + b))[:, None]
    right = np.clip((partial - mass * (lo[:, None] + h * np.arange(m)[None, :])) / h, 0.0, mass)  # to the right end
    out = np.zeros((a.size, m + 1))
    out[:, :m] += mass - right
    out[:, 1:] += right
    return out


def _complete(cdf_j: np.ndarray, k: int) -> np.ndarray:
    """P(J + V <= t) = Σ_s w_s·P(J <= t - s) at t = 0..len(cdf_j) + k - 1 (P(J <= j) = 1 beyond the lattice)."""
    w = _irwin_hall_weights(k)
    padded = np.r_[cdf_j, np.ones(k)]
    g = np.zeros(padded.size)
    for s in range(1, k + 1):
        g[s:] += w[s] * padded[:-s]
    return g


_GRID = 128
_THETA = np.arange(_GRID + 1) / _GRID  # where G is evaluated inside the whole step found (then interpolated)
IRWIN_HALL_EXACT = 120  # up to this many terms F_IH is summed exactly (integers); beyond, its normal limit


@functools.lru_cache(maxsize=16)
def _irwin_hall_table(k: int) -> np.ndarray:
    """F_IH(m + θ) for m = 0..k - 1 and θ in _THETA (shape (k, _GRID + 1)), the CDF of the sum of k
    Uniform(0, 1): Σ_{i <= m} (-1)^i C(k, i) (m + θ - i)^k / k!. The alternating sum cancels to a
    number in [0, 1] from terms of size up to ~(k/2)^k/k! (10¹¹ at k = 30), so it is summed exactly in
    integers, θ = g/_GRID: F = Σ_i (-1)^i C(k, i) (_GRID·(m - i) + g)^k / (_GRID^k·k!). Beyond
    IRWIN_HALL_EXACT terms the normal limit N(k/2, k/12), within ~0.01/k of it."""
    if k > IRWIN_HALL_EXACT:
        from scipy import stats

        x = np.arange(k)[:, None] + _THETA[None, :]
        return stats.norm.cdf(x, loc=k / 2, scale=math.sqrt(k / 12))
    scale = _GRID ** k * math.factorial(k)
    out = np.empty((k, _GRID + 1))
    for m in range(k):
        for g in range(_GRID + 1):
            total = sum((-1) ** i * math.comb(k, i) * (_GRID * (m - i) + g) ** k for i in range(m + 1))
            out[m, g] = total / scale  # an exact rational, rounded once
    return np.clip(out, 0.0, 1.0)


def _solve(pmf: np.ndarray, cdf_j: np.ndarray, g: np.ndarray, k: int, q: np.ndarray) -> np.ndarray:
    """The t with P(J + V <= t) = q: the whole part t0 from ``g``, the rest from the exact CDF
    G(t0 + θ) = P(J <= t0 - k) + Σ_{j = t0-k+1..t0} P(J = j)·F_IH(t0 + θ - j) on a fine θ grid."""
    t0 = np.clip(np.searchsorted(g, q, side="right") - 1, 0, g.size - 2)
    j = t0[:, None] - np.arange(k)[None, :]  # t0 - k + 1 .. t0
    p_j = np.where((j >= 0) & (j < pmf.size), pmf[np.clip(j, 0, pmf.size - 1)], 0.0)
    base_index = t0 - k
    base = np.where(base_index >= 0, np.r_[cdf_j, np.ones(k)][np.clip(base_index, 0, None)], 0.0)
    table = _irwin_hall_table(k)  # F_IH(t0 - j + θ), t0 - j in 0..k - 1
    values = base[:, None] + np.einsum("qj,qjg->qg", p_j, table[t0[:, None] - j])
    theta = np.array([np.interp(qi, np.maximum.accumulate(v), _THETA) for qi, v in zip(q, values)])
    return t0 + theta


def quantile(q, a, b) -> np.ndarray:
    """Quantiles ``q`` (shape (..., Q)) of the mean of independent Beta(a_i, b_i) (a, b shape (..., K)).

    K = 2 gives ``beta_mean.quantile``'s values; K = 1 the Beta quantile.
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    q = np.asarray(q, dtype=float)
    k = a.shape[-1]
    lead = np.broadcast_shapes(a.shape[:-1], q.shape[:-1])
    a, b = (np.broadcast_to(v, (*lead, k)).reshape(-1, k) for v in (a, b))
    q = np.broadcast_to(q, (*lead, q.shape[-1])).reshape(a.shape[0], -1)
    if k == 1:
        out = special.betaincinv(a, b, q)
    elif k == 2:
        out = beta_mean.quantile(q, a[:, :1], b[:, :1], a[:, 1:], b[:, 1:])
    else:
        out = np.empty(q.shape)
        # Rows are solved once per distinct (sorted) parameter set: the mean is symmetric in the X_i.
        order = np.lexsort((b, a))
        rows = np.concatenate([np.take_along_axis(a, order, -1), np.take_along_axis(b, order, -1), q], axis=1)
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        solved = np.array([_solved(r, k) for r in unique])
        out = solved[inverse.reshape(-1)]
    return out.reshape(*lead, q.shape[-1])


_KNOWN = BoundedMemo(200_000)  # (sorted a, b, q) -> the row's quantiles, ~10 MB at K = 3: each is solved on its own


def _solved(row: np.ndarray, k: int) -> np.ndarray:
    """``_row_quantiles`` of one row (sorted a, b, then q), remembered: the audit's Monte Carlo search meets
    the same confusion matrices, so the same rows, at many of its points (a 60-row 3-class file's posterior audit: 22 -> 4.5 CPU-s)."""
    key = row.tobytes()
    found = _KNOWN.found((key,)).get(key)
    if found is None:
        found = _row_quantiles(row[:k], row[k:2 * k], row[2 * k:])
        _KNOWN.store(((key, found),))
    return found


def interval(a, b, delta):
    """Equal-tailed interval: the (delta/2, 1 - delta/2) quantiles of the mean of Beta(a_i, b_i); a, b (..., K)."""
    d = np.asarray(delta, dtype=float)[..., None]
    out = quantile(np.concatenate(np.broadcast_arrays(d / 2, 1 - d / 2), axis=-1), a, b)
    return out[..., 0], out[..., 1]
