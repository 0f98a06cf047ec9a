"""Every method's reference: one list in docs/methods.md from the registry, cited by every report (evaluations,
interval studies, the study kinds)."""

from pathlib import Path

import numpy as np
import pytest

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


def test_kind_cited_resolves_a_kind_s_method_values_under_its_prefixes():
    """Parameters and adjustments are not part of the name; a ``{column}`` prefix reads the row; unknown values
    (a calibration test, the bins' bootstrap) are left out; numbering follows first appearance."""
    import pandas as pd

    from covstudy.report.references import kind_cited

    table = pd.DataFrame({"curve": ["pr", "roc", "roc", "pr"],
                          "method": ["wilson", "sup_t draws=200", "wilson", "wilson+bonferroni"]})
    assert [q for _, q, *_ in kind_cited(table, ("{curve}_band",))] == [
        "pr_band.wilson", "roc_band.sup_t", "roc_band.wilson"]
    table = pd.DataFrame({"method": ["spiegelhalter", "bootstrap", "smooth", "clopper_pearson+sidak", "smooth"]})
    refs = kind_cited(table, ("ece", "proportion"))
    assert [(n, q) for n, q, *_ in refs] == [(1, "ece.smooth"), (2, "proportion.clopper_pearson")]
    assert refs[1][3] == methods()["proportion.clopper_pearson"].reference
    assert kind_cited(table.iloc[:0], ("ece",)) == [] and kind_cited(table, ("leaderboard",)) == []


KIND_STUDIES = {  # committed folder: (its kind, methods its report must cite)
    "roc_bands": ("bands", ("roc_band.working_hotelling", "roc_band.sup_t", "pr_band.wilson")),
    "peeking": ("sequential", ("sequential.mixture", "sequential.betting", "proportion.clopper_pearson")),
    "calibration": ("calibration", ("ece.debiased", "ece.smooth", "proportion.jeffreys")),
    "leaderboard": ("leaderboard", ("leaderboard.max_t", "leaderboard.bh", "leaderboard.bootstrap_ranks")),
}


@pytest.mark.parametrize("name", list(KIND_STUDIES))
def test_every_study_kind_s_report_cites_its_methods(tmp_path, name):
    """A study kind's report.md and report.html, as its writers write them from the committed tables, end with
    the references of its table's methods (``kind_cited`` under the kind's ``cites``), as the committed ones do."""
    import shutil

    import pandas as pd
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from covstudy import cli
    from covstudy.report.references import kind_cited, markdown_lines
    from covstudy.study.kinds import kind_of, write_page

    key, expected = KIND_STUDIES[name]
    committed = DOCS.parents[1] / "results" / name
    if not committed.is_dir():
        pytest.skip(f"no results/{name}")
    folder = tmp_path / name
    folder.mkdir()
    read = {".parquet": pd.read_parquet, ".csv": pd.read_csv}
    files = {"bands": "bands.parquet", "pointwise": "bands_pointwise.parquet", "check": "check.csv",
             "results": next((f for f in ("results.parquet", "results.csv") if (committed / f).is_file()), None)}
    with initialize_config_dir(config_dir=cli._conf_dir(), version_base="1.3"):
        raw = OmegaConf.to_container(compose(config_name="config", overrides=[f"study={name}"]), resolve=True)
    kind = kind_of(raw)
    assert kind.key == key and kind.cites
    study = kind.load({**raw, "out": str(folder)})
    tables = {t: read[Path(files[t]).suffix](committed / files[t]) for t in kind.tables}
    for t in kind.tables:
        shutil.copy(committed / files[t], folder / files[t])
    table = tables[kind.tables[0]]
    if key == "bands":
        from covstudy.bands.study import write_band_report as writer
    elif key == "calibration":
        from covstudy.calibration.study import write_report as writer
    elif key == "leaderboard":
        from covstudy.leaderboard.study import write_report

        def writer(study, table):
            write_report(study, table, tables["check"])
    else:
        from covstudy.sequential.study import report

        def writer(study, table):
            (folder / "report.md").write_text(report(study, table, tables["check"], []))
    writer(study, table)
    html = (kind.page(study, tables) if kind.page else write_page(kind, study, tables)).read_text()
    md = (folder / "report.md").read_text()
    refs = kind_cited(table, kind.cites)
    assert {q for _, q, *_ in refs} >= set(expected)
    for n, qualified, display, reference, where in refs:
        assert f"{n}. `{qualified}` ({display}): {reference} — `docs/methods.md#{where}`" in md
        assert f"<code>{qualified}</code>" in html and f"docs/methods.md#{where}" in html
    section = "\n".join(markdown_lines(refs)).rstrip("\n") + "\n"
    assert md.endswith(section) and (committed / "report.md").read_text().endswith(section), \
        f"results/{name}/report.md lacks its references: python experiments/explorer_pages.py"
    assert html[html.index("<section><h2>References</h2>"):].split("</section>")[0] in \
        (committed / "report.html").read_text()
