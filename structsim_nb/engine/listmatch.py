"""One comparison, each list matched once: stickler's engine with its list matching memoised.

`compare` runs stickler's `ComparisonEngine` (the code behind `StructuredModel.compare_with`)
with three of its parts swapped for subclasses, through the seams the engine itself provides
(the lazily built dispatcher, list comparator and non-match collector):

- each `List[Model]` assignment is computed once per comparison and remembered by list
  identity, so documenting the non-matches reads the assignment the score already made
  (`listrecords.RecordCollector`) instead of running the Hungarian matching again
  (stickler's collector re-runs it, and re-compares every matched pair: that was the 2x);
- a list whose element class `fastmatch.plan_for` accepts is matched from vectorised
  similarity matrices (`fastmatch.ElementColumns`) with the engine's own solver, and its
  per-pair work (each matched pair's score, the per-field counts, the non-match records) is
  read off the same matrices;
- a list of one element a side has no assignment to make: the engine scores its pair directly
  (faster than building the matrices for one pair);
- the two inner lists of a matched pair of paired elements (a line item's tax lines) are matched
  from a slice of the columns the pairing pass built over every such list (`fastmatch.InnerColumns`),
  not from new ones;
- a field holding a list of plain values is matched on a vectorised matrix with the engine's
  solver (`_ValueListComparator`; stickler calls its comparator once per pair of values), and
  so is its documenting matching (`listrecords`);
- every other list takes the engine's path, element by element, through this same engine,
  so lists nested inside it are matched once too; the per-field counts of its matched pairs
  read each pair's comparison (stickler's compares every good pair's nested objects and lists
  a second time, through its own dispatch, matching a nested list again), and a pair's
  non-match records are collected only when the collector documents that pair (`PairRecords`);
- with `vectorised`, a field holding one plain value is dispatched from the class's field
  configurations read once (`_fields_of`, read again if the class's `match_threshold`
  changes), not asked for on every call, and so is the count of the prediction's extra keys.

The result dict is the one `compare_with` returns, value for value and type for type
(`tests/engine/test_listmatch.py` and `tests/engine/test_fastmatch.py` compare them against the stock engine
on generated documents). Adapted parts of stickler-eval 1.0.0 (Apache-2.0) are marked where
they are; the package pins `stickler-eval<2`.
"""

from __future__ import annotations

import logging
import re
import weakref
from collections.abc import Iterator, Sequence
from typing import Any, get_args, get_origin

import numpy as np
from stickler.auto.facade import EvalResult, EvalSpec, _dump
from stickler.structured_object_evaluator.models.comparison_dispatcher import ComparisonDispatcher
from stickler.structured_object_evaluator.models.comparison_engine import ComparisonEngine
from stickler.structured_object_evaluator.models.comparison_helper import ComparisonHelper
from stickler.structured_object_evaluator.models.configuration_helper import ConfigurationHelper
from stickler.structured_object_evaluator.models.field_comparator import FieldComparator
from stickler.structured_object_evaluator.models.hungarian_helper import HungarianHelper
from stickler.structured_object_evaluator.models.null_helper import NullHelper
from stickler.structured_object_evaluator.models.primitive_list_comparator import PrimitiveListComparator
from stickler.structured_object_evaluator.models.result_helper import ResultHelper
from stickler.structured_object_evaluator.models.structured_list_comparator import StructuredListComparator
from stickler.structured_object_evaluator.models.structured_model import StructuredModel, _annotation_is_list

from .assignment import assigned_pairs
from .fastmatch import (
    ElementColumns,
    ElementPlan,
    InnerColumns,
    PairingPlan,
    class_cached,
    compare_as_the_engine,
    pairing_plan_for,
    pairing_similarity,
    plan_for,
    vectorises,
)
from .fastread import read
from .listrecords import MatchContext, MatchPaths, PairRecords, RecordCollector
from .pairwise import SCALARS, scalar_similarity, similarity_matrix

logger = logging.getLogger(__name__)

__all__ = ["MatchOnceSpec", "MatchPaths", "compare", "list_paths", "model_paths", "overridden_method"]


