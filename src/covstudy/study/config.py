"""A study's configuration, validated once before any work starts: the study wing's first room.

``Study.from_config(mapping)`` takes the resolved Hydra config (a plain dict) and either
returns a normalised, immutable ``Study`` or raises ``ConfigError`` with one line that
names the offending key and its valid range. Keys mirror the code's parameters:

    name, question, methods, side, grid.{design, metric, <the design's axes>, delta},
    reps, seed, engine,
    n_jobs, backend, scheduler, workers, threads_per_worker, force, plot, out, exact_curve

The designs (``grid.design``: one or more registered designs, see designs/) decide the
axes: each declares its axes with their ranges and the sets of axes a study may give
(e.g. stratified: n, prevalence, tpr, tnr, or n_pos, n_neg, tpr, tnr). Designs with several
estimands (the confusion-matrix designs) take an optional ``grid.metric`` axis; without it
they study their default estimand. Each method must apply to at least one of the study's
estimands and runs for those it applies to. Every point is checked against the engine's
limits (``core.infeasible``) here, so an infeasible study stops before any work.
Whether the run fits in this machine's memory needs the cells and their tasks: the wing's next
rooms check it (``cost.memory_problem`` of the forecast, in ``runner.run_kind`` before any work).
A numeric grid axis is a number, a list of numbers, or an inclusive range
``{start, stop, step}`` (in YAML and on the command line: ``${seq:start,stop,step}``,
like R's ``seq(from, to, by)``).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .. import validate
from ..designs import DESIGNS, get_design
from ..estimands import estimands_for, get_estimand
from ..engine.core import Analysis, infeasible
from ..methods import SIDES, get, methods

ENGINES = ("mc", "exact", "both")
BACKENDS = ("loky", "dask")
TOP_KEYS = ("name", "question", "methods", "side", "grid", "reps", "seed", "engine",
            "n_jobs", "backend", "scheduler", "workers", "threads_per_worker", "force", "plot", "out",
            "exact_curve", "max_cells")
RUN_KEYS = ("n_jobs", "backend", "scheduler", "workers", "threads_per_worker", "force", "plot", "max_cells")  # how,
# not what: kept out of study.yaml (provenance.json records them), so a rerun rewrites it byte for byte
MAX_CELLS = 1_000_000


def grid_keys() -> tuple[str, ...]:
    """design, metric, every registered design's axes, delta."""
    axes = dict.fromkeys(a.name for d in DESIGNS.values() for a in d.axes)
    return ("design", "metric", *axes, "delta")


class ConfigError(ValueError):
    """A study configuration that cannot run; the message names the key and the valid range.

    Examples
    --------
    >>> import covstudy
    >>> try:
    ...     covstudy.run_study("quick", ["grid.p=[0.2,1.5]"])
    ... except covstudy.ConfigError as error:      # a ValueError, raised before any work
    ...     print(error)
    grid.p: must be in [0.0, 1.0], got 1.5
    """


@dataclass(frozen=True)
class MethodSpec:
    """One method entry of a study: its name as the config gives it (the results' ``method``
    column), its display label, parameters and qualified name (which method it is)."""

    name: str
    label: str
    params: tuple[tuple[str, float], ...] = ()
    qualified: str = ""  # "" : ``name`` says which method without context (a qualified or prefixed name)

    @property
    def method(self):
        return get(self.qualified or self.name)


