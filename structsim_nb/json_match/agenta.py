"""What Agenta's evaluators would score, so a row's reason can state every place where ours differs.

These are emulations of `Agenta-AI/agenta`'s SDK handlers (see
`/work/shared/reference/json_match_evaluators.md` in the project's reference notes): exact match,
contains JSON, and the multi-field match with its path resolver (`resolve_any`). They are used
only to write notes, never to score: the evaluators (`exact`, `contains`, `field_match`, `diff`)
score by their own rules and compare the result with these.

Examples:
    >>> field_scores({"items": [{"name": "a"}]}, {"items": [{"name": "b"}]}, ["items[0].name", "items.0.name"])
    {'items[0].name': 1.0, 'items.0.name': 0.0}
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from .paths import FieldPath, parse_field_path, resolve_path
from .values import from_agent_result

__all__ = ["contains", "exact", "field_scores", "resolve"]

_MISSING = object()


def exact(actual: Any, expected: Any) -> bool:
    """Agenta's `auto_exact_match_v0`: equal str, or dicts with equal `json.dumps(sort_keys=True)`."""
    if isinstance(actual, str) and isinstance(expected, str):
        return actual == expected
    if isinstance(actual, dict) and isinstance(expected, dict):
        try:
            return json.dumps(actual, sort_keys=True, default=repr) == json.dumps(
                expected, sort_keys=True, default=repr
            )
        except (ValueError, TypeError, RecursionError):  # Agenta would raise; only a note depends on this
            return False
    return False


def contains(text: str) -> bool:
    """Agenta's `auto_contains_json_v0` on text: parse the first-`{`-to-last-`}` span."""
    try:
        json.loads(text[text.index("{") : text.rindex("}") + 1])
    except (ValueError, RecursionError):  # too deep or too many digits: Agenta would raise, so not found
        return False
    return True


@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> FieldPath:
    """`parse_field_path(text)`, once per text (a `FieldPath` is immutable): a JSON Path takes jsonpath-ng about a
    millisecond to parse, and the emulation resolves every field on both sides of every pair (50 JSON Path fields
    cost 50 ms a pair). Raises as `parse_field_path`; a refusal is not kept, so it raises each time."""
    return parse_field_path(text)


def resolve(path: str | FieldPath, data: Any) -> Any:
    """Agenta's `resolve_any` as `_get_nested_value` uses it: the value, or None on any failure.

    `$...` and `/...` paths resolve as this package resolves them (JSON Path, JSON Pointer); dot
    notation follows Agenta's own rules: the whole text as a literal top-level key first, no
    brackets (any `[` or `]` fails), empty segments dropped, a digit-only segment indexes a list.
    """
    text = path.text if isinstance(path, FieldPath) else path
    if text.startswith(("$", "/")):
        try:
            found, value, _ = resolve_path(_parsed(text), data)
        except Exception:  # a path Agenta's resolver would refuse
            return None
        return value if found else None
    if not text or "[" in text or "]" in text:
        return None
    if isinstance(data, dict) and text in data:
        return data[text]
    current = data
    for token in (part for part in text.split(".") if part):
        if isinstance(current, list) and token.isdigit():
            try:
                index = int(token)
            except ValueError:  # a digit int() does not read ('²'): Agenta's `_get_nested_value` gives None
                return None
            if index >= len(current):
                return None
            current = current[index]
        elif isinstance(current, dict) and token in current:
            current = current[token]
        else:
            return None
    return current


def _output(actual: Any) -> Any:
    """The output as Agenta's handler receives it: text, or the structured value as a dict."""
    actual = from_agent_result(actual)
    if isinstance(actual, BaseModel):
        return actual.model_dump(mode="json")
    return actual


def field_scores(
    actual: Any,
    expected: Any,
    fields: Sequence[str | FieldPath],
    *,
    expected_loaded: Any = _MISSING,
    output_loaded: Any = _MISSING,
) -> dict[str, float] | None:
    """Agenta's `json_multi_field_match_v0` per-field scores, or None where it raises.

    It raises on a ground truth that is neither text nor a dict (a list given as a list, say);
    gives every field 0.0 when the output is not a JSON object; otherwise 1.0 where the two
    resolved values are equal by Python `==` (a path that fails on both sides resolves to None
    on both, which is equal).

    Args:
        actual: The output, as the evaluator was given it.
        expected: The ground truth, as given.
        fields: The configured paths.
        expected_loaded: `json.loads(expected)`, when `expected` is text the caller has read
            already (so it is not read twice). Default: read here.
        output_loaded: `json.loads(actual)`, likewise, for text output.
    """
    gt = expected.model_dump(mode="json") if isinstance(expected, BaseModel) else expected
    if isinstance(gt, str) and expected_loaded is not _MISSING:
        gt = expected_loaded
    elif isinstance(gt, str):
        try:
            gt = json.loads(gt)
        except (ValueError, RecursionError):
            return None
    elif not isinstance(gt, dict):
        return None
    names = [item.text if isinstance(item, FieldPath) else item for item in fields]
    out = _output(actual)
    if isinstance(out, str) and output_loaded is not _MISSING:
        out = output_loaded
    elif isinstance(out, str):
        try:
            out = json.loads(out)
        except (ValueError, RecursionError):
            out = _MISSING
    if not isinstance(out, dict):
        return dict.fromkeys(names, 0.0)
    scores = {}
    for name in names:
        try:
            scores[name] = 1.0 if resolve(name, gt) == resolve(name, out) else 0.0
        except Exception:  # pragma: no cover - JSON values always compare
            scores[name] = 0.0
    return scores
