"""Read the structure out of an agent's text answer: the one place text becomes structure.

`parse_answer(text)` returns a `ParsedAnswer` saying what was found and how. Every scorer,
evaluator and loader in this package goes through it, so an answer reads the same everywhere.

The forms, tried in this order (the first that finds something wins):

1. `json` / `python_literal`: the whole text (after `<think>` blocks are blanked) is a JSON
   object or array, or a Python dict, list or tuple literal (read with `ast.literal_eval`,
   never `eval`). A whole-text number is a `count`.
2. `prefixed`: the text after the **last** answer marker by position (`Final Answer:`,
   `Answer:`, `Output:`, `Result:`, `Response:` at the start of a line, markdown emphasis
   allowed, colon required; or an `<answer>...</answer>` tag), read with steps 1, 3, 4, 5.
3. `fenced`: the last markdown fenced block (any language tag) whose content holds a structure.
4. `embedded`: a structure inside prose. Candidates come from one bounded balanced-bracket scan;
   the one ending last wins (a self-corrected draft is scored on its correction), outer before
   inner. `{`/`[` candidates beat `(` ones, so parenthetical prose never hides a final object.
   A fenced block wins unless an embedded structure ends after it.
5. `count`: a number that is clearly the answer: the whole text, a labelled number
   (`The answer is 34.`, `count: 12`), or a number alone on the last non-empty line. Prose with
   one unlabelled number ("failed in Step 1") is not a count.
6. `none`: nothing found; `message` says why.

An answer cut off inside a JSON object or array (a model out of output tokens) is recognised by
`structsim_nb.repair` and read as form `repaired`: the value is what json-repair makes of the
cut text once a partial key or a dangling sign is dropped, `repairs` says what was repaired, and
it wins over any fragment found inside the cut structure (or before it). A repaired answer is
never reported as a clean `json` one.

Safety: no regular expression here can backtrack catastrophically (none nests quantifiers),
the bracket scan is one pass over the special characters, `ast.literal_eval` only sees
snippets under `max_literal_chars` whose bracket depth is under `max_depth`, the number of
candidates tried and the characters handed to the literal parsers are both capped, and text
over `max_chars` is refused (after one attempt at reading it whole as JSON, which is linear).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from .repair import repair_truncated

logger = logging.getLogger(__name__)

__all__ = ["FORMS", "ParsedAnswer", "parse_answer", "strip_think"]

#: Every value `ParsedAnswer.form` can take.
FORMS: tuple[str, ...] = ("json", "python_literal", "fenced", "prefixed", "embedded", "count", "repaired", "none")

MAX_CHARS = 1_000_000
MAX_LITERAL_CHARS = 200_000
MAX_DEPTH = 100
_MAX_ATTEMPTS = 256
_SNIPPET_CHARS = 500

_MARKERS = ("final answer", "answer", "output", "result", "response")
# Special characters of the bracket scan; everything else is skipped by the regex engine.
_SPECIAL = re.compile(r"[{}\[\]()\"'\\\n]")
_BRACKETS = re.compile(r"[{}\[\]()]")
_OPEN_FOR = {"}": "{", "]": "[", ")": "("}
_NUMBER = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_WHOLE_NUMBER = re.compile(rf"\s*({_NUMBER})\s*")
_LABELLED = re.compile(rf"\b(?:final answer|answer|count|total|result)\s*(?:is|was|:|=)\s*(?:\*+\s*)?({_NUMBER})", re.I)
# A last line that is a number, optionally labelled (AssetOpsBench PR #495: `Final Answer 34`, `count: 7`).
_LAST_LINE_NUMBER = re.compile(
    rf"[ \t*]*(?:(?:final answer|answer|count|result|total)[ \t*]*(?:is|:)?[ \t*]*)?({_NUMBER})[ \t*]*\.?[ \t]*", re.I
)


@dataclass(frozen=True)
class ParsedAnswer:
    """What `parse_answer` found in a text answer, and how.

    Attributes:
        form: How the value was located; one of `FORMS`. `none` means nothing was found.
        value: The structure as plain JSON types (dict, list, int, float, str, bool, None):
            tuples become lists and non-string dict keys become strings. A number for `count`.
            None when `form` is `none`.
        syntax: The grammar that read `value`: `json`, `python_literal` or `number`; None
            when nothing was found.
        span: `(start, end)` offsets of the parsed snippet in the original text; None when
            nothing was found.
        snippet: The parsed text, cut to 500 characters (with a trailing `...`) for display.
        message: Why nothing was found when `form` is `none`; otherwise a short note on where
            the value came from (for `repaired`, what was repaired).
        repairs: For form `repaired`, what was repaired, in words (`cut inside the string
            value of 'Agency' (the partial text is kept)`, `closed 2 arrays and 1 object`);
            empty otherwise.
    """

    form: str
    value: Any = None
    syntax: str | None = None
    span: tuple[int, int] | None = None
    snippet: str = ""
    message: str = ""
    repairs: tuple[str, ...] = ()

    @property
    def found(self) -> bool:
        """Whether a structure or count was found (`form != "none"`)."""
        return self.form != "none"


def parse_answer(
    text: str,
    *,
    max_chars: int = MAX_CHARS,
    max_depth: int = MAX_DEPTH,
    max_literal_chars: int = MAX_LITERAL_CHARS,
) -> ParsedAnswer:
    """Find the structure (or count) an agent's text answer gives.

    Args:
        text: The answer text. Must be a `str`.
        max_chars: Longest text searched, default 1,000,000 characters. Longer text is still
            tried whole as JSON (linear in C); otherwise it gets form `none` with a message.
        max_depth: Deepest nesting accepted, default 100. Deeper values are refused, because
            every reader after this one recurses.
        max_literal_chars: Longest snippet handed to `ast.literal_eval`, default 200,000.

    Returns:
        A `ParsedAnswer`; never raises on any string.

    Raises:
        TypeError: If `text` is not a `str`.

    Examples:
        >>> parse_answer('Final Answer: {"repair": 13}').form
        'prefixed'
        >>> parse_answer("[('Engines', 5), ('Lines', 2)]").value
        [['Engines', 5], ['Lines', 2]]
        >>> parse_answer("The answer is 34.").value
        34
        >>> parse_answer("no idea").form
        'none'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}. Pass the answer text, or score a dict as is")
    limits = _Limits(max_depth=max_depth, max_literal_chars=max_literal_chars)
    if not text.strip():
        return ParsedAnswer("none", message="the answer is empty")
    if len(text) > max_chars:
        whole = _whole(text, 0, len(text), limits, literal=False)
        if whole is not None:
            return whole
        return ParsedAnswer(
            "none",
            message=f"the answer is {len(text):,} characters and not one JSON value; the parser searches at most "
            f"{max_chars:,} (pass max_chars= to raise the limit)",
        )
    text = _blank_think(text)
    result = (
        _whole(text, 0, len(text), limits)
        or _prefixed(text, limits)
        or _fenced_or_embedded(text, 0, len(text), limits)
        or _count(text, 0, len(text))
    )
    repaired = _repaired(text, result, max_depth)
    result = repaired or result
    if result is not None:
        logger.debug("form=<%s>, syntax=<%s> | parsed answer", result.form, result.syntax)
        return result
    if limits.refused:
        reason = f"; {limits.refused}"
    else:
        reason = ""
    return ParsedAnswer(
        "none",
        message=f"no JSON or Python structure, fenced block, answer marker or count found in {len(text):,} "
        f"characters{reason}",
    )


