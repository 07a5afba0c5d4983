"""Vectorised list matching: the engine's element similarities in one numpy pass per field.

stickler scores a `List[Model]` field by comparing every ground-truth element with every
predicted one in Python (`StructuredModel.compare`, one comparator call per field per pair),
then assigning pairs with the Hungarian method. `ElementColumns` builds the same
pair-similarity matrix from whole columns at once (`pairwise.similarity_matrix` per field),
following the engine's rules for blanks, weights and thresholds, and reads each matched pair's
score, per-field counts and non-match fields off the same matrices. The assignment is the
engine's own solver (`assignment.assign`).

A field with a comparator that has no vectorised equivalent, or a nested object or list, makes
the element class unsupported (`plan_for` says why). If its nested objects, and the objects in its
lists, hold plain values, lists of plain values, nested objects and lists of objects of the same kind
(at any depth, `NestedPlan`), and its other lists hold plain values, the list is still paired from vectorised
similarities (`pairing_plan_for`, `pairing_similarity`, `innerlists`) and each matched pair
compared by the engine; otherwise the caller runs the engine's path for that list. `tests/engine/test_fastmatch.py`
and `tests/engine/test_listmatch.py` hold the differential tests against the stock engine.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from .innerlists import objects_similarity, values_scores, values_similarity
from .pairwise import FUZZY_SCORERS, SCALARS, VECTORISERS, similarity_matrix

__all__ = [
    "ElementColumns",
    "ElementPlan",
    "FieldRule",
    "InnerColumns",
    "NestedPlan",
    "NestedRule",
    "ObjectsRule",
    "PairingPlan",
    "ValuesRule",
    "class_cached",
    "compare_as_the_engine",
    "object_plan_for",
    "pairing_plan_for",
    "pairing_similarity",
    "plan_for",
    "vectorises",
]


#: What a field read from an object without it gives (set without validation: `model_construct`, a deleted
#: attribute): the engine's `compare` leaves such a field out, so every vectorised reader refuses it and the
#: engine's path runs.
_MISSING: Any = object()


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
    """The fields of an element class, in the engine's order, when all of them vectorise.

    It does not hold the class: `_PLANS` is keyed weakly by the class, and a value that held its
    own key would keep every element class (with its comparators) for the life of the process.
    """

    fields: tuple[FieldRule, ...]


#: element class -> (its `match_threshold` then, its plan or reason); an entry goes with its class (models made
#: in a loop are not kept).
_PLANS: weakref.WeakKeyDictionary[type, tuple[Any, ElementPlan | str]] = weakref.WeakKeyDictionary()

_T = TypeVar("_T")


def class_cached(cache: weakref.WeakKeyDictionary[type, tuple[Any, _T]], cls: type, make: Callable[[type], _T]) -> _T:
    """`make(cls)`, kept in `cache` while the class's `match_threshold` stays what it was.

    What stickler reads from a class is fixed when it builds the class, but for one thing: a field
    declared without `ComparableField` takes its threshold from the class's `match_threshold`, a
    plain class attribute a caller may reassign (and the engine reads it anew on every call). So an
    entry is made again when that attribute has changed since.
    """
    threshold = getattr(cls, "match_threshold", None)
    found = cache.get(cls)
    if found is None or found[0] != threshold:
        found = cache[cls] = (threshold, make(cls))
    return found[1]


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
    return class_cached(_PLANS, cls, _plan)


def _plan(cls: type) -> ElementPlan | str:
    rules = []
    for name in _field_names(cls):
        rule = _scalar_rule(cls, name)
        if isinstance(rule, str):
            return rule
        rules.append(rule)
    return ElementPlan(tuple(rules))


def _field_names(cls: type) -> list[str]:
    return [name for name in cls.model_fields if name != "extra_fields"]  # type: ignore[attr-defined]


def _scalar_rule(cls: type, name: str) -> FieldRule | str:
    """The field's rule when it is a plain value with a vectorised comparator, else why not."""
    from stickler.structured_object_evaluator.models.configuration_helper import ConfigurationHelper
    from stickler.structured_object_evaluator.models.structured_model import _annotation_is_list

    info = cls.model_fields[name]  # type: ignore[attr-defined]
    if _annotation_is_list(info.annotation):
        return f"field {name!r} is a list"
    if ConfigurationHelper.is_structured_field_type(info):
        return f"field {name!r} is a nested object"
    config = cls._get_comparison_info(name)  # type: ignore[attr-defined]
    comparator, weight, threshold = config.comparator, config.weight, config.threshold
    reason = _comparator_reason(name, comparator, "uses") or _weight_reason(name, weight, threshold)
    if reason:
        return reason
    return FieldRule(name, comparator, threshold, weight, bool(config.clip_under_threshold))


