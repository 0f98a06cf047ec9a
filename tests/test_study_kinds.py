"""Study kinds (study/kinds.py): every kind runs on the one study runner. The four shipped kinds
(bands, sequential, calibration, leaderboard) survive kill -9 and resume to the uninterrupted table,
and give the same table on dask as on loky; a fifth kind is one module (``coin`` below: the module
level of this file, nothing else registers it) plus its config."""

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from covstudy.seeds import stream
from covstudy.study import intervals, kinds
from covstudy.study.config import ConfigError
from covstudy.study.kinds import RunSettings, StudyKind, kind_of, register_study_kind
from covstudy.study.runner import run_kind


# --------------------------------------------------------------------------- a fifth kind, in one module

@dataclass(frozen=True)
class CoinStudy:
    """How often Wilson's interval covers p for n coin flips: the smallest study kind."""

    name: str
    question: str
    p: tuple[float, ...]
    n: int
    reps: int
    seed: int
    out: Path
    plot: bool = False

    @classmethod
    def from_config(cls, cfg: dict) -> "CoinStudy":
        block = cfg["coin"]
        if not all(0 < p < 1 for p in block["p"]):
            raise ConfigError(f"coin.p: each in (0, 1), got {block['p']!r}")
        return cls(cfg.get("name", "coin"), cfg.get("question", ""), tuple(block["p"]), int(block["n"]),
                   int(cfg.get("reps", 100)), int(cfg.get("seed", 0)), Path(cfg["out"]))


def coin_rows(study: CoinStudy, p: float) -> dict:
    from covstudy import interval

    k = stream(study.seed, kind="coin", p=p, n=study.n).binomial(study.n, p, study.reps)
    lower, upper = np.array([interval("wilson", int(x), study.n) for x in k]).T
    return {"results": [{"p": p, "n": study.n, "coverage": float(np.mean((lower <= p) & (p <= upper)))}]}


def coin_finish(study: CoinStudy, tables: dict) -> list[Path]:
    path = study.out / "results.csv"
    tables["results"].to_csv(path, index=False)
    return [path]


COIN = register_study_kind(StudyKind(
    key="coin", load=CoinStudy.from_config, cells=lambda study: list(study.p), rows=coin_rows,
    finish=coin_finish, summary=lambda study, tables: tables["results"], cost=lambda study, p: 1e-4 * study.reps))


def coin(out, **over):
    return {"name": "coin", "coin": {"p": [0.1, 0.5, 0.9], "n": 20}, "reps": 50, "seed": 3, "out": str(out), **over}


def test_a_fifth_kind_is_one_module_and_runs_on_the_runner(tmp_path, monkeypatch):
    assert kind_of(coin(tmp_path)) is COIN and kind_of({"name": "quick", "grid": {}}) is intervals.KIND
    alone = run_kind(COIN, COIN.load(coin(tmp_path / "a")))["results"]
    assert len(alone) == 3 and alone["coverage"].between(0, 1).all()
    assert {"report.html", "provenance.json", "study.yaml", "results.csv"} <= {p.name for p in (tmp_path / "a").iterdir()}
    monkeypatch.setattr(kinds, "IN_PROCESS_SECONDS", 0.0)  # on loky workers, in any order
    workers = run_kind(COIN, COIN.load(coin(tmp_path / "b")), RunSettings(n_jobs=2))["results"]
    pd.testing.assert_frame_equal(workers, alone)
    # a cell's numbers do not depend on the other cells; a rerun computes only the new ones
    lines = []
    run_kind(COIN, COIN.load(coin(tmp_path / "a", coin={"p": [0.5, 0.7], "n": 20})), say=lines.append)
    assert lines == [f"coin: 2 of 2 cells to compute in 2 tasks on 1 worker; roughly <1 s of CPU, ~200 MB a worker"]
    lines.clear()
    again = run_kind(COIN, COIN.load(coin(tmp_path / "a")), say=lines.append)["results"]
    assert lines == [f"coin: 0 of 3 cells to compute (all found in {tmp_path / 'a'})"]
    pd.testing.assert_frame_equal(again, alone)


def interrupted_at_the_second_p(study, p):
    if p == 0.5:
        raise KeyboardInterrupt  # as Ctrl-C in the driver while the second cell runs
    return coin_rows(study, p)


