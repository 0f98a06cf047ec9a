"""Rendering: an ``Evaluation`` as text, markdown and LaTeX tables, the forest and width-vs-n figures, and files.

The last step of the flow (data -> metrics -> audit -> recommend -> growth -> render): reads an
evaluation's table, reasons, warnings, info and growth table and computes nothing new. ``text`` is the
console table (``--table``; the default screen is ``answer.screen``), ``markdown`` the report (with
``latex``), ``forest`` and ``width_figure`` the figures, ``save`` writes table.csv, report.md, report.tex,
report.html (``report.explorer``), forest.png/.pdf and width_vs_n.png/.pdf. The ``Evaluation`` methods of
``result`` delegate here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..report.evaluation_page import BELOW, bounded, flagged, recommended_columns, summaries
from .audit import BOOT_REPS
from .growth import SCALES


def markdown(ev) -> str:
    """The report: the recommended intervals, why, warnings, the full audited table, a LaTeX table."""
    i = ev.info
    level = 1 - i["delta"]
    lines = ["# covstudy-evaluate report", "",
             f"{i['read']}"
             + f"; intervals at level {level:g}; recommendation tolerance ε = {i['epsilon']}; "
             f"Monte Carlo audit with {i['reps']} test sets, seed {i['seed']}.", ""]
    for w in ev.warnings:
        lines += [f"> **Warning:** {w}", ""]
    lines += answer_markdown(ev)
    shown = flagged(ev.recommended)
    lines += ["## Recommended intervals", "", _md(shown, recommended_columns(shown)), ""]
    below = shown.metric[shown.meets_target == BELOW].tolist() if "meets_target" in shown else []
    if below:
        lines += [f"> **Below target:** no method was shown to meet {level - i['epsilon']:.3f} for "
                  f"{', '.join(below)}; the row recommended there does not meet it: treat it with care.", ""]
    lines += ["## Why", ""] + [f"- **{m}**: {line}" for m, line in summaries(ev).items()] + [""]
    lines += ["### Why, in full", ""] + [f"- **{m}**: {why}" for m, why in ev.reasons.items()] + [""]
    if ev.growth is not None:
        g = ev.growth
        lines += ["## How the interval shrinks with more data", "",
                  "Expected width of the recommended interval at this operating point for test sets of "
                  f"{', '.join(f'{f:g}' for f in SCALES)} times this one, and for the metrics of one proportion "
                  "the n whose expected width is half today's (exact, `covstudy.plan`; n counts the examples the "
                  "metric reads: positives for recall, negatives for specificity):", ""]
        wide = g.pivot_table(index=["metric", "method"], columns="scale", values="mean_width", sort=False)
        head = "| metric | method | " + " | ".join(f"width at {f:g}×" for f in wide.columns) + " | n for half the width |"
        half = g.groupby(["metric", "method"], sort=False)["n_for_half_width"].first()
        body = [f"| {m} | {meth} | " + " | ".join(f"{w:.4f}" for w in ws) + " | "
                + ("" if half[(m, meth)] is None or half[(m, meth)] != half[(m, meth)] else f"{int(half[(m, meth)]):,}")
                + " |" for (m, meth), ws in zip(wide.index, wide.to_numpy())]
        lines += [head, "|---|---|" + "---:|" * (len(wide.columns) + 1), *body, "",
                  "![width against n](width_vs_n.png)", ""]
    lines += ["## Every method, audited", "",
              "coverage_at_estimate: coverage at the plug-in operating point; worst_coverage: the lowest "
              "coverage over a (1 − δ) region of the operating point — the exact infimum for accuracy, recall "
              "and specificity, the lowest found by the audit otherwise (docs/evaluate.md; ≤: an upper bound, the "
              "audit stopped at a point below the target); meets_target: certified, guaranteed (by construction), "
              "estimated, undecided or no; "
              "mean_width: the expected width at the plug-in point; engine: exact or Monte Carlo (mc, with "
              "coverage_mcse and worst_mcse; bootstrap methods with at most "
              f"{BOOT_REPS} test sets a point, none when that would cost too much).", "",
              _md(bounded(ev.table), ["metric", "method", "estimate", "lower", "upper", "coverage_at_estimate",
                             "coverage_mcse", "worst_coverage", "worst_mcse", "worst_bound", "meets_target",
                             "mean_width", "engine", "recommended"] + (["note"] if "note" in recommended_columns(
                             ev.table) else [])), ""]
    lines += references(ev.table)
    lines += ["## LaTeX", "", "```latex", latex(ev.recommended), "```", ""]
    return "\n".join(lines)


def answer_markdown(ev) -> list[str]:
    """The report's opening (Markdown lines): each metric's recommended interval and whether it meets the target
    (``answer.verdicts``), the comparisons' sentences (``answer.sentences``), and the legend (``LEGEND``)."""
    from ..report.evaluation_page import LEGEND
    from .answer import intro, percent, sentences, verdicts

    lines = ["## The answer", ""]
    rows = verdicts(ev)
    if rows:
        lines += [f"| metric | estimate | {percent(1 - ev.info['delta'])} interval | method | meets the target? |",
                  "|---|---:|---|---|---|"]
        for r in rows:
            lines.append(f"| {r['metric']} | {r['estimate']} | {r['interval']} | {r['method']} | {r['meets']} |")
            for extra in (f"narrower: {r['price']}" if r["price"] else "", r["caveat"]):
                if extra:
                    lines.append(f"| | | {extra} | | |")
        lines.append("")
    said = sentences(ev)
    if said:
        lines += [intro(ev), ""] if intro(ev) else []
        lines += [f"- {x}." for x in said] + [""]
    lines += ["### Legend", ""] + [f"- **{term}**: {meaning}" for term, meaning in LEGEND] + [""]
    return lines


