"""A leaderboard study (``leaderboard:`` in a study config, e.g. conf/study/leaderboard.yaml): the family
measures of leaderboard/coverage.py for every method over a grid of many_models points.

The config's ``leaderboard`` block::

    methods: [wald, bonferroni, max_t, holm, bh, {name: bootstrap_max_t, draws: 200}]
    k: [3, 5, 10, 20]          # models
    n: [200, 1000, 5000]       # test-set size
    top: [0.75]                # the best model's accuracy
    spread: [0, 0.05, 0.2]     # best minus worst accuracy, evenly spaced (0: k equal models)
    rho: [0.3, 0.7]            # the exchangeable latent correlation between models
    delta: 0.05
    reps: 200
    check: {k: 3, n: 10, spread: 0.1, reps: 20000}   # exact against Monte Carlo (no bootstrap)

``run_leaderboard_study`` runs it on the study runner (a study kind, study/kinds.py: a cell per point, and
the check) and writes <out>/results.csv (one row per point × method), check.csv (the exact engine against
Monte Carlo at the check point, with z = difference/MCSE), report.md, report.html and, with ``plot``, the
figures (plots/leaderboard.py).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import validate
from ..designs.many_models import ManyModels, spaced
from ..methods.leaderboard import RESAMPLE_CELLS, RESAMPLING
from ..methods.registry import get
from ..study.config import ConfigError
from ..study.kinds import StudyKind, register_study_kind
from .coverage import MEASURES, leaderboard_coverage

AXES = ("k", "n", "top", "spread", "rho")


@dataclass(frozen=True)
class LeaderboardStudy:
    name: str
    question: str
    methods: tuple
    grid: dict
    delta: float
    reps: int
    check: dict
    seed: int
    out: Path
    plot: bool

    @classmethod
    def from_config(cls, cfg: dict) -> "LeaderboardStudy":
        block = cfg.get("leaderboard") or {}
        methods = []
        if not isinstance(block.get("methods") or [], list):
            raise ConfigError(f"leaderboard.methods: a list of names or {{name: ..., parameter: value}}, "
                              f"got {block.get('methods')!r}")
        for m in block.get("methods") or []:
            if not isinstance(m, (str, dict)):
                raise ConfigError(f"leaderboard.methods: a name or {{name: ..., parameter: value}}, got {m!r}")
            name, params = (m, {}) if isinstance(m, str) else (m.get("name"), {k: v for k, v in m.items() if k != "name"})
            try:
                get(name, "leaderboard").validate_params(params)  # draws: 0 or 10^12 refused here, not in the run
            except ValueError as err:
                raise ConfigError(f"leaderboard.methods: {err}") from None
            methods.append((name, params))
        if not methods:
            raise ConfigError("leaderboard.methods: give at least one leaderboard method")
        grid = {}
        for axis in AXES:
            values = block.get(axis)
            if not values:
                raise ConfigError(f"leaderboard.{axis}: give a list of values")
            grid[axis] = list(values) if isinstance(values, (list, tuple)) else [values]
        if any(not isinstance(k, int) or k < 2 or k > 50 for k in grid["k"]):
            raise ConfigError(f"leaderboard.k: each must be a whole number in [2, 50], got {grid['k']}")
        delta, reps = block.get("delta", 0.05), block.get("reps", 200)
        if validate.not_numbers(delta) or not isinstance(delta, (int, float)) or not 0 < delta < 1:
            raise ConfigError(f"leaderboard.delta: must be in (0, 1), got {delta!r}")
        if isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= validate.REPS_MAX:
            raise ConfigError(f"leaderboard.reps: a whole number in [1, {validate.REPS_MAX:,}], got {reps!r}")
        check = block.get("check") or {}
        if not isinstance(check, dict) or set(check) - {*AXES, "reps"}:
            raise ConfigError(f"leaderboard.check: a mapping of {', '.join(AXES)} and reps, got {check!r}")
        c_reps = check.get("reps", 20000)
        if isinstance(c_reps, bool) or not isinstance(c_reps, int) or not 1 <= c_reps <= validate.REPS_MAX:
            raise ConfigError(f"leaderboard.check.reps: a whole number in [1, {validate.REPS_MAX:,}], got {c_reps!r}")
        study = cls(str(cfg.get("name", "leaderboard")), str(cfg.get("question", "")), tuple(methods), grid,
                    float(delta), reps, dict(block.get("check") or {}), int(cfg.get("seed", 0)),
                    Path(cfg.get("out") or f"results/{cfg.get('name', 'leaderboard')}"), bool(cfg.get("plot", False)))
        if study.check:  # the exact engine's point: small enough to enumerate
            point_design(study.check_point(), exact=True)
        for point in study.points():  # every point checked before any work
            design = point_design(point)
            for m, params in methods:
                if get(m, "leaderboard").name in RESAMPLING:  # one test set's resamples at once
                    draws = get(m, "leaderboard").validate_params(params)["draws"]
                    if draws * design.n > RESAMPLE_CELLS:
                        raise ConfigError(f"leaderboard.methods: {m} draws {draws:,} resamples of n = {design.n:,} "
                                          f"examples, more than {RESAMPLE_CELLS:.0e}; lower draws to "
                                          f"{max(1, RESAMPLE_CELLS // design.n):,}")
        return study

    def check_point(self) -> dict:
        """The point where the exact engine is compared with Monte Carlo (the ``check`` block, with defaults)."""
        c = self.check
        return {"k": c.get("k", 3), "n": c.get("n", 10), "top": c.get("top", 0.75), "spread": c.get("spread", 0.1),
                "rho": c.get("rho", 0.5)}

    def points(self) -> list[dict]:
        return [dict(zip(AXES, combo)) for combo in itertools.product(*(self.grid[a] for a in AXES))]


def point_design(point: dict, exact: bool = False) -> ManyModels:
    """The many_models design at ``point``; a point that cannot work (or, with ``exact``, that the exact engine
    cannot enumerate) is a ConfigError naming its axis."""
    try:
        for axis in AXES:
            if validate.not_numbers(point[axis]) or not isinstance(point[axis], (int, float)):
                raise ValueError(f"{axis}: must be a number, got {point[axis]!r}")
        if not float(point["k"]).is_integer() or not 2 <= point["k"] <= 50:  # inf and NaN are not whole
            raise ValueError(f"k: each must be a whole number in [2, 50], got {point['k']!r}")
        if not float(point["n"]).is_integer():
            raise ValueError(f"n: the test-set size must be a whole number, got {point['n']!r}")
        design = ManyModels(tuple(float(a) for a in spaced(int(point["k"]), point["top"], point["spread"])),
                            int(point["n"]), float(point["rho"]))
        problem = design.check(exact=exact)
    except ValueError as err:
        problem = str(err)
    if problem:
        raise ConfigError(f"leaderboard.{'check.' if exact else ''}{problem}")
    return design


def run_leaderboard_study(study: LeaderboardStudy, progress=False, settings=None):
    """Run the study on the study runner (study/kinds.py: resumable, on workers): every point × method's
    measures (results.csv), the exact check (check.csv), report.md (module docstring); returns the table.
    ``progress``: as ``run_kind``'s (a stream, as before, means quiet)."""
    from ..study.runner import run_kind

    quiet = progress is False or not isinstance(progress, (bool, type(None)))
    return run_kind(KIND, study, settings, progress=False if quiet else progress,
                    say=(lambda line: None) if quiet else None)["results"]


