"""The answer in words (evaluation/answer.py): the comparisons' sentences, the one-screen default of
covstudy-evaluate, the leaderboard's "A is better than C and D", the reports' opening and legend, and the
notebook view (``Evaluation._repr_html_``). Cheap: no audit (the guaranteed rows answer) or tiny budgets."""

import numpy as np
import pandas as pd
import pytest

import covstudy
from covstudy.evaluation.answer import (comparison, leaderboard_family, leaderboard_sentences, number, screen,
                                        sentences, verdicts)
from covstudy.evaluation.cli import main
from covstudy.evaluation.leaderboard import leaderboard
from covstudy.report.evaluation_page import BELOW, EVALUATION_COLUMNS, LEGEND


def test_a_sentence_claims_only_where_the_interval_excludes_zero():
    assert comparison("recall", 0.047, 0.012, 0.081, "A", "B", 0.95) == (
        "A is better than B on recall: difference 0.047, 95% interval [0.012, 0.081]")
    # the second model better: named first, the difference and interval signed to it
    assert comparison("auc", -0.047, -0.081, -0.012, "A", "B", 0.9) == (
        "B is better than A on AUC: difference 0.047, 90% interval [0.012, 0.081]")
    assert comparison("accuracy", 0.004, -0.02, 0.03, "A", "B", 0.95) == (
        "No difference shown on accuracy: difference 0.004, 95% interval [−0.020, 0.030]")
    assert comparison("f1", 0.1, 0.0, 0.2, "A", "B", 0.95).startswith("No difference shown on F1")  # 0 included
    said = comparison("npv", 0.1, 0.05, 0.2, "A", "B", 0.95, "delta", BELOW)
    assert said.startswith("A is better than B on NPV") and "not shown to meet the target, treat it with care" in said
    assert comparison("recall", 0.1, 0.05, 0.2, "A", "B", 0.95, "bonett_price", "yes, estimated").endswith(
        "(bonett_price, estimated)")
    assert number(-0.0004) == "0.000" and number(-0.25) == "−0.250"


@pytest.fixture(scope="module")
def two_models():
    """A clearly better first model on accuracy (no audit: each metric's guaranteed method answers)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    good = np.where(rng.random(300) < 0.95, y, 1 - y)
    poor = np.where(rng.random(300) < 0.70, y, 1 - y)
    frame = pd.DataFrame({"y": y, "good": good, "poor": poor})
    return covstudy.evaluate(frame.y, frame.good, second_predicted=frame.poor, audit=False, progress=False,
                             metrics=["accuracy", "recall", "accuracy_difference", "recall_difference",
                                      "superiority_probability"]), frame


def test_sentences_from_the_recommended_difference_rows(two_models):
    ev, frame = two_models
    said = sentences(ev)
    rec = ev.recommended.set_index("metric")
    acc = rec.loc["accuracy_difference"]
    assert acc.lower > 0  # the claim below rests on this row, the recommended one
    assert said[0] == (f"good is better than poor on accuracy: difference {number(acc.estimate)}, 95% interval "
                       f"[{number(acc.lower)}, {number(acc.upper)}] ({acc.method}, guaranteed by proof)")
    recall = rec.loc["recall_difference"]
    expected = "good is better than poor on recall" if recall.lower > 0 else "No difference shown on recall"
    assert said[1].startswith(expected)
    assert said[-1].startswith("P(good is more accurate than poor | the data) = ")
    assert ev.answer == said
    assert [v["metric"] for v in verdicts(ev)] == ["accuracy", "recall"]  # comparisons are sentences, not rows


def test_no_difference_shown_between_two_equal_models():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 120)
    a = np.where(rng.random(120) < 0.8, y, 1 - y)
    b = np.where(rng.random(120) < 0.8, y, 1 - y)
    ev = covstudy.evaluate(y, a, second_predicted=b, audit=False, progress=False, metrics=["accuracy_difference"])
    r = ev.recommended.iloc[0]
    assert r.lower < 0 < r.upper
    assert ev.answer[0].startswith("No difference shown on accuracy: difference ")
    assert "the first model − the second model" in ev.comparing  # unnamed arrays


def test_the_cli_prints_one_screen_and_the_full_table_on_request(two_models, tmp_path, capsys):
    _, frame = two_models
    frame.to_csv(tmp_path / "f.csv", index=False)
    argv = [str(tmp_path / "f.csv"), "--truth", "y", "--predicted", "good", "--second-predicted", "poor", "--quiet",
            "--no-audit"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines[0].startswith("Recommended intervals") and lines[1].split() == [
        "metric", "estimate", "95%", "interval", "method", "meets", "the", "target?"]
    assert any(x.startswith("- good is better than poor on accuracy: difference ") for x in lines)
    assert "coverage_at_estimate" not in out and "accuracy_difference" not in out and len(lines) <= 40
    assert main([*argv, "--table"]) == 0
    full = capsys.readouterr().out
    ev = covstudy.evaluate(frame.y, frame.good, second_predicted=frame.poor, audit=False, progress=False)
    assert full.splitlines()[0].split()[:4] == ["metric", "method", "estimate", "lower"]
    assert sum(1 for x in full.splitlines()[1:] if x.split() and x.split()[0] in set(ev.table.metric)) == len(ev.table)


def test_the_reports_open_with_the_answer_and_a_legend(two_models, tmp_path):
    ev, _ = two_models
    md = ev.to_markdown()
    assert md.index("## The answer") < md.index("## Recommended intervals")
    for s in ev.answer:
        assert f"- {s}." in md
    assert "### Legend" in md
    ev.save(tmp_path)
    html = (tmp_path / "report.html").read_text()
    from html import escape

    assert html.index('id="answer"') < html.index("Every method, audited") and escape(ev.answer[0]) in html
    tex = (tmp_path / "report.tex").read_text()
    assert tex.index(r"\paragraph{The answer.}") < tex.index(r"\begin{tabular}") < tex.index(r"\paragraph{Legend.}")
    assert "$-$" in tex or "−" not in " ".join(ev.answer)  # the minus sign as math for pdflatex


def test_the_legend_explains_every_term_the_tables_use():
    said = " ".join(f"{t} {m}" for t, m in LEGEND)
    terms = " ".join(t for t, _ in LEGEND)
    for column in EVALUATION_COLUMNS:  # the audited table's columns
        if column not in ("metric", "lower", "upper", "worst_is_upper_bound", "worst_at", "coverage_mcse",
                          "worst_mcse"):
            assert column in terms, column
    for word in ("lower", "upper", "worst_at", "coverage_mcse", "worst_mcse", "ε", "δ"):
        assert word in said, word
    for verdict in ("certified", "guaranteed", "estimated", "undecided", "NO: below target", "not audited", "≤",
                    "narrower", "MCSE", "meets the target", "difference", "superiority_probability"):
        assert verdict in terms, verdict


def test_the_notebook_view_shows_the_answer_first(two_models):
    ev, _ = two_models
    from html import escape

    html = ev._repr_html_()
    assert html.index("meets the target?") < html.index(escape(ev.answer[0])) < html.index("Legend") < html.index(
        'id="audited"')
    assert "<script" not in html and html.count("<tr") >= len(ev.table)
    assert repr(ev).splitlines()[1].startswith("Recommended intervals")


@pytest.fixture(scope="module")
def board():
    """Four models, the first two far better than the last two (no audit: the guaranteed family answers)."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 400)
    models = {name: np.where(rng.random(400) < acc, y, 1 - y)
              for name, acc in (("A", 0.95), ("B", 0.94), ("C", 0.70), ("D", 0.69))}
    return leaderboard(y, models, audit=False)


