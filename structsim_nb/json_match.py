"""Agenta-style JSON evaluators: exact match, contains JSON, JSON multi-field match and JSON diff.

Each is a plain function (`exact_match`, `contains_json`, `json_field_match`, `json_diff`) that
returns a `JsonMatchResult`, and a Strands Evals evaluator (`ExactMatch`, `ContainsJson`,
`JsonFieldMatch`, `JsonDiff`) whose single row carries the per-field detail on `metadata`
(`field_scores`, `non_matches`, `fields`, `counts`), so `StructuredOutputReport.cases_frame()`
and `non_matches_frame()` show these rows beside the field-level evaluator's.

The meaning follows Agenta's evaluators (`agenta:builtin:auto_exact_match`, `auto_contains_json`,
`json_multi_field_match`, `auto_json_diff`); where Agenta scores something the user did not mean
(a field absent on both sides scoring 1.0, case-insensitive keys that never match, null never
equal to null, an exception on non-JSON output) these do what was meant and the row's reason
says so. The README section "JSON match evaluators (Agenta-compatible)" lists every difference.

Values are compared by one rule (`same_value`): numbers by value (`1 == 1.0`), booleans only
with booleans (`True != 1`), NaN equal to NaN, strings exactly, lists by position, objects by
key set and value. Text output is read through `structsim_nb.answers.parse_answer`; a ground
truth given as a string is decoded with `json.loads` (it is data, not an answer).

Examples:
    >>> gt = {"name": "John Doe", "email": "john@example.com", "address": {"city": "New York", "zip": "10001"}}
    >>> out = {"name": "John Doe", "email": "jane@example.com", "address": {"city": "New York", "zip": "10002"}}
    >>> result = json_field_match(out, gt, fields=["name", "email", "address.city", "address.zip"])
    >>> result.field_scores, result.score
    ({'name': 1.0, 'email': 0.0, 'address.city': 1.0, 'address.zip': 0.0}, 0.5)
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from jsonpath_ng.exceptions import JsonPathParserError
from jsonpath_ng.ext import parse as _parse_jsonpath
from pydantic import BaseModel
from strands.agent.agent_result import AgentResult
from strands_evals.evaluators import Evaluator
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationData, EvaluationOutput

from .answers import parse_answer
from .errors import FieldPathError, GroundTruthError

logger = logging.getLogger(__name__)

__all__ = [
    "ContainsJson",
    "ExactMatch",
    "FieldPath",
    "FieldResult",
    "JsonDiff",
    "JsonFieldMatch",
    "JsonMatchResult",
    "contains_json",
    "exact_match",
    "json_diff",
    "json_field_match",
    "parse_field_path",
    "same_value",
]

#: Prefix of `metadata["evaluated_by"]` on every row these evaluators write.
EVALUATED_BY_PREFIX = "json_match:"

#: Field status -> (confusion-matrix category, non-match kind or None when it is not a non-match).
_STATUS = {
    "match": ("tp", None),
    "missed": ("fn", "missed"),
    "invented": ("fa", "invented"),
    "wrong": ("fd", "wrong"),
    "absent": ("tn", None),
}

BothAbsent = Literal["skip", "match", "miss"]


# -- results --------------------------------------------------------------------------------


@dataclass(frozen=True)
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
    """

    path: str
    status: str
    score: float | None
    expected: Any = None
    predicted: Any = None
    reason: str = ""


