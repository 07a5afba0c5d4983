"""Vectorised list matching: the engine's element similarities in one numpy pass per field.

stickler scores a `List[Model]` field by comparing every ground-truth element with every
predicted one in Python (`StructuredModel.compare`, one comparator call per field per pair),
then assigning pairs with the Hungarian method. This module builds the same pair-similarity
matrix from whole columns at once, for the comparators that have a vectorised equivalent with
the same semantics:

- `LevenshteinComparator`: `rapidfuzz` edit distances (integers, exact), then the engine's
  own `1.0 - dist / max(len)` on its own normalised strings;
- `FuzzyComparator`: the same `rapidfuzz.fuzz` scorer the comparator calls, through
  `rapidfuzz.process.cdist` in float64;
- `ExactComparator`: equality of the strings the comparator compares (case-folded or not);
- `NumericComparator`: equality of the engine's parsed `Decimal`s, and for a tolerance a
  float window that finds every candidate pair, each then decided by the engine's own
  `_numbers_equal`;
- `DateComparator`: each distinct value parsed once by the engine's own parser; full dates
  compare by day ordinal within the tolerance, anything else (ranges, partial dates, time
  zones) by the comparator itself, once per distinct pair of values.

Blanks, weights and thresholds follow the engine's rules exactly (see `ElementColumns`); the
assignment is the engine's own solver (`assign`). A field with any other comparator, or a
nested object or list, makes the element class unsupported (`plan_for` says why), and the
caller runs the engine's path for that list. `tests/test_fastmatch.py` holds the differential
tests against the stock engine.
"""

from __future__ import annotations

import datetime
import functools
import logging
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein
from stickler.algorithms.hungarian import _MUNKRES, make_cost_matrix
from stickler.comparators.date import DateComparator, _ParsedSingle
from stickler.comparators.exact import ExactComparator
from stickler.comparators.fuzzy import FuzzyComparator
from stickler.comparators.levenshtein import LevenshteinComparator
from stickler.comparators.numeric import NumericComparator

logger = logging.getLogger(__name__)

__all__ = ["ElementColumns", "ElementPlan", "FieldRule", "assign", "plan_for", "scalar_similarity"]

#: Value types an element field may hold for the vectorised path (what the engine's models
#: hold for str, int, float, bool, date and datetime fields).
_SCALARS = (str, int, float, bool)

_FUZZY_SCORERS = (fuzz.ratio, fuzz.partial_ratio, fuzz.token_sort_ratio, fuzz.token_set_ratio)

#: munkres releases whose `compute` this module reproduces with the native kernel directly.
_TESTED_MUNKRES = ("3.0.",)


@dataclass(frozen=True)
class FieldRule:
    """One element field as the engine compares it: comparator, threshold, weight, clipping."""

    name: str
    comparator: Any
    threshold: float
    weight: float
    clip: bool


@dataclass(frozen=True)
class ElementPlan:
    """The fields of an element class, in the engine's order, when all of them vectorise."""

    cls: type
    fields: tuple[FieldRule, ...]


#: element class -> its plan or reason; classes are built once per schema, so this stays small.
_PLANS: weakref.WeakKeyDictionary[type, ElementPlan | str] = weakref.WeakKeyDictionary()


def plan_for(cls: type) -> ElementPlan | str:
    """The vectorised plan for list elements of `cls`, or the reason the engine's path runs.

    Args:
        cls: The element's `StructuredModel` class (the eval model stickler built).

    Returns:
        An `ElementPlan` when every field (but stickler's `extra_fields`) is a scalar compared
        by a supported comparator with a positive weight; otherwise a short reason such as
        `"field 'tags' is a list"` or `"field 'phone' uses PhoneComparator"`. Worked out once
        per class (field configurations are fixed when stickler builds the class).
    """
    found = _PLANS.get(cls)
    if found is None:
        found = _PLANS[cls] = _plan(cls)
    return found


def _plan(cls: type) -> ElementPlan | str:
    from stickler.structured_object_evaluator.models.configuration_helper import ConfigurationHelper
    from stickler.structured_object_evaluator.models.structured_model import _annotation_is_list

    rules = []
    for name, info in cls.model_fields.items():  # type: ignore[attr-defined]
        if name == "extra_fields":
            continue
        if _annotation_is_list(info.annotation):
            return f"field {name!r} is a list"
        if ConfigurationHelper.is_structured_field_type(info):
            return f"field {name!r} is a nested object"
        config = cls._get_comparison_info(name)  # type: ignore[attr-defined]
        comparator = config.comparator
        kind = type(comparator)
        if kind not in (LevenshteinComparator, ExactComparator, NumericComparator, FuzzyComparator, DateComparator):
            return f"field {name!r} uses {kind.__name__}"
        if kind is FuzzyComparator and comparator._fuzzy_func not in _FUZZY_SCORERS:
            return f"field {name!r} uses an unknown fuzzy scorer"
        weight, threshold = config.weight, config.threshold
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (weight, threshold)):
            return f"field {name!r} has a non-numeric weight or threshold"
        if not weight > 0 or not np.isfinite(weight):
            return f"field {name!r} has weight {weight!r}"
        rules.append(FieldRule(name, comparator, threshold, weight, bool(config.clip_under_threshold)))
    return ElementPlan(cls, tuple(rules))


