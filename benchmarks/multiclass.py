"""Speed of the multi-class kernels: the posterior of macro recall (mean of K Betas) and the macro-F1 methods.

python benchmarks/multiclass.py   # prints CPU and wall time per 1,000 intervals
"""

import time

import numpy as np

from covstudy.methods import get


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main():
    rng = np.random.default_rng(0)
    rows = 200
    print(f"{'method':<24}{'K':>4}{'n_i':>6}{'wall s / 1000':>16}{'CPU s / 1000':>16}")
    for K in (3, 5, 10):
        for n_i in (30, 300):
            n = np.full((rows, K), n_i)
            k = rng.binomial(n, 0.8)
            for name in ("mr_posterior", "mr_posterior_jeffreys"):
                wall, cpu = timed(lambda: get(name).kernel(k, n, 0.05))
                print(f"{name:<24}{K:>4}{n_i:>6}{wall * 1000 / rows:>16.2f}{cpu * 1000 / rows:>16.2f}")
            c = np.stack([rng.multinomial(n_i, np.r_[0.8, np.full(K - 1, 0.2 / (K - 1))][np.argsort(np.arange(K) != i)],
                                          size=rows) for i in range(K)], axis=1)
            sampled = {"draws": 2000}
            for name, params in (("mf1_takahashi", {}), ("mf1_bayes", sampled), ("mf1_bootstrap", sampled)):
                m = get(name)
                call = (lambda: m.kernel(c, 0.05, rng=np.random.default_rng(1), **params)) if m.input.per_test_set \
                    else (lambda: m.kernel(c, 0.05))
                wall, cpu = timed(call)
                print(f"{name:<24}{K:>4}{n_i:>6}{wall * 1000 / rows:>16.2f}{cpu * 1000 / rows:>16.2f}")


if __name__ == "__main__":
    main()
