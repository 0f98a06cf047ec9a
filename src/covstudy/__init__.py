"""covstudy: coverage studies of confidence and credible intervals for classifier metrics."""

from .coverage import CoverageResult, coverage
from .methods import interval, methods

__all__ = ["CoverageResult", "coverage", "interval", "methods"]
__version__ = "0.1.0"