@dataclass(frozen=True)
class JsonMatchResult:
    """The outcome of one JSON evaluator on one pair.

    Attributes:
        kind: `exact_match`, `contains_json`, `json_field_match` or `json_diff`.
        score: In [0, 1]: 1/0 for exact match and contains JSON, the share of scored fields
            that matched for multi-field match and diff.
        passed: The pass decision (see each function for its rule).
        reason: One line naming what failed, plus every note on where this differs from Agenta.
        fields: Per-field detail, in path order.
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
    fields: tuple[FieldResult, ...] = ()
    field_scores: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    error: str | None = None

    @property
    def counts(self) -> dict[str, int]:
        """`tp`/`fn`/`fa`/`fd`/`tn` over `fields`, as stickler counts them (tn: absent on both sides)."""
        counts = dict.fromkeys(("tp", "fn", "fa", "fd", "tn"), 0)
        for item in self.fields:
            counts[_STATUS[item.status][0]] += 1
        return counts

    def non_matches(self) -> list[dict[str, Any]]:
        """The missed, invented and wrong fields as `StructuredOutputReport.non_matches_frame` records.

        Returns:
            `{path, kind, category, expected, predicted, similarity, reason}` per field, where
            `similarity` is 0.0 for a wrong value and None for a missed or invented one.
        """
        records = []
        for item in self.fields:
            category, kind = _STATUS[item.status]
            if kind is None:
                continue
            records.append(
                {
                    "path": item.path,
                    "kind": kind,
                    "category": category,
                    "expected": item.expected,
                    "predicted": item.predicted,
                    "similarity": 0.0 if kind == "wrong" else None,
                    "reason": item.reason,
                }
            )
        return records

    def to_metadata(self) -> dict[str, Any]:
        """The row metadata these evaluators write; plain JSON, so a report holding it saves."""
        counts = self.counts
        tp, fp, fn = counts["tp"], counts["fa"] + counts["fd"], counts["fn"]
        metadata: dict[str, Any] = {
            "evaluated_by": EVALUATED_BY_PREFIX + self.kind,
            "field_scores": dict(self.field_scores),
            "non_matches": self.non_matches(),
            "fields": [
                {
                    "path": f.path,
                    "status": f.status,
                    "score": f.score,
                    "expected": f.expected,
                    "predicted": f.predicted,
                    "reason": f.reason,
                }
                for f in self.fields
            ],
            "counts": counts,
            # Undefined ratios are None (NaN in the frames), never a silent 0.0.
            "precision": tp / (tp + fp) if tp + fp else None,
            "recall": tp / (tp + fn) if tp + fn else None,
            "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None,
            "notes": list(self.notes),
        }
        if self.error is not None:
            metadata["error"] = self.error
        return _json_safe(metadata)


def _json_safe(value: Any) -> Any:
    """`value` with non-finite floats turned into strings, so pydantic can write it as JSON."""
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


# -- values ---------------------------------------------------------------------------------


def same_value(expected: Any, predicted: Any, *, ignore_case: bool = False, strip: bool = False) -> bool:
    """Whether two JSON values are the same value, by the one rule every evaluator here uses.

    Args:
        expected: A JSON value (dict, list, str, int, float, bool or None).
        predicted: Another.
        ignore_case: Compare strings case-insensitively (`str.casefold`), at any depth. Default False.
        strip: Ignore leading and trailing whitespace of strings, at any depth. Default False.

    Returns:
        True when equal. Numbers compare by value (`1 == 1.0`) and NaN equals NaN; a boolean
        equals only a boolean (`True != 1`); lists compare by position; objects by key set
        and values; `None` equals only `None`. Keys are always compared exactly.

    Examples:
        >>> same_value({"a": 1}, {"a": 1.0}), same_value(True, 1)
        (True, False)
        >>> same_value(" Paris", "paris", ignore_case=True, strip=True)
        True
    """
    if isinstance(expected, bool) or isinstance(predicted, bool):
        return isinstance(expected, bool) and isinstance(predicted, bool) and expected == predicted
    if isinstance(expected, (int, float)) and isinstance(predicted, (int, float)):
        both_nan = isinstance(expected, float) and isinstance(predicted, float)
        return expected == predicted or (both_nan and math.isnan(expected) and math.isnan(predicted))
    if isinstance(expected, str) and isinstance(predicted, str):
        if strip:
            expected, predicted = expected.strip(), predicted.strip()
        if ignore_case:
            expected, predicted = expected.casefold(), predicted.casefold()
        return expected == predicted
    if isinstance(expected, list) and isinstance(predicted, list):
        return len(expected) == len(predicted) and all(
            same_value(a, b, ignore_case=ignore_case, strip=strip) for a, b in zip(expected, predicted, strict=True)
        )
    if isinstance(expected, dict) and isinstance(predicted, dict):
        return expected.keys() == predicted.keys() and all(
            same_value(expected[k], predicted[k], ignore_case=ignore_case, strip=strip) for k in expected
        )
    if expected is None or predicted is None:
        return expected is None and predicted is None
    return False


def _json_type(value: Any) -> str:
    """The JSON type name: null, boolean, number, string, array or object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _as_json(value: Any) -> tuple[bool, Any]:
    """`(True, json_value)` for JSON data (tuples become lists), `(False, None)` for anything else."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return True, value
    if isinstance(value, (list, tuple)):
        items = [_as_json(item) for item in value]
        return all(ok for ok, _ in items), [item for _, item in items]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            return False, None
        items_by_key = {key: _as_json(item) for key, item in value.items()}
        return all(ok for ok, _ in items_by_key.values()), {k: v for k, (_, v) in items_by_key.items()}
    return False, None


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class _Read:
    """A side read as JSON: `ok`, the value, how it was read, and the message when it was not."""

    ok: bool
    value: Any = None
    how: str = "value"
    message: str = ""
    syntax: str | None = "json"


def _read_output(actual: Any) -> _Read:
    """The agent output as JSON data: models are dumped, text goes through `parse_answer`."""
    if isinstance(actual, AgentResult):
        actual = actual.structured_output if actual.structured_output is not None else str(actual)
    if isinstance(actual, BaseModel):
        return _Read(True, actual.model_dump(mode="json"), "model")
    if isinstance(actual, str):
        return _read_text(actual)
    ok, value = _as_json(actual)
    if not ok:
        return _Read(False, message=f"output of type {type(actual).__name__} is not JSON data")
    return _Read(True, value)


def _read_text(text: str) -> _Read:
    """Text output through the project's one text-to-structure parser, `answers.parse_answer`.

    `how` is the parser's form (`json`, `python_literal`, `fenced`, `prefixed`, `embedded`,
    `count`); `syntax` says whether the value was JSON, a Python literal or a number.
    """
    parsed = parse_answer(text)
    if not parsed.found:
        return _Read(False, how="none", message=f"output is not JSON: {parsed.message}")
    ok, value = _as_json(parsed.value)
    if not ok:  # pragma: no cover - parse_answer returns plain JSON types
        return _Read(False, how=parsed.form, message=f"output read as {parsed.form} is not JSON data")
    return _Read(True, value, parsed.form, parsed.message, parsed.syntax)


def _read_expected(expected: Any, *, text_ok: bool = False) -> Any:
    """The ground truth as JSON data; a string is JSON text unless `text_ok` (exact match of text).

    Raises:
        GroundTruthError: If the ground truth is not JSON data or JSON text.
    """
    if isinstance(expected, BaseModel):
        return expected.model_dump(mode="json")
    if isinstance(expected, str):
        if text_ok:
            return expected
        try:
            return json.loads(expected)
        except json.JSONDecodeError as exc:
            raise GroundTruthError(
                f"expected must be JSON data or JSON text; got the string {_short(expected)}, which is not JSON "
                f"({exc.msg} at line {exc.lineno}, column {exc.colno}). Store the ground truth as a dict, a list "
                "or JSON text"
            ) from None
    ok, value = _as_json(expected)
    if not ok:
        raise GroundTruthError(
            f"expected must be JSON data (dict, list, str, number, bool or None); got {type(expected).__name__}. "
            "Convert it to plain JSON types first"
        )
    return value


# -- paths ----------------------------------------------------------------------------------

_INDEX = re.compile(r"-?(0|[1-9][0-9]*)")
_POINTER_INDEX = re.compile(r"0|[1-9][0-9]*")
_PLAIN_KEY = re.compile(r"[^.\[\]\"'\s](?:[^.\[\]\"']*[^.\[\]\"'\s])?")


@dataclass(frozen=True)
class FieldPath:
    """A parsed field path, ready to resolve.

    Attributes:
        text: The path as written.
        syntax: `dot` (`address.city`, `items[0].name`, `items.-1`, `["a.b"]`), `jsonpath`
            (`$.items[0].name`, `$..city`) or `pointer` (RFC 6901, `/items/0/name`).
        steps: For `dot` and `pointer`: `("key", name)`, `("index", i)` or `("either", token)`
            (a dot segment: a key on an object, an index on a list).
    """

    text: str
    syntax: Literal["dot", "jsonpath", "pointer"]
    steps: tuple[tuple[str, Any], ...] = ()
    compiled: Any = field(default=None, compare=False, repr=False)


def parse_field_path(text: str) -> FieldPath:
    """Parse one field path; the syntax is chosen by the first character, as Agenta does.

    Args:
        text: `$...` is JSON Path (jsonpath-ng's extended grammar: wildcards, `..`, filters,
            negative indices). `/...` is a JSON Pointer (RFC 6901: `~1` is `/`, `~0` is `~`).
            Anything else is dot notation: segments separated by `.`; a segment that is an
            integer indexes a list (a key on an object); `[i]` indexes a list (negative counts
            from the end); `["key"]` or `['key']` is a literal key, for keys holding dots,
            brackets, quotes or edge spaces.

    Returns:
        The parsed `FieldPath`.

    Raises:
        FieldPathError: If the path is empty, not a string, has leading or trailing whitespace,
            an empty dot segment (`a..b`, `.a`, `a.`), an unclosed bracket or quote, an invalid
            JSON Path, or a `~` escape other than `~0`/`~1` in a pointer. The message names the path.

    Examples:
        >>> parse_field_path('items[0]["a.b"]').steps
        (('either', 'items'), ('index', 0), ('key', 'a.b'))
    """
    if not isinstance(text, str):
        raise FieldPathError(f"field path must be a string; got {text!r}. Write paths like 'address.city'")
    if not text:
        raise FieldPathError("field path must not be empty; got ''. Name a field, e.g. 'name' or '$.name'")
    if text != text.strip():
        raise FieldPathError(
            f"field path must not start or end with whitespace; got {text!r}. Remove it, or quote a key "
            "that really has edge spaces: '[\" name\"]'"
        )
    if text.startswith("$"):
        if not (len(text) == 1 or text[1] in ".["):
            raise FieldPathError(f"JSON Path must be '$', '$.…' or '$[…]'; got {text!r}. Did you mean '$.{text[1:]}'?")
        try:
            compiled = _parse_jsonpath(text)
        except (JsonPathParserError, Exception) as exc:  # jsonpath-ng raises several types
            raise FieldPathError(f"JSON Path {text!r} does not parse: {exc}. Check it against RFC 9535") from None
        return FieldPath(text, "jsonpath", compiled=compiled)
    if text.startswith("/"):
        steps = []
        for token in text[1:].split("/"):
            if re.search(r"~(?![01])", token):
                raise FieldPathError(
                    f"JSON Pointer {text!r} has an invalid escape in {token!r}; only '~0' (~) and '~1' (/) are allowed"
                )
            steps.append(("pointer", token.replace("~1", "/").replace("~0", "~")))
        return FieldPath(text, "pointer", tuple(steps))
    return FieldPath(text, "dot", _dot_steps(text))


def _dot_steps(text: str) -> tuple[tuple[str, Any], ...]:
    steps: list[tuple[str, Any]] = []
    i, n = 0, len(text)
    need_segment = True  # at the start or right after a dot
    while i < n:
        char = text[i]
        if char == "[":
            close = _bracket_end(text, i)
            inner = text[i + 1 : close]
            if inner[:1] in ("'", '"'):
                steps.append(("key", _quoted(text, inner)))
            elif _INDEX.fullmatch(inner):
                steps.append(("index", int(inner)))
            else:
                raise FieldPathError(
                    f"field path {text!r} has {text[i : close + 1]!r}; brackets hold an integer index ([0], [-1]) "
                    'or a quoted key (["a.b"])'
                )
            i, need_segment = close + 1, False
        elif char == ".":
            if need_segment:
                raise FieldPathError(f"field path {text!r} has an empty segment; write 'a.b', not 'a..b', '.a' or 'a.'")
            i, need_segment = i + 1, True
        else:
            if not need_segment:
                raise FieldPathError(f"field path {text!r} needs a '.' before {text[i:]!r}")
            end = i
            while end < n and text[end] not in ".[":
                end += 1
            segment = text[i:end]
            if not _PLAIN_KEY.fullmatch(segment):
                raise FieldPathError(
                    f"field path {text!r} has the segment {segment!r}; quote keys with edge spaces or quotes: "
                    f"'[{json.dumps(segment)}]'"
                )
            steps.append(("either", segment))
            i, need_segment = end, False
    if need_segment:
        raise FieldPathError(f"field path {text!r} ends with '.'; remove it or name the field after it")
    return tuple(steps)


def _bracket_end(text: str, start: int) -> int:
    quote = text[start + 1] if start + 1 < len(text) and text[start + 1] in ("'", '"') else None
    i = start + 2 if quote else start + 1
    while i < len(text):
        if quote and text[i] == "\\":
            i += 2
            continue
        if quote and text[i] == quote:
            quote = None
        elif not quote and text[i] == "]":
            return i
        i += 1
    raise FieldPathError(f"field path {text!r} has an unclosed '[' or quote at position {start}")


def _quoted(text: str, inner: str) -> str:
    if len(inner) < 2 or inner[-1] != inner[0]:
        raise FieldPathError(f"field path {text!r} has a quoted key that does not end with its quote: [{inner}]")
    if inner[0] == '"':
        try:
            return str(json.loads(inner))
        except json.JSONDecodeError:
            raise FieldPathError(f"field path {text!r} has a bad double-quoted key [{inner}]") from None
    return inner[1:-1].replace("\\'", "'").replace("\\\\", "\\")


def _resolve(path: FieldPath, data: Any) -> tuple[bool, Any, str]:
    """`(found, value, why_not)`; `why_not` says which step failed and why."""
    if path.syntax == "jsonpath":
        values = [match.value for match in path.compiled.find(data)]
        if not values:
            return False, None, "the JSON Path matches nothing"
        return True, values[0] if len(values) == 1 else values, ""
    current = data
    for depth, (kind, token) in enumerate(path.steps):
        where = f"step {depth + 1} ({token!r})"
        if isinstance(current, dict) and kind in ("key", "either", "pointer"):
            if token not in current:
                return False, None, f"{where}: no key {token!r}"
            current = current[token]
        elif isinstance(current, list) and kind in ("index", "either", "pointer"):
            if kind == "index":
                index = token
            elif kind == "pointer" and not _POINTER_INDEX.fullmatch(token):
                return False, None, f"{where}: a JSON Pointer list index is a non-negative integer (RFC 6901)"
            elif kind == "either" and not _INDEX.fullmatch(token):
                return False, None, f"{where}: {token!r} is not a list index"
            else:
                index = int(token)
            if not -len(current) <= index < len(current):
                return False, None, f"{where}: index {index} is out of range (the list has {len(current)} items)"
            current = current[index]
        else:
            return (
                False,
                None,
                f"{where}: expects {'a list' if kind == 'index' else 'an object'}, found {_json_type(current)}",
            )
    return True, current, ""


def _parse_fields(fields: Sequence[str | FieldPath]) -> tuple[FieldPath, ...]:
    if isinstance(fields, (str, FieldPath)) or not isinstance(fields, Iterable):
        raise FieldPathError(f"fields must be a list of paths; got {fields!r}. Write fields=['name', 'address.city']")
    parsed = tuple(item if isinstance(item, FieldPath) else parse_field_path(item) for item in fields)
    if not parsed:
        raise FieldPathError("fields must name at least one path; got an empty list")
    seen: set[str] = set()
    for item in parsed:
        if item.text in seen:
            raise FieldPathError(f"fields must not repeat a path; {item.text!r} is listed twice. Remove one")
        seen.add(item.text)
    return parsed


# -- flattening (diff and exact match) ------------------------------------------------------

Steps = tuple[Any, ...]


def render_path(steps: Steps) -> str:
    """A flattened leaf's path in dot notation that `parse_field_path` reads back to the same leaf.

    Examples:
        >>> render_path(("address", "zip")), render_path(("items", 0, "a.b")), render_path(())
        ('address.zip', 'items[0]["a.b"]', '$')
    """
    if not steps:
        return "$"
    parts: list[str] = []
    for step in steps:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif _PLAIN_KEY.fullmatch(step):
            parts.append(("." if parts else "") + step)
        else:
            parts.append(f"[{json.dumps(step, ensure_ascii=False)}]")
    return "".join(parts)


def _flatten(value: Any, prefix: Steps = ()) -> dict[Steps, Any]:
    """Leaves by path; an empty object or array is a leaf, so it is compared, not dropped."""
    if isinstance(value, dict) and value:
        pairs: Iterable[tuple[Any, Any]] = value.items()
    elif isinstance(value, list) and value:
        pairs = enumerate(value)
    else:
        return {prefix: value}
    flat: dict[Steps, Any] = {}
    for step, item in pairs:
        flat.update(_flatten(item, (*prefix, step)))
    return flat


def _fold(flat: dict[Steps, Any]) -> tuple[dict[Steps, Any], dict[Steps, Steps], dict[Steps, list[Steps]]]:
    """Keys case-folded: `(folded leaves, folded -> original path, collisions folded -> originals)`."""
    folded: dict[Steps, Any] = {}
    original: dict[Steps, Steps] = {}
    collisions: dict[Steps, list[Steps]] = {}
    for steps, value in flat.items():
        key = tuple(step.casefold() if isinstance(step, str) else step for step in steps)
        if key in folded:
            collisions.setdefault(key, [original[key]]).append(steps)
        folded[key], original[key] = value, steps
    return folded, original, collisions


def _prefixes(keys: Iterable[Steps]) -> set[Steps]:
    return {key[:cut] for key in keys for cut in range(len(key))}


def _diff_fields(
    gt: dict[Steps, Any],
    out: dict[Steps, Any],
    *,
    agree: Any,
    extras: bool,
    names: Mapping[Steps, Steps] | None = None,
    ambiguous: Mapping[Steps, list[Steps]] | None = None,
    skip_nulls: bool = False,
) -> list[tuple[Steps, FieldResult]]:
    """Compare flattened leaves: every ground-truth leaf, plus the output's extra leaves when `extras`."""
    names = names or {}
    ambiguous = ambiguous or {}
    out_parents, gt_parents = _prefixes(out), _prefixes(gt)
    results: list[tuple[Steps, FieldResult]] = []
    for key, expected in gt.items():
        path = render_path(names.get(key, key))
        if skip_nulls and expected is None:
            continue
        if key in out:
            predicted = out[key]
            if key in ambiguous:
                shown = ", ".join(render_path(steps) for steps in ambiguous[key])
                results.append(
                    (
                        key,
                        FieldResult(
                            path, "wrong", 0.0, expected, predicted, f"output has keys {shown} that differ only in case"
                        ),
                    )
                )
            elif agree(expected, predicted):
                results.append((key, FieldResult(path, "match", 1.0, expected, predicted, "equal")))
            else:
                results.append(
                    (
                        key,
                        FieldResult(
                            path,
                            "wrong",
                            0.0,
                            expected,
                            predicted,
                            f"expected {_short(expected)}, got {_short(predicted)}",
                        ),
                    )
                )
            continue
        shallower = next((key[:cut] for cut in range(len(key) - 1, -1, -1) if key[:cut] in out), None)
        if shallower is not None:
            found = out[shallower]
            reason = f"output has {_json_type(found)} {_short(found)} at {render_path(shallower)}"
            results.append((key, FieldResult(path, "wrong", 0.0, expected, found, reason)))
        elif key in out_parents:
            deeper = {render_path(steps[len(key) :]): value for steps, value in out.items() if steps[: len(key)] == key}
            results.append(
                (
                    key,
                    FieldResult(
                        path, "wrong", 0.0, expected, deeper, f"expected {_short(expected)}, got a non-empty container"
                    ),
                )
            )
        else:
            results.append((key, FieldResult(path, "missed", 0.0, expected, None, "missing from the output")))
    if extras:
        for key, predicted in out.items():
            if key in gt or key in gt_parents or any(key[:cut] in gt for cut in range(len(key))):
                continue
            if skip_nulls and predicted is None:
                continue
            path = render_path(names.get(key, key))
            results.append((key, FieldResult(path, "invented", 0.0, None, predicted, "not in the ground truth")))
    return results


