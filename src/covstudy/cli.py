"""Command-line entry points (the only module importing Hydra, which only ``covstudy`` uses).

``covstudy`` composes conf/config.yaml with a design (conf/design/*.yaml), a study overlay
(conf/study/*.yaml) and any command-line overrides, validates the result, runs it and
prints the per-method summary; ``covstudy --help`` lists the designs, their methods and
the studies. ``covstudy-plot`` (``plot_main``) draws a results folder's figures and reports (report.html: ``explorer``);
``covstudy-plan`` (``plan_main``) prints the smallest test-set size for a target.
``load_study`` composes a study for the library's ``run_study``. Errors are one line on
stderr and exit code 2.

Long because it holds the three commands' parsers side by side (covstudy-plan's with its
per-design axes and the sequential plan), so their options and error lines read alike.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import functools
import os
import sys
import time
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from .interrupts import sigterm_as_interrupt
from .study.config import ConfigError, Study, seq


def _seq(*args):
    if len(args) != 3:
        raise ConfigError(f"seq: needs three numbers ${{seq:start,stop,step}}, got {len(args)}: "
                          f"${{seq:{','.join(map(str, args))}}}")
    return seq(*args)


OmegaConf.register_new_resolver("seq", _seq, replace=True)


def _store_axes() -> None:
    """The config ``axes`` (first in conf/config.yaml's defaults): every registered design's
    axes and ``metric`` under ``grid``, as null (not given), so that ``grid.<axis>=...`` needs
    no "+"; the study check says which ones the chosen design takes."""
    from hydra.core.config_store import ConfigStore

    from .designs import DESIGNS

    axes = dict.fromkeys(["metric", *(a.name for d in DESIGNS.values() for a in d.axes)])
    ConfigStore.instance().store(name="axes", node={"grid": axes})


_store_axes()


def _conf_dir() -> str:
    """conf/ ships inside the wheel as covstudy/conf; an editable install uses the repo's conf/."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "conf", here.parents[1] / "conf"):
        if (candidate / "config.yaml").is_file():
            return str(candidate)
    raise RuntimeError(f"covstudy: cannot find its conf/ folder near {here}")


def _interrupt_exits_130(main):
    """``main`` with a Ctrl-C outside the run (Hydra composing the config, figures being drawn)
    ending in one line and exit code 130, as one during the run does, not a traceback."""
    @functools.wraps(main)
    def wrapped():
        try:
            main()
        except KeyboardInterrupt:
            print("covstudy: interrupted; rerun the same command to resume", file=sys.stderr)
            sys.exit(130)
    return wrapped


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
    check_design_choice(name, overrides, raw)
    return Study.from_config(default_out(overrides, raw))  # run_study checks it fits before any work


def default_out(overrides, raw: dict) -> dict:
    """``raw`` with ``out`` following the design: the quick study with ``design=D`` (and neither
    ``out=`` nor ``name=`` given) writes to results/D, so that trying one design after another
    does not meet the previous one's folder; otherwise ``out`` is as composed (results/<name>)."""
    given = {o.split("=", 1)[0].lstrip("+~") for o in overrides if "=" in o}
    designs = [o.split("=", 1)[1] for o in overrides if o.startswith("design=")]
    studies = [o.split("=", 1)[1] for o in overrides if o.startswith("study=")]
    if designs and (studies or ["quick"])[-1] == "quick" and not given & {"out", "name"}:
        return {**raw, "out": f"results/{designs[-1]}"}
    return raw


def check_design_choice(name: str, overrides, raw: dict) -> None:
    """A ``design=X`` the study overrides (its grid.design) is an error saying so, not one about X's axes."""
    chosen = [o.split("=", 1)[1] for o in overrides if o.startswith("design=")]
    fixed = (raw.get("grid") or {}).get("design") if isinstance(raw.get("grid"), dict) else None
    fixed = [fixed] if isinstance(fixed, str) else fixed
    if not chosen or not isinstance(fixed, list) or any(o.startswith(("grid.design=", "+grid.design=")) for o in overrides):
        return
    if chosen[-1] not in fixed:
        raise ConfigError(f"design={chosen[-1]}: study {name} fixes its design ({', '.join(map(str, fixed))}); "
                          f"drop design= to run it, or run study=quick design={chosen[-1]} for the design's defaults")


def help_text() -> str:
    """What ``covstudy --help`` prints: usage, the designs with their axes and estimands, the methods, the studies."""
    from .designs import DESIGNS
    from .estimands import estimands_for
    from .methods import INPUTS, methods

    lines = ["covstudy: coverage studies of confidence and credible intervals for classifier metrics.", "",
             "usage: covstudy [study=NAME] [design=NAME] [KEY=VALUE ...]   (Hydra overrides; -m: multirun)",
             "       covstudy-plot FOLDER                        figures and reports (report.html: interactive)",
             "       covstudy-plan --method M --p P --width W    smallest test-set size for a target",
             "       covstudy --hydra-help                       Hydra's own options", "", "designs (design=NAME):"]
    kinds = {t: f"{i.label or t} methods" for t, i in INPUTS.items()}
    for d in DESIGNS.values():
        lines.append(f"  {d.name:<11} {d.summary}")
        optional = f" (optional: {', '.join(d.optional)})" if d.optional else ""
        lines.append(f"  {'':<11} axes: {' | '.join(', '.join(o) for o in d.parametrisations)}{optional}")
        by_takes: dict[tuple, list[str]] = {}
        for est in estimands_for(d.data):
            by_takes.setdefault(est.takes, []).append(est.name + (" (default)" if est.name == d.estimand else ""))
        what = "; ".join(f"{', '.join(names)} with the {' or '.join(kinds[t] for t in takes)}"
                         for takes, names in by_takes.items())
        lines.append(f"  {'':<11} {'metric' if len(by_takes) > 1 else 'estimand'}: {what}")
    lines += ["", "methods:"]
    for takes in INPUTS:
        listed = methods(takes).values()
        sure = [m.short for m in listed if m.guaranteed]  # coverage >= 1 - delta by proof: what --guarantee picks
        tail = f"  [guaranteed: {', '.join(sure)}]" if sure else ""
        lines.append(f"  {kinds[takes]}: {', '.join(m.short for m in listed)}{tail}")
    studies = sorted(p.stem for p in (Path(_conf_dir()) / "study").glob("*.yaml"))
    lines += ["", f"studies (study=NAME): {', '.join(studies)}", "",
              "other keys: methods, side, grid.<axis>, grid.metric, grid.delta, reps, seed, engine (exact|mc|both),",
              "            n_jobs, backend, force, plot, out; see docs/studies.md"]
    return "\n".join(lines)


@_interrupt_exits_130
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
    if not any(a.startswith("-") for a in sys.argv[1:]):  # a single run: Hydra's own errors in one line too
        _check_overrides(sys.argv[1:])
    # An interrupt kills the pool's workers; its resource trackers (which inherit this) would
    # then warn of "leaked semlock objects" after the resume line.
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"),
                                                          "ignore:resource_tracker:UserWarning"]))
    sys.argv = ["--help" if a == "--hydra-help" else a for a in sys.argv]
    _app()


