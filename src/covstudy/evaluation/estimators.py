"""scikit-learn's door to ``evaluate``: the arguments of ``Evaluation.from_estimator`` and ``from_predictions``.

The names and argument order are scikit-learn's own (``RocCurveDisplay.from_estimator(estimator, X, y)``,
``ConfusionMatrixDisplay.from_predictions(y_true, y_pred)``), and the score is picked as scikit-learn picks
it (``sklearn.utils._response._get_response_values_binary``): ``response_method="auto"`` tries
``predict_proba`` (the ``pos_label`` column, located in ``estimator.classes_``), then
``decision_function`` (its sign flipped when ``pos_label`` is ``classes_[0]``); ``pos_label`` defaults to
``classes_[1]``. A multi-class estimator gives its predicted labels only (``evaluate`` takes scores for
the binary AUC alone). Everything else is ``evaluate`` on those arrays, so the two are equal on the same
predictions. scikit-learn is never imported here: an estimator is anything with ``predict`` (and
``classes_`` where a score is read), so a ``Pipeline`` or a classifier with only ``decision_function``
(``LinearSVC``) works as scikit-learn's displays do.
"""

from __future__ import annotations

import numpy as np

from .data import InputError

RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")
# why a weighted test set is refused: every interval here is of counts of examples, each counted once
NO_WEIGHTS = ("sample_weight: not supported: every interval and its coverage audit count each test example once "
              "(a weighted test set has no binomial count); give the examples themselves, or resample them by weight")


def predictions_arguments(y_true, y_pred=None, y_score=None, *, pos_label=None, sample_weight=None,
                          second_pred=None, second_score=None, **kwargs) -> dict:
    """``evaluate``'s keywords from scikit-learn's (``Evaluation.from_predictions``): ``y_true``, ``y_pred``,
    ``y_score``, ``pos_label`` (its ``positive``), ``second_pred`` and ``second_score`` a second model's;
    the other keywords are ``evaluate``'s, passed on."""
    if sample_weight is not None:
        raise InputError(NO_WEIGHTS)
    for taken in ("truth", "predicted", "scores", "positive", "second_predicted", "second_scores"):
        if taken in kwargs:
            raise InputError(f"{taken}: give it in scikit-learn's words (y_true, y_pred, y_score, pos_label, "
                             f"second_pred, second_score)")
    return dict(truth=y_true, predicted=y_pred, scores=y_score, second_predicted=second_pred,
                second_scores=second_score, positive=pos_label, **kwargs)


def estimator_arguments(estimator, X, y, second=None, *, response_method="auto", pos_label=None, sample_weight=None,
                        **kwargs) -> dict:
    """``predictions_arguments`` of ``estimator.predict(X)`` and its score (module docstring); ``second``: a second
    fitted estimator on the same ``X``, compared with the first (paired)."""
    if sample_weight is not None:
        raise InputError(NO_WEIGHTS)
    if response_method not in RESPONSE_METHODS:
        raise InputError(f"response_method: one of {', '.join(RESPONSE_METHODS)}, got {response_method!r}")
    predicted, score, positive = _responses("estimator", estimator, X, response_method, pos_label)
    second_pred = second_score = None
    if second is not None:
        second_pred, second_score, other = _responses("second", second, X, response_method, pos_label)
        if positive is not None and other is not None and positive != other:
            raise InputError(f"second: its positive class {other!r} (classes_[1]) is not the estimator's "
                             f"{positive!r}; give pos_label")
        if (score is None) != (second_score is None):
            score = second_score = None  # the AUC difference needs both; each model's labels are still compared
    return predictions_arguments(y, predicted, score, pos_label=positive, second_pred=second_pred,
                                 second_score=second_score, **kwargs)


def _responses(name, estimator, X, response_method, pos_label):
    """(predicted labels, the positive class's score or None, the positive class or None) of a fitted
    estimator: scikit-learn's ``_get_response_values_binary`` for a binary one, labels alone otherwise."""
    if not callable(getattr(estimator, "predict", None)):
        raise InputError(f"{name}: expected a fitted scikit-learn classifier (with predict), got "
                         f"{type(estimator).__name__}")
    try:
        predicted = np.asarray(estimator.predict(X))
    except Exception as e:  # NotFittedError and the like: scikit-learn's own one-line reason
        raise InputError(f"{name}: predict failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    classes = getattr(estimator, "classes_", None)
    if classes is None or len(classes) != 2:
        if response_method != "auto":
            raise InputError(f"response_method: {response_method} gives a binary classifier's score; {name} has "
                             f"{'no classes_' if classes is None else f'{len(classes)} classes'}")
        return predicted, None, pos_label  # multi-class (or no classes_): the labels; evaluate checks pos_label
    classes = list(classes)
    positive = classes[1] if pos_label is None else next((c for c in classes if c == pos_label), None)
    if positive is None:
        raise InputError(f"pos_label: {pos_label!r} is not one of {name}'s classes_ {classes}")
    methods = ["predict_proba", "decision_function"] if response_method == "auto" else [response_method]
    method = next((m for m in methods if callable(getattr(estimator, m, None))), None)
    if method is None:
        if response_method != "auto":
            raise InputError(f"response_method: {name} has no {response_method}")
        return predicted, None, positive  # labels only: no AUC
    out = np.asarray(getattr(estimator, method)(X), dtype=float)
    if method == "predict_proba":
        score = out[:, classes.index(positive)]
    else:
        score = out.ravel() if positive == classes[1] else -out.ravel()
    return predicted, score, positive
