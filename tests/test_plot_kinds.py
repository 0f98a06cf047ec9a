"""Figure kinds: each is drawn exactly when the table has the grid columns it needs."""

import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tidy_tables import balanced_table as balanced_grid, binomial_table, write_folder

from covstudy import coverage, plots
from covstudy.plots import PLOTS, Plot, plot_results
from covstudy.plots.kind import describe

PNG = ("png",)
PS = np.round(np.arange(0.1, 1.0, 0.2), 2)


def exact_table():
    return binomial_table(["wald", "wilson"], ns=[10, 20, 30], ps=PS)


def mc_table():
    return binomial_table(["wald", "wilson"], ns=[10, 20, 30], ps=PS, reps=300, seed=2, with_exact=True)


def balanced_table():
    """The balanced-accuracy rows at 4 operating points (tpr, tnr in {0.6, 0.9}): 12 figures, not 22."""
    table = balanced_grid()
    return table[table["tpr"].isin([0.6, 0.9]) & table["tnr"].isin([0.6, 0.9])]


def clustered_table():
    """Exact rows of the clustered design: two cluster sizes, three icc values, one p."""
    frames = [coverage(m, design="clustered", clusters=4, cluster_size=s, p=0.8, icc=[0.0, 0.1, 0.3]).to_frame()
              for m in ("wilson", "wilson_deff") for s in (1, 3)]
    return pd.concat(frames, ignore_index=True).assign(label=lambda d: d["method"], seconds=0.0)


def auc_table():
    """A tidy Monte Carlo table of the binormal design: n_pos = n_neg in {10, 50, 200}, three AUCs, two scales."""
    rows = []
    for method in ("delong", "newcombe"):
        for size in (10, 50, 200):
            for auc in (0.7, 0.9, 0.99):
                for levels in (0, 5):
                    c = 0.95 - (0.02 if method == "delong" else 0.0) * auc * 10 / size
                    rows.append({"method": method, "label": method, "side": "two-sided", "design": "binormal",
                                 "n_pos": size, "n_neg": size, "auc": auc, "sd_ratio": 1.0, "levels": levels,
                                 "truth": auc, "delta": 0.05, "engine": "mc", "reps": 1000, "seed": 1,
                                 "coverage": c, "mcse": np.sqrt(c * (1 - c) / 1000), "miss_low": 1 - c,
                                 "miss_high": 0.0, "mean_width": 1 / np.sqrt(size), "sd_width": 0.01,
                                 "n_valid": 1000, "seconds": 0.0})
    return pd.DataFrame(rows)


def multiclass_table():
    """A Monte Carlo table of the multiclass design: coverage against K at two n."""
    rows = []
    for method in ("mr_union_cp", "mr_wald"):
        for K in (2, 3, 5):
            for n in (50, 200):
                c = 0.99 if method == "mr_union_cp" else 0.95 - 0.01 * K
                rows.append({"method": method, "label": method, "side": "two-sided", "design": "multiclass",
                             "metric": "macro_recall", "K": K, "n": n, "recall": 0.8, "imbalance": 4.0,
                             "truth": 0.8, "delta": 0.05, "engine": "mc", "reps": 500, "seed": 1, "coverage": c,
                             "mcse": np.sqrt(c * (1 - c) / 500), "miss_low": (1 - c) / 2, "miss_high": (1 - c) / 2,
                             "mean_width": 1 / np.sqrt(n / K), "sd_width": 0.01, "n_valid": 500,
                             "exact_coverage": np.nan, "exact_mean_width": np.nan, "seconds": 0.0})
    return pd.DataFrame(rows)
def crossval_table():
    """A Monte Carlo table of the crossval design: coverage of Err_XY against n at two Bayes errors."""
    rows = []
    for method in ("wilson", "nested"):
        for n in (50, 100, 200):
            for be in (0.1, 0.3):
                c = 0.9 if method == "nested" else 0.85 + n / 4000
                rows.append({"method": method, "label": method, "side": "two-sided", "design": "crossval",
                             "metric": "err_xy", "n": n, "d": 5, "bayes_error": be, "prevalence": 0.5, "folds": 5,
                             "repeats": 10, "holdout": 0.2, "ridge": 0.01, "truth": be + 0.02, "delta": 0.05,
                             "engine": "mc", "reps": 300, "seed": 1, "coverage": c,
                             "mcse": np.sqrt(c * (1 - c) / 300), "miss_low": (1 - c) / 2, "miss_high": (1 - c) / 2,
                             "mean_width": 1 / np.sqrt(n), "sd_width": 0.01, "n_valid": 300,
                             "exact_coverage": np.nan, "exact_mean_width": np.nan, "seconds": 0.0})
    return pd.DataFrame(rows)


