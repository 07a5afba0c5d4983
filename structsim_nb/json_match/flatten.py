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

from .paths import render_path
from .results import FieldResult
from .values import json_type, short

__all__ = ["Steps", "compare_leaves", "flatten", "fold_keys"]

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
    """
    if isinstance(value, dict) and value:
        pairs: Iterable[tuple[Any, Any]] = value.items()
    elif isinstance(value, list) and value:
        pairs = enumerate(value)
    elif keep_empty:
        return {prefix: value}
    else:
        return {} if isinstance(value, (dict, list)) or not prefix else {prefix: value}
    flat: dict[Steps, Any] = {}
    for step, item in pairs:
        flat.update(flatten(item, (*prefix, step), keep_empty=keep_empty))
    return flat


def fold_keys(flat: dict[Steps, Any]) -> tuple[dict[Steps, Any], dict[Steps, Steps], dict[Steps, list[Steps]]]:
    """Keys case-folded: `(folded leaves, folded -> original path, collisions folded -> originals)`."""
    folded: dict[Steps, Any] = {}
    original: dict[Steps, Steps] = {}
    collisions: dict[Steps, list[Steps]] = {}
    for steps, value in flat.items():
        key = tuple(step.casefold() if isinstance(step, str) else step for step in steps)
        if key in folded:
            collisions.setdefault(key, [original[key]]).append(steps)
        folded[key], original[key] = value, steps
    return folded, original, collisions


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
        agree: Whether an expected and a predicted leaf value agree.
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
    names = names or {}
    ambiguous = ambiguous or {}
    out_parents, gt_parents = _prefixes(out), _prefixes(gt)
    results: list[tuple[Steps, FieldResult]] = []
    for key, expected in gt.items():
        if skip_nulls and expected is None:
            continue
        shallower = next((key[:cut] for cut in range(len(key), -1, -1) if key[:cut] in out), None)
        if shallower == key and key in ambiguous:
            shown = ", ".join(render_path(steps) for steps in ambiguous[key])
            status, predicted, reason = "wrong", out[key], f"output has keys {shown} that differ only in case"
        elif shallower == key:
            predicted = out[key]
            equal = agree(expected, predicted)
            status, reason = (
                ("match", "equal") if equal else ("wrong", f"expected {short(expected)}, got {short(predicted)}")
            )
        elif shallower is not None:
            predicted = out[shallower]
            status, reason = (
                "wrong",
                f"output has {json_type(predicted)} {short(predicted)} at {render_path(shallower)}",
            )
        elif key in out_parents:
            predicted = {
                render_path(steps[len(key) :]): value for steps, value in out.items() if steps[: len(key)] == key
            }
            status, reason = "wrong", f"expected {short(expected)}, got a non-empty container"
        elif null_is_missing and expected is None:
            status, predicted, reason = "match", None, "no value on either side (null, and missing from the output)"
        else:
            status, predicted, reason = "missed", None, "missing from the output"
        score = 1.0 if status == "match" else 0.0
        results.append((key, FieldResult(render_path(names.get(key, key)), status, score, expected, predicted, reason)))
    if extras:
        for key, predicted in out.items():
            if key in gt or key in gt_parents or any(key[:cut] in gt for cut in range(len(key))):
                continue
            if (skip_nulls or null_is_missing) and predicted is None:
                continue
            path = render_path(names.get(key, key))
            results.append((key, FieldResult(path, "invented", 0.0, None, predicted, "not in the ground truth")))
    return results
