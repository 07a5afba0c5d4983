"""`structsim-nb demo`: the offline reference evaluation, printed and written as a report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import EXIT_BAD_INPUT, EXIT_OK, HelpFormatter, add_verbose, cannot_write_out, fit_table, positive_int

if TYPE_CHECKING:
    from ..report import StructuredOutputReport

EXAMPLES = """\
examples:
  structsim-nb demo            # writes structsim-demo/report.json, report.html
  structsim-nb demo --out demo-report --workers 2
"""


def add_parser(commands: Any) -> None:
    """Register `demo` on the `commands` subparsers."""
    demo = commands.add_parser(
        "demo",
        help="run the offline reference evaluation (six invoices) and write its report",
        description="Run the offline reference evaluation end to end: six invoices, each broken a different "
        "way, scored field by field. Prints the per-case and per-field tables and the non-matches, and writes "
        "report.json and report.html. No credentials, no network.",
        epilog=EXAMPLES,
        formatter_class=HelpFormatter,
    )
    demo.add_argument("--out", default="structsim-demo", help="folder to write the report to (default: %(default)s)")
    demo.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="score on N worker processes, at most 4 a core (default: in this process)",
    )
    add_verbose(demo)
    demo.set_defaults(handler=run)


def _on_workers(workers: int) -> StructuredOutputReport:
    """The reference cases through `score_dataset` on `workers` processes: the same report as `run_reference`."""
    from ..dataset import score_dataset
    from ..demo import Invoice, reference_cases, reference_predictions

    predictions = reference_predictions()
    pairs = [
        {"name": case.name, "input": case.input, "expected": case.expected_output, "actual": predictions[case.name]}
        for case in reference_cases()
    ]
    return score_dataset(pairs, model_cls=Invoice, workers=workers)


def print_report(report: StructuredOutputReport) -> None:
    """The three tables of a report, fitted to the terminal (the page and the JSON file hold every column)."""
    cases = report.cases_frame()
    fields = [column for column in cases.columns if column not in _CASE_COLUMNS]
    # One evaluator and one model per run say nothing per row; a status that is `scored` throughout
    # is the first thing to give up when the terminal is narrow.
    constant = [c for c in ("evaluator", "model") if c in cases.columns and cases[c].nunique() <= 1]
    same_status = ["status"] if cases["status"].nunique() <= 1 else []
    # Nothing read leniently: the column is empty on every row.
    constant += [c for c in ("reading",) if c in cases.columns and cases[c].isna().all()]
    print("Per case")
    print(
        fit_table(
            cases.drop(columns=constant),
            drop=[*fields, *same_status, "tn", "tp", "f1", "precision", "recall"],
            shrink=["reason", "case"],
            middle=["case"],
        )
    )
    print()
    print("Per field, worst first")
    print(
        fit_table(
            report.fields_frame().drop(columns=["parent", "depth", "errors"], errors="ignore"),
            drop=["tn", "tp"],
            shrink=["path"],
            middle=["path"],
        )
    )
    print()
    print("Non-matches")
    misses = report.non_matches_frame()
    empty = [c for c in ("reading",) if c in misses.columns and misses[c].isna().all()]
    print(
        fit_table(
            misses.drop(columns=["evaluator", "category", *empty], errors="ignore"),
            drop=["reason"],
            shrink=["case", "path", "expected", "predicted", "reason"],
            raw=["expected", "predicted"],
            middle=["case", "path"],
        )
    )


#: The per-case columns that are not one field's score.
_CASE_COLUMNS = frozenset(
    {"case", "evaluator", "model", "status", "score", "test_pass", "precision", "recall", "f1"}
    | {"tp", "fn", "fa", "fd", "tn", "reason", "reading", "read_as", "error"}
)


def run(args: argparse.Namespace) -> int:
    """Run the reference evaluation, print its tables, write report.json and report.html."""
    from .._io import write_text_atomic
    from ..demo import run_reference

    report = run_reference() if args.workers is None else _on_workers(args.workers)
    out = Path(args.out)
    # The files first: what is printed after them may go to a reader that stops early (`| head`).
    try:
        json_path = report.to_file(out / "report.json")
        html_path = write_text_atomic(out / "report.html", report.to_html(title="structsim-nb reference evaluation"))
    except OSError as exc:
        print(cannot_write_out(args.out, ["report.json", "report.html"], exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    print_report(report)
    summary = report.summary()
    print()
    print(
        f"{summary['cases']} cases, {summary['passed']} passed, overall score {summary['overall_score']:.3f}; "
        f"wrote {json_path} and {html_path}"
    )
    return EXIT_OK