def test_ctrl_c_saves_the_finished_cells_and_a_rerun_resumes(tmp_path):
    from covstudy.study.runner import Interrupted

    stopped = StudyKind(key="coin", load=COIN.load, cells=COIN.cells, rows=interrupted_at_the_second_p,
                        finish=coin_finish, summary=COIN.summary)
    with pytest.raises(Interrupted, match=r"^interrupted: 1 of 3 cells saved in .*; rerun the same command to resume$"):
        run_kind(stopped, COIN.load(coin(tmp_path)))
    lines = []
    resumed = run_kind(COIN, COIN.load(coin(tmp_path)), say=lines.append)["results"]
    assert lines[0].startswith(f"coin: 2 of 3 cells to compute (1 found in {tmp_path})")
    pd.testing.assert_frame_equal(resumed, run_kind(COIN, COIN.load(coin(tmp_path / "clean")))["results"])


def test_a_damaged_part_is_moved_aside_and_its_cells_computed_again(tmp_path, capsys):
    first = run_kind(COIN, COIN.load(coin(tmp_path)))["results"]
    (part,) = (tmp_path / "parts").glob("*.jsonl")
    part.write_text(part.read_text().replace('"coverage": 0', '"coverage": 1', 1))  # an edit in range
    again = run_kind(COIN, COIN.load(coin(tmp_path)))["results"]
    assert "changed after it was written" in capsys.readouterr().err
    assert list((tmp_path / "parts").glob("*.jsonl.damaged"))
    pd.testing.assert_frame_equal(again, first)


# --------------------------------------------------------------------------- the interval study, a kind too

def test_the_interval_study_is_a_kind_whose_hooks_only_share_work(tmp_path):
    """The interval study runs through run_kind like any kind (run_study is run_kind of intervals.KIND).
    Its hooks (ids, tasks, work, forecast, store, begin) only share work and keep its folders' format:
    without them, a cell a task through its ``rows`` on the default JSON-line store, the numbers are the same."""
    import dataclasses

    from covstudy.study import intervals
    from covstudy.study.config import Study
    from covstudy.study.runner import run_study

    cfg = {"name": "t", "methods": ["wilson", "clopper_pearson"], "grid": {"n": [10, 30], "p": [0.2, 0.5],
           "delta": [0.05]}, "engine": "both", "reps": 300, "seed": 2, "n_jobs": 1}
    table = run_study(Study.from_config({**cfg, "out": str(tmp_path / "a")}), progress=False)
    assert json.loads((tmp_path / "a" / "provenance.json").read_text())["kind"] == "intervals"
    assert {p.suffix for p in (tmp_path / "a" / "parts").iterdir()} == {".csv", ".json"}  # CSV parts, code.json
    plain = dataclasses.replace(intervals.KIND, tasks=None, work=None, forecast=None, store=None)
    study = Study.from_config({**cfg, "out": str(tmp_path / "b")})
    alone = run_kind(plain, study, intervals.settings(study), progress=False)["results"]
    assert list((tmp_path / "b" / "parts").glob("*.jsonl")) and not list((tmp_path / "b" / "parts").glob("*.csv"))
    numbers = [c for c in table if c not in ("cell_id", "label", "params", "side", "design", "method", "engine")]
    pd.testing.assert_frame_equal(alone[numbers], table[numbers], check_dtype=False, check_exact=True)
    assert alone[["cell_id", "method", "engine"]].equals(table[["cell_id", "method", "engine"]])


# --------------------------------------------------------------------------- the four shipped kinds, small

