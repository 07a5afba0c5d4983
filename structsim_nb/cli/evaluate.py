"""`structsim-nb evaluate`: score saved trajectories against scenario folders (AssetOpsBench layout)."""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from typing import TYPE_CHECKING, Any

from .._surrogates import text_frame
from ._common import (
    EXIT_BAD_INPUT,
    EXIT_FAILURES,
    EXIT_OK,
    EXIT_RUNTIME_ERROR,
    HelpFormatter,
    add_verbose,
    fit_table,
    plural,
    positive_int,
    wrapped,
)

AGGREGATE = "_aggregate.json"

if TYPE_CHECKING:
    from ..trajectories.runner import EvaluationRun

EXAMPLES = """\
examples:
  # the static_json scorer (default): runs/*.json, scenarios/scenario_<id>/
  structsim-nb evaluate --trajectories runs/ --scenarios scenarios/ \\
      --reports-dir reports/

  # field by field against a Pydantic model (dotted path) or a JSON Schema file
  structsim-nb evaluate --trajectories runs/ --scenarios scenarios/ \\
      --scorer similarity --schema myapp.models.Invoice

  # Agenta-style JSON field match, some scenarios, on two worker processes
  structsim-nb evaluate --trajectories runs/ --scenarios scenarios/ \\
      --scorer json_field_match --fields name address.city \\
      --scenario-ids 11,12 --workers 2

exit codes: 0 every run passed and everything joined, 1 a run failed or errored, something did not
join, or there was no run at all, 2 bad input (a missing folder, an unknown scorer, a bad option, a
reports folder that holds other files), 3 a --scheduler that cannot be reached or worker processes
that cannot start, 130 Ctrl-C, 143 SIGTERM, 141 output closed early (| head).

--reports-dir is the run's own folder: it is replaced as a whole (an earlier evaluate's reports
go), and refused if it holds files evaluate did not write. Reports are written into a hidden
staging folder and moved into place at once, so an interrupted run writes nothing.
"""


def add_parser(commands: Any) -> None:
    """Register `evaluate` on the `commands` subparsers."""
    evaluate = commands.add_parser(
        "evaluate",
        help="score saved trajectories against scenario folders (AssetOpsBench layout)",
        description="Join saved trajectories to scenario_<id> folders (by scenario_id, run_id, then file name), "
        "score each answer against groundtruth.txt, and write one report per run plus _aggregate.json and a page of "
        "the runs, _aggregate.html. "
        "Exit 0 when every run passed and everything joined, 1 otherwise, 2 on bad input.",
        epilog=EXAMPLES,
        formatter_class=HelpFormatter,
    )
    evaluate.add_argument("--trajectories", required=True, help="folder of trajectory *.json files, or one file")
    evaluate.add_argument(
        "--scenarios",
        required=True,
        nargs="+",
        help="folders of scenario_<id> folders and/or scenario files (.json, .jsonl)",
    )
    evaluate.add_argument(
        "--scenario-ids",
        metavar="SELECTOR",
        help="score only these scenarios: ids separated by ',' or '+' (11,12,34), or a file of ids",
    )
    evaluate.add_argument(
        "--timestamp",
        action="store_true",
        help="put the current UTC time in _aggregate.json generated_at (default: null, or SOURCE_DATE_EPOCH if set, "
        "so reports are byte-identical across runs)",
    )
    add_verbose(evaluate)
    evaluate.add_argument("--reports-dir", default="reports", help="where reports go (default: %(default)s)")
    evaluate.add_argument(
        "--scorer",
        "--scorer-default",
        dest="scorer",
        default="static_json",
        help="registered scorer: static_json, similarity, exact_match, contains_json, json_field_match or "
        "json_diff (default: %(default)s)",
    )
    evaluate.add_argument(
        "--schema", help="for --scorer similarity: a Pydantic model dotted path or a JSON Schema file"
    )
    json_match = evaluate.add_argument_group(
        "JSON match scorers",
        "options of exact_match, contains_json, json_field_match and json_diff (Agenta-compatible)",
    )
    json_match.add_argument(
        "--fields",
        nargs="+",
        action="extend",
        metavar="PATH",
        help="json_field_match: field paths, dot notation (address.city, items[0].sku), JSON Path ($.items[-1]) "
        "or JSON Pointer (/address/city)",
    )
    json_match.add_argument(
        "--threshold", type=float, help="json_field_match / json_diff: score needed to pass (default 1.0 / 0.5)"
    )
    json_match.add_argument(
        "--both-absent",
        choices=["skip", "match", "miss"],
        help="json_field_match: a field on neither side is skipped (default), a match, or a miss",
    )
    json_match.add_argument(
        "--schema-only", dest="compare_schema_only", action="store_true", help="json_diff: compare JSON types only"
    )
    json_match.add_argument("--case-insensitive-keys", action="store_true", help="json_diff: fold key case")
    json_match.add_argument(
        "--penalize-extra-keys", action="store_true", help="json_diff: leaves only the answer has count as misses"
    )
    json_match.add_argument(
        "--skip-nulls", action="store_true", help="json_diff: do not score null ground-truth leaves"
    )
    json_match.add_argument(
        "--ignore-case", action="store_true", help="exact_match: compare strings case-insensitively"
    )
    json_match.add_argument("--strip", action="store_true", help="exact_match: ignore leading/trailing whitespace")
    json_match.add_argument(
        "--null-is-a-value",
        dest="null_is_a_value",
        action="store_true",
        help="exact_match / json_field_match / json_diff: a null differs from a missing field "
        "(default: they read alike, as StructuredOutputSimilarity reads them)",
    )
    evaluate.add_argument(
        "--full-results",
        action="store_true",
        help="repeat every per-run report inside _aggregate.json (default: each result keeps its summary; the "
        "detail is in the run's own file)",
    )
    evaluate.add_argument("--no-progress", action="store_true", help="no progress bar (it only shows on a terminal)")
    evaluate.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="score on N worker processes, at most 4 a core (default: in this process)",
    )
    evaluate.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="score on the Dask cluster at ADDRESS, e.g. tcp://10.0.0.5:8786 (needs the scale extra)",
    )
    evaluate.set_defaults(handler=run)


