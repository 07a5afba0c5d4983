"""Recognise a Python literal in linear time, without building it: what `ast.literal_eval` would accept.

`scan_literal(text, start, end)` reads one bracketed value at `text[start:end]` (a list, tuple or
dict of strings, numbers, `True`/`False`/`None` and such containers), as `ast.literal_eval` followed
by `answers`' plain-JSON check would: it accepts exactly the values that check keeps. So it rejects
sets, bytes, f-strings, complex numbers, `...`, non-scalar dict keys, decimal integers longer than
Python's conversion limit (`sys.get_int_max_str_digits()`), and any NUL or lone surrogate character
(which `compile()` refuses).

It exists so `parse_answer` can test thousands of nested candidate snippets without parsing each
one from scratch: it stops at the first token that cannot continue a literal, and reports that
position and every container it completed on the way. The grammar is LL(1) and each token is read
once by a regular expression without nested ambiguous quantifiers, so one call costs
O(`stop - start`): linear in the characters read, with no recursion (any nesting depth is safe).
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from dataclasses import dataclass, field

__all__ = ["LiteralScan", "scan_literal"]

# Whitespace, comments and line continuations between tokens (inside brackets newlines are free).
# Each alternative starts with a different character, so the loop never has two ways to match.
# A comment runs to the line end (the lookahead stops a pattern around it from ending it early).
_COMMENT = r"#[^\r\n\x00\ud800-\udfff]*(?![^\r\n])"
_GAP = re.compile(rf"(?:[ \t\f\r\n]|{_COMMENT}|\\(?:\r\n|\r|\n))*")
_GAP_STARTS = frozenset(" \t\f\r\n#\\")
# The gap after the last top-level value, token by token, for `_ends_badly`.
_GAP_TOKEN = re.compile(
    rf"(?P<newline>\r\n|\r|\n)|(?P<blanks>[ \t\f]+)|(?P<comment>{_COMMENT})|(?P<continuation>\\(?:\r\n|\r|\n))"
)
# Between top-level tuple items (`[1], [2]`) a newline ends the expression, as in Python's eval mode.
_INLINE_GAP = re.compile(r"(?:[ \t\f]|\\(?:\r\n|\r|\n))*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIGITS = r"[0-9](?:_?[0-9])*"
_NUMBER = re.compile(
    rf"0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+"
    rf"|(?:(?:{_DIGITS})?\.{_DIGITS}|{_DIGITS}\.?)(?:[eE][+-]?{_DIGITS})?[jJ]?"
)
_BAD = "\x00\ud800-\udfff"  # characters compile() refuses anywhere in the source
# String bodies after the opening quote, up to and including the closing one (unrolled loops).
_BODY = {
    "'": re.compile(rf"[^'\\\r\n{_BAD}]*(?:\\(?:\r\n|[^{_BAD}])[^'\\\r\n{_BAD}]*)*'"),
    '"': re.compile(rf'[^"\\\r\n{_BAD}]*(?:\\(?:\r\n|[^{_BAD}])[^"\\\r\n{_BAD}]*)*"'),
    "'''": re.compile(rf"[^'\\{_BAD}]*(?:(?:\\[^{_BAD}]|'(?!''))[^'\\{_BAD}]*)*'''"),
    '"""': re.compile(rf'[^"\\{_BAD}]*(?:(?:\\[^{_BAD}]|"(?!""))[^"\\{_BAD}]*)*"""'),
}
_STR_PREFIXES = frozenset({"r", "u"})  # lower-cased; b (bytes) and f (f-strings) are not JSON values
_ALL_PREFIXES = frozenset({"r", "u", "b", "f", "br", "rb", "fr", "rf"})
# Escapes that can make a non-raw string a syntax error: \x, \u, \U and \N need their arguments.
_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U([0-9a-fA-F]{8})|N\{([^}]*)\}|([xuUN])|[\s\S])")
_CLOSER = {"[": "]", "(": ")", "{": "}"}
_KIND = {"[": "list", "(": "tuple", "{": "dict"}


