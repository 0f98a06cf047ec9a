"""Interval methods: one registry of pure vectorised kernels and the public ``interval`` function."""

from __future__ import annotations

from . import binomial, inverted_tests, balanced, f1, multiclass, difference, paired, auc, clustered  # noqa: F401  (register the methods, in this order)
from .registry import INPUTS, KINDS, SIDES, Method, Param, get, methods, register, registered, side_message

__all__ = ["INPUTS", "KINDS", "SIDES", "Method", "Param", "auc_methods", "balanced_methods", "f1_methods", "get", "interval", "methods",
           "register", "registered", "side_message"]


def balanced_methods() -> dict[str, Method]:
    """The methods for balanced accuracy, by qualified name: ``methods("balanced")``."""
    return methods("two_class")


def f1_methods() -> dict[str, Method]:
    """The F1 methods on the confusion matrix, by qualified name: ``methods("f1")``."""
    return methods("confusion")


def auc_methods() -> dict[str, Method]:
    """The AUC methods, by qualified name: ``methods("auc")``."""
    return methods("scores")


def interval(method: str, k, n, delta=0.05, side: str = "two-sided", **params):
    """The proportion interval: ``covstudy.interval(method, k=k, n=n, ...)`` (``covstudy.intervals``),
    kept for ``from covstudy.methods import interval``."""
    from ..intervals import interval as door

    return door(method, k=k, n=n, delta=delta, side=side, **params)