def _comparator_reason(name: str, comparator: Any, verb: str) -> str | None:
    """Why a field's comparator has no vectorised equivalent (`verb`: how the reason names it), else None."""
    kind = type(comparator)
    if kind not in VECTORISERS:
        return f"field {name!r} {verb} {kind.__name__}"
    if hasattr(comparator, "_fuzzy_func") and comparator._fuzzy_func not in FUZZY_SCORERS:
        return f"field {name!r} uses an unknown fuzzy scorer"
    return None


def vectorises(comparator: Any) -> bool:
    """Whether `pairwise.similarity_matrix` computes this comparator's scores (its class and, for
    `FuzzyComparator`, its scorer are known)."""
    return _comparator_reason("", comparator, "") is None


def _weight_reason(name: str, weight: Any, threshold: Any) -> str | None:
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (weight, threshold)):
        return f"field {name!r} has a non-numeric weight or threshold"
    if not weight > 0 or not np.isfinite(weight):
        return f"field {name!r} has weight {weight!r}"
    return None


# -- pairing only: elements holding flat nested objects ------------------------------------


@dataclass(frozen=True)
class NestedRule:
    """A field holding one object of class `cls`, which has a plan (`object_plan_for`), at any depth.

    For pairing, stickler scores such a field by the nested objects' `compare_with` overall score
    (`StructuredModel.compare_field_raw`), which `_object_scores` computes for every pair. Inside
    a nested object's own `compare_with`, the field scores the nested pair's `compare`, kept when
    it reaches `threshold`, else 0.0 (or kept anyway when `clip` is off), as
    `FieldComparator.compare_structured_field` scores it. The class's plan is looked up when the
    field is scored, so a nested class whose `match_threshold` changed is read with its new plan.
    """

    name: str
    weight: float
    cls: type
    threshold: float
    clip: bool


@dataclass(frozen=True)
class NestedPlan:
    """An object class whose fields are plain values (`FieldRule`), nested objects (`NestedRule`), lists of plain
    values (`ValuesRule`) and lists of objects (`ObjectsRule`), at least one of them not a plain value (a class of
    plain values only has an `ElementPlan`)."""

    fields: tuple[FieldRule | NestedRule | ValuesRule | ObjectsRule, ...]


@dataclass(frozen=True)
class ValuesRule:
    """A field holding a list of plain values whose comparator vectorises, in an element or a nested object.

    For pairing, stickler scores such a field by matching the two lists (`compare_field_raw`), which
    `innerlists.values_similarity` computes for every pair. Inside a nested object's `compare_with`,
    it scores the same matching with the field's `threshold` and `clip` applied to each matched pair
    (`innerlists.values_scores`), and does not threshold that score again.
    """

    name: str
    comparator: Any
    weight: float
    threshold: float
    clip: bool


@dataclass(frozen=True)
class ObjectsRule:
    """A field holding a list of objects of class `cls`, which has a plan (`object_plan_for`), in an element or a
    nested object, at any depth.

    For pairing, stickler scores such a field by matching the two lists of objects and averaging the
    matched pairs' `compare_with` scores (`compare_field_raw`), which `innerlists.objects_similarity`
    computes for every pair. Inside a nested object's `compare_with` the field scores the same (stickler
    never clips a list of objects there). The class's plan is looked up when the field is scored, as
    `NestedRule`'s.
    """

    name: str
    weight: float
    cls: type


@dataclass(frozen=True)
class PairingPlan:
    """An element class whose pair similarities vectorise though its per-pair work does not.

    Its fields are plain values (`FieldRule`), nested objects (`NestedRule`), lists of plain values
    (`ValuesRule`) and lists of objects (`ObjectsRule`), where every object holds plain values, lists and
    nested objects of the same kind, at any depth (`object_plan_for`): the matrix
    the assignment reads is built in one pass (`pairing_similarity`), and each matched pair is then
    compared by the engine (`engine` says why: the reason `plan_for` gave).
    """

    fields: tuple[FieldRule | NestedRule | ValuesRule | ObjectsRule, ...]
    engine: str


#: element class -> its pairing plan or the reason pairing takes the engine's path, as `_PLANS`.
_PAIRINGS: weakref.WeakKeyDictionary[type, tuple[Any, PairingPlan | str]] = weakref.WeakKeyDictionary()


