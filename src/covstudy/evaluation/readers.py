"""LLM eval logs in, ``evaluate``'s scored-answer arguments out: lm-evaluation-harness and inspect_ai.

An eval's log scores each answer; ``evaluate(correct=..., questions=..., groups=...)`` takes those scores
with the question each answers (the eval designs: questions in groups, K answers a question), and
``second_correct=`` a second run's scores of the same answers (the paired eval). A reader returns
``Answers``; ``Answers.arguments()`` and ``paired(first, second)`` give ``evaluate``'s keywords.

lm-evaluation-harness (``lm_eval ... --log_samples``; the format of ``lm_eval/evaluator.py``, v0.4):
``samples_<task>_<time>.jsonl``, a JSON object a line per document and filter: ``doc_id``, ``doc``,
``target``, ``arguments``, ``resps``, ``filtered_resps``, ``filter``, ``metrics`` (the metric names) and
each metric's value (``acc``, ``acc_norm``, ``exact_match``, ...). The question is ``doc_id``. A task's
``repeats: K`` is reduced to one response by its filter before scoring (majority vote, take-first), so
such a log holds one score a document; lines with the same ``doc_id`` and filter are repeated answers
(several runs' files joined, e.g. one per seed), and must be one document (``doc_hash``: two tasks' files
joined are refused). A file with several filters needs one chosen.

inspect_ai (``inspect eval``): an ``EvalLog``, as ``.json`` (one JSON object: ``version``, ``status``,
``eval``, ``samples``) or ``.eval`` (a zip: ``header.json`` and ``samples/<id>_epoch_<n>.json``, one
``EvalSample`` each). A sample has ``id``, ``epoch`` and ``scores`` {scorer: {``value``, ...}}; the
question is ``id``, its epochs are repeated answers (``--epochs K``). Values read as inspect_ai's own
``value_to_float`` reads them: "C" (correct) 1, "I" (incorrect) and "N" (no answer) 0, True/False,
"yes"/"no", 0/1; "P" (partial, 0.5), other numbers and dicts are not a right-or-wrong score: an error.

Groups: ``group=KEY`` reads a question's group from ``doc[KEY]`` (lm-eval) or the sample's
``metadata[KEY]`` (inspect_ai, as its ``stderr(cluster=KEY)``). Every problem is one ``InputError`` line
naming the file, the line or sample, and the key. Flow: readers -> result.evaluate (``correct=``).
"""

from __future__ import annotations

import json
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .data import InputError

PREFERRED = ("acc", "exact_match")  # lm-eval: the metric read when a file holds several and none is named
RIGHT = {"C": 1, "I": 0, "N": 0, "yes": 1, "no": 0, "true": 1, "false": 0}  # inspect_ai's value_to_float, binary


@dataclass
class Answers:
    """One run's scored answers, read from an eval log.

    Examples
    --------
    >>> import numpy as np
    >>> a = Answers(np.array([1, 0, 1, 1]), np.array([0, 0, 1, 1]), None, "four answers")
    >>> a.arguments()["questions"].tolist()
    [0, 0, 1, 1]
    """

    correct: np.ndarray  # 0/1 an answer
    questions: np.ndarray  # the question (doc_id, sample id) an answer is to
    groups: np.ndarray | None  # the question's group (group=KEY), or None
    source: str  # what was read, in one line
    slots: np.ndarray | None = None  # an answer's place among its question's (epoch, repeat): pairs two runs
    documents: np.ndarray | None = None  # lm-eval: each answer's doc_hash (one question, one document)

    def arguments(self) -> dict:
        """``evaluate``'s keywords: ``correct``, ``questions`` and (when read) ``groups``."""
        out = dict(correct=self.correct, questions=self.questions)
        return out if self.groups is None else {**out, "groups": self.groups}


def paired(first: Answers, second: Answers) -> dict:
    """``evaluate``'s keywords for two runs of the same questions: each answer of ``first`` beside the same
    question's same answer (epoch, repeat) of ``second``. The two must hold the same questions, each answered
    as often; else an ``InputError`` naming the first question that differs."""
    a, b = _ordered(first), _ordered(second)
    qa, qb = [str(q) for q in a.questions], [str(q) for q in b.questions]
    only = sorted(set(qa) ^ set(qb))
    if only:
        which = "first" if only[0] in set(qa) else "second"
        raise InputError(f"question ids (doc_id, sample id): the two runs answer different questions: {len(only)} in one run only (first: "
                         f"{only[0]!r}, in the {which} run only); compare runs of the same tasks")
    if qa != qb:
        counts_a, counts_b = _counts(qa), _counts(qb)
        q = next(q for q in counts_a if counts_a[q] != counts_b[q])
        raise InputError(f"question ids (doc_id, sample id): question {q!r} has {counts_a[q]} answer(s) in the first run and {counts_b[q]} in "
                         f"the second; a paired comparison needs each question answered as often in both")
    if a.documents is not None and b.documents is not None and list(a.documents) != list(b.documents):
        i = next(i for i, (x, y) in enumerate(zip(a.documents, b.documents)) if x != y)
        raise InputError(f"question ids (doc_id, sample id): doc_id {qa[i]!r} is a different document in the two runs "
                         f"(doc_hash {str(a.documents[i])[:12]}… and {str(b.documents[i])[:12]}…): runs of different "
                         f"tasks?")
    if a.groups is not None and b.groups is not None and [str(g) for g in a.groups] != [str(g) for g in b.groups]:
        i = next(i for i, (x, y) in enumerate(zip(a.groups, b.groups)) if str(x) != str(y))
        raise InputError(f"group: question {qa[i]!r} is in group {a.groups[i]!r} in the first run and "
                         f"{b.groups[i]!r} in the second")
    out = dict(correct=a.correct, second_correct=b.correct, questions=a.questions)
    groups = a.groups if a.groups is not None else b.groups
    return out if groups is None else {**out, "groups": groups}