@dataclass(frozen=True)
class Study:
    name: str
    question: str
    methods: tuple[MethodSpec, ...]
    side: str
    design: tuple[str, ...]  # registered design names (several only if they share their axes)
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
    exact_curve: bool = False  # also the exact confidence coefficient, average coverage and curves (exact_curve.py)
    max_cells: int = MAX_CELLS  # larger studies are refused before any work (a typo in a range, usually)
    # Derived, not configured (check_feasible): under engine both, the cells (method entry, design,
    # design point, estimand) whose point the exact engine cannot take, so they run Monte Carlo
    # only; and the one-line notes saying so.
    mc_only: frozenset = frozenset()
    notes: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, cfg: dict) -> "Study":
        unknown = sorted(set(cfg) - set(TOP_KEYS))
        if unknown:
            raise ConfigError(f"{unknown[0]}: unknown key; valid keys: {', '.join(TOP_KEYS)}")
        design, axes = grid_axes(cfg.get("grid"))
        engine = choice("engine", cfg.get("engine", "both"), ENGINES)
        name = text("name", cfg.get("name"))
        side = choice("side", cfg.get("side", "two-sided"), SIDES)
        estimands = [get_estimand(get_design(design[0]).data, e) for e in study_estimands(design, axes)]
        methods = method_specs(cfg.get("methods"), estimands, metric_axis="metric" in axes)
        study = cls(
            name=name,
            question=text("question", cfg.get("question", ""), allow_empty=True),
            methods=methods,
            side=side,
            design=design, axes=axes,
            reps=integer("reps", cfg.get("reps", 10_000), low=1, high=validate.REPS_MAX),
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
            exact_curve=boolean("exact_curve", cfg.get("exact_curve", False)),
            max_cells=integer("max_cells", cfg.get("max_cells", MAX_CELLS), low=1),
        )
        if study.exact_curve and design != ("binomial",):
            raise ConfigError(f"exact_curve: only for the binomial design, got grid.design {'/'.join(design)}")
        check_size(study)
        mc_only, notes = check_feasible(study)
        return dataclasses.replace(study, mc_only=mc_only, notes=notes)

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
            **({"exact_curve": True} if self.exact_curve else {}),  # absent when off: older study.yaml unchanged
            "max_cells": self.max_cells,
        }

    def record(self) -> dict:
        """What study.yaml records: the configuration without the run-time keys (RUN_KEYS)."""
        return {k: v for k, v in self.config().items() if k not in RUN_KEYS}


def grid_axes(grid) -> tuple[tuple[str, ...], dict]:
    """Validate the grid: its designs and, for them, exactly the axes they need."""
    if not isinstance(grid, dict):
        raise ConfigError("grid: must be a mapping of axes, e.g. {n: [50], p: [0.1, 0.5], delta: [0.05]}")
    keys = grid_keys()
    unknown = sorted(set(grid) - set(keys))
    if unknown:
        raise ConfigError(f"grid.{unknown[0]}: unknown key; valid keys: {', '.join(keys)}")
    design = tuple(one_or_more("grid.design", grid.get("design", "binomial"), tuple(DESIGNS)))
    designs = [get_design(d) for d in design]
    if len({d.data for d in designs}) > 1:
        raise ConfigError(f"grid.design: {', '.join(design)} have different outcomes "
                          f"({', '.join(d.data for d in designs)}); study them separately")
    grid = dict(grid)
    metric = grid.pop("metric", None)
    data = designs[0].data
    if metric is not None and len(estimands_for(data)) < 2:
        several = [d.name for d in DESIGNS.values() if len(estimands_for(d.data)) > 1]
        raise ConfigError(f"grid.metric: only for the confusion-matrix designs {', '.join(several)}")
    given = {k for k in grid if k != "design" and grid[k] is not None}
    optional = set.intersection(*(set(d.optional) for d in designs)) & given  # axes with a default, given
    # the axis sets every design of the study accepts, the given one first
    shared = [o for o in designs[0].parametrisations if all(o in d.parametrisations for d in designs)]
    complete = [o for o in shared if set(o) <= given]
    if len(complete) > 1:
        a, b = (sorted(set(o) - set(complete[1 - i])) for i, o in enumerate(complete[:2]))
        raise ConfigError(f"grid.{b[0]}: design {'/'.join(design)} takes {', '.join(a)} or {', '.join(b)}, "
                          f"not both; set the others to null (e.g. {' '.join(f'grid.{k}=null' for k in a)})")
    need = set(complete[0] if complete else shared[0]) | optional
    what = f"design {'/'.join(design)} needs {' or '.join(', '.join(sorted({*o, 'delta'})) for o in shared)}"
    for key in sorted(need | {"delta"}):
        if key not in given:
            raise ConfigError(f"grid.{key}: missing; {what}")
    for key in sorted(given - need - {"delta"}):
        other = next((o for o in shared if key in o), None)
        if other is not None:  # an axis of the other parametrisation: say which axes to null
            drop = sorted(need - set(other) - optional)
            raise ConfigError(f"grid.{key}: an axis of design {'/'.join(design)} with {', '.join(other)}, not with "
                              f"{', '.join(sorted(need))}; to use it give all of {', '.join(other)} and set "
                              f"{' '.join(f'grid.{k}=null' for k in drop)}")
        raise ConfigError(f"grid.{key}: not an axis of design {'/'.join(design)}; {what}")
    axes = {}
    for key in [k for k in keys if k in need]:
        for d in designs:
            a = d.axis(key)
            if a.choices:  # a categorical axis: names, in the design's order
                given_names = one_or_more(f"grid.{key}", grid[key], a.choices)
                axes[key] = tuple(c for c in a.choices if c in given_names)
                continue
            axes[key] = axis(f"grid.{key}", grid[key], integer=a.integer, low=a.low, high=a.high,
                             low_open=a.low_open, high_open=a.high_open)
    try:
        axes["delta"] = axis("grid.delta", grid["delta"], low=validate.DELTA_MIN, high=validate.DELTA_MAX)
    except ConfigError as err:
        raise ConfigError(f"{err} ({validate.DELTA_HINT})") from None
    if metric is not None:
        valid = tuple(e.name for e in estimands_for(data))
        axes = {"metric": tuple(one_or_more("grid.metric", metric, valid)), **axes}
    return design, axes


