"""The results explorer (report.html, results/index.html): its data, its bytes, and the page in a real browser.

The browser tests drive Debian's headless Chromium through chromedriver (selenium): the page
loads with no console error and no request off the disk, changing a selector changes the
drawn data (read back from the page and compared with the results table), the table sorts,
and every committed study's page draws (a screenshot each, kept in $COVSTUDY_SCREENSHOTS if set).
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import covstudy
from covstudy.report.explorer import decode, encode, write_html, write_index
from covstudy.report.markdown import write_report
from covstudy.study.summary import read_results

ROOT = Path(__file__).resolve().parents[1]
OVERRIDES = ["grid.n=[10,20,40]", "grid.p=[0.1,0.3,0.5]", "methods=[wilson,wald,clopper_pearson]",
             "engine=both", "reps=400"]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("results") / "tiny"
    covstudy.run_study("quick", OVERRIDES, out=out, progress=False)
    write_report(out)
    write_html(out)
    write_index(out.parent)
    return out


def page_data(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return json.loads(re.search(r'<script type="application/json" id="covstudy-data">(.*?)</script>', text, re.S)[1])


def test_page_holds_the_table(study):
    df = read_results(study)
    shown = decode(page_data(study / "report.html"))
    assert len(shown) == len(df) == 27
    assert list(shown["label"]) == list(df["label"])
    for col in ("n", "p", "delta"):
        assert list(shown[col]) == list(df[col])
    for col in ("coverage", "mcse", "miss_low", "miss_high", "mean_width", "exact_coverage"):
        assert np.array_equal(shown[col], df[col].to_numpy().astype(np.float32).astype(float)), col


def test_page_is_self_contained_and_reproducible(study):
    first = (study / "report.html").read_bytes()
    write_html(study)
    assert (study / "report.html").read_bytes() == first
    text = first.decode()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # nothing fetched from a network
    assert "<script src" not in text and "<link" not in text
    assert 'href="results.parquet"' in text and 'href="report.md"' in text and "index.html" not in text


def test_encode_stores_constants_once():
    df = pd.DataFrame({"method": ["wald", "wald"], "label": ["Wald", "Wald"], "n": [10, 20], "delta": [0.05, 0.05],
                       "side": ["two-sided"] * 2, "engine": ["exact"] * 2, "coverage": [0.9, 0.8],
                       "mcse": [0.0, 0.0], "mean_width": [0.3, 0.2]})
    data = encode(df)
    assert data["measures"]["mcse"] == {"const": 0}
    assert [a["name"] for a in data["axes"]] == ["n", "delta", "side", "engine"]
    assert decode(data)["coverage"].tolist() == pytest.approx([0.9, 0.8])


def test_index_lists_every_study_folder(study):
    text = (study.parent / "index.html").read_text()
    assert 'href="tiny/report.html"' in text and re.search(r'data-v="27">27<', text)
    assert "How close to nominal" in text  # the study's question


# --------------------------------------------------------------------------- in a browser

def _browser():
    """A headless Chromium driven by chromedriver, or a skip saying what is missing."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.skip("no Chromium with chromedriver on PATH: .ci/run installs Debian's chromium and "
                    "chromium-driver with apt-get; install them to run the browser tests")
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # selenium's manager must not look anything up
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1100,1300", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver, options, Service(executable_path=driver_path)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    webdriver, options, service = _browser()
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(options=options, service=service)
    yield driver
    driver.quit()


def open_page(driver, path: Path):
    driver.get_log("browser"), driver.get_log("performance")  # forget what came before
    driver.get(path.resolve().as_uri())
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    requests = [json.loads(e["message"])["message"] for e in driver.get_log("performance")]
    # the page's own requests: Chromium's new-tab page may still be loading its chrome-untrusted:
    # parts in the same log, which are not the page's and not the network
    urls = [m["params"]["request"]["url"] for m in requests if m["method"] == "Network.requestWillBeSent"
            and m["params"].get("documentURL") == path.resolve().as_uri()]
    assert path.resolve().as_uri() in urls
    assert not [u for u in urls if not u.startswith(("file:", "data:", "blob:", "chrome:"))], urls  # no network


def drawn(driver) -> dict:
    return driver.execute_script("return covstudyExplorer.drawn;")


def expected(df, measure, x, **fixed) -> dict:
    """label -> the measure against x at the fixed values, from the results table (float32, as embedded)."""
    sel = df
    for col, value in fixed.items():
        sel = sel[sel[col] == value]
    return {lab: [float(np.float32(v)) for v in g.sort_values(x)[measure]] for lab, g in sel.groupby("label")}