# -- one field: the raw similarity of every pair of present values -------------------------


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


def _levenshtein(rule: FieldRule, a: list[Any], b: list[Any]) -> np.ndarray:
    normalize = rule.comparator._normalize

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


def _fuzzy(rule: FieldRule, a: list[Any], b: list[Any]) -> np.ndarray:
    normalize = rule.comparator._normalize

    def key(value: Any) -> str:
        text = str(value)
        return text.strip().lower() if normalize else text

    keys_a, ia = _unique(a, key)
    keys_b, ib = _unique(b, key)
    scores = process.cdist(keys_a, keys_b, scorer=rule.comparator._fuzzy_func, dtype=np.float64, workers=1)
    both_empty = np.logical_and.outer(np.array([k == "" for k in keys_a]), np.array([k == "" for k in keys_b]))
    sim = np.where(both_empty, 1.0, scores / 100.0)
    return sim[np.ix_(ia, ib)]


def _exact(rule: FieldRule, a: list[Any], b: list[Any]) -> np.ndarray:
    fold = not rule.comparator.case_sensitive
    keys = [str(v).casefold() if fold else str(v) for v in (*a, *b)]
    codes, _ = _codes(keys)
    return np.equal.outer(codes[: len(a)], codes[len(a) :]).astype(np.float64)


def _pairwise(rule: FieldRule, a: list[Any], b: list[Any]) -> np.ndarray:
    """The comparator itself, once per distinct pair of values (exact by construction)."""
    keys_a, ia = _unique(a, _hashable)
    keys_b, ib = _unique(b, _hashable)
    compare = rule.comparator.compare
    sim = np.array([[compare(x[1], y[1]) for y in keys_b] for x in keys_a], dtype=np.float64)
    return sim.reshape(len(keys_a), len(keys_b))[np.ix_(ia, ib)]


def _hashable(value: Any) -> tuple[type, Any]:
    # The type is part of the key: 1, 1.0 and True are equal in Python but not to every comparator.
    return (type(value), value)


def _numeric(rule: FieldRule, a: list[Any], b: list[Any]) -> np.ndarray:
    comparator = rule.comparator
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
    rel, tol = comparator.relative_tolerance, comparator.absolute_tolerance
    if rel > 0 or tol > 0:
        finite_a = [n is not None and n.is_finite() for n in num_a]
        finite_b = [n is not None and n.is_finite() for n in num_b]
        fa = np.array([float(n) if ok else 0.0 for n, ok in zip(num_a, finite_a, strict=True)])
        fb = np.array([float(n) if ok else 0.0 for n, ok in zip(num_b, finite_b, strict=True)])
        magnitudes = np.abs(np.concatenate([fa, fb]))
        if np.any((magnitudes != 0) & ((magnitudes < 1e-300) | (magnitudes > 1e300))):
            return _pairwise(rule, a, b)
        # A float window wide enough to hold every pair the Decimal rule accepts; each
        # candidate is then decided by the engine's own rule, so the window only saves work.
        slack = 1.0 + 1e-9
        gap = np.abs(np.subtract.outer(fa, fb))
        scale = np.where(fa == 0, rel, rel * np.abs(fa))[:, None]
        bound = (scale + tol) * slack + 1e-12 * (np.abs(fa)[:, None] + np.abs(fb)[None, :])
        candidates = (gap <= bound) & (sim == 0.0) & np.outer(finite_a, finite_b)
        for i, j in zip(*np.nonzero(candidates), strict=True):
            if comparator._numbers_equal(num_a[i], num_b[j]):
                sim[i, j] = 1.0
    return sim[np.ix_(ia, ib)]


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


def _date(rule: FieldRule, a: list[Any], b: list[Any]) -> np.ndarray:
    comparator = rule.comparator
    if comparator._has_subday_tolerance():
        return _pairwise(rule, a, b)
    window = comparator.tolerance // datetime.timedelta(days=1)
    keys_a, ia = _unique(a, _hashable)
    keys_b, ib = _unique(b, _hashable)
    readings = (False, True) if comparator.dayfirst is None else (comparator.dayfirst,)
    sim = np.zeros((len(keys_a), len(keys_b)))
    for dayfirst in readings:
        days_a = [_day(comparator, value, dayfirst) for _, value in keys_a]
        days_b = [_day(comparator, value, dayfirst) for _, value in keys_b]
        if None in days_a or None in days_b:
            return _pairwise(rule, a, b)
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