@dataclass
class _Limits:
    max_depth: int
    max_literal_chars: int
    attempts: int = 0
    chars: int = 0
    refused: str = ""

    def allow(self, size: int) -> bool:
        """Spend one parse attempt of `size` characters, or refuse once the budget is gone."""
        budget = 4 * MAX_CHARS
        if self.attempts >= _MAX_ATTEMPTS or self.chars + size > budget:
            self.refused = self.refused or f"stopped after {self.attempts} candidate snippets (the parse budget)"
            return False
        self.attempts += 1
        self.chars += size
        return True


def _repaired(text: str, found: ParsedAnswer | None, max_depth: int) -> ParsedAnswer | None:
    """The truncated JSON answer repaired, unless what was found is complete and not inside it."""
    if found is not None and found.form in ("json", "python_literal"):
        return None  # the whole text parsed: nothing was cut
    fixed = repair_truncated(text, max_depth=max_depth)
    if fixed is None or (found is not None and found.span is not None and found.span[0] < fixed.start < found.span[1]):
        return None
    parsed = _result("repaired", text, fixed.start, len(text.rstrip()), fixed.value, "json", fixed.message)
    return dataclasses.replace(parsed, repairs=fixed.repairs)


def _result(form: str, text: str, start: int, end: int, value: Any, syntax: str, message: str) -> ParsedAnswer:
    snippet = text[start : min(end, start + _SNIPPET_CHARS)]
    if end - start > _SNIPPET_CHARS:
        snippet += "..."
    return ParsedAnswer(form, value, syntax, (start, end), snippet, message)


