"""The recommendation: per metric, which audited method to use, and why in words.

Input: the audited table (one row per metric × method, the audit's columns from ``audit``, and ``guaranteed``:
the method registry's flag, coverage >= 1 - delta for every parameter value by proof) and the metric specs (for
the region and operating point in words); output: the ``meets_target``, ``recommended``, ``narrower`` and
``worst_is_upper_bound`` columns and a reason per metric. Each row's worst coverage is judged against the floor
1 - delta - EPSILON (``meets``):

* ``certified``: the certified lower bound of the worst coverage (``worst_bound``) is at least the floor;
* ``guaranteed``: a guaranteed method (the registry's ``guaranteed=True``) whose audit does not contradict its
  proof (neither certified nor ``no``): it meets the target by construction, audited or not (``evaluate`` never
  audits it, nor a row at least as wide on the data: ``audit_order``);
* ``estimated``: the worst was found by a search, not certified (Monte Carlo: its lower limit
  ``worst_coverage - Z_MCSE·worst_mcse`` is at least the floor, Z_MCSE = 2, so a noisier audit needs a larger
  margin, never a smaller one; exact: at least the floor);
* ``undecided``: Monte Carlo, worst ± Z_MCSE·MCSE straddles the floor after the audit spent its budget of test
  sets drawn at the worst point (``audit.decide``); its note gives the margin; not recommended;
* ``no``: below the floor (Monte Carlo: worst + Z_MCSE·MCSE below it; certified rows: a point was found below it);
* empty: not audited.

The narrowest row that meets the target (expected width at the plug-in point; a row not audited, its width on the
data) is recommended, a bootstrap only if more than TIE narrower than every other such row; with ``guarantee``
only rows whose certified bound is at least 1 - delta, or guaranteed rows, count. A guaranteed row therefore ends
every metric that has one with a row that meets the target. When it is more than PRICE times as wide as the
narrowest approximate row, that row and its audited worst are shown beside it (``narrower``: the price of the
guarantee). When no row qualifies, the guaranteed method of the kind is recommended (GUARANTEED, else the
narrowest guaranteed row: without an audit, or when the audit contradicts every guarantee), else the row with the
highest worst coverage (a resampling method only if no other row was audited), and its ``meets_target`` says
whether it meets the target: every output flags a recommended row that does not, and shows a failing row's worst
as an upper bound (``≤``) wherever it is not the exact infimum (``upper_bound``: ``worst_is_upper_bound``).
Flow: audit -> recommend -> growth (widens the recommended rows) -> render; reads only ``audit``'s constants.
"""

from __future__ import annotations

import numpy as np

from .audit import BOOTSTRAP, EPSILON, Z_MCSE

TIE = 0.01  # a bootstrap is recommended only if >1% narrower (expected width) than every other qualifying method
PRICE = 1.5  # a guaranteed pick this many times as wide as the narrowest approximate row shows that row beside it
GUARANTEED = {"proportion": "clopper_pearson", "two_class": "cp_union", "classes": "union_cp",
              "paired": "exact_mcnemar", "difference": "melded",
              "scores": "chernoff_hoeffding", "paired_scores": "chernoff_hoeffding", "paired_confusion": "cp_box",
              "unpaired_confusion": "cp_box", "judged": "cp_box"}  # the kind's preferred guaranteed method
MET = ("certified", "guaranteed", "estimated")  # the verdicts that meet the target


def audited_verdict(row, floor) -> str:
    """``certified``, ``estimated``, ``undecided``, ``no``, or "" (not audited), from the audit's columns alone."""
    worst = row.get("worst_coverage", np.nan)
    if worst is None or worst != worst:
        return ""
    bound = row.get("worst_bound", np.nan)
    if bound == bound and bound is not None:
        if bound >= floor:
            return "certified"
        return "no" if worst < floor else "estimated"
    mcse = row.get("worst_mcse", 0.0)
    mcse = 0.0 if mcse is None or mcse != mcse else mcse
    if worst - Z_MCSE * mcse >= floor:
        return "estimated"
    if mcse == 0:
        return "no" if worst < floor else "estimated"
    return "no" if worst + Z_MCSE * mcse < floor else "undecided"


