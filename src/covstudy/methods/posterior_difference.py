"""Exact posterior laws of a difference of accuracies, by quadrature (no sampling).

Unpaired: X ~ Beta(a1, b1) and Y ~ Beta(a2, b2) independent, D = X - Y:

    P(D <= t) = ∫₀¹ I(t + Q_Y(u); a1, b1) du          (integrating over Y's quantiles)
              = ∫₀¹ 1 - I(Q_X(u) - t; a2, b2) du      (integrating over X's quantiles)

with I the regularized incomplete Beta function (arguments clipped to [0, 1]) and Q the
quantile function. Paired: under a Dirichlet posterior of the four cells, the discordant
cells θ₁₂, θ₂₁ enter as S = θ₁₂ + θ₂₁ ~ Beta(b + α₁₂ + c + α₂₁, rest) and R = θ₁₂/S ~
Beta(b + α₁₂, c + α₂₁), independent (the aggregation and neutrality properties of the
Dirichlet), and D = θ₁₂ - θ₂₁ = S·(2R - 1):

    P(D <= t) = ∫₀¹ I((1 + t/Q_S(u))/2; R's parameters) du
              = ∫₀¹ P(S·(2Q_R(u) - 1) <= t) du.

Each integral is a Gauss-Legendre sum over u. Of the two forms, the one integrating over
the quantiles of the variable that spreads D *less* is used: its integrand is then the CDF
of the wider one, smooth on the scale on which u moves it, so the sum converges fast (the
tests check 1e-7 against adaptive quadrature). The nodes are placed by u = (1 - cos πs)/2
to cluster them in the tails. Equal-tailed intervals invert P(D <= t) with the bracketed
root finder of roots.py.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .roots import solve_increasing

_NODES = 96
_S, _W = np.polynomial.legendre.leggauss(_NODES)
_S, _W = (_S + 1) / 2, _W / 2
U = (1 - np.cos(np.pi * _S)) / 2  # quadrature nodes in u, clustered towards 0 and 1
WEIGHTS = _W * np.pi * np.sin(np.pi * _S) / 2  # du = (π/2)·sin(πs) ds


def _beta_sd(a, b):
    return np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))


def _quantiles(a, b):
    """Q(u_k) of Beta(a, b) at the nodes, shape (..., _NODES)."""
    return special.betaincinv(np.asarray(a, dtype=float)[..., None], np.asarray(b, dtype=float)[..., None], U)


class _Law:
    """P(D <= t) for a flat batch of posteriors; ``cdf(t, i)`` evaluates rows ``i``."""

    def cdf(self, t, i):
        raise NotImplementedError

    def quantile(self, q, size):
        """The q-quantile of every row, q a scalar or array broadcasting to ``size`` rows."""
        q = np.broadcast_to(np.asarray(q, dtype=float), (size,))
        return solve_increasing(lambda t, i: self.cdf(t, i) - q[i], np.full(size, -1.0), np.full(size, 1.0))


class UnpairedLaw(_Law):
    """D = X - Y, X ~ Beta(a1, b1), Y ~ Beta(a2, b2) (flat arrays)."""

    def __init__(self, a1, b1, a2, b2):
        self.a1, self.b1, self.a2, self.b2 = (np.asarray(v, dtype=float).ravel() for v in
                                              np.broadcast_arrays(a1, b1, a2, b2))
        self.over_y = _beta_sd(self.a2, self.b2) <= _beta_sd(self.a1, self.b1)  # Y spreads D less
        self.q = np.where(self.over_y[:, None], _quantiles(self.a2, self.b2), _quantiles(self.a1, self.b1))

    def cdf(self, t, i):
        t = np.asarray(t, dtype=float)[:, None]
        q = self.q[i]
        over_y = self.over_y[i]
        via_y = special.betainc(self.a1[i, None], self.b1[i, None], np.clip(t + q, 0, 1))
        via_x = 1 - special.betainc(self.a2[i, None], self.b2[i, None], np.clip(q - t, 0, 1))
        return np.sum(np.where(over_y[:, None], via_y, via_x) * WEIGHTS, axis=-1)


class PairedLaw(_Law):
    """D = S·(2R - 1), S ~ Beta(s1, s2), R ~ Beta(r1, r2) independent (flat arrays)."""

    def __init__(self, s1, s2, r1, r2):
        self.s1, self.s2, self.r1, self.r2 = (np.asarray(v, dtype=float).ravel() for v in
                                              np.broadcast_arrays(s1, s2, r1, r2))
        mean_s, mean_r = self.s1 / (self.s1 + self.s2), self.r1 / (self.r1 + self.r2)
        spread_s = _beta_sd(self.s1, self.s2) * np.abs(2 * mean_r - 1)
        spread_r = 2 * mean_s * _beta_sd(self.r1, self.r2)
        self.over_s = spread_s <= spread_r
        self.q = np.where(self.over_s[:, None], _quantiles(self.s1, self.s2), _quantiles(self.r1, self.r2))

    def cdf(self, t, i):
        t = np.asarray(t, dtype=float)[:, None]
        q = self.q[i]
        over_s = self.over_s[i][:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            # over S: P(2R - 1 <= t/s) = I((1 + t/s)/2; r1, r2), s > 0
            via_s = special.betainc(self.r1[i, None], self.r2[i, None], np.clip((1 + t / q) / 2, 0, 1))
            # over R: m = 2r - 1; P(S·m <= t) = I(t/m) for m > 0, 1 - I(t/m) for m < 0, 1[t >= 0] at m = 0
            m = 2 * q - 1
            ratio = np.clip(np.where(m != 0, t / m, 0.0), 0, 1)
            s_cdf = special.betainc(self.s1[i, None], self.s2[i, None], ratio)
            via_r = np.where(m > 0, s_cdf, np.where(m < 0, 1 - s_cdf, (t >= 0).astype(float)))
        return np.sum(np.where(over_s, via_s, via_r) * WEIGHTS, axis=-1)


def equal_tailed(law: _Law, shape, delta):
    """(delta/2, 1 - delta/2) quantiles of ``law`` (built on arrays broadcast to ``shape``),
    reshaped to ``shape`` and clipped to [-1, 1]."""
    size = law.q.shape[0]
    q = np.broadcast_to(np.asarray(delta, dtype=float) / 2, shape).ravel()
    lower, upper = law.quantile(q, size), law.quantile(1 - q, size)
    return np.clip(lower, -1, 1).reshape(shape), np.clip(upper, -1, 1).reshape(shape)
