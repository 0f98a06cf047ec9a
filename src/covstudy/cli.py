"""Command-line entry points (the only module importing Hydra).

``covstudy`` composes conf/config.yaml with a study overlay (conf/study/*.yaml) and any
command-line overrides, validates the result, runs it and prints the per-method summary.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from .study import ConfigError, Study, seq


OmegaConf.register_new_resolver("seq", lambda start, stop, step: seq(start, stop, step), replace=True)


def _conf_dir() -> str:
    """conf/ ships inside the wheel as covstudy/conf; an editable install uses the repo's conf/."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "conf", here.parents[1] / "conf"):
        if (candidate / "config.yaml").is_file():
            return str(candidate)
    raise RuntimeError(f"covstudy: cannot find its conf/ folder near {here}")


def _fail(message: str, out: str | None = None) -> None:
    # Hydra makes the run directory (= out) before the app starts: remove it if it is ours and empty.
    if out and Path(out).is_dir() and not any(Path(out).iterdir()):
        Path(out).rmdir()
    print(f"covstudy: error: {message}", file=sys.stderr)
    sys.exit(2)


@hydra.main(version_base="1.3", config_path=_conf_dir(), config_name="config")
def main(cfg: DictConfig) -> None:
    try:
        raw = OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as err:  # e.g. a bad ${seq:...} range
        detail = str(err).splitlines()[0].split("resolving interpolation: ")[-1].removeprefix("seq: ")
        try:
            out = OmegaConf.select(cfg, "out")
        except OmegaConfBaseException:
            out = None
        _fail(f"{err.full_key}: {detail}", out if isinstance(out, str) else None)
    try:
        study = Study.from_config(raw)
    except ConfigError as err:
        _fail(str(err), raw.get("out") if isinstance(raw.get("out"), str) else None)
    # Imported only now so that a bad config fails fast.
    from .report import summary_table, text_table
    from .runner import BackendError, run_study
    from .store import StoreLocked

    try:
        table = run_study(study, overrides=list(HydraConfig.get().overrides.task))
    except (StoreLocked, BackendError) as err:
        _fail(str(err))
    print(f"{study.name}: {len(table)} cells -> {study.out / 'results.csv'}")
    print(text_table(summary_table(table)))
    if study.plot:
        from .plotting import plot_results
        from .report import write_report

        figures = plot_results(study.out)
        md, _ = write_report(study.out)
        print(f"{len(figures)} figure files in {study.out / 'figures'}; report: {md}")
