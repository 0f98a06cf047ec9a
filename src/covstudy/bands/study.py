"""The band study (``study=roc_bands``: conf/study/roc_bands.yaml, ``bands:`` key): how often each
band method holds the true ROC and precision–recall curves over a grid of binormal points.

In the bands wing this room sits above the doors (bands/coverage.py: ``BandPoint``,
``point_bands``, ``band_measures``): ``BandStudy.from_config`` validates the config,
``band_study_tables`` scores every curve × method × point (on the study wing's worker pool,
study/runner.py, when ``n_jobs`` asks for workers), and ``run_band_study`` writes the tables and,
with ``plot``, hands them and the example test set's bands (``example_bands``) to the figures
(plots/bands.py), report.md and the interactive page (report/explorer.py). Figures and pages
only draw: they import nothing of this wing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import validate
from ..methods import get
from ..methods.bands import LATENT_TARGET, empirical_roc
from ..study.config import ConfigError
from ..study.kinds import StudyKind, register_study_kind
from .coverage import CURVES, BandPoint, band_measures, method_bands, point_bands

if TYPE_CHECKING:  # pandas is imported where a table is made: `import covstudy` stays light
    import pandas as pd

EXAMPLE_METHODS = ("bootstrap", "working_hotelling", "ks", "sup_t")  # the ROC methods the example figure shows
EXAMPLE_GRID = np.round(np.arange(1, 100) / 100, 2)  # its FPR values, 0.01..0.99


@dataclass(frozen=True)
class BandStudy:
    """A band study (``bands:`` in a study config): curves × methods × binormal points × delta."""

    name: str
    question: str
    methods: dict  # curve -> tuple of (name, params)
    points: tuple[BandPoint, ...]
    delta: float
    reps: int
    seed: int
    out: Path
    plot: bool
    example: BandPoint | None
    n_jobs: int = 1

    @classmethod
    def from_config(cls, cfg: dict) -> "BandStudy":
        def listed(key, value):
            value = value if isinstance(value, list) else [value]
            if not value or value == [None]:
                raise ConfigError(f"{key}: missing")
            return value

        def number(key, value, kind, ok, valid):
            """``value`` as ``kind`` if ``ok``, else a ConfigError naming ``key`` and the ``valid`` range."""
            try:
                if isinstance(value, bool) or (kind is int and isinstance(value, float) and not value.is_integer()):
                    raise ValueError
                v = kind(value)
            except (TypeError, ValueError):
                v = None
            if v is None or not ok(v):
                raise ConfigError(f"{key}: must be {valid}, got {value!r}")
            return v

        grid = cfg.get("grid") or {}
        if not isinstance(grid, dict):
            raise ConfigError(f"grid: must be a mapping of the design's axes, got {grid!r}")
        curves = listed("bands", cfg.get("bands"))
        for c in curves:
            if c not in CURVES:
                raise ConfigError(f"bands: must list curves among {', '.join(CURVES)}, got {c!r}")
        methods = {}
        for c in curves:
            entries = listed(f"band_methods.{c}", (cfg.get("band_methods") or {}).get(c))
            specs = []
            for e in entries:
                name, params = (e, {}) if isinstance(e, str) else (e.get("name"), {k: v for k, v in e.items() if k != "name"})
                try:
                    m = get(name, CURVES[c][0])
                    m.validate_params(params)
                except ValueError as err:
                    raise ConfigError(f"band_methods.{c}: {err}") from None
                specs.append((m.short, tuple(sorted(params.items()))))
            methods[c] = tuple(specs)
        size = (int, lambda v: 2 <= v <= 100_000, "a whole number in [2, 100000]")
        n_pos = [number("grid.n_pos", v, *size) for v in listed("grid.n_pos", grid.get("n_pos"))]
        n_neg = grid.get("n_neg")
        aucs = [number("grid.auc", v, float, lambda v: 0 < v < 1, "in (0, 1)") for v in listed("grid.auc", grid.get("auc"))]
        sds = [number("grid.sd_ratio", v, float, lambda v: 0 < v < np.inf, "a positive number")
               for v in listed("grid.sd_ratio", grid.get("sd_ratio", [1.0]))]
        levels = [number("grid.levels", v, int, lambda v: v == 0 or 2 <= v <= 255, "0 or a whole number in [2, 255]")
                  for v in listed("grid.levels", grid.get("levels", [0]))]
        sizes = [(n, n) for n in n_pos] if n_neg is None else \
            list(itertools.product(n_pos, [number("grid.n_neg", v, *size) for v in listed("grid.n_neg", n_neg)]))
        points = tuple(BandPoint(a, b, auc, s, lv) for (a, b), auc, s, lv in itertools.product(sizes, aucs, sds, levels))
        delta = grid.get("delta", [0.05])
        delta = delta[0] if isinstance(delta, list) and len(delta) == 1 else delta
        if not isinstance(delta, (int, float)) or validate.delta_problem(delta):
            raise ConfigError(f"grid.delta: one miss rate in [{validate.DELTA_MIN}, {validate.DELTA_MAX}], got {delta!r}")
        ex = cfg.get("example")
        example = None
        if ex is not None:
            keys = ("n_pos", "n_neg", "auc", "sd_ratio", "levels")
            if not isinstance(ex, dict) or set(ex) - set(keys) or not {"n_pos", "n_neg", "auc"} <= set(ex):
                raise ConfigError(f"example: must be a mapping with n_pos, n_neg, auc (and sd_ratio, levels), got {ex!r}")
            example = BandPoint(number("example.n_pos", ex["n_pos"], *size), number("example.n_neg", ex["n_neg"], *size),
                                number("example.auc", ex["auc"], float, lambda v: 0 < v < 1, "in (0, 1)"),
                                number("example.sd_ratio", ex.get("sd_ratio", 1.0), float, lambda v: 0 < v < np.inf,
                                       "a positive number"),
                                number("example.levels", ex.get("levels", 0), int, lambda v: v == 0 or 2 <= v <= 255,
                                       "0 or a whole number in [2, 255]"))
        name = cfg.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"name: must be a non-empty string, got {name!r}")
        plot = cfg.get("plot", False)
        if not isinstance(plot, bool):
            raise ConfigError(f"plot: must be true or false, got {plot!r}")
        return cls(name=name, question=str(cfg.get("question") or ""), methods=methods, points=points,
                   delta=float(delta),
                   reps=number("reps", cfg.get("reps", 200), int, lambda v: 1 <= v <= 10_000_000, "a whole number >= 1"),
                   seed=number("seed", cfg.get("seed", 2026), int, lambda v: 0 <= v < 2**63, "a whole number >= 0"),
                   out=Path(cfg.get("out") or f"results/{name}"), plot=plot, example=example,
                   n_jobs=number("n_jobs", cfg.get("n_jobs", 1), int, lambda v: v != 0, "a whole number other than 0 "
                                 "(-1: every core)"))


def _label(name: str, params: tuple) -> str:
    return name + "".join(f" {k}={v:g}" for k, v in params)


def band_study_tables(study: BandStudy) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per curve × method × point: containment, mean area, mean and least pointwise coverage;
    one row per curve × method × point × grid value: pointwise coverage and its MCSE), computed here,
    without the store (``run_band_study`` runs them on the study runner)."""
    import pandas as pd

    parts = [point_tables(study, p) for p in study.points]
    return (pd.DataFrame([r for part in parts for r in part["bands"]]),
            pd.DataFrame([r for part in parts for r in part["pointwise"]]))


