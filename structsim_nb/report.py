"""The report: the upstream `StructuredOutputReport`, plus pandas views, HTML and a safe save/load.

`per_case()` and `metrics()` are inherited unchanged, so they behave exactly as Strands Evals
documents them (both skip rows that carry no field detail). The views added here never drop
a case: `cases_frame()` has one row per case and evaluator, whatever happened to it, with a
`status` saying which; a case whose evaluator raised inside an `Experiment` (which records it
with no row at all) is an `error` row.

Saved reports carry `format_version` (`FORMAT_VERSION`); `from_file` refuses a newer one with
"upgrade structsim-nb", and reads files without it (older ones, and upstream's) as version 1.
Scores must be finite: NaN or infinite scores are refused when saving and when loading.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from pydantic import ValidationError
from strands_evals.evaluators.deterministic.structured_output import (
    StructuredOutputReport as _UpstreamReport,
)
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationOutput

from . import frames
from ._io import write_text_atomic
from .errors import ReportFileError
from .lenient import ReadingNote

if TYPE_CHECKING:
    from .display.explore import Explorer
    from .plot import ReportPlots

logger = logging.getLogger(__name__)

__all__ = ["FORMAT_VERSION", "StructuredOutputReport"]

#: The report file format `to_file` writes and the newest `from_file` reads. Version 1: the
#: Strands Evals report fields, plus `format_version`.
FORMAT_VERSION = 1

# The marker the upstream evaluator writes on every row it scored; ours inherits it.
_MARKER = "StructuredOutputSimilarity"
# The prefix `structsim_nb.json_match` evaluators write (`json_match:<kind>`); their rows carry
# `field_scores`, `non_matches` and `counts`, but not stickler's comparison, so the upstream
# rollups (`metrics()`, `per_case()`) still select only `_MARKER` rows.
_JSON_MATCH = "json_match:"


def _is_json_match(metadata: Mapping[str, Any]) -> bool:
    return str(metadata.get("evaluated_by", "")).startswith(_JSON_MATCH)


def _status(row: EvaluationOutput) -> str:
    metadata = row.metadata or {}
    if _is_json_match(metadata):
        return "unreadable" if metadata.get("error") == "unreadable" else "scored"
    if metadata.get("evaluated_by") == _MARKER:
        return "scored"
    if row.label == NOT_APPLICABLE:
        return "not applicable"
    if metadata.get("error") == "unreadable":
        return "unreadable"
    if metadata.get("error") in ("raised", "crashed"):  # structsim_nb.dataset: scoring failed
        return "error"
    return "other evaluator"


def _reading(metadata: Mapping[str, Any]) -> str | None:
    """The lenient-reading notes of a row as one cell, or None when it has none."""
    notes = metadata.get("reading") or []
    return "; ".join(ReadingNote(**note).short() for note in notes) if notes else None


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _no_row(reason: str, score: float, passed: bool) -> EvaluationOutput:
    """The row of a case the evaluator left without one (an `Experiment` records a raised evaluator so)."""
    return EvaluationOutput(
        score=score,
        test_pass=passed,
        reason=reason or "the evaluator returned no result for this case",
        metadata={"error": "raised"},
    )


def _first_non_finite(data: Mapping[str, Any]) -> str | None:
    """Where the first NaN or infinite score is (`scores[3]`), in a report's fields; None if all are finite."""

    def bad(value: Any) -> bool:
        return isinstance(value, float) and not math.isfinite(value)

    if bad(data.get("overall_score")):
        return "overall_score"
    for index, score in enumerate(data.get("scores") or []):
        if bad(score):
            return f"scores[{index}]"
    for index, rows in enumerate(data.get("detailed_results") or []):
        for position, row in enumerate(rows or []):
            score = row.get("score") if isinstance(row, Mapping) else getattr(row, "score", None)
            if bad(score):
                return f"detailed_results[{index}][{position}].score"
    return None


#: Row statuses of an evaluator that scores field by field (see `StructuredOutputReport.evaluators`).
_FIELD_LEVEL = ("scored", "unreadable")


