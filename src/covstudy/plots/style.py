"""The look shared by every figure: palette and method order, rc settings, panel grids, legends,
and the writers that save each figure as PNG and PDF (``save_figure``: every figure covstudy
writes goes through it).

Each method keeps one colour in every figure (Okabe & Ito's colour-blind-safe palette, in
registry order). Figures use matplotlib's object-oriented API (``Figure`` + Agg), never
pyplot, so drawing never touches pyplot's global state or the user's backend.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..study.summary import method_rank, resolve_method

DPI = 150
MAX_PANELS = 16  # at most this many method panels per figure (the first in the config's order)

# Okabe & Ito (2008), "Color Universal Design"; yellow dropped (invisible as a thin line on white).
OKABE_ITO = {"blue": "#0072B2", "vermillion": "#D55E00", "green": "#009E73", "purple": "#CC79A7",
             "orange": "#E69F00", "sky": "#56B4E9", "black": "#000000"}
# A union-bound balanced-accuracy method wears the colour of the binomial interval it is built on.
_FIXED_COLOURS = {
    "wald": "vermillion", "wilson": "blue", "clopper_pearson": "green", "jeffreys": "purple",
    "agresti_coull": "orange",
    "ba_wald": "vermillion", "ba_wilson_union": "blue", "ba_cp_union": "green",
    "ba_jeffreys_union": "purple", "ba_posterior": "sky", "ba_posterior_jeffreys": "black",
    "delong": "vermillion", "logit_delong": "orange", "hanley_mcneil": "purple", "newcombe": "blue",
    "bootstrap": "green",
}
# Paul Tol's "muted" scheme (colour-blind safe) for methods without a fixed colour.
FALLBACK = ("#332288", "#117733", "#882255", "#44AA99", "#999933", "#AA4499", "#88CCEE",
            "#CC6677", "#DDCC77")
LINESTYLES = ("-", (0, (5, 1.5)), (0, (1.5, 1)), (0, (5, 1.5, 1.5, 1.5)))

LABELS = {
    "p": "true proportion p",
    "n": "sample size n (test examples)",
    "coverage": "coverage probability",
    "mean_width": "expected interval width (units of p)",
    "prevalence": "prevalence (fraction of positives)",
    "tpr": "true positive rate (tpr)",
    "tnr": "true negative rate (tnr)",
    "icc": "intra-cluster correlation (icc)",
}
_RC = {"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 8,
       "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.titlesize": 10}


# --------------------------------------------------------------------------- colours and order

def method_order(table: pd.DataFrame) -> list[str]:
    """Display labels in the order of the table's rows: a study's table lists its cells in the
    order of the config's ``methods``, so panels and legends follow that order."""
    return list(dict.fromkeys(table["label"]))


def _registry_order(table: pd.DataFrame) -> list[str]:
    """Display labels in registry order (binomial methods, then balanced ones, then the rest by name)."""
    pairs = _pairs(table)
    pairs = sorted(pairs.itertuples(index=False),
                   key=lambda r: (method_rank(r.method, r.design, r.metric), r.method, r.label))
    return list(dict.fromkeys(r.label for r in pairs))


def _pairs(table: pd.DataFrame) -> pd.DataFrame:
    """The table's distinct (method, label) entries with the design and metric that say which method a short name is."""
    context = {c: (table[c] if c in table else None) for c in ("design", "metric")}
    return table[["method", "label"]].assign(**context).drop_duplicates(["method", "label"])


def method_colors(table: pd.DataFrame) -> dict[str, str]:
    """Colour of each display label: the method's fixed colour, else the next unused fallback.

    The first label of a known method gets the method's colour; further labels of the same
    method and unknown methods take Tol's muted colours in registry-then-name order, so the
    mapping depends only on the set of (method, label) pairs in the table.
    """
    colors: dict[str, str] = {}
    taken: set[str] = set()
    pairs = _pairs(table)
    first_label = pairs.groupby("method", sort=False)["label"].agg("min")
    for label in _registry_order(table):  # colours do not depend on the row order
        row = pairs.loc[pairs["label"] == label].iloc[0]
        method = row["method"]
        found = resolve_method(method, row["design"], row["metric"])  # a short name as its design and metric read it
        key = method if found is None else found.name
        if key in _FIXED_COLOURS and first_label[method] == label:
            colors[label] = OKABE_ITO[_FIXED_COLOURS[key]]
            taken.add(colors[label])
    free = [c for c in FALLBACK if c not in taken] or list(FALLBACK)
    for i, label in enumerate(lab for lab in _registry_order(table) if lab not in colors):
        colors[label] = free[i % len(free)]
    return colors


# --------------------------------------------------------------------------- small helpers

def band_colours(names) -> dict:
    """A band study's methods coloured in order from matplotlib's tab10 (the band figures and the
    band page of report.html: the same colour for a method in both)."""
    cmap = matplotlib.colormaps["tab10"]
    return {n: cmap(i % 10) for i, n in enumerate(names)}


def _fmt(x) -> str:
    return f"{float(x):g}"


