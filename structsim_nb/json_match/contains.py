"""Agenta's Contains JSON: `contains_json(actual)`, whether the output holds a JSON object or array.

Text is read by `answers.parse_answer`, which finds complete objects and arrays anywhere in it
(fenced, prefixed, inside prose); a truncated answer holds no complete JSON and fails. Where
Agenta would score differently (it parses only the span from the first `{` to the last `}`, and
passes every dict) the reason says so.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..answers import MAX_CHARS, has_think_tag
from . import agenta
from .results import FieldResult, JsonMatchResult, json_match_result, with_notes
from .values import JsonRead, json_type, read_output, read_text, short

__all__ = ["contains_json"]


def _agenta_reads_ours(text: str, read: JsonRead) -> bool:
    """Whether Agenta's span (first `{` to last `}`) is exactly the JSON object found here, so it parses too.

    The found snippet was read with `json.loads`'s rules, from the text as given (nothing blanked:
    no `<think>` block; not a tail of an over-long text).
    """
    if not read.ok or read.syntax != "json" or read.how == "repaired" or read.span is None:
        return False
    start, end = read.span
    if len(text) > MAX_CHARS or text.find("{") != start or text.rfind("}") != end - 1:
        return False
    return not has_think_tag(text)


def contains_json(actual: Any) -> JsonMatchResult:
    """Whether the output holds a JSON object or array (Agenta's Contains JSON).

    Args:
        actual: The agent output. Text is read by `parse_answer` (fenced blocks, prefixes,
            prose around a structure: it finds complete candidates, objects and arrays, and
            prefers the final one). Structured output (dict, list, model) is checked like any
            value: it passes only if it is JSON data with string keys.

    Returns:
        Score 1.0 and passed when an object or array was found, else 0.0 with the reason. A
        number or string on its own is not a JSON structure, and neither is a truncated answer
        (one cut off inside an object or array): it holds no complete JSON, so it fails, and the
        reason says what its repaired reading would be. Never raises on output.
    """
    notes: list[str] = []
    if isinstance(actual, str):
        # (Whether and where a structure is found does not depend on exact integers: see parse_answer.
        # The reasons below name only a structure's kind, or values read other ways: numbers, Python
        # literals, repairs. The one difference: text nested about 1,000 levels that also holds a
        # run of 19 digits fails either way, its reason saying "a value" where it said "a snippet".)
        read = read_text(actual, exact_numbers=False)
        structure = read.ok and isinstance(read.value, (dict, list))
        found = structure and read.syntax == "json" and read.how != "repaired"
        if found:
            head = f"found a JSON {json_type(read.value)} ({read.how})"
        elif structure and read.how == "repaired":
            head = f"no complete JSON object or array: {read.message} (reads as {short(read.value)})"
        elif structure:
            head = f"no JSON object or array: found a Python literal ({read.how}), which is not JSON"
        elif read.ok:
            head = f"no JSON object or array: the output reads as a {json_type(read.value)} ({read.how})"
        else:
            head = f"no JSON object or array: {read.message}"
        agenta_found = True if _agenta_reads_ours(actual, read) else agenta.contains(actual)
        if agenta_found != found:
            why = "it parses only the span from the first '{' to the last '}'"
            notes.append(
                f"Agenta scores {agenta_found} ({why}{', so it misses arrays and several objects' if found else ''})"
            )
    else:
        read = read_output(actual)
        found = read.ok and isinstance(read.value, (dict, list))
        head = (
            f"structured output is a JSON {json_type(read.value)}"
            if found
            else f"no JSON object or array: {read.message or 'output is a ' + json_type(read.value)}"
        )
        if isinstance(actual, dict) and not found:
            notes.append("a dict output is checked like any value (Agenta passes every dict)")
        elif not isinstance(actual, (dict, str)):
            notes.append(
                "Agenta raises on output that is neither str nor dict"
                if not isinstance(actual, BaseModel)
                else "model output dumped to JSON first"
            )
    fields = (
        ()
        if found
        else (
            FieldResult(
                "$", "missed", 0.0, "a JSON object or array", actual if isinstance(actual, str) else None, head
            ),
        )
    )
    return json_match_result("contains_json", float(found), found, with_notes(head, notes), fields, {}, tuple(notes))
