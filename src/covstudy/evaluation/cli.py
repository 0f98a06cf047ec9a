"""``covstudy-evaluate FILE --truth COL ...``: ``covstudy.evaluate`` on a CSV or Parquet file, or on eval logs
(``--lm-eval SAMPLES [SECOND]``, ``--inspect LOG [SECOND]``: evaluation/readers.py, scored answers).

Prints one screen, each metric's recommended interval and whether it meets the target and the comparisons
in words (``answer.screen``; ``--table``: every method's row), and writes table.csv, report.md, report.tex,
report.html and forest.png/.pdf to ``--out``. A user's error is one line on stderr and exit status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit status 2, no usage dump (as covstudy-plan)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="covstudy-evaluate",
                description="Intervals for every metric with every applicable method, each audited at your test "
                            "set's operating point, and a recommendation.")
    p.add_argument("file", nargs="?", help="a CSV or Parquet file, one row per test example (or an eval log: "
                                           "--lm-eval, --inspect)")
    p.add_argument("--truth", metavar="COL", help="the true label column (required with FILE)")
    p.add_argument("--predicted", metavar="COL", help="the predicted label column")
    p.add_argument("--score", metavar="COL", help="the score column (higher = more positive), for the AUC")
    p.add_argument("--group", metavar="COL", help="a cluster id column (patient, video, question); with --lm-eval "
                                                  "or --inspect, a key of each sample's doc (lm-eval) or metadata "
                                                  "(inspect_ai) holding its question's group")
    p.add_argument("--question", metavar="COL", help="a question id column when rows are answers (evals: K answers "
                                                     "per question); with --group, the question's group")
    p.add_argument("--judge", metavar="COL", help="a judge's (LLM autorater's) label for every row; rows with an empty "
                                                  "--truth are labelled by the judge alone (adds judged_rate: PPI, ...)")
    p.add_argument("--second-predicted", metavar="COL", help="a second model's predicted labels")
    p.add_argument("--second-score", metavar="COL", help="a second model's scores")
    p.add_argument("--model", metavar="COL", action="append",
                   help="a model's predicted labels; repeat for a leaderboard of k models (evaluation/leaderboard.py)")
    p.add_argument("--positive", metavar="V", help="the positive class of binary labels")
    p.add_argument("--classes", metavar="A,B,...", help="the labels the data may hold; another label is an error "
                                                         "(default: the truth column's labels)")
    p.add_argument("--delta", type=float, default=0.05, help="intervals at level 1 - delta (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of sampling methods and the Monte Carlo audit")
    p.add_argument("--reps", type=int, default=2000,
                   help="Monte Carlo test sets per audited point (default 2000; bootstrap methods: at most 400)")
    p.add_argument("--no-audit", action="store_true", help="intervals only, no coverage audit")
    p.add_argument("--audit-all", action="store_true",
                   help="audit every method not guaranteed by proof (default: the methods narrower on your data "
                        "than the narrowest guaranteed one, narrowest first, stopping at the first that meets the "
                        "target; wider ones could not be recommended)")
    p.add_argument("--max-classes", type=int, default=100, metavar="K",
                   help="refuse more classes than this before any work (default 100)")
    p.add_argument("--max-rows", type=int, default=10**7, metavar="N",
                   help="refuse more rows than this before any work (default 10,000,000)")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    p.add_argument("--table", action="store_true",
                   help="print every method's row with its audit (default: one screen, each metric's recommended "
                        "interval and the comparisons in words; the reports, report.tex too, hold the full table)")
    p.add_argument("--guarantee", action="store_true",
                   help="recommend only methods whose worst coverage over the region is certified >= 1 - delta, "
                        "or guaranteed by proof (the registry's guaranteed methods)")
    p.add_argument("--budget", metavar="SECONDS", default=None,
                   help="CPU seconds the run may take (default 10, or $COVSTUDY_BUDGET; inf: none): the cost is forecast before any "
                        "work, and audits that would pass the budget are cut, each cut row's note saying what was cut")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the audit cache ($COVSTUDY_CACHE, else $XDG_CACHE_HOME/covstudy, else "
                        "~/.cache/covstudy), which makes a second run on the same data read its audits back")
    p.add_argument("--out", metavar="FOLDER", help="write table.csv, report.md, report.html and forest.png/.pdf here")
    logs = p.add_argument_group("eval logs (instead of FILE): scored answers, questions as groups of answers, "
                                "two logs compared paired (evaluation/readers.py)")
    logs.add_argument("--lm-eval", nargs="+", metavar="SAMPLES", help="an lm-evaluation-harness samples file "
                      "(--log_samples: samples_<task>_<time>.jsonl), or two runs of the same task to compare")
    logs.add_argument("--inspect", nargs="+", metavar="LOG", help="an inspect_ai eval log (.json or .eval), or "
                      "two runs of the same task to compare")
    logs.add_argument("--metric", metavar="NAME", help="the per-sample metric (lm-eval: default acc, else "
                      "exact_match, else the only one) or scorer (inspect_ai: default the only one) to read")
    logs.add_argument("--filter", metavar="NAME", help="lm-eval: the filter whose scores to read (needed when "
                        "the file holds several)")
    return p


def _read(path: str):
    import pandas as pd

    f = Path(path)
    if not f.is_file():
        raise ValueError(f"{path}: no such file")
    if f.suffix.lower() in (".parquet", ".pq"):
        try:
            frame = pd.read_parquet(f)
            return frame, list(map(str, frame.columns))
        except ImportError:
            raise ValueError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow)") from None
    try:
        return pd.read_csv(f), _header(f)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a readable CSV ({str(e).splitlines()[0]})") from None


def _header(f: Path) -> list:
    """The CSV's column names as written: pandas renames a repeated name ``x`` to ``x.1``, silently."""
    import csv

    with open(f, newline="", encoding="utf-8") as fh:
        return next(csv.reader(fh), [])


