"""Generated bad input over the newer doors (issue 58): the sequential, judged, calibration and
leaderboard functions, the planners, the studies' configs and covstudy-evaluate's options.

Every argument of a small valid call is replaced, one at a time, by each value of ``BAD`` (the
older fuzz of issue 48 did the same by hand: tests/test_input_limits.py). Each case must either
run (the value was fine there) or be refused by a ValueError or TypeError whose message is one
line naming the argument; the command lines must exit 2 with one line on stderr. Values that are
never an argument's value (text, NaN, a 2-d list, a complex number, a date, True for a number)
must be refused. The calls are small, so a value that is accepted finishes at once, and the
huge ones (10¹²) must be refused by a size guard before any work: a missing guard hangs here
(no timed asserts). Deterministic: the cases are a fixed product."""

import numpy as np
import pandas as pd
import pytest

import covstudy as cs
from covstudy.calibration.study import CalibrationStudy
from covstudy.designs.many_binormal import ManyBinormal
from covstudy.designs.many_models import ManyModels, sufficient
from covstudy.leaderboard.coverage import auc_leaderboard_coverage, leaderboard_coverage
from covstudy.leaderboard.study import LeaderboardStudy
from covstudy.methods import calibration as cal
from covstudy.methods import get
from covstudy.methods.smooth_ece import smooth_ece
from covstudy.planning.sequential import expected_labels
from covstudy.sequential.study import SequentialStudy

BAD = {
    "none": None, "text": "x", "numeric text": "0.5", "bool": True, "nan": float("nan"), "inf": float("inf"),
    "negative": -1, "zero": 0, "fraction": 2.5, "huge": 10**12, "2-d": [[1, 2], [3, 4]], "empty": [],
    "complex": 1 + 1j, "date": np.datetime64("2020-01-01"),
}
NEVER = ("text", "numeric text", "nan", "2-d", "empty", "complex", "date")  # no argument here takes these
FLAGS = {"plugin", "audit", "guarantee", "audit_all", "plot"}  # True is their value

X = next(ManyModels((0.8, 0.7, 0.6), 30, 0.5).simulate(2, seed=1))
CORRECT, BOTH, _ = sufficient(X)
RNG = np.random.default_rng(0)
SCORES = RNG.random((2, 40))
LABELS = (RNG.random((2, 40)) < SCORES).astype(float)
EDGES = np.linspace(0, 1, 5)
AUC = np.array([[0.8, 0.7, 0.65]])
COV = np.array([[[4e-3, 1e-3, 1e-3], [1e-3, 4e-3, 1e-3], [1e-3, 1e-3, 4e-3]]])


def study_config(block, **over):
    return {"name": "s", "out": "never-written", "seed": 1, **block, **over}


LEADERBOARD = {"leaderboard": {"methods": ["wald", {"name": "bootstrap_max_t", "draws": 20}], "k": [3], "n": [50],
                               "top": [0.7], "spread": [0.1], "rho": [0.5], "reps": 10,
                               "check": {"k": 3, "n": 5, "reps": 10}}}
CALIBRATION = {"reps": 20, "calibration": {"bin_methods": ["wilson"], "adjustments": ["sidak"],
                                           "ece_methods": ["plugin"], "tests": ["spiegelhalter"], "draws": 10},
               "grid": {"n": [40], "bins": [4], "slope": [1.0], "delta": [0.1]}}
SEQUENTIAL = {"sequential": {"p": [0.5], "delta": 0.05, "check": {"p": [0.5], "reps": 10}, "parts": {
    "peek": {"methods": ["wilson"], "n_max": [20], "looks": [2], "rules": [{"rule": "never"}]}}}}


def nested(block: dict, path: str, value) -> dict:
    """``block`` with the key at ``path`` ("leaderboard.reps") set to ``value``."""
    head, _, rest = path.partition(".")
    return {**block, head: nested(block.get(head, {}), rest, value) if rest else value}


