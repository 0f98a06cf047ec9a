"""The cost of ``evaluate`` (evaluation/cost.py): the forecast before the work, the budget's cuts, the audit
cache (evaluation/cache.py). No test times anything: the forecast is checked against the run's own count of
the work it did (``info["work"]``, the forecasts of the audits that ran), which depends on the inputs only."""

import json
import math
import numpy as np
import pytest

import covstudy
from covstudy.evaluation import cache, cost
from covstudy.evaluation import result as result_module

RNG = np.random.default_rng(7)
TRUTH = (RNG.random(40) < 0.4).astype(int)
SCORES = np.round(TRUTH * 1.2 + RNG.normal(0, 1, 40), 1)
PREDICTED = (SCORES > 0.6).astype(int)
SMALL = dict(truth=TRUTH, predicted=PREDICTED, metrics=["accuracy", "precision"], reps=100, progress=False)


def _counting(monkeypatch):
    calls = []
    real = result_module.audit_metric

    def counted(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(result_module, "audit_metric", counted)
    return calls


@pytest.mark.parametrize("value", [0, -1, "abc", "nan", float("nan"), "", True, None.__class__])
def test_bad_budget_is_one_line_naming_it(value):
    with pytest.raises(ValueError, match=r"^budget: a number of CPU seconds > 0") as e:
        covstudy.evaluate(**SMALL, budget=value)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("value", ["0", "-3", "ten", "nan"])
def test_cli_bad_budget_exits_2_with_one_line(tmp_path, capsys, value):
    from covstudy.evaluation.cli import main

    f = tmp_path / "p.csv"
    f.write_text("t,p\n" + "\n".join(f"{a},{b}" for a, b in zip(TRUTH, PREDICTED)) + "\n")
    with pytest.raises(SystemExit) as e:
        main([str(f), "--truth", "t", "--predicted", "p", "--budget", value])
    out, err = capsys.readouterr()
    assert e.value.code == 2 and out == ""
    assert err.count("\n") == 1 and "--budget: a number of CPU seconds > 0" in err


def test_forecast_printed_before_the_work_and_recorded(capsys, monkeypatch):
    monkeypatch.delenv("COVSTUDY_BUDGET")  # the default
    ev = covstudy.evaluate(**{**SMALL, "progress": True})
    err = capsys.readouterr().err
    assert err.startswith("covstudy-evaluate: forecast: ~")
    assert f"~{ev.info['forecast']:.0f} CPU-s (budget {cost.BUDGET:g}" in err
    assert ev.info["budget"] == cost.BUDGET and ev.info["forecast"] > cost.OVERHEAD


@pytest.mark.parametrize("data", [
    dict(truth=TRUTH, predicted=PREDICTED, scores=SCORES, metrics=["precision", "auc"]),
    dict(truth=TRUTH, predicted=PREDICTED, second_predicted=np.roll(PREDICTED, 3),
         metrics=["recall", "accuracy_difference"]),
    dict(truth=np.arange(45) % 3, predicted=(np.arange(45) + (np.arange(45) % 7 == 0)) % 3,
         metrics=["accuracy", "macro_recall"]),
], ids=["scores", "two-models", "three-classes"])
def test_forecast_within_2x_of_the_work_the_run_did(data):
    """The forecast (made before the work, with each audit's chance to run) against the forecasts of the audits
    that did run: the early stops of the narrowest-first audit are what the forecast cannot know."""
    ev = covstudy.evaluate(**data, reps=100, progress=False, budget=math.inf, cache=False)
    assert 0.5 <= ev.info["work"] / ev.info["forecast"] <= 2.0


def test_a_tight_budget_cuts_and_says_so():
    data = dict(truth=TRUTH, predicted=PREDICTED, scores=SCORES, metrics=["precision", "auc"], progress=False,
                reps=400, cache=False)
    tight = covstudy.evaluate(**data, budget=1.5)
    plain = covstudy.evaluate(**data, audit=False)
    assert tight.info["cuts"] and tight.info["forecast"] <= 1.5 + 1e-9
    assert tight.table.note.str.contains("--budget").any()
    # every metric keeps its rows and its intervals: only audits are cut
    assert set(tight.table.metric) == set(plain.table.metric)
    key = ["metric", "method"]
    a, b = tight.table.set_index(key).lower, plain.table.set_index(key).lower
    assert np.allclose(a.loc[b.index].to_numpy(float), b.to_numpy(float), equal_nan=True)
    # a cut certified bound is still a lower bound of the worst coverage found
    sure = tight.table[tight.table.worst_bound.notna()]
    assert (sure.worst_bound <= sure.worst_coverage + 1e-12).all()


def test_plan_cuts_in_order_until_it_fits():
    """The plan's forecast decreases as the budget does, and fits it unless the plan cut what it could."""
    from covstudy.evaluation.data import prepare
    from covstudy.evaluation.metrics import metric_specs

    d = prepare(TRUTH, PREDICTED, SCORES, None, np.roll(PREDICTED, 3), None, None, None, None, 100, 10**7)
    specs = metric_specs(d, 0.05, None)
    last = math.inf
    for budget in (math.inf, 30.0, 8.0, 4.0, 2.0):
        p = cost.plan(specs, d.n, 2000, True, False, budget)
        assert p.forecast <= last + 1e-9
        # it fits, or the plan cut what it could (what is not an audit, and each metric's first audit, stay)
        assert p.forecast <= budget + 1e-9 or p.cuts
        last = p.forecast


def test_second_run_reads_every_audit_from_the_cache(monkeypatch):
    calls = _counting(monkeypatch)
    first = covstudy.evaluate(**SMALL, scores=SCORES)
    n = len(calls)
    assert n > 0 and any(cache.folder().glob("*.json"))
    second = covstudy.evaluate(**SMALL, scores=SCORES)
    assert len(calls) == n  # not one audit recomputed
    assert second.info["forecast"] < first.info["forecast"]
    cols = ["metric", "method", "coverage_at_estimate", "worst_coverage", "worst_bound", "meets_target", "recommended"]
    assert first.table[cols].equals(second.table[cols])


def test_no_cache_neither_reads_nor_writes(monkeypatch):
    calls = _counting(monkeypatch)
    covstudy.evaluate(**SMALL, cache=False)
    n = len(calls)
    assert n > 0 and not (cache.folder().exists() and any(cache.folder().glob("*.json")))
    covstudy.evaluate(**SMALL)  # writes
    assert len(calls) == 2 * n and any(cache.folder().glob("*.json"))
    covstudy.evaluate(**SMALL, cache=False)  # does not read
    assert len(calls) == 3 * n


@pytest.mark.parametrize("damage", ["{", "[1, 2]", '{"worst_coverage": 0.5, "rm -rf": 1}'])
def test_a_damaged_entry_is_ignored_and_recomputed(monkeypatch, damage):
    first = covstudy.evaluate(**SMALL)
    # the audits' entries (the width-vs-n table's are ``cache.memo`` values, {"memo": ...})
    entries = [e for e in sorted(cache.folder().glob("*.json")) if "memo" not in json.loads(e.read_text())]
    for e in entries:
        e.write_bytes(damage.encode("latin-1"))
    calls = _counting(monkeypatch)
    again = covstudy.evaluate(**SMALL)
    assert len(calls) == len(entries)
    assert first.table.worst_coverage.equals(again.table.worst_coverage)
    assert all(isinstance(json.loads(e.read_text()), dict) for e in entries)  # rewritten whole


def test_a_second_run_reads_the_width_vs_n_table_from_the_cache(monkeypatch):
    """The width-vs-n table is cached as the audits are (the README example's second run spent 2 of its 3 CPU-s
    recomputing it): the second run computes no width and gives the same table."""
    from covstudy.evaluation import growth

    first = covstudy.evaluate(**SMALL)
    calls = []
    widths = growth._widths
    monkeypatch.setattr(growth, "_widths", lambda *a: calls.append(a) or widths(*a))
    again = covstudy.evaluate(**SMALL)
    assert first.growth is not None and not calls
    assert first.growth.equals(again.growth)


def test_an_unfinished_write_is_never_read(tmp_path):
    """Entries are renamed into place: a temporary file left by a crash is not an entry."""
    (tmp_path / ".entry-abc.tmp").write_text('{"worst_coverage": 0.1}')
    assert cache.read("abc", tmp_path) is None
    cache.write("abc", {"worst_coverage": 0.9, "audit": "certified", "worst_bound": float("nan")}, tmp_path)
    got = cache.restore(cache.read("abc", tmp_path))
    assert got["worst_coverage"] == 0.9 and math.isnan(got["worst_bound"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [".entry-abc.tmp", "abc.json"]


def test_the_key_changes_with_what_the_audit_depends_on(monkeypatch):
    from covstudy.evaluation.data import prepare
    from covstudy.evaluation.metrics import metric_specs

    d = prepare(TRUTH, PREDICTED, None, None, None, None, None, None, None, 100, 10**7)
    s = next(x for x in metric_specs(d, 0.05, ["precision"]))
    base = cache.key(s, "wilson", 0.05, 2000, 0, {"work": None})
    assert base == cache.key(s, "wilson", 0.05, 2000, 0, {"work": None})
    others = {cache.key(s, "jeffreys", 0.05, 2000, 0, {"work": None}),
              cache.key(s, "wilson", 0.1, 2000, 0, {"work": None}), cache.key(s, "wilson", 0.05, 400, 0, {"work": None}),
              cache.key(s, "wilson", 0.05, 2000, 1, {"work": None}), cache.key(s, "wilson", 0.05, 2000, 0, {"work": 1e8})}
    monkeypatch.setattr(cache, "code_digest", lambda: "another build")
    others.add(cache.key(s, "wilson", 0.05, 2000, 0, {"work": None}))
    assert base not in others and len(others) == 6
    d2 = prepare(TRUTH, np.roll(PREDICTED, 1), None, None, None, None, None, None, None, 100, 10**7)
    s2 = next(x for x in metric_specs(d2, 0.05, ["precision"]))
    assert cache.key(s2, "wilson", 0.05, 2000, 0, {"work": None}) != base or s2.points == s.points


def test_the_default_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv("COVSTUDY_BUDGET", "7.5")
    assert cost.default_budget() == 7.5
    monkeypatch.setenv("COVSTUDY_BUDGET", "soon")
    with pytest.raises(ValueError, match="^COVSTUDY_BUDGET: a number of CPU seconds > 0"):
        covstudy.evaluate(**SMALL)
    monkeypatch.delenv("COVSTUDY_BUDGET")
    assert cost.default_budget() == cost.BUDGET


def test_the_folder_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("COVSTUDY_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.folder() == tmp_path / "xdg" / "covstudy"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")  # the spec: a relative path is invalid
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.folder() == tmp_path / "home" / ".cache" / "covstudy"
    monkeypatch.setenv("COVSTUDY_CACHE", str(tmp_path / "mine"))
    assert cache.folder() == tmp_path / "mine"


def test_an_unwritable_folder_only_skips_the_cache(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("COVSTUDY_CACHE", str(blocker / "below"))
    ev = covstudy.evaluate(**SMALL)
    assert len(ev.table)


def _guaranteed(qualified):
    from covstudy.methods import methods

    return bool(methods()[qualified].guaranteed)


@pytest.mark.parametrize("audit_all", [False, True])
def test_a_guaranteed_row_is_never_audited(monkeypatch, audit_all):
    """Issue 61: a guaranteed row meets the target by proof; no audit of it runs (count them), even with
    audit_all, and its row says ``guaranteed``. Main audited every one-proportion row, clopper_pearson and blaker
    among them."""
    from covstudy.evaluation import audit

    monkeypatch.setattr(audit, "BOOT_BUDGET", 0)  # the bootstraps' audits: not the point, and costly
    calls = _counting(monkeypatch)
    ev = covstudy.evaluate(**{**SMALL, "metrics": ["accuracy", "precision", "auc"]}, scores=SCORES, cache=False,
                           audit_all=audit_all, budget=3.0)
    assert calls and not any(_guaranteed(q) for q in calls)
    proven = ev.table[ev.table.guaranteed]
    assert len(proven) >= 4 and (proven.meets_target == "guaranteed").all()
    assert proven.coverage_at_estimate.isna().all()


def test_rows_as_wide_as_the_narrowest_guaranteed_one_are_not_audited(monkeypatch):
    """A row at least as wide on the data as the narrowest guaranteed row could never be recommended: not audited
    by default, its note naming that row; with audit_all it is. The plan forecasts only the audits that can run."""
    from covstudy.evaluation.data import prepare
    from covstudy.evaluation.metrics import metric_specs

    calls = _counting(monkeypatch)
    ev = covstudy.evaluate(**{**SMALL, "metrics": ["accuracy", "precision"]}, cache=False)
    t = ev.table
    for metric in ("accuracy", "precision"):
        rows = t[t.metric == metric]
        bar = rows[rows.guaranteed].width.min()
        by = rows[rows.guaranteed & (rows.width == bar)].method.iloc[0]
        wide = rows[~rows.guaranteed & (rows.width >= bar) & ~rows.method.isin(["bootstrap"])]
        assert len(wide) and wide.coverage_at_estimate.isna().all()
        assert wide.note.str.startswith(f"not audited: at least as wide on your data as {by}, which meets the "
                                        f"target by proof").all()
    full = covstudy.evaluate(**{**SMALL, "metrics": ["accuracy", "precision"]}, cache=False, audit_all=True)
    assert full.table[~full.table.guaranteed].coverage_at_estimate.notna().all()
    # the plan: no job for a guaranteed or a wide row, given the widths; only the guaranteed ones without them
    d = prepare(TRUTH, PREDICTED, None, None, None, None, None, None, None, 100, 10**7)
    specs = metric_specs(d, 0.05, ["accuracy", "precision"])
    widths = {(r.metric, q): r.width for s in specs for (m, _, q) in s.methods
              for r in t[(t.metric == s.metric) & (t.method == m)].itertuples()}
    p = cost.plan(specs, d.n, 100, True, False, math.inf, widths=widths)
    wide_keys = {(r.metric, q) for s in specs for (m, _, q) in s.methods
                 for r in t[(t.metric == s.metric) & (t.method == m)].itertuples()
                 if r.guaranteed or r.note.startswith("not audited: at least as wide")}
    assert wide_keys and not wide_keys & set(p.jobs)
    blind = cost.plan(specs, d.n, 100, True, False, math.inf)
    assert not any(_guaranteed(q) for _, q in blind.jobs) and len(blind.jobs) > len(p.jobs)


def test_water_fill_gives_the_cheap_metrics_all_they_need():
    assert cost.water_fill({"a": 1.0, "b": 2.0}, 5.0) == {"a": 1.0, "b": 2.0}
    got = cost.water_fill({"cheap": 0.02, "x": 3.0, "y": 5.0}, 2.02)
    assert got["cheap"] == 0.02 and got["x"] == pytest.approx(1.0) and got["y"] == pytest.approx(1.0)
    assert sum(got.values()) == pytest.approx(2.02)


def test_cheap_audits_are_never_refused_for_a_share():
    """Under a budget that cuts, a one-proportion metric's exact audits (milliseconds) all run: its share is all it
    needs (water-filling), not a fraction of it as the costly metrics' (main refused half of them)."""
    ev = covstudy.evaluate(truth=TRUTH, predicted=PREDICTED, scores=SCORES, second_predicted=np.roll(PREDICTED, 3),
                           metrics=["accuracy", "precision", "auc", "recall", "accuracy_difference"], reps=400,
                           progress=False, cache=False, budget=1.5)
    assert any("share" in c for c in ev.info["cuts"])
    for metric in ("accuracy", "recall"):
        rows = ev.table[ev.table.metric == metric]
        assert not rows.note.fillna("").str.contains("budget").any()
        candidates = rows[~rows.guaranteed & ~rows.note.fillna("").str.startswith("not audited")]
        assert len(candidates) >= 3 and candidates.coverage_at_estimate.notna().all()


def test_every_decision_draws_within_the_plans_cap(monkeypatch):
    """A Monte Carlo decision (audit.decide) draws at most the test sets the plan gave it (``Job.confirm``: what an
    even share of the budget leaves once the rest of the audit is paid); main let a drawing method's decision
    spend its whole budget of random numbers (an F1 bootstrap's: ~20 CPU-s on a 10-CPU-s budget)."""
    from covstudy.evaluation import audit
    from covstudy.evaluation.data import prepare
    from covstudy.evaluation.metrics import metric_specs

    budgets, plans = [], []
    decide, plan = audit.decide, cost.plan

    def counted(evaluate, at, worst, mcse, floor, reps, seed, budget=audit.DECIDE_TEST_SETS):
        budgets.append(budget)
        return decide(evaluate, at, worst, mcse, floor, reps, seed, budget)

    monkeypatch.setattr(audit, "decide", counted)
    monkeypatch.setattr(cost, "plan", lambda *a, **k: plans.append(plan(*a, **k)) or plans[-1])
    metrics = ["recall_difference", "f1_difference"]
    covstudy.evaluate(truth=TRUTH, predicted=PREDICTED, second_predicted=np.roll(PREDICTED, 3), metrics=metrics,
                      reps=400, progress=False, cache=False, budget=2.0)
    caps = [j.confirm for j in plans[-1].jobs.values() if not j.skip]
    assert caps and None not in caps and budgets and max(budgets) <= max(caps)
    d = prepare(TRUTH, PREDICTED, None, None, np.roll(PREDICTED, 3), None, None, None, None, 100, 10**7)
    free = plan(metric_specs(d, 0.05, metrics), d.n, 400, True, False, math.inf)
    assert free.jobs and all(j.confirm is None for j in free.jobs.values())  # no budget, the audit's own caps


def test_the_leaderboard_forecasts_and_cuts_its_audit_to_the_budget(capsys):
    """The leaderboard's forecast counts its rows, models and resampled test sets (cost.leaderboard_plan): its
    audit's test sets are cut to fit a tight budget, and it is not audited when even the least would not fit."""
    from covstudy.evaluation.leaderboard import leaderboard

    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 300)
    models = {f"m{j}": np.where(rng.random(300) < 0.7 + 0.05 * j, truth, 1 - truth) for j in range(4)}
    full = leaderboard(truth, models, reps=150, budget=math.inf, progress=True)
    assert full.audit["reps"] == 150 and not full.cut
    assert f"forecast: ~{full.forecast:.0f} CPU-s" in capsys.readouterr().err
    per_set = (full.forecast - leaderboard(truth, models, audit=False).forecast) / 150
    budget = full.forecast - 20 * per_set  # room for 130 test sets
    cut = leaderboard(truth, models, reps=150, budget=budget)
    assert cut.audit["reps"] in (129, 130)  # 130 up to the rounding of the budget
    assert f"{cut.audit['reps']} resampled test sets" in cut.cut and "--budget" in cut.cut
    assert cut.forecast <= budget + 1e-9 and cut.cut in cut.text()
    none = leaderboard(truth, models, reps=150, budget=cost.OVERHEAD + 0.01)
    assert none.audit is None and none.cut.startswith("not audited") and none.cut in none.text()


def test_the_first_audits_fit_the_budget_the_costliest_metrics_left_out_with_a_note():
    """Each metric's first audit runs whatever the outcomes: where those alone pass the budget by SLACK, the
    costliest metrics' are left out (cheapest first, so the most metrics keep an audit), each of their jobs with a
    note, never a cheap one (one proportion's) nor the only way a metric without a guaranteed method recommends."""
    from covstudy.evaluation.data import prepare
    from covstudy.evaluation.metrics import metric_specs

    d = prepare(TRUTH, PREDICTED, SCORES, None, np.roll(PREDICTED, 3), None, None, None, None, 100, 10**7)
    specs = metric_specs(d, 0.05, None)
    budget = 2.0
    p = cost.plan(specs, d.n, 2000, True, False, budget)
    firsts = {}
    for j in p.jobs.values():
        if not j.skip:
            firsts.setdefault(j.metric, j)
    out = {j.metric for j in p.jobs.values() if "went to the cheaper metrics" in j.skip}
    assert out and any("costliest metrics" in c for c in p.cuts)
    assert all(all(j.skip for j in p.jobs.values() if j.metric == m) for m in out)  # the whole metric
    # the first audits that run fit (but for the cheap ones and those of a metric without a guaranteed method,
    # which always run)
    proven = {s.metric for s in specs if any(cost._guaranteed(q) for _, _, q in s.methods)}
    kept = sum(j.seconds for m, j in firsts.items() if j.seconds > cost.CHEAP and m in proven)
    assert p.fixed + kept <= cost.SLACK * budget + 1e-9 or kept == 0
    # a left-out metric's first would not have fitted beside the ones kept
    assert all(p.fixed + kept + min(j.seconds for j in p.jobs.values() if j.metric == m) > cost.SLACK * budget
               for m in out)
    assert not {s.metric for s in specs if s.design == "binomial"} & out
    assert cost.plan(specs, d.n, 2000, True, False, math.inf).jobs and not any(
        j.skip for j in cost.plan(specs, d.n, 2000, True, False, math.inf).jobs.values())


def test_a_heavy_audit_runs_at_its_deepest_cuts():
    """An audit heavier than a metric's share even at the deepest cuts runs only as its metric's first, and then at
    those cuts (MIN_REPS test sets a point, MIN_WORK outcome operations): it was run uncut."""
    from covstudy.evaluation.data import prepare
    from covstudy.evaluation.metrics import metric_specs

    d = prepare(TRUTH, PREDICTED, SCORES, None, np.roll(PREDICTED, 3), None, None, None, None, 100, 10**7)
    p = cost.plan(metric_specs(d, 0.05, None), d.n, 2000, True, False, 4.0)
    heavy = [j for j in p.jobs.values() if j.heavy and not j.skip]
    assert heavy and all(j.reps == cost.MIN_REPS for j in heavy)
    assert all(j.work is None or j.work <= cost.MIN_WORK for j in heavy)


def test_an_audit_the_design_cannot_simulate_says_so_in_its_row(monkeypatch):
    """judge at 10⁶ rows was a traceback (the judged design refuses (labelled + 1)³(examples + 1) > 2^62 before any
    work): the refusal is the row's note, the other audits run, nothing is cached for it."""
    real = result_module.audit_metric

    def refusing(s, method, qualified, *a, **k):
        if s.metric == "precision":
            raise ValueError("examples, labelled: the judged design needs (labelled + 1)³(examples + 1) <= 2^62")
        return real(s, method, qualified, *a, **k)

    monkeypatch.setattr(result_module, "audit_metric", refusing)
    ev = covstudy.evaluate(**SMALL)
    notes = ev.table[ev.table.metric == "precision"].note.fillna("")
    assert notes.str.startswith("not audited: examples, labelled").any()
    assert ev.table[ev.table.metric == "accuracy"].coverage_at_estimate.notna().any()
    assert not any("examples, labelled" in e.read_text() for e in cache.folder().glob("*.json"))
