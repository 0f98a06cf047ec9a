"""The numbers of a coverage study's report, computed from its tidy results table (no rendering).

For each method (display label) and each delta, side and engine, over the cells of the grid:

    mean coverage, min coverage, mean |coverage - (1 - delta)|, mean expected width, and the
    fraction of cells below nominal, where a cell counts as below nominal when
        exact engine:        coverage < 1 - delta                (up to 1e-12 of rounding)
        Monte Carlo engine:  coverage + 2·mcse < 1 - delta       (below by more than 2 MCSE)
    so a Monte Carlo cell is flagged only when the shortfall is larger than its simulation noise.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..engine.measures import RESULT_COLUMNS

ROUNDING = 1e-12  # exact coverages are sums of pmf terms; ignore shortfalls this small
GROUP = ("method", "label", "delta", "side", "engine")
HOW = ("cell_id", "engine", "reps", "seed")  # how a cell was computed, not which cell it is


def read_results(folder) -> pd.DataFrame:
    """<folder>/results.csv (else results.parquet, all a committed study keeps) with ``label``,
    ``side``, ``engine`` and ``mcse`` filled in where empty, and the exact coverage/width of each
    cell joined onto its mc rows when the table holds both engines."""
    path = Path(folder) / "results.csv"
    if not path.is_file() and path.with_suffix(".parquet").is_file():  # a committed study keeps only this one
        df = pd.read_parquet(path.with_suffix(".parquet"))
        return join_exact(tidy(df.astype({c: object for c in df if not pd.api.types.is_numeric_dtype(df[c])})))
    if not path.is_file():
        raise FileNotFoundError(f"no results.csv in {Path(folder)}")
    df = pd.read_csv(path)
    if df.empty:
        raise ValueError(f"{path} has no rows")
    return join_exact(tidy(df))


def display_labels(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose ``label`` is filled from ``method``; an entry labelled by its registry
    name is shown by its display name ("Clopper–Pearson")."""
    df = df.copy()
    if "label" not in df:
        df["label"] = df["method"]
    df["label"] = df["label"].fillna(df["method"]).astype(str)
    shown = pd.Series(_per_row(display_name, df), index=df.index)
    df["label"] = np.where(df["label"] == df["method"], shown, df["label"])
    # an entry labelled by name and parameters ("bootstrap(draws=500)") keeps its parameters
    with_params = pd.Series([lab.startswith(f"{m}(") for lab, m in zip(df["label"], df["method"])], index=df.index)
    df.loc[with_params, "label"] = shown[with_params] + " (" + df.loc[with_params, "label"].str.split("(", n=1).str[1]
    return df


def tidy(df: pd.DataFrame) -> pd.DataFrame:
    """Defaults for optional columns: label = method (shown by its display name), side two-sided,
    engine exact, mcse 0."""
    df = display_labels(df)
    for col, default in (("side", "two-sided"), ("engine", "exact")):
        if col not in df:
            df[col] = default
        df[col] = df[col].fillna(default).astype(str)
    for col in ("mcse", "exact_coverage", "exact_mean_width", "reps", "sd_width"):
        if col not in df:
            df[col] = np.nan
    df["mcse"] = df["mcse"].fillna(0.0)
    return df


def identity_columns(df: pd.DataFrame) -> list[str]:
    """The columns that identify a cell apart from its engine: every used column but the results."""
    results = {*HOW, *RESULT_COLUMNS}
    return [c for c in df if c not in results and df[c].notna().any()]


def join_exact(df: pd.DataFrame) -> pd.DataFrame:
    """Give mc rows the coverage and width of the exact rows for the same cell, where they lack them."""
    exact = df[df["engine"] == "exact"]
    if exact.empty or not (df["engine"] == "mc").any():
        return df
    keys = identity_columns(df)
    ref = exact[keys + ["coverage", "mean_width"]].rename(
        columns={"coverage": "_exact_cov", "mean_width": "_exact_w"}).drop_duplicates(keys)
    out = df.merge(ref, on=keys, how="left")
    mc = out["engine"] == "mc"
    out.loc[mc, "exact_coverage"] = out.loc[mc, "exact_coverage"].fillna(out.loc[mc, "_exact_cov"])
    out.loc[mc, "exact_mean_width"] = out.loc[mc, "exact_mean_width"].fillna(out.loc[mc, "_exact_w"])
    return out.drop(columns=["_exact_cov", "_exact_w"])