# door: (call, baseline keyword arguments, the arguments to replace; an argument may be one the baseline omits)
# [, labels of BAD a door may accept: the interval door broadcasts counts of any shape]
DOORS = {
    "sequential_coverage, looks": (lambda **kw: cs.sequential_coverage("wilson", **kw), dict(p=0.5, looks=[5, 10]),
                                   ["p", "looks", "rule", "width", "threshold", "adjust", "delta", "reps", "seed",
                                    "method"]),
    "sequential_coverage, batch": (lambda **kw: cs.sequential_coverage("wilson", **kw),
                                   dict(p=0.5, batch=5, n_max=20), ["batch", "n_max"]),
    "confidence_sequence": (lambda **kw: cs.confidence_sequence("mixture", **kw), dict(k=[3, 7], n=[5, 10]),
                            ["k", "n", "delta", "adjust"]),
    "expected_labels": (lambda **kw: expected_labels("wilson", **kw), dict(p=0.8, width=0.3, batch=10, n_max=60),
                        ["p", "width", "batch", "n_max", "adjust", "delta"]),
    "plan, judged plug-in": (lambda **kw: cs.plan("ppi", design="judged", **kw),
                             dict(width=0.3, examples=400, p=0.3, agreement=0.9, plugin=True),
                             ["width", "examples", "p", "agreement", "plugin", "delta", "sampling", "n_max"]),
    "plan, binomial": (lambda **kw: cs.plan("wilson", **kw), dict(p=0.8, width=0.3),
                       ["p", "width", "delta", "plugin", "n_max", "coverage", "power", "horizon", "p_points"]),
    "judged interval": (lambda **kw: cs.interval("ppi", design="judged", **kw),
                        dict(tp=8, fn=2, fp=3, tn=7, u_pos=60, u_neg=40), ["tp", "fn", "u_pos", "delta"], {"2-d"}),
    "bin_stats": (lambda **kw: cal.bin_stats(**kw), dict(scores=SCORES, labels=LABELS, edges=EDGES),
                  ["scores", "labels", "edges"]),
    "hosmer_lemeshow": (lambda **kw: cal.hosmer_lemeshow(**kw), dict(scores=SCORES, labels=LABELS, edges=EDGES),
                        ["scores", "labels", "edges"]),
    "spiegelhalter_z": (lambda **kw: cal.spiegelhalter_z(**kw), dict(scores=SCORES, labels=LABELS),
                        ["scores", "labels"]),
    "smooth_ece": (lambda **kw: smooth_ece(**kw), dict(scores=SCORES, labels=LABELS), ["scores", "labels"]),
    "ece.debiased": (lambda **kw: get("debiased", "calibration").kernel(**kw),
                     dict(scores=SCORES, labels=LABELS, delta=0.1, edges=EDGES, draws=20),
                     ["scores", "labels", "delta", "edges", "draws"]),
    **{f"leaderboard.{name}": (lambda name=name, **kw: get(name, "leaderboard").kernel(**kw),
                               dict(correct=CORRECT, both=BOTH, n=30, delta=0.1), ["correct", "both", "n", "delta"])
       for name in ("wald", "newcombe", "bonferroni", "max_t", "holm", "bh")},
    "leaderboard.bootstrap_max_t": (lambda **kw: get("bootstrap_max_t", "leaderboard").kernel(**kw),
                                    dict(correct=CORRECT, both=BOTH, n=30, delta=0.1, rows=X,
                                         rng=np.random.default_rng(1), draws=20), ["n", "delta", "rows", "draws"]),
    "leaderboard_auc.max_t": (lambda **kw: get("max_t", "leaderboard_auc").kernel(**kw),
                              dict(auc=AUC, cov=COV, delta=0.1), ["auc", "cov", "delta"]),
    "ManyModels": (lambda **kw: ManyModels(**kw), dict(accuracies=(0.8, 0.7), n=20, rho=0.3),
                   ["accuracies", "n", "rho"]),
    "ManyBinormal": (lambda **kw: ManyBinormal(**kw), dict(aucs=(0.8, 0.7), n_pos=10, n_neg=10, rho=0.3),
                     ["aucs", "n_pos", "n_neg", "rho"]),
    "leaderboard_coverage": (lambda **kw: leaderboard_coverage(ManyModels((0.8, 0.7), 20, 0.3), ["wald"], **kw),
                             dict(delta=0.1, reps=20, seed=1), ["delta", "reps", "seed"]),
    "auc_leaderboard_coverage": (lambda **kw: auc_leaderboard_coverage(ManyBinormal((0.8, 0.7), 10, 10, 0.3),
                                                                       ["delong"], **kw),
                                 dict(delta=0.1, reps=20, seed=1), ["delta", "reps", "seed"]),
    **{f"{cls.__name__}.from_config": (lambda cls=cls, block=block, **kw: cls.from_config(
        study_config(block) if not kw else study_config(nested(block, *next(iter(kw.items()))))),
        {}, keys) for cls, block, keys in (
        (LeaderboardStudy, LEADERBOARD, ["leaderboard.reps", "leaderboard.delta", "leaderboard.n", "leaderboard.k",
                                         "leaderboard.rho", "leaderboard.methods", "leaderboard.check.n",
                                         "leaderboard.check.reps"]),
        (CalibrationStudy, CALIBRATION, ["reps", "grid.n", "grid.bins", "grid.delta", "calibration.draws"]),
        (SequentialStudy, SEQUENTIAL, ["sequential.p", "sequential.delta", "sequential.check.reps",
                                       "sequential.check.p", "sequential.parts.peek.n_max",
                                       "sequential.parts.peek.looks"]))},
    "evaluate": (lambda **kw: cs.evaluate(**{"progress": False, "audit": False, **kw}),
                 dict(truth=[0, 1] * 10, predicted=[0, 1, 1, 0] * 5),
                 ["truth", "predicted", "scores", "delta", "metrics", "max_rows", "max_classes", "audit", "guarantee",
                  "audit_all", "reps", "seed", "classes"]),
}


