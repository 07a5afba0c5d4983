"""Agenta-style JSON evaluators: exact match, contains JSON, JSON multi-field match and JSON diff.

Each is a plain function (`exact_match`, `contains_json`, `json_field_match`, `json_diff`) that
returns a `JsonMatchResult`, and a Strands Evals evaluator (`ExactMatch`, `ContainsJson`,
`JsonFieldMatch`, `JsonDiff`) whose single row carries the per-field detail on `metadata`
(`field_scores`, `non_matches`, `fields`, `counts`), so `StructuredOutputReport.cases_frame()`
and `non_matches_frame()` show these rows beside the field-level evaluator's.

The meaning follows Agenta's evaluators (`agenta:builtin:auto_exact_match`, `auto_contains_json`,
`json_multi_field_match`, `auto_json_diff`); where Agenta scores something the user did not mean
(a field absent on both sides scoring 1.0, case-insensitive keys that never match, null never
equal to null, an exception on non-JSON output) these do what was meant and the row's reason
says so. The README section "JSON match evaluators (Agenta-compatible)" lists every difference.

Values are compared by one rule (`values.same_value`); text output is read through
`structsim_nb.answers.parse_answer`. Field paths live in `paths`, flattening in
`flatten`, the result types in `results`, and the command-line scorers in
`structsim_nb.trajectories.json_scorers`.

Examples:
    >>> gt = {"name": "John Doe", "email": "john@example.com", "address": {"city": "New York", "zip": "10001"}}
    >>> out = {"name": "John Doe", "email": "jane@example.com", "address": {"city": "New York", "zip": "10002"}}
    >>> result = json_field_match(out, gt, fields=["name", "email", "address.city", "address.zip"])
    >>> result.field_scores, result.score
    ({'name': 1.0, 'email': 0.0, 'address.city': 1.0, 'address.zip': 0.0}, 0.5)
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel
from strands_evals.evaluators import Evaluator
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationData, EvaluationOutput

from ..errors import GroundTruthError
from . import agenta
from .flatten import Steps, compare_leaves, flatten, fold_keys
from .paths import FieldPath, parse_field_path, parse_fields, render_path, resolve_path
from .results import FieldResult, JsonMatchResult, python_eq_differs
from .values import (
    JsonRead,
    as_json,
    check_threshold,
    drop_nulls,
    json_type,
    load_json_text,
    read_expected,
    read_output,
    read_text,
    same_value,
    short,
)

logger = logging.getLogger(__name__)

__all__ = [
    "ContainsJson",
    "ExactMatch",
    "FieldPath",
    "FieldResult",
    "JsonDiff",
    "JsonFieldMatch",
    "JsonMatchResult",
    "contains_json",
    "exact_match",
    "json_diff",
    "json_field_match",
    "parse_field_path",
    "same_value",
]

BothAbsent = Literal["skip", "match", "miss"]


def check_both_absent(value: str) -> BothAbsent:
    """`value` if it is a `both_absent` choice.

    Raises:
        ValueError: If it is not `"skip"`, `"match"` or `"miss"`.
    """
    if value not in ("skip", "match", "miss"):
        raise ValueError(f"both_absent must be 'skip', 'match' or 'miss'; got {value!r}")
    return value  # type: ignore[return-value]


def _join(head: str, notes: Sequence[str]) -> str:
    return head if not notes else head + "; " + "; ".join(notes)


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
        equal). For two containers, `fields` lists every differing leaf.

    Notes:
        Agenta scores False for a dict against JSON text, for any list, number or model, and
        for `1` against `1.0` or a null key against an absent one inside a dict; the reason says
        when that differs from this result, and why.
    """
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
            if not read.ok and isinstance(gt, str):
                read = JsonRead(True, str(actual), "text")
            if not read.ok:
                return JsonMatchResult("exact_match", 0.0, False, f"not equal: {read.message}", error="unreadable")
            out = read.value
    strict_equal = same_value(gt, out, ignore_case=ignore_case, strip=strip)
    if null_is_missing:
        gt, out = drop_nulls(gt), drop_nulls(out)
    equal = same_value(gt, out, ignore_case=ignore_case, strip=strip)
    fields: list[FieldResult] = []
    if isinstance(gt, (dict, list)) and isinstance(out, (dict, list)):

        def agree(e: Any, p: Any) -> bool:
            return same_value(e, p, ignore_case=ignore_case, strip=strip)

        pairs = compare_leaves(flatten(gt), flatten(out), agree=agree, extras=True)
        fields = [item for _, item in pairs]
    elif not equal:
        fields = [FieldResult("$", "wrong", 0.0, gt, out, f"expected {short(gt)}, got {short(out)}")]
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
    return JsonMatchResult(
        "exact_match", float(equal), equal, _join(head, notes), tuple(fields), {}, tuple(notes), error
    )


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
        read = read_text(actual)
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
        agenta_found = agenta.contains(actual)
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
    return JsonMatchResult("contains_json", float(found), found, _join(head, notes), fields, {}, tuple(notes))


