"""Memory and CPU of ``covstudy-evaluate --no-audit`` on large files like a user's (issue 56, its memory part):
at most 3 CPU-s at 10⁶ rows, at most 30 CPU-s and 4 GB at 10⁷ (the whole command, reading the file included).

    python benchmarks/evaluate_memory.py make FOLDER [--rows N ...] [--format csv|parquet]
    python benchmarks/evaluate_memory.py run FOLDER [case ...]

``make`` writes one file per case (seeded numpy; the columns a user's ``predict_proba`` or logits give);
``run`` runs the CLI on each under ``prlimit --as=6000000000`` and ``/usr/bin/time -v`` (user + sys CPU-s
and peak resident memory of the whole command), and times reading the file alone (``cli._read``).

| case | what |
|---|---|
| ``proba2`` | binary, two models' probabilities in [0, 1], 2% of them exactly 0 or 1, groups |
| ``proba1`` | binary, one model's probabilities (exact 0 and 1) |
| ``logit2`` | binary, two models' logits |
| ``ties2`` | binary, two models' scores with 11 distinct values (heavy ties) |
| ``classes5``, ``classes10``, ``classes20`` | K classes, two models' labels |
"""

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CASES = ("proba2", "proba1", "logit2", "ties2", "classes5", "classes10", "classes20")
TARGETS = {10**6: (3.0, None), 10**7: (30.0, 4.0)}  # rows: (CPU-s, GB) of the whole --no-audit command


def binary(rows, kind, models, seed=0):
    """Prevalence 0.3; a model's logit is 2·truth - 1 plus noise (the second noisier), given as probabilities
    (2% set to exactly 0 or 1 on their side, as a tree's ``predict_proba``), logits, or rounded to 0.1."""
    rng = np.random.default_rng(seed)
    truth = (rng.random(rows) < 0.3).astype(np.int8)
    data = {"truth": truth, "group": rng.integers(0, max(1, rows // 20), rows)}
    for j in range(models):
        logit = 2.0 * truth - 1.0 + rng.normal(0, 1.0 + 0.5 * j, rows)
        p = 1 / (1 + np.exp(-logit))
        if kind == "proba":
            exact = rng.random(rows) < 0.02
            p = np.where(exact, (logit > 0).astype(float), p)
        score = {"proba": p, "logit": logit, "ties": np.round(p, 1)}[kind]
        data[f"score{j}"] = score
        data[f"predicted{j}"] = (p > 0.5).astype(np.int8)
    return data


def multiclass(rows, classes, seed=0):
    """Balanced classes; the first model right 90% of the time, the second 85%, errors on a neighbouring class."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, rows).astype(np.int16)
    data = {"truth": truth}
    for j, acc in enumerate((0.9, 0.85)):
        slip = rng.choice(np.array([-1, 1, 2], dtype=np.int16), rows)
        data[f"predicted{j}"] = np.where(rng.random(rows) < acc, truth, (truth + slip) % classes).astype(np.int16)
    return data


def data_for(case, rows):
    if case.startswith("classes"):
        return multiclass(rows, int(case[len("classes"):]))
    kind, models = case[:-1], int(case[-1])
    return binary(rows, kind, models)


def arguments(case):
    """The CLI's column arguments for a case's file."""
    args = ["--truth", "truth", "--predicted", "predicted0", "--second-predicted", "predicted1"]
    if case.startswith("classes"):
        return args
    if case.endswith("1"):
        return ["--truth", "truth", "--predicted", "predicted0", "--score", "score0"]
    return args + ["--score", "score0", "--second-score", "score1", "--group", "group"]


def path_for(folder, case, rows, fmt):
    return Path(folder) / f"{case}_{rows}.{fmt}"


def make(folder, rows_list, fmt, cases):
    import pandas as pd

    Path(folder).mkdir(parents=True, exist_ok=True)
    for rows in rows_list:
        for case in cases:
            path = path_for(folder, case, rows, fmt)
            frame = pd.DataFrame(data_for(case, rows))
            frame.to_parquet(path, index=False) if fmt == "parquet" else frame.to_csv(path, index=False)
            print(f"wrote {path} ({path.stat().st_size / 2**20:.0f} MB)", flush=True)


def reading(path):
    """CPU-s of reading the file alone (the CLI's reader)."""
    code = (f"import time; from covstudy.evaluation import cli; t = time.process_time(); cli._read({str(path)!r}); "
            "print(time.process_time() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def run(folder, cases):
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    evaluate = str(Path(sys.executable).with_name("covstudy-evaluate"))
    for path in sorted(Path(folder).iterdir()):
        match = re.fullmatch(r"(\w+?)_(\d+)\.(csv|parquet)", path.name)
        if not match or (cases and match[1] not in cases):
            continue
        case, rows = match[1], int(match[2])
        cmd = ["prlimit", "--as=6000000000", "--", "/usr/bin/time", "-v", evaluate, str(path), *arguments(case),
               "--no-audit", "--quiet"]
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        err = done.stderr
        cpu = sum(float(re.search(rf"{w} time \(seconds\): ([\d.]+)", err)[1]) for w in ("User", "System"))
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)[1]) / 2**20
        cpu_target, gb_target = TARGETS.get(rows, (None, None))
        over = (cpu_target is not None and cpu > cpu_target) or (gb_target is not None and rss > gb_target)
        status = "exit %d" % done.returncode if done.returncode else ("OVER" if over else "ok")
        print(f"{path.name:>28} {rows:>10,} rows  {cpu:7.2f} CPU-s  {rss:5.2f} GB  reading {reading(path):6.2f} "
              f"CPU-s  {status}", flush=True)
        if done.returncode:
            print("   ", err.strip().splitlines()[-25:][0:3], file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=("make", "run"))
    ap.add_argument("folder")
    ap.add_argument("cases", nargs="*", help=f"of {', '.join(CASES)} (default: every case)")
    ap.add_argument("--rows", type=int, nargs="+", default=[10**6])
    ap.add_argument("--format", choices=("csv", "parquet"), default="csv")
    a = ap.parse_args()
    if set(a.cases) - set(CASES):
        ap.error(f"cases: choose from {', '.join(CASES)}")
    if a.action == "make":
        make(a.folder, a.rows, a.format, a.cases or CASES)
    else:
        run(a.folder, a.cases)


if __name__ == "__main__":
    main()
