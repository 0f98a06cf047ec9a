"""CPU and wall time of one study run from scratch, imports included.

    PYTHONPATH=src python benchmarks/study_cost.py balanced_imbalance n_jobs=1
    PYTHONPATH=src python benchmarks/study_cost.py quick                 # the default study

Runs ``covstudy.run_study`` into a temporary folder and prints the CPU seconds of this
process and its children (workers), the wall seconds and the peak memory, beside the CPU
seconds the plan line forecasts for the computing (``estimate.cpu_seconds``: no imports, no
figures; compare it with the measured CPU less the imports). On a shared
machine trust the CPU seconds; compare two source trees by running both in one session.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time

start_wall, start_cpu = time.perf_counter(), time.process_time()

from covstudy import run_study  # noqa: E402  (imports are part of the cost)


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    study, overrides = sys.argv[1], sys.argv[2:]
    imported = time.process_time() - start_cpu
    with tempfile.TemporaryDirectory() as out:
        from covstudy.study import grid
        from covstudy.cli import load_study
        from covstudy.study.cost import cpu_seconds as forecast_seconds
        from covstudy.study.config import n_workers

        planned = load_study(study, list(overrides), out)
        workers = n_workers(planned.n_jobs)
        forecast = forecast_seconds(grid.tasks(grid.cells(planned), workers), workers)
        table = run_study(study, overrides, out=out, progress=False)
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)  # workers exit, so that their CPU time is counted
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{study} {' '.join(overrides)}: {len(table)} cells, {cpu_seconds():.1f} CPU-s "
          f"(imports {imported:.1f}; forecast {forecast:.1f} for the rest), {time.perf_counter() - start_wall:.1f} s wall, "
          f"peak {peak:.0f} MB")