def meets(row, floor) -> str:
    """``certified``, ``guaranteed``, ``estimated``, ``undecided``, ``no``, or "" (not audited): the module
    docstring's rule. A guaranteed row (``row["guaranteed"]``) meets the target by proof unless its audit
    certifies it (``certified``, the stronger statement with a number) or decides it below (``no``: the audited
    model is not the one the proof assumes)."""
    verdict = audited_verdict(row, floor)
    guaranteed = row.get("guaranteed", False)
    if isinstance(guaranteed, (bool, np.bool_)) and guaranteed:
        return verdict if verdict in ("certified", "no") else "guaranteed"
    return verdict


def upper_bound(row) -> bool:
    """Whether a failing row's worst is only an upper bound of the infimum of its coverage over the region: every
    ``no`` row but the exact infima (one proportion: ``worst_bound`` equal to the worst). A certified audit stops at
    the first exact point below the floor (the decision, not the lowest point), a search never sees every point,
    and a Monte Carlo worst estimates the coverage at one point of the region, which the infimum cannot exceed."""
    if row.get("meets_target") != "no":
        return False
    bound, worst = row.get("worst_bound", np.nan), row.get("worst_coverage", np.nan)
    return not (bound is not None and bound == bound and bound == worst)


def mark(table, specs, level, audited, guarantee=False) -> dict:
    """Set ``table.meets_target``, ``worst_is_upper_bound``, ``recommended`` (each metric's pick) and ``narrower``
    (``price``) and return {metric: reason}."""
    floor = level - EPSILON
    if "guaranteed" not in table:
        table["guaranteed"] = False
    table["guaranteed"] = table["guaranteed"].fillna(False).astype(bool)
    table["meets_target"] = [meets(r, floor) if audited else "" for r in table.to_dict("records")]
    table["worst_is_upper_bound"] = [upper_bound(r) for r in table.to_dict("records")]
    table["recommended"] = False
    table["narrower"] = ""
    reasons = {}
    for s in specs:
        sel = table.index[table.metric == s.metric]
        pick, why = recommend(table.loc[sel], level, audited, s, guarantee)
        if pick is not None:
            table.loc[pick, "recommended"] = True
            table.loc[pick, "narrower"] = price(table.loc[sel], pick)
        reasons[s.metric] = why
    return reasons


def qualifying(rows, level, guarantee=False):
    """The rows that meet the target (``MET``; with ``guarantee`` a certified bound of at least 1 - delta, or a
    guaranteed row), narrowest first: by expected width, a row not audited by its width on the data."""
    if guarantee:
        ok = rows[((rows.meets_target == "certified") & (rows.worst_bound >= level))
                  | (rows.meets_target == "guaranteed")
                  | (rows.get("guaranteed", False) & (rows.meets_target == "certified"))]
    else:
        ok = rows[rows.meets_target.isin(MET)]
    width = ok.mean_width.where(ok.mean_width.notna(), ok.width)
    return ok.assign(_by=width).sort_values(["_by", "width"], kind="stable").drop(columns="_by")


def price(rows, pick) -> str:
    """The price of a guaranteed pick: the narrowest approximate (not guaranteed) audited row, in words with its
    audited worst, when the pick is more than PRICE times as wide on the data; else ""."""
    r = rows.loc[pick]
    if not r.get("guaranteed", False) or not r.width == r.width:
        return ""
    other = rows[~rows.guaranteed.astype(bool) & rows.worst_coverage.notna() & rows.width.notna()]
    if not len(other):
        return ""
    o = other.loc[other.width.idxmin()]
    if r.width <= PRICE * o.width:
        return ""
    cover = (f"at most {o.worst_coverage:.4f}" if o.get("worst_is_upper_bound", False)
             else f"{o.worst_coverage:.4f} at worst")
    from .answer import number  # a true minus sign, as the sentences print a difference

    return f"{o.method} [{number(o.lower, 4)}, {number(o.upper, 4)}] covers {cover} under the fitted model"


