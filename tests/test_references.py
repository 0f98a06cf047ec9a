"""Every method's reference: one list in docs/methods.md from the registry, cited by every evaluation report."""

from pathlib import Path

import numpy as np

from covstudy import evaluate
from covstudy.evaluation import render
from covstudy.methods.registry import methods
from covstudy.report.evaluation_page import evaluation_page
from covstudy.report.references import START, anchor, cited, section

DOCS = Path(__file__).resolve().parents[1] / "docs" / "methods.md"


def test_docs_methods_ends_with_the_registry_s_references():
    text = DOCS.read_text()
    assert text.count(START) == 1 and text[text.index(START):] == section(), \
        "docs/methods.md's references differ from the registry: rewrite them from covstudy.report.references.section()"
    anchors = [anchor(m) for m in methods().values()]
    assert len(set(anchors)) == len(anchors) == len(methods())
    for m in methods().values():
        assert f'<a id="{anchor(m)}"></a>`{m.qualified}`' in text and m.reference in text


def _evaluation():
    rng = np.random.default_rng(3)
    truth = np.r_[np.ones(30, int), np.zeros(50, int)]
    predicted = np.where(rng.random(80) < 0.85, truth, 1 - truth)
    return evaluate(truth, predicted, metrics=["accuracy"], progress=False, reps=200)


def test_every_report_cites_each_method_and_latex_keeps_the_flags(tmp_path):
    ev = _evaluation()
    refs = cited(ev.table)
    assert [n for n, *_ in refs] == list(range(1, len(refs) + 1)) and len(refs) >= 5
    md = render.markdown(ev)
    html = evaluation_page(ev, tmp_path)
    tex = render.latex(ev.recommended)
    for n, qualified, display, reference, where in refs:
        assert f"docs/methods.md#{where}" in md and f"docs/methods.md#{where}" in html
        assert reference.split(",")[0] in md
    for _, r in ev.recommended.iterrows():  # each recommended row: its reference number and its flag, in LaTeX
        n = next(n for n, q, *_ in cited(ev.recommended) if q.endswith("." + r.method))
        assert f"{r.method.replace('_', ' ')}~[{n}]" in tex
    below = ev.recommended.assign(meets_target="no")  # a row below target keeps its flag in the LaTeX table
    tex = render.latex(below)
    assert "NO: below target" in tex and r"\begin{tabular}{llrrrrl}" in tex and "docs/methods.md" in tex


def test_every_row_of_the_committed_example_resolves_to_its_method():
    """Each (kind, method) of an evaluation's rows names one registered method: its reference is cited."""
    import pandas as pd

    from covstudy.report.references import method_of

    table = pd.read_csv(DOCS.parents[1] / "results" / "evaluate_example" / "table.csv")
    unresolved = {(k, m) for k, m in zip(table.kind, table.method) if method_of(k, m) is None}
    qualified = {method_of(k, m).qualified for k, m in zip(table.kind, table.method)}
    assert not unresolved and [q for _, q, *_ in cited(table)] == sorted(qualified, key=[
        method_of(k, m).qualified for k, m in zip(table.kind, table.method)].index)
