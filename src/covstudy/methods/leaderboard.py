"""Leaderboard methods: k models on one test set, every pairwise difference and every rank at once.

A kernel takes r test sets' sufficient statistics — ``correct`` (r, k) counts, ``both`` (r, k, k)
counts of examples both models got right, the size n — and delta, and returns a ``Family``:
intervals for every d_ij = a_i - a_j over ``designs.many_models.pairs(k)`` (i < j), the directional
claims it makes (+1: "i beats j", -1: "j beats i", 0: none) and every model's rank set. The
bootstrap kernels also read the correctness matrices (``rows``, (r, n, k)) and draw from ``rng``.

* ``wald``, ``newcombe``: each pair's paired interval at level 1 - delta (methods/paired.py), no
  adjustment: the common practice.
* ``bonferroni``: Newcombe's paired interval at delta/P for each of the P = k(k - 1)/2 pairs.
* ``max_t``: d̂_ij ± c·se_ij, with se_ij² = ((b + c) - (b - c)²/n)/n² and c the 1 - delta quantile of
  max_ij |Z_ij| for Z the pairwise differences of N(0, Σ̂), Σ̂ = the multinomial covariance of the k
  accuracies, Σ̂_ab = (p̂_ab - p̂_a p̂_b)/n (Hothorn, Bretz & Westfall (2008), "Simultaneous inference in
  general parametric models"); c by ``max_t_critical``.
* ``bootstrap_max_t``: the same with the examples resampled: c the 1 - delta quantile of
  max |d*_ij - d̂_ij|/sd*_ij and se_ij = sd*_ij (Romano & Wolf (2005), "Exact and approximate
  stepdown methods for multiple hypothesis testing").
* ``holm``, ``bh``: claims only, from McNemar's z = (b - c)/√(b + c) two-sided p-values adjusted by
  Holm (1979), "A simple sequentially rejective multiple test procedure" (family-wise) or
  Benjamini & Hochberg (1995), "Controlling the false discovery rate"; the sign of b - c is the claim.
* ``bootstrap_ranks``: rank sets only, the delta/2 and 1 - delta/2 quantiles of each model's
  bootstrap rank (the percentile rank interval; marginal, per model — Hall & Miller (2009),
  "Using the bootstrap to quantify the authority of an empirical ranking").

Rank sets from claims (``rank_sets``): a model's rank set is [1 + #models claimed better,
k - #models claimed worse]; from simultaneous intervals it holds every true rank whenever every
interval covers (Mogstad, Romano, Shaikh & Wilhelm (2024), "Inference for ranks with applications
to mobility across neighbourhoods and academic achievement across countries").
"""

from __future__ import annotations

import functools
import inspect
from typing import NamedTuple

import numpy as np

from .. import validate
from .._lazy import stats
from ..designs.many_models import pairs
from .paired import paired_newcombe, paired_wald
from .registry import Param, draws_param, register, register_kind


def _no_door(m, est, counts, delta, side, rng, params, icc):
    raise ValueError(f"method: {m.qualified} gives a family of intervals and rank sets, not one interval; "
                     f"call covstudy.leaderboard.coverage.leaderboard_coverage")


register_kind("leaderboard", ("correct", "both", "n"), "leaderboard", kind="leaderboard", prefix="leaderboard_",
              route=_no_door, interval=False)


def check_counts(correct, both, n) -> None:
    """One line naming the argument unless ``correct`` (..., k), k >= 2, and ``both`` (..., k, k) are the
    counts of n examples: 0 <= correct_i <= n, both_ii = correct_i, both_ij = both_ji and
    max(0, correct_i + correct_j - n) <= both_ij <= min(correct_i, correct_j)."""
    n = validate.whole("n", n, 1, validate.COUNT_MAX)
    c = validate.counts("correct", correct, maximum=n)
    b = validate.counts("both", both, maximum=n)
    if c.ndim < 1 or c.shape[-1] < 2:
        raise ValueError(f"correct: give at least 2 models' correct counts (last axis), got shape {c.shape}")
    k = c.shape[-1]
    if b.shape != c.shape + (k,):
        raise ValueError(f"both: must have shape {c.shape + (k,)} (correct's shape and k), got {b.shape}")
    ci, cj = c[..., :, None], c[..., None, :]
    diagonal = np.diagonal(b, axis1=-2, axis2=-1)
    if np.any(diagonal != c):
        raise ValueError("both: both[i, i] must equal correct[i] (a model agrees with itself)")
    if np.any(b != np.swapaxes(b, -1, -2)):
        raise ValueError("both: must be symmetric (both[i, j] = both[j, i])")
    if np.any(b > np.minimum(ci, cj)) or np.any(b < ci + cj - n):
        raise ValueError("both: both[i, j] must be in [max(0, correct[i] + correct[j] - n), "
                         "min(correct[i], correct[j])] (examples both models got right)")