def cases(door: str):
    call, base, arguments = DOORS[door][:3]
    for argument in arguments:
        for label, value in BAD.items():
            if base and argument not in base and value is None:
                continue  # an optional argument's default itself
            yield argument, label, lambda kwargs={**base, argument: value}: call(**kwargs)


def outcome(argument: str, label: str, run, accepted=()) -> str | None:
    """None if the case behaves, else what is wrong with it."""
    try:
        run()
    except (ValueError, TypeError) as err:
        message = str(err)
        names = {argument, argument.split(".")[-1]}
        if "\n" in message or not message:
            return f"{argument}={label}: not one line: {message!r}"
        if not any(name in message for name in names):
            return f"{argument}={label}: does not name {argument}: {message!r}"
        return None
    except Exception as err:  # an internal traceback: IndexError, KeyError, ZeroDivisionError, MemoryError ...
        return f"{argument}={label}: {type(err).__name__}: {err}"
    if label not in accepted and (label in NEVER or (label == "bool" and argument not in FLAGS)):
        return f"{argument}={label}: accepted"
    return None


@pytest.mark.filterwarnings("ignore")  # numbers a value makes (a RuntimeWarning, a note) are not the point here
@pytest.mark.parametrize("door", DOORS)
def test_every_bad_value_is_refused_in_one_line_naming_the_argument(door):
    accepted = DOORS[door][3] if len(DOORS[door]) > 3 else ()
    problems = [p for p in (outcome(argument, label, run, accepted) for argument, label, run in cases(door)) if p]
    assert not problems, f"{door}: {len(problems)} cases: " + " | ".join(problems)


def test_the_cases_are_many_and_fixed():
    counts = {door: sum(1 for _ in cases(door)) for door in DOORS}
    assert sum(counts.values()) >= 500 and all(counts.values())


# ------------------------------------------------------------------ the command lines: exit 2, one line on stderr

CLI_BAD = ["x", "nan", "-1", "0", "2.5", "1e12", ""]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("doors")
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 2, 60)
    frame = pd.DataFrame({"truth": truth, "a": np.where(rng.random(60) < 0.8, truth, 1 - truth),
                          "b": np.where(rng.random(60) < 0.7, truth, 1 - truth), "score": rng.random(60),
                          "text": np.where(truth == 1, "yes", "no"), "group": rng.integers(0, 6, 60)})
    frame.to_csv(folder / "p.csv", index=False)
    (folder / "dup.csv").write_text("truth,a,a\n" + "".join(f"{t},{t},{1 - t}\n" for t in truth))
    return folder