def compare(
    ground_truth: StructuredModel,
    prediction: StructuredModel,
    *,
    vectorised: bool = True,
    document_non_matches: bool = False,
) -> tuple[dict[str, Any], MatchPaths]:
    """`ground_truth.compare_with(prediction, include_confusion_matrix=True, ...)`, each list matched once.

    Args:
        ground_truth: The ground truth as stickler's eval model.
        prediction: The prediction as the same eval model.
        vectorised: Match lists whose elements allow it from vectorised matrices. Default True;
            False runs the engine's per-pair path for every list (still matched once).
        document_non_matches: Also return the non-match records (`raw["non_matches"]`).
            Default False.

    Returns:
        The engine's result dict (with `confusion_matrix` and derived metrics), and which path
        matched each list field that was compared (both sides non-empty), by dotted path. A
        model whose class, or a class it holds, overrides a method the engine compares with
        (`compare`, `compare_field_raw`, `_compare_unordered_lists`, ...) is compared by its own
        `compare_with`, and no path is named: this module's parts would not call the override.
    """
    if overridden_method(type(ground_truth)) is not None:
        logger.debug("model=<%s> | overrides a comparison method; compared by its own compare_with", type(ground_truth))
        own: dict[str, Any] = ground_truth.compare_with(
            prediction,
            include_confusion_matrix=True,
            add_derived_metrics=True,
            document_non_matches=document_non_matches,
        )
        return own, {}
    context = MatchContext(vectorised=vectorised, document_non_matches=document_non_matches)
    raw = _Engine(ground_truth, context, "").compare_with(
        prediction,
        include_confusion_matrix=True,
        add_derived_metrics=True,
        document_non_matches=document_non_matches,
    )
    return raw, context.paths


class MatchOnceSpec(EvalSpec):  # type: ignore[misc]
    """stickler's `EvalSpec`, comparing through `compare`: each list matched once, vectorised where it can.

    stickler's own `compare_with` documents non-matches by running every list matching a
    second time; `compare` keeps each assignment and reads the records off it (see
    `bench/non_match_cost.py`), and matches lists of plain fields from vectorised matrices
    with the engine's solver (`fastmatch`). The result is the engine's, value for value. With
    `vectorised`, both sides are also read with `fastread.read` (stickler's `from_json`, its
    per-class questions asked once). With `document_non_matches` the records ride on
    `raw["non_matches"]`, which the upstream evaluator copies into `metadata["comparison"]` and
    `StructuredOutputSimilarity.evaluate` moves out.
    """

    def __init__(
        self,
        spec: EvalSpec,
        *,
        match_threshold: float,
        weight_hints: bool,
        vectorised: bool,
        document_non_matches: bool,
    ) -> None:
        # The evaluator's public settings, not the spec's private copies: they are what built `spec`.
        super().__init__(spec.source_cls, spec.eval_model, weight_hints=weight_hints, match_threshold=match_threshold)
        self._vectorised = vectorised
        self._document_non_matches = document_non_matches

    def evaluate(self, ground_truth: Any, prediction: Any) -> EvalResult:
        # stickler's own coerce/dump steps, as `EvalSpec.evaluate` runs them; pinned by `<2`.
        gt = self.read_model(_dump(self._coerce(ground_truth)))
        pred = self.read_model(_dump(self._coerce(prediction)))
        return self.compare_models(gt, pred)

    def read_model(self, json_data: Any) -> StructuredModel:
        """`eval_model.from_json(json_data)`: the same instance, or the same error; with `vectorised`, through
        `fastread.read` (each class's annotations read once)."""
        if self._vectorised:
            return read(self.eval_model, json_data)
        instance: StructuredModel = self.eval_model.from_json(json_data)
        return instance

    def compare_models(self, ground_truth: StructuredModel, prediction: StructuredModel) -> EvalResult:
        """Score two instances of `eval_model` as `evaluate` scores them, without reading them again.

        For instances built another way than `evaluate` builds them: `lenient.compare` sets the raw
        text of a value that did not validate on an instance (text in a number or date field), and
        the vectorised path compares such text with the comparator's own rules, as the engine does.
        """
        raw, _ = compare(
            ground_truth, prediction, vectorised=self._vectorised, document_non_matches=self._document_non_matches
        )
        return EvalResult(raw, self, ground_truth=ground_truth, prediction=prediction)


#: The methods of `StructuredModel` the engine compares with (what this module's subclasses reimplement or bypass).
_ENGINE_METHODS = tuple(
    name
    for name in vars(StructuredModel)
    if re.search(r"compar|calculate|classify|dispatch|_is_list_field|_is_structured|hierarch|non_match", name)
    and callable(getattr(StructuredModel, name, None))
)
#: model class -> the first engine method it, or a class it holds, overrides (`Class.method`), or "" for none.
_OVERRIDES: weakref.WeakKeyDictionary[type, str] = weakref.WeakKeyDictionary()


