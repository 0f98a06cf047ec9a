"""Generates tests/data/smooth_ece_relplot.json: relplot's smooth ECE on fixed test sets.

Run by hand with relplot installed (pip install relplot):
    python tests/data/smooth_ece_relplot.py > tests/data/smooth_ece_relplot.json
relplot is the reference package of Błasiok & Nakkiran (2023), "Smooth ECE: principled reliability
diagrams via kernel smoothing" (Apple). Each case is a test set rebuilt from uniforms (numpy's
default_rng(seed).random, stable across numpy versions): scores = Beta(a, b) quantiles of the first n
uniforms, labels = 1[next n uniforms < expit(slope·logit(score))]. The values are relplot's, computed by
its code with its defaults (reflected Gaussian kernel); covstudy's kernels (methods/smooth_ece.py) are
checked against them in tests/test_smooth_ece.py. Not imported by the suite.
"""

import json
import platform
from importlib.metadata import version

import numpy as np
import relplot
from scipy import special, stats

SIGMAS = (0.02, 0.05, 0.1)
CASES = [(n, a, b, slope, seed) for seed, (n, a, b, slope) in enumerate(
    [(n, a, b, slope) for n in (30, 200, 2000) for (a, b) in ((2.0, 5.0), (0.5, 0.5))
     for slope in (1.0, 0.5, 2.0)])]


def test_set(n, a, b, slope, seed):
    u = np.random.default_rng(seed).random(2 * n)
    f = stats.beta.ppf(u[:n], a, b)
    y = (u[n:] < special.expit(slope * special.logit(f))).astype(float)
    return f, y


cases = []
for n, a, b, slope, seed in CASES:
    f, y = test_set(n, a, b, slope, seed)
    ece, sigma = relplot.smECE(f, y, return_width=True)
    cases.append({"n": n, "a": a, "b": b, "slope": slope, "seed": seed, "smECE": float(ece),
                  "sigma": float(sigma), "smECE_sigma": {str(s): float(relplot.smECE_sigma(f, y, s)) for s in SIGMAS}})
out = {"provenance": {"package": "relplot", "version": version("relplot"), "python": platform.python_version(),
                      "numpy": np.__version__, "scipy": version("scipy"),
                      "calls": ["relplot.smECE(f, y, return_width=True)  # (smECE, its bandwidth)",
                                "relplot.smECE_sigma(f, y, sigma)"]},
       "cases": cases}
print(json.dumps(out, indent=1))
