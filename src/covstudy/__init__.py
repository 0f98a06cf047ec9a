"""covstudy: coverage studies of confidence and credible intervals for classifier metrics."""

from .balanced import BalancedCoverageResult, balanced_coverage
from .coverage import CoverageResult, coverage
from .methods import interval, methods
from .methods.balanced import balanced_interval, balanced_methods
from .methods.f1 import f1_methods
from .metric_coverage import MetricCoverageResult, metric_coverage
from .metrics import METRICS, metric_interval
from .plan import PlanResult, plan

__all__ = ["METRICS", "BalancedCoverageResult", "CoverageResult", "MetricCoverageResult", "PlanResult",
           "balanced_coverage", "balanced_interval", "balanced_methods", "coverage", "f1_methods", "interval",
           "methods", "metric_coverage", "metric_interval", "plan"]
__version__ = "0.1.0"
