"""The answer in words: what ``covstudy-evaluate`` prints by default, and what every report opens with.

Reads an evaluation's recommended rows (``recommend``'s pick per metric) and computes nothing new:

* ``verdicts``: per metric (not a comparison) its estimate, recommended interval and method, whether it meets
  the target in words (``says``), and the price of a guaranteed pick (``recommend``'s ``narrower`` column);
* ``sentences``: one sentence per comparison of two models, from the recommended row of each ``<metric>_difference``
  (first minus second): "A is better than B on recall: difference 0.047, 95% interval [0.012, 0.081]" when the
  interval excludes 0 (the better model named first, the difference signed to it), else "No difference shown on
  accuracy: ..."; the posterior probability that the first model is the more accurate; the judged rate;
* ``screen``: both as one screen of text (the CLI's default; ``--table`` prints every method's row instead);
* ``Words``: these as an ``Evaluation``'s properties (``answer``, ``verdicts``, ``comparing``) and its Jupyter view;
* ``leaderboard_sentences``: for k models, which are shown better than which, from the recommended family of
  pairwise intervals (``leaderboard_family``).

A claim ("A is better than B") needs an interval that excludes 0; a row that was not shown to meet the target
says so in its sentence. Flow: recommend -> render (and report.evaluation_page, via ``Evaluation.answer``).
"""

from __future__ import annotations

import numpy as np

DIFFERENCE = "_difference"
SUPERIORITY = "superiority_probability"
JUDGED = "judged_rate"
NAMES = {"auc": "AUC", "f1": "F1", "npv": "NPV", "ece": "ECE"}  # a metric's words where not its name's
CAVEAT = "i.i.d."  # a recommended row's note the answer repeats: the row ignores the groups (result.IID_NOTE)
SAYS = {"certified": "yes, certified", "guaranteed": "yes, guaranteed by proof", "estimated": "yes, estimated",
        "undecided": "undecided", "no": "NO: below target", "": "not audited"}  # meets_target in the answer


def words(metric: str) -> str:
    """A metric's name in words: ``balanced_accuracy`` -> "balanced accuracy", ``auc`` -> "AUC"."""
    return " ".join(NAMES.get(w, w) for w in metric.split("_"))


