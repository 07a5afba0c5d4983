"""Read the structure out of an agent's text answer: the one place text becomes structure.

`parse_answer(text)` returns a `ParsedAnswer` saying what was found and how. Every scorer,
evaluator and loader in this package goes through it, so an answer reads the same everywhere.

The forms, tried in this order (the first that finds something wins):

1. `json` / `python_literal`: the whole text (after `<think>` blocks are blanked) is a JSON
   object or array, or a Python dict, list or tuple literal (read with `ast.literal_eval`,
   never `eval`). A whole-text number is a `count`. A text that is wholly a structure before any
   blanking is read as given: a `<think>` tag inside one of its strings is data, not a block.
2. `prefixed`: the text after the **last** answer marker by position (`Final Answer:`,
   `Answer:`, `Output:`, `Result:`, `Response:` at the start of a line, markdown emphasis
   allowed, colon required; or an `<answer>...</answer>` tag, to the last `</answer>` when the
   first one sits in a string of the answer), read with steps 1, 3, 4, 5.
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

Safety and cost: parsing never executes code (`ast.literal_eval`, never `eval`), and every step is
linear in the text. No regular expression here can backtrack on a run of input (none has two ways to
match the same characters); the think-block, marker, fence and count scans each pass over the text
once; the embedded search reads nested candidates without re-reading them (`_candidates`), within
a work budget of 8 characters read per character of text plus 100,000, and says when it stopped
early. Nesting deeper than `max_depth` and numbers longer than Python converts are refused with a
message. Text over `max_chars` is read from its end: the last `max_chars` characters are parsed,
and the result is marked `truncated` (after one attempt at reading it whole as JSON, also linear).
"""

from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from ._candidates import Budget, last_structure, read_whole
from .repair import repair_truncated

logger = logging.getLogger(__name__)

__all__ = ["FORMS", "ParsedAnswer", "answer_text", "has_think_tag", "parse_answer", "strip_think"]

#: Every value `ParsedAnswer.form` can take.
FORMS: tuple[str, ...] = ("json", "python_literal", "fenced", "prefixed", "embedded", "count", "repaired", "none")

MAX_CHARS = 1_000_000
MAX_LITERAL_CHARS = 200_000
MAX_DEPTH = 100
_SNIPPET_CHARS = 500
#: The embedded search may read this many characters per character of text, plus `_WORK_FLOOR`.
_WORK_FACTOR = 8
_WORK_FLOOR = 100_000

