"""The sequential design (designs/sequential.py) and the confidence sequences (methods/sequential.py):
the dynamic programme against brute force and Monte Carlo, the guarantees it proves, the references."""

import csv
import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

import covstudy
from covstudy.designs.sequential import (MEASURES, Looks, Procedure, Rule, confidence_sequence, exact,
                                         sequential_coverage, simulate)
from covstudy.methods import get
from covstudy.methods.sequential import MIN_DELTA, mixture_concentration, spend

DATA = Path(__file__).parent / "data"
P = np.round(np.arange(0.01, 1.0, 0.01), 2)


def brute_force(procedure, looks, rule, p, delta):
    """The measures by enumerating all 2^n sequences of n_L Bernoulli(p) examples (small n only)."""
    sizes = looks.sizes
    tables = procedure.intervals(looks, delta)
    out = {m: 0.0 for m in MEASURES}
    for x in itertools.product((0, 1), repeat=sizes[-1]):
        k = np.cumsum(x)
        weight = p ** k[-1] * (1 - p) ** (sizes[-1] - k[-1])
        ks = [int(k[n - 1]) for n in sizes]
        inside = [lo[j] <= p <= hi[j] for (lo, hi), j in zip(tables, ks)]
        stop = next(l for l, ((lo, hi), j) in enumerate(zip(tables, ks))
                    if l == len(sizes) - 1 or rule.stops(lo[j:j + 1], hi[j:j + 1])[0])
        lo, hi = tables[stop]
        out["coverage"] += weight * inside[stop]
        out["simultaneous"] += weight * all(inside)
        out["expected_n"] += weight * sizes[stop]
        out["width"] += weight * (hi[ks[stop]] - lo[ks[stop]])
        out["stopped_early"] += weight * (stop < len(sizes) - 1)
    return out


@pytest.mark.parametrize("method, adjust, rule", [
    ("wilson", "none", Rule()), ("jeffreys", "obf", Rule("width", 0.5)), ("clopper_pearson", "pocock", Rule("threshold", 0.6)),
    ("mixture", "none", Rule("width", 0.6)), ("betting", "none", Rule("threshold", 0.3)), ("cp_union", "none", Rule()),
])
def test_the_programme_equals_brute_force_enumeration(method, adjust, rule):
    looks = Looks.of(looks=[2, 3, 7, 11])
    procedure = Procedure.of(method, adjust)
    for p in (0.0, 0.13, 0.5, 0.77, 1.0):
        dp = exact(procedure, looks, rule, p, 0.1)
        bf = brute_force(procedure, looks, rule, p, 0.1)
        for m in MEASURES:
            assert dp[m][0] == pytest.approx(bf[m], abs=1e-12), (m, p)


@pytest.mark.parametrize("method, adjust, rule", [
    ("wilson", "none", Rule("width", 0.15)), ("clopper_pearson", "bonferroni", Rule("threshold", 0.8)),
    ("mixture", "none", Rule("width", 0.2)),
])
def test_monte_carlo_agrees_with_the_programme_within_4_mcse(method, adjust, rule):
    looks = Looks.of(batch=20, n_max=400)
    procedure = Procedure.of(method, adjust)
    p = np.array([0.05, 0.5, 0.83])
    dp = exact(procedure, looks, rule, p, 0.05)
    mc = simulate(procedure, looks, rule, p, 0.05, reps=4000, seed=45)
    for m in MEASURES:
        mcse = mc[f"{m}_mcse"]
        if m in ("coverage", "simultaneous", "stopped_early"):  # a rate: its MCSE at the exact value (none seen missing: 0)
            mcse = np.sqrt(dp[m] * (1 - dp[m]) / 4000)
        # + 1e-6 relative: a path that almost never continues shows no spread among 4000 (MCSE 0)
        assert np.all(np.abs(mc[m] - dp[m]) <= 4 * mcse + 1e-6 * dp[m] + 1e-12), m


def test_one_look_is_the_fixed_n_coverage_of_the_engine():
    for method in ("wilson", "clopper_pearson", "jeffreys"):
        r = sequential_coverage(method, P, looks=[40])
        fixed = covstudy.coverage(method, n=40, p=P)
        np.testing.assert_allclose(r["coverage"], fixed.coverage, atol=1e-12)
        np.testing.assert_allclose(r["simultaneous"], fixed.coverage, atol=1e-12)
        np.testing.assert_allclose(r["width"], fixed.mean_width, atol=1e-12)


