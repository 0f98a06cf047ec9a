"""Eval logs (evaluation/readers.py) and scored answers (``evaluate(correct=...)``): the real-format fixtures
of tests/data/lm_eval and tests/data/inspect_ai (their PROVENANCE.md), read, paired and evaluated."""

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from covstudy import evaluate, interval
from covstudy.evaluation.cli import main
from covstudy.evaluation.data import InputError
from covstudy.evaluation.readers import paired, read_inspect, read_lm_eval

DATA = Path(__file__).parent / "data"
SEED1, SEED2 = DATA / "lm_eval" / "samples_covstudy_arith_seed1.jsonl", DATA / "lm_eval" / "samples_covstudy_arith_seed2.jsonl"
GEN = DATA / "lm_eval" / "samples_covstudy_arith_gen.jsonl"
INSPECT = DATA / "inspect_ai"
QUICK = dict(audit=False, progress=False, cache=False)


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_lm_eval_samples_file_is_its_acc_by_doc_id_and_its_docs_groups():
    a = read_lm_eval(SEED1, group="topic")
    rows = _lines(SEED1)
    assert a.correct.tolist() == [int(r["acc"]) for r in rows]
    assert a.questions.tolist() == [r["doc_id"] for r in rows] and a.groups[0] == "addition"
    assert a.correct.mean() == pytest.approx(0.4167, abs=5e-5)  # the acc lm-eval reported for this run
    assert read_lm_eval(SEED1, metric="acc_norm").correct.tolist() == [int(r["acc_norm"]) for r in rows]
    assert "metric acc, filter none, 12 answers to 12 documents" in a.source


def test_a_file_with_two_filters_needs_one_and_repeated_lines_are_repeated_answers(tmp_path):
    with pytest.raises(InputError, match=r"^filter: .* holds the filters take_first, majority"):
        read_lm_eval(GEN)
    majority = read_lm_eval(GEN, filter="majority")
    assert majority.correct.size == 12 and majority.correct.sum() == 0  # the dummy model's "lol" never matches
    joined = tmp_path / "two_seeds.jsonl"  # two runs' files joined: each document answered twice
    joined.write_text(SEED1.read_text() + SEED2.read_text())
    both = read_lm_eval(joined)
    assert both.correct.size == 24 and both.slots.max() == 1 and "(up to 2 a document)" in both.source
    ev = evaluate(**both.arguments(), **QUICK)
    assert ev.info["read"].startswith("read 24 scored answers to 12 questions (2 a question)")


@pytest.mark.parametrize("edit, call, message", [
    (lambda r: r.pop("acc"), {}, r"^metric acc: missing at .*:1 \(doc_id 0\); its metrics: acc, acc_norm"),
    (lambda r: r.update(acc=0.5), {}, r"^metric acc: not a right-or-wrong score at .*:1 \(doc_id 0\): 0\.5"),
    (lambda r: r.pop("doc_id"), {}, r"^.*:1: no doc_id; not an lm-evaluation-harness samples file"),
    (None, {"metric": "f1"}, r"^metric f1: missing at"),
    (None, {"filter": "strict-match"}, r"^filter strict-match: not in .* \(its filters: none\)"),
    (None, {"group": "subject"}, r"^group subject: no such key in doc at .*\(keys: question, choices, answer, topic\)"),
])
def test_bad_lm_eval_input_is_one_line_naming_it(tmp_path, edit, call, message):
    rows = _lines(SEED1)
    if edit is not None:
        edit(rows[0])
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join(map(json.dumps, rows)) + "\n")
    with pytest.raises(InputError, match=message) as err:
        read_lm_eval(path, **call)
    assert "\n" not in str(err.value)