def evaluate_cases(folder):
    base = [str(folder / "p.csv"), "--truth", "truth"]
    single = [*base, "--predicted", "a", "--no-audit", "--quiet"]
    board = [*base, "--model", "a", "--model", "b", "--no-audit"]
    for args in (single, board):
        for option in ("--delta", "--reps", "--seed", "--max-rows", "--max-classes", "--classes"):
            for value in CLI_BAD:
                yield [*args, option, value]
    yield from ([*single, "--guarantee"], [*single, "--audit-all"], [*board, "--guarantee"], [*board, "--audit-all"])
    for option in ("--group", "--predicted", "--score", "--second-predicted", "--second-score", "--positive",
                   "--question", "--judge"):
        yield [*board, option, {"--positive": "1"}.get(option, "group")]
    yield from ([*board, "--budget", "0"], [*board, "--budget", "soon"])  # a leaderboard honours a good one
    yield [*board, "--no-cache"]
    yield from ([*base, "--model", "a", "--model", "score"], [*base, "--model", "a", "--model", "text"],
                [*base, "--model", "a", "--model", "truth"], [*base, "--model", "a", "--model", "a"],
                [str(folder / "dup.csv"), "--truth", "truth", "--model", "a", "--model", "b"],
                [*base, "--predicted", "score", "--no-audit"])


def exit_code(main, argv) -> int:
    try:
        return main(argv)
    except SystemExit as stop:  # argparse and the early checks exit
        return stop.code


def test_evaluate_options_exit_2_with_one_line(files, capsys):
    from covstudy.evaluation.cli import main

    problems = []
    for argv in evaluate_cases(files):
        code = exit_code(main, argv)
        err = capsys.readouterr().err.strip().splitlines()
        if argv[-2:] == ["--seed", "0"]:  # the one good value among them
            continue
        if code != 2 or len(err) != 1 or not err[0].startswith("covstudy-evaluate: error: "):
            problems.append(f"{argv[3:]}: exit {code}, stderr {err}")
    assert not problems, " | ".join(problems)


def test_sequential_plan_options_exit_2_with_one_line(tmp_path, capsys):
    from covstudy.cli import plan_main

    base = ["--design", "sequential", "--method", "wilson", "--p", "0.8", "--width", "0.3"]
    runs = [[*base, "--batch", v] for v in CLI_BAD] + [[*base, "--batch", "10", "--n-max", v] for v in CLI_BAD]
    runs += [[*base, "--batch", "10", option, "0.8"] for option in
             ("--power", "--null", "--coverage", "--coverage-tol", "--assurance", "--width-prob", "--reps", "--seed",
              "--horizon", "--p-points", "--figure")]
    runs += [[*base, "--batch", "10", "--plugin"], [*base, "--batch", "10", "--side", "lower"],
             [*base, "--batch", "10", "--p-range", "0.1", "0.9"], [*base, "--batch", "10", "--metric", "recall"]]
    problems = []
    for argv in runs:
        code = exit_code(plan_main, argv)
        err = capsys.readouterr().err.strip().splitlines()
        if code != 2 or len(err) != 1 or not err[0].startswith("covstudy-plan: error: "):
            problems.append(f"{argv[8:]}: exit {code}, stderr {err}")
    assert not problems, " | ".join(problems)


# ------------------------------------------------------------------ the issue's cases, each by name

def evaluate_small(**kw):
    return cs.evaluate([0, 1] * 10, [0, 1, 1, 0] * 5, progress=False, **{"audit": False, **kw})


