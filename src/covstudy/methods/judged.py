"""Intervals for a rate p when a judge (an LLM autorater, a weak classifier) labels every example
and humans label n of them: the kind ``judged``.

A kernel takes ``(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None)``: the human-labelled 2×2 table
(tp: Y = 1 and the judge said 1; fn: Y = 1, judge 0; fp: Y = 0, judge 1; tn: Y = 0, judge 0) and
the unlabelled examples' judge labels (u_pos said 1, u_neg said 0). Notation: n = tp + fn + fp +
tn, M = u_pos + u_neg, N = n + M; ȳ = (tp + fn)/n the human rate, f̄ = (tp + fp)/n the judge's
rate on the labelled examples, ū = u_pos/M on the unlabelled, z = Φ⁻¹(1 - delta/2). Every
interval is clipped to [0, 1]; where a method's estimate is undefined it gives [0, 1].

* ``classical``: the human labels alone, ȳ ± z·sqrt(ȳ(1 - ȳ)/n) (ppi_py's ``classical_mean_ci``;
  every proportion method applies to (tp + fn, n) too);
* ``naive``: the judge's labels of all N taken as truth, (tp + fp + u_pos)/N ± z·SE;
* ``rogan_gladen``: the misclassification correction (q̂ + ŝp - 1)/(ŝe + ŝp - 1), delta method;
  ``rogan_gladen_bayes``: the same transform of independent Beta posteriors of q, se, sp;
* ``ppi`` (λ = 1) and ``ppi_plus_plus`` (power-tuned λ): prediction-powered inference;
* ``stratified_ppi``: PPI within the judge's two labels, i.e. the double-sampling estimator;
* ``bayes_joint``: the Bayesian joint model of (Y, Ŷ), conjugate in (q, PPV, FOR).

References: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), "Prediction-powered
inference", Science 382; Angelopoulos, Duchi & Zrnic (2024), "PPI++: efficient
prediction-powered inference", arXiv:2311.01453; Fisch, Maynez, Hofer, Dhingra, Globerson & Cohen
(2024), "Stratified prediction-powered inference for hybrid language model evaluation",
NeurIPS; Rogan & Gladen (1978), "Estimating prevalence from the results of a screening test",
Am. J. Epidemiol. 107; Greiner & Gardner (2000), "Epidemiologic issues in the validation of
veterinary diagnostic tests", Prev. Vet. Med. 45; Tenenbein (1970), "A double sampling scheme
for estimating from binomial data with misclassifications", JASA 65.
"""

from __future__ import annotations

import numpy as np

from .. import validate
from .binomial import _z, wald
from .f1 import row_quantiles
from .registry import draws_param, register, register_kind

CELLS = ("tp", "fn", "fp", "tn", "u_pos", "u_neg")
_BLOCK = 1 << 21  # posterior draws held at once (rows × draws)


def judged_counts(*counts) -> tuple[np.ndarray, ...]:
    """Validated counts: whole numbers >= 0 broadcasting together, n >= 1 and u_pos + u_neg >= 1."""
    arrays = [validate.counts(name, value) for name, value in zip(CELLS, counts)]
    try:
        out = np.broadcast_arrays(*arrays)
    except ValueError:
        shapes = ", ".join(f"{name} {a.shape}" for name, a in zip(CELLS, arrays))
        raise ValueError(f"tp, fn, fp, tn, u_pos and u_neg must broadcast together, got shapes {shapes}") from None
    if np.any(out[0] + out[1] + out[2] + out[3] == 0):
        raise ValueError("tp + fn + fp + tn must be >= 1 (at least one human-labelled example), got 0")
    if np.any(out[4] + out[5] == 0):
        raise ValueError("u_pos + u_neg must be >= 1 (at least one example only the judge labelled), got 0")
    return tuple(out)


