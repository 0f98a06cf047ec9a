"""The smooth ECE (Błasiok & Nakkiran 2023, "Smooth ECE: principled reliability diagrams via kernel smoothing").

For scores f_i and labels y_i (n examples) and a bandwidth σ, the residuals r_i = y_i - f_i are smoothed
with the reflected Gaussian kernel on [0, 1] (the Gaussian with its images mirrored at 0 and 1, so that
∫_0^1 K_σ(t, s) dt = 1 for every s):

    smECE_σ = ∫_0^1 | (1/n) Σ_i K_σ(t, f_i)·r_i | dt,
    K_σ(t, s) = Σ_{k ∈ Z} [φ_σ(t - s - 2k) + φ_σ(t + s - 2k)]
              = 1 + 2 Σ_{m >= 1} exp(-π²m²σ²/2)·cos(πmt)·cos(πms)

(the second form is the Neumann heat kernel's cosine series, which is why a discrete cosine transform
smooths exactly). smECE_σ does not increase with σ; the smooth ECE is smECE at the fixed point σ* where
smECE_σ* = σ* (their bandwidth rule), so it equals σ*. Here σ* is found to rounding (methods/roots.py; a
few ulps, so that the answer reproduces across CPUs to the last bits) above SIGMA_MIN = 0.001 (the
reference package's floor; a test set whose smECE stays below σ there gets σ* = SIGMA_MIN, and smECE at it).

Computation: the residuals are linearly binned onto GRID + 1 equally spaced points (Wand 1994,
"Fast computation of multivariate kernel estimators"), smoothed by the cosine series truncated at the
grid's frequencies (exact for the binned masses where exp(-π²m²σ²/2) has vanished by m = GRID: σ >= 0.004
at GRID = 1024, to 1e-17; at σ = 0.002 to 1e-9) and integrated by the trapezoid rule. Checked against the
direct sum over images and against the reference package ``relplot`` (Apple, 1.0.3;
tests/data/smooth_ece_relplot.json, with the script that wrote it).

The interval (``ece.smooth``): the basic bootstrap, [2θ̂ - q_{1-δ/2}, 2θ̂ - q_{δ/2}] of ``draws`` resamples
of the examples, floored at 0; the reference package reports its interval the same way
(``scipy.stats.bootstrap(..., method="basic")`` in ``relplot.prepare_rel_diagram``).
"""

from __future__ import annotations

import numpy as np

from .. import validate
from .._lazy import fft
from .calibration import ESTIMATES, TARGETS, _rows
from .registry import draws_param, register
from .roots import solve_increasing

GRID = 1024
SIGMA_MIN = 1e-3


def binned_residuals(scores, labels, weights=None) -> np.ndarray:
    """(rows, GRID + 1): each row's residuals (y - f)·weight (default 1/n) linearly binned onto the grid j/GRID."""
    f = np.atleast_2d(np.asarray(scores, dtype=float))
    w = 1 / f.shape[-1] if weights is None else np.asarray(weights, dtype=float)
    r = (np.atleast_2d(np.asarray(labels, dtype=float)) - f) * w
    x = np.clip(f, 0.0, 1.0) * GRID
    j = np.minimum(x.astype(np.int64), GRID - 1)
    frac = x - j
    base = np.arange(f.shape[0])[:, None] * (GRID + 1)
    size = f.shape[0] * (GRID + 1)
    out = np.bincount((base + j).ravel(), weights=(r * (1 - frac)).ravel(), minlength=size)
    out += np.bincount((base + j + 1).ravel(), weights=(r * frac).ravel(), minlength=size)
    return out.reshape(f.shape[0], GRID + 1)


def _cosine_coefficients(a) -> np.ndarray:
    """C_m = Σ_h a_h·cos(πmh/GRID), m = 0..GRID, over the last axis (from scipy's DCT-I)."""
    sign = (-1.0) ** np.arange(GRID + 1)
    return (fft.dct(a, type=1, axis=-1) + a[..., :1] + sign * a[..., -1:]) / 2