def point_tables(study: BandStudy, point: BandPoint) -> dict:
    """One point's rows of both tables (the study kind's ``rows``: it runs on a worker)."""
    rows, points = _point_rows(study, point)
    return {"bands": rows, "pointwise": points}


def _point_rows(study: BandStudy, point: BandPoint) -> tuple[list, list]:
    rows, points = [], []
    pos, neg = point.test_sets(study.reps, study.seed)
    for curve, specs in study.methods.items():
        g = np.array(CURVES[curve][2], float)
        for (name, params), (lower, upper) in zip(specs, point_bands(curve, specs, point, pos, neg, study.delta,
                                                                       g, study.seed)):
            m = get(name, CURVES[curve][0])
            latent = m.name in LATENT_TARGET and point.levels > 0
            truth = point.truth(curve, g, latent=latent)
            r = band_measures(lower, upper, truth, g)
            ident = {"curve": curve, "method": _label(name, params), "display": m.display, **point.__dict__,
                     "target": "latent binormal curve" if latent else "true curve", "delta": study.delta,
                     "reps": study.reps}
            rows.append({**ident, "containment": r["containment"], "containment_mcse": r["containment_mcse"],
                         "mean_pointwise": float(r["pointwise"].mean()),
                         "min_pointwise": float(r["pointwise"].min()), "mean_area": r["mean_area"]})
            for j, t in enumerate(g):
                points.append({**ident, "at": float(t), "truth": float(truth[j]),
                               "coverage": float(r["pointwise"][j]), "mcse": float(r["pointwise_mcse"][j]),
                               "miss_low": float(r["miss_low"][j]), "miss_high": float(r["miss_high"][j])})
    return rows, points


def run_band_study(study: BandStudy, progress: bool | None = False) -> pd.DataFrame:
    """Run the study on the study runner (study/kinds.py: resumable, on ``study.n_jobs`` workers) and
    write its files (``finish``); return the containment table."""
    from ..study.kinds import RunSettings
    from ..study.runner import run_kind

    return run_kind(KIND, study, RunSettings(n_jobs=study.n_jobs), progress=progress,
                    say=None if progress is not False else (lambda line: None))["bands"]


def finish(study: BandStudy, tables: dict) -> list[Path]:
    """Write <out>/bands.parquet, bands_pointwise.parquet (and with ``plot`` the figures and report.md)."""
    table, pointwise = tables["bands"], tables["pointwise"]
    paths = [study.out / "bands.parquet", study.out / "bands_pointwise.parquet"]
    table.to_parquet(paths[0], index=False)
    pointwise.to_parquet(paths[1], index=False)
    if study.plot:
        from ..plots.bands import band_figures

        band_figures(study, table, pointwise, example_bands(study))
        paths.append(write_band_report(study, table))
    return paths


