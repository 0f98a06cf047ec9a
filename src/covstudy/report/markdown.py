"""The report of a coverage study: its summary rendered as Markdown (report.md) and LaTeX (report.tex).

The numbers come from ``covstudy.study.summary``; this module only formats them. ``write_report``
assembles report.md from one function per section.

In the report wing: ``report.explorer`` (report.html) reuses its columns and study-folder readers;
it imports ``study.summary`` and ``study.config`` (RUN_KEYS) below it, nothing of the report wing.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..study.summary import exclusion_table, mc_agreement, ranking, read_results, summary_table, with_exact_infimum


def _fixed(spec: str):
    return spec.format


def _percent(value) -> str:
    return f"{100 * value:.1f}%"


# column -> (Markdown header, cell format); the first thirteen are the summary table's, in order
COLUMNS = {
    "label": ("method", str),
    "delta": ("δ", _fixed("{:g}")),
    "side": ("side", str),
    "engine": ("engine", str),
    "design": ("design", str),
    "metric": ("metric", str),
    "cells": ("cells", str),
    "mean_coverage": ("mean coverage", _fixed("{:.4f}")),
    "min_coverage": ("min coverage (grid)", _fixed("{:.4f}")),
    "exact_min_coverage": ("min coverage (exact inf over p)", _fixed("{:.4f}")),
    "below_nominal": ("below nominal", _percent),
    "mean_abs_error": ("mean \\|cov − (1−δ)\\|", _fixed("{:.4f}")),
    "mean_width": ("mean width", _fixed("{:.4f}")),
    "closeness_rank": ("rank", str),
    "width_rank": ("width rank", str),
    "mean_z": ("mean z", _fixed("{:+.3f}")),
    "sd_z": ("sd z", _fixed("{:.3f}")),
    "beyond_2": ("\\|z\\| > 2", _percent),
    "max_abs_z": ("max \\|z\\|", _fixed("{:.2f}")),
    "null_cells": ("cells at 0", str),
    "null_rate": ("mean P(excl. 0) at 0", _fixed("{:.4f}")),
    "max_null_rate": ("max at 0", _fixed("{:.4f}")),
    "above_delta": ("above δ", _percent),
    "power": ("mean P(excl. 0) elsewhere", _fixed("{:.4f}")),
}
TEX_HEADERS = {
    "label": "Method", "delta": r"$\delta$", "side": "Side", "engine": "Engine", "design": "Design",
    "metric": "Metric", "cells": "Cells", "mean_coverage": "Mean cov.", "min_coverage": "Min cov. (grid)",
    "exact_min_coverage": "Min cov. (exact inf)",
    "below_nominal": "Below nom.", "mean_abs_error": r"Mean $|C - (1-\delta)|$", "mean_width": "Mean width",
}
SUMMARY_COLUMNS = tuple(TEX_HEADERS)
RANKING_COLUMNS = ("delta", "side", "engine", "closeness_rank", "label", "mean_abs_error", "width_rank",
                   "mean_width", "min_coverage")
EXCLUSION_COLUMNS = ("label", "delta", "side", "engine", "design", "null_cells", "null_rate", "max_null_rate",
                     "above_delta", "power")
AGREEMENT_COLUMNS = ("label", "delta", "side", "cells", "mean_z", "sd_z", "beyond_2", "max_abs_z")
BELOW_RULE = ("A cell is *below nominal* when its coverage < 1 − δ (exact engine) or when "
              "coverage + 2·MCSE < 1 − δ (Monte Carlo engine: short of nominal by more than two "
              "Monte Carlo standard errors).")


# --------------------------------------------------------------------------- tables

def _cells(table: pd.DataFrame, col: str) -> list[str]:
    """The column's values as text (column-wise, so integers stay integers)."""
    return [COLUMNS[col][1](v) for v in table[col]]


def _present(table: pd.DataFrame, columns=SUMMARY_COLUMNS) -> list[str]:
    return [c for c in columns if c in table]


def text_table(table: pd.DataFrame) -> str:
    """The summary as a fixed-width table for the terminal."""
    shown = pd.DataFrame({COLUMNS[c][0].replace("\\", ""): _cells(table, c) for c in _present(table)})
    return shown.to_string(index=False)


