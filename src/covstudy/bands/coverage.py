"""ROC and precision–recall confidence bands: the public doors and how often bands hold the true curve.

``roc_band(method, scores_pos, scores_neg, delta, fpr)`` and ``pr_band(..., recall)`` run a
band method (methods/bands.py, kinds ``roc_band`` and ``pr_band``) on one test set.
``band_coverage`` scores a method on the binormal design's simulated test sets against its
closed-form true curve (designs/binormal.py: ``true_roc``, ``true_pr``), with the measures

    pointwise coverage(t) = share of test sets with lower(t) <= R(t) <= upper(t), each t of the grid
    containment           = share of test sets whose band holds R(t) at every t of the grid at once
    mcse                  = sqrt(c(1 - c)/reps) of either
    mean_area             = mean over test sets of the trapezoid area ∫(upper - lower) over the grid's span

The study ``study=roc_bands`` (conf/study/roc_bands.yaml, ``bands:`` key) runs ``band_study``:
its test sets are the binormal design's (the same stream as its AUC study: common random numbers),
every method sees the same ones, and bootstrap draws come from a stream keyed by the point and
the method, so the table does not depend on order or chunking.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import validate
from ..designs.binormal import binormal_scores, true_pr, true_roc
from ..methods import get
from ..methods.bands import FPR_GRID, LATENT_TARGET, RECALL_GRID
from ..methods.auc import _scores
from ..seeds import stream

if TYPE_CHECKING:  # pandas is imported where a table is made: `import covstudy` stays light
    import pandas as pd

DEFAULT_SEED = 0
CURVES = {"roc": ("roc_band", "fpr", FPR_GRID), "pr": ("pr_band", "recall", RECALL_GRID)}


def _grid(name: str, value, default, closed_high: bool) -> np.ndarray:
    if value is None:
        return np.array(default, dtype=float)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = np.array([np.nan])
    top = "(0, 1]" if closed_high else "(0, 1)"
    ok = arr.ndim == 1 and arr.size >= 1 and np.all(arr > 0) and np.all(arr <= 1 if closed_high else arr < 1)
    if not ok or np.any(np.diff(arr) <= 0):
        raise ValueError(f"{name} must be a 1-d increasing array of values in {top}, got {value!r}")
    return arr


def _band(curve, method, scores_pos, scores_neg, delta, grid, seed, params):
    takes, name, default = CURVES[curve]
    m = get(method, takes)
    pos, neg = _scores("scores_pos", scores_pos), _scores("scores_neg", scores_neg)
    d = float(validate.delta(validate.scalar("delta", delta)))
    g = _grid(name, grid, default, closed_high=curve == "pr")
    full = m.validate_params(params)
    rng = np.random.default_rng(None if seed is None else validate.seed(seed))
    lower, upper = m.kernel(pos, neg, d, rng=rng, grid=g, **full)
    return g, np.asarray(lower, float), np.asarray(upper, float)


def roc_band(method: str, scores_pos, scores_neg, delta=0.05, fpr=None, seed: int | None = DEFAULT_SEED,
             **params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A ``1 - delta`` confidence band for the ROC curve of one test set: ``(fpr, lower, upper)``.

    Parameters
    ----------
    method : str
        A ROC band method (``methods("roc_band")``): pointwise ``wilson``, ``clopper_pearson``,
        ``jeffreys``, ``bootstrap`` (pROC's ``ci.se``), ``credible``; simultaneous
        ``working_hotelling``, ``ks``, ``fixed_width``, ``sup_t``.
    scores_pos, scores_neg : array
        The positives' and the negatives' scores (higher = more likely positive), 2 or more each.
    delta : float
        The miss rate: pointwise bands aim at 1 - delta at each FPR, simultaneous ones on the whole grid.
    fpr : array, optional
        Increasing FPR values in (0, 1); default 0.05, 0.10, ..., 0.95.
    seed : int or None
        Seeds bootstrap draws (default 0: the same call, the same band; None: fresh entropy).
    **params
        The method's parameters, e.g. ``draws=2000``.

    Returns
    -------
    tuple of arrays
        ``(fpr, lower, upper)``: the grid and the band's ends at each of its values.

    Examples
    --------
    >>> import numpy as np
    >>> from covstudy import roc_band
    >>> rng = np.random.default_rng(1)
    >>> fpr, lower, upper = roc_band("ks", rng.normal(1, 1, 50), rng.normal(0, 1, 50), fpr=[0.1, 0.5])
    >>> fpr.tolist(), bool(np.all(lower <= upper))
    ([0.1, 0.5], True)
    """
    return _band("roc", method, scores_pos, scores_neg, delta, fpr, seed, params)