def cells(study: LeaderboardStudy) -> list:
    """The grid's points in table order, then ``"check"`` (the exact engine against Monte Carlo)."""
    return [*study.points(), *(["check"] if study.check else [])]


def cell_rows(study: LeaderboardStudy, cell) -> dict:
    """One point's rows, or the check's (the study kind's ``rows``: it runs on a worker; a point's
    test sets come from streams keyed by the design's point and the method, leaderboard/coverage.py)."""
    if cell == "check":
        return {"check": check_table(study, frame=False)}
    return {"results": [{**cell, "delta": study.delta, "reps": study.reps, **row}
                        for row in leaderboard_coverage(point_design(cell), study.methods, study.delta, study.reps,
                                                        study.seed)]}


def finish(study: LeaderboardStudy, tables: dict) -> list[Path]:
    """Write results.csv, check.csv, with ``plot`` the figures, and report.md."""
    table = tables["results"]
    check = tables["check"] if study.check else None
    paths = [study.out / "results.csv"]
    table.to_csv(paths[0], index=False, float_format="%.10g")
    if check is not None:
        paths.append(study.out / "check.csv")
        check.to_csv(paths[-1], index=False, float_format="%.10g")
    if study.plot:
        from ..plots.leaderboard import plot_leaderboard

        plot_leaderboard(table, study.out / "figures")
    paths.append(write_report(study, table, check))
    return paths


def cost(study: LeaderboardStudy, cell) -> float:
    """Forecast CPU seconds: per test set, model pair and method, resampling methods per draw; the
    check's exact enumeration and its paths (fitted to the committed study's rerun in issue 59: 465 CPU-s,
    ~70 of them the check, on the loaded 2-core machine; an order of magnitude, no more)."""
    def per_method(m, params):
        return params.get("draws", 1) if get(m, "leaderboard").name in RESAMPLING else 1
    if cell == "check":
        return 3e-4 * int(study.check.get("reps", 20000)) * len(study.methods) + 0.5
    k, n = int(cell["k"]), int(cell["n"])
    return study.reps * sum(3e-8 * n * k + 4e-7 * k * k * per_method(m, p) for m, p in study.methods) + 0.01


def memory(study: LeaderboardStudy, cell) -> float:
    """A point's test sets (k models × n examples, a byte each, a few copies) and a resampling method's
    draws of one test set (8 bytes each)."""
    if cell == "check":
        return 50e6
    draws = max([p.get("draws", 1) for _, p in study.methods] or [1])
    return int(cell["k"]) * int(cell["n"]) * (4 * study.reps + 8 * draws)


