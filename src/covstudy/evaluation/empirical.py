"""Test sets drawn from the user's own score distributions (smoothed empirical): the AUC audit's model-free check.

The binormal design assumes both classes' scores are normal after one increasing map. This check
assumes nothing of the kind: each class's population is its own scores, smoothed.

* Scale: the scores are replaced by the normal scores of their pooled mid-ranks, Φ⁻¹((rank - ½)/N)
  (order kept, ties stay tied; every AUC method reads only the order), so the kernel below does not
  depend on the scores' scale (probabilities piled up near 1, logits, ratings).
* Population: class c's normal scores u plus N(0, h_c²), h_c Silverman's rule of thumb
  0.9·min(SD, IQR/1.34)·m_c^(-1/5) (Silverman 1986, "Density estimation for statistics and data
  analysis", §3.4.2; at least H_MIN so that ties are broken).
* Tilt: the positives' population shifted by t moves its AUC, in closed form,

      AUC(t) = mean over pairs (i, j) of Φ((x_i + t - y_j)/sqrt(h₊² + h₋²)),

  increasing in t; ``shift_for`` solves AUC(t) = target (every target in (0, 1) is reachable). Beyond
  PAIRS_EXACT pairs the mean runs over the pairwise differences x_i - y_j linearly binned on a grid of
  step sqrt(h₊² + h₋²)/BINS_PER_SCALE (the two classes binned, their histograms convolved): an error of
  order step²·|Φ''| ≤ 1e-5 in AUC(t), where the exact mean over 3,000 × 7,000 pairs cost ~1 CPU-s a
  call and Brent's method makes ~30 calls a target.
* A test set: n_pos of the positives' scores drawn with replacement, plus h₊·N(0, 1), plus t; n_neg
  of the negatives' likewise; the methods read the pooled dense ranks (as designs/binormal.py).

Common random numbers: the draws (indices and jitters) come from one stream of the seed and the data's
class sizes and are the same at every target AUC and for every method; only the shift t differs.
Methods that draw random numbers (the bootstrap) get their own stream keyed by the method and target.
Flow: metrics (the scores) -> audit (``coverage_at`` inside the search) -> search.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._lazy import optimize, stats
from ..designs.sampling import dense_ranks
from ..seeds import stream

H_MIN = 1e-3  # smallest kernel bandwidth (normal-score units)
PAIRS_EXACT = 4_000_000  # up to this many (positive, negative) pairs AUC(t) is their exact mean
BINS_PER_SCALE = 50  # beyond, the differences are binned at this many bins per kernel scale


@dataclass(frozen=True)
class Smoothed:
    """The two smoothed populations: normal scores ``pos``, ``neg`` and bandwidths ``h_pos``, ``h_neg``."""

    pos: np.ndarray
    neg: np.ndarray
    h_pos: float
    h_neg: float
    _differences: tuple | None = None  # (grid, shares) of x_i - y_j, made on first use (``_differences``)


def _bandwidth(u) -> float:
    sd = float(np.std(u, ddof=1)) if u.size > 1 else 0.0
    iqr = float(np.subtract(*np.percentile(u, [75, 25]))) / 1.34
    spread = min(sd, iqr) if iqr > 0 else sd
    return max(0.9 * spread * u.size ** (-0.2), H_MIN)


def smoothed(pos, neg) -> Smoothed:
    """The module's populations of the user's positives' and negatives' scores."""
    pos, neg = np.asarray(pos, dtype=float), np.asarray(neg, dtype=float)
    ranks = stats.rankdata(np.concatenate([pos, neg]))
    u = stats.norm.ppf((ranks - 0.5) / ranks.size)
    up, un = u[: pos.size], u[pos.size:]
    return Smoothed(up, un, _bandwidth(up), _bandwidth(un))


def true_auc(sm: Smoothed, shift: float = 0.0) -> float:
    """P(X > Y) of the populations, the positives shifted by ``shift`` (module docstring)."""
    scale = math.hypot(sm.h_pos, sm.h_neg)
    if sm.pos.size * sm.neg.size <= PAIRS_EXACT:
        return float(np.mean(special.ndtr((sm.pos[:, None] + shift - sm.neg[None, :]) / scale)))
    d, w = _differences(sm)
    return float(np.dot(w, special.ndtr((d + shift) / scale)))  # Φ, as stats.norm.cdf computes it, without its checks


def _differences(sm: Smoothed) -> tuple[np.ndarray, np.ndarray]:
    """The pairwise differences x_i - y_j on a grid and their shares: each class linearly binned (each
    score split between its two nearest grid points, keeping its mean), the histograms convolved.
    Remembered per populations (``true_auc`` is called ~30 times a target)."""
    if sm._differences is None:
        from scipy.signal import fftconvolve

        step = math.hypot(sm.h_pos, sm.h_neg) / BINS_PER_SCALE

        def binned(u):
            start = math.floor(u.min() / step)
            pos = u / step - start
            left = np.floor(pos).astype(np.int64)
            right_share = pos - left
            w = np.bincount(left, 1 - right_share, left.max() + 2) + np.bincount(left + 1, right_share, left.max() + 2)
            return start, w / u.size

        a, wx = binned(sm.pos)
        b, wy = binned(sm.neg)
        w = np.clip(fftconvolve(wx, wy[::-1]), 0.0, None)  # difference (a + i) - (b + j) at index i + (len(wy) - 1 - j)
        d = (a - b - (wy.size - 1) + np.arange(w.size)) * step
        keep = w > 1e-300
        object.__setattr__(sm, "_differences", (d[keep], w[keep] / w[keep].sum()))
    return sm._differences


def shift_for(sm: Smoothed, auc: float) -> float:
    """The shift t with ``true_auc(sm, t)`` = auc (0 < auc < 1), by Brent's method."""
    span = float(np.ptp(np.concatenate([sm.pos, sm.neg]))) + 10 * math.hypot(sm.h_pos, sm.h_neg) + 1
    lo, hi = -span, span
    while true_auc(sm, lo) > auc:
        lo *= 2
    while true_auc(sm, hi) < auc:
        hi *= 2
    return float(optimize.brentq(lambda t: true_auc(sm, t) - auc, lo, hi, xtol=1e-10))


