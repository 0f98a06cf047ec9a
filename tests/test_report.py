"""The per-method summary table and report.md / report.tex."""

import re

import numpy as np
import pandas as pd
import pytest

from covstudy import coverage
from covstudy.report.markdown import mc_agreement, summary_table, tex_escape, write_report
from tidy_tables import binomial_table, write_folder


def hand_table():
    """Method a: exact, 3 cells; method b: MC, 3 cells (numbers chosen for hand computation)."""
    return pd.DataFrame({
        "method": ["a"] * 3 + ["b"] * 3,
        "n": [10, 10, 20, 10, 10, 20],
        "p": [0.1, 0.5, 0.1] * 2,
        "delta": 0.05,
        "engine": ["exact"] * 3 + ["mc"] * 3,
        "coverage": [0.96, 0.94, 0.95, 0.94, 0.94, 0.90],
        "mcse": [np.nan] * 3 + [0.004, 0.006, 0.01],
        "mean_width": [0.1, 0.2, 0.3, 0.4, 0.5, 0.9],
    })


def test_summary_table_matches_hand_computation():
    s = summary_table(hand_table()).set_index("label")
    assert list(s.index) == ["a", "b"]
    assert (s["side"] == "two-sided").all() and list(s["engine"]) == ["exact", "mc"]
    assert list(s["cells"]) == [3, 3]
    np.testing.assert_allclose(s["mean_coverage"], [0.95, (0.94 + 0.94 + 0.90) / 3], rtol=1e-12)
    np.testing.assert_allclose(s["min_coverage"], [0.94, 0.90], rtol=1e-12)
    # exact: only 0.94 < 0.95 (0.95 itself is not below); MC: 0.94 + 0.008 and 0.90 + 0.02 fall
    # short of 0.95, 0.94 + 0.012 does not
    np.testing.assert_allclose(s["below_nominal"], [1 / 3, 2 / 3], rtol=1e-12)
    np.testing.assert_allclose(s["mean_abs_error"], [0.02 / 3, (0.01 + 0.01 + 0.05) / 3], rtol=1e-9)
    np.testing.assert_allclose(s["mean_width"], [0.2, 0.6], rtol=1e-12)


def test_summary_groups_by_delta_and_side_and_uses_labels():
    df = pd.concat([hand_table().assign(delta=0.05), hand_table().assign(delta=0.1, side="lower")])
    df["label"] = df["method"].map({"a": "A (label)", "b": "B"})
    s = summary_table(df)
    assert len(s) == 4
    assert list(zip(s["label"], s["delta"], s["side"])) == [
        ("A (label)", 0.05, "two-sided"), ("A (label)", 0.1, "lower"), ("B", 0.05, "two-sided"), ("B", 0.1, "lower")]
    # against nominal 0.9 nothing is below; |coverage - 0.9| for A = (0.06 + 0.04 + 0.05)/3
    row = s[(s["label"] == "A (label)") & (s["delta"] == 0.1)].iloc[0]
    assert row["below_nominal"] == 0.0
    assert row["mean_abs_error"] == pytest.approx(0.05, rel=1e-9)


def test_summary_of_real_exact_coverage():
    ps = np.linspace(0.02, 0.98, 49)
    df = binomial_table(["wald", "clopper_pearson"], [20, 40], ps)
    s = summary_table(df).set_index("method")
    assert list(s["label"]) == ["Wald", "Clopper–Pearson"]  # registry order, display names
    # independent recomputation straight from covstudy.coverage
    wald = np.concatenate([coverage("wald", n, ps).coverage for n in (20, 40)])
    assert s.loc["wald", "mean_coverage"] == pytest.approx(wald.mean(), rel=1e-12)
    assert s.loc["wald", "below_nominal"] == pytest.approx(np.mean(wald < 0.95), rel=1e-12)
    assert s.loc["wald", "below_nominal"] > 0.5  # BCD (2001): Wald undercovers almost everywhere
    # Clopper-Pearson is guaranteed: never below nominal
    assert s.loc["clopper_pearson", "below_nominal"] == 0.0
    assert s.loc["clopper_pearson", "min_coverage"] >= 0.95


@pytest.fixture(scope="module")
def report_folder(tmp_path_factory):
    from covstudy.plotting import plot_results

    folder = tmp_path_factory.mktemp("report")
    study = {"name": "tiny_study", "question": "Does Wilson cover at n = 15?", "methods": ["wilson", "clopper_pearson"],
             "engine": "exact", "out": "results/tiny_study"}
    write_folder(folder, binomial_table(["wilson", "clopper_pearson"], [15], [0.1, 0.3, 0.5]), study)
    plot_results(folder, formats=("png",))
    md, tex = write_report(folder)
    return folder, md, tex