def _door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for a judged outcome (intervals.py)."""
    columns = dict(zip(CELLS, judged_counts(*counts)))
    return est.bounds(m, columns, validate.delta(validate.scalar("delta", delta)), side, rng=rng, **params)


register_kind("judged", CELLS, "judged", per_test_set=True, kind="judged", prefix="judged_", route=_door,
              why_mc_only="draws from a posterior per test set")


def _floats(*counts):
    return (np.asarray(c, dtype=float) for c in counts)


def _normal(estimate, variance, delta, undefined=False):
    """estimate ± z·sqrt(variance), clipped to [0, 1]; [0, 1] where ``undefined``."""
    half = _z(delta) * np.sqrt(np.maximum(variance, 0.0))
    lower = np.where(undefined, 0.0, np.clip(estimate - half, 0.0, 1.0))
    upper = np.where(undefined, 1.0, np.clip(estimate + half, 0.0, 1.0))
    return lower, upper


@register("judged_classical", display="classical", takes="judged", family="approximate", guaranteed=False,
          random=False, reference="ppi_py classical_mean_ci (CLT on the human labels alone); Wald",
          estimate=lambda tp, fn, fp, tn, u_pos, u_neg: (tp + fn) / np.add(tp + fn + fp, tn, dtype=float))
def classical(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None):
    """Classical interval on the n human labels alone: ȳ ± z·sqrt(ȳ(1 - ȳ)/n), the Wald interval of (tp + fn, n)."""
    tp, fn, fp, tn = _floats(tp, fn, fp, tn)
    return wald(tp + fn, tp + fn + fp + tn, delta)


@register("judged_naive", display="naive (judge only)", takes="judged", family="approximate", guaranteed=False,
          random=False, reference="the judge's labels of all N as if they were true (ppi_py's imputed-only CLT interval)",
          estimate=lambda tp, fn, fp, tn, u_pos, u_neg: (tp + fp + u_pos) / np.add(tp + fn + fp + tn + u_pos, u_neg,
                                                                                   dtype=float))
def naive(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None):
    """The judge's rate on all N as truth: f̄_N ± z·sqrt(f̄_N(1 - f̄_N)/N), f̄_N = (tp + fp + u_pos)/N; biased by q - p."""
    tp, fn, fp, tn, u_pos, u_neg = _floats(tp, fn, fp, tn, u_pos, u_neg)
    return wald(tp + fp + u_pos, tp + fn + fp + tn + u_pos + u_neg, delta)


def ppi_lambda(tp, fn, fp, tn, u_pos, u_neg):
    """PPI++'s power-tuned λ (ppi_py ``_calc_lam_glm``, one coordinate, clipped to [0, 1]):
    λ = cov(Y, Ŷ)/((1 + n/M)·var(Ŷ)), cov over the labelled (ddof 0), var over all N judge labels
    (ddof 1); 0 where the judge's labels are all equal (no information in them)."""
    tp, fn, fp, tn, u_pos, u_neg = _floats(tp, fn, fp, tn, u_pos, u_neg)
    n, M = tp + fn + fp + tn, u_pos + u_neg
    total, said = n + M, tp + fp + u_pos
    cov = tp / n - (tp + fn) * (tp + fp) / (n * n)
    var = (said - said * said / total) / (total - 1)
    lam = np.where(var > 0, cov / np.where(var > 0, (1 + n / M) * var, 1.0), 0.0)
    return np.clip(lam, 0.0, 1.0)


def ppi_bounds(tp, fn, fp, tn, u_pos, u_neg, delta, lam):
    """The prediction-powered interval at λ (Angelopoulos et al. 2023; ppi_py ``ppi_mean_ci``):
    θ̂ = λ·ū + ȳ - λ·f̄ ± z·sqrt(λ²·ū(1 - ū)/M + s_r²/n), s_r² the (ddof 0) variance over the
    labelled of the rectifier Y - λ·Ŷ: [tp(1 - λ)² + fn + fp·λ²]/n - (ȳ - λ·f̄)²."""
    tp, fn, fp, tn, u_pos, u_neg = _floats(tp, fn, fp, tn, u_pos, u_neg)
    n, M = tp + fn + fp + tn, u_pos + u_neg
    u, y, f = u_pos / M, (tp + fn) / n, (tp + fp) / n
    rect = y - lam * f
    rect_var = (tp * (1 - lam) ** 2 + fn + fp * lam * lam) / n - rect * rect
    return _normal(lam * u + rect, lam * lam * u * (1 - u) / M + rect_var / n, delta)


