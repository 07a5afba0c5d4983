"""Pair similarity per comparator, vectorised: the engine's comparator for every pair of two value lists.

`similarity_matrix(comparator, a, b)` is `[[comparator.compare(x, y) for y in b] for x in a]`
as a float64 array, the same double for every pair, computed in one pass for the comparators
that have a vectorised equivalent with the same semantics (`VECTORISERS`):

- `LevenshteinComparator`: `rapidfuzz` edit distances (integers, exact), then the engine's
  own `1.0 - dist / max(len)` on its own normalised strings;
- `FuzzyComparator`: the same `rapidfuzz.fuzz` scorer the comparator calls, through
  `rapidfuzz.process.cdist` in float64;
- `ExactComparator`: equality of the strings the comparator compares (case-folded or not);
- `NumericComparator`: equality of the engine's parsed `Decimal`s, and for a tolerance a
  float window that finds every candidate pair, each then decided by the engine's own
  `_numbers_equal`;
- `DateComparator`: each distinct value parsed once by the engine's own parser (ISO dates
  read directly, proven equal to its reading); full dates compare by day ordinal within the
  tolerance, anything else (ranges, partial dates, time zones) by the comparator itself, once
  per distinct pair of values.

Values must be present (not None or ""): the callers apply the engine's blank rules first.
`scalar_similarity` is the one-pair form. `tests/engine/test_fastmatch.py` checks every vectoriser
against its comparator, pair by pair.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein
from stickler.comparators.date import DateComparator, _ParsedSingle
from stickler.comparators.exact import ExactComparator
from stickler.comparators.fuzzy import FuzzyComparator
from stickler.comparators.levenshtein import LevenshteinComparator
from stickler.comparators.numeric import NumericComparator

__all__ = ["FUZZY_SCORERS", "SCALARS", "VECTORISERS", "scalar_similarity", "similarity_matrix"]

#: Value types a field may hold for the vectorised path (what the engine's models hold for
#: str, int, float, bool, date and datetime fields).
SCALARS = (str, int, float, bool)
_SCALARS = SCALARS

#: The `rapidfuzz` scorers `FuzzyComparator` may call, which `cdist` calls the same way.
FUZZY_SCORERS = (fuzz.ratio, fuzz.partial_ratio, fuzz.token_sort_ratio, fuzz.token_set_ratio)


def similarity_matrix(comparator: Any, a: list[Any], b: list[Any]) -> np.ndarray:
    """`comparator.compare(x, y)` for every `x` in `a` and `y` in `b`, as a `len(a) x len(b)` array.

    Raises:
        KeyError: If the comparator's class has no vectorised equivalent (see `VECTORISERS`).
        Exception: Whatever the comparator raises for a value (a bool as a Decimal, say).
    """
    return VECTORISERS[type(comparator)](comparator, a, b)


def _codes(keys: Sequence[Any]) -> tuple[np.ndarray, dict[Any, int]]:
    """Integer code per key (equal keys share a code), and the key -> code table."""
    table: dict[Any, int] = {}
    return np.fromiter((table.setdefault(key, len(table)) for key in keys), dtype=np.int64, count=len(keys)), table


def _unique(values: Sequence[Any], key: Callable[[Any], Any]) -> tuple[list[Any], np.ndarray]:
    """Distinct keys in first-seen order, and each value's index into them."""
    table: dict[Any, int] = {}
    index = np.empty(len(values), dtype=np.int64)
    for position, value in enumerate(values):
        index[position] = table.setdefault(key(value), len(table))
    return list(table), index


def _levenshtein(comparator: Any, a: list[Any], b: list[Any]) -> np.ndarray:
    normalize = comparator._normalize

    def key(value: Any) -> str:
        text = str(value)
        return " ".join(text.strip().lower().split()) if normalize else text

    keys_a, ia = _unique(a, key)
    keys_b, ib = _unique(b, key)
    dist = process.cdist(keys_a, keys_b, scorer=Levenshtein.distance, dtype=np.int64, workers=1)
    longest = np.maximum.outer(np.fromiter(map(len, keys_a), np.int64), np.fromiter(map(len, keys_b), np.int64))
    with np.errstate(divide="ignore", invalid="ignore"):
        sim = np.where(longest == 0, 1.0, 1.0 - dist.astype(np.float64) / longest.astype(np.float64))
    return sim[np.ix_(ia, ib)]