def smooth_at(coefficients, sigma) -> np.ndarray:
    """smECE_σ of each row from its cosine coefficients C (rows, GRID + 1) and σ (rows,): the trapezoid
    integral over the grid of |C_0 + 2 Σ_m exp(-π²m²σ²/2)·C_m·cos(πmt)|."""
    m = np.arange(GRID + 1)
    b = 2 * np.exp(-0.5 * (np.pi * m * np.asarray(sigma, dtype=float)[..., None]) ** 2) * coefficients
    b[..., 0] = coefficients[..., 0]
    h = _cosine_coefficients(b)  # Σ_m b_m cos(πmg/GRID) has the same form as C
    h = np.abs(h)
    return (h.sum(axis=-1) - (h[..., 0] + h[..., -1]) / 2) / GRID


def smooth_ece_sigma(scores, labels, sigma) -> np.ndarray:
    """smECE_σ of each row (test sets as rows) at the bandwidth(s) σ."""
    scores, labels = validate.test_sets(scores, labels)
    c = _cosine_coefficients(binned_residuals(scores, labels))
    return smooth_at(c, np.broadcast_to(np.asarray(sigma, dtype=float), c.shape[:1]))


def fixed_point(coefficients) -> np.ndarray:
    """σ* per row: the root of σ - smECE_σ (increasing, as smECE_σ does not) on [SIGMA_MIN, 1] by the
    vectorised bracketed root finder of methods/roots.py (Anderson–Björck regula falsi with Brent's safeguards),
    to a bracket a few ulps wide; SIGMA_MIN where SIGMA_MIN >= smECE_SIGMA_MIN.

    Solved to rounding, so that last-bit changes in the inputs (another CPU's FFT or exp, one ulp of a score)
    move σ* by last bits only: a stop rule at a looser tolerance has inputs where a last-bit change takes one
    step more or less and moves σ* by up to that tolerance. The finder evaluates only unfinished rows, so a
    row's σ* is its own, whatever other rows share the call."""
    return solve_increasing(lambda s, i: s - smooth_at(coefficients[i], s), SIGMA_MIN, np.ones(coefficients.shape[0]))


def smooth_ece(scores, labels, return_sigma: bool = False):
    """The smooth ECE of each row: smECE at its fixed-point bandwidth σ* (with σ* if ``return_sigma``)."""
    scores, labels = validate.test_sets(scores, labels)
    c = _cosine_coefficients(binned_residuals(scores, labels))
    sigma = fixed_point(c)
    value = smooth_at(c, sigma)
    return (value, sigma) if return_sigma else value


RESAMPLE_BLOCK = 1 << 20  # resampled examples held at once (whole draws; one draw where n is larger)


def resampled_smooth_ece(scores, labels, draws: int, rng: np.random.Generator, block: int = RESAMPLE_BLOCK) -> np.ndarray:
    """The smooth ECE of ``draws`` bootstrap resamples of one test set (1-d scores and labels; the indices
    ``rng.integers(0, n, (draws, n))``), in blocks of whole draws of at most ``block`` indices: memory
    O(block + n), and the same numbers whatever the block (one stream; each row's fixed point is its own)."""
    scores, labels = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    n = scores.size
    step = max(1, block // max(n, 1))
    out = np.empty(draws)
    for d in range(0, draws, step):
        pick = rng.integers(0, n, size=(min(step, draws - d), n))
        out[d:d + len(pick)] = smooth_ece(scores[pick], labels[pick])
    return out


@register("ece_smooth", takes="calibration", family="approximate", guaranteed=False,
          params=(draws_param(200, "bootstrap resamples of the test set"),),
          reference="Błasiok & Nakkiran (2023), Smooth ECE: principled reliability diagrams via kernel smoothing; "
                    "basic bootstrap as in their package relplot",
          display="smooth ECE, basic bootstrap")
@_rows
def ece_smooth(scores, labels, delta, rng, edges, draws):
    """The smooth ECE (fixed-point bandwidth) with the basic bootstrap interval, floored at 0 (``edges`` unused)."""
    estimate = float(smooth_ece(scores, labels)[0])
    boot = resampled_smooth_ece(scores, labels, draws, rng)
    hi_q, lo_q = np.quantile(boot, 1 - delta / 2), np.quantile(boot, delta / 2)
    return max(2 * estimate - hi_q, 0.0), max(2 * estimate - lo_q, 0.0)


ESTIMATES["smooth"] = lambda s, y, edges: smooth_ece(s, y)
TARGETS["smooth"] = ("smooth_ece",)  # its own estimand: the population's smooth ECE (designs.calibration.true_smooth_ece)