def _check_overrides(overrides: list[str]) -> None:
    """Compose the config as Hydra will (its config included): an unknown key, a bad option
    of a config group, a malformed override exit with one line (``_fail``) instead of Hydra's
    multi-line message and exit code 1."""
    from hydra import compose, initialize_config_dir

    try:
        with initialize_config_dir(config_dir=_conf_dir(), version_base="1.3"):
            compose(config_name="config", overrides=overrides, return_hydra_config=True)
    except (OmegaConfBaseException, hydra.errors.HydraException) as err:
        _fail(_one_line(str(err)))


def _check_out(out) -> None:
    """A study folder that cannot be written is a ConfigError before any work."""
    from .writable import problem

    if isinstance(out, str) and (why := problem(out, folder=True)):
        raise ConfigError(f"out: cannot write the study folder {out}: {why}")


def _one_line(message: str) -> str:
    """Hydra's multi-line error as one line: its first paragraph (without OmegaConf's key
    details), and the options it lists, if any."""
    head, _, rest = message.strip().partition("\n\n")
    lines = [line.strip() for line in head.splitlines()
             if line.strip() and not line.strip().startswith(("full_key:", "object_type=", "Key '", "See https://"))]
    text = " ".join(lines)
    if rest.startswith("Available options"):
        title, *options = rest.split("Config search path")[0].strip().splitlines()
        text += f"; {title.rstrip(':').lower()}: {', '.join(o.strip() for o in options)}"
    return text.replace("Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.", "").strip()


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
    from .study.kinds import kind_of

    _run_kind(kind_of(raw), raw)  # the interval study unless the config has a kind's block (study/kinds.py)


