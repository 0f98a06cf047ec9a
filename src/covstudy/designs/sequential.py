"""The sequential design: a test set that grows, looked at after every batch.

Bernoulli(p) examples arrive; the user looks at sizes n_1 < ... < n_L (``Looks``: a list, or
every ``batch`` examples up to ``n_max``), computes an interval at each look and stops by a
``Rule``: ``never`` (look at every batch, stop at n_L), ``width`` (stop at the first look
whose interval is at most ``width`` wide) or ``threshold`` (stop at the first look whose interval
excludes ``threshold``: an admission gate). The estimand is p. A ``Procedure`` is what is
computed at each look: a fixed-n proportion method at the miss rate its ``adjust`` spends
there (``none``, the naive peek; ``bonferroni``; ``obf`` and ``pocock``, Lan–DeMets spending:
methods/sequential.py), or a confidence sequence (kind ``sequential``).

Measures, per p: ``coverage`` (p inside the interval at the look where the rule stops),
``simultaneous`` (p inside the interval at every look 1..L, whatever the rule: what a
confidence sequence guarantees), ``expected_n`` (E[size at stopping]), ``width`` (mean width at
stopping) and ``stopped_early`` (P(stop before n_L)).

Exact (``exact``): every interval is a function of (look, k), so the paths' distribution is a
dynamic programme over (look, k) — no simulation. With m_l(k) the probability of reaching look l
with k successes without having stopped, m_l = (m_{l−1}·1[not stopped]) ∗ Binomial(n_l − n_{l−1}, p)
(a convolution), and likewise a_l = (a_{l−1} ∗ Binomial)·1[p ∈ C_l(k)] for the paths covered at
every look so far; the measures are sums over (l, k). Monte Carlo (``simulate``) draws the
paths (increments Binomial(n_l − n_{l−1}, p) per look, from the stream keyed by (p, looks))
and is the check of the programme. This design does not pass through the engine
(engine/core.py scores one outcome distribution for every method, but here where the path stops
depends on the method's own intervals), so it is not in ``DESIGNS``: its door is
``sequential_coverage`` and its study ``sequential/study.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special

from .. import validate
from ..methods import Method, get
from ..methods.sequential import SPENDING, spend
from ..seeds import stream

RULES = ("never", "width", "threshold")
MEASURES = ("coverage", "simultaneous", "expected_n", "width", "stopped_early")
N_MAX_LIMIT = 20_000  # the programme costs about n_max²/2 multiply-adds per p (~1 CPU-s per 10 p at the limit)
LOOKS_LIMIT = 2_000
_BLOCK = 65_536  # simulated paths at a time


@dataclass(frozen=True)
class Looks:
    """The sizes n_1 < ... < n_L at which the user looks."""

    sizes: tuple[int, ...]

    @classmethod
    def of(cls, looks=None, batch=None, n_max=None) -> "Looks":
        """From a list of sizes (``looks``), or every ``batch`` examples up to ``n_max`` (then n_max
        is the last look even if batch does not divide it); one-line ValueError otherwise."""
        if looks is not None:
            if batch is not None or n_max is not None:
                raise ValueError("looks: give either the sizes looks=[...] or batch and n_max, not both")
            sizes = validate.one_dimensional("looks", validate.counts("looks", looks, minimum=1)).ravel()
            if sizes.size == 0 or np.any(np.diff(sizes) <= 0):
                raise ValueError(f"looks must be increasing sizes >= 1, got {list(map(int, sizes))}")
        else:
            if batch is None or n_max is None:
                raise ValueError("looks: give the sizes looks=[...], or batch and n_max")
            batch = int(validate.counts("batch", validate.scalar("batch", batch), minimum=1))
            n_max = int(validate.counts("n_max", validate.scalar("n_max", n_max), minimum=1))
            if n_max > N_MAX_LIMIT:  # before the schedule is built: n_max = 10^15 would be 10^14 looks
                raise ValueError(f"n_max must be <= {N_MAX_LIMIT:,} (the last look), got {n_max:,}")
            if batch > n_max:
                raise ValueError(f"batch must be <= n_max ({n_max}), got {batch}")
            if -(-n_max // batch) > LOOKS_LIMIT:
                raise ValueError(f"batch: at most {LOOKS_LIMIT:,} looks, got n_max / batch = {n_max:,} / {batch:,}; "
                                 f"raise batch to {-(-n_max // LOOKS_LIMIT):,}")
            sizes = np.unique(np.append(np.arange(batch, n_max + 1, batch), n_max))
        if sizes[-1] > N_MAX_LIMIT:
            raise ValueError(f"looks: the last size must be <= {N_MAX_LIMIT:,}, got {int(sizes[-1]):,}")
        if sizes.size > LOOKS_LIMIT:
            raise ValueError(f"looks: at most {LOOKS_LIMIT:,} looks, got {sizes.size:,}")
        return cls(tuple(int(n) for n in sizes))

    @classmethod
    def even(cls, count: int, n_max: int) -> "Looks":
        """``count`` looks spread evenly up to n_max: n_l = round(l·n_max/count)."""
        count = int(validate.counts("looks", validate.scalar("looks", count), minimum=1, maximum=LOOKS_LIMIT))
        n_max = int(validate.counts("n_max", validate.scalar("n_max", n_max), minimum=1, maximum=N_MAX_LIMIT))
        if count > n_max:
            raise ValueError(f"looks must be <= n_max ({n_max}) when counted, got {count}")
        return cls.of(looks=np.rint(np.arange(1, count + 1) * n_max / count).astype(int))

    @property
    def array(self) -> np.ndarray:
        return np.asarray(self.sizes)


@dataclass(frozen=True)
class Rule:
    """When the user stops: ``never`` (at n_L), ``width`` (width <= value) or ``threshold``
    (the interval excludes value)."""

    kind: str = "never"
    value: float | None = None

    @classmethod
    def of(cls, rule="never", width=None, threshold=None) -> "Rule":
        if rule not in RULES:
            raise ValueError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
        if rule == "width":
            if threshold is not None:
                raise ValueError("threshold: only with rule=threshold")
            return cls(rule, float(validate.interval("width", _given("width", width), 0.0, 1.0, True, False)))
        if rule == "threshold":
            if width is not None:
                raise ValueError("width: only with rule=width")
            return cls(rule, float(validate.interval("threshold", _given("threshold", threshold), 0.0, 1.0, True, True)))
        if width is not None or threshold is not None:
            raise ValueError(f"{'width' if width is not None else 'threshold'}: only with rule="
                             f"{'width' if width is not None else 'threshold'} (rule is never)")
        return cls()

    def stops(self, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """Whether the user stops at each outcome of a look, given its intervals."""
        if self.kind == "width":
            return upper - lower <= self.value
        if self.kind == "threshold":
            return (lower > self.value) | (upper < self.value)
        return np.zeros(np.shape(lower), dtype=bool)


def _given(name, value):
    if value is None:
        raise ValueError(f"{name}: missing (rule={name} needs {name}=...)")
    return validate.scalar(name, value)


@dataclass(frozen=True)
class Procedure:
    """What is computed at each look: ``method`` (a proportion method at the miss rate ``adjust``
    spends there, or a confidence sequence) with its ``params``."""

    method: Method
    adjust: str = "none"
    params: dict = field(default_factory=dict)

    @classmethod
    def of(cls, method, adjust="none", **params) -> "Procedure":
        m = method if isinstance(method, Method) else get(method, ("proportion", "sequential"))
        if adjust not in SPENDING:
            raise ValueError(f"adjust must be one of {', '.join(SPENDING)}, got {adjust!r}")
        if m.takes == "sequential" and adjust != "none":
            raise ValueError(f"adjust: {m.qualified} is a confidence sequence, valid at every look; "
                             f"adjust applies to fixed-n methods, got {adjust!r}")
        return cls(m, adjust, m.validate_params(params))

    @property
    def label(self) -> str:
        """``wilson``, ``wilson+obf``, ``mixture``: the method's short name and its adjustment."""
        return self.method.short + ("" if self.adjust == "none" else f"+{self.adjust}")

    def intervals(self, looks: Looks, delta: float) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(lower, upper)`` over k = 0..n_l at every look l."""
        sizes = looks.array
        if self.method.takes == "sequential":
            return [self.method.bounds((np.arange(n + 1), n, l + 1), delta, **self.params)
                    for l, n in enumerate(sizes.tolist())]
        spent = spend(self.adjust, sizes / sizes[-1], delta)
        return [self.method.bounds((np.arange(n + 1), n), d, **self.params)
                for n, d in zip(sizes.tolist(), spent.tolist())]


def _binomial_pmf(size: int, p: np.ndarray) -> np.ndarray:
    """Binomial(j; size, p) for j = 0..size, one row per p (shape (P, 1)): exp of the log pmf from
    log-gamma (relative error ~1e-13; scipy's binom.pmf raises OverflowError at subnormal p)."""
    j = np.arange(size + 1)
    log_choose = special.gammaln(size + 1) - special.gammaln(j + 1) - special.gammaln(size - j + 1)
    return np.exp(log_choose + special.xlogy(j, p) + special.xlog1py(size - j, -p))


def _convolve(mass: np.ndarray, step: np.ndarray) -> np.ndarray:
    """Row-wise convolution of (P, a) and (P, b) -> (P, a + b − 1), in a fixed order (the same bits
    whichever rows share the array)."""
    a, b = mass.shape[1], step.shape[1]
    out = np.zeros((mass.shape[0], a + b - 1))
    if b <= a:
        for j in range(b):
            out[:, j:j + a] += mass * step[:, j:j + 1]
    else:
        for i in range(a):
            out[:, i:i + b] += step * mass[:, i:i + 1]
    return out


def exact(procedure: Procedure, looks: Looks, rule: Rule, p, delta: float, tables=None) -> dict[str, np.ndarray]:
    """The measures (``MEASURES``) at each p, exactly, by the dynamic programme of the module docstring.

    ``tables``: the procedure's intervals at every look (``Procedure.intervals``) if already computed."""
    p = np.atleast_1d(np.asarray(p, dtype=float))
    tables = procedure.intervals(looks, delta) if tables is None else tables
    sizes = looks.sizes
    going = np.ones((p.size, 1))  # P(not stopped, k) at the last look
    covered = np.ones((p.size, 1))  # P(covered at every look so far, k)
    out = {m: np.zeros(p.size) for m in MEASURES}
    previous = 0
    truth = p[:, None]
    for l, (n, (lower, upper)) in enumerate(zip(sizes, tables)):
        step = _binomial_pmf(n - previous, truth)
        going, covered = _convolve(going, step), _convolve(covered, step)
        inside = (lower <= truth) & (truth <= upper)
        stop = np.ones(n + 1, dtype=bool) if l == len(sizes) - 1 else rule.stops(lower, upper)
        stopped = going * stop
        out["coverage"] += np.sum(stopped * inside, axis=1)
        out["width"] += np.sum(stopped * (upper - lower), axis=1)
        out["expected_n"] += n * np.sum(stopped, axis=1)
        if l < len(sizes) - 1:
            out["stopped_early"] += np.sum(stopped, axis=1)
        going = going - stopped
        covered = covered * inside
        previous = n
    out["simultaneous"] = np.sum(covered, axis=1)
    for m in ("coverage", "simultaneous", "stopped_early"):
        out[m] = np.clip(out[m], 0.0, 1.0)
    return out


def simulate(procedure: Procedure, looks: Looks, rule: Rule, p, delta: float, reps: int, seed: int,
             tables=None) -> dict[str, np.ndarray]:
    """The measures at each p from ``reps`` simulated paths, with their Monte Carlo standard errors
    (``<measure>_mcse``: the sample sd over √reps). Each p's paths come from its own stream, keyed by (p, looks)."""
    p = np.atleast_1d(np.asarray(p, dtype=float))
    tables = procedure.intervals(looks, delta) if tables is None else tables
    sizes = looks.array
    steps = np.diff(sizes, prepend=0)
    last = len(sizes) - 1
    out = {m: np.zeros(p.size) for m in MEASURES} | {f"{m}_mcse": np.zeros(p.size) for m in MEASURES}
    for i, truth in enumerate(p.tolist()):
        rng = stream(seed, design="sequential", p=truth, looks=",".join(map(str, looks.sizes)))
        sums = {m: np.zeros(2) for m in MEASURES}  # sum and sum of squares
        for start in range(0, reps, _BLOCK):
            k = np.cumsum(rng.binomial(steps, truth, size=(min(_BLOCK, reps - start), len(sizes))), axis=1)
            inside = np.stack([(lo[k[:, l]] <= truth) & (truth <= hi[k[:, l]])
                               for l, (lo, hi) in enumerate(tables)], axis=1)
            stops = np.stack([rule.stops(lo, hi)[k[:, l]] if l < last else np.ones(len(k), dtype=bool)
                              for l, (lo, hi) in enumerate(tables)], axis=1)
            at = np.argmax(stops, axis=1)  # the first look that stops
            rows = np.arange(len(k))
            width = np.stack([hi[k[:, l]] - lo[k[:, l]] for l, (lo, hi) in enumerate(tables)], axis=1)
            values = {"coverage": inside[rows, at], "simultaneous": inside.all(axis=1), "expected_n": sizes[at],
                      "width": width[rows, at], "stopped_early": at < last}
            for m, v in values.items():
                v = v.astype(float)
                sums[m] += (v.sum(), (v * v).sum())
        for m, (s, s2) in sums.items():
            mean = s / reps
            out[m][i] = mean
            out[f"{m}_mcse"][i] = np.sqrt(max(s2 / reps - mean * mean, 0.0) / reps)
    return out


def sequential_coverage(method, p, *, looks=None, batch=None, n_max=None, rule="never", width=None,
                        threshold=None, adjust="none", delta=0.05, reps=None, seed=None, **params) -> dict:
    """Coverage of ``method`` when the test set grows and the user looks at every look.

    Parameters
    ----------
    method : str
        A proportion method (``"wilson"``: applied at every look at the miss rate ``adjust``
        spends) or a confidence sequence (``"mixture"``, ``"betting"``, ``"cp_union"``).
    p : float or array
        True accuracies in [0, 1].
    looks : list of int, optional
        The sizes n_1 < ... < n_L at which the user looks; or ``batch`` and ``n_max``.
    rule : {"never", "width", "threshold"}
        When the user stops (``width=`` or ``threshold=`` with it).
    adjust : {"none", "bonferroni", "obf", "pocock"}
        How a fixed-n method spends delta over the looks.
    reps, seed : int, optional
        Monte Carlo paths and seed; None (default): exact, by dynamic programming.

    Returns
    -------
    dict
        ``p`` and the measures (``MEASURES``), arrays over p; Monte Carlo adds ``<measure>_mcse``.

    Examples
    --------
    >>> r = sequential_coverage("wilson", 0.9, batch=10, n_max=100)
    >>> round(float(r["simultaneous"][0]), 3) < 0.95  # ten peeks spend more than delta
    True
    """
    p = validate.one_dimensional("p", validate.interval("p", p, 0.0, 1.0, False, False))
    schedule = Looks.of(looks, batch, n_max)
    stop = Rule.of(rule, width, threshold)
    d = float(validate.delta(delta))
    procedure = Procedure.of(method, adjust, **params)
    if reps is None:
        if seed is not None:
            raise ValueError("seed: only with reps (Monte Carlo); the default engine is exact")
        return {"p": np.atleast_1d(p).astype(float), **exact(procedure, schedule, stop, np.ravel(p), d)}
    reps, seed = validate.reps_and_seed(reps, seed)
    return {"p": np.atleast_1d(p).astype(float), **simulate(procedure, schedule, stop, np.ravel(p), d, reps, seed)}


def confidence_sequence(method, k, n, *, delta=0.05, adjust="none", **params):
    """The intervals a procedure gives at each look of one growing test set.

    Parameters
    ----------
    method : str
        A confidence sequence (``"mixture"``, ``"betting"``, ``"cp_union"``) or a proportion method
        (spending delta over these looks by ``adjust``, n[-1] the last look).
    k, n : sequences of int
        Successes and sizes at the looks, n increasing.
    delta : float
        The miss rate: every look's interval holds p at once with probability >= 1 - delta
        (a confidence sequence, or an adjusted Clopper–Pearson; not the naive peek).
    adjust : {"none", "bonferroni", "obf", "pocock"}
        How a fixed-n method spends delta over the looks.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper ends, one entry per look.

    Examples
    --------
    >>> lower, upper = confidence_sequence("mixture", [8, 17, 27], [10, 20, 30])
    >>> bool(lower[-1] < 0.9 < upper[-1])
    True
    """
    k, n = validate.k_and_n(k, n)
    k, n = np.broadcast_arrays(validate.one_dimensional("k", k).ravel(), validate.one_dimensional("n", n).ravel())
    schedule = Looks.of(looks=n)
    if np.any(np.diff(k) < 0) or np.any(np.diff(k) > np.diff(n)):
        raise ValueError("k: the successes at successive looks must grow by at most the examples added")
    procedure = Procedure.of(method, adjust, **params)
    tables = procedure.intervals(schedule, float(validate.delta(delta)))
    lower = np.array([lo[kk] for (lo, _), kk in zip(tables, k.tolist())])
    upper = np.array([hi[kk] for (_, hi), kk in zip(tables, k.tolist())])
    return lower, upper
