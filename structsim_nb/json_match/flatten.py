"""Flattened JSON: leaves by path, and the leaf-by-leaf comparison behind JSON diff and exact match.

A leaf's path is a tuple of steps (keys and list indices), so a key holding a dot (`("a.b",)`)
never collides with a nested path (`("a", "b")`); `paths.render_path` writes it for people.

Examples:
    >>> flatten({"a": {"b": 1}, "c": [True], "d": []})
    {('a', 'b'): 1, ('c', 0): True, ('d',): []}
    >>> flatten({"a": {"b": 1}, "c": [True], "d": []}, keep_empty=False)
    {('a', 'b'): 1, ('c', 0): True}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..answers import MAX_DEPTH
from .paths import render_path
from .results import FieldResult, LeafRow, field_result
from .values import json_type, short

__all__ = [
    "agree_noting",
    "ComparedLeaves",
    "LeafTally",
    "Steps",
    "compare_leaves",
    "compare_rows",
    "flatten",
    "flatten_compared",
    "flatten_differences",
    "flatten_json",
    "fold_keys",
    "leaf_path",
]

#: A leaf's path: keys (str) and list indices (int), outermost first.
Steps = tuple[Any, ...]


def flatten(value: Any, prefix: Steps = (), *, keep_empty: bool = True) -> dict[Steps, Any]:
    """Leaves by path: objects recurse by key, arrays by index; null is a leaf.

    Args:
        value: A JSON value.
        prefix: The steps above `value`. Default `()` (the root).
        keep_empty: An empty object or array, and a scalar root, is a leaf (at `()` for the
            root), so it is compared rather than dropped. Default True. False is Agenta's
            `_flatten_json`: only non-container leaves below the root are emitted.

    Returns:
        `{steps: leaf value}` in document order (depth first, keys and items in order).
    """
    flat: dict[Steps, Any] = {}
    _flatten_into(flat, value, prefix, keep_empty)
    return flat


def _flatten_into(flat: dict[Steps, Any], value: Any, prefix: Steps, keep_empty: bool) -> None:
    # A scalar child is stored here rather than in a call of its own: most leaves are scalars.
    scalars = _SCALARS
    if isinstance(value, dict) and value:
        for step, item in value.items():
            if type(item) in scalars:
                flat[prefix + (step,)] = item
            else:
                _flatten_into(flat, item, (*prefix, step), keep_empty)
    elif isinstance(value, list) and value:
        for step, item in enumerate(value):
            if type(item) in scalars:
                flat[prefix + (step,)] = item
            else:
                _flatten_into(flat, item, (*prefix, step), keep_empty)
    elif keep_empty or not (isinstance(value, (dict, list)) or not prefix):
        flat[prefix] = value


def flatten_differences(
    expected: Any, actual: Any, *, drop_null_keys: bool = False
) -> tuple[dict[Steps, Any], dict[Steps, Any]]:
    """The leaves of two documents as `flatten_json` gives them, less the subtrees that are equal by `==`.

    For documents of exact JSON types (`_jsonload.shallow` vouches for both) that hold no boolean
    (where `True == 1` would hide a difference `same_value` sees), `compare_rows` on these two
    partial flattenings finds the same leaves not matching, in the same order, as on the whole
    ones: a subtree left out is equal on both sides, so all its leaves match, and no leaf outside
    it has a path through it. The walk goes down only where both sides are dicts with the same keys
    in the same order (and, with `drop_null_keys`, no null value, whose dropping can change what
    the object reads as) or lists of one length; anywhere else both sides are flattened whole.
    Cost: the `==` of each child pair walked past, plus the flattening of what differs.
    """
    g_flat: dict[Steps, Any] = {}
    o_flat: dict[Steps, Any] = {}
    _differences_into(g_flat, o_flat, expected, actual, (), 0, drop_null_keys)
    return g_flat, o_flat


def _differences_into(
    g_flat: dict[Steps, Any],
    o_flat: dict[Steps, Any],
    expected: Any,
    actual: Any,
    prefix: Steps,
    depth: int,
    drop: bool,
) -> None:
    kind = type(expected)
    if kind is type(actual) and expected and actual and depth < MAX_DEPTH:
        if kind is list and len(expected) == len(actual):
            for step, (g_item, o_item) in enumerate(zip(expected, actual, strict=True)):
                if type(g_item) is type(o_item) and g_item == o_item:
                    continue
                _differences_into(g_flat, o_flat, g_item, o_item, (*prefix, step), depth + 1, drop)
            return
        if (
            kind is dict
            and list(expected) == list(actual)
            and not (drop and (None in expected.values() or None in actual.values()))
        ):
            for key, g_item in expected.items():
                o_item = actual[key]
                if type(g_item) is type(o_item) and g_item == o_item:
                    continue
                _differences_into(g_flat, o_flat, g_item, o_item, (*prefix, key), depth + 1, drop)
            return
    _flatten_json_into(g_flat, expected, prefix, True, depth, None, drop)
    _flatten_json_into(o_flat, actual, prefix, True, depth, None, drop)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def flatten_json(
    value: Any, *, keep_empty: bool = True, dotted: list[bool] | None = None, drop_null_keys: bool = False
) -> dict[Steps, Any] | None:
    """`flatten(as_json(value))` in one walk, or None when `value` is not JSON data.

    What `values.as_json` accepts is accepted here (tuples read as lists, dict and list
    subclasses as plain ones, string keys only, nesting under `MAX_DEPTH`), and the leaves
    are the same; the value is checked while it is flattened instead of in a walk of its own.
    None says only "read it the general way": `as_json` refuses the value (and says why), or, with
    `drop_null_keys`, an object holds a value whose `==` raises when asked whether it is null (a
    subclass's own `__eq__`), which `as_json` may still accept.

    Args:
        value: Any value.
        keep_empty: As for `flatten`. Default True.
        dotted: When given, `True` is appended to it if a key holding a `.` is on some leaf's path.
        drop_null_keys: `flatten(drop_nulls(as_json(value)))`: object keys whose value is null
            are left out (an object holding only those becomes an empty one). Default False.
    """
    flat: dict[Steps, Any] = {}
    return flat if _flatten_json_into(flat, value, (), keep_empty, 0, dotted, drop_null_keys) else None


def _flatten_json_into(
    flat: dict[Steps, Any],
    value: Any,
    prefix: Steps,
    keep_empty: bool,
    depth: int,
    dotted: list[bool] | None,
    drop: bool = False,
) -> bool:
    kind = type(value)
    if kind is dict:  # the common containers first, by exact type; subclasses and tuples after
        is_dict = True
    elif kind is list:
        is_dict = False
    elif kind in _SCALARS or isinstance(value, (str, bool, int, float)):
        if keep_empty or prefix:
            flat[prefix] = value
        return True
    elif isinstance(value, dict):
        is_dict = True
    elif isinstance(value, (list, tuple)):
        is_dict = False
    else:
        return False
    if not value:
        if keep_empty:
            flat[prefix] = value if kind is dict or kind is list else {} if is_dict else []
        return True
    if depth >= MAX_DEPTH:
        return False
    scalars = _SCALARS
    if not is_dict:
        for step, item in enumerate(value):
            if type(item) in scalars:
                flat[prefix + (step,)] = item
            elif not _flatten_json_into(flat, item, prefix + (step,), keep_empty, depth + 1, dotted, drop):
                return False
        return True
    items = value.items()
    try:
        nulls = drop and None in value.values()
    except Exception:  # noqa: BLE001 - a value whose == raises (a subclass): the callers' general path reads it
        return False
    if nulls:  # null-valued keys left out (every key is still checked)
        if any(type(key) is not str and not isinstance(key, str) for key in value):
            return False
        items = [(key, item) for key, item in items if item is not None]
        if not items and keep_empty:  # every key was null: the object reads as an empty one
            flat[prefix] = {}
    for key, item in items:
        if type(key) is not str and not isinstance(key, str):
            return False
        if type(item) in scalars:
            flat[prefix + (key,)] = item
        elif not _flatten_json_into(flat, item, prefix + (key,), keep_empty, depth + 1, dotted, drop):
            return False
    if dotted is not None and not dotted and "." in "\0".join(value):
        kept = ((key, item) for key, item in value.items() if not (drop and item is None))
        if any("." in key and (keep_empty or _has_leaf(item)) for key, item in kept):
            dotted.append(True)  # a key with a dot on some leaf's path
    return True


def _has_leaf(value: Any) -> bool:
    """Whether `flatten(value, keep_empty=False)` below a key gives a leaf: a scalar somewhere in it."""
    if isinstance(value, dict):
        return any(_has_leaf(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_leaf(item) for item in value)
    return True


def fold_keys(
    flat: dict[Steps, Any], *, unlike_lower: list[bool] | None = None
) -> tuple[dict[Steps, Any], dict[Steps, Steps], dict[Steps, list[Steps]]]:
    """Keys case-folded: `(folded leaves, folded -> original path, collisions folded -> originals)`.

    Each distinct key is folded once. `unlike_lower`: when given, `True` is appended to it if some key folds
    otherwise than `str.lower` lowers it (`ß` folds to `ss`), as Agenta reads keys.
    """
    folded: dict[Steps, Any] = {}
    original: dict[Steps, Steps] = {}
    collisions: dict[Steps, list[Steps]] = {}
    fold: dict[Any, Any] = {}  # step -> its folded form (an index stays as it is)
    for steps, value in flat.items():
        key = tuple(fold[step] if step in fold else _fold(step, fold, unlike_lower) for step in steps)
        if key in folded:
            collisions.setdefault(key, [original[key]]).append(steps)
        folded[key], original[key] = value, steps
    return folded, original, collisions


def _fold(step: Any, fold: dict[Any, Any], unlike_lower: list[bool] | None) -> Any:
    """`step` case-folded (an index as it is), kept in `fold`; notes in `unlike_lower` a key `lower` reads otherwise."""
    folded = step.casefold() if isinstance(step, str) else step
    if unlike_lower is not None and not unlike_lower and isinstance(step, str) and folded != step.lower():
        unlike_lower.append(True)
    fold[step] = folded
    return folded


def _prefixes(keys: Iterable[Steps]) -> set[Steps]:
    return {key[:cut] for key in keys for cut in range(len(key))}


def compare_leaves(
    gt: dict[Steps, Any],
    out: dict[Steps, Any],
    *,
    agree: Callable[[Any, Any], bool],
    extras: bool,
    names: Mapping[Steps, Steps] | None = None,
    ambiguous: Mapping[Steps, list[Steps]] | None = None,
    skip_nulls: bool = False,
    null_is_missing: bool = False,
) -> list[tuple[Steps, FieldResult]]:
    """Compare flattened leaves: every ground-truth leaf, plus the output's extra leaves when `extras`.

    Args:
        gt: The ground truth's leaves (`flatten`).
        out: The output's leaves.
        agree: Whether an expected and a predicted leaf value agree. It must hold for two equal
            scalars of the same type (they are taken as agreeing without a call).
        extras: Also report the output's leaves the ground truth lacks, as `invented`.
        names: Leaf path to the path to show (the original spelling of case-folded keys).
        ambiguous: Output leaves whose keys folded together (`fold_keys`); they score 0.
        skip_nulls: Leave out null ground-truth leaves (and null extra leaves). Default False.
        null_is_missing: A null leaf and a missing one say the same: a null ground-truth leaf
            the output lacks is a match, and a null extra leaf is not reported. Default False.

    Returns:
        `(leaf path, FieldResult)` pairs, ground-truth leaves first. A leaf the output holds a
        scalar above, or a non-empty container at, is `wrong` (with what the output has), not `missed`.
    """
    rows = compare_rows(
        gt,
        out,
        agree=agree,
        extras=extras,
        ambiguous=ambiguous,
        skip_nulls=skip_nulls,
        null_is_missing=null_is_missing,
    )
    names = names or {}
    return [
        (key, field_result(leaf_path(names.get(key, key)), status, 1.0 if status == "match" else 0.0, e, p, reason))
        for key, status, e, p, reason in rows
    ]


class LeafTally:
    """What `compare_rows` counted on its way, so a caller need not walk the rows again.

    Attributes:
        matched: Rows with status `match`.
        null_matched: Matches whose expected value is null (both null, or null and missing).
        null_missing: Matches of a null ground-truth leaf the output lacks (`null_is_missing`).
        null_extra: Null output leaves the ground truth lacks, left out of the extras (`skip_nulls`
            or `null_is_missing`), which Agenta counts as keys scoring 0.
        misses: Indices of the rows that are not `match`.
        eq_differs: Leaves compared by `agree` where Python `==` says otherwise.
    """

    __slots__ = ("eq_differs", "matched", "misses", "null_extra", "null_matched", "null_missing")

    def __init__(self) -> None:
        self.matched = 0
        self.null_matched = 0
        self.null_missing = 0
        self.null_extra = 0
        self.misses: list[int] = []
        self.eq_differs: list[Steps] = []


_EQUAL_SCALARS = frozenset({str, int, float, bool, type(None)})


def agree_noting(
    agree: Callable[[Any, Any], bool], expected: Any, predicted: Any, key: Steps, tally: LeafTally
) -> bool:
    """`agree(expected, predicted)`, with `key` added to `tally.eq_differs` when Python `==` says otherwise."""
    agreed = agree(expected, predicted)
    try:
        python_eq = bool(expected == predicted)
    except Exception:  # pragma: no cover - JSON values always compare
        python_eq = False
    if python_eq != agreed:
        tally.eq_differs.append(key)
    return agreed


class ComparedLeaves:
    """What `flatten_compared` found: a ground truth's leaves, counted against the output's as they were found.

    Attributes:
        flat: `flatten_json(value, keep_empty=False)`: the leaves by path, in document order.
        missed: The paths of the leaves that did not agree, in order. None when some leaf is missing from
            the output: `compare_rows` then says how, and the tally is partly filled (discard it).
        counts: Leaves per top-level step (key or index), in order of first appearance; only steps holding a leaf.
        dotted: Whether a key holding a `.` is on some leaf's path (`flatten_json`'s `dotted`).
    """

    __slots__ = (
        "agree",
        "counts",
        "dotted",
        "find",
        "flat",
        "matched",
        "missed",
        "null_matched",
        "present",
        "tally",
    )

    def __init__(self, out: dict[Steps, Any], agree: Callable[[Any, Any], bool], tally: LeafTally) -> None:
        self.flat: dict[Steps, Any] = {}
        self.missed: list[Steps] | None = []
        self.counts: dict[Any, int] = {}
        self.dotted = False
        self.find = out.get
        self.agree = agree
        self.tally = tally
        self.present = True  # every leaf so far is in the output
        self.matched = self.null_matched = 0


def flatten_compared(
    value: Any, out: dict[Steps, Any], agree: Callable[[Any, Any], bool], tally: LeafTally
) -> ComparedLeaves | None:
    """A plain JSON ground truth's leaves, each compared with the output's leaf at its path as it is found.

    One walk instead of `flatten_json` and a pass of `compare_rows` over its leaves. `value` must be an
    exact `dict` or `list` holding only exact `dict`, `list`, `str` (also as keys), `int`, `float`, `bool`
    and None, nested under `MAX_DEPTH`; for anything else (a scalar, a tuple, a subclass, deeper nesting)
    the result is None: flatten it the general way. The count is `compare_rows`'s with no case folding,
    nulls kept and no extras: `tally.matched`, `null_matched` and `eq_differs` are filled as it fills
    them, as long as every leaf is in the output.

    Args:
        value: The ground truth.
        out: The output's leaves (`flatten_json(output, keep_empty=False)`).
        agree: As for `compare_rows`: two equal scalars of the same type agree without a call.
        tally: Filled in as the leaves are compared.
    """
    kind = type(value)
    if kind is not dict and kind is not list:
        return None
    walk = ComparedLeaves(out, agree, tally)
    if not _walk_compared(walk, value, (), 0, walk.counts):
        return None
    tally.matched += walk.matched
    tally.null_matched += walk.null_matched
    if not walk.present:
        walk.missed = None
    return walk


def _walk_compared(
    walk: ComparedLeaves, value: Any, prefix: Steps, depth: int, counts: dict[Any, int] | None = None
) -> bool:
    """`flatten_compared` below `prefix`: False when `value` is not plain JSON. `counts`: count each step's leaves.

    Each leaf is counted as `compare_rows` counts one the output has (the comparison written out here: a call
    per leaf cost a fifth of the walk), until one is missing from the output.
    """
    if depth >= MAX_DEPTH:
        return False
    flat, scalars, find = walk.flat, _SCALARS, walk.find
    is_dict = type(value) is dict
    step: Any  # (a key or an index)
    for step, item in value.items() if is_dict else enumerate(value):
        if is_dict and type(step) is not str:
            return False
        before = len(flat)
        kind = type(item)
        if kind in scalars:
            steps = prefix + (step,)
            flat[steps] = item
            if walk.present:
                predicted = find(steps, _ABSENT)
                if type(predicted) is kind and item == predicted:  # two equal scalars of one type: no call
                    walk.matched += 1
                    if item is None:
                        walk.null_matched += 1
                elif predicted is _ABSENT:
                    walk.present = False
                elif agree_noting(walk.agree, item, predicted, steps, walk.tally):
                    walk.matched += 1
                    if item is None:
                        walk.null_matched += 1
                else:
                    walk.missed.append(steps)  # type: ignore[union-attr]
        elif kind is dict or kind is list:
            if item and not _walk_compared(walk, item, prefix + (step,), depth + 1):
                return False
        else:
            return False
        if is_dict and not walk.dotted and "." in step and _has_leaf(item):  # (walked: not too deep for it)
            walk.dotted = True
        if counts is not None and len(flat) != before:
            counts[step] = len(flat) - before
    return True


def compare_rows(
    gt: dict[Steps, Any],
    out: dict[Steps, Any],
    *,
    agree: Callable[[Any, Any], bool],
    extras: bool,
    ambiguous: Mapping[Steps, list[Steps]] | None = None,
    skip_nulls: bool = False,
    null_is_missing: bool = False,
    tally: LeafTally | None = None,
) -> list[LeafRow]:
    """`compare_leaves` as one `(leaf steps, status, expected, predicted, reason)` row per leaf.

    The arguments are `compare_leaves`'s (paths are left as steps, to render when shown); `tally`,
    when given, is filled in as the rows are made. Two equal scalars of the same type match
    without a call to `agree` (the common case, decided in a few operations).
    """
    ambiguous = ambiguous or {}
    tally = tally if tally is not None else LeafTally()
    equal_scalars = _EQUAL_SCALARS
    missing = _ABSENT
    find = out.get
    out_parents: set[Steps] | None = None  # worked out only when a leaf is missing from the output
    rows: list[LeafRow] = []
    append = rows.append
    matched = null_matched = 0
    for key, expected in gt.items():
        if skip_nulls and expected is None:
            continue
        predicted = find(key, missing)
        if predicted is not missing and not (ambiguous and key in ambiguous):  # the output has this leaf
            kind = type(expected)
            if kind is type(predicted) and kind in equal_scalars and expected == predicted:
                append((key, "match", expected, predicted, "equal"))
                matched += 1
                if expected is None:
                    null_matched += 1
                continue
            if agree_noting(agree, expected, predicted, key, tally):
                append((key, "match", expected, predicted, "equal"))
                matched += 1
                if expected is None:
                    null_matched += 1
            else:
                tally.misses.append(len(rows))
                append((key, "wrong", expected, predicted, f"expected {short(expected)}, got {short(predicted)}"))
            continue
        shallower = next((key[:cut] for cut in range(len(key), -1, -1) if key[:cut] in out), None)
        if shallower == key:  # held by keys that differ only in case
            shown = ", ".join(render_path(steps) for steps in ambiguous[key])
            status, predicted, reason = "wrong", out[key], f"output has keys {shown} that differ only in case"
        elif shallower is not None:
            predicted = out[shallower]
            status, reason = (
                "wrong",
                f"output has {json_type(predicted)} {short(predicted)} at {render_path(shallower)}",
            )
        else:
            if out_parents is None:
                out_parents = _prefixes(out)
            if key in out_parents:
                predicted = {
                    render_path(steps[len(key) :]): value for steps, value in out.items() if steps[: len(key)] == key
                }
                status, reason = "wrong", f"expected {short(expected)}, got a non-empty container"
            elif null_is_missing and expected is None:
                status, predicted, reason = "match", None, "no value on either side (null, and missing from the output)"
                tally.null_missing += 1
            else:
                status, predicted, reason = "missed", None, "missing from the output"
        if status == "match":
            matched += 1
            null_matched += expected is None
        else:
            tally.misses.append(len(rows))
        append((key, status, expected, predicted, reason))
    if extras:
        gt_parents: set[Steps] | None = None  # worked out only when the output has a leaf the truth lacks
        for key, predicted in out.items():
            if key in gt:
                continue
            if (skip_nulls or null_is_missing) and predicted is None:
                tally.null_extra += 1
                continue
            if gt_parents is None:
                gt_parents = _prefixes(gt)
            # A leaf where the ground truth's value has another shape (a scalar above it, or leaves below it) is
            # extra too: the ground truth's row there is wrong, and this one counts in the union, as in Agenta.
            if key in gt_parents or any(key[:cut] in gt for cut in range(len(key))):
                reason = "not in the ground truth, whose value there has another shape"
            else:
                reason = "not in the ground truth"
            tally.misses.append(len(rows))
            append((key, "invented", None, predicted, reason))
    tally.matched += matched
    tally.null_matched += null_matched
    return rows


_ABSENT = object()


#: Rendered leaf paths, shared by calls: documents of one schema repeat the same leaves.
_RENDERED: dict[Steps, str] = {}
_RENDERED_LIMIT = 100_000


def leaf_path(steps: Steps) -> str:
    """`render_path(steps)`, remembered (bounded) across calls."""
    found = _RENDERED.get(steps)
    if found is None:
        if len(_RENDERED) >= _RENDERED_LIMIT:
            _RENDERED.clear()
        found = _RENDERED[steps] = render_path(steps)
    return found
