"""An interval study's folder made readable: its figures, report.md, report.tex and report.html (and
results/index.html when it sits in ``results/``), and the line that says how to open them."""

from __future__ import annotations

from pathlib import Path


def write_all(folder: Path, report: bool = True) -> list[Path]:
    """Draw the figures and write report.md, report.tex and report.html of ``folder``, and, when
    it sits in a folder named ``results``, results/index.html over every study there."""
    from ..plots import plot_results
    from .explorer import write_html, write_index
    from .markdown import write_report

    paths = plot_results(folder)
    if report:
        paths += [*write_report(folder), write_html(folder)]
        if Path(folder).resolve().parent.name == "results":
            paths.append(write_index(Path(folder).resolve().parent))
    return paths


def how_to_open(folder: Path) -> str:
    """The last line of a run: its reports and how to open the HTML one."""
    page = Path(folder) / "report.html"
    return (f"report: {page} (interactive; open it in a browser: {page.resolve().as_uri()}) "
            f"and {Path(folder) / 'report.md'}")
