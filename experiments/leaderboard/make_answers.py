"""Writes experiments/leaderboard/answers.csv, the example of docs/guide/leaderboard.md: six models' answers
(3 choices) to the same 800 questions, correct as drawn by the many_models design (accuracies 0.80 down
to 0.70, latent correlation 0.6). Run: python experiments/leaderboard/make_answers.py"""

from pathlib import Path

import numpy as np
import pandas as pd

from covstudy.designs.many_models import ManyModels, spaced

NAMES = ["atlas", "borealis", "cirrus", "dune", "ember", "fjord"]
design = ManyModels(tuple(spaced(6, 0.8, 0.1)), 800, 0.6)
X = next(design.simulate(1, seed=5))[0]
rng = np.random.default_rng(0)
label = rng.integers(0, 3, 800)
frame = pd.DataFrame({"label": label})
for m, name in enumerate(NAMES):
    wrong = (label + 1 + rng.integers(0, 2, 800)) % 3
    frame[name] = np.where(X[:, m], label, wrong)
frame.to_csv(Path(__file__).with_name("answers.csv"), index=False)
