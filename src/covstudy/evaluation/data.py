"""The user's columns in, checked and encoded: the first step of ``covstudy.evaluate``.

``prepare`` validates every column (one-line ``InputError`` naming it, before any work) and returns
``Data``: the labels as 0..K-1 codes (a binary problem's positive class coded 1), the scores, and the
group and question ids as codes. Flow: data -> metrics (counts, estimates, regions) -> audit ->
recommend -> growth -> render, wired by ``result.evaluate``. Imports nothing from the wing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

POSITIVE_NAMES = ("1", "true", "pos", "positive", "yes", "y", "t")
RARE = 0.01  # a class with fewer than this share of the rows is named in a warning (a stray label?)
SHOWN = 3  # at most this many offending values quoted in a message


class InputError(ValueError):
    """A user's input that cannot be evaluated: one line naming the column."""



def _values(name, values):
    """A 1-d object/float array of a column, its display name (a named Series's name wins)."""
    label = getattr(values, "name", None)
    label = str(label) if isinstance(label, str) and label else name
    try:
        arr = np.asarray(values)
    except ValueError:  # a ragged list
        raise InputError(f"{label}: expected one value per example (a 1-d column), got rows of different "
                         f"lengths") from None
    if arr.ndim != 1:
        raise InputError(f"{label}: expected one value per example (a 1-d column), got shape {arr.shape}")
    return label, arr


def _missing(arr) -> np.ndarray:
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if arr.dtype.kind == "O":
        return np.array([v is None or (isinstance(v, float) and math.isnan(v)) for v in arr], dtype=bool)
    return np.zeros(arr.shape, dtype=bool)


def _quote(values, total=None) -> str:
    """At most SHOWN values quoted, then how many more: a message stays one short line."""
    values = list(values)
    total = len(values) if total is None else total
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in values[:SHOWN])
    return shown + (f" … and {total - SHOWN} more" if total > SHOWN else "")


def _labels(label, arr, notes):
    """The labels, whole floats as integers. Non-finite or too large floats are an error (an integer cast
    would make 1e20 or inf the class -2**63); floats that are not whole stay floats with a warning."""
    miss = _missing(arr)
    if miss.any():
        raise InputError(f"{label}: {int(miss.sum())} missing value(s) (first at row {int(np.argmax(miss))})")
    if arr.dtype.kind == "O":  # mixed columns: a float among them is checked the same way
        floats = np.array([isinstance(v, (float, np.floating)) for v in arr], dtype=bool)
        vals = np.array([float(v) for v in arr[floats]])
        rows = np.flatnonzero(floats)
    elif arr.dtype.kind == "f":
        vals, rows = arr.astype(float), np.arange(arr.size)
    else:
        return arr
    bad = ~np.isfinite(vals) | (np.abs(vals) >= 2.0 ** 53)
    if bad.any():
        raise InputError(f"{label}: {int(bad.sum())} label(s) not usable as a class (non-finite or beyond 2**53: "
                         f"{_quote(vals[bad])}; first at row {int(rows[np.argmax(bad)])})")
    whole = vals == np.round(vals)
    if arr.dtype.kind == "f" and whole.all():
        return arr.astype(np.int64)
    if not whole.all():
        frac = np.unique(vals[~whole])
        notes.append(f"{label}: {int((~whole).sum())} label(s) are not whole numbers ({_quote(frac)}); each distinct "
                     f"value is taken as a class (a score column? give it as scores / --score)")
    return arr


def _what(v) -> str | None:
    """What a score that is not a real number is (astype(float) would drop an imaginary part or count
    nanoseconds), or None."""
    if isinstance(v, (str, bytes)):
        return "text"
    if isinstance(v, (complex, np.complexfloating)):
        return "complex numbers"
    return "dates or times" if hasattr(v, "year") or isinstance(v, (np.datetime64, np.timedelta64)) else None