@functools.lru_cache(maxsize=4)
def _fast_runs(int_digits: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Patterns reading a run of simple items in one regex call: `a, b, c` and `k: v, k: v`.

    A simple item is a number (no complex, no leading zeros, decimal integers within the digit
    limit), a string without backslashes (prefix `r`/`u` allowed, adjacent strings joined), or
    `True`/`False`/`None`. The runs end right after an item, so the caller goes on as after any
    value; anything else stops the run and is read token by token. Every part has one way to
    match, so a run costs time linear in its length.
    """
    gap = _GAP.pattern
    digits = r"[0-9](?:_?[0-9])*"
    repeat = f"{{0,{int_digits - 1}}}" if int_digits else "*"
    number = (
        rf"(?:(?:{digits})?\.{digits}(?:[eE][+-]?{digits})?|{digits}\.(?:[eE][+-]?{digits})?|{digits}[eE][+-]?{digits}"
        rf"|0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?0)*|[1-9](?:_?[0-9]){repeat})"
        r"(?![A-Za-z0-9_.])"
    )
    # No triple quote (read token by token), and no string, prefix or name-and-quote after the last one.
    one = rf"""(?:[rRuU](?=['"]))?(?:(?!''')'[^'\\\r\n{_BAD}]*'|(?!\"\"\")"[^"\\\r\n{_BAD}]*")"""
    string = rf"""{one}(?:{gap}{one})*(?!{gap}[A-Za-z_]*['"])"""
    item = rf"(?:[+-]{gap}{number}|{number}|{string}|(?:True|False|None)(?![A-Za-z0-9_'\"]))"
    items = re.compile(rf"{item}(?P<more>{gap},{gap}{item})*")
    pairs = re.compile(rf"{item}{gap}:{gap}{item}(?P<more>{gap},{gap}{item}{gap}:{gap}{item})*")
    return items, pairs


def _max_int_digits() -> int:
    get = getattr(sys, "get_int_max_str_digits", None)
    return int(get()) if get is not None else 0


@dataclass
class LiteralScan:
    """What `scan_literal` found.

    Attributes:
        ok: Whether `text[start:end]` is one literal `ast.literal_eval` reads to plain JSON types
            (trailing whitespace and comments allowed).
        stop: Where reading stopped: `end` when ok, else the start of the first token that cannot
            continue the literal (or `end` if the text ran out).
        kind: `dict`, `list`, `tuple` or `scalar`: the value's type when ok (a parenthesised
            single value has the inner value's kind); `""` otherwise.
        depth: The deepest container nesting reached.
        done: Every container completed while reading, as `start -> (end, kind)`.
        open: The starts of the containers still open where reading stopped: each of them holds
            the token that failed, so reading it alone fails there too.
    """

    ok: bool
    stop: int
    kind: str = ""
    depth: int = 0
    done: dict[int, tuple[int, str]] = field(default_factory=dict)
    open: frozenset[int] = frozenset()


def _valid_escapes(body: str) -> bool:
    """Whether a non-raw string body's `\\x`, `\\u`, `\\U` and `\\N{...}` escapes are all well formed."""
    if "\\" not in body:
        return True
    for match in _ESCAPE.finditer(body):
        if match.group(3):  # \x, \u, \U or \N without a valid argument
            return False
        if match.group(1) and int(match.group(1), 16) > 0x10FFFF:
            return False
        if match.group(2) is not None:
            try:
                unicodedata.lookup(match.group(2))
            except KeyError:
                return False
    return True


class _Frame:
    """One open container: its opener and start, a dict's state, the last value's kind, whether a comma was seen."""

    __slots__ = ("comma", "kind", "opener", "start", "state")

    def __init__(self, opener: str, start: int) -> None:
        self.opener = opener
        self.start = start
        self.state = "key" if opener == "{" else "value"
        self.kind = ""
        self.comma = False


class _Reader:
    """The scanner state: one pass, positions into the original text."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text
        self.pos = start
        self.end = end
        self.int_digits = _max_int_digits()

    def gap(self, *, inline: bool = False) -> None:
        if self.pos >= self.end or self.text[self.pos] not in _GAP_STARTS:
            return
        pattern = _INLINE_GAP if inline else _GAP
        match = pattern.match(self.text, self.pos, self.end)
        if match is not None:
            self.pos = match.end()

    def scalar(self, *, inline: bool) -> bool:
        """Read a string (implicit concatenation included), a number, a signed number or a name.

        `inline`: outside any bracket, where a newline ends the expression.
        """
        text, pos = self.text, self.pos
        char = text[pos]
        if char in "+-":
            self.pos = pos + 1
            self.gap(inline=inline)
            return self.pos < self.end and self.number()
        if char.isdigit() or char == ".":
            return self.number()
        if char in "'\"" or self._prefix(pos) is not None:
            return self.strings(inline=inline)
        name = _NAME.match(text, pos, self.end)
        if name is None or name.group() not in ("True", "False", "None"):
            return False
        self.pos = name.end()
        return True

    def _prefix(self, pos: int) -> str | None:
        """The lower-cased string prefix (`r`, `b`, `rb`, ...) at `pos` when a quote follows it, else None."""
        name = _NAME.match(self.text, pos, self.end)
        if name is None or name.end() >= self.end or self.text[name.end()] not in "'\"":
            return None
        prefix = name.group().lower()
        return prefix if prefix in _ALL_PREFIXES else None

    def strings(self, *, inline: bool) -> bool:
        """One or more adjacent string literals (`'a' "b"` is one string)."""
        text, end = self.text, self.end
        first = True
        while True:
            pos = self.pos
            prefix = self._prefix(pos) or ""
            if prefix:
                if prefix not in _STR_PREFIXES:
                    return False  # bytes or an f-string: not a JSON string
                pos += len(prefix)
            elif pos >= end or text[pos] not in "'\"":
                return not first
            quote = text[pos : pos + 3] if text.startswith(text[pos] * 3, pos) else text[pos]
            body = _BODY[quote].match(text, pos + len(quote), end)
            if body is None:
                return False
            if "r" not in prefix and not _valid_escapes(text[pos + len(quote) : body.end() - len(quote)]):
                return False
            self.pos = body.end()
            first = False
            self.gap(inline=inline)

    def number(self) -> bool:
        match = _NUMBER.match(self.text, self.pos, self.end)
        if match is None:
            return False
        token = match.group()
        if token[-1] in "jJ":  # complex: not a JSON value
            return False
        after = match.end()
        if after < self.end and (self.text[after].isalnum() or self.text[after] == "_"):
            return False  # 1x, 1e, 0x: an invalid literal
        if token[:2].lower() not in ("0x", "0b", "0o") and not any(char in token for char in ".eE"):
            digits = token.replace("_", "")
            if digits[0] == "0" and digits.strip("0"):
                return False  # leading zeros in a decimal integer
            if self.int_digits and len(digits) > self.int_digits:
                return False  # over Python's integer conversion limit: literal_eval raises
        self.pos = after
        return True


def _ends_badly(text: str, start: int, end: int) -> bool:
    """Whether Python's tokenizer refuses the gap `text[start:end]` after the last top-level value.

    Two endings are refused (`literal_eval("[1]\\n  ")` raises where `literal_eval("[1]\\n  \\n")` does
    not): a line continuation with nothing after it (an unexpected end), and a last line of only
    blanks with no newline after it and no comment, indented (an unexpected indent). As CPython's
    tokenizer measures that line: a form feed sets the column back to 0, continuations do not end
    the line, and the column at its first continuation, when not 0, is the line's indent.
    """
    # The last line begun by a newline that is not a continuation's: its column (-1: no such
    # line), its column at its first continuation (0: none yet), and whether a comment ends it.
    column, held, commented, continued = -1, 0, False, False
    for token in _GAP_TOKEN.finditer(text, start, end):
        kind = token.lastgroup
        continued = kind == "continuation"
        if kind == "newline":
            column, held, commented = 0, 0, False
        elif kind == "comment":
            commented = True
        elif column < 0 or commented:
            continue  # on the value's own line, or inside a comment's line
        elif continued:
            held = held or column
        else:
            blanks = token.group()
            column = len(blanks.rpartition("\f")[2]) if "\f" in blanks else column + len(blanks)
    return continued or (not commented and (held or column) > 0)


def scan_literal(text: str, start: int, end: int, *, max_depth: int = 0) -> LiteralScan:
    """Read one Python literal at `text[start:end]`; see the module docstring.

    Args:
        text: The whole text (positions are into it, so no slice is copied).
        start: Where the literal starts: at its opening bracket (or a scalar's first character).
        end: Where it must end; no token is read past it.
        max_depth: Stop (not ok) at the first opener nested deeper than this. Default 0: no limit.
            Such a stop says nothing about the containers still open (`open` is empty).

    Returns:
        A `LiteralScan`. Cost: O(`stop - start`).

    Examples:
        >>> scan_literal("x = [1, ('a', None)] and", 4, 20).ok
        True
        >>> found = scan_literal("[1, {2, 3}]", 0, 11)
        >>> found.ok, found.stop
        (False, 6)
    """
    reader = _Reader(text, start, end)
    done: dict[int, tuple[int, str]] = {}
    stack: list[_Frame] = []
    deepest = 0
    kind = ""
    top_tuple = False  # `[1], [2]` at the top level is a tuple, as literal_eval reads it

    def failed() -> LiteralScan:
        opened = frozenset(frame.start for frame in stack)
        return LiteralScan(False, min(reader.pos, end), depth=deepest, done=done, open=opened)

    while True:
        # -- one value --------------------------------------------------------------------
        reader.gap(inline=not stack)
        if reader.pos >= end:
            return failed()
        at = reader.pos
        char = text[at]
        if stack and char not in _CLOSER:
            frame = stack[-1]
            keyed = frame.opener == "{"
            if keyed == (frame.state == "key"):  # a list or tuple item, or a dict key: try a run of simple items
                run = _fast_runs(reader.int_digits)[keyed].match(text, at, end)
                if run is not None:
                    reader.pos = run.end()
                    kind = "scalar"
                    if run.group("more") is not None:
                        frame.comma = True
                    if keyed:
                        frame.state = "value"  # the run ended after a value
                    char = ""
        if not char:
            pass
        elif char in _CLOSER:
            if max_depth and len(stack) >= max_depth:
                return LiteralScan(False, at, depth=len(stack) + 1, done=done)
            stack.append(_Frame(char, at))
            deepest = max(deepest, len(stack))
            reader.pos = at + 1
            reader.gap()
            if reader.pos >= end or text[reader.pos] != _CLOSER[char]:
                continue
            reader.pos += 1  # an empty container
            stack.pop()
            kind = _KIND[char]
            done[at] = (reader.pos, kind)
        elif reader.scalar(inline=not stack):
            kind = "scalar"
        else:
            reader.pos = at
            return failed()
        # -- after a value: separators and closers ------------------------------------------
        while True:
            if not stack:
                mark = reader.pos
                reader.gap(inline=True)
                if reader.pos < end and text[reader.pos] == ",":
                    top_tuple = True
                    mark = reader.pos = reader.pos + 1
                    reader.gap(inline=True)
                    if reader.pos < end and text[reader.pos] not in "\r\n#":
                        break  # the next item
                reader.pos = mark
                reader.gap()
                if reader.pos != end or _ends_badly(text, mark, end):
                    return failed()
                return LiteralScan(True, end, "tuple" if top_tuple else kind, deepest, done)
            reader.gap()
            frame = stack[-1]
            if reader.pos >= end:
                return failed()
            char = text[reader.pos]
            if frame.state == "key":  # a dict key was just read
                if kind != "scalar" or char != ":":
                    return failed()  # a container key (unhashable, or not JSON), a set, or junk
                reader.pos += 1
                frame.state = "value"
                break
            frame.kind = kind
            closer = _CLOSER[frame.opener]
            if char == ",":
                frame.comma = True
                reader.pos += 1
                reader.gap()
                if reader.pos >= end or text[reader.pos] != closer:
                    if frame.opener == "{":
                        frame.state = "key"
                    break
                char = closer
            if char != closer:
                return failed()
            reader.pos += 1
            stack.pop()
            kind = ("tuple" if frame.comma else frame.kind) if frame.opener == "(" else _KIND[frame.opener]
            done[frame.start] = (reader.pos, kind)