_VECTORISERS: dict[type, Callable[[FieldRule, list[Any], list[Any]], np.ndarray]] = {
    LevenshteinComparator: _levenshtein,
    FuzzyComparator: _fuzzy,
    ExactComparator: _exact,
    NumericComparator: _numeric,
    DateComparator: _date,
}


# -- every field of two element lists -----------------------------------------------------


class ElementColumns:
    """Per-field similarity matrices of two element lists, with the engine's blank rules.

    For each field (in the plan's order) it holds `raw`, the comparator's score for every
    pair of present values (n x m; undefined where a side is blank), and three blank masks
    per side, because the engine asks three questions in three places:

    - `absent` (`NullHelper.is_effectively_null_for_primitives`: None or ""), used when
      scoring pairs for the assignment and each matched pair's score;
    - `null` (`FieldHelper.is_null_value`: also whitespace-only text), used when counting
      each matched pair's fields for the confusion matrix.

    Raises:
        TypeError: Never; `supported` is False (with `reason`) when a value is not a scalar.
    """

    def __init__(self, plan: ElementPlan, gt_list: Sequence[Any], pred_list: Sequence[Any]) -> None:
        self.plan = plan
        self.shape = (len(gt_list), len(pred_list))
        self.reason: str | None = None
        self.raw: list[np.ndarray] = []
        self.absent_gt: list[np.ndarray] = []
        self.absent_pred: list[np.ndarray] = []
        self.null_gt: list[np.ndarray] = []
        self.null_pred: list[np.ndarray] = []
        for rule in plan.fields:
            gt = [getattr(item, rule.name) for item in gt_list]
            pred = [getattr(item, rule.name) for item in pred_list]
            if not all(v is None or type(v) in _SCALARS for v in (*gt, *pred)):
                self.reason = f"field {rule.name!r} holds a value that is not a scalar"
                return
            self.absent_gt.append(np.array([v is None or v == "" for v in gt], dtype=bool))
            self.absent_pred.append(np.array([v is None or v == "" for v in pred], dtype=bool))
            self.null_gt.append(np.array([_null(v) for v in gt], dtype=bool))
            self.null_pred.append(np.array([_null(v) for v in pred], dtype=bool))
            full = np.zeros(self.shape)
            rows = np.flatnonzero(~self.absent_gt[-1])
            cols = np.flatnonzero(~self.absent_pred[-1])
            if rows.size and cols.size:
                present_gt, present_pred = [gt[i] for i in rows], [pred[j] for j in cols]
                full[np.ix_(rows, cols)] = _VECTORISERS[type(rule.comparator)](rule, present_gt, present_pred)
            self.raw.append(full)

    @property
    def supported(self) -> bool:
        """Whether every value could be read (else `reason` says which field stopped it)."""
        return self.reason is None

    def similarity(self) -> np.ndarray:
        """`StructuredModel.compare` for every pair: the weighted mean of raw field scores.

        A field blank on both sides is left out of the mean; blank on one side scores 0.0.
        With nothing compared the pair scores 1.0. Sums run field by field in the engine's
        order, so every entry is the same double the engine computes.
        """
        total = np.zeros(self.shape)
        weight = np.zeros(self.shape)
        compared = np.zeros(self.shape, dtype=bool)
        for rule, raw, gt, pred in zip(self.plan.fields, self.raw, self.absent_gt, self.absent_pred, strict=True):
            both = np.logical_and.outer(gt, pred)
            one = np.logical_xor.outer(gt, pred)
            score = np.where(one, 0.0, raw)
            keep = ~both
            total = np.where(keep, total + score * rule.weight, total)
            weight = np.where(keep, weight + rule.weight, weight)
            compared |= keep
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = total / np.where(weight > 0, weight, 1.0)
        return np.where(weight > 0, mean, np.where(compared, 0.0, 1.0))

    def pair_scores(self, gt_index: np.ndarray, pred_index: np.ndarray) -> np.ndarray:
        """`compare_with(...)["overall_score"]` for the given pairs: thresholded, every field weighted.

        Per field: blank on both sides 1.0, on one side 0.0, else the raw score when it
        reaches the field's threshold, else 0.0 (or the raw score when clipping is off).
        """
        total = np.zeros(len(gt_index))
        weight = 0.0
        for rule, raw, gt, pred in zip(self.plan.fields, self.raw, self.absent_gt, self.absent_pred, strict=True):
            a, b, score = gt[gt_index], pred[pred_index], raw[gt_index, pred_index]
            kept = np.where(score >= rule.threshold, score, 0.0 if rule.clip else score)
            applied = np.where(a & b, 1.0, np.where(a | b, 0.0, kept))
            total = total + applied * rule.weight
            weight += rule.weight
        return total / weight if weight > 0 else np.zeros(len(gt_index))

    def flagged(self, gt_index: np.ndarray, pred_index: np.ndarray) -> list[list[int]]:
        """Per pair, the fields that get a non-match record: blank on one side, or below threshold.

        A field blank on both sides (a true negative) or at or above its threshold (a true
        positive) gets none, as in the engine's collector; the fields are in the plan's order.
        """
        flagged: list[list[int]] = [[] for _ in range(len(gt_index))]
        for k, rule in enumerate(self.plan.fields):
            a, b = self.absent_gt[k][gt_index], self.absent_pred[k][pred_index]
            below = self.raw[k][gt_index, pred_index] < rule.threshold
            for pair in np.flatnonzero(~(a & b) & ((a | b) | below)).tolist():
                flagged[pair].append(k)
        return flagged

    def field_counts(self, gt_index: np.ndarray, pred_index: np.ndarray) -> dict[str, dict[str, Any]]:
        """The confusion counts of each field over the given pairs, as the engine nests them."""
        details: dict[str, dict[str, Any]] = {}
        for rule, raw, gt, pred in zip(self.plan.fields, self.raw, self.null_gt, self.null_pred, strict=True):
            a, b = gt[gt_index], pred[pred_index]
            both = ~a & ~b
            tp = int(np.count_nonzero(both & (raw[gt_index, pred_index] >= rule.threshold)))
            fa = int(np.count_nonzero(a & ~b))
            fd = int(np.count_nonzero(both)) - tp
            details[rule.name] = {
                "overall": {
                    "tp": tp,
                    "fa": fa,
                    "fd": fd,
                    "fp": fa + fd,
                    "tn": int(np.count_nonzero(a & b)),
                    "fn": int(np.count_nonzero(~a & b)),
                }
            }
        return details