_MARKERS = ("final answer", "answer", "output", "result", "response")
_LONGEST_MARKER = max(map(len, _MARKERS))
_THINK_OPEN = re.compile(r"<think(?![A-Za-z0-9_])", re.I)
_THINK_CLOSE = re.compile(r"</think>", re.I)
_ANSWER_OPEN = re.compile(r"<answer>", re.I)
_ANSWER_CLOSE = re.compile(r"</answer>", re.I)
_NUMBER = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_WHOLE_NUMBER = re.compile(rf"\s*({_NUMBER})\s*")
#: The first character `str.strip` keeps (`\s` is `str.isspace` for `str` patterns).
_NOT_SPACE = re.compile(r"\S")
#: Trailing space `_whole` steps over one character at a time before it measures the rest in C.
_FEW_SPACES = 32
_LABELLED = re.compile(rf"\b(?:final answer|answer|count|total|result)\s*(?:is|was|:|=)\s*(?:\*+\s*)?({_NUMBER})", re.I)
# A last line that is a number, optionally labelled (AssetOpsBench PR #495: `Final Answer 34`, `count: 7`).
# Each run of spaces is read by one quantifier (`(?:is|:)` and `.` start the optional parts), so a
# fullmatch is linear in the line.
_LAST_LINE_NUMBER = re.compile(
    r"[ \t*]*(?:(?:final answer|answer|count|result|total)[ \t*]*(?:(?:is|:)[ \t*]*)?)?"
    rf"({_NUMBER})[ \t*]*(?:\.[ \t]*)?",
    re.I,
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
            the value came from (for `repaired`, what was repaired). Either way it ends with the
            reason a part of the text was not read, when one was (`truncated`, a refused snippet,
            the parse budget).
        repairs: For form `repaired`, what was repaired, in words (`cut inside the string
            value of 'Agency' (the partial text is kept)`, `closed 2 arrays and 1 object`);
            empty otherwise.
        truncated: Whether only part of the text was read: it was longer than `max_chars`, so
            only its last `max_chars` characters were parsed.
    """

    form: str
    value: Any = None
    syntax: str | None = None
    span: tuple[int, int] | None = None
    snippet: str = ""
    message: str = ""
    repairs: tuple[str, ...] = ()
    truncated: bool = False

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
    exact_numbers: bool = True,
) -> ParsedAnswer:
    """Find the structure (or count) an agent's text answer gives.

    Args:
        text: The answer text. Must be a `str`.
        max_chars: Longest text searched, default 1,000,000 characters. Longer text is still
            tried whole as JSON (linear in C); otherwise it gets form `none` with a message.
        max_depth: Deepest nesting accepted, default 100. Deeper values are refused, because
            every reader after this one recurses.
        max_literal_chars: Longest snippet handed to `ast.literal_eval`, default 200,000.
        exact_numbers: Read every JSON integer exactly, default True. False is for a caller that
            needs only what was found, where and of what kind (`json_match.contains_json`): a
            JSON integer past 64 bits inside a structure may then be a float (the C reader's
            reading, without the check for long digit runs, a tenth of the time on a long answer).
            The form, syntax, span and message are the same, and so is every other value, with
            two exceptions in text that also holds a run of 19 or more digits: a number of more
            than 768 significant digits exactly halfway between two floats may round the other
            way, and text nested about 990 to 1,024 levels (deeper than 3.10's and 3.11's
            `json.loads` reads) is refused by the depth limit with "a value nests deeper" where
            the exact reading says "a snippet nests deeper" (with `max_depth` that high, it is
            read).

    Returns:
        A `ParsedAnswer`; never raises on any string.

    Cost: linear in `len(text)`, whatever it holds. Each scan (think blocks, markers, fences,
    counts, brackets) passes over the text once; candidate structures are read at most about
    8 characters per character of text (plus 100,000), and the result's message says when that
    budget stopped the search. Only the last `max_chars` characters are read (`truncated`).

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
    if not text.strip():
        return ParsedAnswer("none", message="the answer is empty")
    if len(text) > max_chars:
        return _parse_tail(
            text,
            max_chars=max_chars,
            max_depth=max_depth,
            max_literal_chars=max_literal_chars,
            exact_numbers=exact_numbers,
        )
    budget = Budget(max_depth, max_literal_chars, _WORK_FACTOR * len(text) + _WORK_FLOOR, exact_numbers=exact_numbers)
    # A structure that is the whole text holds any `<think>` tag in one of its strings: data, not a
    # think block (`{"note": "<think>x</think>"}` keeps its value), so it is read before blocks are blanked.
    # (Its own budget: `budget` remembers what each region read, and the blanked text has the same regions.)
    whole = None
    if has_think_tag(text):
        fresh = Budget(max_depth, max_literal_chars, budget.remaining, exact_numbers=exact_numbers)
        whole = _whole(text, 0, len(text), fresh)
    if whole is not None and whole.form != "count":
        logger.debug("form=<%s>, syntax=<%s> | parsed answer", whole.form, whole.syntax)
        return whole
    text = _blank_think(text)
    result = (
        _whole(text, 0, len(text), budget)
        or _prefixed(text, budget)
        or _fenced_or_embedded(text, 0, len(text), budget)
        or _count(text, 0, len(text), budget)
    )
    result = _repaired(text, result, max_depth) or result
    if result is not None:
        logger.debug("form=<%s>, syntax=<%s> | parsed answer", result.form, result.syntax)
        return result
    reason = f"; {budget.refused}" if budget.refused else ""
    return ParsedAnswer(
        "none",
        message=f"no JSON or Python structure, fenced block, answer marker or count found in {len(text):,} "
        f"characters{reason}",
    )


def _parse_tail(
    text: str, *, max_chars: int, max_depth: int, max_literal_chars: int, exact_numbers: bool
) -> ParsedAnswer:
    """Text over `max_chars`: read whole as JSON (linear, in C), else parse its last `max_chars` characters."""
    stripped = text.strip()
    if stripped[0] in "{[":
        budget = Budget(max_depth, max_literal_chars, 0, exact_numbers=exact_numbers)
        lead = len(text) - len(text.lstrip())
        whole = read_whole(text, lead, lead + len(stripped), budget, literal=False)
        if whole is not None:
            value, syntax = whole
            message = f"the whole answer is {syntax}"
            return _result(syntax, text, lead, lead + len(stripped), value, syntax, message)
    offset = len(text) - max_chars
    tail = parse_answer(
        text[offset:],
        max_chars=max_chars,
        max_depth=max_depth,
        max_literal_chars=max_literal_chars,
        exact_numbers=exact_numbers,
    )
    note = f"only the last {max_chars:,} of {len(text):,} characters were read (pass max_chars= to read more)"
    span = (tail.span[0] + offset, tail.span[1] + offset) if tail.span is not None else None
    return replace(tail, span=span, message=f"{tail.message}; {note}", truncated=True)


def _result(form: str, text: str, start: int, end: int, value: Any, syntax: str, message: str) -> ParsedAnswer:
    snippet = text[start : min(end, start + _SNIPPET_CHARS)]
    if end - start > _SNIPPET_CHARS:
        snippet += "..."
    return _answer(form, value, syntax, (start, end), snippet, message)


def _answer(
    form: str, value: Any, syntax: str | None, span: tuple[int, int] | None, snippet: str, message: str
) -> ParsedAnswer:
    """`ParsedAnswer(form, value, syntax, span, snippet, message)` built without the frozen `__init__`.

    A frozen dataclass sets each field through `object.__setattr__`; a call builds up to three of
    these on its way to the answer. The object is the same in every respect (fields, equality,
    hash, repr, immutability afterwards).
    """
    answer = object.__new__(ParsedAnswer)
    answer.__dict__.update(
        form=form, value=value, syntax=syntax, span=span, snippet=snippet, message=message, repairs=(), truncated=False
    )
    return answer


def _repaired(text: str, found: ParsedAnswer | None, max_depth: int) -> ParsedAnswer | None:
    """The truncated JSON answer repaired, unless what was found is complete and not inside it.

    `repair_truncated` scans the text once (linear); it finds nothing unless an object or array
    is still open where the text ends.
    """
    if found is not None and found.form in ("json", "python_literal"):
        return None  # the whole text parsed: nothing was cut
    if found is not None and _no_bracket_outside(text, found):
        return None
    fixed = repair_truncated(text, max_depth=max_depth)
    if fixed is None or (found is not None and found.span is not None and found.span[0] < fixed.start < found.span[1]):
        return None
    parsed = _result("repaired", text, fixed.start, len(text.rstrip()), fixed.value, "json", fixed.message)
    return replace(parsed, repairs=fixed.repairs)


def _no_bracket_outside(text: str, found: ParsedAnswer) -> bool:
    """Whether no `{` or `[` lies outside the complete JSON `found` spans, so no truncation can be used.

    A structure still open where the text ends starts at a bracket; inside a complete JSON value
    the truncation scan finds nothing open, or one that `_repaired` drops (it starts inside the
    span). So the scan, linear but not free on a long answer, is skipped.
    """
    if found.syntax != "json" or found.span is None:
        return False
    start, end = found.span
    return all(text.find(opener, *region) < 0 for opener in "{[" for region in ((0, start), (end, len(text))))


def has_think_tag(text: str) -> bool:
    """Whether `text` holds a `<think` opening tag (any case, as `parse_answer` matches it), so that
    `parse_answer` may blank part of it; False means it reads the text as given."""
    return "<" in text and _THINK_OPEN.search(text) is not None  # (`in`: memchr, far faster than the search)


def strip_think(text: str) -> str:
    """`text` without its closed `<think ...>...</think>` blocks, stripped (as AssetOpsBench does).

    An unclosed `<think>` is kept. Linear time: one `find` per block, no backtracking.

    Examples:
        >>> strip_think("<think>draft {'a': 1}</think> {'a': 2} ")
        "{'a': 2}"
    """
    return _blank_think(text, blank=False).strip()


def answer_text(text: str) -> str:
    """The text an answer gives once what surrounds it is taken away: for an answer that holds no
    structure or count (`parse_answer` finds nothing), the plain value it states.

    Closed `<think>` blocks are dropped; then the region after the last answer marker is taken, as
    `parse_answer` finds it (`Final Answer: pump` -> `pump`; `<answer>pump</answer>` -> `pump`; a
    marker needs its colon); then the content of the last fenced block in that region, if there is
    one (a fence with any language tag). The result is stripped; text with none of these is
    returned stripped. Linear in the text, as `parse_answer`.

    Raises:
        TypeError: If `text` is not a `str`.

    Examples:
        >>> answer_text("Thinking done.\\nFinal Answer: pump"), answer_text("```\\nChiller 6\\n```")
        ('pump', 'Chiller 6')
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    text = _blank_think(text, blank=False)
    budget = Budget(MAX_DEPTH, MAX_LITERAL_CHARS, _WORK_FACTOR * len(text) + _WORK_FLOOR)
    start, end, _ = _last_marker(text, budget)
    if start < 0:
        start, end = 0, len(text)
    blocks = _fences(text, start, end, budget)
    if blocks:
        start, end = blocks[-1]
    return text[start:end].strip()


def _think_spans(text: str) -> list[tuple[int, int]]:
    """`(start, end)` of each closed `<think\\b[^>]*>...</think>` block, in order (case-insensitive)."""
    spans: list[tuple[int, int]] = []
    if "<" not in text:  # every tag starts with one; memchr finds that far faster than the search
        return spans
    position = 0
    while True:
        opened = _THINK_OPEN.search(text, position)
        if opened is None:
            break
        tag_end = text.find(">", opened.end())
        closed = _THINK_CLOSE.search(text, tag_end) if tag_end >= 0 else None
        if closed is None:
            break
        spans.append((opened.start(), closed.end()))
        position = closed.end()
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


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _whole(text: str, start: int, end: int, budget: Budget) -> ParsedAnswer | None:
    """The region read whole: a structure (`json`/`python_literal`) or a number (`count`).

    The region's ends are found without copying it (a long answer's block was copied three times).
    """
    if start < end and not text[start].isspace():
        s = start
    else:
        first = _NOT_SPACE.search(text, start, end)
        if first is None:
            return None
        s = first.start()
    if text[s] not in "{[(-0123456789.":
        return None
    e = end
    for _ in range(_FEW_SPACES):
        if not text[e - 1].isspace():  # (text[s] is not: e stays past s)
            break
        e -= 1
    else:  # a long run of trailing space: measured in C
        e = s + len(text[s:e].rstrip())
    if text[s] not in "{[(":
        match = _WHOLE_NUMBER.fullmatch(text, s, e)
        if match is None:
            return None
        number = _number(match.group(1), budget)
        if number is None:
            return None
        return _result("count", text, s, e, number, "number", "the whole answer is a number")
    found = read_whole(text, s, e, budget)
    if found is None:
        return None
    value, syntax = found
    return _result(syntax, text, s, e, value, syntax, f"the whole answer is a {syntax.replace('_', ' ')}")


def _number(token: str, budget: Budget) -> int | float | None:
    """The number a matched token spells; None (with the reason noted) past Python's integer digit limit."""
    token = token.replace(",", "")
    if "." in token:
        return float(token)
    try:
        return int(token)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        budget.refuse(f"a {len(token):,}-digit number is longer than Python converts")
        return None