def _scores(label, arr):
    kind = {"c": "complex numbers", "m": "dates or times", "M": "dates or times", "S": "text", "U": "text"}.get(
        arr.dtype.kind) or (next(filter(None, map(_what, arr.tolist())), None) if arr.dtype.kind == "O" else None)
    if kind:
        raise InputError(f"{label}: scores must be numbers (real: higher = more positive), got {kind}")
    try:
        s = arr.astype(float)
    except (TypeError, ValueError):
        raise InputError(f"{label}: scores must be numbers") from None
    bad = ~np.isfinite(s)
    if bad.any():
        raise InputError(f"{label}: {int(bad.sum())} missing or non-finite score(s) (first at row {int(np.argmax(bad))})")
    return s


def _positive(classes, positive, truth_label):
    if positive is not None:
        for c in classes:
            if c == positive or str(c) == str(positive):
                return c
        raise InputError(f"positive: {positive!r} is not one of the labels {', '.join(map(repr, classes))}")
    named = [c for c in classes if (isinstance(c, (bool, np.bool_)) and c) or str(c).strip().lower() in POSITIVE_NAMES]
    if all(isinstance(c, (int, np.integer, float, np.floating, bool, np.bool_)) for c in classes):
        larger = max(classes)  # the larger of two numbers, unless a label named positive says otherwise ({1, 2})
        if not named or named == [larger]:
            return larger
    elif len(named) == 1:
        return named[0]
    raise InputError(f"{truth_label}: cannot tell the positive class of {', '.join(map(repr, classes))}; "
                     f"name it (positive=... / --positive)")


@dataclass
class Data:
    """The validated inputs, as counts."""

    names: dict
    classes: list
    positive: object = None
    truth: np.ndarray | None = None  # 0..K-1 codes
    predicted: np.ndarray | None = None
    scores: np.ndarray | None = None
    groups: np.ndarray | None = None
    questions: np.ndarray | None = None  # 0..m-1 question codes: rows are answers
    second: np.ndarray | None = None
    second_scores: np.ndarray | None = None
    counts: list | None = None  # examples of each class in ``truth``, in ``classes`` order
    notes: list = field(default_factory=list)  # warnings about what was read
    answers: bool = False  # rows are scored answers (``prepare_answers``): ``predicted == truth`` is "correct"
    second_correct: np.ndarray | None = None  # answers: a second run's 0/1 on the same rows

    @property
    def binary(self) -> bool:
        return len(self.classes) == 2

    @property
    def n(self) -> int:
        return int(self.truth.size)

    def read(self) -> str:
        """What was read, in one line: the classes and their counts (the positive named)."""
        if self.answers:
            m = int(self.questions.max()) + 1
            runs = "" if self.second_correct is None else f", {int(self.second_correct.sum())} by the second run"
            groups = "" if self.groups is None else f" in {int(self.groups.max()) + 1} groups"
            return (f"read {self.n} scored answers to {m} questions{groups} ({self.n / m:.3g} a question); "
                    f"{int(self.predicted.sum())} correct{runs}")
        each = ", ".join(f"{c!r}{' (positive)' if self.binary and c == self.positive else ''}: {k}"
                         for c, k in zip(self.classes, self.counts))
        return f"read {self.n} rows; {self.names['truth']} has {len(self.classes)} classes: {each}"


MAX_CLASSES = 100  # default bound on the classes: the macro metrics' intervals and audits grow with K²
MAX_ROWS = 10**7  # default bound on the rows: every column is held in memory several times


def _rows(cols: dict, first: str, what: str, max_rows: int) -> int:
    """The rows of the columns ``cols`` ({key: (label, array)}): those of ``first``, checked non-empty, at most
    ``max_rows``, and the same in every column (one-line errors naming the column)."""
    label, arr = cols[first]
    n = arr.size
    if n == 0:
        raise InputError(f"{label}: empty (no {what})")
    if n > max_rows:
        raise InputError(f"{label}: {n:,} rows, more than max_rows = {max_rows:,} (memory grows with the rows); "
                         f"raise it with --max-rows / max_rows=")
    for other, values in cols.values():
        if values.size != n:
            raise InputError(f"{other}: {values.size} values, but {label} has {n}")
    return n


