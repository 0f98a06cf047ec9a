"""A linear classifier fitted in numpy, many at once, and its exact error on two Gaussian classes.

The learner is linear discriminant analysis with a small ridge. From a training set's class
counts n_c, class means m_c and pooled within-class scatter S = Σ_c Σ_{i in c} (x_i - m_c)(x_i - m_c)ᵀ:

    Σ̂ = S / max(n_1 + n_0 - 2, 1),   w = (Σ̂ + λI)⁻¹ (m_1 - m_0),
    b = -w·(m_1 + m_0)/2 + log(n_1/n_0),      predict class 1 iff w·x + b > 0.

(the plug-in Bayes rule of two Gaussian classes with a common covariance; λ keeps Σ̂ + λI
invertible when n <= d). A class absent from the training set is never predicted
(b = ±inf). Every function takes leading batch axes: fitting thousands of small models is one
batched ``np.linalg.solve``.

Exact error. On classes N(μ_c, I) with prevalence π = P(class 1), the rule errs on class 1
when w·x + b <= 0, with w·x + b ~ N(w·μ_1 + b, |w|²), so

    Err(w, b) = π·Φ(-(w·μ_1 + b)/|w|) + (1 - π)·Φ((w·μ_0 + b)/|w|).

With μ_1 = +Δ/2·e_1 and μ_0 = -Δ/2·e_1 (Δ the Mahalanobis distance), w·μ_c = ±w_1·Δ/2.

A given covariance Σ = L Lᵀ (L its Cholesky factor, ``chol``): the classes are L z ± Δ/2·L e_1
with z ~ N(0, I) (the Mahalanobis distance, hence the Bayes error, unchanged), w·x + b ~
N(w·μ_c + b, wᵀΣw), so |w| becomes |Lᵀw| and w·μ_c = ±(Lᵀw)_1·Δ/2. Unridged LDA is
affine-equivariant (its error would not depend on Σ); the ridge is not.
"""

from __future__ import annotations

import numpy as np
from scipy import special


def fit(n1, n0, mean1, mean0, scatter, ridge: float) -> tuple[np.ndarray, np.ndarray]:
    """(w, b) of the ridge LDA rule (module docstring) from class counts (...), means (..., d)
    and pooled within-class scatter (..., d, d); a class with no examples has mean 0 and is never predicted."""
    n1, n0 = np.asarray(n1, dtype=float), np.asarray(n0, dtype=float)
    return _solve(n1, n0, mean1, mean0, scatter / np.maximum(n1 + n0 - 2, 1)[..., None, None], ridge)


def _solve(n1, n0, mean1, mean0, cov, ridge):
    """(w, b) from the pooled covariance ``cov`` (modified in place: + ridge·I)."""
    d = cov.shape[-1]
    cov[..., np.arange(d), np.arange(d)] += ridge
    w = np.linalg.solve(cov, (mean1 - mean0)[..., None])[..., 0]
    with np.errstate(divide="ignore"):
        b = -0.5 * np.sum(w * (mean1 + mean0), axis=-1) + np.log(n1) - np.log(n0)
    return w, b


def fit_sums(n1, n0, sum1, sum0, cross, ridge: float) -> tuple[np.ndarray, np.ndarray]:
    """``fit`` from sums over the training set: class counts, class sums Σ x (..., d) and the
    cross-product Σ x xᵀ of both classes (..., d, d). Sums of disjoint parts add, so a model
    leaving some folds out is the total minus those folds' sums.

    The scatter is Σ x xᵀ - s_1 s_1ᵀ/n_1 - s_0 s_0ᵀ/n_0 (s_c the class sums), built in place
    (the cost of many small models is memory traffic)."""
    n1, n0 = np.asarray(n1, dtype=float), np.asarray(n0, dtype=float)
    one, zero = np.maximum(n1, 1)[..., None], np.maximum(n0, 1)[..., None]
    mean1, mean0 = sum1 / one, sum0 / zero
    u1, u0 = sum1 / np.sqrt(one), sum0 / np.sqrt(zero)
    cov = np.array(cross, dtype=float)  # a copy: modified in place below
    cov -= u1[..., :, None] * u1[..., None, :]
    cov -= u0[..., :, None] * u0[..., None, :]
    cov /= np.maximum(n1 + n0 - 2, 1)[..., None, None]
    return _solve(n1, n0, mean1, mean0, cov, ridge)


