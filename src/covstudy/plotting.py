"""An alias of ``covstudy.plots`` for older imports (``covstudy.plotting.plot_results``, ...).

The figure kinds live in ``covstudy.plots``, ``covstudy-plot`` in ``covstudy.cli`` (``plot_main``,
the console script; this module's old ``main`` is gone so that it imports nothing above the
figures). Nothing in covstudy imports this module."""

from matplotlib.figure import Figure  # noqa: F401  (figures are Figure objects, never pyplot)

from .plots import OKABE_ITO, PLOTS, method_colors, method_order, plot_results  # noqa: F401
from .plots.kind import MAX_FIXED  # noqa: F401
from .plots.kind import pick as _pick  # noqa: F401
from .plots.style import FALLBACK, LABELS, MAX_PANELS, _panel_labels  # noqa: F401
from .study.summary import read_results as load_results  # noqa: F401