def overridden_method(model_cls: type) -> str | None:
    """The first method the engine compares with (`compare`, `compare_with`, `compare_field_raw`,
    `_compare_unordered_lists`, ...) that `model_cls`, or a model class in its fields at any depth,
    defines its own version of, as `"Class.method"`; None when there is none (worked out once per class).
    `compare` then runs the model's own `compare_with`."""
    found = _OVERRIDES.get(model_cls)
    if found is None:
        classes = [model_cls] + [inner for _, inner, _, _ in model_paths(model_cls)]
        found = next(
            (f"{inner.__name__}.{name}" for inner in classes for name in _ENGINE_METHODS if _own(inner, name)), ""
        )
        _OVERRIDES[model_cls] = found
    return found or None


def _own(cls: type, name: str) -> bool:
    mine, stock = getattr(cls, name, None), getattr(StructuredModel, name)
    return getattr(mine, "__func__", mine) is not getattr(stock, "__func__", stock)


def list_paths(model_cls: type) -> Iterator[tuple[str, type]]:
    """Every `List[Model]` field reachable from an eval model: `(dotted path, element class)`."""
    for path, inner, is_list, _ in model_paths(model_cls):
        if is_list:
            yield path, inner


def model_paths(model_cls: type) -> Iterator[tuple[str, type, bool, bool]]:
    """Every field of an eval model holding models, depth first: `(dotted path, model class, whether in a list,
    whether the list's elements may be null)`.

    A list of optional models (`List[Optional[Model]]`, or a JSON Schema array whose items are `anyOf`
    an object and null) is a list of that model: the engine matches it as one.
    """
    yield from _walk(model_cls, "", set())


def _walk(cls: type, prefix: str, seen: set[type]) -> Iterator[tuple[str, type, bool, bool]]:
    if cls in seen:
        return
    seen = seen | {cls}
    for name, info in getattr(cls, "model_fields", {}).items():
        if name == "extra_fields":
            continue
        for inner, is_list, nullable in _models_in(info.annotation):
            yield prefix + name, inner, is_list, nullable
            yield from _walk(inner, f"{prefix}{name}.", seen)


def _models_in(annotation: Any) -> Iterator[tuple[type, bool, bool]]:
    """StructuredModel classes in an annotation, whether each sits in a list, and whether that list's elements
    may be null."""
    if _is_model(annotation):
        yield annotation, False, False
        return
    origin = get_origin(annotation)
    for arg in get_args(annotation):
        if origin is not list:
            yield from _models_in(arg)
        elif _is_model(arg):
            yield arg, True, False
        else:
            options = [option for option in get_args(arg) if option is not type(None)]
            if len(options) == 1 and len(get_args(arg)) == 2 and _is_model(options[0]):
                yield options[0], True, True


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, StructuredModel)


class _Engine(ComparisonEngine):  # type: ignore[misc]
    """The engine, wired to the subclasses below (its parts are built lazily; these are preset)."""

    def __init__(self, model: StructuredModel, context: MatchContext, prefix: str) -> None:
        super().__init__(model)
        self._dispatcher = _Dispatcher(model, context, prefix)
        self._non_match_collector = RecordCollector(model, context)
        self.result: dict[str, Any] = {}  # this engine's last `compare_recursive` result

    def compare_recursive(self, other: StructuredModel) -> dict[str, Any]:
        result: dict[str, Any] = super().compare_recursive(other)
        self.result = result
        return result

    def _count_extra_fields_as_false_alarms(self, other: StructuredModel) -> int:
        # Adapted from stickler-eval 1.0.0 ComparisonEngine._count_extra_fields_as_false_alarms: the same count
        # (the prediction's extra keys, and those of nested objects on both sides), over the class's fields as
        # `_fields_of` keeps them rather than pydantic's `model_fields` read anew for every pair.
        count = len(other.__pydantic_extra__) if hasattr(other, "__pydantic_extra__") else 0
        for name in _fields_of(type(self.model))[0]:
            gt_val = getattr(self.model, name, None)
            pred_val = getattr(other, name, None)
            if isinstance(gt_val, StructuredModel) and isinstance(pred_val, StructuredModel):
                count += ComparisonEngine(gt_val)._count_extra_fields_as_false_alarms(pred_val)
            elif (
                isinstance(gt_val, list)
                and isinstance(pred_val, list)
                and gt_val
                and pred_val
                and isinstance(gt_val[0], StructuredModel)
                and isinstance(gt_val[0].__class__, StructuredModel)  # (the engine's own test: never true of a class)
            ):
                return int(super()._count_extra_fields_as_false_alarms(other))
        return count


