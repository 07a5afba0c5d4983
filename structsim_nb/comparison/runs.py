"""One side of a comparison: a run's cases, read from a report, a report file or an evaluate reports folder.

`read_run` turns whatever the user passed into a `Run`: one evaluator's rows, one entry per case
in report order, with the case's status, score and pass, its non-matches keyed by field path,
and a value per field path (`values`, NaN where the case has no value for the path) with the
path's confusion counts. `compare` pairs two `Run`s; nothing here compares.

A field path's per-case value is stickler's `threshold_applied_score` for that path (the value
the report's `fields_frame()` averages into `mean_score`). stickler records none for the fields
of list elements (`line_items.sku`), so those use the case's accuracy on the path instead:
`(tp + tn) / (tp + tn + fn + fa + fd)`, stickler's `cm_accuracy`, NaN when the case compared
nothing there. `measures` says which a path uses. Rows of the `json_match` evaluators (and of
the `static_json` scorer, read from a reports folder) give each path's 1/0 score.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationOutput

from ..errors import ComparisonError, ReportFileError
from ..report import StructuredOutputReport

logger = logging.getLogger(__name__)

__all__ = ["COUNTS", "Run", "field_detail", "from_report", "read_run", "row_status"]

#: The confusion counts kept per case and path, in this order.
COUNTS = ("tp", "fn", "fa", "fd", "tn")
_STATUS_COUNT = {"match": 0, "missed": 1, "invented": 2, "wrong": 3, "absent": 4}


@dataclass
class Run:
    """One run's cases for one evaluator, as arrays aligned on `names`."""

    label: str
    source: str | None
    evaluator: str
    kind: str
    schemas: frozenset[str]
    names: list[str]
    status: list[str]
    score: np.ndarray
    passed: np.ndarray
    reason: list[str]
    detailed: np.ndarray  # the case has field detail (values and counts are read)
    paths: list[str]
    measures: dict[str, str]
    values: np.ndarray  # (cases, paths), NaN where the case has no value for the path
    counts: np.ndarray  # (cases, paths, COUNTS)
    non_matches: list[dict[str, dict[str, Any]]]
    actual: list[Any]  # each case's actual output as the report holds it (None from a reports folder)
    notes: list[str] = field(default_factory=list)
    report: Any = None  # the StructuredOutputReport the run was read from (the explorer shows its cases)


