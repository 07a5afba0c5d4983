"""Agenta's Exact Match, compared as values: `exact_match(actual, expected)`.

Two strings compare as text; otherwise both sides are read as JSON values and compared by
`values.same_value` (`{"a": 1}` equals `{"a": 1.0}`), with null-valued keys read as absent by
default, as `StructuredOutputSimilarity` reads them. Where Agenta would score differently (it
compares a dict's serialised text and scores any list, number or model False) the reason says so.
"""

from __future__ import annotations

import marshal
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from .._jsonload import shallow
from ..answers import MAX_DEPTH
from . import agenta
from .flatten import LeafTally, compare_rows, flatten, flatten_differences, flatten_json, leaf_path
from .results import FieldResult, JsonMatchResult, LeafResults, with_notes
from .values import drop_nulls, json_type, load_json_text, read_expected, read_output, same_value, short

__all__ = ["exact_match"]


def _exact_note(
    actual: Any, expected: Any, null_effect: bool, *, ignore_case: bool, strip: bool, agenta_equal: bool
) -> str:
    """Why Agenta's exact match scores `agenta_equal` where this one does not."""
    if isinstance(actual, str) and isinstance(expected, str):
        return (
            f"strings compared with ignore_case={ignore_case}, strip={strip} (Agenta compares exactly: {agenta_equal})"
        )
    if isinstance(actual, str) != isinstance(expected, str) and isinstance(expected, (str, dict)):
        return f"text and structured value compared as JSON (Agenta scores {agenta_equal}: it never parses strings)"
    if isinstance(actual, dict) and isinstance(expected, dict):
        if null_effect:
            return (
                "null-valued keys read as absent, as StructuredOutputSimilarity reads them "
                f"(Agenta scores {agenta_equal}: it compares the serialised text); null_is_missing=False compares them"
            )
        if ignore_case or strip:
            return f"strings compared with ignore_case={ignore_case}, strip={strip} (Agenta scores {agenta_equal})"
        return f"numbers compared by value, not serialised text (Agenta scores {agenta_equal})"
    kinds = sorted({_kind(actual), _kind(expected)} - {"string", "object"}) or ["object"]
    return f"{' and '.join(kinds)} compared as values (Agenta scores {agenta_equal} unless both are str or both dict)"


def _kind(value: Any) -> str:
    if isinstance(value, BaseModel):
        return "a Pydantic model"
    if isinstance(value, (dict, list, str, int, float, bool)) or value is None:
        return json_type(value)
    return type(value).__name__


def exact_match(
    actual: Any, expected: Any, *, ignore_case: bool = False, strip: bool = False, null_is_missing: bool = True
) -> JsonMatchResult:
    """Whether the output is exactly the expected value (Agenta's Exact Match), compared as values.

    Args:
        actual: The agent output: text, JSON data, a Pydantic model or an `AgentResult`.
        expected: The ground truth: text or JSON data (a Pydantic model is read as its JSON form).
        ignore_case: Compare strings case-insensitively, at any depth. Default False.
        strip: Ignore leading and trailing whitespace of strings, at any depth. Default False.
        null_is_missing: An object key whose value is null counts as absent, at any depth, so
            a Pydantic `model_dump()` (which writes `None` for every unset optional field)
            equals a ground truth without those keys, as `StructuredOutputSimilarity` judges
            it. Default True. False compares nulls as values (`{"a": null}` is not `{}`).

    Returns:
        Score 1.0 and passed when equal, else 0.0. Two strings compare as text, exactly (no
        trimming or case folding unless asked). When one side is text and the other structured,
        the whole text is read with `json.loads` (JSON inside prose or a fence is not equal;
        such output scores 0 with `error="unreadable"`) and the values compared. Values
        compare by `same_value` (`{"a": 1}` equals `{"a": 1.0}`; equal lists and numbers are
        equal). For two containers, `fields` holds one result per leaf (`match`, or how it differs).

    Notes:
        Agenta scores False for a dict against JSON text, for any list, number or model, and
        for `1` against `1.0` or a null key against an absent one inside a dict; the reason says
        when that differs from this result, and why.
    """
    if type(expected) in (dict, list) and type(actual) in (dict, list):
        given = _given(actual, expected, ignore_case=ignore_case, strip=strip, null_is_missing=null_is_missing)
        if given is not None:
            return given
    notes: list[str] = []
    gt, how, error = expected, "", None
    if isinstance(expected, BaseModel):
        gt = expected.model_dump(mode="json")
    if isinstance(actual, str) and isinstance(gt, str):
        out: Any = actual
    else:
        if isinstance(gt, str):
            loaded, value, _ = load_json_text(gt)
            if loaded:
                gt, how = value, "expected read as JSON text"
        else:
            gt = read_expected(gt)
        if isinstance(actual, str):  # the ground truth is structured: the whole text must be JSON
            loaded, out, why = load_json_text(actual)
            if not loaded:
                reason = (
                    f"not equal: output is not JSON text ({why}); exact match reads only a whole-text JSON "
                    "value, not one embedded in prose or a fenced block"
                )
                return JsonMatchResult("exact_match", 0.0, False, reason, error="unreadable")
        else:
            read = read_output(actual)
            if not read.ok:  # (compared as its str(), a set once equalled the text "{1, 2}")
                return JsonMatchResult("exact_match", 0.0, False, f"not equal: {read.message}", error="unreadable")
            out = read.value
    strict_equal = same_value(gt, out, ignore_case=ignore_case, strip=strip)
    if null_is_missing:
        gt, out = drop_nulls(gt), drop_nulls(out)
    equal = same_value(gt, out, ignore_case=ignore_case, strip=strip)
    fields: Sequence[FieldResult] = ()
    if isinstance(gt, (dict, list)) and isinstance(out, (dict, list)):

        def agree(e: Any, p: Any) -> bool:
            return same_value(e, p, ignore_case=ignore_case, strip=strip)

        fields = LeafResults(compare_rows(flatten(gt), flatten(out), agree=agree, extras=True), leaf_path)
    elif not equal:
        fields = (FieldResult("$", "wrong", 0.0, gt, out, f"expected {short(gt)}, got {short(out)}"),)
    agenta_equal = agenta.exact(actual, expected)
    if agenta_equal != equal:
        notes.append(
            _exact_note(
                actual,
                expected,
                strict_equal != equal,
                ignore_case=ignore_case,
                strip=strip,
                agenta_equal=agenta_equal,
            )
        )
    wrong = [item.path for item in fields if item.status != "match"]
    head = "equal" if equal else "not equal" + (f": {', '.join(wrong[:5])}" if wrong else "")
    if how:
        head += f" ({how})"
    return JsonMatchResult("exact_match", float(equal), equal, with_notes(head, notes), fields, {}, tuple(notes), error)