def _fuzzy(comparator: Any, a: list[Any], b: list[Any]) -> np.ndarray:
    normalize = comparator._normalize

    def key(value: Any) -> str:
        text = str(value)
        return text.strip().lower() if normalize else text

    keys_a, ia = _unique(a, key)
    keys_b, ib = _unique(b, key)
    scores = process.cdist(keys_a, keys_b, scorer=comparator._fuzzy_func, dtype=np.float64, workers=1)
    both_empty = np.logical_and.outer(np.array([k == "" for k in keys_a]), np.array([k == "" for k in keys_b]))
    sim = np.where(both_empty, 1.0, scores / 100.0)
    return sim[np.ix_(ia, ib)]


def _exact(comparator: Any, a: list[Any], b: list[Any]) -> np.ndarray:
    fold = not comparator.case_sensitive
    keys = [str(v).casefold() if fold else str(v) for v in (*a, *b)]
    codes, _ = _codes(keys)
    return np.equal.outer(codes[: len(a)], codes[len(a) :]).astype(np.float64)


def _pairwise(comparator: Any, a: list[Any], b: list[Any]) -> np.ndarray:
    """The comparator itself, once per distinct pair of values (exact by construction)."""
    keys_a, ia = _unique(a, _hashable)
    keys_b, ib = _unique(b, _hashable)
    compare = comparator.compare
    sim = np.array([[compare(x[1], y[1]) for y in keys_b] for x in keys_a], dtype=np.float64)
    return sim.reshape(len(keys_a), len(keys_b))[np.ix_(ia, ib)]


def _hashable(value: Any) -> tuple[type, Any]:
    # The type is part of the key: 1, 1.0 and True are equal in Python but not to every comparator.
    return (type(value), value)


def _numeric(comparator: Any, a: list[Any], b: list[Any]) -> np.ndarray:
    keys_a, ia = _unique(a, _hashable)
    keys_b, ib = _unique(b, _hashable)
    num_a = [comparator._extract_number(value) for _, value in keys_a]
    num_b = [comparator._extract_number(value) for _, value in keys_b]
    # Equal parsed numbers share a code; unparseable values and NaN equal nothing, not even themselves.
    table: dict[Any, int] = {}
    fresh = iter(range(-1, -(len(num_a) + len(num_b)) - 2, -1))

    def code(number: Any) -> int:
        if number is None or number.is_nan():
            return next(fresh)
        return table.setdefault(number, len(table))

    code_a = np.array([code(n) for n in num_a], dtype=np.int64)
    code_b = np.array([code(n) for n in num_b], dtype=np.int64)
    sim = np.equal.outer(code_a, code_b).astype(np.float64)
    rel, tol = _tolerance(comparator.relative_tolerance), _tolerance(comparator.absolute_tolerance)
    if rel is None or tol is None:
        return _pairwise(comparator, a, b)
    if rel > 0 or tol > 0:
        finite_a = [n is not None and n.is_finite() for n in num_a]
        finite_b = [n is not None and n.is_finite() for n in num_b]
        fa = np.array([float(n) if ok else 0.0 for n, ok in zip(num_a, finite_a, strict=True)])
        fb = np.array([float(n) if ok else 0.0 for n, ok in zip(num_b, finite_b, strict=True)])
        magnitudes = np.abs(np.concatenate([fa, fb]))
        if np.any((magnitudes != 0) & ((magnitudes < 1e-300) | (magnitudes > 1e300))):
            return _pairwise(comparator, a, b)
        # A float window wide enough to hold every pair the Decimal rule accepts; each
        # candidate is then decided by the engine's own rule, so the window only saves work.
        slack = 1.0 + 1e-9
        gap = np.abs(np.subtract.outer(fa, fb))
        with np.errstate(invalid="ignore"):  # (an infinite tolerance times a zero, in the branch not taken)
            scale = np.where(fa == 0, rel, rel * np.abs(fa))[:, None]
        bound = (scale + tol) * slack + 1e-12 * (np.abs(fa)[:, None] + np.abs(fb)[None, :])
        candidates = (gap <= bound) & (sim == 0.0) & np.outer(finite_a, finite_b)
        for i, j in zip(*np.nonzero(candidates), strict=True):
            if comparator._numbers_equal(num_a[i], num_b[j]):
                sim[i, j] = 1.0
    return sim[np.ix_(ia, ib)]


def _tolerance(value: Any) -> float | None:
    """A `NumericComparator` tolerance as the engine applies it: itself as a float when it is above 0, else 0.0
    (the engine skips a rule whose tolerance is not above 0: zero, negative or NaN); None for anything whose
    comparison or float is not plain (a `Decimal` NaN, text, a `Decimal` too small for a float): the pairs then go
    to the comparator one by one.

    A `Decimal` tolerance (`Decimal("0.01")`, natural for money) is read as its float only to widen the
    candidate window; each candidate is still decided by the engine's own `Decimal` rule.
    """
    try:
        if not value > 0:
            return 0.0
        window = float(value)
    except (TypeError, ValueError, ArithmeticError):  # (a Decimal NaN raises InvalidOperation, an ArithmeticError)
        return None
    return window if window > 0 else None  # (a Decimal below the floats, `Decimal("1e-400")`, would read as 0.0)


