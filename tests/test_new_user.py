"""What a new user trips over (issue 17): silent wrong numbers at the edges of the input space."""

import numpy as np
import pandas as pd
import pytest

from covstudy import balanced_interval, coverage, interval, metric_interval, plan
from covstudy.methods import get, methods
from covstudy.methods.registry import SIDES
from covstudy.study.config import ConfigError, Study

HINT = "(delta is the miss rate: 95% confidence is delta=0.05)"


# --- 1. exact ends ------------------------------------------------------------------------

def exact_ends(m) -> bool:
    """Methods whose interval reaches 0 at no successes and 1 at all successes: every frequentist
    method, and Bayesian ones with a boundary modification (equal-tailed posterior quantiles never do)."""
    return m.family != "bayesian" or m.name in ("jeffreys", "ba_jeffreys_union")


@pytest.mark.parametrize("name", [n for n, m in methods("proportion").items() if exact_ends(m)])
def test_proportion_methods_reach_0_and_1_exactly(name):
    n = np.arange(1, 301)
    for delta in (0.5, 0.05, 0.01, 1e-4, 1e-10):
        for side in SIDES:
            lower, _ = interval(name, 0, n, delta, side=side)
            _, upper = interval(name, n, n, delta, side=side)
            assert np.all(lower == 0) and np.all(upper == 1), (delta, side)


@pytest.mark.parametrize("name", [n for n, m in methods("two_class").items() if exact_ends(m)])
def test_balanced_methods_reach_0_and_1_exactly(name):
    n_pos, n_neg = np.meshgrid(np.arange(1, 60), np.arange(0, 60))
    for delta in (0.5, 0.05, 1e-4):
        assert np.all(balanced_interval(name, 0, n_pos, 0, n_neg, delta)[0] == 0)
        assert np.all(balanced_interval(name, n_pos, n_pos, n_neg, n_neg, delta)[1] == 1)


def test_wilson_covers_the_edges():
    assert coverage("wilson", n=7, p=0.0).coverage == 1
    assert coverage("wilson", n=7, p=1.0).coverage == 1
    # The planner checks p = 0 too: with the end at 2.8e-17 no n would ever reach 1 - delta - 0.15 there.
    assert plan("wilson", coverage_tol=0.15, p_range=(0, 0.2)).n == 1


# --- 2, 3. delta is a miss rate in [1e-10, 0.5] ----------------------------------------------

@pytest.mark.parametrize("bad", [0.95, 0.5000001, 0.0, 1e-300, 5e-11, np.nan, True])
def test_delta_out_of_range_is_refused_with_the_hint_everywhere(bad):
    calls = [lambda: interval("wilson", 10, 50, delta=bad),
             lambda: coverage("wilson", 50, 0.2, delta=bad),
             lambda: balanced_interval("ba_wald", 5, 10, 5, 10, delta=bad),
             lambda: metric_interval("precision", "wilson", 5, 2, 3, 9, delta=bad),
             lambda: plan("wilson", p=0.9, width=0.1, delta=bad)]
    for call in calls:
        with pytest.raises(ValueError, match=r"delta must be in \[1e-10, 0.5\], got .*" + r"\(delta is the miss"):
            call()
    cfg = {"name": "t", "methods": ["wilson"], "grid": {"n": [10], "p": [0.5], "delta": [bad]}, "out": "x"}
    with pytest.raises(ConfigError, match=r"grid.delta: must be (numbers )?in \[1e-10, 0.5\], got .* \(delta is the miss"):
        Study.from_config(cfg)


def test_planner_cli_refuses_confidence_given_as_delta(capsys):
    from covstudy.cli import plan_main

    assert plan_main(["--method", "wilson", "--p", "0.9", "--width", "0.1", "--delta", "0.95"]) == 2
    assert capsys.readouterr().err == f"covstudy-plan: error: delta must be in [1e-10, 0.5], got 0.95 {HINT}\n"