def main(argv=None) -> int:
    """``covstudy-evaluate``: a Ctrl-C or SIGTERM anywhere ends in one line and exit code 130, as in
    ``covstudy``; the report folder is written whole or not at all (``writable.staged``)."""
    from ..interrupts import sigterm_as_interrupt

    try:
        with sigterm_as_interrupt():
            return _main(argv)
    except KeyboardInterrupt:
        print("covstudy-evaluate: interrupted; nothing was written", file=sys.stderr)
        return 130


def _main(argv) -> int:
    from ..writable import problem

    parser = _parser()
    args = parser.parse_args(argv)
    if args.out is not None and (why := problem(args.out, folder=True)):
        parser.exit(2, f"covstudy-evaluate: error: --out {args.out}: {why}\n")
    for option, given in (("--guarantee", args.guarantee), ("--audit-all", args.audit_all)):
        if given and args.no_audit:  # each needs the audit that --no-audit turns off
            parser.exit(2, f"covstudy-evaluate: error: {option}: needs the coverage audit; drop {option} or --no-audit\n")
    if args.budget is not None:  # before any work: a bad budget is one line, exit 2
        from .cost import budget_value

        try:
            budget_value(args.budget)
        except ValueError as e:
            parser.exit(2, f"covstudy-evaluate: error: --{e}\n")
    logs = args.lm_eval or args.inspect
    if problem := _log_problem(args):
        parser.exit(2, f"covstudy-evaluate: error: {problem}\n")
    if not logs and args.truth is None:
        parser.exit(2, "covstudy-evaluate: error: the following arguments are required: --truth\n")
    if args.model:
        for option, why in _NOT_LEADERBOARD.items():  # every other option is honoured or refused by name
            if getattr(args, option[2:].replace("-", "_")) not in (None, False):
                parser.exit(2, f"covstudy-evaluate: error: {option}: {why}\n")
        return _leaderboard(args)
    from .result import evaluate

    try:
        if logs:
            columns = _log_columns(args)
        else:
            frame, header = _read(args.file)
            wanted = {"truth": args.truth, "predicted": args.predicted, "scores": args.score, "groups": args.group,
                      "second_predicted": args.second_predicted, "second_scores": args.second_score,
                      "questions": args.question, "judge": args.judge}
            columns = {key: _column(frame, header, col, args.file) for key, col in wanted.items() if col is not None}
        positive = args.positive
        if positive is not None:  # a number on the command line names a numeric label
            try:
                positive = int(positive)
            except ValueError:
                pass
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ev = evaluate(**columns, delta=args.delta, positive=positive, audit=not args.no_audit, seed=args.seed,
                          reps=args.reps, guarantee=args.guarantee, classes=args.classes, progress=not args.quiet,
                          max_classes=args.max_classes, max_rows=args.max_rows, audit_all=args.audit_all,
                          budget=args.budget, cache=not args.no_cache)
    except ValueError as e:
        print(f"covstudy-evaluate: error: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    print(f"covstudy-evaluate: note: {ev.info['read']}", file=sys.stderr)
    for w in caught:
        print(f"covstudy-evaluate: warning: {w.message}", file=sys.stderr)
    from .answer import screen
    from .render import text

    print(text(ev.table, full=True) if args.table else screen(ev))
    if args.out:
        out = ev.save(args.out)
        written = ["table.csv", "report.md", "report.tex", "report.html", "forest.png", "forest.pdf"]
        written += ["width_vs_n.png", "width_vs_n.pdf"] if ev.growth is not None else []
        written += ["reliability.png", "reliability.pdf"] if ev.info.get("calibration") is not None else []
        print("wrote " + ", ".join(str(out / name) for name in written))
        page = out / "report.html"
        print(f"report: {page} (interactive; open it in a browser: {page.resolve().as_uri()}) and {out / 'report.md'}")
    else:
        print("every method's row, audited: --table; the report (report.html, interactive, report.md, report.tex): "
              "--out FOLDER")
    return 0


_NOT_LOGS = {  # options an eval log cannot honour, and why (--group, --metric, --filter are the logs' own)
    "--truth": "an eval log holds scored answers, not labels",
    "--predicted": "an eval log holds scored answers, not labels",
    "--score": "an eval log holds scored answers, not scores",
    "--question": "an eval log's questions are its doc_id (lm-eval) or sample id (inspect_ai)",
    "--judge": "an eval log's scores are its scorer's; a judge column is for a file",
    "--second-predicted": "give the second run's log as a second file (--lm-eval A B, --inspect A B)",
    "--second-score": "give the second run's log as a second file (--lm-eval A B, --inspect A B)",
    "--model": "a leaderboard reads labels from a file; compare two runs with two logs",
    "--positive": "scored answers have no positive class",
    "--classes": "scored answers have no classes",
}


def _log_problem(args) -> str:
    """Why the options do not fit together around eval logs ("" : they do)."""
    logs = [(o, v) for o, v in (("--lm-eval", args.lm_eval), ("--inspect", args.inspect)) if v]
    if not logs:
        for option in ("--metric", "--filter"):
            if getattr(args, option[2:]) is not None:
                return f"{option}: reads an eval log; give --lm-eval or --inspect"
        return "" if args.file is not None else "the following arguments are required: file (or --lm-eval, --inspect)"
    if len(logs) > 1:
        return "--lm-eval, --inspect: give one kind of log (two runs of one kind are compared)"
    option, files = logs[0]
    if len(files) > 2:
        return f"{option}: one log, or two runs of the same task to compare; got {len(files)}"
    if args.file is not None:
        return f"{args.file}: give a CSV or Parquet file, or {option} logs, not both"
    if option == "--inspect" and args.filter is not None:
        return "--filter: an lm-eval filter; inspect_ai logs have none (--metric names the scorer)"
    for name, why in _NOT_LOGS.items():
        if getattr(args, name[2:].replace("-", "_")) not in (None, False):
            return f"{name}: {why}"
    return ""


def _log_columns(args) -> dict:
    """``evaluate``'s scored-answer keywords from --lm-eval or --inspect logs (evaluation/readers.py), what was
    read said on stderr."""
    from .readers import paired, read_inspect, read_lm_eval

    if args.lm_eval:
        runs = [read_lm_eval(f, metric=args.metric, filter=args.filter, group=args.group) for f in args.lm_eval]
    else:
        runs = [read_inspect(f, scorer=args.metric, group=args.group) for f in args.inspect]
    for i, run in enumerate(runs):
        print(f"covstudy-evaluate: note: {'second run: ' if i else ''}{run.source}", file=sys.stderr)
    return paired(*runs) if len(runs) == 2 else runs[0].arguments()


def _column(frame, header: list, col: str, file: str):
    """The column named ``col``; a name the file does not hold, or holds twice, is an error naming it."""
    where = [i + 1 for i, h in enumerate(header) if h == col]
    if len(where) > 1:
        raise ValueError(f"{col}: {len(where)} columns of {file} have this name (columns "
                         f"{', '.join(map(str, where))}); rename them apart")
    if col not in frame.columns or not where:
        raise ValueError(f"{col}: no such column in {file} (columns: {', '.join(map(str, header))})")
    return frame[col]


_NOT_LEADERBOARD = {  # options a leaderboard (--model) cannot honour, and why; the others it honours
    "--predicted": "with --model, give every model as --model (--model COL for this one too)",
    "--second-predicted": "with --model, give every model as --model (--model COL for this one too)",
    "--score": "a leaderboard ranks the models' accuracies from their predicted labels; scores (the AUC) are not "
               "ranked here: evaluate a model's --score with --predicted",
    "--second-score": "a leaderboard ranks accuracies from predicted labels, not scores",
    "--group": "a leaderboard's intervals take the rows as independent; clustered rows are not supported "
               "with --model (evaluate each model with --predicted and --group)",
    "--question": "a leaderboard takes one answer per row; answers to questions are not supported with --model "
                  "(evaluate each model with --predicted and --question)",
    "--judge": "a leaderboard needs every row's true label; a judge is not supported with --model",
    "--positive": "a leaderboard ranks accuracy, which has no positive class; drop it",
    "--guarantee": "a leaderboard's audit is a plug-in Monte Carlo check, not a certified worst coverage; drop it",
    "--no-cache": "a leaderboard's audit is not cached; drop it",
}


def _leaderboard(args) -> int:
    """``--model COL`` repeated: the leaderboard of evaluation/leaderboard.py (its own table, figure and audit).
    Each model column is checked as --predicted is; --classes, --max-classes, --max-rows, --delta, --reps (at most
    the audit's 2,000), --seed, --no-audit, --audit-all (its one method is audited), --budget (the audit's test sets are
    cut to fit), --quiet and --out are honoured,
    the rest refused (``_NOT_LEADERBOARD``)."""
    from .leaderboard import leaderboard

    try:
        if len(set(args.model)) < len(args.model):
            raise ValueError("--model: a column is given twice")
        if args.truth in args.model:
            raise ValueError(f"--model {args.truth}: is the --truth column")
        frame, header = _read(args.file)
        truth = _column(frame, header, args.truth, args.file)
        models = {m: _column(frame, header, m, args.file) for m in args.model}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            board = leaderboard(truth, models, delta=args.delta, reps=args.reps, seed=args.seed,
                                audit=not args.no_audit, classes=args.classes, max_classes=args.max_classes,
                                max_rows=args.max_rows, budget=args.budget, progress=not args.quiet)
    except ValueError as e:
        print(f"covstudy-evaluate: error: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    print(f"covstudy-evaluate: note: {board.read}", file=sys.stderr)
    for note in (*board.notes, *(str(w.message) for w in caught)):
        print(f"covstudy-evaluate: warning: {note}", file=sys.stderr)
    from .answer import leaderboard_screen

    print(board.text() + "\n\n" + board.pairs.to_string(index=False, float_format="%.4f") if args.table
          else leaderboard_screen(board))
    if args.out:
        out = board.save(args.out)
        print("wrote " + ", ".join(str(out / f) for f in ("leaderboard.csv", "pairs.csv", "leaderboard.md", "leaderboard.png")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