def _overrides() -> list[str]:
    """The command line's overrides (none when called outside the Hydra app, as tests do)."""
    try:
        return list(HydraConfig.get().overrides.task)
    except ValueError:
        return []


def _chosen_study() -> str:
    """The study config the command line chose (``study=``), "" outside the Hydra app."""
    try:
        return str(HydraConfig.get().runtime.choices.get("study"))
    except ValueError:
        return ""


def _run_kind(kind, raw: dict) -> None:
    """Any study (study/kinds.py: the interval study, bands, sequential, calibration, leaderboard, ...):
    validated, run by the study runner (resumable, on workers), then shown as its kind says (``present``)."""
    from .study.kinds import RunSettings
    from .study.runner import BackendError, Interrupted, OutError, StudyMismatch, run_kind
    from .study.store import StoreLocked

    overrides = _overrides()
    out = raw.get("out") if isinstance(raw.get("out"), str) else None
    try:
        check_design_choice(_chosen_study(), overrides, raw)
        raw = default_out(overrides, raw)
        out = raw.get("out") if isinstance(raw.get("out"), str) else None
        _check_out(out)
        study = kind.load(raw)
        settings = RunSettings.from_config(raw)
    except (ConfigError, ValueError, TypeError) as err:
        _fail(str(err), out)
    for note in getattr(study, "notes", ()):
        print(f"covstudy: note: {note}", file=sys.stderr)
    try:
        with sigterm_as_interrupt():
            tables = run_kind(kind, study, settings, overrides=overrides)
    except Interrupted as err:
        print(f"covstudy: {err}", file=sys.stderr)
        sys.exit(130)
    except ConfigError as err:  # the memory check, before any work
        _fail(str(err), str(study.out))
    except (StoreLocked, BackendError, OutError, StudyMismatch) as err:
        _fail(str(err))
    if kind.present:
        kind.present(study, tables)
    else:
        _present(kind, study, tables)


def _present(kind, study, tables: dict) -> None:
    """What the command prints after a study of a kind without its own ``present``: its summary."""
    from .report.folder import how_to_open

    print(f"{study.name}: {len(tables[kind.tables[0]])} rows -> {study.out}")
    print(kind.summary(study, tables).round(4).to_string(index=False))
    print(how_to_open(study.out))
    if not study.plot:
        print(f"figures: rerun with plot=true (out={study.out})")


# --------------------------------------------------------------------------- covstudy-plot

def plot_main(argv=None) -> int:
    """``covstudy-plot <results folder>``: write the figures, report.md/.tex/.html (and results/index.html),
    print their paths."""
    parser = argparse.ArgumentParser(prog="covstudy-plot",
                                     description="Draw the figures and write the reports (Markdown, LaTeX, "
                                                 "interactive HTML) of a covstudy results folder.")
    parser.add_argument("folder", type=Path, help="folder holding results.csv (and study.yaml)")
    parser.add_argument("--no-report", action="store_true", help="only draw the figures")
    args = parser.parse_args(argv)
    from .report.folder import how_to_open, write_all

    if not (args.folder / "results.csv").is_file():
        parser.exit(2, f"covstudy-plot: error: no results.csv in {args.folder}\n")
    try:
        paths = write_all(args.folder, report=not args.no_report)
    except ValueError as exc:
        parser.exit(2, f"covstudy-plot: error: {exc}\n")
    for path in paths:
        print(path)
    if not args.no_report:
        print(how_to_open(args.folder))
    return 0


# --------------------------------------------------------------------------- covstudy-plan

def _plan_param(text: str) -> tuple[str, float]:
    """``--param NAME=NUMBER`` as (name, value)."""
    name, sep, value = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--param must be NAME=NUMBER, got {text!r}") from None


class _PlanParser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump
        self.exit(2, f"covstudy-plan: error: {message}\n")


