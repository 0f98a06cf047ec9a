"""Rewrite report.html (and report.md) of every committed study (band and calibration studies: report.html), and results/index.html, from the committed tables.

What ``covstudy study=<name> plot=true`` writes into results/<name>/report.html depends on the
table, study.yaml, figures/index.csv and the run's overrides only, so after a change to the
explorer itself (covstudy/explorer.js, .css, .py) this gives the same bytes as rerunning every
study: the overrides are read back from the rerun command in each committed report.md.
Run from the repository's root: ``python experiments/explorer_pages.py``.
(covstudy-evaluate's page, results/evaluate_example/report.html, needs its own command:
experiments/evaluate_example/README.md.)
"""

import json
import shlex
from pathlib import Path

import yaml

from covstudy.bands.study import BandStudy
from covstudy.calibration.study import CalibrationStudy
from covstudy.report.calibration_page import write_calibration_html
from covstudy.report.explorer import write_band_html, write_html, write_index
from covstudy.report.markdown import write_report

RESULTS = Path("results")

for folder in sorted(p.parent for p in RESULTS.glob("*/study.yaml")):
    command = (folder / "report.md").read_text().split("## How to rerun")[1].split("```bash\n")[1].split("\n")[0]
    provenance = folder / "provenance.json"
    made = not provenance.exists()  # committed folders have none: the overrides of the committed command
    if made:
        provenance.write_text(json.dumps({"overrides": shlex.split(command)[1:]}))
    try:
        page = write_html(folder)
        write_report(folder)  # report.md (and report.tex): their references section follows the methods
    finally:
        if made:
            provenance.unlink()
    print(page, page.stat().st_size)
for folder in sorted(p.parent for p in RESULTS.glob("*/bands.parquet")):  # band studies: their config
    cfg = yaml.safe_load(Path("conf/study", f"{folder.name}.yaml").read_text())
    page = write_band_html(BandStudy.from_config({**cfg, "out": str(folder)}))
    print(page, page.stat().st_size)
for name in ("calibration",):  # calibration studies: their config and results.csv
    cfg = yaml.safe_load(Path("conf/study", f"{name}.yaml").read_text())
    if (RESULTS / name / "results.csv").is_file():
        page = write_calibration_html(CalibrationStudy.from_config({**cfg, "out": str(RESULTS / name)}))
        print(page, page.stat().st_size)
print(write_index(RESULTS))
