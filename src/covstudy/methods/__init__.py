"""Interval methods: a registry of pure vectorised kernels and the public ``interval`` function."""

from __future__ import annotations

import numpy as np

from .. import validate
from . import binomial  # noqa: F401  (registers the binomial methods)
from .registry import Method, get, methods, register

__all__ = ["Method", "get", "interval", "methods", "register"]


def interval(method: str, k, n, delta=0.05) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided ``1 - delta`` interval ``(lower, upper)`` for p from k successes in n trials.

    ``k``, ``n`` and ``delta`` broadcast; the result is a pair of float arrays in [0, 1].
    """
    m = get(method)
    k, n = validate.k_and_n(k, n)
    d = validate.delta(delta)
    lower, upper = m.kernel(k, n, d)
    return np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