def pairing_plan_for(cls: type) -> PairingPlan | str:
    """How to build the pairing matrix of a list of `cls` when `plan_for(cls)` refuses, or why the engine pairs it.

    Args:
        cls: The element's `StructuredModel` class.

    Returns:
        A `PairingPlan` when every field is a plain value `plan_for` accepts, a nested object
        (`Model` or `Optional[Model]`) whose class has a plan (`object_plan_for`), a list of plain
        values whose comparator vectorises, or a list of objects (`List[Model]`) whose class has a
        plan, each with a positive weight; else the reason, such as `"field 'parcels' is a list of
        objects whose field 'phone' uses PhoneComparator"`. Worked out once per class (again if its
        `match_threshold` changes).
    """
    return class_cached(_PAIRINGS, cls, _pairing)


def _pairing(cls: type) -> PairingPlan | str:
    from stickler.structured_object_evaluator.models.configuration_helper import ConfigurationHelper
    from stickler.structured_object_evaluator.models.structured_model import _annotation_is_list

    engine = plan_for(cls)
    if isinstance(engine, ElementPlan):
        return "every field vectorises"  # (the caller uses the whole vectorised path)
    rules: list[FieldRule | NestedRule | ValuesRule | ObjectsRule] = []
    for name in _field_names(cls):
        info = cls.model_fields[name]  # type: ignore[attr-defined]
        if _annotation_is_list(info.annotation):
            values = _list_rule(cls, name, info)
            if isinstance(values, str):
                return values
            rules.append(values)
            continue
        if not ConfigurationHelper.is_structured_field_type(info):
            rule = _scalar_rule(cls, name)
            if isinstance(rule, str):
                return rule
            rules.append(rule)
            continue
        nested = _nested_rule(cls, name, "is a nested object")
        if isinstance(nested, str):
            return nested
        rules.append(nested)
    return PairingPlan(tuple(rules), engine)


#: object class -> its plan as a nested object, or the reason it has none, as `_PLANS`.
_OBJECTS: weakref.WeakKeyDictionary[type, tuple[Any, ElementPlan | NestedPlan | str]] = weakref.WeakKeyDictionary()
#: The classes whose object plans this thread is making: a class met again inside itself is not planned.
_MAKING = threading.local()


def object_plan_for(cls: type) -> ElementPlan | NestedPlan | str:
    """How every pair of `cls` objects is scored when they sit in a nested field, or why the engine scores them.

    Args:
        cls: The nested object's `StructuredModel` class.

    Returns:
        `plan_for(cls)` when it accepts the class; else a `NestedPlan` when every field is a plain value
        `plan_for` accepts, a list of plain values whose comparator vectorises, or a nested object (`Model`
        or `Optional[Model]`) or a list of objects (`List[Model]`) whose class has a plan of its own, each
        with a positive weight (and a list of plain values a numeric threshold); else the reason, such as
        `"field 'phone' uses PhoneComparator"` or `"field 'next' is a nested object that nests its own
        class"`. Worked out once per class (again if its `match_threshold` changes).
    """
    making: set[type] = _MAKING.__dict__.setdefault("classes", set())
    if cls in making:
        return "that nests its own class"
    making.add(cls)
    try:
        return class_cached(_OBJECTS, cls, _object_plan)
    finally:
        making.discard(cls)


def _object_plan(cls: type) -> ElementPlan | NestedPlan | str:
    from stickler.structured_object_evaluator.models.configuration_helper import ConfigurationHelper
    from stickler.structured_object_evaluator.models.structured_model import _annotation_is_list

    flat = plan_for(cls)
    if isinstance(flat, ElementPlan):
        return flat if flat.fields else "with no fields"
    rules: list[FieldRule | NestedRule | ValuesRule | ObjectsRule] = []
    for name in _field_names(cls):
        info = cls.model_fields[name]  # type: ignore[attr-defined]
        rule: FieldRule | NestedRule | ValuesRule | ObjectsRule | str
        if _annotation_is_list(info.annotation):
            listed = _list_rule(cls, name, info)
            # (a list of plain values has its threshold read here, in `compare_with`; a list of objects none)
            rule = (
                _weight_reason(name, listed.weight, listed.threshold) or listed
                if isinstance(listed, ValuesRule)
                else listed
            )
        elif not ConfigurationHelper.is_structured_field_type(info):
            rule = _scalar_rule(cls, name)
        else:
            rule = _nested_rule(cls, name, "is a nested object")
        if isinstance(rule, str):
            return rule
        rules.append(rule)
    return NestedPlan(tuple(rules))