@pytest.mark.parametrize("method, adjust", [("mixture", "none"), ("betting", "none"), ("cp_union", "none"),
                                            ("clopper_pearson", "bonferroni"), ("clopper_pearson", "obf"),
                                            ("clopper_pearson", "pocock")])
@pytest.mark.parametrize("looks", [dict(batch=1, n_max=80), dict(batch=25, n_max=1000)])
def test_confidence_sequences_keep_simultaneous_coverage_exactly(method, adjust, looks):
    """The programme proves P(p in every interval) >= 1 - delta at each p of the grid (and near the ends)."""
    p = np.concatenate([[0.0, 0.001, 0.003], P, [0.997, 0.999, 1.0]])
    r = sequential_coverage(method, p, adjust=adjust, delta=0.05, **looks)
    assert np.all(r["simultaneous"] >= 0.95 - 1e-12), p[np.argmin(r["simultaneous"])]


def test_peeking_with_a_fixed_n_method_loses_simultaneous_coverage():
    one = sequential_coverage("wilson", 0.5, looks=[100])["simultaneous"][0]
    five = sequential_coverage("wilson", 0.5, batch=20, n_max=100)["simultaneous"][0]
    assert five < one - 0.05  # a test that cannot pass if the looks were ignored


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 60), min_size=1, max_size=6, unique=True), st.integers(1, 60),
       st.floats(0.0, 1.0), st.sampled_from(["wilson", "clopper_pearson", "mixture"]))
def test_more_looks_never_raise_simultaneous_coverage(sizes, extra, p, method):
    sizes = sorted(sizes)
    more = sorted(set(sizes) | {extra})
    procedure = Procedure.of(method)  # no adjustment: each look's interval does not depend on the others
    few = exact(procedure, Looks.of(looks=sizes), Rule(), p, 0.05)["simultaneous"][0]
    many = exact(procedure, Looks.of(looks=more), Rule(), p, 0.05)["simultaneous"][0]
    assert many <= few + 1e-12


def test_spending_functions():
    t = np.arange(1, 6) / 5
    for rule in ("bonferroni", "obf", "pocock"):
        assert spend(rule, t, 0.05).sum() == pytest.approx(0.05, abs=5 * MIN_DELTA)
    # Lan and DeMets (1983): alpha(t) = 2 - 2 Phi(z_{1 - delta/2} / sqrt t); delta log(1 + (e - 1) t)
    assert spend("obf", t, 0.05)[0] == pytest.approx(2 * stats.norm.sf(1.959963984540054 / np.sqrt(0.2)), rel=1e-12)
    assert spend("pocock", t, 0.05)[0] == pytest.approx(0.05 * np.log(1 + (np.e - 1) * 0.2), rel=1e-12)
    assert spend("obf", np.arange(1, 101) / 100, 0.05)[0] == MIN_DELTA  # ~1e-85 spent at t = 0.01
    np.testing.assert_array_equal(spend("none", t, 0.05), 0.05)


def test_betting_matches_confseq_dkelly():
    """confseq's dKelly_cs, run once (tests/data/confseq_dkelly.csv: its grid of 20,000 puts ends within 1e-4)."""
    rows = list(csv.DictReader(line for line in open(DATA / "confseq_dkelly.csv") if not line.startswith("#")))
    assert len(rows) == 42
    m = get("betting", "sequential")
    for r in rows:
        lower, upper = m.bounds((int(r["k"]), int(r["n"]), 1), float(r["delta"]))
        assert abs(lower - float(r["lower"])) <= 1e-4 + 1e-9 and abs(upper - float(r["upper"])) <= 1e-4 + 1e-9, r


def confseq_log_mixture(s, v, g, h, r):
    """BetaBinomialMixture::log_superMG of confseq's uniform_boundaries.h (two-sided: x = 1), with scipy."""
    return (v / (g * h) * np.log(g + h) - (v + h * s) / (h * (g + h)) * np.log(g) - (v - g * s) / (g * (g + h)) * np.log(h)
            + special.betaln((r + v - g * s) / (g * (g + h)), (r + v + h * s) / (h * (g + h)))
            - special.betaln(r / (g * (g + h)), r / (h * (g + h))))


