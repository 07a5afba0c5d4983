"""What the JSON evaluators return: a `JsonMatchResult` per pair, with a `FieldResult` per field.

`JsonMatchResult.to_metadata()` is the row metadata the evaluators write (`evaluated_by` is
`json_match:<kind>`), in the shape `StructuredOutputReport.cases_frame()` and
`non_matches_frame()` read beside the field-level evaluator's rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

__all__ = [
    "EVALUATED_BY_PREFIX",
    "FieldResult",
    "JsonMatchResult",
    "LeafResults",
    "LeafRow",
    "field_result",
    "json_match_result",
    "python_eq_differs",
    "with_notes",
]

#: Prefix of `metadata["evaluated_by"]` on every row these evaluators write.
EVALUATED_BY_PREFIX = "json_match:"

#: Field status -> (confusion-matrix category, non-match kind or None when it is not a non-match).
STATUS = {
    "match": ("tp", None),
    "missed": ("fn", "missed"),
    "invented": ("fa", "invented"),
    "wrong": ("fd", "wrong"),
    "absent": ("tn", None),
}


@dataclass(frozen=True, eq=False)
class FieldResult:
    """One compared field (a configured path, or a flattened leaf for diff and exact match).

    Attributes:
        path: The path as configured, or the rendered leaf path (`address.zip`, `items[0]`, `["a.b"]`).
        status: `match`, `wrong` (both present, different), `missed` (only expected has it),
            `invented` (only the output has it) or `absent` (neither side has it).
        score: 1.0 or 0.0; None when the field was not scored (absent on both sides, by default).
        expected: The ground-truth value (None when absent).
        predicted: The output's value (None when absent).
        reason: Why, in words; names the side a path did not resolve on and why.

    Two results are equal when the tuples of their fields are (as dataclasses compared them before Python
    3.13, which compares field by field): a value is equal to itself, so two results holding the one NaN
    read from the output are equal on every Python.
    """

    path: str
    status: str
    score: float | None
    expected: Any = None
    predicted: Any = None
    reason: str = ""

    def _key(self) -> tuple[Any, ...]:
        return (self.path, self.status, self.score, self.expected, self.predicted, self.reason)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._key())


def field_result(
    path: str, status: str, score: float | None, expected: Any, predicted: Any, reason: str
) -> FieldResult:
    """`FieldResult(path, status, score, expected, predicted, reason)`, built without the frozen `__init__`.

    A frozen dataclass sets each field through `object.__setattr__`, which is most of the cost
    of a leaf in a 1,000-leaf diff; this fills the instance's `__dict__` directly. The object
    is the same in every respect (fields, equality, hash, repr, immutability afterwards).
    """
    item = object.__new__(FieldResult)
    item.__dict__.update(path=path, status=status, score=score, expected=expected, predicted=predicted, reason=reason)
    return item


#: One compared leaf, as the leaf comparison records it: `(leaf steps, status, expected, predicted, reason)`.
LeafRow = tuple[Any, str, Any, Any, str]


class LeafResults(Sequence[FieldResult]):
    """The per-leaf results of JSON diff and exact match, recorded as rows: the `FieldResult`s are built on first use.

    What `JsonMatchResult` stores for `fields` until they are read (`result.fields` is then the
    tuple this builds).

    A 1,000-leaf comparison records one small tuple per leaf (`LeafRow`); the `FieldResult`
    objects (and their rendered paths) are made the first time the sequence is read, once.
    It behaves as the tuple it builds: indexing, slicing (a tuple), iteration, `len`, `==`
    with a tuple or another `LeafResults`, `hash`, `repr`, and pickling (as that tuple).

    Args:
        rows: One `LeafRow` per leaf, in order; a leaf's score is 1.0 when its status is
            `match`, else 0.0. Or a function returning them, called once, when first needed;
            it must not depend on anything the caller can still change.
        render: The path to show for a leaf's steps.
    """

    __slots__ = ("_items", "_make_rows", "_render", "_rows_made")

    def __init__(self, rows: Sequence[LeafRow] | Callable[[], Sequence[LeafRow]], render: Callable[[Any], str]) -> None:
        self._rows_made: Sequence[LeafRow] | None = None if callable(rows) else rows
        self._make_rows = rows if callable(rows) else None
        self._render = render
        self._items: tuple[FieldResult, ...] | None = None

    @property
    def _rows(self) -> Sequence[LeafRow]:
        rows = self._rows_made
        if rows is None:
            assert self._make_rows is not None
            rows = self._rows_made = self._make_rows()
            self._make_rows = None
        return rows

    def _built(self) -> tuple[FieldResult, ...]:
        items = self._items
        if items is None:
            render, make = self._render, field_result
            items = self._items = tuple(
                make(render(key), status, 1.0 if status == "match" else 0.0, expected, predicted, reason)
                for key, status, expected, predicted, reason in self._rows
            )
        return items

    def records(self) -> Iterator[tuple[str, str, float, Any, Any, str]]:
        """`(path, status, score, expected, predicted, reason)` per leaf, without building `FieldResult`s."""
        if self._items is not None:
            for item in self._items:
                yield item.path, item.status, item.score, item.expected, item.predicted, item.reason  # type: ignore[misc]
            return
        render = self._render
        for key, status, expected, predicted, reason in self._rows:
            yield render(key), status, 1.0 if status == "match" else 0.0, expected, predicted, reason

    def statuses(self) -> Iterator[str]:
        """Each leaf's status, in order, without building `FieldResult`s."""
        return (row[1] for row in self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> FieldResult: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[FieldResult, ...]: ...

    def __getitem__(self, index: int | slice) -> FieldResult | tuple[FieldResult, ...]:
        return self._built()[index]

    def __iter__(self) -> Iterator[FieldResult]:
        return iter(self._built())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LeafResults):
            return self._built() == other._built()
        if isinstance(other, tuple):
            return self._built() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._built())

    def __repr__(self) -> str:
        return repr(self._built())

    def __reduce__(self) -> tuple[Any, ...]:
        return tuple, (self._built(),)


