"""The calibration study (``study=calibration``: conf/study/calibration.yaml, ``calibration:`` key): how
often the intervals of a reliability diagram's bins, the bands over all bins and the ECE intervals
cover, and how biased the ECE estimates are, over a grid of the calibration design's points
(designs/calibration.py: n, bins, binning, slope, intercept, and the score law: scores = beta with
score_a, score_b, or binormal with auc, prevalence).

Per point, ``reps`` test sets are drawn whole (scores, then labels) from the point's own stream
(``seeds.stream`` keyed by the point), binned, and every method sees the same test sets:

* ``target = bin``: per bin j and per-bin method, the coverage of f_j among the test sets whose
  bin j is non-empty (Monte Carlo, ``coverage``, ``mcse``) and the same conditional coverage
  computed exactly by enumerating the bin's (m, k) (``exact_coverage``); ``n_valid``, the test sets
  with bin j non-empty, and ``p_nonempty`` = P(m_j > 0) exactly;
* ``target = curve``: per-bin method × adjustment (none, Bonferroni, Šidák), the share of test
  sets whose band covers every non-empty bin's f_j (empty bins get [0, 1]);
* ``target = ece`` / ``ece_unbinned`` / ``smooth_ece``: per ECE method, coverage of the estimands
  it is for (``methods.calibration.TARGETS``: the true binned ECE and E|c(s) - s| for the binned
  ECEs, the population's smooth ECE for ``smooth``), the estimate's mean minus the truth (``bias``)
  and the mean width. The smooth ECE does not bin, so it runs once per point of the other axes, at
  the grid's first ``bins`` and ``binning`` (its rows carry those);
* ``target = test``: per test of perfect calibration, the rate of rejecting it at level delta
  (its size at slope = 1 and intercept = 0, its power elsewhere).

Figures (plots/calibration.py), report.md and the interactive page report.html (report/calibration_page.py)
are written with ``plot``; the table always.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import validate
from ..designs import DESIGNS
from ..designs import calibration as design
from ..methods import calibration as cal
from ..methods import get
from ..seeds import stream
from ..study.config import ConfigError
from ..study.kinds import StudyKind, register_study_kind

if TYPE_CHECKING:
    import pandas as pd

AXES = ("n", "bins", "binning", "slope", "intercept", "score_a", "score_b", "scores", "auc", "prevalence")
BINORMAL, BETA = ("scores", "auc", "prevalence"), ("score_a", "score_b")  # a point keeps its score law's axes
TEST_SET_BYTES = 40  # per example of a point's test sets: scores, labels, bin keys and the bincount weights (float64)
UNBINNED = ("smooth",)  # ECE methods that do not bin: run at the grid's first bins and binning only


@dataclass(frozen=True)
class CalibrationStudy:
    """A calibration study: per-bin methods, band adjustments, ECE methods and tests × the design's points."""

    name: str
    question: str
    bin_methods: tuple[str, ...]
    adjustments: tuple[str, ...]
    ece_methods: tuple[str, ...]
    tests: tuple[str, ...]
    draws: int
    points: tuple[dict, ...]
    delta: float
    reps: int
    seed: int
    out: Path
    plot: bool

    @classmethod
    def from_config(cls, cfg: dict) -> "CalibrationStudy":
        spec = cfg.get("calibration")
        if not isinstance(spec, dict):
            raise ConfigError(f"calibration: must be a mapping (bin_methods, adjustments, ece_methods, tests, draws), "
                              f"got {spec!r}")

        def names(key, valid):
            value = spec.get(key) or []
            value = value if isinstance(value, list) else [value]
            for v in value:
                if v not in valid:
                    raise ConfigError(f"calibration.{key}: must list names among {', '.join(valid)}, got {v!r}")
            return tuple(value)

        proportion = ["bootstrap", *(m.short for m in __import__("covstudy.methods", fromlist=["x"]).methods(
            "proportion").values())]
        bin_methods = names("bin_methods", proportion)
        if not bin_methods:
            raise ConfigError("calibration.bin_methods: missing (e.g. [wilson, clopper_pearson, jeffreys, bootstrap])")
        adjustments = names("adjustments", list(cal.ADJUSTMENTS))
        ece = names("ece_methods", [m.short for m in __import__("covstudy.methods", fromlist=["x"]).methods("ece").values()])
        tests = names("tests", list(cal.TESTS))
        draws = spec.get("draws", 200)
        if isinstance(draws, bool) or not isinstance(draws, int) or not 1 <= draws <= validate.DRAWS_MAX:
            raise ConfigError(f"calibration.draws: must be a whole number in [1, {validate.DRAWS_MAX}], got {draws!r}")
        grid = {k: v for k, v in (cfg.get("grid") or {}).items() if k in AXES and v is not None}
        for k in ("n", "bins"):
            if k not in grid:
                raise ConfigError(f"grid.{k}: missing (the calibration study's axes: {', '.join(AXES)})")
        for k, v in grid.items():  # a list of single values, or one value (grid.bins=[] has no points)
            if isinstance(v, list) and (not v or any(isinstance(x, (list, dict)) for x in v)) or isinstance(v, dict):
                raise ConfigError(f"grid.{k}: a value or a non-empty list of values, got {v!r}")
        d = DESIGNS["calibration"]
        points = []
        for combo in itertools.product(*(v if isinstance(v, list) else [v] for v in grid.values())):
            point = d.derive(dict(zip(grid, combo), bin=1))
            for a in d.axes:
                try:
                    a.values(point[a.name])
                except ValueError as err:
                    raise ConfigError(f"grid.{err}") from None
            problem = d.check(point, exact=False)  # n <= 10^7, bins <= BINS_MAX: before any test set is drawn
            if problem:
                raise ConfigError(f"grid.{problem}")
            binormal = point["scores"] == "binormal"
            point = {k: point[k] for k in AXES if k not in (BETA if binormal else BINORMAL)}
            if point not in points:  # the other law's axes do not make new points
                points.append(point)
        delta = (cfg.get("grid") or {}).get("delta", [0.05])
        delta = delta[0] if isinstance(delta, list) and len(delta) == 1 else delta
        if not isinstance(delta, (int, float)) or validate.delta_problem(delta):
            raise ConfigError(f"grid.delta: one miss rate in [{validate.DELTA_MIN}, {validate.DELTA_MAX}], got {delta!r}")
        reps = cfg.get("reps", 400)
        if isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= 1_000_000:
            raise ConfigError(f"reps: must be a whole number in [1, 1000000], got {reps!r}")
        largest = max(p["n"] for p in points)
        if reps * largest * TEST_SET_BYTES > validate.MC_BYTES_MAX:  # a point's test sets are drawn whole
            raise ConfigError(f"reps: {reps:,} test sets of n = {largest:,} hold {reps * largest * TEST_SET_BYTES / 1e9:.3g} GB "
                              f"at once, more than {validate.MC_BYTES_MAX / 1e9:g} GB; lower reps to "
                              f"{max(1, validate.MC_BYTES_MAX // (largest * TEST_SET_BYTES)):,} or n")
        seed = cfg.get("seed", 2026)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
            raise ConfigError(f"seed: must be a whole number >= 0, got {seed!r}")
        name = cfg.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"name: must be a non-empty string, got {name!r}")
        plot = cfg.get("plot", False)
        if not isinstance(plot, bool):
            raise ConfigError(f"plot: must be true or false, got {plot!r}")
        return cls(name, str(cfg.get("question") or ""), bin_methods, adjustments, ece, tests, draws, tuple(points),
                   float(delta), reps, seed, Path(cfg.get("out") or f"results/{name}"), plot)


