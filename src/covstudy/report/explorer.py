"""The interactive results explorer: <folder>/report.html per study and an index over a results folder.

``write_html(folder)`` writes one self-contained page (no network, no server: the script, the
style and the data are inside it) with the summary table (click a header to sort), an
interactive figure of any measure (coverage, the miss tails, width, the rate of excluding 0)
against any grid axis, with a selector for every other axis and a check box per method,
±2·MCSE bands for Monte Carlo rows, the nominal line and values on hover, and links to the
static figures (PNG, PDF), the report and the table. ``write_index(results)`` lists every study
folder under ``results`` (name, question, design, cells, date, links). ``write_band_html(study)``
writes a band study's page (covstudy.bands.study) from its two tables with the same script;
``report.evaluation_page`` the page of a ``covstudy.evaluate`` result, with the same script too.

In the report wing data flow down: the band study and ``Evaluation.save`` call this module with
their results (duck-typed: the study's ``out``, ``name``, ``question``, ``reps``, ``delta``; the
evaluation's ``table``, ``info``, ``recommended`` ...), so it imports neither wing; it reads a
study folder through ``report.markdown`` and ``study.summary``, and takes the figures' colours
from ``plots.style``.

The drawing is 33 kB of plain JavaScript and SVG of our own (``explorer.js``) rather than a
plotting library: plotly's offline page embeds 4.8 MB of script, Vega-Lite's about 1 MB, and
this page needs lines, bands, points, cells and a tooltip only
(docs/explorer.md). The data go in as little-endian float32
columns (base64) and small integer codes into each axis's values, so the largest committed
study (19,502 cells) is a page of about half a megabyte. The same table gives the same bytes.
"""

from __future__ import annotations

import base64
import html
import json
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .markdown import COLUMNS, SUMMARY_COLUMNS, _figures, read_overrides, read_study, rerun_command
from ..study.summary import HOW, read_results, summary_table, with_exact_infimum

# measure column -> (name in the selector, its MCSE column or "binomial": sqrt(m(1 - m)/reps))
MEASURES = {
    "coverage": ("coverage", "mcse"),
    "miss_low": ("miss below: P(truth < lower)", "binomial"),
    "miss_high": ("miss above: P(truth > upper)", "binomial"),
    "mean_width": ("expected width", None),
    "excludes_zero": ("P(interval excludes 0)", "excludes_zero_mcse"),
}
EXTRA = ("mcse", "excludes_zero_mcse", "exact_coverage", "exact_mean_width", "reps")
CATEGORIES = ("delta", "side", "engine", "design", "metric")  # combinations, as the figures split them
NOT_AXES = {"method", "label", "params", "truth", "n_valid", *HOW}


def _asset(name: str) -> str:
    return resources.files("covstudy.report").joinpath(name).read_text(encoding="utf-8")


def _number(value):
    """A JSON number to 12 significant digits, integral floats as integers."""
    value = float(f"{float(value):.12g}")  # 0.56, not 0.5599999999999999 (a sum of rates)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def _codes(values: pd.Series, levels: list) -> dict:
    """Each row's index into ``levels`` as little-endian uint8 or uint16, base64 (none when all are 0)."""
    index = {v: i for i, v in enumerate(levels)}
    codes = np.array([index[v] for v in values], dtype="<u1" if len(levels) < 256 else "<u2")
    if not codes.any():  # one value: nothing to store per row
        return {"bytes": 0}
    return {"bytes": codes.itemsize, "codes": _b64(codes)}


def axes_of(df: pd.DataFrame) -> list[str]:
    """The grid columns a reader can choose values of: the study's axes, then delta, side, engine, design, metric."""
    from ..engine.measures import RESULT_COLUMNS

    skip = NOT_AXES | set(RESULT_COLUMNS) | set(CATEGORIES) | set(EXTRA)
    axes = [c for c in df if c not in skip and df[c].notna().any()]
    return axes + [c for c in CATEGORIES if c in df and df[c].notna().any()]


