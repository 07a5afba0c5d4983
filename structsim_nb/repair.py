"""Truncated JSON answers: recognise an answer cut off by a token limit, and repair it with json-repair.

A model that runs out of output tokens stops mid-answer: `{"Agency": "Harbor Line", "LineItems":
[{"LineItemRate": 350.0}, {"LineItemRa`. Nothing in that text parses, and a scan for complete
structures finds only an inner fragment (`{"LineItemRate": 350.0}`), which would be scored as if it
were the whole answer. `find_truncation` recognises the cut: one linear scan finds the outermost
JSON object or array that is still open when the text ends, and where inside it the text stops
(inside a string, a key, a number, a literal, after a colon, between items). `repair_truncated`
then trims what cannot be kept honestly and closes the rest with the `json-repair` library.

What is kept and what is dropped (so a repaired answer never invents a value):

- cut inside a string value: the partial string is kept (`"Harb"`); a dangling escape is dropped;
- cut inside a key, or after a key with no value yet: that key is dropped;
- cut inside a number: the digits are kept and the repair says the number may be incomplete; a
  bare `-`, `.` or exponent sign with no digit is dropped with its key;
- cut inside `true`, `false` or `null`: the literal is completed (`tr` -> `true`);
- cut between items, or right after an opening bracket: nothing is lost but the closers.

Only JSON is repaired (double-quoted keys and strings); a truncated Python literal is not. The
repaired value must be a non-empty object or array, and the text after the opening bracket must
look like JSON (`{` followed by a key, `[` by a value), so a stray bracket in prose is never
"repaired" into an answer. `answers.parse_answer` calls `repair_truncated` and reports the result
as form `repaired`, never as a clean `json` answer.

Examples:
    >>> fixed = repair_truncated('{"Agency": "Harbor Line", "Rates": [350.0, 90')
    >>> fixed.value
    {'Agency': 'Harbor Line', 'Rates': [350.0, 90]}
    >>> fixed.repairs
    ('cut inside the number 90 (kept; it may be incomplete)', 'closed 1 array and 1 object')
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["Repaired", "Truncation", "find_truncation", "repair_truncated"]

# The characters that change the scan's state; everything else is skipped by the regex engine.
_TOKENS = re.compile(r'[{}\[\]",:\\]')
# A complete double-quoted string (escapes included), for the quick check; no nested quantifier.
_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
# Each digit can be read by one quantifier only (`\d*` only after a `.`), so a failing fullmatch is linear.
_NUMBER_PREFIX = re.compile(r"-?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d*)?|\.\d*)?")
_LITERALS = ("true", "false", "null")
_CLOSER = {"{": "}", "[": "]"}
# What may follow an opening bracket in JSON: a key after `{`, a value after `[`.
_VALUE_START = frozenset('"{[-0123456789tfn')
_MAX_DEPTH = 100


@dataclass
class _Level:
    """One open object or array: its bracket, offset, and what the scan expects next inside it."""

    bracket: str
    start: int
    # Object: key -> colon -> value -> comma -> key ...; array: value -> comma -> value ...
    state: str
    key_span: tuple[int, int] | None = None  # the last key's quoted text, decoded only when reported
    key_start: int = -1


@dataclass(frozen=True)
class Truncation:
    """Where an answer was cut off inside a JSON structure.

    Attributes:
        start: Offset of the outermost object or array still open at the end of the text.
        brackets: The open brackets, outermost first (`"{[{"`).
        cut: Where the text stops: `string` (inside a string value), `key` (inside a key),
            `after_key` (a key with no value yet), `number`, `literal`, `between_items`.
        key: The key whose value was cut, when the cut is inside an object; else None.
        tail: The partial number or literal at the cut ("" otherwise).
        drop_from: Offset from which the text is dropped before repair (a partial key, a
            dangling key, a sign with no digit), or None when everything is kept.
    """

    start: int
    brackets: str
    cut: str
    key: str | None = None
    tail: str = ""
    drop_from: int | None = None


@dataclass(frozen=True)
class Repaired:
    """A truncated answer, repaired.

    Attributes:
        value: The repaired object or array.
        start: Offset of the repaired structure in the text (it runs to the end).
        repairs: What was repaired, in words, in the order applied.
    """

    value: Any
    start: int
    repairs: tuple[str, ...] = field(default_factory=tuple)

    @property
    def message(self) -> str:
        """One sentence for a reason: the answer was cut off, and how it was repaired."""
        return "the answer was cut off (truncated JSON) and repaired: " + "; ".join(self.repairs)


def _scan(text: str, start: int) -> tuple[list[_Level], bool, int, int, str]:
    """Scan `text` from `start`: `(open levels, inside a string, string start, end of last token, string role)`."""
    stack: list[_Level] = []
    in_string = False
    string_start = -1
    role = ""
    last = start
    skip_to = -1
    for match in _TOKENS.finditer(text, start):
        at = match.start()
        if at < skip_to:
            continue
        char = match.group()
        if in_string:
            if char == "\\":
                skip_to = at + 2
            elif char == '"':
                in_string = False
                level = stack[-1]
                if role == "key":
                    level.key_span, level.state = (string_start, at + 1), "colon"
                else:
                    level.state = "comma"
                last = at + 1
            continue
        if not stack:
            if char in "{[":
                stack.append(_Level(char, at, "key" if char == "{" else "value"))
                last = at + 1
            continue  # prose between structures
        level = stack[-1]
        if char == '"':
            if level.state not in ("key", "value"):
                stack.clear()  # a string where a colon or comma belongs: not JSON
                continue
            in_string, string_start = True, at
            role = "key" if level.bracket == "{" and level.state == "key" else "value"
            if role == "key":
                level.key_start = at
        elif char in "{[":
            if level.state != "value":
                stack.clear()
                stack.append(_Level(char, at, "key" if char == "{" else "value"))
            else:
                stack.append(_Level(char, at, "key" if char == "{" else "value"))
        elif char in "}]":
            if _CLOSER[level.bracket] != char:
                stack.clear()  # mismatched closer: malformed, not truncated
                continue
            stack.pop()
            if stack:
                stack[-1].state = "comma"
        elif char == ":":
            if level.bracket == "{" and level.state == "colon":
                level.state = "value"
            else:
                stack.clear()
                continue
        elif char == ",":
            level.state = "key" if level.bracket == "{" else "value"
        else:  # a backslash outside a string
            stack.clear()
            continue
        last = at + 1
    return stack, in_string, string_start, last, role


def _may_be_cut(text: str, start: int) -> bool:
    """Whether more brackets open than close outside complete strings (a cut structure needs that)."""
    bare = _STRING.sub("", text[start:] if start else text)
    return bare.count("{") + bare.count("[") > bare.count("}") + bare.count("]")


def _key(quoted: str) -> str:
    """A key as written, decoded from its JSON string form when it decodes."""
    try:
        return str(json.loads(quoted))
    except ValueError:
        return quoted[1:-1]


def find_truncation(text: str, start: int = 0) -> Truncation | None:
    """Find the JSON object or array that is still open where `text` ends, and where it was cut.

    Args:
        text: The answer text.
        start: Offset to scan from. Default 0.

    Returns:
        A `Truncation`, or None when every structure in the text is closed, the open one is
        malformed rather than cut (a mismatched closer, a stray character at the cut), or the
        text after its opening bracket does not look like JSON. Linear in the text's length;
        text whose brackets outside strings balance (most complete answers) is ruled out by a
        quick check before the scan.
    """
    openers = [at for at in (text.find("{", start), text.find("[", start)) if at >= 0]
    if not openers:
        return None
    start = min(openers)  # prose before the first bracket cannot be inside a structure
    if not _may_be_cut(text, start):
        return None
    stack, in_string, string_start, last, role = _scan(text, start)
    if not stack:
        return None
    outer, level = stack[0], stack[-1]
    first = text[outer.start + 1 :].lstrip()[:1]
    if first and first not in ('"' if outer.bracket == "{" else _VALUE_START) and first not in "}]":
        return None
    if len(stack) > _MAX_DEPTH:
        return None
    brackets = "".join(item.bracket for item in stack)
    key = _key(text[slice(*level.key_span)]) if level.bracket == "{" and level.key_span else None
    if in_string:
        if role == "key":
            return Truncation(outer.start, brackets, "key", drop_from=string_start)
        return Truncation(outer.start, brackets, "string", key)
    tail = text[last:].strip()
    dangling = level.key_start if level.bracket == "{" else None
    if level.state == "colon" or (level.state == "value" and not tail and level.bracket == "{"):
        if tail:
            return None
        return Truncation(outer.start, brackets, "after_key", key, drop_from=dangling)
    if level.state == "value" and tail:
        if any(word.startswith(tail) for word in _LITERALS):
            return Truncation(outer.start, brackets, "literal", key, tail)
        number = _NUMBER_PREFIX.fullmatch(tail)
        if number is None:
            return None
        if not any(char.isdigit() for char in tail):
            drop = dangling if dangling is not None else last
            return Truncation(outer.start, brackets, "after_key", key, tail, drop_from=drop)
        return Truncation(outer.start, brackets, "number", key, tail)
    if tail:
        return None  # junk after a complete value: malformed, not cut
    return Truncation(outer.start, brackets, "between_items", key)


def _closed(brackets: str, *, string: bool) -> str:
    arrays, objects = brackets.count("["), brackets.count("{")
    parts = ["the string"] if string else []
    parts += [f"{n} {word}{'s' if n != 1 else ''}" for n, word in ((arrays, "array"), (objects, "object")) if n]
    return "closed " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0])


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of `value`, stopping once it passes `limit`."""
    if not isinstance(value, (dict, list)) or limit < 0:
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(item, limit - 1) for item in items), default=0)


