"""A sequential study (``sequential:`` in a study config, e.g. conf/study/peeking.yaml): exact coverage
of procedures × look schedules × stopping rules over a grid of p, with a Monte Carlo check.

The config's ``sequential`` block::

    delta: 0.05
    p: [...]                       # true accuracies, every part
    check: {reps: 2000, p: [...]}  # Monte Carlo at these p for every row: the programme's check
    parts:                         # each part is a cross product
      <part>:
        methods: [wilson, {name: clopper_pearson, adjust: obf}, mixture, {name: mixture, t_opt: 500}]
        n_max: [100, 1000]
        looks: [1, 2, 5]           # evenly spread looks, or
        batch: [50]                # a look every batch examples (one of the two)
        rules: [{rule: never}, {rule: width, width: 0.1}, {rule: threshold, threshold: 0.9}]

``run_sequential_study`` writes <out>/results.parquet (one row per part × procedure × schedule ×
rule × p: the measures of designs/sequential.py), check.csv (Monte Carlo against exact, with z),
report.md (the summary tables below and the figures) and, with ``plot``, the figures.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import validate
from ..designs.sequential import MEASURES, Looks, Procedure, Rule, exact, simulate
from ..study.config import ConfigError
from ..study.kinds import StudyKind, register_study_kind

PART_KEYS = ("methods", "n_max", "looks", "batch", "rules")


@dataclass(frozen=True)
class Part:
    name: str
    procedures: tuple[Procedure, ...]
    schedules: tuple[tuple[dict, Looks], ...]  # (columns, looks)
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class SequentialStudy:
    name: str
    question: str
    parts: tuple[Part, ...]
    p: np.ndarray
    delta: float
    check_p: np.ndarray
    check_reps: int
    seed: int
    out: Path
    plot: bool

    @classmethod
    def from_config(cls, cfg: dict) -> "SequentialStudy":
        """The study of a composed config; ConfigError naming the field otherwise (before any work)."""
        block = cfg.get("sequential")
        if not isinstance(block, dict):
            raise ConfigError(f"sequential: must be a mapping with p, delta and parts, got {block!r}")
        unknown = set(block) - {"p", "delta", "check", "parts"}
        if unknown:
            raise ConfigError(f"sequential: unknown keys {', '.join(sorted(unknown))}; valid: p, delta, check, parts")
        try:
            p = np.asarray(validate.interval("sequential.p", block.get("p"), 0.0, 1.0, False, False), dtype=float).ravel()
            problem = validate.delta_problem(block.get("delta", 0.05))
            if problem:
                raise ValueError(f"sequential.delta {problem}")
            delta = float(block.get("delta", 0.05))
            check = block.get("check") or {}
            if not isinstance(check, dict) or set(check) - {"p", "reps"}:
                raise ValueError(f"sequential.check: a mapping of p and reps, got {check!r}")
            check_p = np.asarray(validate.interval("sequential.check.p", check.get("p", []), 0.0, 1.0, False, False),
                                 dtype=float).ravel() if check else np.zeros(0)
            reps = validate.scalar("sequential.check.reps", check.get("reps", 1))
            reps = int(validate.counts("sequential.check.reps", reps, minimum=1, maximum=validate.REPS_MAX)) if check else 0
            seed = validate.seed(cfg.get("seed", 0))
        except ValueError as err:
            raise ConfigError(str(err)) from None
        parts = block.get("parts")
        if not isinstance(parts, dict) or not parts:
            raise ConfigError(f"sequential.parts: must map part names to their methods, schedules and rules, got {parts!r}")
        return cls(str(cfg.get("name", "sequential")), str(cfg.get("question") or ""),
                   tuple(_part(str(k), v) for k, v in parts.items()), p, delta, check_p, reps, seed,
                   Path(str(cfg.get("out") or f"results/{cfg.get('name', 'sequential')}")), bool(cfg.get("plot")))


def _part(name: str, spec) -> Part:
    where = f"sequential.parts.{name}"
    if not isinstance(spec, dict):
        raise ConfigError(f"{where}: must be a mapping of {', '.join(PART_KEYS)}, got {spec!r}")
    unknown = set(spec) - set(PART_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown keys {', '.join(sorted(unknown))}; valid: {', '.join(PART_KEYS)}")

    def listed(key):
        value = spec.get(key)
        value = value if isinstance(value, list) else [value]
        if value == [None] or not value:
            raise ConfigError(f"{where}.{key}: missing")
        return value

    try:
        procedures = []
        for entry in listed("methods"):
            entry = dict(entry) if isinstance(entry, dict) else {"name": entry}
            procedures.append(Procedure.of(entry.pop("name", None), entry.pop("adjust", "none"), **entry))
        if ("looks" in spec) == ("batch" in spec):
            raise ValueError(f"{where}: give looks (evenly spread looks) or batch (a look every batch examples), one of them")
        schedules = []
        for n_max, size in itertools.product(listed("n_max"), listed("looks" if "looks" in spec else "batch")):
            looks = Looks.even(size, n_max) if "looks" in spec else Looks.of(batch=size, n_max=n_max)
            schedules.append(({"n_max": int(n_max), "looks": len(looks.sizes),
                               "batch": int(size) if "batch" in spec else None}, looks))
        rules = []
        for entry in listed("rules"):
            entry = dict(entry) if isinstance(entry, dict) else {"rule": entry}
            rules.append(Rule.of(**entry))
    except (ValueError, TypeError) as err:
        message = str(err) if str(err).startswith(where) else f"{where}: {err}"
        raise ConfigError(message) from None
    return Part(name, tuple(procedures), tuple(schedules), tuple(rules))


def cells(study: SequentialStudy) -> list[tuple[int, int, int]]:
    """The study's cells, in table order: (part, procedure, schedule) indices; a cell's rules share
    its procedure's interval tables."""
    return [(i, j, k) for i, part in enumerate(study.parts)
            for j, k in itertools.product(range(len(part.procedures)), range(len(part.schedules)))]