def test_not_json_is_named_with_its_line(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_text(SEED1.read_text().splitlines()[0] + "\n{oops\n")
    with pytest.raises(InputError, match=r"samples.jsonl:2: not JSON"):
        read_lm_eval(path)


def test_an_inspect_log_reads_alike_as_json_and_as_eval_and_its_epochs_are_repeated_answers():
    as_json, as_eval = read_inspect(INSPECT / "log_formats.json"), read_inspect(INSPECT / "log_formats.eval")
    assert as_json.correct.tolist() == as_eval.correct.tolist() == [0]  # its one sample's match: "I"
    pop = read_inspect(INSPECT / "popularity.eval")
    with zipfile.ZipFile(INSPECT / "popularity.eval") as z:
        samples = [json.loads(z.read(n)) for n in z.namelist() if n.startswith("samples/")]
    truth = {s["id"]: int(s["scores"]["match"]["value"] == "C") for s in samples}
    assert dict(zip(pop.questions.tolist(), pop.correct.tolist())) == truth and len(truth) == 10
    epochs = read_inspect(INSPECT / "log_streaming.eval")
    assert sorted(zip(epochs.questions.tolist(), epochs.slots.tolist())) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    cancelled = read_inspect(INSPECT / "popularity_cancelled.json", group="label_confidence")
    assert "status cancelled" in cancelled.source and cancelled.correct.tolist() == [1, 1, 0]


def test_bad_inspect_input_is_one_line_naming_it(tmp_path):
    with pytest.raises(InputError, match="no scores \\(an unscored log\\?\\)"):
        read_inspect(INSPECT / "popularity_unscored.eval")
    log = json.loads((INSPECT / "popularity_cancelled.json").read_text())
    log["samples"][1]["scores"]["match"]["value"] = "P"
    (tmp_path / "partial.json").write_text(json.dumps(log))
    with pytest.raises(InputError, match=r"^scorer match: not a right-or-wrong score at .* sample 2 epoch 1: 'P' "
                                         r"\(partial credit\)"):
        read_inspect(tmp_path / "partial.json")
    log["samples"][1]["scores"] = {"match": {"value": "C"}, "includes": {"value": "C"}}
    (tmp_path / "two.json").write_text(json.dumps(log))
    with pytest.raises(InputError, match="^scorer: .* hold the scorers match, includes; choose one"):
        read_inspect(tmp_path / "two.json")
    assert read_inspect(tmp_path / "two.json", scorer="match").correct.tolist() == [1, 1, 0]
    with pytest.raises(InputError, match="^scorer includes: no score at .* sample 1 epoch 1"):
        read_inspect(tmp_path / "two.json", scorer="includes")
    shutil.copy(INSPECT / "log_formats.json", tmp_path / "log.txt")
    with pytest.raises(InputError, match="a .json or .eval file, got .txt"):
        read_inspect(tmp_path / "log.txt")
    (tmp_path / "broken.eval").write_text("not a zip")
    with pytest.raises(InputError, match="not a zip archive"):
        read_inspect(tmp_path / "broken.eval")
    with pytest.raises(InputError, match=r"^group topic: no such key in metadata at .*\(keys: label_confidence"):
        read_inspect(INSPECT / "popularity_cancelled.json", group="topic")


def test_two_runs_pair_answer_by_answer_and_must_answer_the_same_questions(tmp_path):
    args = paired(read_lm_eval(SEED1), read_lm_eval(SEED2))
    first = {r["doc_id"]: int(r["acc"]) for r in _lines(SEED1)}
    second = {r["doc_id"]: int(r["acc"]) for r in _lines(SEED2)}
    assert [first[q] for q in args["questions"]] == args["correct"].tolist()
    assert [second[q] for q in args["questions"]] == args["second_correct"].tolist()
    with pytest.raises(InputError, match=r"^question ids \(doc_id, sample id\): the two runs answer different "
                                         r"questions: 7 in one run only"):
        paired(read_inspect(INSPECT / "popularity.eval"), read_inspect(INSPECT / "popularity_cancelled.json"))
    twice = tmp_path / "twice.jsonl"
    twice.write_text(SEED1.read_text() + SEED1.read_text().splitlines()[0] + "\n")
    with pytest.raises(InputError, match=r"question '0' has 2 answer\(s\) in the first run and 1 in the second"):
        paired(read_lm_eval(twice), read_lm_eval(SEED2))


def test_a_doc_id_that_is_another_document_is_refused(tmp_path):
    other = _lines(SEED2)
    other[3]["doc_hash"] = "0" * 64  # another task's document 3
    path = tmp_path / "other_task.jsonl"
    path.write_text("\n".join(map(json.dumps, other)) + "\n")
    with pytest.raises(InputError, match=r"doc_id '3' is a different document in the two runs \(doc_hash b4c4c5ff371f… and 0{12}…\)"):
        paired(read_lm_eval(SEED1), read_lm_eval(path))
    joined = tmp_path / "joined.jsonl"
    joined.write_text(SEED1.read_text() + path.read_text())
    with pytest.raises(InputError, match=r"^doc_id 3: two different documents at .*:4 and line 16"):
        read_lm_eval(joined)


def test_scored_answers_give_the_eval_doors_intervals():
    args = paired(read_lm_eval(SEED1, group="topic"), read_lm_eval(SEED2, group="topic"))
    ev = evaluate(**args, **QUICK)
    t = ev.table.set_index(["metric", "method"])
    assert list(dict.fromkeys(ev.table.metric)) == ["eval_accuracy", "eval_accuracy_second", "eval_accuracy_difference"]
    group = np.unique(args["groups"], return_inverse=True)[1]
    order = np.argsort(args["questions"].astype(int))
    a, b, g = args["correct"][order], args["second_correct"][order], group[order]
    lo, hi = interval("eval.clustered_t", correct=a, answers=1, group=g)
    assert (t.loc[("eval_accuracy", "clustered_t"), "lower"], t.loc[("eval_accuracy", "clustered_t"), "upper"]) == \
        pytest.approx((lo, hi), abs=1e-12)
    lo, hi = interval("paired_eval.clustered_t", correct_first=a, correct_second=b, answers=1, group=g)
    row = t.loc[("eval_accuracy_difference", "clustered_t")]
    assert (row.lower, row.upper) == pytest.approx((lo, hi), abs=1e-12)
    assert row.estimate == pytest.approx(5 / 12 - 6 / 12) and row.recommended  # the paired study's pick unaudited
    assert "without an audit" in ev.reasons["eval_accuracy_difference"]


def test_the_paired_difference_is_audited_at_its_plug_in_point():
    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(40), 2)
    skill = rng.beta(2, 1, 40)[q]
    first, second = (rng.random(80) < skill).astype(int), (rng.random(80) < skill - 0.1).astype(int)
    ev = evaluate(correct=first, second_correct=second, questions=q, groups=q // 4, metrics=["eval_accuracy_difference"],
                  progress=False, cache=False, reps=200, seed=1)
    audited = ev.table[ev.table.audit == "plug-in"]
    assert len(audited) and audited.coverage_at_estimate.between(0.5, 1).all()
    assert ev.recommended.metric.tolist() == ["eval_accuracy_difference"]


