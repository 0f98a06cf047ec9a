"""covstudy: coverage studies of confidence and credible intervals for classifier metrics."""

from .comparison import difference_interval, paired_interval, superiority_probability
from .coverage import CoverageResult, balanced_coverage, coverage, metric_coverage, multiclass_coverage
from .designs import DESIGNS
from .estimands import METRICS, MULTICLASS_METRICS, metric_interval, multiclass_interval
from .exact_curve import (
    AverageCoverage,
    ConfidenceCoefficient,
    average_coverage,
    confidence_coefficient,
)
from .intervals import Interval, interval
from .methods import auc_methods, balanced_methods, f1_methods, methods
from .methods.auc import auc_interval
from .methods.balanced import balanced_interval
from .methods.clustered import clustered_interval
from .plan import PlanResult, plan
from .study import ConfigError

# The earlier result classes are the one result type now (importable, not in __all__).
BalancedCoverageResult = MetricCoverageResult = CoverageResult


def run_study(study: str = "quick", overrides=(), out=None, progress: bool | None = None):
    """Run a study config (``conf/study/<study>.yaml``) with command-line style ``overrides``
    (``"grid.n=[20,50]"``, ``"design=stratified"``) and return its results table (a DataFrame).

    ``out`` is the study folder (default ``results/<name>``). Invalid configs raise
    ``ConfigError`` (a ValueError) before any work.
    """
    from .cli import load_study
    from .runner import run_study as run

    recorded = [f"study={study}", *overrides, *([f"out={out}"] if out is not None else [])]
    return run(load_study(study, list(overrides), out), overrides=recorded, progress=progress)


__all__ = [
    "AverageCoverage",
    "ConfidenceCoefficient",
    "ConfigError",
    "CoverageResult",
    "DESIGNS",
    "Interval",
    "METRICS",
    "MULTICLASS_METRICS",
    "PlanResult",
    "auc_interval",
    "auc_methods",
    "average_coverage",
    "balanced_coverage",
    "balanced_interval",
    "balanced_methods",
    "clustered_interval",
    "confidence_coefficient",
    "coverage",
    "difference_interval",
    "f1_methods",
    "interval",
    "methods",
    "metric_coverage",
    "metric_interval",
    "multiclass_coverage",
    "multiclass_interval",
    "paired_interval",
    "plan",
    "run_study",
    "superiority_probability",
]
__version__ = "0.1.0"
