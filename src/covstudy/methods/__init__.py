"""Interval methods: one registry of pure vectorised kernels (the public ``interval`` door is intervals.py, above)."""

from __future__ import annotations

import importlib
import pkgutil

from . import binomial, inverted_tests, balanced, f1, multiclass, difference, paired, auc, clustered  # noqa: F401  (register the methods, in this order)
from .registry import INPUTS, KINDS, SIDES, Method, Param, get, methods, register, registered, side_message

__all__ = ["INPUTS", "KINDS", "SIDES", "Method", "Param", "auc_methods", "balanced_methods", "f1_methods", "get", "methods",
           "register", "registered", "side_message"]


# Any other module of the package registers too (a new kind of method is its module alone), after
# those, by name, so that registration order never depends on the file system.
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f".{_module}", __name__)


def balanced_methods() -> dict[str, Method]:
    """The methods for balanced accuracy, by qualified name: ``methods("balanced")``.

    Returns
    -------
    dict
        Qualified name -> ``Method``, as ``methods``.

    Examples
    --------
    >>> from covstudy import balanced_methods
    >>> sorted(m.short for m in balanced_methods().values())
    ['cp_union', 'jeffreys_union', 'posterior', 'posterior_jeffreys', 'wald', 'wilson_union']
    """
    return methods("two_class")


def f1_methods() -> dict[str, Method]:
    """The F1 methods on the confusion matrix, by qualified name: ``methods("f1")``.

    Returns
    -------
    dict
        Qualified name -> ``Method``, as ``methods``.

    Examples
    --------
    >>> from covstudy import f1_methods
    >>> sorted(f1_methods())
    ['f1.bayes', 'f1.bootstrap', 'f1.delta']
    """
    return methods("confusion")


def auc_methods() -> dict[str, Method]:
    """The AUC methods, by qualified name: ``methods("auc")``.

    Returns
    -------
    dict
        Qualified name -> ``Method``, as ``methods``.

    Examples
    --------
    >>> from covstudy import auc_methods
    >>> sorted(auc_methods())
    ['auc.bootstrap', 'auc.chernoff_hoeffding', 'auc.delong', 'auc.hanley_mcneil', 'auc.logit_delong', 'auc.newcombe']
    """
    return methods("scores")