def cell_rows(study: SequentialStudy, cell: tuple[int, int, int]) -> dict:
    """One cell's rows of the results and check tables (the study kind's ``rows``: it runs on a
    worker). The Monte Carlo paths are keyed by p and the schedule (designs/sequential.py), so they do
    not depend on which cells run where."""
    part = study.parts[cell[0]]
    procedure, (columns, looks) = part.procedures[cell[1]], part.schedules[cell[2]]
    rows, checks = [], []
    tables = procedure.intervals(looks, study.delta)  # shared by the rules
    for rule in part.rules:
        ident = {"part": part.name, "method": procedure.label, "base": procedure.method.short,
                 "adjust": procedure.adjust, **columns, "rule": rule.kind,
                 "rule_value": rule.value, "delta": study.delta}
        r = exact(procedure, looks, rule, study.p, study.delta, tables)
        rows += [{**ident, "p": p, **{m: float(r[m][i]) for m in MEASURES}} for i, p in enumerate(study.p)]
        if study.check_reps:
            e = exact(procedure, looks, rule, study.check_p, study.delta, tables)
            mc = simulate(procedure, looks, rule, study.check_p, study.delta, study.check_reps, study.seed, tables)
            for i, p in enumerate(study.check_p):
                for m in ("coverage", "simultaneous", "expected_n"):
                    se = (np.sqrt(e[m][i] * (1 - e[m][i]) / study.check_reps) if m != "expected_n"
                          else mc[f"{m}_mcse"][i])
                    z = (mc[m][i] - e[m][i]) / se if se > 0 else 0.0
                    checks.append({**ident, "p": p, "measure": m, "exact": float(e[m][i]),
                                   "mc": float(mc[m][i]), "mcse": float(se), "z": float(z),
                                   "p_value": _p_value(m, mc[m][i], e[m][i], z, study.check_reps),
                                   "reps": study.check_reps})
    return {"results": rows, "check": checks}


def study_rows(study: SequentialStudy):
    """The results table and the Monte Carlo check table (pandas DataFrames), computed here, without
    the store (``run_sequential_study`` runs them on the study runner)."""
    import pandas as pd

    parts = [cell_rows(study, c) for c in cells(study)]
    return (pd.DataFrame([r for part in parts for r in part["results"]]),
            pd.DataFrame([r for part in parts for r in part["check"]]))


def _p_value(measure, mc, exact, z, reps) -> float:
    """Two-sided p-value of the Monte Carlo value given the exact one: binomial for a rate (its tails
    are far from normal when the rate is near 1), normal for the expected size."""
    from scipy import stats

    if measure == "expected_n":
        return float(2 * stats.norm.sf(abs(z)))
    x = round(mc * reps)
    return float(min(1.0, 2 * min(stats.binom.cdf(x, reps, exact), stats.binom.sf(x - 1, reps, exact))))


def run_sequential_study(study: SequentialStudy, settings=None, progress: bool | None = False):
    """Run the study on the study runner (study/kinds.py: resumable, on workers) and write it
    (``finish``; module docstring); returns the results table."""
    from ..study.runner import run_kind

    return run_kind(KIND, study, settings, progress=progress,
                    say=None if progress is not False else (lambda line: None))["results"]


def finish(study: SequentialStudy, tables: dict) -> list[Path]:
    """Write results.parquet, check.csv, report.md, study.json and, with ``plot``, the figures."""
    table, check = tables["results"], tables["check"]
    table.to_parquet(study.out / "results.parquet", index=False)
    check.to_csv(study.out / "check.csv", index=False, float_format="%.12g")
    figures = []
    if study.plot:
        from ..plots.sequential import sequential_figures

        figures = sequential_figures(table, study.out / "figures", study.delta)
    (study.out / "report.md").write_text(report(study, table, check, figures))
    (study.out / "study.json").write_text(json.dumps({"name": study.name, "seed": study.seed}, indent=1) + "\n")
    return [study.out / n for n in ("results.parquet", "check.csv", "report.md", "study.json")]


