"""Estimands: what an interval is for, its true value at a design point, and which methods apply.

An estimand is defined on one kind of outcome (a design's ``data``):

* ``count`` (k correct of n, the binomial design): ``accuracy``, true value p. Proportion
  methods apply to (k, n).
* ``clustered`` (per-cluster counts, the clustered design): ``accuracy``, true value p.
  Clustered methods apply to the per-cluster counts, oracle (``deff``) methods to the totals
  and the true design effect, proportion methods naively to the totals (methods/clustered.py).
* ``confusion`` (tp, fn, fp, tn; the stratified and iid designs). With positive
  prevalence q and class accuracies tpr, tnr, one example's cell probabilities are
  π_TP = q·tpr, π_FN = q·(1 - tpr), π_FP = (1 - q)·(1 - tnr), π_TN = (1 - q)·tnr
  (stratified: q = n_pos/n), and a metric's true value is its formula applied to π.
  Ratio metrics are k/(k + l) for sums k, l of cells (``RATIO_CELLS``):

      metric       k         l          truth
      accuracy     TP + TN   FN + FP    π_TP + π_TN
      precision    TP        FP         π_TP/(π_TP + π_FP)
      recall       TP        FN         tpr
      specificity  TN        FP         tnr
      npv          TN        FN         π_TN/(π_TN + π_FN)
      jaccard      TP        FP + FN    π_TP/(π_TP + π_FP + π_FN)

  Proportion methods give their interval as ``interval(method, k, k + l)``; a zero
  denominator k + l = 0 (e.g. no predicted positives, for precision) carries no information
  and gives the vacuous interval [0, 1]. F1 = 2TP/(2TP + FP + FN) = 2J/(1 + J) with J the
  Jaccard index, a strictly increasing map, so a proportion method on F1 is the Jaccard
  interval mapped through x -> 2x/(1 + x): it covers the true F1 exactly when the Jaccard
  interval covers the true J. F1 also takes the confusion-matrix methods (methods/f1.py).
  ``balanced_accuracy`` (tpr + tnr)/2 takes the two-class methods (methods/balanced.py)
  with k_pos = TP, n_pos = TP + FN, k_neg = TN, n_neg = TN + FP.

* ``scores`` (a test set's scores of n_pos positives and n_neg negatives; the binormal
  design): ``auc``, θ = P(X > Y) + ½·P(X = Y) for a positive's score X and a negative's Y.
  AUC methods (methods/auc.py) apply to the scores.
* ``unpaired`` (k1 of n1 and k2 of n2 correct on two independent test sets) and ``paired``
  (the table both, only_first, only_second, neither of two classifiers on one test set):
  ``difference``, true value p1 - p2 (unpaired) or p_only_first - p_only_second (paired).
  Methods take ``difference`` (k1, n1, k2, n2) or ``paired`` counts; a paired method that
  reads only the discordant pairs lets the design enumerate them alone (``merge``).

``Estimand.bounds`` turns a method and outcome columns into intervals; ``valid`` marks the
outcomes that carry information (counted as ``n_valid`` by Monte Carlo).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import validate
from .designs.confusion import cell_probabilities
from .methods import Method, get
from .methods.clustered import clustered_bounds
from .methods.paired import NEEDS_CONCORDANT

METRICS = ("accuracy", "balanced_accuracy", "precision", "recall", "specificity", "npv", "jaccard", "f1")
CELLS = ("tp", "fn", "fp", "tn")
RATIO_CELLS = {  # metric -> (cells summed into k, cells summed into l); f1 through the Jaccard index
    "accuracy": (("tp", "tn"), ("fn", "fp")),
    "precision": (("tp",), ("fp",)),
    "recall": (("tp",), ("fn",)),
    "specificity": (("tn",), ("fp",)),
    "npv": (("tn",), ("fn",)),
    "jaccard": (("tp",), ("fp", "fn")),
    "f1": (("tp",), ("fp", "fn")),
}


@dataclass(frozen=True)
class Estimand:
    """What is estimated on outcomes of kind ``data``, and the kinds of method (``takes``) that apply."""

    name: str
    data: str
    takes: tuple[str, ...]
    null: float | None = None  # the value of "no difference" (measures.excludes_zero), if any

    def truth(self, inputs: dict) -> float:
        """The true value from a design's ``truth_inputs``."""
        return float(truth(self.name, **inputs))

    def merge(self, method: Method):
        """The cell groups (k cells, l cells) whose sums are all ``method`` needs, or None."""

    def valid(self, columns: dict) -> np.ndarray:
        """Outcomes that carry information about the estimand (all, by default)."""
        return np.ones(np.shape(next(iter(columns.values()))), dtype=bool)

    def bounds(self, method: Method, columns: dict, delta, side: str, rng=None, **params):
        """``method``'s intervals for every outcome of ``columns``; arguments already validated."""
        raise NotImplementedError

    def method(self, name) -> Method:
        """The registered method ``name`` if it applies; otherwise ValueError naming those that do."""
        return get(name, self.takes)


