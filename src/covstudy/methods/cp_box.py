"""Guaranteed intervals by projection: a simultaneous exact region of a design's parameters, mapped onto the metric.

The region is a product of Clopper–Pearson intervals, one per coordinate, each at level (1 - δ)^{1/k} over the
k coordinates the metric reads. Each coordinate is a binomial proportion given the counts before it (a sequential
factorisation of the multinomial), so the k intervals hold together with probability >= ((1 - δ)^{1/k})^k = 1 - δ
(conditioning on each earlier count in turn; an interval with 0 trials is [0, 1]). On that event the true metric
lies between the metric's minimum and maximum over the box, so [min, max] covers with probability >= 1 - δ for
every parameter value. The coordinates, as the audit's (evaluation/metrics.py, evaluation/judged.py):

* ``paired_confusion`` (``pm_cp_box``): the prevalence π, and in each class the discordant share d, the
  first-only share r of the discordant and the both-correct share s of the concordant; the class's two rates are
  t₁ = s + d(r - s), t₂ = s + d(1 - r - s), so t₁ - t₂ = d(2r - 1). Precision, npv and F1 read all 7. For
  recall, specificity and accuracy the difference is one coordinate, its class's (or the table's) accuracy
  difference, whose exact region is the exact McNemar-compatible interval (methods/melded.py, Fay & Lumbard
  2021); balanced accuracy's is half the sum of the two classes', each at √(1 - δ).
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
lie on its 4 edges, on which t₁ and t₂ are affine in one parameter. Those edges (a piece of each class's edges)
times π's interval are cut into cells; on a cell the ranges of t₁, t₂, n₁, n₂ are exact (affine: at its ends) and
M's range follows by monotonicity, so M(t₁ low, n₁ low, π end) - M(t₂ high, n₂ high, π end) bounds D below on
the cell. A fixed-budget branch and bound halves the lowest cells (ROUNDS rounds of SPLIT cells a test set);
the lowest cell bound left is a proven lower bound of D's minimum (the maximum likewise): an outer bound,
typically within 0.01 of the exact range, up to about 0.06 when a class is small and its box wide (tests/test_cp_box.py
measures it against a brute-force grid).
"""

from __future__ import annotations

import itertools

import numpy as np

from scipy import special
from . import paired_metrics, unpaired_metrics  # noqa: F401  (their kinds, registered before these methods)
from .judged import CELLS as JUDGED_CELLS
from .registry import register

EDGE_CELLS = 2  # first pieces of each edge of a class's (d, s) rectangle (branch and bound refines them)
PI_CELLS = 4  # first pieces of the prevalence's interval
ROUNDS, SPLIT = 14, 24  # branch and bound: rounds, and cells halved per test set each round
_ROWS = 256  # test sets at once (memory: about ROWS × 2,600 cells × 10 floats)
REFERENCE = ("Clopper & Pearson (1934), Biometrika 26, 404-413; the projection of a simultaneous confidence "
             "region, e.g. Casella & Berger (2002), Statistical Inference, sec. 9.2.3")


def cp(k, n, level):
    """Clopper–Pearson interval of k successes in n trials at ``level`` (arrays); [0, 1] when n = 0."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    tail = (1 - np.asarray(level, dtype=float)) / 2
    safe = np.maximum(n, 1)
    with np.errstate(all="ignore"):
        # Beta quantiles as betaincinv: scipy.stats.beta.ppf's numbers without importing scipy.stats
        lo = np.where(k > 0, special.betaincinv(k, safe - k + 1, tail), 0.0)
        hi = np.where(k < n, special.betaincinv(k + 1, safe - k, 1 - tail), 1.0)
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
LINEAR = ("recall", "specificity", "balanced_accuracy", "accuracy")  # D a weighted sum of the classes' t₁ - t₂


def _shares(both, first, second, neither, level):
    """The class's (d, r, s) intervals: discordant of all, first-only of discordant, both of concordant."""
    disc, conc = first + second, both + neither
    return cp(disc, disc + conc, level), cp(first, disc, level), cp(both, conc, level)