def forest(ev, path=None):
    """A forest plot: one panel per metric, methods side by side, the recommended one marked,
    the audited coverage written beside each. Returns the figure (saved to ``path`` if given)."""
    import matplotlib.pyplot as plt

    from ..plots.style import save_figure

    t = ev.table[ev.table.lower.notna()]
    groups = list(dict.fromkeys(t.metric))
    heights = [max(1, (t.metric == m).sum()) for m in groups]
    fig, axes = plt.subplots(len(groups), 1, figsize=(7.5, 0.9 + 0.22 * sum(heights) + 0.35 * len(groups)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, m in zip(axes[:, 0], groups):
        g = t[t.metric == m].reset_index(drop=True)
        y = np.arange(len(g))[::-1]
        for yi, (_, r) in zip(y, g.iterrows()):
            colour = "C3" if r.recommended else "0.35"
            ax.plot([r.lower, r.upper], [yi, yi], color=colour, lw=2.2 if r.recommended else 1.2)
            label = "" if np.isnan(r.coverage_at_estimate) else f"{r.coverage_at_estimate:.3f}"
            if not np.isnan(r.worst_coverage):
                label += f" (worst {'≤ ' if _true(r.get('worst_is_upper_bound')) else ''}{r.worst_coverage:.3f})"
            ax.annotate(label, (1.01, yi), xycoords=("axes fraction", "data"), va="center", fontsize=6.5,
                        color=colour)
        ax.axvline(g.estimate.iloc[0], color="0.6", lw=0.8, ls="--")
        ax.set_yticks(y, [f"{r.method}{' ★' if r.recommended else ''}" for _, r in g.iterrows()], fontsize=7)
        ax.set_ylim(-0.7, len(g) - 0.3)
        ax.set_title(f"{m} = {g.estimate.iloc[0]:.4g}", fontsize=8, loc="left")
        ax.tick_params(axis="x", labelsize=7)
    h = fig.get_figheight()  # in inches: a fraction of a tall figure would put the title over the first panel
    fig.suptitle(f"{1 - ev.info['delta']:g} intervals (★ recommended; audited coverage at the operating point, "
                 f"worst over its region)", fontsize=8, y=1 - 0.05 / h, va="top")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / h))
    if path is not None:
        save_figure(fig, path, bbox_inches="tight")
    return fig