class Accuracy(Estimand):
    """p of the binomial design: proportion methods on (k, n)."""

    def truth(self, inputs: dict) -> float:
        return inputs["p"]

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((columns["k"], columns["n"]), delta, side, **params)


class Ratio(Estimand):
    """k/(k + l) over cells of the confusion matrix (module docstring); F1 through the Jaccard index."""

    def merge(self, method):
        return RATIO_CELLS[self.name] if method.takes == "proportion" else None

    def counts(self, columns: dict) -> tuple[np.ndarray, np.ndarray]:
        if "k" in columns:  # a design's outcomes already merged to (k, l)
            return np.asarray(columns["k"]), np.asarray(columns["l"])
        return ratio_counts(self.name, columns)

    def valid(self, columns):
        k, l = self.counts(columns)
        return (k + l) > 0

    def bounds(self, method, columns, delta, side, rng=None, **params):
        if method.takes == "confusion":
            return method.bounds(tuple(columns[c] for c in CELLS), delta, side, rng=rng, **params)
        k, l = self.counts(columns)
        return ratio_bounds(self.name, method, k, l, delta, side, **params)


class BalancedAccuracy(Estimand):
    """(tpr + tnr)/2: two-class methods on (tp, tp + fn, tn, tn + fp)."""

    def valid(self, columns):
        return (columns["tp"] + columns["fn"] > 0) & (columns["tn"] + columns["fp"] > 0)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        c = columns
        return method.bounds((c["tp"], c["tp"] + c["fn"], c["tn"], c["tn"] + c["fp"]), delta, side, **params)


class ClusteredAccuracy(Estimand):
    """p of the clustered design: clustered methods on the per-cluster counts, oracles on the
    totals and the true design effect, proportion methods on the totals (methods/clustered.py)."""

    def truth(self, inputs: dict) -> float:
        return inputs["p"]

    def valid(self, columns):
        return np.ones(np.shape(columns["k"]), dtype=bool)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return clustered_bounds(method, columns, delta, side, rng=rng, **params)




class AUC(Estimand):
    """θ = P(X > Y) + ½·P(X = Y) of a design's score distributions (designs/binormal.py): AUC methods
    on each test set's scores (columns ``pos``, ``neg``: one row per test set)."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["auc"])

    def valid(self, columns):
        return np.ones(np.shape(columns["pos"])[0], dtype=bool)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((columns["pos"], columns["neg"]), delta, side, rng=rng, **params)


class UnpairedDifference(Estimand):
    """p1 - p2 of two independent test sets: difference methods on (k1, n1, k2, n2)."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["p1"] - inputs["p2"])

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((columns["k1"], columns["n1"], columns["k2"], columns["n2"]), delta, side, **params)