def comparison_table():
    """Paired-design rows from the real ``covstudy.coverage``: two methods, two n, truth from -0.1 to 0.1."""
    frames = []
    for method in ("paired_wald", "paired_tango"):
        for n in (20, 40):
            r = coverage(method, design="paired", n=n, acc_first=np.array([0.7, 0.8, 0.9]), acc_second=0.8,
                         correlation=0.3)
            frames.append(r.to_frame().assign(label=method, exact_coverage=np.nan, exact_mean_width=np.nan,
                                              seconds=0.0))
    return pd.concat(frames, ignore_index=True)


def eval_table():
    """Exact rows of the eval design: three question counts, two K, one method."""
    frames = [coverage("eval.clustered_t", design="eval", questions=[4, 6, 8], groups=2, answers=k, p=0.8,
                       icc_group=0.1, icc_question=0.3).to_frame() for k in (1, 2)]
    return pd.concat(frames, ignore_index=True).assign(label=lambda d: d["method"], seconds=0.0)


def judged_table():
    """Exact rows of the judged design: two human-label counts, two judges, the classical interval and PPI."""
    frames = [coverage(m, design="judged", examples=30, labelled=[4, 8], p=0.3, sensitivity=se, specificity=sp).to_frame()
              for m in ("judged.classical", "judged.ppi") for se, sp in ((0.9, 0.9), (0.7, 0.8))]
    return pd.concat(frames, ignore_index=True).assign(label=lambda d: d["method"], seconds=0.0)


# kind name -> (a table it applies to, the file-name prefix of its figures)
CASES = {
    "coverage_vs_p": (exact_table, "coverage_vs_p_n"),
    "coverage_vs_n": (exact_table, "coverage_vs_n_p"),
    "width_vs_p": (exact_table, "width_vs_p_"),
    "width_vs_n": (exact_table, "width_vs_n_"),
    "heatmap": (exact_table, "heatmap_"),
    "tradeoff": (exact_table, "tradeoff_"),
    "mc_vs_exact": (mc_table, "mc_vs_exact_n"),
    "standardised_difference": (mc_table, "standardised_difference_"),
    "coverage_vs_prevalence": (balanced_table, "ba_coverage_vs_prevalence_"),
    "rate_heatmap": (balanced_table, "ba_heatmap_"),
    "metric_tradeoff": (balanced_table, "ba_tradeoff_"),
    "auc_coverage_vs_auc": (auc_table, "auc_coverage_vs_auc_levels"),
    "auc_coverage_vs_n": (auc_table, "auc_coverage_vs_n_levels"),
    "auc_width_vs_n": (auc_table, "auc_width_vs_n_levels"),
    "auc_tradeoff": (auc_table, "auc_tradeoff_levels"),
    "coverage_vs_K": (multiclass_table, "macro_recall_coverage_vs_K_n"),
    "width_vs_K": (multiclass_table, "macro_recall_width_vs_K_"),
    "difference_coverage": (comparison_table, "difference_coverage_"),
    "difference_excludes_zero": (comparison_table, "difference_excludes_zero_"),
    "coverage_vs_icc": (clustered_table, "coverage_vs_icc_clusters4_p0.8_"),
    "coverage_vs_questions": (eval_table, "coverage_vs_questions_groups2_p0.8_icc_group0.1_"),
    "crossval_coverage_vs_n": (crossval_table, "err_xy_crossval_coverage_vs_n_d5_folds5_"),
    "crossval_width_vs_n": (crossval_table, "crossval_width_vs_n_d5_folds5_"),
    "judged_coverage": (judged_table, "judged_coverage_examples30_p0.3_samplingrandom_"),
    "judged_width": (judged_table, "judged_width_examples30_p0.3_samplingrandom_"),
}


def pngs(paths):
    return sorted(p.name for p in paths if p.suffix == ".png")


def test_every_registered_kind_is_covered_and_named_once():
    names = [kind.name for kind in PLOTS]
    assert sorted(names) == sorted(CASES) and len(set(names)) == len(names)
    assert [kind.position for kind in PLOTS] == sorted(kind.position for kind in PLOTS)


