"""Report files as JSON bytes: readable (sorted keys, 2-space indent), the same bytes for the same data, fast.

`dump_bytes(data)` writes with orjson (a C encoder; `json.dumps(indent=2)` runs the pure-Python
encoder and cost more than the scoring it reported), in the layout of
`json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False)` plus a newline (floats in their
shortest round-trip form, `1e16` rather than `1e+16`). The same data always gives the same bytes.
Data orjson does not take is made plain first and written by `json`, still deterministically:

- NaN and infinities become `null` (strict JSON has no such numbers; `_clean`);
- tuples become lists, non-string keys their `str()`;
- an integer past Python's text conversion limit becomes a note string, `<integer of N bits>`;
- a lone surrogate in a string (valid in a Python `str`, not in UTF-8) is written as a `\\udXXX`
  escape, which JSON readers, Python's included, read back to the same string.

`round_trip(value)` is `json.loads(json.dumps(value, sort_keys=True, default=str))`, the plain,
key-sorted copy a scorer keeps as its details, without the text in between: on plain data it is a
sorted copy (the standard encoder formats each float through a Python call, so the text route cost
more than the scoring whose details it copied), and anything else takes the text route as before.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

import orjson

__all__ = ["dump_bytes", "round_trip"]

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
_SURROGATE = re.compile("[\ud800-\udfff]")


def _max_int_digits() -> int:
    get = getattr(sys, "get_int_max_str_digits", None)
    return int(get()) if get is not None else 0


def _clean(value: Any) -> Any:
    """`value` as plain, strict JSON data; see the module docstring."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        limit = _max_int_digits()
        if limit and value.bit_length() > limit * 3.32:
            return f"<integer of {value.bit_length():,} bits>"
        return value
    if isinstance(value, dict):
        return {str(key): _clean(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(item) for item in value]
    return value


def dump_bytes(data: Any) -> bytes:
    """`data` as UTF-8 JSON bytes with sorted keys and a 2-space indent, ending in a newline.

    Raises:
        TypeError: If `data` holds something that is not JSON data (a set, an object).
    """
    try:
        return orjson.dumps(data, option=_OPTIONS) + b"\n"
    except (orjson.JSONEncodeError, TypeError):
        pass  # NaN-free floats, 64-bit integers, str keys and valid UTF-8 only: take the careful path
    text = json.dumps(_clean(data), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    text = _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    return text.encode("utf-8") + b"\n"


#: Scalars `json.loads(json.dumps(x))` gives back as they are (a float: `repr` and back is exact, NaN and
#: the infinities included; an integer: only within `_INT_LIMIT`, past which the text conversion may refuse).
_KEPT = frozenset({str, float, bool, type(None)})
_INT_LIMIT = 1 << 64


class _NotPlain(Exception):
    """Raised inside `_sorted_copy` at the first value the text route treats otherwise."""


def round_trip(value: Any) -> Any:
    """`json.loads(json.dumps(value, sort_keys=True, default=str))`: the same value, the same exceptions.

    Dicts with string keys, lists, tuples (as lists), strings, floats, booleans, None and integers of
    up to 64 bits are copied directly, each dict's keys sorted; a value holding anything else (a
    subclass, an enum, a date, a non-string key, a longer integer), or nested deeper than this copy
    recurses, is written as text and read back, as before. Raises what that raises (`ValueError` for an
    integer past the text conversion limit, `TypeError` for keys that do not sort, `RecursionError`).
    """
    try:
        return _sorted_copy(value)
    except (_NotPlain, TypeError, RecursionError):  # (TypeError: keys that do not sort; the text route says so)
        return json.loads(json.dumps(value, sort_keys=True, default=str))


def _sorted_copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        out = {}
        for key in sorted(value):
            if type(key) is not str:
                raise _NotPlain
            item = value[key]
            kind = type(item)
            if kind in _KEPT or (kind is int and -_INT_LIMIT < item < _INT_LIMIT):  # most items: no call
                out[key] = item
            else:
                out[key] = _sorted_copy(item)
        return out
    if kind is list or kind is tuple:
        return [item if type(item) in _KEPT else _sorted_copy(item) for item in value]
    if kind in _KEPT or (kind is int and -_INT_LIMIT < value < _INT_LIMIT):
        return value
    raise _NotPlain