def encode(df: pd.DataFrame, measures: dict = MEASURES, extra=EXTRA, axes=None, colors=None) -> dict:
    """The table as the page reads it: per axis its sorted values and each row's code; per
    measure a float32 column (a constant when every row has one value, absent when none has any).
    ``measures``: column -> (name in the selector, its MCSE column or "binomial"); ``extra``: further
    columns the page reads; ``axes``: the grid columns (default ``axes_of``); ``colors``: label -> colour
    (default the figures' method colours)."""
    from ..plots import method_colors, method_order

    order = method_order(df)
    colors = colors or method_colors(df)
    data = {"rows": len(df), "methods": [{"label": lab, "color": colors[lab]} for lab in order],
            "method": _codes(df["label"], order), "axes": [], "measures": {}}
    for col in axes_of(df) if axes is None else axes:
        values = df[col]
        if pd.api.types.is_numeric_dtype(values):
            levels = sorted(float(v) for v in values.dropna().unique())
            keys = [None if np.isnan(v) else float(v) for v in values.astype(float)]
            data["axes"].append({"name": col, "numeric": True, "values": [_number(v) for v in levels],
                                 **_codes(keys, levels + [None])})
        else:
            levels = list(dict.fromkeys(values.fillna("").astype(str)))
            data["axes"].append({"name": col, "numeric": False, "values": levels,
                                 **_codes(values.fillna("").astype(str), levels)})
    for col in [*measures, *extra]:
        if col not in df or df[col].isna().all():
            continue
        column = df[col].astype(float).to_numpy()
        finite = column[~np.isnan(column)]
        if len(finite) == len(column) and (finite == finite[0]).all():
            data["measures"][col] = {"const": _number(finite[0])}
        else:
            data["measures"][col] = {"f32": _b64(column.astype("<f4"))}
    data["names"] = {m: measures[m][0] for m in measures if m in data["measures"]}
    data["mcse"] = {m: measures[m][1] for m in measures if m in data["measures"] and measures[m][1]}
    return data


def decode(data: dict):
    """The table ``encode`` wrote (float32 measures), as the page reads it (a band page: key -> table): for tests."""
    if "tables" in data:  # a band study's page: one table per view
        return {t["key"]: decode(t) for t in data["tables"]}

    def codes(entry):
        if not entry["bytes"]:
            return np.zeros(data["rows"], dtype=int)
        return np.frombuffer(base64.b64decode(entry["codes"]), dtype="<u1" if entry["bytes"] == 1 else "<u2")

    out = {"label": [data["methods"][i]["label"] for i in codes(data["method"])]}
    for axis in data["axes"]:
        values = axis["values"] + ([None] if axis["numeric"] else [])
        out[axis["name"]] = [values[i] for i in codes(axis)]
    for name, entry in data["measures"].items():
        out[name] = (np.full(data["rows"], entry["const"], dtype=float) if "const" in entry
                     else np.frombuffer(base64.b64decode(entry["f32"]), dtype="<f4").astype(float))
    return pd.DataFrame(out)


# --------------------------------------------------------------------------- the page

def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _summary_html(table: pd.DataFrame) -> str:
    cols = [c for c in SUMMARY_COLUMNS if c in table]
    head = "".join(f'<th data-type="{"num" if pd.api.types.is_numeric_dtype(table[c]) else "text"}">'
                   f'{_e(COLUMNS[c][0].replace(chr(92), ""))}</th>' for c in cols)
    rows = []
    for _, row in table.iterrows():
        cells = []
        for c in cols:
            value = row[c]
            shown = "" if pd.isna(value) else COLUMNS[c][1](value)
            numeric = pd.api.types.is_numeric_dtype(table[c]) and pd.notna(value)
            sort = f' data-v="{_number(value)!r}"' if numeric else ""
            cells.append(f"<td{sort}>{_e(shown)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="sortable" id="summary"><thead><tr>{head}</tr></thead>'
            f'<tbody>\n{chr(10).join(rows)}\n</tbody></table>')


def _figure_links(folder: Path) -> str:
    items = []
    for rel, caption in _figures(folder):
        pdf = Path(rel).with_suffix(".pdf").as_posix()
        pdf_link = f' · <a href="{_e(pdf)}">PDF</a>' if (folder / pdf).is_file() else ""
        items.append(f'<li><a href="{_e(rel)}">{_e(caption)}</a> (<a href="{_e(rel)}">PNG</a>{pdf_link})</li>')
    if not items:
        return "<p>No figures yet: run <code>covstudy-plot</code>.</p>"
    return "<ol class=\"figures\">\n" + "\n".join(items) + "\n</ol>"


def _png_links(folder: Path) -> str:
    """Every PNG in <folder>/figures, with its PDF where there is one."""
    items = []
    for png in sorted((folder / "figures").glob("*.png")) if (folder / "figures").is_dir() else []:
        rel = f"figures/{png.name}"
        pdf = f' · <a href="{_e(rel[:-4])}.pdf">PDF</a>' if png.with_suffix(".pdf").is_file() else ""
        items.append(f'<li><a href="{_e(rel)}">{_e(png.stem.replace("_", " "))}</a> (PNG{pdf})</li>')
    if not items:
        return "<p>No figures: run the study with <code>plot=true</code>.</p>"
    return "<ol class=\"figures\">\n" + "\n".join(items) + "\n</ol>"