def one_or_more(key, value, options) -> list:
    """``value`` (one name or a list of names, each one of ``options``) as a list without repeats."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not names:
        raise ConfigError(f"{key}: must be one or more of {', '.join(options)}, got {value!r}")
    for name in names:
        choice(key, name, options)
    return list(dict.fromkeys(names))


def study_estimands(design: tuple[str, ...], axes: dict) -> tuple[str, ...]:
    """The estimands of a study: its metric axis, or its design's default estimand."""
    return axes.get("metric") or (get_design(design[0]).estimand,)


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


def integer(key, value, low, high=None):
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        valid = f">= {low}" if high is None else f"in [{low}, {high:,}]"
        raise ConfigError(f"{key}: must be an integer {valid}, got {value!r}")
    return value


def boolean(key, value):
    if not isinstance(value, bool):
        raise ConfigError(f"{key}: must be true or false, got {value!r}")
    return value


def n_jobs_value(value):
    if isinstance(value, bool) or not isinstance(value, int) or value == 0 or value < -1:
        raise ConfigError(f"n_jobs: must be -1 (all cores) or an integer >= 1, got {value!r}")
    return value


def n_workers(n_jobs: int) -> int:
    """Workers for ``n_jobs``; -1 means the cores this process may use (SLURM's allocation, not the node's)."""
    if n_jobs != -1:
        return n_jobs
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def method_specs(entries, estimands, metric_axis: bool = False) -> tuple[MethodSpec, ...]:
    """Method entries: a name, or a mapping {name: ..., label: ..., <param>: value, ...}; each
    must apply to at least one of the study's ``estimands``."""
    if isinstance(entries, str):
        entries = [entries]
    if not isinstance(entries, (list, tuple)) or not entries:
        raise ConfigError("methods: must be a non-empty list of method names or {name: ...} mappings")
    takes = tuple(dict.fromkeys(t for e in estimands for t in e.takes))
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
            method = get(name, takes)
        except ValueError as err:
            if metric_axis and isinstance(name, str) and any(name in (m.short, m.qualified, m.name, *m.aliases)
                                                             for m in methods().values()):
                raise ConfigError(f"{where}: method {name!r} applies to none of the metrics "
                                  f"{', '.join(e.name for e in estimands)}") from None
            raise ConfigError(f"{where}: {str(err).removeprefix('method: ')}") from None
        for pname, pvalue in entry.items():
            if not _number(pvalue):
                raise ConfigError(f"{where}.{pname}: method parameters must be numbers, got {pvalue!r}")
        try:
            params = method.validate_params(entry)
        except ValueError as err:
            raise ConfigError(f"{where}: {err}") from None
        if label is None:
            given = ",".join(f"{k}={v:g}" for k, v in sorted(entry.items()))
            label = f"{name}({given})" if given else name
        specs.append(MethodSpec(name, text(f"{where}.label", label), tuple(sorted(params.items())), method.qualified))
    labels = [s.label for s in specs]
    for label in labels:
        if labels.count(label) > 1:
            raise ConfigError(f"methods: label {label!r} appears twice; give each entry a distinct label")
    return tuple(specs)


