"""Agenta's JSON Diff Match: `json_diff(actual, expected)`, the share of ground-truth leaves the output matches.

Both sides are flattened to leaves (`flatten`); each leaf of the key set scores 1 when both sides
have it and agree (by value, or by type with `compare_schema_only`). Options cover Agenta's
(case-insensitive keys, extra keys, nulls, empty containers, threshold), and the reason says
where Agenta would score differently.
"""

from __future__ import annotations

import re
from collections import Counter, _count_elements  # type: ignore[attr-defined]
from collections.abc import Iterable
from functools import partial
from itertools import product
from operator import itemgetter
from typing import Any

from .._jsonload import loads
from ..answers import MAX_CHARS, has_think_tag
from ..errors import GroundTruthError
from .flatten import (
    LeafTally,
    Steps,
    compare_rows,
    flatten,
    flatten_compared,
    flatten_json,
    fold_keys,
    leaf_path,
)
from .paths import render_path
from .results import JsonMatchResult, LeafResults, json_match_result, with_notes
from .values import JsonRead, check_threshold, how_read, json_type, read_expected, read_output, same_value

__all__ = ["json_diff"]


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
    keep = compare_empty_containers
    # Data given as a dict or list, or as whole JSON text, is checked while it is flattened (one walk);
    # anything that walk refuses is read the long way, which says why. (The output first: it never raises.)
    o_value = _given(actual, text_is="answer")
    o_flat = None if o_value is _UNREAD else flatten_json(o_value, keep_empty=keep)
    if o_flat is not None:
        read = _GIVEN_TEXT if type(actual) is str else _GIVEN
    else:
        read = read_output(actual)
        o_value = read.value
        o_flat = flatten(read.value, keep_empty=keep) if read.ok else {}
    extras = penalize_extra_keys and read.ok

    def agree(e: Any, p: Any) -> bool:
        return _schema_type(e) == _schema_type(p) if compare_schema_only else same_value(e, p)

    tally = LeafTally()
    g_value = _given(expected, text_is="data")
    compared = None
    if not (keep or skip_nulls or case_insensitive_keys or extras) and g_value is not _UNREAD:
        # Flattened and counted in one walk (no case folding, nulls kept, no extras); None: not plain JSON.
        compared = flatten_compared(g_value, o_flat, agree if compare_schema_only else same_value, tally)
    dotted: list[bool] = []
    if compared is not None:
        g_flat, dotted = compared.flat, [True] if compared.dotted else []
    else:
        walked = None if g_value is _UNREAD else flatten_json(g_value, keep_empty=keep, dotted=dotted)
        if walked is not None:
            g_flat = walked
        else:
            g_flat = flatten(read_expected(expected), keep_empty=keep)
            dotted = [True] if any(isinstance(step, str) and "." in step for key in g_flat for step in key) else []
    notes: list[str] = []
    if isinstance(expected, list):
        notes.append("ground truth given as a list is read as JSON (Agenta raises unless it is JSON text)")
    names: dict[Steps, Steps] = {}
    ambiguous: dict[Steps, list[Steps]] = {}
    if case_insensitive_keys:
        unlike_lower: list[bool] = []
        g_flat, names, collisions = fold_keys(g_flat, unlike_lower=unlike_lower)
        if collisions:
            shown = "; ".join(", ".join(map(render_path, group)) for group in collisions.values())
            raise GroundTruthError(
                f"expected must not have keys that differ only in case when case_insensitive_keys=True; got {shown}. "
                "Rename them, or compare keys case-sensitively"
            )
        o_flat, o_names, ambiguous = fold_keys(o_flat, unlike_lower=unlike_lower)
        originals = [*names.items(), *(o_names.items() if penalize_extra_keys else ())]
        names = {**o_names, **names}
        if any(steps != key for key, steps in originals):
            notes.append(
                "keys compared case-insensitively on both sides (Agenta never matches a key with upper-case letters)"
            )
        if unlike_lower:
            notes.append("keys folded with str.casefold, so 'ß' matches 'ss' (Agenta lowers them with str.lower)")

    # Whether a leaf not matched may have a twin that Agenta writes at its path (`_agenta_twin`). When the
    # output has every ground-truth leaf, the containers on each leaf's path are of one type on both sides,
    # so an index and a key of its digits never both occur: only a top-level "" key can make one, and the
    # output has it whenever the ground truth has one with a leaf.
    twins = True
    if compared is not None and compared.missed is not None:
        # Every ground-truth leaf is in the output: counted, and the rows made when `fields` is first read
        # (from the two flat dicts, which only this call holds).
        missed: list[Steps] = compared.missed
        count = len(g_flat)
        rows: Any = partial(compare_rows, g_flat, o_flat, agree=agree, extras=False, null_is_missing=null_is_missing)
        field_scores = _scores_per_top(compared.counts, missed)
        twins = type(o_value) is dict and "" in o_value
    else:
        tally = LeafTally()
        rows = compare_rows(
            g_flat,
            o_flat,
            agree=agree,
            extras=extras,
            ambiguous=ambiguous,
            skip_nulls=skip_nulls,
            null_is_missing=null_is_missing and read.ok,  # (unreadable output has no leaf: a null one is missed too)
            tally=tally,
        )
        count = len(rows)
        missed = [rows[index][0] for index in tally.misses]
        field_scores = _top_scores(map(_FIRST, rows), missed, names, () in g_flat or () in o_flat)

    def path_of(key: Steps) -> str:
        return leaf_path(names.get(key, key))

    matched = tally.matched
    score = matched / count if count else 0.0
    passed = read.ok and bool(count) and score >= bar  # unreadable output never passes
    if not read.ok:
        notes.append("non-JSON output scores 0 (Agenta raises an error)")
    elif read.how not in ("value", "model", "json"):
        notes.append(f"output read as {how_read(read)} (Agenta raises on anything but whole-text JSON)")
    if tally.null_matched:
        also = " and a missing leaf" if tally.null_missing else ""
        notes.append(f"null equals null{also} (Agenta scores null leaves 0)")
    if tally.null_extra:
        noun = "leaf" if tally.null_extra == 1 else "leaves"
        notes.append(
            f"{tally.null_extra} extra null output {noun} not counted (null reads as missing; Agenta counts each as "
            "a key scoring 0)"
        )
    if keep and any(isinstance(value, (dict, list)) or () in g_flat for value in (*g_flat.values(), *o_flat.values())):
        notes.append("empty objects and arrays are compared as values (Agenta drops them)")
    if dotted:  # case folding neither adds nor removes a '.'
        notes.append("keys containing '.' stay distinct from nested paths (Agenta's flattening lets them collide)")
    if missed and twins and _agenta_twin(missed, g_flat, o_flat):
        notes.append(
            "a list index and a key of the same digits, or what a top-level '' key holds and the top level, stay "
            "distinct (Agenta's flattening writes them at one path)"
        )
    if not compare_schema_only and tally.eq_differs:
        differs = [path_of(key) for key in tally.eq_differs[:5]]
        notes.append(f"{', '.join(differs)}: compared by value, so True != 1 and NaN == NaN (Agenta uses Python ==)")
    if bar == 0.0:
        notes.append("threshold 0 is kept (Agenta turns a falsy threshold into 0.5)")
    if not read.ok:
        head = f"{read.message}; score 0"
    elif not count:
        head = (
            "the ground truth has no leaf to compare (it is empty, holds only empty objects or arrays, or is a "
            "scalar); score 0, as Agenta"
        )
    else:
        head = f"{matched} of {count} leaves agree (score {score:.2f}, threshold {bar:.2f})"
        if missed:
            head += f"; not matched: {', '.join(path_of(key) for key in missed[:8])}" + (
                f" and {len(missed) - 8} more" if len(missed) > 8 else ""
            )
    error = None if read.ok else "unreadable"
    return json_match_result(
        "json_diff",
        score,
        passed,
        with_notes(head, notes),
        LeafResults(rows, path_of),
        field_scores,
        tuple(notes),
        error,
    )


