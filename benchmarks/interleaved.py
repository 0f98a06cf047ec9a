"""Two commands run in turn (A B A B ...), each from a fresh output folder: CPU, wall and peak memory.

    python benchmarks/interleaved.py --runs 5 \\
        --a ".venv/bin/covstudy study=balanced_imbalance n_jobs=1 out={out}" \\
        --b "../old/.venv/bin/covstudy study=balanced_imbalance n_jobs=1 out={out}"

``{out}`` in a command becomes a new empty temporary folder for each run (so that no run resumes
another's cells). CPU is the user + system seconds of the command and of the children it waited for
(os.wait4), wall a monotonic clock around the run, peak the largest resident set among them. On a
shared machine alternating the two commands makes a drift in the machine's speed hit both alike:
compare the medians, and the ratio A/B taken pair by pair.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import tempfile
import time


def run(command: str) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak MB) of one run of ``command``."""
    with tempfile.TemporaryDirectory() as out:
        argv = [a.replace("{out}", os.path.join(out, "study")) for a in shlex.split(command)]
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"exit {proc.returncode}: {command}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def spread(values) -> str:
    return f"{min(values):8.2f} {statistics.median(values):8.2f} {max(values):8.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help="the command measured ({out}: a fresh folder)")
    parser.add_argument("--b", required=True, help="the baseline, run in turn with A")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    results = {"A": [], "B": []}
    for i in range(args.runs):
        for name, command in (("A", args.a), ("B", args.b)):
            results[name].append(run(command))
            cpu, wall, peak = results[name][-1]
            print(f"run {i + 1} {name}: {cpu:.2f} CPU-s, {wall:.2f} s wall, peak {peak:.0f} MB", flush=True)
    print(f"\n{'':14} {'min':>8} {'median':>8} {'max':>8}")
    for name in results:
        for j, what in enumerate(("CPU-s", "wall s", "peak MB")):
            print(f"{name} {what:<12} {spread([r[j] for r in results[name]])}")
    for j, what in enumerate(("CPU", "wall")):
        print(f"A/B {what:<10} {spread([a[j] / b[j] for a, b in zip(results['A'], results['B'])])}")
    print(f"\nA: {args.a}\nB: {args.b}")


if __name__ == "__main__":
    main()
