"""An adaptive search of the worst coverage over a box of a design's parameters (Monte Carlo or exact).

Where no certified bound exists (Monte Carlo designs, methods that draw random numbers), the audit's
worst coverage is *searched*: the lowest coverage found over the box, labelled ``searched`` (never
certified; ``worst_bound`` stays NaN). ``search`` takes a function ``evaluate`` that returns the
coverage, its MCSE and the mean width at a list of points (coordinates of the box), and:

1. starts at the plug-in point and the box's corners (more than 3 coordinates: the 2·d ends of the
   axes through the plug-in point plus FILL space-filling points, a Halton sequence);
2. refines around the current worst (the lowest start point, then, while the budget lasts, RESTARTS
   more of the next lowest): the 2·d coordinate steps ±h·side_i (clipped into the box) from
   it, h = START_STEP of each side at first; the search moves to the lowest new point when it is lower
   than the current worst by more than SIGNIFICANT MCSE of the difference, sqrt(mcse_a² + mcse_b²)
   (exact: by more than EXACT_GAIN), else h halves, HALVINGS times at most;
3. stops there, or when the budget (points evaluated; points × reps for the caller) is spent.

The search is deterministic: its order is fixed and ``evaluate`` uses the same seed at every point
(common random numbers: the same seed at every point and for every method, whose test sets
``coverage()`` shares at a point). The point it settles on is the current worst when it stops; the
reported worst is the lowest coverage evaluated (at most that point's), and its place. Choosing the
lowest of many noisy points biases the reported worst low by up to ~2 MCSE: conservative, never
favouring a method. Flow: metrics (the box) -> audit (``evaluate`` on ``coverage()``) -> search.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

START_STEP = 0.25  # first coordinate step, a share of each side of the box
HALVINGS = 3  # the step halves this many times (1/4, 1/8, 1/16, 1/32 of a side)
SIGNIFICANT = 2.0  # a move needs an improvement above this many MCSE of the difference
EXACT_GAIN = 1e-9  # exact coverage: any improvement moves the search
FILL = 4  # space-filling start points in more than CORNERS_UP_TO dimensions
CORNERS_UP_TO = 3  # up to this many coordinates the box's corners are start points (2^d of them)
MAX_POINTS = 40  # default budget: points evaluated
RESTARTS = 2  # local searches from the next lowest start points, while the budget lasts


@dataclass
class Found:
    """The search's result: the lowest coverage evaluated (``worst``, its ``mcse``, its coordinates
    ``at``), the plug-in point's coverage, MCSE and mean width, and the points evaluated."""

    worst: float
    mcse: float
    at: dict
    coverage: float
    coverage_mcse: float
    width: float
    points: int


def halton(count: int, dims: int) -> np.ndarray:
    """The first ``count`` points (from the second) of the Halton sequence in [0, 1]^dims, bases the
    first ``dims`` primes (Halton 1960, Numerische Mathematik 2, 84-90)."""
    primes = []
    candidate = 2
    while len(primes) < dims:  # trial division: dims is the box's coordinates (a class's recall each)
        if all(candidate % q for q in primes):
            primes.append(candidate)
        candidate += 1
    out = np.zeros((count, dims))
    for j, b in enumerate(primes):
        for i in range(count):
            k, f, x = i + 1, 1.0, 0.0
            while k:
                f /= b
                x += f * (k % b)
                k //= b
            out[i, j] = x
    return out


def start_points(box: dict, at: dict) -> list[dict]:
    """The plug-in point, then the corners (d <= CORNERS_UP_TO) or the axis ends through the plug-in
    point and FILL Halton points (more coordinates); coordinates of zero width stay at the plug-in."""
    names = list(box)
    lo = np.array([box[k][0] for k in names], dtype=float)
    hi = np.array([box[k][1] for k in names], dtype=float)
    x0 = np.array([at[k] for k in names], dtype=float)
    pts = [x0]
    if len(names) <= CORNERS_UP_TO:
        pts += [np.array(c) for c in itertools.product(*zip(lo, hi))]
    else:
        for i in range(len(names)):
            for end in (lo[i], hi[i]):
                x = x0.copy()
                x[i] = end
                pts.append(x)
        pts += list(lo + halton(FILL, len(names)) * (hi - lo))
    return [dict(zip(names, map(float, x))) for x in pts]


def search(evaluate: Callable, box: dict, at: dict, max_points: int = MAX_POINTS) -> Found:
    """The worst coverage over ``box`` ({coordinate: (low, high)}) by the module's adaptive search from
    the plug-in point ``at``. ``evaluate(points)`` -> (coverage, mcse, mean_width), arrays over a list of
    coordinate dicts; it should use one seed for every point (common random numbers)."""
    names = list(box)
    lo = np.array([box[k][0] for k in names], dtype=float)
    hi = np.array([box[k][1] for k in names], dtype=float)
    side = hi - lo
    seen: dict[tuple, tuple[float, float, float]] = {}  # point -> (coverage, MCSE, mean width)
    order: list[tuple] = []

    def key(p: dict) -> tuple:
        return tuple(round(float(p[k]), 12) for k in names)

    def run(points: list[dict]) -> None:
        """Evaluate the points not seen yet, in order, while the budget lasts."""
        fresh, keys = [], []
        for p in points:
            k = key(p)
            if k not in seen and k not in keys and len(seen) + len(fresh) < max_points:
                fresh.append(p)
                keys.append(k)
        if fresh:
            cov, mcse, width = (np.atleast_1d(np.asarray(v, dtype=float)) for v in evaluate(fresh))
            for k, c, m, w in zip(keys, cov, mcse, width):
                seen[k] = (float(c), float(m), float(w))
                order.append(k)

    def local(centre: tuple) -> None:
        step, halvings = START_STEP, 0
        while halvings <= HALVINGS and len(seen) < max_points:
            x = np.array(centre)
            moves = []
            for i in range(len(names)):
                if side[i] <= 0:
                    continue
                for sign in (-1, 1):
                    y = x.copy()
                    y[i] = min(max(y[i] + sign * step * side[i], lo[i]), hi[i])
                    moves.append(dict(zip(names, map(float, y))))
            run(moves)
            tried = [k for k in dict.fromkeys(key(m) for m in moves) if k != centre and k in seen]
            best = min(tried, key=lambda k: seen[k][0]) if tried else None
            if best is not None and _better(seen[best], seen[centre]):
                centre = best
            else:
                step, halvings = step / 2, halvings + 1

    starts = start_points(box, at)
    run(starts)
    plug = key(starts[0])
    # from the lowest start point, then the next lowest, ... while the budget lasts (coverage has many dips)
    for centre in sorted([k for k in dict.fromkeys(key(p) for p in starts) if k in seen],
                         key=lambda k: seen[k][0])[:RESTARTS + 1]:
        if len(seen) >= max_points:
            break
        local(centre)
    worst = min(order, key=lambda k: seen[k][0])  # the first evaluated of equal lows
    c, m, _ = seen[worst]
    pc, pm, pw = seen[plug]
    return Found(c, m, dict(zip(names, worst)), pc, pm, pw, len(seen))


def _better(new: tuple, old: tuple) -> bool:
    """Whether coverage ``new`` is below ``old`` by more than SIGNIFICANT MCSE of the difference."""
    noise = math.hypot(new[1], old[1])
    return old[0] - new[0] > (SIGNIFICANT * noise if noise > 0 else EXACT_GAIN)
