"""covstudy benchmark: the Monte Carlo and exact engines against what users do today.

    PYTHONPATH=src python benchmarks/run.py            # about two minutes; writes benchmarks/results.md
    PYTHONPATH=src python benchmarks/run.py --quick    # a smoke test on a small grid

Headline grid (one run, same machine): methods x n x p at delta = 0.05, reps = 100 000.
  A   covstudy Monte Carlo engine through the public API, coverage(method, n, p, delta, reps, seed)
      per (method, n); every method simulates its own histograms.
  A'  the study runner's path: binomial_counts once per n (common random numbers), then
      the interval kernel and measures() per method.
  B   the competent-user baseline: per cell, numpy draws reps binomial counts and
      statsmodels' proportion_confint(k_array, n, ...) computes every replicate's interval.
  C   the floor of per-replicate simulation: numpy draws the same number of binomial variates.
  D   covstudy's exact engine through the public API.
B is timed on an evenly spaced subset of cells (every p in 0.05, 0.15, ..., 0.95) and
extrapolated per cell; C is timed on every (n, p) once and counted once per method.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from covstudy.designs import choose_sampler

HERE = Path(__file__).resolve().parent
METHODS = ("wald", "wilson", "agresti_coull", "jeffreys", "clopper_pearson")
STATSMODELS = {"wald": "normal", "wilson": "wilson", "agresti_coull": "agresti_coull",
               "jeffreys": "jeffreys", "clopper_pearson": "beta"}
DELTA, SEED = 0.05, 20240601


def best_of(fn, repeat=3):
    """Best wall time of ``repeat`` runs (the least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


# --------------------------------------------------------------------------- engines
def engine_mc(ns, ps, reps):
    from covstudy import coverage
    return {(m, n): coverage(m, n, ps, DELTA, reps=reps, seed=SEED) for m in METHODS for n in ns}


def engine_shared(ns, ps, reps):
    from covstudy.designs import binomial_counts
    from covstudy.engine.measures import measures
    from covstudy.methods import get
    out = {}
    for n in ns:
        w = binomial_counts(n, ps, reps, SEED) / reps
        k = np.arange(n + 1)
        for m in METHODS:
            lower, upper = get(m).kernel(k, n, DELTA)
            out[m, n] = measures(w, lower, upper, ps, reps)
    return out


def engine_exact(ns, ps):
    from covstudy import coverage
    return {(m, n): coverage(m, n, ps, DELTA) for m in METHODS for n in ns}


def baseline_statsmodels(cells, reps):
    """B: what a careful user writes, vectorised over replicates."""
    from statsmodels.stats.proportion import proportion_confint
    rng = np.random.default_rng(SEED)
    for m, n, p in cells:
        k = rng.binomial(n, p, size=reps)
        lower, upper = proportion_confint(k, n, alpha=DELTA, method=STATSMODELS[m])
        np.mean((lower <= p) & (p <= upper))


def floor_numpy(cells, reps):
    """C: the binomial variates alone."""
    rng = np.random.default_rng(SEED)
    for n, p in cells:
        rng.binomial(n, p, size=reps)


# --------------------------------------------------------------------------- scaling
def cell_cost_mc(n, ps, reps, sampler="auto", method="wilson"):
    """Seconds per cell of one method's Monte Carlo coverage (simulate + interval + measures)."""
    from covstudy.designs import binomial_counts
    from covstudy.engine.measures import measures
    from covstudy.methods import get

    def run():
        lower, upper = get(method).kernel(np.arange(n + 1), n, DELTA)
        measures(binomial_counts(n, ps, reps, SEED, sampler) / reps, lower, upper, ps, reps)
    return best_of(run, 2) / len(ps)


def cell_cost_exact(n, ps, method="wilson"):
    from covstudy import coverage
    return best_of(lambda: coverage(method, n, ps, DELTA), 2) / len(ps)


def _chunk(method, n, ps, reps):
    """One (method, n) chunk in a worker: its coverage and the CPU seconds it took."""
    from threadpoolctl import threadpool_limits

    from covstudy import coverage
    cpu = time.process_time()
    with threadpool_limits(1):
        result = coverage(method, n, ps, DELTA, reps=reps, seed=SEED).coverage
    return result, time.process_time() - cpu


def throughput(n_jobs, ns, ps, reps):
    """Cells per second over (method, n) chunks with joblib (loky), BLAS limited to one thread."""
    from joblib import Parallel, delayed
    with Parallel(n_jobs=n_jobs, backend="loky") as parallel:
        parallel(delayed(_chunk)(m, 10, ps[:1], 10) for m in METHODS)  # start the workers
        t = time.perf_counter()
        results = parallel(delayed(_chunk)(m, n, ps, reps) for n in ns for m in METHODS)
        seconds = time.perf_counter() - t
    cpu = [c for _, c in results]
    return len(METHODS) * len(ns) * len(ps) / seconds, seconds, np.concatenate([r for r, _ in results]), cpu


def makespan(chunk_seconds, n_jobs):
    """Wall time of handing chunks, in order, to whichever of ``n_jobs`` idle cores frees up first."""
    free = [0.0] * n_jobs
    for c in chunk_seconds:
        free[free.index(min(free))] += c
    return max(free)


def peak_memory_mb(n, reps, sampler):
    """Peak resident memory (MB) of a fresh process computing MC and exact coverage at n, 99 p."""
    code = ("import resource, numpy as np; from covstudy import coverage; "
            "from covstudy.designs import binomial_counts; from covstudy.engine.measures import measures; "
            "from covstudy.methods import get; "
            f"n, ps = {n}, np.round(np.arange(1, 100) / 100, 2); "
            f"w = binomial_counts(n, ps, {reps}, 1, '{sampler}') / {reps}; "
            "lo, hi = get('clopper_pearson').kernel(np.arange(n + 1), n, 0.05); "
            f"measures(w, lo, hi, ps, {reps}); del w; coverage('clopper_pearson', n, ps); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return int(out.stdout.split()[-1]) / 1024  # ru_maxrss is in KiB on Linux


# --------------------------------------------------------------------------- report
def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_gb = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    except OSError:
        mem_gb = float("nan")
    import joblib
    import scipy
    import statsmodels
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=HERE).stdout.strip()
    except OSError:
        commit = "?"
    return (f"{cpu}, {os.cpu_count()} logical cores, {mem_gb:.0f} GB RAM; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
            f"statsmodels {statsmodels.__version__}, joblib {joblib.__version__}; covstudy commit {commit}; "
            f"load average at start {os.getloadavg()[0]:.2f}")


def fmt_time(s):
    return f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


SECTIONS = ("headline", "scaling", "parallel", "memory")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small grid, for a smoke test")
    ap.add_argument("--out", default=str(HERE / "results.md"))
    ap.add_argument("--only", nargs="+", choices=SECTIONS, default=SECTIONS, help="run only these sections")
    args = ap.parse_args(argv)

    from threadpoolctl import threadpool_limits
    threadpool_limits(1)  # one core for the single-process timings

    ns = (10, 20, 50, 100, 200, 500, 1000)
    ps = np.round(np.arange(1, 100) / 100, 2)
    reps = 100_000
    if args.quick:
        ns, ps, reps = (10, 100), ps[::10], 10_000
    subset_ps = ps[4::10]  # 0.05, 0.15, ..., 0.95
    n_cells = len(METHODS) * len(ns) * len(ps)
    lines = [f"# covstudy benchmark results\n", f"{datetime.datetime.now():%Y-%m-%d %H:%M}; {machine()}.\n",
             "Command: `PYTHONPATH=src python benchmarks/run.py" + (" --quick" if args.quick else "")
             + ("" if tuple(args.only) == SECTIONS else " --only " + " ".join(args.only)) + "`\n"]
    say = lambda s="": (print(s, flush=True), lines.append(s))  # noqa: E731

    engine_mc(ns[:1], ps[:2], 100)  # imports and first-call costs outside the timings
    if "headline" in args.only:
        headline(say, ns, ps, reps, subset_ps, n_cells)
    if "scaling" in args.only:
        scaling(say, reps, args.quick)
    if "parallel" in args.only:
        parallel(say, ps, args.quick)
    if "memory" in args.only:
        memory(say, args.quick)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"\nwrote {args.out}")