def test_report_md_has_question_config_table_figures_and_rerun(report_folder):
    folder, md, _ = report_folder
    text = md.read_text()
    assert text.startswith("# Coverage study: tiny_study\n")
    assert "Does Wilson cover at n = 15?" in text
    assert "```yaml\nname: tiny_study\n" in text
    assert "| method | δ | side | engine | cells | mean coverage |" in text
    assert re.search(r"^\| Wilson \| 0\.05 \| two-sided \| exact \| 3 \| 0\.\d{4} \|", text, re.M)
    assert re.search(r"^\| Clopper–Pearson \| 0\.05 \| two-sided \| exact \| 3 \| .* \| 0\.0% \|", text, re.M)
    assert "coverage + 2·MCSE < 1 − δ" in text  # the below-nominal rule is stated
    assert "covstudy study=tiny_study out=results/tiny_study" in text
    links = re.findall(r"\]\((figures/[^)]+)\)", text)
    assert any(link.endswith(".png") for link in links)
    pngs = [link for link in links if link.endswith(".png")]
    assert sorted(pngs) == sorted(f"figures/{p.name}" for p in (folder / "figures").glob("*.png"))
    for link in pngs:
        assert (folder / link).is_file(), link


def test_report_tex_is_a_booktabs_table(report_folder):
    _, _, tex = report_folder
    text = tex.read_text()
    for command in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}", r"\caption{", r"\label{"):
        assert command in text
    assert r"Clopper--Pearson & 3 &" in text
    assert r"tiny\_study" in text and r"\label{tab:covstudy-tiny-study}" in text
    assert r"$\delta = 0.05$" in text  # constant columns move into the caption
    body = text[text.index(r"\midrule"):text.index(r"\bottomrule")]
    assert re.search(r"(?<!\\)_", body) is None  # every underscore escaped
    assert body.count(r"\\") == 2  # one row per method


def test_report_without_study_yaml(tmp_path):
    write_folder(tmp_path, binomial_table(["wald"], [10], [0.5]))
    md, tex = write_report(tmp_path)
    text = md.read_text()
    assert f"# Coverage study: {tmp_path.name}" in text and "No study.yaml" in text
    assert "## Figures" not in text  # none drawn
    assert r"\toprule" in tex.read_text()


def test_write_report_without_results_raises(tmp_path):
    with pytest.raises(FileNotFoundError, match="no results.csv"):
        write_report(tmp_path)


def test_tex_escape():
    assert tex_escape("a_b & 50% #1 $x$ {y} ~^\\") == (
        r"a\_b \& 50\% \#1 \$x\$ \{y\} \textasciitilde{}\textasciicircum{}\textbackslash{}")


def test_mc_agreement_hand_computation():
    # exact 0.9 with reps 100: SE = sqrt(0.09/100) = 0.03, so z = (c - 0.9)/0.03
    df = pd.DataFrame({"method": "wilson", "n": 10, "p": [0.1, 0.2, 0.3, 0.4], "delta": 0.05, "engine": "mc",
                       "reps": 100, "coverage": [0.93, 0.81, 0.9, 0.5], "mcse": 0.03,
                       "exact_coverage": [0.9, 0.9, 0.9, 1.0], "mean_width": 0.3})
    a = mc_agreement(df).iloc[0]
    z = np.array([1.0, -3.0, 0.0])  # the cell with exact coverage 1 has no SE and is left out
    assert a["cells"] == 3
    assert a["mean_z"] == pytest.approx(z.mean(), abs=1e-9)
    assert a["sd_z"] == pytest.approx(z.std(ddof=1), rel=1e-9)
    assert a["beyond_2"] == pytest.approx(1 / 3) and a["max_abs_z"] == pytest.approx(3.0, rel=1e-9)
    assert mc_agreement(df.assign(engine="exact")).empty


def test_report_compares_mc_with_exact_rows_of_the_same_table(tmp_path):
    exact = binomial_table(["jeffreys"], [30], [0.2, 0.5, 0.8])
    mc = binomial_table(["jeffreys"], [30], [0.2, 0.5, 0.8], reps=4000, seed=11)
    write_folder(tmp_path, pd.concat([exact, mc, exact.iloc[:1]]))  # a duplicated exact row must not duplicate
    md, _ = write_report(tmp_path)
    text = md.read_text()
    assert "## Monte Carlo against exact" in text
    row = re.search(r"^\| Jeffreys \| 0\.05 \| two-sided \| 3 \| ([-+]\d\.\d+) \| (\d\.\d+) \|", text, re.M)
    assert row is not None
    assert abs(float(row.group(1))) < 3  # the MC engine agrees with exact within a few SE
    assert re.search(r"^\| Jeffreys \| 0\.05 \| two-sided \| exact \| 4 \|", text, re.M)
    assert re.search(r"^\| Jeffreys \| 0\.05 \| two-sided \| mc \| 3 \|", text, re.M)