class _Fields:
    """`JsonMatchResult.fields`: always a tuple of `FieldResult`, made from `LeafResults` when first read.

    A data descriptor, so the dataclass's `__init__` stores what it is given (a tuple, or the
    `LeafResults` of diff and exact match) and every read (`result.fields`, `==`, `repr`,
    `dataclasses.asdict`, `replace`) sees the tuple. `counts`, `non_matches()` and
    `to_metadata()` read the stored rows without building the tuple.
    """

    def __get__(self, obj: Any, objtype: Any = None) -> tuple[FieldResult, ...]:
        if obj is None:
            return ()  # the field's default
        stored = obj.__dict__.get("_fields", ())
        if isinstance(stored, LeafResults):
            stored = obj.__dict__["_fields"] = stored._built()
        return stored  # type: ignore[no-any-return]

    def __set__(self, obj: Any, value: Sequence[FieldResult]) -> None:
        obj.__dict__["_fields"] = value if isinstance(value, (LeafResults, tuple)) else tuple(value)


@dataclass(frozen=True)
class JsonMatchResult:
    """The outcome of one JSON evaluator on one pair.

    Attributes:
        kind: `exact_match`, `contains_json`, `json_field_match` or `json_diff`.
        score: In [0, 1]: 1/0 for exact match and contains JSON, the share of scored fields
            that matched for multi-field match and diff.
        passed: The pass decision (see each function for its rule).
        reason: One line naming what failed, plus every note on where this differs from Agenta.
        fields: Per-field detail, in path order (a tuple; JSON diff and exact match build it
            the first time it is read, from the rows they recorded).
        field_scores: Score per configured path (multi-field), or the mean leaf score per
            top-level key (diff); fields that were not scored are left out.
        notes: The differences from Agenta that applied to this pair (also in `reason`).
        error: `"unreadable"` when the output (or, in an evaluator row, the ground truth) could
            not be read as JSON; None otherwise.
    """

    kind: str
    score: float
    passed: bool
    reason: str
    fields: _Fields = _Fields()
    field_scores: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    error: str | None = None

    @property
    def counts(self) -> dict[str, int]:
        """`tp`/`fn`/`fa`/`fd`/`tn` over `fields`, as stickler counts them (tn: absent on both sides)."""
        counts = dict.fromkeys(("tp", "fn", "fa", "fd", "tn"), 0)
        stored = self.__dict__["_fields"]
        statuses = stored.statuses() if isinstance(stored, LeafResults) else (f.status for f in stored)
        for status in statuses:
            counts[STATUS[status][0]] += 1
        return counts

    def _records(self) -> Iterable[tuple[str, str, float | None, Any, Any, str]]:
        stored = self.__dict__["_fields"]
        if isinstance(stored, LeafResults):
            return stored.records()
        return ((f.path, f.status, f.score, f.expected, f.predicted, f.reason) for f in stored)

    def non_matches(self) -> list[dict[str, Any]]:
        """The missed, invented and wrong fields as `StructuredOutputReport.non_matches_frame` records.

        Returns:
            `{path, kind, category, expected, predicted, similarity, reason}` per field, where
            `similarity` is 0.0 for a wrong value and None for a missed or invented one.
        """
        return self._non_matches(self._records())

    @staticmethod
    def _non_matches(records: Iterable[tuple[str, str, float | None, Any, Any, str]]) -> list[dict[str, Any]]:
        found = []
        for path, status, _, expected, predicted, reason in records:
            category, kind = STATUS[status]
            if kind is None:
                continue
            found.append(
                {
                    "path": path,
                    "kind": kind,
                    "category": category,
                    "expected": expected,
                    "predicted": predicted,
                    "similarity": 0.0 if kind == "wrong" else None,
                    "reason": reason,
                }
            )
        return found

    def to_metadata(self) -> dict[str, Any]:
        """The row metadata these evaluators write; plain JSON, so a report holding it saves.

        Non-finite floats (which pydantic cannot write as JSON) can only come from the compared
        values, so those are the parts made safe; everything else is built as JSON already.
        """
        counts = self.counts
        tp, fp, fn = counts["tp"], counts["fa"] + counts["fd"], counts["fn"]
        safe, as_is, isfinite = _json_safe, _AS_IS, math.isfinite
        records = []
        for path, status, score, expected, predicted, reason in self._records():
            if type(expected) not in as_is and not (type(expected) is float and isfinite(expected)):
                expected = safe(expected)
            if type(predicted) not in as_is and not (type(predicted) is float and isfinite(predicted)):
                predicted = safe(predicted)
            records.append((path, status, score, expected, predicted, reason))
        fields = [
            {"path": path, "status": status, "score": score, "expected": e, "predicted": p, "reason": reason}
            for path, status, score, e, p, reason in records
        ]
        non_matches = self._non_matches(records)
        metadata: dict[str, Any] = {
            "evaluated_by": EVALUATED_BY_PREFIX + self.kind,
            "field_scores": safe(dict(self.field_scores)),
            "non_matches": non_matches,
            "fields": fields,
            "counts": counts,
            # Undefined ratios are None (NaN in the frames), never a silent 0.0.
            "precision": tp / (tp + fp) if tp + fp else None,
            "recall": tp / (tp + fn) if tp + fn else None,
            "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None,
            "notes": list(self.notes),
        }
        if self.error is not None:
            metadata["error"] = self.error
        return metadata