def test_the_ends_of_the_delta_range_give_finite_ordered_bounds():
    rng = np.random.default_rng(0)
    for delta in (1e-10, 0.5):
        for name in (m.name for m in methods("two_class").values()):
            k_pos, k_neg = np.meshgrid(np.arange(0, 25), np.arange(0, 25))
            for n_pos, n_neg in ((24, 24), (24, 0), (0, 24)):
                lo, up = balanced_interval(name, np.minimum(k_pos, n_pos), n_pos, np.minimum(k_neg, n_neg), n_neg,
                                           delta)
                assert np.all(np.isfinite(lo) & np.isfinite(up) & (lo <= up)), (name, delta, n_pos, n_neg)
        for name, m in methods("confusion").items():
            tp, fp = np.array([0, 5, 10, 0, 3]), np.array([0, 5, 0, 10, 3])
            lo, up = m.bounds((tp, fp, fp, tp + 5), delta, rng=rng, **m.validate_params({}))
            assert np.all(np.isfinite(lo) & np.isfinite(up) & (lo <= up)), (name, delta)


# --- 4. coverage <= 1, booleans, huge integers and parameters ---------------------------------

def test_monte_carlo_coverage_never_exceeds_one():
    c = coverage("wilson", 50, 0.919089, reps=10, seed=42)
    assert c.coverage == 1.0 and c.mcse == 0.0
    c = coverage("wilson", 50, np.linspace(0.01, 0.99, 99), reps=10, seed=42)
    assert np.all(c.coverage <= 1) and np.all(np.isfinite(c.mcse))


