"""The interval study as a study kind: designs × methods × deltas, scored by the engine (the default
study, conf/study/*.yaml without a kind's block), run by the one study runner (runner.run_kind).

What it supplies beyond the simple kind (kinds.py), all from the rooms beside it:

* its cells are ``grid.Cell``\\ s, identified by their own ``cell_id`` (the keys of the CSV parts of every
  results folder written so far, so old folders resume);
* its tasks chunk the cells by interval-table key, costliest first (``grid.tasks``), and a worker runs
  ``tasks.evaluate_single_threaded`` on each;
* its forecast is ``cost.cpu_seconds`` and ``cost.task_bytes`` of those tasks (tables shared in a task);
* its store is ``store.Store``: CSV parts with row checks, results.csv and results.parquet, the
  parts' wall seconds in provenance.json;
* ``begin`` refuses a folder holding another study (``StudyMismatch``) and writes study.yaml;
* ``finish`` writes the table and, with ``exact_curve``, the exact coverage curve.

Its report.html comes with its figures (``plot=true``: ``present``, report/folder.py, or covstudy-plot),
so it has no page of the runner's. ``run_study`` (runner.py) runs one ``Study`` through this kind.
"""

from __future__ import annotations

from pathlib import Path

from . import cost, grid
from .config import Study
from .kinds import RunSettings, StudyKind, register_study_kind
from .tasks import evaluate, evaluate_single_threaded, row_columns


class StudyMismatch(RuntimeError):
    """``out`` holds the results of a different study."""


IDENTITY = ("name", "design", "side", "engine", "reps", "seed")  # what makes two studies different


def check_same_study(store, study: Study) -> None:
    """Refuse to run ``study`` into a folder holding another study (unless force=true).

    The same study with more or fewer methods, grid values or deltas is the same study: a
    rerun computes only its new cells. A different name, design, side, engine, reps or seed
    would replace the folder's table, so it needs ``force=true``.
    """
    old = store.read_yaml("study.yaml")
    if not old or study.force:
        return
    new = study.config()
    old_design = (old.get("grid") or {}).get("design")
    differs = [k for k in IDENTITY if (old_design if k == "design" else old.get(k))
               != (new["grid"]["design"] if k == "design" else new.get(k))]
    if differs:
        what = ", ".join(f"{k} {old_design if k == 'design' else old.get(k)!r} here, "
                         f"{new['grid']['design'] if k == 'design' else new[k]!r} in this run" for k in differs)
        raise StudyMismatch(f"out: {study.out} holds another study ({what}); choose another out= "
                            "or add force=true to replace its table")


def settings(study: Study) -> RunSettings:
    """The run-time settings of ``study`` (its config's n_jobs, backend, ...), for the runner."""
    return RunSettings(n_jobs=study.n_jobs, backend=study.backend, scheduler=study.scheduler, workers=study.workers,
                       threads_per_worker=study.threads_per_worker, force=study.force)


def rows(study: Study, cell: grid.Cell) -> dict:
    """The row of one cell computed on its own (a task of one cell: the same numbers as in any task)."""
    return {"results": evaluate(grid.Task(cell.table_key, (cell,)))}


def forecast(study: Study, tasks: list[grid.Task], workers: int) -> tuple[float, float]:
    """(CPU seconds, peak bytes of a worker) of ``tasks`` on ``workers`` (cost.py)."""
    return cost.cpu_seconds(tasks, workers), max((cost.task_bytes(t) for t in tasks), default=cost.BASE_BYTES)


def open_store(study: Study, cells: list[grid.Cell]):
    """The folder's CSV part store, checking each stored row against its cell's columns."""
    from .store import Store

    return Store(study.out, {c.cell_id: row_columns(c) for c in cells})


def begin(study: Study, store) -> None:
    check_same_study(store, study)
    store.write_yaml("study.yaml", study.record())


def finish(study: Study, tables: dict) -> list[Path]:
    """results.csv and results.parquet (``Store.write_table``), with ``exact_curve`` the exact curves."""
    from .store import Store

    paths = Store(study.out).write_table(tables["results"])  # the runner holds the folder's lock
    if study.exact_curve:
        paths += write_exact_curve(study)
    return paths


def write_exact_curve(study: Study) -> list[Path]:
    """<out>/exact_curve.csv (confidence coefficient, where, average coverage per method, n and
    delta over the study's p range) and <out>/exact_curve_points.csv (the exact curves)."""
    from ..engine.exact_curve import study_tables
    from .store import _csv_bytes, atomic_write

    p = study.axes["p"]
    summary, curves = study_tables([(m.name, m.label, dict(m.params)) for m in study.methods], study.axes["n"],
                                   study.axes["delta"], study.side, (min(p), max(p)))
    paths = [study.out / "exact_curve.csv", study.out / "exact_curve_points.csv"]
    atomic_write(paths[0], _csv_bytes(summary))
    atomic_write(paths[1], _csv_bytes(curves))
    return paths


def summary(study: Study, tables: dict):
    """Coverage at a glance per method (report/markdown.py's summary table)."""
    from ..report.markdown import summary_table

    return summary_table(tables["results"])


BELOW_NOTE = ("below nominal: an exact row counts the cells whose coverage < 1 − δ, a Monte Carlo (mc) row only those "
              "short of it by more than 2 MCSE, so mc counts fewer of the cells just below; compare the exact rows")


def present(study: Study, tables: dict) -> None:
    """What ``covstudy`` prints once the study is done: the per-method summary and, with ``plot``, the
    figures and reports it drew (report/folder.py) with the line saying how to open them."""
    import time

    from ..report.folder import how_to_open, write_all
    from ..report.markdown import text_table

    table = tables["results"]
    print(f"{study.name}: {len(table)} cells -> {study.out / 'results.csv'}")
    shown = summary(study, tables)
    print(text_table(shown))
    if shown["engine"].nunique() > 1:  # the two engines count "below nominal" differently: say so under the table
        print(BELOW_NOTE)
    if study.plot:
        started = time.process_time()
        figures = [p for p in write_all(study.out) if p.parent.name == "figures"]
        print(f"{len(figures)} figure files in {study.out / 'figures'} "
              f"(with the reports, {time.process_time() - started:.0f} s of CPU beyond the cells)")
        print(how_to_open(study.out))
    else:
        print(f"figures and report: covstudy-plot {study.out}   (or run with plot=true)")


KIND = register_study_kind(StudyKind(
    key="intervals", load=Study.from_config, cells=grid.cells, rows=rows, finish=finish, summary=summary,
    cost=lambda study, cell: cost.cell_seconds(cell), page=lambda study, tables: None,
    ids=lambda study, cells: [c.cell_id for c in cells],
    tasks=lambda study, todo, workers: grid.tasks([c for _, c in todo], workers),
    work=evaluate_single_threaded, forecast=forecast, store=open_store, begin=begin, present=present))
