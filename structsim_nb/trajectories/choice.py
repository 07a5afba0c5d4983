"""Multiple-choice answers: the letter a model chose, read from its text.

Used by `static_json` when the gold is a single letter. Unlike AssetOpsBench, a bare trailing
letter must be upper-case (`... is B`), so the article in "the best pick is a" is not read as
answer A; a marker (`Answer: a`, `Option a`), brackets (`(a)`) or a line holding only the letter
are read in any case.
"""

from __future__ import annotations

import re
from collections import deque

from ..answers import strip_think

__all__ = ["extract_choice"]

# The choice patterns have one way to match any text (whitespace is read by one quantifier at a
# time), so each search is linear in the line it reads.
_CHOICE_MARKERS = r"(?:final answer|answer|option|choice)"
_CHOICE_FULL = re.compile(rf"\s*(?:{_CHOICE_MARKERS}\s*(?:(?:is|:)\s*)?)?[(\[]?([A-Za-z])[)\].:]?\s*", re.I)
_CHOICE_PHRASE = re.compile(rf"{_CHOICE_MARKERS}\s*(?:(?:is|:)\s*)?[(\[]?([A-Za-z])[)\].:]?\s*$", re.I)
# A trailing letter in brackets (either or both: `(c)`, `c)`, `(c`), or upper-case and bare (`B`, `B.`).
_CHOICE_TRAILING = re.compile(r"(?:^|[\s,;:])(?:[(\[]([A-Za-z])[)\]]?[.:]?|([A-Za-z])[)\]][.:]?|([A-Z])[.:]?)\s*$")
# A marker at the start of the text or after whitespace (never inside a word).
_CHOICE_PREFIX = re.compile(r"(?<!\S)(?:<answer>|(?:final answer|answer|output|result|response)\s*:)", re.I)
_FENCE_TAG = re.compile(r"[A-Za-z0-9_+.-]*[ \t]*")


def extract_choice(answer: str) -> str | None:
    """The multiple-choice letter an answer gives, upper-cased, or None.

    Read from the text after the last answer marker (`Final Answer:`, `Answer:`, `Output:`,
    `<answer>`...), inside a surrounding fence if any, with `<think>` blocks removed:

    1. the whole text is a letter, optionally after `answer`/`option`/`choice` (with `is` or
       `:`) and in brackets or followed by `.`/`:` (`B`, `(c)`, `Answer: b`, `Option D.`);
    2. else the last non-empty line, by the same rule; then a phrase ending the line
       (`... the answer is C`); then a trailing letter that is bracketed (`... (c)`, `I pick B)`)
       or upper-case (`I pick B.`).

    Unlike AssetOpsBench, a bare trailing lower-case letter is not read, so the article in
    "the best pick is a" is not answer A. A marker counts at the start of the text or after
    whitespace. Linear in the answer: no pattern here can re-read a run of whitespace.

    Examples:
        >>> extract_choice("Thinking it over, the answer is (c)."), extract_choice("the best pick is a")
        ('C', None)
    """
    text = strip_think(answer)
    markers = deque(_CHOICE_PREFIX.finditer(text), maxlen=1)  # the last one
    marker = markers[0] if markers else None
    if marker is not None:
        text = text[marker.end() :].replace("</answer>", " ").strip()
    text = _unfence(text)
    whole = _CHOICE_FULL.fullmatch(text)
    if whole is not None:
        return whole.group(1).upper()
    last = next((line for line in reversed(text.splitlines()) if line.strip()), None)
    if last is None:
        return None
    for pattern in (_CHOICE_FULL.fullmatch, _CHOICE_PHRASE.search, _CHOICE_TRAILING.search):
        found = pattern(last)
        if found is not None:
            letter = next(group for group in found.groups() if group)
            return letter.upper()
    return None


def _unfence(text: str) -> str:
    """The content of `text` when it is one fenced block (an optional language tag on the opening line)."""
    if len(text) < 6 or not (text.startswith("```") and text.endswith("```")):
        return text
    body_start = 3
    newline = text.find("\n", 3, len(text) - 3)
    if newline >= 0 and _FENCE_TAG.fullmatch(text, 3, newline):
        body_start = newline + 1
    return text[body_start : len(text) - 3].strip()
