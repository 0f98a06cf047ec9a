"""report.html of a study kind without a page of its own (study/kinds.py: a sequential study, a
leaderboard, the next family): the question, an interactive figure of the kind's table when the kind
says which columns are its axes and measures (``StudyKind.explore``), the kind's summary table (click
a header to sort), the figures and the study's files, in one self-contained page with the explorer's
style and script (report/explorer.py), ending with the references of its methods (``refs``:
report/references.py ``kind_cited``). Duck-typed on the study: ``out``, ``name``, ``question``. The
same tables give the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .explorer import _e, _png_links, _table_html, encode, page
from .references import html_section

FILES = ("report.md", "results.csv", "results.parquet", "check.csv", "bands.parquet", "study.json")


def explore_data(table: pd.DataFrame, explore: dict) -> dict:
    """The page's data: the table encoded with the kind's axes and measures, its methods coloured as
    the band and calibration pages colour theirs."""
    from matplotlib.colors import to_hex

    from ..plots.style import band_colours

    table = table.assign(label=table["method"].astype(str)).reset_index(drop=True)
    colors = {k: to_hex(v) for k, v in band_colours(list(dict.fromkeys(table["label"]))).items()}
    axes = [a for a in explore["axes"] if a in table and table[a].notna().any()]
    measures = {m: v for m, v in explore["measures"].items() if m in table and table[m].notna().any()}
    extra = [m for m in explore.get("extra", ()) if m in table]
    return {"tables": [{"key": "results", "title": explore.get("title", "results"),
                        "level": list(explore.get("level", ["coverage"])),
                        **encode(table, measures, extra, axes, colors)}]}


def kind_page(study, summary: pd.DataFrame, table: pd.DataFrame | None = None, explore: dict | None = None,
              refs=()) -> str:
    """The page's HTML (module docstring)."""
    folder = Path(study.out)
    links = " · ".join(f'<a href="{_e(f)}">{_e(f)}</a>' for f in FILES if (folder / f).exists())
    question = f'<p class="question">{_e(str(study.question).strip())}</p>' if str(study.question).strip() else ""
    interactive = explore is not None and table is not None and len(table)
    figure = """<section id="explore"><h2>Explore</h2>
<noscript><p>The interactive figure needs JavaScript; the static figures are linked below.</p></noscript>
<div id="controls"></div>
<div id="chart-box"><svg id="chart" role="img" aria-label="interactive figure"></svg><div id="tip" hidden></div></div>
<p id="status"></p>
<p><button type="button" id="download-shown">Download the drawn values (CSV)</button></p>
</section>""" if interactive else ""
    download = ' · <button type="button" id="download-all">download the drawn table (CSV)</button>' if interactive else ""
    body = f"""<header><h1>{_e(study.name)}</h1>
{question}
<p class="links">{links}{download}</p></header>
{figure}
<section><h2>Summary</h2>
<p>Click a column header to sort.{' <button type="button" id="download-summary">Download this table (CSV)</button>' if interactive else ''}</p>
{_table_html(summary.reset_index(drop=True), list(summary.columns), "summary")}
</section>
<section><h2>Figures</h2>
{_png_links(folder)}
</section>
<section><h2>How to rerun</h2>
<pre>covstudy study={_e(study.name)}   # the tables, report.md, report.html (and with plot=true the figures)</pre>
</section>
{html_section(refs)}"""
    if interactive:
        data = json.dumps(explore_data(table, explore), separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
        script = (f'<script type="application/json" id="covstudy-data">{data}</script>\n'
                  "<script>covstudyExplorer.start();</script>\n")
    else:
        script = "<script>covstudyExplorer.sortables();</script>\n"
    return page(f"covstudy: {study.name}", body, script)


def write_kind_html(study, summary: pd.DataFrame, table: pd.DataFrame | None = None,
                    explore: dict | None = None, refs=()) -> Path:
    """Write <out>/report.html from the kind's summary (and its table, drawn by ``explore``, and the references
    ``refs``); return its path."""
    path = Path(study.out) / "report.html"
    path.write_text(kind_page(study, summary, table, explore, refs), encoding="utf-8")
    return path
