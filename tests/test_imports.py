"""`import covstudy` and the workers stay light: pandas, pyarrow, matplotlib and hydra are imported
where they are used (a table, a figure, the command line), not by the package or by a worker."""

import subprocess
import sys

HEAVY = ("pandas", "pyarrow", "matplotlib", "hydra")


def _heavy_after(code: str) -> str:
    probe = f"import sys; {code}; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()


def test_import_covstudy_imports_no_heavy_library():
    assert _heavy_after("import covstudy") == "[]"


def test_what_a_worker_imports_is_light():
    # a loky worker runs the runner's stdlib-only start code and unpickles
    # tasks.evaluate_single_threaded (by reference)
    import ast

    from covstudy.study import intervals, runner, tasks

    assert intervals.KIND.work is tasks.evaluate_single_threaded
    start = {a.name for node in ast.walk(ast.parse(runner._WORKER_START)) if isinstance(node, ast.Import)
             for a in node.names}
    assert start <= {"ctypes", "os", "signal", "threading", "time"}, start
    assert _heavy_after("import covstudy.study.runner, covstudy.study.tasks") == "[]"


def test_a_worker_that_evaluated_a_task_has_no_pandas(tmp_path):
    import covstudy
    from covstudy.study import runner

    # fresh workers: the reusable pool may hold ones an earlier test in this process gave other work
    # (a study kind's rows read tables), which would make this test depend on the order of the files
    runner.worker_pool(2).shutdown(wait=True, kill_workers=True)
    covstudy.run_study("quick", ["grid.n=[10,20]", "grid.p=[0.2,0.4]", "engine=mc", "reps=100",
                                 "methods=[wilson,wald]", "n_jobs=2"], out=tmp_path, progress=False)
    probe = f"sorted(m for m in {HEAVY!r} if m in __import__('sys').modules)"
    assert runner.worker_pool(2).submit(eval, probe).result() == []


def test_import_covstudy_leaves_the_heavy_scipy_submodules_to_their_first_use():
    # scipy.stats alone is ~0.4 CPU-s of every `import covstudy` and every worker (covstudy._lazy)
    lazy = ("scipy.stats", "scipy.optimize", "scipy.integrate", "scipy.fft")
    probe = f"import sys, covstudy.study.tasks; print(sorted(m for m in {lazy!r} if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"
    from covstudy import _lazy
    from scipy import stats

    assert _lazy.stats.norm is stats.norm  # the stand-in is the module on first use
