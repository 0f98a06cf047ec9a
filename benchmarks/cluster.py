"""Speed-up of the study runner with more workers: loky n_jobs = 1 vs 2, and a dask LocalCluster.

    python benchmarks/cluster.py            # about a minute on 2 cores

Runs one study whose work is dominated by interval tables (the root-finding methods at
large n, exact engine) in fresh temporary folders, checks that every backend gives the
same table, and prints wall times and speed-ups. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import os
import platform
import tempfile
import time
from pathlib import Path

from covstudy.study.runner import run_study
from covstudy.study.config import Study

CONFIG = {
    "name": "cluster_bench",
    "methods": ["blaker", "mid_p", "lrt", "clopper_pearson"],
    "grid": {"n": list(range(1000, 20001, 1000)), "p": [round(0.01 * i, 2) for i in range(1, 100)],
             "delta": [0.05]},
    "engine": "exact",
}


def timed(out: Path, **changes) -> tuple[float, object]:
    study = Study.from_config({**CONFIG, **changes, "out": str(out)})
    start = time.perf_counter()
    table = run_study(study, progress=False)
    return time.perf_counter() - start, table


def main() -> None:
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    cells = len(CONFIG["methods"]) * len(CONFIG["grid"]["n"]) * len(CONFIG["grid"]["p"])
    with tempfile.TemporaryDirectory() as tmp:
        runs = {}
        for name, changes in [("loky, n_jobs=1", {"n_jobs": 1}), ("loky, n_jobs=2", {"n_jobs": 2}),
                              ("dask LocalCluster, 2 workers", {"backend": "dask", "workers": 2})]:
            runs[name] = timed(Path(tmp) / name.replace(" ", "_").replace(",", ""), **changes)
        reference = runs["loky, n_jobs=1"]
        print(f"{cells} cells (4 methods x 20 n from 1000 to 20000 x 99 p, exact)")
        print(f"{'backend':32s} {'wall s':>8s} {'speed-up':>9s}  identical")
        for name, (seconds, table) in runs.items():
            print(f"{name:32s} {seconds:8.2f} {reference[0] / seconds:8.2f}x  {table.equals(reference[1])}")


if __name__ == "__main__":
    main()