def analyses_of(spec: MethodSpec, estimand, delta: float, side: str, engine: str, reps, seed,
                exact_engine: bool = True):
    """("main", analysis) of a method entry for one estimand and delta under ``engine``, and with
    engine both also ("exact", analysis) where there is an exact engine: not for methods drawing
    random numbers, nor on a design that is Monte Carlo only (``exact_engine``)."""
    method = spec.method
    mc = engine in ("mc", "both")
    out = [("main", Analysis(method, spec.params, estimand, delta, side, reps if mc else None, seed if mc else None))]
    if engine == "both" and exact_engine and not method.per_test_set:
        out.append(("exact", Analysis(method, spec.params, estimand, delta, side, None, None)))
    return out


def check_size(study: Study) -> None:
    """Refuse a study of more than ``max_cells`` cells, counted from the axes (never enumerated:
    an accidental ``${seq:1,100000,1}`` must fail at once, not after filling the memory)."""
    axes = {k: v for k, v in study.axes.items() if k not in ("delta", "metric")}
    points = sum(math.prod(len(axes[a]) for a in next((o for o in get_design(d).parametrisations if set(o) <= set(axes)),
                                                       ())) for d in study.design)
    factors = [(len(study.methods), "method"), (len(study.axes["delta"]), "delta"),
               (len(study.axes.get("metric", ())) or 1, "metric"), (points, "design point")]
    count = math.prod(n for n, _ in factors)
    if count > study.max_cells:
        what = " × ".join(f"{n:,} {name}{'s' * (n > 1)}" for n, name in factors if name != "metric" or n > 1)
        raise ConfigError(f"grid: {count:,} cells ({what}) exceed max_cells={study.max_cells:,}; "
                          f"set max_cells={count} to run them")


def check_feasible(study: Study) -> tuple[frozenset, tuple[str, ...]]:
    """Every method, side and point of the study can be computed by its engines; else ConfigError.
    Under engine both a point the exact engine cannot take runs Monte Carlo only: returns those
    cells' keys (``Study.mc_only``) and a one-line note saying so (or none)."""
    data = get_design(study.design[0]).data
    estimands = [get_estimand(data, e) for e in study_estimands(study.design, study.axes)]
    points = {name: [tuple(p.items()) for p in get_design(name).points(study.axes)] for name in study.design}
    verdicts: dict[tuple, str | None] = {}
    mc_only: dict[str, list] = {}  # design -> [(cell key, problem)]
    for spec in study.methods:
        method = spec.method
        try:
            method.check_side(study.side)
        except ValueError as err:
            raise ConfigError(str(err)) from None
        if study.engine == "exact" and method.per_test_set:
            raise ConfigError(f"engine: {method.input.label} method {spec.name} has Monte Carlo coverage only; "
                              f"use engine mc or both")
        for est in (e for e in estimands if method.takes in e.takes):
            for name in study.design:
                design = get_design(name)
                for kind, a in analyses_of(spec, est, study.axes["delta"][0], study.side, study.engine, study.reps,
                                           study.seed, design.exact_engine):
                    for point in points[name]:
                        key = (name, point, est.name, a.reps is None, a.merge,
                               method.per_test_set, spec.params)  # the last two: the memory check
                        if key not in verdicts:
                            verdicts[key] = infeasible(design, [dict(point)], a)[0]
                        problem = verdicts[key]
                        if not problem:
                            continue
                        if kind == "exact":  # engine both: its Monte Carlo analysis passed above
                            mc_only.setdefault(name, []).append(((spec, name, point, est.name), problem))
                            continue
                        mc_ok = a.reps is None and design.check(dict(point), False) is None
                        where = "" if problem.startswith("reps:") else "grid."
                        raise ConfigError(f"{where}{problem}" + ("; use engine mc" if mc_ok else ""))
    notes = []
    for name, cells in mc_only.items():
        problem = cells[0][1].partition(": ")[2] or cells[0][1]
        problem = re.sub(r"\s*(\(use Monte Carlo: give reps\)|; give reps for Monte Carlo)$", "", problem)
        count = len({cell[2] for cell, _ in cells})
        which = "this point runs" if len(points[name]) == 1 else f"these {count} of {len(points[name])} points run"
        notes.append(f"engine both: {problem}; {which} Monte Carlo only (no exact_coverage)")
    return frozenset(cell for cells in mc_only.values() for cell, _ in cells), tuple(notes)
