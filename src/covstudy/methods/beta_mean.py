"""The mean M = (X + Y)/2 of two independent Beta variables: exact CDF and quantiles.

Brodersen et al. (2010) give balanced accuracy the posterior of the average of the two
class accuracies, X ~ Beta(a1, b1) and Y ~ Beta(a2, b2). Its CDF is the convolution

    P(M <= m) = F_S(2m),   F_S(s) = F_X(s - 1) + ∫_{max(s-1, 0)}^{min(s, 1)} f_X(x) F_Y(s - x) dx,

(for x < s - 1 the event Y <= s - x is certain). The integral is computed by tanh-sinh
(double-exponential) quadrature, which is exact to rounding for the integrable endpoint
singularities of Beta densities (a or b < 1) and of F_Y at 0. Two choices keep it accurate
for concentrated posteriors (n in the thousands):

* X is the narrower of the two variables (smaller sd), so F_Y(s - x) is smooth on X's scale;
* x is restricted to X's central 1 - 2·EPS range [Q_X(EPS), Q_X(1 - EPS)], which moves
  F_S by at most 2·EPS = 2e-14 but puts every node where X has mass.

Quantiles invert F_S by safeguarded Newton/Halley steps (bisection when a step leaves the
bracket) from a four-cumulant Cornish-Fisher start. Where f_S is smooth enough (Y's parameters
>= 3) the step is the root of F_S's cubic Taylor polynomial, and a step below 0.01 sd of S is
the last one: its error is of order step⁴/sd³, ~1e-9 sd. Most quantiles thus cost one CDF
evaluation (1.2 on the balanced_imbalance study, 2.1 with Halley steps alone). The tests check
them against Monte Carlo and adaptive quadrature, on a sweep of the study's parameter region too.
Reference: Brodersen, Ong, Stephan & Buhmann (2010), "The balanced accuracy and its
posterior distribution", Proc. 20th ICPR, 3121-3124.
"""

from __future__ import annotations

import numpy as np
from scipy import special

EPS = 1e-14  # tail mass of X left out of the quadrature range (each side)
_TOL = 1e-10  # Newton/bisection stopping rule on s = 2m
_ACCEPT = 1e-5  # a Halley step below this many sd of S is the last one (see _Sum.quantile)
_ACCEPT_CUBIC = 1e-2  # a cubic Taylor step below this many sd of S is the last one
_MAX_ITER = 100
_BLOCK = 512  # quantile problems solved at once
_NEGLIGIBLE = 1e-10  # nodes with less than this share of the weight are skipped (F_S moves < 1e-8)

# tanh-sinh rule on [-1, 1]: r = tanh(π/2·sinh t), t = -T..T step H. The complements 1 ± r
# are kept separately so that nodes next to an endpoint keep their full relative precision.
_T, _H = 3.6, 1.0 / 14
_t = np.arange(-_T, _T + _H / 2, _H)
_v = np.pi / 2 * np.sinh(_t)
_ONE_PLUS_R = 2.0 / (1.0 + np.exp(-2.0 * _v))
_ONE_MINUS_R = 2.0 / (1.0 + np.exp(2.0 * _v))
_W = _H * np.pi / 2 * np.cosh(_t) / np.cosh(_v) ** 2


def _sd(a, b):
    return np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))


def _skew(a, b):
    return 2 * (b - a) * np.sqrt(a + b + 1) / ((a + b + 2) * np.sqrt(a * b))


def _excess_kurtosis(a, b):
    return 6 * ((a - b) ** 2 * (a + b + 1) - a * b * (a + b + 2)) / (a * b * (a + b + 2) * (a + b + 3))