def summary(study: LeaderboardStudy, tables: dict):
    return headline(tables["results"])


def check_table(study: LeaderboardStudy, frame: bool = True):
    """Exact against Monte Carlo at the check point for every method with an exact engine (``frame``:
    as a DataFrame, else its rows)."""
    import pandas as pd

    c = study.check
    point = study.check_point()
    design = point_design(point)
    methods = [m for m in study.methods if get(m[0], "leaderboard").name not in RESAMPLING]
    exact = leaderboard_coverage(design, methods, study.delta, None)
    mc = leaderboard_coverage(design, methods, study.delta, int(c.get("reps", 20000)), study.seed)
    rows = []
    for e, m in zip(exact, mc):
        for measure in ("family_coverage", "false_claim", "rank_coverage"):
            if np.isnan(e[measure]):
                continue
            se = m[f"{measure}_mcse"]
            rows.append({**point, "method": e["method"], "measure": measure, "exact": e[measure], "mc": m[measure],
                         "mcse": se, "z": (m[measure] - e[measure]) / se if se > 0 else 0.0})
    return pd.DataFrame(rows) if frame else rows


def headline(table):
    """Family coverage, false claims, power and rank-set size by method and k (mean over the other axes)."""
    cols = ["family_coverage", "false_claim", "power", "rank_coverage", "rank_size"]
    return table.groupby(["method", "k"], sort=False)[cols].mean().reset_index()


def write_report(study: LeaderboardStudy, table, check) -> Path:
    """<out>/report.md: the null's family measures, every point's, the exact check, the figures, the methods'
    references."""
    from ..report.references import kind_cited, markdown_lines

    null = table[table.spread == 0].groupby(["method", "k"], sort=False)[["family_coverage", "false_claim"]].mean()
    lines = [f"# {study.name}", "", study.question, "",
             f"Monte Carlo, {study.reps} test sets per point (seed {study.seed}), delta = {study.delta}; "
             "measures in leaderboard/coverage.py (– : the method makes no such answer: Holm and BH give claims "
             "only, bootstrap ranks rank sets only).", "",
             "## All models equal (spread 0): family-wise coverage and false claims, mean over n and rho", "",
             markdown(null.round(3).reset_index()), "",
             "## Every point: mean over n, rho and spread", "", markdown(headline(table).round(3)), ""]
    if check is not None:
        lines += ["## Exact against Monte Carlo", "", markdown(check.round(4)), ""]
    figures = sorted((study.out / "figures").glob("*.png")) if (study.out / "figures").exists() else []
    lines += [f"![{f.stem}](figures/{f.name})" for f in figures]
    refs = markdown_lines(kind_cited(table, CITES))[:-1]  # its closing blank line: the file's last newline
    lines += [""] * bool(refs and lines[-1]) + refs
    path = study.out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def markdown(df) -> str:
    """A pipe table, numbers to 4 significant digits."""
    def cell(v):
        if isinstance(v, float):
            return "–" if np.isnan(v) else f"{v:.4g}"  # –: the method gives no such answer (claims or ranks only)
        return str(v)
    head = "| " + " | ".join(df.columns) + " |\n|" + "---|" * len(df.columns)
    return head + "".join("\n| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False))


# The default page's interactive figure (report/kind_page.py): the family measures against the grid.
EXPLORE = {"title": "family measures against k, n, spread and rho",
           "axes": (*AXES, "delta"),
           "measures": {"family_coverage": ("simultaneous coverage of every pair", "family_coverage_mcse"),
                        "false_claim": ("P(some false 'A beats B')", "false_claim_mcse"),
                        "pair_coverage": ("per-pair coverage", None), "mean_width": ("mean width", None),
                        "false_discovery": ("false discovery rate", None), "power": ("power", None),
                        "rank_coverage": ("rank-set coverage", "rank_coverage_mcse"),
                        "rank_size": ("mean rank-set size", None)},
           "extra": ("family_coverage_mcse", "false_claim_mcse", "rank_coverage_mcse", "reps"),
           "level": ("family_coverage", "rank_coverage")}


def page(study: LeaderboardStudy, tables: dict) -> Path:
    """report.html (report/kind_page.py) from results.csv as written (10 significant digits): a committed
    page is what its committed table writes."""
    import pandas as pd

    from ..report.kind_page import write_kind_html
    from ..report.references import kind_cited

    table = pd.read_csv(study.out / "results.csv")
    return write_kind_html(study, headline(table), table, EXPLORE, kind_cited(table, CITES))


CITES = ("leaderboard", "leaderboard_auc")  # its methods in the registry
# The leaderboard study kind (study/kinds.py): the runner runs it, resumably, on its workers.
KIND = register_study_kind(StudyKind(
    key="leaderboard", load=LeaderboardStudy.from_config, cells=cells, rows=cell_rows, finish=finish,
    summary=summary, tables=("results", "check"), cost=cost, memory=memory, page=page, cites=CITES))
