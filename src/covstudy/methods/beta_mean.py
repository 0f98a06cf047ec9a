"""The mean M = (X + Y)/2 of two independent Beta variables: exact CDF and quantiles.

Brodersen et al. (2010) give balanced accuracy the posterior of the average of the two
class accuracies, X ~ Beta(a1, b1) and Y ~ Beta(a2, b2). Its CDF is the convolution

    P(M <= m) = F_S(2m),   F_S(s) = F_X(s - 1) + ∫_{max(s-1, 0)}^{min(s, 1)} f_X(x) F_Y(s - x) dx,

(for x < s - 1 the event Y <= s - x is certain). Two choices keep the integral accurate for
concentrated posteriors (n in the thousands):

* X is the narrower of the two variables (smaller sd), so F_Y(s - x) is smooth on X's scale;
* x is restricted to X's central range [Q_X(eps), Q_X(1 - eps)], which moves F_S by at most
  2·eps but puts every node where X has mass.

The quadrature rule depends on the parameters (``_by_rule``): 24-point Gauss-Legendre
(eps = 1e-9) when every parameter is whole or >= 5 (the uniform prior), where the integrand
behaves like a polynomial at the ends of its range; 40-point Gauss-Legendre after a cosine
substitution (eps = 1e-12) when they are half-integers (the Jeffreys prior), which makes the
square-root-like ends polynomial; tanh-sinh (double-exponential, eps = 1e-14), exact to
rounding for any integrable end singularity, for other small parameters.

Quantiles invert F_S by safeguarded Newton/Halley steps (bisection when a step leaves the
bracket) from a four-cumulant Cornish-Fisher start. Where f_S is smooth enough (Y's parameters
>= 3, or X's when Y's are smaller: the derivatives then go through f_X, see _Sum.cdf_pdf) the
step is the root of F_S's cubic Taylor polynomial, and a step below 0.015 sd is the last one:
its error is of order step⁴/sd³, ~1e-9 sd. The sd is S's, or X's where F_Y has a kink at 0 or 1
that F_S smooths only on X's scale. Most quantiles thus cost one CDF evaluation (1.22 on the
balanced_imbalance study, 2.1 with Halley steps alone). The tests check them against Monte
Carlo and adaptive quadrature, on a sweep of the study's parameter region too, and the
Gauss-Legendre rules against the tanh-sinh rule.
Reference: Brodersen, Ong, Stephan & Buhmann (2010), "The balanced accuracy and its
posterior distribution", Proc. 20th ICPR, 3121-3124.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .distinct import unique_rows

_TOL = 1e-10  # Newton/bisection stopping rule on s = 2m
_ACCEPT = 1e-5  # a Halley step below this many sd is the last one (see _Sum.quantile)
_ACCEPT_CUBIC = 1.5e-2  # a cubic Taylor step below this many sd is the last one
_MAX_ITER = 100
_BLOCK_NODES = 15_000  # (problems x nodes) solved at once: ~120 kB temporaries, below malloc's mmap threshold
_NEGLIGIBLE = 1e-10  # nodes with less than this share of the weight are skipped (F_S moves < 1e-8)


# Quadrature rules on [-1, 1], as (1 + r, 1 - r, weights, eps, sparse): the nodes' distances from
# both ends (kept apart, so that nodes next to an end keep their full relative precision), the
# weights, the tail mass of X left out of the integration range on each side, and whether
# nodes of negligible weight are common enough to be worth skipping.
def _gauss_legendre(n, eps):
    z, w = np.polynomial.legendre.leggauss(n)
    return 1 + z, 1 - z, w, eps, False


def _gauss_legendre_cosine(n, eps):
    """Gauss-Legendre in t on [0, 1] with r = -cos(πt): r + 1 and 1 - r vanish like t² at the
    ends, so that an end behaviour (r + 1)^(k/2) becomes a polynomial in t."""
    z, w = np.polynomial.legendre.leggauss(n)
    t = (1 + z) / 2
    return 2 * np.sin(np.pi * t / 2) ** 2, 2 * np.cos(np.pi * t / 2) ** 2, w * np.pi / 2 * np.sin(np.pi * t), eps, True


def _tanh_sinh(T, h, eps):
    """r = tanh(π/2·sinh t), t = -T..T in steps of h (double-exponential quadrature)."""
    t = np.arange(-T, T + h / 2, h)
    v = np.pi / 2 * np.sinh(t)
    return 2 / (1 + np.exp(-2 * v)), 2 / (1 + np.exp(2 * v)), h * np.pi / 2 * np.cosh(t) / np.cosh(v) ** 2, eps, True


_SMOOTH_FROM = 5.0  # Beta parameters from here on leave no singular behaviour in the range
_GAUSS = _gauss_legendre(24, 1e-9)  # every parameter whole or >= _SMOOTH_FROM
_GAUSS_COSINE = _gauss_legendre_cosine(40, 1e-12)  # ... or a half-integer (Jeffreys' k + 1/2)
_TANH_SINH = _tanh_sinh(3.6, 1 / 14, 1e-14)  # any other parameters


def _by_rule(params):
    """(rule, indices) of the problems for each quadrature rule.

    F_S's integrand behaves at the ends of its range like x^(a_X - 1), (1 - x)^(b_X - 1),
    y^(a_Y) or (1 - y)^(b_Y) (where the range is cut at y = s - x = 0 or 1), or is negligible
    there when every parameter is >= _SMOOTH_FROM. With whole parameters these are polynomials,
    and 24 Gauss-Legendre nodes suffice; with half-integers the cosine substitution makes them
    polynomials in t, and 40 nodes suffice (measured over the balanced_imbalance study's
    problems and a sweep of small and edge counts: quantiles within 3e-9 and 2e-9 of a finer
    tanh-sinh rule). Other small parameters keep the tanh-sinh rule, exact to rounding for any
    end singularity, at ~2x the cost."""
    whole, half = (np.logical_and.reduce([(f * v == np.round(f * v)) | (v >= _SMOOTH_FROM) for v in params])
                   for f in (1, 2))
    groups = ((_GAUSS, whole), (_GAUSS_COSINE, half & ~whole), (_TANH_SINH, ~half))
    return [(rule, np.flatnonzero(rows)) for rule, rows in groups if np.any(rows)]


def _sd(a, b):
    return np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))


def _skew(a, b):
    return 2 * (b - a) * np.sqrt(a + b + 1) / ((a + b + 2) * np.sqrt(a * b))


def _excess_kurtosis(a, b):
    return 6 * ((a - b) ** 2 * (a + b + 1) - a * b * (a + b + 2)) / (a * b * (a + b + 2) * (a + b + 3))


class _Sum:
    """S = X + Y for broadcast parameter arrays, X the narrower variable; evaluates F_S and f_S."""

    def __init__(self, a1, b1, a2, b2, rule=_TANH_SINH):
        a1, b1, a2, b2 = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a1, b1, a2, b2)))
        self.one_plus_r, self.one_minus_r, self.weights, eps, self.sparse = rule
        swap = _sd(a1, b1) > _sd(a2, b2)
        self.ax, self.bx = np.where(swap, a2, a1), np.where(swap, b2, b1)
        self.ay, self.by = np.where(swap, a1, a2), np.where(swap, b1, b2)
        self.x_form = (np.minimum(self.ay, self.by) < 3) & (np.minimum(self.ax, self.bx) >= 3)  # see cdf_pdf
        self.log_beta_x = special.betaln(self.ax, self.bx)
        self.log_beta_y = special.betaln(self.ay, self.by)
        # Q_X(eps) = I⁻¹(eps; a_X, b_X) and Q_X(1 - eps) = 1 - I⁻¹(eps; b_X, a_X) (without 1 - eps's
        # rounding), once per distinct unordered pair {a_X, b_X}: the two ends of an interval
        # (problems reflected into each other, solved side by side) share them.
        low, high = np.minimum(self.ax, self.bx).reshape(-1), np.maximum(self.ax, self.bx).reshape(-1)
        pairs, inverse = unique_rows(np.stack([low, high], axis=1))
        ab, ba = (special.betaincinv(*pair, eps)[inverse].reshape(self.ax.shape) for pair in (pairs.T, pairs.T[::-1]))
        forward = self.ax <= self.bx
        self.x_lo, self.x_hi = np.where(forward, ab, ba), 1 - np.where(forward, ba, ab)
        # A bracket of every quantile used (eps < q < 1 - eps): S <= Q_X(eps) needs X <= Q_X(eps),
        # and S > Q_X(1 - eps) + 1 needs X > Q_X(1 - eps). (Y's quantiles would tighten it, at a
        # cost of two more Beta quantiles per problem, only for the rare bisection steps.)
        self.s_lo, self.s_hi = self.x_lo, self.x_hi + 1

    def cdf_pdf(self, s, idx=slice(None)):
        """(F_S(s), f_S(s), f_S'(s), f_S''(s)) for the parameter entries ``idx`` (flat arrays of equal length as s).

        f_S^(j)(s) = ∫ f_X(x) f_Y^(j)(s - x) dx with f_Y' = f_Y·g, f_Y'' = f_Y·(g² + g'),
        g(y) = (a_Y - 1)/y - (b_Y - 1)/(1 - y); exact when f_Y^(j) is integrable and vanishes at
        0 and 1 (a_Y, b_Y > j; the quantile search uses f_S' and f_S'' only then). Where Y's
        parameters are too small for that and X's are not (``x_form``), the derivatives go to
        f_X instead: f_S^(j)(s) = ∫ f_X^(j)(x) f_Y(s - x) dx, with the same g of (a_X, b_X, x)
        (the ends of X's range add terms of order f_X(Q_X(eps)), negligible for a_X, b_X >= 3)."""
        x_form = self.x_form.reshape(-1)[idx]
        ax, bx, ay, by = (v.reshape(-1)[idx][:, None] for v in (self.ax, self.bx, self.ay, self.by))
        lbx, lby = self.log_beta_x.reshape(-1)[idx][:, None], self.log_beta_y.reshape(-1)[idx][:, None]
        s = s[:, None]
        xa = np.maximum(self.x_lo.reshape(-1)[idx][:, None], np.maximum(s - 1, 0.0))
        xb = np.minimum(self.x_hi.reshape(-1)[idx][:, None], np.minimum(s, 1.0))
        length = np.maximum(xb - xa, 0.0)
        x = xa + length / 2 * self.one_plus_r
        one_minus_x = (1 - xb) + length / 2 * self.one_minus_r
        y = np.clip((s - xb) + length / 2 * self.one_minus_r, 0.0, 1.0)  # s - x, precise near x = s
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            f_x = np.exp((ax - 1) * np.log(x) + (bx - 1) * np.log(one_minus_x) - lbx)
        # An empty range (xa >= xb) has zero length; keep its (unused) terms finite.
        weight = length / 2 * self.weights * np.where(np.isfinite(f_x), f_x, 0.0)
        base = special.betainc(ax[:, 0], bx[:, 0], np.clip(s[:, 0] - 1, 0.0, 1.0))  # F_X(s - 1)
        if self.sparse:
            # Many tanh-sinh nodes carry no weight: Y's terms (the incomplete Beta function
            # dominates the cost) only where the weight is not negligible (>= _NEGLIGIBLE of the row's).
            keep = weight > _NEGLIGIBLE * np.sum(weight, axis=1, keepdims=True)
            row = np.nonzero(keep)[0]
            ay, by, lby, y, w = ay[row, 0], by[row, 0], lby[row, 0], y[keep], weight[keep]
            ax, bx, x, one_minus_x, x_form = ax[row, 0], bx[row, 0], x[keep], one_minus_x[keep], x_form[row]

            def total(v):
                return np.bincount(row, w * v, minlength=len(s))
        else:  # Gauss-Legendre nodes all carry weight: no selection

            def total(v):
                return np.sum(weight * v, axis=1)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            f_y = np.exp((ay - 1) * np.log(y) + (by - 1) * np.log1p(-y) - lby)
            a, b, z, one_minus_z = ay, by, y, 1 - y
            if np.any(x_form):
                if not self.sparse:
                    x_form = x_form[:, None]
                a, b, z, one_minus_z = (np.where(x_form, u, v) for u, v in ((ax, a), (bx, b), (x, z), (one_minus_x, one_minus_z)))
            g = (a - 1) / z - (b - 1) / one_minus_z
            slope, curve = f_y * g, f_y * (g * g - (a - 1) / (z * z) - (b - 1) / (one_minus_z * one_minus_z))
        # At y = 0 or 1, where f_Y' and f_Y'' may be unbounded:
        f_y, slope, curve = (np.where(np.isfinite(v), v, 0.0) for v in (f_y, slope, curve))
        cdf, pdf, dpdf, d2pdf = (total(v) for v in (special.betainc(ay, by, y), f_y, slope, curve))
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
        z2 = z * z
        return mean + sd * (z + skew * (z2 - 1) / 6 + kurt * z * (z2 - 3) / 24 - skew * skew * z * (2 * z2 - 5) / 36)

    def quantile(self, q):
        """The s with F_S(s) = q, for q broadcasting against the parameters."""
        q = np.broadcast_to(np.asarray(q, dtype=float), self.ax.shape).reshape(-1)
        lo, hi = self.s_lo.reshape(-1).copy(), self.s_hi.reshape(-1).copy()
        s = np.clip(self._cornish_fisher(q.reshape(self.ax.shape)).reshape(-1), lo, hi)
        # The scale on which F_S is smooth: sd of S, or of X where F_Y has a kink at 0 or 1 (x_form)
        sd = np.where(self.x_form, _sd(self.ax, self.bx), np.hypot(_sd(self.ax, self.bx), _sd(self.ay, self.by))).reshape(-1)
        # f_S' and f_S'' are exact (cdf_pdf) where f_Y' is integrable (Y's parameters >= 1),
        # where f_Y'' is bounded and f_Y, f_Y' vanish at 0 and 1 (>= 3), or through f_X (x_form)
        smooth = ((np.minimum(self.ay, self.by) >= 1) | self.x_form).reshape(-1)
        smoother = ((np.minimum(self.ay, self.by) >= 3) | self.x_form).reshape(-1)
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
            # Once the step is below _ACCEPT sd (S's, or X's: see above), Halley's step (error of
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
    s, params = np.clip(2 * m, 0.0, 2.0).reshape(-1), [v.reshape(-1) for v in (a1, b1, a2, b2)]
    value = np.empty(s.size)
    for rule, rows in _by_rule(params):
        value[rows], *_ = _Sum(*(v[rows] for v in params), rule=rule).cdf_pdf(s[rows])
    return value.reshape(m.shape)


def quantile(q, a1, b1, a2, b2):
    """The q-quantile of (X + Y)/2 for independent X ~ Beta(a1, b1), Y ~ Beta(a2, b2); broadcasts.

    Accurate to about 1e-8 for 1e-12 <= q <= 1 - 1e-12 (the tests check 1e-6 against QUADPACK).
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
    unique, inverse = unique_rows(rows)
    # Blocks of problems keep the (problems x nodes) temporaries in cache; each problem is
    # solved on its own, so the blocks do not change any bit. Problems with the same unordered
    # parameter pairs (an interval's two ends after reflection) go side by side (_Sum shares X's tails).
    first, second = (np.sort(unique[:, cols], axis=1) for cols in ([1, 2], [3, 4]))
    later = (first[:, 0] > second[:, 0]) | ((first[:, 0] == second[:, 0]) & (first[:, 1] > second[:, 1]))
    key = np.where(later[:, None], np.hstack([second, first]), np.hstack([first, second]))
    order = np.lexsort(key.T[::-1])
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    unique, inverse = unique[order], position[inverse]
    m = np.empty(len(unique))
    for rule, rows in _by_rule(unique[:, 1:].T):
        size = _BLOCK_NODES // len(rule[0])
        for block in np.split(rows, np.arange(size, len(rows), size)):
            m[block] = np.clip(_Sum(*unique[block, 1:].T, rule=rule).quantile(unique[block, 0]) / 2, 0.0, 1.0)
    m = m[inverse.reshape(-1)].reshape(q.shape)
    return np.where(flip, 1 - m, m)


def interval(a1, b1, a2, b2, delta):
    """Equal-tailed interval: the (delta/2, 1 - delta/2) quantiles of (X + Y)/2; broadcasts."""
    *params, d = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a1, b1, a2, b2, delta)))
    # Both ends in one call, so that the reflection symmetry pairs them up.
    lower, upper = quantile(np.stack([d / 2, 1 - d / 2]), *(v[None] for v in params))
    return lower, upper
