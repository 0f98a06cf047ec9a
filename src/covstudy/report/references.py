"""Each method's reference, from the registry's ``reference=``: one list in docs/methods.md, cited by every report.

``anchor`` names a method's entry in docs/methods.md's references (``ref-<kind>-<short>``), ``section``
writes that list (tests/test_references.py keeps the page equal to it), and ``cited`` numbers the methods
of an evaluation's rows for its reports (report.md, its LaTeX table, report.html).
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
    from ..methods.registry import get

    out, seen = [], set()
    for kind, short in zip(table["kind"], table["method"]):
        try:
            m = get(f"{kind}.{short}")
        except (ValueError, KeyError):
            continue
        if m.qualified not in seen:
            seen.add(m.qualified)
            out.append((len(out) + 1, m.qualified, m.display, m.reference, anchor(m)))
    return out


def numbers(table) -> dict:
    """{(kind, method): its reference's number} for ``table``'s rows (``cited``)."""
    by_name = {q: n for n, q, *_ in cited(table)}
    return {(k, s): by_name[q] for k, s in zip(table["kind"], table["method"])
            for q in [_qualified(k, s)] if q in by_name}


def _qualified(kind, short):
    from ..methods.registry import get

    try:
        return get(f"{kind}.{short}").qualified
    except (ValueError, KeyError):
        return None
