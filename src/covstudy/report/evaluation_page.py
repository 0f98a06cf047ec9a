"""The HTML report of a ``covstudy.evaluate`` result: report.html beside table.csv and report.md.

``write_evaluation_html(ev, folder)`` writes one self-contained page with the explorer's script and
style (``report.explorer``): the recommended intervals (a row that does not meet the target says so,
``BELOW``) and why, an interactive forest plot of every method per metric (hover: audited coverage),
the growth table and the sortable audited table. It reads the evaluation duck-typed (``table``,
``info``, ``recommended``, ``reasons``, ``warnings``, ``growth``), so it imports nothing of the
evaluation wing, which calls it (``evaluation.render.save``) and takes RECOMMENDED, BELOW and
``flagged`` from here for its own tables.
"""

from __future__ import annotations

import json
from pathlib import Path


EVALUATION_COLUMNS = ("metric", "method", "estimate", "lower", "upper", "coverage_at_estimate", "coverage_mcse",
                      "worst_coverage", "worst_is_upper_bound", "worst_bound", "worst_at", "meets_target", "mean_width",
                      "engine", "recommended", "narrower", "note")
RECOMMENDED = ("metric", "method", "estimate", "lower", "upper", "coverage_at_estimate", "worst_coverage",
               "worst_bound", "meets_target")  # the recommended table of every evaluation output
FIT = ("<style>.fit { max-width: 100%; overflow-x: auto; } "  # a wide table scrolls in its box: the page fits a window
       ".fit table.sortable th { overflow-wrap: normal; min-width: 4.5em; } "  # breaks at the <wbr> after _
       # a cell may break anywhere but is never narrower than "guaranteed"
       ".fit table.sortable td { overflow-wrap: anywhere; max-width: 16em; min-width: 5.5em; }</style>")
BELOW = "NO: below target"  # how a row that does not meet the target shows in the recommended tables


def _header(column: str) -> str:
    """A column name as a header cell that may wrap after its underscores, never inside a word."""
    from html import escape

    return escape(column).replace("_", "_<wbr>")


def recommended_columns(frame) -> list:
    """The recommended table's columns present in ``frame``, and ``narrower`` (a guaranteed pick's price) and
    ``note`` (an undefined metric, ...) when a row has one."""
    cols = [c for c in RECOMMENDED if c in frame]
    for extra in ("narrower", "note"):
        if extra in frame and frame[extra].fillna("").astype(str).str.len().gt(0).any():
            cols.append(extra)
    return cols


def summaries(ev) -> dict:
    """{metric: one line}: the recommended interval, its coverage and the reason in about ten words; the
    full reason stays in ``ev.reasons``."""
    floor = 1 - ev.info["delta"] - ev.info["epsilon"]
    out = {}
    for r in ev.recommended.to_dict("records"):
        if r.get("note") and r["lower"] != r["lower"]:
            out[r["metric"]] = f"no interval: {r['note']}"
            continue
        if r["lower"] != r["lower"]:
            out[r["metric"]] = str(ev.reasons.get(r["metric"], ""))
            continue
        cover = r.get("worst_coverage")
        at_most = "≤ " if str(r.get("worst_is_upper_bound")) == "True" else ""  # NaN in rows added later
        cover = "" if cover is None or cover != cover else f", worst coverage {at_most}{cover:.3f}"
        why = {"certified": f"narrowest method certified to cover at least {floor:.3f}",
               "guaranteed": f"narrowest method that meets the target: guaranteed to cover at least "
                             f"{1 - ev.info['delta']:g} by construction",
               "estimated": f"narrowest method whose worst coverage was found ≥ {floor:.3f}, not certified",
               "no": "no method was shown to meet the target: treat with care"}.get(
            r.get("meets_target", ""), _ece_why(r) if r.get("kind") == "ece"
            else "not audited: the guaranteed method of its kind")
        if r.get("kind") == "ece" and r.get("meets_target") in ("", "estimated", "undecided"):
            why = _ece_why(r)  # judged at its one point, not over a region
        price = f"; the narrowest approximate one, {r['narrower']}" if r.get("narrower") else ""
        out[r["metric"]] = (f"{r['method']} [{r['lower']:.4f}, {r['upper']:.4f}]{cover}: {why}{price}."
                            + (f" ({r['note']})" if r.get("note") else ""))
    return out


