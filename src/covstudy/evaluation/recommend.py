"""The recommendation: per metric, which audited method to use, and why in words.

Input: the audited table (one row per metric × method, the audit's columns from ``audit``) and the
metric specs (for the region and operating point in words); output: the ``meets_target`` and
``recommended`` columns and a reason per metric. Each row's worst coverage is judged against the floor
1 - delta - EPSILON (``meets``):

* ``certified``: the certified lower bound of the worst coverage (``worst_bound``) is at least the floor;
* ``estimated``: the worst was found by a search, not certified (Monte Carlo: its lower confidence limit
  ``worst_coverage - Z_MCSE·worst_mcse`` is at least the floor, so a noisier audit needs a larger margin,
  never a smaller one; exact: at least the floor);
* ``undecided``: Monte Carlo, the worst above the floor but by less than Z_MCSE·MCSE (more test sets would
  decide it; a method that draws random numbers is audited within a budget, so this is its usual verdict near
  the floor); not recommended;
* ``no``: below the floor (or, certified rows, a point was found below it);
* empty: not audited.

The narrowest row that meets the target (expected width at the plug-in point) is recommended, a bootstrap
only if more than TIE narrower than every other such row; with ``guarantee`` only rows whose certified bound
is at least 1 - delta count. When no row qualifies, the guaranteed method of the kind is recommended (else
the row with the highest worst coverage, a resampling method only if no other row was audited) and its
``meets_target`` says whether it meets the target: every
output flags a recommended row that does not. Flow: audit -> recommend -> growth (widens the recommended
rows) -> render; reads only ``audit``'s constants.
"""

from __future__ import annotations

import numpy as np

from .audit import BOOTSTRAP, EPSILON, Z_MCSE

TIE = 0.01  # a bootstrap is recommended only if >1% narrower (expected width) than every other qualifying method
GUARANTEED = {"proportion": "clopper_pearson", "two_class": "cp_union", "classes": "union_cp",
              "paired": "exact_mcnemar", "difference": "melded",
              "scores": "chernoff_hoeffding", "paired_scores": "chernoff_hoeffding", "paired_confusion": "cp_box",
              "unpaired_confusion": "cp_box", "judged": "cp_box"}  # never below 1 - delta


def meets(row, floor) -> str:
    """``certified``, ``estimated``, ``undecided``, ``no``, or "" (not audited): the module docstring's rule."""
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
    return "undecided" if worst >= floor else "no"


def mark(table, specs, level, audited, guarantee=False) -> dict:
    """Set ``table.meets_target`` and ``table.recommended`` (each metric's pick) and return {metric: reason}."""
    floor = level - EPSILON
    table["meets_target"] = [meets(r, floor) for r in table.to_dict("records")]
    table["recommended"] = False
    reasons = {}
    for s in specs:
        sel = table.index[table.metric == s.metric]
        pick, why = recommend(table.loc[sel], level, audited, s, guarantee)
        if pick is not None:
            table.loc[pick, "recommended"] = True
        reasons[s.metric] = why
    return reasons


def recommend(rows, level, audited, s, guarantee=False):
    """The narrowest row that meets the target (certified at 1 - delta with ``guarantee``), else the
    guaranteed method of the kind, else the row with the highest worst coverage."""
    floor = level - EPSILON
    if not audited:
        ok = rows.iloc[:0]
    elif guarantee:
        ok = rows[(rows.meets_target == "certified") & (rows.worst_bound >= level)]
    else:
        ok = rows[rows.meets_target.isin(["certified", "estimated"])]
    if len(ok):
        ok = ok.sort_values(["mean_width", "width"])
        best = ok.index[0]
        plain = ok[~ok.method.isin(BOOTSTRAP)]
        if best not in plain.index and len(plain) and plain.mean_width.iloc[0] <= (1 + TIE) * ok.mean_width.iloc[0]:
            best = plain.index[0]  # a resampling interval changes with the seed: only for a real gain in width
        r = rows.loc[best]
        where = f"worst coverage {s.region_text}" if s.region_text else "coverage at the operating point"
        if r.meets_target == "certified":
            how = (f"is certified to be at least {r.worst_bound:.4f} (lowest found {r.worst_coverage:.4f}"
                   f"{f' at {r.worst_at}' if r.worst_at else ''})")
        elif r.engine == "mc":
            how = (f", {r.worst_coverage:.4f} ± {r.worst_mcse:.3f} (Monte Carlo, {int(r.reps)} test sets a point; "
                   f"estimated, not certified), is at least")
        else:
            how = f", {r.worst_coverage:.4f} (searched on exact coverage, not certified), is at least"
        target = f"{level:g}" if guarantee else f"{floor:.3f}"
        tail = f" ≥ {target}" if r.meets_target == "certified" else f" {target}"
        return best, (f"{r.method} is the narrowest method (expected width {r.mean_width:.4f}) whose {where}"
                      f"{' ' if r.meets_target == 'certified' else ''}{how}{tail}; operating point: {s.plug_in}.")
    need = (f"a certified worst coverage of at least {level:g}" if guarantee
            else f"a worst coverage of at least {floor:.3f}")
    why = f"no method was shown to have {need}" if audited else "no audit was run"
    for kind in dict.fromkeys(rows.kind.tolist()):
        g = GUARANTEED.get(kind)
        hit = rows.index[(rows.method == g) & (rows.kind == kind)]
        if len(hit):
            r = rows.loc[hit[0]]
            flag = ("" if not audited or r.meets_target in ("certified", "estimated")
                    else f" Its own audited worst coverage, {r.worst_coverage:.4f}, is below {floor:.3f}: treat it with care.")
            return hit[0], f"{g} is the guaranteed (conservative) method of this kind, recommended because {why}.{flag}"
    if audited and rows.worst_coverage.notna().any():
        # a resampling method's audit is budgeted (fewer points searched): it does not win a comparison of worsts
        plain = rows[~rows.method.isin(BOOTSTRAP) & rows.worst_coverage.notna()]
        best = (plain if len(plain) else rows).worst_coverage.idxmax()
        return best, (f"{rows.loc[best, 'method']} has the highest worst coverage "
                      f"({rows.loc[best, 'worst_coverage']:.4f}), but {why}: BELOW TARGET, treat it with care.")
    return None, "not audited: no recommendation."