class PairedDifference(Estimand):
    """acc_first - acc_second = p_only_first - p_only_second: paired methods on the table."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["p_only_first"] - inputs["p_only_second"])

    def merge(self, method):
        return None if method.name in NEEDS_CONCORDANT else ("only_first", "only_second")

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds(tuple(columns[c] for c in PAIRED_CELLS), delta, side, **params)


PAIRED_CELLS = ("both", "only_first", "only_second", "neither")

ESTIMANDS = {(e.data, e.name): e for e in (
    Accuracy("accuracy", "count", ("proportion",)),
    *(Ratio(m, "confusion", ("proportion",)) for m in RATIO_CELLS if m != "f1"),
    BalancedAccuracy("balanced_accuracy", "confusion", ("two_class",)),
    Ratio("f1", "confusion", ("proportion", "confusion")),
    AUC("auc", "scores", ("scores",)),
    UnpairedDifference("difference", "unpaired", ("difference",), null=0.0),
    PairedDifference("difference", "paired", ("paired",), null=0.0),
    ClusteredAccuracy("accuracy", "clustered", ("proportion", "deff", "clustered")),
)}


def estimands_for(data: str) -> list[Estimand]:
    """The estimands defined on outcomes of kind ``data`` (confusion: in the order of METRICS)."""
    found = [e for (d, _), e in ESTIMANDS.items() if d == data]
    return sorted(found, key=lambda e: METRICS.index(e.name)) if data == "confusion" else found


def get_estimand(data: str, name: str) -> Estimand:
    """The estimand ``name`` on outcomes of kind ``data``; ValueError listing the valid names."""
    if (data, name) not in ESTIMANDS:
        valid = ", ".join(e.name for e in estimands_for(data))
        raise ValueError(f"metric must be one of {valid}, got {name!r}")
    return ESTIMANDS[data, name]


def ratio_counts(metric: str, cells: dict) -> tuple[np.ndarray, np.ndarray]:
    """(k, l) of a ratio metric (or f1, through the Jaccard index) from cell counts or probabilities."""
    k_cells, l_cells = RATIO_CELLS[metric]
    return sum(np.asarray(cells[c]) for c in k_cells), sum(np.asarray(cells[c]) for c in l_cells)


def f1_from_jaccard(j):
    """F1 = 2J/(1 + J), increasing on [0, 1] with 0 -> 0 and 1 -> 1."""
    j = np.asarray(j, dtype=float)
    return 2 * j / (1 + j)


def check_metric(metric) -> str:
    get_estimand("confusion", metric)
    return metric


def truth(metric: str, prevalence, tpr, tnr):
    """The true value of ``metric`` at (prevalence, tpr, tnr) (module docstring).

    Precision is undefined when π_TP + π_FP = 0 (tpr = 0 and tnr = 1) and npv when
    π_TN + π_FN = 0 (tnr = 0 and tpr = 1); those raise ValueError.
    """
    check_metric(metric)
    if metric == "balanced_accuracy":
        return (np.asarray(tpr, dtype=float) + np.asarray(tnr, dtype=float)) / 2
    k, l = ratio_counts(metric, cell_probabilities(prevalence, tpr, tnr))
    if np.any(k + l <= 0):
        raise ValueError(f"tpr, tnr: {metric} is undefined at tpr={tpr!r}, tnr={tnr!r} "
                         f"(its denominator has probability 0)")
    ratio = k / (k + l)
    return f1_from_jaccard(ratio) if metric == "f1" else ratio


def ratio_bounds(metric: str, method: Method, k, l, delta, side: str = "two-sided", **params):
    """Proportion method ``method`` on (k, k + l); [0, 1] where k + l = 0; mapped to F1 for f1.

    Arguments already validated (``params`` complete).
    """
    k, m = np.asarray(k), np.asarray(k) + np.asarray(l)
    empty = m == 0
    lower, upper = method.bounds((k, np.where(empty, 1, m)), delta, side, **params)  # k = 0, n = 1: a stand-in
    lower, upper = np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)
    if metric == "f1":
        lower, upper = f1_from_jaccard(lower), f1_from_jaccard(upper)
    return lower, upper


def confusion_counts(tp, fn, fp, tn) -> tuple[np.ndarray, ...]:
    """Validated cell counts: whole numbers >= 0 broadcasting together, each test set non-empty."""
    arrays = {name: validate.counts(name, value) for name, value in zip(CELLS, (tp, fn, fp, tn))}
    try:
        out = np.broadcast_arrays(*arrays.values())
    except ValueError:
        shapes = ", ".join(f"{name} {a.shape}" for name, a in arrays.items())
        raise ValueError(f"tp, fn, fp and tn must broadcast together, got shapes {shapes}") from None
    if np.any(sum(out) == 0):
        raise ValueError("tp + fn + fp + tn must be >= 1 (a test set has at least one example), got 0")
    return tuple(out)


METRIC_SEED = 0  # metric_interval's default seed for sampling methods: the same call, the same interval


def metric_interval(metric: str, method: str, tp, fn, fp, tn, delta=0.05, side: str = "two-sided",
                    seed: int | None = METRIC_SEED, **params):
    """The ``1 - delta`` interval ``(lower, upper)`` for ``metric`` from a confusion matrix.

    A thin wrapper: ``interval(method, metric=metric, tp=..., fn=..., fp=..., tn=..., ...)``.
    Ratio metrics (and f1) take any proportion method and ``side``; a zero denominator gives
    [0, 1]. ``balanced_accuracy`` takes the balanced methods, f1 also the F1 methods (two-sided
    only; ``bayes`` is then ambiguous: give ``proportion.bayes`` or ``f1.bayes``).

    Parameters
    ----------
    metric : str
        One of ``METRICS``.
    method : str
        A method of a kind the metric takes, e.g. ``"wilson"``, ``"delta"`` (F1), ``"cp_union"``.
    tp, fn, fp, tn : int or array
        The confusion matrix's cells; broadcast.
    delta : float or array
        The miss rate in (0, 1).
    side : {"two-sided", "lower", "upper"}
        One-sided bounds for proportion methods.
    seed : int or None
        Seeds the draws of F1's bootstrap (default ``METRIC_SEED`` = 0; None: fresh entropy).
    **params
        The method's parameters.

    Returns
    -------
    Interval
        ``(lower, upper)``: floats for scalar counts, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import metric_interval
    >>> lo, hi = metric_interval("precision", "wilson", tp=40, fn=10, fp=5, tn=45)
    >>> round(lo, 4), round(hi, 4)
    (0.765, 0.9516)
    """
    from .intervals import interval

    return interval(method, metric=metric, tp=tp, fn=fn, fp=fp, tn=tn, delta=delta, side=side, seed=seed, **params)


# ---------------------------------------------------------------------------------------------
# K classes (the multiclass designs): outcomes are K×K confusion matrices C, rows = true class,
# columns = predicted (columns ``K`` and ``c{i}_{j}``; merged enumerations carry ``k``, ``n``
# or ``k{i}``, ``n{i}`` instead). One example's cell probabilities are P_ij = π_i·R_ij
# (π the class prevalences, R the matrix of P(predicted j | true i)); truths use them:
#
#     accuracy       Σ_i P_ii                                   binomial methods on (trace C, n)
#     micro_f1       = accuracy (single-label data: every error is one FP and one FN, so
#                    micro precision = micro recall = trace/n)  binomial methods on (trace C, n)
#     bea            A_BE(accuracy, K) (``bea``)                 a binomial interval mapped by A_BE
#     macro_recall   mean_i R_ii                                 methods taking "classes"
#     macro_f1       mean_i 2P_ii/(P_i· + P_·i)                  methods taking "multiclass"(_draws)


def bea(accuracy, K):
    """Binary-equivalent accuracy (from "Comparing Classifier Performance — Introduction to BEA"):

        A_BE = ½ + ½·(A^(1/(K-1)) - c)/(1 - c),   c = (1/K)^(1/(K-1)),

    strictly increasing in A, with A_BE(1/K) = ½ (chance), A_BE(1) = 1, and A_BE = A for K = 2.
    Below chance it keeps decreasing past ½, and for K >= 3 it is negative near A = 0
    (A_BE(0) = ½ - c/(2(1 - c)), e.g. -0.18 for K = 3): it is not clipped, so an interval mapped
    through it covers A_BE exactly when the accuracy interval covers A.
    """
    a = np.asarray(accuracy, dtype=float)
    e = 1.0 / (np.asarray(K, dtype=float) - 1)
    c = (1.0 / np.asarray(K, dtype=float)) ** e
    return 0.5 + 0.5 * (a ** e - c) / (1 - c)


def multiclass_cells(inputs: dict) -> np.ndarray:
    """P_ij = π_i·R_ij from a multiclass design's ``truth_inputs``."""
    return np.asarray(inputs["prevalence"], dtype=float)[:, None] * np.asarray(inputs["rates"], dtype=float)


