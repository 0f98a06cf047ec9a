"""CPU and wall time of ``covstudy.evaluate`` on a 10,000-row binary test set with scores
(issue 27's budget: the full audit under 10 s of CPU on the 2-core machine).

    python benchmarks/evaluate_cost.py [rows] [--against REV]

Prints the cost without the audit (the intervals alone) and with it (the width-vs-n table
included). ``--against REV`` (a git revision, e.g. main) runs REV's ``src`` and this tree's
alternately, twice each, in one run, so both see the same machine load.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def timed(covstudy, **kwargs):
    cpu, wall = time.process_time(), time.perf_counter()
    ev = covstudy.evaluate(**kwargs)
    return ev, time.process_time() - cpu, time.perf_counter() - wall


def measure(rows: int, label: str = "this tree"):
    import covstudy

    rng = np.random.default_rng(0)
    truth = rng.random(rows) < 0.3
    scores = rng.normal(np.where(truth, 1.5, 0.0), 1.0)
    predicted = scores > 0.75
    data = dict(truth=truth.astype(int), predicted=predicted.astype(int), scores=scores)
    covstudy.evaluate(**data, audit=False)  # imports and first-call set-up out of the timings
    ev, cpu0, wall0 = timed(covstudy, **data, audit=False)
    ev, cpu1, wall1 = timed(covstudy, **data)
    audited = int(ev.table.coverage_at_estimate.notna().sum())
    print(f"{label:>12}: {rows} rows, {len(ev.table)} metric x method rows ({audited} audited)  "
          f"intervals only {cpu0:5.2f} s CPU {wall0:6.2f} s wall  |  full audit {cpu1:5.2f} s CPU {wall1:6.2f} s wall",
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", nargs="?", type=int, default=10_000)
    ap.add_argument("--against", help="a git revision whose src to time alongside this tree's")
    ap.add_argument("--label", default="this tree", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if not a.against:
        return measure(a.rows, a.label)
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", a.against, "src"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for _ in range(2):
            for label, src in ((a.against, Path(tmp) / "src"), ("this tree", root / "src")):
                env = {**os.environ, "PYTHONPATH": str(src)}
                subprocess.run([sys.executable, __file__, str(a.rows), "--label", label], env=env, check=True)


if __name__ == "__main__":
    main()