RESAMPLE_CELLS = validate.MC_BYTES_MAX // 16  # draws × n of one bootstrap: int64 indices and their weights


def _checked(kernel):
    """``kernel`` with its counts (``check_counts``), delta in (0, 1) and, for a bootstrap, its resampling
    checked first: validated once at the door, the arithmetic below stays a pure kernel."""
    default = inspect.signature(kernel).parameters.get("draws")

    @functools.wraps(kernel)
    def checked(correct, both, n, delta, *args, **kwargs):
        check_counts(correct, both, n)
        validate.interval("delta", validate.scalar("delta", delta), 0.0, 1.0, True, True)
        if default is not None:
            draws = validate.whole("draws", kwargs.get("draws", default.default), 1, validate.DRAWS_MAX)
            rows = kwargs.get("rows")
            if rows is None or np.ndim(rows) != 3 or np.shape(rows)[1:] != (int(n), np.shape(correct)[-1]):
                raise ValueError("rows: a bootstrap method needs the test sets' correctness, shape (r, n, k)")
            if draws * int(n) > RESAMPLE_CELLS:  # one test set's resample indices and weights at once
                raise ValueError(f"draws: {draws:,} resamples of {int(n):,} examples is more than {RESAMPLE_CELLS:.0e} "
                                 f"at once; lower draws to {max(1, RESAMPLE_CELLS // int(n)):,}")
        return kernel(correct, both, n, delta, *args, **kwargs)
    return checked


class Family(NamedTuple):
    """One method's answer for r test sets: pair intervals (r, P) (None: claims only), claims (r, P) in
    {-1, 0, 1} (None: no pairwise claims), rank sets (r, k) low and high."""

    lower: np.ndarray | None
    upper: np.ndarray | None
    claim: np.ndarray | None
    rank_low: np.ndarray
    rank_high: np.ndarray


def paired_cells(correct, both, n):
    """Each pair's 2 × 2 cells (a both right, b only i, c only j, d neither), shape (r, P) each."""
    correct, both = np.asarray(correct, float), np.asarray(both, float)
    first, second = pairs(correct.shape[-1])
    a = both[..., first, second]
    b = correct[..., first] - a
    c = correct[..., second] - a
    return a, b, c, n - a - b - c


