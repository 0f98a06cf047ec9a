"""covstudy: coverage studies of confidence and credible intervals for classifier metrics."""

from .bands.coverage import band_coverage, pr_band, roc_band
from .comparison import (difference_interval, paired_interval, paired_metric_interval, paired_metric_superiority,
                         superiority_probability)
from .engine.coverage import CoverageResult, balanced_coverage, coverage, metric_coverage, multiclass_coverage
from .designs import DESIGNS
from .designs.binormal import true_pr, true_roc
from .designs.confusion import METRICS
from .designs.multiclass import MULTICLASS_METRICS
from .designs.sequential import confidence_sequence, sequential_coverage
from .planning.eval_power import components as eval_components, mde as eval_mde, questions_needed as eval_questions_needed
from .evaluation.result import Evaluation, evaluate
from .engine.exact_curve import AverageCoverage, ConfidenceCoefficient, average_coverage, confidence_coefficient
from .intervals import (Interval, auc_interval, balanced_interval, clustered_interval, interval, methods, metric_interval,
                        multiclass_interval, point_estimate)
from .methods import auc_methods, balanced_methods, f1_methods  # noqa: F401  (shortcuts for methods(takes=...), kept importable)
from .methods.auc_difference import delong_contrast, delong_covariance, unpaired_delong
from .planning.plan import PlanResult, plan, size_performance
from .study.config import ConfigError

# The earlier result classes are the one result type now (importable, not in __all__).
BalancedCoverageResult = MetricCoverageResult = CoverageResult


def run_study(study: str = "quick", overrides=(), out=None, progress: bool | None = None):
    """Run a study config (``conf/study/<study>.yaml``), as the ``covstudy`` command does, and
    return its results table.

    Parameters
    ----------
    study : str
        The study's name (``conf/study/<study>.yaml``: "quick", "auc", "bcd2001", ...).
    overrides : sequence of str
        Command-line style overrides: ``"grid.n=[20,50]"``, ``"design=stratified"``,
        ``"methods=[wilson,wald]"``, ``"engine=exact"``.
    out : str or path, optional
        The study folder (default ``results/<name>``); a rerun resumes from what it holds.
    progress : bool, optional
        Show a progress bar (default: when the output is a terminal).

    Returns
    -------
    pandas.DataFrame
        One row per cell: method, design, axes, delta, engine, truth and the measures.

    Raises
    ------
    ConfigError
        A ValueError, before any work, for an invalid config.

    Examples
    --------
    >>> import tempfile, covstudy
    >>> with tempfile.TemporaryDirectory() as out:
    ...     table = covstudy.run_study("quick", ["grid.n=[10]", "grid.p=[0.2,0.4]", "engine=exact",
    ...                                          "methods=[wilson,wald]"], out=out, progress=False)
    >>> print(table[["method", "p", "coverage"]].round(4).to_string(index=False))
    method   p  coverage
    wilson 0.2    0.9672
    wilson 0.4    0.9817
      wald 0.2    0.8863
      wald 0.4    0.8989
    """
    if isinstance(overrides, str) or not all(isinstance(o, str) for o in overrides):
        raise ConfigError(f"overrides: a list of strings such as 'grid.n=[20,50]', got {overrides!r}")
    if not isinstance(study, str):
        raise ConfigError(f"study: the name of a study config such as 'quick', got {study!r}")
    from .cli import load_study
    from .study.runner import run_study as run

    recorded = [f"study={study}", *overrides, *([f"out={out}"] if out is not None else [])]
    return run(load_study(study, list(overrides), out), overrides=recorded, progress=progress)


__all__ = [
    "AverageCoverage",
    "ConfidenceCoefficient",
    "ConfigError",
    "CoverageResult",
    "DESIGNS",
    "Evaluation",
    "Interval",
    "METRICS",
    "MULTICLASS_METRICS",
    "PlanResult",
    "auc_interval",
    "average_coverage",
    "balanced_coverage",
    "balanced_interval",
    "band_coverage",
    "clustered_interval",
    "confidence_coefficient",
    "confidence_sequence",
    "coverage",
    "delong_contrast",
    "delong_covariance",
    "difference_interval",
    "eval_components",
    "eval_mde",
    "eval_questions_needed",
    "evaluate",
    "interval",
    "methods",
    "metric_coverage",
    "metric_interval",
    "multiclass_coverage",
    "multiclass_interval",
    "paired_interval",
    "paired_metric_interval",
    "paired_metric_superiority",
    "plan",
    "point_estimate",
    "pr_band",
    "roc_band",
    "run_study",
    "sequential_coverage",
    "size_performance",
    "superiority_probability",
    "true_pr",
    "true_roc",
    "unpaired_delong",
]
__version__ = "0.1.0"
