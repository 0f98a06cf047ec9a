"""Former home of the figures, kept so that ``covstudy.plotting`` imports keep working:
the figure kinds live in ``covstudy.plots`` and ``covstudy-plot`` in ``covstudy.cli``."""

from matplotlib.figure import Figure  # noqa: F401  (figures are Figure objects, never pyplot)

from .plots import OKABE_ITO, PLOTS, method_colors, method_order, plot_results  # noqa: F401
from .plots.kind import MAX_FIXED  # noqa: F401
from .plots.kind import pick as _pick  # noqa: F401
from .plots.style import FALLBACK, LABELS, MAX_PANELS, _panel_labels  # noqa: F401
from .summary import read_results as load_results  # noqa: F401


def main(argv=None) -> int:
    """``covstudy-plot``, now ``covstudy.cli.plot_main``."""
    from .cli import plot_main

    return plot_main(argv)