def ppi_estimate(tp, fn, fp, tn, u_pos, u_neg, lam=None):
    """The prediction-powered estimate λ·ū + ȳ - λ·f̄ (``ppi_bounds``' centre; λ = None: PPI++'s λ̂), clipped to [0, 1]."""
    lam = ppi_lambda(tp, fn, fp, tn, u_pos, u_neg) if lam is None else lam
    tp, fn, fp, tn, u_pos, u_neg = _floats(tp, fn, fp, tn, u_pos, u_neg)
    n, M = tp + fn + fp + tn, u_pos + u_neg
    return np.clip(lam * u_pos / M + (tp + fn) / n - lam * (tp + fp) / n, 0.0, 1.0)


@register("judged_ppi", display="PPI", takes="judged", family="approximate", guaranteed=False, random=False,
          reference="Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), Science 382; ppi_py ppi_mean_ci(lam=1)",
          estimate=lambda *cells: ppi_estimate(*cells, lam=1.0))
def ppi(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None):
    """Prediction-powered interval (λ = 1): ū + (ȳ - f̄) ± z·sqrt(ū(1 - ū)/M + var(Y - Ŷ)/n)."""
    return ppi_bounds(tp, fn, fp, tn, u_pos, u_neg, delta, 1.0)


@register("judged_ppi_plus_plus", display="PPI++", takes="judged", family="approximate", guaranteed=False,
          random=False, aliases=("ppi_pp",),
          reference="Angelopoulos, Duchi & Zrnic (2024), PPI++, arXiv:2311.01453; ppi_py ppi_mean_ci(lam=None)",
          estimate=lambda *cells: ppi_estimate(*cells))
def ppi_plus_plus(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None):
    """PPI++: the prediction-powered interval at the power-tuned λ̂ (``ppi_lambda``), never wider than classical asymptotically."""
    return ppi_bounds(tp, fn, fp, tn, u_pos, u_neg, delta, ppi_lambda(tp, fn, fp, tn, u_pos, u_neg))


@register("judged_stratified_ppi", display="stratified PPI", takes="judged", family="approximate",
          guaranteed=False, random=False,
          reference="Fisch et al. (2024), Stratified PPI, NeurIPS (strata: the judge's label); Tenenbein (1970), JASA 65",
          estimate=lambda *cells: stratified_estimate(*cells))
def stratified_ppi(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None):
    """Stratified PPI with the judge's label as strata: p̂ = w·a + (1 - w)·b ± z·SE, valid under both samplings.

    w = (tp + fp + u_pos)/N the judge's rate on all N; a = tp/(tp + fp), b = fn/(fn + tn) the
    human rates among the labelled judge-positives and judge-negatives (PPI within a stratum
    where the judge's label is constant is the stratum's labelled mean, whatever λ).
    SE² = w²·a(1 - a)/n₁ + (1 - w)²·b(1 - b)/n₀ + (a - b)²·w(1 - w)/N, the last term for the
    estimated stratum weights. A stratum the judge used but no human labelled: [0, 1].
    """
    tp, fn, fp, tn, u_pos, u_neg = _floats(tp, fn, fp, tn, u_pos, u_neg)
    n1, n0 = tp + fp, fn + tn
    N = n1 + n0 + u_pos + u_neg
    w = (n1 + u_pos) / N
    a, b = tp / np.maximum(n1, 1), fn / np.maximum(n0, 1)
    undefined = ((n1 == 0) & (w > 0)) | ((n0 == 0) & (w < 1))
    var = w * w * a * (1 - a) / np.maximum(n1, 1) + (1 - w) ** 2 * b * (1 - b) / np.maximum(n0, 1) \
        + (a - b) ** 2 * w * (1 - w) / N
    return _normal(w * a + (1 - w) * b, var, delta, undefined)


def stratified_estimate(tp, fn, fp, tn, u_pos, u_neg):
    """Stratified PPI's p̂ = w·a + (1 - w)·b (``stratified_ppi``; an unlabelled stratum's rate read as 0)."""
    tp, fn, fp, tn, u_pos, u_neg = _floats(tp, fn, fp, tn, u_pos, u_neg)
    n1, n0 = tp + fp, fn + tn
    w = (n1 + u_pos) / (n1 + n0 + u_pos + u_neg)
    return w * tp / np.maximum(n1, 1) + (1 - w) * fn / np.maximum(n0, 1)