def _matrix(columns: dict) -> np.ndarray:
    from .designs.multiclass import matrix

    return matrix(columns)


class MulticlassAccuracy(Estimand):
    """Accuracy, micro-F1 (the same number) or BEA: binomial methods on (trace C, n)."""

    def truth(self, inputs):
        a = float(np.trace(multiclass_cells(inputs)))
        return float(bea(a, len(inputs["prevalence"]))) if self.name == "bea" else a

    def merge(self, method):
        return "trace"

    def counts(self, columns):
        if "k" in columns:
            return np.asarray(columns["k"]), np.asarray(columns["n"])
        c = _matrix(columns)
        return np.trace(c, axis1=-2, axis2=-1), c.sum(axis=(-2, -1))

    def bounds(self, method, columns, delta, side, rng=None, **params):
        lower, upper = method.bounds(self.counts(columns), delta, side, **params)
        if self.name == "bea":
            K = np.asarray(columns["K"])
            lower, upper = bea(lower, K), bea(upper, K)
        return lower, upper


class MacroRecall(Estimand):
    """mean_i R_ii: methods on the classes' correct counts k_i = C_ii and sizes n_i = Σ_j C_ij."""

    def truth(self, inputs):
        return float(np.mean(np.diag(np.asarray(inputs["rates"], dtype=float))))

    def merge(self, method):
        return "diagonal"

    def counts(self, columns):
        if "k0" in columns:
            K = int(np.asarray(columns["K"]).flat[0])
            return tuple(np.stack([np.asarray(columns[f"{v}{i}"]) for i in range(K)], axis=-1) for v in "kn")
        c = _matrix(columns)
        return np.diagonal(c, axis1=-2, axis2=-1), c.sum(-1)

    def valid(self, columns):
        return np.all(self.counts(columns)[1] > 0, axis=-1)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds(self.counts(columns), delta, side, **params)


