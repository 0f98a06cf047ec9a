"""Command-line entry points (the only module importing Hydra).

``covstudy`` composes conf/config.yaml with a design (conf/design/*.yaml), a study overlay
(conf/study/*.yaml) and any command-line overrides, validates the result, runs it and
prints the per-method summary. ``covstudy --help`` lists the designs, their methods and the
studies; ``load_study`` composes a study for the library's ``run_study``.
"""

from __future__ import annotations

import difflib
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


def load_study(name: str = "quick", overrides: list[str] = (), out=None) -> Study:
    """The study ``name`` composed with command-line style ``overrides``, validated (ConfigError)."""
    from hydra import compose, initialize_config_dir

    overrides = [f"study={name}", *overrides, *([f"out={out}"] if out is not None else [])]
    try:
        with initialize_config_dir(config_dir=_conf_dir(), version_base="1.3"):
            cfg = compose(config_name="config", overrides=overrides)
        raw = OmegaConf.to_container(cfg, resolve=True)
    except (OmegaConfBaseException, hydra.errors.HydraException) as err:
        raise ConfigError(str(err).splitlines()[0]) from None
    return Study.from_config(raw)


def help_text() -> str:
    """What ``covstudy --help`` prints: usage, the designs with their axes and estimands, the methods, the studies."""
    from .designs import DESIGNS
    from .estimands import ESTIMANDS
    from .methods import INPUTS, methods

    lines = ["covstudy: coverage studies of confidence and credible intervals for classifier metrics.", "",
             "usage: covstudy [study=NAME] [design=NAME] [KEY=VALUE ...]   (Hydra overrides; -m: multirun)",
             "       covstudy-plot FOLDER                        figures and report of a results folder",
             "       covstudy-plan --method M --p P --width W    smallest test-set size for a target",
             "       covstudy --hydra-help                       Hydra's own options", "", "designs (design=NAME):"]
    kinds = {"proportion": "proportion methods", "two_class": "balanced-accuracy methods",
             "confusion": "F1 methods"}
    for d in DESIGNS.values():
        lines.append(f"  {d.name:<11} {d.summary}")
        lines.append(f"  {'':<11} axes: {' | '.join(', '.join(o) for o in d.parametrisations)}")
        by_takes: dict[tuple, list[str]] = {}
        for (data, name), est in ESTIMANDS.items():
            if data == d.data:
                by_takes.setdefault(est.takes, []).append(name + (" (default)" if name == d.estimand else ""))
        what = "; ".join(f"{', '.join(names)} with the {' or '.join(kinds[t] for t in takes)}"
                         for takes, names in by_takes.items())
        lines.append(f"  {'':<11} {'metric' if len(by_takes) > 1 else 'estimand'}: {what}")
    lines += ["", "methods:"]
    for takes in INPUTS:
        lines.append(f"  {kinds[takes]}: {', '.join(methods(takes))}")
    studies = sorted(p.stem for p in (Path(_conf_dir()) / "study").glob("*.yaml"))
    lines += ["", f"studies (study=NAME): {', '.join(studies)}", "",
              "other keys: methods, side, grid.<axis>, grid.metric, grid.delta, reps, seed, engine (exact|mc|both),",
              "            n_jobs, backend, force, plot, out; see the README"]
    return "\n".join(lines)


def main() -> None:
    """``covstudy``: our own --help (designs, methods, studies), otherwise the Hydra app."""
    if any(a in ("--help", "-h") for a in sys.argv[1:]):
        print(help_text())
        return
    for arg in sys.argv[1:]:  # a misspelt design or study: one line, not Hydra's search-path dump
        group, _, option = arg.partition("=")
        options = sorted(p.stem for p in (Path(_conf_dir()) / group).glob("*.yaml"))
        if group in ("design", "study") and option not in options and "," not in option:
            close = difflib.get_close_matches(option, options, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            _fail(f"{group}: must be one of {', '.join(options)}, got {option!r}{hint}")
    sys.argv = ["--help" if a == "--hydra-help" else a for a in sys.argv]
    _app()


@hydra.main(version_base="1.3", config_path=_conf_dir(), config_name="config")
def _app(cfg: DictConfig) -> None:
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