def _pieces(d, r, s, cells):
    """The 4 edges of a class's (d, s) rectangle at r, each cut into ``cells`` pieces: (rows, 4·cells, 4) arrays of
    (t₁, t₂) at each piece's two ends (t₁ = s + d(r - s), t₂ = s + d(1 - r - s): affine along an edge)."""
    u = np.linspace(0.0, 1.0, cells + 1)
    d0, d1, s0, s1, r = (np.asarray(x, dtype=float)[:, None] for x in (d[0], d[1], s[0], s[1], r))
    out = []
    for dd, ss in ((d0 + 0 * u, s0 + u * (s1 - s0)), (d1 + 0 * u, s0 + u * (s1 - s0)),
                   (d0 + u * (d1 - d0), s0 + 0 * u), (d0 + u * (d1 - d0), s1 + 0 * u)):
        t1, t2 = ss + dd * (r - ss), ss + dd * (1 - r - ss)
        out.append(np.stack([t1[:, :-1], t2[:, :-1], t1[:, 1:], t2[:, 1:]], axis=-1))
    return np.concatenate(out, axis=1)


def _lower(metric, P, Q, pi):
    """A lower bound of M(t₁, n₁, π) - M(t₂, n₂, π) on each cell: t's from the pieces P, n's from Q (ends
    (first a, second a, first b, second b)), π in [pi₀, pi₁]; M rises in t and n and is monotone in π."""
    t1, t2 = np.minimum(P[..., 0], P[..., 2]), np.maximum(P[..., 1], P[..., 3])
    n1, n2 = np.minimum(Q[..., 0], Q[..., 2]), np.maximum(Q[..., 1], Q[..., 3])
    ends = (pi[..., 0], pi[..., 1])
    return (np.minimum(*(rate(metric, t1, n1, p) for p in ends))
            - np.maximum(*(rate(metric, t2, n2, p) for p in ends)))


def _halves(X):
    """Each cell's two halves (ends a–mid, mid–b; a piece is affine, so its midpoint is the ends' mean)."""
    mid = (X[..., :2] + X[..., 2:]) / 2
    return np.concatenate([X[..., :2], mid], -1), np.concatenate([mid, X[..., 2:]], -1)


def _pm_min(metric, pos, neg, pi):
    """A proven lower bound of min D over the box (module docstring) by branch and bound with a fixed budget:
    the cells (an edge piece of each class × a piece of π) partition the boundary set where D's minimum lies;
    each round the SPLIT lowest cells of every test set are halved in all three, and the answer is the lowest
    cell bound left (every cell is bounded, so the minimum over the partition stays a lower bound)."""
    rows = pos.shape[0]
    u = np.linspace(0.0, 1.0, PI_CELLS + 1)
    pis = pi[0][:, None] + u * (pi[1] - pi[0])[:, None]
    pis = np.stack([pis[:, :-1], pis[:, 1:]], -1)
    i, j, k = (a.ravel() for a in np.meshgrid(np.arange(pos.shape[1]), np.arange(neg.shape[1]),
                                              np.arange(PI_CELLS), indexing="ij"))
    first, total = i.size, i.size + ROUNDS * 7 * SPLIT  # the cells: the first partition, then 7 more per split
    P, Q, R = np.empty((rows, total, 4)), np.empty((rows, total, 4)), np.empty((rows, total, 2))
    P[:, :first], Q[:, :first], R[:, :first] = pos[:, i], neg[:, j], pis[:, k]
    bound = np.empty((rows, total))
    bound[:, :first] = _lower(metric, P[:, :first], Q[:, :first], R[:, :first])
    at, used = np.arange(rows)[:, None], first
    for _ in range(ROUNDS):  # a split cell's first child takes its slot, the other 7 go to the end
        worst = np.argpartition(bound[:, :used], SPLIT - 1, axis=1)[:, :SPLIT]
        p, q, r = P[at, worst], Q[at, worst], R[at, worst]
        kids = [(a, b, c) for a in _halves(p) for b in _halves(q) for c in _halves_pi(r)]
        for z, X in enumerate((P, Q, R)):
            X[at, worst] = kids[0][z]
            X[:, used:used + 7 * SPLIT] = np.concatenate([kid[z] for kid in kids[1:]], axis=1)
        bound[at, worst] = _lower(metric, *kids[0])
        bound[:, used:used + 7 * SPLIT] = _lower(metric, P[:, used:used + 7 * SPLIT], Q[:, used:used + 7 * SPLIT],
                                                 R[:, used:used + 7 * SPLIT])
        used += 7 * SPLIT
    return bound.min(axis=1)