def _python_eq_differs(pairs: Iterable[FieldResult]) -> list[str]:
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


def _join(head: str, notes: Sequence[str]) -> str:
    return head if not notes else head + "; " + "; ".join(notes)


def _threshold(value: float | int | None, default: float, name: str = "threshold") -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be a number between 0 and 1 (0 and 1 included); got {value!r}")
    return float(value)


# -- the four scorers -----------------------------------------------------------------------


def _agenta_exact(actual: Any, expected: Any) -> bool:
    """Agenta's `auto_exact_match_v0`: equal str, or dicts with equal `json.dumps(sort_keys=True)`."""
    if isinstance(actual, str) and isinstance(expected, str):
        return actual == expected
    if isinstance(actual, dict) and isinstance(expected, dict):
        dump = json.dumps(actual, sort_keys=True, default=repr) == json.dumps(expected, sort_keys=True, default=repr)
        return dump
    return False


def exact_match(actual: Any, expected: Any, *, ignore_case: bool = False, strip: bool = False) -> JsonMatchResult:
    """Whether the output is exactly the expected value (Agenta's Exact Match), compared as values.

    Args:
        actual: The agent output: text, JSON data, a Pydantic model or an `AgentResult`.
        expected: The ground truth: text or JSON data.
        ignore_case: Compare strings case-insensitively, at any depth. Default False.
        strip: Ignore leading and trailing whitespace of strings, at any depth. Default False.

    Returns:
        Score 1.0 and passed when equal, else 0.0. Two strings compare as text. When one side
        is text and the other structured, the text is read as JSON (the output through
        `parse_answer`, the ground truth through `json.loads`) and the values compared. Values
        compare by `same_value` (`{"a": 1}` equals `{"a": 1.0}`; equal lists and numbers are
        equal). For two containers, `fields` lists every differing leaf.

    Notes:
        Agenta scores False for a dict against JSON text, for any list or number, and for
        `1` against `1.0` inside a dict; the reason says when that differs from this result.
    """
    notes: list[str] = []
    gt, how, error = expected, "", None
    if isinstance(expected, BaseModel):
        gt = expected.model_dump(mode="json")
    if isinstance(actual, str) and isinstance(gt, str):
        out: Any = actual
    else:
        if isinstance(gt, str):
            try:
                gt = json.loads(gt)
                how = "expected read as JSON text"
            except json.JSONDecodeError:
                pass
        else:
            gt = _read_expected(gt)
        read = _read_output(actual)
        if not read.ok and isinstance(gt, str):
            read = _Read(True, actual if isinstance(actual, str) else str(actual), "text")
        if not read.ok:
            reason = _join(f"not equal: {read.message}", [])
            return JsonMatchResult("exact_match", 0.0, False, reason, error="unreadable")
        out = read.value
        if read.how not in ("value", "model", "text", "json"):
            how = f"output read as {read.how}"
    equal = same_value(gt, out, ignore_case=ignore_case, strip=strip)
    fields: list[FieldResult] = []
    if isinstance(gt, (dict, list)) and isinstance(out, (dict, list)):

        def agree(e: Any, p: Any) -> bool:
            return same_value(e, p, ignore_case=ignore_case, strip=strip)

        fields = [item for _, item in _diff_fields(_flatten(gt), _flatten(out), agree=agree, extras=True)]
    elif not equal:
        fields = [FieldResult("$", "wrong", 0.0, gt, out, f"expected {_short(gt)}, got {_short(out)}")]
    agenta = _agenta_exact(actual, expected)
    if agenta != equal and not (ignore_case or strip):
        if isinstance(actual, str) != isinstance(expected, str):
            notes.append(
                f"text and structured value compared as JSON (Agenta scores {agenta}: it never parses strings)"
            )
        elif isinstance(gt, dict):
            notes.append(f"numbers compared by value, not serialised text (Agenta scores {agenta})")
        else:
            notes.append(
                f"{_json_type(gt)} values compared by value (Agenta scores {agenta} unless both are str or dict)"
            )
    wrong = [item.path for item in fields if item.status != "match"]
    head = "equal" if equal else "not equal" + (f": {', '.join(wrong[:5])}" if wrong else "")
    if how:
        head += f" ({how})"
    return JsonMatchResult(
        "exact_match", float(equal), equal, _join(head, notes), tuple(fields), {}, tuple(notes), error
    )


