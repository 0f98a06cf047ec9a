"""covstudy: coverage studies of confidence and credible intervals for classifier metrics."""

from .balanced import BalancedCoverageResult, balanced_coverage
from .coverage import CoverageResult, coverage
from .methods import interval, methods
from .methods.balanced import balanced_interval, balanced_methods

__all__ = ["BalancedCoverageResult", "CoverageResult", "balanced_coverage", "balanced_interval",
           "balanced_methods", "coverage", "interval", "methods"]
__version__ = "0.1.0"
