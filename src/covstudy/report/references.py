"""Each method's reference, from the registry's ``reference=``: one list in docs/methods.md, cited by every report.

``anchor`` names a method's entry in docs/methods.md's references (``ref-<kind>-<short>``), ``section``
writes that list (tests/test_references.py keeps the page equal to it), ``cited`` numbers the methods
of an evaluation's rows for its reports (report.md, its LaTeX table, report.html), ``study_cited`` those of a
study's table (its report.md and report.html), ``kind_cited`` those of a study kind's table (bands, sequential,
calibration, leaderboard: study/kinds.py, each kind's ``cites``).
"""

from __future__ import annotations

PAGE = "docs/methods.md"  # where the list lives, in the repository and on the documentation site (methods/)
START = "<!-- references: covstudy.report.references.section(); tests/test_references.py keeps them equal -->"


def anchor(method) -> str:
    """The id of ``method``'s entry (a registry ``Method``): ``ref-proportion-clopper-pearson``."""
    return "ref-" + method.qualified.replace(".", "-").replace("_", "-")


def section() -> str:
    """The references of every registered interval method, by kind, each under its anchor (Markdown)."""
    from ..methods.registry import methods

    lines = [START, "", "## References", "",
             "Every registered method, by its qualified name (what `interval()` and the reports call it), with "
             "the reference its kernel cites; reports link here by these anchors.", ""]
    for m in methods().values():
        lines.append(f'- <a id="{anchor(m)}"></a>`{m.qualified}` ({m.display}): {m.reference}')
    return "\n".join(lines) + "\n"


def cited(table) -> list:
    """[(number, qualified name, display, reference, anchor)] of the methods in an evaluation's rows
    (columns ``kind``, ``method``), numbered in order of first appearance; rows naming no registered method
    (an undefined metric's "—") are left out."""
    out, seen = [], set()
    for kind, short in zip(table["kind"], table["method"]):
        m = method_of(kind, short)
        if m is not None and m.qualified not in seen:
            seen.add(m.qualified)
            out.append((len(out) + 1, m.qualified, m.display, m.reference, anchor(m)))
    return out


def study_cited(df) -> list:
    """``cited`` for a study's results table (columns ``method`` and, where present, ``design``, ``metric``): each
    distinct method resolved as the study read it (``study.summary.resolve_method``), in order of appearance."""
    from ..study.summary import _context, resolve_method

    out, seen = [], set()
    for key in dict.fromkeys(_context(df)):
        m = resolve_method(*key)
        if m is not None and m.qualified not in seen:
            seen.add(m.qualified)
            out.append((len(out) + 1, m.qualified, m.display, m.reference, anchor(m)))
    return out


def kind_cited(df, prefixes) -> list:
    """``cited`` for a study kind's table: each distinct ``method`` value resolved in the registry as
    ``<prefix>.<name>``, the kind's ``prefixes`` tried in order, in order of first appearance. ``name`` is the
    value without its parameters (``bootstrap draws=200``) or, failing that, without its adjustment
    (``clopper_pearson+bonferroni``: the Clopper–Pearson interval, adjusted); a prefix may name one of the
    table's columns in braces (``{curve}_band``: ``roc_band`` or ``pr_band`` per row). Values no prefix
    resolves (a calibration study's tests, the bins' bootstrap: no registered method) are left out."""
    from string import Formatter

    from ..methods.registry import methods

    every = methods()
    if df is None or "method" not in df or not len(df):
        return []
    columns = ["method", *dict.fromkeys(f for p in prefixes for _, f, _, _ in Formatter().parse(p) if f)]
    out, seen = [], set()
    for values in dict.fromkeys(zip(*(df[c].astype(str) for c in columns))):
        row = dict(zip(columns, values))
        name = row["method"].split()[0] if row["method"].strip() else ""
        names = dict.fromkeys((name, name.split("+")[0]))
        m = next((every[q] for p in prefixes for short in names if (q := f"{p.format(**row)}.{short}") in every), None)
        if m is not None and m.qualified not in seen:
            seen.add(m.qualified)
            out.append((len(out) + 1, m.qualified, m.display, m.reference, anchor(m)))
    return out


def markdown_lines(refs) -> list[str]:
    """A report's references section (Markdown lines) from ``cited``/``study_cited``'s list: [] when empty."""
    if not refs:
        return []
    return ["## References", "", f"Each method's reference (every method's: `{PAGE}`, by these anchors):", ""] + [
        f"{n}. `{q}` ({display}): {reference} — `{PAGE}#{where}`" for n, q, display, reference, where in refs] + [""]


def html_section(refs) -> str:
    """The same as an HTML section ("" when empty)."""
    from html import escape

    items = "".join(f"<li><code>{escape(q)}</code> ({escape(display)}): {escape(reference)} — "
                    f"<code>{PAGE}#{where}</code></li>" for _, q, display, reference, where in refs)
    return f"<section><h2>References</h2><ol>{items}</ol></section>" if items else ""


def numbers(table) -> dict:
    """{(kind, method): its reference's number} for ``table``'s rows (``cited``)."""
    by_name = {q: n for n, q, *_ in cited(table)}
    found = {(k, s): method_of(k, s) for k, s in zip(table["kind"], table["method"])}
    return {key: by_name[m.qualified] for key, m in found.items() if m is not None}


def method_of(kind, name):
    """The registered method of an evaluation row: ``name`` (short, or qualified as ``f1.bayes``) within ``kind``
    (a kind of input, ``two_class``, or a public kind, ``ece``); None if none answers."""
    from ..methods.registry import INPUTS, get

    every = tuple(INPUTS)  # bands and ECE methods too, which a lookup without a kind leaves out
    for look, takes in ((name, kind if kind in INPUTS else every), (f"{kind}.{name}", every)):
        try:
            return get(look, takes)
        except (ValueError, KeyError):
            continue
    return None
