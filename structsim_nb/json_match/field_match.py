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

from ..answers import has_think_tag
from ..errors import GroundTruthError
from . import agenta
from .paths import FieldPath, is_list_index, parse_fields, resolve_path
from .results import (
    FieldResult,
    JsonMatchResult,
    LeafResults,
    field_result,
    json_match_result,
    python_eq_differs,
    with_notes,
)
from .values import (
    JsonRead,
    as_json_or_why,
    check_threshold,
    how_read,
    json_type,
    read_as_given,
    read_expected,
    read_output,
    same_value,
    short,
)

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

        Only the values at the configured paths are read, as Agenta reads them: a value JSON
        cannot hold elsewhere in either document (a dict or list, or a subclass; a set, a date,
        a reference cycle) is not looked at. At a configured path it scores 0 in the output
        (`wrong`, or `invented` where the ground truth has no value; the reason says why) and
        raises `GroundTruthError` in the ground truth, also when the output is not JSON. A
        JSON Path can reach any part of a document (`$..city`, wildcards), so with one among
        `fields` both documents must be JSON data throughout, as for the other evaluators.

    Raises:
        FieldPathError: If a path does not parse, or `fields` is empty or repeats a path.
        GroundTruthError: If the ground truth is not JSON, or is a scalar (it has no fields), or
            holds a value JSON cannot hold at a configured path (anywhere, with a JSON Path).
        ValueError: If `threshold` or `both_absent` is out of range.
    """
    paths, plain = _plan(fields)
    bar = check_threshold(threshold, 1.0)
    check_both_absent(both_absent)
    # Only the values at the configured paths are read (each converted with `as_json` below), as Agenta
    # reads only them: what the rest of a document holds is not this evaluator's business, so one odd
    # value elsewhere (a set, a date, a cycle) never zeroes the case. A dot path or JSON Pointer steps
    # only along its own keys; a JSON Path may reach anything (`..`, wildcards, filters), so with one
    # configured both sides are checked whole (in C, `deep=False`) before any path is resolved.
    local = all(path.syntax != "jsonpath" for path in paths)
    gt = expected if local and isinstance(expected, (dict, list)) else read_expected(expected, deep=False)
    if not isinstance(gt, (dict, list)):
        raise GroundTruthError(
            f"expected must be a JSON object or array to have fields; got the {json_type(gt)} {short(gt)}. "
            "Use exact_match for a single value"
        )
    read = read_as_given(actual) if local and isinstance(actual, (dict, list)) else read_output(actual, deep=False)
    loaded = _loaded(actual, expected, gt, read)
    if plain is not None and type(gt) is dict and read.ok and type(read.value) is dict:
        # Both sides plain dicts, and what Agenta reads too (as given, or `json.loads` of the whole text).
        if (gt is expected or "expected_loaded" in loaded) and (read.value is actual or "output_loaded" in loaded):
            quick = _given_scalars(plain, gt, read.value, bar)
            if quick is not None:
                return quick
    # Agenta's per-field scores, for the notes. Where both sides are dicts taken as given (nothing converted,
    # as Agenta reads them; the common case) they are scored field by field below, from the walk that resolves
    # our values; anything else goes through the emulation. None: Agenta raises on this ground truth.
    given = type(expected) is dict and type(actual) is dict and read.ok and gt is expected and read.value is actual
    given_scores: dict[str, float] = {}  # filled in below when `given`
    # Output that is not JSON data scores every field 0 here and in Agenta, and is not resolved for the emulation
    # either: a JSON Path (`$..a`) on an object holding itself never returned.
    output_as_agenta_sees_it = actual if read.ok else None
    theirs = given_scores if given else agenta.field_scores(output_as_agenta_sees_it, expected, paths, **loaded)
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
    general: list[FieldResult] = []  # the fields not decided by the same-type scalar shortcut below
    out = read.value
    for path in paths:
        if not read.ok:
            e_found, e_value, e_why = resolve_path(path, gt)
            if e_found:
                e_value = _expected_json(path, e_value)
            status = "missed" if e_found else "absent"
            reason = f"output is not JSON, so every field scores 0 (as Agenta): {read.message}"
            results.append(FieldResult(path.text, status, 0.0, e_value, None, reason))
            continue
        before = len(notes)
        tokens = _simple_tokens(path)
        if (
            tokens is not None
            and len(tokens) > 1
            and ((isinstance(gt, dict) and path.text in gt) or (isinstance(out, dict) and path.text in out))
        ):
            tokens = None  # a literal dotted key: `_literal_first` decides how it is read
        e_raw = a_raw = _UNSURE
        if tokens is not None:
            e_raw, a_raw = _walk_plain(tokens, gt), _walk_plain(tokens, out)
        kind = type(e_raw)
        if kind is type(a_raw) and kind in _SAME_TYPE_SCALARS and e_raw == e_raw and a_raw == a_raw:
            # Two scalars of one type (NaN aside): same_value, Python == and Agenta's reading all agree.
            if given:
                given_scores[path.text] = 1.0 if e_raw == a_raw else 0.0
            if e_raw == a_raw:
                results.append(field_result(path.text, "match", 1.0, e_raw, a_raw, "equal"))
            else:
                reason = f"expected {short(e_raw)}, got {short(a_raw)}"
                results.append(field_result(path.text, "wrong", 0.0, e_raw, a_raw, reason))
            continue
        if e_raw is not _UNSURE and a_raw is not _UNSURE:  # plain dicts and lists all the way: one walk each
            if given:
                given_scores[path.text] = _agenta_equal(
                    None if e_raw is _NOT_FOUND else e_raw, None if a_raw is _NOT_FOUND else a_raw
                )
            e_found, e_value, e_why = (True, e_raw, "") if e_raw is not _NOT_FOUND else resolve_path(path, gt)
            a_found, a_value, a_why = (True, a_raw, "") if a_raw is not _NOT_FOUND else resolve_path(path, out)
        else:
            if given:
                given_scores[path.text] = _agenta_field(path, expected, actual)
            path = _literal_first(path, gt, out, notes)
            e_found, e_value, e_why = resolve_path(path, gt)
            a_found, a_value, a_why = resolve_path(path, out)
        if e_found:
            e_value = _expected_json(path, e_value)
        if a_found and type(a_value) not in _SCALARS:
            a_json, a_plain, a_wrong = as_json_or_why(a_value)
            if not a_json:
                reason = f"the output's value here is not JSON data: it {a_wrong}"
                e_has = e_found and not (null_is_missing and e_value is None)
                status = "wrong" if e_has else "invented"  # a value the ground truth lacks is invented, odd or not
                item = FieldResult(path.text, status, 0.0, e_value if e_found else None, None, reason)
                results.append(item)
                general.append(item)
                continue
            a_value = a_plain
        e_has = e_found and not (null_is_missing and e_value is None)
        a_has = a_found and not (null_is_missing and a_value is None)
        if e_has and a_has:
            equal = same_value(e_value, a_value)
            reason = "equal" if equal else f"expected {short(e_value)}, got {short(a_value)}"
            item = field_result(path.text, "match" if equal else "wrong", float(equal), e_value, a_value, reason)
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
        general.append(item)
        if len(notes) > before:
            covered.add(path.text)
    python_eq = python_eq_differs(general)
    if python_eq:
        notes.append(f"{', '.join(python_eq)}: compared by value, so True != 1 and NaN == NaN (Agenta uses Python ==)")
        covered.update(python_eq)
    whole = read.ok and read.how in ("value", "model", "json") and not isinstance(read.value, list)
    # Otherwise a note above already gives Agenta's 0 for every field; fields the shortcut decided score as Agenta's.
    if whole and theirs is not None and (general or not given):
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


#: `(path, its tokens)` per configured path, all simple (`_simple_tokens`).
_Plain = tuple[tuple[FieldPath, tuple[str, ...]], ...]
#: id(fields) -> (fields, their parsed paths, `_given_scalars`' plan or None), for fields given as a tuple.
_PLANS: dict[int, tuple[Any, tuple[FieldPath, ...], _Plain | None]] = {}


def _plan(
    fields: Sequence[str | FieldPath],
) -> tuple[tuple[FieldPath, ...], _Plain | None]:
    """`parse_fields(fields)`, and `(path, tokens)` per path when every path is simple (`_simple_tokens`).

    A tuple (of strings and frozen `FieldPath`s, so it cannot change) is parsed once and remembered
    by identity, holding a reference so the identity is not reused: an evaluator passes the same
    tuple on every call. Anything else is parsed on every call.
    """
    if type(fields) is tuple:
        known = _PLANS.get(id(fields))
        if known is not None and known[0] is fields:
            return known[1], known[2]
    paths = parse_fields(fields)
    simple = [(path, tokens) for path in paths if (tokens := _simple_tokens(path)) is not None]
    plain = tuple(simple) if len(simple) == len(paths) else None
    if type(fields) is tuple and all(type(item) in (str, FieldPath) for item in fields):
        if len(_PLANS) > 1_000:
            _PLANS.clear()
        _PLANS[id(fields)] = (fields, paths, plain)
    return paths, plain


def _given_scalars(plain: _Plain, gt: dict[Any, Any], out: dict[Any, Any], bar: float) -> JsonMatchResult | None:
    """The result for two plain dicts when every path is simple and finds a scalar of one type on both sides
    (or on one side, a missing field on the other); None otherwise, for the general path to decide.

    The common case, decided with one walk per side and field: the values are `str`, `int`, `float` (not NaN)
    or `bool` of the same type, so `same_value`, Python `==` and Agenta's reading agree and no note applies;
    a field missing on one side scores 0 as Agenta's `None == value` does. What the general path gives
    in that case, field for field (a differential test holds the two together); the `FieldResult`s are
    made when `fields` is first read.
    """
    rows: list[tuple[str, str, Any, Any, str]] = []
    scores: dict[str, float] = {}
    failed: list[str] = []
    kinds, missing = _SAME_TYPE_SCALARS, _NOT_FOUND
    for path, tokens in plain:
        text = path.text
        if len(tokens) > 1 and (text in gt or text in out):
            return None  # a literal dotted key: `_literal_first` decides how it is read
        e, a = _walk_plain(tokens, gt), _walk_plain(tokens, out)
        kind = type(e)
        if kind is type(a) and kind in kinds and e == e and a == a:
            if e == a:
                rows.append((text, "match", e, a, "equal"))
                scores[text] = 1.0
                continue
            rows.append((text, "wrong", e, a, f"expected {short(e)}, got {short(a)}"))
        elif a is missing and kind in kinds:
            why = resolve_path(path, out)[2]
            rows.append((text, "missed", e, None, f"not in the output: {why}"))
        elif e is missing and type(a) in kinds:
            why = resolve_path(path, gt)[2]
            rows.append((text, "invented", None, a, f"not in the ground truth: {why}"))
        else:
            return None
        scores[text] = 0.0
        failed.append(text)
    score = (len(rows) - len(failed)) / len(rows)
    head = f"{len(rows) - len(failed):g} of {len(rows)} fields matched (aggregate {score:.2f}, threshold {bar:.2f})"
    if failed:
        head += f"; not matched: {', '.join(failed)}"
    return json_match_result("json_field_match", score, score >= bar, head, LeafResults(rows, str), scores)


def _loaded(actual: Any, expected: Any, gt: Any, read: JsonRead) -> dict[str, Any]:
    """`json.loads`'s value of the text sides read here already, so `agenta.field_scores` need not read them again.

    The ground truth's text was read by `read_expected` (`json.loads`'s value). Text output read
    as whole-text JSON is what `json.loads(actual)` gives when nothing was blanked (a `<think>`
    block) and the text's outer whitespace is JSON whitespace; otherwise Agenta's reading is left to it.
    """
    loaded: dict[str, Any] = {}
    if isinstance(expected, str):
        loaded["expected_loaded"] = gt
    if (
        type(actual) is str
        and read.ok
        and read.how == "json"
        and not has_think_tag(actual)
        and actual.strip() == actual.strip(" \t\n\r")
    ):
        loaded["output_loaded"] = read.value
    return loaded


_SCALARS = frozenset({str, int, float, bool, type(None)})
_SAME_TYPE_SCALARS = frozenset({str, int, float, bool})
#: What `_walk_plain` returns when a path is missing, or when it cannot tell (see there).
_NOT_FOUND, _UNSURE = object(), object()
#: Path text -> (its steps, its tokens if it resolves alike here and in Agenta's `resolve_any`, else None).
_SIMPLE: dict[str, tuple[Any, tuple[str, ...] | None]] = {}


def _simple_tokens(path: FieldPath) -> tuple[str, ...] | None:
    """The tokens of a dot path that this package and Agenta resolve the same way, else None.

    That is a path of plain dot segments (every step `either`; no brackets; no empty segment, which
    Agenta would read as part of a literal top-level key first) where a segment that could index a
    list is a non-negative ASCII integer without leading zeros: `-1`, `01` or `²` index
    differently (or not at all) in Agenta's `str.isdigit` reading.
    """
    cached = _SIMPLE.get(path.text)
    if cached is not None and (cached[0] is path.steps or cached[0] == path.steps):
        return cached[1]
    tokens: tuple[str, ...] | None = None
    if (
        path.syntax == "dot"
        and path.steps
        and all(kind == "either" and isinstance(token, str) for kind, token in path.steps)
        and ".".join(token for _, token in path.steps) == path.text
    ):
        tokens = tuple(token for _, token in path.steps)
        digitlike = (token for token in tokens if token.isdigit() or token.lstrip("-").isdigit())
        if any(not is_list_index(token) for token in digitlike):
            tokens = None
    if len(_SIMPLE) > 10_000:
        _SIMPLE.clear()
    _SIMPLE[path.text] = (path.steps, tokens)
    return tokens


def _walk_plain(tokens: tuple[str, ...], data: Any) -> Any:
    """The value at `tokens` in `data`, `_NOT_FOUND`, or `_UNSURE` past anything but a plain dict or list.

    Through plain dicts and lists a simple path (`_simple_tokens`) resolves as `resolve_path`
    resolves it, and as Agenta's resolver does; a tuple or a subclass on the way is left to those.
    """
    current = data
    for token in tokens:
        kind = type(current)
        if kind is dict:
            current = current.get(token, _NOT_FOUND)
            if current is _NOT_FOUND:
                return _NOT_FOUND
        elif kind is list:
            if not token.isdigit():
                return _NOT_FOUND
            index = int(token)
            if index >= len(current):
                return _NOT_FOUND
            current = current[index]
        elif kind in _SCALARS:
            return _NOT_FOUND  # both readers stop at a scalar
        else:
            return _UNSURE
    return current


def _expected_json(path: FieldPath, value: Any) -> Any:
    """The ground truth's value at `path` as JSON data (tuples become lists).

    Raises:
        GroundTruthError: If it is not JSON data, naming the path and why.
    """
    if type(value) in _SCALARS:
        return value
    ok, plain, why = as_json_or_why(value)
    if not ok:
        raise GroundTruthError(
            f"expected must be JSON data; at {path.text} it {why}. "
            "Convert it to plain JSON types (dict, list, str, number, bool, None) first"
        )
    return plain


def _agenta_equal(expected: Any, actual: Any) -> float:
    """Agenta's score for two resolved values: 1.0 if Python `==` holds. Values not yet checked as JSON
    can hold anything (two different reference cycles raise RecursionError); a failed comparison is 0.0."""
    try:
        return 1.0 if expected == actual else 0.0
    except Exception:  # noqa: BLE001 - any failure of `==` on values that are not JSON data
        return 0.0


def _agenta_field(path: FieldPath, expected: Any, actual: Any) -> float:
    """Agenta's score for one field of two dicts (`agenta.field_scores` for one path)."""
    try:
        return 1.0 if agenta.resolve(path, expected) == agenta.resolve(path, actual) else 0.0
    except Exception:  # noqa: BLE001 - values not checked as JSON (two reference cycles) can fail to compare
        return 0.0


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
