"""Field paths for the JSON evaluators: parse once, resolve against any JSON value.

Three syntaxes, chosen by the first character as Agenta does: `$...` is JSON Path (jsonpath-ng's
extended grammar), `/...` is a JSON Pointer (RFC 6901), anything else is dot notation with
list indices (`address.city`, `items.0`, `items[0].name`, `items[-1]`, `["a.b"]`).
`render_path` writes a flattened leaf back as a dot path that parses to the same leaf.

Examples:
    >>> path = parse_field_path("items[0].name")
    >>> resolve_path(path, {"items": [{"name": "a"}]})
    (True, 'a', '')
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from jsonpath_ng.exceptions import JsonPathParserError
from jsonpath_ng.ext import parse as _parse_jsonpath

from ..errors import FieldPathError
from .values import json_type

__all__ = ["FieldPath", "is_list_index", "parse_field_path", "parse_fields", "render_path", "resolve_path"]

_INDEX = re.compile(r"-?(0|[1-9][0-9]*)")
_POINTER_INDEX = re.compile(r"0|[1-9][0-9]*")
#: A dot-notation key that needs no quoting: no `.` or brackets, no edge whitespace (quotes are part of the key, as
#: in Agenta's dot notation: `user's` names the key `user's`).
PLAIN_KEY = re.compile(r"[^.\[\]\s](?:[^.\[\]]*[^.\[\]\s])?")


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
            Anything else is dot notation: segments separated by `.` (empty ones are dropped,
            as Agenta does: `a..b` is `a.b`, `.name` is `name`); a segment of digits indexes
            a list (a key on an object; `01` is index 1, as Agenta's `isdigit` reads it, and
            `-1` counts from the end); `[i]` indexes a list (negative counts from the end);
            `["key"]` or `['key']` is a literal key, for keys holding dots, brackets or edge
            spaces. Quotes inside a segment are part of the key (`user's`).

    Returns:
        The parsed `FieldPath`.

    Raises:
        FieldPathError: If the path is empty, not a string, has leading or trailing whitespace,
            names no field (`.`), has an unclosed bracket or quote or a bad bracket (`a[x]`),
            is an invalid JSON Path, or has a `~` escape other than `~0`/`~1` in a pointer.
            The message names the path.

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


def parse_fields(fields: Sequence[str | FieldPath]) -> tuple[FieldPath, ...]:
    """Parse a list of field paths (already parsed ones pass through).

    Raises:
        FieldPathError: If `fields` is a single string or not a list, is empty, repeats a
            path, or holds a path that does not parse.
    """
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
        elif char == ".":  # an empty segment (`a..b`, `.a`, `a.`) is dropped, as Agenta does
            i, need_segment = i + 1, True
        else:
            if not need_segment:
                raise FieldPathError(f"field path {text!r} needs a '.' before {text[i:]!r}")
            end = i
            while end < n and text[end] not in ".[":
                end += 1
            segment = text[i:end]
            if not PLAIN_KEY.fullmatch(segment):
                raise FieldPathError(
                    f"field path {text!r} has the segment {segment!r}; quote keys with edge spaces: "
                    f"'[{json.dumps(segment)}]'"
                )
            steps.append(("either", segment))
            i, need_segment = end, False
    if not steps:
        raise FieldPathError(f"field path {text!r} names no field; write a key, e.g. 'name' or 'address.city'")
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


def resolve_path(path: FieldPath, data: Any) -> tuple[bool, Any, str]:
    """Resolve a parsed path in a JSON value.

    Returns:
        `(found, value, why_not)`. A JSON Path with one match gives that value, with several
        the list of them, with none `found=False`. `why_not` names the step that failed and
        why (`step 2 ('0'): index 0 is out of range (the list has 0 items)`); "" when found.
    """
    if path.syntax == "jsonpath":
        values = [match.value for match in path.compiled.find(data)]
        if not values:
            return False, None, "the JSON Path matches nothing"
        return True, values[0] if len(values) == 1 else values, ""
    current = data
    for depth, (kind, token) in enumerate(path.steps):
        if type(current) is dict and kind != "index":  # the common step, first
            current = current.get(token, _MISSING)
            if current is _MISSING:
                return False, None, f"{_where(depth, token)}: no key {token!r}"
        elif isinstance(current, dict) and kind in ("key", "either", "pointer"):
            if token not in current:
                return False, None, f"{_where(depth, token)}: no key {token!r}"
            current = current[token]
        elif isinstance(current, (list, tuple)) and kind in ("index", "either", "pointer"):
            if kind == "index":
                index = token
            elif kind == "pointer" and not _POINTER_INDEX.fullmatch(token):
                where = _where(depth, token)
                return False, None, f"{where}: a JSON Pointer list index is a non-negative integer (RFC 6901)"
            elif kind == "either":
                index = _either_index(token)
                if index is None:
                    return False, None, f"{_where(depth, token)}: {token!r} is not a list index"
            else:
                index = int(token)
            if not -len(current) <= index < len(current):
                where = _where(depth, token)
                return False, None, f"{where}: index {index} is out of range (the list has {len(current)} items)"
            current = current[index]
        else:
            return (
                False,
                None,
                f"{_where(depth, token)}: expects {'a list' if kind == 'index' else 'an object'}, "
                f"found {json_type(current)}",
            )
    return True, current, ""


_MISSING = object()
#: A dot segment's reading as a list index (None when it is not one), remembered per token.
_EITHER: dict[str, int | None] = {}


def _either_index(token: str) -> int | None:
    found = _EITHER.get(token, _MISSING)
    if found is _MISSING:
        if len(_EITHER) > 10_000:
            _EITHER.clear()
        found = _EITHER[token] = _dot_index(token)
    return found  # type: ignore[return-value]


def _dot_index(token: str) -> int | None:
    """A dot segment's list index: digits as Agenta reads them (`str.isdigit`, then `int`: `01` is 1, and so is
    `\u0661`), with a leading `-` counting from the end; None for anything else (and for digits `int` refuses)."""
    digits = token[1:] if token.startswith("-") else token
    if not digits.isdigit():
        return None
    try:
        return int(token)
    except ValueError:  # a digit int() does not read (`²`): Agenta's resolver fails on it too
        return None


def is_list_index(token: str) -> bool:
    """Whether a token is a JSON Pointer list index: a non-negative ASCII integer without leading zeros."""
    return _POINTER_INDEX.fullmatch(token) is not None


def _where(depth: int, token: Any) -> str:
    return f"step {depth + 1} ({token!r})"


def render_path(steps: Sequence[Any]) -> str:
    """A flattened leaf's path in dot notation that `parse_field_path` reads back to the same leaf.

    Args:
        steps: Keys (str) and list indices (int), outermost first.

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
        elif PLAIN_KEY.fullmatch(step):
            parts.append(("." if parts else "") + step)
        else:
            parts.append(f"[{json.dumps(step, ensure_ascii=False)}]")
    return "".join(parts)
