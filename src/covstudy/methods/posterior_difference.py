"""Exact posterior laws of a difference of accuracies, by quadrature (no sampling).

Unpaired: X ~ Beta(a1, b1) and Y ~ Beta(a2, b2) independent, D = X - Y, integrated over
the quantiles Q of the less dispersed of the two (the integrand is then the CDF of the wider
one, smooth on the scale on which u moves it):

    P(D <= t) = 1 - F_Y(1 - t) + ∫_{F_Y(-t)}^{F_Y(1 - t)} I(t + Q_Y(u); a1, b1) du
              = F_X(t) + ∫_{F_X(t)}^{F_X(1 + t)} 1 - I(Q_X(u) - t; a2, b2) du

with I = F the regularized incomplete Beta function. Paired: under a Dirichlet posterior of
the four cells, the discordant cells θ₁₂, θ₂₁ enter as S = θ₁₂ + θ₂₁ ~ Beta(b + c + 2α,
a + d + 2α) and R = θ₁₂/S ~ Beta(b + α, c + α), independent (the aggregation and
neutrality properties of the Dirichlet), and D = θ₁₂ - θ₂₁ = S·(2R - 1):

    P(D <= t) = 1[t > 0]·F_S(|t|) + ∫_{F_S(|t|)}^1 I((1 + t/Q_S(u))/2; b + α, c + α) du.

The limits of each integral are where the inner argument reaches 0 or 1, so the integrand
is smooth inside; its square-root behaviour at those ends (Beta densities with a parameter
below 1) is absorbed by Gauss-Legendre nodes placed by u = lo + (hi - lo)(1 - cos πs)/2.
The tests check the quantiles to 2e-7 against adaptive quadrature. Unpaired equal-tailed
intervals invert P(D <= t) with the bracketed root finder of roots.py; paired ones by Newton
steps from a Cornish-Fisher start (``PairedLaw.quantile``, ``paired_equal_tailed``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ..memo import BoundedMemo
from .distinct import unique_rows
from .roots import solve_increasing

_NODES = 48
_NEWTON_STEPS = 6
_NEWTON_TOL = 1e-12
_ONE_STEP = 0.1  # a Newton step below sqrt(_ONE_STEP·tol·sd/(1 + |skewness|)) is the last one (``PairedLaw.quantile``) ...
_ONE_STEP_FROM = 30.0  # ... where both discordant parameters are at least this (D near normal)
_S, _W = np.polynomial.legendre.leggauss(_NODES)
_S, _W = (_S + 1) / 2, _W / 2
U = (1 - np.cos(np.pi * _S)) / 2  # quadrature nodes on [0, 1], clustered towards the ends
WEIGHTS = _W * np.pi * np.sin(np.pi * _S) / 2  # du = (π/2)·sin(πs) ds


def _beta_sd(a, b):
    return np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))


class _Law:
    """P(D <= t) for a flat batch of posteriors; ``cdf(t, i)`` evaluates rows ``i``."""

    def cdf(self, t, i):
        raise NotImplementedError

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation of D for every row."""
        raise NotImplementedError

    def quantile(self, q, size):
        """The q-quantile of every row, q a scalar or array broadcasting to ``size`` rows.

        Bracketed by mean ± 6 sd where that brackets the root (most rows: fewer steps),
        otherwise by [-1, 1].
        """
        q = np.broadcast_to(np.asarray(q, dtype=float), (size,))
        index = np.arange(size)
        mean, sd = self.moments()
        lo, hi = np.clip(mean - 6 * sd, -1, 1), np.clip(mean + 6 * sd, -1, 1)
        lo = np.where(self.cdf(lo, index) > q, -1.0, lo)
        hi = np.where(self.cdf(hi, index) < q, 1.0, hi)
        return solve_increasing(lambda t, i: self.cdf(t, i) - q[i], lo, hi)


def _piece(lo, hi, integrand):
    """∫_lo^hi integrand(u) du by the clustered Gauss-Legendre rule on [lo, hi] (rows of arrays)."""
    width = hi - lo
    u = lo[:, None] + width[:, None] * U
    return width * np.sum(integrand(u) * WEIGHTS, axis=-1)


