"""A study's configuration, validated once before any work starts.

``Study.from_config(mapping)`` takes the resolved Hydra config (a plain dict) and either
returns a normalised, immutable ``Study`` or raises ``ConfigError`` with one line that
names the offending key and its valid range. Keys mirror the code's parameters:

    name, question, methods, side, grid.{design, n, p, prevalence, n_pos, n_neg, tpr, tnr, delta},
    reps, seed, engine,
    n_jobs, backend, scheduler, workers, threads_per_worker, force, plot, out

The design decides the axes: binomial needs n, p; the balanced-accuracy designs need
tpr, tnr and either n, prevalence (iid, or stratified with n_pos = round(n·prevalence))
or n_pos, n_neg (stratified only). The confusion-matrix designs iid/stratified take an optional
``grid.metric`` axis (names from metrics.METRICS, with n and prevalence); without it they
study balanced accuracy with the balanced-accuracy methods as before. With it, each method
runs for the metrics it applies to (binomial methods: ratio metrics and f1; F1 methods: f1;
balanced-accuracy methods: balanced_accuracy) and must apply to at least one.
A numeric grid axis is a number, a list of numbers, or an inclusive range
``{start, stop, step}`` (in YAML and on the command line: ``${seq:start,stop,step}``,
like R's ``seq(from, to, by)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from .methods import get
from .methods.balanced import get_balanced
from .methods.f1 import get_f1, validate_f1_params
from .metrics import METRICS, method_kind

ENGINES = ("mc", "exact", "both")
BACKENDS = ("loky", "dask")
SIDES = ("two-sided", "lower", "upper")
TOP_KEYS = ("name", "question", "methods", "side", "grid", "reps", "seed", "engine",
            "n_jobs", "backend", "scheduler", "workers", "threads_per_worker", "force", "plot", "out")
GRID_KEYS = ("design", "metric", "n", "p", "prevalence", "n_pos", "n_neg", "tpr", "tnr", "delta")
DESIGNS = ("binomial", "stratified", "iid")
# The axes each design needs (besides delta), and the valid range of every numeric axis.
DESIGN_AXES = {
    "binomial": (("n", "p"),),
    "stratified": (("n", "prevalence", "tpr", "tnr"), ("n_pos", "n_neg", "tpr", "tnr")),
    "iid": (("n", "prevalence", "tpr", "tnr"),),
}
AXIS_RANGES = {  # key -> (integer, low, high, low_open, high_open)
    "n": (True, 1, None, False, False),
    "n_pos": (True, 1, None, False, False),
    "n_neg": (True, 1, None, False, False),
    "p": (False, 0.0, 1.0, False, False),
    "tpr": (False, 0.0, 1.0, False, False),
    "tnr": (False, 0.0, 1.0, False, False),
    "prevalence": (False, 0.0, 1.0, True, True),
    "delta": (False, 0.0, 1.0, True, True),
}


class ConfigError(ValueError):
    """A study configuration that cannot run; the message names the key and the valid range."""


@dataclass(frozen=True)
class MethodSpec:
    """One method entry of a study: the registry name, its display label and parameters."""

    name: str
    label: str
    params: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Study:
    name: str
    question: str
    methods: tuple[MethodSpec, ...]
    side: str
    design: tuple[str, ...]  # "binomial", or balanced-accuracy designs "stratified"/"iid"
    axes: dict  # grid axis -> sorted tuple of values (delta included)
    reps: int
    seed: int
    engine: str
    n_jobs: int
    backend: str  # "loky" (local processes) or "dask" (a dask.distributed cluster)
    scheduler: str | None  # dask: address of a running scheduler; None starts a LocalCluster
    workers: int | None  # dask LocalCluster workers (None: n_jobs, or all cores)
    threads_per_worker: int  # dask LocalCluster threads per worker
    force: bool
    plot: bool
    out: Path

    @classmethod
    def from_config(cls, cfg: dict) -> "Study":
        unknown = sorted(set(cfg) - set(TOP_KEYS))
        if unknown:
            raise ConfigError(f"{unknown[0]}: unknown key; valid keys: {', '.join(TOP_KEYS)}")
        design, axes = grid_axes(cfg.get("grid"))
        engine = choice("engine", cfg.get("engine", "both"), ENGINES)
        name = text("name", cfg.get("name"))
        side = choice("side", cfg.get("side", "two-sided"), SIDES)
        if design != ("binomial",) and side != "two-sided":
            raise ConfigError("side: balanced-accuracy designs have two-sided intervals only")
        methods = method_specs(cfg.get("methods"), balanced=design != ("binomial",), metrics=axes.get("metric"))
        if "metric" in axes:
            _check_metric_engine(methods, axes, design, engine)
        return cls(
            name=name,
            question=text("question", cfg.get("question", ""), allow_empty=True),
            methods=methods,
            side=side,
            design=design, axes=axes,
            reps=integer("reps", cfg.get("reps", 10_000), low=1),
            seed=integer("seed", cfg.get("seed", 0), low=0),
            engine=engine,
            n_jobs=n_jobs_value(cfg.get("n_jobs", -1)),
            backend=choice("backend", cfg.get("backend", "loky"), BACKENDS),
            scheduler=None if cfg.get("scheduler") is None else text("scheduler", cfg["scheduler"]),
            workers=None if cfg.get("workers") is None else integer("workers", cfg["workers"], low=1),
            threads_per_worker=integer("threads_per_worker", cfg.get("threads_per_worker", 1), low=1),
            force=boolean("force", cfg.get("force", False)),
            plot=boolean("plot", cfg.get("plot", False)),
            out=Path(text("out", cfg.get("out", f"results/{name}"))),
        )

    def config(self) -> dict:
        """The resolved configuration as plain data (what study.yaml records)."""
        return {
            "name": self.name, "question": self.question,
            "methods": [{"name": m.name, "label": m.label, **dict(m.params)} for m in self.methods],
            "side": self.side,
            "grid": {"design": list(self.design), **{k: list(v) for k, v in self.axes.items()}},
            "reps": self.reps, "seed": self.seed, "engine": self.engine, "n_jobs": self.n_jobs,
            "backend": self.backend, "scheduler": self.scheduler, "workers": self.workers,
            "threads_per_worker": self.threads_per_worker,
            "force": self.force, "plot": self.plot, "out": str(self.out),
        }


def grid_axes(grid) -> tuple[tuple[str, ...], dict]:
    """Validate the grid: its designs and, for them, exactly the axes they need."""
    if not isinstance(grid, dict):
        raise ConfigError("grid: must be a mapping of axes, e.g. {n: [50], p: [0.1, 0.5], delta: [0.05]}")
    unknown = sorted(set(grid) - set(GRID_KEYS))
    if unknown:
        raise ConfigError(f"grid.{unknown[0]}: unknown key; valid keys: {', '.join(GRID_KEYS)}")
    raw = grid.get("design", "binomial")
    designs = [raw] if isinstance(raw, str) else raw
    if not isinstance(designs, (list, tuple)) or not designs:
        raise ConfigError(f"grid.design: must be one or more of {', '.join(DESIGNS)}, got {raw!r}")
    for d in designs:
        choice("grid.design", d, DESIGNS)
    design = tuple(dict.fromkeys(designs))
    if "binomial" in design and len(design) > 1:
        raise ConfigError("grid.design: binomial cannot be mixed with the balanced-accuracy designs stratified, iid")
    grid = dict(grid)
    metric = grid.pop("metric", None)
    if metric is not None and "binomial" in design:
        raise ConfigError("grid.metric: only for the confusion-matrix designs stratified, iid")
    given = {k for k in grid if k != "design" and grid[k] is not None}
    options = [set(o) for o in DESIGN_AXES[design[0]]]
    if design == ("stratified",) and metric is None:
        need = next((o for o in options if o <= given), options[0])
    else:  # several designs share the (n, prevalence) parametrisation
        need = options[0]
    for key in sorted(need | {"delta"}):
        if key not in given:
            raise ConfigError(f"grid.{key}: missing; design {'/'.join(design)} needs "
                              f"{', '.join(sorted(need | {'delta'}))}")
    for key in sorted(given - need - {"delta"}):
        raise ConfigError(f"grid.{key}: not an axis of design {'/'.join(design)}; its axes are "
                          f"{', '.join(sorted(need | {'delta'}))}")
    axes = {}
    for key in [k for k in GRID_KEYS if k in need | {"delta"}]:
        integer, low, high, low_open, high_open = AXIS_RANGES[key]
        axes[key] = axis(f"grid.{key}", grid[key], integer=integer, low=low, high=high,
                         low_open=low_open, high_open=high_open)
    if metric is not None:
        names = [metric] if isinstance(metric, str) else metric
        if not isinstance(names, (list, tuple)) or not names:
            raise ConfigError(f"grid.metric: must be one or more of {', '.join(METRICS)}, got {metric!r}")
        for m in names:
            choice("grid.metric", m, METRICS)
        axes = {"metric": tuple(dict.fromkeys(names)), **axes}
    return design, axes


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def axis(key, value, *, integer=False, low=None, high=None, low_open=False, high_open=False):
    """A grid axis as a sorted tuple of unique values, checked against its range."""
    lo = "(" if low_open else "["
    hi = ")" if high_open else "]"
    valid = f"{lo}{low}, {'inf' if high is None else high}{hi}"
    kind = "whole numbers" if integer else "numbers"
    if isinstance(value, dict):
        values = _range(key, value)
    elif isinstance(value, (list, tuple)):
        values = list(value)
    else:
        values = [value]
    if not values:
        raise ConfigError(f"{key}: empty grid; give at least one value in {valid}")
    for v in values:
        if not _number(v) or (integer and float(v) != int(v)):
            raise ConfigError(f"{key}: must be {kind} in {valid}, got {v!r}")
        too_low = low is not None and (v <= low if low_open else v < low)
        too_high = high is not None and (v >= high if high_open else v > high)
        if too_low or too_high:
            raise ConfigError(f"{key}: must be in {valid}, got {v!r}")
    if integer:
        return tuple(sorted({int(v) for v in values}))
    return tuple(sorted({round(float(v), 12) for v in values}))


def seq(start, stop, step) -> list:
    """The inclusive range start, start + step, ..., stop (rounded to 12 digits)."""
    return _range("seq", {"start": start, "stop": stop, "step": step})


def _range(key, spec: dict) -> list:
    if set(spec) != {"start", "stop", "step"}:
        raise ConfigError(f"{key}: a range needs exactly the keys start, stop, step; got {sorted(spec)}")
    start, stop, step = spec["start"], spec["stop"], spec["step"]
    if not all(_number(v) for v in (start, stop, step)) or step <= 0 or stop < start:
        raise ConfigError(f"{key}: range needs numbers with step > 0 and stop >= start, got {spec}")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    if count > 1_000_000:
        raise ConfigError(f"{key}: range has {count} values; at most 1000000")
    return [round(start + i * step, 12) for i in range(count)]


def choice(key, value, options):
    if value not in options:
        raise ConfigError(f"{key}: must be one of {', '.join(options)}, got {value!r}")
    return value


def text(key, value, allow_empty=False):
    if not isinstance(value, str) or (not value and not allow_empty):
        raise ConfigError(f"{key}: must be a non-empty string, got {value!r}")
    return value


def integer(key, value, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{key}: must be an integer >= {low}, got {value!r}")
    return value


def boolean(key, value):
    if not isinstance(value, bool):
        raise ConfigError(f"{key}: must be true or false, got {value!r}")
    return value


def n_jobs_value(value):
    if isinstance(value, bool) or not isinstance(value, int) or value == 0 or value < -1:
        raise ConfigError(f"n_jobs: must be -1 (all cores) or an integer >= 1, got {value!r}")
    return value


def _check_metric_engine(methods, axes, design, engine):
    from .metric_coverage import RATIO_IID_EXACT_LIMIT

    if engine == "mc":
        return
    for m in methods:
        kinds = {method_kind(metric, m.name) for metric in axes["metric"] if method_applies(metric, m.name)}
        if kinds == {"f1"} and engine == "exact":
            raise ConfigError(f"engine: F1 method {m.name} has Monte Carlo coverage only; use engine mc or both")
        if "iid" in design and "binomial" in kinds and max(axes["n"]) > RATIO_IID_EXACT_LIMIT:
            raise ConfigError(f"grid.n: exact iid coverage of the ratio metrics needs n <= {RATIO_IID_EXACT_LIMIT}, "
                              f"got {max(axes['n'])}; use engine mc")


def method_kind_name(name, metrics) -> str:
    """The registry kind ("binomial", "balanced", "f1") of ``name`` for the first of ``metrics``
    it applies to (metrics.method_kind); ValueError if it applies to none."""
    for metric in metrics:
        if method_applies(metric, name):
            return method_kind(metric, name)
    raise ValueError(f"method {name!r} applies to none of the metrics {', '.join(metrics)}")


def method_applies(metric, method) -> bool:
    try:
        method_kind(metric, method)
    except ValueError:
        return False
    return True


def method_specs(entries, balanced: bool = False, metrics=None) -> tuple[MethodSpec, ...]:
    """Method entries: a name, or a mapping {name: ..., label: ..., <param>: value, ...};
    binomial methods for the binomial design, balanced-accuracy methods otherwise, and for a
    ``grid.metric`` axis any method that applies to one of ``metrics``."""
    if isinstance(entries, str):
        entries = [entries]
    if not isinstance(entries, (list, tuple)) or not entries:
        raise ConfigError("methods: must be a non-empty list of method names or {name: ...} mappings")
    specs = []
    for i, entry in enumerate(entries):
        where = f"methods[{i}]"
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, dict) or "name" not in entry:
            raise ConfigError(f"{where}: must be a method name or a mapping with a 'name' key, got {entry!r}")
        entry = dict(entry)
        name = entry.pop("name")
        label = entry.pop("label", None)
        try:
            kind = method_kind_name(name, metrics) if metrics else "balanced" if balanced else "binomial"
            method = {"binomial": get, "balanced": get_balanced, "f1": get_f1}[kind](name)
        except ValueError as err:
            raise ConfigError(f"{where}: {str(err).removeprefix('method: ')}") from None
        for pname, pvalue in entry.items():
            if not _number(pvalue):
                raise ConfigError(f"{where}.{pname}: method parameters must be numbers, got {pvalue!r}")
        try:
            # F1 methods also need a whole number of draws.
            params = validate_f1_params(method.name, entry) if kind == "f1" else method.validate_params(entry)
        except ValueError as err:
            raise ConfigError(f"{where}: {err}") from None
        if label is None:
            given = ",".join(f"{k}={v:g}" for k, v in sorted(entry.items()))
            label = f"{method.name}({given})" if given else method.name
        specs.append(MethodSpec(method.name, text(f"{where}.label", label), tuple(sorted(params.items()))))
    labels = [s.label for s in specs]
    for label in labels:
        if labels.count(label) > 1:
            raise ConfigError(f"methods: label {label!r} appears twice; give each entry a distinct label")
    return tuple(specs)
