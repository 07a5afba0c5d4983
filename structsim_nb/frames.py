"""Pure pandas renderers: results in, DataFrame out. Nothing here prints or scores.

Undefined ratios follow one policy, stated once: precision, recall and f1 are NaN when their
denominator is zero (a field blank on both sides in every document has no precision), never
a silent 0.0 that would read as "always wrong".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ._owned import owned_all
from ._surrogates import text_frame

__all__ = [
    "CASE_COLUMNS",
    "FIELD_COLUMNS",
    "NON_MATCH_COLUMNS",
    "cases_frame",
    "explain_frame",
    "fields_frame",
    "non_matches_frame",
]

#: The fixed columns of `cases_frame`, before one column per top-level field.
CASE_COLUMNS = [
    "case",
    "evaluator",
    "model",
    "status",
    "score",
    "test_pass",
    "precision",
    "recall",
    "f1",
    "tp",
    "fn",
    "fa",
    "fd",
    "tn",
    "reason",
    "reading",
]
#: The columns of `fields_frame`.
FIELD_COLUMNS = [
    "path",
    "parent",
    "depth",
    "tp",
    "fn",
    "fa",
    "fd",
    "tn",
    "errors",
    "precision",
    "recall",
    "f1",
    "mean_score",
]
#: The columns of `non_matches_frame`.
NON_MATCH_COLUMNS = [
    "case",
    "evaluator",
    "path",
    "kind",
    "category",
    "expected",
    "predicted",
    "similarity",
    "reason",
    "reading",
]

_COUNTS = ("tp", "fn", "fa", "fd", "tn")


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else math.nan


def _rates(tp: int, fn: int, fa: int, fd: int) -> tuple[float, float, float]:
    """precision, recall, f1 from counts, NaN when undefined; fp is fa + fd as in stickler."""
    fp = fa + fd
    return _ratio(tp, tp + fp), _ratio(tp, tp + fn), _ratio(2 * tp, 2 * tp + fp + fn)


def cases_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per case, in the order given, with a column per top-level field score.

    Args:
        rows: Mappings with the keys of `CASE_COLUMNS` (missing keys become NaN/None) and an
            optional `field_scores` mapping. `StructuredOutputReport.cases_frame` builds them.

    Returns:
        A DataFrame with `CASE_COLUMNS`, then one float column per top-level field in first-seen
        order. A field column that would shadow a fixed column is named `field:<name>`.
        `reading` lists the values a side held that did not validate as the model and were read
        leniently (None when there were none; see `structsim_nb.lenient`).
    """
    records = []
    field_names: list[str] = []
    for row in rows:
        record = {column: row.get(column) for column in CASE_COLUMNS}
        for field, score in (row.get("field_scores") or {}).items():
            column = f"field:{field}" if field in CASE_COLUMNS else field
            if column not in field_names:
                field_names.append(column)
            record[column] = float(score)
        records.append(record)
    frame = text_frame(pd.DataFrame.from_records, records, columns=CASE_COLUMNS + field_names)
    for column in ("score", "precision", "recall", "f1", *field_names):
        frame[column] = frame[column].astype(float)
    for column in _COUNTS:
        frame[column] = frame[column].astype("Int64")
    return frame