@pytest.mark.parametrize("t_opt", [10.0, 100.0, 1000.0])
def test_mixture_ends_are_the_roots_of_the_confseq_boundary(t_opt):
    """Howard et al. (2021) via confseq's bernoulli_confidence_interval: at each end the sub-Bernoulli
    beta-binomial mixture (g = p, h = 1 - p, s = k - np, v = p(1 - p)n, r tuned at v_opt = p(1 - p)t_opt) is 1/delta."""
    delta = 0.05
    n = 50
    k = np.arange(n + 1)
    lower, upper = get("mixture", "sequential").bounds((k, n, 1), delta, t_opt=t_opt)
    log_inv = np.log(1 / delta)
    for end, inner in ((lower[1:], k[1:]), (upper[:-1], k[:-1])):
        g, h = end, 1 - end
        rho = g * h * t_opt / (2 * log_inv + np.log(1 + 2 * log_inv))  # TwoSidedNormalMixture::best_rho
        r = np.maximum(rho - g * h, 1e-3 * g * h)
        with np.errstate(divide="ignore", invalid="ignore"):  # an end at 0 or 1 is checked apart
            value = confseq_log_mixture(inner - n * end, g * h * n, g, h, r)
        at_an_end = (end < 1e-15) | (end > 1 - 1e-15)  # the mixture stays below 1/delta up to 0 (k = 1) or 1
        np.testing.assert_allclose(value[~at_an_end], log_inv, atol=1e-8)
        assert np.sum(at_an_end) <= 1
    assert mixture_concentration(t_opt, delta) > 0
    assert np.all(lower <= k / n) and np.all(k / n <= upper)


def test_confidence_sequence_reads_the_tables():
    lower, upper = confidence_sequence("wilson", [8, 17], [10, 20], adjust="bonferroni")
    w = covstudy.interval("wilson", k=[8, 17], n=[10, 20], delta=0.025)
    np.testing.assert_allclose(lower, w.lower)
    np.testing.assert_allclose(upper, w.upper)
    lower, upper = confidence_sequence("cp_union", [8, 17], [10, 20])
    cp = covstudy.interval("clopper_pearson", k=[8, 17], n=[10, 20], delta=[0.025, 0.05 / 6])
    np.testing.assert_allclose(lower, cp.lower)