def _tally(summary: Mapping[str, Any]) -> str:
    """`6 cases, 5 passed, overall 0.752`, plus unreadable, error and not-applicable counts when not zero."""
    if not summary["cases"]:
        return "0 cases"
    text = f"{_plural(summary['cases'], 'case')}, {summary['passed']} passed, overall {summary['overall_score']:.3f}"
    extras = [
        (summary["unreadable"], "unreadable"),
        (summary["errors"], "errors" if summary["errors"] != 1 else "error"),
        (summary["not_applicable"], "not applicable"),
    ]
    return text + "".join(f", {count} {word}" for count, word in extras if count)


def _evaluators(report: _UpstreamReport) -> set[str]:
    """The evaluator names the report's rows carry."""
    return {str(case.get("evaluator")) for case in report.cases}


class StructuredOutputReport(_UpstreamReport):  # type: ignore[misc]
    """A Strands Evals report that shows which field failed and what the right value was.

    Pass it as an `Experiment`'s `report_cls`, or reload any saved report through
    `StructuredOutputReport.from_file`. Views:

    - `cases_frame()`: one row per case and evaluator (every case, with a `status`).
    - `fields_frame()`: one row per dotted field path, worst first, parents beside children.
    - `non_matches_frame()`: every missed, invented or wrong field with both values.
    - `per_case()` / `metrics()`: the upstream rollups, as the Strands Evals docs describe.

    In Jupyter the report renders itself as a summary and those tables.
    """

    # -- rows -------------------------------------------------------------------------

    def _rows(self, evaluator: str | None) -> Iterator[tuple[Mapping[str, Any], EvaluationOutput]]:
        """Every `(case, row)` pair in report order, for one evaluator when `evaluator` is set."""
        if evaluator is not None:
            present = {str(case.get("evaluator")) for case in self.cases}
            if evaluator not in present:
                raise ValueError(
                    f"evaluator must name an evaluator in this report; got {evaluator!r}, "
                    f"the report carries: {', '.join(sorted(present)) or '(none)'}"
                )
        for index in range(max(len(self.cases), len(self.detailed_results))):
            case: Mapping[str, Any] = self.cases[index] if index < len(self.cases) else {}
            if evaluator is not None and str(case.get("evaluator")) != evaluator:
                continue
            rows = self.detailed_results[index] if index < len(self.detailed_results) else []
            if not rows:  # the evaluator raised (an Experiment keeps the case with no row) or returned nothing
                reason = self.reasons[index] if index < len(self.reasons) else ""
                score = self.scores[index] if index < len(self.scores) else 0.0
                passed = self.test_passes[index] if index < len(self.test_passes) else False
                yield case, _no_row(reason, score, passed)
                continue
            for row in rows:
                yield case, row

    # -- views ------------------------------------------------------------------------

    def cases_frame(self, *, evaluator: str | None = None) -> pd.DataFrame:
        """One row per case and evaluator, in report order; no case is ever left out.

        Args:
            evaluator: Keep only this evaluator's rows. Default None (all).

        Returns:
            See `frames.cases_frame`. `status` is `scored`, `unreadable` (a side could not be
            read as the model at all: score 0.0, the reason says why), `not applicable` (no ground truth),
            `other evaluator` (a row from, say, `Equals` in the same experiment), or `error` (scoring
            raised or crashed its worker in `score_dataset`, or the evaluator raised inside an
            `Experiment`, which records the case without a row; the reason names the error). Counts and
            field scores are empty for rows that were not scored field by field. Rows from the
            `structsim_nb.json_match` evaluators count as scored, with their own counts.
            `reading` lists the values that did not validate and were read leniently.
        """
        table = []
        for case, row in self._rows(evaluator):
            metadata = row.metadata or {}
            entry: dict[str, Any] = {
                "case": case.get("name"),
                "evaluator": case.get("evaluator"),
                "model": row.label,
                "status": _status(row),
                "score": row.score,
                "test_pass": row.test_pass,
                "reason": row.reason,
                "reading": _reading(metadata),
            }
            if entry["status"] == "scored":
                overall = metadata.get("counts") if _is_json_match(metadata) else None
                overall = overall or (metadata.get("comparison") or {}).get("confusion_matrix", {}).get("overall", {})
                entry.update(
                    precision=metadata.get("precision"),
                    recall=metadata.get("recall"),
                    f1=metadata.get("f1"),
                    field_scores=metadata.get("field_scores"),
                    **{name: overall.get(name, 0) for name in ("tp", "fn", "fa", "fd", "tn")},
                )
            table.append(entry)
        return frames.cases_frame(table)

    def fields_frame(self, *, evaluator: str | None = None) -> pd.DataFrame:
        """The per-field confusion matrix of `metrics()` as a table, worst first.

        Args:
            evaluator: Evaluator name, for a report carrying more than one.

        Returns:
            See `frames.fields_frame`.

        Raises:
            ValueError: As `metrics()` does: nothing was scored, or several schemas are mixed.
        """
        return frames.fields_frame(self.metrics(evaluator=evaluator).field_metrics)

    def non_matches_frame(self, *, evaluator: str | None = None) -> pd.DataFrame:
        """Every field path that was missed, invented or wrong, with both values, in case order.

        Args:
            evaluator: Keep only this evaluator's rows. Default None (all).

        Returns:
            See `frames.non_matches_frame`; empty when every scored field matched.

        Raises:
            ValueError: If scored rows exist but none carries non-match records (they were
                scored by the upstream evaluator or with `non_matches=False`).
        """
        table = []
        documented = scored = 0
        for case, row in self._rows(evaluator):
            metadata = row.metadata or {}
            if metadata.get("evaluated_by") != _MARKER and not _is_json_match(metadata):
                continue
            scored += 1
            if "non_matches" not in metadata:
                continue
            documented += 1
            for record in metadata["non_matches"]:
                table.append({"case": case.get("name"), "evaluator": case.get("evaluator"), **record})
        if scored and not documented:
            raise ValueError(
                "report rows must carry non-match records to list them; none of its "
                f"{scored} scored rows does. Score with structsim_nb.StructuredOutputSimilarity "
                "(non_matches=True, the default) rather than the upstream evaluator"
            )
        return frames.non_matches_frame(table)

    def summary(self, *, evaluator: str | None = None) -> dict[str, Any]:
        """Headline figures: cases, how many were scored/unreadable/not applicable, passes, mean score.

        Args:
            evaluator: Count only this evaluator's rows. Default None: the whole report, whose
                `overall_score` mixes evaluators when there are several (as upstream's does).

        Returns:
            `{"cases", "scored", "unreadable", "not_applicable", "errors", "passed", "overall_score",
            "lenient_cases", "lenient_values", "repaired_cases", "notes"}`; `errors` counts rows
            whose scoring raised or crashed its worker (`score_dataset`), and cases whose evaluator
            raised inside an `Experiment`. `overall_score` is the upstream rule
            (`calculate_overall_score`): the mean over applicable rows, not-applicable rows left
            out; 0.0 when none is applicable. `lenient_cases` and `lenient_values` count the rows
            with values that did not validate as the model (read leniently) and those values;
            `repaired_cases` the rows with a truncated answer that was repaired. `notes` says each
            of those in a sentence ("3 cases had 5 values that did not validate ..."), and is
            empty when there is nothing to say.
        """
        table = self.cases_frame(evaluator=evaluator)
        counts = table["status"].value_counts()
        indexes = [
            index
            for index, case in enumerate(self.cases)
            if evaluator is None or str(case.get("evaluator")) == evaluator
        ]
        overall = self.calculate_overall_score(
            [self.scores[index] for index in indexes],
            [self.detailed_results[index] for index in indexes if index < len(self.detailed_results)],
        )
        lenient_cases = lenient_values = repaired = 0
        for _, row in self._rows(evaluator):
            metadata = row.metadata or {}
            notes = metadata.get("reading") or []
            lenient_cases += bool(notes)
            lenient_values += len(notes)
            repaired += bool(metadata.get("repairs"))
        sentences = []
        if lenient_cases:
            sentences.append(
                f"{_plural(lenient_cases, 'case')} had {_plural(lenient_values, 'value')} that did not validate as "
                "the model; each was read leniently and counts only for its own field "
                "(cases_frame()['reading'] lists them)"
            )
        if repaired:
            sentences.append(
                f"{_plural(repaired, 'case')} had a truncated answer (cut off inside its JSON) that was repaired; "
                "the reason says what was repaired"
            )
        return {
            "cases": len(table),
            "scored": int(counts.get("scored", 0)),
            "unreadable": int(counts.get("unreadable", 0)),
            "not_applicable": int(counts.get("not applicable", 0)),
            "errors": int(counts.get("error", 0)),
            "passed": int(table["test_pass"].sum()),
            "overall_score": float(overall),
            "lenient_cases": lenient_cases,
            "lenient_values": lenient_values,
            "repaired_cases": repaired,
            "notes": sentences,
        }

    def evaluators(self) -> list[str]:
        """The evaluator names the report's rows carry: those that score field by field first, then the others.

        An evaluator scores field by field when any of its rows was scored or unreadable
        (`StructuredOutputSimilarity`, the `structsim_nb.json_match` evaluators); `Equals` and other
        whole-output evaluators come after. Inside each group, in the order they first appear.
        Empty for a report without rows.
        """
        table = self.cases_frame()
        names = [str(name) for name in dict.fromkeys(table["evaluator"])]
        field_level = {str(name) for name in table.loc[table["status"].isin(_FIELD_LEVEL), "evaluator"]}
        return [name for name in names if name in field_level] + [name for name in names if name not in field_level]

    def similarity_evaluators(self) -> set[str]:
        """The names of the evaluators whose rows `StructuredOutputSimilarity` scored (ours or upstream).

        Unreadable, error and not-applicable rows carry no marker, so an evaluator is named here
        once one of its rows was scored; the pass-rule what-if (`structsim_nb.plot.whatif`) needs one.
        """
        return {
            str(case.get("evaluator"))
            for case, row in self._rows(None)
            if (row.metadata or {}).get("evaluated_by") == _MARKER
        }

    # -- pictures ---------------------------------------------------------------------

    @property
    def plot(self) -> ReportPlots:
        """The report's charts, as `report.plot.fields()`, `.scores()`, `.precision_recall()`, `.threshold()`.

        Each returns the matplotlib `Axes` it drew on; see `structsim_nb.plot`.
        """
        from .plot import ReportPlots

        return ReportPlots(self)

    def explore(self) -> Explorer:
        """An interactive explorer (ipywidgets): pick a case or a field and see what went wrong.

        Cases worst first, filtered by outcome, field path and kind of error, each shown as truth beside
        prediction with the differing paths highlighted, its non-matches and field scores; a Fields tab
        lists every case that fails a field. See `structsim_nb.display.explore`.

        Raises:
            ImportError: Without ipywidgets; the message names `pip install "structsim-nb[notebooks]"`.
        """
        from .display.explore import explore

        return explore(self)

    # -- rendering --------------------------------------------------------------------

    def __repr__(self) -> str:
        """One line: cases, passes and overall score, per evaluator when there are several.

        `<StructuredOutputReport 6 cases, 5 passed, overall 0.752>`; unreadable, error and
        not-applicable rows are counted when there are any. Jupyter shows this as the report's
        `text/plain` (beside the HTML display), so a saved notebook does not hold a dump of every row.
        """
        try:
            names = self.evaluators()
            if len(names) < 2:
                return f"<StructuredOutputReport {_tally(self.summary())}>"
            each = "; ".join(f"{name} {_tally(self.summary(evaluator=name))}" for name in names)
            return f"<StructuredOutputReport {len(names)} evaluators: {each}>"
        except Exception as exc:  # a repr must not raise: it would hide the report in tracebacks and debuggers
            logger.debug("error=<%s> | report repr fell back to the row count", exc)
            return f"<StructuredOutputReport {_plural(len(self.cases), 'row')}>"

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """Jupyter's rich display, kept small: the summary, one chart, the five worst rows, how to get the rest."""
        from .display.report_page import report_fragment

        return report_fragment(self)

    def to_html(self, *, title: str = "structsim-nb report") -> str:
        """The report as one self-contained HTML page, readable offline and at 10,000 cases.

        Summary and glossary first, then the charts, the cases worst first (each expands to show the
        truth beside the prediction with the failing paths highlighted), the fields worst first and
        every non-match; tables sort, filter and page. See `structsim_nb.display.report_page`.

        Args:
            title: The page title. Default "structsim-nb report".

        Returns:
            The HTML text; write it with any text writer (`structsim-nb demo` writes report.html).
        """
        from .display.report_page import report_page

        return report_page(self, title=title)

    # -- saving and loading -----------------------------------------------------------

    def to_file(self, path: str | os.PathLike[str]) -> Path:  # type: ignore[override]
        """Save the report as JSON through pydantic, atomically.

        Unlike the upstream `to_file` (plain `json.dump`), pydantic writes `datetime.date`,
        `Decimal` and nested models in case inputs and outputs, so such reports save. The same
        report always writes the same bytes. The file starts with `"format_version":
        FORMAT_VERSION`. A NaN or infinite value inside row metadata is written as `null`.

        Args:
            path: Destination. A path without a suffix gets `.json`; another suffix is an error.

        Returns:
            The path written.

        Raises:
            ValueError: If `path` has a suffix other than `.json`, or a score is NaN or infinite
                (JSON has no such number: saved, it would read back as something else).
        """
        target = Path(path)
        if not target.suffix:
            target = target.with_suffix(".json")
        elif target.suffix != ".json":
            raise ValueError(f"report path must end in .json (or have no suffix); got {str(path)!r}")
        where = _first_non_finite(
            {"overall_score": self.overall_score, "scores": self.scores, "detailed_results": self.detailed_results}
        )
        if where is not None:
            raise ValueError(
                f"report scores must be finite numbers to be saved; {where} is not. Fix the evaluator that "
                "produced it, or replace the score before saving"
            )
        # The version goes first, before the model's own fields (the dump always opens with "{\n").
        text = self.model_dump_json(indent=2)
        return write_text_atomic(target, f'{{\n  "format_version": {FORMAT_VERSION},\n{text[2:]}\n')

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> StructuredOutputReport:
        """Load a saved report (ours or any Strands Evals report) as this class.

        Raises:
            ReportFileError: If the file is missing, not UTF-8, not JSON (or holds a number
                longer than Python converts, or nests too deeply), not a report, written in a
                newer format (`format_version` over `FORMAT_VERSION`: upgrade structsim-nb), or
                has a NaN or infinite score; the message names the file and the first problem.
        """
        source = Path(path)
        try:
            text = source.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ReportFileError(f"report file must exist; {str(source)!r} was not found") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ReportFileError(f"report file {str(source)!r} could not be read as UTF-8 text: {exc}") from exc
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReportFileError(
                f"report file {str(source)!r} must be JSON; line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from exc
        except RecursionError:
            raise ReportFileError(f"report file {str(source)!r} nests too deeply to read") from None
        except ValueError as exc:  # a number with more digits than Python converts
            raise ReportFileError(f"report file {str(source)!r} cannot be read: {exc}") from None
        if isinstance(data, dict):
            _check_version(source, data.get("format_version", 1))
            where = _first_non_finite(data)
            if where is not None:
                raise ReportFileError(
                    f"report file {str(source)!r} has a score that is not a finite number at {where}; a report's "
                    "scores must be numbers. Fix the file, or the evaluator that wrote it"
                )
        try:
            return cls.model_validate(data)
        except RecursionError:
            raise ReportFileError(f"report file {str(source)!r} nests too deeply to read") from None
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(map(str, first["loc"])) or "(root)"
            # One run's report from `structsim-nb evaluate` (it has a scenario id and a scorer's score): say where
            # its run's whole report is.
            run_report = isinstance(data, dict) and "scenario_id" in data and isinstance(data.get("score"), dict)
            hint = (
                ". It is one run's report from structsim-nb evaluate: pass the folder that holds it (with "
                "_aggregate.json) to compare runs"
                if run_report
                else ""
            )
            raise ReportFileError(
                f"report file {str(source)!r} is not a Strands Evals report: {where}: {first['msg']} "
                f"({exc.error_count()} problem(s) in all){hint}"
            ) from exc


def _check_version(source: Path, version: Any) -> None:
    """Refuse a report file whose `format_version` this package cannot read."""
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ReportFileError(
            f"report file {str(source)!r} has format_version {version!r}; it must be a whole number of at "
            "least 1. The file is damaged, or was not written by structsim-nb"
        )
    if version > FORMAT_VERSION:
        raise ReportFileError(
            f"report file {str(source)!r} was written by a newer structsim-nb (report format {version}; this "
            f"version reads format {FORMAT_VERSION} and older). Upgrade structsim-nb to the version that wrote it "
            "(in its clone: git pull, then pip install -e .)"
        )