def _literal_first(path: FieldPath, gt: Any, out: Any, notes: list[str]) -> FieldPath:
    """A dotted path that is literally a top-level key (`"a.b"`) on either side, as that key on both.

    Agenta reads the literal key first on each side, so a literal key on one side and the nested
    path on the other compare with each other; here both sides use the same reading.
    """
    if path.syntax != "dot" or len(path.steps) < 2 or any(kind != "either" for kind, _ in path.steps):
        return path
    if not any(isinstance(data, dict) and path.text in data for data in (gt, out)):
        return path
    if any(resolve_path(path, data)[0] for data in (gt, out) if data is not None):
        nested = "".join(f"[{json.dumps(token)}]" if i else token for i, (_, token) in enumerate(path.steps))
        notes.append(
            f"{path.text}: read as the literal key {path.text!r} on both sides, as Agenta reads it; the nested "
            f"path exists too, address it as {nested} or /{'/'.join(str(token) for _, token in path.steps)}"
        )
    return FieldPath(path.text, "dot", (("key", path.text),))


def json_field_match(
    actual: Any,
    expected: Any,
    *,
    fields: Sequence[str | FieldPath],
    both_absent: BothAbsent = "skip",
    threshold: float | None = None,
    null_is_missing: bool = True,
) -> JsonMatchResult:
    """A score per configured field and their aggregate (Agenta's JSON Multi-Field Match).

    Args:
        actual: The agent output: JSON data, text (read by `parse_answer`), a model or an `AgentResult`.
        expected: The ground truth: JSON data (an object, or a list, which Agenta accepts only
            as JSON text), JSON text, or a Pydantic model (read as its JSON form).
        fields: Paths in dot notation (`address.city`, `items[0].name`, `items.0`, `["a.b"]`),
            JSON Path (`$.items[-1]`, `$..city`) or JSON Pointer (`/address/city`); see
            `parse_field_path`. A JSON Path with several matches resolves to the list of them.
            A dotted path that is literally a top-level key on either side (`"a.b"`) reads
            that key on both sides, as Agenta does; `a["b"]` or `/a/b` always nests.
        both_absent: A field that resolves on neither side: `"skip"` (default) leaves it
            out of the aggregate, `"match"` scores it 1.0 (Agenta), `"miss"` scores it 0.0.
        threshold: The aggregate at or above which the pair passes. Default None, meaning 1.0
            (every scored field matched); any number in [0, 1].
        null_is_missing: A field that is null says the same as a field that is absent: null
            against missing (or null) is a match, scored 1.0, as `StructuredOutputSimilarity`
            judges it and as a Pydantic `model_dump()` output needs (it writes `None` for every
            unset optional field). Default True. False makes null a value: null against a
            missing field is `missed` or `invented`. A path absent on both sides is
            `both_absent`'s either way.

    Returns:
        `field_scores` maps each scored path to 1.0 or 0.0; `score` is their mean (0.0 when no
        field was scored). A field is `match` when both sides resolve to the same value
        (`same_value`), `wrong`, `missed` (only the ground truth has a value), `invented` or
        `absent`. Output that is not JSON scores every configured field 0, including fields
        the ground truth lacks (as Agenta), sets `error="unreadable"` and never passes. The
        reason names every field whose score differs from Agenta's, and why.

    Raises:
        FieldPathError: If a path does not parse, or `fields` is empty or repeats a path.
        GroundTruthError: If the ground truth is not JSON, or is a scalar (it has no fields).
        ValueError: If `threshold` or `both_absent` is out of range.
    """
    paths = parse_fields(fields)
    bar = check_threshold(threshold, 1.0)
    check_both_absent(both_absent)
    # Both sides are checked whole (in C; `deep=False`), as the other evaluators check them: a value that
    # is not JSON data (a set, a cycle) anywhere makes the output unreadable or the ground truth an error,
    # whichever fields are configured. Only the values at the configured paths are converted.
    gt = read_expected(expected, deep=False)
    if not isinstance(gt, (dict, list)):
        raise GroundTruthError(
            f"expected must be a JSON object or array to have fields; got the {json_type(gt)} {short(gt)}. "
            "Use exact_match for a single value"
        )
    read = read_output(actual, deep=False)
    theirs = agenta.field_scores(actual, expected, paths)  # None: Agenta raises on this ground truth
    notes: list[str] = []
    if theirs is None:
        notes.append("ground truth given as a list is read as JSON (Agenta raises unless it is JSON text)")
    if read.ok and isinstance(read.value, list):
        notes.append("output is a JSON array and paths resolve into it (Agenta scores every field 0)")
    if read.ok and read.how not in ("value", "model", "json"):
        notes.append(f"output read as {_how(read)} (Agenta reads only whole-text JSON and scores every field 0)")
    covered: set[str] = set()  # paths whose difference from Agenta a note states

    def differs(item: FieldResult) -> bool:
        return theirs is not None and item.score != theirs.get(item.path)

    def agenta_says(item: FieldResult) -> str:
        return f"Agenta scores {theirs[item.path]:.1f}" if theirs is not None else "Agenta raises"

    results: list[FieldResult] = []
    for path in paths:
        if not read.ok:
            e_found, e_value, e_why = resolve_path(path, gt)
            status = "missed" if e_found else "absent"
            reason = f"output is not JSON, so every field scores 0 (as Agenta): {read.message}"
            results.append(FieldResult(path.text, status, 0.0, e_value, None, reason))
            continue
        before = len(notes)
        path = _literal_first(path, gt, read.value, notes)
        e_found, e_value, e_why = resolve_path(path, gt)
        if e_found:
            e_json, e_plain = as_json(e_value)
            if not e_json:
                raise GroundTruthError(
                    f"expected must be JSON data; at {path.text} it holds a {type(e_value).__name__}. "
                    "Convert it to plain JSON types (dict, list, str, number, bool, None) first"
                )
            e_value = e_plain
        a_found, a_value, a_why = resolve_path(path, read.value)
        if a_found:
            a_json, a_plain = as_json(a_value)
            if not a_json:
                reason = f"the output holds a {type(a_value).__name__} here, which is not JSON data"
                results.append(FieldResult(path.text, "wrong", 0.0, e_value if e_found else None, None, reason))
                continue
            a_value = a_plain
        e_has = e_found and not (null_is_missing and e_value is None)
        a_has = a_found and not (null_is_missing and a_value is None)
        if e_has and a_has:
            equal = same_value(e_value, a_value)
            reason = "equal" if equal else f"expected {short(e_value)}, got {short(a_value)}"
            item = FieldResult(path.text, "match" if equal else "wrong", float(equal), e_value, a_value, reason)
        elif e_has:
            why = a_why or "null"
            item = FieldResult(path.text, "missed", 0.0, e_value, a_value, f"not in the output: {why}")
            if e_value is None and differs(item):
                notes.append(
                    f"{path.text}: null in the ground truth and missing from the output is a miss with "
                    f"null_is_missing=False ({agenta_says(item)})"
                )
        elif a_has:
            why = e_why or "null"
            item = FieldResult(path.text, "invented", 0.0, e_value, a_value, f"not in the ground truth: {why}")
            if a_value is None and differs(item):
                notes.append(
                    f"{path.text}: missing from the ground truth and null in the output is invented with "
                    f"null_is_missing=False ({agenta_says(item)})"
                )
        elif e_found or a_found:
            reason = (
                "no value on either side: null and a missing field read alike (null_is_missing); "
                f"expected: {'null' if e_found else e_why}; output: {'null' if a_found else a_why}"
            )
            item = FieldResult(path.text, "match", 1.0, None, None, reason)
        else:
            score = {"skip": None, "match": 1.0, "miss": 0.0}[both_absent]
            reason = f"absent on both sides (expected: {e_why}; output: {a_why})"
            item = FieldResult(path.text, "absent", score, None, None, reason)
            if differs(item):
                done = "not scored" if score is None else f"scored {score:.0f}"
                notes.append(f"{path.text}: absent on both sides, {done} ({agenta_says(item)})")
        results.append(item)
        if len(notes) > before:
            covered.add(path.text)
    python_eq = python_eq_differs(results)
    if python_eq:
        notes.append(f"{', '.join(python_eq)}: compared by value, so True != 1 and NaN == NaN (Agenta uses Python ==)")
        covered.update(python_eq)
    whole = read.ok and read.how in ("value", "model", "json") and not isinstance(read.value, list)
    if whole and theirs is not None:  # otherwise a note above already gives Agenta's 0 for every field
        notes += _agenta_differences(gt, read.value, paths, results, theirs, covered)
    scored = {item.path: item.score for item in results if item.score is not None}
    score = sum(scored.values()) / len(scored) if scored else 0.0
    passed = read.ok and bool(scored) and score >= bar  # unreadable output never passes
    failed = [item.path for item in results if item.status in ("wrong", "missed", "invented")]
    if not read.ok:
        head = f"{read.message}; every field scores 0"
    elif not scored:
        head = "no configured field is present on either side; nothing was scored"
    else:
        head = f"{sum(scored.values()):g} of {len(scored)} fields matched (aggregate {score:.2f}, threshold {bar:.2f})"
        if failed:
            head += f"; not matched: {', '.join(failed)}"
    if read.ok and read.how not in ("value", "model", "json"):
        head += f" (output read as {read.how})"
    error = None if read.ok else "unreadable"
    return JsonMatchResult(
        "json_field_match", score, passed, _join(head, notes), tuple(results), scored, tuple(notes), error
    )


