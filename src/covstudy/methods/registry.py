"""The method registry: one place that maps names (and aliases) to interval kernels.

Every method declares what it *takes* (``INPUTS``, each kind declared by ``register_kind`` in
its methods module): a proportion (k successes of n), two
classes (k_pos of n_pos and k_neg of n_neg correct, for balanced accuracy), a confusion
matrix (tp, fn, fp, tn), for K classes the classes' correct counts and sizes or the K×K
confusion matrix (methods/multiclass.py), two independent test sets (k1 of n1, k2 of n2), a
paired table of two classifiers (both, only_first, only_second, neither), or a test set's
scores (positives', negatives'; for the AUC, methods/auc.py). Its kernel is a pure vectorised function
``kernel(*counts, delta, **params) -> (lower, upper)`` over those counts (broadcasting numpy
arrays, already validated), ``delta`` the two-sided miss rate and ``params`` the method's
parameters (validated, defaults filled in); confusion-matrix and scores kernels also take
``rng``, the generator of their posterior or bootstrap draws. Kernels never validate; the public API does.

Sides. ``Method.bounds`` is the one place where a side is turned into kernel calls:

* ``"two-sided"``: ``kernel(*counts, delta)``.
* ``"lower"`` / ``"upper"`` (proportion methods only): the one-sided ``1 - delta`` bound, the
  other end being 0 or 1. By default (``one_sided=None``) the method is *equal-tailed*: each
  end of its two-sided interval is the one-sided bound at tail probability ``delta/2``, so
  the one-sided bound at ``delta`` is the matching end of ``kernel(k, n, 2·delta)``.
  Equal-tailed kernels must therefore accept ``delta`` in (0, 2), i.e. be written through the
  tail ``delta/2``, which may exceed ½ (then ``z = Φ⁻¹(1 - delta/2)`` is negative and a
  "lower" end lies above p̂). Methods whose two-sided interval is not equal-tailed (Blaker)
  register an explicit ``one_sided`` kernel returning ``(lower bound, upper bound)`` at
  one-sided level ``1 - delta``.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import validate

Kernel = Callable[..., tuple[np.ndarray, np.ndarray]]

FAMILIES = ("exact", "approximate", "bayesian")
SIDES = ("two-sided", "lower", "upper")


@dataclass(frozen=True)
class Input:
    """What a kind of method takes: its count arguments and how errors name the kind."""

    counts: tuple[str, ...]
    label: str  # "unknown <label> method"
    per_test_set: bool = False  # kernels draw random numbers: called once per simulated test set
    why_mc_only: str = "draws random numbers per test set"  # why per-test-set methods have no exact engine
    kind: str = "proportion"  # the public kind: qualified names are "<kind>.<short name>"
    prefix: str = ""  # the legacy prefix of its registered names ("paired_"), dropped in short names
    # The public interval door (intervals.py): the kind of data its counts are (a design's ``data``
    # where one has it), the route that checks them and calls a method on them,
    # route(method, estimand, counts, delta, side, rng, params, icc) -> (lower, upper), and whether
    # the counts alone define the interval (no estimand to choose).
    data: str = ""
    route: Callable | None = field(default=None, repr=False)
    plain: bool = False
    # False for methods that are not intervals of one estimand (ROC/PR bands): a short name looked
    # up with no kind given (get("wilson")) means an interval, so bands do not make it ambiguous.
    interval: bool = True
    # The kind's plug-in point estimate from its counts (a proportion's k/n), a method's own unless it
    # declares one (``Method.estimate``); None: the metric's estimate as the caller computed it.
    estimate: Callable | None = field(default=None, repr=False)


INPUTS: dict[str, Input] = {}  # kind of input -> Input, filled by ``register_kind`` in each methods module
KINDS: tuple[str, ...] = ()  # the public kinds, in registration order


def register_kind(takes: str, counts: tuple[str, ...], label: str, **options) -> Input:
    """Declare the kind of input ``takes`` (what its methods' kernels take): its count arguments,
    its label in errors, and the ``Input`` options (``per_test_set``, ``why_mc_only``, ``kind``, ``prefix``,
    and for the interval door ``data`` (default: ``takes``), ``route``, ``plain``; ``interval=False``
    keeps its methods out of short-name lookups that name no kind; ``estimate``, its plug-in estimate)."""
    global KINDS
    if takes in INPUTS:
        raise ValueError(f"kind of input {takes!r} is already registered")
    INPUTS[takes] = Input(tuple(counts), label, **{"data": takes, **options})
    KINDS = tuple(dict.fromkeys(i.kind for i in INPUTS.values()))
    return INPUTS[takes]


@dataclass(frozen=True)
class Param:
    """A numeric method parameter: its default, the open lower bound ``above`` it must exceed,
    the largest value ``at_most`` it may take, and whether it must be a whole number (then it
    is passed on as an int)."""

    name: str
    default: float
    above: float = -math.inf
    doc: str = ""
    integer: bool = False
    at_most: float = math.inf
    auto: str = ""  # the default 0 stands for this (e.g. "1/K²"), a value the kernel works out from the counts

    def check(self, method: str, value):
        try:
            x = math.nan if validate.not_numbers(value) else float(value)
        except (TypeError, ValueError):
            x = math.nan
        if self.auto and x == 0:
            return 0.0
        kind = "whole number" if self.integer else "finite number"
        if (not (math.isfinite(x) and self.above < x <= self.at_most)
                or (self.integer and x != int(x))):
            most = f" and <= {self.at_most:g}" if self.at_most < math.inf else ""
            auto = f" (or 0: {self.auto})" if self.auto else ""
            raise ValueError(f"{method}: parameter {self.name} must be a {kind} > {self.above:g}{most}{auto}, "
                             f"got {value!r}")
        return int(x) if self.integer else x


def draws_param(default: int, doc: str) -> Param:
    """The ``draws`` parameter of a bootstrap or posterior-sampling method: one bound for all (validate.DRAWS_MAX)."""
    return Param("draws", default, above=0.0, doc=doc, integer=True, at_most=validate.DRAWS_MAX)


@dataclass(frozen=True)
class Method:
    """A registered interval method and what a user needs to know to choose it."""

    name: str
    kernel: Kernel = field(repr=False)
    description: str
    family: str  # "exact" (never below 1 - delta by construction), "approximate" or "bayesian"
    guaranteed: bool  # coverage >= 1 - delta for every truth and test-set size
    reference: str
    takes: str = "proportion"  # a key of INPUTS
    aliases: tuple[str, ...] = ()
    params: tuple[Param, ...] = ()
    one_sided: Kernel | None = field(default=None, repr=False)  # None: equal-tailed (see module doc)
    random: bool | None = None  # draws random numbers (None: as its kind of input, INPUTS)
    display: str = ""  # its name in figures and reports, e.g. "Clopper–Pearson" ("": from the name)
    # Its own point estimate from the counts it takes (and its parameters), where it is not its kind's
    # plug-in (``Input.estimate``): a posterior's median, an estimator such as PPI's. None: the kind's.
    estimate: Callable | None = field(default=None, repr=False)

    def __post_init__(self):
        if not self.display:
            object.__setattr__(self, "display", default_display(self.name))

    def __str__(self) -> str:
        return self.description

    @property
    def short(self) -> str:
        """Its name within its kind ("tango" for paired_tango): what a user types given a design or metric."""
        return self.name.removeprefix(self.input.prefix)

    @property
    def kind(self) -> str:
        """Its public kind (``KINDS``): "proportion", "balanced", "f1", "paired", ..."""
        return self.input.kind

    @property
    def qualified(self) -> str:
        """``kind.short`` ("paired.tango"): valid everywhere, whatever the context."""
        return f"{self.kind}.{self.short}"

    @property
    def per_test_set(self) -> bool:
        """Whether the kernel is called once per simulated test set (it draws random numbers, or
        reads what no design enumerates, such as scores or per-cluster counts), so it has no exact engine."""
        return self.input.per_test_set if self.random is None else self.random

    @property
    def input(self) -> Input:
        return INPUTS[self.takes]

    @property
    def sides(self) -> tuple[str, ...]:
        """The sides it supports: all for proportion methods, two-sided for the others."""
        return SIDES if self.takes == "proportion" else ("two-sided",)

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
                raise ValueError(f"{self.qualified}: unknown parameter {key!r}; valid parameters: {valid}")
        return {name: p.check(self.qualified, params.get(name, p.default)) for name, p in known.items()}

    def prepare(self, side, params: dict | None = None) -> dict[str, float]:
        """The public API's prelude: ``side`` checked, then ``params`` checked and completed."""
        self.check_side(side)
        return self.validate_params(params)

    def check_side(self, side) -> str:
        if side not in SIDES:
            raise ValueError(side_message(side))
        if side not in self.sides:
            raise ValueError(f"side: method {self.qualified!r} has two-sided intervals only, got {side!r}")
        return side

    def bounds(self, counts: tuple, delta, side: str = "two-sided", rng=None, **params):
        """``(lower, upper)`` of the ``1 - delta`` interval on ``side`` from ``counts`` (as the
        method takes them, ``self.input.counts``); arguments already validated.

        The single place where sides map to kernel calls (module docstring).
        """
        if self.input.per_test_set:
            return self.kernel(*counts, delta, rng=rng, **params)
        if side == "two-sided":
            return self.kernel(*counts, delta, **params)
        if side not in self.sides:
            raise ValueError(side_message(side))
        if self.one_sided is None:
            lower, upper = self.kernel(*counts, 2 * np.asarray(delta, dtype=float), **params)
        else:
            lower, upper = self.one_sided(*counts, delta, **params)
        shape = np.broadcast(*counts, delta).shape
        if side == "lower":
            return np.array(np.broadcast_to(lower, shape), dtype=float), np.ones(shape)
        return np.zeros(shape), np.array(np.broadcast_to(upper, shape), dtype=float)


def default_display(name: str) -> str:
    """A method's display name when it declares none: its name in words ("ratio_wald" -> "ratio wald")."""
    return name.replace("_", " ")


def side_message(side: object) -> str:
    return f"side must be one of {', '.join(SIDES)}, got {side!r}"


class Registry:
    """Every method, named within its kind (module docstring of ``Registry.get``).

    A method's identity is (kind, short name); it answers to its short name and aliases where
    its kind applies, and everywhere to its qualified name ``kind.short`` (or ``kind.alias``)
    and to its registered name (the earlier, prefixed one: ``paired_tango``).
    """

    def __init__(self):
        self._methods: dict[str, Method] = {}  # registered name -> method, in registration order
        self._local: dict[str, list[str]] = {}  # short name or alias -> registered names (any kind)
        self._global: dict[str, str] = {}  # qualified or prefixed registered name -> registered name
        self._tables: dict = {}  # (takes, methods registered) -> {qualified: method}: ``all`` is called often

    def register(self, name: str, *, family: str, guaranteed: bool, reference: str, takes: str = "proportion",
                 aliases: tuple[str, ...] = (), params: tuple[Param, ...] = (),
                 one_sided: Kernel | None = None, random: bool | None = None,
                 display: str = "", estimate: Callable | None = None) -> Callable[[Kernel], Kernel]:
        """Decorator registering ``kernel`` under ``name``; the description is its docstring's first line.

        ``name`` is the stream identity of a sampling method's draws (never rename it); its kind's
        prefix (``Input.prefix``) dropped, it is the short name. ``takes`` is what the kernel's
        counts are (a key of INPUTS); ``aliases`` are further short names; ``params`` declares the
        keyword parameters it takes; ``one_sided`` is the one-sided kernel of a proportion
        method that is not equal-tailed (module docstring); ``random=False`` marks a kernel of a
        sampling kind of input (``Input.per_test_set``) that is deterministic, so it has an exact engine;
        ``display`` is its name in figures and reports (default: the short name in words);
        ``estimate`` its point estimate from its counts and parameters, where it has its own
        (``intervals.point_estimate``; default: its kind's, ``register_kind(estimate=...)``).
        """
        if family not in FAMILIES:
            raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
        if takes not in INPUTS:
            raise ValueError(f"takes must be one of {tuple(INPUTS)}, got {takes!r}")

        def decorate(kernel: Kernel) -> Kernel:
            description = (kernel.__doc__ or name).strip().splitlines()[0]
            m = Method(name, kernel, description, family, guaranteed, reference, takes,
                       tuple(aliases), tuple(params), one_sided, random, display, estimate)
            local = (m.short, *aliases)
            keys = [f"{m.kind}.{a}" for a in local] + ([name] if name != m.short else [])
            clash = [k for k in keys if k in self._global or k in self._local or k in self._methods] + \
                [a for a in local if a in self._global or any(self._methods[o].kind == m.kind
                                                              for o in self._local.get(a, ()))]
            if name in self._methods or clash:
                raise ValueError(f"method name {(clash or [name])[0]!r} is already registered")
            self._methods[name] = m
            for a in local:
                self._local.setdefault(a, []).append(name)
            self._global.update(dict.fromkeys(keys, name))
            return kernel

        return decorate

    def get(self, name: str, takes: str | tuple[str, ...] | None = None) -> Method:
        """The method ``name`` among the kinds of input ``takes`` (keys of INPUTS; all if None).

        A qualified (``paired.tango``) or prefixed (``paired_tango``) name is one method; a short
        name or alias (``tango``, ``newcombe``) is looked up among ``takes`` only, and if several
        methods there answer to it (``newcombe`` among all kinds; ``bayes`` for F1, a proportion
        and an F1 method), ValueError names their qualified names. Otherwise ValueError naming
        the valid methods and the closest match.
        """
        kinds = (takes,) if isinstance(takes, str) else tuple(takes or (t for t in INPUTS if INPUTS[t].interval))
        if isinstance(name, str):
            found = [self._methods[self._global[name]]] if name in self._global else \
                [self._methods[n] for n in self._local.get(name, ())]
            here = [m for m in found if m.takes in kinds]
            if len(here) == 1:
                return here[0]
            if len(here) > 1:
                raise ValueError(f"method: {name!r} is ambiguous here, it names {' and '.join(m.qualified for m in here)}; "
                                 f"give the qualified name, or the design or metric")
        valid = [m for m in self._methods.values() if m.takes in kinds]
        names = [n for m in valid for n in (m.short, *m.aliases, m.qualified, m.name)]
        close = difflib.get_close_matches(str(name), names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        elsewhere = [m.qualified for m in found] if isinstance(name, str) else []
        other = f" (it is {' or '.join(elsewhere)}, which takes other counts)" if elsewhere else ""
        label = INPUTS[kinds[0]].label if len(kinds) == 1 else ""
        kind = f"{label} " if label else ""
        lists = [f"{INPUTS[t].label + ' ' if i else 'valid '}methods: "
                 f"{', '.join(sorted(m.short for m in valid if m.takes == t))}" for i, t in enumerate(kinds)]
        raise ValueError(f"method: unknown {kind}method {name!r}{other or hint}; {'; '.join(lists)}")

    def registered(self, name: str) -> Method:
        """The method registered under ``name`` (its stream identity) or answering to a qualified name."""
        return self._methods[self._global.get(name, name)]

    def all(self, takes: str | None = None) -> dict[str, Method]:
        """Methods by qualified name, in registration order, that take ``takes`` (an INPUTS key
        or a public kind, ``KINDS``; None: any)."""
        if takes is not None and takes not in INPUTS and takes not in KINDS:
            raise ValueError(f"takes must be one of {', '.join(dict.fromkeys((*INPUTS, *KINDS)))} or None, "
                             f"got {takes!r}")
        key = (takes, len(self._methods))  # a registration (a lazily imported module) makes a new table
        if key not in self._tables:
            self._tables[key] = {m.qualified: m for m in self._methods.values()
                                 if takes is None or takes in (m.takes, m.kind)}
        return MethodTable(self._tables[key])  # a copy: the caller may change it


class MethodTable(dict):
    """Methods by qualified name; indexing also takes any other name of one of them
    (``methods("paired")["tango"]``, ``["paired_tango"]``), as ``Registry.get`` among their kinds."""

    def __missing__(self, key):
        try:
            m = METHODS.get(key, tuple({m.takes for m in self.values()}))
        except ValueError as err:
            raise KeyError(key) from err
        if m.qualified not in self:
            raise KeyError(key)
        return self[m.qualified]


METHODS = Registry()
register = METHODS.register
get = METHODS.get
registered = METHODS.registered


def methods(takes: str | None = None) -> dict[str, Method]:
    """Every registered method, by qualified name, in registration order; only those taking
    ``takes`` (an INPUTS key or a public kind, ``KINDS``) if given. The public ``covstudy.methods``
    (intervals.py) also filters by design, which this layer does not know.

    Examples
    --------
    >>> from covstudy.methods import methods
    >>> list(methods("paired"))[:3]
    ['paired.wald', 'paired.wald_cc', 'paired.agresti_min']
    """
    return METHODS.all(takes)
