"""CPU and wall seconds of exact coverage at one paired design point, every paired method (issue 25).

    PYTHONPATH=src python benchmarks/paired_exact.py [BEFORE_COMMIT] [METHOD ...]

The point is n = 150, acc_first = 0.8, acc_second = 0.75, correlation = 0.3 (delta = 0.05): the
methods in ``paired.NEEDS_CONCORDANT`` see all ~585k tables, the others the 11,476 discordant
(b, c) outcomes. Each method is timed cold (``core.clear_cache()``) in a fresh child process,
time.process_time() (CPU) beside time.perf_counter() (wall). With BEFORE_COMMIT (e.g. cb89fe5),
``src`` at that commit (``git archive``) is timed in the same run, interleaved with this tree, and
the coverages of both are printed with their difference.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

POINT = dict(design="paired", n=150, acc_first=0.8, acc_second=0.75, correlation=0.3)
HERE = Path(__file__).resolve().parent
PAIRED = ["paired_wald", "paired_wald_cc", "paired_agresti_min", "paired_bonett_price", "paired_newcombe",
          "paired_tango", "paired_scas", "paired_bayes"]

CHILD = """
import json, sys, time
from covstudy import coverage, methods
from covstudy.engine.core import clear_cache
point = json.loads(sys.argv[1])
names = sys.argv[2:] or [m.name for m in methods("paired").values()]
coverage(names[0], **{**point, "n": 5})  # imports and first-call costs outside the timing
for name in names:
    clear_cache()
    cpu, wall = time.process_time(), time.perf_counter()
    value = coverage(name, **point).coverage
    print(json.dumps([name, time.process_time() - cpu, time.perf_counter() - wall, value]), flush=True)
"""


def run(src, names):
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(POINT), *names], check=True, stdout=subprocess.PIPE,
                         text=True, env={"PYTHONPATH": str(src), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                                         "PATH": "/usr/bin:/bin"}).stdout
    return {row[0]: row[1:] for row in map(json.loads, out.splitlines())}


def source_at(commit):
    archive = subprocess.run(["git", "archive", commit, "src"], check=True, capture_output=True, cwd=HERE.parent).stdout
    target = Path(tempfile.mkdtemp())
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(target)
    return target / "src"


if __name__ == "__main__":
    args = sys.argv[1:]
    commit = args.pop(0) if args and not args[0].startswith("paired_") else None
    if commit is None:
        after = run(HERE.parent / "src", args)
        print(f"{'method':<20} {'CPU s':>8} {'wall s':>8}  coverage")
        for name, (cpu, wall, value) in after.items():
            print(f"{name:<20} {cpu:8.3f} {wall:8.3f}  {value:.15f}")
        sys.exit()
    old_src, new_src = source_at(commit), HERE.parent / "src"
    before, after = {}, {}
    for name in args or PAIRED:  # interleaved, one method a child each
        before.update(run(old_src, [name]))
        after.update(run(new_src, [name]))
    print(f"{'method':<20} {'CPU before':>10} {'CPU after':>10} {'wall before':>11} {'wall after':>10}  "
          f"{'coverage (after)':<18} |after - before|")
    for name, (cpu, wall, value) in after.items():
        b_cpu, b_wall, b_value = before[name]
        print(f"{name:<20} {b_cpu:10.3f} {cpu:10.3f} {b_wall:11.3f} {wall:10.3f}  {value:.15f} {abs(value - b_value):.1e}")
