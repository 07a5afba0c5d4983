"""A report's cases as a person reads them: worst first, each with its truth, prediction and marks.

The report page (`report_page`) and the explorer (`explore`) both show cases this way, so the
order and the detail are decided here once.

Order ("worst first"): rows whose scoring errored, then unreadable rows, then failed rows, then
passed rows, then rows with nothing to score (not applicable); inside each group the lowest score
first, then the most non-matches, then report order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._protocols import ReportLike
from .._surrogates import text_frame
from .marks import as_document, case_marks

if TYPE_CHECKING:
    from strands_evals.types.evaluation import EvaluationOutput


__all__ = ["CaseDetail", "case_details", "field_of", "non_match_rows", "ranked_cases"]

#: Rank of each outcome in the worst-first order.
_RANK = {"error": 0, "unreadable": 1, "failed": 2, "passed": 3, "not applicable": 4}
_INDEX = re.compile(r"\[\d+\]")


def field_of(path: str) -> str:
    """The field a non-match path belongs to: list indexes dropped (`line_items[2].sku` -> `line_items.sku`)."""
    return _INDEX.sub("", path)


@dataclass(frozen=True)
class CaseDetail:
    """One row of the report (a case scored by one evaluator), ready to show.

    Attributes:
        row: Its position in `report.cases_frame()`.
        case: The case name.
        evaluator: The evaluator name.
        status: As `cases_frame`: scored, unreadable, not applicable, error, other evaluator.
        passed: `test_pass`.
        score: The score.
        reason: The row's reason.
        truth: The expected output as plain JSON values (text stays text).
        prediction: The actual output likewise.
        marks: `{"truth": {path: kind}, "prediction": {path: kind}}` (see `marks.case_marks`).
        non_matches: The row's non-match records (`path`, `kind`, `expected`, `predicted`, ...).
        field_scores: Top-level field -> score, when the row was scored field by field.
    """

    row: int
    case: str
    evaluator: str
    status: str
    passed: bool
    score: float
    reason: str | None
    truth: Any
    prediction: Any
    marks: dict[str, dict[str, str]]
    non_matches: list[dict[str, Any]] = field(default_factory=list)
    field_scores: dict[str, float] = field(default_factory=dict)


def _pairs(report: ReportLike) -> Iterator[tuple[Mapping[str, Any], EvaluationOutput]]:
    """Every `(case, row)` in report order: the order of `cases_frame()`."""
    for index, rows in enumerate(report.detailed_results):
        case: Mapping[str, Any] = report.cases[index] if index < len(report.cases) else {}
        for row in rows:
            yield case, row


def _detail(position: int, case: Mapping[str, Any], row: EvaluationOutput, status: str) -> CaseDetail:
    metadata = row.metadata or {}
    records = list(metadata.get("non_matches") or [])
    truth = as_document(case.get("expected_output"))
    prediction = as_document(case.get("actual_output"))
    return CaseDetail(
        row=position,
        case=str(case.get("name")),
        evaluator=str(case.get("evaluator")),
        status=status,
        passed=bool(row.test_pass),
        score=float(row.score),
        reason=row.reason,
        truth=truth,
        prediction=prediction,
        marks=case_marks(records, truth, prediction),
        non_matches=records,
        field_scores={str(k): float(v) for k, v in (metadata.get("field_scores") or {}).items()},
    )


def case_details(
    report: ReportLike, rows: Sequence[int] | None = None, *, cases: pd.DataFrame | None = None
) -> list[CaseDetail]:
    """One `CaseDetail` per row of `report.cases_frame()`, in its order; or only for the positions in `rows`.

    Args:
        report: The report.
        rows: Positions in `cases_frame()` to build, in the order wanted. Default None: every row.
        cases: `report.cases_frame()` when the caller has it already. Default None: read it.
    """
    statuses = (report.cases_frame() if cases is None else cases)["status"].tolist()
    pairs = list(_pairs(report))
    positions = range(len(pairs)) if rows is None else rows
    return [_detail(position, *pairs[position], statuses[position]) for position in positions]


def non_match_rows(report: ReportLike) -> pd.DataFrame:
    """Every non-match with the `cases_frame()` position of its row: `row`, `path`, `field`, `kind`, values.

    Unlike `report.non_matches_frame()`, a row here points at one report row even when case names
    repeat, and rows that carry no records are simply absent (no error).
    """
    records = [
        {"row": position, "case": case.get("name"), **record, "field": field_of(str(record.get("path", "")))}
        for position, (case, row) in enumerate(_pairs(report))
        for record in (row.metadata or {}).get("non_matches") or []
    ]
    columns = ["row", "case", "path", "field", "kind", "expected", "predicted", "similarity", "reason"]
    return text_frame(pd.DataFrame.from_records, [{c: r.get(c) for c in columns} for r in records], columns=columns)


def _outcome(status: str, passed: bool) -> str:
    if status in ("error", "unreadable", "not applicable"):
        return status
    return "passed" if passed else "failed"


def ranked_cases(report: ReportLike, *, cases: pd.DataFrame | None = None) -> pd.DataFrame:
    """`report.cases_frame()` worst first, with `row` (its position in `cases_frame`), `outcome` and `errors`.

    Args:
        report: The report.
        cases: `report.cases_frame()` when the caller has it already. Default None: read it.

    Returns:
        The frame sorted as the module docstring says. `outcome` is error, unreadable, failed,
        passed or not applicable; `errors` is fn + fa + fd (0 for rows not scored field by field).
    """
    frame = (report.cases_frame() if cases is None else cases).copy()
    frame.insert(0, "row", range(len(frame)))
    outcomes = [_outcome(s, bool(p)) for s, p in zip(frame["status"], frame["test_pass"], strict=True)]
    frame.insert(frame.columns.get_loc("status") + 1, "outcome", outcomes)
    errors = frame[["fn", "fa", "fd"]].astype("Float64").fillna(0).sum(axis=1).astype(int)
    frame["errors"] = errors
    frame["_rank"] = [_RANK[o] for o in outcomes]
    frame = frame.sort_values(["_rank", "score", "errors", "row"], ascending=[True, True, False, True], kind="stable")
    return frame.drop(columns=["_rank"]).reset_index(drop=True)