def _prefixed(text: str, budget: Budget) -> ParsedAnswer | None:
    """The region after the last answer marker, read as a structure or count.

    A marker inside a structure that parses is part of one of its strings (`{"note": "<answer>"}`,
    a Python string spanning lines), not a marker: the structure is the answer, as if no marker
    were there, so it is `prefixed` when a marker stands before it (`_after_an_earlier_marker`).
    Only a marker after more opening brackets than closing ones can be inside one, so only then
    is the whole text searched for the structure (see `_opened_before`).
    """
    start, end, marker = _last_marker(text, budget)
    if start < 0:
        return None
    if _opened_before(text, start):
        with budget.ahead():
            outer = _fenced_or_embedded(text, 0, len(text), budget)
        if outer is not None and outer.span is not None and outer.span[0] < start < outer.span[1]:
            return _after_an_earlier_marker(text, outer, budget) or outer
    found = _whole(text, start, end, budget) or _whole_to_a_later_close(text, start, end, marker, budget)
    found = found or _fenced_or_embedded(text, start, end, budget) or _count(text, start, end, budget)
    if found is None:
        return None
    if found.form == "count":
        return _answer("count", found.value, found.syntax, found.span, found.snippet, f"a number after {marker}")
    return _answer("prefixed", found.value, found.syntax, found.span, found.snippet, f"the text after {marker}")


