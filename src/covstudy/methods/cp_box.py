"""Guaranteed intervals by projection: a simultaneous exact region of a design's parameters, mapped onto the metric.

The region is a product of Clopper–Pearson intervals, one per coordinate, each at level (1 - δ)^{1/k} over the
k coordinates the metric reads. Each coordinate is a binomial proportion given the counts before it (a sequential
factorisation of the multinomial), so the k intervals hold together with probability >= ((1 - δ)^{1/k})^k = 1 - δ
(conditioning on each earlier count in turn; an interval with 0 trials is [0, 1]). On that event the true metric
lies between the metric's minimum and maximum over the box, so [min, max] covers with probability >= 1 - δ for
every parameter value. The coordinates, as the audit's (evaluation/metrics.py, evaluation/judged.py):

* ``paired_confusion`` (``pm_cp_box``): the prevalence π, and in each class the discordant share d, the
  first-only share r of the discordant and the both-correct share s of the concordant; the class's two rates are
  t₁ = s + d(r - s), t₂ = s + d(1 - r - s). Recall and specificity read their class's 3 coordinates, balanced
  accuracy 6, the others 7.
* ``unpaired_confusion`` (``um_cp_box``): each test set's prevalence, tpr and tnr (6; recall and specificity 2).
* ``judged`` (``judged_cp_box``): the judge's positive rate q over all N examples, and from the human labels
  PPV = P(y = 1 | judge 1) and FOR = P(y = 1 | judge 0): p = q·PPV + (1 - q)·FOR (3). The human-labelled
  examples must be a random sample of the N (the judged design's ``random`` sampling).

The projection. Every metric here, M(t, n, π) of a classifier's tpr t, tnr n and the prevalence π, rises with
t and with n and is monotone in π. Hence: unpaired and judged — the difference (or p) is monotone or multilinear
in each coordinate, so its range over the box is at the box's corners: exact. Paired — D = M(t₁, n₁, π) -
M(t₂, n₂, π) rises with each class's r (t₁ up, t₂ down), so r sits at its end; in each class, (d, s) ↦ (t₁, t₂)
has Jacobian (1 - d)(2r - 1), non-zero inside the rectangle unless r = ½ (then t₁ = t₂ and D's extremes over
the rectangle are on its boundary too, a bilinear function having no interior extremum), and D has no critical
point in (t₁, t₂) unless it is locally constant in the class, so D's extremes over each class's (d, s) rectangle
lie on its 4 edges, on which t₁ and t₂ are affine in one parameter. Each edge is cut into EDGE_CELLS pieces and π
into PI_CELLS; on a piece the ranges of t₁, t₂, n₁, n₂ are exact (affine: at its ends) and M's range follows by
monotonicity, so min over pieces of [M(t₁ low, n₁ low, π end) - M(t₂ high, n₂ high, π end)] is a proven lower
bound of D's minimum (the maximum likewise): an outer bound, within about 0.01 of the exact range
(tests/test_cp_box.py measures it against a brute-force grid). Recall, specificity, balanced accuracy and
accuracy are linear in (t, n) at a fixed π, so their D is multilinear in the box's coordinates: exact, at the
corners.
"""

from __future__ import annotations

import itertools

import numpy as np

from .._lazy import stats
from . import paired_metrics, unpaired_metrics  # noqa: F401  (their kinds, registered before these methods)
from .judged import CELLS as JUDGED_CELLS
from .registry import register

EDGE_CELLS = 24  # pieces of each edge of a class's (d, s) rectangle
_CELLS = 1 << 22  # pieces × test sets held at once (memory)
PI_CELLS = 8  # pieces of the prevalence's interval
REFERENCE = ("Clopper & Pearson (1934), Biometrika 26, 404-413; the projection of a simultaneous confidence "
             "region, e.g. Casella & Berger (2002), Statistical Inference, sec. 9.2.3")


def cp(k, n, level):
    """Clopper–Pearson interval of k successes in n trials at ``level`` (arrays); [0, 1] when n = 0."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    tail = (1 - np.asarray(level, dtype=float)) / 2
    safe = np.maximum(n, 1)
    with np.errstate(all="ignore"):
        lo = np.where(k > 0, stats.beta.ppf(tail, k, safe - k + 1), 0.0)
        hi = np.where(k < n, stats.beta.ppf(1 - tail, k + 1, safe - k), 1.0)
    return np.where(n > 0, lo, 0.0), np.where(n > 0, hi, 1.0)


def rate(metric, t, n, pi):
    """M(t, n, π) of a classifier with tpr t and tnr n at prevalence π (0 where a denominator is 0)."""
    tp, fn, fp, tn = pi * t, pi * (1 - t), (1 - pi) * (1 - n), (1 - pi) * n
    k, l = {"recall": (tp, fn), "specificity": (tn, fp), "precision": (tp, fp), "npv": (tn, fn),
            "accuracy": (tp + tn, fn + fp), "f1": (2 * tp, fp + fn)}.get(metric, (None, None))
    if metric == "balanced_accuracy":
        return (t + n) / 2
    with np.errstate(all="ignore"):
        return np.where(k + l > 0, k / np.where(k + l > 0, k + l, 1.0), 0.0)


READS = {"recall": ("pos",), "specificity": ("neg",), "balanced_accuracy": ("pos", "neg")}  # else pos, neg and π
LINEAR = ("recall", "specificity", "balanced_accuracy", "accuracy")  # linear in (t, n) at a fixed π


def _range(metric, t, n, pi):
    """(low, high) of M over cells: t, n as (low, high) pairs, π as its two ends (M monotone in each)."""
    ends = [rate(metric, t[0], n[0], p) for p in pi], [rate(metric, t[1], n[1], p) for p in pi]
    return np.minimum(*ends[0]), np.maximum(*ends[1])


def _shares(both, first, second, neither, level):
    """The class's (d, r, s) intervals: discordant of all, first-only of discordant, both of concordant."""
    disc, conc = first + second, both + neither
    return cp(disc, disc + conc, level), cp(first, disc, level), cp(both, conc, level)