def _agenta_contains(text: str) -> bool:
    """Agenta's `auto_contains_json_v0` on text: parse the first-`{`-to-last-`}` span."""
    try:
        json.loads(text[text.index("{") : text.rindex("}") + 1])
    except ValueError:
        return False
    return True


def contains_json(actual: Any) -> JsonMatchResult:
    """Whether the output holds a JSON object or array (Agenta's Contains JSON).

    Args:
        actual: The agent output. Text is read by `parse_answer` (fenced blocks, prefixes,
            prose around a structure: it finds complete candidates, objects and arrays, and
            prefers the final one). Structured output (dict, list, model) is checked like any
            value: it passes only if it is JSON data with string keys.

    Returns:
        Score 1.0 and passed when an object or array was found, else 0.0 with the reason. A
        number or string on its own is not a JSON structure. Never raises on output.
    """
    notes: list[str] = []
    if isinstance(actual, str):
        read = _read_text(actual)
        structure = read.ok and isinstance(read.value, (dict, list))
        found = structure and read.syntax == "json"
        if found:
            head = f"found a JSON {_json_type(read.value)} ({read.how})"
        elif structure:
            head = f"no JSON object or array: found a Python literal ({read.how}), which is not JSON"
        elif read.ok:
            head = f"no JSON object or array: the output reads as a {_json_type(read.value)} ({read.how})"
        else:
            head = f"no JSON object or array: {read.message}"
        agenta = _agenta_contains(actual)
        if agenta != found:
            why = "it parses only the span from the first '{' to the last '}'"
            notes.append(
                f"Agenta scores {agenta} ({why}{', so it misses arrays and several objects' if found else ''})"
            )
    else:
        read = _read_output(actual)
        found = read.ok and isinstance(read.value, (dict, list))
        head = (
            f"structured output is a JSON {_json_type(read.value)}"
            if found
            else f"no JSON object or array: {read.message or 'output is a ' + _json_type(read.value)}"
        )
        if isinstance(actual, dict) and not found:
            notes.append("a dict output is checked like any value (Agenta passes every dict)")
        elif not isinstance(actual, (dict, str)):
            notes.append(
                "Agenta raises on output that is neither str nor dict"
                if not isinstance(actual, BaseModel)
                else "model output dumped to JSON first"
            )
    fields = (
        ()
        if found
        else (
            FieldResult(
                "$", "missed", 0.0, "a JSON object or array", actual if isinstance(actual, str) else None, head
            ),
        )
    )
    return JsonMatchResult("contains_json", float(found), found, _join(head, notes), fields, {}, tuple(notes))


