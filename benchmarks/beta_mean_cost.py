"""CPU time per interval of ``beta_mean`` on problems drawn from the balanced_imbalance study,
against an earlier version of the module, side by side in one run (issue 18).

    PYTHONPATH=src python benchmarks/beta_mean_cost.py [BEFORE_COMMIT] [SIZE]

Draws every design point of balanced_imbalance (both designs, reps = 20,000), keeps the distinct
outcomes with two non-empty classes, samples SIZE of them (default 3,000) and times
``beta_mean.interval`` (δ = 0.05) with the uniform and the Jeffreys prior, for this tree and for
``src/covstudy/methods/beta_mean.py`` at BEFORE_COMMIT (default ad37e82, issue 18's first
version), loaded from git. Also reports CDF evaluations per quantile and the largest difference.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from covstudy.methods import beta_mean


def study_outcomes(size, seed=1, reps=20_000):
    """(k_pos, n_pos, k_neg, n_neg) of ``size`` distinct outcomes drawn from balanced_imbalance's points."""
    rng = np.random.default_rng(seed)
    drawn = []
    for n in [20, 50, 100, 200, 500, 1000]:
        for prevalence in [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5]:
            for tpr in [0.7, 0.9, 0.99]:
                for tnr in [0.7, 0.9, 0.99]:
                    for n_pos in (rng.binomial(n, prevalence, reps), np.full(reps, round(n * prevalence))):
                        n_neg = n - n_pos
                        rows = np.stack([rng.binomial(n_pos, tpr), n_pos, rng.binomial(n_neg, tnr), n_neg], 1)
                        drawn.append(np.unique(rows[(n_pos > 0) & (n_neg > 0)], axis=0))
    distinct = np.unique(np.concatenate(drawn), axis=0)
    return len(distinct), distinct[rng.choice(len(distinct), size, replace=False)].T.astype(float)


def module_at(commit):
    source = subprocess.run(["git", "show", f"{commit}:src/covstudy/methods/beta_mean.py"], check=True,
                            capture_output=True, text=True, cwd=Path(__file__).parent).stdout
    path = Path(tempfile.mkdtemp()) / "beta_mean_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("beta_mean_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def evaluations(module, args):
    """CDF evaluations per quantile (rows passed to _Sum.cdf_pdf over 2 quantiles an interval)."""
    rows, original = [0], module._Sum.cdf_pdf

    def counted(self, s, idx=slice(None)):
        rows[0] += len(s)
        return original(self, s, idx)

    module._Sum.cdf_pdf = counted
    try:
        module.interval(*args)
    finally:
        module._Sum.cdf_pdf = original
    return rows[0] / (2 * len(args[0]))


if __name__ == "__main__":
    commit = sys.argv[1] if len(sys.argv) > 1 else "ad37e82"
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    before = module_at(commit)
    distinct, (k_pos, n_pos, k_neg, n_neg) = study_outcomes(size)
    print(f"{size} of the {distinct:,} distinct outcomes drawn from balanced_imbalance's 756 points")
    for prior in (1.0, 0.5):
        args = (k_pos + prior, n_pos - k_pos + prior, k_neg + prior, n_neg - k_neg + prior, 0.05)
        cost, result = {}, {}
        for _ in range(2):  # interleaved, best of two
            for name, module in (("before", before), ("after", beta_mean)):
                start = time.process_time()
                result[name] = module.interval(*args)
                cost[name] = min(cost.get(name, np.inf), (time.process_time() - start) / size * 1e6)
        diff = max(np.max(np.abs(a - b)) for a, b in zip(result["before"], result["after"]))
        print(f"prior {prior}: before {cost['before']:.1f} µs CPU an interval "
              f"({evaluations(before, args):.2f} CDF evaluations a quantile), after {cost['after']:.1f} µs "
              f"({evaluations(beta_mean, args):.2f}); {cost['before'] / cost['after']:.2f}x; max |difference| {diff:.1e}")