def _edges(d, r, s):
    """t₁, t₂ ranges on the EDGE_CELLS pieces of the 4 edges of the (d, s) rectangle at r: 4 arrays (..., 4·cells)."""
    u = np.linspace(0.0, 1.0, EDGE_CELLS + 1)
    d0, d1, s0, s1, r = (np.asarray(x, dtype=float)[..., None] for x in (d[0], d[1], s[0], s[1], r))
    path = [(d0 + 0 * u, s0 + u * (s1 - s0)), (d1 + 0 * u, s0 + u * (s1 - s0)),
            (d0 + u * (d1 - d0), s0 + 0 * u), (d0 + u * (d1 - d0), s1 + 0 * u)]
    t1 = np.concatenate([s + dd * (r - s) for dd, s in path], axis=-1)
    t2 = np.concatenate([s + dd * (1 - r - s) for dd, s in path], axis=-1)
    cut = np.ones(4 * (EDGE_CELLS + 1), dtype=bool)
    cut[EDGE_CELLS::EDGE_CELLS + 1] = False  # the last point of each edge starts no piece
    a, b = (lambda x: x[..., :-1][..., cut[:-1]], lambda x: x[..., 1:][..., cut[:-1]])
    return (np.minimum(a(t1), b(t1)), np.maximum(a(t1), b(t1)), np.minimum(a(t2), b(t2)), np.maximum(a(t2), b(t2)))


def _pm_extreme(metric, pos, neg, pi, high):
    """A proven lower bound of D's minimum (``high``: an upper bound of its maximum) over the box."""
    sign = 1 if high else -1
    axes = []
    for cls, (d, r, s) in (("pos", pos), ("neg", neg)):
        if cls in READS.get(metric, ("pos", "neg")):
            axes.append(_edges(d, r[1] if high else r[0], s))
        else:  # the class does not enter: a single fixed point (its rates cancel in M or are not read)
            one = np.full(np.shape(d[0]) + (1,), 0.5)
            axes.append((one, one, one, one))
    (t1l, t1h, t2l, t2h), (n1l, n1h, n2l, n2h) = axes
    ends = np.linspace(0.0, 1.0, PI_CELLS + 1)
    p = pi[0][..., None] + ends * (pi[1] - pi[0])[..., None]
    p0, p1 = p[..., :-1], p[..., 1:]
    shape = lambda x, where: np.expand_dims(x, [a for a in (-3, -2, -1) if a != where])  # noqa: E731
    T = lambda lo, hi: (shape(lo, -3), shape(hi, -3))  # noqa: E731
    N = lambda lo, hi: (shape(lo, -2), shape(hi, -2))  # noqa: E731
    P = (shape(p0, -1), shape(p1, -1))
    first_lo, first_hi = _range(metric, T(t1l, t1h), N(n1l, n1h), P)
    second_lo, second_hi = _range(metric, T(t2l, t2h), N(n2l, n2h), P)
    value = first_hi - second_lo if high else first_lo - second_hi
    return sign * np.max(sign * value, axis=(-3, -2, -1))


@register("pm_cp_box", display="Clopper–Pearson box (paired)", family="exact", guaranteed=True,
          takes="paired_confusion", random=False, reference=REFERENCE)