def prepare(truth, predicted=None, scores=None, groups=None, second_predicted=None, second_scores=None,
            positive=None, questions=None, classes=None, max_classes=MAX_CLASSES, max_rows=MAX_ROWS) -> Data:
    """Validate every column (one-line ``InputError`` naming it) and encode the labels.

    ``classes``: the labels the data may hold (matched as written: 1 matches "1"); another label in
    truth or predicted is an error, and a stated class with no example in truth is one. Without it the
    classes are truth's, and a class with fewer than RARE of the rows is named in a warning (``notes``)."""
    given = {k: v for k, v in dict(truth=truth, predicted=predicted, scores=scores, groups=groups,
                                   second_predicted=second_predicted, second_scores=second_scores,
                                   questions=questions).items()
             if v is not None}
    from ..methods.distinct import unique_inverse  # not at the top: ``methods`` imports every kernel

    cols = {k: _values(k, v) for k, v in given.items()}
    names = {k: label for k, (label, _) in cols.items()}
    n = _rows(cols, "truth", "examples", max_rows)
    if predicted is None and scores is None:
        raise InputError("predicted: give the predicted labels and/or the scores")
    if second_predicted is not None and predicted is None:
        raise InputError(f"{names['second_predicted']}: a second model's labels need the first's (predicted)")
    if second_scores is not None and scores is None:
        raise InputError(f"{names['second_scores']}: a second model's scores need the first's (scores)")
    notes = []
    lab = {k: _labels(names[k], cols[k][1], notes if k in ("truth", "predicted", "second_predicted") else []) for k in ("truth", "predicted", "second_predicted", "groups", "questions")
           if k in cols}
    sc = {k: _scores(names[k], cols[k][1]) for k in ("scores", "second_scores") if k in cols}
    truth_classes = _sorted(np.unique(_key(lab["truth"])))
    if len(truth_classes) < 2:
        raise InputError(f"{names['truth']}: only one class ({truth_classes[0]!r}); intervals need both "
                         f"positives and negatives")
    stated = classes is not None
    if stated:
        truth_classes = _stated(classes, lab, names, truth_classes)
    if len(truth_classes) > max_classes:
        raise InputError(f"{names['truth']}: {len(truth_classes)} classes, more than max_classes = {max_classes} "
                         f"(the macro metrics' cost grows with the classes squared); raise it with --max-classes / "
                         f"max_classes=, or check that {names['truth']} holds labels, not scores")
    classes = truth_classes
    for k in ("predicted", "second_predicted"):
        if k in lab:
            extra = set(_key(lab[k]).tolist()) - set(_key(lab["truth"]).tolist())
            if extra:
                hint = "; a score column? give it as scores / --score" if len(extra) > SHOWN else ""
                raise InputError(f"{names[k]}: {len(extra)} label(s) never occur in {names['truth']} "
                                 f"({_quote(sorted(map(str, extra)), len(extra))}){hint}")
    data = Data(names, classes, notes=notes)
    code = {c: i for i, c in enumerate(classes)}
    data.truth = _encode(_key(lab["truth"]), code)
    counts = np.bincount(data.truth, minlength=len(classes))
    if "predicted" in lab:
        data.predicted = _encode(_key(lab["predicted"]), code)
    if "second_predicted" in lab:
        data.second = _encode(_key(lab["second_predicted"]), code)
    if data.binary:
        data.positive = _positive(classes, positive, names["truth"])
        if classes.index(data.positive) == 0:  # code the positive as 1
            for attr in ("truth", "predicted", "second"):
                if getattr(data, attr) is not None:
                    setattr(data, attr, 1 - getattr(data, attr))
            data.classes = classes[::-1]
            counts = counts[::-1]
    elif sc:
        raise InputError(f"{names['scores' if 'scores' in sc else 'second_scores']}: scores give the AUC of a "
                         f"binary problem; {names['truth']} has {len(classes)} classes")
    elif positive is not None:
        raise InputError(f"positive: {names['truth']} has {len(classes)} classes; positive is for binary labels")
    data.counts = [int(k) for k in counts]
    rare = [(c, k) for c, k in zip(data.classes, data.counts) if k < RARE * data.n]
    if rare and not stated:
        notes.append(f"{names['truth']}: class(es) {', '.join(f'{c!r} ({k} of {data.n} rows)' for c, k in rare[:SHOWN])}"
                     f"{f' … and {len(rare) - SHOWN} more' if len(rare) > SHOWN else ''} "
                     f"under {RARE:.0%} of the rows: a stray label? it makes this a {len(data.classes)}-class problem; "
                     f"state the classes (classes= / --classes) to make another label an error")
    data.scores, data.second_scores = sc.get("scores"), sc.get("second_scores")
    if data.binary:
        for key, predicted_key in (("scores", "predicted"), ("second_scores", "second")):
            if sc.get(key) is not None:
                note = _other_class(names[key], sc[key], data.truth, getattr(data, predicted_key), data.classes)
                notes.extend([note] if note else [])
    if "groups" in lab:
        _, data.groups = unique_inverse(_key(lab["groups"]))
        if data.groups.max() < 1:
            raise InputError(f"{names['groups']}: only one group; clustered intervals need at least 2")
    if "questions" in lab:
        if predicted is None:
            raise InputError(f"{names['questions']}: answers to questions need the predicted labels (predicted)")
        _, data.questions = unique_inverse(_key(lab["questions"]))
        if data.questions.max() < 1:
            raise InputError(f"{names['questions']}: only one question; eval intervals need at least 2")
        if data.groups is not None:
            span = np.unique(np.stack([data.questions, data.groups]), axis=1)[0]
            if span.size != data.questions.max() + 1:
                raise InputError(f"{names['groups']}: a question's answers must all be in one group")
    return data


