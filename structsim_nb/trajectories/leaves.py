"""One side of a `static_json` pair as keyed, normalised leaves.

`read_answer` reads a side (text through `answers.parse_answer`, whole-text scalar literals as
their value); `flatten_answer` turns the value into keyed leaves (`answer.energy`,
`answer.items[0].name`), each normalised by `normalize_value`; `similarity_score` is
AssetOpsBench's closeness of two leaves; `check_nesting` refuses a value too deep, too large or
holding itself before anything recurses into it.

Leaves are not re-parsed: only a leaf that is wholly a number or `true`/`false`/`null`/`None`
compares as that value. Key paths are unambiguous: `.`, `[`, `]` and `\\` inside a key are
escaped with `\\` (`escape_key`), so `{"a.b": 1}` never equals `{"a": {"b": 1}}`.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Mapping
from typing import Any

from ..answers import MAX_DEPTH, answer_text, parse_answer
from ..errors import StaticJsonError

__all__ = [
    "check_nesting",
    "escape_key",
    "flatten_answer",
    "flatten_into",
    "normalize_value",
    "read_answer",
    "similarity_score",
]

#: Most containers a value passed as a Python object may hold (shared references could repeat one forever).
_MAX_VALUES = 5_000_000
#: A number as JSON or Python writes one (what upstream's re-parse reads as a number): a sign, then an integer
#: without leading zeros (`007` stays text, an id), or a decimal (`.5`, `1.`, `007.5`) or exponent form.
_NUMBER_LEAF = re.compile(r"[+-]?(?:(?:0+|[1-9]\d*)(?![.eE\d])|(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)")


def read_answer(value: Any) -> tuple[Any, str]:
    """One side as a value to flatten, and how it was read.

    A non-string is returned as is (`value`). A string goes through `parse_answer`: its value
    and form when something was found. Else the plain value it states (`answers.answer_text`:
    the text after the last answer marker, inside the last fenced block, without `<think>`
    blocks; `Final Answer: pump` -> `pump`, as upstream reads it). That text, when it is a JSON or
    Python scalar literal (`null`, `true`, `None`, `"Pump 3"`, `'Pump 3'`), is that value
    (`literal`), as upstream reads it; otherwise it is one scalar (`text`).
    """
    if not isinstance(value, str):
        return value, "value"
    parsed = parse_answer(value)
    if parsed.found:
        return parsed.value, parsed.form
    text = answer_text(value)
    if text in ("null", "true", "false", "None", "True", "False") or _is_quoted(text):  # both readers are linear
        try:
            return json.loads(text), "literal"
        except ValueError:
            pass
        try:
            literal = ast.literal_eval(text)  # only str, bool or None literals reach here
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            literal = text
        if isinstance(literal, str) or literal is None or isinstance(literal, bool):
            return literal, "literal"
    return text, "text"


def _is_quoted(text: str) -> bool:
    return len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and text.count(text[0]) == 2


def normalize_value(value: Any) -> str:
    """A leaf as the string leaves are compared by.

    bool -> `true`/`false`; None -> `none`; float -> 6 decimals with trailing zeros dropped
    (`14.0` -> `14`); int -> `str`. A string is stripped and lower-cased, except one that is
    wholly a number as JSON or Python writes one (`" 14 "` -> `14`, so `"14"` equals `14`;
    `"+5"`, `".5"`, `"1e3"`; not `"007"`, which stays text, as upstream reads it) or
    `true`/`false`/`null`/`None` (null and none in any case). Nothing else in a string is interpreted.

    Examples:
        >>> normalize_value(14.0), normalize_value(" Pump 3 "), normalize_value("3.50")
        ('14', 'pump 3', '3.5')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError:  # over Python's integer-to-text digit limit
            raise StaticJsonError(
                f"a number must have at most {sys.get_int_max_str_digits():,} digits to be compared; got one of "
                f"about {int(value.bit_length() * 0.30103):,}. Pass it as text"
            ) from None
    text = str(value).strip()
    if _NUMBER_LEAF.fullmatch(text):
        if "." in text or "e" in text.lower():
            return normalize_value(float(text))
        try:
            return str(int(text))
        except ValueError:  # more digits than Python converts: the digits themselves, without leading zeros
            digits = text.lstrip("+-").lstrip("0") or "0"
            return f"-{digits}" if text.startswith("-") and digits != "0" else digits
    lower = text.lower()
    if lower in ("null", "none"):
        return "none"
    return lower