def _how(read: JsonRead) -> str:
    """How the output was read, for a note; a repaired answer says what was repaired."""
    if read.how == "repaired":
        return f"repaired ({read.message})"
    return read.how


def _agenta_differences(
    gt: Any,
    out: Any,
    paths: Sequence[FieldPath],
    results: Sequence[FieldResult],
    theirs: dict[str, float],
    covered: set[str],
) -> list[str]:
    """A note for each field whose score differs from Agenta's and no other note explains."""
    notes = []
    for path, item in zip(paths, results, strict=True):
        agenta_score = theirs.get(path.text)
        if path.text in covered or agenta_score is None or item.score == agenta_score:
            continue
        if isinstance(out, list) or not isinstance(out, dict):
            why = "it scores every field 0 unless the output is a whole-text JSON object"
        elif path.syntax == "dot" and any(kind != "either" for kind, _ in path.steps):
            why = "its dot paths read no brackets, so the path resolves on neither side and None == None"
        elif agenta.resolve(path, gt) is None and agenta.resolve(path, out) is None:
            why = "the path resolves on neither side there, and None == None"
        else:
            why = "it compares the resolved values with Python =="
        ours = "not scored" if item.score is None else f"{item.score:.1f} here"
        notes.append(f"{path.text}: Agenta scores {agenta_score:.1f}, {ours} ({why})")
    return notes


