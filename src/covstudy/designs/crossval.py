"""The crossval design: k-fold cross-validation of a learner whose true error is known exactly.

A data set is n examples of two Gaussian classes in d dimensions: class 1 with probability
``prevalence`` π, x ~ N(+Δ/2·e_1, I) in class 1 and N(-Δ/2·e_1, I) in class 0, the separation Δ
set by the Bayes error (``learner.bayes_error``). With the optional axis ``correlation`` ρ
(absent: 0) the features have the AR(1) covariance Σ_ij = ρ^|i-j| instead of I (x ↦ L x, Σ = L Lᵀ,
the Mahalanobis distance and so the Bayes error kept). The learner (``learner``) is ridge LDA
(``learner.fit_sums``, default) or ridge logistic regression (``learner.fit_logistic``, every
model fitted by IRLS on the raw examples, a left-out fold given weight 0). On each simulated data
set the design runs what a user would:

* K-fold cross-validation (``folds`` K, folds as equal as the n allows), ``repeats`` R times
  with fresh random folds: each fold's out-of-fold errors and size;
* nested cross-validation (Bates, Hastie & Tibshirani 2023) on the same folds: for outer
  fold k, the inner cross-validation over the other K - 1 folds (the model fit without folds
  k and j tested on fold j), its errors and size;
* a held-out test set: the first round(``holdout``·n) examples tested, the model fit on the
  rest (what a user could do instead at the same total n).

Truths, exactly. ``learner.error`` is the exact error of a fitted rule, so each data set's
**Err_XY** (the model fit on all n examples, the one a user ships) is exact; the holdout's own
Err_XY is that of its model fit on the n - n_test others. **Err** = E[Err_XY] over training
sets of size n (and of n - n_test for the holdout) is computed once per design point from a
fixed stream keyed by the point (not the study seed: the truth of a point never changes), cached
or read from the committed table: LDA by ``learner.expected_error`` with ``ERR_DRAWS`` training
sets drawn as sufficient statistics (MCSE at most 3e-4 in the study, n = 40, d = 20; 2e-5 at
n = 1000); logistic regression by fitting ``ERR_DRAWS_LOGISTIC`` whole simulated training sets
(``logistic_expected_error``: it has no sufficient statistics), MCSE returned as well.

Estimands: ``err_xy`` (default) and ``err``. A method's interval is compared with its own
target per data set: ``bounds`` returns it shifted by (Err - target), so the measures
(which compare with one truth per point, Err) count 1[lower <= target <= upper] and the
widths are unchanged. Monte Carlo only: a data set is n·d real numbers.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import ClassVar

import numpy as np

from .._lazy import optimize
from . import learner
from ..estimands import Estimand, register_estimand
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .registry import register

ERR_DRAWS = 20_000  # training sets behind each Err (MCSE 2e-5 to 3e-4 over the study)
ERR_DRAWS_LOGISTIC = 20_000  # whole training sets behind a logistic Err (its MCSE ~1e-4)
ERR_SEED = 20230  # Err's own stream: a point's truth does not depend on the study seed
LEARNERS = ("lda", "logistic")  # the design's ``learner``: ridge LDA (default), ridge logistic regression
SIZE_LIMIT = 2_000_000  # n·d of one data set
LOGISTIC_SIZE_LIMIT = 20_000_000  # n·(d+1)² of one data set with logistic regression (its x xᵀ per example: 160 MB)
_BLOCK = 1 << 18  # numbers (data sets × n × d) generated and cross-validated at once
_BLOCK_LOGISTIC = 1 << 16  # the same for logistic regression (a block's fits hold K(K-1)/2 weight rows and (d+1)² per example)
# logistic regression's CPU-s (cost only; benchmarks/crossval.py, n = 50..500, d = 10, 20, K = 5, 10, within 2×):
LOGISTIC_FIT = (3e-5, 1e-9)  # a CV model in a batch: a fixed part and a part per example and (d + 1)²
LOGISTIC_ERR_FIT = 8e-9  # one of Err's whole-training-set fits, per example and (d + 1)²
CELLS_PER_SIMULATION = 10  # cells (methods × metrics) a point's simulation serves, typically (cost only)
MC_ONLY = ("reps: the crossval design has Monte Carlo coverage only (a data set is n·d real numbers); "
           "give reps (e.g. reps=500)")


def separation(bayes_error: float, prevalence: float) -> float:
    """Δ whose Bayes error at prevalence π is ``bayes_error`` (< min(π, 1 - π); decreasing in Δ)."""
    return float(optimize.brentq(lambda s: learner.bayes_error(s, prevalence) - bayes_error, 1e-6, 80.0,
                                 xtol=1e-14, rtol=1e-14))


@functools.lru_cache(maxsize=1)
def stored_errors() -> dict[tuple, tuple[float, float]]:
    """The committed Err table (crossval_err.csv, written by experiments/crossval/err_table.py):
    (n, d, bayes_error, prevalence, ridge, learner) -> (Err, MCSE), the values ``draw_expected_error`` draws."""
    import csv

    with (Path(__file__).parent / "crossval_err.csv").open() as f:
        return {(int(r["n"]), int(r["d"]), float(r["bayes_error"]), float(r["prevalence"]), float(r["ridge"]),
                 r["learner"]): (float(r["err"]), float(r["mcse"])) for r in csv.DictReader(f)}


@functools.lru_cache(maxsize=4096)
def expected_error(n: int, d: int, bayes_error: float, prevalence: float, ridge: float,
                   correlation: float = 0.0, learner_name: str = "lda") -> tuple[float, float]:
    """(Err, MCSE) at training size n: from the committed table where it has the point (identity
    covariance), else ``draw_expected_error``; cached."""
    key = (n, d, bayes_error, prevalence, ridge, learner_name)
    if not correlation and key in stored_errors():
        return stored_errors()[key]
    return draw_expected_error(n, d, bayes_error, prevalence, ridge, correlation, learner_name)


def draw_expected_error(n: int, d: int, bayes_error: float, prevalence: float, ridge: float,
                        correlation: float = 0.0, learner_name: str = "lda") -> tuple[float, float]:
    """(Err, MCSE) at training size n: LDA by ``learner.expected_error`` over ERR_DRAWS training
    sets, logistic regression by ``logistic_expected_error`` over ERR_DRAWS_LOGISTIC."""
    extra = {"correlation": correlation} if correlation else {}  # the identity keeps its stream
    if learner_name != "lda":
        extra["learner"] = learner_name  # LDA keeps its stream (it predates the learner)
    rng = stream(ERR_SEED, design="crossval", purpose="Err", n=n, d=d, bayes_error=bayes_error,
                 prevalence=prevalence, ridge=ridge, **extra)
    sep, chol = separation(bayes_error, prevalence), learner.ar1_chol(d, correlation)
    if learner_name == "logistic":
        return logistic_expected_error(n, d, sep, prevalence, ridge, ERR_DRAWS_LOGISTIC, rng, chol)
    return learner.expected_error(n, d, sep, prevalence, ridge, ERR_DRAWS, rng, chol=chol)


def draw_sets(B: int, n: int, d: int, sep: float, prevalence: float, rng: np.random.Generator, chol=None):
    """``B`` data sets of n examples (x (B, n, d), y (B, n)): the labels, then the features."""
    y = (rng.random((B, n)) < prevalence).astype(np.int64)
    x = rng.standard_normal((B, n, d))
    x[..., 0] += np.where(y == 1, sep / 2, -sep / 2)
    if chol is not None:
        x = x @ chol.T
    return x, y


def logistic_expected_error(n: int, d: int, separation: float, prevalence: float, ridge: float, draws: int,
                            rng: np.random.Generator, chol=None) -> tuple[float, float]:
    """Err = E[Err_XY] of ridge logistic regression over training sets of size n, and its MCSE:
    ``draws`` whole training sets simulated (``draw_sets``), each fitted (``learner.fit_logistic``,
    in blocks) and its exact error taken (``learner.error``)."""
    errors = np.empty(draws)
    step = max(1, _BLOCK_LOGISTIC // (n * d))
    for start in range(0, draws, step):
        size = min(step, draws - start)
        x, y = draw_sets(size, n, d, separation, prevalence, rng, chol)
        errors[start:start + size] = learner.error(*learner.fit_logistic(x, y, ridge), separation, prevalence, chol)
    return float(errors.mean()), float(errors.std(ddof=1) / np.sqrt(draws))


def test_size(n: int, holdout: float) -> int:
    """The held-out test set's size: round(holdout·n)."""
    return int(round(holdout * n))


