"""The method registry: one place that maps names (and aliases) to interval kernels.

A kernel is a pure vectorised function ``kernel(k, n, delta) -> (lower, upper)``:
``k`` successes out of ``n`` trials (broadcasting numpy arrays, already validated),
``delta`` the two-sided miss rate. Kernels never validate; the public API does.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

Kernel = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]

FAMILIES = ("exact", "approximate", "bayesian")


@dataclass(frozen=True)
class Method:
    """A registered interval method and what a user needs to know to choose it."""

    name: str
    kernel: Kernel = field(repr=False)
    description: str
    family: str  # "exact" (frequentist, inverts the binomial), "approximate" or "bayesian"
    guaranteed: bool  # coverage >= 1 - delta for every p and n
    reference: str
    aliases: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.description


_METHODS: dict[str, Method] = {}
_NAMES: dict[str, str] = {}  # name or alias -> canonical name


def register(name: str, *, family: str, guaranteed: bool, reference: str,
             aliases: tuple[str, ...] = ()) -> Callable[[Kernel], Kernel]:
    """Decorator registering ``kernel`` under ``name``; the description is its docstring's first line."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")

    def decorate(kernel: Kernel) -> Kernel:
        for key in (name, *aliases):
            if key in _NAMES:
                raise ValueError(f"method name {key!r} is already registered")
            _NAMES[key] = name
        description = (kernel.__doc__ or name).strip().splitlines()[0]
        _METHODS[name] = Method(name, kernel, description, family, guaranteed, reference, tuple(aliases))
        return kernel

    return decorate


def get(name: str) -> Method:
    """The method registered as ``name`` (or an alias); unknown names raise ValueError."""
    try:
        return _METHODS[_NAMES[name]]
    except (KeyError, TypeError):
        raise ValueError(unknown_method_message(name)) from None


def unknown_method_message(name: object) -> str:
    close = difflib.get_close_matches(str(name), list(_NAMES), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"method: unknown method {name!r}{hint}; valid methods: {', '.join(sorted(_METHODS))}"


def methods() -> dict[str, Method]:
    """All registered methods by canonical name; ``str(m)`` is its one-line description."""
    return dict(_METHODS)