def recommend(rows, level, audited, s, guarantee=False):
    """The narrowest row that meets the target (certified at 1 - delta, or guaranteed, with ``guarantee``), else
    the guaranteed method of the kind, else the row with the highest worst coverage."""
    floor = level - EPSILON
    ok = qualifying(rows, level, guarantee) if audited else rows.iloc[:0]
    where = f"worst coverage {s.region_text}" if s.region_text else "coverage at the operating point"
    if len(ok):
        best = ok.index[0]
        plain = ok[~ok.method.isin(BOOTSTRAP)]
        if best not in plain.index and len(plain) and plain.mean_width.iloc[0] <= (1 + TIE) * ok.mean_width.iloc[0]:
            best = plain.index[0]  # a resampling interval changes with the seed: only for a real gain in width
        r = rows.loc[best]
        if r.meets_target == "guaranteed":
            width = (f"expected width {r.mean_width:.4f}" if r.mean_width == r.mean_width
                     else f"width {r.width:.4f} on your data")
            audit = ("" if r.worst_coverage != r.worst_coverage else
                     f"; its audit found {r.worst_coverage:.4f}"
                     + (f" ± {r.worst_mcse:.3f} (Monte Carlo)" if r.engine == "mc" else "")
                     + (f" at {r.worst_at}" if r.worst_at else ""))
            return best, (f"{r.method} is the narrowest method ({width}) that meets the target: a guaranteed method, "
                          f"its coverage is at least {level:g} for every parameter value by construction{audit}; "
                          f"{_failing(rows, r, floor)}operating point: {s.plug_in}.")
        if r.meets_target == "certified":
            how = (f"is certified to be at least {r.worst_bound:.4f} (lowest found {r.worst_coverage:.4f}"
                   f"{f' at {r.worst_at}' if r.worst_at else ''})")
        elif r.engine == "mc":
            how = (f", {r.worst_coverage:.4f} ± {r.worst_mcse:.3f} (Monte Carlo, {int(r.reps)} test sets at its "
                   f"point; estimated, not certified), less {Z_MCSE:g} MCSE is at least")
        else:
            how = f", {r.worst_coverage:.4f} (searched on exact coverage, not certified), is at least"
        target = f"{level:g}" if guarantee else f"{floor:.3f}"
        tail = f" ≥ {target}" if r.meets_target == "certified" else f" {target}"
        return best, (f"{r.method} is the narrowest method (expected width {r.mean_width:.4f}) whose {where}"
                      f"{' ' if r.meets_target == 'certified' else ''}{how}{tail}; {_failing(rows, r, floor)}"
                      f"operating point: {s.plug_in}.")
    need = (f"a certified worst coverage of at least {level:g}" if guarantee
            else f"a worst coverage of at least {floor:.3f}")
    why = f"no method was shown to have {need}" if audited else "no audit was run"
    hit = _guaranteed_fallback(rows)
    if hit is not None:
        r = rows.loc[hit]
        flag = ("" if not audited or r.meets_target in MET
                else f" Its own audited worst coverage, {_worst(r)}, is below {floor:.3f}: the audited model is not "
                     f"the one its guarantee assumes; treat it with care.")
        return hit, f"{r.method} is the guaranteed (conservative) method of this kind, recommended because {why}.{flag}"
    if audited and rows.worst_coverage.notna().any():
        # a resampling method's audit is budgeted (fewer points searched): it does not win a comparison of worsts
        plain = rows[~rows.method.isin(BOOTSTRAP) & rows.worst_coverage.notna()]
        best = (plain if len(plain) else rows).worst_coverage.idxmax()
        return best, (f"{rows.loc[best, 'method']} has the highest worst coverage "
                      f"({_worst(rows.loc[best])}), but {why}: BELOW TARGET, treat it with care.")
    return None, "not audited: no recommendation."