def json_match_result(
    kind: str,
    score: float,
    passed: bool,
    reason: str,
    fields: tuple[FieldResult, ...] | LeafResults,
    field_scores: Mapping[str, float],
    notes: tuple[str, ...] = (),
    error: str | None = None,
) -> JsonMatchResult:
    """`JsonMatchResult(...)` built without the frozen `__init__` (one `object.__setattr__` per field), as
    `field_result` builds a `FieldResult`; `fields` must be a tuple or a `LeafResults`. The same object in
    every respect."""
    result = object.__new__(JsonMatchResult)
    result.__dict__.update(
        kind=kind,
        score=score,
        passed=passed,
        reason=reason,
        _fields=fields,
        field_scores=field_scores,
        notes=notes,
        error=error,
    )
    return result


#: Types `_json_safe` returns as they are.
_AS_IS = frozenset({str, int, bool, type(None)})


def _json_safe(value: Any) -> Any:
    """`value` with non-finite floats turned into strings, so pydantic can write it as JSON."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:  # (scores, mostly: before the container checks)
        return value if math.isfinite(value) else repr(value)
    if kind is dict or isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if kind is list or isinstance(value, list):
        return [_json_safe(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


def python_eq_differs(pairs: Iterable[FieldResult]) -> list[str]:
    """Paths where Python `==` (Agenta's rule) and `same_value` disagree."""
    differs = []
    for item in pairs:
        if item.status in ("match", "wrong"):
            try:
                python_eq = bool(item.expected == item.predicted)
            except Exception:  # pragma: no cover - JSON values always compare
                python_eq = False
            if python_eq != (item.status == "match"):
                differs.append(item.path)
    return differs


def with_notes(head: str, notes: Sequence[str]) -> str:
    """A result's reason: `head`, then each note after `; ` (`head` alone when there is none)."""
    return head if not notes else head + "; " + "; ".join(notes)