def split_columns(df: pd.DataFrame) -> list[str]:
    """The columns beside delta, side and engine whose values are summarised (and drawn) apart:
    ``design`` when it has more than one value or is not binomial, ``metric`` when every row has one.

    A binomial-only table is not split by design, so its summary and figure names stay those of
    the tables written before designs existed.
    """
    out = []
    if "design" in df:
        designs = set(df["design"].dropna())
        if len(designs) > 1 or designs - {"binomial"}:
            out.append("design")
    if "metric" in df and df["metric"].notna().all():
        out.append("metric")
    return out


def summary_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per label × delta × side × engine (× design, × metric; see ``split_columns``): cells, mean/min
    coverage, fraction below nominal (rule in the module docstring), mean |coverage − (1 − delta)|
    and mean width.

    Monte Carlo rows that carry exact values (engine=both) are summarised twice, as "mc"
    and as "exact", so the two engines can be compared line by line.
    """
    df = tidy(df)
    if not (df["engine"] == "exact").any() and df["exact_coverage"].notna().any():
        exact = df[df["exact_coverage"].notna()].assign(
            engine="exact", coverage=lambda t: t["exact_coverage"], mean_width=lambda t: t["exact_mean_width"],
            mcse=0.0)
        df = pd.concat([df, exact], ignore_index=True)
    nominal = 1 - df["delta"]
    exact = df["engine"] == "exact"
    below = np.where(exact, df["coverage"] < nominal - ROUNDING, df["coverage"] + 2 * df["mcse"] < nominal)
    df = df.assign(_below=below.astype(float), _abs=(df["coverage"] - nominal).abs())
    keys = list(GROUP) + split_columns(df)
    if "design" in keys:
        df["design"] = df["design"].fillna("").astype(str)
    out = df.groupby(keys, sort=False).agg(
        cells=("coverage", "size"), mean_coverage=("coverage", "mean"), min_coverage=("coverage", "min"),
        below_nominal=("_below", "mean"), mean_abs_error=("_abs", "mean"), mean_width=("mean_width", "mean"),
    ).reset_index()
    return out.iloc[_registry_order(out)].reset_index(drop=True)


def resolve_method(method: str, design=None, metric=None):
    """The registered method a results table's ``method`` names, or None: short names are read
    as ``design``'s ``metric`` reads them (its default metric without one, as a table without a
    ``metric`` column means; as binomial's without a design)."""
    from ..designs import DESIGNS
    from ..estimands import ESTIMANDS
    from ..intervals import methods  # with design=: the door's
    from ..methods import get

    kinds = None
    if isinstance(design, str) and design in DESIGNS:
        d = DESIGNS[design]
        estimand = ESTIMANDS.get((d.data, metric if isinstance(metric, str) else d.estimand))
        kinds = estimand.takes if estimand else tuple({m.takes for m in methods(design=design).values()})
    for takes in ((kinds, None) if kinds else ("proportion", None)):
        try:
            return get(method, takes)
        except ValueError:
            pass
    # a short name several kinds share (cluster_bootstrap: accuracy's, F1's, the AUC's): the method
    # registered under exactly that name, the one a study's table writes
    from ..methods import methods as every

    return next((m for m in every().values() if m.name == method), None)


def _context(table: pd.DataFrame) -> list:
    """Each row's (method, design, metric): what says which method its short name is (None for a
    missing column or value)."""
    columns = [table[c] if c in table else [None] * len(table) for c in ("design", "metric")]
    return [(m, *(v if isinstance(v, str) else None for v in where)) for m, *where in zip(table["method"], *columns)]


def _per_row(f, table: pd.DataFrame) -> list:
    """``f(method, design, metric)`` for every row, computed once per distinct triple (tables hold
    thousands of rows of a few methods)."""
    rows = _context(table)
    once = {key: f(*key) for key in dict.fromkeys(rows)}
    return [once[key] for key in rows]


def display_name(method: str, design: str | None = None, metric: str | None = None) -> str:
    """The method's display name in figures and reports (``Method.display``); unknown methods keep theirs."""
    m = resolve_method(method, design, metric)
    return str(method) if m is None else m.display


def method_rank(method: str, design: str | None = None, metric: str | None = None) -> int:
    """Position of ``method`` in registry order (proportion, balanced-accuracy, F1 methods); unknown last."""
    from ..methods import methods

    names = [m.name for m in methods().values()]
    m = resolve_method(method, design, metric)
    return len(names) if m is None else names.index(m.name)