def pr_band(method: str, scores_pos, scores_neg, delta=0.05, recall=None, seed: int | None = DEFAULT_SEED,
            **params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A pointwise ``1 - delta`` band for the precision–recall curve: ``(recall, lower, upper)``.

    Precision at recall r is that of the highest threshold whose recall reaches r.

    Parameters
    ----------
    method : str
        A PR band method (``methods("pr_band")``): ``wilson``, ``clopper_pearson``, ``bootstrap``.
    scores_pos, scores_neg, delta, seed, **params
        As ``roc_band``.
    recall : array, optional
        Increasing recall values in (0, 1]; default 0.05, 0.10, ..., 0.95.

    Returns
    -------
    tuple of arrays
        ``(recall, lower, upper)``.

    Examples
    --------
    >>> import numpy as np
    >>> from covstudy import pr_band
    >>> rng = np.random.default_rng(1)
    >>> recall, lower, upper = pr_band("wilson", rng.normal(1, 1, 50), rng.normal(0, 1, 50), recall=[0.5])
    >>> bool(0 < lower[0] < upper[0] < 1)
    True
    """
    return _band("pr", method, scores_pos, scores_neg, delta, recall, seed, params)


# --------------------------------------------------------------------------- measures

def band_measures(lower, upper, truth, grid) -> dict:
    """Measures of bands ``lower``, ``upper`` (test sets, G) against the true curve ``truth`` (G,) (module docstring)."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    truth = np.asarray(truth, float)
    reps = lower.shape[0]
    tol = 1e-12  # a band edge equal to the truth up to rounding holds it
    inside = (lower <= truth + tol) & (truth <= upper + tol)
    pointwise = inside.mean(axis=0)
    containment = float(np.all(inside, axis=1).mean())
    width = upper - lower
    area = np.sum((width[:, 1:] + width[:, :-1]) / 2 * np.diff(grid), axis=1) if len(grid) > 1 else width[:, 0]
    return {"pointwise": pointwise, "pointwise_mcse": np.sqrt(pointwise * (1 - pointwise) / reps),
            "containment": containment, "containment_mcse": float(np.sqrt(containment * (1 - containment) / reps)),
            "mean_area": float(area.mean()), "miss_low": (truth < lower - tol).mean(axis=0),
            "miss_high": (truth > upper + tol).mean(axis=0)}


@dataclass(frozen=True)
class BandPoint:
    """A binormal design point: class sizes, true AUC, sd ratio, levels (0: continuous)."""

    n_pos: int
    n_neg: int
    auc: float
    sd_ratio: float = 1.0
    levels: int = 0

    def truth(self, curve: str, grid, latent: bool = False) -> np.ndarray:
        """The true curve on ``grid``; with ``latent`` the latent binormal ROC curve even for ratings."""
        if curve == "roc":
            return true_roc(grid, self.auc, self.sd_ratio, 0 if latent else self.levels)
        return true_pr(grid, self.auc, self.n_pos / (self.n_pos + self.n_neg), self.sd_ratio, self.levels)

    def test_sets(self, reps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """The binormal design's test sets at this point (its stream), as raw scores."""
        return binormal_scores(self.n_pos, self.n_neg, self.auc, self.sd_ratio, self.levels, reps, seed, ranks=False)


def point_bands(curve: str, specs, point: BandPoint, pos, neg, delta: float, grid, seed: int) -> list:
    """Each method's bands at ``point`` (test sets, G), for ``specs`` [(method, params), ...].

    Resamples come from the stream of the point, the curve and the method's parameters, not its
    name, and the methods take each test set in turn: the bootstrap bands of a point share their
    resamples (common random numbers), computed once (``methods.bands.bootstrap_curves``)."""
    runs = []
    for name, params in specs:
        m = get(name, CURVES[curve][0])
        full = m.validate_params(dict(params))
        rng = stream(seed, design="binormal", n_pos=point.n_pos, n_neg=point.n_neg, auc=point.auc,
                     sd_ratio=point.sd_ratio, levels=point.levels, purpose=f"{curve} band resamples", **full)
        runs.append((m, full, rng, np.empty((len(pos), len(grid))), np.empty((len(pos), len(grid)))))
    for i, (p, q) in enumerate(zip(pos, neg)):
        for m, full, rng, lower, upper in runs:
            lower[i], upper[i] = m.kernel(p, q, delta, rng=rng, grid=grid, **full)
    return [(r[3], r[4]) for r in runs]


def method_bands(curve: str, method: str, point: BandPoint, pos, neg, delta: float, grid, seed: int,
                 params: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One method's bands at ``point`` (``point_bands``)."""
    [out] = point_bands(curve, [(method, tuple((params or {}).items()))], point, pos, neg, delta, grid, seed)
    return out


def band_coverage(method: str, n_pos: int, n_neg: int, auc: float, sd_ratio: float = 1.0, levels: int = 0,
                  reps: int = 1000, seed: int = 2026, delta: float = 0.05, grid=None, curve: str = "roc",
                  **params) -> dict:
    """Monte Carlo measures (``band_measures``) of a band method at one binormal point.

    Parameters
    ----------
    method : str
        A band method of the kind ``curve`` takes (``methods("roc_band")``, ``methods("pr_band")``).
    n_pos, n_neg, auc, sd_ratio, levels
        The binormal design's point (designs/binormal.py).
    reps, seed : int
        Simulated test sets and the study seed (the design's stream).
    delta : float
        The miss rate.
    grid : array, optional
        FPR (ROC) or recall (PR) values; default 0.05, ..., 0.95.
    curve : {"roc", "pr"}
    **params
        The method's parameters (``draws``).

    Returns
    -------
    dict
        ``grid``, ``truth`` (the true curve on it), ``pointwise`` and ``pointwise_mcse`` (arrays
        over the grid), ``containment``, ``containment_mcse``, ``mean_area``, ``miss_low``, ``miss_high``.

    Examples
    --------
    >>> from covstudy import band_coverage
    >>> r = band_coverage("ks", n_pos=50, n_neg=50, auc=0.8, reps=200, seed=1)
    >>> r["containment"] >= 0.95
    True
    """
    if curve not in CURVES:
        raise ValueError(f"curve must be one of {', '.join(CURVES)}, got {curve!r}")
    point = BandPoint(int(n_pos), int(n_neg), float(auc), float(sd_ratio), int(levels))
    g = _grid(CURVES[curve][1], grid, CURVES[curve][2], closed_high=curve == "pr")
    pos, neg = point.test_sets(int(reps), seed)
    lower, upper = method_bands(curve, method, point, pos, neg, float(delta), g, seed, params)
    truth = point.truth(curve, g, latent=get(method, CURVES[curve][0]).name in LATENT_TARGET)
    return {"grid": g, "truth": truth, **band_measures(lower, upper, truth, g)}


# --------------------------------------------------------------------------- the study

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
        from ..study.config import ConfigError

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
    one row per curve × method × point × grid value: pointwise coverage and its MCSE)."""
    import functools

    import pandas as pd

    from ..study.runner import n_workers, worker_pool

    workers = min(n_workers(study.n_jobs), len(study.points))
    rows = functools.partial(_point_rows, study)
    if workers > 1:  # as the interval runner: workers ignore Ctrl-C, the driver stops them
        from ..study.runner import _shutdown_workers, _workers_leave_signals_to_us

        executor = worker_pool(workers)
        with _workers_leave_signals_to_us():
            futures = [executor.submit(rows, study.points[0])]
        futures += [executor.submit(rows, p) for p in study.points[1:]]
        try:
            parts = [f.result() for f in futures]
        finally:
            if not all(f.done() for f in futures):
                _shutdown_workers()
    else:
        parts = list(map(rows, study.points))
    return (pd.DataFrame([r for rows, _ in parts for r in rows]),
            pd.DataFrame([r for _, points in parts for r in points]))


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


def run_band_study(study: BandStudy) -> pd.DataFrame:
    """Write <out>/bands.parquet, bands_pointwise.parquet (and with ``plot`` the figures and report.md)."""
    table, pointwise = band_study_tables(study)
    study.out.mkdir(parents=True, exist_ok=True)
    table.to_parquet(study.out / "bands.parquet", index=False)
    pointwise.to_parquet(study.out / "bands_pointwise.parquet", index=False)
    if study.plot:
        from ..plots.bands import band_figures

        band_figures(study, table, pointwise)
        write_band_report(study, table)
        from ..report.explorer import write_band_html  # report.html, the interactive page

        write_band_html(study, table, pointwise)
    return table


def write_band_report(study: BandStudy, table: pd.DataFrame) -> Path:
    """<out>/report.md: containment and area per method, over the study's points."""
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
    path = study.out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path