def _halves_pi(R):
    mid = R.mean(axis=-1, keepdims=True)
    return np.concatenate([R[..., :1], mid], -1), np.concatenate([mid, R[..., 1:]], -1)


def _pm_extreme(metric, pos, neg, pi, high):
    """A proven lower bound of D's minimum over the box (``high``: an upper bound of its maximum, as minus the
    minimum of the second minus the first). pos, neg: each class's (d, r, s) intervals; pi: π's."""
    pieces = []
    for cls, (d, r, s) in (("pos", pos), ("neg", neg)):
        if cls in READS.get(metric, ("pos", "neg")):
            X = _pieces(d, r[1] if high else r[0], s, EDGE_CELLS)
            pieces.append(X[..., [1, 0, 3, 2]] if high else X)  # the models swapped: D's maximum
        else:  # the class is not read: one fixed point
            pieces.append(np.full((np.size(d[0]), 1, 4), 0.5))
    value = _pm_min(metric, *pieces, pi)
    return -value if high else value


@register("pm_cp_box", display="Clopper–Pearson box (paired)", family="exact", guaranteed=True,
          takes="paired_confusion", random=False, reference=REFERENCE)
def pm_cp_box(*cells_and_delta, metric="f1", rng=None):
    """[min, max] of metric(first) - metric(second) over the product of Clopper–Pearson intervals of π and each
    class's (d, r, s) at (1 - δ)^{1/k} (module docstring; a proven outer bound), clipped to [-1, 1]."""
    *cells, delta = cells_and_delta
    x = np.broadcast_arrays(*(np.asarray(c, dtype=float) for c in cells))
    n_pos, n_neg = x[0] + x[1] + x[2] + x[3], x[4] + x[5] + x[6] + x[7]
    if metric in LINEAR:  # D is a weighted sum of the classes' rate differences: exact McNemar per class, Šidák
        return _linear(metric, x, np.asarray(delta, dtype=float))
    level = (1 - np.asarray(delta, dtype=float)) ** (1 / 7)
    pos, neg = _shares(*x[:4], level), _shares(*x[4:], level)
    pi = cp(n_pos, n_pos + n_neg, level)
    pos, neg, pi = ([tuple(np.broadcast_to(e, n_pos.shape) for e in iv) for iv in box] for box in (pos, neg, [pi]))
    pi = pi[0]
    flat = [np.ravel(a) for a in (*(e for iv in pos + neg for e in iv), *pi)]
    lo, hi = np.empty(flat[0].size), np.empty(flat[0].size)
    for i in range(0, flat[0].size, _ROWS):
        b = [a[i:i + _ROWS] for a in flat]
        box = [(b[j], b[j + 1]) for j in range(0, 14, 2)]
        lo[i:i + _ROWS] = _pm_extreme(metric, box[:3], box[3:6], box[6], high=False)
        hi[i:i + _ROWS] = _pm_extreme(metric, box[:3], box[3:6], box[6], high=True)
    shape = np.shape(n_pos)
    return np.clip(lo, -1.0, 1.0).reshape(shape), np.clip(hi, -1.0, 1.0).reshape(shape)


def _linear(metric, x, delta):
    """Recall, specificity, accuracy: the exact McNemar-compatible interval (methods/melded.py) of the class's
    (or the whole table's) accuracy difference at 1 - δ; balanced accuracy: half the sum of each class's at
    √(1 - δ) (the classes independent given their sizes: both hold with probability >= 1 - δ)."""
    from .melded import paired_exact_mcnemar

    if metric == "balanced_accuracy":
        root = 1 - np.sqrt(1 - delta)
        (l1, u1), (l2, u2) = (paired_exact_mcnemar(*x[i:i + 4], np.broadcast_to(root, x[0].shape)) for i in (0, 4))
        return np.clip((l1 + l2) / 2, -1.0, 1.0), np.clip((u1 + u2) / 2, -1.0, 1.0)
    cells = {"recall": x[:4], "specificity": x[4:], "accuracy": [a + b for a, b in zip(x[:4], x[4:])]}[metric]
    return paired_exact_mcnemar(*cells, np.broadcast_to(delta, x[0].shape))


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
          takes="judged", random=False, reference=REFERENCE + "; the double-sampling decomposition of Tenenbein (1970), JASA 65")
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
