"""Non-match records off the comparison's own matching: what `listmatch` hands stickler's collector.

stickler's `NonMatchCollector` documents a `List[Model]` field by running its Hungarian matching
again and comparing every matched pair a second time. `RecordCollector` (with `RecordHelper`)
reads both from the `MatchContext` the comparison filled instead: the assignment made for the
score, and per matched pair either the records its comparison produced (lists on the engine's
path) or the fields `fastmatch.ElementColumns.flagged` found (vectorised lists), turned into
the records stickler writes. A list of plain values is documented from its own matching, as
stickler documents it (`HungarianHelper`: two values match when their text, lower-cased with its
white space collapsed, is equal), with the engine's solver, from a vectorised matrix when
`vectorised`. The records are stickler's, value for value, in its order; the adapted parts of
stickler-eval 1.0.0 (Apache-2.0) are marked where they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from stickler.structured_object_evaluator.models.non_match_collector import NonMatchCollector
from stickler.structured_object_evaluator.models.non_match_field import NonMatchType
from stickler.structured_object_evaluator.models.non_matches_helper import NonMatchesHelper
from stickler.structured_object_evaluator.models.structured_model import StructuredModel

from .assignment import assigned_pairs
from .fastmatch import ElementColumns, InnerColumns
from .pairwise import SCALARS

__all__ = ["MatchContext", "MatchPaths", "PairRecords", "RecordCollector", "RecordHelper"]


#: Which path matched each list field during one comparison: `{"line_items": {"vectorised"}}`.
MatchPaths = dict[str, set[str]]


@dataclass
class MatchContext:
    """What one top-level comparison shares between its engines."""

    vectorised: bool
    document_non_matches: bool
    #: (id(gt_list), id(pred_list)) -> the engine's matched pairs `(gt, pred, similarity)`.
    assignments: dict[tuple[int, int], list[tuple[int, int, Any]]] = field(default_factory=dict)
    #: (id(gt_item), id(pred_item)) -> where to read that pair's non-match records: the vectorised columns
    #: `(columns, i, j, flagged fields)`, or the comparison that scored the pair (`PairRecords`).
    pairs: dict[tuple[int, int], Any] = field(default_factory=dict)
    paths: MatchPaths = field(default_factory=dict)
    #: (id(gt object), id(pred object)) -> `gt.compare(pred)` of a nested object pair inside a matched pair of list
    #: elements, read off the pairing matrix (`fastmatch.pairing_similarity`); taken once by the pair's comparison.
    compares: dict[tuple[int, int], float] = field(default_factory=dict)
    #: Where each list of flat objects read by the pairing pass of the list now being compared sits in the columns
    #: that pass built: a matched pair's comparison cuts its own two lists' columns from them (`fastmatch.InnerColumns`;
    #: `listmatch` puts the enclosing pass's back when that list is done).
    inner: InnerColumns = field(default_factory=InnerColumns)


def _field_non_matches(
    columns: ElementColumns, i: int, j: int, fields: list[int], gt_item: Any, pred_item: Any
) -> list[dict[str, Any]]:
    """What `gt_item.compare_with(pred_item, document_non_matches=True)["non_matches"]` holds.

    `fields` are the ones `ElementColumns.flagged` found a record for; the rest match.
    """
    records: list[dict[str, Any]] = []
    for k in fields:
        rule = columns.plan.fields[k]
        gt_value, pred_value = getattr(gt_item, rule.name), getattr(pred_item, rule.name)
        gt_absent, pred_absent = bool(columns.absent_gt[k][i]), bool(columns.absent_pred[k][j])
        record: dict[str, Any] = {"field_path": rule.name}
        if gt_absent:
            record.update(non_match_type=NonMatchType.FALSE_ALARM, details={"reason": "unmatched prediction"})
        elif pred_absent:
            record.update(non_match_type=NonMatchType.FALSE_NEGATIVE, details={"reason": "unmatched ground truth"})
        else:
            similarity = float(columns.raw[k][i, j])
            reason = f"below threshold ({similarity:.3f} < {rule.threshold})"
            record.update(non_match_type=NonMatchType.FALSE_DISCOVERY, similarity_score=similarity)
            record["details"] = {"reason": reason}
        record["ground_truth_value"], record["prediction_value"] = gt_value, pred_value
        records.append(_ordered(record))
    return records


_RECORD_KEYS = ("field_path", "non_match_type", "ground_truth_value", "prediction_value", "similarity_score", "details")


def _ordered(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its keys in the order stickler's collector writes them."""
    return {key: record[key] for key in _RECORD_KEYS if key in record}


