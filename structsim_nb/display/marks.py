"""Where a case's non-matches sit in its truth and in its prediction, as paths to highlight.

A non-match record names one path (`line_items[1].quantity`), indexed as in the ground truth.
On the truth side that path is where the value is. On the prediction side it may not be: the
engine pairs list elements by similarity, not position, so the predicted element that was compared
with truth element 1 can sit at index 0, and an invented element carries the prediction's index.
The records do not say which element was paired (stickler keeps no pairing in its result), so this
module finds it from the values the record holds:

- a whole element (`line_items[1]`, wrong or invented): the prediction element equal to the
  record's `predicted` object, the first one not already marked;
- a value inside an element (`line_items[1].quantity`): among the prediction elements whose value
  at that place equals the record's `predicted`, the one most like truth element 1 (most equal
  values), and failing any, the same index;
- anything else: the same path.

Paths use the records' form: keys joined by `.`, list indexes as `[i]`. `structsim_nb.display.page` renders
documents with the same paths, so a mark lands on the line it names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

__all__ = ["as_document", "case_marks", "join_path", "parse_path", "value_at"]

_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")
#: Non-match kinds by the side they are marked on, first by the path as written.
_TRUTH_KINDS = ("missed", "wrong")
_PREDICTION_KINDS = ("invented", "wrong")
_MISSING = object()


def parse_path(path: str) -> list[str | int]:
    """`"line_items[1].sku"` -> `["line_items", 1, "sku"]`; an empty path is the root."""
    return [int(index) if index else key for index, key in _TOKEN.findall(path)]


def join_path(segments: Sequence[str | int]) -> str:
    """The inverse of `parse_path`: `["line_items", 1, "sku"]` -> `"line_items[1].sku"`."""
    text = ""
    for segment in segments:
        text += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if text else segment)
    return text


def value_at(document: Any, segments: Sequence[str | int]) -> Any:
    """The value at `segments` in a JSON-like document, or `_MISSING` when the path does not resolve."""
    value = document
    for segment in segments:
        if isinstance(segment, int):
            if not isinstance(value, list) or segment >= len(value):
                return _MISSING
            value = value[segment]
        else:
            if not isinstance(value, Mapping) or segment not in value:
                return _MISSING
            value = value[segment]
    return value


def as_document(value: Any) -> Any:
    """A case side as plain JSON values: a model dumped, JSON text parsed, anything else made JSON-able.

    Text that is not JSON stays a string (the page shows it as text); dates become ISO strings and
    non-JSON objects their `str()`, so nothing is shown as a Python repr.
    """
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return to_jsonable_python(value, fallback=str)


def _likeness(left: Any, right: Any) -> int:
    """How many top-level values two elements share (0 unless both are objects)."""
    if not isinstance(left, Mapping) or not isinstance(right, Mapping):
        return int(left == right)
    return sum(1 for key, value in left.items() if key in right and right[key] == value)


def _locate(
    record: Mapping[str, Any], segments: list[str | int], truth: Any, prediction: Any, used: set[str]
) -> str | None:
    """The prediction path a record points at, or None when it is not in the prediction."""
    placed: list[str | int] = []
    for position, segment in enumerate(segments):
        if not isinstance(segment, int):
            placed.append(segment)
            continue
        elements = value_at(prediction, placed)
        if not isinstance(elements, list):
            return None
        rest = segments[position + 1 :]
        predicted = record.get("predicted")
        if not rest:  # the whole element
            equal = [i for i, element in enumerate(elements) if element == predicted]
            free = [i for i in equal if join_path([*placed, i]) not in used]
            choice = (free or equal or [segment])[0]
        else:
            partner = value_at(truth, [*segments[:position], segment])
            fitting = [i for i, element in enumerate(elements) if value_at(element, rest) == predicted]
            choice = max(fitting, key=lambda i: (_likeness(elements[i], partner), -i)) if fitting else segment
        if choice >= len(elements):
            return None
        placed.append(choice)
    path = join_path(placed)
    return path if value_at(prediction, placed) is not _MISSING else None


def case_marks(records: Iterable[Mapping[str, Any]], truth: Any, prediction: Any) -> dict[str, dict[str, str]]:
    """The paths to highlight on each side of one case, with the kind of non-match at each.

    Args:
        records: The case's non-match records (`path`, `kind`, `expected`, `predicted`), as rows
            carry them in `metadata["non_matches"]`.
        truth: The ground truth as plain JSON values (see `as_document`).
        prediction: The prediction as plain JSON values.

    Returns:
        `{"truth": {path: kind}, "prediction": {path: kind}}`. Missed and wrong values are marked
        on the truth at the record's path; invented and wrong values on the prediction where
        `_locate` finds them (see the module docstring). A missed value is also marked on the
        prediction when the path is there (a blank), an invented one on the truth likewise, except
        for whole list elements (a missed element is not in the prediction, an invented one not in
        the truth). A path that does not resolve on a side is not marked there.
    """
    marks: dict[str, dict[str, str]] = {"truth": {}, "prediction": {}}
    for record in records:
        kind = str(record.get("kind"))
        path = str(record.get("path", ""))
        segments = parse_path(path)
        # A whole list element that was missed is not in the prediction, an invented one not in the truth.
        element = bool(segments) and isinstance(segments[-1], int)
        on_truth = kind in _TRUTH_KINDS or (kind == "invented" and not element)
        on_prediction = kind in _PREDICTION_KINDS or (kind == "missed" and not element)
        if on_truth and value_at(truth, segments) is not _MISSING:
            marks["truth"].setdefault(path, kind)
        if on_prediction:
            located = _locate(record, segments, truth, prediction, set(marks["prediction"]))
            if located is not None:
                marks["prediction"].setdefault(located, kind)
    return marks