class _Cells:
    """Flat per-(case, path) records: a row index, a column, a score (NaN: none) and the five counts.

    Flat lists of numbers rather than a container per case and path: a run of 10,000 cases x 30
    fields would otherwise allocate 300,000 small lists, and the garbage collector would scan
    the (large) reports each time their number crossed its threshold.
    """

    def __init__(self) -> None:
        self.columns: dict[str, int] = {}
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.scores: list[float] = []
        self.tallies: list[list[int]] = [[] for _ in COUNTS]

    def column(self, path: str) -> int:
        column = self.columns.get(path)
        if column is None:
            column = self.columns[path] = len(self.columns)
        return column

    def add(self, row: int, path: str, score: float, tp: int, fn: int, fa: int, fd: int, tn: int) -> None:
        self.rows.append(row)
        self.cols.append(self.column(path))
        self.scores.append(score)
        for tally, value in zip(self.tallies, (tp, fn, fa, fd, tn), strict=True):
            tally.append(value)

    def arrays(self, cases: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`(values, counts, accuracy)`: values (cases x paths, NaN where absent), counts (cases x paths x 5),
        and per path whether some case had no score, so its per-case accuracy stands in."""
        width = len(self.columns)
        rows, cols = np.asarray(self.rows, dtype=np.int64), np.asarray(self.cols, dtype=np.int64)
        counts = np.zeros((cases, width, len(COUNTS)), dtype=np.int64)
        for slot, tally in enumerate(self.tallies):
            np.add.at(counts[:, :, slot], (rows, cols), np.asarray(tally, dtype=np.int64))
        seen = np.zeros((cases, width), dtype=bool)
        seen[rows, cols] = True
        values = np.full((cases, width), np.nan)
        scores = np.asarray(self.scores, dtype=float)
        scored = ~np.isnan(scores)
        values[rows[scored], cols[scored]] = scores[scored]
        tp, fn, fa, fd, tn = (counts[:, :, slot] for slot in range(len(COUNTS)))
        compared = tp + tn + fn + fa + fd
        fallback = seen & np.isnan(values)
        with np.errstate(invalid="ignore", divide="ignore"):
            accuracy = np.where(compared > 0, (tp + tn) / compared, np.nan)
        values[fallback] = accuracy[fallback]
        return values, counts, fallback.any(axis=0)


def _walk_stickler(fields: Mapping[str, Any], prefix: str, row: int, cells: _Cells) -> None:
    """Every path of one comparison into `cells`, read as stickler's aggregator reads it.

    Counts come from the entry itself and from its `overall`, as `BulkStructuredModelEvaluator`
    adds them (a path met twice adds up); children under `fields` and `nested_fields`. The score
    is `threshold_applied_score`. Hot: every field of every case passes here.
    """
    for name, data in fields.items():
        if not isinstance(data, dict):
            continue
        path = f"{prefix}.{name}" if prefix else name
        tp = fn = fa = fd = tn = 0
        for source in (data, data.get("overall")):
            if source and ("tp" in source or "fn" in source or "fa" in source or "fd" in source or "tn" in source):
                tp += int(source.get("tp") or 0)
                fn += int(source.get("fn") or 0)
                fa += int(source.get("fa") or 0)
                fd += int(source.get("fd") or 0)
                tn += int(source.get("tn") or 0)
        score = data.get("threshold_applied_score")
        if score is None or score.__class__ is bool or not math.isfinite(score):
            score = math.nan
        cells.add(row, path, float(score), tp, fn, fa, fd, tn)
        for nested in ("fields", "nested_fields"):
            children = data.get(nested)
            if children:
                _walk_stickler(children, path, row, cells)


def field_detail(metadata: Mapping[str, Any], row: int, cells: _Cells) -> bool:
    """Add a row's per-path scores and counts to `cells`; False when the row has no field detail."""
    comparison = metadata.get("comparison")
    matrix = comparison.get("confusion_matrix") if isinstance(comparison, Mapping) else None
    if isinstance(matrix, Mapping) and isinstance(matrix.get("fields"), Mapping):
        _walk_stickler(matrix["fields"], "", row, cells)
        return True
    if isinstance(metadata.get("fields"), list):  # json_match rows, and static_json from a reports folder
        for item in metadata["fields"]:
            if not isinstance(item, Mapping) or item.get("status") not in _STATUS_COUNT:
                continue
            tallies = [0, 0, 0, 0, 0]
            tallies[_STATUS_COUNT[item["status"]]] = 1
            score = item.get("score")
            if not isinstance(score, (int, float)) or isinstance(score, bool) or not math.isfinite(score):
                score = math.nan
            cells.add(row, str(item.get("path")), float(score), *tallies)
        return True
    return False


def _non_matches(metadata: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The row's non-match records keyed by path (a repeated path gets `#2`, `#3`)."""
    keyed: dict[str, dict[str, Any]] = {}
    for record in metadata.get("non_matches") or ():
        if not isinstance(record, Mapping):
            continue
        path = key = str(record.get("path", ""))
        repeat = 1
        while key in keyed:
            repeat += 1
            key = f"{path}#{repeat}"
        keyed[key] = dict(record)
    return keyed


def row_status(row: EvaluationOutput | None) -> str:
    """A row's status, by the rules of `StructuredOutputReport.cases_frame()`.

    One difference: a row of another evaluator (`Equals`, a scorer of a reports folder) is
    `scored`, since a comparison reads one evaluator's rows. A case with no row at all (its
    evaluator raised inside an `Experiment`) is an `error`. tests/test_compare.py checks these
    agree with `cases_frame()`, which is too slow to build for this on large runs.
    """
    if row is None:
        return "error"
    metadata = row.metadata or {}
    error = metadata.get("error")
    evaluated_by = str(metadata.get("evaluated_by", ""))
    if evaluated_by.startswith("json_match:"):
        return "unreadable" if error == "unreadable" else "scored"
    if evaluated_by == "StructuredOutputSimilarity":
        return "scored"
    if row.label == NOT_APPLICABLE:
        return "not applicable"
    if error == "unreadable":
        return "unreadable"
    if error in ("raised", "crashed"):
        return "error"
    return "scored"


def _label(which: str, source: str | None) -> str:
    return f"{which} {source!r}" if source else f"{which} (in memory)"


def _evaluator(report: StructuredOutputReport, label: str, evaluator: str | None) -> str:
    present = sorted({str(case.get("evaluator")) for case in report.cases})
    if not present:
        raise ComparisonError(f"{label} must hold at least one case; it holds none. Score some cases first")
    if evaluator is not None:
        if evaluator not in present:
            raise ComparisonError(
                f"evaluator must name an evaluator of both runs; {label} has no {evaluator!r} rows "
                f"(it carries: {', '.join(present)})"
            )
        return evaluator
    if len(present) > 1:
        raise ComparisonError(
            f"{label} carries {len(present)} evaluators ({', '.join(present)}); pass evaluator=NAME "
            "(--evaluator NAME on the command line) to say which one's rows to compare"
        )
    return present[0]


def _check_names(names: list[Any], label: str) -> None:
    unnamed = [index for index, name in enumerate(names) if name is None]
    if unnamed:
        raise ComparisonError(
            f"cases pair by name, so every case must have one; {label} has {len(unnamed)} unnamed "
            f"(the first at position {unnamed[0]}). Give each Case a name (or each pair a 'name')"
        )
    seen: dict[str, int] = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
    repeated = [(name, count) for name, count in seen.items() if count > 1]
    if repeated:
        listed = ", ".join(f"{name!r} x{count}" for name, count in repeated[:3])
        more = f" and {len(repeated) - 3} more" if len(repeated) > 3 else ""
        raise ComparisonError(
            f"cases pair by name, so names must be unique within a run; {label} repeats {listed}{more}. "
            "Give each case a unique name (for example the document id)"
        )


def from_report(
    report: StructuredOutputReport, *, which: str, source: str | None = None, evaluator: str | None = None
) -> Run:
    """The `Run` of one evaluator's rows in `report`; see `read_run`."""
    label = _label(which, source)
    chosen = _evaluator(report, label, evaluator)
    names: list[Any] = []
    statuses: list[str] = []
    scores: list[float] = []
    passes: list[bool] = []
    reasons: list[str] = []
    detailed: list[bool] = []
    cells = _Cells()
    non_matches: list[dict[str, dict[str, Any]]] = []
    actual: list[Any] = []
    kinds: set[str] = set()
    schemas: set[str] = set()
    for index, rows in enumerate(report.detailed_results):
        case: Mapping[str, Any] = report.cases[index] if index < len(report.cases) else {}
        if str(case.get("evaluator")) != chosen:
            continue
        first: EvaluationOutput | None = rows[0] if rows else None
        metadata: Mapping[str, Any] = (first.metadata or {}) if first is not None else {}
        state = row_status(first)
        names.append(case.get("name"))
        statuses.append(state)
        scores.append(float(report.scores[index]) if index < len(report.scores) else 0.0)
        passes.append(bool(report.test_passes[index]) if index < len(report.test_passes) else False)
        reasons.append(str(report.reasons[index] or "") if index < len(report.reasons) else "")
        detailed.append(state == "scored" and field_detail(metadata, len(names) - 1, cells))
        non_matches.append(_non_matches(metadata) if state == "scored" else {})
        actual.append(case.get("actual_output"))
        kinds.add(str(case.get("evaluator_type") or metadata.get("evaluated_by") or chosen))
        if first is not None and first.label not in (None, NOT_APPLICABLE) and state in ("scored", "unreadable"):
            schemas.add(str(first.label))
    _check_names(names, label)
    values, counts, accuracy = cells.arrays(len(names))
    paths = list(cells.columns)
    logger.debug("run=<%s>, evaluator=<%s>, cases=<%d>, paths=<%d> | run read", label, chosen, len(names), len(paths))
    return Run(
        label=label,
        source=source,
        evaluator=chosen,
        kind=" + ".join(sorted(kinds)) or chosen,
        schemas=frozenset(schemas),
        names=[str(name) for name in names],
        status=statuses,
        score=np.asarray(scores, dtype=float),
        passed=np.asarray(passes, dtype=bool),
        reason=reasons,
        detailed=np.asarray(detailed, dtype=bool),
        paths=paths,
        measures={path: "accuracy" if fallback else "score" for path, fallback in zip(paths, accuracy, strict=True)},
        values=values,
        counts=counts,
        non_matches=non_matches,
        actual=actual,
        report=report,
    )


def read_run(value: Any, *, which: str, evaluator: str | None = None) -> Run:
    """Read one side of a comparison.

    Args:
        value: A `StructuredOutputReport` (any Strands Evals `EvaluationReport` is read as one),
            the path of a saved report file, or the path of a `structsim-nb evaluate` reports
            folder (one holding `_aggregate.json`).
        which: `baseline` or `candidate`; messages name the side and its file.
        evaluator: The evaluator whose rows to read. Default None: the run's only evaluator.

    Raises:
        ReportFileError: If a file or folder is missing, truncated, or not a report.
        ComparisonError: If the run names no cases, repeats a case name, or carries several
            evaluators with `evaluator` unset.
        TypeError: If `value` is none of the above.
    """
    from strands_evals.types.evaluation_report import EvaluationReport

    if isinstance(value, StructuredOutputReport):
        return from_report(value, which=which, evaluator=evaluator)
    if isinstance(value, EvaluationReport):
        return from_report(StructuredOutputReport.model_construct(**dict(value)), which=which, evaluator=evaluator)
    if isinstance(value, (str, os.PathLike)):
        path = Path(value)
        if path.is_dir():
            from .reports_folder import read_reports_folder

            report, notes = read_reports_folder(path)
            run = from_report(report, which=which, source=str(value), evaluator=evaluator)
            run.notes.extend(notes)
            return run
        if not path.exists():
            raise ReportFileError(
                f"{which} must be a saved report file or an evaluate reports folder; {str(value)!r} was not found"
            )
        return from_report(StructuredOutputReport.from_file(path), which=which, source=str(value), evaluator=evaluator)
    raise TypeError(
        f"{which} must be a StructuredOutputReport, a saved report file or an evaluate reports folder; "
        f"got {type(value).__name__}"
    )