@dataclass(frozen=True)
class PairRecords:
    """A matched pair's non-match records, collected when first asked for from the comparison that scored it.

    `collector` is that comparison's collector, `result` its `compare_recursive` result, `prediction` the
    predicted element: `records()` is what `compare_with(document_non_matches=True)` would have returned as
    `non_matches`. Each call collects them again.
    """

    collector: Any
    result: dict[str, Any]
    prediction: Any

    def records(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.collector.collect_enhanced_non_matches(self.result, self.prediction)
        return found


class RecordHelper(NonMatchesHelper):  # type: ignore[misc]
    """stickler's list non-match helper, reading the comparison's own assignments and pair records."""

    def __init__(self, context: MatchContext) -> None:
        super().__init__()
        self._context = context

    def generate_comparison_reason(self, is_match: bool, score: float, threshold: float) -> str:
        # The stock helper formats a reason per matched pair and then never reads it (its
        # `_extract_entries_from_objects` ignores `reason`); skip the formatting.
        return ""

    def get_optimal_assignments(self, gt_list: list[Any], pred_list: list[Any]) -> tuple[Any, Any]:
        matched_pairs = self._context.assignments.get((id(gt_list), id(pred_list)))
        if matched_pairs is None and self._context.vectorised:  # a list of values
            matched_pairs = _equal_pairs(gt_list, pred_list)
        if matched_pairs is None:  # the engine's own matching
            return super().get_optimal_assignments(gt_list, pred_list)
        return [(i, j) for i, j, _ in matched_pairs], matched_pairs

    def _extract_field_level_non_matches(
        self, field_name: str, gt_object: Any, pred_object: Any, object_index: int
    ) -> list[dict[str, Any]]:
        # Adapted from stickler-eval 1.0.0 NonMatchesHelper._extract_field_level_non_matches:
        # the pair's records come from the comparison that scored it, not a second one.
        found = self._context.pairs.get((id(gt_object), id(pred_object)))
        if isinstance(found, tuple):
            columns, i, j, fields = found
            records = _field_non_matches(columns, i, j, fields, gt_object, pred_object)
        elif isinstance(found, PairRecords):
            records = found.records()
        else:
            records = gt_object.compare_with(pred_object, document_non_matches=True).get("non_matches", [])
        entries = []
        for record in records:
            entry = {
                "field_path": f"{field_name}[{object_index}].{record['field_path']}",
                "non_match_type": record["non_match_type"],
                "ground_truth_value": record["ground_truth_value"],
                "prediction_value": record["prediction_value"],
                "reason": record.get("reason", "field mismatch"),
            }
            if "similarity_score" in record:
                entry["similarity_score"] = record["similarity_score"]
            entries.append(entry)
        return entries


def _equal_pairs(gt_list: list[Any], pred_list: list[Any]) -> list[tuple[int, int, Any]] | None:
    """The pairs `HungarianHelper().get_complete_matching_info(gt_list, pred_list)` matches for two lists of plain
    values; None for one pair a side or other values (its own path).

    Its matcher normalises each value (`HungarianMatcher._normalize_value`: the text, lower-cased, stripped, white
    space collapsed) and its `StructuredModelComparator` scores two texts 1.0 when equal, else 0.0.
    """
    if len(gt_list) * len(pred_list) < 2 or not all(type(value) in SCALARS for value in (*gt_list, *pred_list)):
        return None
    table: dict[str, int] = {}
    codes = np.fromiter(
        (
            table.setdefault(" ".join(str(value).lower().strip().split()), len(table))
            for value in (*gt_list, *pred_list)
        ),
        dtype=np.int64,
        count=len(gt_list) + len(pred_list),
    )
    similarity = np.equal.outer(codes[: len(gt_list)], codes[len(gt_list) :]).astype(np.float64)
    return assigned_pairs(similarity)


class RecordCollector(NonMatchCollector):  # type: ignore[misc]
    def __init__(self, model: StructuredModel, context: MatchContext) -> None:
        super().__init__(model)
        self.helper = RecordHelper(context)
        self._context = context

    def collect_enhanced_non_matches(self, recursive_result: dict[str, Any], other: Any) -> list[dict[str, Any]]:
        # Adapted from stickler-eval 1.0.0 NonMatchCollector.collect_enhanced_non_matches: the
        # same records in the same order; nested objects are collected by this class too.
        found: list[dict[str, Any]] = []
        for field_name, field_result in recursive_result.get("fields", {}).items():
            gt_val = getattr(self.model, field_name)
            pred_val = getattr(other, field_name, None)
            gt_empty = gt_val is None or (isinstance(gt_val, list) and not gt_val)
            pred_empty = pred_val is None or (isinstance(pred_val, list) and not pred_val)
            if gt_empty and isinstance(pred_val, list) and pred_val:
                found.extend(self.helper.process_null_cases(field_name, gt_val, pred_val))
            elif isinstance(gt_val, list) and gt_val and pred_empty:
                found.extend(self.helper.process_null_cases(field_name, gt_val, pred_val))
            elif isinstance(gt_val, list) and isinstance(pred_val, list):
                found.extend(self.helper.collect_list_non_matches(field_name, gt_val, pred_val))
            else:
                found.extend(self._field_records(field_name, field_result, gt_val, pred_val))
        return found

    def _field_records(self, field_name: str, field_result: Any, gt_val: Any, pred_val: Any) -> list[dict[str, Any]]:
        if not isinstance(field_result, dict):
            return []
        metrics = field_result.get("overall", field_result)
        if isinstance(gt_val, StructuredModel) and isinstance(pred_val, StructuredModel) and "fields" in field_result:
            nested = RecordCollector(gt_val, self._context).collect_enhanced_non_matches(field_result, pred_val)
            for entry in nested:
                entry["field_path"] = f"{field_name}.{entry['field_path']}"
            return nested
        record: dict[str, Any] = {
            "field_path": field_name,
            "non_match_type": None,
            "ground_truth_value": gt_val,
            "prediction_value": pred_val,
        }
        if metrics.get("fa", 0) > 0:
            record.update(non_match_type=NonMatchType.FALSE_ALARM, details={"reason": "unmatched prediction"})
        elif metrics.get("fn", 0) > 0:
            record.update(non_match_type=NonMatchType.FALSE_NEGATIVE, details={"reason": "unmatched ground truth"})
        elif metrics.get("fd", 0) > 0:
            similarity = field_result.get("raw_similarity_score")
            record.update(non_match_type=NonMatchType.FALSE_DISCOVERY, similarity_score=similarity)
            record["details"] = {"reason": "below threshold"}
            if similarity is not None:
                threshold = self.model._get_comparison_info(field_name).threshold
                record["details"]["reason"] = f"below threshold ({similarity:.3f} < {threshold})"
        else:
            return []
        return [record]