def _after_an_earlier_marker(text: str, outer: ParsedAnswer, budget: Budget) -> ParsedAnswer | None:
    """`outer` (a structure holding the last marker in a string) as `prefixed`, when a marker before it opens a
    region that holds it: a marker line (its region runs to the end), or an `<answer>` tag not closed before it.

    That is how the text reads with the marker in the string taken away: `Final answer: {"a": "x\\u2028Answer: y"}`
    (JSON allows a raw line separator in a string) is the object after `Final answer:`. The search runs on the text
    before the structure only, once, and only when a marker was found inside a structure.
    """
    assert outer.span is not None  # (the caller checked)
    begin = outer.span[0]
    start, _, marker = _last_marker(text[:begin], budget)
    if start < 0 or (marker == "<answer>" and _ANSWER_CLOSE.search(text, start, begin) is not None):
        return None
    return _answer("prefixed", outer.value, outer.syntax, outer.span, outer.snippet, f"the text after {marker}")


def _whole_to_a_later_close(text: str, start: int, end: int, marker: str, budget: Budget) -> ParsedAnswer | None:
    """After `<answer>`, the region to the last `</answer>` read whole, when the first one closed it too early.

    A `</answer>` inside one of the answer's strings (`{"note": "</answer>"}`) ends the tag's region
    inside the structure; the region to the last `</answer>` after it then reads whole, and is the
    answer. None when there is no later `</answer>` or that region is not one structure either.
    """
    if marker != "<answer>" or end >= len(text):
        return None
    closes = deque(_ANSWER_CLOSE.finditer(text, end + 1), maxlen=1)
    return _whole(text, start, closes[0].start(), budget) if closes else None


