"""The report.html of a calibration study (calibration/study.py): its one table drawn by the explorer's script.

The study's table has a row per target (bin, curve, ece, ece_unbinned, smooth_ece, test); the page offers
four views of it, as the band page offers its two tables (``report.explorer``): per-bin coverage (with the
exact coverage beside the Monte Carlo one) against the bin or n; whole-curve coverage of the bands over
bins; the ECE intervals' coverage, width and bias by estimand (``target``); and the tests' rejection rate.
A selector per axis (n, bins, binning, slope, intercept, the score law), a check box per method, ±2·MCSE
bands, the nominal 1 − δ; the summary per target and method as in report.md; links to the figures; the
references of its methods (``refs``: report/references.py ``kind_cited``). It
reads the study duck-typed (``out``, ``name``, ``question``, ``reps``, ``delta``, ``draws``), so it imports
nothing of the calibration wing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .explorer import _e, _links, _png_links, _table_html, encode, page
from .references import html_section

AXES = ("n", "bins", "bin", "binning", "slope", "intercept", "scores", "target", "delta")
VIEWS = (  # key, title, targets, measures (column -> (name, its MCSE column or "binomial")), extra columns, level
    ("bin", "per bin: coverage of the bin's true frequency | bin non-empty", ("bin",),
     {"coverage": ("coverage | bin non-empty", "mcse"), "width": ("mean width", None),
      "p_nonempty": ("P(bin non-empty)", None)}, ("mcse", "exact_coverage", "reps"), ["coverage"]),
    ("curve", "whole curve: the band holds every non-empty bin", ("curve",),
     {"coverage": ("whole-curve coverage", "mcse"), "width": ("mean width", None)}, ("mcse", "reps"), ["coverage"]),
    ("ece", "ECE: coverage, width and bias by estimand", ("ece", "ece_unbinned", "smooth_ece"),
     {"coverage": ("coverage", "mcse"), "width": ("mean width", None), "bias": ("mean estimate − truth", "bias_mcse"),
      "truth": ("the true value", None)}, ("mcse", "bias_mcse", "reps"), ["coverage"]),
    ("test", "tests of perfect calibration: rejection rate", ("test",),
     {"rejection": ("rejection rate (size at slope 1, else power)", "binomial")}, ("reps",), []),
)
SUMMARY = {"mean coverage": ("coverage", "mean"), "worst coverage": ("coverage", "min"), "mean width": ("width", "mean"),
           "mean bias": ("bias", "mean"), "mean rejection": ("rejection", "mean")}


def _prepared(table: pd.DataFrame) -> pd.DataFrame:
    """The score law as one column (``beta`` where the table has none), the method as the label."""
    law = table["scores"].fillna("beta") if "scores" in table else pd.Series("beta", index=table.index)
    return table.assign(scores=law, label=table["method"])


def calibration_data(table: pd.DataFrame) -> dict:
    """The page's data: one encoded table per view, methods coloured as in the study's figures."""
    from matplotlib.colors import to_hex

    from ..plots.style import band_colours

    table = _prepared(table)
    out = []
    for key, title, targets, measures, extra, level in VIEWS:
        part = table[table.target.isin(targets)].reset_index(drop=True)
        if part.empty:
            continue
        colors = {k: to_hex(v) for k, v in band_colours(list(dict.fromkeys(part["method"]))).items()}
        axes = [a for a in AXES if a in part and part[a].notna().any()]
        out.append({"key": key, "title": title, "level": level,
                    **encode(part, {m: v for m, v in measures.items() if m in part}, [e for e in extra if e in part],
                             axes, colors)})
    return {"tables": out}


def calibration_page(study, table: pd.DataFrame, refs=()) -> str:
    """The page's HTML (module docstring)."""
    folder = Path(study.out)
    data = json.dumps(calibration_data(table), separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
    prepared = _prepared(table)
    if "exact_coverage" in prepared:  # a bin's coverage: the exact one (as report.md), not its noisy Monte Carlo twin
        prepared = prepared.assign(coverage=prepared.exact_coverage.where(prepared.target == "bin", prepared.coverage))
    cols = {k: v for k, v in SUMMARY.items() if v[0] in prepared}
    targets = [t for view in VIEWS for t in view[2]]
    methods = list(dict.fromkeys(prepared.method))
    summary = (prepared.assign(order=prepared.target.map(targets.index), rank=prepared.method.map(methods.index))
               .groupby(["order", "target", "scores", "rank", "method"], sort=True).agg(**cols).reset_index()
               .drop(columns=["order", "rank"]))
    links = _links(folder, [("report.md", "report (Markdown)"), ("results.csv", "the table (results.csv)")])
    question = f'<p class="question">{_e(study.question.strip())}</p>' if study.question.strip() else ""
    body = f"""<header><h1>Calibration study: {_e(study.name)}</h1>
{question}
<p class="links">{links} · <button type="button" id="download-all">download the drawn table (CSV)</button></p></header>
<section id="explore"><h2>Explore</h2>
<noscript><p>The interactive figure needs JavaScript; the static figures are linked below.</p></noscript>
<div id="controls"></div>
<div id="chart-box"><svg id="chart" role="img" aria-label="interactive figure"></svg><div id="tip" hidden></div></div>
<p id="status"></p>
<p><button type="button" id="download-shown">Download the drawn values (CSV)</button></p>
<p class="note">{_e(study.reps)} test sets per point, {_e(study.draws)} bootstrap resamples for the ECE intervals.
Per-bin coverage is among the test sets whose bin is non-empty (hollow marks: the exact coverage); whole-curve
coverage: the share of test sets whose band holds every non-empty bin's true frequency; the ECE's estimands
(target) are <code>ece</code>, the population's binned ECE; <code>ece_unbinned</code>, E|c(s) − s|; and
<code>smooth_ece</code>, the population's smooth ECE. Nominal: 1 − δ = {_e(f"{1 - study.delta:g}")}.</p>
</section>
<section><h2>Summary per target and method</h2>
<p>Over the study's points (per bin: the exact coverage). Click a column header to sort.
<button type="button" id="download-summary">Download this table (CSV)</button></p>
{_table_html(summary, list(summary.columns), "summary")}
</section>
<section><h2>Figures</h2>
{_png_links(folder)}
</section>
<section><h2>How to rerun</h2>
<pre>covstudy study={_e(study.name)}   # results.csv, figures, report.md, report.html</pre>
</section>
{html_section(refs)}"""
    script = (f'<script type="application/json" id="covstudy-data">{data}</script>\n'
              "<script>covstudyExplorer.start();</script>\n")
    return page(f"covstudy: {study.name}", body, script)


def write_calibration_html(study, table: pd.DataFrame | None = None, refs=()) -> Path:
    """Write <out>/report.html of a calibration study from its table (default: <out>/results.csv) and the
    references ``refs`` (``kind_cited``'s list; the kind passes its own: this page does not import the kinds,
    which import the pages); return its path."""
    out = Path(study.out)
    table = pd.read_csv(out / "results.csv") if table is None else table
    path = out / "report.html"
    path.write_text(calibration_page(study, table, refs), encoding="utf-8")
    return path