def _plan_parser() -> argparse.ArgumentParser:
    from .methods import SIDES

    ap = _PlanParser(prog="covstudy-plan", allow_abbrev=False,
                     description="Smallest test-set size for an interval target under a design: exact where "
                     "the design enumerates its outcomes, else Monte Carlo. The design's other axes are given as "
                     "--AXIS VALUE (e.g. --prevalence 0.2 --tpr 0.9 --tnr 0.8).")
    ap.add_argument("--method", required=True, help="interval method, e.g. wilson")
    ap.add_argument("--design", default="binomial", help="design (default binomial): its size axis is solved for")
    ap.add_argument("--metric", help="estimand (default: the design's)")
    ap.add_argument("--delta", type=float, default=0.05, help="miss rate (default 0.05)")
    ap.add_argument("--p", type=float, help="assumed accuracy")
    ap.add_argument("--p-range", type=float, nargs=2, metavar=("LO", "HI"), help="range of accuracies (binomial)")
    size = ap.add_mutually_exclusive_group()  # one target width, said either way: ±0.05 is --width 0.1
    size.add_argument("--width", type=float, help="target interval width, upper − lower (±0.05 is --width 0.1)")
    size.add_argument("--half-width", type=float, metavar="H", help="target half-width: the same as --width 2H")
    ap.add_argument("--assurance", type=float, help="require P(width <= WIDTH) >= ASSURANCE (1 - gamma)")
    ap.add_argument("--width-prob", type=float, help="the same as --assurance")
    ap.add_argument("--coverage", type=float, help="require coverage >= COVERAGE")
    ap.add_argument("--coverage-tol", type=float, help="require coverage >= 1 - delta - COVERAGE_TOL")
    ap.add_argument("--power", type=float, help="require P(interval excludes NULL) >= POWER")
    ap.add_argument("--null", type=float, help="the value --power's interval must exclude (default: the estimand's)")
    ap.add_argument("--plugin", action="store_true", help="presize's plug-in answer: width at the expected counts")
    ap.add_argument("--reps", type=int, help="Monte Carlo test sets a size (default: exact where possible, else 1000)")
    ap.add_argument("--seed", type=int, default=0, help="Monte Carlo seed (default 0)")
    ap.add_argument("--side", default="two-sided", choices=SIDES)
    ap.add_argument("--n-max", type=int, default=10**6)
    ap.add_argument("--horizon", type=int, default=20, help="n must keep meeting the target for this many more")
    ap.add_argument("--p-points", type=int, default=51, help="grid points of --p-range")
    ap.add_argument("--param", type=_plan_param, action="append", default=[], metavar="NAME=VALUE",
                    help="method parameter, e.g. --param a=2 (repeatable)")
    ap.add_argument("--table", metavar="CSV", help="also write the table of sizes (width, assurance, coverage)")
    ap.add_argument("--figure", metavar="PNG", help="also draw width (and assurance) against the size")
    return ap


def _plan_axes(parser, design: str, rest: list[str]) -> dict:
    """The design's other axes from ``--AXIS VALUE`` pairs (whole numbers for integer axes)."""
    from .designs import get_design

    try:
        d = get_design(design)
    except ValueError as err:
        parser.error(str(err))
    names = {a.name: a for a in d.axes}
    out: dict = {}
    it = iter(rest)
    for flag in it:
        name = flag[2:].replace("-", "_") if flag.startswith("--") else ""
        if name not in names and name not in d.plan_axes:
            known = ", ".join(f"--{k}" for k in [*names, *d.plan_axes] if k != d.size_axis)
            parser.error(f"unrecognized argument {flag!r} (design {d.name}'s axes: {known})")
        value = next(it, None)
        choices = names[name].choices if name in names else None
        if choices:  # a categorical axis (judged sampling): one of its names
            if value not in choices:
                parser.error(f"argument {flag}: must be one of {', '.join(choices)}, got {value!r}")
            out[name] = value
            continue
        try:
            out[name] = int(value) if name in names and names[name].integer else float(value)
        except (TypeError, ValueError):
            parser.error(f"argument {flag}: expected a number, got {value!r}")
    return out


