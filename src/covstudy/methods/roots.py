"""A vectorised bracketed root finder: many monotone equations f_i(x) = 0 solved at once.

Illinois-modified regula falsi (Dowell & Jarratt 1971) with a bisection safeguard: each
step evaluates f only on the elements not yet converged, the secant step gives
superlinear convergence on smooth f, and a bisection whenever two steps failed to halve
the bracket keeps the worst case within about twice the bisection count (so kinks and
infinite values at an end are harmless). Converged when the bracket is a few ulps wide.
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
    where f < 0 (so it never overshoots the root).
    """
    shape = np.broadcast_shapes(np.shape(lo), np.shape(hi))
    a, b = (np.array(v, dtype=float).reshape(-1) for v in np.broadcast_arrays(lo, hi))
    index = np.arange(a.size)
    fa, fb = f(a, index), f(b, index)
    out = np.where(fa >= 0, a, b)
    todo = (fa < 0) & (fb > 0)
    i = index[todo]
    a, b, fa, fb = a[todo], b[todo], fa[todo], fb[todo]
    last = np.zeros(i.size, dtype=np.int8)  # which end moved last: -1 left, +1 right
    width_before = np.full(i.size, np.inf)  # bracket width two steps ago
    width_prev = b - a
    for _ in range(_MAX_ITER):
        done = (b - a) <= _RTOL * np.maximum(np.abs(a), np.abs(b)) + _ATOL
        if np.any(done):
            out[i[done]] = a[done]
            keep = ~done
            i, a, b, fa, fb, last = i[keep], a[keep], b[keep], fa[keep], fb[keep], last[keep]
            width_before, width_prev = width_before[keep], width_prev[keep]
        if i.size == 0:
            return out.reshape(shape)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            x = a - fa * (b - a) / (fb - fa)
        mid = a + (b - a) / 2
        bisect = ~np.isfinite(x) | (x <= a) | (x >= b) | ((b - a) > width_before / 2)
        x = np.where(bisect, mid, x)
        fx = f(x, i)
        left = fx < 0  # the root is right of x: x becomes the left end
        exact = fx == 0
        # Illinois: when the same end moves twice, halve the other end's value.
        fb = np.where(left & (last == -1), fb / 2, fb)
        fa = np.where(~left & (last == 1), fa / 2, fa)
        a, fa = np.where(left, x, a), np.where(left, fx, fa)
        b, fb = np.where(left, b, x), np.where(left, fb, fx)
        a = np.where(exact, x, a)
        last = np.where(left, -1, 1).astype(np.int8)
        width_before, width_prev = width_prev, b - a
    out[i] = a
    return out.reshape(shape)