#: Which built-in scorers read each option, and its flag. A scorer added with `register_scorer` may read any.
_READ_BY: dict[str, tuple[str, tuple[str, ...]]] = {
    "schema": ("--schema", ("similarity",)),
    "fields": ("--fields", ("json_field_match",)),
    "threshold": ("--threshold", ("json_field_match", "json_diff")),
    "both_absent": ("--both-absent", ("json_field_match",)),
    "compare_schema_only": ("--schema-only", ("json_diff",)),
    "case_insensitive_keys": ("--case-insensitive-keys", ("json_diff",)),
    "penalize_extra_keys": ("--penalize-extra-keys", ("json_diff",)),
    "skip_nulls": ("--skip-nulls", ("json_diff",)),
    "ignore_case": ("--ignore-case", ("exact_match",)),
    "strip": ("--strip", ("exact_match",)),
    "null_is_missing": ("--null-is-a-value", ("exact_match", "json_field_match", "json_diff")),
}
_BUILT_IN_SCORERS = frozenset(
    {"static_json", "similarity", "exact_match", "contains_json", "json_field_match", "json_diff"}
)


def _options_not_read(scorer: str, options: dict[str, object]) -> str:
    """Why options given on the command line would be ignored by a built-in scorer, or "" when none would.

    An option that changes nothing would let a user believe the reports reflect it (`--fields` with
    `--scorer static_json` once scored every field without a word).
    """
    if scorer not in _BUILT_IN_SCORERS:
        return ""
    unread = [(flag, readers) for key, (flag, readers) in _READ_BY.items() if key in options and scorer not in readers]
    if not unread:
        return ""
    flags = ", ".join(flag for flag, _ in unread)
    readers = sorted({reader for _, names in unread for reader in names})
    return (
        f"{flags} {'is' if len(unread) == 1 else 'are'} not read by --scorer {scorer}, only by "
        f"{' and '.join(readers)}; drop {'it' if len(unread) == 1 else 'them'}, or pick a scorer that reads "
        f"{'it' if len(unread) == 1 else 'them'}"
    )