def pm_cp_box(*cells_and_delta, metric="f1", rng=None):
    """[min, max] of metric(first) - metric(second) over the product of Clopper–Pearson intervals of π and each
    class's (d, r, s) at (1 - δ)^{1/k} (module docstring; a proven outer bound), clipped to [-1, 1]."""
    *cells, delta = cells_and_delta
    x = np.broadcast_arrays(*(np.asarray(c, dtype=float) for c in cells))
    n_pos, n_neg = x[0] + x[1] + x[2] + x[3], x[4] + x[5] + x[6] + x[7]
    k = {"recall": 3, "specificity": 3, "balanced_accuracy": 6}.get(metric, 7)
    level = (1 - np.asarray(delta, dtype=float)) ** (1 / k)
    pos, neg = _shares(*x[:4], level), _shares(*x[4:], level)
    pi = cp(n_pos, n_pos + n_neg, level) if k == 7 else (np.full(n_pos.shape, 0.5),) * 2
    if metric in LINEAR:  # multilinear in the box's coordinates: its range is at the 2^7 corners, exact
        def D(p, d1, r1, s1, d2, r2, s2):
            t1, t2, n1, n2 = s1 + d1 * (r1 - s1), s1 + d1 * (1 - r1 - s1), s2 + d2 * (r2 - s2), s2 + d2 * (1 - r2 - s2)
            return rate(metric, t1, n1, p) - rate(metric, t2, n2, p)
        lo, hi = _corners(D, [pi, *pos, *neg])
        return np.clip(lo, -1.0, 1.0), np.clip(hi, -1.0, 1.0)
    pos, neg, pi = ([tuple(np.broadcast_to(e, n_pos.shape) for e in iv) for iv in box] for box in (pos, neg, [pi]))
    pi = pi[0]
    flat = [np.ravel(a) for a in (*(e for iv in pos + neg for e in iv), *pi)]
    lo, hi = np.empty(flat[0].size), np.empty(flat[0].size)
    step = max(1, _CELLS // ((4 * EDGE_CELLS) ** 2 * PI_CELLS))
    for i in range(0, flat[0].size, step):  # blocks of test sets: the pieces' grid is (4·EDGE_CELLS)²·PI_CELLS each
        b = [a[i:i + step] for a in flat]
        box = [(b[j], b[j + 1]) for j in range(0, 14, 2)]
        lo[i:i + step] = _pm_extreme(metric, box[:3], box[3:6], box[6], high=False)
        hi[i:i + step] = _pm_extreme(metric, box[:3], box[3:6], box[6], high=True)
    shape = np.shape(n_pos)
    return np.clip(lo, -1.0, 1.0).reshape(shape), np.clip(hi, -1.0, 1.0).reshape(shape)


def _corners(f, boxes):
    """(min, max) of f over the corners of a box given as [(low, high), ...] (f vectorised, monotone or
    multilinear in each coordinate, so its range is at the corners)."""
    values = [f(*(b[i] for b, i in zip(boxes, corner))) for corner in itertools.product((0, 1), repeat=len(boxes))]
    return np.min(values, axis=0), np.max(values, axis=0)


@register("um_cp_box", display="Clopper–Pearson box (unpaired)", family="exact", guaranteed=True,
          takes="unpaired_confusion", random=False, reference=REFERENCE)
def um_cp_box(*cells_and_delta, metric="f1", rng=None):
    """[min, max] of metric(first) - metric(second) over each test set's Clopper–Pearson intervals of its
    prevalence, tpr and tnr at (1 - δ)^{1/k}: at the box's corners, exact (module docstring)."""
    *cells, delta = cells_and_delta
    tp1, fn1, fp1, tn1, tp2, fn2, fp2, tn2 = np.broadcast_arrays(*(np.asarray(c, dtype=float) for c in cells))
    reads = READS.get(metric, ("pos", "neg", "pi"))
    level = (1 - np.asarray(delta, dtype=float)) ** (1 / (2 * len(reads)))
    boxes = []
    for tp, fn, fp, tn in ((tp1, fn1, fp1, tn1), (tp2, fn2, fp2, tn2)):
        half = np.full(tp.shape, 0.5)
        boxes += [cp(tp, tp + fn, level) if "pos" in reads else (half, half),
                  cp(tn, tn + fp, level) if "neg" in reads else (half, half),
                  cp(tp + fn, tp + fn + fp + tn, level) if "pi" in reads else (half, half)]
    lo, hi = _corners(lambda t1, n1, p1, t2, n2, p2: rate(metric, t1, n1, p1) - rate(metric, t2, n2, p2), boxes)
    return np.clip(lo, -1.0, 1.0), np.clip(hi, -1.0, 1.0)


@register("judged_cp_box", display="Clopper–Pearson box (judged)", family="exact", guaranteed=True,
          takes="judged", reference=REFERENCE + "; the double-sampling decomposition of Tenenbein (1970), JASA 65")
def judged_cp_box(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None):
    """[min, max] of q·PPV + (1 - q)·FOR over Clopper–Pearson intervals of the judge's rate q (all N examples),
    PPV (human labels where the judge said 1) and FOR (where it said 0), each at (1 - δ)^{1/3}: at the corners
    (multilinear), exact; the human-labelled examples a random sample (module docstring)."""
    tp, fn, fp, tn, u_pos, u_neg = (np.asarray(v, dtype=float) for v in (tp, fn, fp, tn, u_pos, u_neg))
    level = (1 - np.asarray(delta, dtype=float)) ** (1 / 3)
    N = tp + fn + fp + tn + u_pos + u_neg
    boxes = [cp(tp + fp + u_pos, N, level), cp(tp, tp + fp, level), cp(fn, fn + tn, level)]
    return _corners(lambda q, ppv, fo: q * ppv + (1 - q) * fo, boxes)


assert JUDGED_CELLS == ("tp", "fn", "fp", "tn", "u_pos", "u_neg")  # the kernel's argument order
