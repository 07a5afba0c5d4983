"""The `structsim-nb` command line. It parses arguments, calls the public API and prints.

No scoring logic lives here: every command calls the same functions a notebook would. One module
per command (`demo`, `evaluate`, `record`, `compare`), each with `add_parser` and `run`; `_common` holds the
exit codes and the terminal tables. Exit codes: 0 ok, 1 the run finished but something failed,
2 bad input, 3 runtime error (and 4-8 for `record`, see `structsim-nb record --help`), 130 Ctrl-C,
143 SIGTERM (which runs the same cleanup as Ctrl-C), 141 when the reader of the output went away (`| head`:
the files a command writes are written before it prints).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence

from . import compare, demo, evaluate, record
from ._common import (
    EXIT_BAD_INPUT,
    EXIT_CALL_FAILED,
    EXIT_FAILURES,
    EXIT_INVALID_RECORDING,
    EXIT_LIVE_MISSING,
    EXIT_NO_CREDENTIALS,
    EXIT_NO_STRUCTURED_OUTPUT,
    EXIT_OK,
    EXIT_OUTPUT_CLOSED,
    EXIT_RUNTIME_ERROR,
    HelpFormatter,
)

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_CALL_FAILED",
    "EXIT_FAILURES",
    "EXIT_INVALID_RECORDING",
    "EXIT_LIVE_MISSING",
    "EXIT_NO_CREDENTIALS",
    "EXIT_NO_STRUCTURED_OUTPUT",
    "EXIT_OK",
    "EXIT_OUTPUT_CLOSED",
    "EXIT_RUNTIME_ERROR",
    "build_parser",
    "main",
]

EXAMPLES = """\
examples:
  structsim-nb demo --out demo-report      # the offline reference evaluation
  structsim-nb evaluate --trajectories runs/ --scenarios scenarios/
  structsim-nb record recordings/invoice_walkthrough.json \\
      --schema examples/notebooks/walkthrough_schema.py:Invoice \\
      --model-id us.anthropic.claude-haiku-4-5-20251001-v1:0
  structsim-nb compare before.json after.json --fail-on worse-overall
  structsim-nb COMMAND --help              # a command's options and examples
"""


def _version() -> str:
    try:
        return importlib.metadata.version("structsim-nb")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="structsim-nb",
        description="Score an agent's structured output against ground truth, field by field.",
        epilog=EXAMPLES,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-v info, -vv debug)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo.add_parser(commands)
    record.add_parsers(commands)
    evaluate.add_parser(commands)
    compare.add_parser(commands)
    return parser


@contextlib.contextmanager
def _sigterm_handled() -> Iterator[None]:
    """SIGTERM raises `Terminated` for the whole command, so `main` reports it and returns 143."""
    from .._signals import clear_terminated, raise_if_terminated, raise_terminated

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
        raise_if_terminated()  # a SIGTERM whose exception was swallowed on the way
    finally:
        signal.signal(signal.SIGTERM, previous)
        clear_terminated()


def _quiet_stdout() -> None:
    """Point standard output at the null device: its reader went away (`| head`), and Python flushes it once more
    when it exits, which would print a second BrokenPipeError."""
    with contextlib.suppress(OSError, ValueError, AttributeError):  # (a stream without a descriptor: nothing to do)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _search_the_working_directory() -> None:
    """Let `--schema myapp.models:Invoice` import `myapp` from the working directory, as `python -m structsim_nb`
    does: the installed `structsim-nb` script starts with its own folder on `sys.path` instead. Added last, so a
    file in the working directory never hides an installed module."""
    here = os.getcwd()
    if "" not in sys.path and here not in sys.path:
        sys.path.append(here)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    _search_the_working_directory()
    parser = build_parser()
    args = parser.parse_args(argv)
    level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)
    # The level sits on our handler too: strands_evals sets the root logger to INFO when it is imported
    # (strands_evals/experiment.py), which would otherwise print every INFO line of every library.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.setLevel(level)
    logging.basicConfig(level=level, handlers=[handler])
    from .._signals import Terminated, clear_terminated
    from ..errors import WorkerStartError

    try:
        # SIGTERM (a CI cancel) runs the same cleanup as Ctrl-C: worker processes stop, staging goes.
        with _sigterm_handled():
            code = int(args.handler(args))
            if code in (130, 143):  # the command caught the interrupt and said what it left: said once
                clear_terminated()
            sys.stdout.flush()  # a reader that went away shows here, not as a traceback when Python exits
            return code
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OUTPUT_CLOSED
    except WorkerStartError as exc:  # `--workers N` where no worker process starts: no document is at fault
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_RUNTIME_ERROR
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, Terminated)
        print(f"interrupted by {'SIGTERM' if terminated else 'Ctrl-C'}", file=sys.stderr)
        return 143 if terminated else 130