def test_selectors_change_the_drawn_data(study, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    df = read_results(study)
    open_page(browser, study / "report.html")
    state = drawn(browser)
    assert state["measure"] == "coverage" and state["x"] in ("n", "p")
    assert len(state["series"]) == 3 and len(browser.find_elements(By.CSS_SELECTOR, "#chart polyline.series")) == 3

    Select(browser.find_element(By.ID, "sel-x")).select_by_value("p")
    Select(browser.find_element(By.ID, "sel-n")).select_by_visible_text("40")
    state = drawn(browser)
    assert state["fixed"]["n"] == 40
    got = {s["label"]: s["y"] for s in state["series"]}
    assert got == expected(df, "coverage", "p", n=40)
    assert all(s["x"] == [0.1, 0.3, 0.5] for s in state["series"])
    assert browser.find_elements(By.CSS_SELECTOR, "#chart polygon.band")  # Monte Carlo: ±2·MCSE bands
    assert browser.find_elements(By.CSS_SELECTOR, "#chart line.nominal")

    Select(browser.find_element(By.ID, "sel-n")).select_by_visible_text("10")
    assert {s["label"]: s["y"] for s in drawn(browser)["series"]} == expected(df, "coverage", "p", n=10) != got

    Select(browser.find_element(By.ID, "sel-measure")).select_by_value("mean_width")
    assert {s["label"]: s["y"] for s in drawn(browser)["series"]} == expected(df, "mean_width", "p", n=10)

    browser.find_element(By.CSS_SELECTOR, '#controls input[data-label="Wald"]').click()
    assert sorted(s["label"] for s in drawn(browser)["series"]) == ["Clopper–Pearson", "Wilson"]

    Select(browser.find_element(By.ID, "sel-x")).select_by_value("n")
    state = drawn(browser)
    assert state["x"] == "n" and state["series"][0]["x"] == [10, 20, 40] and "p" in state["fixed"]

    chart = browser.find_element(By.ID, "chart")
    ActionChains(browser).move_to_element(chart).perform()  # hover: the values at the nearest x
    tip = browser.find_element(By.ID, "tip")
    assert tip.is_displayed() and "Wilson: " in tip.text and "n = " in tip.text


def test_tradeoff_view_averages_over_the_axis(study, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    df = read_results(study)
    open_page(browser, study / "report.html")
    Select(browser.find_element(By.ID, "sel-x")).select_by_value("p")
    Select(browser.find_element(By.ID, "sel-n")).select_by_visible_text("20")
    Select(browser.find_element(By.ID, "sel-view")).select_by_value("tradeoff")
    state = drawn(browser)
    assert state["view"] == "tradeoff" and state["x"] == "mean_width"
    at = df[df["n"] == 20].groupby("label")
    for s in state["series"]:  # one point per method: its mean width and mean coverage over p at n = 20
        assert s["x"] == [pytest.approx(at["mean_width"].mean()[s["label"]], abs=1e-6)]
        assert s["y"] == [pytest.approx(at["coverage"].mean()[s["label"]], abs=1e-6)]
    assert len(state["series"]) == 3


def test_heatmap_view_shows_one_method_over_two_axes(study, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    df = read_results(study)
    open_page(browser, study / "report.html")
    Select(browser.find_element(By.ID, "sel-view")).select_by_value("heatmap")
    Select(browser.find_element(By.ID, "sel-x")).select_by_value("p")
    assert Select(browser.find_element(By.ID, "sel-y")).first_selected_option.text == "n"
    Select(browser.find_element(By.ID, "sel-method")).select_by_visible_text("Wald")
    state = drawn(browser)
    assert state["view"] == "heatmap" and state["method"] == "Wald" and (state["x"], state["y"]) == ("p", "n")
    wald = df[df["label"] == "Wald"]
    table = {(p, n): float(np.float32(c)) for p, n, c in zip(wald["p"], wald["n"], wald["coverage"])}
    assert {(x, y): v for x, y, v in state["cells"]} == table
    assert len(browser.find_elements(By.CSS_SELECTOR, "#chart rect.cell")) == 9


def test_summary_table_sorts(study, browser):
    from selenium.webdriver.common.by import By

    open_page(browser, study / "report.html")
    header = browser.find_element(By.XPATH, '//table[@id="summary"]//th[text()="mean width"]')
    column = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#summary th")].index("mean width")

    def widths():
        cells = browser.find_elements(By.CSS_SELECTOR, f"#summary tbody td:nth-child({column + 1})")
        return [float(c.get_attribute("data-v")) for c in cells]

    header.click()
    assert widths() == sorted(widths())
    header.click()
    assert widths() == sorted(widths(), reverse=True)


def test_index_page_opens(study, browser):
    from selenium.webdriver.common.by import By

    open_page(browser, study.parent / "index.html")
    link = browser.find_element(By.LINK_TEXT, "quick")
    assert link.get_attribute("href").endswith("tiny/report.html")


def test_evaluation_page_draws_each_metric(browser, tmp_path):
    """covstudy-evaluate's report.html: a forest plot per metric, its intervals those of the table."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from covstudy.report.evaluation_page import write_evaluation_html

    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 80)
    predicted = np.where(rng.random(80) < 0.85, truth, 1 - truth)
    ev = covstudy.evaluate(truth, predicted, audit=False)
    page = write_evaluation_html(ev, tmp_path)
    open_page(browser, page)
    for metric in ("accuracy", "recall"):
        Select(browser.find_element(By.ID, "sel-metric")).select_by_value(metric)
        state = drawn(browser)
        rows = ev.table[(ev.table.metric == metric) & ev.table.lower.notna()]
        assert state["metric"] == metric
        assert [(r["method"], r["lower"], r["upper"]) for r in state["rows"]] == \
            [(m, pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12)) for m, lo, hi in
             zip(rows.method, rows.lower, rows.upper)]
        assert len(browser.find_elements(By.CSS_SELECTOR, "#chart line.interval")) == len(rows)
    ActionChains(browser).move_to_element(browser.find_element(By.ID, "chart")).perform()
    assert "interval [" in browser.find_element(By.ID, "tip").text


def committed_pages() -> list[Path]:
    tracked = subprocess.run(["git", "ls-files", "results"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    return [ROOT / f for f in tracked.stdout.split() if f.endswith("/report.html")]


def test_every_committed_study_page_draws(browser, tmp_path):
    from selenium.webdriver.common.by import By

    pages = committed_pages()
    assert len(pages) >= 10
    keep = Path(os.environ.get("COVSTUDY_SCREENSHOTS", tmp_path))
    keep.mkdir(parents=True, exist_ok=True)
    for page in pages:
        open_page(browser, page)
        state = drawn(browser)
        if "rows" in state:  # covstudy-evaluate's page: a forest plot
            assert state["rows"] and browser.find_elements(By.CSS_SELECTOR, "#chart line.interval"), page
        else:
            assert state["series"] and all(len(s["y"]) >= 1 for s in state["series"]), page
            assert browser.find_elements(By.CSS_SELECTOR, "#chart polyline.series"), page
        assert browser.save_screenshot(str(keep / f"{page.parent.name}.png"))
    open_page(browser, write_index(ROOT / "results", tmp_path / "index.html"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#studies tbody tr")) >= len(pages)


@pytest.mark.parametrize("name", ["mc_vs_exact", "clustered"])
def test_committed_page_is_what_its_table_writes(name, tmp_path):
    """A committed study's report.html is the page of its committed table, byte for byte (a rerun
    with its command writes the same table, hence the same page)."""
    committed = ROOT / "results" / name
    if not (committed / "report.html").is_file():
        pytest.skip("no committed page")
    folder = tmp_path / "results" / name
    (folder / "figures").mkdir(parents=True)
    for f in ("results.parquet", "study.yaml", "report.md", "report.tex", "figures/index.csv"):
        shutil.copy(committed / f, folder / f)
    for rel in pd.read_csv(folder / "figures" / "index.csv")["file"]:  # the page links the figures there are
        for path in (folder / rel, (folder / rel).with_suffix(".pdf")):
            path.touch()
    command = (committed / "report.md").read_text().split("## How to rerun")[1].split("```bash\n")[1].split("\n")[0]
    (folder / "provenance.json").write_text(json.dumps({"overrides": command.split()[1:]}))
    pytest.importorskip("pyarrow")
    assert write_html(folder).read_bytes() == (committed / "report.html").read_bytes(), \
        f"results/{name}/report.html is stale: python experiments/explorer_pages.py (or rerun the study)"


# --------------------------------------------------------------------------- a band study's page

BANDS = ROOT / "results" / "roc_bands"


def band_study(out):
    import yaml

    from covstudy.bands.study import BandStudy

    cfg = yaml.safe_load((ROOT / "conf" / "study" / "roc_bands.yaml").read_text())
    return BandStudy.from_config({**cfg, "out": str(out)})


def test_committed_band_page_is_what_its_tables_write(tmp_path):
    """results/roc_bands/report.html is the page of its committed tables, byte for byte (what
    ``covstudy study=roc_bands`` writes there), and the page holds both tables."""
    pytest.importorskip("pyarrow")
    if not (BANDS / "report.html").is_file():
        pytest.skip("no committed band page")
    folder = tmp_path / "results" / "roc_bands"
    (folder / "figures").mkdir(parents=True)
    for f in ("bands.parquet", "bands_pointwise.parquet", "report.md"):
        shutil.copy(BANDS / f, folder / f)
    for png in (BANDS / "figures").glob("*.png"):  # the page links the figures there are
        (folder / "figures" / png.name).touch()
    from covstudy.report.explorer import write_band_html

    from covstudy.bands.study import CITES
    from covstudy.report.references import kind_cited

    page = write_band_html(band_study(folder), refs=kind_cited(pd.read_parquet(folder / "bands.parquet"), CITES))
    assert page.read_bytes() == (BANDS / "report.html").read_bytes(), \
        "results/roc_bands/report.html is stale: python experiments/explorer_pages.py (or rerun the study)"
    shown = decode(page_data(page))
    for key, table in (("pointwise", "bands_pointwise.parquet"), ("whole", "bands.parquet")):
        df = pd.read_parquet(folder / table)
        assert list(shown[key]["label"]) == list(df["method"]) and list(shown[key]["n_pos"]) == list(df["n_pos"])
    assert np.array_equal(shown["whole"]["containment"], df["containment"].to_numpy().astype(np.float32).astype(float))


def test_band_page_draws_and_its_selectors_work(browser):
    """The band page in Chromium: pointwise coverage against FPR as in the table; another AUC
    redraws it; the whole-curve table draws containment against n with ±2·MCSE and the nominal line."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    if not (BANDS / "report.html").is_file():
        pytest.skip("no committed band page")
    pointwise = pd.read_parquet(BANDS / "bands_pointwise.parquet").rename(columns={"method": "label"})
    whole = pd.read_parquet(BANDS / "bands.parquet").rename(columns={"method": "label"})
    at = {"curve": "roc", "n_pos": 20, "sd_ratio": 1.0, "levels": 0}
    open_page(browser, BANDS / "report.html")
    state = drawn(browser)
    assert (state["table"], state["x"], state["measure"]) == ("pointwise", "at", "coverage")
    assert {s["label"]: s["y"] for s in state["series"]} == expected(pointwise, "coverage", "at", auc=0.7, **at)
    assert len(state["series"]) == 9 and browser.find_elements(By.CSS_SELECTOR, "#chart polygon.band")
    assert browser.find_element(By.CSS_SELECTOR, "#chart text.title").text == "FPR"

    Select(browser.find_element(By.ID, "sel-auc")).select_by_visible_text("0.95")
    got = {s["label"]: s["y"] for s in drawn(browser)["series"]}
    assert got == expected(pointwise, "coverage", "at", auc=0.95, **at)

    Select(browser.find_element(By.ID, "sel-table")).select_by_value("1")
    state = drawn(browser)
    assert (state["table"], state["x"], state["measure"], state["fixed"]["auc"]) == ("whole", "n_pos", "containment", 0.95)
    at.pop("n_pos")
    assert {s["label"]: s["y"] for s in state["series"]} == expected(whole, "containment", "n_pos", auc=0.95, **at)
    assert browser.find_elements(By.CSS_SELECTOR, "#chart polygon.band")  # ±2·MCSE
    assert browser.find_elements(By.CSS_SELECTOR, "#chart line.nominal")
    Select(browser.find_element(By.ID, "sel-measure")).select_by_value("mean_area")
    assert {s["label"]: s["y"] for s in drawn(browser)["series"]} == expected(whole, "mean_area", "n_pos", auc=0.95, **at)

    ActionChains(browser).move_to_element(browser.find_element(By.ID, "chart")).perform()
    assert "n per class = " in browser.find_element(By.ID, "tip").text

    assert not browser.find_elements(By.CSS_SELECTOR, "#controls label.absent")
    Select(browser.find_element(By.ID, "sel-curve")).select_by_visible_text("pr")  # PR bands: four methods
    assert sorted(s["label"] for s in drawn(browser)["series"]) == sorted(whole[whole.curve == "pr"]["label"].unique())
    absent = browser.find_elements(By.CSS_SELECTOR, "#controls label.absent")
    assert sorted(a.text for a in absent) == ["fixed_width draws=200", "jeffreys", "ks", "sup_t draws=200",
                                              "working_hotelling"]


def test_a_band_study_run_with_plot_writes_its_page(tmp_path, monkeypatch):
    """bands.run_band_study with plot on writes report.html (figures skipped here: they are plots/bands.py's)."""
    import covstudy.plots.bands
    from covstudy.bands.study import BandStudy, run_band_study

    monkeypatch.setattr(covstudy.plots.bands, "band_figures", lambda *args: [])
    cfg = {"name": "tiny_bands", "bands": ["roc"], "band_methods": {"roc": ["wilson", "ks"]}, "reps": 20,
           "grid": {"n_pos": [20, 40], "auc": [0.8]}, "plot": True, "out": str(tmp_path / "tiny_bands")}
    table = run_band_study(BandStudy.from_config(cfg))
    shown = decode(page_data(tmp_path / "tiny_bands" / "report.html"))
    assert list(shown["whole"]["label"]) == list(table["method"]) == ["wilson", "ks", "wilson", "ks"]
    assert shown["whole"]["n_pos"].tolist() == [20, 20, 40, 40] and len(shown["pointwise"]) == 4 * 19


# --------------------------------------------------------------------------- a calibration study's page

CALIBRATION = ROOT / "results" / "calibration"


def calibration_study(out):
    import yaml

    from covstudy.calibration.study import CalibrationStudy

    cfg = yaml.safe_load((ROOT / "conf" / "study" / "calibration.yaml").read_text())
    return CalibrationStudy.from_config({**cfg, "out": str(out)})


def test_committed_calibration_page_is_what_its_table_writes(tmp_path):
    """results/calibration/report.html is the page of its committed table, byte for byte (what
    ``covstudy study=calibration`` writes there), with one view per kind of target."""
    if not (CALIBRATION / "report.html").is_file():
        pytest.skip("no committed calibration page")
    folder = tmp_path / "results" / "calibration"
    (folder / "figures").mkdir(parents=True)
    for f in ("results.csv", "report.md"):
        shutil.copy(CALIBRATION / f, folder / f)
    for path in (CALIBRATION / "figures").iterdir():  # the page links the figures there are
        (folder / "figures" / path.name).touch()
    from covstudy.report.calibration_page import write_calibration_html

    from covstudy.calibration.study import CITES
    from covstudy.report.references import kind_cited

    page = write_calibration_html(calibration_study(folder),
                                  refs=kind_cited(pd.read_csv(folder / "results.csv"), CITES))
    assert page.read_bytes() == (CALIBRATION / "report.html").read_bytes(), \
        "results/calibration/report.html is stale: rerun covstudy study=calibration"
    shown = decode(page_data(page))
    df = pd.read_csv(folder / "results.csv")
    assert set(shown) == {"bin", "curve", "ece", "test"}
    bins = df[df.target == "bin"]
    assert list(shown["bin"]["label"]) == list(bins.method) and list(shown["bin"]["bin"]) == list(bins.bin)
    assert np.array_equal(shown["bin"]["exact_coverage"], bins.exact_coverage.to_numpy().astype(np.float32).astype(float))
    assert set(shown["ece"]["target"]) == set(df.target) & {"ece", "ece_unbinned", "smooth_ece"}


def test_calibration_page_draws_and_its_selectors_work(browser):
    """The calibration page in Chromium: per-bin coverage as in the table; the ECE view draws coverage
    against n with ±2·MCSE and the nominal line; another estimand redraws it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    if not (CALIBRATION / "report.html").is_file():
        pytest.skip("no committed calibration page")
    df = pd.read_csv(CALIBRATION / "results.csv").rename(columns={"method": "label"})
    df["scores"] = df["scores"].fillna("beta") if "scores" in df else "beta"
    open_page(browser, CALIBRATION / "report.html")
    state = drawn(browser)
    assert (state["table"], state["x"], state["measure"]) == ("bin", "bin", "coverage")
    at = {"target": "bin", "n": 100, "bins": 5, "binning": "equal_width", "slope": 0.6, "scores": "beta"}
    assert {s["label"]: s["y"] for s in state["series"]} == expected(df, "coverage", "bin", **at)
    Select(browser.find_element(By.ID, "sel-table")).select_by_value("2")
    state = drawn(browser)
    assert (state["table"], state["x"]) == ("ece", "n")
    assert browser.find_elements(By.CSS_SELECTOR, "#chart polygon.band")
    assert browser.find_elements(By.CSS_SELECTOR, "#chart line.nominal")
    Select(browser.find_element(By.ID, "sel-target")).select_by_visible_text("smooth_ece")
    assert [s["label"] for s in drawn(browser)["series"]] == ["smooth"]