@pytest.mark.parametrize("call, message", [
    (lambda: sequential_coverage("wilson", 0.5, looks=[10, 5]), "looks must be increasing"),
    (lambda: sequential_coverage("wilson", 0.5), "looks: give the sizes"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], batch=2, n_max=10), "looks: give either"),
    (lambda: sequential_coverage("wilson", 0.5, batch=20, n_max=10), "batch must be <= n_max"),
    (lambda: sequential_coverage("wilson", 1.5, looks=[5]), "p must be"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], rule="sometimes"), "rule must be one of"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], rule="width"), "width: missing"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], rule="width", width=2), "width must be"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], width=0.1), "width: only with rule=width"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], rule="threshold", threshold=1), "threshold must be"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], adjust="holm"), "adjust must be one of"),
    (lambda: sequential_coverage("mixture", 0.5, looks=[5], adjust="obf"), "adjust: sequential.mixture is a confidence"),
    (lambda: sequential_coverage("mixtur", 0.5, looks=[5]), "method: unknown"),
    (lambda: sequential_coverage("mixture", 0.5, looks=[5], t_opt=-1), "sequential.mixture: parameter t_opt"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], delta=0.9), "delta must be"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], reps=0, seed=1), "reps must be"),
    (lambda: sequential_coverage("wilson", 0.5, looks=[5], seed=1), "seed: only with reps"),
    (lambda: sequential_coverage("wilson", 0.5, batch=1, n_max=10 ** 6), "n_max must be <= 20,000 (the last look)"),
    (lambda: confidence_sequence("wilson", [5, 4], [10, 20]), "k: the successes"),
    (lambda: covstudy.interval("sequential.mixture", k=3, n=10), "method:"),
])
def test_bad_input_is_a_one_line_error(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(message) and "\n" not in str(err.value), str(err.value)


GOOD = {"name": "s", "seed": 1, "sequential": {"p": [0.5], "delta": 0.05, "parts": {
    "peek": {"methods": ["wilson"], "n_max": [20], "looks": [2], "rules": [{"rule": "never"}]}}}}


def with_change(path, value):
    import copy

    cfg = copy.deepcopy(GOOD)
    *parents, last = path
    node = cfg
    for key in parents:
        node = node[key]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return cfg


@pytest.mark.parametrize("path, value, message", [
    (("sequential", "parts"), KeyError, "sequential.parts: must map"),
    (("sequential", "colour"), 1, "sequential: unknown keys colour"),
    (("sequential", "delta"), 0.9, "sequential.delta must be"),
    (("sequential", "p"), [2], "sequential.p must be"),
    (("sequential", "parts", "peek", "rules"), [{"rule": "width"}], "sequential.parts.peek: width: missing"),
    (("sequential", "parts", "peek", "batch"), [5], "sequential.parts.peek: give looks"),
    (("sequential", "parts", "peek", "methods"), ["nope"], "sequential.parts.peek: method: unknown"),
    (("sequential", "parts", "peek", "methods"), [{"name": "mixture", "adjust": "obf"}], "sequential.parts.peek: adjust"),
    (("sequential", "parts", "peek", "looks"), [30], "sequential.parts.peek: looks must be <= n_max"),
    (("sequential", "parts", "peek", "speed"), 1, "sequential.parts.peek: unknown keys speed"),
])
def test_bad_study_configs_are_one_line_errors(path, value, message):
    from covstudy.study.config import ConfigError
    from covstudy.sequential.study import SequentialStudy

    with pytest.raises(ConfigError) as err:
        SequentialStudy.from_config(with_change(path, value))
    assert str(err.value).startswith(message) and "\n" not in str(err.value), str(err.value)


def test_a_study_writes_its_table_check_and_report(tmp_path):
    from covstudy.sequential.study import SequentialStudy, run_sequential_study

    cfg = with_change(("sequential", "check"), {"reps": 50, "p": [0.5]}) | {"out": str(tmp_path / "s")}
    table = run_sequential_study(SequentialStudy.from_config(cfg))
    r = sequential_coverage("wilson", 0.5, looks=[10, 20])
    assert table["simultaneous"].iloc[0] == pytest.approx(r["simultaneous"][0], abs=1e-15)
    assert {"check.csv", "report.md", "report.html", "results.parquet", "study.json"} <= {p.name for p in (tmp_path / "s").iterdir()}
    assert "## Monte Carlo check" in (tmp_path / "s" / "report.md").read_text()


def test_the_planner_gives_the_width_rules_expected_labels(capsys):
    """planning.sequential.expected_labels is sequential_coverage's width rule; n_max defaults to four times
    the fixed-n plan; covstudy-plan --design sequential prints it and refuses bad input in one line."""
    from covstudy import plan
    from covstudy.cli import plan_main
    from covstudy.planning.sequential import expected_labels

    r = expected_labels("mixture", 0.8, 0.15, batch=20, n_max=400)
    ref = covstudy.sequential_coverage("mixture", 0.8, batch=20, n_max=400, rule="width", width=0.15)
    assert (r.expected_n, r.coverage, r.simultaneous) == (ref["expected_n"][0], ref["coverage"][0],
                                                         ref["simultaneous"][0])
    naive = expected_labels("wilson", 0.8, 0.15, batch=20, n_max=400)
    assert naive.expected_n < r.expected_n and naive.simultaneous < 0.95 <= r.simultaneous
    default = expected_labels("wilson", 0.8, 0.15, batch=20)
    assert default.n_max == 20 * -(-4 * plan("wilson", p=0.8, width=0.15).n // 20)
    assert plan_main(["--design", "sequential", "--method", "mixture", "--p", "0.8", "--width", "0.15",
                      "--batch", "20", "--n-max", "400"]) == 0
    assert f"{r.expected_n:,.0f} labels expected" in capsys.readouterr().out
    for bad in (["--batch", "0"], ["--batch", "20", "--adjust", "none2"]):
        assert plan_main(["--design", "sequential", "--method", "wilson", "--p", "0.8", "--width", "0.15", *bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("covstudy-plan: error:") and err.count("\n") == 1