def fields_frame(field_metrics: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row per dotted field path, parents beside their children, worst first.

    Args:
        field_metrics: stickler's `ProcessEvaluation.field_metrics` (what `report.metrics()`
            returns), keyed by dotted path, with `tp`/`fn`/`fa`/`fd`/`tn` counts and, for most
            paths, `mean_score`.

    Returns:
        A DataFrame with `FIELD_COLUMNS`. `errors` is fn + fa + fd. precision, recall and f1
        are recomputed from the counts and are NaN when undefined. `mean_score` is NaN where
        stickler emits none (leaves under a `list[Model]` parent).

    Notes:
        Order: each top-level field with its descendants forms a group. Groups are sorted
        worst first by the top-level row (f1 ascending with NaN last, then more errors first,
        then path); inside a group the parent comes first and children follow, worst first by
        the same key. Read a child beside its parent: list children count only element pairs
        that matched, so a child can read perfect while its parent does not.
    """
    rows: list[dict[str, Any]] = []
    for path, entry in field_metrics.items():
        tp, fn, fa, fd, tn = (int(entry.get(name, 0) or 0) for name in _COUNTS)
        precision, recall, f1 = _rates(tp, fn, fa, fd)
        mean = entry.get("mean_score")
        rows.append(
            {
                "path": path,
                "parent": path.rsplit(".", 1)[0] if "." in path else None,
                "depth": path.count("."),
                "tp": tp,
                "fn": fn,
                "fa": fa,
                "fd": fd,
                "tn": tn,
                "errors": fn + fa + fd,
                "precision": precision,
                "recall": recall,
                "f1": f1,
                "mean_score": math.nan if mean is None else float(mean),
            }
        )

    def key(row: Mapping[str, Any]) -> tuple[Any, ...]:
        f1 = row["f1"]
        return (math.isnan(f1), 0.0 if math.isnan(f1) else f1, -row["errors"], row["path"])

    by_path = {row["path"]: row for row in rows}
    children: dict[str | None, list[Mapping[str, Any]]] = {}
    for row in rows:
        parent = row["parent"] if row["parent"] in by_path else None
        children.setdefault(parent, []).append(row)

    ordered: list[Mapping[str, Any]] = []

    def visit(parent: str | None) -> None:
        for row in sorted(children.get(parent, []), key=key):
            ordered.append(row)
            visit(row["path"])

    visit(None)
    return text_frame(pd.DataFrame.from_records, ordered, columns=FIELD_COLUMNS)


def non_matches_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The non-matches as a table, one row per field path that was missed, invented or wrong.

    Args:
        rows: Mappings with the keys of `NON_MATCH_COLUMNS` (see
            `evaluate.non_match_records`, plus `case` and `evaluator`).

    Returns:
        A DataFrame with `NON_MATCH_COLUMNS`, in the order given; empty (with those columns)
        when nothing failed. `expected` and `predicted` keep their Python values (objects for
        a list element), so a notebook shows what the right value was. `reading` says when a
        value at that path did not validate and was read leniently (None otherwise). An object
        or list value is the frame's own copy: changing it changes nothing in `rows`.
    """
    records = [{column: row.get(column) for column in NON_MATCH_COLUMNS} for row in rows]
    # The frame's own copies of values that are objects or lists: editing one leaves `rows` as they were.
    values = owned_all([record[side] for record in records for side in ("expected", "predicted")])
    for index, record in enumerate(records):
        record["expected"], record["predicted"] = values[2 * index], values[2 * index + 1]
    frame = text_frame(pd.DataFrame.from_records, records, columns=NON_MATCH_COLUMNS)
    frame["similarity"] = frame["similarity"].astype(float)
    return frame


def explain_frame(explained: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """`explain()` as a table: one row per field path with comparator, threshold, weight and why.

    Args:
        explained: What `StructuredOutputSimilarity.explain()` (stickler's `EvalSpec.explain()`)
            returns: `{path: {comparator, threshold, weight, clip_under_threshold, source, why}}`,
            plus `matching` on the paths of lists of objects.

    Returns:
        A DataFrame indexed by `path`, in the order given; `why` is joined with " -> " hops
        kept as stickler wrote them, separated by "; ". `matching` says how each list of
        objects is matched (`vectorised`, `paired: <reason>` or `engine: <reason>`); None on other paths.
    """
    rows = []
    for path, entry in explained.items():
        why = entry.get("why")
        rows.append(
            {
                "path": path,
                "comparator": entry.get("comparator"),
                "threshold": entry.get("threshold"),
                "weight": entry.get("weight"),
                "clip_under_threshold": entry.get("clip_under_threshold"),
                "source": entry.get("source"),
                "why": "; ".join(map(str, why)) if isinstance(why, (list, tuple)) else why,
                "matching": entry.get("matching"),
            }
        )
    columns = ["path", "comparator", "threshold", "weight", "clip_under_threshold", "source", "why", "matching"]
    return text_frame(pd.DataFrame.from_records, rows, columns=columns).set_index("path")