def _schema_type(value: Any) -> str:
    """The type `compare_schema_only` compares: `json_type`, with integer and float apart (Agenta's Python types)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return "integer"
    return "float" if isinstance(value, float) else json_type(value)


def json_diff(
    actual: Any,
    expected: Any,
    *,
    compare_schema_only: bool = False,
    case_insensitive_keys: bool = False,
    penalize_extra_keys: bool = False,
    skip_nulls: bool = False,
    compare_empty_containers: bool = False,
    threshold: float | None = None,
    null_is_missing: bool = True,
) -> JsonMatchResult:
    """The share of ground-truth leaves the output matches (Agenta's JSON Diff Match).

    Both sides are flattened to leaves (`address.zip`, `items[0]`); an empty object or array
    is a leaf. Each leaf of the key set scores 1 when both sides have it and agree, else 0.

    Args:
        actual: The agent output: JSON data, text (read by `parse_answer`), a model or an `AgentResult`.
        expected: The ground truth: JSON data, or JSON text.
        compare_schema_only: Agree means the same type, not the same value: null, boolean,
            integer, float, string, array, object (as Agenta: `5` and `5.0` differ, `True` and
            `1` differ). Default False.
        case_insensitive_keys: Fold key case on both sides and in the key set. Two ground-truth
            keys that fold together are an error; two output keys that do score that leaf 0.
            Default False.
        penalize_extra_keys: The key set is the union of both sides' leaves, so a leaf only
            the output has counts as a miss (Agenta's `predict_keys=True`). Default False: the
            key set is the ground truth's leaves and extra output keys are ignored.
        skip_nulls: Leave out leaves that are null in the ground truth (and, with
            `penalize_extra_keys`, extra null leaves of the output). Default False: null
            equals null.
        compare_empty_containers: Treat an empty object or array (and a scalar ground truth)
            as a leaf to compare. Default False: as Agenta, they have no leaves, so
            `{"a": 1, "tags": []}` scores only `a`, and `{}` against anything scores 0.
        threshold: The score at or above which the pair passes. Default None, meaning 0.5;
            any number in [0, 1], including 0 and the integers 0 and 1.
        null_is_missing: A null leaf and a missing one say the same: a null ground-truth leaf
            the output lacks agrees, and an extra null output leaf is not counted (with
            `penalize_extra_keys`), as `StructuredOutputSimilarity` judges a Pydantic
            `model_dump()` output. Default True. False: a null leaf the output lacks is missed,
            and an extra null leaf is invented.

    Returns:
        `score` in [0, 1] (0.0 and not passed when the key set is empty, as Agenta); `fields`
        per leaf; `field_scores` the mean leaf score per top-level key. Output that is
        not JSON scores 0 with `error="unreadable"` and never passes; it does not raise.

    Raises:
        GroundTruthError: If the ground truth is not JSON, or (with `case_insensitive_keys`)
            has keys that differ only in case.
        ValueError: If `threshold` is not a number in [0, 1].

    Notes:
        A ground truth given as a list (not JSON text) is read as JSON; Agenta raises on it.
    """
    bar = check_threshold(threshold, 0.5)
    gt = read_expected(expected)
    read = read_output(actual)
    notes: list[str] = []
    if isinstance(expected, list):
        notes.append("ground truth given as a list is read as JSON (Agenta raises unless it is JSON text)")
    keep = compare_empty_containers
    g_flat, o_flat = flatten(gt, keep_empty=keep), (flatten(read.value, keep_empty=keep) if read.ok else {})
    names: dict[Steps, Steps] = {}
    ambiguous: dict[Steps, list[Steps]] = {}
    if case_insensitive_keys:
        g_flat, names, collisions = fold_keys(g_flat)
        if collisions:
            shown = "; ".join(", ".join(map(render_path, group)) for group in collisions.values())
            raise GroundTruthError(
                f"expected must not have keys that differ only in case when case_insensitive_keys=True; got {shown}. "
                "Rename them, or compare keys case-sensitively"
            )
        o_flat, o_names, ambiguous = fold_keys(o_flat)
        originals = [*names.items(), *(o_names.items() if penalize_extra_keys else ())]
        names = {**o_names, **names}
        if any(steps != key for key, steps in originals):
            notes.append(
                "keys compared case-insensitively on both sides (Agenta never matches a key with upper-case letters)"
            )

    def agree(e: Any, p: Any) -> bool:
        return _schema_type(e) == _schema_type(p) if compare_schema_only else same_value(e, p)

    pairs = compare_leaves(
        g_flat,
        o_flat,
        agree=agree,
        extras=penalize_extra_keys and read.ok,
        names=names,
        ambiguous=ambiguous,
        skip_nulls=skip_nulls,
        null_is_missing=null_is_missing,
    )
    results = [item for _, item in pairs]
    by_top: dict[str, list[float]] = {}
    for key, item in pairs:
        by_top.setdefault(render_path(names.get(key, key)[:1]), []).append(float(item.score or 0.0))
    field_scores = {top: sum(scores) / len(scores) for top, scores in by_top.items()}
    matched = sum(1 for item in results if item.status == "match")
    score = matched / len(results) if results else 0.0
    passed = read.ok and bool(results) and score >= bar  # unreadable output never passes
    if not read.ok:
        notes.append("non-JSON output scores 0 (Agenta raises an error)")
    elif read.how not in ("value", "model", "json"):
        notes.append(f"output read as {_how(read)} (Agenta raises on anything but whole-text JSON)")
    if any(item.status == "match" and item.expected is None for item in results):
        also = (
            " and a missing leaf"
            if any(item.predicted is None and "missing" in item.reason for item in results)
            else ""
        )
        notes.append(f"null equals null{also} (Agenta scores null leaves 0)")
    if keep and any(isinstance(value, (dict, list)) or () in g_flat for value in (*g_flat.values(), *o_flat.values())):
        notes.append("empty objects and arrays are compared as values (Agenta drops them)")
    if any(isinstance(step, str) and "." in step for key in g_flat for step in names.get(key, key)):
        notes.append("keys containing '.' stay distinct from nested paths (Agenta's flattening lets them collide)")
    if not compare_schema_only:
        differs = python_eq_differs(results)
        if differs:
            notes.append(
                f"{', '.join(differs[:5])}: compared by value, so True != 1 and NaN == NaN (Agenta uses Python ==)"
            )
    if bar == 0.0:
        notes.append("threshold 0 is kept (Agenta turns a falsy threshold into 0.5)")
    if not read.ok:
        head = f"{read.message}; score 0"
    elif not results:
        head = (
            "the ground truth has no leaf to compare (it is empty, holds only empty objects or arrays, or is a "
            "scalar); score 0, as Agenta"
        )
    else:
        failed = [item.path for item in results if item.status != "match"]
        head = f"{matched} of {len(results)} leaves agree (score {score:.2f}, threshold {bar:.2f})"
        if failed:
            head += f"; not matched: {', '.join(failed[:8])}" + (
                f" and {len(failed) - 8} more" if len(failed) > 8 else ""
            )
    error = None if read.ok else "unreadable"
    return JsonMatchResult(
        "json_diff", score, passed, _join(head, notes), tuple(results), field_scores, tuple(notes), error
    )


# -- Strands Evals evaluators ---------------------------------------------------------------


class _JsonMatchEvaluator(Evaluator[Any, Any]):
    """One row per case from a scorer above; the row's metadata carries the per-field detail."""

    _kind = ""
    _needs_expected = True

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def evaluate(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        """Score one case.

        Returns:
            One row: score, `test_pass` and reason from the scorer, and `metadata` from
            `JsonMatchResult.to_metadata` (`evaluated_by` is `json_match:<kind>`). With no ground
            truth (except for `ContainsJson`) the row is not applicable: score 0.0, `test_pass`
            True, label `NOT_APPLICABLE`. A ground truth that is not JSON gives a score-0 row
            with `metadata["error"] == "unreadable"` and the reason, rather than an exception.
        """
        expected = evaluation_case.expected_output
        if self._needs_expected and expected is None:
            return [
                EvaluationOutput(
                    score=0.0, test_pass=True, reason="no ground truth to compare with", label=NOT_APPLICABLE
                )
            ]
        try:
            result = self._score(evaluation_case.actual_output, expected)
        except GroundTruthError as exc:
            result = JsonMatchResult(self._kind, 0.0, False, f"ground truth unreadable: {exc}", error="unreadable")
        logger.debug(
            "case=<%s>, evaluator=<%s>, score=<%.4f> | scored json match",
            evaluation_case.name,
            self.get_name(),
            result.score,
        )
        return [
            EvaluationOutput(
                score=result.score, test_pass=result.passed, reason=result.reason, metadata=result.to_metadata()
            )
        ]

    async def evaluate_async(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        return self.evaluate(evaluation_case)


class ExactMatch(_JsonMatchEvaluator):
    """Strands Evals evaluator for `exact_match`.

    Args:
        ignore_case: Compare strings case-insensitively. Default False.
        strip: Ignore leading and trailing whitespace of strings. Default False.
        null_is_missing: Null-valued keys count as absent. Default True; see `exact_match`.
        name: Evaluator name in the report. Default None (the class name).
    """

    _kind = "exact_match"

    def __init__(
        self, *, ignore_case: bool = False, strip: bool = False, null_is_missing: bool = True, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.ignore_case = ignore_case
        self.strip = strip
        self.null_is_missing = null_is_missing

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return exact_match(
            actual, expected, ignore_case=self.ignore_case, strip=self.strip, null_is_missing=self.null_is_missing
        )


class ContainsJson(_JsonMatchEvaluator):
    """Strands Evals evaluator for `contains_json`; needs no ground truth.

    Args:
        name: Evaluator name in the report. Default None (the class name).
    """

    _kind = "contains_json"
    _needs_expected = False

    def __init__(self, *, name: str | None = None) -> None:
        super().__init__(name=name)

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return contains_json(actual)


class JsonFieldMatch(_JsonMatchEvaluator):
    """Strands Evals evaluator for `json_field_match`; the paths are parsed here, once.

    Args:
        fields: The field paths (see `parse_field_path`).
        both_absent: `"skip"` (default), `"match"` or `"miss"`; see `json_field_match`.
        threshold: Aggregate needed to pass. Default None (1.0).
        null_is_missing: Null and a missing field read alike. Default True; see `json_field_match`.
        name: Evaluator name in the report. Default None (the class name).

    Raises:
        FieldPathError: If a path does not parse, or `fields` is empty or repeats a path.
        ValueError: If `threshold` or `both_absent` is out of range.
    """

    _kind = "json_field_match"

    def __init__(
        self,
        fields: Sequence[str],
        *,
        both_absent: BothAbsent = "skip",
        threshold: float | None = None,
        null_is_missing: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self._paths = parse_fields(fields)
        check_threshold(threshold, 1.0)
        check_both_absent(both_absent)
        self.fields = [path.text for path in self._paths]
        self.both_absent = both_absent
        self.threshold = threshold
        self.null_is_missing = null_is_missing

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return json_field_match(
            actual,
            expected,
            fields=self._paths,
            both_absent=self.both_absent,
            threshold=self.threshold,
            null_is_missing=self.null_is_missing,
        )


class JsonDiff(_JsonMatchEvaluator):
    """Strands Evals evaluator for `json_diff`.

    Args:
        compare_schema_only: Compare JSON types, not values. Default False.
        case_insensitive_keys: Fold key case on both sides. Default False.
        penalize_extra_keys: Count leaves only the output has as misses. Default False.
        skip_nulls: Leave out null ground-truth leaves. Default False.
        compare_empty_containers: Compare empty objects and arrays as leaves. Default False (Agenta).
        threshold: Score needed to pass. Default None (0.5).
        null_is_missing: A null leaf and a missing one agree. Default True; see `json_diff`.
        name: Evaluator name in the report. Default None (the class name).

    Raises:
        ValueError: If `threshold` is not a number in [0, 1].
    """

    _kind = "json_diff"

    def __init__(
        self,
        *,
        compare_schema_only: bool = False,
        case_insensitive_keys: bool = False,
        penalize_extra_keys: bool = False,
        skip_nulls: bool = False,
        compare_empty_containers: bool = False,
        threshold: float | None = None,
        null_is_missing: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        check_threshold(threshold, 0.5)
        self.null_is_missing = null_is_missing
        self.compare_empty_containers = compare_empty_containers
        self.compare_schema_only = compare_schema_only
        self.case_insensitive_keys = case_insensitive_keys
        self.penalize_extra_keys = penalize_extra_keys
        self.skip_nulls = skip_nulls
        self.threshold = threshold

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return json_diff(
            actual,
            expected,
            compare_schema_only=self.compare_schema_only,
            case_insensitive_keys=self.case_insensitive_keys,
            penalize_extra_keys=self.penalize_extra_keys,
            skip_nulls=self.skip_nulls,
            compare_empty_containers=self.compare_empty_containers,
            threshold=self.threshold,
            null_is_missing=self.null_is_missing,
        )
