"""Exact binomial coverage at one point as n grows: covstudy against a plain floor.

    PYTHONPATH=src python benchmarks/exact_scale.py [method] [p]        # default clopper_pearson 0.3
    PYTHONPATH=src python benchmarks/exact_scale.py multiclass          # the multiclass lines only

covstudy: ``coverage(method, n=n, p=p)`` (the support of the pmf only, designs/support.py).
Floor: what a careful user writes: intervals only for k within ±40 sd of n·p, the pmf as
exp(scipy's binom.logpmf) there, one sum. Each (n, implementation) in its own child process
(cold: no cached tables), imports excluded; CPU and wall seconds of the call and the child's
peak resident memory (imports included). n = 10³ … 10⁹. Then exact unpaired coverage
(Newcombe's square-and-add interval) at n1 = n2 = 10³ … 10⁶, covstudy only; then exact clustered
coverage (Wilson on the totals, designs/clustered.support_pmf) at m·s = 10⁴ … 10⁹ examples; then the
multiclass designs (recall 0.8, imbalance 4): accuracy (the trace), macro recall (the diagonal) and
macro-F1 (the whole matrix), covstudy only, up to their limits (designs/multiclass.py):

    PYTHONPATH=src python benchmarks/exact_scale.py clustered            # the clustered lines only
"""

from __future__ import annotations

import json
import subprocess
import sys

NS = (10**3, 10**4, 10**5, 10**6, 10**7, 10**8, 10**9)

CHILD = r"""
import json, resource, sys, time
import numpy as np
from scipy import stats
from covstudy import coverage
from covstudy.intervals import interval

which, method, n, p = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
extra = sys.argv[5:]  # clustered: cluster_size, icc; multiclass: design, metric, K

def floor():
    sd = np.sqrt(n * p * (1 - p))
    k = np.arange(max(0, int(n * p - 40 * sd)), min(n, int(n * p + 40 * sd)) + 1)
    lower, upper = interval(method, k, n, 0.05)
    pmf = np.exp(stats.binom.logpmf(k, n, p))
    return float(np.sum(pmf * ((lower <= p) & (p <= upper)))), k.size

def ours():
    return float(coverage(method, n=n, p=p).coverage), None

def unpaired():  # n1 = n2 = n, p1 = p, p2 = p - 0.05 (or p + 0.05)
    q = p - 0.05 if p > 0.5 else p + 0.05
    return float(coverage(method, design="unpaired", n1=n, n2=n, p1=p, p2=q).coverage), None

def multiclass():  # p is unused; design, metric and K follow
    design, metric, K = extra[0], extra[1], int(extra[2])
    r = coverage(method, design=design, metric=metric, K=K, n=n, recall=0.8, imbalance=4.0)
    return float(r.coverage), None

def clustered():  # n clusters of extra[0] examples
    return float(coverage(method, design="clustered", clusters=n, cluster_size=int(float(extra[0])), p=p,
                          icc=float(extra[1])).coverage), None

fn = {"floor": floor, "covstudy": ours, "unpaired": unpaired, "clustered": clustered,
      "multiclass": multiclass}[which]
c, w = time.process_time(), time.perf_counter()
cov, size = fn()
cpu, wall = time.process_time() - c, time.perf_counter() - w
print(json.dumps({"coverage": cov, "cpu": cpu, "wall": wall, "k": size,
                  "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3}))
"""


MULTICLASS = (  # (design, metric, method, K, sizes n)
    ("multiclass", "accuracy", "wilson", 3, (10**4, 10**6, 10**9)),
    ("multiclass_iid", "accuracy", "wilson", 3, (10**4, 10**6, 10**9)),
    ("multiclass", "macro_recall", "mr_wald", 2, (10**3, 10**4, 10**5, 2 * 10**5)),
    ("multiclass", "macro_recall", "mr_union_cp", 3, (300, 1000, 2000)),
    ("multiclass_iid", "macro_recall", "mr_wald", 2, (300, 1000)),
    ("multiclass", "macro_f1", "mf1_takahashi", 2, (10**3, 10**5, 2 * 10**5)),
    ("multiclass_iid", "macro_f1", "mf1_takahashi", 2, (300, 1000)),
)

