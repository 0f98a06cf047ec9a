"""Figures from tidy results tables: which figures are drawn for which data, and that the files are real."""

import inspect
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from covstudy import plotting
from covstudy.cli import plot_main
from covstudy.plotting import OKABE_ITO, method_colors, plot_results
from tidy_tables import balanced_table, binomial_table, write_folder

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TAIL = "delta0.05_two-sided"
PNG = ("png",)  # most tests skip the PDFs to stay fast; the exact grid checks them


def png_size(path):
    """(width, height) from the PNG's IHDR chunk, after checking the signature."""
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC and data[12:16] == b"IHDR", path
    return struct.unpack(">II", data[16:24])


def names(paths):
    return sorted(p.name for p in paths if p.suffix == ".png")


def assert_valid(paths):
    for path in paths:
        assert path.stat().st_size > 1000, path
        if path.suffix == ".png":
            width, height = png_size(path)
            assert 500 <= width <= 3000 and 300 <= height <= 3000, (path, width, height)
        else:
            assert path.read_bytes()[:5] == b"%PDF-", path


@pytest.fixture(scope="module")
def exact_folder(tmp_path_factory):
    table = binomial_table(["wald", "clopper_pearson"], ns=[10, 20, 30, 40],
                           ps=np.round(np.arange(0.1, 1.0, 0.1), 2))
    folder = write_folder(tmp_path_factory.mktemp("exact"), table, {"name": "small"})
    return folder, plot_results(folder, formats=PNG)


def test_exact_grid_gets_every_binomial_figure(exact_folder):
    folder, paths = exact_folder
    # n: 3 of the 4 spread over the range (10, 30, 40 — ends included); p: nearest 0.2, 0.05, 0.5
    assert names(paths) == sorted([
        *(f"coverage_vs_p_n{n}_{TAIL}_exact.png" for n in (10, 30, 40)),
        *(f"coverage_vs_n_p{p}_{TAIL}_exact.png" for p in (0.1, 0.2, 0.5)),
        f"width_vs_p_{TAIL}_exact.png", f"width_vs_n_{TAIL}_exact.png",
        f"heatmap_{TAIL}_exact.png", f"tradeoff_{TAIL}_exact.png"])
    assert len(paths) == 10
    assert all(p.parent == folder / "figures" for p in paths)
    assert_valid(paths)


def test_index_lists_the_pngs_with_captions(exact_folder):
    folder, paths = exact_folder
    index = pd.read_csv(folder / "figures" / "index.csv")
    assert sorted(index["file"]) == sorted(f"figures/{n}" for n in names(paths))
    caption = index.loc[index["file"].str.contains("coverage_vs_p_n30"), "caption"].item()
    assert "n = 30" in caption and "0.95" in caption and "exact" in caption


def test_one_n_gives_coverage_vs_p_only(tmp_path):
    table = binomial_table(["wilson", "jeffreys"], ns=[25], ps=[0.1, 0.3, 0.5])
    paths = plot_results(write_folder(tmp_path, table), formats=PNG)
    assert names(paths) == [f"coverage_vs_p_n25_{TAIL}_exact.png", f"tradeoff_{TAIL}_exact.png",
                            f"width_vs_p_{TAIL}_exact.png"]


def test_one_p_gives_coverage_vs_n_only(tmp_path):
    table = binomial_table(["wald"], ns=[10, 11, 12, 13], ps=[0.2])
    paths = plot_results(write_folder(tmp_path, table), formats=PNG)
    assert names(paths) == [f"coverage_vs_n_p0.2_{TAIL}_exact.png", f"width_vs_n_{TAIL}_exact.png"]


def test_sparse_cross_gets_no_heatmap(tmp_path):
    # n = 30 across p, plus p = 0.2 across n: a cross, mostly empty as a (p, n) grid
    table = pd.concat([binomial_table(["wald"], [30], np.arange(0.05, 1, 0.05)),
                       binomial_table(["wald"], range(10, 60, 5), [0.2])])
    paths = plot_results(write_folder(tmp_path, table), formats=PNG)
    assert not any(n.startswith("heatmap") for n in names(paths))
    assert f"coverage_vs_n_p0.2_{TAIL}_exact.png" in names(paths)


def test_one_figure_set_per_delta(tmp_path):
    table = pd.concat([binomial_table(["wilson"], [20], [0.2, 0.4], delta=d) for d in (0.05, 0.1)])
    paths = plot_results(write_folder(tmp_path, table), formats=PNG)
    assert {n for n in names(paths) if n.startswith("coverage")} == {
        "coverage_vs_p_n20_delta0.05_two-sided_exact.png", "coverage_vs_p_n20_delta0.1_two-sided_exact.png"}


