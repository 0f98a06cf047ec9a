"""The user's columns in, checked and encoded: the first step of ``covstudy.evaluate``.

``prepare`` validates every column (one-line ``InputError`` naming it, before any work) and returns
``Data``: the labels as 0..K-1 codes (a binary problem's positive class coded 1), the scores, and the
group and question ids as codes. Flow: data -> metrics (counts, estimates, regions) -> audit ->
recommend -> growth -> render, wired by ``result.evaluate``. Imports nothing from the wing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

POSITIVE_NAMES = ("1", "true", "pos", "positive", "yes", "y", "t")


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


def _labels(label, arr):
    miss = _missing(arr)
    if miss.any():
        raise InputError(f"{label}: {int(miss.sum())} missing value(s) (first at row {int(np.argmax(miss))})")
    if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    return arr


def _scores(label, arr):
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

    @property
    def binary(self) -> bool:
        return len(self.classes) == 2

    @property
    def n(self) -> int:
        return int(self.truth.size)


def prepare(truth, predicted=None, scores=None, groups=None, second_predicted=None, second_scores=None,
            positive=None, questions=None) -> Data:
    """Validate every column (one-line ``InputError`` naming it) and encode the labels."""
    given = {k: v for k, v in dict(truth=truth, predicted=predicted, scores=scores, groups=groups,
                                   second_predicted=second_predicted, second_scores=second_scores,
                                   questions=questions).items()
             if v is not None}
    cols = {k: _values(k, v) for k, v in given.items()}
    names = {k: label for k, (label, _) in cols.items()}
    n = cols["truth"][1].size
    if n == 0:
        raise InputError(f"{names['truth']}: empty (no examples)")
    for k, (label, arr) in cols.items():
        if arr.size != n:
            raise InputError(f"{label}: {arr.size} values, but {names['truth']} has {n}")
    if predicted is None and scores is None:
        raise InputError("predicted: give the predicted labels and/or the scores")
    if second_predicted is not None and predicted is None:
        raise InputError(f"{names['second_predicted']}: a second model's labels need the first's (predicted)")
    if second_scores is not None and scores is None:
        raise InputError(f"{names['second_scores']}: a second model's scores need the first's (scores)")
    lab = {k: _labels(names[k], cols[k][1]) for k in ("truth", "predicted", "second_predicted", "groups", "questions")
           if k in cols}
    sc = {k: _scores(names[k], cols[k][1]) for k in ("scores", "second_scores") if k in cols}
    truth_classes = _sorted(np.unique(_key(lab["truth"])))
    if len(truth_classes) < 2:
        raise InputError(f"{names['truth']}: only one class ({truth_classes[0]!r}); intervals need both "
                         f"positives and negatives")
    classes = truth_classes
    for k in ("predicted", "second_predicted"):
        if k in lab:
            extra = set(_key(lab[k]).tolist()) - set(_key(lab["truth"]).tolist())
            if extra:
                raise InputError(f"{names[k]}: label(s) {', '.join(map(repr, sorted(map(str, extra))))} never "
                                 f"occur in {names['truth']}")
    data = Data(names, classes)
    code = {c: i for i, c in enumerate(classes)}
    data.truth = np.array([code[v] for v in _key(lab["truth"]).tolist()])
    if "predicted" in lab:
        data.predicted = np.array([code[v] for v in _key(lab["predicted"]).tolist()])
    if "second_predicted" in lab:
        data.second = np.array([code[v] for v in _key(lab["second_predicted"]).tolist()])
    if data.binary:
        data.positive = _positive(classes, positive, names["truth"])
        if classes.index(data.positive) == 0:  # code the positive as 1
            for attr in ("truth", "predicted", "second"):
                if getattr(data, attr) is not None:
                    setattr(data, attr, 1 - getattr(data, attr))
            data.classes = classes[::-1]
    elif sc:
        raise InputError(f"{names['scores' if 'scores' in sc else 'second_scores']}: scores give the AUC of a "
                         f"binary problem; {names['truth']} has {len(classes)} classes")
    elif positive is not None:
        raise InputError(f"positive: {names['truth']} has {len(classes)} classes; positive is for binary labels")
    data.scores, data.second_scores = sc.get("scores"), sc.get("second_scores")
    if "groups" in lab:
        _, data.groups = np.unique(_key(lab["groups"]), return_inverse=True)
        if data.groups.max() < 1:
            raise InputError(f"{names['groups']}: only one group; clustered intervals need at least 2")
    if "questions" in lab:
        if predicted is None:
            raise InputError(f"{names['questions']}: answers to questions need the predicted labels (predicted)")
        _, data.questions = np.unique(_key(lab["questions"]), return_inverse=True)
        if data.questions.max() < 1:
            raise InputError(f"{names['questions']}: only one question; eval intervals need at least 2")
        if data.groups is not None:
            span = np.unique(np.stack([data.questions, data.groups]), axis=1)[0]
            if span.size != data.questions.max() + 1:
                raise InputError(f"{names['groups']}: a question's answers must all be in one group")
    return data


def _key(arr):
    """Labels as hashable Python values that compare across columns (1 == 1.0 == '1' stays distinct by type)."""
    if arr.dtype.kind in "iub":
        return arr
    return np.array([v.item() if isinstance(v, np.generic) else v for v in arr.tolist()], dtype=object)


def _sorted(values):
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)