SMALL = {
    "bands": {"name": "b", "bands": ["roc"], "band_methods": {"roc": ["ks", "wilson", {"name": "sup_t", "draws": 20}]},
              "grid": {"n_pos": [15], "auc": [0.7, 0.9], "delta": [0.05]}, "reps": 6, "seed": 3, "n_jobs": 1},
    "sequential": {"name": "s", "seed": 2, "sequential": {
        "delta": 0.05, "p": [0.3, 0.8], "check": {"reps": 40, "p": [0.5]},
        "parts": {"peek": {"methods": ["wilson", "jeffreys"], "n_max": [40], "looks": [1, 4],
                           "rules": [{"rule": "never"}, {"rule": "width", "width": 0.3}]}}}},
    "leaderboard": {"name": "l", "seed": 1, "leaderboard": {
        "methods": ["wald", "holm", {"name": "bootstrap_ranks", "draws": 20}], "k": [3], "n": [60, 90], "top": [0.75],
        "spread": [0.1], "rho": [0.5], "delta": 0.05, "reps": 10, "check": {"k": 3, "n": 4, "reps": 50}}},
    "calibration": {"name": "c", "seed": 4, "reps": 30, "calibration": {
        "bin_methods": ["wilson"], "adjustments": ["none"], "ece_methods": ["plugin"], "tests": ["spiegelhalter"],
        "draws": 10}, "grid": {"n": [40, 60], "bins": [4], "delta": [0.1]}},
}
TABLE = {"bands": "bands.parquet", "sequential": "results.parquet", "leaderboard": "results.csv",
         "calibration": "results.csv"}

DIE_AFTER_FIRST_PART = """
import json, os, signal, sys
from covstudy.study import kinds, runner, store
save = store.KindStore.save_cells
def save_then_die(self, cells):  # kill -9 the run right after its first finished task is stored
    save(self, cells)
    with open(sys.argv[2], "w") as f:  # the run's children (workers, resource trackers): they must die with it
        f.write(" ".join(open(t).read() for t in __import__("glob").glob(f"/proc/{os.getpid()}/task/*/children")))
    os.kill(os.getpid(), signal.SIGKILL)
store.KindStore.save_cells = save_then_die
kinds.IN_PROCESS_SECONDS = 0.0  # on loky workers
cfg = json.loads(sys.argv[1])
kind = kinds.kind_of(cfg)
runner.run_kind(kind, kind.load(cfg), kinds.RunSettings(n_jobs=2))
"""


