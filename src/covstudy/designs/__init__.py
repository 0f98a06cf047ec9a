"""Designs: the data-generating mechanisms of a coverage study, one module each.

``DESIGNS`` maps a name to its ``Design`` (base.py): its axes, points, exact outcome
distribution, simulation, feasibility check and table key. Adding a design is one module
here (registered with ``@register``; every module of the package is imported) plus its config
``conf/design/<name>.yaml``.
"""

import importlib
import pkgutil

from . import binomial, stratified, iid, multiclass, unpaired, paired, binormal, clustered  # noqa: F401  (register the designs, in this order)

# Any other module of the package registers too (a new design is its module alone), after those,
# by name, so that the order of designs never depends on the file system.
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f".{_module}", __name__)
from .base import Axis, Design, Outcomes, Segment
from .binomial import SAMPLERS, _supported_pmf, binomial_counts, binomial_pmf, choose_sampler
from .confusion import cell_probabilities, class_sizes, stratified_pmf
from .iid import iid_counts, iid_pmf, ratio_pmf
from .registry import DESIGNS, get_design, register

__all__ = ["DESIGNS", "SAMPLERS", "Axis", "Design", "Outcomes", "Segment", "binomial_counts", "binomial_pmf",
           "cell_probabilities", "choose_sampler", "class_sizes", "get_design", "iid_counts", "iid_pmf",
           "ratio_pmf", "register", "stratified_pmf", "_supported_pmf"]
