"""JSON values for the JSON evaluators: reading each side as JSON data, and the one equality rule.

`same_value` is the comparison every JSON evaluator uses: numbers by value (`1 == 1.0`),
booleans only with booleans (`True != 1`), NaN equal to NaN, strings exactly, lists by position,
objects by key set and value. `read_output` reads the agent's output (text goes through
`structsim_nb.answers.parse_answer`); `read_expected` reads a ground truth (a string is decoded
with `json.loads`: it is data, not an answer).

Examples:
    >>> read_output('Sure: {"a": 1}').value, same_value({"a": 1}, {"a": 1.0})
    ({'a': 1}, True)
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .._jsonload import loads_within
from ..answers import MAX_DEPTH, parse_answer
from ..errors import GroundTruthError

__all__ = [
    "JsonRead",
    "as_json",
    "as_json_or_why",
    "drop_nulls",
    "from_agent_result",
    "how_read",
    "json_type",
    "load_json_text",
    "read_expected",
    "read_output",
    "read_text",
    "same_value",
]


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
    kind = type(expected)
    if kind is type(predicted):  # the common cases, decided as the general rule below decides them
        if kind is int or (kind is str and not (strip or ignore_case)):
            return bool(expected == predicted)
        if kind is float:
            return expected == predicted or (expected != expected and predicted != predicted)  # NaN equals NaN
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


def drop_nulls(value: Any) -> Any:
    """`value` with every null-valued object key removed, at any depth (list items stay in place).

    The reading `null_is_missing=True` gives a side: a key whose value is null says the same as
    a key that is absent, as `StructuredOutputSimilarity` (and Pydantic's `model_dump()`, which
    writes `None` for every unset optional field) reads it.

    Examples:
        >>> drop_nulls({"a": 1, "b": None, "c": [None, {"d": None}]})
        {'a': 1, 'c': [None, {}]}
    """
    if isinstance(value, dict):
        return {key: drop_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [drop_nulls(item) for item in value]
    return value


def json_type(value: Any) -> str:
    """The JSON type name: null, boolean, number, string, array (a list or tuple) or object (a dict).

    Anything else is named for what it is: `set (not JSON data)`.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return f"{type(value).__name__} (not JSON data)"


def short(value: Any, limit: int = 60) -> str:
    """`value` as at most `limit` characters of JSON (strings quoted), for reasons; never raises."""
    kind = type(value)
    if kind is int and -(10**15) < value < 10**15:  # the common cases, written as json.dumps writes them
        text = int.__repr__(value)
    elif kind is float and math.isfinite(value):
        text = float.__repr__(value)
    elif kind is bool or value is None:
        text = "true" if value is True else "false" if value is False else "null"
    else:
        try:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
        except (ValueError, RecursionError):  # an integer past Python's digit limit, a cycle, deep nesting
            text = f"<{type(value).__name__} that cannot be shown>"
        text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


_PLAIN = frozenset({str, int, float, bool, type(None)})


def as_json(value: Any) -> tuple[bool, Any]:
    """`(True, json_value)` for JSON data (tuples become lists), `(False, None)` for anything else.

    See `as_json_or_why` for what is refused and what is copied.
    """
    ok, converted, _ = as_json_or_why(value)
    return ok, converted


def as_json_or_why(value: Any) -> tuple[bool, Any, str]:
    """`(True, json_value, "")` for JSON data (tuples become lists), else `(False, None, why)`.

    `why` reads after "it": `holds a set, which is not JSON data`, `contains itself (a reference
    cycle)`, `has a int key, and JSON keys are strings`, `nests deeper than 100 levels`.

    Plain JSON (dicts with string keys, lists, strings, numbers, booleans, None) comes back as
    the same object, uncopied; a container is copied only where something in it changes (a
    tuple, a dict or list subclass), so reading a large document costs one walk, with no call
    for a scalar. Refused: non-JSON types and non-string keys, nesting deeper than `MAX_DEPTH`
    (every reader after this one recurses; a value below depth `MAX_DEPTH`, the root at depth 0,
    as `parse_answer` counts it, so an empty container at that depth passes), and a container
    that holds itself. Recursion is
    bounded by `MAX_DEPTH`, so this never raises `RecursionError`: a reference cycle is caught
    by the depth bound, then told apart from deep nesting by one more walk.
    """
    ok, converted, why = _walk(value, 0)
    if not ok and why == _TOO_DEEP and _has_cycle(value, set(), 0):
        why = "contains itself (a reference cycle)"
    return ok, converted, why