def _ece_why(r) -> str:
    """An ECE row's why: guaranteed (its method is the guaranteed one) or the calibration study's choice, with its
    coverage at the fitted plug-in point if audited."""
    from ..methods import get

    what = ("guaranteed by proof (Šidák's box of per-bin Clopper–Pearson intervals)"
            if get(r["method"], "calibration").guaranteed else "the calibration study's choice")
    c, se = r.get("coverage_at_estimate"), r.get("coverage_mcse")
    if c is None or c != c:
        return f"not audited: {what}"
    return f"{what}; coverage {c:.3f} (MCSE {se:.3f}) at the fitted plug-in point"


def flagged(frame):
    """The rows with ``meets_target`` "no" shown as BELOW, and their worst as an upper bound (``bounded``)."""
    if "meets_target" not in frame:
        return bounded(frame)
    out = bounded(frame)
    out["meets_target"] = out.meets_target.replace({"no": BELOW})
    return out


def bounded(frame):
    """``worst_coverage`` as text, ``≤ 0.3580`` where it is only an upper bound of the worst
    (``worst_is_upper_bound``: the audit stopped at a point below the target), else to 4 decimals."""
    if "worst_is_upper_bound" not in frame or "worst_coverage" not in frame:
        return frame
    out = frame.copy()
    upper = out.worst_is_upper_bound.fillna(False).astype(bool)
    out["worst_coverage"] = [("" if w != w else f"{'≤ ' if u else ''}{w:.4f}")
                             for w, u in zip(out.worst_coverage.astype(float), upper)]
    return out


LEGEND = (  # (term, meaning): every term the answer and the tables use, in every report and the notebook view
    ("estimate", "the metric on your test set, by the row's method's own estimator (most methods: the observed "
                 "value; a Bayesian method: its posterior's)"),
    ("interval (lower, upper)", "the method's interval at level 1 − δ (95%: δ = 0.05)"),
    ("method", "how the interval is computed; each is cited under References"),
    ("operating point (plug-in)", "the truth taken to be what your data estimate (the rates, prevalence, AUC, …)"),
    ("region", "the (1 − δ) set of operating points your data do not rule out; the audit looks for the worst "
               "coverage over it"),
    ("coverage_at_estimate", "how often the method's interval covers the truth at the operating point, over "
                             "test sets like yours (exact, or Monte Carlo)"),
    ("worst (worst_coverage)", "the lowest coverage over the region: the exact infimum for one proportion, "
                               "else the lowest the audit found (at worst_at)"),
    ("≤", "before a worst coverage: an upper bound of the worst (the audit stopped at a point below the target)"),
    ("worst_bound", "a certified lower bound of the worst coverage (exact engines: branch and bound over the "
                    "region)"),
    ("MCSE (coverage_mcse, worst_mcse)", "the Monte Carlo standard error of a simulated coverage; ± one MCSE is "
                                         "the audit's own noise"),
    ("target", "1 − δ − ε: the nominal level less the tolerance ε = 0.005"),
    ("meets the target (meets_target)", "whether the worst coverage reaches the target: certified, guaranteed, "
                                        "estimated, undecided or no; empty: not audited"),
    ("certified", "the worst coverage's certified lower bound (worst_bound) is at least the target: proven by exact "
                  "computation over the whole region"),
    ("guaranteed", "the method covers at least 1 − δ for every value of the truth, by a proof (Clopper–Pearson, "
                   "Blaker, …): it meets the target without an audit, and is the answer where nothing narrower "
                   "meets it"),
    ("estimated", "the worst found by a search, not proven, reaches the target (Monte Carlo: less 2 MCSE)"),
    ("undecided", "Monte Carlo: the worst ± 2 MCSE straddles the target after the audit spent its test sets; never "
                  "recommended"),
    ("no (NO: below target)", "the worst coverage is below the target (Monte Carlo: by more than 2 MCSE)"),
    ("not audited", "no audit ran for the row; its note says why (the budget, or wider than a row that meets the "
                    "target)"),
    ("recommended", "per metric, the narrowest row that meets the target, else the guaranteed method of its kind"),
    ("narrower", "beside a guaranteed pick: the narrowest approximate row and its audited worst coverage, the price "
                 "of the guarantee"),
    ("mean_width", "the interval's expected width at the operating point"),
    ("engine", "exact (every outcome enumerated) or mc (Monte Carlo, with an MCSE)"),
    ("note", "what the budget cut, or why a row has no audit or no interval"),
    ("difference", "<metric>_difference: the first model's metric minus the second's, on the same examples; "
                   "\"A is better than B\" only where the recommended interval excludes 0, else \"no difference "
                   "shown\""),
    ("superiority_probability", "the posterior probability that the first model is the more accurate (a uniform "
                                "prior on the four paired cells), not an interval"),
)