# (clusters, cluster_size, p, icc) of the clustered lines: m·s = 10⁴ … 10⁹; the last ones near the
# support limit (40,000 totals)
CLUSTERED = ((1_000, 10, 0.9, 0.05), (10_000, 10, 0.9, 0.05), (100_000, 10, 0.9, 0.05), (1_000_000, 10, 0.9, 0.05),
             (10_000_000, 10, 0.9, 0.01), (100, 100_000, 0.9, 1e-5), (100_000_000, 10, 0.3, 0.0),
             (1_000_000, 10, 0.5, 0.1), (100_000, 100, 0.8, 0.05), (10_000_000, 10, 0.5, 0.1))


def clustered_lines() -> None:
    print("\nexact clustered: coverage('wilson', design='clustered', clusters, cluster_size, p, icc)")
    print("| clusters | cluster_size | m·s | p | icc | CPU s | wall s | MB | coverage |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m, size, p, icc in CLUSTERED:
        a = run("clustered", "wilson", m, p, size, icc)
        print(f"| {m:,} | {size:,} | 10^{len(str(m * size)) - 1} | {p:g} | {icc:g} | {a['cpu']:.3f} | {a['wall']:.3f} | "
              f"{a['mb']:.0f} | {a['coverage']:.6f} |", flush=True)


def run(which: str, method: str, n: int, p: float, *extra) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, which, method, str(n), str(p), *map(str, extra)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def multiclass_lines() -> None:
    print("\nexact multiclass: coverage(method, design, metric, K, n, recall=0.8, imbalance=4)")
    print("| design | metric | method | K | n | CPU s | wall s | MB | coverage |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for design, metric, name, K, sizes in MULTICLASS:
        for n in sizes:
            a = run("multiclass", name, n, 0.0, design, metric, K)
            print(f"| {design} | {metric} | {name} | {K} | {n:,} | {a['cpu']:.3f} | {a['wall']:.3f} | {a['mb']:.0f} | "
                  f"{a['coverage']:.6f} |", flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["clustered"]:
        clustered_lines()
        sys.exit()
    if sys.argv[1:] == ["multiclass"]:
        multiclass_lines()
        sys.exit()
    method = sys.argv[1] if len(sys.argv) > 1 else "clopper_pearson"
    p = float(sys.argv[2]) if len(sys.argv) > 2 else 0.3
    print(f"coverage({method!r}, n, p={p}), delta = 0.05; CPU s / wall s of the call, peak MB of the process")
    print("| n | covstudy CPU s | wall s | MB | floor CPU s | wall s | MB | floor's k values | coverage | |difference| |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in NS:
        a, b = run("covstudy", method, n, p), run("floor", method, n, p)
        print(f"| 10^{len(str(n)) - 1} | {a['cpu']:.3f} | {a['wall']:.3f} | {a['mb']:.0f} | {b['cpu']:.3f} | "
              f"{b['wall']:.3f} | {b['mb']:.0f} | {b['k']:,} | {a['coverage']:.6f} | "
              f"{abs(a['coverage'] - b['coverage']):.1e} |", flush=True)
    print("\nexact unpaired: coverage('diff_newcombe', design='unpaired', n1=n, n2=n, p1, p2 = p1 ± 0.05)")
    print("| n1 = n2 | p1 | CPU s | wall s | MB | coverage |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, q in ((10**3, 0.5), (10**4, 0.5), (10**5, 0.5), (10**6, 0.01), (10**6, 0.001)):
        a = run("unpaired", "diff_newcombe", n, q)
        print(f"| 10^{len(str(n)) - 1} | {q:g} | {a['cpu']:.3f} | {a['wall']:.3f} | {a['mb']:.0f} | {a['coverage']:.6f} |",
              flush=True)
    clustered_lines()
    multiclass_lines()