@pytest.mark.parametrize("call, message", [
    (lambda: coverage("wilson", 10, True), "p must be a number in [0, 1], got True"),
    (lambda: interval("wilson", 3, 2**63), "n must be at most 1e+15, got 9223372036854775808"),
    (lambda: interval("wilson", 3, 2**70), "n must be at most 1e+15, got 1180591620717411303424"),
    (lambda: coverage("wilson", 2**40, 0.3), "n: exact binomial coverage needs n <= 1,000,000,000"),
    (lambda: interval("bayes", 3, 10, a=1e300), "proportion.bayes: parameter a must be a finite number > 0 and <= 1e+10"),
    (lambda: metric_interval("f1", "f1_bootstrap", 3, 2, 1, 4, draws=10**9), "f1.bootstrap: parameter draws must be a whole number > 0 and <= 1e+07"),
])
def test_out_of_range_numbers_are_one_line_errors(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(message)


def test_extreme_prior_parameters_keep_lower_below_upper():
    k = np.arange(11)
    for a in (1e-6, 1e-300, 1e10):
        for delta in (0.5, 0.05, 1e-10):
            lower, upper = interval("bayes", k, 10, delta, a=a, b=a)
            assert np.all(np.isfinite(lower) & np.isfinite(upper) & (lower <= upper)), (a, delta)
    assert get("bayes", "proportion").params[0].at_most == 1e10


# --- 17. floats for scalars, fixed seeds, exact f1_bayes ------------------------------------------

def test_scalar_in_float_out_array_in_array_out():
    from covstudy import (auc_interval, clustered_interval, difference_interval, multiclass_interval,
                          paired_interval, superiority_probability)

    for lower, upper in (interval("wilson", 3, 10), balanced_interval("ba_wald", 3, 5, 4, 5),
                         metric_interval("precision", "wilson", 40, 10, 5, 45),
                         metric_interval("f1", "f1_bayes", 40, 10, 5, 45),
                         difference_interval("newcombe", 56, 70, 48, 80), paired_interval("tango", 20, 12, 2, 16),
                         multiclass_interval("macro_recall", "mr_wald", [[8, 2], [1, 9]]),
                         clustered_interval("wilson_vif", [18, 20, 9], [20, 20, 20]),
                         auc_interval("delong", [0.3, 1.2, 2.0], [0.1, -0.5, 0.8])):
        assert type(lower) is float and type(upper) is float
    assert type(superiority_probability(12, 2)) is float
    assert type(superiority_probability(k1=56, n1=70, k2=48, n2=80)) is float
    lower, upper = interval("wilson", [3], 10)
    assert isinstance(lower, np.ndarray) and lower.shape == (1,)


def test_sampling_metric_intervals_default_to_a_fixed_seed():
    assert metric_interval("f1", "f1_bootstrap", 40, 10, 5, 45) == metric_interval("f1", "f1_bootstrap", 40, 10, 5, 45)


def test_f1_bayes_is_deterministic_and_exact_capable():
    from covstudy import metric_coverage

    assert metric_interval("f1", "f1_bayes", 40, 10, 5, 45, seed=1) == metric_interval("f1", "f1_bayes", 40, 10, 5, 45,
                                                                                         seed=2)
    assert metric_coverage("f1", "f1_bayes", 30, 0.3, 0.8, 0.9).engine == "exact"
    cfg = {"name": "t", "methods": ["f1_bayes"], "engine": "exact", "out": "x",
           "grid": {"design": "iid", "metric": ["f1"], "n": [20], "prevalence": [0.3], "tpr": [0.8], "tnr": [0.9],
                    "delta": [0.05]}}
    Study.from_config(cfg)  # no "Monte Carlo only" refusal


# --- 18. sources cited by title ---------------------------------------------------------------------

def test_docs_cite_sources_by_title_not_by_seed_number():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = [*root.glob("*.md"), *root.glob("docs/**/*.md"), *root.glob("experiments/**/*.md"),
             *root.glob("conf/**/*.yaml"), *root.glob("src/**/*.py")]
    bad = [f.relative_to(root) for f in files if re.search(r"seeds?[ /_]0\d\d", f.read_text())]
    assert bad == []


# --- 14. figures that do not mislead -------------------------------------------------------------------

def test_heatmap_rows_are_the_computed_n_and_its_colourbar_label_fits():
    from tidy_tables import binomial_table

    from covstudy.plots.heatmap import Heatmap
    from covstudy.plots.style import method_colors, method_order
    from covstudy.study.summary import tidy

    table = tidy(binomial_table(["clopper_pearson", "wald"], [20, 100, 1000], np.linspace(0.05, 0.95, 19)))
    combo = {"delta": 0.05, "side": "two-sided", "engine": "exact"}
    fig = Heatmap().draw(table, combo, {}, method_colors(table), method_order(table))
    fig.canvas.draw()
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["Clopper–Pearson", "Wald"]  # display names, config order
    ax = axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["20", "100", "1000"]
    assert ax.get_ylim() == (-0.5, 2.5)  # one row per computed n, nothing in between
    colourbar = next(a for a in fig.axes if a not in axes and a.get_ylabel())
    label = colourbar.yaxis.label.get_window_extent()
    box = fig.bbox
    assert box.y0 <= label.y0 and label.y1 <= box.y1  # not clipped


def test_tradeoff_keeps_a_low_mean_on_the_axis():
    from tidy_tables import binomial_table

    from covstudy.plots.style import method_colors, method_order
    from covstudy.plots.tradeoff import tradeoff
    from covstudy.study.summary import tidy

    table = tidy(binomial_table(["wald", "wilson"], [10, 20], [0.005, 0.01, 0.02]))  # Wald's mean coverage is tiny
    assert table.groupby("method")["coverage"].mean()["wald"] < 0.3
    fig = tradeoff(table, {"delta": 0.05}, method_colors(table), method_order(table), title="t")
    ax = fig.axes[0]
    lowest = table.groupby("label")["coverage"].mean().min()
    assert ax.get_ylim()[0] < lowest


def test_every_method_has_a_display_name():
    for name, m in methods(None).items():
        assert m.display and "_" not in m.display, name
    assert get("clopper_pearson").display == "Clopper–Pearson"
    from covstudy.methods.registry import Registry

    r = Registry()
    r.register("paired_wald", family="approximate", guaranteed=False, reference="x")(lambda k, n, delta: (k, n))
    assert r.get("paired_wald").display == "paired wald"  # methods registered elsewhere need nothing


def test_display_labels_keep_parameters_and_own_labels():
    from covstudy.study.summary import display_labels

    table = pd.DataFrame({"method": ["wilson", "wilson", "cluster_bootstrap"],
                          "label": ["wilson", "mine", "cluster_bootstrap(draws=400)"]})
    assert display_labels(table)["label"].tolist() == ["Wilson", "mine", "cluster bootstrap (draws=400)"]