def draws(sm: Smoothed, reps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` unshifted test sets (positives (reps, n_pos), negatives (reps, n_neg)): resampled
    normal scores plus kernel jitter, from the stream of the seed and the class sizes."""
    rng = stream(seed, design="smoothed_empirical", n_pos=int(sm.pos.size), n_neg=int(sm.neg.size))
    x = sm.pos[rng.integers(0, sm.pos.size, (reps, sm.pos.size))] + sm.h_pos * rng.standard_normal((reps, sm.pos.size))
    y = sm.neg[rng.integers(0, sm.neg.size, (reps, sm.neg.size))] + sm.h_neg * rng.standard_normal((reps, sm.neg.size))
    return x, y


def coverage_at(qualified, sm: Smoothed, aucs, delta, reps, seed):
    """(coverage, MCSE, mean width) of method ``qualified`` (an AUC method) over test sets from the
    populations tilted to each AUC of ``aucs``: arrays over ``aucs``."""
    from ..engine.measures import measures
    from ..estimands import get_estimand
    from ..methods import methods

    estimand = get_estimand("scores", "auc")
    method = methods()[qualified]
    params = method.validate_params({})
    out, drawn = [], []
    for auc in np.atleast_1d(np.asarray(aucs, dtype=float)):
        columns, truth = _test_sets(sm, float(auc), reps, seed, drawn)
        rng = (stream(seed, design="smoothed_empirical", method=method.name, auc=float(auc))
               if method.per_test_set else None)
        lower, upper = estimand.bounds(method, columns, delta, "two-sided", rng=rng, **params)
        r = measures(np.full((1, reps), 1 / reps), np.asarray(lower, float), np.asarray(upper, float),
                     np.array([truth]), reps)
        out.append((float(r["coverage"][0]), float(r["mcse"][0]), float(r["mean_width"][0])))
    return tuple(np.array(v) for v in zip(*out))


_TEST_SETS: OrderedDict = OrderedDict()  # (populations, AUC, reps, seed) -> (ranked test sets, true AUC)
_TEST_SETS_BYTES = 64_000_000  # held at most: every AUC method is audited at the same start points


def _test_sets(sm: Smoothed, auc: float, reps: int, seed: int, drawn: list) -> tuple[dict, float]:
    """The ranked test sets at one AUC and the populations' AUC there, remembered for the next methods
    (the same numbers as drawing them again); ``drawn`` holds the unshifted draws once made."""
    key = (sm.pos.tobytes(), sm.neg.tobytes(), sm.h_pos, sm.h_neg, auc, reps, seed)
    if key in _TEST_SETS:
        _TEST_SETS.move_to_end(key)
        return _TEST_SETS[key]
    if not drawn:
        drawn.extend(draws(sm, reps, seed))
    x, y = drawn
    t = shift_for(sm, auc)
    ranked = dense_ranks(np.concatenate([x + t, y], axis=1))
    found = {"pos": ranked[:, : x.shape[1]], "neg": ranked[:, x.shape[1]:]}, true_auc(sm, t)
    _TEST_SETS[key] = found
    while sum(v[0]["pos"].nbytes + v[0]["neg"].nbytes for v in _TEST_SETS.values()) > _TEST_SETS_BYTES:
        _TEST_SETS.popitem(last=False)
    return found