def _correct(label, arr) -> np.ndarray:
    """A 0/1 column of scored answers (bools, 0/1 numbers): int64; another value is an error naming it."""
    miss = _missing(arr)
    if miss.any():
        raise InputError(f"{label}: {int(miss.sum())} missing score(s) (first at row {int(np.argmax(miss))})")
    if arr.dtype.kind == "b":
        return arr.astype(np.int64)
    try:
        values = arr.astype(float)
    except (TypeError, ValueError):
        values = None
    bad = np.ones(arr.shape, dtype=bool) if values is None else ~np.isin(values, (0.0, 1.0))
    if bad.any():
        raise InputError(f"{label}: each answer must be scored 0 or 1 (wrong or right), got "
                         f"{_quote(np.unique(arr[bad].astype(str)))} (first at row {int(np.argmax(bad))}); the eval "
                         f"intervals are of a share of right answers")
    return values.astype(np.int64)


def prepare_answers(correct, questions=None, groups=None, second_correct=None, max_rows=MAX_ROWS) -> Data:
    """Scored answers (an eval's per-sample 0/1 metric, no labels) as ``Data``: ``questions`` a question id a
    row (default: each row its own question), ``groups`` the question's group, ``second_correct`` a second
    run's score of the same row (the same question's same answer slot). ``truth`` is coded 1 and
    ``predicted`` is the score, so that correct = (predicted == truth) as with labels."""
    from ..methods.distinct import unique_inverse

    given = {k: v for k, v in dict(correct=correct, questions=questions, groups=groups,
                                   second_correct=second_correct).items() if v is not None}
    cols = {k: _values(k, v) for k, v in given.items()}
    names = {k: label for k, (label, _) in cols.items()}
    n = _rows(cols, "correct", "answers", max_rows)
    names.setdefault("questions", "questions")
    names["truth"] = names["predicted"] = names["correct"]
    data = Data(names, [0, 1], positive=1, answers=True)
    data.predicted = _correct(names["correct"], cols["correct"][1])
    data.truth = np.ones(n, dtype=np.int64)
    data.counts = [int(n - data.predicted.sum()), int(data.predicted.sum())]
    if "second_correct" in cols:
        data.second_correct = _correct(names["second_correct"], cols["second_correct"][1])
    for k in ("questions", "groups"):
        if k in cols:
            label, arr = cols[k]
            miss = _missing(arr)
            if miss.any():
                raise InputError(f"{label}: {int(miss.sum())} missing id(s) (first at row {int(np.argmax(miss))})")
            setattr(data, k, unique_inverse(_key(_labels(label, arr, [])))[1])
    if data.questions is None:
        data.questions = np.arange(n)
    if data.questions.max() < 1:
        raise InputError(f"{names['questions']}: only one question; eval intervals need at least 2")
    if data.groups is not None:
        if data.groups.max() < 1:
            raise InputError(f"{names['groups']}: only one group; clustered intervals need at least 2")
        span = np.unique(np.stack([data.questions, data.groups]), axis=1)[0]
        if span.size != data.questions.max() + 1:
            raise InputError(f"{names['groups']}: a question's answers must all be in one group")
    return data