def _boolean(text: bytes) -> bool:
    """Whether JSON bytes may hold a boolean (`true` or `false`; inside a string counts too)."""
    return b"true" in text or b"false" in text


def _written(value: Any) -> bytes | None:
    """`value` written by orjson with sorted keys, or None where it cannot write it (an integer past 64 bits)."""
    import orjson

    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _given(
    actual: Any, expected: Any, *, ignore_case: bool, strip: bool, null_is_missing: bool
) -> JsonMatchResult | None:
    """`exact_match` of a dict or list given on both sides, with one walk per side; None to take the long way.

    Each side is checked and flattened at once (`flatten_json`, null-valued keys dropped with
    `null_is_missing`), and the leaves compared; the values are equal when every leaf matches
    and the output has no other. None when a side is not JSON data (the long way says why) or
    when Agenta's verdict differs (the long way writes the note).

    Both sides of exact JSON types (`shallow`: no enum or other subclass) are also written by
    orjson, once. orjson writes apart every pair of such values that `json.dumps` writes apart
    (NaN and null alike aside, which `==` tells apart), so: the same bytes and `==` mean the same
    values of the same types, every leaf matches, and a leaf's predicted value is its expected one
    (the results are made when first read, from a copy of both documents the call takes: changing them
    afterwards changes nothing); different bytes mean Agenta's `json.dumps` texts differ.
    """
    written: tuple[bytes | None, bytes | None] = (None, None)
    if shallow(actual, MAX_DEPTH) and shallow(expected, MAX_DEPTH):
        written = _written(actual), _written(expected)
    same_bytes = written[0] is not None and written[0] == written[1]
    identical = same_bytes and actual == expected
    both_written = None not in written

    def agree(e: Any, p: Any) -> bool:
        return same_value(e, p, ignore_case=ignore_case, strip=strip)

    wrong: list[str] = []
    if identical:
        g_flat = flatten_json(expected, drop_null_keys=null_is_missing)
        if g_flat is None:
            return None
        rows: Any = lambda: [(key, "match", value, value, "equal") for key, value in g_flat.items()]  # noqa: E731
        equal = True
    elif written[0] is not None and written[1] is not None and not (_boolean(written[0]) or _boolean(written[1])):
        # Exact JSON types and no boolean (orjson wrote both; `true`/`false` appear in neither, so no True
        # can equal a 1): the leaves of the subtrees `==` leaves apart decide the verdict and the reason;
        # every row is made when the results are first read.
        g_part, o_part = flatten_differences(expected, actual, drop_null_keys=null_is_missing)
        tally = LeafTally()
        found = compare_rows(g_part, o_part, agree=agree, extras=True, tally=tally)
        equal = not tally.misses
        wrong = [leaf_path(found[index][0]) for index in tally.misses[:5]]
        # The documents as they are now, for the rows made later: a caller may change its dicts after the call
        # (the result's fields changed with them, or raised). marshal copies exact JSON types as they are (NaN,
        # -0.0, key order) in C, about a twentieth of the flattening it defers; it reads back only what it wrote.
        documents = marshal.dumps((expected, actual))

        def rows() -> list[Any]:
            # Every leaf of the ground truth in order: its row from the comparison above, or a match (it lies in
            # a subtree equal on both sides); then what the output adds, all of which lies outside those subtrees.
            expected_then, actual_then = marshal.loads(documents)
            g_flat = flatten_json(expected_then, drop_null_keys=null_is_missing) or {}
            o_flat = flatten_json(actual_then, drop_null_keys=null_is_missing) or {}
            compared = {row[0]: row for row in found}
            made = [compared.get(key) or (key, "match", value, o_flat[key], "equal") for key, value in g_flat.items()]
            return made + [row for row in found if row[0] not in g_part]

    else:
        g_flat = flatten_json(expected, drop_null_keys=null_is_missing)
        o_flat = flatten_json(actual, drop_null_keys=null_is_missing)
        if g_flat is None or o_flat is None:
            return None
        tally = LeafTally()
        rows = compare_rows(g_flat, o_flat, agree=agree, extras=True, tally=tally)
        equal = not tally.misses
        wrong = [leaf_path(rows[index][0]) for index in tally.misses[:5]]
    if type(actual) is dict and type(expected) is dict and both_written and (identical or not same_bytes):
        agenta_equal = identical  # different bytes: json.dumps writes them apart too
    else:
        agenta_equal = agenta.exact(actual, expected)
    if agenta_equal != equal:
        return None  # rare: the long way writes the note, which needs the values read in full
    head = "equal" if equal else f"not equal: {', '.join(wrong)}"
    return JsonMatchResult("exact_match", float(equal), equal, head, LeafResults(rows, leaf_path), {}, (), None)
