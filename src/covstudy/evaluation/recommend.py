"""The recommendation: per metric, which audited method to use, and why in words.

Input: the audited table (one row per metric × method, the audit's columns from ``audit``) and the
metric specs (for the region and operating point in words); output: the ``recommended`` column and a
reason per metric. The rule: the narrowest method (expected width at the plug-in point) whose worst
coverage is at least 1 - delta - EPSILON (less Z_MCSE MCSE for Monte Carlo), a bootstrap only if more
than TIE narrower than every other qualifying method, else the guaranteed method of that kind. Flow:
audit -> recommend -> growth (widens the recommended rows) -> render; reads only ``audit``'s constants.
"""

from __future__ import annotations

from .audit import BOOTSTRAP

EPSILON = 0.005  # tolerance of the recommendation: worst coverage >= 1 - delta - EPSILON
TIE = 0.01  # a bootstrap is recommended only if >1% narrower (expected width) than every other qualifying method
Z_MCSE = 1  # a Monte Carlo row qualifies unless its worst coverage is below the floor by more than Z_MCSE MCSE
GUARANTEED = {"proportion": "clopper_pearson", "two_class": "cp_union", "classes": "union_cp",
              "paired": "exact_mcnemar", "difference": "melded"}  # never below 1 - delta


def mark(table, specs, level, audited) -> dict:
    """Set ``table.recommended`` (False, then True on each metric's pick) and return {metric: reason}."""
    table["recommended"] = False
    reasons = {}
    for s in specs:
        sel = table.index[table.metric == s.metric]
        pick, why = recommend(table.loc[sel], level, audited, s)
        if pick is not None:
            table.loc[pick, "recommended"] = True
        reasons[s.metric] = why
    return reasons


def recommend(rows, level, audited, s):
    """The narrowest method whose worst coverage >= level - EPSILON (less Z_MCSE MCSE for a Monte
    Carlo row: not shown to fall short), else the guaranteed one."""
    floor = level - EPSILON
    ok = (rows[rows.worst_coverage + Z_MCSE * rows.worst_mcse.fillna(0) >= floor] if audited
          else rows.iloc[:0])
    if len(ok):
        ok = ok.sort_values(["mean_width", "width"])
        best = ok.index[0]
        plain = ok[~ok.method.isin(BOOTSTRAP)]
        if best not in plain.index and len(plain) and plain.mean_width.iloc[0] <= (1 + TIE) * ok.mean_width.iloc[0]:
            best = plain.index[0]  # a resampling interval changes with the seed: only for a real gain in width
        r = rows.loc[best]
        mc = f" ± {r.worst_mcse:.3f} (Monte Carlo, {int(r.reps)} test sets a point)" if r.engine == "mc" else " (exact)"
        where = f"worst coverage {s.region_text}" if s.region_text else "coverage at the operating point"
        short = (f", within {Z_MCSE} MCSE of" if r.worst_coverage < floor else ", is at least")
        return best, (f"{r.method} is the narrowest method (expected width {r.mean_width:.4f}) whose {where}, "
                      f"{r.worst_coverage:.4f}{mc}{short} {floor:.3f}; operating point: {s.plug_in}.")
    kinds = rows.kind.tolist()
    for kind in dict.fromkeys(kinds):
        g = GUARANTEED.get(kind)
        hit = rows.index[(rows.method == g) & (rows.kind == kind)]
        if len(hit):
            why = ("no method's worst coverage reached " f"{floor:.3f}" if audited else "no audit was run")
            return hit[0], f"{g} is the guaranteed (conservative) method of this kind, recommended because {why}."
    if audited and rows.worst_coverage.notna().any():
        best = rows.worst_coverage.idxmax()
        return best, (f"{rows.loc[best, 'method']} has the highest worst coverage "
                      f"({rows.loc[best, 'worst_coverage']:.4f}), below {floor:.3f}: treat it with care.")
    return None, "not audited: no recommendation."

