"""The `structsim-nb` command line. It parses arguments, calls the public API and prints.

No scoring logic lives here: every command calls the same functions a notebook would.
Exit codes: 0 ok, 1 the run finished but something failed, 2 bad input, 3 runtime error.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILURES", "EXIT_OK", "EXIT_RUNTIME_ERROR", "main"]

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_BAD_INPUT = 2
EXIT_RUNTIME_ERROR = 3


def _table(frame: pd.DataFrame) -> str:
    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.max_colwidth", 60):
        return frame.to_string(index=False, float_format=lambda value: f"{value:.3f}", na_rep="")


def _cmd_demo(args: argparse.Namespace) -> int:
    from ._io import write_text_atomic
    from .demo import run_reference

    report = run_reference()
    out = Path(args.out)
    cases = report.cases_frame().drop(columns=["evaluator", "model"])
    print("Per case")
    print(_table(cases))
    print()
    print("Per field, worst first")
    print(_table(report.fields_frame()))
    print()
    print("Non-matches")
    print(_table(report.non_matches_frame().drop(columns=["evaluator"])))
    json_path = report.to_file(out / "report.json")
    html_path = write_text_atomic(out / "report.html", report.to_html(title="structsim-nb reference evaluation"))
    summary = report.summary()
    print()
    print(
        f"{summary['cases']} cases, {summary['passed']} passed, overall score {summary['overall_score']:.3f}; "
        f"wrote {json_path} and {html_path}"
    )
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="structsim-nb",
        description="Score an agent's structured output against ground truth, field by field.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-v info, -vv debug)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser(
        "demo",
        help="run the offline reference evaluation (six invoices) and write its report",
        description="Run the offline reference evaluation end to end: six invoices, each broken a different "
        "way, scored field by field. Prints the per-case and per-field tables and writes report.json and "
        "report.html. No credentials, no network.",
    )
    demo.add_argument("--out", default="structsim-demo", help="folder to write the report to (default: %(default)s)")
    demo.set_defaults(handler=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted; nothing partial was written", file=sys.stderr)
        return 130
