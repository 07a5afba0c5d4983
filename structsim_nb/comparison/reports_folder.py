"""A `structsim-nb evaluate` reports folder read as a report, so `compare` can pair two of them.

The folder's `_aggregate.json` holds every run's result (`results`); each becomes one case named
by its scenario id, with the scorer's score, pass and rationale. Field detail comes along where
the scorer records it: the `similarity` scorer's row metadata (stickler's comparison), the JSON
match scorers' `fields`, and the `static_json` scorer's per-key records (turned into `fields`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from strands_evals.types.evaluation import EvaluationOutput

from ..errors import ReportFileError
from ..report import StructuredOutputReport

__all__ = ["AGGREGATE", "read_reports_folder"]

AGGREGATE = "_aggregate.json"  # structsim_nb.trajectories.runner.AGGREGATE_NAME


def _static_json_fields(details: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The static_json scorer's per-key records as json_match-style fields and non-matches."""
    fields: list[dict[str, Any]] = []
    misses: list[dict[str, Any]] = []
    for record in details.get("details") or ():
        if not isinstance(record, Mapping):
            continue
        kind = record.get("match_type")
        if kind == "missing":
            status, score, expected, predicted = "missed", 0.0, record.get("gold_value"), None
        elif kind == "extra":
            status, score, expected, predicted = "invented", None, None, record.get("model_value")
        else:  # the scorer's score and pass count exact matches; a tolerated one (`accepted`) is still wrong
            status = "match" if record.get("exact") else "wrong"
            score, expected, predicted = float(status == "match"), record.get("gold_value"), record.get("model_value")
        path = str(record.get("key"))
        fields.append({"path": path, "status": status, "score": score})
        if status != "match":
            category = {"missed": "fn", "invented": "fa", "wrong": "fd"}[status]
            misses.append(
                {
                    "path": path,
                    "kind": status,
                    "category": category,
                    "expected": expected,
                    "predicted": predicted,
                    "similarity": record.get("similarity") if status == "wrong" else None,
                    "reason": f"static_json: {kind}",
                }
            )
    return fields, misses


def _case_names(results: list[Mapping[str, Any]]) -> list[str]:
    """Scenario id per run; a scenario scored more than once gets `<id>/<run id>` (or its report name)."""
    ids = [str(result.get("scenario_id")) for result in results]
    repeated = {scenario for scenario in ids if ids.count(scenario) > 1}
    return [
        f"{scenario}/{result.get('run_id') or result.get('report')}" if scenario in repeated else scenario
        for scenario, result in zip(ids, results, strict=True)
    ]


def _run_report(folder: Path, result: Mapping[str, Any]) -> dict[str, Any]:
    """The run's own report file (named in its aggregate entry), or {} when the entry names none.

    Raises:
        ReportFileError: If the file is missing or not JSON: the folder was changed after evaluate wrote it.
    """
    name = result.get("report")
    if not isinstance(name, str):
        return {}
    path = folder / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ReportFileError(
            f"the run report {str(path)!r} that {AGGREGATE} lists must be readable JSON; it is not ({exc}). "
            "Run structsim-nb evaluate again to rewrite the folder"
        ) from None
    return data if isinstance(data, dict) else {}


def read_reports_folder(folder: str | os.PathLike[str]) -> tuple[StructuredOutputReport, list[str]]:
    """A `structsim-nb evaluate` reports folder as a report: one case per scored run, named by scenario id.

    Runs pair by scenario id; a scenario scored more than once in the folder is named
    `<scenario id>/<run id>`, so repeated runs pair by run id. An error entry (an unreadable
    trajectory, a missing ground truth) becomes an error row (score 0.0). Trajectories and
    scenarios that did not join are not runs; the notes count them.

    Returns:
        The report and notes on what the folder holds besides its runs.

    Raises:
        ReportFileError: If `_aggregate.json` is missing, truncated or not an evaluate aggregate.
    """
    path = Path(folder) / AGGREGATE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        reports = sorted(Path(folder).glob("*.json"))[:1]  # a folder of saved reports (demo's report.json)
        hint = f" To compare a saved report, pass the file itself ({reports[0]})" if reports else ""
        raise ReportFileError(
            f"a reports folder must hold {AGGREGATE} (structsim-nb evaluate writes it); {str(path)!r} was not "
            f"found.{hint}"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportFileError(f"evaluate aggregate {str(path)!r} could not be read as UTF-8 text: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ReportFileError(
            f"evaluate aggregate {str(path)!r} must be JSON; line {exc.lineno}, column {exc.colno}: {exc.msg}. "
            "Was it cut short? Run structsim-nb evaluate again to rewrite it"
        ) from exc
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not all(
        isinstance(r, dict) and isinstance(r.get("score"), dict) for r in results
    ):
        raise ReportFileError(
            f"evaluate aggregate {str(path)!r} must be what structsim-nb evaluate writes, with a 'results' list "
            "of scored runs; it is not. Point at the --reports-dir of an evaluate run"
        )
    scorer = str(data.get("scorer") or "evaluate")
    schema = (data.get("options") or {}).get("schema")
    if not schema:
        label = scorer
    elif str(schema).endswith(".json"):  # a JSON Schema file
        label = Path(str(schema)).stem
    else:  # a dotted path (or module:Class) to a Pydantic model; reports name it by its class name
        label = str(schema).replace(":", ".").rsplit(".", 1)[-1]
    cases, rows = [], []
    for name, result in zip(_case_names(results), results, strict=True):
        score = result["score"]
        if "details" not in score:  # the aggregate keeps each run's summary; its report file has the detail
            score = {**score, **(_run_report(Path(folder), result).get("score") or {})}
        details = score.get("details") if isinstance(score.get("details"), dict) else {}
        metadata: dict[str, Any]
        if result.get("status") == "error":
            metadata = {"error": "raised"}
        elif scorer == "static_json":
            fields, misses = _static_json_fields(details)
            metadata = {"evaluated_by": "static_json", "fields": fields, "non_matches": misses}
        else:
            metadata = dict(details)
        kind = str(details.get("evaluated_by") or scorer) if result.get("status") != "error" else scorer
        cases.append({"name": name, "evaluator": scorer, "evaluator_type": kind, "input": result.get("question")})
        rows.append(
            EvaluationOutput(
                score=float(score.get("score") or 0.0),
                test_pass=bool(score.get("passed")),
                reason=str(result.get("error") or score.get("rationale") or ""),
                label=label,
                metadata=metadata,
            )
        )
    report = StructuredOutputReport(
        overall_score=StructuredOutputReport.calculate_overall_score([r.score for r in rows], [[r] for r in rows]),
        scores=[r.score for r in rows],
        test_passes=[r.test_pass for r in rows],
        cases=cases,
        reasons=[r.reason or "" for r in rows],
        detailed_results=[[r] for r in rows],
        diagnoses=[None] * len(rows),
        recommendations=[None] * len(rows),
    )
    unjoined = [
        f"{count} {what}{'' if count == 1 else 's'}"
        for count, what in (
            (len(data.get("unmatched_trajectories") or ()), "trajectory file"),
            (len(data.get("unmatched_scenarios") or ()), "scenario"),
        )
        if count
    ]
    notes = (
        [f"{str(folder)!r}: {' and '.join(unjoined)} did not join (see {AGGREGATE}); not compared"] if unjoined else []
    )
    return report, notes
