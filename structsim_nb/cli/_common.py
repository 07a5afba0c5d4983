"""What every command shares: exit codes, argument types, and tables that fit the terminal."""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import textwrap
from collections.abc import Sequence
from typing import Any

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
    "HelpFormatter",
    "add_verbose",
    "cannot_write_out",
    "fit_table",
    "non_negative_float",
    "plural",
    "positive_int",
    "terminal_width",
    "wrapped",
]

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_BAD_INPUT = 2
EXIT_RUNTIME_ERROR = 3
# `structsim-nb record`: one code per way a recording can fail; the old file is kept on all of them.
EXIT_LIVE_MISSING = 4
EXIT_NO_CREDENTIALS = 5
EXIT_CALL_FAILED = 6
EXIT_NO_STRUCTURED_OUTPUT = 7
EXIT_INVALID_RECORDING = 8
#: What a process killed by SIGPIPE returns (128 + 13): the reader of the output went away (`| head`). The files a
#: command writes are written before it prints, so they are in place.
EXIT_OUTPUT_CLOSED = 141

#: Width used when the output is not a terminal (a pipe, a CI log) and `COLUMNS` is not set.
DEFAULT_WIDTH = 120
_MIN_WIDTH = 40
_GAP = "  "
_ELLIPSIS = "…"


class HelpFormatter(argparse.HelpFormatter):
    """Wraps prose paragraphs to the terminal and keeps indented blocks (examples) as written. Lines break
    between words only: a path, an option or a hyphenated word (`worse-field`) is never split across lines."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_long_words=False, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in text.strip("\n").split("\n\n"):
            lines = paragraph.splitlines()
            if any(line.startswith(" ") for line in lines):
                paragraphs.append("\n".join(indent + line for line in lines))
            else:
                paragraphs.append(
                    textwrap.fill(
                        " ".join(paragraph.split()),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_long_words=False,
                        break_on_hyphens=False,
                    )
                )
        return "\n\n".join(paragraphs)


def terminal_width() -> int:
    """The terminal's width in characters: `COLUMNS`, else the terminal's, else `DEFAULT_WIDTH` (at least 40)."""
    return max(_MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`1 run`, `2 runs`, `0 runs`; `plural_form` for irregular words (`1 match`, `2 matches`)."""
    return f"{count} {singular if count == 1 else (plural_form or singular + 's')}"


def positive_int(text: str) -> int:
    """An argparse type: a whole number, at least 1 (worker processes, resamples, attempts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1; got {value}")
    return value


def non_negative_float(text: str) -> float:
    """An argparse type: a finite number, at least 0 (seconds to wait)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number; got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number, at least 0; got {text!r}")
    return value


def wrapped(text: str, *, indent: str = "  ") -> str:
    """`text` filled to the terminal, its later lines indented by `indent`; lines break between words only, so
    a path, an option or a hyphenated name stays whole (a word longer than the line stands on its own)."""
    return textwrap.fill(
        text, terminal_width(), subsequent_indent=indent, break_on_hyphens=False, break_long_words=False
    )


def cannot_write_out(out: str, names: Sequence[str], exc: OSError) -> str:
    """The error for an `--out` the command's files (`names`) could not be written in."""
    return (
        f"error: --out must be a folder {' and '.join(names)} can be written in; {out!r} failed: "
        f"{exc.strerror or exc}. Pass another --out"
    )


def add_verbose(parser: argparse.ArgumentParser) -> None:
    """`-v`/`--verbose` on a command too, so `structsim-nb demo -v` works as `structsim-nb -v demo` does. Its default
    is to set nothing, so a `-v` given before the command is kept."""
    parser.add_argument(
        "-v", "--verbose", action="count", default=argparse.SUPPRESS, help="log more (-v info, -vv debug)"
    )