WRONG_WAY = 0.2  # predicted labels that agree with the scores cut at 0.5 in under this share: scores reversed


def _other_class(label, scores, truth, predicted, classes) -> str | None:
    """A warning when the scores seem to be the other class's: their AUC's 95% DeLong interval lies below 0.5
    (DeLong, DeLong & Clarke-Pearson 1988), or, probabilities in [0, 1] beside predicted labels, the
    labels agree with the scores cut at 0.5 on under WRONG_WAY of the rows; None otherwise. ``classes``:
    [negative, positive]; truth and predicted coded 1 for the positive."""
    from ..methods.auc_difference import delong_covariance

    pos, neg = scores[truth == 1], scores[truth == 0]
    theta, cov = delong_covariance(np.asarray(pos, dtype=float)[None], np.asarray(neg, dtype=float)[None])
    auc, upper = float(np.ravel(theta)[0]), float(np.ravel(theta)[0] + 1.959964 * math.sqrt(max(float(np.ravel(cov)[0]), 0.0)))
    why = ""
    if upper < 0.5:
        why = f"their AUC is {auc:.4f} (95% interval up to {upper:.4f}, below 0.5)"
    elif predicted is not None and np.all((scores >= 0) & (scores <= 1)):
        agree = float(np.mean((scores >= 0.5) == (predicted == 1)))
        if agree < WRONG_WAY:
            why = f"the predicted labels agree with them cut at 0.5 on only {agree:.0%} of the rows"
    if not why:
        return None
    negative, positive = classes
    return (f"{label}: {why}: are they the scores of {negative!r}, not of the positive class {positive!r}? "
            f"If so, pass --positive {negative} (positive={negative!r} in Python), or give the positive class's scores")


def _stated(classes, lab, names, found):
    """The stated classes as the data's own values (1 matches "1"), in the stated order; an error
    naming the column for a label outside them, and for a stated class absent from truth."""
    if isinstance(classes, str):
        classes = [c.strip() for c in classes.split(",")]
    classes = list(classes)
    if len(classes) < 2 or len(set(map(str, classes))) != len(classes):
        raise InputError(f"classes: give two or more distinct labels, got {_quote(classes, len(classes))}")
    wanted = {str(c): c for c in classes}
    for k in ("truth", "predicted", "second_predicted"):
        if k not in lab:
            continue
        values = _key(lab[k])
        seen = _sorted(np.unique(values)) if values.dtype.kind != "O" else _sorted(set(values.tolist()))
        other = [v for v in seen if str(v) not in wanted]
        if other:
            row = int(np.flatnonzero(np.array([str(v) not in wanted for v in values.tolist()]))[0])
            raise InputError(f"{names[k]}: label(s) {_quote(other)} not among the stated classes "
                             f"{', '.join(map(repr, classes))} (first at row {row})")
    mine = {str(v): v for v in found}
    absent = [c for c in classes if str(c) not in mine]
    if absent:
        raise InputError(f"classes: {_quote(absent)} never occur(s) in {names['truth']}; every class needs examples")
    return [mine[str(c)] for c in classes]


def _key(arr):
    """Labels as hashable Python values that compare across columns (1 == 1.0 == '1' stays distinct by type)."""
    if arr.dtype.kind in "iub":
        return arr
    return np.array([v.item() if isinstance(v, np.generic) else v for v in arr.tolist()], dtype=object)


def _encode(keys, code) -> np.ndarray:
    """``code[key]`` of every key: each distinct key looked up once (np.unique), not once a row (10⁷ rows)."""
    from ..methods.distinct import unique_inverse

    try:
        distinct, inverse = unique_inverse(keys)
    except TypeError:  # keys of types that do not order (1 and "a" in one column)
        return np.array([code[v] for v in keys.tolist()], dtype=np.int64)
    return np.array([code[v] for v in distinct.tolist()], dtype=np.int64)[inverse]


def _sorted(values):
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)