class UnpairedLaw(_Law):
    """D = X - Y, X ~ Beta(a1, b1), Y ~ Beta(a2, b2) (flat arrays)."""

    def __init__(self, a1, b1, a2, b2):
        self.a1, self.b1, self.a2, self.b2 = (np.asarray(v, dtype=float).ravel() for v in
                                              np.broadcast_arrays(a1, b1, a2, b2))
        self.over_y = _beta_sd(self.a2, self.b2) <= _beta_sd(self.a1, self.b1)  # Y spreads D less
        self.size = self.a1.size

    def moments(self):
        mean = self.a1 / (self.a1 + self.b1) - self.a2 / (self.a2 + self.b2)
        return mean, np.hypot(_beta_sd(self.a1, self.b1), _beta_sd(self.a2, self.b2))

    def cdf(self, t, i):
        t = np.asarray(t, dtype=float)
        out = np.empty(t.shape)
        y, x = self.over_y[i], ~self.over_y[i]
        if np.any(y):  # (1 - F_Y(1 - t)) + ∫_{F_Y(-t)}^{F_Y(1 - t)} I_X(t + Q_Y(u)) du
            j, s = i[y], t[y]
            a1, b1, a2, b2 = (v[j, None] for v in (self.a1, self.b1, self.a2, self.b2))
            lo, hi = special.betainc(a2[:, 0], b2[:, 0], np.clip(-s, 0, 1)), special.betainc(a2[:, 0], b2[:, 0],
                                                                                           np.clip(1 - s, 0, 1))
            out[y] = 1 - hi + _piece(lo, hi, lambda u: special.betainc(
                a1, b1, np.clip(s[:, None] + special.betaincinv(a2, b2, u), 0, 1)))
        if np.any(x):  # F_X(t) + ∫_{F_X(t)}^{F_X(1 + t)} 1 - I_Y(Q_X(u) - t) du
            j, s = i[x], t[x]
            a1, b1, a2, b2 = (v[j, None] for v in (self.a1, self.b1, self.a2, self.b2))
            lo, hi = special.betainc(a1[:, 0], b1[:, 0], np.clip(s, 0, 1)), special.betainc(a1[:, 0], b1[:, 0],
                                                                                          np.clip(1 + s, 0, 1))
            out[x] = lo + _piece(lo, hi, lambda u: 1 - special.betainc(
                a2, b2, np.clip(special.betaincinv(a1, b1, u) - s[:, None], 0, 1)))
        return out