def truths(point: dict) -> dict:
    """The point's true per-bin masses and frequencies, binned ECE and unbinned ECE (quadrature)."""
    p = point
    shape = (design.ScoreLaw.of(p), float(p["slope"]), float(p["intercept"]))
    w, f, _ = design.bin_moments(p["bins"], p["binning"], *shape)
    return {"w": w, "f": f, "ece": design.true_ece_binned(p["bins"], p["binning"], *shape),
            "ece_unbinned": design.true_ece(*shape), "smooth_ece": lambda: design.true_smooth_ece(*shape)}


def exact_bin_coverage(method: str, n: int, w: float, f: float, delta: float) -> tuple[float, float]:
    """(P(f in the interval | m > 0), P(m > 0)) for one bin, by enumerating (m, k) (design.bin_outcomes)."""
    k, m, p = design.bin_outcomes(n, w, f)
    full = m > 0
    if not full.any():
        return float("nan"), 0.0
    lo, hi = cal.bin_intervals(method, k[full], m[full], delta)
    nonempty = -np.expm1(n * np.log1p(-w)) if w < 1 else 1.0
    return float(p[full][(lo <= f) & (f <= hi)].sum() / p[full].sum()), float(nonempty)


def _mc(hit) -> tuple[float, float]:
    hit = np.asarray(hit, dtype=float)
    c = float(hit.mean()) if hit.size else float("nan")
    return c, float(np.sqrt(c * (1 - c) / hit.size)) if hit.size else float("nan")