def _plan_sequential(parser, args, rest, argv) -> int:
    """``covstudy-plan --design sequential --method M --p P --width W --batch B [--adjust A]``: the expected
    labels until the interval is at most W wide, looking every B labels (planning/sequential.py)."""
    from .planning.sequential import expected_labels
    from .writable import problem

    extra = _PlanParser(prog="covstudy-plan --design sequential", allow_abbrev=False)
    extra.add_argument("--batch", type=int, required=True, help="labels between looks")
    extra.add_argument("--adjust", default="none", help="spending of delta over the looks: none, bonferroni, obf, pocock")
    more = extra.parse_args(rest)
    for name in ("p", "width"):
        if getattr(args, name) is None:
            parser.error(f"--{name}: the sequential plan needs it (the assumed accuracy and the target width)")
    typed = sys.argv[1:] if argv is None else argv
    given = {a.partition("=")[0] for a in typed if a.startswith("--")}
    for option, why in _NOT_SEQUENTIAL.items():  # every other option is honoured or refused by name
        if option in given:
            parser.error(f"{option}: the sequential plan {why}")
    if args.table is not None and (why := problem(args.table, folder=False)):
        parser.error(f"--table {args.table}: {why}")
    try:
        result = expected_labels(args.method, args.p, args.width, batch=more.batch, adjust=more.adjust,
                                 n_max=args.n_max if "--n-max" in given else None, delta=args.delta,
                                 **dict(args.param))
    except ValueError as err:
        print(f"covstudy-plan: error: {err}", file=sys.stderr)
        return 2
    print(result)
    if args.table:  # its one row: the plan's fields
        import pandas as pd

        Path(args.table).parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame([dataclasses.asdict(result)]).to_csv(args.table, index=False)
        print(args.table)
    return 0


_NOT_SEQUENTIAL = {  # covstudy-plan's options the sequential plan cannot honour, and why
    **dict.fromkeys(("--power", "--null"), "targets a width only (stop at width <= --width); it has no power target"),
    **dict.fromkeys(("--coverage", "--coverage-tol"),
                    "targets a width only; it reports the coverage at stopping and at every look, it does not "
                    "search for one (use --adjust or a confidence sequence for validity at every look)"),
    **dict.fromkeys(("--assurance", "--width-prob"), "stops at the first look whose width is <= --width; "
                                                     "the chance it gets there by --n-max is reported"),
    "--plugin": "is exact (dynamic programming over looks); it has no plug-in answer",
    **dict.fromkeys(("--reps", "--seed"), "is exact (dynamic programming over looks); it takes no Monte Carlo options"),
    **dict.fromkeys(("--p-range", "--p-points"), "takes one assumed accuracy, --p"),
    "--side": "is two-sided (a width)",
    "--metric": "is for an accuracy (a proportion)",
    "--horizon": "stops at the first look that meets the width; it has no horizon",
    "--figure": "has no figure; --table writes its numbers",
}


def plan_main(argv=None) -> int:
    """``covstudy-plan --method wilson --p 0.9 --delta 0.05 --width 0.1``: print n and the table;
    ``--design D --AXIS VALUE ...`` for any design."""
    from .planning.plan import plan
    from .writable import problem

    parser = _plan_parser()
    args, rest = parser.parse_known_args(argv)
    if args.half_width is not None:
        args.width = 2 * args.half_width
    if args.design == "sequential":
        return _plan_sequential(parser, args, rest, argv)
    axes = _plan_axes(parser, args.design, rest)
    for option, path in (("--table", args.table), ("--figure", args.figure)):
        if path is not None and (why := problem(path, folder=False)):
            parser.error(f"{option} {path}: {why}")
    try:
        result = plan(args.method, delta=args.delta, p=args.p, width=args.width, width_prob=args.width_prob,
                      coverage_tol=args.coverage_tol, p_range=args.p_range, side=args.side, n_max=args.n_max,
                      horizon=args.horizon, p_points=args.p_points, design=args.design, metric=args.metric,
                      assurance=args.assurance, coverage=args.coverage, reps=args.reps, seed=args.seed,
                      plugin=args.plugin, power=args.power, null=args.null, **axes, **dict(args.param))
    except ValueError as err:
        print(f"covstudy-plan: error: {err}", file=sys.stderr)
        return 2
    print(result)
    if args.table:
        Path(args.table).parent.mkdir(parents=True, exist_ok=True)
        result.to_frame().to_csv(args.table, index=False)
        print(args.table)
    if args.figure:
        from .plots.plan import plan_figure

        print(plan_figure(result, args.figure))
    return 0