def json_field_match(
    actual: Any,
    expected: Any,
    *,
    fields: Sequence[str | FieldPath],
    both_absent: BothAbsent = "skip",
    threshold: float | None = None,
) -> JsonMatchResult:
    """A score per configured field and their aggregate (Agenta's JSON Multi-Field Match).

    Args:
        actual: The agent output: JSON data, text (read by `parse_answer`), a model or an `AgentResult`.
        expected: The ground truth: JSON data, or JSON text.
        fields: Paths in dot notation (`address.city`, `items[0].name`, `items.0`, `["a.b"]`),
            JSON Path (`$.items[-1]`, `$..city`) or JSON Pointer (`/address/city`); see
            `parse_field_path`. A JSON Path with several matches resolves to the list of them.
        both_absent: A field that resolves on neither side: `"skip"` (default) leaves it
            out of the aggregate, `"match"` scores it 1.0 (Agenta), `"miss"` scores it 0.0.
        threshold: The aggregate at or above which the pair passes. Default None, meaning 1.0
            (every scored field matched); any number in [0, 1].

    Returns:
        `field_scores` maps each scored path to 1.0 or 0.0; `score` is their mean (0.0 when no
        field was scored). A field is `match` when both sides resolve to the same value
        (`same_value`; JSON null equals null but not a missing field), `wrong`, `missed`
        (only the ground truth has it), `invented` or `absent`. Output that is not JSON scores
        every field 0 (`error="unreadable"`) and never passes, whatever the threshold.

    Raises:
        FieldPathError: If a path does not parse, or `fields` is empty or repeats a path.
        GroundTruthError: If the ground truth is not JSON, or is a scalar (it has no fields).
        ValueError: If `threshold` or `both_absent` is out of range.
    """
    paths = _parse_fields(fields)
    bar = _threshold(threshold, 1.0)
    if both_absent not in ("skip", "match", "miss"):
        raise ValueError(f"both_absent must be 'skip', 'match' or 'miss'; got {both_absent!r}")
    gt = _read_expected(expected)
    if not isinstance(gt, (dict, list)):
        raise GroundTruthError(
            f"expected must be a JSON object or array to have fields; got the {_json_type(gt)} {_short(gt)}. "
            "Use exact_match for a single value"
        )
    read = _read_output(actual)
    notes: list[str] = []
    if read.ok and isinstance(read.value, list):
        notes.append("output is a JSON array and paths resolve into it (Agenta scores every field 0)")
    results: list[FieldResult] = []
    for path in paths:
        e_found, e_value, e_why = _resolve(path, gt)
        if read.ok:
            a_found, a_value, a_why = _resolve(path, read.value)
        else:
            a_found, a_value, a_why = False, None, read.message
        if path.syntax == "dot" and not (e_found and a_found):
            literal = [
                side
                for side, data in (("expected", gt), ("output", read.value))
                if isinstance(data, dict) and path.text in data
            ]
            if literal and "." in path.text:
                notes.append(
                    f"{path.text}: a key literally named {path.text!r} exists in {' and '.join(literal)}; dot paths "
                    f"always nest, address it as [{json.dumps(path.text)}] or /{path.text} "
                    "(Agenta reads the literal key)"
                )
        if e_found and a_found:
            equal = same_value(e_value, a_value)
            reason = "equal" if equal else f"expected {_short(e_value)}, got {_short(a_value)}"
            results.append(
                FieldResult(path.text, "match" if equal else "wrong", float(equal), e_value, a_value, reason)
            )
        elif e_found:
            results.append(FieldResult(path.text, "missed", 0.0, e_value, None, f"not in the output: {a_why}"))
            if e_value is None:
                notes.append(
                    f"{path.text}: null in the ground truth and missing from the output is a miss (Agenta scores 1.0)"
                )
        elif a_found:
            results.append(FieldResult(path.text, "invented", 0.0, None, a_value, f"not in the ground truth: {e_why}"))
            if a_value is None:
                notes.append(
                    f"{path.text}: missing from the ground truth and null in the output is a miss (Agenta scores 1.0)"
                )
        else:
            score = {"skip": None, "match": 1.0, "miss": 0.0}[both_absent]
            reason = f"absent on both sides (expected: {e_why}; output: {a_why})"
            results.append(FieldResult(path.text, "absent", score, None, None, reason))
            if both_absent != "match":
                notes.append(
                    f"{path.text}: absent on both sides, {'not scored' if score is None else 'scored 0'} "
                    "(Agenta scores 1.0)"
                )
    differs = _python_eq_differs(results)
    if differs:
        notes.append(f"{', '.join(differs)}: compared by value, so True != 1 and NaN == NaN (Agenta uses Python ==)")
    scored = {item.path: item.score for item in results if item.score is not None}
    score = sum(scored.values()) / len(scored) if scored else 0.0
    passed = read.ok and bool(scored) and score >= bar  # unreadable output never passes
    failed = [item.path for item in results if item.status in ("wrong", "missed", "invented")]
    if not read.ok:
        head = f"{read.message}; every field scores 0"
    elif not scored:
        head = "no configured field is present on either side; nothing was scored"
    else:
        head = f"{sum(scored.values()):g} of {len(scored)} fields matched (aggregate {score:.2f}, threshold {bar:.2f})"
        if failed:
            head += f"; not matched: {', '.join(failed)}"
    if read.ok and read.how not in ("value", "model", "json"):
        head += f" (output read as {read.how})"
    error = None if read.ok else "unreadable"
    return JsonMatchResult(
        "json_field_match", score, passed, _join(head, notes), tuple(results), scored, tuple(notes), error
    )


