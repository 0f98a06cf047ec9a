"""CPU seconds, peak memory and the forecast of ``covstudy.evaluate`` over a matrix of file shapes (issue 56).

The matrix, generated deterministically (``shapes``): rows 10², 10³, 10⁴, 10⁵, 10⁶ (10⁷ intervals only) of

| family | what |
|---|---|
| ``logit`` | binary, one model, real-valued (logit) scores |
| ``proba2`` | binary, two models' ``predict_proba`` probabilities rounded to 3 decimals (exact 0 and 1) |
| ``ties-groups`` | binary, one model, a five-point rating as the score (heavy ties), a group per ~10 rows |
| ``k5``, ``k10``, ``k20`` | 5, 10, 20 balanced classes, ~90% accuracy |
| ``judge`` | binary truth on a fifth of the rows, a judge's label on all (``judged_rate``) |
| ``leader5`` | five models' labels, the leaderboard (``--model`` × 5) |

    python benchmarks/evaluate_cost.py                  # the whole matrix, full audit (~10-20 CPU-min)
    python benchmarks/evaluate_cost.py --quick          # 10² and 10³ rows only
    python benchmarks/evaluate_cost.py logit proba2-1e4 # families or cases by name
    python benchmarks/evaluate_cost.py --no-audit --rows 1e6 1e7   # intervals only
    python benchmarks/evaluate_cost.py --seed 100 --rows 1e3 1e5   # other files of the same shapes

Each case runs in a child process of its own (its CPU time, user + sys, and its peak resident memory are
its own, read by ``os.wait4``), imports included, with one BLAS thread. It prints the case, its CPU-s, peak
MB, the forecast the tool printed before the work (``info["forecast"]``) and their ratio, and the issue's
bounds: the full audit ≤ 15 CPU-s and ≤ 2 GB up to 10⁶ rows; ``--no-audit`` ≤ 3 CPU-s at 10⁶ rows and
≤ 30 CPU-s, ≤ 4 GB at 10⁷. ``--budget`` passes a budget (default: the tool's).
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROWS = (100, 1_000, 10_000, 100_000, 1_000_000)
FAMILIES = ("logit", "proba2", "ties-groups", "k5", "k10", "k20", "judge", "leader5")
LIMITS = {"audit": (15.0, 2048.0), "no-audit-1e6": (3.0, None), "no-audit-1e7": (30.0, 4096.0)}


def _binary(rows, seed, scores="logit", second=False, groups=False):
    """Binary labels at prevalence 0.3 from a latent score: ``logit`` scores (real numbers), ``proba`` (a
    logistic's probabilities rounded to 3 decimals: some exactly 0 or 1), ``ties`` (five distinct values)."""
    rng = np.random.default_rng(seed)
    truth = rng.random(rows) < 0.3
    g = rng.integers(0, max(2, rows // 10), rows)
    effect = rng.normal(0, 0.5, max(2, rows // 10))[g] if groups else 0.0
    out = {"truth": truth.astype(np.int8)}
    for i, key in enumerate(("", "second_") if second else ("",)):
        latent = np.where(truth, 2.0 - 0.5 * i, 0.0) + effect + rng.normal(0, 1.0, rows) - 1.0
        if scores == "logit":
            s = latent
        elif scores == "proba":
            s = np.round(1 / (1 + np.exp(-3 * latent)), 3)
        else:
            s = np.clip(np.round(latent + 1), -1, 3)
        out[f"{key}predicted"] = (latent > 0).astype(np.int8)
        out[f"{key}scores"] = s
    if groups:
        out["groups"] = g
    return out


def _classes(rows, k, seed):
    """K balanced classes, ~90% accuracy, the errors on neighbouring classes."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, rows)
    wrong = rng.random(rows) < 0.1
    return {"truth": truth, "predicted": np.where(wrong, (truth + rng.choice([-1, 1, 2], rows)) % k, truth)}


def _judge(rows, seed):
    """Binary truth on a fifth of the rows (the rest empty), a judge's label on every row, agreeing 85%."""
    rng = np.random.default_rng(seed)
    truth = (rng.random(rows) < 0.4).astype(float)
    judge = np.where(rng.random(rows) < 0.85, truth, 1 - truth)
    truth[rng.random(rows) > 0.2] = np.nan
    return {"truth": truth, "judge": judge}


def _leaderboard(rows, seed, models=5):
    """Five models' labels on binary truth, accuracies 0.70 to 0.86, their errors nested (correlated)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, rows)
    hard = rng.random(rows)
    return {"truth": truth, "models": {f"m{j}": np.where(hard < 0.7 + 0.04 * j, truth, 1 - truth)
                                       for j in range(models)}}


def tag(rows) -> str:
    """10⁴ -> "1e4"."""
    return f"{rows:.0e}".replace("+0", "").replace("+", "")


def shapes(rows=ROWS, seed=0) -> dict:
    """{case name: a function of no argument returning its data (keyword arguments of ``evaluate``; a
    leaderboard's: truth and {model: labels})}, every family at every size. ``seed``: added to every family's
    generator seed (0: the matrix the tool was measured on; another: files it was not tuned to)."""
    out = {}
    for n in rows:
        t = tag(n)
        out[f"logit-{t}"] = lambda n=n: _binary(n, 1 + seed, "logit")
        out[f"proba2-{t}"] = lambda n=n: _binary(n, 2 + seed, "proba", second=True)
        out[f"ties-groups-{t}"] = lambda n=n: _binary(n, 3 + seed, "ties", groups=True)
        for k in (5, 10, 20):
            out[f"k{k}-{t}"] = lambda n=n, k=k: _classes(n, k, 4 + seed)
        out[f"judge-{t}"] = lambda n=n: _judge(n, 5 + seed)
        out[f"leader5-{t}"] = lambda n=n: _leaderboard(n, 6 + seed)
    return out


def inner(case, rows, audit, budget, seed=0):
    """In the child: run the case, print one JSON line (the forecast, what was cut)."""
    import covstudy

    data = shapes((rows,), seed)[case]()
    kw = {} if budget is None else {"budget": budget}
    if "models" in data:
        from covstudy.evaluation.leaderboard import leaderboard

        board = leaderboard(data["truth"], data["models"], audit=audit, **kw)
        print(json.dumps({"forecast": board.forecast, "cuts": [board.cut] if board.cut else [], "table": 1}))
        return
    ev = covstudy.evaluate(**data, audit=audit, progress=False, cache=False, **kw)
    print(json.dumps({"forecast": ev.info.get("forecast"), "cuts": ev.info.get("cuts", []),
                      "table": len(ev.table)}))


def measure(case, rows, audit, budget, src, seed=0):
    """(CPU-s, peak MB, its stdout, its stderr, its exit code) of one case in a child process of its own."""
    env = {**os.environ, "PYTHONPATH": str(src), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    args = [sys.executable, __file__, "--inner", case, "--rows", str(rows)]
    args += [] if audit else ["--no-audit"]
    args += [] if budget is None else ["--budget", str(budget)]
    args += ["--seed", str(seed)] if seed else []
    child = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = child.stdout.read(), child.stderr.read()  # a child's output fits the pipes' buffers
    _, status, usage = os.wait4(child.pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    return cpu, usage.ru_maxrss / 1024, out, err, os.waitstatus_to_exitcode(status)


def main():
    ap = argparse.ArgumentParser(description="covstudy.evaluate's cost over the matrix of file shapes")
    ap.add_argument("cases", nargs="*", help=f"families ({', '.join(FAMILIES)}) or cases (logit-1e4); default all")
    ap.add_argument("--rows", nargs="*", help="sizes (1e2 ... 1e7; default 1e2 ... 1e6)")
    ap.add_argument("--quick", action="store_true", help="10² and 10³ rows only")
    ap.add_argument("--no-audit", action="store_true", help="intervals only")
    ap.add_argument("--budget", help="the tool's --budget (default its own)")
    ap.add_argument("--inner", help=argparse.SUPPRESS)
    ap.add_argument("--json", help="also write the measurements to this file (JSON lines)")
    ap.add_argument("--seed", type=int, default=0, help="added to every family's generator seed (files not tuned to)")
    a = ap.parse_args()
    if a.inner:
        return inner(a.inner, int(float(a.rows[0])), not a.no_audit, a.budget, a.seed)
    sizes = [int(float(r)) for r in a.rows] if a.rows else ([100, 1_000] if a.quick else list(ROWS))
    wanted = a.cases or list(FAMILIES)
    src = Path(__file__).resolve().parents[1] / "src"
    print(f"{'case':<18} {'CPU-s':>7} {'peak MB':>8} {'forecast':>8} {'ratio':>6}  bound  cut", flush=True)
    for rows in sizes:
        for case in shapes((rows,)):
            family = case.rsplit("-", 1)[0]
            if family not in wanted and case not in wanted:
                continue
            cpu, peak, out, err, code = measure(case, rows, not a.no_audit, a.budget, src, a.seed)
            if code != 0:
                print(f"{case:<18} FAILED (exit {code}): {err.strip().splitlines()[-1] if err.strip() else ''}",
                      flush=True)
                continue
            info = json.loads(out.strip().splitlines()[-1])
            forecast = info["forecast"]
            ratio = f"{cpu / forecast:6.2f}" if forecast else "     —"
            key = "audit" if not a.no_audit else f"no-audit-{tag(rows)}"
            limit = LIMITS.get(key)
            ok = "" if limit is None or a.no_audit and rows < 10**6 else (
                "ok" if cpu <= limit[0] and (limit[1] is None or peak <= limit[1]) else "OVER")
            print(f"{case:<18} {cpu:7.2f} {peak:8.0f} {forecast if forecast is None else round(forecast, 2)!s:>8} "
                  f"{ratio}  {ok:>5}  {'; '.join(info['cuts'])}", flush=True)
            if a.json:
                with open(a.json, "a") as fh:
                    fh.write(json.dumps({"case": case, "seed": a.seed, "rows": rows, "audit": not a.no_audit,
                                         "cpu": cpu, "peak_mb": peak, **info, "time": time.time()}) + "\n")


if __name__ == "__main__":
    main()
