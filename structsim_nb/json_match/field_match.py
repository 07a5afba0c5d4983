"""Agenta's JSON Multi-Field Match: `json_field_match(actual, expected, fields=...)`, a score per field.

Each configured path (dot notation, JSON Path or JSON Pointer; see `paths`) is resolved on both
sides and scored 1.0 or 0.0; the aggregate is their mean. A field absent on both sides is left out
by default (`both_absent`), null reads as missing by default (`null_is_missing`), and the reason
names every field whose score differs from Agenta's, and why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from ..errors import GroundTruthError
from . import agenta
from .paths import FieldPath, parse_fields, resolve_path
from .results import FieldResult, JsonMatchResult, python_eq_differs, with_notes
from .values import as_json, check_threshold, how_read, json_type, read_expected, read_output, same_value, short

__all__ = ["BothAbsent", "check_both_absent", "json_field_match"]

BothAbsent = Literal["skip", "match", "miss"]


def check_both_absent(value: str) -> BothAbsent:
    """`value` if it is a `both_absent` choice.

    Raises:
        ValueError: If it is not `"skip"`, `"match"` or `"miss"`.
    """
    if value not in ("skip", "match", "miss"):
        raise ValueError(f"both_absent must be 'skip', 'match' or 'miss'; got {value!r}")
    return value  # type: ignore[return-value]


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
        notes.append(f"output read as {how_read(read)} (Agenta reads only whole-text JSON and scores every field 0)")
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
        "json_field_match", score, passed, with_notes(head, notes), tuple(results), scored, tuple(notes), error
    )


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