def strip_think(text: str) -> str:
    """`text` without its closed `<think ...>...</think>` blocks, stripped (as AssetOpsBench does).

    An unclosed `<think>` is kept. Linear time: one `find` per block, no backtracking.

    Examples:
        >>> strip_think("<think>draft {'a': 1}</think> {'a': 2} ")
        "{'a': 2}"
    """
    return _blank_think(text, blank=False).strip()


def _think_spans(text: str) -> list[tuple[int, int]]:
    """`(start, end)` of each closed `<think\\b[^>]*>...</think>` block, in order."""
    lower = text.lower()
    spans: list[tuple[int, int]] = []
    position = 0
    while True:
        start = lower.find("<think", position)
        if start < 0:
            break
        after = lower[start + 6 : start + 7]
        if after and (after.isalnum() or after == "_"):
            position = start + 6
            continue
        tag_end = lower.find(">", start)
        close = lower.find("</think>", tag_end) if tag_end >= 0 else -1
        if close < 0:
            break
        spans.append((start, close + len("</think>")))
        position = close + len("</think>")
    return spans


def _blank_think(text: str, *, blank: bool = True) -> str:
    """Replace each closed `<think ...>...</think>` block with spaces (keeping offsets and newlines), or drop it."""
    spans = _think_spans(text)
    if not spans:
        return text
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces.append(text[position:start])
        if blank:
            pieces.append("".join("\n" if char == "\n" else " " for char in text[start:end]))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


_JSON_SCALARS = frozenset({str, bool, int, float, type(None)})


def _plain(value: Any, depth: int, max_depth: int) -> tuple[bool, Any]:
    """`value` as plain JSON types, or `(False, None)` for sets, bytes, complex or too deep.

    What `json.loads` returns is plain already: it comes back as the same object after one
    walk (the depth check), not as a copy; only a literal's tuples and non-string keys are rebuilt.
    """
    if depth > max_depth:
        return False, None
    kind = type(value)
    if kind in _JSON_SCALARS:
        return True, value
    if depth + 1 > max_depth and kind in (dict, list) and value:  # its items would be too deep
        return False, None
    if kind is dict and all(type(key) is str for key in value):
        for item in value.values():
            if type(item) not in _JSON_SCALARS and _plain(item, depth + 1, max_depth)[1] is not item:
                return _plain_copy(value, depth, max_depth)
        return True, value
    if kind is list:
        for item in value:
            if type(item) not in _JSON_SCALARS and _plain(item, depth + 1, max_depth)[1] is not item:
                return _plain_copy(value, depth, max_depth)
        return True, value
    return _plain_copy(value, depth, max_depth)


def _plain_copy(value: Any, depth: int, max_depth: int) -> tuple[bool, Any]:
    """`_plain` for values that need rebuilding (tuples, non-string keys) or refusing."""
    if isinstance(value, (str, bool, int, float)) or value is None:
        return True, value
    if isinstance(value, (list, tuple)):
        items = []
        for item in value:
            ok, plain = _plain(item, depth + 1, max_depth)
            if not ok:
                return False, None
            items.append(plain)
        return True, items
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not (isinstance(key, (str, int, float, bool)) or key is None):
                return False, None
            ok, plain = _plain(item, depth + 1, max_depth)
            if not ok:
                return False, None
            out[key if isinstance(key, str) else json.dumps(key)] = plain
        return True, out
    return False, None


