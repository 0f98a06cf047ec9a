"""What ``covstudy.evaluate`` read must be said, and never silently re-interpreted (issue 42)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import covstudy
from covstudy.evaluation.cli import main
from covstudy.evaluation.data import InputError

Y = np.array([1] * 60 + [0] * 140)
P = np.array([1] * 50 + [0] * 10 + [1] * 20 + [0] * 120)


def _quiet(**kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = covstudy.evaluate(audit=False, metrics=["accuracy"], **kw)
    return ev, [str(w.message) for w in caught]


def test_the_classes_read_are_named_with_their_counts():
    ev, caught = _quiet(truth=Y, predicted=P)
    assert ev.info["read"] == "read 200 rows; truth has 2 classes: 0: 140, 1 (positive): 60"
    assert ev.info["counts"] == [140, 60] and not caught
    assert ev.info["read"] in ev.to_markdown()


def test_a_stray_label_warns_without_classes_and_is_an_error_with_them():
    y = np.r_[Y, 2]  # one stray 2 among 0/1: three classes, and the binary metrics gone
    p = np.r_[P, 1]
    ev, caught = _quiet(truth=y, predicted=p)
    assert len(ev.info["classes"]) == 3
    assert any("class(es) 2 (1 of 201 rows)" in w and "3-class" in w for w in caught)
    assert any("class(es) 2" in w for w in ev.warnings)
    with pytest.raises(InputError, match=r"^truth: label\(s\) 2 not among the stated classes 0, 1 \(first at row 200\)"):
        covstudy.evaluate(y, p, classes=[0, 1], audit=False)
    with pytest.raises(InputError, match=r"^predicted: label\(s\) 2 not among"):
        covstudy.evaluate(Y, np.r_[P[:-1], 2], classes="0,1", audit=False)
    with pytest.raises(InputError, match=r"^classes: 'c' never occur"):
        covstudy.evaluate(["a", "b", "a"], ["a", "b", "b"], classes=["a", "b", "c"], audit=False)
    ev, caught = _quiet(truth=Y.astype(str), predicted=P.astype(str), classes=["0", "1"])
    assert ev.info["classes"] == ["0", "1"] and not caught


@pytest.mark.parametrize("bad, message", [
    (np.inf, r"^truth: 1 label\(s\) not usable as a class \(non-finite or beyond 2\*\*53: inf; first at row 3\)"),
    (1e20, r"^truth: 1 label\(s\) not usable as a class \(non-finite or beyond 2\*\*53: 1e\+20; first at row 3\)"),
])
def test_non_finite_or_huge_labels_are_an_error(bad, message):
    y = np.array([1.0, 0.0, 1.0, bad, 0.0])
    with pytest.raises(InputError, match=message):
        covstudy.evaluate(y, [1, 0, 1, 1, 0], audit=False)


def test_labels_that_are_not_whole_warn():
    _, caught = _quiet(truth=[0.0, 1.0, 0.5, 1.0, 0.0, 0.5], predicted=[0.0, 1.0, 0.5, 1.0, 0.5, 0.5])
    assert any(w.startswith("truth: 2 label(s) are not whole numbers (0.5)") for w in caught)


def test_cli_names_what_it_read_and_refuses_a_duplicated_column(tmp_path, capsys):
    f = tmp_path / "t.csv"
    pd.DataFrame({"y": Y, "p": P}).to_csv(f, index=False)
    assert main([str(f), "--truth", "y", "--predicted", "p", "--no-audit"]) == 0
    err = capsys.readouterr().err
    assert "covstudy-evaluate: note: read 200 rows; y has 2 classes: 0: 140, 1 (positive): 60" in err
    rows = "\n".join(f"{a},{b},{b}" for a, b in zip(Y, 1 - Y))
    (tmp_path / "d.csv").write_text("y,p,p\n" + rows + "\n")  # pandas would read the second p as p.1
    assert main([str(tmp_path / "d.csv"), "--truth", "y", "--predicted", "p", "--no-audit"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "p: 2 columns of" in err and "(columns 2, 3)" in err
    assert main([str(tmp_path / "d.csv"), "--truth", "y", "--predicted", "p.1", "--no-audit"]) == 2
    assert "p.1: no such column" in capsys.readouterr().err
    pd.DataFrame({"y": np.r_[Y, 2], "p": np.r_[P, 1]}).to_csv(f, index=False)
    assert main([str(f), "--truth", "y", "--predicted", "p", "--no-audit", "--classes", "0,1"]) == 2
    assert "y: label(s) 2 not among the stated classes '0', '1'" in capsys.readouterr().err


def test_a_classifier_that_never_predicts_the_positive_class_is_evaluated(tmp_path, capsys):
    y = np.array([1] * 20 + [0] * 30)
    s = np.r_[np.linspace(0.3, 0.9, 20), np.linspace(0.0, 0.6, 30)]
    ev = covstudy.evaluate(y, np.zeros(50, int), s, metrics=["accuracy", "precision", "recall", "specificity", "auc"],
                           reps=100)
    rec = ev.recommended.set_index("metric")
    assert list(rec.index) == ["accuracy", "precision", "recall", "specificity", "auc"]
    assert rec.loc["accuracy", "estimate"] == 0.6 and rec.loc["recall", "estimate"] == 0.0
    assert rec.loc["specificity", "estimate"] == 1.0 and rec.loc["auc", "estimate"] > 0.8
    assert rec.drop("precision").lower.notna().all()
    row = rec.loc["precision"]
    assert np.isnan(row.lower) and np.isnan(row.estimate) and row.note == "undefined: no predicted positives (tp + fp = 0)"
    assert ev.reasons["precision"].startswith("precision = tp / (tp + fp) is 0/0")
    assert "undefined: no predicted positives" in repr(ev) and "undefined: no predicted positives" in ev.to_markdown()
    f = tmp_path / "t.csv"
    pd.DataFrame({"y": y, "p": 0}).to_csv(f, index=False)
    assert main([str(f), "--truth", "y", "--predicted", "p", "--no-audit", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "undefined: no predicted positives" in out and "f1 " in out and "npv " in out
    assert "undefined: no predicted positives" in (tmp_path / "o" / "report.html").read_text()


def test_method_labels_are_unique_within_a_metric_and_usable_as_typed():
    import matplotlib.pyplot as plt

    y = np.array([1] * 40 + [0] * 40)
    p = np.array([1] * 40 + [1] + [0] * 39)
    ev = covstudy.evaluate(y, p, metrics=["f1", "precision"], audit=False)
    for metric, rows in ev.table.groupby("metric"):
        assert rows.method.is_unique, metric
        for r in rows.itertuples():  # the label, typed into the door, gives the row's interval
            lo, hi = covstudy.interval(r.method, metric=metric, tp=40, fn=0, fp=1, tn=39)
            assert (lo, hi) == (r.lower, r.upper), r.method
    f1 = ev.table[ev.table.metric == "f1"].method.tolist()
    assert "f1.bayes" in f1 and "proportion.bayes" in f1 and "bayes" not in f1
    fig = ev.plot()
    for ax in fig.axes:
        labels = [t.get_text().rstrip(" ★") for t in ax.get_yticklabels()]
        assert len(set(labels)) == len(labels)
    plt.close(fig)


def test_a_score_column_given_as_predicted_is_a_short_error():
    y = np.array([1, 0] * 500)
    s = np.linspace(0.001, 0.999, 1000)
    with pytest.raises(InputError) as e:
        covstudy.evaluate(y, s, audit=False)
    msg = str(e.value)
    assert len(msg) < 200 and "\n" not in msg
    assert msg.startswith("predicted: 1000 label(s) never occur in truth (") and "… and 997 more" in msg
    assert "--score" in msg


def test_the_page_fits_and_leads_with_one_line_per_metric(tmp_path):
    import re

    import matplotlib.pyplot as plt

    y = np.array([1] * 40 + [0] * 40)
    p = np.array([1] * 36 + [0] * 4 + [1] * 5 + [0] * 35)
    ev = covstudy.evaluate(y, p, metrics=["accuracy", "recall", "specificity"], reps=100)
    ev.save(tmp_path)
    html = (tmp_path / "report.html").read_text()
    # every table scrolls in a box as wide as the page (.fit), so a 1400-px window holds the page
    assert html.count("<table") == html.count('<div class="fit"><table')
    assert re.search(r"\.fit \{[^}]*overflow-x: auto", html)
    # headers wrap after an underscore, never inside a word ("estimat|e", "coverage_at_est|imate" before)
    assert "<th data-type=\"num\">coverage_<wbr>at_<wbr>estimate</th>" in html
    assert re.search(r"\.fit table\.sortable th \{ overflow-wrap: normal", html)
    # the Why section: one line per metric, the full reasons folded
    why = html[html.index("<h3>Why</h3>"):html.index("<details>")]
    assert why.count("<li>") == 3 and "<b>recall</b>: " in why
    line = re.search(r"<b>recall</b>: ([^<]*)</li>", why).group(1)
    assert len(line.split()) <= 20 and "[0.7" in line
    start = html.index("<details>")  # the Why's (the legend's is <details class="legend">)
    full = html[start:html.index("</details>", start)]
    assert all(why_ in full for why_ in ev.reasons.values())
    md = (tmp_path / "report.md").read_text()
    assert md.index("## Why") < md.index("### Why, in full") and md.count("- **recall**") == 2
    # the forest's title stays above its first panel, whatever the figure's height
    wide = covstudy.evaluate(y, p, audit=False)  # every binary metric: a tall figure
    for e in (ev, wide):
        fig = e.plot()
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        title = fig._suptitle.get_window_extent(r)
        first = max(fig.axes, key=lambda a: a.get_position().y1)
        assert title.y0 > first.title.get_window_extent(r).y1, (title, first.title.get_window_extent(r))
        plt.close(fig)


def test_with_groups_the_clustered_rows_lead_with_or_without_an_audit(tmp_path, capsys):
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(30), 8)
    q = rng.beta(2, 1, 30)[g]  # accuracy varies by group: a large ICC
    y = rng.integers(0, 2, g.size)
    p = np.where(rng.random(g.size) < q, y, 1 - y)
    ev = covstudy.evaluate(y, p, groups=g, metrics=["accuracy", "recall", "clustered_accuracy"], audit=False)
    rec = ev.recommended
    assert rec.metric.tolist() == ["clustered_accuracy", "accuracy", "recall"]
    assert rec.method.iloc[0] == "wilson_vif" and "accounts for the groups" in ev.reasons["clustered_accuracy"]
    assert rec.note.iloc[1] == "i.i.d.: ignores the groups; use clustered_accuracy"
    assert list(ev.reasons)[0] == "clustered_accuracy"
    f = tmp_path / "g.csv"
    pd.DataFrame({"y": y, "p": p, "g": g}).to_csv(f, index=False)
    assert main([str(f), "--truth", "y", "--predicted", "p", "--group", "g", "--no-audit"]) == 0
    lines = capsys.readouterr().out.splitlines()  # the one screen: a title, the header, then the metrics
    assert lines[2].startswith("clustered_accuracy") and "wilson_vif" in lines[2]
    at = next(i for i, x in enumerate(lines) if x.startswith("accuracy "))
    assert lines[at + 1].strip() == "i.i.d.: ignores the groups; use clustered_accuracy"  # under the accuracy row


def test_sizes_are_bounded_before_work_with_the_switch_that_lifts_them(tmp_path, capsys):
    """Issue 41: classes beyond max_classes (67 overflowed, and from ~25 the macro posteriors were wrong)
    and rows beyond max_rows are one-line errors naming the bound and the switch; raised, they run."""
    import covstudy
    from covstudy.evaluation.cli import main

    rng = np.random.default_rng(0)  # one class and ten rows past the bounds (120 classes cost 2 CPU-s more)
    truth = rng.integers(0, 101, 1010)
    predicted = np.where(rng.random(1010) < 0.9, truth, rng.integers(0, 101, 1010))
    with pytest.raises(InputError, match=r"^truth: 101 classes, more than max_classes = 100 .*--max-classes"):
        covstudy.evaluate(truth, predicted, audit=False, progress=False)
    ev = covstudy.evaluate(truth, predicted, audit=False, progress=False, max_classes=101,
                           metrics=["accuracy", "macro_recall"])
    assert ev.table.lower.notna().all()
    with pytest.raises(InputError, match=r"^truth: 1,010 rows, more than max_rows = 1,000 .*--max-rows"):
        covstudy.evaluate(truth, predicted, audit=False, progress=False, max_rows=1000)
    path = tmp_path / "many.csv"
    pd.DataFrame({"y": truth, "p": predicted}).to_csv(path, index=False)
    assert main([str(path), "--truth", "y", "--predicted", "p", "--no-audit", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--max-classes" in err[0]


def test_resampling_and_auc_audits_beyond_their_budgets_say_so_on_their_rows(monkeypatch):
    """Issue 41: a bootstrap whose draws × numbers pass RESAMPLES_MAX is not computed (its row says why;
    the AUC's bootstrap held 2,000 resampled index arrays at once: 22 GiB at 3·10⁶ rows); an AUC whose
    audit would simulate more than AUC_AUDIT_MAX scores a point is not audited, also said on its rows."""
    import covstudy
    from covstudy.evaluation import audit, cost, result

    rng = np.random.default_rng(1)
    truth = (rng.random(400) < 0.4).astype(int)
    scores = rng.normal(truth * 1.2, 1.0)
    monkeypatch.setattr(cost, "RESAMPLES_MAX", 2000 * 399)
    monkeypatch.setattr(audit, "AUC_AUDIT_MAX", 200 * 399)
    ev = covstudy.evaluate(truth, scores=scores, metrics=["auc"], progress=False)
    rows = ev.table.set_index("method")
    assert np.isnan(rows.loc["bootstrap", "lower"]) and rows.loc["bootstrap", "note"].startswith("not computed: 2,000 resamples of 400")
    delong = rows.loc["delong"]
    assert np.isfinite(delong.lower) and np.isnan(delong.coverage_at_estimate)
    assert delong.note.startswith("not audited: 200 simulated test sets of 400 scores")


def _scored(n, auc_shift, seed):
    """Truth 1/0 half each, P(class 1) scores that separate the classes by ``auc_shift``."""
    rng = np.random.default_rng(seed)
    truth = np.r_[np.ones(n // 2, int), np.zeros(n - n // 2, int)]
    score = 1 / (1 + np.exp(-(rng.normal(size=n) + auc_shift * (2 * truth - 1))))
    return truth, (score >= 0.5).astype(int), score


def test_scores_of_the_other_class_warn_with_the_fix():
    """``--score`` P(class 1) with ``--positive 0`` (issue 57: AUC 0.0044, recommended, no warning)."""
    truth, predicted, score = _scored(200, 2.0, 1)
    _, caught = _quiet(truth=truth, predicted=predicted, scores=score, positive=0)
    wrong = [m for m in caught if "are they the scores of 1" in m]
    assert len(wrong) == 1 and "below 0.5" in wrong[0] and "pass --positive 1" in wrong[0], caught
    for positive in (1, None):  # the right class: no such warning
        _, caught = _quiet(truth=truth, predicted=predicted, scores=score, positive=positive)
        assert not [m for m in caught if "are they the scores" in m], caught
    # a weak model on few rows: its AUC's interval reaches 0.5, but its labels disagree with its scores
    truth, predicted, score = _scored(16, 0.4, 2)
    _, caught = _quiet(truth=truth, predicted=1 - predicted, scores=score)
    assert [m for m in caught if "agree with them cut at 0.5 on only" in m], caught
    # no signal (AUC near 0.5 either way): nothing to warn about
    truth, predicted, score = _scored(200, 0.0, 3)
    _, caught = _quiet(truth=truth, predicted=predicted, scores=score)
    assert not [m for m in caught if "are they the scores" in m], caught


def test_cli_warns_on_reversed_scores_in_one_line(tmp_path, capsys):
    truth, predicted, score = _scored(120, 2.0, 4)
    path = tmp_path / "p.csv"
    pd.DataFrame(dict(y=truth, label=predicted, lr_score=score)).to_csv(path, index=False)
    assert main([str(path), "--truth", "y", "--predicted", "label", "--score", "lr_score", "--positive", "0",
                 "--no-audit", "--quiet"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "lr_score:" in line]
    assert len(lines) == 1 and lines[0].startswith("covstudy-evaluate: warning: lr_score: their AUC is 0.0")
    assert "--positive 1" in lines[0]
