"""Write auc_proc_datasets.json: the score sets on which pROC's DeLong results were computed.

Run by hand, not in CI: ``python auc_proc_datasets.py && Rscript auc_proc_reference.R`` writes
auc_proc_reference.json (the sets with pROC's results; tests/test_auc.py reads it), after
which auc_proc_datasets.json can be deleted. Scores have 6 decimals, so R reads them exactly.
"""

import json

import numpy as np
from scipy import stats

rng = np.random.default_rng(20261122)
sets = []
for m, n in [(2, 2), (3, 5), (10, 10), (12, 30), (40, 25), (100, 100), (250, 180)]:
    for auc in (0.6, 0.9, 0.99):
        mu = float(np.sqrt(2) * stats.norm.ppf(auc))
        pos = np.round(rng.normal(mu, 1, m), 6)
        neg = np.round(rng.normal(0, 1, n), 6)
        sets.append({"name": f"continuous_m{m}_n{n}_auc{auc}", "pos": pos.tolist(), "neg": neg.tolist()})
        levels = 5 if m < 100 else 3
        sets.append({"name": f"ties{levels}_m{m}_n{n}_auc{auc}",
                     "pos": np.clip(np.round(pos + 1), -2, levels).tolist(),
                     "neg": np.clip(np.round(neg + 1), -2, levels).tolist()})
sets.append({"name": "separated", "pos": [3.0, 4.0, 5.0], "neg": [0.0, 1.0, 2.0]})
sets.append({"name": "reversed", "pos": [0.0, 1.0], "neg": [2.0, 3.0, 4.0]})
sets.append({"name": "all_tied", "pos": [1.0, 1.0, 1.0], "neg": [1.0, 1.0]})
sets.append({"name": "one_tie_at_top", "pos": [1.0, 2.0, 3.0], "neg": [0.0, 0.5, 3.0]})
with open("auc_proc_datasets.json", "w") as f:
    json.dump(sets, f, indent=0)