def _bracket_depth(snippet: str, limit: int) -> int:
    """Upper bound of the bracket nesting in `snippet` (brackets in strings count too); stops past `limit`."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(snippet):
        if match.group() in "{[(":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                break
        else:
            depth = max(depth - 1, 0)
    return deepest


def _literal(snippet: str, limits: _Limits, *, literal: bool = True) -> tuple[Any, str] | None:
    """Read `snippet` as JSON, then as a Python literal; `(value, syntax)` or None."""
    try:
        value = json.loads(snippet)
        syntax = "json"
    except (ValueError, RecursionError):
        if not literal:
            return None
        if len(snippet) > limits.max_literal_chars:
            limits.refused = limits.refused or f"a {len(snippet):,}-character snippet is over the literal limit"
            return None
        if _bracket_depth(snippet, limits.max_depth) > limits.max_depth:
            limits.refused = limits.refused or f"a snippet nests deeper than {limits.max_depth} levels"
            return None
        try:
            value = ast.literal_eval(snippet.strip())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        syntax = "python_literal"
    ok, plain = _plain(value, 0, limits.max_depth)
    if not ok:
        if isinstance(value, (dict, list, tuple)):
            limits.refused = limits.refused or f"a value nests deeper than {limits.max_depth} levels or is not JSON"
        return None
    return plain, syntax


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _whole(text: str, start: int, end: int, limits: _Limits, *, literal: bool = True) -> ParsedAnswer | None:
    """The region read whole: a structure (`json`/`python_literal`) or a number (`count`)."""
    snippet = text[start:end]
    stripped = snippet.strip()
    if not stripped or stripped[0] not in "{[(-0123456789.":
        return None
    lead = len(snippet) - len(snippet.lstrip())
    s, e = start + lead, start + lead + len(stripped)
    if stripped[0] not in "{[(":
        match = _WHOLE_NUMBER.fullmatch(stripped)
        if match is None:
            return None
        return _result("count", text, s, e, _number(match.group(1)), "number", "the whole answer is a number")
    parsed = _literal(stripped, limits, literal=literal)
    if parsed is None or not isinstance(parsed[0], (dict, list)):
        return None
    value, syntax = parsed
    return _result(syntax, text, s, e, value, syntax, f"the whole answer is a {syntax.replace('_', ' ')}")


def _number(token: str) -> int | float:
    token = token.replace(",", "")
    return float(token) if "." in token else int(token)


def _prefixed(text: str, limits: _Limits) -> ParsedAnswer | None:
    """The region after the last answer marker, read as a structure or count."""
    start, end, marker = _last_marker(text)
    if start < 0:
        return None
    found = (
        _whole(text, start, end, limits) or _fenced_or_embedded(text, start, end, limits) or _count(text, start, end)
    )
    if found is None:
        return None
    if found.form == "count":
        return ParsedAnswer("count", found.value, found.syntax, found.span, found.snippet, f"a number after {marker}")
    return ParsedAnswer("prefixed", found.value, found.syntax, found.span, found.snippet, f"the text after {marker}")


def _last_marker(text: str) -> tuple[int, int, str]:
    """`(start, end, marker)` of the text after the last answer marker by position, or `(-1, -1, "")`."""
    best = (-1, -1, "")
    lower = text.lower()
    tag = lower.rfind("<answer>")
    if tag >= 0:
        close = lower.find("</answer>", tag)
        best = (tag + len("<answer>"), close if close >= 0 else len(text), "<answer>")
    offset = 0
    for line in text.splitlines(keepends=True):
        line_start = offset
        offset += len(line)
        if line_start < best[0]:
            continue
        body = line.lstrip(" \t*#>_-")
        head = body[:16].lower()
        for marker in _MARKERS:
            if head.startswith(marker):
                rest = body[len(marker) :]
                after = rest.lstrip(" \t*_")
                if after.startswith(":"):
                    colon = line_start + (len(line) - len(body)) + len(marker) + (len(rest) - len(after))
                    best = (colon + 1, len(text), f"'{body[: len(marker)]}:'")
                break
    return best


def _fences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Content spans of the closed ``` blocks in the region, in order."""
    marks: list[int] = []
    position = start
    while True:
        found = text.find("```", position, end)
        if found < 0:
            break
        marks.append(found)
        position = found + 3
    blocks = []
    for open_at, close_at in zip(marks[0::2], marks[1::2], strict=False):
        newline = text.find("\n", open_at + 3, close_at)
        tag = text[open_at + 3 : newline].strip() if newline >= 0 else " "
        is_tag = all(char.isalnum() or char in "+-._" for char in tag)  # `json`, `python`, `c++`, or none
        blocks.append((newline + 1 if is_tag else open_at + 3, close_at))
    return blocks