class PairedLaw(_Law):
    """D = S·(2R - 1), S ~ Beta(s1, s2), R ~ Beta(r1, r2) independent (flat arrays):
    P(D <= t) = 1[t > 0]·F_S(|t|) + ∫_{F_S(|t|)}^1 I((1 + t/Q_S(u))/2; r1, r2) du."""

    def __init__(self, s1, s2, r1, r2):
        self.s1, self.s2, self.r1, self.r2 = (np.asarray(v, dtype=float).ravel() for v in
                                              np.broadcast_arrays(s1, s2, r1, r2))
        self.size = self.s1.size

    def moments(self):
        # θ12 = S·R and θ21 = S·(1 - R) are two cells of a Dirichlet with total concentration s1 + s2
        total = self.s1 + self.s2
        p12, p21 = self.s1 / total * self.r1 / (self.r1 + self.r2), self.s1 / total * self.r2 / (self.r1 + self.r2)
        variance = (p12 * (1 - p12) + p21 * (1 - p21) + 2 * p12 * p21) / (total + 1)
        return p12 - p21, np.sqrt(variance)

    def shape(self):
        """Mean, standard deviation, skewness and excess kurtosis of D, from the raw moments
        E[D^k] = E[S^k]·E[(2R - 1)^k], E[S^k] = Π_{j<k} (s1 + j)/(s1 + s2 + j) (R likewise)."""
        raw_s, raw_r = [1.0], [1.0]
        for j in range(4):
            raw_s.append(raw_s[-1] * (self.s1 + j) / (self.s1 + self.s2 + j))
            raw_r.append(raw_r[-1] * (self.r1 + j) / (self.r1 + self.r2 + j))
        raw_v = [sum(math.comb(k, j) * 2 ** j * (-1) ** (k - j) * raw_r[j] for j in range(k + 1)) for k in range(5)]
        e1, e2, e3, e4 = (raw_s[k] * raw_v[k] for k in range(1, 5))
        m2 = np.maximum(e2 - e1 * e1, 0.0)
        m3 = e3 - 3 * e1 * e2 + 2 * e1 ** 3
        m4 = e4 - 4 * e1 * e3 + 6 * e1 * e1 * e2 - 3 * e1 ** 4
        with np.errstate(divide="ignore", invalid="ignore"):
            return e1, np.sqrt(m2), m3 / m2 ** 1.5, m4 / (m2 * m2) - 3

    def cdf(self, t, i):
        return self.cdf_pdf(t, i)[0]

    def cdf_pdf(self, t, i):
        """P(D <= t) and, on the same nodes, the density f_D(t) = ∫_{F_S(|t|)}^1 r((1 + t/Q_S(u))/2)/(2·Q_S(u)) du
        (r the Beta(r1, r2) density; the terms from the moving lower limit cancel)."""
        t = np.asarray(t, dtype=float)
        s1, s2, r1, r2 = (v[i, None] for v in (self.s1, self.s2, self.r1, self.r2))
        lo = special.betainc(s1[:, 0], s2[:, 0], np.abs(t))
        width = 1 - lo
        u = lo[:, None] + width[:, None] * U
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            s = _s_quantiles(s1[:, 0], s2[:, 0], u)
            x = np.clip((1 + t[:, None] / s) / 2, 0, 1)
            cdf = np.where(t > 0, lo, 0.0) + width * np.sum(special.betainc(r1, r2, x) * WEIGHTS, axis=-1)
            log_r = special.xlogy(r1 - 1, x) + special.xlog1py(r2 - 1, -x) - special.betaln(r1, r2)
            pdf = width * np.sum(np.exp(log_r) / (2 * s) * WEIGHTS, axis=-1)
        return cdf, pdf

    def quantile(self, q, size):
        """The q-quantile of every row by Newton's method on the normal scores g(t) = Φ⁻¹(P(D <= t)):
        t ← t - (g(t) - Φ⁻¹(q))·φ(g(t))/f_D(t), which is nearly linear in t for a nearly normal D
        (few steps), from the Cornish-Fisher start
            t₀ = μ + σ·(z + γ₁(z² - 1)/6 + γ₂(z³ - 3z)/24 - γ₁²(2z³ - 5z)/36),  z = Φ⁻¹(q).
        A row is done when the step just taken, times its ratio to the step before, is below 1e-12
        (the distance left to the root of the quadrature CDF, if the steps shrink at least
        geometrically), or when the step is so small that Newton's quadratic error, of order
        (1 + |γ₁|)·step²/σ on the near-linear g, is below a tenth of that (``_ONE_STEP``; both discordant
        parameters at least 30, where D is near normal): 1.7 CDF evaluations a quantile on a sweep of
        tables of 30-100,000 examples, 2.1 with the first rule alone, the quantiles within 1.1e-14 of
        it. Each evaluation narrows a bracket
        [lo, hi] (from [-1, 1]); a step that leaves it bisects it instead, and the rows not done
        after a few steps (quadrature density too rough, e.g. a prior far below 1/2) finish with the
        bracketed root finder of roots.py.
        """
        q = np.broadcast_to(np.asarray(q, dtype=float), (size,))
        z = special.ndtri(q)
        mean, sd, skew, kurt = self.shape()
        with np.errstate(invalid="ignore"):
            start = mean + sd * (z + skew * (z * z - 1) / 6 + kurt * (z ** 3 - 3 * z) / 24
                                 - skew * skew * (2 * z ** 3 - 5 * z) / 36)
        out = np.full(size, np.nan)
        i = np.arange(size)
        t = np.where(np.isfinite(start), np.clip(start, -1, 1), mean)
        regular = np.minimum(self.r1, self.r2) >= _ONE_STEP_FROM
        lo, hi, last = np.full(size, -1.0), np.full(size, 1.0), np.full(size, _NEWTON_TOL)
        for _ in range(_NEWTON_STEPS):
            cdf, pdf = self.cdf_pdf(t, i)
            lo, hi = np.where(cdf < q[i], t, lo), np.where(cdf > q[i], t, hi)
            g = special.ndtri(cdf)
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                step = (g - z[i]) * np.exp(-g * g / 2) / (np.sqrt(2 * np.pi) * pdf)
                size_left = np.abs(step) * np.minimum(1, np.abs(step) / last)
            step = np.where(cdf == q[i], 0.0, step)
            new = t - step
            ok = np.isfinite(new) & (new >= lo) & (new <= hi)
            # Newton's error on the near-linear g is of order (g''/g')·step², g''/g' ~ skewness/sd: a step
            # below sqrt(tol·sd) leaves < tol, so a good Cornish-Fisher start needs one evaluation
            close = regular[i] & (step * step <= _ONE_STEP * _NEWTON_TOL * sd[i] / (1 + np.abs(skew[i])))
            done = ok & ((size_left <= _NEWTON_TOL) | close)
            out[i[done]] = new[done]
            keep = ~done
            i, t, lo, hi = i[keep], np.where(ok, new, (lo + hi) / 2)[keep], lo[keep], hi[keep]
            last = np.where(ok, np.abs(step), _NEWTON_TOL)[keep]  # after a bisection, as at the start
            if i.size == 0:
                return out
        out[i] = solve_increasing(lambda x, j: self.cdf(x, i[j]) - q[i[j]], lo, hi)
        return out