def _class_sums(x, y):
    """Per-group sufficient statistics over the second-to-last axis: counts, class sums, cross-products.

    ``x`` (..., m, d) with padding rows of zeros, ``y`` (..., m) in {0, 1, -1 (padding)}."""
    one, zero = (y == 1).astype(float), (y == 0).astype(float)
    return (one.sum(-1), zero.sum(-1), (one[..., None, :] @ x)[..., 0, :], (zero[..., None, :] @ x)[..., 0, :],
            np.swapaxes(x, -1, -2) @ x)


def _minus(total, *parts):
    """The sums of ``total`` less every part's (a training set's sums: the whole less its left-out folds)."""
    out = []
    for i, t in enumerate(total):
        rest = t - parts[0][i]
        for p in parts[1:]:
            rest -= p[i]
        out.append(rest)
    return tuple(out)


def _errors(x, y, w, b):
    """Misclassified examples of (x (..., m, d), y (..., m)) by rules (w (..., d), b (...)): counts (...)."""
    score = (x @ w[..., None])[..., 0] + b[..., None]
    return np.sum((y >= 0) & ((score > 0) != (y == 1)), axis=-1)


def cross_validate(x, y, order, folds: int, ridge: float) -> tuple[np.ndarray, ...]:
    """K-fold and nested cross-validation of ridge LDA on data sets x (B, n, d), y (B, n), folds
    from the permutations ``order`` (B, n): fold k holds the examples order[k], order[k + K], ...

    Returns (fold_errors, fold_sizes, inner_errors, inner_sizes), each (B, K): fold k's
    out-of-fold errors and size (model fit without fold k), and the inner CV of outer fold k:
    the errors on every fold j != k of the model fit without folds j and k, and their count n - m_k.
    Every model is fit from sums (totals minus left-out folds), all at once."""
    B, n, d = x.shape
    K = folds
    m = -(-n // K)  # the largest fold; smaller folds are padded with a zero row of label -1
    slot = np.arange(K)[:, None] + K * np.arange(m)[None, :]
    index = np.where(slot < n, np.take(order, np.minimum(slot, n - 1), axis=1), n)  # (B, K, m)
    padded_x = np.concatenate([x, np.zeros((B, 1, d))], axis=1)
    padded_y = np.concatenate([y, np.full((B, 1), -1)], axis=1)
    fx = np.take_along_axis(padded_x, index.reshape(B, K * m, 1), axis=1).reshape(B, K, m, d)
    fy = np.take_along_axis(padded_y, index.reshape(B, K * m), axis=1).reshape(B, K, m)
    part = _class_sums(fx, fy)  # per fold: (B, K, ...)
    total = [p.sum(axis=1)[:, None] for p in part]
    w, b = learner.fit_sums(*_minus(total, part), ridge)  # (B, K): without fold k
    fold_errors = _errors(fx, fy, w, b)
    sizes = (fy >= 0).sum(-1)
    # nested: the model without folds j and k (j < k), tested on fold j and on fold k
    j, k = np.triu_indices(K, 1)
    w2, b2 = learner.fit_sums(*_minus(total, [p[:, j] for p in part], [p[:, k] for p in part]), ridge)
    wf, bf = np.zeros((B, K, K, d)), np.zeros((B, K, K))
    wf[:, j, k] = wf[:, k, j] = w2
    bf[:, j, k] = bf[:, k, j] = b2
    score = fx @ np.swapaxes(wf, -1, -2) + bf[:, :, None, :]  # [b, j, t, k]: example t of fold j, model without j, k
    wrong = (fy[..., None] >= 0) & ((score > 0) != (fy[..., None] == 1))
    wrong[:, np.arange(K), :, np.arange(K)] = False  # k = j is no model
    return fold_errors, sizes, wrong.sum(axis=(1, 2)), n - sizes


def fold_of(order, folds: int) -> np.ndarray:
    """Each example's fold (B, n) from the permutations ``order``: fold k holds order[k], order[k + K], ..."""
    out = np.empty(order.shape, np.int64)
    np.put_along_axis(out, order, np.arange(order.shape[1]) % folds, axis=1)
    return out


def cross_validate_logistic(x, y, order, folds: int, ridge: float, full=None) -> tuple[np.ndarray, ...]:
    """``cross_validate`` with ridge logistic regression: the same folds, columns and meaning.

    Every model is an IRLS fit on all n examples with weight 0 on its left-out folds
    (``learner.fit_logistic_shared``), the K outer models and the K(K-1)/2 nested ones (without folds
    j < k) of every data set in one batch each; each model scores all n examples once."""
    B, n, d = x.shape
    K = folds
    fold = fold_of(order, K)  # (B, n)
    # Newton starts from the full-data fit ``full`` (w (B, d), b (B,)), the nested fits from their outer one
    start = None if full is None else (np.repeat(full[0][:, None], K, 1), np.repeat(full[1][:, None], K, 1))
    ks = np.arange(K)
    out = fold[:, None, :] != ks[None, :, None]  # (B, K, n): model k's training examples
    w, b = learner.fit_logistic_shared(x, y, out, ridge, start)
    wrong = (np.einsum("bnd,bkd->bkn", x, w) + b[..., None] > 0) != (y[:, None, :] == 1)  # (B, K, n)
    fold_errors = np.sum(wrong & ~out, axis=-1)
    sizes = np.sum(~out, axis=-1)
    j, k = np.triu_indices(K, 1)
    both = out[:, j] & out[:, k]  # (B, P, n): without folds j and k
    w2, b2 = learner.fit_logistic_shared(x, y, both, ridge, (w[:, k], b[:, k]))  # from the fit with fold j
    wrong2 = (np.einsum("bnd,bpd->bpn", x, w2) + b2[..., None] > 0) != (y[:, None, :] == 1)
    inner = np.zeros((B, K), np.int64)
    # the pair's model tested on fold j belongs to outer fold k's inner CV, and on fold k to j's
    np.add.at(inner, (slice(None), k), np.sum(wrong2 & ~out[:, j], axis=-1))
    np.add.at(inner, (slice(None), j), np.sum(wrong2 & ~out[:, k], axis=-1))
    return fold_errors, sizes, inner, n - sizes


def simulate_sets(n: int, d: int, bayes_error: float, prevalence: float, folds: int, repeats: int,
                  holdout: float, ridge: float, reps: int, rng: np.random.Generator,
                  correlation: float = 0.0, learner_name: str = "lda") -> dict:
    """Cross-validation, nested cross-validation, the holdout and the exact Err_XY of ``reps`` data sets.

    Returns columns, one row per data set: ``fold_errors``, ``fold_sizes``, ``inner_errors``,
    ``inner_sizes`` (reps, repeats, folds); ``k_test``, ``n_test``, ``err_xy``, ``err_xy_holdout`` (reps,).
    Drawn in blocks of a size fixed by the point: per block the labels, the features, then each
    repeat's fold permutation. ``correlation`` ρ: features of covariance Σ_ij = ρ^|i-j| (x ↦ L x,
    ``learner.ar1_chol``; same draws as the identity). ``learner_name`` "logistic": every model by
    ``learner.fit_logistic`` (``cross_validate_logistic``), in smaller blocks."""
    sep, K, R = separation(bayes_error, prevalence), folds, repeats
    chol = learner.ar1_chol(d, correlation)
    n_test = test_size(n, holdout)
    out = {"fold_errors": np.empty((reps, R, K), np.int64), "fold_sizes": np.empty((reps, R, K), np.int64),
           "inner_errors": np.empty((reps, R, K), np.int64), "inner_sizes": np.empty((reps, R, K), np.int64),
           "k_test": np.empty(reps, np.int64), "n_test": np.full(reps, n_test, np.int64),
           "err_xy": np.empty(reps), "err_xy_holdout": np.empty(reps)}
    if learner_name == "logistic":
        return _simulate_logistic(out, n, d, sep, prevalence, K, R, n_test, ridge, reps, rng, chol)
    step = max(1, _BLOCK // (n * d))
    for start in range(0, reps, step):
        rows = slice(start, min(reps, start + step))
        B = rows.stop - rows.start
        x, y = draw_sets(B, n, d, sep, prevalence, rng, chol)
        everything = _class_sums(x, y)
        out["err_xy"][rows] = learner.error(*learner.fit_sums(*everything, ridge), sep, prevalence, chol)
        test = _class_sums(x[:, :n_test], y[:, :n_test])
        w, b = learner.fit_sums(*_minus(everything, test), ridge)
        out["err_xy_holdout"][rows] = learner.error(w, b, sep, prevalence, chol)
        out["k_test"][rows] = _errors(x[:, :n_test], y[:, :n_test], w, b)
        for r in range(R):
            order = np.argsort(rng.random((B, n)), axis=1)
            columns = cross_validate(x, y, order, K, ridge)
            for name, values in zip(("fold_errors", "fold_sizes", "inner_errors", "inner_sizes"), columns):
                out[name][rows, r] = values
    return out


def _simulate_logistic(out, n, d, sep, prevalence, K, R, n_test, ridge, reps, rng, chol):
    """``simulate_sets`` with ridge logistic regression: the same draws, in blocks of
    ``_BLOCK_LOGISTIC`` numbers (a block's fits hold K(K+1)/2 weighted copies of it)."""
    step = max(1, _BLOCK_LOGISTIC // (n * d))
    for start in range(0, reps, step):
        rows = slice(start, min(reps, start + step))
        B = rows.stop - rows.start
        x, y = draw_sets(B, n, d, sep, prevalence, rng, chol)
        full = learner.fit_logistic(x, y, ridge)
        out["err_xy"][rows] = learner.error(*full, sep, prevalence, chol)
        w, b = learner.fit_logistic(x[:, n_test:], y[:, n_test:], ridge)
        out["err_xy_holdout"][rows] = learner.error(w, b, sep, prevalence, chol)
        out["k_test"][rows] = _errors(x[:, :n_test], y[:, :n_test], w, b)
        for r in range(R):
            order = np.argsort(rng.random((B, n)), axis=1)
            columns = cross_validate_logistic(x, y, order, K, ridge, full)
            for name, values in zip(("fold_errors", "fold_sizes", "inner_errors", "inner_sizes"), columns):
                out[name][rows, r] = values
    return out


@register
class Crossval(Design):
    name = "crossval"
    data = "crossval"
    estimand = "err_xy"
    exact_engine = False
    axes = (Axis("n", True, 6), Axis("d", True, 1),
            Axis("bayes_error", False, 0.0, 0.5, low_open=True, high_open=True),
            Axis("prevalence", False, 0.0, 1.0, low_open=True, high_open=True),
            Axis("folds", True, 3), Axis("repeats", True, 1),
            Axis("holdout", False, 0.0, 1.0, low_open=True, high_open=True),
            Axis("ridge", False, 0.0, low_open=True),
            Axis("correlation", False, -1.0, 1.0, low_open=True, high_open=True),
            Axis("learner", False, 0.0, choices=LEARNERS))
    parametrisations = (("n", "d", "bayes_error", "folds"),)
    optional: ClassVar[dict] = {"prevalence": 0.5, "repeats": 10, "holdout": 0.2, "ridge": 0.01, "learner": "lda"}
    given_only = ("learner",)  # optional axes kept only when given: LDA's points, streams and tables predate it
    summary = ("k-fold CV of ridge LDA (or logistic regression) on two Gaussian classes in d dims; exact error of every fitted "
               "rule (Err_XY) and its expectation (Err)")
    example: ClassVar[dict] = {"n": 40, "d": 3, "bayes_error": 0.2, "prevalence": 0.5, "folds": 5,
                               "repeats": 3, "holdout": 0.25, "ridge": 0.01}

    def derive(self, point: dict) -> dict:
        point = {**{k: v for k, v in self.optional.items() if k not in self.given_only}, **point}
        return {a.name: point[a.name] for a in self.axes if a.name in point}

    def points(self, grid: dict) -> list[dict]:
        import itertools

        given = [a.name for a in self.axes if grid.get(a.name) is not None]
        return [self.derive(dict(zip(given, combo))) for combo in itertools.product(*(grid[a] for a in given))]

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        n, K, pi, be = point["n"], point["folds"], point["prevalence"], point["bayes_error"]
        if point.get("learner", "lda") not in LEARNERS:
            return f"learner: must be one of {', '.join(LEARNERS)}, got {point['learner']!r}"
        if be >= min(pi, 1 - pi):
            return (f"bayes_error: must be below min(prevalence, 1 - prevalence) = {min(pi, 1 - pi):g} "
                    f"(the error of always predicting the larger class), got {be:g}")
        if n < 2 * K:
            return f"n, folds: nested cross-validation needs n >= 2·folds (two examples a fold), got n = {n}, folds = {K}"
        n_test = test_size(n, point["holdout"])
        if n_test < 1 or n - n_test < 3:
            return (f"holdout: the held-out test set round(holdout·n) must leave 1..n-3 examples, got "
                    f"{n_test} of n = {n}")
        if n * point["d"] > SIZE_LIMIT:
            return f"n, d: a crossval data set is n·d numbers; needs n·d <= {SIZE_LIMIT:,}, got {n * point['d']:,}"
        if point.get("learner") == "logistic" and n * (point["d"] + 1) ** 2 > LOGISTIC_SIZE_LIMIT:
            return (f"n, d: logistic regression holds each example's (d+1)² outer product; needs "
                    f"n·(d+1)² <= {LOGISTIC_SIZE_LIMIT:,}, got {n * (point['d'] + 1) ** 2:,}")
        if exact:
            return MC_ONLY
        return None

    keeps_test_sets = True
    sized_by = ""

    def test_set_numbers(self, point: dict) -> int:
        return 4 * point["repeats"] * point["folds"] + 4

    def cost(self, point: dict, reps: int | None) -> float:
        """The cell's share of its point's simulation, in intervals (estimate.SECONDS_PER_INTERVAL):
        a data set's R repeats cost R·(1.3e-8·K²d²/2 + 8e-10·n·K·d + 1.5e-5) CPU-s (the K(K+1)/2
        model fits, the nested scoring, overhead) and, unless stored, the point's two Err
        2·ERR_DRAWS·(8e-7 + 3.3e-8·d²) (fitted on the development machine over n = 50..1000,
        d = 5, 20, K = 5, 10), shared by the ``CELLS_PER_SIMULATION`` cells of a point. Logistic
        regression: R·K(K+1)/2·(3e-5 + 1e-9·n(d+1)²) a data set and, unless stored, Err's
        2·ERR_DRAWS_LOGISTIC·8e-9·n(d+1)² (``LOGISTIC_FIT``, ``LOGISTIC_ERR_FIT``)."""
        from ..study.cost import SECONDS_PER_INTERVAL  # estimate imports the designs

        n, d, K, R = point["n"], point["d"], point["folds"], point["repeats"]
        seconds = R * (1.3e-8 * K * K * d * d / 2 + 8e-10 * n * K * d + 1.5e-5)
        logistic = point.get("learner", "lda") == "logistic"
        if logistic:  # the K(K+1)/2 IRLS fits of a repeat, every one over all n examples
            seconds = R * (K * (K + 1) / 2) * (LOGISTIC_FIT[0] + LOGISTIC_FIT[1] * n * (d + 1) ** 2)
        key = (d, point["bayes_error"], point["prevalence"], point["ridge"], point.get("learner", "lda"))
        stored = not point.get("correlation") and all(
            (size, *key[:-1], key[-1]) in stored_errors() for size in (n, n - test_size(n, point["holdout"])))
        if logistic:
            truth = 0.0 if stored else 2 * ERR_DRAWS_LOGISTIC * LOGISTIC_ERR_FIT * n * (d + 1) ** 2
        else:
            truth = 0.0 if stored else 2 * ERR_DRAWS * (8e-7 + 3.3e-8 * d * d)
        share = CELLS_PER_SIMULATION * SECONDS_PER_INTERVAL
        return float(reps or 0) * (1 + seconds / share) + truth / share

    def table_key(self, point: dict) -> tuple:
        return (*(point.get(a.name, 0.0) for a in self.axes if a.name != "learner"), point.get("learner", "lda"))

    def stream_identity(self, point: dict) -> dict:
        # correlation only when given and not 0, learner only when not LDA: the identity LDA's
        # streams predate both axes
        return {"design": "crossval", **{a.name: point[a.name] for a in self.axes if a.name in point and (
            (a.name != "correlation" or point[a.name]) and (a.name != "learner" or point[a.name] != "lda"))}}

    def truth_inputs(self, point: dict) -> dict:
        n, n_test = point["n"], test_size(point["n"], point["holdout"])
        rest = (point["d"], point["bayes_error"], point["prevalence"], point["ridge"], point.get("correlation", 0.0),
                point.get("learner", "lda"))
        return {"err": expected_error(n, *rest)[0], "err_holdout": expected_error(n - n_test, *rest)[0]}

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        """One outcome per simulated data set (weight 1): ``simulate_sets``'s columns, the pooled
        out-of-fold errors ``k`` of ``n`` (the first repeat) and the Err columns ``err``, ``err_holdout``."""
        [pt] = points
        columns = simulate_sets(pt["n"], pt["d"], pt["bayes_error"], pt["prevalence"], pt["folds"], pt["repeats"],
                                pt["holdout"], pt["ridge"], reps, stream(seed, **self.stream_identity(pt)),
                                pt.get("correlation", 0.0), pt.get("learner", "lda"))
        truth = self.truth_inputs(pt)
        columns["k"] = columns["fold_errors"][:, 0].sum(axis=1)
        columns["n"] = np.full(reps, pt["n"], np.int64)
        columns["err"] = np.full(reps, truth["err"])
        columns["err_holdout"] = np.full(reps, truth["err_holdout"])
        return Outcomes(columns, np.ones((1, reps), dtype=np.int64))


class _Error(Estimand):
    """A learner's error: methods on the pooled out-of-fold counts (proportion), on the folds
    (crossval) or on the held-out test set (holdout), each against its own target (module docstring)."""

    target: ClassVar[str]  # the per-data-set column a method's interval should cover

    def truth(self, inputs: dict) -> float:
        return float(inputs["err"])

    def valid(self, columns):
        return np.ones(np.shape(columns["k"]), dtype=bool)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        counts = tuple(columns[c] for c in method.input.counts)
        lower, upper = method.bounds(counts, delta, side, rng=rng, **params)
        target = columns[self.target + ("_holdout" if method.takes == "holdout" else "")]
        shift = columns["err"] - target
        return lower + shift, upper + shift


@register_estimand("crossval", "err_xy", takes=("proportion", "crossval", "holdout"))
class ErrXY(_Error):
    """Err_XY: the exact error of the model fit on this data set (the holdout's: of its own model)."""

    target = "err_xy"


@register_estimand("crossval", "err", takes=("proportion", "crossval", "holdout"))
class Err(_Error):
    """Err: the expected error of the learner over training sets of this size."""

    target = "err"