class _Sum:
    """S = X + Y for broadcast parameter arrays, X the narrower variable; evaluates F_S and f_S."""

    def __init__(self, a1, b1, a2, b2):
        a1, b1, a2, b2 = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a1, b1, a2, b2)))
        swap = _sd(a1, b1) > _sd(a2, b2)
        self.ax, self.bx = np.where(swap, a2, a1), np.where(swap, b2, b1)
        self.ay, self.by = np.where(swap, a1, a2), np.where(swap, b1, b2)
        self.log_beta_x = special.betaln(self.ax, self.bx)
        self.log_beta_y = special.betaln(self.ay, self.by)
        self.x_lo = special.betaincinv(self.ax, self.bx, EPS)
        self.x_hi = 1 - special.betaincinv(self.bx, self.ax, EPS)  # Q_X(1 - EPS), without 1 - EPS's rounding
        # A bracket of every quantile used (EPS < q < 1 - EPS): S <= Q_X(EPS) needs X <= Q_X(EPS),
        # and S > Q_X(1 - EPS) + 1 needs X > Q_X(1 - EPS). (Y's quantiles would tighten it, at a
        # cost of two more Beta quantiles per problem, only for the rare bisection steps.)
        self.s_lo, self.s_hi = self.x_lo, self.x_hi + 1

    def cdf_pdf(self, s, idx=slice(None)):
        """(F_S(s), f_S(s), f_S'(s), f_S''(s)) for the parameter entries ``idx`` (flat arrays of equal length as s).

        f_S^(j)(s) = ∫ f_X(x) f_Y^(j)(s - x) dx with f_Y' = f_Y·g, f_Y'' = f_Y·(g² + g'),
        g(y) = (a_Y - 1)/y - (b_Y - 1)/(1 - y); exact when f_Y^(j) is integrable and vanishes at
        0 and 1 (a_Y, b_Y > j; the quantile search uses f_S' and f_S'' only then)."""
        ax, bx, ay, by = (v.reshape(-1)[idx][:, None] for v in (self.ax, self.bx, self.ay, self.by))
        lbx, lby = self.log_beta_x.reshape(-1)[idx][:, None], self.log_beta_y.reshape(-1)[idx][:, None]
        s = s[:, None]
        xa = np.maximum(self.x_lo.reshape(-1)[idx][:, None], np.maximum(s - 1, 0.0))
        xb = np.minimum(self.x_hi.reshape(-1)[idx][:, None], np.minimum(s, 1.0))
        length = np.maximum(xb - xa, 0.0)
        x = xa + length / 2 * _ONE_PLUS_R
        one_minus_x = (1 - xb) + length / 2 * _ONE_MINUS_R
        y = np.clip((s - xb) + length / 2 * _ONE_MINUS_R, 0.0, 1.0)  # s - x, precise near x = s
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            f_x = np.exp((ax - 1) * np.log(x) + (bx - 1) * np.log(one_minus_x) - lbx)
        # An empty range (xa >= xb) has zero length; keep its (unused) terms finite.
        weight = length / 2 * _W * np.where(np.isfinite(f_x), f_x, 0.0)
        # Most nodes of a concentrated X carry no weight: Y's terms (the incomplete Beta
        # function dominates the cost) only where the weight is not negligible (>= _NEGLIGIBLE of the row's).
        keep = weight > _NEGLIGIBLE * np.sum(weight, axis=1, keepdims=True)
        ay, by, lby, y = (np.broadcast_to(v, keep.shape)[keep] for v in (ay, by, lby, y))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            f_y = np.exp((ay - 1) * np.log(y) + (by - 1) * np.log1p(-y) - lby)
            g = (ay - 1) / y - (by - 1) / (1 - y)
            slope, curve = f_y * g, f_y * (g * g - (ay - 1) / (y * y) - (by - 1) / ((1 - y) * (1 - y)))
        # At y = 0 or 1, where f_Y' and f_Y'' may be unbounded:
        f_y, slope, curve = (np.where(np.isfinite(v), v, 0.0) for v in (f_y, slope, curve))
        w = weight[keep]
        cdf, pdf, dpdf, d2pdf = (np.zeros(keep.shape) for _ in range(4))
        cdf[keep], pdf[keep], dpdf[keep], d2pdf[keep] = w * special.betainc(ay, by, y), w * f_y, w * slope, w * curve
        cdf, pdf, dpdf, d2pdf = (np.sum(v, axis=1) for v in (cdf, pdf, dpdf, d2pdf))
        base = special.betainc(ax[:, 0], bx[:, 0], np.clip(s[:, 0] - 1, 0.0, 1.0))
        return np.clip(base + cdf, 0.0, 1.0), pdf, dpdf, d2pdf

    def _cornish_fisher(self, q):
        """Starting value: the quantile of S from its first four cumulants (which add over X and Y),
        μ + σ(z + γ₁(z² - 1)/6 + γ₂(z³ - 3z)/24 - γ₁²(2z³ - 5z)/36) (Cornish & Fisher 1937)."""
        sd_x, sd_y = _sd(self.ax, self.bx), _sd(self.ay, self.by)
        sd = np.hypot(sd_x, sd_y)
        mean = self.ax / (self.ax + self.bx) + self.ay / (self.ay + self.by)
        skew = (_skew(self.ax, self.bx) * sd_x**3 + _skew(self.ay, self.by) * sd_y**3) / sd**3
        kurt = (_excess_kurtosis(self.ax, self.bx) * sd_x**4 + _excess_kurtosis(self.ay, self.by) * sd_y**4) / sd**4
        z = special.ndtri(q)
        return mean + sd * (z + skew * (z * z - 1) / 6 + kurt * (z**3 - 3 * z) / 24 - skew**2 * (2 * z**3 - 5 * z) / 36)

    def quantile(self, q):
        """The s with F_S(s) = q, for q broadcasting against the parameters."""
        q = np.broadcast_to(np.asarray(q, dtype=float), self.ax.shape).reshape(-1)
        lo, hi = self.s_lo.reshape(-1).copy(), self.s_hi.reshape(-1).copy()
        s = np.clip(self._cornish_fisher(q.reshape(self.ax.shape)).reshape(-1), lo, hi)
        sd = np.hypot(_sd(self.ax, self.bx), _sd(self.ay, self.by)).reshape(-1)
        smooth = (np.minimum(self.ay, self.by) >= 1).reshape(-1)  # f_Y' integrable: f_S' exists
        smoother = (np.minimum(self.ay, self.by) >= 3).reshape(-1)  # f_Y'' bounded, f_Y, f_Y' vanish at 0, 1
        active = np.arange(q.size)
        for _ in range(_MAX_ITER):
            if active.size == 0:
                break
            cdf, pdf, dpdf, d2pdf = self.cdf_pdf(s[active], active)
            below = cdf < q[active]
            lo[active] = np.where(below, s[active], lo[active])
            hi[active] = np.where(below, hi[active], s[active])
            miss = cdf - q[active]
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                newton = miss / pdf
                halley = 2 * miss * pdf / (2 * pdf * pdf - miss * dpdf)
                # The root of the cubic Taylor polynomial of F_S at s (two Newton steps from Halley's).
                cubic = halley
                for _ in range(2):
                    cubic = cubic - ((miss - pdf * cubic + dpdf * cubic**2 / 2 - d2pdf * cubic**3 / 6)
                                     / (-pdf + dpdf * cubic - d2pdf * cubic**2 / 2))
            use_halley = smooth[active] & np.isfinite(halley) & (np.abs(halley - newton) <= np.abs(newton) / 2)
            use_cubic = use_halley & smoother[active] & np.isfinite(cubic) & (np.abs(cubic - halley) <= np.abs(newton) / 4)
            step = s[active] - np.where(use_cubic, cubic, np.where(use_halley, halley, newton))
            inside = np.isfinite(step) & (step >= lo[active]) & (step <= hi[active])
            new = np.where(inside, step, (lo[active] + hi[active]) / 2)
            # Once the step is below _ACCEPT standard deviations of S, Halley's step (error of
            # order step³) lands well within _TOL, and below _ACCEPT_CUBIC the cubic Taylor
            # step (error of order step⁴): accept it without another evaluation.
            small = ((np.abs(newton) < _TOL) | (use_halley & (np.abs(newton) < _ACCEPT * sd[active]))
                     | (use_cubic & (np.abs(newton) < _ACCEPT_CUBIC * sd[active])))
            done = (inside & small) | (hi[active] - lo[active] < _TOL)
            s[active] = new
            active = active[~done]
        return s.reshape(self.ax.shape)