def legend_html() -> str:
    """The legend (``LEGEND``) as an HTML definition list."""
    from html import escape

    return ('<dl class="legend">' + "".join(f"<dt>{escape(t)}</dt><dd>{escape(m)}</dd>" for t, m in LEGEND)
            + "</dl>")


def answer_html(ev) -> str:
    """The answer (``ev.verdicts``, ``ev.answer``: the evaluation computes both) as HTML: a table of each metric's
    recommended interval and whether it meets the target (a guaranteed pick's price under it), then the
    comparisons' sentences."""
    from html import escape

    level = 1 - ev.info["delta"]
    rows = []
    for v in getattr(ev, "verdicts", []):
        cells = [escape(v["metric"]), escape(v["estimate"]), escape(v["interval"]), escape(v["method"]),
                 escape(v["meets"])]
        style = ' class="below"' if v["meets"].startswith("NO") else ""
        rows.append(f"<tr{style}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        for extra in (f"narrower: {v['price']}" if v["price"] else "", v.get("caveat", "")):
            if extra:
                rows.append(f'<tr class="price"><td></td><td colspan="4">{escape(extra)}</td></tr>')
    table = ('<div class="fit"><table class="answer"><thead><tr><th>metric</th><th>estimate</th>'
             f"<th>{level * 100:.10g}% interval</th><th>method</th><th>meets the target?</th></tr></thead><tbody>"
             + "".join(rows) + "</tbody></table></div>") if rows else ""
    said = "".join(f"<li>{escape(s)}.</li>" for s in getattr(ev, "answer", []))
    head = getattr(ev, "comparing", "")
    return table + (f"<p>{escape(head)}</p>" if head and said else "") + (
        f'<ul class="sentences">{said}</ul>' if said else "")


ANSWER_CSS = ("<style>table.answer { border-collapse: collapse; margin: .5em 0; } "
              "table.answer td, table.answer th { padding: 2px 10px; text-align: left; } "
              "table.answer td:nth-child(2) { text-align: right; font-variant-numeric: tabular-nums; } "
              "table.answer tr.price td { font-size: 90%; color: #555; padding-top: 0; text-align: left; } "
              "table.answer tr.below td { color: #b00020; font-weight: 600; } "
              "dl.legend { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; font-size: 90%; } "
              "dl.legend dt { font-weight: 600; } dl.legend dd { margin: 0; }</style>")


def notebook(ev) -> str:
    """Jupyter's view of an evaluation (``Evaluation._repr_html_``): what was read, the warnings, the answer, then
    the legend and every method's audited row, folded; no script (a notebook's output may not run one)."""
    from html import escape

    table = ev.table
    cols = [c for c in EVALUATION_COLUMNS if c in table]
    from .explorer import _table_html

    warn = "".join(f"<p><b>Warning:</b> {escape(w)}</p>" for w in ev.warnings)
    return (f'{ANSWER_CSS}<div class="covstudy-evaluation"><p><b>covstudy.evaluate</b>: '
            f"{escape(ev.info.get('read') or '')}; intervals at level {1 - ev.info['delta']:g}.</p>{warn}"
            f"{answer_html(ev)}<details class=\"legend\"><summary>Legend</summary>{legend_html()}</details>"
            f"<details><summary>Every method, audited ({len(table)} rows)</summary>"
            f"{_table_html(bounded(table), cols, 'audited', _header)}</details></div>")


AUDITED = ("coverage_at_estimate: coverage at the plug-in operating point; worst_coverage: the lowest coverage found "
           "over the (1 − δ) region of the operating point, at worst_at; worst_bound: a certified lower bound of the "
           "worst (exact engines); worst_coverage ≤ x: an upper bound (the audit stopped at a point below the "
           "target); meets_target: certified, guaranteed (coverage ≥ 1 − δ by construction), estimated, undecided "
           "(Monte Carlo: within two MCSE of 1 − δ − ε once its budget of test sets was spent) or no (below 1 − δ "
           "− ε; Monte Carlo by more than two MCSE); narrower: beside a guaranteed pick, the narrowest approximate "
           "row and "
           "its audited worst; "
           "engine: exact or Monte Carlo (mc, with coverage_mcse). Click a header to sort.")


def evaluation_page(ev, folder) -> str:
    """The HTML report of a ``covstudy.evaluate`` result (``Evaluation``): the recommended intervals
    and why, an interactive forest plot of every method per metric (hover: audited coverage), the
    sortable audited table, and links to the files ``Evaluation.save`` writes beside it."""
    from .explorer import _cell, _e, _links, _table_html, page  # here: the tables' constants above import no pandas

    folder = Path(folder)
    info = ev.info
    table = ev.table
    cols = [c for c in EVALUATION_COLUMNS if c in table]
    rows = [{c: _cell(v) for c, v in zip(cols, r)} for r in table[cols].itertuples(index=False)]
    data = json.dumps({"rows": rows, "level": 1 - info["delta"]}, separators=(",", ":"),
                      ensure_ascii=False).replace("</", "<\\/")
    head = ((info.get("read") or f"{info['n']} examples; classes {', '.join(map(repr, info['classes']))}")
            + f"; intervals at level {1 - info['delta']:g}; recommendation tolerance ε = {info['epsilon']}; "
            f"Monte Carlo audit with {info['reps']} test sets, seed {info['seed']}.")
    warnings = "".join(f'<p class="warning"><b>Warning:</b> {_e(w)}</p>' for w in ev.warnings)
    short = "".join(f"<li><b>{_e(m)}</b>: {_e(line)}</li>" for m, line in summaries(ev).items())
    reasons = (f'<h3>Why</h3><ul class="why">{short}</ul><details><summary>Why, in full (the region searched, '
               f'the operating point)</summary><ul>'
               + "".join(f"<li><b>{_e(m)}</b>: {_e(why)}</li>" for m, why in ev.reasons.items()) + "</ul></details>")
    links = _links(folder, [("report.md", "report (Markdown)"), ("table.csv", "table.csv"),
                            ("forest.png", "forest plot (PNG)"), ("forest.pdf", "PDF"),
                            ("width_vs_n.png", "width against n (PNG)"), ("width_vs_n.pdf", "PDF"),
                            ("reliability.png", "reliability diagram (PNG)"), ("reliability.pdf", "PDF")])
    growth = ""
    if getattr(ev, "growth", None) is not None:
        growth = ("<section><h2>How the interval shrinks with more data</h2>"
                  "<p>Expected width of the recommended interval at this operating point for larger and smaller "
                  "test sets (scale × this one); n for half the width: exact, <code>covstudy.plan</code>.</p>"
                  + '<div class="fit">' + _table_html(ev.growth, list(ev.growth.columns), "growth", _header) + "</div></section>")
    reliability = ""
    if (folder / "reliability.png").is_file():  # evaluation/calibration.py: scores in [0, 1]
        reliability = ('<section><h2>Reliability diagram</h2><p>Each bin\'s frequency of positives against its mean '
                       'score, with Clopper–Pearson per bin and the Šidák band over the bins (docs/calibration.md).</p>'
                       '<img src="reliability.png" alt="reliability diagram" style="max-width:480px"></section>')
    shown = flagged(ev.recommended)
    rec = recommended_columns(shown)
    below = shown.metric[shown.get("meets_target", "") == BELOW].tolist() if "meets_target" in shown else []
    if below:
        warnings += (f'<p class="warning"><b>Below target:</b> no method was shown to meet '
                     f'{1 - info["delta"] - info["epsilon"]:.3f} for {_e(", ".join(below))}; the row recommended '
                     f"there does not meet it: treat it with care.</p>")
    body = f"""{FIT}{ANSWER_CSS}<header><h1>covstudy-evaluate report</h1>
<p>{_e(head)}</p>
<p class="links">{links}</p></header>
{warnings}
<section id="answer"><h2>The answer</h2>
{answer_html(ev)}
<details class="legend"><summary>Legend: every term the report uses</summary>{legend_html()}</details></section>
<section><h2>Recommended intervals</h2>
<div class="fit">{_table_html(shown, rec, "recommended", _header)}</div>
{reasons}</section>
<section id="explore"><h2>Every method, per metric</h2>
<div id="controls"></div>
<div id="chart-box"><svg id="chart" role="img" aria-label="forest plot"></svg><div id="tip" hidden></div></div>
<p id="status"></p></section>
{growth}{reliability}
<section><h2>Every method, audited</h2>
<p>{AUDITED}</p>
<div class="fit">{_table_html(bounded(table), cols, "audited", _header)}</div></section>
{_references(table)}"""
    script = (f'<script type="application/json" id="covstudy-evaluation">{data}</script>\n'
              "<script>covstudyExplorer.forest();</script>\n")
    return page("covstudy-evaluate report", body, script)


def _references(table) -> str:
    """The methods' references (``references.cited``), each with its entry in docs/methods.md."""
    from .references import cited, html_section

    return html_section(cited(table))


def write_evaluation_html(ev, folder) -> Path:
    """Write <folder>/report.html for a ``covstudy.evaluate`` result; return its path."""
    path = Path(folder) / "report.html"
    path.write_text(evaluation_page(ev, folder), encoding="utf-8")
    return path