def _links(folder: Path, pairs) -> str:
    return " · ".join(f'<a href="{_e(f)}">{_e(text)}</a>' for f, text in pairs if (folder / f).exists())


def page(title: str, body: str, script: str = "") -> str:
    css = _asset("explorer.css")
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(title)}</title>\n<style>\n{css}</style>\n</head>\n<body>\n{body}\n"
            f"<script>\n{_asset('explorer.js')}</script>\n{script}</body>\n</html>\n")


def write_html(folder) -> Path:
    """Write <folder>/report.html from its results table (and study.yaml, figures/index.csv); return its path."""
    from .references import html_section, study_cited

    folder = Path(folder)
    df = read_results(folder)
    study = read_study(folder)
    name = study.get("name") or folder.name
    table = with_exact_infimum(summary_table(df), folder)
    data = json.dumps(encode(df), separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
    question = f'<p class="question">{_e(str(study["question"]).strip())}</p>' if study.get("question") else ""
    links = _links(folder, [("report.md", "report (Markdown)"), ("report.tex", "summary (LaTeX)"),
                            ("study.yaml", "study.yaml")])
    # A run writes both tables (Parquet with pyarrow), a committed study keeps results.parquet only:
    # link that one, so a committed page is the bytes of a rerun and links nothing absent. No link to
    # results/index.html either: it is not committed (it carries each run's date).
    table_file = "results.parquet" if (folder / "results.parquet").is_file() else "results.csv"
    links += (f' · the table: <a href="{table_file}">{table_file}</a>'
              ' or <button type="button" id="download-all">download it from this page (CSV)</button>')
    rerun = rerun_command(study, read_overrides(folder))
    replot = f"results/{folder.name}" if folder.parent.name == "results" else folder
    body = f"""<header><h1>Coverage study: {_e(name)}</h1>
{question}
<p class="links">{links}</p></header>
<section id="explore"><h2>Explore</h2>
<noscript><p>The interactive figure needs JavaScript; the static figures are linked below.</p></noscript>
<div id="controls"></div>
<div id="chart-box"><svg id="chart" role="img" aria-label="interactive figure"></svg><div id="tip" hidden></div></div>
<p id="status"></p>
<p><button type="button" id="download-shown">Download the drawn values (CSV)</button></p>
</section>
<section><h2>Summary per method</h2>
<p>Click a column header to sort. {_e(len(df))} cells.
<button type="button" id="download-summary">Download this table (CSV)</button></p>
{_summary_html(table)}
<p class="note">Below nominal: coverage &lt; 1 − δ (exact), or coverage + 2·MCSE &lt; 1 − δ (Monte Carlo).</p>
</section>
<section><h2>Figures</h2>
{_figure_links(folder)}
</section>
<section><h2>How to rerun</h2>
<pre>{_e(rerun)}
covstudy-plot {_e(replot)}   # figures, report.md, report.html</pre>
</section>
{html_section(study_cited(df))}"""
    script = (f'<script type="application/json" id="covstudy-data">{data}</script>\n'
              "<script>covstudyExplorer.start();</script>\n")
    path = folder / "report.html"
    path.write_text(page(f"covstudy: {name}", body, script), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- band studies

# A band study (bands/coverage.py) has two tables: pointwise coverage at each grid value of the curve, and
# one row per method and point (whole-curve containment, band area). The page draws either.
BAND_POINTWISE = {"coverage": ("pointwise coverage", "mcse"),
                  "miss_low": ("miss below: P(true curve < lower)", "binomial"),
                  "miss_high": ("miss above: P(true curve > upper)", "binomial"),
                  "truth": ("the true curve", None)}
BAND_WHOLE = {"containment": ("whole-curve containment", "containment_mcse"),
              "mean_area": ("mean band area", None),
              "mean_pointwise": ("mean pointwise coverage", None),
              "min_pointwise": ("least pointwise coverage", None)}
BAND_AXES = ("curve", "n_pos", "n_neg", "auc", "sd_ratio", "levels", "delta")
BAND_SUMMARY = {"mean containment": ("containment", "mean"), "worst containment": ("containment", "min"),
                "mean pointwise coverage": ("mean_pointwise", "mean"),
                "worst pointwise coverage": ("min_pointwise", "min"), "mean band area": ("mean_area", "mean")}


def band_data(table: pd.DataFrame, pointwise: pd.DataFrame) -> dict:
    """The band page's data: the pointwise table (against FPR or recall) and the per-point table
    (against n and the other axes), the methods coloured as in the band figures."""
    from matplotlib.colors import to_hex

    from ..plots.style import band_colours

    names = list(dict.fromkeys([*table.loc[table.curve == "roc", "method"], *table["method"]]))  # as the figures
    colors = {k: to_hex(v) for k, v in band_colours(names).items()}
    axes = [a for a in BAND_AXES if a in table]
    labels = {"at": {"by": "curve", "roc": "FPR", "pr": "recall"}}
    if (table["n_neg"] == table["n_pos"]).all():  # n per class: one axis
        axes.remove("n_neg")
        labels["n_pos"] = "n per class"
    return {"tables": [
        {"key": "pointwise", "title": "pointwise coverage along the curve", "labels": labels,
         **encode(pointwise.assign(label=pointwise["method"]), BAND_POINTWISE, ("mcse", "reps"), [*axes, "at"], colors)},
        {"key": "whole", "title": "whole curve: containment, band area", "labels": labels,
         "level": ["containment", "mean_pointwise", "min_pointwise"],
         **encode(table.assign(label=table["method"]), BAND_WHOLE, ("containment_mcse", "reps"), axes, colors)}]}


def band_page(study, table: pd.DataFrame, pointwise: pd.DataFrame, refs=()) -> str:
    """The report.html of a band study (``bands.coverage.BandStudy``): the figure of either table with a
    selector per axis and a check box per method, ±2·MCSE bands and the nominal 1 − δ, values on
    hover; the sortable summary per curve and method (as report.md); links to the figures; the references
    of its methods (``refs``: report/references.py ``kind_cited``)."""
    from .references import html_section

    folder = Path(study.out)
    data = json.dumps(band_data(table, pointwise), separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
    summary = table.groupby(["curve", "method"], sort=False).agg(
        display=("display", "first"), **BAND_SUMMARY).reset_index()
    links = _links(folder, [("report.md", "report (Markdown)")])
    links += (' · the tables: <a href="bands.parquet">bands.parquet</a>, <a href="bands_pointwise.parquet">'
              'bands_pointwise.parquet</a> or <button type="button" id="download-all">download the drawn table '
              '(CSV)</button>')
    question = f'<p class="question">{_e(study.question.strip())}</p>' if study.question.strip() else ""
    body = f"""<header><h1>Band study: {_e(study.name)}</h1>
{question}
<p class="links">{links}</p></header>
<section id="explore"><h2>Explore</h2>
<noscript><p>The interactive figure needs JavaScript; the static figures are linked below.</p></noscript>
<div id="controls"></div>
<div id="chart-box"><svg id="chart" role="img" aria-label="interactive figure"></svg><div id="tip" hidden></div></div>
<p id="status"></p>
<p><button type="button" id="download-shown">Download the drawn values (CSV)</button></p>
<p class="note">{_e(study.reps)} test sets per point. Pointwise coverage: the share of test sets whose band
holds the true curve at that FPR (ROC) or recall (PR); containment: at every grid value at once;
band area: ∫(upper − lower) over the grid. Nominal: 1 − δ = {_e(f"{1 - study.delta:g}")}.</p>
</section>
<section><h2>Summary per curve and method</h2>
<p>Over the study's {_e(len(table) // max(1, table.groupby(["curve", "method"]).ngroups))} points. Click a
column header to sort. <button type="button" id="download-summary">Download this table (CSV)</button></p>
{_table_html(summary, list(summary.columns), "summary")}
</section>
<section><h2>Figures</h2>
{_png_links(folder)}
</section>
<section><h2>How to rerun</h2>
<pre>covstudy study={_e(study.name)}   # tables, figures, report.md, report.html</pre>
</section>
{html_section(refs)}"""
    script = (f'<script type="application/json" id="covstudy-data">{data}</script>\n'
              "<script>covstudyExplorer.start();</script>\n")
    return page(f"covstudy: {study.name}", body, script)


def write_band_html(study, table: pd.DataFrame | None = None, pointwise: pd.DataFrame | None = None,
                    refs=()) -> Path:
    """Write <out>/report.html of a band study from its tables (default: read from <out>) and the references
    ``refs`` (``kind_cited``'s list; the kind passes its own: this page does not import the kinds, which import
    the pages); return its path."""
    out = Path(study.out)
    table = pd.read_parquet(out / "bands.parquet") if table is None else table
    pointwise = pd.read_parquet(out / "bands_pointwise.parquet") if pointwise is None else pointwise
    path = out / "report.html"
    path.write_text(band_page(study, table, pointwise, refs), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the index

def _study_row(folder: Path) -> dict | None:
    study = read_study(folder)
    if not study and not (folder / "report.md").is_file():
        return None
    cells = ""
    for table in ("results.parquet", "results.csv"):
        if not cells and (folder / table).is_file():
            try:
                cells = len(read_results(folder))
            except (OSError, ValueError, ImportError):  # an unreadable table leaves the count blank
                cells = ""
    date = ""
    try:
        date = str(json.loads((folder / "provenance.json").read_text()).get("finished", ""))[:10]
    except (OSError, ValueError, AttributeError):
        pass
    design = (study.get("grid") or {}).get("design") if isinstance(study.get("grid"), dict) else None
    design = ", ".join(design) if isinstance(design, list) else design or ""
    question = str(study.get("question") or "").strip()
    if not study:  # another report (covstudy-evaluate): its title
        first = (folder / "report.md").read_text(encoding="utf-8").splitlines()[:1]
        question = first[0].lstrip("# ") if first else ""
    return {"name": study.get("name") or folder.name, "folder": folder.name, "question": question,
            "design": design, "cells": cells, "date": date}


def write_index(results, path=None) -> Path:
    """Write ``path`` (default <results>/index.html): one row per study folder in ``results`` (those
    with study.yaml or report.md). Not committed: it shows when each run finished, and every run
    in ``results`` (the quick start's too) rewrites it."""
    results = Path(results)
    rows = [r for r in (_study_row(f) for f in sorted(results.iterdir()) if f.is_dir()) if r]
    lines = []
    for r in rows:
        folder = results / r["folder"]
        main = "report.html" if (folder / "report.html").is_file() else "report.md"
        links = _links(folder, [("report.html", "explorer"), ("report.md", "report"), ("figures", "figures"),
                                ("results.parquet", "table"), ("results.csv", "csv")])
        links = links.replace('href="', f'href="{_e(r["folder"])}/')
        sort = f' data-v="{r["cells"]}"' if r["cells"] != "" else ""
        lines.append(f'<tr><td><a href="{_e(r["folder"])}/{main}">{_e(r["name"])}</a></td>'
                     f'<td>{_e(r["question"])}</td><td>{_e(r["design"])}</td><td{sort}>{r["cells"]}</td>'
                     f'<td>{_e(r["date"])}</td><td>{links}</td></tr>')
    body = f"""<header><h1>covstudy results</h1>
<p>{len(rows)} folders under <code>{_e(results.name)}/</code>. Click a column header to sort;
a study's name opens its explorer (<code>report.html</code>). Dates come from each folder's
<code>provenance.json</code> (absent from committed studies).</p></header>
<section><table class="sortable" id="studies"><thead><tr><th data-type="text">study</th>
<th data-type="text">question</th><th data-type="text">design</th><th data-type="num">cells</th>
<th data-type="text">date</th><th data-type="text">links</th></tr></thead>
<tbody>
{chr(10).join(lines)}
</tbody></table></section>"""
    path = Path(path) if path is not None else results / "index.html"
    path.write_text(page("covstudy results", body, "<script>covstudyExplorer.sortables();</script>\n"),
                    encoding="utf-8")
    return path


# --------------------------------------------------------------------------- covstudy-evaluate

def _cell(value):
    """A table value as JSON: NaN and None as null, floats to 12 significant digits."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return _number(value)
    return str(value)


def _table_html(frame: pd.DataFrame, cols, table_id: str, header=None) -> str:
    """A sortable table of ``cols``: numbers to 4 decimals with their full value to sort by; ``header``
    (column -> HTML) writes the header cells (default: the column name, escaped)."""
    header = header or _e
    head = "".join(f'<th data-type="{"num" if pd.api.types.is_float_dtype(frame[c]) else "text"}">{header(c)}</th>'
                   for c in cols)
    rows = []
    for _, r in frame.iterrows():
        cells = []
        for c in cols:
            v = _cell(r[c])
            if isinstance(v, bool):
                cells.append(f"<td>{'yes' if v else ''}</td>")
            elif isinstance(v, (int, float)) and pd.api.types.is_float_dtype(frame[c]):
                cells.append(f'<td data-v="{v!r}">{float(v):.4f}</td>')
            else:
                cells.append(f"<td>{_e('' if v is None else v)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="sortable" id="{table_id}"><thead><tr>{head}</tr></thead>'
            f'<tbody>\n{chr(10).join(rows)}\n</tbody></table>')