def cost(study: SequentialStudy, cell: tuple[int, int, int]) -> float:
    """Forecast CPU seconds of a cell: the dynamic programme grows with the looks and n_max
    (fitted to the committed study: ~60 CPU-s over 39 cells on the loaded 2-core machine), the check with its paths."""
    part = study.parts[cell[0]]
    columns, looks = part.schedules[cell[2]]
    n_max = columns["n_max"]
    return len(part.rules) * (7e-8 * n_max * len(looks.sizes) * (study.p.size + study.check_p.size)
                              + 2e-8 * study.check_reps * study.check_p.size * len(looks.sizes)) + 0.01


def summary(study: SequentialStudy, tables: dict):
    return peeking_summary(tables["results"])


def peeking_summary(table):
    """Per part × method × schedule × rule: the least and mean coverage at stopping and simultaneous
    coverage over p, and the mean and largest expected size and mean width at stopping."""
    keys = ["part", "method", "n_max", "looks", "batch", "rule", "rule_value"]
    t = table.assign(batch=table["batch"].fillna(0), rule_value=table["rule_value"].fillna(0))
    g = t.groupby(keys, sort=False)
    return g.agg(min_coverage=("coverage", "min"), mean_coverage=("coverage", "mean"),
                 min_simultaneous=("simultaneous", "min"), mean_simultaneous=("simultaneous", "mean"),
                 mean_n=("expected_n", "mean"), max_n=("expected_n", "max"), mean_width=("width", "mean")).reset_index()


def report(study: SequentialStudy, table, check, figures) -> str:
    """report.md: the question, the summary tables per part, the check, the figures, the methods' references."""
    from ..report.references import kind_cited, markdown_lines

    s = peeking_summary(table)
    lines = [f"# {study.name}", "", study.question, "",
             f"Exact (dynamic programming over look × successes), delta = {study.delta:g}, p = "
             f"{study.p.min():g}..{study.p.max():g} ({study.p.size} values). Columns: least and mean over p of the coverage "
             "at stopping and of the simultaneous coverage (every look covers), mean and largest expected size at "
             "stopping, mean width at stopping.", ""]
    for part, sub in s.groupby("part", sort=False):
        lines += [f"## {part}", "", _markdown(sub.drop(columns="part")), ""]
    if len(check):
        worst = check.loc[check["p_value"].idxmin()]
        lines += ["## Monte Carlo check", "",
                  f"{len(check)} comparisons of Monte Carlo with exact (coverage, simultaneous coverage, expected "
                  f"size; {int(check.reps.iloc[0])} paths at p = {', '.join(f'{x:g}' for x in study.check_p)}, the same "
                  f"paths for every method at a p and schedule): {int((check.z.abs() > 4).sum())} beyond 4 MCSE; "
                  f"the smallest two-sided p-value (binomial for a rate) is {worst.p_value:.2g} ({worst.method}, "
                  f"{worst.measure}, p = {worst.p:g}: exact {worst.exact:.6g}, Monte Carlo {worst.mc:.6g}), "
                  f"{worst.p_value * len(check):.2g} after Bonferroni over the comparisons.", ""]
    for path in figures:
        lines += [f"![{Path(path).stem}](figures/{Path(path).name})", ""]
    return "\n".join(lines + markdown_lines(kind_cited(table, CITES)))


def _markdown(df) -> str:
    """A pipe table, numbers to 4 significant digits."""
    def cell(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)
    head = "| " + " | ".join(df.columns) + " |\n|" + "---|" * len(df.columns)
    return head + "".join("\n| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False))


CITES = ("sequential", "proportion")  # its methods in the registry: the sequential ones, the fixed-n intervals they adjust
# The sequential study kind (study/kinds.py): the runner runs it, resumably, on its workers.
KIND = register_study_kind(StudyKind(
    key="sequential", load=SequentialStudy.from_config, cells=cells, rows=cell_rows, finish=finish,
    summary=summary, tables=("results", "check"), cost=cost, cites=CITES,
    explore={"title": "coverage at stopping, simultaneous coverage, expected labels, width against p",
             "axes": ("part", "n_max", "looks", "batch", "rule", "rule_value", "p", "delta"),
             "measures": {"coverage": ("coverage at stopping", None), "simultaneous": ("simultaneous coverage", None),
                          "expected_n": ("expected labels at stopping", None), "width": ("width at stopping", None),
                          "stopped_early": ("P(stopping before n_max)", None)},
             "level": ("coverage", "simultaneous")}))