def _opened_before(text: str, at: int) -> bool:
    """Whether a structure may be open at `at`: more of `{[(` than of `}])` stand before it (counted in C).

    Brackets inside strings count too: one that opens only makes the caller look; a closing one
    inside an earlier string of the same open structure hides it, and the marker then counts.
    """
    opened = text.count("{", 0, at) + text.count("[", 0, at) + text.count("(", 0, at)
    return opened > 0 and opened > text.count("}", 0, at) + text.count("]", 0, at) + text.count(")", 0, at)


def _last_marker(text: str, budget: Budget) -> tuple[int, int, str]:
    """`(start, end, marker)` of the text after the last answer marker by position, or `(-1, -1, "")`.

    A marker is `<answer>` (to `</answer>` or the end), or a line that starts, after any of
    `` \t*#>_-``, with one of `_MARKERS` (any case) and a colon (after any of `` \t*_``); the
    last line with one counts, and only after the last `<answer>` tag.
    """
    best = (-1, -1, "")
    tags = deque(_ANSWER_OPEN.finditer(text), maxlen=1) if "<" in text else ()  # the last one
    tag = tags[0] if tags else None
    if tag is not None:
        close = _ANSWER_CLOSE.search(text, tag.end())
        best = (tag.end(), close.start() if close is not None else len(text), "<answer>")
    found = _last_marker_around_json(text, best[0], budget)
    return best if found is None else (found[0], len(text), found[1])