def cdf(m, a1, b1, a2, b2):
    """P((X + Y)/2 <= m) for independent X ~ Beta(a1, b1), Y ~ Beta(a2, b2); broadcasts."""
    m, a1, b1, a2, b2 = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (m, a1, b1, a2, b2)))
    total = _Sum(a1, b1, a2, b2)
    value, *_ = total.cdf_pdf(np.clip(2 * m, 0.0, 2.0).reshape(-1))
    return value.reshape(m.shape)


def quantile(q, a1, b1, a2, b2):
    """The q-quantile of (X + Y)/2 for independent X ~ Beta(a1, b1), Y ~ Beta(a2, b2); broadcasts.

    Accurate to about 1e-8 for 1e-12 <= q <= 1 - 1e-12 (the tests check 1e-6).
    """
    q, a1, b1, a2, b2 = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (q, a1, b1, a2, b2)))
    # Each distinct problem is solved once, after two symmetries of the mean M:
    # reflection, Q(q; a1, b1, a2, b2) = 1 - Q(1 - q; b1, a1, b2, a2), puts q <= 1/2, and
    # exchange of X and Y orders the two parameter pairs. A table of intervals over
    # (k_pos, k_neg) thereby shrinks by 2 (4 when n_pos = n_neg).
    flip = q > 0.5
    q = np.round(np.where(flip, 1 - q, q), 15)  # so that 1 - (1 - q) == q again
    a1, b1 = np.where(flip, b1, a1), np.where(flip, a1, b1)
    a2, b2 = np.where(flip, b2, a2), np.where(flip, a2, b2)
    swap = (a1 > a2) | ((a1 == a2) & (b1 > b2))
    a1, a2 = np.where(swap, a2, a1), np.where(swap, a1, a2)
    b1, b2 = np.where(swap, b2, b1), np.where(swap, b1, b2)
    rows = np.stack([v.reshape(-1) for v in (q, a1, b1, a2, b2)], axis=1)
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)
    # Blocks of problems keep the (problems x nodes) temporaries in cache; each problem is
    # solved on its own, so the blocks do not change any bit.
    m = np.concatenate([np.clip(_Sum(*block[:, 1:].T).quantile(block[:, 0]) / 2, 0.0, 1.0)
                        for block in np.split(unique, np.arange(_BLOCK, len(unique), _BLOCK))])
    m = m[inverse.reshape(-1)].reshape(q.shape)
    return np.where(flip, 1 - m, m)


def interval(a1, b1, a2, b2, delta):
    """Equal-tailed interval: the (delta/2, 1 - delta/2) quantiles of (X + Y)/2; broadcasts."""
    *params, d = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a1, b1, a2, b2, delta)))
    # Both ends in one call, so that the reflection symmetry pairs them up.
    lower, upper = quantile(np.stack([d / 2, 1 - d / 2]), *(v[None] for v in params))
    return lower, upper