def point_rows(study: CalibrationStudy, point: dict) -> list[dict]:
    """Every row of one point (module docstring)."""
    t = truths(point)
    law = design.ScoreLaw.of(point)
    edges = design.edges(point["bins"], point["binning"], law)
    rng = stream(study.seed, design="calibration", study="calibration", **point)
    scores, labels = design.draw_test_sets(point["n"], study.reps, law, float(point["slope"]), float(point["intercept"]),
                                           rng)
    m, k, S = cal.bin_stats(scores, labels, edges)
    ident = {**point, "delta": study.delta, "reps": study.reps}
    rows = []
    f = t["f"]
    full = m > 0
    for method in study.bin_methods:
        lo, hi = cal.bin_intervals(method, k, m, study.delta)
        cover = (lo <= f) & (f <= hi)
        for j in range(point["bins"]):
            c, se = _mc(cover[full[:, j], j])
            exact, nonempty = exact_bin_coverage(method, point["n"], t["w"][j], f[j], study.delta)
            rows.append({**ident, "target": "bin", "bin": j + 1, "method": method, "truth": float(f[j]),
                         "coverage": c, "mcse": se, "n_valid": int(full[:, j].sum()), "exact_coverage": exact,
                         "p_nonempty": nonempty,
                         "width": float(np.mean((hi - lo)[full[:, j], j])) if full[:, j].any() else float("nan")})
        for adjust in study.adjustments:
            blo, bhi = cal.band(method, k, m, study.delta, adjust)
            held = np.all(((blo <= f) & (f <= bhi)) | ~full, axis=1)
            c, se = _mc(held)
            width = np.where(full, bhi - blo, np.nan)
            rows.append({**ident, "target": "curve", "method": f"{method}+{adjust}", "truth": float("nan"),
                         "coverage": c, "mcse": se, "width": float(np.nanmean(width))})
    first = study.points[0]
    for name in study.ece_methods:
        if name in UNBINNED and (point["bins"], point["binning"]) != (first["bins"], first["binning"]):
            continue
        meth = get(name, "calibration")
        boot = stream(study.seed, design="calibration", study="calibration", method=meth.name, **point)
        lo, hi = meth.bounds((scores, labels), study.delta, rng=boot, edges=edges, draws=study.draws)
        est = cal.ESTIMATES[name](scores, labels, edges)
        for target in cal.TARGETS[name]:
            truth = t[target]() if callable(t[target]) else t[target]
            c, se = _mc((lo <= truth) & (truth <= hi))
            rows.append({**ident, "target": target, "method": name, "truth": truth, "coverage": c, "mcse": se,
                         "width": float(np.mean(hi - lo)), "estimate": float(est.mean()),
                         "bias": float(est.mean() - truth), "bias_mcse": float(est.std(ddof=1) / np.sqrt(est.size))})
    for name in study.tests:
        rejected = cal.TESTS[name](scores, labels, edges) < study.delta
        c, se = _mc(rejected)
        rows.append({**ident, "target": "test", "method": name, "truth": float("nan"), "coverage": float("nan"),
                     "mcse": se, "rejection": c})
    return rows