def repair_truncated(text: str, *, max_depth: int = _MAX_DEPTH) -> Repaired | None:
    """Repair an answer that was cut off inside a JSON object or array.

    Args:
        text: The whole answer text.
        max_depth: Deepest nesting accepted, default 100.

    Returns:
        A `Repaired` when `find_truncation` finds a cut and the repaired value is a non-empty
        object or array; None otherwise (complete text, malformed text, prose, or nothing left
        after dropping what cannot be kept). Never raises on any string.
    """
    cut = find_truncation(text)
    if cut is None:
        return None
    end = len(text) if cut.drop_from is None else cut.drop_from
    snippet = text[cut.start : end].rstrip()
    who = f" of {cut.key!r}" if cut.key is not None else ""
    repairs: list[str] = []
    if cut.cut == "string":
        trailing = len(snippet) - len(snippet.rstrip("\\"))
        if trailing % 2:
            snippet = snippet[:-1]  # half an escape
        escape = snippet.rfind("\\u")
        if escape >= 0 and len(snippet) - escape < 6 and snippet[escape - 1 : escape] != "\\":
            snippet = snippet[:escape]  # half a \\uXXXX escape
        repairs.append(f"cut inside the string value{who} (the partial text is kept)")
    elif cut.cut == "key":
        repairs.append("cut inside a key (the partial key is dropped)")
    elif cut.cut == "after_key":
        shown = f"the key {cut.key!r}" if cut.key is not None else "a key"
        repairs.append(f"cut after {shown} before its value (the key is dropped)")
    elif cut.cut == "number":
        number = cut.tail.rstrip(".eE+-")
        snippet = snippet[: len(snippet) - len(cut.tail)] + number
        repairs.append(f"cut inside the number {number}{who} (kept; it may be incomplete)")
    elif cut.cut == "literal":
        word = next(word for word in _LITERALS if word.startswith(cut.tail))
        snippet = snippet[: len(snippet) - len(cut.tail)] + word
        if word != cut.tail:
            repairs.append(f"cut inside the literal {cut.tail!r}{who} (completed as {word})")
    else:
        repairs.append("cut between items (nothing inside an item is lost)")
    snippet = snippet.rstrip().rstrip(",")
    still_open = cut.brackets  # trimming drops only part of the innermost level, never a bracket
    closers = ('"' if cut.cut == "string" else "") + "".join(_CLOSER[bracket] for bracket in reversed(still_open))
    try:
        # json-repair reads the closed text exactly when it is valid JSON, and mends what else
        # is broken in it (control characters in strings, stray commas) when it is not.
        from json_repair import repair_json

        value = repair_json(snippet + closers, return_objects=True)
    except Exception as exc:  # json-repair raises several types on hostile input
        logger.debug("error=<%s> | json-repair failed on a truncated answer", exc)
        return None
    wanted = dict if cut.brackets[0] == "{" else list
    if not isinstance(value, wanted) or not value or _depth(value, max_depth) > max_depth:
        return None
    repairs.append(_closed(still_open, string=cut.cut == "string"))
    logger.debug("start=<%d>, cut=<%s> | repaired a truncated json answer", cut.start, cut.cut)
    return Repaired(value, cut.start, tuple(repairs))