def _last_marker_around_json(text: str, after: int, budget: Budget) -> tuple[int, str] | None:
    """`_last_marker_fast`, without searching the last fenced block when it holds JSON.

    No marker line starts inside JSON text: there a line starts, after whitespace, with a bracket,
    quote, comma, colon, digit, minus or literal, never a marker word, and no string holds a line
    break (JSON forbids raw control characters; `\x85`, `\u2028` and `\u2029`, which it allows and
    `splitlines` breaks at, send the block to the search). Nor can a marker line reach into the
    block from outside it: backticks stand between. So the text after the last block is searched
    first (a marker line there is the last one); else the block is read (what the fence search
    reads next in any case: `Budget.wholes` keeps it) and, when it is JSON, only the text before
    it is searched: an indented answer's marker search goes from about 30 us to 1 for 35,000
    characters.
    """
    blocks = _fences(text, max(after, 0), len(text), budget) if len(text) > _SHORT_TEXT else None
    if not blocks:  # (a short text is searched whole: cheaper than reading its block first)
        return _last_marker_fast(text, after)
    start, end = blocks[-1]
    found = _last_marker_fast(text, after, ((end, len(text)),))
    if found is not None:
        return found
    with budget.ahead():  # (the fence search asks for the block in its turn)
        block = _whole(text, start, end, budget)
    json_only = (
        block is not None
        and block.syntax == "json"
        and (text.isascii() or not any(text.find(char, start, end) >= 0 for char in _BREAKS_JSON_ALLOWS))
    )
    return _last_marker_fast(text, after, ((0, start if json_only else end),))


def _line_marker(line: str, line_start: int) -> tuple[int, str] | None:
    """`(index after the colon, "'Marker:'")` if `line` (at `line_start` in the text) is a marker line."""
    body = line.lstrip(_MARKER_PREFIX)
    head = body[:16].lower()
    for marker in _MARKERS:
        if head.startswith(marker):
            rest = body[len(marker) :]
            colon_side = rest.lstrip(_MARKER_SUFFIX)
            if colon_side.startswith(":"):
                colon = line_start + (len(line) - len(body)) + len(marker) + (len(rest) - len(colon_side))
                return colon + 1, f"'{body[: len(marker)]}:'"
            return None
    return None