def json_diff(
    actual: Any,
    expected: Any,
    *,
    compare_schema_only: bool = False,
    case_insensitive_keys: bool = False,
    penalize_extra_keys: bool = False,
    skip_nulls: bool = False,
    threshold: float | None = None,
) -> JsonMatchResult:
    """The share of ground-truth leaves the output matches (Agenta's JSON Diff Match).

    Both sides are flattened to leaves (`address.zip`, `items[0]`); an empty object or array
    is a leaf. Each leaf of the key set scores 1 when both sides have it and agree, else 0.

    Args:
        actual: The agent output: JSON data, text (read by `parse_answer`), a model or an `AgentResult`.
        expected: The ground truth: JSON data, or JSON text.
        compare_schema_only: Agree means the same JSON type (null, boolean, number, string,
            array, object; `5` and `5.0` are both numbers), not the same value. Default False.
        case_insensitive_keys: Fold key case on both sides and in the key set. Two ground-truth
            keys that fold together are an error; two output keys that do score that leaf 0.
            Default False.
        penalize_extra_keys: The key set is the union of both sides' leaves, so a leaf only
            the output has counts as a miss (Agenta's `predict_keys=True`). Default False: the
            key set is the ground truth's leaves and extra output keys are ignored.
        skip_nulls: Leave out leaves that are null in the ground truth (and, with
            `penalize_extra_keys`, extra null leaves of the output). Default False: null
            equals null.
        threshold: The score at or above which the pair passes. Default None, meaning 0.5;
            any number in [0, 1], including 0 and the integers 0 and 1.

    Returns:
        `score` in [0, 1] (0.0 when no leaf was scored); `fields` per leaf; `field_scores`
        the mean leaf score per top-level key (`$` for a scalar ground truth). Output that is
        not JSON scores 0 with `error="unreadable"` and never passes; it does not raise.

    Raises:
        GroundTruthError: If the ground truth is not JSON, or (with `case_insensitive_keys`)
            has keys that differ only in case.
        ValueError: If `threshold` is not a number in [0, 1].
    """
    bar = _threshold(threshold, 0.5)
    gt = _read_expected(expected)
    read = _read_output(actual)
    notes: list[str] = []
    g_flat, o_flat = _flatten(gt), (_flatten(read.value) if read.ok else {})
    names: dict[Steps, Steps] = {}
    ambiguous: dict[Steps, list[Steps]] = {}
    if case_insensitive_keys:
        g_flat, names, collisions = _fold(g_flat)
        if collisions:
            shown = "; ".join(", ".join(map(render_path, group)) for group in collisions.values())
            raise GroundTruthError(
                f"expected must not have keys that differ only in case when case_insensitive_keys=True; got {shown}. "
                "Rename them, or compare keys case-sensitively"
            )
        o_flat, o_names, ambiguous = _fold(o_flat)
        originals = [*names.items(), *(o_names.items() if penalize_extra_keys else ())]
        names = {**o_names, **names}
        if any(steps != key for key, steps in originals):
            notes.append(
                "keys compared case-insensitively on both sides (Agenta never matches a key with upper-case letters)"
            )

    def agree(e: Any, p: Any) -> bool:
        return _json_type(e) == _json_type(p) if compare_schema_only else same_value(e, p)

    pairs = _diff_fields(
        g_flat,
        o_flat,
        agree=agree,
        extras=penalize_extra_keys and read.ok,
        names=names,
        ambiguous=ambiguous,
        skip_nulls=skip_nulls,
    )
    results = [item for _, item in pairs]
    by_top: dict[str, list[float]] = {}
    for key, item in pairs:
        by_top.setdefault(render_path(names.get(key, key)[:1]), []).append(float(item.score or 0.0))
    field_scores = {top: sum(scores) / len(scores) for top, scores in by_top.items()}
    matched = sum(1 for item in results if item.status == "match")
    score = matched / len(results) if results else 0.0
    passed = read.ok and bool(results) and score >= bar  # unreadable output never passes
    if not read.ok:
        notes.append("non-JSON output scores 0 (Agenta raises an error)")
    if any(item.status == "match" and item.expected is None for item in results):
        notes.append("null equals null (Agenta scores null leaves 0)")
    if any(isinstance(value, (dict, list)) for value in (*g_flat.values(), *o_flat.values())):
        notes.append("empty objects and arrays are compared as values (Agenta drops them)")
    if any(isinstance(step, str) and "." in step for key in g_flat for step in names.get(key, key)):
        notes.append("keys containing '.' stay distinct from nested paths (Agenta's flattening lets them collide)")
    if compare_schema_only and any(
        item.status == "match" and type(item.expected) is not type(item.predicted) for item in results
    ):
        notes.append("int and float are both 'number' in schema mode (Agenta compares Python types)")
    if not compare_schema_only:
        differs = _python_eq_differs(results)
        if differs:
            notes.append(
                f"{', '.join(differs[:5])}: compared by value, so True != 1 and NaN == NaN (Agenta uses Python ==)"
            )
    if bar == 0.0:
        notes.append("threshold 0 is kept (Agenta turns a falsy threshold into 0.5)")
    if not read.ok:
        head = f"{read.message}; score 0"
    elif not results:
        head = "no leaf to compare; nothing was scored"
    else:
        failed = [item.path for item in results if item.status != "match"]
        head = f"{matched} of {len(results)} leaves agree (score {score:.2f}, threshold {bar:.2f})"
        if failed:
            head += f"; not matched: {', '.join(failed[:8])}" + (
                f" and {len(failed) - 8} more" if len(failed) > 8 else ""
            )
    error = None if read.ok else "unreadable"
    return JsonMatchResult(
        "json_diff", score, passed, _join(head, notes), tuple(results), field_scores, tuple(notes), error
    )


