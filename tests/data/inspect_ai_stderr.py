"""Generates tests/data/inspect_ai_stderr.json: inspect_ai's own metrics on fixed eval data.

Run by hand in a separate environment with inspect_ai installed (pip install inspect_ai):
    python tests/data/inspect_ai_stderr.py > tests/data/inspect_ai_stderr.json
The values are inspect_ai's, computed by its code; covstudy's kernels are checked against them
(tests/test_evals.py). Not imported by the test suite.
"""

import json
import platform

import inspect_ai
import numpy as np
from inspect_ai.scorer import Score, SampleScore, ci, ci_wilson, stderr

CASES = {
    # 30 binary scores in 7 groups of unequal size
    "binary_unequal_groups": {
        "score": [1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1],
        "group": [0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6],
    },
    # 12 questions, K = 4 answers averaged per question (inspect's epochs with the mean reducer), 4 groups
    "k4_averaged": {
        "score": [1.0, 0.75, 0.5, 1.0, 0.25, 0.0, 0.5, 0.75, 1.0, 1.0, 0.75, 0.25],
        "group": [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3],
    },
    # near 100 %: one miss in 20 questions, 5 groups
    "one_miss": {
        "score": [1] * 13 + [0] + [1] * 6,
        "group": [i // 4 for i in range(20)],
    },
}


def scores(case):
    return [SampleScore(score=Score(value=float(v)), sample_id=i, sample_metadata={"g": int(g)})
            for i, (v, g) in enumerate(zip(case["score"], case["group"]))]


out = {"provenance": {"package": "inspect_ai", "version": inspect_ai.__version__,
                      "python": platform.python_version(), "numpy": np.__version__,
                      "calls": ["stderr()", "stderr(cluster='g')", "ci(level=0.95, method='t', cluster='g')",
                                "ci_wilson(level=0.95, cluster='g')"]},
       "cases": {}}
for name, case in CASES.items():
    s = scores(case)
    out["cases"][name] = {
        **case,
        "stderr": stderr()(s),
        "stderr_cluster": stderr(cluster="g")(s),
        "ci_t_cluster": ci(level=0.95, method="t", cluster="g")(s),
        "ci_wilson_cluster": ci_wilson(level=0.95, cluster="g")(s),
    }
print(json.dumps(out, indent=1))
