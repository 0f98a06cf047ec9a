"""The report of a coverage study: a per-method summary as Markdown (report.md) and LaTeX (report.tex).

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

ROUNDING = 1e-12  # exact coverages are sums of pmf terms; ignore shortfalls this small
GROUP = ("method", "label", "delta", "side", "engine")
COLUMNS = {  # summary column -> (Markdown header, LaTeX header)
    "label": ("method", "Method"),
    "delta": ("δ", r"$\delta$"),
    "side": ("side", "Side"),
    "engine": ("engine", "Engine"),
    "design": ("design", "Design"),
    "metric": ("metric", "Metric"),
    "cells": ("cells", "Cells"),
    "mean_coverage": ("mean coverage", "Mean cov."),
    "min_coverage": ("min coverage", "Min cov."),
    "below_nominal": ("below nominal", "Below nom."),
    "mean_abs_error": ("mean \\|cov − (1−δ)\\|", r"Mean $|C - (1-\delta)|$"),
    "mean_width": ("mean width", "Mean width"),
}
BELOW_RULE = ("A cell is *below nominal* when its coverage < 1 − δ (exact engine) or when "
              "coverage + 2·MCSE < 1 − δ (Monte Carlo engine: short of nominal by more than two "
              "Monte Carlo standard errors).")


def read_results(folder) -> pd.DataFrame:
    """<folder>/results.csv with ``label``, ``side``, ``engine`` and ``mcse`` filled in where empty, and
    the exact coverage/width of each cell joined onto its mc rows when the table holds both engines."""
    path = Path(folder) / "results.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no results.csv in {Path(folder)}")
    df = pd.read_csv(path)
    if df.empty:
        raise ValueError(f"{path} has no rows")
    return join_exact(tidy(df))


def tidy(df: pd.DataFrame) -> pd.DataFrame:
    """Defaults for optional columns: label = method, side two-sided, engine exact, mcse 0."""
    df = df.copy()
    if "label" not in df:
        df["label"] = df["method"]
    df["label"] = df["label"].fillna(df["method"]).astype(str)
    for col, default in (("side", "two-sided"), ("engine", "exact")):
        if col not in df:
            df[col] = default
        df[col] = df[col].fillna(default).astype(str)
    for col in ("mcse", "exact_coverage", "exact_mean_width", "reps", "sd_width"):
        if col not in df:
            df[col] = np.nan
    df["mcse"] = df["mcse"].fillna(0.0)
    return df


def join_exact(df: pd.DataFrame) -> pd.DataFrame:
    """Give mc rows the coverage and width of the exact rows for the same cell, where they lack them."""
    keys = [c for c in ("method", "label", "side", "delta", "n", "p", "design", "metric", "n_pos", "n_neg",
                        "prevalence", "tpr", "tnr") if c in df and df[c].notna().any()]
    exact = df[df["engine"] == "exact"]
    if exact.empty or not (df["engine"] == "mc").any():
        return df
    ref = exact[keys + ["coverage", "mean_width"]].rename(
        columns={"coverage": "_exact_cov", "mean_width": "_exact_w"}).drop_duplicates(keys)
    out = df.merge(ref, on=keys, how="left")
    mc = out["engine"] == "mc"
    out.loc[mc, "exact_coverage"] = out.loc[mc, "exact_coverage"].fillna(out.loc[mc, "_exact_cov"])
    out.loc[mc, "exact_mean_width"] = out.loc[mc, "exact_mean_width"].fillna(out.loc[mc, "_exact_w"])
    return out.drop(columns=["_exact_cov", "_exact_w"])


def read_study(folder) -> dict:
    """<folder>/study.yaml as a dict (empty when absent)."""
    import yaml

    path = Path(folder) / "study.yaml"
    if not path.is_file():
        return {}
    return yaml.safe_load(path.read_text()) or {}


def compact_config(study: dict) -> dict:
    """study.yaml for reading: long grid axes as "count values: first, second, …, last", and
    method entries without parameters or a custom label as bare names."""
    out = dict(study)
    grid = dict(out.get("grid") or {})
    for axis, values in grid.items():
        if isinstance(values, list) and len(values) > 6:
            grid[axis] = f"{len(values)} values: {values[0]}, {values[1]}, …, {values[-1]}"
    if grid:
        out["grid"] = grid
    methods = out.get("methods")
    if isinstance(methods, list):
        out["methods"] = [m["name"] if isinstance(m, dict) and set(m) <= {"name", "label"}
                          and m.get("label", m["name"]) == m["name"] else m for m in methods]
    return out


def summary_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per label × delta × side × engine (× design): cells, mean/min coverage, fraction below
    nominal (rule in the module docstring), mean |coverage − (1 − delta)| and mean width.

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
    balanced = "design" in df and (df["design"].dropna() != "binomial").any()
    keys = list(GROUP) + (["design"] if balanced else [])
    if "metric" in df and df["metric"].notna().all():  # confusion-matrix studies: per metric
        keys.append("metric")
    if "design" in keys:
        df["design"] = df["design"].fillna("").astype(str)
    out = df.groupby(keys, sort=False).agg(
        cells=("coverage", "size"), mean_coverage=("coverage", "mean"), min_coverage=("coverage", "min"),
        below_nominal=("_below", "mean"), mean_abs_error=("_abs", "mean"), mean_width=("mean_width", "mean"),
    ).reset_index()
    return out.iloc[_registry_order(out)].reset_index(drop=True)


def method_rank(method: str) -> int:
    """Position of ``method`` in registry order (proportion, balanced-accuracy, F1 methods); unknown last."""
    from .methods import methods

    names = list(methods(None))
    return names.index(method) if method in names else len(names)


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
    key = pd.DataFrame({"r": out["method"].map(method_rank), "m": out["method"],
                        "l": out["label"], "d": out["delta"], "s": out["side"]})
    return key.sort_values(list(key.columns), kind="stable").index.to_numpy()


# --------------------------------------------------------------------------- formatting

def _cell(col: str, value) -> str:
    if col in ("mean_coverage", "min_coverage", "mean_width"):
        return f"{value:.4f}"
    if col == "mean_abs_error":
        return f"{value:.4f}"
    if col == "below_nominal":
        return f"{100 * value:.1f}%"
    if col == "delta":
        return f"{value:g}"
    return str(value)


def text_table(table: pd.DataFrame) -> str:
    """The summary as a fixed-width table for the terminal."""
    cols = _columns(table)
    shown = pd.DataFrame({COLUMNS[c][0].replace("\\", ""): [_cell(c, v) for v in table[c]] for c in cols})
    return shown.to_string(index=False)


def _numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column)


def _columns(table: pd.DataFrame) -> list[str]:
    return [c for c in COLUMNS if c in table]


def markdown_table(table: pd.DataFrame) -> str:
    cols = _columns(table)
    head = "| " + " | ".join(COLUMNS[c][0] for c in cols) + " |"
    align = "|" + "|".join("--:" if _numeric(table[c]) else ":--" for c in cols) + "|"
    rows = ["| " + " | ".join(_cell(c, r[c]).replace("|", "\\|") for c in cols) + " |"
            for _, r in table.iterrows()]
    return "\n".join([head, align, *rows])


_TEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex_escape(text) -> str:
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in str(text))


def latex_table(table: pd.DataFrame, caption: str, label: str) -> str:
    """A booktabs table; delta/side/engine/design columns that are constant go into the caption."""
    cols = _columns(table)
    constant = [c for c in ("delta", "side", "engine", "design", "metric") if c in cols and table[c].nunique() == 1]
    cols = [c for c in cols if c not in constant]
    if constant:
        fixed = ", ".join(rf"$\delta = {_cell(c, table[c].iloc[0])}$" if c == "delta"
                          else f"{c} = {tex_escape(table[c].iloc[0])}" for c in constant)
        caption = f"{caption} ({fixed})."
    spec = "".join("r" if _numeric(table[c]) else "l" for c in cols)
    lines = [r"\begin{table}[htbp]", r"\centering", r"\small",
             rf"\caption{{{caption}}}", rf"\label{{{label}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(COLUMNS[c][1] for c in cols) + r" \\", r"\midrule"]
    for _, r in table.iterrows():
        lines.append(" & ".join(tex_escape(_cell(c, r[c])) for c in cols) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- the report

def _figures(folder: Path) -> list[tuple[str, str]]:
    """(relative png path, caption) of the figures to embed: figures/index.csv, else every PNG."""
    index = folder / "figures" / "index.csv"
    if index.is_file():
        rows = pd.read_csv(index, keep_default_na=False)
        return [(f, c) for f, c in zip(rows["file"], rows["caption"]) if (folder / f).is_file()]
    return [(f"figures/{p.name}", p.stem.replace("_", " ")) for p in sorted((folder / "figures").glob("*.png"))]


def write_report(folder) -> tuple[Path, Path]:
    """Write <folder>/report.md and <folder>/report.tex; return their paths."""
    import yaml

    folder = Path(folder)
    df = read_results(folder)
    study = read_study(folder)
    table = summary_table(df)
    name = study.get("name")
    title = f"Coverage study: {name}" if name else f"Coverage study: {folder.name}"
    md = [f"# {title}", ""]
    if study.get("question"):
        md += ["## Question", "", str(study["question"]).strip(), ""]
    md += ["## Configuration", ""]
    if study:
        md += ["```yaml", yaml.safe_dump(compact_config(study), sort_keys=False, width=100, allow_unicode=True).rstrip(), "```",
               "", "(Long axes abbreviated; `study.yaml` beside this report lists every value.)", ""]
    else:
        md += ["No study.yaml beside results.csv.", ""]
    md += [f"The table holds {len(df)} cells: methods {', '.join(dict.fromkeys(table['label']))}; "
           f"engines {', '.join(sorted(df['engine'].unique()))}.", ""]
    md += ["## Summary per method", "", markdown_table(table), "", BELOW_RULE + " Nominal is 1 − δ for every side.",
           "Mean |cov − (1−δ)| is the mean absolute distance of coverage from nominal; "
           "mean width is the expected interval width averaged over the cells.", ""]
    ranks = ranking(table)
    if len(ranks) >= 3:
        md += ["## Ranking", "",
               "Per δ, side and engine: methods ordered by mean |coverage − (1 − δ)| (closest to nominal "
               "first), with their rank by mean width (1 = narrowest) and their worst coverage over the grid.", "",
               "| δ | side | engine | rank | method | mean \\|cov − (1−δ)\\| | width rank | mean width | "
               "min coverage |", "|--:|:--|:--|--:|:--|--:|--:|--:|--:|"]
        md += [f"| {r.delta:g} | {r.side} | {r.engine} | {r.closeness_rank} | {r.label} | {r.mean_abs_error:.4f} | "
               f"{r.width_rank} | {r.mean_width:.4f} | {r.min_coverage:.4f} |" for r in ranks.itertuples()]
        md += [""]
    agreement = mc_agreement(df)
    if not agreement.empty:
        md += ["## Monte Carlo against exact", "",
               "z = (MC coverage − exact coverage) / √(C(1 − C)/reps) per cell, C the exact coverage; if the "
               "Monte Carlo engine is right, z is close to N(0, 1): mean 0, sd 1, 4.6% beyond ±2.", "",
               "| method | δ | side | cells | mean z | sd z | \\|z\\| > 2 | max \\|z\\| |",
               "|:--|--:|:--|--:|--:|--:|--:|--:|"]
        md += [f"| {r.label} | {r.delta:g} | {r.side} | {r.cells} | {r.mean_z:+.3f} | {r.sd_z:.3f} | "
               f"{100 * r.beyond_2:.1f}% | {r.max_abs_z:.2f} |" for r in agreement.itertuples()]
        md += [""]
    figures = _figures(folder)
    if figures:
        md += ["## Figures", ""]
        for rel, caption in figures:
            pdf = Path(rel).with_suffix(".pdf").as_posix()
            md += [f"![{caption}]({rel})", "", f"*{caption}* ([PDF]({pdf}))", ""]
    md += ["## How to rerun", "", "```bash"]
    if name:
        out = study.get("out")
        md.append(f"covstudy study={name}" + (f" out={out}" if out else ""))
    else:
        md.append("covstudy study=<name>   # no study.yaml found; use the study that produced this folder")
    md += [f"covstudy-plot {folder}   # redraw the figures and this report", "```", "",
           "The LaTeX version of the summary table is in `report.tex` (booktabs; `\\input{report.tex}`).", ""]
    md_path = folder / "report.md"
    md_path.write_text("\n".join(md))

    caption = (f"Coverage summary{' of study ' + tex_escape(name) if name else ''}: mean and minimum coverage, "
               "fraction of grid cells below nominal, mean absolute deviation from nominal and mean width")
    label = "tab:covstudy-" + "".join(ch if ch.isalnum() else "-" for ch in str(name or folder.name))
    tex_path = folder / "report.tex"
    tex_path.write_text("% Generated by covstudy; needs \\usepackage{booktabs}.\n"
                        "% Below nominal: exact coverage < 1-delta; Monte Carlo coverage + 2 MCSE < 1-delta.\n"
                        + latex_table(table, caption, label))
    return md_path, tex_path
