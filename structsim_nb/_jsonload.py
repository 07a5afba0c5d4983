"""JSON text read fast, to the value `json.loads` gives, and a quick check that a decoded value is shallow.

`loads(text)` is `json.loads(text)`: same value, same errors. orjson (a C reader, about twice
as fast) reads it first when it can only give the same value; where it refuses, or where it
would read differently, `json.loads` reads it:

- integers of 19 or more digits (orjson reads those past 64 bits as floats, or refuses them):
  any run of 19 digits in the text sends it to `json.loads` (found by `bytes.translate` and
  `bytes.find` on the UTF-8 bytes orjson then reads, whitespace deleted, in C: a regular
  expression takes ten times as long on digit-rich text);
- `NaN`, `Infinity`, lone surrogates, numbers that overflow to infinity: orjson refuses them,
  `json.loads` reads them (or raises its own error, with its own message and position).

Everything else is the same value: the same types (a JSON integer is an `int`, a number with
a fraction or exponent a `float`, correctly rounded by both), the same strings, and the last of
repeated keys, in the first one's place.

`shallow(value, limit)` says quickly (one loop per container, no call per scalar) that a decoded
value holds only JSON types with every container above depth `limit - 1`; the readers then skip
their own exact, slower walk, which they still run on anything it does not vouch for.
`loads_within(text, limit)` reads the text and says the same of what orjson read; it measures the
nesting on the text's bytes where that is cheaper (`_shape`, `_shape_depth`: a few passes in C, about a third
of the walk's time on a typical extraction), and walks the value where it is not (long strings,
many escapes, long chains) or where the text cannot tell (a string holding a bracket).

Examples:
    >>> loads('{"a": [1, 2.5, "x", null]}')
    {'a': [1, 2.5, 'x', None]}
    >>> loads("123456789012345678901234567890")
    123456789012345678901234567890
    >>> shallow({"a": [1, {"b": None}]}, 100), shallow([[[]]], 2)
    (True, False)
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["loads", "loads_within", "shallow"]

#: `bytes.translate` table writing every digit but 0 as 0, so a run of digits is a run of zeros.
_DIGITS_AS_ZERO = bytes(range(256)).translate(bytes.maketrans(b"123456789", b"000000000"))
_LONG_RUN = b"0" * 19
#: The whitespace JSON allows between tokens; inside a string it is never part of an escape.
_WHITESPACE = b" \t\n\r"
_SCALARS = frozenset({str, int, float, bool, type(None)})


def loads(text: str) -> Any:
    """`json.loads(text)`: the same value, or the same exception (`JSONDecodeError`, `ValueError`, `RecursionError`)."""
    return _loads(text)[0]


def _loads(text: str, exact_numbers: bool = True) -> tuple[Any, bytes | None, int]:
    """`(json.loads(text), the squeezed bytes if orjson read them else None, the UTF-8 length)`.

    With `exact_numbers` False, orjson reads whatever it reads and the digit check is skipped (the
    bytes come back as they are, not squeezed). orjson reads a text only where `json.loads` reads
    it too (it refuses NaN, Infinity, lone surrogates, numbers that overflow, and nesting past 1,024
    levels, which `json.loads` then reads or refuses as before). What differs, only in text holding
    a run of 19 or more digits (which the exact reading leaves to `json.loads`):

    - an integer past 64 bits is the float nearest it;
    - a number written with more than 768 significant digits exactly halfway between two floats
      may round the other way (orjson cuts the digits there);
    - text nested deeper than this Python's `json.loads` reads but at most 1,024 levels (about 990
      and up on 3.10 and 3.11, where `json.loads` raises `RecursionError`) is read.

    Whether any other text is JSON, and the kind, shape and values of what it holds, are the same.

    orjson's values hold no integer past 64 bits and no NaN. The text is read as UTF-8 bytes (a
    lone surrogate written with `surrogatepass`, which orjson refuses as it refuses it in a
    `str`); in UTF-8 no multi-byte character holds an ASCII byte, so a run of ASCII digits is the
    same run. The digit check reads the bytes squeezed: digits as `0`, JSON's four whitespace bytes
    deleted (half of an indented answer). Squeezing only joins digit runs that whitespace parted
    inside a string (between numbers, JSON needs a comma or colon), and a joined run only sends the
    text to `json.loads`, which gives the same value. `loads_within` measures nesting on them too.
    """
    data = text.encode("utf-8", "surrogatepass")
    squeezed = data.translate(_DIGITS_AS_ZERO, _WHITESPACE) if exact_numbers else data
    if not exact_numbers or squeezed.find(_LONG_RUN) < 0:
        try:
            return orjson.loads(data), squeezed, len(data)
        except orjson.JSONDecodeError:
            pass  # json.loads reads it, or raises its own error
    return json.loads(text), None, len(data)


def loads_within(text: str, limit: int, *, exact_numbers: bool = True) -> tuple[Any, bool]:
    """`(loads(text), within)`: the value, and whether it is vouched to be plain within `limit` (see `shallow`).

    Only what orjson read is vouched for (so no integer is too long to write out, as the readers'
    exact walk requires); text with fewer than `limit - 1` opening brackets cannot nest that deep,
    so only longer structures are measured. Raises as `loads` raises.

    `exact_numbers`: default True. False skips the check for integers of 19 or more digits (about
    a tenth of the time on a long answer) for a caller that needs only whether the text is JSON
    and where it nests: an integer past 64 bits may then come back as a float, and what else may
    differ is in `_loads` (it raises `RecursionError` only past orjson's 1,024 levels).
    """
    value, data, size = _loads(text, exact_numbers)
    if data is None or limit < 2:  # (a limit under 2 vouches for nothing, as `shallow` says)
        return value, False
    shape = _shape(data)  # (squeezed or not: whitespace is never a quote, bracket or escape in valid JSON)
    brackets = shape.count(b"(") if shape is not None else data.count(b"{") + data.count(b"[")
    if brackets < limit - 1:
        return value, True  # every container needs a bracket of its own; orjson gives only plain types
    # Counting on the shape costs about 1 ns a byte of text in all, walking the value about 0.2 us a container:
    # the shape only where the text is not mostly long strings (which the walk passes over at no cost).
    if shape is not None and size <= _TEXT_BYTES_PER_CONTAINER * brackets:
        levels = _shape_depth(shape, limit - 1)
        if levels is not None:
            return value, levels <= limit - 1
    return value, shallow(value, limit)


#: Up to how many characters of text per container `loads_within` counts levels on the text, not the value.
#: Measured (loads_within, us, text route / walk): indented JSON (87 and 117 characters a container,
#: mostly indentation) 0.78 and 0.81; 150-character plain strings 0.87, 300 1.00, 600 1.07; strings
#: holding a bracket (the count gives up, then walks) 1.18-1.23 wherever they fall. 128 takes the
#: common indented answer the faster way and leaves long strings to the walk.
_TEXT_BYTES_PER_CONTAINER = 128
#: Passes `_shape_depth` makes before it leaves a deep text to the walk (each pass reads what is left).
_MOST_PASSES = 16
#: `_shape` leaves a text to the walk when more than one byte in this many is a backslash.
_ESCAPE_SHARE = 16
#: ... or when a pass leaves more than this share of the brackets it read.
_MOST_LEFT_AFTER_A_PASS = 0.75
#: Up to how many escapes `_plain_escapes` finds one by one.
_FEW_ESCAPES = 64
#: The escaped bytes `_shape` drops with their backslash: `\\` and `"`.
_DROPPED_ESCAPES = (b"\\", b'"')


# Bytes kept by `_shape`: quotes and brackets, every bracket read as a parenthesis.
_BRACKETS_AS_PARENTHESES = bytes(range(256)).translate(bytes.maketrans(b"{}[]", b"()()"))
_ALL_BUT_QUOTES_AND_BRACKETS = bytes(byte for byte in range(256) if byte not in b'"{}[]')


def _text_depth(text: str, most: int) -> int | None:
    """The nesting levels of valid JSON `text` (`[]` is 1, `[{}]` 2), `most + 1` if over `most`, or None.

    None means "not measured here", and the caller walks the decoded value instead: some string
    in the text holds a bracket (found as a quote left over below), escapes are many (more than
    one byte in 16: each costs two replacements), or the text is deeper than `_MOST_PASSES`
    levels or a pass takes off less than a quarter of what is left (each level is one more pass
    over what is left: long chains cost a pass per link). The text must be JSON that parses; on
    anything else the count means nothing. These are the levels of the text: where an object
    repeats a key, the decoded value keeps only the last one, so its depth can be less, never
    more (a count that says "too deep" then only sends the caller to the exact walk).

    Measured on the UTF-8 bytes' shape (`_shape`), pass by pass (`_shape_depth`).
    """
    shape = _shape(text.encode("utf-8", "surrogatepass"))
    return None if shape is None else _shape_depth(shape, most)


def _shape(data: bytes) -> bytes | None:
    """The quotes and brackets of valid JSON's UTF-8 bytes, every bracket as `(` or `)` and each string without a
    bracket gone; None when escapes are many (more than one byte in `_ESCAPE_SHARE`).

    A multi-byte character never holds an ASCII byte. Escaped backslashes, then escaped quotes,
    are dropped (left to right, as a JSON reader reads escapes; outside strings valid JSON has no
    backslash); everything but quotes and brackets is deleted; and each `""` left is a string
    without a bracket, dropped in one left-to-right pass. A string holding a bracket leaves its
    opening quote behind (the quote before it, if any, closed the string before, which that pass
    has already paired), so no quote left means only the structure's brackets are.
    """
    if b"\\" in data:  # (one byte: found by memchr, far faster than a two-byte search)
        plain = _plain_escapes(data)
        if (plain if plain is not None else data.count(b"\\")) * _ESCAPE_SHARE > len(data):
            return None
        if plain is None:  # many escapes, or one of a backslash or a quote: drop those
            data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    shape = data.translate(_BRACKETS_AS_PARENTHESES, _ALL_BUT_QUOTES_AND_BRACKETS)
    # Dropping each `""` (left to right, as `replace` pairs them) leaves no quote exactly when those pairs are
    # every quote: then deleting the quotes gives the same bytes, in half the time of the many replacements.
    if shape.count(b'""') * 2 == shape.count(b'"'):
        return shape.translate(None, b'"')
    return shape.replace(b'""', b"")


def _plain_escapes(data: bytes) -> int | None:
    """How many escapes `data` holds when they are few (`_FEW_ESCAPES`) and none escapes a backslash or a
    quote, so `_shape` has nothing to drop; else None.

    The usual escapes (`\\u00e9` from `ensure_ascii`, `\\n` in a description) are found one by one
    by memchr; counting every byte and two two-byte searches cost 45 us on 20 KB where they are
    none of these.
    """
    at = data.find(b"\\")
    for count in range(_FEW_ESCAPES + 1):
        if at < 0:
            return count
        if data[at + 1 : at + 2] in _DROPPED_ESCAPES:
            return None
        at = data.find(b"\\", at + 2)  # (the escaped byte is never a backslash that starts an escape)
    return None


def _shape_depth(shape: bytes, most: int) -> int | None:
    """The levels of a `_shape`, `most + 1` if over `most`, or None (a quote is left, or passes cost too much).

    Each pass removing every `()` takes off one level: the containers holding no container.
    """
    if b'"' in shape:
        return None
    levels = 0
    while shape:
        if levels == most:
            return most + 1
        if levels == _MOST_PASSES:
            return None
        before, shape = len(shape), shape.replace(b"()", b"")
        if len(shape) > _MOST_LEFT_AFTER_A_PASS * before:  # long chains: a pass for each link; walk them
            return None
        levels += 1
    return levels


def shallow(value: Any, limit: int) -> bool:
    """Whether a decoded JSON value is a dict or list of plain JSON types, every container at depth below `limit - 1`.

    Args:
        value: What `loads` (or `json.loads`) returned: object keys are strings by construction
            and are not looked at. Root depth is 0.
        limit: The readers' nesting limit (`answers.MAX_DEPTH`).

    Returns:
        True only for exact `dict` and `list` containers and exact `str`, `int`, `float`,
        `bool` and `None` scalars, nested so that no container sits at depth `limit - 1` or
        deeper. False says only "not vouched for": check it the exact way. A scalar root is
        False too, and so is anything under a limit below 2. Integers are not measured: a
        reader that refuses very long ones vouches only for what orjson read (`loads_within`).
    """
    if limit < 2:
        return False
    if type(value) is dict:
        return _fits(value.values(), 1, limit - 1)
    if type(value) is list:
        return _fits(value, 1, limit - 1)
    return False


def _fits(items: Any, depth: int, bound: int) -> bool:
    scalars = _SCALARS
    for item in items:
        if type(item) in scalars:  # most items: one test
            continue
        if depth >= bound:
            return False
        kind = type(item)
        if kind is dict:
            if not _fits(item.values(), depth + 1, bound):
                return False
        elif kind is list:
            if not _fits(item, depth + 1, bound):
                return False
        else:
            return False
    return True