# -- Strands Evals evaluators ---------------------------------------------------------------


class _JsonMatchEvaluator(Evaluator[Any, Any]):
    """One row per case from a scorer above; the row's metadata carries the per-field detail."""

    _kind = ""
    _needs_expected = True

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def evaluate(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        """Score one case.

        Returns:
            One row: score, `test_pass` and reason from the scorer, and `metadata` from
            `JsonMatchResult.to_metadata` (`evaluated_by` is `json_match:<kind>`). With no ground
            truth (except for `ContainsJson`) the row is not applicable: score 0.0, `test_pass`
            True, label `NOT_APPLICABLE`. A ground truth that is not JSON gives a score-0 row
            with `metadata["error"] == "unreadable"` and the reason, rather than an exception.
        """
        expected = evaluation_case.expected_output
        if self._needs_expected and expected is None:
            return [
                EvaluationOutput(
                    score=0.0, test_pass=True, reason="no ground truth to compare with", label=NOT_APPLICABLE
                )
            ]
        try:
            result = self._score(evaluation_case.actual_output, expected)
        except GroundTruthError as exc:
            result = JsonMatchResult(self._kind, 0.0, False, f"ground truth unreadable: {exc}", error="unreadable")
        logger.debug(
            "case=<%s>, evaluator=<%s>, score=<%.4f> | scored json match",
            evaluation_case.name,
            self.get_name(),
            result.score,
        )
        return [
            EvaluationOutput(
                score=result.score, test_pass=result.passed, reason=result.reason, metadata=result.to_metadata()
            )
        ]

    async def evaluate_async(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        return self.evaluate(evaluation_case)


class ExactMatch(_JsonMatchEvaluator):
    """Strands Evals evaluator for `exact_match`.

    Args:
        ignore_case: Compare strings case-insensitively. Default False.
        strip: Ignore leading and trailing whitespace of strings. Default False.
        name: Evaluator name in the report. Default None (the class name).
    """

    _kind = "exact_match"

    def __init__(self, *, ignore_case: bool = False, strip: bool = False, name: str | None = None) -> None:
        super().__init__(name=name)
        self.ignore_case = ignore_case
        self.strip = strip

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return exact_match(actual, expected, ignore_case=self.ignore_case, strip=self.strip)


class ContainsJson(_JsonMatchEvaluator):
    """Strands Evals evaluator for `contains_json`; needs no ground truth.

    Args:
        name: Evaluator name in the report. Default None (the class name).
    """

    _kind = "contains_json"
    _needs_expected = False

    def __init__(self, *, name: str | None = None) -> None:
        super().__init__(name=name)

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return contains_json(actual)


class JsonFieldMatch(_JsonMatchEvaluator):
    """Strands Evals evaluator for `json_field_match`; the paths are parsed here, once.

    Args:
        fields: The field paths (see `parse_field_path`).
        both_absent: `"skip"` (default), `"match"` or `"miss"`; see `json_field_match`.
        threshold: Aggregate needed to pass. Default None (1.0).
        name: Evaluator name in the report. Default None (the class name).

    Raises:
        FieldPathError: If a path does not parse, or `fields` is empty or repeats a path.
        ValueError: If `threshold` or `both_absent` is out of range.
    """

    _kind = "json_field_match"

    def __init__(
        self,
        fields: Sequence[str],
        *,
        both_absent: BothAbsent = "skip",
        threshold: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self._paths = _parse_fields(fields)
        _threshold(threshold, 1.0)
        if both_absent not in ("skip", "match", "miss"):
            raise ValueError(f"both_absent must be 'skip', 'match' or 'miss'; got {both_absent!r}")
        self.fields = [path.text for path in self._paths]
        self.both_absent = both_absent
        self.threshold = threshold

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return json_field_match(
            actual, expected, fields=self._paths, both_absent=self.both_absent, threshold=self.threshold
        )


class JsonDiff(_JsonMatchEvaluator):
    """Strands Evals evaluator for `json_diff`.

    Args:
        compare_schema_only: Compare JSON types, not values. Default False.
        case_insensitive_keys: Fold key case on both sides. Default False.
        penalize_extra_keys: Count leaves only the output has as misses. Default False.
        skip_nulls: Leave out null ground-truth leaves. Default False.
        threshold: Score needed to pass. Default None (0.5).
        name: Evaluator name in the report. Default None (the class name).

    Raises:
        ValueError: If `threshold` is not a number in [0, 1].
    """

    _kind = "json_diff"

    def __init__(
        self,
        *,
        compare_schema_only: bool = False,
        case_insensitive_keys: bool = False,
        penalize_extra_keys: bool = False,
        skip_nulls: bool = False,
        threshold: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        _threshold(threshold, 0.5)
        self.compare_schema_only = compare_schema_only
        self.case_insensitive_keys = case_insensitive_keys
        self.penalize_extra_keys = penalize_extra_keys
        self.skip_nulls = skip_nulls
        self.threshold = threshold

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return json_diff(
            actual,
            expected,
            compare_schema_only=self.compare_schema_only,
            case_insensitive_keys=self.case_insensitive_keys,
            penalize_extra_keys=self.penalize_extra_keys,
            skip_nulls=self.skip_nulls,
            threshold=self.threshold,
        )


# -- `structsim-nb evaluate --scorer ...` ---------------------------------------------------
# Module-level functions with the `structsim_nb.scorers.Scorer` signature (picklable, no state);
# `scorers.py` registers them under `SCORER_NAMES`. Options arrive as plain strings, numbers and
# lists from the command line: `fields`, `threshold`, `both_absent`, `compare_schema_only`,
# `case_insensitive_keys`, `penalize_extra_keys`, `skip_nulls`, `ignore_case`, `strip`.

#: The names these scorers are registered under.
SCORER_NAMES = ("exact_match", "contains_json", "json_field_match", "json_diff")


def _gold(gold: str) -> Any:
    """A `groundtruth.txt` text: JSON, or a whole-text Python literal (`{'a': 1}`), else the text itself.

    Only a structure that is the whole text counts (`parse_answer` forms `json` and
    `python_literal`); a ground truth is never searched for an embedded structure.
    """
    try:
        return json.loads(gold)
    except json.JSONDecodeError:
        parsed = parse_answer(gold)
        return parsed.value if parsed.form in ("json", "python_literal") else gold


def _fields_option(options: Mapping[str, Any]) -> list[str]:
    fields = options.get("fields")
    if isinstance(fields, str):
        fields = [fields]
    if not fields:
        raise FieldPathError(
            "the json_field_match scorer needs field paths; got none. Pass --fields name address.city '$.items[0].sku'"
        )
    return list(fields)


def _result(kind: str, result: JsonMatchResult) -> Any:
    from .scorers import ScoreResult  # the registry imports this module; import back lazily

    return ScoreResult(kind, result.passed, result.score, result.reason, result.to_metadata())


def check_scorer_options(options: Mapping[str, Any]) -> None:
    """Validate the options shared by the four scorers once, before any pair is scored.

    Raises:
        FieldPathError: If `fields` is given and a path does not parse (or is repeated).
        ValueError: If `threshold` is not a number in [0, 1] or `both_absent` is unknown.
    """
    if options.get("fields"):
        _parse_fields(_fields_option(options))
    _threshold(options.get("threshold"), 0.5)
    if options.get("both_absent", "skip") not in ("skip", "match", "miss"):
        raise ValueError(f"both_absent must be 'skip', 'match' or 'miss'; got {options['both_absent']!r}")


def check_field_match_options(options: Mapping[str, Any]) -> None:
    """`check_scorer_options`, and `fields` is required."""
    _parse_fields(_fields_option(options))
    check_scorer_options(options)


def score_exact_match(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> Any:
    """The `exact_match` scorer: `exact_match(answer, gold)`; a JSON gold is compared as a value."""
    result = exact_match(
        answer, _gold(gold), ignore_case=bool(options.get("ignore_case")), strip=bool(options.get("strip"))
    )
    return _result("exact_match", result)


def score_contains_json(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> Any:
    """The `contains_json` scorer: `contains_json(answer)`; the ground truth is not used."""
    return _result("contains_json", contains_json(answer))


def score_json_field_match(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> Any:
    """The `json_field_match` scorer: `json_field_match(answer, gold, fields=options["fields"], ...)`.

    Raises:
        GroundTruthError: If `gold` is not a JSON object or array (the runner records an error entry).
    """
    result = json_field_match(
        answer,
        _gold(gold),
        fields=_fields_option(options),
        both_absent=options.get("both_absent", "skip"),
        threshold=options.get("threshold"),
    )
    return _result("json_field_match", result)


def score_json_diff(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> Any:
    """The `json_diff` scorer: `json_diff(answer, gold, ...)` with the options given.

    Raises:
        GroundTruthError: If `gold` is not JSON text (the runner records an error entry).
    """
    result = json_diff(
        answer,
        _gold(gold),
        compare_schema_only=bool(options.get("compare_schema_only")),
        case_insensitive_keys=bool(options.get("case_insensitive_keys")),
        penalize_extra_keys=bool(options.get("penalize_extra_keys")),
        skip_nulls=bool(options.get("skip_nulls")),
        threshold=options.get("threshold"),
    )
    return _result("json_diff", result)