def ranking(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary ranked within each (delta, side, engine[, design]): closeness_rank by mean
    |coverage − nominal| (1 = closest) and width_rank by mean width (1 = narrowest)."""
    keys = [k for k in ("delta", "side", "engine", "design") if k in summary]
    out = summary.copy()
    groups = out.groupby(keys, sort=False)
    out["closeness_rank"] = groups["mean_abs_error"].rank(method="min").astype(int)
    out["width_rank"] = groups["mean_width"].rank(method="min").astype(int)
    return out.sort_values([*keys, "closeness_rank", "width_rank"], kind="stable").reset_index(drop=True)


def standardised_difference(df: pd.DataFrame) -> np.ndarray:
    """z = (MC coverage − exact coverage) / sqrt(C(1 − C)/reps), C the exact coverage; NaN where
    C is 0 or 1 or there is no exact reference. Approximately N(0, 1) when the MC engine is right."""
    e = df["exact_coverage"].to_numpy(float)
    se = np.sqrt(np.clip(e * (1 - e), 0, None) / df["reps"].to_numpy(float))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, (df["coverage"].to_numpy(float) - e) / np.where(se > 0, se, 1), np.nan)


def exclusion_table(df: pd.DataFrame) -> pd.DataFrame:
    """Comparison designs (rows with ``excludes_zero``), per label × delta × side × engine: at the
    cells whose true difference is 0, the mean and largest rate of excluding 0 (a false "A is
    better/worse"; nominal delta) and the share of those cells above delta (exact: e > delta;
    Monte Carlo: e - 2·MCSE > delta); at the other cells, the mean rate (power). Empty otherwise."""
    df = tidy(df)
    if "excludes_zero" not in df or df["excludes_zero"].isna().all():
        return pd.DataFrame()
    df = df[df["excludes_zero"].notna()]
    null = df["truth"].abs() <= ROUNDING
    margin = np.where(df["engine"] == "exact", 0.0, 2 * df["excludes_zero_mcse"].fillna(0.0))
    df = df.assign(_null=np.where(null, df["excludes_zero"], np.nan),
                   _above=np.where(null, (df["excludes_zero"] - margin > df["delta"] + ROUNDING).astype(float), np.nan),
                   _power=np.where(null, np.nan, df["excludes_zero"]))
    keys = list(GROUP) + split_columns(df)
    if "design" in keys:
        df["design"] = df["design"].fillna("").astype(str)
    out = df.groupby(keys, sort=False).agg(
        null_cells=("_null", "count"), null_rate=("_null", "mean"), max_null_rate=("_null", "max"),
        above_delta=("_above", "mean"), power=("_power", "mean")).reset_index()
    return out.iloc[_registry_order(out)].reset_index(drop=True)


def mc_agreement(df: pd.DataFrame) -> pd.DataFrame:
    """Per label × delta × side, over the mc cells with an exact reference: the standardised
    differences' count, mean, sd, share beyond ±2 (4.6% for N(0, 1)) and largest |z|."""
    df = tidy(df)
    mc = df[(df["engine"] == "mc") & df["exact_coverage"].notna() & df["reps"].notna()]
    mc = mc.assign(z=standardised_difference(mc)).dropna(subset=["z"])
    if mc.empty:
        return pd.DataFrame()
    out = mc.groupby(["method", "label", "delta", "side"], sort=False)["z"].agg(
        cells="size", mean_z="mean", sd_z="std", beyond_2=lambda z: np.mean(np.abs(z) > 2),
        max_abs_z=lambda z: np.max(np.abs(z))).reset_index()
    return out.iloc[_registry_order(out)].reset_index(drop=True)


def _registry_order(out: pd.DataFrame) -> np.ndarray:
    key = pd.DataFrame({"r": _per_row(method_rank, out), "m": out["method"],
                        "l": out["label"], "d": out["delta"], "s": out["side"]})
    return key.sort_values(list(key.columns), kind="stable").index.to_numpy()


def with_exact_infimum(table: pd.DataFrame, folder) -> pd.DataFrame:
    """The summary with ``exact_min_coverage``: per label, delta and side the smallest exact
    confidence coefficient over the study's n (inf over every p of its range), when the study
    wrote <folder>/exact_curve.csv (``exact_curve: true``); the table unchanged otherwise."""
    path = Path(folder) / "exact_curve.csv"
    if not path.is_file():
        return table
    inf = (display_labels(pd.read_csv(path)).groupby(["label", "delta", "side"], sort=False)["confidence_coefficient"]
           .min().rename("exact_min_coverage").reset_index())
    return table.merge(inf, on=["label", "delta", "side"], how="left")
