"""scikit-learn's door: ``Evaluation.from_estimator`` / ``from_predictions`` equal ``evaluate`` on the same
predictions, with scikit-learn's choice of score (predict_proba's pos_label column, else decision_function)."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from covstudy import Evaluation, evaluate
from covstudy.evaluation.data import InputError

pytest.importorskip("sklearn")
from sklearn.datasets import load_breast_cancer, load_iris  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

QUICK = dict(audit=False, progress=False, cache=False)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    labels = np.where(y == 1, "benign", "malignant")  # text labels: the positive class must be named or taken
    return X[::2], labels[::2], X[1::2], labels[1::2]


@pytest.fixture(scope="module")
def fitted(cancer):
    X_fit, y_fit, _, _ = cancer
    return make_pipeline(StandardScaler(), LogisticRegression()).fit(X_fit, y_fit)


def _same(a, b):
    pd.testing.assert_frame_equal(a.table, b.table)


def test_a_pipeline_is_evaluate_on_its_labels_and_its_positive_probability(cancer, fitted):
    X, y, model = *cancer[2:], fitted
    ev = Evaluation.from_estimator(model, X, y, **QUICK)
    # scikit-learn's default positive class is classes_[1] ("malignant" sorts after "benign")
    positive = model.classes_[1]
    assert positive == "malignant"
    score = model.predict_proba(X)[:, 1]
    _same(ev, evaluate(y, model.predict(X), score, positive=positive, **QUICK))
    assert ev.info["positive"] == "malignant" and "auc" in set(ev.table.metric)
    # pos_label="benign": its column of predict_proba, and evaluate's positive
    flipped = Evaluation.from_estimator(model, X, y, pos_label="benign", **QUICK)
    _same(flipped, evaluate(y, model.predict(X), model.predict_proba(X)[:, 0], positive="benign", **QUICK))
    # the predictions' door: the same table
    _same(Evaluation.from_predictions(y, model.predict(X), score, pos_label="malignant", **QUICK), ev)


def test_a_classifier_with_only_decision_function_and_a_second_model(cancer):
    X_fit, y_fit, X, y = cancer
    svc = make_pipeline(StandardScaler(), LinearSVC()).fit(X_fit, y_fit)
    assert not hasattr(svc, "predict_proba")
    nb = GaussianNB().fit(X_fit, y_fit)
    ev = Evaluation.from_estimator(svc, X, y, second=nb, metrics=["accuracy", "auc", "auc_difference"], **QUICK)
    expected = evaluate(y, svc.predict(X), svc.decision_function(X), second_predicted=nb.predict(X),
                        second_scores=nb.predict_proba(X)[:, 1], positive="malignant",
                        metrics=["accuracy", "auc", "auc_difference"], **QUICK)
    _same(ev, expected)
    # pos_label the first class: the decision function's sign flipped, as scikit-learn does
    flipped = Evaluation.from_estimator(svc, X, y, pos_label="benign", metrics=["auc"], **QUICK)
    _same(flipped, evaluate(y, svc.predict(X), -svc.decision_function(X), positive="benign", metrics=["auc"],
                            **QUICK))
    auc = flipped.table.estimate.iloc[0]
    assert auc > 0.9  # the flipped score still ranks benign above malignant


def test_a_multiclass_estimator_gives_its_labels():
    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=500).fit(X[::2], y[::2])
    ev = Evaluation.from_estimator(model, X[1::2], y[1::2], **QUICK)
    _same(ev, evaluate(y[1::2], model.predict(X[1::2]), **QUICK))
    assert "macro_recall" in set(ev.table.metric) and "auc" not in set(ev.table.metric)


@pytest.mark.parametrize("call, message", [
    (lambda m, X, y: Evaluation.from_estimator(m, X, y, sample_weight=np.ones(len(y))), "sample_weight: not supported"),
    (lambda m, X, y: Evaluation.from_predictions(y, m.predict(X), sample_weight=np.ones(len(y))),
     "sample_weight: not supported"),
    (lambda m, X, y: Evaluation.from_estimator(m, X, y, pos_label="cat"), "pos_label: 'cat' is not one of"),
    (lambda m, X, y: Evaluation.from_estimator(m, X, y, response_method="predict"), "response_method: one of"),
    (lambda m, X, y: Evaluation.from_estimator(LogisticRegression(), X, y), "estimator: predict failed"),
    (lambda m, X, y: Evaluation.from_estimator("a model", X, y), "estimator: expected a fitted scikit-learn"),
    (lambda m, X, y: Evaluation.from_predictions(y, m.predict(X), truth=y), "truth: give it in scikit-learn's words"),
])
def test_bad_input_is_one_line_naming_it(cancer, fitted, call, message):
    with pytest.raises(InputError) as err:
        call(fitted, *cancer[2:])
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_scikit_learn_is_not_imported_by_covstudy():
    code = "import covstudy, covstudy.evaluation.estimators, sys; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