ISSUE = {
    "sequential n_max 1e8": (lambda: cs.sequential_coverage("wilson", 0.9, batch=10, n_max=10**8),
                             "n_max must be <= 20,000 (the last look), got 100,000,000"),
    "sequential n_max 1e15": (lambda: cs.sequential_coverage("wilson", 0.9, batch=10, n_max=10**15), "n_max must be <="),
    "expected_labels batch": (lambda: expected_labels("wilson", 0.9, 0.1, batch=10**9), "batch must be at most 20,000"),
    "calibration n": (lambda: CalibrationStudy.from_config(study_config(nested(CALIBRATION, "grid.n", [10**12]))),
                      "grid.n: the calibration design takes at most 10,000,000 examples"),
    "calibration bins": (lambda: CalibrationStudy.from_config(study_config(nested(CALIBRATION, "grid.bins", [10**6]))),
                         "grid.bins: the calibration design takes at most 200 bins"),
    "leaderboard draws 1e12": (lambda: LeaderboardStudy.from_config(study_config(nested(
        LEADERBOARD, "leaderboard.methods", [{"name": "bootstrap_max_t", "draws": 10**12}]))), "leaderboard.methods:"),
    "leaderboard draws 0": (lambda: LeaderboardStudy.from_config(study_config(nested(
        LEADERBOARD, "leaderboard.methods", [{"name": "bootstrap_max_t", "draws": 0}]))), "leaderboard.methods:"),
    "leaderboard reps": (lambda: LeaderboardStudy.from_config(study_config(nested(LEADERBOARD, "leaderboard.reps",
                                                                                 10**12))), "leaderboard.reps:"),
    "peeking check reps": (lambda: SequentialStudy.from_config(study_config(nested(SEQUENTIAL, "sequential.check.reps",
                                                                                  10**12))),
                           "sequential.check.reps must be at most 100,000,000"),
    "evaluate truth None": (lambda: cs.evaluate(None, predicted=[0, 1]), "truth: give the true label"),
    "evaluate metrics []": (lambda: evaluate_small(metrics=[]), "metrics: give one metric name or more"),
    "run_study overrides [3]": (lambda: cs.run_study("quick", overrides=[3]), "overrides: a list of strings"),
    "max_t one model": (lambda: get("max_t", "leaderboard").kernel(CORRECT[:, :1], BOTH[:, :1, :1], 30, 0.05),
                        "correct: give at least 2 models"),
    "plugin_ece score 1.5": (lambda: cal.plugin_ece(*cal.bin_stats([0.2, 1.5], [0, 1], EDGES)),
                             "scores must be probabilities in [0, 1], got 1.5"),
    "hosmer_lemeshow score 1.5": (lambda: cal.hosmer_lemeshow([0.2, 1.5], [0, 1], EDGES), "scores must be"),
    "smooth_ece score -0.2": (lambda: smooth_ece([-0.2, 0.5], [0, 1]), "scores must be probabilities"),
    "label 2": (lambda: cal.spiegelhalter_z([0.2, 0.5], [0, 2]), "labels must be 0 or 1, got 2.0"),
    "zero bins": (lambda: cal.bin_stats([0.2, 0.5], [0, 1], [0.0]), "edges must be at least two"),
    "both above correct": (lambda: get("wald", "leaderboard").kernel(np.array([[20, 10]]), np.array([[[20, 15], [15, 10]]]),
                                                                     30, 0.05), "both: both[i, j] must be in"),
    "correct above n": (lambda: get("holm", "leaderboard").kernel(np.array([[40, 10]]), np.array([[[40, 5], [5, 10]]]),
                                                                  30, 0.05), "correct must be at most 30"),
    "delta 2": (lambda: get("max_t", "leaderboard").kernel(CORRECT, BOTH, 30, 2), "delta must be in (0, 1)"),
    "one model's ManyModels": (lambda: ManyModels((0.8,), n=100, rho=0.5), "accuracies: give at least 2"),
    "guarantee without the audit": (lambda: evaluate_small(guarantee=True), "guarantee: needs the coverage audit"),
    "audit_all without the audit": (lambda: evaluate_small(audit_all=True), "audit_all: needs the coverage audit"),
    "max_rows text": (lambda: evaluate_small(max_rows="100"), "max_rows must be a whole number"),
    "max_classes 2.5": (lambda: evaluate_small(max_classes=2.5), "max_classes must be a whole number"),
    "2-d p": (lambda: cs.sequential_coverage("wilson", [[0.9, 0.8]], batch=10, n_max=20), "p must be a number or a 1-d"),
    "2-d looks": (lambda: cs.sequential_coverage("wilson", 0.9, looks=[[10, 20]]), "looks must be a number or a 1-d"),
    "2-d k": (lambda: cs.confidence_sequence("mixture", [[8, 17]], [10, 20]), "k must be a number or a 1-d"),
    "complex scores": (lambda: cs.evaluate([0, 1, 0, 1], scores=[0.1 + 1j, 0.9, 0.2, 0.8], audit=False, progress=False),
                       "scores: scores must be numbers"),
    "date scores": (lambda: cs.evaluate([0, 1, 0, 1], scores=pd.Series(pd.to_datetime(["2020-01-01"] * 4)),
                                        audit=False, progress=False), "scores: scores must be numbers"),
    "plugin yes": (lambda: cs.plan("wilson", p=0.9, width=0.1, plugin="yes"), "plugin must be True or False"),
}


