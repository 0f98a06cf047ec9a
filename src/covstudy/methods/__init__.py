"""Interval methods: one registry of pure vectorised kernels and the public ``interval`` function."""

from __future__ import annotations

import numpy as np

from .. import validate
from . import binomial, inverted_tests, balanced, f1, multiclass, difference, paired, auc, clustered  # noqa: F401  (register the methods, in this order)
from .registry import INPUTS, SIDES, Method, Param, get, methods, register, side_message

__all__ = ["INPUTS", "SIDES", "Method", "Param", "auc_methods", "balanced_methods", "f1_methods", "get", "interval", "methods",
           "register", "side_message"]


def balanced_methods() -> dict[str, Method]:
    """The methods for balanced accuracy (they take two classes' counts)."""
    return methods("two_class")


def f1_methods() -> dict[str, Method]:
    """The F1 methods (they take a confusion matrix)."""
    return methods("confusion")


def auc_methods() -> dict[str, Method]:
    """The AUC methods (they take a test set's scores)."""
    return methods("scores")


def interval(method: str, k, n, delta=0.05, side: str = "two-sided", **params) -> tuple[np.ndarray, np.ndarray]:
    """The ``1 - delta`` interval ``(lower, upper)`` for p from k successes in n trials.

    ``side="two-sided"`` (default) gives the interval; ``"lower"`` the one-sided lower
    bound (upper = 1), ``"upper"`` the one-sided upper bound (lower = 0). ``params`` are
    the method's parameters, e.g. ``interval("bayes", 3, 10, a=2, b=2)``; see
    ``methods()[name].params``. ``k``, ``n`` and ``delta`` broadcast; the result is a pair
    of float arrays in [0, 1], or of floats when k, n and delta are single numbers.
    """
    m = get(method, "proportion")
    full = m.prepare(side, params)
    k, n = validate.k_and_n(k, n)
    d = validate.delta(delta)
    lower, upper = m.bounds((k, n), d, side, **full)
    return validate.bounds_out(lower, upper)