def headline(say, ns, ps, reps, subset_ps, n_cells):
    t_a = best_of(lambda: engine_mc(ns, ps, reps))
    t_shared = best_of(lambda: engine_shared(ns, ps, reps))
    t_d = best_of(lambda: engine_exact(ns, ps))
    b_cells = [(m, n, p) for m in METHODS for n in ns for p in subset_ps]
    baseline_statsmodels(b_cells[:1], 10)
    t = time.perf_counter()
    baseline_statsmodels(b_cells, reps)
    t_b = (time.perf_counter() - t) / len(b_cells) * n_cells
    t = time.perf_counter()
    floor_numpy([(n, p) for n in ns for p in ps], reps)
    t_c = (time.perf_counter() - t) * len(METHODS)

    # Sanity: A and D are the same study (A within 4 MCSE of D, nearly everywhere).
    a, d = engine_mc(ns, ps, reps), engine_exact(ns, ps)
    z = np.concatenate([np.abs(a[key].coverage - d[key].coverage)
                        / np.maximum(np.sqrt(d[key].coverage * (1 - d[key].coverage) / reps), 1e-12) for key in a])

    say(f"## Headline grid\n\n{len(METHODS)} methods ({', '.join(METHODS)}) x n in {list(ns)} x "
        f"p = {ps[0]}..{ps[-1]} ({len(ps)} values), delta = {DELTA}, reps = {reps:,}: {n_cells:,} cells, "
        f"{n_cells * reps:.2e} simulated test sets. One process, BLAS limited to one thread.\n")
    say("| | what | wall time | per cell | B / this |")
    say("|---|---|---:|---:|---:|")
    rows = [("A", "covstudy MC engine, public API `coverage()` per (method, n)", t_a),
            ("A'", "covstudy MC, runner path (histograms shared across methods)", t_shared),
            ("B", f"numpy draws + statsmodels `proportion_confint` per cell (timed on {len(b_cells)} cells, "
                  "extrapolated)", t_b),
            ("C", f"numpy binomial variates only (timed on {len(ns) * len(ps)} (n, p) cells x {len(METHODS)})", t_c),
            ("D", "covstudy exact engine, public API", t_d)]
    for key, what, secs in rows:
        say(f"| {key} | {what} | {fmt_time(secs)} | {fmt_time(secs / n_cells)} | {t_b / secs:,.0f}x |")
    say(f"\nA is {t_b / t_a:,.0f}x faster than B and {t_c / t_a:,.0f}x faster than C; D takes {fmt_time(t_d)}. "
        f"A vs D: {np.mean(z <= 4):.1%} of cells within 4 MCSE (max {z.max():.1f} MCSE).\n")