def running(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """Each kind's small study, uninterrupted, on loky workers: {key: (folder, tables)}."""
    out = {}
    root = tmp_path_factory.mktemp("clean")
    saved = kinds.IN_PROCESS_SECONDS
    kinds.IN_PROCESS_SECONDS = 0.0
    try:
        for key, cfg in SMALL.items():
            kind = kind_of(cfg)
            cfg = {**cfg, "out": str(root / key)}
            out[key] = (root / key, run_kind(kind, kind.load(cfg), RunSettings(n_jobs=2)))
    finally:
        kinds.IN_PROCESS_SECONDS = saved
    return out


def same_tables(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True)


@pytest.mark.parametrize("key", list(SMALL))
def test_kill_9_then_resume_gives_the_uninterrupted_table(tmp_path, clean, key):
    cfg = {**SMALL[key], "out": str(tmp_path / key)}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(kinds.__file__).parents[2]),
                                                                      os.environ.get("PYTHONPATH")]))}
    pids = tmp_path / "children"
    proc = subprocess.run([sys.executable, "-c", DIE_AFTER_FIRST_PART, json.dumps(cfg), str(pids)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    pool = [int(p) for p in pids.read_text().split()]
    assert pool, "the run had no workers"
    deadline = time.time() + 60  # a guard only: the kernel kills them at once (PR_SET_PDEATHSIG), or a watcher soon
    while time.time() < deadline and any(map(running, pool)):
        time.sleep(0.1)
    assert not any(map(running, pool)), "workers outlived the killed run"
    assert len(list((tmp_path / key / "parts").glob("*.jsonl"))) == 1
    assert not (tmp_path / key / TABLE[key]).exists()
    kind = kind_of(cfg)
    lines = []
    resumed = run_kind(kind, kind.load(cfg), say=lines.append)
    assert "found in" in lines[0], lines
    folder, tables = clean[key]
    same_tables(resumed, tables)
    assert (tmp_path / key / TABLE[key]).read_bytes() == (folder / TABLE[key]).read_bytes()
    assert (tmp_path / key / "report.html").is_file()


def test_dask_gives_the_loky_tables(tmp_path, clean):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        for key, cfg in SMALL.items():
            kind = kind_of(cfg)
            cfg = {**cfg, "out": str(tmp_path / key)}
            tables = run_kind(kind, kind.load(cfg), RunSettings(backend="dask", scheduler=cluster.scheduler_address))
            same_tables(tables, clean[key][1])
            assert (tmp_path / key / TABLE[key]).read_bytes() == (clean[key][0] / TABLE[key]).read_bytes()


def test_a_kind_that_does_not_fit_in_memory_is_refused_before_any_work(tmp_path):
    huge = StudyKind(key="huge", load=COIN.load, cells=COIN.cells, rows=coin_rows, finish=coin_finish,
                     summary=COIN.summary, memory=lambda study, p: 1e18)
    with pytest.raises(ConfigError, match=r"^n_jobs: the forecast is ~\S+ GB a worker on 1 worker, more than this machine"):
        run_kind(huge, huge.load(coin(tmp_path / "h")))
    assert not (tmp_path / "h").exists()


WING = '''"""A scratch study kind: one draw per p (tests/test_study_kinds.py)."""
from dataclasses import dataclass
from pathlib import Path

from ..seeds import stream
from ..study.kinds import StudyKind, register_study_kind

KEY = __name__.split(".")[1]


@dataclass(frozen=True)
class Scratch:
    name: str
    question: str
    p: tuple
    seed: int
    out: Path
    plot: bool


def load(cfg):
    return Scratch(cfg["name"], cfg.get("question", ""), tuple(cfg[KEY]["p"]), cfg["seed"], Path(cfg["out"]), False)


def rows(study, p):
    return {"results": [{"p": p, "draw": float(stream(study.seed, p=p).random())}]}


def finish(study, tables):
    tables["results"].to_csv(study.out / "results.csv", index=False)
    return [study.out / "results.csv"]


register_study_kind(StudyKind(key=KEY, load=load, cells=lambda study: list(study.p), rows=rows, finish=finish,
                              summary=lambda study, tables: tables["results"]))
'''


def test_a_new_wing_is_a_study_kind_with_no_other_edit(tmp_path):
    """A wing dropped into the package (its __init__.py and study.py) is a study kind the command runs
    from its config key: no edit of cli.py, the runner, the store or the report."""
    import shutil
    import uuid

    import covstudy

    tag = f"scratch_{uuid.uuid4().hex[:8]}"
    wing = Path(covstudy.__path__[0]) / tag
    try:
        wing.mkdir()
        (wing / "__init__.py").write_text('"""A scratch wing."""\n')
        (wing / "study.py").write_text(WING)
        run = subprocess.run([sys.executable, "-m", "covstudy", f"+{tag}.p=[0.2,0.7]", "name=scratch", "seed=1",
                              f"out={tmp_path / 'out'}"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    finally:
        shutil.rmtree(wing)
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("scratch: 2 of 2 cells to compute in 2 tasks"), run.stderr
    table = pd.read_csv(tmp_path / "out" / "results.csv")
    assert list(table.p) == [0.2, 0.7] and table.draw.between(0, 1).all()
    assert (tmp_path / "out" / "report.html").is_file() and "scratch: 2 rows" in run.stdout


@pytest.mark.parametrize("name", ["peeking", "leaderboard"])
def test_a_committed_kind_page_is_what_its_tables_write(tmp_path, name):
    """results/<name>/report.html (report/kind_page.py) is the page of its committed tables, byte for byte."""
    import shutil

    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from covstudy import cli

    root = Path(__file__).resolve().parents[1] / "results" / name
    if not (root / "report.html").is_file():
        pytest.skip(f"results/{name} has no report.html")
    folder = shutil.copytree(root, tmp_path / name)
    (folder / "report.html").unlink()
    with initialize_config_dir(config_dir=cli._conf_dir(), version_base="1.3"):
        raw = OmegaConf.to_container(compose(config_name="config", overrides=[f"study={name}"]), resolve=True)
    kind = kind_of(raw)
    study = kind.load({**raw, "out": str(folder)})
    read = {".parquet": pd.read_parquet, ".csv": pd.read_csv}
    files = {"results": next(f for f in ("results.parquet", "results.csv") if (folder / f).is_file()),
             "check": "check.csv"}
    tables = {t: read[Path(files[t]).suffix](folder / files[t]) for t in kind.tables}
    page = kind.page(study, tables) if kind.page else kinds.write_page(kind, study, tables)
    assert page.read_bytes() == (root / "report.html").read_bytes()
