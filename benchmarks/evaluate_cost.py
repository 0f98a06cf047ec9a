"""CPU and wall time of ``covstudy.evaluate`` on a 10,000-row binary test set with scores
(issue 27's budget: the full audit under 10 s of CPU on the 2-core machine).

    python benchmarks/evaluate_cost.py [rows]

Prints the cost without the audit (the intervals alone), with it, and the growth table's share.
"""

import sys
import time

import numpy as np

import covstudy


def timed(**kwargs):
    cpu, wall = time.process_time(), time.perf_counter()
    ev = covstudy.evaluate(**kwargs)
    return ev, time.process_time() - cpu, time.perf_counter() - wall


def main(rows: int = 10_000):
    rng = np.random.default_rng(0)
    truth = rng.random(rows) < 0.3
    scores = rng.normal(np.where(truth, 1.5, 0.0), 1.0)
    predicted = scores > 0.75
    data = dict(truth=truth.astype(int), predicted=predicted.astype(int), scores=scores)
    covstudy.evaluate(**data, audit=False)  # imports and first-call set-up out of the timings
    ev, cpu0, wall0 = timed(**data, audit=False)
    ev, cpu1, wall1 = timed(**data)
    print(f"{rows} rows, {len(ev.table)} metric x method rows")
    print(f"  intervals only: {cpu0:6.2f} s CPU  {wall0:6.2f} s wall")
    print(f"  full audit:     {cpu1:6.2f} s CPU  {wall1:6.2f} s wall  (with the width-vs-n table)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