#: The engine's field configurations of a class (`_get_comparison_info`, fixed when stickler builds the class),
#: and which fields hold one plain value (neither a list nor a model); an entry goes with its class.
_FIELDS: weakref.WeakKeyDictionary[type, tuple[Any, tuple[dict[str, Any], frozenset[str]]]] = (
    weakref.WeakKeyDictionary()
)
#: The values a plain field's fast dispatch takes (others, such as a dict or a subclass of str, take the engine's).
_PLAIN_VALUES = frozenset({str, int, float, bool, type(None)})


def _fields_of(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    """`(field name -> the engine's comparison config, the names of plain-value fields)` of a model class, read
    again when its `match_threshold` changes (`fastmatch.class_cached`)."""
    return class_cached(_FIELDS, cls, _read_fields)


def _read_fields(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    names = [name for name in cls.model_fields if name != "extra_fields"]  # type: ignore[attr-defined]
    infos = {name: cls._get_comparison_info(name) for name in names}  # type: ignore[attr-defined]
    plain = frozenset(
        name
        for name in names
        if not _annotation_is_list(cls.model_fields[name].annotation)  # type: ignore[attr-defined]
        and not ConfigurationHelper.is_structured_field_type(cls.model_fields[name])  # type: ignore[attr-defined]
    )
    return infos, plain


class _Dispatcher(ComparisonDispatcher):  # type: ignore[misc]
    def __init__(self, model: StructuredModel, context: MatchContext, prefix: str) -> None:
        super().__init__(model)
        self._context = context
        self._structured_list_comparator = _ListComparator(model, context, prefix)
        self._primitive_list_comparator = _ValueListComparator(model, context)
        self._field_comparator = _FieldComparator(model, context, prefix)

    def dispatch_field_comparison(self, field_name: str, gt_val: Any, pred_val: Any) -> dict[str, Any]:
        # A plain field holding plain values, as the engine's dispatch reads it (adapted from stickler-eval
        # 1.0.0 ComparisonDispatcher.dispatch_field_comparison, steps 1, 4 and case 1) without asking the
        # class for the field's configuration and kind on every call: about a third of a pair's comparison.
        if self._context.vectorised and type(gt_val) in _PLAIN_VALUES and type(pred_val) in _PLAIN_VALUES:
            infos, plain = _fields_of(type(self.model))
            if field_name in plain:
                weight = infos[field_name].weight
                gt_null = NullHelper.is_effectively_null_for_primitives(gt_val)
                pred_null = NullHelper.is_effectively_null_for_primitives(pred_val)
                if gt_null and pred_null:
                    return ResultHelper.create_true_negative_result(weight)  # type: ignore[no-any-return]
                if gt_null:
                    return ResultHelper.create_false_alarm_result(weight)  # type: ignore[no-any-return]
                if pred_null:
                    return ResultHelper.create_false_negative_result(weight)  # type: ignore[no-any-return]
                return self._field_comparator.compare_primitive_with_scores(gt_val, pred_val, field_name)
        result: dict[str, Any] = super().dispatch_field_comparison(field_name, gt_val, pred_val)
        return result


class _ValueListComparator(PrimitiveListComparator):  # type: ignore[misc]
    """Lists of plain values matched on a vectorised similarity matrix with the engine's solver.

    The engine fills the matrix with one comparator call per pair of values (its Levenshtein is pure
    Python), then hands it to munkres; `pairwise.similarity_matrix` gives the same doubles, and
    `assignment.assign` the same pairs. A list of one value a side, a comparator without a vectorised
    twin, a value that is not a plain scalar, or a value the comparator refuses takes the engine's path.
    """

    def __init__(self, model: StructuredModel, context: MatchContext) -> None:
        super().__init__(model)
        self._context = context

    def compare_primitive_list_with_scores(self, gt_list: list[Any], pred_list: list[Any], field_name: str) -> Any:
        info = _fields_of(type(self.parent_model))[0].get(field_name) if self._context.vectorised else None
        pairs = _value_pairs(info.comparator, gt_list, pred_list) if info is not None else None
        if info is None or pairs is None:
            return super().compare_primitive_list_with_scores(gt_list, pred_list, field_name)
        # Adapted from stickler-eval 1.0.0 PrimitiveListComparator.compare_primitive_list_with_scores and
        # ComparisonHelper.compare_unordered_lists (Apache-2.0): the same metrics from the same pairs.
        found = ComparisonHelper.unordered_list_metrics(
            matched_pairs=pairs,
            clip_under_threshold=info.clip_under_threshold,
            gt_list=gt_list,
            pred_list=pred_list,
            classification_threshold=info.threshold,
        )
        tp, fd, fa, fn = (found.get(key, 0) for key in ("tp", "fd", "fa", "fn"))
        raw_similarity = found.get("overall_score", 0.0)
        return {
            "overall": {"tp": tp, "fa": fa, "fd": fd, "fp": fa + fd, "tn": 0, "fn": fn},
            "fields": {},
            "raw_similarity_score": raw_similarity,
            "similarity_score": raw_similarity,
            "threshold_applied_score": raw_similarity,
            "weight": info.weight,
        }


def _value_pairs(comparator: Any, gt_list: list[Any], pred_list: list[Any]) -> list[tuple[int, int, Any]] | None:
    """The engine's matched pairs `(i, j, similarity)` of two lists of plain values, or None for its own path."""
    if len(gt_list) * len(pred_list) < 2 or not vectorises(comparator):  # (none or one pair: nothing to vectorise)
        return None
    if not all(type(value) in SCALARS for value in (*gt_list, *pred_list)):
        return None
    try:
        similarity = similarity_matrix(comparator, gt_list, pred_list)
    except Exception:  # noqa: BLE001 - the engine's path raises the engine's own error
        return None
    return assigned_pairs(similarity)


class _FieldComparator(FieldComparator):  # type: ignore[misc]
    """Fields compared with `fastmatch.scalar_similarity`; nested objects through this engine."""

    def __init__(self, model: StructuredModel, context: MatchContext, prefix: str) -> None:
        super().__init__(model)
        self._context = context
        self._prefix = prefix

    def compare_primitive_with_scores(self, gt_val: Any, pred_val: Any, field_name: str) -> dict[str, Any]:
        if not self._context.vectorised:
            result: dict[str, Any] = super().compare_primitive_with_scores(gt_val, pred_val, field_name)
            return result
        # Adapted from stickler-eval 1.0.0 FieldComparator.compare_primitive_with_scores (Apache-2.0).
        info = _fields_of(type(self.model))[0][field_name]
        raw_similarity = scalar_similarity(info.comparator, gt_val, pred_val)
        if raw_similarity >= info.threshold:
            metrics = {"tp": 1, "fa": 0, "fd": 0, "fp": 0, "tn": 0, "fn": 0}
            threshold_applied_score = raw_similarity
        else:
            metrics = {"tp": 0, "fa": 0, "fd": 1, "fp": 1, "tn": 0, "fn": 0}
            threshold_applied_score = 0.0 if info.clip_under_threshold else raw_similarity
        return {
            "overall": metrics,
            "raw_similarity_score": raw_similarity,
            "similarity_score": raw_similarity,
            "threshold_applied_score": threshold_applied_score,
            "weight": info.weight,
        }

    def compare_structured_field(
        self, gt_val: StructuredModel, pred_val: StructuredModel, field_name: str, threshold: float
    ) -> dict[str, Any]:
        # Adapted from stickler-eval 1.0.0 FieldComparator.compare_structured_field (Apache-2.0):
        # the same result, with `compare_recursive` run by this engine.
        info = self.model._get_comparison_info(field_name)
        # A nested pair inside a matched pair of paired list elements: its `compare` is in the pairing matrix.
        raw_score = self._context.compares.pop((id(gt_val), id(pred_val)), None)
        if raw_score is None:
            raw_score = gt_val.compare(pred_val)
        if raw_score >= threshold:
            object_metrics = {"tp": 1, "fa": 0, "fd": 0, "fp": 0, "tn": 0, "fn": 0}
            threshold_applied_score = raw_score
        else:
            object_metrics = {"tp": 0, "fa": 0, "fd": 1, "fp": 1, "tn": 0, "fn": 0}
            threshold_applied_score = 0.0 if info.clip_under_threshold else raw_score
        nested = _Engine(gt_val, self._context, f"{self._prefix}{field_name}.").compare_recursive(pred_val)
        return {
            "overall": {**object_metrics, "similarity_score": raw_score},
            "fields": nested["fields"],
            "raw_similarity_score": raw_score,
            "similarity_score": raw_score,
            "threshold_applied_score": threshold_applied_score,
            "weight": info.weight,
            "non_matches": [],
        }


class _ListComparator(StructuredListComparator):  # type: ignore[misc]
    """Matches a `List[Model]` once, vectorised when its element class allows it."""

    def __init__(self, model: StructuredModel, context: MatchContext, prefix: str) -> None:
        super().__init__(model)
        self._context = context
        self._prefix = prefix
        self._columns: ElementColumns | None = None
        self._pairing: np.ndarray | None = None  # the pair similarities, when only they are vectorised
        # nested object field -> its objects' `compare` for every pair of elements, when paired
        self._nested: dict[str, np.ndarray] = {}
        # (id(gt item), id(pred item)) -> the field results of that matched pair, as this engine compared it
        self._compared: dict[tuple[int, int], dict[str, Any]] = {}
        self._path = ""

    def compare_struct_list_with_scores(
        self, gt_list: list[StructuredModel], pred_list: list[StructuredModel], field_name: str
    ) -> dict[str, Any]:
        saved = self._columns, self._pairing, self._compared, self._path, self._nested, self._context.inner
        self._compared, self._nested = {}, {}
        self._path = self._prefix + field_name
        # One element a side: no assignment to make, and the engine scores the one pair directly in less time than
        # building the matrices takes (0.48 against 0.56 ms for a one-line invoice; `bench/README.md`).
        single = len(gt_list) == 1 and len(pred_list) == 1
        self._columns = None if single else self._vectorised_columns(gt_list, pred_list)
        self._pairing = self._paired(gt_list, pred_list) if self._columns is None and not single else None
        kind = "vectorised" if self._columns is not None else "paired" if self._pairing is not None else "engine"
        self._context.paths.setdefault(self._path, set()).add(kind)
        logger.debug(
            "path=<%s>, items=<%d>x<%d>, matching=<%s> | list matched", self._path, len(gt_list), len(pred_list), kind
        )
        try:
            result: dict[str, Any] = super().compare_struct_list_with_scores(gt_list, pred_list, field_name)
        finally:
            self._columns, self._pairing, self._compared, self._path, self._nested, self._context.inner = saved
        return result

    def _paired(self, gt_list: Sequence[Any], pred_list: Sequence[Any]) -> np.ndarray | None:
        """The pair similarities from `fastmatch.pairing_similarity`, when the element class and values allow it
        (`pairing_plan_for`); each matched pair is then compared by this engine, which reads its nested objects'
        `compare` from the same pass (`_nested`) where `fastmatch.compare_as_the_engine` can give its type."""
        cls = self._element_class(gt_list, pred_list)
        if cls is None:
            return None
        plan = pairing_plan_for(cls)
        if not isinstance(plan, PairingPlan):
            return None
        # The inner lists this pass reads, for its matched pairs' comparisons: dropped with its columns when this
        # list is done (`compare_struct_list_with_scores` puts the outer pass's back).
        inner = InnerColumns()
        similarity = pairing_similarity(plan, gt_list, pred_list, compares=self._nested, inner=inner)
        if similarity is None:
            self._nested = {}
        else:
            self._context.inner = inner
        return similarity

    def _element_class(self, gt_list: Sequence[Any], pred_list: Sequence[Any]) -> type | None:
        """The one class of every element, when vectorising is on; None for a list holding a null or mixed classes."""
        if not self._context.vectorised or not isinstance(gt_list[0], StructuredModel):
            return None
        cls = type(gt_list[0])
        return cls if all(type(item) is cls for item in (*gt_list, *pred_list)) else None

    def _vectorised_columns(self, gt_list: Sequence[Any], pred_list: Sequence[Any]) -> ElementColumns | None:
        cls = self._element_class(gt_list, pred_list)
        if cls is None:
            return None
        plan = plan_for(cls)
        if not isinstance(plan, ElementPlan):
            return None
        # The two lists of a matched pair of paired elements: cut from the columns the pairing pass built.
        view = self._context.inner.view(gt_list, pred_list, plan)
        if view is not None:
            return view
        columns = ElementColumns(plan, gt_list, pred_list)
        if not columns.supported:
            logger.debug("path=<%s>, reason=<%s> | engine path for this list", self._path, columns.reason)
            return None
        return columns

    def _calculate_object_level_metrics(
        self, gt_list: list[StructuredModel], pred_list: list[StructuredModel], match_threshold: float
    ) -> tuple[dict[str, int], list[tuple[int, int, Any]], set[int], set[int]]:
        key = (id(gt_list), id(pred_list))
        matched_pairs = self._context.assignments.get(key)
        if matched_pairs is None:
            similarity = self._columns.similarity() if self._columns is not None else self._pairing
            if similarity is not None:  # (never 1x1: the engine scores a lone pair itself, see above)
                matched_pairs = assigned_pairs(similarity)
            else:
                matched_pairs = HungarianHelper().get_complete_matching_info(gt_list, pred_list)["matched_pairs"]
            self._context.assignments[key] = matched_pairs
        # Adapted from stickler-eval 1.0.0 StructuredListComparator._calculate_object_level_metrics.
        tp = sum(1 for _, _, similarity in matched_pairs if similarity >= match_threshold)
        fd = len(matched_pairs) - tp
        matched_gt = {i for i, _, _ in matched_pairs}
        matched_pred = {j for _, j, _ in matched_pairs}
        fn, fa = len(gt_list) - len(matched_gt), len(pred_list) - len(matched_pred)
        metrics = {"tp": tp, "fa": fa, "fd": fd, "fp": fa + fd, "tn": 0, "fn": fn}
        return metrics, matched_pairs, matched_gt, matched_pred

    def _calculate_struct_list_similarity(
        self,
        matched_pairs: list[tuple[int, int, Any]],
        gt_list: list[StructuredModel],
        pred_list: list[StructuredModel],
        info: Any,
    ) -> float:
        scored: list[tuple[int, int, Any]]
        if self._columns is not None:
            gt_index, pred_index = _indices(matched_pairs)
            scores = self._columns.pair_scores(gt_index, pred_index).tolist()
            scored = [(i, j, score) for (i, j, _), score in zip(matched_pairs, scores, strict=True)]
            if self._context.document_non_matches:
                flagged = self._columns.flagged(gt_index, pred_index)
                for (i, j, _), fields in zip(matched_pairs, flagged, strict=True):
                    self._context.pairs[(id(gt_list[i]), id(pred_list[j]))] = (self._columns, i, j, fields)
        else:
            scored = [self._pair_score(i, j, raw, gt_list, pred_list) for i, j, raw in matched_pairs]
        # 0.01: the engine's own classification threshold for already-thresholded pair scores.
        result = ComparisonHelper.unordered_list_metrics(scored, gt_list, pred_list, 0.01)
        overall: float = result.get("overall_score", 0.0)
        return overall

    def _pair_score(
        self, i: int, j: int, raw: Any, gt_list: list[StructuredModel], pred_list: list[StructuredModel]
    ) -> tuple[int, int, Any]:
        # Adapted from stickler-eval 1.0.0 StructuredListComparator._calculate_struct_list_similarity:
        # each pair compared by this engine, its records kept for the collector.
        if not (i < len(gt_list) and j < len(pred_list)):
            return i, j, raw
        gt_item, pred_item = gt_list[i], pred_list[j]
        if gt_item is None or pred_item is None:
            return i, j, 1.0 if gt_item is None and pred_item is None else 0.0
        for name, compared in self._nested.items():
            gt_object, pred_object = getattr(gt_item, name), getattr(pred_item, name)
            if gt_object is not None and pred_object is not None:
                score = compare_as_the_engine(compared[i, j], gt_object, pred_object)
                if score is not None:
                    self._context.compares[(id(gt_object), id(pred_object))] = score
        engine = _Engine(gt_item, self._context, f"{self._path}.")
        result = engine.compare_with(pred_item)
        self._compared[(id(gt_item), id(pred_item))] = engine.result["fields"]
        if self._context.document_non_matches:
            # Collected only if the collector asks for this pair, as the engine documents it only then: collecting
            # them all at once ran the engine's matching of a list of values inside a pair it never documents.
            self._context.pairs[(id(gt_item), id(pred_item))] = PairRecords(
                engine.non_match_collector, engine.result, pred_item
            )
        return i, j, result["overall_score"]

    def _calculate_nested_field_metrics(
        self,
        list_field_name: str,
        gt_list: list[StructuredModel],
        pred_list: list[StructuredModel],
        matched_pairs: list[tuple[int, int, Any]],
        match_threshold: float,
    ) -> dict[str, dict[str, Any]]:
        if self._columns is None:
            details: dict[str, dict[str, Any]] = super()._calculate_nested_field_metrics(
                list_field_name, gt_list, pred_list, matched_pairs, match_threshold
            )
            return details
        good = [(i, j, s) for i, j, s in matched_pairs if s >= match_threshold]
        if not good:
            return {}
        return self._columns.field_counts(*_indices(good))

    def _handle_hierarchical_field(
        self,
        sub_field_name: str,
        gt_list: list[StructuredModel],
        pred_list: list[StructuredModel],
        matched_pairs: list[tuple[int, int, Any]],
    ) -> dict[str, Any]:
        # Adapted from stickler-eval 1.0.0 StructuredListComparator._handle_hierarchical_field: each pair's
        # field result is the one `_pair_score` already computed, not a second comparison (for a list inside
        # the element, a second matching).
        pair_results = self._pair_field_results(sub_field_name, gt_list, pred_list, matched_pairs)
        aggregated: dict[str, Any] = self._recursive_aggregate_metrics(pair_results)
        self._add_derived_metrics_recursively(aggregated)
        if not pair_results:
            return {"overall": {"tp": 0, "fa": 0, "fd": 0, "fp": 0, "tn": 0, "fn": 0}}
        for key in ("raw_similarity_score", "similarity_score", "threshold_applied_score", "weight"):
            if key in pair_results[0]:
                aggregated[key] = pair_results[0][key]
        return aggregated

    def _handle_non_hierarchical_field(
        self,
        sub_field_name: str,
        gt_list: list[StructuredModel],
        pred_list: list[StructuredModel],
        matched_pairs: list[tuple[int, int, Any]],
    ) -> dict[str, Any]:
        # Adapted from stickler-eval 1.0.0 StructuredListComparator._handle_non_hierarchical_field: a list of
        # plain values reads each pair's field result from `_pair_score`, as above; a plain value is classified
        # by the engine's own rule (`_classify_field_for_confusion_matrix`, which the comparison does not run).
        if not (gt_list and gt_list[0]._is_list_field(sub_field_name)):
            counts: dict[str, Any] = super()._handle_non_hierarchical_field(
                sub_field_name, gt_list, pred_list, matched_pairs
            )
            return counts
        aggregated: dict[str, Any] = self._recursive_aggregate_metrics(
            self._pair_field_results(sub_field_name, gt_list, pred_list, matched_pairs)
        )
        self._add_derived_metrics_recursively(aggregated)
        return aggregated

    def _pair_field_results(
        self,
        sub_field_name: str,
        gt_list: list[StructuredModel],
        pred_list: list[StructuredModel],
        matched_pairs: list[tuple[int, int, Any]],
    ) -> list[dict[str, Any]]:
        """The field's result for every matched pair of two elements, in order (None elements have no fields)."""
        results = []
        for i, j, _ in matched_pairs:
            if not (i < len(gt_list) and j < len(pred_list)):
                continue
            gt_item, pred_item = gt_list[i], pred_list[j]
            if gt_item is None or pred_item is None:
                continue
            # Read as the engine reads them, so an element without the field (another class, or something set
            # without validation) raises here as it does there; the pair's comparison read it as None.
            gt_value, pred_value = getattr(gt_item, sub_field_name), getattr(pred_item, sub_field_name)
            fields = self._compared.get((id(gt_item), id(pred_item)))
            if fields is None or sub_field_name not in fields:  # (not compared here: the engine's own dispatch)
                results.append(gt_item._dispatch_field_comparison(sub_field_name, gt_value, pred_value))
            else:
                results.append(fields[sub_field_name])
        return results


def _indices(pairs: Sequence[tuple[int, int, Any]]) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.fromiter((i for i, _, _ in pairs), dtype=np.int64, count=len(pairs)),
        np.fromiter((j for _, j, _ in pairs), dtype=np.int64, count=len(pairs)),
    )
