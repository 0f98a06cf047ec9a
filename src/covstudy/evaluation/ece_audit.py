"""The audit of ``covstudy-evaluate``'s ``calibration_ece`` rows: each ECE interval's Monte Carlo coverage at
the user's plug-in point, as ``audit`` gives the other rows theirs.

The plug-in point is the calibration design (designs/calibration.py) fitted to the user's scores and labels:

* the score law Beta(a, b) by the method of moments, a = s̄·c, b = (1 - s̄)·c with c = s̄(1 - s̄)/v - 1
  (s̄, v the scores' mean and variance);
* the true curve c(s) = expit(α + β·logit s) by maximum likelihood, the logistic recalibration of Cox
  (1958, "Two further applications of a model for binary regression"), scores clipped to [1e-6, 1 - 1e-6]
  for the logit;
* clipped to the design's axes (a, b in [0.01, 1000], β in [0.01, 20], α in [-20, 20]).

At that point the truth is the population's binned ECE over the rows' 10 equal-width bins (by quadrature),
and ``reps`` test sets of the user's n are drawn from the point's own stream. Each test set's resamples
are shared by the ECE rows (``methods.calibration.BINNED_INTERVALS``: the same intervals as the
kernels, which draw their own), at AUDIT_DRAWS resamples rather than the rows' 1,000, so the cost is
reps × AUDIT_DRAWS × n resampled examples: reps = min(ECE_REPS, ECE_BUDGET / (AUDIT_DRAWS·n)), about 2
CPU-s at 10,000 rows (150 test sets, MCSE about 0.018 at 0.95); below ECE_MIN_REPS test sets (beyond
15,000 rows) the rows are not audited and say so. No region is searched: ``worst_coverage`` stays empty,
the audit column says ``at plug-in``.
"""

from __future__ import annotations

import numpy as np

ECE_REPS = 400  # Monte Carlo test sets at the plug-in point (MCSE about 0.011 at 0.95)
ECE_MIN_REPS = 100  # fewer affordable: not audited (MCSE would pass 0.02)
AUDIT_DRAWS = 100  # bootstrap resamples of each simulated test set
ECE_BUDGET = 150_000_000  # reps × AUDIT_DRAWS × n resampled examples (about 2 CPU-s)
SCORE_CLIP = 1e-6


def fit_point(scores, labels) -> dict | None:
    """The calibration design's axes fitted to the data (module docstring), or None when the scores do not
    vary or the labels are all of one class (no curve to fit)."""
    from scipy import optimize, special

    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    mean, var = float(s.mean()), float(s.var())
    if not 0 < var < mean * (1 - mean) or y.min() == y.max():
        return None
    common = mean * (1 - mean) / var - 1
    a, b = (float(np.clip(x, 0.01, 1000.0)) for x in (mean * common, (1 - mean) * common))
    x = special.logit(np.clip(s, SCORE_CLIP, 1 - SCORE_CLIP))

    def loss(theta):  # the negative log-likelihood of y ~ Bernoulli(expit(α + β·x)), and its gradient
        eta = theta[0] + theta[1] * x
        p = special.expit(eta)
        return float(np.sum(np.logaddexp(0, eta) - y * eta)), np.array([np.sum(p - y), np.sum((p - y) * x)])

    fit = optimize.minimize(loss, np.array([0.0, 1.0]), jac=True, method="L-BFGS-B",
                            bounds=[(-20.0, 20.0), (0.01, 20.0)])
    return {"score_a": a, "score_b": b, "intercept": float(fit.x[0]), "slope": float(fit.x[1])}


def audit_rows(scores, labels, edges, delta, seed, methods=("debiased", "plugin", "clopper_pearson_sidak")) -> tuple[dict, str]:
    """({method: the audit columns}, the fitted point in words) or ({method: {"note": why not}}, "")."""
    from ..designs import calibration as design
    from ..methods import calibration as cal
    from ..seeds import stream

    n = len(scores)
    point = fit_point(scores, labels)
    reps = min(ECE_REPS, ECE_BUDGET // (AUDIT_DRAWS * n))
    if point is None or reps < ECE_MIN_REPS:
        why = ("not audited: the scores do not vary or the labels are of one class" if point is None else
               f"not audited: {ECE_MIN_REPS} simulated test sets × {AUDIT_DRAWS} resamples of {n:,} examples is "
               f"more than {ECE_BUDGET:.1e} (ece_audit.ECE_BUDGET)")
        return {m: {"note": why} for m in methods}, ""
    law = design.ScoreLaw("beta", point["score_a"], point["score_b"])
    truth = design.true_ece_binned(len(edges) - 1, "equal_width", law, point["slope"], point["intercept"])
    rng = stream(seed, evaluate="calibration audit", n=n, **point)
    s, y = design.draw_test_sets(n, reps, law, point["slope"], point["intercept"], rng)
    hits = {m: np.empty(reps, dtype=bool) for m in methods}
    widths = {m: np.empty(reps) for m in methods}
    for r in range(reps):
        observed = tuple(x[0] for x in cal.bin_stats(s[r], y[r], edges))
        resampled = cal.resampled_bin_stats(s[r], y[r], edges, AUDIT_DRAWS, rng)
        for m in methods:
            lo, hi = cal.BINNED_INTERVALS[m](observed, resampled, delta)
            hits[m][r], widths[m][r] = lo <= truth <= hi, hi - lo
    where = (f"Beta({point['score_a']:.3g}, {point['score_b']:.3g}) scores, curve expit({point['intercept']:.3g} + "
             f"{point['slope']:.3g}·logit s), true binned ECE {truth:.4f}")
    out = {}
    for m in methods:
        c = float(hits[m].mean())
        out[m] = {"coverage_at_estimate": c, "coverage_mcse": float(np.sqrt(c * (1 - c) / reps)),
                  "mean_width": float(widths[m].mean()), "engine": "mc", "reps": int(reps), "audit": "at plug-in"}
    return out, where