def test_mc_with_exact_reference_gets_mc_vs_exact_figures(tmp_path):
    table = binomial_table(["wilson", "clopper_pearson"], ns=[30], ps=np.arange(0.05, 1, 0.05), reps=500,
                           seed=3, with_exact=True)
    paths = plot_results(write_folder(tmp_path, table), formats=PNG)
    assert names(paths) == [f"mc_vs_exact_n30_{TAIL}_mc.png", f"standardised_difference_{TAIL}_mc.png",
                            f"tradeoff_{TAIL}_mc.png", f"width_vs_p_{TAIL}_mc.png"]
    assert_valid(paths)


def test_exact_rows_are_joined_onto_mc_rows(tmp_path):
    exact = binomial_table(["wald"], [15], [0.3, 0.6])
    mc = binomial_table(["wald"], [15], [0.3, 0.6], reps=400, seed=1)
    df = plotting.load_results(write_folder(tmp_path, pd.concat([exact, mc])))
    joined = df[df["engine"] == "mc"].sort_values("p")
    np.testing.assert_allclose(joined["exact_coverage"], exact.sort_values("p")["coverage"], rtol=0, atol=0)
    np.testing.assert_allclose(joined["exact_mean_width"], exact.sort_values("p")["mean_width"], rtol=0, atol=0)
    paths = plot_results(tmp_path, formats=PNG)
    assert f"coverage_vs_p_n15_{TAIL}_exact.png" in names(paths)
    assert f"mc_vs_exact_n15_{TAIL}_mc.png" in names(paths)


def test_balanced_table_gets_prevalence_and_rate_figures(tmp_path):
    table = balanced_table()
    table = table[table["tpr"].isin([0.6, 0.9]) & table["tnr"].isin([0.6, 0.9])]  # 4 points: 12 figures, not 22
    paths = plot_results(write_folder(tmp_path, table), formats=PNG)
    points = table[table["n"] == 200][["tpr", "tnr"]].drop_duplicates().itertuples(index=False)
    fixed = [f"n200_tpr{tpr:g}_tnr{tnr:g}" for tpr, tnr in points]  # every operating point gets its figure
    assert len(fixed) > 1
    assert names(paths) == sorted(
        [f"ba_coverage_vs_prevalence_{f}_{TAIL}_mc_{d}.png" for d in ("iid", "stratified") for f in fixed]
        + [f"ba_heatmap_n200_prevalence0.1_{TAIL}_mc_{d}.png" for d in ("iid", "stratified")]
        + [f"ba_tradeoff_{TAIL}_mc_{d}.png" for d in ("iid", "stratified")])
    assert_valid(paths)


def test_rerun_removes_figures_of_the_previous_run(tmp_path):
    write_folder(tmp_path, binomial_table(["wald"], [10], [0.2, 0.4]))
    first = plot_results(tmp_path)
    write_folder(tmp_path, binomial_table(["wald"], [20], [0.2, 0.4]))
    second = plot_results(tmp_path, formats=PNG)
    assert sorted((tmp_path / "figures").glob("*.*g")) == sorted(second)  # no stale PNG
    assert not list((tmp_path / "figures").glob("*.pdf"))  # nor PDF
    assert len(first) == 2 * 2 and len(second) == 2  # coverage_vs_p and width_vs_p, n = 10 then n = 20
    assert "n20" in second[0].name


def test_method_colours_are_fixed_and_colour_blind_safe():
    full = binomial_table(["wald", "wilson", "clopper_pearson", "jeffreys", "agresti_coull"], [5], [0.5])
    colors = method_colors(full)
    assert colors == {"wald": OKABE_ITO["vermillion"], "wilson": OKABE_ITO["blue"],
                      "clopper_pearson": OKABE_ITO["green"], "jeffreys": OKABE_ITO["purple"],
                      "agresti_coull": OKABE_ITO["orange"]}
    # the same colour whatever else is in the table
    assert method_colors(full[full["method"] == "jeffreys"]) == {"jeffreys": OKABE_ITO["purple"]}


def test_unknown_and_extra_labels_get_distinct_deterministic_colours():
    table = pd.DataFrame({"method": ["wilson", "wilson", "zeta", "alpha"],
                          "label": ["wilson", "wilson (cc)", "zeta", "alpha"]})
    colors = method_colors(table)
    assert colors["wilson"] == OKABE_ITO["blue"]
    assert len(set(colors.values())) == 4
    assert set(colors.values()) - {OKABE_ITO["blue"]} <= set(plotting.FALLBACK)
    assert method_colors(table.iloc[::-1]) == colors  # row order does not matter
    assert plotting.method_order(table) == ["wilson", "wilson (cc)", "zeta", "alpha"]  # the table's (config) order