_TOO_DEEP = f"nests deeper than {MAX_DEPTH} levels"


def _walk(value: Any, depth: int) -> tuple[bool, Any, str]:
    kind = type(value)
    if kind in _PLAIN:
        return True, value, ""
    if not isinstance(value, (list, tuple, dict)):
        if isinstance(value, (str, bool, int, float)):  # subclasses of the JSON scalars
            return True, value, ""
        return False, None, f"holds a {kind.__name__}, which is not JSON data"
    if depth >= MAX_DEPTH and value:  # something below depth MAX_DEPTH, as `parse_answer` counts it
        return False, None, _TOO_DEEP
    plain = _PLAIN
    if isinstance(value, dict):
        copy: Any = None if kind is dict else {}
        for key, item in value.items():
            if type(key) is not str and not isinstance(key, str):
                return False, None, f"has a {type(key).__name__} key, and JSON keys are strings"
            if type(item) in plain:
                converted = item
            else:
                ok, converted, why = _walk(item, depth + 1)
                if not ok:
                    return False, None, why
            if copy is None and converted is not item:
                copy = dict(value)
            if copy is not None:
                copy[key] = converted
        return True, value if copy is None else copy, ""
    items: Any = None if kind is list else []
    for index, item in enumerate(value):
        if type(item) in plain:
            converted = item
        else:
            ok, converted, why = _walk(item, depth + 1)
            if not ok:
                return False, None, why
        if items is None and converted is not item:
            items = list(value)
        if items is not None:
            if kind is list:
                items[index] = converted
            else:
                items.append(converted)
    return True, value if items is None else items, ""


def _has_cycle(value: Any, stack: set[int], depth: int) -> bool:
    """Whether a container holds itself, looking `MAX_DEPTH + 1` levels down (as far as `_walk` went)."""
    if not isinstance(value, (list, tuple, dict)) or depth > MAX_DEPTH:
        return False
    if id(value) in stack:
        return True
    stack.add(id(value))
    items = value.values() if isinstance(value, dict) else value
    found = any(_has_cycle(item, stack, depth + 1) for item in items)
    stack.discard(id(value))
    return found


def _serializable(value: Any) -> bool:
    """Whether orjson (in C) writes `value`: JSON types and string keys throughout, no reference cycle,
    nesting under orjson's 254 levels. Tuples and subclasses pass (a reader converts what it uses with
    `as_json`); what this refuses (and integers over 64 bits) is left to the Python walk, which says why.
    """
    import orjson

    try:
        orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return False
    return True


def load_json_text(text: str) -> tuple[bool, Any, str]:
    """`json.loads(text)` as JSON data, or `(False, None, why)`; never raises.

    Besides syntax errors, refused: numbers with more digits than Python converts, and nesting
    deeper than `MAX_DEPTH` (`as_json_or_why`).
    """
    try:
        value, vouched = loads_within(text, MAX_DEPTH)
    except json.JSONDecodeError as exc:
        return False, None, f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    except RecursionError:
        return False, None, f"nests deeper than {MAX_DEPTH} levels"
    except ValueError as exc:  # an integer over Python's conversion limit
        return False, None, str(exc)
    if vouched:  # plain JSON within the depth limit: nothing to convert or refuse
        return True, value, ""
    return as_json_or_why(value)


@dataclass(frozen=True)
class JsonRead:
    """A side read as JSON.

    Attributes:
        ok: Whether the side is JSON data.
        value: The JSON value (None when not `ok`).
        how: How it was read: `value` (JSON data given), `model` (a Pydantic model dumped),
            `text`, `none` (nothing found), or a `parse_answer` form (`json`, `python_literal`,
            `fenced`, `prefixed`, `embedded`, `count`).
        message: Why it is not JSON, or the parser's note.
        syntax: `json`, `python_literal` or `number` (from `parse_answer`); None when not read.
        span: `(start, end)` of the parsed snippet in the text (from `parse_answer`); None otherwise.
    """

    ok: bool
    value: Any = None
    how: str = "value"
    message: str = ""
    syntax: str | None = "json"
    span: tuple[int, int] | None = None


def how_read(read: JsonRead) -> str:
    """How the output was read, for a note; a repaired answer says what was repaired."""
    if read.how == "repaired":
        return f"repaired ({read.message})"
    return read.how