def _fenced_or_embedded(text: str, start: int, end: int, limits: _Limits) -> ParsedAnswer | None:
    """The last fenced structure, unless an embedded structure ends after its fence."""
    fenced: ParsedAnswer | None = None
    fence_end = start
    for content_start, content_end in reversed(_fences(text, start, end)):
        found = _whole(text, content_start, content_end, limits) or _embedded(text, content_start, content_end, limits)
        if found is not None and found.form != "count":
            fenced = ParsedAnswer(
                "fenced", found.value, found.syntax, found.span, found.snippet, "the last fenced block with a structure"
            )
            fence_end = content_end + 3
            break
    embedded = _embedded(text, fence_end, end, limits)
    return embedded or fenced


def _embedded(text: str, start: int, end: int, limits: _Limits) -> ParsedAnswer | None:
    """The last structure in the region that parses, found with one bounded bracket scan."""
    structural, parens = _scan(text, start, end)
    for candidates, wanted in ((structural, (dict, list)), (parens, (list,))):
        # Last-ending first; for the same end, the outer (earlier start) first.
        for s, e in sorted(candidates, key=lambda span: (-span[1], span[0])):
            if not limits.allow(e - s):
                return None
            parsed = _literal(text[s:e], limits)
            if parsed is not None and isinstance(parsed[0], wanted):
                return _result("embedded", text, s, e, parsed[0], parsed[1], "the last structure in the text")
    return None


def _scan(text: str, start: int, end: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Balanced `{...}`/`[...]` spans and `(...)` spans of the region, in one pass.

    Quotes count only inside `{`/`[` (prose apostrophes cannot swallow the text), a single
    quote opens only after a non-word character, and no string spans a line. A closer that
    does not match the innermost opener closes the nearest matching one within 64 levels,
    discarding the openers above it, or is ignored.
    """
    stack: list[tuple[str, int]] = []
    structural: list[tuple[int, int]] = []
    parens: list[tuple[int, int]] = []
    quote = ""
    skip_to = -1
    for match in _SPECIAL.finditer(text, start, end):
        at = match.start()
        if at < skip_to:
            continue
        char = match.group()
        if char == "\n":
            quote = ""
            continue
        if quote:
            if char == "\\":
                skip_to = at + 2
            elif char == quote:
                quote = ""
            continue
        if char in "\"'":
            if stack and stack[-1][0] in "{[":
                if char == '"' or at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_"):
                    quote = char
            continue
        if char == "\\":
            continue
        if char in "{[(":
            stack.append((char, at))
            continue
        opener = _OPEN_FOR[char]
        for depth in range(len(stack) - 1, max(len(stack) - 65, -1), -1):
            if stack[depth][0] == opener:
                open_at = stack[depth][1]
                del stack[depth:]
                (parens if opener == "(" else structural).append((open_at, at + 1))
                break
    return structural, parens


def _count(text: str, start: int, end: int) -> ParsedAnswer | None:
    """A number that is clearly the answer: labelled, or alone on the last non-empty line."""
    region_end = end
    last_line = ""
    line_start = start
    while region_end > start:
        line_start = text.rfind("\n", start, region_end) + 1
        line_start = max(line_start, start)
        last_line = text[line_start:region_end]
        if last_line.strip():
            break
        region_end = line_start - 1
    if last_line.strip() and len(last_line) <= 200:
        match = _LAST_LINE_NUMBER.fullmatch(last_line)
        if match is not None:
            s, e = line_start + match.start(1), line_start + match.end(1)
            return _result("count", text, s, e, _number(match.group(1)), "number", "a number alone on the last line")
    labelled = None
    for match in _LABELLED.finditer(text, start, end):
        after = text[match.end(1) : match.end(1) + 1]
        if not (after.isalnum() or after == "_"):
            labelled = match
    if labelled is None:
        return None
    s, e = labelled.start(1), labelled.end(1)
    return _result("count", text, s, e, _number(labelled.group(1)), "number", "a labelled number")