#: How a dict or list, or whole-text JSON, given as the output was read (`read_output` says the same, after
#: a second walk).
_GIVEN = JsonRead(True, None, "value")
_GIVEN_TEXT = JsonRead(True, None, "json")


#: Text that can be one whole JSON object or array: `{` or `[` after JSON's own white space.
_OPENS_CONTAINER = re.compile(r"[ \t\n\r]*[{\[]")


def _given(value: Any, *, text_is: str) -> Any:
    """A dict or list, or text that is one JSON value, read for one checked walk (`flatten_json`); else `_UNREAD`.

    Text is read by `_jsonload.loads` (`json.loads`'s value). As a ground truth (`text_is="data"`)
    any JSON text is read so, as `read_expected` reads it. As an answer (`"answer"`), only text
    `parse_answer` reads the same way: a whole-text object or array (so its outer whitespace is
    JSON's own), no `<think>` (whether a tag is data or a block is `parse_answer`'s call), within `MAX_CHARS`.
    `_UNREAD`: take the long way (so does a value the walk then refuses).
    """
    if type(value) is str:
        if text_is == "answer" and (
            len(value) > MAX_CHARS or not _OPENS_CONTAINER.match(value) or has_think_tag(value)
        ):  # prose, a fence or a scalar take the long way without a failed parse here first
            return _UNREAD  # (non-JSON whitespace around it fails `loads` below, as it fails Agenta)
        try:
            value = loads(value)
        except (ValueError, RecursionError):
            return _UNREAD
        if text_is == "answer" and type(value) not in (dict, list):
            return _UNREAD
    elif type(value) not in (dict, list):
        return _UNREAD
    return value