def _new_figure(n_panels: int, panel=(3.0, 2.3), ncols_max: int = 3, extra_h: float = 0.6, sharey=True):
    """A grid of panels; returns (figure, used axes, ncols, spare axes turned off: room for a legend)."""
    ncols = min(n_panels, ncols_max if n_panels <= 9 else ncols_max + 1)  # 4 columns beyond 9 panels
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(figsize=(panel[0] * ncols + 0.4, panel[1] * nrows + extra_h), dpi=DPI, layout="constrained")
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=sharey, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_axis_off()
    return fig, axes[:n_panels], ncols, axes[n_panels:]


def _label_outer(axes, ncols: int, xlabel: str, ylabel: str):
    n = len(axes)
    for i, ax in enumerate(axes):
        if i % ncols == 0:
            ax.set_ylabel(ylabel)
        if i + ncols >= n:  # bottom panel in its column
            ax.set_xlabel(xlabel)
            ax.xaxis.set_tick_params(labelbottom=True)


def _coverage_ylim(values, delta) -> tuple[float, float]:
    """From the lowest value shown (but not below 1 - 4·delta, so the region near nominal stays legible) to 1."""
    lo = max(np.nanmin(values), 1 - 4 * delta)
    lo = min(lo, 1 - 1.5 * delta)
    return lo - 0.02 * (1 - lo), 1 + 0.02 * (1 - lo)


def _nominal(ax, delta):
    ax.axhline(1 - delta, color="black", lw=0.9, ls=(0, (4, 2.5)), zorder=1)


def _note_off_scale(ax, x, y, ylo, xname):
    """Say where a curve leaves the axis at the bottom, rather than squash the interesting part."""
    below = y < ylo
    if below.any():
        i = int(np.nanargmin(y))
        ax.text(0.5, 0.03, f"min {y[i]:.3f} at {xname} = {_fmt(x[i])} (below axis)", transform=ax.transAxes,
                ha="center", va="bottom", fontsize=7, color="0.25",
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8})


PNG_COLOURS = 256  # a palette PNG: a third of the bytes of RGBA, lines and text unchanged to the eye


def save_figure(fig: Figure, path, **savefig_kwargs) -> Path:
    """Save ``fig`` to ``path`` (format from its suffix), the same bytes for the same figure.

    PNGs are written with a palette of ``PNG_COLOURS`` colours (median cut, no dithering) and
    zlib's best compression: the figures are flat colours, lines and antialiased text, so this
    keeps them sharp at about a third of matplotlib's RGBA size (the committed ``results/``
    stays small). PDFs carry no creation date. Neither embeds the software version.
    """
    from PIL import Image

    path = Path(path)
    if path.suffix.lower() == ".png":
        rgb = _rendered(fig, savefig_kwargs).convert("RGB")  # figures are opaque: white face, no transparency
        rgb.quantize(PNG_COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE) \
            .save(path, format="png", optimize=True)
    else:
        metadata = {"CreationDate": None, "Producer": None} if path.suffix.lower() == ".pdf" else None
        fig.savefig(path, metadata=metadata, **savefig_kwargs)
    return path


def _rendered(fig: Figure, savefig_kwargs):
    """``fig`` drawn by Agg as ``savefig`` would write it to a PNG, as a PIL RGBA image: the
    canvas's own pixels, not a PNG encoded only to be decoded again."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    fig.savefig(io.BytesIO(), format="rgba", **savefig_kwargs)  # draws on this canvas, keeps its pixels
    return Image.fromarray(np.asarray(canvas.buffer_rgba()))  # (h, w, 4) bytes: RGBA


def freeze_layout(fig: Figure) -> None:
    """Lay ``fig`` out once with its layout engine (as the PNG at the figure's dpi sees it) and
    switch the engine off, so that saving it in several formats draws each from that one layout.

    Without this every ``savefig`` runs the constrained layout anew (a dry draw plus the solver)
    and, with any engine set, even a placeholder, one more dry draw before the real one.
    """
    import matplotlib

    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)  # what drawing would do first; the artists need no dry draw for it
        with matplotlib.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
            fig.set_layout_engine(None)  # None under these settings: no engine at all ("none" leaves a placeholder)


class _Output:
    """Where the figures go: saves each in every format and remembers (paths, caption) in order."""

    def __init__(self, folder: Path, formats):
        self.folder = folder
        self.formats = ("png", *(f for f in formats if f != "png"))  # the report embeds the PNG
        self.written: list[tuple[list[Path], str]] = []

    def save(self, fig: Figure, stem: str, caption: str) -> None:
        paths = [self.folder / f"{stem}.{ext}" for ext in self.formats]
        freeze_layout(fig)
        for path in paths:
            save_figure(fig, path, dpi=DPI)
        self.written.append((paths, caption))


def _legend(fig, handles, spare, title=None):
    """In an empty panel when there is one (it covers no data there), else below the panels."""
    if len(spare):
        spare[0].legend(handles=handles, loc="center", frameon=False, title=title)
    else:
        fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 4), frameon=False,
                   title=title)


def _panel_labels(sub, order):
    """The labels to draw as panels: all, or the first MAX_PANELS in ``order`` (and a note saying so)."""
    present = [lab for lab in order if lab in set(sub["label"])]
    note = f" (first {MAX_PANELS} of {len(present)} methods)" if len(present) > MAX_PANELS else ""
    return present[:MAX_PANELS], note