def error(w, b, separation: float, prevalence: float, chol=None) -> np.ndarray:
    """Exact error of the rule (w, b) on N(±Δ/2·e_1, I) classes of prevalence π (module docstring);
    with ``chol`` L, on N(±Δ/2·L e_1, L Lᵀ): the error of the rule (Lᵀw, b) on the identity classes."""
    if chol is not None:
        w = w @ np.asarray(chol)
    norm = np.sqrt(np.sum(w * w, axis=-1))
    shift = w[..., 0] * (separation / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        miss1 = special.ndtr(-(shift + b) / norm)
        miss0 = special.ndtr((-shift + b) / norm)
    return prevalence * miss1 + (1 - prevalence) * miss0


def bayes_error(separation: float, prevalence: float) -> float:
    """Error of the Bayes rule: π·Φ(t - Δ/2) + (1 - π)·Φ(-t - Δ/2), t = log((1 - π)/π)/Δ."""
    t = np.log((1 - prevalence) / prevalence) / separation
    return float(prevalence * special.ndtr(t - separation / 2) + (1 - prevalence) * special.ndtr(-t - separation / 2))


def wishart_identity(dof: np.ndarray, d: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of Wishart(I_d, dof), one per entry of ``dof`` (shape (N,)), shape (N, d, d).

    Bartlett: W = L Lᵀ, L lower triangular with L_jj² ~ χ²(dof - j), j = 0..d-1, and N(0, 1) below
    the diagonal (needs dof >= d); where dof < d, W = ZᵀZ with Z a dof × d standard normal matrix."""
    dof = np.asarray(dof)
    out = np.empty((dof.size, d, d))
    big = dof >= d
    if big.any():
        m = int(big.sum())
        low = np.tril(rng.standard_normal((m, d, d)), -1)
        diag = np.sqrt(rng.chisquare(dof[big][:, None] - np.arange(d)))
        low[:, np.arange(d), np.arange(d)] = diag
        out[big] = low @ np.swapaxes(low, -1, -2)
    for i in np.flatnonzero(~big):  # rare: tiny training sets in many dimensions
        z = rng.standard_normal((int(dof[i]), d))
        out[i] = z.T @ z
    return out


def ar1_chol(d: int, correlation: float) -> np.ndarray | None:
    """Cholesky factor L of the AR(1) covariance Σ_ij = ρ^|i-j| (None for ρ = 0: the identity).

    Row i of L is (ρ^i, ρ^(i-1)·s, ..., ρ·s, s, 0, ...) with s = sqrt(1 - ρ²): x_i = ρ x_(i-1) + s z_i."""
    if correlation == 0:
        return None
    i, j = np.indices((d, d))
    s = np.sqrt(1 - correlation ** 2)
    return np.where(j > i, 0.0, correlation ** np.abs(i - j) * np.where(j == 0, 1.0, s))


def expected_error(n: int, d: int, separation: float, prevalence: float, ridge: float, draws: int,
                   rng: np.random.Generator, block: int = 4096, chol=None) -> tuple[float, float]:
    """Err = E[Err_XY] over training sets of size n, and its Monte Carlo standard error.

    Each draw is a training set's sufficient statistics, drawn directly: n_1 ~ Binomial(n, π),
    class means m_c ~ N(μ_c, I/n_c), pooled within-class scatter ~ Wishart(I, n - classes present),
    all independent for Gaussian classes; its rule's exact error (``error``). Cost O(d³) a draw,
    whatever n. With ``chol`` L (covariance L Lᵀ): the means and scatter of the identity case
    mapped by L (m ↦ L m, S ↦ L S Lᵀ)."""
    total = total2 = 0.0
    mu = np.zeros(d)
    mu[0] = separation / 2
    for start in range(0, draws, block):
        size = min(block, draws - start)
        n1 = rng.binomial(n, prevalence, size)
        n0 = n - n1
        noise = rng.standard_normal((2, size, d))
        mean1 = np.where((n1 > 0)[:, None], mu + noise[0] / np.sqrt(np.maximum(n1, 1))[:, None], 0.0)
        mean0 = np.where((n0 > 0)[:, None], -mu + noise[1] / np.sqrt(np.maximum(n0, 1))[:, None], 0.0)
        scatter = wishart_identity(n - (n1 > 0) - (n0 > 0), d, rng)
        if chol is not None:
            mean1, mean0 = mean1 @ chol.T, mean0 @ chol.T
            scatter = chol @ scatter @ chol.T
        err = error(*fit(n1, n0, mean1, mean0, scatter, ridge), separation, prevalence, chol)
        total += float(np.sum(err))
        total2 += float(np.sum(err * err))
    mean = total / draws
    var = max(total2 / draws - mean * mean, 0.0) * draws / (draws - 1)
    return mean, float(np.sqrt(var / draws))


def fit_logistic(x, y, ridge: float, weight=None, tol: float = 1e-10,
                 max_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """(w, b) of ridge logistic regression, many fits at once: x (..., m, d), y (..., m) in {0, 1},
    ``weight`` (..., m) (default 1; 0 leaves an example out, e.g. a fold).

    Minimises Σ_i weight_i·[log(1 + e^η_i) - y_i·η_i] + (λ/2)|w|², η = x·w + b (the intercept
    unpenalised; scikit-learn's LogisticRegression with C = 1/λ). Newton's method (IRLS) from
    w = b = 0, every fit in one batched ``np.linalg.solve`` a step: gradient Xᵀ(weight·(p - y)) +
    λw, Hessian Xᵀ diag(weight·p(1 - p)) X + λI (X = [x, 1], no ridge on b: λ > 0 keeps the
    minimum finite only if both classes are present). A step is halved while it does not lower
    the objective (Newton can overshoot on nearly separable data); stops when every step is
    below ``tol``. Predict class 1 iff x·w + b > 0, as ``fit``. A fit whose (weighted) examples
    are all of one class has no minimum (b → ±inf): it is w = 0, b = ±inf, always predicting that
    class, as ``fit`` does (its intercept is penalised while iterating, only to keep Newton finite).
    ``fit_logistic_shared`` with one model per data set does the work."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    weight = np.ones(y.shape) if weight is None else np.asarray(weight, dtype=float)
    w, b = fit_logistic_shared(x, y, weight[..., None, :], ridge, tol=tol, max_iter=max_iter)
    return w[..., 0, :], b[..., 0]


def _penalty(weight, y, ridge, d):
    """Per fit: the ridge on (w, b) (none on b, but 1 where a fit has one class only), which fits
    have one class, and that class's sign (+1: class 1)."""
    ones = np.sum(weight * y, axis=-1)
    one_class = (ones <= 0) | (np.sum(weight * (1 - y), axis=-1) <= 0)
    penalty = np.full((*one_class.shape, d + 1), float(ridge))
    penalty[..., -1] = np.where(one_class, 1.0, 0.0)
    return penalty, one_class, np.where(ones > 0, 1.0, -1.0)


def _one_class_rule(beta, one_class, sign):
    """(w, b) from the Newton solution, one-class fits set to w = 0, b = ±inf."""
    w, b = beta[..., :-1], beta[..., -1]
    if one_class.any():
        w = np.where(one_class[..., None], 0.0, w)
        b = np.where(one_class, sign * np.inf, b)
    return w, b


def fit_logistic_shared(x, y, weight, ridge: float, start=None, tol: float = 1e-10,
                        max_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """``fit_logistic`` for many models of the same examples: x (..., m, d), y (..., m), one
    weight row per model (..., P, m) (0 leaves an example out: a fold); returns w (..., P, d), b (..., P).

    The same objective, start and step halving; sharing x makes every Newton step three batched
    matrix products per data set (η = βXᵀ, gradient = rX, Hessian = (weight·p(1-p))·[x_i x_iᵀ]
    with the examples' outer products computed once), not one small product per model. ``start``
    (w, b) of shape (..., P, d), (..., P): where Newton starts (default 0; the minimum is unique,
    so a nearby fit, e.g. on one fold more, only saves steps)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    weight = np.asarray(weight, dtype=float)
    lead, m, d = x.shape[:-2], x.shape[-2], x.shape[-1]
    D = d + 1
    design = np.concatenate([x, np.ones((*lead, m, 1))], axis=-1)  # (..., m, D)
    transposed = np.swapaxes(design, -1, -2)
    outer = (design[..., :, :, None] * design[..., :, None, :]).reshape(*lead, m, D * D)
    y = y[..., None, :]
    penalty, one_class, sign = _penalty(weight, y, ridge, d)
    beta = np.zeros((*weight.shape[:-1], D))
    if start is not None:
        beta[..., :d], beta[..., d] = start
        beta[~np.isfinite(beta)] = 0.0  # a one-class fit's b = ±inf is no place to start

    def objective(beta):
        eta = beta @ transposed
        return np.sum(weight * (np.logaddexp(0.0, eta) - y * eta), axis=-1) + 0.5 * np.sum(penalty * beta * beta, -1)

    current = objective(beta)
    for _ in range(max_iter):
        p = special.expit(beta @ transposed)  # (..., P, m)
        grad = (weight * (p - y)) @ design + penalty * beta
        hess = ((weight * p * (1 - p)) @ outer).reshape(*beta.shape, D)
        hess[..., np.arange(D), np.arange(D)] += penalty
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        scale = np.ones(beta.shape[:-1])
        trial = beta - step
        value = objective(trial)
        for _ in range(30):  # halve where the objective went up
            worse = value > current + 1e-12 * np.abs(current)
            if not worse.any():
                break
            scale = np.where(worse, scale / 2, scale)
            trial = beta - scale[..., None] * step
            value = objective(trial)
        done = np.max(np.abs(scale[..., None] * step), initial=0.0) < tol
        beta, current = trial, value
        if done:
            break
    return _one_class_rule(beta, one_class, sign)