@pytest.mark.parametrize("case", ISSUE)
def test_the_issues_cases_are_refused_in_one_line(case):
    call, message = ISSUE[case]
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(message) and "\n" not in str(err.value), str(err.value)


def test_judged_planning_with_stratified_sampling_answers():
    # it was a format error; the answer's own size meets the width by an independent Monte Carlo run, two
    # labels fewer do not, and the stratified design is what was planned (random sampling at that n is wider)
    kw = dict(design="judged", examples=2000, p=0.3, agreement=0.9)
    r = cs.plan("stratified_ppi", width=0.2, sampling="stratified", reps=200, seed=1, **kw)
    assert r.engine == "mc" and "sampling = stratified" in r.target
    at = lambda n, sampling: cs.size_performance("stratified_ppi", n, design="judged", examples=2000, p=0.3,  # noqa: E731
                                                 agreement=0.9, sampling=sampling, reps=4000, seed=7)
    here, below = at(r.n, "stratified"), at(r.n - 2, "stratified")
    mcse = lambda row: row["sd_width"] / np.sqrt(4000)  # noqa: E731
    assert here["mean_width"] <= 0.2 + 4 * mcse(here) and below["mean_width"] > 0.2 - 4 * mcse(below)
    assert at(r.n, "random")["mean_width"] > here["mean_width"] + 4 * mcse(here)


def test_leaderboard_cli_honours_classes_and_warns_of_a_stray_label(tmp_path, capsys):
    from covstudy.evaluation.cli import main

    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 300)
    truth[0] = 7  # a stray label: a third class of one row
    frame = pd.DataFrame({"truth": truth, "a": np.where(rng.random(300) < 0.8, truth, 1 - truth), "b": truth})
    frame.loc[0, ["a", "b"]] = 7
    frame.to_csv(tmp_path / "s.csv", index=False)
    argv = [str(tmp_path / "s.csv"), "--truth", "truth", "--model", "a", "--model", "b", "--no-audit"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "note: read 300 rows; truth has 3 classes" in err and "warning: truth: class(es) 7 (1 of 300 rows)" in err
    assert exit_code(main, [*argv, "--classes", "0,1"]) == 2
    assert capsys.readouterr().err.strip() == ("covstudy-evaluate: error: truth: label(s) 7 not among the stated "
                                               "classes '0', '1' (first at row 0)")


def test_evaluate_refuses_parquet_dates_as_scores(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    from covstudy.evaluation.cli import main

    frame = pd.DataFrame({"truth": [0, 1] * 10, "when": pd.date_range("2020-01-01", periods=20)})
    frame.to_parquet(tmp_path / "d.parquet")
    assert main([str(tmp_path / "d.parquet"), "--truth", "truth", "--score", "when", "--no-audit"]) == 2
    assert capsys.readouterr().err.strip() == ("covstudy-evaluate: error: when: scores must be numbers (real: higher = "
                                               "more positive), got dates or times")
