"""An alias of ``covstudy.plots`` for older imports (``covstudy.plotting.plot_results``, ...).

The figure kinds live in ``covstudy.plots``, ``covstudy-plot`` in ``covstudy.cli``; nothing in
covstudy imports this module, so it closes no import cycle."""

from matplotlib.figure import Figure  # noqa: F401  (figures are Figure objects, never pyplot)

from .plots import OKABE_ITO, PLOTS, method_colors, method_order, plot_results  # noqa: F401
from .plots.kind import MAX_FIXED  # noqa: F401
from .plots.kind import pick as _pick  # noqa: F401
from .plots.style import FALLBACK, LABELS, MAX_PANELS, _panel_labels  # noqa: F401
from .study.summary import read_results as load_results  # noqa: F401


def main(argv=None) -> int:
    """``covstudy-plot``, now ``covstudy.cli.plot_main``."""
    from .cli import plot_main

    return plot_main(argv)