def run_calibration_study(study: CalibrationStudy, settings=None, progress: bool | None = False) -> pd.DataFrame:
    """Run the study on the study runner (study/kinds.py: resumable, on workers); write <out>/results.csv,
    report.html (and with ``plot`` the figures and report.md); return the table."""
    from ..study.runner import run_kind

    return run_kind(KIND, study, settings, progress=progress,
                    say=None if progress is not False else (lambda line: None))["results"]


def finish(study: CalibrationStudy, tables: dict) -> list[Path]:
    """Write <out>/results.csv (and with ``plot`` the figures and report.md)."""
    table = tables["results"]
    paths = [study.out / "results.csv"]
    table.to_csv(paths[0], index=False, float_format="%.10g")
    if study.plot:
        from ..plots.calibration import calibration_figures

        calibration_figures(study, table, example_diagram(study))
        paths.append(write_report(study, table))
    return paths


def page(study: CalibrationStudy, tables: dict) -> Path:
    import pandas as pd

    from ..report.calibration_page import write_calibration_html  # report.html, the interactive page
    from ..report.references import kind_cited

    table = pd.read_csv(study.out / "results.csv")  # as written: a committed page is a rerun's bytes
    return write_calibration_html(study, table, kind_cited(table, CITES))


def cost(study: CalibrationStudy, point: dict) -> float:
    """Forecast CPU seconds of a point: per test set and example, per bin method (and its band
    adjustments), per ECE method (its bootstrap per draw; the smooth ECE's most), per test. Fitted by
    eye to the committed study (~20 CPU-min over 108 points): an order of magnitude, no more."""
    ece = sum(study.draws * (4 if m in UNBINNED else 1) for m in study.ece_methods)
    per_example = 2e-8 * (len(study.bin_methods) * (1 + len(study.adjustments)) + ece + len(study.tests))
    return study.reps * point["n"] * per_example + 2e-3 * len(study.bin_methods) * point["bins"] + 0.01


def memory(study: CalibrationStudy, point: dict) -> float:
    """A point's test sets, drawn whole (``TEST_SET_BYTES`` an example), and a bootstrap's copy of them."""
    return 2 * study.reps * point["n"] * TEST_SET_BYTES


def summary(study: CalibrationStudy, tables: dict):
    """Mean coverage and width per target and method, over the points."""
    table = tables["results"]
    return table.groupby(["target", "method"], sort=False)[["coverage", "width"]].mean().reset_index()


def _point_tables(study: CalibrationStudy, point: dict) -> dict:
    return {"results": point_rows(study, point)}


def example_diagram(study: CalibrationStudy) -> dict:
    """One test set at the study's most miscalibrated point with 10 equal-width bins and n nearest 300 (else the
    first point): its bins, the true frequencies and the Šidák–Clopper–Pearson band, for the reliability diagram."""
    pts = [p for p in study.points if p["bins"] == 10 and p["binning"] == "equal_width"] or list(study.points)
    point = max(pts, key=lambda p: (abs(np.log(p["slope"])) + abs(p["intercept"]), -abs(np.log(p["n"] / 300))))
    law = design.ScoreLaw.of(point)
    edges = design.edges(point["bins"], point["binning"], law)
    rng = stream(study.seed, design="calibration", study="calibration example", **point)
    s, y = design.draw_test_sets(point["n"], 1, law, float(point["slope"]), float(point["intercept"]), rng)
    m, k, S = (x[0] for x in cal.bin_stats(s, y, edges))
    lo, hi = cal.band("clopper_pearson", k, m, study.delta, "sidak")
    plo, phi = cal.bin_intervals("clopper_pearson", k, m, study.delta)
    t = truths(point)
    return {"point": point, "edges": edges, "m": m, "k": k, "S": S, "band": (lo, hi), "pointwise": (plo, phi),
            "f": t["f"]}


