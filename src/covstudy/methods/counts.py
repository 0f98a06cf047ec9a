"""The count checks of the interval door's routes: each kind of data's counts, validated.

A route (``register_kind(..., route=...)`` in each methods module) checks its counts here before
it calls a method: two independent test sets (k1, n1, k2, n2), a paired table, an eight-cell
paired confusion table, a confusion matrix (tp, fn, fp, tn), K×K confusion matrices. The doors
above (intervals.py, comparison.py) check with the same functions. Data flow: counts as given ->
whole numbers >= 0 broadcasting together (``validate.counts``) -> the kind's own constraints ->
the route's method. Below it only validate and the registry's count names (``INPUTS``).
"""

from __future__ import annotations

import numpy as np

from .. import validate
from .registry import INPUTS

CELLS = ("tp", "fn", "fp", "tn")  # a confusion matrix's cells, in the order of its counts


def broadcast_counts(names, values) -> tuple[np.ndarray, ...]:
    """``values`` as whole numbers >= 0 (``validate.counts``, each named by ``names``), broadcast together."""
    arrays = {name: validate.counts(name, value) for name, value in zip(names, values)}
    try:
        return tuple(np.broadcast_arrays(*arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{name} {a.shape}" for name, a in arrays.items())
        raise ValueError(f"{', '.join(names)} must broadcast together, got shapes {shapes}") from None


def difference_counts(k1, n1, k2, n2) -> tuple[np.ndarray, ...]:
    """Validated (k1, n1, k2, n2): whole numbers, 0 <= ki <= ni, ni >= 1, broadcasting together."""
    k1, n1, k2, n2 = broadcast_counts(INPUTS["difference"].counts, (k1, n1, k2, n2))
    for k, n, i in ((k1, n1, 1), (k2, n2, 2)):
        if np.any(n < 1):
            raise ValueError(f"n{i} must be >= 1 (a test set has at least one example), got {n.flat[np.argmax(n < 1)]}")
        if np.any(k > n):
            j = np.argmax(k > n)
            raise ValueError(f"k{i} must be in [0, n{i}], got k{i}={k.flat[j]} > n{i}={n.flat[j]}")
    return k1, n1, k2, n2


def paired_counts(both, only_first, only_second, neither) -> tuple[np.ndarray, ...]:
    """Validated table counts: whole numbers >= 0 broadcasting together, at least one example."""
    out = broadcast_counts(INPUTS["paired"].counts, (both, only_first, only_second, neither))
    if np.any(sum(out) == 0):
        raise ValueError("both + only_first + only_second + neither must be >= 1 (a test set has at least "
                         "one example), got 0")
    return out


def paired_confusion_counts(*cells) -> tuple[np.ndarray, ...]:
    """Validated 8-cell counts (methods/paired_metrics.py ``COUNTS``): whole numbers >= 0 broadcasting
    together, at least one example."""
    names = INPUTS["paired_confusion"].counts
    out = broadcast_counts(names, cells)
    if np.any(sum(out) == 0):
        raise ValueError(f"{' + '.join(names)} must be >= 1 (a test set has at least one example), got 0")
    return out


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


def confusion_matrices(confusion) -> np.ndarray:
    """Validated K×K confusion matrices (..., K, K): whole numbers >= 0, K >= 2, each non-empty."""
    c = validate.counts("confusion", confusion)
    if c.ndim < 2 or c.shape[-1] != c.shape[-2] or c.shape[-1] < 2:
        raise ValueError(f"confusion must be a K×K matrix (or an array of them, shape (..., K, K)) with K >= 2, "
                         f"got shape {c.shape}")
    if np.any(c.sum(axis=(-2, -1)) == 0):
        raise ValueError("confusion must count at least one example per matrix, got an all-zero matrix")
    return c