def test_pick_prefers_targets_then_spreads():
    assert plotting._pick([0.01, 0.1, 0.2, 0.3, 0.5, 0.9], targets=(0.2, 0.05, 0.5)) == [0.01, 0.2, 0.5]
    assert plotting._pick(range(10, 101, 10)) == [10, 50, 100]
    assert plotting._pick([7, 3]) == [3, 7]


def test_main_writes_figures_and_report(tmp_path, capsys):
    write_folder(tmp_path, binomial_table(["wilson"], [10], [0.2, 0.5]), {"name": "tiny"})
    assert plot_main([str(tmp_path)]) == 0  # covstudy-plot (covstudy.plotting.main before issue 39)
    printed = capsys.readouterr().out.split()
    assert str(tmp_path / "report.md") in printed and str(tmp_path / "report.tex") in printed
    figure = str(tmp_path / "figures" / f"coverage_vs_p_n10_{TAIL}_exact")
    assert {figure + ".png", figure + ".pdf"} <= set(printed)
    assert_valid([Path(p) for p in printed if p.endswith(("png", "pdf"))])


def test_main_without_results_is_a_one_line_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        plot_main([str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err == f"covstudy-plot: error: no results.csv in {tmp_path}\n"


def test_plotting_does_not_use_pyplot():
    # pyplot would switch the user's backend and keep global figure state
    source = inspect.getsource(plotting)
    assert "import matplotlib.pyplot" not in source and "from matplotlib import pyplot" not in source
    assert "from matplotlib.figure import Figure" in source


def test_panels_are_capped_in_config_order():
    table = pd.DataFrame({"method": [f"m{i:02d}" for i in range(20)] + ["wald"], "label": None})
    table["label"] = table["method"]
    labels, note = plotting._panel_labels(table, plotting.method_order(table))
    assert plotting.MAX_PANELS == 16
    assert len(labels) == 16 and labels[0] == "m00" and labels[-1] == "m15"
    assert note == " (first 16 of 21 methods)"


def test_tradeoff_texts_stay_on_the_figure_and_apart():
    """The trade-off figure is narrow: a long title is wrapped, the axis label fits, and the
    minima written below the axis for methods of similar width do not overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from covstudy.plots.tradeoff import tradeoff

    labels = ["A", "B", "C", "D"]
    sub = pd.DataFrame({"label": np.repeat(labels, 2), "mean_width": [0.10, 0.10, 0.101, 0.101, 0.102, 0.102, 0.2, 0.2],
                        "coverage": [0.95, 0.30, 0.94, 0.31, 0.93, 0.32, 0.96, 0.95]})
    fig = tradeoff(sub, {"delta": 0.05}, dict(zip(labels, OKABE_ITO.values())), labels,
                   title="Trade-off\n" + ", ".join(f"axis{i} = {i}" for i in range(20)))
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    ax = fig.axes[0]
    for text in (fig._suptitle, ax.xaxis.label):
        extent = text.get_window_extent(renderer)
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1, text.get_text()
    notes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text().startswith("min ")]
    assert len(notes) == 3
    assert not any(a.overlaps(b) for i, a in enumerate(notes) for b in notes[i + 1:])


def test_save_figure_writes_small_palette_pngs_and_undated_pdfs_byte_for_byte(tmp_path):
    from PIL import Image
    from matplotlib.figure import Figure

    from covstudy.plots.style import PNG_COLOURS, save_figure

    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    for i, colour in enumerate(OKABE_ITO.values()):
        ax.plot(np.arange(10), np.arange(10) * (i + 1), color=colour, label=f"line {i}")
    ax.legend()
    first, second = save_figure(fig, tmp_path / "a.png", dpi=100), save_figure(fig, tmp_path / "b.png", dpi=100)
    assert first.read_bytes() == second.read_bytes()
    with Image.open(first) as image:
        assert image.mode == "P" and image.size == png_size(first) == (400, 300)
        assert len(image.getcolors()) <= PNG_COLOURS
        # the palette keeps the lines' colours: every Okabe-Ito colour is in it
        colours = {tuple(c) for _, c in image.convert("RGB").getcolors()}
    for hex_colour in OKABE_ITO.values():
        rgb = tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
        assert min(sum(abs(a - b) for a, b in zip(rgb, c)) for c in colours) <= 6, hex_colour
    fig.savefig(tmp_path / "rgba.png", dpi=100)
    assert first.stat().st_size < (tmp_path / "rgba.png").stat().st_size / 2
    pdf = save_figure(fig, tmp_path / "a.pdf")
    assert b"CreationDate" not in pdf.read_bytes() and pdf.read_bytes() == save_figure(fig, tmp_path / "b.pdf").read_bytes()