def summary(study: BandStudy, tables: dict) -> pd.DataFrame:
    """Mean containment, pointwise coverage and band area per curve and method, over the points."""
    table = tables["bands"]
    return (table.groupby(["curve", "method"], sort=False)[["containment", "mean_pointwise", "mean_area"]]
            .mean().reset_index())


def page(study: BandStudy, tables: dict) -> Path:
    from ..report.explorer import write_band_html  # report.html, the interactive page
    from ..report.references import kind_cited

    return write_band_html(study, tables["bands"], tables["pointwise"], kind_cited(tables["bands"], CITES))


def cost(study: BandStudy, point: BandPoint) -> float:
    """Forecast CPU seconds of one point: per test set and example, per method (resampling methods
    per draw). Fitted to the committed study (61 CPU-s, 24 points): an order of magnitude, no more."""
    per_set = sum((dict(params).get("draws", 1)) for specs in study.methods.values() for _, params in specs)
    return 4e-8 * study.reps * (point.n_pos + point.n_neg) * per_set + 0.05 * study.reps / 200


def memory(study: BandStudy, point: BandPoint) -> float:
    """A point's test sets (scores, 8 bytes each) and one method's resamples of them, a few copies."""
    draws = max((dict(p).get("draws", 1) for specs in study.methods.values() for _, p in specs), default=1)
    return 8 * 4 * study.reps * (point.n_pos + point.n_neg) * 2 + 8 * 4 * draws * (point.n_pos + point.n_neg)


def example_bands(study: BandStudy) -> dict:
    """What the example figure shows: one test set at ``study.example`` (else the first point),
    its true and empirical ROC curves on ``EXAMPLE_GRID``, and the bands of the study's ROC
    methods among ``EXAMPLE_METHODS`` as ``[(name, label, lower, upper), ...]``."""
    point = study.example or study.points[0]
    pos, neg = point.test_sets(1, study.seed)
    grid = EXAMPLE_GRID
    bands = []
    for name, params in (s for s in study.methods["roc"] if s[0] in EXAMPLE_METHODS):
        lower, upper = method_bands("roc", name, point, pos, neg, study.delta, grid, study.seed, dict(params))
        bands.append((name, _label(name, params), lower[0], upper[0]))
    return {"point": point, "grid": grid, "truth": point.truth("roc", grid),
            "empirical": empirical_roc(pos[0], neg[0], grid), "bands": bands}


def write_band_report(study: BandStudy, table: pd.DataFrame) -> Path:
    """<out>/report.md: containment and area per method, over the study's points, and their references."""
    from ..report.references import kind_cited, markdown_lines

    lines = [f"# {study.name}", "", study.question, "",
             f"{study.reps} test sets per point, delta = {study.delta:g}; FPR and recall grids 0.05, 0.10, ..., 0.95. "
             "Containment: share of test sets whose band holds the true curve at every grid value.", ""]
    latent = sorted(set(table.loc[table["target"] != "true curve", "method"])) if "target" in table else []
    if latent:
        lines += [f"On rating data (levels > 0) {', '.join(latent)} is scored against the latent binormal curve it "
                  "estimates (column target), the others against the polyline through the true operating points; "
                  "both pass through those points.", ""]
    for curve, part in table.groupby("curve", sort=False):
        agg = part.groupby("method", sort=False).agg(
            containment_mean=("containment", "mean"), containment_min=("containment", "min"),
            pointwise_min=("min_pointwise", "min"), pointwise_mean=("mean_pointwise", "mean"),
            area=("mean_area", "mean"))
        lines += [f"## {curve.upper()} bands", "", "| method | mean containment | worst containment | mean pointwise "
                  "coverage | worst pointwise coverage | mean band area |", "|---|---|---|---|---|---|"]
        for name, r in agg.iterrows():
            lines.append(f"| {name} | {r.containment_mean:.3f} | {r.containment_min:.3f} | {r.pointwise_mean:.3f} | "
                         f"{r.pointwise_min:.3f} | {r.area:.3f} |")
        lines.append("")
    figs = sorted(p.name for p in (study.out / "figures").glob("*.png")) if (study.out / "figures").is_dir() else []
    lines += [f"![{f}](figures/{f})" for f in figs]
    refs = markdown_lines(kind_cited(table, CITES))[:-1]  # its closing blank line: the file's last newline
    lines += [""] * bool(refs and lines[-1]) + refs
    path = study.out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


CITES = ("{curve}_band",)  # its methods in the registry: roc_band.<method> or pr_band.<method> by the row's curve
# The band study kind (study/kinds.py): the runner runs it, resumably, on its workers.
KIND = register_study_kind(StudyKind(
    key="bands", load=BandStudy.from_config, cells=lambda study: list(study.points), rows=point_tables,
    finish=finish, summary=summary, tables=("bands", "pointwise"), cost=cost, memory=memory, page=page,
    cites=CITES))