def _nested_rule(cls: type, name: str, what: str) -> NestedRule | str:
    """The rule of `cls`'s nested object field `name`, or why it has none (`"field 'x' is a nested object whose
    field 'phone' uses PhoneComparator"`, `what` saying what the field is)."""
    nested = _nested_class(cls.model_fields[name].annotation)  # type: ignore[attr-defined]
    reason = _unplanned(name, what, nested)
    if reason:
        return reason
    assert isinstance(nested, type)  # (`_unplanned` said so)
    config = cls._get_comparison_info(name)  # type: ignore[attr-defined]
    reason = _weight_reason(name, config.weight, config.threshold)
    if reason:
        return reason
    return NestedRule(name, config.weight, nested, config.threshold, bool(config.clip_under_threshold))


def _unplanned(name: str, what: str, cls: Any) -> str | None:
    """Why the objects of class `cls` that field `name` holds (`what`: "is a nested object") have no plan, in the
    field's words (`"field 'x' is a nested object whose field 'phone' uses PhoneComparator"`); None if they have."""
    if not isinstance(cls, type):
        return f"field {name!r} {what} of another kind"
    inner = object_plan_for(cls)
    if isinstance(inner, str):  # ("field 'phone' uses PhoneComparator", "with no fields", "that nests its own class")
        return f"field {name!r} {what} {'whose ' if inner.startswith('field') else ''}{inner}"
    return None


def _list_rule(cls: type, name: str, info: Any) -> ValuesRule | ObjectsRule | str:
    """The rule for a list field holding plain values compared by a vectorised comparator, or objects of a class
    with a plan (`object_plan_for`); else why not."""
    from stickler.structured_object_evaluator.models.configuration_helper import ConfigurationHelper

    config = cls._get_comparison_info(name)  # type: ignore[attr-defined]
    if ConfigurationHelper.is_structured_field_type(info):
        listed = ConfigurationHelper._is_list_structured_model(info.annotation)
        item = ConfigurationHelper._extract_structured_class_from_list(info.annotation) if listed else None
        reason = _unplanned(name, "is a list of objects", item)
        if reason:
            return reason
        assert isinstance(item, type)  # (`_unplanned` said so)
        return _weight_reason(name, config.weight, 0.0) or ObjectsRule(name, config.weight, item)
    reason = _comparator_reason(name, config.comparator, "is a list compared by")
    return (
        reason
        or _weight_reason(name, config.weight, 0.0)
        or ValuesRule(name, config.comparator, config.weight, config.threshold, bool(config.clip_under_threshold))
    )


def compare_as_the_engine(score: Any, gt: Any, pred: Any) -> float | None:
    """`gt.compare(pred)` as stickler returns it, from its double `score` (a `compares` matrix entry of
    `pairing_similarity`): the same value, as a numpy float where stickler's sum met one, else a Python float.

    stickler's `compare` adds raw field scores into a Python float, so its type is numpy's when a field scored on
    both sides gives a numpy float: a list of plain values longer than one on either side (its score reads the
    assignment's numpy matrix); a one-by-one list, a plain value and a list or nested object of flat objects give
    Python floats. None when the pair's class holds a nested object or a list of objects that hold more than plain
    values, scored on both sides here: its type is not worked out, and the engine computes the score itself.
    """
    plan = object_plan_for(type(gt))
    if isinstance(plan, str):
        return None
    numpy_sum = False
    for rule in plan.fields if isinstance(plan, NestedPlan) else ():
        if isinstance(rule, FieldRule):
            continue
        mine, theirs = getattr(gt, rule.name), getattr(pred, rule.name)
        if isinstance(rule, ValuesRule):
            numpy_sum = numpy_sum or bool(mine and theirs and (len(mine) > 1 or len(theirs) > 1))
        elif not isinstance(object_plan_for(rule.cls), ElementPlan) and mine and theirs:
            return None
    return np.float64(score) if numpy_sum else float(score)


def _nested_class(annotation: Any) -> type | None:
    """The model class of a `Model` or `Optional[Model]` annotation, as stickler's reader finds it."""
    from stickler.structured_object_evaluator.models.configuration_helper import ConfigurationHelper

    if ConfigurationHelper._is_structured_model_class(annotation):
        return annotation  # type: ignore[no-any-return]
    if ConfigurationHelper._is_optional_structured_model(annotation):
        found = ConfigurationHelper._extract_structured_class_from_optional(annotation)
        return found if isinstance(found, type) else None
    return None