def rank_sets(claim: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """[1 + #claimed better, k - #claimed worse] for every model from claims (r, P)."""
    first, second = pairs(k)
    better = np.zeros(claim.shape[:-1] + (k,), dtype=np.int64)
    worse = np.zeros_like(better)
    for p, (i, j) in enumerate(zip(first, second)):  # P <= 190 columns: a loop over pairs, vectorised over test sets
        up, down = claim[..., p] > 0, claim[..., p] < 0
        better[..., j] += up
        worse[..., i] += up
        better[..., i] += down
        worse[..., j] += down
    return 1 + better, k - worse


def from_intervals(lower, upper, k: int) -> Family:
    """The family of intervals: claims where an interval excludes 0, and their rank sets."""
    claim = np.where(lower > 0, 1, np.where(upper < 0, -1, 0)).astype(np.int8)
    low, high = rank_sets(claim, k)
    return Family(lower, upper, claim, low, high)


def from_claims(claim, k: int) -> Family:
    low, high = rank_sets(claim, k)
    return Family(None, None, claim, low, high)


@register("leaderboard_wald", family="approximate", guaranteed=False, takes="leaderboard",
          reference="Each pair's paired Wald interval (methods/paired.py), no adjustment", display="per-pair Wald")
@_checked
def wald(correct, both, n, delta):
    """Each pair's paired Wald interval at level 1 - delta: no adjustment for the P pairs."""
    lower, upper = paired_wald(*paired_cells(correct, both, n), delta)
    return from_intervals(lower, upper, np.shape(correct)[-1])


@register("leaderboard_newcombe", family="approximate", guaranteed=False, takes="leaderboard",
          reference="Newcombe (1998), Improved confidence intervals for the difference between binomial proportions "
                    "based on paired data (method 10), per pair, no adjustment", display="per-pair Newcombe")
@_checked
def newcombe(correct, both, n, delta):
    """Each pair's paired Newcombe interval at level 1 - delta: no adjustment."""
    lower, upper = paired_newcombe(*paired_cells(correct, both, n), delta)
    return from_intervals(lower, upper, np.shape(correct)[-1])


@register("leaderboard_bonferroni", family="approximate", guaranteed=False, takes="leaderboard",
          reference="Bonferroni: Newcombe's paired interval (method 10) at delta/P for each of the P pairs")
@_checked
def bonferroni(correct, both, n, delta):
    """Newcombe's paired interval at delta/P, P = k(k - 1)/2: family-wise by the union bound."""
    k = np.shape(correct)[-1]
    lower, upper = paired_newcombe(*paired_cells(correct, both, n), delta / (k * (k - 1) // 2))
    return from_intervals(lower, upper, k)


def accuracy_covariance(correct, both, n) -> np.ndarray:
    """Σ̂ (r, k, k): the multinomial covariance of the k accuracies, (both_ab/n - p̂_a p̂_b)/n."""
    p = np.asarray(correct, float) / n
    return (np.asarray(both, float) / n - p[..., :, None] * p[..., None, :]) / n


def contrast_matrix(k: int) -> np.ndarray:
    """C (P, k) with C a = the pairwise differences a_i - a_j over pairs(k)."""
    first, second = pairs(k)
    C = np.zeros((first.size, k))
    C[np.arange(first.size), first] = 1.0
    C[np.arange(first.size), second] = -1.0
    return C


def normal_draws(k: int, draws: int) -> np.ndarray:
    """The fixed standard normal points (draws, k) of ``max_t_critical``, the same for every test set: a
    scrambled Sobol sequence through Φ⁻¹ (quasi-Monte Carlo)."""
    from scipy.stats import qmc

    return stats.norm.ppf(qmc.Sobol(k, scramble=True, seed=2026).random(draws))


NEWTON_STEPS = 4  # from the draws' empirical quantile, Newton's steps on the smooth CDF (within 1e-9 after 3)


def max_t_critical(cov, delta, draws: int = 8192) -> np.ndarray:
    """c with P(max_p |(C a)_p|/sd_p <= c) = 1 - delta for a ~ N(0, cov) (cov (..., k, k)); pairs of zero
    variance are left out of the maximum.

    Spherical-radial integration (Deák (1980), "Three digit accurate multiple normal probabilities";
    Genz & Bretz (2009), "Computation of Multivariate Normal and t Probabilities", §4.1): a = root·R·u with
    R ~ chi(k) independent of the direction u, and the maximum is R·m(u), so
    P(max <= c) = E_u[F_chi(c/m(u))], a smooth function of c averaged over the ``draws`` fixed directions
    (``normal_draws`` normalised) and solved by Newton's method. The radius integrated exactly, the
    error is the directions' alone: at k = 10 within 0.001 of the exact value for independent
    accuracies (the studentized range) and within 0.005 of 10⁶-draw references (tests/test_leaderboard_max_t.py),
    where the empirical quantile of as many draws of the maximum was 0.01-0.02 off.
    """
    from scipy import special

    cov = np.asarray(cov, float)
    k = cov.shape[-1]
    vals, vecs = np.linalg.eigh(cov)
    root = vecs * np.sqrt(np.clip(vals, 0, None))[..., None, :]  # cov = root rootᵀ
    C = contrast_matrix(k)
    sd = np.sqrt(np.clip(np.einsum("pa,...ab,pb->...p", C, cov, C), 0, None))
    scale = np.where(sd > 0, 1 / np.where(sd > 0, sd, 1), 0.0)
    G = normal_draws(k, draws)
    radius = np.linalg.norm(G, axis=1)
    z = np.matmul(np.matmul(G / radius[:, None], np.swapaxes(root, -1, -2)), C.T)  # (..., draws, P)
    m = np.abs(z * scale[..., None, :]).max(axis=-1)  # the maximum on each unit direction
    c = np.quantile(m * radius, 1 - delta, axis=-1)  # the plain estimate: Newton's start
    inverse = np.where(m > 0, 1 / np.where(m > 0, m, 1.0), 0.0)  # 1/m(u); 0 where every pair has zero variance
    log_norm = (k / 2 - 1) * np.log(2) + special.gammaln(k / 2)  # of the chi(k) density x^(k-1)·e^(-x²/2)
    for _ in range(NEWTON_STEPS):
        x = c[..., None] * inverse
        F = special.gammainc(k / 2, x * x / 2).mean(axis=-1)  # chi(k) CDF at c/m(u), averaged
        with np.errstate(divide="ignore"):
            density = np.exp((k - 1) * np.log(x) - x * x / 2 - log_norm)
        f = (density * inverse).mean(axis=-1)
        step = np.where(f > 0, (F - (1 - np.asarray(delta, float))) / np.where(f > 0, f, 1.0), 0.0)
        c = np.maximum(c - step, c / 2)
    return c


@register("leaderboard_max_t", family="approximate", guaranteed=False, takes="leaderboard",
          reference="Hothorn, Bretz, Westfall (2008), Simultaneous inference in general parametric models: max-t "
                    "with the multinomial covariance of the k accuracies",
          params=(Param("points", 8192, above=99, integer=True, at_most=100_000,
                        doc="quasi-random normal points for the max-t critical value"),), display="max-t")
@_checked
def max_t(correct, both, n, delta, points=8192):
    """d̂ ± c·se with c the 1 - delta quantile of the maximum |t| over the P pairs under N(0, Σ̂)."""
    k = np.shape(correct)[-1]
    cov = accuracy_covariance(correct, both, n)
    C = contrast_matrix(k)
    se = np.sqrt(np.clip(np.einsum("pa,...ab,pb->...p", C, cov, C), 0, None))
    chunk = max(1, 2_000_000 // (points * C.shape[0]))  # bound the (chunk, points, P) array
    c = np.concatenate([max_t_critical(cov[s:s + chunk], delta, points) for s in range(0, len(cov), chunk)])
    d = (np.asarray(correct, float) / n) @ C.T
    return from_intervals(np.clip(d - c[:, None] * se, -1, 1), np.clip(d + c[:, None] * se, -1, 1), k)


def mcnemar_p(correct, both, n) -> tuple[np.ndarray, np.ndarray]:
    """(two-sided p-value of McNemar's z = (b - c)/√(b + c), sign of b - c) per pair; p = 1 when b + c = 0."""
    _, b, c, _ = paired_cells(correct, both, n)
    disc = b + c
    z = np.where(disc > 0, (b - c) / np.sqrt(np.where(disc > 0, disc, 1)), 0.0)
    return 2 * stats.norm.sf(np.abs(z)), np.sign(b - c).astype(np.int8)


def holm_reject(p, delta) -> np.ndarray:
    """Holm's step-down: sort p ascending, reject p_(i) while p_(i) <= delta/(P - i + 1) (i = 1..P)."""
    p = np.asarray(p, float)
    P = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ps = np.take_along_axis(p, order, axis=-1)
    ok = np.cumprod(ps <= delta / (P - np.arange(P)), axis=-1).astype(bool)
    out = np.zeros_like(ok)
    np.put_along_axis(out, order, ok, axis=-1)
    return out


def bh_reject(p, delta) -> np.ndarray:
    """Benjamini–Hochberg: reject the m smallest p, m the largest i with p_(i) <= i·delta/P."""
    p = np.asarray(p, float)
    P = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ps = np.take_along_axis(p, order, axis=-1)
    below = ps <= np.arange(1, P + 1) * delta / P
    m = np.where(below.any(axis=-1), P - np.argmax(below[..., ::-1], axis=-1), 0)
    ok = np.arange(P) < m[..., None]
    out = np.zeros_like(ok)
    np.put_along_axis(out, order, ok, axis=-1)
    return out


@register("leaderboard_holm", family="approximate", guaranteed=False, takes="leaderboard",
          reference="Holm (1979), A simple sequentially rejective multiple test procedure, on McNemar's p-values")
@_checked
def holm(correct, both, n, delta):
    """Claims of the pairs Holm's step-down rejects (McNemar's p-values), in the sign of b - c."""
    p, sign = mcnemar_p(correct, both, n)
    return from_claims(np.where(holm_reject(p, delta), sign, 0).astype(np.int8), np.shape(correct)[-1])


@register("leaderboard_bh", family="approximate", guaranteed=False, takes="leaderboard",
          reference="Benjamini, Hochberg (1995), Controlling the false discovery rate, on McNemar's p-values",
          display="Benjamini–Hochberg")
@_checked
def bh(correct, both, n, delta):
    """Claims of the pairs Benjamini–Hochberg rejects at FDR delta (McNemar's p-values)."""
    p, sign = mcnemar_p(correct, both, n)
    return from_claims(np.where(bh_reject(p, delta), sign, 0).astype(np.int8), np.shape(correct)[-1])


RESAMPLE_BLOCK = 1 << 21  # resampled examples held at once (whole draws; one draw where n is larger)


def bootstrap_accuracies(rows, draws: int, rng: np.random.Generator, block: int = RESAMPLE_BLOCK) -> np.ndarray:
    """(r, draws, k): each test set's accuracies over ``draws`` resamples of its n examples (the indices
    ``rng.integers(0, n, (draws, n))`` a test set). A resample's accuracies depend on it only through how often
    each distinct row of correct answers (at most min(n, 2^k)) is drawn, so a block of whole draws (at most
    ``block`` indices) is counted by distinct row: memory O(block + n·k), and the same numbers whatever the
    block (whole-number sums, exact in floating point)."""
    r, n, k = rows.shape
    out = np.empty((r, draws, k))
    step = max(1, block // max(n, 1))
    for t in range(r):
        distinct, which = np.unique(rows[t], axis=0, return_inverse=True)
        D = len(distinct)
        for d in range(0, draws, step):
            c = min(step, draws - d)
            idx = rng.integers(0, n, size=(c, n))
            times = np.bincount((which.reshape(-1)[idx] + D * np.arange(c)[:, None]).ravel(), minlength=c * D)
            out[t, d:d + c] = times.reshape(c, D) @ distinct.astype(np.float64) / n
    return out


@register("leaderboard_bootstrap_max_t", family="approximate", guaranteed=False, takes="leaderboard",
          reference="Romano, Wolf (2005), Exact and approximate stepdown methods for multiple hypothesis testing: "
                    "the single-step bootstrap max-t", params=(draws_param(200, "bootstrap resamples"),), display="bootstrap max-t")
@_checked
def bootstrap_max_t(correct, both, n, delta, rows=None, rng=None, draws=200):
    """d̂ ± c·sd* with c the 1 - delta quantile of max_ij |d*_ij - d̂_ij|/sd*_ij over resamples."""
    k = np.shape(correct)[-1]
    C = contrast_matrix(k)
    d = (np.asarray(correct, float) / n) @ C.T
    boot = bootstrap_accuracies(rows, draws, rng) @ C.T  # (r, draws, P)
    sd = boot.std(axis=1)
    scale = np.where(sd > 0, 1 / np.where(sd > 0, sd, 1), 0.0)
    c = np.quantile(np.abs((boot - d[:, None, :]) * scale[:, None, :]).max(axis=-1), 1 - delta, axis=-1)
    return from_intervals(np.clip(d - c[:, None] * sd, -1, 1), np.clip(d + c[:, None] * sd, -1, 1), k)


@register("leaderboard_bootstrap_ranks", family="approximate", guaranteed=False, takes="leaderboard",
          reference="Hall, Miller (2009), Using the bootstrap to quantify the authority of an empirical ranking: "
                    "the percentile interval of each model's bootstrap rank", params=(draws_param(200, "bootstrap resamples"),),
          display="bootstrap ranks")
@_checked
def bootstrap_ranks(correct, both, n, delta, rows=None, rng=None, draws=200):
    """Each model's rank set: [delta/2 quantile of 1 + #better, 1 - delta/2 quantile of k - #worse] over resamples."""
    k = np.shape(correct)[-1]
    boot = bootstrap_accuracies(rows, draws, rng)  # (r, draws, k)
    better = (boot[..., None, :] > boot[..., :, None]).sum(axis=-1)
    worse = (boot[..., None, :] < boot[..., :, None]).sum(axis=-1)
    low = np.floor(np.quantile(1 + better, delta / 2, axis=1, method="inverted_cdf")).astype(np.int64)
    high = np.ceil(np.quantile(k - worse, 1 - delta / 2, axis=1, method="inverted_cdf")).astype(np.int64)
    return Family(None, None, None, low, high)


RESAMPLING = frozenset({"leaderboard_bootstrap_max_t", "leaderboard_bootstrap_ranks"})  # read rows and rng
