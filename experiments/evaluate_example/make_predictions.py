"""Two models' predictions on a held-out test set, for ``covstudy-evaluate`` (see README.md here).

The Wisconsin diagnostic breast cancer data that ship with scikit-learn (569 tumours, 30
features; Street, Wolberg & Mangasarian 1993), split 60/40 with a fixed seed, stratified by the
label. Two models are fitted on the training part: a standardised logistic regression and Gaussian
naive Bayes. ``predictions.csv`` holds, per test example, the true label (``malignant`` or
``benign``), each model's predicted label and its score (the predicted probability of malignant).

Needs scikit-learn (``pip install "covstudy[example]"``); covstudy itself does not.
"""

from pathlib import Path

import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

SEED = 2026


def main(out: Path = Path(__file__).parent / "predictions.csv") -> pd.DataFrame:
    data = load_breast_cancer()
    names = data.target_names[data.target]  # scikit-learn codes malignant 0, benign 1
    x_train, x_test, y_train, y_test = train_test_split(data.data, names, test_size=0.4, random_state=SEED,
                                                        stratify=names)
    models = {"logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
              "naive_bayes": GaussianNB()}
    table = {"truth": y_test}
    for name, model in models.items():
        model.fit(x_train, y_train)
        malignant = list(model.classes_).index("malignant")
        table[f"{name}_label"] = model.predict(x_test)
        table[f"{name}_score"] = model.predict_proba(x_test)[:, malignant].round(6)
    frame = pd.DataFrame(table)
    frame.to_csv(out, index=False)
    return frame


if __name__ == "__main__":
    frame = main()
    print(f"{len(frame)} test examples -> predictions.csv; accuracy "
          + ", ".join(f"{m} {(frame[f'{m}_label'] == frame['truth']).mean():.3f}" for m in ("logistic", "naive_bayes")))