def rogan_gladen_parts(tp, fn, fp, tn, u_pos, u_neg):
    """(q̂, ŝe, ŝp, their sample sizes M, n_pos, n_neg): q̂ from the unlabelled judge labels, so
    that it is independent of ŝe = tp/(tp + fn) and ŝp = tn/(tn + fp) under random sampling."""
    tp, fn, fp, tn, u_pos, u_neg = _floats(tp, fn, fp, tn, u_pos, u_neg)
    M, n_pos, n_neg = u_pos + u_neg, tp + fn, tn + fp
    return u_pos / M, tp / np.maximum(n_pos, 1), tn / np.maximum(n_neg, 1), M, n_pos, n_neg


@register("judged_rogan_gladen", display="Rogan–Gladen", takes="judged", family="approximate", guaranteed=False,
          random=False,
          reference="Rogan & Gladen (1978), Am. J. Epidemiol. 107; delta method: Greiner & Gardner (2000), Prev. Vet. Med. 45",
          estimate=lambda *cells: rogan_gladen_estimate(*cells))
def rogan_gladen(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None):
    """Rogan–Gladen p̂ = (q̂ + ŝp - 1)/(ŝe + ŝp - 1) ± z·SE, delta method, random sampling only.

    SE² = [q̂(1 - q̂)/M + p̂²·ŝe(1 - ŝe)/n_pos + (1 - p̂)²·ŝp(1 - ŝp)/n_neg]/(ŝe + ŝp - 1)²
    (q̂, ŝe, ŝp independent: ``rogan_gladen_parts``). No labelled positive or negative, or a judge
    no better than chance (ŝe + ŝp <= 1): [0, 1].
    """
    q, se, sp, M, n_pos, n_neg = rogan_gladen_parts(tp, fn, fp, tn, u_pos, u_neg)
    j = se + sp - 1
    undefined = (n_pos == 0) | (n_neg == 0) | (j <= 0)
    j = np.where(undefined, 1.0, j)
    p = (q + sp - 1) / j
    var = (q * (1 - q) / M + p * p * se * (1 - se) / np.maximum(n_pos, 1)
           + (1 - p) ** 2 * sp * (1 - sp) / np.maximum(n_neg, 1)) / (j * j)
    return _normal(p, var, delta, undefined)


def rogan_gladen_estimate(tp, fn, fp, tn, u_pos, u_neg):
    """Rogan–Gladen's p̂ = (q̂ + ŝp - 1)/(ŝe + ŝp - 1) clipped to [0, 1]; NaN where it is undefined (``rogan_gladen``)."""
    q, se, sp, M, n_pos, n_neg = rogan_gladen_parts(tp, fn, fp, tn, u_pos, u_neg)
    j = se + sp - 1
    undefined = (n_pos == 0) | (n_neg == 0) | (j <= 0)
    return np.where(undefined, np.nan, np.clip((q + sp - 1) / np.where(undefined, 1.0, j), 0.0, 1.0))


