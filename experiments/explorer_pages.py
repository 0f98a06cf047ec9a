"""Rewrite report.html and report.md of every committed study (and results/index.html) from the committed tables.

What ``covstudy study=<name> plot=true`` writes into results/<name>/report.html depends on the
table, study.yaml, figures/index.csv and the run's overrides only, so after a change to the
explorer itself (covstudy/explorer.js, .css, .py) or to a report's writer this gives the same bytes as
rerunning every study: the overrides are read back from the rerun command in each committed report.md.
The study kinds (study/kinds.py: band, sequential, calibration and leaderboard studies) are rewritten by
their own report writers from their committed tables and conf/study/<name>.yaml, without recomputing them.
Run from the repository's root: ``python experiments/explorer_pages.py``.
(covstudy-evaluate's page, results/evaluate_example/report.html, needs its own command:
experiments/evaluate_example/README.md.)
"""

import json
import shlex
from pathlib import Path

import pandas as pd
import yaml

from covstudy.report.explorer import write_html, write_index
from covstudy.report.markdown import write_report
from covstudy.study.kinds import kind_of

RESULTS = Path("results")

for folder in sorted(p.parent for p in RESULTS.glob("*/study.yaml")):
    if "kind" in yaml.safe_load((folder / "study.yaml").read_text()):
        continue  # a study kind's folder: below
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


def kind_reports(key: str, folder: Path) -> list[Path]:
    """report.md and report.html of a study kind's committed folder, by the kind's writers, from its tables."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from covstudy.cli import _conf_dir  # and its ${seq:...} resolver

    with initialize_config_dir(config_dir=_conf_dir(), version_base="1.3"):  # as `covstudy study=<name>` composes it
        cfg = OmegaConf.to_container(compose(config_name="config", overrides=[f"study={folder.name}", f"out={folder}"]),
                                     resolve=True)
    kind = kind_of(cfg)
    assert kind.key == key, (folder, kind.key)
    study = kind.load(cfg)
    if key == "bands":
        from covstudy.bands.study import write_band_report

        tables = {"bands": pd.read_parquet(folder / "bands.parquet"),
                  "pointwise": pd.read_parquet(folder / "bands_pointwise.parquet")}
        write_band_report(study, tables["bands"])
    elif key == "sequential":
        from covstudy.sequential.study import report

        tables = {"results": pd.read_parquet(folder / "results.parquet"), "check": pd.read_csv(folder / "check.csv")}
        figures = [line.split("](")[1].rstrip(")") for line in (folder / "report.md").read_text().splitlines()
                   if line.startswith("![")]  # the figures its run drew, in their order
        (folder / "report.md").write_text(report(study, tables["results"], tables["check"], figures))
    elif key == "calibration":
        from covstudy.calibration.study import write_report as write_calibration_report

        tables = {"results": pd.read_csv(folder / "results.csv")}
        write_calibration_report(study, tables["results"])
    elif key == "leaderboard":
        from covstudy.leaderboard.study import write_report as write_leaderboard_report

        tables = {"results": pd.read_csv(folder / "results.csv"), "check": pd.read_csv(folder / "check.csv")}
        write_leaderboard_report(study, tables["results"], tables["check"] if study.check else None)
    else:
        raise ValueError(f"{folder}: no report writer here for the study kind {key!r}")
    from covstudy.study.kinds import write_page

    return [folder / "report.md", kind.page(study, tables) if kind.page else write_page(kind, study, tables)]


KINDS = {"roc_bands": "bands", "peeking": "sequential", "calibration": "calibration", "leaderboard": "leaderboard"}
for name, key in KINDS.items():
    if (RESULTS / name).is_dir():
        for path in kind_reports(key, RESULTS / name):
            print(path, path.stat().st_size)
print(write_index(RESULTS))