@pytest.mark.parametrize("kind", PLOTS, ids=lambda kind: kind.name)
def test_kind_applies_exactly_when_its_axes_have_values(kind):
    table = CASES[kind.name][0]()
    assert kind.applies(table)
    for axis in kind.axes:
        assert not kind.applies(table.drop(columns=axis)), axis
        assert not kind.applies(table.assign(**{axis: np.nan})), axis


def _touched(fig, path, **kwargs):
    Path(path).touch()
    return Path(path)


def _not_rendered(monkeypatch):
    """Figures drawn, their files touched, not rendered (test_plotting.py and the committed studies check pixels)."""
    from covstudy.plots import style

    monkeypatch.setattr(style, "save_figure", _touched)


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """Each kind's table drawn once: factory -> (figure names, index.csv). The figures are drawn but their
    files not rendered (half the time: test_plotting.py and the committed studies check the pixels)."""
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        _not_rendered(mp)
        for factory in (exact_table, mc_table, balanced_table, multiclass_table, comparison_table, auc_table,
                        clustered_table, crossval_table, eval_table, judged_table):
            folder = write_folder(tmp_path_factory.mktemp(factory.__name__), factory())
            out[factory] = pngs(plot_results(folder, formats=PNG)), pd.read_csv(folder / "figures" / "index.csv")
    return out


@pytest.mark.parametrize("kind", PLOTS, ids=lambda kind: kind.name)
def test_kind_is_drawn_with_its_stem_and_caption(kind, drawn):
    factory, prefix = CASES[kind.name]
    names, index = drawn[factory]
    mine = [name for name in names if name.startswith(prefix)]
    assert mine, names
    captions = index.loc[index["file"].isin([f"figures/{name}" for name in mine]), "caption"]
    assert len(captions) == len(mine) and all("nominal 1 − δ = 0.95" in c for c in captions)


def test_unknown_design_with_n_and_p_axes_gets_the_binomial_figures(tmp_path, monkeypatch):
    _not_rendered(monkeypatch)
    table = exact_table().assign(design="paired")  # a design plots/ has never heard of
    names = pngs(plot_results(write_folder(tmp_path, table), formats=PNG))
    assert "coverage_vs_p_n10_delta0.05_two-sided_exact_paired.png" in names
    for kind, (factory, prefix) in CASES.items():
        assert any(name.startswith(prefix) for name in names) == (factory is exact_table), kind
    assert all(name.endswith("_paired.png") for name in names)


def test_table_without_prevalence_gets_no_balanced_figures(drawn):
    names = drawn[exact_table][0] + drawn[mc_table][0]
    assert names and not any(name.startswith("ba_") for name in names)


def test_table_without_p_gets_no_binomial_figures(drawn):
    names = drawn[balanced_table][0]
    assert names and all(name.startswith("ba_") for name in names)
    names = drawn[auc_table][0]
    assert len(names) == 8 and all(name.startswith("auc_") for name in names)  # 4 kinds × 2 score scales


def test_a_new_kind_is_one_class(tmp_path, monkeypatch):
    class ClusterCount(Plot):
        name, axes, position = "cluster_count", ("n", "p", "clusters"), 99

        def selections(self, sub, combo):
            return [{}]

        def draw(self, sub, combo, sel, colors, order):
            from matplotlib.figure import Figure

            fig = Figure(figsize=(4, 3), dpi=150)
            fig.subplots().plot(sub["clusters"], sub["coverage"], "o")
            return fig

        def caption(self, sub, combo, sel):
            return f"Coverage against clusters, {describe(combo)}."

    monkeypatch.setattr(plots, "PLOTS", [*PLOTS, ClusterCount()])
    table = binomial_table(["wald"], [10], [0.2, 0.4])
    without = pngs(plot_results(write_folder(tmp_path / "a", table), formats=PNG))
    assert not any(name.startswith("cluster_count") for name in without)
    with_axis = pngs(plot_results(write_folder(tmp_path / "b", table.assign(clusters=3)), formats=PNG))
    assert "cluster_count_delta0.05_two-sided_exact.png" in with_axis
    assert len(with_axis) == len(without) + 1


def test_no_plots_module_uses_pyplot():
    for info in pkgutil.iter_modules(plots.__path__):
        source = inspect.getsource(__import__(f"covstudy.plots.{info.name}", fromlist=["_"]))
        assert "import matplotlib.pyplot" not in source and "from matplotlib import pyplot" not in source