def _posterior_interval(sample, rows: int, draws: int, delta) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed (delta/2, 1 - delta/2) quantiles of ``sample(rows_slice, draws)``, rows in blocks."""
    delta = np.broadcast_to(np.asarray(delta, dtype=float), (rows,))
    lower, upper = np.empty(rows), np.empty(rows)
    step = max(1, _BLOCK // draws)
    for s in range(0, rows, step):
        r = slice(s, min(rows, s + step))
        x = sample(r, draws)
        lower[r] = row_quantiles(x, delta[r] / 2)
        upper[r] = row_quantiles(x, 1 - delta[r] / 2)
    return lower, upper


def _rows(*counts):
    arrays = np.broadcast_arrays(*(np.asarray(c, dtype=float) for c in counts))
    return arrays[0].shape, [a.reshape(-1) for a in arrays]


@register("judged_rogan_gladen_bayes", display="Rogan–Gladen Bayes", takes="judged", family="bayesian",
          guaranteed=False, params=(draws_param(2000, "posterior draws"),),
          reference="Rogan & Gladen (1978); Bayesian version: Flor, Weiß, Selhorst, Hlinak & Müller (2020), "
                    "BMC Public Health 20, 1135",
          estimate=lambda *cells, rng=None, draws=2000: rogan_gladen_bayes(*cells, 1.0, rng=rng, draws=draws)[0])
def rogan_gladen_bayes(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None, draws=2000):
    """Rogan–Gladen on posterior draws: quantiles of clip((q + sp - 1)/(se + sp - 1), 0, 1), random sampling only.

    q ~ Beta(u_pos + ½, u_neg + ½), se ~ Beta(tp + ½, fn + ½), sp ~ Beta(tn + ½, fp + ½)
    independent (Jeffreys priors); draws with se + sp <= 1 (no information on p) count as 0 or 1
    by the sign of the numerator, as the clipped estimator does. Draws per block: q, se, sp.
    """
    shape, (tp, fn, fp, tn, u_pos, u_neg) = _rows(tp, fn, fp, tn, u_pos, u_neg)
    rng = np.random.default_rng() if rng is None else rng

    def sample(r, d):
        size = (len(tp[r]), d)
        q = rng.beta(u_pos[r, None] + 0.5, u_neg[r, None] + 0.5, size=size)
        se = rng.beta(tp[r, None] + 0.5, fn[r, None] + 0.5, size=size)
        sp = rng.beta(tn[r, None] + 0.5, fp[r, None] + 0.5, size=size)
        j, num = se + sp - 1, q + sp - 1
        return np.where(j > 0, np.clip(num / np.where(j > 0, j, 1.0), 0.0, 1.0), np.where(num > 0, 0.0, 1.0))

    lower, upper = _posterior_interval(sample, tp.size, draws, delta)
    return lower.reshape(shape), upper.reshape(shape)


@register("judged_bayes_joint", display="Bayesian joint", takes="judged", family="bayesian", guaranteed=False,
          params=(draws_param(2000, "posterior draws"),),
          reference="the multinomial model of (Y, judge) with the judge's labels of all N (Tenenbein 1970), "
                    "Jeffreys priors on q, PPV, FOR",
          estimate=lambda *cells, rng=None, draws=2000: bayes_joint(*cells, 1.0, rng=rng, draws=draws)[0])
def bayes_joint(tp, fn, fp, tn, u_pos, u_neg, delta, rng=None, draws=2000):
    """Bayesian joint model: quantiles of p = q·PPV + (1 - q)·FOR, valid under both samplings.

    The joint law of (Y, Ŷ) has three parameters; in q = P(Ŷ = 1), PPV = P(Y = 1 | Ŷ = 1),
    FOR = P(Y = 1 | Ŷ = 0) the likelihood of all N judge labels and the humans' labels given the
    judge's factorises, and selection on the judge's label is ignorable, so with Jeffreys priors
    the posteriors are independent: q ~ Beta(tp + fp + u_pos + ½, fn + tn + u_neg + ½),
    PPV ~ Beta(tp + ½, fp + ½), FOR ~ Beta(fn + ½, tn + ½). Draws per block: q, PPV, FOR.
    """
    shape, (tp, fn, fp, tn, u_pos, u_neg) = _rows(tp, fn, fp, tn, u_pos, u_neg)
    rng = np.random.default_rng() if rng is None else rng

    def sample(r, d):
        size = (len(tp[r]), d)
        q = rng.beta(tp[r, None] + fp[r, None] + u_pos[r, None] + 0.5, fn[r, None] + tn[r, None] + u_neg[r, None] + 0.5,
                     size=size)
        ppv = rng.beta(tp[r, None] + 0.5, fp[r, None] + 0.5, size=size)
        fo = rng.beta(fn[r, None] + 0.5, tn[r, None] + 0.5, size=size)
        return q * ppv + (1 - q) * fo

    lower, upper = _posterior_interval(sample, tp.size, draws, delta)
    return lower.reshape(shape), upper.reshape(shape)