def scaling(say, reps, quick):
    ps9 = np.round(np.linspace(0.1, 0.9, 9), 2)
    say(f"## Cost per cell vs n (wilson, reps = {reps:,}, 9 values of p; simulate + interval + measures)\n")
    say("| n | auto sampler | MC auto | MC histogram | MC per replicate | exact |")
    say("|---:|---|---:|---:|---:|---:|")
    for n in ((10, 100, 1000) if quick else (10, 100, 1000, 10_000, 100_000)):
        costs = [cell_cost_mc(n, ps9, reps, s) for s in ("auto", "histogram", "replicates")]
        say(f"| {n:,} | {choose_sampler(n, reps)} | " + " | ".join(fmt_time(c) for c in costs)
            + f" | {fmt_time(cell_cost_exact(n, ps9))} |")
    say("\n## Cost per cell vs reps (wilson, n = 100, 9 values of p)\n")
    say("| reps | auto sampler | MC auto | MC per replicate | auto: cost ratio vs 1e3 (reps ratio) |")
    say("|---:|---|---:|---:|---:|")
    base = None
    for r in ((1000, 10_000, 100_000) if quick else (1000, 10_000, 100_000, 1_000_000, 10_000_000)):
        auto = cell_cost_mc(100, ps9, r)
        repl = cell_cost_mc(100, ps9[::4], r, "replicates")
        base = base or auto
        say(f"| {r:,} | {choose_sampler(100, r)} | {fmt_time(auto)} | {fmt_time(repl)} | "
            f"{auto / base:.1f}x ({r // 1000:,}x) |")



def parallel(say, ps, quick):
    jn = (500, 200) if quick else (20_000, 10_000, 5000, 2000)  # big chunks first
    jreps = 10_000 if quick else 1_000_000
    say(f"\n## Parallel throughput (joblib loky over (method, n) chunks, BLAS 1 thread per worker)\n\n"
        f"Grid: {len(METHODS)} methods x n in {list(jn)} x {len(ps)} p, reps = {jreps:,}; workers started before timing.\n")
    say("| n_jobs | wall time | cells / s | speed-up | CPU s in workers | CPU s / wall s |")
    say("|---:|---:|---:|---:|---:|---:|")
    # Interleaved, best of two each, so that a burst of other load hits both alike.
    load = os.getloadavg()[0]
    runs = [throughput(j, jn, ps, jreps) for j in (1, 2, 1, 2)]
    one, two = max(runs[0::2], key=lambda r: r[0]), max(runs[1::2], key=lambda r: r[0])
    assert all(np.array_equal(one[2], r[2]) for r in runs), "n_jobs changed the numbers"
    for j, r in ((1, one), (2, two)):
        say(f"| {j} | {fmt_time(r[1])} | {r[0]:,.0f} | {r[0] / one[0]:.2f}x | {sum(r[3]):.2f} | {sum(r[3]) / r[1]:.2f} |")
    ideal = sum(one[3]) / makespan(one[3], 2)
    say(f"\nBest of two interleaved runs each; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after, "
        f"on {os.cpu_count()} cores. 'CPU s / wall s' is how many cores the workers actually got; the CPU "
        "seconds are the work, so the same total for 1 and 2 jobs means no parallel overhead. Same numbers "
        "with n_jobs = 1 and 2 (checked). On two cores free of other load, the measured chunk CPU times "
        f"scheduled in dispatch order give n_jobs = 2 a speed-up of {ideal:.2f}x.\n")



def memory(say, quick):
    say("## Peak memory (fresh process: 99 p, MC histograms + clopper_pearson measures, then exact)\n")
    say("| n | reps | sampler | peak RSS |")
    say("|---:|---:|---|---:|")
    for n, r, s in ([(1000, 10_000, "auto")] if quick else
                    [(1000, 100_000, "auto"), (100_000, 100_000, "auto"), (100_000, 1_000_000, "auto"),
                     (100_000, 100_000, "histogram")]):
        say(f"| {n:,} | {r:,} | {s} ({choose_sampler(n, r) if s == 'auto' else s}) | {peak_memory_mb(n, r, s):,.0f} MB |")


if __name__ == "__main__":
    main()