def _last_marker_fast(
    text: str, after: int, regions: tuple[tuple[int, int], ...] | None = None
) -> tuple[int, str] | None:
    """`(index after the colon, "'Marker:'")` of the last marker line starting at or after `after`, or None.

    The same as reading every `splitlines` line with `_line_marker` (in Python, about a microsecond
    a line: a millisecond for an indented JSON answer), at C speed. Text of up to `_FEW_LINES` lines
    broken only by `\n` is read line by line, the lines found by memchr (`str.find`). Otherwise each
    marker word is searched for from the end of the lowered text: ASCII by `str.lower`, other text
    through its Latin-1 bytes (anything past Latin-1 `?`; markers are ASCII and `bytes.lower`
    lowers only ASCII, so every offset is the text's and no other letter turns into a marker's, as
    `str.lower` turns the Kelvin sign into `k`): 30 us for 35,000 characters, where `str.lower` of
    non-ASCII text takes 75. An occurrence counts when only `_MARKER_PREFIX` characters stand
    between it and the start of its line (a `splitlines` line break, `\x85`, `\u2028` and `\u2029`
    included, or the text's start) and a colon follows. The last line wins, so each word's search
    stops at its first occurrence that counts, or at the line of the best found so far.

    `regions`: the spans `(start, end)` where a marker word may start, in order (default: the whole
    text); the caller leaves out spans where no marker line can be.
    """
    ascii_only = text.isascii()
    breaks = _ASCII_BREAKS if ascii_only else _BREAKS
    if regions is None:
        regions = ((0, len(text)),)
        if not any(char in text for char in breaks[1:]):
            starts = [0]  # where each line starts; then where the text ends
            newline = text.find("\n")
            while newline >= 0 and len(starts) <= _FEW_LINES:
                starts.append(newline + 1)
                newline = text.find("\n", newline + 1)
            if newline < 0:  # every line found: few of them
                if starts[-1] != len(text):
                    starts.append(len(text))
                best = None
                for start, end in pairwise(starts):
                    if start >= after:
                        best = _line_marker(text[start:end], start) or best
                return best
    lowered = []  # (start, end, the lowered text from start to end and the longest marker beyond)
    for start, end in regions:
        start = max(start, after, 0)  # (an occurrence before `after` is on a line starting before it)
        if start < end:
            piece = text[start : end + _LONGEST_MARKER - 1]
            low = piece.lower() if ascii_only else piece.encode("latin-1", "replace").lower().decode("latin-1")
            if any(marker in low for marker in _MARKERS):  # (most regions hold no marker word: one pass each, in C)
                lowered.append((start, end, low))
    if not lowered:
        return None
    backwards = ""  # the text reversed, made when a run of prefix characters is first measured
    best, best_line = None, after - 1  # a marker line must start at or after `after`, and after the best so far
    for marker in _MARKERS:
        for at in _from_the_end(lowered, marker):
            line_start = at
            if at and text[at - 1] in _MARKER_PREFIX:  # measure the run of prefix characters, in C
                backwards = backwards or text[::-1]
                run = _PREFIX_RUN.match(backwards, len(text) - at)
                assert run is not None  # (a `*` pattern always matches)
                line_start -= run.end() - (len(text) - at)
            if line_start > 0 and text[line_start - 1] not in breaks:
                continue  # not at the start of its line
            if line_start <= best_line:
                break  # this line, and any before it, is not later than the best so far
            colon = _COLON_AFTER.match(text, at + len(marker))
            if colon is not None:
                best, best_line = (colon.end(), f"'{text[at : at + len(marker)]}:'"), line_start
                break  # the last line this marker ends (any earlier occurrence is on an earlier line)
    return best


def _from_the_end(lowered: list[tuple[int, int, str]], marker: str) -> Iterator[int]:
    """Where `marker` starts in the lowered regions, last first (by `str.rfind`, in C)."""
    for start, end, low in reversed(lowered):
        stop = len(low)
        while True:
            at = low.rfind(marker, 0, stop)
            if at < 0:
                break
            stop = at + len(marker) - 1  # next: an occurrence starting before this one
            if start + at < end:
                yield start + at


#: Up to how many lines `_last_marker_fast` reads line by line.
_FEW_LINES = 32
#: Up to how many characters `_last_marker_around_json` searches whole (measured: a 136-character fenced answer
#: took 13 us searched whole, 18 with its block read first; a 22,000-character one 8 us more whole).
_SHORT_TEXT = 1_000
#: Characters before a marker at the start of its line (markdown: lists, headings, quotes, emphasis).
_MARKER_PREFIX = " \t*#>_-"
#: Characters between a marker and its colon (emphasis).
_MARKER_SUFFIX = " \t*_"
#: A run of `_MARKER_PREFIX` characters (matched on the reversed text, to measure one that ends at a marker).
_PREFIX_RUN = re.compile(f"[{re.escape(_MARKER_PREFIX)}]*")
#: `_MARKER_SUFFIX` characters and the colon after a marker.
_COLON_AFTER = re.compile(f"[{re.escape(_MARKER_SUFFIX)}]*:")
#: The ASCII characters `str.splitlines` breaks lines at.
_ASCII_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e"
#: The characters `str.splitlines` breaks lines at that a JSON string may hold as they are.
_BREAKS_JSON_ALLOWS = "\x85\u2028\u2029"
#: Every character `str.splitlines` breaks lines at.
_BREAKS = _ASCII_BREAKS + _BREAKS_JSON_ALLOWS