def write_report(study: CalibrationStudy, table: pd.DataFrame) -> Path:
    """<out>/report.md: the headline numbers per target and method (the ECEs' per score law), over the study's points,
    and the methods' references."""
    import pandas as pd

    from ..report.references import kind_cited, markdown_lines

    lines = [f"# {study.name}", "", study.question, "",
             f"{study.reps} test sets per point, delta = {study.delta:g}, {study.draws} bootstrap resamples; "
             f"{len(study.points)} points (n × bins × binning × slope × score law). Per-bin coverage is among test sets "
             "whose bin is non-empty; exact_coverage enumerates the bin's count and positives. The ECE rows are split "
             "by score law (beta, binormal).", ""]
    law = table["scores"].fillna("beta") if "scores" in table else pd.Series("beta", index=table.index)
    table = table.assign(law=law)
    bins = table[table.target == "bin"]
    agg = bins.groupby("method", sort=False).agg(mean=("exact_coverage", "mean"), worst=("exact_coverage", "min"),
                                                 width=("width", "mean"))
    lines += ["## Per bin (exact, over every bin and point)", "", "| method | mean coverage | worst coverage | mean width |",
              "|---|---|---|---|"]
    lines += [f"| {i} | {r['mean']:.3f} | {r.worst:.3f} | {r.width:.3f} |" for i, r in agg.iterrows()] + [""]
    for title, target in (("Whole curve (every non-empty bin at once)", "curve"), ("Binned ECE", "ece"),
                          ("Unbinned ECE E|c(s) - s|", "ece_unbinned"),
                          ("Smooth ECE (the population's smooth ECE)", "smooth_ece")):
        part = table[table.target == target]
        if part.empty:
            continue
        cols = {"mean": ("coverage", "mean"), "worst": ("coverage", "min"), "width": ("width", "mean")}
        if target != "curve":
            cols["bias"] = ("bias", "mean")
        by = "method" if target == "curve" else ["method", "law"]
        agg = part.groupby(by, sort=False).agg(**cols)
        head = (("| method" if target == "curve" else "| method, score law") + " | mean coverage | worst coverage | "
                "mean width |" + (" mean bias |" if target != "curve" else ""))
        lines += [f"## {title}", "", head, "|---|---|---|---|" + ("---|" if target != "curve" else "")]
        for i, r in agg.iterrows():
            lines.append(f"| {i if target == 'curve' else ', '.join(i)} | {r['mean']:.3f} | {r.worst:.3f} | {r.width:.3f} |"
                         + (f" {r.bias:+.4f} |" if target != "curve" else ""))
        lines.append("")
    tests = table[table.target == "test"]
    if not tests.empty:
        perfect = (tests.slope == 1) & (tests.intercept == 0)
        lines += ["## Tests of perfect calibration (rejection rate)", "", "| test | size (perfect) | power (miscalibrated) |",
                  "|---|---|---|"]
        for name, part in tests.groupby("method", sort=False):
            lines.append(f"| {name} | {part[perfect.loc[part.index]].rejection.mean():.3f} | "
                         f"{part[~perfect.loc[part.index]].rejection.mean():.3f} |")
        lines.append("")
    figs = sorted(p.name for p in (study.out / "figures").glob("*.png")) if (study.out / "figures").is_dir() else []
    lines += [f"![{f}](figures/{f})" for f in figs]
    refs = markdown_lines(kind_cited(table, CITES))[:-1]  # its closing blank line: the file's last newline
    lines += [""] * bool(refs and lines[-1]) + refs
    path = study.out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


CITES = ("ece", "proportion")  # its methods in the registry: the ECE intervals, the bins' intervals (tests: none)
# The calibration study kind (study/kinds.py): the runner runs it, resumably, on its workers.
KIND = register_study_kind(StudyKind(
    key="calibration", load=CalibrationStudy.from_config, cells=lambda study: list(study.points),
    rows=_point_tables, finish=finish, summary=summary, cost=cost, memory=memory, page=page,
    cites=CITES))