def escape_key(key: Any) -> str:
    """A dict key as one path segment: `\\`, `.`, `[` and `]` escaped with `\\` (`a.b` -> `a\\.b`)."""
    text = str(key)
    return text.replace("\\", "\\\\").replace(".", "\\.").replace("[", "\\[").replace("]", "\\]")


def flatten_answer(value: Any, prefix: str = "answer") -> dict[str, str]:
    """Flatten a structure (or a text answer, read with `read_answer`) into normalised leaves.

    A dict item becomes `prefix.key` (key escaped, see the module docstring), a list or tuple
    item `prefix[i]`, a scalar `{prefix: normalize_value(scalar)}`. Empty containers give `{}`.

    Raises:
        StaticJsonError: If the value nests deeper than 100 levels.

    Examples:
        >>> flatten_answer({"a": {"b": 2}, "c": [3, {"d": 4}], "e.f": 1})
        {'answer.a.b': '2', 'answer.c[0]': '3', 'answer.c[1].d': '4', 'answer.e\\\\.f': '1'}
    """
    if isinstance(value, str):
        value, _ = read_answer(value)
    flat: dict[str, str] = {}
    flatten_into(value, prefix, flat, 0)
    return flat


def flatten_into(
    value: Any, path: str, flat: dict[str, str], depth: int, names: dict[str, tuple[str, str]] | None = None
) -> None:
    """Flatten into `flat`; with `names`, record each dict leaf's `(parent path, key)` too.

    The recursion behind `flatten_answer`: `value` sits at `path`, `depth` levels down.

    Raises:
        StaticJsonError: If the value nests deeper than 100 levels.
    """
    if depth > MAX_DEPTH:
        raise StaticJsonError(
            f"an answer must nest at most {MAX_DEPTH} levels; {path} goes deeper. Flatten the answer or score it "
            "with another scorer"
        )
    if isinstance(value, Mapping):
        for key, item in value.items():
            child = f"{path}.{escape_key(key)}"
            if names is not None:
                names[child] = (path, str(key))
            flatten_into(item, child, flat, depth + 1, names)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            flatten_into(item, f"{path}[{index}]", flat, depth + 1, names)
    else:
        flat[path] = normalize_value(value)


def similarity_score(gold: str, model: str) -> float:
    """Closeness of two normalised leaves in [0, 1], as AssetOpsBench computes it.

    Equal -> 1.0. Two numbers: relative error under 1% -> 0.9, 5% -> 0.7, 10% -> 0.5, else 0.0
    (a zero gold scores 1.0 only for a zero model). Otherwise character-set Jaccard, raised to
    0.6 when one string contains the other; two empty strings -> 1.0.
    """
    if gold == model:
        return 1.0
    try:
        g, m = float(gold), float(model)
    except ValueError:
        pass
    else:
        if g != g or m != m or abs(g) == float("inf") or abs(m) == float("inf"):
            return 0.0
        if g == 0:
            return 1.0 if m == 0 else 0.0
        relative = abs(g - m) / abs(g)
        for bound, score in ((0.01, 0.9), (0.05, 0.7), (0.10, 0.5)):
            if relative < bound:
                return score
        return 0.0
    gold_chars, model_chars = set(gold), set(model)
    union = gold_chars | model_chars
    if not union:
        return 1.0
    jaccard = len(gold_chars & model_chars) / len(union)
    if gold and model and (gold in model or model in gold):
        jaccard = max(jaccard, 0.6)
    return jaccard


def check_nesting(value: Any, side: str) -> None:
    """Refuse a value nested deeper than `MAX_DEPTH`, holding itself, or of more than `_MAX_VALUES` values.

    Checked before anything recurses into the value (a Python caller may pass any object; text
    never parses to such values). One iterative pass, linear in the values visited.

    Raises:
        StaticJsonError: Naming the side and what was wrong.
    """
    if not isinstance(value, (Mapping, list, tuple)):
        return
    on_path: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(value, 0, False)]
    visited = 0
    while stack:
        item, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(item))
            continue
        visited += 1
        if depth > MAX_DEPTH:
            raise StaticJsonError(
                f"the {side} must nest at most {MAX_DEPTH} levels; it goes deeper. Flatten it or score it with "
                "another scorer"
            )
        if id(item) in on_path:
            raise StaticJsonError(f"the {side} must be a tree of values; it contains itself (a reference cycle)")
        if visited > _MAX_VALUES:
            raise StaticJsonError(f"the {side} must hold at most {_MAX_VALUES:,} values; it holds more")
        on_path.add(id(item))
        stack.append((item, depth, True))
        children = item.values() if isinstance(item, Mapping) else item
        stack.extend((child, depth + 1, False) for child in children if isinstance(child, (Mapping, list, tuple)))