def test_a_leaderboard_says_which_models_are_shown_better(board):
    fam = leaderboard_family(board)
    assert fam["name"] == "guaranteed" and "no audit was run" in fam["why"]
    said = leaderboard_sentences(board)
    assert list(board.models.model) == ["B", "A", "C", "D"]  # by accuracy (B's sample beat A's): the order said
    assert said[0] == "B is better than C and D" and said[1] == "A is better than C and D"
    assert said[2] == "No order shown between A and B; C and D"
    # each claim is a guaranteed pair interval that excludes 0, and each unordered pair one that holds it
    p = board.pairs.set_index(["first", "second"])
    assert (p.loc[[("A", "C"), ("A", "D"), ("B", "C"), ("B", "D")], "guaranteed_lower"] > 0).all()
    assert p.loc[("A", "B"), "guaranteed_lower"] <= 0 <= p.loc[("A", "B"), "guaranteed_upper"]


def test_a_leaderboard_answers_with_max_t_where_its_audit_meets_the_target(board):
    from dataclasses import replace

    audited = replace(board, audit=dict(reps=2000, family_coverage=0.953, family_coverage_mcse=0.004,
                                        rank_coverage=0.96, rank_coverage_mcse=0.004))
    assert leaderboard_family(audited)["name"] == "max_t"
    short = replace(board, audit=dict(reps=2000, family_coverage=0.94, family_coverage_mcse=0.005,
                                      rank_coverage=0.96, rank_coverage_mcse=0.004))
    assert leaderboard_family(short)["name"] == "guaranteed" and "0.940 ± 0.005" in leaderboard_family(short)["why"]


def test_screen_without_comparisons_has_no_sentences():
    ev = covstudy.evaluate([1, 1, 0, 1, 0, 1, 1, 0, 1, 1] * 5, [1, 0, 0, 1, 0, 1, 1, 1, 1, 1] * 5,
                           metrics=["accuracy"], audit=False, progress=False)
    assert ev.answer == [] and ev.comparing == ""
    assert screen(ev).splitlines()[2].split()[:3] == ["accuracy", "0.8000", "[0.6628,"]


def test_the_readme_shows_the_committed_example_s_answer():
    """The README's output block is the one screen of results/evaluate_example/table.csv (what the command wrote)."""
    from pathlib import Path

    from covstudy.evaluation.result import Evaluation

    root = Path(__file__).resolve().parents[1]
    table = pd.read_csv(root / "results" / "evaluate_example" / "table.csv")
    info = dict(delta=0.05, epsilon=0.005, n=int(table.n.iloc[0]),
                columns=dict(predicted="logistic_label", second_predicted="naive_bayes_label"))
    shown = screen(Evaluation(table, {}, [], info)).splitlines()
    readme = (root / "README.md").read_text().splitlines()
    assert len(shown) > 20 and [x for x in shown if x not in readme] == []