def pairing_similarity(
    plan: PairingPlan,
    gt_list: Sequence[Any],
    pred_list: Sequence[Any],
    compares: dict[str, np.ndarray] | None = None,
    inner: InnerColumns | None = None,
) -> np.ndarray | None:
    """`gt.compare(pred)` (stickler's pair similarity, which its assignment reads) for every pair, or None.

    Plain fields as `ElementColumns` scores them; a nested object field scores the nested pair's
    `compare_with` overall score (`ElementColumns.pair_scores` over the nested objects), 0.0 when
    one side holds none, and is left out when neither does; a list of plain values scores the two
    lists matched as the engine matches them (`innerlists.values_similarity`), and so does a list of
    objects (`innerlists.objects_similarity`), with the same blank rules (None or an empty list is
    blank). None when a value is not what the plan expects (a nested value that is not one object
    of the plan's class, a list holding something but plain values or objects of the planned class,
    a null item, a plain field holding something else): the engine then pairs the list.

    `compares`, when given (default None), receives each nested object field's name with the nested objects'
    own `compare` for every pair of elements (0.0 where a side holds none): the engine reads it when it
    compares a matched pair, and the matrix already holds its double. Left incomplete when the result is None.

    `inner`, when given (default None), records where each list of flat objects (an `ElementPlan` class) read at
    any depth sits in the `ElementColumns` built over all of them: a matched pair's comparison matches its own
    two lists from a slice of those columns (`InnerColumns.view`) instead of building them again. What it
    records stays right when the result is None: each entry is its pair's own.
    """
    shape = (len(gt_list), len(pred_list))
    weights: list[float] = []
    raws: list[np.ndarray] = []
    absent_gt: list[np.ndarray] = []
    absent_pred: list[np.ndarray] = []
    for rule in plan.fields:
        if isinstance(rule, (ValuesRule, ObjectsRule)):
            gt_values = [getattr(item, rule.name, _MISSING) for item in gt_list]
            pred_values = [getattr(item, rule.name, _MISSING) for item in pred_list]
            raw = _inner_lists(rule, gt_list, gt_values, pred_values, inner)
            if raw is None:
                return None
            raws.append(raw)
            absent_gt.append(np.array([not v for v in gt_values], dtype=bool))
            absent_pred.append(np.array([not v for v in pred_values], dtype=bool))
            weights.append(rule.weight)
            continue
        if isinstance(rule, FieldRule):
            columns = ElementColumns(ElementPlan((rule,)), gt_list, pred_list)
            if not columns.supported:
                return None
            raws += columns.raw
            absent_gt += columns.absent_gt
            absent_pred += columns.absent_pred
            weights.append(rule.weight)
            continue
        nested = _nested_scores(rule, gt_list, pred_list, inner)
        if nested is None:
            return None
        if compares is not None:
            compares[rule.name] = nested[0]
        raws.append(nested[1])
        absent_gt.append(nested[2])
        absent_pred.append(nested[3])
        weights.append(rule.weight)
    return _weighted_mean(shape, weights, raws, absent_gt, absent_pred)


