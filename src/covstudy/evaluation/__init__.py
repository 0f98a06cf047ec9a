"""covstudy-evaluate: a user's own predictions in, per metric the interval whose audited coverage
meets the target out (result: Evaluation and evaluate; cli: the command).

Inside, data flows one way: data (columns checked) -> metrics (one spec per metric, its region from
region) -> audit (coverage over the region) -> recommend (the rule) -> growth (widths at other sizes)
-> render (tables, figures, files); result wires them.
"""

from .result import Evaluation, evaluate  # the documented path ``from covstudy.evaluation import evaluate``
from .readers import Answers, paired, read_inspect, read_lm_eval  # eval logs in (docs/guide/from-lm-eval.md)

from .recommend import EPSILON  # noqa: F401  (earlier docs gave it at covstudy.evaluation)
from .region import auc_region  # noqa: F401  (the same)

__all__ = ["Evaluation", "evaluate", "Answers", "paired", "read_inspect", "read_lm_eval"]