def run(args: argparse.Namespace) -> int:
    """Score the trajectories, write the reports, print the summary; the exit code."""
    from .._signals import Terminated
    from ..errors import FieldPathError, ReportsFolderError, SchemaLoadError, UnknownScorerError
    from ..trajectories.runner import read_scenario_ids, run_evaluation

    for stream in (sys.stdout, sys.stderr):  # ids and answers may hold characters a terminal cannot encode
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")

    options = {"schema": args.schema} if args.schema else {}
    # Options of the JSON match scorers (structsim_nb.json_match); only those given are passed.
    for key in ("fields", "threshold", "both_absent"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    for key in ("compare_schema_only", "case_insensitive_keys", "penalize_extra_keys", "skip_nulls", "ignore_case"):
        if getattr(args, key):
            options[key] = True
    if args.strip:
        options["strip"] = True
    if args.null_is_a_value:
        options["null_is_missing"] = False
    unread = _options_not_read(args.scorer, options)
    if unread:
        print(f"error: {unread}", file=sys.stderr)
        return EXIT_BAD_INPUT
    client = executor = None
    if args.scheduler:
        try:
            from distributed import Client  # optional extra: scale
        except ImportError:
            print('error: --scheduler needs Dask: pip install "structsim-nb[scale]"', file=sys.stderr)
            return EXIT_BAD_INPUT
        try:
            client = Client(args.scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            print(f"error: could not reach the Dask scheduler at {args.scheduler}: {exc}", file=sys.stderr)
            return EXIT_RUNTIME_ERROR
        executor = client
    generated_at = None  # reports stay byte-identical unless a time is asked for
    if args.timestamp:
        generated_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    elif os.environ.get("SOURCE_DATE_EPOCH", "").strip().isdigit():
        epoch = int(os.environ["SOURCE_DATE_EPOCH"])
        generated_at = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).isoformat(timespec="seconds")
    try:
        result = run_evaluation(
            args.trajectories,
            args.scenarios,
            args.reports_dir,
            scorer=args.scorer,
            options=options,
            progress=not args.no_progress,
            workers=args.workers,
            executor=executor,
            scenario_ids=read_scenario_ids(args.scenario_ids) if args.scenario_ids is not None else None,
            generated_at=generated_at,
            full_results=args.full_results,
        )
    except KeyboardInterrupt as exc:
        what = "SIGTERM" if isinstance(exc, Terminated) else "Ctrl-C"
        written = getattr(exc, "reports_written", None)
        if written is not None:
            print(f"interrupted by {what} after the reports were written: {written} holds this run's reports")
        else:
            print(f"interrupted by {what}: nothing was written; {args.reports_dir} is as it was", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except (
        UnknownScorerError,
        SchemaLoadError,
        FieldPathError,
        ReportsFolderError,
        ValueError,
        FileNotFoundError,
        NotADirectoryError,
        PermissionError,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        if client is not None:
            client.close()
    print_summary(result)
    return _exit_code(result.aggregate)


def _line(prefix: str, reason: Any) -> str:
    """`prefix: reason`, one entry: a single line when it fits the terminal, else wrapped under itself."""
    return wrapped(f"{prefix}: " + " ".join(str(reason or "").split()), indent=" " * 6)


def print_summary(result: EvaluationRun) -> None:
    """The per-run table, every run that errored and every record that did not join (one line each,
    the file named, with the reason), the problems, what was skipped, the totals, and where it was written."""
    import pandas as pd

    aggregate = result.aggregate
    rows = [
        {
            "report": r["report"],
            "scenario_id": r["scenario_id"],
            "status": r["status"],
            "passed": r["score"]["passed"],
            "score": r["score"]["score"],
            "rationale": r["score"].get("rationale"),
        }
        for r in aggregate["results"]
    ]
    table = text_frame(pd.DataFrame, rows, columns=["report", "scenario_id", "status", "passed", "score", "rationale"])
    print(
        fit_table(
            table,
            drop=["rationale"],
            shrink=["rationale", "report", "scenario_id"],
            middle=["report", "scenario_id"],
        )
        if rows
        else "no trajectory joined a scenario"
    )
    errored = [r for r in aggregate["results"] if r["status"] == "error"]
    if errored:
        print(f"\nErrors ({plural(len(errored), 'run')} not scored):")
        for r in errored:
            print(_line(f"  {r.get('trajectory_file') or r['report']} -> {r['scenario_folder']}", r["error"]))
    for label, key, column in (
        ("Unmatched trajectories", "unmatched_trajectories", "file"),
        ("Unmatched scenarios", "unmatched_scenarios", "folder"),
    ):
        if aggregate[key]:
            print(f"\n{label}:")
            for item in aggregate[key]:
                print(_line(f"  {item[column]}", item["error"] or item["reason"]))
    if aggregate["problems"]:
        print("\nProblems:")
        for problem in aggregate["problems"]:
            print(_line(f"  {problem['source']}", problem["message"]))
    if aggregate.get("skipped"):
        print("\nSkipped (not read):")
        for item in aggregate["skipped"]:
            print(_line(f"  {item['file']}", item["reason"]))
    totals = aggregate["totals"]
    rate = "n/a" if totals["pass_rate"] is None else f"{totals['pass_rate']:.1%}"
    failed = totals["scenarios"] - totals["passed"] - totals["errors"]
    print()
    for line in (
        f"{plural(totals['scenarios'], 'run')} with {aggregate['scorer']}: {totals['passed']} passed ({rate}), "
        f"{failed} failed, {plural(totals['errors'], 'error')} (not scored);",
        f"{plural(len(aggregate['unmatched_trajectories']), 'unmatched trajectory', 'unmatched trajectories')}, "
        f"{plural(len(aggregate['unmatched_scenarios']), 'unmatched scenario')}",
        f"Reports written: {len(result.report_paths)} in {result.aggregate_path.parent}",
        f"Aggregate report written: {result.aggregate_path}",
        *([f"Page written: {result.page_path}"] if result.page_path else []),
    ):
        print(wrapped(line))


def _exit_code(aggregate: dict[str, Any]) -> int:
    totals = aggregate["totals"]
    # No run at all is not a pass: empty or mistyped folders must not turn a CI check green.
    clean = (
        totals["scenarios"] > 0
        and totals["passed"] == totals["scenarios"]
        and not (aggregate["unmatched_trajectories"] or aggregate["unmatched_scenarios"] or aggregate["problems"])
    )
    return EXIT_OK if clean else EXIT_FAILURES
