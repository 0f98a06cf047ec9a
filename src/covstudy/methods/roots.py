"""A vectorised bracketed root finder: many monotone equations f_i(x) = 0 solved at once.

Anderson-Björck-modified regula falsi (Anderson & Björck 1973, BIT 13, 253-264) with the
safeguards of Brent's method: each step evaluates f only on the elements not yet
converged; a secant step is taken when it lands inside the bracket no further from the best
end than half the step before last, otherwise the bracket is bisected (so the worst case stays
near twice the bisection count and kinks or infinite values at an end are harmless); a
step is never closer than the tolerance to an end, so that once the root is found the
far end collapses onto it. Converged when the bracket is a few ulps wide.
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