def _counts(keys) -> dict:
    out = {}
    for k in keys:
        out[k] = out.get(k, 0) + 1
    return out


def _ordered(x: Answers) -> Answers:
    """The answers sorted by (question, slot): two runs line up answer by answer."""
    slots = x.slots if x.slots is not None else np.zeros(x.correct.size, dtype=np.int64)
    order = sorted(range(x.correct.size), key=lambda i: (str(x.questions[i]), slots[i]))
    pick = np.array(order, dtype=np.int64)
    return Answers(x.correct[pick], x.questions[pick], None if x.groups is None else x.groups[pick], x.source,
                   slots[pick], None if x.documents is None else x.documents[pick])


def _binary(value, where: str, key: str) -> int:
    """0 or 1 of a score value (module docstring), else an InputError naming where it is."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return int(value)
    if isinstance(value, str):
        v = value.strip()
        hit = RIGHT.get(v, RIGHT.get(v.lower()))
        if hit is None and v in ("0", "1", "0.0", "1.0"):
            hit = int(float(v))
        if hit is not None:
            return hit
    if isinstance(value, dict):
        shown = f"a dict (keys {', '.join(map(str, list(value)[:3]))})"
    elif isinstance(value, float) and math.isnan(value):
        shown = "NaN"
    else:
        shown = repr(value) + (" (partial credit)" if value == "P" else "")
    raise InputError(f"{key}: not a right-or-wrong score at {where}: {shown}; the eval intervals need each answer "
                     f"scored 0 or 1 (C/I, True/False)")


def _group_of(holder, key: str, where: str, what: str):
    if not isinstance(holder, dict) or key not in holder:
        have = ", ".join(map(str, list(holder)[:8])) if isinstance(holder, dict) and holder else "none"
        raise InputError(f"group {key}: no such key in {what} at {where} (keys: {have})")
    value = holder[key]
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _array(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def read_lm_eval(path, metric: str | None = None, filter: str | None = None, group: str | None = None) -> Answers:
    """One lm-evaluation-harness samples file (``--log_samples``; module docstring) as ``Answers``.

    ``metric``: the per-sample metric key (default ``acc``, else ``exact_match``, else the only one);
    ``filter``: the filter whose lines to read (needed when the file holds several); ``group``: a key of
    each line's ``doc`` holding its group."""
    f = Path(path)
    if not f.is_file():
        raise InputError(f"{path}: no such file")
    rows = []
    with open(f, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{number}: not JSON ({e.msg}); an lm-evaluation-harness samples file "
                                 f"(--log_samples) holds one JSON object a line") from None
            if not isinstance(row, dict) or "doc_id" not in row:
                raise InputError(f"{path}:{number}: no doc_id; not an lm-evaluation-harness samples file "
                                 f"(samples_<task>_<time>.jsonl, written with --log_samples)")
            rows.append((number, row))
    if not rows:
        raise InputError(f"{path}: no samples (an empty file)")
    filters = list(dict.fromkeys(str(r.get("filter", "none")) for _, r in rows))
    if filter is None:
        if len(filters) > 1:
            raise InputError(f"filter: {path} holds the filters {', '.join(filters)} (a line a document each); "
                             f"choose one (--filter NAME, filter=)")
        filter = filters[0]
    elif filter not in filters:
        raise InputError(f"filter {filter}: not in {path} (its filters: {', '.join(filters)})")
    rows = [(n, r) for n, r in rows if str(r.get("filter", "none")) == filter]
    names = rows[0][1].get("metrics") or [k for k, v in rows[0][1].items() if isinstance(v, (bool, int, float))
                                          and k != "doc_id"]
    if metric is None:
        metric = next((m for m in PREFERRED if m in names), names[0] if len(names) == 1 else None)
        if metric is None:
            raise InputError(f"metric: {path} holds the metrics {', '.join(map(str, names)) or 'none'}; choose one "
                             f"(--metric NAME, metric=)")
    correct, questions, groups, documents, seen = [], [], [], [], {}
    for number, row in rows:
        where = f"{path}:{number} (doc_id {row['doc_id']!r})"
        if metric not in row:
            raise InputError(f"metric {metric}: missing at {where}; its metrics: "
                             f"{', '.join(map(str, row.get('metrics') or [])) or 'none'}")
        correct.append(_binary(row[metric], where, f"metric {metric}"))
        questions.append(row["doc_id"])
        documents.append(row.get("doc_hash"))
        first = seen.setdefault(str(row["doc_id"]), (documents[-1], number))
        if first[0] != documents[-1]:  # repeated lines are one document answered again, not another task's
            raise InputError(f"doc_id {row['doc_id']!r}: two different documents at {path}:{first[1]} and line "
                             f"{number} (their doc_hash differs): samples of two tasks joined? give one task a file")
        if group is not None:
            groups.append(_group_of(row.get("doc"), group, where, "doc"))
    slots = _slots(questions)
    k = max(slots) + 1
    source = (f"lm-evaluation-harness samples {f.name}: metric {metric}, filter {filter}, {len(rows)} answers to "
              f"{len(set(map(str, questions)))} documents" + (f" (up to {k} a document)" if k > 1 else ""))
    return Answers(np.array(correct, dtype=np.int64), _array(questions), _array(groups) if group else None, source,
                   np.array(slots, dtype=np.int64), _array(documents))