@pytest.mark.parametrize("kwargs, message", [
    (dict(correct=[1, 0, 1], truth=[1, 0, 1]), "^truth: scored answers \\(correct=\\) take no labels"),
    (dict(second_correct=[1, 0, 1]), "^second_correct: a second run's scores need the first's"),
    (dict(correct=[1, 0, 2]), "^correct: each answer must be scored 0 or 1 .*got '2'"),
    (dict(correct=[1, 0, 1], questions=[0, 0, 0]), "^questions: only one question"),
    (dict(correct=[1, 0, 1, 1], questions=[0, 0, 1, 1], groups=[0, 1, 1, 1]),
     "^groups: a question's answers must all be in one group"),
    (dict(correct=[1, 0, 1], metrics=["accuracy"]), "^metrics: accuracy: scored answers \\(no labels\\) give "
                                                    "eval_accuracy$"),
])
def test_bad_scored_answers_are_one_line_naming_them(kwargs, message):
    with pytest.raises(InputError, match=message):
        evaluate(**kwargs, **QUICK)


def test_the_command_reads_logs_and_refuses_what_does_not_fit(capsys):
    assert main(["--lm-eval", str(SEED1), str(SEED2), "--group", "topic", "--no-audit", "--quiet", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert "No difference shown on eval accuracy: difference −0.083" in out and "(clustered_t, " in out
    assert main(["--lm-eval", str(SEED1), str(SEED2), "--no-audit", "--quiet", "--no-cache", "--table"]) == 0
    out, err = capsys.readouterr()
    assert "eval_accuracy_difference" in out and "paired_eval" not in out  # every row, by its short name
    assert "note: second run: lm-evaluation-harness samples samples_covstudy_arith_seed2.jsonl" in err
    assert main(["--inspect", str(INSPECT / "log_streaming.eval"), "--no-audit", "--quiet", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert "eval_accuracy" in out and "4 answers to 2 samples (2 epochs)" in err
    for argv, message in [
        (["--inspect", str(INSPECT / "popularity.eval"), "--truth", "y"], "--truth: an eval log holds scored answers"),
        (["--lm-eval", str(SEED1), str(SEED2), str(SEED1)], "--lm-eval: one log, or two runs"),
        (["data.csv", "--lm-eval", str(SEED1)], "data.csv: give a CSV or Parquet file, or --lm-eval logs, not both"),
        (["--inspect", str(INSPECT / "popularity.eval"), "--filter", "none"], "--filter: an lm-eval filter"),
        (["--lm-eval", str(SEED1), "--inspect", str(INSPECT / "popularity.eval")], "--lm-eval, --inspect: give one kind of log"),
        (["data.csv", "--metric", "acc", "--truth", "y"], "--metric: reads an eval log"),
        ([], "the following arguments are required: file (or --lm-eval, --inspect)"),
        (["data.csv"], "the following arguments are required: --truth"),
    ]:
        with pytest.raises(SystemExit) as done:
            main(argv)
        err = capsys.readouterr().err
        assert done.value.code == 2 and err.startswith(f"covstudy-evaluate: error: {message}"), err
        assert err.count("\n") == 1
    assert main(["--lm-eval", str(GEN)]) == 2
    assert capsys.readouterr().err.startswith("covstudy-evaluate: error: filter: ")
