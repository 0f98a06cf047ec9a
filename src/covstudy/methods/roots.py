"""A vectorised bracketed root finder: many monotone equations f_i(x) = 0 solved at once.

Anderson-Björck-modified regula falsi (Anderson & Björck 1973, BIT 13, 253-264) with the
safeguards of Brent's method: each step evaluates f only on the elements not yet
converged; a secant step is taken when it lands inside the bracket no further from the best
end than half the step before last, otherwise the bracket is bisected (so the worst case stays
near twice the bisection count and kinks or infinite values at an end are harmless); a
step is never closer than the tolerance to an end, so that once the root is found the
far end collapses onto it. Converged when the bracket is a few ulps wide.

``solve_near`` is for roots already roughly known (two starting points): secant steps, stopped
at a tolerance instead of a few ulps, falling back on ``solve_increasing``.
"""

from __future__ import annotations

import numpy as np

_RTOL = 4 * np.finfo(float).eps
_ATOL = 1e-300
_MAX_ITER = 400


def solve_increasing(f, lo, hi):
    """``x`` in ``[lo, hi]`` with f(x) = 0 for each element of the broadcast arrays ``lo``, ``hi``.

    ``f(x, i)`` evaluates the i-th equations (``i`` an index array into the flattened
    problem) at the points ``x``; it must be nondecreasing in x with at most one sign
    change. If ``f(lo) >= 0`` the answer is ``lo``; if ``f(hi) <= 0`` it is ``hi``.
    Otherwise the result is the left end of the final bracket, the largest point found
    where f < 0 (so it never overshoots the root). Bisection halves ``hi - lo``, so a root
    far below eps·(hi - lo) needs a bracket of its own scale (the callers' brackets are).
    """
    shape = np.broadcast_shapes(np.shape(lo), np.shape(hi))
    a, b = (np.array(v, dtype=float).reshape(-1) for v in np.broadcast_arrays(lo, hi))
    index = np.arange(a.size)
    fa, fb = f(a, index), f(b, index)
    out = np.where(fa >= 0, a, b)
    todo = (fa < 0) & (fb > 0)
    i, a, b, fa, fb = index[todo], a[todo], b[todo], fa[todo], fb[todo]
    last = np.zeros(i.size, dtype=np.int8)  # which end moved last: -1 left, +1 right
    step1 = np.full(i.size, np.inf)  # the last step's distance from the best end
    step2 = np.full(i.size, np.inf)  # the step before
    for _ in range(_MAX_ITER):
        tol = _RTOL * np.maximum(np.abs(a), np.abs(b)) + _ATOL
        done = (b - a) <= 2 * tol
        if np.any(done):
            out[i[done]] = a[done]
            keep = ~done
            i, a, b, fa, fb, last, step1, step2, tol = (
                v[keep] for v in (i, a, b, fa, fb, last, step1, step2, tol))
        if i.size == 0:
            break
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            x = a - fa * (b - a) / (fb - fa)
        best = np.where(np.abs(fa) < np.abs(fb), a, b)  # the end nearer the root, as far as f tells
        bisect = ~(np.isfinite(x) & (x >= a) & (x <= b) & (np.abs(x - best) <= step2 / 2))
        x = np.clip(np.where(bisect, a + (b - a) / 2, x), a + tol, b - tol)
        fx = f(x, i)
        left = fx < 0  # the root is right of x: x becomes the left end
        # Anderson-Björck: when the same end moves twice, scale down the other end's value.
        with np.errstate(invalid="ignore", divide="ignore"):
            scale_b = 1 - fx / fa
            scale_a = 1 - fx / fb
        fb = np.where(left & (last == -1), fb * np.where(scale_b > 0, scale_b, 0.5), fb)
        fa = np.where(~left & (last == 1), fa * np.where(scale_a > 0, scale_a, 0.5), fa)
        a, fa = np.where(left, x, a), np.where(left, fx, fa)
        b, fb = np.where(left, b, x), np.where(left, fb, fx)
        a = np.where(fx == 0, x, a)
        last = np.where(left, -1, 1).astype(np.int8)
        # As in Brent's method, a bisection resets the step memory to the bracket width, so
        # that the secant may take over again at once.
        step1, step2 = np.where(bisect, b - a, np.abs(x - best)), np.where(bisect, b - a, step1)
    else:
        out[i] = a
    return out.reshape(shape)


def solve_near(f, x0, f0, x1, lo, hi, tol=1e-12, max_steps=6):
    """Like ``solve_increasing``, for roots already roughly known: the secant method from the points
    ``x0`` (with values ``f0``) and ``x1``, x ← x - f(x)·(x - x')/(f(x) - f(x')) with x' the point before.

    A row is done when its last step, times the step's ratio to the one before, is at most ``tol``
    (the distance left to the root while the steps shrink at least geometrically; the secant's
    superlinear convergence makes it an overestimate), or, on the first step, when the step itself is. Every evaluation narrows the bracket
    [lo, hi] (f(lo) < 0 < f(hi), or the given ends); a step leaving it bisects it instead, and rows
    not done after ``max_steps`` evaluations finish with ``solve_increasing`` on their bracket,
    which also settles roots at an end of the original bracket as it does.
    """
    shape = np.broadcast_shapes(np.shape(x0), np.shape(x1), np.shape(lo), np.shape(hi))
    x0, f0, x1, lo, hi = (np.array(np.broadcast_to(v, shape), dtype=float).reshape(-1) for v in (x0, f0, x1, lo, hi))
    out = np.full(x0.size, np.nan)
    i = np.arange(x0.size)
    lo, hi = np.where(f0 < 0, np.maximum(lo, x0), lo), np.where(f0 > 0, np.minimum(hi, x0), hi)
    x = np.where((x1 > lo) & (x1 < hi), x1, (lo + hi) / 2)
    last = np.full(x.size, tol)  # x1 need not be a secant step: at first only a step below tol ends a row
    for _ in range(max_steps):
        fx = f(x, i)
        lo, hi = np.where(fx < 0, x, lo), np.where(fx > 0, x, hi)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            step = np.where(fx == 0, 0.0, fx * (x - x0) / (fx - f0))
            left = np.where(step == 0, 0.0, np.abs(step) * np.minimum(1, np.abs(step) / last))
        new = x - step
        ok = np.isfinite(new) & (new >= lo) & (new <= hi)
        done = ok & (left <= tol)
        out[i[done]] = new[done]
        keep = ~done
        new = np.where(ok, new, (lo + hi) / 2)
        # after a bisection the step memory restarts at tol: only a step below tol ends the row
        last = np.where(ok, np.abs(step), tol)
        i, x0, f0, x, lo, hi, last = (v[keep] for v in (i, x, fx, new, lo, hi, last))
        if i.size == 0:
            return out.reshape(shape)
    out[i] = solve_increasing(lambda t, j: f(t, i[j]), lo, hi)
    return out.reshape(shape)