def read_output(actual: Any, *, deep: bool = True) -> JsonRead:
    """The agent output as JSON data: models are dumped, text goes through `read_text`; never raises.

    Args:
        actual: The output.
        deep: Check (and convert) the whole value in Python. Default True. False checks a dict or
            list in C (`_serializable`) and takes it as it is, for a reader that converts only the
            parts it uses (`as_json` on each); anything the C check refuses is read as with True.
    """
    if not deep and type(actual) in (dict, list) and _serializable(actual):
        return read_as_given(actual)
    actual = from_agent_result(actual)
    if isinstance(actual, BaseModel):
        ok, value, why = as_json_or_why(actual.model_dump(mode="json"))
        return JsonRead(True, value, "model") if ok else JsonRead(False, how="model", message=f"output {why}")
    if isinstance(actual, str):
        return read_text(actual)
    ok, value, why = as_json_or_why(actual)
    if not ok:
        detail = f": it {why}" if isinstance(actual, (dict, list, tuple)) else ""
        return JsonRead(False, message=f"output of type {type(actual).__name__} is not JSON data{detail}")
    return JsonRead(True, value)


def from_agent_result(actual: Any) -> Any:
    """A Strands `AgentResult`'s structured output (its text when it has none); anything else as it is.

    The Strands agent SDK takes over a second to import, and a run scoring saved text answers never
    needs it: an `AgentResult` can only exist once its module has been imported, so the check looks
    for the class among the loaded modules instead of importing it.
    """
    module = sys.modules.get("strands.agent.agent_result")
    agent_result = getattr(module, "AgentResult", None)
    if agent_result is not None and isinstance(actual, agent_result):
        return actual.structured_output if actual.structured_output is not None else str(actual)
    return actual


def read_as_given(value: dict[Any, Any] | list[Any]) -> JsonRead:
    """`JsonRead(True, value)`, the output taken as it is, for a reader that converts only the parts it uses.

    Built without the frozen `__init__` (a hot path). Nothing is checked: the caller converts each
    part it reads with `as_json`, which refuses what is not JSON data.
    """
    read = object.__new__(JsonRead)
    read.__dict__.update(ok=True, value=value, how="value", message="", syntax="json", span=None)
    return read


def read_text(text: str, *, exact_numbers: bool = True) -> JsonRead:
    """Text output through the project's one text-to-structure parser, `answers.parse_answer`.

    `how` is the parser's form (`json`, `python_literal`, `fenced`, `prefixed`, `embedded`,
    `count`); `syntax` says whether the value was JSON, a Python literal or a number.
    `exact_numbers`: passed on (default True; False for a reader that looks only at what was found).
    """
    parsed = parse_answer(text, exact_numbers=exact_numbers)
    if not parsed.found:
        return JsonRead(False, how="none", message=f"output is not JSON: {parsed.message}")
    # parse_answer returns plain JSON types within MAX_DEPTH, the limit `as_json_or_why` keeps: nothing to check again.
    return JsonRead(True, parsed.value, parsed.form, parsed.message, parsed.syntax, parsed.span)


def read_expected(expected: Any, *, deep: bool = True) -> Any:
    """The ground truth as JSON data; a string is JSON text, decoded with `json.loads`.

    Args:
        expected: The ground truth.
        deep: Check (and convert) the whole value in Python. Default True. False checks a dict or
            list in C (`_serializable`) and takes it as it is, for a reader that converts only the
            parts it uses (`as_json` on each); anything the C check refuses is read as with True.

    Raises:
        GroundTruthError: If the ground truth is not JSON data or JSON text.
    """
    if not deep and type(expected) in (dict, list) and _serializable(expected):
        return expected
    if isinstance(expected, BaseModel):
        expected = expected.model_dump(mode="json")
    if isinstance(expected, str):
        ok, value, why = load_json_text(expected)
        if not ok:
            raise GroundTruthError(
                f"expected must be JSON data or JSON text; got the string {short(expected)}, which is not JSON "
                f"({why}). Store the ground truth as a dict, a list or JSON text"
            )
        return value
    ok, value, why = as_json_or_why(expected)
    if not ok:
        got = type(expected).__name__
        if isinstance(expected, (dict, list, tuple)):
            got = f"a {got} that {why}"
        raise GroundTruthError(
            f"expected must be JSON data (dict, list, str, number, bool or None); got {got}. "
            "Convert it to plain JSON types first"
        )
    return value


def check_threshold(value: float | int | None, default: float, name: str = "threshold") -> float:
    """`value` as a float in [0, 1], or `default` when it is None (only then: 0 stays 0).

    Raises:
        ValueError: If `value` is a bool, not a number, or outside [0, 1].
    """
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be a number between 0 and 1 (0 and 1 included); got {value!r}")
    return float(value)
