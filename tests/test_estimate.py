"""The plan line's rough forecast (time and memory) and a progress that advances by cost."""

import re

import pytest

from covstudy.study import cost as estimate, grid, runner, tasks
from covstudy.study.config import Study


def study(out, **changes):
    cfg = {"name": "t", "methods": ["wald", "wilson"], "grid": {"n": [10, 1000], "p": [0.1, 0.5], "delta": [0.05]},
           "engine": "exact", "n_jobs": 1, "out": str(out)}
    cfg.update(changes)
    return Study.from_config(cfg)


def test_plan_line_with_a_forecast_comes_before_the_first_cell(tmp_path, monkeypatch):
    events = []
    evaluate = tasks.evaluate  # what the interval kind's work calls for each task (in this process: a small study)
    monkeypatch.setattr(tasks, "evaluate", lambda task: events.append("cell") or evaluate(task))
    runner.run_study(study(tmp_path / "s"), say=events.append, progress=False)
    assert events[1:] and set(events[1:]) == {"cell"}
    assert re.fullmatch(r"t: 8 of 8 cells to compute in \d+ tasks? on 1 worker; "
                        r"roughly (<1 s|\d+ s|\d+ min|[\d.]+ h) of CPU, ~\d+ MB a worker", events[0])


def test_a_bigger_grid_has_a_bigger_forecast(tmp_path):
    def forecast(n, engine="exact", reps=None):
        s = study(tmp_path / "s", grid={"n": n, "p": [0.1, 0.5], "delta": [0.05]}, engine=engine,
                  **({"reps": reps} if reps else {}))
        tasks = grid.tasks(grid.cells(s), 1)
        return estimate.cpu_seconds(tasks), max(estimate.task_bytes(t) for t in tasks)

    small, large, huge = forecast([10, 20]), forecast([1000, 2000]), forecast([10**6])
    assert small[0] < large[0] < huge[0] and small[1] < large[1] < huge[1]
    # An exact table of n + 1 intervals per method: 16 bytes a cell beyond the interpreter.
    assert huge[1] >= estimate.BASE_BYTES + 2 * 16 * (10**6 + 1)
    assert forecast([1000], "mc", 100)[0] < forecast([1000], "mc", 10_000)[0]  # Monte Carlo: distinct outcomes drawn
    # Exact: one table of n + 1 intervals per method at each n, shared by both p; each cell scores n + 1 outcomes.
    expected = (8 * estimate.SECONDS_PER_CELL + 2 * (11 + 1001) * estimate.SECONDS_PER_INTERVAL
                + 2 * 2 * (11 + 1001) * estimate.SECONDS_PER_OUTCOME)
    assert estimate.cpu_seconds(grid.tasks(grid.cells(study(tmp_path / "s")), 1)) == pytest.approx(expected)


def test_forecast_reads_as_an_order_of_magnitude():
    assert [estimate.duration(s) for s in (40, 700, 4 * 3600)] == ["40 s", "12 min", "4.0 h"]
    assert [estimate.size(b) for b in (3e8, 2.5e9)] == ["300 MB", "2.5 GB"]


RECORDERS = []


class Recorder:
    """A progress sink that records what the runner tells it."""

    def __init__(self, name, cells, cost, show=None):
        self.cells, self.cost, self.updates = cells, cost, []
        RECORDERS.append(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def update(self, cells, cost):
        self.updates.append((cells, cost))


def test_progress_advances_by_the_estimated_cost_of_each_finished_task(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "Progress", Recorder)
    s = study(tmp_path / "s")
    runner.run_study(s, progress=False)
    [bar] = RECORDERS
    assert bar.cells == 8 and bar.cost == pytest.approx(sum(map(estimate.cell_seconds, grid.cells(s))))
    assert sum(c for c, _ in bar.updates) == 8 and sum(w for _, w in bar.updates) == pytest.approx(bar.cost)
    # An exact binomial cell costs its n + 1 outcomes: tasks at n = 1000 move the bar 91 times
    # further per cell than tasks at n = 10.
    per_outcome = estimate.SECONDS_PER_INTERVAL + estimate.SECONDS_PER_OUTCOME
    assert sorted({round((w / c - estimate.SECONDS_PER_CELL) / per_outcome) for c, w in bar.updates}) == [11, 1001]


def test_methods_that_need_each_test_set_cost_per_test_set(tmp_path):
    s = study(tmp_path / "s", methods=["delong"], engine="mc", reps=200,
              grid={"design": "binormal", "n_pos": [20], "n_neg": [30], "auc": [0.8], "delta": [0.05]})
    [cell] = grid.cells(s)
    assert estimate.cell_seconds(cell) == estimate.SECONDS_PER_CELL + estimate.SECONDS_PER_TEST_SET * 200


def test_heartbeat_fraction_and_time_left_follow_the_cost(monkeypatch):
    from covstudy.study import progress

    with progress.Progress("t", 10, 1000.0, show=False) as p:
        p.update(9, 100.0)
        p._start -= 5  # 5 s elapsed
        assert re.fullmatch(r"t: 9 of 10 cells, 10% of the work, 5 s elapsed, ~45 s left", p.line())
        p.update(1, 900.0)
        assert p.fraction == 1.0 and p.line().endswith("~0 s left")


def test_an_exact_table_split_over_tasks_counts_once_per_worker(tmp_path):
    # One key (n = 40000) over 99 p: grid.tasks splits its points into chunks; a worker keeps the
    # table cached, so on one worker it is computed once however many chunks there are.
    s = study(tmp_path / "s", methods=["blaker"], grid={"n": [40000], "p": [i / 100 for i in range(1, 100)],
                                                        "delta": [0.05]})
    cells = grid.cells(s)
    split = grid.tasks(cells, 2)
    whole = [grid.Task(split[0].key, tuple(cells))]
    assert len(split) > 2
    assert estimate.cpu_seconds(split, 1) == pytest.approx(estimate.cpu_seconds(whole, 1))
    assert estimate.cpu_seconds(split, 2) == pytest.approx(estimate.cpu_seconds(whole, 1)
                                                           + estimate.INTERVAL_SECONDS["blaker"] * 40001)
    # Blaker's root finding costs more an interval than the default
    assert estimate.cell_seconds(cells[0]) > estimate.SECONDS_PER_INTERVAL * 40001