def markdown_table(table: pd.DataFrame, columns=SUMMARY_COLUMNS) -> str:
    """A Markdown table of ``columns`` (those present): numbers right-aligned, text left-aligned."""
    cols = _present(table, columns)
    head = "| " + " | ".join(COLUMNS[c][0] for c in cols) + " |"
    align = "|" + "|".join("--:" if pd.api.types.is_numeric_dtype(table[c]) else ":--" for c in cols) + "|"
    body = zip(*(_cells(table, c) for c in cols))
    rows = ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in body]
    return "\n".join([head, align, *rows])


_TEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "–": "--"}


def tex_escape(text) -> str:
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in str(text))


def latex_table(table: pd.DataFrame, caption: str, label: str) -> str:
    """A booktabs table; delta/side/engine/design columns that are constant go into the caption."""
    cols = _present(table)
    constant = [c for c in ("delta", "side", "engine", "design", "metric") if c in cols and table[c].nunique() == 1]
    cols = [c for c in cols if c not in constant]
    if constant:
        fixed = ", ".join(rf"$\delta = {_cells(table, c)[0]}$" if c == "delta"
                          else f"{c} = {tex_escape(table[c].iloc[0])}" for c in constant)
        caption = f"{caption} ({fixed})."
    spec = "".join("r" if pd.api.types.is_numeric_dtype(table[c]) else "l" for c in cols)
    lines = [r"\begin{table}[htbp]", r"\centering", r"\small",
             rf"\caption{{{caption}}}", rf"\label{{{label}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(TEX_HEADERS[c] for c in cols) + r" \\", r"\midrule"]
    lines += [" & ".join(tex_escape(cell) for cell in row) + r" \\" for row in zip(*(_cells(table, c) for c in cols))]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- the report

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


def _figures(folder: Path) -> list[tuple[str, str]]:
    """(relative png path, caption) of the figures to embed: figures/index.csv, else every PNG."""
    index = folder / "figures" / "index.csv"
    if index.is_file():
        rows = pd.read_csv(index, keep_default_na=False)
        return [(f, c) for f, c in zip(rows["file"], rows["caption"]) if (folder / f).is_file()]
    return [(f"figures/{p.name}", p.stem.replace("_", " ")) for p in sorted((folder / "figures").glob("*.png"))]


def read_overrides(folder) -> list[str] | None:
    """The command-line overrides of the run that wrote <folder> (provenance.json), or None."""
    import json

    try:
        overrides = json.loads((Path(folder) / "provenance.json").read_text()).get("overrides")
    except (OSError, ValueError, AttributeError):
        return None
    return [str(o) for o in overrides] if isinstance(overrides, list) else None


def _changes(overrides: list[str] | None) -> list[str]:
    """Overrides that change what is computed (not study=, out= or how it runs)."""
    from ..study.config import RUN_KEYS

    return [o for o in overrides or [] if o.split("=")[0].lstrip("+~") not in ("study", "out", *RUN_KEYS)]


def _question(study: dict, overrides: list[str] | None) -> list[str]:
    if not study.get("question") or any(o.startswith("question=") for o in overrides or []):
        return ["## Question", "", str(study["question"]).strip(), ""] if study.get("question") else []
    if _changes(overrides):  # the question came with a study this run changed: it may not fit
        return []
    return ["## Question", "", str(study["question"]).strip(), ""]


def _configuration(study: dict) -> list[str]:
    import yaml

    if not study:
        return ["## Configuration", "", "No study.yaml beside results.csv.", ""]
    config = yaml.safe_dump(compact_config(study), sort_keys=False, width=100, allow_unicode=True).rstrip()
    return ["## Configuration", "", "```yaml", config, "```", "",
            "(Long axes abbreviated; `study.yaml` beside this report lists every value.)", ""]


def _summary(df: pd.DataFrame, table: pd.DataFrame) -> list[str]:
    cells = (f"The table holds {len(df)} cells: methods {', '.join(dict.fromkeys(table['label']))}; "
             f"engines {', '.join(sorted(df['engine'].unique()))}.")
    means = ("Mean |cov − (1−δ)| is the mean absolute distance of coverage from nominal; "
             "mean width is the expected interval width averaged over the cells. Min coverage (grid) is the "
             "smallest over the grid's cells; the exact infimum over p, lower where a dip next to an interval "
             "end falls between grid points, is the column 'exact inf over p' of a study run with "
             "exact_curve=true.")
    return [cells, "", "## Summary per method", "", markdown_table(table), "",
            BELOW_RULE + " Nominal is 1 − δ for every side.", means, ""]


def _ranking(table: pd.DataFrame) -> list[str]:
    ranks = ranking(table)
    if len(ranks) < 3:
        return []
    intro = ("Per δ, side and engine: methods ordered by mean |coverage − (1 − δ)| (closest to nominal "
             "first), with their rank by mean width (1 = narrowest) and their worst coverage over the grid.")
    return ["## Ranking", "", intro, "", markdown_table(ranks, RANKING_COLUMNS), ""]


def _agreement(df: pd.DataFrame) -> list[str]:
    agreement = mc_agreement(df)
    if agreement.empty:
        return []
    intro = ("z = (MC coverage − exact coverage) / √(C(1 − C)/reps) per cell, C the exact coverage; if the "
             "Monte Carlo engine is right, z is close to N(0, 1): mean 0, sd 1, 4.6% beyond ±2.")
    return ["## Monte Carlo against exact", "", intro, "", markdown_table(agreement, AGREEMENT_COLUMNS), ""]


def _exclusion(df: pd.DataFrame) -> list[str]:
    table = exclusion_table(df)
    if table.empty:
        return []
    intro = ("How often the interval for the difference excludes 0. At a true difference of 0 this is the "
             "rate of a false \"A is better/worse\" (nominal δ; *above δ*: exact rate > δ, or Monte Carlo "
             "rate − 2·MCSE > δ); elsewhere it is the power to tell the two apart (higher is better, at "
             "equal coverage).")
    return ["## Excluding 0", "", intro, "", markdown_table(table, EXCLUSION_COLUMNS), ""]


def _figure_section(folder: Path) -> list[str]:
    figures = _figures(folder)
    lines = ["## Figures", ""] if figures else []
    for rel, caption in figures:
        pdf = Path(rel).with_suffix(".pdf").as_posix()
        lines += [f"![{caption}]({rel})", "", f"*{caption}* ([PDF]({pdf}))", ""]
    return lines


def rerun_command(study: dict, overrides: list[str] | None) -> str:
    """The command that recomputes this table: ``covstudy`` with the run's own overrides
    (without the run-time keys, which do not change a number)."""
    import shlex

    from ..study.config import RUN_KEYS

    if overrides is not None:
        words = [o for o in overrides if o.split("=")[0].lstrip("+~") not in RUN_KEYS]
        if study.get("out") and not any(o.startswith("out=") for o in words):
            words.append(f"out={study['out']}")
        return " ".join(["covstudy", *(shlex.quote(w) for w in words)])
    name, out = study.get("name"), study.get("out")
    if name:
        return (f"covstudy study={name}" + (f" out={out}" if out else "")
                + "   # no provenance.json: assumes conf/study/" + f"{name}.yaml made this folder")
    return "covstudy study=<name>   # no study.yaml found; use the study that produced this folder"


def _rerun(study: dict, folder: Path, overrides: list[str] | None) -> list[str]:
    command = rerun_command(study, overrides)
    return ["## How to rerun", "", "```bash", command,
            f"covstudy-plot {folder}   # redraw the figures and this report", "```", "",
            "The LaTeX version of the summary table is in `report.tex` (booktabs; `\\input{report.tex}`).", ""]


def _tex(table: pd.DataFrame, name, folder: Path) -> str:
    caption = (f"Coverage summary{' of study ' + tex_escape(name) if name else ''}: mean and minimum coverage, "
               "fraction of grid cells below nominal, mean absolute deviation from nominal and mean width")
    label = "tab:covstudy-" + "".join(ch if ch.isalnum() else "-" for ch in str(name or folder.name))
    return ("% Generated by covstudy; needs \\usepackage{booktabs}.\n"
            "% Below nominal: exact coverage < 1-delta; Monte Carlo coverage + 2 MCSE < 1-delta.\n"
            + latex_table(table, caption, label))


def write_report(folder) -> tuple[Path, Path]:
    """Write <folder>/report.md and <folder>/report.tex; return their paths."""
    from .references import markdown_lines, study_cited

    folder = Path(folder)
    df = read_results(folder)
    study = read_study(folder)
    table = with_exact_infimum(summary_table(df), folder)
    name = study.get("name")
    overrides = read_overrides(folder)
    md = [f"# Coverage study: {name or folder.name}", "", *_question(study, overrides), *_configuration(study),
          *_summary(df, table), *_ranking(table), *_exclusion(df), *_agreement(df),
          *_figure_section(folder), *_rerun(study, folder, overrides), *markdown_lines(study_cited(df))]
    md_path, tex_path = folder / "report.md", folder / "report.tex"
    md_path.write_text("\n".join(md))
    tex_path.write_text(_tex(table, name, folder))
    return md_path, tex_path
