"""`structsim-nb compare`: did the change make it better or worse? Two runs, per field, with uncertainty; a CI gate."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import (
    EXIT_BAD_INPUT,
    EXIT_FAILURES,
    EXIT_OK,
    HelpFormatter,
    add_verbose,
    cannot_write_out,
    fit_table,
    plural,
    positive_int,
    wrapped,
)

if TYPE_CHECKING:
    from ..comparison import Comparison

#: The `--fail-on` rules, and what each one checks.
RULES = {
    "worse-overall": "the mean score is worse (its interval lies below zero)",
    "any-worse-field": "some field is worse (its interval lies below zero)",
    "any-broken-case": "some case passed in the baseline and fails in the candidate",
}
#: Regression rows printed; the page and the JSON list them all.
_SHOWN = 20

EXAMPLES = """\
examples:
  structsim-nb compare before/report.json after/report.json
  structsim-nb compare reports-main/ reports-pr/ --fail-on worse-overall
  structsim-nb compare base.json cand.json --fail-on any-worse-field \\
      --fail-on any-broken-case --out compare-out

  BASELINE and CANDIDATE are each a saved report (report.to_file, demo's
  report.json) or a `structsim-nb evaluate` reports folder (with
  _aggregate.json), where runs pair by scenario id.

exit codes: 0 no --fail-on rule matched, 1 a rule matched, 2 bad input (a
missing or truncated file, runs of different evaluators or schemas, repeated
case names).
"""


def _confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number such as 0.95; got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive); got {value}")
    return value


def add_parser(commands: Any) -> None:
    """Register `compare` on the `commands` subparsers."""
    parser = commands.add_parser(
        "compare",
        help="compare two runs: better or worse, per field, with confidence intervals",
        description="Pair the cases of two runs by name and measure the change case by case: the mean score and "
        "pass rate with a bootstrap confidence interval, the cases that broke or got fixed, and a difference per "
        "field. A difference is called better or worse only when its interval excludes zero. Prints the headline, "
        "the regressions and the per-field table; writes comparison.html and comparison.json. With --fail-on, "
        "exits 1 when a rule matches, so it can gate a CI job.",
        epilog=EXAMPLES,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("baseline", metavar="BASELINE", help="the run before the change: a report file or folder")
    parser.add_argument("candidate", metavar="CANDIDATE", help="the run after the change: a report file or folder")
    parser.add_argument(
        "--fail-on",
        action="append",
        choices=list(RULES),
        default=[],
        metavar="RULE",
        help="exit 1 when RULE matches; repeat for several: worse-overall (the mean score is worse), "
        "any-worse-field, any-broken-case (a case passed before and fails now)",
    )
    parser.add_argument(
        "--out", default="structsim-compare", help="folder for the page and JSON (default: %(default)s)"
    )
    parser.add_argument("--evaluator", metavar="NAME", help="the evaluator to compare, when a report carries several")
    parser.add_argument(
        "--confidence", type=_confidence, default=0.95, help="level of every interval (default: %(default)s)"
    )
    parser.add_argument(
        "--resamples", type=positive_int, default=1999, metavar="N", help="bootstrap resamples (default: %(default)s)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling (default: %(default)s)")
    parser.add_argument(
        "--allow-schema-change",
        action="store_true",
        help="compare runs scored against different schemas (the schema change is what is measured)",
    )
    add_verbose(parser)
    parser.set_defaults(handler=run)


def _folders(*paths: str) -> list[str]:
    """A line for each side that is an evaluate reports folder, saying how its runs pair."""
    return [
        f"{path}: an evaluate reports folder; its runs pair by scenario id (scenario/run id when a scenario "
        "ran more than once)"
        for path in paths
        if Path(path).is_dir()
    ]


def print_comparison(comparison: Comparison) -> None:
    """The headline, the regressions (first rows) and the per-field table, fitted to the terminal."""
    from ..comparison.render import headline

    for line in headline(comparison.summary(), comparison.overall_frame()):
        print(wrapped(line))
    for note in comparison.notes:
        print(wrapped(f"note: {note}"))
    regressions = comparison.regressions()
    print()
    print("Regressions, worst first")
    print(
        fit_table(
            regressions.head(_SHOWN),
            drop=["ci_low", "ci_high", "n_cases"],
            shrink=["detail", "name", "path"],
            middle=["name", "path"],
            note="comparison.html has them all",
        )
    )
    if len(regressions) > _SHOWN:
        print(f"(and {len(regressions) - _SHOWN} more; the page and the JSON list them all)")
    print()
    print("Per field, most negative difference first")
    print("(n_cases: the cases each interval rests on)")
    fields = comparison.fields_frame()[
        ["path", "n_cases", "n_changed", "mean_before", "mean_after", "delta", "ci_low", "ci_high", "verdict"]
    ]
    print(
        fit_table(
            fields,
            drop=["n_changed", "mean_before", "mean_after"],
            shrink=["path"],
            middle=["path"],
            note="comparison.html has them all",
        )
    )


def _failures(comparison: Comparison, rules: list[str]) -> list[str]:
    summary = comparison.summary()
    found = []
    for rule in dict.fromkeys(rules):
        if rule == "worse-overall" and summary["verdict"] == "worse":
            found.append(f"{rule}: the mean score fell by {-summary['delta']:.3f} (interval below zero)")
        elif rule == "any-worse-field" and summary["fields_worse"]:
            worse = comparison.fields_frame().query("verdict == 'worse'")["path"].tolist()
            found.append(f"{rule}: {plural(len(worse), 'field')} worse ({', '.join(worse)})")
        elif rule == "any-broken-case" and summary["broken"]:
            found.append(f"{rule}: {plural(summary['broken'], 'case')} passed in the baseline and fail now")
    return found


def run(args: argparse.Namespace) -> int:
    """Compare, print, write the page and JSON; the exit code by `--fail-on`."""
    from .._io import write_text_atomic
    from ..comparison import compare
    from ..errors import ComparisonError, ReportFileError

    try:
        comparison = compare(
            args.baseline,
            args.candidate,
            evaluator=args.evaluator,
            confidence=args.confidence,
            n_resamples=args.resamples,
            seed=args.seed,
            allow_schema_change=args.allow_schema_change,
        )
    except (ReportFileError, ComparisonError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    # The files first: what is printed after them may go to a reader that stops early (`| head`).
    out = Path(args.out)
    try:
        page = write_text_atomic(
            out / "comparison.html",
            comparison.to_html(title=f"structsim-nb comparison: {args.candidate} against {args.baseline}"),
        )
        data = write_text_atomic(out / "comparison.json", comparison.to_json())
    except OSError as exc:
        print(cannot_write_out(args.out, ["comparison.html", "comparison.json"], exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    for line in _folders(args.baseline, args.candidate):
        print(wrapped(line))
    print_comparison(comparison)
    print(f"\nwrote {page}\nwrote {data}")
    failures = _failures(comparison, args.fail_on)
    for failure in failures:
        print(f"fail-on {failure}", file=sys.stderr)
    if args.fail_on and not failures:
        print(f"fail-on: no rule matched ({', '.join(dict.fromkeys(args.fail_on))})")
    return EXIT_FAILURES if failures else EXIT_OK
