"""How fast the crossval design fits its models: batched ridge LDA against one fit at a time.

    PYTHONPATH=src python benchmarks/crossval.py

For each (n, d, K): the CPU seconds per simulated data set of the design's work (full fit,
holdout, R = 10 repeats of K-fold and nested CV: R·(K + K(K-1)/2) + 2 models a data set) and
the models fit per second; then the same K-fold + nested CV of one data set and one repeat
done the plain way (a loop over folds, each model from np.cov and np.linalg.solve, predicting
its test fold), to show what batching buys. Then the same for ``learner="logistic"`` (every
model a ridge IRLS fit on the raw examples, ``learner.fit_logistic_shared``) against one
scikit-learn ``LogisticRegression`` fit a model (when installed), CPU seconds beside wall seconds.
CPU seconds (process_time): trust them on a shared machine, not the wall clock. Run with
OPENBLAS_NUM_THREADS=1, as the study runner's workers are (threads only spin on these sizes).
"""

from __future__ import annotations

import time

import numpy as np

from covstudy.designs.crossval import simulate_sets


def plain_cv(x, y, order, K, ridge):
    """K-fold and nested CV of one data set, one model at a time."""
    fold = np.empty(len(y), int)
    fold[order] = np.arange(len(y)) % K

    def lda(train):
        x1, x0 = x[train & (y == 1)], x[train & (y == 0)]
        pooled = ((len(x1) - 1) * np.cov(x1.T) + (len(x0) - 1) * np.cov(x0.T)) / (train.sum() - 2)
        w = np.linalg.solve(pooled + ridge * np.eye(x.shape[1]), x1.mean(0) - x0.mean(0))
        return w, -w @ (x1.mean(0) + x0.mean(0)) / 2 + np.log(len(x1) / len(x0))

    errors = 0
    for k in range(K):
        w, b = lda(fold != k)
        errors += np.sum((x[fold == k] @ w + b > 0) != (y[fold == k] == 1))
        for j in range(k + 1, K):
            w, b = lda((fold != k) & (fold != j))
            for f in (j, k):
                errors += np.sum((x[fold == f] @ w + b > 0) != (y[fold == f] == 1))
    return errors


def main():
    rng = np.random.default_rng(0)
    print("| n | d | K | data sets | CPU ms a data set | models a data set | models / s | plain loop: models / s | speed-up |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, d, K in [(100, 5, 5), (100, 20, 10), (1000, 5, 10), (1000, 20, 10)]:
        reps, R = 200, 10
        start = time.process_time()
        simulate_sets(n, d, 0.15, 0.5, K, R, 0.2, 0.01, reps, rng)
        cpu = (time.process_time() - start) / reps
        models = R * (K + K * (K - 1) // 2) + 2
        y = (rng.random(n) < 0.5).astype(int)
        x = rng.standard_normal((n, d)) + y[:, None]
        start = time.process_time()
        loops = 20
        for _ in range(loops):
            plain_cv(x, y, rng.permutation(n), K, 0.01)
        plain = loops * (K + K * (K - 1) // 2) / (time.process_time() - start)
        print(f"| {n} | {d} | {K} | {reps} | {1000 * cpu:.2f} | {models} | {models / cpu:,.0f} | {plain:,.0f} | "
              f"{models / cpu / plain:.0f}× |")


def plain_logistic(x, y, order, K, ridge):
    """K-fold and nested CV of one data set, one scikit-learn logistic regression per model."""
    from sklearn.linear_model import LogisticRegression

    fold = np.empty(len(y), int)
    fold[order] = np.arange(len(y)) % K
    errors = 0
    for k in range(K):
        train = fold != k
        model = LogisticRegression(C=1 / ridge, tol=1e-10, max_iter=1000).fit(x[train], y[train])
        errors += np.sum(model.predict(x[fold == k]) != y[fold == k])
        for j in range(k + 1, K):
            train = (fold != k) & (fold != j)
            model = LogisticRegression(C=1 / ridge, tol=1e-10, max_iter=1000).fit(x[train], y[train])
            errors += np.sum(model.predict(x[(fold == j) | (fold == k)]) != y[(fold == j) | (fold == k)])
    return errors


def logistic():
    try:
        import sklearn  # noqa: F401
    except ImportError:
        sklearn = None
    rng = np.random.default_rng(0)
    print()
    print("| learner | n | d | K | CPU ms a data set | wall ms a data set | models / CPU-s | "
          "scikit-learn one at a time: models / CPU-s | speed-up |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, d, K in [(50, 10, 10), (100, 10, 10), (200, 10, 10), (100, 20, 10), (500, 10, 5)]:
        reps, R = 60, 10
        start, wall = time.process_time(), time.perf_counter()
        simulate_sets(n, d, 0.222, 0.5, K, R, 0.2, 0.01, reps, rng, learner_name="logistic")
        cpu, wall = (time.process_time() - start) / reps, (time.perf_counter() - wall) / reps
        models = R * (K + K * (K - 1) // 2) + 2
        plain = speed = "–"
        if sklearn is not None:
            y = (rng.random(n) < 0.5).astype(int)
            x = rng.standard_normal((n, d)) + y[:, None] * 0.5
            start = time.process_time()
            plain_logistic(x, y, rng.permutation(n), K, 0.01)
            rate = (K + K * (K - 1) // 2) / (time.process_time() - start)
            plain, speed = f"{rate:,.0f}", f"{models / cpu / rate:.0f}×"
        print(f"| logistic | {n} | {d} | {K} | {1000 * cpu:.1f} | {1000 * wall:.1f} | {models / cpu:,.0f} | {plain} | "
              f"{speed} |")


if __name__ == "__main__":
    main()
    logistic()