def _nested_scores(
    rule: NestedRule, gt_list: Sequence[Any], pred_list: Sequence[Any], inner: InnerColumns | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """`(compare, compare_with overall score, gt absent, pred absent)` of the nested objects in field `rule.name` of
    every pair of `gt_list` and `pred_list` objects; the scores are 0.0 where a side holds none (None). None when a
    value is not an object of the field's class (text, a dict or another class set without validation) or the class
    has no plan now."""
    gt = [getattr(item, rule.name, _MISSING) for item in gt_list]
    pred = [getattr(item, rule.name, _MISSING) for item in pred_list]
    plan = object_plan_for(rule.cls)
    if isinstance(plan, str) or not all(v is None or type(v) is rule.cls for v in (*gt, *pred)):
        return None
    gt_absent = np.array([v is None for v in gt], dtype=bool)
    pred_absent = np.array([v is None for v in pred], dtype=bool)
    compared, overall = np.zeros((len(gt), len(pred))), np.zeros((len(gt), len(pred)))
    rows, cols = np.flatnonzero(~gt_absent), np.flatnonzero(~pred_absent)
    if rows.size and cols.size:
        found = _object_scores(plan, [gt[i] for i in rows], [pred[j] for j in cols], inner)
        if found is None:
            return None
        compared[np.ix_(rows, cols)], overall[np.ix_(rows, cols)] = found
    return compared, overall, gt_absent, pred_absent


def _object_scores(
    plan: ElementPlan | NestedPlan,
    gt: Sequence[Any],
    pred: Sequence[Any],
    inner: InnerColumns | None = None,
    lists: tuple[Sequence[Any], Sequence[Any]] | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """`(a.compare(b), a.compare_with(b)["overall_score"])` for every pair of objects, or None when a value is not
    what the plan reads.

    `compare` is the weighted mean of raw field scores (`_weighted_mean`: a field blank on both sides left
    out); a nested field's raw score is the nested pair's `compare_with` score. `compare_with`'s score is the
    weighted mean over every field of its thresholded score (`ElementColumns.pair_scores`: blank on both sides
    1.0, on one 0.0); a nested field's is the nested pair's `compare`, thresholded (`NestedRule`). A list of
    plain values (blank: None or empty) scores its matching, raw in `compare` and with the field's threshold
    applied to each matched pair in `compare_with` (`ValuesRule`); a list of objects scores its matching
    (`innerlists.objects_similarity` over these same scores of its items, one level down), the same in both
    (`ObjectsRule`). Both add the fields in the engine's order, so every entry is the engine's double.
    `inner`: as `pairing_similarity`'s; `lists`, when `gt` and `pred` are the objects of these lists (each side's,
    in order), has `inner` record where each list sits in the columns built over them (flat objects only).
    """
    a, b = len(gt), len(pred)
    if isinstance(plan, ElementPlan):
        columns = ElementColumns(plan, gt, pred)
        if not columns.supported:
            return None
        if inner is not None and lists is not None:
            inner.record(columns, *lists)
        return columns.similarity(), columns.every_pair_score()
    weights: list[float] = []
    raws: list[np.ndarray] = []
    kept: list[np.ndarray] = []
    absent_gt: list[np.ndarray] = []
    absent_pred: list[np.ndarray] = []
    for rule in plan.fields:
        if isinstance(rule, ValuesRule):
            lists = _value_lists(
                [getattr(o, rule.name, _MISSING) for o in gt], [getattr(o, rule.name, _MISSING) for o in pred]
            )
            if lists is None:
                return None
            gt_lists, pred_lists = lists
            scores = values_scores(
                rule.comparator, rule.name, gt, gt_lists, pred_lists, threshold=rule.threshold, clip=rule.clip
            )
            if scores is None:
                return None
            raw = scores[0]
            kept.append(scores[1])  # (the matching applied the threshold; `compare_with` takes a list's score as it is)
            gt_absent = np.array([not v for v in gt_lists], dtype=bool)
            pred_absent = np.array([not v for v in pred_lists], dtype=bool)
        elif isinstance(rule, ObjectsRule):
            gt_values = [getattr(o, rule.name, _MISSING) for o in gt]
            pred_values = [getattr(o, rule.name, _MISSING) for o in pred]
            matched = _inner_lists(rule, gt, gt_values, pred_values, inner)
            if matched is None:
                return None
            raw = matched
            kept.append(raw)  # (`compare_with` scores a list of objects as `compare_field_raw` does, never clipped)
            gt_absent = np.array([not v for v in gt_values], dtype=bool)
            pred_absent = np.array([not v for v in pred_values], dtype=bool)
        else:
            if isinstance(rule, FieldRule):
                columns = ElementColumns(ElementPlan((rule,)), gt, pred)
                if not columns.supported:
                    return None
                raw, scored = columns.raw[0], columns.raw[0]
                gt_absent, pred_absent = columns.absent_gt[0], columns.absent_pred[0]
            else:
                nested = _nested_scores(rule, gt, pred, inner)
                if nested is None:
                    return None
                scored, raw, gt_absent, pred_absent = nested
            kept.append(np.where(scored >= rule.threshold, scored, 0.0 if rule.clip else scored))
        raws.append(raw)
        absent_gt.append(gt_absent)
        absent_pred.append(pred_absent)
        weights.append(rule.weight)
    overall = _thresholded_mean((a, b), weights, kept, absent_gt, absent_pred)
    return _weighted_mean((a, b), weights, raws, absent_gt, absent_pred), overall


def _thresholded_mean(
    shape: tuple[int, int],
    weights: Sequence[float],
    kept: Sequence[np.ndarray],
    absent_gt: Sequence[np.ndarray],
    absent_pred: Sequence[np.ndarray],
) -> np.ndarray:
    """`compare_with(...)["overall_score"]` for every pair: the weighted mean over every field of its score as
    kept after its threshold (`kept`), 1.0 where the field is blank on both sides and 0.0 where on one. Summed field
    by field in the engine's order, as `ElementColumns.pair_scores` sums a few pairs."""
    total: np.ndarray = np.zeros(shape)  # a plain array: see `_weighted_mean`
    weight = 0.0
    for field_weight, score, gt_absent, pred_absent in zip(weights, kept, absent_gt, absent_pred, strict=True):
        applied = np.where(
            np.logical_and.outer(gt_absent, pred_absent),
            1.0,
            np.where(np.logical_or.outer(gt_absent, pred_absent), 0.0, score),
        )
        total = total + applied * field_weight
        weight += field_weight
    return total / weight if weight > 0 else np.zeros(shape)


def _value_lists(gt_values: Sequence[Any], pred_values: Sequence[Any]) -> tuple[list[Any], list[Any]] | None:
    """Each side's lists of plain values (`[]` for None), or None when a value is not None or a list of them."""
    lists = (*gt_values, *pred_values)
    if not all(v is None or type(v) is list for v in lists):
        return None
    if not all(type(x) in SCALARS for v in lists for x in v or ()):
        return None
    return [v or [] for v in gt_values], [v or [] for v in pred_values]


def _inner_lists(
    rule: ValuesRule | ObjectsRule,
    gt_items: Sequence[Any],
    gt_values: list[Any],
    pred_values: list[Any],
    inner: InnerColumns | None = None,
) -> np.ndarray | None:
    """The list field's `compare_field_raw` for every element pair (`innerlists`), or None when a list holds
    something else than the rule reads (plain values; objects of the planned class) and the engine pairs it.
    `inner`: as `pairing_similarity`'s."""
    if isinstance(rule, ValuesRule):
        value_lists = _value_lists(gt_values, pred_values)
        return None if value_lists is None else values_similarity(rule.comparator, rule.name, gt_items, *value_lists)
    lists = (*gt_values, *pred_values)
    if not all(v is None or type(v) is list for v in lists):
        return None
    gt_lists, pred_lists = [v or [] for v in gt_values], [v or [] for v in pred_values]
    plan = object_plan_for(rule.cls)
    if isinstance(plan, str) or not all(type(x) is rule.cls for v in lists for x in v or ()):
        return None
    flat_gt = [x for v in gt_lists for x in v]
    flat_pred = [x for v in pred_lists for x in v]
    if not flat_gt or not flat_pred:
        return np.zeros((len(gt_lists), len(pred_lists)))
    found = _object_scores(plan, flat_gt, flat_pred, inner, (gt_values, pred_values))
    if found is None:
        return None
    return objects_similarity(found[0], found[1], rule.name, gt_items, gt_lists, pred_lists)


def _weighted_mean(
    shape: tuple[int, int],
    weights: Sequence[float],
    raws: Sequence[np.ndarray],
    absent_gt: Sequence[np.ndarray],
    absent_pred: Sequence[np.ndarray],
) -> np.ndarray:
    """`StructuredModel.compare` for every pair: the weighted mean of raw field scores.

    A field blank on both sides is left out of the mean; blank on one side scores 0.0. With
    nothing compared the pair scores 1.0. Sums run field by field in the engine's order, so every
    entry is the same double the engine computes.
    """
    # Annotated as plain arrays: numpy's stubs type `zeros` by shape differently across 2.2-2.4.
    total: np.ndarray = np.zeros(shape)
    weight: np.ndarray = np.zeros(shape)
    compared = np.zeros(shape, dtype=bool)
    for field_weight, raw, gt, pred in zip(weights, raws, absent_gt, absent_pred, strict=True):
        both = np.logical_and.outer(gt, pred)
        one = np.logical_xor.outer(gt, pred)
        score = np.where(one, 0.0, raw)
        keep = ~both
        total = np.where(keep, total + score * field_weight, total)
        weight = np.where(keep, weight + field_weight, weight)
        compared |= keep
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / np.where(weight > 0, weight, 1.0)
    return np.where(weight > 0, mean, np.where(compared, 0.0, 1.0))


@dataclass
class InnerColumns:
    """Where each list of flat objects read by `pairing_similarity` sits in the `ElementColumns` built over them all.

    The pairing pass of a list whose elements hold lists of objects (a line item's tax lines) builds one
    `ElementColumns` over every such object of each side. When the engine then compares a matched pair of
    elements, it matches that pair's two lists again; `view` gives it their slice of those columns instead of
    new ones (the same entries: each is one pair's or one object's own). Lists are known by identity, per side
    (one object may stand on both), for as long as the list whose pairing pass recorded them is being compared
    (`listmatch` keeps one per pass, and drops it with the pass's columns when that list is done).
    """

    #: id(list) -> (the columns, where the list's objects start in them, where they end), per side.
    gt: dict[int, tuple[ElementColumns, int, int]] = field(default_factory=dict)
    pred: dict[int, tuple[ElementColumns, int, int]] = field(default_factory=dict)

    def record(self, columns: ElementColumns, gt_values: Sequence[Any], pred_values: Sequence[Any]) -> None:
        """Note where each non-empty list of `gt_values` and `pred_values` sits in `columns`, built over their
        objects in order (an empty list or None holds none)."""
        for values, known in ((gt_values, self.gt), (pred_values, self.pred)):
            start = 0
            for value in values:
                if value:
                    known[id(value)] = (columns, start, start + len(value))
                    start += len(value)

    def view(self, gt_list: Sequence[Any], pred_list: Sequence[Any], plan: ElementPlan) -> ElementColumns | None:
        """The columns of these two lists cut from what the pairing pass built, when it read both with `plan`
        into the same columns; else None (build them)."""
        found_gt, found_pred = self.gt.get(id(gt_list)), self.pred.get(id(pred_list))
        if found_gt is None or found_pred is None:
            return None
        (columns, gt_start, gt_end), (other, pred_start, pred_end) = found_gt, found_pred
        if columns is not other or columns.plan is not plan:
            return None
        if gt_end - gt_start != len(gt_list) or pred_end - pred_start != len(pred_list):
            return None  # (a list that changed length since: never in one comparison, but never read wrong)
        return columns.sliced(slice(gt_start, gt_end), slice(pred_start, pred_end))


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
        TypeError: Never; `supported` is False (with `reason`) when a value is not a scalar or an element lacks
            a field (set without validation).
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
            gt = [getattr(item, rule.name, _MISSING) for item in gt_list]
            pred = [getattr(item, rule.name, _MISSING) for item in pred_list]
            if not all(v is None or type(v) in SCALARS for v in (*gt, *pred)):
                missing = any(v is _MISSING for v in (*gt, *pred))
                what = "is missing from an element" if missing else "holds a value that is not a scalar"
                self.reason = f"field {rule.name!r} {what}"
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
                full[np.ix_(rows, cols)] = similarity_matrix(rule.comparator, present_gt, present_pred)
            self.raw.append(full)

    @property
    def supported(self) -> bool:
        """Whether every value could be read (else `reason` says which field stopped it)."""
        return self.reason is None

    def sliced(self, rows: slice, cols: slice) -> ElementColumns:
        """These columns for the ground-truth elements `rows` and the predicted elements `cols` (contiguous ranges,
        within `shape`): what `ElementColumns` of those elements holds, entry for entry, since every entry is one
        pair's or one element's own. Copies, so that keeping the slice (for a pair's non-match records) does not
        keep these columns; `supported` columns only."""
        cut = object.__new__(ElementColumns)
        cut.plan, cut.reason = self.plan, None
        cut.shape = (len(range(self.shape[0])[rows]), len(range(self.shape[1])[cols]))
        cut.raw = [raw[rows, cols].copy() for raw in self.raw]
        cut.absent_gt = [absent[rows].copy() for absent in self.absent_gt]
        cut.absent_pred = [absent[cols].copy() for absent in self.absent_pred]
        cut.null_gt = [null[rows].copy() for null in self.null_gt]
        cut.null_pred = [null[cols].copy() for null in self.null_pred]
        return cut

    def similarity(self) -> np.ndarray:
        """`StructuredModel.compare` for every pair: the weighted mean of raw field scores.

        A field blank on both sides is left out of the mean; blank on one side scores 0.0.
        With nothing compared the pair scores 1.0 (see `_weighted_mean`).
        """
        weights = [rule.weight for rule in self.plan.fields]
        return _weighted_mean(self.shape, weights, self.raw, self.absent_gt, self.absent_pred)

    def pair_scores(self, gt_index: np.ndarray, pred_index: np.ndarray) -> np.ndarray:
        """`compare_with(...)["overall_score"]` for the given pairs: thresholded, every field weighted.

        Per field: blank on both sides 1.0, on one side 0.0, else the raw score when it
        reaches the field's threshold, else 0.0 (or the raw score when clipping is off).
        """
        total: np.ndarray = np.zeros(len(gt_index))  # a plain array: see `similarity`
        weight = 0.0
        for rule, raw, gt, pred in zip(self.plan.fields, self.raw, self.absent_gt, self.absent_pred, strict=True):
            a, b, score = gt[gt_index], pred[pred_index], raw[gt_index, pred_index]
            kept = np.where(score >= rule.threshold, score, 0.0 if rule.clip else score)
            applied = np.where(a & b, 1.0, np.where(a | b, 0.0, kept))
            total = total + applied * rule.weight
            weight += rule.weight
        return total / weight if weight > 0 else np.zeros(len(gt_index))

    def every_pair_score(self) -> np.ndarray:
        """`pair_scores` of every pair, as an n x m matrix: the same doubles, added in the same order, computed on
        the matrices as they are (gathering each field's scores pair by pair took a 1,500 x 1,500 pass of tax
        lines to about eight arrays of 2.25 million entries at once)."""
        rules = self.plan.fields
        kept = [
            np.where(raw >= rule.threshold, raw, 0.0 if rule.clip else raw)
            for rule, raw in zip(rules, self.raw, strict=True)
        ]
        return _thresholded_mean(self.shape, [rule.weight for rule in rules], kept, self.absent_gt, self.absent_pred)

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
