"""Every shape of the cost benchmark's matrix (benchmarks/evaluate_cost.py, issue 56), small, through
``covstudy.evaluate`` (the leaderboard through ``leaderboard``): never a traceback, always a table with a row
per metric. Small: a few dozen rows, 50 test sets a point and a budget of 2 CPU-s, which the larger files
meet by the cuts these runs also exercise."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import covstudy

_SPEC = importlib.util.spec_from_file_location(
    "evaluate_cost", Path(__file__).resolve().parents[1] / "benchmarks" / "evaluate_cost.py")
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)

ROWS = {"k20": 160, "k10": 100}  # a class needs a few rows to be seen at all (else the data has fewer classes)


@pytest.mark.parametrize("family", bench.FAMILIES)
def test_every_shape_gives_a_table(family):
    rows = ROWS.get(family, 60)
    data = bench.shapes((rows,))[f"{family}-{bench.tag(rows)}"]()
    if "models" in data:
        from covstudy.evaluation.leaderboard import leaderboard

        board = leaderboard(data["truth"], data["models"], reps=50)
        assert len(board.models) == 5 and board.text()
        return
    ev = covstudy.evaluate(**data, reps=50, progress=False, budget=2.0, cache=False)
    assert len(ev.table) and ev.recommended.metric.is_unique
    assert set(ev.recommended.metric) == set(ev.table.metric)  # every metric keeps a row it recommends
    assert math.isfinite(ev.info["forecast"]) and ev.info["forecast"] > 0
    assert str(ev)  # the text table renders


def test_the_shapes_are_deterministic():
    a = bench.shapes((50,))["proba2-5e1"]()
    b = bench.shapes((50,))["proba2-5e1"]()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert ((a["scores"] == 0) | (a["scores"] == 1)).any()  # probabilities with exact 0 or 1
    ties = bench.shapes((200,))["ties-groups-2e2"]()
    assert np.unique(ties["scores"]).size <= 5 and "groups" in ties