def _slots(questions) -> list:
    """Each answer's place among its question's answers, in the order read (0, 1, ...)."""
    seen, out = {}, []
    for q in questions:
        out.append(seen.get(str(q), 0))
        seen[str(q)] = out[-1] + 1
    return out


def read_inspect(path, scorer: str | None = None, group: str | None = None) -> Answers:
    """One inspect_ai eval log (``.json`` or ``.eval``; module docstring) as ``Answers``: a sample's ``id``
    is the question, its ``epoch`` the answer's slot. ``scorer``: the score to read (needed when the samples
    hold several); ``group``: a key of each sample's ``metadata`` holding its group."""
    f = Path(path)
    if not f.is_file():
        raise InputError(f"{path}: no such file")
    header, samples = _inspect_log(f, path)
    status = header.get("status")
    task, model = (header.get("eval") or {}).get("task", "?"), (header.get("eval") or {}).get("model", "?")
    if not samples:
        raise InputError(f"{path}: no samples (status {status}; a log written without samples, or a run that "
                         f"scored none)")
    names = list(dict.fromkeys(k for s in samples for k in (s.get("scores") or {})))
    if scorer is None:
        if len(names) != 1:
            raise InputError(f"scorer: {path}'s samples hold "
                             f"{'the scorers ' + ', '.join(names) if names else 'no scores (an unscored log?)'}; "
                             + ("choose one (--metric NAME, scorer=)" if names else "score it first (inspect score)"))
        scorer = names[0]
    correct, questions, groups, slots = [], [], [], []
    for s in samples:
        where = f"{path} sample {s.get('id')!r} epoch {s.get('epoch')}"
        if "id" not in s:
            raise InputError(f"{path}: a sample without an id; not an inspect_ai eval log")
        score = (s.get("scores") or {}).get(scorer)
        if not isinstance(score, dict) or "value" not in score:
            raise InputError(f"scorer {scorer}: no score at {where} (its scores: "
                             f"{', '.join(s.get('scores') or {}) or 'none'})")
        correct.append(_binary(score["value"], where, f"scorer {scorer}"))
        questions.append(s["id"])
        slots.append(int(s.get("epoch", 1)))
        if group is not None:
            groups.append(_group_of(s.get("metadata"), group, where, "metadata"))
    k = len(set(slots))
    note = "" if status in (None, "success") else f" (status {status}: the samples scored before it stopped)"
    source = (f"inspect_ai log {f.name}: task {task}, model {model}, scorer {scorer}, {len(samples)} answers to "
              f"{len(set(map(str, questions)))} samples" + (f" ({k} epochs)" if k > 1 else "") + note)
    return Answers(np.array(correct, dtype=np.int64), _array(questions), _array(groups) if group else None, source,
                   np.array(slots, dtype=np.int64))


def _inspect_log(f: Path, path) -> tuple[dict, list]:
    """(the header: version, status, eval; the samples) of a .json or .eval log."""
    suffix = f.suffix.lower()
    if suffix == ".json":
        try:
            log = json.loads(f.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise InputError(f"{path}: not JSON ({getattr(e, 'msg', e)}); an inspect_ai .json log is one JSON "
                             f"object") from None
        if not isinstance(log, dict) or "eval" not in log:
            raise InputError(f"{path}: no 'eval' header; not an inspect_ai eval log")
        return log, list(log.get("samples") or [])
    if suffix == ".eval":
        try:
            with zipfile.ZipFile(f) as z:
                names = z.namelist()
                head = "header.json" if "header.json" in names else "_journal/start.json"
                if head not in names:
                    raise InputError(f"{path}: no header.json; not an inspect_ai .eval log")
                header = json.loads(z.read(head))
                members = sorted((n for n in names if n.startswith("samples/") and n.endswith(".json")))
                return header, [json.loads(z.read(n)) for n in members]
        except zipfile.BadZipFile:
            raise InputError(f"{path}: not a zip archive; an inspect_ai .eval log is one") from None
    raise InputError(f"{path}: an inspect_ai log is a .json or .eval file, got {suffix or 'no suffix'}")