def audit_order(rows, audit_all=False) -> tuple[list, dict]:
    """Which of one metric's rows to audit and in which order, decided from the intervals on the data alone:
    (the candidates' positions, narrowest first; {position: why a row is not audited}).

    ``rows``: dicts with ``method``, ``width`` (on the data) and ``guaranteed``. A guaranteed row meets the
    target by proof, so no audit could change what it says: it is never audited (no note: its ``meets_target``
    says ``guaranteed``). Nor, unless ``audit_all``, is a row at least as wide on the data as the narrowest
    guaranteed row (a resampling one unless more than TIE narrower, the rule's price of a seed-dependent
    interval): the guaranteed row would be recommended before it. The rest are the candidates, the plain ones
    narrowest first, then the resampling ones; ``_audit_rows`` stops at the first that meets the target.
    ``audit_all``: every row not guaranteed, in order."""
    if audit_all:
        return [i for i, r in enumerate(rows) if not r.get("guaranteed")], {}
    proven = [(r["width"], r["method"]) for r in rows if r.get("guaranteed") and r["width"] == r["width"]]
    bar, by = min(proven) if proven else (np.inf, "")
    order, skip = [], {}
    for i, r in enumerate(rows):
        resampling = r["method"] in BOOTSTRAP
        if r.get("guaranteed"):
            continue
        if r["width"] >= bar and not resampling:
            skip[i] = (f"not audited: at least as wide on your data as {by}, which meets the target by proof "
                       f"(--audit-all)")
        elif resampling and r["width"] * (1 + TIE) >= bar:
            skip[i] = (f"not audited: less than {TIE:.0%} narrower on your data than {by}, which meets the target by "
                       f"proof; a resampling method is recommended only for a larger gain (--audit-all)")
        else:
            order.append(i)
    order.sort(key=lambda i: (rows[i]["method"] in BOOTSTRAP, np.isnan(rows[i]["width"]), rows[i]["width"]))
    return order, skip


def _worst(r) -> str:
    """A row's worst coverage in words: ``≤`` where it is an upper bound, ``± MCSE`` where Monte Carlo."""
    at_most = "≤ " if r.get("worst_is_upper_bound", False) else ""
    noise = f" ± {r.worst_mcse:.3f}" if r.get("engine") == "mc" and r.worst_mcse == r.worst_mcse else ""
    return f"{at_most}{r.worst_coverage:.4f}{noise}"


def _failing(rows, pick, floor) -> str:
    """The narrower rows that did not meet the target, the narrowest first, with their numbers: why the pick is not
    narrower ("" when none)."""
    narrower = rows[(rows.width < pick.width) & rows.worst_coverage.notna() & ~rows.meets_target.isin(MET)]
    if not len(narrower):
        return ""
    narrower = narrower.sort_values("width", kind="stable")

    def said_of(r):  # an undecided row's note gives its margin (a row without one has NaN there)
        note = r.get("note")
        return note if r.meets_target == "undecided" and isinstance(note, str) and note else r.meets_target
    said = ", ".join(f"{r.method} {_worst(r)} ({said_of(r)})" for _, r in narrower.iterrows())
    return f"narrower methods fall short of {floor:.3f}: {said}; "


def _guaranteed_fallback(rows):
    """The kind's preferred guaranteed method (GUARANTEED), else the narrowest guaranteed row (the registry's flag),
    else None."""
    for kind in dict.fromkeys(rows.kind.tolist()):
        hit = rows.index[(rows.method == GUARANTEED.get(kind)) & (rows.kind == kind)]
        if len(hit):
            return hit[0]
    flagged = rows[rows.get("guaranteed", False) & rows.width.notna()] if "guaranteed" in rows else rows.iloc[:0]
    return flagged.width.idxmin() if len(flagged) else None