_UNREAD = object()


_FIRST = itemgetter(0)

#: Up to how many leaves not matched `_agenta_twin` looks at (where a list and an object of digit keys stand for
#: each other, every leaf below is not matched; 64 cost a 1,000-leaf diff with 47 differences a tenth more time),
#: and how many of a leaf's steps it varies.
_TWINS_LOOKED_AT = 8
_MOST_VARIED_STEPS = 6


def _agenta_twin(missed: list[Steps], g_flat: dict[Steps, Any], o_flat: dict[Steps, Any]) -> bool:
    """Whether a leaf not matched here has a twin that Agenta's flattening writes at the same path, on either side.

    Agenta joins a path's steps with '.', writing a list index as its digits (`a.0` is index 0 and key "0"), and
    writes what a top-level "" key holds at the top level (`f"{path}.{key}" if path else key`; one "" level is
    looked for, any number dropped). Such twins are distinct leaves here, so Agenta may score the pair otherwise.
    Only the first `_TWINS_LOOKED_AT` leaves not matched are looked at (a few dict lookups each), so a pair
    without them costs nothing; a leaf with more than `_MOST_VARIED_STEPS` steps to vary is passed over.
    """
    for steps in missed[:_TWINS_LOOKED_AT]:
        lead = 0
        while lead < len(steps) and steps[lead] == "":
            lead += 1
        choices = [_spellings(step) for step in steps[lead:]]
        if sum(len(choice) > 1 for choice in choices) > _MOST_VARIED_STEPS:
            continue
        for rest in product(*choices):
            for twin in (rest, ("", *rest)):  # (below a top-level "" key, or not)
                if twin != steps and (twin in o_flat or twin in g_flat):
                    return True
    return False


def _spellings(step: Any) -> tuple[Any, ...]:
    """A step and the other step Agenta writes the same way: index 3 and key "3"."""
    if type(step) is int:
        return (step, str(step))
    if isinstance(step, str) and step.isdecimal() and str(int(step)) == step:
        return (step, int(step))
    return (step,)


def _top_scores(
    leaves: Iterable[Steps], missed: list[Steps], names: dict[Steps, Steps], root: bool
) -> dict[str, float]:
    """The mean leaf score per top-level key (rendered), in order of first appearance.

    `leaves` are the compared leaves' steps in row order, `missed` those that did not match; `root`:
    a leaf at `$` (no top-level key).
    """
    if names or root:
        totals: dict[Steps, int] = {}
        for key in leaves:
            top = names.get(key, key)[:1]
            totals[top] = totals.get(top, 0) + 1
        missed_under = Counter(names.get(key, key)[:1] for key in missed)
        return {leaf_path(top): (count - missed_under[top]) / count for top, count in totals.items()}
    counts: dict[Any, int] = {}
    _count_elements(counts, map(_FIRST, leaves))  # leaves per top-level key, in C
    return _scores_per_top(counts, missed)


def _scores_per_top(counts: dict[Any, int], missed: list[Steps]) -> dict[str, float]:
    """The mean leaf score per top-level step (rendered) from the leaves under each (`counts`) and those missed."""
    failed: dict[Any, int] = {}
    for key in missed:
        failed[key[0]] = failed.get(key[0], 0) + 1
    return {leaf_path((top,)): (count - failed.get(top, 0)) / count for top, count in counts.items()}
