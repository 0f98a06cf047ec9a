"""Each figure is laid out once, whatever the number of formats it is saved in."""

import io

import numpy as np
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from PIL import Image

from covstudy.plots.style import DPI, PNG_COLOURS, _Output


def _figure():
    fig = Figure(figsize=(4, 3), dpi=DPI, layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_title("a title")
    return fig


def test_saving_png_and_pdf_lays_the_figure_out_once(tmp_path, monkeypatch):
    calls = []
    execute = ConstrainedLayoutEngine.execute
    monkeypatch.setattr(ConstrainedLayoutEngine, "execute", lambda self, fig: calls.append(fig) or execute(self, fig))
    _Output(tmp_path, ("png", "pdf")).save(_figure(), "f", "caption")
    assert len(calls) == 1
    assert (tmp_path / "f.png").stat().st_size > 0 and (tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")


def test_png_has_the_pixels_savefig_draws(tmp_path):
    reference = io.BytesIO()
    _figure().savefig(reference, format="png", dpi=DPI)
    reference.seek(0)
    expected = Image.open(reference).convert("RGB").quantize(PNG_COLOURS, method=Image.Quantize.MEDIANCUT,
                                                             dither=Image.Dither.NONE)
    _Output(tmp_path, ("png",)).save(_figure(), "f", "caption")
    written = Image.open(tmp_path / "f.png")
    assert written.size == expected.size
    assert np.array_equal(np.asarray(written.convert("RGB")), np.asarray(expected.convert("RGB")))
