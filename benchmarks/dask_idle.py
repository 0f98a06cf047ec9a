"""CPU of an idle 2-worker dask LocalCluster: dask's defaults against covstudy's settings.

    PYTHONPATH=src python benchmarks/dask_idle.py 30          # seconds idle, each variant twice

Starts a LocalCluster as covstudy does (2 workers, 1 thread, loopback, no dashboard), runs one
trivial task, then sleeps; prints the CPU seconds spent during the sleep by this process (the
scheduler, the nannies and the client are threads of it) and by each worker process. The
variants: dask's defaults with only the trim threshold (``defaults``), covstudy's
``runner.LOCAL_CLUSTER`` (``covstudy``), and covstudy's with one setting put back to dask's default.
"""

from __future__ import annotations

import sys
import time

import dask
import psutil
from dask.distributed import Client, LocalCluster

from covstudy.study.runner import LOCAL_CLUSTER

TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"


def idle_cpu(settings: dict, seconds: float) -> tuple[float, list[float]]:
    me = psutil.Process()
    with dask.config.set(settings), LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                                 dashboard_address=None, processes=True) as cluster:
        with Client(cluster) as client:
            client.submit(sum, [1]).result()
            workers = [psutil.Process(pid) for pid in client.run(lambda: __import__("os").getpid()).values()]
            before = [sum(p.cpu_times()[:2]) for p in [me, *workers]]
            time.sleep(seconds)
            after = [sum(p.cpu_times()[:2]) for p in [me, *workers]]
    spent = [b - a for a, b in zip(before, after)]
    return spent[0], spent[1:]


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    defaults = dask.config.get("distributed")
    variants = {"defaults": {TRIM: LOCAL_CLUSTER[TRIM]}, "covstudy": LOCAL_CLUSTER}
    for key in LOCAL_CLUSTER:
        if key != TRIM:
            node = defaults
            for part in key.split(".")[1:]:
                node = node[part]
            variants[f"covstudy, {key.rsplit('.', 2)[-2]} at dask's {node}"] = {**LOCAL_CLUSTER, key: node}
    print(f"CPU seconds over {seconds:.0f} s idle (driver: scheduler, nannies, client | each worker)")
    for _ in range(2):
        for name, settings in variants.items():
            load = psutil.getloadavg()[0]
            driver, workers = idle_cpu(settings, seconds)
            print(f"  {name:50s} {driver + sum(workers):5.2f}  ({driver:.2f} | "
                  f"{' '.join(f'{w:.2f}' for w in workers)})  load {load:.1f}", flush=True)


if __name__ == "__main__":
    main()