class MacroF1(Estimand):
    """mean_i 2P_ii/(P_i· + P_·i): methods on the confusion matrix."""

    def truth(self, inputs):
        from .methods.multiclass import macro_f1

        return float(macro_f1(multiclass_cells(inputs)))

    def valid(self, columns):
        c = _matrix(columns)
        return np.all(c.sum(-1) + c.sum(-2) > 0, axis=-1)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((_matrix(columns),), delta, side, rng=rng, **params)


MULTICLASS_METRICS = ("macro_recall", "macro_f1", "accuracy", "micro_f1", "bea")
ESTIMANDS.update({("multiclass", e.name): e for e in (
    MacroRecall("macro_recall", "multiclass", ("classes",)),
    MacroF1("macro_f1", "multiclass", ("multiclass", "multiclass_draws")),
    *(MulticlassAccuracy(m, "multiclass", ("proportion",)) for m in ("accuracy", "micro_f1", "bea")),
)})


def confusion_matrices(confusion) -> np.ndarray:
    """Validated K×K confusion matrices (..., K, K): whole numbers >= 0, K >= 2, each non-empty."""
    c = validate.counts("confusion", confusion)
    if c.ndim < 2 or c.shape[-1] != c.shape[-2] or c.shape[-1] < 2:
        raise ValueError(f"confusion must be a K×K matrix (or an array of them, shape (..., K, K)) with K >= 2, "
                         f"got shape {c.shape}")
    if np.any(c.sum(axis=(-2, -1)) == 0):
        raise ValueError("confusion must count at least one example per matrix, got an all-zero matrix")
    return c


def multiclass_interval(metric: str, method: str, confusion, delta=0.05, side: str = "two-sided",
                        seed: int | None = METRIC_SEED, **params):
    """The ``1 - delta`` interval ``(lower, upper)`` for a multi-class ``metric`` from confusion matrices.

    A thin wrapper: ``interval(method, metric=metric, confusion=confusion, ...)``.

    Parameters
    ----------
    metric : str
        One of ``MULTICLASS_METRICS``: ``macro_recall`` (``methods("macro_recall")``), ``macro_f1``
        (``methods("macro_f1")``), and ``accuracy``, ``micro_f1``, ``bea`` (proportion methods, with ``side``).
    method : str
        A method of a kind the metric takes, e.g. ``"union_cp"`` (macro recall), ``"takahashi"``.
    confusion : array
        A K×K array of counts, **rows = true class, columns = predicted class** (or an array of
        them, shape (..., K, K)).
    delta : float or array
        The miss rate in (0, 1).
    side : {"two-sided", "lower", "upper"}
        One-sided bounds for proportion methods.
    seed : int or None
        Seeds the draws of macro-F1's bayes and bootstrap (default ``METRIC_SEED`` = 0; None: fresh entropy).
    **params
        The method's parameters.

    Returns
    -------
    Interval
        ``(lower, upper)``: floats for one matrix, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import multiclass_interval
    >>> lo, hi = multiclass_interval("macro_recall", "union_cp", [[40, 5, 5], [3, 20, 2], [1, 1, 8]])
    >>> round(lo, 4), round(hi, 4)
    (0.5198, 0.9498)
    """
    from .intervals import interval

    return interval(method, metric=metric, confusion=confusion, delta=delta, side=side, seed=seed, **params)