_AT_NODES = BoundedMemo(20_000)  # (s1, s2) -> betaincinv(s1, s2, U), ~8 MB


def _s_quantiles(s1, s2, u):
    """betaincinv(s1, s2, u) by row. Where |t| is far below S (every table but those with a tiny
    discordant count) F_S(|t|) vanishes to rounding, u is exactly the nodes U, and Q_S(U) depends on
    (s1, s2) alone: those rows read it from a memo, the same numbers (betaincinv costs ~85% of a CDF
    evaluation, and a search's tables share a few hundred discordant totals b + c)."""
    plain = np.all(u == U, axis=1)
    out = np.empty(u.shape)
    if not plain.all():
        out[~plain] = special.betaincinv(s1[~plain, None], s2[~plain, None], u[~plain])
    if plain.any():
        pairs, inverse = unique_rows(np.stack([s1[plain], s2[plain]], axis=1))
        keys = list(map(tuple, pairs.tolist()))
        found = _AT_NODES.found(keys)  # this call's own copy: what the memo forgets below stays here
        missing = [j for j, k in enumerate(keys) if k not in found]
        if missing:
            fresh = dict(zip((keys[j] for j in missing),
                             special.betaincinv(pairs[missing, :1], pairs[missing, 1:], U)))
            found.update(fresh)
            _AT_NODES.store(fresh.items())
        out[plain] = np.array([found[k] for k in keys])[inverse]
    return out


def equal_tailed(law: _Law, shape, delta):
    """(delta/2, 1 - delta/2) quantiles of ``law`` (built on arrays broadcast to ``shape``),
    reshaped to ``shape`` and clipped to [-1, 1]."""
    size = law.size
    q = np.broadcast_to(np.asarray(delta, dtype=float) / 2, shape).ravel()
    lower, upper = law.quantile(q, size), law.quantile(1 - q, size)
    return np.clip(lower, -1, 1).reshape(shape), np.clip(upper, -1, 1).reshape(shape)


_KNOWN = BoundedMemo(200_000)  # (s1, s2, r1, r2, q) -> the q-quantile of D, ~40 MB: each row is solved on its own


def paired_equal_tailed(s1, s2, r1, r2, shape, delta):
    """(delta/2, 1 - delta/2) quantiles of D = S·(2R - 1) for arrays broadcast to ``shape``, clipped to [-1, 1].

    Exchanging r1 and r2 negates D, so lower(s1, s2, r1, r2) = -upper(s1, s2, r2, r1): both ends are
    upper quantiles, solved once per distinct row (s1, s2, r1, r2, 1 - delta/2). On the paired
    design's outcomes every (b, c) comes with its mirror (c, b), so this halves the work, and the
    interval of a table and of its mirror are exactly negatives of each other. Solved quantiles are
    remembered (``_KNOWN``): the audit's Monte Carlo search meets the same rows at many points.
    """
    s1, s2, r1, r2 = (np.broadcast_to(np.asarray(v, dtype=float), shape).ravel() for v in (s1, s2, r1, r2))
    top = 1 - np.broadcast_to(np.asarray(delta, dtype=float) / 2, shape).ravel()
    rows = np.stack([np.concatenate(pair) for pair in ((s1, s1), (s2, s2), (r1, r2), (r2, r1), (top, top))], axis=1)
    distinct, inverse = unique_rows(rows)
    keys = list(map(tuple, distinct.tolist()))
    found = _KNOWN.found(keys)
    ends = np.array([found.get(k, np.nan) for k in keys])
    new = np.isnan(ends)
    if new.any():  # rows not solved before (a search's points share most of their outcomes' rows)
        ends[new] = PairedLaw(*distinct[new, :4].T).quantile(distinct[new, 4], int(new.sum()))
        _KNOWN.store(zip((k for k, fresh in zip(keys, new) if fresh), ends[new].tolist()))
    ends = ends[inverse]
    lower, upper = -ends[s1.size:], ends[:s1.size]
    return np.clip(lower, -1, 1).reshape(shape), np.clip(upper, -1, 1).reshape(shape)
