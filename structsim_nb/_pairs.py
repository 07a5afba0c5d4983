"""The pairs `score_dataset` scores: read from a JSON Lines file or taken from any iterable.

`read_pairs(path)` reads a pairs file, checking every line before the first pair is returned;
`pair_source(pairs)` turns what the caller passed (a file path, a list, any iterable of
mappings, `(expected, actual)` pairs or `(name, expected, actual)` triples) into `Pair`s, naming
the item or line that is not a pair.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from .errors import PairsFileError

__all__ = ["Pair", "pair_source", "read_pairs"]


class Pair(NamedTuple):
    """One expected/actual pair, as a case: its name, input and metadata stay with it."""

    name: str
    input: Any
    expected: Any
    actual: Any
    metadata: dict[str, Any] | None


def read_pairs(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Read a pairs file: JSON Lines, one JSON object per line.

    Each line is `{"expected": ..., "actual": ...}`, optionally with `"name"` (a string),
    `"input"` (any JSON) and `"metadata"` (an object). `expected` and `actual` are a JSON object
    or a string of JSON text; the evaluator reads either. Blank lines are skipped.

    The whole file is checked before the first pair is returned, so a bad line fails the run
    before any scoring rather than halfway through; pairs are then read again one at a time.

    Args:
        path: The file.

    Returns:
        An iterator of `{"name", "expected", "actual", "input", "metadata"}` dicts, in file
        order (`name` is None when the line has none).

    Raises:
        PairsFileError: If the file is missing or not UTF-8, or a line is not a JSON object
            with `expected` and `actual`; the message names the file and the line number.
    """
    source = Path(path)
    for _ in _parse_lines(source):
        pass
    return _parse_lines(source)


def _parse_lines(source: Path) -> Iterator[dict[str, Any]]:
    try:
        handle = source.open("rb")
    except FileNotFoundError:
        raise PairsFileError(f"pairs file must exist; {str(source)!r} was not found") from None
    except OSError as exc:
        raise PairsFileError(f"pairs file {str(source)!r} could not be opened: {exc}") from exc
    with handle:
        # Bytes, decoded a line at a time, so a bad byte is reported on the line that holds it.
        for lineno, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise PairsFileError(
                    f"pairs file {str(source)!r} must be UTF-8 text; line {lineno} is not: {exc.reason} at byte "
                    f"{exc.start + 1} of the line"
                ) from exc
            if not line.strip():
                continue
            yield _parse_line(source, lineno, line)


def _parse_line(source: Path, lineno: int, line: str) -> dict[str, Any]:
    where = f"pairs file {str(source)!r}, line {lineno}"
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise PairsFileError(
            f"{where} must be one JSON object; column {exc.colno}: {exc.msg}. "
            'Write one {"name", "expected", "actual"} object per line (JSON Lines)'
        ) from exc
    except RecursionError:
        raise PairsFileError(f"{where} nests too deeply to read; keep expected and actual under 100 levels") from None
    except ValueError as exc:  # a number with more digits than Python converts
        raise PairsFileError(f"{where} cannot be read: {exc}") from None
    if not isinstance(record, dict):
        raise PairsFileError(f"{where} must be a JSON object; got a JSON {type(record).__name__}")
    missing = [key for key in ("expected", "actual") if key not in record]
    if missing:
        raise PairsFileError(
            f"{where} must have keys 'expected' and 'actual'; it lacks {', '.join(map(repr, missing))} "
            f"(it has: {', '.join(map(repr, record)) or 'none'})"
        )
    name = record.get("name")
    if name is not None and not isinstance(name, str):
        raise PairsFileError(f"{where}: 'name' must be a string; got {name!r}")
    metadata = record.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise PairsFileError(f"{where}: 'metadata' must be a JSON object; got {metadata!r}")
    return {
        "name": name,
        "expected": record["expected"],
        "actual": record["actual"],
        "input": record.get("input"),
        "metadata": metadata,
    }


def _pair(index: int, item: Any) -> Pair:
    """One input item as a `Pair`; unnamed pairs are named `case_<index>` as an Experiment shows them."""
    if isinstance(item, Mapping):
        if "expected" not in item or "actual" not in item:
            raise TypeError(
                f"pairs[{index}] must have keys 'expected' and 'actual'; it has: {', '.join(map(repr, item))}"
            )
        name, payload = item.get("name"), (item.get("input"), item["expected"], item["actual"], item.get("metadata"))
    elif isinstance(item, (tuple, list)) and len(item) in (2, 3):
        name = item[0] if len(item) == 3 else None
        payload = (None, item[-2], item[-1], None)
    else:
        raise TypeError(
            f"pairs[{index}] must be a mapping with 'expected' and 'actual', an (expected, actual) pair "
            f"or a (name, expected, actual) triple; got {type(item).__name__}"
        )
    if name is not None and not isinstance(name, str):
        raise TypeError(f"pairs[{index}] name must be a string; got {name!r}")
    return Pair(name if name is not None else f"case_{index}", *payload)


def pair_source(pairs: Any) -> tuple[Iterator[Pair], int | None]:
    """The pairs as an iterator of `Pair`, and how many there are when that is known up front.

    A file is read twice (checked whole, then pair by pair); a sequence is checked item by item
    before any is returned; another iterable is read lazily, so a bad item fails when reached.

    Raises:
        TypeError: If `pairs` or one of its items has the wrong shape, naming the item.
        PairsFileError: If `pairs` is a file with a line that is not a pair, naming the line.
    """
    if isinstance(pairs, (str, os.PathLike)):
        source = Path(pairs)
        total = sum(1 for _ in read_pairs(source))
        return (_pair(index, item) for index, item in enumerate(_parse_lines(source))), total
    if isinstance(pairs, Mapping) or not isinstance(pairs, Iterable):
        raise TypeError(
            "pairs must be an iterable of pairs (mappings with 'expected' and 'actual', or tuples) "
            f"or the path of a JSON Lines file; got {type(pairs).__name__}"
        )
    if isinstance(pairs, Sequence):
        for index, item in enumerate(pairs):  # fail before any scoring, naming the item
            _pair(index, item)
        return (_pair(index, item) for index, item in enumerate(pairs)), len(pairs)
    return (_pair(index, item) for index, item in enumerate(pairs)), None
