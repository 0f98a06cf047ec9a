"""CPU of one study on backend=dask (covstudy's own LocalCluster) against backend=loky, interleaved.

    PYTHONPATH=src python benchmarks/dask_vs_loky.py balanced_imbalance --runs 2
    PYTHONPATH=src python benchmarks/dask_vs_loky.py quick --runs 3 --vs "backend=dask DASK_X=y"

Each run is a fresh process (this script with ``--child``) that runs the study from scratch into
a temporary folder. Its CPU is the operating system's account of that process and of every
process it reaped, read with ``os.wait4`` as ``/usr/bin/time`` does: the scheduler, client and
nannies (threads of the run's process), the dask workers and loky's workers (its children, which
exit and are reaped before the run's process ends: the LocalCluster is closed by the run, loky's
pool is shut down here). The child also prints its own share and its children's share, and a
hash of the results table: every variant must give the same hash.

Variants run in turn (loky, dask, loky, dask, ...) so that a drift in the machine's load
affects both alike; the load average is printed beside each run. ``--vs`` (repeatable) replaces the dask
variant: its words are overrides, and ``NAME=value`` words in capitals are environment
variables (e.g. ``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=True`` to put one of dask's
defaults back and measure what it costs).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ENV = re.compile(r"^[A-Z_][A-Z0-9_]*=")


def child(study: str, overrides: list[str]) -> None:
    from joblib.externals.loky import get_reusable_executor

    from covstudy import run_study

    with tempfile.TemporaryDirectory() as out:
        table = run_study(study, overrides, out=out, progress=False)
    get_reusable_executor().shutdown(wait=True)  # loky's workers exit and are reaped: counted
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    digest = hashlib.sha256(table.to_csv(index=False).encode()).hexdigest()[:16]
    print(f"self {own.ru_utime + own.ru_stime:.2f} children {kids.ru_utime + kids.ru_stime:.2f} "
          f"cells {len(table)} table {digest}")


def run(study: str, words: list[str]) -> dict:
    env = dict(os.environ)
    overrides = []
    for word in words:
        if ENV.match(word):
            name, _, value = word.partition("=")
            env[name] = value
        else:
            overrides.append(word)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, __file__, "--child", study, *overrides], env=env,
                                stdout=subprocess.PIPE, stderr=err, text=True)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        if proc.returncode != 0 or not out.startswith("self "):
            err.seek(0)
            raise SystemExit(f"{' '.join(words)}: exit {proc.returncode}: {out}{err.read()[-2000:]}")
    fields = out.split()
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "self": float(fields[1]),
            "children": float(fields[3]), "faults": usage.ru_minflt, "table": fields[7],
            "load": (load + os.getloadavg()[0]) / 2}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("study")
    parser.add_argument("overrides", nargs="*", help="for every variant, e.g. n_jobs=2")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--vs", action="append", help="another variant's words (default: backend=dask); "
                        "may be repeated")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.study, args.overrides)
        return
    variants = {"backend=loky": ["backend=loky"], **{vs: vs.split() for vs in args.vs or ["backend=dask"]}}
    print(f"{args.study} {' '.join(args.overrides)}: {args.runs} runs of each, in turn; CPU seconds "
          "of the whole run (its process: scheduler, client, nannies | its reaped children: workers)")
    results: dict[str, list[dict]] = {name: [] for name in variants}
    for i in range(args.runs):
        for name, words in variants.items():
            r = run(args.study, [*args.overrides, *words])
            results[name].append(r)
            print(f"  {name:40s} {r['cpu']:7.1f} CPU-s ({r['self']:.1f} | {r['children']:.1f}) "
                  f"{r['wall']:7.1f} s wall  {r['faults'] / 1e3:6.0f} k faults  load {r['load']:5.1f}  "
                  f"table {r['table']}", flush=True)
    med = {name: statistics.median(r["cpu"] for r in rs) for name, rs in results.items()}
    tables = {r["table"] for rs in results.values() for r in rs}
    print("median CPU-s: " + ", ".join(f"{n} {c:.1f}" for n, c in med.items())
          + "; " + "".join(f"{n} / loky = {c / med['backend=loky']:.3f}; " for n, c in med.items()
                           if n != "backend=loky")
          + ("identical tables" if len(tables) == 1 else f"TABLES DIFFER: {sorted(tables)}"))


if __name__ == "__main__":
    main()
