"""The method registry: one place that maps names (and aliases) to interval kernels.

A kernel is a pure vectorised function ``kernel(k, n, delta, **params) -> (lower, upper)``:
``k`` successes out of ``n`` trials (broadcasting numpy arrays, already validated),
``delta`` the two-sided miss rate, ``params`` the method's parameters (validated, defaults
filled in). Kernels never validate; the public API does.

Sides. ``Method.bounds`` is the one place where a side is turned into kernel calls:

* ``"two-sided"``: ``kernel(k, n, delta)``.
* ``"lower"`` / ``"upper"``: the one-sided ``1 - delta`` bound, the other end being 0 or 1.
  By default (``one_sided=None``) the method is *equal-tailed*: each end of its two-sided
  interval is the one-sided bound at tail probability ``delta/2``, so the one-sided bound
  at ``delta`` is the matching end of ``kernel(k, n, 2·delta)``. Equal-tailed kernels must
  therefore accept ``delta`` in (0, 2), i.e. be written through the tail ``delta/2``, which
  may exceed ½ (then ``z = Φ⁻¹(1 - delta/2)`` is negative and a "lower" end lies above p̂).
  Methods whose two-sided interval is not equal-tailed (Blaker) register an explicit
  ``one_sided`` kernel returning ``(lower bound, upper bound)`` at one-sided level ``1 - delta``.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

Kernel = Callable[..., tuple[np.ndarray, np.ndarray]]

FAMILIES = ("exact", "approximate", "bayesian")
SIDES = ("two-sided", "lower", "upper")


@dataclass(frozen=True)
class Param:
    """A numeric method parameter: its default and the open lower bound ``above`` it must exceed."""

    name: str
    default: float
    above: float = -math.inf
    doc: str = ""

    def check(self, method: str, value) -> float:
        try:
            x = float(value)
        except (TypeError, ValueError):
            x = math.nan
        if isinstance(value, bool) or not (math.isfinite(x) and x > self.above):
            raise ValueError(f"{method}: parameter {self.name} must be a finite number > {self.above:g}, "
                             f"got {value!r}")
        return x


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
    params: tuple[Param, ...] = ()
    one_sided: Kernel | None = field(default=None, repr=False)  # None: equal-tailed (see module doc)

    def __str__(self) -> str:
        return self.description

    @property
    def defaults(self) -> dict[str, float]:
        """Parameter names and their default values."""
        return {p.name: p.default for p in self.params}

    def validate_params(self, params: dict | None = None) -> dict[str, float]:
        """``params`` checked and completed with defaults; unknown names or bad values raise ValueError."""
        params = dict(params or {})
        known = {p.name: p for p in self.params}
        for key in params:
            if key not in known:
                valid = ", ".join(known) if known else "none"
                raise ValueError(f"{self.name}: unknown parameter {key!r}; valid parameters: {valid}")
        return {name: p.check(self.name, params.get(name, p.default)) for name, p in known.items()}

    def bounds(self, k, n, delta, side: str = "two-sided", **params) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` of the ``1 - delta`` interval on ``side``; arguments already validated.

        The single place where sides map to kernel calls (module docstring).
        """
        if side == "two-sided":
            return self.kernel(k, n, delta, **params)
        if side not in SIDES:
            raise ValueError(side_message(side))
        if self.one_sided is None:
            lower, upper = self.kernel(k, n, 2 * np.asarray(delta, dtype=float), **params)
        else:
            lower, upper = self.one_sided(k, n, delta, **params)
        shape = np.broadcast(k, n, delta).shape
        if side == "lower":
            return np.array(np.broadcast_to(lower, shape), dtype=float), np.ones(shape)
        return np.zeros(shape), np.array(np.broadcast_to(upper, shape), dtype=float)


def side_message(side: object) -> str:
    return f"side must be one of {', '.join(SIDES)}, got {side!r}"


class Registry:
    """The methods of one kind (binomial, balanced accuracy, F1) by name and alias."""

    def __init__(self, kind: str = ""):
        self.kind = kind  # shown in errors: "unknown <kind> method"
        self._methods: dict[str, Method] = {}
        self._names: dict[str, str] = {}  # name or alias -> canonical name

    def register(self, name: str, *, family: str, guaranteed: bool, reference: str,
                 aliases: tuple[str, ...] = (), params: tuple[Param, ...] = (),
                 one_sided: Kernel | None = None) -> Callable[[Kernel], Kernel]:
        """Decorator registering ``kernel`` under ``name``; the description is its docstring's first line.

        ``params`` declares the keyword parameters the kernel takes; ``one_sided`` is the
        one-sided kernel of a method that is not equal-tailed (module docstring).
        """
        if family not in FAMILIES:
            raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")

        def decorate(kernel: Kernel) -> Kernel:
            for key in (name, *aliases):
                if key in self._names:
                    raise ValueError(f"method name {key!r} is already registered")
                self._names[key] = name
            description = (kernel.__doc__ or name).strip().splitlines()[0]
            self._methods[name] = Method(name, kernel, description, family, guaranteed, reference,
                                         tuple(aliases), tuple(params), one_sided)
            return kernel

        return decorate

    def get(self, name: str) -> Method:
        """The method registered as ``name`` (or an alias); unknown names raise ValueError."""
        try:
            return self._methods[self._names[name]]
        except (KeyError, TypeError):
            close = difflib.get_close_matches(str(name), list(self._names), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            kind = f"{self.kind} " if self.kind else ""
            raise ValueError(f"method: unknown {kind}method {name!r}{hint}; "
                             f"valid methods: {', '.join(sorted(self._methods))}") from None

    def all(self) -> dict[str, Method]:
        """All methods by canonical name; ``str(m)`` is its one-line description."""
        return dict(self._methods)


BINOMIAL = Registry()
register = BINOMIAL.register
get = BINOMIAL.get
methods = BINOMIAL.all