#: (range_mode, value, dayfirst) -> the engine's parse of a date value; bounded, shared by calls.
_PARSED: dict[tuple[str, str, bool], Any] = {}
_PARSED_LIMIT = 20_000


#: A calendar date written the ISO way, which dateutil reads as exactly that date (tested).
_ISO_DATE = re.compile(r"[1-9]\d{3}-\d{2}-\d{2}")


def _day(comparator: Any, value: Any, dayfirst: bool) -> int | None:
    """Day ordinal of a full, naive date as the comparator parses it; None if not that simple."""
    text = value if isinstance(value, str) else str(value)
    if _ISO_DATE.fullmatch(text):
        try:
            return datetime.date.fromisoformat(text).toordinal()
        except ValueError:
            pass  # not a real day (2024-02-30): the comparator decides
    key = (comparator.range_mode, text, dayfirst)
    if key not in _PARSED:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        try:
            _PARSED[key] = comparator._parse(text, dayfirst=dayfirst)
        except Exception:  # noqa: BLE001 - anything odd goes to the comparator itself
            _PARSED[key] = False
    parsed = _PARSED[key]
    if type(parsed) is not _ParsedSingle or not (parsed.has_year and parsed.has_month and parsed.has_day):
        return None
    if parsed.dt.tzinfo is not None:
        return None
    return int(parsed.dt.toordinal())


def _date(comparator: Any, a: list[Any], b: list[Any]) -> np.ndarray:
    if comparator._has_subday_tolerance():
        return _pairwise(comparator, a, b)
    window = comparator.tolerance // datetime.timedelta(days=1)
    keys_a, ia = _unique(a, _hashable)
    keys_b, ib = _unique(b, _hashable)
    readings = (False, True) if comparator.dayfirst is None else (comparator.dayfirst,)
    sim = np.zeros((len(keys_a), len(keys_b)))
    for dayfirst in readings:
        days_a = [_day(comparator, value, dayfirst) for _, value in keys_a]
        days_b = [_day(comparator, value, dayfirst) for _, value in keys_b]
        if None in days_a or None in days_b:
            return _pairwise(comparator, a, b)
        close = np.abs(np.subtract.outer(np.array(days_a), np.array(days_b))) <= window
        sim = np.maximum(sim, close.astype(np.float64))
    return sim[np.ix_(ia, ib)]


def scalar_similarity(comparator: Any, gt: Any, pred: Any) -> float:
    """`comparator.compare(gt, pred)` for one pair, faster where a vectorised twin exists.

    Edit distance comes from `rapidfuzz` (the engine's pure-Python Levenshtein is most of a
    text field's cost) and dates from the shared parse cache (dateutil is most of a date
    field's cost); every other comparator, and any value these cannot read, is the comparator.
    """
    kind = type(comparator)
    if gt is None or pred is None or kind not in (LevenshteinComparator, DateComparator):
        return comparator.compare(gt, pred)  # type: ignore[no-any-return]
    if type(gt) not in _SCALARS or type(pred) not in _SCALARS:
        return comparator.compare(gt, pred)  # type: ignore[no-any-return]
    if kind is LevenshteinComparator:
        a, b = str(gt), str(pred)
        if comparator._normalize:
            a, b = " ".join(a.strip().lower().split()), " ".join(b.strip().lower().split())
        longest = max(len(a), len(b))
        return 1.0 if longest == 0 else 1.0 - (float(Levenshtein.distance(a, b)) / float(longest))
    if comparator._has_subday_tolerance():
        return comparator.compare(gt, pred)  # type: ignore[no-any-return]
    window = comparator.tolerance // datetime.timedelta(days=1)
    best = 0.0
    for dayfirst in (False, True) if comparator.dayfirst is None else (comparator.dayfirst,):
        a_day, b_day = _day(comparator, gt, dayfirst), _day(comparator, pred, dayfirst)
        if a_day is None or b_day is None:
            return comparator.compare(gt, pred)  # type: ignore[no-any-return]
        best = max(best, 1.0 if abs(a_day - b_day) <= window else 0.0)
    return best


VECTORISERS: dict[type, Callable[[Any, list[Any], list[Any]], np.ndarray]] = {
    LevenshteinComparator: _levenshtein,
    FuzzyComparator: _fuzzy,
    ExactComparator: _exact,
    NumericComparator: _numeric,
    DateComparator: _date,
}


# -- every field of two element lists -----------------------------------------------------