def _cell(value: Any, *, raw: bool = False) -> str:
    """One value as a terminal cell: 3 decimals for floats (as written when `raw`), blank for missing,
    JSON for structures."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return json.dumps(value) if raw else ("yes" if value else "no")
    if isinstance(value, float):
        if math.isnan(value):
            return "" if not raw else "NaN"
        return repr(value) if raw else f"{value:.3f}"
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str, separators=(", ", ": "))
    try:  # numpy scalars and pandas' missing markers
        import pandas as pd

        if pd.isna(value):
            return ""
    except (TypeError, ValueError):
        pass
    if hasattr(value, "item") and not isinstance(value, str):
        return _cell(value.item(), raw=raw)
    return " ".join(str(value).split())  # one line per row: newlines and runs of spaces fold


def _numeric(cells: Sequence[str]) -> bool:
    values = [cell for cell in cells if cell]
    if not values:
        return False
    try:
        for cell in values:
            float(cell)
    except ValueError:
        return False
    return True


def _shared_ends(cells: Sequence[str]) -> tuple[int, int]:
    """The lengths of the start and the end every non-empty cell shares (not overlapping in the shortest)."""
    texts = [cell for cell in cells if cell]
    if len(texts) < 2:
        return 0, 0
    start = len(os.path.commonprefix(texts))
    shortest = min(map(len, texts))
    end = len(os.path.commonprefix([text[::-1] for text in texts]))
    return start, max(0, min(end, shortest - start))


def _cut(text: str, width: int, *, middle: bool = False, shared: tuple[int, int] = (0, 0)) -> str:
    """`text` in at most `width` characters, cut with `…`.

    Other text keeps its start. A name or path (`middle`) keeps the part that tells it from the other cells
    of its column (between the start and end they all share, `shared`), with as much around it as fits; when
    the cells share nothing, it keeps a third of its start and the rest of its end.
    """
    if len(text) <= width:
        return text
    if not middle or width < 3:
        return text[: max(0, width - 1)] + _ELLIPSIS
    start, end = shared
    if not (start or end):
        head = (width - 1) // 3
        return text[:head] + _ELLIPSIS + text[len(text) - (width - 1 - head) :]
    lo, hi = min(start, len(text)), max(min(start, len(text)), len(text) - end)  # the part that differs
    room = width - 2  # an ellipsis each side
    if hi - lo >= room:
        return (_ELLIPSIS if lo else "") + text[lo : lo + room + (0 if lo else 1)] + _ELLIPSIS
    spare = room - (hi - lo)
    lo = max(0, lo - spare // 2)
    hi = min(len(text), lo + room)
    lo = max(0, hi - room)
    if lo == 0:  # no ellipsis at the start: one more character fits
        hi = min(len(text), hi + 1)
    if hi == len(text):
        lo = max(0, len(text) - (width - (1 if lo else 0)))
    return (_ELLIPSIS if lo else "") + text[lo:hi] + (_ELLIPSIS if hi < len(text) else "")


def fit_table(
    frame: Any,
    *,
    width: int | None = None,
    drop: Sequence[str] = (),
    shrink: Sequence[str] = (),
    raw: Sequence[str] = (),
    middle: Sequence[str] = (),
    note: str = "the report page has them all",
) -> str:
    """`frame` as plain text no wider than `width`, for a terminal.

    Values print as they read best (scores with 3 decimals, booleans as yes/no, missing values
    blank, nested values as compact JSON, never Python reprs). When the table is too wide,
    the columns in `drop` are left out first (in order), then the text columns in `shrink`
    are cut (with `…`, never below their header's width or 8 characters), and last the
    rightmost columns are left out. A final line names any column left out. Names and paths (`middle`)
    are cut in the middle, keeping their start and their end, so `synthetic-0012` and `synthetic-0013`
    stay apart; other text keeps its start.

    Args:
        frame: A pandas DataFrame.
        width: Characters available. Default None: `terminal_width()`.
        drop: Columns to leave out first when the table is too wide, in order.
        shrink: Text columns that may be cut to fit.
        raw: Columns of values (not scores): numbers as written (`1500.0`, not `1500.000`), booleans
            as `true`/`false`.
        middle: Columns of `shrink` cut in the middle (`synthe…ic-0012`), not at the end: names and
            paths, whose ends tell rows apart.
        note: Where the left-out columns can be read (ends the final line).

    Returns:
        The table, one line per row plus a header line (and a note line when columns were
        left out). An empty frame gives `(none)`.
    """
    limit = terminal_width() if width is None else max(_MIN_WIDTH, width)
    if frame is None or len(frame) == 0:
        return "(none)"
    columns = [str(column) for column in frame.columns]
    cells = {
        name: [_cell(value, raw=name in raw) for value in frame[column].tolist()]
        for name, column in zip(columns, frame.columns, strict=True)
    }
    widths = {name: max([len(name), *map(len, cells[name])]) for name in columns}

    def total(names: list[str]) -> int:
        return sum(widths[name] for name in names) + len(_GAP) * (len(names) - 1)

    shown = list(columns)
    left_out: list[str] = []
    for name in drop:
        if total(shown) <= limit:
            break
        if name in shown:
            shown.remove(name)
            left_out.append(name)
    # Share the room left by the fixed columns among the shrinkable ones, narrowest first (water-filling):
    # a short column keeps its width, the long ones split the rest evenly, none below its floor.
    cuttable = [n for n in shrink if n in shown]
    if cuttable and total(shown) > limit:
        room = limit - total([n for n in shown if n not in cuttable]) - len(_GAP) * len(cuttable)
        floors = {n: max(len(n), 8) for n in cuttable}
        pending = sorted(cuttable, key=lambda n: widths[n])
        while pending:
            share = room // len(pending)
            name = pending.pop(0)
            widths[name] = max(floors[name], min(widths[name], share))
            room -= widths[name]
    while total(shown) > limit and len(shown) > 1:
        left_out.append(shown.pop())
    align = {name: _numeric(cells[name]) for name in shown}

    shared = {name: _shared_ends(cells[name]) for name in shown if name in middle}

    def line(values: dict[str, str], header: bool = False) -> str:
        parts = []
        for name in shown:
            ends = (0, 0) if header else shared.get(name, (0, 0))
            text = _cut(values[name], widths[name], middle=name in middle, shared=ends)
            parts.append(text.rjust(widths[name]) if align[name] else text.ljust(widths[name]))
        return _GAP.join(parts).rstrip()

    rows = [line({name: name for name in shown}, header=True)]
    rows += [line({name: cells[name][index] for name in shown}) for index in range(len(frame))]
    if left_out:
        listed = ", ".join(left_out)
        rows.append(
            textwrap.fill(
                f"({plural(len(left_out), 'column')} left out to fit {limit} characters: {listed}; {note})", limit
            )
        )
    return "\n".join(rows)
