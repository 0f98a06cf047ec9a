"""report.html of a study kind without a page of its own (study/kinds.py: a sequential study, a
leaderboard, the next family): the question, the kind's summary table (click a header to sort), the figures and the study's files, in one self-contained page with the
explorer's style and script (report/explorer.py). Duck-typed on the study: ``out``, ``name``,
``question``. The same summary gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .explorer import _e, _png_links, _table_html, page

FILES = ("report.md", "results.csv", "results.parquet", "check.csv", "bands.parquet", "study.json")


def kind_page(study, summary: pd.DataFrame) -> str:
    """The page's HTML (module docstring)."""
    folder = Path(study.out)
    links = " · ".join(f'<a href="{_e(f)}">{_e(f)}</a>' for f in FILES if (folder / f).exists())
    question = f'<p class="question">{_e(str(study.question).strip())}</p>' if str(study.question).strip() else ""
    body = f"""<header><h1>{_e(study.name)}</h1>
{question}
<p class="links">{links}</p></header>
<section><h2>Summary</h2>
<p>Click a column header to sort.</p>
{_table_html(summary.reset_index(drop=True), list(summary.columns), "summary")}
</section>
<section><h2>Figures</h2>
{_png_links(folder)}
</section>
<section><h2>How to rerun</h2>
<pre>covstudy study={_e(study.name)}   # the tables, report.md, report.html (and with plot=true the figures)</pre>
</section>"""
    return page(f"covstudy: {study.name}", body, "<script>covstudyExplorer.sortables();</script>\n")


def write_kind_html(study, summary: pd.DataFrame) -> Path:
    """Write <out>/report.html from the kind's summary table; return its path."""
    path = Path(study.out) / "report.html"
    path.write_text(kind_page(study, summary), encoding="utf-8")
    return path
