"""Contract tests over every registered design (as benchopt's tests run over every dataset):
exact weights sum to 1, simulated counts to reps, Monte Carlo agrees with exact within 4 MCSE,
a point's stream does not depend on the other points, and infeasible points are refused
before any work. Designs without an exact engine (``exact_engine = False``, e.g. binormal)
must refuse it up front instead; their Monte Carlo is checked against their exact truth in
their own tests (tests/test_auc.py)."""

import numpy as np
import pytest

from covstudy import coverage
from covstudy.designs import DESIGNS
from covstudy.estimands import estimands_for, get_estimand
from covstudy.engine.core import Analysis, Evaluator
from covstudy.methods import methods

NAMES = sorted(DESIGNS)


def example(design, **changes):
    return design.derive({**design.example, **changes})


def one_method_per_kind(design):
    """(estimand, method) pairs: for every estimand of the design, the first method of each kind it takes."""
    return [(est, next(iter(methods(t).values())))
            for est in estimands_for(design.data) for t in est.takes]


@pytest.mark.parametrize("name", NAMES)
def test_exact_weights_sum_to_one_and_counts_to_reps(name):
    d = DESIGNS[name]
    pt = example(d)
    sim = d.simulate([pt], 3000, 7)
    assert sim.weight.sum() == 3000 and sim.weight.dtype.kind == "i"
    assert d.check(pt, exact=False) is None
    assert {a.name for a in d.axes} >= set(pt)
    if not d.exact_engine:
        message = d.check(pt, exact=True)
        assert message and "\n" not in message
        return
    exact = d.exact([pt])
    assert exact.weight.shape == (1, len(next(iter(exact.columns.values()))))
    assert exact.weight.sum() == pytest.approx(1, abs=1e-12)
    assert np.all(exact.weight >= 0)
    assert d.check(pt, exact=True) is None


@pytest.mark.parametrize("name", NAMES)
def test_monte_carlo_agrees_with_exact_within_4_mcse(name):
    d = DESIGNS[name]
    if not d.exact_engine:
        pytest.skip(f"{name} has no exact engine; its own tests check Monte Carlo against its exact truth")
    pt = example(d)
    checked = 0
    for est, m in one_method_per_kind(d):
        if m.input.per_test_set:
            continue  # no exact engine: its intervals are themselves simulated
        reps = 20_000
        exact, mc = Evaluator(d).score([pt], [(Analysis(m, tuple(m.defaults.items()), est, 0.05, "two-sided", r, s),
                                               [0]) for r, s in ((None, None), (reps, 11))])
        c = exact["coverage"][0]
        assert abs(mc["coverage"][0] - c) <= 4 * np.sqrt(c * (1 - c) / reps) + 1e-12, (name, est.name, m.name)
        assert mc["mean_width"][0] == pytest.approx(exact["mean_width"][0], rel=0.02, abs=1e-3)
        checked += 1
    assert checked


@pytest.mark.parametrize("name", NAMES)
def test_a_points_stream_does_not_depend_on_the_other_points(name):
    d = DESIGNS[name]
    pt = example(d)
    other = example(d, **{a.name: d.example[a.name] / 2 for a in d.axes if not a.integer and a.name in d.example})
    alone = d.simulate([pt], 2000, 5)
    ev = Evaluator(d)
    est = get_estimand(d.data, d.estimand)
    m = next(iter(methods(est.takes[0]).values()))
    a = Analysis(m, (), est, 0.05, "two-sided", 2000, 5)
    together = ev.score([other, pt], [(a, [0, 1])])[0]
    by_itself = ev.score([pt], [(a, [0])])[0]
    assert together["coverage"][1] == by_itself["coverage"][0]
    assert together["n_valid"][1] == by_itself["n_valid"][0] <= alone.weight.sum() == 2000
    if d.batch_key(other) == d.batch_key(pt):  # generated in one batch: the same histogram row
        assert np.array_equal(d.simulate([other, pt], 2000, 5).weight[1], alone.weight[0])
    assert not same(d.simulate([pt], 2000, 6), alone)  # the seed matters
    assert same(d.simulate([pt], 2000, 5), alone)


def same(a, b) -> bool:
    """Equal outcome distributions: the same outcomes (columns) with the same weights."""
    return (np.array_equal(a.weight, b.weight) and a.columns.keys() == b.columns.keys()
            and all(np.array_equal(a.columns[c], b.columns[c]) for c in a.columns))


@pytest.mark.parametrize("name", NAMES)
def test_infeasible_points_are_refused_before_any_work(name, monkeypatch):
    d = DESIGNS[name]
    exact = d.exact_engine  # designs without an exact engine: their Monte Carlo limits
    est = get_estimand(d.data, d.estimand)
    m = next(iter(methods(est.takes[0])))
    merge = est.merge(methods(est.takes[0])[m]) if exact else None  # the limit may depend on what m reads
    big = dict(d.example)
    for _ in range(12):  # scale the integer axes until the engine refuses the point
        if d.check(d.derive(big), exact=exact, merge=merge):
            break
        big = {k: (v * 10 if d.axis(k).integer else v) for k, v in big.items()}
    message = d.check(d.derive(big), exact=exact, merge=merge)
    assert message and message.split(":")[0].split(", ")[0] in {a.name for a in d.axes}
    engine = "exact" if exact else "simulate"
    monkeypatch.setattr(type(d), engine, lambda *a, **k: pytest.fail("generated outcomes of a refused point"))
    with pytest.raises(ValueError) as err:
        coverage(m, design=name, **big, **({} if exact else {"reps": 10, "seed": 1}))
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_every_design_has_its_config_and_its_axes_on_the_command_line():
    from pathlib import Path

    from hydra import compose, initialize_config_dir

    from covstudy import cli

    help_text = cli.help_text()
    for name, d in DESIGNS.items():
        assert (Path(cli._conf_dir()) / "design" / f"{name}.yaml").is_file()
        # every axis settable on the command line without "+" (the config "axes" comes from DESIGNS)
        overrides = [f"design={name}", *(f"grid.{a.name}=1" for a in d.axes)]
        with initialize_config_dir(config_dir=cli._conf_dir(), version_base="1.3"):
            grid = compose(config_name="config", overrides=overrides).grid
        assert all(grid[a.name] == 1 for a in d.axes)
        assert all(a in help_text for o in d.parametrisations for a in o)
        assert d.parametrisations[0] and all(set(o) <= {a.name for a in d.axes} for o in d.parametrisations)
