"""Numeric tolerance, as AssetOpsBench computes it: a diagnostic that never changes pass or score.

For each key both sides hold, `compare_key` applies upstream's rules in order: exact, then
|model - gold| <= 1 when both are numbers (`delta_1_match`), then lo <= model <= hi when the gold
is a range (`range_match`), then `similarity_score`. A gold range is written in the leaf (`10-20`,
`10 to 20`, `between 10 and 20`, `min: 10, max: 20`, ...) or is one end of a sibling pair such as
`start`/`end` or `min`/`max` (`context_ranges`). `measure_key_set` reads `measure_keys`, the keys
tolerance is restricted to (so an id or a year is never "accepted" one off).
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..errors import StaticJsonError
from .leaves import similarity_score
from .static_score import KeyComparison

__all__ = ["compare_key", "context_ranges", "measure_key_set"]

# Upstream's three range forms, each the whole (stripped) leaf: `10-20` (`..`, `to`, `through`, `,`, en or em
# dash), `between 10 and 20`, and `min: 10 ... max: 20` (anything but a line break between the two bounds).
_NUM = r"([+-]?\d+(?:\.\d+)?)"
_RANGE_FULL = re.compile(rf"{_NUM}\s*(?:-|\.\.|to|through|,|\u2013|\u2014)\s*{_NUM}")
_RANGE_BETWEEN = re.compile(rf"between\s+{_NUM}\s+and\s+{_NUM}")
_BOUND_LOW = re.compile(rf"(?:min|minimum|lower|start)\s*[:=]\s*{_NUM}")
# The upper bound ends the leaf; what lies between the bounds is not matched by a pattern (no backtracking over it).
_BOUND_HIGH = re.compile(rf"(?:max|maximum|upper|end)\s*[:=]\s*{_NUM}\Z")
_RANGE_PAIRS = (
    ("start_point", "end_point"),
    ("start", "end"),
    ("start_time", "end_time"),
    ("start_timestamp", "end_timestamp"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("lower", "upper"),
    ("lower_bound", "upper_bound"),
    ("range_start", "range_end"),
)


def _finite(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _gold_range(text: str) -> tuple[float, float] | None:
    """A range that is the whole gold leaf (`10-20`, `10 to 20`, `between 10 and 20`, `min: 10, avg: 15, max: 20`),
    as upstream reads one: `between 10 and 20 hours` or a sentence holding a range is not one. Linear in the leaf."""
    text = text.strip()
    match = _RANGE_FULL.fullmatch(text) or _RANGE_BETWEEN.fullmatch(text)
    if match is not None:
        bounds = (match.group(1), match.group(2))
    else:
        low = _BOUND_LOW.match(text)
        # The one place an upper bound can end the leaf (a bound's word, sign, colon and number leave one way).
        high = _BOUND_HIGH.search(text, low.end()) if low is not None else None
        if low is None or high is None or "\n" in text[low.end() : high.start()]:
            return None
        bounds = (low.group(1), high.group(1))
    first, second = float(bounds[0]), float(bounds[1])
    return (first, second) if first <= second else (second, first)


def context_ranges(gold_flat: dict[str, str], names: dict[str, tuple[str, str]]) -> dict[str, tuple[float, float]]:
    """Ranges from sibling pairs (`start`/`end`, `min`/`max`, ...) whose two gold values are numbers."""
    by_parent: dict[tuple[str, str], str] = {(parent, key): path for path, (parent, key) in names.items()}
    ranges: dict[str, tuple[float, float]] = {}
    for (parent, key), path in by_parent.items():
        for low_name, high_name in _RANGE_PAIRS:
            if key != low_name or (parent, high_name) not in by_parent:
                continue
            other = by_parent[(parent, high_name)]
            if path not in gold_flat or other not in gold_flat:
                continue
            low, high = _finite(gold_flat[path]), _finite(gold_flat[other])
            if low is not None and high is not None:
                ranges[path] = ranges[other] = (min(low, high), max(low, high))
    return ranges


def compare_key(
    key: str, g: str, m: str, threshold: float, tolerant: bool, context: tuple[float, float] | None
) -> KeyComparison:
    """One common key, upstream's rules: exact, then delta +/-1, then range, then similarity."""
    exact = g == m
    gold_number = _finite(g) if tolerant else None
    model_number = _finite(m)
    value_range = (context or _gold_range(g)) if tolerant else None
    numeric = gold_number is not None or value_range is not None
    delta_1 = abs(model_number - gold_number) <= 1 if gold_number is not None and model_number is not None else None
    in_range = value_range[0] <= model_number <= value_range[1] if value_range and model_number is not None else None
    numeric_match = numeric and (exact or bool(in_range) or bool(delta_1))
    similarity = similarity_score(g, m)
    if exact:
        match_type, similarity = "exact", 1.0
    elif delta_1:
        match_type, similarity = "partial_delta_1", 1.0
    elif in_range:
        match_type, similarity = "partial_range", 1.0
    elif similarity > threshold:
        match_type = f"partial ({similarity:.2f})"
    else:
        match_type = "mismatch"
    return KeyComparison(key, g, m, exact, match_type, similarity, exact or numeric_match, numeric, in_range, delta_1)


def measure_key_set(value: Any) -> frozenset[str] | None:
    """`measure_keys` as a set of flattened key paths; None (every numeric key) when not given.

    Raises:
        StaticJsonError: If it is neither a key path nor a list of them.
    """
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(isinstance(item, str) for item in value):
        raise StaticJsonError(
            f"measure_keys must be a list of flattened key paths such as 'answer.count'; got {value!r}"
        )
    return frozenset(value)