def number(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` decimals with a true minus sign (−0.005), as the sentences print it."""
    s = f"{x:.{digits}f}"
    return ("−" + s[1:]) if s.startswith("-") and float(s) != 0 else s.lstrip("-")


def percent(level: float) -> str:
    """A level as the sentences write it: 0.95 -> "95%", 0.999 -> "99.9%"."""
    return f"{level * 100:.10g}%"


def says(row) -> str:
    """Whether a recommended row meets the target, in the words of ``SAYS``; a guaranteed method without an
    audit meets it by proof."""
    verdict = row.get("meets_target", "")
    verdict = "" if verdict is None or verdict != verdict else str(verdict)
    if verdict == "" and _true(row.get("guaranteed")):
        return SAYS["guaranteed"]
    return SAYS.get(verdict, verdict)


def verdicts(ev) -> list[dict]:
    """Per metric that is not a comparison (nor the judged rate, which has its sentence): ``metric``, ``estimate``,
    ``interval`` (text), ``method``, ``meets`` (``says``), ``price`` (the narrower row's line, or "") and ``caveat``
    (an i.i.d. row beside clustered ones says it ignores the groups, or "")."""
    out = []
    for r in ev.recommended.to_dict("records"):
        m = r["metric"]
        if m.endswith(DIFFERENCE) or m in (SUPERIORITY, JUDGED):
            continue
        undefined = r["lower"] != r["lower"]
        out.append(dict(metric=m, estimate="" if r["estimate"] != r["estimate"] else f"{r['estimate']:.4f}",
                        interval="" if undefined else f"[{r['lower']:.4f}, {r['upper']:.4f}]",
                        method="" if r["method"] == "—" else r["method"],
                        meets=(_text(r, "note") or "no interval") if undefined else says(r),
                        price=_text(r, "narrower"),
                        caveat=_text(r, "note") if _text(r, "note").startswith(CAVEAT) else ""))
    return out


def models(info) -> tuple[str, str]:
    """The two models' names: their predicted-label columns (else their score columns), else "the first model" /
    "the second model" (unnamed arrays keep the argument's name, which names no model)."""
    names = info.get("columns") or {}
    first = names.get("predicted", names.get("scores"))
    second = names.get("second_predicted", names.get("second_scores"))
    if first in (None, "predicted", "scores") or second in (None, "second_predicted", "second_scores"):
        return "the first model", "the second model"
    return str(first), str(second)


def comparison(metric: str, estimate: float, lower: float, upper: float, first: str, second: str, level: float,
               method: str = "", meets: str = "") -> str:
    """One sentence on ``first`` minus ``second`` on ``metric`` (``lower``, ``upper``: its interval at ``level``):
    a claim only where the interval excludes 0, the better model named first and the numbers signed to it; the
    method and ``meets`` (``says``) in parentheses, with a caution where the row was not shown to meet the target."""
    pct = percent(level)
    if lower > 0 or upper < 0:
        if upper < 0:  # the second is better: its difference is minus ours, the interval reversed
            first, second, estimate, lower, upper = second, first, -estimate, -upper, -lower
        head = f"{_capital(first)} is better than {second} on {words(metric)}"
    else:
        head = f"No difference shown on {words(metric)}"
    tag = ", ".join(t for t in (method, meets.removeprefix("yes, ")) if t)
    if meets and not meets.startswith("yes"):
        tag += ": not shown to meet the target, treat it with care"
    return (f"{head}: difference {number(estimate)}, {pct} interval [{number(lower)}, {number(upper)}]"
            + (f" ({tag})" if tag else ""))


def sentences(ev) -> list[str]:
    """One sentence per comparison (each ``<metric>_difference``'s recommended row, first minus second; a guaranteed
    pick's price after it), the probability that the first model is the more accurate, and the judged rate; []
    when there is none."""
    return [said + (f"; narrower: {price}" if price else "") for said, price in _sentences(ev)]


def _sentences(ev) -> list[tuple[str, str]]:
    """(sentence, price) of ``sentences``: the price is a guaranteed pick's ``narrower`` line, or ""."""
    level = 1 - ev.info["delta"]
    first, second = models(ev.info)
    out = []
    for r in ev.recommended.to_dict("records"):
        m = r["metric"]
        if m.endswith(DIFFERENCE):
            what = m.removesuffix(DIFFERENCE)
            if r["lower"] != r["lower"]:
                out.append((f"No interval for the difference in {words(what)}: {_text(r, 'note') or 'undefined'}", ""))
                continue
            out.append((comparison(what, r["estimate"], r["lower"], r["upper"], first, second, level, r["method"],
                                   says(r)), _text(r, "narrower")))
        elif m == SUPERIORITY:
            out.append((f"P({first} is more accurate than {second} | the data) = {r['estimate']:.3f} (Bayes, a "
                        f"uniform prior on the four paired cells)", ""))
        elif m == JUDGED:
            out.append((judged_sentence(r, ev.info, level), ""))
    return out


def judged_sentence(r, info, level) -> str:
    """The judged rate in one sentence: the positive class's rate over every row, labelled or judged."""
    pct = percent(level)
    j = info.get("judged") or {}
    rows = (f" over all {j['examples']:,} rows ({j['labelled']:,} labelled by humans, {j['examples'] - j['labelled']:,}"
            f" by the judge alone)") if j else ""
    positive = info.get("positive")
    what = f"Judged rate: the rate of {positive!r}" if positive is not None else "Judged rate: the positive rate"
    if r["lower"] != r["lower"]:
        return f"{what}{rows}: no interval ({_text(r, 'note') or 'undefined'})"
    return (f"{what}{rows} is {number(r['estimate'])}, {pct} interval [{number(r['lower'])}, {number(r['upper'])}] "
            f"({r['method']}; meets the target: {says(r)})")


def intro(ev) -> str:
    """The line before the comparisons' sentences: which model is subtracted from which ("" : no comparison)."""
    if not any(m.endswith(DIFFERENCE) for m in ev.recommended.metric):
        return ""
    first, second = models(ev.info)
    return (f"Comparisons ({first} − {second} on the same {ev.info['n']:,} examples; a model is better only where "
            f"the interval excludes 0):")


def screen(ev) -> str:
    """The default terminal output: the recommended interval of each metric and whether it meets the target (a
    guaranteed pick's price on the line below it), then the comparisons' sentences."""
    level = 1 - ev.info["delta"]
    rows = verdicts(ev)
    lines = []
    if rows:
        head = ["metric", "estimate", f"{percent(level)} interval", "method", "meets the target?"]
        cells = [head] + [[r["metric"], r["estimate"], r["interval"], r["method"], r["meets"]] for r in rows]
        widths = [max(len(c[i]) for c in cells) for i in range(len(head))]

        def line(c):
            return "  ".join(v.rjust(w) if i == 1 else v.ljust(w) for i, (v, w) in enumerate(zip(c, widths))).rstrip()

        audited = ev.table["meets_target"].fillna("").astype(str).ne("").any() if "meets_target" in ev.table else False
        floor = level - ev.info["epsilon"]
        lines.append(f"Recommended intervals (per metric the narrowest method that meets the target, coverage ≥ "
                     f"{floor:g} over the region, else one guaranteed by proof):" if audited else
                     "Recommended intervals (no audit: per metric a method guaranteed by proof where it has one, else its "
                     "kind's default; an audit checks them):")
        lines.append(line(head))
        for r, c in zip(rows, cells[1:]):
            lines.append(line(c))
            for extra in (f"narrower: {r['price']}" if r["price"] else "", r["caveat"]):
                if extra:
                    lines.append(" " * (widths[0] + 2) + extra)
    said = _sentences(ev)
    if said:
        lines += ["", intro(ev)] if intro(ev) else [""]
        for sentence, price in said:
            lines.append(f"- {sentence}.")
            if price:
                lines.append(f"  narrower: {price}")
    return "\n".join(lines)


class Words:
    """An evaluation's answer in words, mixed into ``result.Evaluation`` (which gives ``table``, ``info``,
    ``recommended``): what its reports and Jupyter show first."""

    @property
    def answer(self) -> list:
        """One sentence per comparison of two models (``<metric>_difference``: "A is better than B on recall:
        difference 0.047, 95% interval [0.012, 0.081]", or "No difference shown on ..."), the probability that the
        first is the more accurate, the judged rate (``sentences``)."""
        return sentences(self)

    @property
    def comparing(self) -> str:
        """The line before the comparisons' sentences: which model is subtracted from which ("": none)."""
        return intro(self)

    @property
    def verdicts(self) -> list:
        """Per metric that is not a comparison: its recommended interval and whether it meets the target in words
        (dicts: metric, estimate, interval, method, meets, price, caveat; ``verdicts``)."""
        return verdicts(self)

    def _repr_html_(self):
        """Jupyter's view: the answer (each metric's recommended interval and verdict, the comparisons' sentences)
        first, then the legend and every method's row, folded (``report.evaluation_page.notebook``)."""
        from ..report.evaluation_page import notebook

        return notebook(self)


def leaderboard_family(board, epsilon: float | None = None) -> dict:
    """The recommended family of a leaderboard's pairwise intervals: max-t where its plug-in audit shows its
    coverage meets the target (the lower limit, coverage − Z_MCSE·MCSE, at least 1 − δ − ε, as ``recommend``
    judges a Monte Carlo row), else the guaranteed family (exact McNemar-compatible intervals at δ/P, coverage at
    least 1 − δ by proof). {name, lower, upper, rank_low, rank_high, why}."""
    from .audit import EPSILON, Z_MCSE

    eps = EPSILON if epsilon is None else epsilon
    floor = 1 - board.delta - eps
    a = board.audit
    p, m = board.pairs, board.models
    if a and a["family_coverage"] - Z_MCSE * a["family_coverage_mcse"] >= floor:
        return dict(name="max_t", lower=p.lower.to_numpy(), upper=p.upper.to_numpy(), rank_low=m.rank_low.to_numpy(),
                    rank_high=m.rank_high.to_numpy(),
                    why=(f"simultaneous max-t intervals: their plug-in audit covered {a['family_coverage']:.3f} ± "
                         f"{a['family_coverage_mcse']:.3f}, which meets the target {floor:.3f} (estimated)"))
    why = ("no audit was run" if not a else
           f"the max-t intervals' plug-in audit ({a['family_coverage']:.3f} ± {a['family_coverage_mcse']:.3f}) was "
           f"not shown to meet {floor:.3f}")
    return dict(name="guaranteed", lower=p.guaranteed_lower.to_numpy(), upper=p.guaranteed_upper.to_numpy(),
                rank_low=m.guaranteed_rank_low.to_numpy(), rank_high=m.guaranteed_rank_high.to_numpy(),
                why=f"the guaranteed intervals (coverage ≥ {1 - board.delta:g} by proof), because {why}")


SHOWN_PAIRS = 6  # the unordered pairs a leaderboard's answer names before it counts the rest


def leaderboard_sentences(board) -> list[str]:
    """Which models are shown better than which: "A is better than C and D", then the pairs with no order
    shown, from the recommended family (``leaderboard_family``), every pairwise interval at once."""
    fam = leaderboard_family(board)
    p = board.pairs
    beats: dict = {}
    unordered = []
    for first, second, lo, hi in zip(p["first"], p["second"], fam["lower"], fam["upper"]):
        if lo > 0:
            beats.setdefault(first, []).append(second)
        elif hi < 0:
            beats.setdefault(second, []).append(first)
        else:
            unordered.append((first, second))
    order = list(board.models.model)  # by accuracy, best first
    out = [f"{_capital(str(w))} is better than {_and(sorted(beats[w], key=order.index))}"
           for w in order if w in beats]
    if not beats:
        out.append(f"No model is shown better than another ({len(p)} pair{'s' * (len(p) != 1)})")
    elif unordered:
        named = [f"{a} and {b}" for a, b in unordered[:SHOWN_PAIRS]]
        more = len(unordered) - len(named)
        out.append("No order shown between " + "; ".join(named)
                   + (f"; and {more} more pair{'s' * (more != 1)} (--table: every pair)" if more else ""))
    return out


def leaderboard_screen(board) -> str:
    """A leaderboard's default output: each model's accuracy, interval and rank set, the answer's sentences, and
    which family of intervals they come from."""
    fam = leaderboard_family(board)
    m = board.models
    lines = [f"{'model':<20} {'accuracy':>8}  {f'{percent(1 - board.delta)} interval':<17} ranks"]
    for r, lo, hi in zip(m.itertuples(), fam["rank_low"], fam["rank_high"]):
        ranks = str(lo) if lo == hi else f"{lo}-{hi}"
        lines.append(f"{str(r.model):<20} {r.accuracy:8.4f}  [{r.lower:.4f}, {r.upper:.4f}]  {ranks}")
    lines += ["", f"From {fam['why']}:"] + [f"- {s}." for s in leaderboard_sentences(board)]
    return "\n".join(lines)


def _and(names) -> str:
    names = [str(n) for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _capital(s: str) -> str:
    return s[:1].upper() + s[1:] if s.startswith("the ") else s


def _text(row, column) -> str:
    """A text cell, "" where empty (None, or NaN in a table read back from table.csv)."""
    v = row.get(column)
    return "" if v is None or v != v else str(v)


def _true(v) -> bool:
    return isinstance(v, (bool, np.bool_)) and bool(v)


__all__ = ["Words", "comparison", "leaderboard_family", "leaderboard_screen", "leaderboard_sentences", "screen",
           "sentences", "verdicts", "words"]