def width_figure(ev):
    """The width-vs-n figure: each metric's recommended interval's expected width against the
    test-set size (log-log), the user's n marked."""
    import matplotlib.pyplot as plt

    g = ev.growth
    fig, ax = plt.subplots(figsize=(8, 4))
    for (metric, method), rows in g.groupby(["metric", "method"], sort=False):
        line, = ax.plot(rows.n, rows.mean_width, marker="o", ms=3, lw=1.2, label=f"{metric} ({method})")
        now = rows[rows.scale == 1.0]
        ax.plot(now.n, now.mean_width, marker="o", ms=7, mfc="none", color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("test-set size n (examples)")
    ax.set_ylabel("expected width of the recommended interval")
    ax.set_title(f"How the {1 - ev.info['delta']:g} intervals shrink with more data (circle: this test set)",
                 fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the lines, not over them
    fig.tight_layout()
    return fig


def save(ev, folder):
    """Write table.csv, report.md, report.html (interactive: ``report.evaluation_page``),
    forest.png/.pdf and (after an audit) width_vs_n.png/.pdf to ``folder``; returns its path."""
    from ..writable import staged

    with staged(folder) as stage:  # an interrupt or error leaves the folder as it was
        _write(ev, stage)
    return Path(folder)


def _write(ev, out: Path) -> None:
    import matplotlib.pyplot as plt

    from ..report.evaluation_page import write_evaluation_html
    from ..plots.style import save_figure

    ev.table.to_csv(out / "table.csv", index=False)
    fig = forest(ev)
    for ext in ("png", "pdf"):
        save_figure(fig, out / f"forest.{ext}", bbox_inches="tight", dpi=150 if ext == "png" else None)
    plt.close(fig)
    if ev.growth is not None:
        fig = width_figure(ev)
        for ext in ("png", "pdf"):
            save_figure(fig, out / f"width_vs_n.{ext}", bbox_inches="tight", dpi=150 if ext == "png" else None)
        plt.close(fig)
    extra = ""
    if ev.info.get("calibration") is not None:  # evaluation/calibration.py: the reliability diagram
        from .calibration import figure

        for ext in ("png", "pdf"):
            figure(ev.info["calibration"], out / f"reliability.{ext}")
        extra = "\n![reliability diagram](reliability.png)\n"
    (out / "report.md").write_text(markdown(ev) + "\n![forest plot](forest.png)\n" + extra)
    (out / "report.tex").write_text(tex(ev), encoding="utf-8")
    write_evaluation_html(ev, out)


def _true(v) -> bool:
    """Whether a table cell holds True (a boolean column may hold NaN in rows added after ``recommend``)."""
    return isinstance(v, (bool, np.bool_)) and bool(v)


def _fmt(v):
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else ""
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else f"{v:.4f}"
    return "" if v is None else str(v)


def _md(frame, cols) -> str:
    head = "| " + " | ".join(cols) + " |"
    rule = "|" + "|".join("---" for _ in cols) + "|"
    body = ["| " + " | ".join(_fmt(r[c]) for c in cols) + " |" for _, r in frame.iterrows()]
    return "\n".join([head, rule, *body])


FULL = ("metric", "method", "estimate", "lower", "upper", "coverage_at_estimate", "coverage_mcse", "worst_coverage",
        "worst_mcse", "worst_bound", "meets_target", "mean_width", "engine", "recommended", "narrower", "note")


def text(frame, full: bool = False) -> str:
    """A console table: the recommended rows (``recommended_columns``), or with ``full`` every row of the table with
    its audit (``FULL``: ``covstudy-evaluate --table``); a row that does not meet the target says so."""
    frame = flagged(frame)
    cols = recommended_columns(frame)
    if full:
        cols = [c for c in FULL if c in frame and (c not in ("narrower", "note") or c in cols)]
    cells = [[c for c in cols]] + [[_fmt(r[c]) for c in cols] for _, r in frame.iterrows()]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    return "\n".join("  ".join(v.rjust(w) if j and cols[j] not in ("narrower", "note") else v.ljust(w)
                                for j, (v, w) in enumerate(zip(row, widths))).rstrip()
                     for row in cells)


def latex(frame) -> str:
    """The recommended rows as a LaTeX tabular: each method with its reference's number, its target flag
    (``NO: below target`` kept), then the numbered references (``report.references.cited``)."""
    from ..report.markdown import tex_escape
    from ..report.references import PAGE, cited, numbers

    frame = flagged(frame)
    number = numbers(frame)
    rows = [r"\begin{tabular}{llrrrrl}", r"\hline",
            r"Metric & Method & Estimate & Interval & Coverage & Worst & Target \\", r"\hline"]
    for _, r in frame.iterrows():
        ci = "" if np.isnan(r.lower) else f"[{r.lower:.4f}, {r.upper:.4f}]"
        n = number.get((r.kind, r.method))
        method = tex_escape(r.method.replace('_', ' ')) + ("" if n is None else f"~[{n}]")
        worst = ("$\\le$ " if _true(r.get("worst_is_upper_bound")) and r.worst_coverage == r.worst_coverage
                 else "") + _fmt(r.worst_coverage)
        rows.append(f"{tex_escape(r.metric.replace('_', ' '))} & {method} & {_fmt(r.estimate)} & {ci} & "
                    f"{_fmt(r.coverage_at_estimate)} & {worst} & {tex_escape(_fmt(r.get('meets_target', '')))} \\\\")
    refs = [f"[{n}] {tex_escape(display)}: {tex_escape(reference)}" for n, _, display, reference, _ in cited(frame)]
    tail = [r"\par\smallskip\noindent{\footnotesize " + r"\\ ".join(refs)
            + rf" \\ (every method's reference: {tex_escape(PAGE)})}}"] if refs else []
    return "\n".join(rows + [r"\hline", r"\end{tabular}"] + tail)


def tex(ev) -> str:
    """report.tex: a LaTeX fragment to \\input, opening with the answer's sentences (``answer.sentences``), then the
    recommended rows' table with its references (``latex``) and the legend (``LEGEND``)."""
    from ..report.evaluation_page import LEGEND
    from ..report.markdown import tex_escape
    from .answer import sentences

    def esc(text):  # the sentences' and legend's symbols as math, so that pdflatex takes them too
        return "".join(TEX_SYMBOLS.get(ch, ch) for ch in tex_escape(text))

    said = sentences(ev)
    out = [f"% covstudy-evaluate report: {esc(ev.info['read'])}", r"\paragraph{The answer.}"]
    if said:
        out += [r"\begin{itemize}"] + [rf"\item {esc(x)}." for x in said] + [r"\end{itemize}"]
    out += [latex(ev.recommended), "", r"\paragraph{Legend.}", r"{\footnotesize"]
    out += [rf"\textbf{{{esc(t)}}}: {esc(m)}.\\" for t, m in LEGEND] + ["}", ""]
    return "\n".join(out)


TEX_SYMBOLS = {"−": "$-$", "≥": r"$\geq$", "≤": r"$\leq$", "δ": r"$\delta$", "ε": r"$\varepsilon$",
               "±": r"$\pm$", "×": r"$\times$", "…": r"\ldots{}", "Š": r"\v{S}", "ö": r'\"o', "|": r"$|$",
               "“": "``", "”": "''"}


def references(table) -> list[str]:
    """The report's references section (Markdown lines): each method of ``table`` numbered as in the LaTeX
    table, with its reference and its entry in docs/methods.md."""
    from ..report.references import cited, markdown_lines

    return markdown_lines(cited(table))