def _find_fence(text: str, start: int, end: int) -> int:
    """`text.find("```", start, end)`, found through single backticks (memchr, in C, many times faster
    than the three-character search on text with many spaces); after 64 lone backticks (inline
    code), the three-character search does the rest."""
    if end - 2 <= start:  # (a negative bound would count from the end of the text)
        return -1
    for _ in range(64):
        at = text.find("`", start, end - 2)
        if at < 0 or text.startswith("``", at + 1, end):
            return at
        start = at + 1
    return text.find("```", start, end)


def _fences(text: str, start: int, end: int, budget: Budget) -> list[tuple[int, int]]:
    """Content spans of the closed ``` blocks in the region, in order; found once per region and call."""
    key = (start, end)
    if key not in budget.fences:
        budget.fences[key] = _find_fences(text, start, end)
    return budget.fences[key]


def _find_fences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    marks: list[int] = []
    position = start
    while True:
        found = _find_fence(text, position, end)
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


def _fenced_or_embedded(text: str, start: int, end: int, budget: Budget) -> ParsedAnswer | None:
    """The last fenced structure, unless an embedded structure ends after its fence.

    A block whose content is not one structure may be no block: its opening or closing backticks may
    sit in a string of a structure that parses across them (`[{"```": 1}]` after an opening fence, or
    a value such as "```x```" inside a fenced object). Then that structure is the answer, found as the
    last structure in the region.
    """
    fenced: ParsedAnswer | None = None
    fence_end = start
    last: list[ParsedAnswer | None] = []  # the region's last structure, searched for once, when first needed
    for content_start, content_end in reversed(_fences(text, start, end, budget)):
        found = _whole(text, content_start, content_end, budget)
        if found is None:
            if not last:
                with budget.ahead():  # (the searches below read the same in their turn)
                    last.append(_embedded(text, start, end, budget))
            across = last[0]
            if across is not None and across.span is not None:
                inside = (
                    across.span[0] < content_start < across.span[1] or across.span[0] < content_end < across.span[1]
                )
                if inside:
                    return across
            found = _embedded(text, content_start, content_end, budget)
        if found is not None and found.form != "count":
            fenced = _answer(
                "fenced", found.value, found.syntax, found.span, found.snippet, "the last fenced block with a structure"
            )
            fence_end = content_end + 3
            break
    embedded = _embedded(text, fence_end, end, budget)
    return embedded or fenced


def _embedded(text: str, start: int, end: int, budget: Budget) -> ParsedAnswer | None:
    """The last structure in the region that parses (see `_candidates.last_structure`)."""
    found = last_structure(text, start, end, budget)
    if found is None:
        return None
    s, e, value, syntax = found
    return _result("embedded", text, s, e, value, syntax, "the last structure in the text")


def _count(text: str, start: int, end: int, budget: Budget) -> ParsedAnswer | None:
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
    if last_line.strip():  # the pattern reads each run of spaces once: linear in the line, whatever its length
        match = _LAST_LINE_NUMBER.fullmatch(last_line)
        number = _number(match.group(1), budget) if match is not None else None
        if match is not None and number is not None:
            s, e = line_start + match.start(1), line_start + match.end(1)
            return _result("count", text, s, e, number, "number", "a number alone on the last line")
    labelled = None
    for match in _LABELLED.finditer(text, start, end):
        after = text[match.end(1) : match.end(1) + 1]
        if not (after.isalnum() or after == "_"):
            labelled = match
    if labelled is None:
        return None
    number = _number(labelled.group(1), budget)
    if number is None:
        return None
    s, e = labelled.start(1), labelled.end(1)
    return _result("count", text, s, e, number, "number", "a labelled number")
