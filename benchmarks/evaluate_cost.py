"""CPU time, wall time and peak memory of ``covstudy.evaluate`` on files like a user's
(issue 41's targets, CPU seconds on the 2-core machine, one process):

| case | what | target |
|---|---|---|
| ``binary10k`` | 10,000 binary rows; scores with ties; a second model's labels and scores; 1,000 groups | 15 |
| ``digits10`` | 1,000 rows of a 10-class task (confusions concentrated near the diagonal) | 20 |
| ``binary1m`` | 10⁶ binary rows with scores (ties) | 60, 2 GB |
| ``binary1m --no-audit`` | the same, intervals only | 2 |

    python benchmarks/evaluate_cost.py [case ...] [--rows N] [--against REV]

Each case runs in its own process (so that its peak resident memory is its own): first the
intervals alone (``audit=False``), then the full certified audit with the width-vs-n table, side by
side. ``--against REV`` (a git revision, e.g. main) runs REV's ``src`` and this tree's alternately,
in one run, so both see the same machine load.
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CASES = {"binary10k": 15.0, "digits10": 20.0, "binary1m": 60.0}
NO_AUDIT_TARGET = 2.0  # CPU-s, intervals only at 10⁶ rows


def binary(rows, second=True, groups=True, seed=0):
    """A binary file as a user has it: prevalence 0.3, scores rounded to two decimals (ties), a
    second, weaker model correlated with the first, and groups with a shared random effect."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, max(1, rows // 10), rows)
    effect = rng.normal(0, 0.6, max(1, rows // 10))[g]
    truth = rng.random(rows) < 0.3
    latent = np.where(truth, 1.5, 0.0) + effect
    scores = np.round(rng.normal(latent, 1.0), 2)
    data = dict(truth=truth.astype(int), predicted=(scores > 0.75).astype(int), scores=scores)
    if second:
        s2 = np.round(0.6 * scores + rng.normal(0, 0.9, rows), 2)
        data.update(second_predicted=(s2 > 0.5).astype(int), second_scores=s2)
    if groups:
        data.update(groups=g)
    return data


def digits(rows, classes=10, seed=0):
    """A K-class file like scikit-learn's digits under logistic regression: balanced classes, about
    95% accuracy, errors on a few neighbouring classes."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, rows)
    wrong = rng.random(rows) < 0.05
    slip = rng.choice([-1, 1, 3], rows)
    return dict(truth=truth, predicted=np.where(wrong, (truth + slip) % classes, truth))


def data_for(case, rows):
    if case == "binary10k":
        return binary(rows or 10_000)
    if case == "digits10":
        return digits(rows or 1_000)
    return binary(rows or 1_000_000, second=False, groups=False)


def timed(covstudy, **kwargs):
    cpu, wall = time.process_time(), time.perf_counter()
    ev = covstudy.evaluate(**kwargs, progress=False)
    return ev, time.process_time() - cpu, time.perf_counter() - wall


def measure(case, rows, label):
    import covstudy

    data = data_for(case, rows)
    n = len(data["truth"])
    covstudy.evaluate(truth=[0, 1, 1, 0], predicted=[0, 1, 0, 0], audit=False, progress=False)  # imports out of the timings
    ev, cpu0, wall0 = timed(covstudy, **data, audit=False)
    peak0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    ev, cpu1, wall1 = timed(covstudy, **data)
    peak1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    audited = int(ev.table.coverage_at_estimate.notna().sum())
    ok0 = "ok" if case != "binary1m" or cpu0 <= NO_AUDIT_TARGET else "OVER"
    ok1 = "ok" if cpu1 <= CASES[case] and (case != "binary1m" or peak1 <= 2) else "OVER"
    print(f"{label:>10} {case:>9} {n:>9,} rows {len(ev.table):>3} rows ({audited} audited) | "
          f"intervals only {cpu0:6.2f} CPU-s {wall0:6.2f} wall {peak0:4.2f} GB {ok0:>4} | "
          f"full audit {cpu1:6.2f} CPU-s {wall1:6.2f} wall {peak1:4.2f} GB {ok1:>4} (target {CASES[case]:g} CPU-s)",
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*", help=f"of {', '.join(CASES)} (default: every case)")
    ap.add_argument("--rows", type=int, help="rows instead of the case's own")
    ap.add_argument("--against", help="a git revision whose src to time alongside this tree's")
    ap.add_argument("--label", default="this tree", help=argparse.SUPPRESS)
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    a.cases = a.cases or list(CASES)
    if set(a.cases) - set(CASES):
        ap.error(f"cases: choose from {', '.join(CASES)}, got {', '.join(sorted(set(a.cases) - set(CASES)))}")
    if a.inner:
        return measure(a.cases[0], a.rows, a.label)
    root = Path(__file__).resolve().parents[1]
    sources = [("this tree", root / "src")]
    with tempfile.TemporaryDirectory() as tmp:
        if a.against:
            archive = subprocess.run(["git", "-C", str(root), "archive", a.against, "src"], check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            sources.insert(0, (a.against, Path(tmp) / "src"))
        for case in a.cases:
            for label, src in sources:
                env = {**os.environ, "PYTHONPATH": str(src), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
                extra = ["--rows", str(a.rows)] if a.rows else []
                subprocess.run([sys.executable, __file__, case, "--inner", "--label", label, *extra], env=env, check=True)


if __name__ == "__main__":
    main()
