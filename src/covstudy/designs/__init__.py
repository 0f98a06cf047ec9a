"""Designs: the data-generating mechanisms of a coverage study, one module each.

``DESIGNS`` maps a name to its ``Design`` (base.py): its axes, points, exact outcome
distribution, simulation, feasibility check and table key. Adding a design is one module
here (registered with ``@register``) plus its config ``conf/design/<name>.yaml``.
"""

from . import binomial, stratified, iid, multiclass, unpaired, paired, binormal, clustered  # noqa: F401  (register the designs, in this order)
from .base import Axis, Design, Outcomes, Segment
from .binomial import SAMPLERS, _supported_pmf, binomial_counts, binomial_pmf, choose_sampler
from .confusion import cell_probabilities, class_sizes, stratified_pmf
from .iid import iid_counts, iid_pmf, ratio_pmf
from .registry import DESIGNS, get_design, register

__all__ = ["DESIGNS", "SAMPLERS", "Axis", "Design", "Outcomes", "Segment", "binomial_counts", "binomial_pmf",
           "cell_probabilities", "choose_sampler", "class_sizes", "get_design", "iid_counts", "iid_pmf",
           "ratio_pmf", "register", "stratified_pmf", "_supported_pmf"]