def _null(value: Any) -> bool:
    """`FieldHelper.is_null_value` for the scalars this module handles."""
    return value is None or (isinstance(value, str) and not value.strip())


# -- the assignment ------------------------------------------------------------------------


@functools.cache
def _munkres_native() -> Any:
    """munkres' `_native` module, when this is a release whose `compute` `assign` reproduces."""
    try:
        if not version("munkres").startswith(_TESTED_MUNKRES):
            return None
        from munkres import _core, _native
    except (ImportError, PackageNotFoundError):
        return None
    if not (hasattr(_native, "solve_array") and getattr(_core, "_NATIVE_MIN", None) == 16):
        return None
    return _native


def _native_solver() -> tuple[Callable[..., Any], Any, int] | None:
    """The native dense kernel, its failure sentinel and size floor, while it is active."""
    native = _munkres_native()
    if native is None or not native.available():  # the kernel can switch itself off at run time
        return None
    return native.solve_array, native.FAILED, 16


def assign(similarity: np.ndarray) -> list[tuple[int, int]]:
    """The engine's assignment for a pair-similarity matrix: `(gt, pred)` index pairs, by gt.

    stickler's `HungarianMatcher.match` hands `1 - similarity` to `munkres.Munkres.compute`.
    On the munkres releases in `_TESTED_MUNKRES`, `compute` gives a matrix of 16 cells or more
    to its native kernel (the longer side as columns) and sorts the pairs; this calls the same
    kernel on the same doubles without the per-cell Python validation. Anywhere else (small
    matrices, another munkres, the kernel unavailable or declining) it makes the engine's own
    call. Either way the pairs, ties included, are the ones the engine picks.
    """
    rows, cols = similarity.shape
    solver = _native_solver()
    if solver is not None and rows * cols >= solver[2] and rows and cols:
        solve_array, failed, _ = solver
        transposed = rows > cols
        cost = np.ascontiguousarray((1.0 - similarity).T if transposed else 1.0 - similarity, dtype=np.float64)
        got = solve_array(cost)
        if got is not None and got is not failed:
            column = got[0]
            pairs = [(i, int(column[i])) for i in range(cost.shape[0])]
            return sorted((c, r) for r, c in pairs) if transposed else sorted(pairs)
        logger.debug("shape=<%s> | native assignment declined, using the engine's call", similarity.shape)
    return [tuple(pair) for pair in _MUNKRES.compute(make_cost_matrix(similarity, lambda x: 1 - x))]  # type: ignore[misc]
