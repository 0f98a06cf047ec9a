import atexit
import gc
import os
import shutil
import sys
import tempfile

import pytest

# Tests must not depend on the developer's terminal or on Hydra's full tracebacks.
os.environ.pop("HYDRA_FULL_ERROR", None)

# The suite starts some hundred interpreters (the commands it tests, loky and dask workers, xdist's own), each
# importing covstudy: with PYTHONDONTWRITEBYTECODE set (some CI images set it) each would compile its sources
# again (~0.2 CPU-s a process importing covstudy's study and evaluation wings), and, the test command installing
# with --no-compile, its libraries' too. Bytecode goes to __pycache__ (git-ignored), as it does on a machine
# without that setting.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# One BLAS thread a process (set before numpy loads; the commands the tests start inherit it): the suite
# runs a worker on every core (xdist), so OpenBLAS's threads only compete with the other worker and spin
# (~20% more CPU on test_certify's grids), and no number depends on how many threads summed it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# The audit cache (evaluation/cache.py) is never the user's: a folder of this process's own for module
# fixtures, and a fresh one per test (``_audit_cache``), so no test reads another's audits.
_CACHE = tempfile.mkdtemp(prefix="covstudy-test-cache-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
os.environ["COVSTUDY_CACHE"] = _CACHE


# The tests written before the budget (issue 56) check full audits: they run without one. The budget's own tests
# (test_evaluate_cost.py, test_evaluate_shapes.py) pass theirs, or unset this to test the default.
os.environ["COVSTUDY_BUDGET"] = "inf"


@pytest.fixture(autouse=True)
def _audit_cache(tmp_path_factory, monkeypatch):
    """Every test's audit cache is a fresh, empty folder."""
    monkeypatch.setenv("COVSTUDY_CACHE", str(tmp_path_factory.mktemp("cache")))


def pytest_collection_finish(session):
    """What collection imported (numpy, scipy, pandas, every test module) lives as long as the run: out of
    every later garbage collection (gc.freeze), whose full passes would walk it again and again."""
    gc.collect()
    gc.freeze()
